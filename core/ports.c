// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/class/infiniband/<dev>/ports/<n>/: the port attributes, the GID and
 * P_Key tables (gids/, pkeys/), gid_attrs/{ndevs,types}/ and the PMA
 * counters (counters.c), in the layout and formats of upstream Linux.
 */
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <ibstack/compat.h>
#include "core_priv.h"

/* A numbered entry of a table directory: gids/N, pkeys/N, gid_attrs/.../N. */
struct ib_port_table_attr {
	struct ib_port_attribute	pa;
	u32				index;
	char				name[12];
};

static u32 ib_table_index(struct ib_port_attribute *pa)
{
	return container_of(pa, struct ib_port_table_attr, pa)->index;
}

/* A port: its kobject, its table directories and their entries. */
struct ib_port_dir {
	struct ib_sysfs_port		sp;
	struct attribute_group		tables[2];	/* gids, pkeys */
	const struct attribute_group	*groups[4];	/* + counters, NULL */
	struct kobject			*gid_attrs;
	struct ib_port_table_attr	entries[];
};

/* gid_attrs/ of a port, with ndevs/ and types/ */
struct ib_gid_attrs_dir {
	struct kobject			kobj;
	struct ib_sysfs_port		*sp;
	struct attribute_group		tables[2];	/* ndevs, types */
	const struct attribute_group	*groups[3];
	struct ib_port_table_attr	entries[];
};

/* --- the port's own attributes ------------------------------------------------ */

#define IB_PORT_ATTR_FN(_name, _fmt, _expr)					\
static ssize_t _name##_show(struct ib_device *device, u32 port,		\
			    struct ib_port_attribute *pa, char *buf)	\
{										\
	struct ib_port_attr attr;						\
	int ret = ib_query_port(device, port, &attr);					\
										\
	if (ret)								\
		return ret;							\
	return sysfs_emit(buf, _fmt, _expr);					\
}

#define IB_CORE_PORT_ATTR_RO(_name)							\
static struct ib_port_attribute ib_port_attr_##_name = {			\
	.attr = { .name = __stringify(_name), .mode = 0444 },			\
	.show = _name##_show,							\
}

IB_PORT_ATTR_FN(lid, "0x%x\n", attr.lid)
IB_PORT_ATTR_FN(lid_mask_count, "%u\n", attr.lmc)
IB_PORT_ATTR_FN(sm_lid, "0x%x\n", attr.sm_lid)
IB_PORT_ATTR_FN(sm_sl, "%u\n", attr.sm_sl)
IB_PORT_ATTR_FN(cap_mask, "0x%08x\n", attr.port_cap_flags)

static ssize_t state_show(struct ib_device *device, u32 port,
			  struct ib_port_attribute *pa, char *buf)
{
	struct ib_port_attr attr;
	int ret = ib_query_port(device, port, &attr);

	if (ret)
		return ret;
	return sysfs_emit(buf, "%d: %s\n", attr.state, ibstack_port_state_str(attr.state));
}

static const char * const ib_phys_state_names[] = {
	"<unknown>", "Sleep", "Polling", "Disabled", "PortConfigurationTraining",
	"LinkUp", "LinkErrorRecovery", "Phy Test",
};

static ssize_t phys_state_show(struct ib_device *device, u32 port,
			       struct ib_port_attribute *pa, char *buf)
{
	struct ib_port_attr attr;
	int ret = ib_query_port(device, port, &attr);

	if (ret)
		return ret;
	return sysfs_emit(buf, "%u: %s\n", attr.phys_state,
			  attr.phys_state < ARRAY_SIZE(ib_phys_state_names) ?
			  ib_phys_state_names[attr.phys_state] : "<unknown>");
}

/* Per-lane data rate in units of 100 Mb/s, and the speed's name. */
static void ib_speed_info(u16 speed, int *deci_gbps, const char **name)
{
	switch (speed) {
	case IB_SPEED_DDR:
		*deci_gbps = 50;
		*name = " DDR";
		break;
	case IB_SPEED_QDR:
		*deci_gbps = 100;
		*name = " QDR";
		break;
	case IB_SPEED_FDR10:
		*deci_gbps = 100;
		*name = " FDR10";
		break;
	case IB_SPEED_FDR:
		*deci_gbps = 140;
		*name = " FDR";
		break;
	case IB_SPEED_EDR:
		*deci_gbps = 250;
		*name = " EDR";
		break;
	case IB_SPEED_HDR:
		*deci_gbps = 500;
		*name = " HDR";
		break;
	default:	/* SDR, and what we do not know */
		*deci_gbps = 25;
		*name = " SDR";
		break;
	}
}

static ssize_t rate_show(struct ib_device *device, u32 port,
			 struct ib_port_attribute *pa, char *buf)
{
	struct ib_port_attr attr;
	const char *speed;
	int ret, lanes, rate;

	ret = ib_query_port(device, port, &attr);
	if (ret)
		return ret;
	lanes = ib_width_enum_to_int(attr.active_width);
	if (lanes < 0)
		return -EINVAL;
	ib_speed_info(attr.active_speed, &rate, &speed);
	rate *= lanes;
	return sysfs_emit(buf, "%d%s Gb/sec (%dX%s)\n", rate / 10, rate % 10 ? ".5" : "",
			  lanes, speed);
}

static ssize_t link_layer_show(struct ib_device *device, u32 port,
			       struct ib_port_attribute *pa, char *buf)
{
	switch (rdma_port_get_link_layer(device, port)) {
	case IB_LINK_LAYER_INFINIBAND:
		return sysfs_emit(buf, "InfiniBand\n");
	case IB_LINK_LAYER_ETHERNET:
		return sysfs_emit(buf, "Ethernet\n");
	default:
		return sysfs_emit(buf, "Unknown\n");
	}
}

IB_CORE_PORT_ATTR_RO(state);
IB_CORE_PORT_ATTR_RO(lid);
IB_CORE_PORT_ATTR_RO(lid_mask_count);
IB_CORE_PORT_ATTR_RO(sm_lid);
IB_CORE_PORT_ATTR_RO(sm_sl);
IB_CORE_PORT_ATTR_RO(cap_mask);
IB_CORE_PORT_ATTR_RO(rate);
IB_CORE_PORT_ATTR_RO(phys_state);
IB_CORE_PORT_ATTR_RO(link_layer);

static struct attribute *ib_port_default_attrs[] = {
	&ib_port_attr_state.attr,
	&ib_port_attr_lid.attr,
	&ib_port_attr_lid_mask_count.attr,
	&ib_port_attr_sm_lid.attr,
	&ib_port_attr_sm_sl.attr,
	&ib_port_attr_cap_mask.attr,
	&ib_port_attr_rate.attr,
	&ib_port_attr_phys_state.attr,
	&ib_port_attr_link_layer.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ib_port_default);

/* --- table entries ------------------------------------------------------------ */

static ssize_t gid_entry_show(struct ib_device *device, u32 port,
			      struct ib_port_attribute *pa, char *buf)
{
	union ib_gid gid = {};

	/* An empty entry shows as the zero GID, as upstream. */
	if (rdma_query_gid(device, port, ib_table_index(pa), &gid))
		memset(&gid, 0, sizeof(gid));
	return sysfs_emit(buf, "%pI6\n", gid.raw);
}

static ssize_t pkey_entry_show(struct ib_device *device, u32 port,
			       struct ib_port_attribute *pa, char *buf)
{
	u16 pkey;
	int ret = ib_get_cached_pkey(device, port, ib_table_index(pa), &pkey);

	if (ret)
		return ret;
	return sysfs_emit(buf, "0x%04x\n", pkey);
}

/* An InfiniBand GID has no network device. */
static ssize_t gid_ndev_show(struct ib_device *device, u32 port,
			     struct ib_port_attribute *pa, char *buf)
{
	return -EINVAL;
}

static ssize_t gid_type_show(struct ib_device *device, u32 port,
			     struct ib_port_attribute *pa, char *buf)
{
	return sysfs_emit(buf, "IB/RoCE v1\n");
}

/* Fills a named group of n entries "0".."n-1" from entries[]. */
static int ib_table_group(struct attribute_group *group, const char *name,
			  struct ib_port_table_attr *entries, int n,
			  ssize_t (*show)(struct ib_device *device, u32 port,
					  struct ib_port_attribute *pa, char *buf))
{
	struct attribute **list;
	int i;

	list = kcalloc(n + 1, sizeof(*list), GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct ib_port_table_attr *e = &entries[i];

		snprintf(e->name, sizeof(e->name), "%d", i);
		sysfs_attr_init(&e->pa.attr);
		e->pa.attr.name = e->name;
		e->pa.attr.mode = 0444;
		e->pa.show = show;
		e->index = i;
		list[i] = &e->pa.attr;
	}
	group->name = name;
	group->attrs = list;
	return 0;
}

/* --- kobject plumbing ----------------------------------------------------------- */

static ssize_t ib_port_attr_show(struct ib_sysfs_port *sp, struct attribute *attr, char *buf)
{
	struct ib_port_attribute *pa =
		container_of(attr, struct ib_port_attribute, attr);

	return pa->show ? pa->show(sp->device, sp->port, pa, buf) : -EIO;
}

static ssize_t ib_port_attr_store(struct ib_sysfs_port *sp, struct attribute *attr,
				  const char *buf, size_t count)
{
	struct ib_port_attribute *pa =
		container_of(attr, struct ib_port_attribute, attr);

	return pa->store ? pa->store(sp->device, sp->port, pa, buf, count) : -EIO;
}

static ssize_t ib_port_kobj_show(struct kobject *kobj, struct attribute *attr, char *buf)
{
	return ib_port_attr_show(container_of(kobj, struct ib_sysfs_port, kobj), attr, buf);
}

static ssize_t ib_port_kobj_store(struct kobject *kobj, struct attribute *attr,
				  const char *buf, size_t count)
{
	return ib_port_attr_store(container_of(kobj, struct ib_sysfs_port, kobj), attr,
				  buf, count);
}

static const struct sysfs_ops ib_port_sysfs_ops = {
	.show	= ib_port_kobj_show,
	.store	= ib_port_kobj_store,
};

static void ib_port_release(struct kobject *kobj)
{
	struct ib_port_dir *pd = container_of(kobj, struct ib_port_dir, sp.kobj);

	kfree(pd->tables[0].attrs);
	kfree(pd->tables[1].attrs);
	kfree(pd);
}

static IBSTACK_KTYPE_CONST struct kobj_type ib_port_ktype = {
	.release	= ib_port_release,
	.sysfs_ops	= &ib_port_sysfs_ops,
	.default_groups	= ib_port_default_groups,
};

static ssize_t ib_gid_attrs_kobj_show(struct kobject *kobj, struct attribute *attr,
				      char *buf)
{
	struct ib_gid_attrs_dir *gd = container_of(kobj, struct ib_gid_attrs_dir, kobj);

	return ib_port_attr_show(gd->sp, attr, buf);
}

static const struct sysfs_ops ib_gid_attrs_sysfs_ops = {
	.show = ib_gid_attrs_kobj_show,
};

static void ib_gid_attrs_release(struct kobject *kobj)
{
	struct ib_gid_attrs_dir *gd = container_of(kobj, struct ib_gid_attrs_dir, kobj);

	kfree(gd->tables[0].attrs);
	kfree(gd->tables[1].attrs);
	kfree(gd);
}

static IBSTACK_KTYPE_CONST struct kobj_type ib_gid_attrs_ktype = {
	.release	= ib_gid_attrs_release,
	.sysfs_ops	= &ib_gid_attrs_sysfs_ops,
};

/* --- building and removing a port's directory ---------------------------------- */

static int ib_add_gid_attrs(struct ib_port_dir *pd, int gid_len)
{
	struct ib_gid_attrs_dir *gd;
	int ret;

	gd = kzalloc(struct_size(gd, entries, (size_t)gid_len * 2), GFP_KERNEL);
	if (!gd)
		return -ENOMEM;
	gd->sp = &pd->sp;
	kobject_init(&gd->kobj, &ib_gid_attrs_ktype);

	ret = ib_table_group(&gd->tables[0], "ndevs", gd->entries, gid_len, gid_ndev_show);
	if (ret)
		goto err_put;
	ret = ib_table_group(&gd->tables[1], "types", gd->entries + gid_len, gid_len,
			     gid_type_show);
	if (ret)
		goto err_put;
	gd->groups[0] = &gd->tables[0];
	gd->groups[1] = &gd->tables[1];

	ret = kobject_add(&gd->kobj, &pd->sp.kobj, "gid_attrs");
	if (ret)
		goto err_put;
	ret = sysfs_create_groups(&gd->kobj, gd->groups);
	if (ret)
		goto err_del;
	pd->gid_attrs = &gd->kobj;
	return 0;

err_del:
	kobject_del(&gd->kobj);
err_put:
	kobject_put(&gd->kobj);
	return ret;
}

static void ib_remove_port(struct ib_port_dir *pd)
{
	if (pd->gid_attrs) {
		struct ib_gid_attrs_dir *gd =
			container_of(pd->gid_attrs, struct ib_gid_attrs_dir, kobj);

		sysfs_remove_groups(&gd->kobj, gd->groups);
		kobject_del(&gd->kobj);
		kobject_put(&gd->kobj);
		pd->gid_attrs = NULL;
	}
	sysfs_remove_groups(&pd->sp.kobj, pd->groups);
	kobject_del(&pd->sp.kobj);
	kobject_put(&pd->sp.kobj);
}

static struct ib_port_dir *ib_add_port(struct ib_device *device, u32 port)
{
	struct ib_port_cache *pc = ib_port_cache(device, port);
	int gid_len = pc->gid_tbl_len, pkey_len = pc->pkey_tbl_len;
	const struct attribute_group **g;
	struct ib_port_dir *pd;
	int ret;

	pd = kzalloc(struct_size(pd, entries, (size_t)gid_len + pkey_len), GFP_KERNEL);
	if (!pd)
		return ERR_PTR(-ENOMEM);
	pd->sp.device = device;
	pd->sp.port = port;
	kobject_init(&pd->sp.kobj, &ib_port_ktype);

	ret = ib_table_group(&pd->tables[0], "gids", pd->entries, gid_len, gid_entry_show);
	if (ret)
		goto err_put;
	ret = ib_table_group(&pd->tables[1], "pkeys", pd->entries + gid_len, pkey_len,
			     pkey_entry_show);
	if (ret)
		goto err_put;
	g = pd->groups;
	*g++ = &pd->tables[0];
	*g++ = &pd->tables[1];
	*g = ib_counters_group(device, port);

	ret = kobject_add(&pd->sp.kobj, device->ports_kobj, "%u", port);
	if (ret)
		goto err_put;
	ret = sysfs_create_groups(&pd->sp.kobj, pd->groups);
	if (ret)
		goto err_del;
	ret = ib_add_gid_attrs(pd, gid_len);
	if (ret)
		goto err_groups;
	return pd;

err_groups:
	sysfs_remove_groups(&pd->sp.kobj, pd->groups);
err_del:
	kobject_del(&pd->sp.kobj);
err_put:
	kobject_put(&pd->sp.kobj);
	return ERR_PTR(ret);
}

int ib_sysfs_add_ports(struct ib_device *device)
{
	struct ib_port_dir **ports;
	u32 port;
	int ret;

	ports = kcalloc(device->phys_port_cnt, sizeof(*ports), GFP_KERNEL);
	if (!ports)
		return -ENOMEM;
	device->sysfs_ports = ports;

	device->ports_kobj = kobject_create_and_add("ports", &device->dev.kobj);
	if (!device->ports_kobj) {
		ret = -ENOMEM;
		goto err;
	}

	for (port = rdma_start_port(device); port <= rdma_end_port(device); port++) {
		struct ib_port_dir *pd = ib_add_port(device, port);

		if (IS_ERR(pd)) {
			ret = PTR_ERR(pd);
			goto err;
		}
		ports[port - rdma_start_port(device)] = pd;
	}
	return 0;

err:
	ib_sysfs_remove_ports(device);
	return ret;
}

static struct kobject *ib_port_kobj(struct ib_device *device, u32 port)
{
	struct ib_port_dir **ports = device ? device->sysfs_ports : NULL;

	if (!ports || !rdma_is_port_valid(device, port))
		return NULL;
	return &ports[port - rdma_start_port(device)]->sp.kobj;
}

int ib_port_register_client_groups(struct ib_device *device, u32 port,
				   const struct attribute_group **groups)
{
	struct kobject *kobj = ib_port_kobj(device, port);

	if (!kobj || !groups) {
		IB_CORE_RATELIMITED("no port %u directory or no groups\n", port);
		return -EINVAL;
	}
	return sysfs_create_groups(kobj, groups);
}
EXPORT_SYMBOL(ib_port_register_client_groups);

void ib_port_unregister_client_groups(struct ib_device *device, u32 port,
				      const struct attribute_group **groups)
{
	struct kobject *kobj = ib_port_kobj(device, port);

	if (!kobj || !groups) {
		IB_CORE_RATELIMITED("no port %u directory or no groups\n", port);
		return;
	}
	sysfs_remove_groups(kobj, groups);
}
EXPORT_SYMBOL(ib_port_unregister_client_groups);

struct ib_device *ib_port_sysfs_get_ibdev_kobj(struct kobject *kobj, u32 *port_num)
{
	struct ib_sysfs_port *sp;

	if (!kobj || kobj->ktype != &ib_port_ktype)
		return NULL;
	sp = container_of(kobj, struct ib_sysfs_port, kobj);
	*port_num = sp->port;
	return sp->device;
}
EXPORT_SYMBOL(ib_port_sysfs_get_ibdev_kobj);

void ib_sysfs_remove_ports(struct ib_device *device)
{
	struct ib_port_dir **ports = device->sysfs_ports;
	u32 i;

	if (!ports)
		return;
	for (i = 0; i < device->phys_port_cnt; i++)
		if (ports[i])
			ib_remove_port(ports[i]);
	kobject_put(device->ports_kobj);
	device->ports_kobj = NULL;
	kfree(ports);
	device->sysfs_ports = NULL;
}

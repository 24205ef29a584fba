// SPDX-License-Identifier: GPL-2.0
/*
 * Device allocation, registration and unregistration, device references
 * and the lookup by name.  The locks are described in core_priv.h.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "core_priv.h"
#include "restrack.h"

/* The list of devices (core_priv.h). */
DECLARE_RWSEM(ib_devices_rwsem);
LIST_HEAD(ib_devices);
/*
 * Every device with an index (from its first registration to its
 * release), by ib_device.index; indices are handed out cyclically, as
 * upstream does, so that a reloaded driver's device gets a new one and a
 * tool holding the old index does not reach the new device.  Entries are
 * stored and erased under the xarray's lock, and a lookup takes its
 * device reference under it too, so the release (which erases first)
 * never frees a device a lookup is about to reference.
 */
static DEFINE_XARRAY_ALLOC(ib_device_indices);
static u32 ib_device_index_next;

/* How long unregistration waits between complaints about a held reference. */
#define IB_UNREG_WAIT_MS	10000

static void ib_device_release(struct device *dev)
{
	struct ib_device *device = container_of(dev, struct ib_device, dev);

	/* objects still tracked now were leaked by their owners: reported */
	rdma_restrack_clean(device);
	if (device->port_data)
		xa_erase(&ib_device_indices, device->index);
	kfree(device->port_data);
	xa_destroy(&device->client_data);
	kfree(device);
}

struct ib_device *_ib_alloc_device(size_t size)
{
	struct ib_device *device;
	int i;

	if (size < sizeof(*device)) {
		IB_CORE_RATELIMITED("size %zu below struct ib_device\n", size);
		return NULL;
	}

	device = kzalloc(size, GFP_KERNEL);
	if (!device)
		return NULL;

	if (rdma_restrack_init(device))
		goto err_free;
	device->event_wq = alloc_ordered_workqueue("ib_event", WQ_MEM_RECLAIM);
	if (!device->event_wq)
		goto err_restrack;

	device_initialize(&device->dev);
	device->dev.class = &ib_class;
	device->dev.release = ib_device_release;

	device->reg_state = IB_DEV_UNINITIALIZED;
	INIT_LIST_HEAD(&device->core_list);
	xa_init_flags(&device->client_data, XA_FLAGS_ALLOC);
	refcount_set(&device->refcount, 0);
	init_completion(&device->unreg_done);
	init_rwsem(&device->event_handler_rwsem);
	init_rwsem(&device->client_data_rwsem);
	INIT_LIST_HEAD(&device->event_handlers);
	spin_lock_init(&device->cq_pools_lock);
	spin_lock_init(&device->qp_open_list_lock);
	for (i = 0; i < ARRAY_SIZE(device->cq_pools); i++)
		INIT_LIST_HEAD(&device->cq_pools[i]);
	return device;

err_restrack:
	rdma_restrack_clean(device);
err_free:
	kfree(device);
	return NULL;
}
EXPORT_SYMBOL(_ib_alloc_device);

void ib_dealloc_device(struct ib_device *device)
{
	if (!device)
		return;
	if (device->reg_state == IB_DEV_REGISTERED ||
	    device->reg_state == IB_DEV_UNREGISTERING) {
		IB_CORE_RATELIMITED("%s: still registered, leaked\n",
				    device->name);
		return;
	}
	destroy_workqueue(device->event_wq);
	device->event_wq = NULL;
	/* The memory goes when the last sysfs user lets go of the device. */
	put_device(&device->dev);
}
EXPORT_SYMBOL(ib_dealloc_device);

void ib_device_put(struct ib_device *device)
{
	if (refcount_dec_and_test(&device->refcount))
		complete(&device->unreg_done);
}
EXPORT_SYMBOL(ib_device_put);

struct ib_device *ib_device_get_by_name(const char *name, enum rdma_driver_id driver_id)
{
	struct ib_device *device, *found = NULL;

	if (!name)
		return NULL;

	down_read(&ib_devices_rwsem);
	list_for_each_entry(device, &ib_devices, core_list) {
		if (!strcmp(device->name, name)) {
			if (driver_id != RDMA_DRIVER_UNKNOWN &&
			    device->ops.driver_id != driver_id)
				break;
			if (ib_device_is_registered(device) && ib_device_try_get(device))
				found = device;
			break;
		}
	}
	up_read(&ib_devices_rwsem);
	return found;
}
EXPORT_SYMBOL(ib_device_get_by_name);

/* a reference on the device, if it is registered; under the index lock */
static struct ib_device *ib_device_try_index(struct ib_device *device)
{
	lockdep_assert_held(&ib_device_indices.xa_lock);
	if (device && ib_device_is_registered(device) && ib_device_try_get(device))
		return device;
	return NULL;
}

struct ib_device *ib_device_get_by_index(u32 index)
{
	struct ib_device *device;

	xa_lock(&ib_device_indices);
	device = ib_device_try_index(xa_load(&ib_device_indices, index));
	xa_unlock(&ib_device_indices);
	return device;
}

struct ib_device *ib_device_get_next(u32 *index)
{
	unsigned long i = *index;
	struct ib_device *device, *found = NULL;

	xa_lock(&ib_device_indices);
	xa_for_each_start(&ib_device_indices, i, device, *index) {
		found = ib_device_try_index(device);
		if (found) {
			*index = i;
			break;
		}
	}
	xa_unlock(&ib_device_indices);
	return found;
}

void ib_get_device_fw_str(struct ib_device *device, char *str)
{
	str[0] = '\0';
	if (device->ops.get_dev_fw_str)
		device->ops.get_dev_fw_str(device, str, IB_FW_VERSION_NAME_MAX);
	/* whatever the driver wrote, the string ends within the buffer */
	str[IB_FW_VERSION_NAME_MAX - 1] = '\0';
}
EXPORT_SYMBOL(ib_get_device_fw_str);

/* The driver operations ib_set_device_ops() copies (all but driver_id). */
#define IB_OPS_OFF(op)	(offsetof(struct ib_device, ops.op) - offsetof(struct ib_device, ops))
static const size_t ib_settable_ops[] = {
	IB_OPS_OFF(owner), IB_OPS_OFF(query_device), IB_OPS_OFF(query_port),
	IB_OPS_OFF(get_port_immutable), IB_OPS_OFF(query_gid), IB_OPS_OFF(query_pkey),
	IB_OPS_OFF(modify_device), IB_OPS_OFF(modify_port), IB_OPS_OFF(get_link_layer),
	IB_OPS_OFF(get_dev_fw_str), IB_OPS_OFF(get_vector_affinity),
	IB_OPS_OFF(process_mad), IB_OPS_OFF(alloc_ucontext),
	IB_OPS_OFF(dealloc_ucontext), IB_OPS_OFF(mmap), IB_OPS_OFF(disassociate_ucontext),
	IB_OPS_OFF(query_device_user), IB_OPS_OFF(alloc_pd),
	IB_OPS_OFF(dealloc_pd), IB_OPS_OFF(get_dma_mr), IB_OPS_OFF(reg_kernel_mr),
	IB_OPS_OFF(dereg_mr), IB_OPS_OFF(reg_user_mr), IB_OPS_OFF(rereg_user_mr),
	IB_OPS_OFF(alloc_mr), IB_OPS_OFF(map_mr_sg),
	IB_OPS_OFF(alloc_mw), IB_OPS_OFF(dealloc_mw), IB_OPS_OFF(alloc_xrcd),
	IB_OPS_OFF(dealloc_xrcd), IB_OPS_OFF(create_cq), IB_OPS_OFF(destroy_cq),
	IB_OPS_OFF(modify_cq), IB_OPS_OFF(resize_cq), IB_OPS_OFF(create_qp),
	IB_OPS_OFF(modify_qp), IB_OPS_OFF(query_qp), IB_OPS_OFF(destroy_qp),
	IB_OPS_OFF(create_srq), IB_OPS_OFF(modify_srq), IB_OPS_OFF(query_srq),
	IB_OPS_OFF(destroy_srq), IB_OPS_OFF(attach_mcast), IB_OPS_OFF(detach_mcast),
	IB_OPS_OFF(create_ah), IB_OPS_OFF(modify_ah), IB_OPS_OFF(query_ah),
	IB_OPS_OFF(destroy_ah), IB_OPS_OFF(post_send), IB_OPS_OFF(post_recv),
	IB_OPS_OFF(post_srq_recv), IB_OPS_OFF(poll_cq), IB_OPS_OFF(req_notify_cq),
	IB_OPS_OFF(drain_sq), IB_OPS_OFF(drain_rq), IB_OPS_OFF(rdma_netdev_get_params),
	IB_OPS_OFF(set_vf_link_state), IB_OPS_OFF(get_vf_config),
	IB_OPS_OFF(get_vf_stats), IB_OPS_OFF(get_vf_guid), IB_OPS_OFF(set_vf_guid),
};

void ib_set_device_ops(struct ib_device *device, const struct ib_device_ops *ops)
{
	size_t i;

	/*
	 * every member but driver_id and uverbs_abi_ver (one pointer's room)
	 * and the object sizes is in the list
	 */
	BUILD_BUG_ON(sizeof_field(struct ib_device, ops) !=
		     (ARRAY_SIZE(ib_settable_ops) + 1) * sizeof(void *) + sizeof(size_t));
	if (ops->driver_id != RDMA_DRIVER_UNKNOWN) {
		WARN_ON(device->ops.driver_id != RDMA_DRIVER_UNKNOWN &&
			device->ops.driver_id != ops->driver_id);
		device->ops.driver_id = ops->driver_id;
	}
	/* each member the driver set replaces device->ops's */
	for (i = 0; i < ARRAY_SIZE(ib_settable_ops); i++) {
		void * const *src = (void * const *)((const char *)ops + ib_settable_ops[i]);
		void **dst = (void **)((char *)&device->ops + ib_settable_ops[i]);

		if (*src)
			*dst = *src;
	}
	if (ops->uverbs_abi_ver)
		device->ops.uverbs_abi_ver = ops->uverbs_abi_ver;
	if (ops->size_ib_mw)
		device->ops.size_ib_mw = ops->size_ib_mw;
}
EXPORT_SYMBOL(ib_set_device_ops);

bool ib_device_is_registered(struct ib_device *device)
{
	return READ_ONCE(device->reg_state) == IB_DEV_REGISTERED;
}

static bool ib_name_in_use(const char *name)
{
	struct ib_device *device;

	lockdep_assert_held_write(&ib_devices_rwsem);
	list_for_each_entry(device, &ib_devices, core_list)
		if (!strcmp(device->name, name))
			return true;
	return false;
}

/*
 * A pattern is a plain name or has exactly one "%d" and no other '%'.
 * Returns the length of the part before "%d", or -1 for a plain name.
 */
static int ib_name_pattern_split(const char *pattern)
{
	const char *pct = strchr(pattern, '%');

	if (!pct)
		return -1;
	if (pct[1] != 'd' || strchr(pct + 2, '%'))
		return -EINVAL;
	return pct - pattern;
}

static int ib_assign_name(struct ib_device *device, const char *pattern)
{
	char buf[IB_DEVICE_NAME_MAX];
	int prefix, i, len;

	lockdep_assert_held_write(&ib_devices_rwsem);

	prefix = ib_name_pattern_split(pattern);
	if (prefix < -1)
		return prefix;

	if (prefix == -1) {
		if (strscpy(buf, pattern, sizeof(buf)) < 0)
			return -ENAMETOOLONG;
		if (ib_name_in_use(buf))
			return -ENFILE;
		strscpy(device->name, buf, sizeof(device->name));
		return 0;
	}

	for (i = 0; i < 1024; i++) {
		len = snprintf(buf, sizeof(buf), "%.*s%d%s", prefix, pattern, i,
			       pattern + prefix + 2);
		if (len >= sizeof(buf))
			return -ENAMETOOLONG;
		if (!ib_name_in_use(buf)) {
			strscpy(device->name, buf, sizeof(device->name));
			return 0;
		}
	}
	return -ENFILE;
}

/*
 * A name user space may give: the kernel's own patterns ("%d") and what
 * sysfs cannot hold as a directory name are refused.
 */
static bool ib_name_acceptable(const char *name)
{
	return name[0] && strcmp(name, ".") && strcmp(name, "..") &&
	       !strpbrk(name, "/%") && !strpbrk(name, " \t\n");
}

int ib_device_rename(struct ib_device *device, const char *name)
{
	int ret;

	if (!ib_name_acceptable(name))
		return -EINVAL;

	down_write(&ib_devices_rwsem);
	if (!ib_device_is_registered(device)) {
		ret = -ENODEV;
		goto out;
	}
	ret = 0;
	if (!strcmp(name, device->name))
		goto out;
	ret = -EEXIST;
	if (ib_name_in_use(name))
		goto out;
	/* sysfs first: if it refuses, nothing has changed */
	ret = device_rename(&device->dev, name);
	if (ret)
		goto out;
	strscpy(device->name, name, sizeof(device->name));
	pr_info("ib_core: device renamed to %s\n", name);
out:
	up_write(&ib_devices_rwsem);
	if (!ret)
		ib_clients_rename_device(device);
	return ret;
}

/* The driver operations ib_core calls without checking for NULL. */
#define IB_OP(op) { offsetof(const struct ib_device_ops, op), #op }
static const struct {
	size_t		offset;
	const char	*name;
} ib_required_ops[] = {
	IB_OP(query_device), IB_OP(query_port), IB_OP(get_port_immutable),
	IB_OP(query_gid), IB_OP(query_pkey),
	IB_OP(alloc_pd), IB_OP(dealloc_pd), IB_OP(get_dma_mr), IB_OP(dereg_mr),
	IB_OP(create_cq), IB_OP(destroy_cq), IB_OP(create_qp), IB_OP(modify_qp),
	IB_OP(destroy_qp), IB_OP(create_ah), IB_OP(destroy_ah), IB_OP(post_send),
	IB_OP(post_recv), IB_OP(poll_cq), IB_OP(req_notify_cq),
};

static int ib_check_ops(const struct ib_device_ops *ops)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ib_required_ops); i++) {
		const void * const *fn = (const void * const *)
			((const char *)ops + ib_required_ops[i].offset);

		if (!*fn) {
			pr_err("ib_core: driver lacks the %s operation\n", ib_required_ops[i].name);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * port_data[] (index 0 unused, as upstream: it is indexed by port number)
 * with each port's immutable capabilities, and the device's index.
 */
static int ib_setup_port_data(struct ib_device *device)
{
	struct ib_port_data *pdata;
	u32 port;
	int ret;

	pdata = kcalloc(rdma_end_port(device) + 1, sizeof(*pdata), GFP_KERNEL);
	if (!pdata)
		return -ENOMEM;
	rdma_for_each_port(device, port) {
		pdata[port].ib_dev = device;
		ret = device->ops.get_port_immutable(device, port, &pdata[port].immutable);
		if (ret) {
			pr_err("ib_core: %s: port %u capabilities: %d\n",
			       device->name, port, ret);
			goto err;
		}
	}
	ret = xa_alloc_cyclic(&ib_device_indices, &device->index, device, xa_limit_31b,
			      &ib_device_index_next, GFP_KERNEL);
	if (ret < 0)
		goto err;
	device->port_data = pdata;
	return 0;

err:
	kfree(pdata);
	return ret;
}

/* dev.groups: ours, then the driver's (at most the space left). */
static int ib_fill_groups(struct ib_device *device)
{
	const size_t max = ARRAY_SIZE(device->core_groups) - 1;
	size_t n = 0, i;

	device->core_groups[n++] = &ib_dev_attr_group;
	if (device->driver_group)
		device->core_groups[n++] = device->driver_group;
	for (i = 0; device->driver_groups && device->driver_groups[i]; i++) {
		if (n == max) {
			pr_err("ib_core: %s: too many driver attribute groups\n", device->name);
			return -EINVAL;
		}
		device->core_groups[n++] = device->driver_groups[i];
	}
	device->core_groups[n] = NULL;
	return 0;
}

int ib_register_device(struct ib_device *device, const char *name,
		       struct device *dma_device)
{
	int ret;

	if (!device || !name || !dma_device) {
		IB_CORE_RATELIMITED("missing device, name or DMA device\n");
		return -EINVAL;
	}
	ret = ib_check_ops(&device->ops);
	if (ret)
		return ret;
	if (!device->phys_port_cnt) {
		IB_CORE_RATELIMITED("a device without ports\n");
		return -EINVAL;
	}

	/* the name is the device's from here until its unregistration ends */
	down_write(&ib_devices_rwsem);
	if (device->reg_state != IB_DEV_UNINITIALIZED || !list_empty(&device->core_list)) {
		up_write(&ib_devices_rwsem);
		IB_CORE_RATELIMITED("%s: registered twice\n", device->name);
		return -EINVAL;
	}
	ret = ib_assign_name(device, name);
	if (!ret)
		list_add_tail(&device->core_list, &ib_devices);
	up_write(&ib_devices_rwsem);
	if (ret) {
		pr_err("ib_core: no free device name for \"%s\": %d\n", name, ret);
		return ret;
	}

	device->dma_device = dma_device;
	memset(&device->attrs, 0, sizeof(device->attrs));
	ret = device->ops.query_device(device, &device->attrs);
	if (ret) {
		pr_err("ib_core: %s: query_device failed: %d\n", device->name, ret);
		goto err_name;
	}
	if (!device->port_data) {
		ret = ib_setup_port_data(device);
		if (ret)
			goto err_name;
	}

	ret = ib_cache_setup(device);
	if (ret) {
		pr_err("ib_core: %s: port cache setup failed: %d\n", device->name, ret);
		goto err_name;
	}

	ret = ib_fill_groups(device);
	if (ret)
		goto err_cache;
	device->dev.groups = device->core_groups;
	device->dev.parent = device->dma_device;
	ret = dev_set_name(&device->dev, "%s", device->name);
	if (ret)
		goto err_cache;
	/* User space hears of the device once its ports are in sysfs too. */
	dev_set_uevent_suppress(&device->dev, true);
	ret = device_add(&device->dev);
	if (ret) {
		pr_err("ib_core: %s: device_add failed: %d\n", device->name, ret);
		goto err_cache;
	}

	ret = ib_sysfs_add_ports(device);
	if (ret) {
		pr_err("ib_core: %s: port sysfs failed: %d\n", device->name, ret);
		goto err_del;
	}
	dev_set_uevent_suppress(&device->dev, false);
	kobject_uevent(&device->dev.kobj, KOBJ_ADD);

	refcount_set(&device->refcount, 1);
	reinit_completion(&device->unreg_done);
	down_write(&ib_devices_rwsem);
	WRITE_ONCE(device->reg_state, IB_DEV_REGISTERED);
	up_write(&ib_devices_rwsem);

	ib_clients_add_device(device);
	return 0;

err_del:
	device_del(&device->dev);
err_cache:
	ib_cache_cleanup(device);
err_name:
	down_write(&ib_devices_rwsem);
	list_del_init(&device->core_list);
	up_write(&ib_devices_rwsem);
	return ret;
}
EXPORT_SYMBOL(ib_register_device);

static void ib_wait_for_references(struct ib_device *device)
{
	ib_device_put(device);
	while (!wait_for_completion_timeout(&device->unreg_done,
					    msecs_to_jiffies(IB_UNREG_WAIT_MS)))
		pr_warn("ib_core: %s: unregistration waits for %u device reference(s)\n",
			device->name, refcount_read(&device->refcount));
}

/*
 * No global lock is held past the state change: other devices register
 * and unregister, and clients come and go, while this one waits.
 */
void ib_unregister_device(struct ib_device *device)
{
	if (!device)
		return;

	/* No new lookup or client finds it ... */
	down_write(&ib_devices_rwsem);
	if (device->reg_state != IB_DEV_REGISTERED) {
		up_write(&ib_devices_rwsem);
		IB_CORE_RATELIMITED("%s: not registered\n", device->name);
		return;
	}
	WRITE_ONCE(device->reg_state, IB_DEV_UNREGISTERING);
	up_write(&ib_devices_rwsem);

	/*
	 * ... the events the driver reported before (a DEVICE_FATAL just
	 * ahead of a recovery's removal) reach the clients that are still
	 * there ...
	 */
	flush_workqueue(device->event_wq);

	/* ... the clients let go of it, in the reverse order of their arrival ... */
	ib_clients_remove_device(device);
	/* (the CQs they shared go with the last of them) */
	ib_cq_pool_cleanup(device);

	/* ... and so does everyone else who holds a reference. */
	ib_wait_for_references(device);

	/* No more events: the handlers are gone and the cache goes next. */
	ib_events_disable(device);
	if (!list_empty(&device->event_handlers))
		pr_err("ib_core: %s: event handlers still registered at unregistration\n",
		       device->name);

	ib_sysfs_remove_ports(device);
	device_del(&device->dev);
	ib_cache_cleanup(device);

	/* the name is free again */
	down_write(&ib_devices_rwsem);
	list_del_init(&device->core_list);
	WRITE_ONCE(device->reg_state, IB_DEV_UNREGISTERED);
	up_write(&ib_devices_rwsem);
}
EXPORT_SYMBOL(ib_unregister_device);

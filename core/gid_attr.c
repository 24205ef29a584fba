// SPDX-License-Identifier: GPL-2.0
/*
 * GID attributes: a refcounted, read-only description of one GID table
 * entry (device, port, index, GID, type; no netdev on an InfiniBand port).
 * The port cache (cache.c) holds one reference per non-empty entry and
 * replaces the attribute when the entry's GID changes; whoever got one
 * from the calls below keeps a valid attribute until rdma_put_gid_attr(),
 * which must happen before the device is unregistered.  Every call here
 * is [any]: the cache's rwlock with interrupts off, and kfree() at the
 * last put.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include "core_priv.h"

union ib_gid zgid;
EXPORT_SYMBOL(zgid);

bool rdma_is_zero_gid(const union ib_gid *gid)
{
	return !memcmp(gid, &zgid, sizeof(*gid));
}
EXPORT_SYMBOL(rdma_is_zero_gid);

/* [sleep] A new attribute with one reference, for the cache; NULL on ENOMEM. */
struct ib_gid_entry *ib_gid_entry_new(struct ib_device *device, u32 port, u16 index,
				      const union ib_gid *gid)
{
	struct ib_gid_entry *entry = kzalloc(sizeof(*entry), GFP_KERNEL);

	if (!entry)
		return NULL;
	kref_init(&entry->ref);
	entry->attr.device = device;
	entry->attr.gid = *gid;
	entry->attr.gid_type = IB_GID_TYPE_IB;
	entry->attr.index = index;
	entry->attr.port_num = port;
	RCU_INIT_POINTER(entry->attr.ndev, NULL);
	return entry;
}

static void ib_gid_entry_release(struct kref *ref)
{
	kfree(container_of(ref, struct ib_gid_entry, ref));
}

void ib_gid_entry_put(struct ib_gid_entry *entry)
{
	kref_put(&entry->ref, ib_gid_entry_release);
}

/* Only the cache's reference is left. */
bool ib_gid_entry_last(struct ib_gid_entry *entry)
{
	return kref_read(&entry->ref) == 1;
}

static struct ib_gid_entry *ib_gid_entry_of(const struct ib_gid_attr *attr)
{
	return container_of(attr, struct ib_gid_entry, attr);
}

void rdma_hold_gid_attr(const struct ib_gid_attr *attr)
{
	kref_get(&ib_gid_entry_of(attr)->ref);
}
EXPORT_SYMBOL(rdma_hold_gid_attr);

void rdma_put_gid_attr(const struct ib_gid_attr *attr)
{
	if (attr)
		ib_gid_entry_put(ib_gid_entry_of(attr));
}
EXPORT_SYMBOL(rdma_put_gid_attr);

const struct ib_gid_attr *rdma_get_gid_attr(struct ib_device *device, u32 port_num, int index)
{
	const struct ib_gid_attr *attr = ERR_PTR(-ENODATA);
	struct ib_port_cache *pc;
	unsigned long flags;

	pc = device ? ib_port_cache(device, port_num) : NULL;
	if (!pc || index < 0 || index >= pc->gid_tbl_len)
		return ERR_PTR(-EINVAL);
	read_lock_irqsave(&pc->lock, flags);
	if (pc->entries && pc->entries[index]) {
		kref_get(&pc->entries[index]->ref);
		attr = &pc->entries[index]->attr;
	}
	read_unlock_irqrestore(&pc->lock, flags);
	return attr;
}
EXPORT_SYMBOL(rdma_get_gid_attr);

/*
 * The first entry of the port holding gid whose attribute passes match
 * (or every one when match is NULL), with a reference; NULL if none.
 */
static const struct ib_gid_attr *
ib_gid_attr_search(struct ib_port_cache *pc, const union ib_gid *gid,
		   bool (*match)(const union ib_gid *gid, const struct ib_gid_attr *attr,
				 void *context),
		   void *context)
{
	const struct ib_gid_attr *found = NULL;
	struct ib_gid_entry *e;
	unsigned long flags;
	int i;

	read_lock_irqsave(&pc->lock, flags);
	for (i = 0; pc->entries && i < pc->gid_tbl_len; i++) {
		e = pc->entries[i];
		if (!e || memcmp(&e->attr.gid, gid, sizeof(*gid)))
			continue;
		if (match && !match(gid, &e->attr, context))
			continue;
		kref_get(&e->ref);
		found = &e->attr;
		break;
	}
	read_unlock_irqrestore(&pc->lock, flags);
	return found;
}

/* The type and netdev asked for: an InfiniBand entry has no netdev. */
struct ib_gid_want {
	enum ib_gid_type	type;
	struct net_device	*ndev;
};

static bool ib_gid_attr_wanted(const union ib_gid *gid, const struct ib_gid_attr *attr,
			       void *context)
{
	const struct ib_gid_want *want = context;

	return attr->gid_type == want->type &&
	       (!want->ndev || rcu_access_pointer(attr->ndev) == want->ndev);
}

const struct ib_gid_attr *rdma_find_gid_by_port(struct ib_device *ib_dev,
						const union ib_gid *gid,
						enum ib_gid_type gid_type,
						u32 port, struct net_device *ndev)
{
	struct ib_gid_want want = { .type = gid_type, .ndev = ndev };
	const struct ib_gid_attr *attr;
	struct ib_port_cache *pc;

	pc = ib_dev && gid ? ib_port_cache(ib_dev, port) : NULL;
	if (!pc)
		return ERR_PTR(-ENOENT);
	attr = ib_gid_attr_search(pc, gid, ib_gid_attr_wanted, &want);
	return attr ? attr : ERR_PTR(-ENOENT);
}
EXPORT_SYMBOL(rdma_find_gid_by_port);

const struct ib_gid_attr *rdma_find_gid(struct ib_device *device, const union ib_gid *gid,
					enum ib_gid_type gid_type, struct net_device *ndev)
{
	u32 port;

	if (!device || !gid)
		return ERR_PTR(-ENOENT);
	rdma_for_each_port(device, port) {
		const struct ib_gid_attr *attr;

		attr = rdma_find_gid_by_port(device, gid, gid_type, port, ndev);
		if (!IS_ERR(attr))
			return attr;
	}
	return ERR_PTR(-ENOENT);
}
EXPORT_SYMBOL(rdma_find_gid);

/*
 * filter runs under the cache's rwlock with interrupts off: it must not
 * sleep.  Not exported, as in 6.1 (ib_core's own use).
 */
const struct ib_gid_attr *
rdma_find_gid_by_filter(struct ib_device *device, const union ib_gid *gid, u32 port,
			bool (*filter)(const union ib_gid *gid, const struct ib_gid_attr *,
				       void *),
			void *context)
{
	const struct ib_gid_attr *attr;
	struct ib_port_cache *pc;

	pc = device && gid ? ib_port_cache(device, port) : NULL;
	if (!pc)
		return ERR_PTR(-EINVAL);
	attr = ib_gid_attr_search(pc, gid, filter, context);
	return attr ? attr : ERR_PTR(-ENOENT);
}

/* attr is still its port's entry at its index (not replaced since) */
static bool ib_gid_attr_current(const struct ib_gid_attr *attr)
{
	struct ib_port_cache *pc = ib_port_cache(attr->device, attr->port_num);
	unsigned long flags;
	bool cur;

	if (!pc)
		return false;
	read_lock_irqsave(&pc->lock, flags);
	cur = pc->entries && attr->index < pc->gid_tbl_len &&
	      pc->entries[attr->index] == ib_gid_entry_of(attr);
	read_unlock_irqrestore(&pc->lock, flags);
	return cur;
}

/*
 * The caller holds rcu_read_lock().  An InfiniBand entry has no netdev:
 * -ENODEV while it is in the table, -EINVAL once replaced (as upstream).
 */
struct net_device *rdma_read_gid_attr_ndev_rcu(const struct ib_gid_attr *attr)
{
	struct net_device *ndev;

	if (!ib_gid_attr_current(attr))
		return ERR_PTR(-EINVAL);
	ndev = rcu_dereference(attr->ndev);
	return ndev ? ndev : ERR_PTR(-ENODEV);
}
EXPORT_SYMBOL(rdma_read_gid_attr_ndev_rcu);

/* RoCE's VLAN and MAC of the entry's netdev: none on InfiniBand (-ENODEV). */
int rdma_read_gid_l2_fields(const struct ib_gid_attr *attr, u16 *vlan_id, u8 *smac)
{
	struct net_device *ndev;

	rcu_read_lock();
	ndev = rcu_dereference(attr->ndev);
	rcu_read_unlock();
	return ndev ? -EOPNOTSUPP : -ENODEV;
}
EXPORT_SYMBOL(rdma_read_gid_l2_fields);

/* The driver's context of the entry: mlx4_ib keeps none for IB ports. */
void *rdma_read_gid_hw_context(const struct ib_gid_attr *attr)
{
	return NULL;
}
EXPORT_SYMBOL(rdma_read_gid_hw_context);

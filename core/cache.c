// SPDX-License-Identifier: GPL-2.0
/*
 * The per-port cache (state, LIDs, GID and P_Key tables) that any context
 * may read, kept current by registration and by the port events.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include "core_priv.h"

/* Table sizes beyond these are a driver bug, not a real port. */
#define IB_CACHE_MAX_GIDS	4096
#define IB_CACHE_MAX_PKEYS	0xffff

struct ib_port_cache *ib_port_cache(struct ib_device *device, u32 port)
{
	if (!device->cache || !rdma_is_port_valid(device, port))
		return NULL;
	return &device->cache[port - rdma_start_port(device)];
}

/* New tables for one port, queried outside the lock (NULL: not asked for). */
struct ib_cache_snapshot {
	struct ib_port_attr	attr;
	union ib_gid		*gids;
	struct ib_gid_entry	**entries;
	u16			*pkeys;
};

/*
 * The tables of a snapshot: the new ones after a failed query, the old
 * ones after the swap.  Either way an entry that is not the table's own
 * at its index is dropped.
 */
static void ib_cache_snapshot_free(struct ib_port_cache *pc, struct ib_cache_snapshot *snap)
{
	int i;

	for (i = 0; snap->entries && i < pc->gid_tbl_len; i++)
		if (snap->entries[i] && (!pc->entries || snap->entries[i] != pc->entries[i]))
			ib_gid_entry_put(snap->entries[i]);
	kfree(snap->entries);
	kfree(snap->gids);
	kfree(snap->pkeys);
}

/*
 * The GID table and an attribute per non-empty entry: the table's own
 * where the GID is unchanged, a new one where it changed.  The caller
 * holds update_mutex, so pc->entries cannot change meanwhile.
 */
static int ib_cache_query_gids(struct ib_device *device, u32 port,
			       const struct ib_port_cache *pc, struct ib_cache_snapshot *snap)
{
	int i, ret;

	snap->gids = kcalloc(pc->gid_tbl_len, sizeof(*snap->gids), GFP_KERNEL);
	snap->entries = kcalloc(pc->gid_tbl_len, sizeof(*snap->entries), GFP_KERNEL);
	if (!snap->gids || !snap->entries)
		return -ENOMEM;
	for (i = 0; i < pc->gid_tbl_len; i++) {
		ret = device->ops.query_gid(device, port, i, &snap->gids[i]);
		if (ret)
			return ret;
		if (rdma_is_zero_gid(&snap->gids[i]))
			continue;
		if (pc->entries && pc->entries[i] &&
		    !memcmp(&pc->entries[i]->attr.gid, &snap->gids[i], sizeof(snap->gids[i]))) {
			snap->entries[i] = pc->entries[i];
			continue;
		}
		snap->entries[i] = ib_gid_entry_new(device, port, i, &snap->gids[i]);
		if (!snap->entries[i])
			return -ENOMEM;
	}
	return 0;
}

static int ib_cache_query(struct ib_device *device, u32 port, const struct ib_port_cache *pc,
			  struct ib_cache_snapshot *snap, bool gids, bool pkeys)
{
	int i, ret;

	ret = ib_query_port(device, port, &snap->attr);
	if (ret)
		return ret;
	if (gids) {
		ret = ib_cache_query_gids(device, port, pc, snap);
		if (ret)
			return ret;
	}
	if (!pkeys)
		return 0;
	snap->pkeys = kcalloc(pc->pkey_tbl_len, sizeof(*snap->pkeys), GFP_KERNEL);
	if (!snap->pkeys)
		return -ENOMEM;
	for (i = 0; i < pc->pkey_tbl_len; i++) {
		ret = device->ops.query_pkey(device, port, i, &snap->pkeys[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Brings the port's cache up to date: its attributes always, the GID
 * table (and the GID attributes) and the P_Key table when asked for, as
 * upstream reads them only on the events that change them.  [sleep]
 */
int ib_cache_update_port(struct ib_device *device, u32 port, bool gids, bool pkeys)
{
	struct ib_port_cache *pc = ib_port_cache(device, port);
	struct ib_cache_snapshot snap = {};
	unsigned long flags;
	int ret;

	if (!pc)
		return -EINVAL;

	mutex_lock(&pc->update_mutex);
	/* the first update reads everything */
	gids |= !pc->gids;
	pkeys |= !pc->pkeys;
	ret = ib_cache_query(device, port, pc, &snap, gids, pkeys);
	if (ret) {
		ib_cache_snapshot_free(pc, &snap);
		goto out;
	}

	write_lock_irqsave(&pc->lock, flags);
	pc->state = snap.attr.state;
	pc->phys_state = snap.attr.phys_state;
	pc->lid = snap.attr.lid;
	pc->sm_lid = snap.attr.sm_lid;
	pc->lmc = snap.attr.lmc;
	pc->sm_sl = snap.attr.sm_sl;
	pc->port_cap_flags = snap.attr.port_cap_flags;
	if (gids) {
		swap(pc->gids, snap.gids);
		swap(pc->entries, snap.entries);
	}
	if (pkeys)
		swap(pc->pkeys, snap.pkeys);
	write_unlock_irqrestore(&pc->lock, flags);

	/* the snapshot holds the old tables now: their replaced entries go */
	ib_cache_snapshot_free(pc, &snap);
out:
	mutex_unlock(&pc->update_mutex);
	return ret;
}

static void ib_cache_free(struct ib_device *device)
{
	struct ib_port_cache *cache = device->cache;
	u32 i;
	int j;

	if (!cache)
		return;
	device->cache = NULL;
	for (i = 0; i < device->phys_port_cnt; i++) {
		for (j = 0; cache[i].entries && j < cache[i].gid_tbl_len; j++) {
			if (!cache[i].entries[j])
				continue;
			/* a ULP that still holds one would read a freed device */
			WARN_ONCE(!ib_gid_entry_last(cache[i].entries[j]),
				  "ib_core: %s: port %u GID %d: attribute still held at removal\n",
				  device->name, i + rdma_start_port(device), j);
			ib_gid_entry_put(cache[i].entries[j]);
		}
		kfree(cache[i].entries);
		kfree(cache[i].gids);
		kfree(cache[i].pkeys);
		mutex_destroy(&cache[i].update_mutex);
	}
	kfree(cache);
}

/*
 * Sizes the tables from query_port(), turns event processing on (so no
 * event is missed between the queries below and the end of registration)
 * and fills every port.
 */
int ib_cache_setup(struct ib_device *device)
{
	struct ib_port_attr attr;
	u32 port;
	int ret;

	device->cache = kcalloc(device->phys_port_cnt, sizeof(*device->cache), GFP_KERNEL);
	if (!device->cache)
		return -ENOMEM;
	for (port = 0; port < device->phys_port_cnt; port++) {
		rwlock_init(&device->cache[port].lock);
		mutex_init(&device->cache[port].update_mutex);
	}

	for (port = rdma_start_port(device); port <= rdma_end_port(device); port++) {
		struct ib_port_cache *pc = ib_port_cache(device, port);

		ret = ib_query_port(device, port, &attr);
		if (ret)
			goto err;
		if (attr.gid_tbl_len <= 0 || attr.gid_tbl_len > IB_CACHE_MAX_GIDS ||
		    !attr.pkey_tbl_len || attr.pkey_tbl_len > IB_CACHE_MAX_PKEYS) {
			pr_err("ib_core: %s: port %u: bad table sizes (%d GIDs, %u P_Keys)\n",
			       device->name, port, attr.gid_tbl_len, attr.pkey_tbl_len);
			ret = -EINVAL;
			goto err;
		}
		pc->gid_tbl_len = attr.gid_tbl_len;
		pc->pkey_tbl_len = attr.pkey_tbl_len;
	}

	ib_events_enable(device);
	for (port = rdma_start_port(device); port <= rdma_end_port(device); port++) {
		ret = ib_cache_update_port(device, port, true, true);
		if (ret)
			goto err_events;
	}
	return 0;

err_events:
	ib_events_disable(device);
err:
	ib_cache_free(device);
	return ret;
}

void ib_cache_cleanup(struct ib_device *device)
{
	ib_events_disable(device);
	ib_cache_free(device);
}

/* --- uncached queries and modifications ([sleep]) -------------------------- */

int ib_query_port(struct ib_device *device, u32 port, struct ib_port_attr *attr)
{
	int ret;

	if (!device || !attr || !rdma_is_port_valid(device, port)) {
		IB_CORE_RATELIMITED("bad device, port %u or attr\n", port);
		return -EINVAL;
	}
	memset(attr, 0, sizeof(*attr));
	ret = device->ops.query_port(device, port, attr);
	if (ret)
		return ret;
	/* the prefix of GID 0, as the cache has it (0 before it has one) */
	ib_get_cached_subnet_prefix(device, port, &attr->subnet_prefix);
	return 0;
}
EXPORT_SYMBOL(ib_query_port);

int ib_query_pkey(struct ib_device *device, u32 port, u16 index, u16 *pkey)
{
	struct ib_port_cache *pc;

	if (!device || !pkey || !rdma_is_port_valid(device, port)) {
		IB_CORE_RATELIMITED("bad device, port %u or pkey\n", port);
		return -EINVAL;
	}
	pc = ib_port_cache(device, port);
	if (pc && index >= pc->pkey_tbl_len)
		return -EINVAL;
	return device->ops.query_pkey(device, port, index, pkey);
}
EXPORT_SYMBOL(ib_query_pkey);

int ib_find_pkey(struct ib_device *device, u32 port_num, u16 pkey, u16 *index)
{
	int i, ret, limited = -1;
	u16 entry;

	if (!device || !index || !rdma_is_port_valid(device, port_num))
		return -EINVAL;
	for (i = 0; i < device->port_data[port_num].immutable.pkey_tbl_len; i++) {
		ret = ib_query_pkey(device, port_num, i, &entry);
		if (ret)
			return ret;
		if ((entry ^ pkey) & 0x7fff)
			continue;
		if (entry & 0x8000) {	/* a full member: the answer */
			*index = i;
			return 0;
		}
		if (limited < 0)
			limited = i;
	}
	if (limited < 0)
		return -ENOENT;
	*index = limited;
	return 0;
}
EXPORT_SYMBOL(ib_find_pkey);

int ib_modify_device(struct ib_device *device, int mask, struct ib_device_modify *modify)
{
	int ret;

	if (!device || !modify ||
	    (mask & ~(IB_DEVICE_MODIFY_SYS_IMAGE_GUID | IB_DEVICE_MODIFY_NODE_DESC))) {
		IB_CORE_RATELIMITED("bad arguments (mask 0x%x)\n", mask);
		return -EINVAL;
	}
	if (!device->ops.modify_device)
		return -EOPNOTSUPP;

	ret = device->ops.modify_device(device, mask, modify);
	if (!ret && (mask & IB_DEVICE_MODIFY_NODE_DESC))
		memcpy(device->node_desc, modify->node_desc, sizeof(device->node_desc));
	return ret;
}
EXPORT_SYMBOL(ib_modify_device);

int ib_modify_port(struct ib_device *device, u32 port, int mask,
		   struct ib_port_modify *modify)
{
	if (!device || !modify || !rdma_is_port_valid(device, port)) {
		IB_CORE_RATELIMITED("bad device, port %u or modify\n", port);
		return -EINVAL;
	}
	if (!device->ops.modify_port)
		return -EOPNOTSUPP;
	return device->ops.modify_port(device, port, mask, modify);
}
EXPORT_SYMBOL(ib_modify_port);

enum rdma_link_layer rdma_port_get_link_layer(struct ib_device *device, u32 port)
{
	if (!device || !rdma_is_port_valid(device, port))
		return IB_LINK_LAYER_UNSPECIFIED;
	if (device->ops.get_link_layer)
		return device->ops.get_link_layer(device, port);
	return IB_LINK_LAYER_INFINIBAND;
}
EXPORT_SYMBOL(rdma_port_get_link_layer);

/* --- the cache ([any]) ----------------------------------------------------- */

int rdma_query_gid(struct ib_device *device, u32 port_num, int index, union ib_gid *gid)
{
	static const union ib_gid zero_gid;
	struct ib_port_cache *pc;
	unsigned long flags;
	int ret = -EINVAL;

	if (!device || !gid)
		return -EINVAL;
	pc = ib_port_cache(device, port_num);
	if (!pc)
		return -EINVAL;

	read_lock_irqsave(&pc->lock, flags);
	if (index >= 0 && index < pc->gid_tbl_len && pc->gids) {
		/* an all-zero entry is an empty one */
		ret = memcmp(&pc->gids[index], &zero_gid, sizeof(*gid)) ? 0 : -ENOENT;
		if (!ret)
			*gid = pc->gids[index];
	}
	read_unlock_irqrestore(&pc->lock, flags);
	return ret;
}
EXPORT_SYMBOL(rdma_query_gid);

/* [any] The index of gid (not the zero GID) in the port's cached table. */
static int ib_find_cached_gid_on_port(struct ib_device *device, u32 port,
				      const union ib_gid *gid, u16 *index)
{
	static const union ib_gid zero_gid;
	struct ib_port_cache *pc = ib_port_cache(device, port);
	unsigned long flags;
	int i, ret = -ENOENT;

	if (!pc)
		return -EINVAL;
	if (!memcmp(gid, &zero_gid, sizeof(*gid)))
		return -ENOENT;
	read_lock_irqsave(&pc->lock, flags);
	for (i = 0; pc->gids && i < pc->gid_tbl_len; i++) {
		if (!memcmp(&pc->gids[i], gid, sizeof(*gid))) {
			*index = i;
			ret = 0;
			break;
		}
	}
	read_unlock_irqrestore(&pc->lock, flags);
	return ret;
}

int ib_find_gid(struct ib_device *device, union ib_gid *gid, u32 *port_num, u16 *index)
{
	u32 port;
	u16 i;

	if (!device || !gid || !port_num)
		return -EINVAL;
	rdma_for_each_port(device, port) {
		if (!rdma_protocol_ib(device, port))
			continue;
		/* an empty entry never matches, not even the zero GID */
		if (!ib_find_cached_gid_on_port(device, port, gid, &i)) {
			*port_num = port;
			if (index)
				*index = i;
			return 0;
		}
	}
	return -ENOENT;
}
EXPORT_SYMBOL(ib_find_gid);

int ib_get_cached_pkey(struct ib_device *device, u32 port, int index, u16 *pkey)
{
	struct ib_port_cache *pc;
	unsigned long flags;
	int ret = -EINVAL;

	if (!device || !pkey)
		return -EINVAL;
	pc = ib_port_cache(device, port);
	if (!pc)
		return -EINVAL;

	read_lock_irqsave(&pc->lock, flags);
	if (index >= 0 && index < pc->pkey_tbl_len && pc->pkeys) {
		*pkey = pc->pkeys[index];
		ret = 0;
	}
	read_unlock_irqrestore(&pc->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_get_cached_pkey);

/*
 * P_Keys match on their low 15 bits; a full-membership entry is preferred
 * over a limited one.
 */
int ib_find_cached_pkey(struct ib_device *device, u32 port, u16 pkey, u16 *index)
{
	struct ib_port_cache *pc;
	unsigned long flags;
	int i, partial = -1, ret = -ENOENT;

	if (!device || !index)
		return -EINVAL;
	pc = ib_port_cache(device, port);
	if (!pc)
		return -EINVAL;

	read_lock_irqsave(&pc->lock, flags);
	for (i = 0; pc->pkeys && i < pc->pkey_tbl_len; i++) {
		if ((pc->pkeys[i] & 0x7fff) != (pkey & 0x7fff))
			continue;
		if (pc->pkeys[i] & 0x8000) {
			*index = i;
			ret = 0;
			break;
		}
		if (partial < 0)
			partial = i;
	}
	if (ret && partial >= 0) {
		*index = partial;
		ret = 0;
	}
	read_unlock_irqrestore(&pc->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_find_cached_pkey);

int ib_find_exact_cached_pkey(struct ib_device *device, u32 port_num, u16 pkey,
			      u16 *index)
{
	struct ib_port_cache *pc;
	unsigned long flags;
	int i, ret = -ENOENT;

	if (!device || !index)
		return -EINVAL;
	pc = ib_port_cache(device, port_num);
	if (!pc)
		return -EINVAL;

	read_lock_irqsave(&pc->lock, flags);
	for (i = 0; pc->pkeys && i < pc->pkey_tbl_len; i++) {
		if (pc->pkeys[i] == pkey) {
			*index = i;
			ret = 0;
			break;
		}
	}
	read_unlock_irqrestore(&pc->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_find_exact_cached_pkey);

/* [any] The port's scalar attributes (state, LID, LMC), read together. */
static int ib_cached_port_scalars(struct ib_device *device, u32 port,
				  enum ib_port_state *state, u32 *lid, u8 *lmc)
{
	struct ib_port_cache *pc;
	unsigned long flags;

	pc = device ? ib_port_cache(device, port) : NULL;
	if (!pc)
		return -EINVAL;
	read_lock_irqsave(&pc->lock, flags);
	*state = pc->state;
	*lid = pc->lid;
	*lmc = pc->lmc;
	read_unlock_irqrestore(&pc->lock, flags);
	return 0;
}

int ib_get_cached_lmc(struct ib_device *device, u32 port, u8 *lmc)
{
	enum ib_port_state state;
	u32 lid;

	return lmc ? ib_cached_port_scalars(device, port, &state, &lid, lmc) : -EINVAL;
}
EXPORT_SYMBOL(ib_get_cached_lmc);

int ib_get_cached_port_state(struct ib_device *device, u32 port, enum ib_port_state *state)
{
	u32 lid;
	u8 lmc;

	return state ? ib_cached_port_scalars(device, port, state, &lid, &lmc) : -EINVAL;
}
EXPORT_SYMBOL(ib_get_cached_port_state);

/* The subnet prefix is that of GID 0, in host byte order. */
int ib_get_cached_subnet_prefix(struct ib_device *device, u32 port, u64 *prefix)
{
	struct ib_port_cache *pc;
	unsigned long flags;
	int ret = -EINVAL;

	if (!device || !prefix)
		return -EINVAL;
	pc = ib_port_cache(device, port);
	if (!pc)
		return -EINVAL;
	read_lock_irqsave(&pc->lock, flags);
	if (pc->gids) {
		*prefix = be64_to_cpu(pc->gids[0].global.subnet_prefix);
		ret = 0;
	}
	read_unlock_irqrestore(&pc->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_get_cached_subnet_prefix);

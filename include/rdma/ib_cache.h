/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_core's cache of the ports' GID and P_Key tables, LMC and state, kept
 * current by the port events.  Every call here is [any]: it never sleeps
 * and never asks the device.
 */
#ifndef IBSTACK_RDMA_IB_CACHE_H
#define IBSTACK_RDMA_IB_CACHE_H

#include <ibstack/no_kernel_ib.h>
#include <rdma/ib_verbs.h>

/*
 * The GID at index of the port's table; -EINVAL for an invalid port or an
 * index outside the table, -ENOENT for an empty (zero) entry.
 */
int rdma_query_gid(struct ib_device *device, u32 port_num, int index, union ib_gid *gid);

/* The P_Key at index of the port's table; -EINVAL outside it. */
int ib_get_cached_pkey(struct ib_device *device_handle, u32 port_num, int index, u16 *pkey);

/*
 * The index of pkey in the port's table: an entry with the full-membership
 * bit wins over a limited one with the same low 15 bits; -ENOENT if none.
 */
int ib_find_cached_pkey(struct ib_device *device, u32 port_num, u16 pkey, u16 *index);

/* The index of the entry equal to pkey in all 16 bits; -ENOENT if none. */
int ib_find_exact_cached_pkey(struct ib_device *device, u32 port_num, u16 pkey,
			      u16 *index);

int ib_get_cached_lmc(struct ib_device *device, u32 port_num, u8 *lmc);
int ib_get_cached_port_state(struct ib_device *device, u32 port_num,
			     enum ib_port_state *port_active);

/*
 * [any] GID attributes (struct ib_gid_attr), each returned with a reference
 * that rdma_put_gid_attr() drops (before the device is unregistered):
 * rdma_get_gid_attr() -EINVAL for a bad port or index, -ENODATA for an
 * empty entry; the find calls -ENOENT when no entry matches (ndev NULL:
 * any; an InfiniBand entry has none), by_filter -EINVAL for a bad port,
 * its filter called with the cache's lock held, interrupts off (not
 * exported, as in 6.1: ib_core's own).
 */
bool rdma_is_zero_gid(const union ib_gid *gid);
const struct ib_gid_attr *rdma_get_gid_attr(struct ib_device *device, u32 port_num,
					    int index);
void rdma_put_gid_attr(const struct ib_gid_attr *attr);
void rdma_hold_gid_attr(const struct ib_gid_attr *attr);
const struct ib_gid_attr *rdma_find_gid(struct ib_device *device, const union ib_gid *gid,
					enum ib_gid_type gid_type, struct net_device *ndev);
const struct ib_gid_attr *rdma_find_gid_by_port(struct ib_device *ib_dev,
						const union ib_gid *gid,
						enum ib_gid_type gid_type,
						u32 port, struct net_device *ndev);
const struct ib_gid_attr *
rdma_find_gid_by_filter(struct ib_device *device, const union ib_gid *gid, u32 port,
			bool (*filter)(const union ib_gid *gid, const struct ib_gid_attr *,
				       void *),
			void *context);
/* the entry's netdev under rcu_read_lock(): ERR_PTR(-ENODEV) on InfiniBand */
struct net_device *rdma_read_gid_attr_ndev_rcu(const struct ib_gid_attr *attr);
/* RoCE's VLAN id and source MAC: -ENODEV on InfiniBand */
int rdma_read_gid_l2_fields(const struct ib_gid_attr *attr, u16 *vlan_id, u8 *smac);
/* the driver's context of the entry (NULL: mlx4_ib keeps none for IB) */
void *rdma_read_gid_hw_context(const struct ib_gid_attr *attr);

#endif /* IBSTACK_RDMA_IB_CACHE_H */

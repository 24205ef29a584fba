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

#endif /* IBSTACK_RDMA_IB_CACHE_H */

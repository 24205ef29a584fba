/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * rdma_ucm's user ABI: so far only what ib_cm's kernel API shares with it,
 * the enhanced connection establishment (ECE) words a REQ and a REP carry.
 * Laid out as Linux 6.1's rdma_ucm user ABI header lays them out.
 */
#ifndef IBSTACK_UAPI_RDMA_RDMA_USER_CM_H
#define IBSTACK_UAPI_RDMA_RDMA_USER_CM_H

#ifdef __KERNEL__
#include <ibstack/no_kernel_ib.h>
#endif
#include <linux/types.h>

struct rdma_ucm_ece {
	__u32 vendor_id;
	__u32 attr_mod;
};

#endif

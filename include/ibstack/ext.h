/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ibstack exports beyond Linux 6.1's kernel verbs API, under our own
 * ibstack_ names (docs/kernel-api.md, decision 3), and the one upstream
 * export that upstream keeps out of its public headers.  A ULP written for
 * 6.1 needs none of it; our tests and sysfs code do.
 */
#ifndef IBSTACK_EXT_H
#define IBSTACK_EXT_H

#include <ibstack/no_kernel_ib.h>
#include <rdma/ib_verbs.h>

/*
 * [sleep] A kernel MR over npages pages of (1 << page_shift) bytes each,
 * whose bus addresses are in pages[], mapped at iova for length bytes,
 * with the rights access (the first four IB_ACCESS_* bits).  For tests
 * that need a static MR of more pages than fast registration allows.
 * Release it with ib_dereg_mr().
 */
struct ib_mr *ibstack_reg_kernel_mr(struct ib_pd *pd, const u64 *pages, int npages,
				    int page_shift, u64 iova, u64 length, int access);

/* [any] "DOWN", "ACTIVE", ... as the port's sysfs state file shows it */
const char *ibstack_port_state_str(enum ib_port_state state);

/*
 * [any] The port's subnet prefix (host order) from the cache; -EINVAL for
 * an invalid port.  Upstream exports it from ib_core too, but declares it
 * in its core's private header only.
 */
int ib_get_cached_subnet_prefix(struct ib_device *device, u32 port_num, u64 *sn_pfx);

#endif /* IBSTACK_EXT_H */

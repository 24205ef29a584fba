/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Omni-Path addressing helpers, as far as <rdma/ib_sa.h>'s path record
 * inlines and ULPs use them.  Our stack drives InfiniBand ports only: an
 * OPA GID or an extended (32-bit) LID never comes from our devices, but
 * the helpers answer for any value as on an OPA-capable kernel.
 *
 * An OPA GID carries a 32-bit LID in the low half of its interface id,
 * marked by the special OUI in the top 24 bits.  Every helper is [any].
 */
#ifndef IBSTACK_RDMA_OPA_ADDR_H
#define IBSTACK_RDMA_OPA_ADDR_H

#include <ibstack/no_kernel_ib.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

/* OPA's permissive LID (upstream defines it in rdma/opa_smi.h) */
#ifndef OPA_LID_PERMISSIVE
#define OPA_LID_PERMISSIVE	cpu_to_be32(0xffffffff)
#endif

#define OPA_SPECIAL_OUI		(0x00066AULL)
/* an interface id carrying LID x */
#define OPA_MAKE_ID(x)		(cpu_to_be64(OPA_SPECIAL_OUI << 40 | (x)))
/* x as an IB unicast LID: 0 from the multicast base on */
#define OPA_TO_IB_UCAST_LID(x)	({ u32 __lid = (x);				\
				   __lid >= be16_to_cpu(IB_MULTICAST_LID_BASE) ?	\
				   0 : __lid; })
#define OPA_GID_INDEX		0x1
/*
 * The top bits of a 32-bit OPA LID that mark the multicast range (4) and,
 * after them, the collective range (1).
 */
#define OPA_MCAST_NR		0x4
#define OPA_COLLECTIVE_NR	0x1

/* gid is an OPA GID (the special OUI in its interface id) */
static inline bool ib_is_opa_gid(const union ib_gid *gid)
{
	return (be64_to_cpu(gid->global.interface_id) >> 40) == OPA_SPECIAL_OUI;
}

/* the LID an OPA GID carries: the low 32 bits of its interface id */
static inline u32 opa_get_lid_from_gid(const union ib_gid *gid)
{
	return lower_32_bits(be64_to_cpu(gid->global.interface_id));
}

/* either LID is beyond what a 16-bit IB unicast LID can hold */
static inline bool opa_is_extended_lid(__be32 dlid, __be32 slid)
{
	u32 base = be16_to_cpu(IB_MULTICAST_LID_BASE);

	return be32_to_cpu(dlid) >= base || be32_to_cpu(slid) >= base;
}

/* the first 32-bit LID with its nr_top_bits top bits set */
static inline u32 opa_get_mcast_base(u32 nr_top_bits)
{
	return be32_to_cpu(OPA_LID_PERMISSIVE) << (32 - nr_top_bits);
}

/* attr's DLID is a unicast LID a ULP may send to (not 0, not multicast) */
static inline bool rdma_is_valid_unicast_lid(struct rdma_ah_attr *attr)
{
	u32 dlid = rdma_ah_get_dlid(attr);

	switch (attr->type) {
	case RDMA_AH_ATTR_TYPE_IB:
		return dlid && dlid < be16_to_cpu(IB_MULTICAST_LID_BASE);
	case RDMA_AH_ATTR_TYPE_OPA:
		return dlid && dlid < opa_get_mcast_base(OPA_MCAST_NR);
	default:
		return true;
	}
}

#endif /* IBSTACK_RDMA_OPA_ADDR_H */

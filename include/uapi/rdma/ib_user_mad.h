/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user ABI of ib_umad: /dev/infiniband/umadN (read, write, ioctl) and
 * /dev/infiniband/issmN.  Byte-compatible with upstream's ABI version 5 as
 * libibumad uses it; the layouts are fixed by that ABI, not by us.
 *
 * A read or a write carries one header (struct ib_user_mad_hdr, 64 bytes
 * after IB_USER_MAD_ENABLE_PKEY or a REGISTER_AGENT2, else the 56 bytes of
 * struct ib_user_mad_hdr_old) directly followed by the MAD.
 */
#ifndef IBSTACK_UAPI_RDMA_IB_USER_MAD_H
#define IBSTACK_UAPI_RDMA_IB_USER_MAD_H

#ifdef __KERNEL__
#include <ibstack/no_kernel_ib.h>
#endif
#include <linux/types.h>
#include <linux/ioctl.h>

#define IB_USER_MAD_ABI_VERSION	5

/*
 * The header without the P_Key index (56 bytes): id is the agent id,
 * status 0 or an errno (ETIMEDOUT for a request nobody answered), length
 * (on read) the header plus the MAD; the address fields say where a
 * received MAD came from or where a written one goes.
 */
struct ib_user_mad_hdr_old {
	__u32	id;
	__u32	status;
	__u32	timeout_ms;
	__u32	retries;
	__u32	length;
	__be32	qpn;
	__be32	qkey;
	__be16	lid;
	__u8	sl;
	__u8	path_bits;
	__u8	grh_present;
	__u8	gid_index;
	__u8	hop_limit;
	__u8	traffic_class;
	__u8	gid[16];
	__be32	flow_label;
};

/* The same plus the P_Key index (64 bytes). */
struct ib_user_mad_hdr {
	__u32	id;
	__u32	status;
	__u32	timeout_ms;
	__u32	retries;
	__u32	length;
	__be32	qpn;
	__be32	qkey;
	__be16	lid;
	__u8	sl;
	__u8	path_bits;
	__u8	grh_present;
	__u8	gid_index;
	__u8	hop_limit;
	__u8	traffic_class;
	__u8	gid[16];
	__be32	flow_label;
	__u16	pkey_index;
	__u8	reserved[6];
};

struct ib_user_mad {
	struct ib_user_mad_hdr	hdr;
	__aligned_u64		data[];
};

/*
 * The method mask of REGISTER_AGENT: 128 bits as unsigned longs aligned to
 * 4 bytes (so 4 x 32 bits for 32-bit callers and 2 x 64 bits for 64-bit
 * ones: the same bytes on little-endian machines).
 */
typedef unsigned long __attribute__((aligned(4))) ib_user_mad_packed_ulong;
#define IB_USER_MAD_LONGS_PER_METHOD_MASK (128 / (8 * sizeof(long)))

/*
 * REGISTER_AGENT (28 bytes): id is written back; qpn 0 (QP0, SMI) or 1
 * (QP1, GSI); mgmt_class 0 registers a send-only agent.
 */
struct ib_user_mad_reg_req {
	__u32				id;
	ib_user_mad_packed_ulong	method_mask[IB_USER_MAD_LONGS_PER_METHOD_MASK];
	__u8				qpn;
	__u8				mgmt_class;
	__u8				mgmt_class_version;
	__u8				oui[3];
	__u8				rmpp_version;
};

/* REGISTER_AGENT2 flags: RMPP is done by the user, not the kernel. */
enum {
	IB_USER_MAD_USER_RMPP = (1 << 0),
};

#define IB_USER_MAD_REG_FLAGS_CAP	(IB_USER_MAD_USER_RMPP)

/*
 * REGISTER_AGENT2 (40 bytes): oui in the low 24 bits; flags outside
 * IB_USER_MAD_REG_FLAGS_CAP fail with EINVAL and the supported flags
 * written back to flags.
 */
struct ib_user_mad_reg_req2 {
	__u32		id;
	__u32		qpn;
	__u8		mgmt_class;
	__u8		mgmt_class_version;
	__u16		res;
	__u32		flags;
	__aligned_u64	method_mask[2];
	__u32		oui;
	__u8		rmpp_version;
	__u8		reserved[3];
};

#define IB_USER_MAD_IOCTL_MAGIC		0x1b

#define IB_USER_MAD_REGISTER_AGENT	_IOWR(IB_USER_MAD_IOCTL_MAGIC, 0x01, \
					      struct ib_user_mad_reg_req)
#define IB_USER_MAD_UNREGISTER_AGENT	_IOW(IB_USER_MAD_IOCTL_MAGIC, 0x02, __u32)
#define IB_USER_MAD_ENABLE_PKEY		_IO(IB_USER_MAD_IOCTL_MAGIC, 0x03)
#define IB_USER_MAD_REGISTER_AGENT2	_IOWR(IB_USER_MAD_IOCTL_MAGIC, 0x04, \
					      struct ib_user_mad_reg_req2)

#endif /* IBSTACK_UAPI_RDMA_IB_USER_MAD_H */

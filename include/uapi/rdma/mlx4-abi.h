/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user ABI of mlx4_ib (libmlx4's udata), version 4: what the mlx4
 * provider of libibverbs adds to the core commands of ib_uverbs, and what
 * mlx4_ib answers.  Byte-compatible with upstream's <rdma/mlx4-abi.h>
 * (same structures and member names); the layouts are fixed by that ABI,
 * not by us.  Every member is laid out the same on 32-bit and 64-bit user
 * space: addresses travel as 64-bit integers.
 *
 * The mmap offsets of a context (in pages) are mlx4_ib's, not in here:
 * 0 the context's UAR, 1 its BlueFlame page, 3 the card's clock page.
 */
#ifndef IBSTACK_UAPI_RDMA_MLX4_ABI_H
#define IBSTACK_UAPI_RDMA_MLX4_ABI_H

#ifdef __KERNEL__
#include <ibstack/no_kernel_ib.h>
#endif
#include <linux/types.h>

/* uverbsN/abi_version; 3 is the version without dev_caps and cqe_size */
#define MLX4_IB_UVERBS_NO_DEV_CAPS_ABI_VERSION	3
#define MLX4_IB_UVERBS_ABI_VERSION		4

/* GET_CONTEXT's answer at ABI version 3 */
struct mlx4_ib_alloc_ucontext_resp_v3 {
	__u32	qp_tab_size;
	__u16	bf_reg_size;
	__u16	bf_regs_per_page;
};

/* dev_caps bits of the context's answer */
enum {
	MLX4_USER_DEV_CAP_LARGE_CQE	= 1L << 0,	/* cqe_size says 64 */
};

/*
 * GET_CONTEXT's answer: qp_tab_size is the number of QPNs (a power of
 * two, the provider's QP table is indexed by the QPN's low bits),
 * bf_reg_size 0 when there is no BlueFlame page, cqe_size the bytes of a
 * CQE (32 unless LARGE_CQE).
 */
struct mlx4_ib_alloc_ucontext_resp {
	__u32	dev_caps;
	__u32	qp_tab_size;
	__u16	bf_reg_size;
	__u16	bf_regs_per_page;
	__u32	cqe_size;
};

/* ALLOC_PD: the card's PD number (UD address vectors carry it) */
struct mlx4_ib_alloc_pd_resp {
	__u32	pdn;
	__u32	reserved;
};

/* CREATE_CQ: the CQE ring and the doorbell record (set_ci, arm) */
struct mlx4_ib_create_cq {
	__aligned_u64	buf_addr;
	__aligned_u64	db_addr;
};

/* the card's CQ number, for the arm doorbell */
struct mlx4_ib_create_cq_resp {
	__u32	cqn;
	__u32	reserved;
};

/* RESIZE_CQ: the new ring (the provider moves the CQEs over itself) */
struct mlx4_ib_resize_cq {
	__aligned_u64	buf_addr;
};

/* CREATE_SRQ and CREATE_XSRQ: the WQE ring and the doorbell record */
struct mlx4_ib_create_srq {
	__aligned_u64	buf_addr;
	__aligned_u64	db_addr;
};

/* the card's SRQ number (the remote SRQ of XRC sends) */
struct mlx4_ib_create_srq_resp {
	__u32	srqn;
	__u32	reserved;
};

/* CREATE_QP of an RSS QP (Ethernet only) */
struct mlx4_ib_create_qp_rss {
	__aligned_u64	rx_hash_fields_mask;	/* enum mlx4_ib_rx_hash_fields */
	__u8		rx_hash_function;	/* enum mlx4_ib_rx_hash_function_flags */
	__u8		reserved[7];
	__u8		rx_hash_key[40];
	__u32		comp_mask;
	__u32		reserved1;
};

/*
 * CREATE_QP: the buffer holding both work queues (the one with the larger
 * stride first), the receive queue's doorbell record (0 without a receive
 * queue), the send queue's geometry (2^log_sq_bb_count WQE basic blocks of
 * 2^log_sq_stride bytes), and the bytes of inline receive asked for.
 */
struct mlx4_ib_create_qp {
	__aligned_u64	buf_addr;
	__aligned_u64	db_addr;
	__u8		log_sq_bb_count;
	__u8		log_sq_stride;
	__u8		sq_no_prefetch;
	__u8		reserved;
	__u32		inl_recv_sz;
};

/* CREATE_WQ (Ethernet only) */
struct mlx4_ib_create_wq {
	__aligned_u64	buf_addr;
	__aligned_u64	db_addr;
	__u8		log_range_size;
	__u8		reserved[3];
	__u32		comp_mask;
};

/* MODIFY_WQ (Ethernet only) */
struct mlx4_ib_modify_wq {
	__u32	comp_mask;
	__u32	reserved;
};

/* CREATE_RWQ_IND_TBL's answer (Ethernet only) */
struct mlx4_ib_create_rwq_ind_tbl_resp {
	__u32	response_length;
	__u32	reserved;
};

/* the hash functions of an RSS QP */
enum mlx4_ib_rx_hash_function_flags {
	MLX4_IB_RX_HASH_FUNC_TOEPLITZ	= 1 << 0,
};

/* the packet fields an RSS QP may hash */
enum mlx4_ib_rx_hash_fields {
	MLX4_IB_RX_HASH_SRC_IPV4	= 1 << 0,
	MLX4_IB_RX_HASH_DST_IPV4	= 1 << 1,
	MLX4_IB_RX_HASH_SRC_IPV6	= 1 << 2,
	MLX4_IB_RX_HASH_DST_IPV6	= 1 << 3,
	MLX4_IB_RX_HASH_SRC_PORT_TCP	= 1 << 4,
	MLX4_IB_RX_HASH_DST_PORT_TCP	= 1 << 5,
	MLX4_IB_RX_HASH_SRC_PORT_UDP	= 1 << 6,
	MLX4_IB_RX_HASH_DST_PORT_UDP	= 1 << 7,
	MLX4_IB_RX_HASH_INNER		= 1ULL << 31,
};

struct mlx4_ib_rss_caps {
	__aligned_u64	rx_hash_fields_mask;	/* enum mlx4_ib_rx_hash_fields */
	__u8		rx_hash_function;	/* enum mlx4_ib_rx_hash_function_flags */
	__u8		reserved[7];
};

/* comp_mask bits of the extended QUERY_DEVICE answer */
enum query_device_resp_mask {
	MLX4_IB_QUERY_DEV_RESP_MASK_CORE_CLOCK_OFFSET = 1UL << 0,
};

struct mlx4_ib_tso_caps {
	__u32	max_tso;		/* bytes of payload */
	__u32	supported_qpts;		/* bit n: QP type n of enum ib_qp_type */
};

/*
 * The driver's part of the extended QUERY_DEVICE answer: response_length
 * says how much of it is there; hca_core_clock_offset is the clock's
 * offset in the page mapped at offset 3 (valid with CORE_CLOCK_OFFSET).
 */
struct mlx4_uverbs_ex_query_device_resp {
	__u32			comp_mask;
	__u32			response_length;
	__aligned_u64		hca_core_clock_offset;
	__u32			max_inl_recv_sz;
	__u32			reserved;
	struct mlx4_ib_rss_caps	rss_caps;
	struct mlx4_ib_tso_caps	tso_caps;
};

#endif /* IBSTACK_UAPI_RDMA_MLX4_ABI_H */

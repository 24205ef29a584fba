/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ConnectX-3 data structures that mlx4_ib builds or reads itself: the QP
 * context handed to the QP state commands, send and receive work queue
 * entries, completion queue entries, the UD address vector and the
 * doorbells.  Every multi-byte field is big-endian, as the card sees it.
 */
#ifndef MLX4_IB_HW_H
#define MLX4_IB_HW_H

#include <linux/types.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <ibstack/mlx4.h>

/* ---------------------------------------------------------------------- */
/* QP context (MLX4_QP_CONTEXT_SIZE bytes) */

/* Service types, flags bits 23:16 */
enum {
	MLX4_HW_ST_RC		= 0x0,
	MLX4_HW_ST_UC		= 0x1,
	MLX4_HW_ST_UD		= 0x3,
	MLX4_HW_ST_XRC		= 0x6,
	MLX4_HW_ST_MLX		= 0x7,	/* QP0/QP1: the driver builds the headers */
};

/* Path migration state, flags bits 12:11 */
enum {
	MLX4_HW_PM_ARMED	= 0x0,
	MLX4_HW_PM_REARM	= 0x1,
	MLX4_HW_PM_MIGRATED	= 0x3,
};

/* Optional-parameter mask of the transition commands */
enum {
	MLX4_OPTPAR_ALT_ADDR_PATH	= BIT(0),
	MLX4_OPTPAR_RRE			= BIT(1),
	MLX4_OPTPAR_RAE			= BIT(2),
	MLX4_OPTPAR_RWE			= BIT(3),
	MLX4_OPTPAR_PKEY_INDEX		= BIT(4),
	MLX4_OPTPAR_Q_KEY		= BIT(5),
	MLX4_OPTPAR_RNR_TIMEOUT		= BIT(6),
	MLX4_OPTPAR_PRIMARY_ADDR_PATH	= BIT(7),
	MLX4_OPTPAR_SRA_MAX		= BIT(8),
	MLX4_OPTPAR_RRA_MAX		= BIT(9),
	MLX4_OPTPAR_PM_STATE		= BIT(10),
	MLX4_OPTPAR_RETRY_COUNT		= BIT(12),
	MLX4_OPTPAR_RNR_RETRY		= BIT(13),
	MLX4_OPTPAR_ACK_TIMEOUT		= BIT(14),
	MLX4_OPTPAR_SCHED_QUEUE		= BIT(16),
};

/* params1 / params2 bits */
enum {
	MLX4_HW_PARAMS2_RRE	= BIT(15),
	MLX4_HW_PARAMS2_RWE	= BIT(14),
	MLX4_HW_PARAMS2_RAE	= BIT(13),
	MLX4_HW_PARAMS2_RIC	= BIT(4),	/* receives come from an SRQ */
	MLX4_HW_ACK_REQ_FREQ	= 8,		/* params1 bits 31:28 */
};

/* sched_queue: bit 6 = port - 1; for IB the SL is in bits 5:2 */
#define MLX4_HW_SCHED_QUEUE_BASE	0x83
#define MLX4_HW_SCHED_QUEUE_QP0		0x3f

/* The address path (primary and alternate), 44 bytes. */
struct mlx4_hw_path {
	u8	fl;
	u8	control;
	u8	disable_pkey_check;
	u8	pkey_index;
	u8	counter_index;
	u8	grh_mylmc;		/* bit 7: GRH; 6:0 source path bits */
	__be16	rlid;
	u8	ackto;			/* bits 7:3: local ACK timeout */
	u8	mgid_index;		/* SGID index */
	u8	static_rate;
	u8	hop_limit;
	__be32	tclass_flowlabel;	/* 27:20 traffic class, 19:0 flow label */
	u8	rgid[16];
	u8	sched_queue;
	u8	vlan_index;
	u8	feup;
	u8	fvl_rx;
	u8	reserved[2];
	u8	dmac[6];
};

/* sq_size_stride bit 7: the card must not prefetch send WQEs */
#define MLX4_HW_SQ_NO_PREFETCH		0x80

struct mlx4_hw_qp_context {
	__be32	flags;			/* 31:28 state, 23:16 ST, 12:11 PM state */
	__be32	pd;
	u8	mtu_msgmax;		/* 7:5 path MTU, 4:0 log max message */
	u8	rq_size_stride;		/* 6:3 log #WQEs, 2:0 log stride - 4 */
	u8	sq_size_stride;	/* and bit 7: MLX4_HW_SQ_NO_PREFETCH */
	u8	rlkey_roce_mode;
	__be32	usr_page;		/* UAR index */
	__be32	local_qpn;
	__be32	remote_qpn;
	struct mlx4_hw_path pri_path;	/* 0x18 */
	struct mlx4_hw_path alt_path;	/* 0x44 */
	__be32	params1;		/* 0x70 */
	u32	reserved1;
	__be32	next_send_psn;		/* 0x78 */
	__be32	cqn_send;		/* 0x7c */
	__be16	roce_entropy;
	__be16	reserved2[3];
	__be32	last_acked_psn;		/* 0x88 */
	__be32	ssn;
	__be32	params2;		/* 0x90 */
	__be32	rnr_nextrecvpsn;	/* 28:24 min RNR timer, 23:0 receive PSN */
	__be32	xrcd;
	__be32	cqn_recv;		/* 0x9c */
	__be64	db_rec_addr;		/* 0xa0 */
	__be32	qkey;			/* 0xa8 */
	__be32	srqn;			/* 0xac: bit 24 SRQ enable, 23:0 SRQN */
	__be32	msn;
	__be16	rq_wqe_counter;
	__be16	sq_wqe_counter;
	u32	reserved3;
	__be16	rate_limit_params;
	u8	reserved4;
	u8	qos_vport;
	__be32	param3;			/* 0xc0 */
	__be32	nummmcpeers_basemkey;
	u8	log_page_size;		/* 0xc8: page = 4 KiB << n */
	u8	reserved5[2];
	u8	mtt_base_addr_h;
	__be32	mtt_base_addr_l;
	u32	reserved6[10];
};

static inline void mlx4_hw_qpc_layout_checks(void)
{
	BUILD_BUG_ON(sizeof(struct mlx4_hw_path) != 44);
	BUILD_BUG_ON(sizeof(struct mlx4_hw_qp_context) != MLX4_QP_CONTEXT_SIZE);
	BUILD_BUG_ON(offsetof(struct mlx4_hw_qp_context, pri_path) != 0x18);
	BUILD_BUG_ON(offsetof(struct mlx4_hw_qp_context, alt_path) != 0x44);
	BUILD_BUG_ON(offsetof(struct mlx4_hw_qp_context, params1) != 0x70);
	BUILD_BUG_ON(offsetof(struct mlx4_hw_qp_context, cqn_send) != 0x7c);
	BUILD_BUG_ON(offsetof(struct mlx4_hw_qp_context, params2) != 0x90);
	BUILD_BUG_ON(offsetof(struct mlx4_hw_qp_context, db_rec_addr) != 0xa0);
	BUILD_BUG_ON(offsetof(struct mlx4_hw_qp_context, srqn) != 0xac);
	BUILD_BUG_ON(offsetof(struct mlx4_hw_qp_context, param3) != 0xc0);
	BUILD_BUG_ON(offsetof(struct mlx4_hw_qp_context, log_page_size) != 0xc8);
	BUILD_BUG_ON(offsetof(struct mlx4_hw_qp_context, mtt_base_addr_l) != 0xcc);
}

/* ---------------------------------------------------------------------- */
/* Send work queue entries */

#define MLX4_HW_WQE_OWNER	BIT(31)		/* in owner_opcode */
#define MLX4_HW_WQE_BLH		BIT(6)		/* in owner_opcode: LSO header > 64 bytes */
#define MLX4_HW_WQE_STAMP	0xffffffff	/* a 64-byte line not to execute */
#define MLX4_HW_INLINE_ALIGN	64		/* an inline segment never crosses this */
#define MLX4_HW_INLINE_FLAG	BIT(31)		/* in an inline segment's byte count */
#define MLX4_HW_INVALID_LKEY	0x100		/* ends a receive scatter list */
#define MLX4_HW_WQE_MAX_SIZE	(63 * 16)	/* the 6-bit size field */

enum {
	MLX4_HW_OPCODE_NOP		= 0x00,
	MLX4_HW_OPCODE_SEND_INVAL	= 0x01,	/* the R_Key in the control's imm */
	MLX4_HW_OPCODE_RDMA_WRITE	= 0x08,
	MLX4_HW_OPCODE_RDMA_WRITE_IMM	= 0x09,
	MLX4_HW_OPCODE_SEND		= 0x0a,
	MLX4_HW_OPCODE_SEND_IMM		= 0x0b,
	MLX4_HW_OPCODE_RDMA_READ	= 0x10,
	MLX4_HW_OPCODE_ATOMIC_CS	= 0x11,
	MLX4_HW_OPCODE_ATOMIC_FA	= 0x12,
	MLX4_HW_OPCODE_BIND_MW		= 0x18,
	MLX4_HW_OPCODE_LSO		= 0x0e,	/* UD: the LSO segment after the datagram's */
	MLX4_HW_OPCODE_FMR		= 0x19,	/* fast registration */
	MLX4_HW_OPCODE_LOCAL_INVAL	= 0x1b,
};

/* srcrb_flags of the control segment */
enum {
	MLX4_HW_CTRL_CQ_UPDATE		= 3 << 2,
	MLX4_HW_CTRL_SOLICITED		= BIT(1),
	MLX4_HW_CTRL_STRONG_ORDER	= BIT(7),	/* after every earlier WQE */
	MLX4_HW_CTRL_IP_CSUM		= BIT(4),	/* the card computes the IPv4 header's */
	MLX4_HW_CTRL_TCP_UDP_CSUM	= BIT(5),	/* ... and the TCP or UDP checksum */
	MLX4_HW_CTRL_FENCE		= BIT(6),	/* in fence_size */
	MLX4_HW_CTRL_SIZE_MASK		= 0x3f,		/* in fence_size: 16-byte units */
};

/* The control segment that starts every send WQE (16 bytes). */
struct mlx4_hw_ctrl_seg {
	__be32	owner_opcode;		/* 31 owner, 4:0 opcode */
	u8	reserved[3];
	u8	fence_size;		/* 6 fence, 5:0 size in 16-byte units */
	__be32	srcrb_flags;
	__be32	imm;
};

/* flags of the MLX segment (QP0/QP1) */
enum {
	MLX4_HW_MLX_VL15	= BIT(17),
	MLX4_HW_MLX_SLR		= BIT(16),	/* use the SLID of the header as is */
};

/* The MLX segment, in place of the control segment on QP0/QP1 (16 bytes). */
struct mlx4_hw_mlx_seg {
	u8	owner;			/* bit 7 */
	u8	reserved1[2];
	u8	opcode;
	__be16	sched_prio;
	u8	reserved2;
	u8	size;			/* 5:0 in 16-byte units */
	__be32	flags;			/* VL15, SLR, 15:12 rate, 11:8 SL, 3:2 CQ update */
	__be16	rlid;
	u16	reserved3;
};

/* The UD address vector (32 bytes), also what an AH holds. */
struct mlx4_hw_av {
	__be32	port_pd;		/* 25:24 port, 23:0 PD */
	u8	reserved1;
	u8	g_slid;			/* 7 GRH, 6:0 source path bits */
	__be16	dlid;
	u8	reserved2;
	u8	gid_index;
	u8	stat_rate;
	u8	hop_limit;
	__be32	sl_tclass_flowlabel;	/* 31:28 SL, 27:20 tclass, 19:0 flow */
	u8	dgid[16];
};

/* The datagram segment of a UD WQE (48 bytes). */
struct mlx4_hw_datagram_seg {
	struct mlx4_hw_av av;
	__be32	dqpn;
	__be32	qkey;			/* bit 31 set: use the QP's Q_Key */
	__be16	vlan;
	u8	mac[6];
};

struct mlx4_hw_raddr_seg {
	__be64	raddr;
	__be32	rkey;
	u32	reserved;
};

struct mlx4_hw_atomic_seg {
	__be64	swap_add;
	__be64	compare;
};

/* Rights of a fast registration (flags of the FMR segment) */
enum {
	MLX4_HW_FMR_LOCAL_READ		= BIT(27),
	MLX4_HW_FMR_LOCAL_WRITE		= BIT(28),
	MLX4_HW_FMR_REMOTE_READ		= BIT(29),
	MLX4_HW_FMR_REMOTE_WRITE	= BIT(30),
	MLX4_HW_FMR_ATOMIC		= BIT(31),
};

/* The fast-registration segment (48 bytes): the MR's new key and range. */
struct mlx4_hw_fmr_seg {
	__be32	flags;			/* MLX4_HW_FMR_* */
	__be32	mem_key;
	__be64	buf_list;		/* bus address of the page list */
	__be64	start_addr;		/* iova */
	__be64	reg_len;
	__be32	offset;
	__be32	page_size;		/* log2 of the page size */
	u32	reserved[2];
};

/* The bind segment's rights (flags1, the FMR segment's bits) and kind (flags2) */
enum {
	MLX4_HW_BIND_REMOTE_READ	= BIT(29),
	MLX4_HW_BIND_REMOTE_WRITE	= BIT(30),
	MLX4_HW_BIND_ATOMIC		= BIT(31),
	MLX4_HW_BIND_ZERO_BASED		= BIT(30),	/* flags2 */
	MLX4_HW_BIND_TYPE_2		= BIT(31),	/* flags2 */
};

/* The bind segment (32 bytes): the window's new key, the MR and the range. */
struct mlx4_hw_bind_seg {
	__be32	flags1;
	__be32	flags2;
	__be32	new_rkey;
	__be32	lkey;			/* of the MR bound to */
	__be64	addr;
	__be64	length;
};

/* The local-invalidate segment (32 bytes). */
struct mlx4_hw_local_inval_seg {
	u32	reserved1[2];
	__be32	mem_key;
	u32	reserved2[5];
};

struct mlx4_hw_data_seg {
	__be32	byte_count;
	__be32	lkey;
	__be64	addr;
};

struct mlx4_hw_inline_seg {
	__be32	byte_count;		/* MLX4_HW_INLINE_FLAG | length */
};

/* The first segment of an SRQ WQE (16 bytes): the free-list link. */
struct mlx4_hw_srq_next_seg {
	u16	reserved1;
	__be16	next_wqe_index;
	u32	reserved2[3];
};

/* ---------------------------------------------------------------------- */
/* Completion queue entries (32 bytes) */

#define MLX4_HW_CQE_SIZE		32
#define MLX4_HW_CQE_OWNER		0x80
#define MLX4_HW_CQE_IS_SEND		0x40
#define MLX4_HW_CQE_OPCODE_MASK		0x1f
#define MLX4_HW_CQE_OPCODE_ERROR	0x1e
#define MLX4_HW_CQE_OPCODE_RESIZE	0x16
#define MLX4_HW_CQE_QPN_MASK		0xffffff
#define MLX4_HW_CQE_GRH			BIT(31)	/* in g_mlpath_rqpn */
/* a UD receive's checksum state: status bits, and L4_CSUM in badfcs_enc */
#define MLX4_HW_CQE_STATUS_TCP		BIT(10)
#define MLX4_HW_CQE_STATUS_UDP		BIT(11)
#define MLX4_HW_CQE_STATUS_IPOK		BIT(12)
#define MLX4_HW_CQE_L4_CSUM		BIT(2)

/* receive opcodes */
enum {
	MLX4_HW_RECV_RDMA_WRITE_IMM	= 0x00,
	MLX4_HW_RECV_SEND		= 0x01,
	MLX4_HW_RECV_SEND_IMM		= 0x02,
	MLX4_HW_RECV_SEND_INV		= 0x03,
};

/* error CQE syndromes */
enum {
	MLX4_HW_SYND_LOCAL_LENGTH	= 0x01,
	MLX4_HW_SYND_LOCAL_QP_OP	= 0x02,
	MLX4_HW_SYND_LOCAL_PROT		= 0x04,
	MLX4_HW_SYND_WR_FLUSH		= 0x05,
	MLX4_HW_SYND_MW_BIND		= 0x06,
	MLX4_HW_SYND_BAD_RESP		= 0x10,
	MLX4_HW_SYND_LOCAL_ACCESS	= 0x11,
	MLX4_HW_SYND_REMOTE_INVAL_REQ	= 0x12,
	MLX4_HW_SYND_REMOTE_ACCESS	= 0x13,
	MLX4_HW_SYND_REMOTE_OP		= 0x14,
	MLX4_HW_SYND_RETRY_EXC		= 0x15,
	MLX4_HW_SYND_RNR_RETRY_EXC	= 0x16,
	MLX4_HW_SYND_REMOTE_ABORTED	= 0x22,
};

struct mlx4_hw_cqe {
	__be32	my_qpn;			/* 23:0 */
	__be32	immed_rss_invalid;	/* immediate data; UD: 6:0 P_Key index */
	__be32	g_mlpath_rqpn;		/* 31 GRH, 30:24 DLID path bits, 23:0 remote QPN */
	__be16	sl_vid;			/* 15:12 SL */
	__be16	rlid;
	__be16	status;
	u8	ipv6_ext_mask;
	u8	badfcs_enc;
	__be32	byte_cnt;
	__be16	wqe_index;
	__be16	checksum;
	u8	reserved[3];
	u8	owner_sr_opcode;	/* 7 owner, 6 is_send, 4:0 opcode */
};

struct mlx4_hw_err_cqe {
	__be32	my_qpn;
	u32	reserved1[5];
	__be16	wqe_index;
	u8	vendor_err_syndrome;
	u8	syndrome;
	u8	reserved2[3];
	u8	owner_sr_opcode;
};

/* ---------------------------------------------------------------------- */
/* Doorbells */

/* CQ arm doorbell (UAR + MLX4_CQ_DOORBELL) and the record's second dword */
enum {
	MLX4_HW_CQ_DB_REQ_NOT_SOL	= 1 << 24,
	MLX4_HW_CQ_DB_REQ_NOT		= 2 << 24,
};

#define MLX4_HW_CQ_SN_SHIFT	28
#define MLX4_HW_CQ_CI_MASK	0xffffff

/* CQ doorbell record: dword 0 consumer index, dword 1 last arm command */
enum {
	MLX4_HW_CQ_SET_CI_DB	= 0,
	MLX4_HW_CQ_ARM_DB	= 1,
};

static inline void mlx4_hw_wqe_layout_checks(void)
{
	BUILD_BUG_ON(sizeof(struct mlx4_hw_ctrl_seg) != 16);
	BUILD_BUG_ON(sizeof(struct mlx4_hw_mlx_seg) != 16);
	BUILD_BUG_ON(sizeof(struct mlx4_hw_av) != 32);
	BUILD_BUG_ON(sizeof(struct mlx4_hw_datagram_seg) != 48);
	BUILD_BUG_ON(sizeof(struct mlx4_hw_raddr_seg) != 16);
	BUILD_BUG_ON(sizeof(struct mlx4_hw_atomic_seg) != 16);
	BUILD_BUG_ON(sizeof(struct mlx4_hw_data_seg) != 16);
	BUILD_BUG_ON(sizeof(struct mlx4_hw_fmr_seg) != 48);
	BUILD_BUG_ON(sizeof(struct mlx4_hw_local_inval_seg) != 32);
	BUILD_BUG_ON(sizeof(struct mlx4_hw_bind_seg) != 32);
	BUILD_BUG_ON(offsetof(struct mlx4_hw_local_inval_seg, mem_key) != 8);
	BUILD_BUG_ON(sizeof(struct mlx4_hw_srq_next_seg) != 16);
	BUILD_BUG_ON(sizeof(struct mlx4_hw_cqe) != MLX4_HW_CQE_SIZE);
	BUILD_BUG_ON(sizeof(struct mlx4_hw_err_cqe) != MLX4_HW_CQE_SIZE);
}

#endif /* MLX4_IB_HW_H */

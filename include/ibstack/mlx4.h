/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface between mlx4_core (the PCI driver of a ConnectX-3: firmware
 * commands, ICM, EQs, UARs and the resource tables) and its protocol driver
 * mlx4_ib.  mlx4_core knows no verbs: it allocates numbers and contexts and
 * carries commands; mlx4_ib fills QP contexts, WQEs and reads CQEs itself.
 *
 * Contexts: [sleep] process context, may sleep; [any] never sleeps.
 * Unless marked otherwise a function is [sleep].
 */
#ifndef IBSTACK_MLX4_H
#define IBSTACK_MLX4_H

#include <ibstack/no_kernel_ib.h>
#include <linux/types.h>
#include <linux/pci.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/completion.h>
#include <linux/spinlock.h>

#define MLX4_MAX_PORTS		2
#define MLX4_BOARD_ID_LEN	64
#define MLX4_QP_CONTEXT_SIZE	248	/* bytes of a QP context in a mailbox */

/* ---------------------------------------------------------------------- */
/* Capabilities, filled by mlx4_core from QUERY_FW, QUERY_DEV_CAP,
 * QUERY_PORT and QUERY_ADAPTER before any interface is added.
 */
struct mlx4_caps {
	u64	fw_ver;			/* major << 32 | minor << 16 | subminor */
	int	num_ports;
	int	vl_cap[MLX4_MAX_PORTS + 1];
	int	ib_mtu_cap[MLX4_MAX_PORTS + 1];	/* IB MTU enum */
	int	port_width_cap[MLX4_MAX_PORTS + 1];
	int	gid_table_len[MLX4_MAX_PORTS + 1];
	int	pkey_table_len[MLX4_MAX_PORTS + 1];
	u64	def_port_guid[MLX4_MAX_PORTS + 1];	/* from QUERY_PORT, may be 0 */
	int	local_ca_ack_delay;
	int	num_uars;
	int	uar_page_size;
	int	bf_reg_size;		/* BlueFlame register bytes; 0: no BlueFlame */
	int	bf_regs_per_page;
	int	max_sq_sg;
	int	max_rq_sg;
	int	num_qps;
	int	max_wqes;
	int	max_sq_desc_sz;
	int	max_rq_desc_sz;
	int	max_qp_init_rdma;
	int	max_qp_dest_rdma;
	int	sqp_start;		/* QP0 port 1; then QP0 port 2, QP1 port 1, QP1 port 2 */
	int	reserved_qps;		/* QPNs below this are not for mlx4_qp_reserve_range() */
	int	num_srqs;
	int	max_srq_wqes;
	int	max_srq_sge;
	int	reserved_srqs;
	/* XRC domains (0 without MLX4_DEV_CAP_FLAG_XRC); a plain SRQ's is reserved_xrcds */
	int	reserved_xrcds;
	int	max_xrcds;
	int	num_cqs;
	int	max_cqes;
	int	reserved_cqs;
	int	num_eqs;
	int	num_comp_vectors;	/* completion EQs mlx4_cq_alloc() accepts */
	int	num_mpts;
	int	reserved_mrws;
	int	num_mtts;
	int	num_pds;
	int	reserved_pds;
	int	num_mgms;
	int	num_amgms;
	int	num_qp_per_mgm;
	u32	reserved_lkey;		/* 0 when the card has none */
	u64	max_mr_size;		/* bytes */
	u32	page_size_cap;		/* supported page sizes, as a mask of sizes */
	u64	flags;			/* MLX4_DEV_CAP_FLAG_* */
	u32	bmme_flags;
	int	stat_rate_support;
	u8	port_ib_mtu[MLX4_MAX_PORTS + 1];
	u32	vendor_id;
	u32	device_id;
	u32	hw_rev;			/* PCI revision */
	u32	max_msg_sz;		/* bytes, from the log in QUERY_DEV_CAP */
	u32	max_gso_sz;		/* bytes of an LSO message; 0: no LSO */
	u32	hca_core_clock;		/* MHz, from QUERY_HCA; 0: not reported */
};

/* QUERY_DEV_CAP flags that mlx4_ib looks at */
#define MLX4_DEV_CAP_FLAG_RC		BIT_ULL(0)
#define MLX4_DEV_CAP_FLAG_UC		BIT_ULL(1)
#define MLX4_DEV_CAP_FLAG_UD		BIT_ULL(2)
#define MLX4_DEV_CAP_FLAG_XRC		BIT_ULL(3)
#define MLX4_DEV_CAP_FLAG_SRQ		BIT_ULL(6)
#define MLX4_DEV_CAP_FLAG_IPOIB_CSUM	BIT_ULL(7)
#define MLX4_DEV_CAP_FLAG_BAD_PKEY_CNTR	BIT_ULL(8)
#define MLX4_DEV_CAP_FLAG_BAD_QKEY_CNTR	BIT_ULL(9)
#define MLX4_DEV_CAP_FLAG_DPDP		BIT_ULL(12)
#define MLX4_DEV_CAP_FLAG_BLH		BIT_ULL(15)
#define MLX4_DEV_CAP_FLAG_MEM_WINDOW	BIT_ULL(16)
#define MLX4_DEV_CAP_FLAG_APM		BIT_ULL(17)
#define MLX4_DEV_CAP_FLAG_ATOMIC	BIT_ULL(18)
#define MLX4_DEV_CAP_FLAG_RAW_MCAST	BIT_ULL(19)
#define MLX4_DEV_CAP_FLAG_UD_AV_PORT	BIT_ULL(20)
#define MLX4_DEV_CAP_FLAG_UD_MCAST	BIT_ULL(21)

/*
 * QUERY_DEV_CAP BMME flags: type 2 windows (TYPE_2_WIN; of kind 2B rather
 * than 2A with WIN_TYPE_2B), local and remote invalidation, fast
 * registration
 */
#define MLX4_BMME_FLAG_WIN_TYPE_2B	BIT(1)
#define MLX4_BMME_FLAG_LOCAL_INV	BIT(6)
#define MLX4_BMME_FLAG_REMOTE_INV	BIT(7)
#define MLX4_BMME_FLAG_TYPE_2_WIN	BIT(9)
#define MLX4_BMME_FLAG_FAST_REG_WR	BIT(11)

/*
 * A ConnectX-3 as mlx4_core presents it.  Read-only for mlx4_ib, except
 * through the functions below.
 */
struct mlx4_dev {
	struct pci_dev		*pdev;
	struct mlx4_caps	caps;
	char			board_id[MLX4_BOARD_ID_LEN];
	void			*priv;		/* mlx4_core's own state */
};

/* ---------------------------------------------------------------------- */
/* Protocol interfaces (mlx4_ib registers one) */

enum mlx4_dev_event {
	MLX4_DEV_EVENT_CATASTROPHIC_ERROR,	/* param unused */
	MLX4_DEV_EVENT_PORT_UP,			/* param: port */
	MLX4_DEV_EVENT_PORT_DOWN,		/* param: port */
	MLX4_DEV_EVENT_PORT_MGMT_CHANGE,	/* param: port */
};

struct mlx4_interface {
	/*
	 * [sleep] The device is up: return the interface's context or NULL
	 * to decline.  Called at probe, at registration for existing devices,
	 * and again after a catastrophic-error reset.
	 */
	void	*(*add)(struct mlx4_dev *dev);
	/*
	 * [sleep] Release everything taken from dev.  After a catastrophic
	 * error the firmware no longer answers: commands issued from here fail
	 * fast with -EIO, and the interface must still free its memory.
	 */
	void	(*remove)(struct mlx4_dev *dev, void *context);
	/*
	 * [any] Port and device events, possibly from hard-IRQ context.
	 * CATASTROPHIC_ERROR comes once the card is reset (it no longer
	 * touches host memory) and before remove().  Events that came while
	 * add() ran are given right after it returned (the last of each
	 * port, then CATASTROPHIC_ERROR), so none is lost in between.
	 */
	void	(*event)(struct mlx4_dev *dev, void *context,
			 enum mlx4_dev_event event, unsigned long param);
	struct list_head list;		/* mlx4_core's */
};

int mlx4_register_interface(struct mlx4_interface *intf);
void mlx4_unregister_interface(struct mlx4_interface *intf);

/*
 * [any] true once a catastrophic error was detected and the card reset
 * (quiet), until the recovery has loaded it again
 */
bool mlx4_is_internal_error(struct mlx4_dev *dev);

/* ---------------------------------------------------------------------- */
/* Firmware commands */

/* Opcodes mlx4_ib issues itself */
enum {
	MLX4_CMD_SET_PORT	= 0x0c,
	MLX4_CMD_MAD_IFC	= 0x24,
	MLX4_CMD_QUERY_QP	= 0x22,
	MLX4_CMD_DIAG_RPRT	= 0x30,
	MLX4_CMD_INIT_PORT	= 0x09,	/* in_mod port: PHY on (mlx4_ib) */
	MLX4_CMD_CLOSE_PORT	= 0x0a,	/* in_mod port: PHY off (mlx4_ib) */
	MLX4_CMD_SET_NODE	= 0x5a,	/* in_mod 1: 64-byte node description */
};

/* Command timeouts, in milliseconds */
#define MLX4_CMD_TIME_A		60000
#define MLX4_CMD_TIME_B		60000
#define MLX4_CMD_TIME_C		60000

struct mlx4_cmd_mailbox {
	void		*buf;		/* 4096 bytes, zeroed by the caller if needed */
	dma_addr_t	dma;
};

struct mlx4_cmd_mailbox *mlx4_alloc_cmd_mailbox(struct mlx4_dev *dev);
void mlx4_free_cmd_mailbox(struct mlx4_dev *dev, struct mlx4_cmd_mailbox *mailbox);

/*
 * [sleep] Run one firmware command.  Returns 0, -errno translated from the
 * firmware status (logged, rate-limited), -ETIMEDOUT, or -EIO after a
 * catastrophic error.  Commands are serialised by mlx4_core.
 */
int mlx4_cmd_box(struct mlx4_dev *dev, u64 in_param, u64 out_param, u32 in_modifier,
		 u8 op_modifier, u16 op, unsigned long timeout_ms);
int mlx4_cmd(struct mlx4_dev *dev, u64 in_param, u32 in_modifier, u8 op_modifier,
	     u16 op, unsigned long timeout_ms);
int mlx4_cmd_imm(struct mlx4_dev *dev, u64 in_param, u64 *out_param, u32 in_modifier,
		 u8 op_modifier, u16 op, unsigned long timeout_ms);

/* ---------------------------------------------------------------------- */
/* UARs and doorbells */

#define MLX4_SEND_DOORBELL	0x14	/* offset in a UAR page: QPN << 8 */
#define MLX4_CQ_DOORBELL	0x20	/* offset in a UAR page: two dwords */

struct mlx4_uar {
	unsigned long	pfn;		/* for mapping to user space */
	int		index;
	void __iomem	*map;		/* kernel mapping: set for the kernel UAR only */
};

int mlx4_uar_alloc(struct mlx4_dev *dev, struct mlx4_uar *uar);
void mlx4_uar_free(struct mlx4_dev *dev, struct mlx4_uar *uar);
/* The UAR mapped for kernel consumers, shared by all of them; [any] */
struct mlx4_uar *mlx4_kernel_uar(struct mlx4_dev *dev);
/*
 * [any] Write a two-dword doorbell (CQ arm) atomically with respect to the
 * other users of the same UAR page.
 */
void mlx4_write64(const __be32 val[2], void __iomem *dest, struct mlx4_dev *dev);

/* Doorbell records: DMA-coherent dwords the card reads */
struct mlx4_db {
	__be32		*db;
	dma_addr_t	dma;
	void		*page;		/* mlx4_core's */
	int		index;
	int		order;
};

/* order 0: one dword; order 1: two consecutive dwords (CQ: set_ci, arm) */
int mlx4_db_alloc(struct mlx4_dev *dev, struct mlx4_db *db, int order);
void mlx4_db_free(struct mlx4_dev *dev, struct mlx4_db *db);

/* ---------------------------------------------------------------------- */
/* Buffers and memory translation */

struct mlx4_buf_list {
	void		*buf;
	dma_addr_t	map;
};

/*
 * A queue buffer: one coherent chunk when size <= max_direct (or when it
 * can be had), else a list of PAGE_SIZE chunks.  Zeroed.
 */
struct mlx4_buf {
	struct mlx4_buf_list	direct;
	struct mlx4_buf_list	*page_list;
	int			nbufs;
	int			npages;		/* in (1 << page_shift) units */
	int			page_shift;
};

int mlx4_buf_alloc(struct mlx4_dev *dev, int size, int max_direct, struct mlx4_buf *buf);
void mlx4_buf_free(struct mlx4_dev *dev, int size, struct mlx4_buf *buf);

/* [any] */
static inline void *mlx4_buf_offset(struct mlx4_buf *buf, int offset)
{
	if (!buf->page_list)
		return buf->direct.buf + offset;
	return buf->page_list[offset >> PAGE_SHIFT].buf + (offset & (PAGE_SIZE - 1));
}

/* A range of MTT entries (translation entries in ICM). */
struct mlx4_mtt {
	u32	offset;		/* first entry; ~0 when npages == 0 */
	int	order;		/* log2 of entries reserved; -1 when none */
	int	page_shift;
};

int mlx4_mtt_init(struct mlx4_dev *dev, int npages, int page_shift, struct mlx4_mtt *mtt);
void mlx4_mtt_cleanup(struct mlx4_dev *dev, struct mlx4_mtt *mtt);
/* [any] the bus address of the first entry, for contexts */
u64 mlx4_mtt_addr(struct mlx4_dev *dev, struct mlx4_mtt *mtt);
int mlx4_write_mtt(struct mlx4_dev *dev, struct mlx4_mtt *mtt, int start_index,
		   int npages, const u64 *page_list);
int mlx4_buf_write_mtt(struct mlx4_dev *dev, struct mlx4_mtt *mtt, struct mlx4_buf *buf);

/* ---------------------------------------------------------------------- */
/* Protection domains and memory regions */

int mlx4_pd_alloc(struct mlx4_dev *dev, u32 *pdn);
void mlx4_pd_free(struct mlx4_dev *dev, u32 pdn);
/* [any] XRC domain numbers: software only, no firmware command */
int mlx4_xrcd_alloc(struct mlx4_dev *dev, u32 *xrcdn);
void mlx4_xrcd_free(struct mlx4_dev *dev, u32 xrcdn);

/* MPT access bits */
enum {
	MLX4_PERM_LOCAL_READ	= BIT(10),
	MLX4_PERM_LOCAL_WRITE	= BIT(11),
	MLX4_PERM_REMOTE_READ	= BIT(12),
	MLX4_PERM_REMOTE_WRITE	= BIT(13),
	MLX4_PERM_ATOMIC	= BIT(14),
	MLX4_PERM_BIND_MW	= BIT(15),	/* windows may be bound to it */
};

/* Fast registration: pages per MR; entries of its page list are bus addresses | 1 */
#define MLX4_MAX_FAST_REG_PAGES	511
#define MLX4_MTT_FLAG_PRESENT	1ULL

struct mlx4_mr {
	struct mlx4_mtt	mtt;
	u64		iova;
	u64		size;		/* ~0ULL with npages 0: all of memory */
	u32		key;		/* lkey == rkey */
	u32		pd;
	u32		access;		/* MLX4_PERM_* */
	bool		enabled;
};

/*
 * npages == 0: a physical (DMA) MR covering everything from iova 0.
 * page_shift == 0 with npages > 0: a fast-registration MR (iova, size and
 * access 0): an MTT range of npages entries that the card fills from the
 * page list of a FAST_REG work request; mlx4_mr_enable() gives it to the
 * card in the free state (no access until registered).
 */
int mlx4_mr_alloc(struct mlx4_dev *dev, u32 pd, u64 iova, u64 size, u32 access,
		  int npages, int page_shift, struct mlx4_mr *mr);
/* writes the MPT (SW2HW_MPT): the key works from here on */
int mlx4_mr_enable(struct mlx4_dev *dev, struct mlx4_mr *mr);
/*
 * HW2SW_MPT: the card gives the entry back and the key stops working; the
 * caller may then change pd, access, iova, size and the MTT range (a
 * re-registration that keeps the key) and mlx4_mr_enable() it again.  An
 * error (windows bound to it, the card not answering) leaves the MR with
 * the card, unchanged.  0 for an MR not enabled.
 */
int mlx4_mr_disable(struct mlx4_dev *dev, struct mlx4_mr *mr);
/*
 * HW2SW_MPT, then frees the MR's resources; an error (the card may still
 * own the MPT) frees nothing, and the MR is as before the call.
 */
int mlx4_mr_free(struct mlx4_dev *dev, struct mlx4_mr *mr);

/*
 * Memory windows: an MPT entry without the region flag.  Type 1 is valid
 * from SW2HW_MPT on but has no range until a BIND_MW work request gives it
 * one; type 2 goes to the card in the free state, tied to no QP, and
 * becomes usable only through a BIND_MW, after which LOCAL_INV or a SEND
 * with Invalidate frees it again.
 */
enum mlx4_mw_type {
	MLX4_MW_TYPE_1 = 1,
	MLX4_MW_TYPE_2 = 2,
};

struct mlx4_mw {
	u32			key;	/* the window's rkey as allocated */
	u32			pd;
	enum mlx4_mw_type	type;
	bool			enabled;	/* the card owns its MPT entry */
};

/*
 * A key for a window of the PD; -EOPNOTSUPP if the card has no windows of
 * that type (DEV_CAP MEM_WINDOW for type 1, BMME TYPE_2_WIN for type 2)
 */
int mlx4_mw_alloc(struct mlx4_dev *dev, u32 pd, enum mlx4_mw_type type, struct mlx4_mw *mw);
/* SW2HW_MPT of the window's entry: it exists for the card from here on */
int mlx4_mw_enable(struct mlx4_dev *dev, struct mlx4_mw *mw);
/*
 * HW2SW_MPT if enabled, then frees the key; an error (the card may still
 * own the entry) frees nothing, as mlx4_mr_free().
 */
int mlx4_mw_free(struct mlx4_dev *dev, struct mlx4_mw *mw);

/* ---------------------------------------------------------------------- */
/* Asynchronous event types (EQE types), passed to the objects' handlers */

enum mlx4_event {
	MLX4_EVENT_TYPE_COMP			= 0x00,
	MLX4_EVENT_TYPE_PATH_MIG		= 0x01,
	MLX4_EVENT_TYPE_COMM_EST		= 0x02,
	MLX4_EVENT_TYPE_SQ_DRAINED		= 0x03,
	MLX4_EVENT_TYPE_CQ_ERROR		= 0x04,
	MLX4_EVENT_TYPE_WQ_CATAS_ERROR		= 0x05,
	MLX4_EVENT_TYPE_EEC_CATAS_ERROR		= 0x06,
	MLX4_EVENT_TYPE_PATH_MIG_FAILED		= 0x07,
	MLX4_EVENT_TYPE_LOCAL_CATAS_ERROR	= 0x08,
	MLX4_EVENT_TYPE_PORT_CHANGE		= 0x09,
	MLX4_EVENT_TYPE_CMD			= 0x0a,
	MLX4_EVENT_TYPE_WQ_INVAL_REQ_ERROR	= 0x10,
	MLX4_EVENT_TYPE_WQ_ACCESS_ERROR		= 0x11,
	MLX4_EVENT_TYPE_SRQ_CATAS_ERROR		= 0x12,
	MLX4_EVENT_TYPE_SRQ_QP_LAST_WQE		= 0x13,
	MLX4_EVENT_TYPE_SRQ_LIMIT		= 0x14,
	MLX4_EVENT_TYPE_PORT_MNG_CHG_EVENT	= 0x1d,
};

/* ---------------------------------------------------------------------- */
/* Completion queues */

struct mlx4_cq {
	/* [any] set by mlx4_ib before mlx4_cq_alloc(); called from the EQ handler */
	void		(*comp)(struct mlx4_cq *cq);
	void		(*event)(struct mlx4_cq *cq, enum mlx4_event type);
	int		cqn;
	unsigned int	vector;		/* completion EQ index, < caps.num_comp_vectors */
	/* set by mlx4_ib before mlx4_cq_alloc(): the card stamps each CQE's time */
	bool		timestamp;
	/* mlx4_core: keeps the CQ alive while its EQ handler uses it */
	refcount_t	refcount;
	struct completion free;
};

/*
 * nent: a power of two.  mtt: the CQE buffer's translation.  db_rec: bus
 * address of the two-dword doorbell record (set_ci, arm).  uar: whose
 * doorbell page the arm commands go to.
 */
int mlx4_cq_alloc(struct mlx4_dev *dev, int nent, struct mlx4_mtt *mtt,
		  struct mlx4_uar *uar, u64 db_rec, struct mlx4_cq *cq, unsigned int vector);
/* Returns once no EQ handler can call cq->comp or cq->event any more. */
void mlx4_cq_free(struct mlx4_dev *dev, struct mlx4_cq *cq);
int mlx4_cq_modify(struct mlx4_dev *dev, struct mlx4_cq *cq, u16 count, u16 period);
int mlx4_cq_resize(struct mlx4_dev *dev, struct mlx4_cq *cq, int nent, struct mlx4_mtt *mtt);

/* ---------------------------------------------------------------------- */
/* Queue pairs */

enum mlx4_qp_state {
	MLX4_QP_STATE_RST	= 0,
	MLX4_QP_STATE_INIT	= 1,
	MLX4_QP_STATE_RTR	= 2,
	MLX4_QP_STATE_RTS	= 3,
	MLX4_QP_STATE_SQER	= 4,
	MLX4_QP_STATE_SQD	= 5,
	MLX4_QP_STATE_ERR	= 6,
	MLX4_QP_NUM_STATE
};

struct mlx4_qp {
	/* [any] set by mlx4_ib before mlx4_qp_alloc(); called from the EQ handler */
	void		(*event)(struct mlx4_qp *qp, enum mlx4_event type);
	int		qpn;
	refcount_t	refcount;	/* mlx4_core's */
	struct completion free;
};

/* QPNs for ordinary QPs, cnt aligned to align; [sleep] */
int mlx4_qp_reserve_range(struct mlx4_dev *dev, int cnt, int align, int *base);
void mlx4_qp_release_range(struct mlx4_dev *dev, int base_qpn, int cnt);

/* Make qpn usable (ICM for its context) and route its events to qp->event */
int mlx4_qp_alloc(struct mlx4_dev *dev, int qpn, struct mlx4_qp *qp);
/* Returns once no EQ handler can call qp->event any more; frees its ICM */
void mlx4_qp_free(struct mlx4_dev *dev, struct mlx4_qp *qp);

/*
 * Move the QP from cur to new with the given context (MLX4_QP_CONTEXT_SIZE
 * bytes, in the card's layout, built by mlx4_ib) and optional-parameter
 * mask.  RST -> INIT, INIT -> INIT, INIT -> RTR, RTR -> RTS, RTS -> RTS,
 * SQER/SQD -> RTS, RTS -> SQD, SQD -> SQD, any -> ERR and any -> RST map to
 * the card's transition commands; anything else is -EINVAL.
 */
int mlx4_qp_modify(struct mlx4_dev *dev, struct mlx4_qp *qp, enum mlx4_qp_state cur,
		   enum mlx4_qp_state new, const void *context, u32 optpar, int sqd_event);
/* context: MLX4_QP_CONTEXT_SIZE bytes out */
int mlx4_qp_query(struct mlx4_dev *dev, struct mlx4_qp *qp, void *context);

/* ---------------------------------------------------------------------- */
/* Shared receive queues */

struct mlx4_srq {
	/* [any] set by mlx4_ib before mlx4_srq_alloc(); called from the EQ handler */
	void		(*event)(struct mlx4_srq *srq, enum mlx4_event type);
	int		srqn;
	int		max;		/* WQEs, a power of two (set by mlx4_ib) */
	int		wqe_shift;	/* log2 of the WQE stride (set by mlx4_ib) */
	refcount_t	refcount;	/* mlx4_core's */
	struct completion free;
};

/*
 * [sleep] An SRQ: a plain one passes cqn 0 and xrcd caps.reserved_xrcds, an
 * XRC one its domain and the CQ its receives complete on.
 */
int mlx4_srq_alloc(struct mlx4_dev *dev, u32 pdn, u32 cqn, u16 xrcd,
		   struct mlx4_mtt *mtt, u64 db_rec, struct mlx4_srq *srq);
void mlx4_srq_free(struct mlx4_dev *dev, struct mlx4_srq *srq);
/* arm the limit event at limit_watermark WQEs (0 disarms) */
int mlx4_srq_arm(struct mlx4_dev *dev, struct mlx4_srq *srq, int limit_watermark);
int mlx4_srq_query(struct mlx4_dev *dev, struct mlx4_srq *srq, int *limit_watermark);

/* ---------------------------------------------------------------------- */
/* Multicast groups */

int mlx4_multicast_attach(struct mlx4_dev *dev, struct mlx4_qp *qp, const u8 gid[16],
			  u8 port, bool block_mcast_loopback);
int mlx4_multicast_detach(struct mlx4_dev *dev, struct mlx4_qp *qp, const u8 gid[16]);

#endif /* IBSTACK_MLX4_H */

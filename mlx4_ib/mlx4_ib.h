/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mlx4_ib: the ib_device of a ConnectX-3, private declarations.
 *
 * Locking, from the outside in:
 *  - mlx4_ib_qp.mutex serialises modify/query of one QP (sleeps);
 *  - mlx4_ib_dev.cap_mask_mutex serialises read-modify-write of the port
 *    capability masks and the node description;
 *  - mlx4_ib_wq.lock (SQ, RQ) and mlx4_ib_srq.lock protect a queue's
 *    producer side; taken with interrupts off, since posting is [any];
 *    resetting a QP's queues takes the SQ's lock, then the RQ's;
 *  - mlx4_ib_cq.lock protects a CQ's consumer index and the CQE ring;
 *    poll_cq takes an SRQ's lock inside it to return WQEs to the free
 *    list, and post_send takes the send CQ's lock inside the SQ's lock
 *    when the queue looks full.  Two CQ locks are taken in CQN order.
 *  - mlx4_ib_ucontext.db_page_mutex protects a user context's list of
 *    pinned doorbell-record pages and their use counts (doorbell.c); taken
 *    by create and destroy of user CQs, QPs and SRQs, inside nothing of
 *    ours.
 *
 * User objects (created with udata by ib_uverbs: uctx set) have their
 * queues, CQE rings and doorbell records in the process's memory, pinned
 * (ib_umem) and written by libmlx4 alone: the kernel never posts to them,
 * polls them, cleans or flushes them, and they are on none of the lists the
 * software flush walks (flush.c).
 */
#ifndef MLX4_IB_H
#define MLX4_IB_H

#include <rdma/ib_verbs.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/mlx4-abi.h>
#include <ibstack/mlx4.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <linux/ratelimit.h>
#include <linux/workqueue.h>

#include "mlx4_ib_hw.h"

#define DRV_NAME	"mlx4_ib"

#define mlx4_ib_warn_rl(ibdev, fmt, ...) \
	dev_warn_ratelimited(&(ibdev)->dev->pdev->dev, DRV_NAME ": " fmt, ##__VA_ARGS__)
#define mlx4_ib_warn(ibdev, fmt, ...) \
	dev_warn(&(ibdev)->dev->pdev->dev, DRV_NAME ": " fmt, ##__VA_ARGS__)
#define mlx4_ib_info(ibdev, fmt, ...) \
	dev_info(&(ibdev)->dev->pdev->dev, DRV_NAME ": " fmt, ##__VA_ARGS__)

/* SMP attribute of the Mellanox extended port information (FDR10) */
#define MLX4_ATTR_EXTENDED_PORT_INFO	cpu_to_be16(0xff90)

/* MAD_IFC op_modifier bits */
enum {
	MLX4_MAD_IFC_IGNORE_MKEY	= BIT(0),
	MLX4_MAD_IFC_IGNORE_BKEY	= BIT(1),
	MLX4_MAD_IFC_IGNORE_KEYS	= BIT(0) | BIT(1),
	MLX4_MAD_IFC_EXT_INFO		= BIT(2),
};

/* Room kept free in the SQ behind the last posted WQE (prefetch headroom) */
#define MLX4_IB_SQ_HEADROOM	2048
#define MLX4_IB_SQ_MIN_WQE_SHIFT 6
#define MLX4_IB_SQ_MAX_SPARE	(MLX4_IB_SQ_HEADROOM / 64 + 1)
#define MLX4_IB_MAX_HEADER	72	/* LRH + GRH + BTH + DETH + ImmDt */
#define MLX4_IB_LSO_HEADER_SPARE 128	/* an LSO QP's WQE room for the headers */
#define MLX4_IB_CARD_REV_A0	0xa0	/* NodeInfo revision of a card without LSO */

struct mlx4_ib_dev {
	struct ib_device	ib_dev;		/* first: _ib_alloc_device() */
	struct mlx4_dev		*dev;
	struct mlx4_uar		*uar;		/* mlx4_core's kernel UAR */
	void __iomem		*uar_map;
	int			num_ports;
	bool			registered;	/* events go to ib_core */
	bool			port_inited[MLX4_MAX_PORTS + 1];
	/* serialises capability mask and node description updates */
	struct mutex		cap_mask_mutex;
	/*
	 * QPN -> mlx4_ib_qp for poll_cq; lookups lock-free under a CQ lock,
	 * removal under the QP's CQ locks (its xa_lock inside them, IRQs off)
	 */
	struct xarray		qps;
	/*
	 * SRQN -> XRC mlx4_ib_srq, for poll_cq (an XRC receive CQE names the
	 * SRQ); lookups lock-free under the SRQ's CQ lock, removal under it
	 */
	struct xarray		xrc_srqs;
	/* protects qp_list; taken before CQ locks, never inside them */
	spinlock_t		reset_lock;
	struct list_head	qp_list;	/* every QP, for the error flush */
	struct work_struct	catas_work;	/* the error flush (flush.c) */
};

/*
 * A user context (one per GET_CONTEXT): its UAR page (the doorbells of its
 * QPs and CQs, mapped at offset 0 of the uverbs file), and the pages of
 * doorbell records its objects pinned (doorbell.c)
 */
struct mlx4_ib_ucontext {
	struct ib_ucontext	ibucontext;
	struct mlx4_uar		uar;
	/* protects db_page_list and the pages' use counts */
	struct mutex		db_page_mutex;
	struct list_head	db_page_list;
};

/* A doorbell record in user memory: its page's pin, and its bus address */
struct mlx4_ib_db_page;

struct mlx4_ib_user_db {
	struct mlx4_ib_db_page	*page;
	dma_addr_t		dma;
};

struct mlx4_ib_pd {
	struct ib_pd	ibpd;
	u32		pdn;
};

/*
 * A fast-registration MR (ib_alloc_mr) also has a page list: big-endian
 * page addresses with the MTT present bit, max_pages of them in one zeroed
 * page, DMA-mapped to the card, which reads it when it executes an
 * IB_WR_REG_MR.  map_mr_sg fills it (npages); the consumer serialises
 * map_mr_sg with the registrations that use the list.
 */
struct mlx4_ib_mr {
	struct ib_mr	ibmr;
	struct mlx4_mr	mmr;
	struct ib_umem	*umem;		/* a user MR's pinned pages, else NULL */
	int		access;		/* a user MR's IB_ACCESS_* (rereg_user_mr) */
	__be64		*pages;		/* NULL but for fast registration */
	dma_addr_t	page_map;
	size_t		page_map_size;
	u32		npages;
	u32		max_pages;
};

struct mlx4_ib_ah {
	struct ib_ah		ibah;
	struct mlx4_hw_av	av;
};

/*
 * A CQE ring: its buffer (a user CQ's: pinned user memory, umem, and no
 * buf), the MTT entries that describe it, its size.
 */
struct mlx4_ib_cq_ring {
	struct mlx4_buf		buf;
	struct ib_umem		*umem;
	struct mlx4_mtt		mtt;
	u32			nent;		/* a power of two */
};

struct mlx4_ib_cq {
	struct ib_cq		ibcq;
	struct mlx4_cq		mcq;
	struct mlx4_db		db;		/* a kernel CQ's record */
	/* a user CQ's context and record (uctx NULL for a kernel CQ) */
	struct mlx4_ib_ucontext	*uctx;
	struct mlx4_ib_user_db	udb;
	/* protects cons_index and the rings; see the top of this file */
	spinlock_t		lock;
	struct mlx4_ib_cq_ring	ring;		/* the one polled */
	u32			cons_index;
	/*
	 * resize_cq (cq_resize.c): the ring MODIFY_CQ gave the card, which
	 * takes over at the card's RESIZE CQE (resize_pending), and a
	 * replaced ring kept until it can be freed in process context
	 * (has_retired).  Under lock; resize_mutex serialises the resizes.
	 */
	struct mutex		resize_mutex;
	struct mlx4_ib_cq_ring	resize;
	struct mlx4_ib_cq_ring	retired;
	bool			resize_pending;
	bool			has_retired;
	atomic_t		arm_sn;		/* completion events seen */
	/* QPs sending / receiving through this CQ, under lock */
	struct list_head	send_qp_list;
	struct list_head	recv_qp_list;
	bool			flush_notify;	/* mlx4_ib_catas_flush() scratch */
	struct list_head	notify_list;
	/*
	 * MLX4_IB_CQ_ARMED: armed since the last completion event, for the
	 * error flush's events (flush.c)
	 */
	unsigned long		sw_flags;
};

enum {
	MLX4_IB_CQ_ARMED,
};

struct mlx4_ib_wq {
	u64		*wrid;
	/* protects head and the WQEs; tail moves under the CQ's lock */
	spinlock_t	lock;
	int		wqe_cnt;	/* a power of two */
	int		max_post;
	int		max_gs;
	int		offset;		/* in the QP buffer */
	int		wqe_shift;
	unsigned int	head;
	unsigned int	tail;
};

/*
 * An XRC domain: its number, and the PD and CQ its target QPs' contexts
 * name (the card wants both; requests use the PD of the XRC SRQ they name)
 */
/* an XRC target QP's number: bit 23 set (upstream mlx4's convention) */
#define MLX4_IB_XRC_TGT_QPN_BIT	BIT(23)

struct mlx4_ib_xrcd {
	struct ib_xrcd		ibxrcd;
	u32			xrcdn;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
};

struct mlx4_ib_qp {
	struct ib_qp		ibqp;
	struct mlx4_qp		mqp;
	struct mlx4_ib_dev	*dev;
	/*
	 * the PD and CQs in the QP's context: the consumer's, or for an XRC
	 * target its domain's (ib_core keeps none in ibqp for it)
	 */
	u32			pdn;
	struct mlx4_ib_cq	*scq;
	struct mlx4_ib_cq	*rcq;
	u32			xrcdn;		/* XRC target: its domain; else 0 */
	/*
	 * a user QP's context, pinned buffer and RQ record (uctx NULL for a
	 * kernel QP, which has buf, db and the wrid arrays instead)
	 */
	struct mlx4_ib_ucontext	*uctx;
	struct ib_umem		*umem;
	struct mlx4_ib_user_db	udb;
	bool			sq_no_prefetch;
	struct mlx4_buf		buf;
	int			buf_size;
	struct mlx4_mtt		mtt;
	struct mlx4_db		db;		/* RQ doorbell record */
	bool			has_rq;
	struct mlx4_ib_wq	rq;
	struct mlx4_ib_wq	sq;
	bool			sq_signal_all;
	/* SQ WQEs kept free ahead of the last posted (prefetch headroom) */
	unsigned int		sq_spare_wqes;
	int			max_inline_data;
	bool			block_mcast_loopback;
	bool			lso;		/* IB_QP_CREATE_IPOIB_UD_LSO */
	bool			is_sqp;		/* QP0/QP1: MLX transport */
	/* serialises modify and query; the fields below change under it */
	struct mutex		mutex;
	enum ib_qp_state	state;		/* read lock-free by the data path */
	u8			port;
	u8			sl;
	u16			pkey_index;
	u32			qkey;
	u8			atomic_rd_en;	/* IB_ACCESS_REMOTE_* allowed */
	u8			resp_depth;	/* max_dest_rd_atomic */
	u32			send_psn;	/* QP0/QP1: next BTH PSN */
	/* serialises attach/detach_mcast; protects mcg_list (mcg.c) */
	struct mutex		mcg_mutex;
	struct list_head	mcg_list;
	struct list_head	qps_list;	/* dev->qp_list */
	struct list_head	cq_send_list;	/* send CQ's send_qp_list */
	struct list_head	cq_recv_list;	/* receive CQ's recv_qp_list */
};

struct mlx4_ib_srq {
	struct ib_srq		ibsrq;
	struct mlx4_srq		msrq;
	struct mlx4_ib_dev	*dev;
	/* a user SRQ's context, pinned ring and record (else uctx NULL) */
	struct mlx4_ib_ucontext	*uctx;
	struct ib_umem		*umem;
	struct mlx4_ib_user_db	udb;
	struct mlx4_buf		buf;
	int			buf_size;
	struct mlx4_mtt		mtt;
	struct mlx4_db		db;
	u64			*wrid;
	/* protects the free list (head, tail) and wqe_ctr */
	spinlock_t		lock;
	int			head;
	int			tail;
	u16			wqe_ctr;
	int			max_gs;
	struct mutex		mutex;		/* serialises modify/query */
};

static inline struct mlx4_ib_dev *to_mdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mlx4_ib_dev, ib_dev);
}

static inline struct mlx4_ib_ucontext *to_mucontext(struct ib_ucontext *ibucontext)
{
	return container_of(ibucontext, struct mlx4_ib_ucontext, ibucontext);
}

static inline struct mlx4_ib_pd *to_mpd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct mlx4_ib_pd, ibpd);
}

static inline struct mlx4_ib_mr *to_mmr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct mlx4_ib_mr, ibmr);
}

static inline struct mlx4_ib_ah *to_mah(struct ib_ah *ibah)
{
	return container_of(ibah, struct mlx4_ib_ah, ibah);
}

static inline struct mlx4_ib_cq *to_mcq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct mlx4_ib_cq, ibcq);
}

static inline struct mlx4_ib_qp *to_mqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct mlx4_ib_qp, ibqp);
}

static inline struct mlx4_ib_xrcd *to_mxrcd(struct ib_xrcd *ibxrcd)
{
	return container_of(ibxrcd, struct mlx4_ib_xrcd, ibxrcd);
}

static inline struct mlx4_ib_srq *to_msrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct mlx4_ib_srq, ibsrq);
}

/* main.c */
int mlx4_ib_init_port(struct mlx4_ib_dev *dev, u32 port);
void mlx4_ib_close_port(struct mlx4_ib_dev *dev, u32 port);

/* mad.c */
int mlx4_ib_mad_ifc(struct mlx4_ib_dev *dev, int op_mod, u32 port,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const void *in_mad, void *response_mad);
int mlx4_ib_query_smp(struct mlx4_ib_dev *dev, u32 port, __be16 attr_id,
		      u32 attr_mod, struct ib_smp *out);
int mlx4_ib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port,
			const struct ib_wc *in_wc, const struct ib_grh *in_grh,
			const struct ib_mad *in, struct ib_mad *out);

/* query.c */
int mlx4_ib_query_device(struct ib_device *ibdev, struct ib_device_attr *attr);
int mlx4_ib_query_port(struct ib_device *ibdev, u32 port, struct ib_port_attr *attr);
int mlx4_ib_query_gid(struct ib_device *ibdev, u32 port, int index, union ib_gid *gid);
int mlx4_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
int mlx4_ib_modify_device(struct ib_device *ibdev, int mask,
			  struct ib_device_modify *props);
int mlx4_ib_modify_port(struct ib_device *ibdev, u32 port, int mask,
			struct ib_port_modify *props);
int mlx4_ib_init_node_data(struct mlx4_ib_dev *dev);

/* ucontext.c */
struct ib_ucontext *mlx4_ib_alloc_ucontext(struct ib_device *ibdev, struct ib_udata *udata);
void mlx4_ib_dealloc_ucontext(struct ib_ucontext *ibucontext);
int mlx4_ib_mmap(struct ib_ucontext *ibucontext, struct vm_area_struct *vma);
int mlx4_ib_query_device_user(struct ib_device *ibdev, struct ib_udata *udata);
struct mlx4_ib_ucontext *mlx4_ib_udata_ucontext(struct mlx4_ib_dev *dev, struct ib_udata *udata);
int mlx4_ib_copy_cmd(struct mlx4_ib_dev *dev, void *cmd, size_t len, struct ib_udata *udata,
		     const char *what);
int mlx4_ib_copy_resp(struct ib_udata *udata, void *resp, size_t len);

/* doorbell.c */
int mlx4_ib_db_map_user(struct mlx4_ib_ucontext *uctx, u64 virt, size_t size,
			struct mlx4_ib_user_db *db);
void mlx4_ib_db_unmap_user(struct mlx4_ib_ucontext *uctx, struct mlx4_ib_user_db *db);

/* sysfs.c */
extern const struct attribute_group mlx4_ib_attr_group;

/* hw_counters.c */
extern const struct attribute_group *mlx4_ib_driver_groups[];

/* pd.c */
struct ib_pd *mlx4_ib_alloc_pd(struct ib_device *ibdev, struct ib_udata *udata);
int mlx4_ib_dealloc_pd(struct ib_pd *pd);

/* mr.c */
struct ib_mr *mlx4_ib_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *mlx4_ib_reg_kernel_mr(struct ib_pd *pd, const u64 *pages, int npages,
				    int page_shift, u64 iova, u64 length, int access);
int mlx4_ib_dereg_mr(struct ib_mr *mr);
u32 mlx4_ib_access(int access);

/* umr.c */
struct ib_mr *mlx4_ib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length, u64 virt,
				  int access, struct ib_udata *udata);
int mlx4_ib_rereg_user_mr(struct ib_mr *mr, int flags, u64 start, u64 length, u64 virt,
			  int access, struct ib_pd *pd, struct ib_udata *udata);
int mlx4_ib_umem_mtt_at(struct mlx4_ib_dev *dev, struct ib_umem *umem, u64 virt,
			struct mlx4_mtt *mtt);

/* [sleep] a user queue buffer's MTT (the card sees it from its first byte) */
static inline int mlx4_ib_umem_mtt(struct mlx4_ib_dev *dev, struct ib_umem *umem,
				   struct mlx4_mtt *mtt)
{
	return mlx4_ib_umem_mtt_at(dev, umem, 0, mtt);
}

/* mw.c: memory windows (ib_core allocates them: ibmw first) */
struct mlx4_ib_mw {
	struct ib_mw	ibmw;
	struct mlx4_mw	mmw;
};

static_assert(offsetof(struct mlx4_ib_mw, ibmw) == 0);

static inline struct mlx4_ib_mw *to_mmw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct mlx4_ib_mw, ibmw);
}

int mlx4_ib_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int mlx4_ib_dealloc_mw(struct ib_mw *ibmw);
int mlx4_ib_set_bind_seg(struct mlx4_ib_qp *qp, const struct ib_send_wr *wr,
			 struct mlx4_hw_bind_seg *seg);

/* mr_frwr.c */
struct ib_mr *mlx4_ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type, u32 max_num_sg);
int mlx4_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		      unsigned int *sg_offset);
void mlx4_ib_free_page_list(struct mlx4_ib_dev *dev, struct mlx4_ib_mr *mr);
int mlx4_ib_set_reg_seg(struct mlx4_ib_qp *qp, const struct ib_reg_wr *wr,
			struct mlx4_hw_fmr_seg *seg);
void mlx4_ib_set_local_inv_seg(struct mlx4_hw_local_inval_seg *seg, u32 key);

/* ah.c */
struct ib_ah *mlx4_ib_create_ah(struct ib_pd *pd, const struct rdma_ah_attr *attr, u32 flags,
				struct ib_udata *udata);
int mlx4_ib_query_ah(struct ib_ah *ah, struct rdma_ah_attr *attr);
int mlx4_ib_destroy_ah(struct ib_ah *ah, u32 flags);

/* comp_queue.c */
struct ib_cq *mlx4_ib_create_cq(struct ib_device *ibdev, const struct ib_cq_init_attr *attr,
				struct ib_udata *udata);
int mlx4_ib_destroy_cq(struct ib_cq *cq);
int mlx4_ib_modify_cq(struct ib_cq *cq, u16 cq_count, u16 cq_period);
int mlx4_ib_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags);
void mlx4_ib_cq_clean(struct mlx4_ib_cq *cq, u32 qpn, struct mlx4_ib_srq *srq);
void mlx4_ib_cq_lock_pair(struct mlx4_ib_cq *a, struct mlx4_ib_cq *b, unsigned long *flags);
void mlx4_ib_cq_unlock_pair(struct mlx4_ib_cq *a, struct mlx4_ib_cq *b, unsigned long flags);
struct mlx4_hw_cqe *mlx4_ib_next_cqe(struct mlx4_ib_cq *cq, u32 n);
struct mlx4_hw_cqe *mlx4_ib_cqe_at(struct mlx4_ib_cq_ring *ring, u32 n);
void mlx4_ib_cq_set_ci(struct mlx4_ib_cq *cq);
int mlx4_ib_alloc_cq_ring(struct mlx4_ib_dev *dev, struct mlx4_ib_cq_ring *ring, u32 nent);
void mlx4_ib_free_cq_ring(struct mlx4_ib_dev *dev, struct mlx4_ib_cq_ring *ring);
int mlx4_ib_pin_cq_ring(struct mlx4_ib_dev *dev, struct mlx4_ib_cq_ring *ring, u64 buf_addr,
			u32 nent);

/* cq_resize.c */
int mlx4_ib_resize_cq(struct ib_cq *cq, int entries, struct ib_udata *udata);
bool mlx4_ib_cq_switch_ring(struct mlx4_ib_cq *cq);
void mlx4_ib_cq_free_rings(struct mlx4_ib_dev *dev, struct mlx4_ib_cq *cq);

/* poll.c */
int mlx4_ib_poll_cq(struct ib_cq *cq, int num_entries, struct ib_wc *wc);

/* flush.c */
int mlx4_ib_poll_sw_flush(struct mlx4_ib_cq *cq, int num_entries, struct ib_wc *wc);
int mlx4_ib_arm_dead(struct mlx4_ib_cq *cq, enum ib_cq_notify_flags flags);
int mlx4_ib_post_send_dead(struct mlx4_ib_qp *qp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr);
int mlx4_ib_post_recv_dead(struct mlx4_ib_qp *qp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr);
void mlx4_ib_catas_flush_work(struct work_struct *work);

/* qp.c */
/* xrcd.c */
struct ib_xrcd *mlx4_ib_alloc_xrcd(struct ib_device *ibdev, struct ib_udata *udata);
int mlx4_ib_dealloc_xrcd(struct ib_xrcd *xrcd, struct ib_udata *udata);

struct ib_qp *mlx4_ib_create_qp(struct ib_pd *pd, struct ib_qp_init_attr *attr,
				struct ib_udata *udata);
int mlx4_ib_destroy_qp(struct ib_qp *qp);
void mlx4_ib_qp_reset_queues(struct mlx4_ib_qp *qp);
int mlx4_ib_qp_layout(struct mlx4_ib_qp *qp);

/* qp_user.c */
int mlx4_ib_user_qp_buffers(struct mlx4_ib_dev *dev, struct mlx4_ib_qp *qp,
			    struct ib_qp_init_attr *attr, struct ib_udata *udata);
void mlx4_ib_free_user_qp_buffers(struct mlx4_ib_dev *dev, struct mlx4_ib_qp *qp);

/* qp_modify.c */
int mlx4_ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		      enum ib_qp_state cur_state, struct ib_udata *udata);
int mlx4_ib_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		     struct ib_qp_init_attr *init_attr);
enum mlx4_qp_state mlx4_ib_to_hw_state(enum ib_qp_state state);

/* wqe.c */
int mlx4_ib_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr);
int mlx4_ib_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);

/*
 * Inline data in a WQE: segments that never cross a 64-byte line.  start
 * at a 16-byte aligned offset of the WQE, add data, end returns the next
 * 16-byte aligned offset.
 */
struct mlx4_ib_inline {
	void	*wqe;
	int	seg;		/* offset of the open segment's header */
	int	pos;		/* where the next byte goes */
	int	seg_len;
};

/* Worst-case room for len bytes of inline data split at 64-byte lines */
static inline int mlx4_ib_inline_room(int len)
{
	if (!len)
		return 0;
	return ALIGN(len + sizeof(struct mlx4_hw_inline_seg) *
		     (len / (MLX4_HW_INLINE_ALIGN - 4) + 2), 16);
}

void mlx4_ib_inline_start(struct mlx4_ib_inline *inl, void *wqe, int off);
void mlx4_ib_inline_add(struct mlx4_ib_inline *inl, const void *data, int len);
int mlx4_ib_inline_end(struct mlx4_ib_inline *inl);
void mlx4_ib_set_gather_segs(struct mlx4_hw_data_seg *dseg, const struct ib_sge *sg, int n);
void mlx4_ib_set_scatter(struct mlx4_hw_data_seg *scat, const struct ib_sge *sg,
			 int n, int max);
void mlx4_ib_stamp_send_wqe(struct mlx4_ib_qp *qp, unsigned int n);

/* mlx_header.c */
int mlx4_ib_build_mlx_wqe(struct mlx4_ib_qp *qp, const struct ib_send_wr *wr,
			  void *wqe, int *opcode);

/* srq.c */
struct ib_srq *mlx4_ib_create_srq(struct ib_pd *pd, struct ib_srq_init_attr *attr,
				  struct ib_udata *udata);
int mlx4_ib_modify_srq(struct ib_srq *srq, struct ib_srq_attr *attr, int mask,
		       struct ib_udata *udata);
int mlx4_ib_query_srq(struct ib_srq *srq, struct ib_srq_attr *attr);
int mlx4_ib_destroy_srq(struct ib_srq *srq);
int mlx4_ib_post_srq_recv(struct ib_srq *srq, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr);
struct mlx4_ib_srq *mlx4_ib_srq_lookup(struct mlx4_ib_dev *dev, u32 srqn);
void mlx4_ib_free_srq_wqe(struct mlx4_ib_srq *srq, int wqe_index);

/* mcg.c */
int mlx4_ib_attach_mcast(struct ib_qp *qp, const union ib_gid *gid, u16 lid);
int mlx4_ib_detach_mcast(struct ib_qp *qp, const union ib_gid *gid, u16 lid);
void mlx4_ib_mcg_leave_all(struct mlx4_ib_qp *qp);

#endif /* MLX4_IB_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibstack_kverbs: a kernel test client of our verbs API.  Private header
 * shared by the module's files.
 */
#ifndef KVERBS_H
#define KVERBS_H

#include <rdma/ib_verbs.h>
#include <rdma/ib_cache.h>
#include <ibstack/ext.h>
#include <linux/atomic.h>
#include <linux/dma-mapping.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#define KV_NAME		"ibstack_kverbs"

/* Every wait of the tests is bounded by one of these (milliseconds). */
#define KV_WAIT_MS	5000	/* an expected completion or event */
#define KV_QUIET_MS	300	/* "nothing happens" checks */
/* ports becoming ACTIVE (an SM restarted after a reset, on a loaded host) */
#define KV_PORT_MS	60000

#define KV_QKEY		0x11111111	/* the UD QPs' Q_Key */
#define KV_GRH		40	/* a UD receive starts with room for the GRH */

#define KV_BUF_SIZE	(256 * 1024)	/* each test buffer */
#define KV_BIG		(64 * 1024)	/* the multi-MTU message size */

/*
 * One test run (the self-test of a device, or one peer test).  Runs are
 * sequential within themselves; several may run at once on different
 * devices, so nothing here is global.
 */
struct kv_run {
	struct ib_device	*dev;
	/* the task inside a data-path verb, for the "handler in verb" check */
	struct task_struct	*verb_task;
	atomic_t		handler_in_verb;	/* violations seen */
	atomic_t		handler_nested;		/* one CQ, two contexts */
	atomic_t		verb_unbalanced;	/* preempt/IRQ state changed */
	int			passed;
	int			failed;
	char			why[192];		/* the current case's failure */
	struct ib_pd		*pd;
	u16			lid[3];			/* by port (1, 2) */
	enum ib_mtu		mtu[3];
	u8			rnr_retry;		/* for the next RTR->RTS */
	u8			qp_timeout;		/* likewise; 0: the default */
};

/*
 * A kernel buffer: pages mapped for DMA on the device, registered as a
 * kernel MR (all access rights) at an IOVA that differs from the bus
 * address, so both the MR translation and the PD's local_dma_lkey get used.
 */
struct kv_buf {
	void		*cpu;
	size_t		size;
	unsigned int	order;
	dma_addr_t	dma;
	u64		iova;
	struct ib_mr	*mr;
	struct device	*dma_dev;
};

/* A CQ whose completion handler counts its calls and wakes waiters. */
struct kv_cq {
	struct kv_run		*r;
	struct ib_cq		*cq;
	atomic_t		calls;
	atomic_t		inside;		/* handlers running right now */
	atomic_t		events;		/* CQ async events */
	wait_queue_head_t	wq;
};

/* One end of a QP pair: its CQs and QP, and what its event handler saw. */
struct kv_ep {
	struct kv_run		*r;
	struct kv_cq		scq;
	struct kv_cq		rcq;
	struct ib_qp		*qp;
	u32			port;
	u32			psn;		/* its send PSN */
	struct ib_qp_cap	cap;		/* granted at creation */
	atomic_t		events;
	int			last_event;	/* enum ib_event_type, or -1 */
	wait_queue_head_t	wq;
};

/* Two connected QPs: a on port 1, b on port 2 (or the peer node's). */
struct kv_pair {
	struct kv_ep	a;
	struct kv_ep	b;
	enum ib_qp_type	type;
};

/* Options of kv_pair_create() */
struct kv_pair_opts {
	u32		max_send_wr;
	u32		max_recv_wr;
	u32		max_send_sge;
	u32		max_recv_sge;
	u32		max_inline;
	enum ib_sig_type sig;
	struct ib_srq	*srq_b;		/* b receives from this SRQ */
	struct kv_cq	*rcq_b;		/* b's receive CQ instead of its own */
	bool		no_connect;	/* leave both in RESET */
	int		cqe;		/* CQ size (0: 256) */
	u8		rnr_retry;	/* 0: 7 (forever) */
	bool		rnr_retry_set;	/* use rnr_retry even if 0 */
	u32		create_flags;	/* enum ib_qp_create_flags */
};

/* kverbs_util.c: results */
__printf(2, 3) int kv_fail(struct kv_run *r, const char *fmt, ...);
void kv_report(struct kv_run *r, const char *name, int err);
const char *kv_status(enum ib_wc_status s);

/* kverbs_util.c: the data-path verbs, called as a ULP in atomic context would */
int kv_post_send(struct kv_run *r, struct ib_qp *qp, const struct ib_send_wr *wr,
		 const struct ib_send_wr **bad);
int kv_post_recv(struct kv_run *r, struct ib_qp *qp, const struct ib_recv_wr *wr,
		 const struct ib_recv_wr **bad);
int kv_post_srq_recv(struct kv_run *r, struct ib_srq *srq,
		     const struct ib_recv_wr *wr, const struct ib_recv_wr **bad);
int kv_poll(struct kv_run *r, struct kv_cq *kc, int n, struct ib_wc *wc);
int kv_notify(struct kv_run *r, struct kv_cq *kc, enum ib_cq_notify_flags flags);

/* kverbs_util.c: buffers */
int kv_buf_alloc(struct kv_run *r, struct kv_buf *b, size_t size, u64 iova);
void kv_buf_free(struct kv_run *r, struct kv_buf *b);
void kv_buf_cpu(struct kv_buf *b);
void kv_buf_dev(struct kv_buf *b);
void kv_fill(struct kv_buf *b, size_t off, size_t len, u32 seed);
int kv_check_fill(struct kv_run *r, struct kv_buf *b, size_t off, size_t len,
		  u32 seed, const char *what);
struct ib_sge kv_sge_mr(struct kv_buf *b, size_t off, u32 len);
struct ib_sge kv_sge_dma(struct kv_run *r, struct kv_buf *b, size_t off, u32 len);

/* kverbs_util.c: CQs and waiting */
int kv_cq_create(struct kv_run *r, struct kv_cq *kc, int cqe);
int kv_cq_destroy(struct kv_cq *kc);
int kv_wait_wc(struct kv_run *r, struct kv_cq *kc, struct ib_wc *wc, int n,
	       unsigned int ms);
int kv_expect(struct kv_run *r, struct kv_cq *kc, const char *what, u64 wr_id,
	      enum ib_wc_status status, int opcode, struct ib_wc *out);
int kv_expect_quiet(struct kv_run *r, struct kv_cq *kc, const char *what,
		    unsigned int ms);
int kv_wait_calls(struct kv_cq *kc, int old, unsigned int ms);

/* kverbs_util.c: address handles */
void kv_ah_attr(struct kv_run *r, struct rdma_ah_attr *aa, u16 dlid, u32 port);
struct ib_ah *kv_ah_create(struct kv_run *r, struct rdma_ah_attr *aa, u32 flags,
			   const char *what);
int kv_check_sgid_attr(struct kv_run *r, const struct ib_gid_attr *attr, u32 port,
		       u16 index, const char *what);
int kv_check_ah(struct kv_run *r, struct ib_ah *ah, const struct rdma_ah_attr *want,
		const char *what);

/* kverbs_util.c: QPs */
struct ib_qp *kv_qp_create(struct kv_run *r, struct kv_ep *ep, enum ib_qp_type type,
			   const struct kv_pair_opts *o, struct ib_srq *srq,
			   struct kv_cq *rcq);
int kv_qp_init(struct kv_run *r, struct ib_qp *qp, enum ib_qp_type type, u32 port,
	       u32 qkey);
int kv_send_inv(struct kv_run *r, struct kv_pair *p, struct ib_sge *ss, u32 rkey,
		u64 send_id, u64 recv_id, struct ib_wc *wc);
int kv_qp_rtr_rts(struct kv_run *r, struct ib_qp *qp, enum ib_qp_type type,
		  u32 port, u16 dlid, u32 dqpn, u32 rq_psn, u32 sq_psn,
		  enum ib_mtu mtu);
int kv_qp_state(struct kv_run *r, struct ib_qp *qp, enum ib_qp_state *state);
int kv_ep_init(struct kv_run *r, struct kv_ep *ep, u32 port, int cqe);
int kv_ep_destroy(struct kv_run *r, struct kv_ep *ep);
int kv_pair_create(struct kv_run *r, struct kv_pair *p, enum ib_qp_type type,
		   const struct kv_pair_opts *o);
int kv_pair_destroy(struct kv_run *r, struct kv_pair *p);
int kv_wait_ep_event(struct kv_ep *ep, int old, unsigned int ms);
int kv_send(struct kv_run *r, struct kv_ep *ep, enum ib_wr_opcode op, u64 wr_id,
	    struct ib_sge *sge, int nsge, int flags);
int kv_recv(struct kv_run *r, struct ib_qp *qp, u64 wr_id, struct ib_sge *sge,
	    int nsge);
int kv_rdma(struct kv_run *r, struct kv_ep *ep, enum ib_wr_opcode op, u64 wr_id,
	    struct ib_sge *sge, int nsge, u64 raddr, u32 rkey);
int kv_atomic(struct kv_run *r, struct kv_ep *ep, enum ib_wr_opcode op, u64 wr_id,
	      struct ib_sge *sge, u64 raddr, u32 rkey, u64 cmp_add, u64 swap);

/* kverbs_ud.c: a UD SEND through an AH; a UD QP on port 1 in a group; groups */
int kv_ud_send(struct kv_run *r, struct kv_ep *ep, struct ib_ah *ah,
	       u32 dqpn, u32 qkey, u64 wr_id, struct ib_sge *sge,
	       enum ib_wr_opcode op);
int kv_mc_member(struct kv_run *r, struct kv_ep *ep, u32 create_flags,
		 union ib_gid *mgid, u16 mlid);
void kv_mc_group(u8 n, union ib_gid *mgid, u16 *mlid);
int kv_ud_ep(struct kv_run *r, struct kv_ep *ep, u32 port, const struct kv_pair_opts *o);
struct ib_ah *kv_mc_ah(struct kv_run *r, const union ib_gid *mgid, u16 mlid, u32 port);

/*
 * A CQ of ib_core's CQ API (ib_alloc_cq()) and what the done() calls of
 * its work requests saw (kverbs_cq.c).
 */
struct kv_acq {
	struct kv_run		*r;
	struct ib_cq		*cq;
	enum ib_poll_context	ctx;
	struct task_struct	*direct_task;	/* IB_POLL_DIRECT: who polls */
	atomic_t		done;		/* done() calls */
	atomic_t		bad_ctx;	/* ... in the wrong context */
	char			bad_comm[TASK_COMM_LEN];	/* the first one's task */
	bool			bad_irq;	/* ... and whether in interrupt */
	atomic_t		bad_cq;		/* ... with the wrong cq or cq_context */
	atomic_t		inside;		/* ... running right now */
	atomic_t		nested;		/* ... two at once */
	bool			hold;		/* the first done() waits for release */
	bool			release;
	bool			held;		/* it saw release (within 2 s) */
	wait_queue_head_t	wq;
};

/* A work request's ib_cqe, and its completion as done() saw it. */
struct kv_acqe {
	struct ib_cqe		cqe;
	struct kv_acq		*acq;		/* the CQ it must complete on */
	int			calls;
	int			seq;		/* its place among the CQ's done() calls */
	enum ib_wc_status	status;
	enum ib_wc_opcode	opcode;
};

/*
 * Two RC QPs on CQs of ib_alloc_cq() (each QP's one CQ for sending and
 * receiving): a on port 1, b on port 2.  Connected to each other, or (dead
 * end) a sends to b kept in RESET, so a's sends wait for an answer that
 * never comes (for hours: the longest timeout) and its receives for a
 * SEND that never comes.
 */
struct kv_apair {
	struct kv_acq	qa;
	struct kv_acq	qb;
	struct kv_ep	a;
	struct kv_ep	b;
};

/* kverbs_cq.c: CQs of ib_alloc_cq() for the CQ and drain cases */
int kv_acq_alloc(struct kv_run *r, struct kv_acq *q, enum ib_poll_context ctx, int cqe);
void kv_acq_free(struct kv_acq *q);
int kv_acq_check(struct kv_acq *q, const char *what);
void kv_acqe_init(struct kv_acqe *e, struct kv_acq *q, int n);
int kv_acq_wait(struct kv_acq *q, int n, unsigned int ms);
int kv_apair_create(struct kv_run *r, struct kv_apair *p, enum ib_poll_context ca,
		    enum ib_poll_context cb, bool dead_end, struct ib_srq *srq_a);
int kv_apair_destroy(struct kv_run *r, struct kv_apair *p);
int kv_asend(struct kv_run *r, struct ib_qp *qp, struct kv_acqe *e, struct ib_sge *sge);
int kv_arecv(struct kv_run *r, struct ib_qp *qp, struct kv_acqe *e, struct ib_sge *sge);

/*
 * The one-card self-test: its run and the two buffers of its cases, and
 * the QP pairs of the cases that would otherwise hold them on the stack
 * (a pair's CQs have wait queues: under lockdep and KASAN two pairs and a
 * few work requests make a frame larger than the kernel's 2048 bytes).
 */
struct kv_self {
	struct kv_run	r;
	struct kv_buf	a;
	struct kv_buf	b;
	struct kv_pair	pair[2];
};

/* kverbs_self.c: the runner; stop is polled between the cases */
void kv_selftest(struct ib_device *dev, const bool *stop, unsigned int rounds);

/* The cases: 0 on success, else kv_fail()'s -EIO. */
int kv_case_query(struct kv_self *s);
int kv_case_ulp_helpers(struct kv_self *s);
/* kverbs_api.c */
int kv_case_port_caps(struct kv_self *s);
int kv_case_device_by_name(struct kv_self *s);
int kv_case_fw_str(struct kv_self *s);
int kv_case_pkey_find(struct kv_self *s);
int kv_case_gid_find(struct kv_self *s);
int kv_case_gid_attr(struct kv_self *s);
int kv_case_ndev_params(struct kv_self *s);

/* what kverbs' client last saw of ib_get_net_dev_by_params() (kverbs_main.c) */
#define KV_NDEV_PKEY	0x8123
struct kv_ndev_call {
	int		calls;
	u32		port;
	u16		pkey;
	union ib_gid	gid;
	sa_family_t	family;
	bool		data_ok;	/* its client data on the device */
};

extern struct kv_ndev_call kv_ndev_seen;
int kv_case_unsafe_rkey(struct kv_self *s);
int kv_case_pd_mr(struct kv_self *s);
int kv_case_cq(struct kv_self *s);
int kv_case_rc_connect(struct kv_self *s);
int kv_case_rc_send(struct kv_self *s);
int kv_case_rc_send_imm(struct kv_self *s);
int kv_case_rc_send_inline(struct kv_self *s);
int kv_case_rc_send_sge(struct kv_self *s);
int kv_case_rc_send_batch(struct kv_self *s);
int kv_case_rc_unsignaled(struct kv_self *s);
int kv_case_rc_write(struct kv_self *s);
int kv_case_rc_read(struct kv_self *s);
int kv_case_rc_atomic(struct kv_self *s);
int kv_case_uc(struct kv_self *s);
int kv_case_ud(struct kv_self *s);
int kv_case_mcast(struct kv_self *s);
int kv_case_srq(struct kv_self *s);
int kv_case_notify_next(struct kv_self *s);
int kv_case_notify_solicited(struct kv_self *s);
int kv_case_notify_missed(struct kv_self *s);
int kv_case_bad_lkey(struct kv_self *s);
int kv_case_rem_access(struct kv_self *s);
int kv_case_bad_modify(struct kv_self *s);
int kv_case_queue_full(struct kv_self *s);
int kv_case_sge_limit(struct kv_self *s);
int kv_case_pd_busy(struct kv_self *s);
int kv_case_irq_context(struct kv_self *s);
int kv_case_rc_wrap(struct kv_self *s);
int kv_case_cq_resize(struct kv_self *s);
int kv_case_cq_moderation(struct kv_self *s);
int kv_case_cq_clean(struct kv_self *s);
int kv_case_limits(struct kv_self *s);
int kv_case_rnr(struct kv_self *s);
int kv_case_retry_exc(struct kv_self *s);
int kv_case_comm_est(struct kv_self *s);
int kv_case_many(struct kv_self *s);
int kv_case_cq_overrun(struct kv_self *s);
int kv_case_ah_atomic(struct kv_self *s);
int kv_case_ah_query(struct kv_self *s);
int kv_case_ah_from_wc(struct kv_self *s);
int kv_case_wr_cqe(struct kv_self *s);
int kv_case_ud_grh(struct kv_self *s);
int kv_case_srq_wrap(struct kv_self *s);
int kv_case_mt_post(struct kv_self *s);
int kv_case_sqd(struct kv_self *s);
int kv_case_err_recover(struct kv_self *s);
int kv_case_access(struct kv_self *s);
int kv_case_big_mr(struct kv_self *s);
int kv_case_mcast_loopback(struct kv_self *s);
int kv_case_mcast_busy(struct kv_self *s);
int kv_case_srq_destroy_poll(struct kv_self *s);
int kv_case_inline_limit(struct kv_self *s);
int kv_case_cq_max(struct kv_self *s);
int kv_case_cq_resize_busy(struct kv_self *s);
int kv_case_frwr_rdma(struct kv_self *s);
int kv_case_frwr_local_inv(struct kv_self *s);
int kv_case_frwr_send_inv(struct kv_self *s);
int kv_case_frwr_map(struct kv_self *s);
int kv_case_frwr_caps(struct kv_self *s);
/* kverbs_mw.c */
int kv_case_mw_type1(struct kv_self *s);
int kv_case_mw_type2(struct kv_self *s);
int kv_case_mw_dealloc(struct kv_self *s);
int kv_case_mw_caps(struct kv_self *s);
/* kverbs_xrc.c */
int kv_case_xrc_domain(struct kv_self *s);
int kv_case_xrc_send(struct kv_self *s);
/* kverbs_restrack.c */
int kv_case_restrack(struct kv_self *s);
/* kverbs_offload.c: IPoIB's UD checksum and LSO offloads */
int kv_case_offload_caps(struct kv_self *s);
int kv_case_ud_csum(struct kv_self *s);
int kv_case_ud_lso(struct kv_self *s);
int kv_case_cq_poll_ctx(struct kv_self *s);
int kv_case_cq_flood(struct kv_self *s);
int kv_case_cq_direct(struct kv_self *s);
int kv_case_cq_pool(struct kv_self *s);
int kv_case_cq_free_busy(struct kv_self *s);
int kv_case_drain_qp(struct kv_self *s);
int kv_case_drain_srq(struct kv_self *s);
int kv_case_drain_direct(struct kv_self *s);
int kv_case_drain_idle(struct kv_self *s);

/* kverbs_drain.c: QPs with outstanding work, drained after a catastrophic error */
struct kv_drain_fix;
struct kv_drain_fix *kv_drain_fix_create(struct ib_device *dev, struct ib_pd *pd);
/* fatal: the device had a DEVICE_FATAL event; reports the catas-drain case */
void kv_drain_fix_destroy(struct kv_drain_fix *fix, bool fatal);

/*
 * kverbs_verbfix.c: a QP with receives outstanding on an armed CQ; the
 * verb run in the caller's task times out on a dead card (catas-timeout.sh)
 */
struct kv_verb_fix;
struct kv_verb_fix *kv_verb_fix_create(struct ib_device *dev);
int kv_verb_fix_run(struct kv_verb_fix *vf);
int kv_verb_fix_verdict(struct kv_verb_fix *vf, char *buf, size_t size);
void kv_verb_fix_destroy(struct kv_verb_fix *vf);

/* kverbs_unreg.c: a reference held across a device's unregistration */
void kv_unreg_init(struct dentry *root);
void kv_unreg_exit(void);

/* kverbs_peer.c: the two-node test, through debugfs */
struct kv_peer;
struct kv_peer *kv_peer_add(struct ib_device *dev, struct dentry *root);
void kv_peer_remove(struct kv_peer *peer, bool fatal);

#endif /* KVERBS_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: QPs for the tests - creation, the RESET->INIT->RTR->RTS
 * walk with the attributes each transport needs, connected pairs, and one
 * work request of each kind.
 */
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "kverbs.h"

#define KV_CQE		256
#define KV_RD_ATOMIC	4
#define KV_TIMEOUT	14	/* 4.096 us << 14: about 67 ms */
#define KV_PSN_A	0xabc123
#define KV_PSN_B	0x000777

static void kv_qp_event(struct ib_event *ev, void *ctx)
{
	struct kv_ep *ep = ctx;

	pr_info(KV_NAME ": QP 0x%x event %s\n",
		ev->element.qp ? ev->element.qp->qp_num : 0, ib_event_msg(ev->event));
	WRITE_ONCE(ep->last_event, ev->event);
	atomic_inc(&ep->events);
	wake_up(&ep->wq);
}

/* Wait (bounded) for an event on the endpoint's QP after old were seen. */
int kv_wait_ep_event(struct kv_ep *ep, int old, unsigned int ms)
{
	long left = wait_event_timeout(ep->wq, atomic_read(&ep->events) != old,
				       msecs_to_jiffies(ms));

	return left ? 0 : -ETIMEDOUT;
}

struct ib_qp *kv_qp_create(struct kv_run *r, struct kv_ep *ep, enum ib_qp_type type,
			   const struct kv_pair_opts *o, struct ib_srq *srq,
			   struct kv_cq *rcq)
{
	struct ib_qp_init_attr ia;
	struct ib_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.event_handler = kv_qp_event;
	ia.qp_context = ep;
	ia.send_cq = ep->scq.cq;
	ia.recv_cq = rcq ? rcq->cq : ep->rcq.cq;
	ia.srq = srq;
	ia.cap.max_send_wr = o && o->max_send_wr ? o->max_send_wr : 64;
	ia.cap.max_recv_wr = srq ? 0 : o && o->max_recv_wr ? o->max_recv_wr : 64;
	ia.cap.max_send_sge = o && o->max_send_sge ? o->max_send_sge : 4;
	ia.cap.max_recv_sge = srq ? 0 : o && o->max_recv_sge ? o->max_recv_sge : 4;
	ia.cap.max_inline_data = o ? o->max_inline : 0;
	ia.sq_sig_type = o ? o->sig : IB_SIGNAL_ALL_WR;
	ia.create_flags = o ? o->create_flags : 0;
	ia.qp_type = type;
	qp = ib_create_qp(r->pd, &ia);
	if (IS_ERR_OR_NULL(qp)) {
		kv_fail(r, "ib_create_qp(type %d) failed: %ld", type,
			qp ? PTR_ERR(qp) : -EINVAL);
		return NULL;
	}
	if (qp->qp_type != type || qp->pd != r->pd || qp->srq != srq ||
	    qp->send_cq != ia.send_cq || qp->recv_cq != ia.recv_cq) {
		kv_fail(r, "QP 0x%x fields do not match its creation", qp->qp_num);
		ib_destroy_qp(qp);
		return NULL;
	}
	if (ia.cap.max_send_wr < (o && o->max_send_wr ? o->max_send_wr : 64) ||
	    ia.cap.max_send_sge < (o && o->max_send_sge ? o->max_send_sge : 4) ||
	    (o && ia.cap.max_inline_data < o->max_inline)) {
		kv_fail(r, "QP 0x%x granted caps below the request (wr %u sge %u inline %u)",
			qp->qp_num, ia.cap.max_send_wr, ia.cap.max_send_sge,
			ia.cap.max_inline_data);
		ib_destroy_qp(qp);
		return NULL;
	}
	ep->cap = ia.cap;
	return qp;
}

int kv_qp_state(struct kv_run *r, struct ib_qp *qp, enum ib_qp_state *state)
{
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	ret = ib_query_qp(qp, &a, IB_QP_STATE, &ia);
	if (ret)
		return kv_fail(r, "ib_query_qp(0x%x) failed: %d", qp->qp_num, ret);
	*state = a.qp_state;
	return 0;
}

int kv_qp_init(struct kv_run *r, struct ib_qp *qp, enum ib_qp_type type, u32 port,
	       u32 qkey)
{
	struct ib_qp_attr a;
	int mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT, ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = port;
	if (type == IB_QPT_UD) {
		a.qkey = qkey;
		mask |= IB_QP_QKEY;
	} else {
		a.qp_access_flags = IB_ACCESS_REMOTE_WRITE;
		if (type == IB_QPT_RC)
			a.qp_access_flags |= IB_ACCESS_REMOTE_READ |
					     IB_ACCESS_REMOTE_ATOMIC;
		mask |= IB_QP_ACCESS_FLAGS;
	}
	ret = ib_modify_qp(qp, &a, mask);
	if (ret)
		return kv_fail(r, "QP 0x%x RESET->INIT failed: %d", qp->qp_num, ret);
	return 0;
}

/* INIT->RTR->RTS; dlid/dqpn/rq_psn only matter for RC and UC. */
int kv_qp_rtr_rts(struct kv_run *r, struct ib_qp *qp, enum ib_qp_type type,
		  u32 port, u16 dlid, u32 dqpn, u32 rq_psn, u32 sq_psn,
		  enum ib_mtu mtu)
{
	struct ib_qp_attr a;
	int mask = IB_QP_STATE, ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	if (type != IB_QPT_UD) {
		kv_ah_attr(r, &a.ah_attr, dlid, port);
		a.path_mtu = mtu;
		a.dest_qp_num = dqpn;
		a.rq_psn = rq_psn;
		mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN;
	}
	if (type == IB_QPT_RC) {
		a.max_dest_rd_atomic = KV_RD_ATOMIC;
		a.min_rnr_timer = 1;
		mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	}
	ret = ib_modify_qp(qp, &a, mask);
	if (ret)
		return kv_fail(r, "QP 0x%x INIT->RTR failed: %d", qp->qp_num, ret);

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = sq_psn;
	mask = IB_QP_STATE | IB_QP_SQ_PSN;
	if (type == IB_QPT_RC) {
		a.timeout = r->qp_timeout ? r->qp_timeout : KV_TIMEOUT;
		a.retry_cnt = 7;
		a.rnr_retry = r->rnr_retry;
		a.max_rd_atomic = KV_RD_ATOMIC;
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
	}
	ret = ib_modify_qp(qp, &a, mask);
	if (ret)
		return kv_fail(r, "QP 0x%x RTR->RTS failed: %d", qp->qp_num, ret);
	return 0;
}

int kv_ep_init(struct kv_run *r, struct kv_ep *ep, u32 port, int cqe)
{
	int ret;

	ep->r = r;
	ep->port = port;
	ep->last_event = -1;
	atomic_set(&ep->events, 0);
	init_waitqueue_head(&ep->wq);
	ret = kv_cq_create(r, &ep->scq, cqe ? cqe : KV_CQE);
	if (ret)
		return ret;
	ret = kv_cq_create(r, &ep->rcq, cqe ? cqe : KV_CQE);
	if (ret) {
		kv_cq_destroy(&ep->scq);
		return ret;
	}
	return 0;
}

int kv_ep_destroy(struct kv_run *r, struct kv_ep *ep)
{
	int ret = 0, err;

	if (ep->qp) {
		err = ib_destroy_qp(ep->qp);
		if (err) {
			ret = kv_fail(r, "ib_destroy_qp(0x%x) failed: %d",
				      ep->qp->qp_num, err);
			return ret;	/* its CQs stay in use */
		}
		ep->qp = NULL;
	}
	if (kv_cq_destroy(&ep->rcq))
		ret = -EIO;
	if (kv_cq_destroy(&ep->scq))
		ret = -EIO;
	return ret;
}

/*
 * Two QPs of one type, a on port 1 and b on port 2 of the same card,
 * connected to each other (RC/UC) or ready to send (UD), unless
 * o->no_connect.  On failure everything created is destroyed again.
 */
int kv_pair_create(struct kv_run *r, struct kv_pair *p, enum ib_qp_type type,
		   const struct kv_pair_opts *o)
{
	enum ib_mtu mtu = min(r->mtu[1], r->mtu[2]);
	u32 qkey = 0x11111111;
	int ret;

	memset(p, 0, sizeof(*p));
	p->type = type;
	ret = kv_ep_init(r, &p->a, 1, o ? o->cqe : 0);
	if (ret)
		return ret;
	ret = kv_ep_init(r, &p->b, 2, o ? o->cqe : 0);
	if (ret)
		goto err_a;
	p->a.psn = KV_PSN_A;
	p->b.psn = KV_PSN_B;
	p->a.qp = kv_qp_create(r, &p->a, type, o, NULL, NULL);
	if (!p->a.qp) {
		ret = -EIO;
		goto err_b;
	}
	p->b.qp = kv_qp_create(r, &p->b, type, o, o ? o->srq_b : NULL,
			       o ? o->rcq_b : NULL);
	if (!p->b.qp) {
		ret = -EIO;
		goto err_b;
	}
	if (o && o->no_connect)
		return 0;
	ret = kv_qp_init(r, p->a.qp, type, 1, qkey);
	if (ret)
		goto err_b;
	ret = kv_qp_init(r, p->b.qp, type, 2, qkey);
	if (ret)
		goto err_b;
	r->rnr_retry = o && o->rnr_retry_set ? o->rnr_retry : 7;
	ret = kv_qp_rtr_rts(r, p->a.qp, type, 1, r->lid[2], p->b.qp->qp_num,
			    p->b.psn, p->a.psn, mtu);
	r->rnr_retry = 7;
	if (ret)
		goto err_b;
	ret = kv_qp_rtr_rts(r, p->b.qp, type, 2, r->lid[1], p->a.qp->qp_num,
			    p->a.psn, p->b.psn, mtu);
	if (ret)
		goto err_b;
	return 0;

err_b:
	kv_ep_destroy(r, &p->b);
err_a:
	kv_ep_destroy(r, &p->a);
	return ret;
}

int kv_pair_destroy(struct kv_run *r, struct kv_pair *p)
{
	int ret = 0;

	if (kv_ep_destroy(r, &p->b))
		ret = -EIO;
	if (kv_ep_destroy(r, &p->a))
		ret = -EIO;
	return ret;
}

/* ---------------------------------------------------------------------- */
/* One work request */

int kv_send(struct kv_run *r, struct kv_ep *ep, enum ib_wr_opcode op, u64 wr_id,
	    struct ib_sge *sge, int nsge, int flags)
{
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr wr;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sge;
	wr.num_sge = nsge;
	wr.opcode = op;
	wr.send_flags = flags | IB_SEND_SIGNALED;
	if (op == IB_WR_SEND_WITH_IMM || op == IB_WR_RDMA_WRITE_WITH_IMM)
		wr.ex.imm_data = cpu_to_be32(0x1234abcd ^ (u32)wr_id);
	ret = kv_post_send(r, ep->qp, &wr, &bad);
	if (ret)
		return kv_fail(r, "ib_post_send(opcode %d, %d SGEs) failed: %d",
			       op, nsge, ret);
	return 0;
}

int kv_recv(struct kv_run *r, struct ib_qp *qp, u64 wr_id, struct ib_sge *sge,
	    int nsge)
{
	const struct ib_recv_wr *bad = NULL;
	struct ib_recv_wr wr;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sge;
	wr.num_sge = nsge;
	ret = kv_post_recv(r, qp, &wr, &bad);
	if (ret)
		return kv_fail(r, "ib_post_recv(%d SGEs) failed: %d", nsge, ret);
	return 0;
}

int kv_rdma(struct kv_run *r, struct kv_ep *ep, enum ib_wr_opcode op, u64 wr_id,
	    struct ib_sge *sge, int nsge, u64 raddr, u32 rkey)
{
	const struct ib_send_wr *bad = NULL;
	struct ib_rdma_wr wr;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr.wr_id = wr_id;
	wr.wr.sg_list = sge;
	wr.wr.num_sge = nsge;
	wr.wr.opcode = op;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	if (op == IB_WR_RDMA_WRITE_WITH_IMM)
		wr.wr.ex.imm_data = cpu_to_be32(0x1234abcd ^ (u32)wr_id);
	wr.remote_addr = raddr;
	wr.rkey = rkey;
	ret = kv_post_send(r, ep->qp, &wr.wr, &bad);
	if (ret)
		return kv_fail(r, "ib_post_send(RDMA opcode %d) failed: %d", op, ret);
	return 0;
}

int kv_atomic(struct kv_run *r, struct kv_ep *ep, enum ib_wr_opcode op, u64 wr_id,
	      struct ib_sge *sge, u64 raddr, u32 rkey, u64 cmp_add, u64 swap)
{
	const struct ib_send_wr *bad = NULL;
	struct ib_atomic_wr wr;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr.wr_id = wr_id;
	wr.wr.sg_list = sge;
	wr.wr.num_sge = 1;
	wr.wr.opcode = op;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.remote_addr = raddr;
	wr.rkey = rkey;
	wr.compare_add = cmp_add;
	wr.swap = swap;
	ret = kv_post_send(r, ep->qp, &wr.wr, &bad);
	if (ret)
		return kv_fail(r, "ib_post_send(atomic opcode %d) failed: %d", op, ret);
	return 0;
}

/*
 * A signaled SEND with Invalidate of rkey from p's a to b (one gather
 * entry ss), its completion and its receive's (recv_id, into *wc).
 */
int kv_send_inv(struct kv_run *r, struct kv_pair *p, struct ib_sge *ss, u32 rkey,
		u64 send_id, u64 recv_id, struct ib_wc *wc)
{
	const struct ib_send_wr *bad;
	struct ib_send_wr wr;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = send_id;
	wr.opcode = IB_WR_SEND_WITH_INV;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.sg_list = ss;
	wr.num_sge = 1;
	wr.ex.invalidate_rkey = rkey;
	ret = kv_post_send(r, p->a.qp, &wr, &bad);
	if (ret)
		return kv_fail(r, "ib_post_send(SEND_WITH_INV 0x%x) failed: %d", rkey, ret);
	ret = kv_expect(r, &p->a.scq, "SEND_WITH_INV", send_id, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	return ret ?: kv_expect(r, &p->b.rcq, "its receive", recv_id, IB_WC_SUCCESS, IB_WC_RECV,
				wc);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: XRC as a kernel consumer uses it (Linux 6.1's
 * ib_alloc_xrcd_user, XRC SRQs, XRC_INI/XRC_TGT QPs, ib_open_qp and
 * ib_close_qp), with the send WQE's remote SRQ number from <ibstack/ext.h>.
 * The initiator is on port 1, the target on port 2.
 */
#include <linux/kernel.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/wait.h>

#include <ibstack/ext.h>

#include "kverbs.h"

/* What one handle of a target QP saw */
struct kv_xh {
	atomic_t		events;
	int			last_event;
	struct ib_qp		*last_qp;	/* the handle the event named */
	wait_queue_head_t	wq;
};

static void kv_xh_event(struct ib_event *ev, void *ctx)
{
	struct kv_xh *h = ctx;

	WRITE_ONCE(h->last_event, ev->event);
	WRITE_ONCE(h->last_qp, ev->element.qp);
	atomic_inc(&h->events);
	wake_up(&h->wq);
}

static void kv_xh_init(struct kv_xh *h)
{
	atomic_set(&h->events, 0);
	h->last_event = -1;
	h->last_qp = NULL;
	init_waitqueue_head(&h->wq);
}

static int kv_xh_wait(struct kv_xh *h, int old)
{
	return wait_event_timeout(h->wq, atomic_read(&h->events) != old,
				  msecs_to_jiffies(KV_WAIT_MS)) ? 0 : -ETIMEDOUT;
}

static struct ib_xrcd *kv_xrcd_alloc(struct kv_run *r)
{
	struct ib_xrcd *xrcd;

	if (!(r->dev->attrs.device_cap_flags & IB_DEVICE_XRC)) {
		kv_fail(r, "IB_DEVICE_XRC not advertised (flags 0x%llx)",
			(unsigned long long)r->dev->attrs.device_cap_flags);
		return NULL;
	}
	xrcd = ib_alloc_xrcd_user(r->dev, NULL, NULL);
	if (IS_ERR_OR_NULL(xrcd)) {
		kv_fail(r, "ib_alloc_xrcd_user failed: %ld", xrcd ? PTR_ERR(xrcd) : -EINVAL);
		return NULL;
	}
	if (xrcd->device != r->dev || atomic_read(&xrcd->usecnt)) {
		kv_fail(r, "new XRC domain: device %p, usecnt %d", xrcd->device,
			atomic_read(&xrcd->usecnt));
		ib_dealloc_xrcd_user(xrcd, NULL);
		return NULL;
	}
	return xrcd;
}

static struct ib_srq *kv_xsrq_create(struct kv_run *r, struct ib_xrcd *xrcd,
				     struct kv_cq *kc)
{
	struct ib_srq_init_attr ia = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.srq_type = IB_SRQT_XRC,
	};
	struct ib_srq *srq;

	ia.ext.cq = kc->cq;
	ia.ext.xrc.xrcd = xrcd;
	srq = ib_create_srq(r->pd, &ia);
	if (IS_ERR_OR_NULL(srq)) {
		kv_fail(r, "ib_create_srq(XRC) failed: %ld", srq ? PTR_ERR(srq) : -EINVAL);
		return NULL;
	}
	if (srq->srq_type != IB_SRQT_XRC || srq->ext.cq != kc->cq ||
	    srq->ext.xrc.xrcd != xrcd || !srq->ext.xrc.srq_num) {
		kv_fail(r, "XRC SRQ: type %d, cq %p, xrcd %p, srq_num 0x%x", srq->srq_type,
			srq->ext.cq, srq->ext.xrc.xrcd, srq->ext.xrc.srq_num);
		ib_destroy_srq(srq);
		return NULL;
	}
	return srq;
}

/* Domain and XRC SRQ lifecycle, and the refusals while in use */
int kv_case_xrc_domain(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_xrcd *xrcd;
	struct ib_srq *srq;
	struct kv_cq kc;
	int ret;

	xrcd = kv_xrcd_alloc(r);
	if (!xrcd)
		return -EIO;
	ret = kv_cq_create(r, &kc, 16);
	if (ret)
		goto out_xrcd;
	srq = kv_xsrq_create(r, xrcd, &kc);
	if (!srq) {
		ret = -EIO;
		goto out_cq;
	}
	if (atomic_read(&xrcd->usecnt) != 1 || atomic_read(&kc.cq->usecnt) != 1)
		ret = kv_fail(r, "with an XRC SRQ: domain usecnt %d, CQ usecnt %d",
			      atomic_read(&xrcd->usecnt), atomic_read(&kc.cq->usecnt));
	else if (ib_dealloc_xrcd_user(xrcd, NULL) != -EBUSY)
		ret = kv_fail(r, "ib_dealloc_xrcd_user of a domain with an SRQ: not -EBUSY");
	ib_destroy_srq(srq);
	if (!ret && (atomic_read(&xrcd->usecnt) || atomic_read(&kc.cq->usecnt)))
		ret = kv_fail(r, "after the SRQ: domain usecnt %d, CQ usecnt %d",
			      atomic_read(&xrcd->usecnt), atomic_read(&kc.cq->usecnt));
out_cq:
	kv_cq_destroy(&kc);
out_xrcd:
	if (ib_dealloc_xrcd_user(xrcd, NULL))
		ret = kv_fail(r, "ib_dealloc_xrcd_user of an unused domain failed");
	return ret;
}

/* RESET->INIT->RTR(->RTS) of an XRC QP */
static int kv_xqp_connect(struct kv_run *r, struct ib_qp *qp, u32 port, u32 dport,
			  u32 dqpn, bool rts)
{
	bool tgt = qp->qp_type == IB_QPT_XRC_TGT;
	struct ib_qp_attr a;
	int mask, ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_INIT;
	a.port_num = port;
	a.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			   IB_QP_ACCESS_FLAGS);
	if (ret)
		return kv_fail(r, "XRC QP 0x%x RESET->INIT: %d", qp->qp_num, ret);

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	kv_ah_attr(r, &a.ah_attr, r->lid[dport], port);
	a.path_mtu = r->mtu[port];
	a.dest_qp_num = dqpn;
	a.rq_psn = 100;
	mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN;
	if (tgt) {
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	}
	ret = ib_modify_qp(qp, &a, mask);
	if (ret)
		return kv_fail(r, "XRC QP 0x%x INIT->RTR: %d", qp->qp_num, ret);
	if (!rts)
		return 0;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 100;
	a.timeout = 14;
	mask = IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT;
	if (!tgt) {
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC;
	}
	ret = ib_modify_qp(qp, &a, mask);
	if (ret)
		return kv_fail(r, "XRC QP 0x%x RTR->RTS: %d", qp->qp_num, ret);
	return 0;
}

/* One XRC send from the initiator to the target, naming srqn */
static int kv_xsend(struct kv_run *r, struct ib_qp *ini, enum ib_wr_opcode op, u64 wr_id,
		    struct ib_sge *sge, u32 srqn, u64 raddr, u32 rkey)
{
	struct ibstack_xrc_wr x;
	const struct ib_send_wr *bad;

	memset(&x, 0, sizeof(x));
	x.wr.wr.wr_id = wr_id;
	x.wr.wr.opcode = op;
	x.wr.wr.sg_list = sge;
	x.wr.wr.num_sge = 1;
	x.wr.wr.send_flags = IB_SEND_SIGNALED;
	x.wr.wr.ex.imm_data = cpu_to_be32(0x1234abcd);
	x.wr.remote_addr = raddr;
	x.wr.rkey = rkey;
	x.remote_srqn = srqn;
	return kv_post_send(r, ini, &x.wr.wr, &bad);
}

static int kv_xrecv(struct kv_run *r, struct ib_srq *srq, u64 wr_id, struct ib_sge *sge)
{
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;

	return kv_post_srq_recv(r, srq, &wr, &bad);
}

/*
 * The data path and the shared target: TGT QP (port 2) created and opened
 * a second time; its first request's COMM_EST reaches both handles; SEND
 * and RDMA WRITE with immediate from the INI QP (port 1) complete on the
 * XRC SRQ's CQ with the data; one handle closed; a send naming an SRQ
 * number that is not the domain's fails at the requester (the responder
 * NAKs it: remote access error); the QP goes with its last handle.
 */
int kv_case_xrc_send(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_qp_open_attr oa = { .qp_type = IB_QPT_XRC_TGT };
	struct ib_qp_init_attr ia;
	struct ib_qp_attr qa;
	struct kv_xh h1, h2;
	struct ib_qp *tgt = NULL, *tgt2 = NULL, *ini = NULL;
	struct ib_xrcd *xrcd;
	struct ib_srq *srq = NULL;
	struct kv_cq xcq, icq;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	int ret, old1, old2;

	xrcd = kv_xrcd_alloc(r);
	if (!xrcd)
		return -EIO;
	kv_xh_init(&h1);
	kv_xh_init(&h2);
	ret = kv_cq_create(r, &xcq, 16);
	if (ret)
		goto out_xrcd;
	ret = kv_cq_create(r, &icq, 16);
	if (ret)
		goto out_xcq;
	srq = kv_xsrq_create(r, xrcd, &xcq);
	if (!srq) {
		ret = -EIO;
		goto out_icq;
	}

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IB_QPT_XRC_TGT;
	ia.xrcd = xrcd;
	ia.event_handler = kv_xh_event;
	ia.qp_context = &h1;
	tgt = ib_create_qp(r->pd, &ia);
	if (IS_ERR_OR_NULL(tgt)) {
		ret = kv_fail(r, "ib_create_qp(XRC_TGT) failed: %ld", tgt ? PTR_ERR(tgt) : 0);
		tgt = NULL;
		goto out_srq;
	}
	oa.qp_num = tgt->qp_num;
	oa.event_handler = kv_xh_event;
	oa.qp_context = &h2;
	tgt2 = ib_open_qp(xrcd, &oa);
	if (IS_ERR_OR_NULL(tgt2)) {
		ret = kv_fail(r, "ib_open_qp(0x%x) failed: %ld", tgt->qp_num,
			      tgt2 ? PTR_ERR(tgt2) : 0);
		tgt2 = NULL;
		goto out_qps;
	}
	if (tgt2 == tgt || tgt2->qp_num != tgt->qp_num || tgt2->real_qp != tgt->real_qp ||
	    atomic_read(&xrcd->usecnt) != 2) {
		ret = kv_fail(r, "opened handle: qp_num 0x%x/0x%x, real %p/%p, domain usecnt %d",
			      tgt2->qp_num, tgt->qp_num, tgt2->real_qp, tgt->real_qp,
			      atomic_read(&xrcd->usecnt));
		goto out_qps;
	}
	if (ib_close_qp(tgt->real_qp) != -EINVAL) {
		ret = kv_fail(r, "ib_close_qp of the QP itself: not -EINVAL");
		goto out_qps;
	}
	oa.qp_num = tgt->qp_num ^ 1;
	if (!IS_ERR(ib_open_qp(xrcd, &oa))) {
		ret = kv_fail(r, "ib_open_qp of a number the domain has not: no error");
		goto out_qps;
	}

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IB_QPT_XRC_INI;
	ia.send_cq = icq.cq;
	ia.cap.max_send_wr = 8;
	ia.cap.max_send_sge = 1;
	ia.sq_sig_type = IB_SIGNAL_REQ_WR;
	ini = ib_create_qp(r->pd, &ia);
	if (IS_ERR_OR_NULL(ini)) {
		ret = kv_fail(r, "ib_create_qp(XRC_INI) failed: %ld", ini ? PTR_ERR(ini) : 0);
		ini = NULL;
		goto out_qps;
	}
	ret = kv_xqp_connect(r, ini, 1, 2, tgt->qp_num, true);
	ret = ret ?: kv_xqp_connect(r, tgt2, 2, 1, ini->qp_num, false);
	if (ret)
		goto out_qps;

	/* SEND: 3000 bytes of a to b, received through the XRC SRQ */
	kv_buf_cpu(&s->a);
	kv_fill(&s->a, 0, 3000, 71);
	kv_fill(&s->a, SZ_8K, 1000, 72);
	kv_buf_dev(&s->a);
	kv_buf_cpu(&s->b);
	memset(s->b.cpu, 0, SZ_16K);
	kv_buf_dev(&s->b);
	rs = kv_sge_mr(&s->b, 0, 4096);
	ss = kv_sge_mr(&s->a, 0, 3000);
	old1 = atomic_read(&h1.events);
	old2 = atomic_read(&h2.events);
	ret = kv_xrecv(r, srq, 11, &rs);
	ret = ret ?: kv_xsend(r, ini, IB_WR_SEND, 1, &ss, srq->ext.xrc.srq_num, 0, 0);
	ret = ret ?: kv_expect(r, &icq, "XRC SEND", 1, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &xcq, "XRC SEND's receive", 11, IB_WC_SUCCESS,
			       IB_WC_RECV, &wc);
	if (ret)
		goto out_qps;
	if (wc.byte_len != 3000 || wc.qp->qp_num != tgt->qp_num) {
		ret = kv_fail(r, "XRC receive: %u bytes, QP 0x%x (want 3000, 0x%x)",
			      wc.byte_len, wc.qp->qp_num, tgt->qp_num);
		goto out_qps;
	}
	kv_buf_cpu(&s->b);
	ret = kv_check_fill(r, &s->b, 0, 3000, 71, "XRC SEND's data");
	kv_buf_dev(&s->b);
	if (ret)
		goto out_qps;
	/* the target's first request: COMM_EST, to each handle as its own */
	if (kv_xh_wait(&h1, old1) || kv_xh_wait(&h2, old2) ||
	    h1.last_event != IB_EVENT_COMM_EST || h2.last_event != IB_EVENT_COMM_EST ||
	    h1.last_qp != tgt || h2.last_qp != tgt2) {
		ret = kv_fail(r, "COMM_EST on the target: handles saw %d (%d, %p) and %d (%d, %p)",
			      atomic_read(&h1.events), h1.last_event, h1.last_qp,
			      atomic_read(&h2.events), h2.last_event, h2.last_qp);
		goto out_qps;
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IB_QPS_RTS;
	qa.sq_psn = 100;
	qa.timeout = 14;
	ret = ib_modify_qp(tgt, &qa, IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT);
	if (ret) {
		ret = kv_fail(r, "XRC_TGT RTR->RTS through the creator's handle: %d", ret);
		goto out_qps;
	}

	/* RDMA WRITE with immediate: the data lands, the immediate through the SRQ */
	ss = kv_sge_mr(&s->a, SZ_8K, 1000);
	ret = kv_xrecv(r, srq, 12, &rs);
	ret = ret ?: kv_xsend(r, ini, IB_WR_RDMA_WRITE_WITH_IMM, 2, &ss, srq->ext.xrc.srq_num,
			      s->b.iova + SZ_8K, s->b.mr->rkey);
	ret = ret ?: kv_expect(r, &icq, "XRC RDMA WRITE with immediate", 2, IB_WC_SUCCESS,
			       IB_WC_RDMA_WRITE, NULL);
	ret = ret ?: kv_expect(r, &xcq, "XRC WRITE's immediate", 12, IB_WC_SUCCESS,
			       IB_WC_RECV_RDMA_WITH_IMM, &wc);
	if (ret)
		goto out_qps;
	if (!(wc.wc_flags & IB_WC_WITH_IMM) || wc.ex.imm_data != cpu_to_be32(0x1234abcd)) {
		ret = kv_fail(r, "XRC WRITE's immediate: flags 0x%x, imm 0x%x", wc.wc_flags,
			      be32_to_cpu(wc.ex.imm_data));
		goto out_qps;
	}
	kv_buf_cpu(&s->b);
	ret = kv_check_fill(r, &s->b, SZ_8K, 1000, 72, "XRC WRITE's data");
	kv_buf_dev(&s->b);
	if (ret)
		goto out_qps;

	/* one handle closed: the QP stays */
	if (ib_close_qp(tgt2)) {
		tgt2 = NULL;
		ret = kv_fail(r, "ib_close_qp of the opened handle failed");
		goto out_qps;
	}
	tgt2 = NULL;

	/* a wrong SRQ number: the responder NAKs it */
	ss = kv_sge_mr(&s->a, 0, 100);
	ret = kv_xsend(r, ini, IB_WR_SEND, 3, &ss, srq->ext.xrc.srq_num ^ 0x40, 0, 0);
	ret = ret ?: kv_expect(r, &icq, "XRC SEND to a wrong SRQ", 3, IB_WC_REM_ACCESS_ERR,
			       -1, NULL);

out_qps:
	if (ini && ib_destroy_qp(ini))
		ret = kv_fail(r, "destroying the XRC_INI QP failed");
	if (tgt2 && ib_close_qp(tgt2))
		ret = kv_fail(r, "ib_close_qp failed");
	if (tgt) {
		if (ib_destroy_qp(tgt))
			ret = kv_fail(r, "destroying the last XRC_TGT handle failed");
		else if (atomic_read(&xrcd->usecnt) != 1)
			ret = kv_fail(r, "after the target QP: domain usecnt %d",
				      atomic_read(&xrcd->usecnt));
	}
out_srq:
	ib_destroy_srq(srq);
out_icq:
	kv_cq_destroy(&icq);
out_xcq:
	kv_cq_destroy(&xcq);
out_xrcd:
	if (ib_dealloc_xrcd_user(xrcd, NULL))
		ret = kv_fail(r, "ib_dealloc_xrcd_user after the case failed");
	return ret;
}

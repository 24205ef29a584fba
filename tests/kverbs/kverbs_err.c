// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: completion notification and the error paths - solicited
 * and next-completion arming, missed events, error completions and flushes,
 * refused QP transitions, full queues, SGE limits, busy PDs and CQs, and
 * the data path called with interrupts disabled.
 */
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kverbs.h"

/* Wait (bounded, sleeping) until a CQE is there without taking it. */
static int kv_wait_cqe_polled(struct kv_run *r, struct kv_cq *kc,
			      struct ib_wc *wc, unsigned int ms)
{
	unsigned int waited;
	int ret;

	for (waited = 0; waited <= ms; waited += 20) {
		ret = kv_poll(r, kc, 1, wc);
		if (ret)
			return ret < 0 ? ret : 0;
		msleep(20);
	}
	return -ETIMEDOUT;
}

/* IB_CQ_NEXT_COMP: one call per arming, none without one. */
int kv_case_notify_next(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	struct kv_pair p;
	int ret, calls, err;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	ss = kv_sge_dma(r, &s->a, 0, 32);
	rs = kv_sge_mr(&s->b, 0, 64);
	ret = kv_recv(r, p.b.qp, 1, &rs, 1);
	ret = ret ?: kv_recv(r, p.b.qp, 2, &rs, 1);
	if (ret)
		goto out;
	calls = atomic_read(&p.b.rcq.calls);
	err = kv_notify(r, &p.b.rcq, IB_CQ_NEXT_COMP);
	if (err) {
		ret = kv_fail(r, "ib_req_notify_cq(NEXT_COMP) returned %d", err);
		goto out;
	}
	ret = kv_send(r, &p.a, IB_WR_SEND, 3, &ss, 1, 0);
	if (ret)
		goto out;
	if (kv_wait_calls(&p.b.rcq, calls, KV_WAIT_MS)) {
		ret = kv_fail(r, "armed CQ: no handler call within %d ms", KV_WAIT_MS);
		goto out;
	}
	msleep(50);
	if (atomic_read(&p.b.rcq.calls) != calls + 1) {
		ret = kv_fail(r, "one completion: handler called %d times",
			      atomic_read(&p.b.rcq.calls) - calls);
		goto out;
	}
	if (kv_poll(r, &p.b.rcq, 1, &wc) != 1 || wc.wr_id != 1) {
		ret = kv_fail(r, "the completion that fired the handler is not there");
		goto out;
	}
	/* not re-armed: the next completion calls nothing */
	ret = kv_send(r, &p.a, IB_WR_SEND, 4, &ss, 1, 0);
	if (ret)
		goto out;
	if (kv_wait_cqe_polled(r, &p.b.rcq, &wc, KV_WAIT_MS)) {
		ret = kv_fail(r, "second completion did not come");
		goto out;
	}
	msleep(50);
	if (atomic_read(&p.b.rcq.calls) != calls + 1)
		ret = kv_fail(r, "handler called without the CQ armed");
	ret = ret ?: kv_expect(r, &p.a.scq, "send 1", 3, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.a.scq, "send 2", 4, IB_WC_SUCCESS, IB_WC_SEND, NULL);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/*
 * IB_CQ_SOLICITED: an unsolicited receive completion does not call the
 * handler, the solicited one after it does, once.
 */
int kv_case_notify_solicited(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_sge ss, rs;
	struct ib_wc wc[2];
	struct kv_pair p;
	int ret, calls, err;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	ss = kv_sge_dma(r, &s->a, 0, 32);
	rs = kv_sge_mr(&s->b, 0, 64);
	ret = kv_recv(r, p.b.qp, 1, &rs, 1);
	ret = ret ?: kv_recv(r, p.b.qp, 2, &rs, 1);
	if (ret)
		goto out;
	calls = atomic_read(&p.b.rcq.calls);
	err = kv_notify(r, &p.b.rcq, IB_CQ_SOLICITED);
	if (err) {
		ret = kv_fail(r, "ib_req_notify_cq(SOLICITED) returned %d", err);
		goto out;
	}
	ret = kv_send(r, &p.a, IB_WR_SEND, 3, &ss, 1, 0);
	/* RC: the send completes after the receiver has taken the message */
	ret = ret ?: kv_expect(r, &p.a.scq, "unsolicited send", 3, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
	if (ret)
		goto out;
	msleep(KV_QUIET_MS);
	if (atomic_read(&p.b.rcq.calls) != calls) {
		ret = kv_fail(r, "handler called for an unsolicited completion");
		goto out;
	}
	ret = kv_send(r, &p.a, IB_WR_SEND, 4, &ss, 1, IB_SEND_SOLICITED);
	if (ret)
		goto out;
	if (kv_wait_calls(&p.b.rcq, calls, KV_WAIT_MS)) {
		ret = kv_fail(r, "no handler call for the solicited completion");
		goto out;
	}
	msleep(50);
	if (atomic_read(&p.b.rcq.calls) != calls + 1) {
		ret = kv_fail(r, "handler called %d times", atomic_read(&p.b.rcq.calls) - calls);
		goto out;
	}
	if (kv_poll(r, &p.b.rcq, 2, wc) != 2 || wc[0].wr_id != 1 || wc[1].wr_id != 2) {
		ret = kv_fail(r, "the two receive completions are not both there");
		goto out;
	}
	ret = kv_expect(r, &p.a.scq, "solicited send", 4, IB_WC_SUCCESS, IB_WC_SEND, NULL);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/* IB_CQ_REPORT_MISSED_EVENTS: 0 on an empty CQ, positive with a CQE left. */
int kv_case_notify_missed(struct kv_self *s)
{
	enum ib_cq_notify_flags f = IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS;
	struct kv_run *r = &s->r;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	struct kv_pair p;
	int ret, calls, err;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	ss = kv_sge_dma(r, &s->a, 0, 32);
	rs = kv_sge_mr(&s->b, 0, 64);
	ret = kv_recv(r, p.b.qp, 1, &rs, 1);
	if (ret)
		goto out;
	calls = atomic_read(&p.b.rcq.calls);
	err = kv_notify(r, &p.b.rcq, f);
	if (err) {
		ret = kv_fail(r, "empty CQ: REPORT_MISSED_EVENTS returned %d, want 0", err);
		goto out;
	}
	ret = kv_send(r, &p.a, IB_WR_SEND, 2, &ss, 1, 0);
	if (ret)
		goto out;
	if (kv_wait_calls(&p.b.rcq, calls, KV_WAIT_MS)) {
		ret = kv_fail(r, "no handler call within %d ms", KV_WAIT_MS);
		goto out;
	}
	err = kv_notify(r, &p.b.rcq, f);
	if (err <= 0) {
		ret = kv_fail(r, "CQE not polled: REPORT_MISSED_EVENTS returned %d, want > 0",
			      err);
		goto out;
	}
	if (kv_poll(r, &p.b.rcq, 1, &wc) != 1 || wc.wr_id != 1 ||
	    wc.status != IB_WC_SUCCESS) {
		ret = kv_fail(r, "the receive completion is not there");
		goto out;
	}
	err = kv_notify(r, &p.b.rcq, f);
	if (err)
		ret = kv_fail(r, "drained CQ: REPORT_MISSED_EVENTS returned %d, want 0", err);
	ret = ret ?: kv_expect(r, &p.a.scq, "send", 2, IB_WC_SUCCESS, IB_WC_SEND, NULL);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/*
 * A bad lkey: a local protection error completion, the QP in ERR, the
 * other posted work requests (and one posted afterwards) flushed.
 */
int kv_case_bad_lkey(struct kv_self *s)
{
	const struct ib_send_wr *bad = NULL;
	struct kv_run *r = &s->r;
	struct ib_send_wr wr[3];
	struct ib_sge ss[3], rs;
	enum ib_qp_state st;
	struct kv_pair p;
	int ret, i;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	rs = kv_sge_mr(&s->b, 0, 4096);
	for (i = 0; i < 3 && !ret; i++)
		ret = kv_recv(r, p.b.qp, 10 + i, &rs, 1);
	rs = kv_sge_mr(&s->a, 8192, 64);
	ret = ret ?: kv_recv(r, p.a.qp, 20, &rs, 1);
	if (ret)
		goto out;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		ss[i] = kv_sge_dma(r, &s->a, 0, 64);
		wr[i].wr_id = 1 + i;
		wr[i].sg_list = &ss[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IB_WR_SEND;
		wr[i].send_flags = IB_SEND_SIGNALED;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	ss[0].lkey = s->a.mr->lkey ^ 0x7fff00;	/* no such MR */
	ret = kv_post_send(r, p.a.qp, wr, &bad);
	if (ret) {
		kv_fail(r, "ib_post_send failed: %d (a bad lkey is found by the card)", ret);
		goto out;
	}
	ret = kv_expect(r, &p.a.scq, "bad lkey", 1, IB_WC_LOC_PROT_ERR, -1, NULL);
	ret = ret ?: kv_expect(r, &p.a.scq, "2nd send", 2, IB_WC_WR_FLUSH_ERR, -1, NULL);
	ret = ret ?: kv_expect(r, &p.a.scq, "3rd send", 3, IB_WC_WR_FLUSH_ERR, -1, NULL);
	ret = ret ?: kv_expect(r, &p.a.rcq, "posted recv", 20, IB_WC_WR_FLUSH_ERR, -1,
			       NULL);
	ret = ret ?: kv_qp_state(r, p.a.qp, &st);
	if (ret)
		goto out;
	if (st != IB_QPS_ERR) {
		ret = kv_fail(r, "QP state %d after the error, want ERR", st);
		goto out;
	}
	/* posting to a QP in ERR works and flushes */
	ret = kv_send(r, &p.a, IB_WR_SEND, 4, &ss[1], 1, 0);
	ret = ret ?: kv_expect(r, &p.a.scq, "send posted in ERR", 4,
			       IB_WC_WR_FLUSH_ERR, -1, NULL);
	ret = ret ?: kv_recv(r, p.a.qp, 21, &rs, 1);
	ret = ret ?: kv_expect(r, &p.a.rcq, "recv posted in ERR", 21,
			       IB_WC_WR_FLUSH_ERR, -1, NULL);
	/* b saw nothing */
	ret = ret ?: kv_expect_quiet(r, &p.b.rcq, "the peer of the failed QP", 50);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/*
 * A bad rkey: the requester gets REM_ACCESS_ERR, the responder QP an
 * access error event; both end in ERR.
 */
int kv_case_rem_access(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	enum ib_qp_state st;
	struct ib_sge ss;
	struct kv_pair p;
	int ret, ev;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	ev = atomic_read(&p.b.events);
	ss = kv_sge_dma(r, &s->a, 0, 256);
	ret = kv_rdma(r, &p.a, IB_WR_RDMA_WRITE, 1, &ss, 1, s->b.iova,
		      s->b.mr->rkey ^ 0x7fff00);
	ret = ret ?: kv_expect(r, &p.a.scq, "write with a bad rkey", 1,
			       IB_WC_REM_ACCESS_ERR, -1, NULL);
	if (ret)
		goto out;
	if (kv_wait_ep_event(&p.b, ev, KV_WAIT_MS)) {
		ret = kv_fail(r, "responder: no QP event within %d ms", KV_WAIT_MS);
		goto out;
	}
	if (p.b.last_event != IB_EVENT_QP_ACCESS_ERR) {
		ret = kv_fail(r, "responder: event %d, want QP_ACCESS_ERR", p.b.last_event);
		goto out;
	}
	ret = kv_qp_state(r, p.a.qp, &st);
	if (!ret && st != IB_QPS_ERR)
		ret = kv_fail(r, "requester state %d, want ERR", st);
	ret = ret ?: kv_qp_state(r, p.b.qp, &st);
	if (!ret && st != IB_QPS_ERR)
		ret = kv_fail(r, "responder state %d, want ERR", st);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

static int kv_refused(struct kv_run *r, struct ib_qp *qp, struct ib_qp_attr *a,
		      int mask, enum ib_qp_state keep, const char *what)
{
	enum ib_qp_state st;
	int err;

	err = ib_modify_qp(qp, a, mask);
	if (err != -EINVAL)
		return kv_fail(r, "%s: ib_modify_qp returned %d, want -EINVAL", what, err);
	err = kv_qp_state(r, qp, &st);
	if (err)
		return err;
	if (st != keep)
		return kv_fail(r, "%s: state %d afterwards, want %d", what, st, keep);
	return 0;
}

/* Transitions and masks the IBA does not allow are refused, state kept. */
int kv_case_bad_modify(struct kv_self *s)
{
	struct kv_pair_opts o = { .no_connect = true };
	struct kv_run *r = &s->r;
	struct ib_qp_attr a;
	enum ib_qp_state st;
	struct kv_pair p;
	struct ib_qp *qp;
	int ret, err;

	ret = kv_pair_create(r, &p, IB_QPT_RC, &o);
	if (ret)
		return ret;
	qp = p.a.qp;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 1;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	ret = kv_refused(r, qp, &a, IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
			 IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC,
			 IB_QPS_RESET, "RESET->RTS");
	if (ret)
		goto out;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_INIT;
	a.port_num = 3;
	ret = kv_refused(r, qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			 IB_QP_ACCESS_FLAGS, IB_QPS_RESET, "RESET->INIT on port 3");
	if (ret)
		goto out;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_INIT;
	ret = kv_refused(r, qp, &a, IB_QP_STATE, IB_QPS_RESET,
			 "RESET->INIT without port/pkey/access");
	ret = ret ?: kv_qp_init(r, qp, IB_QPT_RC, 1, 0);
	if (ret)
		goto out;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	ret = kv_refused(r, qp, &a, IB_QP_STATE, IB_QPS_INIT,
			 "INIT->RTR without its required attributes");
	if (ret)
		goto out;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 1;
	ret = kv_refused(r, qp, &a, IB_QP_STATE | IB_QP_SQ_PSN, IB_QPS_INIT,
			 "INIT->RTS");
	if (ret)
		goto out;
	/* INIT->INIT, ->RESET, and a second walk work */
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RESET;
	err = ib_modify_qp(qp, &a, IB_QP_STATE);
	if (err) {
		ret = kv_fail(r, "INIT->RESET failed: %d", err);
		goto out;
	}
	ret = kv_qp_state(r, qp, &st);
	if (!ret && st != IB_QPS_RESET)
		ret = kv_fail(r, "state %d after ->RESET", st);
	ret = ret ?: kv_qp_init(r, qp, IB_QPT_RC, 1, 0);
	ret = ret ?: kv_qp_init(r, p.b.qp, IB_QPT_RC, 2, 0);
	ret = ret ?: kv_qp_rtr_rts(r, qp, IB_QPT_RC, 1, r->lid[2], p.b.qp->qp_num,
				   9, 9, IB_MTU_1024);
	ret = ret ?: kv_qp_state(r, qp, &st);
	if (!ret && st != IB_QPS_RTS)
		ret = kv_fail(r, "state %d after the second walk", st);
	if (ret)
		goto out;
	/* RTS->RTR is not a transition either */
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	ret = kv_refused(r, qp, &a, IB_QP_STATE, IB_QPS_RTS, "RTS->RTR");
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

#define KV_QF_WR	8

/* More work requests than the queue holds: -ENOMEM, bad_wr at the first. */
int kv_case_queue_full(struct kv_self *s)
{
	struct kv_pair_opts o = { .max_send_wr = KV_QF_WR, .max_recv_wr = KV_QF_WR };
	const struct ib_send_wr *sbad = NULL;
	const struct ib_recv_wr *rbad = NULL;
	struct ib_send_wr *swr = NULL;
	struct ib_recv_wr *rwr = NULL;
	struct kv_run *r = &s->r;
	struct ib_sge ss, rs;
	struct kv_pair p;
	u32 ns, nr, i;
	int ret, err;

	ret = kv_pair_create(r, &p, IB_QPT_RC, &o);
	if (ret)
		return ret;
	ns = p.a.cap.max_send_wr;
	nr = p.b.cap.max_recv_wr;
	if (ns < KV_QF_WR || nr < KV_QF_WR || ns > 4096 || nr > 4096) {
		ret = kv_fail(r, "granted max_send_wr %u max_recv_wr %u", ns, nr);
		goto out;
	}
	swr = kcalloc(ns + 1, sizeof(*swr), GFP_KERNEL);
	rwr = kcalloc(nr + 1, sizeof(*rwr), GFP_KERNEL);
	if (!swr || !rwr) {
		ret = kv_fail(r, "no memory");
		goto out;
	}
	ss = kv_sge_dma(r, &s->a, 0, 16);
	rs = kv_sge_mr(&s->b, 0, 16);
	for (i = 0; i <= nr; i++) {
		rwr[i].wr_id = i;
		rwr[i].sg_list = &rs;
		rwr[i].num_sge = 1;
		rwr[i].next = i < nr ? &rwr[i + 1] : NULL;
	}
	for (i = 0; i <= ns; i++) {
		swr[i].wr_id = i;
		swr[i].sg_list = &ss;
		swr[i].num_sge = 1;
		swr[i].opcode = IB_WR_SEND;
		swr[i].send_flags = IB_SEND_SIGNALED;
		swr[i].next = i < ns ? &swr[i + 1] : NULL;
	}
	err = kv_post_recv(r, p.b.qp, rwr, &rbad);
	if (err != -ENOMEM || rbad != &rwr[nr]) {
		ret = kv_fail(r, "%u+1 receives: %d, bad_wr %s (want -ENOMEM at %u)",
			      nr, err, rbad ? "set" : "NULL", nr);
		goto out;
	}
	err = kv_post_send(r, p.a.qp, swr, &sbad);
	if (err != -ENOMEM || sbad != &swr[ns]) {
		ret = kv_fail(r, "%u+1 sends: %d, bad_wr at %ld (want -ENOMEM at %u)",
			      ns, err, sbad ? (long)(sbad - swr) : -1L, ns);
		goto out;
	}
	/* the accepted ones all complete, then there is room again */
	for (i = 0; i < min(ns, nr) && !ret; i++)
		ret = kv_expect(r, &p.b.rcq, "recv", i, IB_WC_SUCCESS, IB_WC_RECV, NULL);
	for (i = nr; i < ns && !ret; i++)	/* more sends than receives */
		ret = kv_recv(r, p.b.qp, i, &rs, 1);
	for (i = nr; i < ns && !ret; i++)
		ret = kv_expect(r, &p.b.rcq, "recv", i, IB_WC_SUCCESS, IB_WC_RECV, NULL);
	for (i = 0; i < ns && !ret; i++)
		ret = kv_expect(r, &p.a.scq, "send", i, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	if (ret)
		goto out;
	swr[0].next = NULL;
	ret = kv_recv(r, p.b.qp, 77, &rs, 1);
	if (!ret) {
		err = kv_post_send(r, p.a.qp, swr, &sbad);
		if (err)
			ret = kv_fail(r, "send after draining the queue: %d", err);
	}
	ret = ret ?: kv_expect(r, &p.a.scq, "send after draining", 0, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	kfree(swr);
	kfree(rwr);
	return ret;
}

/* More SGEs than the QP was created with: refused at post time. */
int kv_case_sge_limit(struct kv_self *s)
{
	struct kv_pair_opts o = { .max_send_sge = 2, .max_recv_sge = 2 };
	const struct ib_send_wr *sbad = NULL;
	const struct ib_recv_wr *rbad = NULL;
	struct ib_sge sg[64];
	struct ib_send_wr swr;
	struct ib_recv_wr rwr;
	struct kv_run *r = &s->r;
	struct kv_pair *p = &s->pair[0];
	u32 nsge, nrge, i;
	int ret, err;

	ret = kv_pair_create(r, p, IB_QPT_RC, &o);
	if (ret)
		return ret;
	nsge = p->a.cap.max_send_sge;
	nrge = p->b.cap.max_recv_sge;
	if (nsge >= ARRAY_SIZE(sg) || nrge >= ARRAY_SIZE(sg)) {
		ret = kv_fail(r, "granted max_send_sge %u max_recv_sge %u", nsge, nrge);
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(sg); i++)
		sg[i] = kv_sge_dma(r, &s->a, i * 8, 8);
	memset(&swr, 0, sizeof(swr));
	swr.sg_list = sg;
	swr.num_sge = nsge + 1;
	swr.opcode = IB_WR_SEND;
	swr.send_flags = IB_SEND_SIGNALED;
	err = kv_post_send(r, p->a.qp, &swr, &sbad);
	if (err >= 0 || sbad != &swr) {
		ret = kv_fail(r, "send with %u SGEs (max %u): %d", nsge + 1, nsge, err);
		goto out;
	}
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = sg;
	rwr.num_sge = nrge + 1;
	err = kv_post_recv(r, p->b.qp, &rwr, &rbad);
	if (err >= 0 || rbad != &rwr) {
		ret = kv_fail(r, "receive with %u SGEs (max %u): %d", nrge + 1, nrge, err);
		goto out;
	}
	/* nothing was posted, and the maximum still works */
	ret = kv_expect_quiet(r, &p->a.scq, "after the refused send", 50);
	rwr.num_sge = nrge;
	swr.num_sge = min(nsge, nrge);
	if (!ret) {
		err = kv_post_recv(r, p->b.qp, &rwr, &rbad);
		err = err ?: kv_post_send(r, p->a.qp, &swr, &sbad);
		if (err)
			ret = kv_fail(r, "post with the maximum SGEs: %d", err);
	}
	ret = ret ?: kv_expect(r, &p->a.scq, "send with max SGEs", 0, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p->b.rcq, "recv with max SGEs", 0, IB_WC_SUCCESS,
			       IB_WC_RECV, NULL);
out:
	if (kv_pair_destroy(r, p))
		ret = -EIO;
	return ret;
}

/* A PD (and a CQ) in use cannot go away. */
int kv_case_pd_busy(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_pd *pd, *saved = r->pd;
	struct kv_ep ep = { 0 };
	u64 page = s->a.dma;
	struct ib_mr *mr;
	int ret, err;

	pd = ib_alloc_pd(r->dev, 0);
	if (IS_ERR_OR_NULL(pd))
		return kv_fail(r, "ib_alloc_pd failed: %ld", pd ? PTR_ERR(pd) : -EINVAL);
	ret = kv_ep_init(r, &ep, 1, 0);
	if (ret)
		goto out_pd;
	r->pd = pd;
	ep.qp = kv_qp_create(r, &ep, IB_QPT_RC, NULL, NULL, NULL);
	r->pd = saved;
	if (!ep.qp) {
		ret = -EIO;
		goto out_ep;
	}
	err = ib_dealloc_pd_user(pd, NULL);
	if (err != -EBUSY) {
		ret = kv_fail(r, "ib_dealloc_pd with a QP: %d, want -EBUSY", err);
		if (!err)
			pd = NULL;
		goto out_ep;
	}
	err = ib_destroy_cq_user(ep.scq.cq, NULL);
	if (err != -EBUSY) {
		ret = kv_fail(r, "ib_destroy_cq with a QP: %d, want -EBUSY", err);
		if (!err)
			ep.scq.cq = NULL;
		goto out_ep;
	}
	err = ib_destroy_qp(ep.qp);
	if (err) {
		ret = kv_fail(r, "ib_destroy_qp failed: %d", err);
		goto out_ep;
	}
	ep.qp = NULL;
	mr = ibstack_reg_kernel_mr(pd, &page, 1, PAGE_SHIFT, 0, PAGE_SIZE,
				   IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR_OR_NULL(mr)) {
		ret = kv_fail(r, "ibstack_reg_kernel_mr failed: %ld", mr ? PTR_ERR(mr) : -EINVAL);
		goto out_ep;
	}
	err = ib_dealloc_pd_user(pd, NULL);
	if (err != -EBUSY) {
		ret = kv_fail(r, "ib_dealloc_pd with an MR: %d, want -EBUSY", err);
		if (!err)
			pd = NULL;
	}
	err = ib_dereg_mr(mr);
	if (err)
		ret = kv_fail(r, "ib_dereg_mr failed: %d", err);
out_ep:
	if (kv_ep_destroy(r, &ep))
		ret = -EIO;
out_pd:
	if (pd) {
		err = ib_dealloc_pd_user(pd, NULL);
		if (err)
			ret = kv_fail(r, "ib_dealloc_pd of an unused PD failed: %d", err);
	}
	return ret;
}

/*
 * The data path with interrupts disabled (as from a hard interrupt): the
 * verbs work and leave interrupts disabled.
 */
int kv_case_irq_context(struct kv_self *s)
{
	const struct ib_send_wr *sbad = NULL;
	const struct ib_recv_wr *rbad = NULL;
	struct kv_run *r = &s->r;
	struct ib_send_wr swr;
	struct ib_recv_wr rwr;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	struct kv_pair p;
	unsigned long flags;
	bool still_off[4];
	int ret, e[4], i, got = 0;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	ss = kv_sge_dma(r, &s->a, 0, 64);
	rs = kv_sge_mr(&s->b, 0, 64);
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 1;
	swr.sg_list = &ss;
	swr.num_sge = 1;
	swr.opcode = IB_WR_SEND;
	swr.send_flags = IB_SEND_SIGNALED;
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 2;
	rwr.sg_list = &rs;
	rwr.num_sge = 1;

	local_irq_save(flags);
	e[0] = kv_post_recv(r, p.b.qp, &rwr, &rbad);
	still_off[0] = irqs_disabled();
	e[1] = kv_post_send(r, p.a.qp, &swr, &sbad);
	still_off[1] = irqs_disabled();
	e[2] = kv_notify(r, &p.b.rcq, IB_CQ_NEXT_COMP);
	still_off[2] = irqs_disabled();
	e[3] = kv_poll(r, &p.a.scq, 1, &wc);
	still_off[3] = irqs_disabled();
	local_irq_restore(flags);

	for (i = 0; i < 4; i++) {
		if (!still_off[i]) {
			ret = kv_fail(r, "verb %d re-enabled interrupts", i);
			goto out;
		}
		if (e[i] < 0) {
			ret = kv_fail(r, "verb %d failed with interrupts off: %d", i, e[i]);
			goto out;
		}
	}
	got = e[3];
	if (!got)
		ret = kv_expect(r, &p.a.scq, "send", 1, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "recv", 2, IB_WC_SUCCESS, IB_WC_RECV, NULL);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

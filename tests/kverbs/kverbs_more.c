// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: the cases that stress the queues and the QP life cycle -
 * ring wrap-around, CQ resizing with completions inside, CQ moderation,
 * completions of a destroyed or reset QP, creation limits, RNR and
 * transport retries, the COMM_EST event, and many objects at once.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kverbs.h"

/* Post n receives at b and n sends from a as two chains; wr_ids base+i. */
static int kv_burst(struct kv_run *r, struct kv_self *s, struct kv_pair *p, int n,
		    u64 base, u32 len)
{
	struct ib_send_wr swr[8];
	struct ib_recv_wr rwr[8];
	struct ib_sge ss[8], rs[8];
	const struct ib_send_wr *sbad = NULL;
	const struct ib_recv_wr *rbad = NULL;
	int i, ret;

	if (n > 8)
		return kv_fail(r, "burst of %d", n);
	memset(swr, 0, sizeof(swr));
	memset(rwr, 0, sizeof(rwr));
	for (i = 0; i < n; i++) {
		rs[i] = kv_sge_mr(&s->b, i * 4096, 4096);
		rwr[i].wr_id = base + i;
		rwr[i].sg_list = &rs[i];
		rwr[i].num_sge = 1;
		rwr[i].next = i + 1 < n ? &rwr[i + 1] : NULL;
		ss[i] = kv_sge_dma(r, &s->a, i * 4096, len + i);
		swr[i].wr_id = base + i;
		swr[i].sg_list = &ss[i];
		swr[i].num_sge = 1;
		swr[i].opcode = IB_WR_SEND;
		swr[i].send_flags = IB_SEND_SIGNALED;
		swr[i].next = i + 1 < n ? &swr[i + 1] : NULL;
	}
	ret = kv_post_recv(r, p->b.qp, rwr, &rbad);
	if (ret)
		return kv_fail(r, "post_recv of %d (from wr_id %llu): %d", n, base, ret);
	ret = kv_post_send(r, p->a.qp, swr, &sbad);
	if (ret)
		return kv_fail(r, "post_send of %d (from wr_id %llu): %d", n, base, ret);
	return 0;
}

/*
 * Many more work requests and completions than the queues hold: the
 * producer/consumer indexes and ownership bits wrap many times.
 */
int kv_case_rc_wrap(struct kv_self *s)
{
	struct kv_pair_opts o = { .max_send_wr = 8, .max_recv_wr = 8, .cqe = 16 };
	struct kv_run *r = &s->r;
	struct kv_pair p;
	struct ib_wc wc;
	int ret, it, i;

	ret = kv_pair_create(r, &p, IB_QPT_RC, &o);
	if (ret)
		return ret;
	kv_buf_cpu(&s->a);
	kv_fill(&s->a, 0, 8 * 4096, 81);
	kv_buf_dev(&s->a);
	for (it = 0; it < 64 && !ret; it++) {
		u64 base = (u64)it * 8;

		ret = kv_burst(r, s, &p, 5, base, 16 + it);
		for (i = 0; i < 5 && !ret; i++)
			ret = kv_expect(r, &p.a.scq, "send", base + i, IB_WC_SUCCESS,
					IB_WC_SEND, NULL);
		for (i = 0; i < 5 && !ret; i++) {
			ret = kv_expect(r, &p.b.rcq, "recv", base + i, IB_WC_SUCCESS,
					IB_WC_RECV, &wc);
			if (!ret && wc.byte_len != 16 + it + i)
				ret = kv_fail(r, "byte_len %u, want %d", wc.byte_len,
					      16 + it + i);
		}
		if (ret)
			kv_fail(r, "(in round %d)", it);
	}
	if (!ret) {
		kv_buf_cpu(&s->b);
		if (memcmp(s->b.cpu, s->a.cpu, 16 + 63) ||
		    memcmp((u8 *)s->b.cpu + 4 * 4096, (u8 *)s->a.cpu + 4 * 4096, 16 + 63 + 4))
			ret = kv_fail(r, "data of the last round differs");
	}
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/*
 * ib_resize_cq() keeps the completions that are in the CQ, and the CQ then
 * holds more than before.
 */
int kv_case_cq_resize(struct kv_self *s)
{
	struct kv_pair_opts o = { .max_send_wr = 64, .max_recv_wr = 64, .cqe = 16 };
	struct kv_run *r = &s->r;
	struct kv_pair p;
	int ret, err, i, j;

	ret = kv_pair_create(r, &p, IB_QPT_RC, &o);
	if (ret)
		return ret;
	ret = kv_burst(r, s, &p, 6, 0, 8);
	for (i = 0; i < 6 && !ret; i++)
		ret = kv_expect(r, &p.a.scq, "send", i, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	if (ret)
		goto out;
	/* b's six receive completions are in its CQ (RC: before the ACKs) */
	err = ib_resize_cq(p.b.rcq.cq, 200);
	if (err) {
		ret = kv_fail(r, "ib_resize_cq(16 -> 200) with 6 CQEs inside: %d", err);
		goto out;
	}
	if (p.b.rcq.cq->cqe < 200) {
		ret = kv_fail(r, "CQ resized to 200 has %d entries", p.b.rcq.cq->cqe);
		goto out;
	}
	for (i = 0; i < 6 && !ret; i++)
		ret = kv_expect(r, &p.b.rcq, "recv kept across the resize", i,
				IB_WC_SUCCESS, IB_WC_RECV, NULL);
	if (ret)
		goto out;
	/* more than the old size, without polling in between */
	for (j = 0; j < 5 && !ret; j++) {
		ret = kv_burst(r, s, &p, 8, 100 + j * 8, 8);
		for (i = 0; i < 8 && !ret; i++)
			ret = kv_expect(r, &p.a.scq, "send", 100 + j * 8 + i,
					IB_WC_SUCCESS, IB_WC_SEND, NULL);
	}
	for (i = 0; i < 40 && !ret; i++)
		ret = kv_expect(r, &p.b.rcq, "recv in the resized CQ", 100 + i,
				IB_WC_SUCCESS, IB_WC_RECV, NULL);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/*
 * CQ moderation (rdma_set_cq_moderation()): with 4 CQEs or 10 us, an armed CQ still
 * gets its event for a single CQE (when the period ends) and for a burst
 * of 8; all the completions are there.  Then moderation off again.
 */
int kv_case_cq_moderation(struct kv_self *s)
{
	struct kv_pair_opts o = { .cqe = 64 };
	struct kv_run *r = &s->r;
	struct kv_pair p;
	int ret, err, i, n, calls;

	ret = kv_pair_create(r, &p, IB_QPT_RC, &o);
	if (ret)
		return ret;
	err = rdma_set_cq_moderation(p.b.rcq.cq, 4, 10);
	if (err) {
		ret = kv_fail(r, "rdma_set_cq_moderation(4, 10) failed: %d", err);
		goto out;
	}
	for (n = 1; n <= 8 && !ret; n += 7) {
		calls = atomic_read(&p.b.rcq.calls);
		err = kv_notify(r, &p.b.rcq, IB_CQ_NEXT_COMP);
		if (err) {
			ret = kv_fail(r, "arming the moderated CQ returned %d", err);
			break;
		}
		ret = kv_burst(r, s, &p, n, n * 10, 8);
		for (i = 0; i < n && !ret; i++)
			ret = kv_expect(r, &p.a.scq, "send", n * 10 + i, IB_WC_SUCCESS,
					IB_WC_SEND, NULL);
		if (ret)
			break;
		if (kv_wait_calls(&p.b.rcq, calls, KV_WAIT_MS)) {
			ret = kv_fail(r, "no event for %d CQEs within %d ms (moderation 4, 10 us)",
				      n, KV_WAIT_MS);
			break;
		}
		for (i = 0; i < n && !ret; i++)
			ret = kv_expect(r, &p.b.rcq, "recv in the moderated CQ", n * 10 + i,
					IB_WC_SUCCESS, IB_WC_RECV, NULL);
	}
	if (ret)
		goto out;
	err = rdma_set_cq_moderation(p.b.rcq.cq, 0, 0);
	if (err) {
		ret = kv_fail(r, "rdma_set_cq_moderation(0, 0) failed: %d", err);
		goto out;
	}
	calls = atomic_read(&p.b.rcq.calls);
	err = kv_notify(r, &p.b.rcq, IB_CQ_NEXT_COMP);
	if (err) {
		ret = kv_fail(r, "arming the CQ without moderation returned %d", err);
		goto out;
	}
	ret = kv_burst(r, s, &p, 1, 100, 8);
	ret = ret ?: kv_expect(r, &p.a.scq, "send", 100, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	if (ret)
		goto out;
	if (kv_wait_calls(&p.b.rcq, calls, KV_WAIT_MS)) {
		ret = kv_fail(r, "no event within %d ms with moderation off", KV_WAIT_MS);
		goto out;
	}
	ret = kv_expect(r, &p.b.rcq, "recv without moderation", 100, IB_WC_SUCCESS,
			IB_WC_RECV, NULL);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/*
 * Completions of a QP that is destroyed (or reset) before they are polled
 * are removed from a CQ the QP shares: wc.qp would dangle otherwise.
 */
int kv_case_cq_clean(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct kv_cq shared = { 0 };
	struct kv_pair_opts o = { 0 };
	struct kv_pair *p1 = &s->pair[0], *p2 = &s->pair[1];
	struct ib_qp *gone;
	struct ib_qp_attr qa;
	struct ib_wc wc[8];
	bool have1 = false, have2 = false;
	int ret, i, n;

	ret = kv_cq_create(r, &shared, 64);
	if (ret)
		return ret;
	o.rcq_b = &shared;
	ret = kv_pair_create(r, p1, IB_QPT_RC, &o);
	if (ret)
		goto out;
	have1 = true;
	ret = kv_pair_create(r, p2, IB_QPT_RC, &o);
	if (ret)
		goto out;
	have2 = true;
	ret = kv_burst(r, s, p1, 3, 10, 8);
	ret = ret ?: kv_burst(r, s, p2, 3, 20, 8);
	for (i = 0; i < 3 && !ret; i++) {
		ret = kv_expect(r, &p1->a.scq, "send 1", 10 + i, IB_WC_SUCCESS,
				IB_WC_SEND, NULL);
		ret = ret ?: kv_expect(r, &p2->a.scq, "send 2", 20 + i, IB_WC_SUCCESS,
				       IB_WC_SEND, NULL);
	}
	if (ret)
		goto out;
	/* six CQEs wait in the shared CQ; three belong to p1->b */
	gone = p1->b.qp;
	have1 = false;
	if (kv_pair_destroy(r, p1)) {
		ret = -EIO;
		goto out;
	}
	n = kv_wait_wc(r, &shared, wc, 4, 200);
	for (i = 0; i < n && !ret; i++) {
		if (wc[i].qp == gone)
			ret = kv_fail(r, "completion wr_id %llu of a destroyed QP polled",
				      wc[i].wr_id);
		else if (wc[i].qp != p2->b.qp || wc[i].wr_id != 20 + i)
			ret = kv_fail(r, "completion %d: wr_id %llu", i, wc[i].wr_id);
	}
	if (!ret && n != 3)
		ret = kv_fail(r, "%d completions left after the destroy, want 3", n);
	if (ret)
		goto out;
	/* the same for a QP moved to RESET */
	ret = kv_burst(r, s, p2, 2, 30, 8);
	for (i = 0; i < 2 && !ret; i++)
		ret = kv_expect(r, &p2->a.scq, "send 2", 30 + i, IB_WC_SUCCESS,
				IB_WC_SEND, NULL);
	if (ret)
		goto out;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IB_QPS_RESET;
	ret = ib_modify_qp(p2->b.qp, &qa, IB_QP_STATE);
	if (ret) {
		kv_fail(r, "RTS->RESET failed: %d", ret);
		goto out;
	}
	n = kv_wait_wc(r, &shared, wc, 2, 100);
	if (n)
		ret = kv_fail(r, "%d completion(s) of a QP reset before polling (wr_id %llu)",
			      n, wc[0].wr_id);
out:
	if (have2 && kv_pair_destroy(r, p2))
		ret = -EIO;
	if (have1 && kv_pair_destroy(r, p1))
		ret = -EIO;
	if (kv_cq_destroy(&shared))
		ret = -EIO;
	return ret;
}

static int kv_qp_refused(struct kv_run *r, struct ib_qp_init_attr *ia, const char *what)
{
	struct ib_qp *qp = ib_create_qp(r->pd, ia);

	if (IS_ERR_OR_NULL(qp))
		return 0;
	ib_destroy_qp(qp);
	return kv_fail(r, "QP with %s accepted", what);
}

/* What the device cannot do is refused at creation. */
int kv_case_limits(struct kv_self *s)
{
	const struct ib_device_attr *da = &s->r.dev->attrs;
	struct kv_run *r = &s->r;
	struct ib_qp_init_attr ia, base;
	struct ib_srq_init_attr sia;
	struct rdma_ah_attr aa;
	struct ib_srq *srq;
	struct ib_ah *ah;
	struct kv_ep ep = { 0 };
	int ret;

	ret = kv_ep_init(r, &ep, 1, 0);
	if (ret)
		return ret;
	memset(&base, 0, sizeof(base));
	base.send_cq = ep.scq.cq;
	base.recv_cq = ep.rcq.cq;
	base.cap.max_send_wr = 4;
	base.cap.max_recv_wr = 4;
	base.cap.max_send_sge = 1;
	base.cap.max_recv_sge = 1;
	base.qp_type = IB_QPT_RC;

	ia = base;
	ia.cap.max_send_wr = da->max_qp_wr + 1;
	ret = kv_qp_refused(r, &ia, "max_send_wr > max_qp_wr");
	ia = base;
	ia.cap.max_recv_wr = da->max_qp_wr + 1;
	ret = ret ?: kv_qp_refused(r, &ia, "max_recv_wr > max_qp_wr");
	ia = base;
	ia.cap.max_send_sge = da->max_send_sge + 1;
	ret = ret ?: kv_qp_refused(r, &ia, "max_send_sge > device max");
	ia = base;
	ia.cap.max_recv_sge = da->max_recv_sge + 1;
	ret = ret ?: kv_qp_refused(r, &ia, "max_recv_sge > device max");
	ia = base;
	ia.cap.max_inline_data = 1 << 20;
	ret = ret ?: kv_qp_refused(r, &ia, "1 MiB of inline data");
	ia = base;
	ia.qp_type = IB_QPT_MAX;
	ret = ret ?: kv_qp_refused(r, &ia, "an unknown type");
	ia = base;
	ia.send_cq = NULL;
	ret = ret ?: kv_qp_refused(r, &ia, "no send CQ");
	if (ret)
		goto out;

	memset(&sia, 0, sizeof(sia));
	sia.attr.max_wr = da->max_srq_wr + 1;
	sia.attr.max_sge = 1;
	srq = ib_create_srq(r->pd, &sia);
	if (!IS_ERR_OR_NULL(srq)) {
		ib_destroy_srq(srq);
		ret = kv_fail(r, "SRQ with max_wr > max_srq_wr accepted");
		goto out;
	}
	/* an invalid port is -EINVAL, as upstream's rdma_check_ah_attr() has it */
	kv_ah_attr(r, &aa, r->lid[2], 3);
	ah = rdma_create_ah(r->pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah) && PTR_ERR(ah) == -EINVAL)
		ah = NULL;
	else
		ret = kv_fail(r, "AH on port 3: %d, want -EINVAL", PTR_ERR_OR_ZERO(ah));
	if (!IS_ERR_OR_NULL(ah))
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (ret)
		goto out;
	kv_ah_attr(r, &aa, r->lid[2], 1);
	rdma_ah_set_grh(&aa, NULL, 0, 255, 0, 0);
	ah = rdma_create_ah(r->pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	if (!IS_ERR_OR_NULL(ah)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		ret = kv_fail(r, "AH with GID index 255 accepted");
		goto out;
	}
	/* an address vector whose type is not the port's */
	kv_ah_attr(r, &aa, r->lid[2], 1);
	aa.type = RDMA_AH_ATTR_TYPE_ROCE;
	ah = rdma_create_ah(r->pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	if (!IS_ERR_OR_NULL(ah)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		ret = kv_fail(r, "RoCE AH on an InfiniBand port accepted");
	}
out:
	if (kv_ep_destroy(r, &ep))
		ret = -EIO;
	return ret;
}

/*
 * RNR: a SEND without a receive waits (RNR retry 7 = forever) and completes
 * once one is posted; with RNR retry 0 it fails with RNR_RETRY_EXC_ERR.
 */
int kv_case_rnr(struct kv_self *s)
{
	struct kv_pair_opts o = { .rnr_retry_set = true, .rnr_retry = 0 };
	struct kv_run *r = &s->r;
	struct ib_sge ss, rs;
	struct kv_pair p;
	int ret;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	kv_buf_cpu(&s->a);
	kv_fill(&s->a, 0, 100, 91);
	kv_buf_dev(&s->a);
	ss = kv_sge_dma(r, &s->a, 0, 100);
	rs = kv_sge_mr(&s->b, 0, 100);
	ret = kv_send(r, &p.a, IB_WR_SEND, 1, &ss, 1, 0);
	ret = ret ?: kv_expect_quiet(r, &p.a.scq, "send without a receive", 200);
	ret = ret ?: kv_recv(r, p.b.qp, 2, &rs, 1);
	ret = ret ?: kv_expect(r, &p.a.scq, "send after the receive came", 1,
			       IB_WC_SUCCESS, IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "the late receive", 2, IB_WC_SUCCESS,
			       IB_WC_RECV, NULL);
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	if (ret)
		return ret;

	ret = kv_pair_create(r, &p, IB_QPT_RC, &o);
	if (ret)
		return ret;
	ret = kv_send(r, &p.a, IB_WR_SEND, 3, &ss, 1, 0);
	ret = ret ?: kv_expect(r, &p.a.scq, "send with RNR retry 0", 3,
			       IB_WC_RNR_RETRY_EXC_ERR, -1, NULL);
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/* A QP connected to nothing: the retries run out (RETRY_EXC_ERR). */
int kv_case_retry_exc(struct kv_self *s)
{
	struct kv_pair_opts o = { .no_connect = true };
	struct kv_run *r = &s->r;
	struct ib_qp_attr a;
	struct ib_sge ss;
	struct kv_pair p;
	int ret;

	ret = kv_pair_create(r, &p, IB_QPT_RC, &o);
	if (ret)
		return ret;
	ret = kv_qp_init(r, p.a.qp, IB_QPT_RC, 1, 0);
	if (ret)
		goto out;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	kv_ah_attr(r, &a.ah_attr, r->lid[2], 1);
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = 0xfffff0;	/* no such QP at the other port */
	a.rq_psn = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	ret = ib_modify_qp(p.a.qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
			   IB_QP_MIN_RNR_TIMER);
	if (ret) {
		kv_fail(r, "INIT->RTR failed: %d", ret);
		goto out;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 1;
	a.timeout = 8;		/* about 1 ms */
	a.retry_cnt = 2;
	a.rnr_retry = 0;
	a.max_rd_atomic = 1;
	ret = ib_modify_qp(p.a.qp, &a, IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
			   IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
	if (ret) {
		kv_fail(r, "RTR->RTS failed: %d", ret);
		goto out;
	}
	ss = kv_sge_dma(r, &s->a, 0, 16);
	ret = kv_send(r, &p.a, IB_WR_SEND, 1, &ss, 1, 0);
	ret = ret ?: kv_expect(r, &p.a.scq, "send to nobody", 1, IB_WC_RETRY_EXC_ERR,
			       -1, NULL);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/* The first packet reaching a responder in RTR raises COMM_EST. */
int kv_case_comm_est(struct kv_self *s)
{
	struct kv_pair_opts o = { .no_connect = true };
	enum ib_mtu mtu = min(s->r.mtu[1], s->r.mtu[2]);
	struct kv_run *r = &s->r;
	struct ib_qp_attr a;
	struct ib_sge ss, rs;
	struct kv_pair p;
	int ret, ev;

	ret = kv_pair_create(r, &p, IB_QPT_RC, &o);
	if (ret)
		return ret;
	ret = kv_qp_init(r, p.a.qp, IB_QPT_RC, 1, 0);
	ret = ret ?: kv_qp_init(r, p.b.qp, IB_QPT_RC, 2, 0);
	ret = ret ?: kv_qp_rtr_rts(r, p.a.qp, IB_QPT_RC, 1, r->lid[2], p.b.qp->qp_num,
				   p.b.psn, p.a.psn, mtu);
	if (ret)
		goto out;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	kv_ah_attr(r, &a.ah_attr, r->lid[1], 2);
	a.path_mtu = mtu;
	a.dest_qp_num = p.a.qp->qp_num;
	a.rq_psn = p.a.psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	ret = ib_modify_qp(p.b.qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
			   IB_QP_MIN_RNR_TIMER);
	if (ret) {
		kv_fail(r, "b INIT->RTR failed: %d", ret);
		goto out;
	}
	ev = atomic_read(&p.b.events);
	ss = kv_sge_dma(r, &s->a, 0, 16);
	rs = kv_sge_mr(&s->b, 0, 16);
	ret = kv_recv(r, p.b.qp, 1, &rs, 1);
	ret = ret ?: kv_send(r, &p.a, IB_WR_SEND, 2, &ss, 1, 0);
	ret = ret ?: kv_expect(r, &p.b.rcq, "receive in RTR", 1, IB_WC_SUCCESS,
			       IB_WC_RECV, NULL);
	ret = ret ?: kv_expect(r, &p.a.scq, "send to an RTR QP", 2, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
	if (ret)
		goto out;
	if (kv_wait_ep_event(&p.b, ev, KV_WAIT_MS))
		ret = kv_fail(r, "no COMM_EST within %d ms", KV_WAIT_MS);
	else if (p.b.last_event != IB_EVENT_COMM_EST)
		ret = kv_fail(r, "event %d, want COMM_EST", p.b.last_event);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

#define KV_MANY	128

/* Many QPs, CQs and MRs at once, twice: numbers unique, all freed. */
int kv_case_many(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_cq_init_attr ca = { .cqe = 8 };
	struct ib_qp_init_attr ia;
	struct ib_qp **qps;
	struct ib_cq **cqs;
	struct ib_mr **mrs;
	struct kv_ep ep = { 0 };
	u64 page = s->a.dma;
	int ret, round, i, j, nq = 0, nc = 0, nm = 0;

	qps = kcalloc(KV_MANY, sizeof(*qps), GFP_KERNEL);
	cqs = kcalloc(KV_MANY, sizeof(*cqs), GFP_KERNEL);
	mrs = kcalloc(KV_MANY, sizeof(*mrs), GFP_KERNEL);
	if (!qps || !cqs || !mrs) {
		ret = kv_fail(r, "no memory");
		goto out_free;
	}
	ret = kv_ep_init(r, &ep, 1, 0);
	if (ret)
		goto out_free;
	for (round = 0; round < 2 && !ret; round++) {
		for (nq = 0; nq < KV_MANY; nq++) {
			memset(&ia, 0, sizeof(ia));
			ia.send_cq = ep.scq.cq;
			ia.recv_cq = ep.rcq.cq;
			ia.cap.max_send_wr = 4;
			ia.cap.max_recv_wr = 4;
			ia.cap.max_send_sge = 1;
			ia.cap.max_recv_sge = 1;
			ia.qp_type = nq & 1 ? IB_QPT_UD : IB_QPT_RC;
			qps[nq] = ib_create_qp(r->pd, &ia);
			if (IS_ERR_OR_NULL(qps[nq])) {
				ret = kv_fail(r, "QP %d of round %d: %ld", nq, round,
					      qps[nq] ? PTR_ERR(qps[nq]) : -EINVAL);
				break;
			}
			for (j = 0; j < nq; j++)
				if (qps[j]->qp_num == qps[nq]->qp_num)
					ret = kv_fail(r, "QPN 0x%x given twice",
						      qps[nq]->qp_num);
		}
		for (nc = 0; nc < KV_MANY && !ret; nc++) {
			cqs[nc] = ib_create_cq(r->dev, NULL, NULL, NULL, &ca);
			if (IS_ERR_OR_NULL(cqs[nc])) {
				ret = kv_fail(r, "CQ %d of round %d: %ld", nc, round,
					      cqs[nc] ? PTR_ERR(cqs[nc]) : -EINVAL);
				break;
			}
		}
		for (nm = 0; nm < KV_MANY && !ret; nm++) {
			mrs[nm] = ibstack_reg_kernel_mr(r->pd, &page, 1, PAGE_SHIFT, 0x1000,
							64, IB_ACCESS_LOCAL_WRITE);
			if (IS_ERR_OR_NULL(mrs[nm])) {
				ret = kv_fail(r, "MR %d of round %d: %ld", nm, round,
					      mrs[nm] ? PTR_ERR(mrs[nm]) : -EINVAL);
				break;
			}
		}
		for (i = 0; i < nm; i++)
			if (ib_dereg_mr(mrs[i]))
				ret = kv_fail(r, "ib_dereg_mr %d failed", i);
		for (i = 0; i < nc; i++)
			if (ib_destroy_cq_user(cqs[i], NULL))
				ret = kv_fail(r, "ib_destroy_cq %d failed", i);
		for (i = 0; i < nq; i++)
			if (ib_destroy_qp(qps[i]))
				ret = kv_fail(r, "ib_destroy_qp %d failed", i);
		nq = 0;
		nc = 0;
		nm = 0;
	}
	if (kv_ep_destroy(r, &ep))
		ret = -EIO;
out_free:
	kfree(mrs);
	kfree(cqs);
	kfree(qps);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: ib_drain_qp(), ib_drain_sq() and ib_drain_rq().  A QP
 * with sends waiting for an answer that never comes and receives for a
 * SEND that never comes is drained: when the drain returns, every one of
 * them has completed flushed, its done() called once, and the QP is in
 * ERR.  Also with an SRQ (only the send queue is drained), on CQs of
 * IB_POLL_DIRECT (the drain polls them itself), and after a catastrophic
 * error of the card (kv_drain_fix, for kverbs-catas.sh).
 */
#include <linux/slab.h>

#include "kverbs.h"

#define KV_DRAIN_SENDS	8
#define KV_DRAIN_RECVS	16

struct kv_drain_qp {
	struct kv_apair	p;
	struct kv_acqe	se[KV_DRAIN_SENDS];
	struct kv_acqe	re[KV_DRAIN_RECVS];
	bool		has_srq;
};

/* a's outstanding work: sends to b (in RESET), and receives unless on an SRQ */
static int kv_drain_post(struct kv_run *r, struct kv_drain_qp *d, struct kv_buf *buf)
{
	struct ib_sge sge;
	int ret = 0, i;

	kv_acqe_init(d->se, &d->p.qa, KV_DRAIN_SENDS);
	kv_acqe_init(d->re, &d->p.qa, KV_DRAIN_RECVS);
	for (i = 0; i < KV_DRAIN_RECVS && !d->has_srq && !ret; i++) {
		sge = kv_sge_mr(buf, i * 64, 64);
		ret = kv_arecv(r, d->p.a.qp, &d->re[i], &sge);
	}
	for (i = 0; i < KV_DRAIN_SENDS && !ret; i++) {
		sge = kv_sge_mr(buf, 4096 + i * 64, 64);
		ret = kv_asend(r, d->p.a.qp, &d->se[i], &sge);
	}
	return ret;
}

/*
 * After the drain: everything flushed, each done() once, the QP in ERR.
 * On a dead card the QP's state cannot be read back: QUERY_QP is a
 * firmware command, and upstream's mlx4 fails ib_query_qp() there too.
 */
static int kv_drain_check(struct kv_run *r, struct kv_drain_qp *d, const char *what,
			  bool dead)
{
	int nr = d->has_srq ? 0 : KV_DRAIN_RECVS;
	enum ib_qp_state st;
	int i, ret;

	for (i = 0; i < KV_DRAIN_SENDS; i++)
		if (d->se[i].calls != 1 || d->se[i].status != IB_WC_WR_FLUSH_ERR)
			return kv_fail(r, "%s: SEND %d: %d done() call(s), status %s at the return",
				       what, i, d->se[i].calls, kv_status(d->se[i].status));
	for (i = 0; i < nr; i++)
		if (d->re[i].calls != 1 || d->re[i].status != IB_WC_WR_FLUSH_ERR)
			return kv_fail(r, "%s: receive %d: %d done() calls, status %s at return",
				       what, i, d->re[i].calls, kv_status(d->re[i].status));
	if (atomic_read(&d->p.qa.done) != KV_DRAIN_SENDS + nr)
		return kv_fail(r, "%s: %d done() calls, %d posted", what,
			       atomic_read(&d->p.qa.done), KV_DRAIN_SENDS + nr);
	ret = kv_acq_check(&d->p.qa, what);
	if (ret || dead)
		return ret;
	ret = kv_qp_state(r, d->p.a.qp, &st);
	if (!ret && st != IB_QPS_ERR)
		ret = kv_fail(r, "%s: QP in state %d after the drain", what, st);
	return ret;
}

static int kv_drain_one(struct kv_self *s, struct kv_drain_qp *d, enum ib_poll_context ctx,
			struct ib_srq *srq, int how)
{
	static const char * const names[] = { "ib_drain_qp", "ib_drain_sq + ib_drain_rq" };
	struct kv_run *r = &s->r;
	int ret, err;

	memset(d, 0, sizeof(*d));
	d->has_srq = srq;
	ret = kv_apair_create(r, &d->p, ctx, ctx, true, srq);
	if (ret)
		return ret;
	ret = kv_drain_post(r, d, &s->a);
	if (!ret) {
		if (how == 0) {
			ib_drain_qp(d->p.a.qp);
		} else {
			ib_drain_sq(d->p.a.qp);
			ib_drain_rq(d->p.a.qp);
		}
		ret = kv_drain_check(r, d, names[how], false);
	}
	err = kv_apair_destroy(r, &d->p);
	return ret ?: err;
}

/* Every poll context of the pool, drained whole and queue by queue. */
int kv_case_drain_qp(struct kv_self *s)
{
	static const enum ib_poll_context ctxs[] = {
		IB_POLL_SOFTIRQ, IB_POLL_WORKQUEUE, IB_POLL_UNBOUND_WORKQUEUE,
	};
	struct kv_drain_qp *d;
	int ret = 0, i;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return kv_fail(&s->r, "no memory");
	for (i = 0; i < ARRAY_SIZE(ctxs) && !ret; i++)
		ret = kv_drain_one(s, d, ctxs[i], NULL, i == 1);
	if (ret)
		kv_fail(&s->r, "poll context %d", ctxs[i - 1]);
	kfree(d);
	return ret;
}

/*
 * On an SRQ: ib_drain_qp() drains the send queue only (a receive posted to
 * the QP itself would be refused); the SRQ's receives stay there for its
 * other QPs.
 */
int kv_case_drain_srq(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_srq_init_attr sia = { };
	struct kv_drain_qp *d;
	struct kv_acqe *sre;
	struct ib_srq *srq;
	int ret, err, i;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	sre = kcalloc(4, sizeof(*sre), GFP_KERNEL);
	if (!d || !sre) {
		ret = kv_fail(r, "no memory");
		goto out_free;
	}
	sia.attr.max_wr = 16;
	sia.attr.max_sge = 1;
	srq = ib_create_srq(r->pd, &sia);
	if (IS_ERR_OR_NULL(srq)) {
		ret = kv_fail(r, "ib_create_srq failed: %ld", srq ? PTR_ERR(srq) : -EINVAL);
		goto out_free;
	}
	ret = 0;
	memset(d, 0, sizeof(*d));
	d->has_srq = true;
	ret = kv_apair_create(r, &d->p, IB_POLL_WORKQUEUE, IB_POLL_WORKQUEUE, true, srq);
	if (ret)
		goto out_srq;
	kv_acqe_init(sre, &d->p.qa, 4);
	for (i = 0; i < 4 && !ret; i++) {
		const struct ib_recv_wr *bad = NULL;
		struct ib_sge sge = kv_sge_mr(&s->b, i * 64, 64);
		struct ib_recv_wr wr = { .wr_cqe = &sre[i].cqe, .sg_list = &sge, .num_sge = 1 };

		err = kv_post_srq_recv(r, srq, &wr, &bad);
		if (err)
			ret = kv_fail(r, "ib_post_srq_recv failed: %d", err);
	}
	ret = ret ?: kv_drain_post(r, d, &s->a);
	if (!ret) {
		ib_drain_qp(d->p.a.qp);
		ret = kv_drain_check(r, d, "ib_drain_qp on an SRQ", false);
	}
	for (i = 0; i < 4 && !ret; i++)
		if (sre[i].calls)
			ret = kv_fail(r, "the SRQ's receive %d completed (status %s)", i,
				      kv_status(sre[i].status));
	err = kv_apair_destroy(r, &d->p);
	ret = ret ?: err;
out_srq:
	err = ib_destroy_srq_user(srq, NULL);
	if (err)
		ret = kv_fail(r, "ib_destroy_srq failed: %d", err);
out_free:
	kfree(sre);
	kfree(d);
	return ret;
}

/* CQs of IB_POLL_DIRECT: the drain polls them, done() runs in its task. */
int kv_case_drain_direct(struct kv_self *s)
{
	struct kv_drain_qp *d;
	int ret;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return kv_fail(&s->r, "no memory");
	ret = kv_drain_one(s, d, IB_POLL_DIRECT, NULL, 0);
	kfree(d);
	return ret;
}

/*
 * A QP with nothing outstanding drains at once, and so does one already
 * drained: ib_drain_qp() twice on a connected pair after its traffic.
 */
int kv_case_drain_idle(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct kv_drain_qp *d;
	int ret, err;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return kv_fail(r, "no memory");
	ret = kv_apair_create(r, &d->p, IB_POLL_SOFTIRQ, IB_POLL_WORKQUEUE, false, NULL);
	if (ret)
		goto out;
	kv_acqe_init(d->se, &d->p.qa, 1);
	kv_acqe_init(d->re, &d->p.qb, 1);
	ret = kv_arecv(r, d->p.b.qp, &d->re[0], NULL);
	ret = ret ?: kv_asend(r, d->p.a.qp, &d->se[0], NULL);
	ret = ret ?: kv_acq_wait(&d->p.qb, 1, KV_WAIT_MS);
	ret = ret ?: kv_acq_wait(&d->p.qa, 1, KV_WAIT_MS);
	if (!ret) {
		ib_drain_qp(d->p.b.qp);
		ib_drain_qp(d->p.b.qp);
		ib_drain_qp(d->p.a.qp);
		if (atomic_read(&d->p.qa.done) != 1 || atomic_read(&d->p.qb.done) != 1)
			ret = kv_fail(r, "drains of idle QPs: %d and %d done() calls, want 1 each",
				      atomic_read(&d->p.qa.done), atomic_read(&d->p.qb.done));
	}
	ret = ret ?: kv_acq_check(&d->p.qa, "sender's CQ");
	ret = ret ?: kv_acq_check(&d->p.qb, "receiver's CQ");
	err = kv_apair_destroy(r, &d->p);
	ret = ret ?: err;
out:
	kfree(d);
	return ret;
}

/* ---------------------------------------------------------------------- */
/*
 * After a catastrophic error: QPs with outstanding work on CQs of each
 * kind, set up while the card works (kverbs-catas.sh, before it raises the
 * error), drained on the dead card from the client's remove().  The card
 * completes nothing any more: the drain must end through the driver's
 * software flush, without an interrupt.
 */
static const enum ib_poll_context kv_fix_ctxs[] = {
	IB_POLL_SOFTIRQ, IB_POLL_WORKQUEUE, IB_POLL_DIRECT,
};

struct kv_drain_fix {
	struct kv_run		r;	/* its own, on the caller's PD */
	struct kv_buf		buf;
	struct kv_drain_qp	qp[ARRAY_SIZE(kv_fix_ctxs)];
};

/* NULL on failure, after a FAIL line of the case */
struct kv_drain_fix *kv_drain_fix_create(struct ib_device *dev, struct ib_pd *pd)
{
	struct kv_drain_fix *fix;
	struct ib_port_attr pa;
	struct kv_run *r;
	int ret, i;
	u32 port;

	fix = kzalloc(sizeof(*fix), GFP_KERNEL);
	if (!fix)
		return NULL;
	r = &fix->r;
	r->dev = dev;
	r->pd = pd;
	r->rnr_retry = 7;
	atomic_set(&r->handler_in_verb, 0);
	atomic_set(&r->handler_nested, 0);
	atomic_set(&r->verb_unbalanced, 0);
	/* a on port 1 sends to port 2's LID */
	for (port = 1; port <= 2; port++) {
		memset(&pa, 0, sizeof(pa));
		ret = ib_query_port(dev, port, &pa);
		if (ret || pa.state != IB_PORT_ACTIVE) {
			kv_fail(r, "port %u not ACTIVE (%d, state %d)", port, ret, pa.state);
			goto err;
		}
		r->lid[port] = pa.lid;
		r->mtu[port] = pa.active_mtu;
	}
	ret = kv_buf_alloc(r, &fix->buf, 8192, 0x0000400000000000ULL);
	if (ret)
		goto err;
	for (i = 0; i < ARRAY_SIZE(kv_fix_ctxs); i++) {
		ret = kv_apair_create(r, &fix->qp[i].p, kv_fix_ctxs[i], kv_fix_ctxs[i], true,
				      NULL);
		if (ret)
			goto err_qps;
		ret = kv_drain_post(r, &fix->qp[i], &fix->buf);
		if (ret) {
			i++;
			goto err_qps;
		}
	}
	return fix;

err_qps:
	while (i--) {
		ib_drain_qp(fix->qp[i].p.a.qp);
		kv_apair_destroy(r, &fix->qp[i].p);
	}
	kv_buf_free(r, &fix->buf);
err:
	kv_report(r, "catas-drain-setup", -EIO);
	kfree(fix);
	return NULL;
}

void kv_drain_fix_destroy(struct kv_drain_fix *fix, bool fatal)
{
	struct kv_run *r;
	int ret = 0, i;

	if (!fix)
		return;
	r = &fix->r;
	for (i = 0; i < ARRAY_SIZE(kv_fix_ctxs); i++) {
		/* the DIRECT CQ's done() runs in the drain's task: this one */
		fix->qp[i].p.qa.direct_task = current;
		ib_drain_qp(fix->qp[i].p.a.qp);
		if (!ret)
			ret = kv_drain_check(r, &fix->qp[i], "drain", fatal);
		if (ret && !r->why[0])
			kv_fail(r, "poll context %d", kv_fix_ctxs[i]);
	}
	for (i = 0; i < ARRAY_SIZE(kv_fix_ctxs); i++)
		kv_apair_destroy(r, &fix->qp[i].p);
	kv_buf_free(r, &fix->buf);
	if (atomic_read(&r->handler_in_verb))
		ret = kv_fail(r, "done() called from a verb's call chain");
	if (fatal)
		kv_report(r, "catas-drain", ret);
	else if (ret)
		pr_info(KV_NAME ": drain of the catas-drain QPs on a working card: %s\n", r->why);
	kfree(fix);
}

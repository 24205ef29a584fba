// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: ib_core's CQ API as a ULP uses it - CQs of ib_alloc_cq()
 * that ib_core polls in each poll context, calling the done() of each
 * work request's ib_cqe; ib_process_cq_direct(); the CQ pool; and what
 * ib_free_cq() refuses.  Also the CQs and QP pairs of the drain cases.
 */
#include <linux/ctype.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/bottom_half.h>
#include <linux/hardirq.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "kverbs.h"

#define KV_ACQ_CQE	256	/* each CQ of a pair */
#define KV_ACQ_WR	64	/* each queue of a pair's QPs */
#define KV_ACQ_N	8	/* work requests per batch */
#define KV_FLOOD	600	/* completions held at once: past 2 softirq budgets */
#define KV_HOLD_MS	3000	/* the flood's hold, at most */

/* A workqueue worker of ib_core's: bound ("kworker/N:MH") or unbound ("kworker/uN:M"). */
static bool kv_worker_is(bool unbound)
{
	const char *c = current->comm;

	/*
	 * The rescuer of a reclaim-safe workqueue, which runs the work when
	 * the machine is too loaded to start a worker in time: named after
	 * the queue before 6.9, "kworker/R-<name>" since (cut to 15
	 * characters, so the two queues look alike), "kworker/R" in later
	 * kernels.
	 */
	if (!strcmp(c, unbound ? "ib-comp-unb-wq" : "ib-comp-wq") ||
	    (!strncmp(c, "kworker/R", 9) && (!c[9] || c[9] == '-')))
		return true;
	if (strncmp(c, "kworker/", 8))
		return false;
	if (unbound)
		return c[8] == 'u';
	/* the bound pools are per CPU, the high-priority ones marked H */
	return isdigit(c[8]) && strchr(c, 'H') && task_nice(current) < 0;
}

/* Is done() running where the CQ's poll context says it must? */
static bool kv_acq_ctx_ok(struct kv_acq *q)
{
	switch (q->ctx) {
	case IB_POLL_SOFTIRQ:
		return in_serving_softirq() && !hardirq_count();
	case IB_POLL_WORKQUEUE:
	case IB_POLL_UNBOUND_WORKQUEUE:
		return in_task() && current_work() == &q->cq->work &&
		       kv_worker_is(q->ctx == IB_POLL_UNBOUND_WORKQUEUE);
	case IB_POLL_DIRECT:
		/* NULL: the flood's held done(), in softirq */
		return q->direct_task ? in_task() && current == q->direct_task :
		       in_serving_softirq();
	default:
		return false;
	}
}

static void kv_acq_hold(struct kv_acq *q);

static void kv_acq_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_acqe *e = container_of(wc->wr_cqe, struct kv_acqe, cqe);
	struct kv_acq *q = e->acq;

	if (atomic_inc_return(&q->inside) > 1)
		atomic_inc(&q->nested);
	if (cq != q->cq || (!cq->shared && cq->cq_context != q))
		atomic_inc(&q->bad_cq);
	if (!kv_acq_ctx_ok(q) && atomic_inc_return(&q->bad_ctx) == 1) {
		strscpy(q->bad_comm, current->comm, sizeof(q->bad_comm));
		q->bad_irq = !in_task();
	}
	if (in_task() && READ_ONCE(q->r->verb_task) == current)
		atomic_inc(&q->r->handler_in_verb);
	e->calls++;
	e->status = wc->status;
	e->opcode = wc->opcode;
	e->seq = atomic_inc_return(&q->done);
	if (q->hold && e->seq == 1)
		kv_acq_hold(q);
	wake_up(&q->wq);
	/* the last touch of q: a pool CQ's q goes once inside is 0 */
	atomic_dec(&q->inside);
}

void kv_acqe_init(struct kv_acqe *e, struct kv_acq *q, int n)
{
	int i;

	memset(e, 0, n * sizeof(*e));
	for (i = 0; i < n; i++) {
		e[i].cqe.done = kv_acq_done;
		e[i].acq = q;
	}
}

static void kv_acq_init(struct kv_run *r, struct kv_acq *q, enum ib_poll_context ctx)
{
	memset(q, 0, sizeof(*q));
	q->r = r;
	q->ctx = ctx;
	q->direct_task = current;
	atomic_set(&q->done, 0);
	atomic_set(&q->bad_ctx, 0);
	atomic_set(&q->bad_cq, 0);
	atomic_set(&q->inside, 0);
	atomic_set(&q->nested, 0);
	init_waitqueue_head(&q->wq);
}

int kv_acq_alloc(struct kv_run *r, struct kv_acq *q, enum ib_poll_context ctx, int cqe)
{
	struct ib_cq *cq;

	kv_acq_init(r, q, ctx);
	cq = ib_alloc_cq(r->dev, q, cqe, 0, ctx);
	if (IS_ERR_OR_NULL(cq))
		return kv_fail(r, "ib_alloc_cq(%d entries, context %d) failed: %ld", cqe, ctx,
			       cq ? PTR_ERR(cq) : -EINVAL);
	q->cq = cq;
	if (cq->device != r->dev || cq->cq_context != q || cq->poll_ctx != ctx ||
	    cq->cqe < cqe || cq->comp_vector || cq->shared || cq->cqe_used) {
		kv_acq_free(q);
		return kv_fail(r, "CQ of ib_alloc_cq(%d, context %d): fields wrong", cqe, ctx);
	}
	return 0;
}

void kv_acq_free(struct kv_acq *q)
{
	if (q->cq && !q->cq->shared)
		ib_free_cq(q->cq);
	q->cq = NULL;
}

int kv_acq_check(struct kv_acq *q, const char *what)
{
	if (atomic_read(&q->bad_ctx))
		return kv_fail(q->r, "%s: %d done() call(s) outside poll context %d, first in %s%s",
			       what, atomic_read(&q->bad_ctx), q->ctx, q->bad_comm,
			       q->bad_irq ? " (interrupt)" : "");
	if (atomic_read(&q->bad_cq))
		return kv_fail(q->r, "%s: %d done() call(s) with another CQ or cq_context",
			       what, atomic_read(&q->bad_cq));
	if (atomic_read(&q->nested))
		return kv_fail(q->r, "%s: done() ran twice at once on one CQ", what);
	return 0;
}

/* Wait (bounded) for n done() calls in all. */
int kv_acq_wait(struct kv_acq *q, int n, unsigned int ms)
{
	if (wait_event_timeout(q->wq, atomic_read(&q->done) >= n, msecs_to_jiffies(ms)))
		return 0;
	return kv_fail(q->r, "%d of %d done() calls within %u ms (context %d)",
		       atomic_read(&q->done), n, ms, q->ctx);
}

/* Each of n entries completed once, in order from seq0 + 1, with status and opcode. */
static int kv_acqe_check(struct kv_run *r, const struct kv_acqe *e, int n, int seq0,
			 enum ib_wc_status status, int opcode, const char *what)
{
	int i;

	for (i = 0; i < n; i++) {
		if (e[i].calls != 1)
			return kv_fail(r, "%s %d: done() called %d times", what, i, e[i].calls);
		if (e[i].status != status)
			return kv_fail(r, "%s %d: status %s, want %s", what, i,
				       kv_status(e[i].status), kv_status(status));
		if (status == IB_WC_SUCCESS && e[i].opcode != opcode)
			return kv_fail(r, "%s %d: opcode 0x%x, want 0x%x", what, i,
				       e[i].opcode, opcode);
		if (seq0 >= 0 && e[i].seq != seq0 + i + 1)
			return kv_fail(r, "%s %d: done() call %d on its CQ, want %d", what, i,
				       e[i].seq, seq0 + i + 1);
	}
	return 0;
}

int kv_asend(struct kv_run *r, struct ib_qp *qp, struct kv_acqe *e, struct ib_sge *sge)
{
	struct ib_send_wr wr = {
		.wr_cqe = &e->cqe,
		.sg_list = sge,
		.num_sge = sge ? 1 : 0,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad = NULL;
	int ret;

	ret = kv_post_send(r, qp, &wr, &bad);
	if (ret)
		return kv_fail(r, "ib_post_send(SEND with wr_cqe) on QP 0x%x failed: %d",
			       qp->qp_num, ret);
	return 0;
}

int kv_arecv(struct kv_run *r, struct ib_qp *qp, struct kv_acqe *e, struct ib_sge *sge)
{
	struct ib_recv_wr wr = {
		.wr_cqe = &e->cqe,
		.sg_list = sge,
		.num_sge = sge ? 1 : 0,
	};
	const struct ib_recv_wr *bad = NULL;
	int ret;

	ret = kv_post_recv(r, qp, &wr, &bad);
	if (ret)
		return kv_fail(r, "ib_post_recv(wr_cqe) on QP 0x%x failed: %d", qp->qp_num, ret);
	return 0;
}

static void kv_aep_init(struct kv_run *r, struct kv_ep *ep, u32 port, struct ib_cq *cq)
{
	memset(ep, 0, sizeof(*ep));
	ep->r = r;
	ep->port = port;
	ep->last_event = -1;
	atomic_set(&ep->events, 0);
	init_waitqueue_head(&ep->wq);
	ep->scq.cq = cq;
	ep->rcq.cq = cq;
}

/*
 * The pair's CQs: allocated here, unless the caller put one in (a CQ of
 * the pool, q->cq set and the rest kv_acq_init()'ed).
 */
int kv_apair_create(struct kv_run *r, struct kv_apair *p, enum ib_poll_context ca,
		    enum ib_poll_context cb, bool dead_end, struct ib_srq *srq_a)
{
	struct kv_pair_opts o = {
		.max_send_wr = KV_ACQ_WR,
		.max_recv_wr = KV_ACQ_WR,
		.max_send_sge = 1,
		.max_recv_sge = 1,
	};
	enum ib_mtu mtu = min(r->mtu[1], r->mtu[2]);
	int ret;

	if (!p->qa.cq) {
		ret = kv_acq_alloc(r, &p->qa, ca, KV_ACQ_CQE);
		if (ret)
			return ret;
	}
	if (!p->qb.cq) {
		ret = kv_acq_alloc(r, &p->qb, cb, KV_ACQ_CQE);
		if (ret)
			goto err;
	}
	kv_aep_init(r, &p->a, 1, p->qa.cq);
	kv_aep_init(r, &p->b, 2, p->qb.cq);
	p->a.psn = 0x1a2b3c;
	p->b.psn = 0x0c0d0e;
	ret = -EIO;
	p->a.qp = kv_qp_create(r, &p->a, IB_QPT_RC, &o, srq_a, NULL);
	if (!p->a.qp)
		goto err;
	p->b.qp = kv_qp_create(r, &p->b, IB_QPT_RC, &o, NULL, NULL);
	if (!p->b.qp)
		goto err;
	ret = kv_qp_init(r, p->a.qp, IB_QPT_RC, 1, 0);
	if (ret)
		goto err;
	if (dead_end) {
		/* b stays in RESET, dropping what comes; a waits for hours */
		r->qp_timeout = 31;
		ret = kv_qp_rtr_rts(r, p->a.qp, IB_QPT_RC, 1, r->lid[2], p->b.qp->qp_num,
				    p->b.psn, p->a.psn, mtu);
		r->qp_timeout = 0;
		if (ret)
			goto err;
		return 0;
	}
	ret = kv_qp_init(r, p->b.qp, IB_QPT_RC, 2, 0);
	ret = ret ?: kv_qp_rtr_rts(r, p->a.qp, IB_QPT_RC, 1, r->lid[2], p->b.qp->qp_num,
				   p->b.psn, p->a.psn, mtu);
	ret = ret ?: kv_qp_rtr_rts(r, p->b.qp, IB_QPT_RC, 2, r->lid[1], p->a.qp->qp_num,
				   p->a.psn, p->b.psn, mtu);
	if (ret)
		goto err;
	return 0;

err:
	kv_apair_destroy(r, p);
	return ret;
}

int kv_apair_destroy(struct kv_run *r, struct kv_apair *p)
{
	int ret = 0, err, i;
	struct kv_ep *ep[2] = { &p->a, &p->b };

	for (i = 0; i < 2; i++) {
		if (!ep[i]->qp)
			continue;
		err = ib_destroy_qp(ep[i]->qp);
		if (err)
			/* its CQ stays in use: leaked rather than refused twice */
			return kv_fail(r, "ib_destroy_qp(0x%x) failed: %d", ep[i]->qp->qp_num,
				       err);
		ep[i]->qp = NULL;
	}
	kv_acq_free(&p->qb);
	kv_acq_free(&p->qa);
	return ret;
}

/* n SENDs of 64 bytes from a to b, each into a receive posted first. */
static int kv_apair_traffic(struct kv_self *s, struct kv_apair *p, struct kv_acqe *se,
			    struct kv_acqe *re, int n)
{
	struct kv_run *r = &s->r;
	struct ib_sge sge;
	int i, ret;

	for (i = 0; i < n; i++) {
		sge = kv_sge_mr(&s->b, i * 64, 64);
		ret = kv_arecv(r, p->b.qp, &re[i], &sge);
		if (ret)
			return ret;
	}
	for (i = 0; i < n; i++) {
		sge = kv_sge_mr(&s->a, i * 64, 64);
		ret = kv_asend(r, p->a.qp, &se[i], &sge);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */

struct kv_ctx_bufs {
	struct kv_apair	p;
	struct kv_acqe	se[2 * KV_ACQ_N];
	struct kv_acqe	re[2 * KV_ACQ_N];
};

/*
 * One poll context: two batches of SENDs (the second after the first was
 * delivered: the poller re-armed the CQ), every done() once, in order, in
 * the context, with the CQ and the cq_context it was allocated with.
 */
static int kv_cq_ctx_one(struct kv_self *s, struct kv_ctx_bufs *b, enum ib_poll_context ctx)
{
	struct kv_run *r = &s->r;
	struct kv_apair *p = &b->p;
	int ret, err, round;

	memset(p, 0, sizeof(*p));
	ret = kv_apair_create(r, p, ctx, ctx, false, NULL);
	if (ret)
		return ret;
	kv_acqe_init(b->se, &p->qa, 2 * KV_ACQ_N);
	kv_acqe_init(b->re, &p->qb, 2 * KV_ACQ_N);
	for (round = 0; round < 2 && !ret; round++) {
		int off = round * KV_ACQ_N;

		ret = kv_apair_traffic(s, p, b->se + off, b->re + off, KV_ACQ_N);
		ret = ret ?: kv_acq_wait(&p->qa, off + KV_ACQ_N, KV_WAIT_MS);
		ret = ret ?: kv_acq_wait(&p->qb, off + KV_ACQ_N, KV_WAIT_MS);
		ret = ret ?: kv_acqe_check(r, b->se + off, KV_ACQ_N, off, IB_WC_SUCCESS,
					   IB_WC_SEND, "SEND");
		ret = ret ?: kv_acqe_check(r, b->re + off, KV_ACQ_N, off, IB_WC_SUCCESS,
					   IB_WC_RECV, "receive");
	}
	ret = ret ?: kv_acq_check(&p->qa, "sender's CQ");
	ret = ret ?: kv_acq_check(&p->qb, "receiver's CQ");
	err = kv_apair_destroy(r, p);
	return ret ?: err;
}

int kv_case_cq_poll_ctx(struct kv_self *s)
{
	static const enum ib_poll_context ctxs[] = {
		IB_POLL_SOFTIRQ, IB_POLL_WORKQUEUE, IB_POLL_UNBOUND_WORKQUEUE,
	};
	struct kv_run *r = &s->r;
	unsigned int spread = min_t(unsigned int, max(r->dev->num_comp_vectors, 1),
				    num_online_cpus());
	struct kv_ctx_bufs *b;
	struct ib_cq *cq[2];
	int ret = 0, i;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return kv_fail(r, "no memory");
	for (i = 0; i < ARRAY_SIZE(ctxs) && !ret; i++) {
		ret = kv_cq_ctx_one(s, b, ctxs[i]);
		if (ret)
			kv_fail(r, "poll context %d", ctxs[i]);
	}
	kfree(b);
	if (ret)
		return ret;

	/* ib_alloc_cq_any: vectors in range, two in a row differ when there are several */
	for (i = 0; i < 2; i++) {
		cq[i] = ib_alloc_cq_any(r->dev, NULL, 16, IB_POLL_WORKQUEUE);
		if (IS_ERR_OR_NULL(cq[i])) {
			ret = kv_fail(r, "ib_alloc_cq_any failed: %ld",
				      cq[i] ? PTR_ERR(cq[i]) : -EINVAL);
			cq[i] = NULL;
		}
	}
	if (!ret && (cq[0]->comp_vector >= spread || cq[1]->comp_vector >= spread ||
		     (spread > 1 && cq[0]->comp_vector == cq[1]->comp_vector)))
		ret = kv_fail(r, "ib_alloc_cq_any: vectors %u and %u of %u", cq[0]->comp_vector,
			      cq[1]->comp_vector, spread);
	for (i = 0; i < 2; i++)
		if (cq[i])
			ib_free_cq(cq[i]);
	return ret;
}

/* ---------------------------------------------------------------------- */
/*
 * A flood past the softirq poller's budget: its first done() holds the
 * poller (in softirq) until every SEND of a has completed - which it polls
 * itself from a's CQ of IB_POLL_DIRECT - so that b's CQ holds KV_FLOOD
 * receive completions when the poller goes on.  Every one must come, once,
 * in order, in softirq.
 */
static void kv_acq_hold(struct kv_acq *q)
{
	struct kv_acq *qa = &container_of(q, struct kv_apair, qb)->qa;
	int ms;

	for (ms = 0; ms < KV_HOLD_MS; ms++) {
		ib_process_cq_direct(qa->cq, 64);
		if (atomic_read(&qa->done) >= KV_FLOOD) {
			WRITE_ONCE(q->held, true);
			return;
		}
		mdelay(1);
	}
}

struct kv_flood_bufs {
	struct kv_apair	p;
	struct kv_acqe	se[KV_FLOOD];
	struct kv_acqe	re[KV_FLOOD];
};

int kv_case_cq_flood(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct kv_pair_opts o = {
		.max_send_wr = KV_FLOOD + 8,
		.max_recv_wr = KV_FLOOD + 8,
		.max_send_sge = 1,
		.max_recv_sge = 1,
	};
	enum ib_mtu mtu = min(r->mtu[1], r->mtu[2]);
	struct kv_flood_bufs *b;
	struct kv_apair *p;
	int ret, err, i;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return kv_fail(r, "no memory");
	p = &b->p;
	/* deep queues: the pair is made here */
	ret = kv_acq_alloc(r, &p->qa, IB_POLL_DIRECT, KV_FLOOD + 16);
	if (ret)
		goto out;
	ret = kv_acq_alloc(r, &p->qb, IB_POLL_SOFTIRQ, KV_FLOOD + 16);
	if (ret)
		goto out_pair;
	p->qa.direct_task = NULL;	/* polled by b's held done() */
	p->qb.hold = true;
	kv_aep_init(r, &p->a, 1, p->qa.cq);
	kv_aep_init(r, &p->b, 2, p->qb.cq);
	ret = -EIO;
	p->a.qp = kv_qp_create(r, &p->a, IB_QPT_RC, &o, NULL, NULL);
	p->b.qp = p->a.qp ? kv_qp_create(r, &p->b, IB_QPT_RC, &o, NULL, NULL) : NULL;
	if (!p->b.qp)
		goto out_pair;
	ret = kv_qp_init(r, p->a.qp, IB_QPT_RC, 1, 0);
	ret = ret ?: kv_qp_init(r, p->b.qp, IB_QPT_RC, 2, 0);
	ret = ret ?: kv_qp_rtr_rts(r, p->a.qp, IB_QPT_RC, 1, r->lid[2], p->b.qp->qp_num,
				   0x100, 0x200, mtu);
	ret = ret ?: kv_qp_rtr_rts(r, p->b.qp, IB_QPT_RC, 2, r->lid[1], p->a.qp->qp_num,
				   0x200, 0x100, mtu);
	if (ret)
		goto out_pair;

	kv_acqe_init(b->se, &p->qa, KV_FLOOD);
	kv_acqe_init(b->re, &p->qb, KV_FLOOD);
	/* empty SENDs into receives without SGEs */
	for (i = 0; i < KV_FLOOD && !ret; i++)
		ret = kv_arecv(r, p->b.qp, &b->re[i], NULL);
	/*
	 * Every SEND posted before the held poller may run on this CPU (it
	 * would wait for SENDs not posted yet): softirqs off meanwhile.
	 */
	local_bh_disable();
	for (i = 0; i < KV_FLOOD && !ret; i++)
		ret = kv_asend(r, p->a.qp, &b->se[i], NULL);
	local_bh_enable();
	ret = ret ?: kv_acq_wait(&p->qb, KV_FLOOD, 2 * KV_WAIT_MS + KV_HOLD_MS);
	ret = ret ?: kv_acqe_check(r, b->re, KV_FLOOD, 0, IB_WC_SUCCESS, IB_WC_RECV, "receive");
	ret = ret ?: kv_acq_check(&p->qb, "receiver's CQ");
	if (!ret && !READ_ONCE(p->qb.held))
		ret = kv_fail(r, "held poller: %d of %d SENDs completed within %d ms",
			      atomic_read(&p->qa.done), KV_FLOOD, KV_HOLD_MS);
	ret = ret ?: kv_acqe_check(r, b->se, KV_FLOOD, 0, IB_WC_SUCCESS, IB_WC_SEND, "SEND");
	ret = ret ?: kv_acq_check(&p->qa, "sender's CQ (direct, polled by the held poller)");
out_pair:
	err = kv_apair_destroy(r, p);
	ret = ret ?: err;
out:
	kfree(b);
	return ret;
}

/* ---------------------------------------------------------------------- */
/*
 * IB_POLL_DIRECT: ib_process_cq_direct() with budgets 3, 0 and -1 calls
 * done() in the caller's task, never more than the budget, every
 * completion once, in order; no completion event comes (ib_core warns).
 */
struct kv_direct_bufs {
	struct kv_apair	p;
	struct kv_acqe	se[30];
	struct kv_acqe	re[30];
};

static int kv_direct_reap(struct kv_run *r, struct kv_acq *q, int budget, int want)
{
	unsigned long end = jiffies + msecs_to_jiffies(KV_WAIT_MS);
	int n;

	while (atomic_read(&q->done) < want) {
		n = ib_process_cq_direct(q->cq, budget);
		if (n < 0 || (budget >= 0 && n > budget))
			return kv_fail(r, "ib_process_cq_direct(budget %d) returned %d", budget, n);
		if (atomic_read(&q->done) > want)
			return kv_fail(r, "%d completions, %d posted", atomic_read(&q->done), want);
		if (!n) {
			if (time_after(jiffies, end))
				return kv_fail(r, "%d of %d completions within %d ms (budget %d)",
					       atomic_read(&q->done), want, KV_WAIT_MS, budget);
			usleep_range(500, 1000);
		}
	}
	return 0;
}

int kv_case_cq_direct(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct kv_direct_bufs *b;
	struct kv_apair *p;
	int ret, err, n;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return kv_fail(r, "no memory");
	p = &b->p;
	ret = kv_apair_create(r, p, IB_POLL_DIRECT, IB_POLL_WORKQUEUE, false, NULL);
	if (ret)
		goto out;
	kv_acqe_init(b->se, &p->qa, 30);
	kv_acqe_init(b->re, &p->qb, 30);
	ret = kv_apair_traffic(s, p, b->se, b->re, 20);
	/* budget 3: 20 in calls of 3 at most */
	ret = ret ?: kv_direct_reap(r, &p->qa, 3, 20);
	ret = ret ?: kv_acqe_check(r, b->se, 20, 0, IB_WC_SUCCESS, IB_WC_SEND, "SEND");
	if (ret)
		goto out_pair;
	/* budget 0 polls nothing; -1 takes all there are */
	ret = kv_apair_traffic(s, p, b->se + 20, b->re + 20, 10);
	ret = ret ?: kv_acq_wait(&p->qb, 30, KV_WAIT_MS);
	if (ret)
		goto out_pair;
	n = ib_process_cq_direct(p->qa.cq, 0);
	if (n)
		ret = kv_fail(r, "ib_process_cq_direct(budget 0) returned %d", n);
	ret = ret ?: kv_direct_reap(r, &p->qa, -1, 30);
	ret = ret ?: kv_acqe_check(r, b->se + 20, 10, 20, IB_WC_SUCCESS, IB_WC_SEND, "SEND");
	ret = ret ?: kv_acqe_check(r, b->re, 30, 0, IB_WC_SUCCESS, IB_WC_RECV, "receive");
	ret = ret ?: kv_acq_check(&p->qa, "direct CQ");
	ret = ret ?: kv_acq_check(&p->qb, "receiver's CQ");
out_pair:
	err = kv_apair_destroy(r, p);
	ret = ret ?: err;
out:
	kfree(b);
	return ret;
}

/* ---------------------------------------------------------------------- */
/*
 * The CQ pool: entries of one shared CQ per vector and context, a CQ
 * without room left leads to another, what is given back is taken again;
 * its CQs carry traffic, ib_free_cq()/ib_destroy_cq() leave them alone, a
 * put of more than was taken is refused, IB_POLL_DIRECT has no pool.
 */
struct kv_pool_bufs {
	struct kv_apair	p;
	struct kv_acqe	se[KV_ACQ_N];
	struct kv_acqe	re[KV_ACQ_N];
};

static struct ib_cq *kv_pool_get(struct kv_run *r, unsigned int n, int hint,
				 enum ib_poll_context ctx)
{
	struct ib_cq *cq = ib_cq_pool_get(r->dev, n, hint, ctx);

	if (!IS_ERR_OR_NULL(cq))
		return cq;
	kv_fail(r, "ib_cq_pool_get(%u, %d, context %d) failed: %ld", n, hint, ctx,
		cq ? PTR_ERR(cq) : -EINVAL);
	return NULL;
}

static int kv_pool_traffic(struct kv_self *s, struct kv_pool_bufs *b, struct ib_cq *cq)
{
	struct kv_run *r = &s->r;
	struct kv_apair *p = &b->p;
	unsigned long end;
	int ret, err;

	memset(p, 0, sizeof(*p));
	kv_acq_init(r, &p->qa, cq->poll_ctx);
	kv_acq_init(r, &p->qb, cq->poll_ctx);
	p->qa.cq = cq;
	p->qb.cq = cq;
	ret = kv_apair_create(r, p, cq->poll_ctx, cq->poll_ctx, false, NULL);
	if (ret)
		return ret;
	kv_acqe_init(b->se, &p->qa, KV_ACQ_N);
	kv_acqe_init(b->re, &p->qb, KV_ACQ_N);
	ret = kv_apair_traffic(s, p, b->se, b->re, KV_ACQ_N);
	ret = ret ?: kv_acq_wait(&p->qa, KV_ACQ_N, KV_WAIT_MS);
	ret = ret ?: kv_acq_wait(&p->qb, KV_ACQ_N, KV_WAIT_MS);
	ret = ret ?: kv_acqe_check(r, b->se, KV_ACQ_N, 0, IB_WC_SUCCESS, IB_WC_SEND, "SEND");
	ret = ret ?: kv_acqe_check(r, b->re, KV_ACQ_N, 0, IB_WC_SUCCESS, IB_WC_RECV, "receive");
	ret = ret ?: kv_acq_check(&p->qa, "pool CQ (sends)");
	ret = ret ?: kv_acq_check(&p->qb, "pool CQ (receives)");
	err = kv_apair_destroy(r, p);
	/* the pool CQ's poller goes on: out of p's done() before p goes */
	end = jiffies + msecs_to_jiffies(KV_WAIT_MS);
	while (atomic_read(&p->qa.inside) || atomic_read(&p->qb.inside)) {
		if (time_after(jiffies, end)) {
			kv_fail(r, "a pool CQ's done() did not return within %d ms", KV_WAIT_MS);
			return -EBUSY;	/* p stays (leaked) */
		}
		usleep_range(100, 200);
	}
	return ret ?: err;
}

int kv_case_cq_pool(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	unsigned int vectors = min_t(unsigned int, max(r->dev->num_comp_vectors, 1),
				     num_online_cpus());
	struct ib_cq *c1 = NULL, *c2 = NULL, *c3 = NULL, *c4 = NULL, *w = NULL, *again;
	unsigned int used, big = 0;
	struct kv_pool_bufs *b;
	int ret = 0, err;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return kv_fail(r, "no memory");
	c1 = kv_pool_get(r, 16, 0, IB_POLL_SOFTIRQ);
	if (!c1) {
		ret = -EIO;
		goto out;
	}
	used = c1->cqe_used - 16;	/* before ours */
	c2 = kv_pool_get(r, 16, 0, IB_POLL_SOFTIRQ);
	c3 = kv_pool_get(r, 16, vectors, IB_POLL_SOFTIRQ);	/* vector 0 again */
	if (!c2 || !c3) {
		ret = -EIO;
		goto out;
	}
	if (c2 != c1 || c3 != c1 || !c1->shared || c1->poll_ctx != IB_POLL_SOFTIRQ ||
	    c1->comp_vector || c1->cqe_used != used + 48 || c1->cqe_used > c1->cqe) {
		ret = kv_fail(r, "pool: %p %p %p shared %d ctx %d vec %u, %u of %d used (want %u)",
			      c1, c2, c3, c1->shared, c1->poll_ctx, c1->comp_vector,
			      c1->cqe_used, c1->cqe, used + 48);
		goto out;
	}
	/* more than the room left: another CQ of that vector */
	big = c1->cqe - c1->cqe_used + 1;
	if (big <= (unsigned int)r->dev->attrs.max_cqe) {
		c4 = kv_pool_get(r, big, 0, IB_POLL_SOFTIRQ);
		if (!c4) {
			ret = -EIO;
			goto out;
		}
		if (c4 == c1 || c4->comp_vector || c4->cqe_used < big || !c4->shared)
			ret = kv_fail(r, "pool: %u entries of a CQ with %u free came from %s",
				      big, big - 1, c4 == c1 ? "that CQ" : "a wrong CQ");
	}
	w = kv_pool_get(r, 16, -1, IB_POLL_UNBOUND_WORKQUEUE);
	if (!w) {
		ret = -EIO;
		goto out;
	}
	if (w == c1 || w->poll_ctx != IB_POLL_UNBOUND_WORKQUEUE || w->comp_vector >= vectors)
		ret = kv_fail(r, "pool of UNBOUND_WORKQUEUE: context %d vector %u", w->poll_ctx,
			      w->comp_vector);
	again = ib_cq_pool_get(r->dev, 16, 0, IB_POLL_DIRECT);
	if (!IS_ERR(again)) {
		ret = kv_fail(r, "ib_cq_pool_get(IB_POLL_DIRECT) gave a CQ");
		if (again)
			ib_cq_pool_put(again, 16);
	}
	if (ret)
		goto out;

	/* ib_core's: a consumer neither frees nor destroys it (the traffic proves it) */
	ib_free_cq(c1);
	err = ib_destroy_cq_user(c1, NULL);
	if (err != -EOPNOTSUPP) {
		ret = kv_fail(r, "ib_destroy_cq_user of a pool CQ: %d, want %d", err, -EOPNOTSUPP);
		goto out;
	}
	/* both pool CQs carry traffic (done() in their context) */
	ret = kv_pool_traffic(s, b, c1);
	ret = ret ?: kv_pool_traffic(s, b, w);
	if (ret == -EBUSY)
		b = NULL;	/* still in use: leaked */
	if (ret)
		goto out;
	/* a put of more than was taken is refused */
	ib_cq_pool_put(c1, c1->cqe_used + 1);
	if (c1->cqe_used != used + 48)
		ret = kv_fail(r, "pool: a put of more than taken left %u used, want %u",
			      c1->cqe_used, used + 48);
out:
	if (c4)
		ib_cq_pool_put(c4, big);
	if (w)
		ib_cq_pool_put(w, 16);
	if (c3)
		ib_cq_pool_put(c3, 16);
	if (c2)
		ib_cq_pool_put(c2, 16);
	if (c1)
		ib_cq_pool_put(c1, 16);
	if (!ret && c1->cqe_used != used)
		ret = kv_fail(r, "pool: %u entries used after every put, want %u",
			      c1->cqe_used, used);
	if (!ret) {
		/* what was given back is taken again */
		again = kv_pool_get(r, 16, 0, IB_POLL_SOFTIRQ);
		if (!again)
			ret = -EIO;
		else if (again != c1)
			ret = kv_fail(r, "pool: 16 entries after the puts from another CQ");
		if (again)
			ib_cq_pool_put(again, 16);
	}
	kfree(b);
	return ret;
}

/* ---------------------------------------------------------------------- */
/*
 * What ib_alloc_cq() refuses, and ib_free_cq() of a CQ a QP uses: refused,
 * the CQ keeps working, and is freed once the QP is gone.
 */
struct kv_busy_bufs {
	struct kv_apair	p;
	struct kv_acqe	se[KV_ACQ_N];
	struct kv_acqe	re[KV_ACQ_N];
};

int kv_case_cq_free_busy(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct {
		int cqe;
		int vector;
		int ctx;
	} bad[] = {
		{ 16, 0, IB_POLL_DIRECT + 1 },
		{ 0, 0, IB_POLL_WORKQUEUE },
		{ r->dev->attrs.max_cqe + 1, 0, IB_POLL_SOFTIRQ },
		{ 16, max(r->dev->num_comp_vectors, 1), IB_POLL_WORKQUEUE },
	};
	struct kv_busy_bufs *b;
	struct kv_apair *p;
	struct ib_cq *cq;
	int ret = 0, err, i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		cq = ib_alloc_cq(r->dev, NULL, bad[i].cqe, bad[i].vector, bad[i].ctx);
		if (!IS_ERR(cq)) {
			if (cq)
				ib_free_cq(cq);
			return kv_fail(r, "ib_alloc_cq(%d entries, vector %d, context %d) accepted",
				       bad[i].cqe, bad[i].vector, bad[i].ctx);
		}
	}

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return kv_fail(r, "no memory");
	p = &b->p;
	ret = kv_apair_create(r, p, IB_POLL_WORKQUEUE, IB_POLL_SOFTIRQ, false, NULL);
	if (ret)
		goto out;
	/* refused: the QP uses it */
	ib_free_cq(p->qa.cq);
	ib_free_cq(p->qb.cq);
	kv_acqe_init(b->se, &p->qa, KV_ACQ_N);
	kv_acqe_init(b->re, &p->qb, KV_ACQ_N);
	ret = kv_apair_traffic(s, p, b->se, b->re, KV_ACQ_N);
	ret = ret ?: kv_acq_wait(&p->qa, KV_ACQ_N, KV_WAIT_MS);
	ret = ret ?: kv_acq_wait(&p->qb, KV_ACQ_N, KV_WAIT_MS);
	ret = ret ?: kv_acqe_check(r, b->se, KV_ACQ_N, 0, IB_WC_SUCCESS, IB_WC_SEND,
				   "SEND after the refused ib_free_cq");
	ret = ret ?: kv_acqe_check(r, b->re, KV_ACQ_N, 0, IB_WC_SUCCESS, IB_WC_RECV,
				   "receive after the refused ib_free_cq");
	ret = ret ?: kv_acq_check(&p->qa, "sender's CQ");
	ret = ret ?: kv_acq_check(&p->qb, "receiver's CQ");
	err = kv_apair_destroy(r, p);
	ret = ret ?: err;
out:
	kfree(b);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: a verb whose firmware command times out must not call a
 * completion handler from its own call chain (review finding 30,
 * mlx4_ib/flush.c).  When a command times out, mlx4_core takes the card for
 * dead, resets it and tells mlx4_ib, which flushes the CQs in software and
 * wakes their consumers; those wake-ups must come from another context
 * than the verb that ran into the timeout.
 *
 * The fixture (debugfs `verbfix`, kverbs_peer.c): an RC QP in INIT with
 * KV_VF_RECVS receives outstanding on a CQ created with a completion
 * handler and armed.  tests/stack/guest/catas-timeout.sh sets it up, stops
 * mlx4_core's poll of the error buffer, makes the firmware stop, and has
 * the writer's task take the QP to ERR: the 2ERR_QP command times out.
 * The handler notes each call, and those made in the writer's task while
 * it is inside ib_modify_qp() (the defect).  After the verb the writer
 * waits for the handler (the flush must wake the consumer) and polls: every
 * receive back once, WR_FLUSH_ERR.  The verdict is one line.
 */
#include <linux/bitops.h>
#include <linux/delay.h>
#include <linux/hardirq.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kverbs.h"

#define KV_VF_RECVS	8
#define KV_VF_WRID	0x5e5e0000ULL	/* the receives' wr_ids: this + i */
#define KV_VF_CQE	32

struct kv_verb_fix {
	struct kv_run		r;		/* its own, on its own PD */
	struct kv_ep		ep;		/* rcq is the QP's only CQ */
	/* the writer's task while it is inside the verb, else NULL */
	struct task_struct	*verb_task;
	atomic_t		calls;		/* handler calls */
	atomic_t		in_verb;	/* ... in verb_task, inside the verb */
	char			first_ctx[TASK_COMM_LEN];	/* the first call's */
	wait_queue_head_t	wq;
	bool			ran;		/* the verb was called */
	char			verdict[512];
};

static void kv_vf_comp(struct ib_cq *cq, void *ctx)
{
	struct kv_verb_fix *vf = ctx;

	if (in_task() && READ_ONCE(vf->verb_task) == current)
		atomic_inc(&vf->in_verb);
	if (atomic_inc_return(&vf->calls) == 1)
		strscpy(vf->first_ctx, in_task() ? current->comm : "interrupt",
			sizeof(vf->first_ctx));
	wake_up(&vf->wq);
}

static void kv_vf_cq_event(struct ib_event *ev, void *ctx)
{
	pr_info(KV_NAME ": verbfix: CQ event %s\n", ib_event_msg(ev->event));
}

static void kv_vf_free(struct kv_verb_fix *vf)
{
	int err;

	if (vf->ep.qp) {
		err = ib_destroy_qp(vf->ep.qp);
		if (err)
			pr_warn(KV_NAME ": verbfix: ib_destroy_qp failed: %d\n", err);
		vf->ep.qp = NULL;
	}
	if (vf->ep.rcq.cq) {
		err = ib_destroy_cq_user(vf->ep.rcq.cq, NULL);
		if (err)
			pr_warn(KV_NAME ": verbfix: ib_destroy_cq failed: %d\n", err);
		vf->ep.rcq.cq = NULL;
	}
	if (vf->r.pd) {
		err = ib_dealloc_pd_user(vf->r.pd, NULL);
		if (err)
			pr_warn(KV_NAME ": verbfix: ib_dealloc_pd failed: %d\n", err);
		vf->r.pd = NULL;
	}
	kfree(vf);
}

/* NULL on failure, after a line "verbfix: setup failed: <why>" */
struct kv_verb_fix *kv_verb_fix_create(struct ib_device *dev)
{
	struct ib_cq_init_attr ca = { .cqe = KV_VF_CQE };
	struct kv_pair_opts o = { .max_send_wr = 4, .max_recv_wr = 2 * KV_VF_RECVS };
	struct kv_verb_fix *vf;
	struct kv_run *r;
	struct ib_cq *cq;
	int ret, i;

	vf = kzalloc(sizeof(*vf), GFP_KERNEL);
	if (!vf)
		return NULL;
	r = &vf->r;
	r->dev = dev;
	atomic_set(&vf->calls, 0);
	atomic_set(&vf->in_verb, 0);
	init_waitqueue_head(&vf->wq);
	init_waitqueue_head(&vf->ep.wq);
	vf->ep.r = r;
	vf->ep.port = 1;
	vf->ep.last_event = -1;

	r->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(r->pd)) {
		kv_fail(r, "ib_alloc_pd failed: %ld", PTR_ERR(r->pd));
		r->pd = NULL;
		goto err;
	}
	cq = ib_create_cq(dev, kv_vf_comp, kv_vf_cq_event, vf, &ca);
	if (IS_ERR_OR_NULL(cq)) {
		kv_fail(r, "ib_create_cq(%d) failed: %ld", KV_VF_CQE, cq ? PTR_ERR(cq) : -EINVAL);
		goto err;
	}
	/* the QP sends and receives on this one CQ */
	vf->ep.rcq.cq = cq;
	vf->ep.scq.cq = cq;
	vf->ep.qp = kv_qp_create(r, &vf->ep, IB_QPT_RC, &o, NULL, NULL);
	if (!vf->ep.qp)
		goto err;
	ret = kv_qp_init(r, vf->ep.qp, IB_QPT_RC, 1, 0);
	for (i = 0; i < KV_VF_RECVS && !ret; i++)
		ret = kv_recv(r, vf->ep.qp, KV_VF_WRID + i, NULL, 0);
	if (ret)
		goto err;
	ret = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	if (ret) {
		kv_fail(r, "ib_req_notify_cq failed: %d", ret);
		goto err;
	}
	pr_info(KV_NAME ": verbfix: QP 0x%x in INIT with %d receives, its CQ armed\n",
		vf->ep.qp->qp_num, KV_VF_RECVS);
	return vf;

err:
	pr_info(KV_NAME ": verbfix: setup failed: %s\n", r->why[0] ? r->why : "no reason");
	vf->ep.scq.cq = NULL;
	kv_vf_free(vf);
	return NULL;
}

/*
 * The flushed receives, polled after the handler's call: each wr_id once,
 * WR_FLUSH_ERR, on our QP; then nothing more.  Returns how many came
 * right, or -EIO with a reason.
 */
static int kv_vf_poll(struct kv_verb_fix *vf)
{
	unsigned long end = jiffies + msecs_to_jiffies(KV_WAIT_MS);
	struct ib_cq *cq = vf->ep.rcq.cq;
	DECLARE_BITMAP(seen, KV_VF_RECVS);
	struct kv_run *r = &vf->r;
	struct ib_wc wc[4];
	int got = 0, n, i;
	u64 k;

	bitmap_zero(seen, KV_VF_RECVS);
	while (got < KV_VF_RECVS) {
		n = ib_poll_cq(cq, ARRAY_SIZE(wc), wc);
		if (n < 0)
			return kv_fail(r, "ib_poll_cq failed: %d", n);
		if (!n) {
			if (time_after(jiffies, end))
				return got;
			msleep(20);
			continue;
		}
		for (i = 0; i < n; i++) {
			k = wc[i].wr_id - KV_VF_WRID;
			if (k >= KV_VF_RECVS || test_and_set_bit(k, seen))
				return kv_fail(r, "completion of wr_id 0x%llx (unknown or twice)",
					       wc[i].wr_id);
			if (wc[i].status != IB_WC_WR_FLUSH_ERR)
				return kv_fail(r, "receive %llu: %s, not WR_FLUSH_ERR", k,
					       kv_status(wc[i].status));
			if (wc[i].qp != vf->ep.qp)
				return kv_fail(r, "receive %llu names another QP", k);
			got++;
		}
	}
	n = ib_poll_cq(cq, ARRAY_SIZE(wc), wc);
	if (n)
		return kv_fail(r, "%d more completion(s) after the %d receives (poll: %d)",
			       max(n, 0), KV_VF_RECVS, n);
	return got;
}

/*
 * [sleep] In the writer's task: the verb whose command times out on the
 * dead firmware, then the checks.  Once per fixture: -EBUSY after.
 */
int kv_verb_fix_run(struct kv_verb_fix *vf)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };
	struct kv_run *r = &vf->r;
	int err, got = 0, calls;
	ktime_t t0;
	s64 ms;

	if (vf->ran)
		return -EBUSY;
	vf->ran = true;
	pr_info(KV_NAME ": verbfix: ib_modify_qp(0x%x, ERR) from %s[%d]\n",
		vf->ep.qp->qp_num, current->comm, task_pid_nr(current));
	WRITE_ONCE(vf->verb_task, current);
	t0 = ktime_get();
	err = ib_modify_qp(vf->ep.qp, &a, IB_QP_STATE);
	ms = ktime_ms_delta(ktime_get(), t0);
	WRITE_ONCE(vf->verb_task, NULL);

	/* the consumer must be woken (from elsewhere) to poll the flush */
	wait_event_timeout(vf->wq, atomic_read(&vf->calls),
			   msecs_to_jiffies(2 * KV_WAIT_MS));
	calls = atomic_read(&vf->calls);
	if (err)
		kv_fail(r, "ib_modify_qp(ERR) on the card that died under it: %d, %s",
			err, "want 0 (a teardown)");
	else if (ms < 59000)
		kv_fail(r, "the verb returned after %lld ms: no command timed out", ms);
	else if (atomic_read(&vf->in_verb))
		kv_fail(r, "the completion handler ran in the verb's call chain");
	else if (!calls)
		kv_fail(r, "no completion handler call within %d ms of the verb's return",
			2 * KV_WAIT_MS);
	got = kv_vf_poll(vf);
	if (got >= 0 && got < KV_VF_RECVS)
		kv_fail(r, "%d of %d flushed receives polled", got, KV_VF_RECVS);
	snprintf(vf->verdict, sizeof(vf->verdict),
		 "%s: %s; verb_ret=%d verb_ms=%lld handler_calls=%d in_verb=%d handler_ctx=%s flushed=%d/%d\n",
		 r->why[0] ? "FAIL" : "PASS",
		 r->why[0] ? r->why :
		 "the handler ran outside the verb and every receive came back flushed",
		 err, ms, calls, atomic_read(&vf->in_verb),
		 calls ? vf->first_ctx : "-", max(got, 0), KV_VF_RECVS);
	pr_info(KV_NAME ": verbfix: %s", vf->verdict);
	return 0;
}

/* The verdict line (or what is missing for one) into buf. */
int kv_verb_fix_verdict(struct kv_verb_fix *vf, char *buf, size_t size)
{
	if (!vf)
		return scnprintf(buf, size, "not set up (write 1)\n");
	if (!vf->ran)
		return scnprintf(buf, size, "set up, verb not called (write 2)\n");
	return scnprintf(buf, size, "%s", vf->verdict);
}

/* Everything goes, on a working card or a dead one (remove(), reset). */
void kv_verb_fix_destroy(struct kv_verb_fix *vf)
{
	if (!vf)
		return;
	vf->ep.scq.cq = NULL;
	kv_vf_free(vf);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: destroying a QP that is still busy - one attached to
 * multicast groups (refused until it has left them), and one with receive
 * completions from an SRQ in its CQ while the CQ is polled (the SRQ gets
 * every WQE back).
 */
#include <linux/bitmap.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "kverbs.h"

/* ---------------------------------------------------------------------- */
/* Multicast */

/* A UD QP on port 2 and an AH from it to the group (over the cable). */
static int kv_mc_sender(struct kv_run *r, struct kv_ep *ep, const union ib_gid *mgid,
			u16 mlid, struct ib_ah **ah)
{
	int ret;

	ret = kv_ud_ep(r, ep, 2, NULL);
	if (ret)
		return ret;
	*ah = kv_mc_ah(r, mgid, mlid, 2);
	return *ah ? 0 : -EIO;
}

/* One message to the group must reach the member. */
static int kv_mc_reaches(struct kv_self *s, struct kv_ep *snd, struct ib_ah *ah,
			 struct kv_ep *m, u64 wr_id, const char *what)
{
	struct kv_run *r = &s->r;
	struct ib_sge ss = kv_sge_dma(r, &s->a, 0, 64);
	struct ib_sge rs = kv_sge_mr(&s->b, 0, KV_GRH + 64);
	int ret;

	ret = kv_recv(r, m->qp, wr_id, &rs, 1);
	ret = ret ?: kv_ud_send(r, snd, ah, 0xffffff, KV_QKEY, wr_id, &ss, IB_WR_SEND);
	ret = ret ?: kv_expect(r, &snd->scq, "send to the group", wr_id, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &m->rcq, what, wr_id, IB_WC_SUCCESS, IB_WC_RECV, NULL);
	return ret;
}

/*
 * A QP attached to a multicast group is not destroyed (-EBUSY, as
 * upstream's ib_destroy_qp()): attached twice to one group it stays a
 * member until both attachments are detached, and can be destroyed then.
 */
int kv_case_mcast_busy(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct kv_ep m = { 0 }, snd = { 0 };
	struct ib_ah *ah = NULL;
	union ib_gid mgid;
	int attached = 0, ret, err;
	u16 mlid;

	kv_mc_group(3, &mgid, &mlid);
	ret = kv_mc_member(r, &m, 0, &mgid, mlid);
	if (ret)
		goto out;
	attached = 1;
	err = ib_attach_mcast(m.qp, &mgid, mlid);
	if (err) {
		ret = kv_fail(r, "second ib_attach_mcast to the same group: %d", err);
		goto out;
	}
	attached = 2;
	ret = kv_mc_sender(r, &snd, &mgid, mlid, &ah);
	if (ret)
		goto out;

	/* refused with 2, then 1 attachment left, a member all along */
	while (attached) {
		err = ib_destroy_qp(m.qp);
		if (err != -EBUSY) {
			ret = kv_fail(r, "ib_destroy_qp attached %d time(s): %d, want -EBUSY",
				      attached, err);
			if (!err)
				m.qp = NULL;
			goto out;
		}
		ret = kv_mc_reaches(s, &snd, ah, &m, attached, "a QP refused destruction");
		if (ret)
			goto out;
		err = ib_detach_mcast(m.qp, &mgid, mlid);
		if (err) {
			ret = kv_fail(r, "ib_detach_mcast attached %d time(s): %d", attached, err);
			goto out;
		}
		attached--;
	}
	err = ib_detach_mcast(m.qp, &mgid, mlid);
	if (err != -EINVAL) {
		ret = kv_fail(r, "ib_detach_mcast of a group left: %d, want -EINVAL", err);
		goto out;
	}
	err = ib_destroy_qp(m.qp);
	if (err)
		ret = kv_fail(r, "ib_destroy_qp after leaving the group: %d", err);
	else
		m.qp = NULL;
out:
	while (m.qp && attached-- > 0)
		ib_detach_mcast(m.qp, &mgid, mlid);
	if (ah && rdma_destroy_ah_user(ah, 0, NULL))
		ret = kv_fail(r, "rdma_destroy_ah_user failed");
	if (snd.r && kv_ep_destroy(r, &snd))
		ret = -EIO;
	if (m.r && kv_ep_destroy(r, &m))
		ret = -EIO;
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Destroying a QP on an SRQ while its CQ is polled */

#define KV_SRQ_WR	15	/* asked: 16 WQEs, one kept by the free list */
#define KV_SRQ_SENT	4	/* receive completions in the CQ at destroy */

/*
 * A poll of the CQ "by another CPU" at the worst moment: right after the
 * driver took the QP out of its QPN lookup (an xa_erase() with interrupts
 * on, so no CQ lock held).  With kretprobes the probe polls there, once;
 * without them a thread polls the CQ while the QP is destroyed.
 */
struct kv_race {
	struct task_struct	*task;		/* the destroying task, armed */
	struct ib_cq		*cq;
	int			polled;		/* -1: the probe never polled */
	struct ib_wc		wc[KV_SRQ_WR];
	bool			stop;		/* the thread's */
};

/* one case at a time uses the probe and its state */
static DEFINE_MUTEX(kv_race_mutex);
static struct kv_race kv_race;

#if defined(CONFIG_KRETPROBES) && defined(CONFIG_X86)
static int kv_race_xa_erase(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (READ_ONCE(kv_race.task) != current || !(regs->flags & X86_EFLAGS_IF))
		return 0;
	WRITE_ONCE(kv_race.task, NULL);
	kv_race.polled = ib_poll_cq(kv_race.cq, ARRAY_SIZE(kv_race.wc), kv_race.wc);
	return 0;
}

static struct kretprobe kv_race_probe = {
	.kp.symbol_name	= "xa_erase",
	.handler	= kv_race_xa_erase,
	.maxactive	= 16,
};

static bool kv_race_probe_on(void)
{
	return !register_kretprobe(&kv_race_probe);
}

static void kv_race_probe_off(void)
{
	unregister_kretprobe(&kv_race_probe);
}
#else
static bool kv_race_probe_on(void)
{
	return false;
}

static void kv_race_probe_off(void)
{
}
#endif

static int kv_race_poller(void *arg)
{
	struct ib_wc wc[4];

	while (!READ_ONCE(kv_race.stop)) {
		ib_poll_cq(kv_race.cq, ARRAY_SIZE(wc), wc);
		cond_resched();
	}
	return 0;
}

/* Destroy the QP while its receive CQ is polled; returns the error. */
static int kv_race_destroy(struct kv_run *r, struct kv_ep *ep, struct kv_cq *rcq)
{
	struct task_struct *poller = NULL;
	bool probe;
	int err;

	mutex_lock(&kv_race_mutex);
	memset(&kv_race, 0, sizeof(kv_race));
	kv_race.cq = rcq->cq;
	kv_race.polled = -1;
	probe = kv_race_probe_on();
	if (probe) {
		WRITE_ONCE(kv_race.task, current);
	} else {
		poller = kthread_run(kv_race_poller, NULL, "kv_poller");
		if (IS_ERR(poller))
			poller = NULL;
	}
	err = ib_destroy_qp(ep->qp);
	WRITE_ONCE(kv_race.task, NULL);
	if (probe)
		kv_race_probe_off();
	if (poller) {
		WRITE_ONCE(kv_race.stop, true);
		kthread_stop(poller);
	}
	pr_info(KV_NAME ": srq-destroy-poll: %s, the probe polled %d\n",
		probe ? "kretprobe on xa_erase" : "a polling thread", kv_race.polled);
	mutex_unlock(&kv_race_mutex);
	if (!err)
		ep->qp = NULL;
	return err;
}

static int kv_srq_post(struct kv_self *s, struct ib_srq *srq, u64 wr_id, int i)
{
	const struct ib_recv_wr *bad = NULL;
	struct ib_sge rs = kv_sge_mr(&s->b, i * 1024, 1024);
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &rs, .num_sge = 1 };

	return kv_post_srq_recv(&s->r, srq, &wr, &bad);
}

/* n SENDs from a, each completed (so each consumed an SRQ WQE at b). */
static int kv_srq_sends(struct kv_self *s, struct kv_ep *a, int n, u64 base)
{
	struct kv_run *r = &s->r;
	struct ib_sge ss;
	int ret = 0, i;

	for (i = 0; i < n && !ret; i++) {
		ss = kv_sge_dma(r, &s->a, 0, 64 + i);
		ret = kv_send(r, a, IB_WR_SEND, base + i, &ss, 1, 0);
		ret = ret ?: kv_expect(r, &a->scq, "send to the SRQ's QP", base + i,
				       IB_WC_SUCCESS, IB_WC_SEND, NULL);
	}
	return ret;
}

/*
 * The SRQ holds all it was granted again: the destroyed QP's receives
 * gave their WQEs back.  Post the used ones again (it is full then), then
 * receive through a new QP as many messages as it holds.
 */
static int kv_srq_full_depth(struct kv_self *s, struct ib_srq *srq, u32 depth,
			     struct kv_cq *rcq)
{
	struct kv_pair_opts o = { .srq_b = srq, .rcq_b = rcq };
	struct kv_run *r = &s->r;
	struct kv_pair *p = &s->pair[1];
	DECLARE_BITMAP(seen, 2 * KV_SRQ_WR + KV_SRQ_SENT) = { 0 };
	struct ib_wc wc;
	u64 id;
	int ret, err, i;

	if (depth > 2 * KV_SRQ_WR)
		return kv_fail(r, "SRQ depth %u", depth);
	for (i = 0; i < KV_SRQ_SENT; i++) {
		err = kv_srq_post(s, srq, 2000 + i, i);
		if (err)
			return kv_fail(r, "SRQ of %u shrank: re-posting receive %d of %d: %d",
				       depth, i + 1, KV_SRQ_SENT, err);
	}
	err = kv_srq_post(s, srq, 3000, 0);
	if (err != -ENOMEM)
		return kv_fail(r, "SRQ of %u WQEs took one more receive: %d, want -ENOMEM",
			       depth, err);
	ret = kv_pair_create(r, p, IB_QPT_RC, &o);
	if (ret)
		return ret;
	ret = kv_srq_sends(s, &p->a, depth, 4000);
	/* each WQE left over or posted again, once */
	for (i = 0; i < depth && !ret; i++) {
		memset(&wc, 0, sizeof(wc));
		if (kv_wait_wc(r, rcq, &wc, 1, KV_WAIT_MS) != 1) {
			ret = kv_fail(r, "receive %d of %u through the SRQ did not come", i, depth);
			break;
		}
		id = wc.wr_id >= 2000 ? wc.wr_id - 2000 + depth : wc.wr_id - 1000;
		if (wc.status != IB_WC_SUCCESS || wc.qp != p->b.qp ||
		    wc.wr_id < 1000 + KV_SRQ_SENT || id >= depth + KV_SRQ_SENT ||
		    test_and_set_bit(id, seen))
			ret = kv_fail(r, "receive %d through the SRQ: wr_id %llu status %s",
				      i, wc.wr_id, kv_status(wc.status));
	}
	if (!ret)
		ret = kv_expect_quiet(r, rcq, "the SRQ after its depth", 50);
	if (kv_pair_destroy(r, p))
		ret = -EIO;
	return ret;
}

/*
 * Four receive completions from an SRQ wait in the receive CQ when their QP
 * is destroyed while the CQ is being polled: the driver must clean them out
 * (giving their WQEs back to the SRQ) before the QP leaves its lookup, so
 * that a poll in between finds either the QP or none of its CQEs.  Then
 * the SRQ takes its full depth of receives again.
 */
int kv_case_srq_destroy_poll(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct kv_pair *p = &s->pair[0];
	struct kv_pair_opts o = { 0 };
	struct ib_srq_init_attr sia;
	struct kv_cq rcq = { 0 };
	struct ib_srq *srq;
	u32 depth;
	int ret, err, i;

	ret = kv_cq_create(r, &rcq, 64);
	if (ret)
		return ret;
	memset(&sia, 0, sizeof(sia));
	sia.attr.max_wr = KV_SRQ_WR;
	sia.attr.max_sge = 1;
	sia.srq_type = IB_SRQT_BASIC;
	srq = ib_create_srq(r->pd, &sia);
	if (IS_ERR_OR_NULL(srq)) {
		ret = kv_fail(r, "ib_create_srq failed: %ld", srq ? PTR_ERR(srq) : -EINVAL);
		goto out_cq;
	}
	depth = sia.attr.max_wr;
	if (depth < KV_SRQ_WR || depth > KV_SRQ_WR * 2) {
		ret = kv_fail(r, "SRQ of %d WQEs granted %u", KV_SRQ_WR, depth);
		goto out_srq;
	}
	for (i = 0; i < depth && !ret; i++) {
		err = kv_srq_post(s, srq, 1000 + i, i);
		if (err)
			ret = kv_fail(r, "posting receive %d of %u to the SRQ: %d", i, depth, err);
	}
	if (ret)
		goto out_srq;
	o.srq_b = srq;
	o.rcq_b = &rcq;
	ret = kv_pair_create(r, p, IB_QPT_RC, &o);
	if (ret)
		goto out_srq;
	/* RC: each receive completed at b before its send completed at a */
	ret = kv_srq_sends(s, &p->a, KV_SRQ_SENT, 100);
	if (!ret) {
		err = kv_race_destroy(r, &p->b, &rcq);
		if (err)
			ret = kv_fail(r, "ib_destroy_qp of the SRQ's QP: %d", err);
	}
	ret = ret ?: kv_expect_quiet(r, &rcq, "the destroyed QP's completions", 50);
	if (kv_pair_destroy(r, p))
		ret = -EIO;
	ret = ret ?: kv_srq_full_depth(s, srq, depth, &rcq);
out_srq:
	err = ib_destroy_srq_user(srq, NULL);
	if (err)
		ret = kv_fail(r, "ib_destroy_srq failed: %d", err);
out_cq:
	if (kv_cq_destroy(&rcq))
		ret = -EIO;
	return ret;
}

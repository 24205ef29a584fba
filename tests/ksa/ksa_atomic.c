// SPDX-License-Identifier: GPL-2.0
/*
 * The calls IPoIB makes with its own spinlock held and interrupts off
 * (ib_sa_path_rec_get with GFP_ATOMIC, ib_sa_join_multicast with
 * GFP_ATOMIC, ib_sa_get_mcmember_rec, ib_sa_cancel_query), made the same
 * way from port 1: each must work there; and a path query from softirq
 * context (a timer), as IPoIB's transmit path makes it under NAPI when
 * an ARP reply arrives.  On the debug kernel
 * (CONFIG_DEBUG_ATOMIC_SLEEP, lockdep) a call that could sleep is
 * reported and fails the boot; everywhere the results are checked.
 */
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/preempt.h>
#include <ibstack/compat.h>
#include "ksa.h"

#define KSA_ATOMIC_WAIT_MS	20000

/* the ULP's lock the calls are made under */
static DEFINE_SPINLOCK(ksa_atomic_lock);

/* a site-local MGID of ours, for this test only */
static const union ib_gid ksa_atomic_mgid = { .raw = {
	0xff, 0x15, 0x5a, 0x5a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xa7, 0x01 } };

struct ksa_atomic_member {
	struct completion	done;	/* the first callback */
	int			status;
	u16			mlid;
};

static int ksa_atomic_mc_cb(int status, struct ib_sa_multicast *mc)
{
	struct ksa_atomic_member *m = mc->context;

	if (!completion_done(&m->done)) {
		m->status = status;
		m->mlid = be16_to_cpu(mc->rec.mlid);
		complete(&m->done);
	}
	return 0;
}

/* false if the callback never came (then nothing may be freed) */
static bool ksa_atomic_wait(struct ksa_ctx *ctx, struct completion *done,
			    const char *name)
{
	if (wait_for_completion_timeout(done, msecs_to_jiffies(KSA_ATOMIC_WAIT_MS)))
		return true;
	ksa_fail(ctx, name, "no callback within %d ms", KSA_ATOMIC_WAIT_MS);
	return false;
}

/* a path query started by a timer, in softirq context */
struct ksa_atomic_softirq {
	struct timer_list	timer;
	struct completion	fired;		/* the timer ran */
	struct ksa_ctx		*ctx;
	struct sa_path_rec	req;
	ib_sa_comp_mask		mask;
	struct ksa_async	path;
	struct ib_sa_query	*query;
	int			id;
	bool			in_softirq;	/* where the timer found itself */
};

/* the one in flight (ksa runs its tests one at a time) */
static struct ksa_atomic_softirq *ksa_atomic_softirq_call;

static void ksa_atomic_timer(struct timer_list *timer)
{
	struct ksa_atomic_softirq *s = ksa_atomic_softirq_call;

	s->in_softirq = in_softirq();
	s->id = ib_sa_path_rec_get(&ksa_client, s->ctx->device, 1, &s->req, s->mask,
				   KSA_TIMEOUT_MS, GFP_ATOMIC, ksa_path_cb, &s->path,
				   &s->query);
	complete(&s->fired);
}

static void ksa_atomic_softirq_test(struct ksa_ctx *ctx)
{
	struct ksa_atomic_softirq *s;
	const char *name = "atomic: path query from softirq context";

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		ksa_fail(ctx, name, "no memory");
		return;
	}
	s->ctx = ctx;
	s->mask = ksa_path_req(ctx, 0, &s->req);
	init_completion(&s->fired);
	init_completion(&s->path.done);
	ksa_atomic_softirq_call = s;
	timer_setup(&s->timer, ksa_atomic_timer, 0);
	mod_timer(&s->timer, jiffies + 1);
	wait_for_completion(&s->fired);
	ibstack_timer_delete_sync(&s->timer);
	ksa_atomic_softirq_call = NULL;

	if (s->id < 0) {
		ksa_fail(ctx, name, "ib_sa_path_rec_get returned %d", s->id);
	} else if (ksa_atomic_wait(ctx, &s->path.done, name)) {
		ksa_check(ctx, s->in_softirq && !s->path.status && s->path.num == 1, name,
			  "in softirq %d, status %d, %d records", s->in_softirq,
			  s->path.status, s->path.num);
	} else {
		ib_sa_cancel_query(s->id, s->query);
		wait_for_completion(&s->path.done);
	}
	kfree(s);
}

void ksa_atomic_tests(struct ksa_ctx *ctx)
{
	struct ksa_async path = {}, cancelled = {};
	struct ksa_atomic_member member = {};
	struct ib_sa_query *query, *query2;
	struct ib_sa_mcmember_rec rec, cached;
	struct ib_sa_multicast *mc;
	union ib_gid mgid = ksa_atomic_mgid;
	struct sa_path_rec req;
	ib_sa_comp_mask mask, mc_mask;
	unsigned long flags;
	int id, id2, ret;

	ret = ksa_refresh_ports(ctx);
	if (ret) {
		ksa_fail(ctx, "atomic: query the ports", "error %d", ret);
		return;
	}
	init_completion(&path.done);
	init_completion(&cancelled.done);
	init_completion(&member.done);
	mask = ksa_path_req(ctx, 0, &req);
	mc_mask = ksa_create_rec(ctx, &ksa_atomic_mgid, 5, &rec);

	/* 1: a path query and a join, as IPoIB starts them */
	spin_lock_irqsave(&ksa_atomic_lock, flags);
	id = ib_sa_path_rec_get(&ksa_client, ctx->device, 1, &req, mask,
				KSA_TIMEOUT_MS, GFP_ATOMIC, ksa_path_cb, &path,
				&query);
	mc = ib_sa_join_multicast(&ksa_client, ctx->device, 1, &rec, mc_mask,
				  GFP_ATOMIC, ksa_atomic_mc_cb, &member);
	spin_unlock_irqrestore(&ksa_atomic_lock, flags);

	if (id < 0) {
		ksa_fail(ctx, "atomic: path query started under a spinlock",
			 "ib_sa_path_rec_get returned %d", id);
	} else if (ksa_atomic_wait(ctx, &path.done, "atomic: path query answered")) {
		ksa_check(ctx, !path.status && path.num == 1,
			  "atomic: path query answered", "status %d, %d records",
			  path.status, path.num);
	} else {
		/* never leave a callback pointing at this stack frame */
		ib_sa_cancel_query(id, query);
		wait_for_completion(&path.done);
	}
	if (IS_ERR(mc)) {
		ksa_fail(ctx, "atomic: joined under a spinlock",
			 "ib_sa_join_multicast returned %ld", PTR_ERR(mc));
		return;
	}
	if (ksa_atomic_wait(ctx, &member.done, "atomic: joined under a spinlock"))
		ksa_check(ctx, !member.status && member.mlid >= 0xc000,
			  "atomic: joined under a spinlock",
			  "status %d mlid 0x%x", member.status, member.mlid);

	/* 2: the group's record, and a query cancelled, under the lock */
	init_completion(&cancelled.done);
	spin_lock_irqsave(&ksa_atomic_lock, flags);
	ret = ib_sa_get_mcmember_rec(ctx->device, 1, &mgid, &cached);
	id2 = ib_sa_path_rec_get(&ksa_client, ctx->device, 1, &req, mask,
				 KSA_TIMEOUT_MS, GFP_ATOMIC, ksa_path_cb,
				 &cancelled, &query2);
	if (id2 >= 0)
		ib_sa_cancel_query(id2, query2);
	spin_unlock_irqrestore(&ksa_atomic_lock, flags);

	ksa_check(ctx, !ret && be16_to_cpu(cached.mlid) == member.mlid,
		  "atomic: ib_sa_get_mcmember_rec under a spinlock",
		  "ret %d mlid 0x%x want 0x%x", ret, be16_to_cpu(cached.mlid),
		  member.mlid);
	if (id2 < 0)
		ksa_fail(ctx, "atomic: query cancelled under a spinlock",
			 "ib_sa_path_rec_get returned %d", id2);
	else if (ksa_atomic_wait(ctx, &cancelled.done,
				 "atomic: query cancelled under a spinlock"))
		/* an answer may beat the cancel; never a second callback */
		ksa_check(ctx, (cancelled.status == -EINTR || !cancelled.status) &&
			  cancelled.calls == 1,
			  "atomic: query cancelled under a spinlock",
			  "status %d, %d calls", cancelled.status, cancelled.calls);
	else
		wait_for_completion(&cancelled.done);

	/* leaving may sleep (as upstream): outside the lock */
	ib_sa_free_multicast(mc);

	/* 3: a path query from softirq context */
	ksa_atomic_softirq_test(ctx);
}

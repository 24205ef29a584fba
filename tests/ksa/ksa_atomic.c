// SPDX-License-Identifier: GPL-2.0
/*
 * The calls IPoIB makes with its own spinlock held and interrupts off
 * (ib_sa_path_rec_get with GFP_ATOMIC, ib_sa_join_multicast with
 * GFP_ATOMIC, ib_sa_get_mcmember_rec, ib_sa_cancel_query), made the same
 * way from port 1: each must work there.  On the debug kernel
 * (CONFIG_DEBUG_ATOMIC_SLEEP, lockdep) a call that could sleep is
 * reported and fails the boot; everywhere the results are checked.
 */
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/spinlock.h>
#include <linux/string.h>
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
}

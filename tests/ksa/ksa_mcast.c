// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast checks on port 1.  join: member A creates a group with a zero
 * MGID (the SA picks one), member B joins A's MGID (shared: ib_sa asks the
 * SA once), member C creates a group with an MGID of ours, member D joins
 * C's group with JoinState 3 (full and non member, what IPoIB's send-only
 * join passes); a join whose components differ from A's group fails with
 * -EINVAL without asking the SA, a join the SA refuses fails with -EINVAL.
 * leave1: B leaves, A's group stays.  leave: the others leave, both groups
 * go.  When ib_sa tells a member -ENETRESET (the port went down, its LID
 * changed, a new SM asked for reregistration), this module does what IPoIB
 * does: it frees the membership and joins again (a work item, retried
 * every second while the port is not usable).  rejoin: every member was
 * told -ENETRESET and joined again since the last check.  The guest script
 * compares with saquery and with ib_sa's request counters.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "ksa.h"

#define KSA_QKEY	0x0badc0de
#define KSA_JOIN_WAIT_MS 20000
#define KSA_REJOIN_WAIT_MS 60000

enum { KSA_A, KSA_B, KSA_C, KSA_D, KSA_NR_MEMBERS };
static const char * const ksa_member_name[KSA_NR_MEMBERS] = { "A", "B", "C", "D" };

/*
 * mc, req and mask are under ksa_mc_lock; the other fields are written
 * by the callback (ib_sa's work queue) and read by the cmd and the work.
 */
struct ksa_member {
	const char		*name;
	struct ib_sa_multicast	*mc;
	struct ib_sa_mcmember_rec req;		/* what a (re)join asks */
	ib_sa_comp_mask		mask;
	struct completion	first;		/* the first callback */
	int			status;		/* of the last callback */
	int			calls;
	bool			auto_rejoin;	/* free and join again on errors */
	unsigned long		flags;
#define KSA_NEED_REJOIN		0	/* for the rejoin work */
#define KSA_AFTER_RESET		1	/* the next join is a rejoin */
	unsigned int		resets;		/* -ENETRESET callbacks */
	unsigned int		rejoined;	/* joins completed after one */
	unsigned int		resets_base;	/* counts at the last check */
	unsigned int		rejoined_base;
};

static struct ksa_member ksa_members[KSA_NR_MEMBERS];
/* protects the members' mc, req and mask, ksa_mc_dev and ksa_rejoin_on */
static DEFINE_MUTEX(ksa_mc_lock);
static struct ib_device *ksa_mc_dev;
static bool ksa_rejoin_on;
static void ksa_rejoin_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(ksa_rejoin_work, ksa_rejoin_fn);

/* our own MGID for C: link-local scope, transient */
static const union ib_gid ksa_mgid_c = { .raw = {
	0xff, 0x12, 0x5a, 0x5a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0c, 0xde } };
/* a group nobody created */
static const union ib_gid ksa_mgid_none = { .raw = {
	0xff, 0x12, 0x5a, 0x5a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0b, 0xad } };

static int ksa_mc_cb(int status, struct ib_sa_multicast *mc)
{
	struct ksa_member *m = mc->context;

	WRITE_ONCE(m->status, status);
	WRITE_ONCE(m->calls, m->calls + 1);
	pr_info(KSA_PFX "member %s callback: status %d mgid %pI6 mlid 0x%x join_state %u\n",
		m->name, status, mc->rec.mgid.raw, be16_to_cpu(mc->rec.mlid),
		mc->rec.join_state);
	if (status == -ENETRESET)
		WRITE_ONCE(m->resets, m->resets + 1);
	if (!status && test_and_clear_bit(KSA_AFTER_RESET, &m->flags))
		WRITE_ONCE(m->rejoined, m->rejoined + 1);
	/* as IPoIB: a lost membership, or a failed rejoin, is joined again */
	if (READ_ONCE(m->auto_rejoin) &&
	    (status == -ENETRESET ||
	     (status && test_bit(KSA_AFTER_RESET, &m->flags)))) {
		set_bit(KSA_NEED_REJOIN, &m->flags);
		queue_delayed_work(system_wq, &ksa_rejoin_work,
				   status == -ENETRESET ? 0 : HZ);
	}
	if (!completion_done(&m->first))
		complete(&m->first);
	return 0;
}

/*
 * Frees every membership needing a rejoin, then joins each again (A
 * before B: A's join creates the group B shares).  A join refused at once
 * (the port is down, the SM not known yet: -EAGAIN) is tried again a
 * second later.
 */
static void ksa_rejoin_fn(struct work_struct *work)
{
	struct ib_sa_multicast *mc;
	bool retry = false;
	int i;

	mutex_lock(&ksa_mc_lock);
	if (!ksa_rejoin_on)
		goto out;
	for (i = 0; i < KSA_NR_MEMBERS; i++) {
		struct ksa_member *m = &ksa_members[i];

		if (test_bit(KSA_NEED_REJOIN, &m->flags) && m->mc) {
			ib_sa_free_multicast(m->mc);
			m->mc = NULL;
		}
	}
	for (i = 0; i < KSA_NR_MEMBERS; i++) {
		struct ksa_member *m = &ksa_members[i];

		if (!test_and_clear_bit(KSA_NEED_REJOIN, &m->flags))
			continue;
		set_bit(KSA_AFTER_RESET, &m->flags);
		mc = ib_sa_join_multicast(&ksa_client, ksa_mc_dev, 1, &m->req,
					  m->mask, GFP_KERNEL, ksa_mc_cb, m);
		if (IS_ERR(mc)) {
			set_bit(KSA_NEED_REJOIN, &m->flags);
			retry = true;
		} else {
			m->mc = mc;
		}
	}
	if (retry)
		queue_delayed_work(system_wq, &ksa_rejoin_work, HZ);
out:
	mutex_unlock(&ksa_mc_lock);
}

/*
 * A join that creates a group: every component the SA needs for that.
 * For a group whose MGID the SA picks, scope is that MGID's scope: site
 * (5) for A, as opensm refuses requests naming one of its own link-local
 * (2) MGIDs, so a new SM could not re-create such a group on rejoin.
 */
ib_sa_comp_mask ksa_create_rec(struct ksa_ctx *ctx, const union ib_gid *mgid,
			       u8 scope, struct ib_sa_mcmember_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->mgid = *mgid;
	rec->port_gid = ctx->port[0].gid;
	rec->qkey = cpu_to_be32(KSA_QKEY);
	rec->pkey = cpu_to_be16(ctx->port[0].pkey);
	rec->sl = 0;
	rec->flow_label = 0;
	rec->traffic_class = 0;
	rec->scope = scope;
	rec->join_state = BIT(FULLMEMBER_JOIN);
	return IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID |
	       IB_SA_MCMEMBER_REC_QKEY | IB_SA_MCMEMBER_REC_PKEY |
	       IB_SA_MCMEMBER_REC_SL | IB_SA_MCMEMBER_REC_FLOW_LABEL |
	       IB_SA_MCMEMBER_REC_TRAFFIC_CLASS | IB_SA_MCMEMBER_REC_SCOPE |
	       IB_SA_MCMEMBER_REC_JOIN_STATE;
}

/* a join of an existing group: only MGID, port GID and join state */
static ib_sa_comp_mask ksa_share_rec(struct ksa_ctx *ctx, const union ib_gid *mgid,
				     u8 join_state, struct ib_sa_mcmember_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->mgid = *mgid;
	rec->port_gid = ctx->port[0].gid;
	rec->join_state = join_state;
	return IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID |
	       IB_SA_MCMEMBER_REC_JOIN_STATE;
}

/*
 * Joins m with rec/mask and waits for its first callback: its status, or
 * the call's errno, or -ETIME without a callback (then m->mc is kept).
 */
static int ksa_join_wait(struct ksa_ctx *ctx, struct ksa_member *m,
			 const struct ib_sa_mcmember_rec *rec,
			 ib_sa_comp_mask mask)
{
	struct ib_sa_multicast *mc;

	lockdep_assert_held(&ksa_mc_lock);
	m->req = *rec;
	m->mask = mask;
	m->status = 0;
	m->calls = 0;
	m->flags = 0;
	init_completion(&m->first);
	mc = ib_sa_join_multicast(&ksa_client, ctx->device, 1, &m->req, mask,
				  GFP_KERNEL, ksa_mc_cb, m);
	if (IS_ERR(mc))
		return PTR_ERR(mc);
	m->mc = mc;
	if (!wait_for_completion_timeout(&m->first,
					 msecs_to_jiffies(KSA_JOIN_WAIT_MS)))
		return -ETIME;
	return READ_ONCE(m->status);
}

static bool ksa_join_one(struct ksa_ctx *ctx, int i,
			 const struct ib_sa_mcmember_rec *rec,
			 ib_sa_comp_mask mask)
{
	struct ksa_member *m = &ksa_members[i];
	char name[64];
	int ret;

	snprintf(name, sizeof(name), "mcast member %s joined", m->name);
	ret = ksa_join_wait(ctx, m, rec, mask);
	if (ret) {
		ksa_fail(ctx, name, "error %d (-62: no callback within %d ms)",
			 ret, KSA_JOIN_WAIT_MS);
		return false;
	}
	WRITE_ONCE(m->auto_rejoin, true);
	ksa_pass(ctx, name);
	return true;
}

static void ksa_check_rec(struct ksa_ctx *ctx, int i)
{
	struct ksa_member *m = &ksa_members[i];
	struct ib_sa_mcmember_rec *r = &m->mc->rec, cached;
	u16 mlid = be16_to_cpu(r->mlid), pkey = be16_to_cpu(r->pkey);
	struct rdma_ah_attr ah;
	char name[80];
	int ret;

	lockdep_assert_held(&ksa_mc_lock);
	pr_info(KSA_PFX "mgid %s %pI6c mlid 0x%x qkey 0x%x pkey 0x%04x mtu %u rate %u sl %u join_state %u\n",
		m->name, r->mgid.raw, mlid, be32_to_cpu(r->qkey), pkey, r->mtu,
		r->rate, r->sl, r->join_state);
	snprintf(name, sizeof(name), "mcast member %s: the SA's record", m->name);
	ksa_check(ctx, r->mgid.raw[0] == 0xff && mlid >= 0xc000 && mlid < 0xffff &&
		  be32_to_cpu(r->qkey) == KSA_QKEY &&
		  (pkey | 0x8000) == (ctx->port[0].pkey | 0x8000) &&
		  !memcmp(&r->port_gid, &ctx->port[0].gid, sizeof(r->port_gid)) &&
		  r->join_state == m->req.join_state, name,
		  "mgid %pI6 mlid 0x%x qkey 0x%x pkey 0x%x port_gid %pI6 join 0x%x (asked 0x%x)",
		  r->mgid.raw, mlid, be32_to_cpu(r->qkey), pkey, r->port_gid.raw,
		  r->join_state, m->req.join_state);
	ret = ib_sa_get_mcmember_rec(ctx->device, 1, &r->mgid, &cached);
	snprintf(name, sizeof(name), "mcast member %s: ib_sa_get_mcmember_rec", m->name);
	ksa_check(ctx, !ret && cached.mlid == r->mlid, name,
		  "ret %d mlid 0x%x want 0x%x", ret, be16_to_cpu(cached.mlid), mlid);
	ret = ib_init_ah_from_mcmember(ctx->device, 1, r, NULL, IB_GID_TYPE_IB, &ah);
	snprintf(name, sizeof(name), "mcast member %s: ib_init_ah_from_mcmember", m->name);
	ksa_check(ctx, !ret && ah.type == RDMA_AH_ATTR_TYPE_IB &&
		  rdma_ah_get_dlid(&ah) == mlid && (ah.ah_flags & IB_AH_GRH) &&
		  !memcmp(&ah.grh.dgid, &r->mgid, sizeof(r->mgid)) &&
		  ah.port_num == 1 && !IS_ERR_OR_NULL(ah.grh.sgid_attr) &&
		  ah.grh.sgid_attr->port_num == 1 &&
		  ah.grh.sgid_attr->index == ah.grh.sgid_index &&
		  !memcmp(&ah.grh.sgid_attr->gid, &r->port_gid, sizeof(r->port_gid)), name,
		  "ret %d type %d dlid 0x%x flags 0x%x sgid_attr %p", ret,
		  ah.type, rdma_ah_get_dlid(&ah), ah.ah_flags, ret ? NULL : ah.grh.sgid_attr);
	if (!ret)
		rdma_destroy_ah_attr(&ah);
}

/*
 * Joins ib_sa refuses after the fact: components that differ from the
 * joined group's record (-EINVAL from ib_sa, no SA request), and a group
 * the SA cannot create from the components given (-EINVAL, the SA's
 * status).  Neither stays a member.
 */
static void ksa_join_refused(struct ksa_ctx *ctx)
{
	struct ksa_member probe = { .name = "probe" };
	struct ib_sa_mcmember_rec rec;
	ib_sa_comp_mask mask;
	int ret;

	mask = ksa_share_rec(ctx, &ksa_members[KSA_A].mc->rec.mgid,
			     BIT(FULLMEMBER_JOIN), &rec);
	rec.qkey = cpu_to_be32(KSA_QKEY + 1);
	ret = ksa_join_wait(ctx, &probe, &rec, mask | IB_SA_MCMEMBER_REC_QKEY);
	ksa_check(ctx, ret == -EINVAL,
		  "mcast: a join whose Q_Key differs from the group's fails with -EINVAL",
		  "status %d", ret);
	if (probe.mc)	/* ends any callback still owed (probe is on the stack) */
		ib_sa_free_multicast(probe.mc);

	probe.mc = NULL;
	mask = ksa_share_rec(ctx, &ksa_mgid_none, BIT(FULLMEMBER_JOIN), &rec);
	ret = ksa_join_wait(ctx, &probe, &rec, mask);
	ksa_check(ctx, ret == -EINVAL,
		  "mcast: a join the SA refuses (no such group, too few components to create it) fails with -EINVAL",
		  "status %d", ret);
	if (probe.mc)	/* ends any callback still owed (probe is on the stack) */
		ib_sa_free_multicast(probe.mc);
}

void ksa_mcast_join(struct ksa_ctx *ctx)
{
	struct ib_sa_mcmember_rec rec;
	union ib_gid zero = {};
	ib_sa_comp_mask mask;
	int ret, i;

	ret = ksa_refresh_ports(ctx);
	if (ret) {
		ksa_fail(ctx, "mcast: query the ports", "error %d", ret);
		return;
	}
	mutex_lock(&ksa_mc_lock);
	for (i = 0; i < KSA_NR_MEMBERS; i++) {
		if (ksa_members[i].mc) {
			ksa_fail(ctx, "mcast join", "members still joined: leave first");
			goto out;
		}
		ksa_members[i].name = ksa_member_name[i];
		ksa_members[i].auto_rejoin = false;
		ksa_members[i].resets = 0;
		ksa_members[i].rejoined = 0;
		ksa_members[i].resets_base = 0;
		ksa_members[i].rejoined_base = 0;
	}
	ksa_mc_dev = ctx->device;
	ksa_rejoin_on = true;

	mask = ksa_create_rec(ctx, &zero, 5, &rec);
	if (!ksa_join_one(ctx, KSA_A, &rec, mask))
		goto out;
	ksa_check_rec(ctx, KSA_A);
	/* a rejoin names the MGID the SA gave, with what creating it needs */
	ksa_members[KSA_A].req.mgid = ksa_members[KSA_A].mc->rec.mgid;

	/* B: A's MGID, only what an existing group needs */
	mask = ksa_share_rec(ctx, &ksa_members[KSA_A].mc->rec.mgid,
			     BIT(FULLMEMBER_JOIN), &rec);
	if (ksa_join_one(ctx, KSA_B, &rec, mask)) {
		ksa_check_rec(ctx, KSA_B);
		ksa_check(ctx, ksa_members[KSA_B].mc->rec.mlid ==
			  ksa_members[KSA_A].mc->rec.mlid,
			  "mcast member B shares A's group (same MLID)",
			  "B 0x%x A 0x%x", be16_to_cpu(ksa_members[KSA_B].mc->rec.mlid),
			  be16_to_cpu(ksa_members[KSA_A].mc->rec.mlid));
	}

	mask = ksa_create_rec(ctx, &ksa_mgid_c, 2, &rec);
	if (ksa_join_one(ctx, KSA_C, &rec, mask)) {
		ksa_check_rec(ctx, KSA_C);
		ksa_check(ctx, !memcmp(&ksa_members[KSA_C].mc->rec.mgid,
				       &ksa_mgid_c, sizeof(ksa_mgid_c)),
			  "mcast member C: the group has our MGID", "%pI6",
			  ksa_members[KSA_C].mc->rec.mgid.raw);

		/* D: JoinState 3 (full + non member), as IPoIB's send-only join */
		mask = ksa_share_rec(ctx, &ksa_mgid_c, BIT(FULLMEMBER_JOIN) |
				     BIT(NONMEMBER_JOIN), &rec);
		if (ksa_join_one(ctx, KSA_D, &rec, mask)) {
			ksa_check_rec(ctx, KSA_D);
			ksa_check(ctx, ksa_members[KSA_D].mc->rec.mlid ==
				  ksa_members[KSA_C].mc->rec.mlid,
				  "mcast member D (JoinState 3) is in C's group (same MLID)",
				  "D 0x%x C 0x%x",
				  be16_to_cpu(ksa_members[KSA_D].mc->rec.mlid),
				  be16_to_cpu(ksa_members[KSA_C].mc->rec.mlid));
		}
	}
	ksa_join_refused(ctx);
out:
	mutex_unlock(&ksa_mc_lock);
}

/* Ends every membership (the rejoin work first: it joins again). */
static void ksa_free_all(void)
{
	int i;

	mutex_lock(&ksa_mc_lock);
	ksa_rejoin_on = false;
	mutex_unlock(&ksa_mc_lock);
	cancel_delayed_work_sync(&ksa_rejoin_work);
	mutex_lock(&ksa_mc_lock);
	for (i = 0; i < KSA_NR_MEMBERS; i++) {
		struct ksa_member *m = &ksa_members[i];

		WRITE_ONCE(m->auto_rejoin, false);
		if (m->mc) {
			ib_sa_free_multicast(m->mc);
			m->mc = NULL;
		}
		clear_bit(KSA_NEED_REJOIN, &m->flags);
	}
	mutex_unlock(&ksa_mc_lock);
	/* a callback may have queued it before its membership was freed */
	cancel_delayed_work_sync(&ksa_rejoin_work);
}

/* the port no longer holds a joined group of mgid after up to ms */
static bool ksa_group_gone(struct ksa_ctx *ctx, union ib_gid *mgid,
			   unsigned int ms)
{
	struct ib_sa_mcmember_rec rec;
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	do {
		if (ib_sa_get_mcmember_rec(ctx->device, 1, mgid, &rec))
			return true;
		msleep(100);
	} while (time_before(jiffies, end));
	return false;
}

void ksa_mcast_leave_one(struct ksa_ctx *ctx)
{
	struct ib_sa_mcmember_rec rec;
	union ib_gid mgid;
	int ret;

	mutex_lock(&ksa_mc_lock);
	if (!ksa_members[KSA_A].mc || !ksa_members[KSA_B].mc) {
		mutex_unlock(&ksa_mc_lock);
		ksa_fail(ctx, "mcast leave1", "members A and B are not joined");
		return;
	}
	WRITE_ONCE(ksa_members[KSA_B].auto_rejoin, false);
	ib_sa_free_multicast(ksa_members[KSA_B].mc);
	ksa_members[KSA_B].mc = NULL;
	mgid = ksa_members[KSA_A].mc->rec.mgid;
	mutex_unlock(&ksa_mc_lock);
	msleep(500);
	ret = ib_sa_get_mcmember_rec(ctx->device, 1, &mgid, &rec);
	ksa_check(ctx, !ret, "mcast: A's group stays joined after B left",
		  "ib_sa_get_mcmember_rec: %d", ret);
}

void ksa_mcast_leave(struct ksa_ctx *ctx)
{
	union ib_gid mgid[KSA_NR_MEMBERS];
	int n = 0, i;

	mutex_lock(&ksa_mc_lock);
	for (i = 0; i < KSA_NR_MEMBERS; i++)
		if (i == KSA_A || i == KSA_C)
			mgid[n++] = ksa_members[i].req.mgid;
	mutex_unlock(&ksa_mc_lock);
	ksa_free_all();
	for (i = 0; i < n; i++) {
		char name[80];

		snprintf(name, sizeof(name), "mcast: group %pI6c left", mgid[i].raw);
		ksa_check(ctx, ksa_group_gone(ctx, &mgid[i], 10000), name,
			  "still joined 10 s after its members left");
	}
}

/* every member still meant to be joined: told -ENETRESET, joined again */
void ksa_mcast_rejoin_check(struct ksa_ctx *ctx)
{
	unsigned long end = jiffies + msecs_to_jiffies(KSA_REJOIN_WAIT_MS);
	int i;

	for (i = 0; i < KSA_NR_MEMBERS; i++) {
		struct ksa_member *m = &ksa_members[i];
		bool back;
		char name[80];

		if (!READ_ONCE(m->auto_rejoin))
			continue;
		while (time_before(jiffies, end) &&
		       (READ_ONCE(m->rejoined) <= m->rejoined_base ||
			test_bit(KSA_NEED_REJOIN, &m->flags) ||
			test_bit(KSA_AFTER_RESET, &m->flags)))
			msleep(200);
		snprintf(name, sizeof(name), "mcast member %s told -ENETRESET", m->name);
		ksa_check(ctx, READ_ONCE(m->resets) > m->resets_base, name,
			  "%u -ENETRESET callbacks, %u before", m->resets,
			  m->resets_base);
		back = READ_ONCE(m->rejoined) > m->rejoined_base &&
		       !READ_ONCE(m->status);
		snprintf(name, sizeof(name), "mcast member %s freed and joined again",
			 m->name);
		ksa_check(ctx, back, name, "%u rejoins (%u before), last status %d",
			  m->rejoined, m->rejoined_base, m->status);
		m->resets_base = READ_ONCE(m->resets);
		m->rejoined_base = READ_ONCE(m->rejoined);
		mutex_lock(&ksa_mc_lock);
		if (back && m->mc)
			ksa_check_rec(ctx, i);
		mutex_unlock(&ksa_mc_lock);
	}
}

/*
 * Port 1 is down (the script pulled its cable): every member was told
 * -ENETRESET (PORT_ERR), SA requests fail at once with -EAGAIN (no hang,
 * no callback).  The members join again once the port is back.
 */
void ksa_mcast_port_down(struct ksa_ctx *ctx)
{
	struct ksa_member probe = { .name = "probe" };
	unsigned long end = jiffies + msecs_to_jiffies(10000);
	struct ib_sa_mcmember_rec rec;
	unsigned long t0;
	int i, ret;

	for (i = 0; i < KSA_NR_MEMBERS; i++) {
		struct ksa_member *m = &ksa_members[i];
		char name[80];

		if (!READ_ONCE(m->auto_rejoin))
			continue;
		while (READ_ONCE(m->resets) <= m->resets_base &&
		       time_before(jiffies, end))
			msleep(100);
		snprintf(name, sizeof(name), "port down: member %s told -ENETRESET",
			 m->name);
		ksa_check(ctx, READ_ONCE(m->resets) > m->resets_base, name,
			  "%u -ENETRESET callbacks, %u before", m->resets,
			  m->resets_base);
	}
	ksa_create_rec(ctx, &ksa_mgid_c, 2, &rec);
	t0 = jiffies;
	mutex_lock(&ksa_mc_lock);
	ret = ksa_join_wait(ctx, &probe, &rec, IB_SA_MCMEMBER_REC_MGID |
			    IB_SA_MCMEMBER_REC_PORT_GID |
			    IB_SA_MCMEMBER_REC_JOIN_STATE);
	mutex_unlock(&ksa_mc_lock);
	if (probe.mc) {
		ib_sa_free_multicast(probe.mc);
		ksa_fail(ctx, "port down: join refused with -EAGAIN",
			 "the join was accepted (callback status %d)", ret);
	} else {
		ksa_check(ctx, ret == -EAGAIN, "port down: join refused with -EAGAIN",
			  "%d", ret);
	}
	ksa_check(ctx, jiffies_to_msecs(jiffies - t0) < 1000,
		  "port down: refused at once", "took %u ms",
		  jiffies_to_msecs(jiffies - t0));
}

void ksa_mcast_cleanup(void)
{
	ksa_free_all();
}

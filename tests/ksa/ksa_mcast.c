// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast checks on port 1.  join: member A creates a group with a zero
 * MGID (the SA picks one), member B joins A's MGID (shared: ib_sa asks the
 * SA once), member C creates a group with an MGID of ours.  leave1: B
 * leaves, A's group stays.  leave: A and C leave, both groups go.
 * rejoin: after a port event (a new SM), A and C were rejoined.  The guest
 * script compares with saquery and with ib_sa's request counters.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/string.h>
#include "ksa.h"

#define KSA_QKEY	0x0badc0de
#define KSA_JOIN_WAIT_MS 20000

enum { KSA_A, KSA_B, KSA_C, KSA_NR_MEMBERS };
static const char * const ksa_member_name[KSA_NR_MEMBERS] = { "A", "B", "C" };

/* fields written by the callback (ib_sa's work queue), read by the cmd */
struct ksa_member {
	struct ib_sa_multicast	*mc;
	struct completion	first;		/* the first callback */
	int			status;		/* of the last callback */
	int			calls;
	u16			first_mlid;
	unsigned int		rejoins_base;	/* rejoins before the port event */
};

static struct ksa_member ksa_members[KSA_NR_MEMBERS];

/* our own MGID for C: link-local scope, transient */
static const union ib_gid ksa_mgid_c = { .raw = {
	0xff, 0x12, 0x5a, 0x5a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0c, 0xde } };

static int ksa_mc_cb(int status, struct ib_sa_multicast *mc)
{
	struct ksa_member *m = mc->context;

	WRITE_ONCE(m->status, status);
	WRITE_ONCE(m->calls, m->calls + 1);
	pr_info(KSA_PFX "member %s callback: status %d mgid %pI6 mlid 0x%x rejoins %u\n",
		ksa_member_name[m - ksa_members], status, mc->rec.mgid.raw,
		mc->rec.mlid, mc->rejoins);
	if (!completion_done(&m->first)) {
		m->first_mlid = mc->rec.mlid;
		complete(&m->first);
	}
	return 0;
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
	rec->qkey = KSA_QKEY;
	rec->pkey = ctx->port[0].pkey;
	rec->sl = 0;
	rec->flow_label = 0;
	rec->traffic_class = 0;
	rec->scope = scope;
	rec->join_state = IB_SA_JOIN_FULL_MEMBER;
	return IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID |
	       IB_SA_MCMEMBER_REC_QKEY | IB_SA_MCMEMBER_REC_PKEY |
	       IB_SA_MCMEMBER_REC_SL | IB_SA_MCMEMBER_REC_FLOW_LABEL |
	       IB_SA_MCMEMBER_REC_TRAFFIC_CLASS | IB_SA_MCMEMBER_REC_SCOPE |
	       IB_SA_MCMEMBER_REC_JOIN_STATE;
}

static bool ksa_join_one(struct ksa_ctx *ctx, int i,
			 const struct ib_sa_mcmember_rec *rec,
			 ib_sa_comp_mask mask)
{
	struct ksa_member *m = &ksa_members[i];
	struct ib_sa_multicast *mc;
	char name[64];

	snprintf(name, sizeof(name), "mcast member %s joined", ksa_member_name[i]);
	m->status = 0;
	m->calls = 0;
	init_completion(&m->first);
	mc = ib_sa_join_multicast(&ksa_client, ctx->device, 1, rec, mask,
				  GFP_KERNEL, ksa_mc_cb, m);
	if (IS_ERR(mc)) {
		ksa_fail(ctx, name, "ib_sa_join_multicast: %ld", PTR_ERR(mc));
		return false;
	}
	m->mc = mc;
	if (!wait_for_completion_timeout(&m->first,
					 msecs_to_jiffies(KSA_JOIN_WAIT_MS))) {
		ksa_fail(ctx, name, "no callback within %d ms", KSA_JOIN_WAIT_MS);
		return false;
	}
	if (READ_ONCE(m->status)) {
		ksa_fail(ctx, name, "callback status %d", m->status);
		return false;
	}
	ksa_pass(ctx, name);
	return true;
}

static void ksa_check_rec(struct ksa_ctx *ctx, int i)
{
	const struct ib_sa_mcmember_rec *r = &ksa_members[i].mc->rec;
	struct ib_sa_mcmember_rec cached;
	struct rdma_ah_attr ah;
	char name[80];
	int ret;

	pr_info(KSA_PFX "mgid %s %pI6c mlid 0x%x qkey 0x%x pkey 0x%04x mtu %u rate %u sl %u\n",
		ksa_member_name[i], r->mgid.raw, r->mlid, r->qkey, r->pkey,
		r->mtu, r->rate, r->sl);
	snprintf(name, sizeof(name), "mcast member %s: the SA's record", ksa_member_name[i]);
	ksa_check(ctx, r->mgid.raw[0] == 0xff && r->mlid >= 0xc000 &&
		  r->mlid < 0xffff && r->qkey == KSA_QKEY &&
		  (r->pkey | 0x8000) == (ctx->port[0].pkey | 0x8000) &&
		  !memcmp(&r->port_gid, &ctx->port[0].gid, sizeof(r->port_gid)) &&
		  r->join_state == IB_SA_JOIN_FULL_MEMBER, name,
		  "mgid %pI6 mlid 0x%x qkey 0x%x pkey 0x%x port_gid %pI6 join 0x%x",
		  r->mgid.raw, r->mlid, r->qkey, r->pkey, r->port_gid.raw,
		  r->join_state);
	ret = ib_sa_get_mcmember_rec(ctx->device, 1, &r->mgid, &cached);
	snprintf(name, sizeof(name), "mcast member %s: ib_sa_get_mcmember_rec", ksa_member_name[i]);
	ksa_check(ctx, !ret && cached.mlid == r->mlid, name,
		  "ret %d mlid 0x%x want 0x%x", ret, cached.mlid, r->mlid);
	ret = ib_init_ah_from_mcmember(ctx->device, 1, r, &ah);
	snprintf(name, sizeof(name), "mcast member %s: ib_init_ah_from_mcmember",
		 ksa_member_name[i]);
	ksa_check(ctx, !ret && ah.type == RDMA_AH_ATTR_TYPE_IB &&
		  rdma_ah_get_dlid(&ah) == r->mlid && (ah.ah_flags & IB_AH_GRH) &&
		  !memcmp(&ah.grh.dgid, &r->mgid, sizeof(r->mgid)) &&
		  ah.port_num == 1, name, "ret %d type %d dlid 0x%x flags 0x%x", ret,
		  ah.type, rdma_ah_get_dlid(&ah), ah.ah_flags);
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
	for (i = 0; i < KSA_NR_MEMBERS; i++)
		if (ksa_members[i].mc) {
			ksa_fail(ctx, "mcast join", "members still joined: leave first");
			return;
		}

	mask = ksa_create_rec(ctx, &zero, 5, &rec);
	if (!ksa_join_one(ctx, KSA_A, &rec, mask))
		return;
	ksa_check_rec(ctx, KSA_A);

	/* B: A's MGID, only what an existing group needs */
	memset(&rec, 0, sizeof(rec));
	rec.mgid = ksa_members[KSA_A].mc->rec.mgid;
	rec.port_gid = ctx->port[0].gid;
	rec.join_state = IB_SA_JOIN_FULL_MEMBER;
	if (ksa_join_one(ctx, KSA_B, &rec, IB_SA_MCMEMBER_REC_MGID |
			 IB_SA_MCMEMBER_REC_PORT_GID |
			 IB_SA_MCMEMBER_REC_JOIN_STATE)) {
		ksa_check_rec(ctx, KSA_B);
		ksa_check(ctx, ksa_members[KSA_B].mc->rec.mlid ==
			  ksa_members[KSA_A].mc->rec.mlid,
			  "mcast member B shares A's group (same MLID)",
			  "B 0x%x A 0x%x", ksa_members[KSA_B].mc->rec.mlid,
			  ksa_members[KSA_A].mc->rec.mlid);
	}

	mask = ksa_create_rec(ctx, &ksa_mgid_c, 2, &rec);
	if (ksa_join_one(ctx, KSA_C, &rec, mask)) {
		ksa_check_rec(ctx, KSA_C);
		ksa_check(ctx, !memcmp(&ksa_members[KSA_C].mc->rec.mgid,
				       &ksa_mgid_c, sizeof(ksa_mgid_c)),
			  "mcast member C: the group has our MGID", "%pI6",
			  ksa_members[KSA_C].mc->rec.mgid.raw);
	}
}

static void ksa_free(int i)
{
	if (ksa_members[i].mc) {
		ib_sa_free_multicast(ksa_members[i].mc);
		ksa_members[i].mc = NULL;
	}
}

/* the port still holds a joined group of mgid after up to ms */
static bool ksa_group_gone(struct ksa_ctx *ctx, const union ib_gid *mgid,
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
	int ret;

	if (!ksa_members[KSA_A].mc || !ksa_members[KSA_B].mc) {
		ksa_fail(ctx, "mcast leave1", "members A and B are not joined");
		return;
	}
	ksa_free(KSA_B);
	msleep(500);
	ret = ib_sa_get_mcmember_rec(ctx->device, 1,
				     &ksa_members[KSA_A].mc->rec.mgid, &rec);
	ksa_check(ctx, !ret, "mcast: A's group stays joined after B left",
		  "ib_sa_get_mcmember_rec: %d", ret);
}

void ksa_mcast_leave(struct ksa_ctx *ctx)
{
	union ib_gid mgid[2];
	int n = 0, i;

	for (i = 0; i < KSA_NR_MEMBERS; i++)
		if (ksa_members[i].mc && i != KSA_B)
			mgid[n++] = ksa_members[i].mc->rec.mgid;
	if (!n) {
		ksa_fail(ctx, "mcast leave", "no member joined");
		return;
	}
	for (i = 0; i < KSA_NR_MEMBERS; i++)
		ksa_free(i);
	for (i = 0; i < n; i++) {
		char name[80];

		snprintf(name, sizeof(name), "mcast: group %pI6c left", mgid[i].raw);
		ksa_check(ctx, ksa_group_gone(ctx, &mgid[i], 10000), name,
			  "still joined 10 s after its members left");
	}
}

void ksa_mcast_rejoin_check(struct ksa_ctx *ctx)
{
	unsigned long end = jiffies + msecs_to_jiffies(60000);
	int i;

	for (i = 0; i < KSA_NR_MEMBERS; i++) {
		struct ksa_member *m = &ksa_members[i];
		char name[64];

		if (!m->mc)
			continue;
		snprintf(name, sizeof(name), "mcast member %s rejoined", ksa_member_name[i]);
		while (READ_ONCE(m->mc->rejoins) <= m->rejoins_base &&
		       time_before(jiffies, end))
			msleep(200);
		ksa_check(ctx, m->mc->rejoins > m->rejoins_base &&
			  !READ_ONCE(m->status) && m->mc->rec.mlid >= 0xc000, name,
			  "rejoins %u (%u before) status %d mlid 0x%x",
			  m->mc->rejoins, m->rejoins_base, m->status,
			  m->mc->rec.mlid);
		if (m->mc->rejoins > m->rejoins_base) {
			ksa_check_rec(ctx, i);
			m->rejoins_base = m->mc->rejoins;
		}
	}
}

/*
 * Port 1 is down (the script pulled its cable): SA requests fail at once
 * (no hang, no callback), the memberships wait for the port to come back.
 */
void ksa_mcast_port_down(struct ksa_ctx *ctx)
{
	struct ib_sa_mcmember_rec rec;
	struct ib_sa_multicast *mc;
	unsigned long t0 = jiffies;
	int i;

	for (i = 0; i < KSA_NR_MEMBERS; i++)
		if (ksa_members[i].mc)
			ksa_members[i].rejoins_base = ksa_members[i].mc->rejoins;
	ksa_create_rec(ctx, &ksa_mgid_c, 2, &rec);
	mc = ib_sa_join_multicast(&ksa_client, ctx->device, 1, &rec,
				  IB_SA_MCMEMBER_REC_MGID |
				  IB_SA_MCMEMBER_REC_PORT_GID |
				  IB_SA_MCMEMBER_REC_JOIN_STATE, GFP_KERNEL,
				  ksa_mc_cb, &ksa_members[KSA_B]);
	if (!IS_ERR(mc)) {
		ib_sa_free_multicast(mc);
		ksa_fail(ctx, "port down: join refused", "the join was accepted");
	} else {
		ksa_check(ctx, PTR_ERR(mc) == -ENETDOWN || PTR_ERR(mc) == -EAGAIN,
			  "port down: join refused with -ENETDOWN or -EAGAIN",
			  "%ld", PTR_ERR(mc));
	}
	ksa_check(ctx, jiffies_to_msecs(jiffies - t0) < 1000,
		  "port down: refused at once", "took %u ms",
		  jiffies_to_msecs(jiffies - t0));
}

void ksa_mcast_cleanup(void)
{
	int i;

	for (i = 0; i < KSA_NR_MEMBERS; i++)
		ksa_free(i);
}

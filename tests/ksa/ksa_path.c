// SPDX-License-Identifier: GPL-2.0
/*
 * Path record checks: from each port to the other port (one node: both on
 * one subnet) or to peer_lidN (two nodes), waiting and asynchronous; a
 * canceled query; a GID nobody has; a port that does not exist.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include "ksa.h"

/* PathRecord:Rate (IBA rate code) of a port's width and speed, or 0 */
static u8 ksa_rate_code(const struct ib_port_attr *attr)
{
	static const struct { unsigned int tenths; u8 code; } codes[] = {
		{ 25, 2 }, { 50, 5 }, { 100, 3 }, { 200, 6 }, { 300, 4 },
		{ 400, 7 }, { 600, 8 }, { 800, 9 }, { 1200, 10 }, { 140, 11 },
		{ 560, 12 }, { 1120, 13 }, { 1680, 14 }, { 250, 15 },
		{ 1000, 16 }, { 2000, 17 }, { 3000, 18 },
	};
	unsigned int lanes, lane, i;

	switch (attr->active_width) {
	case IB_WIDTH_1X:
		lanes = 1;
		break;
	case IB_WIDTH_2X:
		lanes = 2;
		break;
	case IB_WIDTH_4X:
		lanes = 4;
		break;
	case IB_WIDTH_8X:
		lanes = 8;
		break;
	case IB_WIDTH_12X:
		lanes = 12;
		break;
	default:
		return 0;
	}
	switch (attr->active_speed) {
	case IB_SPEED_SDR:
		lane = 25;
		break;
	case IB_SPEED_DDR:
		lane = 50;
		break;
	case IB_SPEED_QDR:
	case IB_SPEED_FDR10:
		lane = 100;
		break;
	case IB_SPEED_FDR:
		lane = 140;
		break;
	case IB_SPEED_EDR:
		lane = 250;
		break;
	case IB_SPEED_HDR:
		lane = 500;
		break;
	default:
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(codes); i++)
		if (codes[i].tenths == lanes * lane)
			return codes[i].code;
	return 0;
}

void ksa_path_cb(int status, struct sa_path_rec *resp, int num_prs,
		 void *context)
{
	struct ksa_async *a = context;

	a->status = status;
	a->num = num_prs;
	a->calls++;
	if (!status && resp)
		a->rec = *resp;
	complete(&a->done);
}

int ksa_path_get_sync(struct ksa_ctx *ctx, u32 port_num,
		      struct sa_path_rec *req, ib_sa_comp_mask mask,
		      unsigned long timeout_ms, struct sa_path_rec *resp)
{
	struct ib_sa_query *query;
	struct ksa_async a = {};
	int id;

	init_completion(&a.done);
	id = ib_sa_path_rec_get(&ksa_client, ctx->device, port_num, req, mask,
				timeout_ms, GFP_KERNEL, ksa_path_cb, &a, &query);
	if (id < 0)
		return id;
	if (wait_for_completion_interruptible(&a.done)) {
		ib_sa_cancel_query(id, query);
		wait_for_completion(&a.done);
	}
	if (!a.status)
		*resp = a.rec;
	return a.status;
}

/* the request from port src: to the other port's GID, or to a peer LID */
ib_sa_comp_mask ksa_path_req(struct ksa_ctx *ctx, int src,
			     struct sa_path_rec *req)
{
	const struct ksa_port *s = &ctx->port[src], *d = &ctx->port[!src];
	ib_sa_comp_mask mask = IB_SA_PATH_REC_SGID | IB_SA_PATH_REC_NUMB_PATH |
			       IB_SA_PATH_REC_PKEY;

	memset(req, 0, sizeof(*req));
	req->rec_type = SA_PATH_REC_TYPE_IB;
	req->sgid = s->gid;
	req->numb_path = 1;
	req->pkey = cpu_to_be16(s->pkey);
	if (ksa_peer_lid[src]) {
		sa_path_set_dlid(req, ksa_peer_lid[src]);
		return mask | IB_SA_PATH_REC_DLID;
	}
	req->dgid = d->gid;
	return mask | IB_SA_PATH_REC_DGID;
}

/* every field a user checks, against the ports' own attributes */
static void ksa_check_path(struct ksa_ctx *ctx, int src, const char *how,
			   struct sa_path_rec *rec)
{
	const struct ksa_port *s = &ctx->port[src], *d = &ctx->port[!src];
	u16 want_dlid = ksa_peer_lid[src] ? ksa_peer_lid[src] : d->attr.lid;
	u32 dlid = be32_to_cpu(sa_path_get_dlid(rec));
	u32 slid = be32_to_cpu(sa_path_get_slid(rec));
	u16 pkey = be16_to_cpu(rec->pkey);
	u8 rate = ksa_rate_code(&s->attr);
	char name[64];

	pr_info(KSA_PFX "path port%u %s: dlid 0x%x slid 0x%x sgid %pI6 dgid %pI6 mtu %u rate %u pkey 0x%04x sl %u hop %u life %u\n",
		s->port_num, how, dlid, slid, rec->sgid.raw, rec->dgid.raw,
		rec->mtu, rec->rate, pkey, rec->sl, rec->hop_limit,
		rec->packet_life_time);
	snprintf(name, sizeof(name), "path port%u %s: an IB record", s->port_num, how);
	ksa_check(ctx, rec->rec_type == SA_PATH_REC_TYPE_IB && !sa_path_is_roce(rec) &&
		  !sa_path_is_opa(rec), name, "rec_type %d", rec->rec_type);
	snprintf(name, sizeof(name), "path port%u %s: dlid", s->port_num, how);
	ksa_check(ctx, dlid == want_dlid, name, "0x%x, want 0x%x", dlid, want_dlid);
	snprintf(name, sizeof(name), "path port%u %s: slid", s->port_num, how);
	ksa_check(ctx, slid == s->attr.lid, name, "0x%x, port's LID 0x%x",
		  slid, s->attr.lid);
	snprintf(name, sizeof(name), "path port%u %s: sgid", s->port_num, how);
	ksa_check(ctx, !memcmp(&rec->sgid, &s->gid, sizeof(s->gid)), name,
		  "%pI6, port's GID %pI6", rec->sgid.raw, s->gid.raw);
	snprintf(name, sizeof(name), "path port%u %s: dgid", s->port_num, how);
	if (ksa_peer_lid[src])
		ksa_check(ctx, rec->dgid.global.subnet_prefix ==
			  s->gid.global.subnet_prefix &&
			  rec->dgid.global.interface_id &&
			  rec->dgid.global.interface_id != s->gid.global.interface_id,
			  name, "%pI6: not a peer on this subnet", rec->dgid.raw);
	else
		ksa_check(ctx, !memcmp(&rec->dgid, &d->gid, sizeof(d->gid)), name,
			  "%pI6, port %u's GID %pI6", rec->dgid.raw, d->port_num,
			  d->gid.raw);
	snprintf(name, sizeof(name), "path port%u %s: mtu", s->port_num, how);
	ksa_check(ctx, rec->mtu == s->attr.active_mtu, name,
		  "%u, port's active MTU %u", rec->mtu, s->attr.active_mtu);
	snprintf(name, sizeof(name), "path port%u %s: rate", s->port_num, how);
	ksa_check(ctx, rate && rec->rate == rate, name,
		  "%u, port's width %u speed %u give %u", rec->rate,
		  s->attr.active_width, s->attr.active_speed, rate);
	snprintf(name, sizeof(name), "path port%u %s: pkey", s->port_num, how);
	ksa_check(ctx, pkey == s->pkey, name, "0x%04x, port's P_Key 0x%04x",
		  pkey, s->pkey);
	/* opensm without QoS policy answers SL 0, as it uses for itself */
	snprintf(name, sizeof(name), "path port%u %s: sl", s->port_num, how);
	ksa_check(ctx, rec->sl == s->attr.sm_sl, name, "%u, SM's SL %u",
		  rec->sl, s->attr.sm_sl);
}

/*
 * ib_init_ah_attr_from_path: no GRH for a path inside the subnet (hop
 * limit 0, as the SA answers), a GRH from the port's GID as soon as the
 * hop limit is above 0 (1 included)
 */
static void ksa_path_ah(struct ksa_ctx *ctx, int src, struct sa_path_rec *rec)
{
	const struct ksa_port *s = &ctx->port[src];
	u32 dlid = be32_to_cpu(sa_path_get_dlid(rec));
	struct sa_path_rec hop1 = *rec;
	struct rdma_ah_attr ah;
	char name[80];
	int ret;

	ret = ib_init_ah_attr_from_path(ctx->device, s->port_num, rec, &ah, NULL);
	snprintf(name, sizeof(name), "path port%u: ib_init_ah_attr_from_path (hop limit %u)",
		 s->port_num, rec->hop_limit);
	ksa_check(ctx, !ret && ah.type == RDMA_AH_ATTR_TYPE_IB &&
		  rdma_ah_get_dlid(&ah) == dlid && ah.sl == rec->sl &&
		  ah.port_num == s->port_num && !rdma_ah_get_path_bits(&ah) &&
		  !(ah.ah_flags & IB_AH_GRH) == !rec->hop_limit,
		  name, "ret %d type %d dlid 0x%x sl %u port %u flags 0x%x", ret,
		  ah.type, rdma_ah_get_dlid(&ah), ah.sl, ah.port_num, ah.ah_flags);
	if (!ret)
		rdma_destroy_ah_attr(&ah);

	hop1.hop_limit = 1;
	hop1.flow_label = cpu_to_be32(0x12345);
	hop1.traffic_class = 0x20;
	ret = ib_init_ah_attr_from_path(ctx->device, s->port_num, &hop1, &ah, NULL);
	snprintf(name, sizeof(name), "path port%u: hop limit 1 gives a GRH from the port's GID",
		 s->port_num);
	ksa_check(ctx, !ret && (ah.ah_flags & IB_AH_GRH) && ah.grh.hop_limit == 1 &&
		  ah.grh.sgid_index == 0 && ah.grh.flow_label == 0x12345 &&
		  ah.grh.traffic_class == 0x20 &&
		  !memcmp(&ah.grh.dgid, &rec->dgid, sizeof(rec->dgid)), name,
		  "ret %d flags 0x%x hop %u sgid_index %u flow 0x%x tclass 0x%x",
		  ret, ah.ah_flags, ah.grh.hop_limit, ah.grh.sgid_index,
		  ah.grh.flow_label, ah.grh.traffic_class);
	/* the GRH holds the attribute of the path's source GID (GID 0) */
	snprintf(name, sizeof(name), "path port%u: the GRH holds the SGID's attribute",
		 s->port_num);
	ksa_check(ctx, !ret && !IS_ERR_OR_NULL(ah.grh.sgid_attr) &&
		  ah.grh.sgid_attr->port_num == s->port_num && ah.grh.sgid_attr->index == 0 &&
		  !memcmp(&ah.grh.sgid_attr->gid, &rec->sgid, sizeof(rec->sgid)), name,
		  "ret %d sgid_attr %p", ret, ret ? NULL : ah.grh.sgid_attr);
	if (!ret)
		rdma_destroy_ah_attr(&ah);
}

static void ksa_path_one(struct ksa_ctx *ctx, int src)
{
	const struct ksa_port *s = &ctx->port[src];
	struct sa_path_rec req, rec;
	struct ib_sa_query *query;
	struct ksa_async a = {};
	ib_sa_comp_mask mask;
	char name[64];
	int ret, id;

	mask = ksa_path_req(ctx, src, &req);
	ret = ksa_path_get_sync(ctx, s->port_num, &req, mask, KSA_TIMEOUT_MS, &rec);
	snprintf(name, sizeof(name), "path port%u sync: resolved", s->port_num);
	ksa_check(ctx, !ret, name, "error %d", ret);
	if (!ret) {
		ksa_check_path(ctx, src, "sync", &rec);
		ksa_path_ah(ctx, src, &rec);
	}

	init_completion(&a.done);
	id = ib_sa_path_rec_get(&ksa_client, ctx->device, s->port_num, &req,
				mask, KSA_TIMEOUT_MS, GFP_KERNEL, ksa_path_cb,
				&a, &query);
	snprintf(name, sizeof(name), "path port%u async: answered", s->port_num);
	if (id < 0) {
		ksa_fail(ctx, name, "ib_sa_path_rec_get returned %d", id);
		return;
	}
	if (!wait_for_completion_timeout(&a.done, msecs_to_jiffies(5 * KSA_TIMEOUT_MS * 4))) {
		/* never leave a callback pointing at this stack frame */
		ib_sa_cancel_query(id, query);
		wait_for_completion(&a.done);
		ksa_fail(ctx, name, "no callback within %d ms", 5 * KSA_TIMEOUT_MS * 4);
		return;
	}
	ksa_check(ctx, !a.status && a.num == 1, name, "status %d, %d records",
		  a.status, a.num);
	if (!a.status)
		ksa_check_path(ctx, src, "async", &a.rec);
}

/*
 * One query canceled at once: its callback, once, with -EINTR, or with 0
 * if the SA's answer got in first (opensm may answer on this node within
 * the microseconds to the cancel on a busy host): *answered is then set.
 * A second cancel of the finished query is ignored. 0, or -1 on a failure.
 */
static int ksa_path_cancel_one(struct ksa_ctx *ctx, bool *answered)
{
	const struct ksa_port *s = &ctx->port[0];
	struct sa_path_rec req;
	struct ib_sa_query *query;
	struct ksa_async a = {};
	ib_sa_comp_mask mask;
	int id;

	*answered = false;
	init_completion(&a.done);
	mask = ksa_path_req(ctx, 0, &req);
	id = ib_sa_path_rec_get(&ksa_client, ctx->device, s->port_num, &req,
				mask, KSA_TIMEOUT_MS, GFP_KERNEL, ksa_path_cb,
				&a, &query);
	if (id < 0) {
		ksa_fail(ctx, "path cancel: query started", "error %d", id);
		return -1;
	}
	ib_sa_cancel_query(id, query);
	if (!wait_for_completion_timeout(&a.done, msecs_to_jiffies(10000))) {
		ksa_fail(ctx, "path cancel: callback", "none within 10 s of the cancel");
		wait_for_completion(&a.done);
		return -1;
	}
	ib_sa_cancel_query(id, query);
	msleep(200);
	if (a.calls != 1) {
		ksa_fail(ctx, "path cancel: one callback", "%d calls", a.calls);
		return -1;
	}
	if (!a.status && a.num == 1) {
		*answered = true;
		return 0;
	}
	if (a.status != -EINTR) {
		ksa_fail(ctx, "path cancel: callback with -EINTR", "status %d, %d records",
			 a.status, a.num);
		return -1;
	}
	return 0;
}

static void ksa_path_cancel(struct ksa_ctx *ctx)
{
	bool answered = true;
	int i;

	for (i = 1; i <= 5 && answered; i++)
		if (ksa_path_cancel_one(ctx, &answered))
			return;
	ksa_check(ctx, !answered, "path cancel: callback with -EINTR",
		  "the SA answered each of 5 queries before its cancel");
	if (!answered && i > 2)
		pr_info(KSA_PFX "path cancel: %d queries answered before their cancel\n",
			i - 2);
	ksa_pass(ctx, "path cancel: one callback");
}

static void ksa_path_bad(struct ksa_ctx *ctx)
{
	const struct ksa_port *s = &ctx->port[0];
	struct sa_path_rec req = {}, rec;
	unsigned long t0 = jiffies;
	int ret;

	req.rec_type = SA_PATH_REC_TYPE_IB;
	req.sgid = s->gid;
	req.dgid.global.subnet_prefix = s->gid.global.subnet_prefix;
	req.dgid.global.interface_id = cpu_to_be64(0x0bad0bad0bad0badULL);
	req.numb_path = 1;
	ret = ksa_path_get_sync(ctx, s->port_num, &req, IB_SA_PATH_REC_SGID |
				IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_NUMB_PATH,
				KSA_TIMEOUT_MS, &rec);
	pr_info(KSA_PFX "path to a GID nobody has: %d after %u ms\n", ret,
		jiffies_to_msecs(jiffies - t0));
	ksa_check(ctx, ret == -EINVAL,
		  "path to a nonexistent GID: the SA's non-zero status gives -EINVAL",
		  "returned %d", ret);

	ret = ksa_path_get_sync(ctx, 9, &req, IB_SA_PATH_REC_DGID,
				KSA_TIMEOUT_MS, &rec);
	ksa_check(ctx, ret == -ENODEV, "path on a port that does not exist: -ENODEV",
		  "returned %d", ret);

	req.rec_type = SA_PATH_REC_TYPE_ROCE_V2;
	ret = ksa_path_get_sync(ctx, s->port_num, &req, IB_SA_PATH_REC_DGID,
				KSA_TIMEOUT_MS, &rec);
	ksa_check(ctx, ret == -EINVAL, "path record not of type IB: -EINVAL at once",
		  "returned %d", ret);
}

void ksa_path_port_down(struct ksa_ctx *ctx)
{
	const struct ksa_port *s = &ctx->port[0];
	struct sa_path_rec req, rec;
	unsigned long t0 = jiffies;
	ib_sa_comp_mask mask;
	int ret;

	mask = ksa_path_req(ctx, 0, &req);
	ret = ksa_path_get_sync(ctx, s->port_num, &req, mask, KSA_TIMEOUT_MS, &rec);
	ksa_check(ctx, ret == -EAGAIN, "port down: path query refused with -EAGAIN",
		  "returned %d", ret);
	ksa_check(ctx, jiffies_to_msecs(jiffies - t0) < 1000,
		  "port down: path query refused at once", "took %u ms",
		  jiffies_to_msecs(jiffies - t0));
}

/*
 * The SM is frozen (the script stopped opensm with SIGSTOP: its MAD
 * agent stays registered, so nothing else answers): a path query times
 * out, -ETIMEDOUT after its 4 tries of KSA_NOSM_TIMEOUT_MS each
 */
#define KSA_NOSM_TIMEOUT_MS	250
void ksa_path_no_sm(struct ksa_ctx *ctx)
{
	struct sa_path_rec req, rec;
	unsigned long t0 = jiffies;
	ib_sa_comp_mask mask;
	unsigned int ms;
	int ret;

	ret = ksa_refresh_ports(ctx);
	if (ret) {
		ksa_fail(ctx, "nosm: query the ports", "error %d", ret);
		return;
	}
	mask = ksa_path_req(ctx, 0, &req);
	ret = ksa_path_get_sync(ctx, 1, &req, mask, KSA_NOSM_TIMEOUT_MS, &rec);
	ms = jiffies_to_msecs(jiffies - t0);
	pr_info(KSA_PFX "path with the SM frozen: %d after %u ms\n", ret, ms);
	ksa_check(ctx, ret == -ETIMEDOUT, "SM not answering: path query fails with -ETIMEDOUT",
		  "returned %d after %u ms", ret, ms);
	ksa_check(ctx, ms >= 4 * KSA_NOSM_TIMEOUT_MS, "SM not answering: after every retry",
		  "%u ms, 4 tries of %u ms", ms, KSA_NOSM_TIMEOUT_MS);
}

void ksa_path_tests(struct ksa_ctx *ctx)
{
	int ret = ksa_refresh_ports(ctx);

	if (ret) {
		ksa_fail(ctx, "path: query the ports", "error %d", ret);
		return;
	}
	ksa_path_one(ctx, 0);
	ksa_path_one(ctx, 1);
	ksa_path_cancel(ctx);
	ksa_path_bad(ctx);
}

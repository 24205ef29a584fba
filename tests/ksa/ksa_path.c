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

void ksa_path_cb(int status, struct ib_sa_path_rec *resp,
		 unsigned int num_paths, void *context)
{
	struct ksa_async *a = context;

	a->status = status;
	a->num = num_paths;
	a->calls++;
	if (!status && resp)
		a->rec = *resp;
	complete(&a->done);
}

/* the request from port src: to the other port's GID, or to a peer LID */
ib_sa_comp_mask ksa_path_req(struct ksa_ctx *ctx, int src,
			     struct ib_sa_path_rec *req)
{
	const struct ksa_port *s = &ctx->port[src], *d = &ctx->port[!src];
	ib_sa_comp_mask mask = IB_SA_PATH_REC_SGID | IB_SA_PATH_REC_NUMB_PATH |
			       IB_SA_PATH_REC_PKEY;

	memset(req, 0, sizeof(*req));
	req->sgid = s->gid;
	req->numb_path = 1;
	req->pkey = s->pkey;
	if (ksa_peer_lid[src]) {
		req->dlid = ksa_peer_lid[src];
		return mask | IB_SA_PATH_REC_DLID;
	}
	req->dgid = d->gid;
	return mask | IB_SA_PATH_REC_DGID;
}

/* every field a user checks, against the ports' own attributes */
static void ksa_check_path(struct ksa_ctx *ctx, int src, const char *how,
			   const struct ib_sa_path_rec *rec)
{
	const struct ksa_port *s = &ctx->port[src], *d = &ctx->port[!src];
	u16 dlid = ksa_peer_lid[src] ? ksa_peer_lid[src] : d->attr.lid;
	u8 rate = ksa_rate_code(&s->attr);
	char name[64];

	pr_info(KSA_PFX "path port%u %s: dlid 0x%x slid 0x%x sgid %pI6 dgid %pI6 mtu %u rate %u pkey 0x%04x sl %u hop %u life %u\n",
		s->port_num, how, rec->dlid, rec->slid, rec->sgid.raw,
		rec->dgid.raw, rec->mtu, rec->rate, rec->pkey, rec->sl,
		rec->hop_limit, rec->packet_life_time);
	snprintf(name, sizeof(name), "path port%u %s: dlid", s->port_num, how);
	ksa_check(ctx, rec->dlid == dlid, name, "0x%x, want 0x%x", rec->dlid, dlid);
	snprintf(name, sizeof(name), "path port%u %s: slid", s->port_num, how);
	ksa_check(ctx, rec->slid == s->attr.lid, name, "0x%x, port's LID 0x%x",
		  rec->slid, s->attr.lid);
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
	ksa_check(ctx, rec->pkey == s->pkey, name, "0x%04x, port's P_Key 0x%04x",
		  rec->pkey, s->pkey);
	/* opensm without QoS policy answers SL 0, as it uses for itself */
	snprintf(name, sizeof(name), "path port%u %s: sl", s->port_num, how);
	ksa_check(ctx, rec->sl == s->attr.sm_sl, name, "%u, SM's SL %u",
		  rec->sl, s->attr.sm_sl);
}

static void ksa_path_one(struct ksa_ctx *ctx, int src)
{
	const struct ksa_port *s = &ctx->port[src];
	struct ib_sa_path_rec req, rec;
	struct ib_sa_query *query;
	struct ksa_async a = {};
	struct rdma_ah_attr ah;
	ib_sa_comp_mask mask;
	char name[64];
	int ret, id;

	mask = ksa_path_req(ctx, src, &req);
	ret = ib_sa_path_rec_get_sync(&ksa_client, ctx->device, s->port_num,
				      &req, mask, KSA_TIMEOUT_MS, &rec);
	snprintf(name, sizeof(name), "path port%u sync: resolved", s->port_num);
	ksa_check(ctx, !ret, name, "error %d", ret);
	if (!ret) {
		ksa_check_path(ctx, src, "sync", &rec);
		ret = ib_init_ah_from_path(ctx->device, s->port_num, &rec, &ah);
		snprintf(name, sizeof(name), "path port%u: ib_init_ah_from_path",
			 s->port_num);
		ksa_check(ctx, !ret && ah.type == RDMA_AH_ATTR_TYPE_IB &&
			  rdma_ah_get_dlid(&ah) == rec.dlid && ah.sl == rec.sl &&
			  ah.port_num == s->port_num && !(ah.ah_flags & IB_AH_GRH),
			  name, "ret %d type %d dlid 0x%x sl %u port %u flags 0x%x", ret,
			  ah.type, rdma_ah_get_dlid(&ah), ah.sl, ah.port_num, ah.ah_flags);
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
	ksa_check(ctx, !a.status && a.num == 1, name, "status %d, %u records",
		  a.status, a.num);
	if (!a.status)
		ksa_check_path(ctx, src, "async", &a.rec);
}

static void ksa_path_cancel(struct ksa_ctx *ctx)
{
	const struct ksa_port *s = &ctx->port[0];
	struct ib_sa_path_rec req;
	struct ib_sa_query *query;
	struct ksa_async a = {};
	ib_sa_comp_mask mask;
	int id;

	init_completion(&a.done);
	mask = ksa_path_req(ctx, 0, &req);
	id = ib_sa_path_rec_get(&ksa_client, ctx->device, s->port_num, &req,
				mask, KSA_TIMEOUT_MS, GFP_KERNEL, ksa_path_cb,
				&a, &query);
	if (id < 0) {
		ksa_fail(ctx, "path cancel: query started", "error %d", id);
		return;
	}
	ib_sa_cancel_query(id, query);
	if (!wait_for_completion_timeout(&a.done, msecs_to_jiffies(10000))) {
		ksa_fail(ctx, "path cancel: callback", "none within 10 s of the cancel");
		wait_for_completion(&a.done);
		return;
	}
	ksa_check(ctx, a.status == -EINTR, "path cancel: callback with -EINTR",
		  "status %d", a.status);
	/* a second cancel of a finished query is ignored, no second callback */
	ib_sa_cancel_query(id, query);
	msleep(200);
	ksa_check(ctx, a.calls == 1, "path cancel: one callback", "%d calls", a.calls);
}

static void ksa_path_bad(struct ksa_ctx *ctx)
{
	const struct ksa_port *s = &ctx->port[0];
	struct ib_sa_path_rec req = {}, rec;
	unsigned long t0 = jiffies;
	int ret;

	req.sgid = s->gid;
	req.dgid.global.subnet_prefix = s->gid.global.subnet_prefix;
	req.dgid.global.interface_id = cpu_to_be64(0x0bad0bad0bad0badULL);
	req.numb_path = 1;
	ret = ib_sa_path_rec_get_sync(&ksa_client, ctx->device, s->port_num,
				      &req, IB_SA_PATH_REC_SGID |
				      IB_SA_PATH_REC_DGID |
				      IB_SA_PATH_REC_NUMB_PATH,
				      KSA_TIMEOUT_MS, &rec);
	pr_info(KSA_PFX "path to a GID nobody has: %d after %u ms\n", ret,
		jiffies_to_msecs(jiffies - t0));
	ksa_check(ctx, ret == -ENODATA || ret == -EREMOTEIO,
		  "path to a nonexistent GID fails with the SA's status",
		  "returned %d", ret);

	ret = ib_sa_path_rec_get_sync(&ksa_client, ctx->device, 9, &req,
				      IB_SA_PATH_REC_DGID, KSA_TIMEOUT_MS, &rec);
	ksa_check(ctx, ret == -ENODEV, "path on a port that does not exist: -ENODEV",
		  "returned %d", ret);
}

void ksa_path_port_down(struct ksa_ctx *ctx)
{
	const struct ksa_port *s = &ctx->port[0];
	struct ib_sa_path_rec req, rec;
	unsigned long t0 = jiffies;
	ib_sa_comp_mask mask;
	int ret;

	mask = ksa_path_req(ctx, 0, &req);
	ret = ib_sa_path_rec_get_sync(&ksa_client, ctx->device, s->port_num,
				      &req, mask, KSA_TIMEOUT_MS, &rec);
	ksa_check(ctx, ret == -ENETDOWN || ret == -EAGAIN,
		  "port down: path query refused with -ENETDOWN or -EAGAIN",
		  "returned %d", ret);
	ksa_check(ctx, jiffies_to_msecs(jiffies - t0) < 1000,
		  "port down: path query refused at once", "took %u ms",
		  jiffies_to_msecs(jiffies - t0));
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

// SPDX-License-Identifier: GPL-2.0
/*
 * uvfuzz: SRQs (basic and XRC), AHs and XRC domains.  What 6.1 answers for
 * sure:
 * - CREATE_XSRQ: the XRCD's lookup EINVAL, then the CQ and the PD;
 * - MODIFY_SRQ: IB_SRQ_MAX_WR EINVAL, a limit below max_wr succeeds
 *   (mlx4_ib_modify_srq); QUERY_SRQ of a live SRQ succeeds;
 * - CREATE_AH: a port past the device's EINVAL before the PD's lookup
 *   (ib_uverbs_create_ah);
 * - OPEN_XRCD with fd -1 or a file and O_CREAT succeeds; a closed fd EBADF
 *   (ib_uverbs_open_xrcd, before uobj_alloc).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx4-abi.h>

#include "uvfuzz.h"

static const int caps[T_NTYPES] = { [T_SRQ] = 8, [T_AH] = 12, [T_XRCD] = 4 };

static uint32_t pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v && p)
		p <<= 1;
	return p;
}

/* --- SRQ -------------------------------------------------------------------- */

static void op_srq_use(struct th *t, struct ufile *f)
{
	union {
		struct ib_uverbs_modify_srq m;
		struct ib_uverbs_query_srq q;
	} req;
	struct call c = { .req = &req };
	struct eset pred = eset_of(0, -1);
	struct pk srq;
	bool strict;
	int e;

	memset(&req, 0, sizeof(req));
	op_lock();
	srq = pick(t, f, T_SRQ, false, 10);
	strict = srq.strict;
	if (srq.cls)
		pred = eset_of(srq.cls, -1);
	if (chance(t, 2)) {
		c.cmd = IB_USER_VERBS_CMD_QUERY_SRQ;
		c.has_resp = true;
		c.req_len = sizeof(req.q);
		c.resp_len = sizeof(struct ib_uverbs_query_srq_resp);
		req.q.srq_handle = srq.h;
	} else {
		c.cmd = IB_USER_VERBS_CMD_MODIFY_SRQ;
		c.udata = true;
		c.req_len = sizeof(req.m);
		req.m.srq_handle = srq.h;
		req.m.attr_mask = 2;	/* IB_SRQ_LIMIT */
		req.m.srq_limit = srq.slot >= 0 && !srq.cls ? below(t, f->o[srq.slot].cqe + 1) : 1;
		if (chance(t, 4) && !srq.cls) {
			req.m.attr_mask = 1 | below(t, 4);	/* IB_SRQ_MAX_WR */
			req.m.max_wr = rnd(t);
			pred = eset_of(EINVAL, -1);
		}
	}
	hold(f, &srq, false);
	op_go(t, cmd_name(c.cmd, false));
	e = uv_send(t, f->fd, &c, pick_mut(t, &c));
	op_back();
	unhold(f, &srq, false);
	strict &= srq.calm;
	check(t, &c, e, want_for(&c, pred, strict || !f->ctx));
	op_done();
}

void op_srq(struct th *t, struct ufile *f)
{
	union {
		struct ib_uverbs_create_xsrq x;
		struct ib_uverbs_create_srq b;
	} u;
	struct ib_uverbs_create_xsrq *const xq = &u.x;
	struct ib_uverbs_create_srq *const b = &u.b;
	struct mlx4_ib_create_srq drv;
	struct call c = { .req = &u, .drv = &drv, .drv_len = sizeof(drv),
			  .has_resp = true, .udata = true, .drv_out = 8,
			  .resp_len = sizeof(struct ib_uverbs_create_srq_resp) };
	struct pk x = { .slot = -1 }, cq = { .slot = -1 }, pd;
	struct eset pred = eset_of(0, -1);
	uint32_t wr = 1 + below(t, 64), sge = 1 + below(t, 4), h;
	bool strict = true, xrc = chance(t, 3);
	int e, s;

	if (chance(t, 3)) {
		op_srq_use(t, f);
		return;
	}
	memset(&u, 0, sizeof(u));
	op_lock();
	if (count_type(f, T_SRQ) >= caps[T_SRQ]) {
		pthread_mutex_unlock(&lock);
		op_destroy(t, f, T_SRQ);
		return;
	}
	begin_create(f);
	if (xrc) {
		/* __uverbs_create_xsrq: XRCD (EINVAL), CQ, then PD */
		x = pick(t, f, T_XRCD, false, 8);
		cq = pick(t, f, T_CQ, false, 8);
		strict = x.strict && cq.strict;
		if (x.cls)
			pred = eset_of(EINVAL, -1);
		else if (cq.cls)
			pred = eset_of(cq.cls, -1);
		c.cmd = IB_USER_VERBS_CMD_CREATE_XSRQ;
		c.req_len = sizeof(*xq);
		xq->srq_type = 1;	/* IB_SRQT_XRC */
		xq->xrcd_handle = x.h;
		xq->cq_handle = cq.h;
	} else {
		c.cmd = IB_USER_VERBS_CMD_CREATE_SRQ;
		c.req_len = sizeof(struct ib_uverbs_create_srq);
	}
	pd = pick(t, f, T_PD, false, 8);
	strict &= pd.strict;
	if (pd.cls && eset_has(pred, 0))
		pred = eset_of(pd.cls, -1);
	/* the basic layout is the XRC one without its type, XRCD and CQ */
	if (xrc) {
		xq->pd_handle = pd.h;
		xq->max_wr = wr;
		xq->max_sge = sge;
	} else {
		b->pd_handle = pd.h;
		b->max_wr = wr;
		b->max_sge = sge;
	}
	drv.buf_addr = arena_buf(t, pow2(wr + 1) * pow2(16 + 16 * sge));
	drv.db_addr = arena_buf(t, 8) + 8 * below(t, PAGE / 8);
	if (chance(t, 8)) {
		/* mlx4_ib_create_srq: max_wr/max_sge past the caps, and odd ones */
		uint32_t bad = chance(t, 2) ? max_srq_wr + below(t, 100000) : rnd(t);

		if (xrc)
			xq->max_wr = bad;
		else
			b->max_wr = bad;
		strict = false;
	}
	hold(f, &x, false);
	hold(f, &cq, false);
	hold(f, &pd, false);
	op_go(t, cmd_name(c.cmd, false));
	e = uv_send(t, f->fd, &c, pick_mut(t, &c));
	op_back();
	f->creating--;
	unhold(f, &x, false);
	unhold(f, &cq, false);
	unhold(f, &pd, false);
	strict &= (!xrc || (x.calm && cq.calm)) && pd.calm;
	if (!f->ctx)
		pred = eset_of(EINVAL, -1);
	check(t, &c, e, want_for(&c, pred, strict || !f->ctx));
	if (!e) {
		struct ib_uverbs_create_srq_resp *r = c.out;
		struct pk *deps[3] = { &pd, &cq, &x };

		h = r->srq_handle;
		if (c.mut == M_NONE && strict && (r->max_wr < wr || r->max_sge < sge))
			fail(t, "%s: max_wr %u, max_sge %u below the %u, %u asked",
			     cmd_name(c.cmd, false), r->max_wr, r->max_sge, wr, sge);
		s = new_obj(t, f, T_SRQ, h);
		if (s >= 0) {
			f->o[s].qpt = xrc;
			f->o[s].cqe = r->max_wr;
			for (int i = 0; i < 3; i++) {
				int p = deps[i]->slot < 0 ? -1 : find_handle(f, deps[i]->h);

				if (p >= 0) {
					f->o[s].dep[i] = p;
					f->o[p].users++;
				}
			}
		}
	}
	op_done();
}

/* --- AH, XRCD ------------------------------------------------------------ */

/*
 * 6.1's mlx4 has no create_user_ah: the AH object's write methods are
 * disabled (uverbs_cmd.c UAPI_DEF_OBJ_NEEDS_FN(create_user_ah)), so
 * CREATE_AH and DESTROY_AH run ib_uverbs_notsupp: EOPNOTSUPP whatever the
 * request, but for the framing checked before it (a flag bit, in_words:
 * EINVAL; the notsupp method has no minimum sizes).  An AH a stack makes
 * anyway is a failure, and kept in the model so that what follows stays
 * predictable.
 */
struct eset ah_want(const struct call *c)
{
	/* a wrong in_words: EINVAL in 6.1, or EOPNOTSUPP (notsupp_cmd) */
	if (c->mut == M_INWORDS)
		return eset_of(EINVAL, EOPNOTSUPP, -1);
	return eset_of(mut_errno(c, c->mut) == EINVAL ? EINVAL : EOPNOTSUPP, -1);
}

void op_ah(struct th *t, struct ufile *f)
{
	struct ib_uverbs_create_ah req = { 0 };
	struct call c = { .cmd = IB_USER_VERBS_CMD_CREATE_AH, .req = &req,
			  .req_len = sizeof(req), .has_resp = true, .udata = true,
			  .resp_len = sizeof(struct ib_uverbs_create_ah_resp) };
	struct eset pred = eset_of(0, -1);
	struct pk pd;
	bool strict, early = false;
	int e, s;

	op_lock();
	if (count_type(f, T_AH) >= caps[T_AH]) {
		pthread_mutex_unlock(&lock);
		op_destroy(t, f, T_AH);
		return;
	}
	begin_create(f);
	pd = pick(t, f, T_PD, false, 8);
	strict = pd.strict;
	if (pd.cls)
		pred = eset_of(pd.cls, -1);
	req.pd_handle = pd.h;
	req.user_handle = rnd(t);
	req.attr.dlid = 1 + below(t, 0xbfff);
	req.attr.sl = below(t, 16);
	req.attr.port_num = 1 + below(t, nports);
	if (chance(t, 8)) {
		req.attr.port_num = chance(t, 2) ? 0 : nports + 1 + below(t, 250);
		pred = eset_of(EINVAL, -1);
		strict = early = true;
	} else if (chance(t, 6)) {
		/* a GRH, rates, path bits: whatever 6.1 answers */
		req.attr.is_global = 1;
		req.attr.grh.sgid_index = below(t, 4) ? 0 : rnd(t);
		req.attr.static_rate = below(t, 20);
		req.attr.src_path_bits = rnd(t);
		if (!pd.cls)
			strict = false;
	}
	hold(f, &pd, false);
	op_go(t, "CREATE_AH");
	e = uv_send(t, f->fd, &c, pick_mut(t, &c));
	op_back();
	f->creating--;
	unhold(f, &pd, false);
	(void)strict;
	(void)early;
	(void)pred;
	check(t, &c, e, ah_want(&c));
	if (!e) {
		s = new_obj(t, f, T_AH, ((struct ib_uverbs_create_ah_resp *)c.out)->ah_handle);
		if (s >= 0 && (pd.slot = find_handle(f, pd.h)) >= 0) {
			f->o[s].dep[0] = pd.slot;
			f->o[pd.slot].users++;
		}
	}
	op_done();
}

void op_xrcd(struct th *t, struct ufile *f)
{
	struct ib_uverbs_open_xrcd req = { .fd = -1 };
	struct call c = { .cmd = IB_USER_VERBS_CMD_OPEN_XRCD, .req = &req,
			  .req_len = sizeof(req), .has_resp = true, .udata = true,
			  .resp_len = sizeof(struct ib_uverbs_open_xrcd_resp) };
	struct eset pred = eset_of(0, -1);
	bool strict = true;
	char path[] = "/tmp/uvfuzz-xrcd-XXXXXX";
	int e, fd = -1;

	op_lock();
	if (count_type(f, T_XRCD) >= caps[T_XRCD] || chance(t, 3)) {
		pthread_mutex_unlock(&lock);
		op_destroy(t, f, T_XRCD);
		return;
	}
	switch (below(t, 4)) {
	case 0:		/* a file's domain, made or found */
		fd = mkstemp(path);
		if (fd >= 0)
			unlink(path);
		req.fd = fd;
		req.oflags = O_CREAT;
		break;
	case 1:		/* ib_uverbs_open_xrcd: fdget */
		req.fd = 1000000;
		pred = eset_of(EBADF, -1);
		break;
	case 2:		/* any flags, any file */
		fd = open("/proc/self/status", O_RDONLY);
		req.fd = chance(t, 2) ? (uint32_t)fd : (uint32_t)-1;
		req.oflags = rnd(t);
		strict = false;
		break;
	}
	begin_create(f);
	op_go(t, "OPEN_XRCD");
	e = uv_send(t, f->fd, &c, pick_mut(t, &c));
	op_back();
	f->creating--;
	/* ib_uverbs_open_xrcd looks at the fd before uobj_alloc */
	if (!f->ctx && req.fd != 1000000)
		pred = eset_of(EINVAL, -1);
	/* with a file, its domain's checks come before uobj_alloc (EAGAIN) */
	check(t, &c, e, want_for(&c, pred, strict));
	if (!e)
		new_obj(t, f, T_XRCD, ((struct ib_uverbs_open_xrcd_resp *)c.out)->xrcd_handle);
	op_done();
	if (fd >= 0)
		close(fd);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * uvfuzz: creates, uses and destroys of each kind of object, with 6.1's
 * answers where the model knows them (uverbs_cmd.c and hw/mlx4):
 * - every create on a file without GET_CONTEXT: EINVAL (uobj_alloc, or a
 *   check before it that is EINVAL too);
 * - a handle's lookup: PTR_ERR of rdma_lookup_get_uobject (ENOENT, EINVAL
 *   for another type), in the handler's order of lookups; but
 *   CREATE_XSRQ's XRCD: EINVAL, and CREATE_QP's SRQ of type XRC: EINVAL;
 * - destroy: EBUSY while others hold it (ib_destroy_usecnt,
 *   ib_destroy_cq_user, ib_destroy_srq_user, uverbs_free_qp with groups
 *   attached); a DESTROY_* whose response cannot be written has destroyed
 *   the object first (EFAULT from uverbs_response at the end);
 * - REG_MR: EINVAL for hca_va in another page offset, bad access bits
 *   (ib_check_mr_access) and 0 or wrapping lengths (ib_umem_get); EFAULT
 *   for a hole, for write access to PROT_NONE or read-only memory
 *   (pin_user_pages_fast without FOLL_FORCE); read-only access to
 *   read-only memory pins (FOLL_FORCE);
 * - CREATE_CQ: EINVAL for vector >= num_comp_vectors and cqe 0 or above
 *   max_cqe (mlx4_ib_create_cq), EBADF for a channel that is not this
 *   file's (lookup_get_fd_uobject);
 * - ALLOC_PD with no room for mlx4's pdn: EFAULT (ib_copy_to_udata copies
 *   its 4 bytes whatever the room).
 * Everything else: the command's whole set (uvfuzz_cmd.c allowed()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx4-abi.h>

#include "uvfuzz.h"

static const int caps[T_NTYPES] = {
	[T_PD] = 16, [T_MR] = 24, [T_MW] = 12, [T_CQ] = 16, [T_QP] = 16,
	[T_SRQ] = 8, [T_AH] = 12, [T_XRCD] = 4,
};

static uint32_t pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v && p)
		p <<= 1;
	return p;
}

/* a create in flight: its parents held, a handle number about to be taken */
struct cr {
	struct pk par[4];
	int npar;
	int type;
	bool strict;
	struct eset pred;
};

/* the first failing lookup of the handler's order decides (or success) */
static void cr_parent(struct cr *k, struct th *t, struct ufile *f, int type,
		      unsigned int bad_pct, int errno_if_bad)
{
	struct pk p = pick(t, f, type, false, bad_pct);

	k->par[k->npar++] = p;
	k->strict &= p.strict;
	if (p.cls && eset_has(k->pred, 0))
		k->pred = eset_of(errno_if_bad ? errno_if_bad : p.cls, -1);
}

static void cr_go(struct th *t, struct ufile *f, struct cr *k, const char *what)
{
	for (int i = 0; i < k->npar; i++)
		hold(f, &k->par[i], false);
	op_go(t, what);
}

/* checks, and records the object (handle at hoff of the response) on success */
static int cr_end(struct th *t, struct ufile *f, struct cr *k, struct call *c, int e,
		  size_t hoff)
{
	int s = -1;

	op_back();
	f->creating--;
	for (int i = 0; i < k->npar; i++) {
		unhold(f, &k->par[i], false);
		k->strict &= k->par[i].calm;
	}
	if (!f->ctx)
		k->pred = eset_of(EINVAL, -1);
	check(t, c, e, want_for(c, k->pred, k->strict || !f->ctx));
	if (!e) {
		uint32_t h;

		memcpy(&h, (char *)c->out + hoff, 4);
		s = new_obj(t, f, k->type, h);
		for (int i = 0, d = 0; s >= 0 && i < k->npar; i++) {
			int p = find_handle(f, k->par[i].h);

			if (p >= 0 && d < 4) {
				f->o[s].dep[d++] = p;
				f->o[p].users++;
			}
		}
	}
	return s;
}

static struct cr cr_new(int type)
{
	return (struct cr){ .type = type, .strict = true, .pred = eset_of(0, -1) };
}

/* --- PD ------------------------------------------------------------------- */

void op_pd(struct th *t, struct ufile *f)
{
	struct ib_uverbs_alloc_pd req = { 0 };
	struct call c = { .cmd = IB_USER_VERBS_CMD_ALLOC_PD, .req = &req,
			  .req_len = sizeof(req), .has_resp = true, .udata = true,
			  .resp_len = sizeof(struct ib_uverbs_alloc_pd_resp), .drv_out = 8 };
	struct cr k = cr_new(T_PD);
	int e, mut;

	op_lock();
	if (count_type(f, T_PD) >= caps[T_PD]) {
		pthread_mutex_unlock(&lock);
		op_destroy(t, f, T_PD);
		return;
	}
	begin_create(f);
	mut = pick_mut(t, &c);
	if (chance(t, 10)) {
		c.drv_out = 0;		/* no room for mlx4's pdn */
		if (mut != M_BIGRESP)	/* (a longer response gives it room) */
			k.pred = eset_of(EFAULT, -1);
	}
	cr_go(t, f, &k, "ALLOC_PD");
	e = uv_send(t, f->fd, &c, mut);
	cr_end(t, f, &k, &c, e, 0);
	op_done();
}

/* --- MR ------------------------------------------------------------------- */

static uint32_t good_access(struct th *t)
{
	uint32_t a = 0;

	if (chance(t, 4))
		return chance(t, 2) ? 0 : IB_UVERBS_ACCESS_REMOTE_READ;
	a = IB_UVERBS_ACCESS_LOCAL_WRITE;
	if (chance(t, 2)) a |= IB_UVERBS_ACCESS_REMOTE_READ;
	if (chance(t, 2)) a |= IB_UVERBS_ACCESS_REMOTE_WRITE;
	if (chance(t, 3)) a |= IB_UVERBS_ACCESS_REMOTE_ATOMIC;
	if (chance(t, 4)) a |= IB_UVERBS_ACCESS_MW_BIND;
	return a;
}

static void op_rereg(struct th *t, struct ufile *f)
{
	struct ib_uverbs_rereg_mr req = { 0 };
	struct call c = { .cmd = IB_USER_VERBS_CMD_REREG_MR, .req = &req,
			  .req_len = sizeof(req), .has_resp = true, .udata = true,
			  .resp_len = sizeof(struct ib_uverbs_rereg_mr_resp) };
	struct eset pred = eset_of(0, -1);
	struct pk mr, pd = { .slot = -1 };
	bool strict;
	int e, v = below(t, 10);

	op_lock();
	mr = pick(t, f, T_MR, true, 10);
	strict = mr.strict;
	req.mr_handle = mr.h;
	req.flags = 1 + below(t, 7);
	if (mr.cls)
		pred = eset_of(mr.cls, -1);
	else
		strict = false;	/* mlx4_ib_rereg_user_mr's answers: not modelled */
	if (req.flags & IB_MR_REREG_TRANS) {
		req.length = 1 + below(t, 65536);
		req.start = arena_buf(t, req.length) + below(t, PAGE);
		req.hca_va = req.start;
	}
	if (req.flags & IB_MR_REREG_PD) {
		pd = pick(t, f, T_PD, false, 10);
		req.pd_handle = pd.h;
		strict &= pd.strict;
		if (pd.cls && eset_has(pred, 0))
			pred = eset_of(pd.cls, -1);
	}
	if (req.flags & IB_MR_REREG_ACCESS)
		req.access_flags = good_access(t);
	/* ib_uverbs_rereg_mr, before the lookup */
	if (v == 0) {
		req.flags = 0;
		pred = eset_of(EINVAL, -1);
		strict = true;
	} else if (v == 1) {
		req.flags |= 8u << below(t, 28);
		pred = eset_of(EOPNOTSUPP, -1);
		strict = true;
	}
	hold(f, &mr, true);
	hold(f, &pd, false);
	op_go(t, "REREG_MR");
	e = uv_send(t, f->fd, &c, pick_mut(t, &c));
	op_back();
	unhold(f, &mr, true);
	unhold(f, &pd, false);
	if (!mr.calm || ((req.flags & IB_MR_REREG_PD) && !pd.calm))
		strict = v < 2;		/* only the checks before the lookups stay sure */
	check(t, &c, e, want_for(&c, pred, strict || !f->ctx));
	if (!e && (req.flags & IB_MR_REREG_PD)) {
		int m = find_handle(f, mr.h), p = find_handle(f, pd.h);

		if (m >= 0 && p >= 0 && f->o[m].type == T_MR && f->o[p].type == T_PD) {
			if (f->o[m].dep[0] >= 0)
				f->o[f->o[m].dep[0]].users--;
			f->o[m].dep[0] = p;
			f->o[p].users++;
		}
	}
	op_done();
}

void op_mr(struct th *t, struct ufile *f)
{
	struct ib_uverbs_reg_mr req = { 0 };
	struct call c = { .cmd = IB_USER_VERBS_CMD_REG_MR, .req = &req,
			  .req_len = sizeof(req), .has_resp = true, .udata = true,
			  .resp_len = sizeof(struct ib_uverbs_reg_mr_resp) };
	struct cr k = cr_new(T_MR);
	int e, s, v = below(t, 12), ro = 0;
	struct eset pre = eset_of(0, -1);

	if (chance(t, 5)) {
		op_rereg(t, f);
		return;
	}
	op_lock();
	if (count_type(f, T_MR) >= caps[T_MR]) {
		pthread_mutex_unlock(&lock);
		op_destroy(t, f, T_MR);
		return;
	}
	req.length = 1 + below(t, 65536);
	req.start = arena_buf(t, req.length) + below(t, PAGE);
	req.hca_va = chance(t, 2) ? req.start :
		     ((uint64_t)rnd(t) << 12) + (req.start & (PAGE - 1));
	req.access_flags = good_access(t);
	switch (v) {
	case 0:		/* PROT_NONE: writable pins fail; FOLL_FORCE may pin */
		req.start = req.hca_va = (uintptr_t)none_page;
		req.length = PAGE;
		/* read-only: FOLL_FORCE may pin it; the in-tree 6.1.192 was seen
		 * answering EINVAL too (source not pinned down) */
		if (req.access_flags & IB_UVERBS_ACCESS_LOCAL_WRITE)
			pre = eset_of(EFAULT, -1);
		else
			pre = eset_of(0, EFAULT, EINVAL, -1);
		ro = 1;
		break;
	case 1:		/* read-only memory */
		req.start = req.hca_va = (uintptr_t)ro_page + below(t, PAGE);
		req.length = 1 + below(t, PAGE);
		if (req.access_flags & IB_UVERBS_ACCESS_LOCAL_WRITE)
			pre = eset_of(EFAULT, -1);
		else
			pre = eset_of(0, EINVAL, -1);	/* as above */
		ro = 1;
		break;
	case 2:		/* nothing mapped */
		req.start = req.hca_va = (uintptr_t)hole_page;
		req.length = PAGE;
		pre = eset_of(EFAULT, -1);
		break;
	case 3:		/* ib_umem_get: no pages, or past 2^64 */
		if (chance(t, 2)) {
			/* no pages only from a page boundary (ib_umem_num_pages) */
			req.length = 0;
			req.start = req.hca_va = arena_buf(t, PAGE);
		} else {
			req.start = req.hca_va = ~0ull - below(t, PAGE);
			req.length = PAGE;
		}
		pre = eset_of(EINVAL, -1);
		break;
	}
	begin_create(f);
	cr_parent(&k, t, f, T_PD, 8, 0);
	if (v == 4) {		/* ib_uverbs_reg_mr, before any lookup */
		req.hca_va = req.start + 8 + below(t, PAGE - 16);
		k.pred = eset_of(EINVAL, -1);
		k.strict = true;
	} else if (v == 5) {	/* ib_check_mr_access, before the PD's lookup */
		static const uint32_t bad[] = { 1u << 30, IB_UVERBS_ACCESS_REMOTE_WRITE,
			IB_UVERBS_ACCESS_REMOTE_ATOMIC, IB_UVERBS_ACCESS_ON_DEMAND };
		req.access_flags = bad[below(t, 4)];
		k.pred = eset_of(EINVAL, -1);
		k.strict = true;
	} else if (eset_has(k.pred, 0)) {
		k.pred = pre;
	}
	req.pd_handle = k.par[0].h;
	cr_go(t, f, &k, "REG_MR");
	e = uv_send(t, f->fd, &c, pick_mut(t, &c));
	s = cr_end(t, f, &k, &c, e, 0);
	if (verbose && !eset_has(k.pred, e))
		printf("uvfuzz: REG_MR variant %d: start 0x%llx length %llu hca_va 0x%llx access 0x%x: %s\n",
		       v, (unsigned long long)req.start, (unsigned long long)req.length,
		       (unsigned long long)req.hca_va, req.access_flags, ename(e));
	if (s >= 0)
		f->o[s].qpt = ro;
	op_done();
}

/* --- MW ------------------------------------------------------------------- */

void op_mw(struct th *t, struct ufile *f)
{
	struct ib_uverbs_alloc_mw req = { 0 };
	struct call c = { .cmd = IB_USER_VERBS_CMD_ALLOC_MW, .req = &req,
			  .req_len = sizeof(req), .has_resp = true, .udata = true,
			  .resp_len = sizeof(struct ib_uverbs_alloc_mw_resp) };
	struct cr k = cr_new(T_MW);
	int e;

	op_lock();
	if (count_type(f, T_MW) >= caps[T_MW] || chance(t, 3)) {
		pthread_mutex_unlock(&lock);
		op_destroy(t, f, T_MW);
		return;
	}
	begin_create(f);
	cr_parent(&k, t, f, T_PD, 8, 0);
	req.pd_handle = k.par[0].h;
	req.mw_type = 1 + below(t, 2);
	if (chance(t, 8)) {
		/* ib_uverbs_alloc_mw: after the PD's lookup */
		req.mw_type = chance(t, 2) ? 0 : 3 + below(t, 250);
		if (eset_has(k.pred, 0))
			k.pred = eset_of(EINVAL, -1);
	}
	cr_go(t, f, &k, "ALLOC_MW");
	e = uv_send(t, f->fd, &c, pick_mut(t, &c));
	cr_end(t, f, &k, &c, e, 0);
	op_done();
}

/* --- CQ ------------------------------------------------------------------- */

static void op_cq_use(struct th *t, struct ufile *f)
{
	union {
		struct ib_uverbs_resize_cq rs;
		struct ib_uverbs_ex_modify_cq mc;
	} req;
	struct mlx4_ib_resize_cq drv;
	struct call c = { .req = &req };
	struct eset pred = eset_of(0, -1);
	struct pk cq;
	bool strict, early = false;
	int e;

	memset(&req, 0, sizeof(req));
	op_lock();
	cq = pick(t, f, T_CQ, false, 10);
	strict = cq.strict;
	if (cq.cls)
		pred = eset_of(cq.cls, -1);
	if (chance(t, 2)) {
		/* mlx4_ib_resize_cq with a new buffer in the arena */
		uint32_t cqe = chance(t, 8) ? rnd(t) : 1 + below(t, 1024);

		c.cmd = IB_USER_VERBS_CMD_RESIZE_CQ;
		c.has_resp = c.udata = true;
		c.req_len = sizeof(req.rs);
		c.resp_len = sizeof(struct ib_uverbs_resize_cq_resp);
		c.drv = &drv;
		c.drv_len = sizeof(drv);
		req.rs.cq_handle = cq.h;
		req.rs.cqe = cqe;
		drv.buf_addr = arena_buf(t, pow2(cqe + 1) * 32);
		strict = false;
	} else {
		/* ib_uverbs_ex_modify_cq: checks before the lookup */
		c.cmd = IB_USER_VERBS_EX_CMD_MODIFY_CQ;
		c.ex = true;
		c.req_len = sizeof(req.mc);
		req.mc.cq_handle = cq.h;
		req.mc.attr_mask = 1;	/* IB_CQ_MODERATE */
		req.mc.attr.cq_count = below(t, 65536);
		req.mc.attr.cq_period = below(t, 4096);
		if (chance(t, 8)) {
			switch (below(t, 3)) {
			case 0: req.mc.attr_mask = 0; pred = eset_of(EINVAL, -1); break;
			case 1: req.mc.reserved = 1 + below(t, 9); pred = eset_of(EINVAL, -1); break;
			default: req.mc.attr_mask = 2 + below(t, 100); pred = eset_of(EOPNOTSUPP, -1);
			}
			strict = early = true;
		}
	}
	hold(f, &cq, false);
	op_go(t, cmd_name(c.cmd, c.ex));
	e = uv_send(t, f->fd, &c, pick_mut(t, &c));
	op_back();
	unhold(f, &cq, false);
	if (!cq.calm && !early)
		strict = false;
	check(t, &c, e, want_for(&c, pred, strict || !f->ctx));
	if (!e && c.cmd == IB_USER_VERBS_CMD_RESIZE_CQ && c.mut == M_NONE &&
	    ((struct ib_uverbs_resize_cq_resp *)c.out)->cqe < req.rs.cqe)
		fail(t, "RESIZE_CQ to %u: cqe %u", req.rs.cqe,
		     ((struct ib_uverbs_resize_cq_resp *)c.out)->cqe);
	op_done();
}

void op_cq(struct th *t, struct ufile *f)
{
	union {
		struct ib_uverbs_create_cq l;
		struct ib_uverbs_ex_create_cq x;
	} req;
	struct mlx4_ib_create_cq drv;
	struct call c = { .req = &req, .drv = &drv, .drv_len = sizeof(drv), .drv_out = 8 };
	struct cr k = cr_new(T_CQ);
	uint32_t cqe = 1 + below(t, 1024), vec = below(t, num_comp_vectors);
	int ch = -1, chi = -1, e, s, p[2] = { -1, -1 };
	bool ex = chance(t, 3);

	if (chance(t, 3)) {
		op_cq_use(t, f);
		return;
	}
	memset(&req, 0, sizeof(req));
	op_lock();
	if (count_type(f, T_CQ) >= caps[T_CQ]) {
		pthread_mutex_unlock(&lock);
		op_destroy(t, f, T_CQ);
		return;
	}
	begin_create(f);
	chi = below(t, MAXCH);
	if (chance(t, 2) && f->ch[chi] >= 0) {
		ch = f->ch[chi];
		f->chbusy++;
	} else {
		chi = -1;
	}
	switch (below(t, 10)) {
	case 0:		/* mlx4_ib_create_cq: entries < 1 or > max_cqes */
		cqe = chance(t, 2) ? 0 : max_cqe + 1 + below(t, 1000);
		k.pred = eset_of(EINVAL, -1);
		break;
	case 1:		/* create_cq: comp_vector >= num_comp_vectors */
		vec = num_comp_vectors + (chance(t, 2) ? 0 : rnd(t) % 100000);
		k.pred = eset_of(EINVAL, -1);
		break;
	case 2: {	/* a channel that is not this file's */
		struct ufile *g = other_file(f);
		int j = below(t, MAXCH);

		if (g->ch[j] >= 0 && !chance(t, 3)) {
			ch = g->ch[j];
			k.strict = false;	/* its number may be reused */
		} else if (chance(t, 2) && !pipe(p)) {
			close(p[1]);
			ch = p[0];
		} else {
			ch = 1000000;
		}
		k.pred = eset_of(EBADF, -1);
		break;
	}
	case 3:		/* odd sizes, any buffer: whatever 6.1 answers */
		cqe = chance(t, 2) ? rnd(t) : max_cqe - below(t, 4);
		k.strict = false;
		break;
	}
	drv.buf_addr = arena_buf(t, pow2(cqe + 1) * 32);
	drv.db_addr = arena_buf(t, 8) + 8 * below(t, PAGE / 8);
	if (chance(t, 20)) {		/* the buffer in a hole: ib_umem_get */
		drv.buf_addr = (uintptr_t)hole_page;
		if (eset_has(k.pred, 0))
			k.pred = eset_of(EFAULT, -1);
	}
	if (ex) {
		c.cmd = IB_USER_VERBS_EX_CMD_CREATE_CQ;
		c.ex = true;
		c.req_len = sizeof(req.x);
		c.resp_len = sizeof(struct ib_uverbs_ex_create_cq_resp);
		req.x.user_handle = rnd(t);
		req.x.cqe = cqe;
		req.x.comp_vector = vec;
		req.x.comp_channel = ch;
		if (chance(t, 16)) {	/* ib_uverbs_ex_create_cq */
			req.x.comp_mask = 1;
			k.pred = eset_of(EINVAL, -1);
			k.strict = true;
		}
	} else {
		c.cmd = IB_USER_VERBS_CMD_CREATE_CQ;
		c.has_resp = c.udata = true;
		c.req_len = sizeof(req.l);
		c.resp_len = sizeof(struct ib_uverbs_create_cq_resp);
		req.l.user_handle = rnd(t);
		req.l.cqe = cqe;
		req.l.comp_vector = vec;
		req.l.comp_channel = ch;
	}
	cr_go(t, f, &k, cmd_name(c.cmd, c.ex));
	e = uv_send(t, f->fd, &c, pick_mut(t, &c));
	s = cr_end(t, f, &k, &c, e, 0);
	if (chi >= 0)
		f->chbusy--;
	if (p[0] >= 0)
		close(p[0]);
	if (s >= 0) {
		struct ib_uverbs_create_cq_resp *r = c.out;

		f->o[s].cqe = r->cqe;
		if (c.mut == M_NONE && r->cqe < cqe)
			fail(t, "%s of %u entries: cqe %u", cmd_name(c.cmd, c.ex), cqe, r->cqe);
	}
	op_done();
}

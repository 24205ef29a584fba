// SPDX-License-Identifier: GPL-2.0
/*
 * Resource tracking (docs/restrack.md) as RDMA netlink reads it: every
 * kernel object the test creates is listed under its id with this module's
 * name, the ids follow 6.1's rules (a QP's number; QP0/QP1 with the port
 * above it; cyclic for the rest), a walk resumes at an id, the PD's own DMA
 * MR is not listed, a destroyed object is gone, and a destroy waits for a
 * reader's reference.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include "kverbs.h"

/* res is listed under its id as a kernel object of owner */
static int kv_rt_listed(struct kv_run *r, struct rdma_restrack_entry *res,
			enum rdma_restrack_type type, const char *owner, const char *what)
{
	struct rdma_restrack_entry *found;
	char name[MODULE_NAME_LEN];
	bool ok;
	u32 ctxn;

	found = rdma_restrack_get_byid(r->dev, type, res->id);
	if (IS_ERR(found))
		return kv_fail(r, "%s (id %u) not listed: %ld", what, res->id, PTR_ERR(found));
	ok = found == res && res->valid && res->type == type && rdma_is_kernel_res(res) &&
	     !res->task && !strcmp(res->kern_name, owner) && !ibstack_restrack_pid(res) &&
	     !strcmp(ibstack_restrack_comm(res, name, sizeof(name)), owner) &&
	     ibstack_restrack_ctxn(res, &ctxn) == -ENOENT;
	if (!ok)
		kv_fail(r, "%s (id %u): entry %p (want %p), type %d, user %d, owner %s (%s)",
			what, res->id, found, res, found->type, found->user, found->kern_name,
			owner);
	rdma_restrack_put(found);
	return ok ? 0 : -EIO;
}

static int kv_rt_gone(struct kv_run *r, enum rdma_restrack_type type, u32 id, const char *what)
{
	struct rdma_restrack_entry *found = rdma_restrack_get_byid(r->dev, type, id);

	if (IS_ERR(found) && PTR_ERR(found) == -ENOENT)
		return 0;
	if (!IS_ERR(found))
		rdma_restrack_put(found);
	return kv_fail(r, "%s (id %u) still listed after its destruction", what, id);
}

/*
 * The PDs in id order from 0: both of ours among them, the count at least
 * that; a walk from pd2's id starts at pd2, one after it finds neither.
 */
static int kv_rt_walk(struct kv_run *r, struct ib_pd *pd2)
{
	struct rdma_restrack_entry *res;
	unsigned long id, prev = 0;
	bool first = true, seen1 = false, seen2 = false;
	int n = 0;

	for (id = 0; (res = ibstack_restrack_next(r->dev, RDMA_RESTRACK_PD, &id)); id++) {
		bool order = first || id > prev;

		seen1 |= res == &r->pd->res;
		seen2 |= res == &pd2->res;
		n++;
		if (res->id != id || res->type != RDMA_RESTRACK_PD || !order) {
			rdma_restrack_put(res);
			return kv_fail(r, "PD walk: entry %u at %lu after %lu", res->id, id, prev);
		}
		rdma_restrack_put(res);
		prev = id;
		first = false;
	}
	if (!seen1 || !seen2 || n < 2 || rdma_restrack_count(r->dev, RDMA_RESTRACK_PD, false) < 2)
		return kv_fail(r, "PD walk: ours seen %d/%d in %d, count %d", seen1, seen2, n,
			       rdma_restrack_count(r->dev, RDMA_RESTRACK_PD, false));
	id = pd2->res.id;
	res = ibstack_restrack_next(r->dev, RDMA_RESTRACK_PD, &id);
	if (res)
		rdma_restrack_put(res);
	if (res != &pd2->res || id != pd2->res.id)
		return kv_fail(r, "a walk from PD %u found %p at %lu", pd2->res.id, res, id);
	id = max(pd2->res.id, r->pd->res.id) + 1UL;
	res = ibstack_restrack_next(r->dev, RDMA_RESTRACK_PD, &id);
	if (res)
		rdma_restrack_put(res);
	if (res == &pd2->res || res == &r->pd->res)
		return kv_fail(r, "a walk from past our PDs found one of them");
	return 0;
}

/* No MR listed is a PD's own DMA MR. */
static int kv_rt_no_internal_mr(struct kv_run *r)
{
	struct rdma_restrack_entry *res;
	unsigned long id;
	bool internal;

	if (!r->pd->__internal_mr)
		return 0;
	for (id = 0; (res = ibstack_restrack_next(r->dev, RDMA_RESTRACK_MR, &id)); id++) {
		internal = res == &r->pd->__internal_mr->res;
		rdma_restrack_put(res);
		if (internal)
			return kv_fail(r, "the PD's own DMA MR is listed (id %lu)", id);
	}
	return 0;
}

/* ib_mad's QP0 and QP1 of each port, if ib_mad is there: the port in bits 24..31 */
static int kv_rt_mad_qps(struct kv_run *r)
{
	struct rdma_restrack_entry *res;
	int found = 0, bad = 0;
	struct ib_qp *qp;
	u32 port, qpn;

	for (port = 1; port <= 2; port++) {
		for (qpn = 0; qpn <= 1; qpn++) {
			res = rdma_restrack_get_byid(r->dev, RDMA_RESTRACK_QP, port << 24 | qpn);
			if (IS_ERR(res))
				continue;
			found++;
			qp = container_of(res, struct ib_qp, res);
			if (qp->qp_num != qpn || qp->port != port ||
			    strcmp(res->kern_name, "ib_mad") ||
			    qp->qp_type != (qpn ? IB_QPT_GSI : IB_QPT_SMI))
				bad++;
			rdma_restrack_put(res);
		}
	}
	if (found && (found != 4 || bad))
		return kv_fail(r, "ib_mad's special QPs: %d of 4 listed, %d wrong", found, bad);
	return 0;
}

struct kv_rt_free {
	struct ib_cq		*cq;
	struct completion	done;
};

static int kv_rt_free_fn(void *arg)
{
	struct kv_rt_free *f = arg;

	ib_free_cq(f->cq);
	complete(&f->done);
	return 0;
}

/*
 * ib_free_cq() waits while a reader holds the CQ's entry (which is
 * unlisted meanwhile), and ends once it lets go.  *id: the CQ's.
 */
static int kv_rt_destroy_waits(struct kv_run *r, u32 *id)
{
	struct rdma_restrack_entry *res;
	struct task_struct *t;
	struct kv_rt_free *f;
	int ret;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return kv_fail(r, "no memory");
	init_completion(&f->done);
	f->cq = ib_alloc_cq(r->dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(f->cq)) {
		ret = kv_fail(r, "ib_alloc_cq: %ld", PTR_ERR(f->cq));
		goto out;
	}
	*id = f->cq->res.id;
	ret = kv_rt_listed(r, &f->cq->res, RDMA_RESTRACK_CQ, KV_NAME, "a CQ of ib_alloc_cq");
	res = ret ? ERR_PTR(-EIO) : rdma_restrack_get_byid(r->dev, RDMA_RESTRACK_CQ, *id);
	if (IS_ERR(res)) {
		ib_free_cq(f->cq);
		ret = ret ?: kv_fail(r, "CQ %u: no reference: %ld", *id, PTR_ERR(res));
		goto out;
	}
	t = kthread_run(kv_rt_free_fn, f, "kv_rt_free");
	if (IS_ERR(t)) {
		rdma_restrack_put(res);
		ib_free_cq(f->cq);
		ret = kv_fail(r, "kthread_run: %ld", PTR_ERR(t));
		goto out;
	}
	msleep(KV_QUIET_MS);
	if (completion_done(&f->done))
		ret = kv_fail(r, "ib_free_cq() did not wait for the reader's reference");
	else
		ret = kv_rt_gone(r, RDMA_RESTRACK_CQ, *id, "a CQ being freed");
	rdma_restrack_put(res);
	if (!wait_for_completion_timeout(&f->done, msecs_to_jiffies(KV_WAIT_MS)))
		/* the thread still has f: leaked, with the failure */
		return kv_fail(r, "ib_free_cq() still waits after the reference was put");
out:
	kfree(f);
	return ret;
}

int kv_case_restrack(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct kv_pair *p = &s->pair[0];
	struct ib_srq_init_attr sa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	u32 ids[7], cq_id;
	struct ib_srq *srq;
	struct ib_mr *mr;
	struct ib_cq *pool;
	struct ib_pd *pd2;
	int ret;

	ret = kv_rt_listed(r, &r->pd->res, RDMA_RESTRACK_PD, KV_NAME, "the test's PD");
	ret = ret ?: kv_rt_no_internal_mr(r);
	ret = ret ?: kv_rt_mad_qps(r);
	if (ret)
		return ret;

	pd2 = ib_alloc_pd(r->dev, 0);
	if (IS_ERR(pd2))
		return kv_fail(r, "ib_alloc_pd: %ld", PTR_ERR(pd2));
	ret = kv_rt_listed(r, &pd2->res, RDMA_RESTRACK_PD, KV_NAME, "a second PD");
	ret = ret ?: kv_rt_walk(r, pd2);
	if (ret)
		goto out_pd;
	mr = ib_alloc_mr(pd2, IB_MR_TYPE_MEM_REG, 8);
	if (IS_ERR(mr)) {
		ret = kv_fail(r, "ib_alloc_mr: %ld", PTR_ERR(mr));
		goto out_pd;
	}
	srq = ib_create_srq(pd2, &sa);
	if (IS_ERR(srq)) {
		ret = kv_fail(r, "ib_create_srq: %ld", PTR_ERR(srq));
		goto out_mr;
	}
	ret = kv_rt_listed(r, &mr->res, RDMA_RESTRACK_MR, KV_NAME, "a fast-registration MR");
	ret = ret ?: kv_rt_listed(r, &srq->res, RDMA_RESTRACK_SRQ, KV_NAME, "an SRQ");
	if (ret)
		goto out_srq;

	/* QPs: the number is the id; the port once a modify set it */
	ret = kv_pair_create(r, p, IB_QPT_RC, NULL);
	if (ret)
		goto out_srq;
	ret = kv_rt_listed(r, &p->a.qp->res, RDMA_RESTRACK_QP, KV_NAME, "QP a");
	ret = ret ?: kv_rt_listed(r, &p->b.qp->res, RDMA_RESTRACK_QP, KV_NAME, "QP b");
	ret = ret ?: kv_rt_listed(r, &p->a.scq.cq->res, RDMA_RESTRACK_CQ, KV_NAME, "a CQ");
	if (!ret && (p->a.qp->res.id != p->a.qp->qp_num || p->b.qp->res.id != p->b.qp->qp_num ||
		     p->a.qp->port != 1 || p->b.qp->port != 2))
		ret = kv_fail(r, "QPs 0x%x/0x%x: ids 0x%x/0x%x, ports %u/%u (want 1/2)",
			      p->a.qp->qp_num, p->b.qp->qp_num, p->a.qp->res.id,
			      p->b.qp->res.id, p->a.qp->port, p->b.qp->port);
	ids[0] = p->a.qp->res.id;
	ids[1] = p->b.qp->res.id;
	ids[2] = p->a.scq.cq->res.id;
	ids[3] = p->b.rcq.cq->res.id;
	if (kv_pair_destroy(r, p))
		ret = -EIO;
	ret = ret ?: kv_rt_gone(r, RDMA_RESTRACK_QP, ids[0], "QP a");
	ret = ret ?: kv_rt_gone(r, RDMA_RESTRACK_QP, ids[1], "QP b");
	ret = ret ?: kv_rt_gone(r, RDMA_RESTRACK_CQ, ids[2], "a's send CQ");
	ret = ret ?: kv_rt_gone(r, RDMA_RESTRACK_CQ, ids[3], "b's receive CQ");
	if (ret)
		goto out_srq;

	/* the pool's CQs are ib_core's */
	pool = ib_cq_pool_get(r->dev, 4, -1, IB_POLL_WORKQUEUE);
	if (IS_ERR(pool)) {
		ret = kv_fail(r, "ib_cq_pool_get: %ld", PTR_ERR(pool));
		goto out_srq;
	}
	ret = kv_rt_listed(r, &pool->res, RDMA_RESTRACK_CQ, "ib_core", "a CQ of the pool");
	ib_cq_pool_put(pool, 4);
	ret = ret ?: kv_rt_destroy_waits(r, &cq_id);
	/* cyclic ids: not the lowest free one, which the pair's CQs just left */
	if (!ret && (cq_id == ids[2] || cq_id == ids[3]))
		ret = kv_fail(r, "CQ id %u given again at once (ids are cyclic)", cq_id);

out_srq:
	ids[4] = srq->res.id;
	if (ib_destroy_srq_user(srq, NULL))
		ret = kv_fail(r, "ib_destroy_srq failed");
	else
		ret = ret ?: kv_rt_gone(r, RDMA_RESTRACK_SRQ, ids[4], "the SRQ");
out_mr:
	ids[5] = mr->res.id;
	if (ib_dereg_mr(mr))
		ret = kv_fail(r, "ib_dereg_mr failed");
	else
		ret = ret ?: kv_rt_gone(r, RDMA_RESTRACK_MR, ids[5], "the MR");
out_pd:
	ids[6] = pd2->res.id;
	if (ib_dealloc_pd_user(pd2, NULL))
		return kv_fail(r, "ib_dealloc_pd of the second PD failed");
	return ret ?: kv_rt_gone(r, RDMA_RESTRACK_PD, ids[6], "the second PD");
}

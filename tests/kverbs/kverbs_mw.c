// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: memory windows through ib_core's test-only calls
 * (<ibstack/ext.h>: ibstack_alloc_mw, ibstack_dealloc_mw, IB_WR_BIND_MW
 * with struct ibstack_bind_mw_wr).  QP b (port 2) binds windows to an MR
 * over buffer b that has MW_BIND and local rights only, so every remote
 * access of QP a (port 1) goes through a window's rkey.  A remote access
 * error takes both QPs to the error state: the cases connect a new pair
 * after each.
 */
#include <linux/kernel.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kverbs.h"

#define KV_MW_IOVA	0x7100000000ULL	/* the window MR's addresses */
#define KV_MW_REMOTE	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE)

/* An MR over all of buffer b at KV_MW_IOVA with the rights access. */
static struct ib_mr *kv_mw_mr(struct kv_self *s, int access)
{
	struct kv_run *r = &s->r;
	unsigned int i, npages = s->b.size >> PAGE_SHIFT;
	struct ib_mr *mr;
	u64 *pages;

	pages = kmalloc_array(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages) {
		kv_fail(r, "no memory for the page list");
		return NULL;
	}
	for (i = 0; i < npages; i++)
		pages[i] = s->b.dma + ((u64)i << PAGE_SHIFT);
	mr = ibstack_reg_kernel_mr(r->pd, pages, npages, PAGE_SHIFT, KV_MW_IOVA, s->b.size,
				   access);
	kfree(pages);
	if (IS_ERR_OR_NULL(mr)) {
		kv_fail(r, "ibstack_reg_kernel_mr(MW_BIND) failed: %ld", PTR_ERR(mr));
		return NULL;
	}
	return mr;
}

static struct ib_mw *kv_mw_alloc(struct kv_run *r, enum ib_mw_type type)
{
	int used = atomic_read(&r->pd->usecnt);
	struct ib_mw *mw;

	mw = ibstack_alloc_mw(r->pd, type);
	if (IS_ERR_OR_NULL(mw)) {
		kv_fail(r, "ibstack_alloc_mw(type %d) failed: %ld", type, PTR_ERR(mw));
		return NULL;
	}
	if (mw->pd != r->pd || mw->device != r->dev || mw->type != type ||
	    atomic_read(&r->pd->usecnt) != used + 1) {
		kv_fail(r, "window: pd %p device %p type %d usecnt %d", mw->pd, mw->device,
			mw->type, atomic_read(&r->pd->usecnt));
		ibstack_dealloc_mw(mw);
		return NULL;
	}
	return mw;
}

static int kv_mw_dealloc(struct kv_run *r, struct ib_mw *mw)
{
	int ret;

	if (!mw)
		return 0;
	ret = ibstack_dealloc_mw(mw);
	if (ret)
		return kv_fail(r, "ibstack_dealloc_mw: %d", ret);
	return 0;
}

static int kv_mw_dereg(struct kv_run *r, struct ib_mr *mr)
{
	int ret;

	if (!mr)
		return 0;
	ret = ib_dereg_mr(mr);
	if (ret)
		return kv_fail(r, "ib_dereg_mr of the window MR: %d", ret);
	return 0;
}

/*
 * IB_WR_BIND_MW on ep: mw to [KV_MW_IOVA + off, + len) of mr under the
 * next rkey, and its completion; on success mw->rkey becomes that key.
 */
static int kv_mw_bind(struct kv_run *r, struct kv_ep *ep, struct ib_mw *mw,
		      struct ib_mr *mr, u64 off, u64 len, unsigned int access, u64 wr_id)
{
	const struct ib_send_wr *bad = NULL;
	struct ibstack_bind_mw_wr bw;
	int ret;

	memset(&bw, 0, sizeof(bw));
	bw.wr.wr_id = wr_id;
	bw.wr.opcode = IB_WR_BIND_MW;
	bw.wr.send_flags = IB_SEND_SIGNALED;
	bw.mw = mw;
	bw.mr = mr;
	bw.rkey = ib_inc_rkey(mw->rkey);
	bw.addr = KV_MW_IOVA + off;
	bw.length = len;
	bw.access = access;
	ret = kv_post_send(r, ep->qp, &bw.wr, &bad);
	if (ret)
		return kv_fail(r, "ib_post_send(BIND_MW 0x%x) failed: %d", bw.rkey, ret);
	ret = kv_expect(r, &ep->scq, "BIND_MW", wr_id, IB_WC_SUCCESS, IB_WC_BIND_MW, NULL);
	if (ret)
		return ret;
	mw->rkey = bw.rkey;
	return 0;
}

/* IB_WR_LOCAL_INV of key on ep, and its completion. */
static int kv_mw_local_inv(struct kv_run *r, struct kv_ep *ep, u32 key, u64 wr_id)
{
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr wr;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = IB_WR_LOCAL_INV;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.ex.invalidate_rkey = key;
	ret = kv_post_send(r, ep->qp, &wr, &bad);
	if (ret)
		return kv_fail(r, "ib_post_send(LOCAL_INV 0x%x) failed: %d", key, ret);
	return kv_expect(r, &ep->scq, "LOCAL_INV of the window", wr_id, IB_WC_SUCCESS,
			 IB_WC_LOCAL_INV, NULL);
}

/*
 * a's RDMA op (WRITE from buffer a at 0, READ into buffer a at 128 KiB) of
 * len bytes at window offset off (remote address KV_MW_IOVA + off) through
 * rkey; its completion must have status want.  A refused access must also
 * have taken a's QP to the error state.
 */
static int kv_mw_rdma(struct kv_self *s, struct kv_pair *p, enum ib_wr_opcode op, u64 off,
		      u32 len, u32 rkey, u64 wr_id, enum ib_wc_status want)
{
	bool rd = op == IB_WR_RDMA_READ;
	struct ib_sge ss = kv_sge_dma(&s->r, &s->a, rd ? SZ_128K : 0, len);
	enum ib_qp_state state;
	int ret;

	ret = kv_rdma(&s->r, &p->a, op, wr_id, &ss, 1, KV_MW_IOVA + off, rkey);
	ret = ret ?: kv_expect(&s->r, &p->a.scq, rd ? "RDMA READ through the window" :
			       "RDMA WRITE through the window", wr_id, want,
			       rd ? IB_WC_RDMA_READ : IB_WC_RDMA_WRITE, NULL);
	if (ret || want == IB_WC_SUCCESS)
		return ret;
	ret = kv_qp_state(&s->r, p->a.qp, &state);
	if (!ret && state != IB_QPS_ERR)
		ret = kv_fail(&s->r, "after %s the requester's QP is in state %d, not ERR",
			      kv_status(want), state);
	return ret;
}

/* A new connected RC pair in p after an error took the old one down. */
static int kv_mw_repair(struct kv_run *r, struct kv_pair *p)
{
	int ret = kv_pair_destroy(r, p);

	return ret ? -EIO : kv_pair_create(r, p, IB_QPT_RC, NULL);
}

/* Buffer b at boff holds buffer a's bytes at aoff; b's bytes around it are 0. */
static int kv_mw_landed(struct kv_self *s, size_t boff, size_t aoff, size_t len)
{
	struct kv_run *r = &s->r;
	const u8 *x, *y;
	size_t i;
	int ret = 0;

	kv_buf_cpu(&s->b);
	x = (const u8 *)s->b.cpu + boff;
	y = (const u8 *)s->a.cpu + aoff;
	for (i = 0; i < len && !ret; i++)
		if (x[i] != y[i])
			ret = kv_fail(r, "window write: byte %zu of %zu is 0x%02x, want 0x%02x",
				      i, len, x[i], y[i]);
	if (!ret && (memchr_inv(s->b.cpu, 0, boff) ||
		     memchr_inv((u8 *)s->b.cpu + boff + len, 0, SZ_64K - boff - len)))
		ret = kv_fail(r, "a window write landed outside [%zu, +%zu)", boff, len);
	kv_buf_dev(&s->b);
	return ret;
}

static void kv_mw_prepare(struct kv_self *s, u32 seed)
{
	kv_buf_cpu(&s->a);
	kv_fill(&s->a, 0, SZ_64K, seed);
	memset((u8 *)s->a.cpu + SZ_128K, 0, SZ_64K);
	kv_buf_dev(&s->a);
	kv_buf_cpu(&s->b);
	memset(s->b.cpu, 0, SZ_64K);
	kv_buf_dev(&s->b);
}

/* Buffer a at 128 KiB holds what an RDMA READ of b at boff brought. */
static int kv_mw_read_back(struct kv_self *s, size_t boff, size_t len)
{
	int ret = 0;

	kv_buf_cpu(&s->a);
	kv_buf_cpu(&s->b);
	if (memcmp((u8 *)s->a.cpu + SZ_128K, (u8 *)s->b.cpu + boff, len))
		ret = kv_fail(&s->r, "RDMA READ through the window: wrong data");
	kv_buf_dev(&s->b);
	kv_buf_dev(&s->a);
	return ret;
}

/*
 * A type 1 window bound (BIND_MW on b) to 8 KiB at offset 4 KiB of an MR
 * without remote rights: a WRITE and a READ through its rkey inside the
 * range work; 16 bytes across the range's end are refused
 * (REM_ACCESS_ERR, QP to ERR).  Bound again, read-only and with the next
 * key: a READ works, a WRITE is refused, and so is a READ with the key of
 * the first bind.
 */
int kv_case_mw_type1(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct kv_pair *p = &s->pair[0];
	struct ib_mr *mr = NULL;
	struct ib_mw *mw = NULL;
	u32 first;
	int ret;

	ret = kv_pair_create(r, p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	mr = kv_mw_mr(s, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND);
	mw = mr ? kv_mw_alloc(r, IB_MW_TYPE_1) : NULL;
	if (!mw) {
		ret = -EIO;
		goto out;
	}
	ret = kv_mw_bind(r, &p->b, mw, mr, SZ_4K, SZ_8K, KV_MW_REMOTE, 1);
	if (ret)
		goto out;
	first = mw->rkey;
	kv_mw_prepare(s, 51);
	ret = kv_mw_rdma(s, p, IB_WR_RDMA_WRITE, SZ_4K + 100, 3000, mw->rkey, 2,
			 IB_WC_SUCCESS);
	ret = ret ?: kv_mw_landed(s, SZ_4K + 100, 0, 3000);
	ret = ret ?: kv_mw_rdma(s, p, IB_WR_RDMA_READ, SZ_4K + 100, 3000, mw->rkey, 3,
				IB_WC_SUCCESS);
	ret = ret ?: kv_mw_read_back(s, SZ_4K + 100, 3000);
	ret = ret ?: kv_mw_rdma(s, p, IB_WR_RDMA_WRITE, 3 * SZ_4K - 8, 16, mw->rkey, 4,
				IB_WC_REM_ACCESS_ERR);
	ret = ret ?: kv_mw_landed(s, SZ_4K + 100, 0, 3000);
	ret = ret ?: kv_mw_repair(r, p);
	if (ret)
		goto out;

	/* bound again: read-only, the next key */
	ret = kv_mw_bind(r, &p->b, mw, mr, SZ_4K, SZ_8K, IB_ACCESS_REMOTE_READ, 5);
	ret = ret ?: kv_mw_rdma(s, p, IB_WR_RDMA_READ, SZ_4K, 512, mw->rkey, 6,
				IB_WC_SUCCESS);
	ret = ret ?: kv_mw_rdma(s, p, IB_WR_RDMA_WRITE, SZ_4K, 512, mw->rkey, 7,
				IB_WC_REM_ACCESS_ERR);
	ret = ret ?: kv_mw_landed(s, SZ_4K + 100, 0, 3000);
	ret = ret ?: kv_mw_repair(r, p);
	ret = ret ?: kv_mw_rdma(s, p, IB_WR_RDMA_READ, SZ_4K, 512, first, 8,
				IB_WC_REM_ACCESS_ERR);
out:
	if (kv_pair_destroy(r, p))
		ret = -EIO;
	if (kv_mw_dealloc(r, mw) || kv_mw_dereg(r, mr))
		ret = -EIO;
	return ret;
}

/*
 * A type 2 window bound by b's BIND_MW: a WRITE and a READ through it
 * work; b's LOCAL_INV of its rkey (IB_WC_LOCAL_INV), then the same key is
 * refused.  Bound again on a new pair's b (the window is free again): it
 * works with the next key until a's SEND with Invalidate names it (b's
 * receive has IB_WC_WITH_INVALIDATE and the key), then it is refused.
 */
int kv_case_mw_type2(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct kv_pair *p = &s->pair[0];
	struct ib_mr *mr = NULL;
	struct ib_mw *mw = NULL;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	int ret;

	ret = kv_pair_create(r, p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	mr = kv_mw_mr(s, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND);
	mw = mr ? kv_mw_alloc(r, IB_MW_TYPE_2) : NULL;
	if (!mw) {
		ret = -EIO;
		goto out;
	}
	ret = kv_mw_bind(r, &p->b, mw, mr, 0, SZ_16K, KV_MW_REMOTE, 1);
	if (ret)
		goto out;
	kv_mw_prepare(s, 52);
	ret = kv_mw_rdma(s, p, IB_WR_RDMA_WRITE, 200, 5000, mw->rkey, 2, IB_WC_SUCCESS);
	ret = ret ?: kv_mw_landed(s, 200, 0, 5000);
	ret = ret ?: kv_mw_rdma(s, p, IB_WR_RDMA_READ, 0, SZ_8K, mw->rkey, 3,
				IB_WC_SUCCESS);
	ret = ret ?: kv_mw_read_back(s, 0, SZ_8K);
	ret = ret ?: kv_mw_local_inv(r, &p->b, mw->rkey, 4);
	ret = ret ?: kv_mw_rdma(s, p, IB_WR_RDMA_WRITE, 200, 64, mw->rkey, 5,
				IB_WC_REM_ACCESS_ERR);
	ret = ret ?: kv_mw_landed(s, 200, 0, 5000);
	ret = ret ?: kv_mw_repair(r, p);
	if (ret)
		goto out;

	/* free again: bind on the new b, then a SEND with Invalidate */
	ret = kv_mw_bind(r, &p->b, mw, mr, 0, SZ_16K, KV_MW_REMOTE, 6);
	ret = ret ?: kv_mw_rdma(s, p, IB_WR_RDMA_READ, 0, 1000, mw->rkey, 7,
				IB_WC_SUCCESS);
	rs = kv_sge_dma(r, &s->b, SZ_128K, 256);
	ret = ret ?: kv_recv(r, p->b.qp, 8, &rs, 1);
	if (ret)
		goto out;
	ss = kv_sge_dma(r, &s->a, 0, 100);
	ret = kv_send_inv(r, p, &ss, mw->rkey, 9, 8, &wc);
	if (ret)
		goto out;
	if (!(wc.wc_flags & IB_WC_WITH_INVALIDATE) || wc.ex.invalidate_rkey != mw->rkey) {
		ret = kv_fail(r, "receive: flags 0x%x rkey 0x%x, want 0x%x 0x%x", wc.wc_flags,
			      wc.ex.invalidate_rkey, IB_WC_WITH_INVALIDATE, mw->rkey);
		goto out;
	}
	ret = kv_mw_rdma(s, p, IB_WR_RDMA_READ, 0, 64, mw->rkey, 10, IB_WC_REM_ACCESS_ERR);
out:
	if (kv_pair_destroy(r, p))
		ret = -EIO;
	if (kv_mw_dealloc(r, mw) || kv_mw_dereg(r, mr))
		ret = -EIO;
	return ret;
}

/* An MR whose deregistration failed is still listed by the resource tracker. */
static int kv_mw_still_listed(struct kv_run *r, struct ib_mr *mr)
{
	struct rdma_restrack_entry *res;

	res = rdma_restrack_get_byid(r->dev, RDMA_RESTRACK_MR, mr->res.id);
	if (IS_ERR(res))
		return kv_fail(r, "the MR (id %u) left the tracker with a failed ib_dereg_mr: %ld",
			       mr->res.id, PTR_ERR(res));
	rdma_restrack_put(res);
	if (res != &mr->res)
		return kv_fail(r, "MR id %u lists another entry", mr->res.id);
	return 0;
}

/*
 * Windows and their PD: a bound window holds the PD (ib_dealloc_pd_user
 * -EBUSY) and its MR (ib_dereg_mr fails: the card keeps a region with
 * windows bound); deallocated while bound, its key is refused at once and
 * the MR and PD are free again.  A type the API does not know: -EINVAL.
 */
int kv_case_mw_dealloc(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct kv_pair *p = &s->pair[0];
	struct ib_mw *mw = NULL, *bad;
	struct ib_mr *mr = NULL;
	struct ib_pd *pd;
	u32 key;
	int ret, used;

	bad = ibstack_alloc_mw(r->pd, (enum ib_mw_type)3);
	if (!IS_ERR(bad) || PTR_ERR(bad) != -EINVAL)
		return kv_fail(r, "ibstack_alloc_mw(type 3): %ld, want -EINVAL", PTR_ERR(bad));
	pd = ib_alloc_pd(r->dev, 0);
	if (IS_ERR(pd))
		return kv_fail(r, "ib_alloc_pd: %ld", PTR_ERR(pd));
	mw = ibstack_alloc_mw(pd, IB_MW_TYPE_1);
	if (IS_ERR(mw)) {
		ret = kv_fail(r, "ibstack_alloc_mw on a second PD: %ld", PTR_ERR(mw));
		mw = NULL;
		goto out_pd;
	}
	ret = ib_dealloc_pd_user(pd, NULL);
	if (ret != -EBUSY) {
		if (!ret)
			pd = NULL;
		ret = kv_fail(r, "ib_dealloc_pd_user of a PD with a window: %d, want -EBUSY", ret);
		goto out_pd;
	}
	ret = kv_mw_dealloc(r, mw);
	mw = NULL;
	if (ret)
		goto out_pd;
	ret = ib_dealloc_pd_user(pd, NULL);
	if (ret)
		return kv_fail(r, "ib_dealloc_pd_user after the window went: %d", ret);
	pd = NULL;

	ret = kv_pair_create(r, p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	/* the pair's QPs use the PD too */
	used = atomic_read(&r->pd->usecnt);
	mr = kv_mw_mr(s, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND);
	mw = mr ? kv_mw_alloc(r, IB_MW_TYPE_1) : NULL;
	if (!mw) {
		ret = -EIO;
		goto out;
	}
	ret = kv_mw_bind(r, &p->b, mw, mr, 0, SZ_4K, KV_MW_REMOTE, 1);
	ret = ret ?: kv_mw_rdma(s, p, IB_WR_RDMA_READ, 0, 64, mw->rkey, 2, IB_WC_SUCCESS);
	if (ret)
		goto out;
	ret = ib_dereg_mr(mr);
	if (!ret) {
		mr = NULL;
		ret = kv_fail(r, "ib_dereg_mr of an MR with a window bound succeeded");
		goto out;
	}
	/* the MR stays, and so does its tracker entry (docs/restrack.md) */
	ret = kv_mw_still_listed(r, mr);
	if (ret)
		goto out;
	key = mw->rkey;
	ret = kv_mw_dealloc(r, mw);
	mw = NULL;
	ret = ret ?: kv_mw_rdma(s, p, IB_WR_RDMA_READ, 0, 64, key, 3, IB_WC_REM_ACCESS_ERR);
	ret = ret ?: kv_mw_dereg(r, mr);
	mr = NULL;
	if (!ret && atomic_read(&r->pd->usecnt) != used)
		ret = kv_fail(r, "the PD is used by %d after the window and MR, not %d",
			      atomic_read(&r->pd->usecnt), used);
out:
	if (kv_pair_destroy(r, p))
		ret = -EIO;
	if (kv_mw_dealloc(r, mw) || kv_mw_dereg(r, mr))
		ret = -EIO;
	return ret;

out_pd:
	if (!kv_mw_dealloc(r, mw) && pd)
		ib_dealloc_pd_user(pd, NULL);
	return ret ? ret : -EIO;
}

/*
 * The device advertises windows as upstream's mlx4 derives them from the
 * card's capabilities: the model's QUERY_DEV_CAP has MEM_WINDOW and the
 * BMME bits TYPE_2_WIN and WIN_TYPE_2B, so MEM_WINDOW and TYPE_2B, not 2A.
 */
int kv_case_mw_caps(struct kv_self *s)
{
	const struct ib_device_attr *a = &s->r.dev->attrs;
	u64 want = IB_DEVICE_MEM_WINDOW | IB_DEVICE_MEM_WINDOW_TYPE_2B;
	u64 all = want | IB_DEVICE_MEM_WINDOW_TYPE_2A;

	if ((a->device_cap_flags & all) != want)
		return kv_fail(&s->r, "window flags 0x%llx, want 0x%llx",
			       a->device_cap_flags & all, want);
	return 0;
}

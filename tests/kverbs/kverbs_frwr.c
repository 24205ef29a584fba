// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: fast registration (ib_alloc_mr, ib_map_mr_sg, IB_WR_REG_MR,
 * IB_WR_LOCAL_INV, IB_WR_SEND_WITH_INV) as a ULP uses it.  The MRs map
 * pieces of buffer b, which kv_buf_alloc() has DMA-mapped already: each
 * scatterlist entry takes its bus address from that mapping, as
 * dma_map_sg() would give it.  QP a (port 1) accesses, through the keys,
 * what QP b (port 2) registers.
 */
#include <linux/kernel.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kverbs.h"

#define KV_FR_PAGE	SZ_4K
#define KV_FR_MAX	511	/* mlx4's max_fast_reg_page_list_len */
#define KV_FR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)

/* One scatterlist entry: [off, off + len) of buffer b. */
static void kv_sg_piece(struct scatterlist *sg, struct kv_buf *b, size_t off, u32 len)
{
	sg_set_buf(sg, (u8 *)b->cpu + off, len);
	sg_dma_address(sg) = b->dma + off;
	sg_dma_len(sg) = len;
}

static struct ib_mr *kv_fr_alloc(struct kv_run *r, u32 max_sg)
{
	int used = atomic_read(&r->pd->usecnt);
	struct ib_mr *mr;

	mr = ib_alloc_mr(r->pd, IB_MR_TYPE_MEM_REG, max_sg);
	if (IS_ERR_OR_NULL(mr)) {
		kv_fail(r, "ib_alloc_mr(MEM_REG, %u) failed: %ld", max_sg,
			mr ? PTR_ERR(mr) : -EINVAL);
		return NULL;
	}
	if (mr->pd != r->pd || mr->device != r->dev || mr->type != IB_MR_TYPE_MEM_REG ||
	    mr->lkey != mr->rkey || atomic_read(&r->pd->usecnt) != used + 1) {
		kv_fail(r, "ib_alloc_mr: pd %p device %p type %d lkey 0x%x rkey 0x%x usecnt %d",
			mr->pd, mr->device, mr->type, mr->lkey, mr->rkey,
			atomic_read(&r->pd->usecnt));
		ib_dereg_mr(mr);
		return NULL;
	}
	return mr;
}

static int kv_fr_dereg(struct kv_run *r, struct ib_mr *mr)
{
	int ret;

	if (!mr)
		return 0;
	ret = ib_dereg_mr(mr);
	if (ret)
		return kv_fail(r, "ib_dereg_mr of a fast-registration MR: %d", ret);
	return 0;
}

/* ib_map_mr_sg() must map want entries into a region at iova of len bytes. */
static int kv_fr_map(struct kv_run *r, struct ib_mr *mr, struct scatterlist *sg, int n,
		     int want, u64 iova, u64 len, const char *what)
{
	int got = ib_map_mr_sg(mr, sg, n, NULL, KV_FR_PAGE);

	if (got != want)
		return kv_fail(r, "%s: ib_map_mr_sg mapped %d of %d entries, want %d",
			       what, got, n, want);
	if (mr->iova != iova || mr->length != len || mr->page_size != KV_FR_PAGE)
		return kv_fail(r, "%s: iova 0x%llx length %llu page size %u, want 0x%llx %llu %u",
			       what, mr->iova, mr->length, mr->page_size, iova, len,
			       KV_FR_PAGE);
	return 0;
}

/* IB_WR_REG_MR of mr with its current rkey, posted on ep, and its completion. */
static int kv_fr_reg(struct kv_run *r, struct kv_ep *ep, struct ib_mr *mr, u64 wr_id)
{
	const struct ib_send_wr *bad = NULL;
	struct ib_reg_wr rw;
	int ret;

	memset(&rw, 0, sizeof(rw));
	rw.wr.wr_id = wr_id;
	rw.wr.opcode = IB_WR_REG_MR;
	rw.wr.send_flags = IB_SEND_SIGNALED;
	rw.mr = mr;
	rw.key = mr->rkey;
	rw.access = KV_FR_ACCESS;
	ret = kv_post_send(r, ep->qp, &rw.wr, &bad);
	if (ret)
		return kv_fail(r, "ib_post_send(REG_MR key 0x%x) failed: %d", rw.key, ret);
	return kv_expect(r, &ep->scq, "REG_MR", wr_id, IB_WC_SUCCESS, IB_WC_REG_MR, NULL);
}

/* IB_WR_LOCAL_INV of key, posted on ep, and its completion. */
static int kv_fr_inv(struct kv_run *r, struct kv_ep *ep, u32 key, u64 wr_id)
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
	return kv_expect(r, &ep->scq, "LOCAL_INV", wr_id, IB_WC_SUCCESS, IB_WC_LOCAL_INV,
			 NULL);
}

/* a writes len bytes of buffer a (from offset src) at raddr through rkey. */
static int kv_fr_write(struct kv_self *s, struct kv_pair *p, size_t src, u32 len,
		       u64 raddr, u32 rkey, u64 wr_id, enum ib_wc_status want)
{
	struct ib_sge ss = kv_sge_dma(&s->r, &s->a, src, len);
	int ret;

	ret = kv_rdma(&s->r, &p->a, IB_WR_RDMA_WRITE, wr_id, &ss, 1, raddr, rkey);
	return ret ?: kv_expect(&s->r, &p->a.scq, "RDMA WRITE through the FRWR key", wr_id,
				want, IB_WC_RDMA_WRITE, NULL);
}

/* Buffer b's bytes at boff must be buffer a's at aoff (both CPU-owned). */
static int kv_fr_same(struct kv_run *r, struct kv_buf *b, size_t boff, struct kv_buf *a,
		      size_t aoff, size_t len, const char *what)
{
	const u8 *x = (const u8 *)b->cpu + boff, *y = (const u8 *)a->cpu + aoff;
	size_t i;

	for (i = 0; i < len; i++)
		if (x[i] != y[i])
			return kv_fail(r, "%s: byte %zu of %zu is 0x%02x, want 0x%02x", what,
				       i, len, x[i], y[i]);
	return 0;
}

static int kv_fr_zero(struct kv_run *r, struct kv_buf *b, size_t off, size_t len,
		      const char *what)
{
	if (memchr_inv((u8 *)b->cpu + off, 0, len))
		return kv_fail(r, "%s: written outside the registration", what);
	return 0;
}

static void kv_fr_prepare(struct kv_self *s, size_t len, size_t clear, u32 seed)
{
	kv_buf_cpu(&s->a);
	kv_fill(&s->a, 0, len, seed);
	kv_buf_dev(&s->a);
	kv_buf_cpu(&s->b);
	memset(s->b.cpu, 0, clear);
	kv_buf_dev(&s->b);
}

/*
 * Three discontiguous pieces of b (the first starts mid-page, the last ends
 * mid-page) registered as one region; a 13188-byte RDMA WRITE through it
 * lands in the three pieces and nowhere else; an RDMA READ across the
 * first join brings it back; an access past the region's end is refused.
 */
int kv_case_frwr_rdma(struct kv_self *s)
{
	static const struct { size_t off; u32 len; } pc[] = {
		{ 100, KV_FR_PAGE - 100 },
		{ 3 * KV_FR_PAGE, 2 * KV_FR_PAGE },
		{ 8 * KV_FR_PAGE, 1000 },
	};
	const u32 total = pc[0].len + pc[1].len + pc[2].len;
	struct kv_run *r = &s->r;
	struct kv_pair *p = &s->pair[0];
	struct scatterlist sg[3];
	struct ib_sge ss;
	struct ib_mr *mr;
	size_t at = 0;
	int ret, i;

	ret = kv_pair_create(r, p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	mr = kv_fr_alloc(r, 8);
	if (!mr) {
		ret = -EIO;
		goto out;
	}
	sg_init_table(sg, ARRAY_SIZE(sg));
	for (i = 0; i < ARRAY_SIZE(pc); i++)
		kv_sg_piece(&sg[i], &s->b, pc[i].off, pc[i].len);
	ret = kv_fr_map(r, mr, sg, 3, 3, s->b.dma + 100, total, "three pieces");
	ret = ret ?: kv_fr_reg(r, &p->b, mr, 1);
	if (ret)
		goto out;

	kv_fr_prepare(s, total, 10 * KV_FR_PAGE, 41);
	ret = kv_fr_write(s, p, 0, total, mr->iova, mr->rkey, 2, IB_WC_SUCCESS);
	if (ret)
		goto out;
	kv_buf_cpu(&s->b);
	for (i = 0; i < ARRAY_SIZE(pc) && !ret; i++) {
		ret = kv_fr_same(r, &s->b, pc[i].off, &s->a, at, pc[i].len, "written piece");
		at += pc[i].len;
	}
	ret = ret ?: kv_fr_zero(r, &s->b, 0, 100, "before the first piece");
	ret = ret ?: kv_fr_zero(r, &s->b, KV_FR_PAGE, 2 * KV_FR_PAGE, "pages 1-2");
	ret = ret ?: kv_fr_zero(r, &s->b, 5 * KV_FR_PAGE, 3 * KV_FR_PAGE, "pages 5-7");
	ret = ret ?: kv_fr_zero(r, &s->b, 8 * KV_FR_PAGE + 1000, KV_FR_PAGE, "after the last");
	kv_buf_dev(&s->b);
	if (ret)
		goto out;

	/* READ 8000 bytes from region offset 3000 into a at 64 KiB */
	kv_buf_cpu(&s->a);
	memset((u8 *)s->a.cpu + SZ_64K, 0, 8000);
	kv_buf_dev(&s->a);
	ss = kv_sge_dma(r, &s->a, SZ_64K, 8000);
	ret = kv_rdma(r, &p->a, IB_WR_RDMA_READ, 3, &ss, 1, mr->iova + 3000, mr->rkey);
	ret = ret ?: kv_expect(r, &p->a.scq, "RDMA READ through the FRWR key", 3,
			       IB_WC_SUCCESS, IB_WC_RDMA_READ, NULL);
	if (ret)
		goto out;
	kv_buf_cpu(&s->a);
	ret = kv_fr_same(r, &s->a, SZ_64K, &s->a, 3000, 8000, "read back");
	kv_buf_dev(&s->a);
	/* 20 bytes across the region's end */
	ret = ret ?: kv_fr_write(s, p, 0, 20, mr->iova + total - 10, mr->rkey, 4,
				 IB_WC_REM_ACCESS_ERR);
out:
	if (kv_fr_dereg(r, mr))
		ret = -EIO;
	if (kv_pair_destroy(r, p))
		ret = -EIO;
	return ret;
}

/*
 * Register, write, LOCAL_INV: the same key is refused at the responder
 * (REM_ACCESS_ERR at the requester) and the memory is left alone.  Then
 * ib_update_fast_reg_key(): the MR registers again, elsewhere, with the new
 * key, which works, while the old one stays refused.
 */
int kv_case_frwr_local_inv(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct kv_pair *p = &s->pair[0];
	struct scatterlist sg;
	struct ib_mr *mr;
	u32 old, next;
	int ret;

	ret = kv_pair_create(r, p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	mr = kv_fr_alloc(r, 4);
	if (!mr) {
		ret = -EIO;
		goto out;
	}
	sg_init_table(&sg, 1);
	kv_sg_piece(&sg, &s->b, 0, 2 * KV_FR_PAGE);
	ret = kv_fr_map(r, mr, &sg, 1, 1, s->b.dma, 2 * KV_FR_PAGE, "two pages");
	ret = ret ?: kv_fr_reg(r, &p->b, mr, 1);
	if (ret)
		goto out;
	kv_fr_prepare(s, 512, 4 * KV_FR_PAGE, 42);
	ret = kv_fr_write(s, p, 0, 256, mr->iova, mr->rkey, 2, IB_WC_SUCCESS);
	ret = ret ?: kv_fr_inv(r, &p->b, mr->rkey, 3);
	if (ret)
		goto out;
	/* the next write would put bytes 256-511 of a there */
	ret = kv_fr_write(s, p, 256, 256, mr->iova, mr->rkey, 4, IB_WC_REM_ACCESS_ERR);
	if (ret)
		goto out;
	kv_buf_cpu(&s->b);
	ret = kv_fr_same(r, &s->b, 0, &s->a, 0, 256, "after the invalidation");
	kv_buf_dev(&s->b);
	if (kv_pair_destroy(r, p))
		ret = -EIO;
	if (ret)
		goto out_mr;

	/* re-use: the next key, another piece */
	ret = kv_pair_create(r, p, IB_QPT_RC, NULL);
	if (ret)
		goto out_mr;
	old = mr->rkey;
	next = ib_inc_rkey(old);
	ib_update_fast_reg_key(mr, next & 0xff);
	if (mr->rkey != next || mr->lkey != next || (next ^ old) & ~0xffU ||
	    ib_inc_rkey(0x123456ff) != 0x12345600) {
		ret = kv_fail(r, "keys 0x%x/0x%x after ib_update_fast_reg_key(0x%02x), old 0x%x",
			      mr->lkey, mr->rkey, next & 0xff, old);
		goto out;
	}
	kv_sg_piece(&sg, &s->b, 4 * KV_FR_PAGE, KV_FR_PAGE);
	ret = kv_fr_map(r, mr, &sg, 1, 1, s->b.dma + 4 * KV_FR_PAGE, KV_FR_PAGE,
			"the next piece");
	ret = ret ?: kv_fr_reg(r, &p->b, mr, 5);
	if (ret)
		goto out;
	kv_fr_prepare(s, 512, 6 * KV_FR_PAGE, 43);
	ret = kv_fr_write(s, p, 0, 512, mr->iova, next, 6, IB_WC_SUCCESS);
	if (ret)
		goto out;
	kv_buf_cpu(&s->b);
	ret = kv_fr_same(r, &s->b, 4 * KV_FR_PAGE, &s->a, 0, 512, "through the new key");
	ret = ret ?: kv_fr_zero(r, &s->b, 0, 4 * KV_FR_PAGE, "the first registration's pages");
	kv_buf_dev(&s->b);
	ret = ret ?: kv_fr_write(s, p, 0, 16, mr->iova, old, 7, IB_WC_REM_ACCESS_ERR);
out:
	if (kv_pair_destroy(r, p))
		ret = -EIO;
out_mr:
	if (kv_fr_dereg(r, mr))
		ret = -EIO;
	return ret;
}

/*
 * SEND with Invalidate: a names b's registered key; b's receive completes
 * with IB_WC_WITH_INVALIDATE and that key, and the key no longer works.
 */
int kv_case_frwr_send_inv(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct kv_pair *p = &s->pair[0];
	struct scatterlist sg;
	struct ib_sge ss, rs;
	struct ib_mr *mr;
	struct ib_wc wc;
	int ret;

	ret = kv_pair_create(r, p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	mr = kv_fr_alloc(r, 2);
	if (!mr) {
		ret = -EIO;
		goto out;
	}
	sg_init_table(&sg, 1);
	kv_sg_piece(&sg, &s->b, 0, KV_FR_PAGE);
	ret = kv_fr_map(r, mr, &sg, 1, 1, s->b.dma, KV_FR_PAGE, "one page");
	ret = ret ?: kv_fr_reg(r, &p->b, mr, 1);
	if (ret)
		goto out;
	kv_fr_prepare(s, 300, 4 * KV_FR_PAGE, 44);
	ret = kv_fr_write(s, p, 0, 64, mr->iova, mr->rkey, 2, IB_WC_SUCCESS);
	rs = kv_sge_dma(r, &s->b, 2 * KV_FR_PAGE, 256);
	ret = ret ?: kv_recv(r, p->b.qp, 3, &rs, 1);
	if (ret)
		goto out;
	ss = kv_sge_dma(r, &s->a, 0, 200);
	ret = kv_send_inv(r, p, &ss, mr->rkey, 4, 3, &wc);
	if (ret)
		goto out;
	if (!(wc.wc_flags & IB_WC_WITH_INVALIDATE) || wc.ex.invalidate_rkey != mr->rkey ||
	    wc.byte_len != 200) {
		ret = kv_fail(r, "receive: flags 0x%x rkey 0x%x length %u, want 0x%x 0x%x 200",
			      wc.wc_flags, wc.ex.invalidate_rkey, wc.byte_len,
			      IB_WC_WITH_INVALIDATE, mr->rkey);
		goto out;
	}
	kv_buf_cpu(&s->b);
	ret = kv_fr_same(r, &s->b, 2 * KV_FR_PAGE, &s->a, 0, 200, "received data");
	kv_buf_dev(&s->b);
	ret = ret ?: kv_fr_write(s, p, 0, 64, mr->iova, mr->rkey, 5, IB_WC_REM_ACCESS_ERR);
out:
	if (kv_fr_dereg(r, mr))
		ret = -EIO;
	if (kv_pair_destroy(r, p))
		ret = -EIO;
	return ret;
}

/* What ib_alloc_mr() and ib_map_mr_sg() refuse, and partial mappings. */
static int kv_fr_map_limits(struct kv_self *s, struct ib_mr *mr, struct scatterlist *sg)
{
	struct kv_run *r = &s->r;
	u64 d = s->b.dma;
	unsigned int off;
	int ret, i, n;

	/* entry 1 ends mid-page, entry 2 starts elsewhere: a gap */
	sg_init_table(sg, 3);
	kv_sg_piece(&sg[0], &s->b, 0, KV_FR_PAGE);
	kv_sg_piece(&sg[1], &s->b, KV_FR_PAGE, 2048);
	kv_sg_piece(&sg[2], &s->b, 3 * KV_FR_PAGE, KV_FR_PAGE);
	ret = kv_fr_map(r, mr, sg, 3, 2, d, KV_FR_PAGE + 2048, "a gap after entry 1");
	/* entry 1 starts mid-page, not where entry 0 ends */
	sg_init_table(sg, 2);
	kv_sg_piece(&sg[0], &s->b, 0, KV_FR_PAGE);
	kv_sg_piece(&sg[1], &s->b, KV_FR_PAGE + 512, 1024);
	ret = ret ?: kv_fr_map(r, mr, sg, 2, 1, d, KV_FR_PAGE, "a mid-page start");
	/* entries that meet inside a page are one region */
	kv_sg_piece(&sg[0], &s->b, 0, 6000);
	kv_sg_piece(&sg[1], &s->b, 6000, 3000);
	ret = ret ?: kv_fr_map(r, mr, sg, 2, 2, d, 9000, "a mid-page join");
	if (ret)
		return ret;
	/* a starting offset into the first entry */
	sg_init_table(sg, 1);
	kv_sg_piece(&sg[0], &s->b, 0, 2 * KV_FR_PAGE);
	off = 1000;
	n = ib_map_mr_sg(mr, sg, 1, &off, KV_FR_PAGE);
	if (n != 1 || off || mr->iova != d + 1000 || mr->length != 2 * KV_FR_PAGE - 1000)
		return kv_fail(r, "sg_offset 1000: %d entries, offset %u, iova 0x%llx length %llu",
			       n, off, mr->iova, mr->length);
	/* page sizes: no power of two, smaller than the card's */
	n = ib_map_mr_sg(mr, sg, 1, NULL, 3000);
	if (n != -EINVAL)
		return kv_fail(r, "ib_map_mr_sg with pages of 3000 bytes: %d, want -EINVAL", n);
	n = ib_map_mr_sg(mr, sg, 1, NULL, 2048);
	if (n != -EINVAL)
		return kv_fail(r, "ib_map_mr_sg with pages of 2048 bytes: %d, want -EINVAL", n);
	/* a static kernel MR has no page list */
	n = ib_map_mr_sg(s->b.mr, sg, 1, NULL, KV_FR_PAGE);
	if (n != -EINVAL)
		return kv_fail(r, "ib_map_mr_sg on a kernel MR: %d, want -EINVAL", n);

	/* 512 one-page entries: 511 fit */
	sg_init_table(sg, KV_FR_MAX + 1);
	for (i = 0; i <= KV_FR_MAX; i++)
		kv_sg_piece(&sg[i], &s->b, (i % (KV_BUF_SIZE / KV_FR_PAGE)) * KV_FR_PAGE,
			    KV_FR_PAGE);
	return kv_fr_map(r, mr, sg, KV_FR_MAX + 1, KV_FR_MAX, d,
			 (u64)KV_FR_MAX * KV_FR_PAGE, "512 pages");
}

/* The device advertises fast registration as upstream's mlx4 does. */
int kv_case_frwr_caps(struct kv_self *s)
{
	const struct ib_device_attr *a = &s->r.dev->attrs;

	if (!(a->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) ||
	    a->max_fast_reg_page_list_len != KV_FR_MAX)
		return kv_fail(&s->r, "MEM_MGT_EXTENSIONS %s, max_fast_reg_page_list_len %u",
			       a->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS ? "on" : "off",
			       a->max_fast_reg_page_list_len);
	return 0;
}

int kv_case_frwr_map(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	int used = atomic_read(&r->pd->usecnt);
	struct ib_mr *mr = NULL, *small = NULL;
	struct scatterlist *sg;
	unsigned int off;
	int ret, n;

	mr = ib_alloc_mr(r->pd, IB_MR_TYPE_SG_GAPS, 8);
	if (!IS_ERR(mr) || PTR_ERR(mr) != -EINVAL)
		return kv_fail(r, "ib_alloc_mr(SG_GAPS): %ld, want -EINVAL", PTR_ERR(mr));
	mr = ib_alloc_mr(r->pd, IB_MR_TYPE_MEM_REG, KV_FR_MAX + 1);
	if (!IS_ERR(mr) || PTR_ERR(mr) != -EINVAL)
		return kv_fail(r, "ib_alloc_mr(MEM_REG, 512): %ld, want -EINVAL", PTR_ERR(mr));
	if (atomic_read(&r->pd->usecnt) != used)
		return kv_fail(r, "refused ib_alloc_mr calls left the PD used by %d, not %d",
			       atomic_read(&r->pd->usecnt), used);

	sg = kcalloc(KV_FR_MAX + 1, sizeof(*sg), GFP_KERNEL);
	if (!sg)
		return kv_fail(r, "no memory for the scatterlist");
	mr = kv_fr_alloc(r, KV_FR_MAX);
	ret = mr ? kv_fr_map_limits(s, mr, sg) : -EIO;
	if (ret)
		goto out;

	/* a 4-page MR: 8 one-page entries map 4; one 8-page entry maps half */
	small = kv_fr_alloc(r, 4);
	ret = small ? kv_fr_map(r, small, sg, 8, 4, s->b.dma, 4 * KV_FR_PAGE, "8 of 4") : -EIO;
	if (ret)
		goto out;
	sg_init_table(sg, 1);
	kv_sg_piece(&sg[0], &s->b, 0, 8 * KV_FR_PAGE);
	off = 0;
	n = ib_map_mr_sg(small, sg, 1, &off, KV_FR_PAGE);
	if (n != 0 || off != 4 * KV_FR_PAGE || small->length != 4 * KV_FR_PAGE)
		ret = kv_fail(r, "8 pages into 4: %d entries, offset %u, length %llu; want 0 %u %u",
			      n, off, small->length, 4 * KV_FR_PAGE, 4 * KV_FR_PAGE);
out:
	kfree(sg);
	if (kv_fr_dereg(r, small) || kv_fr_dereg(r, mr))
		ret = -EIO;
	if (!ret && atomic_read(&r->pd->usecnt) != used)
		ret = kv_fail(r, "the PD is used by %d after the MRs went, not %d",
			      atomic_read(&r->pd->usecnt), used);
	return ret;
}

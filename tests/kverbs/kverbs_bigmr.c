// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: large kernel MRs - 1200 scattered 4 KiB pages (an MTT
 * written in several commands) and two 2 MiB pages (page_shift 21) - read
 * and written remotely across page and chunk boundaries.
 */
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kverbs.h"

#define KV_BIG_PAGES	1200
#define KV_BIG_IOVA	0x0000700000000000ULL
#define KV_XFER		(256 * 1024)

/* A buffer of npages chunks of 2^shift bytes each, scattered in memory. */
struct kv_chunks {
	struct device	*dd;
	unsigned int	n;
	unsigned int	shift;
	struct page	**pg;
	dma_addr_t	*dma;
	u64		*bus;
	struct ib_mr	*mr;
};

static u8 kv_big_byte(u64 off)
{
	return (u8)((off * 7 + (off >> 12) * 13 + 5) & 0xff);
}

static u8 *kv_chunk_at(struct kv_chunks *c, u64 off)
{
	return (u8 *)page_address(c->pg[off >> c->shift]) +
	       (off & ((1ULL << c->shift) - 1));
}

static void kv_chunks_free(struct kv_chunks *c)
{
	unsigned int i, order = c->shift - PAGE_SHIFT;

	if (c->mr)
		ib_dereg_mr(c->mr);
	for (i = 0; c->pg && i < c->n; i++) {
		if (!c->pg[i])
			break;
		if (c->dma[i])
			dma_unmap_page(c->dd, c->dma[i], 1UL << c->shift,
				       DMA_BIDIRECTIONAL);
		__free_pages(c->pg[i], order);
	}
	kfree(c->bus);
	kfree(c->dma);
	kfree(c->pg);
}

static int kv_chunks_alloc(struct kv_run *r, struct kv_chunks *c, unsigned int n,
			   unsigned int shift)
{
	unsigned int i, order = shift - PAGE_SHIFT;
	u64 off, size = (u64)n << shift;

	memset(c, 0, sizeof(*c));
	c->dd = r->dev->dma_device;
	c->n = n;
	c->shift = shift;
	c->pg = kcalloc(n, sizeof(*c->pg), GFP_KERNEL);
	c->dma = kcalloc(n, sizeof(*c->dma), GFP_KERNEL);
	c->bus = kcalloc(n, sizeof(*c->bus), GFP_KERNEL);
	if (!c->pg || !c->dma || !c->bus) {
		kv_chunks_free(c);
		return kv_fail(r, "no memory for the page lists of %u pages", n);
	}
	for (i = 0; i < n; i++) {
		/* compaction may be needed for 2 MiB: try hard, fail quietly */
		c->pg[i] = alloc_pages(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN,
				       order);
		if (!c->pg[i]) {
			kv_chunks_free(c);
			return kv_fail(r, "cannot allocate page %u of %u of 2^%u bytes",
				       i, n, shift);
		}
		for (off = 0; off < 1ULL << shift; off++)
			((u8 *)page_address(c->pg[i]))[off] =
				kv_big_byte(((u64)i << shift) + off);
		c->dma[i] = dma_map_page(c->dd, c->pg[i], 0, 1UL << shift,
					 DMA_BIDIRECTIONAL);
		if (dma_mapping_error(c->dd, c->dma[i])) {
			c->dma[i] = 0;
			kv_chunks_free(c);
			return kv_fail(r, "dma_map_page failed");
		}
		c->bus[i] = c->dma[i];
	}
	c->mr = ibstack_reg_kernel_mr(r->pd, c->bus, n, shift, KV_BIG_IOVA, size,
				      IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
				      IB_ACCESS_REMOTE_READ);
	if (IS_ERR_OR_NULL(c->mr)) {
		long err = c->mr ? PTR_ERR(c->mr) : -EINVAL;

		c->mr = NULL;
		kv_chunks_free(c);
		return kv_fail(r, "ibstack_reg_kernel_mr(%u pages of 2^%u) failed: %ld", n,
			       shift, err);
	}
	if (c->mr->iova != KV_BIG_IOVA || c->mr->length != size) {
		u64 iova = c->mr->iova, len = c->mr->length;

		kv_chunks_free(c);
		return kv_fail(r, "MR of %u pages of 2^%u: iova 0x%llx length 0x%llx",
			       n, shift, iova, len);
	}
	return 0;
}

/* Read KV_XFER bytes at roff of the chunks into a; write a's at woff. */
static int kv_chunks_xfer(struct kv_self *s, struct kv_chunks *c, u64 roff, u64 woff)
{
	struct kv_run *r = &s->r;
	struct ib_sge ss;
	struct kv_pair p;
	u64 i;
	int ret;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	kv_buf_cpu(&s->a);
	memset(s->a.cpu, 0, KV_XFER);
	kv_buf_dev(&s->a);
	ss = kv_sge_mr(&s->a, 0, KV_XFER);
	ret = kv_rdma(r, &p.a, IB_WR_RDMA_READ, 1, &ss, 1, KV_BIG_IOVA + roff,
		      c->mr->rkey);
	ret = ret ?: kv_expect(r, &p.a.scq, "read of the big MR", 1, IB_WC_SUCCESS,
			       IB_WC_RDMA_READ, NULL);
	if (ret)
		goto out;
	kv_buf_cpu(&s->a);
	for (i = 0; i < KV_XFER; i++) {
		if (((u8 *)s->a.cpu)[i] != kv_big_byte(roff + i)) {
			ret = kv_fail(r, "read at MR offset 0x%llx: 0x%02x, want 0x%02x",
				      roff + i, ((u8 *)s->a.cpu)[i], kv_big_byte(roff + i));
			goto out;
		}
	}
	kv_buf_cpu(&s->a);
	kv_fill(&s->a, 0, KV_XFER, 123);
	kv_buf_dev(&s->a);
	ss = kv_sge_dma(r, &s->a, 0, KV_XFER);
	ret = kv_rdma(r, &p.a, IB_WR_RDMA_WRITE, 2, &ss, 1, KV_BIG_IOVA + woff,
		      c->mr->rkey);
	ret = ret ?: kv_expect(r, &p.a.scq, "write into the big MR", 2, IB_WC_SUCCESS,
			       IB_WC_RDMA_WRITE, NULL);
	if (ret)
		goto out;
	for (i = 0; i < c->n; i++)
		dma_sync_single_for_cpu(c->dd, c->dma[i], 1UL << c->shift,
					DMA_BIDIRECTIONAL);
	for (i = 0; i < KV_XFER; i++) {
		if (*kv_chunk_at(c, woff + i) != ((u8 *)s->a.cpu)[i]) {
			ret = kv_fail(r, "write at MR offset 0x%llx (chunk %llu) did not land",
				      woff + i, (woff + i) >> c->shift);
			goto out;
		}
	}
	if (woff && *kv_chunk_at(c, woff - 1) != kv_big_byte(woff - 1))
		ret = kv_fail(r, "write touched the byte before its target");
	else if (*kv_chunk_at(c, woff + KV_XFER) != kv_big_byte(woff + KV_XFER))
		ret = kv_fail(r, "write touched the byte after its target");
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

int kv_case_big_mr(struct kv_self *s)
{
	struct kv_chunks c;
	int ret;

	/* 1200 4 KiB pages: reads/writes across many of them */
	ret = kv_chunks_alloc(&s->r, &c, KV_BIG_PAGES, PAGE_SHIFT);
	if (ret)
		return ret;
	ret = kv_chunks_xfer(s, &c, 3 * 1024 * 1024 + 1000,
			     (KV_BIG_PAGES << PAGE_SHIFT) - KV_XFER - 4096 - 3);
	if (ret)
		kv_fail(&s->r, "(1200 pages of 4 KiB)");
	kv_chunks_free(&c);
	if (ret)
		return ret;
	/* two 2 MiB pages: across the boundary between them */
	ret = kv_chunks_alloc(&s->r, &c, 2, 21);
	if (ret)
		return ret;
	ret = kv_chunks_xfer(s, &c, (2 << 20) - KV_XFER / 2, (2 << 20) - 12345);
	if (ret)
		kv_fail(&s->r, "(2 pages of 2 MiB)");
	kv_chunks_free(&c);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Fast registration (FRWR): an MR allocated without a translation, whose
 * page list a consumer fills from a DMA-mapped scatterlist and hands to
 * the card with an IB_WR_REG_MR work request; LOCAL_INV or a SEND with
 * Invalidate takes it back.  The driver owns the page list; ib_core checks
 * the arguments and walks the scatterlist for it (ib_sg_to_pages()).
 */
#include <linux/log2.h>
#include <linux/module.h>
#include "core_priv.h"
#include "restrack.h"

/* [sleep] */
struct ib_mr *ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type, u32 max_num_sg)
{
	struct ib_device *device;
	struct ib_mr *mr;

	if (IS_ERR_OR_NULL(pd)) {
		IB_CORE_RATELIMITED("no PD\n");
		return ERR_PTR(-EINVAL);
	}
	device = pd->device;
	if (!device->ops.alloc_mr)
		return ERR_PTR(-EOPNOTSUPP);
	/* integrity MRs have their own allocation call upstream */
	if (WARN_ON_ONCE(mr_type == IB_MR_TYPE_INTEGRITY))
		return ERR_PTR(-EINVAL);

	mr = device->ops.alloc_mr(pd, mr_type, max_num_sg);
	if (IS_ERR_OR_NULL(mr))
		return mr ? mr : ERR_PTR(-ENOMEM);
	ib_core_mr_init(mr, pd, mr_type);
	atomic_inc(&pd->usecnt);
	rdma_restrack_track_child(&mr->res, RDMA_RESTRACK_MR, &pd->res);
	return mr;
}
EXPORT_SYMBOL(ib_alloc_mr);

/* [any] */
int ib_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		 unsigned int *sg_offset, unsigned int page_size)
{
	if (unlikely(!mr->device->ops.map_mr_sg))
		return -EOPNOTSUPP;
	if (unlikely(!is_power_of_2(page_size))) {
		IB_CORE_RATELIMITED("%s: page size %u is no power of two\n",
				    mr->device->name, page_size);
		return -EINVAL;
	}
	mr->page_size = page_size;
	return mr->device->ops.map_mr_sg(mr, sg, sg_nents, sg_offset);
}
EXPORT_SYMBOL(ib_map_mr_sg);

/*
 * [any] Walk a DMA-mapped scatterlist in pages of mr->page_size, handing
 * each page's bus address to set_page(), and set the MR's iova and length.
 * The region must be contiguous in the MR's address space: entries may
 * meet inside a page only if one ends where the next starts, and may be
 * apart only at page boundaries (the first may start and the last may end
 * anywhere).  The walk stops at the first entry that breaks this, or when
 * set_page() fails (the page list is full): the MR then covers every page
 * handed over, and *sg_offset_p is where in the next entry mapping
 * stopped (0 after whole entries).  Returns the number of entries mapped
 * whole, or set_page()'s error if nothing at all was mapped.
 */
int ib_sg_to_pages(struct ib_mr *mr, struct scatterlist *sgl, int sg_nents,
		   unsigned int *sg_offset_p, int (*set_page)(struct ib_mr *, u64))
{
	unsigned int first_off = sg_offset_p ? *sg_offset_p : 0;
	u64 psize = mr->page_size, in_page = psize - 1;
	struct scatterlist *sg;
	u64 prev_end = 0;
	int i, ret;

	if (unlikely(sg_nents <= 0 || !is_power_of_2(psize) ||
		     first_off > sg_dma_len(sgl)))
		return -EINVAL;

	mr->iova = sg_dma_address(sgl) + first_off;
	mr->length = 0;
	for_each_sg(sgl, sg, sg_nents, i) {
		u64 base = sg_dma_address(sg);
		u64 start = base + (i ? 0 : first_off);
		u64 end = base + sg_dma_len(sg);
		u64 page = start & ~in_page;

		if (i && start != prev_end) {
			/* apart: both sides must be on page boundaries */
			if ((prev_end & in_page) || (start & in_page))
				break;
		} else if (i && (start & in_page)) {
			/* continues inside the page the last entry handed over */
			page += psize;
		}
		for (; page < end; page += psize) {
			ret = set_page(mr, page);
			if (ret >= 0)
				continue;
			/* the list is full: the MR ends where this page starts */
			page = max(page, start);
			if (!i && page == start)
				return ret;
			mr->length += page - start;
			if (sg_offset_p)
				*sg_offset_p = page - base;
			return i;
		}
		mr->length += end - start;
		prev_end = end;
	}
	if (sg_offset_p)
		*sg_offset_p = 0;
	return i;
}
EXPORT_SYMBOL(ib_sg_to_pages);

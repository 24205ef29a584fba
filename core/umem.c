// SPDX-License-Identifier: GPL-2.0
/*
 * Pinned user memory (<rdma/ib_umem.h>): the pages of a user buffer are
 * pinned long-term, gathered into one scatterlist whose entries merge
 * physically contiguous pages, and mapped for DMA on the device.
 *
 * Accounting: the pinned pages are charged to the owning process's
 * mm->pinned_vm, checked against RLIMIT_MEMLOCK (no limit with
 * CAP_IPC_LOCK), and given back on release; the umem holds an mmgrab()
 * reference on that mm, so a release after the process exited (a file
 * closed late) still finds the counter.
 *
 * Fork: the pins are FOLL_PIN | FOLL_LONGTERM, so on every kernel we build
 * for (5.10+) fork() gives the child a copy of a pinned anonymous page
 * instead of sharing it copy-on-write: the parent keeps the very pages the
 * card reads and writes, and neither process's later writes move them.
 */
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <ibstack/compat.h>
#include "core_priv.h"

/* how many page pointers one batch of pin_user_pages_fast() fills */
#define IB_UMEM_BATCH	(PAGE_SIZE / sizeof(struct page *))

/* [any] the pages [address, address + length) touches: what is pinned and charged */
static unsigned long ib_umem_pinned_pages(const struct ib_umem *umem)
{
	return (PAGE_ALIGN(umem->address + umem->length) -
		(umem->address & PAGE_MASK)) >> PAGE_SHIFT;
}

/* [any] charge npages to mm against RLIMIT_MEMLOCK; -ENOMEM beyond it */
static int ib_umem_charge(struct mm_struct *mm, unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	u64 pinned = atomic64_add_return(npages, &mm->pinned_vm);

	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		IB_CORE_RATELIMITED("%lu more pinned pages: %llu, RLIMIT_MEMLOCK %lu\n",
				    npages, pinned, limit);
		return -ENOMEM;
	}
	return 0;
}

/* [sleep] unpin every page of the scatterlist (not the DMA mapping) and free it */
static void ib_umem_unpin(struct ib_umem *umem, bool dirty)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(&umem->sgt_append.sgt, sg, i)
		ibstack_unpin_user_page_range_dirty_lock(sg_page(sg),
							 DIV_ROUND_UP(sg->length, PAGE_SIZE),
							 dirty);
	ibstack_sg_free_appended(&umem->sgt_append.sgt, umem->sgt_append.total_nents);
}

/*
 * [sleep] Pin the umem's pages in batches and append each batch to its
 * scatterlist; on failure what was appended stays for ib_umem_unpin().
 */
static int ib_umem_pin(struct ib_umem *umem, unsigned long npages, unsigned int gup_flags)
{
	unsigned int max_seg = ib_dma_max_seg_size(umem->ibdev);
	unsigned long cur = umem->address & PAGE_MASK;
	struct page **batch;
	int ret = 0;

	batch = (struct page **)__get_free_page(GFP_KERNEL);
	if (!batch)
		return -ENOMEM;

	while (npages) {
		int pinned;

		cond_resched();
		pinned = pin_user_pages_fast(cur, min_t(unsigned long, npages, IB_UMEM_BATCH),
					     gup_flags, batch);
		if (pinned <= 0) {
			ret = pinned ? pinned : -EFAULT;
			IB_CORE_RATELIMITED("%s: pinning the pages at 0x%lx: %d\n",
					    umem->ibdev->name, cur, ret);
			break;
		}
		cur += (unsigned long)pinned << PAGE_SHIFT;
		npages -= pinned;
		ret = ibstack_sg_append_pages(&umem->sgt_append.sgt, &umem->sgt_append.prv,
					      &umem->sgt_append.total_nents, batch, pinned, 0,
					      (unsigned long)pinned << PAGE_SHIFT, max_seg,
					      npages, GFP_KERNEL);
		if (ret) {
			unpin_user_pages_dirty_lock(batch, pinned, false);
			break;
		}
	}
	free_page((unsigned long)batch);
	return ret;
}

struct ib_umem *ib_umem_get(struct ib_device *device, unsigned long addr, size_t size,
			    int access)
{
	unsigned int gup_flags = FOLL_LONGTERM;
	unsigned long dma_attrs = 0;
	struct ib_umem *umem;
	unsigned long npages;
	struct mm_struct *mm;
	int ret;

	might_sleep();
	if (!device) {
		IB_CORE_RATELIMITED("no device\n");
		return ERR_PTR(-EINVAL);
	}
	if (access & IB_ACCESS_ON_DEMAND) {
		IB_CORE_RATELIMITED("%s: on-demand paging is not supported\n", device->name);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!size || addr + size < addr || PAGE_ALIGN(addr + size) < addr + size) {
		IB_CORE_RATELIMITED("%s: bad range 0x%lx + %zu\n", device->name, addr, size);
		return ERR_PTR(-EINVAL);
	}
	mm = current->mm;
	if (!mm) {
		IB_CORE_RATELIMITED("%s: no user address space\n", device->name);
		return ERR_PTR(-EINVAL);
	}

	umem = kzalloc(sizeof(*umem), GFP_KERNEL);
	if (!umem)
		return ERR_PTR(-ENOMEM);
	umem->ibdev = device;
	umem->address = addr;
	umem->length = size;
	umem->iova = addr;	/* until ib_umem_find_best_pgsz() says where the card sees it */
	umem->writable = ib_access_writable(access);
	npages = ib_umem_pinned_pages(umem);
	if (npages > UINT_MAX) {
		IB_CORE_RATELIMITED("%s: %lu pages in one buffer\n", device->name, npages);
		ret = -EINVAL;
		goto err_free;
	}
	umem->owning_mm = mm;
	mmgrab(mm);

	ret = ib_umem_charge(mm, npages);
	if (ret)
		goto err_mm;
	if (umem->writable)
		gup_flags |= FOLL_WRITE;
	ret = ib_umem_pin(umem, npages, gup_flags);
	if (ret)
		goto err_unpin;

	if (access & IB_ACCESS_RELAXED_ORDERING)
		dma_attrs |= DMA_ATTR_WEAK_ORDERING;
	ret = ib_dma_map_sgtable_attrs(device, &umem->sgt_append.sgt, DMA_BIDIRECTIONAL,
				       dma_attrs);
	if (ret) {
		IB_CORE_RATELIMITED("%s: mapping %lu pages for DMA: %d\n",
				    device->name, npages, ret);
		goto err_unpin;
	}
	return umem;

err_unpin:
	ib_umem_unpin(umem, false);
	atomic64_sub(npages, &mm->pinned_vm);
err_mm:
	mmdrop(mm);
err_free:
	kfree(umem);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_umem_get);

void ib_umem_release(struct ib_umem *umem)
{
	if (!umem)
		return;
	ib_dma_unmap_sgtable_attrs(umem->ibdev, &umem->sgt_append.sgt, DMA_BIDIRECTIONAL, 0);
	ib_umem_unpin(umem, umem->writable);
	atomic64_sub(ib_umem_pinned_pages(umem), &umem->owning_mm->pinned_vm);
	mmdrop(umem->owning_mm);
	kfree(umem);
}
EXPORT_SYMBOL(ib_umem_release);

int ib_umem_copy_from(void *dst, struct ib_umem *umem, size_t offset, size_t length)
{
	size_t copied;

	if (!dst || IS_ERR_OR_NULL(umem)) {
		IB_CORE_RATELIMITED("no buffer or umem\n");
		return -EINVAL;
	}
	if (offset > umem->length || length > umem->length - offset) {
		IB_CORE_RATELIMITED("%zu bytes at %zu of a %zu-byte buffer\n",
				    length, offset, umem->length);
		return -EINVAL;
	}
	copied = sg_pcopy_to_buffer(umem->sgt_append.sgt.sgl, umem->sgt_append.sgt.orig_nents,
				    dst, length, offset + ib_umem_offset(umem));
	return copied == length ? 0 : -EINVAL;
}
EXPORT_SYMBOL(ib_umem_copy_from);

/*
 * A block of size S mapped at virtual address V translates V..V+S-1 to one
 * DMA-contiguous range starting at an S-aligned bus address.  So a size
 * fits when, at every point where a new DMA-contiguous run starts (the
 * buffer's first byte and each discontinuity), the virtual and bus
 * addresses agree in their low log2(S) bits, and, at a discontinuity, the
 * virtual address is itself S-aligned (a block cannot span the gap).
 * "limits" gathers, as set bits, every bit position that breaks such an
 * agreement; its lowest set bit bounds the size.  Sizes at least as large
 * as the whole range's span (one block covers it all) add their own bits,
 * so that no size larger than the smallest of them is chosen: more than
 * one block's worth of translation is pointless.
 */
unsigned long ib_umem_find_best_pgsz(struct ib_umem *umem, unsigned long pgsz_bitmap,
				     u64 virt)
{
	dma_addr_t run_end = 0;
	unsigned long first_off;
	unsigned long limits = 0;
	struct scatterlist *sg;
	unsigned int span_bits;
	u64 va = virt;
	unsigned int i;
	u64 last;

	if (IS_ERR_OR_NULL(umem))
		return 0;
	umem->iova = virt;
	first_off = ib_umem_offset(umem);
	if (check_add_overflow(virt, (u64)umem->length - 1, &last))
		return 0;

	span_bits = fls64(virt ^ last);
	if (span_bits < BITS_PER_LONG)
		limits = pgsz_bitmap & GENMASK(BITS_PER_LONG - 1, span_bits);

	for_each_sgtable_dma_sg(&umem->sgt_append.sgt, sg, i) {
		dma_addr_t start = sg_dma_address(sg);

		if (i == 0 || start != run_end) {
			/* a new run: its first byte is seen by the card at va */
			limits |= (start + first_off) ^ va;
			if (i)
				limits |= va;
		}
		run_end = start + sg_dma_len(sg);
		va += sg_dma_len(sg) - first_off;
		first_off = 0;
	}

	if (limits)
		pgsz_bitmap &= GENMASK(__ffs(limits), 0);
	return pgsz_bitmap ? BIT(__fls(pgsz_bitmap)) : 0;
}
EXPORT_SYMBOL(ib_umem_find_best_pgsz);

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pinned user memory (6.1's <rdma/ib_umem.h>, without on-demand paging and
 * dma-buf): a driver pins the pages of a user buffer with ib_umem_get(),
 * walks their bus addresses in blocks of the page size it programs into the
 * card's translation table, and releases them with ib_umem_release().
 * Implemented in core/umem.c.  Pinning is long-term (FOLL_LONGTERM) and
 * charged to the process's locked-memory limit (RLIMIT_MEMLOCK; no limit
 * with CAP_IPC_LOCK), given back on release.
 */
#ifndef IBSTACK_RDMA_IB_UMEM_H
#define IBSTACK_RDMA_IB_UMEM_H

#include <ibstack/no_kernel_ib.h>
#include <linux/scatterlist.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

/*
 * 6.1's struct sg_append_table under a name of ours, with its members: the
 * kernel's exists only since 5.15, and this header is the same for every
 * kernel (core/umem.c converts, <ibstack/compat.h>)
 */
struct ib_umem_sg_append {
	struct sg_table		sgt;		/* the filled entries */
	struct scatterlist	*prv;		/* the last one filled */
	unsigned int		total_nents;	/* the entries allocated */
};

struct ib_umem {
	struct ib_device	*ibdev;
	struct mm_struct	*owning_mm;	/* holds an mmgrab() reference */
	u64			iova;		/* the address the card sees */
	size_t			length;		/* bytes */
	unsigned long		address;	/* the user virtual address */
	u32			writable : 1;
	u32			is_odp : 1;	/* never */
	u32			is_dmabuf : 1;	/* never */
	struct work_struct	work;
	/* the pinned pages, DMA-mapped: sgt_append.sgt.sgl, .nents mapped */
	struct ib_umem_sg_append sgt_append;
};

/* [any] the offset of the buffer in its first page */
static inline int ib_umem_offset(struct ib_umem *umem)
{
	return umem->address & ~PAGE_MASK;
}

/* [any] the offset, in a block of pgsz bytes, at which the buffer's DMA starts */
static inline unsigned long ib_umem_dma_offset(struct ib_umem *umem, unsigned long pgsz)
{
	return (sg_dma_address(umem->sgt_append.sgt.sgl) + ib_umem_offset(umem)) & (pgsz - 1);
}

/* [any] how many blocks of pgsz bytes cover [iova, iova + length) */
static inline size_t ib_umem_num_dma_blocks(struct ib_umem *umem, unsigned long pgsz)
{
	return (size_t)((ALIGN(umem->iova + umem->length, pgsz) -
			 ALIGN_DOWN(umem->iova, pgsz))) / pgsz;
}

static inline size_t ib_umem_num_pages(struct ib_umem *umem)
{
	return ib_umem_num_dma_blocks(umem, PAGE_SIZE);
}

/*
 * [any] Walk the buffer's DMA blocks of pgsz bytes (a size that
 * ib_umem_find_best_pgsz() chose); rdma_block_iter_dma_address() gives
 * each block's bus address.
 */
static inline void __rdma_umem_block_iter_start(struct ib_block_iter *biter,
						struct ib_umem *umem,
						unsigned long pgsz)
{
	__rdma_block_iter_start(biter, umem->sgt_append.sgt.sgl,
				umem->sgt_append.sgt.nents, pgsz);
	biter->__sg_advance = ib_umem_offset(umem) & ~(pgsz - 1);
	biter->__sg_numblocks = ib_umem_num_dma_blocks(umem, pgsz);
}

static inline bool __rdma_umem_block_iter_next(struct ib_block_iter *biter)
{
	return __rdma_block_iter_next(biter) && biter->__sg_numblocks--;
}

/* [any] the loop's step, as __rdma_block_iter_step() */
static inline bool __rdma_umem_block_iter_step(struct ib_block_iter *biter,
					       struct ib_umem *umem, unsigned long pgsz)
{
	if (!biter->__begun) {
		__rdma_umem_block_iter_start(biter, umem, pgsz);
		biter->__begun = true;
	}
	return __rdma_umem_block_iter_next(biter);
}

#define rdma_umem_for_each_dma_block(umem, biter, pgsz)			\
	for (__builtin_expect((biter)->__begun = false, 0);		\
	     __rdma_umem_block_iter_step(biter, umem, pgsz);)

/*
 * [sleep] Pin [addr, addr + size) of the calling process for the device
 * with the rights access (IB_ACCESS_*: pages are pinned writable when any
 * write or atomic right is asked for), and map it for DMA.  ERR_PTR():
 * -EINVAL for size 0 or a range that wraps, -ENOMEM beyond RLIMIT_MEMLOCK
 * (or out of memory), -EFAULT for unmapped pages (or read-only pages when
 * writable ones are needed), -EOPNOTSUPP for ON_DEMAND.
 */
struct ib_umem *ib_umem_get(struct ib_device *device, unsigned long addr, size_t size,
			    int access);
/* [sleep] unpin, unmap, uncharge and free; NULL is ignored */
void ib_umem_release(struct ib_umem *umem);
/* [sleep] copy length bytes at offset of the buffer; -EINVAL out of range */
int ib_umem_copy_from(void *dst, struct ib_umem *umem, size_t offset, size_t length);
/*
 * [any] The largest page size of pgsz_bitmap that the buffer's DMA
 * addresses allow for a mapping at virt (every block boundary inside the
 * range falls on a DMA boundary); 0 if none.
 */
unsigned long ib_umem_find_best_pgsz(struct ib_umem *umem, unsigned long pgsz_bitmap,
				     u64 virt);

#endif /* IBSTACK_RDMA_IB_UMEM_H */

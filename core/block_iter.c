// SPDX-License-Identifier: GPL-2.0
/*
 * Walking a DMA-mapped scatterlist in blocks of a power-of-two size
 * (rdma_for_each_block(), rdma_umem_for_each_dma_block()): the iterator
 * stands at a bus address, and each step moves it to the next block
 * boundary, skipping the entries (or the rest of an entry) that end before
 * it.  A driver programs one translation entry per step, so the block
 * size must be one that ib_umem_find_best_pgsz() (or the caller's own
 * alignment) allows: the entries' DMA boundaries inside the walk must be
 * block boundaries.
 */
#include <linux/module.h>
#include "core_priv.h"

void __rdma_block_iter_start(struct ib_block_iter *biter, struct scatterlist *sglist,
			     unsigned int nents, unsigned long pgsz)
{
	memset(biter, 0, sizeof(*biter));
	biter->__sg = sglist;
	biter->__sg_nents = nents;
	biter->__pg_bit = __fls(pgsz);
}
EXPORT_SYMBOL(__rdma_block_iter_start);

bool __rdma_block_iter_next(struct ib_block_iter *biter)
{
	u64 block = BIT_ULL(biter->__pg_bit);
	u64 to_boundary;

	if (!biter->__sg || !biter->__sg_nents)
		return false;

	/* the block we stand in; rdma_block_iter_dma_address() aligns it down */
	biter->__dma_addr = sg_dma_address(biter->__sg) + biter->__sg_advance;
	to_boundary = block - (biter->__dma_addr & (block - 1));

	/* leave every entry whose remaining bytes end inside this block */
	while (biter->__sg && biter->__sg_nents) {
		u64 rest = sg_dma_len(biter->__sg) - biter->__sg_advance;

		if (rest > to_boundary)
			break;
		to_boundary -= rest;
		biter->__sg_advance = 0;
		biter->__sg = sg_next(biter->__sg);
		biter->__sg_nents--;
	}
	biter->__sg_advance += to_boundary;
	return true;
}
EXPORT_SYMBOL(__rdma_block_iter_next);

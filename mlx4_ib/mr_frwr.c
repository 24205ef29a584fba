// SPDX-License-Identifier: GPL-2.0
/*
 * Fast registration: MRs from ib_alloc_mr(), which mlx4_core gives to the
 * card in the free state with an MTT range of their own; map_mr_sg fills
 * their page list, and the card copies it into that range when it
 * executes an IB_WR_REG_MR (the FMR segment below names the list, the new
 * key, the range and the rights).  LOCAL_INV (its segment below) or a
 * SEND with Invalidate puts the MR back in the free state.
 */
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "mlx4_ib.h"

/* The card reads the page list in 64-byte units. */
#define MLX4_IB_PAGE_LIST_ALIGN	64

static struct device *mlx4_ib_dma_dev(struct mlx4_ib_dev *dev)
{
	return &dev->dev->pdev->dev;
}

/* [sleep] One zeroed page holds the largest list, so it never crosses a page. */
static int mlx4_ib_alloc_page_list(struct mlx4_ib_dev *dev, struct mlx4_ib_mr *mr,
				   u32 max_pages)
{
	BUILD_BUG_ON(MLX4_MAX_FAST_REG_PAGES * sizeof(__be64) > PAGE_SIZE);

	mr->page_map_size = ALIGN(max_pages * sizeof(*mr->pages), MLX4_IB_PAGE_LIST_ALIGN);
	mr->pages = (__be64 *)get_zeroed_page(GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;
	mr->page_map = dma_map_single(mlx4_ib_dma_dev(dev), mr->pages, mr->page_map_size,
				      DMA_TO_DEVICE);
	if (dma_mapping_error(mlx4_ib_dma_dev(dev), mr->page_map)) {
		free_page((unsigned long)mr->pages);
		mr->pages = NULL;
		return -ENOMEM;
	}
	mr->max_pages = max_pages;
	mr->npages = 0;
	return 0;
}

/* [sleep] Once the card no longer owns the MR. */
void mlx4_ib_free_page_list(struct mlx4_ib_dev *dev, struct mlx4_ib_mr *mr)
{
	if (!mr->pages)
		return;
	dma_unmap_single(mlx4_ib_dma_dev(dev), mr->page_map, mr->page_map_size,
			 DMA_TO_DEVICE);
	free_page((unsigned long)mr->pages);
	mr->pages = NULL;
}

struct ib_mr *mlx4_ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type, u32 max_num_sg)
{
	struct mlx4_ib_dev *dev = to_mdev(pd->device);
	struct mlx4_ib_mr *mr;
	int err;

	if (mr_type != IB_MR_TYPE_MEM_REG || !max_num_sg ||
	    max_num_sg > MLX4_MAX_FAST_REG_PAGES) {
		mlx4_ib_warn_rl(dev, "alloc_mr: type %d with %u pages refused (MEM_REG, 1 to %d)\n",
				mr_type, max_num_sg, MLX4_MAX_FAST_REG_PAGES);
		return ERR_PTR(-EINVAL);
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	/* page shift 0: mlx4_core's fast-registration MR */
	err = mlx4_mr_alloc(dev->dev, to_mpd(pd)->pdn, 0, 0, 0, max_num_sg, 0, &mr->mmr);
	if (err)
		goto err_free;
	err = mlx4_ib_alloc_page_list(dev, mr, max_num_sg);
	if (err)
		goto err_mr;
	err = mlx4_mr_enable(dev->dev, &mr->mmr);
	if (err)
		goto err_pages;
	mr->ibmr.lkey = mr->mmr.key;
	mr->ibmr.rkey = mr->mmr.key;
	return &mr->ibmr;

err_pages:
	mlx4_ib_free_page_list(dev, mr);
err_mr:
	/* never enabled: nothing for the card to give back, cannot fail */
	mlx4_mr_free(dev->dev, &mr->mmr);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/* [any] ib_sg_to_pages()'s callback: one page, or -ENOMEM when the list is full. */
static int mlx4_ib_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct mlx4_ib_mr *mr = to_mmr(ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = cpu_to_be64(addr | MLX4_MTT_FLAG_PRESENT);
	return 0;
}

/* [any] */
int mlx4_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		      unsigned int *sg_offset)
{
	struct mlx4_ib_dev *dev = to_mdev(ibmr->device);
	struct mlx4_ib_mr *mr = to_mmr(ibmr);
	int n;

	if (!mr->pages || !(ibmr->page_size & dev->dev->caps.page_size_cap)) {
		mlx4_ib_warn_rl(dev, "map_mr_sg: MR 0x%x: %s\n", ibmr->lkey,
				mr->pages ? "page size not supported" :
					    "not a fast-registration MR");
		return -EINVAL;
	}
	mr->npages = 0;
	dma_sync_single_for_cpu(mlx4_ib_dma_dev(dev), mr->page_map, mr->page_map_size,
				DMA_TO_DEVICE);
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, mlx4_ib_set_page);
	dma_sync_single_for_device(mlx4_ib_dma_dev(dev), mr->page_map, mr->page_map_size,
				   DMA_TO_DEVICE);
	return n;
}

static __be32 mlx4_ib_fmr_rights(int access)
{
	u32 f = MLX4_HW_FMR_LOCAL_READ;

	if (access & IB_ACCESS_LOCAL_WRITE)
		f |= MLX4_HW_FMR_LOCAL_WRITE;
	if (access & IB_ACCESS_REMOTE_READ)
		f |= MLX4_HW_FMR_REMOTE_READ;
	if (access & IB_ACCESS_REMOTE_WRITE)
		f |= MLX4_HW_FMR_REMOTE_WRITE;
	if (access & IB_ACCESS_REMOTE_ATOMIC)
		f |= MLX4_HW_FMR_ATOMIC;
	return cpu_to_be32(f);
}

/*
 * [any] The FMR segment of an IB_WR_REG_MR: the MR's page list as the last
 * map_mr_sg left it, its iova, length and page size, and the new key,
 * which must name the same MR (only the low byte is the consumer's).
 */
int mlx4_ib_set_reg_seg(struct mlx4_ib_qp *qp, const struct ib_reg_wr *wr,
			struct mlx4_hw_fmr_seg *seg)
{
	struct mlx4_ib_mr *mr;

	if (!wr->mr || wr->mr->device != qp->ibqp.device)
		return -EINVAL;
	mr = to_mmr(wr->mr);
	if (!mr->pages || !mr->ibmr.page_size || ((wr->key ^ mr->mmr.key) & ~0xffU))
		return -EINVAL;
	seg->flags = mlx4_ib_fmr_rights(wr->access);
	seg->mem_key = cpu_to_be32(wr->key);
	seg->buf_list = cpu_to_be64(mr->page_map);
	seg->start_addr = cpu_to_be64(mr->ibmr.iova);
	seg->reg_len = cpu_to_be64(mr->ibmr.length);
	seg->offset = 0;
	seg->page_size = cpu_to_be32(ilog2(mr->ibmr.page_size));
	seg->reserved[0] = 0;
	seg->reserved[1] = 0;
	return 0;
}

/* [any] The segment of an IB_WR_LOCAL_INV: the key, the rest zero. */
void mlx4_ib_set_local_inv_seg(struct mlx4_hw_local_inval_seg *seg, u32 key)
{
	memset(seg, 0, sizeof(*seg));
	seg->mem_key = cpu_to_be32(key);
}

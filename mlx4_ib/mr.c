// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions: the physical DMA MR (an MPT without translation) and
 * kernel MRs over a list of pages (an MPT with MTT entries); their
 * deregistration, also of fast-registration MRs (mr_frwr.c) and of user
 * MRs (umr.c), whose pages are unpinned once the card let go of them.
 */
#include <linux/slab.h>

#include "mlx4_ib.h"

/* [any] the MPT rights of IB_ACCESS_* (local read always) */
u32 mlx4_ib_access(int access)
{
	u32 perm = MLX4_PERM_LOCAL_READ;

	if (access & IB_ACCESS_LOCAL_WRITE)
		perm |= MLX4_PERM_LOCAL_WRITE;
	if (access & IB_ACCESS_REMOTE_WRITE)
		perm |= MLX4_PERM_REMOTE_WRITE;
	if (access & IB_ACCESS_REMOTE_READ)
		perm |= MLX4_PERM_REMOTE_READ;
	if (access & IB_ACCESS_REMOTE_ATOMIC)
		perm |= MLX4_PERM_ATOMIC;
	if (access & IB_ACCESS_MW_BIND)
		perm |= MLX4_PERM_BIND_MW;
	return perm;
}

static struct ib_mr *mlx4_ib_mr_finish(struct mlx4_ib_dev *dev, struct mlx4_ib_mr *mr)
{
	int err;

	err = mlx4_mr_enable(dev->dev, &mr->mmr);
	if (err) {
		mlx4_mr_free(dev->dev, &mr->mmr);
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->ibmr.lkey = mr->mmr.key;
	mr->ibmr.rkey = mr->mmr.key;
	mr->ibmr.iova = mr->mmr.iova;
	mr->ibmr.length = mr->mmr.size;
	return &mr->ibmr;
}

struct ib_mr *mlx4_ib_get_dma_mr(struct ib_pd *pd, int access)
{
	struct mlx4_ib_dev *dev = to_mdev(pd->device);
	struct mlx4_ib_mr *mr;
	int err;

	if (access & ~IB_ACCESS_SUPPORTED)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = mlx4_mr_alloc(dev->dev, to_mpd(pd)->pdn, 0, ~0ull,
			    mlx4_ib_access(access), 0, PAGE_SHIFT, &mr->mmr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return mlx4_ib_mr_finish(dev, mr);
}

struct ib_mr *mlx4_ib_reg_kernel_mr(struct ib_pd *pd, const u64 *pages, int npages,
				    int page_shift, u64 iova, u64 length, int access)
{
	struct mlx4_ib_dev *dev = to_mdev(pd->device);
	struct mlx4_ib_mr *mr;
	int err;

	if (access & ~IB_ACCESS_SUPPORTED || npages <= 0 || !pages ||
	    page_shift < 12 || page_shift > 40 || !length) {
		mlx4_ib_warn_rl(dev, "reg_kernel_mr: bad arguments (%d pages, shift %d)\n",
				npages, page_shift);
		return ERR_PTR(-EINVAL);
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = mlx4_mr_alloc(dev->dev, to_mpd(pd)->pdn, iova, length,
			    mlx4_ib_access(access), npages, page_shift, &mr->mmr);
	if (err)
		goto err_free;
	err = mlx4_write_mtt(dev->dev, &mr->mmr.mtt, 0, npages, pages);
	if (err)
		goto err_mr;
	return mlx4_ib_mr_finish(dev, mr);

err_mr:
	mlx4_mr_free(dev->dev, &mr->mmr);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/* An error leaves the MR registered: the card may still use it. */
int mlx4_ib_dereg_mr(struct ib_mr *ibmr)
{
	struct mlx4_ib_mr *mr = to_mmr(ibmr);
	int err;

	err = mlx4_mr_free(to_mdev(ibmr->device)->dev, &mr->mmr);
	if (err)
		return err;
	mlx4_ib_free_page_list(to_mdev(ibmr->device), mr);
	ib_umem_release(mr->umem);
	kfree(mr);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains, MTT ranges and memory regions (MPT entries).
 * MTT entries are written by the CPU straight into the MTT table's ICM
 * (the card takes WRITE_MTT only from virtual functions).
 */
#include <linux/log2.h>
#include <linux/module.h>

#include "mlx4_core.h"

#define MLX4_MTTS_PER_PAGE	(MLX4_ICM_PAGE_SIZE / sizeof(__be64))

#define MLX4_PERM_MASK		(MLX4_PERM_LOCAL_READ | MLX4_PERM_LOCAL_WRITE | \
				 MLX4_PERM_REMOTE_READ | MLX4_PERM_REMOTE_WRITE | \
				 MLX4_PERM_ATOMIC | MLX4_PERM_BIND_MW)

int mlx4_pd_alloc(struct mlx4_dev *dev, u32 *pdn)
{
	return mlx4_bitmap_alloc(&mlx4_priv(dev)->pd_bitmap, 1, 1, pdn);
}
EXPORT_SYMBOL(mlx4_pd_alloc);

void mlx4_pd_free(struct mlx4_dev *dev, u32 pdn)
{
	mlx4_bitmap_free(&mlx4_priv(dev)->pd_bitmap, pdn, 1);
}
EXPORT_SYMBOL(mlx4_pd_free);

int mlx4_xrcd_alloc(struct mlx4_dev *dev, u32 *xrcdn)
{
	if (!(dev->caps.flags & MLX4_DEV_CAP_FLAG_XRC))
		return -EOPNOTSUPP;
	return mlx4_bitmap_alloc(&mlx4_priv(dev)->xrcd_bitmap, 1, 1, xrcdn);
}
EXPORT_SYMBOL(mlx4_xrcd_alloc);

void mlx4_xrcd_free(struct mlx4_dev *dev, u32 xrcdn)
{
	mlx4_bitmap_free(&mlx4_priv(dev)->xrcd_bitmap, xrcdn, 1);
}
EXPORT_SYMBOL(mlx4_xrcd_free);

/* ---------------------------------------------------------------------- */
/* MTT ranges */

int mlx4_mtt_init(struct mlx4_dev *dev, int npages, int page_shift, struct mlx4_mtt *mtt)
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	u32 first, cnt;
	int err;

	if (!npages) {
		/* no translation: a physical region or an empty range */
		mtt->order = -1;
		mtt->offset = ~0U;
		mtt->page_shift = MLX4_ICM_PAGE_SHIFT;
		return 0;
	}
	/* page shift 0: fast registration, the card writes the entries */
	if (npages < 0 || (page_shift && page_shift < MLX4_ICM_PAGE_SHIFT) ||
	    page_shift > 40) {
		dev_err_ratelimited(&dev->pdev->dev, "MTT of %d pages of 2^%d refused\n",
				    npages, page_shift);
		return -EINVAL;
	}
	mtt->page_shift = page_shift;
	mtt->order = order_base_2(npages);
	cnt = 1U << mtt->order;
	/* naturally aligned (up to 64 entries), as the buddy allocator would */
	err = mlx4_bitmap_alloc(&priv->mtt_bitmap, cnt, min_t(u32, cnt, 64), &first);
	if (err)
		return err;
	err = mlx4_table_get_range(priv, &priv->mtt_table, first, first + cnt - 1);
	if (err) {
		mlx4_bitmap_free(&priv->mtt_bitmap, first, cnt);
		return err;
	}
	mtt->offset = first;
	return 0;
}
EXPORT_SYMBOL(mlx4_mtt_init);

void mlx4_mtt_cleanup(struct mlx4_dev *dev, struct mlx4_mtt *mtt)
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	u32 cnt;

	if (mtt->order < 0)
		return;
	cnt = 1U << mtt->order;
	mlx4_table_put_range(priv, &priv->mtt_table, mtt->offset,
			     mtt->offset + cnt - 1);
	mlx4_bitmap_free(&priv->mtt_bitmap, mtt->offset, cnt);
	mtt->order = -1;
}
EXPORT_SYMBOL(mlx4_mtt_cleanup);

u64 mlx4_mtt_addr(struct mlx4_dev *dev, struct mlx4_mtt *mtt)
{
	return (u64)mtt->offset * mlx4_priv(dev)->dev_cap.mtt_entry_sz;
}
EXPORT_SYMBOL(mlx4_mtt_addr);

int mlx4_write_mtt(struct mlx4_dev *dev, struct mlx4_mtt *mtt, int start_index,
		   int npages, const u64 *page_list)
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	int i = 0;

	/* a fast-registration MTT (page shift 0) is the card's to write */
	if (mtt->order < 0 || !mtt->page_shift || start_index < 0 || npages < 0 ||
	    start_index + npages > (1 << mtt->order)) {
		dev_err_ratelimited(&dev->pdev->dev,
				    "MTT write %d+%d outside its range (order %d)\n",
				    start_index, npages, mtt->order);
		return -EINVAL;
	}
	/* ICM is contiguous in the kernel's view only within a 4 KiB page */
	while (i < npages) {
		u32 idx = mtt->offset + start_index + i;
		u32 n = min_t(u32, npages - i, MLX4_MTTS_PER_PAGE - idx % MLX4_MTTS_PER_PAGE);
		__be64 *ent = mlx4_table_find(&priv->mtt_table, idx);
		u32 k;

		if (!ent)
			return -ENOENT;
		for (k = 0; k < n; k++)
			ent[k] = cpu_to_be64(page_list[i + k] | MLX4_MTT_FLAG_PRESENT);
		i += n;
	}
	/* the entries must be visible before any context that uses them */
	wmb();
	return 0;
}
EXPORT_SYMBOL(mlx4_write_mtt);

int mlx4_buf_write_mtt(struct mlx4_dev *dev, struct mlx4_mtt *mtt, struct mlx4_buf *buf)
{
	u64 *page_list;
	int i, err;

	page_list = kcalloc(buf->npages, sizeof(*page_list), GFP_KERNEL);
	if (!page_list)
		return -ENOMEM;
	for (i = 0; i < buf->npages; i++)
		page_list[i] = buf->page_list ? buf->page_list[i].map :
			       buf->direct.map + ((u64)i << buf->page_shift);
	err = mlx4_write_mtt(dev, mtt, 0, buf->npages, page_list);
	kfree(page_list);
	return err;
}
EXPORT_SYMBOL(mlx4_buf_write_mtt);

/* ---------------------------------------------------------------------- */
/* Memory regions */

int mlx4_mr_alloc(struct mlx4_dev *dev, u32 pd, u64 iova, u64 size, u32 access,
		  int npages, int page_shift, struct mlx4_mr *mr)
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	u32 index;
	int err;

	if (access & ~MLX4_PERM_MASK)
		return -EINVAL;
	err = mlx4_bitmap_alloc(&priv->mpt_bitmap, 1, 1, &index);
	if (err)
		return err;
	err = mlx4_table_get(priv, &priv->dmpt_table, index);
	if (err)
		goto err_index;
	err = mlx4_mtt_init(dev, npages, page_shift, &mr->mtt);
	if (err)
		goto err_table;

	mr->iova = iova;
	mr->size = size;
	mr->pd = pd;
	mr->access = access;
	mr->key = mlx4_index_to_key(index);
	mr->enabled = false;
	return 0;

err_table:
	mlx4_table_put(priv, &priv->dmpt_table, index);
err_index:
	mlx4_bitmap_free(&priv->mpt_bitmap, index, 1);
	return err;
}
EXPORT_SYMBOL(mlx4_mr_alloc);

int mlx4_mr_enable(struct mlx4_dev *dev, struct mlx4_mr *mr)
{
	struct mlx4_cmd_mailbox *mailbox;
	void *mpt;
	u32 flags, pd_flags;
	bool fast_reg;
	int err;

	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	mpt = mailbox->buf;

	flags = MPT_FLAG_MIO | MPT_FLAG_REGION | mr->access;
	pd_flags = mr->pd | MPT_PD_FLAG_EN_INV;
	/*
	 * A fast-registration MR goes to the card in the free state: no
	 * access until a FAST_REG work request gives it a range, pages and
	 * rights (and a key); it may be invalidated locally and remotely.
	 */
	fast_reg = mr->mtt.order >= 0 && !mr->mtt.page_shift;
	if (fast_reg) {
		flags |= MPT_FLAG_FREE;
		pd_flags |= MPT_PD_FLAG_FAST_REG | MPT_PD_FLAG_RAE;
	} else {
		flags |= MPT_FLAG_SW_OWNS;
	}
	if (mr->mtt.order < 0)
		flags |= MPT_FLAG_PHYSICAL;
	*(__be32 *)(mpt + MPT_FLAGS) = cpu_to_be32(flags);
	*(__be32 *)(mpt + MPT_KEY) = cpu_to_be32(mlx4_key_to_hw(mr->key));
	*(__be32 *)(mpt + MPT_PD_FLAGS) = cpu_to_be32(pd_flags);
	*(__be64 *)(mpt + MPT_START) = cpu_to_be64(mr->iova);
	*(__be64 *)(mpt + MPT_LENGTH) = cpu_to_be64(mr->size);
	*(__be32 *)(mpt + MPT_ENTITY_SIZE) = cpu_to_be32(mr->mtt.page_shift);
	if (mr->mtt.order >= 0) {
		/* 8-byte aligned, only 4-byte aligned in the entry */
		*(__be32 *)(mpt + MPT_MTT_ADDR) =
			cpu_to_be32(upper_32_bits(mlx4_mtt_addr(dev, &mr->mtt)));
		*(__be32 *)(mpt + MPT_MTT_ADDR + 4) =
			cpu_to_be32(lower_32_bits(mlx4_mtt_addr(dev, &mr->mtt)));
		*(__be32 *)(mpt + MPT_MTT_SZ) = cpu_to_be32(1U << mr->mtt.order);
	}

	err = mlx4_cmd(dev, mailbox->dma, mlx4_key_to_index(dev, mr->key), 0,
		       MLX4_CMD_SW2HW_MPT, MLX4_CMD_TIME_B);
	if (!err)
		mr->enabled = true;
	mlx4_free_cmd_mailbox(dev, mailbox);
	return err;
}
EXPORT_SYMBOL(mlx4_mr_enable);

int mlx4_mr_disable(struct mlx4_dev *dev, struct mlx4_mr *mr)
{
	u32 index = mlx4_key_to_index(dev, mr->key);
	int err;

	if (!mr->enabled)
		return 0;
	/* op_mod 1: no mailbox for the old entry */
	err = mlx4_cmd(dev, 0, index, 1, MLX4_CMD_HW2SW_MPT, MLX4_CMD_TIME_B);
	if (err) {
		dev_warn_ratelimited(&dev->pdev->dev,
				     "HW2SW_MPT 0x%x failed (%d): the MR stays with the card\n",
				     index, err);
		return err;
	}
	mr->enabled = false;
	return 0;
}
EXPORT_SYMBOL(mlx4_mr_disable);

/*
 * A failed HW2SW_MPT leaves the entry with the card (windows bound to the
 * region, or firmware that did not answer): the card may still access
 * the region's pages, so nothing is freed and the error is returned, as
 * upstream does; the MR stays as it was (the caller may try again, or it
 * leaks).  With the card in internal error it is reset before anything is
 * used again, and the MR goes.
 */
int mlx4_mr_free(struct mlx4_dev *dev, struct mlx4_mr *mr)
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	u32 index = mlx4_key_to_index(dev, mr->key);
	int err;

	if (mr->enabled) {
		/* op_mod 1: no mailbox for the old entry */
		err = mlx4_cmd(dev, 0, index, 1, MLX4_CMD_HW2SW_MPT,
			       MLX4_CMD_TIME_B);
		if (err && !mlx4_is_internal_error(dev)) {
			dev_warn_ratelimited(&dev->pdev->dev,
					     "HW2SW_MPT 0x%x failed (%d): the card may still own the MPT, the MR is kept\n",
					     index, err);
			return err;
		}
		mr->enabled = false;
	}
	mlx4_mtt_cleanup(dev, &mr->mtt);
	mlx4_table_put(priv, &priv->dmpt_table, index);
	mlx4_bitmap_free(&priv->mpt_bitmap, index, 1);
	return 0;
}
EXPORT_SYMBOL(mlx4_mr_free);

/* ---------------------------------------------------------------------- */

int mlx4_init_mr_table(struct mlx4_priv *priv)
{
	struct mlx4_dev *dev = &priv->dev;
	int err;

	/* num_pds, reserved_pds and reserved_mrws: mlx4_fill_caps() */
	err = mlx4_bitmap_init(&priv->pd_bitmap, dev->caps.num_pds,
			       max(dev->caps.reserved_pds, 1));
	if (err)
		return err;
	/*
	 * 16-bit domain numbers (the SRQ context's field), as upstream: the
	 * reserved ones and 0 are never handed out
	 */
	err = mlx4_bitmap_init(&priv->xrcd_bitmap, 1 << 16, dev->caps.reserved_xrcds + 1);
	if (err)
		goto err_pd;
	err = mlx4_bitmap_init(&priv->mpt_bitmap, dev->caps.num_mpts,
			       dev->caps.reserved_mrws);
	if (err)
		goto err_xrcd;
	err = mlx4_bitmap_init(&priv->mtt_bitmap, dev->caps.num_mtts,
			       priv->dev_cap.reserved_mtts);
	if (err)
		goto err_mpt;
	priv->mpt_bitmap.lowest = true;
	priv->mtt_bitmap.lowest = true;
	return 0;

err_mpt:
	mlx4_bitmap_cleanup(&priv->mpt_bitmap);
err_xrcd:
	mlx4_bitmap_cleanup(&priv->xrcd_bitmap);
err_pd:
	mlx4_bitmap_cleanup(&priv->pd_bitmap);
	return err;
}

void mlx4_cleanup_mr_table(struct mlx4_priv *priv)
{
	mlx4_bitmap_cleanup(&priv->mtt_bitmap);
	mlx4_bitmap_cleanup(&priv->mpt_bitmap);
	mlx4_bitmap_cleanup(&priv->xrcd_bitmap);
	mlx4_bitmap_cleanup(&priv->pd_bitmap);
}

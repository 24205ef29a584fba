// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows: MPT entries without the region flag, taken from the
 * same key space as regions.  The entry a window starts with has no range
 * and no rights; BIND_MW work requests (mlx4_ib) give it those.  Type 1
 * is valid at once; type 2 starts free, marked as bound to a QP (the QP
 * that binds it), and may be invalidated locally and remotely.
 */
#include <linux/module.h>

#include "mlx4_core.h"

int mlx4_mw_alloc(struct mlx4_dev *dev, u32 pd, enum mlx4_mw_type type, struct mlx4_mw *mw)
{
	u32 index;
	int err;

	if (type == MLX4_MW_TYPE_1 ? !(dev->caps.flags & MLX4_DEV_CAP_FLAG_MEM_WINDOW) :
	    type != MLX4_MW_TYPE_2 || !(dev->caps.bmme_flags & MLX4_BMME_FLAG_TYPE_2_WIN))
		return -EOPNOTSUPP;
	err = mlx4_bitmap_alloc(&mlx4_priv(dev)->mpt_bitmap, 1, 1, &index);
	if (err)
		return err;
	mw->key = mlx4_index_to_key(index);
	mw->pd = pd;
	mw->type = type;
	mw->enabled = false;
	return 0;
}
EXPORT_SYMBOL(mlx4_mw_alloc);

int mlx4_mw_enable(struct mlx4_dev *dev, struct mlx4_mw *mw)
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	u32 index = mlx4_key_to_index(dev, mw->key);
	struct mlx4_cmd_mailbox *mailbox;
	u32 flags = 0, qpn = 0, pd_flags = mw->pd;
	void *mpt;
	int err;

	err = mlx4_table_get(priv, &priv->dmpt_table, index);
	if (err)
		return err;
	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox)) {
		err = PTR_ERR(mailbox);
		goto err_table;
	}
	mpt = mailbox->buf;

	/* no REGION flag: a window; type 2 goes free and may be invalidated */
	if (mw->type == MLX4_MW_TYPE_2) {
		flags |= MPT_FLAG_FREE;
		qpn = MPT_QP_FLAG_BOUND_QP;
		pd_flags |= MPT_PD_FLAG_EN_INV;
	}
	*(__be32 *)(mpt + MPT_FLAGS) = cpu_to_be32(flags);
	*(__be32 *)(mpt + MPT_QPN) = cpu_to_be32(qpn);
	*(__be32 *)(mpt + MPT_KEY) = cpu_to_be32(mlx4_key_to_hw(mw->key));
	*(__be32 *)(mpt + MPT_PD_FLAGS) = cpu_to_be32(pd_flags);

	err = mlx4_cmd(dev, mailbox->dma, index, 0, MLX4_CMD_SW2HW_MPT, MLX4_CMD_TIME_B);
	mlx4_free_cmd_mailbox(dev, mailbox);
	if (err) {
		dev_warn_ratelimited(&dev->pdev->dev, "SW2HW_MPT of window 0x%x failed (%d)\n",
				     index, err);
		goto err_table;
	}
	mw->enabled = true;
	return 0;

err_table:
	mlx4_table_put(priv, &priv->dmpt_table, index);
	return err;
}
EXPORT_SYMBOL(mlx4_mw_enable);

/*
 * Upstream frees the window even when HW2SW_MPT fails; we keep it then,
 * as a region (mlx4_mr_free()): the card may still answer its rkey with
 * the memory it is bound to, and the entry must not be reused meanwhile.
 */
int mlx4_mw_free(struct mlx4_dev *dev, struct mlx4_mw *mw)
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	u32 index = mlx4_key_to_index(dev, mw->key);
	int err;

	if (mw->enabled) {
		/* op_mod 1: no mailbox for the old entry */
		err = mlx4_cmd(dev, 0, index, 1, MLX4_CMD_HW2SW_MPT, MLX4_CMD_TIME_B);
		if (err && !mlx4_is_internal_error(dev)) {
			dev_warn_ratelimited(&dev->pdev->dev,
					     "HW2SW_MPT of window 0x%x failed (%d): it is kept\n",
					     index, err);
			return err;
		}
		mw->enabled = false;
		mlx4_table_put(priv, &priv->dmpt_table, index);
	}
	mlx4_bitmap_free(&priv->mpt_bitmap, index, 1);
	return 0;
}
EXPORT_SYMBOL(mlx4_mw_free);

// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues: numbers, contexts (SW2HW_SRQ/HW2SW_SRQ), the limit
 * event (ARM_SRQ, QUERY_SRQ) and the routing of SRQ events.
 */
#include <linux/module.h>

#include "mlx4_core.h"

/* SRQ context (48 bytes used) */
#define SRQC_STATE_LOGSIZE_SRQN	0x00
#define SRQC_LOGSTRIDE		0x04
#define SRQC_XRCD		0x06
#define SRQC_CQN		0x08
#define SRQC_LOG_PAGE_SIZE	0x10
#define SRQC_MTT_ADDR_H		0x13
#define SRQC_MTT_ADDR_L		0x14
#define SRQC_PD			0x18
#define SRQC_LIMIT_WATERMARK	0x1c
#define SRQC_DB_REC		0x28

static void mlx4_srq_put(struct mlx4_srq *srq)
{
	if (refcount_dec_and_test(&srq->refcount))
		complete(&srq->free);
}

void mlx4_srq_event(struct mlx4_priv *priv, u32 srqn, enum mlx4_event type)
{
	struct xarray *xa = &priv->srq_table.xa;
	struct mlx4_srq *srq;
	unsigned long flags;

	xa_lock_irqsave(xa, flags);
	srq = xa_load(xa, srqn);
	if (srq)
		refcount_inc(&srq->refcount);
	xa_unlock_irqrestore(xa, flags);
	if (!srq) {
		/* a late event for an object just destroyed */
		dev_dbg_ratelimited(&priv->dev.pdev->dev,
				    "event 0x%x for unknown SRQ 0x%x\n", type, srqn);
		return;
	}
	if (srq->event)
		srq->event(srq, type);
	mlx4_srq_put(srq);
}

int mlx4_srq_alloc(struct mlx4_dev *dev, u32 pdn, u32 cqn, u16 xrcd,
		   struct mlx4_mtt *mtt, u64 db_rec, struct mlx4_srq *srq)
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	struct mlx4_cmd_mailbox *mailbox;
	void *ctx;
	u64 mtt_addr;
	u32 srqn;
	int err;

	if (srq->max <= 0 || !is_power_of_2(srq->max) ||
	    srq->max > dev->caps.max_srq_wqes || srq->wqe_shift < 4 ||
	    srq->wqe_shift > 11 || mtt->order < 0) {
		dev_err_ratelimited(&dev->pdev->dev,
				    "SRQ of %d WQEs (shift %d) refused\n",
				    srq->max, srq->wqe_shift);
		return -EINVAL;
	}

	err = mlx4_obj_number_get(priv, &priv->srq_table.bitmap, &priv->srqc_table,
				  &priv->cmpt_table[MLX4_CMPT_SRQ], &srqn);
	if (err)
		return err;

	srq->srqn = srqn;
	refcount_set(&srq->refcount, 1);
	init_completion(&srq->free);
	err = xa_insert_irq(&priv->srq_table.xa, srqn, srq, GFP_KERNEL);
	if (err)
		goto err_number;

	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox)) {
		err = PTR_ERR(mailbox);
		goto err_xa;
	}
	ctx = mailbox->buf;
	mtt_addr = mlx4_mtt_addr(dev, mtt);
	*(__be32 *)(ctx + SRQC_STATE_LOGSIZE_SRQN) =
		cpu_to_be32((ilog2(srq->max) << 24) | srqn);
	*(u8 *)(ctx + SRQC_LOGSTRIDE) = srq->wqe_shift - 4;
	*(__be16 *)(ctx + SRQC_XRCD) = cpu_to_be16(xrcd);
	*(__be32 *)(ctx + SRQC_CQN) = cpu_to_be32(cqn & 0xffffff);
	*(u8 *)(ctx + SRQC_LOG_PAGE_SIZE) = mtt->page_shift - MLX4_ICM_PAGE_SHIFT;
	*(u8 *)(ctx + SRQC_MTT_ADDR_H) = upper_32_bits(mtt_addr) & 0xff;
	*(__be32 *)(ctx + SRQC_MTT_ADDR_L) = cpu_to_be32(lower_32_bits(mtt_addr));
	*(__be32 *)(ctx + SRQC_PD) = cpu_to_be32(pdn);
	*(__be64 *)(ctx + SRQC_DB_REC) = cpu_to_be64(db_rec);
	err = mlx4_cmd(dev, mailbox->dma, srqn, 0, MLX4_CMD_SW2HW_SRQ,
		       MLX4_CMD_TIME_A);
	mlx4_free_cmd_mailbox(dev, mailbox);
	if (err)
		goto err_xa;
	return 0;

err_xa:
	xa_erase_irq(&priv->srq_table.xa, srqn);
err_number:
	mlx4_obj_number_put(priv, &priv->srq_table.bitmap, &priv->srqc_table,
			    &priv->cmpt_table[MLX4_CMPT_SRQ], srqn);
	return err;
}
EXPORT_SYMBOL(mlx4_srq_alloc);

void mlx4_srq_free(struct mlx4_dev *dev, struct mlx4_srq *srq)
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	int err;

	/* op_mod 1: no mailbox for the old context */
	err = mlx4_cmd(dev, 0, srq->srqn, 1, MLX4_CMD_HW2SW_SRQ, MLX4_CMD_TIME_A);
	if (err && !mlx4_is_internal_error(dev))
		dev_warn(&dev->pdev->dev, "HW2SW_SRQ 0x%x failed: %d\n",
			 srq->srqn, err);

	xa_erase_irq(&priv->srq_table.xa, srq->srqn);
	mlx4_srq_put(srq);
	wait_for_completion(&srq->free);

	mlx4_obj_number_put(priv, &priv->srq_table.bitmap, &priv->srqc_table,
			    &priv->cmpt_table[MLX4_CMPT_SRQ], srq->srqn);
}
EXPORT_SYMBOL(mlx4_srq_free);

int mlx4_srq_arm(struct mlx4_dev *dev, struct mlx4_srq *srq, int limit_watermark)
{
	if (limit_watermark < 0 || limit_watermark >= srq->max)
		return -EINVAL;
	return mlx4_cmd(dev, limit_watermark, srq->srqn, 0, MLX4_CMD_ARM_SRQ,
			MLX4_CMD_TIME_B);
}
EXPORT_SYMBOL(mlx4_srq_arm);

int mlx4_srq_query(struct mlx4_dev *dev, struct mlx4_srq *srq, int *limit_watermark)
{
	struct mlx4_cmd_mailbox *mailbox;
	int err;

	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	err = mlx4_cmd_box(dev, 0, mailbox->dma, srq->srqn, 0, MLX4_CMD_QUERY_SRQ,
			   MLX4_CMD_TIME_A);
	if (!err)
		*limit_watermark =
			be16_to_cpup((__be16 *)(mailbox->buf + SRQC_LIMIT_WATERMARK));
	mlx4_free_cmd_mailbox(dev, mailbox);
	return err;
}
EXPORT_SYMBOL(mlx4_srq_query);

int mlx4_init_srq_table(struct mlx4_priv *priv)
{
	struct mlx4_caps *caps = &priv->dev.caps;

	caps->reserved_srqs = priv->dev_cap.reserved_srqs;
	return mlx4_bitmap_init(&priv->srq_table.bitmap, caps->num_srqs,
				caps->reserved_srqs);
}

void mlx4_cleanup_srq_table(struct mlx4_priv *priv)
{
	WARN_ON(!xa_empty(&priv->srq_table.xa));
	mlx4_bitmap_cleanup(&priv->srq_table.bitmap);
}

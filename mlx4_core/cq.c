// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues: numbers, contexts (SW2HW_CQ/HW2SW_CQ/MODIFY_CQ) and the
 * routing of completion and CQ-error events to the CQ's handlers.  An event
 * handler holds a reference on the CQ; mlx4_cq_free() unpublishes the CQ and
 * then waits for the last reference, so no handler runs after it returns.
 */
#include <linux/module.h>

#include "mlx4_core.h"

/* CQ context (64 bytes) */
#define CQC_FLAGS		0x00
#define CQC_FLAG_TIMESTAMP	BIT(19)	/* CQEs carry the completion's time */
#define CQC_LOGSIZE_USRPAGE	0x0c
#define CQC_PERIOD		0x10
#define CQC_MAX_COUNT		0x12
#define CQC_COMP_EQN		0x17
#define CQC_LOG_PAGE_SIZE	0x18
#define CQC_MTT_ADDR_H		0x1b
#define CQC_MTT_ADDR_L		0x1c
#define CQC_DB_REC		0x38

static struct mlx4_cq *mlx4_cq_get(struct mlx4_priv *priv, u32 cqn)
{
	struct xarray *xa = &priv->cq_table.xa;
	struct mlx4_cq *cq;
	unsigned long flags;

	xa_lock_irqsave(xa, flags);
	cq = xa_load(xa, cqn);
	if (cq)
		refcount_inc(&cq->refcount);
	xa_unlock_irqrestore(xa, flags);
	return cq;
}

static void mlx4_cq_put(struct mlx4_cq *cq)
{
	if (refcount_dec_and_test(&cq->refcount))
		complete(&cq->free);
}

/* [hard IRQ] a completion EQE; one EQ never runs two of these at once */
void mlx4_cq_completion(struct mlx4_priv *priv, u32 cqn)
{
	struct mlx4_cq *cq = mlx4_cq_get(priv, cqn);

	if (!cq) {
		/* an event queued just before the CQ was destroyed */
		dev_dbg_ratelimited(&priv->dev.pdev->dev,
				    "completion event for unknown CQ 0x%x\n", cqn);
		return;
	}
	if (cq->comp)
		cq->comp(cq);
	mlx4_cq_put(cq);
}

void mlx4_cq_event(struct mlx4_priv *priv, u32 cqn, enum mlx4_event type)
{
	struct mlx4_cq *cq = mlx4_cq_get(priv, cqn);

	if (!cq) {
		/* a late event for an object just destroyed */
		dev_dbg_ratelimited(&priv->dev.pdev->dev,
				    "event 0x%x for unknown CQ 0x%x\n", type, cqn);
		return;
	}
	if (cq->event)
		cq->event(cq, type);
	mlx4_cq_put(cq);
}

static void mlx4_cqc_set_mtt(void *ctx, struct mlx4_dev *dev, struct mlx4_mtt *mtt)
{
	u64 addr = mlx4_mtt_addr(dev, mtt);

	*(u8 *)(ctx + CQC_LOG_PAGE_SIZE) = mtt->page_shift - MLX4_ICM_PAGE_SHIFT;
	*(u8 *)(ctx + CQC_MTT_ADDR_H) = upper_32_bits(addr) & 0xff;
	*(__be32 *)(ctx + CQC_MTT_ADDR_L) = cpu_to_be32(lower_32_bits(addr));
}

int mlx4_cq_alloc(struct mlx4_dev *dev, int nent, struct mlx4_mtt *mtt,
		  struct mlx4_uar *uar, u64 db_rec, struct mlx4_cq *cq, unsigned int vector)
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	struct mlx4_cmd_mailbox *mailbox;
	void *ctx;
	int eqn, err;
	u32 cqn;

	eqn = mlx4_comp_eqn(priv, vector);
	if (nent <= 0 || !is_power_of_2(nent) || nent > dev->caps.max_cqes + 1 ||
	    eqn < 0 || !uar || mtt->order < 0) {
		dev_err_ratelimited(&dev->pdev->dev,
				    "CQ with %d entries on vector %u refused\n",
				    nent, vector);
		return -EINVAL;
	}

	err = mlx4_obj_number_get(priv, &priv->cq_table.bitmap, &priv->cqc_table,
				  &priv->cmpt_table[MLX4_CMPT_CQ], &cqn);
	if (err)
		return err;

	cq->cqn = cqn;
	cq->vector = vector;
	refcount_set(&cq->refcount, 1);
	init_completion(&cq->free);
	err = xa_insert_irq(&priv->cq_table.xa, cqn, cq, GFP_KERNEL);
	if (err)
		goto err_number;

	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox)) {
		err = PTR_ERR(mailbox);
		goto err_xa;
	}
	ctx = mailbox->buf;
	if (cq->timestamp)
		*(__be32 *)(ctx + CQC_FLAGS) = cpu_to_be32(CQC_FLAG_TIMESTAMP);
	*(__be32 *)(ctx + CQC_LOGSIZE_USRPAGE) =
		cpu_to_be32((ilog2(nent) << 24) | uar->index);
	*(u8 *)(ctx + CQC_COMP_EQN) = eqn;
	mlx4_cqc_set_mtt(ctx, dev, mtt);
	*(__be64 *)(ctx + CQC_DB_REC) = cpu_to_be64(db_rec);
	err = mlx4_cmd(dev, mailbox->dma, cqn, 0, MLX4_CMD_SW2HW_CQ,
		       MLX4_CMD_TIME_A);
	mlx4_free_cmd_mailbox(dev, mailbox);
	if (err)
		goto err_xa;
	return 0;

err_xa:
	xa_erase_irq(&priv->cq_table.xa, cqn);
err_number:
	mlx4_obj_number_put(priv, &priv->cq_table.bitmap, &priv->cqc_table,
			    &priv->cmpt_table[MLX4_CMPT_CQ], cqn);
	return err;
}
EXPORT_SYMBOL(mlx4_cq_alloc);

void mlx4_cq_free(struct mlx4_dev *dev, struct mlx4_cq *cq)
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	int err;

	/* op_mod 1: no mailbox for the old context */
	err = mlx4_cmd(dev, 0, cq->cqn, 1, MLX4_CMD_HW2SW_CQ, MLX4_CMD_TIME_A);
	if (err && !mlx4_is_internal_error(dev))
		dev_warn(&dev->pdev->dev, "HW2SW_CQ 0x%x failed: %d\n", cq->cqn, err);

	xa_erase_irq(&priv->cq_table.xa, cq->cqn);
	mlx4_cq_put(cq);
	wait_for_completion(&cq->free);

	mlx4_obj_number_put(priv, &priv->cq_table.bitmap, &priv->cqc_table,
			    &priv->cmpt_table[MLX4_CMPT_CQ], cq->cqn);
}
EXPORT_SYMBOL(mlx4_cq_free);

int mlx4_cq_modify(struct mlx4_dev *dev, struct mlx4_cq *cq, u16 count, u16 period)
{
	struct mlx4_cmd_mailbox *mailbox;
	int err;

	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	*(__be16 *)(mailbox->buf + CQC_PERIOD) = cpu_to_be16(period);
	*(__be16 *)(mailbox->buf + CQC_MAX_COUNT) = cpu_to_be16(count);
	/* op_mod 1: moderation */
	err = mlx4_cmd(dev, mailbox->dma, cq->cqn, 1, MLX4_CMD_MODIFY_CQ,
		       MLX4_CMD_TIME_A);
	mlx4_free_cmd_mailbox(dev, mailbox);
	return err;
}
EXPORT_SYMBOL(mlx4_cq_modify);

int mlx4_cq_resize(struct mlx4_dev *dev, struct mlx4_cq *cq, int nent, struct mlx4_mtt *mtt)
{
	struct mlx4_cmd_mailbox *mailbox;
	int err;

	if (nent <= 0 || !is_power_of_2(nent) || nent > dev->caps.max_cqes + 1 ||
	    mtt->order < 0)
		return -EINVAL;
	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	*(__be32 *)(mailbox->buf + CQC_LOGSIZE_USRPAGE) = cpu_to_be32(ilog2(nent) << 24);
	mlx4_cqc_set_mtt(mailbox->buf, dev, mtt);
	/* op_mod 0: resize */
	err = mlx4_cmd(dev, mailbox->dma, cq->cqn, 0, MLX4_CMD_MODIFY_CQ,
		       MLX4_CMD_TIME_A);
	mlx4_free_cmd_mailbox(dev, mailbox);
	return err;
}
EXPORT_SYMBOL(mlx4_cq_resize);

int mlx4_init_cq_table(struct mlx4_priv *priv)
{
	struct mlx4_caps *caps = &priv->dev.caps;

	caps->reserved_cqs = priv->dev_cap.reserved_cqs;
	caps->max_cqes = priv->dev_cap.max_cq_sz - 1;
	return mlx4_bitmap_init(&priv->cq_table.bitmap, caps->num_cqs,
				caps->reserved_cqs);
}

void mlx4_cleanup_cq_table(struct mlx4_priv *priv)
{
	WARN_ON(!xa_empty(&priv->cq_table.xa));
	mlx4_bitmap_cleanup(&priv->cq_table.bitmap);
}

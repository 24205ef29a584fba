// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: QPN ranges, the ICM behind a QP's contexts, the state
 * transition commands, QUERY_QP, the special QPs (CONF_SPECIAL_QP) and the
 * routing of QP events, with the same reference/completion pattern as CQs.
 */
#include <linux/module.h>

#include "mlx4_core.h"

#define QP_MBOX_OPTPAR		0x00
#define QP_MBOX_CONTEXT		0x08
#define QPC_FLAGS		0x00
#define QPC_LOCAL_QPN		0x10
#define MLX4_QP_SQD_EVENT	BIT(31)
#define MLX4_NUM_SPECIAL_QPS	8	/* QP0/QP1 of both ports, 8-aligned */

static const u16 mlx4_qp_op[MLX4_QP_NUM_STATE][MLX4_QP_NUM_STATE] = {
	[MLX4_QP_STATE_RST] = {
		[MLX4_QP_STATE_INIT]	= MLX4_CMD_RST2INIT_QP,
	},
	[MLX4_QP_STATE_INIT] = {
		[MLX4_QP_STATE_INIT]	= MLX4_CMD_INIT2INIT_QP,
		[MLX4_QP_STATE_RTR]	= MLX4_CMD_INIT2RTR_QP,
	},
	[MLX4_QP_STATE_RTR] = {
		[MLX4_QP_STATE_RTS]	= MLX4_CMD_RTR2RTS_QP,
	},
	[MLX4_QP_STATE_RTS] = {
		[MLX4_QP_STATE_RTS]	= MLX4_CMD_RTS2RTS_QP,
		[MLX4_QP_STATE_SQD]	= MLX4_CMD_RTS2SQD_QP,
	},
	[MLX4_QP_STATE_SQER] = {
		[MLX4_QP_STATE_RTS]	= MLX4_CMD_SQERR2RTS_QP,
	},
	[MLX4_QP_STATE_SQD] = {
		[MLX4_QP_STATE_RTS]	= MLX4_CMD_SQD2RTS_QP,
		[MLX4_QP_STATE_SQD]	= MLX4_CMD_SQD2SQD_QP,
	},
};

int mlx4_qp_reserve_range(struct mlx4_dev *dev, int cnt, int align, int *base)
{
	u32 first;
	int err;

	if (cnt <= 0 || align <= 0 || !is_power_of_2(align))
		return -EINVAL;
	err = mlx4_bitmap_alloc(&mlx4_priv(dev)->qp_table.bitmap, cnt, align, &first);
	if (err)
		return err;
	*base = first;
	return 0;
}
EXPORT_SYMBOL(mlx4_qp_reserve_range);

void mlx4_qp_release_range(struct mlx4_dev *dev, int base_qpn, int cnt)
{
	if (base_qpn < dev->caps.reserved_qps)
		return;
	mlx4_bitmap_free(&mlx4_priv(dev)->qp_table.bitmap, base_qpn, cnt);
}
EXPORT_SYMBOL(mlx4_qp_release_range);

static int mlx4_qp_icm_get(struct mlx4_priv *priv, u32 qpn)
{
	int err;

	err = mlx4_table_get(priv, &priv->qpc_table, qpn);
	if (err)
		return err;
	err = mlx4_table_get(priv, &priv->auxc_table, qpn);
	if (err)
		goto err_qpc;
	err = mlx4_table_get(priv, &priv->altc_table, qpn);
	if (err)
		goto err_auxc;
	err = mlx4_table_get(priv, &priv->rdmarc_table, qpn);
	if (err)
		goto err_altc;
	err = mlx4_table_get(priv, &priv->cmpt_table[MLX4_CMPT_QP], qpn);
	if (err)
		goto err_rdmarc;
	return 0;

err_rdmarc:
	mlx4_table_put(priv, &priv->rdmarc_table, qpn);
err_altc:
	mlx4_table_put(priv, &priv->altc_table, qpn);
err_auxc:
	mlx4_table_put(priv, &priv->auxc_table, qpn);
err_qpc:
	mlx4_table_put(priv, &priv->qpc_table, qpn);
	return err;
}

static void mlx4_qp_icm_put(struct mlx4_priv *priv, u32 qpn)
{
	mlx4_table_put(priv, &priv->cmpt_table[MLX4_CMPT_QP], qpn);
	mlx4_table_put(priv, &priv->rdmarc_table, qpn);
	mlx4_table_put(priv, &priv->altc_table, qpn);
	mlx4_table_put(priv, &priv->auxc_table, qpn);
	mlx4_table_put(priv, &priv->qpc_table, qpn);
}

/*
 * The table index of a QP number: the owner may set bit 23 in qp->qpn after
 * mlx4_qp_alloc() (an XRC target, as upstream's mlx4_ib does), and the
 * card names such a QP with it in commands and events.
 */
static u32 mlx4_qp_index(struct mlx4_dev *dev, u32 qpn)
{
	return qpn & (dev->caps.num_qps - 1);
}

int mlx4_qp_alloc(struct mlx4_dev *dev, int qpn, struct mlx4_qp *qp)
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	int err;

	if (qpn <= 0 || qpn >= dev->caps.num_qps) {
		dev_err_ratelimited(&dev->pdev->dev, "QPN 0x%x out of range\n", qpn);
		return -EINVAL;
	}
	err = mlx4_qp_icm_get(priv, qpn);
	if (err)
		return err;
	qp->qpn = qpn;
	refcount_set(&qp->refcount, 1);
	init_completion(&qp->free);
	err = xa_insert_irq(&priv->qp_table.xa, qpn, qp, GFP_KERNEL);
	if (err) {
		mlx4_qp_icm_put(priv, qpn);
		return err == -EBUSY ? -EEXIST : err;
	}
	return 0;
}
EXPORT_SYMBOL(mlx4_qp_alloc);

static void mlx4_qp_put(struct mlx4_qp *qp)
{
	if (refcount_dec_and_test(&qp->refcount))
		complete(&qp->free);
}

void mlx4_qp_free(struct mlx4_dev *dev, struct mlx4_qp *qp)
{
	struct mlx4_priv *priv = mlx4_priv(dev);

	u32 index = mlx4_qp_index(dev, qp->qpn);

	xa_erase_irq(&priv->qp_table.xa, index);
	mlx4_qp_put(qp);
	wait_for_completion(&qp->free);
	mlx4_qp_icm_put(priv, index);
}
EXPORT_SYMBOL(mlx4_qp_free);

void mlx4_qp_event(struct mlx4_priv *priv, u32 qpn, enum mlx4_event type)
{
	struct xarray *xa = &priv->qp_table.xa;
	struct mlx4_qp *qp;
	unsigned long flags;

	xa_lock_irqsave(xa, flags);
	qp = xa_load(xa, mlx4_qp_index(&priv->dev, qpn));
	if (qp)
		refcount_inc(&qp->refcount);
	xa_unlock_irqrestore(xa, flags);
	if (!qp) {
		/* a late event for an object just destroyed */
		dev_dbg_ratelimited(&priv->dev.pdev->dev,
				    "event 0x%x for unknown QP 0x%x\n", type, qpn);
		return;
	}
	if (qp->event)
		qp->event(qp, type);
	mlx4_qp_put(qp);
}

int mlx4_qp_modify(struct mlx4_dev *dev, struct mlx4_qp *qp, enum mlx4_qp_state cur,
		   enum mlx4_qp_state new, const void *context, u32 optpar, int sqd_event)
{
	struct mlx4_cmd_mailbox *mailbox;
	void *ctx;
	u32 flags, in_mod;
	u16 op;
	int err;

	if (cur >= MLX4_QP_NUM_STATE || new >= MLX4_QP_NUM_STATE)
		return -EINVAL;

	if (new == MLX4_QP_STATE_RST)
		/* op_mod 2: no mailbox, no context back */
		return mlx4_cmd(dev, 0, qp->qpn, 2, MLX4_CMD_2RST_QP,
				MLX4_CMD_TIME_A);

	op = new == MLX4_QP_STATE_ERR ? MLX4_CMD_2ERR_QP : mlx4_qp_op[cur][new];
	if (!op || !context) {
		dev_err_ratelimited(&dev->pdev->dev,
				    "QP 0x%x: no transition from state %d to %d\n",
				    qp->qpn, cur, new);
		return -EINVAL;
	}

	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	*(__be32 *)(mailbox->buf + QP_MBOX_OPTPAR) = cpu_to_be32(optpar);
	ctx = mailbox->buf + QP_MBOX_CONTEXT;
	memcpy(ctx, context, MLX4_QP_CONTEXT_SIZE);
	/* the target state and our QPN are ours to fill in */
	flags = be32_to_cpup(ctx + QPC_FLAGS);
	flags = (flags & ~(0xfU << 28)) | ((u32)new << 28);
	*(__be32 *)(ctx + QPC_FLAGS) = cpu_to_be32(flags);
	*(__be32 *)(ctx + QPC_LOCAL_QPN) = cpu_to_be32(qp->qpn);

	in_mod = qp->qpn;
	if (op == MLX4_CMD_RTS2SQD_QP && sqd_event)
		in_mod |= MLX4_QP_SQD_EVENT;
	err = mlx4_cmd(dev, mailbox->dma, in_mod, 0, op, MLX4_CMD_TIME_C);
	mlx4_free_cmd_mailbox(dev, mailbox);
	return err;
}
EXPORT_SYMBOL(mlx4_qp_modify);

int mlx4_qp_query(struct mlx4_dev *dev, struct mlx4_qp *qp, void *context)
{
	struct mlx4_cmd_mailbox *mailbox;
	int err;

	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	err = mlx4_cmd_box(dev, 0, mailbox->dma, qp->qpn, 0, MLX4_CMD_QUERY_QP,
			   MLX4_CMD_TIME_A);
	if (!err)
		memcpy(context, mailbox->buf + QP_MBOX_CONTEXT, MLX4_QP_CONTEXT_SIZE);
	mlx4_free_cmd_mailbox(dev, mailbox);
	return err;
}
EXPORT_SYMBOL(mlx4_qp_query);

/*
 * QPNs below the firmware's reserved count belong to the card; the special
 * QPs (QP0 and QP1 of each port) follow at the next multiple of 8.
 */
int mlx4_init_qp_table(struct mlx4_priv *priv)
{
	struct mlx4_dev *dev = &priv->dev;
	struct mlx4_caps *caps = &dev->caps;
	int err;

	priv->base_sqpn = ALIGN(priv->dev_cap.reserved_qps, 8);
	caps->sqp_start = priv->base_sqpn;
	caps->reserved_qps = priv->base_sqpn + MLX4_NUM_SPECIAL_QPS;
	err = mlx4_bitmap_init(&priv->qp_table.bitmap, caps->num_qps,
			       caps->reserved_qps);
	if (err)
		return err;

	err = mlx4_cmd(dev, 0, priv->base_sqpn, 0, MLX4_CMD_CONF_SPECIAL_QP,
		       MLX4_CMD_TIME_B);
	if (err) {
		dev_err(&dev->pdev->dev, "CONF_SPECIAL_QP failed: %d\n", err);
		mlx4_bitmap_cleanup(&priv->qp_table.bitmap);
		return err;
	}
	return 0;
}

void mlx4_cleanup_qp_table(struct mlx4_priv *priv)
{
	mlx4_cmd(&priv->dev, 0, 0, 0, MLX4_CMD_CONF_SPECIAL_QP, MLX4_CMD_TIME_B);
	WARN_ON(!xa_empty(&priv->qp_table.xa));
	mlx4_bitmap_cleanup(&priv->qp_table.bitmap);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Catastrophic errors.  The firmware reports an internal error only in its
 * catastrophic-error buffer, which we poll.  On an error: commands fail fast
 * (-EIO), waiting commands are woken, interfaces hear CATASTROPHIC_ERROR;
 * then a work item resets the card, removes the interfaces, tears the
 * device down, loads it again and adds the interfaces back.
 */
#include <linux/module.h>
#include <linux/pci.h>

#include "mlx4_core.h"

static unsigned int catas_poll_ms = 1000;
module_param(catas_poll_ms, uint, 0444);
MODULE_PARM_DESC(catas_poll_ms, "catastrophic-error buffer poll interval in ms (default 1000)");

int mlx4_map_catas(struct mlx4_priv *priv)
{
	struct mlx4_fw *fw = &priv->fw;

	if (fw->catas_bar != 0 || !fw->catas_size ||
	    fw->catas_offset + 4ULL * fw->catas_size > pci_resource_len(priv->dev.pdev, 0)) {
		dev_err(&priv->dev.pdev->dev,
			"catastrophic-error buffer not in BAR0 (BAR %u, 0x%llx)\n",
			fw->catas_bar, fw->catas_offset);
		return -ENODEV;
	}
	priv->catas_buf = priv->bar0 + fw->catas_offset;
	return 0;
}

void mlx4_unmap_catas(struct mlx4_priv *priv)
{
	priv->catas_buf = NULL;
}

static void mlx4_dump_catas(struct mlx4_priv *priv)
{
	u32 i, v[4];
	int k;

	for (i = 0; i < priv->fw.catas_size; i += 4) {
		for (k = 0; k < 4; k++)
			v[k] = i + k < priv->fw.catas_size ?
			       ioread32be(priv->catas_buf + 4 * (i + k)) : 0;
		dev_err(&priv->dev.pdev->dev,
			"catastrophic-error buffer[%02u]: %08x %08x %08x %08x\n",
			i, v[0], v[1], v[2], v[3]);
	}
}

/* [any but hard IRQ] The card is dead: fail commands, tell, then recover. */
void mlx4_enter_error_state(struct mlx4_priv *priv)
{
	if (atomic_xchg(&priv->internal_error, 1))
		return;
	dev_err(&priv->dev.pdev->dev, "internal error detected\n");
	mlx4_dump_catas(priv);
	mlx4_cmd_wake_all(priv);
	mlx4_dispatch_event(priv, MLX4_DEV_EVENT_CATASTROPHIC_ERROR, 0);
	queue_work(mlx4_wq, &priv->restart_work);
}

static void mlx4_catas_poll(struct work_struct *work)
{
	struct mlx4_priv *priv = container_of(to_delayed_work(work),
					      struct mlx4_priv, catas_poll);
	u32 syndrome;

	if (!priv->catas_buf || priv->removing)
		return;
	syndrome = ioread32be(priv->catas_buf);
	if (syndrome || pci_channel_offline(priv->dev.pdev)) {
		mlx4_enter_error_state(priv);
		return;
	}
	queue_delayed_work(mlx4_wq, &priv->catas_poll,
			   msecs_to_jiffies(catas_poll_ms));
}

static void mlx4_restart(struct work_struct *work)
{
	struct mlx4_priv *priv = container_of(work, struct mlx4_priv, restart_work);
	struct device *d = &priv->dev.pdev->dev;
	int err;

	mlx4_intf_lock();
	if (!priv->loaded || priv->removing)
		goto out;
	priv->restarts++;
	dev_warn(d, "recovering from the internal error (restart %u): reset, teardown, reload\n",
		 priv->restarts);

	/* quiet the card first: it must not touch memory we free */
	err = mlx4_reset(priv);
	if (err)
		dev_err(d, "reset failed: %d\n", err);
	mlx4_remove_interfaces(priv);
	mlx4_unload(priv);
	atomic_set(&priv->internal_error, 0);

	err = mlx4_load(priv);
	if (err) {
		dev_err(d, "reload after the internal error failed: %d; device left down\n",
			err);
		goto out;
	}
	mlx4_add_interfaces(priv);
	mlx4_start_catas_poll(priv);
	dev_info(d, "recovered from the internal error\n");
out:
	mlx4_intf_unlock();
}

void mlx4_init_catas(struct mlx4_priv *priv)
{
	INIT_DELAYED_WORK(&priv->catas_poll, mlx4_catas_poll);
	INIT_WORK(&priv->restart_work, mlx4_restart);
}

void mlx4_start_catas_poll(struct mlx4_priv *priv)
{
	queue_delayed_work(mlx4_wq, &priv->catas_poll,
			   msecs_to_jiffies(catas_poll_ms));
}

/* Stops polling and waits for a running recovery. */
void mlx4_stop_catas_poll(struct mlx4_priv *priv)
{
	priv->removing = true;
	cancel_delayed_work_sync(&priv->catas_poll);
	flush_work(&priv->restart_work);
	cancel_delayed_work_sync(&priv->catas_poll);
}

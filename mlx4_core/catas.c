// SPDX-License-Identifier: GPL-2.0
/*
 * Catastrophic errors.  The firmware reports an internal error only in its
 * catastrophic-error buffer, which we poll; a command that never comes back
 * means the same.  Either way the card is first made harmless: commands are
 * refused, and the card is reset so that it writes no more into host memory.
 * Only then are the waiting commands woken and the interfaces told
 * (CATASTROPHIC_ERROR), so that whatever they free is the card's no longer.
 * Last, the card's health work removes the interfaces, tears the device
 * down, loads it again and adds the interfaces back - unless the card is
 * being removed, which a recovery never touches.
 *
 * Locks: restart_mutex (a whole recovery; removal takes it to forbid the
 * next) before the intf mutex before err_mutex (the reset) before the HCR
 * mutex.  Each card has its own workqueue for its poll and its recovery.
 */
#include <linux/module.h>
#include <linux/pci.h>

#include "mlx4_core.h"

#define MLX4_CATAS_POLL_MS	1000

static unsigned int catas_poll_ms = MLX4_CATAS_POLL_MS;
module_param(catas_poll_ms, uint, 0644);
MODULE_PARM_DESC(catas_poll_ms,
		 "catastrophic-error buffer poll interval in ms, read at each poll (default 1000; 0: the buffer is not read, only a command timeout finds an internal error)");

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
	WRITE_ONCE(priv->catas_buf, priv->bar0 + fw->catas_offset);
	return 0;
}

void mlx4_unmap_catas(struct mlx4_priv *priv)
{
	WRITE_ONCE(priv->catas_buf, NULL);
}

static void mlx4_dump_catas(struct mlx4_priv *priv)
{
	void __iomem *buf = READ_ONCE(priv->catas_buf);
	u32 i, v[4];
	int k;

	for (i = 0; buf && i < priv->fw.catas_size; i += 4) {
		for (k = 0; k < 4; k++)
			v[k] = i + k < priv->fw.catas_size ?
			       ioread32be(buf + 4 * (i + k)) : 0;
		dev_err(&priv->dev.pdev->dev,
			"catastrophic-error buffer[%02u]: %08x %08x %08x %08x\n",
			i, v[0], v[1], v[2], v[3]);
	}
}

/*
 * [sleep] The card failed: refuse commands, reset it, wake the commands
 * still waiting, and queue the health work (which tells the interfaces and
 * recovers).  Once per failure; a caller that comes while another one
 * resets returns when the card is quiet.
 */
void mlx4_enter_error_state(struct mlx4_priv *priv)
{
	struct device *d = &priv->dev.pdev->dev;
	int err;

	mutex_lock(&priv->err_mutex);
	if (atomic_read(&priv->err_state) != MLX4_ERR_NONE) {
		mutex_unlock(&priv->err_mutex);
		return;
	}
	atomic_set(&priv->err_state, MLX4_ERR_FAILING);
	dev_err(d, "internal error detected: resetting the card\n");
	mlx4_dump_catas(priv);
	/* no HCR write may overlap the reset */
	mlx4_cmd_fence(priv);
	err = mlx4_reset(priv);
	if (err) {
		/* it must not write into memory we free: no bus mastering */
		pci_clear_master(priv->dev.pdev);
		dev_err(d, "reset after the internal error failed (%d): bus mastering off\n",
			err);
	} else {
		dev_err(d, "card reset after the internal error: it is quiet now\n");
	}
	atomic_set(&priv->err_state, MLX4_ERR_DEAD);
	mutex_unlock(&priv->err_mutex);

	mlx4_cmd_wake_all(priv);
	queue_work(priv->health_wq, &priv->health_work);
}

/* [sleep] Returns once no reset after an error is under way. */
void mlx4_wait_quiet(struct mlx4_priv *priv)
{
	mutex_lock(&priv->err_mutex);
	mutex_unlock(&priv->err_mutex);
}

static void mlx4_catas_poll(struct work_struct *work)
{
	struct mlx4_priv *priv = container_of(to_delayed_work(work),
					      struct mlx4_priv, catas_poll);
	void __iomem *buf = READ_ONCE(priv->catas_buf);

	/* unloaded, or the error is being handled: polling ends here */
	if (!buf || atomic_read(&priv->err_state) != MLX4_ERR_NONE)
		return;
	if (READ_ONCE(catas_poll_ms) &&
	    (ioread32be(buf) || pci_channel_offline(priv->dev.pdev))) {
		mlx4_enter_error_state(priv);
		return;
	}
	mlx4_start_catas_poll(priv);
}

/* Caller holds restart_mutex; the card is DEAD (reset) and loaded. */
static void mlx4_restart(struct mlx4_priv *priv)
{
	struct device *d = &priv->dev.pdev->dev;
	int err;

	lockdep_assert_held(&priv->restart_mutex);
	priv->restarts++;
	dev_warn(d, "recovering from the internal error (restart %u): teardown, reload\n",
		 priv->restarts);
	/* not running: it shares this ordered workqueue */
	cancel_delayed_work(&priv->catas_poll);
	mlx4_unregister_device(priv);
	mlx4_unload(priv);

	mutex_lock(&priv->err_mutex);
	atomic_set(&priv->err_state, MLX4_ERR_NONE);
	mutex_unlock(&priv->err_mutex);

	err = mlx4_load(priv);
	if (err) {
		dev_err(d, "reload after the internal error failed: %d; device left down\n",
			err);
		return;
	}
	mlx4_register_device(priv);
	mlx4_start_catas_poll(priv);
	dev_info(d, "recovered from the internal error\n");
}

static void mlx4_health(struct work_struct *work)
{
	struct mlx4_priv *priv = container_of(work, struct mlx4_priv, health_work);

	/*
	 * The card was reset before this work was queued: the interfaces may
	 * now complete and free what it used.  Also while it is being
	 * removed, so that nobody waits for it during the removal.
	 */
	mlx4_dispatch_event(priv, MLX4_DEV_EVENT_CATASTROPHIC_ERROR, 0);

	mutex_lock(&priv->restart_mutex);
	if (priv->removing)
		dev_info(&priv->dev.pdev->dev,
			 "internal error while the device is removed: no recovery\n");
	else if (priv->loaded && atomic_read(&priv->err_state) == MLX4_ERR_DEAD)
		mlx4_restart(priv);
	mutex_unlock(&priv->restart_mutex);
}

/* At probe: the card's workqueue and locks. */
int mlx4_init_catas(struct mlx4_priv *priv)
{
	struct pci_dev *pdev = priv->dev.pdev;

	mutex_init(&priv->err_mutex);
	mutex_init(&priv->restart_mutex);
	atomic_set(&priv->err_state, MLX4_ERR_NONE);
	INIT_DELAYED_WORK(&priv->catas_poll, mlx4_catas_poll);
	INIT_WORK(&priv->health_work, mlx4_health);
	priv->health_wq = alloc_ordered_workqueue("mlx4_health_%s", 0, pci_name(pdev));
	return priv->health_wq ? 0 : -ENOMEM;
}

/*
 * At removal, after mlx4_forbid_restart() and the teardown: the health
 * work still queued ends (it sees removing), then the workqueue goes.
 */
void mlx4_cleanup_catas(struct mlx4_priv *priv)
{
	destroy_workqueue(priv->health_wq);
	priv->health_wq = NULL;
}

void mlx4_start_catas_poll(struct mlx4_priv *priv)
{
	unsigned int ms = READ_ONCE(catas_poll_ms) ?: MLX4_CATAS_POLL_MS;

	queue_delayed_work(priv->health_wq, &priv->catas_poll,
			   msecs_to_jiffies(max(ms, 10U)));
}

void mlx4_stop_catas_poll(struct mlx4_priv *priv)
{
	cancel_delayed_work_sync(&priv->catas_poll);
}

/*
 * [sleep] The device is being removed: a recovery under way ends first, no
 * other starts.  The poll goes on (an error during the removal still
 * resets the card and tells the interfaces) until mlx4_stop_catas_poll().
 */
void mlx4_forbid_restart(struct mlx4_priv *priv)
{
	mutex_lock(&priv->restart_mutex);
	priv->removing = true;
	mutex_unlock(&priv->restart_mutex);
}

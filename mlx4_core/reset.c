// SPDX-License-Identifier: GPL-2.0
/*
 * Taking the card: the ownership semaphore (reading it acquires it, writing
 * 0 releases it) and the full reset through the reset register.
 */
#include <linux/delay.h>
#include <linux/pci.h>

#include "mlx4_core.h"

#define MLX4_SEM_TIMEOUT_MS	10000
#define MLX4_RESET_WAIT_MS	1000
#define MLX4_RESET_TIMEOUT_MS	2000

int mlx4_get_ownership(struct mlx4_priv *priv)
{
	if (ioread32be(priv->bar0 + MLX4_OWNER_BASE)) {
		dev_err(&priv->dev.pdev->dev,
			"the card is owned by another function\n");
		return -EBUSY;
	}
	return 0;
}

void mlx4_free_ownership(struct mlx4_priv *priv)
{
	iowrite32be(0, priv->bar0 + MLX4_OWNER_BASE);
	/* give the card time to see the release before anything else */
	msleep(20);
}

/*
 * Reset the whole card.  Its configuration space comes back with defaults,
 * so ours is saved before and restored after.
 */
int mlx4_reset(struct mlx4_priv *priv)
{
	struct pci_dev *pdev = priv->dev.pdev;
	void __iomem *reset = priv->bar0 + MLX4_RESET_BASE;
	unsigned long end;
	u16 vendor;
	int err;

	/* the hardware semaphore guards the reset against other agents */
	end = jiffies + msecs_to_jiffies(MLX4_SEM_TIMEOUT_MS);
	while (ioread32be(reset + MLX4_RESET_SEM)) {
		if (time_after(jiffies, end)) {
			dev_err(&pdev->dev, "reset semaphore stays taken\n");
			return -EBUSY;
		}
		msleep(20);
	}

	err = pci_save_state(pdev);
	if (err) {
		dev_err(&pdev->dev, "cannot save PCI state: %d\n", err);
		return err;
	}

	iowrite32be(1, reset + MLX4_RESET_REG);
	msleep(MLX4_RESET_WAIT_MS);

	end = jiffies + msecs_to_jiffies(MLX4_RESET_TIMEOUT_MS);
	for (;;) {
		err = pci_read_config_word(pdev, PCI_VENDOR_ID, &vendor);
		if (!err && vendor != 0xffff)
			break;
		if (time_after(jiffies, end)) {
			dev_err(&pdev->dev, "card did not come back after reset\n");
			return -ENODEV;
		}
		msleep(20);
	}

	pci_restore_state(pdev);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * UARs: the 4 KiB doorbell pages of BAR2.  The first ones belong to the EQ
 * doorbells; the rest are handed out to mlx4_ib (user contexts) and one is
 * mapped for all kernel consumers.
 */
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "mlx4_core.h"

/* UARs kept for EQ doorbells (four EQs per page, up to 128 EQs) */
#define MLX4_RESERVED_UARS	128

int mlx4_uar_alloc(struct mlx4_dev *dev, struct mlx4_uar *uar)
{
	u32 index;
	int err;

	err = mlx4_bitmap_alloc(&mlx4_priv(dev)->uar_table.bitmap, 1, 1, &index);
	if (err)
		return err;
	uar->index = index;
	uar->pfn = (pci_resource_start(dev->pdev, 2) >> PAGE_SHIFT) + index;
	uar->map = NULL;
	return 0;
}
EXPORT_SYMBOL(mlx4_uar_alloc);

void mlx4_uar_free(struct mlx4_dev *dev, struct mlx4_uar *uar)
{
	mlx4_bitmap_free(&mlx4_priv(dev)->uar_table.bitmap, uar->index, 1);
}
EXPORT_SYMBOL(mlx4_uar_free);

struct mlx4_uar *mlx4_kernel_uar(struct mlx4_dev *dev)
{
	return &mlx4_priv(dev)->kuar;
}
EXPORT_SYMBOL(mlx4_kernel_uar);

/*
 * One 64-bit store keeps the two dwords together on 64-bit hosts; the
 * card sees the bytes in memory order (big-endian dwords).
 */
void mlx4_write64(const __be32 val[2], void __iomem *dest, struct mlx4_dev *dev)
{
	u64 v;

	memcpy(&v, val, sizeof(v));
	__raw_writeq(v, dest);
}
EXPORT_SYMBOL(mlx4_write64);

int mlx4_init_uar_table(struct mlx4_priv *priv)
{
	struct mlx4_dev *dev = &priv->dev;
	int reserved = max_t(int, MLX4_RESERVED_UARS, priv->dev_cap.reserved_uars);
	int err;

	dev->caps.num_uars = priv->dev_cap.uar_size / PAGE_SIZE;
	dev->caps.uar_page_size = PAGE_SIZE;
	if (dev->caps.num_uars <= reserved) {
		dev_err(&dev->pdev->dev, "only %d UARs\n", dev->caps.num_uars);
		return -ENODEV;
	}
	err = mlx4_bitmap_init(&priv->uar_table.bitmap, dev->caps.num_uars,
			       reserved);
	if (err)
		return err;

	err = mlx4_uar_alloc(dev, &priv->kuar);
	if (err)
		goto err_bitmap;
	priv->kuar.map = ioremap(priv->kuar.pfn << PAGE_SHIFT, PAGE_SIZE);
	if (!priv->kuar.map) {
		err = -ENOMEM;
		goto err_uar;
	}
	return 0;

err_uar:
	mlx4_uar_free(dev, &priv->kuar);
err_bitmap:
	mlx4_bitmap_cleanup(&priv->uar_table.bitmap);
	return err;
}

void mlx4_cleanup_uar_table(struct mlx4_priv *priv)
{
	iounmap(priv->kuar.map);
	priv->kuar.map = NULL;
	mlx4_uar_free(&priv->dev, &priv->kuar);
	mlx4_bitmap_cleanup(&priv->uar_table.bitmap);
}

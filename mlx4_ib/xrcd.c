// SPDX-License-Identifier: GPL-2.0
/*
 * XRC domains: a number from mlx4_core, and a private PD and CQ that the
 * contexts of the domain's target QPs name (a target QP sends nothing of
 * its own, but the card wants a PD and a send CQ in every QP context).
 */
#include <linux/slab.h>

#include "mlx4_ib.h"

struct ib_xrcd *mlx4_ib_alloc_xrcd(struct ib_device *ibdev, struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(ibdev);
	struct ib_cq_init_attr cq_attr = { .cqe = 1 };
	struct mlx4_ib_xrcd *xrcd;
	int err;

	/* a user domain is the same: its PD and CQ are the kernel's */
	if (!(dev->dev->caps.flags & MLX4_DEV_CAP_FLAG_XRC))
		return ERR_PTR(-EOPNOTSUPP);

	xrcd = kzalloc(sizeof(*xrcd), GFP_KERNEL);
	if (!xrcd)
		return ERR_PTR(-ENOMEM);
	err = mlx4_xrcd_alloc(dev->dev, &xrcd->xrcdn);
	if (err)
		goto err_xrcd;
	xrcd->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(xrcd->pd)) {
		err = PTR_ERR(xrcd->pd);
		goto err_xrcdn;
	}
	xrcd->cq = ib_create_cq(ibdev, NULL, NULL, xrcd, &cq_attr);
	if (IS_ERR(xrcd->cq)) {
		err = PTR_ERR(xrcd->cq);
		goto err_pd;
	}
	return &xrcd->ibxrcd;

err_pd:
	ib_dealloc_pd(xrcd->pd);
err_xrcdn:
	mlx4_xrcd_free(dev->dev, xrcd->xrcdn);
err_xrcd:
	kfree(xrcd);
	return ERR_PTR(err);
}

int mlx4_ib_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct mlx4_ib_xrcd *xrcd = to_mxrcd(ibxrcd);

	ib_destroy_cq(xrcd->cq);
	ib_dealloc_pd(xrcd->pd);
	mlx4_xrcd_free(to_mdev(ibxrcd->device)->dev, xrcd->xrcdn);
	kfree(xrcd);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains: a PD number from mlx4_core; a user PD's number goes
 * back to libmlx4 (struct mlx4_ib_alloc_pd_resp: UD address vectors carry
 * it).
 */
#include <linux/slab.h>

#include "mlx4_ib.h"

struct ib_pd *mlx4_ib_alloc_pd(struct ib_device *ibdev, struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(ibdev);
	struct mlx4_ib_alloc_pd_resp resp = {};
	struct mlx4_ib_pd *pd;
	int err;

	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		return ERR_PTR(-ENOMEM);
	err = mlx4_pd_alloc(dev->dev, &pd->pdn);
	if (err)
		goto err_free;
	if (udata) {
		resp.pdn = pd->pdn;
		err = mlx4_ib_copy_resp(udata, &resp, sizeof(resp));
		if (err)
			goto err_pd;
	}
	return &pd->ibpd;

err_pd:
	mlx4_pd_free(dev->dev, pd->pdn);
err_free:
	kfree(pd);
	return ERR_PTR(err);
}

int mlx4_ib_dealloc_pd(struct ib_pd *ibpd)
{
	struct mlx4_ib_pd *pd = to_mpd(ibpd);

	mlx4_pd_free(to_mdev(ibpd->device)->dev, pd->pdn);
	kfree(pd);
	return 0;
}

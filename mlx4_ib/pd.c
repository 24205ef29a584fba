// SPDX-License-Identifier: GPL-2.0
/* Protection domains: a PD number from mlx4_core. */
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mlx4_ib.h"

struct ib_pd *mlx4_ib_alloc_pd(struct ib_device *ibdev, struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(ibdev);
	struct mlx4_ib_pd *pd;
	int err;

	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		return ERR_PTR(-ENOMEM);
	err = mlx4_pd_alloc(dev->dev, &pd->pdn);
	if (err)
		goto err_free;
	if (udata && udata->outlen >= sizeof(u32)) {
		/* struct mlx4_ib_alloc_pd_resp of the mlx4 ABI: pdn first */
		if (copy_to_user(udata->outbuf, &pd->pdn, sizeof(u32))) {
			err = -EFAULT;
			goto err_pd;
		}
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

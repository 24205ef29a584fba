// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows: alloc_mw/dealloc_mw over mlx4_core's window MPTs, and
 * the bind segment of an IB_WR_BIND_MW work request (<ibstack/ext.h>'s
 * struct ibstack_bind_mw_wr; upstream's kernel post_send has none, its
 * layout is the one libmlx4 writes for ibv_bind_mw and type 2 binds).
 */
#include <ibstack/ext.h>

#include "mlx4_ib.h"

/* [sleep] ib_core allocated ibmw (device, pd, type set) */
int mlx4_ib_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(ibmw->device);
	struct mlx4_ib_mw *mw = to_mmw(ibmw);
	enum mlx4_mw_type type;
	int err;

	/* a user window: the same (its rkey is ib_uverbs' answer) */
	switch (ibmw->type) {
	case IB_MW_TYPE_1:
		type = MLX4_MW_TYPE_1;
		break;
	case IB_MW_TYPE_2:
		type = MLX4_MW_TYPE_2;
		break;
	default:
		return -EINVAL;
	}
	err = mlx4_mw_alloc(dev->dev, to_mpd(ibmw->pd)->pdn, type, &mw->mmw);
	if (err)
		return err;
	err = mlx4_mw_enable(dev->dev, &mw->mmw);
	if (err)
		goto err_free;
	ibmw->rkey = mw->mmw.key;
	return 0;

err_free:
	mlx4_mw_free(dev->dev, &mw->mmw);
	return err;
}

/* [sleep] a window the card still holds (HW2SW_MPT failed) stays */
int mlx4_ib_dealloc_mw(struct ib_mw *ibmw)
{
	return mlx4_mw_free(to_mdev(ibmw->device)->dev, &to_mmw(ibmw)->mmw);
}

#define MLX4_IB_BIND_ACCESS	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC | IB_ZERO_BASED)

/*
 * [any] The bind segment: rights in flags1 (as in the FMR segment), the
 * window's type and zero-basing in flags2, the new rkey (only its low byte
 * may differ from the window's key), the MR's lkey and the range.  A
 * length of 0 (type 1: unbind) needs no MR.  The card checks the rest
 * (the MR's bind right, PDs, the range inside the MR, a type 2 window
 * being free) and fails the WQE with a bind error.
 */
int mlx4_ib_set_bind_seg(struct mlx4_ib_qp *qp, const struct ib_send_wr *wr,
			 struct mlx4_hw_bind_seg *seg)
{
	const struct ibstack_bind_mw_wr *bw = ibstack_bind_mw_wr(wr);
	struct ib_device *ibdev = qp->ibqp.device;
	u32 f1 = 0, f2 = 0;

	if (!bw->mw || bw->mw->device != ibdev || (bw->access & ~MLX4_IB_BIND_ACCESS) ||
	    ((bw->rkey ^ to_mmw(bw->mw)->mmw.key) & ~0xffU) ||
	    (bw->length && !bw->mr) || (bw->mr && bw->mr->device != ibdev))
		return -EINVAL;
	if (bw->access & IB_ACCESS_REMOTE_READ)
		f1 |= MLX4_HW_BIND_REMOTE_READ;
	if (bw->access & IB_ACCESS_REMOTE_WRITE)
		f1 |= MLX4_HW_BIND_REMOTE_WRITE;
	if (bw->access & IB_ACCESS_REMOTE_ATOMIC)
		f1 |= MLX4_HW_BIND_ATOMIC;
	if (bw->mw->type == IB_MW_TYPE_2)
		f2 |= MLX4_HW_BIND_TYPE_2;
	if (bw->access & IB_ZERO_BASED)
		f2 |= MLX4_HW_BIND_ZERO_BASED;
	seg->flags1 = cpu_to_be32(f1);
	seg->flags2 = cpu_to_be32(f2);
	seg->new_rkey = cpu_to_be32(bw->rkey);
	seg->lkey = cpu_to_be32(bw->mr ? bw->mr->lkey : 0);
	seg->addr = cpu_to_be64(bw->addr);
	seg->length = cpu_to_be64(bw->length);
	return 0;
}

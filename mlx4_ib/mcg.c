// SPDX-License-Identifier: GPL-2.0
/* Multicast: a UD QP joins or leaves a group in the card's MCG table. */
#include "mlx4_ib.h"

int mlx4_ib_attach_mcast(struct ib_qp *ibqp, const union ib_gid *gid, u16 lid)
{
	struct mlx4_ib_qp *qp = to_mqp(ibqp);

	if (ibqp->qp_type != IB_QPT_UD) {
		mlx4_ib_warn_rl(qp->dev, "attach_mcast: QP 0x%x is not UD\n", ibqp->qp_num);
		return -EINVAL;
	}
	return mlx4_multicast_attach(qp->dev->dev, &qp->mqp, gid->raw,
				     qp->port ? qp->port : 1,
				     qp->block_mcast_loopback);
}

int mlx4_ib_detach_mcast(struct ib_qp *ibqp, const union ib_gid *gid, u16 lid)
{
	struct mlx4_ib_qp *qp = to_mqp(ibqp);

	return mlx4_multicast_detach(qp->dev->dev, &qp->mqp, gid->raw);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast: a UD QP joins or leaves a group in the card's MCG table.  The
 * QP counts its attachments per group (as ib_core counts them in usecnt):
 * the card holds one membership per group, left when the last attachment
 * is detached, and a QP destroyed with groups left (ib_core refuses that)
 * leaves them all first, so no dead QPN stays in the table.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "mlx4_ib.h"

/* One group the QP is a member of. */
struct mlx4_ib_mcg {
	struct list_head	list;
	u8			gid[16];
	unsigned int		count;		/* attachments */
};

static struct mlx4_ib_mcg *mlx4_ib_find_mcg(struct mlx4_ib_qp *qp, const union ib_gid *gid)
{
	struct mlx4_ib_mcg *m;

	lockdep_assert_held(&qp->mcg_mutex);
	list_for_each_entry(m, &qp->mcg_list, list)
		if (!memcmp(m->gid, gid->raw, sizeof(m->gid)))
			return m;
	return NULL;
}

int mlx4_ib_attach_mcast(struct ib_qp *ibqp, const union ib_gid *gid, u16 lid)
{
	struct mlx4_ib_qp *qp = to_mqp(ibqp);
	struct mlx4_ib_mcg *m;
	int err = 0;

	if (ibqp->qp_type != IB_QPT_UD) {
		mlx4_ib_warn_rl(qp->dev, "attach_mcast: QP 0x%x is not UD\n", ibqp->qp_num);
		return -EINVAL;
	}
	mutex_lock(&qp->mcg_mutex);
	m = mlx4_ib_find_mcg(qp, gid);
	if (m) {
		m->count++;
		goto out;
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		err = -ENOMEM;
		goto out;
	}
	err = mlx4_multicast_attach(qp->dev->dev, &qp->mqp, gid->raw,
				    qp->port ? qp->port : 1, qp->block_mcast_loopback);
	if (err) {
		kfree(m);
		goto out;
	}
	memcpy(m->gid, gid->raw, sizeof(m->gid));
	m->count = 1;
	list_add_tail(&m->list, &qp->mcg_list);
out:
	mutex_unlock(&qp->mcg_mutex);
	return err;
}

int mlx4_ib_detach_mcast(struct ib_qp *ibqp, const union ib_gid *gid, u16 lid)
{
	struct mlx4_ib_qp *qp = to_mqp(ibqp);
	struct mlx4_ib_mcg *m;
	int err = 0;

	mutex_lock(&qp->mcg_mutex);
	m = mlx4_ib_find_mcg(qp, gid);
	if (!m) {
		mlx4_ib_warn_rl(qp->dev, "detach_mcast: QP 0x%x is not attached to %pI6\n",
				ibqp->qp_num, gid->raw);
		err = -EINVAL;
		goto out;
	}
	if (m->count > 1) {
		m->count--;
		goto out;
	}
	err = mlx4_multicast_detach(qp->dev->dev, &qp->mqp, m->gid);
	/* after a catastrophic error the table is gone with the card's state */
	if (err && !mlx4_is_internal_error(qp->dev->dev))
		goto out;
	err = 0;
	list_del(&m->list);
	kfree(m);
out:
	mutex_unlock(&qp->mcg_mutex);
	return err;
}

/* [sleep] destroy_qp: leave every group the QP is still in. */
void mlx4_ib_mcg_leave_all(struct mlx4_ib_qp *qp)
{
	struct mlx4_ib_mcg *m, *tmp;

	mutex_lock(&qp->mcg_mutex);
	list_for_each_entry_safe(m, tmp, &qp->mcg_list, list) {
		mlx4_ib_warn(qp->dev, "QP 0x%x destroyed while attached to %pI6: detached\n",
			     qp->mqp.qpn, m->gid);
		if (mlx4_multicast_detach(qp->dev->dev, &qp->mqp, m->gid) &&
		    !mlx4_is_internal_error(qp->dev->dev))
			mlx4_ib_warn(qp->dev, "QP 0x%x: leaving %pI6 failed\n",
				     qp->mqp.qpn, m->gid);
		list_del(&m->list);
		kfree(m);
	}
	mutex_unlock(&qp->mcg_mutex);
}

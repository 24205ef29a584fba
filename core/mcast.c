// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching UD QPs to multicast groups.  A QP counts its attachments
 * (usecnt), and ib_destroy_qp() refuses a QP that is still attached.
 */
#include <linux/module.h>
#include "core_priv.h"

#define IB_MCAST_LID_FIRST	0xc000
#define IB_LID_PERMISSIVE_HOST	0xffff

static int ib_check_mcast(struct ib_qp *qp, const union ib_gid *gid, u16 lid,
			  const char *verb)
{
	if (IS_ERR_OR_NULL(qp) || !gid) {
		IB_CORE_RATELIMITED("%s: no QP or GID\n", verb);
		return -EINVAL;
	}
	if (qp->qp_type != IB_QPT_UD) {
		IB_CORE_RATELIMITED("%s: %s: QP 0x%x is not UD\n",
				    qp->device->name, verb, qp->qp_num);
		return -EINVAL;
	}
	if (gid->raw[0] != 0xff) {
		IB_CORE_RATELIMITED("%s: %s: %pI6 is not a multicast GID\n",
				    qp->device->name, verb, gid->raw);
		return -EINVAL;
	}
	if (lid < IB_MCAST_LID_FIRST || lid == IB_LID_PERMISSIVE_HOST) {
		IB_CORE_RATELIMITED("%s: %s: LID 0x%x is not a multicast LID\n",
				    qp->device->name, verb, lid);
		return -EINVAL;
	}
	return 0;
}

int ib_attach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid)
{
	int ret = ib_check_mcast(qp, gid, lid, "ib_attach_mcast");

	if (ret)
		return ret;
	if (!qp->device->ops.attach_mcast)
		return -EOPNOTSUPP;
	ret = qp->device->ops.attach_mcast(qp, gid, lid);
	if (!ret)
		atomic_inc(&qp->usecnt);
	return ret;
}
EXPORT_SYMBOL(ib_attach_mcast);

int ib_detach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid)
{
	int ret = ib_check_mcast(qp, gid, lid, "ib_detach_mcast");

	if (ret)
		return ret;
	if (!qp->device->ops.detach_mcast)
		return -EOPNOTSUPP;
	ret = qp->device->ops.detach_mcast(qp, gid, lid);
	if (!ret)
		atomic_dec(&qp->usecnt);
	return ret;
}
EXPORT_SYMBOL(ib_detach_mcast);

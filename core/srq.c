// SPDX-License-Identifier: GPL-2.0
/* Shared receive queues. */
#include <linux/module.h>
#include "core_priv.h"
#include "restrack.h"

struct ib_srq *ib_create_srq_user(struct ib_pd *pd, struct ib_srq_init_attr *attr,
				  struct ib_usrq_object *uobject, struct ib_udata *udata)
{
	struct ib_device *device;
	struct ib_srq *srq;

	if (IS_ERR_OR_NULL(pd) || !attr) {
		IB_CORE_RATELIMITED("no PD or attributes\n");
		return ERR_PTR(-EINVAL);
	}
	device = pd->device;
	if (!device->ops.create_srq || !device->ops.destroy_srq)
		return ERR_PTR(-EOPNOTSUPP);
	if (attr->srq_type == IB_SRQT_XRC &&
	    (!attr->ext.cq || attr->ext.cq->device != device ||
	     !attr->ext.xrc.xrcd || attr->ext.xrc.xrcd->device != device)) {
		IB_CORE_RATELIMITED("%s: XRC SRQ without a CQ or domain of the device\n",
				    device->name);
		return ERR_PTR(-EINVAL);
	}
	if ((attr->srq_type != IB_SRQT_BASIC && attr->srq_type != IB_SRQT_XRC) ||
	    !attr->attr.max_wr || attr->attr.max_wr > device->attrs.max_srq_wr ||
	    !attr->attr.max_sge || attr->attr.max_sge > device->attrs.max_srq_sge) {
		IB_CORE_RATELIMITED("%s: type %d, %u WRs (max %d), %u SGEs (max %d)\n",
				    device->name, attr->srq_type, attr->attr.max_wr,
				    device->attrs.max_srq_wr, attr->attr.max_sge,
				    device->attrs.max_srq_sge);
		return ERR_PTR(-EINVAL);
	}

	srq = device->ops.create_srq(pd, attr, udata);
	if (IS_ERR_OR_NULL(srq))
		return srq ? srq : ERR_PTR(-ENOMEM);
	srq->device = device;
	srq->pd = pd;
	/* ib_uverbs' SRQ object begins with its ib_uobject, as 6.1's does */
	srq->uobject = (struct ib_uobject *)uobject;
	srq->event_handler = attr->event_handler;
	srq->srq_context = attr->srq_context;
	srq->srq_type = attr->srq_type;
	/* the driver has set an XRC SRQ's ext.xrc.srq_num */
	if (attr->srq_type == IB_SRQT_XRC) {
		srq->ext.cq = attr->ext.cq;
		srq->ext.xrc.xrcd = attr->ext.xrc.xrcd;
		atomic_inc(&srq->ext.cq->usecnt);
		atomic_inc(&srq->ext.xrc.xrcd->usecnt);
	} else {
		memset(&srq->ext, 0, sizeof(srq->ext));
	}
	atomic_set(&srq->usecnt, 0);
	atomic_inc(&pd->usecnt);
	/* its PD's owner's, as 6.1 */
	rdma_restrack_track_child(&srq->res, RDMA_RESTRACK_SRQ, &pd->res);
	return srq;
}
EXPORT_SYMBOL(ib_create_srq_user);

/* [sleep] ib_modify_srq() of a kernel (udata NULL) or user caller */
int ib_core_modify_srq(struct ib_srq *srq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct ib_device *device;

	if (IS_ERR_OR_NULL(srq) || !attr) {
		IB_CORE_RATELIMITED("no SRQ or attributes\n");
		return -EINVAL;
	}
	device = srq->device;
	if (!mask || (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))) {
		IB_CORE_RATELIMITED("%s: bad mask 0x%x\n", device->name, mask);
		return -EINVAL;
	}
	if ((mask & IB_SRQ_MAX_WR) &&
	    (!attr->max_wr || attr->max_wr > device->attrs.max_srq_wr)) {
		IB_CORE_RATELIMITED("%s: %u WRs (max %d)\n",
				    device->name, attr->max_wr, device->attrs.max_srq_wr);
		return -EINVAL;
	}
	if (!device->ops.modify_srq)
		return -EOPNOTSUPP;
	return device->ops.modify_srq(srq, attr, mask, udata);
}

int ib_modify_srq(struct ib_srq *srq, struct ib_srq_attr *attr, enum ib_srq_attr_mask mask)
{
	return ib_core_modify_srq(srq, attr, mask, NULL);
}
EXPORT_SYMBOL(ib_modify_srq);

int ib_query_srq(struct ib_srq *srq, struct ib_srq_attr *attr)
{
	if (IS_ERR_OR_NULL(srq) || !attr) {
		IB_CORE_RATELIMITED("no SRQ or attributes\n");
		return -EINVAL;
	}
	if (!srq->device->ops.query_srq)
		return -EOPNOTSUPP;
	return srq->device->ops.query_srq(srq, attr);
}
EXPORT_SYMBOL(ib_query_srq);

int ib_destroy_srq_user(struct ib_srq *srq, struct ib_udata *udata)
{
	struct rdma_restrack_del del;
	struct ib_xrcd *xrcd;
	struct ib_cq *cq;
	struct ib_pd *pd;
	int ret;

	if (IS_ERR_OR_NULL(srq)) {
		IB_CORE_RATELIMITED("no SRQ\n");
		return -EINVAL;
	}
	if (atomic_read(&srq->usecnt)) {
		IB_CORE_RATELIMITED("%s: SRQ still used by %d QP(s)\n",
				    srq->device->name, atomic_read(&srq->usecnt));
		return -EBUSY;
	}
	pd = srq->pd;
	cq = srq->ext.cq;
	xrcd = srq->srq_type == IB_SRQT_XRC ? srq->ext.xrc.xrcd : NULL;
	rdma_restrack_begin_del(&srq->res, &del);
	ret = srq->device->ops.destroy_srq(srq);
	if (ret) {
		rdma_restrack_abort_del(&srq->res, &del);
		return ret;
	}
	rdma_restrack_commit_del(&del);
	atomic_dec(&pd->usecnt);
	if (xrcd) {
		atomic_dec(&cq->usecnt);
		atomic_dec(&xrcd->usecnt);
	}
	return 0;
}
EXPORT_SYMBOL(ib_destroy_srq_user);

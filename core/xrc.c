// SPDX-License-Identifier: GPL-2.0
/*
 * XRC: domains, the target QPs a domain shares (ib_open_qp()/ib_close_qp()),
 * the fan-out of a target QP's events to its handles, and the destruction
 * of a target QP with its last handle.
 *
 * A target QP is known by its handles only: ib_create_qp() returns the
 * creator's handle, ib_open_qp() more of them.  The QP itself (real_qp)
 * counts its handles in usecnt and lists them on open_list under the
 * device's qp_open_list_lock; the domain maps its number to it in tgt_qps
 * under tgt_qps_rwsem.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include "core_priv.h"

struct ib_xrcd *ib_alloc_xrcd_user(struct ib_device *device, struct inode *inode,
				   struct ib_udata *udata)
{
	struct ib_xrcd *xrcd;

	if (!device->ops.alloc_xrcd || !device->ops.dealloc_xrcd)
		return ERR_PTR(-EOPNOTSUPP);
	xrcd = device->ops.alloc_xrcd(device, udata);
	if (IS_ERR_OR_NULL(xrcd))
		return xrcd ? xrcd : ERR_PTR(-ENOMEM);
	xrcd->device = device;
	xrcd->inode = inode;
	atomic_set(&xrcd->usecnt, 0);
	init_rwsem(&xrcd->tgt_qps_rwsem);
	xa_init(&xrcd->tgt_qps);
	return xrcd;
}
EXPORT_SYMBOL(ib_alloc_xrcd_user);

int ib_dealloc_xrcd_user(struct ib_xrcd *xrcd, struct ib_udata *udata)
{
	if (IS_ERR_OR_NULL(xrcd)) {
		IB_CORE_RATELIMITED("no XRC domain\n");
		return -EINVAL;
	}
	if (atomic_read(&xrcd->usecnt)) {
		IB_CORE_RATELIMITED("%s: XRC domain still used by %d SRQ(s) and QP(s)\n",
				    xrcd->device->name, atomic_read(&xrcd->usecnt));
		return -EBUSY;
	}
	WARN_ON(!xa_empty(&xrcd->tgt_qps));
	return xrcd->device->ops.dealloc_xrcd(xrcd, udata);
}
EXPORT_SYMBOL(ib_dealloc_xrcd_user);

/* [any] the target QP's event handler: every handle gets the event as its own */
static void ib_xrc_tgt_event(struct ib_event *event, void *ctx)
{
	struct ib_qp *real_qp = ctx;
	struct ib_qp *qp;
	unsigned long flags;

	spin_lock_irqsave(&real_qp->device->qp_open_list_lock, flags);
	list_for_each_entry(qp, &real_qp->open_list, open_list) {
		if (!qp->event_handler)
			continue;
		event->element.qp = qp;
		qp->event_handler(event, qp->qp_context);
	}
	spin_unlock_irqrestore(&real_qp->device->qp_open_list_lock, flags);
}

static struct ib_qp *ib_xrc_new_handle(struct ib_qp *real_qp,
				       void (*event_handler)(struct ib_event *, void *),
				       void *qp_context)
{
	struct ib_device *device = real_qp->device;
	unsigned long flags;
	struct ib_qp *qp;

	qp = kzalloc(sizeof(*qp), GFP_KERNEL);
	if (!qp)
		return ERR_PTR(-ENOMEM);
	qp->device = device;
	qp->real_qp = real_qp;
	qp->event_handler = event_handler;
	qp->qp_context = qp_context;
	qp->qp_num = real_qp->qp_num;
	qp->qp_type = real_qp->qp_type;
	qp->state = IB_QPS_RESET;	/* unused: the real QP's counts */
	mutex_init(&qp->state_mutex);
	atomic_set(&qp->usecnt, 0);
	INIT_LIST_HEAD(&qp->open_list);

	atomic_inc(&real_qp->usecnt);
	spin_lock_irqsave(&device->qp_open_list_lock, flags);
	list_add(&qp->open_list, &real_qp->open_list);
	spin_unlock_irqrestore(&device->qp_open_list_lock, flags);
	return qp;
}

struct ib_qp *ib_open_qp(struct ib_xrcd *xrcd, struct ib_qp_open_attr *qp_open_attr)
{
	struct ib_qp *real_qp, *qp;

	if (IS_ERR_OR_NULL(xrcd) || !qp_open_attr)
		return ERR_PTR(-EINVAL);
	if (qp_open_attr->qp_type != IB_QPT_XRC_TGT)
		return ERR_PTR(-EINVAL);

	down_read(&xrcd->tgt_qps_rwsem);
	real_qp = xa_load(&xrcd->tgt_qps, qp_open_attr->qp_num);
	qp = real_qp ? ib_xrc_new_handle(real_qp, qp_open_attr->event_handler,
					 qp_open_attr->qp_context) : ERR_PTR(-EINVAL);
	up_read(&xrcd->tgt_qps_rwsem);
	return qp;
}
EXPORT_SYMBOL(ib_open_qp);

int ib_close_qp(struct ib_qp *qp)
{
	struct ib_qp *real_qp;
	unsigned long flags;

	if (IS_ERR_OR_NULL(qp))
		return -EINVAL;
	real_qp = qp->real_qp;
	if (real_qp == qp)
		return -EINVAL;

	spin_lock_irqsave(&real_qp->device->qp_open_list_lock, flags);
	list_del(&qp->open_list);
	spin_unlock_irqrestore(&real_qp->device->qp_open_list_lock, flags);
	atomic_dec(&real_qp->usecnt);
	kfree(qp);
	return 0;
}
EXPORT_SYMBOL(ib_close_qp);

/*
 * [sleep] A new target QP (from the driver) joins its domain: it keeps no
 * PD, CQ or SRQ of the caller's, and the caller gets a handle on it.
 */
struct ib_qp *ib_xrc_tgt_publish(struct ib_qp *real_qp, struct ib_qp_init_attr *attr)
{
	struct ib_xrcd *xrcd = attr->xrcd;
	struct ib_qp *qp;
	int ret;

	real_qp->event_handler = ib_xrc_tgt_event;
	real_qp->qp_context = real_qp;
	real_qp->pd = NULL;
	real_qp->send_cq = NULL;
	real_qp->recv_cq = NULL;
	real_qp->srq = NULL;
	real_qp->xrcd = xrcd;
	atomic_inc(&xrcd->usecnt);

	qp = ib_xrc_new_handle(real_qp, attr->event_handler, attr->qp_context);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto err;
	}
	down_write(&xrcd->tgt_qps_rwsem);
	ret = xa_err(xa_store(&xrcd->tgt_qps, real_qp->qp_num, real_qp, GFP_KERNEL));
	up_write(&xrcd->tgt_qps_rwsem);
	if (ret) {
		ib_close_qp(qp);
		goto err;
	}
	return qp;

err:
	atomic_dec(&xrcd->usecnt);
	real_qp->device->ops.destroy_qp(real_qp);
	return ERR_PTR(ret);
}

/*
 * [sleep] ib_destroy_qp() of a handle: the handle goes, and the target QP
 * with it if it was the last one.
 */
int ib_xrc_destroy_handle(struct ib_qp *qp)
{
	struct ib_qp *real_qp = qp->real_qp;
	struct ib_xrcd *xrcd = real_qp->xrcd;
	bool last;
	int ret;

	down_write(&xrcd->tgt_qps_rwsem);
	ib_close_qp(qp);
	last = !atomic_read(&real_qp->usecnt);
	if (last)
		xa_erase(&xrcd->tgt_qps, real_qp->qp_num);
	up_write(&xrcd->tgt_qps_rwsem);
	if (!last)
		return 0;

	ret = ib_core_destroy_qp(real_qp);
	if (ret) {
		IB_CORE_RATELIMITED("%s: destroying XRC target QP 0x%x failed: %d\n",
				    xrcd->device->name, real_qp->qp_num, ret);
		return 0;	/* as upstream: the handle is gone either way */
	}
	atomic_dec(&xrcd->usecnt);
	return 0;
}

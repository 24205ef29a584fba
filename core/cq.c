// SPDX-License-Identifier: GPL-2.0
/* Completion queues. */
#include <linux/module.h>
#include "core_priv.h"
#include "restrack.h"

/*
 * [sleep] A CQ for a kernel (uobj and udata NULL) or user caller: the
 * checks, the driver's CQ, its common members.  flags_ok: the attr->flags
 * ib_core lets through (none for kernel CQs; the driver checks a user's,
 * as 6.1 leaves them to it).  Not tracked yet: the caller adds it once it
 * has set what it sets (ib_core_track_cq()).
 */
struct ib_cq *ib_core_create_cq(struct ib_device *device, const struct ib_cq_init_attr *cq_attr,
				u32 flags_ok, ib_comp_handler comp_handler,
				void (*event_handler)(struct ib_event *event, void *ctx),
				void *cq_context, struct ib_uobject *uobj,
				struct ib_udata *udata)
{
	struct ib_cq *cq;

	if (!device || !cq_attr) {
		IB_CORE_RATELIMITED("no device or attributes\n");
		return ERR_PTR(-EINVAL);
	}
	if (!cq_attr->cqe || cq_attr->cqe > device->attrs.max_cqe) {
		IB_CORE_RATELIMITED("%s: %u entries, the device allows 1..%d\n",
				    device->name, cq_attr->cqe, device->attrs.max_cqe);
		return ERR_PTR(-EINVAL);
	}
	if (device->num_comp_vectors > 0 && cq_attr->comp_vector >= device->num_comp_vectors) {
		IB_CORE_RATELIMITED("%s: completion vector %u of %d\n",
				    device->name, cq_attr->comp_vector, device->num_comp_vectors);
		return ERR_PTR(-EINVAL);
	}
	if (cq_attr->flags & ~flags_ok) {
		IB_CORE_RATELIMITED("%s: unsupported flags 0x%x\n",
				    device->name, cq_attr->flags);
		return ERR_PTR(-EOPNOTSUPP);
	}

	cq = device->ops.create_cq(device, cq_attr, udata);
	if (IS_ERR_OR_NULL(cq))
		return cq ? cq : ERR_PTR(-ENOMEM);
	cq->device = device;
	cq->uobject = uobj;
	cq->comp_handler = comp_handler;
	cq->event_handler = event_handler;
	cq->cq_context = cq_context;
	atomic_set(&cq->usecnt, 0);
	return cq;
}

/* [sleep] a complete CQ into the tracker: a kernel one's (caller) or a user's (NULL) */
struct ib_cq *ib_core_track_cq(struct ib_cq *cq, const char *caller)
{
	rdma_restrack_track(&cq->res, RDMA_RESTRACK_CQ, caller);
	return cq;
}

/* [sleep] the driver's destroy_cq, the CQ unlisted meanwhile (listed again if it fails) */
int ib_core_destroy_cq(struct ib_cq *cq)
{
	struct rdma_restrack_del del;
	int ret;

	rdma_restrack_begin_del(&cq->res, &del);
	ret = cq->device->ops.destroy_cq(cq);
	if (ret) {
		rdma_restrack_abort_del(&cq->res, &del);
		return ret;
	}
	rdma_restrack_commit_del(&del);
	return 0;
}

struct ib_cq *__ib_create_cq(struct ib_device *device, ib_comp_handler comp_handler,
			     void (*event_handler)(struct ib_event *event, void *ctx),
			     void *cq_context, const struct ib_cq_init_attr *cq_attr,
			     const char *caller)
{
	struct ib_cq *cq;

	cq = ib_core_create_cq(device, cq_attr, 0, comp_handler, event_handler, cq_context,
			       NULL, NULL);
	return IS_ERR(cq) ? cq : ib_core_track_cq(cq, caller);
}
EXPORT_SYMBOL(__ib_create_cq);

int ib_destroy_cq_user(struct ib_cq *cq, struct ib_udata *udata)
{
	if (IS_ERR_OR_NULL(cq)) {
		IB_CORE_RATELIMITED("no CQ\n");
		return -EINVAL;
	}
	if (atomic_read(&cq->usecnt)) {
		IB_CORE_RATELIMITED("%s: CQ still used by %d QP(s)/SRQ(s)\n",
				    cq->device->name, atomic_read(&cq->usecnt));
		return -EBUSY;
	}
	/* a CQ of the pool belongs to ib_core (cq_pool.c) */
	if (cq->shared) {
		IB_CORE_RATELIMITED("%s: a CQ of the pool\n", cq->device->name);
		return -EOPNOTSUPP;
	}
	return ib_core_destroy_cq(cq);
}
EXPORT_SYMBOL(ib_destroy_cq_user);

int rdma_set_cq_moderation(struct ib_cq *cq, u16 cq_count, u16 cq_period)
{
	if (IS_ERR_OR_NULL(cq)) {
		IB_CORE_RATELIMITED("no CQ\n");
		return -EINVAL;
	}
	if (!cq->device->ops.modify_cq)
		return -EOPNOTSUPP;
	return cq->device->ops.modify_cq(cq, cq_count, cq_period);
}
EXPORT_SYMBOL(rdma_set_cq_moderation);

/* [sleep] the checks of ib_resize_cq(), then the driver's resize_cq */
int ib_core_resize_cq(struct ib_cq *cq, int cqe, struct ib_udata *udata)
{
	if (IS_ERR_OR_NULL(cq)) {
		IB_CORE_RATELIMITED("no CQ\n");
		return -EINVAL;
	}
	if (cqe <= 0 || cqe > cq->device->attrs.max_cqe) {
		IB_CORE_RATELIMITED("%s: %d entries, the device allows 1..%d\n",
				    cq->device->name, cqe, cq->device->attrs.max_cqe);
		return -EINVAL;
	}
	if (!cq->device->ops.resize_cq)
		return -EOPNOTSUPP;
	return cq->device->ops.resize_cq(cq, cqe, udata);
}

int ib_resize_cq(struct ib_cq *cq, int cqe)
{
	return ib_core_resize_cq(cq, cqe, NULL);
}
EXPORT_SYMBOL(ib_resize_cq);

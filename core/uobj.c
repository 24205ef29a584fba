// SPDX-License-Identifier: GPL-2.0
/*
 * ib_core's side of ib_uverbs (<ibstack/ext.h>): user contexts, and the
 * objects user space creates.  Each entry point runs the checks and the
 * common-member filling of the kernel verb it mirrors (the ib_core_*()
 * bodies of pd_mr.c, cq.c, qp.c, srq.c, mw.c and ah.c), with the driver's
 * part of the command (udata) and ib_uverbs' object (uobj), so that the
 * kernel's destroy paths (ib_dealloc_pd_user(), ib_destroy_cq_user(), ...)
 * release user objects as they release kernel ones.
 */
#include <linux/module.h>
#include "core_priv.h"
#include "restrack.h"

struct ib_ucontext *ibstack_alloc_ucontext(struct ib_device *device,
					   struct ib_uverbs_file *ufile,
					   struct ib_umap_set *umaps,
					   struct ib_udata *udata)
{
	struct ib_ucontext *ucontext;

	might_sleep();
	if (!device || IS_ERR_OR_NULL(umaps)) {
		IB_CORE_RATELIMITED("no device or mapping set\n");
		return ERR_PTR(-EINVAL);
	}
	if (!device->ops.alloc_ucontext || !device->ops.dealloc_ucontext)
		return ERR_PTR(-EOPNOTSUPP);
	ucontext = device->ops.alloc_ucontext(device, udata);
	if (IS_ERR_OR_NULL(ucontext))
		return ucontext ? ucontext : ERR_PTR(-ENOMEM);
	ucontext->device = device;
	ucontext->ufile = ufile;
	ucontext->umaps = umaps;
	/* the task that asked for it (GET_CONTEXT is its write()) */
	rdma_restrack_track(&ucontext->res, RDMA_RESTRACK_CTX, NULL);
	return ucontext;
}
EXPORT_SYMBOL(ibstack_alloc_ucontext);

/*
 * The mappings rdma_user_mmap_io() made are revoked first (a second
 * revocation of the set changes nothing), so that the driver's op finds
 * them gone, as its contract says.
 */
void ibstack_disassociate_ucontext(struct ib_ucontext *ucontext)
{
	might_sleep();
	if (IS_ERR_OR_NULL(ucontext))
		return;
	ibstack_umap_revoke(ucontext->umaps);
	if (ucontext->device->ops.disassociate_ucontext)
		ucontext->device->ops.disassociate_ucontext(ucontext);
}
EXPORT_SYMBOL(ibstack_disassociate_ucontext);

void ibstack_dealloc_ucontext(struct ib_ucontext *ucontext)
{
	might_sleep();
	if (IS_ERR_OR_NULL(ucontext))
		return;
	rdma_restrack_del(&ucontext->res);
	ucontext->device->ops.dealloc_ucontext(ucontext);
}
EXPORT_SYMBOL(ibstack_dealloc_ucontext);

struct ib_pd *ibstack_alloc_pd_user(struct ib_device *device, struct ib_uobject *uobj,
				    struct ib_udata *udata)
{
	struct ib_pd *pd;

	if (!device) {
		IB_CORE_RATELIMITED("no device\n");
		return ERR_PTR(-EINVAL);
	}
	pd = ib_core_new_pd(device, 0, uobj, udata);
	if (IS_ERR(pd))
		return pd;
	rdma_restrack_track(&pd->res, RDMA_RESTRACK_PD, NULL);
	return pd;
}
EXPORT_SYMBOL(ibstack_alloc_pd_user);

struct ib_cq *ibstack_create_cq_user(struct ib_device *device,
				     const struct ib_cq_init_attr *attr,
				     ib_comp_handler comp_handler,
				     void (*event_handler)(struct ib_event *, void *),
				     void *cq_context, struct ib_uobject *uobj,
				     struct ib_udata *udata)
{
	struct ib_cq *cq;

	/* 6.1 hands a user's flags to the driver, which knows which it has */
	cq = ib_core_create_cq(device, attr, U32_MAX, comp_handler, event_handler,
			       cq_context, uobj, udata);
	return IS_ERR(cq) ? cq : ib_core_track_cq(cq, NULL);
}
EXPORT_SYMBOL(ibstack_create_cq_user);

int ibstack_resize_cq_user(struct ib_cq *cq, int cqe, struct ib_udata *udata)
{
	return ib_core_resize_cq(cq, cqe, udata);
}
EXPORT_SYMBOL(ibstack_resize_cq_user);

struct ib_qp *ibstack_create_qp_user(struct ib_device *device, struct ib_pd *pd,
				     struct ib_qp_init_attr *attr, struct ib_uobject *uobj,
				     struct ib_udata *udata)
{
	bool pd_ok;

	if (!device || !attr) {
		IB_CORE_RATELIMITED("no device or attributes\n");
		return ERR_PTR(-EINVAL);
	}
	/* an XRC target's PD is its domain's: the caller names none */
	if (attr->qp_type == IB_QPT_XRC_TGT)
		pd_ok = !pd;
	else
		pd_ok = !IS_ERR_OR_NULL(pd) && pd->device == device;
	if (!pd_ok) {
		IB_CORE_RATELIMITED("%s: QP type %d: no PD, or a wrong one\n",
				    device->name, attr->qp_type);
		return ERR_PTR(-EINVAL);
	}
	/* the management QPs are the kernel's (6.1's mlx4 refuses them too) */
	if (attr->qp_type == IB_QPT_SMI || attr->qp_type == IB_QPT_GSI) {
		IB_CORE_RATELIMITED("%s: special QP type %d for user space\n",
				    device->name, attr->qp_type);
		return ERR_PTR(-EINVAL);
	}
	return ib_core_create_qp(device, pd, attr, uobj, udata, NULL);
}
EXPORT_SYMBOL(ibstack_create_qp_user);

int ib_modify_qp_with_udata(struct ib_qp *qp, struct ib_qp_attr *attr, int attr_mask,
			    struct ib_udata *udata)
{
	return ib_core_modify_qp(qp, attr, attr_mask, udata);
}
EXPORT_SYMBOL(ib_modify_qp_with_udata);

int ibstack_modify_srq_user(struct ib_srq *srq, struct ib_srq_attr *attr,
			    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	return ib_core_modify_srq(srq, attr, mask, udata);
}
EXPORT_SYMBOL(ibstack_modify_srq_user);

/* [any] a user's range: the card sees it at virt, with the same page offset */
static int ib_check_user_range(struct ib_device *device, u64 start, u64 virt)
{
	if ((start & ~PAGE_MASK) != (virt & ~PAGE_MASK)) {
		IB_CORE_RATELIMITED("%s: start 0x%llx and address 0x%llx differ in page offset\n",
				    device->name, start, virt);
		return -EINVAL;
	}
	return 0;
}

struct ib_mr *ibstack_reg_user_mr(struct ib_pd *pd, u64 start, u64 length, u64 virt,
				  int access, struct ib_uobject *uobj, struct ib_udata *udata)
{
	struct ib_device *device;
	struct ib_mr *mr;
	int ret;

	if (IS_ERR_OR_NULL(pd)) {
		IB_CORE_RATELIMITED("no PD\n");
		return ERR_PTR(-EINVAL);
	}
	device = pd->device;
	if (!device->ops.reg_user_mr)
		return ERR_PTR(-EOPNOTSUPP);
	ret = ib_check_user_range(device, start, virt);
	if (!ret)
		ret = ib_core_check_mr_access(device, access, IB_ACCESS_SUPPORTED);
	if (ret)
		return ERR_PTR(ret);

	mr = device->ops.reg_user_mr(pd, start, length, virt, access, udata);
	if (IS_ERR_OR_NULL(mr))
		return mr ? mr : ERR_PTR(-ENOMEM);
	ib_core_mr_init(mr, pd, IB_MR_TYPE_USER);
	mr->uobject = uobj;
	mr->iova = virt;
	mr->length = length;
	atomic_inc(&pd->usecnt);
	rdma_restrack_track(&mr->res, RDMA_RESTRACK_MR, NULL);
	return mr;
}
EXPORT_SYMBOL(ibstack_reg_user_mr);

int ibstack_rereg_user_mr(struct ib_mr *mr, int flags, u64 start, u64 length, u64 virt,
			  int access, struct ib_pd *pd, struct ib_udata *udata)
{
	struct ib_device *device;
	struct ib_pd *old_pd;
	int ret = 0;

	if (IS_ERR_OR_NULL(mr)) {
		IB_CORE_RATELIMITED("no MR\n");
		return -EINVAL;
	}
	device = mr->device;
	if (mr->type != IB_MR_TYPE_USER || !flags || (flags & ~IB_MR_REREG_SUPPORTED)) {
		IB_CORE_RATELIMITED("%s: MR type %d, flags 0x%x\n", device->name, mr->type, flags);
		return -EINVAL;
	}
	if ((flags & IB_MR_REREG_PD) && (IS_ERR_OR_NULL(pd) || pd->device != device)) {
		IB_CORE_RATELIMITED("%s: no PD, or one of another device\n", device->name);
		return -EINVAL;
	}
	if (flags & IB_MR_REREG_TRANS)
		ret = ib_check_user_range(device, start, virt);
	if (!ret && (flags & IB_MR_REREG_ACCESS))
		ret = ib_core_check_mr_access(device, access, IB_ACCESS_SUPPORTED);
	if (ret)
		return ret;
	if (!device->ops.rereg_user_mr)
		return -EOPNOTSUPP;

	ret = device->ops.rereg_user_mr(mr, flags, start, length, virt, access, pd, udata);
	if (ret)
		return ret;
	if (flags & IB_MR_REREG_PD) {
		old_pd = mr->pd;
		atomic_inc(&pd->usecnt);
		WRITE_ONCE(mr->pd, pd);
		/* no reader of the MR still holds the old PD, which may go now */
		rdma_restrack_sync(&mr->res);
		atomic_dec(&old_pd->usecnt);
	}
	if (flags & IB_MR_REREG_TRANS) {
		mr->iova = virt;
		mr->length = length;
	}
	return 0;
}
EXPORT_SYMBOL(ibstack_rereg_user_mr);

struct ib_mw *ibstack_alloc_mw_user(struct ib_pd *pd, enum ib_mw_type type,
				    struct ib_uobject *uobj, struct ib_udata *udata)
{
	return ib_core_alloc_mw(pd, type, uobj, udata);
}
EXPORT_SYMBOL_GPL(ibstack_alloc_mw_user);

struct ib_ah *rdma_create_user_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr,
				  struct ib_udata *udata)
{
	if (IS_ERR_OR_NULL(pd) || !ah_attr) {
		IB_CORE_RATELIMITED("no PD or attributes\n");
		return ERR_PTR(-EINVAL);
	}
	might_sleep();
	return ib_core_create_ah(pd, ah_attr, RDMA_CREATE_AH_SLEEPABLE, udata);
}
EXPORT_SYMBOL(rdma_create_user_ah);

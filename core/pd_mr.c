// SPDX-License-Identifier: GPL-2.0
/* Protection domains and memory regions. */
#include <linux/module.h>
#include "core_priv.h"
#include "restrack.h"

/*
 * What an MR may have: upstream's check, then the rights of allowed
 * (IB_CORE_MR_ACCESS for kernel MRs, IB_ACCESS_SUPPORTED for user ones).
 */
int ib_core_check_mr_access(struct ib_device *device, int access, int allowed)
{
	if (ib_check_mr_access(device, access) || (access & ~allowed)) {
		IB_CORE_RATELIMITED("%s: unsupported MR access flags 0x%x\n",
				    device->name, access);
		return -EINVAL;
	}
	return 0;
}

/* the core-owned members of an MR a driver just created (not the PD count) */
void ib_core_mr_init(struct ib_mr *mr, struct ib_pd *pd, enum ib_mr_type type)
{
	mr->device = pd->device;
	mr->pd = pd;
	mr->uobject = NULL;
	mr->type = type;
	mr->need_inval = false;
	mr->dm = NULL;
	mr->sig_attrs = NULL;
}

/*
 * [sleep] The driver's PD for a kernel (uobj and udata NULL) or user
 * caller, its common members filled; no DMA MR yet (__ib_alloc_pd()'s)
 * and not tracked yet (the caller adds it once it is complete).
 */
struct ib_pd *ib_core_new_pd(struct ib_device *device, unsigned int flags,
			     struct ib_uobject *uobj, struct ib_udata *udata)
{
	struct ib_pd *pd;

	pd = device->ops.alloc_pd(device, udata);
	if (IS_ERR_OR_NULL(pd))
		return pd ? pd : ERR_PTR(-ENOMEM);
	pd->device = device;
	pd->uobject = uobj;
	pd->flags = flags;
	pd->unsafe_global_rkey = 0;
	pd->__internal_mr = NULL;
	atomic_set(&pd->usecnt, 0);
	if (device->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY)
		pd->local_dma_lkey = device->local_dma_lkey;
	return pd;
}

/* [sleep] a complete kernel PD into the tracker (its DMA MR is not tracked, as in 6.1) */
static struct ib_pd *ib_pd_track(struct ib_pd *pd, const char *caller)
{
	rdma_restrack_track(&pd->res, RDMA_RESTRACK_PD, caller);
	return pd;
}

struct ib_pd *__ib_alloc_pd(struct ib_device *device, unsigned int flags,
			    const char *caller)
{
	int access = IB_ACCESS_LOCAL_WRITE;
	struct ib_pd *pd;
	struct ib_mr *mr;

	if (!device) {
		IB_CORE_RATELIMITED("no device\n");
		return ERR_PTR(-EINVAL);
	}
	if (flags & ~IB_PD_UNSAFE_GLOBAL_RKEY) {
		IB_CORE_RATELIMITED("%s: unknown PD flags 0x%x\n", device->name, flags);
		return ERR_PTR(-EINVAL);
	}

	pd = ib_core_new_pd(device, flags, NULL, NULL);
	if (IS_ERR(pd))
		return pd;
	if ((device->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY) &&
	    !(flags & IB_PD_UNSAFE_GLOBAL_RKEY))
		return ib_pd_track(pd, caller);

	/*
	 * ib_core's own MR over all memory: its lkey serves every kernel
	 * user, and with the flag its rkey every peer that learns it.
	 */
	if (flags & IB_PD_UNSAFE_GLOBAL_RKEY) {
		pr_warn("%s: enabling unsafe global rkey\n", caller);
		access |= IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE;
	}
	mr = device->ops.get_dma_mr(pd, access);
	if (IS_ERR_OR_NULL(mr)) {
		int ret = mr ? PTR_ERR(mr) : -ENOMEM;

		pr_err_ratelimited("ib_core: %s: the PD's DMA MR failed: %d\n",
				   device->name, ret);
		device->ops.dealloc_pd(pd);
		return ERR_PTR(ret);
	}
	ib_core_mr_init(mr, pd, IB_MR_TYPE_DMA);
	pd->__internal_mr = mr;
	if (!(device->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY))
		pd->local_dma_lkey = mr->lkey;
	if (flags & IB_PD_UNSAFE_GLOBAL_RKEY)
		pd->unsafe_global_rkey = mr->rkey;
	return ib_pd_track(pd, caller);
}
EXPORT_SYMBOL(__ib_alloc_pd);

int ib_dealloc_pd_user(struct ib_pd *pd, struct ib_udata *udata)
{
	struct rdma_restrack_del del;
	struct ib_device *device;
	int ret;

	if (IS_ERR_OR_NULL(pd)) {
		IB_CORE_RATELIMITED("no PD\n");
		return -EINVAL;
	}
	device = pd->device;
	if (atomic_read(&pd->usecnt)) {
		IB_CORE_RATELIMITED("%s: PD still used by %d object(s)\n",
				    device->name, atomic_read(&pd->usecnt));
		return -EBUSY;
	}

	rdma_restrack_begin_del(&pd->res, &del);
	if (pd->__internal_mr) {
		ret = device->ops.dereg_mr(pd->__internal_mr);
		if (ret) {
			IB_CORE_RATELIMITED("%s: the PD's DMA MR: %d\n",
					    device->name, ret);
			goto err;
		}
		pd->__internal_mr = NULL;
	}
	ret = device->ops.dealloc_pd(pd);
	if (ret)
		goto err;
	rdma_restrack_commit_del(&del);
	return 0;

err:
	rdma_restrack_abort_del(&pd->res, &del);
	return ret;
}
EXPORT_SYMBOL(ib_dealloc_pd_user);

struct ib_mr *ibstack_reg_kernel_mr(struct ib_pd *pd, const u64 *pages, int npages,
				    int page_shift, u64 iova, u64 length, int access)
{
	struct ib_device *device;
	struct ib_mr *mr;
	int ret;

	if (IS_ERR_OR_NULL(pd)) {
		IB_CORE_RATELIMITED("no PD\n");
		return ERR_PTR(-EINVAL);
	}
	device = pd->device;
	if (!device->ops.reg_kernel_mr)
		return ERR_PTR(-EOPNOTSUPP);
	if (!pages || npages <= 0 || page_shift < PAGE_SHIFT || page_shift > 40 ||
	    !length || length > ((u64)npages << page_shift) ||
	    (device->attrs.max_mr_size && length > device->attrs.max_mr_size)) {
		IB_CORE_RATELIMITED("%s: bad layout (%d pages of 2^%d, length %llu)\n",
				    device->name, npages, page_shift, length);
		return ERR_PTR(-EINVAL);
	}
	ret = ib_core_check_mr_access(device, access, IB_CORE_MR_ACCESS);
	if (ret)
		return ERR_PTR(ret);

	mr = device->ops.reg_kernel_mr(pd, pages, npages, page_shift, iova, length, access);
	if (IS_ERR_OR_NULL(mr))
		return mr ? mr : ERR_PTR(-ENOMEM);
	ib_core_mr_init(mr, pd, IB_MR_TYPE_MEM_REG);
	mr->page_size = 1U << page_shift;
	atomic_inc(&pd->usecnt);
	rdma_restrack_track_child(&mr->res, RDMA_RESTRACK_MR, &pd->res);
	return mr;
}
EXPORT_SYMBOL(ibstack_reg_kernel_mr);

int ib_dereg_mr_user(struct ib_mr *mr, struct ib_udata *udata)
{
	struct rdma_restrack_del del;
	struct ib_pd *pd;
	int ret;

	if (IS_ERR_OR_NULL(mr)) {
		IB_CORE_RATELIMITED("no MR\n");
		return -EINVAL;
	}
	pd = mr->pd;
	if (pd && mr == pd->__internal_mr) {
		IB_CORE_RATELIMITED("%s: the PD's own DMA MR is not the caller's\n",
				    mr->device->name);
		return -EINVAL;
	}
	rdma_restrack_begin_del(&mr->res, &del);
	ret = mr->device->ops.dereg_mr(mr);
	if (ret) {
		/* e.g. windows still bound: the MR stays, and stays listed */
		rdma_restrack_abort_del(&mr->res, &del);
		return ret;
	}
	rdma_restrack_commit_del(&del);
	if (pd)
		atomic_dec(&pd->usecnt);
	return 0;
}
EXPORT_SYMBOL(ib_dereg_mr_user);

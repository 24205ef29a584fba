// SPDX-License-Identifier: GPL-2.0
/* Protection domains and memory regions. */
#include <linux/module.h>
#include "core_priv.h"

/* Remote write and remote atomic access need local write access too. */
static int ib_check_mr_access(struct ib_device *device, int access)
{
	if (access & ~IB_ACCESS_SUPPORTED) {
		IB_CORE_RATELIMITED("%s: unsupported MR access flags 0x%x\n",
				    device->name, access);
		return -EINVAL;
	}
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE)) {
		IB_CORE_RATELIMITED("%s: MR remote write/atomic access without local write\n",
				    device->name);
		return -EINVAL;
	}
	return 0;
}

static void ib_mr_init(struct ib_mr *mr, struct ib_pd *pd)
{
	mr->device = pd->device;
	mr->pd = pd;
	mr->uobject = NULL;
}

struct ib_pd *ib_alloc_pd(struct ib_device *device)
{
	struct ib_pd *pd;
	struct ib_mr *mr;

	if (!device) {
		IB_CORE_RATELIMITED("no device\n");
		return ERR_PTR(-EINVAL);
	}

	pd = device->ops->alloc_pd(device, NULL);
	if (IS_ERR_OR_NULL(pd))
		return pd ? pd : ERR_PTR(-ENOMEM);
	pd->device = device;
	pd->uobject = NULL;
	atomic_set(&pd->usecnt, 0);
	pd->internal_mr = NULL;

	/* ib_core's own MR over all memory: its lkey serves every kernel user. */
	mr = device->ops->get_dma_mr(pd, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR_OR_NULL(mr)) {
		int ret = mr ? PTR_ERR(mr) : -ENOMEM;

		pr_err_ratelimited("ib_core: %s: the PD's DMA MR failed: %d\n",
				   device->name, ret);
		device->ops->dealloc_pd(pd);
		return ERR_PTR(ret);
	}
	ib_mr_init(mr, pd);
	pd->internal_mr = mr;
	pd->local_dma_lkey = mr->lkey;
	return pd;
}
EXPORT_SYMBOL(ib_alloc_pd);

int ib_dealloc_pd(struct ib_pd *pd)
{
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

	if (pd->internal_mr) {
		ret = device->ops->dereg_mr(pd->internal_mr);
		if (ret) {
			IB_CORE_RATELIMITED("%s: the PD's DMA MR: %d\n",
					    device->name, ret);
			return ret;
		}
		pd->internal_mr = NULL;
	}
	return device->ops->dealloc_pd(pd);
}
EXPORT_SYMBOL(ib_dealloc_pd);

struct ib_mr *ib_get_dma_mr(struct ib_pd *pd, int access)
{
	struct ib_mr *mr;
	int ret;

	if (IS_ERR_OR_NULL(pd)) {
		IB_CORE_RATELIMITED("no PD\n");
		return ERR_PTR(-EINVAL);
	}
	ret = ib_check_mr_access(pd->device, access);
	if (ret)
		return ERR_PTR(ret);

	mr = pd->device->ops->get_dma_mr(pd, access);
	if (IS_ERR_OR_NULL(mr))
		return mr ? mr : ERR_PTR(-ENOMEM);
	ib_mr_init(mr, pd);
	atomic_inc(&pd->usecnt);
	return mr;
}
EXPORT_SYMBOL(ib_get_dma_mr);

struct ib_mr *ib_reg_kernel_mr(struct ib_pd *pd, const u64 *pages, int npages,
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
	if (!device->ops->reg_kernel_mr)
		return ERR_PTR(-EOPNOTSUPP);
	if (!pages || npages <= 0 || page_shift < PAGE_SHIFT || page_shift > 40 ||
	    !length || length > ((u64)npages << page_shift) ||
	    (device->attrs.max_mr_size && length > device->attrs.max_mr_size)) {
		IB_CORE_RATELIMITED("%s: bad layout (%d pages of 2^%d, length %llu)\n",
				    device->name, npages, page_shift, length);
		return ERR_PTR(-EINVAL);
	}
	ret = ib_check_mr_access(device, access);
	if (ret)
		return ERR_PTR(ret);

	mr = device->ops->reg_kernel_mr(pd, pages, npages, page_shift, iova, length, access);
	if (IS_ERR_OR_NULL(mr))
		return mr ? mr : ERR_PTR(-ENOMEM);
	ib_mr_init(mr, pd);
	atomic_inc(&pd->usecnt);
	return mr;
}
EXPORT_SYMBOL(ib_reg_kernel_mr);

int ib_dereg_mr(struct ib_mr *mr)
{
	struct ib_pd *pd;
	int ret;

	if (IS_ERR_OR_NULL(mr)) {
		IB_CORE_RATELIMITED("no MR\n");
		return -EINVAL;
	}
	pd = mr->pd;
	if (pd && mr == pd->internal_mr) {
		IB_CORE_RATELIMITED("%s: the PD's own DMA MR is not the caller's\n",
				    mr->device->name);
		return -EINVAL;
	}
	ret = mr->device->ops->dereg_mr(mr);
	if (!ret && pd)
		atomic_dec(&pd->usecnt);
	return ret;
}
EXPORT_SYMBOL(ib_dereg_mr);

// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows (test-only exports, <ibstack/ext.h>): ib_core allocates
 * the driver's window object, as upstream does for uverbs, and counts it
 * as a user of its PD.  Binding and invalidation are work requests.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include "core_priv.h"

/* [sleep] a window for a kernel (uobj and udata NULL) or user caller */
struct ib_mw *ib_core_alloc_mw(struct ib_pd *pd, enum ib_mw_type type,
			       struct ib_uobject *uobj, struct ib_udata *udata)
{
	struct ib_device *device;
	struct ib_mw *mw;
	int ret;

	if (IS_ERR_OR_NULL(pd)) {
		IB_CORE_RATELIMITED("no PD\n");
		return ERR_PTR(-EINVAL);
	}
	device = pd->device;
	if (!device->ops.alloc_mw || !device->ops.dealloc_mw)
		return ERR_PTR(-EOPNOTSUPP);
	if (type != IB_MW_TYPE_1 && type != IB_MW_TYPE_2) {
		IB_CORE_RATELIMITED("%s: window type %d\n", device->name, type);
		return ERR_PTR(-EINVAL);
	}
	if (WARN_ON_ONCE(device->ops.size_ib_mw < sizeof(*mw)))
		return ERR_PTR(-EOPNOTSUPP);

	mw = kzalloc(device->ops.size_ib_mw, GFP_KERNEL);
	if (!mw)
		return ERR_PTR(-ENOMEM);
	mw->device = device;
	mw->pd = pd;
	mw->uobject = uobj;
	mw->type = type;
	ret = device->ops.alloc_mw(mw, udata);
	if (ret) {
		kfree(mw);
		return ERR_PTR(ret);
	}
	atomic_inc(&pd->usecnt);
	return mw;
}

/* [sleep] */
struct ib_mw *ibstack_alloc_mw(struct ib_pd *pd, enum ib_mw_type type)
{
	return ib_core_alloc_mw(pd, type, NULL, NULL);
}
EXPORT_SYMBOL_GPL(ibstack_alloc_mw);

/* [sleep] */
int ibstack_dealloc_mw(struct ib_mw *mw)
{
	struct ib_pd *pd;
	int ret;

	if (IS_ERR_OR_NULL(mw)) {
		IB_CORE_RATELIMITED("no window\n");
		return -EINVAL;
	}
	pd = mw->pd;
	ret = mw->device->ops.dealloc_mw(mw);
	if (ret)
		return ret;
	atomic_dec(&pd->usecnt);
	kfree(mw);
	return 0;
}
EXPORT_SYMBOL_GPL(ibstack_dealloc_mw);

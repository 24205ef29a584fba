// SPDX-License-Identifier: GPL-2.0
/*
 * Resource tracking, the readers' side (RDMA netlink, tests): lookups and
 * walks that hand out referenced entries, the counts, and what a reader
 * reports of an entry's owner and user context.  Every lookup holds the
 * table's lock (core/restrack.h) while it takes its reference, so an entry
 * found is never one whose deletion has begun.
 */
#include <linux/pid.h>
#include <linux/sched.h>
#include <ibstack/ext.h>
#include "core_priv.h"
#include "restrack.h"

static struct rdma_restrack_root *restrack_table(struct ib_device *dev,
						 enum rdma_restrack_type type)
{
	if ((unsigned int)type >= RDMA_RESTRACK_MAX || !dev->res)
		return NULL;
	return &dev->res[type];
}

struct rdma_restrack_entry *rdma_restrack_get_byid(struct ib_device *dev,
						   enum rdma_restrack_type type, u32 id)
{
	struct rdma_restrack_root *rt = restrack_table(dev, type);
	struct rdma_restrack_entry *res;

	if (!rt)
		return ERR_PTR(-ENOENT);
	xa_lock(&rt->xa);
	res = xa_load(&rt->xa, id);
	if (!res || !rdma_restrack_get(res))
		res = ERR_PTR(-ENOENT);
	xa_unlock(&rt->xa);
	return res;
}
EXPORT_SYMBOL(rdma_restrack_get_byid);

int rdma_restrack_count(struct ib_device *dev, enum rdma_restrack_type type,
			bool show_details)
{
	struct rdma_restrack_root *rt = restrack_table(dev, type);
	struct rdma_restrack_entry *res;
	unsigned long id;
	int n = 0;

	if (!rt)
		return 0;
	xa_lock(&rt->xa);
	xa_for_each(&rt->xa, id, res)
		n++;
	xa_unlock(&rt->xa);
	return n;
}
EXPORT_SYMBOL(rdma_restrack_count);

struct rdma_restrack_entry *ibstack_restrack_next(struct ib_device *dev,
						  enum rdma_restrack_type type,
						  unsigned long *id)
{
	struct rdma_restrack_root *rt = restrack_table(dev, type);
	struct rdma_restrack_entry *res;

	if (!rt)
		return NULL;
	xa_lock(&rt->xa);
	for (res = xa_find(&rt->xa, id, U32_MAX, XA_PRESENT); res;
	     res = xa_find_after(&rt->xa, id, U32_MAX, XA_PRESENT))
		if (rdma_restrack_get(res))
			break;
	xa_unlock(&rt->xa);
	return res;
}
EXPORT_SYMBOL_GPL(ibstack_restrack_next);

pid_t ibstack_restrack_pid(const struct rdma_restrack_entry *res)
{
	if (rdma_is_kernel_res(res) || !res->task)
		return 0;
	return task_pid_vnr(res->task);
}
EXPORT_SYMBOL_GPL(ibstack_restrack_pid);

const char *ibstack_restrack_comm(const struct rdma_restrack_entry *res, char *buf,
				  size_t size)
{
	char comm[TASK_COMM_LEN];

	if (rdma_is_kernel_res(res) || !res->task) {
		strscpy(buf, res->kern_name, size);
		return buf;
	}
	get_task_comm(comm, res->task);
	strscpy(buf, comm, size);
	return buf;
}
EXPORT_SYMBOL_GPL(ibstack_restrack_comm);

/* The ib_uverbs object of a user object's entry (NULL for a context). */
static const struct ib_uobject *restrack_uobject(const struct rdma_restrack_entry *res)
{
	switch (res->type) {
	case RDMA_RESTRACK_PD:
		return container_of(res, struct ib_pd, res)->uobject;
	case RDMA_RESTRACK_CQ:
		return container_of(res, struct ib_cq, res)->uobject;
	case RDMA_RESTRACK_QP:
		return container_of(res, struct ib_qp, res)->uobject;
	case RDMA_RESTRACK_MR:
		return container_of(res, struct ib_mr, res)->uobject;
	case RDMA_RESTRACK_SRQ:
		/* ib_uverbs sets it right after the creation: may be NULL yet */
		return READ_ONCE(container_of(res, struct ib_srq, res)->uobject);
	default:
		return NULL;
	}
}

int ibstack_restrack_ctxn(const struct rdma_restrack_entry *res, u32 *ctxn)
{
	const struct ib_uobject *uobj;
	const struct ib_ucontext *ctx;

	/* a kernel MR's uobject is its place in a QP's MR pool: not looked at */
	if (rdma_is_kernel_res(res))
		return -ENOENT;
	if (res->type == RDMA_RESTRACK_CTX) {
		*ctxn = res->id;
		return 0;
	}
	uobj = restrack_uobject(res);
	ctx = uobj ? uobj->context : NULL;
	if (!ctx || !ctx->res.valid)
		return -ENOENT;
	*ctxn = ctx->res.id;
	return 0;
}
EXPORT_SYMBOL_GPL(ibstack_restrack_ctxn);

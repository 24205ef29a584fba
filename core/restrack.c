// SPDX-License-Identifier: GPL-2.0
/*
 * Resource tracking, the writers' side: the device's tables, and an
 * object's entry from its addition to its deletion (core/restrack.h has
 * the protocol, restrack_read.c the readers).
 */
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include "core_priv.h"
#include "restrack.h"

/* leaked entries a device's release names one by one, per type */
#define RESTRACK_LEAKS_SHOWN	8

static const char * const restrack_type_names[RDMA_RESTRACK_MAX] = {
	[RDMA_RESTRACK_PD] = "PD", [RDMA_RESTRACK_CQ] = "CQ",
	[RDMA_RESTRACK_QP] = "QP", [RDMA_RESTRACK_CM_ID] = "CM_ID",
	[RDMA_RESTRACK_MR] = "MR", [RDMA_RESTRACK_CTX] = "user context",
	[RDMA_RESTRACK_COUNTER] = "counter", [RDMA_RESTRACK_SRQ] = "SRQ",
};

int rdma_restrack_init(struct ib_device *dev)
{
	int i;

	dev->res = kcalloc(RDMA_RESTRACK_MAX, sizeof(*dev->res), GFP_KERNEL);
	if (!dev->res)
		return -ENOMEM;
	for (i = 0; i < RDMA_RESTRACK_MAX; i++)
		xa_init_flags(&dev->res[i].xa, XA_FLAGS_ALLOC);
	return 0;
}

/* One leaked entry's line; its task reference goes (nobody deletes it now). */
static void restrack_report_leak(struct ib_device *dev, struct rdma_restrack_entry *res,
				 bool shown)
{
	const char *type = restrack_type_names[res->type];

	if (shown && res->task)
		pr_err("ib_core: %s: %s %u of pid %d (%s) still exists at the device's release: leaked\n",
		       dev->name, type, res->id, task_pid_nr(res->task), res->task->comm);
	else if (shown)
		pr_err("ib_core: %s: %s %u of %s still exists at the device's release: leaked\n",
		       dev->name, type, res->id, res->kern_name);
	if (res->task) {
		put_task_struct(res->task);
		res->task = NULL;
	}
	res->valid = false;
}

void rdma_restrack_clean(struct ib_device *dev)
{
	struct rdma_restrack_entry *res;
	unsigned long id;
	int i, n;

	if (!dev->res)
		return;
	for (i = 0; i < RDMA_RESTRACK_MAX; i++) {
		struct xarray *xa = &dev->res[i].xa;

		n = 0;
		xa_for_each(xa, id, res)
			restrack_report_leak(dev, res, ++n <= RESTRACK_LEAKS_SHOWN);
		if (n > RESTRACK_LEAKS_SHOWN)
			pr_err("ib_core: %s: %d more %s(s) leaked\n", dev->name,
			       n - RESTRACK_LEAKS_SHOWN, restrack_type_names[i]);
		xa_destroy(xa);
	}
	kfree(dev->res);
	dev->res = NULL;
}

/* The device of the object an entry is embedded in; NULL for an unknown type. */
static struct ib_device *restrack_device(const struct rdma_restrack_entry *res)
{
	switch (res->type) {
	case RDMA_RESTRACK_PD:
		return container_of(res, struct ib_pd, res)->device;
	case RDMA_RESTRACK_CQ:
		return container_of(res, struct ib_cq, res)->device;
	case RDMA_RESTRACK_QP:
		return container_of(res, struct ib_qp, res)->device;
	case RDMA_RESTRACK_MR:
		return container_of(res, struct ib_mr, res)->device;
	case RDMA_RESTRACK_CTX:
		return container_of(res, struct ib_ucontext, res)->device;
	case RDMA_RESTRACK_SRQ:
		return container_of(res, struct ib_srq, res)->device;
	default:
		return NULL;
	}
}

static struct rdma_restrack_root *restrack_root(const struct rdma_restrack_entry *res)
{
	struct ib_device *dev = restrack_device(res);

	/* ib_core tracks no other type: a caller's bug */
	if (WARN_ON_ONCE(!dev))
		return NULL;
	return &dev->res[res->type];
}

void rdma_restrack_new(struct rdma_restrack_entry *res, enum rdma_restrack_type type)
{
	memset(res, 0, sizeof(*res));
	kref_init(&res->kref);
	init_completion(&res->comp);
	res->type = type;
}

void rdma_restrack_set_name(struct rdma_restrack_entry *res, const char *caller)
{
	if (caller) {
		strscpy(res->kern_name, caller, sizeof(res->kern_name));
		return;
	}
	get_task_struct(current);
	res->task = current;
	res->user = true;
}

void rdma_restrack_parent_name(struct rdma_restrack_entry *dst,
			       const struct rdma_restrack_entry *parent)
{
	if (rdma_is_kernel_res(parent)) {
		strscpy(dst->kern_name, parent->kern_name, sizeof(dst->kern_name));
		return;
	}
	if (parent->task)
		get_task_struct(parent->task);
	dst->task = parent->task;
	dst->user = true;
}

/* A QP's id is its number, the port above it for QP0 and QP1 (each port has its own). */
static int restrack_insert_qp(struct rdma_restrack_root *rt, struct rdma_restrack_entry *res)
{
	struct ib_qp *qp = container_of(res, struct ib_qp, res);
	bool special = qp->qp_type == IB_QPT_SMI || qp->qp_type == IB_QPT_GSI;

	if (WARN_ONCE(qp->qp_num >> 24 || (special && qp->port >> 8),
		      "ib_core: QP number 0x%x, port %u beyond the tracker's ids\n",
		      qp->qp_num, qp->port))
		return -ERANGE;
	res->id = qp->qp_num | (special ? qp->port << 24 : 0);
	return xa_insert(&rt->xa, res->id, res, GFP_KERNEL);
}

void rdma_restrack_add(struct rdma_restrack_entry *res)
{
	struct rdma_restrack_root *rt = restrack_root(res);
	int ret;

	might_sleep();
	if (!rt)
		return;
	if (res->type == RDMA_RESTRACK_QP) {
		ret = restrack_insert_qp(rt, res);
	} else {
		ret = xa_alloc_cyclic(&rt->xa, &res->id, res, xa_limit_32b, &rt->next_id,
				      GFP_KERNEL);
		ret = ret < 0 ? ret : 0;	/* 1: the ids wrapped */
	}
	if (ret) {
		pr_err_ratelimited("ib_core: %s: %s %u not tracked: %d\n",
				   restrack_device(res)->name,
				   restrack_type_names[res->type], res->id, ret);
		return;
	}
	res->valid = true;
}

void rdma_restrack_track(struct rdma_restrack_entry *res, enum rdma_restrack_type type,
			 const char *caller)
{
	rdma_restrack_new(res, type);
	rdma_restrack_set_name(res, caller);
	rdma_restrack_add(res);
}

void rdma_restrack_track_child(struct rdma_restrack_entry *res, enum rdma_restrack_type type,
			       const struct rdma_restrack_entry *parent)
{
	rdma_restrack_new(res, type);
	rdma_restrack_parent_name(res, parent);
	rdma_restrack_add(res);
}

static void restrack_release(struct kref *kref)
{
	complete(&container_of(kref, struct rdma_restrack_entry, kref)->comp);
}

int rdma_restrack_put(struct rdma_restrack_entry *res)
{
	return kref_put(&res->kref, restrack_release);
}
EXPORT_SYMBOL(rdma_restrack_put);

int rdma_restrack_get(struct rdma_restrack_entry *res)
{
	return kref_get_unless_zero(&res->kref);
}
EXPORT_SYMBOL(rdma_restrack_get);

/*
 * The entry leaves its table, so no new reader finds it; then the readers
 * that hold a reference are waited for.
 */
static void restrack_drain(struct rdma_restrack_root *rt, struct rdma_restrack_entry *res)
{
	void *old;

	old = xa_erase(&rt->xa, res->id);
	WARN_ONCE(old != res, "ib_core: restrack entry %u of type %d not where it was added\n",
		  res->id, res->type);
	rdma_restrack_put(res);
	wait_for_completion(&res->comp);
}

/*
 * The drained entry is listed again under its id, with a fresh creation's
 * reference.  Nobody took the id meanwhile: cyclic ids come round again
 * only after 2^32 others, and the driver gives a QP's number to no other
 * QP while it lives.  Only a failed allocation leaves it untracked.
 */
static void restrack_restore(struct rdma_restrack_root *rt, struct rdma_restrack_entry *res)
{
	int ret;

	kref_init(&res->kref);
	reinit_completion(&res->comp);
	ret = xa_insert(&rt->xa, res->id, res, GFP_KERNEL);
	if (ret) {
		res->valid = false;
		pr_err_ratelimited("ib_core: %s: %s %u no longer tracked: %d\n",
				   restrack_device(res)->name, restrack_type_names[res->type],
				   res->id, ret);
	}
}

void rdma_restrack_begin_del(struct rdma_restrack_entry *res, struct rdma_restrack_del *del)
{
	might_sleep();
	del->rt = res->valid ? restrack_root(res) : NULL;
	del->task = res->task;
	if (del->rt)
		restrack_drain(del->rt, res);
}

void rdma_restrack_abort_del(struct rdma_restrack_entry *res, struct rdma_restrack_del *del)
{
	if (del->rt)
		restrack_restore(del->rt, res);
}

/* The entry is gone with its object: only what begin_del() kept is used. */
void rdma_restrack_commit_del(struct rdma_restrack_del *del)
{
	if (del->task)
		put_task_struct(del->task);
}

void rdma_restrack_del(struct rdma_restrack_entry *res)
{
	struct rdma_restrack_del del;

	rdma_restrack_begin_del(res, &del);
	res->valid = false;
	res->task = NULL;
	rdma_restrack_commit_del(&del);
}

void rdma_restrack_sync(struct rdma_restrack_entry *res)
{
	struct rdma_restrack_root *rt;

	might_sleep();
	if (!res->valid)
		return;
	rt = restrack_root(res);
	restrack_drain(rt, res);
	restrack_restore(rt, res);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_core's side of resource tracking (restrack.c): the tables, and the
 * calls its object paths make (docs/restrack.md).  The readers' calls are
 * in <rdma/restrack.h> and <ibstack/ext.h>.
 *
 * An object's life in its table, all in process context:
 *
 *	rdma_restrack_new()		once the object is fully created
 *	rdma_restrack_set_name()	kernel (caller) or user (current) owner,
 *	or rdma_restrack_parent_name()	or the owner of the object's PD
 *	rdma_restrack_add()		listed, with its id
 *	...
 *	rdma_restrack_begin_del()	before the driver's destroy: unlisted,
 *					the readers' references waited for
 *	rdma_restrack_abort_del()	the destroy failed: listed again, same id
 *	or rdma_restrack_commit_del()	it succeeded: the task let go
 *
 * The driver's destroy frees the object, entry included: what the commit
 * needs, begin_del() keeps in a struct rdma_restrack_del of the caller's.
 * rdma_restrack_del() is the whole deletion, for an object whose destroy
 * cannot fail, called before it.  A failed addition (no memory, or a QP
 * number already listed: a driver bug) leaves the object untracked, as
 * 6.1 does, with a log line; its deletion then only lets go of the task.
 * So does a relisting that finds no memory (abort_del(), sync()).
 */
#ifndef IBSTACK_CORE_RESTRACK_H
#define IBSTACK_CORE_RESTRACK_H

#include <rdma/restrack.h>
#include <linux/xarray.h>

/*
 * One type's table on one device (ib_device.res[type]).  xa maps the ids
 * to the entries (XA_FLAGS_ALLOC).  The xarray's own lock, never taken
 * from interrupts, serialises every change and is held by the readers
 * while they find an entry and take their reference; next_id, the cursor
 * of the cyclic ids, is under it too.
 */
struct rdma_restrack_root {
	struct xarray	xa;
	u32		next_id;
};

/* [sleep] the device's tables (_ib_alloc_device()); -ENOMEM */
int rdma_restrack_init(struct ib_device *dev);
/*
 * [sleep] At the device's release: every entry still listed is a leaked
 * object, reported with pr_err() (device, type, id, owner); then the tables
 * go.
 */
void rdma_restrack_clean(struct ib_device *dev);

/* [any] a fresh, unlisted entry of type, holding the creation's reference */
void rdma_restrack_new(struct rdma_restrack_entry *res, enum rdma_restrack_type type);
/*
 * [any] The owner: the kernel module named caller, or with caller NULL
 * the current task (a user object; a task reference until the deletion).
 */
void rdma_restrack_set_name(struct rdma_restrack_entry *res, const char *caller);
/* [any] the owner of parent (an object's PD) */
void rdma_restrack_parent_name(struct rdma_restrack_entry *dst,
			       const struct rdma_restrack_entry *parent);
/* [sleep] lists the entry (the object's device and members are set) */
void rdma_restrack_add(struct rdma_restrack_entry *res);
/*
 * [sleep] The three steps at once for a complete object: a fresh entry of
 * type, its owner (caller's module; NULL: the current task), listed.
 */
void rdma_restrack_track(struct rdma_restrack_entry *res, enum rdma_restrack_type type,
			 const char *caller);
/* [sleep] the same with parent's owner (an MR's or an SRQ's PD's) */
void rdma_restrack_track_child(struct rdma_restrack_entry *res, enum rdma_restrack_type type,
			       const struct rdma_restrack_entry *parent);
/* What a deletion keeps of an entry across the driver's destroy (above). */
struct rdma_restrack_del {
	struct rdma_restrack_root	*rt;	/* NULL: the entry was not listed */
	struct task_struct		*task;	/* the user owner's reference */
};

/* [sleep] the deletion steps above, for the entry of a live object */
void rdma_restrack_begin_del(struct rdma_restrack_entry *res, struct rdma_restrack_del *del);
void rdma_restrack_abort_del(struct rdma_restrack_entry *res, struct rdma_restrack_del *del);
/* [any] once the object is gone (never touches the entry) */
void rdma_restrack_commit_del(struct rdma_restrack_del *del);
/* [sleep] begin and commit at once, before a destroy that cannot fail */
void rdma_restrack_del(struct rdma_restrack_entry *res);
/*
 * [sleep] Waits out the readers of a listed entry, which stays listed:
 * after a member they read changed (an MR's PD), none holds the old value.
 * Not concurrently with the entry's deletion.
 */
void rdma_restrack_sync(struct rdma_restrack_entry *res);

#endif /* IBSTACK_CORE_RESTRACK_H */

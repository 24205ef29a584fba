/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resource tracking ("restrack"): ib_core keeps, per device and per type,
 * a table of the PDs, CQs, QPs, MRs, SRQs and user contexts that exist on
 * it, for RDMA netlink's `rdma resource` (docs/restrack.md).  Each object
 * embeds an entry (its res member); ib_core lists it once the object is
 * fully created and takes it out before the driver destroys the object.
 * Drivers and ULPs only read entries; the enum and the names below are
 * Linux 6.1's.
 *
 * A reader finds an entry with a reference (rdma_restrack_get_byid(), or
 * ibstack_restrack_next() of <ibstack/ext.h>) and gives it back with
 * rdma_restrack_put().  The object cannot be destroyed meanwhile: its
 * destruction waits for every reference to be put, so a reader must not
 * wait for anything the destroyer may hold (it may call ib_query_qp() and
 * the like, and read the object's members).
 */
#ifndef IBSTACK_RDMA_RESTRACK_H
#define IBSTACK_RDMA_RESTRACK_H

#include <ibstack/no_kernel_ib.h>
#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/module.h>
#include <linux/types.h>

struct ib_device;
struct task_struct;
/* a device's tables (ib_device.res), ib_core's own */
struct rdma_restrack_root;

/* What is tracked; 6.1's values and order (netlink's summary follows it). */
enum rdma_restrack_type {
	RDMA_RESTRACK_PD,
	RDMA_RESTRACK_CQ,
	RDMA_RESTRACK_QP,
	RDMA_RESTRACK_CM_ID,	/* rdma_cm's: nothing of ours has one */
	RDMA_RESTRACK_MR,
	RDMA_RESTRACK_CTX,	/* user contexts */
	RDMA_RESTRACK_COUNTER,	/* bound counters: none here */
	RDMA_RESTRACK_SRQ,
	RDMA_RESTRACK_MAX
};

/*
 * The entry embedded in each tracked object.  ib_core writes it; for the
 * others it is read-only, and meaningful while valid is set or while they
 * hold a reference.
 */
struct rdma_restrack_entry {
	/* listed in the device's table (between its addition and deletion) */
	bool			valid;
	/* a creation's reference, and one per reader (rdma_restrack_get()) */
	struct kref		kref;
	/* completed when the last reference is put: the deletion waits for it */
	struct completion	comp;
	/*
	 * user objects: the task that created the object (a reference, given
	 * back at deletion); NULL for kernel objects
	 */
	struct task_struct	*task;
	/*
	 * kernel objects: the creating module's name (a copy: the module may
	 * be gone before a leaked object is reported); "" for user objects
	 */
	char			kern_name[MODULE_NAME_LEN];
	enum rdma_restrack_type	type;
	bool			user;
	/*
	 * the id user space sees (pdn, cqn, lqpn, mrn, ctxn, srqn): a QP's
	 * number, with the port in bits 24..31 for QP0 and QP1; for the other
	 * types allocated cyclically from 0 per device and type
	 */
	u32			id;
};

/* [any] whether the entry belongs to a kernel object (else to a user's) */
static inline bool rdma_is_kernel_res(const struct rdma_restrack_entry *res)
{
	return !res->user;
}

/*
 * [any] Another reference on an entry the caller already holds one on
 * (or found under the table's lock); 0 if the entry is being deleted.
 */
int __must_check rdma_restrack_get(struct rdma_restrack_entry *res);
/* [any] Gives a reference back; 1 if it was the last one. */
int rdma_restrack_put(struct rdma_restrack_entry *res);

/*
 * [any but hard IRQ] The entry of type with this id on dev, with a
 * reference (put it with rdma_restrack_put()), or ERR_PTR(-ENOENT).
 */
struct rdma_restrack_entry *rdma_restrack_get_byid(struct ib_device *dev,
						   enum rdma_restrack_type type, u32 id);

/*
 * [any but hard IRQ] How many objects of type dev has now.  As 6.1's, it
 * counts every owner's (no PID namespace filter); show_details would add
 * driver-specific QPs (IB_QPT_DRIVER), which ib_core never creates.
 */
int rdma_restrack_count(struct ib_device *dev, enum rdma_restrack_type type,
			bool show_details);

#endif /* IBSTACK_RDMA_RESTRACK_H */

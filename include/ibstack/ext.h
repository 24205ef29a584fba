/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ibstack exports beyond Linux 6.1's kernel verbs API, under our own
 * ibstack_ names (docs/kernel-api.md, decision 3), and the one upstream
 * export that upstream keeps out of its public headers.  A ULP written for
 * 6.1 needs none of it; our tests and sysfs code do.
 */
#ifndef IBSTACK_EXT_H
#define IBSTACK_EXT_H

#include <ibstack/no_kernel_ib.h>
#include <rdma/ib_verbs.h>

/*
 * [sleep] A kernel MR over npages pages of (1 << page_shift) bytes each,
 * whose bus addresses are in pages[], mapped at iova for length bytes,
 * with the rights access (the first four IB_ACCESS_* bits and MW_BIND).  For tests
 * that need a static MR of more pages than fast registration allows.
 * Release it with ib_dereg_mr().
 */
struct ib_mr *ibstack_reg_kernel_mr(struct ib_pd *pd, const u64 *pages, int npages,
				    int page_shift, u64 iova, u64 length, int access);

/*
 * Memory windows, for tests: Linux 6.1 gives kernel ULPs no calls for them
 * (uverbs reaches the driver's alloc_mw/dealloc_mw).
 *
 * [sleep] A window of the given type on the PD, its rkey set by the
 * driver, or ERR_PTR(): -EOPNOTSUPP if the device has no windows of that
 * type (IB_DEVICE_MEM_WINDOW, IB_DEVICE_MEM_WINDOW_TYPE_2A/2B), -EINVAL for
 * another type.  It counts as a user of the PD until deallocated.
 */
struct ib_mw *ibstack_alloc_mw(struct ib_pd *pd, enum ib_mw_type type);
/* [sleep] 0, or the driver's error (the window is kept then) */
int ibstack_dealloc_mw(struct ib_mw *mw);

/*
 * An IB_WR_BIND_MW work request (RC and UC QPs of the window's PD): bind
 * mw to [addr, addr + length) of mr, an MR of the same PD registered with
 * IB_ACCESS_MW_BIND, giving remote peers the rights in access
 * (IB_ACCESS_REMOTE_READ, _REMOTE_WRITE, _REMOTE_ATOMIC; IB_ZERO_BASED
 * makes remote addresses offsets into the window) under rkey: the
 * window's key with the low byte changed (ib_inc_rkey(mw->rkey)).  It
 * completes as IB_WC_BIND_MW, or IB_WC_MW_BIND_ERR if the card refuses it
 * (the QP goes to the error state).  The caller sets mw->rkey = rkey once
 * it wants the window known by its new key; nothing else changes mw.
 * Binding a type 1 window again replaces its range; a type 2 window binds
 * only when free (new, or after LOCAL_INV or a SEND with Invalidate of its
 * key), and then answers only on the QP that bound it.  Remote write or
 * atomic rights need an MR with local write.
 */
struct ibstack_bind_mw_wr {
	struct ib_send_wr	wr;
	struct ib_mw		*mw;
	struct ib_mr		*mr;
	u32			rkey;
	u64			addr;
	u64			length;
	unsigned int		access;
};

/* [any] the bind request a send WR with opcode IB_WR_BIND_MW is part of */
static inline const struct ibstack_bind_mw_wr *ibstack_bind_mw_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ibstack_bind_mw_wr, wr);
}

/*
 * A send on an XRC initiator QP (IB_QPT_XRC_INI) names the XRC SRQ of the
 * target's domain that takes the receive (its ib_srq's ext.xrc.srq_num).
 * Linux 6.1's ib_send_wr has no field for it (its XRC sends come from user
 * space), so for tests every work request posted on an XRC initiator must
 * be the wr.wr of one of these: SEND and SEND_WITH_IMM fill wr.wr,
 * RDMA_WRITE(_WITH_IMM) and RDMA_READ also remote_addr and rkey.  mlx4_ib
 * reads remote_srqn for XRC initiators only; no other driver reads it.
 */
struct ibstack_xrc_wr {
	struct ib_rdma_wr	wr;
	u32			remote_srqn;
};

static inline const struct ibstack_xrc_wr *ibstack_xrc_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ibstack_xrc_wr, wr.wr);
}

/* [any] "DOWN", "ACTIVE", ... as the port's sysfs state file shows it */
const char *ibstack_port_state_str(enum ib_port_state state);

/*
 * [any] The port's subnet prefix (host order) from the cache; -EINVAL for
 * an invalid port.  Upstream exports it from ib_core too, but declares it
 * in its core's private header only.
 */
int ib_get_cached_subnet_prefix(struct ib_device *device, u32 port_num, u64 *sn_pfx);

/*
 * [sleep] For clients: add groups of struct ib_port_attribute
 * (<rdma/ib_sysfs.h>) to a port's directory, from the client's add(), and
 * remove them again in its remove().  Upstream exports both from ib_core
 * and declares them in its core's private header only.
 */
int ib_port_register_client_groups(struct ib_device *ibdev, u32 port_num,
				   const struct attribute_group **groups);
void ib_port_unregister_client_groups(struct ib_device *ibdev, u32 port_num,
				      const struct attribute_group **groups);

/*
 * Resource tracking beyond 6.1's <rdma/restrack.h>, for RDMA netlink's
 * resource dumps and for tests (docs/restrack.md).
 *
 * [any but hard IRQ] The entry of type on dev with the lowest id >= *id,
 * with a reference (rdma_restrack_put() it), *id set to its id; NULL when
 * there is none.  A dump that resumes walks on from the last id + 1:
 *
 *	for (id = start; (res = ibstack_restrack_next(dev, type, &id)); id++) {
 *		...
 *		rdma_restrack_put(res);
 *	}
 *
 * Entries come in id order; one added or deleted during the walk may or
 * may not be seen.
 */
struct rdma_restrack_entry *ibstack_restrack_next(struct ib_device *dev,
						  enum rdma_restrack_type type,
						  unsigned long *id);
/*
 * [any] A user entry's task as the caller's PID namespace sees it
 * (task_pid_vnr(): 0 if the task is not visible there, or has exited);
 * 0 for a kernel entry.  The caller holds a reference on the entry.
 */
pid_t ibstack_restrack_pid(const struct rdma_restrack_entry *res);
/*
 * [any] The owner's name into buf (size bytes, NUL-terminated): a user
 * entry's task's comm, a kernel entry's module name; returns buf.
 */
const char *ibstack_restrack_comm(const struct rdma_restrack_entry *res, char *buf,
				  size_t size);
/*
 * [any] The restrack id of the user context a user object (PD, CQ, QP, MR,
 * SRQ) was created in, or a context's own id, into *ctxn; -ENOENT for a
 * kernel object or one whose context is not tracked.  The caller holds a
 * reference on the entry.
 */
int ibstack_restrack_ctxn(const struct rdma_restrack_entry *res, u32 *ctxn);

/* ---------------------------------------------------------------------- */
/*
 * ib_core's side of ib_uverbs (core/uobj.c, core/umap.c).  Upstream keeps
 * these inside one module; ours are two, so ib_core exports them to
 * ib_uverbs alone.  ib_core fills the common members of each object as
 * for kernel objects, with uobject set, before the object is returned;
 * the driver's part of the command and response is udata.  Each returns
 * the object or ERR_PTR() (-EOPNOTSUPP for a driver without the op); the
 * checks are those of the kernel verbs (rate-limited log line, errno).
 */
struct ib_uverbs_file;
struct ib_umap_set;

/*
 * [sleep] The record of a file's mappings: one reference for the file,
 * one taken by each mapping and given back when it is unmapped.
 */
struct ib_umap_set *ibstack_umap_set_alloc(void);
void ibstack_umap_set_put(struct ib_umap_set *set);
/*
 * [sleep] Revoke every mapping of the set (the device is going away):
 * their page-table entries are zapped, and a later touch of one finds a
 * page of zeroes (writes are lost), as upstream's disassociate does, so
 * that a program still writing a doorbell does not die of it.  New
 * rdma_user_mmap_io() calls on the set fail with -EIO from then on.
 */
void ibstack_umap_revoke(struct ib_umap_set *set);

/* [sleep] the driver's alloc_ucontext, then device, ufile and umaps set */
struct ib_ucontext *ibstack_alloc_ucontext(struct ib_device *device,
					   struct ib_uverbs_file *ufile,
					   struct ib_umap_set *umaps,
					   struct ib_udata *udata);
/* [sleep] the driver's disassociate_ucontext (if any) */
void ibstack_disassociate_ucontext(struct ib_ucontext *ucontext);
/* [sleep] the driver's dealloc_ucontext */
void ibstack_dealloc_ucontext(struct ib_ucontext *ucontext);

/* [sleep] released with ib_dealloc_pd_user() */
struct ib_pd *ibstack_alloc_pd_user(struct ib_device *device, struct ib_uobject *uobj,
				    struct ib_udata *udata);
/* [sleep] released with ib_destroy_cq_user(); attr->flags as 6.1 checks them */
struct ib_cq *ibstack_create_cq_user(struct ib_device *device,
				     const struct ib_cq_init_attr *attr,
				     ib_comp_handler comp_handler,
				     void (*event_handler)(struct ib_event *, void *),
				     void *cq_context, struct ib_uobject *uobj,
				     struct ib_udata *udata);
/* [sleep] the driver's resize_cq with udata; -EINVAL below the CQEs in use */
int ibstack_resize_cq_user(struct ib_cq *cq, int cqe, struct ib_udata *udata);
/*
 * [sleep] A QP for user space.  pd is NULL for IB_QPT_XRC_TGT, which is
 * created in attr->xrcd's domain and returned as a handle on it (as
 * ib_open_qp() gives: released with ib_destroy_qp_user(), the QP with its
 * last handle).  Released with ib_destroy_qp_user().
 */
struct ib_qp *ibstack_create_qp_user(struct ib_device *device, struct ib_pd *pd,
				     struct ib_qp_init_attr *attr, struct ib_uobject *uobj,
				     struct ib_udata *udata);
/* [sleep] ib_modify_srq() with udata */
int ibstack_modify_srq_user(struct ib_srq *srq, struct ib_srq_attr *attr,
			    enum ib_srq_attr_mask mask, struct ib_udata *udata);
/* [sleep] the driver's reg_user_mr; released with ib_dereg_mr_user() */
struct ib_mr *ibstack_reg_user_mr(struct ib_pd *pd, u64 start, u64 length, u64 virt,
				  int access, struct ib_uobject *uobj, struct ib_udata *udata);
/*
 * [sleep] the driver's rereg_user_mr; on success the MR's pd (and the
 * old and new PDs' use counts), iova and length follow the flags
 */
int ibstack_rereg_user_mr(struct ib_mr *mr, int flags, u64 start, u64 length, u64 virt,
			  int access, struct ib_pd *pd, struct ib_udata *udata);
/* [sleep] ibstack_alloc_mw() with uobj and udata; released with ibstack_dealloc_mw() */
struct ib_mw *ibstack_alloc_mw_user(struct ib_pd *pd, enum ib_mw_type type,
				    struct ib_uobject *uobj, struct ib_udata *udata);

/*
 * What a client's get_nl_info() or get_global_nl_info() (struct ib_client)
 * fills for RDMA netlink's GET_CHARDEV: upstream's shape, kept out of its
 * public headers too.  port is the port asked about, or (u32)-1 for the
 * device as a whole; the client sets cdev (its struct device, whose devt
 * and name are sent, with a reference the client took: ib_core puts it)
 * and abi, and may add attributes to nl_msg (uverbs: its driver id).
 * Called under the client's LIVE state on the device (not concurrently
 * with its remove()).
 */
struct ib_client_nl_info {
	struct sk_buff	*nl_msg;
	struct device	*cdev;
	u32		port;
	u64		abi;
};

#endif /* IBSTACK_EXT_H */

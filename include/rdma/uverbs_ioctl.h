/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a driver sees of a user command (6.1's <rdma/uverbs_ioctl.h>, the
 * part drivers use): ib_uverbs passes the driver's part of a command as
 * the driver_udata of a bundle, and a driver finds the command's user
 * context from its udata.  ibstack has no ioctl() methods: every command
 * arrives by write() (docs/uverbs.md).
 */
#ifndef IBSTACK_RDMA_UVERBS_IOCTL_H
#define IBSTACK_RDMA_UVERBS_IOCTL_H

#include <ibstack/no_kernel_ib.h>
#include <rdma/ib_verbs.h>

/* One command in flight: built by ib_uverbs on its stack, per write() */
struct uverbs_attr_bundle {
	struct ib_udata		driver_udata;	/* the driver's in and out parts */
	struct ib_udata		ucore;		/* ib_uverbs' own parts */
	struct ib_uverbs_file	*ufile;
	struct ib_ucontext	*context;	/* NULL before GET_CONTEXT */
	struct ib_uobject	*uobject;	/* the object being created, if any */
};

/* [any] the user context of the command udata belongs to; NULL for NULL */
static inline struct ib_ucontext *ibstack_udata_context(struct ib_udata *udata)
{
	if (!udata)
		return NULL;
	return container_of(udata, struct uverbs_attr_bundle, driver_udata)->context;
}

/* [any] the structure around a command's context, offset bytes before it; NULL for none */
static inline void *__ibstack_udata_drv_context(struct ib_udata *udata, size_t offset)
{
	struct ib_ucontext *uctx = ibstack_udata_context(udata);

	return uctx ? (void *)((char *)uctx - offset) : NULL;
}

/*
 * [any] The driver's context structure (of type drv_dev_struct, which embeds
 * the ib_ucontext as member) of a user command's udata; NULL for a kernel
 * caller's NULL udata.
 */
#define rdma_udata_to_drv_context(udata, drv_dev_struct, member)		\
	((typeof(drv_dev_struct) *)__ibstack_udata_drv_context(udata,		\
		offsetof(typeof(drv_dev_struct), member)))

#endif /* IBSTACK_RDMA_UVERBS_IOCTL_H */

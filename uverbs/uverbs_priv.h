/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_uverbs' private structures: one uv_device per ib_device (the
 * uverbsN character device), one ib_uverbs_file per open uverbsN, one
 * uv_uobj per object user space created, one uv_event_file per event file
 * (the async event file of a context, each completion channel).
 *
 * Lifetime: the uv_device lives as long as its class device (dev); ib_uverbs'
 * client holds one reference from add() to remove(), each open file one.
 * The ib_device may be used only while uv_device.ib_dev is set, i.e. by a
 * file that is not disassociated (ib_uverbs_file.ib_dev, under hw_rwsem).
 * An event file is reference counted: its struct file holds one, the
 * uverbs file one (async file, and the channel list), each CQ on a
 * channel one.
 *
 * Lock order: uv_device.lists_mutex, then ib_uverbs_file.hw_rwsem, then
 * ib_uverbs_file.ctx_mutex, then uv_device.xrcd_mutex, then the xarray's
 * lock and uv_event_file.lock (taken with interrupts off: handlers may
 * run in interrupt context).
 */
#ifndef IBSTACK_UVERBS_PRIV_H
#define IBSTACK_UVERBS_PRIV_H

#include <ibstack/no_kernel_ib.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/ib_user_verbs.h>
#include <ibstack/ext.h>

#define UV_MAX_DEVICES	32	/* uverbsN minors */

struct uv_device {
	struct device		dev;		/* uverbsN; its release frees us */
	struct cdev		cdev;
	int			devnum;
	/*
	 * Protects ib_dev (NULL once the device is removed) and file_list;
	 * held by remove() while it disassociates every file.
	 */
	struct mutex		lists_mutex;
	struct ib_device	*ib_dev;
	struct list_head	file_list;	/* ib_uverbs_file.dev_list */
	/* protects xrcd_list: the XRC domains shared by inode (OPEN_XRCD) */
	struct mutex		xrcd_mutex;
	struct list_head	xrcd_list;	/* uv_xrcd_ent.list */
};

/* An XRC domain opened through a file's inode: every OPEN_XRCD on it shares it */
struct uv_xrcd_ent {
	struct list_head	list;
	struct inode		*inode;		/* held (igrab) */
	struct ib_xrcd		*xrcd;
	unsigned int		refs;		/* XRCD handles on it, any file */
};

/* An event file: a context's async event file, or a completion channel */
struct uv_event_file {
	struct kref		kref;
	/* protects events, closed and the event counters of the objects */
	spinlock_t		lock;
	struct list_head	events;		/* uv_event.list, for read() */
	wait_queue_head_t	wait;
	bool			closed;		/* the device is gone: -EIO when empty */
	bool			is_async;
	struct ib_uverbs_file	*ufile;		/* the creator (identity only) */
	struct list_head	chan_list;	/* channels: in ib_uverbs_file.channels */
};

struct uv_event {
	struct list_head	list;		/* in uv_event_file.events */
	struct list_head	obj_list;	/* in the object's queued list */
	u32			*counter;	/* the object's, ++ when read; or NULL */
	union {
		struct ib_uverbs_async_event_desc	async;
		struct ib_uverbs_comp_event_desc	comp;
	} desc;
};

struct uv_uobj;

/* What an object type does: its name (logs) and how it is destroyed */
struct uv_type {
	const char	*name;
	/*
	 * [sleep] Destroys the object's hardware part; -EBUSY (or another
	 * error) keeps it.  cleanup: the file is going away (close, exit,
	 * disassociate), not an explicit DESTROY.
	 */
	int		(*destroy)(struct uv_uobj *obj, struct uverbs_attr_bundle *attrs,
				   bool cleanup);
};

extern const struct uv_type uv_type_pd, uv_type_mr, uv_type_mw,
	uv_type_cq, uv_type_qp, uv_type_srq, uv_type_xrcd;

/*
 * One object of a file.  uobj.id is its handle; uobj.object the ib_pd,
 * ib_cq, ...; uobj.usecnt > 0 while commands use it, -1 while one
 * destroys it.  The event members are under the event file's lock.
 */
struct uv_uobj {
	struct ib_uobject	uobj;
	struct list_head	async_events;	/* its events queued on the async file */
	u32			async_reported;	/* its async events read */
	/* CQs */
	struct uv_event_file	*channel;	/* held; or NULL */
	struct list_head	comp_events;	/* its events queued on the channel */
	u32			comp_reported;
	/* QPs and SRQs on an XRC domain handle: that handle */
	struct uv_uobj		*xrcd_obj;
	/* XRC domain handles */
	struct uv_xrcd_ent	*xent;
	atomic_t		xrcd_users;	/* QPs and SRQs made through it */
	/* QPs: multicast attachments (uv_mcast), under the QP's exclusive or shared use */
	struct mutex		mcast_mutex;
	struct list_head	mcast_list;
	/* QPs: the port the last successful MODIFY_QP with IB_QP_PORT set */
	u32			qp_port;
};

static inline struct uv_uobj *uv_obj(struct ib_uobject *uobj)
{
	return container_of(uobj, struct uv_uobj, uobj);
}

/* An open /dev/infiniband/uverbsN */
struct ib_uverbs_file {
	struct uv_device	*uvdev;		/* held (its dev) */
	struct list_head	dev_list;	/* in uvdev->file_list */
	/*
	 * Held shared by every command and mmap, exclusively while the file's
	 * objects and context are destroyed (close, disassociate).  Protects
	 * ib_dev (NULL once the file is cleaned up: commands get -EIO),
	 * ucontext, async_file and handler_on.
	 */
	struct rw_semaphore	hw_rwsem;
	struct ib_device	*ib_dev;
	bool			cleaned;
	/* serialises GET_CONTEXT (ucontext is set once) */
	struct mutex		ctx_mutex;
	struct ib_ucontext	*ucontext;
	struct ib_umap_set	*umaps;		/* ours, with the context */
	struct uv_event_file	*async_file;	/* held, with the context */
	struct ib_event_handler	event_handler;	/* port and device events */
	bool			handler_on;
	/* the objects: id -> ib_uobject (NULL while being created) */
	struct xarray		objects;
	/* protects obj_list (creation order) and channels */
	spinlock_t		list_lock;
	struct list_head	obj_list;	/* ib_uobject.list */
	struct list_head	channels;	/* uv_event_file.chan_list */
};

/* A multicast group a QP is attached to */
struct uv_mcast {
	struct list_head	list;
	union ib_gid		gid;
	u16			lid;
};

/* main.c */
extern struct class uv_class;

/* file.c */
extern const struct file_operations uv_fops;
void uv_file_cleanup(struct ib_uverbs_file *ufile, bool device_gone);
int uv_request(struct uverbs_attr_bundle *attrs, void *req, size_t len);
int uv_check_ex(struct uverbs_attr_bundle *attrs, u32 comp_mask, u32 known, u32 reserved);
int uv_response(struct uverbs_attr_bundle *attrs, const void *resp, size_t len);
size_t uv_response_length(struct uverbs_attr_bundle *attrs, size_t len);

/* uobj.c */
struct uv_uobj *uv_uobj_alloc(struct uverbs_attr_bundle *attrs, const struct uv_type *type);
void uv_uobj_abort(struct uv_uobj *obj);
void uv_uobj_commit(struct uv_uobj *obj);
struct uv_uobj *uv_uobj_get(struct ib_uverbs_file *ufile, const struct uv_type *type,
			    u32 id, bool exclusive);
void uv_uobj_put(struct uv_uobj *obj, bool exclusive);
void *uv_get_object(struct ib_uverbs_file *ufile, const struct uv_type *type, u32 id,
		    struct uv_uobj **objp, int *err);
int uv_uobj_destroy(struct uverbs_attr_bundle *attrs, const struct uv_type *type,
		    u32 id, struct uv_uobj **objp);
void uv_uobj_free(struct uv_uobj *obj);
void uv_destroy_all(struct ib_uverbs_file *ufile, struct uverbs_attr_bundle *attrs);

/* event.c */
struct uv_event_file *uv_event_file_new(struct ib_uverbs_file *ufile, bool is_async,
					struct file **filp);
void uv_event_file_put(struct uv_event_file *ev);
void uv_event_file_close(struct uv_event_file *ev);
struct uv_event_file *uv_channel_get(struct ib_uverbs_file *ufile, int fd);
void uv_async_event(struct ib_uverbs_file *ufile, u64 element, u32 event,
		    struct uv_uobj *obj);
void uv_purge_events(struct ib_uverbs_file *ufile, struct uv_uobj *obj);
void uv_port_event_handler(struct ib_event_handler *handler, struct ib_event *event);
void uv_comp_handler(struct ib_cq *cq, void *cq_context);
void uv_cq_event_handler(struct ib_event *event, void *context);
void uv_qp_event_handler(struct ib_event *event, void *context);
void uv_srq_event_handler(struct ib_event *event, void *context);

/* the commands (cmd_*.c): each returns 0 or -errno */
int uv_cmd_get_context(struct uverbs_attr_bundle *attrs);
int uv_cmd_query_device(struct uverbs_attr_bundle *attrs);
int uv_cmd_query_port(struct uverbs_attr_bundle *attrs);
int uv_cmd_ex_query_device(struct uverbs_attr_bundle *attrs);
int uv_cmd_create_comp_channel(struct uverbs_attr_bundle *attrs);
int uv_cmd_alloc_pd(struct uverbs_attr_bundle *attrs);
int uv_cmd_dealloc_pd(struct uverbs_attr_bundle *attrs);
int uv_cmd_reg_mr(struct uverbs_attr_bundle *attrs);
int uv_cmd_rereg_mr(struct uverbs_attr_bundle *attrs);
int uv_cmd_dereg_mr(struct uverbs_attr_bundle *attrs);
int uv_cmd_alloc_mw(struct uverbs_attr_bundle *attrs);
int uv_cmd_dealloc_mw(struct uverbs_attr_bundle *attrs);
int uv_cmd_open_xrcd(struct uverbs_attr_bundle *attrs);
int uv_cmd_close_xrcd(struct uverbs_attr_bundle *attrs);
int uv_cmd_create_cq(struct uverbs_attr_bundle *attrs);
int uv_cmd_ex_create_cq(struct uverbs_attr_bundle *attrs);
int uv_cmd_resize_cq(struct uverbs_attr_bundle *attrs);
int uv_cmd_destroy_cq(struct uverbs_attr_bundle *attrs);
int uv_cmd_ex_modify_cq(struct uverbs_attr_bundle *attrs);
int uv_cmd_create_qp(struct uverbs_attr_bundle *attrs);
int uv_cmd_ex_create_qp(struct uverbs_attr_bundle *attrs);
int uv_cmd_open_qp(struct uverbs_attr_bundle *attrs);
int uv_cmd_query_qp(struct uverbs_attr_bundle *attrs);
int uv_cmd_modify_qp(struct uverbs_attr_bundle *attrs);
int uv_cmd_ex_modify_qp(struct uverbs_attr_bundle *attrs);
int uv_cmd_destroy_qp(struct uverbs_attr_bundle *attrs);
int uv_cmd_attach_mcast(struct uverbs_attr_bundle *attrs);
int uv_cmd_detach_mcast(struct uverbs_attr_bundle *attrs);
int uv_cmd_create_srq(struct uverbs_attr_bundle *attrs);
int uv_cmd_create_xsrq(struct uverbs_attr_bundle *attrs);
int uv_cmd_modify_srq(struct uverbs_attr_bundle *attrs);
int uv_cmd_query_srq(struct uverbs_attr_bundle *attrs);
int uv_cmd_destroy_srq(struct uverbs_attr_bundle *attrs);

/* rate-limited log line of a refused command */
#define uv_dbg(ufile, fmt, ...)						\
	dev_dbg_ratelimited(&(ufile)->uvdev->dev, "%s: " fmt, __func__, ##__VA_ARGS__)

#endif /* IBSTACK_UVERBS_PRIV_H */

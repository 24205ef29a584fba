/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_cm's private structures.
 *
 * Events: every call of a consumer's handler, whatever caused it (a
 * received message, a send that ran out of retries, time wait's end,
 * ib_cm_notify), runs from one work item on cm.wq, an ordered workqueue:
 * so a cm_id never sees two events at once, and sees them in order.  A
 * queued work item holds no reference on any cm_id; it finds its cm_id by
 * local (and remote) ID when it runs, so that ib_destroy_cm_id() never
 * waits for the workqueue.
 *
 * Lifetimes: a cm_id_private is reference counted (cm_id_put); the
 * consumer's reference is dropped by ib_destroy_cm_id(), which then waits
 * for the others (a send outstanding, a handler running) to go.  Its
 * time-wait record (struct cm_timewait_info) outlives it: after the
 * consumer lets go, the record keeps the connection's remote IDs in the
 * tables until time wait ends, and is freed by its own work.  A
 * cm_device is reference counted too: cm_ids and sends keep their port's.
 *
 * Lock order: a cm_id's lock, then cm.lock (the tables, the devices
 * list), then cm.local_ids' xarray lock; all are spinlocks taken with
 * interrupts off (ib_cm_notify() may be called from any context).
 */
#ifndef IBSTACK_CM_PRIV_H
#define IBSTACK_CM_PRIV_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_cm.h>
#include "cm_msgs.h"

#define CM_PFX "ib_cm: "

#define cm_warn_rl(fmt, ...) pr_warn_ratelimited(CM_PFX fmt, ##__VA_ARGS__)

/* the sysfs counter groups, each a directory of the port */
enum cm_counter_group {
	CM_RECV,
	CM_XMIT,
	CM_XMIT_RETRIES,
	CM_RECV_DUPLICATES,
	CM_COUNTER_GROUPS
};

/* one counter per attribute, in attribute ID order (0x10 REQ ... 0x1a APR) */
#define CM_ATTR_FIRST		0x10
#define CM_ATTR_COUNT		11

struct cm_device;

struct cm_port {
	struct cm_device	*cm_dev;
	struct ib_mad_agent	*agent;
	u32			port_num;
	atomic_long_t		counters[CM_COUNTER_GROUPS][CM_ATTR_COUNT];
};

struct cm_device {
	struct kref		ref;
	struct list_head	list;		/* cm.devices (cm.lock) */
	struct ib_device	*ib_device;
	u8			ack_delay;	/* the CA's, IBA time value */
	bool			going_down;	/* cm.lock: no new sends */
	u32			num_ports;
	struct cm_port		*port[];	/* [port - 1]; NULL: no CM there */
};

/* where a cm_id's messages go: a port and an address vector */
struct cm_av {
	struct cm_port		*port;
	struct rdma_ah_attr	ah_attr;
	u16			pkey_index;
	u8			timeout;	/* the QP's ACK timeout, IBA value */
};

/*
 * Time wait of one connection: keeps its remote IDs in the tables after
 * the connection ended (so that a late or stale REQ is recognised) until
 * the wait is over.
 */
struct cm_timewait_info {
	struct delayed_work	work;		/* the wait's end (cm.wq) */
	struct list_head	list;		/* cm.timewait_list (cm.lock) */
	struct rb_node		remote_qp_node;	/* cm.remote_qp_tree */
	struct rb_node		remote_id_node;	/* cm.remote_id_tree */
	__be64			remote_ca_guid;
	__be32			remote_qpn;
	__be32			local_id;
	__be32			remote_id;
	bool			in_remote_qp;	/* cm.lock: in the tree */
	bool			in_remote_id;
	bool			waiting;	/* cm.lock: queued on cm.wq */
};

struct cm_id_private {
	struct ib_cm_id		id;

	/* cm.lock: the tables */
	struct rb_node		service_node;	/* listeners: cm.listen_tree */
	struct rb_node		sidr_node;	/* SIDR REQs being answered */
	bool			in_sidr_tree;
	int			listen_sharecount;
	u16			sidr_slid;	/* with id.remote_id: the SIDR key */

	refcount_t		refcount;
	struct completion	comp;		/* the last reference went */

	/*
	 * lock: id.state, id.lap_state, msg and everything below; held only
	 * briefly (never across a handler call or a send).
	 */
	spinlock_t		lock;
	struct ib_mad_send_buf	*msg;		/* waiting for its answer */
	struct cm_timewait_info	*timewait_info;
	/* the private data of our last MRA or DREP, sent again for a duplicate */
	void			*reply_data;
	u8			reply_data_len;

	struct cm_av		av;
	struct cm_av		alt_av;
	__be64			tid;
	__be32			local_qpn;
	__be32			remote_qpn;
	enum ib_qp_type		qp_type;
	__be32			sq_psn;
	__be32			rq_psn;
	int			timeout_ms;	/* each try of msg */
	enum ib_mtu		path_mtu;
	__be16			pkey;
	u8			max_cm_retries;
	u8			responder_resources;
	u8			initiator_depth;
	u8			retry_count;
	u8			rnr_retry_count;
	u8			service_timeout;
	u8			target_ack_delay;
	bool			srq;
};

/* what a work item on cm.wq does */
enum cm_work_kind {
	CM_WORK_RECV,		/* a received message (mad_recv_wc) */
	CM_WORK_SEND_ERROR,	/* a send ran out of retries (or failed) */
	CM_WORK_ESTABLISHED,	/* ib_cm_notify(IB_EVENT_COMM_EST) */
	CM_WORK_MIGRATED,	/* ib_cm_notify(IB_EVENT_PATH_MIG) */
};

struct cm_work {
	struct work_struct	work;
	enum cm_work_kind	kind;
	struct cm_port		*port;		/* with a cm_device reference */
	struct ib_mad_recv_wc	*mad_recv_wc;	/* CM_WORK_RECV */
	/* the local events: which cm_id (local ID) and what */
	__be32			local_id;
	enum ib_cm_state	state;		/* the send's state (errors) */
	enum ib_wc_status	status;
	struct sa_path_rec	path[2];	/* a REQ's or LAP's paths */
};

/* the module's globals (main.c) */
struct ib_cm_globals {
	spinlock_t		lock;		/* everything below */
	struct list_head	devices;
	struct rb_root		listen_tree;
	struct rb_root		remote_id_tree;
	struct rb_root		remote_qp_tree;
	struct rb_root		sidr_tree;
	struct xarray		local_ids;	/* local ID ^ random -> cm_id */
	u32			local_id_next;
	__be32			random_id_operand;
	__be64			next_service_id; /* IB_CM_ASSIGN_SERVICE_ID */
	struct list_head	timewait_list;
	struct workqueue_struct	*wq;
};

extern struct ib_cm_globals cm;

/* main.c */
void cm_device_put(struct cm_device *cm_dev);
struct cm_port *cm_port_of(struct ib_device *device, u32 port_num);
void cm_count(struct cm_port *port, enum cm_counter_group group, __be16 attr_id,
	      long n);

/* id.c */
struct cm_id_private *cm_id_acquire(__be32 local_id, __be32 remote_id);
void cm_id_get(struct cm_id_private *cm_id_priv);
void cm_id_put(struct cm_id_private *cm_id_priv);
struct cm_id_private *cm_listener_find(struct ib_device *device, __be64 service_id);
struct cm_timewait_info *cm_timewait_alloc(__be32 local_id);
void cm_enter_timewait(struct cm_id_private *cm_id_priv);
void cm_timewait_flush(void);
struct cm_timewait_info *cm_remote_id_insert(struct cm_timewait_info *tw);
struct cm_timewait_info *cm_remote_qp_insert(struct cm_timewait_info *tw);
struct cm_id_private *cm_find_remote_id(__be64 guid, __be32 remote_id);
void cm_remote_tables_remove(struct cm_timewait_info *tw);
struct cm_id_private *cm_sidr_insert(struct cm_id_private *cm_id_priv);
void cm_sidr_remove(struct cm_id_private *cm_id_priv);
void cm_destroy_id(struct ib_cm_id *cm_id, int err);

/* send.c */
struct ib_mad_send_buf *cm_alloc_msg(struct cm_id_private *cm_id_priv);
struct ib_mad_send_buf *cm_alloc_response(struct cm_port *port,
					  struct ib_mad_recv_wc *mad_recv_wc);
void cm_format_hdr(struct ib_mad_send_buf *msg, __be16 attr_id, __be64 tid);
int cm_post(struct ib_mad_send_buf *msg);
void cm_free_msg(struct ib_mad_send_buf *msg);
u8 *cm_data(struct ib_mad_send_buf *msg);
void cm_send_handler(struct ib_mad_agent *agent, struct ib_mad_send_wc *wc);
int cm_convert_to_ms(u8 iba_time);
u8 cm_ack_timeout(u8 ca_ack_delay, u8 packet_life_time);
/* [sleep] Drop an AV: its source GID attribute and its device reference. */
void cm_av_put(struct cm_av *av);
int cm_init_av_by_path(struct sa_path_rec *path, struct cm_av *av,
		       struct ib_device *device);
int cm_init_av_for_response(struct cm_port *port, struct ib_wc *wc,
			    struct ib_grh *grh, struct cm_av *av);
void cm_issue_rej(struct cm_port *port, struct ib_mad_recv_wc *mad_recv_wc,
		  enum ib_cm_rej_reason reason, enum cm_msg_response msg_rejected,
		  const void *ari, u8 ari_length);
void cm_issue_drep(struct cm_port *port, struct ib_mad_recv_wc *mad_recv_wc);

/* recv.c */
void cm_recv_handler(struct ib_mad_agent *agent, struct ib_mad_send_buf *send_buf,
		     struct ib_mad_recv_wc *mad_recv_wc);
void cm_queue_local(struct cm_id_private *cm_id_priv, enum cm_work_kind kind,
		    enum ib_wc_status status);
int cm_deliver(struct cm_id_private *cm_id_priv, struct ib_cm_event *event);

/* conn.c, disc.c, sidr.c, lap.c: the received messages (cm.wq) */
void cm_req_handler(struct cm_work *work);
void cm_rep_handler(struct cm_work *work);
void cm_rtu_handler(struct cm_work *work);
void cm_mra_handler(struct cm_work *work);
void cm_rej_handler(struct cm_work *work);
void cm_dreq_handler(struct cm_work *work);
void cm_drep_handler(struct cm_work *work);
void cm_sidr_req_handler(struct cm_work *work);
void cm_sidr_rep_handler(struct cm_work *work);
void cm_lap_handler(struct cm_work *work);
void cm_apr_handler(struct cm_work *work);
/* a local event: a send error, ib_cm_notify() */
void cm_local_handler(struct cm_work *work);
/* answers again to a duplicate */
void cm_resend_rtu(struct cm_id_private *cm_id_priv, struct ib_mad_recv_wc *rwc);
void cm_resend_mra(struct cm_id_private *cm_id_priv, struct ib_mad_recv_wc *rwc);

/* sysfs.c */
extern const struct attribute_group *cm_counter_groups[];
void cm_sysfs_init(void);

static inline struct cm_id_private *to_cm_id_priv(struct ib_cm_id *id)
{
	return container_of(id, struct cm_id_private, id);
}

#endif

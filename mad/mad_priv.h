/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_mad's private structures.
 *
 * Shape: one struct mad_dev per device (ib_client data), one struct
 * mad_port per port, each with its QP0 and QP1 (struct mad_qp), one CQ, and
 * an ordered work queue on which everything that may sleep or call an
 * agent runs: CQ polling and dispatch (port->cq_work), local processing of
 * SMPs (port->local_work), each agent's handler calls (agent->deliver_work)
 * and timeouts (agent->timeout_work).  Completion handlers only queue
 * port->cq_work.
 *
 * Locks (all spinlocks taken irqsave or _irq: sends may be posted from
 * any context):
 *	port->agent_lock	the port's agent list, responders, stopping;
 *				innermost: nothing else is taken under it
 *	agent->lock		an agent's sends, events, reassemblies and the
 *				state of its sends; outer to:
 *	  mqp->sq_lock		a QP's send queue (posted count, overflow)
 *	  port->local_lock	SMPs waiting for local processing
 *	mqp->rq_lock		a QP's posted receive buffers; innermost
 * The CQ work drops mqp->sq_lock before it takes an agent's lock.
 *
 * Lifetime of an agent: a reference for its registration, one for each
 * posted send (until send_handler has returned), one for each queued
 * receive; unregistration drops the first and waits for the rest.
 */
#ifndef IBSTACK_MAD_PRIV_H
#define IBSTACK_MAD_PRIV_H

#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_pma.h>
#include <linux/ratelimit.h>
#include <linux/workqueue.h>

#define MAD_NAME		"ib_mad"
#define MAD_RECV_RING		512	/* receive buffers posted per QP */
#define MAD_SEND_MAX		128	/* sends posted on one QP at a time */
#define MAD_GRH_SIZE		((int)sizeof(struct ib_grh))
#define MAD_RECV_BUF		(MAD_GRH_SIZE + IB_MGMT_MAD_SIZE)

#define mad_dbg_rl(fmt, ...)	pr_debug_ratelimited(MAD_NAME ": " fmt, ##__VA_ARGS__)
#define mad_warn_rl(fmt, ...)	pr_warn_ratelimited(MAD_NAME ": " fmt, ##__VA_ARGS__)

/* The wire layouts' sizes, checked at build time (called by ib_mad_init) */
static inline void ibstack_mad_wire_size_checks(void)
{
	BUILD_BUG_ON(sizeof(struct ib_mad_hdr) != IB_MGMT_MAD_HDR);
	BUILD_BUG_ON(sizeof(struct ib_mad) != IB_MGMT_MAD_SIZE);
	BUILD_BUG_ON(sizeof(struct ib_smp) != IB_MGMT_MAD_SIZE);
	BUILD_BUG_ON(sizeof(struct ib_pma_mad) != IB_MGMT_MAD_SIZE);
	BUILD_BUG_ON(sizeof(struct ib_pma_portcounters) != 44);
	BUILD_BUG_ON(sizeof(struct ib_grh) != 40);
	BUILD_BUG_ON(sizeof(struct ib_rmpp_mad) != IB_MGMT_MAD_SIZE);
	BUILD_BUG_ON(sizeof(struct ib_vendor_mad) != IB_MGMT_MAD_SIZE);
	BUILD_BUG_ON(sizeof(struct ib_class_port_info) != 72);
	BUILD_BUG_ON(sizeof(struct ib_mad_notice_attr) != 64);
	BUILD_BUG_ON(sizeof(struct ib_node_info) != 40);
	BUILD_BUG_ON(offsetof(struct ib_port_info, link_roundtrip_latency) != 57);
}

/* The vendor classes of range 2 (0x30-0x4f): with an OUI, RMPP allowed */
static inline bool mad_is_vendor_range2(u8 mgmt_class)
{
	return mgmt_class >= IB_MGMT_CLASS_VENDOR_RANGE2_START &&
	       mgmt_class <= IB_MGMT_CLASS_VENDOR_RANGE2_END;
}

struct mad_port;
struct mad_agent_priv;

/* An agent's pending handler call: a completed send or a receive. */
enum mad_event_kind {
	MAD_EV_SEND,
	MAD_EV_RECV,
};

struct mad_event {
	struct list_head	entry;		/* agent->events */
	enum mad_event_kind	kind;
};

/* One QP (QP0 or QP1) of a port. */
struct mad_qp {
	struct mad_port		*port;
	struct ib_qp		*qp;
	enum ib_qp_type		type;
	/* protects sq_posted and overflow; see the lock order above */
	spinlock_t		sq_lock;
	int			sq_posted;
	struct list_head	overflow;	/* struct mad_send_wr.qp_entry */
	/* protects rq_list: the receive buffers the QP holds */
	spinlock_t		rq_lock;
	struct list_head	rq_list;	/* struct mad_recv.entry */
	int			rq_posted;
};

struct mad_port {
	struct ib_device	*device;
	u32			port_num;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct mad_qp		qp[2];		/* [0] QP0 (SMI), [1] QP1 (GSI) */
	struct workqueue_struct	*wq;		/* ordered */
	struct work_struct	cq_work;
	bool			stopping;	/* no more cq_work (remove) */
	/* protects agents and stopping */
	spinlock_t		agent_lock;
	struct list_head	agents;		/* struct mad_agent_priv.port_entry */
	/* internal send-only agents of the responder, per QP */
	struct ib_mad_agent	*responder[2];
	/* protects local_list */
	spinlock_t		local_lock;
	struct list_head	local_list;	/* struct mad_send_wr.qp_entry */
	struct work_struct	local_work;
};

struct mad_dev {
	struct ib_device	*device;
	int			nports;
	struct mad_port		ports[];
};

/* An agent as ib_mad keeps it. */
struct mad_agent_priv {
	struct ib_mad_agent	agent;
	struct mad_port		*port;
	struct mad_qp		*mqp;
	struct ib_mad_reg_req	*reg;		/* NULL: send-only */
	struct list_head	port_entry;	/* port->agents */
	refcount_t		refs;		/* registration, sends, events, lookups */
	struct completion	released;	/* refs reached zero */
	/*
	 * Protects sends, events, dying, rmpp_recvs and the state of each
	 * send of the agent (struct mad_send_wr fields marked "agent lock").
	 */
	spinlock_t		lock;
	struct list_head	sends;		/* posted, not yet completed */
	struct list_head	events;		/* handler calls, in order */
	struct list_head	rmpp_recvs;	/* reassemblies (rmpp_recv.c) */
	bool			dying;
	struct work_struct	deliver_work;
	struct delayed_work	timeout_work;
};

/* A send as ib_mad keeps it; buf is what the caller sees. */
struct mad_send_wr {
	struct ib_mad_send_buf	buf;
	struct mad_agent_priv	*agent;
	u32			remote_qpn;
	u16			pkey_index;
	bool			rmpp;		/* segmented by ib_mad (rmpp_active) */
	bool			local;		/* processed here, never on the wire */
	/* agent lock */
	struct list_head	agent_entry;	/* agent->sends while posted */
	bool			posted;		/* between post and send_handler */
	bool			on_wire;	/* a WR (or local processing) is out */
	bool			timing;		/* waiting for a response until deadline */
	bool			responded;	/* the response has arrived */
	bool			done;		/* completion queued as an event */
	enum ib_wc_status	status;
	unsigned long		deadline;
	int			retries_left;
	int			max_retries;	/* buf.retries when posted */
	struct mad_event	ev;
	/* RMPP sender state (rmpp_send.c), agent lock */
	int			seg_last_sent;
	int			seg_last_ack;
	int			seg_window;	/* last segment the receiver allows */
	int			seg_xmit;	/* segment in the wire buffer */
	bool			rmpp_acked;	/* every segment acknowledged */
	/* the QP send queue: mqp->sq_lock (or port->local_lock) */
	struct list_head	qp_entry;
	/*
	 * The WR in flight.  Only wire is ever DMA-mapped: struct
	 * mad_send_wr always comes from kmalloc.  The caller's headers and
	 * payload (buf.mad) follow it for a single MAD; an RMPP message's
	 * may be larger than kmalloc gives and are a separate kvmalloc
	 * buffer that the device never sees (each segment is copied into
	 * wire before it is posted).
	 */
	dma_addr_t		wire_dma;
	u8			wire[IB_MGMT_MAD_SIZE] __aligned(8);
};

/* A receive buffer: a GRH and a MAD, handed to an agent as recv_wc. */
struct mad_recv {
	struct list_head	entry;		/* mqp->rq_list while posted */
	struct mad_qp		*mqp;
	dma_addr_t		dma;
	struct ib_mad_recv_wc	rwc;
	struct ib_wc		wc;
	struct mad_event	ev;
	struct ib_mad_send_buf	*match;		/* the request answered */
	u8			buf[MAD_RECV_BUF] __aligned(8);
};

static inline struct mad_agent_priv *to_agent(struct ib_mad_agent *a)
{
	return container_of(a, struct mad_agent_priv, agent);
}

static inline struct mad_send_wr *to_send_wr(struct ib_mad_send_buf *b)
{
	return container_of(b, struct mad_send_wr, buf);
}

static inline struct ib_mad_hdr *recv_hdr(struct mad_recv *r)
{
	return &r->rwc.recv_buf.mad->mad_hdr;
}

static inline int mad_qp_index(enum ib_qp_type type)
{
	return type == IB_QPT_SMI ? 0 : 1;
}

static inline bool mad_qp_type_is_smi(enum ib_qp_type type)
{
	return type == IB_QPT_SMI;
}

static inline bool mad_class_is_smp(u8 mgmt_class)
{
	return mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
	       mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
}

/* main.c */
extern struct ib_client mad_client;
struct mad_port *mad_get_port(struct ib_device *device, u32 port_num);

/* port.c */
int mad_port_open(struct mad_port *port, struct ib_device *device, u32 port_num);
void mad_port_close(struct mad_port *port);
void mad_port_kick(struct mad_port *port);

/* recv_ring.c */
struct mad_recv *mad_recv_alloc(gfp_t gfp);
void mad_recv_init(struct mad_recv *r);
int mad_recv_post(struct mad_qp *mqp, struct mad_recv *r);
int mad_recv_fill(struct mad_qp *mqp);
void mad_recv_unmap(struct mad_recv *r);
void mad_recv_drain(struct mad_qp *mqp);

/* agent.c */
struct ib_mad_agent *mad_register(struct mad_port *port, enum ib_qp_type qp_type,
				  struct ib_mad_reg_req *mad_reg_req, u8 rmpp_version,
				  ib_mad_send_handler send_handler,
				  ib_mad_recv_handler recv_handler,
				  void *context, u32 flags);
void mad_agent_get(struct mad_agent_priv *ap);
void mad_agent_put(struct mad_agent_priv *ap);
struct mad_agent_priv *mad_find_by_tid(struct mad_port *port, struct mad_qp *mqp,
				       const struct ib_mad_hdr *hdr);
struct mad_agent_priv *mad_find_by_method(struct mad_port *port, struct mad_qp *mqp,
					  const struct ib_mad *mad);
void mad_unregister_all(struct mad_port *port);

/* send.c */
int mad_xmit(struct mad_send_wr *sw);
void mad_sq_done(struct mad_qp *mqp, struct mad_send_wr *sw);
void mad_send_complete(struct mad_send_wr *sw, enum ib_wc_status status);
void mad_send_sent(struct mad_send_wr *sw, enum ib_wc_status status);
bool mad_send_waits_response(const struct mad_send_wr *sw);

/* timeout.c */
void mad_timeout_work(struct work_struct *work);
void mad_timer_arm(struct mad_agent_priv *ap, unsigned long deadline);
void mad_timing_start(struct mad_send_wr *sw, int timeout_ms);
struct mad_send_wr *mad_match_send(struct mad_agent_priv *ap,
				   const struct ib_mad_hdr *hdr);
void mad_response_arrived(struct mad_send_wr *sw);
void mad_cancel_all(struct mad_agent_priv *ap);

/* recv.c */
void mad_cq_work(struct work_struct *work);
void mad_dispatch(struct mad_port *port, struct mad_qp *mqp, struct mad_recv *r);
void mad_dispatch_local(struct mad_port *port, struct mad_qp *mqp, struct mad_recv *r);
void mad_deliver_matched(struct mad_agent_priv *ap, struct mad_recv *r);

/* smi.c */
enum mad_smi_verdict {
	MAD_SMI_DISCARD,
	MAD_SMI_HANDLE,
};

enum mad_smi_verdict mad_smi_send(struct ib_smp *smp, u32 port_num);
bool mad_smi_is_local(const struct ib_smp *smp);
bool mad_smi_incoming_for_us(struct ib_smp *smp, u32 port_num);
bool mad_smi_returning(const struct ib_smp *smp);

/* local.c */
void mad_local_work(struct work_struct *work);
void mad_local_queue(struct mad_send_wr *sw);

/* responder.c */
int mad_responder_open(struct mad_port *port);
void mad_responder_close(struct mad_port *port);
bool mad_responder(struct mad_port *port, struct mad_qp *mqp, struct mad_recv *r);
void mad_reply_unclaimed(struct mad_port *port, struct mad_qp *mqp, struct mad_recv *r);
void mad_send_back(struct mad_port *port, struct mad_qp *mqp, const struct ib_wc *wc,
		   const struct ib_grh *grh, const struct ib_mad *reply);

/* rmpp.c, rmpp_recv.c, rmpp_send.c */
#define MAD_RMPP_PAYLOAD	(IB_MGMT_MAD_SIZE - IB_MGMT_RMPP_HDR)	/* 220 */

static inline struct ib_rmpp_hdr *mad_rmpp_hdr(const void *mad)
{
	return &((struct ib_rmpp_mad *)mad)->rmpp_hdr;
}

bool mad_rmpp_is_active(const struct ib_mad_hdr *hdr);
bool mad_rmpp_is_ctl(const struct ib_mad_hdr *hdr);
void mad_rmpp_send_ctl(struct mad_port *port, struct mad_qp *mqp, const struct ib_wc *wc,
		       const struct ib_grh *grh, const struct ib_mad *data,
		       u8 type, u8 status, u32 seg_num, u32 newwin);
bool mad_rmpp_recv(struct mad_agent_priv *ap, struct mad_recv *r);
void mad_rmpp_recv_flush(struct mad_agent_priv *ap);
void mad_rmpp_recv_timeout(struct mad_agent_priv *ap);
void mad_rmpp_fill_segment(struct mad_send_wr *sw, int seg);
int mad_rmpp_send_start(struct mad_send_wr *sw);
void mad_rmpp_send_sent(struct mad_send_wr *sw);
bool mad_rmpp_send_timeout(struct mad_send_wr *sw);
void mad_rmpp_ctl_recv(struct mad_agent_priv *ap, struct mad_recv *r);

#endif /* IBSTACK_MAD_PRIV_H */

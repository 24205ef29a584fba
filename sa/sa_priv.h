/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_sa's private structures.
 *
 * Lifetimes: struct sa_device is reference counted (sa_device_get/put);
 * its ports live as long as it does.  ib_sa's client remove() stops every
 * port (no new query or SA message after it) and drops the device's own
 * reference; queries and multicast groups still holding one keep the
 * memory (never the ib_device) alive until they finish.
 *
 * Lock order: sa_mc_group.lock (a mutex, taken by the group's work and
 * by ib_sa_free_multicast() only), then sa_port.mc_lock, sa_port.ah_lock
 * or sa_query_lock (spinlocks, innermost).  The calls a ULP makes with a
 * spinlock held and interrupts off (ib_sa_join_multicast,
 * ib_sa_get_mcmember_rec, ib_sa_path_rec_get with GFP_ATOMIC,
 * ib_sa_cancel_query: IPoIB does) take spinlocks only.
 */
#ifndef IBSTACK_SA_PRIV_H
#define IBSTACK_SA_PRIV_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_sa.h>

#define SA_PFX "ib_sa: "

/* retries of every SA request after its first try */
#define SA_RETRIES		3
/* each try of a multicast SET or DELETE waits this long for the answer */
#define SA_MC_TIMEOUT_MS	2000

/* SA-specific MAD status codes: bits 8-14 of the MAD status (IBA 15.2.1.1) */
#define IB_SA_STATUS_NO_RESOURCES	1
#define IB_SA_STATUS_REQ_INVALID	2
#define IB_SA_STATUS_NO_RECORDS		3
#define IB_SA_STATUS_TOO_MANY_RECORDS	4
#define IB_SA_STATUS_REQ_INVALID_GID	5
#define IB_SA_STATUS_REQ_INSUFFICIENT	6
#define IB_SA_STATUS_REQ_DENIED		7

/* the records' sizes on the wire */
#define IB_SA_PATH_REC_SIZE		64
#define IB_SA_MCMEMBER_REC_SIZE		52

/* every MCMemberRecord:JoinState bit (BIT(enum ib_sa_mc_join_states)) */
#define IB_SA_JOIN_STATES_MASK		(BIT(NUM_JOIN_MEMBERSHIP_TYPES) - 1)

/* The port's SM as a reference-counted address handle. */
struct sa_sm_ah {
	struct kref	ref;
	struct ib_ah	*ah;
	u16		pkey_index;
	u16		sm_lid;
};

struct sa_device;

struct sa_port {
	struct sa_device	*sa_dev;
	u32			port_num;
	struct ib_mad_agent	*agent;		/* NULL: no MAD layer here */

	/* protects sm_ah, active and dead */
	spinlock_t		ah_lock;
	struct sa_sm_ah		*sm_ah;		/* NULL until the SM is known */
	bool			active;		/* the port is ACTIVE */
	bool			dead;		/* the device is being removed */

	/* queried again, a new SM address made, after port events */
	struct work_struct	update_work;

	/*
	 * protects groups (the list, each group's mgid key, its incoming
	 * members and its published record); taken with interrupts off
	 */
	spinlock_t		mc_lock;
	struct list_head	groups;
};

struct sa_device {
	struct kref		ref;
	struct ib_device	*device;	/* valid until remove() */
	struct ib_event_handler	event_handler;
	struct list_head	list;		/* sa_devices, under sa_devices_lock */
	u32			start_port;
	u32			num_ports;
	struct sa_port		port[];
};

/*
 * One SA request.  Owned by ib_sa from sa_query_post() until its send
 * completes; the owner's done() is called exactly once before release().
 */
struct ib_sa_query {
	struct sa_port		*port;
	struct ib_sa_client	*client;
	struct ib_mad_send_buf	*mad_buf;
	struct sa_sm_ah		*sm_ah;
	int			id;
	u16			attr_id;
	u8			method;
	bool			done;		/* done() was called */
	/* status 0: mad is the answer (valid during the call only) */
	void			(*done_fn)(struct ib_sa_query *query, int status,
					   const struct ib_sa_mad *mad);
	void			(*release)(struct ib_sa_query *query);
};

extern struct workqueue_struct *sa_wq;
extern struct ib_client sa_ib_client;

/* sa_main.c */
void sa_device_get(struct sa_device *sa_dev);
void sa_device_put(struct sa_device *sa_dev);
struct sa_port *sa_port_get(struct ib_device *device, u32 port_num);
void sa_client_get(struct ib_sa_client *client);
void sa_client_put(struct ib_sa_client *client);

/* sa_port.c */
int sa_port_start(struct sa_port *port);
void sa_port_stop(struct sa_port *port);
void sa_event_handler(struct ib_event_handler *handler, struct ib_event *event);
struct sa_sm_ah *sa_sm_ah_get(struct sa_port *port, int *err);
void sa_sm_ah_put(struct sa_sm_ah *sm_ah);

/* sa_query.c */
int sa_query_init(struct ib_sa_query *query, struct sa_port *port,
		  struct ib_sa_client *client, u8 method, u16 attr_id,
		  ib_sa_comp_mask comp_mask, gfp_t gfp);
struct ib_sa_mad *sa_query_mad(struct ib_sa_query *query);
int sa_query_post(struct ib_sa_query *query, unsigned long timeout_ms,
		  gfp_t gfp);
void sa_query_abort(struct ib_sa_query *query);
void sa_cancel_port_queries(struct sa_port *port);
void sa_send_handler(struct ib_mad_agent *agent,
		     struct ib_mad_send_wc *mad_send_wc);
void sa_recv_handler(struct ib_mad_agent *agent,
		     struct ib_mad_send_buf *send_buf,
		     struct ib_mad_recv_wc *mad_recv_wc);
int sa_query_init_module(void);

/* sa_pack.c: an MCMemberRecord to and from its wire attribute */
void sa_pack_mcmember(const struct ib_sa_mcmember_rec *rec, void *buf);
void sa_unpack_mcmember(const void *buf, struct ib_sa_mcmember_rec *rec);

/* sa_mcast.c; port events for every group of a port (bits of its events) */
enum sa_mc_event {
	SA_MC_EV_RESET,		/* the membership is lost */
	SA_MC_EV_PKEY,		/* the P_Key table changed */
};

void sa_mcast_port_event(struct sa_port *port, enum sa_mc_event ev);
void sa_mcast_stop_port(struct sa_port *port);
void sa_mcast_init(void);
void sa_mcast_exit(void);

/* sa_debugfs.c: counters shown in /sys/kernel/debug/ib_sa/stats */
enum sa_stat {
	SA_STAT_PATH_GET,
	SA_STAT_MC_SET,
	SA_STAT_MC_DELETE,
	SA_STAT_MC_RESET,
	SA_STAT_TIMEOUT,
	SA_STAT_BAD_RESPONSE,
	SA_NR_STATS
};

void sa_stat_inc(enum sa_stat stat);
void sa_debugfs_init(void);
void sa_debugfs_exit(void);

#endif /* IBSTACK_SA_PRIV_H */

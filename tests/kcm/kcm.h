/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ib_cm test client's shared state.  A "side" is one end of a
 * connection: its cm_id (a listener's, or the one a REQ brought), an RC
 * QP with its CQ and a small buffer, what its handler is to do with a REQ,
 * and the log of the events its handler saw.
 */
#ifndef IBSTACK_KCM_H
#define IBSTACK_KCM_H

#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_cm.h>

#define KCM_PFX "ibstack_kcm: "
#define KCM_BUF_SIZE	256
#define KCM_EVENTS	32
/* the receive PSNs each side announces */
#define KCM_ACT_PSN	0x1234
#define KCM_PAS_PSN	0x5678

/* what a listening side does with a REQ */
enum kcm_req_mode {
	KCM_ACCEPT,	/* QP to RTS, REP */
	KCM_REJECT,	/* REJ, consumer defined, with private data */
	KCM_MRA,	/* MRA now, REP when the test says so */
	KCM_IGNORE,	/* nothing: the peer's REQ times out */
};

struct kcm_event {
	enum ib_cm_event_type	type;
	int			reason;		/* REJ reason, SIDR status, WC status */
	u32			value;		/* SIDR QPN, MRA service timeout */
	u8			private_data[8];
};

struct kcm_side {
	const char		*name;
	u32			port_num;
	struct ib_cm_id		*listen_id;
	struct ib_cm_id		*cm_id;		/* the connection's */
	struct ib_cm_id		*old_ids[4];	/* earlier ones a listener got */
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	void			*buf;
	u64			dma;
	enum kcm_req_mode	mode;
	bool			destroy_on_event; /* the handler returns non-zero once */

	spinlock_t		lock;		/* the log below */
	wait_queue_head_t	wait;
	struct kcm_event	log[KCM_EVENTS];
	unsigned int		nlog;
};

struct kcm_ctx {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_port_attr	attr[2];
	union ib_gid		gid[2];
	unsigned int		passed;
	unsigned int		failed;
};

extern struct kcm_ctx kcm;

void kcm_pass(const char *name);
__printf(3, 4) void kcm_check(bool ok, const char *name, const char *fmt, ...);

/* kcm_side.c */
int kcm_side_init(struct kcm_side *s, const char *name, u32 port_num);
void kcm_side_fini(struct kcm_side *s);
int kcm_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *event);
/* [sleep] the first logged event of type after *from (then past it), or NULL */
struct kcm_event *kcm_wait(struct kcm_side *s, enum ib_cm_event_type type,
			   unsigned int *from, unsigned int timeout_ms);
void kcm_path(struct sa_path_rec *path, u32 from, u32 to);
int kcm_connect(struct kcm_side *s, u32 to_port, __be64 service_id, u8 retries);
int kcm_qp_to_rts(struct kcm_side *s, u32 rq_psn);
int kcm_accept(struct kcm_side *s);
int kcm_exchange(struct kcm_side *a, struct kcm_side *b);

/* kcm_remote.c: two nodes */
extern unsigned int kcm_peer_lid;
extern unsigned long long kcm_peer_guid;
void kcm_run_serve(void);
void kcm_run_remote(void);
void kcm_run_unserve(void);

/* kcm_tests.c */
void kcm_run_conn(void);
void kcm_run_rej(void);
void kcm_run_timeout(void);
void kcm_run_mra(void);
void kcm_run_sidr(void);
void kcm_run_disc(void);
void kcm_run_lap(void);

#endif

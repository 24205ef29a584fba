/* SPDX-License-Identifier: GPL-2.0 */
/* The MAD layer test client: shared helpers of its cases. */
#ifndef IBSTACK_KMAD_H
#define IBSTACK_KMAD_H

#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_pma.h>
#include <linux/completion.h>
#include <linux/spinlock.h>

#define KM_NAME "ibstack_kmad"

struct km_run {
	struct ib_device	*dev;
	int			passed;
	int			failed;
};

void km_pass(struct km_run *r, const char *name);
void km_fail(struct km_run *r, const char *name, const char *fmt, ...) __printf(3, 4);

/* what an agent of the tests saw: the last receive and send completion */
struct km_agent {
	struct ib_mad_agent	*agent;
	spinlock_t		lock;		/* protects the fields below */
	struct ib_mad_recv_wc	*rwc;		/* the last receive (kept) */
	struct ib_mad_send_buf	*matched;	/* its send_buf */
	int			nrecv;
	int			nsend;
	bool			recv_before_send; /* the order of the last pair */
	enum ib_wc_status	status;
	struct completion	recv_done;
	struct completion	send_done;
	/* optional: called from recv_handler (a responder) */
	void			(*on_recv)(struct km_agent *ka, struct ib_mad_recv_wc *rwc);
	void			*priv;
	bool			free_sends;	/* send_handler frees the buffer */
};

int km_agent_open(struct km_agent *ka, struct ib_device *dev, u32 port,
		  enum ib_qp_type type, struct ib_mad_reg_req *reg, u8 rmpp);
int km_agent_open_flags(struct km_agent *ka, struct ib_device *dev, u32 port,
			enum ib_qp_type type, struct ib_mad_reg_req *reg, u8 rmpp,
			u32 flags);
void km_agent_close(struct km_agent *ka);
struct km_agent *km_agent_new(struct km_run *r, const char *name, u32 port,
			      enum ib_qp_type type);
void km_agent_free(struct km_agent *ka);
void km_agent_reset(struct km_agent *ka);
/* a send buffer with an AH to dlid on the agent's port */
struct ib_mad_send_buf *km_agent_send_buf(struct ib_mad_agent *agent, u16 dlid, u32 qpn,
					  int rmpp_active, int hdr_len, int data_len);
struct ib_mad_send_buf *km_send_buf(struct km_agent *ka, u16 dlid, u32 qpn,
				    int rmpp_active, int hdr_len, int data_len);
void km_send_free(struct ib_mad_send_buf *buf);
bool km_wait(struct completion *c, unsigned int ms);
u16 km_port_lid(struct ib_device *dev, u32 port);

void km_reg_cases(struct km_run *r);
void km_smp_cases(struct km_run *r);
void km_mkey_cases(struct km_run *r, struct km_agent *ka);
/*
 * A DR SMP from ka (kmad_smp.c) with mkey in its header and data (if not
 * NULL): its response (in ka->rwc) or NULL with *why.
 */
struct ib_smp *km_dr_send(struct km_agent *ka, u8 method, __be16 attr, __be64 mkey,
			  const u8 *data, int hops, const u8 *path,
			  struct ib_mad_send_buf **bufp, const char **why);
void km_sma_cases(struct km_run *r);
void km_gsi_cases(struct km_run *r);
void km_cancel_race_cases(struct km_run *r, struct km_agent *ka, u16 lid1);
/* GMPs (kmad_gsi.c): fill a MAD's common header; post one to dlid's QP1 */
void km_gmp_fill(struct ib_mad *mad, u8 mclass, u8 version, u8 method, __be16 attr,
		 u32 tid);
struct ib_mad_send_buf *km_gmp_post(struct km_agent *ka, u16 dlid, u8 mclass, u8 version,
				    u8 method, __be16 attr, int timeout, int retries);
void km_rmpp_cases(struct km_run *r);
void km_rmpp_wire_cases(struct km_run *r);
void km_rmpp_bound_cases(struct km_run *r);
/* a hand-made RMPP MAD of vendor class mclass (kmad_rmpp_wire.c) */
int km_rmpp_send(struct km_agent *ka, u16 dlid, u8 mclass, u8 method, u64 tid, u8 version,
		 u8 type, u8 flags, u8 status, u32 seg, u32 paylen, u8 fill);

#endif /* IBSTACK_KMAD_H */

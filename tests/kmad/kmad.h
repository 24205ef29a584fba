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
void km_agent_reset(struct km_agent *ka);
/* a send buffer with an AH to dlid on the agent's port */
struct ib_mad_send_buf *km_send_buf(struct km_agent *ka, u16 dlid, u32 qpn,
				    int rmpp_active, int hdr_len, int data_len);
void km_send_free(struct ib_mad_send_buf *buf);
bool km_wait(struct completion *c, unsigned int ms);
u16 km_port_lid(struct ib_device *dev, u32 port);

void km_reg_cases(struct km_run *r);
void km_smp_cases(struct km_run *r);
void km_gsi_cases(struct km_run *r);
void km_rmpp_cases(struct km_run *r);
void km_rmpp_wire_cases(struct km_run *r);

#endif /* IBSTACK_KMAD_H */

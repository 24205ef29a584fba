/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ConnectX-3 model: what the receive path (cx3_recv.c) and the RC/UC
 * responder (cx3_responder.c) share: receive WQEs, receive CQEs and the
 * codes they carry.
 */
#ifndef CX3_RECV_H
#define CX3_RECV_H

#include <stdbool.h>
#include <stdint.h>

#include "cx3.h"
#include "cx3_pkt.h"
#include "cx3_qp.h"

enum {
	RECV_OP_RDMA_WRITE_IMM = 0x00, RECV_OP_SEND = 0x01,
	RECV_OP_SEND_IMM = 0x02, RECV_OP_SEND_INVAL = 0x03,
};

#define CQE_OPCODE_ERROR	0x1e
#define SYN_LOCAL_LENGTH	0x01
#define SYN_LOCAL_PROT		0x04
#define SYN_REMOTE_INVAL_REQ	0x12
#define EVENT_COMM_EST		0x02
#define EVENT_SRQ_LIMIT		0x14
#define EVENT_WQ_INVAL_REQ	0x10
#define EVENT_WQ_ACCESS		0x11
#define EVENT_WQ_CATAS		0x05
#define RWQE_MAX_SGE		64
#define INVALID_LKEY		0x100

/* A receive WQE taken from the RQ or the SRQ */
struct rwqe {
	uint16_t index;
	unsigned int nsge;
	uint8_t sges[RWQE_MAX_SGE * 16];
};

/* The PD of a responder's memory checks (an XRC target: its SRQ's). */
uint32_t cx3_resp_pd(const struct cx3_qp *qp);
/* The next receive WQE of the QP (RQ, SRQ or XRC SRQ): 0, or -1 for none. */
int cx3_take_rwqe(struct cx3_dev *dev, struct cx3_qp *qp, struct rwqe *w);
/* The receive WQE of a new SEND (a UC SEND's reused one first). */
int cx3_take_send_wqe(struct cx3_dev *dev, struct cx3_qp *qp, struct rwqe *w);
/* Writes the receive CQE of w (syndrome 0: success). */
void cx3_recv_cqe(struct cx3_dev *dev, struct cx3_qp *qp,
		  const struct rwqe *w, const struct cx3_pkt *p,
		  uint8_t opcode, uint32_t byte_cnt, const uint8_t *imm,
		  uint32_t src_qp, uint8_t pkey_index, uint8_t syndrome);

/* cx3_responder.c: an RC/UC request, an XRC one (its XRCETH first) */
void cx3_responder(struct cx3_dev *dev, struct cx3_qp *qp,
		   const struct cx3_pkt *p);
void cx3_xrc_responder(struct cx3_dev *dev, struct cx3_qp *qp,
		       const struct cx3_pkt *p);

#endif /* CX3_RECV_H */

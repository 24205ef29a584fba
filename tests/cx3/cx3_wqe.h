/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ConnectX-3 model: send WQEs as the send engines see them, shared by the
 * send engine (cx3_send.c) and the RC requester (cx3_rc.c).
 */
#ifndef CX3_WQE_H
#define CX3_WQE_H

#include "cx3.h"
#include "cx3_qp.h"

/* WQE opcodes (control segment byte 3, bits 4:0) */
enum {
	WQE_NOP = 0x00, WQE_RDMA_WRITE = 0x08, WQE_RDMA_WRITE_IMM = 0x09,
	WQE_SEND = 0x0a, WQE_SEND_IMM = 0x0b, WQE_RDMA_READ = 0x10,
	WQE_ATOMIC_CS = 0x11, WQE_ATOMIC_FA = 0x12,
	WQE_LSO = 0x0e,			/* UD only (cx3_offload.c) */
	WQE_SEND_INVAL = 0x01,
	/* local: they change the protection table (cx3_mw.c) */
	WQE_BIND_MW = 0x18, WQE_FMR = 0x19, WQE_LOCAL_INVAL = 0x1b,
};

/* Send CQE syndromes */
enum {
	SYN_LOCAL_LENGTH = 0x01, SYN_LOCAL_QP_OP = 0x02, SYN_LOCAL_PROT = 0x04,
	SYN_MW_BIND = 0x06,
	SYN_REMOTE_INVAL_REQ = 0x12, SYN_REMOTE_ACCESS = 0x13,
	SYN_REMOTE_OP = 0x14, SYN_RETRY_EXC = 0x15, SYN_RNR_RETRY_EXC = 0x16,
};

#define CX3_MAX_MESSAGE		(16u << 20)	/* what the model moves at once */
#define CX3_WQE_MAX		1024

/* Control segment byte 7: bit 6 fences the WQE behind earlier READs/atomics */
#define WQE_FENCE		0x40

struct cx3_swqe {
	uint32_t idx;			/* SQ counter of this WQE */
	uint8_t b[CX3_WQE_MAX];
	size_t size;			/* bytes */
	uint8_t opcode;
	bool signaled, solicited, fence;
};

int cx3_wqe_read(struct cx3_dev *dev, struct cx3_qp *qp, uint32_t idx,
		 struct cx3_swqe *w);
long cx3_wqe_gather(struct cx3_dev *dev, struct cx3_qp *qp,
		    const struct cx3_swqe *w, size_t off, uint8_t **out);

/*
 * Transmit the request packets of an RC or UC WQE from packet index from
 * on; psn is the PSN of its packet 0.  *npsn gets the PSNs the message
 * uses (for an RDMA READ: its response packets), *len its length.
 * Returns 0, or a CQE syndrome (nothing was sent).
 */
int cx3_send_request(struct cx3_dev *dev, struct cx3_qp *qp,
		     const struct cx3_swqe *w, uint32_t psn, uint32_t from,
		     uint32_t *npsn, uint32_t *len);

/*
 * cx3_mw.c: BIND_MW, FMR (fast registration), LOCAL_INVAL, executed in
 * the send queue's order; 0, or a CQE syndrome.
 */
bool cx3_wqe_is_local(uint8_t opcode);
int cx3_wqe_local_op(struct cx3_dev *dev, struct cx3_qp *qp,
		     const struct cx3_swqe *w);

/* cx3_rc.c: the RC requester */
void cx3_rc_execute(struct cx3_dev *dev, struct cx3_qp *qp,
		    struct cx3_swqe *w);

#endif /* CX3_WQE_H */

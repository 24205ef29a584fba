/* SPDX-License-Identifier: GPL-2.0 */
/* ConnectX-3 model: queue pairs, shared by the QP commands and the engines. */
#ifndef CX3_QP_H
#define CX3_QP_H

#include "cx3.h"
#include "cx3_pkt.h"

#define CX3_QPC_SIZE		248

/*
 * mlx4_ib ORs this into the number of an XRC target QP: the QP commands and
 * the context carry it, user space knows the QP by it, and libmlx4 takes a
 * receive CQE with it for one of an XRC SRQ.  The tables strip it.
 */
#define CX3_XRC_QPN_BIT		(1u << 23)

/* QP states, as in the context's flags[31:28] */
enum {
	CX3_QPS_RST = 0, CX3_QPS_INIT = 1, CX3_QPS_RTR = 2, CX3_QPS_RTS = 3,
	CX3_QPS_SQER = 4, CX3_QPS_SQD = 5, CX3_QPS_ERR = 6,
};

/* Service types, flags[23:16] */
enum {
	CX3_ST_RC = 0, CX3_ST_UC = 1, CX3_ST_UD = 3, CX3_ST_XRC = 6,
	CX3_ST_MLX = 7,
};

/* One RC request from its first transmission to its completion */
struct cx3_rc_msg {
	uint32_t wqe;			/* SQ counter of its WQE */
	uint32_t psn;			/* its first PSN */
	uint32_t npsn;			/* its PSNs: packets, or READ responses */
	uint32_t done;			/* of those: ACKed, or responses taken */
	uint32_t len;			/* bytes (READ: asked for) */
	uint8_t opcode;			/* the WQE's */
	uint8_t syndrome;		/* a local error: completes with it */
	bool signaled;
};

/* An executed atomic's original value, for a duplicate of its request */
#define CX3_ATOMIC_REPLAY	16	/* the responder's max outstanding */
struct cx3_atomic_replay {
	bool valid;
	uint32_t psn;
	uint8_t orig[8];
};

struct cx3_wq {
	uint32_t off;		/* in the QP buffer */
	uint32_t cnt;		/* WQEs, a power of two; 0 = none */
	uint8_t stride_shift;
	uint32_t cons;		/* WQEs the card has consumed, free-running */
};

struct cx3_qp {
	uint32_t qpn;
	uint32_t special_index;	/* QPN - base_sqpn: 0-1 QP0, 2-3 QP1 */
	uint8_t state;
	uint8_t st;
	uint32_t pd;
	uint32_t send_cqn, recv_cqn;
	bool srq;
	uint32_t srqn;
	uint32_t xrcd;		/* XRC target: its domain (context @0x98) */
	/* XRC target: the SRQ the request being executed names (cx3_recv.c) */
	struct cx3_srq *xrc_srq;
	uint32_t qkey;
	uint64_t db_rec;	/* RQ doorbell record */
	struct cx3_buf buf;	/* SQ and RQ share one buffer */
	struct cx3_wq sq, rq;
	uint8_t ctx[CX3_QPC_SIZE];	/* the latched context */

	/* UC and RC requester */
	uint32_t sq_psn;		/* PSN of the next new request */
	uint32_t msn;			/* responder's message count */
	/* RC requester (cx3_rc.c): the requests between first send and ACK */
	struct cx3_rc_msg *win;		/* a ring of sq.cnt entries */
	uint32_t win_head, win_cnt;
	uint32_t tx_idx, tx_pkt;	/* next to (re)send: window index, packet */
	uint32_t sq_next;		/* SQ counter of the next WQE to start */
	uint32_t rd_atomic;		/* READs and atomics in the window */
	uint64_t ack_at;		/* local ACK timer; 0 = not running */
	uint64_t rnr_at;		/* resend time after an RNR NAK; 0 = none */
	bool resp_gap;			/* READ responses lost: resent, waiting */
	bool tx_error;			/* a WQE failed locally: start no more */
	bool drain_event;		/* SQD: SQ_DRAINED once the window empties */
	/* RC responder: PSN checking (IBA 9.7.5.1) */
	uint32_t epsn;			/* expected PSN of the next request */
	bool nak_sent;			/* a sequence or RNR NAK is outstanding */
	/* the original values of the last atomics, for their duplicates */
	struct cx3_atomic_replay replay[CX3_ATOMIC_REPLAY];
	uint32_t replay_next;
	/* UC responder: a message lost a packet, drop it up to its end */
	bool uc_drop;
	bool uc_reuse;			/* resp_wqe serves the next SEND */
	/* counted, not logged one by one; reported when the QP goes away */
	uint32_t dup_requests;		/* duplicates answered, not executed */
	uint32_t seq_naks;		/* PSN sequence error NAKs sent */
	uint32_t stale_responses;	/* requester: responses for no request */
	uint32_t go_backs;		/* requester: resends from a PSN */
	/* responder: a SEND or RDMA WRITE spanning several packets */
	bool resp_active;
	uint8_t resp_op;		/* SEND or WRITE */
	uint64_t resp_off;		/* bytes of the message so far */
	uint64_t resp_va;		/* WRITE: where the next packet goes */
	uint32_t resp_rkey;
	void *resp_wqe;			/* SEND: the receive WQE (cx3_recv.c) */
	uint8_t rnr_left;		/* RNR retries left (7 = forever) */
	uint8_t retry_left;		/* retries left after timeouts, NAKs */
	bool comm_est;			/* first packet seen in RTR */
	/* a WQE given through BlueFlame (cx3_bf.c), until the engine reads it */
	uint16_t bf_len;		/* 0: none */
	uint16_t bf_idx;		/* its SQ counter (low 16 bits) */
	uint8_t bf_wqe[CX3_BF_HALF];
	bool kicked;			/* queued on dev->kicks */
	bool prefetch_warned;		/* cx3_prefetch.c said so once */

	bool on_err_list;
	struct cx3_qp *err_next;	/* dev->err_qps: QPs in ERR */
	bool on_timer_list;
	struct cx3_qp *timer_next;	/* dev->timer_qps */
};

int cx3_qp_port(const struct cx3_qp *qp);
/* cx3_prefetch.c: at a send doorbell, the slots after the last WQE stamped */
void cx3_prefetch_check(struct cx3_dev *dev, struct cx3_qp *qp);
int cx3_qp_rq_head(struct cx3_dev *dev, struct cx3_qp *qp, uint16_t *head);
bool cx3_qp_sq_posted(struct cx3_dev *dev, struct cx3_qp *qp, uint32_t idx);
void cx3_qp_flush(struct cx3_dev *dev, struct cx3_qp *qp);
void cx3_qp_to_error(struct cx3_dev *dev, struct cx3_qp *qp);

void cx3_qp_kick(struct cx3_dev *dev, struct cx3_qp *qp);
struct cx3_qp *cx3_qp_by_wire(struct cx3_dev *dev, int port, uint32_t qpn);
void cx3_qp_timer(struct cx3_dev *dev, struct cx3_qp *qp, bool on);
uint64_t cx3_qp_ack_timeout_ms(const struct cx3_qp *qp);

/* cx3_rc.c: the RC requester */
void cx3_rc_timers(struct cx3_dev *dev);
void cx3_rc_start(struct cx3_dev *dev, struct cx3_qp *qp);
void cx3_rc_reset(struct cx3_dev *dev, struct cx3_qp *qp);
void cx3_rc_response(struct cx3_dev *dev, struct cx3_qp *qp,
		     const struct cx3_pkt *p);

/* RC and XRC: the reliable connected service (ACKs, retries, READs) */
static inline bool cx3_qp_reliable(const struct cx3_qp *qp)
{
	return qp->st == CX3_ST_RC || qp->st == CX3_ST_XRC;
}

/*
 * An XRC target only answers requests: its send queue, which mlx4_ib sizes
 * but neither posts to nor stamps when user space drives the QP (zeroed
 * memory, which owner bits would take for posted WQEs), is never executed
 * nor flushed.
 */
static inline bool cx3_qp_xrc_target(const struct cx3_qp *qp)
{
	return qp->st == CX3_ST_XRC && (qp->qpn & CX3_XRC_QPN_BIT);
}

/*
 * The transport bits of the BTH opcodes a connected QP sends.  XRC has its
 * own opcode block, 101b, for responses too: an XRC target ACKs with 0xb1,
 * answers a READ with 0xad-0xb0 and an atomic with 0xb2 (IBA table 38;
 * rxe's XRC support sends the same), and an XRC initiator takes no RC ones.
 */
static inline uint8_t cx3_qp_transport(const struct cx3_qp *qp)
{
	return qp->st == CX3_ST_XRC ? IB_TRANSPORT_XRC :
	       qp->st == CX3_ST_UC ? IB_TRANSPORT_UC : IB_TRANSPORT_RC;
}

/* Context fields the engines use */
static inline uint32_t cx3_qp_remote_qpn(const struct cx3_qp *qp)
{
	return cx3_get32(qp->ctx, 0x14) & 0xffffff;
}

/* Path MTU in bytes (context byte 8, bits 7:5: 1 = 256 .. 5 = 4096) */
static inline uint32_t cx3_qp_mtu(const struct cx3_qp *qp)
{
	unsigned int m = qp->ctx[0x08] >> 5;

	return 128u << (m >= 1 && m <= 5 ? m : 5);
}

static inline uint8_t cx3_qp_pkey_index(const struct cx3_qp *qp)
{
	return qp->ctx[0x18 + 0x03] & 0x7f;
}

/* cx3_send.c: the send engine, run from the pump */
void cx3_qp_execute(struct cx3_dev *dev, struct cx3_qp *qp);
size_t cx3_build_headers(struct cx3_dev *dev, struct cx3_qp *qp, int port,
			 uint16_t dlid, const uint8_t *dgid, bool grh,
			 uint8_t sl, uint8_t opcode, bool se, uint32_t dqpn,
			 uint32_t psn, size_t ext_payload_len, uint8_t *buf);
void cx3_send_cqe(struct cx3_dev *dev, struct cx3_qp *qp, uint16_t wqe_index,
		  uint8_t opcode, uint32_t byte_cnt, uint8_t syndrome);

/* cx3_recv.c */
int cx3_scatter_sges(struct cx3_dev *dev, struct cx3_qp *qp,
		     const uint8_t *sges, unsigned int nsge,
		     const uint8_t *data, size_t len, uint64_t skip);

#endif /* CX3_QP_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: queue pairs.  The state machine of the QP transition
 * commands, with per-transition latching of the context (the fields the IB
 * spec requires for that transition, plus those the optpar mask names),
 * QUERY_QP, and the flush of every outstanding work request when a QP enters
 * the error state.  A QP exists for the card from RST2INIT until 2RST.
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_cmds.h"
#include "cx3_qp.h"

#define QPC_OFF			8	/* context offset in the mailbox */
#define CQE_OPCODE_ERROR	0x1e
#define CQE_IS_SEND		0x40
#define SYNDROME_WR_FLUSH	0x05
#define EVENT_SQ_DRAINED	0x03
#define EVENT_SRQ_LAST_WQE	0x13

enum {
	OP_RST2INIT = 0x019, OP_INIT2RTR = 0x01a, OP_RTR2RTS = 0x01b,
	OP_RTS2RTS = 0x01c, OP_SQERR2RTS = 0x01d, OP_2ERR = 0x01e,
	OP_RTS2SQD = 0x01f, OP_SQD2RTS = 0x020, OP_2RST = 0x021,
	OP_INIT2INIT = 0x02d, OP_SQD2SQD = 0x038,
};

/* One context field: byte offset, length, and a mask for bit fields. */
struct qpc_field {
	uint16_t off;
	uint8_t len;
	uint32_t mask;		/* for len == 4; 0 means all bits */
};

#define F(o, l)		{ (o), (l), 0 }
#define FM(o, m)	{ (o), 4, (m) }

/* context fields selected by each optpar bit */
static const struct qpc_field optpar_fields[32][2] = {
	[0] = { F(0x44, 44) },				/* alternate path */
	[1] = { FM(0x90, 1u << 15) },			/* RRE */
	[2] = { FM(0x90, 1u << 13) },			/* RAE */
	[3] = { FM(0x90, 1u << 14) },			/* RWE */
	[4] = { F(0x18 + 0x03, 1) },			/* P_Key index */
	[5] = { F(0xa8, 4) },				/* Q_Key */
	[6] = { FM(0x94, 0x1fu << 24) },		/* RNR timer */
	[7] = { F(0x18 + 0x04, 28) },			/* primary address */
	[8] = { FM(0x70, 7u << 21) },			/* SRA max */
	[9] = { FM(0x90, 7u << 21) },			/* RRA max */
	[10] = { FM(0x00, 3u << 11) },			/* PM state */
	[12] = { FM(0x70, 7u << 16) },			/* retry count */
	[13] = { FM(0x70, 7u << 13) },			/* RNR retry */
	[14] = { F(0x18 + 0x08, 1) },			/* ACK timeout */
	[16] = { F(0x18 + 0x20, 1) },			/* sched queue */
	[20] = { F(0x18 + 0x04, 1) },			/* counter index */
};

/* fields the IB spec requires for a transition, by service type group */
static const struct qpc_field init2rtr_conn[] = {
	F(0x08, 1), F(0x14, 4), F(0x18 + 0x04, 28), F(0x18 + 0x20, 1),
	FM(0x94, 0x00ffffffu), FM(0x94, 0x1fu << 24), FM(0x90, 7u << 21),
};

static const struct qpc_field rtr2rts_conn[] = {
	F(0x78, 4), F(0x18 + 0x08, 1), FM(0x70, 7u << 16), FM(0x70, 7u << 13),
	FM(0x70, 7u << 21),
};

static const struct qpc_field rtr2rts_ud[] = { F(0x78, 4) };

static void latch(uint8_t *ctx, const uint8_t *in, const struct qpc_field *f)
{
	uint32_t v;

	if (f->len == 0)
		return;
	if (f->len == 4 && f->mask) {
		v = (cx3_get32(ctx, f->off) & ~f->mask) |
		    (cx3_get32(in, f->off) & f->mask);
		cx3_put32(ctx, f->off, v);
		return;
	}
	memcpy(ctx + f->off, in + f->off, f->len);
}

static void latch_list(uint8_t *ctx, const uint8_t *in,
		       const struct qpc_field *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		latch(ctx, in, &f[i]);
}

/* The table index of a QP number: an XRC target's bit 23 stripped */
static uint32_t qp_index(uint32_t qpn)
{
	return qpn & ~CX3_XRC_QPN_BIT;
}

/*
 * The QP by its full number: an XRC target answers only to the number with
 * bit 23, every other QP only to the number without it.
 */
struct cx3_qp *cx3_qp_get(struct cx3_dev *dev, uint32_t qpn)
{
	struct cx3_qp *qp;

	if (!dev->qps || qp_index(qpn) >= 1u << dev->hca.log_qps)
		return NULL;
	qp = dev->qps[qp_index(qpn)];
	return qp && qp->qpn == qpn ? qp : NULL;
}

static bool is_special(struct cx3_dev *dev, uint32_t qpn)
{
	return dev->base_sqpn && qpn >= dev->base_sqpn &&
	       qpn < dev->base_sqpn + 4;
}

/* Queue geometry from a RST2INIT context. */
static int qp_geometry(struct cx3_dev *dev, struct cx3_qp *qp,
		       const uint8_t *c)
{
	uint8_t rq = c[0x09], sq = c[0x0a];
	uint32_t sq_bytes, rq_bytes;

	qp->srq = (cx3_get32(c, 0xac) >> 24) & 1;
	qp->srqn = cx3_get32(c, 0xac) & 0xffffff;
	qp->st = (cx3_get32(c, 0x00) >> 16) & 0xff;
	qp->sq.stride_shift = (sq & 7) + 4;
	qp->sq.cnt = 1u << ((sq >> 3) & 0xf);
	/* neither XRC QP has a receive queue: targets use XRC SRQs */
	if (qp->srq || rq == 0xfc || qp->st == CX3_ST_XRC) {
		qp->rq.cnt = 0;
		qp->rq.stride_shift = 0;
	} else {
		qp->rq.stride_shift = (rq & 7) + 4;
		qp->rq.cnt = 1u << ((rq >> 3) & 0xf);
	}
	sq_bytes = qp->sq.cnt << qp->sq.stride_shift;
	rq_bytes = qp->rq.cnt << qp->rq.stride_shift;
	if (qp->rq.stride_shift > qp->sq.stride_shift) {
		qp->rq.off = 0;
		qp->sq.off = rq_bytes;
	} else {
		qp->sq.off = 0;
		qp->rq.off = sq_bytes;
	}
	qp->buf.page_shift = 12 + (c[0xc8] & 0x1f);
	qp->buf.mtt_off = (uint64_t)c[0xcb] << 32 | cx3_get32(c, 0xcc);
	qp->buf.size = (uint64_t)sq_bytes + rq_bytes;
	qp->db_rec = cx3_get64(c, 0xa0);
	if (dev->trace)
		cx3_log(dev, "QP 0x%x: type %u SQ %u x %u at 0x%x, RQ %u x %u at 0x%x, page shift %u, MTT 0x%llx (sizes 0x%02x 0x%02x)",
			qp->qpn, (cx3_get32(c, 0x00) >> 16) & 0xff, qp->sq.cnt,
			1u << qp->sq.stride_shift, qp->sq.off, qp->rq.cnt,
			1u << qp->rq.stride_shift, qp->rq.off, qp->buf.page_shift,
			(unsigned long long)qp->buf.mtt_off, rq, sq);
	qp->send_cqn = cx3_get32(c, 0x7c) & 0xffffff;
	qp->recv_cqn = cx3_get32(c, 0x9c) & 0xffffff;
	qp->pd = cx3_get32(c, 0x04) & 0xffffff;
	qp->xrcd = cx3_get32(c, 0x98) & 0xffffff;

	if (!cx3_cq_exists(dev, qp->send_cqn) ||
	    (!qp->srq && !cx3_cq_exists(dev, qp->recv_cqn))) {
		cx3_log(dev, "QP 0x%x: CQ 0x%x/0x%x does not exist", qp->qpn,
			qp->send_cqn, qp->recv_cqn);
		return -1;
	}
	if (qp->srq && !cx3_srq_get(dev, qp->srqn)) {
		cx3_log(dev, "QP 0x%x: SRQ 0x%x does not exist", qp->qpn,
			qp->srqn);
		return -1;
	}
	if (qp->st != CX3_ST_RC && qp->st != CX3_ST_UC && qp->st != CX3_ST_UD &&
	    qp->st != CX3_ST_MLX && qp->st != CX3_ST_XRC) {
		cx3_log(dev, "QP 0x%x: service type %u not offered", qp->qpn,
			qp->st);
		return -1;
	}
	/* bit 23 marks an XRC target, which must belong to a domain */
	if ((qp->qpn & CX3_XRC_QPN_BIT) &&
	    (qp->st != CX3_ST_XRC || !qp->xrcd)) {
		cx3_log(dev, "QP 0x%x: an XRC target number for a QP of type %u, XRCD 0x%x",
			qp->qpn, qp->st, qp->xrcd);
		return -1;
	}
	if ((qp->st == CX3_ST_MLX) != is_special(dev, qp->qpn)) {
		cx3_log(dev, "QP 0x%x: MLX transport only on the special QPs",
			qp->qpn);
		return -1;
	}
	if (qp->rq.cnt && !qp->srq &&
	    dev->host.dma_read(dev->host.opaque, qp->db_rec, NULL, 4)) {
		cx3_log(dev, "QP 0x%x: doorbell record 0x%llx not in memory",
			qp->qpn, (unsigned long long)qp->db_rec);
		return -1;
	}
	return 0;
}

int cx3_qp_port(const struct cx3_qp *qp)
{
	/* QP0 and QP1 of ports 1 and 2 are base, base + 1, base + 2, base + 3 */
	if (qp->st == CX3_ST_MLX)
		return (int)(qp->special_index & 1) + 1;
	return ((qp->ctx[0x18 + 0x20] >> 6) & 1) + 1;
}

/* Read the RQ producer counter from the doorbell record. */
int cx3_qp_rq_head(struct cx3_dev *dev, struct cx3_qp *qp, uint16_t *head)
{
	uint8_t rec[4];

	if (dev->host.dma_read(dev->host.opaque, qp->db_rec, rec, 4))
		return -1;
	*head = cx3_get32(rec, 0) & 0xffff;
	return 0;
}

/*
 * Is the SQ WQE at counter value idx posted (its owner bit says so, or it
 * came through BlueFlame)?
 */
bool cx3_qp_sq_posted(struct cx3_dev *dev, struct cx3_qp *qp, uint32_t idx)
{
	uint8_t ctrl[4];
	uint64_t off = qp->sq.off +
		       ((uint64_t)(idx & (qp->sq.cnt - 1)) << qp->sq.stride_shift);

	if (qp->bf_len && (uint16_t)idx == qp->bf_idx)
		return true;
	if (cx3_buf_read(dev, &qp->buf, off, ctrl, 4))
		return false;
	return !!(ctrl[0] & 0x80) == !!(idx & qp->sq.cnt);
}

static void flush_cqe(struct cx3_dev *dev, struct cx3_qp *qp, uint32_t cqn,
		      uint16_t wqe_index, bool is_send)
{
	uint8_t cqe[32] = { 0 };

	cx3_put32(cqe, 0x00, qp->qpn);
	cx3_put16(cqe, 0x18, wqe_index);
	cqe[0x1b] = SYNDROME_WR_FLUSH;
	cqe[0x1f] = CQE_OPCODE_ERROR | (is_send ? CQE_IS_SEND : 0);
	cx3_cq_push(dev, cqn, cqe, false);
}

/* Complete every outstanding work request with a flush error. */
void cx3_qp_flush(struct cx3_dev *dev, struct cx3_qp *qp)
{
	uint16_t head;

	while (qp->sq.cnt && !cx3_qp_xrc_target(qp) &&
	       cx3_qp_sq_posted(dev, qp, qp->sq.cons)) {
		flush_cqe(dev, qp, qp->send_cqn, qp->sq.cons & 0xffff, true);
		qp->sq.cons++;
	}
	qp->bf_len = 0;
	if (qp->rq.cnt && !cx3_qp_rq_head(dev, qp, &head)) {
		while ((uint16_t)qp->rq.cons != head) {
			flush_cqe(dev, qp, qp->recv_cqn, qp->rq.cons & 0xffff,
				  false);
			qp->rq.cons++;
		}
	}
}

/* The send doorbell: in ERR, new work is flushed; otherwise executed. */
void cx3_qp_send_doorbell(struct cx3_dev *dev, uint32_t qpn)
{
	struct cx3_qp *qp = cx3_qp_get(dev, qpn);

	if (!qp) {
		cx3_log(dev, "send doorbell for QP 0x%x in RESET ignored", qpn);
		return;
	}
	if (qp->state == CX3_QPS_ERR) {
		cx3_qp_flush(dev, qp);
		return;
	}
	if (qp->state != CX3_QPS_RTS && qp->state != CX3_QPS_SQD) {
		cx3_log(dev, "send doorbell for QP 0x%x in state %u ignored",
			qpn, qp->state);
		return;
	}
	cx3_prefetch_check(dev, qp);
	cx3_qp_kick(dev, qp);
	cx3_pump(dev);
}

/*
 * Receive WQEs posted to a QP in ERR are flushed too; there is no
 * doorbell for them, so the platform polls (cx3_poll).
 */
void cx3_poll(struct cx3_dev *dev)
{
	struct cx3_qp *qp;

	cx3_fault_poll(dev);	/* a flapping cable flaps whatever the firmware does */
	if (cx3_dead(dev))
		return;		/* no flushes or resends after an internal error */
	for (qp = dev->err_qps; qp; qp = qp->err_next)
		cx3_qp_flush(dev, qp);
	cx3_cable_poll(dev);
	cx3_wirefuzz_poll(dev);
	cx3_rc_timers(dev);
	cx3_pump(dev);
}

bool cx3_needs_poll(struct cx3_dev *dev)
{
	return dev->err_qps || dev->timer_qps || cx3_cable_busy(dev) ||
	       cx3_fault_busy(dev) || cx3_wirefuzz_busy(dev);
}

/* RC requesters with an ACK or RNR timer running (cx3_rc.c) */
void cx3_qp_timer(struct cx3_dev *dev, struct cx3_qp *qp, bool on)
{
	struct cx3_qp **p;

	if (on && !qp->on_timer_list) {
		qp->on_timer_list = true;
		qp->timer_next = dev->timer_qps;
		dev->timer_qps = qp;
	} else if (!on && qp->on_timer_list) {
		for (p = &dev->timer_qps; *p; p = &(*p)->timer_next) {
			if (*p == qp) {
				*p = qp->timer_next;
				break;
			}
		}
		qp->on_timer_list = false;
	}
}

/*
 * Local ACK timeout: 4.096 us << the path's timeout field.  Guesses, for a
 * test bed whose VMs answer in milliseconds, not microseconds: never below
 * 10 ms, and 0 (which the IBA makes infinite) and anything above 30 s are
 * 30 s.
 */
uint64_t cx3_qp_ack_timeout_ms(const struct cx3_qp *qp)
{
	unsigned int t = qp->ctx[0x18 + 0x08] >> 3;
	uint64_t ms = t ? ((4096ull << t) / 1000000) : 30000;

	return ms < 10 ? 10 : ms > 30000 ? 30000 : ms;
}

/* The QP a packet is for: wire QPN 0 and 1 are the port's special QPs. */
struct cx3_qp *cx3_qp_by_wire(struct cx3_dev *dev, int port, uint32_t qpn)
{
	if (qpn <= 1) {
		if (!dev->base_sqpn)
			return NULL;
		qpn = dev->base_sqpn + (qpn ? 2 : 0) + (uint32_t)port - 1;
	} else if (dev->base_sqpn && qpn >= dev->base_sqpn &&
		   qpn < dev->base_sqpn + 8) {
		return NULL;	/* the special QPs are not reachable by number */
	}
	return cx3_qp_get(dev, qpn);
}

static void err_list_add(struct cx3_dev *dev, struct cx3_qp *qp)
{
	if (qp->on_err_list)
		return;
	qp->on_err_list = true;
	qp->err_next = dev->err_qps;
	dev->err_qps = qp;
}

static void err_list_del(struct cx3_dev *dev, struct cx3_qp *qp)
{
	struct cx3_qp **p;

	if (!qp->on_err_list)
		return;
	for (p = &dev->err_qps; *p; p = &(*p)->err_next) {
		if (*p == qp) {
			*p = qp->err_next;
			break;
		}
	}
	qp->on_err_list = false;
}

void cx3_qp_to_error(struct cx3_dev *dev, struct cx3_qp *qp)
{
	uint8_t data[24] = { 0 };
	bool was_err = qp->state == CX3_QPS_ERR;

	qp->state = CX3_QPS_ERR;
	cx3_rc_reset(dev, qp);
	cx3_qp_flush(dev, qp);
	err_list_add(dev, qp);
	if (qp->srq && !was_err) {
		cx3_put32(data, 0, qp->qpn);
		cx3_eq_post(dev, EVENT_SRQ_LAST_WQE, 0, data);
	}
}

static void qp_destroy(struct cx3_dev *dev, struct cx3_qp *qp)
{
	if (qp->dup_requests || qp->seq_naks || qp->stale_responses ||
	    qp->go_backs)
		cx3_log(dev, "QP 0x%x: %u duplicate requests answered, %u PSN sequence NAKs, %u stale responses, %u resends",
			qp->qpn, qp->dup_requests, qp->seq_naks,
			qp->stale_responses, qp->go_backs);
	err_list_del(dev, qp);
	cx3_rc_reset(dev, qp);
	dev->qps[qp_index(qp->qpn)] = NULL;
	free(qp->win);
	free(qp->resp_wqe);
	free(qp);
	dev->live.qp--;
}

struct qp_transition {
	uint16_t op;
	uint8_t from_mask;	/* 1 << state */
	uint8_t to;
};

#define S(x)	(1u << CX3_QPS_##x)
static const struct qp_transition transitions[] = {
	{ OP_RST2INIT, S(RST), CX3_QPS_INIT },
	{ OP_INIT2INIT, S(INIT), CX3_QPS_INIT },
	{ OP_INIT2RTR, S(INIT), CX3_QPS_RTR },
	{ OP_RTR2RTS, S(RTR), CX3_QPS_RTS },
	{ OP_RTS2RTS, S(RTS), CX3_QPS_RTS },
	{ OP_SQERR2RTS, S(SQER), CX3_QPS_RTS },
	{ OP_RTS2SQD, S(RTS), CX3_QPS_SQD },
	{ OP_SQD2RTS, S(SQD), CX3_QPS_RTS },
	{ OP_SQD2SQD, S(SQD), CX3_QPS_SQD },
	{ OP_2ERR, 0x7f, CX3_QPS_ERR },
	{ OP_2RST, 0x7f, CX3_QPS_RST },
};
#undef S

static uint8_t qp_latch(struct cx3_dev *dev, struct cx3_qp *qp, uint16_t op,
			const uint8_t *mbox)
{
	const uint8_t *in = mbox + QPC_OFF;
	uint32_t optpar = cx3_get32(mbox, 0);
	bool conn = cx3_qp_reliable(qp) || qp->st == CX3_ST_UC;
	int bit;

	if (op == OP_RST2INIT) {
		memcpy(qp->ctx, in, CX3_QPC_SIZE);
		qp->qkey = cx3_get32(in, 0xa8);
		return CX3_STAT_OK;
	}
	if (op == OP_INIT2RTR) {
		/* mtu and the port's scheduling queue apply to every type */
		latch(qp->ctx, in, &(struct qpc_field)F(0x08, 1));
		latch(qp->ctx, in, &(struct qpc_field)F(0x18 + 0x20, 1));
		if (conn)
			latch_list(qp->ctx, in, init2rtr_conn,
				   sizeof(init2rtr_conn) / sizeof(init2rtr_conn[0]));
	} else if (op == OP_RTR2RTS) {
		if (conn)
			latch_list(qp->ctx, in, rtr2rts_conn,
				   sizeof(rtr2rts_conn) / sizeof(rtr2rts_conn[0]));
		else
			latch_list(qp->ctx, in, rtr2rts_ud, 1);
	}
	for (bit = 0; bit < 32; bit++)
		if ((optpar >> bit) & 1)
			latch_list(qp->ctx, in, optpar_fields[bit], 2);
	(void)dev;
	qp->qkey = cx3_get32(qp->ctx, 0xa8);
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_qp_modify(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint32_t qpn = cmd->in_mod & 0xffffff;
	struct cx3_qp *qp = cx3_qp_get(dev, qpn);
	const struct qp_transition *t = NULL;
	uint8_t cur = qp ? qp->state : CX3_QPS_RST, want, status, data[24];
	size_t i;

	if (qp_index(qpn) >= 1u << dev->hca.log_qps)
		return CX3_STAT_BAD_INDEX;
	if (!qp && dev->qps[qp_index(qpn)]) {
		cx3_log(dev, "QP 0x%x: number taken by QP 0x%x", qpn,
			dev->qps[qp_index(qpn)]->qpn);
		return CX3_STAT_BAD_INDEX;
	}
	for (i = 0; i < sizeof(transitions) / sizeof(transitions[0]); i++)
		if (transitions[i].op == cmd->opcode)
			t = &transitions[i];
	if (!t || !((t->from_mask >> cur) & 1)) {
		cx3_log(dev, "QP 0x%x: transition 0x%03x not allowed from state %u",
			qpn, cmd->opcode, cur);
		return CX3_STAT_BAD_QP_STATE;
	}
	if (t->to == CX3_QPS_RST) {
		if (qp)
			qp_destroy(dev, qp);
		return CX3_STAT_OK;
	}
	if (cx3_cmd_inbox(dev, cmd, QPC_OFF + CX3_QPC_SIZE))
		return CX3_STAT_BAD_PARAM;
	want = cx3_get32(cmd->inbox, QPC_OFF) >> 28;
	if (want != t->to) {
		cx3_log(dev, "QP 0x%x: command 0x%03x with context state %u",
			qpn, cmd->opcode, want);
		return CX3_STAT_BAD_PARAM;
	}
	if (!qp) {
		if (!cx3_ctx_mapped(dev, dev->hca.qpc_base, qp_index(qpn),
				    CX3_QPC_ENTRY))
			return CX3_STAT_ICM_ERROR;
		qp = calloc(1, sizeof(*qp));
		if (!qp)
			return CX3_STAT_EXCEED_LIM;
		qp->qpn = qpn;
		qp->special_index = qpn - dev->base_sqpn;
		qp->state = CX3_QPS_RST;
		if (cmd->opcode == OP_RST2INIT &&
		    qp_geometry(dev, qp, cmd->inbox + QPC_OFF)) {
			free(qp);
			return CX3_STAT_BAD_PARAM;
		}
		/* the RC requester's window: at most one entry per SQ WQE */
		if (cx3_qp_reliable(qp) && qp->sq.cnt) {
			qp->win = calloc(qp->sq.cnt, sizeof(*qp->win));
			if (!qp->win) {
				free(qp);
				return CX3_STAT_EXCEED_LIM;
			}
		}
		dev->qps[qp_index(qpn)] = qp;
		dev->live.qp++;
	}
	if (t->to == CX3_QPS_ERR) {
		cx3_qp_to_error(dev, qp);
		return CX3_STAT_OK;
	}
	status = qp_latch(dev, qp, cmd->opcode, cmd->inbox);
	if (status != CX3_STAT_OK)
		return status;
	qp->state = t->to;
	cx3_put32(qp->ctx, 0x00, (cx3_get32(qp->ctx, 0x00) & 0x0fffffff) |
		  (uint32_t)qp->state << 28);
	if (cmd->opcode == OP_RTS2SQD && (cmd->in_mod >> 31)) {
		/*
		 * Drained once no request is in flight: at once, or when the
		 * RC requester's window empties (cx3_rc.c)
		 */
		if (cx3_qp_reliable(qp) && qp->win_cnt) {
			qp->drain_event = true;
		} else {
			memset(data, 0, sizeof(data));
			cx3_put32(data, 0, qpn);
			cx3_eq_post(dev, EVENT_SQ_DRAINED, 0, data);
		}
	}
	if (cmd->opcode == OP_INIT2RTR) {
		/* the responder starts at the RQ PSN the driver wrote */
		qp->epsn = cx3_get32(qp->ctx, 0x94) & IB_PSN_MASK;
		qp->nak_sent = false;
		qp->uc_drop = false;
		memset(qp->replay, 0, sizeof(qp->replay));
	}
	if (cmd->opcode == OP_RTR2RTS) {
		qp->sq_psn = cx3_get32(qp->ctx, 0x78) & 0xffffff;
		qp->rnr_left = (cx3_get32(qp->ctx, 0x70) >> 13) & 7;
		qp->retry_left = (cx3_get32(qp->ctx, 0x70) >> 16) & 7;
		if (cx3_qp_reliable(qp))
			cx3_rc_start(dev, qp);
	}
	if (t->to == CX3_QPS_RTS) {
		cx3_qp_kick(dev, qp);
		cx3_pump(dev);
	}
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_query_qp(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint32_t qpn = cmd->in_mod & 0xffffff;
	struct cx3_qp *qp = cx3_qp_get(dev, qpn);
	uint8_t *c = cmd->outbox + QPC_OFF;

	if (qp_index(qpn) >= 1u << dev->hca.log_qps)
		return CX3_STAT_BAD_INDEX;
	memset(cmd->outbox, 0, QPC_OFF + CX3_QPC_SIZE);
	cmd->out_len = QPC_OFF + CX3_QPC_SIZE;
	if (!qp)		/* a QP in RESET: all zero, state 0 */
		return CX3_STAT_OK;
	memcpy(c, qp->ctx, CX3_QPC_SIZE);
	cx3_put32(c, 0x00, (cx3_get32(c, 0x00) & 0x0fffffff) |
		  (uint32_t)qp->state << 28);
	cx3_put32(c, 0x10, qpn);
	cx3_put16(c, 0xb4, qp->rq.cons & 0xffff);
	cx3_put16(c, 0xb6, qp->sq.cons & 0xffff);
	return CX3_STAT_OK;
}

void cx3_qp_clear_all(struct cx3_dev *dev)
{
	uint32_t i;

	if (!dev->qps)
		return;
	for (i = 0; i < 1u << dev->hca.log_qps; i++)
		if (dev->qps[i])
			qp_destroy(dev, dev->qps[i]);
	dev->err_qps = NULL;
	dev->timer_qps = NULL;
}

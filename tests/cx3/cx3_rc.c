// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the RC requester (IBA chapter 9.7).  Posted WQEs enter
 * a window of requests in flight, each with its PSNs (one per request
 * packet, or per RDMA READ response packet), and leave it in SQ order when
 * acknowledged.  Many messages are in flight at once, bounded by the SQ and,
 * for RDMA READs and atomics, by the QP's SRA max (initiator depth); a WQE
 * with the fence bit waits until none of those is outstanding.
 *
 * Acknowledgement: an ACK acknowledges its PSN and every one before it
 * (coalesced ACKs); a READ response or an atomic response acknowledges
 * every request before its own.  A READ or an atomic that such an
 * acknowledgement passes over without its response had its response lost:
 * the requester goes back to it (an implied NAK).  READ responses must come
 * in PSN order; one ahead of the next expected means some were lost, and
 * the READ is asked again for the rest only (RETH moved on, the PSN of the
 * first missing response).
 *
 * Recovery is go-back-N: a PSN sequence error NAK, a lost response or the
 * local ACK timer sends everything again from the first PSN not yet
 * acknowledged (or from the one the NAK names), each costing one of the
 * QP's retries; an RNR NAK waits for the timer it carries, then resends
 * from its PSN, costing one RNR retry (7: unlimited).  Progress (a valid
 * response that acknowledges something) restores both counts.  With none
 * left the oldest request completes with the retry-exceeded or
 * RNR-retry-exceeded error, and the QP goes to the error state with the
 * rest flushed.  Any other NAK fails the request it names the same way.
 * Responses outside the window are stale (late answers to an earlier
 * transmission) and dropped, counted per QP.
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_pkt.h"
#include "cx3_qp.h"
#include "cx3_wqe.h"

#define EVENT_SQ_DRAINED	0x03

static struct cx3_rc_msg *msg_at(struct cx3_qp *qp, uint32_t i)
{
	return &qp->win[(qp->win_head + i) & (qp->sq.cnt - 1)];
}

static bool is_atomic(const struct cx3_rc_msg *m)
{
	return m->opcode == WQE_ATOMIC_CS || m->opcode == WQE_ATOMIC_FA;
}

static bool wants_response(const struct cx3_rc_msg *m)
{
	return m->opcode == WQE_RDMA_READ || is_atomic(m);
}

/* done counts an atomic's response too: its one PSN */
static bool msg_complete(const struct cx3_rc_msg *m)
{
	return m->done >= m->npsn;
}

/* The first PSN of the request not yet acknowledged in m */
static uint32_t msg_resume_psn(const struct cx3_rc_msg *m)
{
	return (m->psn + m->done) & IB_PSN_MASK;
}

static struct cx3_diag_counters *diag(struct cx3_dev *dev, struct cx3_qp *qp)
{
	return &dev->port[cx3_qp_port(qp) - 1].diag;
}

static uint64_t now_ms(struct cx3_dev *dev)
{
	return dev->host.now_ms(dev->host.opaque);
}

static void timer_sync(struct cx3_dev *dev, struct cx3_qp *qp)
{
	cx3_qp_timer(dev, qp, qp->ack_at || qp->rnr_at);
}

/*
 * Is any transmitted request waiting for its acknowledgement?  Called after
 * retire(), which leaves an unacknowledged request at the head (or nothing):
 * so, has anything been transmitted.
 */
static bool awaiting(const struct cx3_qp *qp)
{
	return qp->tx_idx > 0 && qp->win_cnt > 0;
}

/* The local ACK timer runs while something sent is unacknowledged. */
static void ack_timer(struct cx3_dev *dev, struct cx3_qp *qp, bool restart)
{
	if (!awaiting(qp) || qp->rnr_at)
		qp->ack_at = 0;
	else if (restart || !qp->ack_at)
		qp->ack_at = now_ms(dev) + cx3_qp_ack_timeout_ms(qp);
	timer_sync(dev, qp);
}

void cx3_rc_reset(struct cx3_dev *dev, struct cx3_qp *qp)
{
	qp->win_head = 0;
	qp->win_cnt = 0;
	qp->tx_idx = 0;
	qp->tx_pkt = 0;
	qp->rd_atomic = 0;
	qp->ack_at = 0;
	qp->rnr_at = 0;
	qp->resp_gap = false;
	qp->tx_error = false;
	qp->drain_event = false;
	cx3_qp_timer(dev, qp, false);
}

/* RTR2RTS: the window starts empty at the SQ's consumer counter. */
void cx3_rc_start(struct cx3_dev *dev, struct cx3_qp *qp)
{
	cx3_rc_reset(dev, qp);
	qp->sq_next = qp->sq.cons;
}

/* The oldest request fails: its error CQE, the QP to ERR, the rest flushed */
static void fail_head(struct cx3_dev *dev, struct cx3_qp *qp,
		      uint8_t syndrome)
{
	struct cx3_rc_msg *m = msg_at(qp, 0);

	cx3_log(dev, "QP 0x%x: send WQE %u (opcode 0x%02x, PSN %u) failed, syndrome 0x%02x",
		qp->qpn, m->wqe & 0xffff, m->opcode, m->psn, syndrome);
	cx3_send_cqe(dev, qp, m->wqe & 0xffff, m->opcode, 0, syndrome);
	qp->sq.cons++;
	cx3_qp_to_error(dev, qp);	/* resets the window (cx3_rc_reset) */
}

/* Complete the acknowledged requests at the head of the window, in order. */
static void retire(struct cx3_dev *dev, struct cx3_qp *qp)
{
	struct cx3_rc_msg *m;
	uint8_t ev[24] = { 0 };
	uint32_t byte_cnt;

	while (qp->win_cnt) {
		m = msg_at(qp, 0);
		if (m->syndrome) {
			fail_head(dev, qp, m->syndrome);
			return;
		}
		if (m->npsn && !msg_complete(m))
			break;
		byte_cnt = m->opcode == WQE_RDMA_READ ? m->len :
			   is_atomic(m) ? 8 : 0;
		if (m->signaled)
			cx3_send_cqe(dev, qp, m->wqe & 0xffff, m->opcode,
				     byte_cnt, 0);
		if (wants_response(m))
			qp->rd_atomic--;
		qp->sq.cons++;
		qp->win_head = (qp->win_head + 1) & (qp->sq.cnt - 1);
		qp->win_cnt--;
		if (qp->tx_idx) {
			qp->tx_idx--;
		} else {
			qp->tx_pkt = 0;
		}
	}
	if (!qp->win_cnt && qp->drain_event) {
		qp->drain_event = false;
		cx3_put32(ev, 0, qp->qpn);
		cx3_eq_post(dev, EVENT_SQ_DRAINED, 0, ev);
	}
}

/* The window index of the request that uses psn, or -1. */
static int find_msg(struct cx3_qp *qp, uint32_t psn)
{
	uint32_t i;

	for (i = 0; i < qp->win_cnt; i++) {
		struct cx3_rc_msg *m = msg_at(qp, i);

		if (m->npsn && cx3_psn_diff(m->psn, psn) < m->npsn)
			return (int)i;
	}
	return -1;
}

/*
 * Everything before psn is acknowledged.  Returns -1, or the window index
 * of a READ or atomic it passes over without (all of) its response: lost.
 */
static int ack_before(struct cx3_qp *qp, uint32_t psn)
{
	uint32_t i, rel;

	for (i = 0; i < qp->win_cnt; i++) {
		struct cx3_rc_msg *m = msg_at(qp, i);

		if (!m->npsn)
			continue;
		rel = cx3_psn_diff(m->psn, psn);
		if (rel >= 0x800000u || rel == 0)
			break;			/* psn is at or before m */
		if (rel < m->npsn) {		/* inside m */
			if (!wants_response(m) && rel > m->done)
				m->done = rel;
			break;
		}
		if (wants_response(m)) {
			if (!msg_complete(m))
				return (int)i;
		} else {
			m->done = m->npsn;
		}
	}
	return -1;
}

/* Send again from the request at window index k, from its PSN psn. */
static void go_back(struct cx3_dev *dev, struct cx3_qp *qp, int k,
		    uint32_t psn)
{
	struct cx3_rc_msg *m = msg_at(qp, (uint32_t)k);

	qp->go_backs++;
	if (dev->trace)
		cx3_log(dev, "QP 0x%x: resend from PSN %u (WQE %u)", qp->qpn,
			psn, m->wqe & 0xffff);
	qp->tx_idx = (uint32_t)k;
	qp->tx_pkt = cx3_psn_diff(m->psn, psn);
	if (qp->tx_pkt >= m->npsn)
		qp->tx_pkt = 0;
	qp->ack_at = 0;
}

/* One retry is used (a timeout, a sequence NAK, lost responses). */
static bool use_retry(struct cx3_dev *dev, struct cx3_qp *qp)
{
	if (qp->retry_left == 0) {
		diag(dev, qp)->sq_tree++;
		fail_head(dev, qp, SYN_RETRY_EXC);
		return false;
	}
	qp->retry_left--;	/* (7 is seven: only the RNR count has "forever") */
	return true;
}

/* A valid response moved the window: the counts come back. */
static void progress(struct cx3_qp *qp)
{
	qp->retry_left = (cx3_get32(qp->ctx, 0x70) >> 16) & 7;
	qp->rnr_left = (cx3_get32(qp->ctx, 0x70) >> 13) & 7;
	qp->resp_gap = false;
}

/* The first PSN not yet acknowledged (sq_psn if nothing is in flight). */
static uint32_t first_unacked(struct cx3_qp *qp)
{
	uint32_t i;

	for (i = 0; i < qp->win_cnt; i++) {
		struct cx3_rc_msg *m = msg_at(qp, i);

		if (m->npsn && !msg_complete(m))
			return msg_resume_psn(m);
	}
	return qp->sq_psn;
}

/* READ responses or an atomic response went missing: ask again, once. */
static void lost_responses(struct cx3_dev *dev, struct cx3_qp *qp, int k)
{
	if (qp->resp_gap)
		return;		/* already asked; the timer covers the rest */
	diag(dev, qp)->sq_oos++;
	if (!use_retry(dev, qp))
		return;
	qp->resp_gap = true;
	go_back(dev, qp, k, msg_resume_psn(msg_at(qp, (uint32_t)k)));
}

static uint64_t rnr_timer_ms(uint8_t code)
{
	/* IB encodes 0.01 ms .. 491 ms; 0 means 655.36 ms */
	static const uint16_t us10[32] = {
		65535, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
		12288, 16384, 24576, 32768, 49152,
	};

	return us10[code & 31] / 100 + 1;
}

/* Data of a READ response packet into the WQE's buffers. */
static int read_data(struct cx3_dev *dev, struct cx3_qp *qp,
		     struct cx3_rc_msg *m, const uint8_t *data, size_t len)
{
	struct cx3_swqe *w = malloc(sizeof(*w));
	uint64_t skip = (uint64_t)m->done * cx3_qp_mtu(qp);
	int err;

	if (!w)
		return SYN_LOCAL_LENGTH;
	err = cx3_wqe_read(dev, qp, m->wqe, w) ? SYN_LOCAL_LENGTH :
	      cx3_scatter_sges(dev, qp, w->b + 32, (w->size - 32) / 16, data,
			       len, skip);
	free(w);
	return err;
}

static int atomic_data(struct cx3_dev *dev, struct cx3_qp *qp,
		       struct cx3_rc_msg *m, const uint8_t *orig)
{
	struct cx3_swqe *w = malloc(sizeof(*w));
	int err;

	if (!w)
		return SYN_LOCAL_LENGTH;
	err = cx3_wqe_read(dev, qp, m->wqe, w) || w->size < 48 ?
	      SYN_LOCAL_LENGTH :
	      cx3_scatter_sges(dev, qp, w->b + 48, (w->size - 48) / 16, orig,
			       8, 0);
	free(w);
	return err;
}

static bool is_read_response(uint8_t op)
{
	return op >= IB_OP_READ_RESP_FIRST && op <= IB_OP_READ_RESP_ONLY;
}

/* A READ response or an atomic response for the request at index k. */
static bool take_data(struct cx3_dev *dev, struct cx3_qp *qp, int k,
		      const struct cx3_pkt *p, uint8_t op)
{
	struct cx3_rc_msg *m = msg_at(qp, (uint32_t)k);
	size_t h = op == IB_OP_READ_RESP_MIDDLE ? 0 : IB_AETH_BYTES;
	int lost, err;

	if (is_read_response(op) ? m->opcode != WQE_RDMA_READ :
	    !is_atomic(m) || p->psn != m->psn) {
		qp->stale_responses++;
		return false;		/* not what this request asked */
	}
	if (msg_complete(m) || p->psn != msg_resume_psn(m)) {
		if (!msg_complete(m) && !cx3_psn_before(p->psn, msg_resume_psn(m)))
			lost_responses(dev, qp, k);	/* ahead: lost ones */
		else
			qp->stale_responses++;		/* a copy */
		return false;
	}
	lost = ack_before(qp, m->psn);
	if (lost >= 0) {
		lost_responses(dev, qp, lost);
		return false;
	}
	if (is_atomic(m)) {
		if (p->payload_len < IB_AETH_BYTES + IB_ATOMIC_ACK_BYTES)
			return false;
		err = atomic_data(dev, qp, m, p->payload + IB_AETH_BYTES);
		m->done = 1;
	} else {
		err = read_data(dev, qp, m, p->payload + h, p->payload_len - h);
		m->done++;
	}
	if (err) {
		/* a local error: the request fails once it is the oldest */
		m->syndrome = (uint8_t)err;
		qp->tx_error = true;
	}
	return true;
}

static uint8_t nak_syndrome(struct cx3_dev *dev, struct cx3_qp *qp,
			    uint8_t aeth)
{
	switch (aeth) {
	case AETH_NAK_ACCESS:
		diag(dev, qp)->sq_rae++;
		return SYN_REMOTE_ACCESS;
	case AETH_NAK_INV_REQ:
		diag(dev, qp)->sq_rire++;
		return SYN_REMOTE_INVAL_REQ;
	default:
		diag(dev, qp)->sq_roe++;
		return SYN_REMOTE_OP;
	}
}

void cx3_rc_response(struct cx3_dev *dev, struct cx3_qp *qp,
		     const struct cx3_pkt *p)
{
	uint8_t op = p->opcode & 0x1f, aeth;
	bool moved = false;
	uint32_t base, una;
	int k, lost;

	if ((qp->state != CX3_QPS_RTS && qp->state != CX3_QPS_SQD) || !qp->win)
		return;
	if (op != IB_OP_READ_RESP_MIDDLE && p->payload_len < IB_AETH_BYTES)
		return;
	/* a MIDDLE READ response has no AETH: it acknowledges nothing */
	aeth = op == IB_OP_READ_RESP_MIDDLE ? 0 : p->ext[0];
	base = qp->win_cnt ? msg_at(qp, 0)->psn : qp->sq_psn;
	if (!qp->win_cnt ||
	    cx3_psn_diff(base, p->psn) >= cx3_psn_diff(base, qp->sq_psn)) {
		qp->stale_responses++;	/* late, duplicated, or nothing asked */
		return;
	}
	k = find_msg(qp, p->psn);
	if (k < 0) {
		qp->stale_responses++;
		return;
	}
	if (is_read_response(op) || op == IB_OP_ATOMIC_ACK) {
		moved = take_data(dev, qp, k, p, op);
	} else if ((aeth >> 5) == 0) {			/* ACK */
		lost = ack_before(qp, (p->psn + 1) & IB_PSN_MASK);
		if (lost >= 0)
			lost_responses(dev, qp, lost);
		else
			moved = true;
	} else if ((aeth >> 5) == 1) {			/* RNR NAK */
		lost = ack_before(qp, p->psn);
		if (lost >= 0) {
			lost_responses(dev, qp, lost);
		} else {
			diag(dev, qp)->sq_rnr++;
			retire(dev, qp);
			k = find_msg(qp, p->psn);
			if (k < 0)
				return;
			if (qp->rnr_left == 0) {
				diag(dev, qp)->sq_rree++;
				fail_head(dev, qp, SYN_RNR_RETRY_EXC);
				return;
			}
			if (qp->rnr_left != 7)
				qp->rnr_left--;
			go_back(dev, qp, k, p->psn);
			qp->rnr_at = now_ms(dev) + rnr_timer_ms(aeth);
		}
	} else if (aeth == AETH_NAK_PSN_SEQ) {
		/*
		 * The responder lost what we sent from its expected PSN on:
		 * everything before it arrived.  Earlier READs or atomics
		 * still short of responses go back with the rest.
		 */
		una = first_unacked(qp);
		ack_before(qp, p->psn);
		diag(dev, qp)->sq_oos++;
		/* what it acknowledges is progress: the counts come back */
		if (first_unacked(qp) != una)
			progress(qp);
		retire(dev, qp);
		if (qp->state != CX3_QPS_RTS && qp->state != CX3_QPS_SQD)
			return;
		if (!use_retry(dev, qp))
			return;
		lost = ack_before(qp, p->psn);
		k = lost >= 0 ? lost : find_msg(qp, p->psn);
		if (k >= 0)
			go_back(dev, qp, k, lost >= 0 ?
				msg_resume_psn(msg_at(qp, (uint32_t)k)) : p->psn);
	} else {					/* NAK */
		ack_before(qp, p->psn);
		retire(dev, qp);
		if (qp->state != CX3_QPS_RTS && qp->state != CX3_QPS_SQD)
			return;
		k = find_msg(qp, p->psn);
		if (k >= 0) {
			msg_at(qp, (uint32_t)k)->syndrome =
				nak_syndrome(dev, qp, aeth);
			qp->tx_error = true;
		}
	}
	if (moved)
		progress(qp);
	retire(dev, qp);
	if (qp->state != CX3_QPS_RTS && qp->state != CX3_QPS_SQD)
		return;
	ack_timer(dev, qp, moved);	/* progress restarts the timer */
	cx3_qp_kick(dev, qp);
}

/* From the poll: resend after an RNR wait, or after an ACK timeout. */
void cx3_rc_timers(struct cx3_dev *dev)
{
	uint64_t now = now_ms(dev);
	struct cx3_qp *qp, *next;
	int k;

	for (qp = dev->timer_qps; qp; qp = next) {
		next = qp->timer_next;
		if (qp->rnr_at && now >= qp->rnr_at) {
			qp->rnr_at = 0;
			timer_sync(dev, qp);
			cx3_qp_kick(dev, qp);
			continue;
		}
		if (!qp->ack_at || now < qp->ack_at)
			continue;
		qp->ack_at = 0;
		diag(dev, qp)->sq_to++;
		if (!use_retry(dev, qp))
			continue;
		/* from the oldest request's first unacknowledged PSN */
		for (k = 0; k < (int)qp->win_cnt; k++)
			if (msg_at(qp, (uint32_t)k)->npsn)
				break;
		if (k < (int)qp->win_cnt)
			go_back(dev, qp, k, msg_resume_psn(msg_at(qp, (uint32_t)k)));
		qp->resp_gap = false;
		timer_sync(dev, qp);
		cx3_qp_kick(dev, qp);
	}
}

/* SRA max: READs and atomics the QP may have outstanding (1 << field) */
static uint32_t sra_max(const struct cx3_qp *qp)
{
	return 1u << ((cx3_get32(qp->ctx, 0x70) >> 21) & 7);
}

/* Send again the request at tx_idx, from packet tx_pkt. */
static void resend(struct cx3_dev *dev, struct cx3_qp *qp,
		   struct cx3_swqe *w)
{
	struct cx3_rc_msg *m = msg_at(qp, qp->tx_idx);
	uint32_t from = qp->tx_pkt, npsn, len;
	int syn;

	qp->tx_idx++;
	qp->tx_pkt = 0;
	if (!m->npsn || m->syndrome || msg_complete(m))
		return;
	if (m->opcode == WQE_RDMA_READ && from < m->done)
		from = m->done;		/* the responses we have stay */
	syn = cx3_wqe_read(dev, qp, m->wqe, w) ? SYN_LOCAL_LENGTH :
	      cx3_send_request(dev, qp, w, m->psn, from, &npsn, &len);
	if (!syn && (npsn != m->npsn || len != m->len))
		syn = SYN_LOCAL_LENGTH;	/* the WQE changed under the card */
	if (syn) {
		m->syndrome = (uint8_t)syn;
		qp->tx_error = true;
		qp->tx_idx = qp->win_cnt;
	}
}

/*
 * Start the WQE at sq_next: it enters the window and its packets leave.
 * Returns false if it has to wait (window, SRA max, fence) or nothing is
 * posted.
 */
static bool start_next(struct cx3_dev *dev, struct cx3_qp *qp,
		       struct cx3_swqe *w)
{
	struct cx3_rc_msg *m;
	uint32_t npsn = 0, len = 0;
	int syn = 0;

	if (qp->state != CX3_QPS_RTS || qp->tx_error ||
	    qp->win_cnt == qp->sq.cnt || !cx3_qp_sq_posted(dev, qp, qp->sq_next))
		return false;
	if (cx3_wqe_read(dev, qp, qp->sq_next, w)) {
		w->opcode = 0;
		w->signaled = true;
		syn = SYN_LOCAL_LENGTH;
	} else if (w->opcode == WQE_RDMA_READ || w->opcode == WQE_ATOMIC_CS ||
		   w->opcode == WQE_ATOMIC_FA) {
		if (qp->rd_atomic >= sra_max(qp))
			return false;
	}
	if (!syn && w->fence && qp->rd_atomic)
		return false;
	m = msg_at(qp, qp->win_cnt);
	memset(m, 0, sizeof(*m));
	m->wqe = qp->sq_next;
	m->psn = qp->sq_psn;
	m->opcode = w->opcode;
	m->signaled = w->signaled;
	/* like a NOP, a local operation uses no PSN: done when admitted */
	if (!syn && cx3_wqe_is_local(w->opcode))
		syn = cx3_wqe_local_op(dev, qp, w);
	else if (!syn && w->opcode != WQE_NOP)
		syn = cx3_send_request(dev, qp, w, qp->sq_psn, 0, &npsn, &len);
	if (syn) {
		m->syndrome = (uint8_t)syn;
		qp->tx_error = true;
		npsn = 0;
	}
	m->npsn = npsn;
	m->len = len;
	if (wants_response(m) && !syn)
		qp->rd_atomic++;
	qp->win_cnt++;
	qp->tx_idx = qp->win_cnt;
	qp->tx_pkt = 0;
	qp->sq_next++;
	qp->sq_psn = (qp->sq_psn + npsn) & IB_PSN_MASK;
	return true;
}

/* From the pump: (re)send what is due, start what is posted. */
void cx3_rc_execute(struct cx3_dev *dev, struct cx3_qp *qp,
		    struct cx3_swqe *w)
{
	if (!qp->win || qp->rnr_at)
		return;
	for (;;) {
		if (qp->state != CX3_QPS_RTS && qp->state != CX3_QPS_SQD)
			return;
		if (qp->tx_idx < qp->win_cnt) {
			resend(dev, qp, w);
			continue;
		}
		if (!start_next(dev, qp, w))
			break;
	}
	retire(dev, qp);
	if (qp->state == CX3_QPS_RTS || qp->state == CX3_QPS_SQD)
		ack_timer(dev, qp, false);
}

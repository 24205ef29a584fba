// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the RC/UC/XRC responder.  A request that passed the
 * receive path's checks (cx3_recv.c) is checked for its PSN (duplicates
 * answered again without executing twice, atomics from the replay record),
 * then executed: SEND, SEND with Invalidate, RDMA WRITE, RDMA READ,
 * atomics; remote keys may name memory windows.  The answer is an ACK,
 * an RNR NAK or a NAK, and errors move the QP as the IBA says.
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_mr.h"
#include "cx3_pkt.h"
#include "cx3_qp.h"
#include "cx3_recv.h"
#include "cx3_srq.h"

static void respond_psn(struct cx3_dev *dev, struct cx3_qp *qp,
			const struct cx3_pkt *p, uint32_t psn, uint8_t opcode,
			bool with_aeth, uint8_t aeth, const uint8_t *data,
			size_t len)
{
	uint8_t *pkt = malloc(IB_MAX_PKT);
	size_t off, h = with_aeth ? IB_AETH_BYTES : 0;

	if (!pkt)
		return;
	off = cx3_build_headers(dev, qp, p->port, p->slid,
				p->grh ? p->grh + 8 : NULL, p->grh != NULL,
				p->sl, cx3_qp_transport(qp) | opcode, false,
				cx3_qp_remote_qpn(qp), psn, h + len, pkt);
	if (with_aeth)
		cx3_put32(pkt, off, (uint32_t)aeth << 24 | (qp->msn & 0xffffff));
	if (len)
		memcpy(pkt + off + h, data, len);
	cx3_link_xmit(dev, p->port, pkt, (size_t)(cx3_get16(pkt, 4) & 0x7ff) * 4);
	free(pkt);
}

static void respond(struct cx3_dev *dev, struct cx3_qp *qp,
		    const struct cx3_pkt *p, uint8_t opcode, uint8_t aeth,
		    const uint8_t *data, size_t len)
{
	if (aeth == AETH_ACK || opcode != IB_OP_ACK)
		qp->msn++;
	respond_psn(dev, qp, p, p->psn, opcode, true, aeth, data, len);
}

/* The PSNs an RDMA READ of len bytes uses: one per response packet. */
static uint32_t read_packets(const struct cx3_qp *qp, size_t len)
{
	uint32_t mtu = cx3_qp_mtu(qp);

	return len <= mtu ? 1 : (uint32_t)((len + mtu - 1) / mtu);
}

/*
 * RDMA READ data, segmented by the path MTU: FIRST/LAST carry an AETH.  A
 * regenerated response (to a duplicate request) completes no new message.
 */
static void read_response(struct cx3_dev *dev, struct cx3_qp *qp,
			  const struct cx3_pkt *p, const uint8_t *data,
			  size_t len, bool regenerated)
{
	uint32_t mtu = cx3_qp_mtu(qp), i, n = read_packets(qp, len);
	size_t pos = 0, chunk;
	uint8_t op;

	if (!regenerated)
		qp->msn++;
	for (i = 0; i < n; i++, pos += chunk) {
		chunk = n == 1 ? len : i + 1 == n ? len - pos : mtu;
		op = n == 1 ? IB_OP_READ_RESP_ONLY : i == 0 ? IB_OP_READ_RESP_FIRST :
		     i + 1 == n ? IB_OP_READ_RESP_LAST : IB_OP_READ_RESP_MIDDLE;
		respond_psn(dev, qp, p, p->psn + i, op,
			    op != IB_OP_READ_RESP_MIDDLE, 0, data + pos, chunk);
	}
}

/*
 * The NAK for a receive WQE that could not take a SEND: a length error is
 * an invalid request, a protection error in its buffers (a deregistered or
 * re-registered MR) a remote operational error (as the in-tree stack and
 * rdma-core's re-registration tests see a ConnectX-3 answer).
 */
static uint8_t receive_nak(int syn)
{
	return syn == SYN_LOCAL_PROT ? AETH_NAK_OP_ERR : AETH_NAK_INV_REQ;
}

/* The receive CQE opcode of the packet that ends a SEND */
static uint8_t recv_opcode(uint8_t op)
{
	if (op == IB_OP_SEND_ONLY_INV || op == IB_OP_SEND_LAST_INV)
		return RECV_OP_SEND_INVAL;	/* the R_Key in immed_rss_invalid */
	if (op == IB_OP_SEND_ONLY_IMM || op == IB_OP_SEND_LAST_IMM)
		return RECV_OP_SEND_IMM;
	return RECV_OP_SEND;
}

/*
 * A SEND with Invalidate: once its data is placed, the R_Key of its IETH
 * (a type 2 window bound to this QP, or a fast-register region, of the
 * QP's PD) goes back to the free state.  Guess: a key that cannot be
 * invalidated fails the receive as an invalid request (receive syndrome
 * and NAK), the IBA's class of a malformed request.
 */
static int send_invalidate(struct cx3_dev *dev, struct cx3_qp *qp,
			   const uint8_t *ieth)
{
	return cx3_mw_remote_invalidate(dev, cx3_get32(ieth, 0), cx3_resp_pd(qp),
					qp->qpn) ? SYN_REMOTE_INVAL_REQ : 0;
}

/* A responder error: NAK (RC), the QP to ERR, the affiliated event. */
static void responder_error(struct cx3_dev *dev, struct cx3_qp *qp,
			    const struct cx3_pkt *p, uint8_t nak)
{
	uint8_t ev[24] = { 0 };

	if (qp->st == CX3_ST_UC)
		return;		/* UC: the message is silently dropped */
	if (nak == AETH_NAK_ACCESS)
		dev->port[p->port - 1].diag.rq_rae++;
	else if (nak == AETH_NAK_INV_REQ)
		dev->port[p->port - 1].diag.rq_rire++;
	respond(dev, qp, p, IB_OP_ACK, nak, NULL, 0);
	cx3_put32(ev, 0, qp->qpn);
	cx3_eq_post(dev, nak == AETH_NAK_ACCESS ? EVENT_WQ_ACCESS :
			 nak == AETH_NAK_INV_REQ ? EVENT_WQ_INVAL_REQ :
			 EVENT_WQ_CATAS, 0, ev);
	cx3_qp_to_error(dev, qp);
}

/*
 * RC only: no receive WQE yet, ask the requester to retry later.  The
 * expected PSN stays at this packet; the rest of its message, already on
 * the way, is dropped without another NAK until the retry arrives (see
 * rc_sequence).
 */
static void rnr_nak(struct cx3_dev *dev, struct cx3_qp *qp,
		    const struct cx3_pkt *p)
{
	if (!cx3_qp_reliable(qp))
		return;
	dev->port[p->port - 1].diag.rq_rnr++;
	respond(dev, qp, p, IB_OP_ACK, AETH_RNR_NAK |
		((cx3_get32(qp->ctx, 0x94) >> 24) & 0x1f), NULL, 0);
	qp->nak_sent = true;
}

/* A request packet was executed: n PSNs of the sequence are used. */
static void accept_psn(struct cx3_qp *qp, const struct cx3_pkt *p,
		       uint32_t n)
{
	qp->epsn = (p->psn + n) & IB_PSN_MASK;
	qp->nak_sent = false;
}

/* Strip the ImmDt header off the payload; NULL if the packet is short. */
static const uint8_t *take_imm(const uint8_t **d, size_t *len)
{
	const uint8_t *imm = *d;

	if (*len < IB_IMM_BYTES)
		return NULL;
	*d += IB_IMM_BYTES;
	*len -= IB_IMM_BYTES;
	return imm;
}

static bool qp_allows(const struct cx3_qp *qp, unsigned int bit)
{
	return (cx3_get32(qp->ctx, 0x90) >> bit) & 1;
}

/*
 * RDMA READ: the data the RETH names, sent back from the request's PSN on.
 * Returns 0, or an AETH NAK syndrome (nothing sent).
 */
static uint8_t read_request(struct cx3_dev *dev, struct cx3_qp *qp,
			    const struct cx3_pkt *p, bool regenerated)
{
	const uint8_t *d = p->ext;
	uint64_t va;
	uint32_t rkey;
	size_t n;
	uint8_t *buf;

	if (p->payload_len < IB_RETH_BYTES)
		return AETH_NAK_INV_REQ;
	va = cx3_get64(d, 0);
	rkey = cx3_get32(d, 8);
	n = cx3_get32(d, 12);
	if (n > (16u << 20))
		return AETH_NAK_ACCESS;
	buf = n ? malloc(n) : NULL;
	if ((n && !buf) || !qp_allows(qp, 15) ||
	    (n && cx3_mr_remote(dev, rkey, cx3_resp_pd(qp), qp->qpn, va, buf, n,
				CX3_ACC_REMOTE_READ, false))) {
		free(buf);
		return AETH_NAK_ACCESS;
	}
	read_response(dev, qp, p, buf, n, regenerated);
	free(buf);
	if (!regenerated)
		accept_psn(qp, p, read_packets(qp, n));
	return 0;
}

static bool last_of_message(uint8_t op)
{
	return op == IB_OP_SEND_LAST || op == IB_OP_SEND_LAST_IMM ||
	       op == IB_OP_SEND_ONLY || op == IB_OP_SEND_ONLY_IMM ||
	       op == IB_OP_SEND_LAST_INV || op == IB_OP_SEND_ONLY_INV ||
	       op == IB_OP_WRITE_LAST || op == IB_OP_WRITE_LAST_IMM ||
	       op == IB_OP_WRITE_ONLY || op == IB_OP_WRITE_ONLY_IMM;
}

/*
 * A request the responder has seen before (its PSN is in the duplicate
 * region behind the expected PSN): the requester resent it because our
 * answer was slow or lost.  It is answered again, never executed again
 * (IBA chapter 9.7): a SEND or RDMA WRITE gets an ACK, an RDMA READ its
 * response again (reads are idempotent), an atomic the result saved when
 * it was executed.
 */
static void rc_duplicate(struct cx3_dev *dev, struct cx3_qp *qp,
			 const struct cx3_pkt *p)
{
	uint8_t op = p->opcode & 0x1f;
	unsigned int i;

	qp->dup_requests++;
	dev->port[p->port - 1].diag.rq_dup++;
	if (dev->trace)
		cx3_log(dev, "QP 0x%x: duplicate request op 0x%02x PSN %u (expected %u)",
			qp->qpn, p->opcode, p->psn, qp->epsn);
	switch (op) {
	case IB_OP_READ_REQ:
		/*
		 * Guess: the response is regenerated from the duplicate's own
		 * RETH; if that no longer passes the access checks, nothing is
		 * sent (the QP is not put in error for a stale duplicate) and
		 * the requester times out.
		 */
		read_request(dev, qp, p, true);
		return;
	case IB_OP_CMP_SWAP:
	case IB_OP_FETCH_ADD:
		/*
		 * Answered from the replay record of the last atomics (as
		 * many as a requester may have outstanding); guess: one older
		 * than those is dropped unanswered, and its requester times
		 * out.
		 */
		for (i = 0; i < CX3_ATOMIC_REPLAY; i++) {
			const struct cx3_atomic_replay *r = &qp->replay[i];

			if (r->valid && r->psn == p->psn) {
				respond_psn(dev, qp, p, p->psn, IB_OP_ATOMIC_ACK,
					    true, 0, r->orig, 8);
				return;
			}
		}
		return;
	default:
		/*
		 * ACK what a new request's ACK would: only a packet that asks
		 * for one, or ends a message.  The ACK carries the last PSN
		 * executed, which acknowledges the duplicate and everything
		 * before it (ACKs coalesce, IBA chapter 9.7); that a
		 * ConnectX-3 picks this PSN rather than the duplicate's own is
		 * a guess, both being valid.  The MSN does not move.
		 */
		if (p->ackreq || last_of_message(op))
			respond_psn(dev, qp, p, (qp->epsn - 1) & IB_PSN_MASK,
				    IB_OP_ACK, true, AETH_ACK, NULL, 0);
		return;
	}
}

/*
 * The PSN check of an RC responder (IBA chapter 9.7): true if the request is
 * the expected one and is to be executed.  A duplicate is answered by
 * rc_duplicate; a PSN ahead of the expected one means packets were lost: a
 * NAK with the PSN sequence error code and the expected PSN asks the
 * requester to resend from there, once; until the expected packet comes,
 * further packets ahead are dropped silently (as after an RNR NAK).
 */
static bool rc_sequence(struct cx3_dev *dev, struct cx3_qp *qp,
			const struct cx3_pkt *p)
{
	if (p->psn == qp->epsn)
		return true;
	if (cx3_psn_before(p->psn, qp->epsn)) {
		rc_duplicate(dev, qp, p);
		return false;
	}
	if (qp->nak_sent)
		return false;
	qp->nak_sent = true;
	qp->seq_naks++;
	dev->port[p->port - 1].diag.rq_oos++;
	if (dev->trace)
		cx3_log(dev, "QP 0x%x: request PSN %u, expected %u: sequence NAK",
			qp->qpn, p->psn, qp->epsn);
	respond_psn(dev, qp, p, qp->epsn, IB_OP_ACK, true, AETH_NAK_PSN_SEQ,
		    NULL, 0);
	return false;
}

static bool first_of_message(uint8_t op)
{
	return op == IB_OP_SEND_FIRST || op == IB_OP_SEND_ONLY ||
	       op == IB_OP_SEND_ONLY_IMM || op == IB_OP_SEND_ONLY_INV ||
	       op == IB_OP_WRITE_FIRST ||
	       op == IB_OP_WRITE_ONLY || op == IB_OP_WRITE_ONLY_IMM;
}

/*
 * The PSN check of a UC responder (IBA 9.8.3): nothing is resent, so a gap
 * loses the message it falls in.  The packets of that message are dropped
 * up to the start of the next one; a SEND's receive WQE, already taken,
 * serves the next SEND (the requester never learns; no completion).
 */
static bool uc_sequence(struct cx3_qp *qp, const struct cx3_pkt *p)
{
	uint8_t op = p->opcode & 0x1f;

	if (p->psn != qp->epsn) {
		qp->seq_naks++;		/* counted, as the RC ones are */
		if (qp->resp_active) {
			qp->resp_active = false;
			qp->uc_reuse = qp->resp_op == IB_OP_SEND_FIRST;
		}
		qp->uc_drop = !first_of_message(op);
	} else if (qp->uc_drop && first_of_message(op)) {
		qp->uc_drop = false;
	}
	qp->epsn = (p->psn + 1) & IB_PSN_MASK;
	return !qp->uc_drop;
}

void cx3_responder(struct cx3_dev *dev, struct cx3_qp *qp,
		   const struct cx3_pkt *p)
{
	uint8_t op = p->opcode & 0x1f, ev[24] = { 0 }, old[8], val[8], nak;
	bool rc = cx3_qp_reliable(qp), imm, last;
	const uint8_t *d = p->ext, *immp = NULL;
	size_t len = p->payload_len;
	uint64_t va, a, b, cur;
	uint32_t rkey, dmalen;
	struct cx3_atomic_replay *r;
	struct rwqe w;
	int syn;

	if (qp->state == CX3_QPS_RTR && !qp->comm_est) {
		qp->comm_est = true;
		cx3_put32(ev, 0, qp->qpn);
		cx3_eq_post(dev, EVENT_COMM_EST, 0, ev);
	}
	if (rc ? !rc_sequence(dev, qp, p) : !uc_sequence(qp, p))
		return;
	if (qp->st == CX3_ST_XRC && !qp->xrc_srq) {
		/* no XRC SRQ of the target's domain by that number */
		responder_error(dev, qp, p, AETH_NAK_ACCESS);
		return;
	}
	switch (op) {
	case IB_OP_SEND_ONLY:
	case IB_OP_SEND_ONLY_IMM:
	case IB_OP_SEND_ONLY_INV:
		imm = op != IB_OP_SEND_ONLY;
		if (imm) {
			if (op == IB_OP_SEND_ONLY_INV && !rc)
				return;
			immp = take_imm(&d, &len);	/* or the IETH */
			if (!immp)
				return;
		}
		if (cx3_take_send_wqe(dev, qp, &w)) {
			rnr_nak(dev, qp, p);
			return;
		}
		syn = cx3_scatter_sges(dev, qp, w.sges, w.nsge, d, len, 0);
		if (!syn && op == IB_OP_SEND_ONLY_INV)
			syn = send_invalidate(dev, qp, immp);
		cx3_recv_cqe(dev, qp, &w, p, recv_opcode(op), (uint32_t)len, immp,
			 cx3_qp_remote_qpn(qp), 0, (uint8_t)syn);
		if (syn) {
			responder_error(dev, qp, p, receive_nak(syn));
			return;
		}
		break;
	case IB_OP_WRITE_ONLY:
	case IB_OP_WRITE_ONLY_IMM:
		imm = op == IB_OP_WRITE_ONLY_IMM;
		if (len < IB_RETH_BYTES + (imm ? IB_IMM_BYTES : 0u))
			return;
		va = cx3_get64(d, 0);
		rkey = cx3_get32(d, 8);
		dmalen = cx3_get32(d, 12);
		d += IB_RETH_BYTES;
		len -= IB_RETH_BYTES;
		if (imm) {
			immp = d;
			d += IB_IMM_BYTES;
			len -= IB_IMM_BYTES;
		}
		if (dmalen != len) {
			responder_error(dev, qp, p, AETH_NAK_INV_REQ);
			return;
		}
		if (imm && cx3_take_rwqe(dev, qp, &w)) {
			rnr_nak(dev, qp, p);
			return;
		}
		if (!qp_allows(qp, 14) ||
		    (len && cx3_mr_remote(dev, rkey, cx3_resp_pd(qp), qp->qpn, va,
					  (void *)d, len, CX3_ACC_REMOTE_WRITE,
					  true))) {
			responder_error(dev, qp, p, AETH_NAK_ACCESS);
			return;
		}
		if (imm)
			cx3_recv_cqe(dev, qp, &w, p, RECV_OP_RDMA_WRITE_IMM,
				 (uint32_t)len, immp, cx3_qp_remote_qpn(qp), 0, 0);
		break;
	case IB_OP_SEND_FIRST:
		if (!qp->resp_wqe)
			qp->resp_wqe = malloc(sizeof(struct rwqe));
		if (!qp->resp_wqe)
			return;
		if (cx3_take_send_wqe(dev, qp, qp->resp_wqe)) {
			rnr_nak(dev, qp, p);
			return;
		}
		qp->resp_active = true;
		qp->resp_op = IB_OP_SEND_FIRST;
		qp->resp_off = 0;
		/* fall through */
	case IB_OP_SEND_MIDDLE:
	case IB_OP_SEND_LAST:
	case IB_OP_SEND_LAST_IMM:
	case IB_OP_SEND_LAST_INV:
		if (!qp->resp_active || qp->resp_op != IB_OP_SEND_FIRST ||
		    (op == IB_OP_SEND_LAST_INV && !rc)) {
			responder_error(dev, qp, p, AETH_NAK_INV_REQ);
			return;
		}
		if (op == IB_OP_SEND_LAST_IMM || op == IB_OP_SEND_LAST_INV) {
			immp = take_imm(&d, &len);	/* or the IETH */
			if (!immp)
				return;
		}
		syn = cx3_scatter_sges(dev, qp, ((struct rwqe *)qp->resp_wqe)->sges,
				       ((struct rwqe *)qp->resp_wqe)->nsge, d, len,
				       qp->resp_off);
		qp->resp_off += len;
		if (!syn && op == IB_OP_SEND_LAST_INV)
			syn = send_invalidate(dev, qp, immp);
		last = op == IB_OP_SEND_LAST || op == IB_OP_SEND_LAST_IMM ||
		       op == IB_OP_SEND_LAST_INV;
		if (syn || last) {
			qp->resp_active = false;
			cx3_recv_cqe(dev, qp, qp->resp_wqe, p, recv_opcode(op),
				 (uint32_t)qp->resp_off, immp,
				 cx3_qp_remote_qpn(qp), 0, (uint8_t)syn);
		}
		if (syn) {
			responder_error(dev, qp, p, receive_nak(syn));
			return;
		}
		if (!last) {
			accept_psn(qp, p, 1);
			return;		/* ACK only the last packet */
		}
		break;
	case IB_OP_WRITE_FIRST:
		if (len < IB_RETH_BYTES)
			return;
		qp->resp_va = cx3_get64(d, 0);
		qp->resp_rkey = cx3_get32(d, 8);
		d += IB_RETH_BYTES;
		len -= IB_RETH_BYTES;
		qp->resp_active = true;
		qp->resp_op = IB_OP_WRITE_FIRST;
		qp->resp_off = 0;
		/* fall through */
	case IB_OP_WRITE_MIDDLE:
	case IB_OP_WRITE_LAST:
	case IB_OP_WRITE_LAST_IMM:
		if (!qp->resp_active || qp->resp_op != IB_OP_WRITE_FIRST) {
			responder_error(dev, qp, p, AETH_NAK_INV_REQ);
			return;
		}
		if (op == IB_OP_WRITE_LAST_IMM) {
			immp = take_imm(&d, &len);
			if (!immp)
				return;
			if (cx3_take_rwqe(dev, qp, &w)) {
				rnr_nak(dev, qp, p);
				return;
			}
		}
		if (!qp_allows(qp, 14) ||
		    (len && cx3_mr_remote(dev, qp->resp_rkey, cx3_resp_pd(qp), qp->qpn,
					  qp->resp_va, (void *)d, len,
					  CX3_ACC_REMOTE_WRITE, true))) {
			qp->resp_active = false;
			responder_error(dev, qp, p, AETH_NAK_ACCESS);
			return;
		}
		qp->resp_va += len;
		qp->resp_off += len;
		if (op != IB_OP_WRITE_LAST && op != IB_OP_WRITE_LAST_IMM) {
			accept_psn(qp, p, 1);
			return;
		}
		qp->resp_active = false;
		if (immp)
			cx3_recv_cqe(dev, qp, &w, p, RECV_OP_RDMA_WRITE_IMM,
				 (uint32_t)qp->resp_off, immp,
				 cx3_qp_remote_qpn(qp), 0, 0);
		break;
	case IB_OP_READ_REQ:
		if (!rc || len < IB_RETH_BYTES)
			return;
		nak = read_request(dev, qp, p, false);
		if (nak)
			responder_error(dev, qp, p, nak);
		return;
	case IB_OP_CMP_SWAP:
	case IB_OP_FETCH_ADD:
		if (!rc || len < IB_ATOMIC_ETH_BYTES)
			return;
		va = cx3_get64(d, 0);
		rkey = cx3_get32(d, 8);
		a = cx3_get64(d, 12);		/* swap or add */
		b = cx3_get64(d, 20);		/* compare */
		if (!qp_allows(qp, 13) || (va & 7) ||
		    cx3_mr_remote(dev, rkey, cx3_resp_pd(qp), qp->qpn, va, old, 8,
				  CX3_ACC_ATOMIC, false)) {
			responder_error(dev, qp, p, AETH_NAK_ACCESS);
			return;
		}
		/* ConnectX-3 atomics treat the memory word as big-endian */
		cur = cx3_get64(old, 0);
		if (op == IB_OP_FETCH_ADD)
			cx3_put64(val, 0, cur + a);
		else
			cx3_put64(val, 0, cur == b ? a : cur);
		cx3_mr_remote(dev, rkey, cx3_resp_pd(qp), qp->qpn, va, val, 8,
			      CX3_ACC_ATOMIC, true);
		/* the original value answers this request and its duplicates */
		r = &qp->replay[qp->replay_next++ % CX3_ATOMIC_REPLAY];
		memcpy(r->orig, old, 8);
		r->psn = p->psn;
		r->valid = true;
		accept_psn(qp, p, 1);
		respond(dev, qp, p, IB_OP_ATOMIC_ACK, 0, old, 8);
		return;
	default:
		if (rc)
			responder_error(dev, qp, p, AETH_NAK_INV_REQ);
		return;
	}
	accept_psn(qp, p, 1);
	if (rc)
		respond(dev, qp, p, IB_OP_ACK, AETH_ACK, NULL, 0);
}

/*
 * An XRC request: for a target only (bit 23 in its number), with an XRCETH
 * after the BTH.  The SRQ it names serves the request if it is an XRC SRQ
 * of the target's domain; otherwise the responder NAKs it with a remote
 * access error once the PSN check has passed (IBA annex A14; rxe's XRC
 * responder does the same), and the QP goes to the error state.  The SRQ
 * stays attached to the QP only while its request executes.
 */
void cx3_xrc_responder(struct cx3_dev *dev, struct cx3_qp *qp,
		       const struct cx3_pkt *p)
{
	struct cx3_pkt x = *p;
	struct cx3_srq *srq;
	uint32_t srqn;

	if (!cx3_qp_xrc_target(qp) || p->payload_len < IB_XRCETH_BYTES)
		return;
	srqn = cx3_get32(p->ext, 0) & 0xffffff;
	srq = cx3_srq_get(dev, srqn);
	/* a target's XRCD is never 0, a plain SRQ's always (cx3_srq.c) */
	if (srq && srq->xrcd != qp->xrcd) {
		cx3_log(dev, "QP 0x%x of XRCD 0x%x: request for SRQ 0x%x of XRCD 0x%x",
			qp->qpn, qp->xrcd, srqn, srq->xrcd);
		srq = NULL;
	}
	x.ext += IB_XRCETH_BYTES;
	x.payload = x.ext;
	x.payload_len -= IB_XRCETH_BYTES;
	qp->xrc_srq = srq;
	cx3_responder(dev, qp, &x);
	qp->xrc_srq = NULL;
}

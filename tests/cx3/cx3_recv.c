// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: receive.  A packet that passed the link's checks finds
 * its QP (wire QPN 0/1 map to the port's special QPs, multicast fans out to
 * the members of the MGID's group on the ingress port), passes the P_Key and
 * Q_Key rules, and is delivered: UD sends into the next receive WQE (the
 * first 40 bytes hold the GRH), RC/UC/XRC requests to the responder
 * (cx3_responder.c), RC responses to the requester (cx3_rc.c).  Receive
 * WQEs (RQ, SRQ, XRC SRQ), their scatter and their CQEs are here.
 */
#include <string.h>

#include "cx3.h"
#include "cx3_mcg.h"
#include "cx3_mr.h"
#include "cx3_offload.h"
#include "cx3_pkt.h"
#include "cx3_qp.h"
#include "cx3_recv.h"
#include "cx3_srq.h"


static int take_srq(struct cx3_dev *dev, struct cx3_srq *srq, struct rwqe *w)
{
	uint8_t rec[4], next[16];
	uint16_t posted;
	uint64_t off;
	size_t stride = 1u << srq->stride_shift;

	if (dev->host.dma_read(dev->host.opaque, srq->db_rec, rec, 4))
		return -1;
	posted = cx3_get32(rec, 0) & 0xffff;
	if (posted == (uint16_t)srq->consumed)
		return -1;
	off = (uint64_t)(srq->head & (srq->cnt - 1)) << srq->stride_shift;
	if (stride < 32 || cx3_buf_read(dev, &srq->buf, off, next, 16))
		return -1;
	w->index = srq->head;
	w->nsge = (unsigned int)(stride - 16) / 16;
	if (w->nsge > RWQE_MAX_SGE)
		w->nsge = RWQE_MAX_SGE;
	if (cx3_buf_read(dev, &srq->buf, off + 16, w->sges, w->nsge * 16))
		return -1;
	/* the driver never posts its free list's tail, so this link holds */
	srq->head = cx3_get16(next, 2);
	srq->consumed++;
	if (srq->limit && (uint16_t)(posted - srq->consumed) < srq->limit) {
		uint8_t ev[24] = { 0 };

		srq->limit = 0;
		cx3_put32(ev, 0, srq->srqn);
		cx3_eq_post(dev, EVENT_SRQ_LIMIT, 0, ev);
	}
	return 0;
}

/*
 * The PD of a responder's memory checks: an XRC target's own PD is the
 * domain's private one; its requests use the PD of the XRC SRQ they name.
 */
uint32_t cx3_resp_pd(const struct cx3_qp *qp)
{
	return qp->xrc_srq ? qp->xrc_srq->pd : qp->pd;
}

int cx3_take_rwqe(struct cx3_dev *dev, struct cx3_qp *qp, struct rwqe *w)
{
	uint16_t head;
	uint64_t off;

	if (qp->xrc_srq)
		return take_srq(dev, qp->xrc_srq, w);
	if (qp->srq) {
		struct cx3_srq *srq = cx3_srq_get(dev, qp->srqn);

		return srq ? take_srq(dev, srq, w) : -1;
	}
	if (!qp->rq.cnt || cx3_qp_rq_head(dev, qp, &head) ||
	    head == (uint16_t)qp->rq.cons)
		return -1;
	off = qp->rq.off +
	      ((uint64_t)(qp->rq.cons & (qp->rq.cnt - 1)) << qp->rq.stride_shift);
	w->index = qp->rq.cons & 0xffff;
	w->nsge = (1u << qp->rq.stride_shift) / 16;
	if (w->nsge > RWQE_MAX_SGE)
		w->nsge = RWQE_MAX_SGE;
	if (cx3_buf_read(dev, &qp->buf, off, w->sges, w->nsge * 16))
		return -1;
	qp->rq.cons++;
	return 0;
}

/*
 * The receive WQE of a new SEND: a UC SEND that lost a packet leaves its
 * WQE, taken but not completed, for the next (uc_sequence).
 */
int cx3_take_send_wqe(struct cx3_dev *dev, struct cx3_qp *qp, struct rwqe *w)
{
	if (qp->uc_reuse && qp->resp_wqe) {
		qp->uc_reuse = false;
		if (w != qp->resp_wqe)
			memcpy(w, qp->resp_wqe, sizeof(*w));
		return 0;
	}
	return cx3_take_rwqe(dev, qp, w);
}

/*
 * Write len bytes of data into a list of data segments, after skipping
 * skip bytes of them.  Returns 0 or a CQE syndrome.
 */
int cx3_scatter_sges(struct cx3_dev *dev, struct cx3_qp *qp,
		     const uint8_t *sges, unsigned int nsge,
		     const uint8_t *data, size_t len, uint64_t skip)
{
	unsigned int i;
	uint32_t n, lkey;
	uint64_t addr, seg;
	int err;

	for (i = 0; i < nsge && len; i++) {
		seg = cx3_get32(sges, i * 16) & 0x7fffffff;
		lkey = cx3_get32(sges, i * 16 + 4);
		addr = cx3_get64(sges, i * 16 + 8);
		if (lkey == INVALID_LKEY)
			break;
		if (skip >= seg) {
			skip -= seg;
			continue;
		}
		addr += skip;
		seg -= skip;
		skip = 0;
		n = (uint32_t)(seg < len ? seg : len);
		err = cx3_mr_rw(dev, lkey, cx3_resp_pd(qp), addr, (void *)data, n,
				CX3_ACC_LOCAL_WRITE, true);
		if (err) {
			cx3_log(dev, "QP 0x%x: receive into lkey 0x%x PD 0x%x at 0x%llx+%u failed (%d)",
				qp->qpn, lkey, cx3_resp_pd(qp), (unsigned long long)addr,
				n, err);
			return SYN_LOCAL_PROT;
		}
		data += n;
		len -= n;
	}
	return len ? SYN_LOCAL_LENGTH : 0;
}

/* The CQE with the offloads' checksum state (status u16 @0x10, checksum @0x1a) */
static void recv_cqe_csum(struct cx3_dev *dev, struct cx3_qp *qp,
			  const struct rwqe *w, const struct cx3_pkt *p,
			  uint8_t opcode, uint32_t byte_cnt, const uint8_t *imm,
			  uint32_t src_qp, uint8_t pkey_index, uint8_t syndrome,
			  uint16_t status, uint16_t checksum)
{
	uint8_t cqe[32] = { 0 };
	uint32_t cqn = qp->recv_cqn;

	/*
	 * An XRC receive completes on the SRQ's CQ; the QP number (bit 23
	 * included) says it is one, g_mlpath_rqpn names the SRQ (libmlx4
	 * finds the WQE's owner by it, not by a QP)
	 */
	if (qp->xrc_srq) {
		cqn = qp->xrc_srq->cqn;
		src_qp = qp->xrc_srq->srqn;
	}
	cx3_put32(cqe, 0x00, qp->qpn);
	if (imm)
		memcpy(cqe + 4, imm, 4);
	else
		cx3_put32(cqe, 0x04, pkey_index);
	cx3_put32(cqe, 0x08, (p->grh ? 0x80000000u : 0) |
		  (uint32_t)(p->dlid & 0x7f) << 24 | (src_qp & 0xffffff));
	cx3_put16(cqe, 0x0c, (uint16_t)(p->sl << 12));
	cx3_put16(cqe, 0x0e, p->slid);
	cx3_put32(cqe, 0x14, byte_cnt);
	cx3_put16(cqe, 0x18, w->index);
	if (syndrome) {
		cqe[0x1b] = syndrome;
		cqe[0x1f] = CQE_OPCODE_ERROR;
	} else {
		cx3_put16(cqe, 0x10, status);
		cx3_put16(cqe, 0x1a, checksum);
		cqe[0x1f] = opcode;
	}
	cx3_cq_push(dev, cqn, cqe, p->se);
}

void cx3_recv_cqe(struct cx3_dev *dev, struct cx3_qp *qp,
		  const struct rwqe *w, const struct cx3_pkt *p,
		  uint8_t opcode, uint32_t byte_cnt, const uint8_t *imm,
		  uint32_t src_qp, uint8_t pkey_index, uint8_t syndrome)
{
	recv_cqe_csum(dev, qp, w, p, opcode, byte_cnt, imm, src_qp,
		      pkey_index, syndrome, 0, 0);
}

/* The P_Key index of a packet's P_Key on this port, or -1 (a violation). */
static int pkey_lookup(struct cx3_port *port, uint16_t pkey)
{
	int i;

	for (i = 0; i < port->pkey_table_size && i < CX3_PKEY_TABLE; i++) {
		uint16_t k = port->pkeys[i];

		if ((k & 0x7fff) == (pkey & 0x7fff) && (k & 0x7fff) &&
		    ((k | pkey) & 0x8000))
			return i;
	}
	return -1;
}

/* ---------------------------------------------------------------------- */
/* UD (and QP0/QP1) delivery */

static void deliver_ud(struct cx3_dev *dev, struct cx3_qp *qp,
		       const struct cx3_pkt *p)
{
	struct cx3_port *port = &dev->port[p->port - 1];
	uint32_t qkey, src;
	const uint8_t *imm = NULL, *data;
	size_t len, hdr = IB_DETH_BYTES;
	struct rwqe w;
	int pidx = 0, syn;
	uint8_t op = p->opcode;
	uint16_t status = 0, checksum = 0;

	if (qp->state != CX3_QPS_RTR && qp->state != CX3_QPS_RTS &&
	    qp->state != CX3_QPS_SQD && qp->state != CX3_QPS_SQER)
		return;
	if (cx3_qp_port(qp) != p->port)
		return;
	if (op != (IB_TRANSPORT_UD | IB_OP_SEND_ONLY) &&
	    op != (IB_TRANSPORT_UD | IB_OP_SEND_ONLY_IMM))
		return;
	if (p->payload_len < hdr + (op & 1 ? IB_IMM_BYTES : 0))
		return;
	qkey = cx3_get32(p->ext, 0);
	src = cx3_get32(p->ext, 4) & 0xffffff;
	if (qp->st != CX3_ST_MLX || qp->special_index >= 2) {
		/* not QP0: the P_Key must be in the table, the Q_Key right */
		pidx = pkey_lookup(port, p->pkey);
		if (pidx < 0) {
			port->pkey_violations++;
			return;
		}
		if (qp->st != CX3_ST_MLX &&
		    (port->pkeys[cx3_qp_pkey_index(qp) % CX3_PKEY_TABLE] & 0x7fff) !=
		    (p->pkey & 0x7fff)) {
			port->pkey_violations++;
			return;
		}
		if (qkey != (qp->st == CX3_ST_MLX ? IB_QP1_QKEY : qp->qkey)) {
			port->qkey_violations++;
			return;
		}
	}
	if (op & 1) {
		imm = p->ext + hdr;
		hdr += IB_IMM_BYTES;
	}
	data = p->ext + hdr;
	len = p->payload_len - hdr;
	if (cx3_take_rwqe(dev, qp, &w)) {
		if (dev->trace)
			cx3_log(dev, "QP 0x%x: no receive WQE, packet dropped", qp->qpn);
		return;		/* UD: no receive posted, the packet is lost */
	}
	if (dev->trace)
		cx3_log(dev, "QP 0x%x: RQ WQE %u: %u SGEs, first {0x%x, 0x%x, 0x%llx}",
			qp->qpn, w.index, w.nsge, cx3_get32(w.sges, 0),
			cx3_get32(w.sges, 4),
			(unsigned long long)cx3_get64(w.sges, 8));
	if (dev->trace && len >= 16)
		cx3_log(dev, "QP 0x%x: receive WQE %u gets %zu bytes: %02x %02x %02x %02x %02x%02x %02x %02x tid %08x%08x",
			qp->qpn, w.index, len, data[0], data[1], data[2], data[3],
			data[4], data[5], data[6], data[7], cx3_get32(data, 8),
			cx3_get32(data, 12));
	syn = p->grh ? cx3_scatter_sges(dev, qp, w.sges, w.nsge, p->grh,
				       IB_GRH_BYTES, 0) : 0;
	if (!syn)
		syn = cx3_scatter_sges(dev, qp, w.sges, w.nsge, data, len,
				       IB_GRH_BYTES);
	/* a UD QP's datagram may be IPoIB: its checksums are verified */
	if (qp->st == CX3_ST_UD)
		cx3_csum_rx(data, len, &status, &checksum);
	recv_cqe_csum(dev, qp, &w, p, imm ? RECV_OP_SEND_IMM : RECV_OP_SEND,
		      (uint32_t)(len + IB_GRH_BYTES), imm, src, (uint8_t)pidx,
		      (uint8_t)syn, status, checksum);
	if (syn)
		cx3_qp_to_error(dev, qp);
}

static void deliver_mcast(struct cx3_dev *dev, const struct cx3_pkt *p)
{
	uint32_t idx, n, i, m, src;
	const uint8_t *e;
	struct cx3_qp *qp;
	unsigned int hops = 0;

	if (!p->grh || !dev->mcg || p->payload_len < IB_DETH_BYTES)
		return;
	src = cx3_get32(p->ext, 4) & 0xffffff;
	idx = cx3_mcg_hash(dev, p->grh + 24);
	while ((e = cx3_mcg_entry(dev, idx)) && hops++ < 4096) {
		if (cx3_mcg_members(e) && !memcmp(e + 0x10, p->grh + 24, 16)) {
			n = cx3_mcg_members(e);
			for (i = 0; i < n; i++) {
				m = cx3_get32(e, 0x20 + i * 4);
				if (dev->rx_local && (m & CX3_MCG_QP_BLOCK_LB) &&
				    (m & 0xffffff) == src)
					continue;
				qp = cx3_qp_get(dev, m & 0xffffff);
				if (qp && qp->st == CX3_ST_UD)
					deliver_ud(dev, qp, p);
			}
			return;
		}
		idx = cx3_get32(e, 0) >> 6;
		if (!idx)
			return;
	}
}

/* ---------------------------------------------------------------------- */

void cx3_recv_packet(struct cx3_dev *dev, const struct cx3_pkt *p)
{
	uint8_t tr = p->opcode & 0xe0, op = p->opcode & 0x1f;
	struct cx3_qp *qp;

	if (p->dqpn == 0xffffff) {
		if (tr == IB_TRANSPORT_UD)
			deliver_mcast(dev, p);
		return;
	}
	qp = cx3_qp_by_wire(dev, p->port, p->dqpn);
	if (!qp)
		return;
	if (tr == IB_TRANSPORT_UD) {
		if (qp->st == CX3_ST_UD || qp->st == CX3_ST_MLX)
			deliver_ud(dev, qp, p);
		return;
	}
	if (cx3_qp_port(qp) != p->port ||
	    (tr != IB_TRANSPORT_RC && tr != IB_TRANSPORT_UC &&
	     tr != IB_TRANSPORT_XRC) || tr != cx3_qp_transport(qp))
		return;
	if (tr != IB_TRANSPORT_UC &&
	    (op == IB_OP_ACK || op == IB_OP_ATOMIC_ACK ||
	     (op >= IB_OP_READ_RESP_FIRST && op <= IB_OP_READ_RESP_ONLY))) {
		cx3_rc_response(dev, qp, p);
		return;
	}
	if (qp->state != CX3_QPS_RTR && qp->state != CX3_QPS_RTS &&
	    qp->state != CX3_QPS_SQD && qp->state != CX3_QPS_SQER)
		return;
	if (pkey_lookup(&dev->port[p->port - 1], p->pkey) < 0) {
		dev->port[p->port - 1].pkey_violations++;
		return;
	}
	if (tr == IB_TRANSPORT_XRC) {
		cx3_xrc_responder(dev, qp, p);
		return;
	}
	cx3_responder(dev, qp, p);
}

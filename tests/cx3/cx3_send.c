// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the send engine.  From the device's consumer counter it
 * executes every posted send WQE (the owner bit says which are posted):
 * MLX WQEs of QP0/QP1 carry their packet headers inline; UD WQEs carry an
 * address vector; RC and UC WQEs follow the QP's path.  Each message leaves
 * as one packet (message-level transport: no segmentation by path MTU).
 * UD, UC and MLX sends complete when the packet leaves; an RC WQE stays in
 * flight until its ACK, RDMA READ response or atomic response arrives, is
 * resent after an RNR NAK (up to the QP's RNR retry count) or after an ACK
 * timeout or a PSN sequence error NAK (up to the retry count), and fails on
 * any other NAK.  A response whose PSN is not that of the message in flight
 * (a late answer to an earlier transmission of a message) is dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_mr.h"
#include "cx3_pkt.h"
#include "cx3_qp.h"

/* WQE opcodes */
enum {
	WQE_NOP = 0x00, WQE_RDMA_WRITE = 0x08, WQE_RDMA_WRITE_IMM = 0x09,
	WQE_SEND = 0x0a, WQE_SEND_IMM = 0x0b, WQE_RDMA_READ = 0x10,
	WQE_ATOMIC_CS = 0x11, WQE_ATOMIC_FA = 0x12,
};

/* CQE syndromes */
enum {
	SYN_LOCAL_LENGTH = 0x01, SYN_LOCAL_QP_OP = 0x02, SYN_LOCAL_PROT = 0x04,
	SYN_REMOTE_INVAL_REQ = 0x12, SYN_REMOTE_ACCESS = 0x13,
	SYN_REMOTE_OP = 0x14, SYN_RETRY_EXC = 0x15, SYN_RNR_RETRY_EXC = 0x16,
};

#define CQE_OPCODE_ERROR	0x1e
#define CQE_IS_SEND		0x40
#define MAX_MESSAGE		(16u << 20)	/* what the model moves at once */
#define WQE_MAX			1024

struct swqe {
	uint32_t idx;			/* SQ counter of this WQE */
	uint8_t b[WQE_MAX];
	size_t size;			/* bytes */
	uint8_t opcode;
	bool signaled, solicited;
};

static int read_wqe(struct cx3_dev *dev, struct cx3_qp *qp, uint32_t idx,
		    struct swqe *w)
{
	uint64_t off = qp->sq.off +
		       ((uint64_t)(idx & (qp->sq.cnt - 1)) << qp->sq.stride_shift);
	size_t stride = 1u << qp->sq.stride_shift;

	w->idx = idx;
	if (cx3_buf_read(dev, &qp->buf, off, w->b, 16))
		return -1;
	w->size = (size_t)(w->b[7] & 0x3f) * 16;
	if (w->size < 16 || w->size > stride || w->size > WQE_MAX)
		return -1;
	if (cx3_buf_read(dev, &qp->buf, off, w->b, w->size))
		return -1;
	w->opcode = w->b[3] & 0x1f;
	w->signaled = ((cx3_get32(w->b, 8) >> 2) & 3) == 3;
	/* the MLX segment has no solicited bit; the driver's BTH carries it */
	w->solicited = qp->st != CX3_ST_MLX && (cx3_get32(w->b, 8) & 2);
	return 0;
}

/*
 * Gather the segments from offset off of a WQE into out: inline segments
 * (bit 31 of the first dword) and data segments {length, lkey, address}.
 * Returns the number of bytes, or -SYN_* on an error.
 */
static long gather(struct cx3_dev *dev, struct cx3_qp *qp,
		   const struct swqe *w, size_t off, uint8_t **out)
{
	size_t total = 0, cap = 4096, len;
	uint8_t *buf = malloc(cap), *nb;
	uint32_t dw, lkey;
	uint64_t addr;

	if (!buf)
		return -SYN_LOCAL_LENGTH;
	while (off + 4 <= w->size) {
		dw = cx3_get32(w->b, off);
		if (dw & 0x80000000u) {
			len = dw & 0x3ff;
			if (off + 4 + len > w->size)
				goto bad_length;
		} else {
			len = dw & 0x7fffffff;
			if (off + 16 > w->size)
				goto bad_length;
			if (len == 0 && cx3_get32(w->b, off + 4) == 0x100)
				break;		/* end of the list */
		}
		if (total + len > MAX_MESSAGE)
			goto bad_length;
		if (total + len > cap) {
			while (total + len > cap)
				cap *= 2;
			nb = realloc(buf, cap);
			if (!nb)
				goto bad_length;
			buf = nb;
		}
		if (dw & 0x80000000u) {
			memcpy(buf + total, w->b + off + 4, len);
			off = (off + 4 + len + 15) & ~(size_t)15;
		} else {
			lkey = cx3_get32(w->b, off + 4);
			addr = cx3_get64(w->b, off + 8);
			if (len && cx3_mr_rw(dev, lkey, qp->pd, addr, buf + total,
					     len, 0, false)) {
				free(buf);
				return -SYN_LOCAL_PROT;
			}
			off += 16;
		}
		total += len;
	}
	*out = buf;
	return (long)total;

bad_length:
	free(buf);
	return -SYN_LOCAL_LENGTH;
}

void cx3_send_cqe(struct cx3_dev *dev, struct cx3_qp *qp, uint16_t wqe_index,
		  uint8_t opcode, uint32_t byte_cnt, uint8_t syndrome)
{
	uint8_t cqe[32] = { 0 };

	cx3_put32(cqe, 0x00, qp->qpn);
	cx3_put32(cqe, 0x14, byte_cnt);
	cx3_put16(cqe, 0x18, wqe_index);
	if (syndrome) {
		cqe[0x1b] = syndrome;
		cqe[0x1f] = CQE_IS_SEND | CQE_OPCODE_ERROR;
	} else {
		cqe[0x1f] = CQE_IS_SEND | opcode;
	}
	cx3_cq_push(dev, qp->send_cqn, cqe, false);
}

/* A local error: error CQE for this WQE, the QP to ERR, the rest flushed. */
static void send_error(struct cx3_dev *dev, struct cx3_qp *qp,
		       const struct swqe *w, uint8_t syndrome)
{
	cx3_log(dev, "QP 0x%x: send WQE %u (opcode 0x%02x) failed, syndrome 0x%02x",
		qp->qpn, w->idx & 0xffff, w->opcode, syndrome);
	cx3_send_cqe(dev, qp, w->idx & 0xffff, w->opcode, 0, syndrome);
	qp->sq.cons++;
	qp->inflight = false;
	cx3_qp_rnr_wait(dev, qp, false);
	cx3_qp_to_error(dev, qp);
}

static void send_done(struct cx3_dev *dev, struct cx3_qp *qp,
		      const struct swqe *w, uint32_t byte_cnt)
{
	if (w->signaled)
		cx3_send_cqe(dev, qp, w->idx & 0xffff, w->opcode, byte_cnt, 0);
	qp->sq.cons++;
}

/*
 * LRH [GRH] BTH for a packet from qp out of port; returns the offset of the
 * extended headers.  ext_payload_len counts what follows the BTH (extended
 * headers and payload, before padding).
 */
size_t cx3_build_headers(struct cx3_dev *dev, struct cx3_qp *qp, int port,
			 uint16_t dlid, const uint8_t *dgid, bool grh,
			 uint8_t sl, uint8_t opcode, bool se, uint32_t dqpn,
			 uint32_t psn, size_t ext_payload_len, uint8_t *buf)
{
	struct cx3_port *p = &dev->port[port - 1];
	size_t off = IB_LRH_BYTES, pad = (4 - ext_payload_len % 4) % 4;
	size_t total = IB_LRH_BYTES + (grh ? IB_GRH_BYTES : 0) + IB_BTH_BYTES +
		       ext_payload_len + pad + IB_ICRC_BYTES;
	uint8_t path_bits = qp ? qp->ctx[0x18 + 0x05] & 0x7f : 0;

	buf[0] = (uint8_t)((p->sl2vl[sl & 15] & 15) << 4);
	buf[1] = (uint8_t)(sl << 4 | (grh ? IB_LNH_GLOBAL : IB_LNH_LOCAL));
	cx3_put16(buf, 2, dlid);
	cx3_put16(buf, 4, (uint16_t)(total / 4));
	cx3_put16(buf, 6, p->lid | (path_bits & ((1u << p->lmc) - 1)));
	if (grh) {
		cx3_put32(buf, off, 6u << 28);
		cx3_put16(buf, off + 4, (uint16_t)(total - IB_LRH_BYTES -
						   IB_GRH_BYTES - IB_ICRC_BYTES + 4));
		buf[off + 6] = 0x1b;
		buf[off + 7] = 64;
		cx3_put64(buf, off + 8, p->gid_prefix);
		cx3_put64(buf, off + 16, p->guids[0]);
		memcpy(buf + off + 24, dgid, 16);
		off += IB_GRH_BYTES;
	}
	buf[off] = opcode;
	buf[off + 1] = (uint8_t)((se ? 0x80 : 0) | pad << 4);
	cx3_put16(buf, off + 2,
		  p->pkeys[qp ? cx3_qp_pkey_index(qp) % CX3_PKEY_TABLE : 0]);
	cx3_put32(buf, off + 4, dqpn & 0xffffff);
	cx3_put32(buf, off + 8, psn & 0xffffff);
	memset(buf + total - IB_ICRC_BYTES - pad, 0, pad);
	return off + IB_BTH_BYTES;
}

static size_t packet_len(const uint8_t *pkt)
{
	return (size_t)(cx3_get16(pkt, 4) & 0x7ff) * 4;
}

/* MLX (QP0/QP1): the driver built the headers; we add SLID and ICRC. */
static int send_mlx(struct cx3_dev *dev, struct cx3_qp *qp, struct swqe *w)
{
	int port = cx3_qp_port(qp);
	uint32_t flags = cx3_get32(w->b, 8);
	uint8_t *pkt;
	long n = gather(dev, qp, w, 16, &pkt);

	if (n < 0)
		return (int)-n;
	if (n < IB_LRH_BYTES + IB_BTH_BYTES + IB_ICRC_BYTES ||
	    packet_len(pkt) != (size_t)n) {
		cx3_log(dev, "QP 0x%x: MLX packet of %ld bytes, LRH says %zu",
			qp->qpn, n, n >= 8 ? packet_len(pkt) : 0);
		free(pkt);
		return SYN_LOCAL_LENGTH;
	}
	if (!(flags & (1u << 16)))	/* SLR clear: our LID | path bits */
		cx3_put16(pkt, 6, dev->port[port - 1].lid |
			  (cx3_get16(pkt, 6) & 0x7f));
	cx3_link_xmit(dev, port, pkt, (size_t)n);
	free(pkt);
	send_done(dev, qp, w, 0);
	return 0;
}

static int send_ud(struct cx3_dev *dev, struct cx3_qp *qp, struct swqe *w)
{
	const uint8_t *av = w->b + 16;
	int port = (av[0] & 3) ? (av[0] & 3) : cx3_qp_port(qp);
	uint32_t qkey = cx3_get32(av, 0x24), dqpn = cx3_get32(av, 0x20);
	bool imm = w->opcode == WQE_SEND_IMM, grh = av[5] & 0x80;
	uint8_t sl = av[12] >> 4, *data, *pkt;
	size_t ext = IB_DETH_BYTES + (imm ? IB_IMM_BYTES : 0), off;
	long n;

	if (w->opcode != WQE_SEND && w->opcode != WQE_SEND_IMM)
		return SYN_LOCAL_QP_OP;
	if (w->size < 16 + 48 || port > CX3_NUM_PORTS)
		return SYN_LOCAL_QP_OP;
	n = gather(dev, qp, w, 16 + 48, &data);
	if (n < 0)
		return (int)-n;
	if (n > 4096) {
		free(data);
		return SYN_LOCAL_LENGTH;
	}
	pkt = malloc(IB_MAX_PKT);
	if (!pkt) {
		free(data);
		return SYN_LOCAL_LENGTH;
	}
	off = cx3_build_headers(dev, qp, port, cx3_get16(av, 6), av + 16, grh,
				sl, IB_TRANSPORT_UD | (imm ? IB_OP_SEND_ONLY_IMM :
						       IB_OP_SEND_ONLY),
				w->solicited, dqpn, qp->sq_psn++,
				ext + (size_t)n, pkt);
	cx3_put32(pkt, off, qkey & 0x80000000u ? qp->qkey : qkey);
	cx3_put32(pkt, off + 4, qp->qpn);
	off += IB_DETH_BYTES;
	if (imm) {
		memcpy(pkt + off, w->b + 12, 4);
		off += IB_IMM_BYTES;
	}
	memcpy(pkt + off, data, (size_t)n);
	free(data);
	cx3_link_xmit(dev, port, pkt, packet_len(pkt));
	free(pkt);
	send_done(dev, qp, w, 0);
	return 0;
}

/* The path of a connected QP: DLID, GRH, SL from its primary path. */
static void rc_path(struct cx3_qp *qp, uint16_t *dlid, bool *grh, uint8_t *sl)
{
	const uint8_t *path = qp->ctx + 0x18;

	*dlid = cx3_get16(path, 0x06);
	*grh = path[0x05] & 0x80;
	*sl = (path[0x20] >> 2) & 0xf;
}

/* Build and send the request of an RC/UC WQE; returns 0 or a syndrome. */
static int send_connected(struct cx3_dev *dev, struct cx3_qp *qp,
			  struct swqe *w)
{
	uint8_t tr = qp->st == CX3_ST_RC ? IB_TRANSPORT_RC : IB_TRANSPORT_UC;
	uint8_t op, sl, *data = NULL, *pkt;
	size_t ext = 0, off, seg = 16, n = 0;
	uint16_t dlid;
	bool grh, imm = false;
	long got;
	uint32_t len = 0, mtu, npkts, i;
	size_t pos;

	switch (w->opcode) {
	case WQE_SEND:
	case WQE_SEND_IMM:
		imm = w->opcode == WQE_SEND_IMM;
		op = imm ? IB_OP_SEND_ONLY_IMM : IB_OP_SEND_ONLY;
		break;
	case WQE_RDMA_WRITE:
	case WQE_RDMA_WRITE_IMM:
		imm = w->opcode == WQE_RDMA_WRITE_IMM;
		op = imm ? IB_OP_WRITE_ONLY_IMM : IB_OP_WRITE_ONLY;
		ext = IB_RETH_BYTES;
		seg += 16;
		break;
	case WQE_RDMA_READ:
		op = IB_OP_READ_REQ;
		ext = IB_RETH_BYTES;
		seg += 16;
		break;
	case WQE_ATOMIC_CS:
	case WQE_ATOMIC_FA:
		op = w->opcode == WQE_ATOMIC_CS ? IB_OP_CMP_SWAP : IB_OP_FETCH_ADD;
		ext = IB_ATOMIC_ETH_BYTES;
		seg += 32;
		break;
	default:
		return SYN_LOCAL_QP_OP;
	}
	if (tr == IB_TRANSPORT_UC && op != IB_OP_SEND_ONLY &&
	    op != IB_OP_SEND_ONLY_IMM && op != IB_OP_WRITE_ONLY &&
	    op != IB_OP_WRITE_ONLY_IMM)
		return SYN_LOCAL_QP_OP;
	if (seg > w->size)
		return SYN_LOCAL_LENGTH;
	if (op == IB_OP_READ_REQ) {
		/* the local buffers receive; only their total length goes out */
		for (off = seg; off + 16 <= w->size; off += 16) {
			if (cx3_get32(w->b, off + 4) == 0x100 && !cx3_get32(w->b, off))
				break;
			len += cx3_get32(w->b, off) & 0x7fffffff;
		}
	} else if (op == IB_OP_SEND_ONLY || op == IB_OP_SEND_ONLY_IMM ||
		   op == IB_OP_WRITE_ONLY || op == IB_OP_WRITE_ONLY_IMM) {
		got = gather(dev, qp, w, seg, &data);
		if (got < 0)
			return (int)-got;
		n = (size_t)got;
		len = (uint32_t)n;
	}
	pkt = malloc(IB_MAX_PKT);
	if (!pkt) {
		free(data);
		return SYN_LOCAL_LENGTH;
	}
	rc_path(qp, &dlid, &grh, &sl);
	mtu = cx3_qp_mtu(qp);
	/* segment SEND and RDMA WRITE payloads by the path MTU */
	npkts = (op == IB_OP_READ_REQ || op == IB_OP_CMP_SWAP ||
		 op == IB_OP_FETCH_ADD || n <= mtu) ? 1 : (uint32_t)((n + mtu - 1) / mtu);
	for (i = 0, pos = 0; i < npkts; i++) {
		bool first = i == 0, last = i + 1 == npkts;
		size_t chunk = npkts == 1 ? n : (last ? n - pos : mtu);
		size_t hext = 0;
		uint8_t pop = op;

		if (npkts > 1) {
			bool send = op == IB_OP_SEND_ONLY || op == IB_OP_SEND_ONLY_IMM;

			pop = send ? (first ? IB_OP_SEND_FIRST : last ?
				      (imm ? IB_OP_SEND_LAST_IMM : IB_OP_SEND_LAST) :
				      IB_OP_SEND_MIDDLE) :
				     (first ? IB_OP_WRITE_FIRST : last ?
				      (imm ? IB_OP_WRITE_LAST_IMM : IB_OP_WRITE_LAST) :
				      IB_OP_WRITE_MIDDLE);
		}
		if (first)
			hext = ext;	/* RETH or AtomicETH */
		if (imm && last)
			hext += IB_IMM_BYTES;
		off = cx3_build_headers(dev, qp, cx3_qp_port(qp), dlid,
					qp->ctx + 0x18 + 0x10, grh, sl, tr | pop,
					w->solicited && last, cx3_qp_remote_qpn(qp),
					qp->sq_psn + i, hext + chunk, pkt);
		if (tr == IB_TRANSPORT_RC && last)
			pkt[off - 4] |= 0x80;		/* ACK request */
		if (first && ext >= IB_RETH_BYTES) {
			memcpy(pkt + off, w->b + 16, 12);	/* VA, R_Key */
			if (op == IB_OP_CMP_SWAP || op == IB_OP_FETCH_ADD) {
				/* swap or add, compare */
				memcpy(pkt + off + 12, w->b + 32, 16);
				off += IB_ATOMIC_ETH_BYTES;
			} else {
				cx3_put32(pkt, off + 12, len);
				off += IB_RETH_BYTES;
			}
		}
		if (imm && last) {
			memcpy(pkt + off, w->b + 12, 4);
			off += IB_IMM_BYTES;
		}
		if (chunk)
			memcpy(pkt + off, data + pos, chunk);
		pos += chunk;
		cx3_link_xmit(dev, cx3_qp_port(qp), pkt, packet_len(pkt));
	}
	free(data);
	free(pkt);
	if (op == IB_OP_READ_REQ)	/* the responses use one PSN each */
		npkts = len <= mtu ? 1 : (len + mtu - 1) / mtu;
	if (tr == IB_TRANSPORT_UC) {
		qp->sq_psn += npkts;
		send_done(dev, qp, w, 0);
		return 0;
	}
	qp->inflight = true;
	qp->inflight_pkts = npkts;
	qp->inflight_rcvd = 0;
	qp->read_off = 0;
	qp->rnr_at = dev->host.now_ms(dev->host.opaque) + cx3_qp_ack_timeout_ms(qp);
	cx3_qp_rnr_wait(dev, qp, true);
	return 0;
}

void cx3_qp_execute(struct cx3_dev *dev, struct cx3_qp *qp)
{
	struct swqe *w;
	int syn;

	if (qp->state != CX3_QPS_RTS || !qp->sq.cnt)
		return;
	w = malloc(sizeof(*w));
	if (!w)
		return;
	while (qp->state == CX3_QPS_RTS && !qp->inflight &&
	       !(qp->on_rnr_list) && cx3_qp_sq_posted(dev, qp, qp->sq.cons)) {
		if (read_wqe(dev, qp, qp->sq.cons, w)) {
			w->idx = qp->sq.cons;
			w->opcode = 0;
			send_error(dev, qp, w, SYN_LOCAL_LENGTH);
			break;
		}
		if (w->opcode == WQE_NOP) {
			send_done(dev, qp, w, 0);
			continue;
		}
		switch (qp->st) {
		case CX3_ST_MLX:
			syn = send_mlx(dev, qp, w);
			break;
		case CX3_ST_UD:
			syn = send_ud(dev, qp, w);
			break;
		default:
			syn = send_connected(dev, qp, w);
			break;
		}
		if (syn)
			send_error(dev, qp, w, (uint8_t)syn);
	}
	free(w);
}

/* ---------------------------------------------------------------------- */
/* RC requester: what comes back */

static uint64_t rnr_timer_ms(uint8_t code)
{
	/* IB encodes 0.01 ms .. 655 ms; 0 means 655.36 ms */
	static const uint16_t us10[32] = {
		65535, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
		12288, 16384, 24576, 32768, 49152,
	};

	return us10[code & 31] / 100 + 1;
}

/*
 * Does a response belong to the message in flight?  Its PSNs run from
 * sq_psn for inflight_pkts packets.  An ACK completes the message only with
 * its last PSN; one inside the message acknowledges part of it, which the
 * model, resending whole messages, does not track (a guess at what matters:
 * our responder never sends one).  A NAK names the PSN it refuses, READ
 * response packets must come in order (a gap waits for the ACK timeout; a
 * real card would resend the read from the gap at once), an atomic
 * response has the request's PSN.  Anything else answers an earlier
 * transmission, or nothing we sent.
 */
static bool response_in_flight(const struct cx3_qp *qp,
			       const struct cx3_pkt *p, uint8_t op,
			       uint8_t synd)
{
	uint32_t off = cx3_psn_diff(qp->sq_psn, p->psn);

	if (off >= qp->inflight_pkts)
		return false;
	if (op == (IB_OP_ACK & 0x1f) && (synd >> 5) == 0)
		return off == qp->inflight_pkts - 1;
	if (op >= IB_OP_READ_RESP_FIRST && op <= (IB_OP_READ_RESP_ONLY & 0x1f))
		return off == qp->inflight_rcvd;
	return true;
}

void cx3_rc_response(struct cx3_dev *dev, struct cx3_qp *qp,
		     const struct cx3_pkt *p)
{
	struct swqe *w;
	uint8_t synd, op = p->opcode & 0x1f, buf[8];
	uint32_t byte_cnt = 0;
	int err;

	if (qp->state != CX3_QPS_RTS)
		return;
	if (p->payload_len < IB_AETH_BYTES)
		return;
	/* a middle read response has no AETH: it acknowledges nothing */
	synd = op == IB_OP_READ_RESP_MIDDLE ? 0 : p->ext[0];
	if (!qp->inflight || !response_in_flight(qp, p, op, synd)) {
		qp->stale_responses++;
		return;			/* late, duplicated, or nothing asked */
	}
	w = malloc(sizeof(*w));
	if (!w)
		return;
	if (read_wqe(dev, qp, qp->sq.cons, w)) {
		free(w);
		return;
	}
	if ((synd >> 5) == 1) {			/* RNR NAK */
		qp->inflight = false;
		if (qp->rnr_left == 0) {
			send_error(dev, qp, w, SYN_RNR_RETRY_EXC);
		} else {
			if (qp->rnr_left != 7)
				qp->rnr_left--;
			qp->rnr_at = dev->host.now_ms(dev->host.opaque) +
				     rnr_timer_ms(synd);
			cx3_qp_rnr_wait(dev, qp, true);
		}
		free(w);
		return;
	}
	if (synd == AETH_NAK_PSN_SEQ) {
		/*
		 * The responder lost part of the message: resend it (whole,
		 * from sq_psn; the responder drops what it already has as
		 * duplicates).  It counts against the retry count, as an ACK
		 * timeout does.
		 */
		if (qp->retry_left == 0) {
			send_error(dev, qp, w, SYN_RETRY_EXC);
		} else {
			if (qp->retry_left != 7)
				qp->retry_left--;
			qp->inflight = false;
			cx3_qp_rnr_wait(dev, qp, false);
			cx3_qp_kick(dev, qp);
		}
		free(w);
		return;
	}
	if ((synd >> 5) == 3) {			/* NAK */
		send_error(dev, qp, w, synd == AETH_NAK_ACCESS ? SYN_REMOTE_ACCESS :
				       synd == AETH_NAK_INV_REQ ? SYN_REMOTE_INVAL_REQ :
				       SYN_REMOTE_OP);
		free(w);
		return;
	}
	/* ACK, with data for a read or an atomic */
	if ((op == (IB_OP_READ_RESP_ONLY & 0x1f) || op == IB_OP_READ_RESP_FIRST ||
	     op == IB_OP_READ_RESP_MIDDLE || op == IB_OP_READ_RESP_LAST) &&
	    w->opcode == WQE_RDMA_READ) {
		/* FIRST, LAST and ONLY carry an AETH, MIDDLE does not */
		size_t h = op == IB_OP_READ_RESP_MIDDLE ? 0 : IB_AETH_BYTES;

		err = cx3_scatter_sges(dev, qp, w->b + 32, (w->size - 32) / 16,
				       p->payload + h, p->payload_len - h,
				       qp->read_off);
		qp->read_off += p->payload_len - h;
		qp->inflight_rcvd++;
		byte_cnt = (uint32_t)qp->read_off;
		if (err) {
			send_error(dev, qp, w, (uint8_t)err);
			free(w);
			return;
		}
		if (op == IB_OP_READ_RESP_FIRST || op == IB_OP_READ_RESP_MIDDLE) {
			free(w);
			return;		/* more to come */
		}
	} else if (op == (IB_OP_ATOMIC_ACK & 0x1f) &&
		   (w->opcode == WQE_ATOMIC_CS || w->opcode == WQE_ATOMIC_FA)) {
		if (p->payload_len < IB_AETH_BYTES + IB_ATOMIC_ACK_BYTES) {
			free(w);
			return;
		}
		memcpy(buf, p->payload + IB_AETH_BYTES, 8);
		err = cx3_scatter_sges(dev, qp, w->b + 48, (w->size - 48) / 16,
				       buf, 8, 0);
		byte_cnt = 8;
		if (err) {
			send_error(dev, qp, w, (uint8_t)err);
			free(w);
			return;
		}
	}
	qp->inflight = false;
	cx3_qp_rnr_wait(dev, qp, false);
	qp->sq_psn += qp->inflight_pkts;
	qp->retry_left = (cx3_get32(qp->ctx, 0x70) >> 16) & 7;
	send_done(dev, qp, w, byte_cnt);
	free(w);
	cx3_qp_kick(dev, qp);
}

/* From the poll: resend after an RNR wait, or after an ACK timeout. */
void cx3_rc_timers(struct cx3_dev *dev)
{
	uint64_t now = dev->host.now_ms(dev->host.opaque);
	struct cx3_qp *qp, *next;
	struct swqe *w;

	for (qp = dev->rnr_qps; qp; qp = next) {
		next = qp->rnr_next;
		if (now < qp->rnr_at)
			continue;
		if (qp->inflight) {		/* no response in time */
			if (qp->retry_left == 0) {
				w = malloc(sizeof(*w));
				if (w && !read_wqe(dev, qp, qp->sq.cons, w))
					send_error(dev, qp, w, SYN_RETRY_EXC);
				free(w);
				continue;
			}
			if (qp->retry_left != 7)
				qp->retry_left--;
		}
		qp->inflight = false;
		cx3_qp_rnr_wait(dev, qp, false);
		cx3_qp_kick(dev, qp);
	}
}

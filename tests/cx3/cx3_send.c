// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the send engine.  From the device's consumer counter it
 * executes every posted send WQE (the owner bit says which are posted):
 * MLX WQEs of QP0/QP1 carry their packet headers inline; UD WQEs carry an
 * address vector; RC and UC WQEs follow the QP's path and are segmented by
 * its MTU.  UD, UC and MLX sends complete when their packets leave; RC
 * requests go to the RC requester (cx3_rc.c), which keeps them in flight
 * until they are acknowledged.
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_mr.h"
#include "cx3_offload.h"
#include "cx3_pkt.h"
#include "cx3_qp.h"
#include "cx3_wqe.h"

#define CQE_OPCODE_ERROR	0x1e
#define CQE_IS_SEND		0x40

int cx3_wqe_read(struct cx3_dev *dev, struct cx3_qp *qp, uint32_t idx,
		 struct cx3_swqe *w)
{
	uint64_t off = qp->sq.off +
		       ((uint64_t)(idx & (qp->sq.cnt - 1)) << qp->sq.stride_shift);
	size_t stride = 1u << qp->sq.stride_shift;

	w->idx = idx;
	if (qp->bf_len && (uint16_t)idx == qp->bf_idx) {
		/* given through BlueFlame: the queue is not read */
		memcpy(w->b, qp->bf_wqe, qp->bf_len);
		w->size = qp->bf_len;
		qp->bf_len = 0;
	} else {
		if (cx3_buf_read(dev, &qp->buf, off, w->b, 16))
			return -1;
		w->size = (size_t)(w->b[7] & 0x3f) * 16;
		if (w->size < 16 || w->size > stride || w->size > CX3_WQE_MAX)
			return -1;
		if (cx3_buf_read(dev, &qp->buf, off, w->b, w->size))
			return -1;
	}
	w->opcode = w->b[3] & 0x1f;
	w->signaled = ((cx3_get32(w->b, 8) >> 2) & 3) == 3;
	w->fence = w->b[7] & WQE_FENCE;
	/* the MLX segment has no solicited bit; the driver's BTH carries it */
	w->solicited = qp->st != CX3_ST_MLX && (cx3_get32(w->b, 8) & 2);
	return 0;
}

/*
 * Gather the segments from offset off of a WQE into out: inline segments
 * (bit 31 of the first dword) and data segments {length, lkey, address}.
 * Returns the number of bytes, or -SYN_* on an error.
 */
long cx3_wqe_gather(struct cx3_dev *dev, struct cx3_qp *qp,
		    const struct cx3_swqe *w, size_t off, uint8_t **out)
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
		if (total + len > CX3_MAX_MESSAGE)
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
		       const struct cx3_swqe *w, uint8_t syndrome)
{
	cx3_log(dev, "QP 0x%x: send WQE %u (opcode 0x%02x) failed, syndrome 0x%02x",
		qp->qpn, w->idx & 0xffff, w->opcode, syndrome);
	cx3_send_cqe(dev, qp, w->idx & 0xffff, w->opcode, 0, syndrome);
	qp->sq.cons++;
	cx3_qp_to_error(dev, qp);
}

static void send_done(struct cx3_dev *dev, struct cx3_qp *qp,
		      const struct cx3_swqe *w, uint32_t byte_cnt)
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
static int send_mlx(struct cx3_dev *dev, struct cx3_qp *qp, struct cx3_swqe *w)
{
	int port = cx3_qp_port(qp);
	uint32_t flags = cx3_get32(w->b, 8);
	uint8_t *pkt;
	long n = cx3_wqe_gather(dev, qp, w, 16, &pkt);

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

/* One UD packet of a WQE: the address vector's headers, DETH, payload */
struct ud_out {
	struct cx3_dev *dev;
	struct cx3_qp *qp;
	const struct cx3_swqe *w;
	int port;
	uint8_t *pkt;
};

static void ud_xmit(void *arg, const uint8_t *data, size_t n)
{
	struct ud_out *o = arg;
	const uint8_t *av = o->w->b + 16;
	uint32_t qkey = cx3_get32(av, 0x24), dqpn = cx3_get32(av, 0x20);
	bool imm = o->w->opcode == WQE_SEND_IMM, grh = av[5] & 0x80;
	size_t ext = IB_DETH_BYTES + (imm ? IB_IMM_BYTES : 0), off;
	uint8_t *pkt = o->pkt;

	off = cx3_build_headers(o->dev, o->qp, o->port, cx3_get16(av, 6),
				av + 16, grh, av[12] >> 4,
				IB_TRANSPORT_UD | (imm ? IB_OP_SEND_ONLY_IMM :
						   IB_OP_SEND_ONLY),
				o->w->solicited, dqpn, o->qp->sq_psn++,
				ext + n, pkt);
	cx3_put32(pkt, off, qkey & 0x80000000u ? o->qp->qkey : qkey);
	cx3_put32(pkt, off + 4, o->qp->qpn);
	off += IB_DETH_BYTES;
	if (imm) {
		memcpy(pkt + off, o->w->b + 12, 4);
		off += IB_IMM_BYTES;
	}
	memcpy(pkt + off, data, n);
	cx3_link_xmit(o->dev, o->port, pkt, packet_len(pkt));
}

/*
 * An LSO WQE: after the address vector, MSS << 16 | header length and the
 * header, padded to 16 bytes; the data segments follow.  Every packet
 * carries the header and at most MSS bytes of the data (cx3_offload.c).
 */
static int send_lso(struct ud_out *o, struct cx3_swqe *w)
{
	uint32_t dw = cx3_get32(w->b, 16 + 48);
	size_t hlen = dw & 0xffff, mss = dw >> 16;
	size_t seg = 16 + 48 + ((4 + hlen + 15) & ~(size_t)15);
	uint8_t *data;
	long n, sent;

	if (seg > w->size || !mss || hlen + mss > 4096)
		return SYN_LOCAL_LENGTH;
	n = cx3_wqe_gather(o->dev, o->qp, w, seg, &data);
	if (n < 0)
		return (int)-n;
	if (hlen + (size_t)n > (1u << CX3_LOG_MAX_GSO)) {
		free(data);
		return SYN_LOCAL_LENGTH;
	}
	sent = cx3_lso(w->b + 16 + 48 + 4, hlen, data, (size_t)n,
		       (uint32_t)mss, ud_xmit, o);
	free(data);
	if (sent < 0) {
		cx3_log(o->dev, "QP 0x%x: LSO WQE %u: a header of %zu bytes the card cannot segment",
			o->qp->qpn, w->idx & 0xffff, hlen);
		return SYN_LOCAL_QP_OP;
	}
	return 0;
}

static int send_ud(struct cx3_dev *dev, struct cx3_qp *qp, struct cx3_swqe *w)
{
	const uint8_t *av = w->b + 16;
	struct ud_out o = { dev, qp, w, (av[0] & 3) ? (av[0] & 3) :
					cx3_qp_port(qp), NULL };
	uint8_t *data;
	long n;
	int syn = 0;

	if (w->opcode != WQE_SEND && w->opcode != WQE_SEND_IMM &&
	    w->opcode != WQE_LSO)
		return SYN_LOCAL_QP_OP;
	if (w->size < 16 + 48 || o.port > CX3_NUM_PORTS)
		return SYN_LOCAL_QP_OP;
	o.pkt = malloc(IB_MAX_PKT);
	if (!o.pkt)
		return SYN_LOCAL_LENGTH;
	if (w->opcode == WQE_LSO) {
		syn = send_lso(&o, w);
		goto out;
	}
	n = cx3_wqe_gather(dev, qp, w, 16 + 48, &data);
	if (n < 0) {
		syn = (int)-n;
		goto out;
	}
	if (n > 4096) {
		free(data);
		syn = SYN_LOCAL_LENGTH;
		goto out;
	}
	cx3_csum_tx(data, (size_t)n, cx3_get32(w->b, 8));
	ud_xmit(&o, data, (size_t)n);
	free(data);
out:
	free(o.pkt);
	if (!syn)
		send_done(dev, qp, w, 0);
	return syn;
}

/* The path of a connected QP: DLID, GRH, SL from its primary path. */
static void rc_path(struct cx3_qp *qp, uint16_t *dlid, bool *grh, uint8_t *sl)
{
	const uint8_t *path = qp->ctx + 0x18;

	*dlid = cx3_get16(path, 0x06);
	*grh = path[0x05] & 0x80;
	*sl = (path[0x20] >> 2) & 0xf;
}

/* The PSNs of an RDMA READ's responses: one per path MTU of data. */
static uint32_t read_psns(const struct cx3_qp *qp, uint32_t len)
{
	uint32_t mtu = cx3_qp_mtu(qp);

	return len <= mtu ? 1 : (len + mtu - 1) / mtu;
}

/* The total length a READ's local data segments receive. */
static uint32_t read_length(const struct cx3_swqe *w, size_t seg)
{
	uint32_t len = 0;
	size_t off;

	for (off = seg; off + 16 <= w->size; off += 16) {
		if (cx3_get32(w->b, off + 4) == 0x100 && !cx3_get32(w->b, off))
			break;
		len += cx3_get32(w->b, off) & 0x7fffffff;
	}
	return len;
}

/*
 * The packet opcode of packet i of n of a SEND or RDMA WRITE; imm here
 * also stands for a SEND with Invalidate's IETH, which takes the ImmDt's
 * place.
 */
static uint8_t seg_opcode(bool send, bool imm, bool inv, uint32_t i,
			  uint32_t n)
{
	if (n == 1 && inv)
		return IB_OP_SEND_ONLY_INV;
	if (n == 1)
		return send ? (imm ? IB_OP_SEND_ONLY_IMM : IB_OP_SEND_ONLY) :
			      (imm ? IB_OP_WRITE_ONLY_IMM : IB_OP_WRITE_ONLY);
	if (i == 0)
		return send ? IB_OP_SEND_FIRST : IB_OP_WRITE_FIRST;
	if (i + 1 < n)
		return send ? IB_OP_SEND_MIDDLE : IB_OP_WRITE_MIDDLE;
	if (inv)
		return IB_OP_SEND_LAST_INV;
	return send ? (imm ? IB_OP_SEND_LAST_IMM : IB_OP_SEND_LAST) :
		      (imm ? IB_OP_WRITE_LAST_IMM : IB_OP_WRITE_LAST);
}

/*
 * Every request packet of an XRC initiator carries an XRCETH right after
 * the BTH: the XRC SRQ the target takes its receive WQE (and, for RDMA and
 * atomics, its PD) from, which the WQE's control segment names in dword 2
 * bits 31:8 (libmlx4's remote SRQ number).  Returns the offset after it.
 */
static size_t put_xrceth(const struct cx3_swqe *w, bool xrc, uint8_t *pkt,
			 size_t off)
{
	if (!xrc)
		return off;
	cx3_put32(pkt, off, cx3_get32(w->b, 8) >> 8);
	return off + IB_XRCETH_BYTES;
}

int cx3_send_request(struct cx3_dev *dev, struct cx3_qp *qp,
		     const struct cx3_swqe *w, uint32_t psn, uint32_t from,
		     uint32_t *npsn, uint32_t *len)
{
	bool rc = cx3_qp_reliable(qp), send = false, imm = false, inv = false;
	bool xrc = qp->st == CX3_ST_XRC;
	uint8_t tr = cx3_qp_transport(qp);
	uint8_t op, sl, *data = NULL, *pkt;
	uint32_t mtu = cx3_qp_mtu(qp), n, i, total = 0;
	size_t seg = 16, off, pos, chunk, hext, x = xrc ? IB_XRCETH_BYTES : 0;
	uint16_t dlid;
	bool grh;
	long got;

	switch (w->opcode) {
	case WQE_SEND:
	case WQE_SEND_IMM:
		send = true;
		imm = w->opcode == WQE_SEND_IMM;
		break;
	case WQE_SEND_INVAL:
		/* the R_Key to invalidate rides in ctrl dword 3, as an ImmDt */
		send = true;
		imm = true;
		inv = true;
		break;
	case WQE_RDMA_WRITE:
	case WQE_RDMA_WRITE_IMM:
		imm = w->opcode == WQE_RDMA_WRITE_IMM;
		seg += 16;
		break;
	case WQE_RDMA_READ:
		seg += 16;
		break;
	case WQE_ATOMIC_CS:
	case WQE_ATOMIC_FA:
		seg += 32;
		break;
	default:
		return SYN_LOCAL_QP_OP;
	}
	/* UC has no READ, atomics, or SEND with Invalidate (IBA) */
	if (!rc && w->opcode != WQE_SEND && w->opcode != WQE_SEND_IMM &&
	    w->opcode != WQE_RDMA_WRITE && w->opcode != WQE_RDMA_WRITE_IMM)
		return SYN_LOCAL_QP_OP;
	if (seg > w->size)
		return SYN_LOCAL_LENGTH;
	if (w->opcode == WQE_RDMA_READ) {
		total = read_length(w, seg);
		n = read_psns(qp, total);
	} else if (w->opcode == WQE_ATOMIC_CS || w->opcode == WQE_ATOMIC_FA) {
		total = 8;
		n = 1;
	} else {
		got = cx3_wqe_gather(dev, qp, w, seg, &data);
		if (got < 0)
			return (int)-got;
		total = (uint32_t)got;
		n = total <= mtu ? 1 : (total + mtu - 1) / mtu;
	}
	*npsn = n;
	*len = total;
	pkt = malloc(IB_MAX_PKT);
	if (!pkt) {
		free(data);
		return SYN_LOCAL_LENGTH;
	}
	rc_path(qp, &dlid, &grh, &sl);
	if (w->opcode == WQE_RDMA_READ || w->opcode == WQE_ATOMIC_CS ||
	    w->opcode == WQE_ATOMIC_FA) {
		/*
		 * One request packet.  A READ resumed at response packet from
		 * asks for the rest only: its RETH moves on by as many MTUs,
		 * and it takes that response's PSN (IBA 9.7.4.1.4).
		 */
		uint64_t skip = (uint64_t)from * mtu;
		bool atomic = w->opcode != WQE_RDMA_READ;

		op = atomic ? (w->opcode == WQE_ATOMIC_CS ? IB_OP_CMP_SWAP :
			       IB_OP_FETCH_ADD) : IB_OP_READ_REQ;
		off = cx3_build_headers(dev, qp, cx3_qp_port(qp), dlid,
					qp->ctx + 0x18 + 0x10, grh, sl, tr | op,
					false, cx3_qp_remote_qpn(qp), psn + from,
					x + (atomic ? IB_ATOMIC_ETH_BYTES :
					     IB_RETH_BYTES), pkt);
		pkt[off - 4] |= 0x80;			/* ACK request */
		off = put_xrceth(w, xrc, pkt, off);
		cx3_put64(pkt, off, cx3_get64(w->b, 16) + (atomic ? 0 : skip));
		cx3_put32(pkt, off + 8, cx3_get32(w->b, 24));	/* R_Key */
		if (atomic)	/* swap or add, compare */
			memcpy(pkt + off + 12, w->b + 32, 16);
		else
			cx3_put32(pkt, off + 12, (uint32_t)(total - skip));
		cx3_link_xmit(dev, cx3_qp_port(qp), pkt, packet_len(pkt));
		free(pkt);
		return 0;
	}
	for (i = from, pos = (size_t)from * mtu; i < n; i++, pos += chunk) {
		bool first = i == 0, last = i + 1 == n;

		chunk = last ? total - pos : mtu;
		hext = x + (first && !send ? IB_RETH_BYTES : 0) +
		       (last && imm ? IB_IMM_BYTES : 0);
		op = seg_opcode(send, imm, inv, i, n);
		off = cx3_build_headers(dev, qp, cx3_qp_port(qp), dlid,
					qp->ctx + 0x18 + 0x10, grh, sl, tr | op,
					w->solicited && last, cx3_qp_remote_qpn(qp),
					psn + i, hext + chunk, pkt);
		if (rc && last)
			pkt[off - 4] |= 0x80;		/* ACK request */
		off = put_xrceth(w, xrc, pkt, off);
		if (first && !send) {
			memcpy(pkt + off, w->b + 16, 12);	/* VA, R_Key */
			cx3_put32(pkt, off + 12, total);
			off += IB_RETH_BYTES;
		}
		if (last && imm) {
			memcpy(pkt + off, w->b + 12, 4);
			off += IB_IMM_BYTES;
		}
		if (chunk)
			memcpy(pkt + off, data + pos, chunk);
		cx3_link_xmit(dev, cx3_qp_port(qp), pkt, packet_len(pkt));
	}
	free(data);
	free(pkt);
	return 0;
}

/* UC: the packets leave, the WQE completes. */
static int send_uc(struct cx3_dev *dev, struct cx3_qp *qp,
		   struct cx3_swqe *w)
{
	uint32_t npsn, len;
	int syn;

	if (cx3_wqe_is_local(w->opcode)) {	/* no packet, no PSN */
		syn = cx3_wqe_local_op(dev, qp, w);
		if (!syn)
			send_done(dev, qp, w, 0);
		return syn;
	}
	syn = cx3_send_request(dev, qp, w, qp->sq_psn, 0, &npsn, &len);
	if (syn)
		return syn;
	qp->sq_psn = (qp->sq_psn + npsn) & IB_PSN_MASK;
	send_done(dev, qp, w, 0);
	return 0;
}

void cx3_qp_execute(struct cx3_dev *dev, struct cx3_qp *qp)
{
	struct cx3_swqe *w;
	int syn;

	if ((qp->state != CX3_QPS_RTS && qp->state != CX3_QPS_SQD) ||
	    !qp->sq.cnt || cx3_qp_xrc_target(qp))
		return;
	w = malloc(sizeof(*w));
	if (!w)
		return;
	if (cx3_qp_reliable(qp)) {
		cx3_rc_execute(dev, qp, w);
		free(w);
		return;
	}
	while (qp->state == CX3_QPS_RTS &&
	       cx3_qp_sq_posted(dev, qp, qp->sq.cons)) {
		if (cx3_wqe_read(dev, qp, qp->sq.cons, w)) {
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
			syn = send_uc(dev, qp, w);
			break;
		}
		if (syn)
			send_error(dev, qp, w, (uint8_t)syn);
	}
	free(w);
}

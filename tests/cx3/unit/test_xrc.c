// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the ConnectX-3 model's XRC, on the card and wire of the RC
 * pair (rcpair.c): an XRC initiator on port 1 and an XRC target on port 2
 * (its number with bit 23, as mlx4_ib gives it), XRC SRQs of the target's
 * domain and of another one, a plain SRQ.  Checked: the QUERY_DEV_CAP flag;
 * the XRC opcodes and the XRCETH with the SRQ number from the WQE on every
 * request packet; the target taking its receive WQE from that SRQ, its PD
 * for RDMA and atomics, and completing on the SRQ's CQ with the target's
 * number (bit 23) and the SRQ number in g_mlpath_rqpn; XRC response
 * opcodes; the remote access NAK for an SRQ of another domain or a plain
 * one; the bit-23 number in the commands; a lost packet resent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcpair.h"
#include "cx3_qp.h"
#include "cx3_srq.h"

#define XRC_BIT		(1u << 23)
#define XI		12			/* the initiator, port 1 */
#define XT		(13 | XRC_BIT)		/* the target, port 2 */
#define XI2		14			/* an initiator on port 2 */
#define XRCD		1
#define TGT_PD		7	/* the domain's private PD: no MR of its own */
#define XCQN		3	/* the XRC SRQ's CQ */
#define SRQ_OK		3	/* XRC SRQ of XRCD 1, PD 5 */
#define SRQ_OTHER	4	/* XRC SRQ of XRCD 2 */
#define SRQ_PLAIN	5	/* a plain SRQ (XRCD 0, no CQ) */
#define X_PSN		0x100

#define XCQ_BUF		(MEM_BASE + 0x410000)
#define XI_BUF		(MEM_BASE + 0x411000)
#define XT_BUF		(MEM_BASE + 0x412000)
#define XI2_BUF		(MEM_BASE + 0x417000)
#define SRQ_BUF(n)	(MEM_BASE + 0x413000 + ((n) - SRQ_OK) * 0x1000)
#define XCQ_DB		(MEM_BASE + 0x403500)
#define SRQ_DB(n)	(MEM_BASE + 0x403600 + ((n) - SRQ_OK) * 0x10)

#define XOP(op)		(0xa0 | (op))	/* the XRC transport's opcodes */
#define W_CMP_SWAP	0x11
#define B_SEND_MIDDLE	0x01
#define B_SEND_LAST	0x02
#define B_WRITE_FIRST	0x06
#define B_WRITE_LAST	0x08
#define B_READ_ONLY	0x10
#define B_CMP_SWAP	0x13
#define A_NAK_ACCESS	0x62
#define A_RNR		0x20
#define SYN_REMOTE_ACCESS 0x13
#define RECV_SEND	0x01

static unsigned int xi_sq, xcq_ci, srq_posted[3];
static struct wire_pkt pk;

static uint32_t xi_remote = XT;	/* where the initiator sends */

static int xrc_qp_cmd(uint32_t qpn, uint16_t op, unsigned int state)
{
	bool ini = qpn != XT, p2 = qpn != XI;
	uint8_t *c = gp(MBOX) + 8;

	memset(gp(MBOX), 0, 4096);
	cx3_put32(c, 0x00, state << 28 | 6u << 16);	/* XRC */
	cx3_put32(c, 0x04, ini ? PD : TGT_PD);
	c[0x08] = 1 << 5;				/* path MTU 256 */
	c[0x09] = 0;					/* no RQ */
	c[0x0a] = 3 << 3 | 2;				/* SQ: 8 x 64 bytes */
	cx3_put32(c, 0x14, qpn == XI ? xi_remote : XI);
	cx3_put16(c, 0x18 + 0x06, p2 ? 1 : 2);		/* DLID */
	c[0x18 + 0x08] = ACK_TIMEOUT << 3;
	c[0x18 + 0x20] = p2 ? 0x40 : 0x00;		/* port 1 or 2 */
	cx3_put32(c, 0x70, 2u << 21 | 3u << 16 | 7u << 13);
	cx3_put32(c, 0x78, X_PSN);			/* SQ PSN */
	cx3_put32(c, 0x7c, RC_CQN);
	cx3_put32(c, 0x90, 7u << 13);			/* remote R, W, atomic */
	cx3_put32(c, 0x94, 1u << 24 | X_PSN);		/* RQ PSN */
	cx3_put32(c, 0x98, ini ? 0 : XRCD);
	cx3_put32(c, 0x9c, RC_CQN);
	/* MTT entry 10, 11 or 15 */
	cx3_put32(c, 0xcc, (qpn == XI ? 10 : qpn == XT ? 11 : 15) * 8);
	return cmd(MBOX, qpn, op, 0);
}

static bool xrc_up(void)
{
	bool ok = true;
	int i;

	/*
	 * the initiator's SQ stamped; the target's left zero, as mlx4_ib
	 * leaves it when user space drives the QP: owner bits that would
	 * pass for posted WQEs
	 */
	for (i = 0; i < 8; i++)
		gp(XI_BUF)[i * 64] = 0x80;
	memset(gp(XT_BUF), 0, 4096);
	xi_sq = 0;
	for (i = 0; i < 2; i++) {
		uint32_t qpn = i ? XT : XI;

		ok &= xrc_qp_cmd(qpn, 0x019, 1) == 0 &&
		      xrc_qp_cmd(qpn, 0x01a, 2) == 0 &&
		      xrc_qp_cmd(qpn, 0x01b, 3) == 0;
	}
	return ok;
}

/* Both XRC QPs through RESET and back, the wire and CQs emptied */
static bool xrc_reset(void)
{
	struct seen c[64];
	bool ok = xrc_qp_cmd(XI, 0x021, 0) == 0 && xrc_qp_cmd(XT, 0x021, 0) == 0;

	nwire = 0;
	cq_drain(c, 64);
	ok &= xrc_up();
	return ok;
}

/* An SRQ of 8 WQEs of 32 bytes (one SGE), its free list linked in order */
static int srq_create(unsigned int srqn, uint16_t xrcd, uint32_t cqn)
{
	uint8_t *m = gp(MBOX), *b = gp(SRQ_BUF(srqn));
	int i;

	memset(b, 0, 4096);
	for (i = 0; i < 8; i++)
		cx3_put16(b, i * 32 + 2, (uint16_t)((i + 1) & 7));
	cx3_put32(gp(SRQ_DB(srqn)), 0, 0);
	memset(m, 0, 4096);
	cx3_put32(m, 0x00, 3u << 24 | srqn);		/* 8 WQEs */
	m[0x04] = 1;					/* 32-byte stride */
	cx3_put16(m, 0x06, xrcd);
	cx3_put32(m, 0x08, cqn);
	cx3_put32(m, 0x14, (12 + srqn - SRQ_OK) * 8);	/* MTT 12.. */
	cx3_put32(m, 0x18, PD);
	cx3_put64(m, 0x28, SRQ_DB(srqn));
	return cmd(MBOX, srqn, 0x035, 0);
}

/* A receive into slot i (0x300 bytes from RC_VA + 0x400 + i * 0x300) */
static void srq_post(unsigned int srqn, unsigned int i)
{
	unsigned int k = srqn - SRQ_OK, idx = srq_posted[k] & 7;
	uint8_t *w = gp(SRQ_BUF(srqn)) + idx * 32;

	cx3_put32(w, 16, 0x300);
	cx3_put32(w, 20, RC_KEY);
	cx3_put64(w, 24, RC_VA + 0x400 + (i & 3) * 0x300);
	srq_posted[k]++;
	cx3_put32(gp(SRQ_DB(srqn)), 0, srq_posted[k] & 0xffff);
}

/* The next send WQE of the initiator, naming an SRQ; not yet posted */
static uint8_t *xi_wqe(uint8_t opcode, unsigned int size16, uint64_t raddr,
		       uint32_t srqn)
{
	uint8_t *w = gp(XI_BUF) + (xi_sq & 7) * 64;

	memset(w, 0, 64);
	w[0] = (xi_sq & 8) ? 0x00 : 0x80;
	w[3] = opcode;
	w[7] = (uint8_t)size16;
	cx3_put32(w, 8, srqn << 8 | 3u << 2);		/* signaled */
	cx3_put64(w, 16, raddr);
	cx3_put32(w, 24, RC_KEY);
	return w;
}

static void xi_post(uint8_t *w)
{
	w[0] = (xi_sq & 8) ? 0x80 : 0x00;
	xi_sq++;
	cx3_qp_send_doorbell(&dev, XI);
}

static void xi_send(uint32_t len, uint32_t srqn)
{
	uint8_t *w = xi_wqe(W_SEND, 2, 0, srqn);

	dseg(w, 16, len, RC_VA);
	xi_post(w);
}

struct xcqe {
	uint32_t qpn, rqpn, bytes;
	uint16_t wqe;
	uint8_t opcode, syndrome;
};

/* The completions on the XRC SRQ's CQ */
static unsigned int xcq_drain(struct xcqe *c, unsigned int max)
{
	unsigned int n = 0;
	uint8_t *e;

	for (;;) {
		e = gp(XCQ_BUF) + (xcq_ci & 63) * 32;
		if (!!(e[31] & 0x80) != !!(xcq_ci & 64))
			return n;
		if (n < max) {
			c[n].qpn = cx3_get32(e, 0) & 0xffffff;
			c[n].rqpn = cx3_get32(e, 8) & 0xffffff;
			c[n].bytes = cx3_get32(e, 0x14);
			c[n].wqe = cx3_get16(e, 0x18);
			c[n].opcode = e[31] & 0x1f;
			c[n].syndrome = e[0x1b];
		}
		n++;
		xcq_ci++;
		cx3_put32(gp(XCQ_DB), 0, xcq_ci & 0xffffff);
	}
}

/* A request packet from port 1: its opcode, PSN, target and XRCETH */
static bool is_xreq(const struct wire_pkt *w, uint8_t op, uint32_t psn,
		    uint32_t srqn)
{
	return w->p.opcode == XOP(op) && w->p.psn == PSN(psn) &&
	       w->p.dqpn == XT && w->p.payload_len >= 4 &&
	       cx3_get32(w->p.payload, 0) == srqn;
}

static bool is_xack(const struct wire_pkt *w, uint8_t aeth, uint32_t psn)
{
	return w->p.opcode == XOP(B_ACK) && w->p.psn == PSN(psn) &&
	       w->p.dqpn == XI && w->p.payload_len >= 4 &&
	       w->p.payload[0] == aeth;
}

/* Deliver a packet taken from the wire (none if the take failed) */
static void fwd(struct wire_pkt *w)
{
	if (w->len)
		deliver(w);
	w->len = 0;
}

/* Deliver what is on the wire, and what that sends, until it is quiet */
static unsigned int deliver_all(void)
{
	unsigned int n = 0;

	while (nwire && n < 1000 && wire_take(wire[0].port, &pk)) {
		deliver(&pk);
		n++;
	}
	return n;
}

static void fill(unsigned int off, unsigned int len, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		mr(off)[i] = (uint8_t)(seed + i * 7);
}

static void test_caps(void)
{
	uint64_t out = MBOX + 0x1000;
	uint8_t *o = gp(out);
	int st = post(&dev, 0, 0, &out, 0x003, 0);

	check(st == 0 &&
	      (cx3_get32(o, 0x44) & (1u << 3)) && (o[0x67] & 0x1f) >= 8 &&
	      (o[0x66] >> 4) == 0,
	      "QUERY_DEV_CAP: XRC flag (bit 3), log max XRCDs %u, reserved %u",
	      o[0x67] & 0x1f, o[0x66] >> 4);
}

/* The target is known by its number with bit 23, its table slot without */
static void test_qpn_bit23(void)
{
	uint64_t out = MBOX + 0x1000;
	uint8_t *o = gp(out);
	struct cx3_qp *t = cx3_qp_get(&dev, XT);

	check(t && t->qpn == XT && !cx3_qp_get(&dev, XT & ~XRC_BIT) &&
	      dev.qps[XT & ~XRC_BIT] == t,
	      "bit 23: the target is QP 0x%x in slot 0x%x, not QP 0x%x",
	      XT, XT & ~XRC_BIT, XT & ~XRC_BIT);
	int st = post(&dev, 0, XT, &out, 0x022, 0);

	check(st == 0 && (cx3_get32(o, 8 + 0x10) & 0xffffff) == XT &&
	      cx3_get32(o, 8) >> 28 == 3,
	      "bit 23: QUERY_QP of 0x%x reports local QPN 0x%x in RTS", XT,
	      cx3_get32(o, 8 + 0x10) & 0xffffff);
	check(xrc_qp_cmd(XT & ~XRC_BIT, 0x019, 1) != 0 &&
	      dev.qps[XT & ~XRC_BIT] == t && t->state == CX3_QPS_RTS,
	      "bit 23: RST2INIT of 0x%x refused while 0x%x holds the slot",
	      XT & ~XRC_BIT, XT);
	check(t && t->rq.cnt == 0 && cx3_qp_get(&dev, XI) &&
	      cx3_qp_get(&dev, XI)->rq.cnt == 0,
	      "no RQ for either XRC QP (the context says 1 WQE of 16 bytes)");
	check(rc_qp_cmd(20 | XRC_BIT, 0x019, 1) != 0 && !dev.qps[20],
	      "bit 23: an RC QP with an XRC target's number refused");
}

static void test_send(void)
{
	struct seen c[8];
	struct xcqe x[8];
	struct wire_pkt f[3] = { 0 };
	uint16_t rc_before;
	unsigned int n, i;
	bool ok = true;

	check(xrc_reset(), "send: XRC QPs up");
	fill(0, 600, 3);
	memset(mr(0x400), 0, 0x1000);
	srq_post(SRQ_OK, 0);
	srq_post(SRQ_OK, 1);
	xi_send(100, SRQ_OK);
	ok = wire_take(1, &pk);
	check(ok && is_xreq(&pk, B_SEND_ONLY, X_PSN, SRQ_OK) &&
	      !wire_take(1, &f[0]),
	      "send: one XRC SEND_ONLY (0x%02x) to 0x%x with XRCETH SRQ %u",
	      pk.p.opcode, pk.p.dqpn,
	      pk.p.payload_len >= 4 ? cx3_get32(pk.p.payload, 0) : 0);
	check(pk.len == IB_LRH_BYTES + IB_BTH_BYTES + 4 + 100 + IB_ICRC_BYTES,
	      "send: the packet is LRH BTH XRCETH payload ICRC (%zu bytes)",
	      pk.len);
	rc_before = (uint16_t)rc_ci;
	deliver(&pk);
	ok = wire_take(2, &pk);
	check(ok && is_xack(&pk, A_ACK, X_PSN),
	      "send: the target ACKs with the XRC ACK opcode (0x%02x)",
	      pk.p.opcode);
	n = xcq_drain(x, 8);
	check(n == 1 && x[0].qpn == XT && x[0].rqpn == SRQ_OK &&
	      x[0].opcode == RECV_SEND && x[0].bytes == 100 && x[0].wqe == 0 &&
	      !memcmp(mr(0x400), mr(0), 100),
	      "send: the receive completes on the SRQ's CQ: QPN 0x%x, rqpn %u, %u bytes, WQE %u",
	      n ? x[0].qpn : 0, n ? x[0].rqpn : 0, n ? x[0].bytes : 0,
	      n ? x[0].wqe : 0);
	check(cq_drain(c, 8) == 0 && (uint16_t)rc_ci == rc_before,
	      "send: nothing on the target's own CQ");
	deliver(&pk);
	n = cq_drain(c, 8);
	check(n == 1 && c[0].qpn == XI && c[0].send && c[0].opcode == W_SEND,
	      "send: the initiator's SEND completes on its CQ");

	/* a message of three packets: each has its XRCETH */
	ok = true;
	xi_send(600, SRQ_OK);
	for (i = 0; i < 3; i++)
		ok &= wire_take(1, &f[i]) &&
		      is_xreq(&f[i], i == 0 ? B_SEND_FIRST : i == 1 ?
			      B_SEND_MIDDLE : B_SEND_LAST, X_PSN + 1 + i, SRQ_OK);
	check(ok, "send: 600 bytes go as XRC FIRST, MIDDLE, LAST, each with the XRCETH");
	for (i = 0; i < 3; i++)
		fwd(&f[i]);
	deliver_all();
	n = xcq_drain(x, 8);
	check(n == 1 && x[0].bytes == 600 && x[0].wqe == 1 &&
	      !memcmp(mr(0x700), mr(0), 600) && cq_drain(c, 8) == 1,
	      "send: the receive of 600 bytes completes on SRQ WQE %u",
	      n ? x[0].wqe : 0);

	/* no WQE on the SRQ: RNR NAK, then the resend once one is posted */
	xi_send(50, SRQ_OK);
	ok = wire_take(1, &pk) && (deliver(&pk), wire_take(2, &pk));
	check(ok && pk.p.opcode == XOP(B_ACK) &&
	      (pk.p.payload[0] & 0xe0) == A_RNR,
	      "send: an empty SRQ answers with an RNR NAK (AETH 0x%02x)",
	      pk.p.payload_len ? pk.p.payload[0] : 0);
	deliver(&pk);
	srq_post(SRQ_OK, 2);
	fake_now += 1000;
	cx3_poll(&dev);
	deliver_all();
	check(xcq_drain(x, 8) == 1 && cq_drain(c, 8) == 1 && x[0].wqe == 2,
	      "send: after the RNR wait the resend takes the new WQE");
}

static void test_rdma(void)
{
	struct seen c[8];
	struct xcqe x[8];
	struct wire_pkt f[4] = { 0 };
	uint8_t *w;
	unsigned int posted = srq_posted[0];
	bool ok;

	check(xrc_reset(), "rdma: XRC QPs up");
	/* WRITE of 300 bytes: FIRST and LAST, the XRCETH before the RETH */
	fill(0, 300, 11);
	memset(mr(0x1000), 0, 0x400);
	w = xi_wqe(W_WRITE, 3, RC_VA + 0x1000, SRQ_OK);
	dseg(w, 32, 300, RC_VA);
	xi_post(w);
	check(wire_take(1, &f[0]) && is_xreq(&f[0], B_WRITE_FIRST, X_PSN, SRQ_OK) &&
	      cx3_get64(f[0].p.payload, 4) == RC_VA + 0x1000 &&
	      cx3_get32(f[0].p.payload, 12) == RC_KEY &&
	      cx3_get32(f[0].p.payload, 16) == 300 &&
	      wire_take(1, &f[1]) && is_xreq(&f[1], B_WRITE_LAST, X_PSN + 1, SRQ_OK),
	      "rdma: XRC WRITE FIRST (XRCETH, RETH) and LAST (XRCETH)");
	fwd(&f[0]);
	fwd(&f[1]);
	deliver_all();
	check(!memcmp(mr(0x1000), mr(0), 300) && cq_drain(c, 8) == 1 &&
	      c[0].syndrome == 0 && c[0].opcode == W_WRITE,
	      "rdma: the WRITE lands through the SRQ's PD and completes (syndrome 0x%02x)",
	      c[0].syndrome);
	check(xcq_drain(x, 8) == 0 && dev.srqs[SRQ_OK]->consumed == posted,
	      "rdma: a WRITE takes no receive WQE");

	/* READ of 300 bytes: two XRC READ responses */
	fill(0x1400, 300, 29);
	memset(mr(0x1800), 0, 0x200);
	w = xi_wqe(W_READ, 3, RC_VA + 0x1400, SRQ_OK);
	dseg(w, 32, 300, RC_VA + 0x1800);
	xi_post(w);
	check(wire_take(1, &f[0]) && is_xreq(&f[0], B_READ_REQ, X_PSN + 2, SRQ_OK) &&
	      cx3_get32(f[0].p.payload, 16) == 300,
	      "rdma: XRC READ request with XRCETH, RETH");
	fwd(&f[0]);
	ok = wire_take(2, &f[1]) && wire_take(2, &f[2]);
	check(ok && f[1].p.opcode == XOP(B_READ_FIRST) &&
	      f[2].p.opcode == XOP(B_READ_FIRST + 2),
	      "rdma: XRC READ response FIRST and LAST (0x%02x 0x%02x)",
	      f[1].p.opcode, f[2].p.opcode);
	fwd(&f[1]);
	fwd(&f[2]);
	check(!memcmp(mr(0x1800), mr(0x1400), 300) && cq_drain(c, 8) == 1 &&
	      c[0].opcode == W_READ && c[0].bytes == 300,
	      "rdma: the READ completes with the data");

	/* atomics */
	cx3_put64(mr(0x1c00), 0, 40);
	w = xi_wqe(W_FETCH_ADD, 4, RC_VA + 0x1c00, SRQ_OK);
	cx3_put64(w, 32, 2);
	dseg(w, 48, 8, RC_VA + 0x1c08);
	xi_post(w);
	check(wire_take(1, &f[0]) && is_xreq(&f[0], B_FETCH_ADD, X_PSN + 4, SRQ_OK) &&
	      f[0].p.payload_len == 4 + IB_ATOMIC_ETH_BYTES,
	      "rdma: XRC FETCH_ADD with XRCETH, AtomicETH");
	fwd(&f[0]);
	check(wire_take(2, &f[1]) && f[1].p.opcode == XOP(B_ATOMIC_ACK) &&
	      (fwd(&f[1]), cq_drain(c, 8) == 1) && c[0].syndrome == 0 &&
	      cx3_get64(mr(0x1c00), 0) == 42 && cx3_get64(mr(0x1c08), 0) == 40,
	      "rdma: fetch-and-add 40 + 2 through the SRQ's PD, XRC atomic ACK");
	w = xi_wqe(W_CMP_SWAP, 4, RC_VA + 0x1c00, SRQ_OK);
	cx3_put64(w, 32, 7);
	cx3_put64(w, 40, 42);
	dseg(w, 48, 8, RC_VA + 0x1c08);
	xi_post(w);
	check(wire_take(1, &f[0]) && is_xreq(&f[0], B_CMP_SWAP, X_PSN + 5, SRQ_OK),
	      "rdma: XRC CMP_SWAP with XRCETH");
	fwd(&f[0]);
	deliver_all();
	check(cq_drain(c, 8) == 1 && c[0].syndrome == 0 &&
	      cx3_get64(mr(0x1c00), 0) == 7 && cx3_get64(mr(0x1c08), 0) == 42,
	      "rdma: compare-and-swap 42 -> 7");
}

/* A request naming an SRQ the target may not use: remote access NAK */
static void wrong_srq(uint32_t srqn, const char *what)
{
	struct seen c[8];
	struct xcqe x[8];
	struct cx3_qp *t;
	unsigned int n;
	bool got;

	check(xrc_reset(), "%s: XRC QPs up", what);
	srq_post(SRQ_OK, 0);
	if (srqn != 9)
		srq_post(srqn, 0);
	xi_send(64, srqn);
	check(wire_take(1, &pk) && is_xreq(&pk, B_SEND_ONLY, X_PSN, srqn),
	      "%s: the SEND names SRQ %u", what, srqn);
	deliver(&pk);
	got = wire_take(2, &pk);
	check(got && is_xack(&pk, A_NAK_ACCESS, X_PSN),
	      "%s: NAK remote access error (AETH 0x%02x)", what,
	      pk.p.payload_len ? pk.p.payload[0] : 0);
	t = cx3_qp_get(&dev, XT);
	check(t && t->state == CX3_QPS_ERR && xcq_drain(x, 8) == 0,
	      "%s: the target goes to ERR, no receive completes", what);
	deliver(&pk);
	n = cq_drain(c, 8);
	check(n >= 1 && c[0].qpn == XI && c[0].syndrome == SYN_REMOTE_ACCESS,
	      "%s: the SEND fails with remote access error (0x%02x)", what,
	      n ? c[0].syndrome : 0);
}

/*
 * The transport must match the QP: an XRC SEND to an RC QP, an RC SEND to
 * the XRC target are dropped, unanswered.
 */
static void test_transport(void)
{
	struct seen c[8];
	struct xcqe x[8];
	struct cx3_qp *a;
	unsigned int n;

	xi_remote = QPB;
	check(xrc_reset() && pair_reset(), "transport: XRC initiator aimed at RC QP 0x%x", QPB);
	rq_post();
	xi_send(64, SRQ_OK);
	check(wire_take(1, &pk) && pk.p.opcode == XOP(B_SEND_ONLY) &&
	      pk.p.dqpn == QPB, "transport: an XRC SEND to QP 0x%x", QPB);
	fwd(&pk);
	n = cq_drain(c, 8);
	check(nwire == 0 && n == 0,
	      "transport: the RC QP drops it (%u packets, %u completions)",
	      nwire, n);
	xi_remote = XT;
	check(xrc_reset() && pair_reset(), "transport: XRC QPs up again");

	/* A aimed at the target (its latched remote QPN) */
	srq_post(SRQ_OK, 0);
	a = cx3_qp_get(&dev, QPA);
	if (a)
		cx3_put32(a->ctx, 0x14, XT);
	send_wqe(64);
	check(wire_take(1, &pk) && pk.p.opcode == B_SEND_ONLY && pk.p.dqpn == XT,
	      "transport: an RC SEND to the XRC target 0x%x", XT);
	fwd(&pk);
	n = xcq_drain(x, 8);
	check(nwire == 0 && n == 0 && cx3_qp_get(&dev, XT)->state == CX3_QPS_RTS,
	      "transport: the XRC target drops it (%u packets, %u receives)",
	      nwire, n);
	check(pair_reset(), "transport: RC pair reset");
	cq_drain(c, 8);

	/* an XRC request to an initiator: only targets take them */
	for (n = 0; n < 8; n++)
		gp(XI2_BUF)[n * 64] = 0x80;
	check(xrc_qp_cmd(XI2, 0x019, 1) == 0 && xrc_qp_cmd(XI2, 0x01a, 2) == 0 &&
	      xrc_qp_cmd(XI2, 0x01b, 3) == 0,
	      "transport: a second initiator 0x%x on port 2, aimed at 0x%x",
	      XI2, XI);
	memset(gp(XI2_BUF), 0, 64);
	gp(XI2_BUF)[3] = W_SEND;
	gp(XI2_BUF)[7] = 2;
	cx3_put32(gp(XI2_BUF), 8, SRQ_OK << 8 | 3u << 2);
	dseg(gp(XI2_BUF), 16, 64, RC_VA);
	cx3_qp_send_doorbell(&dev, XI2);
	check(wire_take(2, &pk) && pk.p.opcode == XOP(B_SEND_ONLY) &&
	      pk.p.dqpn == XI, "transport: an XRC SEND to the initiator 0x%x", XI);
	fwd(&pk);
	check(nwire == 0 && xcq_drain(x, 8) == 0 && cq_drain(c, 8) == 0 &&
	      cx3_qp_get(&dev, XI)->state == CX3_QPS_RTS,
	      "transport: the initiator drops it (%u packets)", nwire);
	check(xrc_qp_cmd(XI2, 0x021, 0) == 0, "transport: 0x%x to RESET", XI2);
	nwire = 0;
}

/* A lost packet of an XRC message: sequence NAK, go-back-N, one receive */
static void test_loss(void)
{
	struct seen c[8];
	struct xcqe x[8];
	struct wire_pkt f[3] = { 0 };
	unsigned int i;
	bool ok = true;

	check(xrc_reset(), "loss: XRC QPs up");
	fill(0, 700, 41);
	memset(mr(0x400), 0, 0x400);
	srq_post(SRQ_OK, 0);
	xi_send(700, SRQ_OK);
	for (i = 0; i < 3; i++)
		ok &= wire_take(1, &f[i]);
	check(ok, "loss: three packets sent");
	fwd(&f[0]);
	fwd(&f[2]);			/* the middle one is lost */
	ok = wire_take(2, &pk);
	check(ok && is_xack(&pk, A_NAK_SEQ, X_PSN + 1),
	      "loss: PSN sequence NAK from PSN %u (AETH 0x%02x)", X_PSN + 1,
	      pk.p.payload_len ? pk.p.payload[0] : 0);
	deliver(&pk);
	check(wire_take(1, &f[1]) && is_xreq(&f[1], B_SEND_MIDDLE, X_PSN + 1, SRQ_OK) &&
	      wire_take(1, &f[2]) && is_xreq(&f[2], B_SEND_LAST, X_PSN + 2, SRQ_OK),
	      "loss: the initiator resends MIDDLE and LAST with the XRCETH");
	fwd(&f[1]);
	fwd(&f[2]);
	deliver_all();
	check(xcq_drain(x, 8) == 1 && x[0].bytes == 700 &&
	      !memcmp(mr(0x400), mr(0), 700) && cq_drain(c, 8) == 1 &&
	      c[0].syndrome == 0,
	      "loss: one receive of 700 bytes, the SEND completes");
}

int main(void)
{
	uint8_t *m;

	if (!card_start())
		return 2;
	check(rc_setup(), "RC pair's card, CQ and MR");
	test_caps();

	mtt_set(9, XCQ_BUF);
	mtt_set(10, XI_BUF);
	mtt_set(11, XT_BUF);
	mtt_set(12, SRQ_BUF(SRQ_OK));
	mtt_set(13, SRQ_BUF(SRQ_OTHER));
	mtt_set(14, SRQ_BUF(SRQ_PLAIN));
	mtt_set(15, XI2_BUF);
	m = gp(MBOX);
	memset(gp(XCQ_BUF), 0, 4096);
	memset(m, 0, 4096);
	cx3_put32(m, 0x0c, 6u << 24);			/* 64 CQEs */
	cx3_put32(m, 0x1c, 9 * 8);
	cx3_put64(m, 0x38, XCQ_DB);
	check(cmd(MBOX, XCQN, 0x016, 0) == 0, "the XRC SRQ's CQ");
	check(srq_create(SRQ_OK, XRCD, XCQN) == 0 &&
	      srq_create(SRQ_OTHER, XRCD + 1, XCQN) == 0 &&
	      srq_create(SRQ_PLAIN, 0, 0) == 0,
	      "SRQs: XRC of XRCD %u and %u, a plain one", XRCD, XRCD + 1);
	check(srq_create(6, XRCD, 40) != 0,
	      "an XRC SRQ whose CQ does not exist is refused");
	check(xrc_up(), "XRC initiator 0x%x and target 0x%x to RTS", XI, XT);

	test_qpn_bit23();
	test_send();
	test_rdma();
	wrong_srq(SRQ_OTHER, "SRQ of another XRCD");
	wrong_srq(SRQ_PLAIN, "plain SRQ");
	wrong_srq(9, "no such SRQ");
	test_transport();
	test_loss();
	return card_end("test_xrc");
}

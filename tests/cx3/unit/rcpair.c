// SPDX-License-Identifier: GPL-2.0
/* The unit tests' card bring-up and RC pair: see rcpair.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcpair.h"
#include "cx3_qp.h"

struct cx3_dev dev;

int cmd(uint64_t in, uint32_t in_mod, uint16_t op, uint8_t op_mod)
{
	uint64_t out = MBOX + 0x1000;

	return post(&dev, in, in_mod, &out, op, op_mod);
}

void mtt_set(unsigned int idx, uint64_t pa)
{
	cx3_put64(gp(ICM_PA + MTT_VA), idx * 8, pa | 1);
}

void bringup(void)
{
	int i, ok = 1;
	uint64_t out = 0;

	memset(gp(MBOX), 0, 4096);
	cx3_put64(gp(MBOX), 8, FA_PAGES | 6);
	ok &= cmd(MBOX, 1, 0xfff, 0) == 0 && cmd(0, 0, 0xff6, 0) == 0;
	ok &= post(&dev, 4ull << 20, 0, &out, 0xffd, 0) == 0;
	memset(gp(MBOX), 0, 4096);
	cx3_put64(gp(MBOX), 8, AUX_PAGE);
	ok &= cmd(MBOX, 1, 0xffc, 0) == 0;
	memset(gp(MBOX), 0, 4096);
	for (i = 0; i < 16; i++) {
		cx3_put64(gp(MBOX), i * 16, (uint64_t)i << 18);
		cx3_put64(gp(MBOX), i * 16 + 8, (ICM_PA + ((uint64_t)i << 18)) | 6);
	}
	ok &= cmd(MBOX, 16, 0xffa, 0) == 0;
	memset(gp(MBOX), 0, 4096);
	gp(MBOX)[0] = 2;
	cx3_put64(gp(MBOX), 0x30, 0x000000 | 6);
	cx3_put64(gp(MBOX), 0x48, 0x010000 | 4);
	cx3_put64(gp(MBOX), 0x50, 0x020000 | 6);
	cx3_put64(gp(MBOX), 0x80, 0x030000 | 3);
	cx3_put64(gp(MBOX), 0xc0, 0x040000);
	gp(MBOX)[0xd3] = 10;
	gp(MBOX)[0xd7] = 4;
	gp(MBOX)[0xdb] = 5;
	cx3_put64(gp(MBOX), 0xf0, 0x050000);
	gp(MBOX)[0xfb] = 8;		/* 256 MPTs */
	cx3_put64(gp(MBOX), 0x100, MTT_VA);
	ok &= cmd(MBOX, 0, 0x007, 0) == 0;
	/* EQ 0: 64 entries on MTT entry 0, vector 0, armed */
	mtt_set(0, EQ_BUF);
	memset(gp(MBOX), 0, 4096);
	gp(MBOX)[0x0c] = 6;
	ok &= cmd(MBOX, 0, 0x013, 0) == 0;
	cx3_bar2_write(&dev, 0x800, __builtin_bswap32(1u << 31), 4);
	check(ok, "bring-up: firmware, ICM, INIT_HCA, EQ 0");
}

struct wire_pkt wire[WIRE_MAX];
unsigned int nwire;
unsigned long wire_sent;		/* every packet, kept or not */

void wire_send(void *o, int port, const void *msg, size_t len)
{
	const uint8_t *m = msg;

	(void)o;
	if (len >= 2 && m[0] == CX3_WIRE_MSG_PKT)
		wire_sent++;
	if (len < 2 || m[0] != CX3_WIRE_MSG_PKT || nwire == WIRE_MAX ||
	    len - 1 > IB_MAX_PKT)
		return;
	wire[nwire].port = port;
	wire[nwire].len = len - 1;
	memcpy(wire[nwire].b, m + 1, len - 1);
	nwire++;
}

/* Take the oldest packet that port sent; false if there is none. */
bool wire_take(int port, struct wire_pkt *out)
{
	unsigned int i;

	for (i = 0; i < nwire; i++) {
		if (wire[i].port != port)
			continue;
		*out = wire[i];
		memmove(&wire[i], &wire[i + 1],
			(nwire - i - 1) * sizeof(wire[0]));
		nwire--;
		return cx3_pkt_parse(&out->p, out->b, out->len) == 0;
	}
	return false;
}

/* Put a packet on the far end of the cable: it arrives at the other port. */
void deliver(const struct wire_pkt *w)
{
	cx3_port_wire_packet(&dev, w->port == 1 ? 2 : 1, w->b, w->len);
}

bool is(const struct wire_pkt *w, uint8_t opcode, uint32_t psn)
{
	return w->p.opcode == opcode && w->p.psn == PSN(psn);
}

bool is_ack(const struct wire_pkt *w, uint8_t aeth, uint32_t psn)
{
	return is(w, B_ACK, psn) && w->p.payload_len >= 4 &&
	       w->p.payload[0] == aeth;
}


unsigned int rc_ci;

/* Take every completion on the RC CQ (the first max into c); how many. */
unsigned int cq_drain(struct seen *c, unsigned int max)
{
	unsigned int n = 0;
	uint8_t *e;

	for (;;) {
		e = gp(RC_CQ_BUF) + (rc_ci & 63) * 32;
		if (!!(e[31] & 0x80) != !!(rc_ci & 64))
			return n;
		if (n < max) {
			c[n].qpn = cx3_get32(e, 0) & 0xffffff;
			c[n].send = e[31] & 0x40;
			c[n].opcode = e[31] & 0x1f;
			c[n].bytes = cx3_get32(e, 0x14);
			c[n].syndrome = e[0x1b];
			c[n].wqe = cx3_get16(e, 0x18);
		}
		n++;
		rc_ci++;
		cx3_put32(gp(RC_CQ_DB), 0, rc_ci & 0xffffff);
	}
}

uint8_t *mr(unsigned int off)
{
	return gp(RC_MR_PAGE) + off;
}

int rc_qp_cmd(uint32_t qpn, uint16_t op, unsigned int state)
{
	bool a = qpn == QPA;
	uint8_t *c = gp(MBOX) + 8;

	memset(gp(MBOX), 0, 4096);
	cx3_put32(c, 0x00, state << 28);		/* RC */
	cx3_put32(c, 0x04, PD);
	c[0x08] = 1 << 5;				/* path MTU 256 */
	c[0x09] = 3 << 3 | 0;				/* RQ: 8 x 16 bytes */
	c[0x0a] = 3 << 3 | 2;				/* SQ: 8 x 64 bytes */
	cx3_put32(c, 0x14, a ? QPB : QPA);
	cx3_put16(c, 0x18 + 0x06, a ? 2 : 1);		/* DLID */
	c[0x18 + 0x08] = ACK_TIMEOUT << 3;
	c[0x18 + 0x20] = a ? 0x00 : 0x40;		/* port 1 or 2 */
	/* SRA max 4, the retry counts */
	cx3_put32(c, 0x70, 2u << 21 | rc_retry << 16 | rc_rnr_retry << 13);
	cx3_put32(c, 0x78, a ? PSN_A : PSN_B);		/* SQ PSN */
	cx3_put32(c, 0x7c, RC_CQN);
	cx3_put32(c, 0x90, 7u << 13);			/* remote R, W, atomic */
	cx3_put32(c, 0x94, 1u << 24 | (a ? PSN_B : PSN_A));	/* RQ PSN */
	cx3_put32(c, 0x9c, RC_CQN);
	cx3_put64(c, 0xa0, a ? QPA_DB : QPB_DB);
	cx3_put32(c, 0xcc, (a ? 5 : 6) * 8);		/* MTT entry 5 or 6 */
	return cmd(MBOX, qpn, op, 0);
}

unsigned int a_sq, b_rq;
unsigned int rc_retry = 3, rc_rnr_retry = 7;

void dseg(uint8_t *w, size_t off, uint32_t len, uint64_t va)
{
	cx3_put32(w, off, len);
	cx3_put32(w, off + 4, RC_KEY);
	cx3_put64(w, off + 8, va);
}

/* The next send WQE of A, not yet posted; size16 in 16-byte units. */
uint8_t *sq_wqe(uint8_t opcode, unsigned int size16, uint64_t raddr)
{
	uint8_t *w = gp(QPA_BUF) + (a_sq & 7) * 64;

	memset(w, 0, 64);
	w[0] = (a_sq & 8) ? 0x00 : 0x80;		/* owner: not yet */
	w[3] = opcode;
	w[7] = (uint8_t)size16;
	cx3_put32(w, 8, 3u << 2);			/* signaled */
	cx3_put64(w, 16, raddr);		/* remote address segment */
	cx3_put32(w, 24, RC_KEY);
	return w;
}

void sq_post(uint8_t *w)
{
	w[0] = (a_sq & 8) ? 0x80 : 0x00;
	a_sq++;
	cx3_qp_send_doorbell(&dev, QPA);
}

/* A SEND of len bytes from the start of the MR */
void send_wqe(uint32_t len)
{
	uint8_t *w = sq_wqe(W_SEND, 2, 0);

	dseg(w, 16, len, RC_VA);
	sq_post(w);
}

/* A receive on B, into one of four slots of the MR (from 0x400) */
void rq_post(void)
{
	uint8_t *r = gp(QPB_BUF) + 512 + (b_rq & 7) * 16;

	dseg(r, 0, 0x280, RC_VA + 0x400 + (b_rq & 3) * 0x280);
	b_rq++;
	cx3_put32(gp(QPB_DB), 0, b_rq & 0xffff);
}

/* Both QPs from RESET to RTS, with empty queues. */
static bool qps_up(void)
{
	bool ok = true;
	int i;

	/* the driver stamps the SQ owner bits before RST2INIT */
	for (i = 0; i < 8; i++) {
		gp(QPA_BUF)[i * 64] = 0x80;
		gp(QPB_BUF)[i * 64] = 0x80;
	}
	a_sq = 0;
	b_rq = 0;
	cx3_put32(gp(QPA_DB), 0, 0);
	cx3_put32(gp(QPB_DB), 0, 0);
	for (i = 0; i < 2; i++) {
		uint32_t qpn = i ? QPB : QPA;

		ok &= rc_qp_cmd(qpn, 0x019, 1) == 0 &&
		      rc_qp_cmd(qpn, 0x01a, 2) == 0 &&
		      rc_qp_cmd(qpn, 0x01b, 3) == 0;
	}
	return ok;
}

bool rc_setup(void)
{
	uint8_t *m = gp(MBOX);
	bool ok = true;
	int i;

	dev.host.wire_send = wire_send;
	for (i = 0; i < 2; i++) {
		dev.port[i].cable = CX3_CABLE_WIRE;
		dev.port[i].phys_state = CX3_PHYS_LINKUP;
		dev.port[i].state = CX3_PORT_ACTIVE;
		dev.port[i].lid = (uint16_t)(i + 1);
	}
	mtt_set(4, RC_CQ_BUF);
	mtt_set(5, QPA_BUF);
	mtt_set(6, QPB_BUF);
	mtt_set(7, RC_MR_PAGE);
	mtt_set(8, RC_MR_PAGE + 0x1000);

	memset(gp(RC_CQ_BUF), 0, 4096);
	memset(m, 0, 4096);
	cx3_put32(m, 0x0c, 6u << 24);			/* 64 CQEs */
	cx3_put32(m, 0x1c, 4 * 8);
	cx3_put64(m, 0x38, RC_CQ_DB);
	cx3_put32(gp(RC_CQ_DB), 0, 0);
	ok &= cmd(MBOX, RC_CQN, 0x016, 0) == 0;

	memset(m, 0, 4096);
	cx3_put32(m, 0x00, 1u << 8 | 0x1fu << 10);	/* region, every right */
	cx3_put32(m, 0x08, (uint32_t)RC_KEY << 24 | RC_KEY >> 8);
	cx3_put32(m, 0x0c, PD);
	cx3_put64(m, 0x10, RC_VA);
	cx3_put64(m, 0x18, 8192);
	cx3_put64(m, 0x2c, 7 * 8);
	cx3_put32(m, 0x38, 12);
	ok &= cmd(MBOX, RC_MPT, 0x00d, 0) == 0;

	return ok && qps_up();
}

/* Take the n packets of a message from port 1: opcodes op0.., PSNs psn.. */
bool take_msg(struct wire_pkt *f, unsigned int n, uint8_t op0,
		     uint32_t psn)
{
	unsigned int i;
	bool ok = true;

	for (i = 0; i < n; i++)
		ok &= wire_take(1, &f[i]) && is(&f[i], (uint8_t)(op0 + i), psn + i);
	return ok;
}

/* Both QPs through RESET and back to RTS: empty queues, first PSNs. */
bool pair_reset(void)
{
	struct seen c[64];
	bool ok;

	nwire = 0;
	ok = rc_qp_cmd(QPA, 0x021, 0) == 0 && rc_qp_cmd(QPB, 0x021, 0) == 0 &&
	     qps_up();
	cq_drain(c, 64);
	return ok;
}

/* The card of a test: fake memory, the card reset and brought up. */
bool card_start(void)
{
	enum cx3_cable cable[CX3_NUM_PORTS] = { CX3_CABLE_NONE, CX3_CABLE_NONE };

	mem = calloc(1, MEM_SIZE);
	if (!mem)
		return false;
	cx3_init(&dev, &fake_host, 0x0002c90300000200ull, cable);
	wr(&dev, CX3_RESET, 1);
	bringup();
	return true;
}

/* The card torn down, the summary line; the exit status. */
int card_end(const char *name)
{
	cx3_fini(&dev);
	free(mem);
	printf("%s: %d checks, %d failed\n", name, checks, failures);
	return failures ? 1 : 0;
}

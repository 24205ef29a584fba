// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the ConnectX-3 model's check of the send queue's prefetch
 * contract (cx3_prefetch.c), on the card of the RC pair (rcpair.c) with a
 * UC QP of 32 WQEs of 128 bytes, whose "driver" stamps as mlx4_ib does
 * (all slots at RESET->INIT, after each post the slot 17 ahead: 2 KB and
 * one WQE): SENDs around the ring pass; a line without the stamp in the
 * window is reported once ("prefetch contract"), named, and the WQE still
 * executes; after RESET the QP is judged afresh; the slot the driver
 * stamps right after the doorbell is judged from the next doorbell on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcpair.h"
#include "cx3_qp.h"

#define PQ		16			/* the test's UC QP, port 1 */
#define PQ_BUF		(MEM_BASE + 0x418000)
#define PQ_DB		(MEM_BASE + 0x403700)
#define PQ_MTT		16
#define PQ_SLOTS	32
#define PQ_STRIDE	128
#define PQ_SPARE	17			/* 2 KB of slots, and one */
#define STAMP		0xffffffffu

static unsigned int pq_sq;

static int pq_cmd(uint16_t op, unsigned int state)
{
	uint8_t *c = gp(MBOX) + 8;

	memset(gp(MBOX), 0, 4096);
	cx3_put32(c, 0x00, state << 28 | 1u << 16);	/* UC */
	cx3_put32(c, 0x04, PD);
	c[0x08] = 1 << 5;				/* path MTU 256 */
	c[0x09] = 0;					/* no RQ */
	c[0x0a] = 5 << 3 | 3;				/* SQ: 32 x 128 bytes */
	cx3_put32(c, 0x14, QPB);
	cx3_put16(c, 0x18 + 0x06, 2);			/* DLID */
	cx3_put32(c, 0x78, 0x10);			/* SQ PSN */
	cx3_put32(c, 0x7c, RC_CQN);
	cx3_put32(c, 0x9c, RC_CQN);
	cx3_put64(c, 0xa0, PQ_DB);
	cx3_put32(c, 0xcc, PQ_MTT * 8);
	return cmd(MBOX, PQ, op, 0);
}

static uint8_t *slot(unsigned int i)
{
	return gp(PQ_BUF) + (i % PQ_SLOTS) * PQ_STRIDE;
}

/* RESET -> RTS with every slot hardware-owned and its second line stamped */
static bool pq_up(void)
{
	unsigned int i;

	for (i = 0; i < PQ_SLOTS; i++) {
		memset(slot(i), 0, PQ_STRIDE);
		slot(i)[0] = 0x80;
		cx3_put32(slot(i), 64, STAMP);
	}
	pq_sq = 0;
	return pq_cmd(0x019, 1) == 0 && pq_cmd(0x01a, 2) == 0 && pq_cmd(0x01b, 3) == 0;
}

/*
 * A SEND of 16 bytes, 80 bytes long (ctrl, four data segments, the last
 * one in the second line), posted and rung.  As the drivers do, the slot
 * that enters the window is stamped after the doorbell - unless stamp is
 * false.
 */
static void pq_send(bool stamp)
{
	uint8_t *w = slot(pq_sq);
	unsigned int i;

	memset(w + 4, 0, PQ_STRIDE - 4);
	w[3] = W_SEND;
	w[7] = 5;
	cx3_put32(w, 8, 3u << 2);			/* signaled */
	for (i = 0; i < 4; i++)
		dseg(w, 16 + 16 * i, i ? 0 : 16, RC_VA);
	w[0] = (pq_sq & PQ_SLOTS) ? 0x80 : 0x00;	/* posted */
	pq_sq++;
	cx3_qp_send_doorbell(&dev, PQ);
	if (stamp)
		cx3_put32(slot(pq_sq + PQ_SPARE - 1), 64, STAMP);
}

static bool warned(void)
{
	struct cx3_qp *qp = cx3_qp_get(&dev, PQ);

	return qp && qp->prefetch_warned;
}

static unsigned int sends_done(void)
{
	struct seen c[32];
	unsigned int i, n = cq_drain(c, 32), ok = 0;

	for (i = 0; i < n && i < 32; i++)
		ok += c[i].qpn == PQ && c[i].send && c[i].opcode == W_SEND;
	return ok;
}

static void test_stamped(void)
{
	unsigned int i;

	check(pq_up(), "UC QP of 32 x 128 bytes to RTS");
	for (i = 0; i < 40; i++) {
		pq_send(true);
		if (i % 16 == 15)
			check(sends_done() == 16, "16 SENDs completed");
	}
	check(!warned() && !strstr(last_log, "prefetch contract"),
	      "40 SENDs around the ring, free slots stamped: no report");
	check(sends_done() == 8, "the other 8 SENDs completed");
}

static void test_unstamped(void)
{
	unsigned int n;

	/* the slot 3 after the next WQE keeps a stale line */
	cx3_put32(slot(pq_sq + 4), 64, 0x00000010);
	pq_send(true);
	check(warned(), "a free slot in the window without its stamp: reported");
	check(strstr(last_log, "prefetch contract") &&
	      strstr(last_log, "3 after the last posted") &&
	      strstr(last_log, "0x00000010 at +64"),
	      "the report names the QP's slot, line and value (%s)", last_log);
	n = logs;
	pq_send(true);
	check(logs == n, "reported once per QP");
	check(sends_done() == 2, "the WQEs still executed");
}

static void test_reset(void)
{
	check(pq_cmd(0x021, 0) == 0, "QP to RESET");
	check(pq_up() && !warned(), "after RESET the QP is judged afresh");
	/* the slot the driver stamps right after the doorbell, stale */
	cx3_put32(slot(PQ_SPARE), 64, 0x00000020);
	pq_send(false);
	check(!warned(), "the slot stamped after the doorbell is not judged at it");
	pq_send(false);
	check(warned(), "left unstamped past the next doorbell: reported");
	check(sends_done() == 2, "both SENDs completed");
}

int main(void)
{
	if (!card_start())
		return 2;
	check(rc_setup(), "RC: CQ, MR, QPs A and B connected");
	mtt_set(PQ_MTT, PQ_BUF);
	test_stamped();
	test_unstamped();
	test_reset();
	return card_end("test_prefetch");
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the ConnectX-3 model's BlueFlame (cx3_bf.c): QUERY_DEV_CAP
 * offers it; a send WQE written into a BlueFlame register of BAR2 is
 * executed from those bytes, with no doorbell and without the card reading
 * the queue (the queue's slot holds garbage); either half of a register,
 * any write size; WQEs posted in the queue before it go first; what a card
 * cannot take (writes out of order, an unknown QP, a WQE counter outside
 * the queue, a WQE larger than a half) is dropped, logged, and nothing is
 * sent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcpair.h"
#include "cx3_qp.h"

#define BF_PAGE		3	/* the UAR index whose BlueFlame page we use */

static uint8_t bfw[CX3_BF_HALF];

/* A's next SEND of len bytes from the MR's start, built aside (not queued) */
static size_t bf_send(uint32_t len, unsigned int size16)
{
	memset(bfw, 0, sizeof(bfw));
	/* owner_opcode: the SQ counter in bits 23:8, then the opcode */
	cx3_put32(bfw, 0, (a_sq & 0xffff) << 8 | W_SEND);
	cx3_put32(bfw, 4, QPA << 8 | size16);
	cx3_put32(bfw, 8, 3u << 2);		/* signaled */
	dseg(bfw, 16, len, RC_VA);
	return size16 * 16;
}

/* Leave garbage in A's queue slot for the WQE: the card must not read it. */
static void spoil_slot(void)
{
	memset(gp(QPA_BUF) + (a_sq & 7) * 64, 0xa5, 64);
}

/* bfw's bytes at..at+n as the value of an n-byte MMIO write (little-endian) */
static uint64_t le(size_t at, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)bfw[at + i] << (8 * i);
	return v;
}

/* Write n bytes of bfw into register reg, half h, chunk bytes at a time. */
static void bf_write(unsigned int reg, unsigned int h, size_t n,
		     unsigned int chunk)
{
	uint32_t base = CX3_UAR_AREA + BF_PAGE * CX3_UAR_PAGE +
			reg * CX3_BF_REG + h * CX3_BF_HALF;
	size_t at;

	n = (n + 63) & ~(size_t)63;
	for (at = 0; at < n; at += chunk)
		cx3_bar2_write(&dev, base + at, le(at, chunk), chunk);
}

/* A's SEND arrives at B, is acknowledged, and A completes WQE wqe. */
static bool sent_and_done(uint32_t len, uint16_t wqe)
{
	struct wire_pkt p, a;
	struct seen c[4];
	unsigned int n;

	if (!wire_take(1, &p) || p.p.opcode != B_SEND_ONLY ||
	    p.p.payload_len != len || memcmp(p.p.payload, mr(0), len))
		return false;
	rq_post();
	deliver(&p);
	if (!wire_take(2, &a) || !is_ack(&a, A_ACK, p.p.psn))
		return false;
	deliver(&a);
	n = cq_drain(c, 4);
	/* B's receive, then A's send */
	return n == 2 && !c[0].send && c[0].bytes == len && c[1].send &&
	       c[1].syndrome == 0 && c[1].wqe == wqe && c[1].opcode == W_SEND;
}

static void test_caps(void)
{
	uint8_t *o = gp(MBOX + 0x1000);

	check(cmd(0, 0, 0x003, 0) == 0 && (o[0x4c] & 0x80) &&
	      (1u << (o[0x4d] & 0x1f)) == CX3_BF_REG &&
	      (1u << (o[0x4e] & 0x3f)) * CX3_BF_REG == CX3_UAR_PAGE,
	      "QUERY_DEV_CAP offers BlueFlame: 512-byte registers, 8 a page");
	check((1u << ((o[0x49] & 0x3f) + 20)) == CX3_UAR_AREA &&
	      CX3_BAR2_SIZE == 2 * CX3_UAR_AREA,
	      "the UAR area is BAR2's first half: the BlueFlame pages follow");
}

static void test_post(void)
{
	uint64_t before = dev.bf_wqes;
	uint16_t wqe;
	size_t n;

	memset(mr(0), 0x3c, 100);
	wqe = a_sq & 0xffff;
	n = bf_send(100, 2);
	spoil_slot();
	nwire = 0;
	bf_write(0, 0, n, 8);
	a_sq++;
	check(dev.bf_wqes == before + 1 && sent_and_done(100, wqe),
	      "a SEND written to a BlueFlame register (8-byte writes) leaves and completes; the queue is not read");

	wqe = a_sq & 0xffff;
	n = bf_send(60, 2);
	spoil_slot();
	bf_write(0, 1, n, 4);
	a_sq++;
	check(sent_and_done(60, wqe),
	      "the register's other half, written 4 bytes at a time, works too");

	wqe = a_sq & 0xffff;
	n = bf_send(8, 2);
	spoil_slot();
	bf_write(7, 1, n, 8);
	a_sq++;
	check(sent_and_done(8, wqe), "the page's last register works too");
}

/* A WQE queued without a doorbell, then one through BlueFlame: in order. */
static void test_order(void)
{
	struct wire_pkt p1, p2, a;
	struct seen c[4];
	uint8_t *w;
	size_t n;

	memset(mr(0), 0x11, 40);
	w = sq_wqe(W_SEND, 2, 0);
	dseg(w, 16, 40, RC_VA);
	w[0] = (a_sq & 8) ? 0x80 : 0x00;		/* posted, no doorbell */
	a_sq++;
	n = bf_send(24, 2);
	spoil_slot();
	nwire = 0;
	bf_write(2, 0, n, 8);
	a_sq++;
	check(nwire == 2 && wire_take(1, &p1) && wire_take(1, &p2) &&
	      p1.p.payload_len == 40 && p2.p.payload_len == 24 &&
	      p2.p.psn == PSN(p1.p.psn + 1),
	      "a WQE queued before the BlueFlame one leaves first, from the queue");
	rq_post();
	rq_post();
	deliver(&p1);
	deliver(&p2);
	while (wire_take(2, &a))
		deliver(&a);
	check(cq_drain(c, 4) == 4 && c[2].send && c[3].send &&
	      c[2].syndrome == 0 && c[3].syndrome == 0,
	      "both complete");
}

static void test_refused(void)
{
	uint64_t before = dev.bf_wqes;
	unsigned int l0;
	size_t n;

	nwire = 0;
	/* out of order: the second chunk before the first's end */
	n = bf_send(16, 2);
	spoil_slot();
	l0 = logs;
	cx3_bar2_write(&dev, CX3_UAR_AREA + BF_PAGE * CX3_UAR_PAGE,
		       le(0, 8), 8);
	cx3_bar2_write(&dev, CX3_UAR_AREA + BF_PAGE * CX3_UAR_PAGE + 16, 0, 8);
	check(nwire == 0 && logs > l0 && strstr(last_log, "out of order"),
	      "writes out of order: the WQE is dropped and logged");

	n = bf_send(16, 2);
	cx3_put32(bfw, 4, 0x77u << 8 | 2);
	l0 = logs;
	bf_write(1, 0, n, 8);
	check(nwire == 0 && logs > l0 && strstr(last_log, "no send queue"),
	      "a WQE for a QP that does not exist is ignored and logged");

	n = bf_send(16, 2);
	cx3_put32(bfw, 0, ((a_sq + 100) & 0xffff) << 8 | W_SEND);
	l0 = logs;
	bf_write(1, 1, n, 8);
	check(nwire == 0 && logs > l0 && strstr(last_log, "outside the send queue"),
	      "a WQE counter outside the queue is ignored and logged");

	n = bf_send(16, 2);
	bfw[7] = 0x20;			/* 512 bytes: more than a half */
	l0 = logs;
	bf_write(4, 0, 64, 8);
	check(nwire == 0 && logs > l0 && strstr(last_log, "dropped"),
	      "a WQE larger than a half is dropped and logged");

	n = bf_send(16, 5);		/* 80 bytes: larger than A's 64-byte WQEs */
	l0 = logs;
	bf_write(5, 0, n, 8);
	check(nwire == 0 && logs > l0 && strstr(last_log, "larger than a WQE"),
	      "a WQE larger than the queue's stride is ignored and logged");
	check(dev.bf_wqes == before, "none of them was posted");

	/* the queue still works after all that */
	n = bf_send(32, 2);
	spoil_slot();
	bf_write(6, 0, n, 8);
	a_sq++;
	check(sent_and_done(32, (a_sq - 1) & 0xffff),
	      "the next good BlueFlame WQE goes as usual");
}

/* A card reset drops what was written to the BlueFlame pages. */
static void test_reset(void)
{
	bf_send(16, 2);
	bf_write(0, 0, 32, 8);
	check(dev.bf[BF_PAGE] != NULL, "a written page is held");
	wr(&dev, CX3_RESET, 1);
	check(dev.bf[BF_PAGE] == NULL, "the reset frees it");
}

int main(void)
{
	if (!card_start())
		return 2;
	test_caps();
	check(rc_setup(), "RC: CQ, MR, QPs A and B connected");
	test_post();
	test_order();
	test_refused();
	test_reset();
	return card_end("test_bf");
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the ConnectX-3 model's RC transport as a real fabric needs
 * it, between the RC pair of rcpair.c whose wire the test holds: many
 * messages in flight, coalesced ACKs, go-back-N after a sequence NAK, READs
 * bounded by the SRA max and resumed after a lost response, the fence,
 * atomics answered from the replay record, the ACK timer and the retry
 * count ending in the retry-exceeded completion, RNR retries, the DIAG_RPRT
 * counters; the cable's impairments (drop the next N, a loss rate replayed
 * from its seed, corruption seen as a receive error, delay); and a transfer
 * of SENDs, WRITEs and READs across a cable losing 10% and corrupting 1%
 * that completes with every byte right.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcpair.h"
#include "cx3_qp.h"

#define SLOT(i)		(0x1000u + ((i) & 7) * 512)	/* A's buffers */
#define W_FENCE		0x40
#define SYN_FLUSH	0x05
#define SYN_RETRY_EXC	0x15
#define SYN_RNR_EXC	0x16
#define B_READ_ONLY	0x10

static struct cx3_qp *qa, *qb;
static struct wire_pkt f[16], k[16];

static bool take_any(struct wire_pkt *out)
{
	return nwire && wire_take(wire[0].port, out);
}

/* Deliver everything on the wire, and what that sends, until it is quiet. */
static unsigned int deliver_all(void)
{
	static struct wire_pkt w;
	unsigned int n = 0;

	while (take_any(&w) && n < 100000) {
		deliver(&w);
		n++;
	}
	return n;
}

static void post_send(unsigned int i, uint32_t len)
{
	uint8_t *w = sq_wqe(W_SEND, 2, 0);

	dseg(w, 16, len, RC_VA + SLOT(i));
	sq_post(w);
}

static void post_read(unsigned int i, uint32_t len, uint64_t from, bool fence)
{
	uint8_t *w = sq_wqe(W_READ, 3, from);

	dseg(w, 32, len, RC_VA + SLOT(i));
	if (fence)
		w[7] |= W_FENCE;
	sq_post(w);
}

static void post_fetch_add(unsigned int i, uint64_t va, uint64_t add)
{
	uint8_t *w = sq_wqe(W_FETCH_ADD, 4, va);

	cx3_put64(w, 32, add);
	cx3_put64(w, 40, 0);
	dseg(w, 48, 8, RC_VA + SLOT(i));
	sq_post(w);
}

static void fill(unsigned int off, unsigned int len, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		mr(off)[i] = (uint8_t)(seed * 131 + i * 7 + 3);
}

static bool filled(unsigned int off, unsigned int len, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (mr(off)[i] != (uint8_t)(seed * 131 + i * 7 + 3))
			return false;
	return true;
}

static bool pair(void)
{
	bool ok = pair_reset();

	qa = cx3_qp_get(&dev, QPA);
	qb = cx3_qp_get(&dev, QPB);
	memset(&dev.port[0].diag, 0, sizeof(dev.port[0].diag));
	memset(&dev.port[1].diag, 0, sizeof(dev.port[1].diag));
	return ok && qa && qb;
}

static void test_window(void)
{
	struct seen c[16];
	unsigned int i, n;
	bool ok = true;

	check(pair(), "window: the pair reset");
	for (i = 0; i < 4; i++) {
		rq_post();
		fill(SLOT(i), 16, i);
		post_send(i, 16);
	}
	for (i = 0; i < 4; i++)
		ok &= wire_take(1, &f[i]) && is(&f[i], B_SEND_ONLY, PSN_A + i);
	check(ok && !nwire && qa->win_cnt == 4,
	      "four SENDs leave at once, PSNs in sequence, before any ACK");
	for (i = 0; i < 4; i++)
		deliver(&f[i]);
	ok = true;
	for (i = 0; i < 4; i++)
		ok &= wire_take(2, &k[i]) && is_ack(&k[i], A_ACK, PSN_A + i);
	n = cq_drain(c, 16);
	for (i = 0; i < 4 && n == 4; i++)
		ok &= c[i].qpn == QPB &&
		      filled(0x400 + (i & 3) * 0x280, 16, i);
	check(ok && n == 4, "B takes all four and ACKs each (%u)", n);
	deliver(&k[3]);
	n = cq_drain(c, 16);
	ok = n == 4;
	for (i = 0; i < 4 && ok; i++)
		ok &= c[i].qpn == QPA && c[i].send && c[i].wqe == i &&
		      c[i].opcode == W_SEND;
	check(ok && qa->win_cnt == 0,
	      "the last ACK acknowledges all four: completions in order (%u)", n);
	deliver(&k[0]);
	check(cq_drain(c, 16) == 0 && qa->stale_responses == 1,
	      "an earlier ACK after it is stale");
}

static void test_go_back(void)
{
	struct seen c[16];
	unsigned int i, n;
	bool ok = true;

	check(pair(), "go-back-N: the pair reset");
	for (i = 0; i < 3; i++) {
		rq_post();
		fill(SLOT(i), 100, 10 + i);
		post_send(i, 100);
	}
	for (i = 0; i < 3; i++)
		ok &= wire_take(1, &f[i]);
	deliver(&f[1]);
	deliver(&f[2]);
	check(ok && wire_take(2, &k[0]) && is_ack(&k[0], A_NAK_SEQ, PSN_A) &&
	      !nwire, "the first SEND lost: one sequence NAK naming its PSN");
	deliver(&k[0]);
	ok = true;
	for (i = 0; i < 3; i++)
		ok &= wire_take(1, &f[i]) && is(&f[i], B_SEND_ONLY, PSN_A + i);
	check(ok && !nwire, "A goes back: all three again, from the NAK's PSN");
	for (i = 0; i < 3; i++)
		deliver(&f[i]);
	deliver_all();
	n = cq_drain(c, 16);
	ok = n == 6;
	for (i = 0; i < 3 && ok; i++)
		ok &= c[i].qpn == QPB && filled(0x400 + i * 0x280, 100, 10 + i) &&
		      c[3 + i].qpn == QPA && c[3 + i].wqe == i;
	check(ok, "each message arrives once, in order; A completes all (%u)", n);
	check(dev.port[0].diag.sq_oos == 1 && dev.port[1].diag.rq_oos == 1 &&
	      qa->retry_left == 3 && qa->go_backs == 1,
	      "counted on both sides (sq_oos %u, rq_oos %u); the retry restored",
	      dev.port[0].diag.sq_oos, dev.port[1].diag.rq_oos);
}

/*
 * A message of eight packets whose every round loses one packet after the
 * first: each sequence NAK also acknowledges a packet, which is progress,
 * so the retry count (3) comes back each time and six NAKs in a row do not
 * exhaust it.
 */
static void test_nak_progress(void)
{
	unsigned int r, i, n = 0;
	struct seen c[4];
	bool ok = true;
	uint8_t *w;

	check(pair(), "NAK progress: the pair reset");
	fill(0x1000, 2048, 55);
	memset(mr(0x1800), 0, 2048);
	w = sq_wqe(W_WRITE, 3, RC_VA + 0x1800);
	dseg(w, 32, 2048, RC_VA + 0x1000);
	sq_post(w);
	for (r = 0; r < 6 && ok; r++) {
		for (n = 0; n < 16 && wire_take(1, &f[n]); n++)
			;
		ok = n == 8 - r && f[0].p.psn == PSN(PSN_A + r);
		deliver(&f[0]);
		for (i = 2; i < n; i++)
			deliver(&f[i]);
		while (wire_take(2, &k[0]))
			deliver(&k[0]);
	}
	check(ok && qa->state == 3,
	      "six rounds lose the second packet of what is resent: six go-backs, the QP stays in RTS (round %u, %u packets)",
	      r, n);
	deliver_all();
	n = cq_drain(c, 4);
	check(n == 1 && c[0].qpn == QPA && c[0].syndrome == 0 &&
	      filled(0x1800, 2048, 55) && qa->go_backs == 6 &&
	      qa->retry_left == rc_retry,
	      "the WRITE completes with every byte right, the retry count restored (%u completions, go_backs %u)",
	      n, qa->go_backs);
}

static void test_reads(void)
{
	struct seen c[16];
	unsigned int i, n, req;
	bool ok = true;

	check(pair(), "READs: the pair reset");
	fill(0, 500, 77);
	for (i = 0; i < 5; i++) {
		memset(mr(SLOT(i)), 0, 512);
		post_read(i, 500, RC_VA, false);
	}
	for (i = 0; i < 4; i++)
		ok &= wire_take(1, &f[i]) && is(&f[i], B_READ_REQ, PSN_A + 2 * i);
	check(ok && !nwire && qa->win_cnt == 4,
	      "four READs out (SRA max 4), two PSNs each; the fifth waits");
	for (i = 0; i < 4; i++)
		deliver(&f[i]);
	ok = true;
	for (i = 0; i < 8; i++)
		ok &= wire_take(2, &k[i]);
	check(ok && !nwire && is(&k[1], 0x0f, PSN_A + 1),
	      "B answers each with FIRST and LAST");
	/* the LAST of the first READ is lost */
	deliver(&k[0]);
	deliver(&k[2]);
	ok = wire_take(1, &f[0]) && is(&f[0], B_READ_REQ, PSN_A + 1) &&
	     cx3_get64(f[0].p.ext, 0) == RC_VA + 256 &&
	     cx3_get32(f[0].p.ext, 12) == 244;
	for (i = 1, req = 1; i < 4; i++)
		req += wire_take(1, &f[i]) && is(&f[i], B_READ_REQ, PSN_A + 2 * i);
	check(ok && req == 4 && !nwire,
	      "a response ahead of the one missing: the READ asked again for its rest only (PSN, VA + 256, 244 bytes), the later ones after it");
	for (i = 3; i < 8; i++)
		deliver(&k[i]);
	check(cq_drain(c, 16) == 0 && !nwire,
	      "the first round's later responses are dropped meanwhile");
	for (i = 0; i < 4; i++)
		deliver(&f[i]);
	check(wire_take(2, &k[0]) && is(&k[0], B_READ_ONLY, PSN_A + 1),
	      "B answers the rest with one READ response ONLY at its PSN");
	deliver(&k[0]);
	deliver_all();
	n = cq_drain(c, 16);
	ok = n == 5;
	for (i = 0; i < 5 && ok; i++)
		ok &= c[i].qpn == QPA && c[i].opcode == W_READ && c[i].wqe == i &&
		      c[i].bytes == 500 && !memcmp(mr(SLOT(i)), mr(0), 500);
	check(ok, "all five READs complete in order with the data (%u)", n);

	/* a fenced SEND waits for the READ before it */
	rq_post();
	post_read(5, 500, RC_VA, false);
	fill(SLOT(6), 32, 6);
	{
		uint8_t *w = sq_wqe(W_SEND, 2, 0);

		dseg(w, 16, 32, RC_VA + SLOT(6));
		w[7] |= W_FENCE;
		sq_post(w);
	}
	check(wire_take(1, &f[0]) && is(&f[0], B_READ_REQ, PSN_A + 10) && !nwire,
	      "fence: the SEND after a READ waits");
	deliver(&f[0]);
	ok = wire_take(2, &k[0]) && wire_take(2, &k[1]);
	deliver(&k[0]);
	check(ok && !nwire, "... while the READ lacks a response");
	deliver(&k[1]);
	check(wire_take(1, &f[0]) && is(&f[0], B_SEND_ONLY, PSN_A + 12),
	      "... and leaves once it completed");
	deliver(&f[0]);
	deliver_all();
	cq_drain(c, 16);
}

static void test_atomics(void)
{
	struct seen c[16];
	unsigned int n;
	bool ok;

	check(pair(), "atomics: the pair reset");
	cx3_put64(mr(0x300), 0, 100);
	post_fetch_add(0, RC_VA + 0x300, 5);
	post_fetch_add(1, RC_VA + 0x300, 5);
	ok = wire_take(1, &f[0]) && is(&f[0], B_FETCH_ADD, PSN_A) &&
	     wire_take(1, &f[1]) && is(&f[1], B_FETCH_ADD, PSN_A + 1);
	check(ok, "two fetch-and-adds in flight");
	deliver(&f[0]);
	deliver(&f[1]);
	ok = wire_take(2, &k[0]) && wire_take(2, &k[1]) &&
	     cx3_get64(mr(0x300), 0) == 110;
	check(ok, "B executes both (110)");
	/* both responses lost: the ACK timer sends both again */
	fake_now += 100;
	cx3_poll(&dev);
	ok = wire_take(1, &f[0]) && is(&f[0], B_FETCH_ADD, PSN_A) &&
	     wire_take(1, &f[1]) && is(&f[1], B_FETCH_ADD, PSN_A + 1) && !nwire;
	check(ok && dev.port[0].diag.sq_to == 1,
	      "the ACK timeout: both requests again, same PSNs");
	deliver(&f[0]);
	deliver(&f[1]);
	ok = wire_take(2, &k[0]) && is(&k[0], B_ATOMIC_ACK, PSN_A) &&
	     cx3_get64(k[0].p.payload, 4) == 100 &&
	     wire_take(2, &k[1]) && is(&k[1], B_ATOMIC_ACK, PSN_A + 1) &&
	     cx3_get64(k[1].p.payload, 4) == 105;
	check(ok && cx3_get64(mr(0x300), 0) == 110 &&
	      dev.port[1].diag.rq_dup == 2,
	      "B answers both duplicates from its replay record, adds nothing");
	deliver(&k[0]);
	deliver(&k[1]);
	n = cq_drain(c, 16);
	check(n == 2 && cx3_get64(mr(SLOT(0)), 0) == 100 &&
	      cx3_get64(mr(SLOT(1)), 0) == 105,
	      "A completes both with the original values (%u)", n);
}

static void test_retry_exceeded(unsigned int retry)
{
	struct seen c[16];
	unsigned int sent = 0, n, ms, tries = retry + 1;
	uint64_t t0;

	rc_retry = retry;
	check(pair(), "retry count %u: the pair reset", retry);
	rc_retry = 3;
	fill(SLOT(0), 16, 1);
	post_send(0, 16);
	post_send(1, 16);
	t0 = fake_now;
	for (ms = 0; ms < 5000 && qa->state == 3; ms++) {
		while (wire_take(1, &f[0]))
			sent++;
		fake_now++;
		cx3_poll(&dev);
	}
	n = cq_drain(c, 16);
	check(sent == 2 * tries && qa->state == 6,
	      "a peer that never answers: each SEND sent once and %u times again (%u packets), then ERR",
	      retry, sent);
	check(fake_now - t0 >= tries * 67 && fake_now - t0 <= tries * 67 + 4,
	      "after %u ACK timeouts of 67 ms (%llu ms)", tries,
	      (unsigned long long)(fake_now - t0));
	check(n == 2 && c[0].opcode == 0x1e && c[0].syndrome == SYN_RETRY_EXC &&
	      c[0].wqe == 0 && c[1].syndrome == SYN_FLUSH && c[1].wqe == 1,
	      "the oldest completes with retry exceeded, the next is flushed");
	check(dev.port[0].diag.sq_to == tries && dev.port[0].diag.sq_tree == 1,
	      "DIAG counters: %u timeouts, 1 retry exceeded", tries);
}

static void test_rnr_exceeded(void)
{
	struct seen c[16];
	unsigned int n;
	bool ok;

	rc_rnr_retry = 1;
	check(pair(), "RNR retry 1: the pair reset");
	rc_rnr_retry = 7;
	post_send(0, 16);
	ok = wire_take(1, &f[0]);
	deliver(&f[0]);
	ok &= wire_take(2, &k[0]) && is(&k[0], B_ACK, PSN_A) &&
	      k[0].p.payload[0] >> 5 == 1;
	deliver(&k[0]);
	check(ok && !nwire, "no receive: RNR NAK, A waits");
	fake_now += 2;
	cx3_poll(&dev);
	ok = wire_take(1, &f[0]) && is(&f[0], B_SEND_ONLY, PSN_A);
	deliver(&f[0]);
	ok &= wire_take(2, &k[0]);
	deliver(&k[0]);
	n = cq_drain(c, 16);
	check(ok && n == 1 && c[0].syndrome == SYN_RNR_EXC && qa->state == 6,
	      "after the RNR timer one resend, a second RNR NAK: RNR retry exceeded");
	check(dev.port[0].diag.sq_rnr == 2 && dev.port[1].diag.rq_rnr == 2 &&
	      dev.port[0].diag.sq_rree == 1, "counted: 2 RNR NAKs each way, 1 exceeded");
}

/* DIAG_RPRT reports what the engines counted, per port and for the card. */
static void test_diag(void)
{
	uint64_t out = MBOX + 0x1000;
	uint8_t *o = gp(MBOX + 0x1000);
	bool ok;

	ok = post(&dev, 0, 1, &out, 0x030, 2) == 0 &&
	     cx3_get32(o, 0x6c) == 2 && cx3_get32(o, 0x64) == 1 &&
	     cx3_get32(o, 0x68) == 0;
	ok &= post(&dev, 0, 0, &out, 0x030, 2) == 0 &&
	      cx3_get32(o, 0x6c) == 2 && cx3_get32(o, 0x68) == 2;
	check(ok, "DIAG_RPRT: sq_num_rnr and sq_num_rree of port 1, rq_num_rnr of the card");
}

/* ---------------------------------------------------------------------- */
/* The cable */

static void test_cable(void)
{
	static uint8_t pattern[10000];
	struct cx3_impair *im = &dev.port[0].impair;
	struct seen c[16];
	unsigned int i, diffs = 0, same = 1;
	unsigned long before, dropped;
	uint32_t errs;
	bool ok;

	check(pair(), "cable: the pair reset");
	im->drop_next = 2;
	rq_post();
	rq_post();
	rq_post();
	post_send(0, 16);
	post_send(1, 16);
	post_send(2, 16);
	ok = wire_take(1, &f[0]) && is(&f[0], B_SEND_ONLY, PSN_A + 2) && !nwire;
	check(ok && im->dropped == 2, "drop 2: the first two packets never arrive");
	deliver(&f[0]);
	deliver_all();			/* NAK, go back, ACKs */
	check(cq_drain(c, 16) == 6,
	      "the NAK brings them again: three receives, three completions");

	/* 10% loss, from a seed: about 1000 of 10000, the same ones again */
	memcpy(&k[0], &f[0], sizeof(f[0]));
	cx3_cable_seed(&dev, 42);
	im->loss_ppm = 100000;
	im->dropped = 0;
	for (i = 0; i < 10000; i++) {
		before = wire_sent;
		cx3_cable_xmit(&dev, 1, k[0].b, k[0].len);
		pattern[i] = wire_sent == before;
	}
	dropped = im->dropped;
	cx3_cable_seed(&dev, 42);
	for (i = 0; i < 10000; i++) {
		before = wire_sent;
		cx3_cable_xmit(&dev, 1, k[0].b, k[0].len);
		same &= pattern[i] == (wire_sent == before);
	}
	cx3_cable_seed(&dev, 43);
	for (i = 0; i < 10000; i++) {
		before = wire_sent;
		cx3_cable_xmit(&dev, 1, k[0].b, k[0].len);
		diffs += pattern[i] != (wire_sent == before);
	}
	nwire = 0;
	im->loss_ppm = 0;
	check(dropped >= 900 && dropped <= 1100,
	      "loss 100000 ppm: %lu of 10000 dropped", dropped);
	check(same && diffs > 0,
	      "the same seed drops the same packets, another seed others (%u)",
	      diffs);

	/* a data burst: the data packet goes, a MAD (to QP1) passes */
	memcpy(&f[1], &k[0], sizeof(f[1]));
	f[1].b[IB_LRH_BYTES + 5] = 0;
	f[1].b[IB_LRH_BYTES + 6] = 0;
	f[1].b[IB_LRH_BYTES + 7] = 1;
	im->drop_data_next = 2;
	im->dropped = 0;
	cx3_cable_xmit(&dev, 1, f[1].b, f[1].len);
	ok = nwire == 1;
	cx3_cable_xmit(&dev, 1, k[0].b, k[0].len);
	ok &= nwire == 1 && im->drop_data_next == 1 && im->dropped == 1;
	im->drop_data_next = 0;
	nwire = 0;
	check(ok, "drop-data 2: a packet to QP1 passes, the next data packet is dropped");

	/* corruption: one bit flipped, the far port counts a receive error */
	im->corrupt_ppm = 1000000;
	memcpy(&f[1], &k[0], sizeof(f[1]));
	cx3_cable_xmit(&dev, 1, f[1].b, f[1].len);
	im->corrupt_ppm = 0;
	ok = wire_take(1, &f[2]) && f[2].len == k[0].len;
	diffs = 0;
	for (i = 0; ok && i < f[2].len; i++)
		diffs += (unsigned int)__builtin_popcount(f[2].b[i] ^ k[0].b[i]);
	errs = dev.port[1].cnt.rcv_errors;
	deliver(&f[2]);
	check(ok && diffs == 1 && dev.port[1].cnt.rcv_errors == errs + 1 &&
	      !nwire && im->corrupted == 1,
	      "corrupt 1000000 ppm: one bit differs, port 2 counts a receive error and drops it");

	/* delay: held until its time, in order */
	im->delay_ms = 5;
	cx3_cable_xmit(&dev, 1, k[0].b, k[0].len);
	fake_now += 4;
	cx3_poll(&dev);
	ok = !nwire && cx3_needs_poll(&dev);
	fake_now += 1;
	cx3_poll(&dev);
	ok &= nwire == 1;
	im->delay_ms = 0;
	nwire = 0;
	check(ok && !cx3_needs_poll(&dev),
	      "delay 5 ms: nothing after 4 ms, the packet at 5 ms");
}

/*
 * SENDs, RDMA WRITEs and READs of 400 bytes (2 packets at MTU 256), eight
 * in flight, across a cable that loses 10% each way and corrupts 1% of the
 * requests; the time moves only when the wire is quiet.
 */
static void test_lossy_transfer(void)
{
	struct seen c[64];
	unsigned int posted = 0, a_done = 0, b_done = 0, sends = 0, i, n;
	unsigned int bad = 0, rounds = 0, op;
	const unsigned int total = 240, len = 400;

	rc_retry = 7;
	check(pair(), "lossy transfer: the pair reset, retry count 7");
	rc_retry = 3;
	cx3_cable_seed(&dev, 0x5eed);
	dev.port[0].impair.loss_ppm = 100000;
	dev.port[0].impair.corrupt_ppm = 10000;
	dev.port[1].impair.loss_ppm = 100000;
	fill(0, len, 999);		/* what the READs fetch */
	while (a_done < total && rounds++ < 100000 && qa->state == 3) {
		while (posted < total && posted - a_done < 8) {
			op = posted % 3;
			if (op == 0 && b_rq - b_done >= 4)
				break;
			fill(SLOT(posted), len, posted);
			if (op == 0) {
				rq_post();
				post_send(posted, len);
			} else if (op == 1) {
				uint8_t *w = sq_wqe(W_WRITE, 3, RC_VA + 0xe00);

				dseg(w, 32, len, RC_VA + SLOT(posted));
				sq_post(w);
			} else {
				memset(mr(SLOT(posted)), 0, len);
				post_read(posted, len, RC_VA, false);
			}
			posted++;
		}
		if (!deliver_all()) {
			fake_now += 5;
			cx3_poll(&dev);
		}
		n = cq_drain(c, 64);
		for (i = 0; i < n; i++) {
			if (c[i].qpn == QPB) {
				/* the k-th receive holds the k-th SEND: op 3k */
				bad += c[i].opcode == 0x1e || c[i].bytes != len ||
				       !filled(0x400 + (b_done & 3) * 0x280, len,
					       3 * sends);
				b_done++;
				sends++;
				continue;
			}
			bad += c[i].opcode == 0x1e || c[i].wqe != (a_done & 0xffff) ||
			       (a_done % 3 == 2 && !filled(SLOT(a_done), len, 999));
			a_done++;
		}
	}
	dev.port[0].impair.loss_ppm = 0;
	dev.port[0].impair.corrupt_ppm = 0;
	dev.port[1].impair.loss_ppm = 0;
	check(a_done == total && b_done == total / 3 && !bad && qa->state == 3,
	      "%u of %u requests completed, %u SENDs received, %u wrong",
	      a_done, total, b_done, bad);
	check(filled(0xe00, len, total - 2),
	      "the last RDMA WRITE's bytes are in place");
	check(qa->go_backs > 0 && qb->dup_requests > 0 &&
	      dev.port[1].cnt.rcv_errors > 0 &&
	      dev.port[0].impair.dropped > 0 && dev.port[1].impair.dropped > 0,
	      "the losses were recovered: %u resends, %u duplicates, %u bad ICRCs, %llu + %llu dropped",
	      qa->go_backs, qb->dup_requests, dev.port[1].cnt.rcv_errors,
	      (unsigned long long)dev.port[0].impair.dropped,
	      (unsigned long long)dev.port[1].impair.dropped);
}

int main(void)
{
	if (!card_start())
		return 2;
	check(rc_setup(), "RC: CQ, MR, QPs A and B connected");
	test_window();
	test_go_back();
	test_nak_progress();
	test_reads();
	test_atomics();
	test_retry_exceeded(3);
	test_retry_exceeded(7);	/* seven, not forever (as the RNR count's 7) */
	test_rnr_exceeded();
	test_diag();
	test_cable();
	test_lossy_transfer();
	return card_end("test_rc");
}

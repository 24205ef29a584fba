// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the ConnectX-3 model's verbs objects, without a VM: CQ
 * ownership and arming, the QP state machine, flush-on-error (SQ by owner
 * bits, RQ by the doorbell record, WQEs posted while in ERR), memory
 * regions (key, PD, access and bounds checks; re-registration via SYNC_TPT),
 * and the RC transport's PSN rules between two QPs whose wire the test
 * holds: duplicates answered without being executed again, sequence errors,
 * late responses at the requester.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"
#include "fake.h"
#include "cx3_mr.h"
#include "cx3_pkt.h"
#include "cx3_qp.h"
#include "rcpair.h"

static uint8_t *cqe(unsigned int n)
{
	return gp(CQ_BUF) + n * 32;
}

/* A QP transition with a context whose state field says where it goes. */
static int qp_cmd(uint16_t op, unsigned int state, uint32_t optpar)
{
	uint8_t *c = gp(MBOX) + 8;

	memset(gp(MBOX), 0, 4096);
	cx3_put32(gp(MBOX), 0, optpar);
	cx3_put32(c, 0x00, state << 28 | 0 << 16);	/* RC */
	cx3_put32(c, 0x04, PD);
	c[0x09] = 3 << 3 | 0;		/* RQ: 8 WQEs of 16 bytes */
	c[0x0a] = 3 << 3 | 2;		/* SQ: 8 WQEs of 64 bytes */
	cx3_put32(c, 0x14, 0x123);	/* remote QPN */
	cx3_put32(c, 0x7c, CQN);
	cx3_put32(c, 0x9c, CQN);
	cx3_put64(c, 0xa0, QP_DB);
	cx3_put32(c, 0xa8, 0x11111111);
	cx3_put32(c, 0xcc, 2 * 8);	/* MTT entry 2 */
	return cmd(MBOX, QPN, op, 0);
}

static unsigned int qp_state(void)
{
	uint64_t out = MBOX + 0x1000;

	if (post(&dev, 0, QPN, &out, 0x022, 0))
		return 99;
	return gp(MBOX + 0x1000)[8] >> 4;
}

static void test_cq_and_qp(void)
{
	uint8_t *c;
	int st, i;
	bool owners = true;

	mtt_set(1, CQ_BUF);
	mtt_set(2, QP_BUF);
	memset(gp(CQ_BUF), 0, 4096);
	memset(gp(MBOX), 0, 4096);
	c = gp(MBOX);
	cx3_put32(c, 0x0c, 6u << 24);		/* 64 CQEs */
	cx3_put32(c, 0x1c, 1 * 8);		/* MTT entry 1 */
	cx3_put64(c, 0x38, CQ_DB);
	check(cmd(MBOX, CQN, 0x016, 0) == 0 && dev.live.cq == 1, "SW2HW_CQ");
	for (i = 0; i < 64; i++)
		owners &= cqe(i)[31] == 0x80;
	check(owners, "SW2HW_CQ hands every CQE to the hardware");
	check(cmd(MBOX, 1u << 20, 0x016, 0) == 0x0a, "SW2HW_CQ beyond the table: BAD_INDEX");

	/* the driver stamps every SQ WQE's owner bit to 1 before RST2INIT */
	for (i = 0; i < 8; i++)
		gp(QP_BUF)[i * 64] = 0x80;
	st = qp_cmd(0x01b, 3, 0);
	check(st == 0x10, "RTR2RTS on a QP in RESET: BAD_QP_STATE (%d)", st);
	st = qp_cmd(0x019, 2, 0);
	check(st == 3, "RST2INIT with a context that says RTR: BAD_PARAM (%d)", st);
	check(qp_cmd(0x019, 1, 0) == 0 && dev.live.qp == 1, "RST2INIT");
	check(qp_state() == 1, "QUERY_QP: INIT");
	check(qp_cmd(0x019, 1, 0) == 0x10, "RST2INIT twice: BAD_QP_STATE");
	check(qp_cmd(0x01a, 2, 0) == 0 && qp_state() == 2, "INIT2RTR, QUERY_QP: RTR");
	check(cx3_get32(gp(MBOX + 0x1000) + 8, 0x14) == 0x123,
	      "INIT2RTR latched the remote QPN");
	check(qp_cmd(0x01b, 3, 0) == 0 && qp_state() == 3, "RTR2RTS, QUERY_QP: RTS");

	/* RTS2RTS with only the Q_Key in optpar changes only the Q_Key */
	memset(gp(MBOX), 0, 4096);
	cx3_put32(gp(MBOX), 0, 1u << 5);
	cx3_put32(gp(MBOX) + 8, 0x00, 3u << 28);
	cx3_put32(gp(MBOX) + 8, 0xa8, 0x22222222);
	check(cmd(MBOX, QPN, 0x01c, 0) == 0, "RTS2RTS");
	qp_state();
	c = gp(MBOX + 0x1000) + 8;
	check(cx3_get32(c, 0xa8) == 0x22222222 && cx3_get32(c, 0x14) == 0x123 &&
	      cx3_get32(c, 0x04) == PD,
	      "RTS2RTS latched the Q_Key named in optpar and kept the rest");

	/* two WQEs posted, without ringing the doorbell */
	gp(QP_BUF)[0] = 0x00;
	gp(QP_BUF)[64] = 0x00;
	cx3_put32(gp(QP_DB), 0, 2);		/* two receive WQEs */

	check(qp_cmd(0x01e, 6, 0) == 0 && qp_state() == 6, "2ERR, QUERY_QP: ERR");
	check(cqe(0)[31] == (0x40 | 0x1e) && cqe(0)[0x1b] == 5 &&
	      cx3_get16(cqe(0), 0x18) == 0 && cx3_get32(cqe(0), 0) == QPN,
	      "SQ WQE 0 flushed: error CQE, is_send, syndrome WR_FLUSH, its index");
	check(cqe(1)[31] == (0x40 | 0x1e) && cx3_get16(cqe(1), 0x18) == 1,
	      "SQ WQE 1 flushed");
	check(cqe(2)[31] == 0x1e && cqe(3)[31] == 0x1e && cqe(4)[31] == 0x80,
	      "both RQ WQEs flushed, nothing else written");

	/* arm the CQ: completions are pending, so the EQ gets an event */
	msix_fired[0] = 0;
	cx3_bar2_write(&dev, 0x20, (uint64_t)__builtin_bswap32(0) << 32 |
		       __builtin_bswap32(2u << 24 | CQN), 8);
	check(gp(EQ_BUF)[1] == 0x00 && cx3_get32(gp(EQ_BUF), 4) == CQN &&
	      msix_fired[0] == 1,
	      "arming a CQ with completions pending raises a completion event");

	/* a receive posted while in ERR is flushed by the poll */
	cx3_put32(gp(QP_DB), 0, 3);
	cx3_poll(&dev);
	check(cqe(4)[31] == 0x1e && cqe(5)[31] == 0x80,
	      "a receive posted in ERR is flushed");

	check(qp_cmd(0x021, 0, 0) == 0 && dev.live.qp == 0 && qp_state() == 0,
	      "2RST frees the QP; QUERY_QP: RESET");
	check(cmd(0, CQN, 0x017, 1) == 0 && dev.live.cq == 0, "HW2SW_CQ");
	check(cmd(0, CQN, 0x017, 1) == 9, "HW2SW_CQ twice: BAD_RES_STATE");
}

static void test_mr(void)
{
	uint32_t key = 3u << 8 | 0x42, idx = 3;
	uint64_t start = 0x70000000;
	uint8_t *m = gp(MBOX), buf[8];
	uint8_t *icm_mpt = gp(ICM_PA + 0x050000 + idx * 64);
	int st;

	mtt_set(3, MR_PAGE);
	memset(gp(MR_PAGE), 0xab, 4096);
	memcpy(gp(MR_PAGE) + 16, "cx3-data", 8);
	memset(m, 0, 4096);
	cx3_put32(m, 0x00, 1u << 8 | 3u << 10);		/* region, local R/W */
	cx3_put32(m, 0x08, key << 24 | key >> 8);
	cx3_put32(m, 0x0c, PD);
	cx3_put64(m, 0x10, start);
	cx3_put64(m, 0x18, 4096);
	cx3_put64(m, 0x2c, 3 * 8);
	cx3_put32(m, 0x38, 12);
	st = cmd(MBOX, idx, 0x00d, 0);
	check(st == 0 && dev.live.mpt == 1, "SW2HW_MPT (%d: %s)", st, last_log);
	check(icm_mpt[0] == 0x00 && cx3_get64(icm_mpt, 0x10) == start,
	      "the MPT entry is in the dMPT table, hardware-owned");
	check(cx3_mr_rw(&dev, key, PD, start + 16, buf, 8, CX3_ACC_LOCAL_READ,
			false) == CX3_MR_OK && !memcmp(buf, "cx3-data", 8),
	      "a read through the MR translates through the MTT");
	check(cx3_mr_rw(&dev, key ^ 1, PD, start, buf, 8, CX3_ACC_LOCAL_READ,
			false) == CX3_MR_BAD_KEY, "wrong key variant refused");
	check(cx3_mr_rw(&dev, key, PD + 1, start, buf, 8, CX3_ACC_LOCAL_READ,
			false) == CX3_MR_BAD_PD, "wrong PD refused");
	check(cx3_mr_rw(&dev, key, PD, start, buf, 8, CX3_ACC_REMOTE_WRITE,
			true) == CX3_MR_BAD_ACCESS, "remote write without the right refused");
	check(cx3_mr_rw(&dev, key, PD, start + 4092, buf, 8, CX3_ACC_LOCAL_READ,
			false) == CX3_MR_BAD_BOUNDS, "access past the end refused");

	/* re-registration: HW2SW without a mailbox, edit in ICM, SYNC_TPT */
	check(cmd(0, idx, 0x00f, 1) == 0 && dev.live.mpt == 0 && icm_mpt[0] == 0xf0,
	      "HW2SW_MPT hands the entry to software");
	check(cx3_mr_rw(&dev, key, PD, start, buf, 8, CX3_ACC_LOCAL_READ,
			false) == CX3_MR_BAD_KEY, "a software-owned MR is not usable");
	cx3_put32(icm_mpt, 0x0c, PD + 1);
	icm_mpt[0] = 0x00;
	check(cmd(0, 0, 0x02f, 0) == 0 && dev.live.mpt == 1, "SYNC_TPT takes it back");
	check(cx3_mr_rw(&dev, key, PD + 1, start + 16, buf, 8, CX3_ACC_LOCAL_READ,
			false) == CX3_MR_OK, "the edited PD is in force");
	check(cmd(0, idx, 0x00f, 1) == 0 && dev.live.mpt == 0, "HW2SW_MPT");
}

static void test_rc_psn(void)
{
	static struct wire_pkt s1, s2, k1, k2, x, r, rr[6], nak, f[3];
	struct cx3_qp *a, *b;
	struct seen cq[8];
	unsigned int n, i, logs0;
	uint8_t *w;
	uint32_t e;
	bool ok;

	check(rc_setup(), "RC: CQ, MR, QPs A and B connected");
	a = cx3_qp_get(&dev, QPA);
	b = cx3_qp_get(&dev, QPB);
	if (!a || !b)
		return;
	check(b->epsn == PSN_A, "INIT2RTR: B expects A's first PSN (0x%x)",
	      b->epsn);

	/* a SEND whose ACK is late: A resends it, B gets it twice */
	rq_post();
	rq_post();
	memcpy(mr(0), "ping-1", 6);
	send_wqe(6);
	check(wire_take(1, &s1) && is(&s1, B_SEND_ONLY, PSN_A) && !nwire,
	      "A sends a SEND_ONLY with its first PSN");
	fake_now += 100;
	cx3_poll(&dev);
	check(wire_take(1, &s2) && is(&s2, B_SEND_ONLY, PSN_A) &&
	      !memcmp(s1.b, s2.b, s1.len),
	      "no ACK within the ACK timeout: A resends it, same PSN");
	logs0 = logs;
	deliver(&s1);
	deliver(&s2);
	check(wire_take(2, &k1) && is_ack(&k1, A_ACK, PSN_A),
	      "B ACKs the SEND");
	check(wire_take(2, &k2) && is_ack(&k2, A_ACK, PSN_A) && !nwire,
	      "B ACKs the duplicate, with the same PSN");
	n = cq_drain(cq, 8);
	check(n == 1 && cq[0].qpn == QPB && !cq[0].send && cq[0].bytes == 6 &&
	      !memcmp(mr(0x400), "ping-1", 6),
	      "one receive completion for the two copies (%u)", n);
	check(b->rq.cons == 1 && b->dup_requests == 1 &&
	      b->epsn == PSN(PSN_A + 1),
	      "the duplicate took no receive WQE and left the expected PSN alone");
	check(logs == logs0, "no log line for a duplicate");
	deliver(&k1);
	n = cq_drain(cq, 8);
	check(n == 1 && cq[0].qpn == QPA && cq[0].send &&
	      cq[0].opcode == W_SEND && a->win_cnt == 0,
	      "the first ACK completes A's SEND");

	/* the ACK of the duplicate arrives while the next SEND is in flight */
	memcpy(mr(0), "ping-2", 6);
	send_wqe(6);
	check(wire_take(1, &x) && is(&x, B_SEND_ONLY, PSN_A + 1),
	      "A sends the next SEND");
	deliver(&k2);
	check(cq_drain(cq, 8) == 0 && a->win_cnt == 1 && a->stale_responses == 1,
	      "a late ACK of the earlier SEND does not complete the next one");
	deliver(&x);
	check(wire_take(2, &k1) && is_ack(&k1, A_ACK, PSN_A + 1),
	      "B ACKs the next SEND");
	deliver(&k1);
	n = cq_drain(cq, 8);
	check(n == 2 && cq[0].qpn == QPB && !memcmp(mr(0x680), "ping-2", 6) &&
	      cq[1].qpn == QPA && cq[1].send, "its own ACK completes it");

	/* RDMA WRITE (its PSN wraps to 0): a duplicate does not write again */
	memcpy(mr(0), "AAAAAAAAAAAAAAAA", 16);
	w = sq_wqe(W_WRITE, 3, RC_VA + 0x1000);
	dseg(w, 32, 16, RC_VA);
	sq_post(w);
	e = PSN(PSN_A + 2);
	check(wire_take(1, &x) && is(&x, B_WRITE_ONLY, e) && e == 0,
	      "A sends an RDMA WRITE, PSN 0");
	deliver(&x);
	check(!memcmp(mr(0x1000), "AAAAAAAAAAAAAAAA", 16) &&
	      wire_take(2, &k1) && is_ack(&k1, A_ACK, e), "B writes and ACKs");
	memcpy(mr(0x1000), "ZZZZZZZZZZZZZZZZ", 16);	/* B's owner moves on */
	deliver(&x);					/* a late duplicate */
	check(!memcmp(mr(0x1000), "ZZZZZZZZZZZZZZZZ", 16),
	      "a duplicate RDMA WRITE does not write again");
	check(wire_take(2, &k2) && is_ack(&k2, A_ACK, e) && !nwire,
	      "and is ACKed again");
	deliver(&k1);
	deliver(&k2);
	n = cq_drain(cq, 8);
	check(n == 1 && cq[0].qpn == QPA && cq[0].opcode == W_WRITE &&
	      a->stale_responses == 2, "one completion for A's WRITE");

	/* RDMA READ of 600 bytes: 3 responses; a duplicate gets them again */
	for (i = 0; i < 600; i++)
		mr(0)[i] = (uint8_t)(i * 7 + 1);
	memset(mr(0x1100), 0, 0x300);
	w = sq_wqe(W_READ, 3, RC_VA);
	dseg(w, 32, 600, RC_VA + 0x1100);
	sq_post(w);
	e = PSN(PSN_A + 3);
	check(wire_take(1, &r) && is(&r, B_READ_REQ, e), "A sends an RDMA READ");
	deliver(&r);
	ok = true;
	for (i = 0; i < 3; i++)
		ok &= wire_take(2, &rr[i]) &&
		      is(&rr[i], (uint8_t)(B_READ_FIRST + i), e + i);
	check(ok && !nwire && b->epsn == PSN(e + 3),
	      "B answers READ FIRST, MIDDLE, LAST and expects PSN + 3");
	deliver(&r);
	ok = true;
	for (i = 3; i < 6; i++)
		ok &= wire_take(2, &rr[i]) && rr[i].len == rr[i - 3].len &&
		      !memcmp(rr[i].b, rr[i - 3].b, rr[i].len);
	check(ok && !nwire && b->epsn == PSN(e + 3) && b->dup_requests == 3,
	      "a duplicate RDMA READ gets the same response again");
	/* A takes the responses in PSN order, whichever copy they come from */
	deliver(&rr[0]);
	deliver(&rr[3]);
	deliver(&rr[1]);
	deliver(&rr[2]);
	deliver(&rr[4]);
	deliver(&rr[5]);
	n = cq_drain(cq, 8);
	check(n == 1 && cq[0].qpn == QPA && cq[0].opcode == W_READ &&
	      cq[0].bytes == 600 && !memcmp(mr(0x1100), mr(0), 600),
	      "A's READ completes once, with the data (%u, %u bytes)", n,
	      cq[0].bytes);

	/* fetch-and-add: a duplicate gets the original value, adds nothing */
	cx3_put64(mr(0x1400), 0, 100);
	w = sq_wqe(W_FETCH_ADD, 4, RC_VA + 0x1400);
	cx3_put64(w, 32, 5);
	dseg(w, 48, 8, RC_VA + 0x1408);
	sq_post(w);
	e = PSN(PSN_A + 6);
	check(wire_take(1, &x) && is(&x, B_FETCH_ADD, e),
	      "A sends a fetch-and-add");
	deliver(&x);
	check(wire_take(2, &k1) && is(&k1, B_ATOMIC_ACK, e) &&
	      cx3_get64(k1.p.payload, 4) == 100 &&
	      cx3_get64(mr(0x1400), 0) == 105,
	      "B adds and answers with the original value");
	deliver(&x);
	check(wire_take(2, &k2) && is(&k2, B_ATOMIC_ACK, e) &&
	      cx3_get64(k2.p.payload, 4) == 100 &&
	      cx3_get64(mr(0x1400), 0) == 105,
	      "a duplicate atomic gets the saved original value, adds nothing");
	deliver(&k1);
	deliver(&k2);
	n = cq_drain(cq, 8);
	check(n == 1 && cq[0].opcode == W_FETCH_ADD &&
	      cx3_get64(mr(0x1408), 0) == 100, "one completion for A's atomic");

	/* a SEND of 3 packets whose first is lost: a PSN sequence error */
	rq_post();
	for (i = 0; i < 600; i++)
		mr(0)[i] = (uint8_t)(i * 3);
	send_wqe(600);
	e = PSN(PSN_A + 7);
	check(take_msg(f, 3, B_SEND_FIRST, e), "A sends SEND FIRST, MIDDLE, LAST");
	deliver(&f[1]);
	check(wire_take(2, &nak) && is_ack(&nak, A_NAK_SEQ, e) && !nwire,
	      "a PSN ahead of the expected one: NAK sequence error, expected PSN");
	deliver(&f[2]);
	check(!nwire && b->state == 3 && b->rq.cons == 2 &&
	      cq_drain(cq, 8) == 0 && b->seq_naks == 1,
	      "the next one is dropped, without a second NAK");
	deliver(&nak);
	check(take_msg(f, 3, B_SEND_FIRST, e) && !nwire,
	      "the NAK makes A resend the message at once");
	for (i = 0; i < 3; i++)
		deliver(&f[i]);
	check(wire_take(2, &k1) && is_ack(&k1, A_ACK, e + 2),
	      "B ACKs its last packet");
	deliver(&k1);
	n = cq_drain(cq, 8);
	check(n == 2 && cq[0].qpn == QPB && cq[0].bytes == 600 &&
	      !memcmp(mr(0x900), mr(0), 600) && cq[1].qpn == QPA,
	      "the message arrives once, A's SEND completes");

	/* no receive for a SEND of 3 packets: RNR NAK, the rest dropped */
	send_wqe(600);
	e = PSN(PSN_A + 10);
	check(take_msg(f, 3, B_SEND_FIRST, e), "A sends another 3-packet SEND");
	for (i = 0; i < 3; i++)
		deliver(&f[i]);
	check(wire_take(2, &nak) && is(&nak, B_ACK, e) &&
	      nak.p.payload[0] >> 5 == 1 && !nwire && b->state == 3,
	      "no receive WQE: RNR NAK for the first packet, the others dropped");
	rq_post();
	deliver(&nak);
	fake_now += 5;
	cx3_poll(&dev);
	ok = take_msg(f, 3, B_SEND_FIRST, e);
	for (i = 0; i < 3; i++)
		deliver(&f[i]);
	check(ok && wire_take(2, &k1) && is_ack(&k1, A_ACK, e + 2),
	      "after the RNR timer A resends it, B takes it and ACKs");
	deliver(&k1);
	n = cq_drain(cq, 8);
	check(n == 2 && cq[0].qpn == QPB && cq[0].bytes == 600 &&
	      cq[1].qpn == QPA, "the message arrives once, A's SEND completes");

	check(rc_qp_cmd(QPA, 0x021, 0) == 0 && rc_qp_cmd(QPB, 0x021, 0) == 0 &&
	      strstr(last_log, "duplicate requests"),
	      "2RST; the QP's duplicates were counted, in one line: %s",
	      last_log);
	check(cmd(0, RC_CQN, 0x017, 1) == 0 && cmd(0, RC_MPT, 0x00f, 1) == 0 &&
	      dev.live.qp == 0 && dev.live.cq == 0 && dev.live.mpt == 0,
	      "RC objects freed");
}

int main(void)
{
	if (!card_start())
		return 2;
	test_cq_and_qp();
	test_mr();
	test_rc_psn();
	return card_end("test_qp");
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the ConnectX-3 model's verbs objects, without a VM: CQ
 * ownership and arming, the QP state machine, flush-on-error (SQ by owner
 * bits, RQ by the doorbell record, WQEs posted while in ERR), and memory
 * regions (key, PD, access and bounds checks; re-registration via SYNC_TPT).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"
#include "cx3_mr.h"

/* guest addresses */
#define MBOX		(MEM_BASE)
#define FA_PAGES	(MEM_BASE + 0x100000)
#define AUX_PAGE	(MEM_BASE + 0x140000)
#define ICM_PA		(MEM_BASE + 0x800000)
#define EQ_BUF		(MEM_BASE + 0x400000)
#define CQ_BUF		(MEM_BASE + 0x401000)
#define QP_BUF		(MEM_BASE + 0x402000)
#define QP_DB		(MEM_BASE + 0x403000)
#define CQ_DB		(MEM_BASE + 0x403100)
#define MR_PAGE		(MEM_BASE + 0x404000)

/* ICM layout */
#define MTT_VA		0x100000ull
#define QPN		8
#define CQN		1
#define PD		5

static struct cx3_dev dev;

static int cmd(uint64_t in, uint32_t in_mod, uint16_t op, uint8_t op_mod)
{
	uint64_t out = MBOX + 0x1000;

	return post(&dev, in, in_mod, &out, op, op_mod);
}

static void mtt_set(unsigned int idx, uint64_t pa)
{
	cx3_put64(gp(ICM_PA + MTT_VA), idx * 8, pa | 1);
}

static void bringup(void)
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

int main(void)
{
	enum cx3_cable cable[CX3_NUM_PORTS] = { CX3_CABLE_NONE, CX3_CABLE_NONE };

	mem = calloc(1, MEM_SIZE);
	if (!mem)
		return 2;
	cx3_init(&dev, &fake_host, 0x0002c90300000200ull, cable);
	wr(&dev, CX3_RESET, 1);
	bringup();
	test_cq_and_qp();
	test_mr();
	cx3_fini(&dev);
	free(mem);
	printf("test_qp: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the ConnectX-3 model's command interface, without a VM: a
 * fake guest memory, the HCR go/toggle protocol in polling mode, the
 * firmware bring-up commands, ICM mapping, event-mode completion through
 * an EQ, and the model's answers to guest mistakes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"

int main(void)
{
	enum cx3_cable cable[CX3_NUM_PORTS] = { CX3_CABLE_LOOP, CX3_CABLE_LOOP };
	static struct cx3_dev dev;
	uint64_t mbox = MEM_BASE, outbox = MEM_BASE + 0x1000, out;
	uint64_t pages = MEM_BASE + 0x100000, icm_pa = MEM_BASE + 0x800000;
	uint64_t eq_buf = MEM_BASE + 0x400000, mtt_va;
	int st, i;
	uint32_t dw6;
	uint64_t cmds;

	mem = calloc(1, MEM_SIZE);
	if (!mem)
		return 2;
	cx3_init(&dev, &fake_host, 0x0002c90300000100ull, cable);

	/* ownership: the first read acquires, the next sees it taken */
	check(rd(&dev, CX3_OWNERSHIP) == 0, "ownership reads 0 for the first owner");
	check(rd(&dev, CX3_OWNERSHIP) != 0, "ownership reads non-zero while owned");
	wr(&dev, CX3_OWNERSHIP, 0);
	check(rd(&dev, CX3_OWNERSHIP) == 0, "ownership released by writing 0");
	check(rd(&dev, CX3_RESET_SEM) == 0, "reset semaphore reads 0");

	/* after reset GO = 0 and T = 0, so the driver's first toggle is 1 */
	wr(&dev, CX3_RESET, 1);
	dw6 = rd(&dev, CX3_HCR + 24);
	check(!(dw6 & (1u << 23)) && !(dw6 & (1u << 21)), "HCR idle after reset (GO=0, T=0)");

	out = outbox;
	st = post(&dev, 0, 0, &out, 0x004, 0);
	check(st == 0, "QUERY_FW succeeds in polling mode (status %d)", st);
	check((rd(&dev, CX3_HCR + 24) >> 21 & 1) == 1, "HCR keeps the toggle the driver wrote");
	check(cx3_get16(gp(outbox), 0x0a) == 3, "QUERY_FW cmd_if_rev 3");
	check(cx3_get16(gp(outbox), 0) > 0, "QUERY_FW asks for firmware pages");

	out = 0;
	st = post(&dev, 0, 0, &out, 0x003, 0);
	check(st == 4, "QUERY_DEV_CAP before RUN_FW refused with BAD_SYS_STATE (%d)", st);

	/* MAP_FA: one 256 KiB chunk (64 pages), then RUN_FW */
	memset(gp(mbox), 0, 4096);
	cx3_put64(gp(mbox), 8, pages | 6);
	out = 0;
	check(post(&dev, mbox, 1, &out, 0xfff, 0) == 0, "MAP_FA of 64 pages");
	check(post(&dev, 0, 0, &out, 0xff6, 0) == 0, "RUN_FW");
	check(dev.live.fa_pages == 64, "64 firmware pages live");

	out = outbox;
	check(post(&dev, 0, 0, &out, 0x003, 0) == 0, "QUERY_DEV_CAP");
	check((gp(outbox)[0x37] & 0xf) == 2, "two ports");
	check(cx3_get16(gp(outbox), 0x90) == 8, "MTT entry size 8");

	/* an outbox outside guest memory is an error, not a crash */
	out = 0x10;
	st = post(&dev, 0, 0, &out, 0x003, 0);
	check(st == 3, "outbox outside guest memory gives BAD_PARAM (%d)", st);

	/* unknown and refused opcodes; every command counts (make bench) */
	out = 0;
	logs = 0;
	cmds = dev.counts.cmds;
	st = post(&dev, 0, 0, &out, 0x7ee, 0);
	check(st == 2 && strstr(last_log, "unknown command"),
	      "unknown opcode answers BAD_OP and is logged as unknown");
	check(dev.cmd_unknown == 1, "unknown commands are counted");
	check(dev.counts.cmds == cmds + 1, "the work counter counts it too (%llu after %llu)",
	      (unsigned long long)dev.counts.cmds, (unsigned long long)cmds);
	st = post(&dev, 0, 0, &out, 0x04d, 0);
	check(st == 2 && strstr(last_log, "refused"),
	      "SENSE_PORT (Ethernet) answers BAD_OP and is logged as refused");

	/* SET_ICM_SIZE is immediate in, immediate out */
	out = 0;
	check(post(&dev, 64ull << 20, 0, &out, 0xffd, 0) == 0 && out >= 1,
	      "SET_ICM_SIZE returns %llu aux pages", (unsigned long long)out);
	memset(gp(mbox), 0, 4096);
	cx3_put64(gp(mbox), 8, (pages + 0x40000) | 0);
	out = 0;
	check(post(&dev, mbox, 1, &out, 0xffc, 0) == 0, "MAP_ICM_AUX");

	/* MAP_ICM: 4 MiB of ICM at VA 0 */
	memset(gp(mbox), 0, 4096);
	for (i = 0; i < 16; i++) {
		cx3_put64(gp(mbox), i * 16, (uint64_t)i << 18);
		cx3_put64(gp(mbox), i * 16 + 8, (icm_pa + ((uint64_t)i << 18)) | 6);
	}
	out = 0;
	check(post(&dev, mbox, 16, &out, 0xffa, 0) == 0, "MAP_ICM of 16 chunks");
	check(dev.live.icm_pages == 1024, "1024 ICM pages live");
	st = post(&dev, mbox, 1, &out, 0xffa, 0);
	check(st == 3, "mapping an ICM page twice is refused (%d)", st);
	memset(gp(mbox), 0, 4096);
	cx3_put64(gp(mbox), 0, 0x3000);
	cx3_put64(gp(mbox), 8, (icm_pa + 0x1000) | 2);
	st = post(&dev, mbox, 1, &out, 0xffa, 0);
	check(st == 3, "a misaligned ICM chunk is refused (%d)", st);

	/* INIT_HCA with a small layout inside the 4 MiB */
	fake_init_hca_layout(mbox);
	out = 0;
	check(post(&dev, mbox, 0, &out, 0x007, 0) == 0, "INIT_HCA");
	check(post(&dev, mbox, 0, &out, 0x007, 0) == 4, "a second INIT_HCA is refused");

	/* one EQ of 64 entries in one 4 KiB page, MTT entry 0 */
	mtt_va = 0x100000;
	memset(gp(icm_pa + mtt_va), 0, 8);
	cx3_put64(gp(icm_pa + mtt_va), 0, eq_buf | 1);
	memset(gp(eq_buf), 0, 4096);
	memset(gp(mbox), 0, 4096);
	gp(mbox)[0x0c] = 6;		/* 64 entries */
	gp(mbox)[0x17] = 0;		/* vector 0 */
	out = 0;
	check(post(&dev, mbox, 0, &out, 0x013, 0) == 0, "SW2HW_EQ 0");
	check(dev.live.eq == 1, "one EQ live");
	check(gp(eq_buf)[31] == 0x80 && gp(eq_buf)[63 * 32 + 31] == 0x80,
	      "SW2HW_EQ hands every EQE to the hardware (owner bit 1)");
	check(post(&dev, mbox, 0, &out, 0x013, 0) == 9, "SW2HW_EQ twice gives BAD_RES_STATE");
	check(post(&dev, mbox, 9, &out, 0x013, 0) == 0x0a, "SW2HW_EQ beyond the EQ table gives BAD_INDEX");
	out = 0;
	check(post(&dev, 1ull << 10, 0, &out, 0x012, 0) == 0, "MAP_EQ routes command events to EQ 0");

	/* arm the EQ, then a command in event mode completes through it */
	cx3_bar2_write(&dev, 0x800, __builtin_bswap32(1u << 31), 4);
	wr(&dev, CX3_HCR + 0, 0);
	wr(&dev, CX3_HCR + 4, 0);
	wr(&dev, CX3_HCR + 8, 0x1f);
	wr(&dev, CX3_HCR + 12, 0);
	wr(&dev, CX3_HCR + 16, 0);
	wr(&dev, CX3_HCR + 20, 0x1234u << 16);
	wr(&dev, CX3_HCR + 24, 1u << 23 | 1u << 22 | (uint32_t)toggle << 21 | 0x031);
	toggle ^= 1;
	check(!(rd(&dev, CX3_HCR + 24) & (1u << 23)), "NOP in event mode clears GO");
	check(gp(eq_buf)[1] == 0x0a && cx3_get16(gp(eq_buf), 6) == 0x1234 &&
	      gp(eq_buf)[15] == 0 && gp(eq_buf)[31] == 0x00,
	      "completion EQE carries type 0x0a, the token and status, owned by software");
	check(msix_fired[0] == 1, "the armed EQ fired MSI-X vector 0 once");

	/* the EQ is disarmed now: a second event does not interrupt */
	wr(&dev, CX3_HCR + 24, 1u << 23 | 1u << 22 | (uint32_t)toggle << 21 | 0x031);
	toggle ^= 1;
	check(msix_fired[0] == 1 && gp(eq_buf)[32 + 1] == 0x0a,
	      "a disarmed EQ records the event without interrupting");
	cx3_bar2_write(&dev, 0x800, __builtin_bswap32(1u << 31 | 1), 4);
	check(msix_fired[0] == 2, "re-arming with an entry pending fires at once");

	/* teardown: HW2SW_EQ (no outbox), CLOSE_HCA, unmaps */
	cx3_bar2_write(&dev, 0x800, __builtin_bswap32(2), 4);
	out = 0;
	st = post(&dev, 0, 0, &out, 0x014, 1);
	check(st == 0 && dev.live.eq == 0, "HW2SW_EQ frees the EQ (%d)", st);
	/* a multicast group left with a member is the driver's leak */
	memset(gp(mbox), 0, 4096);
	cx3_put32(gp(mbox), 4, 1);			/* one member */
	cx3_put32(gp(mbox), 0x20, 5);			/* QP 5 */
	check(post(&dev, mbox, 0, &out, 0x026, 0) == 0 && dev.live.mcg == 1,
	      "WRITE_MCG with one member: one group live");
	check(post(&dev, 0, 0, &out, 0x008, 0) == 0, "CLOSE_HCA");
	check(strstr(last_log, "live objects at CLOSE_HCA (driver leaked these): eq=0 cq=0 qp=0 srq=0 mpt=0 mcg=1 ") != NULL,
	      "CLOSE_HCA reports the group left behind as a leak (%s)", last_log);
	check(dev.live.mcg == 0, "CLOSE_HCA drops it");
	check(post(&dev, 0, 1024, &out, 0xff9, 0) == 0, "UNMAP_ICM");
	check(post(&dev, 0, 0, &out, 0xffb, 0) == 0, "UNMAP_ICM_AUX");
	check(post(&dev, 0, 0, &out, 0xffe, 0) == 0, "UNMAP_FA");
	check(dev.live.icm_pages == 0 && dev.live.aux_pages == 0 &&
	      dev.live.fa_pages == 0, "nothing left mapped after teardown");

	cx3_fini(&dev);
	free(mem);
	printf("test_hcr: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the ConnectX-3 model's memory protection table, without a
 * VM, as mlx4_core and mlx4_ib drive it on a native (single-function)
 * card:
 * - registration: SW2HW_MPT with the entry as mlx4_mr_enable builds it
 *   (status "software owns" in the mailbox), the entry kept in the dMPT
 *   table in ICM, hardware-owned;
 * - re-registration as mlx4_ib_rereg_user_mr does it: HW2SW_MPT without a
 *   mailbox, the entry edited in place in ICM (PD, access rights, or a new
 *   translation: start, length, page size and a new MTT range written
 *   straight into ICM), its status byte set back to "hardware owns", then
 *   SYNC_TPT; the data path must follow every change at once;
 * - SYNC_TPT is not disturbed by entries the driver freed long ago, even
 *   once their ICM was unmapped and mapped again with zeroed pages;
 * - a fast-register MR in the free state (ib_alloc_mr): accepted by
 *   SW2HW_MPT, hardware-owned, but no access through it;
 * - the commands' error statuses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"
#include "cx3_mr.h"
#include "mpt.h"

/* guest memory */
#define MBOX		(MEM_BASE)
#define OUTBOX		(MEM_BASE + 0x1000)
#define FA_PA		(MEM_BASE + 0x100000)
#define AUX_PA		(MEM_BASE + 0x140000)
#define DATA_PA		(MEM_BASE + 0x400000)	/* data pages, 4 KiB each */
#define ICM_PA		(MEM_BASE + 0x800000)	/* backs ICM VA 0..0x240000 */
#define DMPT1_PA_A	(MEM_BASE + 0xc00000)	/* dMPT chunk 1, first time */
#define DMPT1_PA_B	(MEM_BASE + 0xc40000)	/* ... and once mapped again */

/* ICM layout: 256 KiB chunks, as the driver maps them */
#define CHUNK		0x40000ull
#define MTT_VA		0x100000ull
#define DMPT_VA		0x200000ull
#define LOG_MPTS	13		/* 8192 entries: two chunks */
#define MPTS_PER_CHUNK	(CHUNK / 64)

#define PD_A		5
#define PD_B		9

static struct cx3_dev dev;

/* the model's last log line, to explain a failed command */
static const char *why(int st)
{
	return st ? last_log : "ok";
}

static int cmd(uint64_t in, uint32_t in_mod, uint16_t op, uint8_t op_mod)
{
	uint64_t out = OUTBOX;

	return post(&dev, in, in_mod, &out, op, op_mod);
}

/* MAP_ICM of one 256 KiB chunk at ICM va, backed by guest pa */
static int map_chunk(uint64_t va, uint64_t pa)
{
	memset(gp(MBOX), 0, 32);
	cx3_put64(gp(MBOX), 0, va);
	cx3_put64(gp(MBOX), 8, pa | 6);		/* 2^6 pages of 4 KiB */
	return cmd(MBOX, 1, 0xffa, 0);
}

static int unmap_chunk(uint64_t va)
{
	return cmd(va, CHUNK >> 12, 0xff9, 0);
}

static uint64_t data_page(unsigned int n)
{
	return DATA_PA + (uint64_t)n * 0x1000;
}

/* the ICM copy of MPT idx, wherever its chunk is backed right now */
static uint64_t dmpt1_pa = DMPT1_PA_A;

static uint8_t *mpt_icm(uint32_t idx)
{
	uint64_t va = DMPT_VA + (uint64_t)idx * 64;

	if (va >= DMPT_VA + CHUNK)
		return gp(dmpt1_pa + (va - DMPT_VA - CHUNK));
	return gp(ICM_PA + va);
}

/* an MTT entry, written straight into ICM as mlx4_write_mtt_chunk does */
static void mtt_write(unsigned int idx, uint64_t pa)
{
	cx3_put64(gp(ICM_PA + MTT_VA), idx * 8, pa | 1);
}

static uint32_t hw_key(uint32_t key)
{
	return key << 24 | key >> 8;
}

static void bringup(void)
{
	uint64_t out = 0;
	uint8_t *m = gp(MBOX);
	unsigned int i;
	bool ok = true;

	memset(m, 0, 4096);
	cx3_put64(m, 8, FA_PA | 6);
	ok &= cmd(MBOX, 1, 0xfff, 0) == 0;		/* MAP_FA */
	ok &= cmd(0, 0, 0xff6, 0) == 0;			/* RUN_FW */
	ok &= post(&dev, 4ull << 20, 0, &out, 0xffd, 0) == 0;	/* SET_ICM_SIZE */
	memset(m, 0, 4096);
	cx3_put64(m, 8, AUX_PA);
	ok &= cmd(MBOX, 1, 0xffc, 0) == 0;		/* MAP_ICM_AUX */
	/* contexts and the MTT, then the first dMPT chunk */
	for (i = 0; i < (DMPT_VA + CHUNK) / CHUNK; i++)
		ok &= map_chunk(i * CHUNK, ICM_PA + i * CHUNK) == 0;
	memset(m, 0, 4096);
	m[0x00] = 2;					/* INIT_HCA version */
	cx3_put64(m, 0x30, 0x000000 | 4);		/* QPC, 16 QPs */
	cx3_put64(m, 0x48, 0x010000 | 4);		/* SRQC */
	cx3_put64(m, 0x50, 0x020000 | 4);		/* CQC */
	cx3_put64(m, 0x80, 0x030000 | 3);		/* EQC */
	cx3_put64(m, 0xc0, 0x040000);			/* MCG */
	m[0xd3] = 10;
	m[0xd7] = 4;
	m[0xdb] = 5;
	cx3_put64(m, 0xf0, DMPT_VA);
	m[0xfb] = LOG_MPTS;
	cx3_put64(m, 0x100, MTT_VA);
	ok &= cmd(MBOX, 0, 0x007, 0) == 0;
	check(ok, "bring-up: firmware, ICM, INIT_HCA (%s)", why(!ok));
}

struct mr {
	uint32_t idx, key, pd, access;
	uint64_t start, length;
	unsigned int mtt;		/* first MTT entry */
};

/* The mailbox of SW2HW_MPT for a user MR, as mlx4_mr_enable fills it. */
static int reg(const struct mr *r)
{
	uint8_t *m = gp(MBOX);

	memset(m, 0, 4096);
	cx3_put32(m, 0x00, ST_SW << 28 | F_MIO | F_REGION | r->access);
	cx3_put32(m, 0x08, hw_key(r->key));
	cx3_put32(m, 0x0c, r->pd | PD_EN_INV);
	cx3_put64(m, 0x10, r->start);
	cx3_put64(m, 0x18, r->length);
	cx3_put64(m, 0x2c, (uint64_t)r->mtt * 8);
	cx3_put32(m, 0x38, 12);
	return cmd(MBOX, r->idx, 0x00d, 0);
}

/* HW2SW_MPT as mlx4_mr_hw_get_mpt sends it: no mailbox (op_mod 1) */
static int hw2sw(uint32_t idx)
{
	return cmd(0, idx, 0x00f, 1);
}

/* mlx4_mr_hw_write_mpt: the status byte to "hardware owns", SYNC_TPT */
static int give_back(uint32_t idx)
{
	mpt_icm(idx)[0] = 0x00;
	return cmd(0, 0, 0x02f, 0);
}

static int rw(const struct mr *r, uint32_t pd, uint64_t va, void *buf,
	      size_t len, unsigned int acc, bool write)
{
	return cx3_mr_rw(&dev, r->key, pd, va, buf, len, acc, write);
}

static void test_register(struct mr *r)
{
	uint8_t buf[16], *e = mpt_icm(r->idx);
	int st;

	/* two pages; the region starts 0x100 into the first */
	memset(gp(data_page(0)), 0x11, 4096);
	memset(gp(data_page(1)), 0x22, 4096);
	memcpy(gp(data_page(0)) + 0x100, "first-pg", 8);
	memcpy(gp(data_page(1)), "second-p", 8);
	mtt_write(r->mtt, data_page(0));
	mtt_write(r->mtt + 1, data_page(1));
	st = reg(r);
	check(st == 0 && dev.live.mpt == 1, "SW2HW_MPT of a user MR (%s)",
	      why(st));
	check(e[0] == 0x00 && cx3_get32(e, 0x08) == hw_key(r->key) &&
	      cx3_get64(e, 0x10) == r->start && cx3_get64(e, 0x18) == r->length &&
	      cx3_get64(e, 0x2c) == r->mtt * 8u &&
	      (cx3_get32(e, 0x0c) & 0x1ffff) == r->pd,
	      "the entry is in the dMPT table in ICM, status hardware-owned");
	check(rw(r, r->pd, r->start, buf, 8, CX3_ACC_LOCAL_READ, false) == 0 &&
	      !memcmp(buf, "first-pg", 8),
	      "a read at the start translates through the first MTT entry");
	check(rw(r, r->pd, r->start + 0xf00, buf, 8, CX3_ACC_REMOTE_READ,
		 false) == 0 && !memcmp(buf, "second-p", 8),
	      "a read 0xf00 in crosses into the second MTT entry's page");
	check(rw(r, r->pd, r->start + r->length - 4, buf, 8, CX3_ACC_LOCAL_READ,
		 false) == CX3_MR_BAD_BOUNDS,
	      "a read past the end is refused (bounds)");
}

/* IB_MR_REREG_PD: mlx4_mr_hw_change_pd keeps the flags of pd_flags */
static void test_rereg_pd(struct mr *r)
{
	uint8_t buf[8], *e = mpt_icm(r->idx);
	uint32_t pdf;
	int st;

	st = hw2sw(r->idx);
	check(st == 0 && dev.live.mpt == 0 && e[0] >> 4 == ST_SW,
	      "rereg PD: HW2SW_MPT without a mailbox, the entry is software-owned (%s)",
	      why(st));
	check(cx3_get64(e, 0x10) == r->start && cx3_get32(e, 0x08) == hw_key(r->key),
	      "rereg PD: the software-owned entry is still in ICM for the driver to edit");
	check(rw(r, r->pd, r->start, buf, 8, CX3_ACC_LOCAL_READ, false) ==
	      CX3_MR_BAD_KEY, "rereg PD: no access while software owns the entry");
	pdf = cx3_get32(e, 0x0c);
	cx3_put32(e, 0x0c, (pdf & ~0x1ffffu) | PD_B | PD_EN_INV);
	st = give_back(r->idx);
	check(st == 0 && dev.live.mpt == 1, "rereg PD: SYNC_TPT takes the entry back (%s)",
	      why(st));
	check(rw(r, PD_B, r->start, buf, 8, CX3_ACC_LOCAL_READ, false) == 0,
	      "rereg PD: a QP of the new PD may use the MR");
	check(rw(r, r->pd, r->start, buf, 8, CX3_ACC_LOCAL_WRITE, true) ==
	      CX3_MR_BAD_PD,
	      "rereg PD: a QP of the old PD is refused (the receive of test_mr_rereg_pd)");
	r->pd = PD_B;
}

/* IB_MR_REREG_ACCESS: mlx4_mr_hw_change_access rewrites the rights bits */
static void test_rereg_access(struct mr *r)
{
	uint8_t buf[8], *e = mpt_icm(r->idx);
	uint32_t f;
	int st;

	check(rw(r, r->pd, r->start, buf, 8, CX3_ACC_REMOTE_WRITE, true) == 0,
	      "rereg access: remote write allowed before");
	st = hw2sw(r->idx);
	f = cx3_get32(e, 0x00);
	cx3_put32(e, 0x00, (f & ~P_MASK) | P_LR | P_LW);
	st |= give_back(r->idx);
	check(st == 0 && dev.live.mpt == 1, "rereg access: HW2SW_MPT, edit, SYNC_TPT (%s)",
	      why(st));
	check(rw(r, r->pd, r->start, buf, 8, CX3_ACC_REMOTE_WRITE, true) ==
	      CX3_MR_BAD_ACCESS, "rereg access: remote write now refused");
	check(rw(r, r->pd, r->start, buf, 8, CX3_ACC_LOCAL_WRITE, true) == 0,
	      "rereg access: local write still allowed");
	st = hw2sw(r->idx);
	f = cx3_get32(e, 0x00);
	cx3_put32(e, 0x00, (f & ~P_MASK) | P_LR | P_LW | P_RR | P_RW | P_ATOMIC);
	st |= give_back(r->idx);
	check(st == 0 && rw(r, r->pd, r->start, buf, 8, CX3_ACC_ATOMIC, true) == 0,
	      "rereg access: the rights given back are in force again");
}

/*
 * IB_MR_REREG_TRANS: the old MTT range is freed, a new one allocated and
 * written into ICM, and the entry gets the new start, length and page
 * size (mlx4_mr_rereg_mem_write: status bits cleared, then "software
 * owns"; mlx4_mr_hw_write_mpt then sets the status byte to 0).
 */
static void test_rereg_trans(struct mr *r)
{
	uint8_t buf[8], *e = mpt_icm(r->idx);
	uint64_t old_start = r->start;
	uint32_t f;
	int st;

	st = hw2sw(r->idx);
	/* the old range goes back to the allocator: its entries are stale */
	mtt_write(r->mtt, data_page(7));
	mtt_write(r->mtt + 1, data_page(7));
	r->mtt = 40;
	r->start = 0x7f00000a0080ull;
	r->length = 0x80;
	memset(gp(data_page(2)), 0x33, 4096);
	memcpy(gp(data_page(2)) + 0x80, "new-addr", 8);
	mtt_write(r->mtt, data_page(2));
	cx3_put64(e, 0x10, r->start);
	cx3_put64(e, 0x18, r->length);
	cx3_put32(e, 0x38, 12);
	f = cx3_get32(e, 0x00) & ~(0xfu << 28);
	cx3_put32(e, 0x00, f | ST_SW << 28);
	cx3_put64(e, 0x2c, (uint64_t)r->mtt * 8);
	st |= give_back(r->idx);
	check(st == 0 && dev.live.mpt == 1, "rereg translation: HW2SW_MPT, edit, SYNC_TPT (%s)",
	      why(st));
	check(rw(r, r->pd, r->start, buf, 8, CX3_ACC_LOCAL_READ, false) == 0 &&
	      !memcmp(buf, "new-addr", 8),
	      "rereg translation: the new address reads the new page, 0x80 into it");
	check(rw(r, r->pd, old_start, buf, 8, CX3_ACC_LOCAL_WRITE, true) ==
	      CX3_MR_BAD_BOUNDS,
	      "rereg translation: the old address is out of bounds (the receive of test_mr_rereg_addr)");
	check(rw(r, r->pd, r->start + 0x7c, buf, 8, CX3_ACC_LOCAL_READ, false) ==
	      CX3_MR_BAD_BOUNDS, "rereg translation: the new length is in force");
	memcpy(buf, "written!", 8);
	check(rw(r, r->pd, r->start + 0x78, buf, 8, CX3_ACC_LOCAL_WRITE, true) == 0 &&
	      !memcmp(gp(data_page(2)) + 0xf8, "written!", 8) &&
	      gp(data_page(7))[0] == 0,
	      "rereg translation: a write lands in the new page, none in the old range's");
}

/*
 * An MR freed long ago whose dMPT chunk the driver unmapped (its last MR
 * gone) and mapped again for a new MR: the new ICM pages are zeroed, so
 * the old entry's status byte reads "hardware owns".  A SYNC_TPT for
 * another MR's re-registration must neither fail nor revive it.
 */
static void test_stale_entry(void)
{
	struct mr old = {
		.idx = MPTS_PER_CHUNK + 5, .key = (MPTS_PER_CHUNK + 5) << 8 | 0x77,
		.pd = PD_A, .access = P_LR | P_LW, .start = 0x10000,
		.length = 0x1000, .mtt = 60,
	};
	struct mr fresh = {
		.idx = MPTS_PER_CHUNK + 6, .key = (MPTS_PER_CHUNK + 6) << 8 | 0x01,
		.pd = PD_A, .access = P_LR | P_LW, .start = 0x20000,
		.length = 0x1000, .mtt = 61,
	};
	unsigned int live = dev.live.mpt;
	uint8_t buf[8];
	int st;

	mtt_write(60, data_page(3));
	mtt_write(61, data_page(4));
	memcpy(gp(data_page(4)), "fresh-mr", 8);
	dmpt1_pa = DMPT1_PA_A;
	memset(gp(DMPT1_PA_A), 0xee, CHUNK);
	memset(gp(DMPT1_PA_B), 0x00, CHUNK);
	st = map_chunk(DMPT_VA + CHUNK, DMPT1_PA_A);
	st |= reg(&old);
	st |= hw2sw(old.idx);
	st |= unmap_chunk(DMPT_VA + CHUNK);
	check(st == 0 && dev.live.mpt == live,
	      "an MR of the second dMPT chunk registered, freed, its chunk unmapped (%s)",
	      why(st));
	dmpt1_pa = DMPT1_PA_B;
	st = map_chunk(DMPT_VA + CHUNK, DMPT1_PA_B);
	st |= reg(&fresh);
	check(st == 0 && dev.live.mpt == live + 1 && mpt_icm(old.idx)[0] == 0,
	      "the chunk mapped again on zeroed pages, a new MR in it");
	st = hw2sw(fresh.idx);
	cx3_put32(mpt_icm(fresh.idx), 0x0c, PD_B | PD_EN_INV);
	st |= give_back(fresh.idx);
	check(st == 0, "SYNC_TPT succeeds although a freed entry's zeroed status reads hardware-owned (%s)",
	      why(st));
	check(dev.live.mpt == live + 1 &&
	      rw(&fresh, PD_B, fresh.start, buf, 8, CX3_ACC_LOCAL_READ, false) == 0 &&
	      !memcmp(buf, "fresh-mr", 8),
	      "the re-registered MR is taken back, and only it");
	check(rw(&old, PD_A, old.start, buf, 8, CX3_ACC_LOCAL_READ, false) ==
	      CX3_MR_BAD_KEY, "the freed MR stays unusable");
	st = hw2sw(fresh.idx);
	st |= unmap_chunk(DMPT_VA + CHUNK);
	check(st == 0 && dev.live.mpt == live, "the new MR freed, the chunk unmapped");
}

/*
 * ib_alloc_mr (IB_MR_TYPE_MEM_REG): mlx4_mr_enable with an MTT of page
 * shift 0 sends the entry in the free state, with fast-register and
 * remote-access-enable in pd_flags, entity size 0, start and length 0.
 */
static void test_free_state(void)
{
	uint32_t idx = 12, key = 12u << 8 | 0x3c;
	unsigned int live = dev.live.mpt;
	uint8_t *m = gp(MBOX), buf[8];
	int st;

	memset(m, 0, 4096);
	cx3_put32(m, 0x00, ST_FREE << 28 | F_MIO | F_REGION | P_LR | P_LW |
		  P_RR | P_RW);
	cx3_put32(m, 0x08, hw_key(key));
	cx3_put32(m, 0x0c, PD_A | PD_EN_INV | PD_FAST_REG | PD_RAE);
	cx3_put64(m, 0x2c, 64 * 8);
	cx3_put32(m, 0x34, 8);				/* MTT size */
	st = cmd(MBOX, idx, 0x00d, 0);
	check(st == 0 && dev.live.mpt == live + 1,
	      "SW2HW_MPT of a fast-register MR in the free state (%s)", why(st));
	check(mpt_icm(idx)[0] >> 4 == ST_FREE,
	      "its entry in ICM stays in the free state");
	check(cx3_mr_rw(&dev, key, PD_A, 0, buf, 8, CX3_ACC_LOCAL_READ, false) ==
	      CX3_MR_BAD_KEY, "no access through a free MR");
	check(hw2sw(idx) == 0 && dev.live.mpt == live, "HW2SW_MPT frees it");
}

static void test_errors(struct mr *r)
{
	uint8_t *o = gp(OUTBOX);
	int st;

	check(reg(r) == 0x09, "SW2HW_MPT of a hardware-owned entry: BAD_RES_STATE");
	check(cmd(0, 0, 0x02f, 0) == 0 && dev.live.mpt == 1,
	      "SYNC_TPT with nothing handed back changes nothing");
	memset(o, 0, 64);
	st = cmd(0, r->idx, 0x00f, 0);
	check(st == 0 && cx3_get32(o, 0x08) == hw_key(r->key) &&
	      cx3_get64(o, 0x10) == r->start && dev.live.mpt == 0,
	      "HW2SW_MPT with a mailbox returns the entry (%s)", why(st));
	check(hw2sw(r->idx) == 0x09, "HW2SW_MPT twice: BAD_RES_STATE");
	check(cmd(MBOX, 1u << LOG_MPTS, 0x00d, 0) == 0x0a,
	      "SW2HW_MPT beyond the table: BAD_INDEX");
	check(cmd(0, 1u << LOG_MPTS, 0x00f, 1) == 0x0a,
	      "HW2SW_MPT beyond the table: BAD_INDEX");
}

int main(void)
{
	enum cx3_cable cable[CX3_NUM_PORTS] = { CX3_CABLE_NONE, CX3_CABLE_NONE };
	struct mr r = {
		.idx = 7, .key = 7u << 8 | 0xa5, .pd = PD_A,
		.access = P_LR | P_LW | P_RR | P_RW | P_ATOMIC,
		.start = 0x7f0000001100ull, .length = 0x1800, .mtt = 16,
	};

	mem = calloc(1, MEM_SIZE);
	if (!mem)
		return 2;
	cx3_init(&dev, &fake_host, 0x0002c90300000300ull, cable);
	wr(&dev, CX3_RESET, 1);
	bringup();
	test_register(&r);
	test_rereg_pd(&r);
	test_rereg_access(&r);
	test_rereg_trans(&r);
	test_stale_entry();
	test_free_state();
	test_errors(&r);
	cx3_fini(&dev);
	free(mem);
	printf("test_mr: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

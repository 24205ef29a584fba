// SPDX-License-Identifier: GPL-2.0
/*
 * A fake platform for the ConnectX-3 model's unit tests: guest memory, MSI-X
 * and log recorders, a check() reporter and a polling-mode command poster.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"

uint8_t *mem;
unsigned int msix_fired[CX3_MSIX_VECTORS];
char last_log[512];
unsigned int logs;
int failures, checks;

static int fake_read(void *o, uint64_t a, void *b, size_t l)
{
	(void)o;
	if (a < MEM_BASE || a + l > MEM_BASE + MEM_SIZE || a + l < a)
		return -1;
	if (b)
		memcpy(b, mem + (a - MEM_BASE), l);
	return 0;
}

static int fake_write(void *o, uint64_t a, const void *b, size_t l)
{
	(void)o;
	if (a < MEM_BASE || a + l > MEM_BASE + MEM_SIZE || a + l < a)
		return -1;
	memcpy(mem + (a - MEM_BASE), b, l);
	return 0;
}

static bool fake_msix_enabled(void *o)
{
	(void)o;
	return true;
}

static void fake_msix_notify(void *o, unsigned int v)
{
	(void)o;
	msix_fired[v]++;
}

static unsigned int fake_msix_live(void *o)
{
	(void)o;
	return 0;
}

static void fake_intx(void *o, int level)
{
	(void)o;
	(void)level;
}

/* every line since log_clear(), newline-separated (the oldest kept) */
static char log_all[1 << 16];
static size_t log_all_len;

static void fake_log(void *o, const char *line)
{
	(void)o;
	snprintf(last_log, sizeof(last_log), "%s", line);
	logs++;
	if (log_all_len + strlen(line) + 2 < sizeof(log_all))
		log_all_len += (size_t)sprintf(log_all + log_all_len, "%s\n", line);
}

void log_clear(void)
{
	log_all_len = 0;
	log_all[0] = 0;
}

bool log_has(const char *needle)
{
	return strstr(log_all, needle) != NULL;
}

void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	checks++;
	printf("%s ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok)
		failures++;
}

/* Guest-side helpers: registers are written as big-endian dwords. */
void wr(struct cx3_dev *d, uint32_t addr, uint32_t v)
{
	cx3_bar0_write(d, addr, __builtin_bswap32(v), 4);
}

uint32_t rd(struct cx3_dev *d, uint32_t addr)
{
	return __builtin_bswap32((uint32_t)cx3_bar0_read(d, addr, 4));
}

int toggle = 1;

/* Post one command in polling mode; returns the status byte. */
int post(struct cx3_dev *d, uint64_t in, uint32_t in_mod, uint64_t *out,
		uint16_t op, uint8_t op_mod)
{
	uint32_t dw6;

	if (rd(d, CX3_HCR + 24) & (1u << 23))
		return -1;
	wr(d, CX3_HCR + 0, in >> 32);
	wr(d, CX3_HCR + 4, (uint32_t)in);
	wr(d, CX3_HCR + 8, in_mod);
	wr(d, CX3_HCR + 12, *out >> 32);
	wr(d, CX3_HCR + 16, (uint32_t)*out);
	wr(d, CX3_HCR + 20, 0xffffu << 16);
	wr(d, CX3_HCR + 24, 1u << 23 | (uint32_t)toggle << 21 |
	   (uint32_t)op_mod << 12 | op);
	toggle ^= 1;
	dw6 = rd(d, CX3_HCR + 24);
	if (dw6 & (1u << 23))
		return -2;		/* still busy: polling would hang */
	*out = (uint64_t)rd(d, CX3_HCR + 12) << 32 | rd(d, CX3_HCR + 16);
	return dw6 >> 24;
}

uint8_t *gp(uint64_t a)
{
	return mem + (a - MEM_BASE);
}

uint64_t fake_now;

static uint64_t fake_now_ms(void *o)
{
	(void)o;
	return fake_now;
}

const struct cx3_host fake_host = {
	.dma_read = fake_read, .dma_write = fake_write,
	.msix_enabled = fake_msix_enabled,
	.msix_notify = fake_msix_notify, .msix_live = fake_msix_live,
	.intx_set = fake_intx, .log = fake_log, .now_ms = fake_now_ms,
};

/* INIT_HCA's mailbox (fake.h) */
void fake_init_hca_layout(uint64_t mbox)
{
	memset(gp(mbox), 0, 4096);
	gp(mbox)[0x00] = 2;
	cx3_put64(gp(mbox), 0x30, 0x000000 | 6);	/* QPC, 64 QPs */
	cx3_put64(gp(mbox), 0x48, 0x010000 | 4);	/* SRQC */
	cx3_put64(gp(mbox), 0x50, 0x020000 | 6);	/* CQC */
	cx3_put64(gp(mbox), 0x80, 0x030000 | 3);	/* EQC */
	cx3_put64(gp(mbox), 0xc0, 0x040000);		/* MCG */
	gp(mbox)[0xd3] = 10;
	gp(mbox)[0xd7] = 4;
	gp(mbox)[0xdb] = 5;
	cx3_put64(gp(mbox), 0xf0, 0x050000);		/* dMPT */
	gp(mbox)[0xfb] = 8;
	cx3_put64(gp(mbox), 0x100, 0x100000);		/* MTT */
}

/* the probe's bring-up (fake.h) */
int fake_bring_up(struct cx3_dev *dev)
{
	const uint64_t mbox = MEM_BASE, pages = MEM_BASE + 0x100000;
	const uint64_t icm_pa = MEM_BASE + 0x800000, eq_buf = FAKE_EQ_BUF;
	uint64_t out = 0;
	int bad = 0, i;

	toggle = 1;
	memset(gp(mbox), 0, 4096);
	cx3_put64(gp(mbox), 8, pages | 6);
	bad += post(dev, mbox, 1, &out, 0xfff, 0) != 0;	/* MAP_FA */
	bad += post(dev, 0, 0, &out, 0xff6, 0) != 0;		/* RUN_FW */
	out = 0;
	bad += post(dev, 64ull << 20, 0, &out, 0xffd, 0) != 0;	/* SET_ICM_SIZE */
	memset(gp(mbox), 0, 4096);
	cx3_put64(gp(mbox), 8, pages + 0x40000);
	bad += post(dev, mbox, 1, &out, 0xffc, 0) != 0;	/* MAP_ICM_AUX */
	memset(gp(mbox), 0, 4096);
	for (i = 0; i < 16; i++) {
		cx3_put64(gp(mbox), i * 16, (uint64_t)i << 18);
		cx3_put64(gp(mbox), i * 16 + 8, (icm_pa + ((uint64_t)i << 18)) | 6);
	}
	bad += post(dev, mbox, 16, &out, 0xffa, 0) != 0;	/* MAP_ICM */

	fake_init_hca_layout(mbox);
	bad += post(dev, mbox, 0, &out, 0x007, 0) != 0;	/* INIT_HCA */

	/* EQ 0: 64 entries in one page, MTT entry 0 */
	memset(gp(icm_pa + 0x100000), 0, 8);
	cx3_put64(gp(icm_pa + 0x100000), 0, eq_buf | 1);
	memset(gp(eq_buf), 0, 4096);
	memset(gp(mbox), 0, 4096);
	gp(mbox)[0x0c] = 6;
	bad += post(dev, mbox, 0, &out, 0x013, 0) != 0;	/* SW2HW_EQ */
	bad += post(dev, 1ull << 10 | 1ull << 9, 0, &out, 0x012, 0) != 0;
	cx3_bar2_write(dev, 0x800, __builtin_bswap32(1u << 31), 4);
	bad += post(dev, 0, 1, &out, 0x009, 0) != 0;		/* INIT_PORT 1 */
	bad += post(dev, 0, 2, &out, 0x009, 0) != 0;		/* INIT_PORT 2 */
	return bad;
}

bool fake_start(struct cx3_dev *dev)
{
	enum cx3_cable cable[CX3_NUM_PORTS] = { CX3_CABLE_LOOP, CX3_CABLE_LOOP };

	mem = calloc(1, MEM_SIZE);
	if (!mem)
		return false;
	cx3_init(dev, &fake_host, 0x0002c90300000100ull, cable);
	check(rd(dev, CX3_OWNERSHIP) == 0, "driver takes ownership");
	check(fake_bring_up(dev) == 0, "bring-up: firmware, ICM, INIT_HCA, EQ 0, ports");
	return true;
}

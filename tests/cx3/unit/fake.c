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

static void fake_log(void *o, const char *line)
{
	(void)o;
	snprintf(last_log, sizeof(last_log), "%s", line);
	logs++;
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

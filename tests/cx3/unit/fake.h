/* SPDX-License-Identifier: GPL-2.0 */
/* The fake platform of the ConnectX-3 model's unit tests (fake.c). */
#ifndef CX3_FAKE_H
#define CX3_FAKE_H

#include "cx3.h"

#define MEM_BASE	0x100000ull
#define MEM_SIZE	(64u << 20)

extern uint8_t *mem;
extern unsigned int msix_fired[CX3_MSIX_VECTORS];
extern char last_log[512];
extern unsigned int logs;
extern int failures, checks;
extern int toggle;
extern uint64_t fake_now;
extern const struct cx3_host fake_host;

void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void wr(struct cx3_dev *d, uint32_t addr, uint32_t v);
uint32_t rd(struct cx3_dev *d, uint32_t addr);
/* Post one command in polling mode; returns the status byte, or < 0. */
int post(struct cx3_dev *d, uint64_t in, uint32_t in_mod, uint64_t *out,
	 uint16_t op, uint8_t op_mod);
uint8_t *gp(uint64_t guest_addr);
/* the model's log lines since log_clear(): does one contain needle? */
void log_clear(void);
bool log_has(const char *needle);
/*
 * What a driver has after its probe: firmware, ICM, INIT_HCA, EQ 0 (64
 * entries at FAKE_EQ_BUF) taking command and port-change events, armed,
 * both ports initialised.  Returns the number of steps that failed.
 */
/* INIT_HCA's mailbox at mbox: a small layout inside the first 4 MiB of ICM */
void fake_init_hca_layout(uint64_t mbox);
#define FAKE_EQ_BUF	(MEM_BASE + 0x400000)
int fake_bring_up(struct cx3_dev *dev);
/*
 * A test's start: guest memory, a card with port 1 cabled to port 2, the
 * driver's ownership and fake_bring_up, the last two as checks.  False if
 * there is no memory.
 */
bool fake_start(struct cx3_dev *dev);

#endif /* CX3_FAKE_H */

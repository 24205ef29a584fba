// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the ConnectX-3 model's internal error, without a VM: after
 * cx3_raise_catas the catastrophic-error buffer reads the syndrome, the
 * firmware executes no command, raises no event and ignores doorbells;
 * the reset register brings back a fresh card that goes through the whole
 * bring-up again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"

static const uint64_t mbox = MEM_BASE, outbox = MEM_BASE + 0x1000;
static const uint64_t eq_buf = FAKE_EQ_BUF;

#define bring_up fake_bring_up

int main(void)
{
	enum cx3_cable cable[CX3_NUM_PORTS] = { CX3_CABLE_LOOP, CX3_CABLE_LOOP };
	static struct cx3_dev dev;
	uint64_t out;
	uint32_t dw6, any;
	unsigned int fired, i;
	int st;

	mem = calloc(1, MEM_SIZE);
	if (!mem)
		return 2;
	cx3_init(&dev, &fake_host, 0x0002c90300000100ull, cable);

	check(rd(&dev, CX3_OWNERSHIP) == 0, "driver takes ownership");
	check(bring_up(&dev) == 0, "bring-up: firmware, ICM, INIT_HCA, EQ, ports");
	check(dev.port[0].state == CX3_PORT_INIT && dev.port[1].state == CX3_PORT_INIT,
	      "both ports up (INIT) over the loopback cable");
	any = 0;
	for (i = 0; i < CX3_CATAS_DWORDS; i++)
		any |= rd(&dev, CX3_CATAS + 4 * i);
	check(any == 0, "a healthy card's catastrophic-error buffer reads 0");

	/* control: a healthy card reports a cable pull on its EQ */
	fired = msix_fired[0];
	cx3_port_set_plugged(&dev, 1, false);
	check(gp(eq_buf)[1] == 0x09 && msix_fired[0] == fired + 1,
	      "healthy: a pulled cable raises a port-change event");
	cx3_port_set_plugged(&dev, 1, true);
	cx3_bar2_write(&dev, 0x800, __builtin_bswap32(1u << 31 | 1), 4);
	memset(gp(eq_buf) + 32, 0, 32 * 63);

	/* SET_NODE: a node description the reset must forget */
	memset(gp(mbox), 0, 64);
	memcpy(gp(mbox), "before the error", 16);
	out = 0;
	check(post(&dev, mbox, 0, &out, 0x05a, 0) == 0 &&
	      !strcmp(dev.node_desc, "before the error"), "SET_NODE sets the node description");

	/* the internal error */
	logs = 0;
	cx3_raise_catas(&dev, 0x2d);
	check(logs == 1 && strstr(last_log, "internal error"),
	      "raising the error is logged: %s", last_log);
	check(rd(&dev, CX3_CATAS) == 0x2d, "the catastrophic-error buffer reads the syndrome");
	check(cx3_dead(&dev), "the card is dead");
	wr(&dev, CX3_CATAS, 0);
	check(rd(&dev, CX3_CATAS) == 0x2d, "the driver cannot clear the buffer by writing it");

	out = outbox;
	memset(gp(outbox), 0xa5, 16);
	st = post(&dev, 0, 0, &out, 0x004, 0);
	dw6 = rd(&dev, CX3_HCR + 24);
	check(st == -2 && (dw6 & (1u << 23)) && gp(outbox)[0] == 0xa5,
	      "a command is not executed: GO stays set, no output (%d)", st);
	check(strstr(last_log, "not executed") != NULL, "the refused command is logged");
	out = 0;
	check(post(&dev, 0, 0, &out, 0x031, 0) == -1,
	      "the HCR stays busy for the next command");

	fired = msix_fired[0];
	cx3_port_set_plugged(&dev, 1, false);
	check(gp(eq_buf)[32 + 1] == 0 && msix_fired[0] == fired,
	      "dead: a pulled cable raises no event and no interrupt");
	cx3_bar2_write(&dev, 0x800, __builtin_bswap32(1u << 31 | 1), 4);
	check(msix_fired[0] == fired, "dead: EQ doorbells are ignored");
	check(dev.live.eq == 1 && dev.hca.initialised,
	      "dead: the card's state waits for the reset");

	/* the driver's recovery: reset through the reset register */
	wr(&dev, CX3_RESET, 1);
	any = 0;
	for (i = 0; i < CX3_CATAS_DWORDS; i++)
		any |= rd(&dev, CX3_CATAS + 4 * i);
	check(any == 0 && !cx3_dead(&dev), "reset clears the catastrophic-error buffer");
	dw6 = rd(&dev, CX3_HCR + 24);
	check(!(dw6 & (1u << 23)) && !(dw6 & (1u << 21)), "reset: HCR idle (GO=0, T=0)");
	check(dev.live.eq == 0 && dev.live.icm_pages == 0 && dev.live.aux_pages == 0 &&
	      dev.live.fa_pages == 0 && !dev.hca.initialised && !dev.fw_running,
	      "reset: no object, map or firmware state left");
	check(dev.port[0].state == CX3_PORT_DOWN && !dev.port[0].phy_enabled,
	      "reset: ports down until INIT_PORT");
	check(rd(&dev, CX3_OWNERSHIP) == 0, "reset: ownership free for the next driver");
	check(!dev.node_desc[0], "reset: the node description SET_NODE gave is gone");

	/* a fresh card: the whole bring-up again (INIT_HCA would be refused otherwise) */
	out = 0;
	st = post(&dev, 0, 0, &out, 0x003, 0);
	check(st == 4, "fresh: QUERY_DEV_CAP before RUN_FW refused again (%d)", st);
	out = outbox;
	check(post(&dev, 0, 0, &out, 0x004, 0) == 0, "fresh: QUERY_FW answers");
	cx3_port_set_plugged(&dev, 1, true);
	check(bring_up(&dev) == 0, "fresh: the whole bring-up succeeds again");
	check(dev.port[0].state == CX3_PORT_INIT && dev.port[1].state == CX3_PORT_INIT,
	      "fresh: both ports up again");
	fired = msix_fired[0];
	cx3_port_set_plugged(&dev, 2, false);
	check(gp(eq_buf)[1] == 0x09 && msix_fired[0] == fired + 1,
	      "fresh: events flow again");

	cx3_raise_catas(&dev, 0);
	check(rd(&dev, CX3_CATAS) != 0, "syndrome 0 still marks the buffer");
	wr(&dev, CX3_RESET, 1);
	check(!cx3_dead(&dev), "and a reset clears it");

	cx3_fini(&dev);
	free(mem);
	printf("test_catas: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

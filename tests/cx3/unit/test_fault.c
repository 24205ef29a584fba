// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the ConnectX-3 model's injected faults (cx3_fault.c),
 * without a VM: each fires once on what it was armed for (the right
 * opcode, the right event type, the right port), as many times as it was
 * counted for, logs "fault: ...", and the card then behaves as before; a
 * hung command holds the HCR until the reset, which ends it; the EQ
 * overrun's overflow event; a flapping link's timing; the specs the
 * properties refuse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"

#define OP_QUERY_FW	0x004
#define OP_MAP_EQ	0x012
#define OP_NOP		0x031
#define EV_PORT_CHANGE	0x09
#define EV_CMD		0x0a
#define EV_OVERFLOW	0x0f

static const uint64_t outbox = MEM_BASE + 0x1000;
static struct cx3_dev dev;
static unsigned int k;		/* the next EQE of EQ 0 the driver reads */

static uint8_t *eqe(unsigned int i)
{
	return gp(FAKE_EQ_BUF + 32 * (i % 64));
}

/* The driver consumed up to k and re-arms EQ 0. */
static void eq_ack(void)
{
	cx3_bar2_write(&dev, 0x800, __builtin_bswap32(1u << 31 | k), 4);
}

/* Post a command in event mode; true if GO cleared. */
static bool post_ev(uint16_t op, uint32_t in_mod, uint16_t token)
{
	wr(&dev, CX3_HCR + 0, 0);
	wr(&dev, CX3_HCR + 4, 0);
	wr(&dev, CX3_HCR + 8, in_mod);
	wr(&dev, CX3_HCR + 12, 0);
	wr(&dev, CX3_HCR + 16, 0);
	wr(&dev, CX3_HCR + 20, (uint32_t)token << 16);
	wr(&dev, CX3_HCR + 24, 1u << 23 | 1u << 22 | (uint32_t)toggle << 21 | op);
	toggle ^= 1;
	return !(rd(&dev, CX3_HCR + 24) & (1u << 23));
}

static int arm(const char *name, const char *spec)
{
	char err[160];

	return cx3_fault_set(&dev, name, spec, err, sizeof(err));
}

static bool armed_is(const char *name, const char *want)
{
	char buf[64];

	cx3_fault_get(&dev, name, buf, sizeof(buf));
	return !strcmp(buf, want);
}

static int nop(void)
{
	uint64_t out = 0;

	return post(&dev, 0, 0, &out, OP_NOP, 0);
}

static void test_specs(void)
{
	static const char *const bad[][2] = {
		{ "cmd-hang", "" }, { "cmd-hang", "0x1000" }, { "cmd-hang", "0x16:0" },
		{ "cmd-hang", "0x16:" }, { "cmd-hang", "0x0x16" }, { "cmd-hang", "16x" },
		{ "cmd-hang", "-1" }, { "cmd-hang", "0x16:2:" }, { "cmd-hang", "0x16:1001" },
		{ "cmd-hang", " 0x16" }, { "cmd-hang", "0x" },
		{ "cmd-status", "0x16" }, { "cmd-status", "0x16:0" },
		{ "cmd-status", "0x16:0x100" }, { "cmd-status", "0x16::1" },
		{ "eq-overrun", "0x40" }, { "eq-overrun", "anyx" }, { "eq-overrun", "any:" },
		{ "flap1", "0" }, { "flap1", "1:5" }, { "flap1", "1:" }, { "flap2", "1:60001" },
		{ "flap3", "1" }, { "cmd-hung", "0x16" },
	};
	unsigned int i, refused = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (arm(bad[i][0], bad[i][1]) == 0)
			printf("  %s '%s' was taken\n", bad[i][0], bad[i][1]);
		else
			refused++;
	}
	check(refused == sizeof(bad) / sizeof(bad[0]),
	      "specs: %u of %zu malformed specs refused", refused, sizeof(bad) / sizeof(bad[0]));
	check(armed_is("cmd-hang", "off") && armed_is("cmd-status", "off") &&
	      armed_is("eq-overrun", "off") && armed_is("flap1", "off") &&
	      dev.fault.fired == 0, "specs: nothing armed by them, nothing fired");
	check(arm("cmd-hang", "0x16") == 0 && armed_is("cmd-hang", "0x016:1") &&
	      arm("cmd-hang", "0xffff:3") == 0 && armed_is("cmd-hang", "0xffff:3") &&
	      arm("cmd-status", "22:0x0c:2") == 0 && armed_is("cmd-status", "0x016:0x0c:2") &&
	      arm("eq-overrun", "any") == 0 && armed_is("eq-overrun", "any:1") &&
	      arm("eq-overrun", "0x9:2") == 0 && armed_is("eq-overrun", "0x09:2"),
	      "specs: good ones armed and read back (hex or decimal, counts)");
	check(arm("cmd-hang", "off") == 0 && arm("cmd-status", "off") == 0 &&
	      arm("eq-overrun", "off") == 0 && armed_is("cmd-hang", "off") &&
	      armed_is("cmd-status", "off") && armed_is("eq-overrun", "off"),
	      "specs: off disarms");
}

static void test_cmd_status(void)
{
	uint64_t out = outbox, fired = dev.fault.fired;
	bool done;
	int st;

	log_clear();
	check(arm("cmd-status", "0x031:0x0c") == 0 && log_has("fault: cmd-status armed"),
	      "status: armed for NOP, logged");
	check(post(&dev, 0, 0, &out, OP_QUERY_FW, 0) == 0,
	      "status: another opcode (QUERY_FW) runs as usual");
	st = nop();
	check(st == 0x0c && log_has("fault: command NOP (0x031"),
	      "status: NOP answers the armed status 0x0c, logged (%d)", st);
	check(nop() == 0 && dev.fault.fired == fired + 1 && armed_is("cmd-status", "off"),
	      "status: one-shot, the next NOP succeeds");

	/* not executed: MAP_EQ would unmap command events */
	arm("cmd-status", "0x012:0x01");
	out = 0;
	st = post(&dev, 1ull << 10, 1u << 31, &out, OP_MAP_EQ, 0);
	check(st == 1 && dev.events, "status: the failed MAP_EQ was not executed (%d, events %d)",
	      st, dev.events);

	arm("cmd-status", "0x031:0x01:2");
	check(nop() == 1 && nop() == 1 && nop() == 0,
	      "status: counted twice: two NOPs fail, the third succeeds");
	arm("cmd-status", "0xffff:0x10");
	out = outbox;
	check(post(&dev, 0, 0, &out, OP_QUERY_FW, 0) == 0x10 && nop() == 0,
	      "status: opcode 0xffff takes any command, once");

	/* event mode: the status goes in the completion EQE */
	arm("cmd-status", "0x031:0x06");
	done = post_ev(OP_NOP, 0x1f, 0x1234);
	check(done && eqe(k)[1] == EV_CMD &&
	      cx3_get16(eqe(k), 6) == 0x1234 && eqe(k)[15] == 0x06,
	      "status: in event mode the completion EQE carries it (type 0x%02x, status 0x%02x)",
	      eqe(k)[1], eqe(k)[15]);
	k++;
	eq_ack();
	check(post_ev(OP_NOP, 0x1f, 0x1235) && eqe(k)[15] == 0,
	      "status: the next event-mode NOP completes with status 0");
	k++;
	eq_ack();
}

static void test_cmd_hang(void)
{
	uint64_t out = outbox, fired = dev.fault.fired;
	uint32_t dw6;
	int st;

	log_clear();
	arm("cmd-hang", "0x031");
	check(post(&dev, 0, 0, &out, OP_QUERY_FW, 0) == 0,
	      "hang: another opcode (QUERY_FW) runs as usual");
	check(!post_ev(OP_NOP, 0x1f, 0x4321),
	      "hang: the NOP in event mode leaves GO set");
	check(eqe(k)[1] == 0 && eqe(k)[31] == 0x80,
	      "hang: no completion EQE (the next entry still the card's)");
	check(log_has("fault: command NOP (0x031") && log_has("hangs"),
	      "hang: logged as a fault");
	st = nop();
	check(st == -1, "hang: the HCR stays busy for the next command (%d)", st);
	check(dev.fault.fired == fired + 1 && armed_is("cmd-hang", "off"),
	      "hang: fired once and disarmed");

	log_clear();
	wr(&dev, CX3_RESET, 1);
	dw6 = rd(&dev, CX3_HCR + 24);
	check(!(dw6 & (1u << 23)) && log_has("fault: the reset ends hung command NOP (0x031)"),
	      "hang: the reset ends the hung command (GO clear, logged)");
	check(fake_bring_up(&dev) == 0, "hang: the whole bring-up works after the reset");
	k = 0;
	check(nop() == 0, "hang: NOP works again (one-shot)");

	/* counted: the fault outlives the reset, the hung command does not */
	arm("cmd-hang", "0x031:2");
	check(nop() == -2, "hang twice: the first NOP hangs");
	wr(&dev, CX3_RESET, 1);
	check(fake_bring_up(&dev) == 0 && nop() == -2,
	      "hang twice: after a reset and bring-up the second NOP hangs");
	wr(&dev, CX3_RESET, 1);
	check(fake_bring_up(&dev) == 0 && nop() == 0 && !dev.fault.hung,
	      "hang twice: after another reset the third NOP completes");

	arm("cmd-hang", "0xffff");
	out = outbox;
	check(post(&dev, 0, 0, &out, OP_QUERY_FW, 0) == -2, "hang: opcode 0xffff takes any command");
	wr(&dev, CX3_RESET, 1);
	check(fake_bring_up(&dev) == 0 && nop() == 0, "hang: and a reset ends it too");
	k = 0;
}

static void test_eq_overrun(void)
{
	uint64_t fired = dev.fault.fired;
	unsigned int irq;

	log_clear();
	check(arm("eq-overrun", "0x09") == 0, "overrun: armed for port-change events");
	check(post_ev(OP_NOP, 0x1f, 0x0101) && eqe(k)[1] == EV_CMD,
	      "overrun: a command completion (another type) goes through");
	k++;
	eq_ack();
	irq = msix_fired[0];
	/* the loopback cable: both ports lose their link, port 1 first */
	cx3_port_set_plugged(&dev, 1, false);
	check(eqe(k)[1] == EV_OVERFLOW && cx3_get32(eqe(k), 4) == 0,
	      "overrun: port 1's event is lost, the overflow event (0x0f, EQN 0) in its place (type 0x%02x)",
	      eqe(k)[1]);
	check(msix_fired[0] == irq + 1, "overrun: the armed EQ interrupts for it");
	check(eqe(k + 1)[1] == EV_PORT_CHANGE && eqe(k + 1)[3] == 1 && eqe(k + 1)[12] == 0x20,
	      "overrun: port 2's event, the next one, is written as usual");
	check(log_has("fault: EQ 0 overruns: event type 0x09 lost") &&
	      dev.fault.fired == fired + 1 && armed_is("eq-overrun", "off"),
	      "overrun: logged, fired once, disarmed");
	k += 2;
	eq_ack();
	cx3_port_set_plugged(&dev, 1, true);
	cx3_port_set_plugged(&dev, 1, false);
	check(eqe(k)[1] == EV_PORT_CHANGE && eqe(k + 1)[1] == EV_PORT_CHANGE,
	      "overrun: the next cable pull's two events both arrive");
	k += 2;
	eq_ack();
	cx3_port_set_plugged(&dev, 1, true);

	arm("eq-overrun", "0x00:2");
	check(post_ev(OP_NOP, 0x1f, 0x0102) && eqe(k)[1] == EV_CMD &&
	      armed_is("eq-overrun", "0x00:2"),
	      "overrun: armed for completion events, a command completion is not taken");
	k++;
	eq_ack();
	arm("eq-overrun", "any");
	check(post_ev(OP_NOP, 0x1f, 0x0103) && eqe(k)[1] == EV_OVERFLOW,
	      "overrun: 'any' takes the next event whatever its type");
	k++;
	eq_ack();
	check(post_ev(OP_NOP, 0x1f, 0x0104) && eqe(k)[1] == EV_CMD,
	      "overrun: and only that one");
	k++;
	eq_ack();
}

/* A full EQ (not injected): the event is lost, reported once there is room. */
static void test_real_overflow(void)
{
	unsigned int i, start = k;

	log_clear();
	for (i = 0; i < 65; i++)
		post_ev(OP_NOP, 0x1f, (uint16_t)(0x200 + i));
	check(log_has("EQ 0 overflow: event type 0x0a lost") &&
	      cx3_get16(eqe(start), 6) == 0x200,
	      "overflow: the 65th event on a full 64-entry EQ is lost, no entry overwritten");
	k = start + 1;
	eq_ack();
	check(eqe(start + 64)[1] == EV_OVERFLOW,
	      "overflow: once the driver frees an entry the overflow event is written in it");
}

static void test_flap(void)
{
	uint64_t fired = dev.fault.fired;

	log_clear();
	fake_now = 1000;
	check(arm("flap1", "2:100") == 0 && dev.port[0].pulled && dev.port[1].pulled &&
	      dev.port[0].state == CX3_PORT_DOWN && cx3_needs_poll(&dev),
	      "flap: the link goes down at once (both ends of the loopback cable), the poll runs");
	check(armed_is("flap1", "2:100"), "flap: reads back as armed");
	fake_now = 1099;
	cx3_poll(&dev);
	check(dev.port[0].pulled, "flap: still down after 99 ms");
	fake_now = 1100;
	cx3_poll(&dev);
	check(!dev.port[0].pulled && dev.port[0].phys_state == CX3_PHYS_LINKUP &&
	      dev.port[0].state == CX3_PORT_INIT, "flap: up again after 100 ms (LinkUp, INIT)");
	fake_now = 1200;
	cx3_poll(&dev);
	check(dev.port[0].pulled, "flap: down again at 200 ms");
	fake_now = 1300;
	cx3_poll(&dev);
	check(!dev.port[0].pulled && dev.port[0].phys_state == CX3_PHYS_LINKUP &&
	      !cx3_fault_busy(&dev) && armed_is("flap1", "off"),
	      "flap: up at 300 ms, and done after 2 cycles");
	check(dev.fault.fired == fired + 4 && log_has("fault: port 1 flaps: link down"),
	      "flap: 4 transitions, each logged as a fault");
	fake_now = 2000;
	cx3_poll(&dev);
	check(!dev.port[0].pulled, "flap: no more transitions afterwards");

	cx3_port_set_plugged(&dev, 1, false);
	check(arm("flap1", "1") == -1, "flap: refused while the cable is pulled");
	cx3_port_set_plugged(&dev, 1, true);
	check(arm("flap2", "5:100") == 0 && dev.port[1].pulled &&
	      arm("flap2", "1") == -1, "flap: a second flap is refused while one runs");
	check(arm("flap2", "off") == 0 && !dev.port[1].pulled && !cx3_fault_busy(&dev),
	      "flap: off stops it with the cable plugged in");
}

int main(void)
{
	if (!fake_start(&dev))
		return 2;
	k = 0;

	test_specs();
	test_cmd_status();
	test_cmd_hang();
	test_eq_overrun();
	test_real_overflow();
	test_flap();

	cx3_fini(&dev);
	free(mem);
	printf("test_fault: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: injected faults, for testing what a driver does when
 * the card misbehaves as real ones do.  Armed at run time by name and a
 * textual spec (the glue's string properties of the same names):
 *
 *   cmd-hang OP[:N]	the next N (default 1) commands with opcode OP
 *			(0xffff: any) never complete: GO stays set, no
 *			status, no completion event, nothing executed.  The
 *			HCR stays busy until the driver resets the card.
 *   cmd-status OP:ST[:N] the next N commands with opcode OP are not
 *			executed and complete with firmware status ST (1..0xff),
 *			by the HCR or by event as the driver asked.
 *   eq-overrun TYPE[:N] the next N events of type TYPE (0..0x3f, or any)
 *			overrun the EQ they go to, as if the driver had left
 *			it full: the event is lost and the EQ's overflow event
 *			(0x0f) is written in its place (cx3_eq.c).
 *   flap1/flap2 N[:MS]	port N's cable goes down and up N times, each
 *			state lasting MS ms (default 200, 10..60000): a
 *			flapping link.  Refused while the cable is pulled.
 *
 * Numbers are decimal or 0x-prefixed hex; "off" disarms.  Every fault that
 * fires logs a line starting "fault: ", so that a test can tell it did.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cx3.h"

/* ---------------------------------------------------------------------- */
/* Parsing: strict, the whole spec or nothing */

/*
 * One number at *p (0x-prefixed hex or decimal), ending at ':' or the end
 * of the spec; *p is left on that ':' or end.
 */
static int parse_num(const char **p, unsigned long max, unsigned long *out)
{
	const char *s = *p;
	char *end;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
	}
	if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return -1;	/* strtoul would take a second prefix */
	if (!((s[0] >= '0' && s[0] <= '9') ||
	      (base == 16 && ((s[0] >= 'a' && s[0] <= 'f') ||
			      (s[0] >= 'A' && s[0] <= 'F')))))
		return -1;
	*out = strtoul(s, &end, base);
	if (end - s > 8 || *out > max || (*end && *end != ':'))
		return -1;
	*p = end;
	return 0;
}

/* Past one ':' at *p: true if there was one. */
static bool colon(const char **p)
{
	if (**p != ':')
		return false;
	(*p)++;
	return true;
}

/* The spec's end, or ":N" and its end: the count (1..CX3_FAULT_MAX_COUNT). */
static int parse_count(const char *p, unsigned long *n)
{
	*n = 1;
	if (!*p)
		return 0;
	if (!colon(&p) || parse_num(&p, CX3_FAULT_MAX_COUNT, n) || *p || !*n)
		return -1;
	return 0;
}

static const char *op_name(uint16_t op)
{
	const char *n;

	if (op == CX3_FAULT_ANY_OP)
		return "any";
	n = cx3_cmd_name(op);
	return n ? n : "unknown";
}

static int set_cmd_hang(struct cx3_dev *dev, const char *spec)
{
	unsigned long op, n;
	const char *p = spec;

	if (parse_num(&p, 0xffff, &op) || (op > 0xfff && op != CX3_FAULT_ANY_OP) ||
	    parse_count(p, &n))
		return -1;
	dev->fault.hang_op = op;
	dev->fault.hang_left = n;
	cx3_log(dev, "fault: cmd-hang armed: the next %lu command(s) with opcode 0x%03lx (%s) will never complete",
		n, op, op_name(op));
	return 0;
}

static int set_cmd_status(struct cx3_dev *dev, const char *spec)
{
	unsigned long op, st, n;
	const char *p = spec;

	if (parse_num(&p, 0xffff, &op) || (op > 0xfff && op != CX3_FAULT_ANY_OP) ||
	    !colon(&p) || parse_num(&p, 0xff, &st) || !st || parse_count(p, &n))
		return -1;
	dev->fault.status_op = op;
	dev->fault.status = st;
	dev->fault.status_left = n;
	cx3_log(dev, "fault: cmd-status armed: the next %lu command(s) with opcode 0x%03lx (%s) will fail with status 0x%02lx",
		n, op, op_name(op), st);
	return 0;
}

static int set_eq_overrun(struct cx3_dev *dev, const char *spec)
{
	unsigned long type, n;
	const char *p = spec;

	if (!strncmp(p, "any", 3) && (!p[3] || p[3] == ':')) {
		type = CX3_FAULT_ANY_EVENT;
		p += 3;
	} else if (parse_num(&p, 0x3f, &type)) {
		return -1;
	}
	if (parse_count(p, &n))
		return -1;
	dev->fault.eq_type = type;
	dev->fault.eq_left = n;
	if (type == CX3_FAULT_ANY_EVENT)
		cx3_log(dev, "fault: eq-overrun armed: the next %lu event(s) of any type will overrun their EQ",
			n);
	else
		cx3_log(dev, "fault: eq-overrun armed: the next %lu event(s) of type 0x%02lx will overrun their EQ",
			n, type);
	return 0;
}

static uint64_t now_ms(struct cx3_dev *dev)
{
	return dev->host.now_ms ? dev->host.now_ms(dev->host.opaque) : 0;
}

/* One transition of a flapping link: odd ones pull the cable, even plug. */
static void flap_step(struct cx3_dev *dev, int port)
{
	struct cx3_fault_flap *f = &dev->fault.flap[port - 1];
	bool down = f->left % 2 == 0;

	f->left--;
	dev->fault.fired++;
	cx3_log(dev, "fault: port %d flaps: link %s (%u transition(s) to go)",
		port, down ? "down" : "up", f->left);
	cx3_port_set_plugged(dev, port, !down);
	f->next = now_ms(dev) + f->ms;
}

static int set_flap(struct cx3_dev *dev, int port, const char *spec)
{
	struct cx3_fault_flap *f = &dev->fault.flap[port - 1];
	unsigned long n, ms = CX3_FAULT_FLAP_MS;
	const char *p = spec;

	if (parse_num(&p, CX3_FAULT_MAX_COUNT, &n) || !n)
		return -1;
	if (colon(&p) && (parse_num(&p, 60000, &ms) || ms < 10))
		return -1;
	if (*p)
		return -1;
	if (f->left) {
		cx3_log(dev, "fault: flap%d refused: port %d already flaps", port, port);
		return -1;
	}
	if (dev->port[port - 1].pulled) {
		cx3_log(dev, "fault: flap%d refused: port %d's cable is pulled", port, port);
		return -1;
	}
	cx3_log(dev, "fault: flap%d armed: port %d's link goes down and up %lu time(s), %lu ms each",
		port, port, n, ms);
	f->ms = ms;
	f->left = 2 * n;
	flap_step(dev, port);
	return 0;
}

/* Stop a flap: the cable ends plugged in, as it was before. */
static void flap_off(struct cx3_dev *dev, int port)
{
	struct cx3_fault_flap *f = &dev->fault.flap[port - 1];

	if (!f->left)
		return;
	cx3_log(dev, "fault: flap%d stopped with %u transition(s) to go", port, f->left);
	f->left = 0;
	cx3_port_set_plugged(dev, port, true);
}

int cx3_fault_set(struct cx3_dev *dev, const char *name, const char *spec,
		  char *err, size_t errlen)
{
	bool off = !strcmp(spec, "off");
	int r = -1;

	if (!strcmp(name, "cmd-hang")) {
		if (off)
			dev->fault.hang_left = 0;
		r = off ? 0 : set_cmd_hang(dev, spec);
	} else if (!strcmp(name, "cmd-status")) {
		if (off)
			dev->fault.status_left = 0;
		r = off ? 0 : set_cmd_status(dev, spec);
	} else if (!strcmp(name, "eq-overrun")) {
		if (off)
			dev->fault.eq_left = 0;
		r = off ? 0 : set_eq_overrun(dev, spec);
	} else if (!strcmp(name, "flap1") || !strcmp(name, "flap2")) {
		int port = name[4] - '0';

		if (off)
			flap_off(dev, port);
		r = off ? 0 : set_flap(dev, port, spec);
	} else {
		snprintf(err, errlen, "no fault named '%s'", name);
		return -1;
	}
	if (r)
		snprintf(err, errlen, "bad %s spec '%s' (see tests/cx3/cx3_fault.c)",
			 name, spec);
	else if (off)
		cx3_log(dev, "fault: %s disarmed", name);
	return r;
}

void cx3_fault_get(struct cx3_dev *dev, const char *name, char *buf,
		   size_t len)
{
	const struct cx3_fault *f = &dev->fault;

	snprintf(buf, len, "off");
	if (!strcmp(name, "cmd-hang") && f->hang_left)
		snprintf(buf, len, "0x%03x:%u", f->hang_op, f->hang_left);
	else if (!strcmp(name, "cmd-status") && f->status_left)
		snprintf(buf, len, "0x%03x:0x%02x:%u", f->status_op, f->status,
			 f->status_left);
	else if (!strcmp(name, "eq-overrun") && f->eq_left &&
		 f->eq_type == CX3_FAULT_ANY_EVENT)
		snprintf(buf, len, "any:%u", f->eq_left);
	else if (!strcmp(name, "eq-overrun") && f->eq_left)
		snprintf(buf, len, "0x%02x:%u", f->eq_type, f->eq_left);
	else if ((!strcmp(name, "flap1") || !strcmp(name, "flap2")) &&
		 f->flap[name[4] - '1'].left)
		snprintf(buf, len, "%u:%u", (f->flap[name[4] - '1'].left + 1) / 2,
			 f->flap[name[4] - '1'].ms);
}

/* ---------------------------------------------------------------------- */
/* The hooks */

static bool op_matches(uint16_t armed, uint16_t op)
{
	return armed == CX3_FAULT_ANY_OP || armed == op;
}

bool cx3_fault_cmd_hang(struct cx3_dev *dev, uint16_t opcode, uint32_t in_mod)
{
	struct cx3_fault *f = &dev->fault;

	if (!f->hang_left || !op_matches(f->hang_op, opcode))
		return false;
	f->hang_left--;
	f->hung = true;
	f->hung_op = opcode;
	f->fired++;
	cx3_log(dev, "fault: command %s (0x%03x, in_mod 0x%x) hangs: GO stays set, no completion until the card is reset (cmd-hang, %u more armed)",
		op_name(opcode), opcode, in_mod, f->hang_left);
	return true;
}

bool cx3_fault_cmd_status(struct cx3_dev *dev, const struct cx3_cmd *cmd,
			  uint8_t *status)
{
	struct cx3_fault *f = &dev->fault;

	if (!f->status_left || !op_matches(f->status_op, cmd->opcode))
		return false;
	f->status_left--;
	f->fired++;
	*status = f->status;
	cx3_log(dev, "fault: command %s (0x%03x, op_mod %u in_mod 0x%x) not executed, answered with status 0x%02x (cmd-status, %u more armed)",
		op_name(cmd->opcode), cmd->opcode, cmd->op_mod, cmd->in_mod,
		f->status, f->status_left);
	return true;
}

bool cx3_fault_eq_overrun(struct cx3_dev *dev, uint32_t eqn, uint8_t type)
{
	struct cx3_fault *f = &dev->fault;

	if (!f->eq_left || (f->eq_type != CX3_FAULT_ANY_EVENT && f->eq_type != type))
		return false;
	f->eq_left--;
	f->fired++;
	cx3_log(dev, "fault: EQ %u overruns: event type 0x%02x lost, the EQ's overflow event written in its place (eq-overrun, %u more armed)",
		eqn, type, f->eq_left);
	return true;
}

void cx3_fault_reset(struct cx3_dev *dev)
{
	struct cx3_fault *f = &dev->fault;

	if (!f->hung)
		return;
	cx3_log(dev, "fault: the reset ends hung command %s (0x%03x)",
		op_name(f->hung_op), f->hung_op);
	f->hung = false;
}

void cx3_fault_poll(struct cx3_dev *dev)
{
	uint64_t now = now_ms(dev);
	int i;

	for (i = 0; i < CX3_NUM_PORTS; i++) {
		struct cx3_fault_flap *fl = &dev->fault.flap[i];

		if (fl->left && now >= fl->next)
			flap_step(dev, i + 1);
	}
}

bool cx3_fault_busy(struct cx3_dev *dev)
{
	return dev->fault.flap[0].left || dev->fault.flap[1].left;
}

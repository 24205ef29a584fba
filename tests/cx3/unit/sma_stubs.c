// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-ins for the parts of the model test_sma.c needs besides cx3_sma.c.
 * Link the test against the real cx3_port.c / cx3_regs.c instead of this
 * file once those exist; the test only relies on the documented behaviour.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cx3.h"

/* Recorded calls, for test_sma.c */
int stub_set_state_calls;
int stub_set_state_port;
uint8_t stub_set_state_value;

/* Like the real one, minus the event: the port takes the new state. */
void cx3_port_set_state(struct cx3_dev *dev, int port, uint8_t state)
{
	stub_set_state_calls++;
	stub_set_state_port = port;
	stub_set_state_value = state;
	if (port >= 1 && port <= CX3_NUM_PORTS)
		dev->port[port - 1].state = state;
}

void cx3_log(struct cx3_dev *dev, const char *fmt, ...)
{
	va_list ap;

	(void)dev;
	va_start(ap, fmt);
	printf("log: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

// SPDX-License-Identifier: GPL-2.0
/* timer_shutdown_sync() exists (6.2+, backported to some 6.1.y). */
#include <linux/timer.h>

int ibstack_probe(struct timer_list *t);
int ibstack_probe(struct timer_list *t)
{
	return timer_shutdown_sync(t);
}

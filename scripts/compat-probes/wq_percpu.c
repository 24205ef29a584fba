// SPDX-License-Identifier: GPL-2.0
/*
 * The WQ_PERCPU workqueue flag (6.17+).  Kernels that have it warn at
 * alloc_workqueue() when neither WQ_PERCPU nor WQ_UNBOUND is given.
 */
#include <linux/workqueue.h>

int ibstack_probe(void);
int ibstack_probe(void)
{
	return WQ_PERCPU;
}

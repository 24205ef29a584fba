// SPDX-License-Identifier: GPL-2.0
/*
 * Not a probe: must always compile.  If it does not, the probe setup itself
 * is broken (compiler, kernel build tree) and compat-probe.sh gives up rather
 * than reporting every feature as missing.
 */
#include <linux/module.h>

int ibstack_probe(void);
int ibstack_probe(void)
{
	return 0;
}

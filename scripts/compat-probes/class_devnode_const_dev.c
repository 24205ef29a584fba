// SPDX-License-Identifier: GPL-2.0
/* struct class's devnode() gets a const struct device * (6.2+). */
#include <linux/device.h>

static char *ibstack_probe_devnode(const struct device *dev, umode_t *mode)
{
	return NULL;
}

struct class ibstack_probe_class = {
	.name = "ibstack_probe",
	.devnode = ibstack_probe_devnode,
};

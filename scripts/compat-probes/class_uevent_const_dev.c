// SPDX-License-Identifier: GPL-2.0
/* struct class's dev_uevent() gets a const struct device * (6.2+). */
#include <linux/device.h>

static int ibstack_probe_uevent(const struct device *dev,
				struct kobj_uevent_env *env)
{
	return 0;
}

struct class ibstack_probe_class = {
	.name = "ibstack_probe",
	.dev_uevent = ibstack_probe_uevent,
};

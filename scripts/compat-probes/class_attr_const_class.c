// SPDX-License-Identifier: GPL-2.0
/*
 * struct class_attribute's show() gets a const struct class * (6.4+) and
 * still a non-const struct class_attribute *.
 */
#include <linux/device.h>

static ssize_t ibstack_probe_show(const struct class *class,
				  struct class_attribute *attr, char *buf)
{
	return 0;
}

struct class_attribute ibstack_probe_attr = {
	.attr = { .name = "ibstack_probe", .mode = 0444 },
	.show = ibstack_probe_show,
};

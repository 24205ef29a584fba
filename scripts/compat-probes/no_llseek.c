// SPDX-License-Identifier: GPL-2.0
/* no_llseek still exists (removed in 6.12; NULL means the same since 6.0). */
#include <linux/fs.h>

const struct file_operations ibstack_probe_fops = {
	.llseek = no_llseek,
};

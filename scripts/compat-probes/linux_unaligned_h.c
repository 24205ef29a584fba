// SPDX-License-Identifier: GPL-2.0
/* <linux/unaligned.h> exists (6.12+; <asm/unaligned.h> before). */
#include <linux/unaligned.h>

u32 ibstack_probe(const void *p);
u32 ibstack_probe(const void *p)
{
	return get_unaligned_be32(p);
}

// SPDX-License-Identifier: GPL-2.0
/* bitmap_from_arr64() exists (5.19+). */
#include <linux/bitmap.h>

void ibstack_probe(unsigned long *map, const u64 *words);
void ibstack_probe(unsigned long *map, const u64 *words)
{
	bitmap_from_arr64(map, words, 128);
}

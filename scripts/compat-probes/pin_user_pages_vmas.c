// SPDX-License-Identifier: GPL-2.0
/* pin_user_pages() takes a vmas argument (removed in 6.5). */
#include <linux/mm.h>

long ibstack_probe(unsigned long start, struct page **pages);
long ibstack_probe(unsigned long start, struct page **pages)
{
	return pin_user_pages(start, 1, FOLL_WRITE | FOLL_LONGTERM, pages, NULL);
}

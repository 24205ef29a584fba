// SPDX-License-Identifier: GPL-2.0
/* unpin_user_page_range_dirty_lock() exists (5.12+). */
#include <linux/mm.h>

void ibstack_probe(struct page *page);
void ibstack_probe(struct page *page)
{
	unpin_user_page_range_dirty_lock(page, 2, true);
}

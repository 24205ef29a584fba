// SPDX-License-Identifier: GPL-2.0
/*
 * struct sg_append_table and sg_alloc_append_table_from_pages() exist
 * (5.15+); 5.10 has __sg_alloc_table_from_pages() with a prv argument.
 */
#include <linux/scatterlist.h>

int ibstack_probe(struct sg_append_table *t, struct page **pages);
int ibstack_probe(struct sg_append_table *t, struct page **pages)
{
	int ret = sg_alloc_append_table_from_pages(t, pages, 1, 0, PAGE_SIZE,
						   PAGE_SIZE, 0, GFP_KERNEL);

	sg_free_append_table(t);
	return ret;
}

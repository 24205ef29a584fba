// SPDX-License-Identifier: GPL-2.0
/*
 * Doorbell records of user objects.  libmlx4 keeps them in slots of its own
 * pages (8 bytes for a CQ: set_ci and arm; 4 for a receive queue) and names
 * a record by its address; the card reads the record by bus address.  Each
 * page is pinned once per context, on the first record in it, and unpinned
 * with its last one: the context keeps the pages in a list with a use count
 * each, under db_page_mutex.
 */
#include <linux/slab.h>

#include "mlx4_ib.h"

struct mlx4_ib_db_page {
	struct list_head	list;		/* in the context's db_page_list */
	struct ib_umem		*umem;		/* one page */
	unsigned long		virt;		/* its user address */
	unsigned int		users;		/* records in use in it */
};

/*
 * [sleep] The record of size bytes (4 or 8, aligned to its size, so that
 * it never crosses its page) at user address virt: its page pinned (or one
 * more user of it) and its bus address in db.  -EINVAL for a misaligned
 * address, -EFAULT or -ENOMEM from the pinning.
 */
int mlx4_ib_db_map_user(struct mlx4_ib_ucontext *uctx, u64 virt, size_t size,
			struct mlx4_ib_user_db *db)
{
	struct mlx4_ib_dev *dev = to_mdev(uctx->ibucontext.device);
	unsigned long page_virt = (unsigned long)virt & PAGE_MASK;
	struct mlx4_ib_db_page *page;
	int err = 0;

	if (!virt || virt != (unsigned long)virt || !IS_ALIGNED(virt, size)) {
		mlx4_ib_warn_rl(dev, "doorbell record at 0x%llx: not a %zu-byte aligned address\n",
				virt, size);
		return -EINVAL;
	}

	mutex_lock(&uctx->db_page_mutex);
	list_for_each_entry(page, &uctx->db_page_list, list)
		if (page->virt == page_virt)
			goto found;

	page = kzalloc(sizeof(*page), GFP_KERNEL);
	if (!page) {
		err = -ENOMEM;
		goto out;
	}
	/* the card only reads records: no write access needed */
	page->umem = ib_umem_get(uctx->ibucontext.device, page_virt, PAGE_SIZE, 0);
	if (IS_ERR(page->umem)) {
		err = PTR_ERR(page->umem);
		mlx4_ib_warn_rl(dev, "doorbell page at 0x%lx: pinning failed (%d)\n",
				page_virt, err);
		kfree(page);
		goto out;
	}
	page->virt = page_virt;
	list_add(&page->list, &uctx->db_page_list);
found:
	page->users++;
	db->page = page;
	db->dma = sg_dma_address(page->umem->sgt_append.sgt.sgl) + offset_in_page(virt);
out:
	mutex_unlock(&uctx->db_page_mutex);
	return err;
}

/* [sleep] The card no longer reads the record: one user less of its page. */
void mlx4_ib_db_unmap_user(struct mlx4_ib_ucontext *uctx, struct mlx4_ib_user_db *db)
{
	struct mlx4_ib_db_page *page = db->page;

	if (!page)
		return;
	mutex_lock(&uctx->db_page_mutex);
	if (!--page->users)
		list_del(&page->list);
	else
		page = NULL;
	mutex_unlock(&uctx->db_page_mutex);
	db->page = NULL;
	if (page) {
		ib_umem_release(page->umem);
		kfree(page);
	}
}

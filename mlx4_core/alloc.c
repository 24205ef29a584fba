// SPDX-License-Identifier: GPL-2.0
/*
 * Allocators: numbered-object bitmaps, queue buffers (struct mlx4_buf) and
 * doorbell records carved from DMA-coherent pages.
 */
#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "mlx4_core.h"

int mlx4_bitmap_init(struct mlx4_bitmap *bm, u32 num, u32 reserved)
{
	if (reserved > num)
		return -EINVAL;
	bm->bits = kvcalloc(BITS_TO_LONGS(num), sizeof(long), GFP_KERNEL);
	if (!bm->bits)
		return -ENOMEM;
	bm->num = num;
	bm->reserved = reserved;
	bm->next = reserved;
	bm->lowest = false;
	spin_lock_init(&bm->lock);
	return 0;
}

void mlx4_bitmap_cleanup(struct mlx4_bitmap *bm)
{
	kvfree(bm->bits);
	bm->bits = NULL;
}

/*
 * cnt consecutive numbers starting at a multiple of align (a power of two).
 * The search starts after the last allocation, so freed numbers are not
 * reused at once (a late event for an old object finds nothing); from the
 * lowest number for a bitmap marked lowest (see struct mlx4_bitmap).
 */
int mlx4_bitmap_alloc(struct mlx4_bitmap *bm, u32 cnt, u32 align, u32 *obj)
{
	unsigned long start, from;

	if (!cnt || !align || !is_power_of_2(align) || cnt > bm->num)
		return -EINVAL;
	spin_lock(&bm->lock);
	from = bm->lowest ? ALIGN(bm->reserved, align) : bm->next;
	start = bitmap_find_next_zero_area(bm->bits, bm->num, from, cnt,
					   align - 1);
	/* a round-robin search wraps; a lowest-first one started there */
	if (start >= bm->num && !bm->lowest)
		start = bitmap_find_next_zero_area(bm->bits, bm->num,
						   ALIGN(bm->reserved, align),
						   cnt, align - 1);
	if (start >= bm->num) {
		spin_unlock(&bm->lock);
		return -ENOMEM;
	}
	bitmap_set(bm->bits, start, cnt);
	if (!bm->lowest)
		bm->next = start + cnt < bm->num ? start + cnt : bm->reserved;
	spin_unlock(&bm->lock);
	*obj = start;
	return 0;
}

void mlx4_bitmap_free(struct mlx4_bitmap *bm, u32 obj, u32 cnt)
{
	if (WARN_ON(obj < bm->reserved || obj + cnt > bm->num))
		return;
	spin_lock(&bm->lock);
	bitmap_clear(bm->bits, obj, cnt);
	spin_unlock(&bm->lock);
}

/* ---------------------------------------------------------------------- */
/* Queue buffers */

static void mlx4_buf_free_pages(struct mlx4_dev *dev, struct mlx4_buf *buf)
{
	int i;

	for (i = 0; i < buf->nbufs; i++)
		if (buf->page_list[i].buf)
			dma_free_coherent(mlx4_dma_dev(dev), PAGE_SIZE,
					  buf->page_list[i].buf,
					  buf->page_list[i].map);
	kfree(buf->page_list);
	buf->page_list = NULL;
}

static int mlx4_buf_alloc_direct(struct mlx4_dev *dev, int size, struct mlx4_buf *buf)
{
	dma_addr_t dma;

	buf->direct.buf = dma_alloc_coherent(mlx4_dma_dev(dev), size, &dma,
					     GFP_KERNEL | __GFP_NOWARN);
	if (!buf->direct.buf)
		return -ENOMEM;
	buf->direct.map = dma;
	buf->nbufs = 1;
	buf->npages = 1;
	buf->page_shift = get_order(size) + PAGE_SHIFT;
	/* describe it in pages the card can take: split while misaligned */
	while (dma & ((1ULL << buf->page_shift) - 1)) {
		buf->page_shift--;
		buf->npages *= 2;
	}
	return 0;
}

int mlx4_buf_alloc(struct mlx4_dev *dev, int size, int max_direct, struct mlx4_buf *buf)
{
	int i;

	memset(buf, 0, sizeof(*buf));
	if (size <= 0)
		return -EINVAL;
	if (size <= max_direct && !mlx4_buf_alloc_direct(dev, size, buf))
		return 0;

	buf->nbufs = DIV_ROUND_UP(size, PAGE_SIZE);
	buf->npages = buf->nbufs;
	buf->page_shift = PAGE_SHIFT;
	buf->page_list = kcalloc(buf->nbufs, sizeof(*buf->page_list), GFP_KERNEL);
	if (!buf->page_list)
		return -ENOMEM;
	for (i = 0; i < buf->nbufs; i++) {
		buf->page_list[i].buf = dma_alloc_coherent(mlx4_dma_dev(dev), PAGE_SIZE,
							   &buf->page_list[i].map,
							   GFP_KERNEL);
		if (!buf->page_list[i].buf) {
			mlx4_buf_free_pages(dev, buf);
			return -ENOMEM;
		}
	}
	return 0;
}
EXPORT_SYMBOL(mlx4_buf_alloc);

void mlx4_buf_free(struct mlx4_dev *dev, int size, struct mlx4_buf *buf)
{
	if (buf->page_list)
		mlx4_buf_free_pages(dev, buf);
	else if (buf->direct.buf)
		dma_free_coherent(mlx4_dma_dev(dev), size, buf->direct.buf,
				  buf->direct.map);
	buf->direct.buf = NULL;
	buf->nbufs = 0;
	buf->npages = 0;
}
EXPORT_SYMBOL(mlx4_buf_free);

/* ---------------------------------------------------------------------- */
/* Doorbell records: 4 KiB coherent pages of dwords */

#define MLX4_DB_PER_PAGE	(PAGE_SIZE / sizeof(__be32))

struct mlx4_db_page {
	struct list_head	list;
	DECLARE_BITMAP(used, MLX4_DB_PER_PAGE);
	__be32			*buf;
	dma_addr_t		dma;
};

void mlx4_init_db_table(struct mlx4_priv *priv)
{
	INIT_LIST_HEAD(&priv->db_table.pages);
	mutex_init(&priv->db_table.mutex);
}

void mlx4_cleanup_db_table(struct mlx4_priv *priv)
{
	struct mlx4_db_page *pg, *tmp;

	list_for_each_entry_safe(pg, tmp, &priv->db_table.pages, list) {
		dev_warn(&priv->dev.pdev->dev, "doorbell records leaked\n");
		list_del(&pg->list);
		dma_free_coherent(&priv->dev.pdev->dev, PAGE_SIZE, pg->buf, pg->dma);
		kfree(pg);
	}
}

static int mlx4_db_take(struct mlx4_db_page *pg, struct mlx4_db *db, int order)
{
	unsigned long i;

	i = bitmap_find_next_zero_area(pg->used, MLX4_DB_PER_PAGE, 0,
				       1 << order, (1 << order) - 1);
	if (i >= MLX4_DB_PER_PAGE)
		return -ENOMEM;
	bitmap_set(pg->used, i, 1 << order);
	db->page = pg;
	db->index = i;
	db->order = order;
	db->db = pg->buf + i;
	db->dma = pg->dma + i * sizeof(__be32);
	memset(db->db, 0, sizeof(__be32) << order);
	return 0;
}

int mlx4_db_alloc(struct mlx4_dev *dev, struct mlx4_db *db, int order)
{
	struct mlx4_db_table *t = &mlx4_priv(dev)->db_table;
	struct mlx4_db_page *pg;
	int err = 0;

	if (order < 0 || order > 1)
		return -EINVAL;
	mutex_lock(&t->mutex);
	list_for_each_entry(pg, &t->pages, list)
		if (!mlx4_db_take(pg, db, order))
			goto out;

	pg = kzalloc(sizeof(*pg), GFP_KERNEL);
	if (!pg) {
		err = -ENOMEM;
		goto out;
	}
	pg->buf = dma_alloc_coherent(mlx4_dma_dev(dev), PAGE_SIZE, &pg->dma,
				     GFP_KERNEL);
	if (!pg->buf) {
		kfree(pg);
		err = -ENOMEM;
		goto out;
	}
	list_add(&pg->list, &t->pages);
	mlx4_db_take(pg, db, order);
out:
	mutex_unlock(&t->mutex);
	return err;
}
EXPORT_SYMBOL(mlx4_db_alloc);

void mlx4_db_free(struct mlx4_dev *dev, struct mlx4_db *db)
{
	struct mlx4_db_table *t = &mlx4_priv(dev)->db_table;
	struct mlx4_db_page *pg = db->page;

	if (!pg)
		return;
	mutex_lock(&t->mutex);
	bitmap_clear(pg->used, db->index, 1 << db->order);
	if (bitmap_empty(pg->used, MLX4_DB_PER_PAGE)) {
		list_del(&pg->list);
		dma_free_coherent(mlx4_dma_dev(dev), PAGE_SIZE, pg->buf, pg->dma);
		kfree(pg);
	}
	mutex_unlock(&t->mutex);
	db->page = NULL;
}
EXPORT_SYMBOL(mlx4_db_free);

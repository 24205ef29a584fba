// SPDX-License-Identifier: GPL-2.0
/*
 * ICM: host memory lent to the card.  Firmware area, auxiliary ICM and the
 * context tables are all made of naturally aligned DMA-coherent blocks.
 * The context tables live at ICM virtual addresses chosen by profile.c and
 * are backed chunk by chunk (MAP_ICM) while objects in a chunk exist.
 */
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "mlx4_core.h"

#define MLX4_ICM_MAX_ORDER	ilog2(MLX4_ICM_CHUNK_SIZE / MLX4_ICM_PAGE_SIZE)
#define MLX4_MAP_ENTRIES	(MLX4_MAILBOX_SIZE / 16)

/* npages 4 KiB pages in blocks of non-increasing power-of-two sizes */
struct mlx4_icm *mlx4_icm_alloc(struct mlx4_priv *priv, unsigned long npages)
{
	struct device *ddev = mlx4_dma_dev(&priv->dev);
	unsigned int order = MLX4_ICM_MAX_ORDER;
	struct mlx4_icm *icm;
	unsigned long left = npages;

	icm = kvzalloc(struct_size(icm, mem, npages), GFP_KERNEL);
	if (!icm)
		return NULL;

	while (left) {
		struct mlx4_icm_mem *m = &icm->mem[icm->nmem];
		size_t size;

		order = min_t(unsigned int, order, ilog2(left));
		size = MLX4_ICM_PAGE_SIZE << order;
		m->buf = dma_alloc_coherent(ddev, size, &m->dma, GFP_KERNEL | __GFP_NOWARN);
		if (m->buf && (m->dma & (size - 1))) {
			dma_free_coherent(ddev, size, m->buf, m->dma);
			m->buf = NULL;
		}
		if (!m->buf) {
			if (!order)
				goto err_free;
			order--;
			continue;
		}
		m->order = order;
		icm->nmem++;
		left -= 1UL << order;
	}
	return icm;

err_free:
	mlx4_icm_free(priv, icm);
	return NULL;
}

void mlx4_icm_free(struct mlx4_priv *priv, struct mlx4_icm *icm)
{
	struct device *ddev = mlx4_dma_dev(&priv->dev);
	unsigned int i;

	if (!icm)
		return;
	for (i = 0; i < icm->nmem; i++)
		dma_free_coherent(ddev, MLX4_ICM_PAGE_SIZE << icm->mem[i].order,
				  icm->mem[i].buf, icm->mem[i].dma);
	kvfree(icm);
}

/*
 * MAP_FA, MAP_ICM_AUX (virt ~0: no ICM address) or MAP_ICM: entries of
 * {ICM address, bus address | log2(4 KiB pages)}, 256 per command.
 */
int mlx4_icm_map(struct mlx4_priv *priv, u16 op, struct mlx4_icm *icm, u64 virt)
{
	struct mlx4_cmd_mailbox *mailbox;
	__be64 *ent;
	unsigned int i, n = 0;
	int err = 0;

	mailbox = mlx4_alloc_cmd_mailbox(&priv->dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	ent = mailbox->buf;

	for (i = 0; i < icm->nmem; i++) {
		const struct mlx4_icm_mem *m = &icm->mem[i];

		ent[2 * n] = cpu_to_be64(virt == ~0ULL ? 0 : virt);
		ent[2 * n + 1] = cpu_to_be64(m->dma | m->order);
		if (virt != ~0ULL)
			virt += MLX4_ICM_PAGE_SIZE << m->order;
		if (++n == MLX4_MAP_ENTRIES || i == icm->nmem - 1) {
			err = mlx4_cmd(&priv->dev, mailbox->dma, n, 0, op,
				       MLX4_CMD_TIME_B);
			if (err)
				break;
			n = 0;
			memset(mailbox->buf, 0, MLX4_MAILBOX_SIZE);
		}
	}
	mlx4_free_cmd_mailbox(&priv->dev, mailbox);
	return err;
}

static int mlx4_icm_unmap(struct mlx4_priv *priv, u64 virt, u32 npages)
{
	return mlx4_cmd(&priv->dev, virt, npages, 0, MLX4_CMD_UNMAP_ICM,
			MLX4_CMD_TIME_B);
}

/* ---------------------------------------------------------------------- */
/* Context tables */

static int mlx4_table_init(struct mlx4_icm_table *t, const char *name, u64 virt,
			   u32 obj_size, u32 num_obj)
{
	u64 size = (u64)obj_size * num_obj;

	t->name = name;
	t->virt = virt;
	t->obj_size = obj_size;
	t->num_obj = num_obj;
	t->chunk_size = min_t(u64, MLX4_ICM_CHUNK_SIZE, size);
	t->num_chunks = DIV_ROUND_UP_ULL(size, t->chunk_size);
	mutex_init(&t->mutex);
	t->chunks = kvcalloc(t->num_chunks, sizeof(*t->chunks), GFP_KERNEL);
	t->refs = kvcalloc(t->num_chunks, sizeof(*t->refs), GFP_KERNEL);
	if (!t->chunks || !t->refs) {
		kvfree(t->chunks);
		kvfree(t->refs);
		t->chunks = NULL;
		t->refs = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void mlx4_chunk_release(struct mlx4_priv *priv, struct mlx4_icm_table *t,
			       u32 i)
{
	mlx4_icm_unmap(priv, t->virt + (u64)i * t->chunk_size,
		       t->chunk_size >> MLX4_ICM_PAGE_SHIFT);
	mlx4_icm_free(priv, t->chunks[i]);
	t->chunks[i] = NULL;
	t->refs[i] = 0;
}

static void mlx4_table_cleanup(struct mlx4_priv *priv, struct mlx4_icm_table *t)
{
	u32 i;

	if (!t->chunks)
		return;
	for (i = 0; i < t->num_chunks; i++) {
		if (!t->chunks[i])
			continue;
		dev_warn(&priv->dev.pdev->dev,
			 "ICM table %s: chunk %u still referenced %u times\n",
			 t->name, i, t->refs[i]);
		mlx4_chunk_release(priv, t, i);
	}
	kvfree(t->chunks);
	kvfree(t->refs);
	t->chunks = NULL;
	t->refs = NULL;
}

static int mlx4_chunk_get(struct mlx4_priv *priv, struct mlx4_icm_table *t, u32 i)
{
	struct mlx4_icm *icm;
	int err;

	lockdep_assert_held(&t->mutex);
	if (t->chunks[i]) {
		t->refs[i]++;
		return 0;
	}
	icm = mlx4_icm_alloc(priv, t->chunk_size >> MLX4_ICM_PAGE_SHIFT);
	if (!icm)
		return -ENOMEM;
	err = mlx4_icm_map(priv, MLX4_CMD_MAP_ICM, icm,
			   t->virt + (u64)i * t->chunk_size);
	if (err) {
		mlx4_icm_free(priv, icm);
		return err;
	}
	t->chunks[i] = icm;
	t->refs[i] = 1;
	return 0;
}

static void mlx4_chunk_put(struct mlx4_priv *priv, struct mlx4_icm_table *t, u32 i)
{
	lockdep_assert_held(&t->mutex);
	if (WARN_ON(!t->chunks[i]))
		return;
	if (--t->refs[i] == 0)
		mlx4_chunk_release(priv, t, i);
}

static u32 mlx4_obj_chunk(struct mlx4_icm_table *t, u32 obj)
{
	return div_u64((u64)obj * t->obj_size, t->chunk_size);
}

/* Make the context of obj backed by ICM (counted per chunk). */
int mlx4_table_get(struct mlx4_priv *priv, struct mlx4_icm_table *t, u32 obj)
{
	int err;

	if (obj >= t->num_obj)
		return -EINVAL;
	mutex_lock(&t->mutex);
	err = mlx4_chunk_get(priv, t, mlx4_obj_chunk(t, obj));
	mutex_unlock(&t->mutex);
	return err;
}

void mlx4_table_put(struct mlx4_priv *priv, struct mlx4_icm_table *t, u32 obj)
{
	if (obj >= t->num_obj)
		return;
	mutex_lock(&t->mutex);
	mlx4_chunk_put(priv, t, mlx4_obj_chunk(t, obj));
	mutex_unlock(&t->mutex);
}

/* Objects start..end inclusive */
/*
 * A CQ or SRQ number with the ICM behind its context and its cMPT entry;
 * mlx4_obj_number_put() undoes it in reverse.
 */
int mlx4_obj_number_get(struct mlx4_priv *priv, struct mlx4_bitmap *bitmap,
			struct mlx4_icm_table *ctx, struct mlx4_icm_table *cmpt, u32 *num)
{
	int err;

	err = mlx4_bitmap_alloc(bitmap, 1, 1, num);
	if (err)
		return err;
	err = mlx4_table_get(priv, ctx, *num);
	if (err)
		goto err_num;
	err = mlx4_table_get(priv, cmpt, *num);
	if (err)
		goto err_ctx;
	return 0;

err_ctx:
	mlx4_table_put(priv, ctx, *num);
err_num:
	mlx4_bitmap_free(bitmap, *num, 1);
	return err;
}

void mlx4_obj_number_put(struct mlx4_priv *priv, struct mlx4_bitmap *bitmap,
			 struct mlx4_icm_table *ctx, struct mlx4_icm_table *cmpt, u32 num)
{
	mlx4_table_put(priv, cmpt, num);
	mlx4_table_put(priv, ctx, num);
	mlx4_bitmap_free(bitmap, num, 1);
}

int mlx4_table_get_range(struct mlx4_priv *priv, struct mlx4_icm_table *t,
			 u32 start, u32 end)
{
	u32 first, last, i;
	int err = 0;

	if (start > end || end >= t->num_obj)
		return -EINVAL;
	first = mlx4_obj_chunk(t, start);
	last = mlx4_obj_chunk(t, end);
	mutex_lock(&t->mutex);
	for (i = first; i <= last; i++) {
		err = mlx4_chunk_get(priv, t, i);
		if (err)
			break;
	}
	if (err)
		while (i-- > first)
			mlx4_chunk_put(priv, t, i);
	mutex_unlock(&t->mutex);
	return err;
}

void mlx4_table_put_range(struct mlx4_priv *priv, struct mlx4_icm_table *t,
			  u32 start, u32 end)
{
	u32 first, last, i;

	if (start > end || end >= t->num_obj)
		return;
	first = mlx4_obj_chunk(t, start);
	last = mlx4_obj_chunk(t, end);
	mutex_lock(&t->mutex);
	for (i = first; i <= last; i++)
		mlx4_chunk_put(priv, t, i);
	mutex_unlock(&t->mutex);
}

/*
 * [any] The kernel address of obj's entry; the caller holds a reference on
 * its chunk, so the chunk cannot go away.
 */
void *mlx4_table_find(struct mlx4_icm_table *t, u32 obj)
{
	u64 off = (u64)obj * t->obj_size;
	struct mlx4_icm *icm;
	unsigned int i;
	u32 in_chunk;

	if (obj >= t->num_obj)
		return NULL;
	icm = t->chunks[div_u64(off, t->chunk_size)];
	if (!icm)
		return NULL;
	in_chunk = off - div_u64(off, t->chunk_size) * t->chunk_size;
	for (i = 0; i < icm->nmem; i++) {
		u32 size = MLX4_ICM_PAGE_SIZE << icm->mem[i].order;

		if (in_chunk < size)
			return icm->mem[i].buf + in_chunk;
		in_chunk -= size;
	}
	return NULL;
}

/* ---------------------------------------------------------------------- */

struct mlx4_table_desc {
	struct mlx4_icm_table	*t;
	const char		*name;
	u64			virt;
	u32			obj_size;
	u32			num_obj;
};

/*
 * Auxiliary ICM for the firmware (SET_ICM_SIZE tells how much), then the
 * software side of every context table.  Nothing is mapped in them yet.
 */
int mlx4_init_icm(struct mlx4_priv *priv)
{
	struct mlx4_profile *p = &priv->profile;
	struct mlx4_dev_cap *c = &priv->dev_cap;
	struct mlx4_caps *caps = &priv->dev.caps;
	u64 cmpt_span = (u64)c->cmpt_entry_sz << MLX4_CMPT_SHIFT;
	const struct mlx4_table_desc tables[] = {
		{ &priv->qpc_table, "QPC", p->qpc_base, c->qpc_entry_sz, caps->num_qps },
		{ &priv->auxc_table, "AUXC", p->auxc_base, c->aux_entry_sz, caps->num_qps },
		{ &priv->altc_table, "ALTC", p->altc_base, c->altc_entry_sz, caps->num_qps },
		{ &priv->rdmarc_table, "RDMARC", p->rdmarc_base,
		  c->rdmarc_entry_sz << p->log_rd_per_qp, caps->num_qps },
		{ &priv->cmpt_table[MLX4_CMPT_QP], "cMPT-QP",
		  p->cmpt_base + MLX4_CMPT_QP * cmpt_span, c->cmpt_entry_sz, caps->num_qps },
		{ &priv->cmpt_table[MLX4_CMPT_SRQ], "cMPT-SRQ",
		  p->cmpt_base + MLX4_CMPT_SRQ * cmpt_span, c->cmpt_entry_sz, caps->num_srqs },
		{ &priv->cmpt_table[MLX4_CMPT_CQ], "cMPT-CQ",
		  p->cmpt_base + MLX4_CMPT_CQ * cmpt_span, c->cmpt_entry_sz, caps->num_cqs },
		{ &priv->cmpt_table[MLX4_CMPT_EQ], "cMPT-EQ",
		  p->cmpt_base + MLX4_CMPT_EQ * cmpt_span, c->cmpt_entry_sz, caps->num_eqs },
		{ &priv->srqc_table, "SRQC", p->srqc_base, c->srq_entry_sz, caps->num_srqs },
		{ &priv->cqc_table, "CQC", p->cqc_base, c->cqc_entry_sz, caps->num_cqs },
		{ &priv->eqc_table, "EQC", p->eqc_base, c->eqc_entry_sz, caps->num_eqs },
		{ &priv->dmpt_table, "dMPT", p->dmpt_base, c->dmpt_entry_sz, caps->num_mpts },
		{ &priv->mtt_table, "MTT", p->mtt_base, c->mtt_entry_sz, caps->num_mtts },
		{ &priv->mcg_icm_table, "MCG", p->mcg_base, 1U << p->log_mcg_entry_sz,
		  1U << p->log_mcg_table_sz },
	};
	u64 aux_pages;
	int err, i;

	err = mlx4_SET_ICM_SIZE(priv, p->total, &aux_pages);
	if (err) {
		dev_err(&priv->dev.pdev->dev, "SET_ICM_SIZE failed: %d\n", err);
		return err;
	}
	priv->aux_icm = mlx4_icm_alloc(priv, aux_pages);
	if (!priv->aux_icm)
		return -ENOMEM;
	err = mlx4_icm_map(priv, MLX4_CMD_MAP_ICM_AUX, priv->aux_icm, ~0ULL);
	if (err) {
		dev_err(&priv->dev.pdev->dev, "MAP_ICM_AUX failed: %d\n", err);
		goto err_free_aux;
	}

	for (i = 0; i < ARRAY_SIZE(tables); i++) {
		err = mlx4_table_init(tables[i].t, tables[i].name, tables[i].virt,
				      tables[i].obj_size, tables[i].num_obj);
		if (err)
			goto err_tables;
	}
	return 0;

err_tables:
	while (i--)
		mlx4_table_cleanup(priv, tables[i].t);
	mlx4_cmd(&priv->dev, 0, 0, 0, MLX4_CMD_UNMAP_ICM_AUX, MLX4_CMD_TIME_B);
err_free_aux:
	mlx4_icm_free(priv, priv->aux_icm);
	priv->aux_icm = NULL;
	return err;
}

void mlx4_cleanup_icm(struct mlx4_priv *priv)
{
	struct mlx4_icm_table *tables[] = {
		&priv->qpc_table, &priv->auxc_table, &priv->altc_table,
		&priv->rdmarc_table, &priv->cmpt_table[MLX4_CMPT_QP],
		&priv->cmpt_table[MLX4_CMPT_SRQ], &priv->cmpt_table[MLX4_CMPT_CQ],
		&priv->cmpt_table[MLX4_CMPT_EQ], &priv->srqc_table,
		&priv->cqc_table, &priv->eqc_table, &priv->dmpt_table,
		&priv->mtt_table, &priv->mcg_icm_table,
	};
	int i;

	for (i = ARRAY_SIZE(tables) - 1; i >= 0; i--)
		mlx4_table_cleanup(priv, tables[i]);
	mlx4_cmd(&priv->dev, 0, 0, 0, MLX4_CMD_UNMAP_ICM_AUX, MLX4_CMD_TIME_B);
	mlx4_icm_free(priv, priv->aux_icm);
	priv->aux_icm = NULL;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast groups (IB, hashed steering): MGID_HASH names the hash entry of
 * a GID; groups that collide are chained through entries past the hash area
 * (AMGM).  An entry holds the next index (<< 6), the member count, the GID
 * and the member QPNs (bit 30: block multicast loopback).
 */
#include <linux/module.h>

#include "mlx4_core.h"

#define MGM_NEXT		0x00
#define MGM_MEMBERS		0x04
#define MGM_GID			0x10
#define MGM_QP			0x20
#define MGM_QPN_MASK		0xffffff
#define MGM_BLOCK_LB		BIT(30)

static int mlx4_mgm_size(struct mlx4_priv *priv)
{
	return 1 << priv->profile.log_mcg_entry_sz;
}

static int mlx4_mgm_capacity(struct mlx4_priv *priv)
{
	return (mlx4_mgm_size(priv) - MGM_QP) / 4;
}

static __be32 *mgm_field(struct mlx4_cmd_mailbox *mb, int off)
{
	return mb->buf + off;
}

static int mlx4_read_mgm(struct mlx4_priv *priv, int index, struct mlx4_cmd_mailbox *mb)
{
	return mlx4_cmd_box(&priv->dev, 0, mb->dma, index, 0, MLX4_CMD_READ_MCG,
			    MLX4_CMD_TIME_A);
}

static int mlx4_write_mgm(struct mlx4_priv *priv, int index, struct mlx4_cmd_mailbox *mb)
{
	return mlx4_cmd(&priv->dev, mb->dma, index, 0, MLX4_CMD_WRITE_MCG,
			MLX4_CMD_TIME_A);
}

static int mlx4_clear_mgm(struct mlx4_priv *priv, int index, struct mlx4_cmd_mailbox *mb)
{
	memset(mb->buf, 0, mlx4_mgm_size(priv));
	return mlx4_write_mgm(priv, index, mb);
}

static int mlx4_mgid_hash(struct mlx4_priv *priv, const u8 gid[16],
			  struct mlx4_cmd_mailbox *mb, u32 *hash)
{
	u64 out;
	int err;

	memset(mb->buf, 0, 16);
	memcpy(mb->buf, gid, 16);
	err = mlx4_cmd_imm(&priv->dev, mb->dma, &out, 0, 0, MLX4_CMD_MGID_HASH,
			   MLX4_CMD_TIME_A);
	if (err)
		return err;
	if (out >= priv->dev.caps.num_mgms) {
		dev_err_ratelimited(&priv->dev.pdev->dev,
				    "MGID hash 0x%llx out of range\n", out);
		return -EINVAL;
	}
	*hash = out;
	return 0;
}

/*
 * Walk gid's hash chain.  On return mb holds entry *index: the group, or an
 * empty hash entry (no members); *index is -1 when the chain ends without
 * the group, *prev is the entry before *index (-1 for the hash entry).
 */
static int mlx4_find_mgm(struct mlx4_priv *priv, const u8 gid[16],
			 struct mlx4_cmd_mailbox *mb, int *prev, int *index)
{
	u32 hash;
	int err;

	err = mlx4_mgid_hash(priv, gid, mb, &hash);
	if (err)
		return err;
	*prev = -1;
	*index = hash;
	do {
		err = mlx4_read_mgm(priv, *index, mb);
		if (err)
			return err;
		if (!(be32_to_cpup(mgm_field(mb, MGM_MEMBERS)) & MGM_QPN_MASK)) {
			if (*index != hash) {
				dev_err_ratelimited(&priv->dev.pdev->dev,
						    "empty MGM 0x%x in a chain\n", *index);
				return -EINVAL;
			}
			return 0;
		}
		if (!memcmp(mb->buf + MGM_GID, gid, 16))
			return 0;
		*prev = *index;
		*index = be32_to_cpup(mgm_field(mb, MGM_NEXT)) >> 6;
	} while (*index);
	*index = -1;
	return 0;
}

int mlx4_multicast_attach(struct mlx4_dev *dev, struct mlx4_qp *qp, const u8 gid[16],
			  u8 port, bool block_mcast_loopback)
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	struct mlx4_cmd_mailbox *mb;
	int prev, index, members, i, err;
	u32 amgm = 0;
	bool link = false;

	mb = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mb))
		return PTR_ERR(mb);
	mutex_lock(&priv->mcg_table.mutex);

	err = mlx4_find_mgm(priv, gid, mb, &prev, &index);
	if (err)
		goto out;
	if (index == -1) {
		/* a new entry at the end of the chain */
		err = mlx4_bitmap_alloc(&priv->mcg_table.amgm, 1, 1, &amgm);
		if (err) {
			dev_err_ratelimited(&dev->pdev->dev, "no free MGM entry\n");
			goto out;
		}
		index = dev->caps.num_mgms + amgm;
		link = true;
		memset(mb->buf, 0, mlx4_mgm_size(priv));
		memcpy(mb->buf + MGM_GID, gid, 16);
	} else if (!(be32_to_cpup(mgm_field(mb, MGM_MEMBERS)) & MGM_QPN_MASK)) {
		/* the empty hash entry */
		memset(mb->buf, 0, mlx4_mgm_size(priv));
		memcpy(mb->buf + MGM_GID, gid, 16);
	}

	members = be32_to_cpup(mgm_field(mb, MGM_MEMBERS)) & MGM_QPN_MASK;
	for (i = 0; i < members; i++) {
		if ((be32_to_cpup(mgm_field(mb, MGM_QP + 4 * i)) & MGM_QPN_MASK) ==
		    qp->qpn)
			goto out;	/* already a member */
	}
	if (members >= mlx4_mgm_capacity(priv)) {
		dev_err_ratelimited(&dev->pdev->dev, "multicast group full\n");
		err = -ENOMEM;
		goto err_amgm;
	}
	*mgm_field(mb, MGM_QP + 4 * members) =
		cpu_to_be32((qp->qpn & MGM_QPN_MASK) |
			    (block_mcast_loopback ? MGM_BLOCK_LB : 0));
	*mgm_field(mb, MGM_MEMBERS) = cpu_to_be32(members + 1);
	err = mlx4_write_mgm(priv, index, mb);
	if (err)
		goto err_amgm;
	if (!link)
		goto out;

	err = mlx4_read_mgm(priv, prev, mb);
	if (err)
		goto err_entry;
	*mgm_field(mb, MGM_NEXT) = cpu_to_be32(index << 6);
	err = mlx4_write_mgm(priv, prev, mb);
	if (err)
		goto err_entry;
	goto out;

err_entry:
	mlx4_clear_mgm(priv, index, mb);
err_amgm:
	if (link)
		mlx4_bitmap_free(&priv->mcg_table.amgm, amgm, 1);
out:
	mutex_unlock(&priv->mcg_table.mutex);
	mlx4_free_cmd_mailbox(dev, mb);
	return err;
}
EXPORT_SYMBOL(mlx4_multicast_attach);

/* The group at index lost its last member: take it out of its chain. */
static int mlx4_unlink_mgm(struct mlx4_priv *priv, struct mlx4_cmd_mailbox *mb,
			   int prev, int index)
{
	int next = be32_to_cpup(mgm_field(mb, MGM_NEXT)) >> 6;
	int err;

	if (prev == -1) {
		if (!next)
			return mlx4_clear_mgm(priv, index, mb);
		/* the next entry moves into the hash entry */
		err = mlx4_read_mgm(priv, next, mb);
		if (!err)
			err = mlx4_write_mgm(priv, index, mb);
		if (err)
			return err;
		index = next;
	} else {
		err = mlx4_read_mgm(priv, prev, mb);
		if (err)
			return err;
		*mgm_field(mb, MGM_NEXT) = cpu_to_be32(next << 6);
		err = mlx4_write_mgm(priv, prev, mb);
		if (err)
			return err;
	}
	err = mlx4_clear_mgm(priv, index, mb);
	mlx4_bitmap_free(&priv->mcg_table.amgm, index - priv->dev.caps.num_mgms, 1);
	return err;
}

int mlx4_multicast_detach(struct mlx4_dev *dev, struct mlx4_qp *qp, const u8 gid[16])
{
	struct mlx4_priv *priv = mlx4_priv(dev);
	struct mlx4_cmd_mailbox *mb;
	int prev, index, members, i, err;

	mb = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mb))
		return PTR_ERR(mb);
	mutex_lock(&priv->mcg_table.mutex);

	err = mlx4_find_mgm(priv, gid, mb, &prev, &index);
	if (err)
		goto out;
	members = be32_to_cpup(mgm_field(mb, MGM_MEMBERS)) & MGM_QPN_MASK;
	if (index == -1 || !members) {
		dev_err_ratelimited(&dev->pdev->dev, "detach: no group %pI6\n", gid);
		err = -EINVAL;
		goto out;
	}
	for (i = 0; i < members; i++)
		if ((be32_to_cpup(mgm_field(mb, MGM_QP + 4 * i)) & MGM_QPN_MASK) ==
		    qp->qpn)
			break;
	if (i == members) {
		dev_err_ratelimited(&dev->pdev->dev,
				    "detach: QP 0x%x not in group %pI6\n", qp->qpn, gid);
		err = -EINVAL;
		goto out;
	}
	/* the last member takes the leaving one's slot */
	members--;
	*mgm_field(mb, MGM_QP + 4 * i) = *mgm_field(mb, MGM_QP + 4 * members);
	*mgm_field(mb, MGM_QP + 4 * members) = 0;
	*mgm_field(mb, MGM_MEMBERS) = cpu_to_be32(members);

	if (members)
		err = mlx4_write_mgm(priv, index, mb);
	else
		err = mlx4_unlink_mgm(priv, mb, prev, index);
out:
	mutex_unlock(&priv->mcg_table.mutex);
	mlx4_free_cmd_mailbox(dev, mb);
	return err;
}
EXPORT_SYMBOL(mlx4_multicast_detach);

/* The whole MCG table is backed by ICM for as long as the HCA runs. */
int mlx4_init_mcg_table(struct mlx4_priv *priv)
{
	struct mlx4_caps *caps = &priv->dev.caps;
	int err;

	caps->num_qp_per_mgm = mlx4_mgm_capacity(priv);
	mutex_init(&priv->mcg_table.mutex);
	err = mlx4_bitmap_init(&priv->mcg_table.amgm, caps->num_amgms, 0);
	if (err)
		return err;
	err = mlx4_table_get_range(priv, &priv->mcg_icm_table, 0,
				   caps->num_mgms + caps->num_amgms - 1);
	if (err) {
		mlx4_bitmap_cleanup(&priv->mcg_table.amgm);
		return err;
	}
	return 0;
}

void mlx4_cleanup_mcg_table(struct mlx4_priv *priv)
{
	struct mlx4_caps *caps = &priv->dev.caps;

	mlx4_table_put_range(priv, &priv->mcg_icm_table, 0,
			     caps->num_mgms + caps->num_amgms - 1);
	mlx4_bitmap_cleanup(&priv->mcg_table.amgm);
}

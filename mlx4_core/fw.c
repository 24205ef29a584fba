// SPDX-License-Identifier: GPL-2.0
/*
 * Firmware and HCA-wide commands: QUERY_FW, MAP_FA/RUN_FW/UNMAP_FA,
 * MOD_STAT_CFG, QUERY_DEV_CAP, QUERY_PORT, SET_ICM_SIZE, INIT_HCA,
 * CLOSE_HCA, QUERY_ADAPTER and NOP.  Mailbox layouts are the card's, all
 * big-endian; the offsets are named where they are used.
 */
#include <linux/pci.h>
#include <linux/cache.h>

#include "mlx4_core.h"

static u8 get8(const void *buf, int off)
{
	return ((const u8 *)buf)[off];
}

static u16 get16(const void *buf, int off)
{
	return be16_to_cpup((const __be16 *)(buf + off));
}

static u32 get32(const void *buf, int off)
{
	return be32_to_cpup((const __be32 *)(buf + off));
}

static u64 get64(const void *buf, int off)
{
	return (u64)get32(buf, off) << 32 | get32(buf, off + 4);
}

static void put8(void *buf, int off, u8 v)
{
	((u8 *)buf)[off] = v;
}

static void put16(void *buf, int off, u16 v)
{
	*(__be16 *)(buf + off) = cpu_to_be16(v);
}

static void put32(void *buf, int off, u32 v)
{
	*(__be32 *)(buf + off) = cpu_to_be32(v);
}

static void put64(void *buf, int off, u64 v)
{
	put32(buf, off, upper_32_bits(v));
	put32(buf, off + 4, lower_32_bits(v));
}

int mlx4_QUERY_FW(struct mlx4_priv *priv)
{
	struct mlx4_dev *dev = &priv->dev;
	struct mlx4_fw *fw = &priv->fw;
	struct mlx4_cmd_mailbox *mailbox;
	void *out;
	int err;

	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	out = mailbox->buf;

	err = mlx4_cmd_box(dev, 0, mailbox->dma, 0, 0, MLX4_CMD_QUERY_FW,
			   MLX4_CMD_TIME_A);
	if (err)
		goto out;

	fw->fw_pages = get16(out, 0x00);
	/* major @2, sub-minor @4, minor @6 */
	fw->fw_ver = (u64)get16(out, 0x02) << 32 | (u64)get16(out, 0x06) << 16 |
		     get16(out, 0x04);
	fw->cmd_if_rev = get16(out, 0x0a);
	fw->log_max_cmds = min_t(u8, get8(out, 0x0f), 8);
	fw->clr_int_base = get64(out, 0x20);
	fw->clr_int_bar = (get8(out, 0x28) >> 6) * 2;
	fw->catas_offset = get64(out, 0x30);
	fw->catas_size = get32(out, 0x38);
	fw->catas_bar = (get8(out, 0x3c) >> 6) * 2;
	dev->caps.fw_ver = fw->fw_ver;

	if (fw->cmd_if_rev != 3) {
		dev_err(&dev->pdev->dev,
			"command interface revision %u not supported (need 3)\n",
			fw->cmd_if_rev);
		err = -ENODEV;
		goto out;
	}
	dev_info(&dev->pdev->dev, "firmware %d.%d.%d, %u pages, %d commands in flight\n",
		 (int)(fw->fw_ver >> 32), (int)((fw->fw_ver >> 16) & 0xffff),
		 (int)(fw->fw_ver & 0xffff), fw->fw_pages, 1 << fw->log_max_cmds);
out:
	mlx4_free_cmd_mailbox(dev, mailbox);
	return err;
}

/* The firmware's own memory (MAP_FA), then start it (RUN_FW). */
int mlx4_map_fa_and_run(struct mlx4_priv *priv)
{
	int err;

	priv->fw_icm = mlx4_icm_alloc(priv, priv->fw.fw_pages);
	if (!priv->fw_icm)
		return -ENOMEM;

	err = mlx4_icm_map(priv, MLX4_CMD_MAP_FA, priv->fw_icm, ~0ULL);
	if (err) {
		dev_err(&priv->dev.pdev->dev, "MAP_FA failed: %d\n", err);
		goto err_free;
	}

	err = mlx4_cmd(&priv->dev, 0, 0, 0, MLX4_CMD_RUN_FW, MLX4_CMD_TIME_A);
	if (err) {
		dev_err(&priv->dev.pdev->dev, "RUN_FW failed: %d\n", err);
		goto err_unmap;
	}
	return 0;

err_unmap:
	mlx4_cmd(&priv->dev, 0, 0, 0, MLX4_CMD_UNMAP_FA, MLX4_CMD_TIME_B);
err_free:
	mlx4_icm_free(priv, priv->fw_icm);
	priv->fw_icm = NULL;
	return err;
}

void mlx4_unmap_fa(struct mlx4_priv *priv)
{
	mlx4_cmd(&priv->dev, 0, 0, 0, MLX4_CMD_UNMAP_FA, MLX4_CMD_TIME_B);
	mlx4_icm_free(priv, priv->fw_icm);
	priv->fw_icm = NULL;
}

/* Ask for 4 KiB pages (log_pg_sz_m 1, log_pg_sz 0); failure only warns. */
int mlx4_MOD_STAT_CFG(struct mlx4_priv *priv)
{
	struct mlx4_cmd_mailbox *mailbox;
	int err;

	mailbox = mlx4_alloc_cmd_mailbox(&priv->dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	put8(mailbox->buf, 0x02, 1);
	put8(mailbox->buf, 0x03, 0);
	err = mlx4_cmd(&priv->dev, mailbox->dma, 0, 0, MLX4_CMD_MOD_STAT_CFG,
		       MLX4_CMD_TIME_A);
	mlx4_free_cmd_mailbox(&priv->dev, mailbox);
	if (err)
		dev_warn(&priv->dev.pdev->dev, "MOD_STAT_CFG failed: %d\n", err);
	return err;
}

/* The physical port GUID (MOD_STAT_CFG op 2), or 0. */
u64 mlx4_query_port_guid(struct mlx4_priv *priv, int port)
{
	struct mlx4_cmd_mailbox *mailbox;
	u64 guid = 0;

	mailbox = mlx4_alloc_cmd_mailbox(&priv->dev);
	if (IS_ERR(mailbox))
		return 0;
	if (!mlx4_cmd_box(&priv->dev, 0, mailbox->dma, port << 8, 2,
			  MLX4_CMD_MOD_STAT_CFG, MLX4_CMD_TIME_A))
		guid = (u64)get32(mailbox->buf, 0x14) << 32 |
		       get32(mailbox->buf, 0x1c);
	mlx4_free_cmd_mailbox(&priv->dev, mailbox);
	return guid;
}

int mlx4_QUERY_DEV_CAP(struct mlx4_priv *priv)
{
	struct mlx4_dev_cap *c = &priv->dev_cap;
	struct mlx4_cmd_mailbox *mailbox;
	void *o;
	int err;

	mailbox = mlx4_alloc_cmd_mailbox(&priv->dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	o = mailbox->buf;
	err = mlx4_cmd_box(&priv->dev, 0, mailbox->dma, 0, 0,
			   MLX4_CMD_QUERY_DEV_CAP, MLX4_CMD_TIME_A);
	if (err)
		goto out;

	c->max_srq_sz = 1 << get8(o, 0x10);
	c->max_qp_sz = 1 << get8(o, 0x11);
	c->reserved_qps = 1 << (get8(o, 0x12) & 0xf);
	c->max_qps = 1 << (get8(o, 0x13) & 0x1f);
	c->reserved_srqs = 1 << (get8(o, 0x14) >> 4);
	c->max_srqs = 1 << (get8(o, 0x15) & 0x1f);
	c->reserved_xrcds = get8(o, 0x66) >> 4;
	c->max_xrcds = 1 << (get8(o, 0x67) & 0x1f);
	c->max_cq_sz = 1 << get8(o, 0x19);
	c->reserved_cqs = 1 << (get8(o, 0x1a) & 0xf);
	c->max_cqs = 1 << (get8(o, 0x1b) & 0x1f);
	c->max_mpts = 1 << (get8(o, 0x1d) & 0x3f);
	c->reserved_eqs = 1 << (get8(o, 0x1e) & 0xf);
	c->max_eqs = 1 << (get8(o, 0x1f) & 0xf);
	c->reserved_mtts = 1 << (get8(o, 0x20) >> 4);
	c->max_mrw_sz = 1ULL << (get8(o, 0x21) & 0x3f);
	c->reserved_mrws = 1 << (get8(o, 0x22) & 0xf);
	c->max_requester_per_qp = 1 << (get8(o, 0x29) & 0x3f);
	c->max_responder_per_qp = 1 << (get8(o, 0x2b) & 0x3f);
	c->local_ca_ack_delay = get8(o, 0x35) & 0x1f;
	c->num_ports = get8(o, 0x37) & 0xf;
	c->max_msg_sz = 1U << (get8(o, 0x38) & 0x1f);
	/* the largest LSO message, a log; 0 when the card has no LSO */
	c->max_gso_sz = get8(o, 0x2d) & 0x1f ? 1U << (get8(o, 0x2d) & 0x1f) : 0;
	c->stat_rate_support = get16(o, 0x3c);
	c->flags = get64(o, 0x40);
	c->reserved_uars = get8(o, 0x48) >> 4;
	c->uar_size = 1 << ((get8(o, 0x49) & 0x3f) + 20);
	c->min_page_sz = 1 << get8(o, 0x4b);
	/*
	 * BlueFlame (bit 7 of 0x4c): the log of a register's size and of the
	 * registers per page; more than a page holds count as what fits
	 */
	if (get8(o, 0x4c) & 0x80) {
		c->bf_reg_size = 1 << (get8(o, 0x4d) & 0x1f);
		c->bf_regs_per_page = 1 << (get8(o, 0x4e) & 0x3f);
		if (c->bf_reg_size > PAGE_SIZE || !c->bf_reg_size)
			c->bf_reg_size = 0;
		else if (c->bf_regs_per_page > PAGE_SIZE / c->bf_reg_size)
			c->bf_regs_per_page = PAGE_SIZE / c->bf_reg_size;
	} else {
		c->bf_reg_size = 0;
		c->bf_regs_per_page = 0;
	}
	c->max_sq_sg = get8(o, 0x51);
	c->max_sq_desc_sz = get16(o, 0x52);
	c->max_rq_sg = get8(o, 0x55);
	c->max_rq_desc_sz = get16(o, 0x56);
	c->max_qp_per_mcg = 1 << get8(o, 0x61);
	c->reserved_mgms = get8(o, 0x62) & 0xf;
	c->max_mcgs = 1 << get8(o, 0x63);
	c->reserved_pds = get8(o, 0x64) >> 4;
	c->max_pds = 1 << (get8(o, 0x65) & 0x3f);
	c->rdmarc_entry_sz = get16(o, 0x80);
	c->qpc_entry_sz = get16(o, 0x82);
	c->aux_entry_sz = get16(o, 0x84);
	c->altc_entry_sz = get16(o, 0x86);
	c->eqc_entry_sz = get16(o, 0x88);
	c->cqc_entry_sz = get16(o, 0x8a);
	c->srq_entry_sz = get16(o, 0x8c);
	c->cmpt_entry_sz = get16(o, 0x8e);
	c->mtt_entry_sz = get16(o, 0x90);
	c->dmpt_entry_sz = get16(o, 0x92);
	c->bmme_flags = get32(o, 0x94);
	c->reserved_lkey = get32(o, 0x98);
	c->max_icm_sz = get64(o, 0xa0);

	if (c->num_ports < 1 || c->num_ports > MLX4_MAX_PORTS) {
		dev_err(&priv->dev.pdev->dev, "%d ports not supported\n",
			c->num_ports);
		err = -ENODEV;
	} else if (c->min_page_sz > PAGE_SIZE) {
		dev_err(&priv->dev.pdev->dev, "minimum page size %d too big\n",
			c->min_page_sz);
		err = -ENODEV;
	} else if (c->uar_size > pci_resource_len(priv->dev.pdev, 2)) {
		dev_err(&priv->dev.pdev->dev, "UAR area %d beyond BAR2\n",
			c->uar_size);
		err = -ENODEV;
	} else if (c->mtt_entry_sz != 8 || !c->qpc_entry_sz ||
		   !c->cqc_entry_sz || !c->eqc_entry_sz || !c->dmpt_entry_sz ||
		   !c->srq_entry_sz || !c->cmpt_entry_sz) {
		dev_err(&priv->dev.pdev->dev, "unexpected context entry sizes\n");
		err = -ENODEV;
	}
	/* the BlueFlame pages follow the UARs in BAR2 */
	if (!err && c->bf_reg_size &&
	    2ULL * c->uar_size > pci_resource_len(priv->dev.pdev, 2)) {
		dev_warn(&priv->dev.pdev->dev, "BlueFlame pages beyond BAR2: BlueFlame off\n");
		c->bf_reg_size = 0;
		c->bf_regs_per_page = 0;
	}
out:
	mlx4_free_cmd_mailbox(&priv->dev, mailbox);
	return err;
}

int mlx4_QUERY_PORT(struct mlx4_priv *priv, int port)
{
	struct mlx4_dev_cap *c = &priv->dev_cap;
	struct mlx4_cmd_mailbox *mailbox;
	void *o;
	int err;

	mailbox = mlx4_alloc_cmd_mailbox(&priv->dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	o = mailbox->buf;
	err = mlx4_cmd_box(&priv->dev, 0, mailbox->dma, port, 0,
			   MLX4_CMD_QUERY_PORT, MLX4_CMD_TIME_A);
	if (err)
		goto out;
	c->port_supported_type[port] = get8(o, 0x00) & 3;
	c->ib_mtu[port] = get8(o, 0x01) & 0xf;
	c->max_port_width[port] = get8(o, 0x06) & 0xf;
	c->max_gids[port] = 1 << (get8(o, 0x07) >> 4);
	c->max_pkeys[port] = 1 << (get8(o, 0x07) & 0xf);
	c->max_vl[port] = get8(o, 0x0b) & 0xf;
	if (!(c->port_supported_type[port] & 1)) {
		dev_err(&priv->dev.pdev->dev, "port %d is not InfiniBand\n",
			port);
		err = -ENODEV;
	}
out:
	mlx4_free_cmd_mailbox(&priv->dev, mailbox);
	return err;
}

int mlx4_SET_ICM_SIZE(struct mlx4_priv *priv, u64 icm_size, u64 *aux_pages)
{
	return mlx4_cmd_imm(&priv->dev, icm_size, aux_pages, 0, 0,
			    MLX4_CMD_SET_ICM_SIZE, MLX4_CMD_TIME_A);
}

int mlx4_INIT_HCA(struct mlx4_priv *priv)
{
	struct mlx4_profile *p = &priv->profile;
	struct mlx4_cmd_mailbox *mailbox;
	void *in;
	u32 flags = 0;
	int err;

	mailbox = mlx4_alloc_cmd_mailbox(&priv->dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	in = mailbox->buf;

	put8(in, 0x00, 2);				/* version */
	put8(in, 0x0e, ((ilog2(cache_line_size()) - 4) << 5) | (1 << 4));
	if (priv->dev_cap.flags & MLX4_DEV_CAP_FLAG_UD_AV_PORT)
		flags |= 1;			/* check the port in UD AVs */
#ifdef __BIG_ENDIAN
	flags |= 1 << 1;
#endif
	put32(in, 0x14, flags);

	/* each base is page aligned; its low byte holds the table's log */
	put64(in, 0x30, p->qpc_base | p->log_num_qps);
	put64(in, 0x48, p->srqc_base | p->log_num_srqs);
	put64(in, 0x50, p->cqc_base | p->log_num_cqs);
	put64(in, 0x60, p->altc_base);
	put64(in, 0x70, p->auxc_base);
	put64(in, 0x80, p->eqc_base | p->log_num_eqs);
	put16(in, 0x8a, 0);				/* no system EQs */
	put64(in, 0x90, p->rdmarc_base | p->log_rd_per_qp);

	put64(in, 0xc0, p->mcg_base);
	put8(in, 0xd3, p->log_mcg_entry_sz);
	put8(in, 0xd7, p->log_mcg_hash_sz);
	put8(in, 0xdb, p->log_mcg_table_sz);

	put64(in, 0xf0, p->dmpt_base);
	put8(in, 0xfb, p->log_num_mpts);
	put64(in, 0x100, p->mtt_base);
	put64(in, 0x108, p->cmpt_base);

	put8(in, 0x12a, ilog2(priv->dev.caps.num_uars));
	put8(in, 0x12b, PAGE_SHIFT - MLX4_ICM_PAGE_SHIFT);

	err = mlx4_cmd(&priv->dev, mailbox->dma, 0, 0, MLX4_CMD_INIT_HCA,
		       MLX4_CMD_TIME_C);
	if (err)
		dev_err(&priv->dev.pdev->dev, "INIT_HCA failed: %d\n", err);
	mlx4_free_cmd_mailbox(&priv->dev, mailbox);
	return err;
}

/*
 * The HCA's core clock, in MHz, from QUERY_HCA (u16 at 0x0c) once INIT_HCA
 * has run: what ibv_devinfo -v shows as hca_core_clock, as upstream's.
 * 0 if the card reports none.
 */
int mlx4_QUERY_HCA_clock(struct mlx4_priv *priv)
{
	struct mlx4_cmd_mailbox *mailbox;
	int err;

	mailbox = mlx4_alloc_cmd_mailbox(&priv->dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	err = mlx4_cmd_box(&priv->dev, 0, mailbox->dma, 0, 0, MLX4_CMD_QUERY_HCA,
			   MLX4_CMD_TIME_A);
	if (!err)
		priv->dev.caps.hca_core_clock = get16(mailbox->buf, 0x0c);
	mlx4_free_cmd_mailbox(&priv->dev, mailbox);
	return err;
}

int mlx4_CLOSE_HCA(struct mlx4_priv *priv)
{
	return mlx4_cmd(&priv->dev, 0, 0, 0, MLX4_CMD_CLOSE_HCA,
			MLX4_CMD_TIME_C);
}

int mlx4_QUERY_ADAPTER(struct mlx4_priv *priv)
{
	struct mlx4_dev *dev = &priv->dev;
	struct mlx4_cmd_mailbox *mailbox;
	const u8 *id;
	int err, i;

	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	err = mlx4_cmd_box(dev, 0, mailbox->dma, 0, 0, MLX4_CMD_QUERY_ADAPTER,
			   MLX4_CMD_TIME_A);
	if (err)
		goto out;
	priv->fw.inta_pin = get8(mailbox->buf, 0x10);
	/* the board id (PSID), 16 bytes at 0xf0, each dword byte-swapped */
	id = mailbox->buf + 0xf0;
	memset(dev->board_id, 0, sizeof(dev->board_id));
	for (i = 0; i < 16; i++)
		dev->board_id[i] = id[(i & ~3) + 3 - (i & 3)];
	dev->board_id[16] = '\0';
out:
	mlx4_free_cmd_mailbox(dev, mailbox);
	return err;
}

/* "Finish as soon as possible": used to test the interrupt path. */
int mlx4_NOP(struct mlx4_priv *priv)
{
	return mlx4_cmd(&priv->dev, 0, 0x1f, 0, MLX4_CMD_NOP, MLX4_CMD_TIME_NOP);
}

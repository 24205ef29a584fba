// SPDX-License-Identifier: GPL-2.0
/*
 * mlx4_core: the PCI driver of the ConnectX-3 (15b3:1003), native
 * InfiniBand only.  Probe/remove, and the load/unload ladder that brings
 * the firmware and the HCA up and takes them down again (also used by the
 * catastrophic-error recovery).
 */
#include <linux/dma-mapping.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "mlx4_core.h"

MODULE_AUTHOR("ibstack");
MODULE_DESCRIPTION("ConnectX-3 core driver (InfiniBand)");
MODULE_LICENSE("GPL");

/* Capabilities mlx4_ib sees, from QUERY_FW/QUERY_DEV_CAP/QUERY_PORT */
static void mlx4_fill_caps(struct mlx4_priv *priv)
{
	struct mlx4_dev_cap *c = &priv->dev_cap;
	struct mlx4_caps *caps = &priv->dev.caps;
	struct pci_dev *pdev = priv->dev.pdev;
	int port;

	caps->num_ports = c->num_ports;
	for (port = 1; port <= c->num_ports; port++) {
		caps->vl_cap[port] = c->max_vl[port];
		caps->ib_mtu_cap[port] = c->ib_mtu[port];
		caps->port_ib_mtu[port] = c->ib_mtu[port];
		caps->port_width_cap[port] = c->max_port_width[port];
		caps->gid_table_len[port] = c->max_gids[port];
		caps->pkey_table_len[port] = c->max_pkeys[port];
		caps->def_port_guid[port] = mlx4_query_port_guid(priv, port);
	}
	caps->local_ca_ack_delay = c->local_ca_ack_delay;
	caps->num_uars = c->uar_size / PAGE_SIZE;
	caps->uar_page_size = PAGE_SIZE;
	caps->bf_reg_size = c->bf_reg_size;
	caps->bf_regs_per_page = c->bf_regs_per_page;
	caps->max_sq_sg = c->max_sq_sg;
	caps->max_rq_sg = c->max_rq_sg;
	caps->max_wqes = c->max_qp_sz;
	caps->max_sq_desc_sz = c->max_sq_desc_sz;
	caps->max_rq_desc_sz = c->max_rq_desc_sz;
	caps->max_qp_init_rdma = c->max_requester_per_qp;
	caps->max_qp_dest_rdma = c->max_responder_per_qp;
	caps->max_srq_wqes = c->max_srq_sz;
	/* an SRQ WQE starts with its next-WQE segment */
	caps->max_srq_sge = c->max_rq_sg - 1;
	caps->reserved_srqs = c->reserved_srqs;
	caps->reserved_xrcds = (c->flags & MLX4_DEV_CAP_FLAG_XRC) ? c->reserved_xrcds : 0;
	caps->max_xrcds = (c->flags & MLX4_DEV_CAP_FLAG_XRC) ? c->max_xrcds : 0;
	caps->max_cqes = c->max_cq_sz - 1;
	caps->reserved_cqs = c->reserved_cqs;
	caps->reserved_mrws = c->reserved_mrws;
	/* upstream mlx4's count (MLX4_NUM_PDS), within what the card offers */
	caps->num_pds = min_t(int, c->max_pds, MLX4_NUM_PDS);
	caps->reserved_pds = c->reserved_pds;
	caps->reserved_lkey = (c->bmme_flags & BIT(10)) ? c->reserved_lkey : 0;
	caps->max_mr_size = c->max_mrw_sz;
	caps->page_size_cap = ~(u32)(c->min_page_sz - 1);
	caps->flags = c->flags;
	caps->bmme_flags = c->bmme_flags;
	caps->stat_rate_support = c->stat_rate_support;
	caps->vendor_id = pdev->vendor;
	caps->device_id = pdev->device;
	caps->hw_rev = pdev->revision;
	caps->max_msg_sz = c->max_msg_sz;
	caps->max_gso_sz = c->max_gso_sz;
}

static int mlx4_query_hca(struct mlx4_priv *priv)
{
	int port, err;

	err = mlx4_QUERY_FW(priv);
	if (err)
		return err;
	err = mlx4_map_fa_and_run(priv);
	if (err)
		return err;
	mlx4_MOD_STAT_CFG(priv);
	err = mlx4_QUERY_DEV_CAP(priv);
	if (err)
		goto err_fa;
	for (port = 1; port <= priv->dev_cap.num_ports; port++) {
		err = mlx4_QUERY_PORT(priv, port);
		if (err)
			goto err_fa;
	}
	mlx4_fill_caps(priv);
	return 0;

err_fa:
	mlx4_unmap_fa(priv);
	return err;
}

/*
 * Bring the card from reset to a running HCA with EQs, resource tables and
 * initialised ports.  Undoes everything on failure.
 */
int mlx4_load(struct mlx4_priv *priv)
{
	struct device *d = &priv->dev.pdev->dev;
	int err;

	err = mlx4_get_ownership(priv);
	if (err)
		return err;
	err = mlx4_reset(priv);
	if (err)
		goto err_owner;
	/* off if the reset after an internal error failed */
	pci_set_master(priv->dev.pdev);
	err = mlx4_cmd_init(priv);
	if (err)
		goto err_owner;
	err = mlx4_query_hca(priv);
	if (err)
		goto err_cmd;
	err = mlx4_make_profile(priv);
	if (err)
		goto err_fa;
	err = mlx4_init_icm(priv);
	if (err)
		goto err_fa;
	err = mlx4_INIT_HCA(priv);
	if (err)
		goto err_icm;
	err = mlx4_QUERY_ADAPTER(priv);
	if (err)
		goto err_close_hca;
	err = mlx4_QUERY_HCA_clock(priv);
	if (err)
		goto err_close_hca;
	err = mlx4_init_uar_table(priv);
	if (err)
		goto err_close_hca;
	err = mlx4_init_mr_table(priv);
	if (err)
		goto err_uar;
	err = mlx4_init_eq_table(priv);
	if (err)
		goto err_mr;
	err = mlx4_init_cq_table(priv);
	if (err)
		goto err_eq;
	err = mlx4_init_srq_table(priv);
	if (err)
		goto err_cq;
	err = mlx4_init_qp_table(priv);
	if (err)
		goto err_srq;
	err = mlx4_init_mcg_table(priv);
	if (err)
		goto err_qp;
	/* IB port parameters; the PHYs are brought up by mlx4_ib */
	err = mlx4_init_ports(priv);
	if (err)
		goto err_mcg;
	err = mlx4_map_catas(priv);
	if (err)
		goto err_mcg;

	priv->loaded = true;
	dev_info(d, "ConnectX-3 %s up: %d port(s), %d completion vector(s)\n",
		 priv->dev.board_id, priv->dev.caps.num_ports,
		 priv->dev.caps.num_comp_vectors);
	return 0;

err_mcg:
	mlx4_cleanup_mcg_table(priv);
err_qp:
	mlx4_cleanup_qp_table(priv);
err_srq:
	mlx4_cleanup_srq_table(priv);
err_cq:
	mlx4_cleanup_cq_table(priv);
err_eq:
	mlx4_cleanup_eq_table(priv);
err_mr:
	mlx4_cleanup_mr_table(priv);
err_uar:
	mlx4_cleanup_uar_table(priv);
err_close_hca:
	mlx4_CLOSE_HCA(priv);
err_icm:
	mlx4_cleanup_icm(priv);
err_fa:
	mlx4_unmap_fa(priv);
err_cmd:
	mlx4_cmd_cleanup(priv);
err_owner:
	mlx4_free_ownership(priv);
	dev_err(d, "bringing the card up failed: %d\n", err);
	return err;
}

/* The reverse of mlx4_load(); commands may fail (internal error) */
void mlx4_unload(struct mlx4_priv *priv)
{
	int err;

	priv->loaded = false;
	mlx4_unmap_catas(priv);
	mlx4_cleanup_mcg_table(priv);
	mlx4_cleanup_qp_table(priv);
	mlx4_cleanup_srq_table(priv);
	mlx4_cleanup_cq_table(priv);
	mlx4_cleanup_eq_table(priv);
	mlx4_cleanup_mr_table(priv);
	mlx4_cleanup_uar_table(priv);
	err = mlx4_CLOSE_HCA(priv);
	if (err && !mlx4_is_internal_error(&priv->dev))
		dev_warn(&priv->dev.pdev->dev, "CLOSE_HCA failed: %d\n", err);
	mlx4_cleanup_icm(priv);
	mlx4_unmap_fa(priv);
	mlx4_cmd_cleanup(priv);
	mlx4_free_ownership(priv);
}

static int mlx4_pci_setup(struct pci_dev *pdev)
{
	int err;

	err = pci_enable_device(pdev);
	if (err) {
		dev_err(&pdev->dev, "cannot enable the PCI device: %d\n", err);
		return err;
	}
	if (!(pci_resource_flags(pdev, 0) & IORESOURCE_MEM) ||
	    !(pci_resource_flags(pdev, 2) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, 0) < MLX4_RESET_BASE + MLX4_RESET_SEM + 4) {
		dev_err(&pdev->dev, "BAR0 (registers) or BAR2 (UARs) missing\n");
		err = -ENODEV;
		goto err_disable;
	}
	err = pci_request_regions(pdev, DRV_NAME);
	if (err) {
		dev_err(&pdev->dev, "cannot claim the BARs: %d\n", err);
		goto err_disable;
	}
	pci_set_master(pdev);
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
	if (err) {
		dev_err(&pdev->dev, "no usable DMA mask\n");
		goto err_regions;
	}
	dma_set_max_seg_size(&pdev->dev, SZ_1G);
	return 0;

err_regions:
	pci_release_regions(pdev);
err_disable:
	pci_disable_device(pdev);
	return err;
}

static void mlx4_pci_teardown(struct pci_dev *pdev)
{
	pci_clear_master(pdev);
	pci_release_regions(pdev);
	pci_disable_device(pdev);
}

static int mlx4_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct mlx4_priv *priv;
	int err;

	err = mlx4_pci_setup(pdev);
	if (err)
		return err;

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv) {
		err = -ENOMEM;
		goto err_pci;
	}
	priv->dev.pdev = pdev;
	priv->dev.priv = priv;
	priv->msi_x = true;
	INIT_LIST_HEAD(&priv->ctx_list);
	spin_lock_init(&priv->ctx_lock);
	xa_init_flags(&priv->cq_table.xa, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&priv->qp_table.xa, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&priv->srq_table.xa, XA_FLAGS_LOCK_IRQ);
	mlx4_init_db_table(priv);
	err = mlx4_init_catas(priv);
	if (err)
		goto err_free;

	priv->bar0 = pci_iomap(pdev, 0, 0);
	if (!priv->bar0) {
		err = -ENOMEM;
		goto err_catas;
	}
	pci_set_drvdata(pdev, priv);

	err = mlx4_load(priv);
	if (err)
		goto err_unmap;
	mlx4_register_device(priv);
	mlx4_start_catas_poll(priv);
	/*
	 * Every port is InfiniBand: its driver is mlx4_ib.  As the in-tree
	 * mlx4_core, load it, so that "modprobe mlx4_core" (or the card's
	 * modalias at boot, without rdma-core's udev rule) brings the IB
	 * device up; never waits, and no error if it is not there.
	 */
	request_module_nowait("mlx4_ib");
	return 0;

err_unmap:
	pci_set_drvdata(pdev, NULL);
	pci_iounmap(pdev, priv->bar0);
err_catas:
	mlx4_cleanup_catas(priv);
err_free:
	kfree(priv);
err_pci:
	mlx4_pci_teardown(pdev);
	return err;
}

static void mlx4_remove(struct pci_dev *pdev)
{
	struct mlx4_priv *priv = pci_get_drvdata(pdev);

	/*
	 * A recovery under way ends first and none starts after; an error
	 * while the interfaces go still resets the card (the poll runs on)
	 * and tells them, so that none waits for a dead card.
	 */
	mlx4_forbid_restart(priv);
	mlx4_unregister_device(priv);
	mlx4_stop_catas_poll(priv);
	if (priv->loaded)
		mlx4_unload(priv);
	/* the health work still queued ends before priv goes */
	mlx4_cleanup_catas(priv);
	mlx4_cleanup_db_table(priv);
	xa_destroy(&priv->cq_table.xa);
	xa_destroy(&priv->qp_table.xa);
	xa_destroy(&priv->srq_table.xa);
	pci_set_drvdata(pdev, NULL);
	pci_iounmap(pdev, priv->bar0);
	kfree(priv);
	mlx4_pci_teardown(pdev);
}

static const struct pci_device_id mlx4_pci_table[] = {
	{ PCI_VDEVICE(MELLANOX, 0x1003) },	/* ConnectX-3 */
	{ }
};
MODULE_DEVICE_TABLE(pci, mlx4_pci_table);

static struct pci_driver mlx4_driver = {
	.name		= DRV_NAME,
	.id_table	= mlx4_pci_table,
	.probe		= mlx4_probe,
	.remove		= mlx4_remove,
};

static int __init mlx4_init(void)
{
	return pci_register_driver(&mlx4_driver);
}

static void __exit mlx4_exit(void)
{
	pci_unregister_driver(&mlx4_driver);
}

module_init(mlx4_init);
module_exit(mlx4_exit);

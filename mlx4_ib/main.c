// SPDX-License-Identifier: GPL-2.0
/*
 * mlx4_ib: the InfiniBand device of a ConnectX-3.  mlx4_core adds and
 * removes us per card (the mlx4_interface) and forwards port and device
 * events; we build the ib_device, register it with ib_core once it is
 * complete, and turn the events into ib events.
 */
#include <linux/module.h>

#include "mlx4_ib.h"

MODULE_AUTHOR("ibstack");
MODULE_DESCRIPTION("InfiniBand device of Mellanox ConnectX-3 HCAs");
MODULE_LICENSE("GPL");

static enum rdma_link_layer mlx4_ib_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_INFINIBAND;
}

static void mlx4_ib_get_fw_str(struct ib_device *ibdev, char *buf, size_t len)
{
	u64 fw = to_mdev(ibdev)->dev->caps.fw_ver;

	snprintf(buf, len, "%d.%d.%d", (int)(fw >> 32) & 0xffff,
		 (int)(fw >> 16) & 0xffff, (int)fw & 0xffff);
}

/* [sleep] what every ConnectX-3 IB port is, with its table sizes */
static int mlx4_ib_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int err;

	err = mlx4_ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static const struct ib_device_ops mlx4_ib_dev_ops = {
	.owner		= THIS_MODULE,
	.driver_id	= RDMA_DRIVER_MLX4,
	.uverbs_abi_ver	= MLX4_IB_UVERBS_ABI_VERSION,
	.alloc_ucontext	= mlx4_ib_alloc_ucontext,
	.dealloc_ucontext = mlx4_ib_dealloc_ucontext,
	.mmap		= mlx4_ib_mmap,
	.query_device_user = mlx4_ib_query_device_user,
	.query_device	= mlx4_ib_query_device,
	.query_port	= mlx4_ib_query_port,
	.get_port_immutable = mlx4_ib_port_immutable,
	.query_gid	= mlx4_ib_query_gid,
	.query_pkey	= mlx4_ib_query_pkey,
	.modify_device	= mlx4_ib_modify_device,
	.modify_port	= mlx4_ib_modify_port,
	.get_link_layer	= mlx4_ib_get_link_layer,
	.get_dev_fw_str	= mlx4_ib_get_fw_str,
	.process_mad	= mlx4_ib_process_mad,
	.alloc_pd	= mlx4_ib_alloc_pd,
	.dealloc_pd	= mlx4_ib_dealloc_pd,
	.get_dma_mr	= mlx4_ib_get_dma_mr,
	.reg_kernel_mr	= mlx4_ib_reg_kernel_mr,
	.dereg_mr	= mlx4_ib_dereg_mr,
	.reg_user_mr	= mlx4_ib_reg_user_mr,
	.rereg_user_mr	= mlx4_ib_rereg_user_mr,
	.alloc_mr	= mlx4_ib_alloc_mr,
	.map_mr_sg	= mlx4_ib_map_mr_sg,
	.alloc_xrcd	= mlx4_ib_alloc_xrcd,
	.dealloc_xrcd	= mlx4_ib_dealloc_xrcd,
	.create_cq	= mlx4_ib_create_cq,
	.destroy_cq	= mlx4_ib_destroy_cq,
	.modify_cq	= mlx4_ib_modify_cq,
	.resize_cq	= mlx4_ib_resize_cq,
	.create_qp	= mlx4_ib_create_qp,
	.modify_qp	= mlx4_ib_modify_qp,
	.query_qp	= mlx4_ib_query_qp,
	.destroy_qp	= mlx4_ib_destroy_qp,
	.create_srq	= mlx4_ib_create_srq,
	.modify_srq	= mlx4_ib_modify_srq,
	.query_srq	= mlx4_ib_query_srq,
	.destroy_srq	= mlx4_ib_destroy_srq,
	.attach_mcast	= mlx4_ib_attach_mcast,
	.detach_mcast	= mlx4_ib_detach_mcast,
	.create_ah	= mlx4_ib_create_ah,
	.query_ah	= mlx4_ib_query_ah,
	.destroy_ah	= mlx4_ib_destroy_ah,
	.post_send	= mlx4_ib_post_send,
	.post_recv	= mlx4_ib_post_recv,
	.post_srq_recv	= mlx4_ib_post_srq_recv,
	.poll_cq	= mlx4_ib_poll_cq,
	.req_notify_cq	= mlx4_ib_req_notify_cq,
};

/* memory windows, for a card that has either type (as upstream) */
static const struct ib_device_ops mlx4_ib_dev_mw_ops = {
	.alloc_mw	= mlx4_ib_alloc_mw,
	.dealloc_mw	= mlx4_ib_dealloc_mw,
	.size_ib_mw	= sizeof(struct mlx4_ib_mw),
};

/* [sleep] PHY of an IB port on (idempotent) */
int mlx4_ib_init_port(struct mlx4_ib_dev *dev, u32 port)
{
	int err;

	err = mlx4_cmd(dev->dev, 0, port, 0, MLX4_CMD_INIT_PORT, MLX4_CMD_TIME_A);
	if (err)
		mlx4_ib_warn(dev, "INIT_PORT %u failed (%d)\n", port, err);
	else
		dev->port_inited[port] = true;
	return err;
}

void mlx4_ib_close_port(struct mlx4_ib_dev *dev, u32 port)
{
	if (!dev->port_inited[port])
		return;
	/* after a catastrophic error the firmware is gone anyway */
	if (!mlx4_is_internal_error(dev->dev) &&
	    mlx4_cmd(dev->dev, 0, port, 0, MLX4_CMD_CLOSE_PORT, MLX4_CMD_TIME_A))
		mlx4_ib_warn(dev, "CLOSE_PORT %u failed\n", port);
	dev->port_inited[port] = false;
}

static void mlx4_ib_close_ports(struct mlx4_ib_dev *ibdev)
{
	int port;

	for (port = 1; port <= ibdev->num_ports; port++)
		mlx4_ib_close_port(ibdev, port);
}

static void *mlx4_ib_add(struct mlx4_dev *dev)
{
	struct mlx4_ib_dev *ibdev;
	int port, err;

	BUILD_BUG_ON(offsetof(struct mlx4_ib_dev, ib_dev) != 0);
	mlx4_hw_qpc_layout_checks();
	mlx4_hw_wqe_layout_checks();

	if (dev->caps.num_ports < 1 || dev->caps.num_ports > MLX4_MAX_PORTS) {
		dev_warn(&dev->pdev->dev, DRV_NAME ": %d ports, not using the card\n",
			 dev->caps.num_ports);
		return NULL;
	}

	ibdev = ib_alloc_device(mlx4_ib_dev, ib_dev);
	if (!ibdev) {
		dev_err(&dev->pdev->dev, DRV_NAME ": no memory for the device\n");
		return NULL;
	}
	ibdev->dev = dev;
	ibdev->num_ports = dev->caps.num_ports;
	ibdev->uar = mlx4_kernel_uar(dev);
	ibdev->uar_map = ibdev->uar ? ibdev->uar->map : NULL;
	mutex_init(&ibdev->cap_mask_mutex);
	/* taken inside CQ locks (destroy_qp), so with interrupts off */
	xa_init_flags(&ibdev->qps, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&ibdev->xrc_srqs, XA_FLAGS_LOCK_IRQ);
	spin_lock_init(&ibdev->reset_lock);
	INIT_LIST_HEAD(&ibdev->qp_list);
	INIT_WORK(&ibdev->catas_work, mlx4_ib_catas_flush_work);
	if (!ibdev->uar_map) {
		mlx4_ib_warn(ibdev, "no kernel UAR mapped\n");
		goto err_dealloc;
	}

	err = mlx4_ib_init_node_data(ibdev);
	if (err) {
		mlx4_ib_warn(ibdev, "NodeInfo/NodeDescription query failed (%d)\n", err);
		goto err_dealloc;
	}

	/* the PHYs come up now, so a cabled port links without QP0 */
	for (port = 1; port <= ibdev->num_ports; port++)
		mlx4_ib_init_port(ibdev, port);

	ib_set_device_ops(&ibdev->ib_dev, &mlx4_ib_dev_ops);
	if ((dev->caps.flags & MLX4_DEV_CAP_FLAG_MEM_WINDOW) ||
	    (dev->caps.bmme_flags & MLX4_BMME_FLAG_TYPE_2_WIN))
		ib_set_device_ops(&ibdev->ib_dev, &mlx4_ib_dev_mw_ops);
	ibdev->ib_dev.node_type = RDMA_NODE_IB_CA;
	ibdev->ib_dev.phys_port_cnt = ibdev->num_ports;
	ibdev->ib_dev.num_comp_vectors = dev->caps.num_comp_vectors;
	ibdev->ib_dev.uverbs_cmd_mask = 0;
	ibdev->ib_dev.driver_group = &mlx4_ib_attr_group;
	ibdev->ib_dev.driver_groups = mlx4_ib_driver_groups;

	err = ib_register_device(&ibdev->ib_dev, "mlx4_%d", &dev->pdev->dev);
	if (err) {
		mlx4_ib_warn(ibdev, "ib_register_device failed (%d)\n", err);
		goto err_ports;
	}
	/*
	 * Port events of this add() (a port that went ACTIVE or DOWN after
	 * ib_core read the ports) come from mlx4_core once we return.
	 */
	WRITE_ONCE(ibdev->registered, true);
	mlx4_ib_info(ibdev, "%s: %d port(s), firmware %d.%d.%d\n",
		     ibdev->ib_dev.name, ibdev->num_ports,
		     (int)(dev->caps.fw_ver >> 32) & 0xffff,
		     (int)(dev->caps.fw_ver >> 16) & 0xffff,
		     (int)dev->caps.fw_ver & 0xffff);
	return ibdev;

err_ports:
	mlx4_ib_close_ports(ibdev);
err_dealloc:
	xa_destroy(&ibdev->qps);
	xa_destroy(&ibdev->xrc_srqs);
	ib_dealloc_device(&ibdev->ib_dev);
	return NULL;
}

static void mlx4_ib_remove(struct mlx4_dev *dev, void *context)
{
	struct mlx4_ib_dev *ibdev = context;

	ib_unregister_device(&ibdev->ib_dev);
	WRITE_ONCE(ibdev->registered, false);
	/* every QP is gone: a flush still queued has nothing to do */
	cancel_work_sync(&ibdev->catas_work);
	mlx4_ib_close_ports(ibdev);
	WARN_ON(!xa_empty(&ibdev->qps));
	WARN_ON(!xa_empty(&ibdev->xrc_srqs));
	xa_destroy(&ibdev->qps);
	xa_destroy(&ibdev->xrc_srqs);
	ib_dealloc_device(&ibdev->ib_dev);
}

/* [any] possibly in hard-IRQ context */
static void mlx4_ib_event(struct mlx4_dev *dev, void *context,
			  enum mlx4_dev_event event, unsigned long param)
{
	struct mlx4_ib_dev *ibdev = context;
	struct ib_event ev = { .device = &ibdev->ib_dev };

	switch (event) {
	case MLX4_DEV_EVENT_PORT_UP:
		ev.event = IB_EVENT_PORT_ACTIVE;
		ev.element.port_num = param;
		break;
	case MLX4_DEV_EVENT_PORT_DOWN:
		ev.event = IB_EVENT_PORT_ERR;
		ev.element.port_num = param;
		break;
	case MLX4_DEV_EVENT_CATASTROPHIC_ERROR:
		ev.event = IB_EVENT_DEVICE_FATAL;
		ev.element.port_num = 1;
		break;
	default:
		return;
	}
	if (event != MLX4_DEV_EVENT_CATASTROPHIC_ERROR &&
	    (param < 1 || param > ibdev->num_ports))
		return;
	if (!READ_ONCE(ibdev->registered))
		return;
	ib_dispatch_event(&ev);
	/* not from here: this may be a verb's call chain (a command timeout) */
	if (event == MLX4_DEV_EVENT_CATASTROPHIC_ERROR)
		queue_work(system_wq, &ibdev->catas_work);
}

static struct mlx4_interface mlx4_ib_interface = {
	.add	= mlx4_ib_add,
	.remove	= mlx4_ib_remove,
	.event	= mlx4_ib_event,
};

static int __init mlx4_ib_init(void)
{
	return mlx4_register_interface(&mlx4_ib_interface);
}

static void __exit mlx4_ib_cleanup(void)
{
	mlx4_unregister_interface(&mlx4_ib_interface);
}

module_init(mlx4_ib_init);
module_exit(mlx4_ib_cleanup);

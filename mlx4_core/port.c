// SPDX-License-Identifier: GPL-2.0
/*
 * InfiniBand ports at load: SET_PORT with the port's MTU and VL capability
 * and its default PortInfo capability mask.  The PHY itself (INIT_PORT and
 * CLOSE_PORT) is mlx4_ib's business: it turns a port on when it adds the
 * device, so ports come up before any MAD layer exists (mlx4_ib/main.c).
 */
#include <linux/module.h>

#include "mlx4_core.h"

#define MLX4_CMD_MAD_IFC_IGNORE_KEYS	3	/* ignore M_Key and B_Key */
#define MAD_PORT_INFO_ATTR		0x0015
#define MAD_SMP_DATA			64
#define PORT_INFO_CAP_MASK		20

#define SET_PORT_CHANGE_MTU		BIT(22)
#define SET_PORT_CHANGE_VL		BIT(21)
#define SET_PORT_MTU_SHIFT		12
#define SET_PORT_VL_SHIFT		4

/* Get(PortInfo) through the firmware's SMA: the default capability mask */
static int mlx4_port_default_caps(struct mlx4_priv *priv, int port, u32 *caps)
{
	struct mlx4_dev *dev = &priv->dev;
	struct mlx4_cmd_mailbox *in, *out;
	u8 *mad;
	int err;

	in = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(in))
		return PTR_ERR(in);
	out = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(out)) {
		err = PTR_ERR(out);
		goto out_in;
	}
	mad = in->buf;
	mad[0] = 1;		/* base version */
	mad[1] = 0x01;		/* LID-routed subnet management */
	mad[2] = 1;		/* class version */
	mad[3] = 0x01;		/* Get */
	*(__be16 *)(mad + 16) = cpu_to_be16(MAD_PORT_INFO_ATTR);
	*(__be32 *)(mad + 20) = cpu_to_be32(port);
	err = mlx4_cmd_box(dev, in->dma, out->dma, port, MLX4_CMD_MAD_IFC_IGNORE_KEYS,
			   MLX4_CMD_MAD_IFC, MLX4_CMD_TIME_C);
	if (!err)
		*caps = be32_to_cpup(out->buf + MAD_SMP_DATA + PORT_INFO_CAP_MASK);
	mlx4_free_cmd_mailbox(dev, out);
out_in:
	mlx4_free_cmd_mailbox(dev, in);
	return err;
}

static int mlx4_set_port_ib(struct mlx4_priv *priv, int port, u32 cap_mask)
{
	struct mlx4_dev *dev = &priv->dev;
	struct mlx4_cmd_mailbox *mailbox;
	int max_vl = dev->caps.vl_cap[port];
	int vls, err;

	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	/* as many data VLs as the port has, fewer while the card says no */
	vls = max_vl > 0 && max_vl <= 4 ? 1 << (max_vl - 1) : 8;
	for (; vls >= 1; vls >>= 1) {
		memset(mailbox->buf, 0, 8);
		*(__be32 *)mailbox->buf =
			cpu_to_be32(SET_PORT_CHANGE_MTU | SET_PORT_CHANGE_VL |
				    (dev->caps.ib_mtu_cap[port] << SET_PORT_MTU_SHIFT) |
				    (vls << SET_PORT_VL_SHIFT));
		*(__be32 *)(mailbox->buf + 4) = cpu_to_be32(cap_mask);
		err = mlx4_cmd(dev, mailbox->dma, port, 0, MLX4_CMD_SET_PORT,
			       MLX4_CMD_TIME_B);
		if (err != -ENOMEM)
			break;
	}
	mlx4_free_cmd_mailbox(dev, mailbox);
	return err;
}

int mlx4_init_ports(struct mlx4_priv *priv)
{
	struct mlx4_dev *dev = &priv->dev;
	u32 cap_mask;
	int port, err;

	for (port = 1; port <= dev->caps.num_ports; port++) {
		err = mlx4_port_default_caps(priv, port, &cap_mask);
		if (err) {
			dev_warn(&dev->pdev->dev,
				 "port %d: no default capability mask (%d)\n",
				 port, err);
			cap_mask = 0;
		}
		err = mlx4_set_port_ib(priv, port, cap_mask);
		if (err) {
			dev_err(&dev->pdev->dev, "SET_PORT %d failed: %d\n", port, err);
			return err;
		}
	}
	return 0;
}

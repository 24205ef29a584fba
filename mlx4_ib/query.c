// SPDX-License-Identifier: GPL-2.0
/*
 * Device and port attributes: read from the card's SMA with SMPs through
 * MAD_IFC (NodeInfo, PortInfo, GUIDInfo, P_KeyTable), completed with the
 * capabilities mlx4_core learnt from the firmware; and the two management
 * changes a consumer may make: the node description (SET_NODE) and the
 * port capability mask (SET_PORT).
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/log2.h>

#include "mlx4_ib.h"

/* RDMA READ scatter entries: a 512-byte WQE less its control and remote-address segments */
#define MLX4_MAX_SGE_RD		((512 - 16 - 16) / 16)

/* SET_PORT (IB) mailbox: byte 3 bit 0 resets the Q_Key violation counter */
#define MLX4_SET_PORT_RESET_QKEY	0x01
#define MLX4_SET_PORT_CAP_MASK_OFF	4

int mlx4_ib_query_device(struct ib_device *ibdev, struct ib_device_attr *attr)
{
	struct mlx4_ib_dev *dev = to_mdev(ibdev);
	const struct mlx4_caps *caps = &dev->dev->caps;
	struct ib_smp *out;
	int err;

	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	err = mlx4_ib_query_smp(dev, 1, IB_SMP_ATTR_NODE_INFO, 0, out);
	if (err)
		goto out;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = caps->fw_ver;
	attr->device_cap_flags = IB_DEVICE_CHANGE_PHY_PORT |
				 IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_RC_RNR_NAK_GEN;
	if (caps->flags & MLX4_DEV_CAP_FLAG_BAD_PKEY_CNTR)
		attr->device_cap_flags |= IB_DEVICE_BAD_PKEY_CNTR;
	if (caps->flags & MLX4_DEV_CAP_FLAG_BAD_QKEY_CNTR)
		attr->device_cap_flags |= IB_DEVICE_BAD_QKEY_CNTR;
	if (caps->flags & MLX4_DEV_CAP_FLAG_UD_AV_PORT)
		attr->device_cap_flags |= IB_DEVICE_UD_AV_PORT_ENFORCE;
	/* fast registration, local and remote invalidation (mr_frwr.c) */
	if ((caps->bmme_flags & MLX4_BMME_FLAG_LOCAL_INV) &&
	    (caps->bmme_flags & MLX4_BMME_FLAG_REMOTE_INV) &&
	    (caps->bmme_flags & MLX4_BMME_FLAG_FAST_REG_WR))
		attr->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
	/* memory windows (mw.c): type 1, and type 2 of kind 2B or else 2A */
	if (caps->flags & MLX4_DEV_CAP_FLAG_MEM_WINDOW)
		attr->device_cap_flags |= IB_DEVICE_MEM_WINDOW;
	if (caps->bmme_flags & MLX4_BMME_FLAG_TYPE_2_WIN)
		attr->device_cap_flags |= caps->bmme_flags & MLX4_BMME_FLAG_WIN_TYPE_2B ?
					  IB_DEVICE_MEM_WINDOW_TYPE_2B :
					  IB_DEVICE_MEM_WINDOW_TYPE_2A;
	if (caps->flags & MLX4_DEV_CAP_FLAG_XRC)
		attr->device_cap_flags |= IB_DEVICE_XRC;
	/* IPoIB's offloads: checksums of UD sends and receives (wqe.c, poll.c) */
	if (caps->flags & MLX4_DEV_CAP_FLAG_IPOIB_CSUM)
		attr->device_cap_flags |= IB_DEVICE_UD_IP_CSUM;
	/*
	 * Upstream mlx4's query_device bit by bit, each bit once it works
	 * here (docs/kernel-api.md, decision 8 and 3.7): the QP create flag,
	 * fast registration, memory windows, XRC, UD checksums and LSO work;
	 * not (yet) APM, the reserved lkey, masked atomics, and no
	 * RAW_IP_CSUM, which upstream sets always: we have no raw packet QPs.
	 */
	attr->kernel_cap_flags = IBK_BLOCK_MULTICAST_LOOPBACK;
	/* LSO (IB_WR_LSO) needs BLH and a GSO size, and not a rev A0 card */
	if (caps->max_gso_sz && (caps->flags & MLX4_DEV_CAP_FLAG_BLH) &&
	    be32_to_cpup((__be32 *)(out->data + 32)) != MLX4_IB_CARD_REV_A0)
		attr->kernel_cap_flags |= IBK_UD_TSO;

	attr->vendor_id = be32_to_cpup((__be32 *)(out->data + 36)) & 0xffffff;
	attr->vendor_part_id = caps->device_id ? caps->device_id : dev->dev->pdev->device;
	attr->hw_ver = be32_to_cpup((__be32 *)(out->data + 32));
	memcpy(&attr->sys_image_guid, out->data + 4, 8);

	attr->max_mr_size = caps->max_mr_size ? caps->max_mr_size : ~0ull;
	attr->page_size_cap = caps->page_size_cap;
	attr->max_qp = caps->num_qps - caps->reserved_qps;
	attr->max_qp_wr = caps->max_wqes - MLX4_IB_SQ_MAX_SPARE;
	attr->max_send_sge = min(caps->max_sq_sg, caps->max_rq_sg);
	attr->max_recv_sge = attr->max_send_sge;
	attr->max_sge_rd = MLX4_MAX_SGE_RD;
	attr->max_cq = caps->num_cqs - caps->reserved_cqs;
	attr->max_cqe = caps->max_cqes;
	attr->max_mr = caps->num_mpts - caps->reserved_mrws;
	attr->max_pd = caps->num_pds - caps->reserved_pds;
	attr->max_qp_rd_atom = caps->max_qp_dest_rdma;
	attr->max_qp_init_rd_atom = caps->max_qp_init_rdma;
	attr->max_res_rd_atom = attr->max_qp_rd_atom * attr->max_qp;
	attr->max_srq = caps->num_srqs - caps->reserved_srqs;
	attr->max_srq_wr = caps->max_srq_wqes - 1;
	attr->max_srq_sge = caps->max_srq_sge;
	attr->atomic_cap = caps->flags & MLX4_DEV_CAP_FLAG_ATOMIC ?
			   IB_ATOMIC_HCA : IB_ATOMIC_NONE;
	attr->masked_atomic_cap = IB_ATOMIC_NONE;
	/* rdma_set_cq_moderation()'s range: the CQ context's 16-bit fields */
	attr->cq_caps.max_cq_moderation_count = U16_MAX;
	attr->cq_caps.max_cq_moderation_period = U16_MAX;
	attr->max_pkeys = caps->pkey_table_len[1];
	attr->max_mcast_grp = caps->num_mgms + caps->num_amgms;
	attr->max_mcast_qp_attach = caps->num_qp_per_mgm;
	attr->max_total_mcast_qp_attach = attr->max_mcast_qp_attach *
					  attr->max_mcast_grp;
	attr->max_ah = INT_MAX;
	/*
	 * the core clock (kHz) and the 48 bits of a CQE's timestamp, as
	 * upstream reports them; the clock page itself is not offered
	 * (QUERY_DEV_CAP gives no internal clock to map)
	 */
	attr->hca_core_clock = caps->hca_core_clock * 1000ULL;
	attr->timestamp_mask = 0xFFFFFFFFFFFFULL;
	attr->local_ca_ack_delay = caps->local_ca_ack_delay;
	attr->max_fast_reg_page_list_len = MLX4_MAX_FAST_REG_PAGES;
out:
	kfree(out);
	return err;
}

static u16 mlx4_ib_ext_speed(u8 code)
{
	switch (code) {
	case 1:
		return IB_SPEED_FDR;
	case 2:
		return IB_SPEED_EDR;
	default:
		return 0;
	}
}

int mlx4_ib_query_port(struct ib_device *ibdev, u32 port, struct ib_port_attr *attr)
{
	struct mlx4_ib_dev *dev = to_mdev(ibdev);
	const struct mlx4_caps *caps = &dev->dev->caps;
	struct ib_smp *out;
	const u8 *d;
	u16 speed;
	int err;

	if (!rdma_is_port_valid(ibdev, port))
		return -EINVAL;
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	err = mlx4_ib_query_smp(dev, port, IB_SMP_ATTR_PORT_INFO, port, out);
	if (err)
		goto out;
	d = out->data;

	memset(attr, 0, sizeof(*attr));
	attr->lid = be16_to_cpup((const __be16 *)(d + 16));
	attr->sm_lid = be16_to_cpup((const __be16 *)(d + 18));
	attr->port_cap_flags = be32_to_cpup((const __be32 *)(d + 20));
	attr->active_width = d[31] & 0xf;
	attr->state = d[32] & 0xf;
	attr->phys_state = d[33] >> 4;
	attr->lmc = d[34] & 0x7;
	attr->active_speed = d[35] >> 4;
	attr->active_mtu = d[36] >> 4;
	attr->sm_sl = d[36] & 0xf;
	attr->max_vl_num = d[37] >> 4;
	attr->init_type_reply = d[41] >> 4;
	attr->max_mtu = d[41] & 0xf;
	attr->bad_pkey_cntr = be16_to_cpup((const __be16 *)(d + 46));
	attr->qkey_viol_cntr = be16_to_cpup((const __be16 *)(d + 48));
	attr->subnet_timeout = d[51] & 0x1f;
	attr->gid_tbl_len = caps->gid_table_len[port];
	attr->pkey_tbl_len = caps->pkey_table_len[port];
	attr->max_msg_sz = caps->max_msg_sz;
	attr->phys_mtu = ib_mtu_enum_to_int(attr->max_mtu) > 0 ?
			 ib_mtu_enum_to_int(attr->max_mtu) : 0;

	/* extended speeds (FDR, EDR) when the port announces them */
	if (attr->port_cap_flags & IB_PORT_EXTENDED_SPEEDS_SUP) {
		speed = mlx4_ib_ext_speed(d[62] >> 4);
		if (speed)
			attr->active_speed = speed;
	}
	/* FDR10 shows as QDR in PortInfo; the vendor attribute tells */
	if (attr->active_speed == IB_SPEED_QDR &&
	    !mlx4_ib_query_smp(dev, port, MLX4_ATTR_EXTENDED_PORT_INFO, port, out) &&
	    (out->data[15] & 1))
		attr->active_speed = IB_SPEED_FDR10;
	err = 0;
out:
	kfree(out);
	return err;
}

int mlx4_ib_query_gid(struct ib_device *ibdev, u32 port, int index, union ib_gid *gid)
{
	struct mlx4_ib_dev *dev = to_mdev(ibdev);
	struct ib_smp *out;
	int err;

	if (!rdma_is_port_valid(ibdev, port) || index < 0 ||
	    index >= dev->dev->caps.gid_table_len[port])
		return -EINVAL;
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	err = mlx4_ib_query_smp(dev, port, IB_SMP_ATTR_PORT_INFO, port, out);
	if (err)
		goto out;
	memcpy(gid->raw, out->data + 8, 8);
	err = mlx4_ib_query_smp(dev, port, IB_SMP_ATTR_GUID_INFO, index / 8, out);
	if (err)
		goto out;
	memcpy(gid->raw + 8, out->data + (index % 8) * 8, 8);
out:
	kfree(out);
	return err;
}

int mlx4_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	struct mlx4_ib_dev *dev = to_mdev(ibdev);
	struct ib_smp *out;
	int err;

	if (!rdma_is_port_valid(ibdev, port) ||
	    index >= dev->dev->caps.pkey_table_len[port])
		return -EINVAL;
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	err = mlx4_ib_query_smp(dev, port, IB_SMP_ATTR_PKEY_TABLE, index / 32, out);
	if (!err)
		*pkey = be16_to_cpup((__be16 *)(out->data + (index % 32) * 2));
	kfree(out);
	return err;
}

/* [sleep] NodeDescription and NodeInfo of the card, at probe. */
int mlx4_ib_init_node_data(struct mlx4_ib_dev *dev)
{
	struct ib_smp *out;
	int err;

	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	err = mlx4_ib_query_smp(dev, 1, IB_SMP_ATTR_NODE_DESC, 0, out);
	if (err)
		goto out;
	memcpy(dev->ib_dev.node_desc, out->data, IB_DEVICE_NODE_DESC_MAX);
	err = mlx4_ib_query_smp(dev, 1, IB_SMP_ATTR_NODE_INFO, 0, out);
	if (err)
		goto out;
	memcpy(&dev->ib_dev.node_guid, out->data + 12, 8);
out:
	kfree(out);
	return err;
}

int mlx4_ib_modify_device(struct ib_device *ibdev, int mask,
			  struct ib_device_modify *props)
{
	struct mlx4_ib_dev *dev = to_mdev(ibdev);
	struct mlx4_cmd_mailbox *mailbox;
	int err;

	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;
	if (!(mask & IB_DEVICE_MODIFY_NODE_DESC))
		return 0;

	mailbox = mlx4_alloc_cmd_mailbox(dev->dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	mutex_lock(&dev->cap_mask_mutex);
	memset(mailbox->buf, 0, IB_DEVICE_NODE_DESC_MAX);
	memcpy(mailbox->buf, props->node_desc, IB_DEVICE_NODE_DESC_MAX);
	err = mlx4_cmd(dev->dev, mailbox->dma, 1, 0, MLX4_CMD_SET_NODE,
		       MLX4_CMD_TIME_A);
	if (!err)
		memcpy(ibdev->node_desc, props->node_desc, IB_DEVICE_NODE_DESC_MAX);
	mutex_unlock(&dev->cap_mask_mutex);
	mlx4_free_cmd_mailbox(dev->dev, mailbox);
	return err;
}

static int mlx4_ib_set_port_caps(struct mlx4_ib_dev *dev, u32 port,
				 u32 cap_mask, bool reset_qkey)
{
	struct mlx4_cmd_mailbox *mailbox;
	u8 *buf;
	int err;

	mailbox = mlx4_alloc_cmd_mailbox(dev->dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	buf = mailbox->buf;
	memset(buf, 0, 0x40);
	if (reset_qkey)
		buf[3] = MLX4_SET_PORT_RESET_QKEY;
	*(__be32 *)(buf + MLX4_SET_PORT_CAP_MASK_OFF) = cpu_to_be32(cap_mask);
	err = mlx4_cmd(dev->dev, mailbox->dma, port, 0, MLX4_CMD_SET_PORT,
		       MLX4_CMD_TIME_B);
	mlx4_free_cmd_mailbox(dev->dev, mailbox);
	return err;
}

int mlx4_ib_modify_port(struct ib_device *ibdev, u32 port, int mask,
			struct ib_port_modify *props)
{
	struct mlx4_ib_dev *dev = to_mdev(ibdev);
	struct ib_port_attr *attr;
	u32 cap_mask;
	int err;

	if (!rdma_is_port_valid(ibdev, port))
		return -EINVAL;
	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	if (!attr)
		return -ENOMEM;

	mutex_lock(&dev->cap_mask_mutex);
	err = mlx4_ib_query_port(ibdev, port, attr);
	if (err)
		goto out;
	cap_mask = (attr->port_cap_flags | props->set_port_cap_mask) &
		   ~props->clr_port_cap_mask;
	err = mlx4_ib_set_port_caps(dev, port, cap_mask,
				    !!(mask & IB_PORT_RESET_QKEY_CNTR));
out:
	mutex_unlock(&dev->cap_mask_mutex);
	kfree(attr);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles: a UD address vector kept in memory and copied into the
 * datagram segment of each UD send.  [any]: no sleeping, no commands.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "mlx4_ib.h"

#define MLX4_STAT_RATE_OFFSET	5

static u8 mlx4_ib_rate(struct mlx4_ib_dev *dev, u8 rate)
{
	u32 support = dev->dev->caps.stat_rate_support;
	u8 r;

	if (!rate)
		return 0;
	/* the fastest supported rate not above the requested one */
	for (r = rate + MLX4_STAT_RATE_OFFSET; r > 2 + MLX4_STAT_RATE_OFFSET; r--)
		if (r < 32 && (support & BIT(r)))
			break;
	return r;
}

struct ib_ah *mlx4_ib_create_ah(struct ib_pd *pd, const struct ib_ah_attr *attr,
				struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(pd->device);
	struct mlx4_ib_ah *ah;
	struct mlx4_hw_av *av;

	if (!rdma_is_port_valid(pd->device, attr->port_num)) {
		mlx4_ib_warn_rl(dev, "create_ah: bad port %u\n", attr->port_num);
		return ERR_PTR(-EINVAL);
	}
	ah = kzalloc(sizeof(*ah), GFP_ATOMIC);
	if (!ah)
		return ERR_PTR(-ENOMEM);
	av = &ah->av;
	av->port_pd = cpu_to_be32((u32)attr->port_num << 24 | to_mpd(pd)->pdn);
	av->g_slid = attr->src_path_bits & 0x7f;
	av->dlid = cpu_to_be16(attr->dlid);
	av->stat_rate = mlx4_ib_rate(dev, attr->static_rate);
	av->sl_tclass_flowlabel = cpu_to_be32((u32)attr->sl << 28);
	if (attr->ah_flags & IB_AH_GRH) {
		av->g_slid |= 0x80;
		av->gid_index = attr->grh.sgid_index;
		av->hop_limit = attr->grh.hop_limit;
		av->sl_tclass_flowlabel |=
			cpu_to_be32((u32)attr->grh.traffic_class << 20 |
				    (attr->grh.flow_label & 0xfffff));
		memcpy(av->dgid, attr->grh.dgid.raw, 16);
	}
	return &ah->ibah;
}

int mlx4_ib_query_ah(struct ib_ah *ibah, struct ib_ah_attr *attr)
{
	const struct mlx4_hw_av *av = &to_mah(ibah)->av;
	u32 stf = be32_to_cpu(av->sl_tclass_flowlabel);

	memset(attr, 0, sizeof(*attr));
	attr->port_num = be32_to_cpu(av->port_pd) >> 24;
	attr->dlid = be16_to_cpu(av->dlid);
	attr->sl = stf >> 28;
	attr->src_path_bits = av->g_slid & 0x7f;
	attr->static_rate = av->stat_rate ? av->stat_rate - MLX4_STAT_RATE_OFFSET : 0;
	if (av->g_slid & 0x80) {
		attr->ah_flags = IB_AH_GRH;
		attr->grh.sgid_index = av->gid_index;
		attr->grh.hop_limit = av->hop_limit;
		attr->grh.traffic_class = (stf >> 20) & 0xff;
		attr->grh.flow_label = stf & 0xfffff;
		memcpy(attr->grh.dgid.raw, av->dgid, 16);
	}
	return 0;
}

int mlx4_ib_destroy_ah(struct ib_ah *ah)
{
	kfree(to_mah(ah));
	return 0;
}

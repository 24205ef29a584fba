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

struct ib_ah *mlx4_ib_create_ah(struct ib_pd *pd, const struct rdma_ah_attr *attr, u32 flags,
				struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(pd->device);
	struct mlx4_ib_ah *ah;
	const struct ib_global_route *grh;
	struct mlx4_hw_av *av;

	if (!rdma_is_port_valid(pd->device, attr->port_num)) {
		mlx4_ib_warn_rl(dev, "create_ah: bad port %u\n", attr->port_num);
		return ERR_PTR(-EINVAL);
	}
	ah = kzalloc(sizeof(*ah), flags & RDMA_CREATE_AH_SLEEPABLE ? GFP_KERNEL : GFP_ATOMIC);
	if (!ah)
		return ERR_PTR(-ENOMEM);
	av = &ah->av;
	av->port_pd = cpu_to_be32((u32)attr->port_num << 24 | to_mpd(pd)->pdn);
	av->g_slid = rdma_ah_get_path_bits(attr) & 0x7f;
	av->dlid = cpu_to_be16(rdma_ah_get_dlid(attr));
	av->stat_rate = mlx4_ib_rate(dev, rdma_ah_get_static_rate(attr));
	av->sl_tclass_flowlabel = cpu_to_be32((u32)rdma_ah_get_sl(attr) << 28);
	if (rdma_ah_get_ah_flags(attr) & IB_AH_GRH) {
		grh = rdma_ah_read_grh(attr);
		av->g_slid |= 0x80;
		av->gid_index = grh->sgid_index;
		av->hop_limit = grh->hop_limit;
		av->sl_tclass_flowlabel |=
			cpu_to_be32((u32)grh->traffic_class << 20 | (grh->flow_label & 0xfffff));
		memcpy(av->dgid, grh->dgid.raw, 16);
	}
	return &ah->ibah;
}

int mlx4_ib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	const struct mlx4_hw_av *av = &to_mah(ibah)->av;
	u32 stf = be32_to_cpu(av->sl_tclass_flowlabel);

	memset(attr, 0, sizeof(*attr));
	attr->type = ibah->type;
	rdma_ah_set_port_num(attr, be32_to_cpu(av->port_pd) >> 24);
	rdma_ah_set_dlid(attr, be16_to_cpu(av->dlid));
	rdma_ah_set_sl(attr, stf >> 28);
	rdma_ah_set_path_bits(attr, av->g_slid & 0x7f);
	rdma_ah_set_static_rate(attr, av->stat_rate ?
				av->stat_rate - MLX4_STAT_RATE_OFFSET : 0);
	if (av->g_slid & 0x80) {
		rdma_ah_set_grh(attr, NULL, stf & 0xfffff, av->gid_index, av->hop_limit,
				(stf >> 20) & 0xff);
		memcpy(attr->grh.dgid.raw, av->dgid, sizeof(attr->grh.dgid.raw));
	}
	return 0;
}

int mlx4_ib_destroy_ah(struct ib_ah *ah, u32 flags)
{
	kfree(to_mah(ah));
	return 0;
}

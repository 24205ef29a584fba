// SPDX-License-Identifier: GPL-2.0
/* Address vectors from path and multicast member records. */
#include <linux/module.h>
#include <linux/string.h>
#include <rdma/ib_cache.h>
#include "sa_priv.h"

/* port_num is an InfiniBand port of device */
static bool sa_port_is_ib(struct ib_device *device, u32 port_num)
{
	return rdma_is_port_valid(device, port_num) &&
	       rdma_port_get_link_layer(device, port_num) ==
	       IB_LINK_LAYER_INFINIBAND;
}

/*
 * The GID attribute of gid on port_num, with a reference, or sgid_attr
 * (which must be of that port) with another; an ERR_PTR if neither.
 */
static const struct ib_gid_attr *sa_sgid_attr(struct ib_device *device, u32 port_num,
					      const union ib_gid *gid, enum ib_gid_type type,
					      const struct ib_gid_attr *sgid_attr)
{
	if (!sgid_attr)
		return rdma_find_gid_by_port(device, gid, type, port_num, NULL);
	if (sgid_attr->device != device || sgid_attr->port_num != port_num)
		return ERR_PTR(-EINVAL);
	rdma_hold_gid_attr(sgid_attr);
	return sgid_attr;
}

int ib_init_ah_attr_from_path(struct ib_device *device, u32 port_num,
			      struct sa_path_rec *rec,
			      struct rdma_ah_attr *ah_attr,
			      const struct ib_gid_attr *sgid_attr)
{
	const struct ib_gid_attr *attr;
	u8 lmc = 0;

	if (rec->rec_type != SA_PATH_REC_TYPE_IB || !sa_port_is_ib(device, port_num))
		return -EINVAL;
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->type = rdma_ah_find_type(device, port_num);
	rdma_ah_set_sl(ah_attr, rec->sl);
	rdma_ah_set_port_num(ah_attr, port_num);
	rdma_ah_set_static_rate(ah_attr, rec->rate);
	rdma_ah_set_dlid(ah_attr, be32_to_cpu(sa_path_get_dlid(rec)));
	ib_get_cached_lmc(device, port_num, &lmc);
	rdma_ah_set_path_bits(ah_attr, be32_to_cpu(sa_path_get_slid(rec)) &
			      ((1U << lmc) - 1));
	if (!rec->hop_limit)
		return 0;
	/* the GRH's source: ah_attr holds its attribute */
	attr = sa_sgid_attr(device, port_num, &rec->sgid, IB_GID_TYPE_IB, sgid_attr);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	rdma_move_grh_sgid_attr(ah_attr, &rec->dgid, be32_to_cpu(rec->flow_label),
				rec->hop_limit, rec->traffic_class, attr);
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_attr_from_path);

int ib_init_ah_from_mcmember(struct ib_device *device, u32 port_num,
			     struct ib_sa_mcmember_rec *rec,
			     struct net_device *ndev,
			     enum ib_gid_type gid_type,
			     struct rdma_ah_attr *ah_attr)
{
	const struct ib_gid_attr *attr;

	/* an IB port's GID table has IB GIDs only, and no netdev */
	if (!sa_port_is_ib(device, port_num))
		return -EINVAL;
	attr = sa_sgid_attr(device, port_num, &rec->port_gid, gid_type, NULL);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->type = rdma_ah_find_type(device, port_num);
	rdma_ah_set_dlid(ah_attr, be16_to_cpu(rec->mlid));
	rdma_ah_set_sl(ah_attr, rec->sl);
	rdma_ah_set_port_num(ah_attr, port_num);
	rdma_ah_set_static_rate(ah_attr, rec->rate);
	rdma_move_grh_sgid_attr(ah_attr, &rec->mgid, be32_to_cpu(rec->flow_label),
				rec->hop_limit, rec->traffic_class, attr);
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_from_mcmember);

// SPDX-License-Identifier: GPL-2.0
/* Address vectors from path and multicast member records. */
#include <linux/module.h>
#include <linux/string.h>
#include "sa_priv.h"

/* the index of gid in port_num's GID table, or -EINVAL */
static int sa_gid_index(struct ib_device *device, u32 port_num,
			const union ib_gid *gid)
{
	u32 port;
	u16 index;

	if (ib_find_cached_gid(device, gid, &port, &index) || port != port_num)
		return -EINVAL;
	return index;
}

/* a global route to dgid from our GID at sgid_index */
static void sa_set_grh(struct ib_ah_attr *ah_attr, const union ib_gid *dgid,
		       u32 flow_label, u8 hop_limit, u8 traffic_class,
		       int sgid_index)
{
	ah_attr->ah_flags = IB_AH_GRH;
	ah_attr->grh.dgid = *dgid;
	ah_attr->grh.flow_label = flow_label;
	ah_attr->grh.hop_limit = hop_limit;
	ah_attr->grh.traffic_class = traffic_class;
	ah_attr->grh.sgid_index = sgid_index;
}

int ib_init_ah_from_path(struct ib_device *device, u32 port_num,
			 const struct ib_sa_path_rec *rec,
			 struct ib_ah_attr *ah_attr)
{
	u8 lmc = 0;
	int index;

	index = sa_gid_index(device, port_num, &rec->sgid);
	if (index < 0)
		return index;
	ib_get_cached_lmc(device, port_num, &lmc);
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = rec->dlid;
	ah_attr->sl = rec->sl;
	ah_attr->src_path_bits = rec->slid & ((1U << lmc) - 1);
	ah_attr->static_rate = rec->rate;
	ah_attr->port_num = port_num;
	if (rec->hop_limit > 1)
		sa_set_grh(ah_attr, &rec->dgid, rec->flow_label, rec->hop_limit,
			   rec->traffic_class, index);
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_from_path);

int ib_init_ah_from_mcmember(struct ib_device *device, u32 port_num,
			     const struct ib_sa_mcmember_rec *rec,
			     struct ib_ah_attr *ah_attr)
{
	int index;

	index = sa_gid_index(device, port_num, &rec->port_gid);
	if (index < 0)
		return index;
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = rec->mlid;
	ah_attr->sl = rec->sl;
	ah_attr->static_rate = rec->rate;
	ah_attr->port_num = port_num;
	sa_set_grh(ah_attr, &rec->mgid, rec->flow_label, rec->hop_limit,
		   rec->traffic_class, index);
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_from_mcmember);

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
	if (rec->hop_limit > 1) {
		ah_attr->ah_flags = IB_AH_GRH;
		ah_attr->grh.dgid = rec->dgid;
		ah_attr->grh.flow_label = rec->flow_label;
		ah_attr->grh.hop_limit = rec->hop_limit;
		ah_attr->grh.traffic_class = rec->traffic_class;
		ah_attr->grh.sgid_index = index;
	}
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
	ah_attr->ah_flags = IB_AH_GRH;
	ah_attr->grh.dgid = rec->mgid;
	ah_attr->grh.flow_label = rec->flow_label;
	ah_attr->grh.hop_limit = rec->hop_limit;
	ah_attr->grh.traffic_class = rec->traffic_class;
	ah_attr->grh.sgid_index = index;
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_from_mcmember);

// SPDX-License-Identifier: GPL-2.0
/* Address vectors from path and multicast member records. */
#include <linux/module.h>
#include <linux/string.h>
#include <rdma/ib_cache.h>
#include "sa_priv.h"

/* the index of gid in port_num's GID table, or -EINVAL */
static int sa_gid_index(struct ib_device *device, u32 port_num,
			const union ib_gid *gid)
{
	u32 port;
	u16 index;

	if (ib_find_gid(device, (union ib_gid *)gid, &port, &index) || port != port_num)
		return -EINVAL;
	return index;
}

/* the common part: an IB address vector on port_num to dlid */
static void sa_init_ah(struct ib_device *device, u32 port_num, u16 dlid, u8 sl,
		       u8 rate, struct rdma_ah_attr *ah_attr)
{
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->type = rdma_ah_find_type(device, port_num);
	rdma_ah_set_dlid(ah_attr, dlid);
	rdma_ah_set_sl(ah_attr, sl);
	rdma_ah_set_static_rate(ah_attr, rate);
	rdma_ah_set_port_num(ah_attr, port_num);
}

int ib_init_ah_from_path(struct ib_device *device, u32 port_num,
			 const struct ib_sa_path_rec *rec,
			 struct rdma_ah_attr *ah_attr)
{
	u8 lmc = 0;
	int index;

	index = sa_gid_index(device, port_num, &rec->sgid);
	if (index < 0)
		return index;
	ib_get_cached_lmc(device, port_num, &lmc);
	sa_init_ah(device, port_num, rec->dlid, rec->sl, rec->rate, ah_attr);
	rdma_ah_set_path_bits(ah_attr, rec->slid & ((1U << lmc) - 1));
	if (rec->hop_limit > 1)
		rdma_ah_set_grh(ah_attr, (union ib_gid *)&rec->dgid, rec->flow_label, index,
				rec->hop_limit, rec->traffic_class);
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_from_path);

int ib_init_ah_from_mcmember(struct ib_device *device, u32 port_num,
			     const struct ib_sa_mcmember_rec *rec,
			     struct rdma_ah_attr *ah_attr)
{
	int index;

	index = sa_gid_index(device, port_num, &rec->port_gid);
	if (index < 0)
		return index;
	sa_init_ah(device, port_num, rec->mlid, rec->sl, rec->rate, ah_attr);
	rdma_ah_set_grh(ah_attr, (union ib_gid *)&rec->mgid, rec->flow_label, index,
			rec->hop_limit, rec->traffic_class);
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_from_mcmember);

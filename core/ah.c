// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles.  Creation, query and destruction are [any]: the checks
 * below read only the port cache, and allocate nothing.
 */
#include <linux/module.h>
#include "core_priv.h"

#define IB_GRH_FLOW_MASK	0xfffff
#define IB_GRH_TCLASS_SHIFT	20

static int ib_check_ah_attr(struct ib_device *device, const struct ib_ah_attr *attr)
{
	struct ib_port_cache *pc = ib_port_cache(device, attr->port_num);

	if (!pc) {
		IB_CORE_RATELIMITED("%s: AH on invalid port %u\n", device->name, attr->port_num);
		return -EINVAL;
	}
	if (attr->sl > 15) {
		IB_CORE_RATELIMITED("%s: AH with SL %u\n", device->name, attr->sl);
		return -EINVAL;
	}
	if ((attr->ah_flags & ~IB_AH_GRH) ||
	    ((attr->ah_flags & IB_AH_GRH) && attr->grh.sgid_index >= pc->gid_tbl_len)) {
		IB_CORE_RATELIMITED("%s: AH with flags 0x%x, SGID index %u of %d\n",
				    device->name, attr->ah_flags, attr->grh.sgid_index,
				    pc->gid_tbl_len);
		return -EINVAL;
	}
	return 0;
}

struct ib_ah *ib_create_ah(struct ib_pd *pd, const struct ib_ah_attr *attr)
{
	struct ib_ah *ah;
	int ret;

	if (IS_ERR_OR_NULL(pd) || !attr) {
		IB_CORE_RATELIMITED("no PD or attributes\n");
		return ERR_PTR(-EINVAL);
	}
	ret = ib_check_ah_attr(pd->device, attr);
	if (ret)
		return ERR_PTR(ret);

	ah = pd->device->ops->create_ah(pd, attr, NULL);
	if (IS_ERR_OR_NULL(ah))
		return ah ? ah : ERR_PTR(-ENOMEM);
	ah->device = pd->device;
	ah->pd = pd;
	ah->uobject = NULL;
	atomic_inc(&pd->usecnt);
	return ah;
}
EXPORT_SYMBOL(ib_create_ah);

int ib_query_ah(struct ib_ah *ah, struct ib_ah_attr *attr)
{
	if (IS_ERR_OR_NULL(ah) || !attr) {
		IB_CORE_RATELIMITED("no AH or attributes\n");
		return -EINVAL;
	}
	if (!ah->device->ops->query_ah)
		return -EOPNOTSUPP;
	return ah->device->ops->query_ah(ah, attr);
}
EXPORT_SYMBOL(ib_query_ah);

int ib_destroy_ah(struct ib_ah *ah)
{
	struct ib_pd *pd;
	int ret;

	if (IS_ERR_OR_NULL(ah)) {
		IB_CORE_RATELIMITED("no AH\n");
		return -EINVAL;
	}
	pd = ah->pd;
	ret = ah->device->ops->destroy_ah(ah);
	if (!ret)
		atomic_dec(&pd->usecnt);
	return ret;
}
EXPORT_SYMBOL(ib_destroy_ah);

/*
 * The reply path to the sender of a received UD message: its LID and SL,
 * and with a GRH its GID as destination, answered from the local GID the
 * message was sent to (GID 0 when it went to a multicast group).
 */
struct ib_ah *ib_create_ah_from_wc(struct ib_pd *pd, const struct ib_wc *wc,
				   const struct ib_grh *grh, u32 port)
{
	struct ib_ah_attr attr = {};
	union ib_gid dgid;
	u32 flow;
	u16 gid_index;
	int ret;

	if (IS_ERR_OR_NULL(pd) || !wc) {
		IB_CORE_RATELIMITED("no PD or WC\n");
		return ERR_PTR(-EINVAL);
	}
	if (!rdma_is_port_valid(pd->device, port)) {
		IB_CORE_RATELIMITED("%s: invalid port %u\n",
				    pd->device->name, port);
		return ERR_PTR(-EINVAL);
	}

	attr.dlid = wc->slid;
	attr.sl = wc->sl;
	attr.src_path_bits = wc->dlid_path_bits;
	attr.port_num = port;

	if (wc->wc_flags & IB_WC_GRH) {
		if (!grh) {
			IB_CORE_RATELIMITED("%s: GRH flagged but missing\n",
					    pd->device->name);
			return ERR_PTR(-EINVAL);
		}
		memcpy(dgid.raw, grh->dgid, sizeof(dgid.raw));
		if (dgid.raw[0] == 0xff) {
			gid_index = 0;
		} else {
			ret = ib_find_cached_gid_on_port(pd->device, port, &dgid, &gid_index);
			if (ret) {
				IB_CORE_RATELIMITED("%s: GID %pI6 not on port %u\n",
						    pd->device->name, dgid.raw, port);
				return ERR_PTR(-ENOENT);
			}
		}
		flow = be32_to_cpu(grh->version_tclass_flow);
		attr.ah_flags = IB_AH_GRH;
		memcpy(attr.grh.dgid.raw, grh->sgid, sizeof(attr.grh.dgid.raw));
		attr.grh.sgid_index = gid_index;
		attr.grh.flow_label = flow & IB_GRH_FLOW_MASK;
		attr.grh.traffic_class = (flow >> IB_GRH_TCLASS_SHIFT) & 0xff;
		attr.grh.hop_limit = 0xff;
	}
	return ib_create_ah(pd, &attr);
}
EXPORT_SYMBOL(ib_create_ah_from_wc);

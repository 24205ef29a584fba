// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles and address vectors.  The checks read only the port
 * cache (under its rwlock), so creation without RDMA_CREATE_AH_SLEEPABLE,
 * query and destruction are [any]; the driver allocates atomically then.
 *
 * GID attributes (gid_attr.c): an AH with a GRH holds its source GID's
 * attribute (ah->sgid_attr), taken from the vector's sgid_attr or, when
 * that is NULL, from the entry at sgid_index, as upstream; an address
 * vector filled by ib_init_ah_attr_from_wc() (or from a path or a
 * multicast member record) holds one until rdma_destroy_ah_attr().
 */
#include <linux/module.h>
#include "core_priv.h"

#define IB_GRH_FLOW_MASK	0xfffff
#define IB_GRH_TCLASS_SHIFT	20

/*
 * What is wrong with an address vector for port (its own port_num if set),
 * or NULL.  As upstream: the port must be valid and the type the port's; a
 * given sgid_attr must match sgid_index and port.  Ours besides: SL, flags
 * and the SGID index are checked here rather than truncated by the card.
 */
const char *ib_ah_attr_problem(struct ib_device *device, const struct rdma_ah_attr *attr,
			       u32 port)
{
	struct ib_port_cache *pc;

	if (attr->port_num)
		port = attr->port_num;
	pc = ib_port_cache(device, port);
	if (!pc)
		return "invalid port";
	if (attr->type != rdma_ah_find_type(device, port))
		return "type is not the port's";
	if (attr->sl > 15)
		return "SL above 15";
	if (attr->ah_flags & ~IB_AH_GRH)
		return "unknown ah_flags";
	if (!(attr->ah_flags & IB_AH_GRH))
		return NULL;
	if (attr->grh.sgid_index >= pc->gid_tbl_len)
		return "SGID index outside the GID table";
	if (attr->grh.sgid_attr &&
	    (attr->grh.sgid_attr->device != device ||
	     attr->grh.sgid_attr->port_num != port ||
	     attr->grh.sgid_attr->index != attr->grh.sgid_index))
		return "sgid_attr is not the entry of port and sgid_index";
	return NULL;
}

static int ib_check_ah_attr(struct ib_device *device, const struct rdma_ah_attr *attr)
{
	const char *problem;

	if (!attr->port_num) {
		IB_CORE_RATELIMITED("%s: AH on port 0\n", device->name);
		return -EINVAL;
	}
	problem = ib_ah_attr_problem(device, attr, attr->port_num);
	if (problem) {
		IB_CORE_RATELIMITED("%s: AH port %u type %d SL %u flags 0x%x SGID %u: %s\n",
				    device->name, attr->port_num, attr->type, attr->sl,
				    attr->ah_flags, attr->grh.sgid_index, problem);
		return -EINVAL;
	}
	return 0;
}

/*
 * [any] The source GID attribute an AH of attr holds, with a reference:
 * NULL without a GRH; an ERR_PTR if the SGID entry is empty.
 */
static const struct ib_gid_attr *ib_ah_sgid_attr(struct ib_device *device,
						 const struct rdma_ah_attr *attr)
{
	if (!(attr->ah_flags & IB_AH_GRH))
		return NULL;
	if (attr->grh.sgid_attr) {
		rdma_hold_gid_attr(attr->grh.sgid_attr);
		return attr->grh.sgid_attr;
	}
	return rdma_get_gid_attr(device, attr->port_num, attr->grh.sgid_index);
}

/*
 * [any] without RDMA_CREATE_AH_SLEEPABLE in flags, [sleep] with: an AH for
 * a kernel (udata NULL) or user caller, its attributes checked
 */
struct ib_ah *ib_core_create_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr, u32 flags,
				struct ib_udata *udata)
{
	const struct ib_gid_attr *sgid_attr;
	struct ib_device *device = pd->device;
	struct ib_ah *ah;
	int ret;

	if (!device->ops.create_ah)
		return ERR_PTR(-EOPNOTSUPP);
	ret = ib_check_ah_attr(device, ah_attr);
	if (ret)
		return ERR_PTR(ret);
	sgid_attr = ib_ah_sgid_attr(device, ah_attr);
	if (IS_ERR(sgid_attr))
		return ERR_CAST(sgid_attr);

	ah = device->ops.create_ah(pd, ah_attr, flags, udata);
	if (IS_ERR_OR_NULL(ah)) {
		rdma_put_gid_attr(sgid_attr);
		return ah ? ah : ERR_PTR(-ENOMEM);
	}
	ah->device = device;
	ah->pd = pd;
	ah->uobject = NULL;
	ah->sgid_attr = sgid_attr;
	ah->type = ah_attr->type;
	atomic_inc(&pd->usecnt);
	return ah;
}

struct ib_ah *rdma_create_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr, u32 flags)
{
	if (IS_ERR_OR_NULL(pd) || !ah_attr) {
		IB_CORE_RATELIMITED("no PD or attributes\n");
		return ERR_PTR(-EINVAL);
	}
	might_sleep_if(flags & RDMA_CREATE_AH_SLEEPABLE);
	if (flags & ~RDMA_CREATE_AH_SLEEPABLE) {
		IB_CORE_RATELIMITED("%s: flags 0x%x\n", pd->device->name, flags);
		return ERR_PTR(-EINVAL);
	}
	return ib_core_create_ah(pd, ah_attr, flags, NULL);
}
EXPORT_SYMBOL(rdma_create_ah);

int rdma_query_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr)
{
	int ret;

	if (IS_ERR_OR_NULL(ah) || !ah_attr) {
		IB_CORE_RATELIMITED("no AH or attributes\n");
		return -EINVAL;
	}
	ah_attr->grh.sgid_attr = NULL;
	if (!ah->device->ops.query_ah)
		return -EOPNOTSUPP;
	ret = ah->device->ops.query_ah(ah, ah_attr);
	/* the AH's own attribute, without a reference (as upstream) */
	if (!ret && (ah_attr->ah_flags & IB_AH_GRH))
		ah_attr->grh.sgid_attr = ah->sgid_attr;
	return ret;
}
EXPORT_SYMBOL(rdma_query_ah);

int rdma_modify_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr)
{
	const struct ib_gid_attr *sgid_attr;
	int ret;

	if (IS_ERR_OR_NULL(ah) || !ah_attr) {
		IB_CORE_RATELIMITED("no AH or attributes\n");
		return -EINVAL;
	}
	if (ah_attr->type != ah->type) {
		IB_CORE_RATELIMITED("%s: type %d for an AH of type %d\n",
				    ah->device->name, ah_attr->type, ah->type);
		return -EINVAL;
	}
	ret = ib_check_ah_attr(ah->device, ah_attr);
	if (ret)
		return ret;
	if (!ah->device->ops.modify_ah)
		return -EOPNOTSUPP;
	sgid_attr = ib_ah_sgid_attr(ah->device, ah_attr);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);
	ret = ah->device->ops.modify_ah(ah, ah_attr);
	if (ret) {
		rdma_put_gid_attr(sgid_attr);
		return ret;
	}
	swap(ah->sgid_attr, sgid_attr);
	rdma_put_gid_attr(sgid_attr);
	return 0;
}
EXPORT_SYMBOL(rdma_modify_ah);

int rdma_destroy_ah_user(struct ib_ah *ah, u32 flags, struct ib_udata *udata)
{
	const struct ib_gid_attr *sgid_attr;
	struct ib_pd *pd;
	int ret;

	if (IS_ERR_OR_NULL(ah)) {
		IB_CORE_RATELIMITED("no AH\n");
		return -EINVAL;
	}
	might_sleep_if(flags & RDMA_DESTROY_AH_SLEEPABLE);
	pd = ah->pd;
	sgid_attr = ah->sgid_attr;
	ret = ah->device->ops.destroy_ah(ah, flags);
	if (!ret) {
		rdma_put_gid_attr(sgid_attr);
		atomic_dec(&pd->usecnt);
	}
	return ret;
}
EXPORT_SYMBOL(rdma_destroy_ah_user);

/*
 * The reply path to the sender of a received UD message: its LID, SL and
 * path bits, and with a GRH its GID as destination, answered from the
 * local GID the message was sent to (index 0 for the SA's well-known GID),
 * whose attribute ah_attr then holds (rdma_destroy_ah_attr() drops it).
 */
int ib_init_ah_attr_from_wc(struct ib_device *device, u32 port_num,
			    const struct ib_wc *wc, const struct ib_grh *grh,
			    struct rdma_ah_attr *ah_attr)
{
	const struct ib_gid_attr *sgid_attr;
	u32 flow;

	might_sleep();
	if (!device || !wc || !ah_attr) {
		IB_CORE_RATELIMITED("no device, WC or attributes\n");
		return -EINVAL;
	}
	memset(ah_attr, 0, sizeof(*ah_attr));
	if (!rdma_is_port_valid(device, port_num)) {
		IB_CORE_RATELIMITED("%s: invalid port %u\n", device->name, port_num);
		return -EINVAL;
	}
	ah_attr->type = rdma_ah_find_type(device, port_num);
	if (ah_attr->type != RDMA_AH_ATTR_TYPE_IB) {
		IB_CORE_RATELIMITED("%s: port %u is not InfiniBand\n", device->name, port_num);
		return -EINVAL;
	}
	rdma_ah_set_sl(ah_attr, wc->sl);
	rdma_ah_set_port_num(ah_attr, port_num);
	rdma_ah_set_dlid(ah_attr, wc->slid);
	rdma_ah_set_path_bits(ah_attr, wc->dlid_path_bits);
	if (!(wc->wc_flags & IB_WC_GRH))
		return 0;

	if (!grh) {
		IB_CORE_RATELIMITED("%s: GRH flagged but missing\n", device->name);
		return -EINVAL;
	}
	/* an empty table entry (zero) is nobody's GID: never found */
	if (grh->dgid.global.interface_id != cpu_to_be64(IB_SA_WELL_KNOWN_GUID))
		sgid_attr = rdma_find_gid_by_port(device, &grh->dgid, IB_GID_TYPE_IB,
						  port_num, NULL);
	else
		sgid_attr = rdma_get_gid_attr(device, port_num, 0);
	if (IS_ERR(sgid_attr)) {
		IB_CORE_RATELIMITED("%s: GID %pI6 not on port %u\n",
				    device->name, grh->dgid.raw, port_num);
		return PTR_ERR(sgid_attr);
	}
	flow = be32_to_cpu(grh->version_tclass_flow);
	rdma_move_grh_sgid_attr(ah_attr, (union ib_gid *)&grh->sgid, flow & IB_GRH_FLOW_MASK,
				0xff, (flow >> IB_GRH_TCLASS_SHIFT) & 0xff, sgid_attr);
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_attr_from_wc);

struct ib_ah *ib_create_ah_from_wc(struct ib_pd *pd, const struct ib_wc *wc,
				   const struct ib_grh *grh, u32 port_num)
{
	struct rdma_ah_attr attr;
	struct ib_ah *ah;
	int ret;

	if (IS_ERR_OR_NULL(pd)) {
		IB_CORE_RATELIMITED("no PD\n");
		return ERR_PTR(-EINVAL);
	}
	ret = ib_init_ah_attr_from_wc(pd->device, port_num, wc, grh, &attr);
	if (ret)
		return ERR_PTR(ret);
	ah = rdma_create_ah(pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	rdma_destroy_ah_attr(&attr);
	return ah;
}
EXPORT_SYMBOL(ib_create_ah_from_wc);

/* --- the sgid_attr reference of an address vector (grh.sgid_attr) -------- */

void rdma_destroy_ah_attr(struct rdma_ah_attr *ah_attr)
{
	if (ah_attr && ah_attr->grh.sgid_attr) {
		rdma_put_gid_attr(ah_attr->grh.sgid_attr);
		ah_attr->grh.sgid_attr = NULL;
	}
}
EXPORT_SYMBOL(rdma_destroy_ah_attr);

void rdma_copy_ah_attr(struct rdma_ah_attr *dest, const struct rdma_ah_attr *src)
{
	*dest = *src;
	if (dest->grh.sgid_attr)
		rdma_hold_gid_attr(dest->grh.sgid_attr);
}
EXPORT_SYMBOL(rdma_copy_ah_attr);

void rdma_replace_ah_attr(struct rdma_ah_attr *old, const struct rdma_ah_attr *new)
{
	rdma_destroy_ah_attr(old);
	rdma_copy_ah_attr(old, new);
}
EXPORT_SYMBOL(rdma_replace_ah_attr);

void rdma_move_ah_attr(struct rdma_ah_attr *dest, struct rdma_ah_attr *src)
{
	rdma_destroy_ah_attr(dest);
	*dest = *src;
	src->grh.sgid_attr = NULL;
}
EXPORT_SYMBOL(rdma_move_ah_attr);

/* The GRH of attr with sgid_attr's index; attr takes over the reference. */
void rdma_move_grh_sgid_attr(struct rdma_ah_attr *attr, union ib_gid *dgid,
			     u32 flow_label, u8 hop_limit, u8 traffic_class,
			     const struct ib_gid_attr *sgid_attr)
{
	rdma_ah_set_grh(attr, dgid, flow_label, sgid_attr->index, hop_limit, traffic_class);
	attr->grh.sgid_attr = sgid_attr;
}
EXPORT_SYMBOL(rdma_move_grh_sgid_attr);

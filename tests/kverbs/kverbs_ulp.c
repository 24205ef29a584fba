// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers a ULP such as IPoIB calls besides the verbs: the RDMA
 * netdev (mlx4 offers none: the ULP makes its own), the SR-IOV
 * virtual-function controls (none without SR-IOV) and the device's log
 * lines.  The answers are upstream's for a device without those
 * operations; the guest script checks the log lines' form.
 */
#include <linux/etherdevice.h>
#include <linux/if_link.h>
#include <linux/netdevice.h>
#include "kverbs.h"

/* the token the guest script finds in the log lines below */
#define KV_ULP_TOKEN	0x5eed1e

int kv_case_ulp_helpers(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ifla_vf_guid node_guid, port_guid;
	struct ifla_vf_stats stats;
	struct ifla_vf_info info;
	struct net_device *nd;
	int ret;

	nd = rdma_alloc_netdev(r->dev, 1, RDMA_NETDEV_IPOIB, "kvib%d",
			       NET_NAME_UNKNOWN, ether_setup);
	if (!IS_ERR(nd)) {
		free_netdev(nd);
		return kv_fail(r, "rdma_alloc_netdev gave a netdev: mlx4 offers none");
	}
	if (PTR_ERR(nd) != -EOPNOTSUPP)
		return kv_fail(r, "rdma_alloc_netdev: %ld, want -EOPNOTSUPP", PTR_ERR(nd));
	nd = rdma_alloc_netdev(r->dev, 3, RDMA_NETDEV_IPOIB, "kvib%d",
			       NET_NAME_UNKNOWN, ether_setup);
	if (!IS_ERR(nd))
		free_netdev(nd);
	if (PTR_ERR_OR_ZERO(nd) != -EINVAL)
		return kv_fail(r, "rdma_alloc_netdev on port 3: %d, want -EINVAL",
			       PTR_ERR_OR_ZERO(nd));
	ret = rdma_init_netdev(r->dev, 1, RDMA_NETDEV_IPOIB, "kvib%d",
			       NET_NAME_UNKNOWN, ether_setup, NULL);
	if (ret != -EOPNOTSUPP)
		return kv_fail(r, "rdma_init_netdev: %d, want -EOPNOTSUPP", ret);

	if (ib_get_vf_config(r->dev, 0, 1, &info) != -EOPNOTSUPP ||
	    ib_get_vf_stats(r->dev, 0, 1, &stats) != -EOPNOTSUPP ||
	    ib_get_vf_guid(r->dev, 0, 1, &node_guid, &port_guid) != -EOPNOTSUPP ||
	    ib_set_vf_guid(r->dev, 0, 1, 0x1234, IFLA_VF_IB_NODE_GUID) != -EOPNOTSUPP ||
	    ib_set_vf_link_state(r->dev, 0, 1, IFLA_VF_LINK_STATE_AUTO) != -EOPNOTSUPP)
		return kv_fail(r, "a VF control answered without SR-IOV");

	ibdev_info(r->dev, "kverbs ibdev_info 0x%x\n", KV_ULP_TOKEN);
	ibdev_warn_ratelimited(r->dev, "kverbs ibdev_warn_ratelimited 0x%x\n", KV_ULP_TOKEN);
	/* printed when the module is loaded with dyndbg=+p */
	ibdev_dbg(r->dev, "kverbs ibdev_dbg 0x%x\n", KV_ULP_TOKEN);
	return 0;
}

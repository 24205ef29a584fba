// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers a ULP such as IPoIB calls besides the verbs: the static
 * rates, the RDMA netdev (mlx4 offers none: the ULP makes its own), the SR-IOV
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

/* one lane's rate as a multiple of 2.5 Gb/s (0: unknown speed) */
static int kv_lane_mult(u8 speed)
{
	switch (speed) {
	case IB_SPEED_SDR:
		return ib_rate_to_mult(IB_RATE_2_5_GBPS);
	case IB_SPEED_DDR:
		return ib_rate_to_mult(IB_RATE_5_GBPS);
	case IB_SPEED_QDR:
	case IB_SPEED_FDR10:
		return ib_rate_to_mult(IB_RATE_10_GBPS);
	case IB_SPEED_FDR:
		return ib_rate_to_mult(IB_RATE_14_GBPS);
	case IB_SPEED_EDR:
		return ib_rate_to_mult(IB_RATE_25_GBPS);
	default:
		return 0;
	}
}

/*
 * The static-rate conversions: every IBA rate code round-trips through its
 * multiple of 2.5 Gb/s, unknown values answer as upstream, and port 1's
 * rate (width x lane speed) converts to the data rate a ULP prints.
 */
static int kv_ulp_rates(struct kv_run *r)
{
	struct ib_port_attr pa;
	int code, mult, ret;

	for (code = IB_RATE_2_5_GBPS; code <= IB_RATE_600_GBPS; code++) {
		mult = ib_rate_to_mult(code);
		if (mult <= 0 || mult_to_ib_rate(mult) != code || ib_rate_to_mbps(code) < 2500)
			return kv_fail(r, "rate code %d: mult %d back %d mbps %d", code, mult,
				       mult_to_ib_rate(mult), ib_rate_to_mbps(code));
	}
	if (ib_rate_to_mult(IB_RATE_PORT_CURRENT) != -1 || ib_rate_to_mult(1) != -1 ||
	    ib_rate_to_mbps(23) != -1 || mult_to_ib_rate(3) != IB_RATE_PORT_CURRENT)
		return kv_fail(r, "an unknown rate converted");
	if (ib_rate_to_mult(IB_RATE_10_GBPS) != 4 || ib_rate_to_mbps(IB_RATE_25_GBPS) != 25781 ||
	    ib_rate_to_mbps(IB_RATE_100_GBPS) != 103125)
		return kv_fail(r, "10G mult %d, 25G %d Mb/s, 100G %d Mb/s",
			       ib_rate_to_mult(IB_RATE_10_GBPS),
			       ib_rate_to_mbps(IB_RATE_25_GBPS),
			       ib_rate_to_mbps(IB_RATE_100_GBPS));

	ret = ib_query_port(r->dev, 1, &pa);
	if (ret)
		return kv_fail(r, "ib_query_port: %d", ret);
	/* width x the lane's rate: a rate code the SA and IPoIB know */
	mult = ib_width_enum_to_int(pa.active_width) * kv_lane_mult(pa.active_speed);
	if (mult <= 0 || mult_to_ib_rate(mult) == IB_RATE_PORT_CURRENT ||
	    ib_rate_to_mbps(mult_to_ib_rate(mult)) < 2500 * mult)
		return kv_fail(r, "port 1 (width %u speed %u): mult %d, rate %d, %d Mb/s",
			       pa.active_width, pa.active_speed, mult, mult_to_ib_rate(mult),
			       ib_rate_to_mbps(mult_to_ib_rate(mult)));
	pr_info(KV_NAME ": port 1: rate code %d, %d Mb/s\n", mult_to_ib_rate(mult),
		ib_rate_to_mbps(mult_to_ib_rate(mult)));
	return 0;
}

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

	ret = kv_ulp_rates(r);
	if (ret)
		return ret;

	ibdev_info(r->dev, "kverbs ibdev_info 0x%x\n", KV_ULP_TOKEN);
	ibdev_warn_ratelimited(r->dev, "kverbs ibdev_warn_ratelimited 0x%x\n", KV_ULP_TOKEN);
	/* printed when the module is loaded with dyndbg=+p */
	ibdev_dbg(r->dev, "kverbs ibdev_dbg 0x%x\n", KV_ULP_TOKEN);
	return 0;
}

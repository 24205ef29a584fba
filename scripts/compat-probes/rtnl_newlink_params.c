// SPDX-License-Identifier: GPL-2.0
/*
 * rtnl_link_ops.newlink(dev, struct rtnl_newlink_params *, extack) and
 * rtnl_newlink_link_net() (6.15+); newlink(src_net, dev, tb, data,
 * extack) before.
 */
#include <net/rtnetlink.h>

static int ibstack_probe_newlink(struct net_device *dev,
				 struct rtnl_newlink_params *p,
				 struct netlink_ext_ack *extack)
{
	return rtnl_newlink_link_net(p) && p->tb && p->data ? 0 : -EINVAL;
}

struct rtnl_link_ops ibstack_probe_ops;
struct rtnl_link_ops ibstack_probe_ops = {
	.newlink = ibstack_probe_newlink,
};

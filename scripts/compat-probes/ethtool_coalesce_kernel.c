// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool_ops' get_coalesce() and set_coalesce() also take a struct
 * kernel_ethtool_coalesce * and a struct netlink_ext_ack * (5.15+).
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>

static int ibstack_probe_coalesce(struct net_device *dev,
				  struct ethtool_coalesce *ec,
				  struct kernel_ethtool_coalesce *kec,
				  struct netlink_ext_ack *extack)
{
	return 0;
}

const struct ethtool_ops ibstack_probe_ethtool_ops = {
	.get_coalesce = ibstack_probe_coalesce,
	.set_coalesce = ibstack_probe_coalesce,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * ib_ipoib's ethtool operations: driver information (-i), the eight
 * interface counters (-S), receive interrupt moderation (-c/-C) and the
 * link settings derived from the IB port's speed and width.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <ibstack/compat.h>

#include "ipoib.h"

/* The counters of -S, in the order the in-tree driver reports them. */
static const struct {
	char name[ETH_GSTRING_LEN];
	size_t offset;			/* in struct net_device_stats */
} ipoib_counters[] = {
#define IPOIB_COUNTER(field) \
	{ #field, offsetof(struct net_device_stats, field) }
	IPOIB_COUNTER(rx_packets),
	IPOIB_COUNTER(tx_packets),
	IPOIB_COUNTER(rx_bytes),
	IPOIB_COUNTER(tx_bytes),
	IPOIB_COUNTER(tx_errors),
	IPOIB_COUNTER(rx_dropped),
	IPOIB_COUNTER(tx_dropped),
	IPOIB_COUNTER(multicast),
#undef IPOIB_COUNTER
};

/* largest value of rx-usecs and rx-frames: both are u16 for the CQ */
#define IPOIB_COAL_MAX	0xffff

static void ipoib_get_drvinfo(struct net_device *dev,
			      struct ethtool_drvinfo *info)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	struct device *parent = priv->ca->dev.parent;

	/* info->version stays empty: the ethtool core puts the kernel's there */
	strscpy(info->driver, "ib_ipoib", sizeof(info->driver));
	ib_get_device_fw_str(priv->ca, info->fw_version);
	if (parent)
		strscpy(info->bus_info, dev_name(parent),
			sizeof(info->bus_info));
}

static int ipoib_get_sset_count(struct net_device *dev, int sset)
{
	if (sset == ETH_SS_STATS)
		return ARRAY_SIZE(ipoib_counters);
	return -EOPNOTSUPP;
}

static void ipoib_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	unsigned int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < ARRAY_SIZE(ipoib_counters); i++)
		memcpy(data + i * ETH_GSTRING_LEN, ipoib_counters[i].name,
		       ETH_GSTRING_LEN);
}

static void ipoib_get_ethtool_stats(struct net_device *dev,
				    struct ethtool_stats *stats, u64 *data)
{
	const u8 *base = (const u8 *)&dev->stats;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ipoib_counters); i++)
		data[i] = *(const unsigned long *)(base +
						   ipoib_counters[i].offset);
}

static int ipoib_get_coalesce(IBSTACK_ETHTOOL_COALESCE_PARAMS)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	ec->rx_coalesce_usecs = priv->rx_coal_usecs;
	ec->rx_max_coalesced_frames = priv->rx_coal_frames;
	return 0;
}

static int ipoib_set_coalesce(IBSTACK_ETHTOOL_COALESCE_PARAMS)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	int ret;

	if (ec->rx_coalesce_usecs > IPOIB_COAL_MAX ||
	    ec->rx_max_coalesced_frames > IPOIB_COAL_MAX)
		return -EINVAL;

	/* a device without CQ moderation still keeps the values, as upstream */
	ret = rdma_set_cq_moderation(priv->recv_cq,
				     ec->rx_max_coalesced_frames,
				     ec->rx_coalesce_usecs);
	if (ret && ret != -EOPNOTSUPP) {
		ipoib_warn(priv, "setting the receive CQ's moderation failed (%d)\n",
			   ret);
		return ret;
	}

	priv->rx_coal_usecs = ec->rx_coalesce_usecs;
	priv->rx_coal_frames = ec->rx_max_coalesced_frames;
	return 0;
}

/* The data rate of one lane at an IB speed, in Mb/s; -1 if unknown. */
static int ipoib_lane_mbps(u16 speed)
{
	switch (speed) {
	case IB_SPEED_SDR:
		return SPEED_2500;
	case IB_SPEED_DDR:
		return SPEED_5000;
	case IB_SPEED_QDR:
	case IB_SPEED_FDR10:
		return SPEED_10000;
	case IB_SPEED_FDR:
		return SPEED_14000;
	case IB_SPEED_EDR:
		return SPEED_25000;
	case IB_SPEED_HDR:
		return SPEED_50000;
	case IB_SPEED_NDR:
		return SPEED_100000;
	default:
		return -1;
	}
}

static int ipoib_get_link_ksettings(struct net_device *dev,
				    struct ethtool_link_ksettings *cmd)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	struct ib_port_attr attr;
	int lane, lanes;

	/* the core zeroed *cmd; without carrier there is no speed to tell */
	if (!netif_carrier_ok(dev)) {
		cmd->base.speed = SPEED_UNKNOWN;
		cmd->base.duplex = DUPLEX_UNKNOWN;
		return 0;
	}

	if (ib_query_port(priv->ca, priv->port, &attr))
		return -EINVAL;
	lane = ipoib_lane_mbps(attr.active_speed);
	lanes = ib_width_enum_to_int(attr.active_width);
	if (lane < 0 || lanes < 0)
		return -EINVAL;

	cmd->base.speed = lane * lanes;
	cmd->base.duplex = DUPLEX_FULL;
	cmd->base.autoneg = AUTONEG_ENABLE;
	cmd->base.port = PORT_OTHER;
	cmd->base.phy_address = 0xff;
	return 0;
}

const struct ethtool_ops ipoib_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_RX_USECS |
				     ETHTOOL_COALESCE_RX_MAX_FRAMES,
	.get_drvinfo		= ipoib_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_coalesce		= ipoib_get_coalesce,
	.set_coalesce		= ipoib_set_coalesce,
	.get_strings		= ipoib_get_strings,
	.get_sset_count		= ipoib_get_sset_count,
	.get_ethtool_stats	= ipoib_get_ethtool_stats,
	.get_link_ksettings	= ipoib_get_link_ksettings,
};

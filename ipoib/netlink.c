// SPDX-License-Identifier: GPL-2.0
/*
 * rtnl_link_ops "ipoib": what ip -d link shows of every interface of ours
 * (ibN too: pkey, mode, umcast), and P_Key children through netlink:
 *	ip link add link ib0 [name NAME] type ipoib [pkey P] [mode M] [umcast U]
 *	ip link set NAME type ipoib [mode M] [umcast U]
 *	ip link del NAME
 * A child made here has none of our sysfs files; ibN ignores ip link del.
 */
#include <linux/if_arp.h>
#include <linux/if_link.h>
#include <linux/module.h>
#include <net/rtnetlink.h>
#include <ibstack/compat.h>
#include "ipoib.h"

/* IFLA_IPOIB_MODE's values (uapi's enum, datagram 0 and connected 1) */
static const struct nla_policy ipoib_nl_policy[IFLA_IPOIB_MAX + 1] = {
	[IFLA_IPOIB_PKEY]	= { .type = NLA_U16 },
	[IFLA_IPOIB_MODE]	= { .type = NLA_U16 },
	[IFLA_IPOIB_UMCAST]	= { .type = NLA_U16 },
};

static size_t ipoib_nl_get_size(const struct net_device *dev)
{
	return 3 * nla_total_size(sizeof(u16));	/* PKEY, MODE, UMCAST */
}

static int ipoib_nl_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	const struct ipoib_dev *priv = ipoib_priv(dev);

	if (nla_put_u16(skb, IFLA_IPOIB_PKEY, priv->pkey) ||
	    nla_put_u16(skb, IFLA_IPOIB_MODE,
			ipoib_mode_is_connected(priv) ? IPOIB_MODE_CONNECTED :
							IPOIB_MODE_DATAGRAM) ||
	    nla_put_u16(skb, IFLA_IPOIB_UMCAST,
			test_bit(IPOIB_FLAG_UMCAST, &priv->flags)))
		return -EMSGSIZE;
	return 0;
}

/* [RTNL] MODE, then UMCAST; the mode's error stops it */
static int ipoib_nl_changelink(struct net_device *dev, struct nlattr *tb[],
			       struct nlattr *data[],
			       struct netlink_ext_ack *extack)
{
	int ret;

	if (!data)
		return 0;
	if (data[IFLA_IPOIB_MODE]) {
		switch (nla_get_u16(data[IFLA_IPOIB_MODE])) {
		case IPOIB_MODE_DATAGRAM:
			ret = ipoib_set_mode(dev, false);
			break;
		case IPOIB_MODE_CONNECTED:
			ret = ipoib_set_mode(dev, true);
			break;
		default:
			ret = -EINVAL;
			break;
		}
		if (ret)
			return ret;
	}
	if (data[IFLA_IPOIB_UMCAST])
		ipoib_set_umcast(ipoib_priv(dev),
				 nla_get_u16(data[IFLA_IPOIB_UMCAST]) > 0);
	return 0;
}

/*
 * [sleep, RTNL] ip link add: dev is allocated (ipoib_setup, its name
 * given or ipoib%d), not registered.  On an error the core frees it if it
 * was never registered; one that was is unregistered here.
 */
static int ipoib_nl_newlink_common(struct net *net, struct net_device *dev,
				   struct nlattr *tb[], struct nlattr *data[],
				   struct netlink_ext_ack *extack)
{
	struct ipoib_dev *ppriv;
	struct net_device *pdev;
	u16 pkey;
	int ret;

	if (!tb[IFLA_LINK])
		return -EINVAL;
	pdev = __dev_get_by_index(net, nla_get_u32(tb[IFLA_LINK]));
	if (!pdev || pdev->type != ARPHRD_INFINIBAND ||
	    !ipoib_is_ipoib_dev(pdev))
		return -ENODEV;
	ppriv = ipoib_priv(pdev);
	if (test_bit(IPOIB_FLAG_SUBINTERFACE, &ppriv->flags)) {
		/* a warning and EINVAL's own text, as upstream */
		ipoib_warn(ppriv, "a P_Key child cannot have children\n");
		return -EINVAL;
	}
	pkey = ppriv->pkey;
	if (data && data[IFLA_IPOIB_PKEY])
		pkey = nla_get_u16(data[IFLA_IPOIB_PKEY]);
	if (pkey == 0 || pkey == 0x8000)
		return -EINVAL;

	ret = ipoib_netdev_init(dev, ppriv->ca, ppriv->port, pkey);
	if (ret)
		return ret;
	/* one send and one receive queue, whatever was asked */
	ret = netif_set_real_num_tx_queues(dev, 1);
	if (!ret)
		ret = netif_set_real_num_rx_queues(dev, 1);
	if (!ret)
		ret = ipoib_child_register(ppriv, dev, IPOIB_CHILD_RTNL);
	if (ret)
		return ret;
	ret = ipoib_nl_changelink(dev, tb, data, extack);
	if (ret)
		unregister_netdevice(dev);
	return ret;
}

static int ipoib_nl_newlink(IBSTACK_RTNL_NEWLINK_PARAMS)
{
	return ipoib_nl_newlink_common(ibstack_rtnl_newlink_net(), dev,
				       ibstack_rtnl_newlink_tb(),
				       ibstack_rtnl_newlink_data(), extack);
}

/* [RTNL] ip link del, a netns going away, rmmod: children only */
static void ipoib_nl_dellink(struct net_device *dev, struct list_head *head)
{
	if (ipoib_priv(dev)->parent)
		unregister_netdevice_queue(dev, head);
}

struct rtnl_link_ops ipoib_link_ops __read_mostly = {
	.kind		= "ipoib",
	.netns_refund	= true,
	.maxtype	= IFLA_IPOIB_MAX,
	.policy		= ipoib_nl_policy,
	.priv_size	= sizeof(struct ipoib_dev),
	.setup		= ipoib_setup,
	.newlink	= ipoib_nl_newlink,
	.changelink	= ipoib_nl_changelink,
	.dellink	= ipoib_nl_dellink,
	.get_size	= ipoib_nl_get_size,
	.fill_info	= ipoib_nl_fill_info,
};

int ipoib_netlink_init(void)
{
	return rtnl_link_register(&ipoib_link_ops);
}

void ipoib_netlink_exit(void)
{
	rtnl_link_unregister(&ipoib_link_ops);
}

MODULE_ALIAS_RTNL_LINK("ipoib");

// SPDX-License-Identifier: GPL-2.0
/*
 * The network interface: its identity (type 32, 20-byte addresses, the
 * 24-byte link-layer header of which only 4 bytes go on the wire), its
 * netdev_ops (open, stop, transmit's dispatch, MTU, the multicast list)
 * and the transport it owns (ndo_init and ndo_uninit).
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <ibstack/compat.h>
#include "ipoib.h"

/* ff12:401b:PPPP::ffff:ffff and QPN 0xffffff, P_Key filled in per interface */
static const u8 ipoib_bcast_addr[INFINIBAND_ALEN] = {
	0x00, 0xff, 0xff, 0xff,
	0xff, 0x12, 0x40, 0x1b, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
};

void ipoib_push_pseudo_header(struct sk_buff *skb, const u8 *daddr)
{
	struct ipoib_pseudo_header *ph = skb_push(skb, sizeof(*ph));

	if (daddr)
		memcpy(ph->hwaddr, daddr, INFINIBAND_ALEN);
	else
		memset(ph->hwaddr, 0, INFINIBAND_ALEN);
}

static int ipoib_hard_header(struct sk_buff *skb, struct net_device *dev,
			     unsigned short type, const void *daddr,
			     const void *saddr, unsigned int len)
{
	struct ipoib_header *h = skb_push(skb, sizeof(*h));

	h->proto = htons(type);
	h->reserved = 0;
	ipoib_push_pseudo_header(skb, daddr);
	return IPOIB_HARD_LEN;
}

static const struct header_ops ipoib_header_ops = {
	.create = ipoib_hard_header,
};

/*
 * [RTNL] Finds the interface's P_Key in the port's table: 0, or -ENOENT
 * (logged, as upstream) with IPOIB_FLAG_PKEY_FOUND cleared.
 */
int ipoib_check_pkey(struct ipoib_dev *priv)
{
	u16 index;

	if (!(priv->pkey & 0x7fff) ||
	    ib_find_pkey(priv->ca, priv->port, priv->pkey, &index)) {
		clear_bit(IPOIB_FLAG_PKEY_FOUND, &priv->flags);
		ipoib_warn(priv, "P_Key 0x%04x is %s\n", priv->pkey,
			   priv->pkey & 0x7fff ? "not found" : "Invalid");
		return -ENOENT;
	}
	priv->pkey_index = index;
	set_bit(IPOIB_FLAG_PKEY_FOUND, &priv->flags);
	return 0;
}

static netdev_tx_t ipoib_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	u8 daddr[INFINIBAND_ALEN];
	struct ipoib_header *h;

	if (unlikely(skb->len < IPOIB_HARD_LEN)) {
		ipoib_drop_tx(priv, skb);
		return NETDEV_TX_OK;
	}
	memcpy(daddr, skb->data, INFINIBAND_ALEN);
	skb_pull(skb, IPOIB_PSEUDO_LEN);
	h = (struct ipoib_header *)skb->data;

	if (ipoib_is_mcast(daddr)) {
		/* the group of this interface's partition */
		daddr[8] = priv->pkey >> 8;
		daddr[9] = priv->pkey & 0xff;
		ipoib_mcast_xmit(priv, skb, daddr);
		return NETDEV_TX_OK;
	}
	switch (ntohs(h->proto)) {
	case ETH_P_IP:
	case ETH_P_IPV6:
	case ETH_P_TIPC:
	case ETH_P_ARP:
	case ETH_P_RARP:
		ipoib_unicast_xmit(priv, skb, daddr);
		break;
	default:
		ipoib_drop_tx(priv, skb);
		break;
	}
	return NETDEV_TX_OK;
}

static int ipoib_open(struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	int ret;

	netif_carrier_off(dev);
	set_bit(IPOIB_FLAG_ADMIN_UP, &priv->flags);
	ret = ipoib_ib_open(priv);
	if (ret) {
		clear_bit(IPOIB_FLAG_ADMIN_UP, &priv->flags);
		return ret;
	}
	ret = ipoib_cm_open(priv);
	if (ret) {
		ipoib_ib_stop(priv);
		clear_bit(IPOIB_FLAG_ADMIN_UP, &priv->flags);
		return ret;
	}
	ipoib_dev_up(priv);
	netif_start_queue(dev);
	ipoib_children_open(priv);
	return 0;
}

static int ipoib_stop(struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	ipoib_children_stop(priv);
	clear_bit(IPOIB_FLAG_ADMIN_UP, &priv->flags);
	netif_stop_queue(dev);
	ipoib_dev_down(priv);
	ipoib_cm_stop(priv);
	ipoib_ib_stop(priv);
	return 0;
}

static int ipoib_change_mtu(struct net_device *dev, int new_mtu)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	if (ipoib_cm_admin(priv)) {
		if (new_mtu > priv->cm.max_mtu)
			return -EINVAL;
		if (new_mtu > priv->mcast_mtu)
			ipoib_warn(priv, "mtu > %u will cause multicast packet drops.\n",
				   priv->mcast_mtu);
		dev->mtu = new_mtu;
		return 0;
	}

	if (new_mtu < IPOIB_MIN_MTU + IPOIB_ENCAP_LEN ||
	    new_mtu > priv->max_ib_mtu - IPOIB_ENCAP_LEN)
		return -EINVAL;
	priv->admin_mtu = new_mtu;
	if (priv->mcast_mtu < priv->admin_mtu)
		ipoib_dbg(priv, "MTU %d above the broadcast group's %u: %u\n",
			  new_mtu, priv->mcast_mtu, priv->mcast_mtu);
	dev->mtu = min(priv->mcast_mtu, priv->admin_mtu);
	return 0;
}

/* connected mode: no checksum or segmentation offload on RC */
static netdev_features_t ipoib_fix_features(struct net_device *dev,
					    netdev_features_t features)
{
	if (ipoib_cm_admin(ipoib_priv(dev)))
		features &= ~(NETIF_F_IP_CSUM | NETIF_F_TSO);
	return features;
}

static void ipoib_set_rx_mode(struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	queue_work(priv->wq, &priv->restart_task);
}

static void ipoib_tx_timeout(struct net_device *dev, unsigned int txqueue)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	ipoib_warn(priv, "transmit timeout: latency %d msecs\n",
		   jiffies_to_msecs(jiffies - dev_trans_start(dev)));
	ipoib_warn(priv, "queue stopped %d, tx_head %u, tx_tail %u\n",
		   netif_queue_stopped(dev), priv->tx_head, priv->tx_tail);
}

static int ipoib_ndo_init(struct net_device *dev)
{
	return ipoib_dev_init_transport(dev);
}

static void ipoib_ndo_uninit(struct net_device *dev)
{
	ipoib_dev_cleanup_transport(dev);
	ipoib_child_unlink(dev);
}

static const struct net_device_ops ipoib_netdev_ops = {
	.ndo_init		= ipoib_ndo_init,
	.ndo_uninit		= ipoib_ndo_uninit,
	.ndo_open		= ipoib_open,
	.ndo_stop		= ipoib_stop,
	.ndo_start_xmit		= ipoib_start_xmit,
	.ndo_change_mtu		= ipoib_change_mtu,
	.ndo_fix_features	= ipoib_fix_features,
	.ndo_set_rx_mode	= ipoib_set_rx_mode,
	.ndo_tx_timeout		= ipoib_tx_timeout,
	.ndo_get_iflink		= ipoib_get_iflink,
};

/* dev is one of our interfaces (a parent or a child) */
bool ipoib_is_ipoib_dev(const struct net_device *dev)
{
	return dev->netdev_ops == &ipoib_netdev_ops;
}

/* alloc_netdev's and rtnl_link_ops' setup */
void ipoib_setup(struct net_device *dev)
{
	dev->netdev_ops = &ipoib_netdev_ops;
	dev->header_ops = &ipoib_header_ops;
	dev->ethtool_ops = &ipoib_ethtool_ops;
	dev->watchdog_timeo = HZ;
	dev->flags |= IFF_BROADCAST | IFF_MULTICAST;
	dev->hard_header_len = IPOIB_HARD_LEN;
	dev->addr_len = INFINIBAND_ALEN;
	dev->type = ARPHRD_INFINIBAND;
	dev->tx_queue_len = ipoib_sendq_size * 2;
	dev->features = NETIF_F_VLAN_CHALLENGED | NETIF_F_HIGHDMA;
	netif_keep_dst(dev);
	memcpy(dev->broadcast, ipoib_bcast_addr, INFINIBAND_ALEN);
	dev->needs_free_netdev = true;
}

/* the offloads the card gives a UD QP (ethtool -k) */
void ipoib_set_dev_features(struct ipoib_dev *priv)
{
	struct net_device *dev = priv->dev;
	struct ib_device_attr *a = &priv->ca->attrs;

	dev->hw_features = 0;
	if (a->device_cap_flags & IB_DEVICE_UD_IP_CSUM) {
		dev->hw_features |= NETIF_F_IP_CSUM | NETIF_F_RXCSUM;
		if (priv->lso)
			dev->hw_features |= NETIF_F_TSO;
	}
	dev->features |= dev->hw_features;
	if (priv->max_send_sge > 1)
		dev->features |= NETIF_F_SG;
}

/*
 * [sleep, RTNL] ndo_init: the interface's work queue, neighbour hash, PD,
 * CQs, QP and rings; the QP number goes into the hardware address.
 */
int ipoib_dev_init_transport(struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	u8 qpn[3];
	int ret;

	priv->wq = alloc_ordered_workqueue("ipoib_wq", WQ_MEM_RECLAIM);
	if (!priv->wq)
		return -ENOMEM;
	ret = ipoib_neigh_hash_init(priv);
	if (ret)
		goto err_wq;
	ret = ipoib_qp_create(priv);
	if (ret)
		goto err_hash;
	ret = ipoib_cm_dev_init(priv);
	if (ret)
		goto err_qp;
	qpn[0] = priv->qp->qp_num >> 16;
	qpn[1] = priv->qp->qp_num >> 8;
	qpn[2] = priv->qp->qp_num;
	ibstack_dev_addr_mod(dev, 1, qpn, sizeof(qpn));
	ipoib_set_dev_features(priv);
	/* both start disabled: ipoib_ib_open() enables them */
	ibstack_netif_napi_add(dev, &priv->recv_napi, ipoib_recv_poll,
			       IPOIB_NUM_WC);
	ibstack_netif_napi_add(dev, &priv->send_napi, ipoib_send_poll,
			       IPOIB_TX_WEIGHT);
	set_bit(IPOIB_FLAG_INITIALIZED, &priv->flags);
	return 0;

err_qp:
	ipoib_qp_destroy(priv);
err_hash:
	ipoib_neigh_hash_free(priv);
err_wq:
	destroy_workqueue(priv->wq);
	return ret;
}

/* [sleep, RTNL] ndo_uninit: all of it, the interface stopped */
void ipoib_dev_cleanup_transport(struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	if (!test_and_clear_bit(IPOIB_FLAG_INITIALIZED, &priv->flags))
		return;
	/* stop left no group and no path; the tasks are idle */
	flush_workqueue(priv->wq);
	cancel_delayed_work_sync(&priv->mcast_task);
	cancel_delayed_work_sync(&priv->ah_reap_task);
	cancel_delayed_work_sync(&priv->neigh_gc_task);
	netif_napi_del(&priv->recv_napi);
	netif_napi_del(&priv->send_napi);
	ipoib_neigh_hash_free(priv);
	/* connections of neighbours freed just now go before the CQs */
	flush_workqueue(priv->wq);
	ipoib_ah_reap(priv, true);
	ipoib_cm_dev_cleanup(priv);
	ipoib_qp_destroy(priv);
	destroy_workqueue(priv->wq);
}

static void ipoib_priv_init(struct ipoib_dev *priv, struct net_device *dev)
{
	priv->dev = dev;
	spin_lock_init(&priv->lock);
	mutex_init(&priv->mcast_mutex);
	priv->path_tree = RB_ROOT;
	INIT_LIST_HEAD(&priv->path_list);
	INIT_LIST_HEAD(&priv->dead_ahs);
	priv->mcast_tree = RB_ROOT;
	INIT_LIST_HEAD(&priv->mcast_list);
	INIT_DELAYED_WORK(&priv->mcast_task, ipoib_mcast_task);
	INIT_WORK(&priv->carrier_on_task, ipoib_carrier_on_task);
	INIT_WORK(&priv->restart_task, ipoib_mcast_restart_task);
	INIT_DELAYED_WORK(&priv->ah_reap_task, ipoib_ah_reap_task);
	INIT_DELAYED_WORK(&priv->neigh_gc_task, ipoib_neigh_gc_task);
	INIT_WORK(&priv->flush_light, ipoib_flush_light);
	INIT_WORK(&priv->flush_normal, ipoib_flush_normal);
	INIT_WORK(&priv->flush_heavy, ipoib_flush_heavy);
	INIT_LIST_HEAD(&priv->children);
	INIT_LIST_HEAD(&priv->child_list);
}

/*
 * [sleep] Makes dev (set up by ipoib_setup, not registered) an interface on
 * port of ca with P_Key pkey (bit 15 is forced on): its address holds the
 * port's GID 0, MTUs from the port's largest MTU.  No device link and
 * dev_port 0: ipoib_netdev_create() adds them for ibN.
 */
int ipoib_netdev_init(struct net_device *dev, struct ib_device *ca, u32 port,
		      u16 pkey)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	struct ib_port_attr attr;
	union ib_gid gid;
	int ret;

	ret = ib_query_port(ca, port, &attr);
	if (ret)
		return ret;
	ret = rdma_query_gid(ca, port, 0, &gid);
	if (ret)
		return ret;

	ipoib_priv_init(priv, dev);
	priv->ca = ca;
	priv->port = port;
	priv->pkey = pkey | 0x8000;
	priv->max_ib_mtu = ib_mtu_enum_to_int(attr.max_mtu);
	priv->mcast_mtu = priv->max_ib_mtu - IPOIB_ENCAP_LEN;
	priv->admin_mtu = priv->mcast_mtu;
	dev->mtu = priv->mcast_mtu;
	/*
	 * Not in ipoib_setup: as upstream (its ndo_init), ip link add's
	 * IFLA_MTU is checked while the device has no maximum yet, and the
	 * MTU asked for is then replaced by the port's
	 */
	dev->max_mtu = IPOIB_CM_MTU;
	priv->local_lid = attr.lid;

	ibstack_dev_addr_mod(dev, 4, gid.raw, sizeof(gid.raw));
	dev->broadcast[8] = priv->pkey >> 8;
	dev->broadcast[9] = priv->pkey & 0xff;
	return 0;
}

/* [sleep] ibN on port of ca, not registered yet (ipoib_netdev_init) */
struct net_device *ipoib_netdev_create(struct ib_device *ca, u32 port,
				       const char *name, u16 pkey)
{
	struct net_device *dev;
	int ret;

	dev = alloc_netdev(sizeof(struct ipoib_dev), name, NET_NAME_UNKNOWN,
			   ipoib_setup);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	ret = ipoib_netdev_init(dev, ca, port, pkey);
	if (ret) {
		free_netdev(dev);
		return ERR_PTR(ret);
	}
	SET_NETDEV_DEV(dev, ca->dev.parent);
	dev->dev_port = port - 1;
	dev->dev_id = port - 1;
	dev->rtnl_link_ops = &ipoib_link_ops;
	return dev;
}

/* an interface that was never registered */
void ipoib_netdev_free(struct net_device *dev)
{
	free_netdev(dev);
}

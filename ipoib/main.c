// SPDX-License-Identifier: GPL-2.0
/*
 * ib_ipoib: IP over InfiniBand for our stack.  This file has the module's
 * parameters (upstream's names, types and limits), the shared objects
 * (the SA client, the flush work queue, the debugfs directory) and the
 * ib_client: an interface ibN on P_Key index 0 of every InfiniBand port
 * of a device, gone with the device.
 */
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include "ipoib.h"

MODULE_DESCRIPTION("IP over InfiniBand (ibstack)");
MODULE_LICENSE("GPL");

int ipoib_sendq_size __read_mostly = IPOIB_DEF_SENDQ;
int ipoib_recvq_size __read_mostly = IPOIB_DEF_RECVQ;
module_param_named(send_queue_size, ipoib_sendq_size, int, 0444);
MODULE_PARM_DESC(send_queue_size, "Number of descriptors in send queue");
module_param_named(recv_queue_size, ipoib_recvq_size, int, 0444);
MODULE_PARM_DESC(recv_queue_size, "Number of descriptors in receive queue");

int ipoib_debug_level;
module_param_named(debug_level, ipoib_debug_level, int, 0644);
MODULE_PARM_DESC(debug_level, "Enable debug tracing if > 0");

int ipoib_mcast_debug_level;
module_param_named(mcast_debug_level, ipoib_mcast_debug_level, int, 0644);
MODULE_PARM_DESC(mcast_debug_level, "Enable multicast debug tracing if > 0");

/* connected mode's (not there yet): the parameter exists as upstream's */
static int ipoib_max_conn_qp = 128;
module_param_named(max_nonsrq_conn_qp, ipoib_max_conn_qp, int, 0444);
MODULE_PARM_DESC(max_nonsrq_conn_qp,
		 "Max number of connected-mode QPs per interface (applied only if shared receive queue is not available)");

struct ib_sa_client ipoib_sa_client;
struct workqueue_struct *ipoib_flush_wq;

/* the interfaces of one device (the client's data) */
struct ipoib_ca {
	struct list_head	devs;
};

struct ipoib_port_dev {
	struct list_head	list;
	struct net_device	*dev;
};

static int ipoib_clamp_queue(int size, int min)
{
	size = clamp(size, min, IPOIB_MAX_QUEUE_SIZE);
	return roundup_pow_of_two(size);
}

/* [sleep] ibN on port of ca, registered; an ERR_PTR otherwise */
static struct net_device *ipoib_add_port(struct ib_device *ca, u32 port)
{
	struct ipoib_dev *priv;
	struct net_device *dev;
	u16 pkey;
	int ret;

	ret = ib_query_pkey(ca, port, 0, &pkey);
	if (ret)
		return ERR_PTR(ret);
	dev = ipoib_netdev_create(ca, port, "ib%d", pkey);
	if (IS_ERR(dev))
		return dev;
	priv = ipoib_priv(dev);
	dev->sysfs_groups[0] = &ipoib_attr_group;
	ret = register_netdev(dev);
	if (ret) {
		pr_warn(IPOIB_PFX "%s port %u: no interface (%d)\n",
			dev_name(&ca->dev), port, ret);
		ipoib_netdev_free(dev);
		return ERR_PTR(ret);
	}
	ret = ipoib_sysfs_add_dev_id(dev);
	if (ret)
		netdev_warn(dev, "no dev_id override in sysfs (%d)\n", ret);
	ipoib_debugfs_add(priv);
	INIT_IB_EVENT_HANDLER(&priv->event_handler, ca, ipoib_event);
	ib_register_event_handler(&priv->event_handler);
	/* the P_Key may have changed since the query above */
	queue_work(ipoib_flush_wq, &priv->flush_heavy);
	return dev;
}

static void ipoib_remove_port(struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	ib_unregister_event_handler(&priv->event_handler);
	cancel_work_sync(&priv->flush_light);
	cancel_work_sync(&priv->flush_normal);
	cancel_work_sync(&priv->flush_heavy);
	ipoib_debugfs_del(priv);
	/* delete_child's deletions still queued end first */
	flush_workqueue(ipoib_flush_wq);
	/*
	 * Its P_Key children go with it, before it; each stops, frees its
	 * transport (ndo_uninit), then is freed.
	 */
	rtnl_lock();
	ipoib_children_unregister(priv);
	unregister_netdevice(dev);
	rtnl_unlock();
}

static void ipoib_remove_all(struct ipoib_ca *ica)
{
	struct ipoib_port_dev *pd, *tmp;

	list_for_each_entry_safe_reverse(pd, tmp, &ica->devs, list) {
		list_del(&pd->list);
		ipoib_remove_port(pd->dev);
		kfree(pd);
	}
}

static struct ib_client ipoib_client;

static int ipoib_add_one(struct ib_device *ca)
{
	struct ipoib_port_dev *pd;
	struct net_device *dev;
	struct ipoib_ca *ica;
	u32 port;

	ica = kzalloc(sizeof(*ica), GFP_KERNEL);
	if (!ica)
		return -ENOMEM;
	INIT_LIST_HEAD(&ica->devs);
	rdma_for_each_port(ca, port) {
		if (!rdma_protocol_ib(ca, port))
			continue;
		pd = kzalloc(sizeof(*pd), GFP_KERNEL);
		if (!pd)
			continue;
		dev = ipoib_add_port(ca, port);
		if (IS_ERR(dev)) {
			kfree(pd);
			continue;
		}
		pd->dev = dev;
		list_add_tail(&pd->list, &ica->devs);
	}
	if (list_empty(&ica->devs)) {
		kfree(ica);
		return -EOPNOTSUPP;
	}
	ib_set_client_data(ca, &ipoib_client, ica);
	return 0;
}

static void ipoib_remove_one(struct ib_device *ca, void *client_data)
{
	struct ipoib_ca *ica = client_data;

	ipoib_remove_all(ica);
	kfree(ica);
}

static struct ib_client ipoib_client = {
	.name	= "ipoib",
	.add	= ipoib_add_one,
	.remove	= ipoib_remove_one,
};

static int __init ipoib_init(void)
{
	int ret;

	ipoib_sendq_size = ipoib_clamp_queue(ipoib_sendq_size, IPOIB_MIN_SENDQ);
	ipoib_recvq_size = ipoib_clamp_queue(ipoib_recvq_size, IPOIB_MIN_RECVQ);
	ipoib_max_conn_qp = clamp(ipoib_max_conn_qp, 0, 4096);

	ipoib_debugfs_init();
	ipoib_flush_wq = alloc_ordered_workqueue("ipoib_flush", 0);
	if (!ipoib_flush_wq) {
		ret = -ENOMEM;
		goto err_debugfs;
	}
	ib_sa_register_client(&ipoib_sa_client);
	ret = ipoib_netlink_init();
	if (ret)
		goto err_sa;
	ret = ib_register_client(&ipoib_client);
	if (ret)
		goto err_netlink;
	return 0;

err_netlink:
	ipoib_netlink_exit();
err_sa:
	ib_sa_unregister_client(&ipoib_sa_client);
	destroy_workqueue(ipoib_flush_wq);
err_debugfs:
	ipoib_debugfs_exit();
	return ret;
}

static void __exit ipoib_exit(void)
{
	ib_unregister_client(&ipoib_client);
	ipoib_netlink_exit();
	ib_sa_unregister_client(&ipoib_sa_client);
	destroy_workqueue(ipoib_flush_wq);
	ipoib_debugfs_exit();
}

module_init(ipoib_init);
module_exit(ipoib_exit);

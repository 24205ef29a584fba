// SPDX-License-Identifier: GPL-2.0
/*
 * Port events and what they do to an interface, as upstream:
 *  - CLIENT_REREGISTER, GID_CHANGE: a light flush (paths marked invalid,
 *    every group left and joined again; the carrier stays on);
 *  - PORT_ERR, PORT_ACTIVE, LID_CHANGE: a normal flush (carrier off, the
 *    groups left, the paths dropped, then up again);
 *  - PKEY_CHANGE: a heavy flush (the P_Key re-read; if it changed, the QP
 *    restarted with it);
 *  - SM_CHANGE and the others: nothing.
 * The handler may run in any context: it only queues the flush on
 * ipoib_flush_wq, where it runs under RTNL, so that it never races with
 * ndo_open or ndo_stop.  Only ibN registers a handler; its flushes do its
 * P_Key children first, each with its own P_Key for a heavy one.
 */
#include <linux/rtnetlink.h>
#include <ibstack/compat.h>
#include "ipoib.h"

/* [RTNL] the interface on its way up: joins start */
void ipoib_dev_up(struct ipoib_dev *priv)
{
	ASSERT_RTNL();
	if (!test_bit(IPOIB_FLAG_QP_READY, &priv->flags))
		return;
	set_bit(IPOIB_FLAG_OPER_UP, &priv->flags);
	ipoib_mcast_start(priv);
}

/* [sleep, RTNL] carrier off, every group left, every path dropped */
void ipoib_dev_down(struct ipoib_dev *priv)
{
	ASSERT_RTNL();
	clear_bit(IPOIB_FLAG_OPER_UP, &priv->flags);
	netif_carrier_off(priv->dev);
	/* the carrier task gives up once OPER_UP is clear */
	cancel_work_sync(&priv->carrier_on_task);
	ipoib_mcast_stop(priv);
	ipoib_mcast_leave_all(priv);
	ipoib_paths_flush(priv);
}

/* GID 0 of the port into the address, if it changed (a GID_CHANGE) */
static void ipoib_update_gid(struct ipoib_dev *priv)
{
	union ib_gid gid;

	if (rdma_query_gid(priv->ca, priv->port, 0, &gid))
		return;
	if (!memcmp(priv->dev->dev_addr + 4, gid.raw, sizeof(gid.raw)))
		return;
	netif_addr_lock_bh(priv->dev);
	ibstack_dev_addr_mod(priv->dev, 4, gid.raw, sizeof(gid.raw));
	netif_addr_unlock_bh(priv->dev);
	call_netdevice_notifiers(NETDEV_CHANGEADDR, priv->dev);
}

static void ipoib_flush_light_one(struct ipoib_dev *priv)
{
	ipoib_update_gid(priv);
	if (test_bit(IPOIB_FLAG_ADMIN_UP, &priv->flags) &&
	    test_bit(IPOIB_FLAG_OPER_UP, &priv->flags)) {
		ipoib_paths_invalidate(priv);
		ipoib_mcast_stop(priv);
		ipoib_mcast_leave_all(priv);
		ipoib_ah_reap(priv, false);
		ipoib_mcast_start(priv);
	}
}

static void ipoib_flush_normal_one(struct ipoib_dev *priv)
{
	if (test_bit(IPOIB_FLAG_ADMIN_UP, &priv->flags)) {
		ipoib_dev_down(priv);
		ipoib_dev_up(priv);
	}
}

/*
 * A heavy flush's question: does the interface need its QP restarted?
 * ibN takes whatever P_Key index 0 holds now, and restarts if that value
 * changed (or it was not up for want of a P_Key).  A child keeps its own
 * P_Key and looks for it again: it restarts when its index moved, when it
 * is found while the child could not come up, and when it is gone while
 * the child was up (which takes the child down, without carrier).
 */
static bool ipoib_heavy_needs_restart(struct ipoib_dev *priv)
{
	bool was_ready = test_bit(IPOIB_FLAG_QP_READY, &priv->flags);
	bool admin_up = test_bit(IPOIB_FLAG_ADMIN_UP, &priv->flags);
	u16 pkey, index;

	if (priv->parent) {
		if (!admin_up)
			return false;
		if (ib_find_pkey(priv->ca, priv->port, priv->pkey, &index))
			return was_ready;
		return !was_ready || index != priv->pkey_index;
	}
	if (ib_query_pkey(priv->ca, priv->port, 0, &pkey))
		return false;
	pkey |= 0x8000;
	if (pkey == priv->pkey && (was_ready || !admin_up))
		return false;
	priv->pkey = pkey;
	priv->dev->broadcast[8] = pkey >> 8;
	priv->dev->broadcast[9] = pkey & 0xff;
	return admin_up;
}

static void ipoib_flush_heavy_one(struct ipoib_dev *priv)
{
	if (!ipoib_heavy_needs_restart(priv))
		return;
	ipoib_dev_down(priv);
	ipoib_ib_stop(priv);
	if (!ipoib_ib_open(priv)) {
		ipoib_dev_up(priv);
		if (netif_queue_stopped(priv->dev))
			netif_start_queue(priv->dev);
	}
}

/*
 * [RTNL] A flush of ibN and of its P_Key children, the children first as
 * upstream (they have no event handler of their own: ibN's queues the
 * flush).
 */
static void ipoib_flush(struct ipoib_dev *priv, enum ipoib_flush_level level)
{
	struct ipoib_dev *cpriv;

	ASSERT_RTNL();
	list_for_each_entry(cpriv, &priv->children, child_list)
		ipoib_flush(cpriv, level);
	switch (level) {
	case IPOIB_FLUSH_LIGHT:
		ipoib_flush_light_one(priv);
		break;
	case IPOIB_FLUSH_NORMAL:
		ipoib_flush_normal_one(priv);
		break;
	case IPOIB_FLUSH_HEAVY:
		ipoib_flush_heavy_one(priv);
		break;
	}
}

void ipoib_flush_light(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      flush_light);

	rtnl_lock();
	ipoib_flush(priv, IPOIB_FLUSH_LIGHT);
	rtnl_unlock();
}

void ipoib_flush_normal(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      flush_normal);

	rtnl_lock();
	ipoib_flush(priv, IPOIB_FLUSH_NORMAL);
	rtnl_unlock();
}

void ipoib_flush_heavy(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      flush_heavy);

	rtnl_lock();
	ipoib_flush(priv, IPOIB_FLUSH_HEAVY);
	rtnl_unlock();
}

void ipoib_event(struct ib_event_handler *handler, struct ib_event *event)
{
	struct ipoib_dev *priv = container_of(handler, struct ipoib_dev,
					      event_handler);

	if (event->element.port_num != priv->port)
		return;
	switch (event->event) {
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
		queue_work(ipoib_flush_wq, &priv->flush_light);
		break;
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_LID_CHANGE:
		queue_work(ipoib_flush_wq, &priv->flush_normal);
		break;
	case IB_EVENT_PKEY_CHANGE:
		queue_work(ipoib_flush_wq, &priv->flush_heavy);
		break;
	default:
		break;
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * P_Key children: more interfaces on ibN's port, each in its own partition
 * with its own UD QP and rings.  Two kinds, as upstream:
 *  - legacy: echo 0x8001 > /sys/class/net/ib0/create_child makes ib0.8001
 *    (the parent's name cut to 10 characters, a dot, the P_Key as
 *    written), with the mode, pkey, umcast and parent files; delete_child
 *    with the same P_Key ends it.  The P_Key must not be ibN's or another
 *    legacy child's, compared as written against the stored values (bit 15
 *    set), as upstream does: 0x7fff on a 0xffff parent makes ib0.7fff in
 *    the parent's partition, and delete_child 0x7fff then finds nothing.
 *  - rtnl: ip link add link ib0 ... type ipoib (netlink.c), no sysfs files
 *    of ours, any P_Key (duplicates too); ip link del ends it.
 * A child has the parent's GID and flags byte, its own QPN, no device link
 * and dev_port 0; its iflink is the parent's (ib0.8001@ib0).  It lives on
 * the parent's children list from its registration to its ndo_uninit,
 * holding a reference to the parent, all under RTNL (ipoib.h).  ibN's
 * open and stop bring its children up and down; ibN's flushes do them
 * first (event.c); ibN's removal unregisters them first (main.c).
 */
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/device.h>
#include <linux/rtnetlink.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <ibstack/compat.h>
#include "ipoib.h"

/* [RTNL] pkey, as written, is taken by ibN or one of its legacy children */
static bool ipoib_legacy_pkey_taken(struct ipoib_dev *ppriv, u16 pkey)
{
	struct ipoib_dev *cpriv;

	if (ppriv->pkey == pkey)
		return true;
	list_for_each_entry(cpriv, &ppriv->children, child_list)
		if (cpriv->child_kind == IPOIB_CHILD_LEGACY &&
		    !cpriv->child_deleting && cpriv->pkey == pkey)
			return true;
	return false;
}

/*
 * [sleep, RTNL] Registers dev (made by ipoib_netdev_init() on the
 * parent's port, not registered) as a child of ppriv's interface.  On an
 * error dev is not registered, unless its reg_state says otherwise (it
 * was then unregistered, and is freed with RTNL's release), as
 * register_netdevice leaves it.
 */
int ipoib_child_register(struct ipoib_dev *ppriv, struct net_device *dev,
			 enum ipoib_child_kind kind)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	struct net_device *pdev = ppriv->dev;
	int ret;

	ASSERT_RTNL();
	if (pdev->reg_state != NETREG_REGISTERED)
		return -ENODEV;
	if ((priv->pkey & 0x7fff) == 0)
		return -EINVAL;

	priv->parent = pdev;
	priv->child_kind = kind;
	set_bit(IPOIB_FLAG_SUBINTERFACE, &priv->flags);
	dev->rtnl_link_ops = &ipoib_link_ops;
	if (kind == IPOIB_CHILD_LEGACY)
		dev->sysfs_groups[0] = &ipoib_child_attr_group;
	/* the parent's flags byte and GID; the QPN comes with ndo_init */
	ibstack_dev_addr_mod(dev, 0, pdev->dev_addr, 1);
	ibstack_dev_addr_mod(dev, 4, pdev->dev_addr + 4, INFINIBAND_ALEN - 4);

	ret = register_netdevice(dev);
	if (ret) {
		netdev_warn(pdev, "child %s not registered: %d\n", dev->name,
			    ret);
		return ret;
	}
	dev_hold(pdev);
	list_add_tail(&priv->child_list, &ppriv->children);
	return 0;
}

/* [RTNL] ndo_uninit: a child leaves its parent's list */
void ipoib_child_unlink(struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	ASSERT_RTNL();
	if (!priv->parent) {
		/* ipoib_remove_port unregistered them first */
		WARN_ON(!list_empty(&priv->children));
		return;
	}
	if (list_empty(&priv->child_list))
		return;			/* never registered */
	list_del_init(&priv->child_list);
	dev_put(priv->parent);
}

int ipoib_get_iflink(const struct net_device *dev)
{
	const struct ipoib_dev *priv = ipoib_priv(dev);

	return priv->parent ? priv->parent->ifindex : dev->ifindex;
}

/* [RTNL] ibN came up: so do its children that are down */
void ipoib_children_open(struct ipoib_dev *priv)
{
	struct ipoib_dev *cpriv;

	list_for_each_entry(cpriv, &priv->children, child_list) {
		struct net_device *cdev = cpriv->dev;

		if (!(cdev->flags & IFF_UP))
			dev_change_flags(cdev, cdev->flags | IFF_UP, NULL);
	}
}

/* [RTNL] ibN goes down: its children that are up go down first */
void ipoib_children_stop(struct ipoib_dev *priv)
{
	struct ipoib_dev *cpriv;

	list_for_each_entry(cpriv, &priv->children, child_list) {
		struct net_device *cdev = cpriv->dev;

		if (cdev->flags & IFF_UP)
			dev_change_flags(cdev, cdev->flags & ~IFF_UP, NULL);
	}
}

/* [sleep, RTNL] ibN goes away: its children first, all at once */
void ipoib_children_unregister(struct ipoib_dev *priv)
{
	struct ipoib_dev *cpriv;
	LIST_HEAD(head);

	ASSERT_RTNL();
	list_for_each_entry(cpriv, &priv->children, child_list)
		unregister_netdevice_queue(cpriv->dev, &head);
	unregister_netdevice_many(&head);
}

/* --- the legacy interface: sysfs ---------------------------------------- */

/* [sleep] create_child: a legacy child of pdev with P_Key pkey */
static int ipoib_child_create_legacy(struct net_device *pdev, u16 pkey)
{
	struct ipoib_dev *ppriv = ipoib_priv(pdev);
	char name[IFNAMSIZ];
	struct net_device *dev;
	int ret;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	/* unregistering pdev removes this file under RTNL: never wait */
	if (!rtnl_trylock())
		return restart_syscall();
	if (pdev->reg_state != NETREG_REGISTERED) {
		ret = -EPERM;
		goto out;
	}
	if (ipoib_legacy_pkey_taken(ppriv, pkey)) {
		ret = -ENOTUNIQ;
		goto out;
	}
	BUILD_BUG_ON(IFNAMSIZ < 16);	/* 10 + 1 + 4 and the NUL */
	snprintf(name, sizeof(name), "%.10s.%04x", pdev->name, pkey);
	dev = alloc_netdev(sizeof(struct ipoib_dev), name, NET_NAME_UNKNOWN,
			   ipoib_setup);
	if (!dev) {
		ret = -ENOMEM;
		goto out;
	}
	ret = ipoib_netdev_init(dev, ppriv->ca, ppriv->port, pkey);
	if (!ret)
		ret = ipoib_child_register(ppriv, dev, IPOIB_CHILD_LEGACY);
	if (ret && dev->reg_state == NETREG_UNINITIALIZED)
		free_netdev(dev);
out:
	rtnl_unlock();
	return ret;
}

struct ipoib_child_del_work {
	struct work_struct	work;
	struct net_device	*dev;		/* held */
};

/*
 * On ipoib_flush_wq: a sysfs store cannot unregister (that removes its
 * own file and waits for it, under RTNL), so delete_child leaves the
 * unregistering to this, which may wait for RTNL.  Someone else (ip link
 * del, ibN's removal) may have unregistered the child meanwhile.
 */
static void ipoib_child_del_task(struct work_struct *work)
{
	struct ipoib_child_del_work *dw =
		container_of(work, struct ipoib_child_del_work, work);

	rtnl_lock();
	if (dw->dev->reg_state == NETREG_REGISTERED)
		unregister_netdevice(dw->dev);
	/* before rtnl_unlock, which waits for the last reference */
	dev_put(dw->dev);
	rtnl_unlock();
	kfree(dw);
}

/* [sleep] delete_child: the legacy child of pdev with P_Key pkey */
static int ipoib_child_delete_legacy(struct net_device *pdev, u16 pkey)
{
	struct ipoib_dev *ppriv = ipoib_priv(pdev);
	struct ipoib_child_del_work *dw;
	struct ipoib_dev *cpriv;
	int ret = -ENODEV;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (!rtnl_trylock())
		return restart_syscall();
	if (pdev->reg_state != NETREG_REGISTERED) {
		ret = -EPERM;
		goto out;
	}
	list_for_each_entry(cpriv, &ppriv->children, child_list) {
		if (cpriv->child_kind != IPOIB_CHILD_LEGACY ||
		    cpriv->child_deleting || cpriv->pkey != pkey)
			continue;
		dw = kzalloc(sizeof(*dw), GFP_KERNEL);
		if (!dw) {
			ret = -ENOMEM;
			break;
		}
		cpriv->child_deleting = true;
		dev_hold(cpriv->dev);
		dw->dev = cpriv->dev;
		INIT_WORK(&dw->work, ipoib_child_del_task);
		queue_work(ipoib_flush_wq, &dw->work);
		ret = 0;
		break;
	}
out:
	rtnl_unlock();
	return ret;
}

/*
 * A number as C writes it, read as upstream does (sscanf's "%i" into an
 * int): 0x8001, 32769 and 0100001 are the same P_Key; spaces before it and
 * anything after it are ignored, and a value past an int's range wraps.  A
 * child cannot have 0 or 0x8000 (no partition); delete_child takes them
 * and finds nothing.
 */
static int ipoib_parse_pkey(const char *buf, u16 *pkey, bool create)
{
	const char *s = skip_spaces(buf);
	bool neg = *s == '-';
	unsigned long v;
	int val;

	if (!isdigit(s[neg]))
		return -EINVAL;
	v = ipoib_leading_number(s + neg);
	val = (int)(neg ? 0 - v : v);
	if (val < 0 || val > 0xffff)
		return -EINVAL;
	if (create && (val == 0 || val == 0x8000))
		return -EINVAL;
	*pkey = val;
	return 0;
}

static ssize_t create_child_store(struct device *d,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	u16 pkey;
	int ret;

	ret = ipoib_parse_pkey(buf, &pkey, true);
	if (!ret)
		ret = ipoib_child_create_legacy(to_net_dev(d), pkey);
	return ret ? ret : count;
}
DEVICE_ATTR_WO(create_child);

static ssize_t delete_child_store(struct device *d,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	u16 pkey;
	int ret;

	ret = ipoib_parse_pkey(buf, &pkey, false);
	if (!ret)
		ret = ipoib_child_delete_legacy(to_net_dev(d), pkey);
	return ret ? ret : count;
}
DEVICE_ATTR_WO(delete_child);

static ssize_t parent_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct ipoib_dev *priv = ipoib_priv(to_net_dev(d));

	return sysfs_emit(buf, "%s\n", priv->parent->name);
}
DEVICE_ATTR_RO(parent);

// SPDX-License-Identifier: GPL-2.0
/*
 * The interface's mode and umcast, as sysfs (mode, umcast) and netlink
 * (IFLA_IPOIB_MODE, IFLA_IPOIB_UMCAST) set them.  Datagram is the only
 * mode until connected mode exists; that work replaces this file's body.
 */
#include <linux/rtnetlink.h>
#include "ipoib.h"

/*
 * [RTNL] Datagram mode is what every interface runs, so asking for it
 * does nothing.  Connected mode needs IPOIB_ADDR_RC in the interface's
 * address (set once connected mode can listen), which no interface has
 * yet: -EINVAL, as upstream answers without it.
 */
int ipoib_set_mode(struct net_device *dev, bool connected)
{
	ASSERT_RTNL();
	if (!connected)
		return 0;
	if (!(dev->dev_addr[0] & IPOIB_ADDR_RC))
		return -EINVAL;
	return -EOPNOTSUPP;
}

/* the interface runs connected mode (fill_info's IFLA_IPOIB_MODE) */
bool ipoib_mode_is_connected(const struct ipoib_dev *priv)
{
	return false;
}

/* the groups user space joins itself are ignored while on */
void ipoib_set_umcast(struct ipoib_dev *priv, bool on)
{
	if (on) {
		set_bit(IPOIB_FLAG_UMCAST, &priv->flags);
		ipoib_warn(priv,
			   "ignoring multicast groups joined directly by userspace\n");
	} else {
		clear_bit(IPOIB_FLAG_UMCAST, &priv->flags);
	}
}

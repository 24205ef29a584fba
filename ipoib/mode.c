// SPDX-License-Identifier: GPL-2.0
/*
 * The interface's mode and umcast as netlink reads and sets them
 * (IFLA_IPOIB_MODE, IFLA_IPOIB_UMCAST; the switch itself is cm.c's
 * ipoib_set_mode()).
 */
#include <linux/rtnetlink.h>
#include "ipoib.h"

/* the interface runs connected mode (fill_info's IFLA_IPOIB_MODE) */
bool ipoib_mode_is_connected(const struct ipoib_dev *priv)
{
	return ipoib_cm_admin(priv);
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

// SPDX-License-Identifier: GPL-2.0
/* struct net_device has the lltx bit (6.12+; NETIF_F_LLTX before). */
#include <linux/netdevice.h>

void ibstack_probe(struct net_device *dev);
void ibstack_probe(struct net_device *dev)
{
	dev->lltx = true;
}

// SPDX-License-Identifier: GPL-2.0
/* netif_napi_add() still takes a weight argument (before 6.1). */
#include <linux/netdevice.h>

void ibstack_probe(struct net_device *dev, struct napi_struct *napi,
		   int (*poll)(struct napi_struct *, int));
void ibstack_probe(struct net_device *dev, struct napi_struct *napi,
		   int (*poll)(struct napi_struct *, int))
{
	netif_napi_add(dev, napi, poll, 64);
}

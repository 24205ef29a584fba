// SPDX-License-Identifier: GPL-2.0
/* netif_napi_add_weight() exists (6.1+: the weight left netif_napi_add()). */
#include <linux/netdevice.h>

void ibstack_probe(struct net_device *dev, struct napi_struct *napi,
		   int (*poll)(struct napi_struct *, int));
void ibstack_probe(struct net_device *dev, struct napi_struct *napi,
		   int (*poll)(struct napi_struct *, int))
{
	netif_napi_add_weight(dev, napi, poll, 64);
}

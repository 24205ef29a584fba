// SPDX-License-Identifier: GPL-2.0
/*
 * The netdev side of the API a ULP such as IPoIB calls: an "RDMA netdev"
 * offered by the driver (rdma_alloc_netdev, rdma_init_netdev) and the
 * SR-IOV virtual-function controls (ib_*_vf_*).  Each asks the driver's
 * operation and answers -EOPNOTSUPP where the driver has none, as
 * upstream does: mlx4_ib has none of them, so IPoIB builds its own
 * netdev and its PF's VF controls report "not supported", exactly as on
 * the in-tree mlx4.
 */
#include <linux/err.h>
#include <linux/netdevice.h>
#include "core_priv.h"

/* The driver's parameters for an RDMA netdev of type on port, or -errno. */
static int rdma_netdev_params(struct ib_device *device, u32 port_num,
			      enum rdma_netdev_t type,
			      struct rdma_netdev_alloc_params *params)
{
	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	if (!device->ops.rdma_netdev_get_params)
		return -EOPNOTSUPP;
	memset(params, 0, sizeof(*params));
	return device->ops.rdma_netdev_get_params(device, port_num, type, params);
}

struct net_device *rdma_alloc_netdev(struct ib_device *device, u32 port_num,
				     enum rdma_netdev_t type, const char *name,
				     unsigned char name_assign_type,
				     void (*setup)(struct net_device *))
{
	struct rdma_netdev_alloc_params params;
	struct net_device *netdev;
	int err;

	err = rdma_netdev_params(device, port_num, type, &params);
	if (err)
		return ERR_PTR(err);
	netdev = alloc_netdev_mqs(params.sizeof_priv, name, name_assign_type,
				  setup, params.txqs, params.rxqs);
	return netdev ? netdev : ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL(rdma_alloc_netdev);

int rdma_init_netdev(struct ib_device *device, u32 port_num,
		     enum rdma_netdev_t type, const char *name,
		     unsigned char name_assign_type,
		     void (*setup)(struct net_device *),
		     struct net_device *netdev)
{
	struct rdma_netdev_alloc_params params;
	int err;

	err = rdma_netdev_params(device, port_num, type, &params);
	if (err)
		return err;
	if (!params.initialize_rdma_netdev)
		return -EOPNOTSUPP;
	return params.initialize_rdma_netdev(device, port_num, netdev,
					     params.param);
}
EXPORT_SYMBOL(rdma_init_netdev);

int ib_set_vf_link_state(struct ib_device *device, int vf, u32 port, int state)
{
	if (!device->ops.set_vf_link_state)
		return -EOPNOTSUPP;
	return device->ops.set_vf_link_state(device, vf, port, state);
}
EXPORT_SYMBOL(ib_set_vf_link_state);

int ib_get_vf_config(struct ib_device *device, int vf, u32 port,
		     struct ifla_vf_info *info)
{
	if (!device->ops.get_vf_config)
		return -EOPNOTSUPP;
	return device->ops.get_vf_config(device, vf, port, info);
}
EXPORT_SYMBOL(ib_get_vf_config);

int ib_get_vf_stats(struct ib_device *device, int vf, u32 port,
		    struct ifla_vf_stats *stats)
{
	if (!device->ops.get_vf_stats)
		return -EOPNOTSUPP;
	return device->ops.get_vf_stats(device, vf, port, stats);
}
EXPORT_SYMBOL(ib_get_vf_stats);

int ib_get_vf_guid(struct ib_device *device, int vf, u32 port,
		   struct ifla_vf_guid *node_guid,
		   struct ifla_vf_guid *port_guid)
{
	if (!device->ops.get_vf_guid)
		return -EOPNOTSUPP;
	return device->ops.get_vf_guid(device, vf, port, node_guid, port_guid);
}
EXPORT_SYMBOL(ib_get_vf_guid);

int ib_set_vf_guid(struct ib_device *device, int vf, u32 port, u64 guid,
		   int type)
{
	if (!device->ops.set_vf_guid)
		return -EOPNOTSUPP;
	return device->ops.set_vf_guid(device, vf, port, guid, type);
}
EXPORT_SYMBOL(ib_set_vf_guid);

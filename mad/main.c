// SPDX-License-Identifier: GPL-2.0
/*
 * ib_mad: the MAD layer.  This file is the ib_client (a struct mad_dev with
 * one struct mad_port per port for every device) and the small class
 * helpers of <rdma/ib_mad.h>.
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "mad_priv.h"

static int mad_add_device(struct ib_device *device);
static void mad_remove_device(struct ib_device *device, void *data);

struct ib_client mad_client = {
	.name	= "mad",
	.add	= mad_add_device,
	.remove	= mad_remove_device,
};

/* [any] the port of a device ib_mad runs on, or NULL */
struct mad_port *mad_get_port(struct ib_device *device, u32 port_num)
{
	struct mad_dev *md = ib_get_client_data(device, &mad_client);

	if (!md || !port_num || port_num > md->nports)
		return NULL;
	return &md->ports[port_num - 1];
}

static int mad_add_device(struct ib_device *device)
{
	struct mad_dev *md;
	int nports = device->phys_port_cnt;
	int i, ret;

	if (!device->ops.process_mad || !nports)
		return 0;
	md = kzalloc(struct_size(md, ports, nports), GFP_KERNEL);
	if (!md)
		return -ENOMEM;
	md->device = device;
	for (i = 0; i < nports; i++) {
		ret = mad_port_open(&md->ports[i], device, i + 1);
		if (ret) {
			dev_err(&device->dev, MAD_NAME ": port %d: %d\n", i + 1, ret);
			goto err_ports;
		}
		md->nports = i + 1;
	}
	ib_set_client_data(device, &mad_client, md);
	return 0;

err_ports:
	while (--i >= 0)
		mad_port_close(&md->ports[i]);
	kfree(md);
	return ret;
}

static void mad_remove_device(struct ib_device *device, void *data)
{
	struct mad_dev *md = data;
	int i;

	if (!md)
		return;
	for (i = md->nports - 1; i >= 0; i--)
		mad_port_close(&md->ports[i]);
	kfree(md);
}

int ib_is_mad_class_rmpp(u8 mgmt_class)
{
	return mgmt_class == IB_MGMT_CLASS_SUBN_ADM ||
	       mgmt_class == IB_MGMT_CLASS_DEVICE_MGMT ||
	       mgmt_class == IB_MGMT_CLASS_DEVICE_ADM ||
	       mgmt_class == IB_MGMT_CLASS_BIS ||
	       mad_is_vendor_range2(mgmt_class);
}
EXPORT_SYMBOL(ib_is_mad_class_rmpp);

int ib_get_mad_data_offset(u8 mgmt_class)
{
	if (mgmt_class == IB_MGMT_CLASS_SUBN_ADM)
		return IB_MGMT_SA_HDR;
	if (mgmt_class == IB_MGMT_CLASS_DEVICE_MGMT ||
	    mgmt_class == IB_MGMT_CLASS_DEVICE_ADM ||
	    mgmt_class == IB_MGMT_CLASS_BIS)
		return IB_MGMT_DEVICE_HDR;
	if (mad_is_vendor_range2(mgmt_class))
		return IB_MGMT_VENDOR_HDR;
	return IB_MGMT_MAD_HDR;
}
EXPORT_SYMBOL(ib_get_mad_data_offset);

int ib_mad_kernel_rmpp_agent(const struct ib_mad_agent *agent)
{
	return agent->rmpp_version && !(agent->flags & IB_MAD_USER_RMPP);
}
EXPORT_SYMBOL(ib_mad_kernel_rmpp_agent);

static int __init ib_mad_init(void)
{
	ibstack_mad_wire_size_checks();
	return ib_register_client(&mad_client);
}

static void __exit ib_mad_exit(void)
{
	ib_unregister_client(&mad_client);
}

module_init(ib_mad_init);
module_exit(ib_mad_exit);

MODULE_DESCRIPTION("InfiniBand MAD layer (QP0/QP1 agents, SMI, RMPP)");
MODULE_LICENSE("GPL");

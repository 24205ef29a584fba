// SPDX-License-Identifier: GPL-2.0
/*
 * ib_cm: the InfiniBand communication manager.  An ib_client that keeps,
 * for every port where the CM runs, a MAD agent on QP1 for the CM class
 * (version 2, method Send), the port's IsCommunicationManagementSupported
 * capability bit, and the port's cm_* counter directories in sysfs.  The
 * protocol is in conn.c (establishment), disc.c (release), sidr.c, lap.c;
 * cm_ids in id.c; sending in send.c; receiving and events in recv.c.
 */
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <ibstack/ext.h>
#include "cm_priv.h"

MODULE_DESCRIPTION("InfiniBand communication manager (ibstack)");
MODULE_LICENSE("GPL");

struct ib_cm_globals cm = {
	.lock		= __SPIN_LOCK_UNLOCKED(cm.lock),
	.devices	= LIST_HEAD_INIT(cm.devices),
	.listen_tree	= RB_ROOT,
	.remote_id_tree	= RB_ROOT,
	.remote_qp_tree	= RB_ROOT,
	.sidr_tree	= RB_ROOT,
	.timewait_list	= LIST_HEAD_INIT(cm.timewait_list),
};

static int cm_add_one(struct ib_device *device);
static void cm_remove_one(struct ib_device *device, void *client_data);

static struct ib_client cm_client = {
	.name	= "cm",
	.add	= cm_add_one,
	.remove	= cm_remove_one,
};

static void cm_device_release(struct kref *ref)
{
	struct cm_device *cm_dev = container_of(ref, struct cm_device, ref);
	u32 i;

	for (i = 0; i < cm_dev->num_ports; i++)
		kfree(cm_dev->port[i]);
	kfree(cm_dev);
}

void cm_device_put(struct cm_device *cm_dev)
{
	kref_put(&cm_dev->ref, cm_device_release);
}

/*
 * [any] The CM port of (device, port_num) with a reference on its
 * cm_device (cm_device_put(port->cm_dev) when done), or NULL: no ib_cm
 * there, or the device is going away.
 */
struct cm_port *cm_port_of(struct ib_device *device, u32 port_num)
{
	struct cm_device *cm_dev;
	struct cm_port *port = NULL;
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	list_for_each_entry(cm_dev, &cm.devices, list) {
		if (cm_dev->ib_device != device)
			continue;
		if (!cm_dev->going_down && port_num >= 1 && port_num <= cm_dev->num_ports)
			port = cm_dev->port[port_num - 1];
		if (port)
			kref_get(&cm_dev->ref);
		break;
	}
	spin_unlock_irqrestore(&cm.lock, flags);
	return port;
}

/* [any] n more messages of attr_id in one of the port's counter groups */
void cm_count(struct cm_port *port, enum cm_counter_group group, __be16 attr_id,
	      long n)
{
	unsigned int i = be16_to_cpu(attr_id) - CM_ATTR_FIRST;

	if (port && i < CM_ATTR_COUNT)
		atomic_long_add(n, &port->counters[group][i]);
}

static void cm_port_down(struct cm_device *cm_dev, struct cm_port *port)
{
	struct ib_port_modify clear = { .clr_port_cap_mask = IB_PORT_CM_SUP };

	ib_port_unregister_client_groups(cm_dev->ib_device, port->port_num,
					 cm_counter_groups);
	ib_modify_port(cm_dev->ib_device, port->port_num, 0, &clear);
	ib_unregister_mad_agent(port->agent);
	port->agent = NULL;
}

static int cm_port_up(struct cm_device *cm_dev, struct cm_port *port)
{
	struct ib_port_modify set = { .set_port_cap_mask = IB_PORT_CM_SUP };
	struct ib_mad_reg_req reg = {
		.mgmt_class		= IB_MGMT_CLASS_CM,
		.mgmt_class_version	= CM_CLASS_VERSION,
	};
	struct ib_device *device = cm_dev->ib_device;
	int ret;

	set_bit(IB_MGMT_METHOD_SEND, reg.method_mask);
	port->agent = ib_register_mad_agent(device, port->port_num, IB_QPT_GSI, &reg, 0,
					    cm_send_handler, cm_recv_handler, port, 0);
	if (IS_ERR(port->agent)) {
		ret = PTR_ERR(port->agent);
		port->agent = NULL;
		return ret;
	}
	ret = ib_modify_port(device, port->port_num, 0, &set);
	if (ret)
		goto err_agent;
	ret = ib_port_register_client_groups(device, port->port_num, cm_counter_groups);
	if (ret)
		goto err_cap;
	return 0;

err_cap:
	set.clr_port_cap_mask = IB_PORT_CM_SUP;
	set.set_port_cap_mask = 0;
	ib_modify_port(device, port->port_num, 0, &set);
err_agent:
	ib_unregister_mad_agent(port->agent);
	port->agent = NULL;
	return ret;
}

static int cm_add_one(struct ib_device *device)
{
	struct cm_device *cm_dev;
	unsigned long flags;
	u32 p, ups = 0;
	int ret = -EOPNOTSUPP;

	cm_dev = kzalloc(struct_size(cm_dev, port, device->phys_port_cnt), GFP_KERNEL);
	if (!cm_dev)
		return -ENOMEM;
	kref_init(&cm_dev->ref);
	cm_dev->ib_device = device;
	cm_dev->ack_delay = device->attrs.local_ca_ack_delay;
	cm_dev->num_ports = device->phys_port_cnt;

	for (p = 1; p <= cm_dev->num_ports; p++) {
		struct cm_port *port;

		if (!rdma_cap_ib_cm(device, p))
			continue;
		port = kzalloc(sizeof(*port), GFP_KERNEL);
		if (!port) {
			ret = -ENOMEM;
			goto err_ports;
		}
		port->cm_dev = cm_dev;
		port->port_num = p;
		cm_dev->port[p - 1] = port;
		ret = cm_port_up(cm_dev, port);
		if (ret)
			goto err_ports;
		ups++;
	}
	if (!ups)
		goto err_ports;

	spin_lock_irqsave(&cm.lock, flags);
	list_add_tail(&cm_dev->list, &cm.devices);
	spin_unlock_irqrestore(&cm.lock, flags);
	ib_set_client_data(device, &cm_client, cm_dev);
	return 0;

err_ports:
	while (p-- > 1) {
		struct cm_port *port = cm_dev->port[p - 1];

		if (port && port->agent)
			cm_port_down(cm_dev, port);
	}
	cm_device_put(cm_dev);
	return ret;
}

/*
 * The device goes: no new message from or to it (going_down), its agents
 * unregistered (a send outstanding completes with a flush error, which
 * queues its cm_id's error event), then the events still queued run.  The
 * consumers (clients registered after ib_cm, so removed before it) have
 * destroyed their cm_ids by now; what may remain is time wait.
 */
static void cm_remove_one(struct ib_device *device, void *client_data)
{
	struct cm_device *cm_dev = client_data;
	unsigned long flags;
	u32 p;

	spin_lock_irqsave(&cm.lock, flags);
	cm_dev->going_down = true;
	list_del(&cm_dev->list);
	spin_unlock_irqrestore(&cm.lock, flags);

	for (p = 1; p <= cm_dev->num_ports; p++)
		if (cm_dev->port[p - 1])
			cm_port_down(cm_dev, cm_dev->port[p - 1]);
	flush_workqueue(cm.wq);
	cm_device_put(cm_dev);
}

static int __init ib_cm_init(void)
{
	int ret;

	cm_sysfs_init();
	xa_init_flags(&cm.local_ids, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	get_random_bytes(&cm.random_id_operand, sizeof(cm.random_id_operand));
	cm.next_service_id = IB_CM_ASSIGN_SERVICE_ID;
	cm.wq = alloc_ordered_workqueue("ib_cm", WQ_MEM_RECLAIM);
	if (!cm.wq)
		return -ENOMEM;
	ret = ib_register_client(&cm_client);
	if (ret)
		goto err_wq;
	return 0;

err_wq:
	destroy_workqueue(cm.wq);
	return ret;
}

static void __exit ib_cm_exit(void)
{
	ib_unregister_client(&cm_client);
	cm_timewait_flush();
	destroy_workqueue(cm.wq);
	WARN_ON(!xa_empty(&cm.local_ids));
	xa_destroy(&cm.local_ids);
}

module_init(ib_cm_init);
module_exit(ib_cm_exit);

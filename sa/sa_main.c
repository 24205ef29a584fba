// SPDX-License-Identifier: GPL-2.0
/*
 * ib_sa: the subnet administration client.  An ib_client that keeps, for
 * every port of every device, a MAD agent on QP1 for the SA class and an
 * address handle to the port's subnet manager, and sends the SA requests
 * of path record queries (sa_path.c) and multicast joins (sa_mcast.c).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include "sa_priv.h"

MODULE_DESCRIPTION("InfiniBand subnet administration client (ibstack)");
MODULE_LICENSE("GPL");

struct workqueue_struct *sa_wq;

/* protects sa_devices */
static DEFINE_SPINLOCK(sa_devices_lock);
static LIST_HEAD(sa_devices);

static void sa_device_release(struct kref *ref)
{
	kfree(container_of(ref, struct sa_device, ref));
}

void sa_device_get(struct sa_device *sa_dev)
{
	kref_get(&sa_dev->ref);
}

void sa_device_put(struct sa_device *sa_dev)
{
	kref_put(&sa_dev->ref, sa_device_release);
}

/*
 * The port of a device ib_sa serves, with a reference on its sa_device
 * (sa_device_put(port->sa_dev) when done), or NULL.
 */
struct sa_port *sa_port_get(struct ib_device *device, u32 port_num)
{
	struct sa_device *sa_dev;
	struct sa_port *port = NULL;
	unsigned long flags;

	spin_lock_irqsave(&sa_devices_lock, flags);
	list_for_each_entry(sa_dev, &sa_devices, list) {
		if (sa_dev->device != device)
			continue;
		if (port_num >= sa_dev->start_port &&
		    port_num - sa_dev->start_port < sa_dev->num_ports) {
			port = &sa_dev->port[port_num - sa_dev->start_port];
			sa_device_get(sa_dev);
		}
		break;
	}
	spin_unlock_irqrestore(&sa_devices_lock, flags);
	return port;
}

void ib_sa_register_client(struct ib_sa_client *client)
{
	atomic_set(&client->users, 1);
	init_completion(&client->comp);
}
EXPORT_SYMBOL(ib_sa_register_client);

void ib_sa_unregister_client(struct ib_sa_client *client)
{
	sa_client_put(client);
	wait_for_completion(&client->comp);
}
EXPORT_SYMBOL(ib_sa_unregister_client);

void sa_client_get(struct ib_sa_client *client)
{
	atomic_inc(&client->users);
}

void sa_client_put(struct ib_sa_client *client)
{
	if (atomic_dec_and_test(&client->users))
		complete(&client->comp);
}

static int sa_add_one(struct ib_device *device)
{
	struct sa_device *sa_dev;
	unsigned long flags;
	u32 i, n;

	if (rdma_port_get_link_layer(device, rdma_start_port(device)) !=
	    IB_LINK_LAYER_INFINIBAND)
		return 0;
	n = rdma_end_port(device) - rdma_start_port(device) + 1;
	sa_dev = kzalloc(struct_size(sa_dev, port, n), GFP_KERNEL);
	if (!sa_dev)
		return -ENOMEM;
	kref_init(&sa_dev->ref);
	sa_dev->device = device;
	sa_dev->start_port = rdma_start_port(device);
	sa_dev->num_ports = n;
	for (i = 0; i < n; i++) {
		struct sa_port *port = &sa_dev->port[i];

		port->sa_dev = sa_dev;
		port->port_num = sa_dev->start_port + i;
		spin_lock_init(&port->ah_lock);
		spin_lock_init(&port->mc_lock);
		INIT_LIST_HEAD(&port->groups);
	}
	/*
	 * A port whose MAD agent cannot be registered (no MAD layer on it)
	 * stays without one: its queries fail with -ENODEV.
	 */
	for (i = 0; i < n; i++)
		sa_port_start(&sa_dev->port[i]);

	INIT_IB_EVENT_HANDLER(&sa_dev->event_handler, device, sa_event_handler);
	ib_register_event_handler(&sa_dev->event_handler);
	for (i = 0; i < n; i++)
		queue_work(sa_wq, &sa_dev->port[i].update_work);

	spin_lock_irqsave(&sa_devices_lock, flags);
	list_add_tail(&sa_dev->list, &sa_devices);
	spin_unlock_irqrestore(&sa_devices_lock, flags);
	ib_set_client_data(device, &sa_ib_client, sa_dev);
	return 0;
}

static void sa_remove_one(struct ib_device *device, void *client_data)
{
	struct sa_device *sa_dev = client_data;
	unsigned long flags;
	u32 i;

	if (!sa_dev)
		return;
	spin_lock_irqsave(&sa_devices_lock, flags);
	list_del(&sa_dev->list);
	spin_unlock_irqrestore(&sa_devices_lock, flags);

	ib_unregister_event_handler(&sa_dev->event_handler);
	for (i = 0; i < sa_dev->num_ports; i++)
		sa_port_stop(&sa_dev->port[i]);
	sa_device_put(sa_dev);
}

struct ib_client sa_ib_client = {
	.name = "sa",
	.add = sa_add_one,
	.remove = sa_remove_one,
};

static int __init sa_init(void)
{
	int ret;

	ret = sa_query_init_module();
	if (ret)
		return ret;
	sa_wq = alloc_ordered_workqueue("ib_sa", WQ_MEM_RECLAIM);
	if (!sa_wq)
		return -ENOMEM;
	sa_mcast_init();
	sa_debugfs_init();
	ret = ib_register_client(&sa_ib_client);
	if (ret)
		goto err_debugfs;
	return 0;

err_debugfs:
	sa_debugfs_exit();
	sa_mcast_exit();
	destroy_workqueue(sa_wq);
	return ret;
}

static void __exit sa_exit(void)
{
	ib_unregister_client(&sa_ib_client);
	/* the groups' last work items (their ports are dead: no requests) */
	flush_workqueue(sa_wq);
	sa_mcast_exit();
	sa_debugfs_exit();
	destroy_workqueue(sa_wq);
}

module_init(sa_init);
module_exit(sa_exit);

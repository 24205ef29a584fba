// SPDX-License-Identifier: GPL-2.0
/*
 * Clients (ib_mad, ib_sa, ib_cm, IPoIB, uverbs, ...): registration, their
 * add()/remove() calls for every device, and their per-device data.
 *
 * A device's client_data xarray (XA_FLAGS_ALLOC, so a NULL datum still keeps
 * its slot) holds, at the client's id, the datum the client set.  The slot
 * exists and carries IB_CLIENT_SLOT from just before the client's add()
 * until just after its remove(); IB_CLIENT_LIVE says add() succeeded and
 * remove() is still to be called, and whoever clears it calls remove().
 * No lock is held across add() or remove() but the device's
 * client_data_rwsem, for reading across add() (core_priv.h).
 */
#include <linux/idr.h>
#include <linux/module.h>
#include "core_priv.h"

#define IB_CLIENT_SLOT	XA_MARK_1
#define IB_CLIENT_LIVE	XA_MARK_2

DECLARE_RWSEM(ib_clients_rwsem);
LIST_HEAD(ib_clients);
static DEFINE_IDA(ib_client_ida);

/* How long a client's unregistration waits between complaints. */
#define IB_CLIENT_WAIT_MS	10000

static void ib_client_put(struct ib_client *client)
{
	if (refcount_dec_and_test(&client->uses))
		complete(&client->uses_zero);
}

/*
 * [sleep] The client meets the device, unless it has already (or is being
 * added right now), the device is no longer registered or the client is
 * unregistering.  The context holds a device reference and a client use.
 */
void ib_client_add_device(struct ib_client *client, struct ib_device *device)
{
	int ret;

	down_write(&device->client_data_rwsem);
	if (!ib_device_is_registered(device) || !READ_ONCE(client->registered) ||
	    xa_get_mark(&device->client_data, client->client_id, IB_CLIENT_SLOT) ||
	    !refcount_inc_not_zero(&client->uses)) {
		up_write(&device->client_data_rwsem);
		return;
	}
	ret = xa_insert(&device->client_data, client->client_id, NULL, GFP_KERNEL);
	if (ret) {
		up_write(&device->client_data_rwsem);
		pr_err("ib_core: %s: cannot add client %s: %d\n",
		       device->name, client->name, ret);
		ib_client_put(client);
		return;
	}
	xa_set_mark(&device->client_data, client->client_id, IB_CLIENT_SLOT);
	/* the registration's reference is held: the device is registered */
	refcount_inc(&device->refcount);
	/* removals of this client from this device wait for add() */
	downgrade_write(&device->client_data_rwsem);

	ret = client->add ? client->add(device) : 0;
	if (ret) {
		xa_erase(&device->client_data, client->client_id);
		up_read(&device->client_data_rwsem);
		if (ret != -EOPNOTSUPP)
			pr_warn("ib_core: %s: client %s declined the device: %d\n",
				device->name, client->name, ret);
		ib_device_put(device);
		ib_client_put(client);
		return;
	}
	xa_set_mark(&device->client_data, client->client_id, IB_CLIENT_LIVE);
	up_read(&device->client_data_rwsem);
}

/* [sleep] The client leaves the device, if it is on it and nobody else is removing it. */
void ib_client_remove_device(struct ib_client *client, struct ib_device *device)
{
	void *data;

	down_write(&device->client_data_rwsem);
	if (!xa_get_mark(&device->client_data, client->client_id, IB_CLIENT_LIVE)) {
		up_write(&device->client_data_rwsem);
		return;
	}
	data = xa_load(&device->client_data, client->client_id);
	xa_clear_mark(&device->client_data, client->client_id, IB_CLIENT_LIVE);
	up_write(&device->client_data_rwsem);

	if (client->remove)
		client->remove(device, data);
	xa_erase(&device->client_data, client->client_id);
	ib_device_put(device);
	ib_client_put(client);
}

/*
 * A device being registered meets every client, oldest first.  Each
 * client is called with no lock held; a use keeps it on the list meanwhile.
 */
void ib_clients_add_device(struct ib_device *device)
{
	struct ib_client *client;

	down_read(&ib_clients_rwsem);
	list_for_each_entry(client, &ib_clients, list) {
		if (!READ_ONCE(client->registered) || !refcount_inc_not_zero(&client->uses))
			continue;
		up_read(&ib_clients_rwsem);
		ib_client_add_device(client, device);
		down_read(&ib_clients_rwsem);
		ib_client_put(client);
	}
	up_read(&ib_clients_rwsem);
}

/* A device being unregistered leaves every client, newest first. */
void ib_clients_remove_device(struct ib_device *device)
{
	struct ib_client *client;

	down_read(&ib_clients_rwsem);
	list_for_each_entry_reverse(client, &ib_clients, list) {
		/* none left: it is not on the device either */
		if (!refcount_inc_not_zero(&client->uses))
			continue;
		up_read(&ib_clients_rwsem);
		ib_client_remove_device(client, device);
		down_read(&ib_clients_rwsem);
		ib_client_put(client);
	}
	up_read(&ib_clients_rwsem);
}

/*
 * The client added to every listed device, oldest first, or removed from
 * every one, newest first.  A reference keeps the device listed while the
 * list's lock is dropped around the call.
 */
static void ib_client_all_devices(struct ib_client *client, bool add)
{
	struct ib_device *device;
	struct list_head *pos;

	down_read(&ib_devices_rwsem);
	for (pos = add ? ib_devices.next : ib_devices.prev; pos != &ib_devices;
	     pos = add ? pos->next : pos->prev) {
		device = list_entry(pos, struct ib_device, core_list);
		if (!ib_device_try_get(device))
			continue;
		up_read(&ib_devices_rwsem);
		if (add)
			ib_client_add_device(client, device);
		else
			ib_client_remove_device(client, device);
		down_read(&ib_devices_rwsem);
		ib_device_put(device);
	}
	up_read(&ib_devices_rwsem);
}

int ib_register_client(struct ib_client *client)
{
	int id;

	if (!client || !client->name) {
		IB_CORE_RATELIMITED("missing client or name\n");
		return -EINVAL;
	}
	id = ida_alloc(&ib_client_ida, GFP_KERNEL);
	if (id < 0)
		return id;
	client->client_id = id;
	refcount_set(&client->uses, 1);
	init_completion(&client->uses_zero);

	down_write(&ib_clients_rwsem);
	WRITE_ONCE(client->registered, true);
	list_add_tail(&client->list, &ib_clients);
	up_write(&ib_clients_rwsem);

	ib_client_all_devices(client, true);
	return 0;
}
EXPORT_SYMBOL(ib_register_client);

void ib_unregister_client(struct ib_client *client)
{
	if (!client)
		return;

	down_write(&ib_clients_rwsem);
	WRITE_ONCE(client->registered, false);
	up_write(&ib_clients_rwsem);

	ib_client_all_devices(client, false);

	/* a device's unregistration may be calling remove() right now */
	ib_client_put(client);
	while (!wait_for_completion_timeout(&client->uses_zero,
					    msecs_to_jiffies(IB_CLIENT_WAIT_MS)))
		pr_warn("ib_core: client %s: unregistration waits for %u device(s) to remove it\n",
			client->name, refcount_read(&client->uses));

	down_write(&ib_clients_rwsem);
	list_del(&client->list);
	up_write(&ib_clients_rwsem);
	ida_free(&ib_client_ida, client->client_id);
}
EXPORT_SYMBOL(ib_unregister_client);

void ib_set_client_data(struct ib_device *device, struct ib_client *client, void *data)
{
	void *old;

	if (!device || !client) {
		IB_CORE_RATELIMITED("no device or client\n");
		return;
	}
	if (!xa_get_mark(&device->client_data, client->client_id, IB_CLIENT_SLOT)) {
		IB_CORE_RATELIMITED("%s: client %s sets data on a device it was not added to\n",
				    device->name, client->name);
		return;
	}
	/* The slot exists, so this store allocates nothing and cannot fail. */
	old = xa_store(&device->client_data, client->client_id, data, GFP_KERNEL);
	if (xa_is_err(old))
		IB_CORE_RATELIMITED("%s: client %s: storing its data failed: %d\n",
				    device->name, client->name, xa_err(old));
}
EXPORT_SYMBOL(ib_set_client_data);

struct net_device *ib_get_net_dev_by_params(struct ib_device *dev, u32 port, u16 pkey,
					    const union ib_gid *gid,
					    const struct sockaddr *addr)
{
	struct net_device *ndev = NULL;
	struct ib_client *client;

	might_sleep();
	if (!dev || !rdma_is_port_valid(dev, port) || !rdma_protocol_ib(dev, port))
		return NULL;
	/* the order of core_priv.h; a client live on dev cannot leave meanwhile */
	down_read(&ib_clients_rwsem);
	down_read(&dev->client_data_rwsem);
	list_for_each_entry(client, &ib_clients, list) {
		if (!client->get_net_dev_by_params ||
		    !xa_get_mark(&dev->client_data, client->client_id, IB_CLIENT_LIVE))
			continue;
		ndev = client->get_net_dev_by_params(dev, port, pkey, gid, addr,
						     xa_load(&dev->client_data,
							     client->client_id));
		if (ndev)
			break;
	}
	up_read(&dev->client_data_rwsem);
	up_read(&ib_clients_rwsem);
	return ndev;
}
EXPORT_SYMBOL(ib_get_net_dev_by_params);

void ib_clients_rename_device(struct ib_device *device)
{
	struct ib_client *client;

	/* the order of core_priv.h; a client live on device cannot leave meanwhile */
	down_read(&ib_clients_rwsem);
	down_read(&device->client_data_rwsem);
	list_for_each_entry(client, &ib_clients, list) {
		if (!client->rename ||
		    !xa_get_mark(&device->client_data, client->client_id, IB_CLIENT_LIVE))
			continue;
		client->rename(device, xa_load(&device->client_data, client->client_id));
	}
	up_read(&device->client_data_rwsem);
	up_read(&ib_clients_rwsem);
}

int ib_get_client_nl_info(struct ib_device *device, const char *name,
			  struct ib_client_nl_info *info)
{
	struct ib_client *client;
	int ret = -EOPNOTSUPP;

	down_read(&ib_clients_rwsem);
	list_for_each_entry(client, &ib_clients, list) {
		if (!READ_ONCE(client->registered) || strcmp(client->name, name))
			continue;
		if (!device) {
			if (client->get_global_nl_info)
				ret = client->get_global_nl_info(info);
			break;
		}
		down_read(&device->client_data_rwsem);
		if (client->get_nl_info &&
		    xa_get_mark(&device->client_data, client->client_id, IB_CLIENT_LIVE))
			ret = client->get_nl_info(device,
						  xa_load(&device->client_data, client->client_id),
						  info);
		up_read(&device->client_data_rwsem);
		break;
	}
	up_read(&ib_clients_rwsem);
	/* the client referenced the device node for the answer */
	if (!ret && WARN_ON_ONCE(!info->cdev))
		ret = -EINVAL;
	return ret;
}

void ib_clients_cleanup(void)
{
	ida_destroy(&ib_client_ida);
}

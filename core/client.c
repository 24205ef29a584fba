// SPDX-License-Identifier: GPL-2.0
/*
 * Clients (ib_mad, ib_sa, ib_cm, IPoIB, uverbs, ...): registration, their
 * add()/remove() calls for every device, and their per-device data.
 *
 * A device's client_data xarray (XA_FLAGS_ALLOC, so a NULL datum still keeps
 * its slot) holds, at the client's id, the datum the client set; the slot
 * exists and carries IB_CLIENT_ADDED from just before the client's add()
 * until just after its remove(), so remove() is called only for devices the
 * client was added to.
 */
#include <linux/idr.h>
#include <linux/module.h>
#include "core_priv.h"

#define IB_CLIENT_ADDED	XA_MARK_1

DECLARE_RWSEM(ib_clients_rwsem);
LIST_HEAD(ib_clients);
static DEFINE_IDA(ib_client_ida);

int ib_client_add_device(struct ib_client *client, struct ib_device *device)
{
	int ret;

	lockdep_assert_held(&ib_register_mutex);

	ret = xa_insert(&device->client_data, client->client_id, NULL, GFP_KERNEL);
	if (ret) {
		pr_err("ib_core: %s: cannot add client %s: %d\n",
		       device->name, client->name, ret);
		return ret;
	}
	xa_set_mark(&device->client_data, client->client_id, IB_CLIENT_ADDED);

	if (!client->add)
		return 0;
	ret = client->add(device);
	if (ret) {
		xa_erase(&device->client_data, client->client_id);
		if (ret != -EOPNOTSUPP)
			pr_warn("ib_core: %s: client %s declined the device: %d\n",
				device->name, client->name, ret);
	}
	return ret;
}

void ib_client_remove_device(struct ib_client *client, struct ib_device *device)
{
	void *data;

	lockdep_assert_held(&ib_register_mutex);

	if (!xa_get_mark(&device->client_data, client->client_id, IB_CLIENT_ADDED))
		return;
	data = xa_load(&device->client_data, client->client_id);
	if (client->remove)
		client->remove(device, data);
	xa_erase(&device->client_data, client->client_id);
}

/* A device being registered meets every client, oldest first. */
void ib_clients_add_device(struct ib_device *device)
{
	struct ib_client *client;

	lockdep_assert_held(&ib_register_mutex);
	list_for_each_entry(client, &ib_clients, list)
		ib_client_add_device(client, device);
}

/* A device being unregistered leaves every client, newest first. */
void ib_clients_remove_device(struct ib_device *device)
{
	struct ib_client *client;

	lockdep_assert_held(&ib_register_mutex);
	list_for_each_entry_reverse(client, &ib_clients, list)
		ib_client_remove_device(client, device);
}

int ib_register_client(struct ib_client *client)
{
	struct ib_device *device;
	int id;

	if (!client || !client->name) {
		IB_CORE_RATELIMITED("missing client or name\n");
		return -EINVAL;
	}

	mutex_lock(&ib_register_mutex);
	id = ida_alloc(&ib_client_ida, GFP_KERNEL);
	if (id < 0) {
		mutex_unlock(&ib_register_mutex);
		return id;
	}
	client->client_id = id;

	list_for_each_entry(device, &ib_devices, core_list)
		ib_client_add_device(client, device);

	down_write(&ib_clients_rwsem);
	list_add_tail(&client->list, &ib_clients);
	up_write(&ib_clients_rwsem);
	mutex_unlock(&ib_register_mutex);
	return 0;
}
EXPORT_SYMBOL(ib_register_client);

void ib_unregister_client(struct ib_client *client)
{
	struct ib_device *device;

	if (!client)
		return;

	mutex_lock(&ib_register_mutex);
	down_write(&ib_clients_rwsem);
	list_del(&client->list);
	up_write(&ib_clients_rwsem);

	list_for_each_entry_reverse(device, &ib_devices, core_list)
		ib_client_remove_device(client, device);

	ida_free(&ib_client_ida, client->client_id);
	mutex_unlock(&ib_register_mutex);
}
EXPORT_SYMBOL(ib_unregister_client);

void *ib_get_client_data(struct ib_device *device, struct ib_client *client)
{
	if (!device || !client) {
		IB_CORE_RATELIMITED("no device or client\n");
		return NULL;
	}
	return xa_load(&device->client_data, client->client_id);
}
EXPORT_SYMBOL(ib_get_client_data);

void ib_set_client_data(struct ib_device *device, struct ib_client *client, void *data)
{
	void *old;

	if (!device || !client) {
		IB_CORE_RATELIMITED("no device or client\n");
		return;
	}
	if (!xa_get_mark(&device->client_data, client->client_id, IB_CLIENT_ADDED)) {
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

void ib_clients_cleanup(void)
{
	ida_destroy(&ib_client_ida);
}

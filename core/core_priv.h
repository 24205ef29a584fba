/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_core internals shared by its files.  Nothing here is visible to
 * drivers or consumers: the public API is <rdma/ib_verbs.h>.
 */
#ifndef IBSTACK_CORE_PRIV_H
#define IBSTACK_CORE_PRIV_H

#include <rdma/ib_verbs.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>

/* A rate-limited complaint about bad input, prefixed with the function. */
#define IB_CORE_RATELIMITED(fmt, ...) \
	pr_err_ratelimited("ib_core: %s: " fmt, __func__, ##__VA_ARGS__)

/*
 * Locking of the device and client lists (device.c, client.c):
 *
 * ib_register_mutex serialises every registration and unregistration of
 * devices and clients, so a client's add() and remove() run at most once per
 * device, under this mutex and in process context.  add()/remove() must
 * therefore not register or unregister devices or clients themselves.
 *
 * ib_devices_rwsem protects ib_devices (the registered, visible devices, in
 * registration order); writers also hold ib_register_mutex, so holders of
 * ib_register_mutex may walk the list without the rwsem.
 *
 * ib_clients_rwsem protects ib_clients (registered clients, in registration
 * order); writers also hold ib_register_mutex.
 *
 * Order: ib_register_mutex, then ib_devices_rwsem or ib_clients_rwsem, then a
 * device's event_handler_rwsem.  A device's port cache lock (cache.c) is a
 * leaf.
 */
extern struct mutex ib_register_mutex;
extern struct rw_semaphore ib_devices_rwsem;
extern struct list_head ib_devices;
extern struct rw_semaphore ib_clients_rwsem;
extern struct list_head ib_clients;

/* core_flags bits of struct ib_device */
enum {
	IB_CORE_F_EVENTS_ON,	/* the event work updates the cache and calls handlers */
};

/*
 * One port's cache.  lock is taken for reading from any context (hard IRQ
 * included) and for writing by the event work and registration only, always
 * with interrupts disabled.  The tables are replaced, never resized: their
 * lengths come from the first query_port() and stay fixed.
 */
struct ib_port_cache {
	rwlock_t		lock;
	enum ib_port_state	state;
	enum ib_port_phys_state	phys_state;
	u32			lid;
	u32			sm_lid;
	u8			lmc;
	u8			sm_sl;
	u32			port_cap_flags;
	int			gid_tbl_len;
	u16			pkey_tbl_len;
	union ib_gid		*gids;
	u16			*pkeys;
};

/* device.c */
bool ib_device_is_registered(struct ib_device *device);

/* client.c */
int ib_client_add_device(struct ib_client *client, struct ib_device *device);
void ib_client_remove_device(struct ib_client *client, struct ib_device *device);
void ib_clients_add_device(struct ib_device *device);
void ib_clients_remove_device(struct ib_device *device);
void ib_clients_cleanup(void);

/* cache.c */
int ib_cache_setup(struct ib_device *device);
void ib_cache_cleanup(struct ib_device *device);
int ib_cache_update_port(struct ib_device *device, u32 port);
struct ib_port_cache *ib_port_cache(struct ib_device *device, u32 port);
int ib_find_cached_gid_on_port(struct ib_device *device, u32 port,
			       const union ib_gid *gid, u16 *index);

/* event.c */
void ib_events_enable(struct ib_device *device);
void ib_events_disable(struct ib_device *device);

/*
 * sysfs of the ports (ports.c, counters.c): one kobject per port,
 * /sys/class/infiniband/<dev>/ports/<n>/, whose attributes, and those of its
 * groups, are all struct ib_port_attribute.
 */
struct ib_sysfs_port {
	struct kobject		kobj;
	struct ib_device	*device;
	u32			port;
};

/* sysfs.c, ports.c and counters.c */
extern struct class ib_class;
int ib_sysfs_add_ports(struct ib_device *device);
void ib_sysfs_remove_ports(struct ib_device *device);
extern const struct attribute_group ib_dev_attr_group;
const struct attribute_group *ib_counters_group(struct ib_device *device, u32 port);

#endif /* IBSTACK_CORE_PRIV_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_core internals shared by its files.  Nothing here is visible to
 * drivers or consumers: the public API is <rdma/ib_verbs.h>.
 */
#ifndef IBSTACK_CORE_PRIV_H
#define IBSTACK_CORE_PRIV_H

#include <rdma/ib_verbs.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sysfs.h>
#include <ibstack/ext.h>
#include <linux/kobject.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>

/* A rate-limited complaint about bad input, prefixed with the function. */
#define IB_CORE_RATELIMITED(fmt, ...) \
	pr_err_ratelimited("ib_core: %s: " fmt, __func__, ##__VA_ARGS__)

/*
 * Locking of the device and client lists (device.c, client.c), as upstream
 * does it: no global lock is held across a client's add() or remove(), nor
 * across an unregistration's wait for references, so one device's
 * unregistration blocks neither another's registration nor a client's
 * registration; add()/remove() may sleep, and must not register or
 * unregister devices or clients themselves.
 *
 * ib_devices_rwsem protects ib_devices (every device from the assignment of
 * its name to the end of its unregistration, in registration order) and
 * the changes of a device's reg_state to and from IB_DEV_REGISTERED.  A
 * walk that calls out drops it, holding a reference on the device it is
 * at (ib_device_try_get(): the device stays listed meanwhile).
 *
 * ib_clients_rwsem protects ib_clients (every client from its registration
 * to the end of its unregistration, in registration order) and each
 * client's registered flag.  A walk that calls out drops it, holding a use
 * of the client it is at (client->uses: the client stays listed).
 *
 * A device's client_data_rwsem makes each client's add() and remove() on it
 * happen once, whichever of the racing paths (the device's registration or
 * unregistration, the client's) gets there: written briefly to claim a
 * slot or a removal, read across add() so that the removal waits for it.
 * A client on a device holds a reference on the device and a use of the
 * client, so the device's unregistration (its reference wait) and the
 * client's (uses_zero) both end after every remove().
 *
 * Order: ib_devices_rwsem or ib_clients_rwsem (never both), then a device's
 * client_data_rwsem or event_handler_rwsem.  A device's port cache lock
 * (cache.c) is a leaf.
 */
extern struct rw_semaphore ib_devices_rwsem;
extern struct list_head ib_devices;
extern struct rw_semaphore ib_clients_rwsem;
extern struct list_head ib_clients;

/* ib_device.reg_state */
enum ib_device_reg_state {
	IB_DEV_UNINITIALIZED,
	IB_DEV_REGISTERED,
	IB_DEV_UNREGISTERING,
	IB_DEV_UNREGISTERED,
};

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
	/*
	 * The GID attribute of each non-empty GID entry (NULL for an empty
	 * one), holding one reference for the table; replaced when the
	 * entry's GID changes, so holders keep the attribute they got.
	 */
	struct ib_gid_entry	**entries;
	/* serialises cache updates of this port (registration, events) */
	struct mutex		update_mutex;
};

/* A refcounted GID attribute (gid_attr.c); freed by the last put. */
struct ib_gid_entry {
	struct kref		ref;
	struct ib_gid_attr	attr;
};

/* gid_attr.c */
struct ib_gid_entry *ib_gid_entry_new(struct ib_device *device, u32 port, u16 index,
				      const union ib_gid *gid);
void ib_gid_entry_put(struct ib_gid_entry *entry);
bool ib_gid_entry_last(struct ib_gid_entry *entry);

/* device.c */
bool ib_device_is_registered(struct ib_device *device);
/* the registered device of that index, referenced (ib_device_put()); or NULL */
struct ib_device *ib_device_get_by_index(u32 index);
/*
 * The registered device with the lowest index at or above *index,
 * referenced, its index in *index; NULL when there is none.
 */
struct ib_device *ib_device_get_next(u32 *index);
/*
 * [sleep] The device's new name (sysfs, the class links, every client's
 * rename()): 0 also if it has it already; -EEXIST if another has it,
 * -EINVAL for a name sysfs or the patterns cannot take, -ENODEV once it
 * is unregistering.
 */
int ib_device_rename(struct ib_device *device, const char *name);

/* client.c */
void ib_client_add_device(struct ib_client *client, struct ib_device *device);
void ib_client_remove_device(struct ib_client *client, struct ib_device *device);
void ib_clients_add_device(struct ib_device *device);
void ib_clients_remove_device(struct ib_device *device);
void ib_clients_cleanup(void);
/* [sleep] every client on the device hears of its new name */
void ib_clients_rename_device(struct ib_device *device);
/*
 * [sleep] The character device the client of that name (uverbs, umad,
 * issm, ...) has for the device (NULL: its global one), referenced in
 * info->cdev (put_device()); -EOPNOTSUPP if no such client is there.
 * Nothing is loaded on demand: the modules the aliases would load are
 * the in-tree stack's.
 */
int ib_get_client_nl_info(struct ib_device *device, const char *name,
			  struct ib_client_nl_info *info);

/* netlink.c: RDMA netlink, from module load to unload */
int ib_nl_init(void);
void ib_nl_exit(void);

/* xrc.c: XRC target QPs, for qp.c */
struct ib_qp *ib_xrc_tgt_publish(struct ib_qp *real_qp, struct ib_qp_init_attr *attr);
int ib_xrc_destroy_handle(struct ib_qp *qp);

/*
 * The bodies the kernel verbs and ib_uverbs' entry points (uobj.c) share:
 * the checks, the driver's op (with udata, NULL for kernel callers) and the
 * common members (uobject from uobj).  Each logs and returns an errno as
 * the kernel verb it serves.
 */
/*
 * Resource tracking (restrack.h): ib_core_new_pd() and ib_core_create_cq()
 * leave the object untracked, their callers add it once they have set what
 * they set; ib_core_create_qp() and the other creations add it themselves.
 * ib_core_destroy_cq() and ib_core_destroy_qp() unlist the object around
 * the driver's destroy.
 */
/* pd_mr.c */
void ib_core_mr_init(struct ib_mr *mr, struct ib_pd *pd, enum ib_mr_type type);
int ib_core_check_mr_access(struct ib_device *device, int access, int allowed);
struct ib_pd *ib_core_new_pd(struct ib_device *device, unsigned int flags,
			     struct ib_uobject *uobj, struct ib_udata *udata);
/* cq.c */
struct ib_cq *ib_core_create_cq(struct ib_device *device, const struct ib_cq_init_attr *cq_attr,
				u32 flags_ok, ib_comp_handler comp_handler,
				void (*event_handler)(struct ib_event *event, void *ctx),
				void *cq_context, struct ib_uobject *uobj,
				struct ib_udata *udata);
int ib_core_resize_cq(struct ib_cq *cq, int cqe, struct ib_udata *udata);
struct ib_cq *ib_core_track_cq(struct ib_cq *cq, const char *caller);
int ib_core_destroy_cq(struct ib_cq *cq);
/* qp.c */
struct ib_qp *ib_core_create_qp(struct ib_device *device, struct ib_pd *pd,
				struct ib_qp_init_attr *attr, struct ib_uobject *uobj,
				struct ib_udata *udata, const char *caller);
int ib_core_destroy_qp(struct ib_qp *qp);
int ib_core_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		      struct ib_udata *udata);
/* srq.c */
int ib_core_modify_srq(struct ib_srq *srq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask mask, struct ib_udata *udata);
/* mw.c */
struct ib_mw *ib_core_alloc_mw(struct ib_pd *pd, enum ib_mw_type type,
			       struct ib_uobject *uobj, struct ib_udata *udata);
/* ah.c: pd and ah_attr non-NULL, flags valid */
struct ib_ah *ib_core_create_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr, u32 flags,
				struct ib_udata *udata);

/*
 * The access rights ib_core's kernel MRs take (ib_check_mr_access() allows
 * more: upstream's IB_ACCESS_SUPPORTED)
 */
#define IB_CORE_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ACCESS_MW_BIND)

/* ah.c: NULL if attr is a valid address vector for port (its own if set) */
const char *ib_ah_attr_problem(struct ib_device *device, const struct rdma_ah_attr *attr,
			       u32 port);

/* cache.c */
int ib_cache_setup(struct ib_device *device);
void ib_cache_cleanup(struct ib_device *device);
int ib_cache_update_port(struct ib_device *device, u32 port, bool gids, bool pkeys);
struct ib_port_cache *ib_port_cache(struct ib_device *device, u32 port);

/* cq_alloc.c: ib_core's two completion workqueues */
int ib_cq_wq_init(void);
void ib_cq_wq_cleanup(void);

/* cq_pool.c */
void ib_cq_pool_cleanup(struct ib_device *device);

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

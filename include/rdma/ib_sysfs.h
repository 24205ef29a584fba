/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysfs of the ports, /sys/class/infiniband/<dev>/ports/<n>/: the attribute
 * type of a port directory and of the groups in it, and the calls by which
 * a client (ib_cm's cm_* counters) adds groups of its own.
 */
#ifndef IBSTACK_RDMA_IB_SYSFS_H
#define IBSTACK_RDMA_IB_SYSFS_H

#include <ibstack/no_kernel_ib.h>
#include <linux/sysfs.h>
#include <linux/types.h>

struct ib_device;
struct kobject;

/* An attribute of a port directory (or of a group in it). */
struct ib_port_attribute {
	struct attribute	attr;
	ssize_t			(*show)(struct ib_device *ibdev, u32 port_num,
					struct ib_port_attribute *attr, char *buf);
	ssize_t			(*store)(struct ib_device *ibdev, u32 port_num,
					 struct ib_port_attribute *attr,
					 const char *buf, size_t count);
};

/* ib_port_attr_<name> with <name>_show() and/or <name>_store() */
#define IB_PORT_ATTR_RW(_name) \
	struct ib_port_attribute ib_port_attr_##_name = __ATTR_RW(_name)

#define IB_PORT_ATTR_ADMIN_RW(_name) \
	struct ib_port_attribute ib_port_attr_##_name = __ATTR_RW_MODE(_name, 0600)

#define IB_PORT_ATTR_RO(_name) \
	struct ib_port_attribute ib_port_attr_##_name = __ATTR_RO(_name)

#define IB_PORT_ATTR_WO(_name) \
	struct ib_port_attribute ib_port_attr_##_name = __ATTR_WO(_name)

/*
 * [any] The device and port of a port directory's kobject (the parent
 * of a client's port groups, <ibstack/ext.h>); NULL for another.
 */
struct ib_device *ib_port_sysfs_get_ibdev_kobj(struct kobject *kobj, u32 *port_num);

#endif /* IBSTACK_RDMA_IB_SYSFS_H */

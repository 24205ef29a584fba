// SPDX-License-Identifier: GPL-2.0
/*
 * The "infiniband" class and the attributes of a device's directory,
 * /sys/class/infiniband/<name>/, in the layout and formats user space
 * (rdma-core, infiniband-diags) knows.  The ports are in ports.c.
 */
#include <ibstack/compat.h>
#include <linux/device.h>
#include <linux/module.h>
#include <linux/sysfs.h>
#include "core_priv.h"

static struct ib_device *ib_dev_of(struct device *dev)
{
	return container_of(dev, struct ib_device, dev);
}

static int ib_dev_uevent(IBSTACK_CLASS_UEVENT_DEV *dev, struct kobj_uevent_env *env)
{
	const struct ib_device *device = container_of(dev, struct ib_device, dev);

	return add_uevent_var(env, "NAME=%s", device->name);
}

struct class ib_class = {
	.name		= "infiniband",
	.dev_uevent	= ib_dev_uevent,
};

static const char *ib_node_type_name(u8 type)
{
	switch (type) {
	case RDMA_NODE_IB_CA:
		return "CA";
	case RDMA_NODE_IB_SWITCH:
		return "switch";
	case RDMA_NODE_IB_ROUTER:
		return "router";
	default:
		return "<unknown>";
	}
}

static ssize_t node_type_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct ib_device *device = ib_dev_of(dev);

	return sysfs_emit(buf, "%u: %s\n", device->node_type,
			  ib_node_type_name(device->node_type));
}
static DEVICE_ATTR_RO(node_type);

/* A GUID as four groups of four hex digits, most significant first. */
static ssize_t ib_emit_guid(char *buf, __be64 guid)
{
	u64 g = be64_to_cpu(guid);

	return sysfs_emit(buf, "%04x:%04x:%04x:%04x\n",
			  (unsigned int)(g >> 48) & 0xffff, (unsigned int)(g >> 32) & 0xffff,
			  (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
}

static ssize_t node_guid_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return ib_emit_guid(buf, ib_dev_of(dev)->node_guid);
}
static DEVICE_ATTR_RO(node_guid);

static ssize_t sys_image_guid_show(struct device *dev, struct device_attribute *attr,
				   char *buf)
{
	return ib_emit_guid(buf, ib_dev_of(dev)->attrs.sys_image_guid);
}
static DEVICE_ATTR_RO(sys_image_guid);

static ssize_t fw_ver_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct ib_device *device = ib_dev_of(dev);
	char version[IB_FW_VERSION_NAME_MAX];

	ib_get_device_fw_str(device, version);
	return sysfs_emit(buf, "%s\n", version);
}
static DEVICE_ATTR_RO(fw_ver);

static ssize_t node_desc_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%.64s\n", ib_dev_of(dev)->node_desc);
}

/* The written bytes, up to 64, become the NodeDescription (newline included). */
static ssize_t node_desc_store(struct device *dev, struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct ib_device *device = ib_dev_of(dev);
	struct ib_device_modify modify = {};
	int ret;

	if (!device->ops.modify_device)
		return -EOPNOTSUPP;
	memcpy(modify.node_desc, buf, min_t(size_t, count, IB_DEVICE_NODE_DESC_MAX));
	ret = ib_modify_device(device, IB_DEVICE_MODIFY_NODE_DESC, &modify);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(node_desc);

static struct attribute *ib_dev_attrs[] = {
	&dev_attr_node_type.attr,
	&dev_attr_node_guid.attr,
	&dev_attr_sys_image_guid.attr,
	&dev_attr_fw_ver.attr,
	&dev_attr_node_desc.attr,
	NULL,
};

const struct attribute_group ib_dev_attr_group = {
	.attrs = ib_dev_attrs,
};

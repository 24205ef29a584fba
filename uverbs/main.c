// SPDX-License-Identifier: GPL-2.0
/*
 * ib_uverbs: user-space verbs through /dev/infiniband/uverbsN (one per
 * device with user contexts).  This file: the module, the
 * infiniband_verbs class, the device numbers, and the ib_client whose
 * remove() disassociates every open file before the device goes.
 */
#include <linux/module.h>
#include <linux/idr.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <net/netlink.h>
#include <ibstack/compat.h>
#include <ibstack/ext.h>
#include "uverbs_priv.h"

static dev_t uv_base;
static DEFINE_IDA(uv_ida);

static int uv_add_one(struct ib_device *device);
/*
 * RDMA netlink's GET_CHARDEV "uverbs" (libibverbs' device discovery): the
 * device's uverbsN, the driver's ABI version and its driver id (which
 * picks libibverbs' provider).  Only the device as a whole has one.
 */
static int uv_get_nl_info(struct ib_device *device, void *client_data,
			  struct ib_client_nl_info *info)
{
	struct uv_device *uvdev = client_data;

	if (info->port != (u32)-1)
		return -EINVAL;
	/* libibverbs reads a u32 (upstream sends one) */
	if (nla_put_u32(info->nl_msg, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, device->ops.driver_id))
		return -EMSGSIZE;
	info->abi = device->ops.uverbs_abi_ver;
	info->cdev = get_device(&uvdev->dev);
	return 0;
}

static void uv_remove_one(struct ib_device *device, void *client_data);
static int uv_get_nl_info(struct ib_device *device, void *client_data,
			  struct ib_client_nl_info *info);

static struct ib_client uv_client = {
	.name	= "uverbs",
	.add	= uv_add_one,
	.remove	= uv_remove_one,
	.get_nl_info = uv_get_nl_info,
};

/* --- sysfs --------------------------------------------------------------- */

static ssize_t ibdev_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct uv_device *uvdev = container_of(dev, struct uv_device, dev);
	ssize_t ret = -ENODEV;

	mutex_lock(&uvdev->lists_mutex);
	if (uvdev->ib_dev)
		ret = sysfs_emit(buf, "%s\n", uvdev->ib_dev->name);
	mutex_unlock(&uvdev->lists_mutex);
	return ret;
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t abi_version_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	struct uv_device *uvdev = container_of(dev, struct uv_device, dev);
	ssize_t ret = -ENODEV;

	mutex_lock(&uvdev->lists_mutex);
	if (uvdev->ib_dev)
		ret = sysfs_emit(buf, "%u\n", uvdev->ib_dev->ops.uverbs_abi_ver);
	mutex_unlock(&uvdev->lists_mutex);
	return ret;
}
static DEVICE_ATTR_RO(abi_version);

static struct attribute *uv_dev_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(uv_dev);

static ssize_t uv_class_abi_show(IBSTACK_CLASS_ATTR_CLASS *class,
				 IBSTACK_CLASS_ATTR_ATTR *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", IB_USER_VERBS_ABI_VERSION);
}

static struct class_attribute uv_class_attr_abi_version =
	__ATTR(abi_version, 0444, uv_class_abi_show, NULL);

static struct attribute *uv_class_attrs[] = {
	&uv_class_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(uv_class);

/* /dev/infiniband/uverbsN, mode 0666: unprivileged programs use verbs */
static char *uv_devnode(IBSTACK_CLASS_DEVNODE_DEV *dev, umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "infiniband/%s", dev_name(dev));
}

struct class uv_class = {
	.name		= "infiniband_verbs",
	.devnode	= uv_devnode,
	.class_groups	= uv_class_groups,
	.dev_groups	= uv_dev_groups,
};

/* --- devices --------------------------------------------------------------- */

static void uv_dev_release(struct device *dev)
{
	struct uv_device *uvdev = container_of(dev, struct uv_device, dev);

	WARN_ON(!list_empty(&uvdev->xrcd_list));
	mutex_destroy(&uvdev->xrcd_mutex);
	mutex_destroy(&uvdev->lists_mutex);
	kfree(uvdev);
}

static int uv_add_one(struct ib_device *device)
{
	struct uv_device *uvdev;
	int num, ret;

	if (!device->ops.alloc_ucontext)
		return -EOPNOTSUPP;

	num = ida_alloc_max(&uv_ida, UV_MAX_DEVICES - 1, GFP_KERNEL);
	if (num < 0)
		return num;
	uvdev = kzalloc(sizeof(*uvdev), GFP_KERNEL);
	if (!uvdev) {
		ida_free(&uv_ida, num);
		return -ENOMEM;
	}
	uvdev->devnum = num;
	uvdev->ib_dev = device;
	mutex_init(&uvdev->lists_mutex);
	INIT_LIST_HEAD(&uvdev->file_list);
	mutex_init(&uvdev->xrcd_mutex);
	INIT_LIST_HEAD(&uvdev->xrcd_list);

	/*
	 * The parent is the device's own parent (the PCI function), as
	 * upstream's: /sys/class/infiniband/<dev>/device/infiniband_verbs/
	 * uverbsN is where libibverbs looks when netlink is absent.
	 */
	device_initialize(&uvdev->dev);
	uvdev->dev.class = &uv_class;
	uvdev->dev.parent = device->dev.parent;
	uvdev->dev.devt = uv_base + num;
	uvdev->dev.release = uv_dev_release;
	dev_set_name(&uvdev->dev, "uverbs%d", num);

	cdev_init(&uvdev->cdev, &uv_fops);
	uvdev->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&uvdev->cdev, &uvdev->dev);
	if (ret)
		goto err;
	ib_set_client_data(device, &uv_client, uvdev);
	return 0;

err:
	ida_free(&uv_ida, num);
	put_device(&uvdev->dev);
	return ret;
}

/*
 * The device goes (driver unload, or the reset after a catastrophic
 * error): no new opens, every open file disassociated (its objects and
 * context destroyed, its mappings revoked, its event files closed), each
 * waiting for the commands inside the driver; then the class device
 * drops its reference.  Open files stay valid and fail with -EIO.
 */
static void uv_remove_one(struct ib_device *device, void *client_data)
{
	struct uv_device *uvdev = client_data;
	struct ib_uverbs_file *ufile;

	if (!uvdev)
		return;
	cdev_device_del(&uvdev->cdev, &uvdev->dev);

	mutex_lock(&uvdev->lists_mutex);
	list_for_each_entry(ufile, &uvdev->file_list, dev_list)
		uv_file_cleanup(ufile, true);
	uvdev->ib_dev = NULL;
	mutex_unlock(&uvdev->lists_mutex);

	ida_free(&uv_ida, uvdev->devnum);
	put_device(&uvdev->dev);
}

/* --- the module ---------------------------------------------------------- */

static int __init uv_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&uv_base, 0, UV_MAX_DEVICES, uv_class.name);
	if (ret) {
		pr_err("ib_uverbs: no device numbers: %d\n", ret);
		return ret;
	}
	ret = class_register(&uv_class);
	if (ret) {
		pr_err("ib_uverbs: cannot register class %s: %d\n", uv_class.name, ret);
		goto err_region;
	}
	ret = ib_register_client(&uv_client);
	if (ret)
		goto err_class;
	return 0;

err_class:
	class_unregister(&uv_class);
err_region:
	unregister_chrdev_region(uv_base, UV_MAX_DEVICES);
	return ret;
}

static void __exit uv_exit(void)
{
	ib_unregister_client(&uv_client);
	class_unregister(&uv_class);
	unregister_chrdev_region(uv_base, UV_MAX_DEVICES);
	ida_destroy(&uv_ida);
}

module_init(uv_init);
module_exit(uv_exit);

MODULE_DESCRIPTION("InfiniBand user-space verbs: uverbsN (ibstack)");
MODULE_LICENSE("GPL");

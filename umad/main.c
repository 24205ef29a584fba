// SPDX-License-Identifier: GPL-2.0
/*
 * ib_umad: user-space access to the MAD layer through /dev/infiniband/umadN
 * (one per InfiniBand port) and the port's SM flag through issmN.  This
 * file: the module, the infiniband_mad class, the device numbers and the
 * ib_client that creates and removes the ports.
 */
#include <linux/module.h>
#include <linux/idr.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <ibstack/compat.h>
#include <ibstack/ext.h>
#include "umad_priv.h"

static dev_t umad_fixed_base;	/* MKDEV(231, 0) if we got it */
static bool umad_have_fixed;
static dev_t umad_dynamic_base;	/* umad64..; issm64.. follow */
static DEFINE_IDA(umad_ida);

static int umad_add_one(struct ib_device *device);
static void umad_remove_one(struct ib_device *device, void *client_data);

static int umad_get_nl_info(struct ib_device *device, void *client_data,
			    struct ib_client_nl_info *info);
static int issm_get_nl_info(struct ib_device *device, void *client_data,
			    struct ib_client_nl_info *info);

static struct ib_client umad_client = {
	.name	= "umad",
	.add	= umad_add_one,
	.remove	= umad_remove_one,
	.get_nl_info = umad_get_nl_info,
};

/* only a name for RDMA netlink's GET_CHARDEV "issm": the ports are umad's */
static struct ib_client issm_client = {
	.name	= "issm",
	.get_nl_info = issm_get_nl_info,
};

/*
 * Taken for writing by umad_remove_one() while it takes its data off the
 * device, for reading by issm_get_nl_info() while it reads that data: the
 * issm client is not umad's, so its netlink answer is not kept apart from
 * umad's removal by ib_core.
 */
static DECLARE_RWSEM(umad_nl_rwsem);

/* --- sysfs --------------------------------------------------------------- */

static ssize_t ibdev_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct umad_port *port = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", port->ib_dev ? port->ib_dev->name : "");
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t port_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct umad_port *port = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", port->port_num);
}
static DEVICE_ATTR_RO(port);

static struct attribute *umad_dev_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_port.attr,
	NULL,
};
ATTRIBUTE_GROUPS(umad_dev);

static ssize_t abi_version_show(IBSTACK_CLASS_ATTR_CLASS *class,
				IBSTACK_CLASS_ATTR_ATTR *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", IB_USER_MAD_ABI_VERSION);
}
static CLASS_ATTR_RO(abi_version);

static struct attribute *umad_class_attrs[] = {
	&class_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(umad_class);

/* /dev/infiniband/umadN, issmN; the mode stays the default (0600) */
static char *umad_devnode(IBSTACK_CLASS_DEVNODE_DEV *dev, umode_t *mode)
{
	return kasprintf(GFP_KERNEL, "infiniband/%s", dev_name(dev));
}

struct class umad_class = {
	.name		= "infiniband_mad",
	.devnode	= umad_devnode,
	.class_groups	= umad_class_groups,
	.dev_groups	= umad_dev_groups,
};

/* --- ports --------------------------------------------------------------- */

static void umad_dev_release(struct kref *kref)
{
	kfree(container_of(kref, struct umad_device, kref));
}

void umad_dev_put(struct umad_device *umad_dev)
{
	kref_put(&umad_dev->kref, umad_dev_release);
}

static void umad_port_dev_release(struct device *dev)
{
	struct umad_port *port = dev_get_drvdata(dev);

	umad_dev_put(port->umad_dev);
}

static void umad_port_dev_init(struct umad_port *port, struct device *dev,
			       dev_t devt, const char *kind)
{
	device_initialize(dev);
	kref_get(&port->umad_dev->kref);
	dev->class = &umad_class;
	dev->parent = port->ib_dev->dev.parent;
	dev->devt = devt;
	dev->release = umad_port_dev_release;
	dev_set_drvdata(dev, port);
	dev_set_name(dev, "%s%d", kind, port->dev_num);
}

static int umad_port_init(struct umad_port *port, struct umad_device *umad_dev,
			  struct ib_device *device, u32 port_num)
{
	dev_t umad_devt, issm_devt;
	int num, ret;

	num = ida_alloc_max(&umad_ida, UMAD_MAX_PORTS - 1, GFP_KERNEL);
	if (num < 0)
		return num;
	if (umad_have_fixed && num < UMAD_NUM_FIXED_MINOR) {
		umad_devt = umad_fixed_base + num;
		issm_devt = umad_fixed_base + UMAD_NUM_FIXED_MINOR + num;
	} else {
		umad_devt = umad_dynamic_base + num;
		issm_devt = umad_dynamic_base + UMAD_MAX_PORTS + num;
	}

	port->dev_num = num;
	port->ib_dev = device;
	port->umad_dev = umad_dev;
	port->port_num = port_num;
	sema_init(&port->sm_sem, 1);
	mutex_init(&port->file_mutex);
	INIT_LIST_HEAD(&port->file_list);

	umad_port_dev_init(port, &port->dev, umad_devt, "umad");
	cdev_init(&port->cdev, &umad_fops);
	port->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&port->cdev, &port->dev);
	if (ret)
		goto err_umad;

	umad_port_dev_init(port, &port->sm_dev, issm_devt, "issm");
	cdev_init(&port->sm_cdev, &umad_sm_fops);
	port->sm_cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&port->sm_cdev, &port->sm_dev);
	if (ret)
		goto err_issm;
	return 0;

err_issm:
	put_device(&port->sm_dev);
	cdev_device_del(&port->cdev, &port->dev);
err_umad:
	put_device(&port->dev);
	ida_free(&umad_ida, num);
	return ret;
}

/*
 * The device goes away: no new opens, every open file dead (agents
 * unregistered, queued MADs freed while the MAD layer still has the
 * device), then the class devices dropped.
 */
static void umad_port_kill(struct umad_port *port)
{
	struct umad_file *file;

	cdev_device_del(&port->sm_cdev, &port->sm_dev);
	cdev_device_del(&port->cdev, &port->dev);

	mutex_lock(&port->file_mutex);
	port->ib_dev = NULL;
	list_for_each_entry(file, &port->file_list, port_list)
		umad_file_kill(file);
	mutex_unlock(&port->file_mutex);

	ida_free(&umad_ida, port->dev_num);
	put_device(&port->sm_dev);
	put_device(&port->dev);
}

static int umad_add_one(struct ib_device *device)
{
	struct umad_device *umad_dev;
	u32 n = rdma_end_port(device), i;
	int ret;

	umad_dev = kzalloc(struct_size(umad_dev, ports, n), GFP_KERNEL);
	if (!umad_dev)
		return -ENOMEM;
	kref_init(&umad_dev->kref);
	umad_dev->nports = n;

	for (i = 0; i < n; i++) {
		ret = umad_port_init(&umad_dev->ports[i], umad_dev, device,
				     i + rdma_start_port(device));
		if (ret)
			goto err_ports;
	}
	ib_set_client_data(device, &umad_client, umad_dev);
	return 0;

err_ports:
	while (i--)
		umad_port_kill(&umad_dev->ports[i]);
	umad_dev_put(umad_dev);
	return ret;
}

/*
 * RDMA netlink's GET_CHARDEV "umad" or "issm" for one port (libibumad
 * and opensm find their device nodes so): its umadN or issmN.
 */
static int umad_nl_info(struct umad_device *umad_dev, struct ib_device *device,
			bool sm, struct ib_client_nl_info *info)
{
	struct umad_port *port;

	if (!umad_dev)
		return -EOPNOTSUPP;
	if (!rdma_is_port_valid(device, info->port))
		return -EINVAL;
	port = &umad_dev->ports[info->port - rdma_start_port(device)];
	info->abi = IB_USER_MAD_ABI_VERSION;
	info->cdev = get_device(sm ? &port->sm_dev : &port->dev);
	return 0;
}

static int umad_get_nl_info(struct ib_device *device, void *client_data,
			    struct ib_client_nl_info *info)
{
	return umad_nl_info(client_data, device, false, info);
}

static int issm_get_nl_info(struct ib_device *device, void *client_data,
			    struct ib_client_nl_info *info)
{
	int ret;

	down_read(&umad_nl_rwsem);
	ret = umad_nl_info(ib_get_client_data(device, &umad_client), device, true, info);
	up_read(&umad_nl_rwsem);
	return ret;
}

static void umad_remove_one(struct ib_device *device, void *client_data)
{
	struct umad_device *umad_dev = client_data;
	u32 i;

	if (!umad_dev)
		return;
	down_write(&umad_nl_rwsem);
	ib_set_client_data(device, &umad_client, NULL);
	up_write(&umad_nl_rwsem);
	for (i = 0; i < umad_dev->nports; i++)
		umad_port_kill(&umad_dev->ports[i]);
	umad_dev_put(umad_dev);
}

/* --- the module ---------------------------------------------------------- */

static int __init umad_init(void)
{
	int ret;

	/* upstream's fixed numbers first, as udev rules may expect them */
	umad_fixed_base = MKDEV(UMAD_FIXED_MAJOR, 0);
	umad_have_fixed = !register_chrdev_region(umad_fixed_base,
						  2 * UMAD_NUM_FIXED_MINOR,
						  umad_class.name);
	ret = alloc_chrdev_region(&umad_dynamic_base, 0, 2 * UMAD_MAX_PORTS,
				  umad_class.name);
	if (ret) {
		pr_err("ib_umad: no device numbers: %d\n", ret);
		goto err_fixed;
	}

	ret = class_register(&umad_class);
	if (ret) {
		pr_err("ib_umad: cannot register class %s: %d\n",
		       umad_class.name, ret);
		goto err_dynamic;
	}

	ret = ib_register_client(&umad_client);
	if (ret)
		goto err_class;
	ret = ib_register_client(&issm_client);
	if (ret)
		goto err_client;
	return 0;

err_client:
	ib_unregister_client(&umad_client);
err_class:
	class_unregister(&umad_class);
err_dynamic:
	unregister_chrdev_region(umad_dynamic_base, 2 * UMAD_MAX_PORTS);
err_fixed:
	if (umad_have_fixed)
		unregister_chrdev_region(umad_fixed_base, 2 * UMAD_NUM_FIXED_MINOR);
	return ret;
}

static void __exit umad_exit(void)
{
	ib_unregister_client(&issm_client);
	ib_unregister_client(&umad_client);
	class_unregister(&umad_class);
	unregister_chrdev_region(umad_dynamic_base, 2 * UMAD_MAX_PORTS);
	if (umad_have_fixed)
		unregister_chrdev_region(umad_fixed_base, 2 * UMAD_NUM_FIXED_MINOR);
}

module_init(umad_init);
module_exit(umad_exit);

MODULE_DESCRIPTION("InfiniBand user-space MAD access: umadN and issmN (ibstack)");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: a device's unregistration must not hold up other
 * registrations while it waits for the device's references.  Files in
 * /sys/kernel/debug/ibstack_kverbs/ (guest/kverbs-unreg.sh uses them):
 *	hold	write a device name: take a reference on it (ib_device_get_by_name),
 *		which its unregistration then waits for; write "-": let go
 *	client2	write anything: register a second client and unregister
 *		it again; returns when done.  Log lines:
 *		ibstack_kverbs: client2 add <dev> / client2 remove <dev>
 *		ibstack_kverbs: client2 registered / client2 unregistered
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kverbs.h"

/* protects kv_held */
static DEFINE_MUTEX(kv_hold_lock);
static struct ib_device *kv_held;

static ssize_t kv_hold_write(struct file *f, const char __user *ubuf, size_t n,
			     loff_t *pos)
{
	char name[IB_DEVICE_NAME_MAX];
	struct ib_device *dev;
	ssize_t ret = n;

	if (n == 0 || n >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, n))
		return -EFAULT;
	name[n] = '\0';
	strim(name);
	mutex_lock(&kv_hold_lock);
	if (!strcmp(name, "-")) {
		if (kv_held) {
			pr_info(KV_NAME ": hold: %s let go\n", kv_held->name);
			ib_device_put(kv_held);
			kv_held = NULL;
		}
	} else if (kv_held) {
		ret = -EBUSY;
	} else {
		dev = ib_device_get_by_name(name, RDMA_DRIVER_MLX4);
		if (dev) {
			kv_held = dev;
			pr_info(KV_NAME ": hold: %s held\n", name);
		} else {
			ret = -ENODEV;
		}
	}
	mutex_unlock(&kv_hold_lock);
	return ret;
}

static int kv_client2_add(struct ib_device *dev)
{
	pr_info(KV_NAME ": client2 add %s\n", dev->name);
	return 0;
}

static void kv_client2_remove(struct ib_device *dev, void *data)
{
	pr_info(KV_NAME ": client2 remove %s\n", dev->name);
}

static struct ib_client kv_client2 = {
	.name = "ibstack_kverbs2",
	.add = kv_client2_add,
	.remove = kv_client2_remove,
};

static ssize_t kv_client2_write(struct file *f, const char __user *ubuf, size_t n,
				loff_t *pos)
{
	int ret;

	ret = ib_register_client(&kv_client2);
	if (ret) {
		pr_info(KV_NAME ": client2 registration failed: %d\n", ret);
		return ret;
	}
	pr_info(KV_NAME ": client2 registered\n");
	ib_unregister_client(&kv_client2);
	pr_info(KV_NAME ": client2 unregistered\n");
	return n;
}

static const struct file_operations kv_hold_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = kv_hold_write,
};

static const struct file_operations kv_client2_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = kv_client2_write,
};

void kv_unreg_init(struct dentry *root)
{
	if (IS_ERR_OR_NULL(root))
		return;
	debugfs_create_file("hold", 0200, root, NULL, &kv_hold_fops);
	debugfs_create_file("client2", 0200, root, NULL, &kv_client2_fops);
}

/* After the files are gone: a reference still held goes. */
void kv_unreg_exit(void)
{
	mutex_lock(&kv_hold_lock);
	if (kv_held)
		ib_device_put(kv_held);
	kv_held = NULL;
	mutex_unlock(&kv_hold_lock);
}

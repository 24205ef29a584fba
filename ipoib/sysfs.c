// SPDX-License-Identifier: GPL-2.0
/*
 * ib_ipoib's files in /sys/class/net/<if>/: mode, pkey and umcast, with
 * create_child and delete_child on ibN and parent on a legacy child (the
 * attribute group each registers with its netdev; child.c has the child
 * files' code), and
 * our dev_id, which replaces the networking core's once the interface is
 * registered.
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "ipoib.h"

static ssize_t mode_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	struct ipoib_dev *priv = ipoib_priv(to_net_dev(d));

	return sysfs_emit(buf, ipoib_cm_admin(priv) ? "connected\n" :
			  "datagram\n");
}

/*
 * The written string must match with its newline, as upstream compares it.
 * Writing the current mode succeeds and does nothing; "connected\n" needs
 * IPOIB_ADDR_RC in the hardware address (ipoib_set_mode).
 */
static ssize_t mode_store(struct device *d, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct net_device *dev = to_net_dev(d);
	int ret;

	if (!rtnl_trylock())
		return restart_syscall();

	if (dev->reg_state != NETREG_REGISTERED)
		ret = -EPERM;
	else if (!strcmp(buf, "datagram\n"))
		ret = ipoib_set_mode(dev, false);
	else if (!strcmp(buf, "connected\n"))
		ret = ipoib_set_mode(dev, true);
	else
		ret = -EINVAL;

	rtnl_unlock();
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(mode);

static ssize_t pkey_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	struct ipoib_dev *priv = ipoib_priv(to_net_dev(d));

	return sysfs_emit(buf, "0x%04x\n", priv->pkey);
}
static DEVICE_ATTR_RO(pkey);

static ssize_t umcast_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct ipoib_dev *priv = ipoib_priv(to_net_dev(d));

	return sysfs_emit(buf, "%d\n",
			  test_bit(IPOIB_FLAG_UMCAST, &priv->flags) ? 1 : 0);
}

/* a digit's value in bases up to 16, or -1 */
static int ipoib_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;		/* lower case */
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * The unsigned number that starts s, in C's notation (0x hex, 0 octal,
 * else decimal), wrapping on overflow; no sign and no leading space (those
 * read as 0): what upstream's umcast_store makes of any string (it never
 * refuses one), taking the value as an int, positive turning it on.
 */
unsigned long ipoib_leading_number(const char *s)
{
	unsigned long v = 0;
	int base = 10;
	int d;

	if (s[0] == '0') {
		base = 8;
		if ((s[1] == 'x' || s[1] == 'X') && ipoib_digit(s[2]) >= 0) {
			base = 16;
			s += 2;
		}
	}
	for (; (d = ipoib_digit(*s)) >= 0 && d < base; s++)
		v = v * base + d;
	return v;
}

static ssize_t umcast_store(struct device *d, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct ipoib_dev *priv = ipoib_priv(to_net_dev(d));

	ipoib_set_umcast(priv, (int)ipoib_leading_number(buf) > 0);
	return count;
}
static DEVICE_ATTR_RW(umcast);

static struct attribute *ipoib_attrs[] = {
	&dev_attr_mode.attr,
	&dev_attr_pkey.attr,
	&dev_attr_umcast.attr,
	&dev_attr_create_child.attr,	/* child.c */
	&dev_attr_delete_child.attr,
	NULL,
};

const struct attribute_group ipoib_attr_group = {
	.attrs = ipoib_attrs,
};

/* a legacy child's (create_child); an rtnl child has none of these */
static struct attribute *ipoib_child_attrs[] = {
	&dev_attr_mode.attr,
	&dev_attr_pkey.attr,
	&dev_attr_umcast.attr,
	&dev_attr_parent.attr,		/* child.c */
	NULL,
};

const struct attribute_group ipoib_child_attr_group = {
	.attrs = ipoib_child_attrs,
};

/*
 * dev_id once held the IB port number, which dev_port has carried for
 * years.  Like upstream, we show the same value but tell (once) whoever
 * reads it when it equals dev_port, so that user space moves to dev_port.
 * A zero dev_port is what user space takes for an old kernel without it,
 * and gets no message.
 */
static ssize_t dev_id_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct net_device *dev = to_net_dev(d);

	if (dev->dev_port && dev->dev_id == dev->dev_port)
		netdev_info_once(dev,
				 "\"%s\" wants to know my dev_id. Should it look at dev_port instead? See Documentation/ABI/testing/sysfs-class-net for more info.\n",
				 current->comm);

	return sysfs_emit(buf, "%#x\n", dev->dev_id);
}
static DEVICE_ATTR_RO(dev_id);

/*
 * The networking core creates its own dev_id file for every netdev, so
 * ours cannot be in ipoib_attr_group (the duplicate name would fail
 * register_netdev).  Call this after register_netdev: it swaps the file.
 * Unregistering removes ours with the rest of the directory.
 */
int ipoib_sysfs_add_dev_id(struct net_device *dev)
{
	device_remove_file(&dev->dev, &dev_attr_dev_id);
	return device_create_file(&dev->dev, &dev_attr_dev_id);
}

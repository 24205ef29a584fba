// SPDX-License-Identifier: GPL-2.0
/*
 * The driver's attributes in /sys/class/infiniband/mlx4_N: hw_rev, hca_type
 * and board_id, formatted as upstream mlx4_ib does (rdma-core and the
 * infiniband-diags read them).
 */
#include <linux/device.h>
#include <linux/sysfs.h>

#include "mlx4_ib.h"

static struct mlx4_ib_dev *dev_to_mdev(struct device *device)
{
	return to_mdev(container_of(device, struct ib_device, dev));
}

static ssize_t hw_rev_show(struct device *device, struct device_attribute *attr,
			   char *buf)
{
	/* NodeInfo's revision, as ib_core read it at registration */
	return sysfs_emit(buf, "%x\n", dev_to_mdev(device)->ib_dev.attrs.hw_ver);
}
static DEVICE_ATTR_RO(hw_rev);

static ssize_t hca_type_show(struct device *device, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "MT%d\n", dev_to_mdev(device)->dev->pdev->device);
}
static DEVICE_ATTR_RO(hca_type);

static ssize_t board_id_show(struct device *device, struct device_attribute *attr,
			     char *buf)
{
	struct mlx4_dev *dev = dev_to_mdev(device)->dev;

	return sysfs_emit(buf, "%.*s\n", MLX4_BOARD_ID_LEN, dev->board_id);
}
static DEVICE_ATTR_RO(board_id);

static struct attribute *mlx4_ib_attrs[] = {
	&dev_attr_hw_rev.attr,
	&dev_attr_hca_type.attr,
	&dev_attr_board_id.attr,
	NULL,
};

const struct attribute_group mlx4_ib_attr_group = {
	.attrs = mlx4_ib_attrs,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/class/infiniband/mlx4_N/hw_counters/: the card's transport and
 * completion error counters (DIAG_RPRT, "transport and CI errors" report),
 * one file per counter as upstream names them, and "lifespan".  Each read
 * asks the firmware afresh; lifespan is kept for compatibility only.
 */
#include <linux/device.h>
#include <linux/sysfs.h>
#include <linux/kernel.h>

#include "mlx4_ib.h"

#define MLX4_DIAG_OP_TRANSPORT_CI_ERRORS	2
#define MLX4_DIAG_REPORT_SIZE			0x400

struct mlx4_ib_diag_attr {
	struct device_attribute	attr;
	u16			offset;		/* of the be32 in the report */
};

static ssize_t mlx4_ib_diag_show(struct device *device, struct device_attribute *attr,
				 char *buf)
{
	struct mlx4_ib_diag_attr *d = container_of(attr, struct mlx4_ib_diag_attr, attr);
	struct mlx4_ib_dev *dev = to_mdev(container_of(device, struct ib_device, dev));
	struct mlx4_cmd_mailbox *mailbox;
	u32 value;
	int err;

	mailbox = mlx4_alloc_cmd_mailbox(dev->dev);
	if (IS_ERR(mailbox))
		return PTR_ERR(mailbox);
	memset(mailbox->buf, 0, MLX4_DIAG_REPORT_SIZE);
	err = mlx4_cmd_box(dev->dev, 0, mailbox->dma, 0, MLX4_DIAG_OP_TRANSPORT_CI_ERRORS,
			   MLX4_CMD_DIAG_RPRT, MLX4_CMD_TIME_A);
	value = be32_to_cpup((__be32 *)(mailbox->buf + d->offset));
	mlx4_free_cmd_mailbox(dev->dev, mailbox);
	if (err)
		return err;
	return sysfs_emit(buf, "%u\n", value);
}

#define MLX4_DIAG(_name, _off)							\
	static struct mlx4_ib_diag_attr diag_##_name = {			\
		.attr = __ATTR(_name, 0444, mlx4_ib_diag_show, NULL),		\
		.offset = _off,							\
	}

MLX4_DIAG(rq_num_lle, 0x00);
MLX4_DIAG(sq_num_lle, 0x04);
MLX4_DIAG(rq_num_lqpoe, 0x08);
MLX4_DIAG(sq_num_lqpoe, 0x0c);
MLX4_DIAG(rq_num_lpe, 0x18);
MLX4_DIAG(sq_num_lpe, 0x1c);
MLX4_DIAG(rq_num_wrfe, 0x20);
MLX4_DIAG(sq_num_wrfe, 0x24);
MLX4_DIAG(sq_num_mwbe, 0x2c);
MLX4_DIAG(sq_num_bre, 0x34);
MLX4_DIAG(sq_num_rire, 0x44);
MLX4_DIAG(rq_num_rire, 0x48);
MLX4_DIAG(sq_num_rae, 0x4c);
MLX4_DIAG(rq_num_rae, 0x50);
MLX4_DIAG(sq_num_roe, 0x54);
MLX4_DIAG(sq_num_tree, 0x5c);
MLX4_DIAG(sq_num_rree, 0x64);
MLX4_DIAG(rq_num_rnr, 0x68);
MLX4_DIAG(sq_num_rnr, 0x6c);
MLX4_DIAG(rq_num_oos, 0x100);
MLX4_DIAG(sq_num_oos, 0x104);
MLX4_DIAG(num_cqovf, 0x1a0);
MLX4_DIAG(rq_num_udsdprd, 0x118);

/* ms between refreshes in upstream's statistics cache; we always refresh */
static unsigned int mlx4_ib_lifespan = 10;

static ssize_t lifespan_show(struct device *device, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(mlx4_ib_lifespan));
}

static ssize_t lifespan_store(struct device *device, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	unsigned int ms;
	int err;

	err = kstrtouint(buf, 10, &ms);
	if (err)
		return err;
	if (ms > 10000)
		return -EINVAL;
	WRITE_ONCE(mlx4_ib_lifespan, ms);
	return count;
}
static DEVICE_ATTR_RW(lifespan);

static struct attribute *mlx4_ib_diag_attrs[] = {
	&diag_rq_num_lle.attr.attr,
	&diag_sq_num_lle.attr.attr,
	&diag_rq_num_lqpoe.attr.attr,
	&diag_sq_num_lqpoe.attr.attr,
	&diag_rq_num_lpe.attr.attr,
	&diag_sq_num_lpe.attr.attr,
	&diag_rq_num_wrfe.attr.attr,
	&diag_sq_num_wrfe.attr.attr,
	&diag_sq_num_mwbe.attr.attr,
	&diag_sq_num_bre.attr.attr,
	&diag_sq_num_rire.attr.attr,
	&diag_rq_num_rire.attr.attr,
	&diag_sq_num_rae.attr.attr,
	&diag_rq_num_rae.attr.attr,
	&diag_sq_num_roe.attr.attr,
	&diag_sq_num_tree.attr.attr,
	&diag_sq_num_rree.attr.attr,
	&diag_rq_num_rnr.attr.attr,
	&diag_sq_num_rnr.attr.attr,
	&diag_rq_num_oos.attr.attr,
	&diag_sq_num_oos.attr.attr,
	&diag_num_cqovf.attr.attr,
	&diag_rq_num_udsdprd.attr.attr,
	&dev_attr_lifespan.attr,
	NULL,
};

static const struct attribute_group mlx4_ib_hw_counters_group = {
	.name = "hw_counters",
	.attrs = mlx4_ib_diag_attrs,
};

const struct attribute_group *mlx4_ib_driver_groups[] = {
	&mlx4_ib_hw_counters_group,
	NULL,
};

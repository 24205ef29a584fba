// SPDX-License-Identifier: GPL-2.0
/*
 * The port's CM counters in sysfs, as upstream lays them out: four
 * directories under /sys/class/infiniband/<dev>/ports/<n>/ (cm_tx_msgs,
 * cm_tx_retries, cm_rx_msgs, cm_rx_duplicates), each with one read-only
 * file per message (req mra rej rep rtu dreq drep sidr_req sidr_rep lap
 * apr) holding a count.  The attributes are built once at load.
 */
#include <linux/sysfs.h>
#include <rdma/ib_sysfs.h>
#include "cm_priv.h"

struct cm_counter_attribute {
	struct ib_port_attribute	attr;
	enum cm_counter_group		group;
	unsigned int			index;	/* attribute ID - 0x10 */
};

/* by attribute ID - 0x10 */
static const char * const cm_counter_names[CM_ATTR_COUNT] = {
	"req", "mra", "rej", "rep", "rtu", "dreq", "drep", "sidr_req", "sidr_rep",
	"lap", "apr",
};

static const char * const cm_group_dirs[CM_COUNTER_GROUPS] = {
	[CM_XMIT]		= "cm_tx_msgs",
	[CM_XMIT_RETRIES]	= "cm_tx_retries",
	[CM_RECV]		= "cm_rx_msgs",
	[CM_RECV_DUPLICATES]	= "cm_rx_duplicates",
};

static struct cm_counter_attribute cm_counter_attrs[CM_COUNTER_GROUPS][CM_ATTR_COUNT];
static struct attribute *cm_attrs[CM_COUNTER_GROUPS][CM_ATTR_COUNT + 1];
static struct attribute_group cm_groups[CM_COUNTER_GROUPS];
const struct attribute_group *cm_counter_groups[CM_COUNTER_GROUPS + 1];

static ssize_t cm_counter_show(struct ib_device *ibdev, u32 port_num,
			       struct ib_port_attribute *attr, char *buf)
{
	struct cm_counter_attribute *c = container_of(attr, struct cm_counter_attribute, attr);
	struct cm_port *port = cm_port_of(ibdev, port_num);
	long n;

	if (!port)
		return -ENODEV;
	n = atomic_long_read(&port->counters[c->group][c->index]);
	cm_device_put(port->cm_dev);
	return sysfs_emit(buf, "%ld\n", n);
}

void cm_sysfs_init(void)
{
	unsigned int g, i;

	for (g = 0; g < CM_COUNTER_GROUPS; g++) {
		for (i = 0; i < CM_ATTR_COUNT; i++) {
			struct cm_counter_attribute *c = &cm_counter_attrs[g][i];

			sysfs_attr_init(&c->attr.attr);
			c->attr.attr.name = cm_counter_names[i];
			c->attr.attr.mode = 0444;
			c->attr.show = cm_counter_show;
			c->group = g;
			c->index = i;
			cm_attrs[g][i] = &c->attr.attr;
		}
		cm_groups[g].name = cm_group_dirs[g];
		cm_groups[g].attrs = cm_attrs[g];
		cm_counter_groups[g] = &cm_groups[g];
	}
}

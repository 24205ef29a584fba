// SPDX-License-Identifier: GPL-2.0
/*
 * ib_umad: issmN.  While one process has it open the port advertises an SM
 * (PortInfo:CapabilityMask.IsSM); a second open waits for the first to
 * close, or fails with -EAGAIN under O_NONBLOCK.
 */
#include <linux/fs.h>
#include <linux/sched.h>
#include <ibstack/compat.h>
#include "umad_priv.h"

static int umad_sm_set(struct umad_port *port, bool on)
{
	struct ib_port_modify props = {};
	int ret = -ENXIO;

	if (on)
		props.set_port_cap_mask = IB_PORT_SM;
	else
		props.clr_port_cap_mask = IB_PORT_SM;
	mutex_lock(&port->file_mutex);
	if (port->ib_dev)
		ret = ib_modify_port(port->ib_dev, port->port_num, 0, &props);
	mutex_unlock(&port->file_mutex);
	return ret;
}

static int umad_sm_open(struct inode *inode, struct file *filp)
{
	struct umad_port *port = container_of(inode->i_cdev, struct umad_port,
					      sm_cdev);
	int ret;

	if (filp->f_flags & O_NONBLOCK) {
		if (down_trylock(&port->sm_sem))
			return -EAGAIN;
	} else if (down_interruptible(&port->sm_sem)) {
		return -ERESTARTSYS;
	}

	ret = umad_sm_set(port, true);
	if (ret) {
		up(&port->sm_sem);
		return ret;
	}
	filp->private_data = port;
	nonseekable_open(inode, filp);
	return 0;
}

static int umad_sm_close(struct inode *inode, struct file *filp)
{
	struct umad_port *port = filp->private_data;
	int ret;

	/* a removed device has forgotten the flag anyway */
	ret = umad_sm_set(port, false);
	up(&port->sm_sem);
	return ret == -ENXIO ? 0 : ret;
}

const struct file_operations umad_sm_fops = {
	.owner		= THIS_MODULE,
	.open		= umad_sm_open,
	.release	= umad_sm_close,
	.llseek		= IBSTACK_NO_LLSEEK,
};

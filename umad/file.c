// SPDX-License-Identifier: GPL-2.0
/*
 * ib_umad: an open umadN file.  The MAD agents' handlers queue what user
 * space reads (received MADs, timed-out requests); read() hands out one
 * per call, poll() says whether there is one; close() and device removal
 * free it all.
 */
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <ibstack/compat.h>
#include "umad_priv.h"

size_t umad_hdr_size(const struct umad_file *file)
{
	return file->use_pkey_index ? sizeof(struct ib_user_mad_hdr) :
				      sizeof(struct ib_user_mad_hdr_old);
}

/* The agent with this id, NULL for none or a dead file. */
struct ib_mad_agent *umad_get_agent(struct umad_file *file, u32 id)
{
	lockdep_assert_held(&file->mutex);
	if (file->agents_dead || id >= UMAD_MAX_AGENTS)
		return NULL;
	return file->agent[id];
}

/* A packet no longer queued or posted: frees it and what it holds. */
void umad_packet_free(struct umad_packet *packet)
{
	if (packet->recv_wc)
		ib_free_recv_mad(packet->recv_wc);
	kfree(packet);
}

/*
 * Queues a packet for read() with the id of the agent it belongs to;
 * false if the agent is gone (or, for a receive, the queue is full): the
 * caller keeps the packet.
 */
static bool umad_queue_packet(struct umad_file *file, struct ib_mad_agent *agent,
			      struct umad_packet *packet)
{
	bool queued = false;
	u32 id;

	mutex_lock(&file->mutex);
	if (packet->recv_wc && file->recv_queued >= UMAD_MAX_RECV_QUEUED) {
		dev_warn_ratelimited(&file->port->dev,
				     "receive queue full (%u MADs unread), MAD dropped\n",
				     file->recv_queued);
		goto out;
	}
	for (id = 0; id < UMAD_MAX_AGENTS; id++) {
		if (umad_get_agent(file, id) != agent)
			continue;
		packet->mad.hdr.id = id;
		list_add_tail(&packet->list, &file->recv_list);
		if (packet->recv_wc)
			file->recv_queued++;
		wake_up_interruptible(&file->recv_wait);
		queued = true;
		break;
	}
out:
	mutex_unlock(&file->mutex);
	return queued;
}

void umad_send_handler(struct ib_mad_agent *agent,
		       struct ib_mad_send_wc *send_wc)
{
	struct umad_file *file = agent->context;
	struct umad_packet *packet = send_wc->send_buf->context[0];

	spin_lock_irq(&file->send_lock);
	list_del(&packet->list);
	spin_unlock_irq(&file->send_lock);

	rdma_destroy_ah(packet->msg->ah, 0);
	ib_free_send_mad(packet->msg);
	packet->msg = NULL;

	if (send_wc->status == IB_WC_RESP_TIMEOUT_ERR) {
		/* the request comes back with its MAD header: no answer */
		packet->length = IB_MGMT_MAD_HDR;
		packet->mad.hdr.status = ETIMEDOUT;
		if (umad_queue_packet(file, agent, packet))
			return;
	}
	umad_packet_free(packet);
}

/*
 * The address fields of a received MAD's header, from its completion: as
 * upstream's, the address to answer to (what ib_init_ah_attr_from_wc()
 * makes of it), so with a GRH the hop limit is 0xff, not the one the MAD
 * arrived with.
 */
static int umad_fill_recv_addr(struct ib_mad_agent *agent,
			       struct ib_user_mad_hdr *hdr,
			       const struct ib_mad_recv_wc *mad_recv_wc)
{
	const struct ib_wc *wc = mad_recv_wc->wc;
	const struct ib_global_route *grh;
	struct rdma_ah_attr attr;
	int ret;

	hdr->qpn = cpu_to_be32(wc->src_qp);
	hdr->lid = cpu_to_be16((u16)wc->slid);
	hdr->sl = wc->sl;
	hdr->path_bits = wc->dlid_path_bits;
	hdr->pkey_index = wc->pkey_index;
	hdr->grh_present = !!(wc->wc_flags & IB_WC_GRH);
	if (!hdr->grh_present)
		return 0;

	/* the reply's address: back to the sender, from the GID it reached */
	ret = ib_init_ah_attr_from_wc(agent->device, agent->port_num, wc,
				      mad_recv_wc->recv_buf.grh, &attr);
	if (ret)
		return ret;
	grh = rdma_ah_read_grh(&attr);
	hdr->gid_index = grh->sgid_index;
	hdr->hop_limit = grh->hop_limit;
	hdr->traffic_class = grh->traffic_class;
	hdr->flow_label = cpu_to_be32(grh->flow_label);
	memcpy(hdr->gid, grh->dgid.raw, sizeof(hdr->gid));
	rdma_destroy_ah_attr(&attr);
	return 0;
}

void umad_recv_handler(struct ib_mad_agent *agent,
		       struct ib_mad_send_buf *send_buf,
		       struct ib_mad_recv_wc *mad_recv_wc)
{
	struct umad_file *file = agent->context;
	struct umad_packet *packet;

	if (mad_recv_wc->wc->status != IB_WC_SUCCESS)
		goto err;
	packet = kzalloc(sizeof(*packet), GFP_KERNEL);
	if (!packet)
		goto err;

	packet->recv_wc = mad_recv_wc;
	packet->length = mad_recv_wc->mad_len;
	/* umad_hdr_size() may change until the first agent is registered */
	mutex_lock(&file->mutex);
	packet->mad.hdr.length = umad_hdr_size(file) + mad_recv_wc->mad_len;
	mutex_unlock(&file->mutex);
	if (umad_fill_recv_addr(agent, &packet->mad.hdr, mad_recv_wc)) {
		dev_dbg_ratelimited(&file->port->dev,
				    "MAD with a GRH to a GID not on port %u dropped\n",
				    agent->port_num);
		goto err_packet;
	}
	if (umad_queue_packet(file, agent, packet))
		return;

err_packet:
	kfree(packet);
err:
	ib_free_recv_mad(mad_recv_wc);
}

/* --- open, close, removal ------------------------------------------------ */

static int umad_open(struct inode *inode, struct file *filp)
{
	struct umad_port *port = container_of(inode->i_cdev, struct umad_port, cdev);
	struct umad_file *file;
	int ret = 0;

	mutex_lock(&port->file_mutex);
	if (!port->ib_dev) {
		ret = -ENXIO;
		goto out;
	}
	file = kzalloc(sizeof(*file), GFP_KERNEL);
	if (!file) {
		ret = -ENOMEM;
		goto out;
	}
	mutex_init(&file->mutex);
	spin_lock_init(&file->send_lock);
	INIT_LIST_HEAD(&file->recv_list);
	INIT_LIST_HEAD(&file->send_list);
	init_waitqueue_head(&file->recv_wait);
	file->port = port;
	list_add_tail(&file->port_list, &port->file_list);
	filp->private_data = file;
	stream_open(inode, filp);
out:
	mutex_unlock(&port->file_mutex);
	return ret;
}

/* Frees what read() has not taken; the file is dead, nothing queues more. */
static void umad_drop_queue(struct umad_file *file)
{
	struct umad_packet *packet, *next;
	LIST_HEAD(dead);

	mutex_lock(&file->mutex);
	list_splice_init(&file->recv_list, &dead);
	file->recv_queued = 0;
	mutex_unlock(&file->mutex);
	list_for_each_entry_safe(packet, next, &dead, list)
		umad_packet_free(packet);
}

/*
 * Marks the file dead, unregisters its agents (their posted sends are
 * flushed back through umad_send_handler) and frees its queue.  Called once:
 * by the device's removal or by close.
 */
void umad_file_kill(struct umad_file *file)
{
	struct ib_mad_agent *agents[UMAD_MAX_AGENTS];
	u32 id;

	lockdep_assert_held(&file->port->file_mutex);

	mutex_lock(&file->mutex);
	file->agents_dead = true;
	memcpy(agents, file->agent, sizeof(agents));
	memset(file->agent, 0, sizeof(file->agent));
	mutex_unlock(&file->mutex);
	wake_up_interruptible(&file->recv_wait);

	for (id = 0; id < UMAD_MAX_AGENTS; id++)
		if (agents[id])
			ib_unregister_mad_agent(agents[id]);
	umad_drop_queue(file);
}

static int umad_close(struct inode *inode, struct file *filp)
{
	struct umad_file *file = filp->private_data;
	struct umad_port *port = file->port;

	mutex_lock(&port->file_mutex);
	if (!file->agents_dead)
		umad_file_kill(file);
	list_del(&file->port_list);
	mutex_unlock(&port->file_mutex);

	mutex_destroy(&file->mutex);
	kfree(file);
	return 0;
}

/* --- read and poll ------------------------------------------------------- */

/*
 * A received MAD: the header, then the first segment whole, then the data
 * of every further RMPP segment after its class headers.  A buffer that
 * holds the first segment but not the whole message gets the header and
 * that segment, and -ENOSPC (the header's length says how much is needed).
 */
static ssize_t umad_copy_recv(struct umad_file *file, char __user *buf,
			      struct umad_packet *packet, size_t count)
{
	struct ib_mad_recv_wc *wc = packet->recv_wc;
	struct ib_mad_recv_buf *seg = &wc->recv_buf;
	size_t hdr = umad_hdr_size(file);
	size_t first = min_t(size_t, packet->length, wc->mad_seg_size);
	size_t left, off, chunk;

	if (count < hdr + first)
		return -EINVAL;
	if (copy_to_user(buf, &packet->mad, hdr) ||
	    copy_to_user(buf + hdr, seg->mad, first))
		return -EFAULT;
	if (first == packet->length)
		return hdr + first;
	if (count < hdr + packet->length)
		return -ENOSPC;

	off = ib_get_mad_data_offset(seg->mad->mad_hdr.mgmt_class);
	buf += hdr + first;
	for (left = packet->length - first; left; left -= chunk, buf += chunk) {
		if (list_is_last(&seg->list, &wc->rmpp_list))
			return -EIO;	/* the MAD layer's length is wrong */
		seg = list_next_entry(seg, list);
		chunk = min(left, wc->mad_seg_size - off);
		if (copy_to_user(buf, (u8 *)seg->mad + off, chunk))
			return -EFAULT;
	}
	return hdr + packet->length;
}

/* A timed-out request: the header and the MAD header. */
static ssize_t umad_copy_send(struct umad_file *file, char __user *buf,
			      struct umad_packet *packet, size_t count)
{
	size_t hdr = umad_hdr_size(file);

	if (count < hdr + packet->length)
		return -EINVAL;
	if (copy_to_user(buf, &packet->mad, hdr) ||
	    copy_to_user(buf + hdr, packet->mad.data, packet->length))
		return -EFAULT;
	return hdr + packet->length;
}

static ssize_t umad_read(struct file *filp, char __user *buf, size_t count,
			 loff_t *pos)
{
	struct umad_file *file = filp->private_data;
	struct umad_packet *packet;
	ssize_t ret;

	mutex_lock(&file->mutex);
	if (count < umad_hdr_size(file)) {
		ret = -EINVAL;
		goto out;
	}
	while (!file->agents_dead && list_empty(&file->recv_list)) {
		mutex_unlock(&file->mutex);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(file->recv_wait,
					     READ_ONCE(file->agents_dead) ||
					     !list_empty(&file->recv_list)))
			return -ERESTARTSYS;
		mutex_lock(&file->mutex);
	}
	if (file->agents_dead) {
		ret = -EIO;
		goto out;
	}
	packet = list_first_entry(&file->recv_list, struct umad_packet, list);
	list_del(&packet->list);
	if (packet->recv_wc)
		file->recv_queued--;
	mutex_unlock(&file->mutex);

	if (packet->recv_wc)
		ret = umad_copy_recv(file, buf, packet, count);
	else
		ret = umad_copy_send(file, buf, packet, count);

	mutex_lock(&file->mutex);
	if (ret < 0 && !file->agents_dead) {
		/* still the next one to read */
		list_add(&packet->list, &file->recv_list);
		if (packet->recv_wc)
			file->recv_queued++;
		packet = NULL;
	}
	mutex_unlock(&file->mutex);
	if (packet)
		umad_packet_free(packet);
	return ret;
out:
	mutex_unlock(&file->mutex);
	return ret;
}

static __poll_t umad_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct umad_file *file = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &file->recv_wait, wait);

	mutex_lock(&file->mutex);
	if (file->agents_dead) {
		mask = EPOLLERR;
	} else {
		/* a write never waits for earlier sends (as upstream) */
		mask = EPOLLOUT | EPOLLWRNORM;
		if (!list_empty(&file->recv_list))
			mask |= EPOLLIN | EPOLLRDNORM;
	}
	mutex_unlock(&file->mutex);
	return mask;
}

const struct file_operations umad_fops = {
	.owner		= THIS_MODULE,
	.open		= umad_open,
	.release	= umad_close,
	.read		= umad_read,
	.write		= umad_write,
	.poll		= umad_poll,
	.unlocked_ioctl	= umad_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= umad_compat_ioctl,
#endif
	.llseek		= IBSTACK_NO_LLSEEK,
};

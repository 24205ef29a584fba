// SPDX-License-Identifier: GPL-2.0
/*
 * ib_umad: write() on umadN, one MAD (or one RMPP message for a kernel-RMPP
 * agent) per call: the user's header says which agent sends it, where to
 * and how long to wait for the response.
 */
#include <linux/fs.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "umad_priv.h"

/* The first bytes of every MAD a user writes: common and RMPP headers. */
struct umad_rmpp_mad_hdr {
	struct ib_mad_hdr	mad_hdr;
	struct ib_rmpp_hdr	rmpp_hdr;
} __packed;

/* Where the MAD goes: the header's LID, SL, path bits and GRH. */
static struct ib_ah *umad_create_ah(struct umad_file *file,
				    struct ib_mad_agent *agent,
				    const struct ib_user_mad_hdr *hdr)
{
	struct ib_device *device = agent->qp->device;
	u32 port = file->port->port_num;
	struct rdma_ah_attr attr = {};

	attr.type = rdma_ah_find_type(device, port);
	rdma_ah_set_dlid(&attr, be16_to_cpu(hdr->lid));
	rdma_ah_set_sl(&attr, hdr->sl);
	rdma_ah_set_path_bits(&attr, hdr->path_bits);
	rdma_ah_set_port_num(&attr, port);
	if (hdr->grh_present) {
		rdma_ah_set_grh(&attr, NULL, be32_to_cpu(hdr->flow_label), hdr->gid_index,
				hdr->hop_limit, hdr->traffic_class);
		memcpy(attr.grh.dgid.raw, hdr->gid, sizeof(attr.grh.dgid.raw));
	}
	return rdma_create_ah(agent->qp->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
}

/* SMPs go out on QP0, everything else on QP1. */
static bool umad_class_fits_qp(const struct ib_mad_agent *agent, u8 mgmt_class)
{
	bool smp = mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
		   mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;

	return smp == (agent->qp->qp_type == IB_QPT_SMI);
}

/* The segments of an RMPP message the kernel sends (after its headers). */
static int umad_copy_rmpp(struct ib_mad_send_buf *msg, const char __user *buf)
{
	int seg, left;

	if (msg->hdr_len > IB_MGMT_RMPP_HDR &&
	    copy_from_user((u8 *)msg->mad + IB_MGMT_RMPP_HDR,
			   buf + IB_MGMT_RMPP_HDR,
			   msg->hdr_len - IB_MGMT_RMPP_HDR))
		return -EFAULT;
	buf += msg->hdr_len;
	for (seg = 1, left = msg->data_len; left > 0; seg++) {
		int len = min(left, msg->seg_size);

		if (copy_from_user(ib_get_rmpp_segment(msg, seg), buf, len))
			return -EFAULT;
		buf += len;
		left -= len;
	}
	return 0;
}

static bool umad_same_dest(const struct ib_user_mad_hdr *a,
			   const struct ib_user_mad_hdr *b)
{
	if (a->grh_present != b->grh_present)
		return false;
	if (a->grh_present)
		return !memcmp(a->gid, b->gid, sizeof(a->gid));
	return a->lid == b->lid;
}

/*
 * A send with the TID and class of one still outstanding: two requests,
 * or two responses to the same destination.
 */
static bool umad_is_duplicate(struct umad_file *file, struct umad_packet *packet)
{
	const struct ib_mad_hdr *hdr = (const void *)packet->mad.data;
	struct umad_packet *sent;

	lockdep_assert_held(&file->send_lock);
	list_for_each_entry(sent, &file->send_list, list) {
		const struct ib_mad_hdr *s = (const void *)sent->mad.data;

		if (s->tid != hdr->tid || s->mgmt_class != hdr->mgmt_class)
			continue;
		if (ib_response_mad(s) != ib_response_mad(hdr))
			continue;
		if (!ib_response_mad(hdr) ||
		    umad_same_dest(&sent->mad.hdr, &packet->mad.hdr))
			return true;
	}
	return false;
}

/* Builds, fills and posts the send; file->mutex held. */
static int umad_post(struct umad_file *file, struct umad_packet *packet,
		     struct ib_mad_agent *agent, const char __user *mad,
		     size_t mad_len)
{
	struct umad_rmpp_mad_hdr *first = (void *)packet->mad.data;
	const struct ib_user_mad_hdr *hdr = &packet->mad.hdr;
	bool kernel_rmpp, rmpp_active, dup;
	struct ib_mad_send_buf *msg;
	size_t data_len, copy_from;
	struct ib_ah *ah;
	int hdr_len, ret;

	lockdep_assert_held(&file->mutex);

	if (!umad_class_fits_qp(agent, first->mad_hdr.mgmt_class))
		return -EINVAL;
	hdr_len = ib_get_mad_data_offset(first->mad_hdr.mgmt_class);
	if (check_sub_overflow(mad_len, (size_t)hdr_len, &data_len))
		return -EINVAL;

	kernel_rmpp = ib_is_mad_class_rmpp(first->mad_hdr.mgmt_class) &&
		      ib_mad_kernel_rmpp_agent(agent);
	rmpp_active = kernel_rmpp &&
		      (ib_get_rmpp_flags(&first->rmpp_hdr) & IB_MGMT_RMPP_FLAG_ACTIVE);
	/* the MAD layer writes the RMPP header of a kernel-RMPP agent's MADs */
	copy_from = kernel_rmpp ? IB_MGMT_RMPP_HDR : IB_MGMT_MAD_HDR;

	/* requests carry the agent's TID high half, as the MAD layer sets it */
	if (!ib_response_mad(&first->mad_hdr))
		first->mad_hdr.tid = cpu_to_be64((u64)agent->hi_tid << 32 |
						 (be64_to_cpu(first->mad_hdr.tid) &
						  0xffffffffULL));

	ah = umad_create_ah(file, agent, hdr);
	if (IS_ERR(ah))
		return PTR_ERR(ah);

	msg = ib_create_send_mad(agent, be32_to_cpu(hdr->qpn), hdr->pkey_index,
				 rmpp_active, hdr_len, data_len, GFP_KERNEL,
				 first->mad_hdr.base_version);
	if (IS_ERR(msg)) {
		ret = PTR_ERR(msg);
		goto err_ah;
	}
	msg->ah = ah;
	msg->timeout_ms = hdr->timeout_ms;
	msg->retries = hdr->retries;
	msg->context[0] = packet;
	packet->msg = msg;

	memcpy(msg->mad, &first->mad_hdr, IB_MGMT_MAD_HDR);
	if (rmpp_active)
		ret = umad_copy_rmpp(msg, mad);
	else
		ret = copy_from_user((u8 *)msg->mad + copy_from, mad + copy_from,
				     hdr_len + data_len - copy_from) ? -EFAULT : 0;
	if (ret)
		goto err_msg;

	/*
	 * User-RMPP messages are exempt: their segments share one TID.
	 */
	spin_lock_irq(&file->send_lock);
	dup = !(ib_is_mad_class_rmpp(first->mad_hdr.mgmt_class) && !kernel_rmpp &&
		(ib_get_rmpp_flags(&first->rmpp_hdr) & IB_MGMT_RMPP_FLAG_ACTIVE)) &&
	      umad_is_duplicate(file, packet);
	if (!dup)
		list_add_tail(&packet->list, &file->send_list);
	spin_unlock_irq(&file->send_lock);
	if (dup) {
		ret = -EINVAL;
		goto err_msg;
	}

	ret = ib_post_send_mad(msg, NULL);
	if (ret)
		goto err_list;
	return 0;

err_list:
	spin_lock_irq(&file->send_lock);
	list_del(&packet->list);
	spin_unlock_irq(&file->send_lock);
err_msg:
	packet->msg = NULL;
	ib_free_send_mad(msg);
err_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	return ret;
}

ssize_t umad_write(struct file *filp, const char __user *buf, size_t count,
		   loff_t *pos)
{
	struct umad_file *file = filp->private_data;
	struct umad_packet *packet;
	struct ib_mad_agent *agent;
	size_t hdr_size;
	int ret;

	mutex_lock(&file->mutex);
	hdr_size = umad_hdr_size(file);
	mutex_unlock(&file->mutex);
	if (count < hdr_size + IB_MGMT_RMPP_HDR || count > UMAD_MAX_WRITE)
		return -EINVAL;

	/* room for the header and the MAD's first IB_MGMT_RMPP_HDR bytes */
	packet = kzalloc(sizeof(*packet) + IB_MGMT_RMPP_HDR, GFP_KERNEL);
	if (!packet)
		return -ENOMEM;
	/* the agent id is checked before the MAD is read, as 6.1 */
	if (copy_from_user(&packet->mad.hdr, buf, hdr_size)) {
		ret = -EFAULT;
		goto err_packet;
	}
	if (packet->mad.hdr.id >= UMAD_MAX_AGENTS) {
		ret = -EINVAL;
		goto err_packet;
	}
	if (copy_from_user(packet->mad.data, buf + hdr_size, IB_MGMT_RMPP_HDR)) {
		ret = -EFAULT;
		goto err_packet;
	}

	mutex_lock(&file->mutex);
	agent = umad_get_agent(file, packet->mad.hdr.id);
	if (!agent) {
		ret = -EIO;	/* upstream's errno for an unregistered id */
		goto err_unlock;
	}
	ret = umad_post(file, packet, agent, buf + hdr_size, count - hdr_size);
	if (ret)
		goto err_unlock;
	mutex_unlock(&file->mutex);
	return count;

err_unlock:
	mutex_unlock(&file->mutex);
err_packet:
	kfree(packet);
	return ret;
}

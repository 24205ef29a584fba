// SPDX-License-Identifier: GPL-2.0
/*
 * The send path: send buffers, posting, the QP's send queue with its
 * overflow list, and what happens when a WR comes back.
 *
 * A send has at most one WR out at a time (sw->on_wire): its wire buffer
 * holds the MAD (or the RMPP segment) being sent.  It completes (an event
 * for send_handler) only when no WR is out, so the caller never gets a
 * buffer the device may still read.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "mad_priv.h"

/*
 * [any] The caller's part of an RMPP send (headers and every segment's
 * payload): kvmalloc when the caller may sleep, as it can be megabytes.
 * Never DMA-mapped (see struct mad_send_wr).
 */
static void *mad_send_body_alloc(size_t size, gfp_t gfp_mask)
{
	if (gfpflags_allow_blocking(gfp_mask))
		return kvzalloc(size, gfp_mask);
	return kzalloc(size, gfp_mask);
}

struct ib_mad_send_buf *ib_create_send_mad(struct ib_mad_agent *mad_agent,
					   u32 remote_qpn, u16 pkey_index,
					   int rmpp_active, int hdr_len,
					   int data_len, gfp_t gfp_mask,
					   u8 base_version)
{
	struct mad_send_wr *sw;
	int seg_size, seg_count, body;

	/*
	 * The base version only picks the MAD size, and an IB port has one:
	 * 6.1 sends whatever version the caller wrote (the receiver drops
	 * the ones it does not know).
	 */
	if (!mad_agent || hdr_len < IB_MGMT_MAD_HDR || hdr_len >= IB_MGMT_MAD_SIZE || data_len < 0)
		return ERR_PTR(-EINVAL);
	seg_size = IB_MGMT_MAD_SIZE - hdr_len;
	if (rmpp_active) {
		if (!ib_mad_kernel_rmpp_agent(mad_agent) || hdr_len < IB_MGMT_RMPP_HDR)
			return ERR_PTR(-EINVAL);
		seg_count = max(1, DIV_ROUND_UP(data_len, seg_size));
		if (seg_count > INT_MAX / IB_MGMT_MAD_SIZE)
			return ERR_PTR(-EINVAL);
		body = hdr_len + seg_count * seg_size;
	} else {
		if (hdr_len + data_len > IB_MGMT_MAD_SIZE)
			return ERR_PTR(-EINVAL);
		seg_count = 1;
		body = IB_MGMT_MAD_SIZE;
	}

	/* the wire buffer (DMA) is in sw: kmalloc memory, whatever the body */
	sw = kzalloc(sizeof(*sw) + (rmpp_active ? 0 : body), gfp_mask);
	if (!sw)
		return ERR_PTR(-ENOMEM);
	if (rmpp_active) {
		sw->buf.mad = mad_send_body_alloc(body, gfp_mask);
		if (!sw->buf.mad) {
			kfree(sw);
			return ERR_PTR(-ENOMEM);
		}
	} else {
		sw->buf.mad = sw + 1;
	}
	sw->buf.mad_agent = mad_agent;
	sw->buf.hdr_len = hdr_len;
	sw->buf.data_len = data_len;
	sw->buf.seg_count = seg_count;
	sw->buf.seg_size = seg_size;
	sw->buf.seg_rmpp_size = seg_size + hdr_len;
	sw->agent = to_agent(mad_agent);
	sw->remote_qpn = remote_qpn;
	sw->pkey_index = pkey_index;
	sw->rmpp = rmpp_active;
	sw->ev.kind = MAD_EV_SEND;
	INIT_LIST_HEAD(&sw->agent_entry);
	INIT_LIST_HEAD(&sw->qp_entry);
	if (rmpp_active) {
		struct ib_rmpp_mad *rm = sw->buf.mad;

		rm->rmpp_hdr.rmpp_version = mad_agent->rmpp_version;
		rm->rmpp_hdr.rmpp_type = IB_MGMT_RMPP_TYPE_DATA;
		ib_set_rmpp_flags(&rm->rmpp_hdr, IB_MGMT_RMPP_FLAG_ACTIVE);
	}
	return &sw->buf;
}
EXPORT_SYMBOL(ib_create_send_mad);

void *ib_get_rmpp_segment(struct ib_mad_send_buf *send_buf, int seg_num)
{
	if (seg_num < 1 || seg_num > send_buf->seg_count)
		return NULL;
	return (u8 *)send_buf->mad + send_buf->hdr_len +
	       (seg_num - 1) * send_buf->seg_size;
}
EXPORT_SYMBOL(ib_get_rmpp_segment);

void ib_free_send_mad(struct ib_mad_send_buf *send_buf)
{
	struct mad_send_wr *sw;

	if (!send_buf)
		return;
	sw = to_send_wr(send_buf);
	if (WARN_ON_ONCE(sw->posted))
		return;
	if (sw->rmpp)
		kvfree(sw->buf.mad);	/* a separate body (ib_create_send_mad) */
	kfree(sw);
}
EXPORT_SYMBOL(ib_free_send_mad);

/* mqp->sq_lock held: hands sw's wire buffer to the QP */
static int mad_sq_post(struct mad_qp *mqp, struct mad_send_wr *sw)
{
	struct ib_sge sge = {
		.addr = sw->wire_dma,
		.length = IB_MGMT_MAD_SIZE,
		.lkey = mqp->port->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_id = (uintptr_t)sw,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		},
		.ah = sw->buf.ah,
		.remote_qpn = sw->remote_qpn,
		.remote_qkey = mqp->type == IB_QPT_GSI ? IB_QP1_QKEY : 0,
		.pkey_index = sw->pkey_index,
	};
	int ret;

	lockdep_assert_held(&mqp->sq_lock);
	ret = ib_post_send(mqp->qp, &wr.wr, NULL);
	if (!ret)
		mqp->sq_posted++;
	return ret;
}

/* [any] agent lock held: queue or post, as the QP has room */
static int mad_sq_queue(struct mad_qp *mqp, struct mad_send_wr *sw)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&mqp->sq_lock, flags);
	if (mqp->sq_posted < MAD_SEND_MAX && list_empty(&mqp->overflow))
		ret = mad_sq_post(mqp, sw);
	else
		list_add_tail(&sw->qp_entry, &mqp->overflow);
	spin_unlock_irqrestore(&mqp->sq_lock, flags);
	return ret;
}

/*
 * [any] agent lock held: sends the wire buffer (already filled) out, or to
 * local processing.  On error nothing is out.
 */
int mad_xmit(struct mad_send_wr *sw)
{
	struct mad_agent_priv *ap = sw->agent;
	struct device *dd = ap->port->device->dma_device;
	int ret;

	lockdep_assert_held(&ap->lock);
	if (sw->rmpp)
		mad_rmpp_fill_segment(sw, sw->seg_xmit);
	else
		memcpy(sw->wire, sw->buf.mad, IB_MGMT_MAD_SIZE);
	sw->on_wire = true;
	if (sw->local) {
		mad_local_queue(sw);
		return 0;
	}
	sw->wire_dma = dma_map_single(dd, sw->wire, IB_MGMT_MAD_SIZE, DMA_TO_DEVICE);
	if (dma_mapping_error(dd, sw->wire_dma)) {
		sw->on_wire = false;
		return -ENOMEM;
	}
	ret = mad_sq_queue(ap->mqp, sw);
	if (ret) {
		dma_unmap_single(dd, sw->wire_dma, IB_MGMT_MAD_SIZE, DMA_TO_DEVICE);
		sw->on_wire = false;
	}
	return ret;
}

/*
 * [any] agent lock held: the send is finished; its event goes to the
 * agent with the reference the post took.
 */
void mad_send_complete(struct mad_send_wr *sw, enum ib_wc_status status)
{
	struct mad_agent_priv *ap = sw->agent;

	lockdep_assert_held(&ap->lock);
	if (sw->done || WARN_ON_ONCE(sw->on_wire))
		return;
	sw->done = true;
	sw->timing = false;
	sw->status = status;
	list_del_init(&sw->agent_entry);
	list_add_tail(&sw->ev.entry, &ap->events);
	queue_work(ap->port->wq, &ap->deliver_work);
}

/*
 * agent lock held: is sw a request still waiting for its response?  (A
 * response's timeout_ms only bounds the wait for RMPP ACKs.)
 */
bool mad_send_waits_response(const struct mad_send_wr *sw)
{
	return sw->buf.timeout_ms && !sw->responded &&
	       !ib_response_mad((const struct ib_mad_hdr *)sw->buf.mad);
}

/* [any] the WR (or local processing) of sw is back with status */
void mad_send_sent(struct mad_send_wr *sw, enum ib_wc_status status)
{
	struct mad_agent_priv *ap = sw->agent;
	unsigned long flags;

	if (!sw->local)
		dma_unmap_single(ap->port->device->dma_device, sw->wire_dma,
				 IB_MGMT_MAD_SIZE, DMA_TO_DEVICE);
	spin_lock_irqsave(&ap->lock, flags);
	sw->on_wire = false;
	if (sw->status != IB_WC_SUCCESS)	/* canceled meanwhile */
		mad_send_complete(sw, sw->status);
	else if (status != IB_WC_SUCCESS)
		mad_send_complete(sw, status);
	else if (sw->rmpp && !sw->rmpp_acked)
		mad_rmpp_send_sent(sw);
	else if (!mad_send_waits_response(sw))
		mad_send_complete(sw, IB_WC_SUCCESS);
	else
		mad_timing_start(sw, sw->buf.timeout_ms);
	spin_unlock_irqrestore(&ap->lock, flags);
}

/* [sleep] CQ work: a send WR of mqp completed; refill the QP from overflow */
void mad_sq_done(struct mad_qp *mqp, struct mad_send_wr *sw)
{
	struct mad_send_wr *next, *tmp;
	LIST_HEAD(failed);

	spin_lock_irq(&mqp->sq_lock);
	mqp->sq_posted--;
	while (mqp->sq_posted < MAD_SEND_MAX &&
	       (next = list_first_entry_or_null(&mqp->overflow, struct mad_send_wr,
						qp_entry))) {
		list_del_init(&next->qp_entry);
		if (mad_sq_post(mqp, next))
			list_add_tail(&next->qp_entry, &failed);
	}
	spin_unlock_irq(&mqp->sq_lock);

	list_for_each_entry_safe(next, tmp, &failed, qp_entry) {
		list_del_init(&next->qp_entry);
		mad_send_sent(next, IB_WC_LOC_QP_OP_ERR);
	}
}

static int mad_post_one(struct mad_send_wr *sw)
{
	struct mad_agent_priv *ap = sw->agent;
	struct ib_mad_hdr *hdr = sw->buf.mad;
	struct ib_smp *smp = sw->buf.mad;
	unsigned long flags;
	u64 tid;
	int ret;

	if (!sw->buf.ah || !ap->agent.send_handler)
		return -EINVAL;
	/* a response is only waited for by an agent that can receive it */
	if (sw->buf.timeout_ms && !ap->agent.recv_handler)
		return -EINVAL;
	/* an RMPP agent sends only classes that carry the RMPP header */
	if (ap->agent.rmpp_version && !ib_is_mad_class_rmpp(hdr->mgmt_class))
		return -EINVAL;
	if (mad_class_is_smp(hdr->mgmt_class) != mad_qp_type_is_smi(ap->mqp->type))
		return -EINVAL;
	/*
	 * umad hands both over from u32s: what reads as negative here (2^31
	 * or more) is, as in 6.1, a wait and a retry count without end.
	 */
	if (sw->buf.timeout_ms < 0)
		sw->buf.timeout_ms = INT_MAX;
	if (sw->buf.retries < 0)
		sw->buf.retries = INT_MAX;
	/* RMPP ACK/STOP/ABORT carry the TID of the message they control */
	if (!ib_response_mad(hdr) && !mad_rmpp_is_ctl(hdr)) {
		tid = (be64_to_cpu(hdr->tid) & 0xffffffffULL) |
		      ((u64)ap->agent.hi_tid << 32);
		hdr->tid = cpu_to_be64(tid);
	}
	sw->local = false;
	if (hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
		bool out = !(smp->status & IB_SMP_DIRECTION);

		if ((out ? smp->dr_slid : smp->dr_dlid) == IB_LID_PERMISSIVE &&
		    mad_smi_send(smp, ap->port->port_num) == MAD_SMI_DISCARD) {
			mad_dbg_rl("port %u: DR SMP refused (hop %u/%u)\n",
				   ap->port->port_num, smp->hop_ptr, smp->hop_cnt);
			return -EINVAL;
		}
		sw->local = mad_smi_is_local(smp) || mad_smi_returning(smp);
	}

	spin_lock_irqsave(&ap->lock, flags);
	if (ap->dying || sw->posted) {
		ret = ap->dying ? -ENODEV : -EINVAL;
		goto out;
	}
	sw->posted = true;
	sw->done = false;
	sw->timing = false;
	sw->responded = false;
	sw->status = IB_WC_SUCCESS;
	/* from here on buf.retries counts the retries made, as upstream's */
	sw->max_retries = sw->buf.retries;
	sw->retries_left = sw->max_retries;
	sw->buf.retries = 0;
	sw->seg_xmit = 1;
	if (sw->rmpp) {
		ret = mad_rmpp_send_start(sw);
		if (ret)
			goto err;
	}
	list_add_tail(&sw->agent_entry, &ap->sends);
	mad_agent_get(ap);
	ret = mad_xmit(sw);
	if (!ret)
		goto out;
	list_del_init(&sw->agent_entry);
	mad_agent_put(ap);
err:
	sw->posted = false;
out:
	spin_unlock_irqrestore(&ap->lock, flags);
	return ret;
}

int ib_post_send_mad(struct ib_mad_send_buf *send_buf,
		     struct ib_mad_send_buf **bad_send_buf)
{
	struct ib_mad_send_buf *buf, *next;
	int ret = 0;

	for (buf = send_buf; buf; buf = next) {
		/*
		 * Once posted, buf belongs to the completion path: its send
		 * handler may free it before mad_post_one() even returns here.
		 */
		next = buf->next;
		ret = buf->mad_agent ? mad_post_one(to_send_wr(buf)) : -EINVAL;
		if (ret)
			break;
	}
	if (ret && bad_send_buf)
		*bad_send_buf = buf;
	return ret;
}
EXPORT_SYMBOL(ib_post_send_mad);

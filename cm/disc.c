// SPDX-License-Identifier: GPL-2.0
/*
 * Connection release (IBA 12.6.10, 12.6.11, 12.9.7): DREQ and DREP, sent
 * and received.  Either side may send a DREQ, both at once too; each side
 * ends in time wait, which the DREP (or the DREQ's last retry) starts.
 */
#include <linux/slab.h>
#include "cm_priv.h"

int ib_send_cm_dreq(struct ib_cm_id *cm_id, const void *private_data, u8 private_data_len)
{
	struct cm_id_private *cm_id_priv = to_cm_id_priv(cm_id);
	struct ib_mad_send_buf *msg;
	unsigned long flags;
	u8 *d;
	int ret;

	if (private_data_len > IB_CM_DREQ_PRIVATE_DATA_SIZE)
		return -EINVAL;
	msg = cm_alloc_msg(cm_id_priv);

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	if (cm_id->state != IB_CM_ESTABLISHED) {
		ret = -EINVAL;
		goto out;
	}
	if ((cm_id->lap_state == IB_CM_LAP_SENT || cm_id->lap_state == IB_CM_MRA_LAP_RCVD) &&
	    cm_id_priv->msg)
		ib_cancel_mad(cm_id_priv->msg);
	if (IS_ERR(msg)) {
		/* no DREQ can go: the connection ends here */
		ret = PTR_ERR(msg);
		cm_enter_timewait(cm_id_priv);
		goto out;
	}
	cm_format_hdr(msg, CM_DREQ_ATTR_ID,
		      cpu_to_be64(((u64)msg->mad_agent->hi_tid << 32) |
				  be32_to_cpu(cm_id->local_id)));
	d = cm_data(msg);
	cm_set(d, CM_DREQ_LOCAL_COMM_ID, be32_to_cpu(cm_id->local_id));
	cm_set(d, CM_DREQ_REMOTE_COMM_ID, be32_to_cpu(cm_id->remote_id));
	cm_set(d, CM_DREQ_REMOTE_QPN, be32_to_cpu(cm_id_priv->remote_qpn));
	if (private_data_len)
		memcpy(d + CM_DREQ_PRIVATE_DATA_BYTE, private_data, private_data_len);
	msg->timeout_ms = cm_id_priv->timeout_ms;
	msg->retries = cm_id_priv->max_cm_retries;
	ret = ib_post_send_mad(msg, NULL);
	if (ret) {
		cm_enter_timewait(cm_id_priv);
		goto out;
	}
	cm_id_priv->msg = msg;
	msg = NULL;
	cm_id->state = IB_CM_DREQ_SENT;
out:
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	if (!IS_ERR_OR_NULL(msg))
		cm_free_msg(msg);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_dreq);

static void cm_format_drep(struct cm_id_private *cm_id_priv, struct ib_mad_send_buf *msg,
			   const void *private_data, u8 private_data_len)
{
	u8 *d = cm_data(msg);

	cm_format_hdr(msg, CM_DREP_ATTR_ID, cm_id_priv->tid);
	cm_set(d, CM_DREP_LOCAL_COMM_ID, be32_to_cpu(cm_id_priv->id.local_id));
	cm_set(d, CM_DREP_REMOTE_COMM_ID, be32_to_cpu(cm_id_priv->id.remote_id));
	if (private_data_len)
		memcpy(d + CM_DREP_PRIVATE_DATA_BYTE, private_data, private_data_len);
}

int ib_send_cm_drep(struct ib_cm_id *cm_id, const void *private_data, u8 private_data_len)
{
	struct cm_id_private *cm_id_priv = to_cm_id_priv(cm_id);
	struct ib_mad_send_buf *msg;
	unsigned long flags;
	void *data = NULL;
	int ret;

	if (private_data_len > IB_CM_DREP_PRIVATE_DATA_SIZE)
		return -EINVAL;
	if (private_data_len) {
		data = kmemdup(private_data, private_data_len, GFP_KERNEL);
		if (!data)
			return -ENOMEM;
	}
	msg = cm_alloc_msg(cm_id_priv);

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	if (cm_id->state != IB_CM_DREQ_RCVD) {
		ret = -EINVAL;
		goto out;
	}
	/* kept for a duplicate DREQ's DREP; time wait whether this one goes or not */
	swap(cm_id_priv->reply_data, data);
	cm_id_priv->reply_data_len = private_data_len;
	cm_enter_timewait(cm_id_priv);
	if (IS_ERR(msg)) {
		ret = PTR_ERR(msg);
		goto out;
	}
	cm_format_drep(cm_id_priv, msg, private_data, private_data_len);
	ret = ib_post_send_mad(msg, NULL);
	if (!ret)
		msg = NULL;
out:
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	if (!IS_ERR_OR_NULL(msg))
		cm_free_msg(msg);
	kfree(data);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_drep);

/* [cm.wq] A DREQ: the peer releases the connection. */
void cm_dreq_handler(struct cm_work *work)
{
	const u8 *d = (const u8 *)work->mad_recv_wc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct ib_cm_event event = { .event = IB_CM_DREQ_RECEIVED };
	struct cm_id_private *cm_id_priv;
	struct ib_mad_send_buf *msg;
	unsigned long flags;
	bool ok = false;

	cm_id_priv = cm_id_acquire(cpu_to_be32(cm_get(d, CM_DREQ_REMOTE_COMM_ID)),
				   cpu_to_be32(cm_get(d, CM_DREQ_LOCAL_COMM_ID)));
	if (!cm_id_priv) {
		/* a connection we no longer know: DREP anyway, so the peer ends too */
		cm_count(work->port, CM_RECV_DUPLICATES, CM_DREQ_ATTR_ID, 1);
		cm_issue_drep(work->port, work->mad_recv_wc);
		return;
	}
	event.private_data = (u8 *)d + CM_DREQ_PRIVATE_DATA_BYTE;

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	/* a DREQ for another QP of ours is not for this connection */
	if (cm_id_priv->local_qpn != cpu_to_be32(cm_get(d, CM_DREQ_REMOTE_QPN)))
		goto unlock;
	switch (cm_id_priv->id.state) {
	case IB_CM_REP_SENT:
	case IB_CM_DREQ_SENT:
	case IB_CM_MRA_REP_RCVD:
		if (cm_id_priv->msg)
			ib_cancel_mad(cm_id_priv->msg);
		break;
	case IB_CM_ESTABLISHED:
		if ((cm_id_priv->id.lap_state == IB_CM_LAP_SENT ||
		     cm_id_priv->id.lap_state == IB_CM_MRA_LAP_RCVD) && cm_id_priv->msg)
			ib_cancel_mad(cm_id_priv->msg);
		break;
	case IB_CM_TIMEWAIT:
		/* our DREP was lost: again, with what it carried */
		cm_count(work->port, CM_RECV_DUPLICATES, CM_DREQ_ATTR_ID, 1);
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		msg = cm_alloc_response(work->port, work->mad_recv_wc);
		if (!IS_ERR(msg)) {
			spin_lock_irqsave(&cm_id_priv->lock, flags);
			cm_format_drep(cm_id_priv, msg, cm_id_priv->reply_data,
				       cm_id_priv->reply_data_len);
			spin_unlock_irqrestore(&cm_id_priv->lock, flags);
			cm_post(msg);
		}
		goto put;
	case IB_CM_DREQ_RCVD:
		cm_count(work->port, CM_RECV_DUPLICATES, CM_DREQ_ATTR_ID, 1);
		goto unlock;
	default:
		goto unlock;
	}
	cm_id_priv->id.state = IB_CM_DREQ_RCVD;
	cm_id_priv->tid = work->mad_recv_wc->recv_buf.mad->mad_hdr.tid;
	ok = true;
unlock:
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	if (ok) {
		cm_deliver(cm_id_priv, &event);
		return;
	}
put:
	cm_id_put(cm_id_priv);
}

/* [cm.wq] The DREP to our DREQ (or crossing our DREP): time wait. */
void cm_drep_handler(struct cm_work *work)
{
	const u8 *d = (const u8 *)work->mad_recv_wc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct ib_cm_event event = { .event = IB_CM_DREP_RECEIVED };
	struct cm_id_private *cm_id_priv;
	unsigned long flags;

	cm_id_priv = cm_id_acquire(cpu_to_be32(cm_get(d, CM_DREP_REMOTE_COMM_ID)),
				   cpu_to_be32(cm_get(d, CM_DREP_LOCAL_COMM_ID)));
	if (!cm_id_priv)
		return;
	spin_lock_irqsave(&cm_id_priv->lock, flags);
	if (cm_id_priv->id.state != IB_CM_DREQ_SENT &&
	    cm_id_priv->id.state != IB_CM_DREQ_RCVD) {
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		cm_id_put(cm_id_priv);
		return;
	}
	cm_enter_timewait(cm_id_priv);
	if (cm_id_priv->msg)
		ib_cancel_mad(cm_id_priv->msg);
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	event.private_data = (u8 *)d + CM_DREP_PRIVATE_DATA_BYTE;
	cm_deliver(cm_id_priv, &event);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Message receipt acknowledgment (IBA 12.6.6): a consumer that needs time
 * to answer a REQ, REP or LAP sends an MRA, and the peer then waits that
 * much longer before it resends.  With IB_CM_MRA_FLAG_DELAY the MRA goes
 * out only if the peer resends anyway (a duplicate arrives).
 */
#include <linux/slab.h>
#include "cm_priv.h"

static void cm_format_mra(struct cm_id_private *cm_id_priv, struct ib_mad_send_buf *msg,
			  enum cm_msg_response mraed, u8 service_timeout,
			  const void *private_data, u8 private_data_len)
{
	u8 *d = cm_data(msg);

	cm_format_hdr(msg, CM_MRA_ATTR_ID, cm_id_priv->tid);
	cm_set(d, CM_MRA_LOCAL_COMM_ID, be32_to_cpu(cm_id_priv->id.local_id));
	cm_set(d, CM_MRA_REMOTE_COMM_ID, be32_to_cpu(cm_id_priv->id.remote_id));
	cm_set(d, CM_MRA_MESSAGE_MRAED, mraed);
	cm_set(d, CM_MRA_SERVICE_TIMEOUT, service_timeout);
	if (private_data_len)
		memcpy(d + CM_MRA_PRIVATE_DATA_BYTE, private_data, private_data_len);
}

static enum cm_msg_response cm_mraed(struct cm_id_private *cm_id_priv)
{
	switch (cm_id_priv->id.state) {
	case IB_CM_MRA_REQ_SENT:
		return CM_MSG_RESPONSE_REQ;
	case IB_CM_MRA_REP_SENT:
		return CM_MSG_RESPONSE_REP;
	default:
		return CM_MSG_RESPONSE_OTHER;
	}
}

int ib_send_cm_mra(struct ib_cm_id *cm_id, u8 service_timeout, const void *private_data,
		   u8 private_data_len)
{
	struct cm_id_private *cm_id_priv = to_cm_id_priv(cm_id);
	struct ib_mad_send_buf *msg = NULL;
	enum ib_cm_lap_state lap_state;
	enum ib_cm_state state;
	unsigned long flags;
	void *data = NULL;
	int ret;

	if (private_data_len > IB_CM_MRA_PRIVATE_DATA_SIZE)
		return -EINVAL;
	if (private_data_len) {
		data = kmemdup(private_data, private_data_len, GFP_KERNEL);
		if (!data)
			return -ENOMEM;
	}
	if (!(service_timeout & IB_CM_MRA_FLAG_DELAY)) {
		msg = cm_alloc_msg(cm_id_priv);
		if (IS_ERR(msg)) {
			kfree(data);
			return PTR_ERR(msg);
		}
	}

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	lap_state = cm_id->lap_state;
	switch (cm_id->state) {
	case IB_CM_REQ_RCVD:
		state = IB_CM_MRA_REQ_SENT;
		break;
	case IB_CM_REP_RCVD:
		state = IB_CM_MRA_REP_SENT;
		break;
	case IB_CM_ESTABLISHED:
		if (cm_id->lap_state == IB_CM_LAP_RCVD) {
			state = IB_CM_ESTABLISHED;
			lap_state = IB_CM_MRA_LAP_SENT;
			break;
		}
		fallthrough;
	default:
		ret = -EINVAL;
		goto err;
	}
	cm_id->state = state;
	cm_id->lap_state = lap_state;
	cm_id_priv->service_timeout = service_timeout;
	swap(cm_id_priv->reply_data, data);
	cm_id_priv->reply_data_len = private_data_len;
	if (msg) {
		cm_format_mra(cm_id_priv, msg, cm_mraed(cm_id_priv), service_timeout,
			      private_data, private_data_len);
		ret = ib_post_send_mad(msg, NULL);
		if (!ret)
			msg = NULL;
		else	/* the state stands: a duplicate has the MRA sent again */
			cm_warn_rl("cm_id 0x%x: MRA not sent (%d)\n",
				   be32_to_cpu(cm_id->local_id), ret);
	}
	ret = 0;
err:
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	if (msg)
		cm_free_msg(msg);
	kfree(data);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_mra);

/* [cm.wq] The MRA again, for a duplicate of the message it acknowledged. */
void cm_resend_mra(struct cm_id_private *cm_id_priv, struct ib_mad_recv_wc *rwc)
{
	struct ib_mad_send_buf *msg = cm_alloc_response(cm_id_priv->av.port, rwc);
	unsigned long flags;

	if (IS_ERR(msg))
		return;
	spin_lock_irqsave(&cm_id_priv->lock, flags);
	cm_format_mra(cm_id_priv, msg, cm_mraed(cm_id_priv),
		      cm_id_priv->service_timeout & ~IB_CM_MRA_FLAG_DELAY,
		      cm_id_priv->reply_data, cm_id_priv->reply_data_len);
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	cm_post(msg);
}

/* [cm.wq] An MRA for our REQ, REP or LAP: wait longer for the answer. */
void cm_mra_handler(struct cm_work *work)
{
	const u8 *d = (const u8 *)work->mad_recv_wc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct ib_cm_event event = { .event = IB_CM_MRA_RECEIVED };
	enum cm_msg_response mraed = cm_get(d, CM_MRA_MESSAGE_MRAED);
	struct cm_id_private *cm_id_priv;
	unsigned long flags;
	bool ok = false;
	int timeout;

	/* an MRA of a REQ comes before we know the peer's ID */
	cm_id_priv = cm_id_acquire(cpu_to_be32(cm_get(d, CM_MRA_REMOTE_COMM_ID)),
				   mraed == CM_MSG_RESPONSE_REQ ? 0 :
				   cpu_to_be32(cm_get(d, CM_MRA_LOCAL_COMM_ID)));
	if (!cm_id_priv)
		return;
	event.param.mra_rcvd.service_timeout = cm_get(d, CM_MRA_SERVICE_TIMEOUT);
	event.private_data = (u8 *)d + CM_MRA_PRIVATE_DATA_BYTE;

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	timeout = cm_convert_to_ms(cm_get(d, CM_MRA_SERVICE_TIMEOUT)) +
		  cm_convert_to_ms(cm_id_priv->av.timeout);
	switch (cm_id_priv->id.state) {
	case IB_CM_REQ_SENT:
		if (mraed != CM_MSG_RESPONSE_REQ || !cm_id_priv->msg ||
		    ib_modify_mad(cm_id_priv->msg, timeout))
			break;
		cm_id_priv->id.state = IB_CM_MRA_REQ_RCVD;
		ok = true;
		break;
	case IB_CM_REP_SENT:
		if (mraed != CM_MSG_RESPONSE_REP || !cm_id_priv->msg ||
		    ib_modify_mad(cm_id_priv->msg, timeout))
			break;
		cm_id_priv->id.state = IB_CM_MRA_REP_RCVD;
		ok = true;
		break;
	case IB_CM_MRA_REQ_RCVD:
	case IB_CM_MRA_REP_RCVD:
		cm_count(work->port, CM_RECV_DUPLICATES, CM_MRA_ATTR_ID, 1);
		break;
	case IB_CM_ESTABLISHED:
		if (cm_id_priv->id.lap_state == IB_CM_MRA_LAP_RCVD)
			cm_count(work->port, CM_RECV_DUPLICATES, CM_MRA_ATTR_ID, 1);
		break;
	default:
		break;
	}
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	if (ok)
		cm_deliver(cm_id_priv, &event);
	else
		cm_id_put(cm_id_priv);
}

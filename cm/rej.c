// SPDX-License-Identifier: GPL-2.0
/*
 * Rejection (IBA 12.6.7): REJ sent and received, and the text of each
 * reason.  Rejecting a REQ or a REP we received, or our REQ, leaves the
 * cm_id idle; rejecting after our REP went out (the connection may be in
 * use by the peer already) goes through time wait.
 */
#include <linux/slab.h>
#include "cm_priv.h"

static const char * const cm_rej_reasons[] = {
	[IB_CM_REJ_NO_QP]			= "no QP",
	[IB_CM_REJ_NO_EEC]			= "no EEC",
	[IB_CM_REJ_NO_RESOURCES]		= "no resources",
	[IB_CM_REJ_TIMEOUT]			= "timeout",
	[IB_CM_REJ_UNSUPPORTED]			= "unsupported",
	[IB_CM_REJ_INVALID_COMM_ID]		= "invalid comm ID",
	[IB_CM_REJ_INVALID_COMM_INSTANCE]	= "invalid comm instance",
	[IB_CM_REJ_INVALID_SERVICE_ID]		= "invalid service ID",
	[IB_CM_REJ_INVALID_TRANSPORT_TYPE]	= "invalid transport type",
	[IB_CM_REJ_STALE_CONN]			= "stale conn",
	[IB_CM_REJ_RDC_NOT_EXIST]		= "RDC not exist",
	[IB_CM_REJ_INVALID_GID]			= "invalid GID",
	[IB_CM_REJ_INVALID_LID]			= "invalid LID",
	[IB_CM_REJ_INVALID_SL]			= "invalid SL",
	[IB_CM_REJ_INVALID_TRAFFIC_CLASS]	= "invalid traffic class",
	[IB_CM_REJ_INVALID_HOP_LIMIT]		= "invalid hop limit",
	[IB_CM_REJ_INVALID_PACKET_RATE]		= "invalid packet rate",
	[IB_CM_REJ_INVALID_ALT_GID]		= "invalid alt GID",
	[IB_CM_REJ_INVALID_ALT_LID]		= "invalid alt LID",
	[IB_CM_REJ_INVALID_ALT_SL]		= "invalid alt SL",
	[IB_CM_REJ_INVALID_ALT_TRAFFIC_CLASS]	= "invalid alt traffic class",
	[IB_CM_REJ_INVALID_ALT_HOP_LIMIT]	= "invalid alt hop limit",
	[IB_CM_REJ_INVALID_ALT_PACKET_RATE]	= "invalid alt packet rate",
	[IB_CM_REJ_PORT_CM_REDIRECT]		= "port CM redirect",
	[IB_CM_REJ_PORT_REDIRECT]		= "port redirect",
	[IB_CM_REJ_INVALID_MTU]			= "invalid MTU",
	[IB_CM_REJ_INSUFFICIENT_RESP_RESOURCES]	= "insufficient resp resources",
	[IB_CM_REJ_CONSUMER_DEFINED]		= "consumer defined",
	[IB_CM_REJ_INVALID_RNR_RETRY]		= "invalid RNR retry",
	[IB_CM_REJ_DUPLICATE_LOCAL_COMM_ID]	= "duplicate local comm ID",
	[IB_CM_REJ_INVALID_CLASS_VERSION]	= "invalid class version",
	[IB_CM_REJ_INVALID_FLOW_LABEL]		= "invalid flow label",
	[IB_CM_REJ_INVALID_ALT_FLOW_LABEL]	= "invalid alt flow label",
	[IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED]	= "vendor option is not supported",
};

const char *__attribute_const__ ibcm_reject_msg(int reason)
{
	if (reason >= 0 && reason < ARRAY_SIZE(cm_rej_reasons) && cm_rej_reasons[reason])
		return cm_rej_reasons[reason];
	return "unrecognized reason";
}
EXPORT_SYMBOL(ibcm_reject_msg);

/* The cm_id leaves the connection attempt; its remote IDs leave the tables. */
static void cm_reset_to_idle(struct cm_id_private *cm_id_priv)
{
	struct cm_timewait_info *tw = cm_id_priv->timewait_info;
	unsigned long flags;

	lockdep_assert_held(&cm_id_priv->lock);
	cm_id_priv->id.state = IB_CM_IDLE;
	if (!tw)
		return;
	cm_id_priv->timewait_info = NULL;
	spin_lock_irqsave(&cm.lock, flags);
	cm_remote_tables_remove(tw);
	spin_unlock_irqrestore(&cm.lock, flags);
	kfree(tw);
}

int ib_send_cm_rej(struct ib_cm_id *cm_id, enum ib_cm_rej_reason reason, void *ari,
		   u8 ari_length, const void *private_data, u8 private_data_len)
{
	struct cm_id_private *cm_id_priv = to_cm_id_priv(cm_id);
	enum cm_msg_response rejected = CM_MSG_RESPONSE_OTHER;
	struct ib_mad_send_buf *msg;
	unsigned long flags;
	u32 local_id;
	u8 *d;
	int ret;

	if (private_data_len > IB_CM_REJ_PRIVATE_DATA_SIZE ||
	    (ari && ari_length > IB_CM_REJ_ARI_LENGTH))
		return -EINVAL;
	msg = cm_alloc_msg(cm_id_priv);
	if (IS_ERR(msg))
		return PTR_ERR(msg);

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	local_id = be32_to_cpu(cm_id->local_id);
	switch (cm_id->state) {
	case IB_CM_REQ_RCVD:
		local_id = 0;	/* the peer has not learnt it */
		fallthrough;
	case IB_CM_MRA_REQ_SENT:
		rejected = CM_MSG_RESPONSE_REQ;
		fallthrough;
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		cm_reset_to_idle(cm_id_priv);
		break;
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
		rejected = CM_MSG_RESPONSE_REP;
		cm_reset_to_idle(cm_id_priv);
		break;
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		if (cm_id_priv->msg)
			ib_cancel_mad(cm_id_priv->msg);
		cm_enter_timewait(cm_id_priv);
		break;
	default:
		ret = -EINVAL;
		goto err;
	}
	cm_format_hdr(msg, CM_REJ_ATTR_ID, cm_id_priv->tid);
	d = cm_data(msg);
	cm_set(d, CM_REJ_LOCAL_COMM_ID, local_id);
	cm_set(d, CM_REJ_REMOTE_COMM_ID, be32_to_cpu(cm_id->remote_id));
	cm_set(d, CM_REJ_MESSAGE_REJECTED, rejected);
	cm_set(d, CM_REJ_REASON, reason);
	if (ari && ari_length) {
		cm_set(d, CM_REJ_ARI_LENGTH, ari_length);
		memcpy(d + CM_REJ_ARI_BYTE, ari, ari_length);
	}
	if (private_data_len)
		memcpy(d + CM_REJ_PRIVATE_DATA_BYTE, private_data, private_data_len);
	ret = ib_post_send_mad(msg, NULL);
	if (ret)
		goto err;
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	return 0;
err:
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	cm_free_msg(msg);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rej);

/*
 * The cm_id a REJ is for.  A timeout REJ (the peer gave up on our REP or
 * REQ) names us by the CA GUID in its ARI and our remote ID; a REJ of our
 * REQ comes before we know the peer's ID.
 */
static struct cm_id_private *cm_rejected_id(const u8 *d)
{
	__be32 remote_id = cpu_to_be32(cm_get(d, CM_REJ_LOCAL_COMM_ID));
	__be32 local_id = cpu_to_be32(cm_get(d, CM_REJ_REMOTE_COMM_ID));

	if (cm_get(d, CM_REJ_REASON) == IB_CM_REJ_TIMEOUT)
		return cm_find_remote_id(cm_get64(d, CM_REJ_ARI_BYTE), remote_id);
	if (cm_get(d, CM_REJ_MESSAGE_REJECTED) == CM_MSG_RESPONSE_REQ)
		return cm_id_acquire(local_id, 0);
	return cm_id_acquire(local_id, remote_id);
}

/* [cm.wq] A REJ of our REQ or REP, or of the connection. */
void cm_rej_handler(struct cm_work *work)
{
	const u8 *d = (const u8 *)work->mad_recv_wc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct ib_cm_event event = { .event = IB_CM_REJ_RECEIVED };
	enum ib_cm_rej_reason reason = cm_get(d, CM_REJ_REASON);
	struct cm_id_private *cm_id_priv;
	unsigned long flags;
	bool ok = true;

	cm_id_priv = cm_rejected_id(d);
	if (!cm_id_priv)
		return;
	event.param.rej_rcvd.reason = reason;
	event.param.rej_rcvd.ari = (u8 *)d + CM_REJ_ARI_BYTE;
	event.param.rej_rcvd.ari_length = cm_get(d, CM_REJ_ARI_LENGTH);
	event.private_data = (u8 *)d + CM_REJ_PRIVATE_DATA_BYTE;

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	switch (cm_id_priv->id.state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		if (cm_id_priv->msg)
			ib_cancel_mad(cm_id_priv->msg);
		fallthrough;
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
		if (reason == IB_CM_REJ_STALE_CONN)
			cm_enter_timewait(cm_id_priv);
		else
			cm_reset_to_idle(cm_id_priv);
		break;
	case IB_CM_DREQ_SENT:
		if (cm_id_priv->msg)
			ib_cancel_mad(cm_id_priv->msg);
		fallthrough;
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
		cm_enter_timewait(cm_id_priv);
		break;
	case IB_CM_ESTABLISHED:
		if (cm_id_priv->id.lap_state == IB_CM_LAP_UNINIT ||
		    cm_id_priv->id.lap_state == IB_CM_LAP_SENT) {
			if (cm_id_priv->id.lap_state == IB_CM_LAP_SENT && cm_id_priv->msg)
				ib_cancel_mad(cm_id_priv->msg);
			cm_enter_timewait(cm_id_priv);
			break;
		}
		fallthrough;
	default:
		ok = false;
		break;
	}
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	if (ok)
		cm_deliver(cm_id_priv, &event);
	else
		cm_id_put(cm_id_priv);
}

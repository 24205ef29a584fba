// SPDX-License-Identifier: GPL-2.0
/*
 * Alternate path loading (IBA 12.6.12, 12.6.13, 12.8): Linux 6.1 no longer
 * sends LAP or APR, but it takes a peer's LAP on an established connection
 * to its consumer (IB_CM_LAP_RECEIVED, with the new alternate path, which
 * also becomes the cm_id's alternate AV) and acknowledges a duplicate LAP
 * with the MRA it sent.  An APR only answers a LAP we sent: never.
 */
#include <linux/slab.h>
#include "cm_priv.h"

/* The passive side's view of the alternate path a LAP carries. */
static void cm_get_lap_path(const u8 *d, struct cm_id_private *cm_id_priv,
			    struct sa_path_rec *path)
{
	unsigned int off = CM_LAP_PATH_BYTE;
	u8 ack = cm_get(d, CM_LAP_LOCAL_ACK_TIMEOUT);

	memset(path, 0, sizeof(*path));
	path->rec_type = SA_PATH_REC_TYPE_IB;
	memcpy(path->dgid.raw, d + CM_PATH_LOCAL_GID_BYTE(off), sizeof(path->dgid.raw));
	memcpy(path->sgid.raw, d + CM_PATH_REMOTE_GID_BYTE(off), sizeof(path->sgid.raw));
	sa_path_set_dlid(path, cm_get(d, CM_PATH_LOCAL_LID(off)));
	sa_path_set_slid(path, cm_get(d, CM_PATH_REMOTE_LID(off)));
	path->flow_label = cpu_to_be32(cm_get(d, CM_PATH_FLOW_LABEL(off)));
	path->hop_limit = cm_get(d, CM_LAP_HOP_LIMIT);
	path->traffic_class = cm_get(d, CM_LAP_TRAFFIC_CLASS);
	path->reversible = 1;
	path->numb_path = 1;
	path->pkey = cm_id_priv->pkey;
	path->sl = cm_get(d, CM_LAP_SL);
	path->mtu_selector = IB_SA_EQ;
	path->mtu = cm_id_priv->path_mtu;
	path->rate_selector = IB_SA_EQ;
	path->rate = cm_get(d, CM_LAP_PACKET_RATE);
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = ack ? ack - 1 : 0;
}

/* [cm.wq] A LAP on an established connection. */
void cm_lap_handler(struct cm_work *work)
{
	struct ib_mad_recv_wc *rwc = work->mad_recv_wc;
	const u8 *d = (const u8 *)rwc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct ib_cm_event event = { .event = IB_CM_LAP_RECEIVED };
	struct cm_id_private *cm_id_priv;
	struct cm_av alt_av = {};
	enum ib_cm_lap_state lap_state;
	unsigned long flags;

	cm_id_priv = cm_id_acquire(cpu_to_be32(cm_get(d, CM_LAP_REMOTE_COMM_ID)),
				   cpu_to_be32(cm_get(d, CM_LAP_LOCAL_COMM_ID)));
	if (!cm_id_priv)
		return;

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	lap_state = cm_id_priv->id.lap_state;
	if (cm_id_priv->id.state != IB_CM_ESTABLISHED) {
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		goto put;
	}
	cm_get_lap_path(d, cm_id_priv, &work->path[0]);
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);

	switch (lap_state) {
	case IB_CM_LAP_UNINIT:
	case IB_CM_LAP_IDLE:
		break;
	case IB_CM_MRA_LAP_SENT:
		cm_count(work->port, CM_RECV_DUPLICATES, CM_LAP_ATTR_ID, 1);
		cm_resend_mra(cm_id_priv, rwc);
		goto put;
	case IB_CM_LAP_RCVD:
		cm_count(work->port, CM_RECV_DUPLICATES, CM_LAP_ATTR_ID, 1);
		goto put;
	default:
		goto put;
	}
	if (cm_init_av_by_path(&work->path[0], &alt_av, cm_id_priv->id.device))
		goto put;

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	if (cm_id_priv->id.state != IB_CM_ESTABLISHED ||
	    cm_id_priv->id.lap_state != lap_state) {
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		cm_av_put(&alt_av);
		goto put;
	}
	cm_id_priv->id.lap_state = IB_CM_LAP_RCVD;
	cm_id_priv->tid = rwc->recv_buf.mad->mad_hdr.tid;
	alt_av.timeout = cm_get(d, CM_LAP_LOCAL_ACK_TIMEOUT);
	swap(cm_id_priv->alt_av, alt_av);
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	cm_av_put(&alt_av);

	event.param.lap_rcvd.alternate_path = &work->path[0];
	event.private_data = (u8 *)d + CM_LAP_PRIVATE_DATA_BYTE;
	cm_deliver(cm_id_priv, &event);
	return;
put:
	cm_id_put(cm_id_priv);
}

/* [cm.wq] An APR: only ever the answer to a LAP of ours, and we send none. */
void cm_apr_handler(struct cm_work *work)
{
	const u8 *d = (const u8 *)work->mad_recv_wc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct ib_cm_event event = { .event = IB_CM_APR_RECEIVED };
	struct cm_id_private *cm_id_priv;
	unsigned long flags;
	bool ok = false;

	cm_id_priv = cm_id_acquire(cpu_to_be32(cm_get(d, CM_APR_REMOTE_COMM_ID)),
				   cpu_to_be32(cm_get(d, CM_APR_LOCAL_COMM_ID)));
	if (!cm_id_priv)
		return;
	spin_lock_irqsave(&cm_id_priv->lock, flags);
	if (cm_id_priv->id.state == IB_CM_ESTABLISHED &&
	    (cm_id_priv->id.lap_state == IB_CM_LAP_SENT ||
	     cm_id_priv->id.lap_state == IB_CM_MRA_LAP_RCVD)) {
		cm_id_priv->id.lap_state = IB_CM_LAP_IDLE;
		if (cm_id_priv->msg)
			ib_cancel_mad(cm_id_priv->msg);
		ok = true;
	}
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	if (!ok) {
		cm_id_put(cm_id_priv);
		return;
	}
	event.param.apr_rcvd.ap_status = cm_get(d, CM_APR_STATUS);
	event.param.apr_rcvd.apr_info = (u8 *)d + CM_APR_INFO_BYTE;
	event.param.apr_rcvd.info_len = cm_get(d, CM_APR_INFO_LENGTH);
	event.private_data = (u8 *)d + CM_APR_PRIVATE_DATA_BYTE;
	cm_deliver(cm_id_priv, &event);
}

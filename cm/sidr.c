// SPDX-License-Identifier: GPL-2.0
/*
 * Service ID resolution (IBA 12.11): a SIDR REQ asks which UD QP (and
 * Q_Key) serves a service ID; the listener of that ID answers with a SIDR
 * REP.  The request ID is the asker's local ID; the answerer knows a
 * request by (request ID, the asker's LID), which catches duplicates.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include "cm_priv.h"

int ib_send_cm_sidr_req(struct ib_cm_id *cm_id, struct ib_cm_sidr_req_param *param)
{
	struct cm_id_private *cm_id_priv = to_cm_id_priv(cm_id);
	struct ib_mad_send_buf *msg;
	struct cm_av av = {};
	unsigned long flags;
	__be64 tid;
	u8 *d;
	int ret;

	if (!param->path || param->private_data_len > IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE)
		return -EINVAL;
	ret = cm_init_av_by_path(param->path, &av, cm_id->device);
	if (ret)
		return ret;

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	if (cm_id->state != IB_CM_IDLE) {
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		cm_av_put(&av);
		return -EINVAL;
	}
	swap(cm_id_priv->av, av);
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	cm_av_put(&av);

	msg = cm_alloc_msg(cm_id_priv);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	tid = cpu_to_be64(((u64)msg->mad_agent->hi_tid << 32) | be32_to_cpu(cm_id->local_id));
	cm_format_hdr(msg, CM_SIDR_REQ_ATTR_ID, tid);
	d = cm_data(msg);
	cm_set(d, CM_SIDR_REQ_REQUEST_ID, be32_to_cpu(cm_id->local_id));
	cm_set(d, CM_SIDR_REQ_PKEY, be16_to_cpu(param->path->pkey));
	cm_set64(d, CM_SIDR_REQ_SERVICE_ID_BYTE, param->service_id);
	if (param->private_data_len)
		memcpy(d + CM_SIDR_REQ_PRIVATE_DATA_BYTE, param->private_data,
		       param->private_data_len);
	msg->timeout_ms = param->timeout_ms;
	msg->retries = param->max_cm_retries;

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	if (cm_id->state != IB_CM_IDLE) {
		ret = -EINVAL;
		goto err;
	}
	cm_id->service_id = param->service_id;
	cm_id->remote_id = 0;	/* as for a REQ: the SIDR REP is looked up without one */
	cm_id_priv->tid = tid;
	cm_id_priv->timeout_ms = param->timeout_ms;
	cm_id_priv->max_cm_retries = param->max_cm_retries;
	ret = ib_post_send_mad(msg, NULL);
	if (ret)
		goto err;
	cm_id_priv->msg = msg;
	cm_id->state = IB_CM_SIDR_REQ_SENT;
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	return 0;
err:
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	cm_free_msg(msg);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_sidr_req);

static void cm_format_sidr_rep(struct cm_id_private *cm_id_priv, struct ib_mad_send_buf *msg,
			       struct ib_cm_sidr_rep_param *param)
{
	u8 *d = cm_data(msg);

	cm_format_hdr(msg, CM_SIDR_REP_ATTR_ID, cm_id_priv->tid);
	cm_set(d, CM_SIDR_REP_REQUEST_ID, be32_to_cpu(cm_id_priv->id.remote_id));
	cm_set(d, CM_SIDR_REP_STATUS, param->status);
	cm_set(d, CM_SIDR_REP_QPN, param->qp_num);
	cm_set(d, CM_SIDR_REP_VENDOR_ID_H, param->ece.vendor_id >> 8);
	cm_set(d, CM_SIDR_REP_VENDOR_ID_L, param->ece.vendor_id & 0xff);
	cm_set64(d, CM_SIDR_REP_SERVICE_ID_BYTE, cm_id_priv->id.service_id);
	cm_set(d, CM_SIDR_REP_QKEY, param->qkey);
	if (param->info && param->info_length) {
		cm_set(d, CM_SIDR_REP_INFO_LENGTH, param->info_length);
		memcpy(d + CM_SIDR_REP_INFO_BYTE, param->info, param->info_length);
	}
	if (param->private_data && param->private_data_len)
		memcpy(d + CM_SIDR_REP_PRIVATE_DATA_BYTE, param->private_data,
		       param->private_data_len);
}

int ib_send_cm_sidr_rep(struct ib_cm_id *cm_id, struct ib_cm_sidr_rep_param *param)
{
	struct cm_id_private *cm_id_priv = to_cm_id_priv(cm_id);
	struct ib_mad_send_buf *msg;
	unsigned long flags;
	int ret;

	if ((param->info && param->info_length > IB_CM_SIDR_REP_INFO_LENGTH) ||
	    (param->private_data &&
	     param->private_data_len > IB_CM_SIDR_REP_PRIVATE_DATA_SIZE))
		return -EINVAL;
	msg = cm_alloc_msg(cm_id_priv);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	spin_lock_irqsave(&cm_id_priv->lock, flags);
	if (cm_id->state != IB_CM_SIDR_REQ_RCVD) {
		ret = -EINVAL;
		goto err;
	}
	cm_format_sidr_rep(cm_id_priv, msg, param);
	ret = ib_post_send_mad(msg, NULL);
	if (ret)
		goto err;
	cm_id->state = IB_CM_IDLE;
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	cm_sidr_remove(cm_id_priv);
	return 0;
err:
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	cm_free_msg(msg);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_sidr_rep);

/* a SIDR REQ's new cm_id until it has its listener's handler: never called */
static int cm_sidr_noop_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *event)
{
	return 0;
}

/* [cm.wq] A SIDR REQ: a new cm_id for the listener of its service ID. */
void cm_sidr_req_handler(struct cm_work *work)
{
	struct ib_mad_recv_wc *rwc = work->mad_recv_wc;
	const u8 *d = (const u8 *)rwc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct ib_cm_event event = { .event = IB_CM_SIDR_REQ_RECEIVED };
	struct ib_cm_sidr_req_event_param *p = &event.param.sidr_req_rcvd;
	struct cm_id_private *cm_id_priv, *listener;
	struct ib_cm_sidr_rep_param rep = { .status = IB_SIDR_UNSUPPORTED };
	unsigned long flags;
	struct ib_cm_id *cm_id;
	bool dup;

	cm_id = ib_create_cm_id(work->port->cm_dev->ib_device, cm_sidr_noop_handler, NULL);
	if (IS_ERR(cm_id))
		return;
	cm_id_priv = to_cm_id_priv(cm_id);
	if (cm_init_av_for_response(work->port, rwc->wc, rwc->recv_buf.grh, &cm_id_priv->av))
		goto destroy;
	cm_id->remote_id = cpu_to_be32(cm_get(d, CM_SIDR_REQ_REQUEST_ID));
	cm_id->service_id = cm_get64(d, CM_SIDR_REQ_SERVICE_ID_BYTE);
	cm_id_priv->tid = rwc->recv_buf.mad->mad_hdr.tid;
	cm_id_priv->sidr_slid = rwc->wc->slid;

	spin_lock_irqsave(&cm.lock, flags);
	dup = !!cm_sidr_insert(cm_id_priv);
	spin_unlock_irqrestore(&cm.lock, flags);
	if (dup) {
		cm_count(work->port, CM_RECV_DUPLICATES, CM_SIDR_REQ_ATTR_ID, 1);
		goto destroy;
	}
	cm_id->state = IB_CM_SIDR_REQ_RCVD;

	listener = cm_listener_find(cm_id->device, cm_id->service_id);
	if (!listener) {
		/* nobody serves it: the answer says so */
		ib_send_cm_sidr_rep(cm_id, &rep);
		goto destroy;
	}
	cm_id->cm_handler = listener->id.cm_handler;
	cm_id->context = listener->id.context;
	p->listen_id = &listener->id;
	p->service_id = cm_id->service_id;
	p->pkey = cm_get(d, CM_SIDR_REQ_PKEY);
	p->port = work->port->port_num;
	ib_get_cached_pkey(cm_id->device, work->port->port_num, rwc->wc->pkey_index,
			   &p->bth_pkey);
	event.private_data = (u8 *)d + CM_SIDR_REQ_PRIVATE_DATA_BYTE;
	cm_id_get(cm_id_priv);		/* the event's, for cm_deliver() */
	cm_deliver(cm_id_priv, &event);
	cm_id_put(listener);
	return;
destroy:
	ib_destroy_cm_id(cm_id);
}

/* [cm.wq] The SIDR REP to our SIDR REQ. */
void cm_sidr_rep_handler(struct cm_work *work)
{
	const u8 *d = (const u8 *)work->mad_recv_wc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct ib_cm_event event = { .event = IB_CM_SIDR_REP_RECEIVED };
	struct ib_cm_sidr_rep_event_param *p = &event.param.sidr_rep_rcvd;
	struct cm_id_private *cm_id_priv;
	unsigned long flags;

	cm_id_priv = cm_id_acquire(cpu_to_be32(cm_get(d, CM_SIDR_REP_REQUEST_ID)), 0);
	if (!cm_id_priv)
		return;
	spin_lock_irqsave(&cm_id_priv->lock, flags);
	if (cm_id_priv->id.state != IB_CM_SIDR_REQ_SENT) {
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		cm_id_put(cm_id_priv);
		return;
	}
	cm_id_priv->id.state = IB_CM_IDLE;
	if (cm_id_priv->msg)
		ib_cancel_mad(cm_id_priv->msg);
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);

	p->status = cm_get(d, CM_SIDR_REP_STATUS);
	p->qkey = cm_get(d, CM_SIDR_REP_QKEY);
	p->qpn = cm_get(d, CM_SIDR_REP_QPN);
	p->info = (u8 *)d + CM_SIDR_REP_INFO_BYTE;
	p->info_len = cm_get(d, CM_SIDR_REP_INFO_LENGTH);
	event.private_data = (u8 *)d + CM_SIDR_REP_PRIVATE_DATA_BYTE;
	cm_deliver(cm_id_priv, &event);
}

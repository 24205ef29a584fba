// SPDX-License-Identifier: GPL-2.0
/*
 * Connection establishment (IBA 12.6.5, 12.6.8, 12.6.9, 12.9.5): REQ, REP
 * and RTU, sent and received, the duplicate and stale-connection rules for
 * REQs and REPs, and ib_cm_notify().
 *
 * PSNs: the StartingPSN a REQ or REP carries is the one its sender's
 * receive queue expects, so the active side keeps its own as rq_psn and
 * the REP's as sq_psn, and the passive side the other way round.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include "cm_priv.h"

/* --- the paths a REQ carries ---------------------------------------------- */

/* A path from our side into a REQ at byte off (primary or alternate). */
static void cm_put_req_path(u8 *d, unsigned int off, const struct sa_path_rec *path,
			    u8 ack_delay)
{
	bool local = path->hop_limit <= 1;

	/* a routed path's LIDs are the routers' business: permissive */
	cm_set(d, CM_PATH_LOCAL_LID(off), local ? be16_to_cpu(path->ib.slid) : 0xffff);
	cm_set(d, CM_PATH_REMOTE_LID(off), local ? be16_to_cpu(path->ib.dlid) : 0xffff);
	memcpy(d + CM_PATH_LOCAL_GID_BYTE(off), path->sgid.raw, sizeof(path->sgid.raw));
	memcpy(d + CM_PATH_REMOTE_GID_BYTE(off), path->dgid.raw, sizeof(path->dgid.raw));
	cm_set(d, CM_PATH_FLOW_LABEL(off), be32_to_cpu(path->flow_label));
	cm_set(d, CM_PATH_PACKET_RATE(off), path->rate);
	cm_set(d, CM_PATH_TRAFFIC_CLASS(off), path->traffic_class);
	cm_set(d, CM_PATH_HOP_LIMIT(off), path->hop_limit);
	cm_set(d, CM_PATH_SL(off), path->sl);
	cm_set(d, CM_PATH_SUBNET_LOCAL(off), local);
	cm_set(d, CM_PATH_LOCAL_ACK_TIMEOUT(off),
	       cm_ack_timeout(ack_delay, path->packet_life_time));
}

/*
 * The passive side's view of a path in a received REQ (its "local" is the
 * peer).  A routed path's LIDs come from the packet that brought the REQ.
 */
static void cm_get_req_path(const u8 *d, unsigned int off, struct sa_path_rec *path,
			    const struct ib_wc *wc, bool primary)
{
	bool local = cm_get(d, CM_PATH_SUBNET_LOCAL(off));
	u32 dlid = cm_get(d, CM_PATH_LOCAL_LID(off));
	u32 slid = cm_get(d, CM_PATH_REMOTE_LID(off));
	u8 ack = cm_get(d, CM_PATH_LOCAL_ACK_TIMEOUT(off));

	memset(path, 0, sizeof(*path));
	path->rec_type = SA_PATH_REC_TYPE_IB;
	memcpy(path->dgid.raw, d + CM_PATH_LOCAL_GID_BYTE(off), sizeof(path->dgid.raw));
	memcpy(path->sgid.raw, d + CM_PATH_REMOTE_GID_BYTE(off), sizeof(path->sgid.raw));
	if (!local && primary) {
		dlid = wc->slid;
		slid = wc->dlid_path_bits;
	}
	sa_path_set_dlid(path, dlid);
	sa_path_set_slid(path, slid);
	path->flow_label = cpu_to_be32(cm_get(d, CM_PATH_FLOW_LABEL(off)));
	path->hop_limit = cm_get(d, CM_PATH_HOP_LIMIT(off));
	path->traffic_class = cm_get(d, CM_PATH_TRAFFIC_CLASS(off));
	path->reversible = 1;
	path->numb_path = 1;
	path->pkey = cpu_to_be16(cm_get(d, CM_REQ_PKEY));
	path->sl = cm_get(d, CM_PATH_SL(off));
	path->mtu_selector = IB_SA_EQ;
	path->mtu = cm_get(d, CM_REQ_PATH_MTU);
	path->rate_selector = IB_SA_EQ;
	path->rate = cm_get(d, CM_PATH_PACKET_RATE(off));
	path->packet_life_time_selector = IB_SA_EQ;
	/* the peer's ACK timeout is about twice the life time: one less */
	path->packet_life_time = ack ? ack - 1 : 0;
	path->service_id = cm_get64(d, CM_REQ_SERVICE_ID_BYTE);
}

static bool cm_req_has_alt_path(const u8 *d)
{
	static const u8 zero[16];

	return cm_get(d, CM_PATH_LOCAL_LID(CM_REQ_ALTERNATE_PATH_BYTE)) ||
	       memcmp(d + CM_PATH_LOCAL_GID_BYTE(CM_REQ_ALTERNATE_PATH_BYTE), zero,
		      sizeof(zero));
}

static void cm_req_set_qp_type(u8 *d, enum ib_qp_type qp_type)
{
	switch (qp_type) {
	case IB_QPT_UC:
		cm_set(d, CM_REQ_TRANSPORT_TYPE, CM_TRANSPORT_UC);
		break;
	case IB_QPT_XRC_INI:
		cm_set(d, CM_REQ_TRANSPORT_TYPE, CM_TRANSPORT_EXTENDED);
		cm_set(d, CM_REQ_EXT_TRANSPORT_TYPE, CM_EXT_TRANSPORT_XRC);
		break;
	default:
		cm_set(d, CM_REQ_TRANSPORT_TYPE, CM_TRANSPORT_RC);
		break;
	}
}

/* the QP type the passive side needs for a REQ's transport; 0 if none */
static enum ib_qp_type cm_req_get_qp_type(const u8 *d)
{
	switch (cm_get(d, CM_REQ_TRANSPORT_TYPE)) {
	case CM_TRANSPORT_RC:
		return IB_QPT_RC;
	case CM_TRANSPORT_UC:
		return IB_QPT_UC;
	case CM_TRANSPORT_EXTENDED:
		if (cm_get(d, CM_REQ_EXT_TRANSPORT_TYPE) == CM_EXT_TRANSPORT_XRC)
			return IB_QPT_XRC_TGT;
		fallthrough;
	default:
		return 0;
	}
}

/* --- REQ ------------------------------------------------------------------ */

static int cm_check_req_param(struct ib_cm_req_param *param)
{
	struct sa_path_rec *pri = param->primary_path, *alt = param->alternate_path;

	if (!pri || param->private_data_len > IB_CM_REQ_PRIVATE_DATA_SIZE)
		return -EINVAL;
	if (param->qp_type != IB_QPT_RC && param->qp_type != IB_QPT_UC &&
	    param->qp_type != IB_QPT_XRC_INI)
		return -EINVAL;
	if (alt && (alt->pkey != pri->pkey || alt->mtu != pri->mtu))
		return -EINVAL;
	return 0;
}

int ib_send_cm_req(struct ib_cm_id *cm_id, struct ib_cm_req_param *param)
{
	struct cm_id_private *cm_id_priv = to_cm_id_priv(cm_id);
	struct cm_av av = {}, alt_av = {};
	struct cm_timewait_info *tw;
	struct ib_mad_send_buf *msg;
	unsigned long flags;
	__be64 tid;
	u8 *d;
	int ret;

	ret = cm_check_req_param(param);
	if (ret)
		return ret;
	ret = cm_init_av_by_path(param->primary_path, &av, cm_id->device);
	if (ret)
		return ret;
	if (param->alternate_path) {
		ret = cm_init_av_by_path(param->alternate_path, &alt_av, cm_id->device);
		if (ret)
			goto err_av;
	}
	tw = cm_timewait_alloc(cm_id->local_id);
	if (!tw) {
		ret = -ENOMEM;
		goto err_av;
	}

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	if (cm_id->state != IB_CM_IDLE) {
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		ret = -EINVAL;
		goto err_tw;
	}
	/* the cm_id takes the AVs (and their device references) */
	swap(cm_id_priv->av, av);
	swap(cm_id_priv->alt_av, alt_av);
	kfree(cm_id_priv->timewait_info);
	cm_id_priv->timewait_info = tw;
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	tw = NULL;
	/* a cm_id used before: its last connection's AVs go */
	cm_av_put(&av);
	cm_av_put(&alt_av);

	msg = cm_alloc_msg(cm_id_priv);
	if (IS_ERR(msg)) {
		ret = PTR_ERR(msg);
		goto err_av;
	}
	tid = cpu_to_be64(((u64)cm_id_priv->av.port->agent->hi_tid << 32) |
			  be32_to_cpu(cm_id->local_id));
	cm_format_hdr(msg, CM_REQ_ATTR_ID, tid);
	((struct ib_mad_hdr *)msg->mad)->attr_mod = cpu_to_be32(param->ece.attr_mod);
	d = cm_data(msg);
	cm_set(d, CM_REQ_LOCAL_COMM_ID, be32_to_cpu(cm_id->local_id));
	cm_set(d, CM_REQ_VENDOR_ID, param->ece.vendor_id);
	cm_set64(d, CM_REQ_SERVICE_ID_BYTE, param->service_id);
	cm_set64(d, CM_REQ_LOCAL_CA_GUID_BYTE, cm_id->device->node_guid);
	cm_set(d, CM_REQ_LOCAL_QPN, param->qp_num);
	cm_set(d, CM_REQ_INITIATOR_DEPTH, param->initiator_depth);
	cm_set(d, CM_REQ_REMOTE_CM_RESP_TIMEOUT, param->remote_cm_response_timeout);
	cm_req_set_qp_type(d, param->qp_type);
	cm_set(d, CM_REQ_FLOW_CONTROL, param->flow_control);
	cm_set(d, CM_REQ_STARTING_PSN, param->starting_psn);
	cm_set(d, CM_REQ_LOCAL_CM_RESP_TIMEOUT, param->local_cm_response_timeout);
	cm_set(d, CM_REQ_PKEY, be16_to_cpu(param->primary_path->pkey));
	cm_set(d, CM_REQ_PATH_MTU, param->primary_path->mtu);
	cm_set(d, CM_REQ_MAX_CM_RETRIES, param->max_cm_retries);
	if (param->qp_type != IB_QPT_XRC_INI) {
		cm_set(d, CM_REQ_RESPONDER_RESOURCES, param->responder_resources);
		cm_set(d, CM_REQ_RETRY_COUNT, param->retry_count);
		cm_set(d, CM_REQ_RNR_RETRY_COUNT, param->rnr_retry_count);
		cm_set(d, CM_REQ_SRQ, param->srq);
	}
	cm_put_req_path(d, CM_REQ_PRIMARY_PATH_BYTE, param->primary_path,
			cm_id_priv->av.port->cm_dev->ack_delay);
	if (param->alternate_path)
		cm_put_req_path(d, CM_REQ_ALTERNATE_PATH_BYTE, param->alternate_path,
				cm_id_priv->av.port->cm_dev->ack_delay);
	if (param->private_data_len)
		memcpy(d + CM_REQ_PRIVATE_DATA_BYTE, param->private_data,
		       param->private_data_len);
	msg->timeout_ms = 2 * cm_convert_to_ms(param->primary_path->packet_life_time) +
			  cm_convert_to_ms(param->remote_cm_response_timeout);
	msg->retries = param->max_cm_retries;

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	if (cm_id->state != IB_CM_IDLE) {
		ret = -EINVAL;
		goto err_msg;
	}
	cm_id->service_id = param->service_id;
	/* a cm_id used again after time wait: the last peer's ID would hide the REP */
	cm_id->remote_id = 0;
	cm_id_priv->tid = tid;
	cm_id_priv->timeout_ms = msg->timeout_ms;
	cm_id_priv->max_cm_retries = param->max_cm_retries;
	cm_id_priv->initiator_depth = param->initiator_depth;
	cm_id_priv->responder_resources = param->responder_resources;
	cm_id_priv->retry_count = param->retry_count;
	cm_id_priv->rnr_retry_count = param->rnr_retry_count;
	cm_id_priv->srq = param->srq;
	cm_id_priv->path_mtu = param->primary_path->mtu;
	cm_id_priv->pkey = param->primary_path->pkey;
	cm_id_priv->qp_type = param->qp_type;
	cm_id_priv->local_qpn = cpu_to_be32(param->qp_num);
	cm_id_priv->rq_psn = cpu_to_be32(param->starting_psn);
	/* the QP's ACK timeout: this CA's delay until a REP says the peer's */
	cm_id_priv->av.timeout = cm_ack_timeout(cm_id_priv->av.port->cm_dev->ack_delay,
						param->primary_path->packet_life_time);
	ret = ib_post_send_mad(msg, NULL);
	if (ret)
		goto err_msg;
	cm_id_priv->msg = msg;
	cm_id->state = IB_CM_REQ_SENT;
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	return 0;

err_msg:
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	cm_free_msg(msg);
	return ret;
err_tw:
	kfree(tw);
err_av:
	cm_av_put(&av);
	cm_av_put(&alt_av);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_req);

/* what entering a connection's remote IDs in the tables ran into */
struct cm_conflict {
	int		kind;		/* 0, CM_DUPLICATE or CM_STALE */
	__be32		local_id;	/* the cm_id already there */
	__be32		remote_id;
};

#define CM_DUPLICATE	1	/* the same remote ID and CA GUID: a message again */
#define CM_STALE	2	/* the same remote QP and CA GUID: an old connection */

/*
 * [any] Enter tw in the remote ID and QP tables; on a conflict nothing is
 * entered and c says which cm_id was there.  May be called with the
 * cm_id's lock held (cm.lock comes after it).
 */
static void cm_remote_insert(struct cm_timewait_info *tw, struct cm_conflict *c)
{
	struct cm_timewait_info *found;
	unsigned long flags;

	c->kind = 0;
	spin_lock_irqsave(&cm.lock, flags);
	found = cm_remote_id_insert(tw);
	if (found) {
		c->kind = CM_DUPLICATE;
	} else {
		found = cm_remote_qp_insert(tw);
		if (found) {
			c->kind = CM_STALE;
			cm_remote_tables_remove(tw);
		}
	}
	if (found) {
		c->local_id = found->local_id;
		c->remote_id = found->remote_id;
	}
	spin_unlock_irqrestore(&cm.lock, flags);
}

/* [cm.wq] A REQ we already have a cm_id for (same remote ID and CA GUID). */
static void cm_dup_req(struct cm_work *work, struct cm_conflict *c)
{
	struct cm_id_private *cm_id_priv;
	enum ib_cm_state state;
	unsigned long flags;

	cm_count(work->port, CM_RECV_DUPLICATES, CM_REQ_ATTR_ID, 1);
	cm_id_priv = cm_id_acquire(c->local_id, c->remote_id);
	if (!cm_id_priv)
		return;
	spin_lock_irqsave(&cm_id_priv->lock, flags);
	state = cm_id_priv->id.state;
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	if (state == IB_CM_MRA_REQ_SENT)
		cm_resend_mra(cm_id_priv, work->mad_recv_wc);
	else if (state == IB_CM_TIMEWAIT)
		cm_issue_rej(work->port, work->mad_recv_wc, IB_CM_REJ_STALE_CONN,
			     CM_MSG_RESPONSE_REQ, NULL, 0);
	cm_id_put(cm_id_priv);
}

/*
 * [cm.wq] A REQ or REP from a QP we are connected to already: the old
 * connection is stale.  REJ to the message, DREQ on the old connection.
 */
static void cm_stale(struct cm_work *work, struct cm_conflict *c, enum cm_msg_response what)
{
	struct cm_id_private *old;

	cm_issue_rej(work->port, work->mad_recv_wc, IB_CM_REJ_STALE_CONN, what, NULL, 0);
	old = cm_id_acquire(c->local_id, c->remote_id);
	if (old) {
		ib_send_cm_dreq(&old->id, NULL, 0);
		cm_id_put(old);
	}
}

static void cm_format_req_event(struct cm_work *work, struct cm_id_private *cm_id_priv,
				struct ib_cm_id *listen_id, struct ib_cm_event *event)
{
	const u8 *d = (const u8 *)work->mad_recv_wc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct ib_cm_req_event_param *p = &event->param.req_rcvd;

	event->event = IB_CM_REQ_RECEIVED;
	p->listen_id = listen_id;
	ib_get_cached_pkey(cm_id_priv->id.device, work->port->port_num,
			   work->mad_recv_wc->wc->pkey_index, &p->bth_pkey);
	p->port = work->port->port_num;
	p->primary_path = &work->path[0];
	p->alternate_path = cm_req_has_alt_path(d) ? &work->path[1] : NULL;
	p->remote_ca_guid = cm_get64(d, CM_REQ_LOCAL_CA_GUID_BYTE);
	p->remote_qkey = cm_get(d, CM_REQ_LOCAL_QKEY);
	p->remote_qpn = cm_get(d, CM_REQ_LOCAL_QPN);
	p->qp_type = cm_id_priv->qp_type;
	p->starting_psn = cm_get(d, CM_REQ_STARTING_PSN);
	p->responder_resources = cm_get(d, CM_REQ_INITIATOR_DEPTH);
	p->initiator_depth = cm_get(d, CM_REQ_RESPONDER_RESOURCES);
	p->local_cm_response_timeout = cm_get(d, CM_REQ_REMOTE_CM_RESP_TIMEOUT);
	p->flow_control = cm_get(d, CM_REQ_FLOW_CONTROL);
	p->remote_cm_response_timeout = cm_get(d, CM_REQ_LOCAL_CM_RESP_TIMEOUT);
	p->retry_count = cm_get(d, CM_REQ_RETRY_COUNT);
	p->rnr_retry_count = cm_get(d, CM_REQ_RNR_RETRY_COUNT);
	p->srq = cm_get(d, CM_REQ_SRQ);
	p->ece.vendor_id = cm_get(d, CM_REQ_VENDOR_ID);
	p->ece.attr_mod = be32_to_cpu(work->mad_recv_wc->recv_buf.mad->mad_hdr.attr_mod);
	event->private_data = (u8 *)d + CM_REQ_PRIVATE_DATA_BYTE;
}

/* a REQ's new cm_id until it has its listener's handler: never called */
static int cm_req_noop_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *event)
{
	return 0;
}

/* [cm.wq] A REQ: a new cm_id for the listener of its service ID. */
void cm_req_handler(struct cm_work *work)
{
	struct ib_mad_recv_wc *rwc = work->mad_recv_wc;
	const u8 *d = (const u8 *)rwc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct cm_id_private *cm_id_priv, *listener;
	struct ib_cm_event event = {};
	struct cm_timewait_info *tw;
	struct cm_conflict conflict;
	struct ib_cm_id *cm_id;
	union ib_gid gid;
	int ret;

	cm_id = ib_create_cm_id(work->port->cm_dev->ib_device, cm_req_noop_handler, NULL);
	if (IS_ERR(cm_id))
		return;
	cm_id_priv = to_cm_id_priv(cm_id);
	cm_id->remote_id = cpu_to_be32(cm_get(d, CM_REQ_LOCAL_COMM_ID));
	cm_id->service_id = cm_get64(d, CM_REQ_SERVICE_ID_BYTE);
	cm_id_priv->tid = rwc->recv_buf.mad->mad_hdr.tid;
	cm_id_priv->timeout_ms = cm_convert_to_ms(cm_get(d, CM_REQ_LOCAL_CM_RESP_TIMEOUT));
	cm_id_priv->max_cm_retries = cm_get(d, CM_REQ_MAX_CM_RETRIES);
	cm_id_priv->remote_qpn = cpu_to_be32(cm_get(d, CM_REQ_LOCAL_QPN));
	cm_id_priv->initiator_depth = cm_get(d, CM_REQ_RESPONDER_RESOURCES);
	cm_id_priv->responder_resources = cm_get(d, CM_REQ_INITIATOR_DEPTH);
	cm_id_priv->path_mtu = cm_get(d, CM_REQ_PATH_MTU);
	cm_id_priv->pkey = cpu_to_be16(cm_get(d, CM_REQ_PKEY));
	cm_id_priv->sq_psn = cpu_to_be32(cm_get(d, CM_REQ_STARTING_PSN));
	cm_id_priv->retry_count = cm_get(d, CM_REQ_RETRY_COUNT);
	cm_id_priv->rnr_retry_count = cm_get(d, CM_REQ_RNR_RETRY_COUNT);
	cm_id_priv->qp_type = cm_req_get_qp_type(d);

	ret = cm_init_av_for_response(work->port, rwc->wc, rwc->recv_buf.grh, &cm_id_priv->av);
	if (ret)
		goto destroy;
	tw = cm_timewait_alloc(cm_id->local_id);
	if (!tw)
		goto destroy;
	tw->remote_id = cm_id->remote_id;
	tw->remote_ca_guid = cm_get64(d, CM_REQ_LOCAL_CA_GUID_BYTE);
	tw->remote_qpn = cm_id_priv->remote_qpn;
	cm_id_priv->timewait_info = tw;
	/* not yet seen by any lookup: no lock needed for the state */
	cm_id->state = IB_CM_REQ_RCVD;

	cm_remote_insert(tw, &conflict);
	if (conflict.kind == CM_DUPLICATE) {
		cm_dup_req(work, &conflict);
		goto idle;
	}
	if (conflict.kind == CM_STALE) {
		cm_stale(work, &conflict, CM_MSG_RESPONSE_REQ);
		goto idle;
	}
	listener = cm_listener_find(cm_id->device, cm_id->service_id);
	if (!listener) {
		cm_issue_rej(work->port, rwc, IB_CM_REJ_INVALID_SERVICE_ID,
			     CM_MSG_RESPONSE_REQ, NULL, 0);
		goto idle;
	}
	if (!cm_id_priv->qp_type) {
		cm_id_put(listener);
		cm_issue_rej(work->port, rwc, IB_CM_REJ_INVALID_TRANSPORT_TYPE,
			     CM_MSG_RESPONSE_REQ, NULL, 0);
		goto idle;
	}

	cm_get_req_path(d, CM_REQ_PRIMARY_PATH_BYTE, &work->path[0], rwc->wc, true);
	if (cm_req_has_alt_path(d))
		cm_get_req_path(d, CM_REQ_ALTERNATE_PATH_BYTE, &work->path[1], rwc->wc, false);
	ret = cm_init_av_by_path(&work->path[0], &cm_id_priv->av, cm_id->device);
	if (ret) {
		/* our GID as the REJ's additional information, as upstream */
		if (rdma_query_gid(cm_id->device, work->port->port_num, 0, &gid))
			ib_send_cm_rej(cm_id, IB_CM_REJ_INVALID_GID, NULL, 0, NULL, 0);
		else
			ib_send_cm_rej(cm_id, IB_CM_REJ_INVALID_GID, &gid, sizeof(gid), NULL, 0);
		cm_id_put(listener);
		goto destroy;
	}
	if (cm_req_has_alt_path(d) &&
	    cm_init_av_by_path(&work->path[1], &cm_id_priv->alt_av, cm_id->device)) {
		ib_send_cm_rej(cm_id, IB_CM_REJ_INVALID_ALT_GID, &work->path[0].sgid,
			       sizeof(work->path[0].sgid), NULL, 0);
		cm_id_put(listener);
		goto destroy;
	}
	/* the peer's ACK timeout for our QP: from its REQ */
	cm_id_priv->av.timeout = cm_get(d, CM_PATH_LOCAL_ACK_TIMEOUT(CM_REQ_PRIMARY_PATH_BYTE));
	cm_id_priv->alt_av.timeout =
		cm_get(d, CM_PATH_LOCAL_ACK_TIMEOUT(CM_REQ_ALTERNATE_PATH_BYTE));

	cm_id->cm_handler = listener->id.cm_handler;
	cm_id->context = listener->id.context;
	cm_format_req_event(work, cm_id_priv, &listener->id, &event);
	cm_id_get(cm_id_priv);		/* the event's, for cm_deliver() */
	cm_deliver(cm_id_priv, &event);
	cm_id_put(listener);
	return;

idle:
	cm_id->state = IB_CM_IDLE;
destroy:
	ib_destroy_cm_id(cm_id);
}

/* --- REP ------------------------------------------------------------------ */

int ib_send_cm_rep(struct ib_cm_id *cm_id, struct ib_cm_rep_param *param)
{
	struct cm_id_private *cm_id_priv = to_cm_id_priv(cm_id);
	struct ib_mad_send_buf *msg;
	unsigned long flags;
	u8 *d;
	int ret;

	if (param->private_data_len > IB_CM_REP_PRIVATE_DATA_SIZE)
		return -EINVAL;
	msg = cm_alloc_msg(cm_id_priv);
	if (IS_ERR(msg))
		return PTR_ERR(msg);

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	if (cm_id->state != IB_CM_REQ_RCVD && cm_id->state != IB_CM_MRA_REQ_SENT) {
		ret = -EINVAL;
		goto err;
	}
	cm_format_hdr(msg, CM_REP_ATTR_ID, cm_id_priv->tid);
	((struct ib_mad_hdr *)msg->mad)->attr_mod = cpu_to_be32(param->ece.attr_mod);
	d = cm_data(msg);
	cm_set(d, CM_REP_LOCAL_COMM_ID, be32_to_cpu(cm_id->local_id));
	cm_set(d, CM_REP_REMOTE_COMM_ID, be32_to_cpu(cm_id->remote_id));
	cm_set(d, CM_REP_STARTING_PSN, param->starting_psn);
	cm_set(d, CM_REP_RESPONDER_RESOURCES, param->responder_resources);
	cm_set(d, CM_REP_TARGET_ACK_DELAY, cm_id_priv->av.port->cm_dev->ack_delay);
	cm_set(d, CM_REP_FAILOVER_ACCEPTED, param->failover_accepted);
	cm_set(d, CM_REP_RNR_RETRY_COUNT, param->rnr_retry_count);
	cm_set64(d, CM_REP_LOCAL_CA_GUID_BYTE, cm_id->device->node_guid);
	cm_set(d, CM_REP_VENDOR_ID_L, param->ece.vendor_id & 0xff);
	cm_set(d, CM_REP_VENDOR_ID_M, (param->ece.vendor_id >> 8) & 0xff);
	cm_set(d, CM_REP_VENDOR_ID_H, (param->ece.vendor_id >> 16) & 0xff);
	if (cm_id_priv->qp_type != IB_QPT_XRC_TGT) {
		cm_set(d, CM_REP_INITIATOR_DEPTH, param->initiator_depth);
		cm_set(d, CM_REP_FLOW_CONTROL, param->flow_control);
		cm_set(d, CM_REP_SRQ, param->srq);
		cm_set(d, CM_REP_LOCAL_QPN, param->qp_num);
	} else {
		cm_set(d, CM_REP_SRQ, 1);
		cm_set(d, CM_REP_LOCAL_EECN, param->qp_num);
	}
	if (param->private_data_len)
		memcpy(d + CM_REP_PRIVATE_DATA_BYTE, param->private_data,
		       param->private_data_len);
	msg->timeout_ms = cm_id_priv->timeout_ms;
	msg->retries = cm_id_priv->max_cm_retries;
	ret = ib_post_send_mad(msg, NULL);
	if (ret)
		goto err;
	cm_id_priv->msg = msg;
	cm_id->state = IB_CM_REP_SENT;
	cm_id_priv->initiator_depth = param->initiator_depth;
	cm_id_priv->responder_resources = param->responder_resources;
	cm_id_priv->rq_psn = cpu_to_be32(param->starting_psn);
	cm_id_priv->local_qpn = cpu_to_be32(param->qp_num & 0xffffff);
	cm_id_priv->srq = param->srq;
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	return 0;

err:
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	cm_free_msg(msg);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rep);

/* the peer's QP number in a REP (an XRC target's is in the EECN field) */
static __be32 cm_rep_get_qpn(const u8 *d, enum ib_qp_type qp_type)
{
	if (qp_type == IB_QPT_XRC_INI)
		return cpu_to_be32(cm_get(d, CM_REP_LOCAL_EECN));
	return cpu_to_be32(cm_get(d, CM_REP_LOCAL_QPN));
}

/* [cm.wq] A REP whose cm_id no longer waits for one: resend what we answered. */
static void cm_dup_rep(struct cm_work *work)
{
	const u8 *d = (const u8 *)work->mad_recv_wc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct cm_id_private *cm_id_priv;
	enum ib_cm_state state;
	unsigned long flags;

	cm_id_priv = cm_id_acquire(cpu_to_be32(cm_get(d, CM_REP_REMOTE_COMM_ID)),
				   cpu_to_be32(cm_get(d, CM_REP_LOCAL_COMM_ID)));
	if (!cm_id_priv)
		return;
	cm_count(work->port, CM_RECV_DUPLICATES, CM_REP_ATTR_ID, 1);
	spin_lock_irqsave(&cm_id_priv->lock, flags);
	state = cm_id_priv->id.state;
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	if (state == IB_CM_ESTABLISHED)
		cm_resend_rtu(cm_id_priv, work->mad_recv_wc);
	else if (state == IB_CM_MRA_REP_SENT)
		cm_resend_mra(cm_id_priv, work->mad_recv_wc);
	cm_id_put(cm_id_priv);
}

/* [cm.wq] A REP to our REQ. */
void cm_rep_handler(struct cm_work *work)
{
	struct ib_mad_recv_wc *rwc = work->mad_recv_wc;
	const u8 *d = (const u8 *)rwc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct ib_cm_event event = { .event = IB_CM_REP_RECEIVED };
	struct ib_cm_rep_event_param *p = &event.param.rep_rcvd;
	struct cm_id_private *cm_id_priv;
	struct cm_timewait_info *tw;
	struct cm_conflict conflict;
	unsigned long flags;

	cm_id_priv = cm_id_acquire(cpu_to_be32(cm_get(d, CM_REP_REMOTE_COMM_ID)), 0);
	if (!cm_id_priv) {
		cm_dup_rep(work);
		return;
	}
	/* all under the lock: a destroy meanwhile would free tw */
	spin_lock_irqsave(&cm_id_priv->lock, flags);
	tw = cm_id_priv->timewait_info;
	if ((cm_id_priv->id.state != IB_CM_REQ_SENT &&
	     cm_id_priv->id.state != IB_CM_MRA_REQ_RCVD) || !tw) {
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		cm_count(work->port, CM_RECV_DUPLICATES, CM_REP_ATTR_ID, 1);
		goto out;
	}
	tw->remote_id = cpu_to_be32(cm_get(d, CM_REP_LOCAL_COMM_ID));
	tw->remote_ca_guid = cm_get64(d, CM_REP_LOCAL_CA_GUID_BYTE);
	tw->remote_qpn = cm_rep_get_qpn(d, cm_id_priv->qp_type);
	cm_remote_insert(tw, &conflict);
	if (conflict.kind) {
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		if (conflict.kind == CM_DUPLICATE)
			cm_count(work->port, CM_RECV_DUPLICATES, CM_REP_ATTR_ID, 1);
		else
			cm_stale(work, &conflict, CM_MSG_RESPONSE_REP);
		goto out;
	}
	cm_id_priv->id.state = IB_CM_REP_RCVD;
	cm_id_priv->id.remote_id = tw->remote_id;
	cm_id_priv->remote_qpn = tw->remote_qpn;
	cm_id_priv->initiator_depth = cm_get(d, CM_REP_RESPONDER_RESOURCES);
	cm_id_priv->responder_resources = cm_get(d, CM_REP_INITIATOR_DEPTH);
	cm_id_priv->sq_psn = cpu_to_be32(cm_get(d, CM_REP_STARTING_PSN));
	cm_id_priv->rnr_retry_count = cm_get(d, CM_REP_RNR_RETRY_COUNT);
	cm_id_priv->target_ack_delay = cm_get(d, CM_REP_TARGET_ACK_DELAY);
	cm_id_priv->av.timeout = cm_ack_timeout(cm_id_priv->target_ack_delay,
						cm_id_priv->av.timeout - 1);
	cm_id_priv->alt_av.timeout = cm_ack_timeout(cm_id_priv->target_ack_delay,
						    cm_id_priv->alt_av.timeout - 1);
	if (cm_id_priv->msg)
		ib_cancel_mad(cm_id_priv->msg);
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);

	/* from the message: tw belongs to the cm_id, which may go meanwhile */
	p->remote_ca_guid = cm_get64(d, CM_REP_LOCAL_CA_GUID_BYTE);
	p->remote_qkey = cm_get(d, CM_REP_LOCAL_QKEY);
	p->remote_qpn = be32_to_cpu(cm_rep_get_qpn(d, cm_id_priv->qp_type));
	p->starting_psn = cm_get(d, CM_REP_STARTING_PSN);
	p->responder_resources = cm_get(d, CM_REP_RESPONDER_RESOURCES);
	p->initiator_depth = cm_get(d, CM_REP_INITIATOR_DEPTH);
	p->target_ack_delay = cm_get(d, CM_REP_TARGET_ACK_DELAY);
	p->failover_accepted = cm_get(d, CM_REP_FAILOVER_ACCEPTED);
	p->flow_control = cm_get(d, CM_REP_FLOW_CONTROL);
	p->rnr_retry_count = cm_get(d, CM_REP_RNR_RETRY_COUNT);
	p->srq = cm_get(d, CM_REP_SRQ);
	p->ece.vendor_id = cm_get(d, CM_REP_VENDOR_ID_H) << 16 |
			   cm_get(d, CM_REP_VENDOR_ID_M) << 8 | cm_get(d, CM_REP_VENDOR_ID_L);
	p->ece.attr_mod = be32_to_cpu(rwc->recv_buf.mad->mad_hdr.attr_mod);
	event.private_data = (u8 *)d + CM_REP_PRIVATE_DATA_BYTE;
	cm_deliver(cm_id_priv, &event);
	return;
out:
	cm_id_put(cm_id_priv);
}

/* --- RTU ------------------------------------------------------------------ */

static void cm_format_rtu(struct cm_id_private *cm_id_priv, struct ib_mad_send_buf *msg,
			  const void *private_data, u8 private_data_len)
{
	u8 *d = cm_data(msg);

	cm_format_hdr(msg, CM_RTU_ATTR_ID, cm_id_priv->tid);
	cm_set(d, CM_RTU_LOCAL_COMM_ID, be32_to_cpu(cm_id_priv->id.local_id));
	cm_set(d, CM_RTU_REMOTE_COMM_ID, be32_to_cpu(cm_id_priv->id.remote_id));
	if (private_data_len)
		memcpy(d + CM_RTU_PRIVATE_DATA_BYTE, private_data, private_data_len);
}

int ib_send_cm_rtu(struct ib_cm_id *cm_id, const void *private_data, u8 private_data_len)
{
	struct cm_id_private *cm_id_priv = to_cm_id_priv(cm_id);
	struct ib_mad_send_buf *msg;
	unsigned long flags;
	int ret;

	if (private_data_len > IB_CM_RTU_PRIVATE_DATA_SIZE)
		return -EINVAL;
	msg = cm_alloc_msg(cm_id_priv);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	spin_lock_irqsave(&cm_id_priv->lock, flags);
	if (cm_id->state != IB_CM_REP_RCVD && cm_id->state != IB_CM_MRA_REP_SENT) {
		ret = -EINVAL;
		goto err;
	}
	cm_format_rtu(cm_id_priv, msg, private_data, private_data_len);
	ret = ib_post_send_mad(msg, NULL);
	if (ret)
		goto err;
	cm_id->state = IB_CM_ESTABLISHED;
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	return 0;
err:
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	cm_free_msg(msg);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rtu);

/* [cm.wq] An RTU again for a duplicate REP (the first may have been lost). */
void cm_resend_rtu(struct cm_id_private *cm_id_priv, struct ib_mad_recv_wc *rwc)
{
	struct ib_mad_send_buf *msg = cm_alloc_response(cm_id_priv->av.port, rwc);

	if (IS_ERR(msg))
		return;
	cm_format_rtu(cm_id_priv, msg, NULL, 0);
	cm_post(msg);
}

/* [cm.wq] The RTU to our REP: established. */
void cm_rtu_handler(struct cm_work *work)
{
	const u8 *d = (const u8 *)work->mad_recv_wc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct ib_cm_event event = { .event = IB_CM_RTU_RECEIVED };
	struct cm_id_private *cm_id_priv;
	unsigned long flags;

	cm_id_priv = cm_id_acquire(cpu_to_be32(cm_get(d, CM_RTU_REMOTE_COMM_ID)),
				   cpu_to_be32(cm_get(d, CM_RTU_LOCAL_COMM_ID)));
	if (!cm_id_priv)
		return;
	spin_lock_irqsave(&cm_id_priv->lock, flags);
	if (cm_id_priv->id.state != IB_CM_REP_SENT &&
	    cm_id_priv->id.state != IB_CM_MRA_REP_RCVD) {
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		cm_count(work->port, CM_RECV_DUPLICATES, CM_RTU_ATTR_ID, 1);
		cm_id_put(cm_id_priv);
		return;
	}
	cm_id_priv->id.state = IB_CM_ESTABLISHED;
	if (cm_id_priv->msg)
		ib_cancel_mad(cm_id_priv->msg);
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	event.private_data = (u8 *)d + CM_RTU_PRIVATE_DATA_BYTE;
	cm_deliver(cm_id_priv, &event);
}

/* --- ib_cm_notify() and the other local events ------------------------------ */

int ib_cm_notify(struct ib_cm_id *cm_id, enum ib_event_type event)
{
	struct cm_id_private *cm_id_priv = to_cm_id_priv(cm_id);
	unsigned long flags;
	int ret = 0;

	switch (event) {
	case IB_EVENT_COMM_EST:
		spin_lock_irqsave(&cm_id_priv->lock, flags);
		if (cm_id->state == IB_CM_ESTABLISHED) {
			spin_unlock_irqrestore(&cm_id_priv->lock, flags);
			break;
		}
		if (cm_id->state != IB_CM_REP_SENT && cm_id->state != IB_CM_MRA_REP_RCVD) {
			spin_unlock_irqrestore(&cm_id_priv->lock, flags);
			ret = -EISCONN;
			break;
		}
		cm_id->state = IB_CM_ESTABLISHED;
		if (cm_id_priv->msg)
			ib_cancel_mad(cm_id_priv->msg);
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		cm_queue_local(cm_id_priv, CM_WORK_ESTABLISHED, IB_WC_SUCCESS);
		break;
	case IB_EVENT_PATH_MIG:
		cm_queue_local(cm_id_priv, CM_WORK_MIGRATED, IB_WC_SUCCESS);
		break;
	default:
		ret = -EINVAL;
	}
	return ret;
}
EXPORT_SYMBOL(ib_cm_notify);

/* the error event of a send that failed in state */
static enum ib_cm_event_type cm_send_error_event(enum ib_cm_state state)
{
	switch (state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		return IB_CM_REQ_ERROR;
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		return IB_CM_REP_ERROR;
	case IB_CM_DREQ_SENT:
		return IB_CM_DREQ_ERROR;
	case IB_CM_SIDR_REQ_SENT:
		return IB_CM_SIDR_REQ_ERROR;
	default:
		return -1;
	}
}

/* [cm.wq] A local event (recv.c's cm_queue_local()). */
void cm_local_handler(struct cm_work *work)
{
	struct ib_cm_event event = {};
	struct cm_id_private *cm_id_priv;
	unsigned long flags;
	bool deliver = false;

	xa_lock_irqsave(&cm.local_ids, flags);
	cm_id_priv = xa_load(&cm.local_ids,
			     (__force u32)(work->local_id ^ cm.random_id_operand));
	if (cm_id_priv && !refcount_inc_not_zero(&cm_id_priv->refcount))
		cm_id_priv = NULL;
	xa_unlock_irqrestore(&cm.local_ids, flags);
	if (!cm_id_priv)
		return;

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	switch (work->kind) {
	case CM_WORK_SEND_ERROR:
		/* only if nothing moved the cm_id on since the send */
		if (cm_id_priv->id.state != work->state ||
		    (int)cm_send_error_event(work->state) < 0)
			break;
		event.event = cm_send_error_event(work->state);
		event.param.send_status = work->status;
		if (event.event == IB_CM_DREQ_ERROR)
			cm_enter_timewait(cm_id_priv);
		else
			cm_id_priv->id.state = IB_CM_IDLE;
		deliver = true;
		break;
	case CM_WORK_ESTABLISHED:
		event.event = IB_CM_USER_ESTABLISHED;
		deliver = cm_id_priv->id.state == IB_CM_ESTABLISHED;
		break;
	case CM_WORK_MIGRATED:
		/* the alternate path is now the primary one */
		if (cm_id_priv->alt_av.port) {
			swap(cm_id_priv->av, cm_id_priv->alt_av);
			cm_id_priv->id.lap_state = IB_CM_LAP_IDLE;
		}
		break;
	default:
		break;
	}
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	if (deliver)
		cm_deliver(cm_id_priv, &event);
	else
		cm_id_put(cm_id_priv);
}

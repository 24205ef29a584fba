// SPDX-License-Identifier: GPL-2.0
/*
 * Sending CM messages: send buffers addressed by a cm_id's path or by a
 * received message, the MAD header every CM message carries, the send
 * completions (counters, and the error event of a message that ran out of
 * retries), the IBA time conversions, and the answers ib_cm gives without
 * a cm_id (a REJ to an unknown REQ, a DREP to an unknown DREQ).
 *
 * Messages are built outside the cm_id's lock (allocating them may
 * sleep), then posted under it once its state is checked again.
 *
 * A message a cm_id waits an answer to (REQ, REP, DREQ, SIDR REQ, LAP) is
 * its msg; the MAD layer resends it after each timeout and completes it
 * with IB_WC_RESP_TIMEOUT_ERR once the retries are used up, unless ib_cm
 * cancels it first (the answer came: IB_WC_WR_FLUSH_ERR).  A cancelled
 * send may still be completing when the cm_id (idle again) posts its next
 * one: the completion clears msg only while msg is still that send.  Each send
 * holds a reference on its cm_id (context[0]) and on the cm_device.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include "cm_priv.h"

/* IBA time value (4.096 us * 2^t) to ms, as Linux rounds it: 2^(t - 8) */
int cm_convert_to_ms(u8 iba_time)
{
	return 1 << max_t(int, iba_time - 8, 0);
}

/*
 * The QP's ACK timeout for a CA ACK delay and a path's packet life time
 * (IBA 9.7.6.1.3): twice the life time plus the delay, which in IBA time
 * values is the larger of the two, plus one when they are close.
 */
u8 cm_ack_timeout(u8 ca_ack_delay, u8 packet_life_time)
{
	int ack_timeout = packet_life_time + 1;

	if (ack_timeout >= ca_ack_delay)
		ack_timeout += (ca_ack_delay >= (ack_timeout - 1));
	else
		ack_timeout = ca_ack_delay + (ack_timeout >= (ca_ack_delay - 1));
	return min(31, ack_timeout);
}

u8 *cm_data(struct ib_mad_send_buf *msg)
{
	return (u8 *)msg->mad + IB_MGMT_MAD_HDR;
}

static struct ib_mad_send_buf *cm_create_msg(struct cm_port *port, u32 remote_qpn,
					     u16 pkey_index, struct rdma_ah_attr *ah_attr,
					     struct ib_wc *wc, struct ib_grh *grh)
{
	struct ib_mad_agent *agent = port->agent;
	struct ib_mad_send_buf *msg;
	struct ib_ah *ah;

	if (!agent)
		return ERR_PTR(-ENODEV);
	if (ah_attr)
		ah = rdma_create_ah(agent->qp->pd, ah_attr, 0);
	else
		ah = ib_create_ah_from_wc(agent->qp->pd, wc, grh, port->port_num);
	if (IS_ERR(ah))
		return ERR_CAST(ah);
	msg = ib_create_send_mad(agent, remote_qpn, pkey_index, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(msg)) {
		rdma_destroy_ah(ah, 0);
		return msg;
	}
	msg->ah = ah;
	kref_get(&port->cm_dev->ref);
	msg->context[1] = port;
	return msg;
}

/*
 * [sleep] A message to the peer of cm_id_priv along its path (av), holding a
 * reference on the cm_id; the caller sets timeout_ms and retries if an
 * answer is due.
 */
struct ib_mad_send_buf *cm_alloc_msg(struct cm_id_private *cm_id_priv)
{
	struct ib_mad_send_buf *msg;

	if (!cm_id_priv->av.port)
		return ERR_PTR(-EINVAL);
	msg = cm_create_msg(cm_id_priv->av.port, cm_id_priv->id.remote_cm_qpn,
			    cm_id_priv->av.pkey_index, &cm_id_priv->av.ah_attr, NULL, NULL);
	if (IS_ERR(msg))
		return msg;
	cm_id_get(cm_id_priv);
	msg->context[0] = cm_id_priv;
	return msg;
}

/* [sleep] A message answering a received one without a cm_id (sent once). */
struct ib_mad_send_buf *cm_alloc_response(struct cm_port *port,
					  struct ib_mad_recv_wc *mad_recv_wc)
{
	return cm_create_msg(port, mad_recv_wc->wc->src_qp, mad_recv_wc->wc->pkey_index,
			     NULL, mad_recv_wc->wc, mad_recv_wc->recv_buf.grh);
}

void cm_free_msg(struct ib_mad_send_buf *msg)
{
	struct cm_id_private *cm_id_priv = msg->context[0];
	struct cm_port *port = msg->context[1];

	if (msg->ah)
		rdma_destroy_ah(msg->ah, 0);
	ib_free_send_mad(msg);
	if (cm_id_priv)
		cm_id_put(cm_id_priv);
	cm_device_put(port->cm_dev);
}

/* The MAD header of every CM message (a Send, class 0x07 version 2). */
void cm_format_hdr(struct ib_mad_send_buf *msg, __be16 attr_id, __be64 tid)
{
	struct ib_mad_hdr *hdr = msg->mad;

	hdr->base_version = IB_MGMT_BASE_VERSION;
	hdr->mgmt_class = IB_MGMT_CLASS_CM;
	hdr->class_version = CM_CLASS_VERSION;
	hdr->method = IB_MGMT_METHOD_SEND;
	hdr->attr_id = attr_id;
	hdr->tid = tid;
}

/* [any] Post msg; on failure it is freed. */
int cm_post(struct ib_mad_send_buf *msg)
{
	int ret = ib_post_send_mad(msg, NULL);

	if (ret)
		cm_free_msg(msg);
	return ret;
}

/*
 * A send is done.  Counted as the port's transmissions of its attribute
 * (each retry too).  A message a cm_id was waiting on that failed other
 * than by being cancelled, while the cm_id is still in the state it was
 * sent from, becomes that cm_id's error event (recv.c).
 */
void cm_send_handler(struct ib_mad_agent *agent, struct ib_mad_send_wc *wc)
{
	struct ib_mad_send_buf *msg = wc->send_buf;
	struct cm_id_private *cm_id_priv = msg->context[0];
	struct cm_port *port = msg->context[1];
	struct ib_mad_hdr *hdr = msg->mad;
	long retries = msg->retries;
	unsigned long flags;
	bool failed = false;

	/* answers made without a cm_id count one retry, as upstream's */
	if (!cm_id_priv && hdr->attr_id != CM_REJ_ATTR_ID)
		retries = 1;
	cm_count(port, CM_XMIT, hdr->attr_id, 1 + retries);
	if (retries)
		cm_count(port, CM_XMIT_RETRIES, hdr->attr_id, retries);

	if (cm_id_priv) {
		spin_lock_irqsave(&cm_id_priv->lock, flags);
		if (cm_id_priv->msg == msg) {
			cm_id_priv->msg = NULL;
			failed = wc->status != IB_WC_SUCCESS &&
				 wc->status != IB_WC_WR_FLUSH_ERR;
		}
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		if (failed)
			cm_queue_local(cm_id_priv, CM_WORK_SEND_ERROR, wc->status);
	}
	cm_free_msg(msg);
}

/* --- address vectors -------------------------------------------------------- */

/*
 * An AV's address holds a reference on its source GID attribute when it has
 * a GRH (a path off the subnet, or a message that came with one): dropped
 * with the AV, or when a new address replaces it.
 */
void cm_av_put(struct cm_av *av)
{
	rdma_destroy_ah_attr(&av->ah_attr);
	if (av->port)
		cm_device_put(av->port->cm_dev);
	memset(av, 0, sizeof(*av));
}

/* [sleep] The AV of a path from one of the device's CM ports. */
int cm_init_av_by_path(struct sa_path_rec *path, struct cm_av *av, struct ib_device *device)
{
	struct rdma_ah_attr ah_attr = {};
	struct cm_port *port = NULL;
	u16 gid_index;
	u32 p;
	int ret;

	/* the port whose GID table has the path's source GID */
	ret = ib_find_gid(device, &path->sgid, &p, &gid_index);
	if (!ret)
		port = cm_port_of(device, p);
	if (!port)
		return -EINVAL;
	ret = ib_find_cached_pkey(device, p, be16_to_cpu(path->pkey), &av->pkey_index);
	if (ret)
		goto err;
	ret = ib_init_ah_attr_from_path(device, p, path, &ah_attr, NULL);
	if (ret)
		goto err;
	rdma_move_ah_attr(&av->ah_attr, &ah_attr);
	av->timeout = path->packet_life_time + 1;
	if (av->port)
		cm_device_put(av->port->cm_dev);
	av->port = port;
	return 0;
err:
	cm_device_put(port->cm_dev);
	return ret;
}

/* [sleep] The AV answering a received message, on the port it came to. */
int cm_init_av_for_response(struct cm_port *port, struct ib_wc *wc,
			    struct ib_grh *grh, struct cm_av *av)
{
	struct rdma_ah_attr ah_attr = {};
	int ret;

	ret = ib_init_ah_attr_from_wc(port->cm_dev->ib_device, port->port_num, wc, grh,
				      &ah_attr);
	if (ret)
		return ret;
	rdma_move_ah_attr(&av->ah_attr, &ah_attr);
	av->pkey_index = wc->pkey_index;
	if (av->port != port) {
		if (av->port)
			cm_device_put(av->port->cm_dev);
		kref_get(&port->cm_dev->ref);
		av->port = port;
	}
	return 0;
}

/* --- answers without a cm_id ------------------------------------------------ */

/* [sleep] An attr_id message answering a received one: its TID echoed. */
static struct ib_mad_send_buf *cm_answer(struct cm_port *port,
					 struct ib_mad_recv_wc *mad_recv_wc, __be16 attr_id)
{
	struct ib_mad_send_buf *msg = cm_alloc_response(port, mad_recv_wc);

	if (!IS_ERR(msg))
		cm_format_hdr(msg, attr_id, mad_recv_wc->recv_buf.mad->mad_hdr.tid);
	return msg;
}

/*
 * [sleep] A REJ to a message no cm_id takes: the IDs swapped from the
 * message (for a REQ there is no local ID yet), its TID echoed.
 */
void cm_issue_rej(struct cm_port *port, struct ib_mad_recv_wc *mad_recv_wc,
		  enum ib_cm_rej_reason reason, enum cm_msg_response msg_rejected,
		  const void *ari, u8 ari_length)
{
	const u8 *rcv = (const u8 *)mad_recv_wc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct ib_mad_send_buf *msg;
	u8 *d;

	msg = cm_answer(port, mad_recv_wc, CM_REJ_ATTR_ID);
	if (IS_ERR(msg))
		return;
	d = cm_data(msg);
	/* every CM message but SIDR starts with the two comm IDs */
	cm_set(d, CM_REJ_REMOTE_COMM_ID, cm_get(rcv, CMF(0, 0, 32)));
	if (msg_rejected != CM_MSG_RESPONSE_REQ)
		cm_set(d, CM_REJ_LOCAL_COMM_ID, cm_get(rcv, CMF(4, 0, 32)));
	cm_set(d, CM_REJ_MESSAGE_REJECTED, msg_rejected);
	cm_set(d, CM_REJ_REASON, reason);
	if (ari && ari_length) {
		ari_length = min_t(u8, ari_length, IB_CM_REJ_ARI_LENGTH);
		cm_set(d, CM_REJ_ARI_LENGTH, ari_length);
		memcpy(d + CM_REJ_ARI_BYTE, ari, ari_length);
	}
	cm_post(msg);
}

/* [sleep] A DREP to a DREQ of a connection we no longer know. */
void cm_issue_drep(struct cm_port *port, struct ib_mad_recv_wc *mad_recv_wc)
{
	const u8 *rcv = (const u8 *)mad_recv_wc->recv_buf.mad + IB_MGMT_MAD_HDR;
	struct ib_mad_send_buf *msg;
	u8 *d;

	msg = cm_answer(port, mad_recv_wc, CM_DREP_ATTR_ID);
	if (IS_ERR(msg))
		return;
	d = cm_data(msg);
	cm_set(d, CM_DREP_LOCAL_COMM_ID, cm_get(rcv, CM_DREQ_REMOTE_COMM_ID));
	cm_set(d, CM_DREP_REMOTE_COMM_ID, cm_get(rcv, CM_DREQ_LOCAL_COMM_ID));
	cm_post(msg);
}

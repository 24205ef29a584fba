// SPDX-License-Identifier: GPL-2.0
/*
 * ib_cm_init_qp_attr(): what each step of a connected QP's bring-up takes
 * from the negotiation (IBA 12.9.8).  INIT needs the port, P_Key and the
 * rights the peer's requests need; RTR the path, the peer's QP and the
 * receive PSN (and the alternate path if there is one); RTS the send PSN,
 * retries, the RDMA read depth and the ACK timeout, or after a LAP only
 * the new alternate path.  RTS may be reached before the REP is sent.
 */
#include "cm_priv.h"

/*
 * A connection under way or established: from the REQ received on (and
 * for INIT, from the REQ sent on: the active side's QP goes to INIT before
 * any answer).
 */
static bool cm_qp_state_ok(enum ib_cm_state state, bool init)
{
	switch (state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		return init;
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
	case IB_CM_ESTABLISHED:
		return true;
	default:
		return false;
	}
}

static int cm_qp_init_attr(struct cm_id_private *cm_id_priv, struct ib_qp_attr *attr,
			   int *mask)
{
	if (!cm_qp_state_ok(cm_id_priv->id.state, true))
		return -EINVAL;
	*mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX | IB_QP_PORT;
	attr->qp_access_flags = IB_ACCESS_REMOTE_WRITE;
	if (cm_id_priv->responder_resources)
		attr->qp_access_flags |= IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
	attr->pkey_index = cm_id_priv->av.pkey_index;
	if (cm_id_priv->av.port)
		attr->port_num = cm_id_priv->av.port->port_num;
	return 0;
}

static bool cm_has_alt_path(struct cm_id_private *cm_id_priv)
{
	return cm_id_priv->alt_av.port && rdma_ah_get_dlid(&cm_id_priv->alt_av.ah_attr);
}

static void cm_qp_alt_path(struct cm_id_private *cm_id_priv, struct ib_qp_attr *attr)
{
	attr->alt_port_num = cm_id_priv->alt_av.port->port_num;
	attr->alt_pkey_index = cm_id_priv->alt_av.pkey_index;
	attr->alt_timeout = cm_id_priv->alt_av.timeout;
	attr->alt_ah_attr = cm_id_priv->alt_av.ah_attr;
}

static int cm_qp_rtr_attr(struct cm_id_private *cm_id_priv, struct ib_qp_attr *attr,
			  int *mask)
{
	if (!cm_qp_state_ok(cm_id_priv->id.state, false))
		return -EINVAL;
	*mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN;
	attr->ah_attr = cm_id_priv->av.ah_attr;
	attr->path_mtu = cm_id_priv->path_mtu;
	attr->dest_qp_num = be32_to_cpu(cm_id_priv->remote_qpn);
	attr->rq_psn = be32_to_cpu(cm_id_priv->rq_psn);
	if (cm_id_priv->qp_type == IB_QPT_RC || cm_id_priv->qp_type == IB_QPT_XRC_TGT) {
		*mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
		attr->max_dest_rd_atomic = cm_id_priv->responder_resources;
		attr->min_rnr_timer = 0;
	}
	if (cm_has_alt_path(cm_id_priv)) {
		*mask |= IB_QP_ALT_PATH;
		cm_qp_alt_path(cm_id_priv, attr);
	}
	return 0;
}

static int cm_qp_rts_attr(struct cm_id_private *cm_id_priv, struct ib_qp_attr *attr,
			  int *mask)
{
	if (!cm_qp_state_ok(cm_id_priv->id.state, false))
		return -EINVAL;
	if (cm_id_priv->id.lap_state != IB_CM_LAP_UNINIT) {
		/* after a LAP: only the alternate path changes */
		*mask = IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE;
		if (cm_id_priv->alt_av.port)
			cm_qp_alt_path(cm_id_priv, attr);
		attr->path_mig_state = IB_MIG_REARM;
		return 0;
	}
	*mask = IB_QP_STATE | IB_QP_SQ_PSN;
	attr->sq_psn = be32_to_cpu(cm_id_priv->sq_psn);
	switch (cm_id_priv->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_XRC_INI:
		*mask |= IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC;
		attr->retry_cnt = cm_id_priv->retry_count;
		attr->rnr_retry = cm_id_priv->rnr_retry_count;
		attr->max_rd_atomic = cm_id_priv->initiator_depth;
		fallthrough;
	case IB_QPT_XRC_TGT:
		*mask |= IB_QP_TIMEOUT;
		attr->timeout = cm_id_priv->av.timeout;
		break;
	default:
		break;
	}
	if (cm_has_alt_path(cm_id_priv)) {
		*mask |= IB_QP_PATH_MIG_STATE;
		attr->path_mig_state = IB_MIG_REARM;
	}
	return 0;
}

int ib_cm_init_qp_attr(struct ib_cm_id *cm_id, struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	struct cm_id_private *cm_id_priv = to_cm_id_priv(cm_id);
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&cm_id_priv->lock, flags);
	switch (qp_attr->qp_state) {
	case IB_QPS_INIT:
		ret = cm_qp_init_attr(cm_id_priv, qp_attr, qp_attr_mask);
		break;
	case IB_QPS_RTR:
		ret = cm_qp_rtr_attr(cm_id_priv, qp_attr, qp_attr_mask);
		break;
	case IB_QPS_RTS:
		ret = cm_qp_rts_attr(cm_id_priv, qp_attr, qp_attr_mask);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_cm_init_qp_attr);

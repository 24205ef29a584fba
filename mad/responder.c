// SPDX-License-Identifier: GPL-2.0
/*
 * The local responder: requests from the wire go to the driver's SMA/PMA
 * (process_mad) first, and its reply is sent back on the same QP; requests
 * no agent claims get an error response.  Replies go out through one
 * internal send-only agent per QP.
 */
#include <linux/slab.h>

#include "mad_priv.h"

static void mad_responder_sent(struct ib_mad_agent *agent, struct ib_mad_send_wc *wc)
{
	struct ib_ah *ah = wc->send_buf->ah;

	if (wc->status != IB_WC_SUCCESS)
		mad_dbg_rl("reply not sent: %s\n", ib_wc_status_msg(wc->status));
	ib_free_send_mad(wc->send_buf);
	rdma_destroy_ah(ah, 0);
}

/* [sleep] */
int mad_responder_open(struct mad_port *port)
{
	struct ib_mad_agent *a;
	int i;

	for (i = 0; i < 2; i++) {
		a = mad_register(port, i ? IB_QPT_GSI : IB_QPT_SMI, NULL, 0,
				 mad_responder_sent, NULL, port, 0);
		if (IS_ERR(a))
			goto err;
		port->responder[i] = a;
	}
	return 0;

err:
	mad_responder_close(port);
	return PTR_ERR(a);
}

/* [sleep] */
void mad_responder_close(struct mad_port *port)
{
	struct ib_mad_agent *a;
	int i;

	for (i = 0; i < 2; i++) {
		spin_lock_irq(&port->agent_lock);
		a = port->responder[i];
		port->responder[i] = NULL;
		spin_unlock_irq(&port->agent_lock);
		if (a)
			ib_unregister_mad_agent(a);
	}
}

/* the AH a reply to wc takes: DR replies go to the permissive LID */
static struct ib_ah *mad_reply_ah(struct mad_port *port, const struct ib_wc *wc,
				  const struct ib_grh *grh, const struct ib_mad *reply)
{
	const struct ib_smp *smp = (const struct ib_smp *)reply;
	struct rdma_ah_attr attr = {};

	if (reply->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE &&
	    (smp->hop_cnt || smp->dr_dlid == IB_LID_PERMISSIVE)) {
		attr.type = rdma_ah_find_type(port->device, port->port_num);
		rdma_ah_set_dlid(&attr, be16_to_cpu(IB_LID_PERMISSIVE));
		rdma_ah_set_port_num(&attr, port->port_num);
		return rdma_create_ah(port->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	}
	return ib_create_ah_from_wc(port->pd, wc, wc->wc_flags & IB_WC_GRH ? grh : NULL,
				    port->port_num);
}

/*
 * [sleep] Sends reply (256 bytes) back to where wc (with grh) came from:
 * replies of the responder, and RMPP ACKs, STOPs and ABORTs.
 */
void mad_send_back(struct mad_port *port, struct mad_qp *mqp, const struct ib_wc *wc,
		   const struct ib_grh *grh, const struct ib_mad *reply)
{
	struct ib_mad_send_buf *buf;
	struct ib_mad_agent *agent;
	struct mad_agent_priv *ap;
	struct ib_ah *ah;
	int ret;

	spin_lock_irq(&port->agent_lock);
	agent = port->responder[mad_qp_index(mqp->type)];
	ap = agent ? to_agent(agent) : NULL;
	if (ap)
		mad_agent_get(ap);
	spin_unlock_irq(&port->agent_lock);
	if (!ap)
		return;

	ah = mad_reply_ah(port, wc, grh, reply);
	if (IS_ERR(ah)) {
		mad_dbg_rl("port %u: no AH for a reply: %ld\n", port->port_num, PTR_ERR(ah));
		goto out;
	}
	buf = ib_create_send_mad(agent, wc->src_qp, wc->pkey_index, 0,
				 IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf)) {
		rdma_destroy_ah(ah, 0);
		goto out;
	}
	memcpy(buf->mad, reply, IB_MGMT_MAD_SIZE);
	buf->ah = ah;
	ret = ib_post_send_mad(buf, NULL);
	if (ret) {
		mad_dbg_rl("port %u: reply not posted: %d\n", port->port_num, ret);
		ib_free_send_mad(buf);
		rdma_destroy_ah(ah, 0);
	}
out:
	mad_agent_put(ap);
}

/*
 * [sleep] The driver's right of first refusal on a request from the wire.
 * True if it answered or consumed r (then r is freed).
 */
bool mad_responder(struct mad_port *port, struct mad_qp *mqp, struct mad_recv *r)
{
	const struct ib_mad_hdr *hdr = recv_hdr(r);
	struct ib_mad *out;
	int ret;

	if (hdr->method & IB_MGMT_METHOD_RESP)
		return false;
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!out)
		return false;
	ret = port->device->ops.process_mad(port->device, 0, port->port_num, &r->wc,
					     r->wc.wc_flags & IB_WC_GRH ?
					     r->rwc.recv_buf.grh : NULL,
					     r->rwc.recv_buf.mad, out);
	if (!(ret & IB_MAD_RESULT_SUCCESS) ||
	    !(ret & (IB_MAD_RESULT_REPLY | IB_MAD_RESULT_CONSUMED))) {
		kfree(out);
		return false;
	}
	if (!(ret & IB_MAD_RESULT_CONSUMED))
		mad_send_back(port, mqp, &r->wc, r->rwc.recv_buf.grh, out);
	kfree(out);
	ib_free_recv_mad(&r->rwc);
	return true;
}

/* [sleep] a Get or Set no agent claims: answer "unsupported" */
void mad_reply_unclaimed(struct mad_port *port, struct mad_qp *mqp, struct mad_recv *r)
{
	const struct ib_mad_hdr *hdr = recv_hdr(r);
	struct ib_mad *out;
	__be16 status = cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);

	if (hdr->method != IB_MGMT_METHOD_GET && hdr->method != IB_MGMT_METHOD_SET)
		return;
	out = kmemdup(r->rwc.recv_buf.mad, sizeof(*out), GFP_KERNEL);
	if (!out)
		return;
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	if (hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		status |= IB_SMP_DIRECTION;
	out->mad_hdr.status = status;
	mad_send_back(port, mqp, &r->wc, r->rwc.recv_buf.grh, out);
	kfree(out);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The port's CQ work: polls completions, gives receive buffers back to the
 * QP, checks what arrived and dispatches it (SMI, the local responder, the
 * agents).  Everything here runs in process context on the port's work
 * queue.
 */
#include <linux/slab.h>

#include "mad_priv.h"

#define MAD_POLL_BATCH	16
#define MAD_POLL_BUDGET	256

int ib_response_mad(const struct ib_mad_hdr *hdr)
{
	return (hdr->method & IB_MGMT_METHOD_RESP) ||
	       hdr->method == IB_MGMT_METHOD_TRAP_REPRESS ||
	       (hdr->mgmt_class == IB_MGMT_CLASS_BM &&
		(hdr->attr_mod & IB_BM_ATTR_MOD_RESP));
}
EXPORT_SYMBOL(ib_response_mad);

/*
 * The checks of IBA 13.4 / 14.2 that ib_mad makes before dispatch.  A class
 * version nobody speaks is not one of them: the SMA (for SMPs) answers it
 * with the BAD_VERSION status, as a MAD of its class must be answered.
 */
static bool mad_recv_valid(struct mad_qp *mqp, struct mad_recv *r)
{
	const struct ib_mad_hdr *hdr = recv_hdr(r);

	if (r->wc.byte_len < MAD_GRH_SIZE + IB_MGMT_MAD_HDR)
		return false;
	if (hdr->base_version != IB_MGMT_BASE_VERSION)
		return false;
	if (mad_class_is_smp(hdr->mgmt_class) != mad_qp_type_is_smi(mqp->type))
		return false;
	/* CM attributes but ClassPortInfo travel only as Send (upstream drops them) */
	if (hdr->mgmt_class == IB_MGMT_CLASS_CM &&
	    hdr->attr_id != IB_MGMT_CLASSPORTINFO_ATTR_ID &&
	    hdr->method != IB_MGMT_METHOD_SEND)
		return false;
	return true;
}

/*
 * [sleep] Hands r to the agent it is for: a response to the agent whose TID
 * it carries (with its request), a request to the agent claiming its
 * method.  Takes r.
 */
static void mad_dispatch_agents(struct mad_port *port, struct mad_qp *mqp,
				struct mad_recv *r)
{
	struct ib_mad_hdr *hdr = recv_hdr(r);
	bool response = ib_response_mad(hdr);
	struct mad_agent_priv *ap;

	if (response)
		ap = mad_find_by_tid(port, mqp, hdr);
	else
		ap = mad_find_by_method(port, mqp, r->rwc.recv_buf.mad);
	if (!ap) {
		if (!response && !mad_rmpp_is_ctl(hdr))
			mad_reply_unclaimed(port, mqp, r);
		mad_dbg_rl("port %u: no agent for class 0x%x method 0x%x\n",
			   port->port_num, hdr->mgmt_class, hdr->method);
		ib_free_recv_mad(&r->rwc);
		return;
	}

	if (ib_mad_kernel_rmpp_agent(&ap->agent) &&
	    ib_is_mad_class_rmpp(hdr->mgmt_class) && mad_rmpp_is_active(hdr)) {
		/* segments, ACKs, STOPs, ABORTs: rmpp_recv.c takes r and ap */
		if (mad_rmpp_recv(ap, r))
			return;
	}
	mad_deliver_matched(ap, r);
}

/*
 * An agent doing RMPP itself sees every active RMPP MAD for it, answering
 * one of its requests or not (its ACKs, for one).
 */
static bool mad_user_rmpp_mad(struct mad_agent_priv *ap, const struct ib_mad_hdr *hdr)
{
	return ap->agent.rmpp_version && !ib_mad_kernel_rmpp_agent(&ap->agent) &&
	       ib_is_mad_class_rmpp(hdr->mgmt_class) && mad_rmpp_is_active(hdr);
}

/*
 * [any] Queues r for ap (taking r and the caller's reference on ap): a
 * response only if it answers one of ap's requests (or is RMPP an agent
 * with user RMPP handles).
 */
void mad_deliver_matched(struct mad_agent_priv *ap, struct mad_recv *r)
{
	struct ib_mad_hdr *hdr = recv_hdr(r);
	struct mad_send_wr *sw = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ap->lock, flags);
	if (ib_response_mad(hdr)) {
		sw = mad_match_send(ap, hdr);
		if ((!sw && !mad_user_rmpp_mad(ap, hdr)) || ap->dying) {
			spin_unlock_irqrestore(&ap->lock, flags);
			mad_dbg_rl("unexpected response class 0x%x tid 0x%llx\n",
				   hdr->mgmt_class, be64_to_cpu(hdr->tid));
			ib_free_recv_mad(&r->rwc);
			mad_agent_put(ap);
			return;
		}
	}
	r->match = sw ? &sw->buf : NULL;
	r->ev.kind = MAD_EV_RECV;
	list_add_tail(&r->ev.entry, &ap->events);
	queue_work(ap->port->wq, &ap->deliver_work);
	if (sw)
		mad_response_arrived(sw);
	spin_unlock_irqrestore(&ap->lock, flags);
}

/* [sleep] a MAD from the wire (or fabricated by local processing) */
void mad_dispatch(struct mad_port *port, struct mad_qp *mqp, struct mad_recv *r)
{
	struct ib_mad_hdr *hdr = recv_hdr(r);

	if (!mad_recv_valid(mqp, r)) {
		mad_dbg_rl("port %u QP%d: invalid MAD dropped (class 0x%x)\n",
			   port->port_num, mqp->type, hdr->mgmt_class);
		ib_free_recv_mad(&r->rwc);
		return;
	}
	if (hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE &&
	    !mad_smi_incoming_for_us((struct ib_smp *)hdr, port->port_num)) {
		mad_dbg_rl("port %u: DR SMP not for this CA dropped\n", port->port_num);
		ib_free_recv_mad(&r->rwc);
		return;
	}
	if (mad_responder(port, mqp, r))
		return;
	mad_dispatch_agents(port, mqp, r);
}

/* [sleep] a local MAD that needs no SMI or responder processing */
void mad_dispatch_local(struct mad_port *port, struct mad_qp *mqp, struct mad_recv *r)
{
	mad_dispatch_agents(port, mqp, r);
}

static void mad_recv_done(struct mad_port *port, struct ib_wc *wc)
{
	struct mad_recv *r = (struct mad_recv *)(uintptr_t)(wc->wr_id & ~1ULL);
	struct mad_qp *mqp = r->mqp;
	struct mad_recv *fresh;

	mad_recv_unmap(r);
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			mad_warn_rl("port %u QP%d: receive error %s\n", port->port_num,
				    mqp->type, ib_wc_status_msg(wc->status));
		if (wc->status == IB_WC_WR_FLUSH_ERR || mad_recv_post(mqp, r))
			kfree(r);
		return;
	}

	fresh = mad_recv_alloc(GFP_KERNEL);
	if (!fresh) {
		/* keep the ring full rather than this MAD */
		mad_warn_rl("port %u: no memory, MAD dropped\n", port->port_num);
		if (mad_recv_post(mqp, r))
			kfree(r);
		return;
	}
	if (mad_recv_post(mqp, fresh))
		kfree(fresh);

	/* nothing of an earlier use of the buffer may reach an agent */
	if (wc->byte_len < MAD_RECV_BUF)
		memset(r->buf + wc->byte_len, 0, MAD_RECV_BUF - wc->byte_len);
	if (!(wc->wc_flags & IB_WC_GRH))
		memset(r->buf, 0, MAD_GRH_SIZE);
	r->wc = *wc;
	r->wc.qp = mqp->qp;
	if (!r->wc.port_num)
		r->wc.port_num = port->port_num;
	mad_recv_init(r);
	r->rwc.wc = &r->wc;
	mad_dispatch(port, mqp, r);
}

static void mad_send_done(struct ib_wc *wc)
{
	struct mad_send_wr *sw = (struct mad_send_wr *)(uintptr_t)wc->wr_id;

	mad_sq_done(sw->agent->mqp, sw);
	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		mad_warn_rl("send error %s\n", ib_wc_status_msg(wc->status));
	mad_send_sent(sw, wc->status);
}

void mad_cq_work(struct work_struct *work)
{
	struct mad_port *port = container_of(work, struct mad_port, cq_work);
	struct ib_wc wc[MAD_POLL_BATCH];
	int done = 0, n, i;

	for (;;) {
		n = ib_poll_cq(port->cq, MAD_POLL_BATCH, wc);
		if (n < 0) {
			mad_warn_rl("port %u: poll_cq %d\n", port->port_num, n);
			return;
		}
		for (i = 0; i < n; i++) {
			if (wc[i].wr_id & 1)
				mad_recv_done(port, &wc[i]);
			else
				mad_send_done(&wc[i]);
		}
		done += n;
		if (done >= MAD_POLL_BUDGET) {
			/* let the agents' work run; come back for the rest */
			mad_port_kick(port);
			return;
		}
		if (n)
			continue;
		if (ib_req_notify_cq(port->cq, IB_CQ_NEXT_COMP |
				     IB_CQ_REPORT_MISSED_EVENTS) <= 0)
			return;
	}
}

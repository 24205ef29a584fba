// SPDX-License-Identifier: GPL-2.0
/*
 * Directed-route SMPs that end at this node are never put on the wire:
 * the port's local work hands an outbound one to the driver's SMA
 * (process_mad) and delivers its reply to the sending agent as a received
 * response, or, if the SMA does not take it, to the agent claiming it (a
 * local SM); a returning one goes straight to the agent it answers.  The
 * send itself then completes as if it had been sent.
 */
#include <linux/slab.h>

#include "mad_priv.h"

/* [any] agent lock held: sw waits for the local work */
void mad_local_queue(struct mad_send_wr *sw)
{
	struct mad_port *port = sw->agent->port;
	unsigned long flags;

	lockdep_assert_held(&sw->agent->lock);
	spin_lock_irqsave(&port->local_lock, flags);
	list_add_tail(&sw->qp_entry, &port->local_list);
	queue_work(port->wq, &port->local_work);
	spin_unlock_irqrestore(&port->local_lock, flags);
}

/*
 * The completion the SMP would have if it came from the wire: on QP0 from
 * QP0, from the SMP's DrSLID.  The SMA gets it with the SMP, so that
 * it checks the M_Key (and B_Key) as for any SMP from the fabric: a local
 * SubnSet is no way around the port's key protection.
 */
static void mad_local_wc(struct mad_recv *r, struct mad_send_wr *sw,
			 const struct ib_smp *smp)
{
	struct mad_qp *mqp = sw->agent->mqp;

	memset(&r->wc, 0, sizeof(r->wc));
	r->wc.status = IB_WC_SUCCESS;
	r->wc.opcode = IB_WC_RECV;
	r->wc.qp = mqp->qp;
	r->wc.src_qp = mqp->qp->qp_num;
	r->wc.slid = be16_to_cpu(smp->dr_slid);
	r->wc.pkey_index = sw->pkey_index;
	r->wc.port_num = sw->agent->port->port_num;
	r->wc.byte_len = MAD_RECV_BUF;
}

static void mad_local_one(struct mad_port *port, struct mad_send_wr *sw)
{
	const struct ib_mad *req = (const struct ib_mad *)sw->wire;
	struct mad_qp *mqp = sw->agent->mqp;
	struct mad_recv *r;
	int ret;

	r = mad_recv_alloc(GFP_KERNEL);
	if (!r) {
		mad_send_sent(sw, IB_WC_GENERAL_ERR);
		return;
	}
	mad_local_wc(r, sw, (const struct ib_smp *)req);
	memset(r->buf, 0, MAD_GRH_SIZE);

	if (ib_response_mad(&req->mad_hdr)) {
		/* back at its origin: for the agent that asked */
		memcpy(r->rwc.recv_buf.mad, req, IB_MGMT_MAD_SIZE);
		mad_send_sent(sw, IB_WC_SUCCESS);
		mad_dispatch_local(port, mqp, r);
		return;
	}

	/* no GRH: a DR SMP never has one */
	ret = port->device->ops.process_mad(port->device, 0, port->port_num,
					     &r->wc, NULL, req, r->rwc.recv_buf.mad);
	if (!(ret & IB_MAD_RESULT_SUCCESS)) {
		mad_dbg_rl("port %u: local SMP 0x%x refused by the SMA\n",
			   port->port_num, be16_to_cpu(req->mad_hdr.attr_id));
		ib_free_recv_mad(&r->rwc);
		mad_send_sent(sw, IB_WC_GENERAL_ERR);
		return;
	}
	if (ret & IB_MAD_RESULT_CONSUMED) {
		ib_free_recv_mad(&r->rwc);
		mad_send_sent(sw, IB_WC_SUCCESS);
		return;
	}
	/* not the SMA's: the request itself goes to a local agent (an SM) */
	if (!(ret & IB_MAD_RESULT_REPLY))
		memcpy(r->rwc.recv_buf.mad, req, IB_MGMT_MAD_SIZE);
	mad_send_sent(sw, IB_WC_SUCCESS);
	mad_dispatch_local(port, mqp, r);
}

void mad_local_work(struct work_struct *work)
{
	struct mad_port *port = container_of(work, struct mad_port, local_work);
	struct mad_send_wr *sw;

	for (;;) {
		spin_lock_irq(&port->local_lock);
		sw = list_first_entry_or_null(&port->local_list, struct mad_send_wr,
					      qp_entry);
		if (sw)
			list_del_init(&sw->qp_entry);
		spin_unlock_irq(&port->local_lock);
		if (!sw)
			return;
		mad_local_one(port, sw);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A port's MAD resources: PD, CQ, QP0 and QP1 in RTS with their receive
 * buffers posted, the ordered work queue, and their teardown.
 */
#include <linux/slab.h>

#include "mad_priv.h"

#define MAD_CQ_SIZE	(2 * (MAD_RECV_RING + MAD_SEND_MAX))

/* [any] CQ completion handler: the polling is done by the work */
static void mad_cq_comp(struct ib_cq *cq, void *ctx)
{
	mad_port_kick(ctx);
}

/* [any] queue the CQ work unless the port is going away */
void mad_port_kick(struct mad_port *port)
{
	unsigned long flags;

	spin_lock_irqsave(&port->agent_lock, flags);
	if (!port->stopping)
		queue_work(port->wq, &port->cq_work);
	spin_unlock_irqrestore(&port->agent_lock, flags);
}

static void mad_qp_event(struct ib_event *event, void *ctx)
{
	struct mad_qp *mqp = ctx;

	dev_warn_ratelimited(&mqp->port->device->dev,
			     MAD_NAME ": port %u QP%u event %s\n",
			     mqp->port->port_num, mqp->qp->qp_num,
			     ib_event_msg(event->event));
}

static int mad_qp_to_rts(struct mad_qp *mqp)
{
	struct ib_qp_attr attr = {};
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.qkey = mqp->type == IB_QPT_SMI ? 0 : IB_QP1_QKEY;
	ret = ib_modify_qp(mqp->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_QKEY);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(mqp->qp, &attr, IB_QP_STATE);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(mqp->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

static int mad_qp_open(struct mad_port *port, int idx)
{
	struct mad_qp *mqp = &port->qp[idx];
	struct ib_qp_init_attr init = {};
	int ret;

	mqp->port = port;
	mqp->type = idx ? IB_QPT_GSI : IB_QPT_SMI;
	spin_lock_init(&mqp->sq_lock);
	spin_lock_init(&mqp->rq_lock);
	INIT_LIST_HEAD(&mqp->overflow);
	INIT_LIST_HEAD(&mqp->rq_list);

	init.event_handler = mad_qp_event;
	init.qp_context = mqp;
	init.send_cq = port->cq;
	init.recv_cq = port->cq;
	init.cap.max_send_wr = MAD_SEND_MAX;
	init.cap.max_recv_wr = MAD_RECV_RING;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	init.sq_sig_type = IB_SIGNAL_ALL_WR;
	init.qp_type = mqp->type;
	init.port_num = port->port_num;
	mqp->qp = ib_create_qp(port->pd, &init);
	if (IS_ERR(mqp->qp)) {
		ret = PTR_ERR(mqp->qp);
		mqp->qp = NULL;
		return ret;
	}
	ret = mad_qp_to_rts(mqp);
	if (ret)
		goto err_qp;
	ret = mad_recv_fill(mqp);
	if (ret)
		goto err_recv;
	return 0;

err_recv:
	mad_recv_drain(mqp);
err_qp:
	ib_destroy_qp(mqp->qp);
	mqp->qp = NULL;
	return ret;
}

/* [sleep] the QP is in the error state already; its WRs are flushed */
static void mad_qp_close(struct mad_qp *mqp)
{
	if (!mqp->qp)
		return;
	ib_destroy_qp(mqp->qp);
	mqp->qp = NULL;
	mad_recv_drain(mqp);
}

static void mad_qp_to_err(struct mad_qp *mqp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	if (mqp->qp && ib_modify_qp(mqp->qp, &attr, IB_QP_STATE))
		dev_warn(&mqp->port->device->dev, MAD_NAME ": QP%u to error failed\n",
			 mqp->qp->qp_num);
}

/* [sleep] */
int mad_port_open(struct mad_port *port, struct ib_device *device, u32 port_num)
{
	struct ib_cq_init_attr cq_attr = { .cqe = MAD_CQ_SIZE };
	int ret;

	port->device = device;
	port->port_num = port_num;
	spin_lock_init(&port->agent_lock);
	spin_lock_init(&port->local_lock);
	INIT_LIST_HEAD(&port->agents);
	INIT_LIST_HEAD(&port->local_list);
	INIT_WORK(&port->cq_work, mad_cq_work);
	INIT_WORK(&port->local_work, mad_local_work);

	port->wq = alloc_ordered_workqueue("ib_mad-%s-%u", WQ_MEM_RECLAIM,
					   device->name, port_num);
	if (!port->wq)
		return -ENOMEM;
	port->pd = ib_alloc_pd(device, 0);
	if (IS_ERR(port->pd)) {
		ret = PTR_ERR(port->pd);
		goto err_wq;
	}
	port->cq = ib_create_cq(device, mad_cq_comp, NULL, port, &cq_attr);
	if (IS_ERR(port->cq)) {
		ret = PTR_ERR(port->cq);
		goto err_pd;
	}
	ret = mad_qp_open(port, 0);
	if (ret)
		goto err_cq;
	ret = mad_qp_open(port, 1);
	if (ret)
		goto err_qp0;
	ret = ib_req_notify_cq(port->cq, IB_CQ_NEXT_COMP);
	if (ret)
		goto err_qp1;
	ret = mad_responder_open(port);
	if (ret)
		goto err_qp1;
	return 0;

err_qp1:
	mad_qp_to_err(&port->qp[1]);
err_qp0:
	mad_qp_to_err(&port->qp[0]);
	spin_lock_irq(&port->agent_lock);
	port->stopping = true;
	spin_unlock_irq(&port->agent_lock);
	cancel_work_sync(&port->cq_work);
	mad_qp_close(&port->qp[1]);
	mad_qp_close(&port->qp[0]);
err_cq:
	ib_destroy_cq(port->cq);
err_pd:
	ib_dealloc_pd(port->pd);
err_wq:
	destroy_workqueue(port->wq);
	return ret;
}

/* [sleep] */
void mad_port_close(struct mad_port *port)
{
	/* flush what the QPs hold: sends complete with IB_WC_WR_FLUSH_ERR */
	mad_qp_to_err(&port->qp[0]);
	mad_qp_to_err(&port->qp[1]);
	mad_responder_close(port);
	mad_unregister_all(port);

	spin_lock_irq(&port->agent_lock);
	port->stopping = true;
	spin_unlock_irq(&port->agent_lock);
	cancel_work_sync(&port->cq_work);
	flush_workqueue(port->wq);

	mad_qp_close(&port->qp[1]);
	mad_qp_close(&port->qp[0]);
	ib_destroy_cq(port->cq);
	ib_dealloc_pd(port->pd);
	destroy_workqueue(port->wq);
}

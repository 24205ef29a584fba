// SPDX-License-Identifier: GPL-2.0
/*
 * Receiving: every CM message the port's agent gets is counted and queued
 * to cm.wq as a work item, which finds the cm_id it concerns and runs its
 * message's handler (conn.c, disc.c, sidr.c, lap.c).  Local events (a send
 * out of retries, ib_cm_notify()) take the same road, so that a cm_id's
 * handler is only ever called from cm.wq, one event at a time.
 */
#include <linux/slab.h>
#include "cm_priv.h"

typedef void (*cm_msg_handler)(struct cm_work *work);

/* by attribute ID - 0x10 */
static const cm_msg_handler cm_msg_handlers[CM_ATTR_COUNT] = {
	cm_req_handler,		/* 0x10 REQ */
	cm_mra_handler,		/* 0x11 MRA */
	cm_rej_handler,		/* 0x12 REJ */
	cm_rep_handler,		/* 0x13 REP */
	cm_rtu_handler,		/* 0x14 RTU */
	cm_dreq_handler,	/* 0x15 DREQ */
	cm_drep_handler,	/* 0x16 DREP */
	cm_sidr_req_handler,	/* 0x17 SIDR REQ */
	cm_sidr_rep_handler,	/* 0x18 SIDR REP */
	cm_lap_handler,		/* 0x19 LAP */
	cm_apr_handler,		/* 0x1a APR */
};

static void cm_work_free(struct cm_work *work)
{
	if (work->mad_recv_wc)
		ib_free_recv_mad(work->mad_recv_wc);
	if (work->port)
		cm_device_put(work->port->cm_dev);
	kfree(work);
}

static void cm_work_fn(struct work_struct *w)
{
	struct cm_work *work = container_of(w, struct cm_work, work);
	unsigned int i;

	switch (work->kind) {
	case CM_WORK_RECV:
		i = be16_to_cpu(work->mad_recv_wc->recv_buf.mad->mad_hdr.attr_id) -
		    CM_ATTR_FIRST;
		cm_msg_handlers[i](work);
		break;
	default:
		cm_local_handler(work);
		break;
	}
	cm_work_free(work);
}

void cm_recv_handler(struct ib_mad_agent *agent, struct ib_mad_send_buf *send_buf,
		     struct ib_mad_recv_wc *mad_recv_wc)
{
	struct cm_port *port = agent->context;
	struct ib_mad_hdr *hdr = &mad_recv_wc->recv_buf.mad->mad_hdr;
	unsigned int i = be16_to_cpu(hdr->attr_id) - CM_ATTR_FIRST;
	struct cm_work *work;
	unsigned long flags;
	bool queued = false;

	/* unknown attributes are dropped without a word, as upstream does */
	if (i >= CM_ATTR_COUNT)
		goto drop;
	cm_count(port, CM_RECV, hdr->attr_id, 1);

	work = kzalloc(sizeof(*work), GFP_KERNEL);
	if (!work)
		goto drop;
	INIT_WORK(&work->work, cm_work_fn);
	work->kind = CM_WORK_RECV;
	work->mad_recv_wc = mad_recv_wc;

	/* the device's removal flushes cm.wq after setting going_down */
	spin_lock_irqsave(&cm.lock, flags);
	if (!port->cm_dev->going_down) {
		kref_get(&port->cm_dev->ref);
		work->port = port;
		queue_work(cm.wq, &work->work);
		queued = true;
	}
	spin_unlock_irqrestore(&cm.lock, flags);
	if (queued)
		return;
	kfree(work);
drop:
	ib_free_recv_mad(mad_recv_wc);
}

/*
 * [any] A local event for cm_id_priv, run from cm.wq: a send that failed
 * in the cm_id's current state, or ib_cm_notify().
 */
void cm_queue_local(struct cm_id_private *cm_id_priv, enum cm_work_kind kind,
		    enum ib_wc_status status)
{
	struct cm_work *work = kzalloc(sizeof(*work), GFP_ATOMIC);
	unsigned long flags;

	if (!work) {
		cm_warn_rl("cm_id 0x%x: no memory for a local event (%d)\n",
			   be32_to_cpu(cm_id_priv->id.local_id), kind);
		return;
	}
	INIT_WORK(&work->work, cm_work_fn);
	work->kind = kind;
	work->status = status;
	work->local_id = cm_id_priv->id.local_id;
	spin_lock_irqsave(&cm_id_priv->lock, flags);
	work->state = cm_id_priv->id.state;
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);
	queue_work(cm.wq, &work->work);
}

/*
 * [cm.wq] Give event to cm_id_priv's handler.  Consumes the caller's
 * reference; a non-zero return from the handler destroys the cm_id.
 */
int cm_deliver(struct cm_id_private *cm_id_priv, struct ib_cm_event *event)
{
	int ret = cm_id_priv->id.cm_handler(&cm_id_priv->id, event);

	cm_id_put(cm_id_priv);
	if (ret)
		cm_destroy_id(&cm_id_priv->id, ret);
	return ret;
}

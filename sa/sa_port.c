// SPDX-License-Identifier: GPL-2.0
/*
 * Per port: the SA MAD agent, the address handle of the port's SM, and the
 * port events that change it (and lose the multicast memberships).
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include "sa_priv.h"

static void sa_sm_ah_release(struct kref *ref)
{
	struct sa_sm_ah *sm_ah = container_of(ref, struct sa_sm_ah, ref);

	rdma_destroy_ah(sm_ah->ah, 0);
	kfree(sm_ah);
}

void sa_sm_ah_put(struct sa_sm_ah *sm_ah)
{
	kref_put(&sm_ah->ref, sa_sm_ah_release);
}

/*
 * [any] A reference on the port's SM address, or NULL with *err:
 * -ENODEV (no MAD agent, device going away), -EAGAIN (no SM address: the
 * port is not ACTIVE, or a port event made ib_sa look for the SM again
 * and it has not found it yet).
 */
struct sa_sm_ah *sa_sm_ah_get(struct sa_port *port, int *err)
{
	struct sa_sm_ah *sm_ah = NULL;
	unsigned long flags;

	spin_lock_irqsave(&port->ah_lock, flags);
	if (port->dead || !port->agent)
		*err = -ENODEV;
	else if (!port->active || !port->sm_ah)
		*err = -EAGAIN;
	else
		sm_ah = port->sm_ah;
	if (sm_ah)
		kref_get(&sm_ah->ref);
	spin_unlock_irqrestore(&port->ah_lock, flags);
	return sm_ah;
}

static u16 sa_default_pkey_index(struct sa_port *port)
{
	struct ib_device *device = port->sa_dev->device;
	u16 index;

	if (!ib_find_cached_pkey(device, port->port_num, IB_DEFAULT_PKEY_FULL,
				 &index))
		return index;
	if (!ib_find_cached_pkey(device, port->port_num,
				 IB_DEFAULT_PKEY_PARTIAL, &index))
		return index;
	return 0;
}

static struct sa_sm_ah *sa_sm_ah_create(struct sa_port *port,
					const struct ib_port_attr *attr)
{
	struct ib_device *device = port->sa_dev->device;
	struct rdma_ah_attr ah_attr = {};
	struct sa_sm_ah *sm_ah;

	if (!attr->sm_lid || attr->sm_lid >= 0xc000)
		return NULL;
	sm_ah = kzalloc(sizeof(*sm_ah), GFP_KERNEL);
	if (!sm_ah)
		return NULL;
	kref_init(&sm_ah->ref);
	ah_attr.type = rdma_ah_find_type(device, port->port_num);
	rdma_ah_set_dlid(&ah_attr, attr->sm_lid);
	rdma_ah_set_sl(&ah_attr, attr->sm_sl);
	rdma_ah_set_port_num(&ah_attr, port->port_num);
	sm_ah->ah = rdma_create_ah(port->agent->qp->pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(sm_ah->ah)) {
		pr_warn_ratelimited(SA_PFX "%s port %u: no AH to the SM (LID %u): %ld\n",
				    dev_name(&port->sa_dev->device->dev),
				    port->port_num, attr->sm_lid,
				    PTR_ERR(sm_ah->ah));
		kfree(sm_ah);
		return NULL;
	}
	sm_ah->sm_lid = attr->sm_lid;
	sm_ah->pkey_index = sa_default_pkey_index(port);
	return sm_ah;
}

static void sa_port_update(struct work_struct *work)
{
	struct sa_port *port = container_of(work, struct sa_port, update_work);
	struct sa_sm_ah *new_ah = NULL, *old_ah;
	struct ib_port_attr attr;
	unsigned long flags;
	bool active;

	if (ib_query_port(port->sa_dev->device, port->port_num, &attr))
		attr.state = IB_PORT_DOWN;
	active = attr.state == IB_PORT_ACTIVE;
	if (active && port->agent)
		new_ah = sa_sm_ah_create(port, &attr);

	spin_lock_irqsave(&port->ah_lock, flags);
	if (port->dead) {
		spin_unlock_irqrestore(&port->ah_lock, flags);
		if (new_ah)
			sa_sm_ah_put(new_ah);
		return;
	}
	old_ah = port->sm_ah;
	port->sm_ah = new_ah;
	port->active = active;
	spin_unlock_irqrestore(&port->ah_lock, flags);
	if (old_ah)
		sa_sm_ah_put(old_ah);
}

void sa_event_handler(struct ib_event_handler *handler, struct ib_event *event)
{
	struct sa_device *sa_dev = container_of(handler, struct sa_device,
						event_handler);
	struct sa_sm_ah *old_ah;
	struct sa_port *port;
	u32 p = event->element.port_num;
	unsigned long flags;

	switch (event->event) {
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_PKEY_CHANGE:
		break;
	default:
		return;
	}
	if (p < sa_dev->start_port || p - sa_dev->start_port >= sa_dev->num_ports)
		return;
	port = &sa_dev->port[p - sa_dev->start_port];
	dev_dbg(&sa_dev->device->dev, "ib_sa: port %u: %s\n", p,
		ib_event_msg(event->event));
	/* the SM's address is looked for again: until then -EAGAIN */
	spin_lock_irqsave(&port->ah_lock, flags);
	old_ah = port->sm_ah;
	port->sm_ah = NULL;
	spin_unlock_irqrestore(&port->ah_lock, flags);
	if (old_ah)
		sa_sm_ah_put(old_ah);
	queue_work(sa_wq, &port->update_work);

	switch (event->event) {
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
		sa_mcast_port_event(port, SA_MC_EV_RESET);
		break;
	case IB_EVENT_PKEY_CHANGE:
		sa_mcast_port_event(port, SA_MC_EV_PKEY);
		break;
	default:
		break;
	}
}

int sa_port_start(struct sa_port *port)
{
	struct ib_mad_agent *agent;

	INIT_WORK(&port->update_work, sa_port_update);
	/*
	 * Send-only: the SA's answers reach us by TID, we claim no method.
	 * No RMPP (as upstream's ib_sa): every query of ours is answered in
	 * one MAD, and no node can make ib_mad reassemble for us.
	 */
	agent = ib_register_mad_agent(port->sa_dev->device, port->port_num,
				      IB_QPT_GSI, NULL, 0,
				      sa_send_handler, sa_recv_handler, port, 0);
	if (IS_ERR(agent)) {
		pr_info(SA_PFX "%s port %u: no SA agent: %ld\n",
			dev_name(&port->sa_dev->device->dev), port->port_num,
			PTR_ERR(agent));
		return PTR_ERR(agent);
	}
	port->agent = agent;
	return 0;
}

/* [sleep] Ends everything the port does; nothing runs for it afterwards. */
void sa_port_stop(struct sa_port *port)
{
	struct sa_sm_ah *old_ah;
	unsigned long flags;

	spin_lock_irqsave(&port->ah_lock, flags);
	port->dead = true;
	port->active = false;
	old_ah = port->sm_ah;
	port->sm_ah = NULL;
	spin_unlock_irqrestore(&port->ah_lock, flags);

	cancel_work_sync(&port->update_work);
	sa_mcast_stop_port(port);
	sa_cancel_port_queries(port);
	/* completes what is still posted (-EINTR to its owner) */
	if (port->agent)
		ib_unregister_mad_agent(port->agent);
	if (old_ah)
		sa_sm_ah_put(old_ah);
}

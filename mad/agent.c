// SPDX-License-Identifier: GPL-2.0
/*
 * Agents: registration with their method claims, lookups for the receive
 * path, and the delivery of their handler calls (one work item per agent on
 * the port's ordered work queue, so an agent's handlers run one at a time
 * and never in the call chain of an ib_mad call).
 */
#include <linux/slab.h>
#include <linux/xarray.h>

#include "mad_priv.h"

#define MAD_MAX_CLASS_VERSION	0x83	/* class versions 0..0x82 can be registered, as 6.1 */
#define MAD_MAX_CLASS		0x50	/* classes below, and DR SMPs */
/*
 * hi_tid: unique among the registered agents of every device, 1 to 2^24 - 1
 * and handed out in turn (a freed one comes back only after the others):
 * the top byte of a TID is not ours to use (mlx4 marks the MADs of its
 * virtual functions with it).
 */
#define MAD_HI_TID_MAX		((1U << 24) - 1)

static DEFINE_XARRAY_ALLOC1(mad_hi_tids);	/* hi_tid -> agent, its own lock */
static u32 mad_hi_tid_next;			/* under mad_hi_tids' lock */

void mad_agent_get(struct mad_agent_priv *ap)
{
	refcount_inc(&ap->refs);
}

void mad_agent_put(struct mad_agent_priv *ap)
{
	if (refcount_dec_and_test(&ap->refs))
		complete(&ap->released);
}

static bool mad_oui_set(const u8 *oui)
{
	return oui[0] || oui[1] || oui[2];
}

static int mad_check_reg(enum ib_qp_type qp_type, const struct ib_mad_reg_req *reg,
			 u8 rmpp_version, ib_mad_recv_handler recv_handler)
{
	u8 c = reg->mgmt_class;

	if (!recv_handler || reg->mgmt_class_version >= MAD_MAX_CLASS_VERSION)
		return -EINVAL;
	if (!c || (c >= MAD_MAX_CLASS && c != IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE))
		return -EINVAL;
	if (mad_is_vendor_range2(c) && !mad_oui_set(reg->oui))
		return -EINVAL;
	if (rmpp_version && !ib_is_mad_class_rmpp(c))
		return -EINVAL;
	if (mad_class_is_smp(c) != mad_qp_type_is_smi(qp_type))
		return -EINVAL;
	return 0;
}

static bool mad_reg_same_class(const struct ib_mad_reg_req *a,
			       const struct ib_mad_reg_req *b)
{
	if (a->mgmt_class != b->mgmt_class ||
	    a->mgmt_class_version != b->mgmt_class_version)
		return false;
	return !mad_is_vendor_range2(a->mgmt_class) ||
	       !memcmp(a->oui, b->oui, sizeof(a->oui));
}

/* port->agent_lock held: does another agent claim one of reg's methods? */
static bool mad_methods_taken(struct mad_port *port, struct mad_qp *mqp,
			      const struct ib_mad_reg_req *reg)
{
	struct mad_agent_priv *ap;

	lockdep_assert_held(&port->agent_lock);
	list_for_each_entry(ap, &port->agents, port_entry) {
		if (ap->mqp != mqp || !ap->reg || !mad_reg_same_class(ap->reg, reg))
			continue;
		if (bitmap_intersects(ap->reg->method_mask, reg->method_mask,
				      IB_MGMT_MAX_METHODS))
			return true;
	}
	return false;
}

static void mad_deliver_work(struct work_struct *work);

/* [sleep] registration on a known port (the responder uses it directly) */
struct ib_mad_agent *mad_register(struct mad_port *port, enum ib_qp_type qp_type,
				  struct ib_mad_reg_req *mad_reg_req, u8 rmpp_version,
				  ib_mad_send_handler send_handler,
				  ib_mad_recv_handler recv_handler,
				  void *context, u32 flags)
{
	struct mad_agent_priv *ap;
	struct mad_qp *mqp;
	int ret;

	if (qp_type != IB_QPT_SMI && qp_type != IB_QPT_GSI)
		return ERR_PTR(-EINVAL);
	if (rmpp_version && rmpp_version != IB_MGMT_RMPP_VERSION)
		return ERR_PTR(-EINVAL);
	if (flags & ~IB_MAD_USER_RMPP)
		return ERR_PTR(-EINVAL);
	if (mad_reg_req) {
		ret = mad_check_reg(qp_type, mad_reg_req, rmpp_version, recv_handler);
		if (ret)
			return ERR_PTR(ret);
	} else if (!send_handler || (flags & IB_MAD_USER_RMPP)) {
		/* a send-only agent gets no RMPP segments to handle itself */
		return ERR_PTR(-EINVAL);
	}
	mqp = &port->qp[mad_qp_index(qp_type)];

	ap = kzalloc(sizeof(*ap), GFP_KERNEL);
	if (!ap)
		return ERR_PTR(-ENOMEM);
	if (mad_reg_req) {
		ap->reg = kmemdup(mad_reg_req, sizeof(*mad_reg_req), GFP_KERNEL);
		if (!ap->reg) {
			ret = -ENOMEM;
			goto err_free;
		}
	}
	ap->port = port;
	ap->mqp = mqp;
	ap->agent.device = port->device;
	ap->agent.qp = mqp->qp;
	ap->agent.recv_handler = recv_handler;
	ap->agent.send_handler = send_handler;
	ap->agent.context = context;
	ap->agent.flags = flags;
	/* security NULL, smp_allowed false: no LSM hooks (ib_mad.h) */
	INIT_LIST_HEAD(&ap->agent.mad_agent_sec_list);
	ap->agent.port_num = port->port_num;
	ap->agent.rmpp_version = rmpp_version;
	refcount_set(&ap->refs, 1);
	init_completion(&ap->released);
	spin_lock_init(&ap->lock);
	INIT_LIST_HEAD(&ap->sends);
	INIT_LIST_HEAD(&ap->events);
	INIT_LIST_HEAD(&ap->rmpp_recvs);
	INIT_LIST_HEAD(&ap->port_entry);
	INIT_WORK(&ap->deliver_work, mad_deliver_work);
	INIT_DELAYED_WORK(&ap->timeout_work, mad_timeout_work);

	ret = xa_alloc_cyclic(&mad_hi_tids, &ap->agent.hi_tid, ap,
			      XA_LIMIT(1, MAD_HI_TID_MAX), &mad_hi_tid_next,
			      GFP_KERNEL);
	if (ret < 0)
		goto err_free;

	spin_lock_irq(&port->agent_lock);
	if (port->stopping) {
		ret = -ENODEV;
		goto err_unlock;
	}
	if (ap->reg && mad_methods_taken(port, mqp, ap->reg)) {
		mad_dbg_rl("port %u: class 0x%x version %u: a method is taken\n",
			   port->port_num, ap->reg->mgmt_class,
			   ap->reg->mgmt_class_version);
		ret = -EINVAL;	/* upstream's errno */
		goto err_unlock;
	}
	list_add_tail(&ap->port_entry, &port->agents);
	spin_unlock_irq(&port->agent_lock);
	return &ap->agent;

err_unlock:
	spin_unlock_irq(&port->agent_lock);
	xa_erase(&mad_hi_tids, ap->agent.hi_tid);
err_free:
	kfree(ap->reg);
	kfree(ap);
	return ERR_PTR(ret);
}

struct ib_mad_agent *ib_register_mad_agent(struct ib_device *device, u32 port_num,
					   enum ib_qp_type qp_type,
					   struct ib_mad_reg_req *mad_reg_req,
					   u8 rmpp_version,
					   ib_mad_send_handler send_handler,
					   ib_mad_recv_handler recv_handler,
					   void *context, u32 registration_flags)
{
	struct mad_port *port;

	might_sleep();
	if (!device || !ib_get_client_data(device, &mad_client))
		return ERR_PTR(-ENODEV);
	port = mad_get_port(device, port_num);
	if (!port)
		return ERR_PTR(-EINVAL);
	return mad_register(port, qp_type, mad_reg_req, rmpp_version, send_handler,
			    recv_handler, context, registration_flags);
}
EXPORT_SYMBOL(ib_register_mad_agent);

/*
 * Not from a handler of an agent on the same port: it waits for handler
 * calls that run on the port's (ordered) work queue.
 */
void ib_unregister_mad_agent(struct ib_mad_agent *mad_agent)
{
	struct mad_agent_priv *ap = to_agent(mad_agent);
	struct mad_port *port = ap->port;

	might_sleep();
	spin_lock_irq(&port->agent_lock);
	list_del_init(&ap->port_entry);
	spin_unlock_irq(&port->agent_lock);

	spin_lock_irq(&ap->lock);
	ap->dying = true;
	spin_unlock_irq(&ap->lock);

	cancel_delayed_work_sync(&ap->timeout_work);
	mad_cancel_all(ap);
	mad_rmpp_recv_flush(ap);

	mad_agent_put(ap);
	wait_for_completion(&ap->released);
	cancel_work_sync(&ap->deliver_work);
	cancel_delayed_work_sync(&ap->timeout_work);
	xa_erase(&mad_hi_tids, ap->agent.hi_tid);
	kfree(ap->reg);
	kfree(ap);
}
EXPORT_SYMBOL(ib_unregister_mad_agent);

/* [sleep] port teardown: agents their owners did not unregister */
void mad_unregister_all(struct mad_port *port)
{
	struct mad_agent_priv *ap;

	for (;;) {
		spin_lock_irq(&port->agent_lock);
		ap = list_first_entry_or_null(&port->agents, struct mad_agent_priv,
					      port_entry);
		spin_unlock_irq(&port->agent_lock);
		if (!ap)
			break;
		dev_warn(&port->device->dev,
			 MAD_NAME ": port %u: agent %u still registered at removal\n",
			 port->port_num, ap->agent.hi_tid);
		ib_unregister_mad_agent(&ap->agent);
	}
}

/* [any] the agent whose hi_tid the response carries (a reference), or NULL */
struct mad_agent_priv *mad_find_by_tid(struct mad_port *port, struct mad_qp *mqp,
				       const struct ib_mad_hdr *hdr)
{
	u32 hi_tid = be64_to_cpu(hdr->tid) >> 32;
	struct mad_agent_priv *ap, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&port->agent_lock, flags);
	list_for_each_entry(ap, &port->agents, port_entry) {
		if (ap->mqp == mqp && ap->agent.hi_tid == hi_tid) {
			mad_agent_get(ap);
			found = ap;
			break;
		}
	}
	spin_unlock_irqrestore(&port->agent_lock, flags);
	return found;
}

/* [any] the agent claiming the request's method (a reference), or NULL */
struct mad_agent_priv *mad_find_by_method(struct mad_port *port, struct mad_qp *mqp,
					  const struct ib_mad *mad)
{
	const struct ib_mad_hdr *hdr = &mad->mad_hdr;
	const struct ib_vendor_mad *vmad = (const struct ib_vendor_mad *)mad;
	struct mad_agent_priv *ap, *found = NULL;
	unsigned long flags;

	if (hdr->method >= IB_MGMT_MAX_METHODS)
		return NULL;
	spin_lock_irqsave(&port->agent_lock, flags);
	list_for_each_entry(ap, &port->agents, port_entry) {
		if (ap->mqp != mqp || !ap->reg ||
		    ap->reg->mgmt_class != hdr->mgmt_class ||
		    ap->reg->mgmt_class_version != hdr->class_version ||
		    !test_bit(hdr->method, ap->reg->method_mask))
			continue;
		if (mad_is_vendor_range2(hdr->mgmt_class) &&
		    memcmp(ap->reg->oui, vmad->oui, sizeof(vmad->oui)))
			continue;
		mad_agent_get(ap);
		found = ap;
		break;
	}
	spin_unlock_irqrestore(&port->agent_lock, flags);
	return found;
}

static void mad_deliver_one(struct mad_agent_priv *ap, struct mad_event *ev, bool dying)
{
	struct ib_mad_send_wc swc = {};
	struct mad_send_wr *sw;
	struct mad_recv *r;

	if (ev->kind == MAD_EV_RECV) {
		r = container_of(ev, struct mad_recv, ev);
		if (dying || !ap->agent.recv_handler)
			ib_free_recv_mad(&r->rwc);
		else
			ap->agent.recv_handler(&ap->agent, r->match, &r->rwc);
		return;
	}
	sw = container_of(ev, struct mad_send_wr, ev);
	swc.send_buf = &sw->buf;
	swc.status = sw->status;
	ap->agent.send_handler(&ap->agent, &swc);
}

static void mad_deliver_work(struct work_struct *work)
{
	struct mad_agent_priv *ap = container_of(work, struct mad_agent_priv,
						 deliver_work);
	struct mad_event *ev;
	unsigned long flags;
	bool dying;

	spin_lock_irqsave(&ap->lock, flags);
	while ((ev = list_first_entry_or_null(&ap->events, struct mad_event, entry))) {
		list_del(&ev->entry);
		dying = ap->dying;
		if (ev->kind == MAD_EV_SEND)
			container_of(ev, struct mad_send_wr, ev)->posted = false;
		spin_unlock_irqrestore(&ap->lock, flags);
		mad_deliver_one(ap, ev, dying);
		/*
		 * The registration reference outlives this loop: unregistration
		 * waits for this work after the last reference is gone.
		 */
		mad_agent_put(ap);
		spin_lock_irqsave(&ap->lock, flags);
	}
	spin_unlock_irqrestore(&ap->lock, flags);
}

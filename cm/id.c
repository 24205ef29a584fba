// SPDX-License-Identifier: GPL-2.0
/*
 * cm_ids: creation, references, lookup by local ID, listeners, the tables
 * of remote IDs and QPs that catch duplicate and stale messages, time
 * wait, and destruction (which ends whatever the cm_id was doing as
 * IBA 12.9 requires of its state).
 *
 * Local IDs are the index of an cyclic xarray allocation XORed with a
 * random word chosen at load: they look random on the wire and are not
 * reused soon after a cm_id goes.
 */
#include <linux/delay.h>
#include <linux/slab.h>
#include "cm_priv.h"

/* how long ib_destroy_cm_id() waits between two complaints */
#define CM_DESTROY_WAIT_MS	10000

static u32 cm_index(__be32 local_id)
{
	return (__force u32)(local_id ^ cm.random_id_operand);
}

void cm_id_get(struct cm_id_private *cm_id_priv)
{
	refcount_inc(&cm_id_priv->refcount);
}

void cm_id_put(struct cm_id_private *cm_id_priv)
{
	if (refcount_dec_and_test(&cm_id_priv->refcount))
		complete(&cm_id_priv->comp);
}

/*
 * [any] The cm_id of local_id whose remote ID is remote_id (0: not known
 * yet), with a reference; NULL if there is none.
 */
struct cm_id_private *cm_id_acquire(__be32 local_id, __be32 remote_id)
{
	struct cm_id_private *cm_id_priv;
	unsigned long flags;

	xa_lock_irqsave(&cm.local_ids, flags);
	cm_id_priv = xa_load(&cm.local_ids, cm_index(local_id));
	if (cm_id_priv && cm_id_priv->id.remote_id == remote_id &&
	    refcount_inc_not_zero(&cm_id_priv->refcount))
		goto out;
	cm_id_priv = NULL;
out:
	xa_unlock_irqrestore(&cm.local_ids, flags);
	return cm_id_priv;
}

struct ib_cm_id *ib_create_cm_id(struct ib_device *device, ib_cm_handler cm_handler,
				 void *context)
{
	struct cm_id_private *cm_id_priv;
	u32 index;
	int ret;

	if (!device || !cm_handler)
		return ERR_PTR(-EINVAL);
	cm_id_priv = kzalloc(sizeof(*cm_id_priv), GFP_KERNEL);
	if (!cm_id_priv)
		return ERR_PTR(-ENOMEM);
	cm_id_priv->id.state = IB_CM_IDLE;
	cm_id_priv->id.device = device;
	cm_id_priv->id.cm_handler = cm_handler;
	cm_id_priv->id.context = context;
	cm_id_priv->id.remote_cm_qpn = 1;
	RB_CLEAR_NODE(&cm_id_priv->service_node);
	RB_CLEAR_NODE(&cm_id_priv->sidr_node);
	spin_lock_init(&cm_id_priv->lock);
	init_completion(&cm_id_priv->comp);
	refcount_set(&cm_id_priv->refcount, 1);

	ret = xa_alloc_cyclic_irq(&cm.local_ids, &index, NULL, xa_limit_32b,
				  &cm.local_id_next, GFP_KERNEL);
	if (ret < 0) {
		kfree(cm_id_priv);
		return ERR_PTR(ret);
	}
	cm_id_priv->id.local_id = (__force __be32)index ^ cm.random_id_operand;
	/* visible to lookups only now that it is complete */
	xa_store_irq(&cm.local_ids, index, cm_id_priv, GFP_KERNEL);
	return &cm_id_priv->id;
}
EXPORT_SYMBOL(ib_create_cm_id);

/* --- listeners (cm.lock) ------------------------------------------------ */

static int cm_service_cmp(struct ib_device *d1, __be64 s1, struct ib_device *d2, __be64 s2)
{
	u64 a = be64_to_cpu(s1), b = be64_to_cpu(s2);

	if (d1 != d2)
		return d1 < d2 ? -1 : 1;
	if (a != b)
		return a < b ? -1 : 1;
	return 0;
}

static struct cm_id_private *cm_listener_lookup(struct ib_device *device, __be64 service_id)
{
	struct rb_node *node = cm.listen_tree.rb_node;

	lockdep_assert_held(&cm.lock);
	while (node) {
		struct cm_id_private *c = rb_entry(node, struct cm_id_private, service_node);
		int cmp = cm_service_cmp(device, service_id, c->id.device, c->id.service_id);

		if (!cmp)
			return c;
		node = cmp < 0 ? node->rb_left : node->rb_right;
	}
	return NULL;
}

static void cm_listener_insert(struct cm_id_private *cm_id_priv)
{
	struct rb_node **link = &cm.listen_tree.rb_node, *parent = NULL;

	lockdep_assert_held(&cm.lock);
	while (*link) {
		struct cm_id_private *c = rb_entry(*link, struct cm_id_private, service_node);

		parent = *link;
		if (cm_service_cmp(cm_id_priv->id.device, cm_id_priv->id.service_id,
				   c->id.device, c->id.service_id) < 0)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&cm_id_priv->service_node, parent, link);
	rb_insert_color(&cm_id_priv->service_node, &cm.listen_tree);
}

/* [any] The listener of service_id on device with a reference, or NULL. */
struct cm_id_private *cm_listener_find(struct ib_device *device, __be64 service_id)
{
	struct cm_id_private *listener;
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	listener = cm_listener_lookup(device, service_id);
	if (listener && !refcount_inc_not_zero(&listener->refcount))
		listener = NULL;
	spin_unlock_irqrestore(&cm.lock, flags);
	return listener;
}

/*
 * Make cm_id_priv the listener of service_id, or with share set, take a
 * share of the one already there if it has the same handler.
 */
static struct cm_id_private *cm_listen(struct cm_id_private *cm_id_priv, __be64 service_id,
				       bool share)
{
	struct cm_id_private *cur;
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	if (service_id == IB_CM_ASSIGN_SERVICE_ID) {
		do {
			service_id = cm.next_service_id;
			be64_add_cpu(&cm.next_service_id, 1);
		} while (cm_listener_lookup(cm_id_priv->id.device, service_id));
	}
	cur = cm_listener_lookup(cm_id_priv->id.device, service_id);
	if (cur) {
		if (!share || cur->id.cm_handler != cm_id_priv->id.cm_handler ||
		    cur->id.context) {
			cur = ERR_PTR(-EBUSY);
		} else {
			cur->listen_sharecount++;
			refcount_inc(&cur->refcount);
		}
		spin_unlock_irqrestore(&cm.lock, flags);
		return cur;
	}
	/* an idle cm_id nobody else looks at yet: no need for its lock */
	cm_id_priv->id.service_id = service_id;
	cm_id_priv->id.state = IB_CM_LISTEN;
	cm_id_priv->listen_sharecount = 1;
	cm_listener_insert(cm_id_priv);
	spin_unlock_irqrestore(&cm.lock, flags);
	return cm_id_priv;
}

static int cm_check_service_id(__be64 service_id)
{
	if ((service_id & IB_SERVICE_ID_AGN_MASK) == IB_CM_ASSIGN_SERVICE_ID &&
	    service_id != IB_CM_ASSIGN_SERVICE_ID)
		return -EINVAL;
	return 0;
}

int ib_cm_listen(struct ib_cm_id *cm_id, __be64 service_id)
{
	struct cm_id_private *cm_id_priv = to_cm_id_priv(cm_id);
	struct cm_id_private *got;

	if (cm_check_service_id(service_id) || cm_id->state != IB_CM_IDLE)
		return -EINVAL;
	got = cm_listen(cm_id_priv, service_id, false);
	return IS_ERR(got) ? PTR_ERR(got) : 0;
}
EXPORT_SYMBOL(ib_cm_listen);

struct ib_cm_id *ib_cm_insert_listen(struct ib_device *device, ib_cm_handler cm_handler,
				     __be64 service_id)
{
	struct cm_id_private *cm_id_priv, *got;
	struct ib_cm_id *cm_id;

	if (cm_check_service_id(service_id))
		return ERR_PTR(-EINVAL);
	cm_id = ib_create_cm_id(device, cm_handler, NULL);
	if (IS_ERR(cm_id))
		return cm_id;
	cm_id_priv = to_cm_id_priv(cm_id);
	got = cm_listen(cm_id_priv, service_id, true);
	if (got != cm_id_priv) {
		/* someone else's (or an error): ours was never seen */
		ib_destroy_cm_id(cm_id);
		if (IS_ERR(got))
			return ERR_PTR(got == ERR_PTR(-EBUSY) ? -EINVAL : PTR_ERR(got));
		return &got->id;
	}
	return cm_id;
}
EXPORT_SYMBOL(ib_cm_insert_listen);

/* --- remote IDs and QPs (cm.lock) --------------------------------------- */

static int cm_key_cmp(__be32 a1, __be64 g1, __be32 a2, __be64 g2)
{
	u32 x = be32_to_cpu(a1), y = be32_to_cpu(a2);
	u64 u = be64_to_cpu(g1), v = be64_to_cpu(g2);

	if (x != y)
		return x < y ? -1 : 1;
	if (u != v)
		return u < v ? -1 : 1;
	return 0;
}

/*
 * Insert tw by (remote ID, remote CA GUID); the record already there if
 * one is (a duplicate REQ or REP: tw is then not inserted).
 */
struct cm_timewait_info *cm_remote_id_insert(struct cm_timewait_info *tw)
{
	struct rb_node **link = &cm.remote_id_tree.rb_node, *parent = NULL;

	lockdep_assert_held(&cm.lock);
	while (*link) {
		struct cm_timewait_info *c = rb_entry(*link, struct cm_timewait_info,
						      remote_id_node);
		int cmp = cm_key_cmp(tw->remote_id, tw->remote_ca_guid, c->remote_id,
				     c->remote_ca_guid);

		if (!cmp)
			return c;
		parent = *link;
		link = cmp < 0 ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&tw->remote_id_node, parent, link);
	rb_insert_color(&tw->remote_id_node, &cm.remote_id_tree);
	tw->in_remote_id = true;
	return NULL;
}

/* [any] The cm_id in the remote ID table under (remote_id, guid), with a reference. */
struct cm_id_private *cm_find_remote_id(__be64 guid, __be32 remote_id)
{
	struct rb_node *node;
	struct cm_id_private *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	node = cm.remote_id_tree.rb_node;
	while (node) {
		struct cm_timewait_info *c = rb_entry(node, struct cm_timewait_info,
						      remote_id_node);
		int cmp = cm_key_cmp(remote_id, guid, c->remote_id, c->remote_ca_guid);

		if (!cmp) {
			found = cm_id_acquire(c->local_id, c->remote_id);
			break;
		}
		node = cmp < 0 ? node->rb_left : node->rb_right;
	}
	spin_unlock_irqrestore(&cm.lock, flags);
	return found;
}

/* The same by (remote QPN, remote CA GUID): a stale connection if found. */
struct cm_timewait_info *cm_remote_qp_insert(struct cm_timewait_info *tw)
{
	struct rb_node **link = &cm.remote_qp_tree.rb_node, *parent = NULL;

	lockdep_assert_held(&cm.lock);
	while (*link) {
		struct cm_timewait_info *c = rb_entry(*link, struct cm_timewait_info,
						      remote_qp_node);
		int cmp = cm_key_cmp(tw->remote_qpn, tw->remote_ca_guid, c->remote_qpn,
				     c->remote_ca_guid);

		if (!cmp)
			return c;
		parent = *link;
		link = cmp < 0 ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&tw->remote_qp_node, parent, link);
	rb_insert_color(&tw->remote_qp_node, &cm.remote_qp_tree);
	tw->in_remote_qp = true;
	return NULL;
}

void cm_remote_tables_remove(struct cm_timewait_info *tw)
{
	lockdep_assert_held(&cm.lock);
	if (tw->in_remote_id) {
		rb_erase(&tw->remote_id_node, &cm.remote_id_tree);
		tw->in_remote_id = false;
	}
	if (tw->in_remote_qp) {
		rb_erase(&tw->remote_qp_node, &cm.remote_qp_tree);
		tw->in_remote_qp = false;
	}
}

/* --- received SIDR REQs being answered (cm.lock) ------------------------ */

/* Insert by (request ID, SLID); the cm_id already there if one is. */
struct cm_id_private *cm_sidr_insert(struct cm_id_private *cm_id_priv)
{
	struct rb_node **link = &cm.sidr_tree.rb_node, *parent = NULL;

	lockdep_assert_held(&cm.lock);
	while (*link) {
		struct cm_id_private *c = rb_entry(*link, struct cm_id_private, sidr_node);
		int cmp = cm_key_cmp(cm_id_priv->id.remote_id,
				     cpu_to_be64(cm_id_priv->sidr_slid),
				     c->id.remote_id, cpu_to_be64(c->sidr_slid));

		if (!cmp)
			return c;
		parent = *link;
		link = cmp < 0 ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&cm_id_priv->sidr_node, parent, link);
	rb_insert_color(&cm_id_priv->sidr_node, &cm.sidr_tree);
	cm_id_priv->in_sidr_tree = true;
	return NULL;
}

void cm_sidr_remove(struct cm_id_private *cm_id_priv)
{
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	if (cm_id_priv->in_sidr_tree) {
		rb_erase(&cm_id_priv->sidr_node, &cm.sidr_tree);
		cm_id_priv->in_sidr_tree = false;
	}
	spin_unlock_irqrestore(&cm.lock, flags);
}

/* --- time wait ----------------------------------------------------------- */

static void cm_timewait_work(struct work_struct *work);

struct cm_timewait_info *cm_timewait_alloc(__be32 local_id)
{
	struct cm_timewait_info *tw = kzalloc(sizeof(*tw), GFP_KERNEL);

	if (!tw)
		return NULL;
	tw->local_id = local_id;
	INIT_DELAYED_WORK(&tw->work, cm_timewait_work);
	INIT_LIST_HEAD(&tw->list);
	return tw;
}

/*
 * [any] The connection ends: the cm_id goes to IB_CM_TIMEWAIT, its remote
 * IDs leave the tables, and its time-wait record (which now belongs to
 * cm.timewait_list) brings it back to idle after the QP's ACK timeout.
 */
void cm_enter_timewait(struct cm_id_private *cm_id_priv)
{
	struct cm_timewait_info *tw = cm_id_priv->timewait_info;
	unsigned long flags;

	lockdep_assert_held(&cm_id_priv->lock);
	cm_id_priv->id.state = IB_CM_TIMEWAIT;
	if (!tw)
		return;
	cm_id_priv->timewait_info = NULL;
	tw->remote_id = cm_id_priv->id.remote_id;
	tw->remote_qpn = cm_id_priv->remote_qpn;

	spin_lock_irqsave(&cm.lock, flags);
	cm_remote_tables_remove(tw);
	list_add_tail(&tw->list, &cm.timewait_list);
	tw->waiting = true;
	queue_delayed_work(cm.wq, &tw->work,
			   msecs_to_jiffies(cm_convert_to_ms(cm_id_priv->av.timeout)));
	spin_unlock_irqrestore(&cm.lock, flags);
}

static void cm_timewait_work(struct work_struct *work)
{
	struct cm_timewait_info *tw = container_of(to_delayed_work(work),
						   struct cm_timewait_info, work);
	struct ib_cm_event event = { .event = IB_CM_TIMEWAIT_EXIT };
	struct cm_id_private *cm_id_priv;
	unsigned long flags;
	bool exit = false;

	spin_lock_irqsave(&cm.lock, flags);
	list_del(&tw->list);
	tw->waiting = false;
	spin_unlock_irqrestore(&cm.lock, flags);

	cm_id_priv = cm_id_acquire(tw->local_id, tw->remote_id);
	if (cm_id_priv) {
		spin_lock_irqsave(&cm_id_priv->lock, flags);
		if (cm_id_priv->id.state == IB_CM_TIMEWAIT &&
		    cm_id_priv->remote_qpn == tw->remote_qpn) {
			cm_id_priv->id.state = IB_CM_IDLE;
			exit = true;
		}
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		if (exit)
			cm_deliver(cm_id_priv, &event);	/* drops our reference */
		else
			cm_id_put(cm_id_priv);
	}
	kfree(tw);
}

/* [sleep] Module exit: end every time wait now (no cm_id is left). */
void cm_timewait_flush(void)
{
	struct cm_timewait_info *tw;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&cm.lock, flags);
		tw = list_first_entry_or_null(&cm.timewait_list, struct cm_timewait_info, list);
		if (tw)
			mod_delayed_work(cm.wq, &tw->work, 0);
		spin_unlock_irqrestore(&cm.lock, flags);
		if (!tw)
			break;
		flush_workqueue(cm.wq);
	}
}

/* --- destruction ----------------------------------------------------------- */

static void cm_cancel_msg(struct cm_id_private *cm_id_priv)
{
	lockdep_assert_held(&cm_id_priv->lock);
	if (cm_id_priv->msg)
		ib_cancel_mad(cm_id_priv->msg);
}

/*
 * [sleep] ib_destroy_cm_id() and a handler's non-zero return.  err is the
 * handler's (-ENOMEM from a REQ's handler: no REJ, so that the peer's
 * retry may find resources) or 0.
 */
void cm_destroy_id(struct ib_cm_id *cm_id, int err)
{
	struct cm_id_private *cm_id_priv = to_cm_id_priv(cm_id);
	struct cm_timewait_info *tw;
	unsigned long flags;
	int waited = 0;

	spin_lock_irqsave(&cm_id_priv->lock, flags);
retest:
	switch (cm_id->state) {
	case IB_CM_LISTEN:
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		spin_lock_irqsave(&cm.lock, flags);
		if (--cm_id_priv->listen_sharecount > 0) {
			/* a shared listener: only this share goes */
			cm_id_put(cm_id_priv);
			spin_unlock_irqrestore(&cm.lock, flags);
			return;
		}
		rb_erase(&cm_id_priv->service_node, &cm.listen_tree);
		RB_CLEAR_NODE(&cm_id_priv->service_node);
		spin_unlock_irqrestore(&cm.lock, flags);
		spin_lock_irqsave(&cm_id_priv->lock, flags);
		cm_id->state = IB_CM_IDLE;
		break;
	case IB_CM_SIDR_REQ_SENT:
		cm_id->state = IB_CM_IDLE;
		cm_cancel_msg(cm_id_priv);
		break;
	case IB_CM_SIDR_REQ_RCVD: {
		struct ib_cm_sidr_rep_param rep = { .status = IB_SIDR_REJECT };

		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		ib_send_cm_sidr_rep(cm_id, &rep);
		spin_lock_irqsave(&cm_id_priv->lock, flags);
		cm_id->state = IB_CM_IDLE;
		break;
	}
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD: {
		__be64 guid = cm_id->device->node_guid;

		cm_cancel_msg(cm_id_priv);
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		ib_send_cm_rej(cm_id, IB_CM_REJ_TIMEOUT, &guid, sizeof(guid), NULL, 0);
		spin_lock_irqsave(&cm_id_priv->lock, flags);
		break;
	}
	case IB_CM_REQ_RCVD:
		if (err == -ENOMEM) {
			/* no REJ: the peer's next try may find the resources */
			cm_id->state = IB_CM_IDLE;
			break;
		}
		fallthrough;
	case IB_CM_MRA_REQ_SENT:
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		cm_cancel_msg(cm_id_priv);
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		spin_lock_irqsave(&cm_id_priv->lock, flags);
		break;
	case IB_CM_ESTABLISHED:
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		ib_send_cm_dreq(cm_id, NULL, 0);
		spin_lock_irqsave(&cm_id_priv->lock, flags);
		if (cm_id->state == IB_CM_ESTABLISHED)	/* the DREQ could not go */
			cm_enter_timewait(cm_id_priv);
		goto retest;
	case IB_CM_DREQ_SENT:
		cm_cancel_msg(cm_id_priv);
		cm_enter_timewait(cm_id_priv);
		break;
	case IB_CM_DREQ_RCVD:
		spin_unlock_irqrestore(&cm_id_priv->lock, flags);
		ib_send_cm_drep(cm_id, NULL, 0);
		spin_lock_irqsave(&cm_id_priv->lock, flags);
		break;
	case IB_CM_IDLE:
	case IB_CM_TIMEWAIT:
		break;
	}
	/* whatever state the sends above left it in, nothing more comes */
	cm_id->state = IB_CM_IDLE;
	tw = cm_id_priv->timewait_info;
	cm_id_priv->timewait_info = NULL;
	spin_unlock_irqrestore(&cm_id_priv->lock, flags);

	xa_erase_irq(&cm.local_ids, cm_index(cm_id->local_id));
	cm_sidr_remove(cm_id_priv);
	if (tw) {
		spin_lock_irqsave(&cm.lock, flags);
		cm_remote_tables_remove(tw);
		spin_unlock_irqrestore(&cm.lock, flags);
		kfree(tw);
	}

	cm_id_put(cm_id_priv);
	while (!wait_for_completion_timeout(&cm_id_priv->comp,
					    msecs_to_jiffies(CM_DESTROY_WAIT_MS))) {
		waited += CM_DESTROY_WAIT_MS / 1000;
		cm_warn_rl("cm_id 0x%x: still in use after %d s (refcount %u)\n",
			   be32_to_cpu(cm_id->local_id), waited,
			   refcount_read(&cm_id_priv->refcount));
	}
	kfree(cm_id_priv->reply_data);
	cm_av_put(&cm_id_priv->av);
	cm_av_put(&cm_id_priv->alt_av);
	kfree(cm_id_priv);
}

void ib_destroy_cm_id(struct ib_cm_id *cm_id)
{
	cm_destroy_id(cm_id, 0);
}
EXPORT_SYMBOL(ib_destroy_cm_id);

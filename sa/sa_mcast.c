// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast membership shared by kernel users: per (port, MGID) one group
 * that joins the SA once per JoinState bit its members need and leaves
 * when the last member needing a bit has gone.  When a port event loses
 * the membership (PORT_ERR, LID_CHANGE, CLIENT_REREGISTER; PKEY_CHANGE
 * when the group's P_Key left the table or moved), every joined member is
 * told -ENETRESET and must join again itself.  The semantics are described
 * in <rdma/ib_sa.h>.
 *
 * A group's work item (on ib_sa's ordered work queue) does everything:
 * it sends the SA requests (one at a time per group), moves members
 * between states and calls their callbacks, and takes the group off the
 * port when nothing is left.  The SA's answers only record the result and
 * queue the work.  Joining and reading a group's record take only the
 * port's spinlock: a new member waits on the group's incoming list until
 * the work takes it in, so ULPs may join from atomic context (IPoIB joins
 * with its own spinlock held).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include "sa_mcast.h"

/* the client of the SA requests the groups send */
static struct ib_sa_client sa_mc_client;

struct sa_mc_query {
	struct ib_sa_query	sa_query;
	struct sa_mc_group	*group;		/* holds a reference */
};

static void sa_mc_group_release(struct kref *ref)
{
	struct sa_mc_group *group = container_of(ref, struct sa_mc_group, ref);
	struct sa_device *sa_dev = group->port->sa_dev;

	mutex_destroy(&group->lock);
	kfree(group);
	sa_device_put(sa_dev);
}

static void sa_mc_group_put(struct sa_mc_group *group)
{
	kref_put(&group->ref, sa_mc_group_release);
}

static void sa_mc_queue(struct sa_mc_group *group, unsigned long delay)
{
	kref_get(&group->ref);
	if (!queue_delayed_work(sa_wq, &group->work, delay))
		sa_mc_group_put(group);
}

static bool sa_port_dead(struct sa_port *port)
{
	unsigned long flags;
	bool dead;

	spin_lock_irqsave(&port->ah_lock, flags);
	dead = port->dead;
	spin_unlock_irqrestore(&port->ah_lock, flags);
	return dead;
}

/* Publishes the group's record for ib_sa_get_mcmember_rec(). */
static void sa_mc_publish(struct sa_mc_group *group)
{
	struct sa_port *port = group->port;
	unsigned long flags;

	lockdep_assert_held(&group->lock);
	spin_lock_irqsave(&port->mc_lock, flags);
	group->pub_valid = group->joined && group->have_rec;
	if (group->pub_valid)
		group->pub_rec = group->rec;
	spin_unlock_irqrestore(&port->mc_lock, flags);
}

static void sa_mc_fail(struct sa_mc_member *m, int status)
{
	lockdep_assert_held(&m->group->lock);
	m->state = SA_MC_FAILED;
	m->status = status;
	m->notify = true;
}

static void sa_mc_done(struct ib_sa_query *sa_query, int status,
		       const struct ib_sa_mad *mad)
{
	struct sa_mc_query *query =
		container_of(sa_query, struct sa_mc_query, sa_query);
	struct sa_mc_group *group = query->group;
	struct ib_sa_mcmember_rec rec;

	mutex_lock(&group->lock);
	if (group->busy_leave) {
		/* left or not, the SA times the membership out eventually */
		group->joined &= ~group->sending;
	} else if (!status) {
		sa_unpack_mcmember(mad->data, &rec);
		if (memcmp(rec.mgid.raw, group->rec.mgid.raw, sizeof(rec.mgid)))
			group->mgid_assigned = true;
		group->rec = rec;
		group->have_rec = true;
		group->joined |= group->sending;
	} else if (group->last_join &&
		   group->last_join->state == SA_MC_PENDING) {
		/* the member whose record was refused; the others try theirs */
		sa_mc_fail(group->last_join, status);
	}
	group->last_join = NULL;
	group->busy = false;
	group->sending = 0;
	sa_mc_publish(group);
	mutex_unlock(&group->lock);
	sa_mc_queue(group, 0);
}

static void sa_mc_query_release(struct ib_sa_query *sa_query)
{
	struct sa_mc_query *query =
		container_of(sa_query, struct sa_mc_query, sa_query);

	sa_mc_group_put(query->group);
	kfree(query);
}

/* Sends a SET or DELETE of rec for bits; 0 or a negative errno. */
static int sa_mc_send(struct sa_mc_group *group, u8 method,
		      const struct ib_sa_mcmember_rec *rec,
		      ib_sa_comp_mask comp_mask, u8 bits)
{
	struct ib_sa_mcmember_rec req = *rec;
	struct sa_mc_query *query;
	int ret;

	lockdep_assert_held(&group->lock);
	query = kzalloc(sizeof(*query), GFP_KERNEL);
	if (!query)
		return -ENOMEM;
	query->group = group;
	query->sa_query.done_fn = sa_mc_done;
	query->sa_query.release = sa_mc_query_release;
	ret = sa_query_init(&query->sa_query, group->port, &sa_mc_client,
			    method, IB_SA_ATTR_MC_MEMBER_REC,
			    comp_mask | IB_SA_MCMEMBER_REC_MGID |
			    IB_SA_MCMEMBER_REC_PORT_GID |
			    IB_SA_MCMEMBER_REC_JOIN_STATE, GFP_KERNEL);
	if (ret)
		goto err_free;
	req.join_state = bits;
	sa_pack_mcmember(&req, sa_query_mad(&query->sa_query)->data);
	kref_get(&group->ref);
	group->busy = true;
	group->busy_leave = method == IB_SA_METHOD_DELETE;
	group->sending = bits;
	ret = sa_query_post(&query->sa_query, SA_MC_TIMEOUT_MS, GFP_KERNEL);
	if (ret < 0) {
		group->busy = false;
		group->sending = 0;
		sa_mc_group_put(group);
		goto err_free;
	}
	return 0;

err_free:
	kfree(query);
	return ret;
}

/* The first pending member needing a bit the group has not joined. */
static struct sa_mc_member *sa_mc_first_pending(struct sa_mc_group *group)
{
	struct sa_mc_member *m;

	lockdep_assert_held(&group->lock);
	list_for_each_entry(m, &group->members, list)
		if (m->state == SA_MC_PENDING &&
		    (m->join_state & ~group->joined))
			return m;
	return NULL;
}

/*
 * Asks the SA for the bits the first waiting member needs, with that
 * member's record and components (as the ULP gave them).
 */
static void sa_mc_join(struct sa_mc_group *group, struct sa_mc_member *first)
{
	u8 bits = first->join_state & ~group->joined;
	int ret;

	lockdep_assert_held(&group->lock);
	ret = sa_mc_send(group, IB_MGMT_METHOD_SET, &first->mc.rec,
			 first->mc.comp_mask, bits);
	if (ret) {
		sa_mc_fail(first, ret);
		return;
	}
	group->last_join = first;
	sa_stat_inc(SA_STAT_MC_SET);
}

/*
 * The group's record against what a member asked for, component by
 * component (the MGID matches already; JoinState and ProxyJoin are not
 * compared).  A selector component asks the group's value to be greater
 * than, less than or equal to the member's.
 */
static bool sa_mc_sel_ok(ib_sa_comp_mask mask, ib_sa_comp_mask sel_bit,
			 ib_sa_comp_mask val_bit, u8 sel, u8 have, u8 want)
{
	if (!(mask & sel_bit) || !(mask & val_bit))
		return true;
	switch (sel) {
	case IB_SA_GT:
		return have > want;
	case IB_SA_LT:
		return have < want;
	case IB_SA_EQ:
		return have == want;
	default:
		return true;
	}
}

static bool sa_mc_rec_matches(const struct ib_sa_mcmember_rec *g,
			      const struct ib_sa_mcmember_rec *r,
			      ib_sa_comp_mask mask)
{
	if ((mask & IB_SA_MCMEMBER_REC_PORT_GID) &&
	    memcmp(g->port_gid.raw, r->port_gid.raw, sizeof(g->port_gid)))
		return false;
	if (((mask & IB_SA_MCMEMBER_REC_QKEY) && g->qkey != r->qkey) ||
	    ((mask & IB_SA_MCMEMBER_REC_MLID) && g->mlid != r->mlid) ||
	    ((mask & IB_SA_MCMEMBER_REC_TRAFFIC_CLASS) &&
	     g->traffic_class != r->traffic_class) ||
	    ((mask & IB_SA_MCMEMBER_REC_PKEY) && g->pkey != r->pkey) ||
	    ((mask & IB_SA_MCMEMBER_REC_SL) && g->sl != r->sl) ||
	    ((mask & IB_SA_MCMEMBER_REC_FLOW_LABEL) &&
	     g->flow_label != r->flow_label) ||
	    ((mask & IB_SA_MCMEMBER_REC_HOP_LIMIT) &&
	     g->hop_limit != r->hop_limit) ||
	    ((mask & IB_SA_MCMEMBER_REC_SCOPE) && g->scope != r->scope))
		return false;
	return sa_mc_sel_ok(mask, IB_SA_MCMEMBER_REC_MTU_SELECTOR,
			    IB_SA_MCMEMBER_REC_MTU, r->mtu_selector,
			    g->mtu, r->mtu) &&
	       sa_mc_sel_ok(mask, IB_SA_MCMEMBER_REC_RATE_SELECTOR,
			    IB_SA_MCMEMBER_REC_RATE, r->rate_selector,
			    g->rate, r->rate) &&
	       sa_mc_sel_ok(mask, IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME_SELECTOR,
			    IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME,
			    r->packet_life_time_selector,
			    g->packet_life_time, r->packet_life_time);
}

/*
 * [sleep] The index of pkey in the port's P_Key table as the device has it
 * now (not the cache, which may lag the event): a full-member entry wins,
 * else the first limited one with the same low 15 bits; -1 if none.
 */
static int sa_mc_pkey_index(struct sa_port *port, u16 pkey)
{
	struct ib_device *device = port->sa_dev->device;
	struct ib_port_attr attr;
	int i, partial = -1;
	u16 entry;

	if (ib_query_port(device, port->port_num, &attr))
		return -1;
	for (i = 0; i < attr.pkey_tbl_len; i++) {
		if (ib_query_pkey(device, port->port_num, i, &entry))
			return -1;
		if ((entry & 0x7fff) != (pkey & 0x7fff))
			continue;
		if (entry & 0x8000)
			return i;
		if (partial < 0)
			partial = i;
	}
	return partial;
}

/* The membership is lost: every joined member is told -ENETRESET. */
static void sa_mc_reset(struct sa_mc_group *group)
{
	struct sa_mc_member *m;
	bool any = false;

	lockdep_assert_held(&group->lock);
	group->joined = 0;
	group->pkey_index = -1;
	list_for_each_entry(m, &group->members, list) {
		if (m->state != SA_MC_JOINED)
			continue;
		sa_mc_fail(m, -ENETRESET);
		any = true;
	}
	if (any)
		sa_stat_inc(SA_STAT_MC_RESET);
}

/* Port events since the last step (no request in flight). */
static void sa_mc_events(struct sa_mc_group *group)
{
	bool reset = test_and_clear_bit(SA_MC_EV_RESET, &group->events);

	lockdep_assert_held(&group->lock);
	if (test_and_clear_bit(SA_MC_EV_PKEY, &group->events) && group->joined &&
	    sa_mc_pkey_index(group->port, be16_to_cpu(group->rec.pkey)) !=
	    group->pkey_index)
		reset = true;
	if (reset)
		sa_mc_reset(group);
	else if (group->joined && group->pkey_index < 0)
		group->pkey_index = sa_mc_pkey_index(group->port,
						     be16_to_cpu(group->rec.pkey));
}

/* One step of the group's state machine (no request in flight). */
static void sa_mc_step(struct sa_mc_group *group)
{
	struct sa_mc_member *m, *first;
	u8 need = 0, leave;

	lockdep_assert_held(&group->lock);
	if (sa_port_dead(group->port)) {
		list_for_each_entry(m, &group->members, list)
			if (m->state != SA_MC_FAILED)
				sa_mc_fail(m, -ENODEV);
		group->joined = 0;
		return;
	}
	sa_mc_events(group);
	list_for_each_entry(m, &group->members, list) {
		if (m->state == SA_MC_PENDING &&
		    !(m->join_state & ~group->joined)) {
			if (sa_mc_rec_matches(&group->rec, &m->mc.rec,
					      m->mc.comp_mask)) {
				m->state = SA_MC_JOINED;
				m->notify = true;
			} else {
				sa_mc_fail(m, -EINVAL);
			}
		}
		if (m->state != SA_MC_FAILED)
			need |= m->join_state;
	}
	first = sa_mc_first_pending(group);
	if (first) {
		sa_mc_join(group, first);
		return;
	}
	leave = group->joined & ~need;
	if (leave && group->have_rec) {
		if (sa_mc_send(group, IB_SA_METHOD_DELETE, &group->rec, 0, leave))
			group->joined &= ~leave;
		else
			sa_stat_inc(SA_STAT_MC_DELETE);
	}
}

static void sa_mc_member_free(struct sa_mc_member *m)
{
	sa_client_put(m->client);
	kfree(m);
}

/* Takes m off the group (freed, or its callback said so). */
static void sa_mc_end(struct sa_mc_group *group, struct sa_mc_member *m)
{
	lockdep_assert_held(&group->lock);
	m->ended = true;
	list_del_init(&m->list);
	if (group->last_join == m)
		group->last_join = NULL;
}

/*
 * Calls one owed callback, dropping the group's lock around it.  False
 * when no callback is owed.
 */
static bool sa_mc_notify_one(struct sa_mc_group *group)
{
	struct sa_mc_member *m;
	bool found = false, self_ended = false;
	int status, ret;

	lockdep_assert_held(&group->lock);
	list_for_each_entry(m, &group->members, list) {
		if (m->notify) {
			found = true;
			break;
		}
	}
	if (!found)
		return false;
	m->notify = false;
	status = m->state == SA_MC_FAILED ? m->status : 0;
	if (!status) {
		m->mc.rec = group->rec;
		m->mc.rec.join_state = m->join_state;
	}
	refcount_inc(&m->refs);
	mutex_unlock(&group->lock);

	ret = m->mc.callback(status, &m->mc);

	mutex_lock(&group->lock);
	if (ret && !m->ended) {
		sa_mc_end(group, m);
		self_ended = true;
	}
	if (self_ended) {
		/* only this callback and the membership held it */
		sa_mc_member_free(m);
		/* the running work holds the group too */
		sa_mc_group_put(group);
	} else if (refcount_dec_and_test(&m->refs)) {
		complete(&m->released);
	}
	return true;
}

static void sa_mc_work(struct work_struct *work)
{
	struct sa_mc_group *group = container_of(to_delayed_work(work),
						 struct sa_mc_group, work);
	struct sa_port *port = group->port;
	bool unlisted = false;

	mutex_lock(&group->lock);
	spin_lock_irq(&port->mc_lock);
	if (group->mgid_assigned) {
		group->mgid_assigned = false;
		group->mgid = group->rec.mgid;
		group->shareable = true;
	}
	list_splice_tail_init(&group->incoming, &group->members);
	spin_unlock_irq(&port->mc_lock);
	do {
		if (!group->busy) {
			sa_mc_step(group);
			sa_mc_publish(group);
		}
	} while (sa_mc_notify_one(group));
	spin_lock_irq(&port->mc_lock);
	/* a member joining now finds the group listed, or makes a new one */
	if (list_empty(&group->members) && list_empty(&group->incoming) &&
	    !group->busy && !group->joined && !list_empty(&group->list)) {
		list_del_init(&group->list);
		unlisted = true;
	}
	spin_unlock_irq(&port->mc_lock);
	mutex_unlock(&group->lock);
	if (unlisted)
		sa_mc_group_put(group);
	sa_mc_group_put(group);
}

/* The shareable group of mgid on the port, or NULL. */
static struct sa_mc_group *sa_mc_find(struct sa_port *port,
				      const union ib_gid *mgid)
{
	struct sa_mc_group *group;

	lockdep_assert_held(&port->mc_lock);
	list_for_each_entry(group, &port->groups, list)
		if (group->shareable &&
		    !memcmp(group->mgid.raw, mgid->raw, sizeof(mgid->raw)))
			return group;
	return NULL;
}

/* A new group for rec's MGID, not on the port's list yet. */
static struct sa_mc_group *sa_mc_group_alloc(struct sa_port *port,
					     const struct ib_sa_mcmember_rec *rec,
					     gfp_t gfp)
{
	struct sa_mc_group *group;

	group = kzalloc(sizeof(*group), gfp);
	if (!group)
		return NULL;
	kref_init(&group->ref);			/* being on port->groups */
	group->port = port;
	sa_device_get(port->sa_dev);
	mutex_init(&group->lock);
	INIT_DELAYED_WORK(&group->work, sa_mc_work);
	INIT_LIST_HEAD(&group->members);
	INIT_LIST_HEAD(&group->incoming);
	INIT_LIST_HEAD(&group->list);
	group->pkey_index = -1;
	group->mgid = rec->mgid;
	group->rec.mgid = rec->mgid;
	group->shareable = !!memchr_inv(rec->mgid.raw, 0, sizeof(rec->mgid.raw));
	return group;
}

/*
 * Puts m on the incoming list of the port's group for its MGID, with a
 * reference on the group; *spare (a group made beforehand, or NULL) is
 * used when no group can be shared, and then set to NULL.  False when a
 * new group is needed and *spare is NULL.
 */
static bool sa_mc_add_member(struct sa_port *port, struct sa_mc_member *m,
			     struct sa_mc_group **spare)
{
	struct sa_mc_group *group;
	unsigned long flags;

	spin_lock_irqsave(&port->mc_lock, flags);
	group = sa_mc_find(port, &m->mc.rec.mgid);
	if (!group && *spare) {
		group = *spare;
		*spare = NULL;
		list_add_tail(&group->list, &port->groups);
	}
	if (group) {
		kref_get(&group->ref);		/* the member's */
		m->group = group;
		list_add_tail(&m->list, &group->incoming);
	}
	spin_unlock_irqrestore(&port->mc_lock, flags);
	return group;
}

struct ib_sa_multicast *
ib_sa_join_multicast(struct ib_sa_client *client, struct ib_device *device,
		     u32 port_num, struct ib_sa_mcmember_rec *rec,
		     ib_sa_comp_mask comp_mask, gfp_t gfp_mask,
		     int (*callback)(int status, struct ib_sa_multicast *multicast),
		     void *context)
{
	struct sa_mc_group *spare = NULL;
	struct sa_mc_member *m;
	struct sa_sm_ah *sm_ah;
	struct sa_port *port;
	int err = 0;

	if (!client || !rec || !callback || !rec->join_state ||
	    (rec->join_state & ~IB_SA_JOIN_STATES_MASK))
		return ERR_PTR(-EINVAL);
	port = sa_port_get(device, port_num);
	if (!port)
		return ERR_PTR(-ENODEV);
	sm_ah = sa_sm_ah_get(port, &err);
	if (!sm_ah)
		goto err_port;
	sa_sm_ah_put(sm_ah);

	err = -ENOMEM;
	m = kzalloc(sizeof(*m), gfp_mask);
	if (!m)
		goto err_port;
	m->mc.rec = *rec;
	m->mc.comp_mask = comp_mask;
	m->mc.callback = callback;
	m->mc.context = context;
	m->client = client;
	m->join_state = rec->join_state;
	m->state = SA_MC_PENDING;
	INIT_LIST_HEAD(&m->list);
	refcount_set(&m->refs, 1);
	init_completion(&m->released);

	/* a shared group if there is one, else a new one made outside the lock */
	while (!sa_mc_add_member(port, m, &spare)) {
		spare = sa_mc_group_alloc(port, rec, gfp_mask);
		if (!spare)
			goto err_free;
	}
	if (spare)		/* another joiner made the group meanwhile */
		sa_mc_group_put(spare);
	sa_client_get(client);
	sa_mc_queue(m->group, 0);
	sa_device_put(port->sa_dev);
	return &m->mc;

err_free:
	kfree(m);
err_port:
	sa_device_put(port->sa_dev);
	return ERR_PTR(err);
}
EXPORT_SYMBOL(ib_sa_join_multicast);

void ib_sa_free_multicast(struct ib_sa_multicast *multicast)
{
	struct sa_mc_member *m = container_of(multicast, struct sa_mc_member, mc);
	struct sa_mc_group *group = m->group;
	struct sa_port *port = group->port;

	might_sleep();
	mutex_lock(&group->lock);
	spin_lock_irq(&port->mc_lock);
	if (!m->ended)
		sa_mc_end(group, m);
	spin_unlock_irq(&port->mc_lock);
	mutex_unlock(&group->lock);
	/* the work leaves what no member needs any more */
	sa_mc_queue(group, 0);
	if (!refcount_dec_and_test(&m->refs))
		wait_for_completion(&m->released);
	sa_mc_member_free(m);
	sa_mc_group_put(group);
}
EXPORT_SYMBOL(ib_sa_free_multicast);

int ib_sa_get_mcmember_rec(struct ib_device *device, u32 port_num,
			   union ib_gid *mgid, struct ib_sa_mcmember_rec *rec)
{
	struct sa_mc_group *group;
	struct sa_port *port;
	int ret = -EADDRNOTAVAIL;
	unsigned long flags;

	port = sa_port_get(device, port_num);
	if (!port)
		return -ENODEV;
	spin_lock_irqsave(&port->mc_lock, flags);
	group = sa_mc_find(port, mgid);
	if (group && group->pub_valid) {
		*rec = group->pub_rec;
		ret = 0;
	}
	spin_unlock_irqrestore(&port->mc_lock, flags);
	sa_device_put(port->sa_dev);
	return ret;
}
EXPORT_SYMBOL(ib_sa_get_mcmember_rec);

/* [any] A port event for every group of the port; their work acts on it. */
void sa_mcast_port_event(struct sa_port *port, enum sa_mc_event ev)
{
	struct sa_mc_group *group;
	unsigned long flags;

	spin_lock_irqsave(&port->mc_lock, flags);
	list_for_each_entry(group, &port->groups, list) {
		set_bit(ev, &group->events);
		sa_mc_queue(group, 0);
	}
	spin_unlock_irqrestore(&port->mc_lock, flags);
}

/* The device is going away (port->dead is set): members learn -ENODEV. */
void sa_mcast_stop_port(struct sa_port *port)
{
	struct sa_mc_group *group;

	spin_lock_irq(&port->mc_lock);
	list_for_each_entry(group, &port->groups, list)
		sa_mc_queue(group, 0);
	spin_unlock_irq(&port->mc_lock);
}

void sa_mcast_init(void)
{
	ib_sa_register_client(&sa_mc_client);
}

void sa_mcast_exit(void)
{
	ib_sa_unregister_client(&sa_mc_client);
}

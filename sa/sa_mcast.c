// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast membership shared by kernel users: per (port, MGID) one group
 * that joins the SA once per JoinState bit its members need, leaves when
 * the last member needing a bit has gone, and rejoins after port events.
 * The semantics are described in <rdma/ib_sa.h>.
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
	m->notify_rejoin = false;
	m->rejoining = false;
}

/*
 * A join (SET) of bits failed: its pending members fail, except those
 * rejoining after a port event, which try again a little later.
 */
static void sa_mc_join_failed(struct sa_mc_group *group, u8 bits, int status)
{
	struct sa_mc_member *m;
	bool retry = false;

	lockdep_assert_held(&group->lock);
	list_for_each_entry(m, &group->members, list) {
		if (m->state != SA_MC_PENDING || !(m->join_state & bits))
			continue;
		if (m->rejoining && group->rejoin_tries < SA_MC_REJOIN_TRIES) {
			retry = true;
			continue;
		}
		sa_mc_fail(m, status);
	}
	if (retry) {
		group->rejoin_tries++;
		group->retry_at = jiffies + msecs_to_jiffies(SA_MC_REJOIN_DELAY_MS);
		sa_mc_queue(group, msecs_to_jiffies(SA_MC_REJOIN_DELAY_MS));
	}
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
		ib_sa_unpack_mcmember(mad->data, &rec);
		if (memcmp(rec.mgid.raw, group->rec.mgid.raw, sizeof(rec.mgid)))
			group->mgid_assigned = true;
		group->rec = rec;
		group->have_rec = true;
		group->joined |= group->sending;
		group->rejoin_tries = 0;
	} else {
		sa_mc_join_failed(group, group->sending, status);
	}
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
	ib_sa_pack_mcmember(&req, sa_query_mad(&query->sa_query)->data);
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

/* The first pending member needing one of bits. */
static struct sa_mc_member *sa_mc_first_pending(struct sa_mc_group *group,
						u8 bits)
{
	struct sa_mc_member *m;

	lockdep_assert_held(&group->lock);
	list_for_each_entry(m, &group->members, list)
		if (m->state == SA_MC_PENDING && (m->join_state & bits))
			return m;
	return NULL;
}

static void sa_mc_join(struct sa_mc_group *group, u8 want)
{
	struct sa_mc_member *first = sa_mc_first_pending(group, want);
	const struct ib_sa_mcmember_rec *rec;
	ib_sa_comp_mask mask;
	bool rejoin = first->rejoining;
	int ret;

	lockdep_assert_held(&group->lock);
	if (group->have_rec) {
		/* the SA's own record, without the MLID it may reassign */
		rec = &group->rec;
		mask = group->create_mask & ~IB_SA_MCMEMBER_REC_MLID;
	} else {
		rec = &first->mc.rec;
		mask = first->mc.comp_mask;
	}
	ret = sa_mc_send(group, IB_MGMT_METHOD_SET, rec, mask, want);
	if (ret) {
		sa_mc_join_failed(group, want, ret);
		return;
	}
	sa_stat_inc(SA_STAT_MC_SET);
	if (rejoin)
		sa_stat_inc(SA_STAT_MC_REJOIN);
}

/* One step of the group's state machine (no request in flight). */
static void sa_mc_step(struct sa_mc_group *group)
{
	u8 pending = 0, need = 0, want, leave;
	struct sa_mc_member *m;

	lockdep_assert_held(&group->lock);
	if (sa_port_dead(group->port)) {
		list_for_each_entry(m, &group->members, list)
			if (m->state != SA_MC_FAILED)
				sa_mc_fail(m, -ENODEV);
		group->joined = 0;
		return;
	}
	if (test_and_clear_bit(SA_MC_EV_REJOIN, &group->events)) {
		group->rejoin_tries = 0;
		group->joined = 0;
		list_for_each_entry(m, &group->members, list) {
			if (m->state != SA_MC_JOINED)
				continue;
			m->state = SA_MC_PENDING;
			m->rejoining = true;
		}
	}
	list_for_each_entry(m, &group->members, list) {
		if (m->state == SA_MC_PENDING &&
		    !(m->join_state & ~group->joined)) {
			m->state = SA_MC_JOINED;
			m->notify = true;
			m->notify_rejoin = m->rejoining;
			m->rejoining = false;
		}
		if (m->state == SA_MC_PENDING)
			pending |= m->join_state;
		if (m->state != SA_MC_FAILED)
			need |= m->join_state;
	}
	want = pending & ~group->joined;
	if (want && time_before(jiffies, group->retry_at)) {
		sa_mc_queue(group, group->retry_at - jiffies);
		return;
	}
	if (want) {
		sa_mc_join(group, want);
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
		if (m->notify_rejoin)
			m->mc.rejoins++;
	}
	refcount_inc(&m->refs);
	mutex_unlock(&group->lock);

	ret = m->mc.callback(status, &m->mc);

	mutex_lock(&group->lock);
	if (ret && !m->ended) {
		m->ended = true;
		list_del_init(&m->list);
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
					     ib_sa_comp_mask comp_mask,
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
	group->retry_at = jiffies;
	group->mgid = rec->mgid;
	group->rec.mgid = rec->mgid;
	group->shareable = !!memchr_inv(rec->mgid.raw, 0, sizeof(rec->mgid.raw));
	group->create_mask = comp_mask;
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
		     u32 port_num, const struct ib_sa_mcmember_rec *rec,
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
		spare = sa_mc_group_alloc(port, rec, comp_mask, gfp_mask);
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
	if (!m->ended) {
		m->ended = true;
		list_del_init(&m->list);
	}
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
			   const union ib_gid *mgid,
			   struct ib_sa_mcmember_rec *rec)
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

/* A port event: every group of the port joins again. */
void sa_mcast_rejoin_port(struct sa_port *port)
{
	struct sa_mc_group *group;

	spin_lock_irq(&port->mc_lock);
	if (!list_empty(&port->groups))
		pr_info(SA_PFX "%s port %u: new SM, LID or reregistration: rejoining multicast groups\n",
			dev_name(&port->sa_dev->device->dev), port->port_num);
	list_for_each_entry(group, &port->groups, list) {
		set_bit(SA_MC_EV_REJOIN, &group->events);
		sa_mc_queue(group, 0);
	}
	spin_unlock_irq(&port->mc_lock);
}

/* The device is going away (port->dead is set): members learn -ENODEV. */
void sa_mcast_stop_port(struct sa_port *port)
{
	struct sa_mc_group *group;

	spin_lock_irq(&port->mc_lock);
	list_for_each_entry(group, &port->groups, list) {
		/* now, even if a rejoin was waiting for its retry */
		kref_get(&group->ref);
		if (mod_delayed_work(sa_wq, &group->work, 0))
			sa_mc_group_put(group);
	}
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

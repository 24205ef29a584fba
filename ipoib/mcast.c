// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast groups of an IPoIB interface: the broadcast group (joined
 * first: nothing else is tried until it is joined and attached), the full
 * joins asked for by the stack (ndo_set_rx_mode, through the restart
 * task) and the send-only joins created by a transmit to a group not
 * joined.  Joins go through ib_sa with a per-group backoff of 1 to
 * IPOIB_MAX_BACKOFF seconds; a full join attaches the UD QP to the group.
 * Also the carrier-on task (queued once the broadcast group is joined)
 * and the <if>_mcg debugfs records.
 *
 * A group's life:
 *  - created (tree and list under priv->lock) with no membership (mc NULL);
 *  - the join task (under mcast_mutex) takes mcast->done (a completion
 *    that is "done" while no join is in flight), sets IPOIB_MCAST_BUSY
 *    and asks ib_sa to join; the join callback stores the membership (or
 *    clears it on a failure: ib_sa then frees it), attaches, builds the
 *    AH, clears BUSY and completes mcast->done, in that order and nothing
 *    after;
 *  - a leave (under mcast_mutex) first takes the group off the tree and
 *    list, then waits for mcast->done, frees the membership, detaches
 *    and frees the group.
 * Only holders of mcast_mutex take groups off the tree, so a group on the
 * list stays there while the mutex is held; transmits may add send-only
 * groups at any time (under priv->lock).
 */
#include <linux/delay.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "ipoib.h"

/* a group whose join may be started (no membership, none in flight) */
static bool ipoib_mcast_idle(const struct ipoib_mcast *mcast)
{
	return !mcast->ah && !mcast->mc &&
	       !test_bit(IPOIB_MCAST_BUSY, &mcast->flags);
}

/* [any] Runs the join task now, unless joins are stopped. */
static void ipoib_mcast_kick(struct ipoib_dev *priv)
{
	if (test_bit(IPOIB_FLAG_MCAST_RUN, &priv->flags))
		mod_delayed_work(priv->wq, &priv->mcast_task, 0);
}

/*
 * [join task] Runs the join task again at @when (a jiffies value), or
 * sooner if it is already queued sooner.
 */
static void ipoib_mcast_requeue(struct ipoib_dev *priv, unsigned long when)
{
	long delay = (long)(when - jiffies);

	if (!test_bit(IPOIB_FLAG_MCAST_RUN, &priv->flags))
		return;
	queue_delayed_work(priv->wq, &priv->mcast_task, delay > 0 ? delay : 0);
}

static struct ipoib_mcast *ipoib_mcast_alloc(struct ipoib_dev *priv,
					     const u8 *mgid, bool sendonly,
					     gfp_t gfp)
{
	struct ipoib_mcast *mcast;

	mcast = kzalloc(sizeof(*mcast), gfp);
	if (!mcast)
		return NULL;
	mcast->dev = priv->dev;
	memcpy(mcast->mcmember.mgid.raw, mgid, sizeof(union ib_gid));
	RB_CLEAR_NODE(&mcast->node);
	INIT_LIST_HEAD(&mcast->list);
	skb_queue_head_init(&mcast->queue);
	mcast->created = jiffies;
	mcast->delay_until = jiffies;
	mcast->backoff = 1;
	/* no join in flight: a leave need not wait */
	init_completion(&mcast->done);
	complete(&mcast->done);
	if (sendonly)
		__set_bit(IPOIB_MCAST_SENDONLY, &mcast->flags);
	return mcast;
}

/* The group of an MGID (16 bytes), or NULL. */
static struct ipoib_mcast *ipoib_mcast_find(struct ipoib_dev *priv,
					    const u8 *mgid)
{
	struct rb_node *n = priv->mcast_tree.rb_node;

	lockdep_assert_held(&priv->lock);
	while (n) {
		struct ipoib_mcast *mcast = rb_entry(n, struct ipoib_mcast, node);
		int cmp = memcmp(mgid, mcast->mcmember.mgid.raw,
				 sizeof(union ib_gid));

		if (cmp < 0)
			n = n->rb_left;
		else if (cmp > 0)
			n = n->rb_right;
		else
			return mcast;
	}
	return NULL;
}

/* Puts mcast in the tree: NULL, or the group already there with its MGID. */
static struct ipoib_mcast *ipoib_mcast_insert(struct ipoib_dev *priv,
					      struct ipoib_mcast *mcast)
{
	struct rb_node **link = &priv->mcast_tree.rb_node, *parent = NULL;

	lockdep_assert_held(&priv->lock);
	while (*link) {
		struct ipoib_mcast *other;
		int cmp;

		parent = *link;
		other = rb_entry(parent, struct ipoib_mcast, node);
		cmp = memcmp(mcast->mcmember.mgid.raw, other->mcmember.mgid.raw,
			     sizeof(union ib_gid));
		if (cmp < 0)
			link = &parent->rb_left;
		else if (cmp > 0)
			link = &parent->rb_right;
		else
			return other;
	}
	rb_link_node(&mcast->node, parent, link);
	rb_insert_color(&mcast->node, &priv->mcast_tree);
	return NULL;
}

/* Takes mcast off the tree and moves it to @to (a leave list). */
static void ipoib_mcast_unlink(struct ipoib_dev *priv,
			       struct ipoib_mcast *mcast, struct list_head *to)
{
	lockdep_assert_held(&priv->lock);
	rb_erase(&mcast->node, &priv->mcast_tree);
	RB_CLEAR_NODE(&mcast->node);
	list_move_tail(&mcast->list, to);
}

/* Frees the packets of @q (off every lock), each a tx_dropped. */
static void ipoib_mcast_drop_queue(struct ipoib_dev *priv,
				   struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q)))
		ipoib_drop_tx(priv, skb);
}

/*
 * A join failed (the call or its callback): the next try waits twice as
 * long as the last one, up to IPOIB_MAX_BACKOFF seconds.  A send-only
 * group gets two tries: then its packets go to @drop and it waits, with
 * no delay, for the next packet to try again.
 */
static void ipoib_mcast_failed(struct ipoib_dev *priv,
			       struct ipoib_mcast *mcast,
			       struct sk_buff_head *drop)
{
	lockdep_assert_held(&priv->lock);
	mcast->tries++;
	if (test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags) && mcast->tries >= 2) {
		skb_queue_splice_tail_init(&mcast->queue, drop);
		mcast->tries = 0;
		mcast->backoff = 1;
		mcast->delay_until = jiffies;
		return;
	}
	mcast->backoff = min_t(unsigned int, mcast->backoff * 2,
			       IPOIB_MAX_BACKOFF);
	mcast->delay_until = jiffies + mcast->backoff * HZ;
}

/*
 * [mcast_mutex, sleeps] Leaves a group already off the tree and list:
 * waits for its join in flight, ends the membership, detaches the QP and
 * frees the group with its queued packets.
 */
static void ipoib_mcast_leave(struct ipoib_dev *priv, struct ipoib_mcast *mcast)
{
	struct ib_sa_multicast *mc;
	struct sk_buff_head drop;
	int ret;

	lockdep_assert_held(&priv->mcast_mutex);
	__skb_queue_head_init(&drop);

	wait_for_completion(&mcast->done);

	spin_lock_irq(&priv->lock);
	mc = mcast->mc;
	mcast->mc = NULL;
	spin_unlock_irq(&priv->lock);
	if (mc)
		ib_sa_free_multicast(mc);

	if (test_and_clear_bit(IPOIB_MCAST_ATTACHED, &mcast->flags)) {
		ipoib_dbg_mcast(priv, "leaving MGID %pI6\n",
				mcast->mcmember.mgid.raw);
		ret = ib_detach_mcast(priv->qp, &mcast->mcmember.mgid,
				      be16_to_cpu(mcast->mcmember.mlid));
		if (ret)
			ipoib_warn(priv, "ib_detach_mcast failed (result = %d)\n",
				   ret);
	}

	spin_lock_irq(&priv->lock);
	if (mcast->ah) {
		ipoib_ah_put(mcast->ah);
		mcast->ah = NULL;
	}
	skb_queue_splice_init(&mcast->queue, &drop);
	spin_unlock_irq(&priv->lock);

	ipoib_mcast_drop_queue(priv, &drop);
	ipoib_dbg_mcast(priv, "deleting multicast group %pI6\n",
			mcast->mcmember.mgid.raw);
	kfree(mcast);
}

/* [mcast_mutex] Leaves every group of @list (see ipoib_mcast_leave). */
static void ipoib_mcast_leave_list(struct ipoib_dev *priv,
				   struct list_head *list)
{
	struct ipoib_mcast *mcast, *tmp;

	list_for_each_entry_safe(mcast, tmp, list, list) {
		list_del_init(&mcast->list);
		ipoib_mcast_leave(priv, mcast);
	}
}

/* Sets the UD QP's Q_Key to the broadcast group's (priv->qkey). */
static int ipoib_mcast_set_qkey(struct ipoib_dev *priv)
{
	struct ib_qp_attr *qp_attr;
	int ret;

	qp_attr = kzalloc(sizeof(*qp_attr), GFP_KERNEL);
	if (!qp_attr)
		return -ENOMEM;
	qp_attr->qkey = priv->qkey;
	ret = ib_modify_qp(priv->qp, qp_attr, IB_QP_QKEY);
	kfree(qp_attr);
	if (ret)
		ipoib_warn(priv, "failed to modify QP to set the Q_Key 0x%x, ret = %d\n",
			   priv->qkey, ret);
	return ret;
}

/*
 * [join callback] The SA accepted the join: record the group, attach the
 * QP (full joins), build the AH and send what waited.  0, or an errno:
 * the join then counts as failed (nothing attached stays attached).
 * *bcast tells whether the broadcast group is now joined.
 */
static int ipoib_mcast_joined(struct ipoib_dev *priv, struct ipoib_mcast *mcast,
			      struct ib_sa_multicast *multicast, bool *bcast)
{
	struct ib_sa_mcmember_rec rec = multicast->rec;
	struct rdma_ah_attr attr;
	struct sk_buff_head sendq;
	struct ipoib_ah *ah;
	bool attached = false;
	struct sk_buff *skb;
	int mtu, ret;

	*bcast = false;
	__skb_queue_head_init(&sendq);

	spin_lock_irq(&priv->lock);
	if (RB_EMPTY_NODE(&mcast->node)) {
		/* being left: its leave waits for us, then ends the membership */
		mcast->mc = multicast;
		spin_unlock_irq(&priv->lock);
		return 0;
	}
	/* the MGID is the tree's key: keep ours */
	rec.mgid = mcast->mcmember.mgid;
	mcast->mcmember = rec;
	if (mcast == priv->broadcast) {
		*bcast = true;
		priv->qkey = be32_to_cpu(rec.qkey);
		mtu = ib_mtu_enum_to_int((enum ib_mtu)rec.mtu);
		if (mtu > IPOIB_ENCAP_LEN) {
			mtu -= IPOIB_ENCAP_LEN;
			/* an MTU the user left alone follows the group's */
			if (priv->admin_mtu == priv->mcast_mtu)
				priv->admin_mtu = mtu;
			priv->mcast_mtu = mtu;
		}
	}
	spin_unlock_irq(&priv->lock);

	if (!test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags) &&
	    !test_bit(IPOIB_MCAST_ATTACHED, &mcast->flags)) {
		if (*bcast) {
			ret = ipoib_mcast_set_qkey(priv);
			if (ret)
				goto fail;
		}
		ret = ib_attach_mcast(priv->qp, &rec.mgid, be16_to_cpu(rec.mlid));
		if (ret) {
			ipoib_warn(priv, "couldn't attach QP to multicast group %pI6\n",
				   rec.mgid.raw);
			goto fail;
		}
		set_bit(IPOIB_MCAST_ATTACHED, &mcast->flags);
		attached = true;
	}

	ret = ib_init_ah_from_mcmember(priv->ca, priv->port, &rec, priv->dev,
				       IB_GID_TYPE_IB, &attr);
	if (ret) {
		ipoib_warn(priv, "no address vector for multicast group %pI6 (%d)\n",
			   rec.mgid.raw, ret);
		goto detach;
	}
	ah = ipoib_ah_create(priv, &attr);
	rdma_destroy_ah_attr(&attr);
	if (IS_ERR_OR_NULL(ah)) {
		ret = ah ? PTR_ERR(ah) : -ENOMEM;
		ipoib_warn(priv, "ib_address_create failed %d\n", -ret);
		goto detach;
	}

	spin_lock_irq(&priv->lock);
	mcast->ah = ah;
	mcast->mc = multicast;
	mcast->backoff = 1;
	mcast->tries = 0;
	mcast->delay_until = jiffies;
	skb_queue_splice_init(&mcast->queue, &sendq);
	spin_unlock_irq(&priv->lock);

	ipoib_dbg_mcast(priv, "MGID %pI6 joined: LID 0x%04x, SL %d\n",
			rec.mgid.raw, be16_to_cpu(rec.mlid), rec.sl);

	/* back through start_xmit, each with its pseudo header */
	while ((skb = __skb_dequeue(&sendq))) {
		skb->dev = priv->dev;
		ret = dev_queue_xmit(skb);
		if (ret)
			ipoib_dbg_mcast(priv, "dev_queue_xmit failed to re-queue packet, ret:%d\n",
					ret);
	}
	return 0;

detach:
	if (attached) {
		clear_bit(IPOIB_MCAST_ATTACHED, &mcast->flags);
		ib_detach_mcast(priv->qp, &rec.mgid, be16_to_cpu(rec.mlid));
	}
fail:
	*bcast = false;
	return ret;
}

/*
 * The join callback (ib_sa's work queue, process context).  A non-zero
 * return makes ib_sa end the membership, so mcast->mc is cleared first.
 * complete(&mcast->done) is the last thing done: a leave may free mcast
 * (and tear the interface down) as soon as it is called, and the next
 * join of the group waits for it.
 */
static int ipoib_mcast_join_done(int status, struct ib_sa_multicast *multicast)
{
	struct ipoib_mcast *mcast = multicast->context;
	struct ipoib_dev *priv = ipoib_priv(mcast->dev);
	bool sendonly = test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags);
	struct sk_buff_head drop;
	bool bcast = false;

	ipoib_dbg_mcast(priv, "%sjoin completion for %pI6 (status %d)\n",
			sendonly ? "sendonly " : "", mcast->mcmember.mgid.raw,
			status);
	__skb_queue_head_init(&drop);

	if (status == -ENETRESET) {
		/*
		 * A joined group lost its membership: the port event's flush
		 * leaves and joins every group again.  If the join had not
		 * been reported yet, end the membership here and let the join
		 * task try again (unless the flush does it first).
		 */
		if (!test_bit(IPOIB_MCAST_BUSY, &mcast->flags))
			return 0;
		goto out;
	}

	if (!status)
		status = ipoib_mcast_joined(priv, mcast, multicast, &bcast);
	if (!status)
		goto out;

	if ((sendonly && status == -EINVAL) || status == -ETIMEDOUT ||
	    status == -EAGAIN)
		ipoib_dbg_mcast(priv, "%smulticast join failed for %pI6, status %d\n",
				sendonly ? "sendonly " : "",
				mcast->mcmember.mgid.raw, status);
	else
		ipoib_warn_rl(priv, "%smulticast join failed for %pI6, status %d\n",
			      sendonly ? "sendonly " : "",
			      mcast->mcmember.mgid.raw, status);

	spin_lock_irq(&priv->lock);
	ipoib_mcast_failed(priv, mcast, &drop);
	spin_unlock_irq(&priv->lock);
	ipoib_mcast_drop_queue(priv, &drop);

out:
	spin_lock_irq(&priv->lock);
	if (status)
		mcast->mc = NULL;
	clear_bit(IPOIB_MCAST_BUSY, &mcast->flags);
	spin_unlock_irq(&priv->lock);

	if (bcast)
		/* carrier on (under RTNL), then the other groups */
		queue_work(priv->wq, &priv->carrier_on_task);
	if (status || bcast)
		ipoib_mcast_kick(priv);
	complete(&mcast->done);
	return status;
}

/*
 * [join task] Starts the join of an idle group; its callback follows.
 * 0, or an errno: the group then backs off as after a failed join.
 */
static int ipoib_mcast_join(struct ipoib_dev *priv, struct ipoib_mcast *mcast,
			    const union ib_gid *port_gid)
{
	struct ib_sa_mcmember_rec rec = {};
	struct ib_sa_multicast *multicast;
	struct sk_buff_head drop;
	ib_sa_comp_mask mask;
	int ret;

	lockdep_assert_held(&priv->mcast_mutex);

	/*
	 * The previous join's callback may still be finishing: it clears
	 * BUSY before it completes mcast->done.  This takes the completion
	 * (a join in flight holds none); the callback gives it back.
	 */
	wait_for_completion(&mcast->done);

	mask = IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID |
	       IB_SA_MCMEMBER_REC_PKEY | IB_SA_MCMEMBER_REC_JOIN_STATE;
	rec.port_gid = *port_gid;
	rec.pkey = cpu_to_be16(priv->pkey);
	rec.join_state = BIT(FULLMEMBER_JOIN);

	spin_lock_irq(&priv->lock);
	rec.mgid = mcast->mcmember.mgid;
	if (mcast != priv->broadcast) {
		const struct ib_sa_mcmember_rec *b = &priv->broadcast->mcmember;

		/*
		 * RFC 4391: every group of the interface uses the broadcast
		 * group's P_Key, Q_Key, SL, MTU and HopLimit, and should use
		 * its other attributes.
		 */
		mask |= IB_SA_MCMEMBER_REC_QKEY |
			IB_SA_MCMEMBER_REC_MTU_SELECTOR |
			IB_SA_MCMEMBER_REC_MTU |
			IB_SA_MCMEMBER_REC_TRAFFIC_CLASS |
			IB_SA_MCMEMBER_REC_RATE_SELECTOR |
			IB_SA_MCMEMBER_REC_RATE |
			IB_SA_MCMEMBER_REC_SL |
			IB_SA_MCMEMBER_REC_FLOW_LABEL |
			IB_SA_MCMEMBER_REC_HOP_LIMIT;
		rec.qkey = b->qkey;
		rec.mtu_selector = IB_SA_EQ;
		rec.mtu = b->mtu;
		rec.traffic_class = b->traffic_class;
		rec.rate_selector = IB_SA_EQ;
		rec.rate = b->rate;
		rec.sl = b->sl;
		rec.flow_label = b->flow_label;
		rec.hop_limit = b->hop_limit;
		/* creates the group if need be, without receiving from it */
		if (test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags))
			rec.join_state = BIT(SENDONLY_FULLMEMBER_JOIN);
	}
	set_bit(IPOIB_MCAST_BUSY, &mcast->flags);
	spin_unlock_irq(&priv->lock);

	ipoib_dbg_mcast(priv, "joining MGID %pI6\n", rec.mgid.raw);
	multicast = ib_sa_join_multicast(&ipoib_sa_client, priv->ca, priv->port,
					 &rec, mask, GFP_KERNEL,
					 ipoib_mcast_join_done, mcast);
	if (!IS_ERR(multicast))
		return 0;

	ret = PTR_ERR(multicast);
	/*
	 * -EAGAIN: the port has no SA to ask yet (no SM, or its LID not
	 * known): upstream's join fails the same way later, through its
	 * callback, and logs that at debug level; so does this.
	 */
	if (ret == -EAGAIN)
		ipoib_dbg_mcast(priv, "ib_sa_join_multicast failed, status %d\n", ret);
	else
		ipoib_warn_rl(priv, "ib_sa_join_multicast failed, status %d\n", ret);
	__skb_queue_head_init(&drop);
	spin_lock_irq(&priv->lock);
	ipoib_mcast_failed(priv, mcast, &drop);
	clear_bit(IPOIB_MCAST_BUSY, &mcast->flags);
	spin_unlock_irq(&priv->lock);
	complete(&mcast->done);
	ipoib_mcast_drop_queue(priv, &drop);
	return ret;
}

/* [join task] The broadcast group, created if need be; NULL if no memory. */
static struct ipoib_mcast *ipoib_mcast_get_broadcast(struct ipoib_dev *priv)
{
	struct ipoib_mcast *bcast, *other;

	lockdep_assert_held(&priv->mcast_mutex);
	if (priv->broadcast)
		return priv->broadcast;

	bcast = ipoib_mcast_alloc(priv, priv->dev->broadcast + 4, false,
				  GFP_KERNEL);
	if (!bcast)
		return NULL;

	spin_lock_irq(&priv->lock);
	other = ipoib_mcast_insert(priv, bcast);
	if (other) {
		/*
		 * The stack asked for it too: one group serves both.  (Never
		 * a send-only one: none is created before the broadcast group
		 * is joined.)
		 */
		WARN_ON_ONCE(test_bit(IPOIB_MCAST_SENDONLY, &other->flags));
		kfree(bcast);
		bcast = other;
	} else {
		list_add(&bcast->list, &priv->mcast_list);
	}
	priv->broadcast = bcast;
	spin_unlock_irq(&priv->lock);
	return bcast;
}

/*
 * [join task] Starts the join of every idle group whose delay has passed
 * (a send-only group only with packets waiting), then runs again when the
 * earliest remaining delay ends.
 */
static void ipoib_mcast_join_others(struct ipoib_dev *priv,
				    const union ib_gid *port_gid)
{
	unsigned long next = 0;
	struct ipoib_mcast *mcast;
	bool wait = false;

	spin_lock_irq(&priv->lock);
	list_for_each_entry(mcast, &priv->mcast_list, list) {
		if (!ipoib_mcast_idle(mcast))
			continue;
		if (test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags) &&
		    skb_queue_empty(&mcast->queue))
			continue;
		if (time_before(jiffies, mcast->delay_until)) {
			if (!wait || time_before(mcast->delay_until, next))
				next = mcast->delay_until;
			wait = true;
			continue;
		}
		/* mcast stays on the list: only mcast_mutex holders unlink */
		spin_unlock_irq(&priv->lock);
		ipoib_mcast_join(priv, mcast, port_gid);
		spin_lock_irq(&priv->lock);
		if (ipoib_mcast_idle(mcast) &&
		    (!wait || time_before(mcast->delay_until, next))) {
			/* the call failed: try it again after its backoff */
			next = mcast->delay_until;
			wait = true;
		}
	}
	spin_unlock_irq(&priv->lock);

	if (wait)
		ipoib_mcast_requeue(priv, next);
	else
		ipoib_dbg_mcast(priv, "successfully started all multicast joins\n");
}

void ipoib_mcast_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(to_delayed_work(work),
					      struct ipoib_dev, mcast_task);
	struct ib_port_attr attr;
	struct ipoib_mcast *bcast;
	unsigned long when = 0;
	union ib_gid gid;
	bool join = false;
	int ret;

	mutex_lock(&priv->mcast_mutex);
	if (!test_bit(IPOIB_FLAG_MCAST_RUN, &priv->flags) ||
	    !test_bit(IPOIB_FLAG_OPER_UP, &priv->flags))
		goto out;

	ret = ib_query_port(priv->ca, priv->port, &attr);
	if (ret) {
		ipoib_dbg(priv, "ib_query_port() failed\n");
		goto out;
	}
	if (attr.state != IB_PORT_ACTIVE) {
		/* a port event restarts us */
		ipoib_dbg(priv, "port state is not ACTIVE (state = %d) suspending join task\n",
			  attr.state);
		goto out;
	}
	priv->local_lid = attr.lid;

	ret = rdma_query_gid(priv->ca, priv->port, 0, &gid);
	if (ret) {
		ipoib_warn_rl(priv, "no GID 0 on port %u (%d)\n", priv->port, ret);
		ipoib_mcast_requeue(priv, jiffies + HZ);
		goto out;
	}

	bcast = ipoib_mcast_get_broadcast(priv);
	if (!bcast) {
		ipoib_warn(priv, "failed to allocate broadcast group\n");
		ipoib_mcast_requeue(priv, jiffies + HZ);
		goto out;
	}

	spin_lock_irq(&priv->lock);
	if (!bcast->ah) {
		/* nothing else until the broadcast group is joined */
		if (ipoib_mcast_idle(bcast)) {
			if (time_before(jiffies, bcast->delay_until))
				when = bcast->delay_until;
			else
				join = true;
		}
		spin_unlock_irq(&priv->lock);
		if (join && ipoib_mcast_join(priv, bcast, &gid))
			when = bcast->delay_until;
		if (when)
			ipoib_mcast_requeue(priv, when);
		goto out;
	}
	spin_unlock_irq(&priv->lock);

	ipoib_mcast_join_others(priv, &gid);
out:
	mutex_unlock(&priv->mcast_mutex);
}

void ipoib_mcast_start(struct ipoib_dev *priv)
{
	ipoib_dbg_mcast(priv, "starting multicast thread\n");
	set_bit(IPOIB_FLAG_MCAST_RUN, &priv->flags);
	mod_delayed_work(priv->wq, &priv->mcast_task, 0);
	/*
	 * After a flush left every group, the stack's groups come back
	 * from dev->mc (as upstream's flushes run the restart task).
	 */
	queue_work(priv->wq, &priv->restart_task);
}

void ipoib_mcast_stop(struct ipoib_dev *priv)
{
	ipoib_dbg_mcast(priv, "stopping multicast thread\n");
	clear_bit(IPOIB_FLAG_MCAST_RUN, &priv->flags);
	cancel_delayed_work_sync(&priv->mcast_task);
}

void ipoib_mcast_leave_all(struct ipoib_dev *priv)
{
	struct ipoib_mcast *mcast, *tmp, *bcast;
	LIST_HEAD(leaving);

	mutex_lock(&priv->mcast_mutex);
	ipoib_dbg_mcast(priv, "flushing multicast list\n");

	spin_lock_irq(&priv->lock);
	bcast = priv->broadcast;
	priv->broadcast = NULL;
	list_for_each_entry_safe(mcast, tmp, &priv->mcast_list, list)
		ipoib_mcast_unlink(priv, mcast, &leaving);
	/* the broadcast group last */
	if (bcast)
		list_move_tail(&bcast->list, &leaving);
	spin_unlock_irq(&priv->lock);

	ipoib_mcast_leave_list(priv, &leaving);
	mutex_unlock(&priv->mcast_mutex);
}

void ipoib_carrier_on_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      carrier_on_task);
	struct ib_port_attr attr;

	if (ib_query_port(priv->ca, priv->port, &attr) ||
	    attr.state != IB_PORT_ACTIVE) {
		ipoib_dbg(priv, "Keeping carrier off until IB port is active\n");
		return;
	}

	/*
	 * ndo_stop drains priv->wq under RTNL, so never wait for RTNL:
	 * retry until we get it or the interface goes down.
	 */
	while (!rtnl_trylock()) {
		if (!test_bit(IPOIB_FLAG_OPER_UP, &priv->flags))
			return;
		msleep(20);
	}
	if (test_bit(IPOIB_FLAG_OPER_UP, &priv->flags)) {
		/*
		 * datagram mode: the broadcast group's MTU bounds the user's;
		 * connected mode keeps the one the user set (up to 65520)
		 */
		if (!ipoib_cm_admin(priv))
			dev_set_mtu(priv->dev, min(priv->mcast_mtu, priv->admin_mtu));
		netif_carrier_on(priv->dev);
	}
	rtnl_unlock();
}

/* An address of dev->mc naming a group of this interface's partition. */
static bool ipoib_mcast_addr_ours(const u8 *addr, const u8 *broadcast)
{
	/* QPN, MGID prefix and flags: bytes 0-5 (byte 6 is the scope) */
	if (memcmp(addr, broadcast, 6))
		return false;
	/* signature's low byte and P_Key: bytes 7-9 */
	return !memcmp(addr + 7, broadcast + 7, 3);
}

/*
 * [priv->lock, netdev addr lock] Brings the groups in line with dev->mc:
 * marks the groups still wanted, creates the new ones and puts the groups
 * to leave on @leaving.
 */
static void ipoib_mcast_sync(struct ipoib_dev *priv, struct list_head *leaving)
{
	struct net_device *dev = priv->dev;
	struct ipoib_mcast *mcast, *tmp, *nmcast;
	struct ib_sa_mcmember_rec rec;
	struct netdev_hw_addr *ha;
	union ib_gid mgid;

	lockdep_assert_held(&priv->lock);

	list_for_each_entry(mcast, &priv->mcast_list, list)
		clear_bit(IPOIB_MCAST_FOUND, &mcast->flags);

	netdev_for_each_mc_addr(ha, dev) {
		if (!ipoib_mcast_addr_ours(ha->addr, dev->broadcast))
			continue;
		memcpy(mgid.raw, ha->addr + 4, sizeof(mgid));

		mcast = ipoib_mcast_find(priv, mgid.raw);
		if (mcast && !test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags)) {
			set_bit(IPOIB_MCAST_FOUND, &mcast->flags);
			continue;
		}

		/* with umcast, a group another kernel user joined is its own */
		if (test_bit(IPOIB_FLAG_UMCAST, &priv->flags) &&
		    !ib_sa_get_mcmember_rec(priv->ca, priv->port, &mgid, &rec)) {
			ipoib_dbg_mcast(priv, "ignoring multicast entry for mgid %pI6\n",
					mgid.raw);
			continue;
		}

		ipoib_dbg_mcast(priv, "adding multicast entry for mgid %pI6\n",
				mgid.raw);
		nmcast = ipoib_mcast_alloc(priv, mgid.raw, false, GFP_ATOMIC);
		if (!nmcast) {
			ipoib_warn(priv, "unable to allocate memory for multicast structure\n");
			continue;
		}
		set_bit(IPOIB_MCAST_FOUND, &nmcast->flags);
		if (mcast) {
			/* a full join replaces the send-only one */
			rb_replace_node(&mcast->node, &nmcast->node,
					&priv->mcast_tree);
			RB_CLEAR_NODE(&mcast->node);
			list_move_tail(&mcast->list, leaving);
			skb_queue_splice_init(&mcast->queue, &nmcast->queue);
		} else {
			ipoib_mcast_insert(priv, nmcast);
		}
		list_add_tail(&nmcast->list, &priv->mcast_list);
	}

	list_for_each_entry_safe(mcast, tmp, &priv->mcast_list, list) {
		if (!test_and_clear_bit(IPOIB_MCAST_FOUND, &mcast->flags) &&
		    mcast != priv->broadcast &&
		    !test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags)) {
			ipoib_dbg_mcast(priv, "deleting multicast group %pI6\n",
					mcast->mcmember.mgid.raw);
			ipoib_mcast_unlink(priv, mcast, leaving);
		}
	}
}

void ipoib_mcast_restart_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      restart_task);
	struct net_device *dev = priv->dev;
	LIST_HEAD(leaving);

	/* going down: the flush that follows leaves everything */
	if (!test_bit(IPOIB_FLAG_OPER_UP, &priv->flags))
		return;

	ipoib_dbg_mcast(priv, "restarting multicast task\n");

	mutex_lock(&priv->mcast_mutex);
	/* no group may outlive the leave of a dev_down that ran meanwhile */
	if (!test_bit(IPOIB_FLAG_OPER_UP, &priv->flags)) {
		mutex_unlock(&priv->mcast_mutex);
		return;
	}
	netif_addr_lock_bh(dev);
	spin_lock_irq(&priv->lock);
	ipoib_mcast_sync(priv, &leaving);
	spin_unlock_irq(&priv->lock);
	netif_addr_unlock_bh(dev);

	ipoib_mcast_leave_list(priv, &leaving);
	mutex_unlock(&priv->mcast_mutex);

	ipoib_mcast_kick(priv);
}

void ipoib_mcast_xmit(struct ipoib_dev *priv, struct sk_buff *skb,
		      const u8 *daddr)
{
	const u8 *mgid = daddr + 4;
	struct ipoib_mcast *mcast;
	unsigned long flags;
	bool kick = false;

	spin_lock_irqsave(&priv->lock, flags);
	/* no group is joined before the broadcast group */
	if (!test_bit(IPOIB_FLAG_OPER_UP, &priv->flags) ||
	    !priv->broadcast || !priv->broadcast->ah)
		goto drop;

	mcast = ipoib_mcast_find(priv, mgid);
	if (mcast && mcast->ah) {
		ipoib_send(priv, skb, mcast->ah, IPOIB_MCAST_QPN);
		spin_unlock_irqrestore(&priv->lock, flags);
		return;
	}

	if (!mcast) {
		ipoib_dbg_mcast(priv, "setting up send only multicast group for %pI6\n",
				mgid);
		mcast = ipoib_mcast_alloc(priv, mgid, true, GFP_ATOMIC);
		if (!mcast) {
			ipoib_warn_rl(priv, "unable to allocate memory for multicast structure\n");
			goto drop;
		}
		ipoib_mcast_insert(priv, mcast);
		list_add_tail(&mcast->list, &priv->mcast_list);
		kick = true;
	} else if (skb_queue_empty(&mcast->queue) && ipoib_mcast_idle(mcast) &&
		   !time_before(jiffies, mcast->delay_until)) {
		/* a send-only group that gave up waits for a packet to retry */
		kick = true;
	}

	if (skb_queue_len(&mcast->queue) >= IPOIB_MAX_MCAST_QUEUE)
		goto drop;
	/* sent again through dev_queue_xmit once the group is joined */
	ipoib_push_pseudo_header(skb, daddr);
	__skb_queue_tail(&mcast->queue, skb);
	spin_unlock_irqrestore(&priv->lock, flags);

	if (kick)
		ipoib_mcast_kick(priv);
	return;

drop:
	spin_unlock_irqrestore(&priv->lock, flags);
	ipoib_drop_tx(priv, skb);
}

int ipoib_mcast_show(struct seq_file *m, struct ipoib_dev *priv)
{
	struct ipoib_mcast *mcast;
	struct rb_node *n;
	int i;

	spin_lock_irq(&priv->lock);
	for (n = rb_first(&priv->mcast_tree); n; n = rb_next(n)) {
		const u8 *raw;

		mcast = rb_entry(n, struct ipoib_mcast, node);
		raw = mcast->mcmember.mgid.raw;
		seq_puts(m, "GID: ");
		for (i = 0; i < 8; i++)
			seq_printf(m, i < 7 ? "%x:" : "%x\n",
				   raw[2 * i] << 8 | raw[2 * i + 1]);
		seq_printf(m, "  created: %10ld\n", (long)mcast->created);
		seq_printf(m, "  queuelen: %9u\n", skb_queue_len(&mcast->queue));
		seq_printf(m, "  complete: %9s\n", mcast->ah ? "yes" : "no");
		seq_printf(m, "  send_only: %8s\n\n",
			   test_bit(IPOIB_MCAST_SENDONLY, &mcast->flags) ?
			   "yes" : "no");
	}
	spin_unlock_irq(&priv->lock);
	return 0;
}

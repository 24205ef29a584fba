// SPDX-License-Identifier: GPL-2.0
/*
 * IPoIB address handles: reference counted under priv->lock, shared by a
 * path and its neighbours or held by a multicast group.  The last put
 * parks an AH on priv->dead_ahs; it is destroyed only once the send ring's
 * tail has passed the last send that used it (ah->last_send), by the
 * reaper task or by the stop path once the QP is drained.
 */
#include <linux/slab.h>
#include "ipoib.h"

#define IPOIB_AH_REAP_INTERVAL	HZ

/*
 * A new AH for attr on priv's PD, holding one reference; an ERR_PTR on
 * failure.  Never sleeps (SA callbacks and the multicast code call it).
 */
struct ipoib_ah *ipoib_ah_create(struct ipoib_dev *priv,
				 struct rdma_ah_attr *attr)
{
	struct ipoib_ah *ah;
	struct ib_ah *ib_ah;

	ah = kzalloc(sizeof(*ah), GFP_ATOMIC);
	if (!ah)
		return ERR_PTR(-ENOMEM);

	ib_ah = rdma_create_ah(priv->pd, attr, 0);
	if (IS_ERR(ib_ah)) {
		kfree(ah);
		return ERR_CAST(ib_ah);
	}

	ah->dev = priv->dev;
	ah->ah = ib_ah;
	INIT_LIST_HEAD(&ah->list);
	kref_init(&ah->ref);
	/* nothing sent with it yet: the current head is a safe bound */
	ah->last_send = READ_ONCE(priv->tx_head);
	return ah;
}

/* Another reference to ah; priv->lock held. */
void ipoib_ah_get(struct ipoib_ah *ah)
{
	kref_get(&ah->ref);
}

/* The last reference is gone: hand the AH to the reaper. */
static void ipoib_ah_release(struct kref *ref)
{
	struct ipoib_ah *ah = container_of(ref, struct ipoib_ah, ref);
	struct ipoib_dev *priv = ipoib_priv(ah->dev);

	list_add_tail(&ah->list, &priv->dead_ahs);
}

/* Drops a reference; priv->lock held (it guards the dead list). */
void ipoib_ah_put(struct ipoib_ah *ah)
{
	struct ipoib_dev *priv = ipoib_priv(ah->dev);

	lockdep_assert_held(&priv->lock);
	kref_put(&ah->ref, ipoib_ah_release);
}

/*
 * Destroys the dead AHs the send ring no longer uses, or all of them when
 * all is set (the QP is drained or gone).  Sleeps.
 */
void ipoib_ah_reap(struct ipoib_dev *priv, bool all)
{
	struct ipoib_ah *ah, *next;
	unsigned int tail;
	unsigned long flags;
	LIST_HEAD(reap);

	might_sleep();

	spin_lock_irqsave(&priv->lock, flags);
	tail = READ_ONCE(priv->tx_tail);
	list_for_each_entry_safe(ah, next, &priv->dead_ahs, list) {
		if (all || (int)(tail - ah->last_send) >= 0)
			list_move_tail(&ah->list, &reap);
	}
	spin_unlock_irqrestore(&priv->lock, flags);

	list_for_each_entry_safe(ah, next, &reap, list) {
		list_del(&ah->list);
		rdma_destroy_ah(ah->ah, RDMA_DESTROY_AH_SLEEPABLE);
		kfree(ah);
	}
}

/* priv->ah_reap_task: reaps once a second while the interface is up. */
void ipoib_ah_reap_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      ah_reap_task.work);

	ipoib_ah_reap(priv, false);

	if (test_bit(IPOIB_FLAG_ADMIN_UP, &priv->flags))
		queue_delayed_work(priv->wq, &priv->ah_reap_task,
				   round_jiffies_relative(IPOIB_AH_REAP_INTERVAL));
}

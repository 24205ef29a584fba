// SPDX-License-Identifier: GPL-2.0
/*
 * IPoIB neighbours: one per unicast hardware address the stack sends IP to,
 * in a hash keyed on all 20 address bytes.  A neighbour holds the AH of its
 * path (path.c attaches it) and the IP packets waiting for that path.  The
 * GC task frees neighbours idle for two ARP GC intervals.  Everything here
 * runs under priv->lock, except the table's allocation and the GC task's
 * scheduling.
 */
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <net/arp.h>
#include <net/neighbour.h>
#include "ipoib.h"

/* bounds on the table's size (ARP's gc_thresh3 picks it in between) */
#define IPOIB_NEIGH_HASH_MIN_BITS	4
#define IPOIB_NEIGH_HASH_MAX_BITS	20

/*
 * The bucket of daddr.  Only the QPN (bytes 1-3) and the port GUID (bytes
 * 12-19) spread the entries: one remote port and QPN is not reachable
 * through two subnet prefixes.  Lookups still compare all 20 bytes.
 */
static u32 ipoib_neigh_bucket(struct ipoib_dev *priv, const u8 *daddr)
{
	return jhash(daddr + 12, 8, ipoib_addr_qpn(daddr)) &
	       ((1U << priv->neigh_hash_bits) - 1);
}

static void ipoib_neigh_purge(struct ipoib_dev *priv, struct ipoib_neigh *neigh)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(&neigh->queue))) {
		priv->dev->stats.tx_dropped++;
		dev_kfree_skb_any(skb);
	}
}

/* The neighbour of daddr, or NULL; marks it in use.  priv->lock held. */
struct ipoib_neigh *ipoib_neigh_find(struct ipoib_dev *priv, const u8 *daddr)
{
	struct ipoib_neigh *neigh;

	lockdep_assert_held(&priv->lock);

	if (!priv->neigh_hash)
		return NULL;

	hlist_for_each_entry(neigh,
			     &priv->neigh_hash[ipoib_neigh_bucket(priv, daddr)],
			     hash) {
		if (memcmp(neigh->daddr, daddr, INFINIBAND_ALEN))
			continue;
		/*
		 * A neighbour whose queue stays full is not making progress:
		 * let it age so that the GC frees it (as upstream does).
		 */
		if (skb_queue_len(&neigh->queue) < IPOIB_MAX_PATH_QUEUE)
			neigh->alive = jiffies;
		return neigh;
	}
	return NULL;
}

/*
 * A new neighbour for daddr (the caller found none), in the hash, on no
 * path, without AH; NULL if out of memory.  priv->lock held.
 */
struct ipoib_neigh *ipoib_neigh_alloc(struct ipoib_dev *priv, const u8 *daddr)
{
	struct ipoib_neigh *neigh;

	lockdep_assert_held(&priv->lock);

	if (!priv->neigh_hash)
		return NULL;

	neigh = kzalloc(sizeof(*neigh), GFP_ATOMIC);
	if (!neigh)
		return NULL;

	memcpy(neigh->daddr, daddr, INFINIBAND_ALEN);
	skb_queue_head_init(&neigh->queue);
	INIT_LIST_HEAD(&neigh->list);
	neigh->alive = jiffies;
	hlist_add_head(&neigh->hash,
		       &priv->neigh_hash[ipoib_neigh_bucket(priv, daddr)]);
	return neigh;
}

/*
 * Frees neigh: out of the hash and off its path, its AH reference dropped
 * and its waiting packets counted as dropped.  priv->lock held.
 */
void ipoib_neigh_free(struct ipoib_dev *priv, struct ipoib_neigh *neigh)
{
	lockdep_assert_held(&priv->lock);

	hlist_del(&neigh->hash);
	list_del(&neigh->list);
	ipoib_cm_neigh_gone(priv, neigh);
	if (neigh->ah)
		ipoib_ah_put(neigh->ah);
	ipoib_neigh_purge(priv, neigh);
	kfree(neigh);
}

/*
 * Frees every neighbour whose GID (address bytes 4-19) is gid: its path
 * could not be resolved.  priv->lock held.
 */
void ipoib_neigh_flush_gid(struct ipoib_dev *priv, const u8 *gid)
{
	struct ipoib_neigh *neigh;
	struct hlist_node *next;
	unsigned int i;

	lockdep_assert_held(&priv->lock);

	if (!priv->neigh_hash)
		return;

	for (i = 0; i < (1U << priv->neigh_hash_bits); i++) {
		hlist_for_each_entry_safe(neigh, next, &priv->neigh_hash[i],
					  hash) {
			if (!memcmp(neigh->daddr + 4, gid, sizeof(union ib_gid)))
				ipoib_neigh_free(priv, neigh);
		}
	}
}

/*
 * The empty table, sized like upstream's from ARP's gc_thresh3 (the most
 * entries ARP keeps), within bounds.  Process context, before the
 * interface is used.
 */
int ipoib_neigh_hash_init(struct ipoib_dev *priv)
{
	unsigned int bits;
	int thresh;

	thresh = clamp_t(int, READ_ONCE(arp_tbl.gc_thresh3),
			 1 << IPOIB_NEIGH_HASH_MIN_BITS,
			 1 << IPOIB_NEIGH_HASH_MAX_BITS);
	bits = ilog2(roundup_pow_of_two(thresh));

	priv->neigh_hash = kvcalloc(1U << bits, sizeof(*priv->neigh_hash),
				    GFP_KERNEL);
	if (!priv->neigh_hash)
		return -ENOMEM;
	priv->neigh_hash_bits = bits;
	return 0;
}

/*
 * Frees every neighbour, then the table.  Process context, the GC task
 * stopped; the AHs the neighbours held go to the dead list.
 */
void ipoib_neigh_hash_free(struct ipoib_dev *priv)
{
	struct hlist_head *table;
	struct ipoib_neigh *neigh;
	struct hlist_node *next;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&priv->lock, flags);
	table = priv->neigh_hash;
	if (table) {
		for (i = 0; i < (1U << priv->neigh_hash_bits); i++)
			hlist_for_each_entry_safe(neigh, next, &table[i], hash)
				ipoib_neigh_free(priv, neigh);
	}
	priv->neigh_hash = NULL;
	spin_unlock_irqrestore(&priv->lock, flags);

	kvfree(table);
}

/*
 * priv->neigh_gc_task: every ARP GC interval, frees the neighbours not
 * used for two intervals; runs while the interface is up.
 */
void ipoib_neigh_gc_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      neigh_gc_task.work);
	unsigned long interval = READ_ONCE(arp_tbl.gc_interval);
	struct ipoib_neigh *neigh;
	struct hlist_node *next;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->neigh_hash) {
		for (i = 0; i < (1U << priv->neigh_hash_bits); i++) {
			hlist_for_each_entry_safe(neigh, next,
						  &priv->neigh_hash[i], hash) {
				if (time_after(jiffies,
					       neigh->alive + 2 * interval))
					ipoib_neigh_free(priv, neigh);
			}
		}
	}
	spin_unlock_irqrestore(&priv->lock, flags);

	/* a zero interval (sysctl) must not make this a busy loop */
	if (test_bit(IPOIB_FLAG_ADMIN_UP, &priv->flags))
		queue_delayed_work(priv->wq, &priv->neigh_gc_task,
				   max_t(unsigned long, interval, HZ));
}

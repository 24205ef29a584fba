// SPDX-License-Identifier: GPL-2.0
/*
 * IPoIB unicast: the path cache and unicast transmit.
 *
 * A path is the SA's PathRecord for a destination GID, with the AH built
 * from it.  Paths live in priv->path_tree (keyed on the DGID, memcmp
 * order) and on priv->path_list until a normal or heavy flush (or stop)
 * removes them; they never expire, a light flush only marks them invalid
 * so that the next packet asks the SA again.  IP packets go through a
 * neighbour (neigh.c) attached to the path; unicast ARP and RARP use the
 * path itself.  Packets waiting for an answer are queued with their pseudo
 * header and re-sent through dev_queue_xmit() once the path is resolved.
 *
 * path->done is complete exactly when path->query is NULL; both change
 * together under priv->lock.  A path taken off the tree by
 * ipoib_paths_flush() never starts another query and is freed once its
 * query (if any) has finished.
 */
#include <linux/if_ether.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "ipoib.h"

/* The path of the 16-byte gid, or NULL.  priv->lock held. */
static struct ipoib_path *ipoib_path_find(struct ipoib_dev *priv,
					  const u8 *gid)
{
	struct rb_node *n = priv->path_tree.rb_node;

	lockdep_assert_held(&priv->lock);

	while (n) {
		struct ipoib_path *path = rb_entry(n, struct ipoib_path, node);
		int cmp = memcmp(gid, path->rec.dgid.raw, sizeof(union ib_gid));

		if (cmp < 0)
			n = n->rb_left;
		else if (cmp > 0)
			n = n->rb_right;
		else
			return path;
	}
	return NULL;
}

/* Puts path (whose DGID is in no other path) in the tree and the list. */
static void ipoib_path_insert(struct ipoib_dev *priv, struct ipoib_path *path)
{
	struct rb_node **link = &priv->path_tree.rb_node;
	struct rb_node *parent = NULL;

	lockdep_assert_held(&priv->lock);

	while (*link) {
		struct ipoib_path *other = rb_entry(*link, struct ipoib_path,
						    node);

		parent = *link;
		if (memcmp(path->rec.dgid.raw, other->rec.dgid.raw,
			   sizeof(union ib_gid)) < 0)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&path->node, parent, link);
	rb_insert_color(&path->node, &priv->path_tree);
	list_add_tail(&path->list, &priv->path_list);
}

/* ipoib_paths_flush() has not taken path off the tree. */
static bool ipoib_path_listed(struct ipoib_path *path)
{
	return !RB_EMPTY_NODE(&path->node);
}

/*
 * The path of gid, created (unresolved, no query yet) if there is none;
 * NULL when out of memory or before the broadcast group is joined (a
 * query needs its TClass).  priv->lock held.
 */
static struct ipoib_path *ipoib_path_get(struct ipoib_dev *priv,
					 const u8 *gid)
{
	struct ipoib_path *path;

	path = ipoib_path_find(priv, gid);
	if (path)
		return path;

	if (!priv->broadcast)
		return NULL;

	path = kzalloc(sizeof(*path), GFP_ATOMIC);
	if (!path)
		return NULL;

	path->dev = priv->dev;
	path->rec.rec_type = SA_PATH_REC_TYPE_IB;
	memcpy(path->rec.dgid.raw, gid, sizeof(union ib_gid));
	path->rec.traffic_class = priv->broadcast->mcmember.traffic_class;
	skb_queue_head_init(&path->queue);
	INIT_LIST_HEAD(&path->neigh_list);
	INIT_LIST_HEAD(&path->list);
	RB_CLEAR_NODE(&path->node);
	/* no query in flight */
	init_completion(&path->done);
	complete(&path->done);

	ipoib_path_insert(priv, path);
	return path;
}

/* Counts and frees the packets of a queue.  priv->lock held. */
static void ipoib_path_drop_queue(struct ipoib_dev *priv,
				  struct sk_buff_head *queue)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(queue))) {
		priv->dev->stats.tx_dropped++;
		dev_kfree_skb_any(skb);
	}
}

static void ipoib_path_done(int status, struct sa_path_rec *resp,
			    int num_prs, void *context);

/*
 * Asks the SA for path (no query in flight, path listed): DGID, SGID
 * (our GID), one path, the broadcast group's TClass (or, when the group
 * is gone for now, the one asked for before) and our P_Key.  priv->lock
 * held.
 */
static int ipoib_path_query(struct ipoib_dev *priv, struct ipoib_path *path)
{
	struct sa_path_rec req = {};
	int id;

	lockdep_assert_held(&priv->lock);

	req.rec_type = SA_PATH_REC_TYPE_IB;
	req.dgid = path->rec.dgid;
	memcpy(req.sgid.raw, priv->dev->dev_addr + 4, sizeof(union ib_gid));
	req.numb_path = 1;
	req.reversible = 1;
	req.pkey = cpu_to_be16(priv->pkey);
	if (priv->broadcast)
		req.traffic_class = priv->broadcast->mcmember.traffic_class;
	else
		req.traffic_class = path->rec.traffic_class;

	ipoib_dbg(priv, "path query for %pI6\n", req.dgid.raw);

	reinit_completion(&path->done);
	id = ib_sa_path_rec_get(&ipoib_sa_client, priv->ca, priv->port, &req,
				IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
				IB_SA_PATH_REC_NUMB_PATH |
				IB_SA_PATH_REC_TRAFFIC_CLASS |
				IB_SA_PATH_REC_PKEY,
				IPOIB_PATH_TIMEOUT_MS, GFP_ATOMIC,
				ipoib_path_done, path, &path->query);
	if (id < 0) {
		ipoib_warn_rl(priv, "path query for %pI6 failed: %d\n",
			      req.dgid.raw, id);
		path->query = NULL;
		complete(&path->done);
		return id;
	}
	path->query_id = id;
	return 0;
}

/*
 * The SA's answer for path, in process context.  path->query stays set
 * until the end, so that nobody starts another query (and re-arms
 * path->done) while the packets taken here are re-sent.
 */
static void ipoib_path_done(int status, struct sa_path_rec *resp,
			    int num_prs, void *context)
{
	struct ipoib_path *path = context;
	struct ipoib_dev *priv = ipoib_priv(path->dev);
	struct ipoib_ah *ah = NULL;
	struct ipoib_neigh *neigh;
	struct sk_buff_head resend;
	struct rdma_ah_attr attr;
	struct sk_buff *skb;
	union ib_gid dgid;
	unsigned long flags;

	__skb_queue_head_init(&resend);

	if (!status) {
		status = ib_init_ah_attr_from_path(priv->ca, priv->port, resp,
						   &attr, NULL);
		if (!status) {
			ah = ipoib_ah_create(priv, &attr);
			rdma_destroy_ah_attr(&attr);
			if (IS_ERR(ah)) {
				status = PTR_ERR(ah);
				ah = NULL;
			}
		}
	}

	spin_lock_irqsave(&priv->lock, flags);
	dgid = path->rec.dgid;
	if (!ipoib_path_listed(path)) {
		/* being flushed: ipoib_paths_flush() frees the rest */
		if (ah)
			ipoib_ah_put(ah);
	} else if (ah) {
		if (path->ah)
			ipoib_ah_put(path->ah);
		path->ah = ah;
		/* the tree's key stays what was asked, whatever the SA says */
		path->rec = *resp;
		path->rec.dgid = dgid;
		path->valid = true;

		skb_queue_splice_tail_init(&path->queue, &resend);
		list_for_each_entry(neigh, &path->neigh_list, list) {
			if (neigh->ah != ah) {
				if (neigh->ah)
					ipoib_ah_put(neigh->ah);
				ipoib_ah_get(ah);
				neigh->ah = ah;
			}
			skb_queue_splice_tail_init(&neigh->queue, &resend);
		}
	} else {
		ipoib_neigh_flush_gid(priv, dgid.raw);
		ipoib_path_drop_queue(priv, &path->queue);
	}
	spin_unlock_irqrestore(&priv->lock, flags);

	if (!status)
		ipoib_dbg(priv, "path to %pI6: LID 0x%04x SL %u\n", dgid.raw,
			  be32_to_cpu(sa_path_get_dlid(&path->rec)),
			  path->rec.sl);
	else if (status != -EINTR)
		ipoib_warn_rl(priv, "no path to %pI6: %d\n", dgid.raw, status);

	while ((skb = __skb_dequeue(&resend))) {
		skb->dev = priv->dev;
		dev_queue_xmit(skb);
	}

	/* from here on path may be freed */
	spin_lock_irqsave(&priv->lock, flags);
	path->query = NULL;
	complete(&path->done);
	spin_unlock_irqrestore(&priv->lock, flags);
}

/* Queues skb (pseudo header pushed back) or drops it.  priv->lock held. */
static void ipoib_path_queue_skb(struct ipoib_dev *priv,
				 struct sk_buff_head *queue,
				 struct sk_buff *skb, const u8 *daddr)
{
	if (skb_queue_len(queue) >= IPOIB_MAX_PATH_QUEUE) {
		ipoib_drop_tx(priv, skb);
		return;
	}
	ipoib_push_pseudo_header(skb, daddr);
	__skb_queue_tail(queue, skb);
}

/*
 * A neighbour on a resolved path: over its RC connection in connected
 * mode to a peer that takes one, else UD through the path's AH (where a
 * frame over the broadcast group's MTU, connected mode's to a datagram-only
 * peer, gets an ICMP back).  priv->lock held.
 */
static void ipoib_neigh_send(struct ipoib_dev *priv, struct ipoib_neigh *neigh,
			     struct sk_buff *skb, const u8 *daddr)
{
	if (ipoib_cm_enabled(priv, daddr)) {
		ipoib_cm_xmit(priv, neigh, skb, daddr);
		return;
	}
	ipoib_send(priv, skb, neigh->ah, ipoib_addr_qpn(daddr));
}

/* IP (and TIPC): through the neighbour of daddr.  priv->lock held. */
static void ipoib_neigh_xmit(struct ipoib_dev *priv, struct sk_buff *skb,
			     const u8 *daddr)
{
	struct ipoib_neigh *neigh;
	struct ipoib_path *path;

	neigh = ipoib_neigh_find(priv, daddr);
	if (likely(neigh && neigh->ah && neigh->path && neigh->path->valid)) {
		ipoib_neigh_send(priv, neigh, skb, daddr);
		return;
	}

	if (!neigh) {
		neigh = ipoib_neigh_alloc(priv, daddr);
		if (!neigh) {
			ipoib_drop_tx(priv, skb);
			return;
		}
	}

	path = neigh->path;
	if (!path) {
		path = ipoib_path_get(priv, daddr + 4);
		if (!path) {
			ipoib_neigh_free(priv, neigh);
			ipoib_drop_tx(priv, skb);
			return;
		}
		neigh->path = path;
		list_add_tail(&neigh->list, &path->neigh_list);
	}

	if (path->valid) {
		/* a new neighbour of a resolved path */
		if (neigh->ah != path->ah) {
			if (neigh->ah)
				ipoib_ah_put(neigh->ah);
			ipoib_ah_get(path->ah);
			neigh->ah = path->ah;
		}
		ipoib_neigh_send(priv, neigh, skb, daddr);
		return;
	}

	/*
	 * Unresolved, or invalidated by a light flush: as upstream, hold
	 * the packets (not the old AH) until the SA answers again.
	 */
	if (!path->query && ipoib_path_query(priv, path)) {
		ipoib_drop_tx(priv, skb);
		return;
	}
	ipoib_path_queue_skb(priv, &neigh->queue, skb, daddr);
}

/* ARP and RARP: through the path alone, re-asked when invalid. */
static void ipoib_arp_xmit(struct ipoib_dev *priv, struct sk_buff *skb,
			   const u8 *daddr)
{
	struct ipoib_path *path;

	/* no broadcast group: every path is (about to be) stale */
	if (!priv->broadcast) {
		ipoib_drop_tx(priv, skb);
		return;
	}

	path = ipoib_path_get(priv, daddr + 4);
	if (!path) {
		ipoib_drop_tx(priv, skb);
		return;
	}

	if (path->valid) {
		ipoib_send(priv, skb, path->ah, ipoib_addr_qpn(daddr));
		return;
	}

	if (!path->query && ipoib_path_query(priv, path)) {
		ipoib_drop_tx(priv, skb);
		return;
	}
	ipoib_path_queue_skb(priv, &path->queue, skb, daddr);
}

/*
 * start_xmit's unicast case (BH, the tx lock held): skb->data is the
 * IPoIB header, daddr the destination's hardware address.
 */
void ipoib_unicast_xmit(struct ipoib_dev *priv, struct sk_buff *skb,
			const u8 *daddr)
{
	const struct ipoib_header *hdr = (const void *)skb->data;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	switch (hdr->proto) {
	case htons(ETH_P_IP):
	case htons(ETH_P_IPV6):
	case htons(ETH_P_TIPC):
		ipoib_neigh_xmit(priv, skb, daddr);
		break;
	case htons(ETH_P_ARP):
	case htons(ETH_P_RARP):
		ipoib_arp_xmit(priv, skb, daddr);
		break;
	default:
		ipoib_drop_tx(priv, skb);
		break;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
}

/*
 * Light flush: every path is to be asked again.  IP through its
 * neighbours waits for the new answer; the old AH stays until then.
 */
void ipoib_paths_invalidate(struct ipoib_dev *priv)
{
	struct ipoib_path *path;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry(path, &priv->path_list, list)
		path->valid = false;
	spin_unlock_irqrestore(&priv->lock, flags);
}

/*
 * Normal and heavy flushes, stop: forgets every path.  Their neighbours go
 * at once (so that no packet finds a path on its way out), their queries
 * are canceled and waited for, then the paths are freed.  Sleeps.
 */
void ipoib_paths_flush(struct ipoib_dev *priv)
{
	struct ipoib_neigh *neigh, *next_neigh;
	struct ipoib_path *path, *next;
	unsigned long flags;
	LIST_HEAD(dying);

	might_sleep();

	spin_lock_irqsave(&priv->lock, flags);
	list_splice_init(&priv->path_list, &dying);
	list_for_each_entry(path, &dying, list) {
		rb_erase(&path->node, &priv->path_tree);
		RB_CLEAR_NODE(&path->node);
		list_for_each_entry_safe(neigh, next_neigh, &path->neigh_list,
					 list)
			ipoib_neigh_free(priv, neigh);
		/*
		 * Under the lock a set path->query is still ours (its
		 * callback has not finished), so the id can not be a reused
		 * one.  The callback runs later, never from here.
		 */
		if (path->query)
			ib_sa_cancel_query(path->query_id, path->query);
	}
	spin_unlock_irqrestore(&priv->lock, flags);

	list_for_each_entry_safe(path, next, &dying, list) {
		wait_for_completion(&path->done);

		spin_lock_irqsave(&priv->lock, flags);
		list_del(&path->list);
		list_for_each_entry_safe(neigh, next_neigh, &path->neigh_list,
					 list)
			ipoib_neigh_free(priv, neigh);
		if (path->ah)
			ipoib_ah_put(path->ah);
		ipoib_path_drop_queue(priv, &path->queue);
		spin_unlock_irqrestore(&priv->lock, flags);

		kfree(path);
	}
}

/* debugfs <if>_path: upstream's record format, one per path. */
int ipoib_path_show(struct seq_file *m, struct ipoib_dev *priv)
{
	struct ipoib_path *path;
	unsigned long flags;
	int i, rate;

	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry(path, &priv->path_list, list) {
		struct sa_path_rec *rec = &path->rec;
		const __be16 *group = (const __be16 *)rec->dgid.raw;
		u32 dlid = be32_to_cpu(sa_path_get_dlid(rec));

		seq_puts(m, "GID: ");
		for (i = 0; i < 8; i++)
			seq_printf(m, i ? ":%x" : "%x", be16_to_cpu(group[i]));
		seq_printf(m, "\n  complete: %6s\n", dlid ? "yes" : "no");

		if (dlid) {
			rate = ib_rate_to_mbps(rec->rate);
			seq_printf(m,
				   "  DLID:     0x%04x\n"
				   "  SL: %12d\n"
				   "  rate: %8d.%d Gb/sec\n",
				   dlid, rec->sl, rate / 1000, rate % 1000);
		}
		seq_putc(m, '\n');
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Connected mode: IPoIB frames over RC connections made through ib_cm
 * (RFC 4755 as Linux does it; shared/docs/ipoib-cm.md 2.4).
 *
 * Every interface whose card has an SRQ listens on service ID
 * 0x1000000000000000 | its UD QPN while it is up, in either mode, and
 * says so with flag 0x80 in its hardware address.  Each direction is its
 * own connection: the active side (this interface in connected mode,
 * sending to a neighbour whose address has the flag) owns a send-only QP;
 * the passive side a QP whose receives come from the interface's SRQ.
 * The REQ's and REP's private data: the sender's UD QPN, then the largest
 * frame it receives (65524: the MTU and the 4-byte header), both BE32.
 *
 * Passive teardown: the QP goes to ERR (a DREQ, a REJ, the interface
 * stopping); once the card reports its last WQE (nothing more comes from
 * the SRQ to it), a drain WR posted on it completes on the receive CQ
 * after every completion of that QP, and only then is it destroyed with
 * its cm_id (rx_reap_task).  Active teardown: the connection goes on
 * tx_reap when its neighbour goes or a send or the CM fails; the reap
 * task destroys its cm_id (a DREQ if it was up), waits for its sends and
 * destroys its QP.
 *
 * Locks: priv->lock for the lists, each neighbour's cm pointer and each
 * connection's up flag and ring head; ib_cm's handlers run in process
 * context, one at a time per cm_id.
 *
 * Not done (upstream has them): the non-SRQ mode (per-connection receive
 * rings, max_nonsrq_conn_qp) and the reaping of idle passive connections.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/random.h>
#include <linux/vmalloc.h>
#include <net/dst.h>
#include <net/icmp.h>
#include <rdma/ib_cm.h>
#include <ibstack/compat.h>
#include "ipoib.h"

/* the REQ's and REP's private data */
struct ipoib_cm_data {
	__be32	qpn;		/* the top byte reserved */
	__be32	mtu;		/* the largest frame received, header included */
};

#define IPOIB_CM_TIMEOUT	20	/* CM response timeouts: 4.096 us << 20 */
#define IPOIB_CM_RETRIES	15

static const struct ib_qp_attr ipoib_cm_err_attr = { .qp_state = IB_QPS_ERR };

/* --- the SRQ and its buffers ------------------------------------------------ */

static void ipoib_cm_unmap(struct ipoib_dev *priv, u64 *mapping,
			   unsigned int frags)
{
	unsigned int i;

	ib_dma_unmap_single(priv->ca, mapping[0], IPOIB_CM_HEAD_SIZE,
			    DMA_FROM_DEVICE);
	for (i = 1; i < frags; i++)
		ib_dma_unmap_page(priv->ca, mapping[i], PAGE_SIZE,
				  DMA_FROM_DEVICE);
}

/*
 * A new buffer for slot i: an skb whose head takes the first SGE and whose
 * fragments take a page each.  With old (the slot's skb, holding a frame
 * that used its first @used pages), the pages after those move from old
 * to the new skb with their mappings; the others are new.  The old skb
 * then holds its head and the pages the frame used, unmapped.  true, or
 * false with the slot unchanged.
 */
static bool ipoib_cm_refill(struct ipoib_dev *priv, unsigned int i,
			    unsigned int used, gfp_t gfp)
{
	struct ipoib_cm_rx_buf *buf = &priv->cm.srq_ring[i];
	unsigned int pages = priv->cm.num_frags - 1, f;
	struct sk_buff *old = buf->skb, *skb;
	u64 map[IPOIB_CM_RX_SG];

	if (!old)
		used = pages;
	skb = __netdev_alloc_skb(priv->dev, IPOIB_CM_HEAD_SIZE +
				 IPOIB_CM_RX_RESERVE, gfp);
	if (!skb)
		return false;
	skb_reserve(skb, IPOIB_CM_RX_RESERVE);
	map[0] = ib_dma_map_single(priv->ca, skb->data, IPOIB_CM_HEAD_SIZE,
				   DMA_FROM_DEVICE);
	if (unlikely(ib_dma_mapping_error(priv->ca, map[0])))
		goto err_skb;

	for (f = 0; f < used; f++) {
		struct page *page = alloc_page(gfp);

		if (!page)
			goto err_pages;
		map[f + 1] = ib_dma_map_page(priv->ca, page, 0, PAGE_SIZE,
					     DMA_FROM_DEVICE);
		if (unlikely(ib_dma_mapping_error(priv->ca, map[f + 1]))) {
			__free_page(page);
			goto err_pages;
		}
		skb_fill_page_desc(skb, f, page, 0, PAGE_SIZE);
	}

	if (old) {
		/* the pages the frame did not reach change owner */
		for (f = used; f < pages; f++) {
			skb_fill_page_desc(skb, f,
					   skb_frag_page(&skb_shinfo(old)->frags[f]),
					   0, PAGE_SIZE);
			map[f + 1] = buf->mapping[f + 1];
		}
		skb_shinfo(old)->nr_frags = used;
		ib_dma_unmap_single(priv->ca, buf->mapping[0], IPOIB_CM_HEAD_SIZE,
				    DMA_FROM_DEVICE);
		for (f = 0; f < used; f++)
			ib_dma_unmap_page(priv->ca, buf->mapping[f + 1], PAGE_SIZE,
					  DMA_FROM_DEVICE);
	}
	buf->skb = skb;
	memcpy(buf->mapping, map, sizeof(map));
	return true;

err_pages:
	/* ipoib_cm_unmap() takes the head and the first f pages */
	ipoib_cm_unmap(priv, map, f + 1);
err_skb:
	dev_kfree_skb_any(skb);
	return false;
}

static int ipoib_cm_post_srq(struct ipoib_dev *priv, unsigned int i)
{
	struct ipoib_cm_rx_buf *buf = &priv->cm.srq_ring[i];
	struct ib_sge sge[IPOIB_CM_RX_SG];
	struct ib_recv_wr wr = {
		.wr_id = i | IPOIB_OP_CM | IPOIB_OP_RECV,
		.sg_list = sge,
		.num_sge = priv->cm.num_frags,
	};
	unsigned int f;
	int ret;

	sge[0].addr = buf->mapping[0];
	sge[0].length = IPOIB_CM_HEAD_SIZE;
	sge[0].lkey = priv->pd->local_dma_lkey;
	for (f = 1; f < priv->cm.num_frags; f++) {
		sge[f].addr = buf->mapping[f];
		sge[f].length = PAGE_SIZE;
		sge[f].lkey = priv->pd->local_dma_lkey;
	}
	ret = ib_post_srq_recv(priv->cm.srq, &wr, NULL);
	if (unlikely(ret)) {
		ipoib_warn_rl(priv, "SRQ buffer %u not posted: %d\n", i, ret);
		ipoib_cm_unmap(priv, buf->mapping, priv->cm.num_frags);
		dev_kfree_skb_any(buf->skb);
		buf->skb = NULL;
	}
	return ret;
}

static void ipoib_cm_free_ring(struct ipoib_dev *priv)
{
	unsigned int i;

	for (i = 0; i < ipoib_recvq_size; i++) {
		struct ipoib_cm_rx_buf *buf = &priv->cm.srq_ring[i];

		if (!buf->skb)
			continue;
		ipoib_cm_unmap(priv, buf->mapping, priv->cm.num_frags);
		dev_kfree_skb_any(buf->skb);
		buf->skb = NULL;
	}
}

/* --- frames that do not fit: ICMP back to the sender ---------------------- */

static void ipoib_cm_icmp_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      cm.icmp_task);
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&priv->cm.too_long))) {
		unsigned int mtu = *(unsigned int *)skb->cb;
		struct dst_entry *dst = skb_dst(skb);

		/* (the route's locks want interrupts on: done here) */
		if (dst && dst->ops->update_pmtu)
			dst->ops->update_pmtu(dst, NULL, skb, mtu, true);
		local_bh_disable();
		if (skb->protocol == htons(ETH_P_IP))
			icmp_send(skb, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED,
				  htonl(mtu));
#if IS_ENABLED(CONFIG_IPV6)
		else if (skb->protocol == htons(ETH_P_IPV6))
			icmpv6_send(skb, ICMPV6_PKT_TOOBIG, 0, mtu);
#endif
		local_bh_enable();
		dev_kfree_skb_any(skb);
	}
}

/*
 * [any] skb (the IPoIB header first) is longer than mtu allows: counted
 * as dropped, the route's PMTU lowered, and an ICMP "fragmentation
 * needed" (IPv4) or "packet too big" (IPv6) goes back to its sender.
 */
void ipoib_cm_skb_too_long(struct ipoib_dev *priv, struct sk_buff *skb,
			   unsigned int mtu)
{
	priv->dev->stats.tx_dropped++;
	priv->dev->stats.tx_errors++;
	skb_pull(skb, IPOIB_ENCAP_LEN);
	*(unsigned int *)skb->cb = mtu;
	if (skb_queue_len(&priv->cm.too_long) > IPOIB_MAX_MCAST_QUEUE) {
		dev_kfree_skb_any(skb);
		return;
	}
	skb_queue_tail(&priv->cm.too_long, skb);
	queue_work(priv->wq, &priv->cm.icmp_task);
}

/* --- the passive side ----------------------------------------------------- */

/* [any] the card's word on a passive QP: its last WQE came, drain it */
static void ipoib_cm_rx_event(struct ib_event *event, void *ctx)
{
	struct ipoib_cm_rx *rx = ctx;
	struct ipoib_dev *priv = ipoib_priv(rx->dev);
	const struct ib_send_wr *bad;
	struct ib_send_wr wr = {
		.wr_id = IPOIB_CM_DRAIN_WRID,
		.opcode = IB_WR_SEND,
	};
	unsigned long flags;

	if (event->event != IB_EVENT_QP_LAST_WQE_REACHED)
		return;
	spin_lock_irqsave(&priv->lock, flags);
	list_move_tail(&rx->list, &priv->cm.rx_drain);
	/* the QP is in ERR: the WR completes, flushed, after all the rest */
	if (ib_post_send(rx->qp, &wr, &bad)) {
		ipoib_warn_rl(priv, "no drain WR on QP %#x: reaped now\n",
			      rx->qp->qp_num);
		list_move_tail(&rx->list, &priv->cm.rx_reap);
		queue_work(priv->wq, &priv->cm.rx_reap_task);
	}
	spin_unlock_irqrestore(&priv->lock, flags);
}

static struct ib_qp *ipoib_cm_rx_qp(struct ipoib_dev *priv,
				    struct ipoib_cm_rx *rx)
{
	struct ib_qp_init_attr init = {
		.event_handler = ipoib_cm_rx_event,
		.qp_context = rx,
		.send_cq = priv->recv_cq,	/* the drain WR's completion */
		.recv_cq = priv->recv_cq,
		.srq = priv->cm.srq,
		.cap.max_send_wr = 1,
		.cap.max_send_sge = 1,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};

	return ib_create_qp(priv->pd, &init);
}

/* INIT, RTR with our receive PSN, RTS (the card flushes only from RTS) */
static int ipoib_cm_rx_qp_up(struct ib_cm_id *id, struct ib_qp *qp, u32 psn)
{
	struct ib_qp_attr attr;
	int mask, ret;

	attr.qp_state = IB_QPS_INIT;
	ret = ib_cm_init_qp_attr(id, &attr, &mask);
	if (!ret)
		ret = ib_modify_qp(qp, &attr, mask);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTR;
	ret = ib_cm_init_qp_attr(id, &attr, &mask);
	if (ret)
		return ret;
	attr.rq_psn = psn;
	ret = ib_modify_qp(qp, &attr, mask);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTS;
	ret = ib_cm_init_qp_attr(id, &attr, &mask);
	if (!ret)
		ret = ib_modify_qp(qp, &attr, mask);
	return ret;
}

static int ipoib_cm_req(struct ipoib_dev *priv, struct ib_cm_id *id,
			const struct ib_cm_event *event)
{
	struct ipoib_cm_data data = {};
	struct ib_cm_rep_param rep = {};
	struct ipoib_cm_rx *rx;
	unsigned long flags;
	u32 psn;
	int ret;

	rx = kzalloc(sizeof(*rx), GFP_KERNEL);
	if (!rx)
		return -ENOMEM;
	rx->dev = priv->dev;
	rx->id = id;
	INIT_LIST_HEAD(&rx->list);
	rx->qp = ipoib_cm_rx_qp(priv, rx);
	if (IS_ERR(rx->qp)) {
		ret = PTR_ERR(rx->qp);
		goto err_rx;
	}
	psn = get_random_u32() & 0xffffff;
	ret = ipoib_cm_rx_qp_up(id, rx->qp, psn);
	if (ret) {
		ipoib_warn_rl(priv, "passive QP not ready: %d\n", ret);
		goto err_qp;
	}

	spin_lock_irqsave(&priv->lock, flags);
	if (!priv->cm.listen_id) {
		/* stopping: no new connection */
		spin_unlock_irqrestore(&priv->lock, flags);
		ret = -ENETDOWN;
		goto err_qp;
	}
	list_add_tail(&rx->list, &priv->cm.rx_live);
	spin_unlock_irqrestore(&priv->lock, flags);
	id->context = rx;

	data.qpn = cpu_to_be32(priv->qp->qp_num);
	data.mtu = cpu_to_be32(IPOIB_CM_BUF_SIZE);
	rep.private_data = &data;
	rep.private_data_len = sizeof(data);
	rep.flow_control = 0;
	rep.rnr_retry_count = event->param.req_rcvd.rnr_retry_count;
	rep.srq = 1;
	rep.qp_num = rx->qp->qp_num;
	rep.starting_psn = psn;
	ret = ib_send_cm_rep(id, &rep);
	if (ret) {
		ipoib_warn_rl(priv, "REP not sent: %d\n", ret);
		/* the last WQE event drains and reaps it */
		if (ib_modify_qp(rx->qp, (struct ib_qp_attr *)&ipoib_cm_err_attr,
				 IB_QP_STATE))
			ipoib_warn_rl(priv, "passive QP not in ERR\n");
	}
	return 0;

err_qp:
	ib_destroy_qp(rx->qp);
err_rx:
	kfree(rx);
	/* non-zero: ib_cm rejects the REQ and destroys this cm_id */
	return ret;
}

static int ipoib_cm_rx_handler(struct ib_cm_id *id,
			       const struct ib_cm_event *event)
{
	struct ipoib_cm_rx *rx;
	struct ipoib_dev *priv;

	switch (event->event) {
	case IB_CM_REQ_RECEIVED:
		/* the listener's context: the interface */
		priv = id->context;
		return ipoib_cm_req(priv, id, event);
	case IB_CM_SIDR_REQ_RECEIVED:
		/*
		 * A SIDR REQ for our service ID: IPoIB has no UD service to
		 * resolve.  Non-zero: ib_cm answers it (a SIDR REP, reject)
		 * and destroys the cm_id, which nobody would own otherwise
		 * (6.1 returns 0 here and leaks one per such REQ).
		 */
		return -EINVAL;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(id, NULL, 0);
		fallthrough;
	case IB_CM_REJ_RECEIVED:
		rx = id->context;
		priv = ipoib_priv(rx->dev);
		if (ib_modify_qp(rx->qp, (struct ib_qp_attr *)&ipoib_cm_err_attr,
				 IB_QP_STATE))
			ipoib_warn_rl(priv, "passive QP %#x not in ERR\n",
				      rx->qp->qp_num);
		return 0;
	default:
		return 0;
	}
}

static void ipoib_cm_rx_reap_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      cm.rx_reap_task);
	struct ipoib_cm_rx *rx, *tmp;
	LIST_HEAD(reap);

	spin_lock_irq(&priv->lock);
	if (!priv->cm.rx_hold)
		list_splice_init(&priv->cm.rx_reap, &reap);
	spin_unlock_irq(&priv->lock);
	list_for_each_entry_safe(rx, tmp, &reap, list) {
		ib_destroy_cm_id(rx->id);
		ib_destroy_qp(rx->qp);
		kfree(rx);
	}
}

/* the skb of a frame of len bytes in its head and its first @used pages */
static void ipoib_cm_fit_skb(struct sk_buff *skb, unsigned int len,
			     unsigned int used)
{
	unsigned int head = min_t(unsigned int, len, IPOIB_CM_HEAD_SIZE);
	unsigned int f, size;

	skb_put(skb, head);
	len -= head;
	for (f = 0; f < used; f++) {
		size = min_t(unsigned int, len, PAGE_SIZE);
		skb_frag_size_set(&skb_shinfo(skb)->frags[f], size);
		skb->data_len += size;
		skb->len += size;
		skb->truesize += PAGE_SIZE;
		len -= size;
	}
}

/* [NAPI] a frame from the SRQ, or a passive QP's drain */
void ipoib_cm_rx_wc(struct ipoib_dev *priv, struct ib_wc *wc, bool flush)
{
	struct net_device *dev = priv->dev;
	unsigned int i = wc->wr_id & ~(IPOIB_OP_CM | IPOIB_OP_RECV);
	struct ipoib_cm_rx_buf *buf;
	struct ipoib_cm_rx *rx;
	unsigned long flags;
	unsigned int used;
	struct sk_buff *skb, *small;

	if (wc->wr_id == IPOIB_CM_DRAIN_WRID) {
		rx = wc->qp->qp_context;
		/* the QP event handler takes it in hard interrupt context */
		spin_lock_irqsave(&priv->lock, flags);
		list_move_tail(&rx->list, &priv->cm.rx_reap);
		spin_unlock_irqrestore(&priv->lock, flags);
		queue_work(priv->wq, &priv->cm.rx_reap_task);
		return;
	}
	if (unlikely(i >= ipoib_recvq_size || !priv->cm.srq_ring[i].skb)) {
		ipoib_warn_rl(priv, "connected-mode completion for buffer %u\n", i);
		return;
	}
	buf = &priv->cm.srq_ring[i];
	skb = buf->skb;

	if (unlikely(wc->status != IB_WC_SUCCESS || flush)) {
		if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR) {
			ipoib_dbg(priv, "connected-mode receive failed: %s\n",
				  ib_wc_status_msg(wc->status));
			dev->stats.rx_dropped++;
		}
		/* the SRQ outlives the QPs: the buffer goes back */
		ipoib_cm_post_srq(priv, i);
		return;
	}

	if (wc->byte_len < IPOIB_CM_COPYBREAK) {
		/* a small frame: copied, the buffer posted again */
		small = __netdev_alloc_skb(dev, wc->byte_len + IPOIB_CM_RX_RESERVE,
					   GFP_ATOMIC);
		if (unlikely(!small)) {
			dev->stats.rx_dropped++;
			ipoib_cm_post_srq(priv, i);
			return;
		}
		skb_reserve(small, IPOIB_CM_RX_RESERVE);
		ib_dma_sync_single_for_cpu(priv->ca, buf->mapping[0],
					   wc->byte_len, DMA_FROM_DEVICE);
		skb_copy_from_linear_data(skb, small->data, wc->byte_len);
		ib_dma_sync_single_for_device(priv->ca, buf->mapping[0],
					      wc->byte_len, DMA_FROM_DEVICE);
		skb_put(small, wc->byte_len);
		ipoib_cm_post_srq(priv, i);
		skb = small;
	} else {
		/* the pages the frame reached go up with it; new ones replace them */
		used = wc->byte_len <= IPOIB_CM_HEAD_SIZE ? 0 :
		       DIV_ROUND_UP(wc->byte_len - IPOIB_CM_HEAD_SIZE, PAGE_SIZE);
		if (unlikely(!ipoib_cm_refill(priv, i, used, GFP_ATOMIC))) {
			dev->stats.rx_dropped++;
			ipoib_cm_post_srq(priv, i);
			return;
		}
		ipoib_cm_post_srq(priv, i);
		ipoib_cm_fit_skb(skb, wc->byte_len, used);
	}

	skb->protocol = ((struct ipoib_header *)skb->data)->proto;
	memset(skb_push(skb, IPOIB_PSEUDO_LEN), 0, IPOIB_PSEUDO_LEN);
	skb_reset_mac_header(skb);
	skb_pull(skb, IPOIB_HARD_LEN);
	dev->stats.rx_packets++;
	dev->stats.rx_bytes += skb->len;
	skb->dev = dev;
	skb->pkt_type = PACKET_HOST;
	netif_receive_skb(skb);
}

/* --- the active side ------------------------------------------------------ */

/* [priv->lock] tx is given up: its neighbour forgets it, the reaper has it */
static void ipoib_cm_tx_give_up(struct ipoib_dev *priv, struct ipoib_cm_tx *tx)
{
	lockdep_assert_held(&priv->lock);
	if (tx->neigh) {
		tx->neigh->cm = NULL;
		tx->neigh = NULL;
	}
	tx->up = false;
	list_move_tail(&tx->list, &priv->cm.tx_reap);
	queue_work(priv->wq, &priv->cm.tx_reap_task);
}

/* [priv->lock] neigh goes: so does its connection */
void ipoib_cm_neigh_gone(struct ipoib_dev *priv, struct ipoib_neigh *neigh)
{
	if (neigh->cm)
		ipoib_cm_tx_give_up(priv, neigh->cm);
}

/*
 * [priv->lock] A frame that neigh's connection will carry: sent, queued on
 * the neighbour while the connection is made (3 at most), or dropped.
 * The path is resolved (the caller checked).
 */
void ipoib_cm_xmit(struct ipoib_dev *priv, struct ipoib_neigh *neigh,
		   struct sk_buff *skb, const u8 *daddr)
{
	struct ipoib_cm_tx *tx = neigh->cm;
	struct ib_send_wr *wr;
	struct ib_rdma_wr rwr = {};
	struct ib_sge sge[MAX_SKB_FRAGS + 1];
	struct ipoib_tx_buf *buf;
	unsigned int idx;
	int ret;

	lockdep_assert_held(&priv->lock);
	if (!tx) {
		tx = kzalloc(sizeof(*tx), GFP_ATOMIC);
		if (!tx) {
			ipoib_drop_tx(priv, skb);
			return;
		}
		tx->dev = priv->dev;
		tx->neigh = neigh;
		neigh->cm = tx;
		list_add_tail(&tx->list, &priv->cm.tx_start);
		queue_work(priv->wq, &priv->cm.tx_start_task);
	}
	if (!tx->up) {
		if (skb_queue_len(&neigh->queue) >= IPOIB_MAX_PATH_QUEUE) {
			ipoib_drop_tx(priv, skb);
			return;
		}
		ipoib_push_pseudo_header(skb, daddr);
		__skb_queue_tail(&neigh->queue, skb);
		return;
	}

	if (unlikely(skb->len > tx->mtu)) {
		ipoib_warn_rl(priv, "packet of %u bytes over the connection's MTU %u dropped\n",
			      skb->len, tx->mtu - IPOIB_ENCAP_LEN);
		ipoib_cm_skb_too_long(priv, skb, tx->mtu - IPOIB_ENCAP_LEN);
		return;
	}
	if (skb_shinfo(skb)->nr_frags + 1 > tx->max_send_sge &&
	    skb_linearize(skb)) {
		ipoib_drop_tx(priv, skb);
		return;
	}
	if (unlikely(!ipoib_tx_room(priv) ||
		     tx->tx_head - READ_ONCE(tx->tx_tail) >= ipoib_sendq_size)) {
		ipoib_drop_tx(priv, skb);
		return;
	}
	skb_orphan(skb);
	skb_dst_drop(skb);
	idx = tx->tx_head & (ipoib_sendq_size - 1);
	buf = &tx->ring[idx];
	buf->skb = skb;
	if (unlikely(ipoib_tx_map(priv, buf, sge))) {
		buf->skb = NULL;
		priv->dev->stats.tx_errors++;
		dev_kfree_skb_any(skb);
		return;
	}
	wr = &rwr.wr;
	wr->wr_id = idx | IPOIB_OP_CM;
	wr->opcode = IB_WR_SEND;
	wr->send_flags = IB_SEND_SIGNALED;
	wr->sg_list = sge;
	wr->num_sge = buf->nmap;
	ret = ib_post_send(tx->qp, wr, NULL);
	if (unlikely(ret)) {
		ipoib_warn_rl(priv, "connected-mode send not posted: %d\n", ret);
		ipoib_tx_buf_free(priv, buf);
		priv->dev->stats.tx_errors++;
		return;
	}
	tx->tx_head++;
	ipoib_tx_posted(priv);
}

/* [send NAPI] a connected-mode send completed */
void ipoib_cm_tx_wc(struct ipoib_dev *priv, struct ib_wc *wc)
{
	struct ipoib_cm_tx *tx = wc->qp->qp_context;
	unsigned int idx = wc->wr_id & ~IPOIB_OP_CM;
	struct net_device *dev = priv->dev;
	struct ipoib_tx_buf *buf;
	unsigned long flags;

	if (unlikely(idx >= ipoib_sendq_size || !tx->ring[idx].skb)) {
		ipoib_warn_rl(priv, "connected-mode send completion for slot %u\n",
			      idx);
		return;
	}
	buf = &tx->ring[idx];
	ipoib_tx_unmap(priv, buf);
	/* as upstream, a failed send counts as a packet too */
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += buf->skb->len;
	dev_kfree_skb_any(buf->skb);
	buf->skb = NULL;
	/* the slot is free for ipoib_cm_xmit() once tx_tail passed it */
	smp_store_release(&tx->tx_tail, tx->tx_tail + 1);
	ipoib_tx_done(priv);

	if (unlikely(wc->status != IB_WC_SUCCESS &&
		     wc->status != IB_WC_WR_FLUSH_ERR)) {
		if (wc->status == IB_WC_RNR_RETRY_EXC_ERR ||
		    wc->status == IB_WC_RETRY_EXC_ERR)
			ipoib_dbg(priv, "connected-mode send failed: %s\n",
				  ib_wc_status_msg(wc->status));
		else
			ipoib_warn_rl(priv, "connected-mode send failed: %s (vendor error %#x)\n",
				      ib_wc_status_msg(wc->status), wc->vendor_err);
		dev->stats.tx_errors++;
		spin_lock_irqsave(&priv->lock, flags);
		if (tx->neigh) {
			struct ipoib_neigh *neigh = tx->neigh;

			ipoib_cm_tx_give_up(priv, tx);
			/* the next frame asks for a path and a connection */
			ipoib_neigh_free(priv, neigh);
		}
		spin_unlock_irqrestore(&priv->lock, flags);
	}
}

static int ipoib_cm_tx_rep(struct ipoib_dev *priv, struct ipoib_cm_tx *tx,
			   const struct ib_cm_event *event)
{
	const struct ipoib_cm_data *data = event->private_data;
	struct sk_buff_head resend;
	struct ib_qp_attr attr;
	struct sk_buff *skb;
	unsigned long flags;
	int mask, ret;

	tx->mtu = be32_to_cpu(data->mtu);
	if (tx->mtu <= IPOIB_ENCAP_LEN) {
		ipoib_warn_rl(priv, "REP with MTU %u rejected\n", tx->mtu);
		return -EINVAL;
	}
	attr.qp_state = IB_QPS_RTR;
	ret = ib_cm_init_qp_attr(tx->id, &attr, &mask);
	if (ret)
		return ret;
	attr.rq_psn = 0;
	ret = ib_modify_qp(tx->qp, &attr, mask);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTS;
	ret = ib_cm_init_qp_attr(tx->id, &attr, &mask);
	if (!ret)
		ret = ib_modify_qp(tx->qp, &attr, mask);
	if (ret)
		return ret;

	__skb_queue_head_init(&resend);
	spin_lock_irqsave(&priv->lock, flags);
	if (tx->neigh) {
		tx->up = true;
		skb_queue_splice_tail_init(&tx->neigh->queue, &resend);
	}
	spin_unlock_irqrestore(&priv->lock, flags);

	ret = ib_send_cm_rtu(tx->id, NULL, 0);
	if (ret)
		ipoib_warn_rl(priv, "RTU not sent: %d\n", ret);
	while ((skb = __skb_dequeue(&resend))) {
		skb->dev = priv->dev;
		dev_queue_xmit(skb);
	}
	return 0;
}

static int ipoib_cm_tx_handler(struct ib_cm_id *id,
			       const struct ib_cm_event *event)
{
	struct ipoib_cm_tx *tx = id->context;
	struct ipoib_dev *priv = ipoib_priv(tx->dev);
	struct ipoib_neigh *neigh;
	unsigned long flags;
	int ret;

	switch (event->event) {
	case IB_CM_REP_RECEIVED:
		ret = ipoib_cm_tx_rep(priv, tx, event);
		if (ret)
			ib_send_cm_rej(id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				       NULL, 0);
		return 0;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(id, NULL, 0);
		return 0;
	case IB_CM_REQ_ERROR:
	case IB_CM_REJ_RECEIVED:
	case IB_CM_TIMEWAIT_EXIT:
		ipoib_dbg(priv, "connection to QP %#x ends (event %d)\n",
			  id->remote_cm_qpn, event->event);
		spin_lock_irqsave(&priv->lock, flags);
		neigh = tx->neigh;
		if (neigh) {
			ipoib_cm_tx_give_up(priv, tx);
			ipoib_neigh_free(priv, neigh);
		}
		spin_unlock_irqrestore(&priv->lock, flags);
		return 0;
	default:
		return 0;
	}
}

/* [priv->wq] a QP and a REQ for the connection tx */
static int ipoib_cm_tx_connect(struct ipoib_dev *priv, struct ipoib_cm_tx *tx,
			       struct sa_path_rec *path, u32 qpn)
{
	struct ib_qp_init_attr init = {
		.send_cq = priv->send_cq,
		.recv_cq = priv->recv_cq,
		.srq = priv->cm.srq,
		.cap.max_send_wr = ipoib_sendq_size,
		.cap.max_send_sge = min_t(u32, priv->ca->attrs.max_send_sge,
					  MAX_SKB_FRAGS + 1),
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
		.qp_context = tx,
	};
	struct ipoib_cm_data data = {
		.qpn = cpu_to_be32(priv->qp->qp_num),
		.mtu = cpu_to_be32(IPOIB_CM_BUF_SIZE),
	};
	struct ib_cm_req_param req = {};
	struct ib_qp_attr attr = {};
	unsigned int noio;
	int ret;

	tx->ring = vzalloc(array_size(ipoib_sendq_size, sizeof(*tx->ring)));
	if (!tx->ring)
		return -ENOMEM;
	/* NFS or iSCSI over ib0 may be what reclaim waits for */
	noio = memalloc_noio_save();
	tx->qp = ib_create_qp(priv->pd, &init);
	memalloc_noio_restore(noio);
	if (IS_ERR(tx->qp)) {
		ret = PTR_ERR(tx->qp);
		tx->qp = NULL;
		return ret;
	}
	tx->max_send_sge = init.cap.max_send_sge;
	tx->id = ib_create_cm_id(priv->ca, ipoib_cm_tx_handler, tx);
	if (IS_ERR(tx->id)) {
		ret = PTR_ERR(tx->id);
		tx->id = NULL;
		return ret;
	}

	attr.qp_state = IB_QPS_INIT;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE;
	attr.pkey_index = priv->pkey_index;
	attr.port_num = priv->port;
	ret = ib_modify_qp(tx->qp, &attr, IB_QP_STATE | IB_QP_ACCESS_FLAGS |
			   IB_QP_PKEY_INDEX | IB_QP_PORT);
	if (ret)
		return ret;

	req.primary_path = path;
	req.service_id = cpu_to_be64(IPOIB_CM_IETF_ID | qpn);
	req.qp_num = tx->qp->qp_num;
	req.qp_type = IB_QPT_RC;
	req.private_data = &data;
	req.private_data_len = sizeof(data);
	req.flow_control = 0;
	req.starting_psn = 0;
	req.responder_resources = 4;
	req.initiator_depth = 0;
	req.remote_cm_response_timeout = IPOIB_CM_TIMEOUT;
	req.local_cm_response_timeout = IPOIB_CM_TIMEOUT;
	req.retry_count = 0;
	req.rnr_retry_count = 0;
	req.max_cm_retries = IPOIB_CM_RETRIES;
	req.srq = 1;
	return ib_send_cm_req(tx->id, &req);
}

static void ipoib_cm_tx_start_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      cm.tx_start_task);
	struct ipoib_cm_tx *tx;
	struct ipoib_neigh *neigh;
	struct sa_path_rec path;
	u32 qpn;
	int ret;

	spin_lock_irq(&priv->lock);
	while (!list_empty(&priv->cm.tx_start)) {
		tx = list_first_entry(&priv->cm.tx_start, struct ipoib_cm_tx,
				      list);
		list_move_tail(&tx->list, &priv->cm.tx_live);
		neigh = tx->neigh;
		if (!neigh || !neigh->path) {
			ipoib_cm_tx_give_up(priv, tx);
			continue;
		}
		path = neigh->path->rec;
		qpn = ipoib_addr_qpn(neigh->daddr);
		spin_unlock_irq(&priv->lock);

		ret = ipoib_cm_tx_connect(priv, tx, &path, qpn);

		spin_lock_irq(&priv->lock);
		if (ret) {
			ipoib_warn_rl(priv, "no connection to QP %#x: %d\n",
				      qpn, ret);
			neigh = tx->neigh;
			ipoib_cm_tx_give_up(priv, tx);
			if (neigh)
				ipoib_neigh_free(priv, neigh);
		}
	}
	spin_unlock_irq(&priv->lock);
}

/* [sleep] the connection's end: its cm_id (a DREQ), its sends, its QP */
static void ipoib_cm_tx_destroy(struct ipoib_dev *priv, struct ipoib_cm_tx *tx)
{
	unsigned long until = jiffies + 5 * HZ;
	unsigned int idx;

	if (tx->id)
		ib_destroy_cm_id(tx->id);
	if (tx->qp) {
		/* the sends posted complete, flushed at worst */
		while (tx->tx_head != READ_ONCE(tx->tx_tail) &&
		       time_before(jiffies, until)) {
			if (ib_modify_qp(tx->qp, (struct ib_qp_attr *)&ipoib_cm_err_attr,
					 IB_QP_STATE))
				break;
			msleep(20);
		}
		if (tx->tx_head != READ_ONCE(tx->tx_tail))
			ipoib_warn(priv, "%u connected-mode sends not completed in 5 s\n",
				   tx->tx_head - tx->tx_tail);
		ib_destroy_qp(tx->qp);
		/* what never completed: freed here, after the QP */
		while (tx->tx_tail != tx->tx_head) {
			idx = tx->tx_tail & (ipoib_sendq_size - 1);
			ipoib_tx_buf_free(priv, &tx->ring[idx]);
			tx->tx_tail++;
			local_bh_disable();
			ipoib_tx_done(priv);
			local_bh_enable();
		}
	}
	vfree(tx->ring);
	kfree(tx);
}

static void ipoib_cm_tx_reap_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      cm.tx_reap_task);
	struct ipoib_cm_tx *tx, *tmp;
	LIST_HEAD(reap);

	spin_lock_irq(&priv->lock);
	list_splice_init(&priv->cm.tx_reap, &reap);
	spin_unlock_irq(&priv->lock);
	list_for_each_entry_safe(tx, tmp, &reap, list)
		ipoib_cm_tx_destroy(priv, tx);
}

/* --- the interface's connected mode --------------------------------------- */

/*
 * [sleep, ndo_init] The SRQ and its buffers when the card has an SRQ: the
 * address gets flag 0x80.  0 also without an SRQ (no connected mode).
 */
int ipoib_cm_dev_init(struct ipoib_dev *priv)
{
	struct ib_srq_init_attr attr = {
		.srq_type = IB_SRQT_BASIC,
		.attr.max_wr = ipoib_recvq_size,
	};
	struct ipoib_cm *cm = &priv->cm;
	u8 flags = IPOIB_ADDR_RC;
	unsigned int i;
	int ret;

	INIT_LIST_HEAD(&cm->rx_live);
	INIT_LIST_HEAD(&cm->rx_flush);
	INIT_LIST_HEAD(&cm->rx_drain);
	INIT_LIST_HEAD(&cm->rx_reap);
	INIT_LIST_HEAD(&cm->tx_start);
	INIT_LIST_HEAD(&cm->tx_live);
	INIT_LIST_HEAD(&cm->tx_reap);
	INIT_WORK(&cm->tx_start_task, ipoib_cm_tx_start_task);
	INIT_WORK(&cm->tx_reap_task, ipoib_cm_tx_reap_task);
	INIT_WORK(&cm->rx_reap_task, ipoib_cm_rx_reap_task);
	INIT_WORK(&cm->icmp_task, ipoib_cm_icmp_task);
	skb_queue_head_init(&cm->too_long);

	if (priv->ca->attrs.max_srq <= 0 || priv->ca->attrs.max_srq_sge < 2)
		return 0;
	cm->num_frags = min_t(unsigned int, IPOIB_CM_RX_SG,
			      priv->ca->attrs.max_srq_sge);
	/* 16 pages less the 16 bytes upstream keeps */
	cm->max_mtu = min_t(unsigned int, IPOIB_CM_MTU,
			    cm->num_frags * PAGE_SIZE - 0x10);
	attr.attr.max_sge = cm->num_frags;
	cm->srq = ib_create_srq(priv->pd, &attr);
	if (IS_ERR(cm->srq)) {
		ret = PTR_ERR(cm->srq);
		cm->srq = NULL;
		if (ret == -EOPNOTSUPP)
			return 0;
		return ret;
	}
	cm->srq_ring = vzalloc(array_size(ipoib_recvq_size,
					  sizeof(*cm->srq_ring)));
	if (!cm->srq_ring) {
		ret = -ENOMEM;
		goto err_srq;
	}
	for (i = 0; i < ipoib_recvq_size; i++) {
		if (!ipoib_cm_refill(priv, i, 0, GFP_KERNEL)) {
			ret = -ENOMEM;
			goto err_ring;
		}
		ret = ipoib_cm_post_srq(priv, i);
		if (ret)
			goto err_ring;
	}
	ibstack_dev_addr_mod(priv->dev, 0, &flags, 1);
	return 0;

err_ring:
	ipoib_cm_free_ring(priv);
	vfree(cm->srq_ring);
	cm->srq_ring = NULL;
err_srq:
	ib_destroy_srq(cm->srq);
	cm->srq = NULL;
	return ret;
}

/* [sleep, ndo_uninit] after ipoib_cm_stop() and the QP's drain */
void ipoib_cm_dev_cleanup(struct ipoib_dev *priv)
{
	cancel_work_sync(&priv->cm.icmp_task);
	skb_queue_purge(&priv->cm.too_long);
	if (!priv->cm.srq)
		return;
	ib_destroy_srq(priv->cm.srq);
	priv->cm.srq = NULL;
	/* the SRQ is gone: nothing touches the buffers any more */
	ipoib_cm_free_ring(priv);
	vfree(priv->cm.srq_ring);
	priv->cm.srq_ring = NULL;
}

/* [sleep, RTNL] the listener, while the interface is up */
int ipoib_cm_open(struct ipoib_dev *priv)
{
	struct ib_cm_id *id;
	int ret;

	if (!priv->cm.srq)
		return 0;
	id = ib_create_cm_id(priv->ca, ipoib_cm_rx_handler, priv);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = ib_cm_listen(id, cpu_to_be64(IPOIB_CM_IETF_ID |
					   priv->qp->qp_num));
	if (ret) {
		ipoib_warn(priv, "no connected-mode listener: %d\n", ret);
		ib_destroy_cm_id(id);
		return ret;
	}
	spin_lock_irq(&priv->lock);
	priv->cm.listen_id = id;
	spin_unlock_irq(&priv->lock);
	return 0;
}

static bool ipoib_cm_rx_idle(struct ipoib_dev *priv)
{
	bool idle;

	spin_lock_irq(&priv->lock);
	idle = list_empty(&priv->cm.rx_live) && list_empty(&priv->cm.rx_flush) &&
	       list_empty(&priv->cm.rx_drain);
	spin_unlock_irq(&priv->lock);
	return idle;
}

/*
 * [sleep, RTNL] No listener; every passive connection drained and
 * reaped (5 s at most), every active one reaped.  Before the UD QP's
 * stop: the drains complete through NAPI.
 */
void ipoib_cm_stop(struct ipoib_dev *priv)
{
	unsigned long until = jiffies + 5 * HZ;
	struct ipoib_cm_rx *rx;
	struct ib_cm_id *id;

	if (!priv->cm.srq)
		return;
	spin_lock_irq(&priv->lock);
	id = priv->cm.listen_id;
	priv->cm.listen_id = NULL;
	spin_unlock_irq(&priv->lock);
	if (id)
		ib_destroy_cm_id(id);

	/*
	 * every live passive QP to ERR: its last WQE event starts its drain.
	 * One already in ERR (a DREQ or REJ came) may get that event while
	 * we modify it unlocked: nothing is reaped until we are done.
	 */
	spin_lock_irq(&priv->lock);
	priv->cm.rx_hold = true;
	spin_unlock_irq(&priv->lock);
	flush_work(&priv->cm.rx_reap_task);
	spin_lock_irq(&priv->lock);
	while (!list_empty(&priv->cm.rx_live)) {
		rx = list_first_entry(&priv->cm.rx_live, struct ipoib_cm_rx, list);
		list_move_tail(&rx->list, &priv->cm.rx_flush);
		spin_unlock_irq(&priv->lock);
		if (ib_modify_qp(rx->qp, (struct ib_qp_attr *)&ipoib_cm_err_attr,
				 IB_QP_STATE))
			ipoib_warn(priv, "passive QP %#x not in ERR\n",
				   rx->qp->qp_num);
		spin_lock_irq(&priv->lock);
	}
	priv->cm.rx_hold = false;
	if (!list_empty(&priv->cm.rx_reap))
		queue_work(priv->wq, &priv->cm.rx_reap_task);
	spin_unlock_irq(&priv->lock);

	while (!ipoib_cm_rx_idle(priv) && time_before(jiffies, until))
		msleep(20);
	spin_lock_irq(&priv->lock);
	if (!list_empty(&priv->cm.rx_flush) || !list_empty(&priv->cm.rx_drain)) {
		ipoib_warn(priv, "passive connections not drained in 5 s: reaped\n");
		list_splice_tail_init(&priv->cm.rx_flush, &priv->cm.rx_reap);
		list_splice_tail_init(&priv->cm.rx_drain, &priv->cm.rx_reap);
	}
	spin_unlock_irq(&priv->lock);
	flush_work(&priv->cm.rx_reap_task);
	ipoib_cm_rx_reap_task(&priv->cm.rx_reap_task);

	/* the active side: every neighbour went with the paths already */
	spin_lock_irq(&priv->lock);
	while (!list_empty(&priv->cm.tx_start) || !list_empty(&priv->cm.tx_live)) {
		struct ipoib_cm_tx *tx;

		tx = list_first_entry_or_null(&priv->cm.tx_start,
					      struct ipoib_cm_tx, list);
		if (!tx)
			tx = list_first_entry(&priv->cm.tx_live,
					      struct ipoib_cm_tx, list);
		ipoib_cm_tx_give_up(priv, tx);
	}
	spin_unlock_irq(&priv->lock);
	flush_work(&priv->cm.tx_start_task);
	flush_work(&priv->cm.tx_reap_task);
	ipoib_cm_tx_reap_task(&priv->cm.tx_reap_task);
}

/* --- the mode ------------------------------------------------------------- */

/*
 * [sleep, RTNL] sysfs mode and the netlink MODE: connected only with the
 * address's flag 0x80 (-EINVAL otherwise).  Connected: no checksum or
 * TSO offload, the MTU the largest connected one; datagram: the MTU
 * capped to the broadcast group's.  Either way the paths go, and with
 * them the connections, so that the next frame picks the new mode.
 * The mode it is in already: nothing, 0.
 */
int ipoib_set_mode(struct net_device *dev, bool connected)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	ASSERT_RTNL();
	if (connected == ipoib_cm_admin(priv))
		return 0;
	if (connected) {
		if (!(dev->dev_addr[0] & IPOIB_ADDR_RC) || !priv->cm.srq)
			return -EINVAL;
		set_bit(IPOIB_FLAG_ADMIN_CM, &priv->flags);
		ipoib_warn(priv, "enabling connected mode will cause multicast packet drops\n");
		netdev_update_features(dev);
		dev_set_mtu(dev, priv->cm.max_mtu);
	} else {
		clear_bit(IPOIB_FLAG_ADMIN_CM, &priv->flags);
		netdev_update_features(dev);
		dev_set_mtu(dev, min(priv->mcast_mtu, dev->mtu));
	}
	ipoib_paths_flush(priv);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The interface's UD QP: its CQs and rings, the receive and send
 * completions (NAPI), and the send of one packet.
 *
 * Receive buffers hold the 40-byte GRH the card always writes first and
 * then up to the port's largest IB MTU.  On delivery the GRH is pulled and
 * a zeroed pseudo header takes its place before the 4-byte IPoIB header,
 * so that the frame's link-layer header is hard_header_len (24) bytes, as
 * for a frame start_xmit sees.
 *
 * The send ring is a power of two long; tx_head counts posted sends
 * (written by start_xmit's context only) and tx_tail completed ones
 * (written by the send NAPI only).  The queue stops when the ring is full
 * and wakes at half.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/vmalloc.h>
#include "ipoib.h"

/* completion vectors, handed out round robin over the interfaces */
static atomic_t ipoib_comp_vector = ATOMIC_INIT(0);

static int ipoib_pick_vector(struct ib_device *ca)
{
	return (unsigned int)atomic_inc_return(&ipoib_comp_vector) %
	       max(ca->num_comp_vectors, 1);
}

int ipoib_qp_create(struct ipoib_dev *priv)
{
	struct ib_device *ca = priv->ca;
	struct ib_qp_init_attr init = {};
	struct ib_cq_init_attr cq_attr = {};
	int ret;

	priv->rx_ring = kcalloc(ipoib_recvq_size, sizeof(*priv->rx_ring),
				GFP_KERNEL);
	if (!priv->rx_ring)
		return -ENOMEM;
	priv->tx_ring = vzalloc(array_size(ipoib_sendq_size,
					   sizeof(*priv->tx_ring)));
	if (!priv->tx_ring) {
		ret = -ENOMEM;
		goto err_rx_ring;
	}

	priv->pd = ib_alloc_pd(ca, 0);
	if (IS_ERR(priv->pd)) {
		ret = PTR_ERR(priv->pd);
		goto err_tx_ring;
	}

	/* UD receives, and with an SRQ its receives and the drain WRs */
	cq_attr.cqe = ipoib_recvq_size + 1;
	if (ca->attrs.max_srq)
		cq_attr.cqe += ipoib_recvq_size + 1 + ipoib_sendq_size;
	cq_attr.comp_vector = ipoib_pick_vector(ca);
	priv->recv_cq = ib_create_cq(ca, ipoib_recv_comp, NULL, priv, &cq_attr);
	if (IS_ERR(priv->recv_cq)) {
		ret = PTR_ERR(priv->recv_cq);
		goto err_pd;
	}
	cq_attr.cqe = ipoib_sendq_size;
	cq_attr.comp_vector = ipoib_pick_vector(ca);
	priv->send_cq = ib_create_cq(ca, ipoib_send_comp, NULL, priv, &cq_attr);
	if (IS_ERR(priv->send_cq)) {
		ret = PTR_ERR(priv->send_cq);
		goto err_recv_cq;
	}

	init.send_cq = priv->send_cq;
	init.recv_cq = priv->recv_cq;
	init.qp_type = IB_QPT_UD;
	init.sq_sig_type = IB_SIGNAL_ALL_WR;
	init.cap.max_send_wr = ipoib_sendq_size;
	init.cap.max_recv_wr = ipoib_recvq_size;
	init.cap.max_send_sge = min_t(u32, ca->attrs.max_send_sge,
				      MAX_SKB_FRAGS + 1);
	init.cap.max_recv_sge = 1;
	if (ca->attrs.kernel_cap_flags & IBK_BLOCK_MULTICAST_LOOPBACK)
		init.create_flags |= IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK;
	if (ca->attrs.kernel_cap_flags & IBK_UD_TSO)
		init.create_flags |= IB_QP_CREATE_IPOIB_UD_LSO;
	if (ca->attrs.device_cap_flags & IB_DEVICE_MANAGED_FLOW_STEERING)
		init.create_flags |= IB_QP_CREATE_NETIF_QP;
	priv->qp = ib_create_qp(priv->pd, &init);
	if (IS_ERR(priv->qp)) {
		ret = PTR_ERR(priv->qp);
		ipoib_warn(priv, "failed to create the UD QP: %d\n", ret);
		goto err_send_cq;
	}
	priv->max_send_sge = init.cap.max_send_sge;
	priv->lso = !!(init.create_flags & IB_QP_CREATE_IPOIB_UD_LSO);
	priv->rx_buf_size = IPOIB_UD_HEAD_SIZE + priv->max_ib_mtu;
	return 0;

err_send_cq:
	ib_destroy_cq(priv->send_cq);
err_recv_cq:
	ib_destroy_cq(priv->recv_cq);
err_pd:
	ib_dealloc_pd(priv->pd);
err_tx_ring:
	vfree(priv->tx_ring);
err_rx_ring:
	kfree(priv->rx_ring);
	return ret;
}

void ipoib_qp_destroy(struct ipoib_dev *priv)
{
	ib_destroy_qp(priv->qp);
	ib_destroy_cq(priv->send_cq);
	ib_destroy_cq(priv->recv_cq);
	ib_dealloc_pd(priv->pd);
	vfree(priv->tx_ring);
	kfree(priv->rx_ring);
}

/* --- receive ------------------------------------------------------------- */

/* gives buffer i a new skb, mapped; 0 or -ENOMEM */
static int ipoib_rx_alloc(struct ipoib_dev *priv, unsigned int i, gfp_t gfp)
{
	struct sk_buff *skb;
	u64 addr;

	skb = __netdev_alloc_skb(priv->dev, priv->rx_buf_size, gfp);
	if (!skb)
		return -ENOMEM;
	addr = ib_dma_map_single(priv->ca, skb->data, priv->rx_buf_size,
				 DMA_FROM_DEVICE);
	if (unlikely(ib_dma_mapping_error(priv->ca, addr))) {
		dev_kfree_skb_any(skb);
		return -EIO;
	}
	priv->rx_ring[i].skb = skb;
	priv->rx_ring[i].mapping = addr;
	return 0;
}

static void ipoib_rx_free(struct ipoib_dev *priv, unsigned int i)
{
	struct ipoib_rx_buf *rx = &priv->rx_ring[i];

	if (!rx->skb)
		return;
	ib_dma_unmap_single(priv->ca, rx->mapping, priv->rx_buf_size,
			    DMA_FROM_DEVICE);
	dev_kfree_skb_any(rx->skb);
	rx->skb = NULL;
}

static int ipoib_rx_post(struct ipoib_dev *priv, unsigned int i)
{
	struct ib_sge sge = {
		.addr = priv->rx_ring[i].mapping,
		.length = priv->rx_buf_size,
		.lkey = priv->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = i | IPOIB_OP_RECV,
		.sg_list = &sge,
		.num_sge = 1,
	};
	int ret;

	ret = ib_post_recv(priv->qp, &wr, NULL);
	if (unlikely(ret)) {
		ipoib_warn_rl(priv, "receive buffer %u not posted: %d\n", i, ret);
		ipoib_rx_free(priv, i);
	}
	return ret;
}

/* the frame's destination, from the GRH the card wrote */
static u8 ipoib_pkt_type(struct ipoib_dev *priv, const struct ib_wc *wc,
			 const struct ib_grh *grh)
{
	if (!(wc->wc_flags & IB_WC_GRH) || grh->dgid.raw[0] != 0xff)
		return PACKET_HOST;
	if (!memcmp(grh->dgid.raw, priv->dev->broadcast + 4, sizeof(union ib_gid)))
		return PACKET_BROADCAST;
	return PACKET_MULTICAST;
}

/* our own multicast, looped back by a card that cannot block it */
static bool ipoib_rx_is_own(struct ipoib_dev *priv, const struct ib_wc *wc,
			    const struct ib_grh *grh)
{
	if (wc->slid != priv->local_lid || wc->src_qp != priv->qp->qp_num)
		return false;
	/* another port of the same LID range sending: not ours */
	return !(wc->wc_flags & IB_WC_GRH) ||
	       !memcmp(grh->sgid.raw + 8, priv->dev->dev_addr + 12, 8);
}

static void ipoib_rx_one(struct ipoib_dev *priv, struct ib_wc *wc, bool flush)
{
	struct net_device *dev = priv->dev;
	unsigned int i = wc->wr_id & ~IPOIB_OP_RECV;
	struct ipoib_rx_buf *rx;
	struct sk_buff *skb;
	struct ib_grh *grh;
	u64 mapping;

	if (unlikely(i >= ipoib_recvq_size)) {
		ipoib_warn_rl(priv, "receive completion for buffer %u of %u\n",
			      i, ipoib_recvq_size);
		return;
	}
	rx = &priv->rx_ring[i];
	if (unlikely(wc->status != IB_WC_SUCCESS || flush)) {
		if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
			ipoib_warn_rl(priv, "receive failed: %s (vendor error %#x)\n",
				      ib_wc_status_msg(wc->status), wc->vendor_err);
		ipoib_rx_free(priv, i);
		return;
	}

	skb = rx->skb;
	mapping = rx->mapping;
	grh = (struct ib_grh *)skb->data;
	ib_dma_sync_single_for_cpu(priv->ca, mapping, priv->rx_buf_size,
				   DMA_FROM_DEVICE);
	if (unlikely(ipoib_rx_is_own(priv, wc, grh) ||
		     wc->byte_len < IPOIB_UD_HEAD_SIZE + IPOIB_ENCAP_LEN)) {
		ib_dma_sync_single_for_device(priv->ca, mapping, priv->rx_buf_size,
					      DMA_FROM_DEVICE);
		ipoib_rx_post(priv, i);
		return;
	}

	/* a fresh buffer first: without one the frame is dropped */
	if (unlikely(ipoib_rx_alloc(priv, i, GFP_ATOMIC))) {
		dev->stats.rx_dropped++;
		ib_dma_sync_single_for_device(priv->ca, mapping, priv->rx_buf_size,
					      DMA_FROM_DEVICE);
		ipoib_rx_post(priv, i);
		return;
	}
	ipoib_rx_post(priv, i);
	ib_dma_unmap_single(priv->ca, mapping, priv->rx_buf_size,
			    DMA_FROM_DEVICE);

	skb_put(skb, wc->byte_len);
	skb->pkt_type = ipoib_pkt_type(priv, wc, grh);
	skb_pull(skb, IPOIB_UD_HEAD_SIZE);
	skb->protocol = ((struct ipoib_header *)skb->data)->proto;
	/* the pseudo header's room is the GRH's, pulled above */
	memset(skb_push(skb, IPOIB_PSEUDO_LEN), 0, IPOIB_PSEUDO_LEN);
	skb_reset_mac_header(skb);
	skb_pull(skb, IPOIB_HARD_LEN);

	dev->stats.rx_packets++;
	dev->stats.rx_bytes += skb->len;
	if (skb->pkt_type == PACKET_MULTICAST)
		dev->stats.multicast++;
	skb->dev = dev;
	if ((dev->features & NETIF_F_RXCSUM) &&
	    (wc->wc_flags & IB_WC_IP_CSUM_OK))
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	napi_gro_receive(&priv->recv_napi, skb);
}

void ipoib_recv_comp(struct ib_cq *cq, void *ctx)
{
	struct ipoib_dev *priv = ctx;

	napi_schedule(&priv->recv_napi);
}

int ipoib_recv_poll(struct napi_struct *napi, int budget)
{
	struct ipoib_dev *priv = container_of(napi, struct ipoib_dev, recv_napi);
	struct ib_wc wcs[IPOIB_NUM_WC];
	int done = 0, n, i;

	while (done < budget) {
		n = ib_poll_cq(priv->recv_cq, min(IPOIB_NUM_WC, budget - done),
			       wcs);
		for (i = 0; i < n; i++) {
			if (wcs[i].wr_id & IPOIB_OP_CM)
				ipoib_cm_rx_wc(priv, &wcs[i], false);
			else
				ipoib_rx_one(priv, &wcs[i], false);
		}
		done += max(n, 0);
		if (n < IPOIB_NUM_WC)
			break;
	}
	if (done < budget && napi_complete_done(napi, done) &&
	    ib_req_notify_cq(priv->recv_cq, IB_CQ_NEXT_COMP |
			     IB_CQ_REPORT_MISSED_EVENTS) > 0)
		napi_schedule(napi);
	return done;
}

/* --- send ---------------------------------------------------------------- */

void ipoib_tx_unmap(struct ipoib_dev *priv, struct ipoib_tx_buf *tx)
{
	struct sk_buff *skb = tx->skb;
	unsigned int m = 0, f;

	if (skb_headlen(skb)) {
		ib_dma_unmap_single(priv->ca, tx->mapping[0], skb_headlen(skb),
				    DMA_TO_DEVICE);
		m = 1;
	}
	for (f = 0; m < tx->nmap; f++, m++)
		ib_dma_unmap_page(priv->ca, tx->mapping[m],
				  skb_frag_size(&skb_shinfo(skb)->frags[f]),
				  DMA_TO_DEVICE);
}

/* maps the skb's head and fragments into sges; 0 or -EIO */
int ipoib_tx_map(struct ipoib_dev *priv, struct ipoib_tx_buf *tx,
		 struct ib_sge *sge)
{
	struct sk_buff *skb = tx->skb;
	unsigned int f, n = 0;
	u64 addr;

	tx->nmap = 0;
	if (skb_headlen(skb)) {
		addr = ib_dma_map_single(priv->ca, skb->data, skb_headlen(skb),
					 DMA_TO_DEVICE);
		if (unlikely(ib_dma_mapping_error(priv->ca, addr)))
			return -EIO;
		tx->mapping[n] = addr;
		sge[n].length = skb_headlen(skb);
		sge[n].addr = addr;
		sge[n++].lkey = priv->pd->local_dma_lkey;
		tx->nmap = n;
	}
	for (f = 0; f < skb_shinfo(skb)->nr_frags; f++) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[f];

		addr = ib_dma_map_page(priv->ca, skb_frag_page(frag),
				       skb_frag_off(frag), skb_frag_size(frag),
				       DMA_TO_DEVICE);
		if (unlikely(ib_dma_mapping_error(priv->ca, addr))) {
			ipoib_tx_unmap(priv, tx);
			return -EIO;
		}
		tx->mapping[n] = addr;
		sge[n].length = skb_frag_size(frag);
		sge[n].addr = addr;
		sge[n++].lkey = priv->pd->local_dma_lkey;
		tx->nmap = n;
	}
	return 0;
}

/* a send slot's skb, unmapped and freed (a send that never completes) */
void ipoib_tx_buf_free(struct ipoib_dev *priv, struct ipoib_tx_buf *tx)
{
	if (!tx->skb)
		return;
	ipoib_tx_unmap(priv, tx);
	dev_kfree_skb_any(tx->skb);
	tx->skb = NULL;
}

void ipoib_drop_tx(struct ipoib_dev *priv, struct sk_buff *skb)
{
	priv->dev->stats.tx_dropped++;
	dev_kfree_skb_any(skb);
}

/* sends posted and not completed, UD and RC alike */
static unsigned int ipoib_tx_outstanding(struct ipoib_dev *priv)
{
	/* pairs with ipoib_tx_done()'s release: the slots it freed are free */
	return priv->global_tx_head - smp_load_acquire(&priv->global_tx_tail);
}

/* [xmit] room for one more send on the send CQ */
bool ipoib_tx_room(struct ipoib_dev *priv)
{
	if (likely(ipoib_tx_outstanding(priv) < ipoib_sendq_size))
		return true;
	netif_stop_queue(priv->dev);
	return false;
}

/* [xmit] a send was posted: the queue stops when the send CQ is full */
void ipoib_tx_posted(struct ipoib_dev *priv)
{
	priv->global_tx_head++;
	netif_trans_update(priv->dev);
	if (ipoib_tx_outstanding(priv) >= ipoib_sendq_size) {
		netif_stop_queue(priv->dev);
		/* a completion in between would not see the stopped queue */
		smp_mb();
		if (ipoib_tx_outstanding(priv) < ipoib_sendq_size)
			netif_wake_queue(priv->dev);
	}
}

/* [send NAPI] a send completed: the queue wakes at half */
void ipoib_tx_done(struct ipoib_dev *priv)
{
	/* the completed send's slot is free before the count says so */
	smp_store_release(&priv->global_tx_tail, priv->global_tx_tail + 1);
	if (unlikely(netif_queue_stopped(priv->dev)) &&
	    ipoib_tx_outstanding(priv) <= ipoib_sendq_size / 2 &&
	    test_bit(IPOIB_FLAG_ADMIN_UP, &priv->flags))
		netif_wake_queue(priv->dev);
}

/*
 * Sends skb (its 4-byte IPoIB header first) to QP qpn through ah.  Called
 * from start_xmit's context with priv->lock held.  Consumes the skb: 0, or
 * an errno once it was dropped and counted.
 */
int ipoib_send(struct ipoib_dev *priv, struct sk_buff *skb,
	       struct ipoib_ah *ah, u32 qpn)
{
	struct net_device *dev = priv->dev;
	struct ib_sge sge[MAX_SKB_FRAGS + 1];
	struct ib_ud_wr wr = {};
	struct ipoib_tx_buf *tx;
	unsigned int idx;
	int ret;

	lockdep_assert_held(&priv->lock);
	if (skb_is_gso(skb)) {
		int hlen = skb_transport_offset(skb) + tcp_hdrlen(skb);

		if (unlikely(!priv->lso || !pskb_may_pull(skb, hlen))) {
			ipoib_drop_tx(priv, skb);
			return -EINVAL;
		}
		wr.wr.opcode = IB_WR_LSO;
		wr.header = skb->data;
		wr.hlen = hlen;
		wr.mss = skb_shinfo(skb)->gso_size;
		__skb_pull(skb, hlen);
	} else {
		if (unlikely(skb->len > priv->mcast_mtu + IPOIB_ENCAP_LEN)) {
			ipoib_warn(priv, "packet len %u (> %u) too long to send, dropping\n",
				   skb->len, priv->mcast_mtu + IPOIB_ENCAP_LEN);
			ipoib_cm_skb_too_long(priv, skb, priv->mcast_mtu);
			return -EMSGSIZE;
		}
		wr.wr.opcode = IB_WR_SEND;
	}
	if (skb_shinfo(skb)->nr_frags + 1 > priv->max_send_sge &&
	    skb_linearize(skb)) {
		ipoib_drop_tx(priv, skb);
		return -ENOMEM;
	}
	if (unlikely(!ipoib_tx_room(priv))) {
		ipoib_drop_tx(priv, skb);
		return -ENOBUFS;
	}

	/* the completion may free the skb before ib_post_send() returns */
	skb_orphan(skb);
	skb_dst_drop(skb);
	idx = priv->tx_head & (ipoib_sendq_size - 1);
	tx = &priv->tx_ring[idx];
	tx->skb = skb;
	if (unlikely(ipoib_tx_map(priv, tx, sge))) {
		dev->stats.tx_errors++;
		dev_kfree_skb_any(skb);
		return -EIO;
	}

	wr.wr.wr_id = idx;
	wr.wr.sg_list = sge;
	wr.wr.num_sge = tx->nmap;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	if (skb->ip_summed == CHECKSUM_PARTIAL)
		wr.wr.send_flags |= IB_SEND_IP_CSUM;
	wr.ah = ah->ah;
	wr.remote_qpn = qpn;
	wr.remote_qkey = priv->qkey;

	ret = ib_post_send(priv->qp, &wr.wr, NULL);
	if (unlikely(ret)) {
		ipoib_warn_rl(priv, "send not posted: %d\n", ret);
		ipoib_tx_buf_free(priv, tx);
		dev->stats.tx_errors++;
		return ret;
	}
	ah->last_send = ++priv->tx_head;
	ipoib_tx_posted(priv);
	return 0;
}

static void ipoib_tx_one(struct ipoib_dev *priv, struct ib_wc *wc)
{
	struct net_device *dev = priv->dev;
	unsigned int idx = wc->wr_id;
	struct ipoib_tx_buf *tx;

	if (unlikely(idx >= ipoib_sendq_size || !priv->tx_ring[idx].skb)) {
		ipoib_warn_rl(priv, "send completion for slot %u of %u\n",
			      idx, ipoib_sendq_size);
		return;
	}
	tx = &priv->tx_ring[idx];
	ipoib_tx_unmap(priv, tx);
	if (likely(wc->status == IB_WC_SUCCESS)) {
		dev->stats.tx_packets++;
		dev->stats.tx_bytes += tx->skb->len;
	} else {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			ipoib_warn_rl(priv, "send failed: %s (vendor error %#x)\n",
				      ib_wc_status_msg(wc->status), wc->vendor_err);
		dev->stats.tx_errors++;
	}
	dev_kfree_skb_any(tx->skb);
	tx->skb = NULL;
	/* the ring slot is free once tx_tail moved past it */
	smp_store_release(&priv->tx_tail, priv->tx_tail + 1);
	ipoib_tx_done(priv);
}

void ipoib_send_comp(struct ib_cq *cq, void *ctx)
{
	struct ipoib_dev *priv = ctx;

	napi_schedule(&priv->send_napi);
}

int ipoib_send_poll(struct napi_struct *napi, int budget)
{
	struct ipoib_dev *priv = container_of(napi, struct ipoib_dev, send_napi);
	struct ib_wc wcs[16];
	int done = 0, n, i;

	while (done < budget) {
		n = ib_poll_cq(priv->send_cq, min_t(int, ARRAY_SIZE(wcs),
						    budget - done), wcs);
		for (i = 0; i < n; i++) {
			if (wcs[i].wr_id & IPOIB_OP_CM)
				ipoib_cm_tx_wc(priv, &wcs[i]);
			else
				ipoib_tx_one(priv, &wcs[i]);
		}
		done += max(n, 0);
		if (n < (int)ARRAY_SIZE(wcs))
			break;
	}
	if (done < budget && napi_complete_done(napi, done) &&
	    ib_req_notify_cq(priv->send_cq, IB_CQ_NEXT_COMP |
			     IB_CQ_REPORT_MISSED_EVENTS) > 0)
		napi_schedule(napi);
	return done;
}

/* --- the QP's states ------------------------------------------------------ */

static int ipoib_qp_to_rts(struct ipoib_dev *priv)
{
	struct ib_qp_attr attr = {};
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.qkey = 0;
	attr.port_num = priv->port;
	attr.pkey_index = priv->pkey_index;
	ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE | IB_QP_QKEY |
			   IB_QP_PORT | IB_QP_PKEY_INDEX);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(priv->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

static void ipoib_qp_reset(struct ipoib_dev *priv)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };

	if (ib_modify_qp(priv->qp, &attr, IB_QP_STATE))
		ipoib_warn(priv, "the UD QP did not go to RESET\n");
}

/*
 * [sleep, RTNL] The QP to RTS with every receive buffer posted, NAPI on.
 * A P_Key missing from the port's table is not an error: the interface
 * stays without carrier until a P_Key change brings the P_Key
 * (ipoib_flush_heavy).
 */
int ipoib_ib_open(struct ipoib_dev *priv)
{
	unsigned int i;
	int ret;

	ASSERT_RTNL();
	if (test_bit(IPOIB_FLAG_QP_READY, &priv->flags))
		return 0;
	if (ipoib_check_pkey(priv))
		return 0;
	ret = ipoib_qp_to_rts(priv);
	if (ret) {
		ipoib_warn(priv, "the UD QP did not go to RTS: %d\n", ret);
		goto err_reset;
	}
	for (i = 0; i < ipoib_recvq_size; i++) {
		ret = ipoib_rx_alloc(priv, i, GFP_KERNEL);
		if (!ret)
			ret = ipoib_rx_post(priv, i);
		if (ret) {
			ipoib_warn(priv, "receive buffer %u: %d\n", i, ret);
			goto err_rx;
		}
	}
	napi_enable(&priv->recv_napi);
	napi_enable(&priv->send_napi);
	set_bit(IPOIB_FLAG_QP_READY, &priv->flags);
	ib_req_notify_cq(priv->recv_cq, IB_CQ_NEXT_COMP);
	ib_req_notify_cq(priv->send_cq, IB_CQ_NEXT_COMP);
	queue_delayed_work(priv->wq, &priv->ah_reap_task, HZ);
	queue_delayed_work(priv->wq, &priv->neigh_gc_task, HZ);
	return 0;

err_rx:
	ipoib_qp_reset(priv);
	for (i = 0; i < ipoib_recvq_size; i++)
		ipoib_rx_free(priv, i);
	return ret;
err_reset:
	ipoib_qp_reset(priv);
	return ret;
}

/* what the drain still waits for */
static bool ipoib_drained(struct ipoib_dev *priv)
{
	unsigned int i;

	if (priv->tx_head != priv->tx_tail)
		return false;
	for (i = 0; i < ipoib_recvq_size; i++)
		if (priv->rx_ring[i].skb)
			return false;
	return true;
}

/* polls both CQs in the NAPI contexts' place, every completion a flush */
static void ipoib_drain_cqs(struct ipoib_dev *priv)
{
	struct ib_wc wcs[IPOIB_NUM_WC];
	int n, i;

	local_bh_disable();
	while ((n = ib_poll_cq(priv->recv_cq, IPOIB_NUM_WC, wcs)) > 0)
		for (i = 0; i < n; i++) {
			if (wcs[i].wr_id & IPOIB_OP_CM)
				ipoib_cm_rx_wc(priv, &wcs[i], true);
			else
				ipoib_rx_one(priv, &wcs[i], true);
		}
	while ((n = ib_poll_cq(priv->send_cq, IPOIB_NUM_WC, wcs)) > 0)
		for (i = 0; i < n; i++) {
			if (wcs[i].wr_id & IPOIB_OP_CM)
				ipoib_cm_tx_wc(priv, &wcs[i]);
			else
				ipoib_tx_one(priv, &wcs[i]);
		}
	local_bh_enable();
}

/*
 * [sleep, RTNL] The QP to ERR, every posted buffer back (5 s at most), the
 * QP to RESET and NAPI off.  The callers left the groups and flushed the
 * paths first; the AHs they dropped go here.
 */
void ipoib_ib_stop(struct ipoib_dev *priv)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	unsigned long until = jiffies + 5 * HZ;
	unsigned int i;

	ASSERT_RTNL();
	if (!test_and_clear_bit(IPOIB_FLAG_QP_READY, &priv->flags))
		return;
	cancel_delayed_work_sync(&priv->ah_reap_task);
	cancel_delayed_work_sync(&priv->neigh_gc_task);
	napi_disable(&priv->recv_napi);
	napi_disable(&priv->send_napi);
	if (ib_modify_qp(priv->qp, &attr, IB_QP_STATE))
		ipoib_warn(priv, "the UD QP did not go to ERR\n");
	for (;;) {
		ipoib_drain_cqs(priv);
		if (ipoib_drained(priv))
			break;
		if (time_after(jiffies, until)) {
			ipoib_warn(priv, "%u sends and some receives still posted after 5 s\n",
				   priv->tx_head - priv->tx_tail);
			break;
		}
		usleep_range(1000, 2000);
	}
	ipoib_qp_reset(priv);
	ipoib_drain_cqs(priv);
	/* after RESET the card no longer touches what is left */
	for (i = 0; i < ipoib_recvq_size; i++)
		ipoib_rx_free(priv, i);
	while (priv->tx_tail != priv->tx_head) {
		ipoib_tx_buf_free(priv, &priv->tx_ring[priv->tx_tail &
						       (ipoib_sendq_size - 1)]);
		priv->tx_tail++;
		priv->global_tx_tail++;
	}
	ipoib_ah_reap(priv, true);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * RMPP receiver (IBA 13.6.4) for agents whose RMPP ib_mad does: DATA
 * segments of one message (same TID, class and source) are collected in
 * order and handed to the agent as one receive once the LAST one is in,
 * every segment on its rmpp_list.  The receiver ACKs the first segment,
 * each time the window it granted is filled, the last segment and any
 * duplicate (so a sender whose ACK was lost moves on); the window grows by
 * MAD_RMPP_WINDOW segments per ACK.  A segment out of order is dropped (the
 * sender resends from the last ACK).  A finished message is remembered for
 * a while to re-ACK its segments; an unfinished one is dropped after
 * MAD_RMPP_RX_TIMEOUT of silence.
 *
 * What a remote node can make the agent hold is bounded.  A response is
 * reassembled only if it answers a request of the agent that waits for it
 * (anything else is dropped before a byte is kept), so there are no more
 * of them than the agent has requests out; each is at most
 * MAD_RMPP_RX_RESP_SEGS segments (about 14 MB of payload: the SA's tables
 * of a large subnet).  Requests, which any node may send, are reassembled
 * at most MAD_RMPP_RX_REQS at a time, each at most MAD_RMPP_RX_REQ_SEGS
 * segments.  A message beyond its bound (announced by the first segment's
 * payload length, or grown past it) or one reassembly too many is answered
 * with a STOP (IBA: the receiver is out of resources) and dropped.  At most
 * MAD_RMPP_RX_LINGERS finished messages are remembered; the oldest goes.
 */
#include <linux/slab.h>

#include "mad_priv.h"

#define MAD_RMPP_WINDOW		64
#define MAD_RMPP_RX_TIMEOUT	(10 * HZ)	/* inactivity of a reassembly */
#define MAD_RMPP_RX_LINGER	(4 * HZ)	/* a finished one, for re-ACKs */
#define MAD_RMPP_RX_RESP_SEGS	65536
#define MAD_RMPP_RX_REQS	16
#define MAD_RMPP_RX_REQ_SEGS	1024
#define MAD_RMPP_RX_LINGERS	256

struct mad_rmpp_rx {
	struct list_head	entry;		/* agent->rmpp_recvs (agent lock) */
	__be64			tid;
	u8			mgmt_class;
	u32			slid;
	u32			src_qp;
	bool			response;	/* answers a request of the agent */
	int			max_segs;	/* the bound of its kind */
	struct mad_recv		*first;		/* NULL once delivered */
	struct mad_recv		*last;
	int			last_seg;	/* in order so far */
	int			newwin;		/* last segment granted */
	bool			complete;
	unsigned long		expires;
	/* what an ACK is built from: the first segment's origin and header */
	struct ib_wc		wc;
	struct ib_grh		grh;
	struct ib_mad		hdr;
};

/*
 * An ACK, STOP or ABORT to send once the agent lock is dropped, addressed
 * as the MAD in hdr (taken under the lock from a reassembly or a segment)
 * came: a copy, as neither outlives the lock.
 */
struct mad_rmpp_reply {
	u8		type;
	u8		status;
	u32		seg;
	u32		newwin;
	struct ib_wc	wc;
	struct ib_grh	grh;
	struct ib_mad	*hdr;		/* the caller's buffer; NULL: none */
};

static void mad_rx_reply(struct mad_rmpp_reply *reply, u8 type, u8 status, u32 seg,
			 u32 newwin, const struct ib_wc *wc, const struct ib_grh *grh,
			 const struct ib_mad *hdr)
{
	if (!reply->hdr)
		return;		/* no memory for it: the sender retries */
	reply->type = type;
	reply->status = status;
	reply->seg = seg;
	reply->newwin = newwin;
	reply->wc = *wc;
	reply->grh = *grh;
	memcpy(reply->hdr, hdr, sizeof(*reply->hdr));
}

static void mad_rx_ack(struct mad_rmpp_reply *reply, const struct mad_rmpp_rx *rx)
{
	mad_rx_reply(reply, IB_MGMT_RMPP_TYPE_ACK, 0, rx->last_seg, rx->newwin,
		     &rx->wc, &rx->grh, &rx->hdr);
}

/* the sender is told to stop: the message is beyond what we keep */
static void mad_rx_stop(struct mad_rmpp_reply *reply, const struct mad_recv *r)
{
	mad_rx_reply(reply, IB_MGMT_RMPP_TYPE_STOP, IB_MGMT_RMPP_STATUS_RESX, 0, 0,
		     &r->wc, r->rwc.recv_buf.grh, r->rwc.recv_buf.mad);
}

static struct mad_rmpp_rx *mad_rx_find(struct mad_agent_priv *ap, const struct mad_recv *r)
{
	const struct ib_mad_hdr *hdr = &r->rwc.recv_buf.mad->mad_hdr;
	struct mad_rmpp_rx *rx;

	lockdep_assert_held(&ap->lock);
	list_for_each_entry(rx, &ap->rmpp_recvs, entry) {
		if (rx->tid == hdr->tid && rx->mgmt_class == hdr->mgmt_class &&
		    rx->slid == r->wc.slid && rx->src_qp == r->wc.src_qp)
			return rx;
	}
	return NULL;
}

static void mad_rx_free(struct mad_rmpp_rx *rx)
{
	if (rx->first)
		ib_free_recv_mad(&rx->first->rwc);
	kfree(rx);
}

/*
 * The length an agent sees: the first header and every payload byte.  It
 * fits in an int: last_seg is bounded by MAD_RMPP_RX_RESP_SEGS.
 */
static int mad_rx_len(const struct mad_rmpp_rx *rx)
{
	const struct ib_rmpp_hdr *rh = mad_rmpp_hdr(rx->last->rwc.recv_buf.mad);
	int hdr_size = ib_get_mad_data_offset(rx->mgmt_class);
	int pad = MAD_RMPP_PAYLOAD - (int)be32_to_cpu(rh->paylen_newwin);

	BUILD_BUG_ON((u64)MAD_RMPP_RX_RESP_SEGS * IB_MGMT_MAD_SIZE > INT_MAX);
	if (pad < 0 || pad > MAD_RMPP_PAYLOAD)
		pad = 0;
	return hdr_size + rx->last_seg * (IB_MGMT_MAD_SIZE - hdr_size) - pad;
}

static void mad_rx_append(struct mad_rmpp_rx *rx, struct mad_recv *r)
{
	list_del(&r->rwc.recv_buf.list);
	list_add_tail(&r->rwc.recv_buf.list, &rx->first->rwc.rmpp_list);
	rx->last = r;
}

/*
 * agent lock held: may the first segment r start a reassembly?  0, or
 * -ENOENT for a response to nothing the agent waits for, -ENOSPC for one
 * beyond a bound.  *response says which kind it is.
 */
static int mad_rx_admit(struct mad_agent_priv *ap, const struct mad_recv *r,
			bool *response)
{
	const struct ib_mad_hdr *hdr = &r->rwc.recv_buf.mad->mad_hdr;
	u32 paylen = be32_to_cpu(mad_rmpp_hdr(hdr)->paylen_newwin);
	struct mad_rmpp_rx *rx;
	int reqs = 0;

	lockdep_assert_held(&ap->lock);
	*response = ib_response_mad(hdr);
	if (*response) {
		if (!mad_match_send(ap, hdr))
			return -ENOENT;
		return paylen > (u32)MAD_RMPP_RX_RESP_SEGS * MAD_RMPP_PAYLOAD ? -ENOSPC : 0;
	}
	if (paylen > (u32)MAD_RMPP_RX_REQ_SEGS * MAD_RMPP_PAYLOAD)
		return -ENOSPC;
	list_for_each_entry(rx, &ap->rmpp_recvs, entry)
		reqs += !rx->complete && !rx->response;
	return reqs >= MAD_RMPP_RX_REQS ? -ENOSPC : 0;
}

static void mad_rx_start(struct mad_agent_priv *ap, struct mad_rmpp_rx *rx,
			 struct mad_recv *r, bool response)
{
	const struct ib_mad_hdr *hdr = recv_hdr(r);

	rx->tid = hdr->tid;
	rx->mgmt_class = hdr->mgmt_class;
	rx->slid = r->wc.slid;
	rx->src_qp = r->wc.src_qp;
	rx->response = response;
	rx->max_segs = response ? MAD_RMPP_RX_RESP_SEGS : MAD_RMPP_RX_REQ_SEGS;
	rx->first = r;
	rx->last = r;
	rx->last_seg = 1;
	rx->newwin = 1;
	rx->wc = r->wc;
	memcpy(&rx->grh, r->rwc.recv_buf.grh, sizeof(rx->grh));
	memcpy(&rx->hdr, r->rwc.recv_buf.mad, sizeof(rx->hdr));
	list_add_tail(&rx->entry, &ap->rmpp_recvs);
}

/* agent lock held: rx is finished; the oldest finished one beyond the bound goes */
static void mad_rx_finished(struct mad_agent_priv *ap, struct mad_rmpp_rx *rx,
			    struct list_head *dead)
{
	struct mad_rmpp_rx *old, *oldest = NULL;
	int done = 0;

	rx->complete = true;
	list_for_each_entry(old, &ap->rmpp_recvs, entry) {
		if (!old->complete)
			continue;
		if (!oldest && old != rx)
			oldest = old;
		done++;
	}
	if (done > MAD_RMPP_RX_LINGERS && oldest)
		list_move_tail(&oldest->entry, dead);
}

/*
 * agent lock held: one DATA segment.  Returns the message to deliver (its
 * first segment) or NULL; *reply says which ACK (or STOP) to send;
 * reassemblies given up go to dead; r is taken.
 */
static struct mad_recv *mad_rx_data(struct mad_agent_priv *ap, struct mad_recv *r,
				    struct mad_rmpp_rx **rx_new,
				    struct mad_rmpp_reply *reply,
				    struct list_head *dead)
{
	struct ib_rmpp_hdr *rh = mad_rmpp_hdr(r->rwc.recv_buf.mad);
	u8 flags = ib_get_rmpp_flags(rh);
	int seg = be32_to_cpu(rh->seg_num);
	struct mad_rmpp_rx *rx = mad_rx_find(ap, r);
	struct mad_recv *msg = NULL;
	bool response = false;
	int ret;

	lockdep_assert_held(&ap->lock);
	if (!rx) {
		if (seg != 1 || !(flags & IB_MGMT_RMPP_FLAG_FIRST) || !*rx_new) {
			mad_dbg_rl("RMPP segment %d without a first one dropped\n", seg);
			ib_free_recv_mad(&r->rwc);
			return NULL;
		}
		ret = mad_rx_admit(ap, r, &response);
		if (ret) {
			if (ret == -ENOSPC)
				mad_rx_stop(reply, r);
			mad_dbg_rl("RMPP %s tid 0x%llx not reassembled: %s\n",
				   response ? "response" : "request",
				   be64_to_cpu(recv_hdr(r)->tid),
				   ret == -ENOSPC ? "beyond its bounds" :
				   "it answers no request");
			ib_free_recv_mad(&r->rwc);
			return NULL;
		}
		rx = *rx_new;
		*rx_new = NULL;
		mad_rx_start(ap, rx, r, response);
	} else if (rx->complete || seg <= rx->last_seg) {
		/* a duplicate: tell the sender again where we are */
		ib_free_recv_mad(&r->rwc);
		mad_rx_ack(reply, rx);
		return NULL;
	} else if (seg != rx->last_seg + 1 || seg > rx->newwin) {
		mad_dbg_rl("RMPP segment %d out of order (have %d) dropped\n",
			   seg, rx->last_seg);
		ib_free_recv_mad(&r->rwc);
		return NULL;
	} else if (seg > rx->max_segs) {
		mad_dbg_rl("RMPP message tid 0x%llx longer than %d segments dropped\n",
			   be64_to_cpu(rx->tid), rx->max_segs);
		mad_rx_stop(reply, r);
		ib_free_recv_mad(&r->rwc);
		list_move_tail(&rx->entry, dead);
		return NULL;
	}
	if (rx->first != r) {
		mad_rx_append(rx, r);
		rx->last_seg = seg;
	}

	rx->expires = jiffies + MAD_RMPP_RX_TIMEOUT;
	if (flags & IB_MGMT_RMPP_FLAG_LAST) {
		msg = rx->first;
		msg->rwc.mad_len = mad_rx_len(rx);
		rx->first = NULL;
		rx->last = NULL;
		rx->newwin = max(rx->newwin, rx->last_seg);
		rx->expires = jiffies + MAD_RMPP_RX_LINGER;
		mad_rx_finished(ap, rx, dead);
	} else if (seg == rx->newwin) {
		rx->newwin += MAD_RMPP_WINDOW;
	} else {
		return NULL;
	}
	mad_rx_ack(reply, rx);
	mad_timer_arm(ap, rx->expires);
	return msg;
}

static void mad_rx_free_list(struct list_head *dead)
{
	struct mad_rmpp_rx *rx, *tmp;

	list_for_each_entry_safe(rx, tmp, dead, entry) {
		list_del(&rx->entry);
		mad_rx_free(rx);
	}
}

/*
 * [sleep] An active RMPP MAD for ap (a kernel-RMPP agent).  Takes r and the
 * caller's reference on ap and returns true, or returns false for a MAD
 * that is not RMPP's business (delivered as it is).
 */
bool mad_rmpp_recv(struct mad_agent_priv *ap, struct mad_recv *r)
{
	const struct ib_rmpp_hdr *rh = mad_rmpp_hdr(r->rwc.recv_buf.mad);
	struct mad_port *port = ap->port;
	struct mad_rmpp_reply reply = {};
	struct mad_rmpp_rx *rx_new;
	struct mad_recv *msg;
	LIST_HEAD(dead);

	if (rh->rmpp_type != IB_MGMT_RMPP_TYPE_DATA) {
		mad_rmpp_ctl_recv(ap, r);
		return true;
	}
	if (rh->rmpp_version != IB_MGMT_RMPP_VERSION) {
		mad_rmpp_send_ctl(port, ap->mqp, &r->wc, r->rwc.recv_buf.grh,
				  r->rwc.recv_buf.mad, IB_MGMT_RMPP_TYPE_ABORT,
				  IB_MGMT_RMPP_STATUS_UNV, 0, 0);
		ib_free_recv_mad(&r->rwc);
		mad_agent_put(ap);
		return true;
	}

	rx_new = kzalloc(sizeof(*rx_new), GFP_KERNEL);
	reply.hdr = kmalloc(sizeof(*reply.hdr), GFP_KERNEL);
	spin_lock_irq(&ap->lock);
	if (ap->dying) {
		spin_unlock_irq(&ap->lock);
		ib_free_recv_mad(&r->rwc);
		msg = NULL;
		goto out;
	}
	msg = mad_rx_data(ap, r, &rx_new, &reply, &dead);
	spin_unlock_irq(&ap->lock);

	if (reply.type)
		mad_rmpp_send_ctl(port, ap->mqp, &reply.wc, &reply.grh, reply.hdr,
				  reply.type, reply.status, reply.seg, reply.newwin);
out:
	mad_rx_free_list(&dead);
	kfree(reply.hdr);
	kfree(rx_new);
	if (msg)
		mad_deliver_matched(ap, msg);
	else
		mad_agent_put(ap);
	return true;
}

/* [sleep] the timeout work: drops reassemblies that went silent */
void mad_rmpp_recv_timeout(struct mad_agent_priv *ap)
{
	struct mad_rmpp_rx *rx, *tmp;
	unsigned long now = jiffies;
	LIST_HEAD(dead);

	spin_lock_irq(&ap->lock);
	list_for_each_entry_safe(rx, tmp, &ap->rmpp_recvs, entry) {
		if (time_after_eq(now, rx->expires))
			list_move_tail(&rx->entry, &dead);
		else
			mad_timer_arm(ap, rx->expires);
	}
	spin_unlock_irq(&ap->lock);
	list_for_each_entry(rx, &dead, entry)
		if (!rx->complete)
			mad_dbg_rl("RMPP reassembly timed out at segment %d\n", rx->last_seg);
	mad_rx_free_list(&dead);
}

/* [sleep] unregistration: every reassembly goes */
void mad_rmpp_recv_flush(struct mad_agent_priv *ap)
{
	LIST_HEAD(dead);

	spin_lock_irq(&ap->lock);
	list_splice_init(&ap->rmpp_recvs, &dead);
	spin_unlock_irq(&ap->lock);
	mad_rx_free_list(&dead);
}

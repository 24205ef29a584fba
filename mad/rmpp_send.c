// SPDX-License-Identifier: GPL-2.0
/*
 * RMPP sender (IBA 13.6.3): a send created with rmpp_active goes out as
 * seg_count DATA segments, each with the send's headers and its RMPP
 * header (ACTIVE, FIRST on segment 1 with the total payload length, LAST
 * on the final one with its own payload length).  Segments go out one WR
 * at a time up to the window the receiver grants in its ACKs (1 until the
 * first ACK); the send is done when the last segment is acknowledged (and,
 * for a request, its response has arrived).  A wait for an ACK that times
 * out resends from the first unacknowledged segment, up to retries times.
 *
 * Everything here runs under the agent's lock.
 */
#include "mad_priv.h"

#define MAD_RMPP_ACK_TIMEOUT_MS	2000	/* when the send has no timeout_ms */

/* payload bytes the RMPP header counts in one segment, and the padding */
static int mad_rmpp_pad(const struct mad_send_wr *sw)
{
	return sw->buf.seg_count * sw->buf.seg_size - sw->buf.data_len;
}

/* agent lock held: builds segment seg in the wire buffer */
void mad_rmpp_fill_segment(struct mad_send_wr *sw, int seg)
{
	const struct ib_mad_send_buf *b = &sw->buf;
	struct ib_rmpp_hdr *rh = mad_rmpp_hdr(sw->wire);
	u8 flags = IB_MGMT_RMPP_FLAG_ACTIVE;
	u32 paylen = 0;

	lockdep_assert_held(&sw->agent->lock);
	memcpy(sw->wire, b->mad, b->hdr_len);
	memcpy(sw->wire + b->hdr_len, ib_get_rmpp_segment(&sw->buf, seg), b->seg_size);
	rh->rmpp_version = sw->agent->agent.rmpp_version;
	rh->rmpp_type = IB_MGMT_RMPP_TYPE_DATA;
	rh->rmpp_status = 0;
	if (seg == 1) {
		flags |= IB_MGMT_RMPP_FLAG_FIRST;
		paylen = b->seg_count * MAD_RMPP_PAYLOAD - mad_rmpp_pad(sw);
	}
	if (seg == b->seg_count) {
		flags |= IB_MGMT_RMPP_FLAG_LAST;
		paylen = MAD_RMPP_PAYLOAD - mad_rmpp_pad(sw);
	}
	ib_set_rmpp_flags(rh, flags);
	rh->seg_num = cpu_to_be32(seg);
	rh->paylen_newwin = cpu_to_be32(paylen);
}

static int mad_rmpp_ack_timeout(const struct mad_send_wr *sw)
{
	return sw->buf.timeout_ms ? sw->buf.timeout_ms : MAD_RMPP_ACK_TIMEOUT_MS;
}

/* agent lock held: ib_post_send_mad() of an RMPP send */
int mad_rmpp_send_start(struct mad_send_wr *sw)
{
	lockdep_assert_held(&sw->agent->lock);
	if (!ib_mad_kernel_rmpp_agent(&sw->agent->agent))
		return -EINVAL;
	sw->seg_last_sent = 0;
	sw->seg_last_ack = 0;
	sw->seg_window = 1;
	sw->seg_xmit = 1;
	sw->rmpp_acked = false;
	return 0;
}

/* agent lock held, no WR out: send what the window allows, or wait for an ACK */
static void mad_rmpp_send_more(struct mad_send_wr *sw)
{
	int limit = min(sw->seg_window, sw->buf.seg_count);

	if (sw->seg_last_sent < limit) {
		sw->timing = false;
		sw->seg_xmit = sw->seg_last_sent + 1;
		if (mad_xmit(sw))
			mad_send_complete(sw, IB_WC_GENERAL_ERR);
		return;
	}
	mad_timing_start(sw, mad_rmpp_ack_timeout(sw));
}

/* agent lock held: the WR of segment seg_xmit went out */
void mad_rmpp_send_sent(struct mad_send_wr *sw)
{
	lockdep_assert_held(&sw->agent->lock);
	sw->seg_last_sent = max(sw->seg_last_sent, sw->seg_xmit);
	mad_rmpp_send_more(sw);
}

/* agent lock held: every segment is acknowledged */
static void mad_rmpp_all_acked(struct mad_send_wr *sw)
{
	sw->rmpp_acked = true;
	sw->timing = false;
	if (sw->on_wire)
		return;		/* mad_send_sent() finishes it */
	if (!mad_send_waits_response(sw))
		mad_send_complete(sw, IB_WC_SUCCESS);
	else
		mad_timing_start(sw, sw->buf.timeout_ms);
}

/* agent lock held: a wait expired; true when handled (always) */
bool mad_rmpp_send_timeout(struct mad_send_wr *sw)
{
	lockdep_assert_held(&sw->agent->lock);
	if (sw->retries_left <= 0) {
		mad_send_complete(sw, IB_WC_RESP_TIMEOUT_ERR);
		return true;
	}
	sw->retries_left--;
	if (sw->rmpp_acked) {
		/* sent whole, no response: send the whole message again */
		mad_rmpp_send_start(sw);
	} else {
		sw->seg_last_sent = sw->seg_last_ack;
	}
	mad_rmpp_send_more(sw);
	return true;
}

static struct mad_send_wr *mad_rmpp_find_send(struct mad_agent_priv *ap,
					      const struct ib_mad_hdr *hdr)
{
	struct mad_send_wr *sw;

	list_for_each_entry(sw, &ap->sends, agent_entry) {
		const struct ib_mad_hdr *h = sw->buf.mad;

		if (sw->rmpp && !sw->done && h->tid == hdr->tid &&
		    h->mgmt_class == hdr->mgmt_class)
			return sw;
	}
	return NULL;
}

/* agent lock held: an ACK for sw */
static void mad_rmpp_ack(struct mad_send_wr *sw, u32 seg, u32 newwin)
{
	/* the ACK of a segment may overtake the completion of its WR */
	int sent = sw->on_wire ? max(sw->seg_last_sent, sw->seg_xmit) : sw->seg_last_sent;

	if (sw->rmpp_acked || seg > sw->buf.seg_count || newwin < seg || seg > sent) {
		mad_dbg_rl("RMPP ACK seg %u newwin %u ignored (sent %d of %d)\n",
			   seg, newwin, sw->seg_last_sent, sw->buf.seg_count);
		return;
	}
	if (seg > sw->seg_last_ack) {
		sw->seg_last_ack = seg;
		sw->retries_left = sw->max_retries;
	}
	sw->seg_window = max_t(u32, sw->seg_window, min_t(u32, newwin, INT_MAX));
	if (sw->seg_last_ack == sw->buf.seg_count) {
		mad_rmpp_all_acked(sw);
		return;
	}
	if (!sw->on_wire)
		mad_rmpp_send_more(sw);
}

/*
 * [sleep] An ACK, STOP or ABORT for one of ap's RMPP sends.  Takes r and
 * the caller's reference on ap.
 */
void mad_rmpp_ctl_recv(struct mad_agent_priv *ap, struct mad_recv *r)
{
	struct ib_rmpp_hdr *rh = mad_rmpp_hdr(r->rwc.recv_buf.mad);
	struct mad_send_wr *sw;

	spin_lock_irq(&ap->lock);
	sw = mad_rmpp_find_send(ap, recv_hdr(r));
	if (!sw) {
		mad_dbg_rl("RMPP type %u for no send\n", rh->rmpp_type);
	} else if (rh->rmpp_type == IB_MGMT_RMPP_TYPE_ACK) {
		mad_rmpp_ack(sw, be32_to_cpu(rh->seg_num),
			     be32_to_cpu(rh->paylen_newwin));
	} else {
		/* STOP or ABORT: the receiver gave up on the message */
		mad_dbg_rl("RMPP %s status %u from the receiver\n",
			   rh->rmpp_type == IB_MGMT_RMPP_TYPE_STOP ? "STOP" : "ABORT",
			   rh->rmpp_status);
		if (sw->status == IB_WC_SUCCESS)
			sw->status = IB_WC_REM_ABORT_ERR;
		sw->timing = false;
		if (!sw->on_wire)
			mad_send_complete(sw, sw->status);
	}
	spin_unlock_irq(&ap->lock);
	ib_free_recv_mad(&r->rwc);
	mad_agent_put(ap);
}

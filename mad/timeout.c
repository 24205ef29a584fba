// SPDX-License-Identifier: GPL-2.0
/*
 * Requests waiting for their response: timeouts and retries (the agent's
 * delayed work), matching a response to its request, cancel and modify.
 */
#include "mad_priv.h"

/* agent lock held: makes the agent's timeout work run by deadline */
void mad_timer_arm(struct mad_agent_priv *ap, unsigned long deadline)
{
	unsigned long now = jiffies;

	lockdep_assert_held(&ap->lock);
	if (ap->dying)
		return;
	/* an earlier deadline must pull the work in; later ones rescan */
	if (!delayed_work_pending(&ap->timeout_work) ||
	    time_before(deadline, ap->timeout_work.timer.expires))
		mod_delayed_work(ap->port->wq, &ap->timeout_work,
				 time_after(deadline, now) ? deadline - now : 0);
}

/* agent lock held: sw was sent and now waits up to timeout_ms */
void mad_timing_start(struct mad_send_wr *sw, int timeout_ms)
{
	lockdep_assert_held(&sw->agent->lock);
	sw->timing = true;
	sw->deadline = jiffies + msecs_to_jiffies(timeout_ms);
	mad_timer_arm(sw->agent, sw->deadline);
}

/* agent lock held: sw's wait expired */
static void mad_expired(struct mad_send_wr *sw)
{
	int ret;

	sw->timing = false;
	if (sw->rmpp && mad_rmpp_send_timeout(sw))
		return;
	if (sw->retries_left <= 0) {
		mad_send_complete(sw, IB_WC_RESP_TIMEOUT_ERR);
		return;
	}
	sw->retries_left--;
	sw->buf.retries++;
	sw->responded = false;
	ret = mad_xmit(sw);
	if (ret)
		mad_send_complete(sw, IB_WC_GENERAL_ERR);
}

void mad_timeout_work(struct work_struct *work)
{
	struct mad_agent_priv *ap = container_of(to_delayed_work(work),
						 struct mad_agent_priv, timeout_work);
	struct mad_send_wr *sw, *tmp;
	unsigned long next = 0, now;
	bool more = false;

	spin_lock_irq(&ap->lock);
	now = jiffies;
	list_for_each_entry_safe(sw, tmp, &ap->sends, agent_entry) {
		if (!sw->timing)
			continue;
		if (time_after_eq(now, sw->deadline)) {
			mad_expired(sw);
			continue;
		}
		if (!more || time_before(sw->deadline, next))
			next = sw->deadline;
		more = true;
	}
	if (more && !ap->dying)
		mod_delayed_work(ap->port->wq, &ap->timeout_work,
				 time_after(next, now) ? next - now : 0);
	spin_unlock_irq(&ap->lock);
	mad_rmpp_recv_timeout(ap);
}

/*
 * agent lock held: the posted request hdr answers, or NULL.  A canceled
 * request (ib_cancel_mad(), ib_modify_mad() to 0) waits for nothing any
 * more, even while its WR is still out: its response is dropped.
 */
struct mad_send_wr *mad_match_send(struct mad_agent_priv *ap,
				   const struct ib_mad_hdr *hdr)
{
	struct mad_send_wr *sw;

	lockdep_assert_held(&ap->lock);
	list_for_each_entry(sw, &ap->sends, agent_entry) {
		const struct ib_mad_hdr *req = sw->buf.mad;

		if (sw->done || sw->responded || sw->status != IB_WC_SUCCESS ||
		    req->tid != hdr->tid || req->mgmt_class != hdr->mgmt_class ||
		    ib_response_mad(req))
			continue;
		if (!sw->buf.timeout_ms && !sw->rmpp)
			continue;
		return sw;
	}
	return NULL;
}

/* agent lock held: the response to sw is being delivered */
void mad_response_arrived(struct mad_send_wr *sw)
{
	lockdep_assert_held(&sw->agent->lock);
	sw->responded = true;
	sw->timing = false;
	if (!sw->on_wire)
		mad_send_complete(sw, sw->status);
}

/* agent lock held: completes sw with IB_WC_WR_FLUSH_ERR, now or when its WR is back */
static void mad_cancel_locked(struct mad_send_wr *sw)
{
	lockdep_assert_held(&sw->agent->lock);
	if (!sw->posted || sw->done)
		return;
	if (sw->status == IB_WC_SUCCESS)
		sw->status = IB_WC_WR_FLUSH_ERR;
	sw->timing = false;
	if (!sw->on_wire)
		mad_send_complete(sw, sw->status);
}

/* [any] every send of the agent */
void mad_cancel_all(struct mad_agent_priv *ap)
{
	struct mad_send_wr *sw, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&ap->lock, flags);
	list_for_each_entry_safe(sw, tmp, &ap->sends, agent_entry)
		mad_cancel_locked(sw);
	spin_unlock_irqrestore(&ap->lock, flags);
}

int ib_modify_mad(struct ib_mad_send_buf *send_buf, u32 timeout_ms)
{
	struct mad_send_wr *sw;
	struct mad_agent_priv *ap;
	unsigned long flags;
	int ret = 0;

	if (!send_buf || !send_buf->mad_agent)
		return -EINVAL;
	sw = to_send_wr(send_buf);
	ap = sw->agent;
	spin_lock_irqsave(&ap->lock, flags);
	if (!sw->posted || sw->done || sw->status != IB_WC_SUCCESS) {
		ret = -EINVAL;
	} else if (!timeout_ms) {
		mad_cancel_locked(sw);
	} else {
		sw->buf.timeout_ms = min_t(u32, timeout_ms, INT_MAX);
		if (sw->timing)
			mad_timing_start(sw, sw->buf.timeout_ms);
	}
	spin_unlock_irqrestore(&ap->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_modify_mad);

// SPDX-License-Identifier: GPL-2.0
/*
 * The MAD layer test client: a response that arrives after its request was
 * canceled (ib_cancel_mad(), ib_modify_mad() to 0) while the request's WR
 * is still out must not reach the agent.  The order of events is forced:
 * port 1's ordered work queue is held by an agent's handler, so whatever
 * the card completes on port 1 waits in its CQ in the card's order.
 */
#include <linux/delay.h>
#include <linux/slab.h>

#include "kmad.h"

/*
 * Holds port 1's ordered work queue (CQ polling, every agent's handlers)
 * from its send handler until released: while it waits, what arrives on
 * port 1 stays in its CQ, in the order the card wrote it.
 */
struct km_blocker {
	struct ib_mad_agent	*agent;
	struct completion	entered;
	struct completion	release;
};

static void km_block_sent(struct ib_mad_agent *agent, struct ib_mad_send_wc *wc)
{
	struct km_blocker *b = agent->context;

	km_send_free(wc->send_buf);
	complete(&b->entered);
	wait_for_completion_timeout(&b->release, msecs_to_jiffies(10000));
}

static void km_block_recv(struct ib_mad_agent *agent, struct ib_mad_send_buf *sb,
			  struct ib_mad_recv_wc *rwc)
{
	ib_free_recv_mad(rwc);
}

/* more sends than ib_mad posts on a QP at once (MAD_SEND_MAX, 128) */
#define KM_FILLERS	160
#define KM_NOBODY	0x3ff		/* a LID no port has */

/*
 * The response to a request arrives after ib_cancel_mad() (or
 * ib_modify_mad() to 0), while the request's own WR is still out: the
 * response is dropped, the send completes once, with the cancel's status.
 * Made to happen in that order: port 1's work queue is held; sends fill
 * its QP so that the request waits behind them (its WR out, not yet on the
 * wire); the request is canceled; port 2 sends a response with its TID
 * (in port 1's CQ before the request's own completion); then port 1 runs.
 */
static void km_cancel_then_response_case(struct km_run *r, struct km_agent *ka,
					 u16 lid1, bool modify, const char *name)
{
	struct ib_mad_send_buf *buf = NULL, *resp;
	struct km_agent *kf = NULL, *kb = NULL;
	struct km_blocker *b;
	const char *why = NULL;
	__be64 tid;
	int i;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	kf = kzalloc(sizeof(*kf), GFP_KERNEL);
	kb = kzalloc(sizeof(*kb), GFP_KERNEL);
	if (!b || !kf || !kb) {
		km_fail(r, name, "no memory");
		goto out_free;
	}
	init_completion(&b->entered);
	init_completion(&b->release);
	b->agent = ib_register_mad_agent(r->dev, 1, IB_QPT_GSI, NULL, 0, km_block_sent,
					 km_block_recv, b, 0);
	if (IS_ERR(b->agent) || km_agent_open(kf, r->dev, 1, IB_QPT_GSI, NULL, 0) ||
	    km_agent_open(kb, r->dev, 2, IB_QPT_GSI, NULL, 0)) {
		km_fail(r, name, "agents");
		goto out;
	}
	kf->free_sends = true;
	kb->free_sends = true;

	/* hold port 1's work queue */
	buf = km_agent_send_buf(b->agent, KM_NOBODY, 1, 0, IB_MGMT_MAD_HDR,
				IB_MGMT_MAD_DATA);
	if (IS_ERR(buf)) {
		why = "no blocker buffer";
		buf = NULL;
		goto out;
	}
	km_gmp_fill(buf->mad, IB_MGMT_CLASS_SUBN_ADM, 2, IB_MGMT_METHOD_REPORT,
		    cpu_to_be16(0x40), 1);
	if (ib_post_send_mad(buf, NULL)) {
		km_send_free(buf);
		why = "blocker not posted";
		goto out;
	}
	buf = NULL;
	if (!km_wait(&b->entered, 5000)) {
		why = "port 1's work queue not held";
		goto out_release;
	}

	/* fill port 1's QP1, then the request waits behind the fillers */
	km_agent_reset(ka);
	for (i = 0; i < KM_FILLERS; i++) {
		if (!km_gmp_post(kf, KM_NOBODY, IB_MGMT_CLASS_SUBN_ADM, 2,
				 IB_MGMT_METHOD_REPORT, cpu_to_be16(0x41), 0, 0)) {
			why = "filler not posted";
			goto out_release;
		}
	}
	buf = km_gmp_post(ka, KM_NOBODY, IB_MGMT_CLASS_PERF_MGMT, 1, IB_MGMT_METHOD_GET,
			  IB_PMA_PORT_COUNTERS, 5000, 0);
	if (!buf) {
		why = "request not posted";
		goto out_release;
	}
	tid = ((struct ib_mad_hdr *)buf->mad)->tid;
	if (!modify) {
		ib_cancel_mad(buf);
	} else if (ib_modify_mad(buf, 0)) {
		why = "ib_modify_mad(0) failed";
		goto out_release;
	}

	/* port 2 answers the canceled request; port 1 holds it in its CQ */
	resp = km_send_buf(kb, lid1, 1, 0, IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA);
	if (IS_ERR(resp)) {
		why = "no response buffer";
		goto out_release;
	}
	km_gmp_fill(resp->mad, IB_MGMT_CLASS_PERF_MGMT, 1, IB_MGMT_METHOD_GET_RESP,
		    IB_PMA_PORT_COUNTERS, 0);
	((struct ib_mad_hdr *)resp->mad)->tid = tid;
	if (ib_post_send_mad(resp, NULL)) {
		km_send_free(resp);
		why = "response not posted";
		goto out_release;
	}
	/* the card delivers a loop-back packet before it completes the send */
	if (!km_wait(&kb->send_done, 5000) || kb->status != IB_WC_SUCCESS)
		why = "the response was not sent";

out_release:
	complete(&b->release);
	if (buf && !km_wait(&ka->send_done, 10000)) {
		why = why ?: "the request never completed";
		ib_cancel_mad(buf);
		if (!km_wait(&ka->send_done, 5000))
			buf = NULL;	/* still posted: not ours to free */
	} else if (buf && !why && (ka->nsend != 1 || ka->status != IB_WC_WR_FLUSH_ERR)) {
		why = "not one completion with IB_WC_WR_FLUSH_ERR";
	} else if (buf && !why && ka->nrecv) {
		why = "the response was delivered after the cancel";
	}
	/* the fillers complete before the test's agents go */
	for (i = 0; i < 200 && READ_ONCE(kf->nsend) < KM_FILLERS; i++)
		msleep(50);
	if (why)
		km_fail(r, name, "%s (%d completions, status %d, %d receives)", why,
			ka->nsend, ka->status, ka->nrecv);
	else
		km_pass(r, name);
out:
	if (!IS_ERR_OR_NULL(b->agent))
		ib_unregister_mad_agent(b->agent);
	km_agent_close(kb);
	km_agent_close(kf);
	km_send_free(buf);
out_free:
	kfree(kb);
	kfree(kf);
	kfree(b);
}

void km_cancel_race_cases(struct km_run *r, struct km_agent *ka, u16 lid1)
{
	km_cancel_then_response_case(r, ka, lid1, false, "gsi-response-after-cancel-dropped");
	km_cancel_then_response_case(r, ka, lid1, true, "gsi-response-after-modify-0-dropped");
}

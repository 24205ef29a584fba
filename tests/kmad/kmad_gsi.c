// SPDX-License-Identifier: GPL-2.0
/*
 * The MAD layer test client: QP1 traffic between the two cabled ports (and
 * to the own LID): the PMA, an unclaimed Get, a request to a test agent,
 * timeouts with retries, cancel, modify, unregistration with a send
 * outstanding, and more sends at once than the QP takes.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "kmad.h"

#define KM_NSENDS	300

void km_gmp_fill(struct ib_mad *mad, u8 mclass, u8 version, u8 method, __be16 attr, u32 tid)
{
	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = mclass;
	mad->mad_hdr.class_version = version;
	mad->mad_hdr.method = method;
	mad->mad_hdr.attr_id = attr;
	mad->mad_hdr.tid = cpu_to_be64(tid);
}

/* posts one GMP from ka to dlid's QP1; the buffer or NULL */
struct ib_mad_send_buf *km_gmp_post(struct km_agent *ka, u16 dlid, u8 mclass, u8 version,
				    u8 method, __be16 attr, int timeout, int retries)
{
	struct ib_mad_send_buf *buf;

	buf = km_send_buf(ka, dlid, 1, 0, IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA);
	if (IS_ERR(buf))
		return NULL;
	km_gmp_fill(buf->mad, mclass, version, method, attr, 0x77000000 | be16_to_cpu(attr));
	buf->timeout_ms = timeout;
	buf->retries = retries;
	if (ib_post_send_mad(buf, NULL)) {
		km_send_free(buf);
		return NULL;
	}
	return buf;
}

static void km_pma_case(struct km_run *r, struct km_agent *ka, u16 dlid, const char *name)
{
	struct ib_mad_send_buf *buf;
	struct ib_mad *mad = NULL;

	km_agent_reset(ka);
	buf = km_gmp_post(ka, dlid, IB_MGMT_CLASS_PERF_MGMT, 1, IB_MGMT_METHOD_GET,
			  IB_PMA_PORT_COUNTERS, 1000, 1);
	if (!buf) {
		km_fail(r, name, "post failed");
		return;
	}
	if (km_wait(&ka->send_done, 5000) && ka->rwc)
		mad = ka->rwc->recv_buf.mad;
	if (!mad)
		km_fail(r, name, "no response (send status %d)", ka->status);
	else if (ka->status != IB_WC_SUCCESS)
		km_fail(r, name, "status %d", ka->status);
	else if (ka->matched != buf || !ka->recv_before_send)
		km_fail(r, name, "response not matched before the send completed");
	else if (mad->mad_hdr.method != IB_MGMT_METHOD_GET_RESP || mad->mad_hdr.status)
		km_fail(r, name, "method 0x%x status 0x%x", mad->mad_hdr.method,
			be16_to_cpu(mad->mad_hdr.status));
	else
		km_pass(r, name);
	km_send_free(buf);
}

/* a test agent for class CM 0x07 v2, method SEND: records what it gets */
static int km_cm_agent(struct km_agent *kb, struct ib_device *dev, u32 port)
{
	struct ib_mad_reg_req req = {
		.mgmt_class = IB_MGMT_CLASS_CM,
		.mgmt_class_version = 2,
	};

	set_bit(IB_MGMT_METHOD_SEND, req.method_mask);
	return km_agent_open(kb, dev, port, IB_QPT_GSI, &req, 0);
}

static void km_request_case(struct km_run *r, struct km_agent *ka, u16 lid1, u16 lid2)
{
	const char *name = "gsi-request-to-agent";
	struct ib_mad_send_buf *buf;
	struct km_agent *kb;
	struct ib_wc *wc;

	kb = kzalloc(sizeof(*kb), GFP_KERNEL);
	if (!kb || km_cm_agent(kb, r->dev, 2)) {
		km_fail(r, name, "agent on port 2");
		kfree(kb);
		return;
	}
	km_agent_reset(ka);
	buf = km_gmp_post(ka, lid2, IB_MGMT_CLASS_CM, 2, IB_MGMT_METHOD_SEND,
			  cpu_to_be16(0x10), 0, 0);
	if (!buf) {
		km_fail(r, name, "post failed");
	} else if (!km_wait(&kb->recv_done, 3000)) {
		km_fail(r, name, "the agent on port 2 got nothing");
	} else if (kb->matched) {
		km_fail(r, name, "a request came with a send_buf");
	} else if (kb->rwc->wc->src_qp != 1 || kb->rwc->wc->slid != lid1) {
		wc = kb->rwc->wc;
		km_fail(r, name, "from QP %u LID %u, expected QP1 LID %u", wc->src_qp,
			wc->slid, lid1);
	} else if (!km_wait(&ka->send_done, 3000) || ka->status != IB_WC_SUCCESS) {
		km_fail(r, name, "the send did not complete");
	} else {
		km_pass(r, name);
	}
	km_send_free(buf);
	km_agent_close(kb);
	kfree(kb);
}

static void km_timeout_cases(struct km_run *r, struct km_agent *ka, u16 dlid)
{
	struct ib_mad_send_buf *buf;
	unsigned long t0;
	unsigned int ms;

	/* an unclaimed Report is dropped: no response, 3 tries of 200 ms */
	km_agent_reset(ka);
	t0 = jiffies;
	buf = km_gmp_post(ka, dlid, IB_MGMT_CLASS_SUBN_ADM, 2, IB_MGMT_METHOD_REPORT,
			  cpu_to_be16(0x20), 200, 2);
	if (!buf) {
		km_fail(r, "gsi-timeout-after-retries", "post failed");
	} else if (!km_wait(&ka->send_done, 5000)) {
		km_fail(r, "gsi-timeout-after-retries", "no completion in 5 s");
	} else {
		ms = jiffies_to_msecs(jiffies - t0);
		if (ka->status != IB_WC_RESP_TIMEOUT_ERR)
			km_fail(r, "gsi-timeout-after-retries", "status %d", ka->status);
		else if (ms < 550)
			km_fail(r, "gsi-timeout-after-retries", "after %u ms (< 3 x 200)", ms);
		else
			km_pass(r, "gsi-timeout-after-retries");
	}
	km_send_free(buf);

	km_agent_reset(ka);
	buf = km_gmp_post(ka, dlid, IB_MGMT_CLASS_SUBN_ADM, 2, IB_MGMT_METHOD_REPORT,
			  cpu_to_be16(0x21), 10000, 0);
	if (!buf) {
		km_fail(r, "gsi-cancel", "post failed");
	} else {
		msleep(50);
		ib_cancel_mad(buf);
		if (!km_wait(&ka->send_done, 2000))
			km_fail(r, "gsi-cancel", "no completion 2 s after cancel");
		else if (ka->status != IB_WC_WR_FLUSH_ERR)
			km_fail(r, "gsi-cancel", "status %d", ka->status);
		else if (ib_modify_mad(buf, 100) != -EINVAL)
			km_fail(r, "gsi-cancel", "modify after completion not -EINVAL");
		else
			km_pass(r, "gsi-cancel");
	}
	km_send_free(buf);

	km_agent_reset(ka);
	t0 = jiffies;
	buf = km_gmp_post(ka, dlid, IB_MGMT_CLASS_SUBN_ADM, 2, IB_MGMT_METHOD_REPORT,
			  cpu_to_be16(0x22), 10000, 0);
	if (!buf) {
		km_fail(r, "gsi-modify-timeout", "post failed");
	} else {
		msleep(50);
		if (ib_modify_mad(buf, 100))
			km_fail(r, "gsi-modify-timeout", "modify failed");
		else if (!km_wait(&ka->send_done, 3000))
			km_fail(r, "gsi-modify-timeout", "still waiting 3 s later");
		else if (ka->status != IB_WC_RESP_TIMEOUT_ERR)
			km_fail(r, "gsi-modify-timeout", "status %d", ka->status);
		else
			km_pass(r, "gsi-modify-timeout");
	}
	km_send_free(buf);
}

/*
 * CM MADs other than ClassPortInfo travel only as Send (as upstream
 * filters them): a CM Get of another attribute is dropped before any agent
 * sees it, a ClassPortInfo Get and a Send reach the agent claiming them.
 */
struct km_seen {
	int	n;
	u8	method[4];
	__be16	attr[4];
};

static void km_cm_seen(struct km_agent *kb, struct ib_mad_recv_wc *rwc)
{
	struct km_seen *seen = kb->priv;
	const struct ib_mad_hdr *hdr = &rwc->recv_buf.mad->mad_hdr;

	if (seen->n < ARRAY_SIZE(seen->method)) {
		seen->method[seen->n] = hdr->method;
		seen->attr[seen->n] = hdr->attr_id;
	}
	seen->n++;
}

static void km_cm_filter_case(struct km_run *r, struct km_agent *ka, u16 lid2)
{
	const char *name = "gsi-cm-get-of-non-classportinfo-dropped";
	struct ib_mad_reg_req req = {
		.mgmt_class = IB_MGMT_CLASS_CM,
		.mgmt_class_version = 2,
	};
	struct ib_mad_send_buf *buf[3] = {};
	struct km_seen *seen;
	struct km_agent *kb;
	int i;

	kb = kzalloc(sizeof(*kb), GFP_KERNEL);
	seen = kzalloc(sizeof(*seen), GFP_KERNEL);
	set_bit(IB_MGMT_METHOD_GET, req.method_mask);
	set_bit(IB_MGMT_METHOD_SEND, req.method_mask);
	if (!kb || !seen || km_agent_open(kb, r->dev, 2, IB_QPT_GSI, &req, 0)) {
		km_fail(r, name, "CM agent on port 2");
		goto out_free;
	}
	kb->priv = seen;
	kb->on_recv = km_cm_seen;
	km_agent_reset(ka);
	/* in this order on one path: the Send arrives last */
	buf[0] = km_gmp_post(ka, lid2, IB_MGMT_CLASS_CM, 2, IB_MGMT_METHOD_GET,
			     cpu_to_be16(0x10), 0, 0);
	buf[1] = km_gmp_post(ka, lid2, IB_MGMT_CLASS_CM, 2, IB_MGMT_METHOD_GET,
			     IB_MGMT_CLASSPORTINFO_ATTR_ID, 0, 0);
	buf[2] = km_gmp_post(ka, lid2, IB_MGMT_CLASS_CM, 2, IB_MGMT_METHOD_SEND,
			     cpu_to_be16(0x10), 0, 0);
	for (i = 0; i < 100 && READ_ONCE(seen->n) < 2; i++)
		km_wait(&kb->recv_done, 50);
	if (!buf[0] || !buf[1] || !buf[2])
		km_fail(r, name, "post failed");
	else if (seen->n < 2)
		km_fail(r, name, "the agent got %d MADs, expected the Get of %s and the Send",
			seen->n, "ClassPortInfo");
	else if (seen->n != 2 || seen->method[0] != IB_MGMT_METHOD_GET ||
		 seen->attr[0] != IB_MGMT_CLASSPORTINFO_ATTR_ID ||
		 seen->method[1] != IB_MGMT_METHOD_SEND)
		km_fail(r, name, "the agent got method 0x%x attr 0x%x first, %d MADs in all",
			seen->method[0], be16_to_cpu(seen->attr[0]), seen->n);
	else
		km_pass(r, name);
	/* the sends have no timeout: each completes once it is sent */
	for (i = 0; i < 100 && READ_ONCE(ka->nsend) < 3; i++)
		km_wait(&ka->send_done, 50);
	km_agent_close(kb);
	for (i = 0; i < 3; i++)
		km_send_free(buf[i]);
out_free:
	kfree(seen);
	kfree(kb);
}

static void km_unregister_case(struct km_run *r, u16 dlid)
{
	const char *name = "gsi-unregister-flushes-sends";
	struct ib_mad_send_buf *buf;
	struct km_agent *kc;

	kc = km_agent_new(r, name, 1, IB_QPT_GSI);
	if (!kc)
		return;
	kc->free_sends = true;
	buf = km_gmp_post(kc, dlid, IB_MGMT_CLASS_SUBN_ADM, 2, IB_MGMT_METHOD_REPORT,
			  cpu_to_be16(0x23), 30000, 0);
	if (!buf) {
		km_fail(r, name, "post failed");
		km_agent_close(kc);
	} else {
		msleep(50);
		km_agent_close(kc);
		if (kc->nsend != 1 || kc->status != IB_WC_WR_FLUSH_ERR)
			km_fail(r, name, "%d completions, status %d", kc->nsend, kc->status);
		else
			km_pass(r, name);
	}
	kfree(kc);
}

static void km_many_case(struct km_run *r, struct km_agent *ka, u16 dlid)
{
	const char *name = "gsi-300-sends-overflow";
	struct ib_mad_send_buf *buf;
	int i, posted = 0;

	km_agent_reset(ka);
	ka->free_sends = true;
	for (i = 0; i < KM_NSENDS; i++) {
		buf = km_gmp_post(ka, dlid, IB_MGMT_CLASS_SUBN_ADM, 2,
				  IB_MGMT_METHOD_REPORT, cpu_to_be16(0x30), 0, 0);
		if (!buf)
			break;
		posted++;
	}
	for (i = 0; i < 100 && READ_ONCE(ka->nsend) < posted; i++)
		msleep(50);
	if (posted != KM_NSENDS)
		km_fail(r, name, "only %d posted", posted);
	else if (ka->nsend != posted)
		km_fail(r, name, "%d of %d completed", ka->nsend, posted);
	else if (ka->status != IB_WC_SUCCESS)
		km_fail(r, name, "last status %d", ka->status);
	else
		km_pass(r, name);
	ka->free_sends = false;
}

void km_gsi_cases(struct km_run *r)
{
	u16 lid1 = km_port_lid(r->dev, 1), lid2 = km_port_lid(r->dev, 2);
	struct ib_mad_send_buf *buf;
	struct ib_mad *mad;
	struct km_agent *ka;

	if (!lid1 || !lid2) {
		km_fail(r, "gsi-lids", "ports without LIDs (%u, %u): auto-lid needed", lid1, lid2);
		return;
	}
	ka = kzalloc(sizeof(*ka), GFP_KERNEL);
	if (!ka || km_agent_open(ka, r->dev, 1, IB_QPT_GSI, NULL, 0)) {
		km_fail(r, "gsi-agent", "send-only GSI agent");
		kfree(ka);
		return;
	}
	km_pma_case(r, ka, lid1, "pma-portcounters-own-lid");
	km_pma_case(r, ka, lid2, "pma-portcounters-other-port");

	km_agent_reset(ka);
	buf = km_gmp_post(ka, lid2, IB_MGMT_CLASS_SUBN_ADM, 2, IB_MGMT_METHOD_GET,
			  cpu_to_be16(0x35), 1000, 1);
	if (!buf || !km_wait(&ka->send_done, 5000) || !ka->rwc) {
		km_fail(r, "gsi-unclaimed-get-unsupported", "no response");
	} else {
		mad = ka->rwc->recv_buf.mad;
		if (mad->mad_hdr.method != IB_MGMT_METHOD_GET_RESP ||
		    be16_to_cpu(mad->mad_hdr.status) !=
		    IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB)
			km_fail(r, "gsi-unclaimed-get-unsupported", "method 0x%x status 0x%x",
				mad->mad_hdr.method, be16_to_cpu(mad->mad_hdr.status));
		else
			km_pass(r, "gsi-unclaimed-get-unsupported");
	}
	km_send_free(buf);

	km_request_case(r, ka, lid1, lid2);
	km_cm_filter_case(r, ka, lid2);
	km_timeout_cases(r, ka, lid2);
	km_cancel_race_cases(r, ka, lid1);
	km_unregister_case(r, lid2);
	km_many_case(r, ka, lid2);
	km_agent_close(ka);
	kfree(ka);
}

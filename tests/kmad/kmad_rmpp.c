// SPDX-License-Identifier: GPL-2.0
/*
 * The MAD layer test client: RMPP between two kernel-RMPP agents of vendor
 * class 0x32 on the two cabled ports.  Port 1 sends an RMPP Get of n
 * segments; the agent on port 2 gets it reassembled (one receive, every
 * segment listed, mad_len = header + payload) and answers with an RMPP
 * GetResp of m segments, which reaches port 1 matched to its request.
 */
#include <linux/slab.h>

#include "kmad.h"

#define KM_VCLASS	0x32
#define KM_VHDR		IB_MGMT_VENDOR_HDR	/* 40 */
#define KM_VDATA	(IB_MGMT_MAD_SIZE - KM_VHDR)

static const u8 km_oui[3] = { 0x00, 0x14, 0x05 };

static u8 km_byte(int i, u8 salt)
{
	return (u8)(i * 7 + salt);
}

static void km_fill(struct ib_mad_send_buf *buf, int len, u8 salt)
{
	int seg, i, off = 0;

	for (seg = 1; seg <= buf->seg_count; seg++) {
		u8 *p = ib_get_rmpp_segment(buf, seg);

		for (i = 0; i < buf->seg_size && off < len; i++, off++)
			p[i] = km_byte(off, salt);
	}
}

/* checks a reassembled receive against len bytes of pattern salt */
static const char *km_check(struct ib_mad_recv_wc *rwc, int len, u8 salt)
{
	struct ib_mad_recv_buf *rb;
	int nseg = 0, off = 0, i;

	if (rwc->mad_len != KM_VHDR + len)
		return "mad_len wrong";
	list_for_each_entry(rb, &rwc->rmpp_list, list) {
		const u8 *p = (const u8 *)rb->mad + KM_VHDR;

		if (!nseg && rb != &rwc->recv_buf)
			return "rmpp_list does not start with recv_buf";
		nseg++;
		for (i = 0; i < KM_VDATA && off < len; i++, off++)
			if (p[i] != km_byte(off, salt))
				return "payload differs";
	}
	if (nseg != DIV_ROUND_UP(len, KM_VDATA) && !(len == 0 && nseg == 1))
		return "segment count wrong";
	return NULL;
}

struct km_rmpp_ctx {
	int		req_len;
	int		resp_len;
	const char	*why;		/* the responder's verdict on the request */
	bool		answered;
};

/* port 2: checks the request, answers with resp_len bytes */
static void km_responder(struct km_agent *kb, struct ib_mad_recv_wc *rwc)
{
	struct km_rmpp_ctx *c = kb->priv;
	struct ib_mad_send_buf *buf;
	struct ib_vendor_mad *vm;
	struct ib_ah *ah;

	c->why = km_check(rwc, c->req_len, 0x11);
	ah = ib_create_ah_from_wc(kb->agent->qp->pd, rwc->wc, rwc->recv_buf.grh,
				  kb->agent->port_num);
	if (IS_ERR(ah)) {
		c->why = "no AH for the answer";
		return;
	}
	buf = ib_create_send_mad(kb->agent, rwc->wc->src_qp, rwc->wc->pkey_index, 1,
				 KM_VHDR, c->resp_len, GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		c->why = "no answer buffer";
		return;
	}
	buf->ah = ah;
	memcpy(buf->mad, rwc->recv_buf.mad, KM_VHDR);
	vm = buf->mad;
	vm->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	km_fill(buf, c->resp_len, 0x22);
	buf->timeout_ms = 1000;
	buf->retries = 2;
	if (ib_post_send_mad(buf, NULL)) {
		km_send_free(buf);
		c->why = "answer not posted";
		return;
	}
	c->answered = true;
}

static void km_rmpp_case(struct km_run *r, struct km_agent *ka, struct km_agent *kb,
			 u16 lid2, int req_len, int resp_len, const char *name)
{
	struct km_rmpp_ctx *c = kb->priv;
	struct ib_mad_send_buf *buf;
	struct ib_vendor_mad *vm;

	km_agent_reset(ka);
	km_agent_reset(kb);
	c->req_len = req_len;
	c->resp_len = resp_len;
	c->why = "no request";
	c->answered = false;

	buf = km_send_buf(ka, lid2, 1, 1, KM_VHDR, req_len);
	if (IS_ERR(buf)) {
		km_fail(r, name, "send buffer: %ld", PTR_ERR(buf));
		return;
	}
	vm = buf->mad;
	vm->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	vm->mad_hdr.mgmt_class = KM_VCLASS;
	vm->mad_hdr.class_version = 1;
	vm->mad_hdr.method = IB_MGMT_METHOD_GET;
	vm->mad_hdr.tid = cpu_to_be64(0x1000 + req_len);
	memcpy(vm->oui, km_oui, 3);
	km_fill(buf, req_len, 0x11);
	buf->timeout_ms = 2000;
	buf->retries = 2;
	if (buf->seg_count != max(1, DIV_ROUND_UP(req_len, KM_VDATA))) {
		km_fail(r, name, "seg_count %d", buf->seg_count);
		km_send_free(buf);
		return;
	}
	if (ib_post_send_mad(buf, NULL)) {
		km_fail(r, name, "post failed");
		km_send_free(buf);
		return;
	}
	if (!km_wait(&ka->send_done, 20000)) {
		km_fail(r, name, "no send completion in 20 s");
		/* the agent's unregistration will flush it */
		return;
	}
	if (!km_wait(&kb->send_done, 5000))
		km_fail(r, name, "the answer did not complete (%s; request status %d)",
			c->why ?: "request ok", ka->status);
	else if (c->why)
		km_fail(r, name, "request on port 2: %s", c->why);
	else if (!c->answered || kb->status != IB_WC_SUCCESS)
		km_fail(r, name, "answer status %d", kb->status);
	else if (ka->status != IB_WC_SUCCESS || !ka->rwc)
		km_fail(r, name, "request status %d", ka->status);
	else if (ka->matched != buf || !ka->recv_before_send)
		km_fail(r, name, "answer not matched to the request");
	else if (km_check(ka->rwc, resp_len, 0x22))
		km_fail(r, name, "answer on port 1: %s", km_check(ka->rwc, resp_len, 0x22));
	else
		km_pass(r, name);
	km_send_free(buf);
}

void km_rmpp_cases(struct km_run *r)
{
	struct ib_mad_reg_req req = {
		.mgmt_class = KM_VCLASS,
		.mgmt_class_version = 1,
	};
	u16 lid2 = km_port_lid(r->dev, 2);
	struct km_rmpp_ctx *c;
	struct km_agent *ka;
	int ret;

	if (!lid2)
		return;		/* reported by the GSI cases */
	ka = kcalloc(2, sizeof(*ka), GFP_KERNEL);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!ka || !c) {
		km_fail(r, "rmpp-agents", "no memory");
		goto out_free;
	}
	memcpy(req.oui, km_oui, 3);
	set_bit(IB_MGMT_METHOD_GET, req.method_mask);
	ret = km_agent_open(&ka[0], r->dev, 1, IB_QPT_GSI, NULL, IB_MGMT_RMPP_VERSION);
	if (!ret)
		ret = km_agent_open(&ka[1], r->dev, 2, IB_QPT_GSI, &req, IB_MGMT_RMPP_VERSION);
	if (ret) {
		km_fail(r, "rmpp-agents", "%d", ret);
		goto out;
	}
	ka[1].priv = c;
	ka[1].on_recv = km_responder;
	ka[1].free_sends = true;

	km_rmpp_case(r, &ka[0], &ka[1], lid2, 100, 60, "rmpp-single-segment-both-ways");
	km_rmpp_case(r, &ka[0], &ka[1], lid2, KM_VDATA, KM_VDATA * 2,
		     "rmpp-exact-segments");
	km_rmpp_case(r, &ka[0], &ka[1], lid2, 11 * KM_VDATA - 116, 500,
		     "rmpp-11-segments-request-3-answer");
	km_rmpp_case(r, &ka[0], &ka[1], lid2, 3000, 200 * KM_VDATA - 5,
		     "rmpp-200-segment-answer-windows");
out:
	km_agent_close(&ka[1]);
	km_agent_close(&ka[0]);
out_free:
	kfree(c);
	kfree(ka);
}

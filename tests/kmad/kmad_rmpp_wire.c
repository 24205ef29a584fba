// SPDX-License-Identifier: GPL-2.0
/*
 * The MAD layer test client: the RMPP protocol as the peer sees it.  An
 * agent with IB_MAD_USER_RMPP on one port builds RMPP MADs by hand, so the
 * tests can send what a kernel sender never would (duplicates, gaps, a bad
 * version, an ABORT) and read the ACKs the other side's kernel returns.
 *  - receiver: kernel-RMPP agent on port 2, hand-made segments from port 1;
 *  - sender: kernel-RMPP send from port 1, hand-made answers from port 2.
 */
#include <linux/delay.h>
#include <linux/slab.h>

#include "kmad.h"

#define KW_VCLASS	0x33
#define KW_VHDR		IB_MGMT_VENDOR_HDR
#define KW_VDATA	(IB_MGMT_MAD_SIZE - KW_VHDR)

static const u8 kw_oui[3] = { 0x00, 0x14, 0x05 };

struct kw_ctx {
	struct km_run		*r;
	struct km_agent		*u;		/* hand-made RMPP, port 1 */
	struct km_agent		*k;		/* kernel RMPP, port 2 */
	u16			lid1, lid2;
};

/* the common and vendor headers of a MAD of vendor class mclass (OUI kw_oui) */
static void kw_hdr(struct ib_vendor_mad *vm, u8 mclass, u8 method, u64 tid)
{
	vm->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	vm->mad_hdr.mgmt_class = mclass;
	vm->mad_hdr.class_version = 1;
	vm->mad_hdr.method = method;
	vm->mad_hdr.tid = cpu_to_be64(tid);
	memcpy(vm->oui, kw_oui, 3);
}

/*
 * One hand-made RMPP MAD of vendor class mclass (OUI kw_oui) from ka to
 * dlid.  For requests ib_mad puts the agent's hi_tid in the upper half of
 * tid; responses keep it whole.
 */
int km_rmpp_send(struct km_agent *ka, u16 dlid, u8 mclass, u8 method, u64 tid, u8 version,
		 u8 type, u8 flags, u8 status, u32 seg, u32 paylen, u8 fill)
{
	struct ib_mad_send_buf *buf;
	struct ib_vendor_mad *vm;
	int ret;

	buf = km_send_buf(ka, dlid, 1, 0, KW_VHDR, KW_VDATA);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	vm = buf->mad;
	kw_hdr(vm, mclass, method, tid);
	vm->rmpp_hdr.rmpp_version = version;
	vm->rmpp_hdr.rmpp_type = type;
	ib_set_rmpp_flags(&vm->rmpp_hdr, flags);
	vm->rmpp_hdr.rmpp_status = status;
	vm->rmpp_hdr.seg_num = cpu_to_be32(seg);
	vm->rmpp_hdr.paylen_newwin = cpu_to_be32(paylen);
	memset(vm->data, fill, KW_VDATA);
	ret = ib_post_send_mad(buf, NULL);
	if (ret)
		km_send_free(buf);
	return ret;
}

static int kw_send(struct km_agent *ka, u16 dlid, u8 method, u64 tid, u8 version,
		   u8 type, u8 flags, u8 status, u32 seg, u32 paylen, u8 fill)
{
	return km_rmpp_send(ka, dlid, KW_VCLASS, method, tid, version, type, flags, status,
			    seg, paylen, fill);
}

/* waits for the next MAD at ka; its RMPP header, or NULL */
static struct ib_rmpp_hdr *kw_next(struct km_agent *ka, unsigned int ms)
{
	if (!km_wait(&ka->recv_done, ms) || !ka->rwc)
		return NULL;
	reinit_completion(&ka->recv_done);
	return &((struct ib_rmpp_mad *)ka->rwc->recv_buf.mad)->rmpp_hdr;
}

static const char *kw_expect_ack(struct km_agent *ka, u32 seg, u32 min_win)
{
	struct ib_rmpp_hdr *rh = kw_next(ka, 2000);

	if (!rh)
		return "no ACK";
	if (rh->rmpp_type != IB_MGMT_RMPP_TYPE_ACK)
		return "not an ACK";
	if (be32_to_cpu(rh->seg_num) != seg)
		return "ACK of the wrong segment";
	if (be32_to_cpu(rh->paylen_newwin) < min_win)
		return "window too small";
	if (((struct ib_mad_hdr *)ka->rwc->recv_buf.mad)->method != IB_MGMT_METHOD_GET_RESP)
		return "ACK of a Get does not come back as a response";
	return NULL;
}

static void kw_check(struct km_run *r, const char *name, const char *why)
{
	if (why)
		km_fail(r, name, "%s", why);
	else
		km_pass(r, name);
}

/* the kernel receiver on port 2, fed by hand from port 1 */
static void kw_receiver_cases(struct kw_ctx *c)
{
	u8 first = IB_MGMT_RMPP_FLAG_ACTIVE | IB_MGMT_RMPP_FLAG_FIRST;
	u8 mid = IB_MGMT_RMPP_FLAG_ACTIVE;
	u8 last = IB_MGMT_RMPP_FLAG_ACTIVE | IB_MGMT_RMPP_FLAG_LAST;
	const u32 tid = 0x4400;
	struct ib_mad_recv_buf *rb;
	struct ib_rmpp_hdr *rh;
	const char *why;
	int n = 0;

	km_agent_reset(c->u);
	km_agent_reset(c->k);
	kw_send(c->u, c->lid2, IB_MGMT_METHOD_GET, tid, 1, IB_MGMT_RMPP_TYPE_DATA, first, 0,
		1, 3 * (IB_MGMT_MAD_SIZE - IB_MGMT_RMPP_HDR), 0xa1);
	kw_check(c->r, "rmpp-wire-first-segment-acked", kw_expect_ack(c->u, 1, 2));

	kw_send(c->u, c->lid2, IB_MGMT_METHOD_GET, tid, 1, IB_MGMT_RMPP_TYPE_DATA, first, 0,
		1, 3 * (IB_MGMT_MAD_SIZE - IB_MGMT_RMPP_HDR), 0xa1);
	kw_check(c->r, "rmpp-wire-duplicate-re-acked", kw_expect_ack(c->u, 1, 2));

	/* a gap: segment 3 before 2 is dropped, no ACK */
	kw_send(c->u, c->lid2, IB_MGMT_METHOD_GET, tid, 1, IB_MGMT_RMPP_TYPE_DATA, last, 0,
		3, IB_MGMT_MAD_SIZE - IB_MGMT_RMPP_HDR, 0xa3);
	rh = kw_next(c->u, 300);
	kw_check(c->r, "rmpp-wire-gap-dropped",
		 rh ? "the out-of-order segment was answered" :
		 c->k->nrecv ? "the agent got a message" : NULL);

	kw_send(c->u, c->lid2, IB_MGMT_METHOD_GET, tid, 1, IB_MGMT_RMPP_TYPE_DATA, mid, 0,
		2, 0, 0xa2);
	kw_send(c->u, c->lid2, IB_MGMT_METHOD_GET, tid, 1, IB_MGMT_RMPP_TYPE_DATA, last, 0,
		3, IB_MGMT_MAD_SIZE - IB_MGMT_RMPP_HDR - 16, 0xa3);
	why = kw_expect_ack(c->u, 3, 3);
	kw_check(c->r, "rmpp-wire-last-segment-acked", why);

	why = NULL;
	if (!km_wait(&c->k->recv_done, 2000) || !c->k->rwc) {
		why = "no message";
	} else if (c->k->rwc->mad_len != KW_VHDR + 3 * KW_VDATA - 16) {
		why = "mad_len is not the header plus the payload";
	} else {
		list_for_each_entry(rb, &c->k->rwc->rmpp_list, list) {
			if (((u8 *)rb->mad)[KW_VHDR] != 0xa1 + n)
				why = "segments out of order";
			n++;
		}
		if (n != 3)
			why = "not 3 segments";
	}
	kw_check(c->r, "rmpp-wire-reassembled-in-order", why);

	/* the sender missed the last ACK: the last segment again, re-ACKed */
	kw_send(c->u, c->lid2, IB_MGMT_METHOD_GET, tid, 1, IB_MGMT_RMPP_TYPE_DATA, last, 0,
		3, IB_MGMT_MAD_SIZE - IB_MGMT_RMPP_HDR - 16, 0xa3);
	why = kw_expect_ack(c->u, 3, 3);
	if (!why && c->k->nrecv != 1)
		why = "delivered twice";
	kw_check(c->r, "rmpp-wire-finished-message-re-acked", why);

	/* an RMPP version nobody speaks: ABORT, status UNV */
	kw_send(c->u, c->lid2, IB_MGMT_METHOD_GET, tid + 1, 2, IB_MGMT_RMPP_TYPE_DATA,
		first | IB_MGMT_RMPP_FLAG_LAST, 0, 1, 20, 0xb1);
	rh = kw_next(c->u, 2000);
	kw_check(c->r, "rmpp-wire-bad-version-aborted",
		 !rh ? "no answer" :
		 rh->rmpp_type != IB_MGMT_RMPP_TYPE_ABORT ? "not an ABORT" :
		 rh->rmpp_status != IB_MGMT_RMPP_STATUS_UNV ? "status not UNV" : NULL);
}

/* a kernel-RMPP Get of len bytes from ks to port 2 (headers filled) */
static struct ib_mad_send_buf *kw_get_buf(struct kw_ctx *c, struct km_agent *ks, int len,
					  u64 tid)
{
	struct ib_mad_send_buf *buf;

	buf = km_send_buf(ks, c->lid2, 1, 1, KW_VHDR, len);
	if (!IS_ERR(buf))
		kw_hdr(buf->mad, KW_VCLASS, IB_MGMT_METHOD_GET, tid);
	return buf;
}

/* a kernel sender on port 1; the hand-made receiver on port 2 */
static void kw_sender_cases(struct kw_ctx *c, struct km_agent *ks, struct km_agent *uk)
{
	struct ib_mad_send_buf *buf;
	struct ib_rmpp_hdr *rh;
	const char *why = NULL;
	u64 tid;
	int copies = 0;

	/* no ACK ever: segment 1 is sent 1 + retries times, then a timeout */
	km_agent_reset(ks);
	km_agent_reset(uk);
	buf = kw_get_buf(c, ks, 2 * KW_VDATA, 0x5500);
	if (IS_ERR(buf)) {
		km_fail(c->r, "rmpp-wire-sender-retries", "no buffer");
		return;
	}
	buf->timeout_ms = 200;
	buf->retries = 1;
	if (ib_post_send_mad(buf, NULL)) {
		km_fail(c->r, "rmpp-wire-sender-retries", "post failed");
		km_send_free(buf);
		return;
	}
	while ((rh = kw_next(uk, 1000))) {
		if (rh->rmpp_type != IB_MGMT_RMPP_TYPE_DATA || be32_to_cpu(rh->seg_num) != 1 ||
		    !(ib_get_rmpp_flags(rh) & IB_MGMT_RMPP_FLAG_FIRST))
			why = "not segment 1 (FIRST)";
		copies++;
	}
	if (!km_wait(&ks->send_done, 2000))
		why = "the send did not complete";
	else if (ks->status != IB_WC_RESP_TIMEOUT_ERR)
		why = "not a timeout";
	else if (copies != 2)
		why = copies < 2 ? "segment 1 not resent" : "segment 1 sent too often";
	kw_check(c->r, "rmpp-wire-sender-retries", why);

	/* the receiver ACKs segment 1 granting 2, then ABORTs */
	km_agent_reset(ks);
	km_agent_reset(uk);
	why = NULL;
	if (ib_post_send_mad(buf, NULL)) {
		km_fail(c->r, "rmpp-wire-sender-abort", "post failed");
		km_send_free(buf);
		return;
	}
	rh = kw_next(uk, 2000);
	tid = be64_to_cpu(((struct ib_mad_hdr *)buf->mad)->tid);
	if (!rh || be32_to_cpu(rh->seg_num) != 1) {
		why = "no segment 1";
	} else {
		kw_send(uk, c->lid1, IB_MGMT_METHOD_GET_RESP, tid, 1, IB_MGMT_RMPP_TYPE_ACK,
			IB_MGMT_RMPP_FLAG_ACTIVE, 0, 1, 2, 0);
		rh = kw_next(uk, 2000);
		if (!rh || be32_to_cpu(rh->seg_num) != 2 ||
		    !(ib_get_rmpp_flags(rh) & IB_MGMT_RMPP_FLAG_LAST))
			why = "segment 2 (LAST) not sent after the ACK";
	}
	kw_check(c->r, "rmpp-wire-sender-window-from-ack", why);

	kw_send(uk, c->lid1, IB_MGMT_METHOD_GET_RESP, tid, 1, IB_MGMT_RMPP_TYPE_ABORT,
		IB_MGMT_RMPP_FLAG_ACTIVE, IB_MGMT_RMPP_STATUS_UNSPEC, 0, 0, 0);
	if (!km_wait(&ks->send_done, 2000)) {
		why = "the send did not complete";
		ib_cancel_mad(buf);
		km_wait(&ks->send_done, 2000);
	} else if (ks->status != IB_WC_REM_ABORT_ERR) {
		why = "not completed as aborted";
	}
	kw_check(c->r, "rmpp-wire-sender-aborted", why);
	km_send_free(buf);
}

/*
 * A message larger than kmalloc gives (4 MiB): ib_mad keeps it in vmalloc
 * memory, which must never be DMA-mapped (only the segment on its way
 * out is, from kmalloc memory).  Its segments 1 and 2 arrive with the
 * bytes the sender wrote; then the receiver ABORTs it.
 */
#define KW_BIG		(9 << 19)	/* 4.5 MiB */

static u8 kw_big_byte(int off)
{
	return (u8)(off * 7 + off / 251);
}

static const char *kw_big_segment(struct km_agent *uk, u32 seg)
{
	struct ib_rmpp_hdr *rh = kw_next(uk, 2000);
	int i, off = (seg - 1) * KW_VDATA;
	const u8 *p;

	if (!rh || rh->rmpp_type != IB_MGMT_RMPP_TYPE_DATA || be32_to_cpu(rh->seg_num) != seg)
		return seg == 1 ? "no segment 1" : "no segment 2 after the ACK";
	if (seg == 1 && (!(ib_get_rmpp_flags(rh) & IB_MGMT_RMPP_FLAG_FIRST) ||
			 be32_to_cpu(rh->paylen_newwin) < KW_BIG))
		return "segment 1 is not FIRST with the message's length";
	p = (const u8 *)uk->rwc->recv_buf.mad + KW_VHDR;
	for (i = 0; i < KW_VDATA; i++)
		if (p[i] != kw_big_byte(off + i))
			return "a segment's payload is not what was sent";
	return NULL;
}

static void kw_big_sender_case(struct kw_ctx *c, struct km_agent *ks, struct km_agent *uk)
{
	const char *name = "rmpp-wire-sender-4.5mib-beyond-kmalloc";
	struct ib_mad_send_buf *buf;
	int seg, i, off = 0;
	const char *why;
	u64 tid;

	km_agent_reset(ks);
	km_agent_reset(uk);
	buf = kw_get_buf(c, ks, KW_BIG, 0x5600);
	if (IS_ERR(buf)) {
		km_fail(c->r, name, "no buffer: %ld", PTR_ERR(buf));
		return;
	}
	for (seg = 1; seg <= buf->seg_count; seg++) {
		u8 *p = ib_get_rmpp_segment(buf, seg);

		for (i = 0; i < buf->seg_size && off < KW_BIG; i++, off++)
			p[i] = kw_big_byte(off);
	}
	buf->timeout_ms = 2000;
	buf->retries = 1;
	if (ib_post_send_mad(buf, NULL)) {
		km_fail(c->r, name, "post failed");
		km_send_free(buf);
		return;
	}
	tid = be64_to_cpu(((struct ib_mad_hdr *)buf->mad)->tid);
	why = kw_big_segment(uk, 1);
	if (!why) {
		kw_send(uk, c->lid1, IB_MGMT_METHOD_GET_RESP, tid, 1, IB_MGMT_RMPP_TYPE_ACK,
			IB_MGMT_RMPP_FLAG_ACTIVE, 0, 1, 2, 0);
		why = kw_big_segment(uk, 2);
	}
	kw_send(uk, c->lid1, IB_MGMT_METHOD_GET_RESP, tid, 1, IB_MGMT_RMPP_TYPE_ABORT,
		IB_MGMT_RMPP_FLAG_ACTIVE, IB_MGMT_RMPP_STATUS_UNSPEC, 0, 0, 0);
	if (!km_wait(&ks->send_done, 5000)) {
		why = why ?: "the send did not complete";
		ib_cancel_mad(buf);
		km_wait(&ks->send_done, 5000);
	}
	kw_check(c->r, name, why);
	km_send_free(buf);
}

void km_rmpp_wire_cases(struct km_run *r)
{
	struct ib_mad_reg_req req = {
		.mgmt_class = KW_VCLASS,
		.mgmt_class_version = 1,
	};
	struct kw_ctx c = { .r = r };
	struct km_agent *ka;
	int ret;

	c.lid1 = km_port_lid(r->dev, 1);
	c.lid2 = km_port_lid(r->dev, 2);
	if (!c.lid1 || !c.lid2)
		return;		/* reported by the GSI cases */
	ka = kcalloc(4, sizeof(*ka), GFP_KERNEL);
	if (!ka) {
		km_fail(r, "rmpp-wire-agents", "no memory");
		return;
	}
	memcpy(req.oui, kw_oui, 3);
	/* user RMPP needs a registration: the hand-made side claims Send */
	set_bit(IB_MGMT_METHOD_SEND, req.method_mask);
	ret = km_agent_open_flags(&ka[0], r->dev, 1, IB_QPT_GSI, &req,
				  IB_MGMT_RMPP_VERSION, IB_MAD_USER_RMPP);
	clear_bit(IB_MGMT_METHOD_SEND, req.method_mask);
	set_bit(IB_MGMT_METHOD_GET, req.method_mask);
	if (!ret)
		ret = km_agent_open(&ka[1], r->dev, 2, IB_QPT_GSI, &req, IB_MGMT_RMPP_VERSION);
	if (ret) {
		km_fail(r, "rmpp-wire-agents", "%d", ret);
		goto out;
	}
	ka[0].free_sends = true;
	c.u = &ka[0];
	c.k = &ka[1];
	kw_receiver_cases(&c);
	km_agent_close(&ka[1]);
	km_agent_close(&ka[0]);

	/* the roles swapped: kernel sender on port 1, hand-made receiver on 2 */
	ret = km_agent_open(&ka[2], r->dev, 1, IB_QPT_GSI, NULL, IB_MGMT_RMPP_VERSION);
	if (!ret)
		ret = km_agent_open_flags(&ka[3], r->dev, 2, IB_QPT_GSI, &req,
					  IB_MGMT_RMPP_VERSION, IB_MAD_USER_RMPP);
	if (ret) {
		km_fail(r, "rmpp-wire-agents", "sender pair: %d", ret);
		goto out;
	}
	ka[3].free_sends = true;
	kw_sender_cases(&c, &ka[2], &ka[3]);
	kw_big_sender_case(&c, &ka[2], &ka[3]);
out:
	km_agent_close(&ka[3]);
	km_agent_close(&ka[2]);
	km_agent_close(&ka[1]);
	km_agent_close(&ka[0]);
	kfree(ka);
}

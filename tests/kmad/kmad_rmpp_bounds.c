// SPDX-License-Identifier: GPL-2.0
/*
 * The MAD layer test client: what a remote node can make a kernel-RMPP
 * agent hold.  A hand-made RMPP side on port 1 (user RMPP, claims Get, so
 * it also sees the ACKs and STOPs of responses) feeds the kernel receiver
 * on port 2 (vendor class 0x34, claims Get):
 *  - a response segment answering no request of the receiver is not
 *    reassembled (no ACK; a request sent after it is ACKed first);
 *  - a request announcing more than ib_mad's bound for requests (1024
 *    segments) is STOPped with "out of resources" at once, and one that
 *    grows past it without announcing its length is STOPped there;
 *  - at most 16 requests are reassembled at a time: the 17th is STOPped.
 */
#include <linux/slab.h>

#include "kmad.h"

#define KB_VCLASS	0x34
#define KB_MAX_SEGS	1024		/* mad/rmpp_recv.c: MAD_RMPP_RX_REQ_SEGS */
#define KB_MAX_REQS	16		/* mad/rmpp_recv.c: MAD_RMPP_RX_REQS */
#define KB_WINDOW	64		/* mad/rmpp_recv.c: MAD_RMPP_WINDOW */
#define KB_PAYLOAD	(IB_MGMT_MAD_SIZE - IB_MGMT_RMPP_HDR)	/* 220 */
#define KB_LOG		64

/* what the hand-made side received, in order */
struct kb_seen {
	u8	method;
	u8	type;
	u8	status;
	u32	tid;		/* the lower half */
	u32	seg;
	u32	newwin;
};

struct kb_ctx {
	struct km_run	*r;
	struct km_agent	*u;		/* hand-made, port 1 */
	struct km_agent	*k;		/* kernel RMPP, port 2 */
	u16		lid2;
	spinlock_t	lock;		/* protects n and log */
	int		n;
	int		read;		/* entries the cases took */
	struct kb_seen	log[KB_LOG];
};

static void kb_record(struct km_agent *u, struct ib_mad_recv_wc *rwc)
{
	const struct ib_rmpp_mad *m = (const struct ib_rmpp_mad *)rwc->recv_buf.mad;
	struct kb_ctx *c = u->priv;
	struct kb_seen *e;

	spin_lock(&c->lock);
	if (c->n < KB_LOG) {
		e = &c->log[c->n];
		e->method = m->mad_hdr.method;
		e->type = m->rmpp_hdr.rmpp_type;
		e->status = m->rmpp_hdr.rmpp_status;
		e->tid = (u32)be64_to_cpu(m->mad_hdr.tid);
		e->seg = be32_to_cpu(m->rmpp_hdr.seg_num);
		e->newwin = be32_to_cpu(m->rmpp_hdr.paylen_newwin);
	}
	c->n++;
	spin_unlock(&c->lock);
}

/* the next MAD the hand-made side received (waiting up to 2 s), or NULL */
static const struct kb_seen *kb_next(struct kb_ctx *c)
{
	const struct kb_seen *e = NULL;

	if (!km_wait(&c->u->recv_done, 2000))
		return NULL;
	spin_lock(&c->lock);
	if (c->read < c->n && c->read < KB_LOG)
		e = &c->log[c->read];
	c->read++;
	spin_unlock(&c->lock);
	return e;
}

static int kb_send(struct kb_ctx *c, u8 method, u64 tid, u8 flags, u32 seg, u32 paylen)
{
	return km_rmpp_send(c->u, c->lid2, KB_VCLASS, method, tid, IB_MGMT_RMPP_VERSION,
			    IB_MGMT_RMPP_TYPE_DATA, IB_MGMT_RMPP_FLAG_ACTIVE | flags, 0,
			    seg, paylen, (u8)seg);
}

/* NULL if e is the reply type (ACK or STOP with RESX) to segment seg of tid */
static const char *kb_is(const struct kb_seen *e, u8 type, u32 tid, u32 seg)
{
	if (!e)
		return "nothing came back";
	if (e->tid != tid)
		return "the first answer is about another message";
	if (e->type != type)
		return type == IB_MGMT_RMPP_TYPE_STOP ? "not a STOP" : "not an ACK";
	if (type == IB_MGMT_RMPP_TYPE_STOP && e->status != IB_MGMT_RMPP_STATUS_RESX)
		return "STOP without the status 'out of resources'";
	if (type == IB_MGMT_RMPP_TYPE_ACK && e->seg != seg)
		return "ACK of another segment";
	return NULL;
}

static void kb_check(struct kb_ctx *c, const char *name, const char *why)
{
	if (why)
		km_fail(c->r, name, "%s", why);
	else
		km_pass(c->r, name);
}

static void kb_unsolicited_response(struct kb_ctx *c)
{
	u8 first = IB_MGMT_RMPP_FLAG_FIRST;
	u64 tid = (u64)c->k->agent->hi_tid << 32 | 0x7700;
	const char *why;

	/* a response to nothing port 2 asked, then a request of one segment */
	kb_send(c, IB_MGMT_METHOD_GET_RESP, tid, first, 1, 3 * KB_PAYLOAD);
	kb_send(c, IB_MGMT_METHOD_GET, 0x7701, first | IB_MGMT_RMPP_FLAG_LAST, 1, 20);
	why = kb_is(kb_next(c), IB_MGMT_RMPP_TYPE_ACK, 0x7701, 1);
	if (!why && (!km_wait(&c->k->recv_done, 2000) || c->k->nrecv != 1))
		why = "the request did not reach the agent";
	kb_check(c, "rmpp-bound-unsolicited-response-not-reassembled", why);
}

static void kb_too_long(struct kb_ctx *c)
{
	u8 first = IB_MGMT_RMPP_FLAG_FIRST;
	const char *why = NULL;
	const struct kb_seen *e;
	u32 seg;

	kb_send(c, IB_MGMT_METHOD_GET, 0x7702, first, 1, (KB_MAX_SEGS + 1) * KB_PAYLOAD);
	kb_check(c, "rmpp-bound-request-announced-too-long-stopped",
		 kb_is(kb_next(c), IB_MGMT_RMPP_TYPE_STOP, 0x7702, 0));

	/* no length announced: window after window until one too many */
	kb_send(c, IB_MGMT_METHOD_GET, 0x7703, first, 1, 0);
	for (seg = 1; seg <= KB_MAX_SEGS + 1 && !why; seg++) {
		if (seg > 1)
			kb_send(c, IB_MGMT_METHOD_GET, 0x7703, 0, seg, 0);
		if (seg % KB_WINDOW != 1)
			continue;	/* the receiver ACKs at the end of a window */
		e = kb_next(c);
		if (seg <= KB_MAX_SEGS)
			why = kb_is(e, IB_MGMT_RMPP_TYPE_ACK, 0x7703, seg);
		else
			why = kb_is(e, IB_MGMT_RMPP_TYPE_STOP, 0x7703, seg);
	}
	kb_check(c, "rmpp-bound-request-grown-too-long-stopped", why);
}

static void kb_too_many(struct kb_ctx *c)
{
	u8 first = IB_MGMT_RMPP_FLAG_FIRST;
	const char *why = NULL;
	int i;

	for (i = 0; i < KB_MAX_REQS && !why; i++) {
		kb_send(c, IB_MGMT_METHOD_GET, 0x7710 + i, first, 1, 3 * KB_PAYLOAD);
		why = kb_is(kb_next(c), IB_MGMT_RMPP_TYPE_ACK, 0x7710 + i, 1);
	}
	if (!why) {
		kb_send(c, IB_MGMT_METHOD_GET, 0x7710 + i, first, 1, 3 * KB_PAYLOAD);
		why = kb_is(kb_next(c), IB_MGMT_RMPP_TYPE_STOP, 0x7710 + i, 0);
	}
	kb_check(c, "rmpp-bound-17th-request-reassembly-stopped", why);
}

void km_rmpp_bound_cases(struct km_run *r)
{
	static const u8 oui[3] = { 0x00, 0x14, 0x05 };
	struct ib_mad_reg_req req = {
		.mgmt_class = KB_VCLASS,
		.mgmt_class_version = 1,
	};
	struct km_agent *ka;
	struct kb_ctx *c;
	int ret;

	ka = kcalloc(2, sizeof(*ka), GFP_KERNEL);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!ka || !c) {
		km_fail(r, "rmpp-bound-agents", "no memory");
		goto out_free;
	}
	c->r = r;
	c->lid2 = km_port_lid(r->dev, 2);
	spin_lock_init(&c->lock);
	memcpy(req.oui, oui, 3);
	set_bit(IB_MGMT_METHOD_GET, req.method_mask);
	ret = km_agent_open_flags(&ka[0], r->dev, 1, IB_QPT_GSI, &req, IB_MGMT_RMPP_VERSION,
				  IB_MAD_USER_RMPP);
	if (!ret)
		ret = km_agent_open(&ka[1], r->dev, 2, IB_QPT_GSI, &req, IB_MGMT_RMPP_VERSION);
	if (ret || !c->lid2) {
		km_fail(r, "rmpp-bound-agents", "%d (LID %u)", ret, c->lid2);
		goto out;
	}
	ka[0].free_sends = true;
	ka[0].priv = c;
	ka[0].on_recv = kb_record;
	c->u = &ka[0];
	c->k = &ka[1];
	kb_unsolicited_response(c);
	kb_too_long(c);
	kb_too_many(c);
out:
	km_agent_close(&ka[1]);
	km_agent_close(&ka[0]);
out_free:
	kfree(c);
	kfree(ka);
}

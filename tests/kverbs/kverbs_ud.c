// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: the UC, UD, multicast and SRQ cases of the self-test.
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "kverbs.h"

static void kv_clear(struct kv_buf *b, size_t off, size_t len)
{
	kv_buf_cpu(b);
	memset((u8 *)b->cpu + off, 0, len);
	kv_buf_dev(b);
}

static void kv_pattern_dev(struct kv_buf *b, size_t off, size_t len, u32 seed)
{
	kv_buf_cpu(b);
	kv_fill(b, off, len, seed);
	kv_buf_dev(b);
}

/* UC: SEND (one and several packets), RDMA WRITE, WRITE with immediate. */
int kv_case_uc(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	struct kv_pair p;
	int ret;

	ret = kv_pair_create(r, &p, IB_QPT_UC, NULL);
	if (ret)
		return ret;
	kv_pattern_dev(&s->a, 0, 16384, 41);
	kv_clear(&s->b, 0, KV_BIG * 2);
	rs = kv_sge_mr(&s->b, 0, 16384);
	ret = kv_recv(r, p.b.qp, 1, &rs, 1);
	rs = kv_sge_mr(&s->b, 16384, 16384);
	ret = ret ?: kv_recv(r, p.b.qp, 2, &rs, 1);
	ss = kv_sge_dma(r, &s->a, 0, 4096);
	ret = ret ?: kv_send(r, &p.a, IB_WR_SEND, 11, &ss, 1, 0);
	ss = kv_sge_mr(&s->a, 0, 10000);
	ret = ret ?: kv_send(r, &p.a, IB_WR_SEND, 12, &ss, 1, 0);
	ret = ret ?: kv_expect(r, &p.a.scq, "send", 11, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.a.scq, "long send", 12, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "recv", 1, IB_WC_SUCCESS, IB_WC_RECV, &wc);
	if (!ret && wc.byte_len != 4096)
		ret = kv_fail(r, "recv byte_len %u, want 4096", wc.byte_len);
	ret = ret ?: kv_expect(r, &p.b.rcq, "long recv", 2, IB_WC_SUCCESS,
			       IB_WC_RECV, &wc);
	if (!ret && wc.byte_len != 10000)
		ret = kv_fail(r, "long recv byte_len %u, want 10000", wc.byte_len);
	if (ret)
		goto out;
	kv_buf_cpu(&s->b);
	ret = kv_check_fill(r, &s->b, 0, 4096, 41, "UC send data");
	ret = ret ?: kv_check_fill(r, &s->b, 16384, 10000, 41, "UC long send data");
	if (ret)
		goto out;
	/* RDMA WRITE */
	ss = kv_sge_dma(r, &s->a, 0, 8192);
	ret = kv_rdma(r, &p.a, IB_WR_RDMA_WRITE, 13, &ss, 1, s->b.iova + KV_BIG,
		      s->b.mr->rkey);
	ret = ret ?: kv_expect(r, &p.a.scq, "write", 13, IB_WC_SUCCESS,
			       IB_WC_RDMA_WRITE, NULL);
	/* UC completes at transmission: the next message proves arrival */
	ret = ret ?: kv_recv(r, p.b.qp, 3, NULL, 0);
	ss = kv_sge_dma(r, &s->a, 0, 16);
	ret = ret ?: kv_rdma(r, &p.a, IB_WR_RDMA_WRITE_WITH_IMM, 14, &ss, 1,
			     s->b.iova + KV_BIG + 8192, s->b.mr->rkey);
	ret = ret ?: kv_expect(r, &p.a.scq, "write imm", 14, IB_WC_SUCCESS,
			       IB_WC_RDMA_WRITE, NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "write imm recv", 3, IB_WC_SUCCESS,
			       IB_WC_RECV_RDMA_WITH_IMM, &wc);
	if (!ret && (wc.byte_len != 16 || !(wc.wc_flags & IB_WC_WITH_IMM)))
		ret = kv_fail(r, "write imm: byte_len %u flags 0x%x", wc.byte_len,
			      wc.wc_flags);
	if (ret)
		goto out;
	kv_buf_cpu(&s->b);
	ret = kv_check_fill(r, &s->b, KV_BIG, 8192, 41, "UC written data");
	ret = ret ?: kv_check_fill(r, &s->b, KV_BIG + 8192, 16, 41, "UC imm data");
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

static struct ib_ah *kv_ah(struct kv_run *r, u16 dlid, u32 port)
{
	struct rdma_ah_attr aa;
	struct ib_ah *ah;

	kv_ah_attr(r, &aa, dlid, port);
	ah = rdma_create_ah(r->pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR_OR_NULL(ah)) {
		kv_fail(r, "rdma_create_ah(dlid %u port %u) failed: %ld", dlid, port,
			ah ? PTR_ERR(ah) : -EINVAL);
		return NULL;
	}
	return ah;
}

/*
 * An AH with every attribute set (not used for traffic): rdma_query_ah()
 * gives them all back.  Rate 2 (2.5 Gb/s) is the lowest, which the driver
 * keeps whatever rates the card supports.
 */
static int kv_query_ah_all(struct kv_run *r)
{
	static const u8 dgid[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x12, 0x34, 0x56
	};
	struct rdma_ah_attr aa;
	struct ib_ah *ah;
	int ret, err;

	kv_ah_attr(r, &aa, 0x1234, 2);
	rdma_ah_set_sl(&aa, 5);
	rdma_ah_set_path_bits(&aa, 3);
	rdma_ah_set_static_rate(&aa, IB_RATE_2_5_GBPS);
	rdma_ah_set_grh(&aa, NULL, 0xabcde, 0, 7, 0x5a);
	rdma_ah_set_dgid_raw(&aa, (void *)dgid);
	ah = rdma_create_ah(r->pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR_OR_NULL(ah))
		return kv_fail(r, "rdma_create_ah(every attribute) failed: %ld",
			       ah ? PTR_ERR(ah) : -EINVAL);
	ret = kv_check_ah(r, ah, &aa, "AH with every attribute");
	err = rdma_destroy_ah_user(ah, 0, NULL);
	if (err)
		ret = kv_fail(r, "ib_destroy_ah failed: %d", err);
	return ret;
}

int kv_ud_send(struct kv_run *r, struct kv_ep *ep, struct ib_ah *ah,
	       u32 dqpn, u32 qkey, u64 wr_id, struct ib_sge *sge,
	       enum ib_wr_opcode op)
{
	const struct ib_send_wr *bad = NULL;
	struct ib_ud_wr wr;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr.wr_id = wr_id;
	wr.wr.sg_list = sge;
	wr.wr.num_sge = 1;
	wr.wr.opcode = op;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	if (op == IB_WR_SEND_WITH_IMM)
		wr.wr.ex.imm_data = cpu_to_be32(0x5a5a0000 | (u32)wr_id);
	wr.ah = ah;
	wr.remote_qpn = dqpn;
	wr.remote_qkey = qkey;
	ret = kv_post_send(r, ep->qp, &wr.wr, &bad);
	if (ret)
		return kv_fail(r, "UD ib_post_send failed: %d", ret);
	return 0;
}

/*
 * UD: an AH to the other port's LID (rdma_query_ah() gives back what it was
 * created with, as for an AH with every attribute set); the receive names
 * the source QP and LID, has no GRH, counts the 40-byte GRH space in
 * byte_len.  A wrong Q_Key is dropped.  The answer goes through
 * ib_create_ah_from_wc(), whose AH queries as the completion says.
 */
int kv_case_ud(struct kv_self *s)
{
	struct ib_ah *ah = NULL, *back = NULL;
	struct kv_run *r = &s->r;
	struct rdma_ah_attr qa;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	struct kv_pair p;
	int ret;

	ret = kv_pair_create(r, &p, IB_QPT_UD, NULL);
	if (ret)
		return ret;
	ah = kv_ah(r, r->lid[2], 1);
	if (!ah) {
		ret = -EIO;
		goto out;
	}
	kv_ah_attr(r, &qa, r->lid[2], 1);
	ret = kv_check_ah(r, ah, &qa, "AH to port 2");
	ret = ret ?: kv_query_ah_all(r);
	if (ret)
		goto out;
	kv_pattern_dev(&s->a, 0, 4096, 51);
	kv_clear(&s->b, 0, 3 * 8192);
	rs = kv_sge_mr(&s->b, 0, KV_GRH + 4096);
	ret = kv_recv(r, p.b.qp, 1, &rs, 1);
	rs = kv_sge_dma(r, &s->b, 8192, KV_GRH + 4096);
	ret = ret ?: kv_recv(r, p.b.qp, 2, &rs, 1);
	ss = kv_sge_dma(r, &s->a, 0, 1000);
	ret = ret ?: kv_ud_send(r, &p.a, ah, p.b.qp->qp_num, KV_QKEY, 21, &ss,
				IB_WR_SEND_WITH_IMM);
	ret = ret ?: kv_expect(r, &p.a.scq, "UD send", 21, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "UD recv", 1, IB_WC_SUCCESS,
			       IB_WC_RECV, &wc);
	if (ret)
		goto out;
	if (wc.byte_len != 1000 + KV_GRH)
		ret = kv_fail(r, "UD byte_len %u, want %u", wc.byte_len, 1000 + KV_GRH);
	else if (wc.src_qp != p.a.qp->qp_num)
		ret = kv_fail(r, "UD src_qp 0x%x, want 0x%x", wc.src_qp, p.a.qp->qp_num);
	else if (wc.slid != r->lid[1])
		ret = kv_fail(r, "UD slid %u, want %u", wc.slid, r->lid[1]);
	else if (wc.wc_flags & IB_WC_GRH)
		ret = kv_fail(r, "UD receive claims a GRH that was not sent");
	else if (!(wc.wc_flags & IB_WC_WITH_IMM) ||
		 wc.ex.imm_data != cpu_to_be32(0x5a5a0000 | 21))
		ret = kv_fail(r, "UD imm: flags 0x%x imm 0x%08x", wc.wc_flags,
			      be32_to_cpu(wc.ex.imm_data));
	else if (wc.pkey_index != 0)
		ret = kv_fail(r, "UD pkey_index %u", wc.pkey_index);
	else if (wc.qp != p.b.qp)
		ret = kv_fail(r, "UD completion names the wrong QP");
	if (ret)
		goto out;
	kv_buf_cpu(&s->b);
	ret = kv_check_fill(r, &s->b, KV_GRH, 1000, 51, "UD data");
	if (ret)
		goto out;

	/* a wrong Q_Key: dropped at b */
	ss = kv_sge_dma(r, &s->a, 0, 64);
	ret = kv_ud_send(r, &p.a, ah, p.b.qp->qp_num, KV_QKEY + 1, 22, &ss,
			 IB_WR_SEND);
	ret = ret ?: kv_expect(r, &p.a.scq, "bad Q_Key send", 22, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
	ret = ret ?: kv_expect_quiet(r, &p.b.rcq, "a wrong Q_Key", KV_QUIET_MS);
	if (ret)
		goto out;

	/* answer along the received completion */
	back = ib_create_ah_from_wc(r->pd, &wc, NULL, 2);
	if (IS_ERR_OR_NULL(back)) {
		ret = kv_fail(r, "ib_create_ah_from_wc failed: %ld",
			      back ? PTR_ERR(back) : -EINVAL);
		back = NULL;
		goto out;
	}
	kv_ah_attr(r, &qa, wc.slid, 2);
	rdma_ah_set_sl(&qa, wc.sl);
	rdma_ah_set_path_bits(&qa, wc.dlid_path_bits);
	ret = kv_check_ah(r, back, &qa, "AH from the completion");
	if (ret)
		goto out;
	kv_clear(&s->a, 8192, 8192);
	rs = kv_sge_mr(&s->a, 8192, KV_GRH + 4096);
	ret = kv_recv(r, p.a.qp, 3, &rs, 1);
	ss = kv_sge_mr(&s->b, KV_GRH, 1000);	/* what b got, back to a */
	ret = ret ?: kv_ud_send(r, &p.b, back, wc.src_qp, KV_QKEY, 23, &ss,
				IB_WR_SEND);
	ret = ret ?: kv_expect(r, &p.b.scq, "answer send", 23, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.a.rcq, "answer recv", 3, IB_WC_SUCCESS,
			       IB_WC_RECV, &wc);
	if (!ret && (wc.src_qp != p.b.qp->qp_num || wc.slid != r->lid[2] ||
		     wc.byte_len != 1000 + KV_GRH))
		ret = kv_fail(r, "answer: src_qp 0x%x slid %u byte_len %u",
			      wc.src_qp, wc.slid, wc.byte_len);
	if (ret)
		goto out;
	kv_buf_cpu(&s->a);
	ret = kv_check_fill(r, &s->a, 8192 + KV_GRH, 1000, 51, "answer data");
out:
	if (back && rdma_destroy_ah_user(back, 0, NULL))
		ret = kv_fail(r, "rdma_destroy_ah_user failed");
	if (ah && rdma_destroy_ah_user(ah, 0, NULL))
		ret = kv_fail(r, "rdma_destroy_ah_user failed");
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/*
 * Multicast: b (port 2, over the cable) and a second QP c (port 1, the
 * sender's own port: loopback) join a group; a UD send to the group's MLID
 * with a GRH reaches both; after the detach it reaches nobody.
 */
int kv_case_mcast(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct kv_ep c = { 0 };
	union ib_gid mgid;
	struct ib_ah *ah = NULL;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	struct kv_pair p;
	bool b_in = false, c_in = false, have_c = false;
	int ret, err;
	u16 mlid;

	kv_mc_group(1, &mgid, &mlid);
	ret = kv_pair_create(r, &p, IB_QPT_UD, NULL);
	if (ret)
		return ret;
	/* c: a second UD QP on port 1 */
	ret = kv_ep_init(r, &c, 1, 0);
	if (ret)
		goto out_pair;
	have_c = true;
	c.qp = kv_qp_create(r, &c, IB_QPT_UD, NULL, NULL, NULL);
	if (!c.qp) {
		ret = -EIO;
		goto out;
	}
	ret = kv_qp_init(r, c.qp, IB_QPT_UD, 1, KV_QKEY);
	ret = ret ?: kv_qp_rtr_rts(r, c.qp, IB_QPT_UD, 1, 0, 0, 0, 0x55, IB_MTU_256);
	if (ret)
		goto out;
	err = ib_attach_mcast(p.b.qp, &mgid, mlid);
	if (err) {
		ret = kv_fail(r, "ib_attach_mcast(b) failed: %d", err);
		goto out;
	}
	b_in = true;
	err = ib_attach_mcast(c.qp, &mgid, mlid);
	if (err) {
		ret = kv_fail(r, "ib_attach_mcast(c) failed: %d", err);
		goto out;
	}
	c_in = true;
	ah = kv_mc_ah(r, &mgid, mlid, 1);
	if (!ah) {
		ret = -EIO;
		goto out;
	}
	kv_pattern_dev(&s->a, 0, 512, 61);
	kv_clear(&s->b, 0, 16384);
	rs = kv_sge_mr(&s->b, 0, KV_GRH + 512);
	ret = kv_recv(r, p.b.qp, 1, &rs, 1);
	rs = kv_sge_mr(&s->b, 4096, KV_GRH + 512);
	ret = ret ?: kv_recv(r, c.qp, 2, &rs, 1);
	rs = kv_sge_mr(&s->b, 8192, KV_GRH + 512);
	ret = ret ?: kv_recv(r, p.b.qp, 3, &rs, 1);
	ss = kv_sge_dma(r, &s->a, 0, 512);
	ret = ret ?: kv_ud_send(r, &p.a, ah, 0xffffff, KV_QKEY, 31, &ss, IB_WR_SEND);
	ret = ret ?: kv_expect(r, &p.a.scq, "multicast send", 31, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "b's multicast recv", 1, IB_WC_SUCCESS,
			       IB_WC_RECV, &wc);
	if (ret)
		goto out;
	if (!(wc.wc_flags & IB_WC_GRH) || wc.byte_len != 512 + KV_GRH ||
	    wc.src_qp != p.a.qp->qp_num) {
		ret = kv_fail(r, "b's multicast recv: flags 0x%x byte_len %u src_qp 0x%x",
			      wc.wc_flags, wc.byte_len, wc.src_qp);
		goto out;
	}
	kv_buf_cpu(&s->b);
	if (memcmp((u8 *)s->b.cpu + 24, mgid.raw, 16)) {
		ret = kv_fail(r, "the received GRH does not name the group");
		goto out;
	}
	ret = kv_check_fill(r, &s->b, KV_GRH, 512, 61, "multicast data");
	ret = ret ?: kv_expect(r, &c.rcq, "c's loopback multicast recv", 2,
			       IB_WC_SUCCESS, IB_WC_RECV, &wc);
	if (ret)
		goto out;
	if (wc.qp != c.qp) {
		ret = kv_fail(r, "loopback multicast went to the wrong QP");
		goto out;
	}
	/* after the detach, nothing reaches b */
	err = ib_detach_mcast(p.b.qp, &mgid, mlid);
	b_in = false;
	if (err) {
		ret = kv_fail(r, "ib_detach_mcast(b) failed: %d", err);
		goto out;
	}
	err = ib_detach_mcast(c.qp, &mgid, mlid);
	c_in = false;
	if (err) {
		ret = kv_fail(r, "ib_detach_mcast(c) failed: %d", err);
		goto out;
	}
	ret = kv_ud_send(r, &p.a, ah, 0xffffff, KV_QKEY, 32, &ss, IB_WR_SEND);
	ret = ret ?: kv_expect(r, &p.a.scq, "multicast send after detach", 32,
			       IB_WC_SUCCESS, IB_WC_SEND, NULL);
	ret = ret ?: kv_expect_quiet(r, &p.b.rcq, "b after its detach", KV_QUIET_MS);
	ret = ret ?: kv_expect_quiet(r, &c.rcq, "c after its detach", 50);
out:
	if (b_in)
		ib_detach_mcast(p.b.qp, &mgid, mlid);
	if (c_in)
		ib_detach_mcast(c.qp, &mgid, mlid);
	if (ah && rdma_destroy_ah_user(ah, 0, NULL))
		ret = kv_fail(r, "rdma_destroy_ah_user failed");
	if (have_c && kv_ep_destroy(r, &c))
		ret = -EIO;
out_pair:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

static void kv_srq_event(struct ib_event *ev, void *ctx)
{
	struct kv_ep *ep = ctx;	/* the SRQ's events counted like a QP's */

	pr_info(KV_NAME ": SRQ event %s\n", ib_event_msg(ev->event));
	WRITE_ONCE(ep->last_event, ev->event);
	atomic_inc(&ep->events);
	wake_up(&ep->wq);
}

/*
 * SRQ: two RC pairs whose b ends receive from one SRQ into one CQ; the
 * completions name the right QP; the armed limit queries back and its
 * event fires once, when the posted WQEs drop below it, which disarms it;
 * destroying the SRQ in use is refused; a b QP moved to ERR gets
 * LAST_WQE_REACHED.
 */
int kv_case_srq(struct kv_self *s)
{
	struct kv_pair_opts o = { 0 };
	struct ib_srq_init_attr sia;
	struct ib_srq_attr sa;
	struct kv_run *r = &s->r;
	struct kv_pair *p1 = &s->pair[0], *p2 = &s->pair[1];
	struct kv_ep sev = { 0 };
	struct kv_cq rcq = { 0 };
	struct ib_srq *srq;
	struct ib_qp_attr qa;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	bool have1 = false, have2 = false;
	int ret, i, n, ev;

	sev.last_event = -1;
	init_waitqueue_head(&sev.wq);
	ret = kv_cq_create(r, &rcq, 64);
	if (ret)
		return ret;
	memset(&sia, 0, sizeof(sia));
	sia.event_handler = kv_srq_event;
	sia.srq_context = &sev;
	sia.attr.max_wr = 32;
	sia.attr.max_sge = 1;
	sia.srq_type = IB_SRQT_BASIC;
	srq = ib_create_srq(r->pd, &sia);
	if (IS_ERR_OR_NULL(srq)) {
		ret = kv_fail(r, "ib_create_srq failed: %ld", srq ? PTR_ERR(srq) : -EINVAL);
		kv_cq_destroy(&rcq);
		return ret;
	}
	memset(&sa, 0, sizeof(sa));
	ret = ib_query_srq(srq, &sa);
	if (ret) {
		kv_fail(r, "ib_query_srq failed: %d", ret);
		goto out;
	}
	if (sa.max_wr < 32 || sa.max_sge < 1) {
		ret = kv_fail(r, "SRQ granted max_wr %u max_sge %u", sa.max_wr, sa.max_sge);
		goto out;
	}
	o.srq_b = srq;
	o.rcq_b = &rcq;
	ret = kv_pair_create(r, p1, IB_QPT_RC, &o);
	if (ret)
		goto out;
	have1 = true;
	ret = kv_pair_create(r, p2, IB_QPT_RC, &o);
	if (ret)
		goto out;
	have2 = true;
	if (ib_destroy_srq_user(srq, NULL) != -EBUSY) {
		ret = kv_fail(r, "ib_destroy_srq of an SRQ in use not refused with -EBUSY");
		srq = NULL;	/* gone or not, do not touch it again */
		goto out;
	}

	kv_pattern_dev(&s->a, 0, 4096, 71);
	kv_clear(&s->b, 0, 8 * 4096);
	n = 6;
	for (i = 0; i < n && !ret; i++) {
		const struct ib_recv_wr *bad = NULL;
		struct ib_recv_wr wr = { .wr_id = 500 + i, .num_sge = 1 };

		rs = kv_sge_mr(&s->b, i * 4096, 4096);
		wr.sg_list = &rs;
		ret = kv_post_srq_recv(r, srq, &wr, &bad);
		if (ret)
			kv_fail(r, "ib_post_srq_recv failed: %d", ret);
	}
	/* 2 from each pair: the completions say which QP got them */
	for (i = 0; i < 4 && !ret; i++) {
		struct kv_pair *pp = i & 1 ? p2 : p1;

		ss = kv_sge_dma(r, &s->a, 0, 100 + i);
		ret = kv_send(r, &pp->a, IB_WR_SEND, 600 + i, &ss, 1, 0);
		ret = ret ?: kv_expect(r, &pp->a.scq, "send", 600 + i, IB_WC_SUCCESS,
				       IB_WC_SEND, NULL);
		ret = ret ?: kv_expect(r, &rcq, "SRQ recv", 500 + i, IB_WC_SUCCESS,
				       IB_WC_RECV, &wc);
		if (!ret && (wc.qp != pp->b.qp || wc.byte_len != 100 + i))
			ret = kv_fail(r, "SRQ recv %d: QP 0x%x byte_len %u, want 0x%x %d",
				      i, wc.qp ? wc.qp->qp_num : 0, wc.byte_len,
				      pp->b.qp->qp_num, 100 + i);
	}
	if (ret)
		goto out;
	kv_buf_cpu(&s->b);
	ret = kv_check_fill(r, &s->b, 3 * 4096, 103, 71, "SRQ data");
	if (ret)
		goto out;

	/*
	 * 2 left posted: arm the limit at 2 (not below it yet: no event),
	 * consume one more (below: the event, and the SRQ disarms), then the
	 * last one (no second event).
	 */
	ev = atomic_read(&sev.events);
	memset(&sa, 0, sizeof(sa));
	sa.srq_limit = 2;
	ret = ib_modify_srq(srq, &sa, IB_SRQ_LIMIT);
	if (ret) {
		kv_fail(r, "ib_modify_srq(limit 2) failed: %d", ret);
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	ret = ib_query_srq(srq, &sa);
	if (ret) {
		kv_fail(r, "ib_query_srq of the armed SRQ failed: %d", ret);
		goto out;
	}
	if (sa.srq_limit != 2) {
		ret = kv_fail(r, "the armed SRQ has limit %u, want 2", sa.srq_limit);
		goto out;
	}
	ret = kv_expect_quiet(r, &rcq, "nothing before the limit", 50);
	if (ret)
		goto out;
	if (atomic_read(&sev.events) != ev) {
		ret = kv_fail(r, "SRQ event %d with 2 WQEs posted and the limit at 2",
			      sev.last_event);
		goto out;
	}
	ss = kv_sge_dma(r, &s->a, 0, 8);
	ret = kv_send(r, &p1->a, IB_WR_SEND, 610, &ss, 1, 0);
	ret = ret ?: kv_expect(r, &rcq, "SRQ recv below the limit", 504,
			       IB_WC_SUCCESS, IB_WC_RECV, NULL);
	ret = ret ?: kv_expect(r, &p1->a.scq, "send below the limit", 610,
			       IB_WC_SUCCESS, IB_WC_SEND, NULL);
	if (ret)
		goto out;
	if (kv_wait_ep_event(&sev, ev, KV_WAIT_MS)) {
		ret = kv_fail(r, "no SRQ limit event within %d ms of 1 WQE left (limit 2)",
			      KV_WAIT_MS);
		goto out;
	}
	if (sev.last_event != IB_EVENT_SRQ_LIMIT_REACHED) {
		ret = kv_fail(r, "SRQ event %d, want SRQ_LIMIT_REACHED", sev.last_event);
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.srq_limit = 99;
	ret = ib_query_srq(srq, &sa);
	if (ret) {
		kv_fail(r, "ib_query_srq after the limit event failed: %d", ret);
		goto out;
	}
	if (sa.srq_limit != 0) {
		ret = kv_fail(r, "SRQ still armed (limit %u) after its limit event",
			      sa.srq_limit);
		goto out;
	}
	ev = atomic_read(&sev.events);
	ret = kv_send(r, &p1->a, IB_WR_SEND, 611, &ss, 1, 0);
	ret = ret ?: kv_expect(r, &rcq, "SRQ recv of the last WQE", 505,
			       IB_WC_SUCCESS, IB_WC_RECV, NULL);
	ret = ret ?: kv_expect(r, &p1->a.scq, "send of the last WQE", 611,
			       IB_WC_SUCCESS, IB_WC_SEND, NULL);
	if (ret)
		goto out;
	if (kv_wait_ep_event(&sev, ev, KV_QUIET_MS) != -ETIMEDOUT) {
		ret = kv_fail(r, "second SRQ event %d: the limit fires once per arming",
			      sev.last_event);
		goto out;
	}

	/* a QP of the SRQ in ERR: LAST_WQE_REACHED */
	ev = atomic_read(&p2->b.events);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IB_QPS_ERR;
	ret = ib_modify_qp(p2->b.qp, &qa, IB_QP_STATE);
	if (ret) {
		kv_fail(r, "modify to ERR failed: %d", ret);
		goto out;
	}
	if (kv_wait_ep_event(&p2->b, ev, KV_WAIT_MS))
		ret = kv_fail(r, "no LAST_WQE_REACHED within %d ms", KV_WAIT_MS);
	else if (p2->b.last_event != IB_EVENT_QP_LAST_WQE_REACHED)
		ret = kv_fail(r, "QP event %d, want LAST_WQE_REACHED",
			      p2->b.last_event);
out:
	if (have2 && kv_pair_destroy(r, p2))
		ret = -EIO;
	if (have1 && kv_pair_destroy(r, p1))
		ret = -EIO;
	if (srq) {
		int err = ib_destroy_srq_user(srq, NULL);

		if (err)
			ret = kv_fail(r, "ib_destroy_srq failed: %d", err);
	}
	if (kv_cq_destroy(&rcq))
		ret = -EIO;
	return ret;
}

/* Test group n: its MGID (ff12:401b:ffff::4b56:0:n) and MLID (0xc041 + n). */
void kv_mc_group(u8 n, union ib_gid *mgid, u16 *mlid)
{
	static const u8 raw[16] = {
		0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0x4b, 0x56, 0, 0
	};

	memcpy(mgid->raw, raw, sizeof(raw));
	mgid->raw[15] = n;
	*mlid = 0xc041 + n;
}

/* An AH from the port to the group, with a GRH; NULL (kv_fail) on failure. */
struct ib_ah *kv_mc_ah(struct kv_run *r, const union ib_gid *mgid, u16 mlid, u32 port)
{
	struct rdma_ah_attr aa;
	struct ib_ah *ah;

	kv_ah_attr(r, &aa, mlid, port);
	rdma_ah_set_grh(&aa, (union ib_gid *)mgid, 0, 0, 1, 0);
	ah = rdma_create_ah(r->pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	if (!IS_ERR_OR_NULL(ah))
		return ah;
	kv_fail(r, "multicast rdma_create_ah failed: %ld", ah ? PTR_ERR(ah) : -EINVAL);
	return NULL;
}

/* A UD QP of its own CQs on the port, in RTS. */
int kv_ud_ep(struct kv_run *r, struct kv_ep *ep, u32 port, const struct kv_pair_opts *o)
{
	int ret;

	ret = kv_ep_init(r, ep, port, 0);
	if (ret)
		return ret;
	ep->qp = kv_qp_create(r, ep, IB_QPT_UD, o, NULL, NULL);
	if (!ep->qp)
		return -EIO;
	ret = kv_qp_init(r, ep->qp, IB_QPT_UD, port, KV_QKEY);
	return ret ?: kv_qp_rtr_rts(r, ep->qp, IB_QPT_UD, port, 0, 0, 0, 0x77, IB_MTU_256);
}

/* A UD QP on port 1 that joins the group; flags at creation. */
int kv_mc_member(struct kv_run *r, struct kv_ep *ep, u32 create_flags,
		 union ib_gid *mgid, u16 mlid)
{
	struct kv_pair_opts o = { .create_flags = create_flags };
	int ret, err;

	ret = kv_ud_ep(r, ep, 1, &o);
	if (ret)
		return ret;
	err = ib_attach_mcast(ep->qp, mgid, mlid);
	if (err)
		return kv_fail(r, "ib_attach_mcast failed: %d", err);
	return 0;
}

/*
 * Multicast loopback: a member sending to its own group receives its own
 * message, unless it was created with IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK;
 * the other member on the port receives it either way.
 */
int kv_case_mcast_loopback(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct kv_ep open = { 0 }, blocked = { 0 };
	struct ib_ah *ah = NULL;
	union ib_gid mgid;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	int ret;
	u16 mlid;

	kv_mc_group(2, &mgid, &mlid);
	ret = kv_mc_member(r, &open, 0, &mgid, mlid);
	ret = ret ?: kv_mc_member(r, &blocked, IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK,
				  &mgid, mlid);
	if (ret)
		goto out;
	ah = kv_mc_ah(r, &mgid, mlid, 1);
	if (!ah) {
		ret = -EIO;
		goto out;
	}
	kv_pattern_dev(&s->a, 0, 64, 131);
	ss = kv_sge_dma(r, &s->a, 0, 64);
	rs = kv_sge_mr(&s->b, 0, KV_GRH + 64);
	ret = kv_recv(r, open.qp, 1, &rs, 1);
	rs = kv_sge_mr(&s->b, 4096, KV_GRH + 64);
	ret = ret ?: kv_recv(r, open.qp, 2, &rs, 1);
	rs = kv_sge_mr(&s->b, 8192, KV_GRH + 64);
	ret = ret ?: kv_recv(r, blocked.qp, 3, &rs, 1);
	/* from the open member: both get it, itself included */
	ret = ret ?: kv_ud_send(r, &open, ah, 0xffffff, KV_QKEY, 11, &ss, IB_WR_SEND);
	ret = ret ?: kv_expect(r, &open.scq, "send of the open member", 11,
			       IB_WC_SUCCESS, IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &open.rcq, "the open member's own message", 1,
			       IB_WC_SUCCESS, IB_WC_RECV, &wc);
	if (!ret && wc.src_qp != open.qp->qp_num)
		ret = kv_fail(r, "own message: src_qp 0x%x", wc.src_qp);
	ret = ret ?: kv_expect(r, &blocked.rcq, "the blocked member gets the other's", 3,
			       IB_WC_SUCCESS, IB_WC_RECV, NULL);
	if (ret)
		goto out;
	/* from the blocked member: only the open one gets it */
	rs = kv_sge_mr(&s->b, 8192, KV_GRH + 64);
	ret = kv_recv(r, blocked.qp, 4, &rs, 1);
	ret = ret ?: kv_ud_send(r, &blocked, ah, 0xffffff, KV_QKEY, 12, &ss, IB_WR_SEND);
	ret = ret ?: kv_expect(r, &blocked.scq, "send of the blocked member", 12,
			       IB_WC_SUCCESS, IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &open.rcq, "the open member gets the blocked one's", 2,
			       IB_WC_SUCCESS, IB_WC_RECV, &wc);
	if (!ret && wc.src_qp != blocked.qp->qp_num)
		ret = kv_fail(r, "src_qp 0x%x, want the blocked member 0x%x", wc.src_qp,
			      blocked.qp->qp_num);
	ret = ret ?: kv_expect_quiet(r, &blocked.rcq,
				     "the blocked member's own message (loopback blocked)",
				     KV_QUIET_MS);
out:
	if (ah && rdma_destroy_ah_user(ah, 0, NULL))
		ret = kv_fail(r, "rdma_destroy_ah_user failed");
	if (blocked.qp)
		ib_detach_mcast(blocked.qp, &mgid, mlid);
	if (open.qp)
		ib_detach_mcast(open.qp, &mgid, mlid);
	if (blocked.r && kv_ep_destroy(r, &blocked))
		ret = -EIO;
	if (open.r && kv_ep_destroy(r, &open))
		ret = -EIO;
	return ret;
}

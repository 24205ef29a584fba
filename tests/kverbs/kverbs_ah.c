// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles and work requests as 6.1's API shapes them: an AH made
 * in atomic context, the attributes queried back, the reply address of a
 * receive (ib_init_ah_attr_from_wc()), wr_cqe and ex.imm_data end to end.
 */
#include <linux/spinlock.h>

#include "kverbs.h"

static DEFINE_SPINLOCK(kv_ah_lock);

/*
 * rdma_create_ah() without RDMA_CREATE_AH_SLEEPABLE under a spinlock with
 * interrupts off (as IPoIB creates its AHs), and rdma_destroy_ah(ah, 0)
 * likewise: the AH works for a UD send in between.
 */
int kv_case_ah_atomic(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct rdma_ah_attr aa;
	struct ib_ah *ah = NULL;
	struct ib_sge ss, rs;
	unsigned long flags;
	struct ib_wc wc;
	struct kv_pair p;
	int ret;

	if (rdma_ah_find_type(r->dev, 1) != RDMA_AH_ATTR_TYPE_IB ||
	    rdma_ah_find_type(r->dev, 3) != RDMA_AH_ATTR_TYPE_UNDEFINED)
		return kv_fail(r, "rdma_ah_find_type: port 1 %d, port 3 %d",
			       rdma_ah_find_type(r->dev, 1), rdma_ah_find_type(r->dev, 3));
	ret = kv_pair_create(r, &p, IB_QPT_UD, NULL);
	if (ret)
		return ret;
	kv_ah_attr(r, &aa, r->lid[2], 1);
	rdma_ah_set_sl(&aa, 2);
	spin_lock_irqsave(&kv_ah_lock, flags);
	ah = kv_ah_create(r, &aa, 0, "flags 0, under a spinlock");
	spin_unlock_irqrestore(&kv_ah_lock, flags);
	ret = ah ? kv_check_ah(r, ah, &aa, "AH made under a spinlock") : -EIO;
	if (ret)
		goto out;

	kv_buf_cpu(&s->a);
	kv_fill(&s->a, 0, 200, 61);
	kv_buf_dev(&s->a);
	kv_buf_dev(&s->b);
	rs = kv_sge_mr(&s->b, 0, KV_GRH + 4096);
	ret = kv_recv(r, p.b.qp, 1, &rs, 1);
	ss = kv_sge_dma(r, &s->a, 0, 200);
	ret = ret ?: kv_ud_send(r, &p.a, ah, p.b.qp->qp_num, KV_QKEY, 2, &ss, IB_WR_SEND);
	ret = ret ?: kv_expect(r, &p.a.scq, "send through it", 2, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "its receive", 1, IB_WC_SUCCESS, IB_WC_RECV,
			       &wc);
	if (!ret && (wc.slid != r->lid[1] || wc.sl != 2 || wc.byte_len != 200 + KV_GRH))
		ret = kv_fail(r, "receive: slid %u sl %u byte_len %u", wc.slid, wc.sl,
			      wc.byte_len);
	if (!ret) {
		kv_buf_cpu(&s->b);
		ret = kv_check_fill(r, &s->b, KV_GRH, 200, 61, "data through the AH");
	}
out:
	if (ah) {
		spin_lock_irqsave(&kv_ah_lock, flags);
		rdma_destroy_ah(ah, 0);
		spin_unlock_irqrestore(&kv_ah_lock, flags);
	}
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

static int kv_ah_refused(struct kv_run *r, struct rdma_ah_attr *aa, const char *what)
{
	struct ib_ah *ah = rdma_create_ah(r->pd, aa, RDMA_CREATE_AH_SLEEPABLE);

	if (IS_ERR(ah) && PTR_ERR(ah) == -EINVAL)
		return 0;
	if (!IS_ERR_OR_NULL(ah))
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	return kv_fail(r, "rdma_create_ah(%s): %d, want -EINVAL", what, PTR_ERR_OR_ZERO(ah));
}

/*
 * rdma_query_ah() gives back a GRH AH as created (type IB, DLID, SL, port,
 * every GRH field, no sgid_attr); rdma_modify_ah() is not supported; an
 * invalid port (0, 3) is -EINVAL.
 */
int kv_case_ah_query(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct rdma_ah_attr aa;
	struct ib_ah *ah;
	union ib_gid g2;
	int ret, err;

	if (rdma_query_gid(r->dev, 2, 0, &g2))
		return kv_fail(r, "rdma_query_gid failed");
	kv_ah_attr(r, &aa, r->lid[2], 3);
	ret = kv_ah_refused(r, &aa, "port 3");
	kv_ah_attr(r, &aa, r->lid[2], 0);
	ret = ret ?: kv_ah_refused(r, &aa, "port 0");
	if (ret)
		return ret;

	kv_ah_attr(r, &aa, r->lid[2], 1);
	rdma_ah_set_sl(&aa, 9);
	rdma_ah_set_static_rate(&aa, IB_RATE_2_5_GBPS);	/* every card keeps it */
	rdma_ah_set_grh(&aa, &g2, 0x54321, 0, 33, 0x48);
	ah = kv_ah_create(r, &aa, RDMA_CREATE_AH_SLEEPABLE, "GRH");
	if (!ah)
		return -EIO;
	ret = kv_check_ah(r, ah, &aa, "GRH AH");
	err = rdma_modify_ah(ah, &aa);
	if (!ret && err != -EOPNOTSUPP)
		ret = kv_fail(r, "rdma_modify_ah: %d, want -EOPNOTSUPP", err);
	err = rdma_destroy_ah_user(ah, RDMA_DESTROY_AH_SLEEPABLE, NULL);
	if (err)
		ret = kv_fail(r, "rdma_destroy_ah_user failed: %d", err);
	return ret;
}

/* One UD message from a to b through ah; its completion in wc. */
static int kv_ah_one(struct kv_self *s, struct kv_pair *p, struct ib_ah *ah, u64 id,
		     struct ib_wc *wc)
{
	struct kv_run *r = &s->r;
	struct ib_sge ss, rs;
	int ret;

	kv_buf_dev(&s->b);
	rs = kv_sge_mr(&s->b, 0, KV_GRH + 4096);
	ret = kv_recv(r, p->b.qp, id, &rs, 1);
	ss = kv_sge_dma(r, &s->a, 0, 64);
	ret = ret ?: kv_ud_send(r, &p->a, ah, p->b.qp->qp_num, KV_QKEY, id + 1, &ss,
				IB_WR_SEND);
	ret = ret ?: kv_expect(r, &p->a.scq, "UD send", id + 1, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p->b.rcq, "UD recv", id, IB_WC_SUCCESS, IB_WC_RECV, wc);
	if (!ret)
		kv_buf_cpu(&s->b);
	return ret;
}

/* The reply vector of a receive without GRH: the sender's LID, SL, bits. */
static int kv_from_wc_plain(struct kv_run *r, const struct ib_wc *wc)
{
	struct rdma_ah_attr ra;
	int err;

	err = ib_init_ah_attr_from_wc(r->dev, 2, wc, NULL, &ra);
	if (err)
		return kv_fail(r, "ib_init_ah_attr_from_wc (no GRH): %d", err);
	if (ra.type != RDMA_AH_ATTR_TYPE_IB || rdma_ah_get_dlid(&ra) != r->lid[1] ||
	    rdma_ah_get_sl(&ra) != wc->sl || rdma_ah_get_port_num(&ra) != 2 ||
	    rdma_ah_get_path_bits(&ra) != wc->dlid_path_bits ||
	    (rdma_ah_get_ah_flags(&ra) & IB_AH_GRH))
		err = kv_fail(r, "from_wc: type %d dlid %u sl %u port %u bits %u flags 0x%x",
			      ra.type, rdma_ah_get_dlid(&ra), rdma_ah_get_sl(&ra),
			      rdma_ah_get_port_num(&ra), rdma_ah_get_path_bits(&ra),
			      rdma_ah_get_ah_flags(&ra));
	rdma_destroy_ah_attr(&ra);
	return err;
}

/*
 * The reply vector of a receive with a GRH: back to the sender's GID (g1)
 * from the local GID the message reached (g2, index 0 of port 2), hop limit
 * 0xff, the flow label and traffic class of the GRH.  A missing GRH is
 * -EINVAL; a GRH to a GID of the other port is -ENOENT.
 */
static int kv_from_wc_grh(struct kv_run *r, const struct ib_wc *wc, const void *buf,
			  const union ib_gid *g1)
{
	const struct ib_global_route *g;
	struct rdma_ah_attr ra;
	struct ib_grh grh;
	int err;

	memcpy(&grh, buf, sizeof(grh));
	/*
	 * The model sends TClass and flow label 0 whatever the AH says; the
	 * vector takes them from the header it is given, so give known ones.
	 */
	grh.version_tclass_flow = cpu_to_be32(6 << 28 | 0x20 << 20 | 0x12345);
	err = ib_init_ah_attr_from_wc(r->dev, 2, wc, &grh, &ra);
	if (err)
		return kv_fail(r, "ib_init_ah_attr_from_wc (GRH): %d", err);
	g = rdma_ah_read_grh(&ra);
	if (ra.type != RDMA_AH_ATTR_TYPE_IB || rdma_ah_get_dlid(&ra) != r->lid[1] ||
	    !(rdma_ah_get_ah_flags(&ra) & IB_AH_GRH) ||
	    memcmp(g->dgid.raw, g1->raw, sizeof(g1->raw)) || g->sgid_index != 0)
		err = kv_fail(r, "from_wc GRH: type %d dlid %u flags 0x%x DGID %pI6 SGID %u",
			      ra.type, rdma_ah_get_dlid(&ra), rdma_ah_get_ah_flags(&ra),
			      g->dgid.raw, g->sgid_index);
	else if (kv_check_sgid_attr(r, g->sgid_attr, 2, 0, "from_wc GRH"))
		err = -EIO;
	else if (g->hop_limit != 0xff || g->flow_label != 0x12345 || g->traffic_class != 0x20)
		err = kv_fail(r, "from_wc GRH: hop limit %u flow 0x%x tclass 0x%x",
			      g->hop_limit, g->flow_label, g->traffic_class);
	rdma_destroy_ah_attr(&ra);
	if (err)
		return err;

	err = ib_init_ah_attr_from_wc(r->dev, 2, wc, NULL, &ra);
	if (err != -EINVAL)
		return kv_fail(r, "from_wc, GRH flagged, none given: %d, want -EINVAL", err);
	grh.dgid = *g1;		/* port 1's GID, not port 2's */
	err = ib_init_ah_attr_from_wc(r->dev, 2, wc, &grh, &ra);
	if (err != -ENOENT)
		return kv_fail(r, "from_wc, GRH to the other port's GID: %d, want -ENOENT", err);
	return 0;
}

/* ib_init_ah_attr_from_wc() on a receive without and one with a GRH. */
int kv_case_ah_from_wc(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_ah *ah = NULL;
	struct rdma_ah_attr aa;
	union ib_gid g1, g2;
	struct ib_wc wc;
	struct kv_pair p;
	int ret;

	if (rdma_query_gid(r->dev, 1, 0, &g1) || rdma_query_gid(r->dev, 2, 0, &g2))
		return kv_fail(r, "rdma_query_gid failed");
	ret = kv_pair_create(r, &p, IB_QPT_UD, NULL);
	if (ret)
		return ret;
	kv_ah_attr(r, &aa, r->lid[2], 1);
	ah = kv_ah_create(r, &aa, RDMA_CREATE_AH_SLEEPABLE, "no GRH");
	ret = ah ? kv_ah_one(s, &p, ah, 10, &wc) : -EIO;
	if (!ret && (wc.wc_flags & IB_WC_GRH))
		ret = kv_fail(r, "a receive without GRH flags one");
	ret = ret ?: kv_from_wc_plain(r, &wc);
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	ah = NULL;
	if (ret)
		goto out;

	rdma_ah_set_grh(&aa, &g2, 0x12345, 0, 64, 0x20);
	ah = kv_ah_create(r, &aa, RDMA_CREATE_AH_SLEEPABLE, "GRH");
	ret = ah ? kv_ah_one(s, &p, ah, 20, &wc) : -EIO;
	if (!ret && !(wc.wc_flags & IB_WC_GRH))
		ret = kv_fail(r, "a receive with a GRH does not flag it");
	ret = ret ?: kv_from_wc_grh(r, &wc, s->b.cpu, &g1);
out:
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

struct kv_cqe {
	struct ib_cqe	cqe;
	int		done;
};

static void kv_cqe_done(struct ib_cq *cq, struct ib_wc *wc)
{
	container_of(wc->wr_cqe, struct kv_cqe, cqe)->done++;
}

/* A completion whose wr_cqe is wc's: its done() runs (as a ULP dispatches). */
static int kv_cqe_check(struct kv_run *r, struct kv_cq *kc, struct kv_cqe *want,
			struct ib_wc *wc, const char *what)
{
	int ret = kv_wait_wc(r, kc, wc, 1, KV_WAIT_MS);

	if (ret != 1)
		return kv_fail(r, "%s: no completion: %d", what, ret);
	if (wc->status != IB_WC_SUCCESS || wc->wr_cqe != &want->cqe)
		return kv_fail(r, "%s: status %s, wr_cqe %p, want %p", what,
			       kv_status(wc->status), wc->wr_cqe, &want->cqe);
	wc->wr_cqe->done(kc->cq, wc);
	if (want->done != 1)
		return kv_fail(r, "%s: done() ran %d times", what, want->done);
	return 0;
}

/*
 * RC SEND_WITH_IMM posted with wr_cqe instead of wr_id, into a receive
 * posted likewise: both completions carry the same ib_cqe pointers, and
 * the receive has IB_WC_WITH_IMM and the immediate in ex.imm_data.
 */
int kv_case_wr_cqe(struct kv_self *s)
{
	struct kv_cqe scqe = { .cqe.done = kv_cqe_done };
	struct kv_cqe rcqe = { .cqe.done = kv_cqe_done };
	struct kv_run *r = &s->r;
	const struct ib_send_wr *sbad = NULL;
	const struct ib_recv_wr *rbad = NULL;
	struct ib_send_wr swr = {};
	struct ib_recv_wr rwr = {};
	struct ib_sge ss, rs;
	struct ib_wc wc;
	struct kv_pair p;
	int ret;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	kv_buf_dev(&s->b);
	rs = kv_sge_mr(&s->b, 0, 4096);
	rwr.wr_cqe = &rcqe.cqe;
	rwr.sg_list = &rs;
	rwr.num_sge = 1;
	ret = kv_post_recv(r, p.b.qp, &rwr, &rbad);
	if (ret) {
		ret = kv_fail(r, "ib_post_recv(wr_cqe) failed: %d", ret);
		goto out;
	}
	kv_buf_cpu(&s->a);
	kv_fill(&s->a, 0, 100, 71);
	kv_buf_dev(&s->a);
	ss = kv_sge_dma(r, &s->a, 0, 100);
	swr.wr_cqe = &scqe.cqe;
	swr.sg_list = &ss;
	swr.num_sge = 1;
	swr.opcode = IB_WR_SEND_WITH_IMM;
	swr.send_flags = IB_SEND_SIGNALED;
	swr.ex.imm_data = cpu_to_be32(0xc0ffee42);
	ret = kv_post_send(r, p.a.qp, &swr, &sbad);
	if (ret) {
		ret = kv_fail(r, "ib_post_send(wr_cqe) failed: %d", ret);
		goto out;
	}
	ret = kv_cqe_check(r, &p.a.scq, &scqe, &wc, "send");
	if (!ret && wc.opcode != IB_WC_SEND)
		ret = kv_fail(r, "send: opcode %d", wc.opcode);
	ret = ret ?: kv_cqe_check(r, &p.b.rcq, &rcqe, &wc, "receive");
	if (!ret && (wc.opcode != IB_WC_RECV || !(wc.wc_flags & IB_WC_WITH_IMM) ||
		     wc.ex.imm_data != cpu_to_be32(0xc0ffee42) || wc.byte_len != 100))
		ret = kv_fail(r, "receive: opcode %d flags 0x%x imm 0x%08x byte_len %u",
			      wc.opcode, wc.wc_flags, be32_to_cpu(wc.ex.imm_data),
			      wc.byte_len);
	if (!ret) {
		kv_buf_cpu(&s->b);
		ret = kv_check_fill(r, &s->b, 0, 100, 71, "wr_cqe data");
	}
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

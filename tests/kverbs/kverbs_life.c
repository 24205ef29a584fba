// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: QP and MR life-cycle cases - SQ drain (SQD) and resume,
 * recovery of a QP from ERR through RESET, and the remote access checks:
 * QP access flags changed in RTS, MR rights and bounds, the rkey of a
 * deregistered MR.
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "kverbs.h"

/* RTS->SQD with the drained event, a send held while in SQD, ->RTS. */
int kv_case_sqd(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	enum ib_qp_state st;
	struct ib_qp_attr a;
	struct ib_sge ss, rs;
	struct kv_pair p;
	int ret, ev;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	ev = atomic_read(&p.a.events);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_SQD;
	a.en_sqd_async_notify = 1;
	ret = ib_modify_qp(p.a.qp, &a, IB_QP_STATE | IB_QP_EN_SQD_ASYNC_NOTIFY);
	if (ret) {
		kv_fail(r, "RTS->SQD failed: %d", ret);
		goto out;
	}
	if (kv_wait_ep_event(&p.a, ev, KV_WAIT_MS)) {
		ret = kv_fail(r, "no SQ_DRAINED event within %d ms", KV_WAIT_MS);
		goto out;
	}
	if (p.a.last_event != IB_EVENT_SQ_DRAINED) {
		ret = kv_fail(r, "event %d, want SQ_DRAINED", p.a.last_event);
		goto out;
	}
	ret = kv_qp_state(r, p.a.qp, &st);
	if (!ret && st != IB_QPS_SQD)
		ret = kv_fail(r, "state %d after RTS->SQD", st);
	if (ret)
		goto out;
	ss = kv_sge_dma(r, &s->a, 0, 32);
	rs = kv_sge_mr(&s->b, 0, 32);
	ret = kv_recv(r, p.b.qp, 1, &rs, 1);
	ret = ret ?: kv_send(r, &p.a, IB_WR_SEND, 2, &ss, 1, 0);
	ret = ret ?: kv_expect_quiet(r, &p.a.scq, "a send posted in SQD", 100);
	if (ret)
		goto out;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	ret = ib_modify_qp(p.a.qp, &a, IB_QP_STATE);
	if (ret) {
		kv_fail(r, "SQD->RTS failed: %d", ret);
		goto out;
	}
	ret = kv_expect(r, &p.a.scq, "the held send after SQD->RTS", 2, IB_WC_SUCCESS,
			IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "its receive", 1, IB_WC_SUCCESS,
			       IB_WC_RECV, NULL);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/* A QP in ERR goes back to RESET and is connected again; traffic works. */
int kv_case_err_recover(struct kv_self *s)
{
	enum ib_mtu mtu = min(s->r.mtu[1], s->r.mtu[2]);
	struct kv_run *r = &s->r;
	struct ib_qp_attr a;
	struct ib_sge ss, rs;
	struct kv_pair p;
	int ret, round;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	for (round = 0; round < 3 && !ret; round++) {
		/* a bad lkey: a in ERR, flushed */
		ss = kv_sge_dma(r, &s->a, 0, 32);
		ss.lkey ^= 0x7fff00;
		ret = kv_send(r, &p.a, IB_WR_SEND, 1, &ss, 1, 0);
		ret = ret ?: kv_expect(r, &p.a.scq, "bad lkey", 1, IB_WC_LOC_PROT_ERR, -1,
				       NULL);
		if (ret)
			break;
		memset(&a, 0, sizeof(a));
		a.qp_state = IB_QPS_RESET;
		ret = ib_modify_qp(p.a.qp, &a, IB_QP_STATE);
		ret = ret ?: ib_modify_qp(p.b.qp, &a, IB_QP_STATE);
		if (ret) {
			kv_fail(r, "ERR->RESET failed: %d", ret);
			break;
		}
		/* new PSNs each time */
		ret = kv_qp_init(r, p.a.qp, IB_QPT_RC, 1, 0);
		ret = ret ?: kv_qp_init(r, p.b.qp, IB_QPT_RC, 2, 0);
		ret = ret ?: kv_qp_rtr_rts(r, p.a.qp, IB_QPT_RC, 1, r->lid[2],
					   p.b.qp->qp_num, 100 * round + 7,
					   200 * round + 9, mtu);
		ret = ret ?: kv_qp_rtr_rts(r, p.b.qp, IB_QPT_RC, 2, r->lid[1],
					   p.a.qp->qp_num, 200 * round + 9,
					   100 * round + 7, mtu);
		if (ret)
			break;
		ss = kv_sge_dma(r, &s->a, 0, 32);
		rs = kv_sge_mr(&s->b, 0, 32);
		ret = kv_recv(r, p.b.qp, 10 + round, &rs, 1);
		ret = ret ?: kv_send(r, &p.a, IB_WR_SEND, 20 + round, &ss, 1, 0);
		ret = ret ?: kv_expect(r, &p.a.scq, "send after the recovery", 20 + round,
				       IB_WC_SUCCESS, IB_WC_SEND, NULL);
		ret = ret ?: kv_expect(r, &p.b.rcq, "receive after the recovery",
				       10 + round, IB_WC_SUCCESS, IB_WC_RECV, NULL);
		if (ret)
			kv_fail(r, "(round %d)", round);
	}
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/* One RDMA operation on a fresh pair that must fail with want. */
static int kv_access_one(struct kv_self *s, const char *what, enum ib_wr_opcode op,
			 u64 raddr, u32 rkey, u32 len, enum ib_wc_status want)
{
	struct kv_run *r = &s->r;
	struct ib_sge ss;
	struct kv_pair p;
	int ret;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	ss = kv_sge_dma(r, &s->a, 0, len);
	ret = kv_rdma(r, &p.a, op, 1, &ss, 1, raddr, rkey);
	ret = ret ?: kv_expect(r, &p.a.scq, what, 1, want, -1, NULL);
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

static struct ib_mr *kv_mr_over_b(struct kv_self *s, u64 iova, u64 len, int access)
{
	u64 pages[2] = { s->b.dma, s->b.dma + PAGE_SIZE };
	struct ib_mr *mr;

	mr = ibstack_reg_kernel_mr(s->r.pd, pages, 2, PAGE_SHIFT, iova, len, access);
	if (IS_ERR_OR_NULL(mr)) {
		kv_fail(&s->r, "ibstack_reg_kernel_mr(access 0x%x) failed: %ld", access,
			mr ? PTR_ERR(mr) : -EINVAL);
		return NULL;
	}
	return mr;
}

/*
 * Remote access rights: QP access flags changed in RTS (RTS->RTS), an MR
 * without remote write, an access past an MR's end, the rkey of an MR that
 * was deregistered.
 */
int kv_case_access(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_qp_init_attr ia;
	struct ib_mr *mr;
	struct ib_qp_attr a;
	struct ib_sge ss;
	struct kv_pair p;
	u32 rkey;
	int ret, err;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.qp_access_flags = IB_ACCESS_REMOTE_READ;
	ret = ib_modify_qp(p.b.qp, &a, IB_QP_STATE | IB_QP_ACCESS_FLAGS);
	if (ret) {
		kv_fail(r, "RTS->RTS with new access flags failed: %d", ret);
		goto out;
	}
	memset(&a, 0, sizeof(a));
	memset(&ia, 0, sizeof(ia));
	ret = ib_query_qp(p.b.qp, &a, IB_QP_ACCESS_FLAGS | IB_QP_STATE, &ia);
	if (!ret && (a.qp_state != IB_QPS_RTS ||
		     (a.qp_access_flags & IB_ACCESS_SUPPORTED & ~IB_ACCESS_LOCAL_WRITE) !=
		     IB_ACCESS_REMOTE_READ))
		ret = kv_fail(r, "after RTS->RTS: state %d access 0x%x", a.qp_state,
			      a.qp_access_flags);
	if (ret)
		goto out;
	ss = kv_sge_dma(r, &s->a, 0, 64);
	ret = kv_rdma(r, &p.a, IB_WR_RDMA_READ, 1, &ss, 1, s->b.iova, s->b.mr->rkey);
	ret = ret ?: kv_expect(r, &p.a.scq, "read allowed by the QP", 1, IB_WC_SUCCESS,
			       IB_WC_RDMA_READ, NULL);
	ret = ret ?: kv_rdma(r, &p.a, IB_WR_RDMA_WRITE, 2, &ss, 1, s->b.iova,
			     s->b.mr->rkey);
	ret = ret ?: kv_expect(r, &p.a.scq, "write to a QP without remote write", 2,
			       IB_WC_REM_ACCESS_ERR, -1, NULL);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	if (ret)
		return ret;

	/* an MR without remote write */
	mr = kv_mr_over_b(s, 0x40000000, 2 * PAGE_SIZE,
			  IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ);
	if (!mr)
		return -EIO;
	ret = kv_access_one(s, "write to a read-only MR", IB_WR_RDMA_WRITE, 0x40000000,
			    mr->rkey, 64, IB_WC_REM_ACCESS_ERR);
	ret = ret ?: kv_access_one(s, "read of a read-only MR", IB_WR_RDMA_READ,
				   0x40000000, mr->rkey, 64, IB_WC_SUCCESS);
	err = ib_dereg_mr(mr);
	if (err)
		ret = kv_fail(r, "ib_dereg_mr failed: %d", err);
	if (ret)
		return ret;

	/* past the end of an MR of 2 pages, and below its start */
	mr = kv_mr_over_b(s, 0x50000000, 2 * PAGE_SIZE, IB_ACCESS_LOCAL_WRITE |
			  IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ);
	if (!mr)
		return -EIO;
	ret = kv_access_one(s, "write inside the MR", IB_WR_RDMA_WRITE,
			    0x50000000 + 2 * PAGE_SIZE - 64, mr->rkey, 64, IB_WC_SUCCESS);
	ret = ret ?: kv_access_one(s, "write across the MR's end", IB_WR_RDMA_WRITE,
				   0x50000000 + 2 * PAGE_SIZE - 8, mr->rkey, 64,
				   IB_WC_REM_ACCESS_ERR);
	ret = ret ?: kv_access_one(s, "read below the MR's start", IB_WR_RDMA_READ,
				   0x50000000 - 64, mr->rkey, 64, IB_WC_REM_ACCESS_ERR);
	rkey = mr->rkey;
	err = ib_dereg_mr(mr);
	if (err)
		return kv_fail(r, "ib_dereg_mr failed: %d", err);
	if (ret)
		return ret;
	/* the rkey of a deregistered MR */
	return kv_access_one(s, "write with the rkey of a deregistered MR",
			     IB_WR_RDMA_WRITE, 0x50000000, rkey, 64, IB_WC_REM_ACCESS_ERR);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: CQ overrun, UD with a GRH, an SRQ cycled many times
 * round, and two threads posting to one QP while a third polls.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kverbs.h"

/* More completions than the CQ holds, none polled: a CQ error event. */
int kv_case_cq_overrun(struct kv_self *s)
{
	struct kv_pair_opts o = { .cqe = 4, .max_send_wr = 64 };
	struct kv_run *r = &s->r;
	struct kv_cq big = { 0 };
	struct ib_sge ss, rs;
	struct kv_pair p;
	int ret, i, n;
	long left;

	ret = kv_cq_create(r, &big, 128);
	if (ret)
		return ret;
	o.rcq_b = &big;
	ret = kv_pair_create(r, &p, IB_QPT_RC, &o);
	if (ret)
		goto out_big;
	n = p.a.scq.cq->cqe + 4;
	if (n > 60) {
		ret = kv_fail(r, "a CQ of 4 has %d entries; cannot overrun it", n - 4);
		goto out;
	}
	ss = kv_sge_dma(r, &s->a, 0, 8);
	rs = kv_sge_mr(&s->b, 0, 8);
	for (i = 0; i < n && !ret; i++)
		ret = kv_recv(r, p.b.qp, i, &rs, 1);
	for (i = 0; i < n && !ret; i++)
		ret = kv_send(r, &p.a, IB_WR_SEND, i, &ss, 1, 0);
	for (i = 0; i < n && !ret; i++)
		ret = kv_expect(r, &big, "receive", i, IB_WC_SUCCESS, IB_WC_RECV, NULL);
	if (ret)
		goto out;
	/* every send has been delivered: the sender's CQ got n CQEs */
	left = wait_event_timeout(p.a.scq.wq, atomic_read(&p.a.scq.events) > 0,
				  msecs_to_jiffies(KV_WAIT_MS));
	if (!left)
		ret = kv_fail(r, "%d completions into a CQ of %d: no CQ error event",
			      n, n - 4);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
out_big:
	if (kv_cq_destroy(&big))
		ret = -EIO;
	return ret;
}

/*
 * UD to a unicast GID (rdma_query_ah() gives back the GRH the AH was created
 * with): the receive has a GRH naming both GIDs.
 */
int kv_case_ud_grh(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	const struct ib_send_wr *bad = NULL;
	union ib_gid g1, g2;
	struct ib_ud_wr wr;
	struct rdma_ah_attr aa;
	struct ib_ah *ah = NULL, *back = NULL;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	struct kv_pair p;
	const u8 *grh;
	int ret;

	if (rdma_query_gid(r->dev, 1, 0, &g1) || rdma_query_gid(r->dev, 2, 0, &g2))
		return kv_fail(r, "rdma_query_gid failed");
	ret = kv_pair_create(r, &p, IB_QPT_UD, NULL);
	if (ret)
		return ret;
	kv_ah_attr(r, &aa, r->lid[2], 1);
	rdma_ah_set_grh(&aa, &g2, 0x12345, 0, 64, 0x20);
	ah = rdma_create_ah(r->pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR_OR_NULL(ah)) {
		ret = kv_fail(r, "rdma_create_ah(GRH) failed: %ld", ah ? PTR_ERR(ah) : -EINVAL);
		ah = NULL;
		goto out;
	}
	ret = kv_check_ah(r, ah, &aa, "AH with a GRH");
	if (ret)
		goto out;
	kv_buf_cpu(&s->a);
	kv_fill(&s->a, 0, 300, 101);
	kv_buf_dev(&s->a);
	kv_buf_cpu(&s->b);
	memset(s->b.cpu, 0, 4096);
	kv_buf_dev(&s->b);
	rs = kv_sge_mr(&s->b, 0, KV_GRH + 1024);
	ret = kv_recv(r, p.b.qp, 1, &rs, 1);
	if (ret)
		goto out;
	ss = kv_sge_dma(r, &s->a, 0, 300);
	memset(&wr, 0, sizeof(wr));
	wr.wr.wr_id = 2;
	wr.wr.sg_list = &ss;
	wr.wr.num_sge = 1;
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.ah = ah;
	wr.remote_qpn = p.b.qp->qp_num;
	wr.remote_qkey = 0x11111111;
	ret = kv_post_send(r, p.a.qp, &wr.wr, &bad);
	if (ret) {
		kv_fail(r, "UD post_send: %d", ret);
		goto out;
	}
	ret = kv_expect(r, &p.a.scq, "UD GRH send", 2, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "UD GRH recv", 1, IB_WC_SUCCESS, IB_WC_RECV,
			       &wc);
	if (ret)
		goto out;
	if (!(wc.wc_flags & IB_WC_GRH) || wc.byte_len != 300 + KV_GRH) {
		ret = kv_fail(r, "GRH recv: flags 0x%x byte_len %u", wc.wc_flags, wc.byte_len);
		goto out;
	}
	kv_buf_cpu(&s->b);
	grh = s->b.cpu;
	if ((grh[0] >> 4) != 6 || grh[6] != 0x1b)
		ret = kv_fail(r, "GRH: version %u next header 0x%02x", grh[0] >> 4, grh[6]);
	else if (memcmp(grh + 8, g1.raw, 16))
		ret = kv_fail(r, "GRH source GID is not port 1's GID 0");
	else if (memcmp(grh + 24, g2.raw, 16))
		ret = kv_fail(r, "GRH destination GID is not port 2's GID 0");
	else
		ret = kv_check_fill(r, &s->b, KV_GRH, 300, 101, "UD GRH data");
	if (ret)
		goto out;
	/* the answer, with a GRH taken from the received one */
	back = ib_create_ah_from_wc(r->pd, &wc, (const struct ib_grh *)grh, 2);
	if (IS_ERR_OR_NULL(back)) {
		ret = kv_fail(r, "ib_create_ah_from_wc(GRH) failed: %ld",
			      back ? PTR_ERR(back) : -EINVAL);
		back = NULL;
		goto out;
	}
	rs = kv_sge_mr(&s->a, 8192, KV_GRH + 1024);
	ret = kv_recv(r, p.a.qp, 3, &rs, 1);
	if (ret)
		goto out;
	ss = kv_sge_dma(r, &s->a, 0, 10);
	wr.wr.wr_id = 4;
	wr.ah = back;
	wr.remote_qpn = wc.src_qp;
	ret = kv_post_send(r, p.b.qp, &wr.wr, &bad);
	if (ret) {
		kv_fail(r, "answer post_send: %d", ret);
		goto out;
	}
	ret = kv_expect(r, &p.b.scq, "answer send", 4, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.a.rcq, "answer recv", 3, IB_WC_SUCCESS, IB_WC_RECV,
			       &wc);
	if (!ret && !(wc.wc_flags & IB_WC_GRH))
		ret = kv_fail(r, "the answer to a GRH came without one");
	if (!ret) {
		kv_buf_cpu(&s->a);
		if (memcmp((u8 *)s->a.cpu + 8192 + 24, g1.raw, 16))
			ret = kv_fail(r, "the answer's GRH does not go to port 1's GID");
	}
out:
	if (back && rdma_destroy_ah_user(back, 0, NULL))
		ret = kv_fail(r, "rdma_destroy_ah_user failed");
	if (ah && rdma_destroy_ah_user(ah, 0, NULL))
		ret = kv_fail(r, "rdma_destroy_ah_user failed");
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/* An SRQ of 16 used for 300 receives, 2 SGEs each: its free list wraps. */
int kv_case_srq_wrap(struct kv_self *s)
{
	struct kv_pair_opts o = { .max_send_wr = 16 };
	struct kv_run *r = &s->r;
	struct ib_srq_init_attr sia;
	struct kv_cq rcq = { 0 };
	struct ib_srq *srq;
	struct ib_sge ss, rs[2];
	struct ib_wc wc;
	struct kv_pair p;
	bool have = false;
	int ret, i, it, err;

	ret = kv_cq_create(r, &rcq, 64);
	if (ret)
		return ret;
	memset(&sia, 0, sizeof(sia));
	sia.attr.max_wr = 16;
	sia.attr.max_sge = 2;
	srq = ib_create_srq(r->pd, &sia);
	if (IS_ERR_OR_NULL(srq)) {
		ret = kv_fail(r, "ib_create_srq failed: %ld", srq ? PTR_ERR(srq) : -EINVAL);
		goto out_cq;
	}
	o.srq_b = srq;
	o.rcq_b = &rcq;
	ret = kv_pair_create(r, &p, IB_QPT_RC, &o);
	if (ret)
		goto out_srq;
	have = true;
	kv_buf_cpu(&s->a);
	kv_fill(&s->a, 0, 4096, 111);
	kv_buf_dev(&s->a);
	for (it = 0; it < 50 && !ret; it++) {
		for (i = 0; i < 6 && !ret; i++) {
			const struct ib_recv_wr *bad = NULL;
			struct ib_recv_wr wr = { .wr_id = it * 8 + i, .num_sge = 2 };

			rs[0] = kv_sge_mr(&s->b, i * 8192, 10);
			rs[1] = kv_sge_dma(r, &s->b, i * 8192 + 4096, 2048);
			wr.sg_list = rs;
			err = kv_post_srq_recv(r, srq, &wr, &bad);
			if (err)
				ret = kv_fail(r, "ib_post_srq_recv (round %d): %d", it, err);
		}
		for (i = 0; i < 6 && !ret; i++) {
			ss = kv_sge_dma(r, &s->a, 0, 20 + i);
			ret = kv_send(r, &p.a, IB_WR_SEND, it * 8 + i, &ss, 1, 0);
		}
		for (i = 0; i < 6 && !ret; i++)
			ret = kv_expect(r, &p.a.scq, "send", it * 8 + i, IB_WC_SUCCESS,
					IB_WC_SEND, NULL);
		for (i = 0; i < 6 && !ret; i++) {
			ret = kv_expect(r, &rcq, "SRQ recv", it * 8 + i, IB_WC_SUCCESS,
					IB_WC_RECV, &wc);
			if (!ret && wc.byte_len != 20 + i)
				ret = kv_fail(r, "SRQ recv byte_len %u, want %d", wc.byte_len,
					      20 + i);
		}
		if (ret)
			kv_fail(r, "(round %d)", it);
	}
	if (!ret) {
		kv_buf_cpu(&s->b);
		/* the last one: 10 bytes in the first SGE, 15 in the second */
		if (memcmp((u8 *)s->b.cpu + 5 * 8192, s->a.cpu, 10) ||
		    memcmp((u8 *)s->b.cpu + 5 * 8192 + 4096, (u8 *)s->a.cpu + 10, 15))
			ret = kv_fail(r, "2-SGE SRQ receive scattered the wrong data");
	}
out_srq:
	if (have && kv_pair_destroy(r, &p))
		ret = -EIO;
	err = ib_destroy_srq_user(srq, NULL);
	if (err)
		ret = kv_fail(r, "ib_destroy_srq failed: %d", err);
out_cq:
	if (kv_cq_destroy(&rcq))
		ret = -EIO;
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Two threads posting to one QP */

#define KV_MT_N		300
#define KV_MT_THREADS	2

struct kv_mt {
	struct kv_run		*r;
	struct kv_self		*s;
	struct kv_pair		*p;
	int			id;
	int			err;
	int			posted;
	bool			*stop;		/* the poller gave up */
	struct completion	done;
};

static int kv_mt_thread(void *arg)
{
	struct kv_mt *t = arg;
	unsigned long end = jiffies + msecs_to_jiffies(KV_WAIT_MS * 4);
	const struct ib_send_wr *bad;
	struct ib_send_wr wr;
	struct ib_sge ss;
	int ret;

	while (t->posted < KV_MT_N && !t->err && !READ_ONCE(*t->stop)) {
		ss = kv_sge_dma(t->r, &t->s->a, t->id * 4096, 8 + (t->posted & 63));
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (u64)t->id << 32 | t->posted;
		wr.sg_list = &ss;
		wr.num_sge = 1;
		wr.opcode = IB_WR_SEND;
		wr.send_flags = IB_SEND_SIGNALED;
		bad = NULL;
		ret = kv_post_send(t->r, t->p->a.qp, &wr, &bad);
		if (ret == -ENOMEM) {		/* full: the poller frees room */
			if (time_after(jiffies, end))
				t->err = -ETIMEDOUT;
			else
				usleep_range(200, 500);
			continue;
		}
		if (ret)
			t->err = ret;
		else
			t->posted++;
	}
	complete(&t->done);
	return 0;
}

int kv_case_mt_post(struct kv_self *s)
{
	struct kv_pair_opts o = { .max_send_wr = 32, .max_recv_wr = 256, .cqe = 1024 };
	int next[KV_MT_THREADS] = { 0 }, nrecv = 0, nsend = 0, posted_recv = 0;
	unsigned long end = jiffies + msecs_to_jiffies(KV_WAIT_MS * 6);
	struct kv_run *r = &s->r;
	struct kv_mt *t;
	struct ib_wc wc[16];
	struct ib_sge rs;
	struct kv_pair *p = &s->pair[0];
	int ret, i, n, id, started = 0;
	bool stop = false;

	t = kcalloc(KV_MT_THREADS, sizeof(*t), GFP_KERNEL);
	if (!t)
		return kv_fail(r, "no memory");
	ret = kv_pair_create(r, p, IB_QPT_RC, &o);
	if (ret)
		goto out_free;
	rs = kv_sge_mr(&s->b, 0, 128);
	for (; posted_recv < 200 && !ret; posted_recv++)
		ret = kv_recv(r, p->b.qp, posted_recv, &rs, 1);
	for (i = 0; i < KV_MT_THREADS && !ret; i++) {
		struct task_struct *k;

		t[i].r = r;
		t[i].s = s;
		t[i].p = p;
		t[i].id = i;
		t[i].stop = &stop;
		init_completion(&t[i].done);
		k = kthread_run(kv_mt_thread, &t[i], "kv_mt%d", i);
		if (IS_ERR(k))
			ret = kv_fail(r, "kthread_run failed: %ld", PTR_ERR(k));
		else
			started++;
	}
	/* poll both CQs while the threads post */
	while (!ret && (nsend < started * KV_MT_N || nrecv < started * KV_MT_N)) {
		if (time_after(jiffies, end)) {
			ret = kv_fail(r, "after %d s: %d sends, %d receives completed",
				      KV_WAIT_MS * 6 / 1000, nsend, nrecv);
			break;
		}
		n = kv_poll(r, &p->a.scq, ARRAY_SIZE(wc), wc);
		for (i = 0; i < n && !ret; i++) {
			id = wc[i].wr_id >> 32;
			if (wc[i].status != IB_WC_SUCCESS)
				ret = kv_fail(r, "send %llx: %s", wc[i].wr_id,
					      kv_status(wc[i].status));
			else if (id >= KV_MT_THREADS || (u32)wc[i].wr_id != next[id])
				ret = kv_fail(r, "send completion %llx out of order (want %d:%d)",
					      wc[i].wr_id, id, id < KV_MT_THREADS ? next[id] : -1);
			else
				next[id]++;
		}
		nsend += n > 0 ? n : 0;
		n = kv_poll(r, &p->b.rcq, ARRAY_SIZE(wc), wc);
		for (i = 0; i < n && !ret; i++) {
			if (wc[i].status != IB_WC_SUCCESS || wc[i].wr_id != nrecv + i)
				ret = kv_fail(r, "receive %d: wr_id %llu %s", nrecv + i,
					      wc[i].wr_id, kv_status(wc[i].status));
		}
		nrecv += n > 0 ? n : 0;
		/* keep the receive queue stocked */
		while (!ret && posted_recv < started * KV_MT_N &&
		       posted_recv - nrecv < 200)
			ret = kv_recv(r, p->b.qp, posted_recv++, &rs, 1);
		if (n <= 0)
			usleep_range(200, 500);
	}
	WRITE_ONCE(stop, true);
	for (i = 0; i < started; i++) {
		if (!wait_for_completion_timeout(&t[i].done,
						 msecs_to_jiffies(KV_WAIT_MS * 5))) {
			/* cannot free what a running thread uses: give up loudly */
			ret = kv_fail(r, "posting thread %d does not end", i);
			pr_err(KV_NAME ": mt-post: thread %d stuck, leaking its state\n", i);
			return ret;
		}
		if (!ret && t[i].err)
			ret = kv_fail(r, "thread %d: post_send failed: %d", i, t[i].err);
	}
	if (kv_pair_destroy(r, p))
		ret = -EIO;
out_free:
	kfree(t);
	return ret;
}

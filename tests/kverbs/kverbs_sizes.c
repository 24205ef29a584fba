// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: sizes at and beyond their limits - inline data longer
 * than the QP takes (also as SGE lengths whose 32-bit sum wraps), a CQ of
 * max_cqe entries, and resize_cq with completions inside, a size too small
 * for them, and two resizers at once while completions keep coming.
 */
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kverbs.h"

/* ---------------------------------------------------------------------- */
/* Inline data */

/* One inline SEND of the given SGE lengths must be refused, nothing posted. */
static int kv_inline_refused(struct kv_run *r, struct kv_pair *p, u8 *src,
			     const u32 *len, int n, const char *what)
{
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr wr;
	struct ib_sge sg[2];
	int i, err;

	for (i = 0; i < n; i++) {
		sg[i].addr = (uintptr_t)src;
		sg[i].length = len[i];
		sg[i].lkey = 0;
	}
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 66;
	wr.sg_list = sg;
	wr.num_sge = n;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_INLINE | IB_SEND_SIGNALED;
	err = kv_post_send(r, p->a.qp, &wr, &bad);
	if (err != -EINVAL && err != -ENOMEM)
		return kv_fail(r, "inline SEND of %s: %d, want -EINVAL or -ENOMEM", what, err);
	if (bad != &wr)
		return kv_fail(r, "inline SEND of %s: bad_wr not the refused WR", what);
	return kv_expect_quiet(r, &p->a.scq, what, 20);
}

/*
 * Inline data beyond max_inline_data is refused at post time, however its
 * SGE lengths add up in 32 bits; a chain stops at the refused WR with the
 * one before it posted, and max_inline_data bytes still go.
 */
int kv_case_inline_limit(struct kv_self *s)
{
	struct kv_pair_opts o = { .max_inline = 64, .max_send_sge = 2 };
	const struct ib_send_wr *bad = NULL;
	struct kv_run *r = &s->r;
	struct kv_pair *p = &s->pair[0];
	struct ib_send_wr wr[2];
	struct ib_sge ss[2], rs;
	struct ib_wc wc;
	u32 max, len[2];
	u8 *src = s->a.cpu;	/* inline: by CPU address */
	int ret, err, i;

	kv_buf_cpu(&s->a);
	kv_fill(&s->a, 0, 4096, 97);
	ret = kv_pair_create(r, p, IB_QPT_RC, &o);
	if (ret)
		return ret;
	max = p->a.cap.max_inline_data;
	if (max < 64 || max >= 4096) {
		ret = kv_fail(r, "granted max_inline_data %u for 64", max);
		goto out;
	}
	len[0] = max + 1;
	ret = kv_inline_refused(r, p, src, len, 1, "max_inline_data + 1 bytes");
	len[0] = 0xffffffff;
	ret = ret ?: kv_inline_refused(r, p, src, len, 1, "an SGE of 0xffffffff bytes");
	len[0] = 0x80000000;
	len[1] = 0x80000000;
	ret = ret ?: kv_inline_refused(r, p, src, len, 2, "two SGEs of 2 GiB (sum 0 in 32 bits)");
	len[0] = max;
	len[1] = 1;
	ret = ret ?: kv_inline_refused(r, p, src, len, 2, "two SGEs, max_inline_data + 1 bytes");
	if (ret)
		goto out;

	/* a chain: the first (max bytes) is posted, the second refused */
	kv_buf_cpu(&s->b);
	memset(s->b.cpu, 0, 4096);
	kv_buf_dev(&s->b);
	rs = kv_sge_mr(&s->b, 0, 4096);
	ret = kv_recv(r, p->b.qp, 1, &rs, 1);
	if (ret)
		goto out;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 2; i++) {
		ss[i].addr = (uintptr_t)src;
		ss[i].length = i ? 0xfffffff0 : max;
		ss[i].lkey = 0;
		wr[i].wr_id = 70 + i;
		wr[i].sg_list = &ss[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IB_WR_SEND;
		wr[i].send_flags = IB_SEND_INLINE | IB_SEND_SIGNALED;
	}
	wr[0].next = &wr[1];
	err = kv_post_send(r, p->a.qp, wr, &bad);
	if ((err != -EINVAL && err != -ENOMEM) || bad != &wr[1]) {
		ret = kv_fail(r, "chain with a too long second inline SEND: %d, bad_wr %s",
			      err, bad == &wr[1] ? "the second" : "wrong");
		goto out;
	}
	/* the data must be in the WQE already */
	kv_fill(&s->a, 0, max, 98);
	kv_buf_dev(&s->a);
	ret = kv_expect(r, &p->a.scq, "inline SEND of max_inline_data", 70, IB_WC_SUCCESS,
			IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p->b.rcq, "its receive", 1, IB_WC_SUCCESS, IB_WC_RECV,
			       &wc);
	ret = ret ?: kv_expect_quiet(r, &p->a.scq, "the refused second SEND", 20);
	if (ret)
		goto out;
	if (wc.byte_len != max) {
		ret = kv_fail(r, "byte_len %u, want %u", wc.byte_len, max);
		goto out;
	}
	kv_buf_cpu(&s->b);
	ret = kv_check_fill(r, &s->b, 0, max, 97, "inline data");
out:
	if (kv_pair_destroy(r, p))
		ret = -EIO;
	return ret;
}

/* ---------------------------------------------------------------------- */
/* CQ sizes */

/* A CQ of the device's max_cqe entries, created and resized to. */
int kv_case_cq_max(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	int max = r->dev->attrs.max_cqe;
	struct kv_cq kc = { 0 };
	int ret, err;

	ret = kv_cq_create(r, &kc, max);
	if (ret)
		return kv_fail(r, "(a CQ of max_cqe = %d entries)", max);
	if (kv_cq_destroy(&kc))
		return -EIO;
	ret = kv_cq_create(r, &kc, 16);
	if (ret)
		return ret;
	err = ib_resize_cq(kc.cq, max);
	if (err)
		ret = kv_fail(r, "ib_resize_cq(16 -> max_cqe = %d): %d", max, err);
	else if (kc.cq->cqe < max)
		ret = kv_fail(r, "CQ resized to max_cqe = %d has %d entries", max, kc.cq->cqe);
	err = ib_resize_cq(kc.cq, 16);
	if (err)
		ret = kv_fail(r, "ib_resize_cq(max_cqe -> 16): %d", err);
	if (kv_cq_destroy(&kc))
		ret = -EIO;
	return ret;
}

/* n receives at b and n sends from a, all completed at a; wr_ids base + i */
static int kv_resize_traffic(struct kv_self *s, struct kv_pair *p, int n, u64 base)
{
	struct kv_run *r = &s->r;
	struct ib_sge ss, rs;
	int ret = 0, i;

	for (i = 0; i < n && !ret; i++) {
		rs = kv_sge_mr(&s->b, (base + i) % 32 * 1024, 1024);
		ret = kv_recv(r, p->b.qp, base + i, &rs, 1);
	}
	for (i = 0; i < n && !ret; i++) {
		ss = kv_sge_dma(r, &s->a, 0, 16 + (base + i) % 512);
		ret = kv_send(r, &p->a, IB_WR_SEND, base + i, &ss, 1, 0);
		ret = ret ?: kv_expect(r, &p->a.scq, "send", base + i, IB_WC_SUCCESS,
				       IB_WC_SEND, NULL);
	}
	return ret;
}

/* The n receive completions from base on, in order, with their lengths. */
static int kv_resize_drain(struct kv_self *s, struct kv_pair *p, int n, u64 base)
{
	struct kv_run *r = &s->r;
	struct ib_wc wc;
	int ret = 0, i;

	for (i = 0; i < n && !ret; i++) {
		ret = kv_expect(r, &p->b.rcq, "receive across resizes", base + i,
				IB_WC_SUCCESS, IB_WC_RECV, &wc);
		if (!ret && wc.byte_len != 16 + (base + i) % 512)
			ret = kv_fail(r, "receive %llu: byte_len %u", base + i, wc.byte_len);
	}
	return ret;
}

struct kv_resizer {
	struct ib_cq	*cq;
	int		size[2];
	int		rounds;
	atomic_t	*ready;		/* both start together */
	int		err;		/* the first failure */
	bool		done;
};

static int kv_resizer_fn(void *arg)
{
	struct kv_resizer *z = arg;
	unsigned long end = jiffies + msecs_to_jiffies(KV_WAIT_MS);
	int i, err;

	atomic_inc(z->ready);
	while (atomic_read(z->ready) < 2 && time_before(jiffies, end) &&
	       !kthread_should_stop())
		cond_resched();
	for (i = 0; i < z->rounds && !kthread_should_stop(); i++) {
		err = ib_resize_cq(z->cq, z->size[i & 1]);
		if (err && !z->err)
			z->err = err;
	}
	WRITE_ONCE(z->done, true);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * resize_cq with receive completions inside: kept across growing and
 * shrinking; a size below what it holds (and sizes out of range) refused
 * with the CQ intact; then two threads resize it at once while traffic
 * keeps completing into it: every completion arrives, once, in order.
 */
int kv_case_cq_resize_busy(struct kv_self *s)
{
	struct kv_pair_opts o = { .max_send_wr = 64, .max_recv_wr = 64, .cqe = 16 };
	struct kv_run *r = &s->r;
	struct kv_pair *p = &s->pair[0];
	struct kv_resizer z[2];
	struct task_struct *t[2] = { NULL, NULL };
	atomic_t ready = ATOMIC_INIT(0);
	unsigned int cpu = cpumask_first(cpu_online_mask);
	struct ib_cq *cq;
	int ret, err, i, round;
	u64 next = 0;

	ret = kv_pair_create(r, p, IB_QPT_RC, &o);
	if (ret)
		return ret;
	cq = p->b.rcq.cq;
	ret = kv_resize_traffic(s, p, 12, next);
	if (ret)
		goto out;
	/* 12 CQEs inside: 4 and 8 entries are too few */
	err = ib_resize_cq(cq, 4);
	if (err != -EINVAL) {
		ret = kv_fail(r, "ib_resize_cq(4) holding 12 CQEs: %d, want -EINVAL", err);
		goto out;
	}
	err = ib_resize_cq(cq, 0);
	if (err != -EINVAL) {
		ret = kv_fail(r, "ib_resize_cq(0): %d, want -EINVAL", err);
		goto out;
	}
	err = ib_resize_cq(cq, r->dev->attrs.max_cqe + 1);
	if (err != -EINVAL) {
		ret = kv_fail(r, "ib_resize_cq(max_cqe + 1): %d, want -EINVAL", err);
		goto out;
	}
	err = ib_resize_cq(cq, 100);
	if (err) {
		ret = kv_fail(r, "ib_resize_cq(16 -> 100) holding 12 CQEs: %d", err);
		goto out;
	}
	ret = kv_resize_traffic(s, p, 12, next + 12);
	if (ret)
		goto out;
	err = ib_resize_cq(cq, 40);
	if (err) {
		ret = kv_fail(r, "ib_resize_cq(100 -> 40) holding 24 CQEs: %d", err);
		goto out;
	}
	ret = kv_resize_drain(s, p, 24, next);
	if (ret)
		goto out;
	next += 24;

	/*
	 * two resizers at once, traffic going on; on one CPU, where the
	 * scheduler switches between them at the sleeps inside resize_cq
	 */
	for (i = 0; i < 2; i++) {
		z[i] = (struct kv_resizer){ .cq = cq, .size = { 31 + 32 * i, 200 - 64 * i },
					    .rounds = 100, .ready = &ready };
		t[i] = kthread_create(kv_resizer_fn, &z[i], "kv_resize%d", i);
		if (IS_ERR(t[i])) {
			t[i] = NULL;
			ret = kv_fail(r, "kthread_create failed");
			goto out_threads;
		}
		kthread_bind(t[i], cpu);
		wake_up_process(t[i]);
	}
	for (round = 0; round < 400 && !ret; round++) {
		ret = kv_resize_traffic(s, p, 8, next);
		ret = ret ?: kv_resize_drain(s, p, 8, next);
		next += 8;
		if (READ_ONCE(z[0].done) && READ_ONCE(z[1].done))
			break;
	}
out_threads:
	for (i = 0; i < 2; i++) {
		if (!t[i])
			continue;
		kthread_stop(t[i]);
		if (z[i].err && !ret)
			ret = kv_fail(r, "resizer %d: ib_resize_cq failed: %d", i, z[i].err);
	}
	ret = ret ?: kv_expect_quiet(r, &p->b.rcq, "the resized CQ at the end", 20);
out:
	if (kv_pair_destroy(r, p))
		ret = -EIO;
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: the RC cases of the self-test - connection, SEND (sizes
 * up to several MTUs, zero length, immediate data, inline, gather/scatter,
 * chains, unsignaled), RDMA WRITE (with immediate), RDMA READ and the two
 * atomics.  QP a is on port 1, b on port 2, cabled to each other.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kverbs.h"

static __be32 kv_imm(u64 wr_id)
{
	return cpu_to_be32(0x1234abcd ^ (u32)wr_id);
}

/* Clear [off, off + len) of a buffer the card is going to write. */
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

int kv_case_rc_connect(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;
	struct kv_pair p;
	int ret;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	memset(&ia, 0, sizeof(ia));
	/* 6.1's ib_query_qp reports no GID attribute (and holds none) */
	a.ah_attr.grh.sgid_attr = ERR_PTR(-EFAULT);
	a.alt_ah_attr.grh.sgid_attr = ERR_PTR(-EFAULT);
	ret = ib_query_qp(p.a.qp, &a, IB_QP_STATE | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			  IB_QP_RQ_PSN | IB_QP_SQ_PSN | IB_QP_AV | IB_QP_PORT |
			  IB_QP_ACCESS_FLAGS | IB_QP_CAP | IB_QP_MAX_QP_RD_ATOMIC |
			  IB_QP_MAX_DEST_RD_ATOMIC, &ia);
	if (ret) {
		kv_fail(r, "ib_query_qp failed: %d", ret);
		goto out;
	}
	if (a.qp_state != IB_QPS_RTS)
		ret = kv_fail(r, "state %d after RTS", a.qp_state);
	else if (a.dest_qp_num != p.b.qp->qp_num)
		ret = kv_fail(r, "dest_qp_num 0x%x, want 0x%x", a.dest_qp_num,
			      p.b.qp->qp_num);
	else if (a.sq_psn != p.a.psn || a.rq_psn != p.b.psn)
		ret = kv_fail(r, "PSNs sq 0x%x rq 0x%x, want 0x%x 0x%x", a.sq_psn,
			      a.rq_psn, p.a.psn, p.b.psn);
	else if (a.path_mtu != min(r->mtu[1], r->mtu[2]))
		ret = kv_fail(r, "path_mtu %d", a.path_mtu);
	else if (a.ah_attr.type != RDMA_AH_ATTR_TYPE_IB ||
		 rdma_ah_get_dlid(&a.ah_attr) != r->lid[2])
		ret = kv_fail(r, "AV type %d dlid %u, want IB %u", a.ah_attr.type,
			      rdma_ah_get_dlid(&a.ah_attr), r->lid[2]);
	else if (a.ah_attr.grh.sgid_attr || a.alt_ah_attr.grh.sgid_attr)
		ret = kv_fail(r, "query left GID attributes %p/%p, want NULL",
			      a.ah_attr.grh.sgid_attr, a.alt_ah_attr.grh.sgid_attr);
	else if (a.port_num != 1 && a.ah_attr.port_num != 1)
		ret = kv_fail(r, "port %u/%u, want 1", a.port_num, a.ah_attr.port_num);
	else if (!(a.qp_access_flags & IB_ACCESS_REMOTE_ATOMIC))
		ret = kv_fail(r, "access flags 0x%x", a.qp_access_flags);
	else if (ia.cap.max_send_wr != p.a.cap.max_send_wr ||
		 ia.cap.max_recv_wr != p.a.cap.max_recv_wr)
		ret = kv_fail(r, "query says max_send_wr %u max_recv_wr %u, creation %u %u",
			      ia.cap.max_send_wr, ia.cap.max_recv_wr,
			      p.a.cap.max_send_wr, p.a.cap.max_recv_wr);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/* SEND of several sizes: empty, sub-MTU, MTU edges, 64 KiB. */
int kv_case_rc_send(struct kv_self *s)
{
	static const u32 sizes[] = { 0, 1, 256, 4095, 4096, 4097, 12289, KV_BIG };
	struct kv_run *r = &s->r;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	struct kv_pair p;
	unsigned int i;
	int ret;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(sizes) && !ret; i++) {
		u32 n = sizes[i];

		kv_pattern_dev(&s->a, 0, n, i);
		kv_clear(&s->b, 0, KV_BIG + 64);
		rs = kv_sge_mr(&s->b, 0, KV_BIG + 64);
		ss = kv_sge_dma(r, &s->a, 0, n);
		ret = kv_recv(r, p.b.qp, 100 + i, &rs, 1);
		ret = ret ?: kv_send(r, &p.a, IB_WR_SEND, i, &ss, n ? 1 : 0, 0);
		ret = ret ?: kv_expect(r, &p.a.scq, "send", i, IB_WC_SUCCESS,
				       IB_WC_SEND, NULL);
		ret = ret ?: kv_expect(r, &p.b.rcq, "recv", 100 + i, IB_WC_SUCCESS,
				       IB_WC_RECV, &wc);
		if (ret) {
			kv_fail(r, "(at %u bytes)", n);
			break;
		}
		if (wc.byte_len != n)
			ret = kv_fail(r, "%u-byte send received as %u bytes", n,
				      wc.byte_len);
		else if (wc.qp != p.b.qp)
			ret = kv_fail(r, "receive completion names QP %p, not b", wc.qp);
		else if (wc.wc_flags & IB_WC_WITH_IMM)
			ret = kv_fail(r, "plain send reported with immediate data");
		if (ret)
			break;
		kv_buf_cpu(&s->b);
		ret = kv_check_fill(r, &s->b, 0, n, i, "received data");
		if (!ret && ((u8 *)s->b.cpu)[n])
			ret = kv_fail(r, "%u-byte receive wrote past its end", n);
	}
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/* SEND with immediate data, and a zero-SGE receive of an empty one. */
int kv_case_rc_send_imm(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	struct kv_pair p;
	int ret;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	kv_pattern_dev(&s->a, 0, 100, 3);
	kv_clear(&s->b, 0, 4096);
	ss = kv_sge_dma(r, &s->a, 0, 100);
	rs = kv_sge_mr(&s->b, 0, 4096);
	ret = kv_recv(r, p.b.qp, 7, &rs, 1);
	ret = ret ?: kv_send(r, &p.a, IB_WR_SEND_WITH_IMM, 5, &ss, 1, 0);
	ret = ret ?: kv_expect(r, &p.a.scq, "send", 5, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "recv", 7, IB_WC_SUCCESS, IB_WC_RECV, &wc);
	if (ret)
		goto out;
	if (!(wc.wc_flags & IB_WC_WITH_IMM) || wc.ex.imm_data != kv_imm(5))
		ret = kv_fail(r, "immediate data: flags 0x%x imm 0x%08x, want 0x%08x",
			      wc.wc_flags, be32_to_cpu(wc.ex.imm_data),
			      be32_to_cpu(kv_imm(5)));
	else if (wc.byte_len != 100)
		ret = kv_fail(r, "byte_len %u, want 100", wc.byte_len);
	if (ret)
		goto out;
	kv_buf_cpu(&s->b);
	ret = kv_check_fill(r, &s->b, 0, 100, 3, "received data");
	if (ret)
		goto out;
	/* an empty SEND with immediate into a receive without SGEs */
	ret = kv_recv(r, p.b.qp, 8, NULL, 0);
	ret = ret ?: kv_send(r, &p.a, IB_WR_SEND_WITH_IMM, 6, NULL, 0, 0);
	ret = ret ?: kv_expect(r, &p.a.scq, "empty send", 6, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "empty recv", 8, IB_WC_SUCCESS,
			       IB_WC_RECV, &wc);
	if (!ret && (wc.byte_len || wc.ex.imm_data != kv_imm(6)))
		ret = kv_fail(r, "empty send: byte_len %u imm 0x%08x", wc.byte_len,
			      be32_to_cpu(wc.ex.imm_data));
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/* Inline SEND: the data is copied at post time, lkey unused. */
int kv_case_rc_send_inline(struct kv_self *s)
{
	struct kv_pair_opts o = { .max_inline = 128 };
	struct kv_run *r = &s->r;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	struct kv_pair p;
	u8 *src;
	int ret, i;

	src = kmalloc(128, GFP_KERNEL);
	if (!src)
		return kv_fail(r, "no memory");
	ret = kv_pair_create(r, &p, IB_QPT_RC, &o);
	if (ret)
		goto out_free;
	for (i = 0; i < 100; i++)
		src[i] = (u8)(i * 3 + 1);
	kv_clear(&s->b, 0, 4096);
	ss.addr = (uintptr_t)src;
	ss.length = 100;
	ss.lkey = 0;
	rs = kv_sge_mr(&s->b, 0, 4096);
	ret = kv_recv(r, p.b.qp, 1, &rs, 1);
	ret = ret ?: kv_send(r, &p.a, IB_WR_SEND, 2, &ss, 1, IB_SEND_INLINE);
	/* the data must be in the WQE already */
	memset(src, 0xee, 128);
	ret = ret ?: kv_expect(r, &p.a.scq, "send", 2, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "recv", 1, IB_WC_SUCCESS, IB_WC_RECV, &wc);
	if (ret)
		goto out;
	if (wc.byte_len != 100) {
		ret = kv_fail(r, "byte_len %u, want 100", wc.byte_len);
		goto out;
	}
	kv_buf_cpu(&s->b);
	for (i = 0; i < 100; i++) {
		if (((u8 *)s->b.cpu)[i] != (u8)(i * 3 + 1)) {
			ret = kv_fail(r, "inline byte %d is 0x%02x", i,
				      ((u8 *)s->b.cpu)[i]);
			break;
		}
	}
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
out_free:
	kfree(src);
	return ret;
}

/* Gather from three SGEs (both lkeys), scatter into two. */
int kv_case_rc_send_sge(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_sge ss[3], rs[2];
	struct ib_wc wc;
	struct kv_pair p;
	u8 *want, *a, *b;
	int ret;

	want = kmalloc(3101, GFP_KERNEL);
	if (!want)
		return kv_fail(r, "no memory");
	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		goto out_free;
	kv_buf_cpu(&s->a);
	kv_fill(&s->a, 0, 32768, 9);
	kv_buf_dev(&s->a);
	kv_clear(&s->b, 0, KV_BIG + 8192);
	ss[0] = kv_sge_dma(r, &s->a, 0, 100);
	ss[1] = kv_sge_mr(&s->a, 8192, 3000);
	ss[2] = kv_sge_dma(r, &s->a, 20000, 1);
	rs[0] = kv_sge_mr(&s->b, 0, 1000);
	rs[1] = kv_sge_dma(r, &s->b, KV_BIG, 4096);
	a = s->a.cpu;
	memcpy(want, a, 100);
	memcpy(want + 100, a + 8192, 3000);
	want[3100] = a[20000];
	ret = kv_recv(r, p.b.qp, 1, rs, 2);
	ret = ret ?: kv_send(r, &p.a, IB_WR_SEND, 2, ss, 3, 0);
	ret = ret ?: kv_expect(r, &p.a.scq, "send", 2, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "recv", 1, IB_WC_SUCCESS, IB_WC_RECV, &wc);
	if (ret)
		goto out;
	if (wc.byte_len != 3101) {
		ret = kv_fail(r, "byte_len %u, want 3101", wc.byte_len);
		goto out;
	}
	kv_buf_cpu(&s->b);
	b = s->b.cpu;
	if (memcmp(b, want, 1000))
		ret = kv_fail(r, "first receive SGE holds the wrong data");
	else if (memcmp(b + KV_BIG, want + 1000, 2101))
		ret = kv_fail(r, "second receive SGE holds the wrong data");
	else if (b[1000] || b[KV_BIG + 2101])
		ret = kv_fail(r, "scatter wrote outside its SGEs");
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
out_free:
	kfree(want);
	return ret;
}

#define KV_BATCH 8

/* One post of a chain of receives, one of a chain of sends; FIFO order. */
int kv_case_rc_send_batch(struct kv_self *s)
{
	struct ib_send_wr swr[KV_BATCH];
	struct ib_recv_wr rwr[KV_BATCH];
	struct ib_sge ss[KV_BATCH], rs[KV_BATCH];
	const struct ib_send_wr *sbad = NULL;
	const struct ib_recv_wr *rbad = NULL;
	struct kv_run *r = &s->r;
	struct ib_wc wc;
	struct kv_pair *p = &s->pair[0];
	int ret, i;

	ret = kv_pair_create(r, p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	kv_pattern_dev(&s->a, 0, KV_BATCH * 512, 11);
	kv_clear(&s->b, 0, KV_BATCH * 512);
	memset(swr, 0, sizeof(swr));
	memset(rwr, 0, sizeof(rwr));
	for (i = 0; i < KV_BATCH; i++) {
		rs[i] = kv_sge_mr(&s->b, i * 512, 512);
		rwr[i].wr_id = 200 + i;
		rwr[i].sg_list = &rs[i];
		rwr[i].num_sge = 1;
		rwr[i].next = i + 1 < KV_BATCH ? &rwr[i + 1] : NULL;
		ss[i] = kv_sge_dma(r, &s->a, i * 512, 64 + i);
		swr[i].wr_id = 300 + i;
		swr[i].sg_list = &ss[i];
		swr[i].num_sge = 1;
		swr[i].opcode = IB_WR_SEND;
		swr[i].send_flags = IB_SEND_SIGNALED;
		swr[i].next = i + 1 < KV_BATCH ? &swr[i + 1] : NULL;
	}
	ret = kv_post_recv(r, p->b.qp, rwr, &rbad);
	if (ret) {
		kv_fail(r, "chain of %d receives: %d", KV_BATCH, ret);
		goto out;
	}
	ret = kv_post_send(r, p->a.qp, swr, &sbad);
	if (ret) {
		kv_fail(r, "chain of %d sends: %d", KV_BATCH, ret);
		goto out;
	}
	for (i = 0; i < KV_BATCH && !ret; i++)
		ret = kv_expect(r, &p->a.scq, "send", 300 + i, IB_WC_SUCCESS,
				IB_WC_SEND, NULL);
	for (i = 0; i < KV_BATCH && !ret; i++) {
		ret = kv_expect(r, &p->b.rcq, "recv", 200 + i, IB_WC_SUCCESS,
				IB_WC_RECV, &wc);
		if (!ret && wc.byte_len != 64 + i)
			ret = kv_fail(r, "receive %d: byte_len %u", i, wc.byte_len);
	}
	kv_buf_cpu(&s->b);
	for (i = 0; i < KV_BATCH && !ret; i++)
		if (memcmp((u8 *)s->b.cpu + i * 512, (u8 *)s->a.cpu + i * 512, 64 + i))
			ret = kv_fail(r, "message %d holds the wrong data", i);
out:
	if (kv_pair_destroy(r, p))
		ret = -EIO;
	return ret;
}

/* IB_SIGNAL_REQ_WR: an unsignaled SEND makes no completion. */
int kv_case_rc_unsignaled(struct kv_self *s)
{
	struct kv_pair_opts o = { .sig = IB_SIGNAL_REQ_WR };
	const struct ib_send_wr *bad = NULL;
	struct kv_run *r = &s->r;
	struct ib_send_wr wr[2];
	struct ib_sge ss, rs[2];
	struct kv_pair p;
	int ret;

	ret = kv_pair_create(r, &p, IB_QPT_RC, &o);
	if (ret)
		return ret;
	ss = kv_sge_dma(r, &s->a, 0, 64);
	rs[0] = kv_sge_mr(&s->b, 0, 64);
	rs[1] = kv_sge_mr(&s->b, 64, 64);
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = 1;
	wr[0].sg_list = &ss;
	wr[0].num_sge = 1;
	wr[0].opcode = IB_WR_SEND;
	wr[0].next = &wr[1];
	wr[1] = wr[0];
	wr[1].wr_id = 2;
	wr[1].send_flags = IB_SEND_SIGNALED;
	wr[1].next = NULL;
	ret = kv_recv(r, p.b.qp, 11, &rs[0], 1);
	ret = ret ?: kv_recv(r, p.b.qp, 12, &rs[1], 1);
	if (!ret) {
		ret = kv_post_send(r, p.a.qp, wr, &bad);
		if (ret)
			kv_fail(r, "ib_post_send failed: %d", ret);
	}
	ret = ret ?: kv_expect(r, &p.a.scq, "signaled send", 2, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
	ret = ret ?: kv_expect_quiet(r, &p.a.scq, "after the signaled send",
				     KV_QUIET_MS);
	ret = ret ?: kv_expect(r, &p.b.rcq, "recv 1", 11, IB_WC_SUCCESS, IB_WC_RECV,
			       NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "recv 2", 12, IB_WC_SUCCESS, IB_WC_RECV,
			       NULL);
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/* RDMA WRITE: 64 KiB, empty, and with immediate data. */
int kv_case_rc_write(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_sge ss;
	struct ib_wc wc;
	struct kv_pair p;
	int ret;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	kv_pattern_dev(&s->a, 0, KV_BIG, 21);
	kv_clear(&s->b, 0, KV_BIG * 2 + 16);
	ss = kv_sge_dma(r, &s->a, 0, KV_BIG);
	ret = kv_rdma(r, &p.a, IB_WR_RDMA_WRITE, 1, &ss, 1, s->b.iova + 8,
		      s->b.mr->rkey);
	ret = ret ?: kv_expect(r, &p.a.scq, "write", 1, IB_WC_SUCCESS,
			       IB_WC_RDMA_WRITE, NULL);
	if (ret)
		goto out;
	kv_buf_cpu(&s->b);
	ret = kv_check_fill(r, &s->b, 8, KV_BIG, 21, "written data");
	if (!ret && (((u8 *)s->b.cpu)[7] || ((u8 *)s->b.cpu)[KV_BIG + 8]))
		ret = kv_fail(r, "write outside its target range");
	ret = ret ?: kv_expect_quiet(r, &p.b.rcq, "responder of a plain write", 50);
	/* an empty write */
	ret = ret ?: kv_rdma(r, &p.a, IB_WR_RDMA_WRITE, 2, NULL, 0, s->b.iova,
			     s->b.mr->rkey);
	ret = ret ?: kv_expect(r, &p.a.scq, "empty write", 2, IB_WC_SUCCESS,
			       IB_WC_RDMA_WRITE, NULL);
	if (ret)
		goto out;
	/* with immediate: consumes a receive (without SGEs) at b */
	kv_pattern_dev(&s->a, 0, 4096, 22);
	ss = kv_sge_mr(&s->a, 0, 4096);
	ret = kv_recv(r, p.b.qp, 9, NULL, 0);
	ret = ret ?: kv_rdma(r, &p.a, IB_WR_RDMA_WRITE_WITH_IMM, 3, &ss, 1,
			     s->b.iova + KV_BIG * 2, s->b.mr->rkey);
	ret = ret ?: kv_expect(r, &p.a.scq, "write with imm", 3, IB_WC_SUCCESS,
			       IB_WC_RDMA_WRITE, NULL);
	ret = ret ?: kv_expect(r, &p.b.rcq, "its receive", 9, IB_WC_SUCCESS,
			       IB_WC_RECV_RDMA_WITH_IMM, &wc);
	if (ret)
		goto out;
	if (!(wc.wc_flags & IB_WC_WITH_IMM) || wc.ex.imm_data != kv_imm(3))
		ret = kv_fail(r, "write imm: flags 0x%x imm 0x%08x", wc.wc_flags,
			      be32_to_cpu(wc.ex.imm_data));
	else if (wc.byte_len != 4096)
		ret = kv_fail(r, "write imm: byte_len %u, want 4096", wc.byte_len);
	if (ret)
		goto out;
	kv_buf_cpu(&s->b);
	ret = kv_check_fill(r, &s->b, KV_BIG * 2, 4096, 22, "written data (imm)");
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/* RDMA READ: 64 KiB (segmented responses) and a two-SGE scatter. */
int kv_case_rc_read(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_sge ss[2];
	struct ib_wc wc;
	struct kv_pair p;
	int ret;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	kv_pattern_dev(&s->b, KV_BIG, KV_BIG, 31);
	kv_clear(&s->a, 0, KV_BIG * 3);
	ss[0] = kv_sge_mr(&s->a, 0, KV_BIG);
	ret = kv_rdma(r, &p.a, IB_WR_RDMA_READ, 1, ss, 1, s->b.iova + KV_BIG,
		      s->b.mr->rkey);
	ret = ret ?: kv_expect(r, &p.a.scq, "read", 1, IB_WC_SUCCESS,
			       IB_WC_RDMA_READ, &wc);
	if (ret)
		goto out;
	if (wc.byte_len != KV_BIG) {
		ret = kv_fail(r, "read byte_len %u, want %u", wc.byte_len, KV_BIG);
		goto out;
	}
	kv_buf_cpu(&s->a);
	ret = kv_check_fill(r, &s->a, 0, KV_BIG, 31, "read data");
	if (ret)
		goto out;
	/* 8 KiB into two SGEs */
	ss[0] = kv_sge_dma(r, &s->a, KV_BIG, 4096);
	ss[1] = kv_sge_mr(&s->a, KV_BIG * 2, 4096);
	ret = kv_rdma(r, &p.a, IB_WR_RDMA_READ, 2, ss, 2, s->b.iova + KV_BIG,
		      s->b.mr->rkey);
	ret = ret ?: kv_expect(r, &p.a.scq, "2-SGE read", 2, IB_WC_SUCCESS,
			       IB_WC_RDMA_READ, NULL);
	if (ret)
		goto out;
	kv_buf_cpu(&s->a);
	if (memcmp((u8 *)s->a.cpu + KV_BIG, s->a.cpu, 4096) ||
	    memcmp((u8 *)s->a.cpu + KV_BIG * 2, (u8 *)s->a.cpu + 4096, 4096))
		ret = kv_fail(r, "2-SGE read scattered the wrong data");
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

static u64 kv_be64_at(struct kv_buf *b, size_t off)
{
	return be64_to_cpu(*(__be64 *)((u8 *)b->cpu + off));
}

/*
 * CMP_AND_SWP and FETCH_AND_ADD.  The card treats the target word as
 * big-endian (as the wire does) and returns the old value big-endian into
 * the local buffer, so both are read with be64_to_cpu().
 */
int kv_case_rc_atomic(struct kv_self *s)
{
	const size_t tgt = 3 * KV_BIG, res = 3 * KV_BIG + 64;
	const u64 v0 = 0x1111222233334444ULL, v1 = 0x5555666677778888ULL;
	struct kv_run *r = &s->r;
	struct ib_sge ss;
	struct ib_wc wc;
	struct kv_pair p;
	u64 old, now;
	int ret;

	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		return ret;
	kv_buf_cpu(&s->b);
	*(__be64 *)((u8 *)s->b.cpu + tgt) = cpu_to_be64(v0);
	kv_buf_dev(&s->b);
	kv_clear(&s->a, res, 64);
	ss = kv_sge_mr(&s->a, res, 8);

	/* compare matches: swapped */
	ret = kv_atomic(r, &p.a, IB_WR_ATOMIC_CMP_AND_SWP, 1, &ss,
			s->b.iova + tgt, s->b.mr->rkey, v0, v1);
	ret = ret ?: kv_expect(r, &p.a.scq, "cmp_swp", 1, IB_WC_SUCCESS,
			       IB_WC_COMP_SWAP, &wc);
	if (ret)
		goto out;
	kv_buf_cpu(&s->a);
	kv_buf_cpu(&s->b);
	old = kv_be64_at(&s->a, res);
	now = kv_be64_at(&s->b, tgt);
	if (wc.byte_len != 8 && wc.byte_len)
		ret = kv_fail(r, "cmp_swp byte_len %u", wc.byte_len);
	else if (old != v0)
		ret = kv_fail(r, "cmp_swp returned 0x%llx, want 0x%llx", old, v0);
	else if (now != v1)
		ret = kv_fail(r, "cmp_swp left 0x%llx in memory, want 0x%llx", now, v1);
	if (ret)
		goto out;

	/* compare fails: unchanged, old value returned */
	ss = kv_sge_dma(r, &s->a, res + 8, 8);
	ret = kv_atomic(r, &p.a, IB_WR_ATOMIC_CMP_AND_SWP, 2, &ss,
			s->b.iova + tgt, s->b.mr->rkey, v0, 0xdeadULL);
	ret = ret ?: kv_expect(r, &p.a.scq, "failing cmp_swp", 2, IB_WC_SUCCESS,
			       IB_WC_COMP_SWAP, NULL);
	if (ret)
		goto out;
	kv_buf_cpu(&s->a);
	kv_buf_cpu(&s->b);
	old = kv_be64_at(&s->a, res + 8);
	now = kv_be64_at(&s->b, tgt);
	if (old != v1 || now != v1) {
		ret = kv_fail(r, "failing cmp_swp: returned 0x%llx, memory 0x%llx, want 0x%llx",
			      old, now, v1);
		goto out;
	}

	/* fetch and add */
	ss = kv_sge_mr(&s->a, res + 16, 8);
	ret = kv_atomic(r, &p.a, IB_WR_ATOMIC_FETCH_AND_ADD, 3, &ss,
			s->b.iova + tgt, s->b.mr->rkey, 0x10, 0);
	ret = ret ?: kv_expect(r, &p.a.scq, "fetch_add", 3, IB_WC_SUCCESS,
			       IB_WC_FETCH_ADD, NULL);
	if (ret)
		goto out;
	kv_buf_cpu(&s->a);
	kv_buf_cpu(&s->b);
	old = kv_be64_at(&s->a, res + 16);
	now = kv_be64_at(&s->b, tgt);
	if (old != v1 || now != v1 + 0x10)
		ret = kv_fail(r, "fetch_add: returned 0x%llx, memory 0x%llx, want 0x%llx 0x%llx",
			      old, now, v1, v1 + 0x10);
out:
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

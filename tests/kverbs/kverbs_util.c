// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: what every test case uses - result reporting, the
 * data-path verbs called from atomic context, DMA buffers, CQs with counting
 * completion handlers and bounded waits for completions.
 */
#include <linux/gfp.h>
#include <linux/hardirq.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kverbs.h"

/* ---------------------------------------------------------------------- */
/* Results */

/* Keep the first failure reason of the current case; returns -EIO. */
int kv_fail(struct kv_run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->why[0])
		return -EIO;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return -EIO;
}

/* Print one PASS/FAIL line; err != 0 is a failure (why from kv_fail()). */
void kv_report(struct kv_run *r, const char *name, int err)
{
	if (!err) {
		r->passed++;
		pr_info(KV_NAME ": PASS %s\n", name);
	} else {
		r->failed++;
		pr_info(KV_NAME ": FAIL %s: %s\n", name,
			r->why[0] ? r->why : "error without a reason");
	}
	r->why[0] = '\0';
}

const char *kv_status(enum ib_wc_status s)
{
	static const char * const names[] = {
		[IB_WC_SUCCESS] = "SUCCESS",
		[IB_WC_LOC_LEN_ERR] = "LOC_LEN_ERR",
		[IB_WC_LOC_QP_OP_ERR] = "LOC_QP_OP_ERR",
		[IB_WC_LOC_EEC_OP_ERR] = "LOC_EEC_OP_ERR",
		[IB_WC_LOC_PROT_ERR] = "LOC_PROT_ERR",
		[IB_WC_WR_FLUSH_ERR] = "WR_FLUSH_ERR",
		[IB_WC_MW_BIND_ERR] = "MW_BIND_ERR",
		[IB_WC_BAD_RESP_ERR] = "BAD_RESP_ERR",
		[IB_WC_LOC_ACCESS_ERR] = "LOC_ACCESS_ERR",
		[IB_WC_REM_INV_REQ_ERR] = "REM_INV_REQ_ERR",
		[IB_WC_REM_ACCESS_ERR] = "REM_ACCESS_ERR",
		[IB_WC_REM_OP_ERR] = "REM_OP_ERR",
		[IB_WC_RETRY_EXC_ERR] = "RETRY_EXC_ERR",
		[IB_WC_RNR_RETRY_EXC_ERR] = "RNR_RETRY_EXC_ERR",
		[IB_WC_LOC_RDD_VIOL_ERR] = "LOC_RDD_VIOL_ERR",
		[IB_WC_REM_INV_RD_REQ_ERR] = "REM_INV_RD_REQ_ERR",
		[IB_WC_REM_ABORT_ERR] = "REM_ABORT_ERR",
		[IB_WC_INV_EECN_ERR] = "INV_EECN_ERR",
		[IB_WC_INV_EEC_STATE_ERR] = "INV_EEC_STATE_ERR",
		[IB_WC_FATAL_ERR] = "FATAL_ERR",
		[IB_WC_RESP_TIMEOUT_ERR] = "RESP_TIMEOUT_ERR",
		[IB_WC_GENERAL_ERR] = "GENERAL_ERR",
	};

	if ((unsigned int)s < ARRAY_SIZE(names) && names[s])
		return names[s];
	return "UNKNOWN_STATUS";
}

/* ---------------------------------------------------------------------- */
/*
 * The data-path verbs.  They must not sleep, so they are called with
 * preemption disabled (a sleep shows as "scheduling while atomic"), and
 * the calling task is noted so that the completion handlers can tell when
 * a driver calls them from a verb's call chain.
 */

/* The state a verb must leave as it found it: preempt count, IRQs off. */
static unsigned int kv_state(void)
{
	return preempt_count() | (irqs_disabled() ? 1u << 31 : 0);
}

static unsigned int kv_enter(struct kv_run *r)
{
	preempt_disable();
	WRITE_ONCE(r->verb_task, current);
	return kv_state();
}

static void kv_leave(struct kv_run *r, unsigned int state)
{
	if (kv_state() != state)
		atomic_inc(&r->verb_unbalanced);
	WRITE_ONCE(r->verb_task, NULL);
	preempt_enable();
}

int kv_post_send(struct kv_run *r, struct ib_qp *qp, const struct ib_send_wr *wr,
		 const struct ib_send_wr **bad)
{
	unsigned int st = kv_enter(r);
	int ret;

	ret = ib_post_send(qp, wr, bad);
	kv_leave(r, st);
	return ret;
}

int kv_post_recv(struct kv_run *r, struct ib_qp *qp, const struct ib_recv_wr *wr,
		 const struct ib_recv_wr **bad)
{
	unsigned int st = kv_enter(r);
	int ret;

	ret = ib_post_recv(qp, wr, bad);
	kv_leave(r, st);
	return ret;
}

int kv_post_srq_recv(struct kv_run *r, struct ib_srq *srq,
		     const struct ib_recv_wr *wr, const struct ib_recv_wr **bad)
{
	unsigned int st = kv_enter(r);
	int ret;

	ret = ib_post_srq_recv(srq, wr, bad);
	kv_leave(r, st);
	return ret;
}

int kv_poll(struct kv_run *r, struct kv_cq *kc, int n, struct ib_wc *wc)
{
	unsigned int st = kv_enter(r);
	int ret;

	ret = ib_poll_cq(kc->cq, n, wc);
	kv_leave(r, st);
	return ret;
}

int kv_notify(struct kv_run *r, struct kv_cq *kc, enum ib_cq_notify_flags flags)
{
	unsigned int st = kv_enter(r);
	int ret;

	ret = ib_req_notify_cq(kc->cq, flags);
	kv_leave(r, st);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Buffers */

int kv_buf_alloc(struct kv_run *r, struct kv_buf *b, size_t size, u64 iova)
{
	struct device *dd = r->dev->dma_device;
	unsigned int i, npages;
	struct page *page;
	u64 *pages;
	int ret;

	memset(b, 0, sizeof(*b));
	b->order = get_order(size);
	b->size = PAGE_SIZE << b->order;
	b->dma_dev = dd;
	page = alloc_pages(GFP_KERNEL | __GFP_ZERO, b->order);
	if (!page)
		return kv_fail(r, "no memory for a %zu-byte buffer", b->size);
	b->cpu = page_address(page);
	b->dma = dma_map_page(dd, page, 0, b->size, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dd, b->dma)) {
		ret = kv_fail(r, "dma_map_page failed");
		goto err_free;
	}
	npages = b->size >> PAGE_SHIFT;
	pages = kmalloc_array(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages) {
		ret = kv_fail(r, "no memory for the page list");
		goto err_unmap;
	}
	for (i = 0; i < npages; i++)
		pages[i] = b->dma + ((u64)i << PAGE_SHIFT);
	b->iova = iova;
	b->mr = ibstack_reg_kernel_mr(r->pd, pages, npages, PAGE_SHIFT, iova, b->size,
				      IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
				      IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC);
	kfree(pages);
	if (IS_ERR_OR_NULL(b->mr)) {
		ret = kv_fail(r, "ibstack_reg_kernel_mr(%u pages) failed: %ld", npages,
			      PTR_ERR(b->mr));
		b->mr = NULL;
		goto err_unmap;
	}
	if (b->mr->iova != iova || b->mr->length != b->size || b->mr->pd != r->pd) {
		ret = kv_fail(r, "kernel MR fields: iova 0x%llx length %llu (want 0x%llx %zu)",
			      b->mr->iova, b->mr->length, iova, b->size);
		ib_dereg_mr(b->mr);
		b->mr = NULL;
		goto err_unmap;
	}
	return 0;

err_unmap:
	dma_unmap_page(dd, b->dma, b->size, DMA_BIDIRECTIONAL);
err_free:
	__free_pages(page, b->order);
	b->cpu = NULL;
	return ret;
}

void kv_buf_free(struct kv_run *r, struct kv_buf *b)
{
	int ret;

	if (!b->cpu)
		return;
	if (b->mr) {
		ret = ib_dereg_mr(b->mr);
		if (ret)
			pr_warn(KV_NAME ": ib_dereg_mr failed: %d\n", ret);
	}
	dma_unmap_page(b->dma_dev, b->dma, b->size, DMA_BIDIRECTIONAL);
	__free_pages(virt_to_page(b->cpu), b->order);
	b->cpu = NULL;
	b->mr = NULL;
}

/* Ownership to the CPU (before reading what the card wrote) and back. */
void kv_buf_cpu(struct kv_buf *b)
{
	dma_sync_single_for_cpu(b->dma_dev, b->dma, b->size, DMA_BIDIRECTIONAL);
}

void kv_buf_dev(struct kv_buf *b)
{
	dma_sync_single_for_device(b->dma_dev, b->dma, b->size, DMA_BIDIRECTIONAL);
}

static u8 kv_pattern(size_t i, u32 seed)
{
	return (u8)((i * 131 + (i >> 8) * 7 + seed * 17 + 1) & 0xff);
}

/* Fill [off, off + len) with the pattern of seed (buffer owned by the CPU). */
void kv_fill(struct kv_buf *b, size_t off, size_t len, u32 seed)
{
	u8 *p = (u8 *)b->cpu + off;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = kv_pattern(i, seed);
}

int kv_check_fill(struct kv_run *r, struct kv_buf *b, size_t off, size_t len,
		  u32 seed, const char *what)
{
	const u8 *p = (const u8 *)b->cpu + off;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != kv_pattern(i, seed))
			return kv_fail(r, "%s: byte %zu of %zu is 0x%02x, want 0x%02x",
				       what, i, len, p[i], kv_pattern(i, seed));
	return 0;
}

/* An SGE through the buffer's kernel MR (IOVA addressing). */
struct ib_sge kv_sge_mr(struct kv_buf *b, size_t off, u32 len)
{
	struct ib_sge s = {
		.addr = b->iova + off,
		.length = len,
		.lkey = b->mr->lkey,
	};

	return s;
}

/* An SGE through the PD's local_dma_lkey (bus addressing). */
struct ib_sge kv_sge_dma(struct kv_run *r, struct kv_buf *b, size_t off, u32 len)
{
	struct ib_sge s = {
		.addr = b->dma + off,
		.length = len,
		.lkey = r->pd->local_dma_lkey,
	};

	return s;
}

/* ---------------------------------------------------------------------- */
/* CQs */

static void kv_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct kv_cq *kc = ctx;

	if (atomic_inc_return(&kc->inside) > 1)
		atomic_inc(&kc->r->handler_nested);
	if (in_task() && READ_ONCE(kc->r->verb_task) == current)
		atomic_inc(&kc->r->handler_in_verb);
	atomic_inc(&kc->calls);
	atomic_dec(&kc->inside);
	wake_up(&kc->wq);
}

static void kv_cq_event(struct ib_event *ev, void *ctx)
{
	struct kv_cq *kc = ctx;

	pr_info(KV_NAME ": CQ event %s\n", ib_event_msg(ev->event));
	atomic_inc(&kc->events);
}

int kv_cq_create(struct kv_run *r, struct kv_cq *kc, int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };

	kc->r = r;
	atomic_set(&kc->calls, 0);
	atomic_set(&kc->inside, 0);
	atomic_set(&kc->events, 0);
	init_waitqueue_head(&kc->wq);
	kc->cq = ib_create_cq(r->dev, kv_comp_handler, kv_cq_event, kc, &attr);
	if (IS_ERR_OR_NULL(kc->cq)) {
		int err = kc->cq ? PTR_ERR(kc->cq) : -EINVAL;

		kc->cq = NULL;
		return kv_fail(r, "ib_create_cq(%d) failed: %d", cqe, err);
	}
	if (kc->cq->cqe < cqe) {
		int got = kc->cq->cqe;

		ib_destroy_cq(kc->cq);
		kc->cq = NULL;
		return kv_fail(r, "CQ of %d entries has only %d", cqe, got);
	}
	return 0;
}

int kv_cq_destroy(struct kv_cq *kc)
{
	int ret = 0;

	if (kc->cq) {
		ret = ib_destroy_cq_user(kc->cq, NULL);
		if (ret)
			kv_fail(kc->r, "ib_destroy_cq failed: %d", ret);
		else
			kc->cq = NULL;
	}
	return ret;
}

/* Wait (bounded) until the handler has been called more than old times. */
int kv_wait_calls(struct kv_cq *kc, int old, unsigned int ms)
{
	long left = wait_event_timeout(kc->wq, atomic_read(&kc->calls) != old,
				       msecs_to_jiffies(ms));

	return left ? 0 : -ETIMEDOUT;
}

/*
 * Poll n completions within ms milliseconds; returns how many came (or a
 * negative errno from poll).  Between polls it arms the CQ and sleeps until
 * the handler runs, in short slices, so that a missing completion event
 * slows the tests down but does not fail them (the notify cases test the
 * events themselves).
 */
int kv_wait_wc(struct kv_run *r, struct kv_cq *kc, struct ib_wc *wc, int n,
	       unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	int got = 0, ret, calls;

	for (;;) {
		ret = kv_poll(r, kc, n - got, wc + got);
		if (ret < 0)
			return ret;
		got += ret;
		if (got >= n || time_after(jiffies, end))
			return got;
		calls = atomic_read(&kc->calls);
		ret = kv_notify(r, kc, IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS);
		if (ret < 0)
			return ret;
		wait_event_timeout(kc->wq, atomic_read(&kc->calls) != calls,
				   ret > 0 ? 1 : msecs_to_jiffies(20));
	}
}

/*
 * One completion that must come: its wr_id, status and (opcode >= 0, only
 * checked for successful ones) opcode.
 */
int kv_expect(struct kv_run *r, struct kv_cq *kc, const char *what, u64 wr_id,
	      enum ib_wc_status status, int opcode, struct ib_wc *out)
{
	struct ib_wc wc;
	int ret;

	memset(&wc, 0, sizeof(wc));
	ret = kv_wait_wc(r, kc, &wc, 1, KV_WAIT_MS);
	if (ret < 0)
		return kv_fail(r, "%s: ib_poll_cq failed: %d", what, ret);
	if (ret == 0)
		return kv_fail(r, "%s: no completion within %d ms", what, KV_WAIT_MS);
	if (out)
		*out = wc;
	if (wc.wr_id != wr_id)
		return kv_fail(r, "%s: completion of wr_id %llu, want %llu (status %s)",
			       what, wc.wr_id, wr_id, kv_status(wc.status));
	if (wc.status != status)
		return kv_fail(r, "%s: status %s (vendor_err 0x%x), want %s", what,
			       kv_status(wc.status), wc.vendor_err, kv_status(status));
	if (status == IB_WC_SUCCESS && opcode >= 0 && wc.opcode != opcode)
		return kv_fail(r, "%s: opcode 0x%x, want 0x%x", what, wc.opcode, opcode);
	return 0;
}

/* No completion may arrive within ms. */
int kv_expect_quiet(struct kv_run *r, struct kv_cq *kc, const char *what,
		    unsigned int ms)
{
	struct ib_wc wc;
	int ret;

	ret = kv_wait_wc(r, kc, &wc, 1, ms);
	if (ret < 0)
		return kv_fail(r, "%s: ib_poll_cq failed: %d", what, ret);
	if (ret)
		return kv_fail(r, "%s: unexpected completion wr_id %llu status %s",
			       what, wc.wr_id, kv_status(wc.status));
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Address handles */

/* An InfiniBand address vector to dlid through port, the rest zero. */
void kv_ah_attr(struct kv_run *r, struct rdma_ah_attr *aa, u16 dlid, u32 port)
{
	memset(aa, 0, sizeof(*aa));
	aa->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(aa, dlid);
	rdma_ah_set_port_num(aa, port);
}

/* rdma_create_ah(), or NULL after a kv_fail() naming what. */
struct ib_ah *kv_ah_create(struct kv_run *r, struct rdma_ah_attr *aa, u32 flags,
			   const char *what)
{
	struct ib_ah *ah = rdma_create_ah(r->pd, aa, flags);

	if (!IS_ERR_OR_NULL(ah))
		return ah;
	kv_fail(r, "rdma_create_ah(%s) failed: %ld", what, ah ? PTR_ERR(ah) : -EINVAL);
	return NULL;
}

/*
 * attr is the GID attribute of the port's entry at index: an InfiniBand
 * GID without a netdev, the same GID as the cache's (rdma_query_gid()).
 */
int kv_check_sgid_attr(struct kv_run *r, const struct ib_gid_attr *attr, u32 port,
		       u16 index, const char *what)
{
	struct net_device *ndev;
	union ib_gid gid;
	int err;

	if (IS_ERR_OR_NULL(attr))
		return kv_fail(r, "%s: sgid_attr %p, want port %u's GID %u", what, attr, port,
			       index);
	if (attr->device != r->dev || attr->port_num != port || attr->index != index ||
	    attr->gid_type != IB_GID_TYPE_IB)
		return kv_fail(r, "%s: sgid_attr %s/%u/%u type %d, want port %u GID %u IB",
			       what, attr->device ? dev_name(&attr->device->dev) : "(none)",
			       attr->port_num, attr->index, attr->gid_type, port, index);
	err = rdma_query_gid(r->dev, port, index, &gid);
	if (err || memcmp(&gid, &attr->gid, sizeof(gid)))
		return kv_fail(r, "%s: sgid_attr's GID %pI6, the cache's %pI6 (%d)", what,
			       attr->gid.raw, gid.raw, err);
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	rcu_read_unlock();
	if (PTR_ERR_OR_ZERO(ndev) != -ENODEV)
		return kv_fail(r, "%s: rdma_read_gid_attr_ndev_rcu: %ld, want -ENODEV on IB",
			       what, PTR_ERR(ndev));
	return 0;
}

/* rdma_query_ah() gives back every attribute the AH was created with. */
int kv_check_ah(struct kv_run *r, struct ib_ah *ah, const struct rdma_ah_attr *want,
		const char *what)
{
	const struct ib_global_route *wg = rdma_ah_read_grh(want);
	const struct ib_global_route *g;
	struct rdma_ah_attr qa;
	int err;

	memset(&qa, 0xa5, sizeof(qa));	/* what the driver leaves alone shows */
	err = rdma_query_ah(ah, &qa);
	if (err)
		return kv_fail(r, "%s: rdma_query_ah failed: %d", what, err);
	if (qa.type != RDMA_AH_ATTR_TYPE_IB || ah->type != RDMA_AH_ATTR_TYPE_IB)
		return kv_fail(r, "%s: rdma_query_ah: type %d, AH's %d, want IB (%d)", what,
			       qa.type, ah->type, RDMA_AH_ATTR_TYPE_IB);
	if (rdma_ah_get_dlid(&qa) != rdma_ah_get_dlid(want) ||
	    rdma_ah_get_port_num(&qa) != rdma_ah_get_port_num(want))
		return kv_fail(r, "%s: rdma_query_ah: dlid %u port %u, created with %u %u",
			       what, rdma_ah_get_dlid(&qa), rdma_ah_get_port_num(&qa),
			       rdma_ah_get_dlid(want), rdma_ah_get_port_num(want));
	if (rdma_ah_get_sl(&qa) != rdma_ah_get_sl(want) ||
	    rdma_ah_get_path_bits(&qa) != rdma_ah_get_path_bits(want) ||
	    rdma_ah_get_static_rate(&qa) != rdma_ah_get_static_rate(want))
		return kv_fail(r, "%s: rdma_query_ah: sl %u bits %u rate %u, created with %u %u %u",
			       what, rdma_ah_get_sl(&qa), rdma_ah_get_path_bits(&qa),
			       rdma_ah_get_static_rate(&qa), rdma_ah_get_sl(want),
			       rdma_ah_get_path_bits(want), rdma_ah_get_static_rate(want));
	if (rdma_ah_get_ah_flags(&qa) != rdma_ah_get_ah_flags(want))
		return kv_fail(r, "%s: rdma_query_ah: flags 0x%x, created with 0x%x", what,
			       rdma_ah_get_ah_flags(&qa), rdma_ah_get_ah_flags(want));
	g = rdma_ah_read_grh(&qa);
	if (!(rdma_ah_get_ah_flags(want) & IB_AH_GRH)) {
		if (g->sgid_attr || ah->sgid_attr)
			return kv_fail(r, "%s: no GRH, but sgid_attr %p (AH's %p)", what,
				       g->sgid_attr, ah->sgid_attr);
		return 0;
	}
	err = kv_check_sgid_attr(r, g->sgid_attr, rdma_ah_get_port_num(want),
				 wg->sgid_index, what);
	if (err)
		return err;
	if (g->sgid_attr != ah->sgid_attr)
		return kv_fail(r, "%s: rdma_query_ah: sgid_attr %p, the AH holds %p", what,
			       g->sgid_attr, ah->sgid_attr);
	if (memcmp(g->dgid.raw, wg->dgid.raw, sizeof(wg->dgid.raw)))
		return kv_fail(r, "%s: rdma_query_ah: DGID %pI6, created with %pI6", what,
			       g->dgid.raw, wg->dgid.raw);
	if (g->sgid_index != wg->sgid_index || g->hop_limit != wg->hop_limit)
		return kv_fail(r, "%s: rdma_query_ah: SGID %u hop limit %u, created with %u %u",
			       what, g->sgid_index, g->hop_limit, wg->sgid_index,
			       wg->hop_limit);
	if (g->traffic_class != wg->traffic_class || g->flow_label != wg->flow_label)
		return kv_fail(r, "%s: rdma_query_ah: tclass 0x%x flow 0x%x, made with 0x%x 0x%x",
			       what, g->traffic_class, g->flow_label, wg->traffic_class,
			       wg->flow_label);
	return 0;
}

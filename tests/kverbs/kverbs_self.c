// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: the one-card self-test (port 1 cabled to port 2).  The
 * runner waits for both ports to be ACTIVE, sets up a PD and two buffers,
 * runs every case and prints one PASS/FAIL line per case and a summary.
 * Also here: the cases on queries, PDs, MRs and CQs.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kverbs.h"

#define KV_IOVA_A	0x0000100000000000ULL
#define KV_IOVA_B	0x0000200000000000ULL

/* ---------------------------------------------------------------------- */
/* Queries and the cache */

static int kv_query_port(struct kv_run *r, u32 port)
{
	struct ib_device *dev = r->dev;
	struct ib_port_attr pa;
	enum ib_port_state cst;
	union ib_gid gid;
	u16 pkey, cpkey, idx;
	u32 fport;
	u64 prefix;
	u8 lmc;
	int err, i;

	memset(&pa, 0, sizeof(pa));
	err = ib_query_port(dev, port, &pa);
	if (err)
		return kv_fail(r, "ib_query_port(%u) failed: %d", port, err);
	if (pa.state != IB_PORT_ACTIVE || !pa.lid || pa.lid >= 0xc000)
		return kv_fail(r, "port %u: state %d LID %u", port, pa.state, pa.lid);
	if (pa.gid_tbl_len <= 0 || !pa.pkey_tbl_len || pa.active_mtu < IB_MTU_256 ||
	    pa.active_mtu > pa.max_mtu)
		return kv_fail(r, "port %u: gid_tbl_len %d pkey_tbl_len %u mtu %d/%d",
			       port, pa.gid_tbl_len, pa.pkey_tbl_len, pa.active_mtu,
			       pa.max_mtu);
	if (rdma_port_get_link_layer(dev, port) != IB_LINK_LAYER_INFINIBAND)
		return kv_fail(r, "port %u: link layer is not InfiniBand", port);
	/*
	 * The cache follows a port change through the event's work, a little
	 * after the port itself (the port may have just come up, e.g. after a
	 * reset): it must catch up, within 5 s.
	 */
	for (i = 0; i < 100; i++) {
		if (!ib_get_cached_port_state(dev, port, &cst) && cst == pa.state)
			break;
		msleep(50);
	}
	err = ib_get_cached_port_state(dev, port, &cst);
	if (err || cst != pa.state)
		return kv_fail(r, "port %u: cached state %d (%d), query says %d", port,
			       cst, err, pa.state);
	err = ib_get_cached_lmc(dev, port, &lmc);
	if (err || lmc != pa.lmc)
		return kv_fail(r, "port %u: cached LMC %u (%d), query says %u", port,
			       lmc, err, pa.lmc);
	err = rdma_query_gid(dev, port, 0, &gid);
	if (err)
		return kv_fail(r, "rdma_query_gid(%u, 0) failed: %d", port, err);
	if (!gid.global.interface_id)
		return kv_fail(r, "port %u: GID 0 has no interface ID", port);
	if (pa.subnet_prefix != be64_to_cpu(gid.global.subnet_prefix))
		return kv_fail(r, "port %u: attr subnet prefix 0x%llx, GID 0 says 0x%llx",
			       port, pa.subnet_prefix, be64_to_cpu(gid.global.subnet_prefix));
	err = ib_find_gid(dev, &gid, &fport, &idx);
	if (err || fport != port || idx != 0)
		return kv_fail(r, "ib_find_gid: %d port %u index %u", err, fport, idx);
	err = ib_get_cached_subnet_prefix(dev, port, &prefix);
	if (err || prefix != be64_to_cpu(gid.global.subnet_prefix))
		return kv_fail(r, "port %u: cached prefix 0x%llx (%d), GID says 0x%llx",
			       port, prefix, err, be64_to_cpu(gid.global.subnet_prefix));
	err = ib_query_pkey(dev, port, 0, &pkey);
	if (err || (pkey & 0x7fff) != 0x7fff)
		return kv_fail(r, "port %u: P_Key 0 is 0x%04x (%d)", port, pkey, err);
	err = ib_get_cached_pkey(dev, port, 0, &cpkey);
	if (err || cpkey != pkey)
		return kv_fail(r, "port %u: cached P_Key 0x%04x (%d), query 0x%04x", port,
			       cpkey, err, pkey);
	err = ib_find_cached_pkey(dev, port, pkey, &idx);
	if (err || idx != 0)
		return kv_fail(r, "ib_find_cached_pkey: %d index %u", err, idx);
	/* out of range */
	if (rdma_query_gid(dev, port, pa.gid_tbl_len, &gid) != -EINVAL ||
	    rdma_query_gid(dev, port, -1, &gid) != -EINVAL)
		return kv_fail(r, "port %u: GID index %d accepted", port, pa.gid_tbl_len);
	if (!ib_query_pkey(dev, port, pa.pkey_tbl_len, &pkey) ||
	    !ib_get_cached_pkey(dev, port, pa.pkey_tbl_len, &pkey))
		return kv_fail(r, "port %u: P_Key index %u accepted", port, pa.pkey_tbl_len);
	r->lid[port] = pa.lid;
	r->mtu[port] = pa.active_mtu;
	return 0;
}

int kv_case_query(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	const struct ib_device_attr *a = &r->dev->attrs;
	struct ib_port_attr pa;
	union ib_gid gid;
	u8 lmc;
	int ret;

	if (r->dev->node_type != RDMA_NODE_IB_CA || r->dev->phys_port_cnt != 2)
		return kv_fail(r, "node type %d with %u ports", r->dev->node_type,
			       r->dev->phys_port_cnt);
	if (a->vendor_id != 0x02c9 || a->max_qp <= 0 || a->max_qp_wr <= 0 ||
	    a->max_send_sge <= 0 || a->max_recv_sge <= 0 || a->max_cq <= 0 ||
	    a->max_cqe <= 0 || a->max_mr <= 0 || a->max_pd <= 0 || a->max_srq <= 0 ||
	    a->max_qp_rd_atom <= 0 || a->atomic_cap == IB_ATOMIC_NONE ||
	    a->max_pkeys == 0)
		return kv_fail(r, "device: vendor 0x%x qp %d wr %d sge %d/%d cq %d/%d atomic %d",
			       a->vendor_id, a->max_qp, a->max_qp_wr, a->max_send_sge,
			       a->max_recv_sge, a->max_cq, a->max_cqe, a->atomic_cap);
	ret = kv_query_port(r, 1);
	ret = ret ?: kv_query_port(r, 2);
	if (ret)
		return ret;
	if (r->lid[1] == r->lid[2])
		return kv_fail(r, "both ports have LID %u", r->lid[1]);
	if (!ib_query_port(r->dev, 0, &pa) || !ib_query_port(r->dev, 3, &pa))
		return kv_fail(r, "ib_query_port of port 0 or 3 accepted");
	if (!ib_get_cached_lmc(r->dev, 3, &lmc) || rdma_query_gid(r->dev, 3, 0, &gid) != -EINVAL ||
	    rdma_query_gid(r->dev, 0, 0, &gid) != -EINVAL)
		return kv_fail(r, "the cache answered for port 3 or 0");
	return 0;
}

/* ---------------------------------------------------------------------- */
/* PDs and MRs */

int kv_case_pd_mr(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_mr *mr, *mr2;
	struct ib_pd *pd;
	u64 page = s->a.dma;
	int ret = 0, err;

	pd = ib_alloc_pd(r->dev, 0);
	if (IS_ERR_OR_NULL(pd))
		return kv_fail(r, "ib_alloc_pd failed: %ld", pd ? PTR_ERR(pd) : -EINVAL);
	if (pd->device != r->dev) {
		ret = kv_fail(r, "new PD: device %p", pd->device);
		goto out_pd;
	}
	/* without IB_PD_UNSAFE_GLOBAL_RKEY no peer gets a key to all memory */
	mr = pd->__internal_mr;
	if (pd->flags || pd->unsafe_global_rkey || !mr || mr->pd != pd ||
	    mr->device != r->dev || mr->type != IB_MR_TYPE_DMA ||
	    pd->local_dma_lkey != mr->lkey) {
		ret = kv_fail(r, "new PD: flags 0x%x rkey 0x%x lkey 0x%x, DMA MR %p",
			      pd->flags, pd->unsafe_global_rkey, pd->local_dma_lkey, mr);
		goto out_pd;
	}
	mr2 = ibstack_reg_kernel_mr(pd, &page, 1, PAGE_SHIFT, 0x5000, 100,
				    IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR_OR_NULL(mr2)) {
		ret = kv_fail(r, "ibstack_reg_kernel_mr(1 page) failed: %ld",
			      mr2 ? PTR_ERR(mr2) : -EINVAL);
	} else {
		if (mr2->lkey == mr->lkey || mr2->iova != 0x5000 || mr2->length != 100)
			ret = kv_fail(r, "kernel MR: lkey 0x%x (DMA MR 0x%x) iova 0x%llx len %llu",
				      mr2->lkey, mr->lkey, mr2->iova, mr2->length);
		err = ib_dereg_mr(mr2);
		if (err)
			ret = kv_fail(r, "ib_dereg_mr(kernel MR) failed: %d", err);
	}
	/* bad registrations */
	mr2 = ibstack_reg_kernel_mr(pd, &page, 0, PAGE_SHIFT, 0, 0, IB_ACCESS_LOCAL_WRITE);
	if (!IS_ERR_OR_NULL(mr2)) {
		ret = kv_fail(r, "kernel MR of 0 pages accepted");
		ib_dereg_mr(mr2);
	}
	mr2 = ibstack_reg_kernel_mr(pd, &page, 1, PAGE_SHIFT, 0, PAGE_SIZE * 2,
				    IB_ACCESS_LOCAL_WRITE);
	if (!IS_ERR_OR_NULL(mr2)) {
		ret = kv_fail(r, "kernel MR longer than its pages accepted");
		ib_dereg_mr(mr2);
	}
	mr2 = ibstack_reg_kernel_mr(pd, &page, 1, PAGE_SHIFT, 0, 64, IB_ACCESS_REMOTE_WRITE);
	if (!IS_ERR_OR_NULL(mr2)) {
		ret = kv_fail(r, "REMOTE_WRITE without LOCAL_WRITE accepted (IBA 10.6.3.1)");
		ib_dereg_mr(mr2);
	}
	/* the PD's own MR is not the caller's to release */
	if (ib_dereg_mr(mr) != -EINVAL)
		ret = kv_fail(r, "ib_dereg_mr of the PD's DMA MR not refused");
out_pd:
	err = ib_dealloc_pd_user(pd, NULL);
	if (err)
		ret = kv_fail(r, "ib_dealloc_pd failed: %d", err);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* CQs */

int kv_case_cq(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_cq_init_attr ca = { .cqe = 1 };
	struct kv_cq kc = { 0 };
	struct ib_wc wc[4];
	struct ib_cq *cq;
	int ret, err;

	ret = kv_cq_create(r, &kc, 100);
	if (ret)
		return ret;
	if (!kc.cq->comp_handler || kc.cq->cq_context != &kc ||
	    kc.cq->device != r->dev)
		ret = kv_fail(r, "CQ fields wrong");
	err = kv_poll(r, &kc, 4, wc);
	if (err)
		ret = kv_fail(r, "poll of an empty CQ returned %d", err);
	err = kv_notify(r, &kc, IB_CQ_NEXT_COMP);
	if (err)
		ret = kv_fail(r, "arming an empty CQ returned %d", err);
	err = kv_notify(r, &kc, IB_CQ_SOLICITED | IB_CQ_REPORT_MISSED_EVENTS);
	if (err)
		ret = kv_fail(r, "arming an empty CQ (solicited, report missed) returned %d",
			      err);
	/* resize up and down: the CQ holds what was asked and still works */
	err = ib_resize_cq(kc.cq, 300);
	if (err)
		ret = kv_fail(r, "ib_resize_cq(100 -> 300) failed: %d", err);
	else if (kc.cq->cqe < 300)
		ret = kv_fail(r, "CQ resized to 300 has %d entries", kc.cq->cqe);
	err = ib_resize_cq(kc.cq, 20);
	if (err)
		ret = kv_fail(r, "ib_resize_cq(300 -> 20) failed: %d", err);
	else if (kc.cq->cqe < 20 || kc.cq->cqe >= 300)
		ret = kv_fail(r, "CQ resized from 300 to 20 has %d entries", kc.cq->cqe);
	err = kv_poll(r, &kc, 4, wc);
	if (err)
		ret = kv_fail(r, "poll of the empty resized CQ returned %d", err);
	err = kv_notify(r, &kc, IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS);
	if (err)
		ret = kv_fail(r, "arming the empty resized CQ returned %d", err);
	/* moderation on (4 CQEs or 10 us) and off again */
	err = rdma_set_cq_moderation(kc.cq, 4, 10);
	if (err)
		ret = kv_fail(r, "rdma_set_cq_moderation(4, 10) failed: %d", err);
	err = rdma_set_cq_moderation(kc.cq, 0, 0);
	if (err)
		ret = kv_fail(r, "rdma_set_cq_moderation(0, 0) failed: %d", err);
	if (kv_cq_destroy(&kc))
		ret = -EIO;
	/* too big is refused */
	ca.cqe = r->dev->attrs.max_cqe + 1;
	cq = ib_create_cq(r->dev, NULL, NULL, NULL, &ca);
	if (!IS_ERR_OR_NULL(cq)) {
		ret = kv_fail(r, "CQ of max_cqe + 1 entries accepted");
		ib_destroy_cq(cq);
	}
	return ret;
}

/* ---------------------------------------------------------------------- */
/* The runner */

struct kv_case {
	const char *name;
	int (*fn)(struct kv_self *s);
};

static const struct kv_case kv_cases[] = {
	{ "query", kv_case_query },
	{ "pd-mr", kv_case_pd_mr },
	{ "cq", kv_case_cq },
	{ "rc-connect", kv_case_rc_connect },
	{ "rc-send", kv_case_rc_send },
	{ "rc-send-imm", kv_case_rc_send_imm },
	{ "rc-send-inline", kv_case_rc_send_inline },
	{ "inline-limit", kv_case_inline_limit },
	{ "rc-send-sge", kv_case_rc_send_sge },
	{ "rc-send-batch", kv_case_rc_send_batch },
	{ "rc-unsignaled", kv_case_rc_unsignaled },
	{ "rc-write", kv_case_rc_write },
	{ "rc-read", kv_case_rc_read },
	{ "rc-atomic", kv_case_rc_atomic },
	{ "uc", kv_case_uc },
	{ "ud", kv_case_ud },
	{ "mcast", kv_case_mcast },
	{ "mcast-loopback", kv_case_mcast_loopback },
	{ "mcast-busy", kv_case_mcast_busy },
	{ "srq", kv_case_srq },
	{ "srq-destroy-poll", kv_case_srq_destroy_poll },
	{ "notify-next", kv_case_notify_next },
	{ "notify-solicited", kv_case_notify_solicited },
	{ "notify-missed", kv_case_notify_missed },
	{ "bad-lkey", kv_case_bad_lkey },
	{ "rem-access", kv_case_rem_access },
	{ "bad-modify", kv_case_bad_modify },
	{ "queue-full", kv_case_queue_full },
	{ "sge-limit", kv_case_sge_limit },
	{ "pd-busy", kv_case_pd_busy },
	{ "irq-context", kv_case_irq_context },
	{ "rc-wrap", kv_case_rc_wrap },
	{ "cq-resize", kv_case_cq_resize },
	{ "cq-resize-busy", kv_case_cq_resize_busy },
	{ "cq-max", kv_case_cq_max },
	{ "cq-moderation", kv_case_cq_moderation },
	{ "cq-clean", kv_case_cq_clean },
	{ "limits", kv_case_limits },
	{ "rnr", kv_case_rnr },
	{ "retry-exc", kv_case_retry_exc },
	{ "comm-est", kv_case_comm_est },
	{ "many", kv_case_many },
	{ "ud-grh", kv_case_ud_grh },
	{ "srq-wrap", kv_case_srq_wrap },
	{ "mt-post", kv_case_mt_post },
	{ "sqd", kv_case_sqd },
	{ "err-recover", kv_case_err_recover },
	{ "access", kv_case_access },
	{ "big-mr", kv_case_big_mr },
	{ "cq-overrun", kv_case_cq_overrun },
	{ "ah-atomic", kv_case_ah_atomic },
	{ "ah-query", kv_case_ah_query },
	{ "ah-from-wc", kv_case_ah_from_wc },
	{ "wr-cqe", kv_case_wr_cqe },
	{ "ulp-helpers", kv_case_ulp_helpers },
	{ "port-caps", kv_case_port_caps },
	{ "device-by-name", kv_case_device_by_name },
	{ "fw-str", kv_case_fw_str },
	{ "pkey-find", kv_case_pkey_find },
	{ "gid-find", kv_case_gid_find },
	{ "gid-attr", kv_case_gid_attr },
	{ "ndev-params", kv_case_ndev_params },
	{ "unsafe-rkey", kv_case_unsafe_rkey },
	{ "frwr-rdma", kv_case_frwr_rdma },
	{ "frwr-local-inv", kv_case_frwr_local_inv },
	{ "frwr-send-inv", kv_case_frwr_send_inv },
	{ "frwr-map", kv_case_frwr_map },
	{ "frwr-caps", kv_case_frwr_caps },
	{ "mw-type1", kv_case_mw_type1 },
	{ "mw-type2", kv_case_mw_type2 },
	{ "mw-dealloc", kv_case_mw_dealloc },
	{ "mw-caps", kv_case_mw_caps },
	{ "xrc-domain", kv_case_xrc_domain },
	{ "xrc-send", kv_case_xrc_send },
	{ "offload-caps", kv_case_offload_caps },
	{ "ud-csum", kv_case_ud_csum },
	{ "ud-lso", kv_case_ud_lso },
	{ "cq-poll-ctx", kv_case_cq_poll_ctx },
	{ "cq-flood", kv_case_cq_flood },
	{ "cq-direct", kv_case_cq_direct },
	{ "cq-pool", kv_case_cq_pool },
	{ "cq-free-busy", kv_case_cq_free_busy },
	{ "drain-qp", kv_case_drain_qp },
	{ "drain-srq", kv_case_drain_srq },
	{ "drain-direct", kv_case_drain_direct },
	{ "drain-idle", kv_case_drain_idle },
	{ "restrack", kv_case_restrack },
};

/* Both ports ACTIVE, bounded; LIDs and MTUs come from kv_case_query(). */
static int kv_wait_ports(struct kv_run *r)
{
	unsigned long end = jiffies + msecs_to_jiffies(KV_PORT_MS);
	struct ib_port_attr pa;
	u32 port;
	bool all;

	for (;;) {
		all = true;
		for (port = 1; port <= 2; port++) {
			memset(&pa, 0, sizeof(pa));
			if (ib_query_port(r->dev, port, &pa) ||
			    pa.state != IB_PORT_ACTIVE) {
				all = false;
				continue;
			}
			r->lid[port] = pa.lid;
			r->mtu[port] = pa.active_mtu;
		}
		if (all)
			return 0;
		if (time_after(jiffies, end))
			return kv_fail(r, "ports not both ACTIVE within %d s", KV_PORT_MS / 1000);
		msleep(200);
	}
}

/* One case, with the checks every case gets. */
static void kv_run_case(struct kv_self *s, const struct kv_case *c)
{
	struct kv_run *r = &s->r;
	int inverb = atomic_read(&r->handler_in_verb);
	int nested = atomic_read(&r->handler_nested);
	int unbal = atomic_read(&r->verb_unbalanced);
	int ret = c->fn(s);

	if (atomic_read(&r->verb_unbalanced) != unbal)
		ret = kv_fail(r, "a data-path verb changed the preemption or IRQ state");
	if (atomic_read(&r->handler_in_verb) != inverb)
		ret = kv_fail(r, "completion handler called from a verb's call chain");
	if (atomic_read(&r->handler_nested) != nested)
		ret = kv_fail(r, "one CQ's handler ran in two contexts at once");
	kv_report(r, c->name, ret);
}

static void kv_selftest_nomem(struct ib_device *dev)
{
	pr_info(KV_NAME ": FAIL setup: cannot allocate the test state\n");
	pr_info(KV_NAME ": selftest %s done: 0 passed, 1 failed\n", dev->name);
}

void kv_selftest(struct ib_device *dev, const bool *stop, unsigned int rounds)
{
	struct kv_self *s;
	struct kv_run *r;
	unsigned int i, round;
	bool stopped = false;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		kv_selftest_nomem(dev);
		return;
	}
	r = &s->r;
	r->dev = dev;
	r->rnr_retry = 7;
	atomic_set(&r->handler_in_verb, 0);
	atomic_set(&r->handler_nested, 0);
	atomic_set(&r->verb_unbalanced, 0);

	ret = kv_wait_ports(r);
	if (ret) {
		kv_report(r, "ports-active", ret);
		goto done;
	}
	r->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR_OR_NULL(r->pd)) {
		kv_fail(r, "ib_alloc_pd failed: %ld", r->pd ? PTR_ERR(r->pd) : -EINVAL);
		r->pd = NULL;
		kv_report(r, "setup", -EIO);
		goto done;
	}
	ret = kv_buf_alloc(r, &s->a, KV_BUF_SIZE, KV_IOVA_A);
	ret = ret ?: kv_buf_alloc(r, &s->b, KV_BUF_SIZE, KV_IOVA_B);
	if (ret) {
		kv_report(r, "setup", ret);
		goto out_bufs;
	}
	for (round = 0; round < rounds && !stopped; round++) {
		for (i = 0; i < ARRAY_SIZE(kv_cases); i++) {
			if (READ_ONCE(*stop)) {
				kv_fail(r, "device removed during the self-test");
				kv_report(r, "stopped", -EIO);
				stopped = true;
				break;
			}
			kv_run_case(s, &kv_cases[i]);
		}
	}
out_bufs:
	kv_buf_free(r, &s->b);
	kv_buf_free(r, &s->a);
	ret = ib_dealloc_pd_user(r->pd, NULL);
	if (ret) {
		kv_fail(r, "ib_dealloc_pd at the end: %d (something leaked)", ret);
		kv_report(r, "teardown", ret);
	}
done:
	pr_info(KV_NAME ": selftest %s done: %d passed, %d failed\n", dev->name,
		r->passed, r->failed);
	kfree(s);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: the two-node test.  Each node's card has port N cabled
 * to port N of the other node's card; a script exchanges one text line per
 * node over the management network.  Files in
 * /sys/kernel/debug/ibstack_kverbs/<device>/:
 *	port		read/write the port to use (default 1)
 *	endpoint	read: set up (once) and print this node's endpoint line
 *	peer		write: the other node's endpoint line (connects the RC QP)
 *	run		write anything: run the test (returns when done);
 *			read: the last summary
 *	reset		write anything: destroy everything set up
 *	rounds		read/write: how many times the RDMA WRITE and READ
 *			go (default 1; more moves more data, e.g. across a
 *			lossy cable)
 *	ud		read/write: 0 leaves the UD SEND out (a lossy cable
 *			may lose it, and UD does not resend)
 *	dead		write anything: instead of run, the dead-peer test
 *			(the peer stopped answering: see kv_peer_dead)
 *	drainfix	write: QPs drained on the dead card at removal
 *			(kverbs_drain.c)
 *	verbfix		write 1: a QP with receives on an armed CQ; write 2:
 *			the verb that times out on a dead card, in the
 *			writer's task; read: the verdict (kverbs_verbfix.c)
 * Both nodes run the same test at the same time: RC SENDs, an RDMA WRITE
 * into the peer's inbox, an RDMA READ of the peer's export area, atomics on
 * the peer's counter, a UD SEND, then a SEND with immediate that tells the
 * peer it is done; then each checks what the peer did to it.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kverbs.h"

#define KV_PEER_BUF	(512 * 1024)
#define KV_PEER_IOVA	0x0000300000000000ULL
#define KV_PEER_MS	30000		/* the peer's part, which may start later */
#define KV_PEER_QKEY	0x22222222
#define KV_PEER_PSN	0x3c5a01
#define KV_ATOMIC_INIT	1000ULL
#define KV_ATOMIC_SWAP	7777ULL
#define KV_DONE_IMM	0xd0e0d0e0

/* the endpoint line, written by one node and parsed by the other */
#define KV_EP_FMT	"lid=%u port=%u rcqpn=%u rcpsn=%u udqpn=%u qkey=%u " \
			"addr=%llu rkey=%u len=%u"

/* the buffer's areas */
#define OFF_EXPORT	0		/* 64 KiB the peer reads */
#define OFF_INBOX	(64 * 1024)	/* 64 KiB the peer writes */
#define OFF_ATOMIC	(128 * 1024)	/* the word the peer's atomics hit */
#define OFF_ARES	(128 * 1024 + 64) /* results of our atomics */
#define OFF_READ	(192 * 1024)	/* our RDMA READ lands here */
#define OFF_RECV	(256 * 1024)	/* RC receives: 4 KiB, 4 KiB, 64 KiB */
#define OFF_UDRECV	(384 * 1024)	/* UD receive */
#define OFF_SEND	(448 * 1024)	/* 64 KiB source of our SENDs/WRITE */

static const u32 kv_peer_sizes[] = { 1, 4096, KV_BIG };
static const u32 kv_recv_off[] = { OFF_RECV, OFF_RECV + 4096, OFF_RECV + 65536 };

struct kv_remote {
	u32	lid;
	u32	port;
	u32	rcqpn;
	u32	rcpsn;
	u32	udqpn;
	u32	qkey;
	u64	addr;
	u32	rkey;
	u32	len;
};

struct kv_peer {
	struct ib_device	*dev;
	struct dentry		*dir;
	/* debugfs u32/bool files, read when the test runs */
	u32			rounds;
	bool			with_ud;
	/* serialises the files' operations and protects everything below */
	struct mutex		lock;
	u32			port;
	bool			ready;		/* resources set up */
	bool			connected;	/* peer line taken */
	bool			ran;
	struct kv_run		r;
	struct kv_buf		buf;
	struct kv_ep		rc;
	struct kv_ep		ud;
	struct ib_ah		*ah;
	struct kv_remote	remote;
	char			summary[64];
	struct kv_drain_fix	*fix;		/* drainfix: QPs drained at removal */
	struct kv_verb_fix	*vfix;		/* verbfix: its own PD, QP and CQ */
};

static void kv_peer_teardown(struct kv_peer *pp)
{
	struct kv_run *r = &pp->r;
	int err;

	if (!pp->ready)
		return;
	kv_drain_fix_destroy(pp->fix, false);
	pp->fix = NULL;
	if (pp->ah) {
		err = rdma_destroy_ah_user(pp->ah, 0, NULL);
		if (err)
			pr_warn(KV_NAME ": rdma_destroy_ah_user failed: %d\n", err);
		pp->ah = NULL;
	}
	kv_ep_destroy(r, &pp->ud);
	kv_ep_destroy(r, &pp->rc);
	kv_buf_free(r, &pp->buf);
	err = ib_dealloc_pd_user(r->pd, NULL);
	if (err)
		pr_warn(KV_NAME ": ib_dealloc_pd failed: %d\n", err);
	r->pd = NULL;
	pp->ready = false;
	pp->connected = false;
	pp->ran = false;
}

static int kv_peer_recv(struct kv_peer *pp, struct ib_qp *qp, u64 wr_id,
			size_t off, u32 len)
{
	struct ib_sge sge = kv_sge_mr(&pp->buf, off, len);

	return kv_recv(&pp->r, qp, wr_id, &sge, len ? 1 : 0);
}

static int kv_peer_setup(struct kv_peer *pp)
{
	struct kv_run *r = &pp->r;
	struct ib_port_attr pa;
	unsigned int i;
	int ret;

	lockdep_assert_held(&pp->lock);
	memset(r, 0, sizeof(*r));
	r->dev = pp->dev;
	r->rnr_retry = 7;
	memset(&pa, 0, sizeof(pa));
	ret = ib_query_port(pp->dev, pp->port, &pa);
	if (ret || pa.state != IB_PORT_ACTIVE) {
		pr_info(KV_NAME ": peer: port %u not ACTIVE (%d, state %d)\n",
			pp->port, ret, pa.state);
		return -ENOLINK;
	}
	r->lid[pp->port] = pa.lid;
	r->mtu[pp->port] = pa.active_mtu;
	r->pd = ib_alloc_pd(pp->dev, 0);
	if (IS_ERR_OR_NULL(r->pd)) {
		ret = r->pd ? PTR_ERR(r->pd) : -EINVAL;
		r->pd = NULL;
		return ret;
	}
	ret = kv_buf_alloc(r, &pp->buf, KV_PEER_BUF, KV_PEER_IOVA);
	if (ret)
		goto err_pd;
	/* what the peer reads, the counter its atomics hit */
	kv_buf_cpu(&pp->buf);
	kv_fill(&pp->buf, OFF_EXPORT, 65536, pa.lid);
	kv_fill(&pp->buf, OFF_SEND, 65536, pa.lid + 2000);
	*(__be64 *)((u8 *)pp->buf.cpu + OFF_ATOMIC) = cpu_to_be64(KV_ATOMIC_INIT);
	kv_buf_dev(&pp->buf);

	ret = kv_ep_init(r, &pp->rc, pp->port, 0);
	if (ret)
		goto err_buf;
	ret = kv_ep_init(r, &pp->ud, pp->port, 0);
	if (ret)
		goto err_rc;
	pp->rc.qp = kv_qp_create(r, &pp->rc, IB_QPT_RC, NULL, NULL, NULL);
	pp->ud.qp = kv_qp_create(r, &pp->ud, IB_QPT_UD, NULL, NULL, NULL);
	if (!pp->rc.qp || !pp->ud.qp) {
		ret = -EIO;
		goto err_ud;
	}
	ret = kv_qp_init(r, pp->rc.qp, IB_QPT_RC, pp->port, 0);
	ret = ret ?: kv_qp_init(r, pp->ud.qp, IB_QPT_UD, pp->port, KV_PEER_QKEY);
	ret = ret ?: kv_qp_rtr_rts(r, pp->ud.qp, IB_QPT_UD, pp->port, 0, 0, 0,
				   KV_PEER_PSN, pa.active_mtu);
	/* the receives are there before the peer can send */
	for (i = 0; i < ARRAY_SIZE(kv_peer_sizes) && !ret; i++)
		ret = kv_peer_recv(pp, pp->rc.qp, i, kv_recv_off[i], kv_peer_sizes[i]);
	ret = ret ?: kv_peer_recv(pp, pp->rc.qp, 3, 0, 0);	/* the "done" */
	ret = ret ?: kv_peer_recv(pp, pp->ud.qp, 10, OFF_UDRECV, 40 + 4096);
	if (ret)
		goto err_ud;
	pp->ready = true;
	return 0;

err_ud:
	kv_ep_destroy(r, &pp->ud);
err_rc:
	kv_ep_destroy(r, &pp->rc);
err_buf:
	kv_buf_free(r, &pp->buf);
err_pd:
	ib_dealloc_pd(r->pd);
	r->pd = NULL;
	if (r->why[0])
		pr_info(KV_NAME ": peer setup: %s\n", r->why);
	r->why[0] = '\0';
	return ret ? ret : -EIO;
}

static int kv_peer_connect(struct kv_peer *pp, const struct kv_remote *rem)
{
	struct kv_run *r = &pp->r;
	struct rdma_ah_attr aa;
	int ret;

	lockdep_assert_held(&pp->lock);
	if (rem->lid == r->lid[pp->port]) {
		pr_info(KV_NAME ": peer has our own LID %u (give the nodes distinct LIDs)\n",
			rem->lid);
		return -EINVAL;
	}
	ret = kv_qp_rtr_rts(r, pp->rc.qp, IB_QPT_RC, pp->port, rem->lid, rem->rcqpn,
			    rem->rcpsn, KV_PEER_PSN, r->mtu[pp->port]);
	if (ret)
		goto err;
	kv_ah_attr(r, &aa, rem->lid, pp->port);
	pp->ah = rdma_create_ah(r->pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR_OR_NULL(pp->ah)) {
		ret = pp->ah ? PTR_ERR(pp->ah) : -EINVAL;
		pp->ah = NULL;
		kv_fail(r, "rdma_create_ah failed: %d", ret);
		goto err;
	}
	pp->remote = *rem;
	pp->connected = true;
	return 0;
err:
	pr_info(KV_NAME ": peer connect: %s\n", r->why);
	r->why[0] = '\0';
	return ret ? ret : -EIO;
}

/* ---------------------------------------------------------------------- */
/* The test */

/*
 * The RDMA WRITE of 64 KiB into the peer's inbox, pp->rounds times, each
 * round with other data: the last round's is what the peer checks, so a
 * packet of an earlier round that lands late shows as a wrong byte.
 */
static int kv_peer_write_rounds(struct kv_peer *pp)
{
	struct kv_run *r = &pp->r;
	u32 n, rounds = max(pp->rounds, 1U);
	struct ib_sge ss;
	int ret = 0;

	for (n = 0; n < rounds && !ret; n++) {
		kv_buf_cpu(&pp->buf);
		kv_fill(&pp->buf, OFF_SEND, 65536,
			r->lid[pp->port] + 2000 + (rounds - 1 - n));
		kv_buf_dev(&pp->buf);
		ss = kv_sge_mr(&pp->buf, OFF_SEND, 65536);
		ret = kv_rdma(r, &pp->rc, IB_WR_RDMA_WRITE, 110, &ss, 1,
			      pp->remote.addr + OFF_INBOX, pp->remote.rkey);
		ret = ret ?: kv_expect(r, &pp->rc.scq, "write", 110, IB_WC_SUCCESS,
				       IB_WC_RDMA_WRITE, NULL);
		if (ret && rounds > 1)
			pr_info(KV_NAME ": peer: round %u of %u failed\n", n + 1,
				rounds);
	}
	return ret;
}

/* The RDMA READ of the peer's 64 KiB export area, pp->rounds times. */
static int kv_peer_read_rounds(struct kv_peer *pp)
{
	struct kv_run *r = &pp->r;
	u32 n, rounds = max(pp->rounds, 1U);
	struct ib_sge ss;
	int ret = 0;

	for (n = 0; n < rounds && !ret; n++) {
		kv_buf_cpu(&pp->buf);
		memset((u8 *)pp->buf.cpu + OFF_READ, 0, 65536);
		kv_buf_dev(&pp->buf);
		ss = kv_sge_dma(r, &pp->buf, OFF_READ, 65536);
		ret = kv_rdma(r, &pp->rc, IB_WR_RDMA_READ, 111, &ss, 1,
			      pp->remote.addr + OFF_EXPORT, pp->remote.rkey);
		ret = ret ?: kv_expect(r, &pp->rc.scq, "read", 111, IB_WC_SUCCESS,
				       IB_WC_RDMA_READ, NULL);
		if (!ret) {
			kv_buf_cpu(&pp->buf);
			ret = kv_check_fill(r, &pp->buf, OFF_READ, 65536,
					    pp->remote.lid, "data read from the peer");
		}
		if (ret && rounds > 1)
			pr_info(KV_NAME ": peer: round %u of %u failed\n", n + 1,
				rounds);
	}
	return ret;
}

static void kv_peer_ud_send(struct kv_peer *pp)
{
	struct kv_run *r = &pp->r;
	const struct ib_send_wr *bad = NULL;
	struct ib_ud_wr wr;
	struct ib_sge ss;
	struct ib_wc wc;
	int ret;

	memset(&wr, 0, sizeof(wr));
	ss = kv_sge_dma(r, &pp->buf, OFF_SEND, 512);
	wr.wr.wr_id = 114;
	wr.wr.sg_list = &ss;
	wr.wr.num_sge = 1;
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.ah = pp->ah;
	wr.remote_qpn = pp->remote.udqpn;
	wr.remote_qkey = pp->remote.qkey;
	ret = kv_post_send(r, pp->ud.qp, &wr.wr, &bad);
	if (ret)
		kv_fail(r, "UD ib_post_send failed: %d", ret);
	ret = ret ?: kv_expect(r, &pp->ud.scq, "UD send", 114, IB_WC_SUCCESS,
			       IB_WC_SEND, &wc);
	kv_report(r, "peer-ud-send", ret);
}

static int kv_peer_requester(struct kv_peer *pp)
{
	struct kv_run *r = &pp->r;
	struct kv_remote *rem = &pp->remote;
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr wr;
	struct ib_sge ss;
	unsigned int i;
	u64 old;
	int ret = 0;

	/* SENDs of three sizes */
	for (i = 0; i < ARRAY_SIZE(kv_peer_sizes) && !ret; i++) {
		ss = kv_sge_dma(r, &pp->buf, OFF_SEND, kv_peer_sizes[i]);
		ret = kv_send(r, &pp->rc, IB_WR_SEND, 100 + i, &ss, 1, 0);
		ret = ret ?: kv_expect(r, &pp->rc.scq, "send", 100 + i, IB_WC_SUCCESS,
				       IB_WC_SEND, NULL);
	}
	kv_report(r, "peer-rc-send", ret);

	ret = kv_peer_write_rounds(pp);
	kv_report(r, "peer-rdma-write", ret);

	ret = kv_peer_read_rounds(pp);
	kv_report(r, "peer-rdma-read", ret);

	ss = kv_sge_mr(&pp->buf, OFF_ARES, 8);
	ret = kv_atomic(r, &pp->rc, IB_WR_ATOMIC_FETCH_AND_ADD, 112, &ss,
			rem->addr + OFF_ATOMIC, rem->rkey, 1, 0);
	ret = ret ?: kv_expect(r, &pp->rc.scq, "fetch_add", 112, IB_WC_SUCCESS,
			       IB_WC_FETCH_ADD, NULL);
	if (!ret) {
		kv_buf_cpu(&pp->buf);
		old = be64_to_cpu(*(__be64 *)((u8 *)pp->buf.cpu + OFF_ARES));
		if (old != KV_ATOMIC_INIT)
			ret = kv_fail(r, "fetch_add returned %llu, want %llu", old,
				      KV_ATOMIC_INIT);
	}
	ss = kv_sge_mr(&pp->buf, OFF_ARES + 8, 8);
	ret = ret ?: kv_atomic(r, &pp->rc, IB_WR_ATOMIC_CMP_AND_SWP, 113, &ss,
			       rem->addr + OFF_ATOMIC, rem->rkey, KV_ATOMIC_INIT + 1,
			       KV_ATOMIC_SWAP);
	ret = ret ?: kv_expect(r, &pp->rc.scq, "cmp_swp", 113, IB_WC_SUCCESS,
			       IB_WC_COMP_SWAP, NULL);
	if (!ret) {
		kv_buf_cpu(&pp->buf);
		old = be64_to_cpu(*(__be64 *)((u8 *)pp->buf.cpu + OFF_ARES + 8));
		if (old != KV_ATOMIC_INIT + 1)
			ret = kv_fail(r, "cmp_swp returned %llu, want %llu", old,
				      KV_ATOMIC_INIT + 1);
	}
	kv_report(r, "peer-atomic", ret);

	if (pp->with_ud)
		kv_peer_ud_send(pp);

	/* after everything above: tell the peer */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 115;
	wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.ex.imm_data = cpu_to_be32(KV_DONE_IMM);
	ret = kv_post_send(r, pp->rc.qp, &wr, &bad);
	if (ret)
		kv_fail(r, "ib_post_send(done) failed: %d", ret);
	ret = ret ?: kv_expect(r, &pp->rc.scq, "done send", 115, IB_WC_SUCCESS,
			       IB_WC_SEND, NULL);
	kv_report(r, "peer-done-send", ret);
	return 0;
}

static int kv_peer_wait(struct kv_run *r, struct kv_cq *kc, const char *what,
			u64 wr_id, int opcode, struct ib_wc *wc)
{
	int ret = kv_wait_wc(r, kc, wc, 1, KV_PEER_MS);

	if (ret < 0)
		return kv_fail(r, "%s: ib_poll_cq failed: %d", what, ret);
	if (!ret)
		return kv_fail(r, "%s: nothing from the peer within %d s", what,
			       KV_PEER_MS / 1000);
	if (wc->wr_id != wr_id || wc->status != IB_WC_SUCCESS || wc->opcode != opcode)
		return kv_fail(r, "%s: wr_id %llu status %s opcode 0x%x", what,
			       wc->wr_id, kv_status(wc->status), wc->opcode);
	return 0;
}

static void kv_peer_ud_recv(struct kv_peer *pp)
{
	struct kv_run *r = &pp->r;
	struct kv_remote *rem = &pp->remote;
	struct ib_wc wc;
	int ret;

	ret = kv_peer_wait(r, &pp->ud.rcq, "UD recv", 10, IB_WC_RECV, &wc);
	if (!ret && (wc.byte_len != 512 + 40 || wc.src_qp != rem->udqpn ||
		     wc.slid != rem->lid || (wc.wc_flags & IB_WC_GRH)))
		ret = kv_fail(r, "UD recv: byte_len %u src_qp 0x%x slid %u flags 0x%x",
			      wc.byte_len, wc.src_qp, wc.slid, wc.wc_flags);
	if (!ret) {
		kv_buf_cpu(&pp->buf);
		ret = kv_check_fill(r, &pp->buf, OFF_UDRECV + 40, 512, rem->lid + 2000,
				    "UD data");
	}
	kv_report(r, "peer-ud-recv", ret);
}

/* What the peer did to us, once its "done" has arrived. */
static void kv_peer_responder(struct kv_peer *pp)
{
	struct kv_run *r = &pp->r;
	struct kv_remote *rem = &pp->remote;
	struct ib_wc wc;
	unsigned int i;
	u64 now;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(kv_peer_sizes) && !ret; i++) {
		ret = kv_peer_wait(r, &pp->rc.rcq, "RC recv", i, IB_WC_RECV, &wc);
		if (!ret && wc.byte_len != kv_peer_sizes[i])
			ret = kv_fail(r, "recv %u: byte_len %u, want %u", i, wc.byte_len,
				      kv_peer_sizes[i]);
		if (!ret) {
			kv_buf_cpu(&pp->buf);
			ret = kv_check_fill(r, &pp->buf, kv_recv_off[i], kv_peer_sizes[i],
					    rem->lid + 2000, "received data");
		}
	}
	kv_report(r, "peer-rc-recv", ret);

	if (pp->with_ud)
		kv_peer_ud_recv(pp);

	ret = kv_peer_wait(r, &pp->rc.rcq, "done recv", 3, IB_WC_RECV, &wc);
	if (!ret && (!(wc.wc_flags & IB_WC_WITH_IMM) ||
		     wc.ex.imm_data != cpu_to_be32(KV_DONE_IMM) || wc.byte_len))
		ret = kv_fail(r, "done recv: flags 0x%x imm 0x%08x byte_len %u",
			      wc.wc_flags, be32_to_cpu(wc.ex.imm_data), wc.byte_len);
	kv_report(r, "peer-done-recv", ret);
	if (ret)
		return;		/* the checks below need the peer to be done */

	kv_buf_cpu(&pp->buf);
	ret = kv_check_fill(r, &pp->buf, OFF_INBOX, 65536, rem->lid + 2000,
			    "data the peer wrote");
	kv_report(r, "peer-write-landed", ret);
	now = be64_to_cpu(*(__be64 *)((u8 *)pp->buf.cpu + OFF_ATOMIC));
	ret = now == KV_ATOMIC_SWAP ? 0 :
	      kv_fail(r, "counter is %llu after the peer's atomics, want %llu", now,
		      KV_ATOMIC_SWAP);
	kv_report(r, "peer-atomic-target", ret);
}

static void kv_peer_run(struct kv_peer *pp)
{
	struct kv_run *r = &pp->r;
	int inverb = atomic_read(&r->handler_in_verb);

	r->passed = 0;
	r->failed = 0;
	if (!pp->connected || pp->ran) {
		kv_fail(r, pp->ran ? "already ran (write reset first)" :
			"no peer line written");
		kv_report(r, "peer-setup", -EIO);
	} else {
		pp->ran = true;
		kv_peer_requester(pp);
		kv_peer_responder(pp);
		if (atomic_read(&r->handler_in_verb) != inverb) {
			kv_fail(r, "completion handler called from a verb's call chain");
			kv_report(r, "peer-handler-context", -EIO);
		}
	}
	snprintf(pp->summary, sizeof(pp->summary), "%d passed, %d failed\n",
		 r->passed, r->failed);
	pr_info(KV_NAME ": peer test done: %d passed, %d failed\n", r->passed,
		r->failed);
}

/*
 * The dead-peer test: the peer stopped answering (the script has the peer
 * destroy its QPs, whose packets its card then drops), so our SEND is never
 * acknowledged.
 * The requester resends after each local ACK timeout and gives up after
 * retry_cnt resends: the retry-exceeded completion comes after retry_cnt + 1
 * timeouts (4.096 us << timeout each), the QP is in ERR, and a WR posted
 * then is flushed.  We allow twice that time plus a second for the timers'
 * slack.  The lower bound is the time itself less 1% and 2 ms: a card
 * counting whole milliseconds (the model does, and truncates the timeout)
 * can fire up to 2 ms short of 4.096 us << timeout, ktime_ms_delta()
 * truncates too (one run: 535 ms for a 536.9 ms timeout), and the card's
 * clock is not this kernel's (QEMU's virtual clock against a TSC calibrated
 * at boot).
 */
static void kv_peer_dead(struct kv_peer *pp)
{
	struct kv_run *r = &pp->r;
	const struct ib_send_wr *bad = NULL;
	struct ib_qp_init_attr ia;
	struct ib_qp_attr qa;
	struct ib_send_wr wr;
	struct ib_sge ss;
	struct ib_wc wc;
	u64 t_ms, least, most, took;
	ktime_t t0;
	int ret;

	memset(&qa, 0, sizeof(qa));
	ret = ib_query_qp(pp->rc.qp, &qa, IB_QP_TIMEOUT | IB_QP_RETRY_CNT, &ia);
	if (ret || !qa.timeout) {
		kv_fail(r, "ib_query_qp: %d, timeout %u", ret, qa.timeout);
		kv_report(r, "peer-dead-setup", -EIO);
		return;
	}
	t_ms = div_u64(4096ULL << qa.timeout, 1000000);
	least = t_ms * (qa.retry_cnt + 1);
	most = 2 * least + 1000;
	least -= div_u64(least, 100) + 2;

	ss = kv_sge_dma(r, &pp->buf, OFF_SEND, 4096);
	t0 = ktime_get();
	ret = kv_send(r, &pp->rc, IB_WR_SEND, 120, &ss, 1, 0);
	ret = ret ?: kv_wait_wc(r, &pp->rc.scq, &wc, 1, most + 5000);
	took = ktime_ms_delta(ktime_get(), t0);
	if (ret < 0)
		ret = kv_fail(r, "ib_poll_cq failed: %d", ret);
	else if (!ret)
		ret = kv_fail(r, "no completion within %llu ms", most + 5000);
	else if (wc.wr_id != 120 || wc.status != IB_WC_RETRY_EXC_ERR)
		ret = kv_fail(r, "wr_id %llu status %s, want RETRY_EXC_ERR", wc.wr_id,
			      kv_status(wc.status));
	else
		ret = 0;
	pr_info(KV_NAME ": peer: dead peer: completion after %llu ms (timeout %u: %llu ms, retry_cnt %u: between %llu and %llu ms)\n",
		took, qa.timeout, t_ms, qa.retry_cnt, least, most);
	kv_report(r, "peer-dead-retry-exceeded", ret);
	if (ret)
		ret = kv_fail(r, "no retry-exceeded completion to time");
	else if (took < least || took > most)
		ret = kv_fail(r, "after %llu ms, not between %llu and %llu", took,
			      least, most);
	kv_report(r, "peer-dead-time", ret);

	memset(&qa, 0, sizeof(qa));
	ret = ib_query_qp(pp->rc.qp, &qa, IB_QP_STATE, &ia);
	if (ret || qa.qp_state != IB_QPS_ERR)
		ret = kv_fail(r, "ib_query_qp: %d, state %d (want ERR)", ret,
			      qa.qp_state);
	kv_report(r, "peer-dead-qp-error", ret);

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 121;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	ret = kv_post_send(r, pp->rc.qp, &wr, &bad);
	if (ret)
		kv_fail(r, "ib_post_send in ERR failed: %d", ret);
	ret = ret ?: kv_expect(r, &pp->rc.scq, "send in ERR", 121, IB_WC_WR_FLUSH_ERR,
			       -1, NULL);
	kv_report(r, "peer-dead-flush", ret);
}

/* ---------------------------------------------------------------------- */
/* debugfs */

static ssize_t kv_endpoint_read(struct file *f, char __user *ubuf, size_t n,
				loff_t *pos)
{
	struct kv_peer *pp = f->private_data;
	char line[256];
	int len, ret;

	mutex_lock(&pp->lock);
	if (!pp->ready) {
		ret = kv_peer_setup(pp);
		if (ret) {
			mutex_unlock(&pp->lock);
			return ret;
		}
	}
	len = scnprintf(line, sizeof(line),
			KV_EP_FMT "\n", pp->r.lid[pp->port], pp->port, pp->rc.qp->qp_num,
			KV_PEER_PSN, pp->ud.qp->qp_num, KV_PEER_QKEY, pp->buf.iova,
			pp->buf.mr->rkey, (u32)pp->buf.size);
	mutex_unlock(&pp->lock);
	return simple_read_from_buffer(ubuf, n, pos, line, len);
}

static ssize_t kv_peer_write(struct file *f, const char __user *ubuf, size_t n,
			     loff_t *pos)
{
	struct kv_peer *pp = f->private_data;
	struct kv_remote rem;
	char line[256];
	int ret;

	if (n >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, n))
		return -EFAULT;
	line[n] = '\0';
	memset(&rem, 0, sizeof(rem));
	if (sscanf(line, KV_EP_FMT,
		   &rem.lid, &rem.port, &rem.rcqpn, &rem.rcpsn, &rem.udqpn, &rem.qkey,
		   &rem.addr, &rem.rkey, &rem.len) != 9 || rem.len < KV_PEER_BUF) {
		pr_info(KV_NAME ": peer: cannot parse the endpoint line\n");
		return -EINVAL;
	}
	mutex_lock(&pp->lock);
	if (!pp->ready || pp->connected)
		ret = -EBUSY;	/* read endpoint first; reset before a new peer */
	else
		ret = kv_peer_connect(pp, &rem);
	mutex_unlock(&pp->lock);
	return ret ? ret : n;
}

static ssize_t kv_run_write(struct file *f, const char __user *ubuf, size_t n,
			    loff_t *pos)
{
	struct kv_peer *pp = f->private_data;

	mutex_lock(&pp->lock);
	kv_peer_run(pp);
	mutex_unlock(&pp->lock);
	return n;
}

static ssize_t kv_dead_write(struct file *f, const char __user *ubuf, size_t n,
			     loff_t *pos)
{
	struct kv_peer *pp = f->private_data;
	struct kv_run *r = &pp->r;

	mutex_lock(&pp->lock);
	r->passed = 0;
	r->failed = 0;
	if (!pp->connected || pp->ran) {
		kv_fail(r, pp->ran ? "already ran (write reset first)" :
			"no peer line written");
		kv_report(r, "peer-setup", -EIO);
	} else {
		pp->ran = true;
		kv_peer_dead(pp);
	}
	snprintf(pp->summary, sizeof(pp->summary), "%d passed, %d failed\n",
		 r->passed, r->failed);
	pr_info(KV_NAME ": dead-peer test done: %d passed, %d failed\n", r->passed,
		r->failed);
	mutex_unlock(&pp->lock);
	return n;
}

/*
 * drainfix: QPs with outstanding work on CQs of ib_alloc_cq() (once, on
 * the endpoint's PD), drained when the device goes (kverbs_drain.c);
 * -ENOLINK without an endpoint, -EIO if the setup failed (its FAIL line).
 */
static ssize_t kv_drainfix_write(struct file *f, const char __user *ubuf, size_t n,
				 loff_t *pos)
{
	struct kv_peer *pp = f->private_data;
	ssize_t ret = n;

	mutex_lock(&pp->lock);
	if (!pp->ready)
		ret = -ENOLINK;
	else if (!pp->fix)
		pp->fix = kv_drain_fix_create(pp->dev, pp->r.pd);
	if (pp->ready && !pp->fix)
		ret = -EIO;
	mutex_unlock(&pp->lock);
	return ret;
}

/*
 * verbfix: 1 sets the fixture up (once; -EBUSY after, -EIO if the setup
 * failed: its log line), 2 runs its verb in this task (-ENOENT before 1,
 * -EBUSY after the first); any other value -EINVAL.  Independent of the
 * endpoint: no PD or port of the two-node test is needed.
 */
static ssize_t kv_verbfix_write(struct file *f, const char __user *ubuf, size_t n,
				loff_t *pos)
{
	struct kv_peer *pp = f->private_data;
	unsigned int v;
	ssize_t ret;

	ret = kstrtouint_from_user(ubuf, n, 0, &v);
	if (ret)
		return ret;
	if (v != 1 && v != 2)
		return -EINVAL;
	ret = n;
	mutex_lock(&pp->lock);
	if (v == 1 && pp->vfix) {
		ret = -EBUSY;
	} else if (v == 1) {
		pp->vfix = kv_verb_fix_create(pp->dev);
		if (!pp->vfix)
			ret = -EIO;
	} else if (!pp->vfix) {
		ret = -ENOENT;
	} else if (kv_verb_fix_run(pp->vfix)) {
		ret = -EBUSY;
	}
	mutex_unlock(&pp->lock);
	return ret;
}

static ssize_t kv_verbfix_read(struct file *f, char __user *ubuf, size_t n, loff_t *pos)
{
	struct kv_peer *pp = f->private_data;
	char line[256];
	int len;

	mutex_lock(&pp->lock);
	len = kv_verb_fix_verdict(pp->vfix, line, sizeof(line));
	mutex_unlock(&pp->lock);
	return simple_read_from_buffer(ubuf, n, pos, line, len);
}

static ssize_t kv_run_read(struct file *f, char __user *ubuf, size_t n, loff_t *pos)
{
	struct kv_peer *pp = f->private_data;
	char line[64];
	int len;

	mutex_lock(&pp->lock);
	len = scnprintf(line, sizeof(line), "%s", pp->summary[0] ? pp->summary :
			"not run\n");
	mutex_unlock(&pp->lock);
	return simple_read_from_buffer(ubuf, n, pos, line, len);
}

static ssize_t kv_reset_write(struct file *f, const char __user *ubuf, size_t n,
			      loff_t *pos)
{
	struct kv_peer *pp = f->private_data;

	mutex_lock(&pp->lock);
	kv_peer_teardown(pp);
	pp->summary[0] = '\0';
	kv_verb_fix_destroy(pp->vfix);
	pp->vfix = NULL;
	mutex_unlock(&pp->lock);
	return n;
}

static ssize_t kv_port_read(struct file *f, char __user *ubuf, size_t n, loff_t *pos)
{
	struct kv_peer *pp = f->private_data;
	char line[16];
	int len;

	mutex_lock(&pp->lock);
	len = scnprintf(line, sizeof(line), "%u\n", pp->port);
	mutex_unlock(&pp->lock);
	return simple_read_from_buffer(ubuf, n, pos, line, len);
}

static ssize_t kv_port_write(struct file *f, const char __user *ubuf, size_t n,
			     loff_t *pos)
{
	struct kv_peer *pp = f->private_data;
	u32 port;
	int ret;

	ret = kstrtou32_from_user(ubuf, n, 0, &port);
	if (ret)
		return ret;
	if (!rdma_is_port_valid(pp->dev, port))
		return -EINVAL;
	mutex_lock(&pp->lock);
	if (pp->ready)
		ret = -EBUSY;
	else
		pp->port = port;
	mutex_unlock(&pp->lock);
	return ret ? ret : n;
}

static const struct file_operations kv_endpoint_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = kv_endpoint_read,
	.llseek = default_llseek,
};

static const struct file_operations kv_peer_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = kv_peer_write,
	.llseek = default_llseek,
};

static const struct file_operations kv_run_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = kv_run_read,
	.write = kv_run_write,
	.llseek = default_llseek,
};

static const struct file_operations kv_dead_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = kv_dead_write,
	.llseek = default_llseek,
};

static const struct file_operations kv_drainfix_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = kv_drainfix_write,
	.llseek = default_llseek,
};

static const struct file_operations kv_verbfix_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = kv_verbfix_read,
	.write = kv_verbfix_write,
	.llseek = default_llseek,
};

static const struct file_operations kv_reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = kv_reset_write,
	.llseek = default_llseek,
};

static const struct file_operations kv_port_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = kv_port_read,
	.write = kv_port_write,
	.llseek = default_llseek,
};

struct kv_peer *kv_peer_add(struct ib_device *dev, struct dentry *root)
{
	struct kv_peer *pp;

	if (IS_ERR_OR_NULL(root))
		return NULL;
	pp = kzalloc(sizeof(*pp), GFP_KERNEL);
	if (!pp)
		return NULL;
	pp->dev = dev;
	pp->port = 1;
	pp->rounds = 1;
	pp->with_ud = true;
	mutex_init(&pp->lock);
	atomic_set(&pp->r.handler_in_verb, 0);
	pp->dir = debugfs_create_dir(dev->name, root);
	if (IS_ERR_OR_NULL(pp->dir)) {
		kfree(pp);
		return NULL;
	}
	debugfs_create_file("port", 0600, pp->dir, pp, &kv_port_fops);
	debugfs_create_file("endpoint", 0400, pp->dir, pp, &kv_endpoint_fops);
	debugfs_create_file("peer", 0200, pp->dir, pp, &kv_peer_fops);
	debugfs_create_file("run", 0600, pp->dir, pp, &kv_run_fops);
	debugfs_create_file("reset", 0200, pp->dir, pp, &kv_reset_fops);
	debugfs_create_file("dead", 0200, pp->dir, pp, &kv_dead_fops);
	debugfs_create_file("drainfix", 0200, pp->dir, pp, &kv_drainfix_fops);
	debugfs_create_file("verbfix", 0600, pp->dir, pp, &kv_verbfix_fops);
	debugfs_create_u32("rounds", 0600, pp->dir, &pp->rounds);
	debugfs_create_bool("ud", 0600, pp->dir, &pp->with_ud);
	return pp;
}

/*
 * After a catastrophic error a ULP takes its QPs out of service before it
 * destroys them: to ERR, then to RESET.  Both must succeed (in software:
 * the card executes nothing), as upstream's do, and the QP is in RESET.
 */
static void kv_peer_catas_teardown(struct kv_peer *pp)
{
	struct ib_qp *qps[2] = { pp->rc.qp, pp->ud.qp };
	struct kv_run *r = &pp->r;
	enum ib_qp_state st;
	struct ib_qp_attr a;
	int i, err, ret = 0;

	for (i = 0; i < ARRAY_SIZE(qps) && !ret; i++) {
		if (!qps[i])
			continue;
		memset(&a, 0, sizeof(a));
		a.qp_state = IB_QPS_ERR;
		err = ib_modify_qp(qps[i], &a, IB_QP_STATE);
		if (err) {
			ret = kv_fail(r, "QP 0x%x of the dead device to ERR: %d",
				      qps[i]->qp_num, err);
			break;
		}
		a.qp_state = IB_QPS_RESET;
		err = ib_modify_qp(qps[i], &a, IB_QP_STATE);
		if (err) {
			ret = kv_fail(r, "QP 0x%x of the dead device ERR->RESET: %d",
				      qps[i]->qp_num, err);
			break;
		}
		ret = kv_qp_state(r, qps[i], &st);
		if (!ret && st != IB_QPS_RESET)
			ret = kv_fail(r, "QP 0x%x of the dead device in state %d after RESET",
				      qps[i]->qp_num, st);
	}
	kv_report(r, "catas-teardown", ret);
}

/* fatal: the device had a DEVICE_FATAL event (its QPs are torn down so first) */
void kv_peer_remove(struct kv_peer *pp, bool fatal)
{
	if (!pp)
		return;
	/* waits for file operations in progress */
	debugfs_remove_recursive(pp->dir);
	mutex_lock(&pp->lock);
	/* the catas-drain case, on the dead card */
	kv_drain_fix_destroy(pp->fix, fatal);
	pp->fix = NULL;
	/* the verbfix QP, CQ and PD, on a dead card or a working one */
	kv_verb_fix_destroy(pp->vfix);
	pp->vfix = NULL;
	if (fatal && pp->ready)
		kv_peer_catas_teardown(pp);
	kv_peer_teardown(pp);
	mutex_unlock(&pp->lock);
	mutex_destroy(&pp->lock);
	kfree(pp);
}

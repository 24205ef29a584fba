// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_ulp_sample: a small kernel ULP built against the installed
 * development tree (tests/ulp-sample/README.md).  When a device appears it
 * sends one UD message to itself on the first ACTIVE port and checks both
 * completions; the module init fails with that test's errno.
 *
 * Written against today's API where it is not yet Linux 6.1's (issue 13;
 * docs/kernel-api.md section 4): the step that changes each spot says so.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/random.h>
#include <linux/string.h>

#include <rdma/ib_verbs.h>

#define US_QKEY		0x5a1e0001
#define US_LEN		64			/* payload */
#define US_RECV_LEN	(40 + US_LEN)		/* GRH space + payload */
#define US_POLL_MS	2000

/* a work request's completion entry: done() keeps the completion */
struct us_cqe {
	struct ib_cqe		cqe;
	struct ib_wc		wc;
	bool			done;
};

struct us_dev {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_cq		*cq;		/* IB_POLL_DIRECT: polled here */
	struct ib_qp		*qp;
	u8			*buf;		/* send at 0, receive at US_LEN */
	dma_addr_t		dma;
};

static int us_result = -ENODEV;		/* of the first device added */
static struct ib_client us_client;

static void us_free(struct us_dev *d)
{
	if (d->buf) {
		dma_unmap_single(d->device->dma_device, d->dma, US_LEN + US_RECV_LEN,
				 DMA_BIDIRECTIONAL);
		kfree(d->buf);
	}
	if (d->qp)
		ib_destroy_qp(d->qp);
	if (d->cq)
		ib_free_cq(d->cq);
	if (d->pd)
		ib_dealloc_pd(d->pd);
	kfree(d);
}

static int us_to_rts(struct ib_qp *qp, u32 port)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = 0,
		.port_num = port,
		.qkey = US_QKEY,
	};
	int ret;

	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY);
	if (ret)
		return ret;
	a.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE);
	if (ret)
		return ret;
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
}

static void us_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct us_cqe *c = container_of(wc->wr_cqe, struct us_cqe, cqe);

	c->wc = *wc;
	c->done = true;
}

/* Poll until c has completed, within US_POLL_MS. */
static int us_poll(struct us_dev *d, struct us_cqe *c)
{
	int i;

	for (i = 0; i < US_POLL_MS; i++) {
		ib_process_cq_direct(d->cq, 4);
		if (c->done)
			return 0;
		usleep_range(1000, 2000);
	}
	return -ETIMEDOUT;
}

/* One SEND to the QP's own LID and QPN, as a ULP writes it on 6.1. */
static int us_send_self(struct us_dev *d, u32 port, u32 lid)
{
	struct ib_sge ss = { .addr = d->dma, .length = US_LEN,
			     .lkey = d->pd->local_dma_lkey };
	struct ib_sge rs = { .addr = d->dma + US_LEN, .length = US_RECV_LEN,
			     .lkey = d->pd->local_dma_lkey };
	struct us_cqe sc = { .cqe.done = us_done }, rc = { .cqe.done = us_done };
	struct ib_recv_wr rwr = { .wr_cqe = &rc.cqe, .sg_list = &rs, .num_sge = 1 };
	struct rdma_ah_attr aa = {};
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *sbad;
	struct ib_ud_wr swr = {};
	struct ib_wc *wc[2] = { &sc.wc, &rc.wc };
	struct ib_ah *ah;
	int ret;

	aa.type = rdma_ah_find_type(d->device, port);
	rdma_ah_set_dlid(&aa, lid);
	rdma_ah_set_port_num(&aa, port);
	ah = rdma_create_ah(d->pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	ret = ib_post_recv(d->qp, &rwr, &rbad);
	if (ret)
		goto out;
	swr.wr.wr_cqe = &sc.cqe;
	swr.wr.sg_list = &ss;
	swr.wr.num_sge = 1;
	swr.wr.opcode = IB_WR_SEND;
	swr.wr.send_flags = IB_SEND_SIGNALED;
	swr.ah = ah;
	swr.remote_qpn = d->qp->qp_num;
	swr.remote_qkey = US_QKEY;
	ret = ib_post_send(d->qp, &swr.wr, &sbad);
	ret = ret ?: us_poll(d, &sc);
	ret = ret ?: us_poll(d, &rc);
	if (ret)
		goto out;
	if (wc[0]->status != IB_WC_SUCCESS || wc[0]->opcode != IB_WC_SEND ||
	    wc[1]->status != IB_WC_SUCCESS || wc[1]->opcode != IB_WC_RECV ||
	    wc[1]->byte_len != US_RECV_LEN || wc[1]->src_qp != d->qp->qp_num) {
		pr_err("ibstack_ulp_sample: completions: send status %d opcode %d, recv status %d opcode %d len %u src_qp 0x%x\n",
		       wc[0]->status, wc[0]->opcode, wc[1]->status, wc[1]->opcode,
		       wc[1]->byte_len, wc[1]->src_qp);
		ret = -EIO;
		goto out;
	}
	dma_sync_single_for_cpu(d->device->dma_device, d->dma, US_LEN + US_RECV_LEN,
				DMA_BIDIRECTIONAL);
	if (memcmp(d->buf, d->buf + US_LEN + 40, US_LEN)) {
		pr_err("ibstack_ulp_sample: the received payload differs from the sent one\n");
		ret = -EIO;
	}
out:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	return ret;
}

static int us_test(struct us_dev *d)
{
	struct ib_qp_init_attr qa = {};
	struct ib_port_attr pa;
	u32 port;
	int ret;

	for (port = rdma_start_port(d->device); port <= rdma_end_port(d->device); port++)
		if (!ib_query_port(d->device, port, &pa) && pa.state == IB_PORT_ACTIVE)
			break;
	if (port > rdma_end_port(d->device)) {
		pr_err("ibstack_ulp_sample: %s: no ACTIVE port\n", dev_name(&d->device->dev));
		return -ENETDOWN;
	}
	d->pd = ib_alloc_pd(d->device, 0);
	if (IS_ERR(d->pd))
		return PTR_ERR(xchg(&d->pd, NULL));
	d->cq = ib_alloc_cq(d->device, d, 4, 0, IB_POLL_DIRECT);
	if (IS_ERR(d->cq))
		return PTR_ERR(xchg(&d->cq, NULL));
	qa.send_cq = d->cq;
	qa.recv_cq = d->cq;
	qa.cap.max_send_wr = 1;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qa.qp_type = IB_QPT_UD;
	d->qp = ib_create_qp(d->pd, &qa);
	if (IS_ERR(d->qp))
		return PTR_ERR(xchg(&d->qp, NULL));
	ret = us_to_rts(d->qp, port);
	if (ret)
		return ret;
	d->buf = kzalloc(US_LEN + US_RECV_LEN, GFP_KERNEL);
	if (!d->buf)
		return -ENOMEM;
	get_random_bytes(d->buf, US_LEN);
	/* S2D: ib_dma_map_single() */
	d->dma = dma_map_single(d->device->dma_device, d->buf, US_LEN + US_RECV_LEN,
				DMA_BIDIRECTIONAL);
	if (dma_mapping_error(d->device->dma_device, d->dma)) {
		kfree(xchg(&d->buf, NULL));
		return -ENOMEM;
	}
	ret = us_send_self(d, port, pa.lid);
	if (!ret)
		pr_info("ibstack_ulp_sample: %s port %u: UD send to itself (LID %u QPN 0x%x) completed and arrived\n",
			dev_name(&d->device->dev), port, pa.lid, d->qp->qp_num);
	return ret;
}

static int us_add(struct ib_device *device)
{
	struct us_dev *d;
	int ret;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->device = device;
	ret = us_test(d);
	if (us_result == -ENODEV)
		us_result = ret;
	if (ret) {
		pr_err("ibstack_ulp_sample: %s: the test failed: %d\n",
		       dev_name(&device->dev), ret);
		us_free(d);
		return ret;
	}
	ib_set_client_data(device, &us_client, d);
	return 0;
}

static void us_remove(struct ib_device *device, void *client_data)
{
	us_free(client_data);
}

static struct ib_client us_client = {
	.name = "ibstack_ulp_sample",
	.add = us_add,
	.remove = us_remove,
};

static int __init us_init(void)
{
	int ret;

	ret = ib_register_client(&us_client);
	if (ret)
		return ret;
	if (us_result) {
		ib_unregister_client(&us_client);
		return us_result;
	}
	return 0;
}

static void __exit us_exit(void)
{
	ib_unregister_client(&us_client);
}

module_init(us_init);
module_exit(us_exit);
MODULE_DESCRIPTION("A ULP built against the ibstack-cx3 development tree (test)");
MODULE_LICENSE("GPL");

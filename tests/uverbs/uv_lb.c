// SPDX-License-Identifier: GPL-2.0
/*
 * A loop-back RC QP on port 1, connected to itself through the port's own
 * LID, for the cases that need a completion or a look at an MR through
 * the card (fork, completion channel).
 */
#include <poll.h>
#include <string.h>
#include <time.h>

#include "uvtool.h"

static int lb_connect(struct uv_lb *lb)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_LOCAL_WRITE;
	if (ibv_modify_qp(lb->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = lb->qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = lb->lid;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(lb->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(lb->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) ? -1 : 0;
}

int uv_lb_open(struct ibv_context *ctx, struct ibv_comp_channel *ch,
	       struct uv_lb *lb, const char **why)
{
	struct ibv_qp_init_attr qa;
	struct ibv_port_attr pa;

	memset(lb, 0, sizeof(*lb));
	if (ibv_query_port(ctx, 1, &pa)) {
		*why = "port 1 cannot be queried";
		return -1;
	}
	if (pa.state != IBV_PORT_ACTIVE || !pa.lid) {
		*why = "port 1 is not ACTIVE with a LID (no SM, no auto-lid)";
		return -1;
	}
	lb->lid = pa.lid;
	*why = "the loop-back QP could not be set up";
	lb->pd = ibv_alloc_pd(ctx);
	if (!lb->pd)
		goto fail;
	lb->cq = ibv_create_cq(ctx, 16, NULL, ch, 0);
	if (!lb->cq)
		goto fail;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = lb->cq;
	qa.recv_cq = lb->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 8;
	qa.cap.max_recv_wr = 8;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	lb->qp = ibv_create_qp(lb->pd, &qa);
	if (!lb->qp || lb_connect(lb))
		goto fail;
	return 0;
fail:
	uv_lb_close(lb);
	return -1;
}

void uv_lb_close(struct uv_lb *lb)
{
	if (lb->qp)
		ibv_destroy_qp(lb->qp);
	if (lb->cq)
		ibv_destroy_cq(lb->cq);
	if (lb->pd)
		ibv_dealloc_pd(lb->pd);
	memset(lb, 0, sizeof(*lb));
}

int uv_lb_post(struct uv_lb *lb, enum ibv_wr_opcode op, struct ibv_mr *lmr,
	       void *laddr, uint64_t raddr, uint32_t rkey, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)laddr,
		.length = len,
		.lkey = lmr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(lb->qp, &wr, &bad);
}

int uv_lb_wait(struct uv_lb *lb)
{
	struct timespec t0, t;
	struct ibv_wc wc;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = ibv_poll_cq(lb->cq, 1, &wc);
		if (n < 0)
			return -1;
		if (n)
			return wc.status;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			return -1;
		poll(NULL, 0, 1);
	}
}

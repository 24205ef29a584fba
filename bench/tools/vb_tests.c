// SPDX-License-Identifier: GPL-2.0
/*
 * verbsbench's tests: for each, what a thread prepares before the barrier,
 * the operation its timed loop repeats, and what it releases afterwards.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "vb.h"

void vb_verb_error(const char *test, const char *verb, int err)
{
	if (err > 0)
		fprintf(stderr, "verbsbench: %s: %s failed: errno %d (%s)\n",
			test, verb, err, strerror(err));
	else
		fprintf(stderr, "verbsbench: %s: %s failed (returned %d, errno not set)\n",
			test, verb, err);
}

/* The error of a verb that returns an int: the errno value, or -1 and errno */
int vb_verb_ret(int ret)
{
	return ret > 0 ? ret : (errno ? errno : ret);
}

/* --- pd, cq ------------------------------------------------------------- */

static int pd_op(struct vb_thread *t)
{
	struct ibv_pd *pd = ibv_alloc_pd(t->cfg->ctx);
	int ret;

	if (!pd) {
		vb_verb_error(t->test->name, "ibv_alloc_pd", errno);
		return -1;
	}
	ret = ibv_dealloc_pd(pd);
	if (ret) {
		vb_verb_error(t->test->name, "ibv_dealloc_pd",
			      vb_verb_ret(ret));
		return -1;
	}
	return 0;
}

static int cq_op(struct vb_thread *t)
{
	struct ibv_cq *cq = ibv_create_cq(t->cfg->ctx, VB_CQE, NULL, NULL, 0);
	int ret;

	if (!cq) {
		vb_verb_error(t->test->name, "ibv_create_cq", errno);
		return -1;
	}
	ret = ibv_destroy_cq(cq);
	if (ret) {
		vb_verb_error(t->test->name, "ibv_destroy_cq",
			      vb_verb_ret(ret));
		return -1;
	}
	return 0;
}

/* --- what several tests use --------------------------------------------- */

int vb_alloc_pd(struct vb_thread *t)
{
	t->pd = ibv_alloc_pd(t->cfg->ctx);
	if (!t->pd) {
		vb_verb_error(t->test->name, "ibv_alloc_pd", errno);
		return -1;
	}
	return 0;
}

int vb_release(struct vb_thread *t)
{
	int ret, status = 0;

	if (t->cq) {
		ret = ibv_destroy_cq(t->cq);
		if (ret) {
			vb_verb_error(t->test->name, "ibv_destroy_cq",
				      vb_verb_ret(ret));
			status = -1;
		}
		t->cq = NULL;
	}
	if (t->pd) {
		ret = ibv_dealloc_pd(t->pd);
		if (ret) {
			vb_verb_error(t->test->name, "ibv_dealloc_pd",
				      vb_verb_ret(ret));
			status = -1;
		}
		t->pd = NULL;
	}
	return status;
}

/* --- qp ----------------------------------------------------------------- */

static int qp_setup(struct vb_thread *t)
{
	if (!t->cfg->lid) {
		if (!t->index)
			fprintf(stderr, "verbsbench: qp: port %u of %s has LID 0 (no subnet manager?); the qp test moves each QP to RTR towards the port's own LID: start an SM and wait for the port to be ACTIVE\n",
				t->cfg->port, t->cfg->dev_name);
		return -1;
	}
	if (vb_alloc_pd(t))
		return -1;
	t->cq = ibv_create_cq(t->cfg->ctx, VB_CQE, NULL, NULL, 0);
	if (!t->cq) {
		vb_verb_error(t->test->name, "ibv_create_cq", errno);
		return -1;
	}
	return 0;
}

struct ibv_qp *vb_create_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = VB_QP_WR,
			.max_recv_wr = VB_QP_WR,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &init);
}

int vb_qp_to_init(struct ibv_qp *qp, uint8_t port)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = port,
		.qp_access_flags = IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_WRITE,
	};

	return ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* INIT, RTR (towards itself through the port's own LID), RTS */
static int qp_connect(struct vb_thread *t, struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;
	int ret;

	ret = vb_qp_to_init(qp, t->cfg->port);
	if (ret) {
		vb_verb_error(t->test->name, "ibv_modify_qp(INIT)",
			      vb_verb_ret(ret));
		return -1;
	}

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = IBV_MTU_1024;
	attr.dest_qp_num = qp->qp_num;
	attr.rq_psn = 0;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.dlid = t->cfg->lid;
	attr.ah_attr.sl = 0;
	attr.ah_attr.port_num = t->cfg->port;
	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret) {
		vb_verb_error(t->test->name, "ibv_modify_qp(RTR)",
			      vb_verb_ret(ret));
		return -1;
	}

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = 0;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN |
			    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret) {
		vb_verb_error(t->test->name, "ibv_modify_qp(RTS)",
			      vb_verb_ret(ret));
		return -1;
	}
	return 0;
}

static int qp_op(struct vb_thread *t)
{
	struct ibv_qp *qp = vb_create_rc_qp(t->pd, t->cq);
	int ret, failed;

	if (!qp) {
		vb_verb_error(t->test->name, "ibv_create_qp", errno);
		return -1;
	}
	failed = qp_connect(t, qp);
	ret = ibv_destroy_qp(qp);
	if (ret) {
		vb_verb_error(t->test->name, "ibv_destroy_qp",
			      vb_verb_ret(ret));
		return -1;
	}
	return failed;
}

/* --- mr-* --------------------------------------------------------------- */

static int mr_setup(struct vb_thread *t)
{
	if (!t->buf) {
		t->buf = vb_map_buffer(t->test);
		if (!t->buf)
			return -1;
		t->buf_len = t->test->mr_size;
		t->own_buf = true;
	}
	return vb_alloc_pd(t);
}

static int mr_op(struct vb_thread *t)
{
	struct ibv_mr *mr;
	int ret;

	mr = ibv_reg_mr(t->pd, t->buf, t->test->mr_size,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_WRITE);
	if (!mr) {
		vb_verb_error(t->test->name, "ibv_reg_mr", errno);
		return -1;
	}
	ret = ibv_dereg_mr(mr);
	if (ret) {
		vb_verb_error(t->test->name, "ibv_dereg_mr",
			      vb_verb_ret(ret));
		return -1;
	}
	return 0;
}

static int mr_teardown(struct vb_thread *t)
{
	int status = vb_release(t);

	if (t->own_buf)
		vb_unmap_buffer(t->buf, t->buf_len);
	t->buf = NULL;
	t->own_buf = false;
	return status;
}

static int no_setup(struct vb_thread *t)
{
	(void)t;
	return 0;
}

const struct vb_test vb_tests[] = {
	{ "pd", 0, false, no_setup, pd_op, vb_release },
	{ "cq", 0, false, no_setup, cq_op, vb_release },
	{ "qp", 0, false, qp_setup, qp_op, vb_release },
	{ "mr-4k", 4096, false, mr_setup, mr_op, mr_teardown },
	{ "mr-64m", 64 * MIB, false, mr_setup, mr_op, mr_teardown },
	{ "mr-1g", GIB, false, mr_setup, mr_op, mr_teardown },
	{ "mr-64m-huge", 64 * MIB, true, mr_setup, mr_op, mr_teardown },
	{ "mr-1g-huge", GIB, true, mr_setup, mr_op, mr_teardown },
};

const size_t vb_ntests = sizeof(vb_tests) / sizeof(vb_tests[0]);

const struct vb_test *vb_find_test(const char *name)
{
	size_t i;

	for (i = 0; i < vb_ntests; i++)
		if (!strcmp(vb_tests[i].name, name))
			return &vb_tests[i];
	return NULL;
}

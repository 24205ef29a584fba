// SPDX-License-Identifier: GPL-2.0
/*
 * Handles: unknown, of another type, of another file, destroyed twice,
 * in use; and out-of-range attributes.
 * Sources: drivers/infiniband/core/rdma_core.c (lookup_get_idr_uobject:
 * ENOENT for an id the file does not hold, so a handle of another file
 * too; rdma_lookup_get_uobject: EINVAL for a handle of another type;
 * lookup_get_fd_uobject: EBADF for an fd that is not this file's channel;
 * ib_destroy_usecnt: EBUSY), uverbs_std_types_cq.c/ib_destroy_cq_user
 * (EBUSY), uverbs_cmd.c (create_cq, ib_uverbs_reg_mr, modify_qp,
 * ib_uverbs_modify_qp), device.c (ib_query_port), ib_verbs.h
 * (ib_check_mr_access).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "uvtool.h"

static char page[4096] __attribute__((aligned(4096)));

static int destroy_cq(int fd, uint32_t h)
{
	struct ib_uverbs_destroy_cq_resp resp;
	struct ib_uverbs_destroy_cq req = {
		.response = (uintptr_t)&resp,
		.cq_handle = h,
	};

	return uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_CQ, &req, sizeof(req),
		      sizeof(resp));
}

static int destroy_qp(int fd, uint32_t h)
{
	struct ib_uverbs_destroy_qp_resp resp;
	struct ib_uverbs_destroy_qp req = {
		.response = (uintptr_t)&resp,
		.qp_handle = h,
	};

	return uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_QP, &req, sizeof(req),
		      sizeof(resp));
}

static int modify_qp(int fd, uint32_t h, uint32_t mask, uint8_t port)
{
	struct ib_uverbs_modify_qp req;

	memset(&req, 0, sizeof(req));
	req.qp_handle = h;
	req.attr_mask = mask;
	req.qp_state = IBV_QPS_INIT;
	req.port_num = port;
	return uv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_QP, &req, sizeof(req), 0);
}

void uv_handles(void)
{
	struct ibv_context *a = uv_open(), *b = uv_open();
	struct ibv_qp_init_attr qa;
	struct ibv_comp_channel *ch = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_qp *qp = NULL;
	uint32_t h;
	int fa, fb, e, p[2] = { -1, -1 };

	if (!a || !b) {
		uv_check("handles-open", false, "open the device twice", "%s",
			 strerror(errno));
		goto out;
	}
	fa = a->cmd_fd;
	fb = b->cmd_fd;
	pd = ibv_alloc_pd(a);
	ch = ibv_create_comp_channel(a);
	cq = pd && ch ? ibv_create_cq(a, 16, NULL, ch, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, page, sizeof(page), IBV_ACCESS_LOCAL_WRITE) :
		  NULL;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 1;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qp = mr ? ibv_create_qp(pd, &qa) : NULL;
	if (!qp) {
		uv_check("handles-setup", false, "PD, channel, CQ, MR, QP",
			 "%s", strerror(errno));
		goto out;
	}

	e = uv_dealloc_pd(fa, 0x7ffffff);
	uv_expect("handle-unknown", "DEALLOC_PD of a handle never given", e,
		  ENOENT, fa);
	e = uv_dealloc_pd(fa, 0xffffffff);
	uv_expect("handle-max", "DEALLOC_PD of handle 0xffffffff", e, ENOENT,
		  fa);
	e = uv_reg_mr(fa, 0x7ffffff, (uintptr_t)page, sizeof(page),
		      (uintptr_t)page, 0, NULL);
	uv_expect("handle-unknown-use", "REG_MR on a PD handle never given", e,
		  ENOENT, fa);

	e = uv_dealloc_pd(fa, cq->handle);
	uv_expect("handle-type-pd", "DEALLOC_PD of a CQ's handle", e, EINVAL,
		  fa);
	e = destroy_cq(fa, pd->handle);
	uv_expect("handle-type-cq", "DESTROY_CQ of a PD's handle", e, EINVAL,
		  fa);
	e = destroy_qp(fa, cq->handle);
	uv_expect("handle-type-qp", "DESTROY_QP of a CQ's handle", e, EINVAL,
		  fa);
	e = uv_dereg_mr(fa, qp->handle);
	uv_expect("handle-type-mr", "DEREG_MR of a QP's handle", e, EINVAL, fa);
	e = uv_reg_mr(fa, mr->handle, (uintptr_t)page, sizeof(page),
		      (uintptr_t)page, 0, NULL);
	uv_expect("handle-type-use", "REG_MR with an MR's handle as the PD", e,
		  EINVAL, fa);

	/* file b holds no object: a's handles are unknown there */
	e = uv_dealloc_pd(fb, pd->handle);
	uv_expect("handle-foreign", "DEALLOC_PD of another file's PD", e, ENOENT,
		  fb);
	e = destroy_cq(fb, cq->handle);
	uv_expect("handle-foreign-cq", "DESTROY_CQ of another file's CQ", e,
		  ENOENT, fb);
	e = uv_reg_mr(fb, pd->handle, (uintptr_t)page, sizeof(page),
		      (uintptr_t)page, 0, NULL);
	uv_expect("handle-foreign-use", "REG_MR on another file's PD", e,
		  ENOENT, fb);
	e = uv_create_cq(fb, ch->fd, 0, NULL);
	uv_expect("handle-foreign-channel",
		  "CREATE_CQ with another file's completion channel", e, EBADF,
		  fb);
	e = pipe(p) ? errno : uv_create_cq(fa, p[0], 0, NULL);
	uv_expect("handle-channel-type", "CREATE_CQ with a pipe as the channel",
		  e, EBADF, fa);
	e = uv_create_cq(fa, 1000000, 0, NULL);
	uv_expect("handle-channel-closed", "CREATE_CQ with fd 1000000 as the channel",
		  e, EBADF, fa);

	e = uv_dealloc_pd(fa, pd->handle);
	uv_expect("handle-busy-pd", "DEALLOC_PD of a PD with an MR and a QP", e,
		  EBUSY, fa);
	e = destroy_cq(fa, cq->handle);
	uv_expect("handle-busy-cq", "DESTROY_CQ of a CQ a QP uses", e, EBUSY,
		  fa);

	/* modify_qp and ib_uverbs_modify_qp */
	e = modify_qp(fa, qp->handle, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
		      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 3);
	uv_expect("attr-qp-port", "MODIFY_QP to INIT on port 3", e, EINVAL, fa);
	e = modify_qp(fa, qp->handle, IBV_QP_STATE | (1u << 30), 1);
	uv_expect("attr-qp-mask", "MODIFY_QP with attr_mask bit 30", e,
		  EOPNOTSUPP, fa);
	e = modify_qp(fa, 0x7ffffff, IBV_QP_STATE, 1);
	uv_expect("handle-unknown-qp", "MODIFY_QP of a handle never given", e,
		  ENOENT, fa);

	/* everything still there and destroyable, in order */
	e = ibv_destroy_qp(qp);
	qp = NULL;
	if (!e)
		e = ibv_dereg_mr(mr);
	mr = NULL;
	if (!e)
		e = ibv_destroy_cq(cq);
	cq = NULL;
	h = pd->handle;
	if (!e)
		e = ibv_dealloc_pd(pd);
	pd = NULL;
	uv_check("handle-intact", !e,
		 "after all that, QP, MR, CQ and PD destroyed in order",
		 "errno %d", e);
	e = uv_dealloc_pd(fa, h);
	uv_expect("handle-twice", "DEALLOC_PD of a PD already freed", e,
		  ENOENT, fa);
out:
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
	if (qp)
		ibv_destroy_qp(qp);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	if (ch)
		ibv_destroy_comp_channel(ch);
	if (pd)
		ibv_dealloc_pd(pd);
	if (b)
		ibv_close_device(b);
	if (a)
		ibv_close_device(a);
}

void uv_attrs(void)
{
	struct ibv_context *ctx = uv_open();
	struct ib_uverbs_query_port_resp pr;
	struct ib_uverbs_query_port qp = { .response = (uintptr_t)&pr };
	static const uint8_t ports[] = { 0, 3, 255 };
	char what[64];
	uint32_t pd, mr;
	unsigned int i;
	int fd, e;

	if (!ctx || uv_alloc_pd(ctx->cmd_fd, &pd)) {
		uv_check("attrs-open", false, "open the device, a PD", "%s",
			 strerror(errno));
		if (ctx)
			ibv_close_device(ctx);
		return;
	}
	fd = ctx->cmd_fd;
	/* ib_query_port: !rdma_is_port_valid */
	for (i = 0; i < sizeof(ports); i++) {
		qp.port_num = ports[i];
		e = uv_cmd(fd, IB_USER_VERBS_CMD_QUERY_PORT, &qp, sizeof(qp),
			   sizeof(pr));
		snprintf(what, sizeof(what), "QUERY_PORT of port %u", ports[i]);
		uv_expect("attr-port", what, e, EINVAL, fd);
	}
	/* create_cq: comp_vector >= num_comp_vectors */
	e = uv_create_cq(fd, -1, ctx->num_comp_vectors, NULL);
	uv_expect("attr-cq-vector", "CREATE_CQ on vector num_comp_vectors", e,
		  EINVAL, fd);
	/* ib_check_mr_access */
	e = uv_reg_mr(fd, pd, (uintptr_t)page, sizeof(page), (uintptr_t)page,
		      1u << 30, &mr);
	uv_expect("attr-mr-access", "REG_MR with access bit 30", e, EINVAL, fd);
	e = uv_reg_mr(fd, pd, (uintptr_t)page, sizeof(page), (uintptr_t)page,
		      IBV_ACCESS_REMOTE_WRITE, &mr);
	uv_expect("attr-mr-rw", "REG_MR remote write without local write", e,
		  EINVAL, fd);
	e = uv_reg_mr(fd, pd, (uintptr_t)page, sizeof(page), (uintptr_t)page,
		      IBV_ACCESS_ON_DEMAND, &mr);
	uv_expect("attr-mr-odp", "REG_MR on demand (no ODP)", e, EINVAL, fd);
	/* ib_uverbs_reg_mr: start and hca_va in different page offsets */
	e = uv_reg_mr(fd, pd, (uintptr_t)page, sizeof(page),
		      (uintptr_t)page + 8, 0, &mr);
	uv_expect("attr-mr-va", "REG_MR with hca_va 8 bytes off start", e,
		  EINVAL, fd);
	uv_check("attrs-pd", uv_dealloc_pd(fd, pd) == 0,
		 "the PD of those checks freed", "%s", strerror(errno));
	ibv_close_device(ctx);
}

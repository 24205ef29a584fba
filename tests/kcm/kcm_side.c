// SPDX-License-Identifier: GPL-2.0
/*
 * One end of a test connection: its QP, CQ and buffer, its handler (which
 * logs every event and answers a REQ as the side's mode says), and the
 * steps the tests take: a path between the card's two ports, REQ, QP to
 * RTR and RTS from ib_cm_init_qp_attr(), and a message each way.
 */
#include <linux/delay.h>
#include <linux/slab.h>
#include "kcm.h"

int kcm_side_init(struct kcm_side *s, const char *name, u32 port_num)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 16 };
	struct ib_qp_init_attr qp_attr = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	int ret;

	memset(s, 0, sizeof(*s));
	s->name = name;
	s->port_num = port_num;
	spin_lock_init(&s->lock);
	init_waitqueue_head(&s->wait);
	s->cq = ib_create_cq(kcm.device, NULL, NULL, s, &cq_attr);
	if (IS_ERR(s->cq)) {
		ret = PTR_ERR(s->cq);
		s->cq = NULL;
		return ret;
	}
	qp_attr.send_cq = s->cq;
	qp_attr.recv_cq = s->cq;
	s->qp = ib_create_qp(kcm.pd, &qp_attr);
	if (IS_ERR(s->qp)) {
		ret = PTR_ERR(s->qp);
		s->qp = NULL;
		goto err_cq;
	}
	s->buf = kzalloc(KCM_BUF_SIZE, GFP_KERNEL);
	if (!s->buf) {
		ret = -ENOMEM;
		goto err_qp;
	}
	s->dma = ib_dma_map_single(kcm.device, s->buf, KCM_BUF_SIZE, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(kcm.device, s->dma)) {
		ret = -ENOMEM;
		goto err_buf;
	}
	return 0;

err_buf:
	kfree(s->buf);
err_qp:
	ib_destroy_qp(s->qp);
err_cq:
	ib_destroy_cq(s->cq);
	return ret;
}

void kcm_side_fini(struct kcm_side *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(s->old_ids); i++)
		if (s->old_ids[i])
			ib_destroy_cm_id(s->old_ids[i]);
	if (s->cm_id)
		ib_destroy_cm_id(s->cm_id);
	if (s->listen_id)
		ib_destroy_cm_id(s->listen_id);
	s->cm_id = NULL;
	s->listen_id = NULL;
	if (s->buf) {
		ib_dma_unmap_single(kcm.device, s->dma, KCM_BUF_SIZE, DMA_BIDIRECTIONAL);
		kfree(s->buf);
	}
	if (s->qp)
		ib_destroy_qp(s->qp);
	if (s->cq)
		ib_destroy_cq(s->cq);
	memset(s, 0, sizeof(*s));
}

static void kcm_log(struct kcm_side *s, const struct ib_cm_event *event)
{
	struct kcm_event e = { .type = event->event };
	unsigned long flags;

	switch (event->event) {
	case IB_CM_REJ_RECEIVED:
		e.reason = event->param.rej_rcvd.reason;
		break;
	case IB_CM_MRA_RECEIVED:
		e.value = event->param.mra_rcvd.service_timeout;
		break;
	case IB_CM_SIDR_REP_RECEIVED:
		e.reason = event->param.sidr_rep_rcvd.status;
		e.value = event->param.sidr_rep_rcvd.qpn;
		break;
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
	case IB_CM_DREQ_ERROR:
	case IB_CM_SIDR_REQ_ERROR:
		e.reason = event->param.send_status;
		break;
	case IB_CM_LAP_RECEIVED:
		/* the alternate path as the receiver sees it: DLID, SLID, rate */
		e.value = be32_to_cpu(sa_path_get_dlid(event->param.lap_rcvd.alternate_path)) |
			  be32_to_cpu(sa_path_get_slid(event->param.lap_rcvd.alternate_path)) << 16;
		e.reason = event->param.lap_rcvd.alternate_path->rate;
		break;
	default:
		break;
	}
	if (event->private_data)
		memcpy(e.private_data, event->private_data, sizeof(e.private_data));
	spin_lock_irqsave(&s->lock, flags);
	if (s->nlog < KCM_EVENTS)
		s->log[s->nlog++] = e;
	spin_unlock_irqrestore(&s->lock, flags);
	wake_up(&s->wait);
}

/* a listener's new cm_id becomes the side's; the one before is kept for fini */
static void kcm_take_id(struct kcm_side *s, struct ib_cm_id *cm_id)
{
	unsigned int i;

	if (s->cm_id && s->cm_id != cm_id) {
		for (i = 0; i < ARRAY_SIZE(s->old_ids); i++)
			if (!s->old_ids[i]) {
				s->old_ids[i] = s->cm_id;
				break;
			}
	}
	s->cm_id = cm_id;
}

/* [cm.wq] every side's handler; a REQ's new cm_id gets the listener's side */
int kcm_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *event)
{
	struct kcm_side *s = cm_id->context;
	static const u8 rej_data[8] = "kcm-rej";
	struct ib_cm_sidr_rep_param sidr = {};

	switch (event->event) {
	case IB_CM_REQ_RECEIVED:
		kcm_take_id(s, cm_id);
		switch (s->mode) {
		case KCM_ACCEPT:
			kcm_accept(s);
			break;
		case KCM_REJECT:
			ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				       rej_data, sizeof(rej_data));
			break;
		case KCM_MRA:
			ib_send_cm_mra(cm_id, 20, NULL, 0);	/* about 4 s */
			break;
		case KCM_IGNORE:
			break;
		}
		break;
	case IB_CM_SIDR_REQ_RECEIVED:
		kcm_take_id(s, cm_id);
		sidr.qp_num = s->qp->qp_num;
		sidr.qkey = 0x11111111;
		ib_send_cm_sidr_rep(cm_id, &sidr);
		break;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(cm_id, NULL, 0);
		break;
	default:
		break;
	}
	kcm_log(s, event);
	if (s->destroy_on_event) {
		s->destroy_on_event = false;
		if (s->cm_id == cm_id)
			s->cm_id = NULL;
		return 1;
	}
	return 0;
}

struct kcm_event *kcm_wait(struct kcm_side *s, enum ib_cm_event_type type,
			   unsigned int *from, unsigned int timeout_ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);
	struct kcm_event *found = NULL;

	do {
		unsigned int i;

		spin_lock_irq(&s->lock);
		for (i = *from; i < s->nlog; i++)
			if (s->log[i].type == type) {
				found = &s->log[i];
				*from = i + 1;
				break;
			}
		spin_unlock_irq(&s->lock);
		if (found)
			return found;
		wait_event_timeout(s->wait, READ_ONCE(s->nlog) > *from ||
				   time_after(jiffies, deadline), HZ / 10);
	} while (time_before(jiffies, deadline));
	return NULL;
}

/* A path from port from to port to of the card (one subnet, no SA needed). */
void kcm_path(struct sa_path_rec *path, u32 from, u32 to)
{
	const struct ib_port_attr *a = &kcm.attr[from - 1];

	memset(path, 0, sizeof(*path));
	path->rec_type = SA_PATH_REC_TYPE_IB;
	path->sgid = kcm.gid[from - 1];
	path->dgid = kcm.gid[to - 1];
	sa_path_set_slid(path, a->lid);
	sa_path_set_dlid(path, kcm.attr[to - 1].lid);
	path->pkey = cpu_to_be16(0xffff);
	path->mtu = min(a->active_mtu, kcm.attr[to - 1].active_mtu);
	path->rate = IB_RATE_10_GBPS;
	path->packet_life_time = 14;
	path->reversible = 1;
	path->numb_path = 1;
	path->hop_limit = 0;
}

int kcm_connect(struct kcm_side *s, u32 to_port, __be64 service_id, u8 retries)
{
	struct sa_path_rec path;
	struct ib_cm_req_param req = {
		.primary_path = &path,
		.service_id = service_id,
		.qp_num = s->qp->qp_num,
		.qp_type = IB_QPT_RC,
		.starting_psn = KCM_ACT_PSN,
		.private_data = "kcm-req",
		.private_data_len = 8,
		.responder_resources = 1,
		.initiator_depth = 1,
		.remote_cm_response_timeout = 16,	/* 256 ms */
		.local_cm_response_timeout = 16,
		.retry_count = 3,
		.rnr_retry_count = 3,
		.max_cm_retries = retries,
	};

	kcm_path(&path, s->port_num, to_port);
	if (!s->cm_id) {
		s->cm_id = ib_create_cm_id(kcm.device, kcm_handler, s);
		if (IS_ERR(s->cm_id)) {
			int ret = PTR_ERR(s->cm_id);

			s->cm_id = NULL;
			return ret;
		}
	}
	return ib_send_cm_req(s->cm_id, &req);
}

/*
 * The passive side moves its QP to RTR before its REP carries its receive
 * PSN, so it sets that PSN itself (as IPoIB does): rq_psn, if not 0.
 */
static int kcm_modify(struct kcm_side *s, enum ib_qp_state state, u32 rq_psn)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(s->cm_id, &attr, &mask);
	if (!ret && rq_psn && state == IB_QPS_RTR)
		attr.rq_psn = rq_psn;
	if (!ret)
		ret = ib_modify_qp(s->qp, &attr, mask);
	return ret;
}

/* INIT, a receive posted, RTR, RTS */
int kcm_qp_to_rts(struct kcm_side *s, u32 rq_psn)
{
	struct ib_sge sge = { .addr = s->dma, .length = KCM_BUF_SIZE,
			      .lkey = kcm.pd->local_dma_lkey };
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1, .wr_id = 1 };
	int ret;

	ret = kcm_modify(s, IB_QPS_INIT, 0);
	if (!ret)
		ret = ib_post_recv(s->qp, &wr, NULL);
	if (!ret)
		ret = kcm_modify(s, IB_QPS_RTR, rq_psn);
	if (!ret)
		ret = kcm_modify(s, IB_QPS_RTS, 0);
	if (ret)
		pr_info(KCM_PFX "%s: QP to RTS: %d\n", s->name, ret);
	return ret;
}

/* [cm.wq] the passive side's answer to a REQ */
int kcm_accept(struct kcm_side *s)
{
	struct ib_cm_rep_param rep = {
		.qp_num = s->qp->qp_num,
		.starting_psn = KCM_PAS_PSN,
		.private_data = "kcm-rep",
		.private_data_len = 8,
		.responder_resources = 1,
		.initiator_depth = 1,
		.rnr_retry_count = 3,
	};
	int ret = kcm_qp_to_rts(s, KCM_PAS_PSN);

	if (!ret)
		ret = ib_send_cm_rep(s->cm_id, &rep);
	if (ret)
		pr_info(KCM_PFX "%s: accept: %d\n", s->name, ret);
	return ret;
}

/* one poll of s's CQ for up to a second: the completion's status, or -ETIMEDOUT */
static int kcm_poll(struct kcm_side *s, enum ib_wc_opcode opcode)
{
	unsigned long deadline = jiffies + HZ;
	struct ib_wc wc;

	while (time_before(jiffies, deadline)) {
		if (ib_poll_cq(s->cq, 1, &wc) > 0) {
			if (wc.status != IB_WC_SUCCESS)
				return -EIO;
			if (wc.opcode == opcode)
				return 0;
		}
		usleep_range(500, 1000);
	}
	return -ETIMEDOUT;
}

/* a's buffer to b over the connection; 0 if b got the very bytes */
int kcm_exchange(struct kcm_side *a, struct kcm_side *b)
{
	struct ib_sge sge = { .addr = a->dma, .length = 64, .lkey = kcm.pd->local_dma_lkey };
	struct ib_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	int ret;

	memset(a->buf, 0x5a, 64);
	memset(b->buf, 0, 64);
	ret = ib_post_send(a->qp, &wr, NULL);
	if (!ret)
		ret = kcm_poll(a, IB_WC_SEND);
	if (!ret)
		ret = kcm_poll(b, IB_WC_RECV);
	if (!ret && memchr_inv(b->buf, 0x5a, 64))
		ret = -EBADMSG;
	return ret;
}

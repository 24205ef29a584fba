// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: creation (RC, UC, UD, and the special QPs SMI/GSI as QP0/QP1
 * of a port on the reserved QPNs, MLX transport), queue sizing within the
 * card's limits, the shared SQ/RQ buffer, asynchronous events, and
 * destruction.  The state transitions are in qp_modify.c, the work
 * requests in wqe.c, a user QP's buffers in qp_user.c.  An XRC target QP
 * is always the kernel's (upstream's ib_core creates it without udata
 * even for user space: it has no queues, its domain its CQ).
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/log2.h>

#include "mlx4_ib.h"

/*
 * Bytes in front of the gather list of a send WQE, by QP type; an LSO QP's
 * UD WQEs keep room for the LSO segment (the packet headers, inline).
 */
static int mlx4_ib_send_overhead(enum ib_qp_type type, bool lso)
{
	switch (type) {
	case IB_QPT_UD:
		return sizeof(struct mlx4_hw_ctrl_seg) + sizeof(struct mlx4_hw_datagram_seg) +
		       (lso ? MLX4_IB_LSO_HEADER_SPARE : 0);
	case IB_QPT_RC:
	case IB_QPT_XRC_INI:
		return sizeof(struct mlx4_hw_ctrl_seg) + sizeof(struct mlx4_hw_raddr_seg) +
		       sizeof(struct mlx4_hw_atomic_seg);
	case IB_QPT_UC:
		return sizeof(struct mlx4_hw_ctrl_seg) + sizeof(struct mlx4_hw_raddr_seg);
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		/* MLX segment, the packed headers in two inline segments, ICRC */
		return sizeof(struct mlx4_hw_mlx_seg) +
		       ALIGN(MLX4_IB_MAX_HEADER + 2 * sizeof(struct mlx4_hw_inline_seg), 16) +
		       sizeof(struct mlx4_hw_data_seg);
	default:
		return 0;
	}
}

/*
 * The layout of the QP's buffer (the queue with the larger stride first,
 * as libmlx4 has it too); returns its size.
 */
int mlx4_ib_qp_layout(struct mlx4_ib_qp *qp)
{
	int rq_bytes = qp->rq.wqe_cnt << qp->rq.wqe_shift;
	int sq_bytes = qp->sq.wqe_cnt << qp->sq.wqe_shift;

	if (qp->rq.wqe_shift > qp->sq.wqe_shift) {
		qp->rq.offset = 0;
		qp->sq.offset = rq_bytes;
	} else {
		qp->sq.offset = 0;
		qp->rq.offset = sq_bytes;
	}
	qp->buf_size = rq_bytes + sq_bytes;
	return qp->buf_size;
}

static int mlx4_ib_set_rq_size(struct mlx4_ib_dev *dev, struct ib_qp_cap *cap,
			       bool has_rq, struct mlx4_ib_qp *qp)
{
	const struct mlx4_caps *caps = &dev->dev->caps;

	if (!has_rq) {
		if (cap->max_recv_wr || cap->max_recv_sge)
			return -EINVAL;
		return 0;
	}
	if (cap->max_recv_wr > caps->max_wqes || cap->max_recv_sge > caps->max_rq_sg)
		return -EINVAL;
	qp->rq.wqe_cnt = roundup_pow_of_two(max(1U, cap->max_recv_wr));
	qp->rq.max_gs = roundup_pow_of_two(max(1U, cap->max_recv_sge));
	qp->rq.wqe_shift = ilog2(qp->rq.max_gs * sizeof(struct mlx4_hw_data_seg));
	if ((1 << qp->rq.wqe_shift) > caps->max_rq_desc_sz)
		return -EINVAL;
	qp->rq.max_post = qp->rq.wqe_cnt;
	cap->max_recv_wr = qp->rq.max_post;
	cap->max_recv_sge = qp->rq.max_gs;
	return 0;
}

static int mlx4_ib_set_sq_size(struct mlx4_ib_dev *dev, struct ib_qp_cap *cap,
			       enum ib_qp_type type, struct mlx4_ib_qp *qp)
{
	const struct mlx4_caps *caps = &dev->dev->caps;
	int max_sg = min(caps->max_sq_sg, caps->max_rq_sg);
	int max_desc = min(caps->max_sq_desc_sz, MLX4_HW_WQE_MAX_SIZE);
	int overhead = mlx4_ib_send_overhead(type, qp->lso);
	int size, spare, gs;

	if (cap->max_send_wr > caps->max_wqes - MLX4_IB_SQ_MAX_SPARE ||
	    cap->max_send_sge > max_sg || cap->max_inline_data > max_desc ||
	    ((type == IB_QPT_SMI || type == IB_QPT_GSI) && cap->max_inline_data))
		return -EINVAL;

	size = max_t(int, cap->max_send_sge * sizeof(struct mlx4_hw_data_seg),
		     mlx4_ib_inline_room(cap->max_inline_data)) + overhead;
	if (size > max_desc)
		return -EINVAL;

	/*
	 * An XRC target posts nothing (overhead and size 0), but its QP
	 * context still describes a send queue: give it the minimal stride.
	 */
	size = max(size, 1 << MLX4_IB_SQ_MIN_WQE_SHIFT);
	qp->sq.wqe_shift = ilog2(roundup_pow_of_two(size));
	spare = (MLX4_IB_SQ_HEADROOM >> qp->sq.wqe_shift) + 1;
	qp->sq.wqe_cnt = roundup_pow_of_two(max(1U, cap->max_send_wr) + spare);
	if (qp->sq.wqe_cnt > caps->max_wqes)
		return -EINVAL;
	qp->sq.max_post = qp->sq.wqe_cnt - spare;
	qp->sq_spare_wqes = spare;
	gs = (min(1 << qp->sq.wqe_shift, max_desc) - overhead) /
	     (int)sizeof(struct mlx4_hw_data_seg);
	qp->sq.max_gs = min(gs, max_sg);
	qp->max_inline_data = cap->max_inline_data;

	cap->max_send_wr = qp->sq.max_post;
	cap->max_send_sge = qp->sq.max_gs;
	return 0;
}

static void *mlx4_ib_send_wqe(struct mlx4_ib_qp *qp, unsigned int n)
{
	return mlx4_buf_offset(&qp->buf, qp->sq.offset + (n << qp->sq.wqe_shift));
}

/*
 * Every SQ WQE hardware-owned for the first pass (owner bit 1 at counter
 * values 0..cnt-1) and stamped over its whole stride (wqe.c: prefetch),
 * queues empty.  The QP is in RESET; the queue locks keep a post racing
 * with the transition from seeing half-reset queues.
 */
void mlx4_ib_qp_reset_queues(struct mlx4_ib_qp *qp)
{
	u8 stride = min(1 << (qp->sq.wqe_shift - 4), MLX4_HW_CTRL_SIZE_MASK);
	struct mlx4_hw_ctrl_seg *ctrl;
	unsigned long flags;
	int i;

	/* a user QP's queues are libmlx4's (it resets them itself) */
	if (qp->uctx)
		return;
	spin_lock_irqsave(&qp->sq.lock, flags);
	spin_lock(&qp->rq.lock);
	for (i = 0; i < qp->sq.wqe_cnt; i++) {
		ctrl = mlx4_ib_send_wqe(qp, i);
		ctrl->owner_opcode = cpu_to_be32(MLX4_HW_WQE_OWNER);
		ctrl->fence_size = stride;
		mlx4_ib_stamp_send_wqe(qp, i);
	}
	qp->sq.head = 0;
	qp->sq.tail = 0;
	qp->rq.head = 0;
	qp->rq.tail = 0;
	if (qp->has_rq)
		*qp->db.db = 0;
	spin_unlock(&qp->rq.lock);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
}

static void mlx4_ib_qp_event(struct mlx4_qp *mqp, enum mlx4_event type)
{
	struct mlx4_ib_qp *qp = container_of(mqp, struct mlx4_ib_qp, mqp);
	struct ib_event ev;

	switch (type) {
	case MLX4_EVENT_TYPE_PATH_MIG:
		ev.event = IB_EVENT_PATH_MIG;
		break;
	case MLX4_EVENT_TYPE_COMM_EST:
		ev.event = IB_EVENT_COMM_EST;
		break;
	case MLX4_EVENT_TYPE_SQ_DRAINED:
		ev.event = IB_EVENT_SQ_DRAINED;
		break;
	case MLX4_EVENT_TYPE_SRQ_QP_LAST_WQE:
		ev.event = IB_EVENT_QP_LAST_WQE_REACHED;
		break;
	case MLX4_EVENT_TYPE_WQ_CATAS_ERROR:
		ev.event = IB_EVENT_QP_FATAL;
		break;
	case MLX4_EVENT_TYPE_PATH_MIG_FAILED:
		ev.event = IB_EVENT_PATH_MIG_ERR;
		break;
	case MLX4_EVENT_TYPE_WQ_INVAL_REQ_ERROR:
		ev.event = IB_EVENT_QP_REQ_ERR;
		break;
	case MLX4_EVENT_TYPE_WQ_ACCESS_ERROR:
		ev.event = IB_EVENT_QP_ACCESS_ERR;
		break;
	default:
		mlx4_ib_warn_rl(qp->dev, "unexpected event %d on QP 0x%x\n", type, mqp->qpn);
		return;
	}
	if (!qp->ibqp.event_handler)
		return;
	ev.device = qp->ibqp.device;
	ev.element.qp = &qp->ibqp;
	qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

static int mlx4_ib_alloc_qp_buf(struct mlx4_ib_dev *dev, struct mlx4_ib_qp *qp)
{
	int err;

	mlx4_ib_qp_layout(qp);
	err = mlx4_buf_alloc(dev->dev, qp->buf_size, 2 * PAGE_SIZE, &qp->buf);
	if (err)
		return err;
	err = mlx4_mtt_init(dev->dev, qp->buf.npages, qp->buf.page_shift, &qp->mtt);
	if (err)
		goto err_buf;
	err = mlx4_buf_write_mtt(dev->dev, &qp->mtt, &qp->buf);
	if (err)
		goto err_mtt;

	qp->sq.wrid = kvcalloc(qp->sq.wqe_cnt, sizeof(u64), GFP_KERNEL);
	if (!qp->sq.wrid) {
		err = -ENOMEM;
		goto err_mtt;
	}
	if (qp->rq.wqe_cnt) {
		qp->rq.wrid = kvcalloc(qp->rq.wqe_cnt, sizeof(u64), GFP_KERNEL);
		if (!qp->rq.wrid) {
			err = -ENOMEM;
			goto err_sq_wrid;
		}
	}
	return 0;

err_sq_wrid:
	kvfree(qp->sq.wrid);
err_mtt:
	mlx4_mtt_cleanup(dev->dev, &qp->mtt);
err_buf:
	mlx4_buf_free(dev->dev, qp->buf_size, &qp->buf);
	return err;
}

/* [sleep] A kernel QP's queue sizes, buffer and RQ record. */
static int mlx4_ib_kernel_qp_buffers(struct mlx4_ib_dev *dev, struct mlx4_ib_qp *qp,
				     struct ib_qp_init_attr *attr)
{
	int err;

	err = mlx4_ib_set_rq_size(dev, &attr->cap, qp->has_rq, qp);
	if (!err)
		err = mlx4_ib_set_sq_size(dev, &attr->cap, attr->qp_type, qp);
	if (err) {
		mlx4_ib_warn_rl(dev, "create_qp: caps out of range (%u/%u WRs, %u/%u SGEs, %u)\n",
				attr->cap.max_send_wr, attr->cap.max_recv_wr,
				attr->cap.max_send_sge, attr->cap.max_recv_sge,
				attr->cap.max_inline_data);
		return err;
	}
	if (qp->has_rq) {
		err = mlx4_db_alloc(dev->dev, &qp->db, 0);
		if (err)
			return err;
	}
	err = mlx4_ib_alloc_qp_buf(dev, qp);
	if (err && qp->has_rq)
		mlx4_db_free(dev->dev, &qp->db);
	return err;
}

/* [sleep] Undo mlx4_ib_kernel_qp_buffers() or mlx4_ib_user_qp_buffers(). */
static void mlx4_ib_free_qp_buffers(struct mlx4_ib_dev *dev, struct mlx4_ib_qp *qp)
{
	if (qp->uctx) {
		mlx4_ib_free_user_qp_buffers(dev, qp);
		return;
	}
	kvfree(qp->rq.wrid);
	kvfree(qp->sq.wrid);
	mlx4_mtt_cleanup(dev->dev, &qp->mtt);
	mlx4_buf_free(dev->dev, qp->buf_size, &qp->buf);
	if (qp->has_rq)
		mlx4_db_free(dev->dev, &qp->db);
}

/* The QP joins the device's and its CQs' lists (software flush). */
static void mlx4_ib_qp_link(struct mlx4_ib_dev *dev, struct mlx4_ib_qp *qp,
			    struct mlx4_ib_cq *scq, struct mlx4_ib_cq *rcq)
{
	unsigned long flags, cq_flags;

	spin_lock_irqsave(&dev->reset_lock, flags);
	mlx4_ib_cq_lock_pair(scq, rcq, &cq_flags);
	list_add_tail(&qp->qps_list, &dev->qp_list);
	list_add_tail(&qp->cq_send_list, &scq->send_qp_list);
	list_add_tail(&qp->cq_recv_list, &rcq->recv_qp_list);
	mlx4_ib_cq_unlock_pair(scq, rcq, cq_flags);
	spin_unlock_irqrestore(&dev->reset_lock, flags);
}

static int mlx4_ib_check_create(struct mlx4_ib_dev *dev, struct ib_qp_init_attr *attr)
{
	u64 flags = dev->dev->caps.flags;

	switch (attr->qp_type) {
	case IB_QPT_RC:
		if (!(flags & MLX4_DEV_CAP_FLAG_RC))
			return -EOPNOTSUPP;
		break;
	case IB_QPT_UC:
		if (!(flags & MLX4_DEV_CAP_FLAG_UC))
			return -EOPNOTSUPP;
		break;
	case IB_QPT_UD:
		if (!(flags & MLX4_DEV_CAP_FLAG_UD))
			return -EOPNOTSUPP;
		break;
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		if (!rdma_is_port_valid(&dev->ib_dev, attr->port_num))
			return -EINVAL;
		if (attr->srq)
			return -EINVAL;
		break;
	case IB_QPT_XRC_TGT:
		if (!(flags & MLX4_DEV_CAP_FLAG_XRC))
			return -EOPNOTSUPP;
		if (!attr->xrcd || attr->srq)
			return -EINVAL;
		return attr->create_flags ? -EOPNOTSUPP : 0;
	case IB_QPT_XRC_INI:
		if (!(flags & MLX4_DEV_CAP_FLAG_XRC))
			return -EOPNOTSUPP;
		if (attr->srq)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (attr->create_flags & ~(IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK |
				   IB_QP_CREATE_IPOIB_UD_LSO))
		return -EOPNOTSUPP;
	if ((attr->create_flags & IB_QP_CREATE_IPOIB_UD_LSO) &&
	    attr->qp_type != IB_QPT_UD)
		return -EINVAL;
	if (!attr->send_cq || (!attr->recv_cq && !attr->srq && attr->qp_type != IB_QPT_XRC_INI))
		return -EINVAL;
	return 0;
}

struct ib_qp *mlx4_ib_create_qp(struct ib_pd *pd, struct ib_qp_init_attr *attr,
				struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev;
	bool sqp = attr->qp_type == IB_QPT_SMI || attr->qp_type == IB_QPT_GSI;
	bool xrc = attr->qp_type == IB_QPT_XRC_INI || attr->qp_type == IB_QPT_XRC_TGT;
	struct mlx4_ib_xrcd *xrcd = NULL;
	struct mlx4_ib_qp *qp;
	int qpn = 0, err;
	u32 key;

	/* ib_core gives user XRC target QPs no PD: the domain has one */
	if (!pd && (attr->qp_type != IB_QPT_XRC_TGT || !attr->xrcd)) {
		pr_warn_ratelimited(DRV_NAME ": create_qp: type %d without a PD\n", attr->qp_type);
		return ERR_PTR(-EINVAL);
	}
	dev = to_mdev(pd ? pd->device : attr->xrcd->device);
	if (attr->qp_type == IB_QPT_XRC_TGT)
		udata = NULL;
	err = mlx4_ib_check_create(dev, attr);
	if (!err && udata && (sqp || (attr->create_flags &
				      ~IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK)))
		err = -EINVAL;
	if (err) {
		mlx4_ib_warn_rl(dev, "create_qp: %s type %d, flags 0x%x, port %u rejected (%d)\n",
				udata ? "user" : "kernel", attr->qp_type, attr->create_flags,
				attr->port_num, err);
		return ERR_PTR(err);
	}

	qp = kzalloc(sizeof(*qp), GFP_KERNEL);
	if (!qp)
		return ERR_PTR(-ENOMEM);
	qp->dev = dev;
	mutex_init(&qp->mutex);
	mutex_init(&qp->mcg_mutex);
	INIT_LIST_HEAD(&qp->mcg_list);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	qp->state = IB_QPS_RESET;
	qp->is_sqp = sqp;
	/*
	 * An XRC target's PD and CQ are its domain's; an initiator completes
	 * only sends, on its send CQ (ib_core reads attr's CQs back, as
	 * upstream's mlx4 has it)
	 */
	if (attr->qp_type == IB_QPT_XRC_TGT) {
		xrcd = to_mxrcd(attr->xrcd);
		qp->xrcdn = xrcd->xrcdn;
		attr->send_cq = xrcd->cq;
		qp->pdn = to_mpd(xrcd->pd)->pdn;
	} else {
		qp->pdn = to_mpd(pd)->pdn;
	}
	if (xrc)
		attr->recv_cq = attr->send_cq;
	qp->scq = to_mcq(attr->send_cq);
	qp->rcq = attr->recv_cq ? to_mcq(attr->recv_cq) : qp->scq;
	qp->has_rq = !attr->srq && !xrc;
	qp->sq_signal_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->block_mcast_loopback =
		!!(attr->create_flags & IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK);
	qp->lso = !!(attr->create_flags & IB_QP_CREATE_IPOIB_UD_LSO);
	if (sqp)
		qp->port = attr->port_num;

	if (udata)
		err = mlx4_ib_user_qp_buffers(dev, qp, attr, udata);
	else
		err = mlx4_ib_kernel_qp_buffers(dev, qp, attr);
	if (err)
		goto err_qp;

	if (sqp) {
		qpn = dev->dev->caps.sqp_start + (attr->qp_type == IB_QPT_GSI ? 2 : 0) +
		      attr->port_num - 1;
	} else {
		err = mlx4_qp_reserve_range(dev->dev, 1, 1, &qpn);
		if (err)
			goto err_buf;
	}

	/*
	 * one QP per number: a second QP0/QP1 of a port fails here.  An XRC
	 * target is known by its number with bit 23 set (commands, events,
	 * CQEs and the consumer's qp_num), as upstream's mlx4 has it.
	 */
	key = qpn | (attr->qp_type == IB_QPT_XRC_TGT ? MLX4_IB_XRC_TGT_QPN_BIT : 0);
	err = xa_insert_irq(&dev->qps, key, qp, GFP_KERNEL);
	if (err)
		goto err_qpn;

	qp->mqp.event = mlx4_ib_qp_event;
	err = mlx4_qp_alloc(dev->dev, qpn, &qp->mqp);
	if (err)
		goto err_xa;
	qp->mqp.qpn = key;

	/* only kernel QPs: the software flush walks these lists */
	if (!qp->uctx) {
		mlx4_ib_qp_reset_queues(qp);
		mlx4_ib_qp_link(dev, qp, qp->scq, qp->rcq);
		attr->cap.max_inline_data = qp->max_inline_data;
	}
	qp->ibqp.qp_num = sqp ? (attr->qp_type == IB_QPT_GSI ? 1 : 0) : key;
	qp->ibqp.qp_type = attr->qp_type;
	qp->ibqp.port = sqp ? attr->port_num : 0;
	if (attr->qp_type == IB_QPT_GSI)
		qp->qkey = IB_QP1_QKEY;
	return &qp->ibqp;

err_xa:
	xa_erase_irq(&dev->qps, key);
err_qpn:
	if (!sqp)
		mlx4_qp_release_range(dev->dev, qpn, 1);
	if (err == -EBUSY)
		mlx4_ib_warn_rl(dev, "create_qp: QPN 0x%x is taken\n", qpn);
err_buf:
	mlx4_ib_free_qp_buffers(dev, qp);
err_qp:
	kfree(qp);
	return ERR_PTR(err);
}

int mlx4_ib_destroy_qp(struct ib_qp *ibqp)
{
	struct mlx4_ib_qp *qp = to_mqp(ibqp);
	struct mlx4_ib_dev *dev = qp->dev;
	struct mlx4_ib_cq *scq = qp->scq;
	struct mlx4_ib_cq *rcq = qp->rcq;
	struct mlx4_ib_srq *srq = ibqp->srq ? to_msrq(ibqp->srq) : NULL;
	unsigned long flags, cq_flags;
	u32 qpn = qp->mqp.qpn;

	mlx4_ib_mcg_leave_all(qp);
	mutex_lock(&qp->mutex);
	/*
	 * 2RST_QP takes no context: nothing to allocate, so that a destroy
	 * under memory pressure still takes the QP out of the card, as
	 * upstream's
	 */
	if (qp->state != IB_QPS_RESET && !mlx4_is_internal_error(dev->dev) &&
	    mlx4_qp_modify(dev->dev, &qp->mqp, mlx4_ib_to_hw_state(qp->state),
			   MLX4_QP_STATE_RST, NULL, 0, 0))
		mlx4_ib_warn(dev, "QP 0x%x: modify to RESET failed\n", qpn);
	WRITE_ONCE(qp->state, IB_QPS_RESET);
	mutex_unlock(&qp->mutex);

	/*
	 * In RESET the card writes no more CQEs for the QP.  Under both CQ
	 * locks, remove those still unpolled (their SRQ WQEs go back to the
	 * SRQ), then the QPN: a poller finds the QP, or none of its CQEs.
	 */
	if (qp->uctx) {
		/* libmlx4 cleans a user QP's CQEs from its CQs itself */
		xa_erase_irq(&dev->qps, qpn);
		goto free;
	}
	spin_lock_irqsave(&dev->reset_lock, flags);
	mlx4_ib_cq_lock_pair(scq, rcq, &cq_flags);
	mlx4_ib_cq_clean(rcq, qpn, srq);
	if (scq != rcq)
		mlx4_ib_cq_clean(scq, qpn, NULL);
	xa_lock(&dev->qps);
	__xa_erase(&dev->qps, qpn);
	xa_unlock(&dev->qps);
	list_del(&qp->qps_list);
	list_del(&qp->cq_send_list);
	list_del(&qp->cq_recv_list);
	mlx4_ib_cq_unlock_pair(scq, rcq, cq_flags);
	spin_unlock_irqrestore(&dev->reset_lock, flags);

free:
	mlx4_qp_free(dev->dev, &qp->mqp);
	if (!qp->is_sqp)
		mlx4_qp_release_range(dev->dev, qpn & ~MLX4_IB_XRC_TGT_QPN_BIT, 1);
	mlx4_ib_free_qp_buffers(dev, qp);
	kfree(qp);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A user QP's buffers (struct mlx4_ib_create_qp): libmlx4 lays out both
 * work queues in one buffer of its own and tells the send queue's geometry;
 * the receive queue's follows from the capabilities asked for, by the rules
 * libmlx4 applies too (upstream's set_rq_size and set_user_sq_size).  The
 * buffer is pinned and translated, the RQ's doorbell record pinned; the
 * kernel never writes either.
 */
#include <linux/log2.h>

#include "mlx4_ib.h"

/*
 * The receive queue of a user QP: 2^n WQEs of 2^n scatter entries, at least
 * one of each with a receive queue, none without (then db_addr is 0).  The
 * capabilities go back as they are (libmlx4 reads them so).  No inline
 * receive: EX_QUERY_DEVICE offers none (max_inl_recv_sz 0).
 */
static int mlx4_ib_set_user_rq_size(struct mlx4_ib_dev *dev, struct ib_qp_cap *cap,
				    u32 inl_recv_sz, struct mlx4_ib_qp *qp)
{
	const struct mlx4_caps *caps = &dev->dev->caps;

	if (cap->max_recv_wr > caps->max_wqes - MLX4_IB_SQ_MAX_SPARE ||
	    cap->max_recv_sge > min(caps->max_sq_sg, caps->max_rq_sg) || inl_recv_sz)
		return -EINVAL;
	if (!qp->has_rq) {
		if (cap->max_recv_wr)
			return -EINVAL;
		qp->rq.wqe_cnt = 0;
		qp->rq.max_gs = 0;
		qp->rq.wqe_shift = 0;
	} else {
		if (!cap->max_recv_wr || !cap->max_recv_sge)
			return -EINVAL;
		qp->rq.wqe_cnt = roundup_pow_of_two(cap->max_recv_wr);
		qp->rq.max_gs = roundup_pow_of_two(cap->max_recv_sge);
		qp->rq.wqe_shift = ilog2(qp->rq.max_gs * sizeof(struct mlx4_hw_data_seg));
	}
	qp->rq.max_post = qp->rq.wqe_cnt;
	cap->max_recv_wr = qp->rq.wqe_cnt;
	cap->max_recv_sge = qp->rq.max_gs;
	return 0;
}

/*
 * The send queue of a user QP, as libmlx4 sized it: 2^log_sq_bb_count basic
 * blocks of 2^log_sq_stride bytes, within the card's queue and descriptor
 * sizes.  Its posting limits are libmlx4's business: max_post and max_gs
 * stay 0 (query_qp answers 0 for them, and libmlx4 its own values).
 */
static int mlx4_ib_set_user_sq_size(struct mlx4_ib_dev *dev,
				    const struct mlx4_ib_create_qp *ucmd, struct mlx4_ib_qp *qp)
{
	const struct mlx4_caps *caps = &dev->dev->caps;

	if (ucmd->log_sq_bb_count >= 31 ||
	    (1U << ucmd->log_sq_bb_count) > (unsigned int)caps->max_wqes)
		return -EINVAL;
	if (ucmd->log_sq_stride < MLX4_IB_SQ_MIN_WQE_SHIFT ||
	    ucmd->log_sq_stride > ilog2(roundup_pow_of_two(caps->max_sq_desc_sz)))
		return -EINVAL;
	qp->sq.wqe_cnt = 1 << ucmd->log_sq_bb_count;
	qp->sq.wqe_shift = ucmd->log_sq_stride;
	return 0;
}

/*
 * [sleep] Sizes, buffer and RQ record of a user QP from the command's
 * driver data; on success the QP is a user QP (uctx set).
 */
int mlx4_ib_user_qp_buffers(struct mlx4_ib_dev *dev, struct mlx4_ib_qp *qp,
			    struct ib_qp_init_attr *attr, struct ib_udata *udata)
{
	struct mlx4_ib_ucontext *uctx = mlx4_ib_udata_ucontext(dev, udata);
	struct mlx4_ib_create_qp ucmd;
	int err;

	if (!uctx)
		return -EINVAL;
	err = mlx4_ib_copy_cmd(dev, &ucmd, sizeof(ucmd), udata, "create_qp");
	if (err)
		return err;
	err = mlx4_ib_set_user_rq_size(dev, &attr->cap, ucmd.inl_recv_sz, qp);
	if (!err)
		err = mlx4_ib_set_user_sq_size(dev, &ucmd, qp);
	if (err) {
		mlx4_ib_warn_rl(dev, "create_qp: RQ %u/%u, SQ 2^%u of 2^%u, inline %u refused\n",
				attr->cap.max_recv_wr, attr->cap.max_recv_sge,
				ucmd.log_sq_bb_count, ucmd.log_sq_stride, ucmd.inl_recv_sz);
		return err;
	}
	qp->sq_no_prefetch = !!ucmd.sq_no_prefetch;
	mlx4_ib_qp_layout(qp);

	/* the card reads WQEs only */
	qp->umem = ib_umem_get(&dev->ib_dev, ucmd.buf_addr, qp->buf_size, 0);
	if (IS_ERR(qp->umem)) {
		err = PTR_ERR(qp->umem);
		mlx4_ib_warn_rl(dev, "create_qp: %d bytes at 0x%llx: pinning failed (%d)\n",
				qp->buf_size, ucmd.buf_addr, err);
		goto err_umem;
	}
	err = mlx4_ib_umem_mtt(dev, qp->umem, &qp->mtt);
	if (err)
		goto err_release;
	if (qp->has_rq) {
		err = mlx4_ib_db_map_user(uctx, ucmd.db_addr, sizeof(__be32), &qp->udb);
		if (err)
			goto err_mtt;
	}
	qp->uctx = uctx;
	return 0;

err_mtt:
	mlx4_mtt_cleanup(dev->dev, &qp->mtt);
err_release:
	ib_umem_release(qp->umem);
err_umem:
	qp->umem = NULL;
	return err;
}

/* [sleep] The card no longer uses the QP: unpin its buffer and record. */
void mlx4_ib_free_user_qp_buffers(struct mlx4_ib_dev *dev, struct mlx4_ib_qp *qp)
{
	if (qp->has_rq)
		mlx4_ib_db_unmap_user(qp->uctx, &qp->udb);
	mlx4_mtt_cleanup(dev->dev, &qp->mtt);
	ib_umem_release(qp->umem);
	qp->umem = NULL;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * QP state transitions: the QP context built from ib_qp_attr for each
 * transition (the card latches the fields the IBA requires for it plus the
 * optional ones named in optpar), the cleanup when a QP returns to RESET,
 * and query_qp.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "mlx4_ib.h"

#define MLX4_IB_STAT_RATE_OFFSET	5

enum mlx4_qp_state mlx4_ib_to_hw_state(enum ib_qp_state state)
{
	switch (state) {
	case IB_QPS_RESET:
		return MLX4_QP_STATE_RST;
	case IB_QPS_INIT:
		return MLX4_QP_STATE_INIT;
	case IB_QPS_RTR:
		return MLX4_QP_STATE_RTR;
	case IB_QPS_RTS:
		return MLX4_QP_STATE_RTS;
	case IB_QPS_SQD:
		return MLX4_QP_STATE_SQD;
	case IB_QPS_SQE:
		return MLX4_QP_STATE_SQER;
	case IB_QPS_ERR:
	default:
		return MLX4_QP_STATE_ERR;
	}
}

static enum ib_qp_state mlx4_ib_from_hw_state(u32 state)
{
	switch (state) {
	case MLX4_QP_STATE_RST:
		return IB_QPS_RESET;
	case MLX4_QP_STATE_INIT:
		return IB_QPS_INIT;
	case MLX4_QP_STATE_RTR:
		return IB_QPS_RTR;
	case MLX4_QP_STATE_RTS:
		return IB_QPS_RTS;
	case MLX4_QP_STATE_SQD:
		return IB_QPS_SQD;
	case MLX4_QP_STATE_SQER:
		return IB_QPS_SQE;
	default:
		return IB_QPS_ERR;
	}
}

/* RC, UC and the XRC QPs: a path and a remote QP */
static bool mlx4_ib_qp_connected(struct mlx4_ib_qp *qp)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		return true;
	default:
		return false;
	}
}

static u32 mlx4_ib_service_type(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return MLX4_HW_ST_RC;
	case IB_QPT_UC:
		return MLX4_HW_ST_UC;
	case IB_QPT_UD:
		return MLX4_HW_ST_UD;
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		return MLX4_HW_ST_XRC;
	default:
		return MLX4_HW_ST_MLX;
	}
}

static u8 mlx4_ib_static_rate(struct mlx4_ib_dev *dev, u8 rate)
{
	u32 support = dev->dev->caps.stat_rate_support;
	u8 r;

	if (!rate)
		return 0;
	for (r = rate + MLX4_IB_STAT_RATE_OFFSET; r > 2 + MLX4_IB_STAT_RATE_OFFSET; r--)
		if (r < 32 && (support & BIT(r)))
			break;
	return r;
}

static u8 mlx4_ib_sched_queue(struct mlx4_ib_qp *qp, u8 port, u8 sl)
{
	if (qp->is_sqp && qp->ibqp.qp_type == IB_QPT_SMI)
		return (port - 1) << 6 | MLX4_HW_SCHED_QUEUE_QP0;
	return MLX4_HW_SCHED_QUEUE_BASE | (port - 1) << 6 | (sl & 0xf) << 2;
}

static int mlx4_ib_set_path(struct mlx4_ib_qp *qp, const struct rdma_ah_attr *ah,
			    u32 port, struct mlx4_hw_path *path)
{
	struct mlx4_ib_dev *dev = qp->dev;
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);

	if (!rdma_is_port_valid(&dev->ib_dev, port))
		return -EINVAL;
	path->grh_mylmc = rdma_ah_get_path_bits(ah) & 0x7f;
	path->rlid = cpu_to_be16(rdma_ah_get_dlid(ah));
	path->static_rate = mlx4_ib_static_rate(dev, rdma_ah_get_static_rate(ah));
	if (rdma_ah_get_ah_flags(ah) & IB_AH_GRH) {
		if (grh->sgid_index >= dev->dev->caps.gid_table_len[port])
			return -EINVAL;
		path->grh_mylmc |= 0x80;
		path->mgid_index = grh->sgid_index;
		path->hop_limit = grh->hop_limit;
		path->tclass_flowlabel = cpu_to_be32((u32)grh->traffic_class << 20 |
						     (grh->flow_label & 0xfffff));
		memcpy(path->rgid, grh->dgid.raw, 16);
	}
	path->sched_queue = mlx4_ib_sched_queue(qp, port, rdma_ah_get_sl(ah));
	return 0;
}

static __be32 mlx4_ib_access_bits(struct mlx4_ib_qp *qp,
				  const struct ib_qp_attr *attr, int mask)
{
	u8 dest_rd_atomic;
	u32 access, hw = 0;

	dest_rd_atomic = mask & IB_QP_MAX_DEST_RD_ATOMIC ? attr->max_dest_rd_atomic :
							     qp->resp_depth;
	access = mask & IB_QP_ACCESS_FLAGS ? attr->qp_access_flags : qp->atomic_rd_en;
	/* without responder resources only RDMA writes can be allowed */
	if (!dest_rd_atomic)
		access &= IB_ACCESS_REMOTE_WRITE;
	if (access & IB_ACCESS_REMOTE_READ)
		hw |= MLX4_HW_PARAMS2_RRE;
	if (access & IB_ACCESS_REMOTE_WRITE)
		hw |= MLX4_HW_PARAMS2_RWE;
	if (access & IB_ACCESS_REMOTE_ATOMIC)
		hw |= MLX4_HW_PARAMS2_RAE;
	return cpu_to_be32(hw);
}

struct mlx4_ib_modify {
	struct mlx4_hw_qp_context *ctx;
	u32 optpar;
	u8 port;		/* the port after this transition */
	u8 sl;
};

/* The fields that depend on ib_qp_attr; the rest is in mlx4_ib_build_context. */
static int mlx4_ib_fill_attrs(struct mlx4_ib_qp *qp, const struct ib_qp_attr *attr,
			      int mask, struct mlx4_ib_modify *m)
{
	struct mlx4_hw_qp_context *ctx = m->ctx;
	int err;

	if (mask & IB_QP_PATH_MIG_STATE) {
		u32 pm = attr->path_mig_state == IB_MIG_MIGRATED ? MLX4_HW_PM_MIGRATED :
			 attr->path_mig_state == IB_MIG_REARM ? MLX4_HW_PM_REARM :
			 MLX4_HW_PM_ARMED;

		ctx->flags |= cpu_to_be32(pm << 11);
		m->optpar |= MLX4_OPTPAR_PM_STATE;
	} else {
		ctx->flags |= cpu_to_be32(MLX4_HW_PM_MIGRATED << 11);
	}

	if (mlx4_ib_qp_connected(qp)) {
		if (mask & IB_QP_PATH_MTU) {
			if (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096)
				return -EINVAL;
			ctx->mtu_msgmax = attr->path_mtu << 5 | 31;
		}
	} else if (qp->lso && qp->dev->dev->caps.max_gso_sz) {
		/* an LSO message may be as long as the card segments */
		ctx->mtu_msgmax = IB_MTU_4096 << 5 | ilog2(qp->dev->dev->caps.max_gso_sz);
	} else {
		ctx->mtu_msgmax = IB_MTU_4096 << 5 | 12;
	}

	if (mask & IB_QP_DEST_QPN)
		ctx->remote_qpn = cpu_to_be32(attr->dest_qp_num & 0xffffff);

	if (mask & IB_QP_PKEY_INDEX) {
		if (attr->pkey_index >= qp->dev->dev->caps.pkey_table_len[m->port])
			return -EINVAL;
		m->optpar |= MLX4_OPTPAR_PKEY_INDEX;
	}
	ctx->pri_path.pkey_index = mask & IB_QP_PKEY_INDEX ? attr->pkey_index :
							     qp->pkey_index;

	if (mask & IB_QP_PORT)
		m->optpar |= MLX4_OPTPAR_SCHED_QUEUE;

	if (mask & IB_QP_AV) {
		err = mlx4_ib_set_path(qp, &attr->ah_attr, m->port, &ctx->pri_path);
		if (err)
			return err;
		m->sl = rdma_ah_get_sl(&attr->ah_attr);
		m->optpar |= MLX4_OPTPAR_PRIMARY_ADDR_PATH | MLX4_OPTPAR_SCHED_QUEUE;
	}
	ctx->pri_path.sched_queue = mlx4_ib_sched_queue(qp, m->port, m->sl);

	if (mask & IB_QP_TIMEOUT) {
		ctx->pri_path.ackto = attr->timeout << 3;
		m->optpar |= MLX4_OPTPAR_ACK_TIMEOUT;
	}

	if (mask & IB_QP_ALT_PATH) {
		if (!rdma_is_port_valid(&qp->dev->ib_dev, attr->alt_port_num))
			return -EINVAL;
		err = mlx4_ib_set_path(qp, &attr->alt_ah_attr, attr->alt_port_num,
				       &ctx->alt_path);
		if (err)
			return err;
		ctx->alt_path.pkey_index = attr->alt_pkey_index;
		ctx->alt_path.ackto = attr->alt_timeout << 3;
		m->optpar |= MLX4_OPTPAR_ALT_ADDR_PATH;
	}

	ctx->params1 = cpu_to_be32(MLX4_HW_ACK_REQ_FREQ << 28);
	if (mask & IB_QP_RETRY_CNT) {
		ctx->params1 |= cpu_to_be32((attr->retry_cnt & 7) << 16);
		m->optpar |= MLX4_OPTPAR_RETRY_COUNT;
	}
	if (mask & IB_QP_RNR_RETRY) {
		ctx->params1 |= cpu_to_be32((attr->rnr_retry & 7) << 13);
		m->optpar |= MLX4_OPTPAR_RNR_RETRY;
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC) {
		if (attr->max_rd_atomic)
			ctx->params1 |= cpu_to_be32(fls(attr->max_rd_atomic - 1) << 21);
		m->optpar |= MLX4_OPTPAR_SRA_MAX;
	}
	if (mask & IB_QP_SQ_PSN)
		ctx->next_send_psn = cpu_to_be32(attr->sq_psn & 0xffffff);

	if (mask & IB_QP_MAX_DEST_RD_ATOMIC) {
		if (attr->max_dest_rd_atomic)
			ctx->params2 |= cpu_to_be32(fls(attr->max_dest_rd_atomic - 1) << 21);
		m->optpar |= MLX4_OPTPAR_RRA_MAX;
	}
	if (mask & (IB_QP_ACCESS_FLAGS | IB_QP_MAX_DEST_RD_ATOMIC)) {
		ctx->params2 |= mlx4_ib_access_bits(qp, attr, mask);
		m->optpar |= MLX4_OPTPAR_RWE | MLX4_OPTPAR_RRE | MLX4_OPTPAR_RAE;
	}
	if (mask & IB_QP_MIN_RNR_TIMER) {
		ctx->rnr_nextrecvpsn |= cpu_to_be32((attr->min_rnr_timer & 0x1f) << 24);
		m->optpar |= MLX4_OPTPAR_RNR_TIMEOUT;
	}
	if (mask & IB_QP_RQ_PSN)
		ctx->rnr_nextrecvpsn |= cpu_to_be32(attr->rq_psn & 0xffffff);

	if (mask & IB_QP_QKEY) {
		ctx->qkey = cpu_to_be32(attr->qkey);
		m->optpar |= MLX4_OPTPAR_Q_KEY;
	} else if (qp->ibqp.qp_type == IB_QPT_UD || qp->is_sqp) {
		ctx->qkey = cpu_to_be32(qp->qkey);
	}
	return 0;
}

static void mlx4_ib_build_context(struct mlx4_ib_qp *qp, enum ib_qp_state cur,
				  enum ib_qp_state new, struct mlx4_ib_modify *m)
{
	struct mlx4_hw_qp_context *ctx = m->ctx;
	struct mlx4_ib_dev *dev = qp->dev;
	u64 mtt_addr;

	ctx->flags |= cpu_to_be32(mlx4_ib_to_hw_state(new) << 28 |
				  mlx4_ib_service_type(qp->ibqp.qp_type) << 16);
	ctx->pd = cpu_to_be32(qp->pdn);
	if (qp->has_rq)
		ctx->rq_size_stride = ilog2(qp->rq.wqe_cnt) << 3 | (qp->rq.wqe_shift - 4);
	ctx->sq_size_stride = ilog2(qp->sq.wqe_cnt) << 3 | (qp->sq.wqe_shift - 4);
	/* the doorbells of a user QP ring on its context's UAR */
	ctx->usr_page = cpu_to_be32(qp->uctx ? qp->uctx->uar.index : dev->uar->index);
	ctx->cqn_send = cpu_to_be32(qp->scq->mcq.cqn);
	ctx->cqn_recv = cpu_to_be32(qp->rcq->mcq.cqn);
	if (qp->ibqp.srq) {
		ctx->params2 |= cpu_to_be32(MLX4_HW_PARAMS2_RIC);
		ctx->srqn = cpu_to_be32(BIT(24) | to_msrq(qp->ibqp.srq)->msrq.srqn);
	}
	if (cur == IB_QPS_RESET && new == IB_QPS_INIT) {
		ctx->xrcd = cpu_to_be32(qp->xrcdn);
		if (qp->sq_no_prefetch)
			ctx->sq_size_stride |= MLX4_HW_SQ_NO_PREFETCH;
		if (qp->has_rq)
			ctx->db_rec_addr = cpu_to_be64(qp->uctx ? qp->udb.dma : qp->db.dma);
		mtt_addr = mlx4_mtt_addr(dev->dev, &qp->mtt);
		ctx->log_page_size = qp->mtt.page_shift - 12;
		ctx->mtt_base_addr_h = mtt_addr >> 32;
		ctx->mtt_base_addr_l = cpu_to_be32(mtt_addr & 0xffffffff);
	}
}

/* What stays in the QP after a successful transition. */
static void mlx4_ib_commit(struct mlx4_ib_qp *qp, const struct ib_qp_attr *attr, int mask,
			   const struct mlx4_ib_modify *m, enum ib_qp_state new)
{
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->atomic_rd_en = attr->qp_access_flags;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->resp_depth = attr->max_dest_rd_atomic;
	if (mask & IB_QP_PKEY_INDEX)
		qp->pkey_index = attr->pkey_index;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_SQ_PSN)
		qp->send_psn = attr->sq_psn;
	qp->port = m->port;
	qp->sl = m->sl;
	WRITE_ONCE(qp->state, new);
}

static void mlx4_ib_qp_to_reset(struct mlx4_ib_qp *qp)
{
	struct mlx4_ib_cq *scq = qp->scq;
	struct mlx4_ib_cq *rcq = qp->rcq;
	struct mlx4_ib_srq *srq = qp->ibqp.srq ? to_msrq(qp->ibqp.srq) : NULL;
	unsigned long flags;

	/* libmlx4 cleans a user QP's CQs and resets its queues itself */
	if (qp->uctx)
		return;
	mlx4_ib_cq_lock_pair(scq, rcq, &flags);
	mlx4_ib_cq_clean(rcq, qp->mqp.qpn, srq);
	if (scq != rcq)
		mlx4_ib_cq_clean(scq, qp->mqp.qpn, NULL);
	mlx4_ib_cq_unlock_pair(scq, rcq, flags);
	mlx4_ib_qp_reset_queues(qp);
}

/*
 * The card is dead (catastrophic error): it executes nothing, so the QP
 * can only be taken out of service, as upstream does for teardown - to ERR
 * or RESET in software (poll_cq completes what was outstanding as flushed;
 * RESET empties the queues).  Anything else fails.
 */
static int mlx4_ib_modify_dead(struct mlx4_ib_qp *qp, enum ib_qp_state new)
{
	lockdep_assert_held(&qp->mutex);
	if (new != IB_QPS_RESET && new != IB_QPS_ERR) {
		mlx4_ib_warn_rl(qp->dev, "QP 0x%x: modify to state %d: device in internal error\n",
				qp->ibqp.qp_num, new);
		return -EIO;
	}
	WRITE_ONCE(qp->state, new);
	if (new == IB_QPS_RESET)
		mlx4_ib_qp_to_reset(qp);
	return 0;
}

int mlx4_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      enum ib_qp_state cur_state, struct ib_udata *udata)
{
	struct mlx4_ib_qp *qp = to_mqp(ibqp);
	struct mlx4_ib_dev *dev = qp->dev;
	struct mlx4_ib_modify m = { };
	enum ib_qp_state cur, new;
	int err;

	/*
	 * udata: a user's modify (libmlx4 sends no driver data), also of a
	 * kernel XRC target QP; what the QP is was decided at its creation.
	 */
	mutex_lock(&qp->mutex);
	cur = qp->state;
	new = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (cur_state != cur)
		mlx4_ib_warn_rl(dev, "QP 0x%x: core thinks state %d, driver %d\n",
				ibqp->qp_num, cur_state, cur);

	m.port = mask & IB_QP_PORT ? attr->port_num : qp->port;
	if (qp->is_sqp)
		m.port = qp->port;	/* QP0/QP1 belong to their port */
	m.sl = qp->sl;
	if (new != IB_QPS_RESET && new != IB_QPS_ERR &&
	    !rdma_is_port_valid(ibqp->device, m.port)) {
		mlx4_ib_warn_rl(dev, "QP 0x%x: modify to state %d without a valid port\n",
				ibqp->qp_num, new);
		err = -EINVAL;
		goto out;
	}
	if (cur == IB_QPS_RESET && new == IB_QPS_RESET) {
		err = 0;
		goto out;
	}
	if (unlikely(mlx4_is_internal_error(dev->dev))) {
		err = mlx4_ib_modify_dead(qp, new);
		goto out;
	}

	m.ctx = kzalloc(sizeof(*m.ctx), GFP_KERNEL);
	if (!m.ctx) {
		err = -ENOMEM;
		goto out;
	}
	if (new != IB_QPS_RESET && new != IB_QPS_ERR) {
		err = mlx4_ib_fill_attrs(qp, attr, mask, &m);
		if (err) {
			mlx4_ib_warn_rl(dev, "QP 0x%x: bad attributes for %d -> %d (mask 0x%x)\n",
					ibqp->qp_num, cur, new, mask);
			goto out_ctx;
		}
	}
	mlx4_ib_build_context(qp, cur, new, &m);

	/* a new life: the SQ owner bits ready for the first pass */
	if (cur == IB_QPS_RESET && new == IB_QPS_INIT)
		mlx4_ib_qp_reset_queues(qp);

	err = mlx4_qp_modify(dev->dev, &qp->mqp, mlx4_ib_to_hw_state(cur),
			     mlx4_ib_to_hw_state(new), m.ctx, m.optpar,
			     cur == IB_QPS_RTS && new == IB_QPS_SQD &&
			     (mask & IB_QP_EN_SQD_ASYNC_NOTIFY) && attr->en_sqd_async_notify);
	if (err && mlx4_is_internal_error(dev->dev)) {
		/*
		 * The card died under this command (it timed out and the
		 * driver reset the card): a teardown succeeds as on a dead
		 * card, anything else fails with -EIO.
		 */
		err = mlx4_ib_modify_dead(qp, new);
		goto out_ctx;
	}
	if (err) {
		mlx4_ib_warn_rl(dev, "QP 0x%x: transition %d -> %d failed (%d)\n",
				ibqp->qp_num, cur, new, err);
		goto out_ctx;
	}
	mlx4_ib_commit(qp, attr, new == IB_QPS_RESET || new == IB_QPS_ERR ? 0 : mask,
		       &m, new);

	/*
	 * Upstream turns the PHY on when QP0 reaches RTR and off when QP0
	 * leaves service.  We keep it on from add to remove (the ports must
	 * link without a MAD layer, and a passing QP0 user must not take the
	 * link down), so QP0 reaching RTR only makes sure it is on.
	 */
	if (qp->is_sqp && ibqp->qp_type == IB_QPT_SMI &&
	    cur != IB_QPS_RTR && new == IB_QPS_RTR && !dev->port_inited[qp->port])
		mlx4_ib_init_port(dev, qp->port);
	if (new == IB_QPS_RESET)
		mlx4_ib_qp_to_reset(qp);
out_ctx:
	kfree(m.ctx);
out:
	mutex_unlock(&qp->mutex);
	return err;
}

static void mlx4_ib_path_to_ah(struct mlx4_ib_dev *dev, const struct mlx4_hw_path *path,
			       struct rdma_ah_attr *ah)
{
	u32 tf = be32_to_cpu(path->tclass_flowlabel);
	u32 port = ((path->sched_queue >> 6) & 1) + 1;

	memset(ah, 0, sizeof(*ah));
	ah->type = rdma_ah_find_type(&dev->ib_dev, port);
	rdma_ah_set_port_num(ah, port);
	rdma_ah_set_dlid(ah, be16_to_cpu(path->rlid));
	rdma_ah_set_sl(ah, (path->sched_queue >> 2) & 0xf);
	rdma_ah_set_path_bits(ah, path->grh_mylmc & 0x7f);
	rdma_ah_set_static_rate(ah, path->static_rate ?
				path->static_rate - MLX4_IB_STAT_RATE_OFFSET : 0);
	if (path->grh_mylmc & 0x80) {
		rdma_ah_set_grh(ah, NULL, tf & 0xfffff, path->mgid_index, path->hop_limit,
				(tf >> 20) & 0xff);
		memcpy(ah->grh.dgid.raw, path->rgid, sizeof(ah->grh.dgid.raw));
	}
}

static int mlx4_ib_read_context(struct mlx4_ib_qp *qp, struct ib_qp_attr *attr)
{
	struct mlx4_hw_qp_context *ctx;
	u32 params1, params2;
	int err;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	err = mlx4_qp_query(qp->dev->dev, &qp->mqp, ctx);
	if (err)
		goto out;

	WRITE_ONCE(qp->state, mlx4_ib_from_hw_state(be32_to_cpu(ctx->flags) >> 28));
	attr->path_mtu = ctx->mtu_msgmax >> 5;
	switch ((be32_to_cpu(ctx->flags) >> 11) & 3) {
	case MLX4_HW_PM_ARMED:
		attr->path_mig_state = IB_MIG_ARMED;
		break;
	case MLX4_HW_PM_REARM:
		attr->path_mig_state = IB_MIG_REARM;
		break;
	default:
		attr->path_mig_state = IB_MIG_MIGRATED;
		break;
	}
	attr->qkey = be32_to_cpu(ctx->qkey);
	attr->rq_psn = be32_to_cpu(ctx->rnr_nextrecvpsn) & 0xffffff;
	attr->sq_psn = be32_to_cpu(ctx->next_send_psn) & 0xffffff;
	attr->dest_qp_num = be32_to_cpu(ctx->remote_qpn) & 0xffffff;
	params1 = be32_to_cpu(ctx->params1);
	params2 = be32_to_cpu(ctx->params2);
	attr->qp_access_flags =
		(params2 & MLX4_HW_PARAMS2_RRE ? IB_ACCESS_REMOTE_READ : 0) |
		(params2 & MLX4_HW_PARAMS2_RWE ? IB_ACCESS_REMOTE_WRITE : 0) |
		(params2 & MLX4_HW_PARAMS2_RAE ? IB_ACCESS_REMOTE_ATOMIC : 0);
	if (mlx4_ib_qp_connected(qp)) {
		mlx4_ib_path_to_ah(qp->dev, &ctx->pri_path, &attr->ah_attr);
		mlx4_ib_path_to_ah(qp->dev, &ctx->alt_path, &attr->alt_ah_attr);
		attr->alt_pkey_index = ctx->alt_path.pkey_index & 0x7f;
		attr->alt_port_num = rdma_ah_get_port_num(&attr->alt_ah_attr);
		attr->alt_timeout = ctx->alt_path.ackto >> 3;
	}
	attr->pkey_index = ctx->pri_path.pkey_index & 0x7f;
	attr->port_num = qp->port;
	attr->sq_draining = 0;
	attr->max_rd_atomic = 1 << ((params1 >> 21) & 7);
	attr->max_dest_rd_atomic = 1 << ((params2 >> 21) & 7);
	attr->min_rnr_timer = (be32_to_cpu(ctx->rnr_nextrecvpsn) >> 24) & 0x1f;
	attr->timeout = ctx->pri_path.ackto >> 3;
	attr->retry_cnt = (params1 >> 16) & 7;
	attr->rnr_retry = (params1 >> 13) & 7;
out:
	kfree(ctx);
	return err;
}

int mlx4_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_qp_init_attr *init_attr)
{
	struct mlx4_ib_qp *qp = to_mqp(ibqp);
	int err = 0;

	memset(attr, 0, sizeof(*attr));
	mutex_lock(&qp->mutex);
	if (qp->state != IB_QPS_RESET)
		err = mlx4_ib_read_context(qp, attr);
	if (err)
		goto out;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->port_num = qp->port;
	attr->pkey_index = qp->state == IB_QPS_RESET ? qp->pkey_index : attr->pkey_index;
	attr->cap.max_send_wr = qp->sq.max_post;
	attr->cap.max_send_sge = qp->sq.max_gs;
	attr->cap.max_recv_wr = qp->rq.max_post;
	attr->cap.max_recv_sge = qp->rq.max_gs;
	attr->cap.max_inline_data = qp->max_inline_data;

	if (init_attr) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->event_handler = ibqp->event_handler;
		init_attr->qp_context = ibqp->qp_context;
		init_attr->send_cq = ibqp->send_cq;
		init_attr->recv_cq = ibqp->recv_cq;
		init_attr->srq = ibqp->srq;
		init_attr->cap = attr->cap;
		init_attr->sq_sig_type = qp->sq_signal_all ? IB_SIGNAL_ALL_WR :
							     IB_SIGNAL_REQ_WR;
		init_attr->qp_type = ibqp->qp_type;
		init_attr->create_flags = (qp->block_mcast_loopback ?
					   IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK : 0) |
					  (qp->lso ? IB_QP_CREATE_IPOIB_UD_LSO : 0);
		init_attr->port_num = qp->is_sqp ? qp->port : 0;
	}
out:
	mutex_unlock(&qp->mutex);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The data path of a QP: post_send builds send WQEs (control segment, then
 * remote address, atomic, datagram, fast-registration, bind or
 * local-invalidate segment, then inline data or a gather list), hands them
 * to the card by their owner bit and rings the send doorbell; post_recv
 * writes scatter lists and moves the RQ doorbell record.  [any]: spinlocks only, no
 * sleeping; every rejected work request gets an errno, *bad_wr and a
 * rate-limited log line.
 *
 * The card prefetches the send queue ahead of what it was given, in
 * 64-byte lines, and takes a line whose first dword is not 0xffffffff as
 * valid: the owner bit guards only a WQE's first line.  So every line but
 * the first of a WQE that is not posted starts with that stamp (all of
 * them at RESET->INIT, and after each post the WQE that enters the
 * prefetch window, sq_spare_wqes ahead), and a segment's first dword, its
 * byte count, is written last within its line, behind a barrier: gather
 * lists back to front, inline segments after their data.  A fast-
 * registration, bind or local-invalidate WQE is one line (control segment
 * and a 48- or 32-byte segment), guarded by its owner bit.
 */
#include <linux/io.h>
#include <linux/string.h>

#include <ibstack/ext.h>

#include "mlx4_ib.h"

static void *mlx4_ib_get_send_wqe(struct mlx4_ib_qp *qp, unsigned int n)
{
	return mlx4_buf_offset(&qp->buf, qp->sq.offset + (n << qp->sq.wqe_shift));
}

void mlx4_ib_inline_start(struct mlx4_ib_inline *inl, void *wqe, int off)
{
	inl->wqe = wqe;
	inl->seg = off;
	inl->pos = off + sizeof(struct mlx4_hw_inline_seg);
	inl->seg_len = 0;
}

static void mlx4_ib_inline_close(struct mlx4_ib_inline *inl)
{
	struct mlx4_hw_inline_seg *seg = inl->wqe + inl->seg;

	/* the data before a byte count that may start a line */
	dma_wmb();
	seg->byte_count = cpu_to_be32(MLX4_HW_INLINE_FLAG | inl->seg_len);
}

void mlx4_ib_inline_add(struct mlx4_ib_inline *inl, const void *data, int len)
{
	int room, n;

	while (len > 0) {
		if (!(inl->pos & (MLX4_HW_INLINE_ALIGN - 1)) && inl->seg_len) {
			/* a segment never crosses a 64-byte line: start another */
			mlx4_ib_inline_close(inl);
			inl->seg = inl->pos;
			inl->pos += sizeof(struct mlx4_hw_inline_seg);
			inl->seg_len = 0;
		}
		room = MLX4_HW_INLINE_ALIGN - (inl->pos & (MLX4_HW_INLINE_ALIGN - 1));
		n = min(len, room);
		memcpy(inl->wqe + inl->pos, data, n);
		inl->pos += n;
		inl->seg_len += n;
		data += n;
		len -= n;
	}
}

int mlx4_ib_inline_end(struct mlx4_ib_inline *inl)
{
	mlx4_ib_inline_close(inl);
	return ALIGN(inl->pos, 16);
}

/* A receive's scatter entry: the card reads it after the doorbell record. */
static void mlx4_ib_set_scatter_seg(struct mlx4_hw_data_seg *dseg, const struct ib_sge *sge)
{
	dseg->byte_count = cpu_to_be32(sge->length);
	dseg->lkey = cpu_to_be32(sge->lkey);
	dseg->addr = cpu_to_be64(sge->addr);
}

/* A receive's scatter list, ended by an invalid lkey if shorter than max. */
void mlx4_ib_set_scatter(struct mlx4_hw_data_seg *scat, const struct ib_sge *sg,
			 int n, int max)
{
	int i;

	for (i = 0; i < n; i++)
		mlx4_ib_set_scatter_seg(scat + i, &sg[i]);
	if (i < max) {
		scat[i].byte_count = 0;
		scat[i].lkey = cpu_to_be32(MLX4_HW_INVALID_LKEY);
		scat[i].addr = 0;
	}
}

/*
 * A send's gather list, back to front: the entry that starts a 64-byte
 * line is written after the ones that fill it, and each entry's byte count
 * after its address, so that a prefetched line is valid only when whole.
 */
void mlx4_ib_set_gather_segs(struct mlx4_hw_data_seg *dseg, const struct ib_sge *sg, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--) {
		dseg[i].lkey = cpu_to_be32(sg[i].lkey);
		dseg[i].addr = cpu_to_be64(sg[i].addr);
		dma_wmb();
		dseg[i].byte_count = cpu_to_be32(sg[i].length);
	}
}

/*
 * [any] Stamp every 64-byte line of send WQE n but the first, as far as the
 * size in its control segment says (the last WQE there, or the whole
 * stride after a reset): prefetched, the lines are invalid.
 */
void mlx4_ib_stamp_send_wqe(struct mlx4_ib_qp *qp, unsigned int n)
{
	void *wqe = mlx4_ib_get_send_wqe(qp, n & (qp->sq.wqe_cnt - 1));
	struct mlx4_hw_ctrl_seg *ctrl = wqe;
	int size = (ctrl->fence_size & MLX4_HW_CTRL_SIZE_MASK) * 16;
	int i;

	for (i = MLX4_HW_INLINE_ALIGN; i < size; i += MLX4_HW_INLINE_ALIGN)
		*(__be32 *)(wqe + i) = cpu_to_be32(MLX4_HW_WQE_STAMP);
}

/*
 * Would nreq more WQEs overflow the queue?  The tail moves under the CQ's
 * lock in poll_cq, so look again under it before saying yes.
 */
static bool mlx4_ib_wq_overflow(struct mlx4_ib_wq *wq, int nreq, struct mlx4_ib_cq *cq)
{
	unsigned int cur = wq->head - READ_ONCE(wq->tail);

	if (likely(cur + nreq < wq->max_post))
		return false;
	spin_lock(&cq->lock);
	cur = wq->head - wq->tail;
	spin_unlock(&cq->lock);
	return cur + nreq >= wq->max_post;
}

static void *mlx4_ib_get_recv_wqe(struct mlx4_ib_qp *qp, unsigned int n)
{
	return mlx4_buf_offset(&qp->buf, qp->rq.offset + (n << qp->rq.wqe_shift));
}

/* The WQE opcode for a work request on this QP type, or -EINVAL. */
static int mlx4_ib_wqe_opcode(struct mlx4_ib_qp *qp, const struct ib_send_wr *wr)
{
	enum ib_qp_type type = qp->ibqp.qp_type;
	bool atomics = qp->dev->dev->caps.flags & MLX4_DEV_CAP_FLAG_ATOMIC;

	/* an XRC initiator sends as an RC requester; a target sends nothing */
	if (type == IB_QPT_XRC_TGT)
		return -EINVAL;
	if (type == IB_QPT_XRC_INI)
		type = IB_QPT_RC;

	switch (wr->opcode) {
	case IB_WR_SEND:
		return MLX4_HW_OPCODE_SEND;
	case IB_WR_SEND_WITH_IMM:
		return MLX4_HW_OPCODE_SEND_IMM;
	case IB_WR_LSO:
		return type == IB_QPT_UD ? MLX4_HW_OPCODE_LSO : -EINVAL;
	case IB_WR_SEND_WITH_INV:
		return type == IB_QPT_RC ? MLX4_HW_OPCODE_SEND_INVAL : -EINVAL;
	case IB_WR_REG_MR:
		return type == IB_QPT_RC || type == IB_QPT_UC ?
		       MLX4_HW_OPCODE_FMR : -EINVAL;
	case IB_WR_LOCAL_INV:
		return type == IB_QPT_RC || type == IB_QPT_UC ?
		       MLX4_HW_OPCODE_LOCAL_INVAL : -EINVAL;
	case IB_WR_BIND_MW:
		return type == IB_QPT_RC || type == IB_QPT_UC ?
		       MLX4_HW_OPCODE_BIND_MW : -EINVAL;
	case IB_WR_RDMA_WRITE:
		return type == IB_QPT_RC || type == IB_QPT_UC ?
		       MLX4_HW_OPCODE_RDMA_WRITE : -EINVAL;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return type == IB_QPT_RC || type == IB_QPT_UC ?
		       MLX4_HW_OPCODE_RDMA_WRITE_IMM : -EINVAL;
	case IB_WR_RDMA_READ:
		return type == IB_QPT_RC ? MLX4_HW_OPCODE_RDMA_READ : -EINVAL;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return type == IB_QPT_RC && atomics ? MLX4_HW_OPCODE_ATOMIC_CS : -EINVAL;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return type == IB_QPT_RC && atomics ? MLX4_HW_OPCODE_ATOMIC_FA : -EINVAL;
	default:
		return -EINVAL;
	}
}

/* The gather part: inline data or data segments; returns the WQE size. */
static int mlx4_ib_set_gather(struct mlx4_ib_qp *qp, const struct ib_send_wr *wr,
			      void *wqe, int off)
{
	struct mlx4_hw_data_seg *dseg;
	struct mlx4_ib_inline inl;
	u64 total = 0;
	int i;

	if (wr->send_flags & IB_SEND_INLINE) {
		/* a u64 sum of u32 lengths cannot wrap; the WQE was sized for the limit */
		for (i = 0; i < wr->num_sge; i++)
			total += wr->sg_list[i].length;
		if (total > qp->max_inline_data ||
		    off + mlx4_ib_inline_room(total) > (1 << qp->sq.wqe_shift)) {
			mlx4_ib_warn_rl(qp->dev, "post_send: QP 0x%x: %llu inline bytes, max %d\n",
					qp->ibqp.qp_num, total, qp->max_inline_data);
			return -EINVAL;
		}
		mlx4_ib_inline_start(&inl, wqe, off);
		for (i = 0; i < wr->num_sge; i++)
			mlx4_ib_inline_add(&inl, (void *)(uintptr_t)wr->sg_list[i].addr,
					   wr->sg_list[i].length);
		return mlx4_ib_inline_end(&inl);
	}
	dseg = wqe + off;
	mlx4_ib_set_gather_segs(dseg, wr->sg_list, wr->num_sge);
	return off + wr->num_sge * sizeof(*dseg);
}

/*
 * The LSO segment of a UD WQE at off: MSS << 16 | header length, then the
 * packet headers the card replicates into every segment, padded to 16
 * bytes.  Returns its size, or -EINVAL if it and the gather list do not
 * fit the WQE (an LSO QP keeps MLX4_IB_LSO_HEADER_SPARE for it).
 */
static int mlx4_ib_set_lso_seg(struct mlx4_ib_qp *qp, const struct ib_ud_wr *ud,
			       void *wqe, int off)
{
	__be32 *seg = wqe + off;
	int len = ALIGN(sizeof(*seg) + ud->hlen, 16);

	if (!ud->header || !ud->hlen || !ud->mss ||
	    off + len + ud->wr.num_sge * (int)sizeof(struct mlx4_hw_data_seg) >
	    (1 << qp->sq.wqe_shift))
		return -EINVAL;
	memcpy(seg + 1, ud->header, ud->hlen);
	*seg = cpu_to_be32(ud->mss << 16 | ud->hlen);
	return len;
}

/* An RC, UC or UD WQE except the owner bit; returns its size or -errno. */
static int mlx4_ib_build_wqe(struct mlx4_ib_qp *qp, const struct ib_send_wr *wr,
			     void *wqe, int opcode)
{
	struct mlx4_hw_ctrl_seg *ctrl = wqe;
	struct mlx4_hw_datagram_seg *dgram;
	struct mlx4_hw_raddr_seg *raddr;
	struct mlx4_hw_atomic_seg *atomic;
	int off = sizeof(*ctrl);
	bool inline_ok = true;
	u32 srcrb = 0;
	int size, err;

	switch (opcode) {
	case MLX4_HW_OPCODE_RDMA_WRITE:
	case MLX4_HW_OPCODE_RDMA_WRITE_IMM:
	case MLX4_HW_OPCODE_RDMA_READ:
		raddr = wqe + off;
		raddr->raddr = cpu_to_be64(rdma_wr(wr)->remote_addr);
		raddr->rkey = cpu_to_be32(rdma_wr(wr)->rkey);
		raddr->reserved = 0;
		off += sizeof(*raddr);
		inline_ok = opcode != MLX4_HW_OPCODE_RDMA_READ;
		break;
	case MLX4_HW_OPCODE_ATOMIC_CS:
	case MLX4_HW_OPCODE_ATOMIC_FA:
		if (wr->num_sge != 1 || wr->sg_list[0].length < 8)
			return -EINVAL;
		raddr = wqe + off;
		raddr->raddr = cpu_to_be64(atomic_wr(wr)->remote_addr);
		raddr->rkey = cpu_to_be32(atomic_wr(wr)->rkey);
		raddr->reserved = 0;
		off += sizeof(*raddr);
		atomic = wqe + off;
		if (opcode == MLX4_HW_OPCODE_ATOMIC_CS) {
			atomic->swap_add = cpu_to_be64(atomic_wr(wr)->swap);
			atomic->compare = cpu_to_be64(atomic_wr(wr)->compare_add);
		} else {
			atomic->swap_add = cpu_to_be64(atomic_wr(wr)->compare_add);
			atomic->compare = 0;
		}
		off += sizeof(*atomic);
		inline_ok = false;
		break;
	case MLX4_HW_OPCODE_FMR:
		err = mlx4_ib_set_reg_seg(qp, reg_wr(wr), wqe + off);
		if (err)
			return err;
		off += sizeof(struct mlx4_hw_fmr_seg);
		srcrb = MLX4_HW_CTRL_STRONG_ORDER;
		inline_ok = false;
		break;
	case MLX4_HW_OPCODE_BIND_MW:
		err = mlx4_ib_set_bind_seg(qp, wr, wqe + off);
		if (err)
			return err;
		off += sizeof(struct mlx4_hw_bind_seg);
		srcrb = MLX4_HW_CTRL_STRONG_ORDER;
		inline_ok = false;
		break;
	case MLX4_HW_OPCODE_LOCAL_INVAL:
		mlx4_ib_set_local_inv_seg(wqe + off, wr->ex.invalidate_rkey);
		off += sizeof(struct mlx4_hw_local_inval_seg);
		srcrb = MLX4_HW_CTRL_STRONG_ORDER;
		inline_ok = false;
		break;
	default:
		break;
	}

	if (qp->ibqp.qp_type == IB_QPT_UD) {
		const struct ib_ud_wr *ud = ud_wr(wr);

		if (!ud->ah)
			return -EINVAL;
		dgram = wqe + off;
		memcpy(&dgram->av, &to_mah(ud->ah)->av, sizeof(dgram->av));
		dgram->dqpn = cpu_to_be32(ud->remote_qpn & 0xffffff);
		dgram->qkey = cpu_to_be32(ud->remote_qkey);
		dgram->vlan = 0;
		memset(dgram->mac, 0, sizeof(dgram->mac));
		off += sizeof(*dgram);
		if (opcode == MLX4_HW_OPCODE_LSO) {
			err = mlx4_ib_set_lso_seg(qp, ud, wqe, off);
			if (err < 0)
				return err;
			off += err;
			inline_ok = false;
		}
	}

	if ((wr->send_flags & IB_SEND_INLINE) && !inline_ok)
		return -EINVAL;
	/* the memory-management WQEs carry no data (strong order: after the earlier ones) */
	if (srcrb & MLX4_HW_CTRL_STRONG_ORDER) {
		if (wr->num_sge)
			return -EINVAL;
		size = off;
	} else {
		size = mlx4_ib_set_gather(qp, wr, wqe, off);
		if (size < 0)
			return size;
	}

	if (qp->sq_signal_all || (wr->send_flags & IB_SEND_SIGNALED))
		srcrb |= MLX4_HW_CTRL_CQ_UPDATE;
	if (wr->send_flags & IB_SEND_SOLICITED)
		srcrb |= MLX4_HW_CTRL_SOLICITED;
	/* the XRC SRQ the target takes the receive from (<ibstack/ext.h>) */
	if (qp->ibqp.qp_type == IB_QPT_XRC_INI)
		srcrb |= ibstack_xrc_wr(wr)->remote_srqn << 8;
	if (wr->send_flags & IB_SEND_IP_CSUM)
		srcrb |= MLX4_HW_CTRL_IP_CSUM | MLX4_HW_CTRL_TCP_UDP_CSUM;
	ctrl->srcrb_flags = cpu_to_be32(srcrb);
	if (opcode == MLX4_HW_OPCODE_SEND_IMM || opcode == MLX4_HW_OPCODE_RDMA_WRITE_IMM)
		ctrl->imm = wr->ex.imm_data;
	else if (opcode == MLX4_HW_OPCODE_SEND_INVAL)
		ctrl->imm = cpu_to_be32(wr->ex.invalidate_rkey);
	else
		ctrl->imm = 0;
	return size;
}

static const char *mlx4_ib_post_err(int err)
{
	return err == -ENOMEM ? "queue full" : "bad work request";
}

int mlx4_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr)
{
	struct mlx4_ib_qp *qp = to_mqp(ibqp);
	struct mlx4_ib_dev *dev = qp->dev;
	struct mlx4_hw_ctrl_seg *ctrl;
	enum ib_qp_state state;
	unsigned long flags;
	unsigned int ind;
	int nreq = 0, err = 0, size, opcode;
	void *wqe;

	/* a user QP's queues are libmlx4's */
	if (unlikely(qp->uctx)) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&qp->sq.lock, flags);
	if (unlikely(mlx4_is_internal_error(dev->dev))) {
		err = mlx4_ib_post_send_dead(qp, wr, bad_wr);
		goto out;
	}
	state = READ_ONCE(qp->state);
	if (state == IB_QPS_RESET || state == IB_QPS_INIT || state == IB_QPS_RTR) {
		mlx4_ib_warn_rl(dev, "post_send: QP 0x%x in state %d\n", ibqp->qp_num, state);
		err = -EINVAL;
		*bad_wr = wr;
		goto out;
	}

	ind = qp->sq.head;
	for (; wr; wr = wr->next, nreq++) {
		if (mlx4_ib_wq_overflow(&qp->sq, nreq, qp->scq)) {
			err = -ENOMEM;
			goto bad;
		}
		if (wr->num_sge < 0 || wr->num_sge > qp->sq.max_gs ||
		    (wr->num_sge && !wr->sg_list)) {
			err = -EINVAL;
			goto bad;
		}
		opcode = mlx4_ib_wqe_opcode(qp, wr);
		if (opcode < 0) {
			err = opcode;
			goto bad;
		}

		wqe = mlx4_ib_get_send_wqe(qp, ind & (qp->sq.wqe_cnt - 1));
		ctrl = wqe;
		if (qp->is_sqp)
			size = mlx4_ib_build_mlx_wqe(qp, wr, wqe, &opcode);
		else
			size = mlx4_ib_build_wqe(qp, wr, wqe, opcode);
		if (size < 0) {
			err = size;
			goto bad;
		}
		if (size > (1 << qp->sq.wqe_shift) || size > MLX4_HW_WQE_MAX_SIZE) {
			err = -EINVAL;
			goto bad;
		}
		qp->sq.wrid[ind & (qp->sq.wqe_cnt - 1)] = wr->wr_id;
		ctrl->fence_size = (size / 16) |
				   (wr->send_flags & IB_SEND_FENCE ? MLX4_HW_CTRL_FENCE : 0);
		/* the WQE is complete before the card may see its owner bit */
		dma_wmb();
		/* an LSO header beyond the first 64 bytes: BLH */
		if (opcode == MLX4_HW_OPCODE_LSO &&
		    ALIGN(sizeof(__be32) + ud_wr(wr)->hlen, 16) > 64)
			opcode |= MLX4_HW_WQE_BLH;
		ctrl->owner_opcode = cpu_to_be32(opcode |
						 (ind & qp->sq.wqe_cnt ? MLX4_HW_WQE_OWNER : 0));
		/* the last one's after the doorbell, for latency */
		if (wr->next)
			mlx4_ib_stamp_send_wqe(qp, ind + qp->sq_spare_wqes);
		ind++;
	}
	goto out;

bad:
	mlx4_ib_warn_rl(dev, "post_send: QP 0x%x: %s (opcode %d, %d SGEs, flags 0x%x): %d\n",
			ibqp->qp_num, mlx4_ib_post_err(err), wr->opcode, wr->num_sge,
			wr->send_flags, err);
	*bad_wr = wr;
out:
	if (nreq) {
		qp->sq.head += nreq;
		/* the WQEs are written before the doorbell */
		wmb();
		iowrite32be(qp->mqp.qpn << 8, dev->uar_map + MLX4_SEND_DOORBELL);
		mlx4_ib_stamp_send_wqe(qp, qp->sq.head + qp->sq_spare_wqes - 1);
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	return err;
}

int mlx4_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct mlx4_ib_qp *qp = to_mqp(ibqp);
	struct mlx4_ib_dev *dev = qp->dev;
	struct mlx4_hw_data_seg *scat;
	unsigned long flags;
	unsigned int ind;
	int nreq = 0, err = 0;

	if (unlikely(qp->uctx)) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	if (!qp->has_rq) {
		mlx4_ib_warn_rl(dev, "post_recv: QP 0x%x receives from an SRQ\n", ibqp->qp_num);
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->rq.lock, flags);
	if (unlikely(mlx4_is_internal_error(dev->dev))) {
		err = mlx4_ib_post_recv_dead(qp, wr, bad_wr);
		goto out;
	}
	if (READ_ONCE(qp->state) == IB_QPS_RESET) {
		mlx4_ib_warn_rl(dev, "post_recv: QP 0x%x in RESET\n", ibqp->qp_num);
		err = -EINVAL;
		*bad_wr = wr;
		goto out;
	}

	ind = qp->rq.head;
	for (; wr; wr = wr->next, nreq++) {
		if (mlx4_ib_wq_overflow(&qp->rq, nreq, qp->rcq)) {
			err = -ENOMEM;
			goto bad;
		}
		if (wr->num_sge < 0 || wr->num_sge > qp->rq.max_gs ||
		    (wr->num_sge && !wr->sg_list)) {
			err = -EINVAL;
			goto bad;
		}
		scat = mlx4_ib_get_recv_wqe(qp, ind & (qp->rq.wqe_cnt - 1));
		mlx4_ib_set_scatter(scat, wr->sg_list, wr->num_sge, qp->rq.max_gs);
		qp->rq.wrid[ind & (qp->rq.wqe_cnt - 1)] = wr->wr_id;
		ind++;
	}
	goto out;

bad:
	mlx4_ib_warn_rl(dev, "post_recv: QP 0x%x: %s (%d SGEs): %d\n", ibqp->qp_num,
			mlx4_ib_post_err(err), wr->num_sge, err);
	*bad_wr = wr;
out:
	if (nreq) {
		qp->rq.head += nreq;
		/* the WQEs are written before the doorbell record */
		wmb();
		*qp->db.db = cpu_to_be32(qp->rq.head & 0xffff);
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	return err;
}

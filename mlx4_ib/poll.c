// SPDX-License-Identifier: GPL-2.0
/*
 * poll_cq: turn CQEs into work completions.  [any]: runs under the CQ's
 * spinlock with interrupts off, never sleeps.  The QP of a CQE is found by
 * its QPN in the device's table; destroy_qp cleans the QP's CQEs out of its
 * CQs (giving SRQ WQEs back) and removes it from the table under the locks
 * of both CQs, so under a CQ's lock a CQE's QP is either found, and stays
 * alive while the lock is held, or its CQEs are gone.
 */
#include "mlx4_ib.h"

static enum ib_wc_status mlx4_ib_wc_status(u8 syndrome)
{
	switch (syndrome) {
	case MLX4_HW_SYND_LOCAL_LENGTH:
		return IB_WC_LOC_LEN_ERR;
	case MLX4_HW_SYND_LOCAL_QP_OP:
		return IB_WC_LOC_QP_OP_ERR;
	case MLX4_HW_SYND_LOCAL_PROT:
		return IB_WC_LOC_PROT_ERR;
	case MLX4_HW_SYND_WR_FLUSH:
		return IB_WC_WR_FLUSH_ERR;
	case MLX4_HW_SYND_MW_BIND:
		return IB_WC_MW_BIND_ERR;
	case MLX4_HW_SYND_BAD_RESP:
		return IB_WC_BAD_RESP_ERR;
	case MLX4_HW_SYND_LOCAL_ACCESS:
		return IB_WC_LOC_ACCESS_ERR;
	case MLX4_HW_SYND_REMOTE_INVAL_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case MLX4_HW_SYND_REMOTE_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	case MLX4_HW_SYND_REMOTE_OP:
		return IB_WC_REM_OP_ERR;
	case MLX4_HW_SYND_RETRY_EXC:
		return IB_WC_RETRY_EXC_ERR;
	case MLX4_HW_SYND_RNR_RETRY_EXC:
		return IB_WC_RNR_RETRY_EXC_ERR;
	case MLX4_HW_SYND_REMOTE_ABORTED:
		return IB_WC_REM_ABORT_ERR;
	default:
		return IB_WC_GENERAL_ERR;
	}
}

static void mlx4_ib_wc_send(struct ib_wc *wc, const struct mlx4_hw_cqe *cqe, u8 op)
{
	switch (op) {
	case MLX4_HW_OPCODE_RDMA_WRITE_IMM:
		wc->wc_flags |= IB_WC_WITH_IMM;
		fallthrough;
	case MLX4_HW_OPCODE_RDMA_WRITE:
		wc->opcode = IB_WC_RDMA_WRITE;
		break;
	case MLX4_HW_OPCODE_SEND_IMM:
		wc->wc_flags |= IB_WC_WITH_IMM;
		fallthrough;
	case MLX4_HW_OPCODE_SEND:
	case MLX4_HW_OPCODE_SEND_INVAL:
	default:
		wc->opcode = IB_WC_SEND;
		break;
	case MLX4_HW_OPCODE_LSO:
		wc->opcode = IB_WC_LSO;
		break;
	case MLX4_HW_OPCODE_FMR:
		wc->opcode = IB_WC_REG_MR;
		break;
	case MLX4_HW_OPCODE_LOCAL_INVAL:
		wc->opcode = IB_WC_LOCAL_INV;
		break;
	case MLX4_HW_OPCODE_BIND_MW:
		wc->opcode = IB_WC_BIND_MW;
		break;
	case MLX4_HW_OPCODE_RDMA_READ:
		wc->opcode = IB_WC_RDMA_READ;
		wc->byte_len = be32_to_cpu(cqe->byte_cnt);
		break;
	case MLX4_HW_OPCODE_ATOMIC_CS:
		wc->opcode = IB_WC_COMP_SWAP;
		wc->byte_len = 8;
		break;
	case MLX4_HW_OPCODE_ATOMIC_FA:
		wc->opcode = IB_WC_FETCH_ADD;
		wc->byte_len = 8;
		break;
	}
}

/*
 * The card verified a receive's IP header and TCP/UDP checksum: the L4
 * checksum bit, or IPOK with TCP or UDP and a folded sum of 0xffff.
 */
static bool mlx4_ib_csum_ok(const struct mlx4_hw_cqe *cqe)
{
	u16 status = be16_to_cpu(cqe->status);

	if (cqe->badfcs_enc & MLX4_HW_CQE_L4_CSUM)
		return true;
	return (status & MLX4_HW_CQE_STATUS_IPOK) &&
	       (status & (MLX4_HW_CQE_STATUS_TCP | MLX4_HW_CQE_STATUS_UDP)) &&
	       cqe->checksum == cpu_to_be16(0xffff);
}

static void mlx4_ib_wc_recv(struct ib_wc *wc, const struct mlx4_hw_cqe *cqe, u8 op,
			    const struct mlx4_ib_qp *qp)
{
	u32 g_rqpn = be32_to_cpu(cqe->g_mlpath_rqpn);

	wc->byte_len = be32_to_cpu(cqe->byte_cnt);
	switch (op) {
	case MLX4_HW_RECV_RDMA_WRITE_IMM:
		wc->opcode = IB_WC_RECV_RDMA_WITH_IMM;
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->immed_rss_invalid;
		break;
	case MLX4_HW_RECV_SEND_IMM:
		wc->opcode = IB_WC_RECV;
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->immed_rss_invalid;
		break;
	case MLX4_HW_RECV_SEND_INV:
		/* the SEND invalidated this R_Key of ours */
		wc->opcode = IB_WC_RECV;
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = be32_to_cpu(cqe->immed_rss_invalid);
		break;
	default:
		wc->opcode = IB_WC_RECV;
		wc->pkey_index = be32_to_cpu(cqe->immed_rss_invalid) & 0x7f;
		break;
	}
	wc->slid = be16_to_cpu(cqe->rlid);
	wc->sl = be16_to_cpu(cqe->sl_vid) >> 12;
	wc->src_qp = g_rqpn & 0xffffff;
	wc->dlid_path_bits = (g_rqpn >> 24) & 0x7f;
	if (g_rqpn & MLX4_HW_CQE_GRH)
		wc->wc_flags |= IB_WC_GRH;
	if (mlx4_ib_csum_ok(cqe))
		wc->wc_flags |= IB_WC_IP_CSUM_OK;
	wc->port_num = qp->port;
}

/*
 * One CQE into wc.  Returns 0, -EAGAIN when the ring is empty, 1 for a CQE
 * that yields no completion (a RESIZE CQE, after which the new ring is
 * polled; a CQE whose QP is gone).
 */
static int mlx4_ib_poll_one(struct mlx4_ib_dev *dev, struct mlx4_ib_cq *cq,
			    struct ib_wc *wc)
{
	struct mlx4_hw_cqe *cqe;
	struct mlx4_ib_qp *qp;
	struct mlx4_ib_srq *srq;
	struct mlx4_ib_wq *wq;
	bool is_send, is_error;
	u16 wqe_ctr;
	u32 qpn;
	u8 op;

	cqe = mlx4_ib_next_cqe(cq, cq->cons_index);
	if (!cqe)
		return -EAGAIN;
	/* read the CQE only after its owner bit */
	dma_rmb();
	op = cqe->owner_sr_opcode & MLX4_HW_CQE_OPCODE_MASK;
	if (unlikely(op == MLX4_HW_CQE_OPCODE_RESIZE)) {
		/* the card writes into the new ring from here on */
		if (!mlx4_ib_cq_switch_ring(cq))
			cq->cons_index++;	/* no resize pending: a stray one */
		return 1;
	}
	cq->cons_index++;

	qpn = be32_to_cpu(cqe->my_qpn) & MLX4_HW_CQE_QPN_MASK;
	qp = xa_load(&dev->qps, qpn);
	if (unlikely(!qp)) {
		mlx4_ib_warn_rl(dev, "CQ 0x%x: CQE for unknown QP 0x%x dropped\n",
				cq->mcq.cqn, qpn);
		return 1;
	}

	is_send = cqe->owner_sr_opcode & MLX4_HW_CQE_IS_SEND;
	is_error = op == MLX4_HW_CQE_OPCODE_ERROR;
	wqe_ctr = be16_to_cpu(cqe->wqe_index);

	memset(wc, 0, sizeof(*wc));
	wc->qp = &qp->ibqp;
	if (is_send) {
		wq = &qp->sq;
		/* WQEs before this one completed without CQEs (unsignalled) */
		if (!qp->sq_signal_all)
			wq->tail += (u16)(wqe_ctr - (u16)wq->tail);
		wc->wr_id = wq->wrid[wq->tail & (wq->wqe_cnt - 1)];
		WRITE_ONCE(wq->tail, wq->tail + 1);
	} else if (qp->ibqp.srq || qp->ibqp.qp_type == IB_QPT_XRC_TGT) {
		/* an XRC receive names its SRQ where others have the source QP */
		srq = qp->ibqp.srq ? to_msrq(qp->ibqp.srq) :
			mlx4_ib_srq_lookup(dev, be32_to_cpu(cqe->g_mlpath_rqpn) & 0xffffff);
		if (unlikely(!srq)) {
			mlx4_ib_warn_rl(dev, "CQ 0x%x: XRC receive CQE for unknown SRQ dropped\n",
					cq->mcq.cqn);
			return 1;
		}
		wc->wr_id = srq->wrid[wqe_ctr & (srq->msrq.max - 1)];
		mlx4_ib_free_srq_wqe(srq, wqe_ctr);
	} else {
		wq = &qp->rq;
		wc->wr_id = wq->wrid[wq->tail & (wq->wqe_cnt - 1)];
		WRITE_ONCE(wq->tail, wq->tail + 1);
	}

	if (unlikely(is_error)) {
		const struct mlx4_hw_err_cqe *err = (const struct mlx4_hw_err_cqe *)cqe;

		wc->status = mlx4_ib_wc_status(err->syndrome);
		wc->vendor_err = err->vendor_err_syndrome;
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			mlx4_ib_warn_rl(dev, "QP 0x%x: %s error CQE, syndrome 0x%02x/0x%02x\n",
					qpn, is_send ? "send" : "receive",
					err->syndrome, err->vendor_err_syndrome);
		return 0;
	}

	wc->status = IB_WC_SUCCESS;
	if (is_send)
		mlx4_ib_wc_send(wc, cqe, op);
	else
		mlx4_ib_wc_recv(wc, cqe, op, qp);
	return 0;
}

int mlx4_ib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct mlx4_ib_dev *dev = to_mdev(ibcq->device);
	struct mlx4_ib_cq *cq = to_mcq(ibcq);
	unsigned long flags;
	u32 start;
	int npolled = 0;
	int ret;

	if (num_entries < 0 || (num_entries && !wc))
		return -EINVAL;
	/* a user CQ is libmlx4's to poll */
	if (unlikely(cq->uctx))
		return -EOPNOTSUPP;

	spin_lock_irqsave(&cq->lock, flags);
	if (unlikely(mlx4_is_internal_error(dev->dev))) {
		/* the card is dead: what is outstanding comes back flushed */
		npolled = mlx4_ib_poll_sw_flush(cq, num_entries, wc);
		spin_unlock_irqrestore(&cq->lock, flags);
		return npolled;
	}
	start = cq->cons_index;
	while (npolled < num_entries) {
		ret = mlx4_ib_poll_one(dev, cq, wc + npolled);
		if (ret < 0)
			break;
		if (ret == 0)
			npolled++;
	}
	if (cq->cons_index != start) {
		/* the CQEs are read before the card may reuse their slots */
		wmb();
		cq->db.db[MLX4_HW_CQ_SET_CI_DB] =
			cpu_to_be32(cq->cons_index & MLX4_HW_CQ_CI_MASK);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return npolled;
}

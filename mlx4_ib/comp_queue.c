// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues: the CQE ring (a buffer translated by MTT entries), its
 * doorbell record (consumer index, last arm command), creation on a
 * completion vector, arming, moderation, and the removal of a QP's CQEs
 * when the QP goes back to RESET.  Polling is in poll.c, resizing in
 * cq_resize.c.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/log2.h>

#include "mlx4_ib.h"

/* The CQE in the slot of index n of a ring. */
struct mlx4_hw_cqe *mlx4_ib_cqe_at(struct mlx4_ib_cq_ring *ring, u32 n)
{
	return mlx4_buf_offset(&ring->buf, (n & (ring->nent - 1)) * MLX4_HW_CQE_SIZE);
}

/* [any] The CQE with index n if software owns it, else NULL. */
struct mlx4_hw_cqe *mlx4_ib_next_cqe(struct mlx4_ib_cq *cq, u32 n)
{
	struct mlx4_hw_cqe *cqe = mlx4_ib_cqe_at(&cq->ring, n);
	bool owner = cqe->owner_sr_opcode & MLX4_HW_CQE_OWNER;

	return owner == !!(n & cq->ring.nent) ? cqe : NULL;
}

/* [any] Publish the consumer index to the card (caller holds cq->lock). */
void mlx4_ib_cq_set_ci(struct mlx4_ib_cq *cq)
{
	cq->db.db[MLX4_HW_CQ_SET_CI_DB] = cpu_to_be32(cq->cons_index & MLX4_HW_CQ_CI_MASK);
}

static void mlx4_ib_cq_comp(struct mlx4_cq *mcq)
{
	struct mlx4_ib_cq *cq = container_of(mcq, struct mlx4_ib_cq, mcq);

	atomic_inc(&cq->arm_sn);
	clear_bit(MLX4_IB_CQ_ARMED, &cq->sw_flags);
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

static void mlx4_ib_cq_event(struct mlx4_cq *mcq, enum mlx4_event type)
{
	struct mlx4_ib_cq *cq = container_of(mcq, struct mlx4_ib_cq, mcq);
	struct ib_event ev;

	if (type != MLX4_EVENT_TYPE_CQ_ERROR) {
		pr_warn_ratelimited(DRV_NAME ": unexpected event %d on CQ 0x%x\n",
				    type, mcq->cqn);
		return;
	}
	if (!cq->ibcq.event_handler)
		return;
	ev.device = cq->ibcq.device;
	ev.event = IB_EVENT_CQ_ERR;
	ev.element.cq = &cq->ibcq;
	cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/* [sleep] A ring of nent CQEs with its MTT; every CQE starts hardware-owned. */
int mlx4_ib_alloc_cq_ring(struct mlx4_ib_dev *dev, struct mlx4_ib_cq_ring *ring, u32 nent)
{
	u32 i;
	int err;

	ring->nent = nent;
	err = mlx4_buf_alloc(dev->dev, nent * MLX4_HW_CQE_SIZE, 2 * PAGE_SIZE, &ring->buf);
	if (err)
		return err;
	for (i = 0; i < nent; i++)
		mlx4_ib_cqe_at(ring, i)->owner_sr_opcode = MLX4_HW_CQE_OWNER;
	err = mlx4_mtt_init(dev->dev, ring->buf.npages, ring->buf.page_shift, &ring->mtt);
	if (err)
		goto err_buf;
	err = mlx4_buf_write_mtt(dev->dev, &ring->mtt, &ring->buf);
	if (err)
		goto err_mtt;
	return 0;

err_mtt:
	mlx4_mtt_cleanup(dev->dev, &ring->mtt);
err_buf:
	mlx4_buf_free(dev->dev, nent * MLX4_HW_CQE_SIZE, &ring->buf);
	return err;
}

/* [sleep] The card no longer writes into the ring. */
void mlx4_ib_free_cq_ring(struct mlx4_ib_dev *dev, struct mlx4_ib_cq_ring *ring)
{
	mlx4_mtt_cleanup(dev->dev, &ring->mtt);
	mlx4_buf_free(dev->dev, ring->nent * MLX4_HW_CQE_SIZE, &ring->buf);
}

struct ib_cq *mlx4_ib_create_cq(struct ib_device *ibdev, const struct ib_cq_init_attr *attr,
				struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(ibdev);
	int nvec = dev->dev->caps.num_comp_vectors;
	struct mlx4_ib_cq *cq;
	u32 nent;
	int err;

	if (udata) {
		mlx4_ib_warn_rl(dev, "create_cq: user CQs are not supported yet\n");
		return ERR_PTR(-EOPNOTSUPP);
	}
	/* a ring of max_cqes + 1 entries holds max_cqes CQEs */
	if (attr->flags || attr->cqe < 1 ||
	    attr->cqe > (unsigned int)dev->dev->caps.max_cqes) {
		mlx4_ib_warn_rl(dev, "create_cq: %u entries or flags 0x%x not supported\n",
				attr->cqe, attr->flags);
		return ERR_PTR(-EINVAL);
	}
	nent = roundup_pow_of_two(attr->cqe + 1);

	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_mutex);
	INIT_LIST_HEAD(&cq->send_qp_list);
	INIT_LIST_HEAD(&cq->recv_qp_list);
	cq->ibcq.cqe = nent - 1;
	atomic_set(&cq->arm_sn, 1);

	err = mlx4_db_alloc(dev->dev, &cq->db, 1);
	if (err)
		goto err_cq;
	cq->db.db[MLX4_HW_CQ_SET_CI_DB] = 0;
	cq->db.db[MLX4_HW_CQ_ARM_DB] = 0;

	err = mlx4_ib_alloc_cq_ring(dev, &cq->ring, nent);
	if (err)
		goto err_db;

	cq->mcq.comp = mlx4_ib_cq_comp;
	cq->mcq.event = mlx4_ib_cq_event;
	err = mlx4_cq_alloc(dev->dev, nent, &cq->ring.mtt, dev->uar, cq->db.dma, &cq->mcq,
			    nvec > 0 ? attr->comp_vector % nvec : 0);
	if (err)
		goto err_ring;
	return &cq->ibcq;

err_ring:
	mlx4_ib_free_cq_ring(dev, &cq->ring);
err_db:
	mlx4_db_free(dev->dev, &cq->db);
err_cq:
	kfree(cq);
	return ERR_PTR(err);
}

int mlx4_ib_destroy_cq(struct ib_cq *ibcq)
{
	struct mlx4_ib_dev *dev = to_mdev(ibcq->device);
	struct mlx4_ib_cq *cq = to_mcq(ibcq);

	mlx4_cq_free(dev->dev, &cq->mcq);
	mlx4_ib_cq_free_rings(dev, cq);
	mlx4_db_free(dev->dev, &cq->db);
	kfree(cq);
	return 0;
}

int mlx4_ib_modify_cq(struct ib_cq *ibcq, u16 cq_count, u16 cq_period)
{
	struct mlx4_ib_cq *cq = to_mcq(ibcq);

	return mlx4_cq_modify(to_mdev(ibcq->device)->dev, &cq->mcq, cq_count, cq_period);
}

/* [any] Arm the CQ for the next (solicited) completion. */
int mlx4_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct mlx4_ib_dev *dev = to_mdev(ibcq->device);
	struct mlx4_ib_cq *cq = to_mcq(ibcq);
	u32 sn = atomic_read(&cq->arm_sn) & 3;
	unsigned long irqflags;
	__be32 db[2];
	u32 cmd, ci;
	int missed = 0;

	cmd = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
	      MLX4_HW_CQ_DB_REQ_NOT_SOL : MLX4_HW_CQ_DB_REQ_NOT;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (unlikely(mlx4_is_internal_error(dev->dev))) {
		/* the card is dead: the software flush is what completes */
		missed = mlx4_ib_arm_dead(cq, flags);
		spin_unlock_irqrestore(&cq->lock, irqflags);
		return missed;
	}
	set_bit(MLX4_IB_CQ_ARMED, &cq->sw_flags);
	ci = cq->cons_index & MLX4_HW_CQ_CI_MASK;
	cq->db.db[MLX4_HW_CQ_ARM_DB] = cpu_to_be32(sn << MLX4_HW_CQ_SN_SHIFT | cmd | ci);
	/* the record must be visible before the doorbell */
	wmb();
	db[0] = cpu_to_be32(sn << MLX4_HW_CQ_SN_SHIFT | cmd | cq->mcq.cqn);
	db[1] = cpu_to_be32(ci);
	mlx4_write64(db, dev->uar_map + MLX4_CQ_DOORBELL, dev->dev);
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && mlx4_ib_next_cqe(cq, cq->cons_index))
		missed = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}

/* Two CQs locked in CQN order (one lock when they are the same CQ). */
void mlx4_ib_cq_lock_pair(struct mlx4_ib_cq *a, struct mlx4_ib_cq *b, unsigned long *flags)
	__acquires(&a->lock) __acquires(&b->lock)
{
	if (a == b) {
		spin_lock_irqsave(&a->lock, *flags);
		__acquire(&b->lock);
	} else if (a->mcq.cqn < b->mcq.cqn) {
		spin_lock_irqsave(&a->lock, *flags);
		spin_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
	} else {
		spin_lock_irqsave(&b->lock, *flags);
		spin_lock_nested(&a->lock, SINGLE_DEPTH_NESTING);
	}
}

void mlx4_ib_cq_unlock_pair(struct mlx4_ib_cq *a, struct mlx4_ib_cq *b, unsigned long flags)
	__releases(&a->lock) __releases(&b->lock)
{
	if (a == b) {
		__release(&b->lock);
		spin_unlock_irqrestore(&a->lock, flags);
	} else if (a->mcq.cqn < b->mcq.cqn) {
		spin_unlock(&b->lock);
		spin_unlock_irqrestore(&a->lock, flags);
	} else {
		spin_unlock(&a->lock);
		spin_unlock_irqrestore(&b->lock, flags);
	}
}

/*
 * Remove every CQE of QP qpn that is still unpolled, keeping the others in
 * order (receive CQEs from an SRQ give their WQE back).  The QP is in
 * RESET, so no new ones come.  Caller holds cq->lock.
 */
void mlx4_ib_cq_clean(struct mlx4_ib_cq *cq, u32 qpn, struct mlx4_ib_srq *srq)
{
	struct mlx4_hw_cqe *cqe, *dest;
	u32 prod, nfreed = 0;
	u8 owner;

	lockdep_assert_held(&cq->lock);

	/* CQEs behind a RESIZE CQE are in the new ring: move over first */
	if (cq->resize_pending)
		mlx4_ib_cq_switch_ring(cq);

	for (prod = cq->cons_index; mlx4_ib_next_cqe(cq, prod); prod++)
		if (prod == cq->cons_index + cq->ring.nent - 1)
			break;
	dma_rmb();

	/* walk back, sliding the survivors over the removed entries */
	while ((int)(--prod) - (int)cq->cons_index >= 0) {
		cqe = mlx4_ib_cqe_at(&cq->ring, prod);
		if ((be32_to_cpu(cqe->my_qpn) & MLX4_HW_CQE_QPN_MASK) == qpn) {
			if (srq && !(cqe->owner_sr_opcode & MLX4_HW_CQE_IS_SEND))
				mlx4_ib_free_srq_wqe(srq, be16_to_cpu(cqe->wqe_index));
			nfreed++;
		} else if (nfreed) {
			dest = mlx4_ib_cqe_at(&cq->ring, prod + nfreed);
			owner = dest->owner_sr_opcode & MLX4_HW_CQE_OWNER;
			memcpy(dest, cqe, MLX4_HW_CQE_SIZE);
			dest->owner_sr_opcode = owner |
				(cqe->owner_sr_opcode & ~MLX4_HW_CQE_OWNER);
		}
	}
	if (nfreed) {
		cq->cons_index += nfreed;
		/* the moved entries before the new consumer index */
		wmb();
		mlx4_ib_cq_set_ci(cq);
	}
}

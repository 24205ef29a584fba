// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues: the CQE ring (a buffer translated by MTT entries), its
 * doorbell record (consumer index, last arm command), creation on a
 * completion vector, arming, moderation, and the removal of a QP's CQEs
 * when the QP goes back to RESET.  Polling is in poll.c, resizing in
 * cq_resize.c.  A user CQ's ring and record are in its process's memory
 * (pinned), on its context's UAR: libmlx4 polls and arms it.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/log2.h>
#include <rdma/ib_user_verbs.h>

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
	ring->umem = NULL;
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

/*
 * [sleep] A user CQ's ring of nent CQEs at buf_addr: pinned writable (the
 * card writes CQEs), and its MTT.  libmlx4 gave every CQE to the card.
 */
int mlx4_ib_pin_cq_ring(struct mlx4_ib_dev *dev, struct mlx4_ib_cq_ring *ring, u64 buf_addr,
			u32 nent)
{
	int err;

	ring->nent = nent;
	ring->umem = ib_umem_get(&dev->ib_dev, buf_addr, (size_t)nent * MLX4_HW_CQE_SIZE,
				 IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(ring->umem)) {
		err = PTR_ERR(ring->umem);
		ring->umem = NULL;
		mlx4_ib_warn_rl(dev, "CQ ring of %u CQEs at 0x%llx: pinning failed (%d)\n",
				nent, buf_addr, err);
		return err;
	}
	err = mlx4_ib_umem_mtt(dev, ring->umem, &ring->mtt);
	if (err) {
		ib_umem_release(ring->umem);
		ring->umem = NULL;
	}
	return err;
}

/* [sleep] The card no longer writes into the ring. */
void mlx4_ib_free_cq_ring(struct mlx4_ib_dev *dev, struct mlx4_ib_cq_ring *ring)
{
	mlx4_mtt_cleanup(dev->dev, &ring->mtt);
	if (ring->umem) {
		ib_umem_release(ring->umem);
		ring->umem = NULL;
	} else {
		mlx4_buf_free(dev->dev, ring->nent * MLX4_HW_CQE_SIZE, &ring->buf);
	}
}

/*
 * [sleep] A user CQ's ring and record, from the command's driver data
 * (struct mlx4_ib_create_cq); its number goes back in the answer.
 */
static int mlx4_ib_user_cq_buffers(struct mlx4_ib_dev *dev, struct mlx4_ib_cq *cq,
				   u32 nent, struct ib_udata *udata)
{
	struct mlx4_ib_create_cq ucmd;
	int err;

	cq->uctx = mlx4_ib_udata_ucontext(dev, udata);
	if (!cq->uctx)
		return -EINVAL;
	err = mlx4_ib_copy_cmd(dev, &ucmd, sizeof(ucmd), udata, "create_cq");
	if (err)
		return err;
	err = mlx4_ib_pin_cq_ring(dev, &cq->ring, ucmd.buf_addr, nent);
	if (err)
		return err;
	/* two dwords: set_ci and arm */
	err = mlx4_ib_db_map_user(cq->uctx, ucmd.db_addr, 2 * sizeof(__be32), &cq->udb);
	if (err)
		mlx4_ib_free_cq_ring(dev, &cq->ring);
	return err;
}

/* [sleep] A kernel CQ's ring and record. */
static int mlx4_ib_kernel_cq_buffers(struct mlx4_ib_dev *dev, struct mlx4_ib_cq *cq, u32 nent)
{
	int err;

	err = mlx4_db_alloc(dev->dev, &cq->db, 1);
	if (err)
		return err;
	cq->db.db[MLX4_HW_CQ_SET_CI_DB] = 0;
	cq->db.db[MLX4_HW_CQ_ARM_DB] = 0;
	err = mlx4_ib_alloc_cq_ring(dev, &cq->ring, nent);
	if (err)
		mlx4_db_free(dev->dev, &cq->db);
	return err;
}

/* [sleep] Undo mlx4_ib_user_cq_buffers() or mlx4_ib_kernel_cq_buffers(). */
static void mlx4_ib_free_cq_buffers(struct mlx4_ib_dev *dev, struct mlx4_ib_cq *cq)
{
	mlx4_ib_cq_free_rings(dev, cq);
	if (cq->uctx)
		mlx4_ib_db_unmap_user(cq->uctx, &cq->udb);
	else
		mlx4_db_free(dev->dev, &cq->db);
}

struct ib_cq *mlx4_ib_create_cq(struct ib_device *ibdev, const struct ib_cq_init_attr *attr,
				struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(ibdev);
	int nvec = dev->dev->caps.num_comp_vectors;
	struct mlx4_uar *uar = dev->uar;
	struct mlx4_ib_create_cq_resp resp = {};
	struct mlx4_ib_cq *cq;
	u64 db_dma;
	u32 nent;
	int err;

	/*
	 * a ring of max_cqes + 1 entries holds max_cqes CQEs; user CQs may
	 * ask for completion timestamps (ibv_create_cq_ex), as upstream's
	 */
	if ((attr->flags & ~(udata ? IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION : 0)) ||
	    attr->cqe < 1 ||
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

	if (udata) {
		err = mlx4_ib_user_cq_buffers(dev, cq, nent, udata);
		if (err)
			goto err_cq;
		uar = &cq->uctx->uar;
		db_dma = cq->udb.dma;
	} else {
		err = mlx4_ib_kernel_cq_buffers(dev, cq, nent);
		if (err)
			goto err_cq;
		db_dma = cq->db.dma;
	}

	cq->mcq.comp = mlx4_ib_cq_comp;
	cq->mcq.event = mlx4_ib_cq_event;
	cq->mcq.timestamp = attr->flags & IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	err = mlx4_cq_alloc(dev->dev, nent, &cq->ring.mtt, uar, db_dma, &cq->mcq,
			    nvec > 0 ? attr->comp_vector % nvec : 0);
	if (err)
		goto err_buffers;
	if (udata) {
		resp.cqn = cq->mcq.cqn;
		err = mlx4_ib_copy_resp(udata, &resp, sizeof(resp));
		if (err)
			goto err_mcq;
	}
	return &cq->ibcq;

err_mcq:
	mlx4_cq_free(dev->dev, &cq->mcq);
err_buffers:
	mlx4_ib_free_cq_buffers(dev, cq);
err_cq:
	kfree(cq);
	return ERR_PTR(err);
}

int mlx4_ib_destroy_cq(struct ib_cq *ibcq)
{
	struct mlx4_ib_dev *dev = to_mdev(ibcq->device);
	struct mlx4_ib_cq *cq = to_mcq(ibcq);

	mlx4_cq_free(dev->dev, &cq->mcq);
	mlx4_ib_free_cq_buffers(dev, cq);
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

	/* libmlx4 arms its CQs itself, on its own UAR */
	if (unlikely(cq->uctx))
		return -EOPNOTSUPP;
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
	/* libmlx4 cleans its own CQs */
	if (WARN_ON_ONCE(cq->uctx))
		return;

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

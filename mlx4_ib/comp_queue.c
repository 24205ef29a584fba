// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues: the CQE ring (a buffer translated by MTT entries), its
 * doorbell record (consumer index, last arm command), creation on a
 * completion vector, arming, moderation, resizing, and the removal of a
 * QP's CQEs when the QP goes back to RESET.  Polling is in poll.c.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/log2.h>
#include <linux/delay.h>

#include "mlx4_ib.h"

static struct mlx4_hw_cqe *mlx4_ib_cqe_at(struct mlx4_buf *buf, u32 slot)
{
	return mlx4_buf_offset(buf, slot * MLX4_HW_CQE_SIZE);
}

/* [any] The CQE with index n if software owns it, else NULL. */
struct mlx4_hw_cqe *mlx4_ib_next_cqe(struct mlx4_ib_cq *cq, u32 n)
{
	struct mlx4_hw_cqe *cqe = mlx4_ib_cqe_at(&cq->buf, n & (cq->nent - 1));
	bool owner = cqe->owner_sr_opcode & MLX4_HW_CQE_OWNER;

	return owner == !!(n & cq->nent) ? cqe : NULL;
}

/* [any] Publish the consumer index to the card (caller holds cq->lock). */
static void mlx4_ib_cq_set_ci(struct mlx4_ib_cq *cq)
{
	cq->db.db[MLX4_HW_CQ_SET_CI_DB] = cpu_to_be32(cq->cons_index & MLX4_HW_CQ_CI_MASK);
}

static void mlx4_ib_cq_comp(struct mlx4_cq *mcq)
{
	struct mlx4_ib_cq *cq = container_of(mcq, struct mlx4_ib_cq, mcq);

	atomic_inc(&cq->arm_sn);
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

/* A CQE ring of nent entries with its MTT; every CQE starts hardware-owned. */
static int mlx4_ib_alloc_cq_buf(struct mlx4_ib_dev *dev, struct mlx4_buf *buf,
				struct mlx4_mtt *mtt, u32 nent)
{
	int size = nent * MLX4_HW_CQE_SIZE;
	u32 i;
	int err;

	err = mlx4_buf_alloc(dev->dev, size, 2 * PAGE_SIZE, buf);
	if (err)
		return err;
	for (i = 0; i < nent; i++)
		mlx4_ib_cqe_at(buf, i)->owner_sr_opcode = MLX4_HW_CQE_OWNER;
	err = mlx4_mtt_init(dev->dev, buf->npages, buf->page_shift, mtt);
	if (err)
		goto err_buf;
	err = mlx4_buf_write_mtt(dev->dev, mtt, buf);
	if (err)
		goto err_mtt;
	return 0;

err_mtt:
	mlx4_mtt_cleanup(dev->dev, mtt);
err_buf:
	mlx4_buf_free(dev->dev, size, buf);
	return err;
}

static void mlx4_ib_free_cq_buf(struct mlx4_ib_dev *dev, struct mlx4_buf *buf,
				struct mlx4_mtt *mtt, u32 nent)
{
	mlx4_mtt_cleanup(dev->dev, mtt);
	mlx4_buf_free(dev->dev, nent * MLX4_HW_CQE_SIZE, buf);
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
	if (attr->flags || attr->cqe < 1 ||
	    attr->cqe > (unsigned int)dev->dev->caps.max_cqes - 1) {
		mlx4_ib_warn_rl(dev, "create_cq: %u entries or flags 0x%x not supported\n",
				attr->cqe, attr->flags);
		return ERR_PTR(-EINVAL);
	}
	nent = roundup_pow_of_two(attr->cqe + 1);

	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&cq->lock);
	INIT_LIST_HEAD(&cq->send_qp_list);
	INIT_LIST_HEAD(&cq->recv_qp_list);
	cq->nent = nent;
	cq->buf_size = nent * MLX4_HW_CQE_SIZE;
	cq->ibcq.cqe = nent - 1;
	atomic_set(&cq->arm_sn, 1);

	err = mlx4_db_alloc(dev->dev, &cq->db, 1);
	if (err)
		goto err_cq;
	cq->db.db[MLX4_HW_CQ_SET_CI_DB] = 0;
	cq->db.db[MLX4_HW_CQ_ARM_DB] = 0;

	err = mlx4_ib_alloc_cq_buf(dev, &cq->buf, &cq->mtt, nent);
	if (err)
		goto err_db;

	cq->mcq.comp = mlx4_ib_cq_comp;
	cq->mcq.event = mlx4_ib_cq_event;
	err = mlx4_cq_alloc(dev->dev, nent, &cq->mtt, dev->uar, cq->db.dma, &cq->mcq,
			    nvec > 0 ? attr->comp_vector % nvec : 0);
	if (err)
		goto err_buf;
	return &cq->ibcq;

err_buf:
	mlx4_ib_free_cq_buf(dev, &cq->buf, &cq->mtt, nent);
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
	mlx4_ib_free_cq_buf(dev, &cq->buf, &cq->mtt, cq->nent);
	mlx4_db_free(dev->dev, &cq->db);
	kfree(cq);
	return 0;
}

int mlx4_ib_modify_cq(struct ib_cq *ibcq, u16 cq_count, u16 cq_period)
{
	struct mlx4_ib_cq *cq = to_mcq(ibcq);

	return mlx4_cq_modify(to_mdev(ibcq->device)->dev, &cq->mcq, cq_count, cq_period);
}

/*
 * After MODIFY_CQ the card has put a RESIZE CQE in the old ring and writes
 * the next CQEs into the new one, one index further.  Move what is still
 * unpolled in front of it to the same place in the new ring (index + 1),
 * step over the RESIZE CQE, and switch.  Caller holds cq->lock.
 */
static int mlx4_ib_cq_switch_buf(struct mlx4_ib_cq *cq, struct mlx4_buf *nbuf, u32 nnent)
{
	struct mlx4_hw_cqe *cqe, *ncqe;
	u32 i = cq->cons_index;
	u8 op;

	for (;;) {
		cqe = mlx4_ib_next_cqe(cq, i);
		if (!cqe)
			return -EAGAIN;		/* the RESIZE CQE is not there yet */
		dma_rmb();
		op = cqe->owner_sr_opcode & MLX4_HW_CQE_OPCODE_MASK;
		if (op == MLX4_HW_CQE_OPCODE_RESIZE)
			break;
		ncqe = mlx4_ib_cqe_at(nbuf, (i + 1) & (nnent - 1));
		memcpy(ncqe, cqe, MLX4_HW_CQE_SIZE);
		ncqe->owner_sr_opcode = (cqe->owner_sr_opcode & ~MLX4_HW_CQE_OWNER) |
					(((i + 1) & nnent) ? MLX4_HW_CQE_OWNER : 0);
		i++;
	}
	cq->cons_index++;
	swap(cq->buf, *nbuf);
	cq->nent = nnent;
	cq->ibcq.cqe = nnent - 1;
	cq->buf_size = nnent * MLX4_HW_CQE_SIZE;
	mlx4_ib_cq_set_ci(cq);
	return 0;
}

/* The number of CQEs waiting to be polled. */
static u32 mlx4_ib_cq_pending(struct mlx4_ib_cq *cq)
{
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < cq->nent && mlx4_ib_next_cqe(cq, cq->cons_index + n); n++)
		;
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int mlx4_ib_resize_cq(struct ib_cq *ibcq, int entries, struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(ibcq->device);
	struct mlx4_ib_cq *cq = to_mcq(ibcq);
	struct mlx4_mtt mtt, old_mtt;
	struct mlx4_buf buf;
	unsigned long flags;
	u32 nent, old_nent;
	int err, tries;

	if (udata || entries < 1 || entries > dev->dev->caps.max_cqes - 1)
		return -EINVAL;
	nent = roundup_pow_of_two(entries + 1);
	if (nent == cq->nent)
		return 0;
	if (mlx4_ib_cq_pending(cq) >= nent - 1) {
		mlx4_ib_warn_rl(dev, "resize_cq: CQ 0x%x holds more than %u CQEs\n",
				cq->mcq.cqn, nent - 1);
		return -EINVAL;
	}

	err = mlx4_ib_alloc_cq_buf(dev, &buf, &mtt, nent);
	if (err)
		return err;
	err = mlx4_cq_resize(dev->dev, &cq->mcq, nent, &mtt);
	if (err) {
		mlx4_ib_free_cq_buf(dev, &buf, &mtt, nent);
		return err;
	}

	old_nent = cq->nent;
	for (tries = 0; tries < 1000; tries++) {
		spin_lock_irqsave(&cq->lock, flags);
		err = mlx4_ib_cq_switch_buf(cq, &buf, nent);
		if (!err) {
			old_mtt = cq->mtt;
			cq->mtt = mtt;
		}
		spin_unlock_irqrestore(&cq->lock, flags);
		if (err != -EAGAIN)
			break;
		usleep_range(100, 200);
	}
	if (err) {
		/* the card writes into the new ring now: keep it, lose the old */
		mlx4_ib_warn(dev, "CQ 0x%x: no RESIZE CQE after MODIFY_CQ\n", cq->mcq.cqn);
		return -EIO;
	}
	/* buf now holds the old ring */
	mlx4_ib_free_cq_buf(dev, &buf, &old_mtt, old_nent);
	return 0;
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

	for (prod = cq->cons_index; mlx4_ib_next_cqe(cq, prod); prod++)
		if (prod == cq->cons_index + cq->nent - 1)
			break;
	dma_rmb();

	/* walk back, sliding the survivors over the removed entries */
	while ((int)(--prod) - (int)cq->cons_index >= 0) {
		cqe = mlx4_ib_cqe_at(&cq->buf, prod & (cq->nent - 1));
		if ((be32_to_cpu(cqe->my_qpn) & MLX4_HW_CQE_QPN_MASK) == qpn) {
			if (srq && !(cqe->owner_sr_opcode & MLX4_HW_CQE_IS_SEND))
				mlx4_ib_free_srq_wqe(srq, be16_to_cpu(cqe->wqe_index));
			nfreed++;
		} else if (nfreed) {
			dest = mlx4_ib_cqe_at(&cq->buf, (prod + nfreed) & (cq->nent - 1));
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

// SPDX-License-Identifier: GPL-2.0
/*
 * Resizing a CQ.  resize_cq allocates a new ring and hands it to the card
 * with MODIFY_CQ; the card then writes a RESIZE CQE into the old ring and
 * every later CQE into the new one, each at the index after it.  The new
 * ring takes over at that RESIZE CQE: resize_cq moves what is still
 * unpolled in front of it into the new ring (one index on) once the
 * command is done, or poll_cq meets the RESIZE CQE first, with nothing in
 * front of it.  The replaced ring is freed in process context, by
 * resize_cq or by destroy_cq; one resize at a time (resize_mutex).
 *
 * A user CQ's new ring is pinned user memory (struct mlx4_ib_resize_cq);
 * libmlx4 moves the CQEs in front of the RESIZE CQE itself, after the
 * command, from the old ring in its memory: the kernel switches to the new
 * ring and unpins the old one as soon as the card took the new one (it has
 * written the RESIZE CQE by then).
 */
#include <linux/string.h>
#include <linux/log2.h>

#include "mlx4_ib.h"

/*
 * [any] Caller holds cq->lock.  If a resize is pending and its RESIZE CQE is
 * among the CQEs software owns, move the ones in front of it into the new
 * ring, step over it and poll the new ring from now on (the old one is
 * kept in cq->retired for resize_cq or destroy_cq to free).  Returns
 * whether the rings were switched.
 */
bool mlx4_ib_cq_switch_ring(struct mlx4_ib_cq *cq)
{
	struct mlx4_ib_cq_ring *nring = &cq->resize;
	struct mlx4_hw_cqe *cqe, *ncqe;
	u32 i, n;

	lockdep_assert_held(&cq->lock);
	if (!cq->resize_pending)
		return false;
	for (n = 0; n < cq->ring.nent; n++) {
		cqe = mlx4_ib_next_cqe(cq, cq->cons_index + n);
		if (!cqe)
			return false;	/* the card has not got that far */
		/* the opcode only after the owner bit */
		dma_rmb();
		if ((cqe->owner_sr_opcode & MLX4_HW_CQE_OPCODE_MASK) ==
		    MLX4_HW_CQE_OPCODE_RESIZE)
			break;
	}
	if (n == cq->ring.nent)
		return false;

	for (i = cq->cons_index; i != cq->cons_index + n; i++) {
		cqe = mlx4_ib_cqe_at(&cq->ring, i);
		ncqe = mlx4_ib_cqe_at(nring, i + 1);
		memcpy(ncqe, cqe, MLX4_HW_CQE_SIZE);
		ncqe->owner_sr_opcode = (cqe->owner_sr_opcode & ~MLX4_HW_CQE_OWNER) |
					((i + 1) & nring->nent ? MLX4_HW_CQE_OWNER : 0);
	}
	/* the slot of the RESIZE CQE is consumed */
	cq->cons_index++;
	WARN_ON_ONCE(cq->has_retired);
	cq->retired = cq->ring;
	cq->has_retired = true;
	cq->ring = *nring;
	cq->resize_pending = false;
	cq->ibcq.cqe = cq->ring.nent - 1;
	/* the moved CQEs are in place before the card sees the consumer index */
	wmb();
	mlx4_ib_cq_set_ci(cq);
	return true;
}

/* [sleep] Free the ring a switch replaced, if any. */
static void mlx4_ib_cq_free_retired(struct mlx4_ib_dev *dev, struct mlx4_ib_cq *cq)
{
	struct mlx4_ib_cq_ring old;
	unsigned long flags;
	bool have;

	spin_lock_irqsave(&cq->lock, flags);
	have = cq->has_retired;
	old = cq->retired;
	cq->has_retired = false;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (have)
		mlx4_ib_free_cq_ring(dev, &old);
}

/* [sleep] destroy_cq, once the card no longer uses the CQ: every ring. */
void mlx4_ib_cq_free_rings(struct mlx4_ib_dev *dev, struct mlx4_ib_cq *cq)
{
	mlx4_ib_cq_free_retired(dev, cq);
	if (cq->resize_pending)
		mlx4_ib_free_cq_ring(dev, &cq->resize);
	cq->resize_pending = false;
	mlx4_ib_free_cq_ring(dev, &cq->ring);
}

/* [sleep] A user CQ's new ring, from the command's driver data. */
static int mlx4_ib_user_resize_ring(struct mlx4_ib_dev *dev, struct mlx4_ib_cq_ring *ring,
				    u32 nent, struct ib_udata *udata)
{
	struct mlx4_ib_resize_cq ucmd;
	int err;

	err = mlx4_ib_copy_cmd(dev, &ucmd, sizeof(ucmd), udata, "resize_cq");
	if (err)
		return err;
	return mlx4_ib_pin_cq_ring(dev, ring, ucmd.buf_addr, nent);
}

/* [sleep] A user CQ's new ring took over: the old one is unpinned. */
static void mlx4_ib_user_switch_ring(struct mlx4_ib_dev *dev, struct mlx4_ib_cq *cq)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	WARN_ON_ONCE(cq->has_retired);
	cq->retired = cq->ring;
	cq->has_retired = true;
	cq->ring = cq->resize;
	cq->resize_pending = false;
	cq->ibcq.cqe = cq->ring.nent - 1;
	spin_unlock_irqrestore(&cq->lock, flags);
	mlx4_ib_cq_free_retired(dev, cq);
}

/* The number of CQEs waiting to be polled. */
static u32 mlx4_ib_cq_pending(struct mlx4_ib_cq *cq)
{
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < cq->ring.nent && mlx4_ib_next_cqe(cq, cq->cons_index + n); n++)
		;
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/*
 * MODIFY_CQ failed.  A refusal leaves the card on the old ring: the new one
 * goes.  After a timeout or with the card in internal error nobody knows
 * which ring it writes into, so the new one stays pending until destroy_cq
 * (the reset comes first).
 */
static void mlx4_ib_resize_failed(struct mlx4_ib_dev *dev, struct mlx4_ib_cq *cq, int err)
{
	unsigned long flags;

	if (err == -ETIMEDOUT || mlx4_is_internal_error(dev->dev)) {
		mlx4_ib_warn_rl(dev, "resize_cq: CQ 0x%x: MODIFY_CQ failed (%d), ring kept\n",
				cq->mcq.cqn, err);
		return;
	}
	mlx4_ib_warn_rl(dev, "resize_cq: CQ 0x%x: MODIFY_CQ failed (%d)\n", cq->mcq.cqn, err);
	spin_lock_irqsave(&cq->lock, flags);
	cq->resize_pending = false;
	spin_unlock_irqrestore(&cq->lock, flags);
	mlx4_ib_free_cq_ring(dev, &cq->resize);
}

int mlx4_ib_resize_cq(struct ib_cq *ibcq, int entries, struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(ibcq->device);
	struct mlx4_ib_cq *cq = to_mcq(ibcq);
	struct mlx4_ib_cq_ring ring = {};
	unsigned long flags;
	bool switched;
	u32 nent, pending;
	int err;

	if (!udata != !cq->uctx) {
		mlx4_ib_warn_rl(dev, "resize_cq: CQ 0x%x: a %s CQ resized by a %s caller\n",
				cq->mcq.cqn, cq->uctx ? "user" : "kernel",
				udata ? "user" : "kernel");
		return -EINVAL;
	}
	if (entries < 1 || entries > dev->dev->caps.max_cqes) {
		mlx4_ib_warn_rl(dev, "resize_cq: %d entries not supported (1..%d)\n",
				entries, dev->dev->caps.max_cqes);
		return -EINVAL;
	}
	nent = roundup_pow_of_two(entries + 1);

	mutex_lock(&cq->resize_mutex);
	mlx4_ib_cq_free_retired(dev, cq);
	if (cq->resize_pending) {
		mlx4_ib_warn_rl(dev, "resize_cq: CQ 0x%x: the last resize never completed\n",
				cq->mcq.cqn);
		err = -EBUSY;
		goto out;
	}
	err = 0;
	if (nent == cq->ring.nent)
		goto out;
	if (cq->uctx) {
		/* libmlx4 knows what its ring holds (and checked it) */
		err = mlx4_ib_user_resize_ring(dev, &ring, nent, udata);
		if (err)
			goto out;
	} else {
		pending = mlx4_ib_cq_pending(cq);
		if (pending >= nent) {
			mlx4_ib_warn_rl(dev, "resize_cq: CQ 0x%x holds %u CQEs, more than %u\n",
					cq->mcq.cqn, pending, nent - 1);
			err = -EINVAL;
			goto out;
		}
		err = mlx4_ib_alloc_cq_ring(dev, &ring, nent);
		if (err)
			goto out;
	}
	spin_lock_irqsave(&cq->lock, flags);
	cq->resize = ring;
	cq->resize_pending = true;
	spin_unlock_irqrestore(&cq->lock, flags);

	err = mlx4_cq_resize(dev->dev, &cq->mcq, nent, &ring.mtt);
	if (err) {
		mlx4_ib_resize_failed(dev, cq, err);
		goto out;
	}
	if (cq->uctx) {
		mlx4_ib_user_switch_ring(dev, cq);
		goto out;
	}

	spin_lock_irqsave(&cq->lock, flags);
	mlx4_ib_cq_switch_ring(cq);
	switched = !cq->resize_pending;
	spin_unlock_irqrestore(&cq->lock, flags);
	/* the card writes the RESIZE CQE before it completes the command */
	if (!switched)
		mlx4_ib_warn(dev, "resize_cq: CQ 0x%x: no RESIZE CQE yet, poll_cq switches at it\n",
			     cq->mcq.cqn);
	mlx4_ib_cq_free_retired(dev, cq);
out:
	mutex_unlock(&cq->resize_mutex);
	return err;
}

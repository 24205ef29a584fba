// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues: WQEs linked in a free list through their "next"
 * segment (the card follows the link of each WQE it consumes), a doorbell
 * record counting posted WQEs, the limit event, and post_srq_recv.  A
 * user SRQ's ring and record are libmlx4's, pinned (the same layout: the
 * WQE stride and count follow from max_wr and max_sge as below).
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/log2.h>

#include "mlx4_ib.h"

static void *mlx4_ib_get_srq_wqe(struct mlx4_ib_srq *srq, int n)
{
	return mlx4_buf_offset(&srq->buf, n << srq->msrq.wqe_shift);
}

static void mlx4_ib_srq_event(struct mlx4_srq *msrq, enum mlx4_event type)
{
	struct mlx4_ib_srq *srq = container_of(msrq, struct mlx4_ib_srq, msrq);
	struct ib_event ev;

	switch (type) {
	case MLX4_EVENT_TYPE_SRQ_LIMIT:
		ev.event = IB_EVENT_SRQ_LIMIT_REACHED;
		break;
	case MLX4_EVENT_TYPE_SRQ_CATAS_ERROR:
		ev.event = IB_EVENT_SRQ_ERR;
		break;
	default:
		mlx4_ib_warn_rl(srq->dev, "unexpected event %d on SRQ 0x%x\n", type,
				msrq->srqn);
		return;
	}
	if (!srq->ibsrq.event_handler)
		return;
	ev.device = srq->ibsrq.device;
	ev.element.srq = &srq->ibsrq;
	srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/* [sleep] A kernel SRQ's ring (the WQEs in a free list), record and wr_ids. */
static int mlx4_ib_kernel_srq_buffers(struct mlx4_ib_dev *dev, struct mlx4_ib_srq *srq)
{
	struct mlx4_hw_srq_next_seg *next;
	struct mlx4_hw_data_seg *scat;
	int i, j, err;

	err = mlx4_db_alloc(dev->dev, &srq->db, 0);
	if (err)
		return err;
	*srq->db.db = 0;

	err = mlx4_buf_alloc(dev->dev, srq->buf_size, 2 * PAGE_SIZE, &srq->buf);
	if (err)
		goto err_db;
	srq->head = 0;
	srq->tail = srq->msrq.max - 1;
	for (i = 0; i < srq->msrq.max; i++) {
		next = mlx4_ib_get_srq_wqe(srq, i);
		next->next_wqe_index = cpu_to_be16((i + 1) & (srq->msrq.max - 1));
		scat = (struct mlx4_hw_data_seg *)(next + 1);
		for (j = 0; j < srq->max_gs; j++)
			scat[j].lkey = cpu_to_be32(MLX4_HW_INVALID_LKEY);
	}

	err = mlx4_mtt_init(dev->dev, srq->buf.npages, srq->buf.page_shift, &srq->mtt);
	if (err)
		goto err_buf;
	err = mlx4_buf_write_mtt(dev->dev, &srq->mtt, &srq->buf);
	if (err)
		goto err_mtt;

	srq->wrid = kvcalloc(srq->msrq.max, sizeof(u64), GFP_KERNEL);
	if (!srq->wrid) {
		err = -ENOMEM;
		goto err_mtt;
	}
	return 0;

err_mtt:
	mlx4_mtt_cleanup(dev->dev, &srq->mtt);
err_buf:
	mlx4_buf_free(dev->dev, srq->buf_size, &srq->buf);
err_db:
	mlx4_db_free(dev->dev, &srq->db);
	return err;
}

/*
 * [sleep] A user SRQ's ring and record from the command's driver data
 * (struct mlx4_ib_create_srq); on success the SRQ is a user SRQ.
 */
static int mlx4_ib_user_srq_buffers(struct mlx4_ib_dev *dev, struct mlx4_ib_srq *srq,
				    struct ib_udata *udata)
{
	struct mlx4_ib_ucontext *uctx = mlx4_ib_udata_ucontext(dev, udata);
	struct mlx4_ib_create_srq ucmd;
	int err;

	if (!uctx)
		return -EINVAL;
	err = mlx4_ib_copy_cmd(dev, &ucmd, sizeof(ucmd), udata, "create_srq");
	if (err)
		return err;
	/* the card reads WQEs only */
	srq->umem = ib_umem_get(&dev->ib_dev, ucmd.buf_addr, srq->buf_size, 0);
	if (IS_ERR(srq->umem)) {
		err = PTR_ERR(srq->umem);
		mlx4_ib_warn_rl(dev, "create_srq: %d bytes at 0x%llx: pinning failed (%d)\n",
				srq->buf_size, ucmd.buf_addr, err);
		goto err_umem;
	}
	err = mlx4_ib_umem_mtt(dev, srq->umem, &srq->mtt);
	if (err)
		goto err_release;
	err = mlx4_ib_db_map_user(uctx, ucmd.db_addr, sizeof(__be32), &srq->udb);
	if (err)
		goto err_mtt;
	srq->uctx = uctx;
	return 0;

err_mtt:
	mlx4_mtt_cleanup(dev->dev, &srq->mtt);
err_release:
	ib_umem_release(srq->umem);
err_umem:
	srq->umem = NULL;
	return err;
}

/* [sleep] Undo mlx4_ib_kernel_srq_buffers() or mlx4_ib_user_srq_buffers(). */
static void mlx4_ib_free_srq_buffers(struct mlx4_ib_dev *dev, struct mlx4_ib_srq *srq)
{
	mlx4_mtt_cleanup(dev->dev, &srq->mtt);
	if (srq->uctx) {
		ib_umem_release(srq->umem);
		srq->umem = NULL;
		mlx4_ib_db_unmap_user(srq->uctx, &srq->udb);
		return;
	}
	kvfree(srq->wrid);
	mlx4_buf_free(dev->dev, srq->buf_size, &srq->buf);
	mlx4_db_free(dev->dev, &srq->db);
}

struct ib_srq *mlx4_ib_create_srq(struct ib_pd *pd, struct ib_srq_init_attr *attr,
				  struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(pd->device);
	const struct mlx4_caps *caps = &dev->dev->caps;
	struct mlx4_ib_create_srq_resp resp = {};
	struct mlx4_ib_srq *srq;
	u32 cqn = 0, xrcdn = caps->reserved_xrcds;
	int desc, err;
	u64 db_dma;

	if (attr->srq_type != IB_SRQT_BASIC && attr->srq_type != IB_SRQT_XRC)
		return ERR_PTR(-EOPNOTSUPP);
	if (attr->srq_type == IB_SRQT_XRC) {
		cqn = to_mcq(attr->ext.cq)->mcq.cqn;
		xrcdn = to_mxrcd(attr->ext.xrc.xrcd)->xrcdn;
	}
	/* upstream takes max_wr 0 (one WQE) from user space */
	if (!(caps->flags & MLX4_DEV_CAP_FLAG_SRQ) ||
	    (!attr->attr.max_wr && !udata) || attr->attr.max_wr >= caps->max_srq_wqes ||
	    attr->attr.max_sge > caps->max_srq_sge) {
		mlx4_ib_warn_rl(dev, "create_srq: %u WRs, %u SGEs not supported\n",
				attr->attr.max_wr, attr->attr.max_sge);
		return ERR_PTR(-EINVAL);
	}

	srq = kzalloc(sizeof(*srq), GFP_KERNEL);
	if (!srq)
		return ERR_PTR(-ENOMEM);
	srq->dev = dev;
	spin_lock_init(&srq->lock);
	mutex_init(&srq->mutex);
	/* one more than asked: the free list's tail is never posted */
	srq->msrq.max = roundup_pow_of_two(attr->attr.max_wr + 1);
	srq->max_gs = max(1U, attr->attr.max_sge);
	desc = max_t(int, 32, roundup_pow_of_two(sizeof(struct mlx4_hw_srq_next_seg) +
						 srq->max_gs * sizeof(struct mlx4_hw_data_seg)));
	srq->msrq.wqe_shift = ilog2(desc);
	srq->buf_size = srq->msrq.max * desc;

	if (udata) {
		err = mlx4_ib_user_srq_buffers(dev, srq, udata);
		db_dma = srq->udb.dma;
	} else {
		err = mlx4_ib_kernel_srq_buffers(dev, srq);
		db_dma = srq->db.dma;
	}
	if (err)
		goto err_srq;

	srq->msrq.event = mlx4_ib_srq_event;
	err = mlx4_srq_alloc(dev->dev, to_mpd(pd)->pdn, cqn, xrcdn, &srq->mtt, db_dma,
			     &srq->msrq);
	if (err)
		goto err_buffers;
	srq->ibsrq.ext.xrc.srq_num = srq->msrq.srqn;
	if (srq->uctx) {
		resp.srqn = srq->msrq.srqn;
		err = mlx4_ib_copy_resp(udata, &resp, sizeof(resp));
	} else if (attr->srq_type == IB_SRQT_XRC) {
		/* the kernel's poll_cq finds XRC SRQs by number (not libmlx4's) */
		err = xa_insert_irq(&dev->xrc_srqs, srq->msrq.srqn, srq, GFP_KERNEL);
	}
	if (err)
		goto err_msrq;

	attr->attr.max_wr = srq->msrq.max - 1;
	attr->attr.max_sge = srq->max_gs;
	return &srq->ibsrq;

err_msrq:
	mlx4_srq_free(dev->dev, &srq->msrq);
err_buffers:
	mlx4_ib_free_srq_buffers(dev, srq);
err_srq:
	kfree(srq);
	return ERR_PTR(err);
}

int mlx4_ib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr, int mask,
		       struct ib_udata *udata)
{
	struct mlx4_ib_srq *srq = to_msrq(ibsrq);
	int err;

	/* the ring cannot be resized */
	if (mask & IB_SRQ_MAX_WR) {
		mlx4_ib_warn_rl(srq->dev, "modify_srq: resizing is not supported\n");
		return -EINVAL;
	}
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit >= srq->msrq.max) {
		mlx4_ib_warn_rl(srq->dev, "modify_srq: limit %u beyond %d WQEs\n",
				attr->srq_limit, srq->msrq.max - 1);
		return -EINVAL;
	}
	mutex_lock(&srq->mutex);
	err = mlx4_srq_arm(srq->dev->dev, &srq->msrq, attr->srq_limit);
	mutex_unlock(&srq->mutex);
	return err;
}

int mlx4_ib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct mlx4_ib_srq *srq = to_msrq(ibsrq);
	int limit = 0, err;

	mutex_lock(&srq->mutex);
	err = mlx4_srq_query(srq->dev->dev, &srq->msrq, &limit);
	mutex_unlock(&srq->mutex);
	if (err)
		return err;
	attr->srq_limit = limit;
	attr->max_wr = srq->msrq.max - 1;
	attr->max_sge = srq->max_gs;
	return 0;
}

int mlx4_ib_destroy_srq(struct ib_srq *ibsrq)
{
	struct mlx4_ib_srq *srq = to_msrq(ibsrq);
	struct mlx4_ib_dev *dev = srq->dev;
	struct mlx4_ib_cq *cq;
	unsigned long flags;

	if (ibsrq->srq_type == IB_SRQT_XRC && !srq->uctx) {
		/* a poller of its CQ finds the SRQ whole, or not at all */
		cq = to_mcq(ibsrq->ext.cq);
		spin_lock_irqsave(&cq->lock, flags);
		xa_lock(&dev->xrc_srqs);
		__xa_erase(&dev->xrc_srqs, srq->msrq.srqn);
		xa_unlock(&dev->xrc_srqs);
		spin_unlock_irqrestore(&cq->lock, flags);
	}
	mlx4_srq_free(dev->dev, &srq->msrq);
	mlx4_ib_free_srq_buffers(dev, srq);
	kfree(srq);
	return 0;
}

/* [any] under the SRQ's CQ lock: the XRC SRQ by its number, or NULL */
struct mlx4_ib_srq *mlx4_ib_srq_lookup(struct mlx4_ib_dev *dev, u32 srqn)
{
	return xa_load(&dev->xrc_srqs, srqn);
}

/* [any] A consumed WQE goes back to the end of the free list. */
void mlx4_ib_free_srq_wqe(struct mlx4_ib_srq *srq, int wqe_index)
{
	struct mlx4_hw_srq_next_seg *next;
	unsigned long flags;

	wqe_index &= srq->msrq.max - 1;
	spin_lock_irqsave(&srq->lock, flags);
	next = mlx4_ib_get_srq_wqe(srq, srq->tail);
	next->next_wqe_index = cpu_to_be16(wqe_index);
	srq->tail = wqe_index;
	spin_unlock_irqrestore(&srq->lock, flags);
}

int mlx4_ib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	struct mlx4_ib_srq *srq = to_msrq(ibsrq);
	struct mlx4_hw_srq_next_seg *next;
	struct mlx4_hw_data_seg *scat;
	unsigned long flags;
	int nreq, err = 0;

	/* a user SRQ's ring is libmlx4's */
	if (unlikely(srq->uctx)) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&srq->lock, flags);
	if (unlikely(mlx4_is_internal_error(srq->dev->dev))) {
		mlx4_ib_warn_rl(srq->dev, "post_srq_recv: device in internal error\n");
		*bad_wr = wr;
		spin_unlock_irqrestore(&srq->lock, flags);
		return -EIO;
	}
	for (nreq = 0; wr; nreq++, wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > srq->max_gs ||
		    (wr->num_sge && !wr->sg_list)) {
			err = -EINVAL;
			break;
		}
		if (srq->head == srq->tail) {
			err = -ENOMEM;
			break;
		}
		srq->wrid[srq->head] = wr->wr_id;
		next = mlx4_ib_get_srq_wqe(srq, srq->head);
		srq->head = be16_to_cpu(next->next_wqe_index);
		scat = (struct mlx4_hw_data_seg *)(next + 1);
		mlx4_ib_set_scatter(scat, wr->sg_list, wr->num_sge, srq->max_gs);
	}
	if (err) {
		mlx4_ib_warn_rl(srq->dev, "post_srq_recv: SRQ 0x%x: %s (%d SGEs)\n",
				srq->msrq.srqn, err == -ENOMEM ? "queue full" :
				"bad work request", wr->num_sge);
		*bad_wr = wr;
	}
	if (nreq) {
		srq->wqe_ctr += nreq;
		/* the WQEs are written before the doorbell record */
		wmb();
		*srq->db.db = cpu_to_be32(srq->wqe_ctr);
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}

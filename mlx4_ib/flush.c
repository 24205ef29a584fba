// SPDX-License-Identifier: GPL-2.0
/*
 * After a catastrophic error the card writes no more CQEs, yet consumers
 * tear down by waiting for their work requests to come back flushed.  So
 * poll_cq then completes every outstanding WQE of the CQ's QPs in software
 * with IB_WC_WR_FLUSH_ERR, and the catastrophic event wakes the consumers
 * of every CQ with outstanding work - from a work item: the event may come
 * from a verb whose firmware command timed out, and a completion handler
 * must never run inside a verb's call chain.
 */
#include "mlx4_ib.h"

static int mlx4_ib_flush_wq(struct mlx4_ib_qp *qp, struct mlx4_ib_wq *wq, bool is_send,
			    int num_entries, struct ib_wc *wc)
{
	int n = 0;

	while (wq->tail != wq->head && n < num_entries) {
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = wq->wrid[wq->tail & (wq->wqe_cnt - 1)];
		wc[n].status = IB_WC_WR_FLUSH_ERR;
		wc[n].opcode = is_send ? IB_WC_SEND : IB_WC_RECV;
		wc[n].qp = &qp->ibqp;
		WRITE_ONCE(wq->tail, wq->tail + 1);
		n++;
	}
	return n;
}

/* [any] Caller holds cq->lock; the device is in internal error. */
int mlx4_ib_poll_sw_flush(struct mlx4_ib_cq *cq, int num_entries, struct ib_wc *wc)
{
	struct mlx4_ib_qp *qp;
	int n = 0;

	lockdep_assert_held(&cq->lock);

	list_for_each_entry(qp, &cq->send_qp_list, cq_send_list) {
		n += mlx4_ib_flush_wq(qp, &qp->sq, true, num_entries - n, wc + n);
		if (n == num_entries)
			return n;
	}
	list_for_each_entry(qp, &cq->recv_qp_list, cq_recv_list) {
		if (!qp->has_rq)
			continue;
		n += mlx4_ib_flush_wq(qp, &qp->rq, false, num_entries - n, wc + n);
		if (n == num_entries)
			return n;
	}
	return n;
}

static void mlx4_ib_mark(struct mlx4_ib_cq *cq, struct list_head *notify)
{
	if (cq->flush_notify)
		return;
	cq->flush_notify = true;
	list_add_tail(&cq->notify_list, notify);
}

/*
 * The work item queued by the catastrophic-error event: call the
 * completion handler of every CQ with outstanding work, once each, so that
 * its consumer polls and gets the software flush.
 */
void mlx4_ib_catas_flush_work(struct work_struct *work)
{
	struct mlx4_ib_dev *dev = container_of(work, struct mlx4_ib_dev, catas_work);
	struct mlx4_ib_cq *scq, *rcq, *cq, *tmp;
	struct mlx4_ib_qp *qp;
	unsigned long flags;
	LIST_HEAD(notify);

	spin_lock_irqsave(&dev->reset_lock, flags);
	list_for_each_entry(qp, &dev->qp_list, qps_list) {
		scq = to_mcq(qp->ibqp.send_cq);
		rcq = qp->ibqp.recv_cq ? to_mcq(qp->ibqp.recv_cq) : scq;
		if (READ_ONCE(qp->sq.tail) != READ_ONCE(qp->sq.head))
			mlx4_ib_mark(scq, &notify);
		if (qp->has_rq && READ_ONCE(qp->rq.tail) != READ_ONCE(qp->rq.head))
			mlx4_ib_mark(rcq, &notify);
	}
	list_for_each_entry_safe(cq, tmp, &notify, notify_list) {
		list_del(&cq->notify_list);
		cq->flush_notify = false;
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	}
	spin_unlock_irqrestore(&dev->reset_lock, flags);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * After a catastrophic error the card writes no more CQEs, yet consumers
 * tear down by waiting for their work requests to come back flushed.  So
 * poll_cq then completes every outstanding WQE of the CQ's QPs in software
 * with IB_WC_WR_FLUSH_ERR, carrying its wr_id (or wr_cqe) unchanged, and
 * the catastrophic event wakes the consumers of every armed CQ with
 * outstanding work - from a work item: the event may come from a verb
 * whose firmware command timed out, and a completion handler must never
 * run inside a verb's call chain.
 *
 * A QP the consumer took to ERR (in software: mlx4_ib_modify_dead())
 * still takes work requests then, as the IBA has a QP in ERR do: they
 * complete flushed, after everything posted before.  That is how a drain
 * (ib_drain_qp()) ends on a dead card.  The post queues the same work
 * item, which calls the handler of the armed CQ; a CQ that is not armed
 * gets no event (its consumer polls: ib_process_cq_direct()).  Arming
 * reports a missed event while the software flush has something left.
 */
#include "mlx4_ib.h"

static int mlx4_ib_flush_wq(struct mlx4_ib_qp *qp, struct mlx4_ib_wq *wq, bool is_send,
			    int num_entries, struct ib_wc *wc)
{
	/* the wr_ids of a post on the dead card are there before its head */
	unsigned int head = smp_load_acquire(&wq->head);
	int n = 0;

	while (wq->tail != head && n < num_entries) {
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

/* [any] Something left for mlx4_ib_poll_sw_flush() (caller holds cq->lock). */
static bool mlx4_ib_sw_flush_pending(struct mlx4_ib_cq *cq)
{
	struct mlx4_ib_qp *qp;

	lockdep_assert_held(&cq->lock);

	list_for_each_entry(qp, &cq->send_qp_list, cq_send_list)
		if (READ_ONCE(qp->sq.head) != qp->sq.tail)
			return true;
	list_for_each_entry(qp, &cq->recv_qp_list, cq_recv_list)
		if (qp->has_rq && READ_ONCE(qp->rq.head) != qp->rq.tail)
			return true;
	return false;
}

/*
 * [any] req_notify_cq on a dead card (caller holds cq->lock): armed for
 * the flush work; with IB_CQ_REPORT_MISSED_EVENTS, 1 while the software
 * flush has completions to give.
 */
int mlx4_ib_arm_dead(struct mlx4_ib_cq *cq, enum ib_cq_notify_flags flags)
{
	lockdep_assert_held(&cq->lock);

	set_bit(MLX4_IB_CQ_ARMED, &cq->sw_flags);
	/* armed before looking: a post after the look finds the CQ armed */
	smp_mb__after_atomic();
	if (!(flags & IB_CQ_REPORT_MISSED_EVENTS))
		return 0;
	return mlx4_ib_sw_flush_pending(cq);
}

/* Room for nreq more WQEs in wq (the caller holds its lock). */
static bool mlx4_ib_dead_room(struct mlx4_ib_wq *wq, int nreq, struct mlx4_ib_cq *cq)
{
	unsigned int cur;

	spin_lock(&cq->lock);
	cur = wq->head - wq->tail;
	spin_unlock(&cq->lock);
	return cur + nreq < wq->max_post;
}

/*
 * A QP in ERR on a dead card takes work requests for the software flush;
 * any other fails with -EIO, as before.
 */
static int mlx4_ib_dead_state(struct mlx4_ib_qp *qp, const char *what)
{
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		return 0;
	mlx4_ib_warn_rl(qp->dev, "%s: QP 0x%x: device in internal error\n", what,
			qp->ibqp.qp_num);
	return -EIO;
}

/* The posted requests are there; the armed CQs hear of them from the work. */
static void mlx4_ib_dead_posted(struct mlx4_ib_qp *qp, struct mlx4_ib_wq *wq, int nreq)
{
	/* the wr_ids before the new head, as poll_cq reads them */
	smp_store_release(&wq->head, wq->head + nreq);
	if (nreq)
		queue_work(system_wq, &qp->dev->catas_work);
}

/*
 * One work request of a post on a dead card: its gather list checked and
 * its wr_id recorded as the queue's request nreq of this post, or -EINVAL
 * / -ENOMEM (no room, in the queue or in its CQ).
 */
static int mlx4_ib_dead_take(struct mlx4_ib_wq *wq, struct mlx4_ib_cq *cq, int nreq,
			     int num_sge, u64 wr_id)
{
	if (num_sge < 0 || num_sge > wq->max_gs)
		return -EINVAL;
	if (!mlx4_ib_dead_room(wq, nreq, cq))
		return -ENOMEM;
	wq->wrid[(wq->head + nreq) & (wq->wqe_cnt - 1)] = wr_id;
	return 0;
}

/*
 * [any] post_send on a dead card (the caller holds the SQ's lock): the
 * work requests' wr_ids are recorded, nothing reaches the card.
 */
int mlx4_ib_post_send_dead(struct mlx4_ib_qp *qp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	int nreq = 0, err;

	lockdep_assert_held(&qp->sq.lock);

	err = mlx4_ib_dead_state(qp, "post_send");
	for (; wr && !err; wr = wr->next) {
		err = mlx4_ib_dead_take(&qp->sq, qp->scq, nreq, wr->num_sge, wr->wr_id);
		if (err)
			*bad_wr = wr;
		else
			nreq++;
	}
	mlx4_ib_dead_posted(qp, &qp->sq, nreq);
	return err;
}

/* [any] post_recv on a dead card, likewise (the caller holds the RQ's lock). */
int mlx4_ib_post_recv_dead(struct mlx4_ib_qp *qp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	int nreq = 0, err;

	lockdep_assert_held(&qp->rq.lock);

	err = mlx4_ib_dead_state(qp, "post_recv");
	for (; wr && !err; wr = wr->next) {
		err = mlx4_ib_dead_take(&qp->rq, qp->rcq, nreq, wr->num_sge, wr->wr_id);
		if (err)
			*bad_wr = wr;
		else
			nreq++;
	}
	mlx4_ib_dead_posted(qp, &qp->rq, nreq);
	return err;
}

static void mlx4_ib_mark(struct mlx4_ib_cq *cq, struct list_head *notify)
{
	if (cq->flush_notify)
		return;
	cq->flush_notify = true;
	list_add_tail(&cq->notify_list, notify);
}

/*
 * The work item queued by the catastrophic-error event and by the posts
 * on the dead card: call the completion handler of every armed CQ with
 * outstanding work, once each, so that its consumer polls and gets the
 * software flush.
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
		scq = qp->scq;
		rcq = qp->rcq;
		if (READ_ONCE(qp->sq.tail) != READ_ONCE(qp->sq.head))
			mlx4_ib_mark(scq, &notify);
		if (qp->has_rq && READ_ONCE(qp->rq.tail) != READ_ONCE(qp->rq.head))
			mlx4_ib_mark(rcq, &notify);
	}
	list_for_each_entry_safe(cq, tmp, &notify, notify_list) {
		list_del(&cq->notify_list);
		cq->flush_notify = false;
		/* an event for an armed CQ only, as the card gives them */
		if (!test_and_clear_bit(MLX4_IB_CQ_ARMED, &cq->sw_flags))
			continue;
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	}
	spin_unlock_irqrestore(&dev->reset_lock, flags);
}

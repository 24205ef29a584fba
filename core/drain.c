// SPDX-License-Identifier: GPL-2.0
/*
 * The drain of a QP's queues (ib_drain_sq/rq/qp): the QP goes to ERR, so
 * what is outstanding completes flushed, in order; then one more work
 * request is posted whose own completion comes after all of them.  Its
 * done() wakes the drain, which thus returns once every earlier done() has
 * returned (the CQ's poller runs them in order, one at a time).
 *
 * A driver's drain_sq/drain_rq ops replace this.  The driver must deliver
 * the marker's completion after a catastrophic error too (mlx4_ib does,
 * from its software flush).
 */
#include <linux/completion.h>
#include <linux/module.h>
#include "core_priv.h"

struct ib_drain_cqe {
	struct ib_cqe		cqe;
	struct completion	done;
};

static void ib_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ib_drain_cqe *d = container_of(wc->wr_cqe, struct ib_drain_cqe, cqe);

	complete(&d->done);
}

/* Wait for the marker; a CQ of IB_POLL_DIRECT is polled here, every 100 ms. */
static void ib_drain_wait(struct ib_cq *cq, struct ib_drain_cqe *d)
{
	if (cq->poll_ctx != IB_POLL_DIRECT) {
		wait_for_completion(&d->done);
		return;
	}
	while (!wait_for_completion_timeout(&d->done, HZ / 10))
		ib_process_cq_direct(cq, -1);
}

static int ib_drain_to_err(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

static void ib_drain_sq_generic(struct ib_qp *qp)
{
	struct ib_drain_cqe d = { .cqe.done = ib_drain_done };
	/* a zero-length RDMA WRITE: valid on every connected QP type */
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &d.cqe,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	int ret;

	init_completion(&d.done);
	ret = ib_drain_to_err(qp);
	if (ret) {
		WARN_ONCE(ret, "ib_core: drain of QP 0x%x's send queue: to ERR: %d\n",
			  qp->qp_num, ret);
		return;
	}
	ret = ib_post_send(qp, &wr.wr, NULL);
	if (ret) {
		WARN_ONCE(ret, "ib_core: drain of QP 0x%x's send queue: post: %d\n",
			  qp->qp_num, ret);
		return;
	}
	ib_drain_wait(qp->send_cq, &d);
}

static void ib_drain_rq_generic(struct ib_qp *qp)
{
	struct ib_drain_cqe d = { .cqe.done = ib_drain_done };
	struct ib_recv_wr wr = { .wr_cqe = &d.cqe };
	int ret;

	init_completion(&d.done);
	ret = ib_drain_to_err(qp);
	if (ret) {
		WARN_ONCE(ret, "ib_core: drain of QP 0x%x's receive queue: to ERR: %d\n",
			  qp->qp_num, ret);
		return;
	}
	ret = ib_post_recv(qp, &wr, NULL);
	if (ret) {
		WARN_ONCE(ret, "ib_core: drain of QP 0x%x's receive queue: post: %d\n",
			  qp->qp_num, ret);
		return;
	}
	ib_drain_wait(qp->recv_cq, &d);
}

void ib_drain_sq(struct ib_qp *qp)
{
	if (qp->device->ops.drain_sq)
		qp->device->ops.drain_sq(qp);
	else
		ib_drain_sq_generic(qp);
}
EXPORT_SYMBOL(ib_drain_sq);

void ib_drain_rq(struct ib_qp *qp)
{
	if (qp->device->ops.drain_rq)
		qp->device->ops.drain_rq(qp);
	else
		ib_drain_rq_generic(qp);
}
EXPORT_SYMBOL(ib_drain_rq);

void ib_drain_qp(struct ib_qp *qp)
{
	ib_drain_sq(qp);
	if (!qp->srq)
		ib_drain_rq(qp);
}
EXPORT_SYMBOL(ib_drain_qp);

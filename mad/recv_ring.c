// SPDX-License-Identifier: GPL-2.0
/*
 * Receive buffers: each holds a GRH and a MAD, is DMA-mapped while the QP
 * owns it, and becomes an agent's struct ib_mad_recv_wc once received (a
 * fresh buffer takes its place on the QP).
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "mad_priv.h"

/* [any] a receive with its recv_wc pointing into itself */
struct mad_recv *mad_recv_alloc(gfp_t gfp)
{
	struct mad_recv *r = kzalloc(sizeof(*r), gfp);

	if (r)
		mad_recv_init(r);
	return r;
}

/* [any] (re)initialises the recv_wc of r as a single-buffer receive */
void mad_recv_init(struct mad_recv *r)
{
	INIT_LIST_HEAD(&r->entry);
	r->match = NULL;
	r->ev.kind = MAD_EV_RECV;
	r->rwc.wc = &r->wc;
	r->rwc.recv_buf.grh = (struct ib_grh *)r->buf;
	r->rwc.recv_buf.mad = (struct ib_mad *)(r->buf + MAD_GRH_SIZE);
	INIT_LIST_HEAD(&r->rwc.rmpp_list);
	list_add_tail(&r->rwc.recv_buf.list, &r->rwc.rmpp_list);
	r->rwc.mad_len = IB_MGMT_MAD_SIZE;
	r->rwc.mad_seg_size = IB_MGMT_MAD_SIZE;
}

/* [any] maps r and posts it on the QP; r is the QP's until it completes */
int mad_recv_post(struct mad_qp *mqp, struct mad_recv *r)
{
	struct device *dd = mqp->port->device->dma_device;
	struct ib_sge sge;
	struct ib_recv_wr wr = {};
	unsigned long flags;
	int ret;

	r->mqp = mqp;
	r->dma = dma_map_single(dd, r->buf, MAD_RECV_BUF, DMA_FROM_DEVICE);
	if (dma_mapping_error(dd, r->dma))
		return -ENOMEM;
	sge.addr = r->dma;
	sge.length = MAD_RECV_BUF;
	sge.lkey = mqp->port->pd->local_dma_lkey;
	wr.wr_id = (uintptr_t)r | 1;	/* bit 0: a receive */
	wr.sg_list = &sge;
	wr.num_sge = 1;

	spin_lock_irqsave(&mqp->rq_lock, flags);
	ret = ib_post_recv(mqp->qp, &wr, NULL);
	if (!ret) {
		list_add_tail(&r->entry, &mqp->rq_list);
		mqp->rq_posted++;
	}
	spin_unlock_irqrestore(&mqp->rq_lock, flags);
	if (ret)
		dma_unmap_single(dd, r->dma, MAD_RECV_BUF, DMA_FROM_DEVICE);
	return ret;
}

/* [any] the QP gave r back (a completion): unmap it, forget it */
void mad_recv_unmap(struct mad_recv *r)
{
	struct mad_qp *mqp = r->mqp;
	unsigned long flags;

	spin_lock_irqsave(&mqp->rq_lock, flags);
	list_del_init(&r->entry);
	mqp->rq_posted--;
	spin_unlock_irqrestore(&mqp->rq_lock, flags);
	dma_unmap_single(mqp->port->device->dma_device, r->dma, MAD_RECV_BUF,
			 DMA_FROM_DEVICE);
}

/* [sleep] posts receive buffers up to the ring size */
int mad_recv_fill(struct mad_qp *mqp)
{
	struct mad_recv *r;
	int ret;

	while (READ_ONCE(mqp->rq_posted) < MAD_RECV_RING) {
		r = mad_recv_alloc(GFP_KERNEL);
		if (!r)
			return -ENOMEM;
		ret = mad_recv_post(mqp, r);
		if (ret) {
			kfree(r);
			return ret;
		}
	}
	return 0;
}

/* [sleep] after the QP is destroyed: frees the buffers it still held */
void mad_recv_drain(struct mad_qp *mqp)
{
	struct mad_recv *r, *tmp;
	LIST_HEAD(list);

	spin_lock_irq(&mqp->rq_lock);
	list_splice_init(&mqp->rq_list, &list);
	mqp->rq_posted = 0;
	spin_unlock_irq(&mqp->rq_lock);
	list_for_each_entry_safe(r, tmp, &list, entry) {
		dma_unmap_single(mqp->port->device->dma_device, r->dma,
				 MAD_RECV_BUF, DMA_FROM_DEVICE);
		kfree(r);
	}
}

void ib_free_recv_mad(struct ib_mad_recv_wc *mad_recv_wc)
{
	struct ib_mad_recv_buf *rb, *tmp;
	struct mad_recv *first;

	if (!mad_recv_wc)
		return;
	first = container_of(mad_recv_wc, struct mad_recv, rwc);
	list_for_each_entry_safe(rb, tmp, &mad_recv_wc->rmpp_list, list) {
		struct mad_recv *seg = container_of(rb, struct mad_recv, rwc.recv_buf);

		list_del(&rb->list);
		if (seg != first)
			kfree(seg);
	}
	kfree(first);
}
EXPORT_SYMBOL(ib_free_recv_mad);

// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: shared receive queues.  The card keeps the SRQ's ring
 * geometry, its doorbell record (the count of posted WQEs) and the limit
 * watermark that ARM_SRQ sets; receive delivery consumes WQEs by following
 * each WQE's next-index link.
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_cmds.h"
#include "cx3_srq.h"

#define SRQC_SIZE		0x30

struct cx3_srq *cx3_srq_get(struct cx3_dev *dev, uint32_t srqn)
{
	if (!dev->srqs || srqn >= 1u << dev->hca.log_srqs)
		return NULL;
	return dev->srqs[srqn];
}

uint8_t cx3_cmd_sw2hw_srq(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint32_t srqn = cmd->in_mod & 0xffffff;
	struct cx3_srq *srq;
	const uint8_t *c = cmd->inbox;

	if (srqn >= 1u << dev->hca.log_srqs)
		return CX3_STAT_BAD_INDEX;
	if (dev->srqs[srqn])
		return CX3_STAT_BAD_RES_STATE;
	if (!cx3_ctx_mapped(dev, dev->hca.srqc_base, srqn, CX3_SRQC_ENTRY))
		return CX3_STAT_ICM_ERROR;
	if (cx3_cmd_inbox(dev, cmd, SRQC_SIZE))
		return CX3_STAT_BAD_PARAM;
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return CX3_STAT_EXCEED_LIM;
	memcpy(srq->ctx, c, SRQC_SIZE);
	srq->srqn = srqn;
	srq->cnt = 1u << ((cx3_get32(c, 0x00) >> 24) & 0x1f);
	srq->stride_shift = (c[0x04] & 7) + 4;
	srq->buf.page_shift = 12 + (c[0x10] & 0x1f);
	srq->buf.mtt_off = (uint64_t)c[0x13] << 32 | cx3_get32(c, 0x14);
	srq->buf.size = (uint64_t)srq->cnt << srq->stride_shift;
	srq->pd = cx3_get32(c, 0x18) & 0xffffff;
	/*
	 * A plain SRQ carries the reserved XRCD count (0, QUERY_DEV_CAP) as
	 * its domain and no CQ; an XRC SRQ its domain and the CQ that gets
	 * its receive completions, whichever QP the requests came through.
	 */
	srq->xrcd = cx3_get16(c, 0x06);
	srq->cqn = cx3_get32(c, 0x08) & 0xffffff;
	srq->limit = cx3_get16(c, 0x1c);
	srq->db_rec = cx3_get64(c, 0x28);
	if (srq->xrcd && !cx3_cq_exists(dev, srq->cqn)) {
		cx3_log(dev, "SW2HW_SRQ 0x%x: XRC SRQ of domain 0x%x with CQ 0x%x that does not exist",
			srqn, srq->xrcd, srq->cqn);
		free(srq);
		return CX3_STAT_BAD_PARAM;
	}
	if (srq->cnt > 1u << 16 ||
	    dev->host.dma_read(dev->host.opaque, srq->db_rec, NULL, 4)) {
		cx3_log(dev, "SW2HW_SRQ 0x%x: size %u or doorbell record 0x%llx invalid",
			srqn, srq->cnt, (unsigned long long)srq->db_rec);
		free(srq);
		return CX3_STAT_BAD_PARAM;
	}
	dev->srqs[srqn] = srq;
	dev->live.srq++;
	return CX3_STAT_OK;
}

static void srq_fill_ctx(struct cx3_srq *srq, uint8_t *out)
{
	memcpy(out, srq->ctx, SRQC_SIZE);
	cx3_put16(out, 0x1c, srq->limit);
	cx3_put16(out, 0x22, srq->consumed & 0xffff);
}

uint8_t cx3_cmd_hw2sw_srq(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint32_t srqn = cmd->in_mod & 0xffffff;
	struct cx3_srq *srq = cx3_srq_get(dev, srqn);

	if (!srq)
		return CX3_STAT_BAD_RES_STATE;
	if (cmd->op_mod == 0) {
		srq_fill_ctx(srq, cmd->outbox);
		cmd->out_len = SRQC_SIZE;
	}
	free(srq);
	dev->srqs[srqn] = NULL;
	dev->live.srq--;
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_query_srq(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	struct cx3_srq *srq = cx3_srq_get(dev, cmd->in_mod & 0xffffff);

	if (!srq)
		return CX3_STAT_BAD_RES_STATE;
	srq_fill_ctx(srq, cmd->outbox);
	cmd->out_len = SRQC_SIZE;
	return CX3_STAT_OK;
}

/* ARM_SRQ: in_param = limit watermark; an SRQ_LIMIT event fires once. */
uint8_t cx3_cmd_arm_srq(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	struct cx3_srq *srq = cx3_srq_get(dev, cmd->in_mod & 0xffffff);

	if (!srq)
		return CX3_STAT_BAD_RES_STATE;
	if (cmd->in_param >= srq->cnt)
		return CX3_STAT_BAD_PARAM;
	srq->limit = (uint16_t)cmd->in_param;
	return CX3_STAT_OK;
}

void cx3_srq_clear_all(struct cx3_dev *dev)
{
	uint32_t i;

	if (!dev->srqs)
		return;
	for (i = 0; i < 1u << dev->hca.log_srqs; i++) {
		if (dev->srqs[i]) {
			free(dev->srqs[i]);
			dev->srqs[i] = NULL;
			dev->live.srq--;
		}
	}
}

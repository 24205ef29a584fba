// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: completion queues.  The card writes 32-byte CQEs into a
 * ring described by MTT entries, flipping the owner bit on each wrap, reads
 * the consumer index from the CQ's doorbell record to detect overruns, and
 * raises one completion event on the CQ's EQ per arming (UAR doorbell).
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_cmds.h"

#define CQE_SIZE		32
#define CQE_OWNER		0x80
#define CQE_OPCODE_RESIZE	0x16
#define CQ_DB_REQ_SOL		1u
#define CQ_DB_REQ_NEXT		2u
#define EVENT_COMPLETION	0x00
#define EVENT_CQ_ERROR		0x04

enum cq_arm { CQ_DISARMED, CQ_ARMED_SOL, CQ_ARMED_NEXT };

struct cx3_cq {
	uint32_t cqn;
	uint32_t nent;
	struct cx3_buf buf;
	uint32_t prod;		/* CQEs written, free-running (24 bits) */
	uint32_t arm_ci;	/* consumer index given with the last arm */
	uint64_t db_rec;	/* doorbell record: u32 consumer index */
	uint8_t eqn;
	enum cq_arm arm;
	bool sol_pending;	/* a solicited CQE since the last event */
	bool errored;		/* overrun reported; the CQ is unusable */
	uint8_t ctx[CX3_CQC_ENTRY];
};

static struct cx3_cq *cq_get(struct cx3_dev *dev, uint32_t cqn)
{
	if (!dev->cqs || cqn >= 1u << dev->hca.log_cqs)
		return NULL;
	return dev->cqs[cqn];
}

bool cx3_cq_exists(struct cx3_dev *dev, uint32_t cqn)
{
	return cq_get(dev, cqn) != NULL;
}

static void cq_event(struct cx3_dev *dev, struct cx3_cq *cq)
{
	uint8_t data[24] = { 0 };

	cq->arm = CQ_DISARMED;
	cq->sol_pending = false;
	cx3_put32(data, 0, cq->cqn);
	cx3_eq_post_to(dev, cq->eqn, EVENT_COMPLETION, 0, data);
}

/*
 * Give every slot the owner value that marks it hardware-owned for the next
 * index that will land in it, counting from index first.
 */
static int cq_init_owner(struct cx3_dev *dev, const struct cx3_buf *buf,
			 uint32_t nent, uint32_t first)
{
	uint32_t i, idx;
	uint8_t owner;

	for (i = 0; i < nent; i++) {
		idx = first + ((i - first) & (nent - 1));
		owner = (idx & nent) ? 0 : CQE_OWNER;
		if (cx3_buf_write(dev, buf, (uint64_t)i * CQE_SIZE + 31, &owner, 1))
			return -1;
	}
	return 0;
}

static int cq_read_ci(struct cx3_dev *dev, struct cx3_cq *cq, uint32_t *ci)
{
	uint8_t rec[4];

	if (dev->host.dma_read(dev->host.opaque, cq->db_rec, rec, 4))
		return -1;
	*ci = cx3_get32(rec, 0) & 0xffffff;
	return 0;
}

static void cq_error(struct cx3_dev *dev, struct cx3_cq *cq, uint8_t syndrome)
{
	uint8_t data[24] = { 0 };

	if (cq->errored)
		return;
	cq->errored = true;
	cx3_log(dev, "CQ 0x%x error, syndrome %u", cq->cqn, syndrome);
	cx3_put32(data, 0, cq->cqn);
	data[11] = syndrome;
	cx3_eq_post(dev, EVENT_CQ_ERROR, 0, data);
}

/* Write one CQE (byte 31 carries is_send and the opcode; we add owner). */
int cx3_cq_push(struct cx3_dev *dev, uint32_t cqn, const uint8_t cqe[32],
		bool solicited)
{
	struct cx3_cq *cq = cq_get(dev, cqn);
	uint8_t e[CQE_SIZE];
	uint32_t ci;
	uint64_t off;

	if (!cq) {
		cx3_log(dev, "completion for missing CQ 0x%x dropped", cqn);
		return -1;
	}
	if (cq->errored)
		return -1;
	if (cq_read_ci(dev, cq, &ci) ||
	    ((cq->prod - ci) & 0xffffff) >= cq->nent) {
		cq_error(dev, cq, 1);		/* overrun */
		return -1;
	}
	memcpy(e, cqe, CQE_SIZE);
	e[31] = (e[31] & ~CQE_OWNER) | ((cq->prod & cq->nent) ? CQE_OWNER : 0);
	off = (uint64_t)(cq->prod & (cq->nent - 1)) * CQE_SIZE;
	if (cx3_buf_write(dev, &cq->buf, off, e, CQE_SIZE - 1) ||
	    cx3_buf_write(dev, &cq->buf, off + CQE_SIZE - 1, e + 31, 1)) {
		cq_error(dev, cq, 2);		/* access violation */
		return -1;
	}
	if (dev->trace)
		cx3_log(dev, "CQ 0x%x: CQE %u opcode 0x%02x QP 0x%x%s", cq->cqn,
			cq->prod, cqe[31], cx3_get32(cqe, 0) & 0xffffff,
			cq->arm != CQ_DISARMED ? " (armed)" : "");
	cq->prod = (cq->prod + 1) & 0xffffff;
	if (solicited)
		cq->sol_pending = true;
	if (cq->arm == CQ_ARMED_NEXT ||
	    (cq->arm == CQ_ARMED_SOL && cq->sol_pending))
		cq_event(dev, cq);
	return 0;
}

/* UAR +0x20: dword 0 = sn << 28 | cmd << 24 | CQN, dword 1 = consumer index */
void cx3_cq_doorbell(struct cx3_dev *dev, uint32_t dw0, uint32_t ci)
{
	struct cx3_cq *cq = cq_get(dev, dw0 & 0xffffff);
	uint32_t cmd = (dw0 >> 24) & 7;

	if (!cq) {
		cx3_log(dev, "arm doorbell for missing CQ 0x%x ignored",
			dw0 & 0xffffff);
		return;
	}
	if (cmd != CQ_DB_REQ_SOL && cmd != CQ_DB_REQ_NEXT) {
		cx3_log(dev, "CQ 0x%x doorbell command %u ignored", cq->cqn, cmd);
		return;
	}
	if (dev->trace)
		cx3_log(dev, "CQ 0x%x: arm %u at ci %u (prod %u)", cq->cqn, cmd,
			ci & 0xffffff, cq->prod);
	cq->arm_ci = ci & 0xffffff;
	cq->arm = cmd == CQ_DB_REQ_SOL ? CQ_ARMED_SOL : CQ_ARMED_NEXT;
	if (cmd == CQ_DB_REQ_NEXT)
		cq->sol_pending = false;
	/* completions already waiting beyond the armed index fire at once */
	if (cq->prod != cq->arm_ci &&
	    (cq->arm == CQ_ARMED_NEXT || cq->sol_pending))
		cq_event(dev, cq);
}

static void cq_parse(struct cx3_cq *cq, const uint8_t *c)
{
	cq->nent = 1u << ((cx3_get32(c, 0x0c) >> 24) & 0x1f);
	cq->eqn = c[0x17];
	cq->buf.page_shift = 12 + (c[0x18] & 0x1f);
	cq->buf.mtt_off = (uint64_t)c[0x1b] << 32 | cx3_get32(c, 0x1c);
	cq->buf.size = (uint64_t)cq->nent * CQE_SIZE;
}

uint8_t cx3_cmd_sw2hw_cq(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint32_t cqn = cmd->in_mod & 0xffffff;
	struct cx3_cq *cq;

	if (cqn >= 1u << dev->hca.log_cqs)
		return CX3_STAT_BAD_INDEX;
	if (dev->cqs[cqn])
		return CX3_STAT_BAD_RES_STATE;
	if (!cx3_ctx_mapped(dev, dev->hca.cqc_base, cqn, CX3_CQC_ENTRY))
		return CX3_STAT_ICM_ERROR;
	if (cx3_cmd_inbox(dev, cmd, CX3_CQC_ENTRY))
		return CX3_STAT_BAD_PARAM;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return CX3_STAT_EXCEED_LIM;
	memcpy(cq->ctx, cmd->inbox, CX3_CQC_ENTRY);
	cq->cqn = cqn;
	cq_parse(cq, cmd->inbox);
	cq->db_rec = cx3_get64(cmd->inbox, 0x38);
	cq->prod = cx3_get32(cmd->inbox, 0x2c) & 0xffffff;
	if (cq->nent > 1u << 22 || !dev->eqs || cq->eqn >= 1u << dev->hca.log_eqs ||
	    !dev->eqs[cq->eqn]) {
		cx3_log(dev, "SW2HW_CQ 0x%x: %u entries, EQ %u: invalid",
			cqn, cq->nent, cq->eqn);
		free(cq);
		return CX3_STAT_BAD_PARAM;
	}
	if (dev->host.dma_read(dev->host.opaque, cq->db_rec, NULL, 8) ||
	    (cmd->op_mod != 1 && cq_init_owner(dev, &cq->buf, cq->nent, cq->prod))) {
		cx3_log(dev, "SW2HW_CQ 0x%x: buffer or doorbell record not reachable",
			cqn);
		free(cq);
		return CX3_STAT_BAD_PARAM;
	}
	dev->cqs[cqn] = cq;
	dev->live.cq++;
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_hw2sw_cq(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint32_t cqn = cmd->in_mod & 0xffffff;
	struct cx3_cq *cq = cq_get(dev, cqn);

	if (!cq)
		return CX3_STAT_BAD_RES_STATE;
	free(cq);
	dev->cqs[cqn] = NULL;
	dev->live.cq--;
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_query_cq(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	struct cx3_cq *cq = cq_get(dev, cmd->in_mod & 0xffffff);
	uint32_t ci = 0;

	if (!cq)
		return CX3_STAT_BAD_RES_STATE;
	cq_read_ci(dev, cq, &ci);
	memcpy(cmd->outbox, cq->ctx, CX3_CQC_ENTRY);
	cx3_put32(cmd->outbox, 0x28, ci);
	cx3_put32(cmd->outbox, 0x2c, cq->prod);
	cmd->out_len = CX3_CQC_ENTRY;
	return CX3_STAT_OK;
}

/*
 * MODIFY_CQ: op_mod 0 resizes (a RESIZE CQE in the old ring, then the new
 * ring continues at the next index), op_mod 1 sets moderation, which the
 * model accepts and ignores (it never delays events).
 */
uint8_t cx3_cmd_modify_cq(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	struct cx3_cq *cq = cq_get(dev, cmd->in_mod & 0xffffff);
	struct cx3_cq next;
	uint8_t cqe[CQE_SIZE] = { 0 };

	if (!cq)
		return CX3_STAT_BAD_RES_STATE;
	if (cx3_cmd_inbox(dev, cmd, CX3_CQC_ENTRY))
		return CX3_STAT_BAD_PARAM;
	if (cmd->op_mod == 1) {
		memcpy(cq->ctx + 0x10, cmd->inbox + 0x10, 4);
		return CX3_STAT_OK;
	}
	if (cmd->op_mod != 0)
		return CX3_STAT_BAD_OP;
	next = *cq;
	cq_parse(&next, cmd->inbox);
	/*
	 * A resize gives the CQ a new buffer and size only: the drivers
	 * leave the rest of the mailbox zero (mlx4_cq_resize fills the
	 * size, page offset and shift and the MTT base), so the CQ keeps
	 * its event queue.
	 */
	next.eqn = cq->eqn;
	if (next.nent > 1u << 22)
		return CX3_STAT_BAD_PARAM;
	if (cq_init_owner(dev, &next.buf, next.nent, (cq->prod + 1) & 0xffffff))
		return CX3_STAT_BAD_PARAM;
	cx3_put32(cqe, 0, 0);
	cqe[31] = CQE_OPCODE_RESIZE;
	if (cx3_cq_push(dev, cq->cqn, cqe, false))
		return CX3_STAT_BAD_RES_STATE;
	next.prod = cq->prod;
	next.arm = cq->arm;
	next.sol_pending = cq->sol_pending;
	memcpy(next.ctx, cq->ctx, CX3_CQC_ENTRY);
	memcpy(next.ctx + 0x0c, cmd->inbox + 0x0c, 4);
	memcpy(next.ctx + 0x18, cmd->inbox + 0x18, 8);
	*cq = next;
	return CX3_STAT_OK;
}

void cx3_cq_clear_all(struct cx3_dev *dev)
{
	uint32_t i;

	if (!dev->cqs)
		return;
	for (i = 0; i < 1u << dev->hca.log_cqs; i++) {
		if (dev->cqs[i]) {
			free(dev->cqs[i]);
			dev->cqs[i] = NULL;
			dev->live.cq--;
		}
	}
}

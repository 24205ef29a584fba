// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: event queues.  SW2HW_EQ hands the card a ring of
 * 32-byte EQEs described by MTT entries; the card owns every entry until it
 * writes one, which it marks by the owner bit (the ring's wrap parity).  An
 * armed EQ interrupts once on its MSI-X vector (or INTx) and disarms; the
 * doorbell moves the consumer index and re-arms.
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_cmds.h"

#define EQE_SIZE		32
#define EQE_OWNER		0x80
#define EQ_EVENT_CMD		10
#define EQ_EVENT_OVERFLOW	0x0f

struct cx3_eq {
	uint32_t eqn;
	uint32_t nent;
	uint8_t intr;		/* MSI-X vector */
	struct cx3_buf buf;
	uint32_t prod;		/* entries written, free-running */
	uint32_t cons;		/* from the doorbell, 24 bits */
	bool armed;
	bool overflowed;
	uint64_t event_mask;	/* MAP_EQ */
	uint8_t ctx[CX3_EQC_ENTRY];
};

static struct cx3_eq *eq_get(struct cx3_dev *dev, uint32_t eqn)
{
	if (!dev->eqs || eqn >= 1u << dev->hca.log_eqs)
		return NULL;
	return dev->eqs[eqn];
}

static void eq_interrupt(struct cx3_dev *dev, struct cx3_eq *eq)
{
	eq->armed = false;
	dev->counts.interrupts++;
	if (dev->host.msix_enabled(dev->host.opaque)) {
		dev->host.msix_notify(dev->host.opaque, eq->intr);
		return;
	}
	if (!dev->intx_level) {
		dev->intx_level = true;
		dev->host.intx_set(dev->host.opaque, 1);
	}
}

/* Pending entries the consumer has not acknowledged yet (24-bit counters) */
static uint32_t eq_pending(const struct cx3_eq *eq)
{
	return (eq->prod - eq->cons) & 0xffffff;
}

/* Write one EQE at the producer index and interrupt if the EQ is armed. */
static void eq_put(struct cx3_dev *dev, struct cx3_eq *eq, uint8_t type,
		   uint8_t subtype, const uint8_t data[24])
{
	uint8_t eqe[EQE_SIZE];
	uint64_t off = (uint64_t)(eq->prod & (eq->nent - 1)) * EQE_SIZE;

	memset(eqe, 0, sizeof(eqe));
	eqe[1] = type;
	eqe[3] = subtype;
	memcpy(eqe + 4, data, 24);
	eqe[31] = (eq->prod & eq->nent) ? EQE_OWNER : 0;
	/* body first, then the byte that hands the entry to software */
	if (cx3_buf_write(dev, &eq->buf, off, eqe, EQE_SIZE - 1) ||
	    cx3_buf_write(dev, &eq->buf, off + EQE_SIZE - 1, eqe + 31, 1)) {
		cx3_log(dev, "EQ %u: cannot write entry %u", eq->eqn, eq->prod);
		return;
	}
	eq->prod++;
	if (eq->armed)
		eq_interrupt(dev, eq);
}

/*
 * The EQ's overflow event, on the EQ that overran, whatever MAP_EQ routed
 * to it.  [guess: the PRM is not at hand.  Both mlx4 drivers (and mthca
 * before them) handle type 0x0f as "EQ overrun on EQN <the EQ that
 * received it>" but never map it with MAP_EQ, so the card must report it
 * unasked, and on the overrun EQ itself; which entry it uses when the EQ
 * is really full is not known: here the first one software frees.  The
 * data (the EQN in the first dword) is ignored by the drivers.]
 */
static void eq_put_overflow(struct cx3_dev *dev, struct cx3_eq *eq)
{
	uint8_t data[24] = { 0 };

	cx3_put32(data, 0, eq->eqn);
	eq_put(dev, eq, EQ_EVENT_OVERFLOW, 0, data);
}

static void eq_write(struct cx3_dev *dev, struct cx3_eq *eq, uint8_t type,
		     uint8_t subtype, const uint8_t data[24])
{
	if (eq_pending(eq) >= eq->nent) {
		if (!eq->overflowed)
			cx3_log(dev, "EQ %u overflow: event type 0x%02x lost",
				eq->eqn, type);
		eq->overflowed = true;
		return;
	}
	/* an injected overrun: the driver left this EQ full, as it were */
	if (cx3_fault_eq_overrun(dev, eq->eqn, type)) {
		eq_put_overflow(dev, eq);
		return;
	}
	eq_put(dev, eq, type, subtype, data);
}

void cx3_eq_post_to(struct cx3_dev *dev, uint32_t eqn, uint8_t type,
		    uint8_t subtype, const uint8_t data[24])
{
	struct cx3_eq *eq = eq_get(dev, eqn);

	if (cx3_dead(dev))
		return;		/* no events after an internal error */
	if (!eq) {
		cx3_log(dev, "event 0x%02x for missing EQ %u dropped", type, eqn);
		return;
	}
	eq_write(dev, eq, type, subtype, data);
}

/* An asynchronous event goes to every EQ that MAP_EQ routed its type to. */
void cx3_eq_post(struct cx3_dev *dev, uint8_t type, uint8_t subtype,
		 const uint8_t data[24])
{
	uint32_t n, i;
	bool sent = false;

	if (!dev->eqs || cx3_dead(dev))
		return;		/* (no events after an internal error) */
	n = 1u << dev->hca.log_eqs;
	for (i = 0; i < n; i++) {
		struct cx3_eq *eq = dev->eqs[i];

		if (eq && type < 64 && (eq->event_mask >> type) & 1) {
			eq_write(dev, eq, type, subtype, data);
			sent = true;
		}
	}
	if (!sent)
		cx3_log(dev, "event 0x%02x dropped: no EQ is mapped for it", type);
}

/* EQ doorbell: bits 23:0 consumer index, bit 31 arm. */
void cx3_eq_doorbell(struct cx3_dev *dev, uint32_t eqn, uint32_t val)
{
	struct cx3_eq *eq = eq_get(dev, eqn);

	if (!eq) {
		cx3_log(dev, "doorbell for missing EQ %u ignored", eqn);
		return;
	}
	eq->cons = val & 0xffffff;
	if (eq->overflowed && eq_pending(eq) < eq->nent) {
		/* room again: the overrun is reported in the first free entry */
		eq->overflowed = false;
		eq_put_overflow(dev, eq);
	}
	if (val & (1u << 31)) {
		eq->armed = true;
		if (eq_pending(eq))
			eq_interrupt(dev, eq);
	}
}

uint8_t cx3_cmd_sw2hw_eq(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint32_t eqn = cmd->in_mod & 0x3ff;
	uint8_t owner = EQE_OWNER, log_size;
	struct cx3_eq *eq;
	uint32_t i;

	if (eqn >= 1u << dev->hca.log_eqs)
		return CX3_STAT_BAD_INDEX;
	if (dev->eqs[eqn])
		return CX3_STAT_BAD_RES_STATE;
	if (!cx3_ctx_mapped(dev, dev->hca.eqc_base, eqn, CX3_EQC_ENTRY))
		return CX3_STAT_ICM_ERROR;
	if (cx3_cmd_inbox(dev, cmd, CX3_EQC_ENTRY))
		return CX3_STAT_BAD_PARAM;
	log_size = cmd->inbox[0x0c] & 0x1f;
	if (log_size > 22 || cmd->inbox[0x17] >= CX3_MSIX_VECTORS) {
		cx3_log(dev, "SW2HW_EQ %u: log size %u or vector %u out of range",
			eqn, log_size, cmd->inbox[0x17]);
		return CX3_STAT_BAD_PARAM;
	}
	eq = calloc(1, sizeof(*eq));
	if (!eq)
		return CX3_STAT_EXCEED_LIM;
	memcpy(eq->ctx, cmd->inbox, CX3_EQC_ENTRY);
	eq->eqn = eqn;
	eq->nent = 1u << log_size;
	eq->intr = cmd->inbox[0x17];
	eq->buf.page_shift = 12 + (cmd->inbox[0x18] & 0x1f);
	eq->buf.mtt_off = (uint64_t)cmd->inbox[0x1b] << 32 |
			  cx3_get32(cmd->inbox, 0x1c);
	eq->buf.size = (uint64_t)eq->nent * EQE_SIZE;
	eq->cons = cx3_get32(cmd->inbox, 0x28) & 0xffffff;
	eq->prod = eq->cons;
	/* every entry starts out owned by the hardware */
	for (i = 0; i < eq->nent; i++) {
		if (cx3_buf_write(dev, &eq->buf, (uint64_t)i * EQE_SIZE + 31,
				  &owner, 1)) {
			cx3_log(dev, "SW2HW_EQ %u: buffer not reachable through its MTT",
				eqn);
			free(eq);
			return CX3_STAT_BAD_PARAM;
		}
	}
	dev->eqs[eqn] = eq;
	dev->live.eq++;
	return CX3_STAT_OK;
}

/* Command completions go by event once some EQ takes them. */
static void eq_update_events(struct cx3_dev *dev)
{
	uint32_t i;

	dev->events = false;
	for (i = 0; i < 1u << dev->hca.log_eqs; i++)
		if (dev->eqs[i] && (dev->eqs[i]->event_mask >> EQ_EVENT_CMD) & 1)
			dev->events = true;
}

static void eq_destroy(struct cx3_dev *dev, uint32_t eqn)
{
	free(dev->eqs[eqn]);
	dev->eqs[eqn] = NULL;
	dev->live.eq--;
	eq_update_events(dev);
}

uint8_t cx3_cmd_hw2sw_eq(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint32_t eqn = cmd->in_mod & 0x3ff;
	struct cx3_eq *eq = eq_get(dev, eqn);

	if (!eq)
		return CX3_STAT_BAD_RES_STATE;
	if (cmd->op_mod == 0) {		/* the driver wants the context back */
		memcpy(cmd->outbox, eq->ctx, CX3_EQC_ENTRY);
		cx3_put32(cmd->outbox, 0x28, eq->cons);
		cx3_put32(cmd->outbox, 0x2c, eq->prod & 0xffffff);
		cmd->out_len = CX3_EQC_ENTRY;
	}
	eq_destroy(dev, eqn);
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_query_eq(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	struct cx3_eq *eq = eq_get(dev, cmd->in_mod & 0x3ff);

	if (!eq)
		return CX3_STAT_BAD_RES_STATE;
	memcpy(cmd->outbox, eq->ctx, CX3_EQC_ENTRY);
	cx3_put32(cmd->outbox, 0x28, eq->cons);
	cx3_put32(cmd->outbox, 0x2c, eq->prod & 0xffffff);
	cmd->out_len = CX3_EQC_ENTRY;
	return CX3_STAT_OK;
}

/* MAP_EQ: in_param = event-type mask, in_mod = EQN | unmap << 31. */
uint8_t cx3_cmd_map_eq(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	struct cx3_eq *eq = eq_get(dev, cmd->in_mod & 0x3ff);

	if (!eq)
		return CX3_STAT_BAD_RES_STATE;
	if (cmd->in_mod & (1u << 31))
		eq->event_mask &= ~cmd->in_param;
	else
		eq->event_mask |= cmd->in_param;
	eq_update_events(dev);
	return CX3_STAT_OK;
}

void cx3_eq_clear_all(struct cx3_dev *dev)
{
	uint32_t i;

	if (!dev->eqs)
		return;
	for (i = 0; i < 1u << dev->hca.log_eqs; i++) {
		if (dev->eqs[i]) {
			free(dev->eqs[i]);
			dev->eqs[i] = NULL;
			dev->live.eq--;
		}
	}
	dev->events = false;
}

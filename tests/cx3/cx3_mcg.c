// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the multicast group table (A0/B0 steering as IB uses
 * it).  Entries live in the card: the driver hashes an MGID with MGID_HASH,
 * walks hash chains with READ_MCG and edits them with WRITE_MCG.  An entry
 * is u32 next_gid_index << 6, u32 members (23:0) and protocol (31:30), the
 * 16-byte MGID at 0x10 and the QP list from 0x20 (bit 30 of a QP entry
 * blocks multicast loopback to that QP).
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_cmds.h"
#include "cx3_mcg.h"

static uint32_t mcg_entries(struct cx3_dev *dev)
{
	return 1u << dev->hca.log_mcg_table;
}

static uint32_t mcg_size(struct cx3_dev *dev)
{
	return 1u << dev->hca.log_mcg_entry;
}

static uint32_t mcg_capacity(struct cx3_dev *dev)
{
	return (mcg_size(dev) - 0x20) / 4;
}

static int mcg_table(struct cx3_dev *dev)
{
	if (!dev->mcg)
		dev->mcg = calloc(mcg_entries(dev), sizeof(*dev->mcg));
	return dev->mcg ? 0 : -1;
}

const uint8_t *cx3_mcg_entry(struct cx3_dev *dev, uint32_t index)
{
	if (!dev->mcg || index >= mcg_entries(dev))
		return NULL;
	return dev->mcg[index];
}

uint32_t cx3_mcg_members(const uint8_t *entry)
{
	return cx3_get32(entry, 4) & 0xffffff;
}

uint32_t cx3_mcg_hash(struct cx3_dev *dev, const uint8_t gid[16])
{
	uint32_t h = 0x9e3779b9;
	int i;

	for (i = 0; i < 16; i++)
		h = (h ^ gid[i]) * 0x01000193;
	return (h ^ (h >> 16)) & ((1u << dev->hca.log_mcg_hash) - 1);
}

uint8_t cx3_cmd_mgid_hash(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	if (cmd->op_mod != 0)		/* Ethernet hashing */
		return CX3_STAT_BAD_OP;
	if (cx3_cmd_inbox(dev, cmd, 16))
		return CX3_STAT_BAD_PARAM;
	cmd->imm_out = cx3_mcg_hash(dev, cmd->inbox);
	cmd->imm_out_set = true;
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_read_mcg(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	const uint8_t *e;

	if (cmd->in_mod >= mcg_entries(dev))
		return CX3_STAT_BAD_INDEX;
	e = cx3_mcg_entry(dev, cmd->in_mod);
	if (e)
		memcpy(cmd->outbox, e, mcg_size(dev));
	else
		memset(cmd->outbox, 0, mcg_size(dev));
	cmd->out_len = mcg_size(dev);
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_write_mcg(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint32_t idx = cmd->in_mod, members, next;
	uint8_t *e;

	if (cmd->op_mod != 0)		/* promiscuous steering: Ethernet */
		return CX3_STAT_BAD_OP;
	if (idx >= mcg_entries(dev))
		return CX3_STAT_BAD_INDEX;
	if (cx3_cmd_inbox(dev, cmd, mcg_size(dev)))
		return CX3_STAT_BAD_PARAM;
	members = cx3_mcg_members(cmd->inbox);
	next = cx3_get32(cmd->inbox, 0) >> 6;
	if (members > mcg_capacity(dev) || next >= mcg_entries(dev) ||
	    (cmd->inbox[4] >> 6) != 0) {
		cx3_log(dev, "WRITE_MCG 0x%x: %u members, next 0x%x, protocol %u invalid",
			idx, members, next, cmd->inbox[4] >> 6);
		return CX3_STAT_BAD_PARAM;
	}
	if (mcg_table(dev))
		return CX3_STAT_EXCEED_LIM;
	e = dev->mcg[idx];
	if (e && cx3_mcg_members(e))
		dev->live.mcg--;
	if (!e) {
		e = malloc(mcg_size(dev));
		if (!e)
			return CX3_STAT_EXCEED_LIM;
		dev->mcg[idx] = e;
	}
	memcpy(e, cmd->inbox, mcg_size(dev));
	if (members)
		dev->live.mcg++;
	return CX3_STAT_OK;
}

void cx3_mcg_clear_all(struct cx3_dev *dev)
{
	uint32_t i;

	if (!dev->mcg)
		return;
	for (i = 0; i < mcg_entries(dev); i++)
		free(dev->mcg[i]);
	free(dev->mcg);
	dev->mcg = NULL;
	dev->live.mcg = 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the firmware command interface.  One table maps every
 * opcode to its handler; an opcode the table does not know answers BAD_OP,
 * as the firmware does for commands it does not implement, and is logged as
 * "unknown command" so the test bed can tell when a driver used one.
 */
#include <string.h>

#include "cx3.h"
#include "cx3_cmds.h"

struct cx3_cmd_desc {
	uint16_t opcode;
	const char *name;
	cx3_cmd_fn fn;
	bool needs_hca;		/* only after INIT_HCA */
};

/*
 * Commands a native IB driver never needs: SR-IOV, Ethernet/RoCE, flow
 * steering, diagnostics.  They answer BAD_OP like firmware that lacks the
 * feature, and are logged as refused rather than unknown.
 */
static const struct {
	uint16_t opcode;
	const char *name;
} cx3_refused[] = {
	{ 0x02e, "ACCESS_MEM" },
	{ 0x032, "SUSPEND_QP" }, { 0x033, "UNSUSPEND_QP" },
	{ 0x03a, "CONFIG_DEV" }, { 0x03b, "ACCESS_REG" },
	{ 0x047, "SET_VLAN_FLTR" }, { 0x048, "SET_MCAST_FLTR" },
	{ 0x049, "DUMP_ETH_STATS" }, { 0x04d, "SENSE_PORT" },
	{ 0x054, "QUERY_IF_STAT" }, { 0x055, "SET_IF_STAT" },
	{ 0x056, "QUERY_FUNC" }, { 0x057, "ARM_COMM_CHANNEL" },
	{ 0x058, "GEN_EQE" }, { 0x059, "GET_OP_REQ" },
	{ 0x05b, "INFORM_FLR_DONE" }, { 0x05c, "VIRT_PORT_MAP" },
	{ 0x061, "UPDATE_QP" }, { 0x064, "QP_FLOW_STEERING_ATTACH" },
	{ 0x065, "QP_FLOW_STEERING_DETACH" }, { 0x066, "FLOW_STEERING_IB_UC_QP_RANGE" },
	{ 0x068, "CONGESTION_CTRL" }, { 0x080, "ALLOCATE_VPP" },
	{ 0x081, "SET_VPORT_QOS" }, { 0x203, "MAD_DEMUX" },
};

static const struct cx3_cmd_desc cx3_cmds[] = {
	/* initialisation and firmware area */
	{ 0x003, "QUERY_DEV_CAP", cx3_cmd_query_dev_cap, false },
	{ 0x004, "QUERY_FW", cx3_cmd_query_fw, false },
	{ 0x006, "QUERY_ADAPTER", cx3_cmd_query_adapter, false },
	{ 0x007, "INIT_HCA", cx3_cmd_init_hca, false },
	{ 0x008, "CLOSE_HCA", cx3_cmd_close_hca, true },
	{ 0x00b, "QUERY_HCA", cx3_cmd_query_hca, true },
	{ 0x034, "MOD_STAT_CFG", cx3_cmd_mod_stat_cfg, false },
	{ 0x043, "QUERY_PORT", cx3_cmd_query_port, false },
	{ 0xff6, "RUN_FW", cx3_cmd_run_fw, false },
	{ 0xff9, "UNMAP_ICM", cx3_cmd_unmap_icm, false },
	{ 0xffa, "MAP_ICM", cx3_cmd_map_icm, false },
	{ 0xffb, "UNMAP_ICM_AUX", cx3_cmd_unmap_icm_aux, false },
	{ 0xffc, "MAP_ICM_AUX", cx3_cmd_map_icm_aux, false },
	{ 0xffd, "SET_ICM_SIZE", cx3_cmd_set_icm_size, false },
	{ 0xffe, "UNMAP_FA", cx3_cmd_unmap_fa, false },
	{ 0xfff, "MAP_FA", cx3_cmd_map_fa, false },
	{ 0x031, "NOP", cx3_cmd_nop, false },
	{ 0x030, "DIAG_RPRT", cx3_cmd_diag_rprt, true },
	/* ports */
	{ 0x009, "INIT_PORT", cx3_cmd_init_port, true },
	{ 0x00a, "CLOSE_PORT", cx3_cmd_close_port, true },
	{ 0x00c, "SET_PORT", cx3_cmd_set_port, true },
	{ 0x05a, "SET_NODE", cx3_cmd_set_node, true },
	{ 0x023, "CONF_SPECIAL_QP", cx3_cmd_conf_special_qp, true },
	{ 0x024, "MAD_IFC", cx3_cmd_mad_ifc, true },
	/* translation and protection */
	{ 0x00d, "SW2HW_MPT", cx3_cmd_sw2hw_mpt, true },
	{ 0x00e, "QUERY_MPT", cx3_cmd_query_mpt, true },
	{ 0x00f, "HW2SW_MPT", cx3_cmd_hw2sw_mpt, true },
	{ 0x010, "READ_MTT", cx3_cmd_read_mtt, true },
	{ 0x011, "WRITE_MTT", cx3_cmd_write_mtt, true },
	{ 0x02f, "SYNC_TPT", cx3_cmd_sync_tpt, true },
	/* event queues */
	{ 0x012, "MAP_EQ", cx3_cmd_map_eq, true },
	{ 0x013, "SW2HW_EQ", cx3_cmd_sw2hw_eq, true },
	{ 0x014, "HW2SW_EQ", cx3_cmd_hw2sw_eq, true },
	{ 0x015, "QUERY_EQ", cx3_cmd_query_eq, true },
	/* completion queues */
	{ 0x016, "SW2HW_CQ", cx3_cmd_sw2hw_cq, true },
	{ 0x017, "HW2SW_CQ", cx3_cmd_hw2sw_cq, true },
	{ 0x018, "QUERY_CQ", cx3_cmd_query_cq, true },
	{ 0x02c, "MODIFY_CQ", cx3_cmd_modify_cq, true },
	/* shared receive queues */
	{ 0x035, "SW2HW_SRQ", cx3_cmd_sw2hw_srq, true },
	{ 0x036, "HW2SW_SRQ", cx3_cmd_hw2sw_srq, true },
	{ 0x037, "QUERY_SRQ", cx3_cmd_query_srq, true },
	{ 0x040, "ARM_SRQ", cx3_cmd_arm_srq, true },
	/* queue pairs */
	{ 0x019, "RST2INIT_QP", cx3_cmd_qp_modify, true },
	{ 0x01a, "INIT2RTR_QP", cx3_cmd_qp_modify, true },
	{ 0x01b, "RTR2RTS_QP", cx3_cmd_qp_modify, true },
	{ 0x01c, "RTS2RTS_QP", cx3_cmd_qp_modify, true },
	{ 0x01d, "SQERR2RTS_QP", cx3_cmd_qp_modify, true },
	{ 0x01e, "2ERR_QP", cx3_cmd_qp_modify, true },
	{ 0x01f, "RTS2SQD_QP", cx3_cmd_qp_modify, true },
	{ 0x020, "SQD2RTS_QP", cx3_cmd_qp_modify, true },
	{ 0x021, "2RST_QP", cx3_cmd_qp_modify, true },
	{ 0x02d, "INIT2INIT_QP", cx3_cmd_qp_modify, true },
	{ 0x038, "SQD2SQD_QP", cx3_cmd_qp_modify, true },
	{ 0x022, "QUERY_QP", cx3_cmd_query_qp, true },
	/* multicast groups */
	{ 0x025, "READ_MCG", cx3_cmd_read_mcg, true },
	{ 0x026, "WRITE_MCG", cx3_cmd_write_mcg, true },
	{ 0x027, "MGID_HASH", cx3_cmd_mgid_hash, true },
};

/* Fetch len bytes of the in-mailbox (in_param is its address). */
int cx3_cmd_inbox(struct cx3_dev *dev, struct cx3_cmd *cmd, size_t len)
{
	if (len > CX3_MAILBOX)
		len = CX3_MAILBOX;
	if (dev->host.dma_read(dev->host.opaque, cmd->in_param, cmd->inbox,
			       len)) {
		cx3_log(dev, "command 0x%03x: inbox 0x%llx is not guest memory",
			cmd->opcode, (unsigned long long)cmd->in_param);
		return -1;
	}
	return 0;
}

static const char *cx3_refused_name(uint16_t opcode)
{
	size_t i;

	for (i = 0; i < sizeof(cx3_refused) / sizeof(cx3_refused[0]); i++)
		if (cx3_refused[i].opcode == opcode)
			return cx3_refused[i].name;
	return NULL;
}

const char *cx3_cmd_name(uint16_t opcode)
{
	size_t i;

	for (i = 0; i < sizeof(cx3_cmds) / sizeof(cx3_cmds[0]); i++)
		if (cx3_cmds[i].opcode == opcode)
			return cx3_cmds[i].name;
	return cx3_refused_name(opcode);
}

void cx3_cmd_execute(struct cx3_dev *dev, struct cx3_cmd *cmd, uint8_t *status)
{
	const struct cx3_cmd_desc *d = NULL;
	const char *name;
	size_t i;

	dev->counts.cmds++;
	/* an injected firmware error: the command is not executed */
	if (cx3_fault_cmd_status(dev, cmd, status))
		return;
	for (i = 0; i < sizeof(cx3_cmds) / sizeof(cx3_cmds[0]); i++) {
		if (cx3_cmds[i].opcode == cmd->opcode) {
			d = &cx3_cmds[i];
			break;
		}
	}
	if (!d) {
		name = cx3_refused_name(cmd->opcode);
		if (name) {
			cx3_log(dev, "command %s (0x%03x) refused: not offered by this card",
				name, cmd->opcode);
		} else {
			dev->cmd_unknown++;
			cx3_log(dev, "unknown command opcode 0x%03x op_mod %u in_mod 0x%x",
				cmd->opcode, cmd->op_mod, cmd->in_mod);
		}
		*status = CX3_STAT_BAD_OP;
		return;
	}
	if (!dev->fw_running && cmd->opcode != 0x004 && cmd->opcode != 0xfff &&
	    cmd->opcode != 0xffe && cmd->opcode != 0xff6) {
		cx3_log(dev, "command %s before RUN_FW", d->name);
		*status = CX3_STAT_BAD_SYS_STATE;
		return;
	}
	if (d->needs_hca && !dev->hca.initialised) {
		cx3_log(dev, "command %s before INIT_HCA", d->name);
		*status = CX3_STAT_BAD_SYS_STATE;
		return;
	}
	*status = d->fn(dev, cmd);
	if (*status != CX3_STAT_OK)
		cx3_log(dev, "command %s (op_mod %u in_mod 0x%x) failed with status 0x%02x",
			d->name, cmd->op_mod, cmd->in_mod, *status);
}

/* SPDX-License-Identifier: GPL-2.0 */
/* ConnectX-3 model: command handlers, one per opcode, listed in cx3_cmd.c. */
#ifndef CX3_CMDS_H
#define CX3_CMDS_H

#include "cx3.h"

/* cx3_init.c */
uint8_t cx3_cmd_query_dev_cap(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_query_fw(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_query_adapter(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_init_hca(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_close_hca(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_query_hca(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_mod_stat_cfg(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_query_port(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_run_fw(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_set_icm_size(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_nop(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_diag_rprt(struct cx3_dev *dev, struct cx3_cmd *cmd);

/* cx3_icm.c */
uint8_t cx3_cmd_map_icm(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_unmap_icm(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_map_icm_aux(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_unmap_icm_aux(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_map_fa(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_unmap_fa(struct cx3_dev *dev, struct cx3_cmd *cmd);

/* cx3_port.c */
uint8_t cx3_cmd_init_port(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_close_port(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_set_port(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_set_node(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_conf_special_qp(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_mad_ifc(struct cx3_dev *dev, struct cx3_cmd *cmd);

/* cx3_mpt.c */
uint8_t cx3_cmd_sw2hw_mpt(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_query_mpt(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_hw2sw_mpt(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_read_mtt(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_write_mtt(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_sync_tpt(struct cx3_dev *dev, struct cx3_cmd *cmd);

/* cx3_eq.c */
uint8_t cx3_cmd_map_eq(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_sw2hw_eq(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_hw2sw_eq(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_query_eq(struct cx3_dev *dev, struct cx3_cmd *cmd);

/* cx3_cq.c */
uint8_t cx3_cmd_sw2hw_cq(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_hw2sw_cq(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_query_cq(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_modify_cq(struct cx3_dev *dev, struct cx3_cmd *cmd);

/* cx3_srq.c */
uint8_t cx3_cmd_sw2hw_srq(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_hw2sw_srq(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_query_srq(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_arm_srq(struct cx3_dev *dev, struct cx3_cmd *cmd);

/* cx3_qp.c */
uint8_t cx3_cmd_qp_modify(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_query_qp(struct cx3_dev *dev, struct cx3_cmd *cmd);

/* cx3_mcg.c */
uint8_t cx3_cmd_read_mcg(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_write_mcg(struct cx3_dev *dev, struct cx3_cmd *cmd);
uint8_t cx3_cmd_mgid_hash(struct cx3_dev *dev, struct cx3_cmd *cmd);

/* Helpers shared by the handlers */

/* The context table entry of object idx must be backed by mapped ICM. */
bool cx3_ctx_mapped(struct cx3_dev *dev, uint64_t base, uint32_t idx,
		    uint32_t entry_sz);

/* Sizes this card reports in QUERY_DEV_CAP (cx3_init.c) */
#define CX3_QPC_ENTRY		256
#define CX3_CQC_ENTRY		64
#define CX3_EQC_ENTRY		64
#define CX3_SRQC_ENTRY		64
#define CX3_DMPT_ENTRY		64
#define CX3_CMPT_ENTRY		64
#define CX3_MTT_ENTRY		8
#define CX3_RSVD_LKEY		0	/* not advertised */

#endif /* CX3_CMDS_H */

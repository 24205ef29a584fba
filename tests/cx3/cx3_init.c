// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the initialisation commands (QUERY_FW, RUN_FW,
 * QUERY_DEV_CAP, QUERY_PORT, SET_ICM_SIZE, INIT_HCA, QUERY_HCA, CLOSE_HCA,
 * QUERY_ADAPTER, MOD_STAT_CFG, NOP) and the capabilities the card reports.
 */
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "cx3.h"
#include "cx3_cmds.h"
#include "cx3_offload.h"

/* Firmware 2.42.5000, the last ConnectX-3 release */
#define FW_MAJOR		2
#define FW_MINOR		42
#define FW_SUBMINOR		5000
#define FW_PAGES		64	/* 4 KiB pages for MAP_FA */
#define CMD_IF_REV		3
#define LOG_MAX_CMDS		4
#define BOARD_ID		"MT_1090120019"	/* MCX354A-FCBT */
#define INTA_PIN		0
#define CORE_CLOCK_MHZ		427

/* QUERY_DEV_CAP device flags (bits of the 64-bit field at 0x40) */
#define DEV_FLAG_RC		(1ull << 0)
#define DEV_FLAG_UC		(1ull << 1)
#define DEV_FLAG_UD		(1ull << 2)
#define DEV_FLAG_XRC		(1ull << 3)
#define DEV_FLAG_SRQ		(1ull << 6)
#define DEV_FLAG_IPOIB_CSUM	(1ull << 7)
#define DEV_FLAG_BAD_PKEY_CNTR	(1ull << 8)
#define DEV_FLAG_BAD_QKEY_CNTR	(1ull << 9)
#define DEV_FLAG_BLH		(1ull << 15)
#define DEV_FLAG_MEM_WINDOW	(1ull << 16)
#define DEV_FLAG_ATOMIC		(1ull << 18)
#define DEV_FLAG_UD_AV_PORT	(1ull << 20)
#define DEV_FLAG_UD_MCAST	(1ull << 21)

/* QUERY_DEV_CAP BMME flags (u32 @0x94) */
#define BMME_WIN_TYPE_2B	(1u << 1)
#define BMME_LOCAL_INV		(1u << 6)
#define BMME_REMOTE_INV		(1u << 7)
#define BMME_TYPE_2_WIN		(1u << 9)
#define BMME_FAST_REG_WR	(1u << 11)

/* Logs of the resources the card offers */
#define LOG_MAX_QP		18
#define LOG_RSVD_QP		4
#define LOG_MAX_SRQ		16
#define LOG_MAX_CQ		16
#define LOG_MAX_MPT		19
#define LOG_MAX_EQ		7
#define LOG_MAX_MCG		13
#define LOG_MAX_PD		17

uint8_t cx3_cmd_query_fw(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint8_t *o = cmd->outbox;

	(void)dev;
	memset(o, 0, 0x100);
	cx3_put16(o, 0x00, FW_PAGES);
	cx3_put16(o, 0x02, FW_MAJOR);
	cx3_put16(o, 0x04, FW_SUBMINOR);
	cx3_put16(o, 0x06, FW_MINOR);
	cx3_put16(o, 0x0a, CMD_IF_REV);
	o[0x0f] = LOG_MAX_CMDS;
	cx3_put64(o, 0x20, CX3_CLR_INT);
	o[0x28] = 0;				/* BAR0 */
	cx3_put64(o, 0x30, CX3_CATAS);
	cx3_put32(o, 0x38, CX3_CATAS_DWORDS);
	o[0x3c] = 0;				/* BAR0 */
	cmd->out_len = 0x100;
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_run_fw(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	(void)cmd;
	if (dev->live.fa_pages < FW_PAGES) {
		cx3_log(dev, "RUN_FW with %lu firmware pages mapped, %u needed",
			dev->live.fa_pages, FW_PAGES);
		return CX3_STAT_BAD_SYS_STATE;
	}
	dev->fw_running = true;
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_mod_stat_cfg(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	int port;

	switch (cmd->op_mod) {
	case 0:		/* page size; nothing to keep */
		return CX3_STAT_OK;
	case 2:		/* query the physical port GUID */
		port = (cmd->in_mod >> 8) & 0xff;
		if (port < 1 || port > CX3_NUM_PORTS)
			return CX3_STAT_BAD_PARAM;
		memset(cmd->outbox, 0, 0x100);
		cx3_put32(cmd->outbox, 0x14, dev->port[port - 1].guids[0] >> 32);
		cx3_put32(cmd->outbox, 0x1c, (uint32_t)dev->port[port - 1].guids[0]);
		cmd->out_len = 0x100;
		return CX3_STAT_OK;
	default:	/* Wake-on-LAN and Ethernet settings */
		return CX3_STAT_BAD_OP;
	}
}

uint8_t cx3_cmd_query_dev_cap(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint64_t flags = DEV_FLAG_RC | DEV_FLAG_UC | DEV_FLAG_UD |
			 DEV_FLAG_SRQ | DEV_FLAG_BAD_PKEY_CNTR |
			 DEV_FLAG_BAD_QKEY_CNTR | DEV_FLAG_ATOMIC |
			 DEV_FLAG_UD_AV_PORT | DEV_FLAG_UD_MCAST | DEV_FLAG_XRC |
			 DEV_FLAG_MEM_WINDOW | DEV_FLAG_IPOIB_CSUM | DEV_FLAG_BLH;
	uint8_t *o = cmd->outbox;

	(void)dev;
	memset(o, 0, 0x100);
	o[0x10] = 15;			/* log max SRQ WRs */
	o[0x11] = 15;			/* log max QP WRs */
	o[0x12] = LOG_RSVD_QP;
	o[0x13] = LOG_MAX_QP;
	o[0x14] = 0 << 4;		/* log reserved SRQs */
	o[0x15] = LOG_MAX_SRQ;
	o[0x19] = 22;			/* log max CQEs */
	o[0x1a] = 0;			/* log reserved CQs */
	o[0x1b] = LOG_MAX_CQ;
	o[0x1d] = LOG_MAX_MPT;
	o[0x1e] = 0;			/* log reserved EQs */
	o[0x1f] = LOG_MAX_EQ;
	o[0x20] = 0 << 4;		/* log reserved MTTs */
	o[0x21] = 0x3f;			/* log max MR size */
	o[0x22] = 4;			/* log reserved MRWs: keeps key 0x100 free */
	o[0x23] = 0;
	o[0x29] = 4;			/* log max outstanding RDMA (requester) */
	o[0x2b] = 4;			/* ... and responder, per QP */
	o[0x2d] = CX3_LOG_MAX_GSO;	/* LSO (cx3_offload.c) */
	o[0x2f] = 20;			/* log max RDMA global */
	o[0x35] = 15;			/* local CA ACK delay */
	o[0x37] = CX3_NUM_PORTS;
	o[0x38] = 31;			/* log max message */
	cx3_put32(o, 0x40, flags >> 32);
	cx3_put32(o, 0x44, (uint32_t)flags);
	o[0x48] = 1 << 4;		/* reserved UARs (not a log) */
	o[0x49] = 3;			/* UAR area: 1 << (3 + 20), BAR2's first half */
	o[0x4c] = 1 << 7;		/* BlueFlame (cx3_bf.c) */
	o[0x4d] = CX3_BF_LOG_REG;	/* log BlueFlame register size */
	o[0x4e] = 12 - CX3_BF_LOG_REG;	/* log registers per 4 KiB page */
	o[0x4b] = 12;			/* log min page size */
	o[0x51] = 32;			/* max SQ S/G entries */
	cx3_put16(o, 0x52, 0x3f0);	/* max SQ WQE size */
	o[0x55] = 32;			/* max RQ S/G entries */
	cx3_put16(o, 0x56, 0x200);	/* max RQ WQE size */
	o[0x61] = 8;			/* log max QPs per MCG */
	o[0x62] = 0;			/* log reserved MCGs */
	o[0x63] = LOG_MAX_MCG;
	o[0x64] = 1 << 4;		/* reserved PDs */
	o[0x65] = LOG_MAX_PD;
	o[0x66] = 0;			/* reserved XRCDs (<< 4): a plain SRQ's */
	o[0x67] = 16;			/* log max XRCDs */
	cx3_put16(o, 0x80, 32);		/* RDMARC entry size */
	cx3_put16(o, 0x82, CX3_QPC_ENTRY);
	cx3_put16(o, 0x84, 64);		/* AUXC */
	cx3_put16(o, 0x86, 64);		/* ALTC */
	cx3_put16(o, 0x88, CX3_EQC_ENTRY);
	cx3_put16(o, 0x8a, CX3_CQC_ENTRY);
	cx3_put16(o, 0x8c, CX3_SRQC_ENTRY);
	cx3_put16(o, 0x8e, CX3_CMPT_ENTRY);
	cx3_put16(o, 0x90, CX3_MTT_ENTRY);
	cx3_put16(o, 0x92, CX3_DMPT_ENTRY);
	/*
	 * BMME: type 2B windows, local and remote invalidation, fast
	 * registration (cx3_mw.c); still no reserved lkey
	 */
	cx3_put32(o, 0x94, BMME_WIN_TYPE_2B | BMME_LOCAL_INV |
		  BMME_REMOTE_INV | BMME_TYPE_2_WIN | BMME_FAST_REG_WR);
	cx3_put32(o, 0x98, CX3_RSVD_LKEY);
	cx3_put64(o, 0xa0, 1ull << CX3_ICM_MAX_LOG);
	cmd->out_len = 0x100;
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_query_port(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint8_t *o = cmd->outbox;
	uint32_t port = cmd->in_mod;

	if (port < 1 || port > CX3_NUM_PORTS)
		return CX3_STAT_BAD_PARAM;
	memset(o, 0, 0x100);
	/* link state, IB only, suggested type IB */
	o[0x00] = (dev->port[port - 1].phys_state == CX3_PHYS_LINKUP) << 7 | 1;
	o[0x01] = 5;			/* IB MTU cap 4096 */
	o[0x06] = 2;			/* max width 4X */
	o[0x07] = 7 << 4 | 7;		/* log max GIDs, log max P_Keys */
	o[0x0a] = 7 << 4 | 7;		/* log max VLANs, MACs (Ethernet) */
	o[0x0b] = 4;			/* max VL: VL0-7 */
	cmd->out_len = 0x100;
	return CX3_STAT_OK;
}

/* The profile's ICM size decides how many auxiliary pages we want. */
uint8_t cx3_cmd_set_icm_size(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint64_t size = cmd->in_param;

	if (size > 1ull << CX3_ICM_MAX_LOG)
		return CX3_STAT_EXCEED_LIM;
	dev->icm_size = size;
	/* one page per 64 MiB of ICM, at least 1 */
	cmd->imm_out = (size >> 26) + 1;
	cmd->imm_out_set = true;
	return CX3_STAT_OK;
}

static bool hca_base_ok(struct cx3_dev *dev, const char *what, uint64_t base,
			unsigned int log, unsigned int entry)
{
	if (base & 0xfff || base + ((uint64_t)entry << log) > dev->icm_size) {
		cx3_log(dev, "INIT_HCA: %s table at 0x%llx (2^%u x %u) outside the ICM (0x%llx)",
			what, (unsigned long long)base, log, entry,
			(unsigned long long)dev->icm_size);
		return false;
	}
	return true;
}

uint8_t cx3_cmd_init_hca(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	struct cx3_hca *h = &dev->hca;
	const uint8_t *i = cmd->inbox;

	if (h->initialised)
		return CX3_STAT_BAD_SYS_STATE;
	if (!dev->live.aux_pages) {
		cx3_log(dev, "INIT_HCA without auxiliary ICM");
		return CX3_STAT_BAD_SYS_STATE;
	}
	if (cx3_cmd_inbox(dev, cmd, sizeof(h->init_mbox)))
		return CX3_STAT_BAD_PARAM;
	if (i[0x00] != 2) {
		cx3_log(dev, "INIT_HCA version %u, expected 2", i[0x00]);
		return CX3_STAT_BAD_PARAM;
	}
	memcpy(h->init_mbox, i, sizeof(h->init_mbox));
	h->flags = cx3_get32(i, 0x14);
	/* table bases are page aligned; their low bytes carry the logs */
	h->qpc_base = cx3_get64(i, 0x30) & ~0xfffull;
	h->log_qps = i[0x37] & 0x1f;
	h->srqc_base = cx3_get64(i, 0x48) & ~0xfffull;
	h->log_srqs = i[0x4f] & 0x1f;
	h->cqc_base = cx3_get64(i, 0x50) & ~0xfffull;
	h->log_cqs = i[0x57] & 0x1f;
	h->altc_base = cx3_get64(i, 0x60) & ~0xfffull;
	h->auxc_base = cx3_get64(i, 0x70) & ~0xfffull;
	h->eqc_base = cx3_get64(i, 0x80) & ~0xfffull;
	h->log_eqs = i[0x87] & 0x1f;
	h->rdmarc_base = cx3_get64(i, 0x90) & ~0xfffull;
	h->log_rd_per_qp = i[0x97] & 0x7;
	h->mcg_base = cx3_get64(i, 0xc0) & ~0xfffull;
	h->log_mcg_entry = i[0xd3];
	h->log_mcg_hash = i[0xd7];
	h->log_mcg_table = i[0xdb];
	h->dmpt_base = cx3_get64(i, 0xf0) & ~0xfffull;
	h->log_mpts = i[0xfb] & 0x3f;
	h->mtt_base = cx3_get64(i, 0x100) & ~0xfffull;
	h->cmpt_base = cx3_get64(i, 0x108) & ~0xfffull;
	h->log_uar_size = i[0x12a];
	h->uar_page_sz = i[0x12b];

	if (cx3_get32(i, 0x58) & (3u << 29)) {
		cx3_log(dev, "INIT_HCA asks for 64-byte EQEs/CQEs, not offered");
		return CX3_STAT_BAD_PARAM;
	}
	if (h->log_qps > LOG_MAX_QP || h->log_srqs > LOG_MAX_SRQ ||
	    h->log_cqs > LOG_MAX_CQ || h->log_eqs > LOG_MAX_EQ ||
	    h->log_mpts > LOG_MAX_MPT || h->log_mcg_table > LOG_MAX_MCG + 1 ||
	    h->log_mcg_entry < 6 || h->log_mcg_entry > 12 ||
	    h->log_mcg_hash > h->log_mcg_table) {
		cx3_log(dev, "INIT_HCA sizes beyond the card's limits");
		return CX3_STAT_BAD_PARAM;
	}
	if (!hca_base_ok(dev, "QPC", h->qpc_base, h->log_qps, CX3_QPC_ENTRY) ||
	    !hca_base_ok(dev, "SRQC", h->srqc_base, h->log_srqs, CX3_SRQC_ENTRY) ||
	    !hca_base_ok(dev, "CQC", h->cqc_base, h->log_cqs, CX3_CQC_ENTRY) ||
	    !hca_base_ok(dev, "EQC", h->eqc_base, h->log_eqs, CX3_EQC_ENTRY) ||
	    !hca_base_ok(dev, "dMPT", h->dmpt_base, h->log_mpts, CX3_DMPT_ENTRY) ||
	    !hca_base_ok(dev, "MCG", h->mcg_base, h->log_mcg_table,
			 1u << h->log_mcg_entry))
		return CX3_STAT_BAD_PARAM;

	dev->qps = calloc(1u << h->log_qps, sizeof(*dev->qps));
	dev->srqs = calloc(1u << h->log_srqs, sizeof(*dev->srqs));
	dev->cqs = calloc(1u << h->log_cqs, sizeof(*dev->cqs));
	dev->eqs = calloc(1u << h->log_eqs, sizeof(*dev->eqs));
	dev->mpts = calloc(1u << h->log_mpts, sizeof(*dev->mpts));
	if (!dev->qps || !dev->srqs || !dev->cqs || !dev->eqs || !dev->mpts) {
		cx3_objects_free(dev);
		return CX3_STAT_EXCEED_LIM;
	}
	h->initialised = true;
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_query_hca(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	memcpy(cmd->outbox, dev->hca.init_mbox, sizeof(dev->hca.init_mbox));
	cx3_put32(cmd->outbox, 0x04, 0);	/* global caps */
	cx3_put16(cmd->outbox, 0x0c, CORE_CLOCK_MHZ);
	cmd->out_len = sizeof(dev->hca.init_mbox);
	return CX3_STAT_OK;
}

/*
 * CLOSE_HCA: the driver must have torn down every object first.  What is
 * live is logged every time (the host reads the line after every unload:
 * the objects must all be zero; ICM, aux pages and vectors are still
 * mapped here and are checked at the ownership release), anything live is
 * also reported as the driver's leak, and all of it is dropped.
 */
uint8_t cx3_cmd_close_hca(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	const struct cx3_live *l = &dev->live;

	(void)cmd;
	cx3_log_live(dev, "at CLOSE_HCA");
	if (l->eq || l->cq || l->qp || l->srq || l->mpt || l->mcg)
		cx3_log_live(dev, "at CLOSE_HCA (driver leaked these)");
	cx3_objects_free(dev);
	dev->events = false;
	dev->base_sqpn = 0;
	memset(&dev->hca, 0, sizeof(dev->hca));
	cx3_port_reset(dev);
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_query_adapter(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	static const char id[16] = BOARD_ID;
	uint8_t *o = cmd->outbox;
	int w, k;

	(void)dev;
	memset(o, 0, 0x100);
	o[0x10] = INTA_PIN;
	/* the firmware hands the board id back with each dword byte-swapped */
	for (w = 0; w < 4; w++)
		for (k = 0; k < 4; k++)
			o[0xf0 + w * 4 + k] = id[w * 4 + 3 - k];
	cmd->out_len = 0x100;
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_nop(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	(void)dev;
	(void)cmd;
	return CX3_STAT_OK;
}

/*
 * DIAG_RPRT op_mod 2: the transport and CI error counters (u32s at fixed
 * offsets, up to 0x1a0).  The model has no transport errors to count yet.
 */
/* DIAG_RPRT's report: where each counter sits (mlx4_ib's offsets) */
static const struct {
	uint16_t off;
	size_t field;		/* in struct cx3_diag_counters */
} diag_layout[] = {
	{ 0x044, offsetof(struct cx3_diag_counters, sq_rire) },
	{ 0x048, offsetof(struct cx3_diag_counters, rq_rire) },
	{ 0x04c, offsetof(struct cx3_diag_counters, sq_rae) },
	{ 0x050, offsetof(struct cx3_diag_counters, rq_rae) },
	{ 0x054, offsetof(struct cx3_diag_counters, sq_roe) },
	{ 0x05c, offsetof(struct cx3_diag_counters, sq_tree) },
	{ 0x064, offsetof(struct cx3_diag_counters, sq_rree) },
	{ 0x068, offsetof(struct cx3_diag_counters, rq_rnr) },
	{ 0x06c, offsetof(struct cx3_diag_counters, sq_rnr) },
	{ 0x100, offsetof(struct cx3_diag_counters, rq_oos) },
	{ 0x104, offsetof(struct cx3_diag_counters, sq_oos) },
	{ 0x130, offsetof(struct cx3_diag_counters, rq_dup) },
	{ 0x134, offsetof(struct cx3_diag_counters, sq_to) },
};

/*
 * DIAG_RPRT, "transport and CI errors" (op_mod 2): the counts of one port
 * (in_mod 1 or 2) or of the whole card (0), at the offsets mlx4_ib reads.
 * Reading does not clear them (guess).
 */
uint8_t cx3_cmd_diag_rprt(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint8_t *o = cmd->outbox;
	uint32_t v;
	size_t k;
	int i;

	if (cmd->op_mod != 2)
		return CX3_STAT_BAD_OP;
	if (cmd->in_mod > CX3_NUM_PORTS)
		return CX3_STAT_BAD_PARAM;
	memset(o, 0, 0x400);
	for (i = 0; i < CX3_NUM_PORTS; i++) {
		const uint8_t *d = (const uint8_t *)&dev->port[i].diag;

		if (cmd->in_mod && cmd->in_mod != (uint32_t)i + 1)
			continue;
		for (k = 0; k < sizeof(diag_layout) / sizeof(diag_layout[0]); k++) {
			memcpy(&v, d + diag_layout[k].field, sizeof(v));
			cx3_put32(o, diag_layout[k].off,
				  cx3_get32(o, diag_layout[k].off) + v);
		}
	}
	cmd->out_len = 0x400;
	return CX3_STAT_OK;
}

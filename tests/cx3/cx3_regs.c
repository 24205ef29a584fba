// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: device lifetime, BAR0 registers (HCR, ownership, reset,
 * catastrophic-error buffer, clr_int) and the BAR2 UAR doorbells.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cx3.h"

/* HCR dword 6 */
#define HCR_STATUS_SHIFT	24
#define HCR_GO			(1u << 23)
#define HCR_EVENT		(1u << 22)
#define HCR_TOGGLE		(1u << 21)

void cx3_log(struct cx3_dev *dev, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (dev->host.log)
		dev->host.log(dev->host.opaque, line);
}

void cx3_log_live(struct cx3_dev *dev, const char *when)
{
	const struct cx3_live *l = &dev->live;
	unsigned int vec = dev->host.msix_live ?
			   dev->host.msix_live(dev->host.opaque) : 0;

	cx3_log(dev, "live objects %s: eq=%u cq=%u qp=%u srq=%u mpt=%u mcg=%u icm_pages=%lu aux_pages=%lu fa_pages=%lu msix_vectors=%u",
		when, l->eq, l->cq, l->qp, l->srq, l->mpt, l->mcg,
		l->icm_pages, l->aux_pages, l->fa_pages, vec);
	if (dev->bf_wqes)
		cx3_log(dev, "%llu WQEs posted through BlueFlame so far",
			(unsigned long long)dev->bf_wqes);
}

/* Drop every object and the tables that index them. */
void cx3_objects_free(struct cx3_dev *dev)
{
	cx3_qp_clear_all(dev);
	cx3_srq_clear_all(dev);
	cx3_cq_clear_all(dev);
	cx3_eq_clear_all(dev);
	cx3_mpt_clear_all(dev);
	cx3_mcg_clear_all(dev);
	cx3_link_clear(dev);
	free(dev->qps);
	free(dev->srqs);
	free(dev->cqs);
	free(dev->eqs);
	free(dev->mpts);
	dev->qps = NULL;
	dev->srqs = NULL;
	dev->cqs = NULL;
	dev->eqs = NULL;
	dev->mpts = NULL;
}

/* Drop every object, map and context: what a hardware reset does. */
static void cx3_clear(struct cx3_dev *dev)
{
	cx3_objects_free(dev);
	cx3_bf_clear(dev);
	cx3_icm_free(dev->icm);
	dev->icm = cx3_icm_new();
	memset(&dev->live, 0, sizeof(dev->live));
	memset(&dev->hca, 0, sizeof(dev->hca));
	memset(dev->node_desc, 0, sizeof(dev->node_desc));	/* SET_NODE's */
	dev->fw_running = false;
	dev->events = false;
	dev->icm_size = 0;
	dev->base_sqpn = 0;
}

void cx3_reset(struct cx3_dev *dev)
{
	cx3_fault_reset(dev);
	cx3_clear(dev);
	memset(dev->hcr, 0, sizeof(dev->hcr));	/* GO = 0, T = 0 */
	memset(dev->catas, 0, sizeof(dev->catas));
	memset(dev->uar_cq_dw0, 0, sizeof(dev->uar_cq_dw0));
	dev->owned = false;
	if (dev->intx_level && dev->host.intx_set)
		dev->host.intx_set(dev->host.opaque, 0);
	dev->intx_level = false;
	cx3_port_reset(dev);
}

void cx3_init(struct cx3_dev *dev, const struct cx3_host *host,
	      uint64_t node_guid, enum cx3_cable cable[CX3_NUM_PORTS])
{
	int i;

	memset(dev, 0, sizeof(*dev));
	dev->host = *host;
	dev->node_guid = node_guid;
	dev->sys_guid = node_guid;
	for (i = 0; i < CX3_NUM_PORTS; i++) {
		dev->port[i].num = i + 1;
		dev->port[i].cable = cable[i];
	}
	dev->icm = cx3_icm_new();
	cx3_reset(dev);
}

void cx3_fini(struct cx3_dev *dev)
{
	cx3_clear(dev);
	cx3_icm_free(dev->icm);
	dev->icm = NULL;
}

/*
 * An internal error: the firmware stops (see cx3_dead) and says why in the
 * catastrophic-error buffer, which the driver polls.  Only the reset
 * register brings the card back.
 */
void cx3_raise_catas(struct cx3_dev *dev, uint32_t syndrome)
{
	cx3_log(dev, "internal error, syndrome 0x%x (catastrophic-error buffer set; the firmware is dead until the reset register is written)",
		syndrome);
	dev->catas[0] = syndrome ? syndrome : 1;
}

/*
 * The guest wrote HCR dword 6 with GO set: run the command.  In polling mode
 * the status and any immediate output land in the HCR; in event mode a
 * command-completion EQE carries them.  GO is cleared first either way, so
 * the next command can be posted as soon as the driver sees the completion.
 */
static void cx3_hcr_go(struct cx3_dev *dev, uint32_t dw6)
{
	static struct cx3_cmd cmd;	/* mailboxes are big; one at a time */
	uint8_t status = CX3_STAT_OK;
	uint8_t data[24];

	memset(&cmd, 0, offsetof(struct cx3_cmd, inbox));
	cmd.out_len = 0;
	cmd.imm_out = 0;
	cmd.imm_out_set = false;
	cmd.in_param = (uint64_t)dev->hcr[0] << 32 | dev->hcr[1];
	cmd.in_mod = dev->hcr[2];
	cmd.out_param = (uint64_t)dev->hcr[3] << 32 | dev->hcr[4];
	cmd.token = dev->hcr[5] >> 16;
	cmd.opcode = dw6 & 0xfff;
	cmd.op_mod = (dw6 >> 12) & 0xf;
	cmd.event = dw6 & HCR_EVENT;

	cx3_cmd_execute(dev, &cmd, &status);

	if (status == CX3_STAT_OK && cmd.out_len &&
	    dev->host.dma_write(dev->host.opaque, cmd.out_param, cmd.outbox,
				cmd.out_len)) {
		cx3_log(dev, "command 0x%03x: outbox 0x%llx is not guest memory",
			cmd.opcode, (unsigned long long)cmd.out_param);
		status = CX3_STAT_BAD_PARAM;
	}

	if (cmd.event && dev->events) {
		dev->hcr[6] = dw6 & ~HCR_GO;
		memset(data, 0, sizeof(data));
		cx3_put16(data, 2, cmd.token);
		data[11] = status;
		cx3_put64(data, 12, cmd.imm_out_set ? cmd.imm_out : 0);
		cx3_eq_post(dev, 0x0a, 0, data);
		return;
	}
	if (cmd.event)
		cx3_log(dev, "command 0x%03x asked for an event but no EQ takes command events",
			cmd.opcode);
	if (cmd.imm_out_set && status == CX3_STAT_OK) {
		dev->hcr[3] = cmd.imm_out >> 32;
		dev->hcr[4] = (uint32_t)cmd.imm_out;
	}
	dev->hcr[6] = (uint32_t)status << HCR_STATUS_SHIFT |
		      (dw6 & ~(HCR_GO | 0xffu << HCR_STATUS_SHIFT));
}

/* MMIO values arrive as the little-endian reading of big-endian bytes. */
static uint32_t be32_of(uint64_t val)
{
	return __builtin_bswap32((uint32_t)val);
}

static uint64_t cx3_reg_read(struct cx3_dev *dev, uint32_t addr)
{
	if (addr >= CX3_HCR && addr < CX3_HCR + CX3_HCR_SIZE)
		return dev->hcr[(addr - CX3_HCR) / 4];
	if (addr == CX3_OWNERSHIP) {
		/* Reading acquires: 0 for the first reader, 1 afterwards. */
		if (!dev->owned) {
			dev->owned = true;
			return 0;
		}
		return 1;
	}
	if (addr == CX3_RESET_SEM)
		return 0;
	if (addr >= CX3_CATAS && addr < CX3_CATAS + 4 * CX3_CATAS_DWORDS)
		return dev->catas[(addr - CX3_CATAS) / 4];
	return 0;
}

uint64_t cx3_bar0_read(struct cx3_dev *dev, uint32_t addr, unsigned int size)
{
	uint64_t v;

	if (addr & 3 || (size != 4 && size != 8)) {
		cx3_log(dev, "BAR0 read of %u bytes at 0x%x ignored", size, addr);
		return 0;
	}
	v = __builtin_bswap32((uint32_t)cx3_reg_read(dev, addr));
	if (size == 8)
		v |= (uint64_t)__builtin_bswap32((uint32_t)cx3_reg_read(dev, addr + 4)) << 32;
	return v;
}

static void cx3_reg_write(struct cx3_dev *dev, uint32_t addr, uint32_t v)
{
	if (addr >= CX3_HCR && addr < CX3_HCR + 24) {
		dev->hcr[(addr - CX3_HCR) / 4] = v;
	} else if (addr == CX3_HCR + 24) {
		if (!(v & HCR_GO)) {
			dev->hcr[6] = v;
			return;
		}
		if (dev->hcr[6] & HCR_GO) {
			cx3_log(dev, "HCR written while a command is running");
			return;
		}
		if (cx3_dead(dev)) {
			/* dead firmware: GO stays set, the driver times out */
			dev->hcr[6] = v;
			cx3_log(dev, "command 0x%03x not executed: internal error, the card needs a reset",
				v & 0xfff);
			return;
		}
		if (cx3_fault_cmd_hang(dev, v & 0xfff, dev->hcr[2])) {
			/* as on dead firmware: GO stays set, the driver times out */
			dev->hcr[6] = v;
			return;
		}
		cx3_hcr_go(dev, v);
	} else if (addr == CX3_OWNERSHIP) {
		if (v == 0) {
			dev->owned = false;
			cx3_log_live(dev, "at ownership release");
		}
	} else if (addr == CX3_RESET) {
		if (v == 1) {
			cx3_log_live(dev, "at reset");
			cx3_reset(dev);
		}
	} else if (addr == CX3_CLR_INT || addr == CX3_CLR_INT + 4) {
		if (dev->intx_level && dev->host.intx_set)
			dev->host.intx_set(dev->host.opaque, 0);
		dev->intx_level = false;
	} else if (addr >= CX3_CATAS && addr < CX3_CATAS + 4 * CX3_CATAS_DWORDS) {
		/* read-only for the driver; writes are a guest bug */
		cx3_log(dev, "write to the catastrophic-error buffer ignored");
	} else if (addr != CX3_RESET_SEM) {
		cx3_log(dev, "BAR0 write to unknown register 0x%x ignored", addr);
	}
}

void cx3_bar0_write(struct cx3_dev *dev, uint32_t addr, uint64_t val,
		    unsigned int size)
{
	if (addr & 3 || (size != 4 && size != 8)) {
		cx3_log(dev, "BAR0 write of %u bytes at 0x%x ignored", size, addr);
		return;
	}
	cx3_reg_write(dev, addr, be32_of(val));
	if (size == 8)
		cx3_reg_write(dev, addr + 4, be32_of(val >> 32));
}

/*
 * BAR2: UAR pages.  +0x14 send doorbell (QPN << 8), +0x20 CQ doorbell
 * (two dwords, one 8-byte or two 4-byte writes), +0x800 + 8 * (eqn % 4)
 * EQ doorbell in the page of eqn / 4.  Then the BlueFlame pages (cx3_bf.c).
 */
void cx3_bar2_write(struct cx3_dev *dev, uint32_t addr, uint64_t val,
		    unsigned int size)
{
	uint32_t page = addr / CX3_UAR_PAGE, off = addr % CX3_UAR_PAGE;

	if (addr >= CX3_BAR2_SIZE || cx3_dead(dev))
		return;
	dev->counts.uar_writes++;
	if (addr >= CX3_UAR_AREA) {
		cx3_bf_write(dev, addr - CX3_UAR_AREA, val, size);
	} else if (off == CX3_DB_SEND && size == 4) {
		cx3_qp_send_doorbell(dev, be32_of(val) >> 8);
	} else if (off == CX3_DB_CQ && size == 8) {
		cx3_cq_doorbell(dev, be32_of(val), be32_of(val >> 32));
	} else if (off == CX3_DB_CQ && size == 4) {
		dev->uar_cq_dw0[page] = be32_of(val);	/* the second half follows */
	} else if (off == CX3_DB_CQ + 4 && size == 4) {
		cx3_cq_doorbell(dev, dev->uar_cq_dw0[page], be32_of(val));
	} else if (off >= CX3_DB_EQ && off < CX3_DB_EQ + 32 && !(off & 7) &&
		   size == 4) {
		cx3_eq_doorbell(dev, page * 4 + (off - CX3_DB_EQ) / 8,
				be32_of(val));
	} else {
		cx3_log(dev, "UAR write of %u bytes at page %u offset 0x%x ignored",
			size, page, off);
	}
}

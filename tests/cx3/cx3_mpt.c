// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: memory protection table.  An MPT entry (64 bytes) lives
 * in the dMPT table in ICM, where the driver may edit it while it is
 * software-owned (re-registration) and hand it back with SYNC_TPT.  The
 * model keeps a parsed copy of every hardware-owned entry for the key, PD,
 * access and bounds checks of the data path.
 *
 * The top nibble of an entry's first byte is its status: 0xf software
 * owns it (what mlx4_core sends in SW2HW_MPT for a region, and what
 * HW2SW_MPT leaves in ICM), 0x0 hardware owns a valid entry, 0x3 hardware
 * owns it in the free state: a fast-register MR (ib_alloc_mr) that no
 * FAST_REG work request has registered yet, or a type 2 memory window not
 * bound yet, which give no access.
 *
 * A memory window is an entry without the REGION flag (mlx4_mw_enable):
 * type 1 arrives valid but without a range; type 2 arrives free with
 * BOUND_QP in its qpn field.  A bind (cx3_mw.c) gives it a range of a
 * region, which counts it in win_cnt; the card refuses HW2SW_MPT of a
 * region while windows are bound to it (mlx4_mr_free_reserved says so).
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_cmds.h"
#include "cx3_mr.h"

#define MPT_STATUS_SW		0xf0
#define MPT_STATUS_HW		0x00
#define MPT_STATE_SW		0xf	/* the status nibble (byte 0, bits 7:4) */
#define MPT_STATE_HW		0x0
#define MPT_STATE_FREE		0x3
#define MPT_FLAG_PHYSICAL	(1u << 9)
#define MPT_FLAG_REGION		(1u << 8)
#define MPT_ACCESS_SHIFT	10
#define MPT_QP_BOUND_QP		(1u << 7)

static uint64_t dmpt_va(struct cx3_dev *dev, uint32_t idx)
{
	return dev->hca.dmpt_base + (uint64_t)idx * CX3_DMPT_ENTRY;
}

static uint32_t mpt_index(struct cx3_dev *dev, uint32_t idx)
{
	return idx & ((1u << dev->hca.log_mpts) - 1);
}

/* Parse an entry; 0 if it is well formed. */
static int mpt_parse(struct cx3_dev *dev, struct cx3_mpt *m, const uint8_t *e,
		     uint32_t idx)
{
	uint32_t hwkey = cx3_get32(e, 0x08);
	unsigned int state = e[0] >> 4;

	if (state != MPT_STATE_SW && state != MPT_STATE_HW &&
	    state != MPT_STATE_FREE) {
		cx3_log(dev, "MPT 0x%x: status 0x%x", idx, state);
		return -1;
	}
	memset(m, 0, sizeof(*m));
	m->free_state = state == MPT_STATE_FREE;
	m->flags = cx3_get32(e, 0x00);
	/* the entry holds the key rotated: (key << 24) | (key >> 8) */
	m->key = hwkey << 8 | hwkey >> 24;
	m->pd = cx3_get32(e, 0x0c) & 0x1ffff;
	m->pd_flags = cx3_get32(e, 0x0c) & ~0x1ffffu;
	m->start = cx3_get64(e, 0x10);
	m->length = cx3_get64(e, 0x18);
	m->buf.mtt_off = cx3_get64(e, 0x2c);
	m->mtt_sz = cx3_get32(e, 0x34);
	m->buf.page_shift = cx3_get32(e, 0x38) & 0x3f;
	if ((hwkey & ((1u << dev->hca.log_mpts) - 1)) != idx) {
		cx3_log(dev, "MPT 0x%x: key 0x%x does not match its index", idx,
			m->key);
		return -1;
	}
	if (!(m->flags & MPT_FLAG_REGION)) {
		/* a window: its range comes from a bind */
		m->window = true;
		m->type2 = cx3_get32(e, 0x04) & MPT_QP_BOUND_QP;
		if (m->type2 != m->free_state) {
			cx3_log(dev, "MPT 0x%x: a type %d window in status 0x%x",
				idx, m->type2 ? 2 : 1, state);
			return -1;
		}
		m->start = 0;
		m->length = 0;
		return 0;
	}
	/* a free MR gets its translation from a FAST_REG work request */
	if (!m->free_state && !(m->flags & MPT_FLAG_PHYSICAL)) {
		if (m->buf.page_shift < 12 || m->buf.page_shift > 40) {
			cx3_log(dev, "MPT 0x%x: page shift %u", idx,
				m->buf.page_shift);
			return -1;
		}
		m->buf.size = ((m->start & ((1ull << m->buf.page_shift) - 1)) +
			       m->length);
	}
	return 0;
}

uint8_t cx3_cmd_sw2hw_mpt(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint32_t idx = mpt_index(dev, cmd->in_mod);
	struct cx3_mpt *m = dev->mpts[idx];
	uint8_t e[CX3_DMPT_ENTRY];

	if (cmd->in_mod >= 1u << dev->hca.log_mpts)
		return CX3_STAT_BAD_INDEX;
	if (m && m->hw)
		return CX3_STAT_BAD_RES_STATE;
	if (!cx3_ctx_mapped(dev, dev->hca.dmpt_base, idx, CX3_DMPT_ENTRY))
		return CX3_STAT_ICM_ERROR;
	if (cx3_cmd_inbox(dev, cmd, CX3_DMPT_ENTRY))
		return CX3_STAT_BAD_PARAM;
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return CX3_STAT_EXCEED_LIM;
		dev->mpts[idx] = m;
	}
	if (mpt_parse(dev, m, cmd->inbox, idx))
		return CX3_STAT_BAD_PARAM;
	memcpy(e, cmd->inbox, sizeof(e));
	if (!m->free_state)
		e[0] = MPT_STATUS_HW;
	if (cx3_icm_write(dev, dmpt_va(dev, idx), e, sizeof(e)))
		return CX3_STAT_ICM_ERROR;
	m->hw = true;
	dev->live.mpt++;
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_hw2sw_mpt(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint32_t idx = mpt_index(dev, cmd->in_mod);
	struct cx3_mpt *m = dev->mpts[idx];
	uint8_t status = MPT_STATUS_SW;

	if (cmd->in_mod >= 1u << dev->hca.log_mpts)
		return CX3_STAT_BAD_INDEX;
	if (!m || !m->hw)
		return CX3_STAT_BAD_RES_STATE;
	/*
	 * A region with windows bound to it stays, refused with REG_BOUND:
	 * 6.1's mlx4_core takes that status (and only that one) from
	 * HW2SW_MPT as the user's doing rather than a failed card.
	 */
	if (!m->window && m->win_cnt)
		return CX3_STAT_REG_BOUND;
	/* a window going away no longer holds its region */
	if (m->window && m->bound) {
		struct cx3_mpt *r = dev->mpts[m->mr_idx];

		if (r && r->win_cnt) {
			r->win_cnt--;
			cx3_mpt_store(dev, r->key, r);
		}
		m->bound = false;
	}
	if (cmd->op_mod == 0) {
		if (cx3_icm_read(dev, dmpt_va(dev, idx), cmd->outbox,
				 CX3_DMPT_ENTRY))
			return CX3_STAT_ICM_ERROR;
		cmd->out_len = CX3_DMPT_ENTRY;
	}
	cx3_icm_write(dev, dmpt_va(dev, idx), &status, 1);
	m->hw = false;		/* kept for SYNC_TPT until reused or reset */
	dev->live.mpt--;
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_query_mpt(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint32_t idx = mpt_index(dev, cmd->in_mod);

	if (!dev->mpts[idx] || !dev->mpts[idx]->hw)
		return CX3_STAT_BAD_RES_STATE;
	if (cx3_icm_read(dev, dmpt_va(dev, idx), cmd->outbox, CX3_DMPT_ENTRY))
		return CX3_STAT_ICM_ERROR;
	cmd->out_len = CX3_DMPT_ENTRY;
	return CX3_STAT_OK;
}

/*
 * SYNC_TPT: the driver edited software-owned entries in ICM and set their
 * status back to hardware; take them over again.  The command only makes
 * the card drop what it cached of the table: it does not fail because of
 * an entry.  Records of entries the driver freed are kept (HW2SW_MPT looks
 * the same for a re-registration and a deregistration); if such an entry
 * now reads hardware-owned but malformed (its ICM was unmapped and mapped
 * again on zeroed pages), it is forgotten, and gives no access.
 */
uint8_t cx3_cmd_sync_tpt(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint8_t e[CX3_DMPT_ENTRY];
	uint32_t i;

	(void)cmd;
	for (i = 0; i < 1u << dev->hca.log_mpts; i++) {
		struct cx3_mpt *m = dev->mpts[i];

		if (!m || m->hw)
			continue;
		if (cx3_icm_read(dev, dmpt_va(dev, i), e, sizeof(e)) ||
		    e[0] != MPT_STATUS_HW)
			continue;
		if (mpt_parse(dev, m, e, i)) {
			cx3_log(dev, "SYNC_TPT: MPT 0x%x reads hardware-owned but malformed: left invalid",
				i);
			free(m);
			dev->mpts[i] = NULL;
			continue;
		}
		m->hw = true;
		dev->live.mpt++;
	}
	return CX3_STAT_OK;
}

/* MTT writes by command exist only for multi-function devices. */
uint8_t cx3_cmd_write_mtt(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	(void)dev;
	(void)cmd;
	return CX3_STAT_BAD_OP;
}

uint8_t cx3_cmd_read_mtt(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	(void)dev;
	(void)cmd;
	return CX3_STAT_BAD_OP;
}

struct cx3_mpt *cx3_mpt_find(struct cx3_dev *dev, uint32_t key)
{
	struct cx3_mpt *m;

	if (!dev->mpts)
		return NULL;
	m = dev->mpts[mpt_index(dev, key >> 8)];
	return m && m->hw ? m : NULL;
}

/*
 * Write what a work request changed in an entry back to its ICM copy
 * (status, rights, key, range, page size, window count), so that the
 * driver reads the entry as the card left it (HW2SW_MPT's mailbox,
 * QUERY_MPT).
 */
void cx3_mpt_store(struct cx3_dev *dev, uint32_t key, const struct cx3_mpt *m)
{
	uint32_t idx = mpt_index(dev, key >> 8);
	uint8_t e[CX3_DMPT_ENTRY];

	if (cx3_icm_read(dev, dmpt_va(dev, idx), e, sizeof(e)))
		return;
	cx3_put32(e, 0x00, (m->free_state ? (uint32_t)MPT_STATE_FREE << 28 : 0) |
		  (m->flags & 0x0fffffffu));
	cx3_put32(e, 0x08, m->key >> 8 | m->key << 24);
	cx3_put64(e, 0x10, m->start);
	cx3_put64(e, 0x18, m->length);
	cx3_put32(e, 0x24, m->win_cnt);
	if (!m->window)
		cx3_put32(e, 0x38, m->buf.page_shift);
	cx3_icm_write(dev, dmpt_va(dev, idx), e, sizeof(e));
}

/* Copy through a region's translation, within its range. */
static int mpt_xfer(struct cx3_dev *dev, struct cx3_mpt *m, uint64_t va,
		    void *data, size_t len, bool write)
{
	uint64_t off;
	int err;

	if (m->flags & MPT_FLAG_PHYSICAL) {
		err = write ? dev->host.dma_write(dev->host.opaque, va, data, len) :
			      dev->host.dma_read(dev->host.opaque, va, data, len);
		return err ? CX3_MR_DMA : CX3_MR_OK;
	}
	if (va < m->start || len > m->length || va - m->start > m->length - len)
		return CX3_MR_BAD_BOUNDS;
	off = (m->start & ((1ull << m->buf.page_shift) - 1)) + (va - m->start);
	err = write ? cx3_buf_write(dev, &m->buf, off, data, len) :
		      cx3_buf_read(dev, &m->buf, off, data, len);
	return err ? CX3_MR_DMA : CX3_MR_OK;
}

/*
 * The data path's access to memory through a key: check the key, PD,
 * rights and bounds, then copy through the MTT (or directly for a
 * physical region).  A window's key is no L_Key.
 */
int cx3_mr_rw(struct cx3_dev *dev, uint32_t key, uint32_t pd, uint64_t va,
	      void *data, size_t len, unsigned int access, bool write)
{
	struct cx3_mpt *m = cx3_mpt_find(dev, key);

	if (!m || m->free_state || m->key != key || m->window)
		return CX3_MR_BAD_KEY;
	if (m->pd != pd)
		return CX3_MR_BAD_PD;
	if ((((m->flags >> MPT_ACCESS_SHIFT) & 0x1f) & access) != access)
		return CX3_MR_BAD_ACCESS;
	return mpt_xfer(dev, m, va, data, len, write);
}

int cx3_mr_remote(struct cx3_dev *dev, uint32_t rkey, uint32_t pd,
		  uint32_t qpn, uint64_t va, void *data, size_t len,
		  unsigned int access, bool write)
{
	struct cx3_mpt *w = cx3_mpt_find(dev, rkey), *r;

	if (!w || !w->window)
		return cx3_mr_rw(dev, rkey, pd, va, data, len, access, write);
	/* an unbound or invalidated window answers no key */
	if (w->free_state || !w->bound || w->key != rkey)
		return CX3_MR_BAD_KEY;
	if (w->type2 && w->bound_qpn != qpn)
		return CX3_MR_BAD_KEY;
	if (w->pd != pd)
		return CX3_MR_BAD_PD;
	if ((w->rights & access) != access)
		return CX3_MR_BAD_ACCESS;
	if (w->zero_based)
		va += w->start;
	if (va < w->start || len > w->length || va - w->start > w->length - len)
		return CX3_MR_BAD_BOUNDS;
	r = dev->mpts[w->mr_idx];
	if (!r || !r->hw || r->free_state)
		return CX3_MR_BAD_KEY;
	return mpt_xfer(dev, r, va, data, len, write);
}

void cx3_mpt_clear_all(struct cx3_dev *dev)
{
	uint32_t i;

	if (!dev->mpts)
		return;
	for (i = 0; i < 1u << dev->hca.log_mpts; i++) {
		if (dev->mpts[i]) {
			if (dev->mpts[i]->hw)
				dev->live.mpt--;
			free(dev->mpts[i]);
			dev->mpts[i] = NULL;
		}
	}
}

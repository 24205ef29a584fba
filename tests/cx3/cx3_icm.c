// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the firmware area, auxiliary ICM and ICM page maps, and
 * address translation through MTT entries.
 *
 * ICM is the card's private virtual memory, backed by guest pages through
 * MAP_ICM.  The model keeps contexts to itself, but reads the MTT and dMPT
 * tables from ICM because the driver's CPU writes them directly.  The map
 * is a two-level table of 4 KiB pages, filled and emptied at run time.
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_cmds.h"

#define ICM_PAGE_SHIFT		12
#define ICM_PAGE		(1ull << ICM_PAGE_SHIFT)
#define LEAF_BITS		14
#define LEAF_SIZE		(1u << LEAF_BITS)
#define TOP_SIZE		(1u << (CX3_ICM_MAX_LOG - ICM_PAGE_SHIFT - LEAF_BITS))
#define PRESENT			1ull

struct cx3_icm_map {
	uint64_t *leaf[TOP_SIZE];	/* pa | PRESENT per 4 KiB page */
	unsigned int leaf_used[TOP_SIZE];
};

struct cx3_icm_map *cx3_icm_new(void)
{
	return calloc(1, sizeof(struct cx3_icm_map));
}

void cx3_icm_free(struct cx3_icm_map *m)
{
	unsigned int i;

	if (!m)
		return;
	for (i = 0; i < TOP_SIZE; i++)
		free(m->leaf[i]);
	free(m);
}

static uint64_t *icm_slot(struct cx3_icm_map *m, uint64_t vpn, bool create)
{
	uint64_t top = vpn >> LEAF_BITS;

	if (top >= TOP_SIZE)
		return NULL;
	if (!m->leaf[top]) {
		if (!create)
			return NULL;
		m->leaf[top] = calloc(LEAF_SIZE, sizeof(uint64_t));
		if (!m->leaf[top])
			return NULL;
	}
	return &m->leaf[top][vpn & (LEAF_SIZE - 1)];
}

int cx3_icm_to_pa(struct cx3_dev *dev, uint64_t va, uint64_t *pa)
{
	uint64_t *e = icm_slot(dev->icm, va >> ICM_PAGE_SHIFT, false);

	if (!e || !(*e & PRESENT))
		return -1;
	*pa = (*e & ~(ICM_PAGE - 1)) | (va & (ICM_PAGE - 1));
	return 0;
}

bool cx3_icm_mapped(struct cx3_dev *dev, uint64_t va, size_t len)
{
	uint64_t pa, p;

	for (p = va & ~(ICM_PAGE - 1); p < va + len; p += ICM_PAGE)
		if (cx3_icm_to_pa(dev, p, &pa))
			return false;
	return true;
}

static int icm_rw(struct cx3_dev *dev, uint64_t va, void *buf, size_t len,
		  bool write)
{
	uint8_t *b = buf;
	uint64_t pa;
	size_t n;
	int err;

	while (len) {
		n = ICM_PAGE - (va & (ICM_PAGE - 1));
		if (n > len)
			n = len;
		if (cx3_icm_to_pa(dev, va, &pa)) {
			cx3_log(dev, "ICM access at 0x%llx: not mapped",
				(unsigned long long)va);
			return -1;
		}
		err = write ? dev->host.dma_write(dev->host.opaque, pa, b, n) :
			      dev->host.dma_read(dev->host.opaque, pa, b, n);
		if (err) {
			cx3_log(dev, "ICM page at 0x%llx maps to 0x%llx, not guest memory",
				(unsigned long long)va, (unsigned long long)pa);
			return -1;
		}
		va += n;
		b += n;
		len -= n;
	}
	return 0;
}

int cx3_icm_read(struct cx3_dev *dev, uint64_t va, void *buf, size_t len)
{
	return icm_rw(dev, va, buf, len, false);
}

int cx3_icm_write(struct cx3_dev *dev, uint64_t va, const void *buf,
		  size_t len)
{
	return icm_rw(dev, va, (void *)buf, len, true);
}

bool cx3_ctx_mapped(struct cx3_dev *dev, uint64_t base, uint32_t idx,
		    uint32_t entry_sz)
{
	uint64_t va = base + (uint64_t)idx * entry_sz;

	if (cx3_icm_mapped(dev, va, entry_sz))
		return true;
	cx3_log(dev, "context at ICM 0x%llx (index 0x%x) has no ICM mapped",
		(unsigned long long)va, idx);
	return false;
}

/*
 * Page lists of MAP_FA, MAP_ICM_AUX and MAP_ICM: in_mod entries of 16
 * bytes, {ICM VA (MAP_ICM only), PA | log2(size in 4 KiB pages)}.
 */
static uint8_t map_pages(struct cx3_dev *dev, struct cx3_cmd *cmd,
			 bool with_va, unsigned long *count)
{
	uint32_t n = cmd->in_mod, i;
	uint64_t va, pa, pages, k, *slot;
	unsigned int lg;

	if (n == 0 || n > CX3_MAILBOX / 16)
		return CX3_STAT_BAD_PARAM;
	if (cx3_cmd_inbox(dev, cmd, n * 16))
		return CX3_STAT_BAD_PARAM;
	for (i = 0; i < n; i++) {
		va = cx3_get64(cmd->inbox, i * 16);
		pa = cx3_get64(cmd->inbox, i * 16 + 8);
		lg = pa & 0x3f;
		pa &= ~(ICM_PAGE - 1);
		pages = 1ull << lg;
		if (lg > 20 || pa & ((pages << ICM_PAGE_SHIFT) - 1) ||
		    (with_va && va & ((pages << ICM_PAGE_SHIFT) - 1))) {
			cx3_log(dev, "map entry %u: PA 0x%llx VA 0x%llx log %u misaligned",
				i, (unsigned long long)pa,
				(unsigned long long)va, lg);
			return CX3_STAT_BAD_PARAM;
		}
		if (dev->host.dma_read(dev->host.opaque, pa, NULL,
				       pages << ICM_PAGE_SHIFT)) {
			cx3_log(dev, "map entry %u: PA 0x%llx is not guest memory",
				i, (unsigned long long)pa);
			return CX3_STAT_BAD_PARAM;
		}
		if (!with_va) {
			*count += pages;
			continue;
		}
		for (k = 0; k < pages; k++) {
			slot = icm_slot(dev->icm, (va >> ICM_PAGE_SHIFT) + k, true);
			if (!slot) {
				cx3_log(dev, "MAP_ICM VA 0x%llx beyond the ICM size",
					(unsigned long long)va);
				return CX3_STAT_BAD_PARAM;
			}
			if (*slot & PRESENT) {
				cx3_log(dev, "MAP_ICM VA 0x%llx is already mapped",
					(unsigned long long)(va + (k << ICM_PAGE_SHIFT)));
				return CX3_STAT_BAD_PARAM;
			}
			*slot = (pa + (k << ICM_PAGE_SHIFT)) | PRESENT;
			dev->icm->leaf_used[(va >> ICM_PAGE_SHIFT) >> LEAF_BITS]++;
			(*count)++;
		}
	}
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_map_fa(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	if (dev->fw_running)
		return CX3_STAT_BAD_SYS_STATE;
	return map_pages(dev, cmd, false, &dev->live.fa_pages);
}

uint8_t cx3_cmd_unmap_fa(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	(void)cmd;
	dev->live.fa_pages = 0;
	dev->fw_running = false;
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_map_icm_aux(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	return map_pages(dev, cmd, false, &dev->live.aux_pages);
}

uint8_t cx3_cmd_unmap_icm_aux(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	(void)cmd;
	dev->live.aux_pages = 0;
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_map_icm(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	if (!dev->live.aux_pages && dev->icm_size) {
		cx3_log(dev, "MAP_ICM before MAP_ICM_AUX");
		return CX3_STAT_BAD_SYS_STATE;
	}
	return map_pages(dev, cmd, true, &dev->live.icm_pages);
}

/*
 * UNMAP_ICM: in_param = ICM VA, in_mod = number of 4 KiB pages.  The driver
 * unmaps whole 256 KiB chunks even where it mapped only the first pages of
 * a table's last chunk, so pages that are not mapped are skipped.
 */
uint8_t cx3_cmd_unmap_icm(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint64_t vpn = cmd->in_param >> ICM_PAGE_SHIFT, k, *slot;
	uint64_t top;

	if (cmd->in_param & (ICM_PAGE - 1))
		return CX3_STAT_BAD_PARAM;
	for (k = 0; k < cmd->in_mod; k++) {
		slot = icm_slot(dev->icm, vpn + k, false);
		if (!slot || !(*slot & PRESENT))
			continue;
		*slot = 0;
		dev->live.icm_pages--;
		top = (vpn + k) >> LEAF_BITS;
		if (--dev->icm->leaf_used[top] == 0) {
			free(dev->icm->leaf[top]);
			dev->icm->leaf[top] = NULL;
		}
	}
	return CX3_STAT_OK;
}

/* ---------------------------------------------------------------------- */
/* MTT translation */

static int mtt_lookup(struct cx3_dev *dev, const struct cx3_buf *b,
		      uint64_t off, uint64_t *pa)
{
	uint64_t idx = off >> b->page_shift, e;
	uint8_t raw[8];

	if (cx3_icm_read(dev, dev->hca.mtt_base + b->mtt_off + idx * 8, raw, 8))
		return -1;
	e = cx3_get64(raw, 0);
	if (!(e & 1)) {
		cx3_log(dev, "MTT entry at offset 0x%llx is not present",
			(unsigned long long)(b->mtt_off + idx * 8));
		return -1;
	}
	*pa = (e & ~((1ull << b->page_shift) - 1)) |
	      (off & ((1ull << b->page_shift) - 1));
	return 0;
}

static int buf_rw(struct cx3_dev *dev, const struct cx3_buf *b, uint64_t off,
		  void *data, size_t len, bool write)
{
	uint64_t page = 1ull << b->page_shift, pa;
	uint8_t *d = data;
	size_t n;
	int err;

	if (off + len > b->size || off + len < off) {
		cx3_log(dev, "buffer access 0x%llx+%zu beyond its size 0x%llx",
			(unsigned long long)off, len,
			(unsigned long long)b->size);
		return -1;
	}
	while (len) {
		n = page - (off & (page - 1));
		if (n > len)
			n = len;
		if (mtt_lookup(dev, b, off, &pa))
			return -1;
		err = write ? dev->host.dma_write(dev->host.opaque, pa, d, n) :
			      dev->host.dma_read(dev->host.opaque, pa, d, n);
		if (err) {
			cx3_log(dev, "buffer page at 0x%llx is not guest memory",
				(unsigned long long)pa);
			return -1;
		}
		off += n;
		d += n;
		len -= n;
	}
	return 0;
}

int cx3_buf_read(struct cx3_dev *dev, const struct cx3_buf *b, uint64_t off,
		 void *data, size_t len)
{
	return buf_rw(dev, b, off, data, len, false);
}

int cx3_buf_write(struct cx3_dev *dev, const struct cx3_buf *b, uint64_t off,
		  const void *data, size_t len)
{
	return buf_rw(dev, b, off, (void *)data, len, true);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: BlueFlame.  BAR2 holds the UAR pages (the doorbells,
 * cx3_regs.c) and after them, one BlueFlame page per UAR index.  A page has
 * CX3_BF_REGS registers of CX3_BF_REG bytes; writers use each register as
 * two halves, alternately, and write into a half a whole send WQE, from its
 * control segment on, in 64-byte chunks, instead of ringing the doorbell:
 * the control segment's owner_opcode carries the WQE's SQ counter in bits
 * 23:8 and its second dword the QP number in bits 31:8 and the WQE's size
 * (16-byte units) in bits 5:0.  Once that many bytes (rounded up to 64) have
 * arrived, the card executes the WQE from the bytes it was given, without
 * reading it from the send queue; no doorbell follows.
 *
 * The writers (libmlx4, mlx4_en) also leave the WQE in the queue, which the
 * RC requester reads again for a resend, as for any WQE.
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_qp.h"

/* one BlueFlame page: what has been written to it, and how far each half is */
struct cx3_bf_page {
	uint8_t b[CX3_UAR_PAGE];
	uint16_t got[CX3_UAR_PAGE / CX3_BF_HALF];	/* bytes in order */
	bool bad[CX3_UAR_PAGE / CX3_BF_HALF];	/* out of order: skip it */
};

void cx3_bf_clear(struct cx3_dev *dev)
{
	size_t i;

	for (i = 0; i < CX3_UAR_AREA / CX3_UAR_PAGE; i++) {
		free(dev->bf[i]);
		dev->bf[i] = NULL;
	}
}

/* A whole WQE arrived in a half: hand it to its QP and start it. */
static void bf_post(struct cx3_dev *dev, const uint8_t *b, size_t size)
{
	uint32_t qpn = cx3_get32(b, 4) >> 8;
	uint16_t idx = (uint16_t)(cx3_get32(b, 0) >> 8);
	struct cx3_qp *qp = cx3_qp_get(dev, qpn);

	if (!qp || !qp->sq.cnt) {
		cx3_log(dev, "BlueFlame WQE for QP 0x%x, which has no send queue, ignored",
			qpn);
		return;
	}
	if (size > (1u << qp->sq.stride_shift)) {
		cx3_log(dev, "QP 0x%x: BlueFlame WQE of %zu bytes is larger than a WQE of its queue, ignored",
			qpn, size);
		return;
	}
	/* the next WQE to start is at most a queue's length behind */
	if ((uint16_t)(idx - qp->sq.cons) >= qp->sq.cnt) {
		cx3_log(dev, "QP 0x%x: BlueFlame WQE %u outside the send queue (consumer %u), ignored",
			qpn, idx, qp->sq.cons & 0xffff);
		return;
	}
	memcpy(qp->bf_wqe, b, size);
	qp->bf_idx = idx;
	qp->bf_len = (uint16_t)size;
	dev->bf_wqes++;
	cx3_qp_send_doorbell(dev, qpn);
}

/* A write of size bytes at off from the start of the BlueFlame area. */
void cx3_bf_write(struct cx3_dev *dev, uint32_t off, uint64_t val,
		  unsigned int size)
{
	uint32_t page = off / CX3_UAR_PAGE, in = off % CX3_UAR_PAGE;
	uint32_t half = in / CX3_BF_HALF, at = in % CX3_BF_HALF;
	struct cx3_bf_page *p;
	size_t want;
	unsigned int i;

	if (page >= CX3_UAR_AREA / CX3_UAR_PAGE || size > 8 ||
	    at + size > CX3_BF_HALF)
		return;
	p = dev->bf[page];
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return;
		dev->bf[page] = p;
	}
	if (at == 0) {
		p->got[half] = 0;	/* a new WQE */
		p->bad[half] = false;
	} else if (p->bad[half]) {
		return;
	} else if (at != p->got[half]) {
		cx3_log(dev, "BlueFlame page %u: write at 0x%x out of order (0x%x expected), WQE dropped",
			page, in, (unsigned int)(half * CX3_BF_HALF + p->got[half]));
		p->bad[half] = true;
		return;
	}
	for (i = 0; i < size; i++)
		p->b[half * CX3_BF_HALF + at + i] = (uint8_t)(val >> (8 * i));
	p->got[half] += size;
	if (p->got[half] < 8)
		return;
	want = (size_t)(p->b[half * CX3_BF_HALF + 7] & 0x3f) * 16;
	if (want < 16 || want > CX3_BF_HALF) {
		cx3_log(dev, "BlueFlame page %u: a WQE of %zu bytes dropped (a half holds %u)",
			page, want, CX3_BF_HALF);
		p->bad[half] = true;
		return;
	}
	if (p->got[half] < ((want + 63) & ~(size_t)63))
		return;
	p->bad[half] = true;	/* done; the next WQE starts at 0 again */
	bf_post(dev, p->b + half * CX3_BF_HALF, want);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the send queue's prefetch contract, checked.  A real
 * card reads its send queue ahead of the WQEs it was given, in 64-byte
 * lines, and takes a line other than a WQE's first as valid unless it
 * starts with the stamp 0xffffffff (the owner bit is in the first line
 * only).  So the drivers keep every line but the first of the slots within
 * 2 KB after the last posted WQE stamped: all of them at RESET->INIT, and
 * after each post the slot that enters that window (mlx4_ib's and
 * libmlx4's stamp_send_wqe; they stamp the last one right after the
 * doorbell).  The model does not prefetch; at each send doorbell it checks
 * that those slots, less the one stamped after the doorbell, are stamped,
 * and logs a "prefetch contract" line, once per QP, when one is not (the
 * test suite fails a run on it).  Strides of 1024 bytes are not checked:
 * their size does not fit the control segment's 6-bit field, and the
 * upstream drivers leave them unstamped after a reset.
 */
#include "cx3.h"
#include "cx3_qp.h"

#define PF_WINDOW	2048u		/* how far the card reads ahead */
#define PF_LINE		64u
#define PF_STAMP	0xffffffffu

void cx3_prefetch_check(struct cx3_dev *dev, struct cx3_qp *qp)
{
	uint32_t stride = 1u << qp->sq.stride_shift, idx, n, k, line, free, dw;
	uint8_t b[4];
	uint64_t off;

	if (qp->prefetch_warned || !qp->sq.cnt || stride <= PF_LINE || stride >= 1024)
		return;
	/* the first WQE not posted */
	idx = qp->sq.cons;
	for (k = 0; k < qp->sq.cnt && cx3_qp_sq_posted(dev, qp, idx); k++)
		idx++;
	free = qp->sq.cnt - k;
	n = PF_WINDOW >> qp->sq.stride_shift;
	if (n > free)
		n = free;
	for (k = 0; k < n; k++, idx++) {
		off = qp->sq.off + ((uint64_t)(idx & (qp->sq.cnt - 1)) << qp->sq.stride_shift);
		for (line = PF_LINE; line < stride; line += PF_LINE) {
			if (cx3_buf_read(dev, &qp->buf, off + line, b, 4))
				return;
			dw = cx3_get32(b, 0);
			if (dw == PF_STAMP)
				continue;
			qp->prefetch_warned = true;
			cx3_log(dev, "QP 0x%x: prefetch contract: send WQE %u, %u after the last posted, has 0x%08x at +%u, not the stamp",
				qp->qpn, idx & 0xffff, k, dw, line);
			return;
		}
	}
}

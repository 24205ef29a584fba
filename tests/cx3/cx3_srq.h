/* SPDX-License-Identifier: GPL-2.0 */
/* ConnectX-3 model: shared receive queues (cx3_srq.c). */
#ifndef CX3_SRQ_H
#define CX3_SRQ_H

#include "cx3.h"

struct cx3_srq {
	uint32_t srqn;
	uint32_t cnt;		/* WQEs, a power of two */
	uint8_t stride_shift;
	struct cx3_buf buf;
	uint32_t pd;
	uint32_t xrcd;		/* XRC SRQ: its domain; 0 for a plain SRQ */
	uint32_t cqn;		/* XRC SRQ: the CQ of its receive completions */
	uint64_t db_rec;	/* u32: WQEs posted (16-bit counter) */
	uint16_t limit;		/* ARM_SRQ watermark; 0 = disarmed */
	uint16_t head;		/* index of the next WQE to consume */
	uint32_t consumed;
	uint8_t ctx[0x30];
};

#endif /* CX3_SRQ_H */

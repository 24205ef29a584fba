/* SPDX-License-Identifier: GPL-2.0 */
/* ConnectX-3 model: memory regions as the data path sees them (cx3_mpt.c). */
#ifndef CX3_MR_H
#define CX3_MR_H

#include "cx3.h"

/* Access rights, as the bits of an MPT entry's access field */
#define CX3_ACC_LOCAL_READ	(1u << 0)
#define CX3_ACC_LOCAL_WRITE	(1u << 1)
#define CX3_ACC_REMOTE_READ	(1u << 2)
#define CX3_ACC_REMOTE_WRITE	(1u << 3)
#define CX3_ACC_ATOMIC		(1u << 4)

enum {
	CX3_MR_OK		= 0,
	CX3_MR_BAD_KEY		= -1,
	CX3_MR_BAD_PD		= -2,
	CX3_MR_BAD_ACCESS	= -3,
	CX3_MR_BAD_BOUNDS	= -4,
	CX3_MR_DMA		= -5,
};

int cx3_mr_rw(struct cx3_dev *dev, uint32_t key, uint32_t pd, uint64_t va,
	      void *data, size_t len, unsigned int access, bool write);

#endif /* CX3_MR_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ConnectX-3 model: memory regions and windows as the data path sees them
 * (cx3_mpt.c: the table and key checks; cx3_mw.c: binding, fast
 * registration, invalidation).
 */
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

/*
 * The model's record of an MPT entry.  A region has the REGION flag; an
 * entry without it is a memory window: type 1 (valid from SW2HW_MPT on,
 * unbound until a bind gives it a range) or type 2 (BOUND_QP in the qpn
 * field; free until a bind ties it to a QP).
 */
struct cx3_mpt {
	bool hw;		/* hardware-owned; otherwise awaiting SYNC_TPT */
	bool free_state;	/* hardware-owned, not registered: no access */
	uint32_t flags;
	uint32_t key;		/* as the driver posts it in WQEs */
	uint32_t pd;
	uint32_t pd_flags;	/* EN_INV, FAST_REG, RAE (pd_flags 31:17) */
	uint64_t start;
	uint64_t length;
	uint32_t mtt_sz;	/* fast-register MR: MTT entries it owns */
	struct cx3_buf buf;	/* MTT translation unless physical */
	uint32_t win_cnt;	/* region: windows bound to it */
	/* windows */
	bool window;
	bool type2;
	bool bound;		/* has a range of an MR */
	bool zero_based;	/* remote addresses are offsets in the window */
	unsigned int rights;	/* CX3_ACC_REMOTE_* and CX3_ACC_ATOMIC */
	uint32_t bound_qpn;	/* type 2: the only QP it answers on */
	uint32_t mr_idx;	/* the region it is bound to */
};

#define CX3_MPT_PD_EN_INV	(3u << 24)
#define CX3_MPT_PD_FAST_REG	(1u << 27)

struct cx3_mpt *cx3_mpt_find(struct cx3_dev *dev, uint32_t key);
void cx3_mpt_store(struct cx3_dev *dev, uint32_t key, const struct cx3_mpt *m);

int cx3_mr_rw(struct cx3_dev *dev, uint32_t key, uint32_t pd, uint64_t va,
	      void *data, size_t len, unsigned int access, bool write);
/*
 * Remote access through an R_Key arriving on QP qpn of PD pd: a region's,
 * or a bound window's (its rights and range, then its region's
 * translation).
 */
int cx3_mr_remote(struct cx3_dev *dev, uint32_t rkey, uint32_t pd,
		  uint32_t qpn, uint64_t va, void *data, size_t len,
		  unsigned int access, bool write);

/* cx3_mw.c: invalidation by a SEND with Invalidate; 0 if done */
int cx3_mw_remote_invalidate(struct cx3_dev *dev, uint32_t rkey, uint32_t pd,
			     uint32_t qpn);

#endif /* CX3_MR_H */

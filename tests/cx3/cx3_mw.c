// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the work requests that change the protection table
 * instead of moving data: BIND_MW (memory windows, type 1 through
 * ibv_bind_mw and type 2B posted by the application), FMR (fast
 * registration of an ib_alloc_mr region, kernel only), LOCAL_INVAL, and
 * the invalidation a SEND with Invalidate asks of the responder.
 *
 * They run in the send queue's order: the send engines call
 * cx3_wqe_local_op when such a WQE's turn comes, after every earlier WQE
 * has been transmitted (the driver marks them STRONG_ORDER); one that must
 * also wait for earlier RDMA READs and atomics to finish carries the
 * fence, which the RC requester honours as for any WQE.
 *
 * The rules are those of the IBA (chapter 10.6.7: windows, 10.7.2:
 * fast registration and invalidation) as mlx4_ib and libmlx4 build the
 * WQEs; which checks a ConnectX-3 makes in which order, and the completion
 * syndrome of a failed fast registration or invalidation, are guesses
 * (noted where made).
 */
#include <string.h>

#include "cx3.h"
#include "cx3_mr.h"
#include "cx3_qp.h"
#include "cx3_wqe.h"

/* MPT entry flags (rights 14:10, BIND_ENABLE 15) */
#define MPT_FLAG_BIND_ENABLE	(1u << 15)
#define MPT_PERM_SHIFT		10
#define MPT_PERM_MASK		(0x3fu << MPT_PERM_SHIFT)

/* Bind segment (mlx4_wqe_bind_seg): rights in flags1, type in flags2 */
#define BIND_ATOMIC		(1u << 31)
#define BIND_REMOTE_WRITE	(1u << 30)
#define BIND_REMOTE_READ	(1u << 29)
#define BIND_TYPE_2		(1u << 31)
#define BIND_ZERO_BASED		(1u << 30)

/* Fast-register segment (mlx4_wqe_fmr_seg) rights */
#define FMR_LOCAL_READ		(1u << 27)
#define FMR_LOCAL_WRITE		(1u << 28)
#define FMR_REMOTE_READ		(1u << 29)
#define FMR_REMOTE_WRITE	(1u << 30)
#define FMR_ATOMIC		(1u << 31)

#define MTT_PRESENT		1ull
#define FMR_MAX_PAGES		511	/* mlx4_ib's max_fast_reg_page_list_len */

bool cx3_wqe_is_local(uint8_t opcode)
{
	return opcode == WQE_BIND_MW || opcode == WQE_FMR ||
	       opcode == WQE_LOCAL_INVAL;
}

/* The window's region no longer holds it. */
static void unbind(struct cx3_dev *dev, struct cx3_mpt *w)
{
	struct cx3_mpt *r;

	if (!w->bound)
		return;
	r = dev->mpts[w->mr_idx];
	if (r && r->win_cnt) {
		r->win_cnt--;
		cx3_mpt_store(dev, r->key, r);
	}
	w->bound = false;
	w->start = 0;
	w->length = 0;
}

/*
 * BIND_MW: the window whose index new_rkey names takes new_rkey and a range
 * of the region lkey names.  Type 1 may be bound again at any time (the
 * new bind replaces the old one); type 2 only from the free state, and it
 * then answers on this QP only.  A length of zero leaves the window without
 * a range (how ibv_bind_mw unbinds a type 1 window).
 */
static int bind_mw(struct cx3_dev *dev, struct cx3_qp *qp,
		   const struct cx3_swqe *w)
{
	const uint8_t *s = w->b + 16;
	uint32_t f1, f2, new_rkey, lkey;
	uint64_t addr, len;
	struct cx3_mpt *win, *r = NULL;
	unsigned int rights = 0;

	if (w->size < 16 + 32)
		return SYN_MW_BIND;
	f1 = cx3_get32(s, 0);
	f2 = cx3_get32(s, 4);
	new_rkey = cx3_get32(s, 8);
	lkey = cx3_get32(s, 12);
	addr = cx3_get64(s, 16);
	len = cx3_get64(s, 24);
	if (f1 & BIND_REMOTE_READ)
		rights |= CX3_ACC_REMOTE_READ;
	if (f1 & BIND_REMOTE_WRITE)
		rights |= CX3_ACC_REMOTE_WRITE;
	if (f1 & BIND_ATOMIC)
		rights |= CX3_ACC_ATOMIC;

	win = cx3_mpt_find(dev, new_rkey);
	if (!win || !win->window || win->type2 != !!(f2 & BIND_TYPE_2) ||
	    win->pd != qp->pd)
		goto fail;
	if (win->type2 && !win->free_state)
		goto fail;		/* bound: invalidate it first */
	if (len) {
		r = cx3_mpt_find(dev, lkey);
		if (!r || r->window || r->free_state || r->key != lkey ||
		    r->pd != qp->pd || !(r->flags & MPT_FLAG_BIND_ENABLE))
			goto fail;
		if (addr < r->start || len > r->length ||
		    addr - r->start > r->length - len)
			goto fail;
		/* IBA: remote write or atomic through a window needs local write */
		if ((rights & (CX3_ACC_REMOTE_WRITE | CX3_ACC_ATOMIC)) &&
		    !(r->flags & (CX3_ACC_LOCAL_WRITE << MPT_PERM_SHIFT)))
			goto fail;
	}
	unbind(dev, win);
	win->key = new_rkey;
	win->rights = rights;
	win->zero_based = f2 & BIND_ZERO_BASED;
	if (win->type2) {
		/* a type 2 window is bound (valid) even with no range */
		win->free_state = false;
		win->bound_qpn = qp->qpn;
	}
	if (r) {
		win->bound = true;
		win->start = addr;
		win->length = len;
		win->mr_idx = lkey >> 8 & ((1u << dev->hca.log_mpts) - 1);
		r->win_cnt++;
		cx3_mpt_store(dev, r->key, r);
	}
	cx3_mpt_store(dev, win->key, win);
	return 0;

fail:
	cx3_log(dev, "QP 0x%x: bind of window 0x%x to lkey 0x%x [0x%llx+0x%llx] refused",
		qp->qpn, new_rkey, lkey, (unsigned long long)addr,
		(unsigned long long)len);
	return SYN_MW_BIND;
}

/*
 * Invalidate the entry key names (LOCAL_INVAL, or a SEND with Invalidate
 * when remote): a type 2 window or a fast-register region of the PD goes
 * back to the free state.  A type 1 window cannot be invalidated.  The
 * key of an entry already free is accepted again (guess: a consumer may
 * invalidate locally what the peer invalidated already).
 */
static int invalidate(struct cx3_dev *dev, uint32_t key, uint32_t pd,
		      uint32_t qpn, bool remote)
{
	struct cx3_mpt *m = cx3_mpt_find(dev, key);

	if (!m || m->key != key || m->pd != pd)
		return -1;
	if (remote && !(m->pd_flags & CX3_MPT_PD_EN_INV))
		return -1;
	if (m->window) {
		if (!m->type2)
			return -1;
		/* IBA: remote invalidation only by the QP it is bound to */
		if (remote && !m->free_state && m->bound_qpn != qpn)
			return -1;
		unbind(dev, m);
	} else if (!(m->pd_flags & CX3_MPT_PD_FAST_REG)) {
		return -1;
	}
	m->free_state = true;
	cx3_mpt_store(dev, key, m);
	return 0;
}

int cx3_mw_remote_invalidate(struct cx3_dev *dev, uint32_t rkey, uint32_t pd,
			     uint32_t qpn)
{
	if (invalidate(dev, rkey, pd, qpn, true)) {
		cx3_log(dev, "QP 0x%x: remote invalidation of 0x%x refused",
			qpn, rkey);
		return -1;
	}
	return 0;
}

static int local_inval(struct cx3_dev *dev, struct cx3_qp *qp,
		       const struct cx3_swqe *w)
{
	uint32_t key;

	if (w->size < 16 + 32)
		return SYN_LOCAL_PROT;
	key = cx3_get32(w->b, 16 + 8);
	if (invalidate(dev, key, qp->pd, qp->qpn, false)) {
		cx3_log(dev, "QP 0x%x: local invalidation of 0x%x refused",
			qp->qpn, key);
		return SYN_LOCAL_PROT;	/* guess */
	}
	return 0;
}

/*
 * FMR: register a free fast-register region of the QP's PD with the new
 * key, range, page size and rights of the segment; its page list (big-
 * endian page addresses with the present bit, in host memory) becomes the
 * region's MTT entries, as many as the range covers and at most the MTT
 * range the region was allocated with.
 */
static int fast_reg(struct cx3_dev *dev, struct cx3_qp *qp,
		    const struct cx3_swqe *w)
{
	const uint8_t *s = w->b + 16;
	uint32_t f, key, shift, i, npages;
	uint64_t list, start, len, mask, ent;
	uint8_t pages[FMR_MAX_PAGES * 8];
	unsigned int acc = 0;
	struct cx3_mpt *m;

	if (w->size < 16 + 48)
		goto fail;
	f = cx3_get32(s, 0x00);
	key = cx3_get32(s, 0x04);
	list = cx3_get64(s, 0x08);
	start = cx3_get64(s, 0x10);
	len = cx3_get64(s, 0x18);
	shift = cx3_get32(s, 0x24);
	m = cx3_mpt_find(dev, key);
	if (!m || m->window || !(m->pd_flags & CX3_MPT_PD_FAST_REG) ||
	    !m->free_state || m->pd != qp->pd)
		goto fail;
	if (shift < 12 || shift > 40)
		goto fail;
	mask = (1ull << shift) - 1;
	if (len > (uint64_t)FMR_MAX_PAGES << shift)
		goto fail;
	npages = (uint32_t)(((start & mask) + len + mask) >> shift);
	if (npages > m->mtt_sz || npages > FMR_MAX_PAGES)
		goto fail;
	if (f & FMR_LOCAL_READ)
		acc |= CX3_ACC_LOCAL_READ;
	if (f & FMR_LOCAL_WRITE)
		acc |= CX3_ACC_LOCAL_WRITE;
	if (f & FMR_REMOTE_READ)
		acc |= CX3_ACC_REMOTE_READ;
	if (f & FMR_REMOTE_WRITE)
		acc |= CX3_ACC_REMOTE_WRITE;
	if (f & FMR_ATOMIC)
		acc |= CX3_ACC_ATOMIC;
	/* IBA: remote write or atomic access needs local write */
	if ((acc & (CX3_ACC_REMOTE_WRITE | CX3_ACC_ATOMIC)) &&
	    !(acc & CX3_ACC_LOCAL_WRITE))
		goto fail;
	if (npages && dev->host.dma_read(dev->host.opaque, list, pages,
					 (size_t)npages * 8))
		goto fail;
	for (i = 0; i < npages; i++) {
		ent = cx3_get64(pages, i * 8);
		if (!(ent & MTT_PRESENT))
			goto fail;
	}
	if (npages && cx3_icm_write(dev, dev->hca.mtt_base + m->buf.mtt_off,
				    pages, (size_t)npages * 8))
		goto fail;
	m->key = key;
	m->start = start;
	m->length = len;
	m->buf.page_shift = (uint8_t)shift;
	m->buf.size = (start & mask) + len;
	m->flags = (m->flags & ~MPT_PERM_MASK) | acc << MPT_PERM_SHIFT;
	m->free_state = false;
	cx3_mpt_store(dev, key, m);
	return 0;

fail:
	cx3_log(dev, "QP 0x%x: fast registration of key 0x%x refused", qp->qpn,
		w->size >= 16 + 48 ? cx3_get32(s, 0x04) : 0);
	return SYN_LOCAL_PROT;		/* guess */
}

int cx3_wqe_local_op(struct cx3_dev *dev, struct cx3_qp *qp,
		     const struct cx3_swqe *w)
{
	switch (w->opcode) {
	case WQE_BIND_MW:
		return bind_mw(dev, qp, w);
	case WQE_FMR:
		return fast_reg(dev, qp, w);
	case WQE_LOCAL_INVAL:
		return local_inval(dev, qp, w);
	default:
		return SYN_LOCAL_QP_OP;
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the ConnectX-3 model's memory windows, fast registration and
 * invalidation, between the RC pair of rcpair.c (A on port 1 is the
 * requester of the RDMA traffic, B on port 2 its responder; B's own send
 * queue posts the binds and registrations its peer's requests then use):
 * - QUERY_DEV_CAP offers MEM_WINDOW and the BMME bits mlx4_ib reads;
 * - window entries as mlx4_mw_enable sends them: type 1 valid but unbound,
 *   type 2 free; neither gives access, neither is an L_Key;
 * - BIND_MW: each check (MR valid, key, PD of window and MR, the MR's bind
 *   right, range, local write for remote write, window type, a type 2
 *   window must be free) fails the WQE with MW_BIND_ERR and the QP to
 *   error; a bound window's rights, range, zero-based addressing, QP (type
 *   2) and PD rule remote access; a zero length unbinds; the MR's window
 *   count is kept, and HW2SW_MPT of a region with windows bound fails;
 * - LOCAL_INVAL and SEND with Invalidate (IETH, receive opcode 0x03 with
 *   the key in immed_rss_invalid) of type 2 windows and fast-register MRs;
 *   deallocation of a bound type 2 window;
 * - FMR (fast registration): page list into the MR's MTT range, new key,
 *   rights, the free-state, PD, fast-register, length and present-bit
 *   checks; the registered MR serves local and remote access;
 * - the local WQEs complete in order with the WQEs around them, on RC (in
 *   the requester's window, like a NOP) and UC.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcpair.h"
#include "cx3_mr.h"
#include "mpt.h"
#include "cx3_qp.h"

#define W_SEND_INV	0x01
#define W_BIND		0x18
#define W_FMR		0x19
#define W_LOCAL_INV	0x1b
#define W_NOP		0x00
#define STRONG_ORDER	(1u << 7)
#define SYN_LOCAL_PROT	0x04
#define SYN_FLUSH	0x05
#define SYN_MW_BIND	0x06
#define SYN_INV_REQ	0x12
#define SYN_ACCESS	0x13
#define B_SEND_LAST_INV	0x16
#define B_SEND_ONLY_INV	0x17
#define R_SEND		0x01
#define R_SEND_INV	0x03

/* MPT entries of this test */
#define P_ALL		(P_LR | P_LW | P_RR | P_RW | P_ATOMIC)
#define OTHER_PD	9

#define MR_BIND		20	/* indexes */
#define MR_NOBIND	21
#define MR_PD9		22
#define MR_NOLW		23
#define W1		30
#define W2		31
#define W1_PD9		33
#define FR		40
#define FR_MTT		32	/* its MTT entries: 32..39 */
#define FR_MTT_SZ	8
#define KEY(i, v)	((uint32_t)(i) << 8 | (v))

/* bind segment rights and flags */
#define MW_RR		(1u << 29)
#define MW_RW		(1u << 30)
#define MW_ATOMIC	(1u << 31)
#define MW_TYPE2	(1u << 31)
#define MW_ZERO		(1u << 30)
/* fast-register segment rights */
#define FMR_LR		(1u << 27)
#define FMR_LW		(1u << 28)
#define FMR_RR		(1u << 29)
#define FMR_RW		(1u << 30)

/* guest memory of the fast-register MR: a page list and two pages */
#define PLIST		(MEM_BASE + 0x40c000)
#define FR_PAGE0	(MEM_BASE + 0x40d000)
#define FR_PAGE1	(MEM_BASE + 0x40e000)
#define FR_VA		0x50000000ull

#define QPU		12	/* a UC QP, A's buffers (test_uc) */

static unsigned int b_sq;
static struct wire_pkt pk, f_pk[4];

static bool take_any(struct wire_pkt *out)
{
	return nwire && wire_take(wire[0].port, out);
}

static unsigned int deliver_all(void)
{
	unsigned int n = 0;

	while (take_any(&pk) && n < 1000) {
		deliver(&pk);
		n++;
	}
	return n;
}

static bool reset(void)
{
	b_sq = 0;
	return pair_reset();
}

static uint8_t *icm_mpt(unsigned int idx)
{
	return gp(ICM_PA + 0x050000 + idx * 64);
}

static uint32_t hwkey(uint32_t key)
{
	return key << 24 | key >> 8;
}

static int sw2hw(unsigned int idx)
{
	return cmd(MBOX, idx, 0x00d, 0);
}

static int hw2sw(unsigned int idx)
{
	return cmd(0, idx, 0x00f, 1);
}

static int reg_mr(unsigned int idx, uint8_t v, uint32_t pd, uint32_t perms)
{
	uint8_t *m = gp(MBOX);

	memset(m, 0, 4096);
	cx3_put32(m, 0x00, 0xfu << 28 | 1u << 17 | F_REGION | perms);
	cx3_put32(m, 0x08, hwkey(KEY(idx, v)));
	cx3_put32(m, 0x0c, pd | PD_EN_INV);
	cx3_put64(m, 0x10, RC_VA);
	cx3_put64(m, 0x18, 8192);
	cx3_put64(m, 0x2c, 7 * 8);
	cx3_put32(m, 0x38, 12);
	return sw2hw(idx);
}

/* A window as mlx4_mw_enable sends it */
static int alloc_mw(unsigned int idx, uint8_t v, uint32_t pd, bool type2)
{
	uint8_t *m = gp(MBOX);

	memset(m, 0, 4096);
	cx3_put32(m, 0x08, hwkey(KEY(idx, v)));
	cx3_put32(m, 0x0c, pd | (type2 ? PD_EN_INV : 0));
	if (type2) {
		cx3_put32(m, 0x00, 0x3u << 28);
		cx3_put32(m, 0x04, 1u << 7);
	}
	return sw2hw(idx);
}

/* A fast-register MR as mlx4_mr_enable sends it for ib_alloc_mr */
static uint32_t fr_pd_flags = PD_EN_INV | PD_FAST_REG | PD_RAE;

static int alloc_fr(unsigned int idx, uint8_t v, uint32_t pd,
		    unsigned int mtt, unsigned int mtt_sz)
{
	uint8_t *m = gp(MBOX);

	memset(m, 0, 4096);
	cx3_put32(m, 0x00, 0x3u << 28 | 1u << 17 | F_REGION);
	cx3_put32(m, 0x08, hwkey(KEY(idx, v)));
	cx3_put32(m, 0x0c, pd | fr_pd_flags);
	cx3_put64(m, 0x2c, mtt * 8);
	cx3_put32(m, 0x34, mtt_sz);
	return sw2hw(idx);
}

/* B's next send WQE, not yet posted */
static uint8_t *b_wqe(uint8_t opcode, unsigned int size16)
{
	uint8_t *w = gp(QPB_BUF) + (b_sq & 7) * 64;

	memset(w, 0, 64);
	w[0] = (b_sq & 8) ? 0x00 : 0x80;
	w[3] = opcode;
	w[7] = (uint8_t)size16;
	cx3_put32(w, 8, 3u << 2 | STRONG_ORDER);
	return w;
}

static void b_post(uint8_t *w)
{
	w[0] = (b_sq & 8) ? 0x80 : 0x00;
	b_sq++;
	cx3_qp_send_doorbell(&dev, QPB);
}

static void bind_seg(uint8_t *w, uint32_t f1, uint32_t f2, uint32_t rkey,
		     uint32_t lkey, uint64_t addr, uint64_t len)
{
	cx3_put32(w, 16, f1);
	cx3_put32(w, 20, f2);
	cx3_put32(w, 24, rkey);
	cx3_put32(w, 28, lkey);
	cx3_put64(w, 32, addr);
	cx3_put64(w, 40, len);
}

/* B binds a window (type 2 if f2 says so) */
static void b_bind(uint32_t f1, uint32_t f2, uint32_t rkey, uint32_t lkey,
		   uint64_t addr, uint64_t len)
{
	uint8_t *w = b_wqe(W_BIND, 3);

	bind_seg(w, f1, f2, rkey, lkey, addr, len);
	b_post(w);
}

static void b_local_inv(uint32_t key)
{
	uint8_t *w = b_wqe(W_LOCAL_INV, 3);

	cx3_put32(w, 24, key);
	b_post(w);
}

static void fmr_seg(uint8_t *w, uint32_t rights, uint32_t key, uint64_t va,
		    uint64_t len, uint32_t shift)
{
	cx3_put32(w, 16, rights);
	cx3_put32(w, 20, key);
	cx3_put64(w, 24, PLIST);
	cx3_put64(w, 32, va);
	cx3_put64(w, 40, len);
	cx3_put32(w, 48, 0);
	cx3_put32(w, 52, shift);
}

static void b_fmr(uint32_t rights, uint32_t key, uint64_t va, uint64_t len)
{
	uint8_t *w = b_wqe(W_FMR, 4);

	fmr_seg(w, rights, key, va, len, 12);
	b_post(w);
}

/* A's RDMA WRITE of len bytes from MR offset 0x1000 to va through rkey */
static void a_write(uint64_t va, uint32_t rkey, uint32_t len)
{
	uint8_t *w = sq_wqe(W_WRITE, 3, va);

	cx3_put32(w, 24, rkey);
	dseg(w, 32, len, RC_VA + 0x1000);
	sq_post(w);
}


/* A's SEND with Invalidate of rkey, len bytes from MR offset 0x1000 */
static void a_send_inv(uint32_t rkey, uint32_t len)
{
	uint8_t *w = sq_wqe(W_SEND_INV, 2, 0);

	cx3_put32(w, 12, rkey);
	dseg(w, 16, len, RC_VA + 0x1000);
	sq_post(w);
}

static void pattern(uint8_t *p, unsigned int len, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + 1);
}

static bool has_pattern(const uint8_t *p, unsigned int len, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)(seed * 31 + i * 7 + 1))
			return false;
	return true;
}

/* One completion expected: of qpn, send or receive, opcode or syndrome */
static bool one_cqe(uint32_t qpn, bool send, uint8_t opcode, uint8_t syn)
{
	struct seen c[8];
	unsigned int n = cq_drain(c, 8);

	if (n != 1) {
		printf("  (%u completions)\n", n);
		return false;
	}
	if (c[0].qpn != qpn || c[0].send != send ||
	    (syn ? c[0].opcode != 0x1e || c[0].syndrome != syn :
		   c[0].opcode != opcode)) {
		printf("  (CQE qpn 0x%x send %d opcode 0x%x syndrome 0x%x)\n",
		       c[0].qpn, c[0].send, c[0].opcode, c[0].syndrome);
		return false;
	}
	return true;
}

/* A's RDMA WRITE through rkey, delivered: its completion's syndrome */
static int write_through(uint64_t va, uint32_t rkey, uint32_t len,
			 unsigned int seed)
{
	struct seen c[8];
	unsigned int n;

	pattern(mr(0x1000), len, seed);
	a_write(va, rkey, len);
	deliver_all();
	n = cq_drain(c, 8);
	if (n != 1 || c[0].qpn != QPA)
		return -1;
	return c[0].opcode == 0x1e ? c[0].syndrome : 0;
}

static uint8_t qp_state(uint32_t qpn)
{
	struct cx3_qp *qp = cx3_qp_get(&dev, qpn);

	return qp ? qp->state : 0xff;
}

static void test_caps(void)
{
	uint8_t *o = gp(MBOX + 0x1000);
	uint64_t flags;
	uint32_t bmme;

	check(cmd(0, 0, 0x003, 0) == 0, "QUERY_DEV_CAP");
	flags = (uint64_t)cx3_get32(o, 0x40) << 32 | cx3_get32(o, 0x44);
	bmme = cx3_get32(o, 0x94);
	check(flags & (1ull << 16), "MEM_WINDOW offered (flags bit 16)");
	check((bmme & 0xac2) == 0xac2 && !(bmme & (1u << 10)),
	      "BMME: TYPE_2_WIN, WIN_TYPE_2B, LOCAL_INV, REMOTE_INV, FAST_REG_WR; no reserved lkey (0x%x)",
	      bmme);
}

static void test_alloc(void)
{
	uint8_t buf[8];

	check(reg_mr(MR_BIND, 0x11, PD, P_ALL | P_BIND) == 0 &&
	      reg_mr(MR_NOBIND, 0x12, PD, P_ALL) == 0 &&
	      reg_mr(MR_PD9, 0x13, OTHER_PD, P_ALL | P_BIND) == 0 &&
	      reg_mr(MR_NOLW, 0x14, PD, P_LR | P_RR | P_RW | P_BIND) == 0,
	      "regions with and without the bind right, of another PD, without local write");
	check(alloc_mw(W1, 0x20, PD, false) == 0 && icm_mpt(W1)[0] >> 4 == 0,
	      "a type 1 window: SW2HW_MPT, valid (status 0 in ICM)");
	check(alloc_mw(W2, 0x30, PD, true) == 0 && icm_mpt(W2)[0] >> 4 == 3,
	      "a type 2 window: SW2HW_MPT, free (status 3 in ICM)");
	check(alloc_mw(W1_PD9, 0x40, OTHER_PD, false) == 0,
	      "a type 1 window of another PD");
	check(cx3_mr_remote(&dev, KEY(W1, 0x20), PD, QPB, RC_VA, buf, 8,
			    CX3_ACC_REMOTE_READ, false) == CX3_MR_BAD_KEY &&
	      cx3_mr_remote(&dev, KEY(W2, 0x30), PD, QPB, RC_VA, buf, 8,
			    CX3_ACC_REMOTE_READ, false) == CX3_MR_BAD_KEY,
	      "no remote access through an unbound window");
	check(cx3_mr_rw(&dev, KEY(W1, 0x20), PD, RC_VA, buf, 8, 0, false) ==
	      CX3_MR_BAD_KEY, "a window's key is no L_Key");
}

static void test_type1(void)
{
	uint32_t rkey = KEY(W1, 0x21);
	uint8_t buf[8];

	check(reset(), "type 1: the pair reset");
	b_bind(MW_RW, 0, rkey, KEY(MR_BIND, 0x11), RC_VA + 0x100, 0x200);
	check(one_cqe(QPB, true, W_BIND, 0),
	      "BIND_MW of a type 1 window: send CQE opcode 0x18");
	check(cx3_get32(icm_mpt(MR_BIND), 0x24) == 1,
	      "the region counts the window (win_cnt 1 in its entry)");
	check(write_through(RC_VA + 0x180, rkey, 64, 1) == 0 &&
	      has_pattern(mr(0x180), 64, 1),
	      "an RDMA WRITE through the window's new rkey lands in the region");
	check(write_through(RC_VA + 0x2c0, rkey, 128, 2) == SYN_ACCESS &&
	      qp_state(QPB) == CX3_QPS_ERR,
	      "a WRITE running past the window's end: Remote Access Error (0x13)");
	check(reset(), "the pair reset");
	check(write_through(RC_VA + 0x180, KEY(W1, 0x20), 8, 3) == SYN_ACCESS,
	      "the window's key before the bind no longer works");
	check(reset(), "the pair reset");
	check(cx3_mr_remote(&dev, rkey, PD, QPB, RC_VA + 0x100, buf, 8,
			    CX3_ACC_REMOTE_READ, false) == CX3_MR_BAD_ACCESS,
	      "a right the bind did not grant (remote read): refused");
	check(cx3_mr_remote(&dev, rkey, OTHER_PD, QPB, RC_VA + 0x100, buf, 8,
			    CX3_ACC_REMOTE_WRITE, false) == CX3_MR_BAD_PD,
	      "access from a QP of another PD: refused");
	check(hw2sw(MR_BIND) == CX3_STAT_REG_BOUND && cx3_mpt_find(&dev, KEY(MR_BIND, 0x11)),
	      "HW2SW_MPT of a region with a window bound fails with REG_BOUND (0x21), the region stays");

	/* bound again: the old range goes */
	b_bind(MW_RW | MW_RR, MW_ZERO, KEY(W1, 0x22), KEY(MR_BIND, 0x11),
	       RC_VA + 0x1400, 0x100);
	check(one_cqe(QPB, true, W_BIND, 0) &&
	      cx3_get32(icm_mpt(MR_BIND), 0x24) == 1,
	      "bound again, zero-based: still one window on the region");
	check(write_through(0x10, KEY(W1, 0x22), 32, 4) == 0 &&
	      has_pattern(mr(0x1410), 32, 4),
	      "a zero-based window takes offsets: 0x10 is the range's start + 0x10");
	check(write_through(0x100, KEY(W1, 0x22), 1, 5) == SYN_ACCESS,
	      "offset 0x100 of a 0x100-byte zero-based window: Remote Access Error");
	check(reset(), "the pair reset");

	/* a zero length unbinds (how ibv_bind_mw unbinds) */
	b_bind(MW_RW, 0, KEY(W1, 0x23), KEY(MR_BIND, 0x11), 0, 0);
	check(one_cqe(QPB, true, W_BIND, 0) &&
	      cx3_get32(icm_mpt(MR_BIND), 0x24) == 0,
	      "a bind of length 0 unbinds: the region's count back to 0");
	check(write_through(RC_VA + 0x100, KEY(W1, 0x23), 8, 6) == SYN_ACCESS,
	      "a WRITE through the unbound window: Remote Access Error");
	check(reset(), "the pair reset");
}

/* A bind that must fail: MW_BIND_ERR, the QP to error, the next flushed */
static void bind_fails(uint32_t f1, uint32_t f2, uint32_t rkey, uint32_t lkey,
		       uint64_t addr, uint64_t len, const char *what)
{
	struct seen c[8];
	unsigned int n;

	b_bind(f1, f2, rkey, lkey, addr, len);
	b_bind(MW_RW, 0, KEY(W1, 0x2f), KEY(MR_BIND, 0x11), RC_VA, 16);
	n = cq_drain(c, 8);
	check(n == 2 && c[0].qpn == QPB && c[0].opcode == 0x1e &&
	      c[0].syndrome == SYN_MW_BIND && c[1].syndrome == SYN_FLUSH &&
	      qp_state(QPB) == CX3_QPS_ERR,
	      "bind refused, %s: MW_BIND_ERR (0x06), QP to error, the next WQE flushed (%u, 0x%x)",
	      what, n, n ? c[0].syndrome : 0);
	check(reset(), "the pair reset");
}

static void test_bind_errors(void)
{
	uint32_t mrk = KEY(MR_BIND, 0x11);

	bind_fails(MW_RW, 0, KEY(W1, 0x24), KEY(MR_NOBIND, 0x12), RC_VA, 64,
		   "the region lacks the bind right");
	bind_fails(MW_RW, 0, KEY(W1, 0x24), mrk, RC_VA + 8192 - 32, 64,
		   "the range runs past the region's end");
	bind_fails(MW_RW, 0, KEY(W1, 0x24), mrk, RC_VA - 16, 64,
		   "the range starts before the region");
	bind_fails(MW_RW, 0, KEY(W1, 0x24), KEY(MR_PD9, 0x13), RC_VA, 64,
		   "the region is of another PD");
	bind_fails(MW_RW, 0, KEY(W1_PD9, 0x41), mrk, RC_VA, 64,
		   "the window is of another PD");
	bind_fails(MW_RW, 0, KEY(W1, 0x24), KEY(MR_BIND, 0x19), RC_VA, 64,
		   "the lkey's variant is not the region's");
	bind_fails(MW_RW, 0, KEY(W1, 0x24), KEY(50, 0x01), RC_VA, 64,
		   "the lkey names no entry");
	bind_fails(MW_RW, 0, KEY(MR_NOBIND, 0x24), mrk, RC_VA, 64,
		   "the rkey names a region, not a window");
	bind_fails(MW_RW, MW_TYPE2, KEY(W1, 0x24), mrk, RC_VA, 64,
		   "a type 1 window bound as type 2");
	bind_fails(MW_RW, 0, KEY(W2, 0x31), mrk, RC_VA, 64,
		   "a type 2 window bound as type 1");
	bind_fails(MW_RW, 0, KEY(W1, 0x24), KEY(MR_NOLW, 0x14), RC_VA, 64,
		   "remote write through a region without local write");
	bind_fails(MW_ATOMIC, 0, KEY(W1, 0x24), KEY(MR_NOLW, 0x14), RC_VA, 64,
		   "atomics through a region without local write");
	check(cx3_get32(icm_mpt(MR_BIND), 0x24) == 0 &&
	      cx3_get32(icm_mpt(MR_NOLW), 0x24) == 0,
	      "no refused bind counted a window");
}

static void send_inv_fails(uint32_t rkey, const char *what);

static void test_type2(void)
{
	uint32_t mrk = KEY(MR_BIND, 0x11), rkey = KEY(W2, 0x31);
	struct seen c[8];
	unsigned int n;

	check(reset(), "type 2: the pair reset");
	b_bind(MW_RW | MW_RR, MW_TYPE2, rkey, mrk, RC_VA + 0x200, 0x100);
	check(one_cqe(QPB, true, W_BIND, 0) && icm_mpt(W2)[0] >> 4 == 0 &&
	      cx3_get32(icm_mpt(MR_BIND), 0x24) == 1,
	      "BIND_MW of a free type 2 window: CQE 0x18, the window valid, counted");
	check(write_through(RC_VA + 0x200, rkey, 0x100, 7) == 0 &&
	      has_pattern(mr(0x200), 0x100, 7),
	      "an RDMA WRITE through it on the QP it is bound to");
	bind_fails(MW_RW, MW_TYPE2, KEY(W2, 0x32), mrk, RC_VA, 64,
		   "a type 2 window already bound");
	/* the refused bind left it bound to B */
	check(write_through(RC_VA + 0x200, rkey, 8, 8) == 0,
	      "still bound after the refused bind");
	b_local_inv(rkey);
	check(one_cqe(QPB, true, W_LOCAL_INV, 0) && icm_mpt(W2)[0] >> 4 == 3 &&
	      cx3_get32(icm_mpt(MR_BIND), 0x24) == 0,
	      "LOCAL_INVAL: CQE 0x1b, the window free again, the region's count 0");
	check(write_through(RC_VA + 0x200, rkey, 8, 9) == SYN_ACCESS,
	      "a WRITE through the invalidated window: Remote Access Error (0x13)");
	check(reset(), "the pair reset");

	/* bound from A's QP: B does not answer for it */
	{
		uint8_t *w = sq_wqe(W_BIND, 3, 0);

		bind_seg(w, MW_RW, MW_TYPE2, KEY(W2, 0x33), mrk, RC_VA, 0x100);
		sq_post(w);
	}
	check(one_cqe(QPA, true, W_BIND, 0), "A binds the type 2 window");
	check(write_through(RC_VA, KEY(W2, 0x33), 8, 10) == SYN_ACCESS,
	      "a WRITE arriving on B through a window bound to A: Remote Access Error");
	check(reset(), "the pair reset");
	b_local_inv(KEY(W2, 0x33));
	check(one_cqe(QPB, true, W_LOCAL_INV, 0),
	      "B (same PD) invalidates the window A bound");

	/* SEND with Invalidate */
	b_bind(MW_RW, MW_TYPE2, KEY(W2, 0x34), mrk, RC_VA + 0x300, 0x80);
	check(one_cqe(QPB, true, W_BIND, 0), "bound to B again, with a new key");
	rq_post();
	pattern(mr(0x1000), 48, 11);
	a_send_inv(KEY(W2, 0x34), 48);
	check(wire_take(1, &pk) && pk.p.opcode == B_SEND_ONLY_INV &&
	      pk.p.payload_len == 4 + 48 &&
	      cx3_get32(pk.p.payload, 0) == KEY(W2, 0x34),
	      "SEND_INVAL leaves as SEND_ONLY_WITH_INVALIDATE, the rkey in its IETH");
	deliver(&pk);
	{
		uint8_t *e = gp(RC_CQ_BUF) + (rc_ci & 63) * 32;

		check(cx3_get32(e, 0x04) == KEY(W2, 0x34) &&
		      (e[31] & 0x1f) == R_SEND_INV && !(e[31] & 0x40) &&
		      cx3_get32(e, 0x14) == 48,
		      "the receive completes with opcode 0x03, the rkey in immed_rss_invalid");
	}
	deliver_all();
	n = cq_drain(c, 8);
	check(n == 2 && c[1].qpn == QPA && c[1].send && c[1].opcode == W_SEND_INV &&
	      has_pattern(mr(0x400), 48, 11),
	      "the data arrived; the requester's CQE has opcode SEND (0x01)");
	check(icm_mpt(W2)[0] >> 4 == 3 &&
	      write_through(RC_VA + 0x300, KEY(W2, 0x34), 8, 12) == SYN_ACCESS,
	      "the window is free: a WRITE through it gets Remote Access Error");
	check(reset(), "the pair reset");

	/* remote invalidation of a window bound to another QP */
	{
		uint8_t *w = sq_wqe(W_BIND, 3, 0);

		bind_seg(w, MW_RW, MW_TYPE2, KEY(W2, 0x3a), mrk, RC_VA, 0x100);
		sq_post(w);
	}
	check(one_cqe(QPA, true, W_BIND, 0), "A binds the type 2 window");
	send_inv_fails(KEY(W2, 0x3a), "a window bound to the sender's QP, not B");
	b_local_inv(KEY(W2, 0x3a));
	check(one_cqe(QPB, true, W_LOCAL_INV, 0), "B invalidates it locally");

	/* dealloc of a bound window */
	b_bind(MW_RW, MW_TYPE2, KEY(W2, 0x35), mrk, RC_VA, 0x80);
	check(one_cqe(QPB, true, W_BIND, 0), "bound again");
	check(hw2sw(W2) == 0 && cx3_get32(icm_mpt(MR_BIND), 0x24) == 0,
	      "HW2SW_MPT of a bound type 2 window: done, the region's count 0");
	check(write_through(RC_VA, KEY(W2, 0x35), 8, 13) == SYN_ACCESS,
	      "a WRITE through the deallocated window: Remote Access Error");
	check(reset(), "the pair reset");
	check(alloc_mw(W2, 0x36, PD, true) == 0, "the window allocated again");
}

/* A SEND with Invalidate B must refuse: NAK, both sides in error */
static void send_inv_fails(uint32_t rkey, const char *what)
{
	struct seen c[8];
	unsigned int n, i;
	bool rx = false, tx = false;

	rq_post();
	a_send_inv(rkey, 16);
	deliver_all();
	n = cq_drain(c, 8);
	for (i = 0; i < n && i < 8; i++) {
		if (c[i].qpn == QPB && !c[i].send && c[i].opcode == 0x1e)
			rx = true;
		if (c[i].qpn == QPA && c[i].send &&
		    c[i].syndrome == SYN_INV_REQ)
			tx = true;
	}
	check(rx && tx && qp_state(QPB) == CX3_QPS_ERR,
	      "SEND with Invalidate of %s: the receive fails, the requester gets Remote Invalid Request (0x12)",
	      what);
	check(reset(), "the pair reset");
}

static void test_send_inv_errors(void)
{
	uint32_t mrk = KEY(MR_BIND, 0x11);

	b_bind(MW_RW, 0, KEY(W1, 0x25), mrk, RC_VA, 0x80);
	check(one_cqe(QPB, true, W_BIND, 0), "a bound type 1 window");
	send_inv_fails(KEY(W1, 0x25), "a type 1 window");
	send_inv_fails(KEY(MR_BIND, 0x11), "a region that is not fast-register");
	b_bind(MW_RW, MW_TYPE2, KEY(W2, 0x37), mrk, RC_VA, 0x80);
	check(one_cqe(QPB, true, W_BIND, 0), "a bound type 2 window");
	send_inv_fails(KEY(W2, 0x38), "a type 2 window's stale key");
	b_local_inv(KEY(W1, 0x25));
	check(one_cqe(QPB, true, 0, SYN_LOCAL_PROT) &&
	      qp_state(QPB) == CX3_QPS_ERR,
	      "LOCAL_INVAL of a type 1 window: refused (local protection, QP to error)");
	check(reset(), "the pair reset");
	b_local_inv(KEY(MR_BIND, 0x11));
	check(one_cqe(QPB, true, 0, SYN_LOCAL_PROT),
	      "LOCAL_INVAL of a region that is not fast-register: refused");
	check(reset(), "the pair reset");
	b_local_inv(KEY(W2, 0x37));
	check(one_cqe(QPB, true, W_LOCAL_INV, 0), "the type 2 window invalidated");
	b_bind(MW_RW, 0, KEY(W1, 0x26), mrk, 0, 0);
	check(one_cqe(QPB, true, W_BIND, 0) &&
	      cx3_get32(icm_mpt(MR_BIND), 0x24) == 0,
	      "the type 1 window unbound: nothing bound to the region");
	check(hw2sw(MR_NOLW) == 0 && reg_mr(MR_NOLW, 0x15, PD, P_ALL) == 0,
	      "HW2SW_MPT of a region with no windows bound, and registered again");
}

/* The fast-register MR's pages: page 1 first, to see the list rules */
static void page_list(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		cx3_put64(gp(PLIST), i * 8,
			  ((i & 1) ? FR_PAGE0 : FR_PAGE1) | 1);
}

static void fmr_fails(uint32_t rights, uint32_t key, uint64_t len,
		      const char *what)
{
	b_fmr(rights, key, FR_VA, len);
	check(one_cqe(QPB, true, 0, SYN_LOCAL_PROT) &&
	      qp_state(QPB) == CX3_QPS_ERR,
	      "fast registration refused, %s: error CQE, QP to error", what);
	check(reset(), "the pair reset");
}

static void test_frwr(void)
{
	uint32_t key = KEY(FR, 0x01);
	uint8_t buf[16];
	struct seen c[8];
	unsigned int n;

	check(alloc_fr(FR, 0x00, PD, FR_MTT, FR_MTT_SZ) == 0 &&
	      icm_mpt(FR)[0] >> 4 == 3,
	      "ib_alloc_mr: a free fast-register MR, MTT range of 8 entries");
	check(reset(), "FRWR: the pair reset");
	page_list(2);
	memset(gp(FR_PAGE0), 0, 4096);
	memset(gp(FR_PAGE1), 0, 4096);
	b_fmr(FMR_LR | FMR_LW | FMR_RR | FMR_RW, key, FR_VA + 0x80, 0x1f00);
	check(one_cqe(QPB, true, W_FMR, 0), "FMR WQE: send CQE opcode 0x19");
	check(icm_mpt(FR)[0] >> 4 == 0 &&
	      cx3_get32(icm_mpt(FR), 0x08) == hwkey(key) &&
	      cx3_get64(icm_mpt(FR), 0x10) == FR_VA + 0x80 &&
	      cx3_get64(icm_mpt(FR), 0x18) == 0x1f00,
	      "the entry is valid, with the new key, start and length");
	check(cx3_get64(gp(ICM_PA + MTT_VA), FR_MTT * 8) == (FR_PAGE1 | 1) &&
	      cx3_get64(gp(ICM_PA + MTT_VA), (FR_MTT + 1) * 8) == (FR_PAGE0 | 1),
	      "the page list is in the MR's MTT range");
	check(write_through(FR_VA + 0x1000 - 8, key, 16, 14) == 0 &&
	      has_pattern(gp(FR_PAGE1 + 0xff8), 8, 14) &&
	      gp(FR_PAGE0)[0] == (uint8_t)(14 * 31 + 8 * 7 + 1),
	      "a WRITE across the page boundary follows the list (page 1, then page 0)");
	check(cx3_mr_rw(&dev, key, PD, FR_VA + 0x1000 - 8, buf, 16,
			CX3_ACC_LOCAL_READ, false) == 0 &&
	      has_pattern(buf, 16, 14),
	      "the new key serves as L_Key too");
	check(cx3_mr_rw(&dev, KEY(FR, 0x00), PD, FR_VA + 0x80, buf, 8,
			CX3_ACC_LOCAL_READ, false) == CX3_MR_BAD_KEY,
	      "the key before the registration does not");
	check(write_through(FR_VA + 0x40, key, 8, 15) == SYN_ACCESS,
	      "a WRITE before the registered start: Remote Access Error");
	check(reset(), "the pair reset");
	fmr_fails(FMR_LR | FMR_LW, KEY(FR, 0x02), 0x100,
		  "the MR is registered (not free)");
	b_local_inv(key);
	check(one_cqe(QPB, true, W_LOCAL_INV, 0) && icm_mpt(FR)[0] >> 4 == 3,
	      "LOCAL_INVAL of the MR: CQE 0x1b, back to the free state");
	check(cx3_mr_rw(&dev, key, PD, FR_VA + 0x80, buf, 8,
			CX3_ACC_LOCAL_READ, false) == CX3_MR_BAD_KEY,
	      "no access through the invalidated MR");
	b_local_inv(key);
	check(one_cqe(QPB, true, W_LOCAL_INV, 0),
	      "LOCAL_INVAL of the free MR again: accepted (guess)");
	page_list(9);
	fmr_fails(FMR_LR | FMR_LW, KEY(FR, 0x03), 9 * 4096,
		  "the list is longer than the MR's MTT range");
	cx3_put64(gp(PLIST), 8, FR_PAGE0);
	fmr_fails(FMR_LR | FMR_LW, KEY(FR, 0x03), 0x2000,
		  "a list entry without the present bit");
	page_list(2);
	fmr_fails(FMR_LR | FMR_RW, KEY(FR, 0x03), 0x2000,
		  "remote write without local write");
	fmr_fails(FMR_LR | FMR_LW, KEY(MR_NOBIND, 0x03), 0x1000,
		  "the key names a region that is not fast-register");
	fmr_fails(FMR_LR | FMR_LW, KEY(W1, 0x03), 0x1000,
		  "the key names a window");
	fr_pd_flags = PD_EN_INV | PD_RAE;
	check(alloc_fr(FR + 2, 0x00, PD, FR_MTT + 16, 8) == 0,
	      "a free region without FAST_REG in pd_flags");
	fr_pd_flags = PD_EN_INV | PD_FAST_REG | PD_RAE;
	fmr_fails(FMR_LR | FMR_LW, KEY(FR + 2, 0x01), 0x1000,
		  "the free region is not fast-register");
	check(hw2sw(FR + 2) == 0, "it is freed");
	check(alloc_fr(FR + 1, 0x00, OTHER_PD, FR_MTT + 8, 8) == 0,
	      "a fast-register MR of another PD");
	fmr_fails(FMR_LR | FMR_LW, KEY(FR + 1, 0x01), 0x1000,
		  "the MR is of another PD");

	/* registered on B, invalidated by A's SEND with Invalidate */
	b_fmr(FMR_LR | FMR_LW | FMR_RR | FMR_RW, KEY(FR, 0x04), FR_VA, 0x2000);
	check(one_cqe(QPB, true, W_FMR, 0), "registered again with a new key");
	rq_post();
	pattern(mr(0x1000), 600, 16);
	a_send_inv(KEY(FR, 0x04), 600);
	check(wire_take(1, &f_pk[0]) && wire_take(1, &f_pk[1]) &&
	      wire_take(1, &f_pk[2]) && f_pk[0].p.opcode == B_SEND_FIRST &&
	      f_pk[1].p.opcode == 0x01 && f_pk[2].p.opcode == B_SEND_LAST_INV &&
	      cx3_get32(f_pk[2].p.payload, 0) == KEY(FR, 0x04),
	      "a 600-byte SEND_INVAL: FIRST, MIDDLE, LAST_WITH_INVALIDATE with the IETH");
	deliver(&f_pk[0]);
	deliver(&f_pk[1]);
	deliver(&f_pk[2]);
	deliver_all();
	n = cq_drain(c, 8);
	check(n == 2 && !c[0].send && c[0].opcode == R_SEND_INV &&
	      c[0].bytes == 600 && c[1].send && c[1].opcode == W_SEND_INV,
	      "the receive completes with opcode 0x03, the send with SEND");
	check(icm_mpt(FR)[0] >> 4 == 3 &&
	      write_through(FR_VA, KEY(FR, 0x04), 8, 17) == SYN_ACCESS,
	      "the MR is free: Remote Access Error through its old key");
	check(reset(), "the pair reset");
	check(hw2sw(FR + 1) == 0, "the MR of the other PD freed");
	/* without EN_INV in pd_flags, no remote invalidation */
	fr_pd_flags = PD_FAST_REG | PD_RAE;
	check(alloc_fr(FR + 1, 0x00, PD, FR_MTT + 8, 8) == 0,
	      "a fast-register MR without EN_INV");
	fr_pd_flags = PD_EN_INV | PD_FAST_REG | PD_RAE;
	b_fmr(FMR_LR | FMR_LW, KEY(FR + 1, 0x01), FR_VA, 0x1000);
	check(one_cqe(QPB, true, W_FMR, 0), "registered");
	send_inv_fails(KEY(FR + 1, 0x01), "an MR without remote invalidation enabled");
	check(hw2sw(FR) == 0 && hw2sw(FR + 1) == 0, "both MRs freed");
}

/* Local WQEs complete in order with the others; failure after success */
static void test_order(void)
{
	struct seen c[8];
	unsigned int n;
	uint8_t *w;

	check(reset(), "order: the pair reset");
	check(alloc_fr(FR, 0x10, PD, FR_MTT, FR_MTT_SZ) == 0, "a free FRWR MR");
	page_list(2);
	rq_post();
	send_wqe(16);
	w = sq_wqe(W_FMR, 4, 0);
	fmr_seg(w, FMR_LR | FMR_LW, KEY(FR, 0x11), FR_VA, 0x1000, 12);
	sq_post(w);
	w = sq_wqe(W_LOCAL_INV, 3, 0);
	memset(w + 16, 0, 32);
	cx3_put32(w, 24, KEY(FR, 0x11));
	sq_post(w);
	check(cq_drain(c, 8) == 0 && cx3_qp_get(&dev, QPA)->win_cnt == 3,
	      "SEND, FMR, LOCAL_INVAL: all in A's window, nothing completes before the ACK");
	check(icm_mpt(FR)[0] >> 4 == 3,
	      "the FMR and LOCAL_INVAL ran in SQ order (the MR is free again)");
	deliver_all();
	n = cq_drain(c, 8);
	check(n == 4 && c[1].qpn == QPA && c[1].opcode == W_SEND && c[1].wqe == 0 &&
	      c[2].opcode == W_FMR && c[2].wqe == 1 &&
	      c[3].opcode == W_LOCAL_INV && c[3].wqe == 2,
	      "after the ACK: SEND, FMR (0x19), LOCAL_INVAL (0x1b), in order (%u)", n);

	rq_post();
	send_wqe(16);
	w = sq_wqe(W_LOCAL_INV, 3, 0);
	memset(w + 16, 0, 32);
	cx3_put32(w, 24, KEY(MR_BIND, 0x11));
	sq_post(w);
	check(cq_drain(c, 8) == 0, "a failing LOCAL_INVAL behind a SEND waits for it");
	deliver_all();
	n = cq_drain(c, 8);
	check(n == 3 && c[1].qpn == QPA && c[1].opcode == W_SEND &&
	      c[2].opcode == 0x1e && c[2].syndrome == SYN_LOCAL_PROT &&
	      qp_state(QPA) == CX3_QPS_ERR,
	      "the SEND completes, then the LOCAL_INVAL fails and A goes to error (%u)",
	      n);
	check(reset(), "the pair reset");
	check(hw2sw(FR) == 0, "the MR freed");
}

/* A UC QP on A's buffers runs local WQEs at once */
static void test_uc(void)
{
	uint8_t *c = gp(MBOX) + 8, *w;
	struct seen s[8];
	unsigned int n;
	int i, st = 0;

	check(rc_qp_cmd(QPA, 0x021, 0) == 0, "UC: A to RESET (its buffers serve the UC QP)");
	for (i = 0; i < 8; i++)
		gp(QPA_BUF)[i * 64] = 0x80;
	a_sq = 0;
	for (i = 1; i <= 3 && !st; i++) {
		memset(gp(MBOX), 0, 4096);
		cx3_put32(c, 0x00, (unsigned int)i << 28 | 1u << 16);	/* UC */
		cx3_put32(c, 0x04, PD);
		c[0x08] = 1 << 5;
		c[0x09] = 3 << 3 | 0;
		c[0x0a] = 3 << 3 | 2;
		cx3_put32(c, 0x14, QPB);
		cx3_put16(c, 0x18 + 0x06, 2);
		cx3_put32(c, 0x7c, RC_CQN);
		cx3_put32(c, 0x9c, RC_CQN);
		cx3_put64(c, 0xa0, QPA_DB);
		cx3_put32(c, 0xcc, 5 * 8);
		st = cmd(MBOX, QPU, i == 1 ? 0x019 : i == 2 ? 0x01a : 0x01b, 0);
	}
	check(st == 0, "a UC QP to RTS");
	check(alloc_fr(FR, 0x20, PD, FR_MTT, FR_MTT_SZ) == 0, "a free FRWR MR");
	page_list(2);
	w = gp(QPA_BUF);
	memset(w, 0, 64);
	w[3] = W_FMR;
	w[7] = 4;
	cx3_put32(w, 8, 3u << 2 | STRONG_ORDER);
	fmr_seg(w, FMR_LR | FMR_LW, KEY(FR, 0x21), FR_VA, 0x1000, 12);
	w[0] = 0x00;
	w = gp(QPA_BUF) + 64;
	memset(w, 0, 64);
	w[3] = W_LOCAL_INV;
	w[7] = 3;
	cx3_put32(w, 8, 3u << 2 | STRONG_ORDER);
	cx3_put32(w, 24, KEY(FR, 0x21));
	w[0] = 0x00;
	cx3_qp_send_doorbell(&dev, QPU);
	n = cq_drain(s, 8);
	check(n == 2 && s[0].qpn == QPU && s[0].opcode == W_FMR &&
	      s[1].opcode == W_LOCAL_INV && icm_mpt(FR)[0] >> 4 == 3,
	      "UC: FMR and LOCAL_INVAL complete at once, in order (%u)", n);
	w = gp(QPA_BUF) + 128;
	memset(w, 0, 64);
	w[3] = W_SEND_INV;
	w[7] = 2;
	cx3_put32(w, 8, 3u << 2);
	w[0] = 0x00;
	cx3_qp_send_doorbell(&dev, QPU);
	n = cq_drain(s, 8);
	check(n == 1 && s[0].syndrome == 0x02 && nwire == 0,
	      "UC: SEND with Invalidate is not a UC operation (local QP operation error)");
	check(cmd(0, QPU, 0x021, 0) == 0 && hw2sw(FR) == 0, "the UC QP reset, the MR freed");
	nwire = 0;
	check(reset(), "the pair back");
}

int main(void)
{
	if (!card_start())
		return 2;
	check(rc_setup(), "RC: CQ, MR, QPs A and B connected");
	test_caps();
	test_alloc();
	test_type1();
	test_bind_errors();
	test_type2();
	test_send_inv_errors();
	test_frwr();
	test_order();
	test_uc();
	return card_end("test_mwfr");
}

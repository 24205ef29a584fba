/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unit tests' card and RC pair (rcpair.c): the card brought up with
 * ICM in fake memory, and two RC QPs, A on port 1 (LID 1) and B on port 2
 * (LID 2), both ports cabled to "another VM" whose wire is the test: every
 * packet the card sends is captured, and the test delivers it to the other
 * port, late, twice, or not at all.
 */
#ifndef CX3_RCPAIR_H
#define CX3_RCPAIR_H

#include "fake.h"
#include "cx3_pkt.h"

/* guest addresses */
#define MBOX		(MEM_BASE)
#define FA_PAGES	(MEM_BASE + 0x100000)
#define AUX_PAGE	(MEM_BASE + 0x140000)
#define ICM_PA		(MEM_BASE + 0x800000)
#define EQ_BUF		(MEM_BASE + 0x400000)
#define CQ_BUF		(MEM_BASE + 0x401000)
#define QP_BUF		(MEM_BASE + 0x402000)
#define QP_DB		(MEM_BASE + 0x403000)
#define CQ_DB		(MEM_BASE + 0x403100)
#define MR_PAGE		(MEM_BASE + 0x404000)
#define RC_CQ_BUF	(MEM_BASE + 0x405000)
#define RC_CQ_DB	(MEM_BASE + 0x403200)
#define QPA_BUF		(MEM_BASE + 0x406000)
#define QPB_BUF		(MEM_BASE + 0x407000)
#define QPA_DB		(MEM_BASE + 0x403300)
#define QPB_DB		(MEM_BASE + 0x403400)
#define RC_MR_PAGE	(MEM_BASE + 0x408000)

/* ICM layout */
#define MTT_VA		0x100000ull
#define QPN		8	/* test_qp's own QP and CQ */
#define CQN		1
#define PD		5

#define QPA		10
#define QPB		11
#define RC_CQN		2
#define RC_MPT		4
#define RC_KEY		(RC_MPT << 8 | 0x5a)
#define RC_VA		0x80000000ull
#define PSN_A		0xfffffeu	/* A's first PSN: the sequence wraps */
#define PSN_B		0x123456u
#define ACK_TIMEOUT	14		/* 4.096 us << 14: 67 ms */
#define PSN(x)		((x) & 0xffffffu)

/* WQE opcodes, BTH opcodes (RC) and AETH syndromes */
enum {
	W_WRITE = 0x08, W_SEND = 0x0a, W_READ = 0x10, W_FETCH_ADD = 0x12,
	B_SEND_FIRST = 0x00, B_SEND_ONLY = 0x04, B_WRITE_ONLY = 0x0a,
	B_READ_REQ = 0x0c, B_READ_FIRST = 0x0d, B_ACK = 0x11,
	B_ATOMIC_ACK = 0x12, B_FETCH_ADD = 0x14,
	A_ACK = 0x1f, A_NAK_SEQ = 0x60,
};

struct wire_pkt {
	int port;		/* the port that sent it */
	size_t len;
	uint8_t b[IB_MAX_PKT];
	struct cx3_pkt p;	/* parsed */
};


struct seen {
	uint32_t qpn;
	bool send;
	uint8_t opcode;
	uint32_t bytes;
	uint8_t syndrome;	/* of an error CQE (opcode 0x1e) */
	uint16_t wqe;		/* WQE index */
};

extern struct cx3_dev dev;
#define WIRE_MAX	128	/* packets the test's wire holds */
extern struct wire_pkt wire[WIRE_MAX];
extern unsigned int nwire, rc_ci, a_sq, b_rq;
extern unsigned long wire_sent;
extern unsigned int rc_retry, rc_rnr_retry;	/* for the next rc_qp_cmd */

int cmd(uint64_t in, uint32_t in_mod, uint16_t op, uint8_t op_mod);
void mtt_set(unsigned int idx, uint64_t pa);
void bringup(void);
bool card_start(void);
int card_end(const char *name);
void wire_send(void *o, int port, const void *msg, size_t len);
bool wire_take(int port, struct wire_pkt *out);
void deliver(const struct wire_pkt *w);
bool is(const struct wire_pkt *w, uint8_t opcode, uint32_t psn);
bool is_ack(const struct wire_pkt *w, uint8_t aeth, uint32_t psn);
unsigned int cq_drain(struct seen *c, unsigned int max);
int rc_qp_cmd(uint32_t qpn, uint16_t op, unsigned int state);
uint8_t *mr(unsigned int off);
void dseg(uint8_t *w, size_t off, uint32_t len, uint64_t va);
uint8_t *sq_wqe(uint8_t opcode, unsigned int size16, uint64_t raddr);
void sq_post(uint8_t *w);
void send_wqe(uint32_t len);
void rq_post(void);
bool rc_setup(void);
bool pair_reset(void);
bool take_msg(struct wire_pkt *f, unsigned int n, uint8_t op0,
		     uint32_t psn);

#endif /* CX3_RCPAIR_H */

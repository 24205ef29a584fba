/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ConnectX-3 model: InfiniBand packets as they cross a cable.  A packet is
 * LRH [GRH] BTH [XRCETH] [DETH|RETH|AtomicETH|AETH|AtomicAckETH] [ImmDt]
 * payload ICRC,
 * all big-endian, exactly as on a real link (without the VCRC).
 */
#ifndef CX3_PKT_H
#define CX3_PKT_H

#include "cx3.h"

#define IB_LRH_BYTES		8
#define IB_GRH_BYTES		40
#define IB_BTH_BYTES		12
#define IB_DETH_BYTES		8
#define IB_RETH_BYTES		16
#define IB_ATOMIC_ETH_BYTES	28
#define IB_AETH_BYTES		4
#define IB_ATOMIC_ACK_BYTES	8
#define IB_XRCETH_BYTES		4	/* XRC requests: the XRC SRQ number */
#define IB_IMM_BYTES		4
#define IB_IETH_BYTES		4
#define IB_ICRC_BYTES		4
/* the largest packet: headers and a 4096-byte MTU payload, with room */
#define IB_MAX_PKT		8192

#define IB_LNH_LOCAL		2
#define IB_LNH_GLOBAL		3
#define IB_LID_PERMISSIVE	0xffff
#define IB_MCAST_LID_BASE	0xc000
#define IB_QP1_QKEY		0x80010000u
#define IB_PSN_MASK		0xffffffu

/* BTH opcodes (transport in bits 7:5: RC 0, UC 1, UD 3, XRC 5) */
enum {
	IB_OP_SEND_FIRST	= 0x00,
	IB_OP_SEND_MIDDLE	= 0x01,
	IB_OP_SEND_LAST		= 0x02,
	IB_OP_SEND_LAST_IMM	= 0x03,
	IB_OP_SEND_ONLY		= 0x04,
	IB_OP_SEND_ONLY_IMM	= 0x05,
	IB_OP_WRITE_FIRST	= 0x06,
	IB_OP_WRITE_MIDDLE	= 0x07,
	IB_OP_WRITE_LAST	= 0x08,
	IB_OP_WRITE_LAST_IMM	= 0x09,
	IB_OP_WRITE_ONLY	= 0x0a,
	IB_OP_WRITE_ONLY_IMM	= 0x0b,
	IB_OP_READ_REQ		= 0x0c,
	IB_OP_READ_RESP_FIRST	= 0x0d,
	IB_OP_READ_RESP_MIDDLE	= 0x0e,
	IB_OP_READ_RESP_LAST	= 0x0f,
	IB_OP_READ_RESP_ONLY	= 0x10,
	IB_OP_ACK		= 0x11,
	IB_OP_ATOMIC_ACK	= 0x12,
	IB_OP_CMP_SWAP		= 0x13,
	IB_OP_FETCH_ADD		= 0x14,
	IB_OP_SEND_LAST_INV	= 0x16,	/* with IETH: the R_Key to invalidate */
	IB_OP_SEND_ONLY_INV	= 0x17,
	IB_TRANSPORT_RC		= 0x00,
	IB_TRANSPORT_UC		= 0x20,
	IB_TRANSPORT_UD		= 0x60,
	IB_TRANSPORT_XRC	= 0xa0,
};

/* AETH syndromes */
#define AETH_ACK		0x1f	/* ACK, no credit count */
#define AETH_RNR_NAK		0x20	/* | RNR timer */
#define AETH_NAK_PSN_SEQ	0x60	/* NAK code 0: PSN sequence error */
#define AETH_NAK_INV_REQ	0x61
#define AETH_NAK_ACCESS		0x62
#define AETH_NAK_OP_ERR		0x63

/* A packet, parsed */
struct cx3_pkt {
	const uint8_t *raw;
	size_t len;
	int port;		/* ingress port */
	uint8_t vl, sl, lnh;
	uint16_t dlid, slid;
	const uint8_t *grh;	/* NULL without a GRH */
	uint8_t opcode;
	bool se;
	uint16_t pkey;
	uint32_t dqpn;
	uint32_t psn;
	bool ackreq;		/* BTH AckReq: the requester wants an ACK */
	const uint8_t *ext;	/* the extended headers after the BTH */
	const uint8_t *payload;
	size_t payload_len;
};

int cx3_pkt_parse(struct cx3_pkt *p, const uint8_t *raw, size_t len);
/* the ICRC of a packet of len bytes (its last 4, not covered) */
uint32_t cx3_icrc(const uint8_t *pkt, size_t len);

/*
 * PSNs are 24-bit and wrap: the distance from a to b, going forward.  A
 * distance below 2^23 means b is at or after a, otherwise b is before a
 * (IBA chapter 9.7: the half of the PSN space behind the expected PSN is the
 * duplicate region, the half ahead is invalid).
 */
static inline uint32_t cx3_psn_diff(uint32_t a, uint32_t b)
{
	return (b - a) & IB_PSN_MASK;
}

static inline bool cx3_psn_before(uint32_t b, uint32_t a)
{
	return cx3_psn_diff(a, b) >= 0x800000u;
}

/* cx3_link.c: sending a packet out of a port, and what arrives */
void cx3_link_xmit(struct cx3_dev *dev, int port, uint8_t *pkt, size_t len);
void cx3_link_drain(struct cx3_dev *dev);

/* cx3_recv.c: delivery of a parsed packet to a QP on the ingress port */
void cx3_recv_packet(struct cx3_dev *dev, const struct cx3_pkt *p);

#endif /* CX3_PKT_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ConnectX-3 model: the IPoIB stateless offloads of UD QPs (cx3_offload.c).
 * A UD payload they look at is an IPoIB datagram: the 4-byte IPoIB header
 * (ethertype, reserved) and an IPv4 or IPv6 packet.
 */
#ifndef CX3_OFFLOAD_H
#define CX3_OFFLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Send WQE control segment, dword 2 (srcrb_flags): checksums asked for */
#define CX3_CTRL_IP_CSUM	(1u << 4)
#define CX3_CTRL_TCP_UDP_CSUM	(1u << 5)

/* Receive CQE status (u16 @0x10) bits mlx4_ib reads */
#define CX3_CQE_IPV4		(1u << 6)
#define CX3_CQE_IPV4F		(1u << 7)
#define CX3_CQE_IPV6		(1u << 8)
#define CX3_CQE_IPV4OPT		(1u << 9)
#define CX3_CQE_TCP		(1u << 10)
#define CX3_CQE_UDP		(1u << 11)
#define CX3_CQE_IPOK		(1u << 12)

/* The largest LSO message the card takes: QUERY_DEV_CAP u8 @0x2d */
#define CX3_LOG_MAX_GSO		17

/* Fill the checksums a send's control segment asks for (flags: CX3_CTRL_*). */
void cx3_csum_tx(uint8_t *pkt, size_t len, uint32_t flags);

/*
 * What the receive CQE says about a UD payload: *status (CX3_CQE_* bits)
 * and *checksum, the folded one's complement sum of the TCP or UDP
 * segment with its pseudo header (0xffff: it verifies).
 */
void cx3_csum_rx(const uint8_t *pkt, size_t len, uint16_t *status,
		 uint16_t *checksum);

/*
 * Large send: the header (IPoIB, IPv4 or IPv6 without extension headers,
 * TCP; hlen bytes) and the TCP payload split into segments of mss bytes,
 * each sent through emit as one UD payload with its headers fixed up.
 * Returns the number of segments, or -1 if the header is not one the card
 * can segment.
 */
long cx3_lso(const uint8_t *hdr, size_t hlen, const uint8_t *data,
	     size_t len, uint32_t mss,
	     void (*emit)(void *arg, const uint8_t *pkt, size_t n), void *arg);

#endif /* CX3_OFFLOAD_H */

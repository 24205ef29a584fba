// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the IPoIB stateless offloads of UD QPs, as mlx4_ib
 * drives them.  A send whose control segment has IP_CSUM and TCP_UDP_CSUM
 * (IB_SEND_IP_CSUM) gets its IPv4 header and TCP/UDP checksums computed;
 * an LSO WQE (opcode 0x0e: MSS << 16 | header length, then the header
 * inline) is cut into MSS-sized packets that each carry the header with
 * the IP length and ID, the TCP sequence number, flags and every checksum
 * fixed up; a receive reports in its CQE whether the IP header and the
 * TCP/UDP checksum verify (status IPOK and TCP/UDP, checksum 0xffff).
 *
 * Guesses (README "Where the model guesses"): a real card's parser is not
 * documented; the model looks for the IPoIB header (ethertype 0x0800 or
 * 0x86dd) at the start of the UD payload, follows no IPv6 extension
 * header, leaves the L4_CSUM bit of badfcs_enc clear, reports IPOK for an
 * IPv6 packet (which has no header checksum) and a UDP over IPv4 datagram
 * without checksum (0) as verified.
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_offload.h"

#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86dd
#define PROTO_TCP	6
#define PROTO_UDP	17
#define IPOIB_HDR	4
#define TCP_FIN		0x01
#define TCP_PSH		0x08
#define TCP_CWR		0x80

/* Where the layers of an IPoIB datagram are */
struct layers {
	bool v6, frag;
	uint8_t proto;
	size_t ip, l4, end;	/* offsets; end: the IP packet's end */
};

/*
 * Parse the IPoIB and IP headers of pkt; with hdr_only the IP length
 * fields are not checked (an LSO header's describe the whole message).
 */
static bool parse(const uint8_t *pkt, size_t len, bool hdr_only,
		  struct layers *l)
{
	size_t ihl, tot;

	if (len < IPOIB_HDR)
		return false;
	l->ip = IPOIB_HDR;
	switch (cx3_get16(pkt, 0)) {
	case ETH_P_IP:
		if (len < l->ip + 20 || pkt[l->ip] >> 4 != 4)
			return false;
		ihl = (size_t)(pkt[l->ip] & 15) * 4;
		tot = cx3_get16(pkt, l->ip + 2);
		if (ihl < 20 || l->ip + ihl > len)
			return false;
		if (!hdr_only && (tot < ihl || l->ip + tot > len))
			return false;
		l->v6 = false;
		l->frag = cx3_get16(pkt, l->ip + 6) & 0x3fff;
		l->proto = pkt[l->ip + 9];
		l->l4 = l->ip + ihl;
		l->end = hdr_only ? len : l->ip + tot;
		return true;
	case ETH_P_IPV6:
		if (len < l->ip + 40 || pkt[l->ip] >> 4 != 6)
			return false;
		tot = 40 + (size_t)cx3_get16(pkt, l->ip + 4);
		if (!hdr_only && l->ip + tot > len)
			return false;
		l->v6 = true;
		l->frag = false;
		l->proto = pkt[l->ip + 6];
		l->l4 = l->ip + 40;
		l->end = hdr_only ? len : l->ip + tot;
		return true;
	default:
		return false;
	}
}

/* One's complement sum of 16-bit big-endian words (an odd tail padded) */
static uint32_t sum(const uint8_t *b, size_t len, uint32_t acc)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		acc += cx3_get16(b, i);
	if (len & 1)
		acc += (uint32_t)b[len - 1] << 8;
	return acc;
}

static uint16_t fold(uint32_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

/* The folded sum of the L4 segment [l4, end) with its pseudo header */
static uint16_t l4_sum(const uint8_t *pkt, const struct layers *l)
{
	size_t n = l->end - l->l4;
	uint32_t acc;

	if (l->v6)
		acc = sum(pkt + l->ip + 8, 32, 0);
	else
		acc = sum(pkt + l->ip + 12, 8, 0);
	acc += l->proto + (uint32_t)(n & 0xffff) + (uint32_t)(n >> 16);
	return fold(sum(pkt + l->l4, n, acc));
}

static bool l4_ok(const struct layers *l)
{
	size_t min = l->proto == PROTO_TCP ? 20 : 8;

	return !l->frag && (l->proto == PROTO_TCP || l->proto == PROTO_UDP) &&
	       l->l4 + min <= l->end;
}

static void ip4_fill(uint8_t *pkt, const struct layers *l)
{
	size_t ihl = l->l4 - l->ip;

	cx3_put16(pkt, l->ip + 10, 0);
	cx3_put16(pkt, l->ip + 10, (uint16_t)~fold(sum(pkt + l->ip, ihl, 0)));
}

static void l4_fill(uint8_t *pkt, const struct layers *l)
{
	size_t at = l->l4 + (l->proto == PROTO_TCP ? 16 : 6);
	uint16_t c;

	cx3_put16(pkt, at, 0);
	c = (uint16_t)~l4_sum(pkt, l);
	if (l->proto == PROTO_UDP && !c)
		c = 0xffff;		/* 0 would mean "no checksum" */
	cx3_put16(pkt, at, c);
}

void cx3_csum_tx(uint8_t *pkt, size_t len, uint32_t flags)
{
	struct layers l;

	if (!(flags & (CX3_CTRL_IP_CSUM | CX3_CTRL_TCP_UDP_CSUM)) ||
	    !parse(pkt, len, false, &l))
		return;
	if ((flags & CX3_CTRL_IP_CSUM) && !l.v6)
		ip4_fill(pkt, &l);
	if ((flags & CX3_CTRL_TCP_UDP_CSUM) && l4_ok(&l))
		l4_fill(pkt, &l);
}

void cx3_csum_rx(const uint8_t *pkt, size_t len, uint16_t *status,
		 uint16_t *checksum)
{
	struct layers l;

	*status = 0;
	*checksum = 0;
	if (!parse(pkt, len, false, &l))
		return;
	if (l.v6) {
		*status = CX3_CQE_IPV6 | CX3_CQE_IPOK;
	} else {
		*status = CX3_CQE_IPV4 | (l.frag ? CX3_CQE_IPV4F : 0) |
			  (l.l4 - l.ip > 20 ? CX3_CQE_IPV4OPT : 0);
		if (fold(sum(pkt + l.ip, l.l4 - l.ip, 0)) == 0xffff)
			*status |= CX3_CQE_IPOK;
	}
	if (!l4_ok(&l))
		return;
	*status |= l.proto == PROTO_TCP ? CX3_CQE_TCP : CX3_CQE_UDP;
	if (l.proto == PROTO_UDP && !l.v6 && !cx3_get16(pkt, l.l4 + 6))
		*checksum = 0xffff;
	else
		*checksum = l4_sum(pkt, &l);
}

long cx3_lso(const uint8_t *hdr, size_t hlen, const uint8_t *data,
	     size_t len, uint32_t mss,
	     void (*emit)(void *arg, const uint8_t *pkt, size_t n), void *arg)
{
	struct layers l;
	uint8_t *pkt, flags;
	uint32_t seq;
	uint16_t id;
	size_t pos = 0, chunk;
	long i = 0;

	if (!mss || !parse(hdr, hlen, true, &l) || l.proto != PROTO_TCP ||
	    l.frag || l.l4 + 20 > hlen ||
	    l.l4 + (size_t)(hdr[l.l4 + 12] >> 4) * 4 != hlen)
		return -1;
	pkt = malloc(hlen + mss);
	if (!pkt)
		return -1;
	seq = cx3_get32(hdr, l.l4 + 4);
	id = l.v6 ? 0 : cx3_get16(hdr, l.ip + 4);
	flags = hdr[l.l4 + 13];
	do {
		chunk = len - pos < mss ? len - pos : mss;
		memcpy(pkt, hdr, hlen);
		memcpy(pkt + hlen, data + pos, chunk);
		l.end = hlen + chunk;
		if (l.v6) {
			cx3_put16(pkt, l.ip + 4, (uint16_t)(l.end - l.l4));
		} else {
			cx3_put16(pkt, l.ip + 2, (uint16_t)(l.end - l.ip));
			cx3_put16(pkt, l.ip + 4, (uint16_t)(id + i));
			ip4_fill(pkt, &l);
		}
		cx3_put32(pkt, l.l4 + 4, seq + (uint32_t)pos);
		/* CWR on the first segment only, FIN and PSH on the last */
		pkt[l.l4 + 13] = flags & ~(TCP_FIN | TCP_PSH | TCP_CWR);
		if (!i)
			pkt[l.l4 + 13] |= flags & TCP_CWR;
		if (pos + chunk == len)
			pkt[l.l4 + 13] |= flags & (TCP_FIN | TCP_PSH);
		l4_fill(pkt, &l);
		emit(arg, pkt, l.end);
		pos += chunk;
		i++;
	} while (pos < len);
	free(pkt);
	return i;
}

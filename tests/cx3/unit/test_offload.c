// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the ConnectX-3 model's IPoIB offloads (cx3_offload.c):
 * - QUERY_DEV_CAP offers IPOIB_CSUM (flags bit 7), BLH (bit 15) and a
 *   max GSO size (u8 @0x2d, a log), what mlx4_ib turns into
 *   IB_DEVICE_UD_IP_CSUM and IBK_UD_TSO;
 * - send checksums: IPv4 header, TCP and UDP over IPv4 and IPv6 filled in
 *   whatever the fields held, and only those the flags ask for;
 * - receive checksum state: IPV4/IPV6, IPOK, TCP/UDP and a checksum of
 *   0xffff for good packets, none of it for a corrupted header or segment
 *   (mlx4_ib_ipoib_csum_ok() then says no);
 * - LSO: a message cut into MSS-sized segments, each with the header,
 *   IP length, IP ID, TCP sequence number, flags and both checksums fixed
 *   up and its share of the payload; a header the card cannot segment;
 * - the same through the card: a UD QP on port 1 sends an LSO WQE and a
 *   SEND with the checksum bits to a UD QP on port 2, whose receive CQEs
 *   carry the checksum state; the LSO WQE completes once, as opcode 0x0e.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcpair.h"
#include "cx3_offload.h"

#define W_LSO		0x0e
#define CQE_OK_BITS	(CX3_CQE_IPOK | CX3_CQE_TCP | CX3_CQE_UDP)
#define QKEY		0x11223344u
#define IPOIB_HDR	4

/* What mlx4_ib_ipoib_csum_ok() decides from a CQE's status and checksum */
static bool csum_ok(uint16_t status, uint16_t checksum)
{
	return (status & CX3_CQE_IPOK) &&
	       (status & (CX3_CQE_TCP | CX3_CQE_UDP)) && checksum == 0xffff;
}

/* The test's own checksum: the RFC 1071 sum, complemented */
static uint16_t inet_sum(const uint8_t *b, size_t len, uint32_t acc)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		acc += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		acc += (uint32_t)b[len - 1] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

static bool ip4_verifies(const uint8_t *p)
{
	return inet_sum(p + IPOIB_HDR, (p[IPOIB_HDR] & 15) * 4u, 0) == 0xffff;
}

/* the L4 segment of an IPoIB datagram of len bytes verifies */
static bool l4_verifies(const uint8_t *p, size_t len)
{
	const uint8_t *ip = p + IPOIB_HDR;
	bool v6 = (ip[0] >> 4) == 6;
	size_t l4 = v6 ? 40 : (ip[0] & 15) * 4u, n = len - IPOIB_HDR - l4;
	uint32_t acc = (uint32_t)(n + (v6 ? ip[6] : ip[9]));

	acc += v6 ? inet_sum(ip + 8, 32, 0) : inet_sum(ip + 12, 8, 0);
	return inet_sum(ip + l4, n, acc) == 0xffff;
}

/* An IPoIB datagram: IPv4 or IPv6, then TCP (20-byte header) or UDP */
static size_t make_pkt(uint8_t *p, bool v6, uint8_t proto, size_t payload)
{
	size_t ip = v6 ? 40 : 20, l4 = proto == 6 ? 20 : 8, i;
	uint8_t *h = p + IPOIB_HDR, *t = h + ip;

	memset(p, 0, IPOIB_HDR + ip + l4);
	cx3_put16(p, 0, v6 ? 0x86dd : 0x0800);
	if (v6) {
		h[0] = 0x60;
		cx3_put16(h, 4, (uint16_t)(l4 + payload));
		h[6] = proto;
		h[7] = 64;
		for (i = 0; i < 32; i++)
			h[8 + i] = (uint8_t)(0xfe + i * 7);
	} else {
		h[0] = 0x45;
		cx3_put16(h, 2, (uint16_t)(ip + l4 + payload));
		cx3_put16(h, 4, 0x1234);
		cx3_put16(h, 6, 0x4000);		/* DF */
		h[8] = 64;
		h[9] = proto;
		cx3_put16(h, 10, 0xdead);		/* garbage */
		cx3_put32(h, 12, 0x0a000001);
		cx3_put32(h, 16, 0x0a000002);
	}
	cx3_put16(t, 0, 40000);
	cx3_put16(t, 2, 5001);
	if (proto == 6) {
		cx3_put32(t, 4, 0xfffff000u);		/* the sequence wraps */
		cx3_put32(t, 8, 77);
		t[12] = 5 << 4;
		t[13] = 0x18 | 0x80 | 0x01;		/* PSH ACK CWR FIN */
		cx3_put16(t, 14, 512);
		cx3_put16(t, 16, 0xbeef);		/* garbage */
	} else {
		cx3_put16(t, 4, (uint16_t)(l4 + payload));
		cx3_put16(t, 6, 0xbeef);
	}
	for (i = 0; i < payload; i++)
		t[l4 + i] = (uint8_t)(i * 13 + 5);
	return IPOIB_HDR + ip + l4 + payload;
}

static void test_dev_cap(void)
{
	uint8_t *o = gp(MBOX + 0x1000);
	uint64_t flags;

	memset(o, 0, 0x100);
	check(cmd(0, 0, 0x003, 0) == 0, "QUERY_DEV_CAP");
	flags = (uint64_t)cx3_get32(o, 0x40) << 32 | cx3_get32(o, 0x44);
	check(flags & (1ull << 7), "IPOIB_CSUM offered (flags bit 7)");
	check(flags & (1ull << 15), "BLH offered (flags bit 15)");
	check((o[0x2d] & 0x1f) == 17, "max GSO size 2^17 (u8 @0x2d = %u)",
	      o[0x2d]);
}

static void test_csum(void)
{
	static uint8_t p[2048];
	uint16_t st, cs;
	size_t n;
	int v6, udp;

	for (v6 = 0; v6 < 2; v6++) {
		for (udp = 0; udp < 2; udp++) {
			const char *what = v6 ? (udp ? "UDP/IPv6" : "TCP/IPv6") :
						(udp ? "UDP/IPv4" : "TCP/IPv4");

			n = make_pkt(p, v6, udp ? 17 : 6, 1001);
			cx3_csum_rx(p, n, &st, &cs);
			check(!csum_ok(st, cs), "%s: garbage checksums are not OK (status 0x%x, checksum 0x%x)",
			      what, st, cs);
			cx3_csum_tx(p, n, CX3_CTRL_IP_CSUM | CX3_CTRL_TCP_UDP_CSUM);
			check((v6 || ip4_verifies(p)) && l4_verifies(p, n),
			      "%s: send checksums computed", what);
			cx3_csum_rx(p, n, &st, &cs);
			check(csum_ok(st, cs) &&
			      (st & (v6 ? CX3_CQE_IPV6 : CX3_CQE_IPV4)) &&
			      (st & (udp ? CX3_CQE_UDP : CX3_CQE_TCP)),
			      "%s: receive status 0x%x, checksum 0x%x: OK", what,
			      st, cs);
			p[n - 3] ^= 0x40;
			cx3_csum_rx(p, n, &st, &cs);
			check(!csum_ok(st, cs) && (st & CX3_CQE_IPOK),
			      "%s: a corrupted payload: IPOK but checksum 0x%x, not OK",
			      what, cs);
		}
	}
	n = make_pkt(p, false, 6, 100);
	cx3_csum_tx(p, n, CX3_CTRL_IP_CSUM);
	check(ip4_verifies(p) && cx3_get16(p, IPOIB_HDR + 20 + 16) == 0xbeef,
	      "IP_CSUM alone: the IP header only");
	n = make_pkt(p, false, 6, 100);
	cx3_csum_tx(p, n, 0);
	check(cx3_get16(p, IPOIB_HDR + 10) == 0xdead, "no flags: nothing changed");
	cx3_csum_tx(p, n, CX3_CTRL_IP_CSUM | CX3_CTRL_TCP_UDP_CSUM);
	p[IPOIB_HDR + 8]--;				/* TTL */
	cx3_csum_rx(p, n, &st, &cs);
	check(!(st & CX3_CQE_IPOK) && !csum_ok(st, cs),
	      "a corrupted IP header: no IPOK (status 0x%x)", st);
	cx3_put16(p, 0, 0x0806);
	cx3_csum_rx(p, n, &st, &cs);
	check(!st && !csum_ok(st, cs), "not IP (ARP): no status bits");
}

struct seg_log {
	unsigned int n;
	uint8_t pkt[16][2048];
	size_t len[16];
};

static void seg_take(void *arg, const uint8_t *pkt, size_t n)
{
	struct seg_log *s = arg;

	if (s->n < 16 && n <= 2048) {
		memcpy(s->pkt[s->n], pkt, n);
		s->len[s->n] = n;
	}
	s->n++;
}

/* Check the segments of an LSO of len payload bytes with header h (hlen) */
static void check_segments(const struct seg_log *s, const uint8_t *h,
			   size_t hlen, const uint8_t *data, size_t len,
			   uint32_t mss, bool v6, const char *what)
{
	size_t ip = IPOIB_HDR, l4 = ip + (v6 ? 40 : 20), pos = 0, chunk;
	unsigned int i, exp = (unsigned int)((len + mss - 1) / mss);
	bool hdr_ok = true, len_ok = true, id_ok = true, seq_ok = true;
	bool flags_ok = true, sum_ok = true, data_ok = true;

	check(s->n == exp, "%s: %u segments (expected %u)", what, s->n, exp);
	for (i = 0; i < s->n && i < 16; i++, pos += chunk) {
		const uint8_t *p = s->pkt[i];
		uint8_t fl = h[l4 + 13];
		uint16_t st, cs;

		chunk = len - pos < mss ? len - pos : mss;
		len_ok &= s->len[i] == hlen + chunk;
		hdr_ok &= !memcmp(p, h, ip) && !memcmp(p + l4, h + l4, 4) &&
			  !memcmp(p + l4 + 8, h + l4 + 8, 5);
		if (v6) {
			len_ok &= cx3_get16(p, ip + 4) == hlen - l4 + chunk;
			hdr_ok &= !memcmp(p + ip + 6, h + ip + 6, 34);
		} else {
			len_ok &= cx3_get16(p, ip + 2) == hlen - ip + chunk;
			id_ok &= cx3_get16(p, ip + 4) ==
				 (uint16_t)(cx3_get16(h, ip + 4) + i);
			hdr_ok &= !memcmp(p + ip + 12, h + ip + 12, 8);
		}
		seq_ok &= cx3_get32(p, l4 + 4) ==
			  (uint32_t)(cx3_get32(h, l4 + 4) + pos);
		fl &= ~(0x01 | 0x08 | 0x80);
		if (i == 0)
			fl |= h[l4 + 13] & 0x80;
		if (i + 1 == s->n)
			fl |= h[l4 + 13] & 0x09;
		flags_ok &= p[l4 + 13] == fl;
		cx3_csum_rx(p, s->len[i], &st, &cs);
		sum_ok &= (v6 || ip4_verifies(p)) && l4_verifies(p, s->len[i]) &&
			  csum_ok(st, cs);
		data_ok &= !memcmp(p + hlen, data + pos, chunk);
	}
	check(len_ok, "%s: packet and IP lengths", what);
	check(hdr_ok, "%s: the header replicated (addresses, ports, ack)", what);
	check(id_ok, "%s: IP IDs count up", what);
	check(seq_ok, "%s: TCP sequence numbers advance by the MSS", what);
	check(flags_ok, "%s: CWR on the first segment, FIN/PSH on the last", what);
	check(sum_ok, "%s: every segment's checksums verify", what);
	check(data_ok, "%s: the payload, in order", what);
}

static void test_lso(void)
{
	static uint8_t h[256], data[20000];
	static struct seg_log s;
	size_t hlen, i;
	int v6;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + i / 251);
	for (v6 = 0; v6 < 2; v6++) {
		const char *what = v6 ? "LSO TCP/IPv6" : "LSO TCP/IPv4";

		hlen = make_pkt(h, v6, 6, 0);
		memset(&s, 0, sizeof(s));
		check(cx3_lso(h, hlen, data, 10000, 1400, seg_take, &s) == 8,
		      "%s: 10000 bytes at MSS 1400", what);
		check_segments(&s, h, hlen, data, 10000, 1400, v6, what);
	}
	hlen = make_pkt(h, false, 6, 0);
	memset(&s, 0, sizeof(s));
	check(cx3_lso(h, hlen, data, 2800, 1400, seg_take, &s) == 2 &&
	      s.len[1] == hlen + 1400,
	      "an exact multiple of the MSS: no empty last segment");
	memset(&s, 0, sizeof(s));
	check(cx3_lso(h, hlen, data, 100, 1400, seg_take, &s) == 1,
	      "less than one MSS: one segment");
	check_segments(&s, h, hlen, data, 100, 1400, false, "LSO short");
	hlen = make_pkt(h, false, 17, 0);
	check(cx3_lso(h, hlen, data, 3000, 1400, seg_take, &s) < 0,
	      "a UDP header: not segmented");
	hlen = make_pkt(h, false, 6, 0);
	check(cx3_lso(h, hlen - 4, data, 3000, 1400, seg_take, &s) < 0,
	      "a header cut short: not segmented");
	check(cx3_lso(h, hlen, data, 3000, 0, seg_take, &s) < 0, "MSS 0: refused");
}

/* ---------------------------------------------------------------------- */
/* Through the card: UD QPs A (port 1) and B (port 2) of the RC pair's CQ */

static unsigned int ud_sq;

static int ud_qp_cmd(uint32_t qpn, uint16_t op, unsigned int state)
{
	bool a = qpn == QPA;
	uint8_t *c = gp(MBOX) + 8;

	memset(gp(MBOX), 0, 4096);
	cx3_put32(c, 0x00, state << 28 | 3u << 16);	/* UD */
	cx3_put32(c, 0x04, PD);
	c[0x08] = 5 << 5 | 17;				/* MTU 4096, msgmax */
	c[0x09] = 3 << 3 | 0;				/* RQ: 8 x 16 bytes */
	c[0x0a] = 3 << 3 | 4;				/* SQ: 8 x 256 bytes */
	c[0x18 + 0x20] = a ? 0x00 : 0x40;		/* port 1 or 2 */
	cx3_put32(c, 0x7c, RC_CQN);
	cx3_put32(c, 0x9c, RC_CQN);
	cx3_put64(c, 0xa0, a ? QPA_DB : QPB_DB);
	cx3_put32(c, 0xa8, QKEY);
	cx3_put32(c, 0xcc, (a ? 5 : 6) * 8);
	return cmd(MBOX, qpn, op, 0);
}

static bool ud_setup(void)
{
	bool ok = rc_qp_cmd(QPA, 0x021, 0) == 0 && rc_qp_cmd(QPB, 0x021, 0) == 0;
	int i;

	for (i = 0; i < 8; i++) {
		gp(QPA_BUF)[i * 256] = 0x80;
		gp(QPB_BUF)[i * 256] = 0x80;
	}
	cx3_put32(gp(QPA_DB), 0, 0);
	cx3_put32(gp(QPB_DB), 0, 0);
	for (i = 0; i < 2; i++) {
		uint32_t qpn = i ? QPB : QPA;

		ok &= ud_qp_cmd(qpn, 0x019, 1) == 0 &&
		      ud_qp_cmd(qpn, 0x01a, 2) == 0 &&
		      ud_qp_cmd(qpn, 0x01b, 3) == 0;
	}
	return ok;
}

/* A's next send WQE: control and datagram segments to B on port 2 */
static uint8_t *ud_wqe(uint8_t opcode, uint32_t flags)
{
	uint8_t *w = gp(QPA_BUF) + (ud_sq & 7) * 256;

	memset(w, 0, 256);
	w[0] = (ud_sq & 8) ? 0x00 : 0x80;
	w[3] = opcode;
	cx3_put32(w, 8, 3u << 2 | flags);
	w[16] = 1;					/* port 1 */
	cx3_put16(w, 16 + 6, 2);			/* DLID */
	cx3_put32(w, 16 + 0x20, QPB);
	cx3_put32(w, 16 + 0x24, QKEY);
	return w;
}

static void ud_post(uint8_t *w, size_t size)
{
	w[7] = (uint8_t)(size / 16);
	w[0] = (ud_sq & 8) ? 0x80 : 0x00;
	ud_sq++;
	cx3_qp_send_doorbell(&dev, QPA);
}

/* Receives on B: n WQEs, each 4 KiB of the MR from 0x1000 (page 2) */
static void ud_recv(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint8_t *r = gp(QPB_BUF) + 2048 + (b_rq & 7) * 16;

		dseg(r, 0, 2048, RC_VA + 4096 + (b_rq & 1) * 2048);
		b_rq++;
	}
	cx3_put32(gp(QPB_DB), 0, b_rq & 0xffff);
}

/* The next CQE of the shared CQ, copied, or false */
static bool next_cqe(uint8_t cqe[32])
{
	uint8_t *e = gp(RC_CQ_BUF) + (rc_ci & 63) * 32;

	if (!!(e[31] & 0x80) != !!(rc_ci & 64))
		return false;
	memcpy(cqe, e, 32);
	rc_ci++;
	cx3_put32(gp(RC_CQ_DB), 0, rc_ci & 0xffffff);
	return true;
}

/* The CQEs after one LSO segment arrived; counts what checks out */
static void lso_rx(const uint8_t *buf, size_t hlen, unsigned int *recvs,
		   unsigned int *ok_cqes, unsigned int *good, bool *lso_cqe)
{
	uint8_t cqe[32];
	size_t n;

	while (next_cqe(cqe)) {
		if (cqe[31] & 0x40) {
			*lso_cqe = (cqe[31] & 0x1f) == W_LSO;
			continue;
		}
		(*recvs)++;
		if ((cqe[31] & 0x1f) == 0x01 &&
		    csum_ok(cx3_get16(cqe, 0x10), cx3_get16(cqe, 0x1a)))
			(*ok_cqes)++;
		n = cx3_get32(cqe, 0x14) - 40;
		if (n == hlen + 1000 &&
		    !memcmp(mr(4096 + ((*recvs - 1) & 1) * 2048 + 40 + hlen),
			    buf + 512 + (*recvs - 1) * 1000, 1000))
			(*good)++;
	}
}

static void test_card(void)
{
	static struct wire_pkt f;
	uint8_t *w, cqe[32], *buf = mr(0);
	size_t hlen, n, i, seg;
	unsigned int pkts = 0, good = 0, recvs = 0, ok_cqes = 0;
	bool lso_cqe = false;

	b_rq = 0;
	ud_sq = 0;
	check(ud_setup(), "two UD QPs, on ports 1 and 2");
	/* LSO: 3000 payload bytes at MSS 1000, the header inline */
	hlen = make_pkt(buf, false, 6, 0);
	for (i = 0; i < 3000; i++)
		buf[512 + i] = (uint8_t)(i ^ 0x5a);
	w = ud_wqe(W_LSO, 0);
	cx3_put32(w, 64, 1000u << 16 | (uint32_t)hlen);
	memcpy(w + 68, buf, hlen);
	seg = 64 + ((4 + hlen + 15) & ~(size_t)15);
	dseg(w, seg, 3000, RC_VA + 512);
	ud_post(w, seg + 16);
	ud_recv(3);
	/* one packet at a time: the receives take turns in two buffers */
	while (wire_take(1, &f)) {
		pkts++;
		deliver(&f);
		lso_rx(buf, hlen, &recvs, &ok_cqes, &good, &lso_cqe);
	}
	check(pkts == 3, "LSO: 3 UD packets on the wire (%u)", pkts);
	check(lso_cqe, "LSO: one send CQE, opcode 0x0e");
	check(recvs == 3 && ok_cqes == 3,
	      "LSO: 3 receives, each CQE with IPOK, TCP, checksum 0xffff (%u of %u)",
	      ok_cqes, recvs);
	check(good == 3, "LSO: each receive holds header + its 1000 bytes (%u)",
	      good);

	/* a SEND with the checksum bits, then one without (garbage stays) */
	for (i = 0; i < 2; i++) {
		n = make_pkt(buf, false, 17, 600);
		w = ud_wqe(0x0a, i ? 0 : CX3_CTRL_IP_CSUM | CX3_CTRL_TCP_UDP_CSUM);
		dseg(w, 64, (uint32_t)n, RC_VA);
		ud_post(w, 80);
		ud_recv(1);
		check(wire_take(1, &f), "SEND %zu: a packet", i);
		deliver(&f);
		while (next_cqe(cqe) && (cqe[31] & 0x40))
			;
		check((cqe[31] & 0x1f) == 0x01 &&
		      csum_ok(cx3_get16(cqe, 0x10), cx3_get16(cqe, 0x1a)) == !i,
		      "SEND %s the checksum bits: receive CQE status 0x%x checksum 0x%x: %s",
		      i ? "without" : "with", cx3_get16(cqe, 0x10),
		      cx3_get16(cqe, 0x1a), i ? "not OK" : "OK");
	}
}

int main(void)
{
	test_csum();
	test_lso();
	if (!card_start())
		return 1;
	test_dev_cap();
	check(rc_setup(), "the RC pair's CQ and MR");
	test_card();
	return card_end("test_offload");
}

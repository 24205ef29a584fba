// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the wire fuzzer.  Armed at run time (the glue's string
 * property wirefuzz, through the same path as the injected faults):
 *
 *   wirefuzz PORT:N[:SEED[:KIND]]
 *
 * delivers N packets at PORT's receive side, as if they came down the
 * cable, a few per poll tick (CX3_WF_BURST): KIND is mad (SMPs LID-routed
 * and directed-route to QP0, GMPs of every class to QP1, RMPP segments),
 * cm (CM messages REQ .. SIDR_REP to QP1), ipoib (UD datagrams to the
 * IPoIB QP and its broadcast group: the encapsulation header, ARP, IPv4,
 * IPv6) or mix (default).  Each packet starts from a valid template built
 * from what the card knows (the port's LID, the SM's, the P_Key table, the
 * IPoIB QP found in the broadcast group), then gets mutated: bits flipped,
 * fields set to edge values, lengths cut; a small share gets a header the
 * link refuses (a bad ICRC, length, P_Key or Q_Key).  The stream depends
 * on the seed alone (default 1): a failing run is replayed with its seed.
 * SMPs and SA requests that would reconfigure the subnet (Set, Delete) are
 * turned into Gets: the fuzzer attacks the stack, not the SM's decisions.
 *
 * A packet waits (up to CX3_WF_WAIT ticks) while its QP has no receive
 * WQE posted, so that the packets reach the stack instead of being lost
 * for want of a buffer.  "fault: wirefuzz ..." log lines say when it is
 * armed, how far it got (every tenth) and what it injected when done; the
 * read-only property wirefuzz-injected counts the packets since power-on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_mcg.h"
#include "cx3_pkt.h"
#include "cx3_qp.h"

#define MAD_SIZE	256
#define IPOIB_SID	0x1000000000000000ull	/* IPoIB CM's service IDs */

static const char *const kind_names[] = { "mad", "cm", "ipoib", "mix" };

static const char *const class_names[CX3_WF_NCLASS] = {
	"smp", "dr-smp", "gmp", "rmpp", "cm", "ipoib", "bad-header",
};

/* ---------------------------------------------------------------------- */
/* The random stream: splitmix64, one state per armed run */

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t below(uint64_t *s, uint32_t n)
{
	return n ? (uint32_t)(rnd(s) % n) : 0;
}

/* true with a chance of pct in 100 */
static bool pct(uint64_t *s, uint32_t p)
{
	return below(s, 100) < p;
}

static uint32_t pick(uint64_t *s, const uint32_t *v, size_t n)
{
	return v[below(s, (uint32_t)n)];
}

#define PICK(s, arr)	pick(s, arr, sizeof(arr) / sizeof((arr)[0]))

/* an edge value of a field of width bytes, or a random one */
static uint32_t edge(uint64_t *s, unsigned int width)
{
	uint32_t max = width >= 4 ? 0xffffffffu : (1u << (8 * width)) - 1;

	switch (below(s, 6)) {
	case 0: return 0;
	case 1: return max;
	case 2: return max >> 1;
	case 3: return (max >> 1) + 1;
	case 4: return 1;
	default: return (uint32_t)rnd(s) & max;
	}
}

static void put_n(uint8_t *p, unsigned int width, uint32_t v)
{
	if (width == 1)
		p[0] = (uint8_t)v;
	else if (width == 2)
		cx3_put16(p, 0, (uint16_t)v);
	else
		cx3_put32(p, 0, v);
}

/* a GID of the subnet: its prefix, then guid */
static void put_gid(const struct cx3_wf_env *e, uint8_t *p, uint64_t guid)
{
	cx3_put64(p, 0, e->gid_prefix);
	cx3_put64(p, 8, guid);
}

/* ---------------------------------------------------------------------- */
/* MADs (256 bytes; the common header, IBA 13.4.2) */

static void mad_hdr(uint8_t *m, uint8_t cls, uint8_t ver, uint8_t method,
		    uint64_t tid, uint16_t attr, uint32_t mod)
{
	memset(m, 0, MAD_SIZE);
	m[0] = 1;
	m[1] = cls;
	m[2] = ver;
	m[3] = method;
	cx3_put64(m, 8, tid);
	cx3_put16(m, 16, attr);
	cx3_put32(m, 20, mod);
}

/*
 * A TID: a response's upper half names the agent that sent the request
 * (ib_mad numbers its agents from 1), so responses get small ones to reach
 * an agent's receive path; requests any.
 */
static uint64_t tid(uint64_t *s, uint8_t method)
{
	if (method & 0x80)
		return (uint64_t)below(s, 48) << 32 | (uint32_t)rnd(s);
	return rnd(s);
}

/* Methods that reconfigure (Set, Delete) become Get: see the top. */
static uint8_t tame(uint8_t method)
{
	return method == 0x02 || method == 0x15 ? 0x01 : method;
}

static const uint32_t smp_attrs[] = {
	0x0001, 0x0002, 0x0010, 0x0011, 0x0012, 0x0014, 0x0015, 0x0016,
	0x0017, 0x0018, 0x0019, 0x001a, 0x001b, 0x0020, 0x0030, 0x0031,
	0xff90, 0xffff, 0x0000,
};

static const uint32_t smp_methods[] = {
	0x01, 0x01, 0x01, 0x81, 0x05, 0x07, 0x06, 0x00, 0x7f,
};

static const uint32_t trap_nums[] = { 64, 65, 66, 67, 128, 129, 144, 256, 259 };
static const uint32_t rmpp_status[] = {
	118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 1, 255,
};

static const uint32_t arp_hlen[] = { 0, 6, 19, 21, 255 };
static const uint32_t arp_plen[] = { 0, 3, 16, 255 };

static const uint32_t icmp6_types[] = { 128, 129, 133, 134, 136, 137, 1, 143 };
static const uint32_t odd_lids[] = { 0, 0xffff, 0xc001, 0xbfff };

static void build_smp(const struct cx3_wf_env *e, uint64_t *s, uint8_t *m)
{
	uint8_t method = (uint8_t)PICK(s, smp_methods);

	mad_hdr(m, 0x01, 1, method, tid(s, method), (uint16_t)PICK(s, smp_attrs),
		pct(s, 70) ? below(s, 4) : (uint32_t)rnd(s));
	if (pct(s, 20))
		cx3_put64(m, 24, rnd(s));		/* M_Key */
	if (method == 0x05 || method == 0x07) {		/* a Notice */
		m[64] = 0x80 | below(s, 5);
		cx3_put16(m, 66, (uint16_t)PICK(s, trap_nums));
		cx3_put16(m, 68, e->slid);
	}
	if (cx3_get16(m, 16) == 0x0016 || cx3_get16(m, 16) == 0x0014)
		cx3_put32(m, 20, below(s, 3) ? below(s, 2) : (uint32_t)rnd(s));
}

/* A directed-route SMP (IBA 14.2.1.2): paths at 128 and 192. */
static void build_dr(const struct cx3_wf_env *e, uint64_t *s, uint8_t *m)
{
	uint8_t method = (uint8_t)PICK(s, smp_methods);
	unsigned int hops, ptr, i;

	mad_hdr(m, 0x81, 1, method, tid(s, method), (uint16_t)PICK(s, smp_attrs),
		below(s, 4));
	switch (below(s, 5)) {
	case 0:				/* at its destination, outbound */
		hops = below(s, 4);
		ptr = hops + 1;
		break;
	case 1:				/* returning (the D bit) */
		hops = below(s, 4);
		ptr = below(s, hops + 1);
		m[4] = 0x80;
		break;
	case 2:				/* bad: more than 63 hops */
		hops = 64 + below(s, 192);
		ptr = below(s, 256);
		break;
	case 3:				/* bad pointer */
		hops = below(s, 64);
		ptr = hops + 2 + below(s, 200);
		m[4] = pct(s, 50) ? 0x80 : 0;
		break;
	default:			/* anything */
		hops = below(s, 256);
		ptr = below(s, 256);
		m[4] = pct(s, 50) ? 0x80 : 0;
	}
	m[6] = (uint8_t)ptr;
	m[7] = (uint8_t)hops;
	cx3_put16(m, 32, pct(s, 80) ? 0xffff : e->slid);	/* DrSLID */
	cx3_put16(m, 34, pct(s, 80) ? 0xffff : e->lid);		/* DrDLID */
	for (i = 1; i < 64; i++) {
		m[128 + i] = pct(s, 80) ? (uint8_t)(1 + below(s, 2)) : (uint8_t)rnd(s);
		m[192 + i] = pct(s, 80) ? (uint8_t)(1 + below(s, 2)) : (uint8_t)rnd(s);
	}
}

/* GMP classes and their class versions; CM has a builder of its own */
static const uint32_t gmp_classes[] = {
	0x0302, 0x0302, 0x0302, 0x0401, 0x0401, 0x0501, 0x0601, 0x0801,
	0x0901, 0x0a01, 0x0f01, 0x1001, 0x2102, 0x3001, 0x3a01, 0x4f01,
	0x0b01, 0x5001, 0x8001, 0xff01, 0x0102, 0x0300, 0x0401 | 0x0200,
};

static const uint32_t gmp_methods[] = {
	0x01, 0x02, 0x03, 0x05, 0x06, 0x07, 0x12, 0x13, 0x14, 0x15,
	0x81, 0x86, 0x92, 0x94, 0x95, 0x00, 0x40, 0xff,
};

static const uint32_t sa_attrs[] = {
	0x0001, 0x0002, 0x0003, 0x0011, 0x0012, 0x0013, 0x0014, 0x0015,
	0x0020, 0x0030, 0x0031, 0x0035, 0x0036, 0x0038, 0x0039, 0x003a,
	0x00b0, 0xf311, 0xffff,
};

static const uint32_t pma_attrs[] = {
	0x0001, 0x0010, 0x0011, 0x0012, 0x0013, 0x0014, 0x0015, 0x0016,
	0x001d, 0x001e, 0x0034, 0x0035, 0x0036, 0xff00,
};

static void build_gmp(const struct cx3_wf_env *e, uint64_t *s, uint8_t *m)
{
	uint32_t cv = PICK(s, gmp_classes);
	uint8_t cls = (uint8_t)(cv >> 8), method = (uint8_t)PICK(s, gmp_methods);
	uint16_t attr;

	if (cls == 0x03)
		method = tame(method);
	attr = cls == 0x03 ? (uint16_t)PICK(s, sa_attrs) :
	       cls == 0x04 ? (uint16_t)PICK(s, pma_attrs) :
	       (uint16_t)(pct(s, 50) ? below(s, 0x40) : rnd(s));
	mad_hdr(m, cls, (uint8_t)cv, method, tid(s, method), attr,
		pct(s, 70) ? below(s, 4) : (uint32_t)rnd(s));
	if (cls == 0x03) {
		/* SA: SM_Key, attribute offset, component mask, a record */
		cx3_put16(m, 44, (uint16_t)(pct(s, 70) ? below(s, 16) : rnd(s)));
		cx3_put64(m, 48, rnd(s));
		if (attr == 0x0035) {		/* a PathRecord from us */
			put_gid(e, m + 64, e->guid);
			put_gid(e, m + 80, e->peer_guid);
			cx3_put16(m, 96, e->lid);
			cx3_put16(m, 98, e->slid);
			cx3_put16(m, 108, e->pkey);
		} else if (attr == 0x0038) {	/* the broadcast group */
			memcpy(m + 56, e->mgid, 16);
			put_gid(e, m + 72, e->guid);
			cx3_put32(m, 88, e->qkey);
			cx3_put16(m, 92, 0xc000 | below(s, 4));
			cx3_put16(m, 96, e->pkey);
		}
	} else if (cls == 0x04) {
		m[64 + 1] = (uint8_t)(pct(s, 80) ? 1 + below(s, 2) : rnd(s));
		cx3_put16(m, 64 + 2, (uint16_t)rnd(s));	/* CounterSelect */
	} else if (cls >= 0x30 && cls <= 0x4f) {
		m[37] = 0x00;			/* OUI */
		m[38] = 0x02;
		m[39] = 0xc9;
	}
	if (attr == 0x0001 && (method & 0x80)) {	/* a ClassPortInfo */
		m[64] = 1;
		m[65] = (uint8_t)cv;
		cx3_put16(m, 66, (uint16_t)rnd(s));
		m[71] = (uint8_t)below(s, 32);
	}
}

/* An RMPP segment (IBA 13.6.2): a response of an RMPP class, to an agent */
static void build_rmpp(const struct cx3_wf_env *e, uint64_t *s, uint8_t *m)
{
	static const uint32_t types[] = { 1, 1, 1, 2, 3, 4, 0, 5, 0xff };
	static const uint32_t methods[] = { 0x92, 0x92, 0x81, 0x94, 0x12, 0x01 };
	static const uint32_t cls[] = { 0x0302, 0x0302, 0x0302, 0x0a01, 0x3001, 0x0301 };
	uint32_t cv = PICK(s, cls), seg, type = PICK(s, types), len;
	uint8_t method = (uint8_t)PICK(s, methods);

	(void)e;
	mad_hdr(m, (uint8_t)(cv >> 8), (uint8_t)cv, method, tid(s, method),
		(uint16_t)PICK(s, sa_attrs), 0);
	m[24] = pct(s, 90) ? 1 : (uint8_t)rnd(s);	/* RMPP version */
	m[25] = (uint8_t)type;
	seg = pct(s, 60) ? 1 + below(s, 4) : edge(s, 4);
	/* flags: active 1, first 2, last 4; resp time in the upper 5 bits */
	m[26] = (uint8_t)(below(s, 32) << 3 |
			  (pct(s, 85) ? 1 | (seg == 1 ? 2 : 0) | (pct(s, 40) ? 4 : 0) :
			   below(s, 8)));
	m[27] = (uint8_t)(pct(s, 80) ? 0 : PICK(s, rmpp_status));
	cx3_put32(m, 28, type == 2 && pct(s, 70) ? below(s, 8) : seg);
	len = pct(s, 50) ? 200 * (1 + below(s, 6)) - below(s, 150) : edge(s, 4);
	cx3_put32(m, 32, type == 2 ? (pct(s, 70) ? seg + below(s, 64) : edge(s, 4)) : len);
	cx3_put16(m, 44, (uint16_t)below(s, 16));	/* SA attribute offset */
}

/* ---------------------------------------------------------------------- */
/* CM messages (IBA 12.6), class 0x07 version 2, method Send */

/* one CM path (REQ at 52/96, LAP at 20) from the sender (peer) to us */
static void cm_path(const struct cx3_wf_env *e, uint64_t *s, uint8_t *p)
{
	cx3_put16(p, 0, e->slid);
	cx3_put16(p, 2, pct(s, 85) ? e->lid : (uint16_t)rnd(s));
	put_gid(e, p + 4, e->peer_guid);
	put_gid(e, p + 20, pct(s, 85) ? e->guid : rnd(s));
	cx3_put32(p, 36, (uint32_t)(pct(s, 80) ? 3 : below(s, 64)));	/* rate */
	p[41] = (uint8_t)(pct(s, 80) ? 0 : rnd(s));	/* hop limit */
	p[42] = (uint8_t)(pct(s, 80) ? 0x08 : rnd(s));	/* SL 0, subnet local */
	p[43] = (uint8_t)(pct(s, 80) ? 14 << 3 : rnd(s));	/* ACK timeout */
}

static void build_cm(const struct cx3_wf_env *e, uint64_t *s, uint8_t *m)
{
	static const uint32_t attrs[] = {
		0x0010, 0x0010, 0x0011, 0x0012, 0x0013, 0x0014, 0x0015,
		0x0016, 0x0017, 0x0017, 0x0018, 0x0019, 0x001a, 0x001b,
		0x0000,
	};
	static const uint32_t methods[] = { 0x03, 0x03, 0x03, 0x03, 0x03, 0x01, 0x81, 0x02 };
	uint16_t attr = (uint16_t)PICK(s, attrs);
	uint8_t method = (uint8_t)PICK(s, methods), *d = m + 24;
	uint64_t sid = pct(s, 60) && e->ipoib_qpn ? IPOIB_SID | e->ipoib_qpn : rnd(s);
	uint32_t local = (uint32_t)rnd(s), remote = (uint32_t)rnd(s);

	mad_hdr(m, 0x07, pct(s, 95) ? 2 : (uint8_t)rnd(s), method,
		pct(s, 80) ? (uint64_t)below(s, 48) << 32 | (uint32_t)rnd(s) : rnd(s),
		attr, 0);
	cx3_put32(d, 0, local);
	cx3_put32(d, 4, remote);
	switch (attr) {
	case 0x0010:			/* REQ */
		cx3_put32(d, 4, 0x0002c9);		/* vendor ID */
		cx3_put64(d, 8, sid);
		cx3_put64(d, 16, e->peer_guid);
		cx3_put32(d, 28, (uint32_t)rnd(s));	/* Q_Key */
		cx3_put32(d, 32, (uint32_t)(2 + below(s, 0xfffffe)) << 8 | below(s, 16));
		cx3_put32(d, 36, below(s, 16));		/* EECN, initiator depth */
		d[43] = (uint8_t)(pct(s, 80) ? 20 : rnd(s));	/* timeout, RC */
		cx3_put32(d, 44, (uint32_t)rnd(s) & 0xffffff00u);
		d[47] = (uint8_t)(pct(s, 80) ? 7 << 5 | 20 : rnd(s));
		cx3_put16(d, 48, pct(s, 85) ? e->pkey : (uint16_t)rnd(s));
		d[50] = (uint8_t)(pct(s, 80) ? 7 << 5 | (4 + below(s, 2)) : rnd(s));
		d[51] = (uint8_t)(pct(s, 80) ? 15 | (below(s, 2) << 4) : rnd(s));
		cm_path(e, s, d + 52);
		if (pct(s, 30))
			cm_path(e, s, d + 96);
		/* IPoIB CM's private data: the peer's UD QPN and its MTU */
		cx3_put32(d, 140, (uint32_t)rnd(s) & 0xffffff);
		cx3_put32(d, 144, pct(s, 70) ? 65520 : (uint32_t)rnd(s));
		break;
	case 0x0011:			/* MRA */
		d[8] = (uint8_t)(below(s, 4) << 6);
		d[9] = (uint8_t)(below(s, 32) << 3);
		break;
	case 0x0012:			/* REJ */
		d[8] = (uint8_t)(below(s, 4) << 6);
		d[9] = (uint8_t)((pct(s, 80) ? below(s, 73) : rnd(s)) << 1);
		cx3_put16(d, 10, (uint16_t)(pct(s, 80) ? 1 + below(s, 35) : rnd(s)));
		break;
	case 0x0013:			/* REP */
		cx3_put32(d, 12, (uint32_t)rnd(s) << 8);
		cx3_put32(d, 20, (uint32_t)rnd(s) << 8);
		d[24] = (uint8_t)below(s, 16);
		d[25] = (uint8_t)below(s, 16);
		d[27] = (uint8_t)rnd(s);
		cx3_put64(d, 28, e->peer_guid);
		cx3_put32(d, 36, (uint32_t)rnd(s) & 0xffffff);
		cx3_put32(d, 40, 65520);
		break;
	case 0x0015:			/* DREQ */
		cx3_put32(d, 8, (uint32_t)rnd(s) << 8);
		break;
	case 0x0017:			/* SIDR_REQ */
		cx3_put16(d, 4, pct(s, 85) ? e->pkey : (uint16_t)rnd(s));
		cx3_put64(d, 8, sid);
		break;
	case 0x0018:			/* SIDR_REP */
		d[4] = (uint8_t)below(s, 8);
		d[5] = (uint8_t)(pct(s, 80) ? below(s, 73) : rnd(s));
		cx3_put32(d, 8, (uint32_t)rnd(s) << 8);
		cx3_put64(d, 12, sid);
		cx3_put32(d, 20, (uint32_t)rnd(s));
		break;
	case 0x0019:			/* LAP */
		cx3_put32(d, 12, (uint32_t)rnd(s) << 8);
		d[16] = (uint8_t)(below(s, 32) << 3);
		cm_path(e, s, d + 20);
		break;
	case 0x001a:			/* APR */
		d[8] = (uint8_t)(pct(s, 80) ? below(s, 73) : rnd(s));
		d[9] = (uint8_t)below(s, 16);
		break;
	default:
		break;
	}
}

/* ---------------------------------------------------------------------- */
/* IPoIB datagrams: the 4-byte encapsulation header, then ARP or IP */

static uint16_t ip_csum(const uint8_t *p, size_t n)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += cx3_get16(p, i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The IPoIB hardware address of a peer: flags and QPN, then its GID. */
static void hwaddr(const struct cx3_wf_env *e, uint64_t *s, uint8_t *a)
{
	cx3_put32(a, 0, pct(s, 80) ? (uint32_t)rnd(s) & 0x80ffffffu : (uint32_t)rnd(s));
	put_gid(e, a + 4, pct(s, 70) ? e->peer_guid : rnd(s));
}

static size_t build_ipoib(const struct cx3_wf_env *e, uint64_t *s, uint8_t *d,
			  size_t max)
{
	static const uint32_t protos[] = { 1, 6, 17, 58, 2, 0, 255, 47 };
	size_t len, hl, i;
	uint8_t *ip = d + 4;

	memset(d, 0, max);
	switch (below(s, 10)) {
	case 0: case 1: case 2:		/* ARP (RFC 4391: hlen 20) */
		cx3_put16(d, 0, 0x0806);
		cx3_put16(ip, 0, pct(s, 85) ? 0x0020 : (uint16_t)rnd(s));
		cx3_put16(ip, 2, pct(s, 85) ? 0x0800 : (uint16_t)rnd(s));
		ip[4] = (uint8_t)(pct(s, 70) ? 20 : PICK(s, arp_hlen));
		ip[5] = (uint8_t)(pct(s, 70) ? 4 : PICK(s, arp_plen));
		cx3_put16(ip, 6, (uint16_t)(pct(s, 85) ? 1 + below(s, 2) : rnd(s)));
		hwaddr(e, s, ip + 8);
		cx3_put32(ip, 28, 0xa9fe5a00u | below(s, 4));	/* 169.254.90.x */
		if (pct(s, 50))
			hwaddr(e, s, ip + 32);
		cx3_put32(ip, 52, 0xa9fe5a00u | below(s, 4));
		len = 4 + 56;
		if (pct(s, 30))
			len = below(s, (uint32_t)len + 1);
		return len;
	case 3: case 4:			/* IPv6 */
		cx3_put16(d, 0, 0x86dd);
		cx3_put32(ip, 0, 0x60000000u | (pct(s, 20) ? (uint32_t)rnd(s) & 0xfffffff : 0));
		ip[6] = (uint8_t)(pct(s, 60) ? 58 : PICK(s, protos));
		ip[7] = 255;
		cx3_put64(ip, 8, 0xfe80000000000000ull);
		cx3_put64(ip, 16, e->peer_guid ^ 0x0200000000000000ull);
		cx3_put64(ip, 24, pct(s, 50) ? 0xff02000000000000ull : 0xfe80000000000000ull);
		cx3_put64(ip, 32, pct(s, 50) ? 0x1ff000000ull | below(s, 256) : e->guid);
		hl = 40;
		ip[40] = (uint8_t)(pct(s, 50) ? 135 : PICK(s, icmp6_types));
		ip[41] = 0;
		ip[48] = 1;		/* an option: source link-layer address */
		ip[49] = (uint8_t)(pct(s, 70) ? 3 : below(s, 256));
		hwaddr(e, s, ip + 50);
		len = 4 + hl + 8 + 24 + below(s, 64);
		cx3_put16(ip, 4, (uint16_t)(pct(s, 70) ? len - 4 - hl : edge(s, 2)));
		break;
	case 5:				/* another ethertype, or none */
		cx3_put16(d, 0, (uint16_t)rnd(s));
		cx3_put16(d, 2, (uint16_t)rnd(s));
		len = below(s, 200);
		for (i = 4; i < len; i++)
			d[i] = (uint8_t)rnd(s);
		return len < max ? len : max;
	default:			/* IPv4 */
		cx3_put16(d, 0, 0x0800);
		hl = pct(s, 85) ? 20 : 4 * below(s, 16);
		ip[0] = (uint8_t)(pct(s, 90) ? 0x40 : rnd(s) & 0xf0) | (uint8_t)(hl / 4);
		ip[8] = 64;
		ip[9] = (uint8_t)PICK(s, protos);
		if (pct(s, 20))
			cx3_put16(ip, 6, (uint16_t)rnd(s));	/* fragments */
		cx3_put32(ip, 12, 0xa9fe5a02u);
		cx3_put32(ip, 16, pct(s, 70) ? 0xa9fe5a01u : (uint32_t)rnd(s));
		for (i = 20; i < hl; i++)
			ip[i] = (uint8_t)rnd(s);
		if (hl < 20)
			hl = 20;
		if (ip[9] == 1)
			ip[hl] = 8;		/* ICMP echo request */
		len = 4 + hl + below(s, 2) * 8 +
		      (pct(s, 10) ? below(s, (uint32_t)max) : below(s, 256));
		if (len > max)
			len = max;
		for (i = 4 + hl + 8; i < len; i++)
			d[i] = (uint8_t)rnd(s);
		cx3_put16(ip, 2, (uint16_t)(pct(s, 70) ? len - 4 : edge(s, 2)));
		cx3_put16(ip, 10, ip_csum(ip, 20));
	}
	if (len > max)
		len = max;
	if (pct(s, 15))			/* truncated */
		len = below(s, (uint32_t)len + 1);
	return len;
}

/* ---------------------------------------------------------------------- */
/* Mutations of a payload (protected: leading bytes left alone) */

static void mutate(uint64_t *s, uint8_t *p, size_t *len, size_t keep,
		   size_t max, bool grow)
{
	unsigned int n = below(s, 4), i, w;
	size_t off;

	for (i = 0; i < n && *len > keep; i++) {
		off = keep + below(s, (uint32_t)(*len - keep));
		switch (below(s, 4)) {
		case 0:				/* bit flips */
			p[off] ^= (uint8_t)(1u << below(s, 8));
			break;
		case 1:				/* an edge value */
			w = 1u << below(s, 3);
			if (off + w <= *len)
				put_n(p + off, w, edge(s, w));
			break;
		case 2:				/* a random byte */
			p[off] = (uint8_t)rnd(s);
			break;
		default:			/* cut */
			if (pct(s, 30))
				*len = off;
			break;
		}
	}
	if (grow && pct(s, 5) && *len < max) {
		off = *len;
		*len += below(s, (uint32_t)(max - *len) + 1);
		while (off < *len)
			p[off++] = (uint8_t)rnd(s);
	}
}

/* MAD mutations: any header field too (versions, class, method) */
static void mutate_mad(uint64_t *s, uint8_t *m, size_t *len, bool smp)
{
	static const uint32_t hdr_fields[] = { 0, 1, 2, 3, 4, 6, 7, 16, 20 };

	if (pct(s, 6)) {			/* a header byte */
		unsigned int f = PICK(s, hdr_fields);

		m[f] = (uint8_t)(pct(s, 50) ? edge(s, 1) : m[f] + 1u);
	}
	mutate(s, m, len, 24, MAD_SIZE, false);
	if (pct(s, 4))				/* a short MAD */
		*len = below(s, MAD_SIZE);
	/* the SM's subnet stays its own: see the top */
	if (smp || m[1] == 0x03 || m[1] == 0x01 || m[1] == 0x81)
		m[3] = tame(m[3]);
}

/* ---------------------------------------------------------------------- */
/* Packets: LRH [GRH] BTH DETH payload ICRC (UD SEND only, opcode 0x64) */

struct wf_hdr {
	uint8_t vl, sl;
	uint16_t dlid, slid;
	bool grh;
	uint8_t dgid[16];
	uint16_t pkey;
	uint32_t dqpn, sqpn, qkey;
};

static size_t assemble(const struct cx3_wf_env *e, uint64_t *s,
		       const struct wf_hdr *h, const uint8_t *payload,
		       size_t plen, uint8_t *pkt)
{
	size_t off = IB_LRH_BYTES, pad = (4 - plen % 4) % 4, len;

	len = IB_LRH_BYTES + (h->grh ? IB_GRH_BYTES : 0) + IB_BTH_BYTES +
	      IB_DETH_BYTES + plen + pad + IB_ICRC_BYTES;
	memset(pkt, 0, len);
	pkt[0] = (uint8_t)(h->vl << 4);
	pkt[1] = (uint8_t)(h->sl << 4 | (h->grh ? IB_LNH_GLOBAL : IB_LNH_LOCAL));
	cx3_put16(pkt, 2, h->dlid);
	cx3_put16(pkt, 4, (uint16_t)(len / 4));
	cx3_put16(pkt, 6, h->slid);
	if (h->grh) {
		cx3_put32(pkt, off, 0x60000000u | below(s, 0x100000));
		cx3_put16(pkt, off + 4, (uint16_t)(len - off - IB_GRH_BYTES));
		pkt[off + 6] = 0x1b;
		pkt[off + 7] = (uint8_t)(pct(s, 80) ? 255 : rnd(s));
		put_gid(e, pkt + off + 8, pct(s, 70) ? e->peer_guid : rnd(s));
		memcpy(pkt + off + 24, h->dgid, 16);
		off += IB_GRH_BYTES;
	}
	pkt[off] = IB_TRANSPORT_UD | IB_OP_SEND_ONLY;
	pkt[off + 1] = (uint8_t)(pad << 4);
	cx3_put16(pkt, off + 2, h->pkey);
	cx3_put32(pkt, off + 4, h->dqpn & 0xffffff);
	cx3_put32(pkt, off + 8, (uint32_t)rnd(s) & IB_PSN_MASK);
	cx3_put32(pkt, off + 12, h->qkey);
	cx3_put32(pkt, off + 16, h->sqpn & 0xffffff);
	memcpy(pkt + off + 20, payload, plen);
	cx3_put32(pkt, len - IB_ICRC_BYTES, cx3_icrc(pkt, len));
	return len;
}

static uint16_t pick_slid(const struct cx3_wf_env *e, uint64_t *s)
{
	switch (below(s, 10)) {
	case 0: return e->sm_lid;
	case 1: return (uint16_t)PICK(s, odd_lids);
	case 2: return (uint16_t)(1 + below(s, 0xbffe));
	default: return e->slid;
	}
}

/* One of the packets the link refuses: the model's own checks */
static void spoil(uint64_t *s, uint8_t *pkt, size_t *len, struct wf_hdr *h)
{
	switch (below(s, 4)) {
	case 0:					/* a bad ICRC */
		pkt[*len - 1 - below(s, 4)] ^= (uint8_t)(1 + below(s, 255));
		break;
	case 1:					/* the LRH's length */
		cx3_put16(pkt, 4, (uint16_t)(cx3_get16(pkt, 4) + 1 + below(s, 3)));
		break;
	case 2:					/* a length not a word's */
		*len -= 1 + below(s, 3);
		break;
	default:				/* VL15 to QP1, or a VL to QP0 */
		pkt[0] = (uint8_t)((h->dqpn ? 15 : below(s, 8)) << 4);
		break;
	}
}

size_t cx3_wirefuzz_build(const struct cx3_wf_env *e, uint64_t *s, int kind,
			  bool mutated, uint8_t *pkt, uint32_t *dqpn, int *cls)
{
	uint8_t payload[4096];
	size_t plen = MAD_SIZE, max;
	struct wf_hdr h = {
		.pkey = e->pkey, .qkey = IB_QP1_QKEY, .dqpn = 1, .sqpn = 1,
		.dlid = e->lid, .slid = pick_slid(e, s),
	};
	uint32_t r;

	if (kind == CX3_WF_MIX) {
		r = below(s, 100);
		kind = r < 45 ? CX3_WF_MAD : r < 70 ? CX3_WF_CM : CX3_WF_IPOIB;
	}
	if (kind == CX3_WF_MAD) {
		r = below(s, 100);
		*cls = r < 20 ? CX3_WF_SMP : r < 40 ? CX3_WF_DR : r < 75 ? CX3_WF_GMP : CX3_WF_RMPP;
	} else {
		*cls = kind == CX3_WF_CM ? CX3_WF_CM_MSG : CX3_WF_IPOIB_PKT;
	}
	switch (*cls) {
	case CX3_WF_SMP:
	case CX3_WF_DR:
		if (*cls == CX3_WF_SMP)
			build_smp(e, s, payload);
		else
			build_dr(e, s, payload);
		h.vl = 15;
		h.dqpn = 0;
		h.sqpn = 0;
		h.qkey = (uint32_t)(pct(s, 90) ? 0 : rnd(s));	/* QP0 ignores it */
		if (*cls == CX3_WF_DR && pct(s, 80)) {
			h.dlid = 0xffff;
			h.slid = 0xffff;
		}
		break;
	case CX3_WF_GMP:
		build_gmp(e, s, payload);
		break;
	case CX3_WF_RMPP:
		build_rmpp(e, s, payload);
		break;
	case CX3_WF_CM_MSG:
		build_cm(e, s, payload);
		break;
	default:
		max = e->mtu < sizeof(payload) ? e->mtu : sizeof(payload);
		plen = build_ipoib(e, s, payload, max);
		h.qkey = e->qkey;
		h.sqpn = 2 + below(s, 0xfffffd);
		if (e->ipoib_qpn && pct(s, 70)) {
			h.dqpn = e->ipoib_qpn;
		} else {		/* the broadcast group */
			h.dqpn = 0xffffff;
			h.dlid = (uint16_t)(0xc000 | below(s, 4));
			h.grh = true;
			memcpy(h.dgid, e->mgid, 16);
		}
		if (mutated)
			mutate(s, payload, &plen, 2, max, true);
		break;
	}
	if (*cls != CX3_WF_IPOIB_PKT && mutated)
		mutate_mad(s, payload, &plen, *cls <= CX3_WF_DR);
	if (h.vl != 15 && !h.grh && pct(s, 15)) {	/* a GRH to us */
		h.grh = true;
		put_gid(e, h.dgid, e->guid);
	}
	if (h.vl != 15)
		h.sl = (uint8_t)(pct(s, 90) ? 0 : below(s, 16));
	if (mutated && pct(s, 5)) {			/* P_Key, Q_Key, source */
		switch (below(s, 4)) {
		case 0:
			h.pkey = (uint16_t)(pct(s, 50) ? 0x7fff : rnd(s));
			break;
		case 1:
			h.qkey = (uint32_t)rnd(s);
			break;
		case 2:
			h.sqpn = (uint32_t)rnd(s);
			break;
		default:
			h.pkey = 0;
			break;
		}
	}
	*dqpn = h.dqpn;
	plen = assemble(e, s, &h, payload, plen, pkt);
	if (mutated && pct(s, 3)) {
		spoil(s, pkt, &plen, &h);
		*cls = CX3_WF_BAD_HDR;
	}
	return plen;
}

/* ---------------------------------------------------------------------- */
/* What the card knows of its port */

/* The IPoIB broadcast group's MGID for a P_Key (RFC 4391, link-local) */
static void bcast_mgid(uint16_t pkey, uint8_t *gid)
{
	cx3_put64(gid, 0, 0xff12401b00000000ull | (uint64_t)(pkey | 0x8000) << 16);
	cx3_put64(gid, 8, 0x00000000ffffffffull);
}

/* The first UD QP of the group with this MGID on port (0: none) */
static uint32_t mcg_ud_member(struct cx3_dev *dev, int port, const uint8_t *gid)
{
	uint32_t idx, i, n;
	const uint8_t *ent;
	unsigned int hops = 0;
	struct cx3_qp *qp;

	if (!dev->mcg)
		return 0;
	idx = cx3_mcg_hash(dev, gid);
	while ((ent = cx3_mcg_entry(dev, idx)) && hops++ < 4096) {
		if (cx3_mcg_members(ent) && !memcmp(ent + 0x10, gid, 16)) {
			n = cx3_mcg_members(ent);
			for (i = 0; i < n; i++) {
				qp = cx3_qp_get(dev, cx3_get32(ent, 0x20 + i * 4) & 0xffffff);
				if (qp && qp->st == CX3_ST_UD && cx3_qp_port(qp) == port)
					return qp->qpn;
			}
			return 0;
		}
		idx = cx3_get32(ent, 0) >> 6;
		if (!idx)
			return 0;
	}
	return 0;
}

void cx3_wirefuzz_env(struct cx3_dev *dev, int port, struct cx3_wf_env *e)
{
	struct cx3_port *p = &dev->port[port - 1];
	struct cx3_port *o = &dev->port[CX3_NUM_PORTS - port];
	struct cx3_qp *qp;

	memset(e, 0, sizeof(*e));
	e->lid = p->lid ? p->lid : 1;
	e->slid = o->lid && o->lid != p->lid ? o->lid : (uint16_t)(e->lid + 1);
	e->sm_lid = p->sm_lid ? p->sm_lid : e->slid;
	e->pkey = p->pkeys[0] ? p->pkeys[0] : 0xffff;
	e->gid_prefix = p->gid_prefix ? p->gid_prefix : 0xfe80000000000000ull;
	e->guid = p->guids[0];
	e->peer_guid = o->guids[0] ? o->guids[0] : e->guid + 1;
	e->mtu = p->neighbor_mtu >= 1 && p->neighbor_mtu <= 5 ?
		 128u << p->neighbor_mtu : 2048;
	bcast_mgid(e->pkey, e->mgid);
	e->ipoib_qpn = mcg_ud_member(dev, port, e->mgid);
	qp = e->ipoib_qpn ? cx3_qp_get(dev, e->ipoib_qpn) : NULL;
	e->qkey = qp ? qp->qkey : 0x0b1b;
}

/* ---------------------------------------------------------------------- */
/* Arming, and the injection from the poll */

static int parse_u64(const char **p, uint64_t max, uint64_t *out)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -1;
	*out = strtoull(*p, &end, 0);
	if (end - *p > 20 || *out > max || (*end && *end != ':'))
		return -1;
	*p = end;
	return 0;
}

int cx3_wirefuzz_set(struct cx3_dev *dev, const char *spec)
{
	struct cx3_wirefuzz *w = &dev->wirefuzz;
	uint64_t port, n, seed = 1;
	const char *p = spec;
	int kind = CX3_WF_MIX;

	if (!strcmp(spec, "off")) {
		if (w->left)
			cx3_log(dev, "fault: wirefuzz port %d stopped with %llu packet(s) to go",
				w->port, (unsigned long long)w->left);
		w->left = 0;
		return 0;
	}
	if (parse_u64(&p, CX3_NUM_PORTS, &port) || !port || *p++ != ':' ||
	    parse_u64(&p, CX3_WF_MAX, &n) || !n)
		return -1;
	if (*p == ':') {
		p++;
		if (parse_u64(&p, ~0ull, &seed))
			return -1;
	}
	if (*p == ':') {
		p++;
		for (kind = 0; kind < 4 && strcmp(p, kind_names[kind]); kind++)
			;
		if (kind == 4)
			return -1;
		p += strlen(p);
	}
	if (*p)
		return -1;
	if (w->left) {
		cx3_log(dev, "fault: wirefuzz refused: port %d still has %llu packet(s) to go",
			w->port, (unsigned long long)w->left);
		return -1;
	}
	/* a fresh run; only the count since power-on carries over */
	*w = (struct cx3_wirefuzz){
		.port = (int)port, .kind = kind, .total = n, .left = n,
		.seed = seed, .rng = seed, .injected = w->injected,
	};
	cx3_log(dev, "fault: wirefuzz armed: port %d, %llu packet(s), seed %llu, kind %s",
		w->port, (unsigned long long)n, (unsigned long long)seed,
		kind_names[kind]);
	return 0;
}

void cx3_wirefuzz_get(struct cx3_dev *dev, char *buf, size_t len)
{
	const struct cx3_wirefuzz *w = &dev->wirefuzz;

	if (!w->left)
		snprintf(buf, len, "off");
	else
		snprintf(buf, len, "%d:%llu:%llu:%s", w->port,
			 (unsigned long long)w->left, (unsigned long long)w->seed,
			 kind_names[w->kind]);
}

bool cx3_wirefuzz_busy(struct cx3_dev *dev)
{
	return dev->wirefuzz.left != 0;
}

/* Has the QP this packet goes to a receive WQE for it (or none at all)? */
static bool can_take(struct cx3_dev *dev, int port, uint32_t dqpn,
		     uint32_t ipoib_qpn)
{
	struct cx3_qp *qp;
	uint16_t head;

	qp = cx3_qp_by_wire(dev, port, dqpn == 0xffffff ? ipoib_qpn : dqpn);
	if (!qp || qp->srq || !qp->rq.cnt)
		return true;
	if (cx3_qp_rq_head(dev, qp, &head))
		return true;
	return head != (uint16_t)qp->rq.cons;
}

static void report(struct cx3_dev *dev, const char *what)
{
	struct cx3_wirefuzz *w = &dev->wirefuzz;
	char buf[256];
	size_t n = 0;
	int i;

	for (i = 0; i < CX3_WF_NCLASS; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s %llu",
				      i ? ", " : "", class_names[i],
				      (unsigned long long)w->count[i]);
	cx3_log(dev, "fault: wirefuzz port %d %s: %llu of %llu injected (%s), seed %llu, %llu wait(s) for a receive WQE, %llu sent without one",
		w->port, what, (unsigned long long)(w->total - w->left),
		(unsigned long long)w->total, buf, (unsigned long long)w->seed,
		(unsigned long long)w->waits, (unsigned long long)w->stuck);
}

void cx3_wirefuzz_poll(struct cx3_dev *dev)
{
	struct cx3_wirefuzz *w = &dev->wirefuzz;
	struct cx3_wf_env e;
	unsigned int i;
	uint64_t tenth;

	if (!w->left)
		return;
	cx3_wirefuzz_env(dev, w->port, &e);
	for (i = 0; i < CX3_WF_BURST && w->left; i++) {
		if (!w->pending_len)
			w->pending_len = cx3_wirefuzz_build(&e, &w->rng, w->kind, true,
							    w->pending, &w->pending_qpn,
							    &w->pending_cls);
		if (!can_take(dev, w->port, w->pending_qpn, e.ipoib_qpn)) {
			w->waits++;
			if (++w->wait_ticks < CX3_WF_WAIT)
				return;
			w->stuck++;
		}
		w->wait_ticks = 0;
		cx3_port_wire_packet(dev, w->port, w->pending, w->pending_len);
		w->pending_len = 0;
		w->count[w->pending_cls]++;
		w->injected++;
		w->left--;
		tenth = w->total / 10;
		if (!w->left)
			report(dev, "done");
		else if (tenth && (w->total - w->left) % tenth == 0)
			report(dev, "progress");
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the ConnectX-3 model's wire fuzzer (cx3_wirefuzz.c), without
 * a VM: the stream is the seed's alone (the same seed, the same packets; a
 * different seed, others); the templates before mutation are packets the
 * link delivers (they parse, their ICRC holds, VL15 carries QP0 only, the
 * MADs are whole with the class their kind says, the IPoIB ones reach the
 * IPoIB QP or its broadcast group with its Q_Key); mutated ones keep the
 * SM's subnet alone (no SMP or SA Set or Delete) and only a small share is
 * refused by the link; every class appears; the specs it takes and those it
 * refuses; armed on a card, it injects all N from the poll, a burst at most
 * per tick, counts them and logs so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cx3_pkt.h"
#include "fake.h"

#define ARRAY_N(a)	(sizeof(a) / sizeof((a)[0]))

static struct cx3_dev dev;

static const struct cx3_wf_env env = {
	.lid = 1, .slid = 2, .sm_lid = 1, .pkey = 0xffff,
	.gid_prefix = 0xfe80000000000000ull,
	.guid = 0x0002c90300000101ull, .peer_guid = 0x0002c90300000102ull,
	.mtu = 2048,
	.mgid = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
		  0xff, 0xff, 0xff, 0xff },
	.ipoib_qpn = 0x48, .qkey = 0x0b1b,
};

static uint8_t pkt[CX3_WF_PKT_MAX];

/* the packet is one the link delivers to its QP: true if so */
static bool deliverable(size_t len, uint32_t dqpn)
{
	struct cx3_pkt p;

	if (cx3_pkt_parse(&p, pkt, len) ||
	    cx3_get32(pkt, len - IB_ICRC_BYTES) != cx3_icrc(pkt, len))
		return false;
	return p.dqpn == dqpn && (p.vl == 15) == (dqpn == 0) &&
	       p.opcode == (IB_TRANSPORT_UD | IB_OP_SEND_ONLY) &&
	       p.payload_len >= IB_DETH_BYTES;
}

static void templates(void)
{
	static const char *const kinds[] = { "mad", "cm", "ipoib" };
	unsigned int i, bad, wrong, whole, n = 3000;
	uint64_t s = 5;
	uint32_t dqpn;
	struct cx3_pkt p;
	const uint8_t *m;
	size_t len;
	int cls, kind;

	for (kind = CX3_WF_MAD; kind <= CX3_WF_IPOIB; kind++) {
		bad = 0;
		wrong = 0;
		whole = 0;
		for (i = 0; i < n; i++) {
			len = cx3_wirefuzz_build(&env, &s, kind, false, pkt, &dqpn, &cls);
			if (!deliverable(len, dqpn)) {
				bad++;
				continue;
			}
			cx3_pkt_parse(&p, pkt, len);
			m = p.payload + IB_DETH_BYTES;
			if (kind == CX3_WF_IPOIB) {
				whole += cls == CX3_WF_IPOIB_PKT;
				wrong += cx3_get32(p.payload, 0) != env.qkey ||
					 (dqpn != env.ipoib_qpn &&
					  (dqpn != 0xffffff || !p.grh ||
					   memcmp(p.grh + 24, env.mgid, 16)));
				continue;
			}
			whole += p.payload_len == IB_DETH_BYTES + 256 && m[0] == 1;
			if (kind == CX3_WF_CM)
				wrong += cls != CX3_WF_CM_MSG || m[1] != 0x07 ||
					 dqpn != 1;
			else
				wrong += cls > CX3_WF_RMPP ||
					 (cls <= CX3_WF_DR) != (dqpn == 0) ||
					 (cls == CX3_WF_SMP && m[1] != 0x01) ||
					 (cls == CX3_WF_DR && m[1] != 0x81);
			if (dqpn == 1)
				wrong += cx3_get32(p.payload, 0) != IB_QP1_QKEY;
		}
		check(!bad && !wrong && whole == n,
		      "template %s: %u unmutated packets delivered to their QP, whole, of their class (%u refused, %u wrong, %u whole)",
		      kinds[kind], n, bad, wrong, whole);
	}
}

static void determinism(void)
{
	static uint8_t a[CX3_WF_PKT_MAX];
	uint64_t s1 = 42, s2 = 42, s3 = 43;
	unsigned int i, same = 0, differ = 0;
	size_t l1, l2, l3;
	uint32_t q;
	int c;

	for (i = 0; i < 2000; i++) {
		l1 = cx3_wirefuzz_build(&env, &s1, CX3_WF_MIX, true, a, &q, &c);
		l2 = cx3_wirefuzz_build(&env, &s2, CX3_WF_MIX, true, pkt, &q, &c);
		same += l1 == l2 && !memcmp(a, pkt, l1);
		l3 = cx3_wirefuzz_build(&env, &s3, CX3_WF_MIX, true, pkt, &q, &c);
		differ += l3 != l1 || memcmp(a, pkt, l1);
	}
	check(same == 2000, "seed: 2000 packets of seed 42 built twice are the same (%u)", same);
	check(differ > 1900, "seed: seed 43's differ from 42's (%u of 2000)", differ);
}

static void mutated(void)
{
	uint64_t count[CX3_WF_NCLASS] = { 0 }, s = 99;
	unsigned int i, n = 20000, refused = 0, reconf = 0, big = 0, all = 1;
	struct cx3_pkt p;
	const uint8_t *m;
	uint32_t dqpn;
	size_t len;
	int cls;

	for (i = 0; i < n; i++) {
		len = cx3_wirefuzz_build(&env, &s, CX3_WF_MIX, true, pkt, &dqpn, &cls);
		count[cls]++;
		big += len > CX3_WF_PKT_MAX;
		if (cls == CX3_WF_BAD_HDR)
			continue;
		if (!deliverable(len, dqpn)) {
			refused++;
			continue;
		}
		cx3_pkt_parse(&p, pkt, len);
		m = p.payload + IB_DETH_BYTES;
		if (dqpn <= 1 && p.payload_len >= IB_DETH_BYTES + 4 &&
		    (m[1] == 0x01 || m[1] == 0x81 || m[1] == 0x03) &&
		    (m[3] == 0x02 || m[3] == 0x15))
			reconf++;
	}
	for (i = 0; i < CX3_WF_NCLASS; i++)
		all &= count[i] > 0;
	check(all, "mix: every class injected (smp %llu, dr %llu, gmp %llu, rmpp %llu, cm %llu, ipoib %llu, bad header %llu)",
	      (unsigned long long)count[0], (unsigned long long)count[1],
	      (unsigned long long)count[2], (unsigned long long)count[3],
	      (unsigned long long)count[4], (unsigned long long)count[5],
	      (unsigned long long)count[6]);
	check(count[CX3_WF_BAD_HDR] > n / 100 && count[CX3_WF_BAD_HDR] < n / 20,
	      "mix: 1-5%% with a header the link refuses (%llu of %u)",
	      (unsigned long long)count[CX3_WF_BAD_HDR], n);
	check(!refused, "mix: the others pass the link's checks (%u refused)", refused);
	check(!reconf, "mix: no SMP or SA Set or Delete (%u)", reconf);
	check(!big, "mix: no packet longer than the buffer (%u)", big);
}

static bool spec(const char *sp)
{
	return cx3_wirefuzz_set(&dev, sp) == 0;
}

static bool armed_is(const char *want)
{
	char buf[96];

	cx3_wirefuzz_get(&dev, buf, sizeof(buf));
	return !strcmp(buf, want);
}

static void specs(void)
{
	static const char *const bad[] = {
		"", "1", "0:5", "3:5", "1:0", "1:-5", "1:5:", "1:5:x", "1:5:1:foo",
		"1:5:1:mad:x", "1:5:1:", "x:5", "1:100000001", " 1:5",
	};
	unsigned int i, took = 0;

	for (i = 0; i < ARRAY_N(bad); i++)
		took += spec(bad[i]);
	check(!took && armed_is("off"), "spec: %zu bad specs refused, nothing armed (%u taken)",
	      ARRAY_N(bad), took);
	check(spec("2:7") && armed_is("2:7:1:mix"), "spec: PORT:N arms mix with seed 1");
	check(!spec("1:5"), "spec: refused while armed");
	check(spec("off") && armed_is("off"), "spec: off stops it");
	check(spec("1:5:0x10:cm") && armed_is("1:5:16:cm"), "spec: seed in hex, kind cm");
	check(spec("off") && spec("1:3:18446744073709551615:ipoib") &&
	      armed_is("1:3:18446744073709551615:ipoib"), "spec: a 64-bit seed, kind ipoib");
	spec("off");
}

static void injection(void)
{
	uint64_t before = dev.wirefuzz.injected;
	unsigned int ticks = 0;

	log_clear();
	check(spec("1:1000:77:mad") &&
	      log_has("fault: wirefuzz armed: port 1, 1000 packet(s), seed 77, kind mad"),
	      "poll: armed, logged with its seed");
	cx3_poll(&dev);
	check(dev.wirefuzz.injected - before == CX3_WF_BURST,
	      "poll: one tick injects a burst of %d (%llu)", CX3_WF_BURST,
	      (unsigned long long)(dev.wirefuzz.injected - before));
	check(cx3_needs_poll(&dev), "poll: the platform keeps polling while armed");
	while (cx3_wirefuzz_busy(&dev) && ticks++ < 10000)
		cx3_poll(&dev);
	check(dev.wirefuzz.injected - before == 1000 && armed_is("off"),
	      "poll: all 1000 injected (%llu), then off",
	      (unsigned long long)(dev.wirefuzz.injected - before));
	check(log_has("fault: wirefuzz port 1 done: 1000 of 1000 injected (smp "),
	      "poll: the done line says 1000 of 1000");
	check(dev.wirefuzz.count[CX3_WF_SMP] + dev.wirefuzz.count[CX3_WF_DR] +
	      dev.wirefuzz.count[CX3_WF_GMP] + dev.wirefuzz.count[CX3_WF_RMPP] +
	      dev.wirefuzz.count[CX3_WF_BAD_HDR] == 1000 &&
	      !dev.wirefuzz.count[CX3_WF_CM_MSG] && !dev.wirefuzz.count[CX3_WF_IPOIB_PKT],
	      "poll: kind mad injects MADs only");
	check(!cx3_dead(&dev) && !cx3_needs_poll(&dev), "poll: the card is alive and idle after");
	check(spec("2:100000") && spec("off") && log_has("stopped with 100000 packet(s) to go"),
	      "poll: off stops a run, logged");
}

int main(void)
{
	if (!fake_start(&dev))
		return 2;
	templates();
	determinism();
	mutated();
	specs();
	injection();
	cx3_fini(&dev);
	printf("test_wirefuzz: %d checks, %d failed\n", checks, failures);
	return failures != 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The kverbs cases of the IPoIB offloads between the card's two ports:
 * the capability flags, IB_SEND_IP_CSUM on a UD send and IB_WC_IP_CSUM_OK
 * on its receive (and not for a datagram whose checksum is wrong), and
 * IB_WR_LSO on a UD QP created with IB_QP_CREATE_IPOIB_UD_LSO: one send
 * arrives as MSS-sized datagrams, each with its own correct headers.
 * The datagrams are what IPoIB sends: a 4-byte IPoIB header, then IPv4.
 */
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip.h>

#include "kverbs.h"

#define KV_IPOIB_HDR	4
#define KV_LSO_MSS	1000
#define KV_LSO_LEN	3000	/* three segments */
#define KV_CSUM_LEN	600	/* UDP payload */

int kv_case_offload_caps(struct kv_self *s)
{
	const struct ib_device_attr *a = &s->r.dev->attrs;

	if (!(a->device_cap_flags & IB_DEVICE_UD_IP_CSUM) ||
	    !(a->kernel_cap_flags & IBK_UD_TSO))
		return kv_fail(&s->r, "UD_IP_CSUM %s, IBK_UD_TSO %s",
			       a->device_cap_flags & IB_DEVICE_UD_IP_CSUM ? "on" : "off",
			       a->kernel_cap_flags & IBK_UD_TSO ? "on" : "off");
	return 0;
}

/* An IPoIB + IPv4 header at p for l4len bytes of proto; returns the IP header */
static struct iphdr *kv_ip4(u8 *p, u8 proto, size_t l4len)
{
	struct iphdr *ip = (struct iphdr *)(p + KV_IPOIB_HDR);

	memset(p, 0, KV_IPOIB_HDR + sizeof(*ip));
	*(__be16 *)p = htons(ETH_P_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons(sizeof(*ip) + l4len);
	ip->id = htons(0x4242);
	ip->ttl = 64;
	ip->protocol = proto;
	ip->check = (__force __sum16)htons(0xdead);	/* wrong: the card fills it */
	ip->saddr = htonl(0x0a000001);
	ip->daddr = htonl(0x0a000002);
	return ip;
}

/* Both checksums of an IPoIB datagram at p verify */
static bool kv_ip4_verifies(const u8 *p)
{
	const struct iphdr *ip = (const void *)(p + KV_IPOIB_HDR);
	size_t l4 = ntohs(ip->tot_len) - ip->ihl * 4;

	return !ip_fast_csum(ip, ip->ihl) &&
	       !csum_tcpudp_magic(ip->saddr, ip->daddr, l4, ip->protocol,
				  csum_partial((const u8 *)ip + ip->ihl * 4, l4, 0));
}

static struct ib_ah *kv_ah_port2(struct kv_run *r)
{
	struct rdma_ah_attr aa;

	kv_ah_attr(r, &aa, r->lid[2], 1);
	return kv_ah_create(r, &aa, RDMA_CREATE_AH_SLEEPABLE, "AH to port 2");
}

static int kv_ud_post(struct kv_run *r, struct kv_pair *p, struct ib_ah *ah,
		      struct ib_ud_wr *wr, u64 wr_id, struct ib_sge *sge, int flags)
{
	const struct ib_send_wr *bad = NULL;
	int err;

	wr->wr.wr_id = wr_id;
	wr->wr.sg_list = sge;
	wr->wr.num_sge = 1;
	wr->wr.send_flags = IB_SEND_SIGNALED | flags;
	wr->ah = ah;
	wr->remote_qpn = p->b.qp->qp_num;
	wr->remote_qkey = KV_QKEY;
	err = kv_post_send(r, p->a.qp, &wr->wr, &bad);
	if (err)
		return kv_fail(r, "UD ib_post_send (opcode %d) failed: %d", wr->wr.opcode, err);
	return 0;
}

/*
 * IB_SEND_IP_CSUM: a UDP datagram whose checksums are wrong leaves with
 * both computed; the receive says IB_WC_IP_CSUM_OK and they verify.  The
 * same datagram without the flag keeps its wrong checksums and the receive
 * does not claim they are right.
 */
int kv_case_ud_csum(struct kv_self *s)
{
	size_t len = KV_IPOIB_HDR + sizeof(struct iphdr) + sizeof(struct udphdr) +
		     KV_CSUM_LEN;
	struct kv_run *r = &s->r;
	struct ib_ah *ah = NULL;
	struct ib_ud_wr wr;
	struct ib_sge ss, rs;
	struct udphdr *udp;
	struct ib_wc wc;
	struct kv_pair p;
	int ret, i;

	ret = kv_pair_create(r, &p, IB_QPT_UD, NULL);
	if (ret)
		return ret;
	ah = kv_ah_port2(r);
	if (!ah) {
		ret = -EIO;
		goto out;
	}
	for (i = 0; i < 2 && !ret; i++) {
		u8 *d = s->a.cpu;

		kv_buf_cpu(&s->a);
		udp = (struct udphdr *)(kv_ip4(d, IPPROTO_UDP, len - 24) + 1);
		udp->source = htons(4000);
		udp->dest = htons(4001);
		udp->len = htons(len - 24);
		udp->check = (__force __sum16)htons(0xbeef);
		kv_fill(&s->a, len - KV_CSUM_LEN, KV_CSUM_LEN, 61 + i);
		kv_buf_dev(&s->a);
		kv_buf_cpu(&s->b);
		memset(s->b.cpu, 0, KV_GRH + len);
		kv_buf_dev(&s->b);
		rs = kv_sge_mr(&s->b, 0, KV_GRH + 4096);
		ret = kv_recv(r, p.b.qp, 40 + i, &rs, 1);
		memset(&wr, 0, sizeof(wr));
		wr.wr.opcode = IB_WR_SEND;
		ss = kv_sge_mr(&s->a, 0, len);
		ret = ret ?: kv_ud_post(r, &p, ah, &wr, 30 + i, &ss,
					i ? 0 : IB_SEND_IP_CSUM);
		ret = ret ?: kv_expect(r, &p.a.scq, "checksum send", 30 + i,
				       IB_WC_SUCCESS, IB_WC_SEND, NULL);
		ret = ret ?: kv_expect(r, &p.b.rcq, "checksum receive", 40 + i,
				       IB_WC_SUCCESS, IB_WC_RECV, &wc);
		if (ret)
			break;
		kv_buf_cpu(&s->b);
		if (wc.byte_len != KV_GRH + len)
			ret = kv_fail(r, "byte_len %u, want %zu", wc.byte_len, KV_GRH + len);
		else if (!i && !(wc.wc_flags & IB_WC_IP_CSUM_OK))
			ret = kv_fail(r, "IP_CSUM send: receive without IP_CSUM_OK (flags 0x%x)",
				      wc.wc_flags);
		else if (!i && !kv_ip4_verifies((u8 *)s->b.cpu + KV_GRH))
			ret = kv_fail(r, "IB_SEND_IP_CSUM: the received checksums do not verify");
		else if (i && (wc.wc_flags & IB_WC_IP_CSUM_OK))
			ret = kv_fail(r, "wrong checksums, yet IB_WC_IP_CSUM_OK");
		else
			ret = kv_check_fill(r, &s->b, KV_GRH + len - KV_CSUM_LEN,
					    KV_CSUM_LEN, 61 + i, "checksum payload");
	}
out:
	if (ah && rdma_destroy_ah_user(ah, 0, NULL))
		ret = kv_fail(r, "rdma_destroy_ah_user failed");
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

/* Segment i of the LSO send, received at off in b: headers and payload */
static int kv_lso_check(struct kv_run *r, struct kv_buf *b, size_t off,
			const u8 *hdr, size_t hlen, int i, const struct ib_wc *wc)
{
	const u8 *p = (const u8 *)b->cpu + off;
	const struct iphdr *ip = (const void *)(p + KV_IPOIB_HDR);
	const struct tcphdr *th = (const void *)(ip + 1);
	const struct tcphdr *th0 = (const void *)(hdr + KV_IPOIB_HDR + sizeof(*ip));
	bool last = i == KV_LSO_LEN / KV_LSO_MSS - 1;

	if (wc->byte_len != KV_GRH + hlen + KV_LSO_MSS)
		return kv_fail(r, "segment %d: byte_len %u, want %zu", i, wc->byte_len,
			       KV_GRH + hlen + KV_LSO_MSS);
	if (!(wc->wc_flags & IB_WC_IP_CSUM_OK))
		return kv_fail(r, "segment %d: no IB_WC_IP_CSUM_OK", i);
	if (ntohs(ip->tot_len) != hlen - KV_IPOIB_HDR + KV_LSO_MSS ||
	    ntohs(ip->id) != 0x4242 + i)
		return kv_fail(r, "segment %d: IP tot_len %u id 0x%x", i,
			       ntohs(ip->tot_len), ntohs(ip->id));
	if (ntohl(th->seq) != ntohl(th0->seq) + i * KV_LSO_MSS ||
	    th->ack_seq != th0->ack_seq || th->source != th0->source ||
	    th->dest != th0->dest)
		return kv_fail(r, "segment %d: TCP seq %u (first %u), ports or ack wrong",
			       i, ntohl(th->seq), ntohl(th0->seq));
	if (th->psh != last || th->fin != last || !th->ack)
		return kv_fail(r, "segment %d: TCP flags psh %u fin %u ack %u", i,
			       th->psh, th->fin, th->ack);
	if (!kv_ip4_verifies(p))
		return kv_fail(r, "segment %d: checksums do not verify", i);
	return 0;
}

/*
 * IB_WR_LSO: 3000 bytes of TCP payload at MSS 1000 behind a 44-byte
 * IPoIB/IPv4/TCP header arrive as three datagrams of header + 1000 bytes,
 * in order, with their IP lengths, IDs, sequence numbers, flags and
 * checksums fixed up; the send completes once, as IB_WC_LSO.
 */
int kv_case_ud_lso(struct kv_self *s)
{
	struct kv_pair_opts o = { .create_flags = IB_QP_CREATE_IPOIB_UD_LSO };
	size_t hlen = KV_IPOIB_HDR + sizeof(struct iphdr) + sizeof(struct tcphdr);
	struct kv_run *r = &s->r;
	struct ib_qp_init_attr ia;
	struct ib_qp_attr qa;
	struct ib_ah *ah = NULL;
	u8 hdr[64];
	struct tcphdr *th;
	struct ib_ud_wr wr;
	struct ib_sge ss, rs;
	struct ib_wc wc;
	struct kv_pair p;
	int ret, i;

	ret = kv_pair_create(r, &p, IB_QPT_UD, &o);
	if (ret)
		return ret;
	if (ib_query_qp(p.a.qp, &qa, 0, &ia) ||
	    !(ia.create_flags & IB_QP_CREATE_IPOIB_UD_LSO)) {
		ret = kv_fail(r, "ib_query_qp does not give back IB_QP_CREATE_IPOIB_UD_LSO");
		goto out;
	}
	ah = kv_ah_port2(r);
	if (!ah) {
		ret = -EIO;
		goto out;
	}
	th = (struct tcphdr *)(kv_ip4(hdr, IPPROTO_TCP,
				      sizeof(*th) + KV_LSO_LEN) + 1);
	memset(th, 0, sizeof(*th));
	th->source = htons(40000);
	th->dest = htons(5001);
	th->seq = htonl(0xfffffc00);		/* wraps in the second segment */
	th->ack_seq = htonl(77);
	th->doff = 5;
	th->ack = 1;
	th->psh = 1;
	th->fin = 1;
	th->window = htons(512);
	kv_buf_cpu(&s->b);
	memset(s->b.cpu, 0, 3 * 2048);
	kv_buf_dev(&s->b);
	for (i = 0; i < 3 && !ret; i++) {
		rs = kv_sge_mr(&s->b, i * 2048, 2048);
		ret = kv_recv(r, p.b.qp, 50 + i, &rs, 1);
	}
	kv_fill(&s->a, 0, KV_LSO_LEN, 71);
	memset(&wr, 0, sizeof(wr));
	wr.wr.opcode = IB_WR_LSO;
	wr.header = hdr;
	wr.hlen = hlen;
	wr.mss = KV_LSO_MSS;
	ss = kv_sge_mr(&s->a, 0, KV_LSO_LEN);
	ret = ret ?: kv_ud_post(r, &p, ah, &wr, 31, &ss, IB_SEND_IP_CSUM);
	ret = ret ?: kv_expect(r, &p.a.scq, "LSO send", 31, IB_WC_SUCCESS,
			       IB_WC_LSO, NULL);
	for (i = 0; i < 3 && !ret; i++) {
		ret = kv_expect(r, &p.b.rcq, "LSO segment", 50 + i, IB_WC_SUCCESS,
				IB_WC_RECV, &wc);
		if (ret)
			break;
		kv_buf_cpu(&s->b);
		ret = kv_lso_check(r, &s->b, i * 2048 + KV_GRH, hdr, hlen, i, &wc);
	}
	ret = ret ?: kv_expect_quiet(r, &p.b.rcq, "a fourth segment", KV_QUIET_MS);
	/* the payload, in order: segment i holds bytes i * MSS.. */
	for (i = 0; i < 3 && !ret; i++) {
		u8 *got = (u8 *)s->b.cpu + i * 2048 + KV_GRH + hlen;

		if (memcmp(got, (u8 *)s->a.cpu + i * KV_LSO_MSS, KV_LSO_MSS))
			ret = kv_fail(r, "segment %d: the payload is not bytes %d..", i,
				      i * KV_LSO_MSS);
	}
out:
	if (ah && rdma_destroy_ah_user(ah, 0, NULL))
		ret = kv_fail(r, "rdma_destroy_ah_user failed");
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
	return ret;
}

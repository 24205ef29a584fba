// SPDX-License-Identifier: GPL-2.0
/*
 * A fuzzer of RDMA netlink's NLDEV client: random and mutated requests,
 * each answered (checked) before the next.  Every request asks for an
 * ACK, so each must end in exactly one NLMSG_ERROR (an errno or 0) or,
 * for a dump, NLMSG_DONE; every answer must be well formed: message
 * lengths within the datagram, our sequence number, attributes within
 * their message.  A request without an answer within 10 s, or a
 * malformed answer, is a failure (with the seed and the request's number
 * to replay it).
 *
 *   nlfuzz [-n COUNT] [-s SEED] [-w]
 *
 * -w: also the writes (SET, SYS_SET, the links, STAT_SET/DEL), as the
 * caller's privileges allow; renames use names of the form fz<N> and the
 * device gets its first name back at the end.  Prints one summary line
 * per answer kind and "nlfuzz: N requests, seed S: PASS" or FAIL lines.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>

#define NETLINK_RDMA	20
#define NLDEV		5
#define TYPE(op)	((NLDEV << 10) | (op))
#define BUF		(64 * 1024)

enum {
	OP_GET = 1, OP_SET = 2, OP_NEWLINK = 3, OP_DELLINK = 4, OP_SYS_SET = 7,
	OP_STAT_SET = 16, OP_STAT_DEL = 18, NUM_OPS = 25
};
enum { A_DEV_INDEX = 1, A_DEV_NAME = 2, A_PORT_INDEX = 3, A_ATTR_MAX = 99 };

static uint64_t rng;
static int fd;
static uint32_t seq = 1;
static unsigned long n_err[134], n_ok, n_done, n_fail;

static uint32_t rnd(void)
{
	/* xorshift64*: reproducible from the seed */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 2685821657736338717ULL) >> 32);
}

static uint32_t below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

/* one attribute into buf at *off: type t, len bytes of payload p */
static void put_attr(uint8_t *buf, size_t *off, size_t cap, uint16_t t, const void *p,
		     uint16_t len)
{
	struct nlattr *a = (struct nlattr *)(buf + *off);
	size_t total = NLA_ALIGN(NLA_HDRLEN + len);

	if (*off + total > cap)
		return;
	a->nla_len = NLA_HDRLEN + len;
	a->nla_type = t;
	memcpy(buf + *off + NLA_HDRLEN, p, len);
	memset(buf + *off + NLA_HDRLEN + len, 0, total - NLA_HDRLEN - len);
	*off += total;
}

/* a value that is often right for the attribute, sometimes not */
static void rand_attr(uint8_t *buf, size_t *off, size_t cap, int dev_count, int writes)
{
	uint8_t p[96];
	uint16_t t = below(4) ? 1 + below(A_ATTR_MAX + 4) : below(0x8000);
	uint16_t len;
	uint32_t v;
	int i;

	switch (below(8)) {
	case 0:		/* a u8 */
		len = 1;
		p[0] = below(4) ? below(3) : rnd();
		break;
	case 1:		/* a u64 */
		len = 8;
		for (i = 0; i < 8; i++)
			p[i] = rnd();
		break;
	case 2:		/* a string, with or without its NUL, maybe too long */
		len = below(80);
		for (i = 0; i < len; i++)
			p[i] = 'a' + below(26);
		if (len && below(4))
			p[len - 1] = 0;
		if (t == A_DEV_NAME && writes) {
			/* a rename to fz<N>: restored at the end */
			len = snprintf((char *)p, sizeof(p), "fz%u", below(4)) + 1;
		}
		break;
	case 3:		/* random bytes */
		len = below(sizeof(p));
		for (i = 0; i < len; i++)
			p[i] = rnd();
		break;
	case 4:		/* a nest of attributes */
		len = 0;
		for (i = below(4); i > 0; i--) {
			uint16_t l = below(12);
			struct nlattr *a = (struct nlattr *)(p + len);

			if (len + (size_t)NLA_ALIGN(NLA_HDRLEN + l) > sizeof(p))
				break;
			a->nla_len = NLA_HDRLEN + l;
			a->nla_type = 1 + below(A_ATTR_MAX);
			memset(p + len + NLA_HDRLEN, below(256), l);
			len += NLA_ALIGN(NLA_HDRLEN + l);
		}
		t |= below(2) ? NLA_F_NESTED : 0;
		break;
	default:	/* a u32, mostly a plausible index */
		len = 4;
		v = below(3) ? below(dev_count + 3) : rnd();
		if (t == A_PORT_INDEX)
			v = below(5);
		memcpy(p, &v, 4);
		break;
	}
	put_attr(buf, off, cap, t, p, len);
}

/* a request; its header's length may lie (then the kernel sees a short message) */
static size_t make_request(uint8_t *buf, size_t cap, int dev_count, int writes, uint32_t *s)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	size_t off = NLMSG_HDRLEN;
	uint32_t op;
	int n;

	do {
		op = below(8) ? below(NUM_OPS + 2) : below(1024);
	} while (!writes && (op == OP_SET || op == OP_NEWLINK || op == OP_DELLINK ||
			     op == OP_SYS_SET || op == OP_STAT_SET || op == OP_STAT_DEL));
	h->nlmsg_type = below(32) ? TYPE(op) : 0x10 + below(0xfff0);
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (below(3) ? 0 : NLM_F_DUMP);
	h->nlmsg_seq = *s = seq++;
	h->nlmsg_pid = 0;
	if (below(3)) {
		uint32_t idx = below(dev_count + 2);

		put_attr(buf, &off, cap, A_DEV_INDEX, &idx, 4);
	}
	for (n = below(6); n > 0; n--)
		rand_attr(buf, &off, cap, dev_count, writes);
	h->nlmsg_len = off;
	/* a mutation: a flipped byte past the header, or a length shortened */
	if (!below(8) && off > NLMSG_HDRLEN)
		buf[NLMSG_HDRLEN + below(off - NLMSG_HDRLEN)] ^= 1 << below(8);
	if (!below(16) && off > NLMSG_HDRLEN + 1) {
		/* cut within its attributes: the datagram ends there too */
		off = NLMSG_HDRLEN + below(off - NLMSG_HDRLEN);
		h->nlmsg_len = off;
	}
	/* rarely, a header that claims more than is sent: it is dropped unanswered */
	if (!below(64))
		h->nlmsg_len = off + 4 + below(64);
	return off;
}

static int bad(unsigned long i, const char *what)
{
	printf("FAIL nlfuzz: request %lu: %s\n", i, what);
	n_fail++;
	return -1;
}

/* the attributes of one message lie within it */
static int attrs_ok(const struct nlmsghdr *h)
{
	const uint8_t *p = (const uint8_t *)NLMSG_DATA(h);
	size_t left = h->nlmsg_len - NLMSG_HDRLEN;

	while (left >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > left)
			return 0;
		if ((size_t)NLA_ALIGN(a->nla_len) >= left)
			return 1;
		left -= NLA_ALIGN(a->nla_len);
		p += NLA_ALIGN(a->nla_len);
	}
	return left == 0;
}

/* the answers to request i (sequence s) until its terminal one */
static int answers(unsigned long i, uint32_t s)
{
	static uint8_t buf[BUF];

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (n < 0)
			return bad(i, errno == EAGAIN ? "no answer within 10 s" : strerror(errno));
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != s)
				return bad(i, "an answer with another sequence number");
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)) || e->error > 0 ||
				    e->error < -133)
					return bad(i, "a malformed NLMSG_ERROR");
				if (e->error)
					n_err[-e->error]++;
				else
					n_ok++;
				return 0;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				n_done++;
				return 0;
			}
			if ((h->nlmsg_type >> 10) != NLDEV || !attrs_ok(h))
				return bad(i, "a malformed answer");
		}
		if (n)
			return bad(i, "trailing bytes in an answer");
	}
}

/* how many devices: the first GET dump's messages; the first one's name */
static int devices(char *first, size_t len)
{
	uint8_t req[NLMSG_HDRLEN], buf[BUF];
	struct nlmsghdr *h = (struct nlmsghdr *)req;
	int count = 0, done = 0;

	h->nlmsg_len = NLMSG_HDRLEN;
	h->nlmsg_type = TYPE(OP_GET);
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	h->nlmsg_seq = seq++;
	h->nlmsg_pid = 0;
	if (send(fd, req, sizeof(req), 0) < 0)
		return -1;
	while (!done) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *m;

		if (n <= 0)
			return -1;
		for (m = (struct nlmsghdr *)buf; NLMSG_OK(m, (size_t)n); m = NLMSG_NEXT(m, n)) {
			struct nlattr *a = NLMSG_DATA(m);
			size_t left = m->nlmsg_len - NLMSG_HDRLEN;

			if (m->nlmsg_type == NLMSG_DONE || m->nlmsg_type == NLMSG_ERROR) {
				done = 1;
				break;
			}
			while (left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
			       a->nla_len <= left) {
				if (!count && a->nla_type == A_DEV_NAME)
					snprintf(first, len, "%s", (char *)a + NLA_HDRLEN);
				if ((size_t)NLA_ALIGN(a->nla_len) >= left)
					break;
				left -= NLA_ALIGN(a->nla_len);
				a = (struct nlattr *)((uint8_t *)a + NLA_ALIGN(a->nla_len));
			}
			count++;
		}
	}
	return count;
}

/* the device of index 0.. named back to its first name */
static void rename_back(const char *name)
{
	uint8_t buf[256];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	size_t off = NLMSG_HDRLEN;
	uint32_t s, idx;

	for (idx = 0; idx < 8; idx++) {
		off = NLMSG_HDRLEN;
		put_attr(buf, &off, sizeof(buf), A_DEV_INDEX, &idx, 4);
		put_attr(buf, &off, sizeof(buf), A_DEV_NAME, name, strlen(name) + 1);
		h->nlmsg_len = off;
		h->nlmsg_type = TYPE(OP_SET);
		h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
		s = seq++;
		h->nlmsg_seq = s;
		h->nlmsg_pid = 0;
		if (send(fd, buf, off, 0) >= 0)
			answers(0, s);
	}
}

int main(int argc, char **argv)
{
	static uint8_t req[4096];
	unsigned long count = 100000, i;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 10 };
	uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	char first[64] = "";
	int writes = 0, opt, devs, e;

	while ((opt = getopt(argc, argv, "n:s:w")) != -1) {
		if (opt == 'n')
			count = strtoul(optarg, NULL, 0);
		else if (opt == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (opt == 'w')
			writes = 1;
		else
			return 2;
	}
	rng = seed ? seed : 1;
	printf("nlfuzz: seed %llu, %lu requests%s\n", (unsigned long long)seed, count,
	       writes ? ", writes too" : "");
	fflush(stdout);

	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_RDMA);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		printf("FAIL nlfuzz: no NETLINK_RDMA socket: %s\n", strerror(errno));
		return 1;
	}
	devs = devices(first, sizeof(first));
	if (devs < 1) {
		printf("FAIL nlfuzz: no device in the GET dump\n");
		return 1;
	}

	for (i = 1; i <= count; i++) {
		uint32_t s;
		size_t len = make_request(req, sizeof(req), devs, writes, &s);

		if (send(fd, req, len, 0) < 0) {
			bad(i, strerror(errno));
			break;
		}
		/* a header that claims more than was sent gets no answer: none to wait for */
		if (((struct nlmsghdr *)req)->nlmsg_len > len)
			continue;
		if (answers(i, s) && n_fail > 10)
			break;
	}
	if (writes && first[0])
		rename_back(first);

	printf("nlfuzz: %lu acknowledged, %lu dumps ended", n_ok, n_done);
	for (e = 1; e < 134; e++)
		if (n_err[e])
			printf(", %lu %s", n_err[e], strerror(e));
	printf("\n");
	if (devices(first, sizeof(first)) != devs) {
		printf("FAIL nlfuzz: the device count changed\n");
		n_fail++;
	}
	printf("nlfuzz: %lu requests, seed %llu: %s\n", i - 1, (unsigned long long)seed,
	       n_fail ? "FAIL" : "PASS");
	return n_fail ? 1 : 0;
}

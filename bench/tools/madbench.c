// SPDX-License-Identifier: GPL-2.0
/*
 * madbench: MAD round trips per second through the kernel's umad ABI
 * (/dev/infiniband/umadN, <rdma/ib_user_mad.h>).
 *
 *   madbench [-d UMADDEV] [-D SECONDS] [-w WINDOW] smp LID
 *   madbench [-d UMADDEV] [-D SECONDS] [-w WINDOW] sa-path [SLID DLID]
 *
 * smp: LID-routed SubnGet(NodeInfo) to LID on QP0 (through the kernel's
 * SMI).  sa-path: SubnAdmGet(PathRecord) to the port's SM on QP1, from and
 * to the port's own GID 0, or from SLID to DLID.
 *
 * One agent (the 64-byte header of IB_USER_MAD_ENABLE_PKEY, no method
 * mask: only the responses to our requests come back) keeps WINDOW
 * requests outstanding, each with its own TID, timeout 1000 ms, no
 * retries.  A request answered with MAD status 0 counts as an op and is
 * sent again while SECONDS have not passed; a timeout (the kernel hands the
 * request back with hdr.status set), a non-zero MAD status, an unexpected
 * answer or a request the kernel never hands back count as errors.
 * seconds: from the first send to the last answer.  One JSON line on
 * stdout; exit status 1 if there were errors or no answer at all.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <rdma/ib_user_mad.h>

#define MAD_SIZE		256
#define TIMEOUT_MS		1000
/* a request not handed back this long after its timeout is "lost" */
#define LOST_GRACE_MS		2000
#define MAX_WINDOW		1024
#define MAX_REPORTS		5

/* MAD header (IBA 13.4.3), big endian */
#define MAD_BASE_VERSION	0
#define MAD_CLASS		1
#define MAD_CLASS_VERSION	2
#define MAD_METHOD		3
#define MAD_STATUS		4
#define MAD_TID			8
#define MAD_ATTR_ID		16
#define MAD_HDR_SIZE		24
/* SA MAD (IBA 15.2.1): RMPP header at 24, then SM_Key, offset, mask */
#define SA_SM_KEY		36
#define SA_ATTR_OFFSET		44
#define SA_COMP_MASK		48
#define SA_DATA			56
/* PathRecord (IBA 15.2.5.16), from the start of the SA data */
#define PR_DGID			8
#define PR_SGID			24
#define PR_DLID			40
#define PR_SLID			42
#define PR_COMP_DGID		(1ULL << 2)
#define PR_COMP_SGID		(1ULL << 3)
#define PR_COMP_DLID		(1ULL << 4)
#define PR_COMP_SLID		(1ULL << 5)

#define CLASS_SUBN_LID		0x01
#define CLASS_SUBN_ADM		0x03
#define METHOD_GET		0x01
#define METHOD_GET_RESP		0x81
#define ATTR_NODE_INFO		0x0011
#define ATTR_PATH_RECORD	0x0035
#define GSI_QKEY		0x80010000U

struct umad_pkt {
	struct ib_user_mad_hdr	hdr;
	uint8_t			mad[MAD_SIZE];
};

struct slot {
	uint32_t	tid;
	int64_t		sent_ns;
	bool		busy;
};

struct bench {
	int		fd;
	uint32_t	agent;
	int		window;
	double		seconds;
	const char	*test;
	uint16_t	attr_id;
	struct umad_pkt	req;		/* the request, TID aside */
	struct slot	slot[MAX_WINDOW];
	int		busy;
	uint32_t	next_tid;
	uint64_t	ops;
	uint64_t	timeouts, bad_status, unexpected, lost, stray;
	int		reports;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void put16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, 2);
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return be16toh(v);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

static void __attribute__((format(printf, 1, 2))) fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "madbench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* A sysfs file's first line into buf; exits if it cannot be read. */
static void read_sysfs(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f || !fgets(buf, len, f))
		fatal("cannot read %s", path);
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

static uint16_t parse_lid(const char *s, const char *what)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v == 0 || v > 0xbfff)
		fatal("bad %s '%s' (a unicast LID: 1..0xbfff)", what, s);
	return v;
}

/* "fe80:0000:...:0001" (sysfs' format) into 16 bytes */
static void parse_gid(const char *s, uint8_t *gid)
{
	unsigned int g[8];
	int i, n;

	if (sscanf(s, "%4x:%4x:%4x:%4x:%4x:%4x:%4x:%4x%n", &g[0], &g[1],
		   &g[2], &g[3], &g[4], &g[5], &g[6], &g[7], &n) != 8 ||
	    s[n] != '\0')
		fatal("bad GID '%s'", s);
	for (i = 0; i < 8; i++)
		put16(gid + 2 * i, g[i]);
}

static void send_slot(struct bench *b, int i)
{
	struct slot *s = &b->slot[i];
	ssize_t n;

	s->tid = ++b->next_tid;
	/* the kernel puts the agent's own bits in the upper half */
	put64(b->req.mad + MAD_TID, s->tid);
	n = write(b->fd, &b->req, sizeof(b->req));
	if (n != (ssize_t)sizeof(b->req)) {
		fprintf(stderr, "madbench: write to the umad device: %s\n",
			n < 0 ? strerror(errno) : "short write");
		exit(1);
	}
	s->sent_ns = now_ns();
	s->busy = true;
	b->busy++;
}

static void report(struct bench *b, const char *fmt, uint32_t tid,
		   unsigned int v)
{
	if (b->reports++ >= MAX_REPORTS)
		return;
	fprintf(stderr, "madbench: %s: TID 0x%08x: ", b->test, tid);
	fprintf(stderr, fmt, v);
	fprintf(stderr, "\n");
}

/* One packet from the kernel: an answer or a request handed back. */
static int handle(struct bench *b, const struct umad_pkt *p, size_t len)
{
	uint32_t tid;
	uint16_t status;
	int i;

	if (len < sizeof(p->hdr) + MAD_HDR_SIZE) {
		fprintf(stderr,
			"madbench: read %zu bytes, less than a MAD header\n",
			len);
		exit(1);
	}
	tid = (uint32_t)get64(p->mad + MAD_TID);
	for (i = 0; i < b->window; i++)
		if (b->slot[i].busy && b->slot[i].tid == tid)
			break;
	if (i == b->window) {
		b->stray++;
		return -1;
	}
	b->slot[i].busy = false;
	b->busy--;

	status = get16(p->mad + MAD_STATUS);
	if (p->hdr.status) {
		b->timeouts++;
		report(b, "no answer: hdr.status %u (timeout)", tid,
		       p->hdr.status);
	} else if (p->mad[MAD_METHOD] != METHOD_GET_RESP ||
		   get16(p->mad + MAD_ATTR_ID) != b->attr_id) {
		b->unexpected++;
		report(b, "unexpected answer: method/attribute 0x%06x", tid,
		       p->mad[MAD_METHOD] << 16 | get16(p->mad + MAD_ATTR_ID));
	} else if (status) {
		b->bad_status++;
		report(b, "MAD status 0x%04x", tid, status);
	} else {
		b->ops++;
	}
	return i;
}

/* Requests the kernel kept beyond their timeout: given up, sent again */
static void reap_lost(struct bench *b, int64_t now, int64_t deadline)
{
	int64_t limit = (int64_t)(TIMEOUT_MS + LOST_GRACE_MS) * 1000000;
	int i;

	for (i = 0; i < b->window; i++) {
		if (!b->slot[i].busy || now - b->slot[i].sent_ns < limit)
			continue;
		b->slot[i].busy = false;
		b->busy--;
		b->lost++;
		report(b, "never handed back by the kernel (%u ms)",
		       b->slot[i].tid, TIMEOUT_MS + LOST_GRACE_MS);
		if (now < deadline)
			send_slot(b, i);
	}
}

static double run(struct bench *b)
{
	struct umad_pkt p;
	struct pollfd pfd = { .fd = b->fd, .events = POLLIN };
	int64_t start, deadline, now, end;
	ssize_t n;
	int i;

	start = now_ns();
	deadline = start + (int64_t)(b->seconds * 1e9);
	end = start;
	for (i = 0; i < b->window; i++)
		send_slot(b, i);
	while (b->busy) {
		n = read(b->fd, &p, sizeof(p));
		if (n < 0 && errno == EAGAIN) {
			if (poll(&pfd, 1, 100) < 0 && errno != EINTR) {
				perror("madbench: poll");
				exit(1);
			}
		} else if (n < 0 && errno != EINTR) {
			perror("madbench: read from the umad device");
			exit(1);
		}
		now = now_ns();
		if (n > 0) {
			i = handle(b, &p, n);
			end = now;
			if (i >= 0 && now < deadline)
				send_slot(b, i);
		}
		reap_lost(b, now, deadline);
	}
	return (end - start) / 1e9;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: madbench [-d UMADDEV] [-D SECONDS] [-w WINDOW] smp LID\n"
		   "       madbench [-d UMADDEV] [-D SECONDS] [-w WINDOW] sa-path [SLID DLID]\n"
		   "  -d UMADDEV  e.g. /dev/infiniband/umad0 (the default)\n"
		   "  -D SECONDS  default 2 (e.g. 0.5)\n"
		   "  -w WINDOW   requests outstanding (default 8)\n");
}

/* The umad device's port: its IB device and port number, from sysfs. */
static void umad_port(const char *dev, char *ibdev, size_t len, int *port)
{
	const char *name = strrchr(dev, '/');
	char path[512], buf[64];

	name = name ? name + 1 : dev;
	snprintf(path, sizeof(path), "/sys/class/infiniband_mad/%s/ibdev",
		 name);
	read_sysfs(path, ibdev, len);
	snprintf(path, sizeof(path), "/sys/class/infiniband_mad/%s/port",
		 name);
	read_sysfs(path, buf, sizeof(buf));
	*port = atoi(buf);
}

static void port_file(const char *ibdev, int port, const char *file,
		      char *buf, size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/%s",
		 ibdev, port, file);
	read_sysfs(path, buf, len);
}

/* Builds the request and returns the agent's QP (0 or 1) and class. */
static void build_request(struct bench *b, const char *dev, int argc,
			  char **argv, uint8_t *qpn, uint8_t *mclass,
			  uint8_t *version)
{
	struct ib_user_mad_hdr *h = &b->req.hdr;
	uint8_t *m = b->req.mad;
	char ibdev[64], buf[128];
	uint64_t mask;
	int port;

	memset(&b->req, 0, sizeof(b->req));
	h->timeout_ms = TIMEOUT_MS;
	h->retries = 0;
	h->length = sizeof(b->req);
	h->pkey_index = 0;
	m[MAD_BASE_VERSION] = 1;
	m[MAD_METHOD] = METHOD_GET;

	if (!strcmp(b->test, "smp")) {
		if (argc != 1)
			fatal("smp: one LID expected");
		*qpn = 0;
		*mclass = CLASS_SUBN_LID;
		*version = 1;
		h->qpn = htobe32(0);
		h->qkey = 0;
		h->lid = htobe16(parse_lid(argv[0], "LID"));
		b->attr_id = ATTR_NODE_INFO;
	} else if (!strcmp(b->test, "sa-path")) {
		if (argc != 0 && argc != 2)
			fatal("sa-path: no argument, or SLID DLID");
		umad_port(dev, ibdev, sizeof(ibdev), &port);
		*qpn = 1;
		*mclass = CLASS_SUBN_ADM;
		*version = 2;
		h->qpn = htobe32(1);
		h->qkey = htobe32(GSI_QKEY);
		port_file(ibdev, port, "sm_lid", buf, sizeof(buf));
		h->lid = htobe16(parse_lid(buf, "SM LID"));
		port_file(ibdev, port, "sm_sl", buf, sizeof(buf));
		h->sl = atoi(buf);
		b->attr_id = ATTR_PATH_RECORD;
		/* RMPP header, SM_Key, attribute offset: all 0 */
		put64(m + SA_SM_KEY, 0);
		put16(m + SA_ATTR_OFFSET, 0);
		if (argc) {
			put16(m + SA_DATA + PR_SLID,
			      parse_lid(argv[0], "SLID"));
			put16(m + SA_DATA + PR_DLID,
			      parse_lid(argv[1], "DLID"));
			mask = PR_COMP_SLID | PR_COMP_DLID;
		} else {
			port_file(ibdev, port, "gids/0", buf, sizeof(buf));
			parse_gid(buf, m + SA_DATA + PR_SGID);
			parse_gid(buf, m + SA_DATA + PR_DGID);
			mask = PR_COMP_SGID | PR_COMP_DGID;
		}
		put64(m + SA_COMP_MASK, mask);
	} else {
		usage(stderr);
		exit(2);
	}
	m[MAD_CLASS] = *mclass;
	m[MAD_CLASS_VERSION] = *version;
	put16(m + MAD_ATTR_ID, b->attr_id);
}

int main(int argc, char **argv)
{
	struct bench b = { .window = 8, .seconds = 2 };
	struct ib_user_mad_reg_req reg;
	const char *dev = "/dev/infiniband/umad0";
	uint8_t qpn, mclass, version;
	uint64_t errors;
	double secs;
	char *end;
	int c;

	while ((c = getopt(argc, argv, "d:D:w:h")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'D':
			errno = 0;
			b.seconds = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(b.seconds > 0 && b.seconds < 1e6))
				fatal("bad seconds '%s'", optarg);
			break;
		case 'w':
			b.window = strtol(optarg, &end, 10);
			if (end == optarg || *end || b.window < 1 ||
			    b.window > MAX_WINDOW)
				fatal("bad window '%s' (1..1024)", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return 2;
	}
	b.test = argv[optind];
	build_request(&b, dev, argc - optind - 1, argv + optind + 1,
		      &qpn, &mclass, &version);

	b.fd = open(dev, O_RDWR | O_NONBLOCK);
	if (b.fd < 0) {
		fprintf(stderr, "madbench: open %s: %s\n", dev,
			strerror(errno));
		return 1;
	}
	if (ioctl(b.fd, IB_USER_MAD_ENABLE_PKEY) < 0) {
		fprintf(stderr,
			"madbench: ioctl(IB_USER_MAD_ENABLE_PKEY): %s\n",
			strerror(errno));
		return 1;
	}
	memset(&reg, 0, sizeof(reg));
	reg.qpn = qpn;
	reg.mgmt_class = mclass;
	reg.mgmt_class_version = version;
	reg.rmpp_version = 0;
	if (ioctl(b.fd, IB_USER_MAD_REGISTER_AGENT, &reg) < 0) {
		fprintf(stderr, "madbench: ioctl(IB_USER_MAD_REGISTER_AGENT, QP%u, class 0x%02x): %s\n",
			qpn, mclass, strerror(errno));
		return 1;
	}
	b.agent = reg.id;
	b.req.hdr.id = b.agent;

	secs = run(&b);

	if (ioctl(b.fd, IB_USER_MAD_UNREGISTER_AGENT, &b.agent) < 0)
		fprintf(stderr,
			"madbench: ioctl(IB_USER_MAD_UNREGISTER_AGENT): %s\n",
			strerror(errno));
	close(b.fd);

	errors = b.timeouts + b.bad_status + b.unexpected + b.lost;
	printf("{\"tool\":\"madbench\",\"test\":\"%s\",\"window\":%d,\"seconds\":%.3f,\"ops\":%llu,\"ops_per_sec\":%.1f,\"errors\":%llu}\n",
	       b.test, b.window, secs, (unsigned long long)b.ops,
	       secs > 0 ? b.ops / secs : 0.0, (unsigned long long)errors);
	fflush(stdout);
	if (errors || b.stray)
		fprintf(stderr, "madbench: %s: %llu timeouts, %llu non-zero MAD status, %llu unexpected answers, %llu never handed back, %llu answers to no outstanding request\n",
			b.test, (unsigned long long)b.timeouts,
			(unsigned long long)b.bad_status,
			(unsigned long long)b.unexpected,
			(unsigned long long)b.lost,
			(unsigned long long)b.stray);
	if (!b.ops) {
		fprintf(stderr, "madbench: %s: no answer at all\n", b.test);
		return 1;
	}
	return errors ? 1 : 0;
}

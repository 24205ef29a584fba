// SPDX-License-Identifier: GPL-2.0
/*
 * umadfuzz: a fuzzer of /dev/infiniband/umadN and issmN.  A pool of up to
 * MAXF open umad files (some O_NONBLOCK, some of the old 56-byte header)
 * and their agents; random operations on them: registrations (both
 * ioctls, random and mutated requests), unregistrations, ENABLE_PKEY,
 * unknown ioctls, bad argument pointers (a PROT_NONE page, a read-only
 * page, the end of a page, NULL, a kernel address: never a wild pointer
 * into our memory), write() of MADs (sends to this port's own LID, to
 * absent LIDs, responses to what came in, bad ids, short, long and odd
 * lengths, RMPP, GRHs, bad QPNs, P_Key indexes, SLs), read() with buffers
 * of every size, poll(), reads interrupted by a signal, and issmN.
 *
 *   umadfuzz [-n COUNT] [-s SEED] [-p PORT] [-d DEV] [-m MAXFAIL] [-v]
 *
 * -p: the port (default 1), -d: the device (default the first one), -m: stop
 * after this many failures (default 10), -v: print every operation.
 * Every result is checked against what Linux 6.1's ib_umad and ib_mad
 * (drivers/infiniband/core/user_mad.c, mad.c, smi.c, and mlx4's post
 * path) return for it: the errno exactly where the call decides it alone
 * (registrations and their conflicts, modelled per port as ib_mad keeps
 * them, with the methods other agents hold probed first; ids; header and
 * MAD lengths; GID and P_Key indexes; directed routes), else one of the
 * errnos 6.1 can return for that call.  What read() hands out must be
 * well formed: lengths as the header says, the id one the file
 * registered, a timed-out request the header and MAD header we wrote, a
 * response the answer to a request of the same file and agent, a buffer
 * that was too small leaving the packet first in the queue.  A call that
 * does not return within 60 s is a hang (alarm()).  Each failure is a
 * FAIL line with the seed and the operation's number; with -v every
 * operation is printed.
 *
 * What the fuzzer must not do to the subnet it runs in: QP0 carries only
 * Gets (directed route with hop count 0, or LID routed to this port); no
 * Set to the classes the HCA answers itself (PerfMgt, the Mellanox vendor
 * classes 0x09/0x0a, CC); no MAD to the SM's LID other than SA Gets; no
 * class-7 version-2 MADs (ib_cm's); issmN held for at most 20 operations.
 * Run it on a port the SM does not use (the test's default: port 2).
 *
 * Prints one line per operation kind with its outcomes, and
 * "umadfuzz: N operations, seed S: PASS" (exit 0), or FAIL lines (exit 1).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "umadfuzz.h"

static const char *const kind_name[NKIND] = {
	"open", "close", "register", "register2", "unregister", "enable_pkey", "ioctl",
	"write", "read", "poll", "read_intr", "issm_open", "issm_close", "issm_io"
};
/* upstream's errnos per call (what 6.1 can return; the model is stricter) */
static const uint64_t kind_set[NKIND] = {
	[K_OPEN] = E(EACCES) | E(EPERM) | E(ENXIO) | E(ENOMEM),
	[K_CLOSE] = 0,
	[K_REG] = E(EINVAL) | E(ENOMEM) | E(EFAULT) | E(EPIPE) | E(ENODEV),
	[K_REG2] = E(EINVAL) | E(ENOMEM) | E(EFAULT) | E(EPIPE) | E(ENODEV),
	[K_UNREG] = E(EINVAL) | E(EFAULT),
	[K_PKEY] = E(EINVAL),
	[K_IOCTL] = E(ENOTTY) | E(EFAULT),
	[K_WRITE] = E(EINVAL) | E(EFAULT) | E(EIO) | E(ENOMEM) | E(ENODATA) | E(EBADF),
	[K_READ] = E(EINVAL) | E(ENOSPC) | E(EFAULT) | E(EAGAIN) | E(EBADF),
	[K_POLL] = 0,
	[K_INTR] = E(EINTR),
	[K_ISSM] = E(EAGAIN) | E(EACCES) | E(EPERM) | E(EINTR),
	[K_ISSM_CLOSE] = 0,
	[K_ISSM_IO] = E(EINVAL) | E(ENOTTY) | E(EBADF),
};

/* --- the random source ---------------------------------------------------- */

static uint64_t rng;

uint32_t rnd(void)
{
	/* xorshift64*: reproducible from the seed */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 2685821657736338717ULL) >> 32);
}

uint32_t below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

/* true with probability 1/n */
int one_in(uint32_t n)
{
	return below(n) == 0;
}
struct ufile files[MAXF];
struct rec *recs;
static unsigned long gen_next = 1;
uint32_t tid_next = 1;
int verbose, root;
static int port = 1, umad_idx = -1;
static char dev[256] = "";
static char umad_path[64], issm_path[64];
uint16_t own_lid, sm_lid;
int gid_len, pkey_len;
uint8_t gid_valid[256];
uint8_t own_gid[16];
static int issm_fd = -1, issm_outside;	/* held by another process at start */
static unsigned long issm_until;
static uint64_t seed;
unsigned long n_unchecked;
static unsigned long opno, n_fail, max_fail = 10;
static int cur_kind;
static unsigned long stats[NKIND][134];	/* [kind][errno], 0 = success */
/* methods other agents of this port hold, per version 0..3 and class */
uint32_t outside[4][256][4];
uint8_t *pages;			/* RW | PROT_NONE | PROT_READ */
long pagesz;
timer_t intr_timer;
uint8_t *buf;
void fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL umadfuzz: operation %lu (%s), seed %llu: ", opno, kind_name[cur_kind],
	       (unsigned long long)seed);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	n_fail++;
}

static void vlog(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	printf("  %lu %s: ", opno, kind_name[cur_kind]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

const char *ename(int e)
{
	static char b[24];

	if (!e)
		return "ok";
	if (e > 0 && e < 134) {
		const char *n = strerrorname_np(e);

		if (n)
			return n;
	}
	snprintf(b, sizeof(b), "errno %d", e);
	return b;
}

static const char *setname(uint64_t set)
{
	static char b[256];
	size_t n = 0;
	int e;

	b[0] = 0;
	for (e = 0; e < 64; e++)
		if (set & (1ull << e))
			n += snprintf(b + n, sizeof(b) - n, "%s%s", n ? "|" : "", ename(e));
	return b;
}

/*
 * One call's outcome e (0 or an errno) against the errnos the model
 * allows (want) and upstream's set for the kind; counted either way.
 */
int check(int kind, int e, uint64_t want, const char *what)
{
	stats[kind][e >= 0 && e < 134 ? e : 133]++;
	vlog("%s -> %s (model %s)", what, ename(e), setname(want));
	if (e >= 64 || !(want & (1ull << e))) {
		fail("%s: %s, expected %s", what, ename(e), setname(want));
		return -1;
	}
	if (e && !(kind_set[kind] & (1ull << e))) {
		fail("%s: %s is not an errno 6.1 returns here", what, ename(e));
		return -1;
	}
	return 0;
}

static void watchdog(int sig)
{
	char b[200];
	int n;

	(void)sig;
	n = snprintf(b, sizeof(b),
		     "FAIL umadfuzz: operation %lu (%s), seed %llu: no return within %d s\n",
		     opno, kind_name[cur_kind], (unsigned long long)seed, WATCHDOG);
	if (write(1, b, n) < 0)
		_exit(3);
	_exit(1);
}

static void nop(int sig)
{
	(void)sig;
}

/* --- sysfs ---------------------------------------------------------------- */

static int read_line(const char *path, char *b, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(b, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	b[strcspn(b, "\n")] = 0;
	return 0;
}

static long port_num(const char *attr)
{
	char path[400], b[80];

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/%s", dev, port, attr);
	if (read_line(path, b, sizeof(b)))
		return -1;
	return strtol(b, NULL, 0);
}

static int count_dir(const char *what)
{
	char path[400];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/%s", dev, port, what);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

static int parse_gid(const char *s, uint8_t *gid)
{
	unsigned int w[8];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x:%x:%x", &w[0], &w[1], &w[2], &w[3], &w[4], &w[5],
		   &w[6], &w[7]) != 8)
		return -1;
	for (i = 0; i < 8; i++) {
		gid[2 * i] = w[i] >> 8;
		gid[2 * i + 1] = w[i];
	}
	return 0;
}

static int setup_sysfs(void)
{
	char path[400], b[80];
	uint8_t g[16];
	int n, i;

	if (!dev[0]) {
		DIR *dir = opendir("/sys/class/infiniband");
		struct dirent *d;

		while (dir && (d = readdir(dir)))
			if (d->d_name[0] != '.') {
				snprintf(dev, sizeof(dev), "%s", d->d_name);
				break;
			}
		if (dir)
			closedir(dir);
	}
	for (n = 0; n < 64; n++) {
		snprintf(path, sizeof(path), "/sys/class/infiniband_mad/umad%d/ibdev", n);
		if (read_line(path, b, sizeof(b)) || strcmp(b, dev))
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband_mad/umad%d/port", n);
		if (!read_line(path, b, sizeof(b)) && atoi(b) == port) {
			umad_idx = n;
			break;
		}
	}
	if (umad_idx < 0)
		return -1;
	snprintf(umad_path, sizeof(umad_path), "/dev/infiniband/umad%d", umad_idx);
	snprintf(issm_path, sizeof(issm_path), "/dev/infiniband/issm%d", umad_idx);
	own_lid = port_num("lid");
	sm_lid = port_num("sm_lid");
	gid_len = count_dir("gids");
	pkey_len = count_dir("pkeys");
	if (gid_len <= 0 || gid_len > 256 || pkey_len <= 0)
		return -1;
	for (i = 0; i < gid_len; i++) {
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gids/%d", dev,
			 port, i);
		gid_valid[i] = !read_line(path, b, sizeof(b)) && !parse_gid(b, g) &&
			       memcmp(g, (uint8_t[16]){ 0 }, 16);
		if (i == 0)
			memcpy(own_gid, g, 16);
	}
	return 0;
}

/* --- files ---------------------------------------------------------------- */

static int nfiles(void)
{
	int f, n = 0;

	for (f = 0; f < MAXF; f++)
		n += files[f].fd >= 0;
	return n;
}

struct ufile *any_file(void)
{
	int n = nfiles(), k, f;

	if (!n)
		return NULL;
	k = below(n);
	for (f = 0; f < MAXF; f++)
		if (files[f].fd >= 0 && !k--)
			return &files[f];
	return NULL;
}

int hdrsz(const struct ufile *f)
{
	return f->pkey ? HDR_NEW : HDR_OLD;
}

static void op_open(void)
{
	struct ufile *f = NULL;
	int i, flags, e, fd;
	uint32_t r = below(20);

	for (i = 0; i < MAXF; i++)
		if (files[i].fd < 0) {
			f = &files[i];
			break;
		}
	if (!f)
		return;
	flags = r < 18 ? O_RDWR : r == 18 ? O_RDONLY : O_WRONLY;
	if (one_in(2))
		flags |= O_NONBLOCK;
	fd = open(umad_path, flags | O_CLOEXEC);
	e = fd < 0 ? errno : 0;
	check(K_OPEN, e, OK | (root ? 0 : E(EACCES)), "open");
	if (fd < 0)
		return;
	memset(f, 0, sizeof(*f));
	f->fd = fd;
	f->nonblock = !!(flags & O_NONBLOCK);
	f->mode = flags & O_ACCMODE;
	f->gen = gen_next++;
	/* most programs ask for the 64-byte header at once */
	if (below(8) < 6) {
		cur_kind = K_PKEY;
		e = ioctl(fd, IB_USER_MAD_ENABLE_PKEY) ? errno : 0;
		check(K_PKEY, e, OK, "ENABLE_PKEY on a fresh file");
		if (!e)
			f->pkey = 1;
		cur_kind = K_OPEN;
	}
}

static void close_file(struct ufile *f)
{
	struct agent old[NAGENT];
	int i, r;

	memcpy(old, f->ag, sizeof(old));
	r = close(f->fd);
	f->fd = -1;
	for (i = 0; i < NAGENT; i++)
		if (old[i].on)
			model_unregistered(&old[i]);
	check(K_CLOSE, r ? errno : 0, OK, "close");
}

static void op_close(void)
{
	struct ufile *f = any_file();

	if (f)
		close_file(f);
}

/* --- issm ----------------------------------------------------------------- */

static void issm_close(void)
{
	long cap;
	int r = close(issm_fd);

	issm_fd = -1;
	cur_kind = K_ISSM_CLOSE;
	if (check(K_ISSM_CLOSE, r ? errno : 0, OK, "close issm"))
		return;
	cap = port_num("cap_mask");
	if (cap < 0 || (cap & 2))
		fail("close issm: cap_mask 0x%lx still has IsSM", cap);
}

static void op_issm(void)
{
	struct itimerspec its = { .it_value = { .tv_nsec = 30 * 1000 * 1000 } };
	int fd, e, block;
	uint64_t want;
	long cap;

	if (issm_fd >= 0 && one_in(2)) {
		/* a second open: EAGAIN, or interrupted while it waits */
		block = one_in(3);
		if (block)
			timer_settime(intr_timer, 0, &its, NULL);
		fd = open(issm_path, O_RDONLY | O_CLOEXEC | (block ? 0 : O_NONBLOCK));
		e = fd < 0 ? errno : 0;
		memset(&its, 0, sizeof(its));
		timer_settime(intr_timer, 0, &its, NULL);
		if (fd >= 0)
			close(fd);
		check(K_ISSM, e, block ? E(EINTR) : E(EAGAIN),
		      block ? "issm open while we hold it, a signal after 30 ms" :
			      "issm open O_NONBLOCK while we hold it");
		return;
	}
	if (issm_fd >= 0) {
		issm_close();
		return;
	}
	/* blocking only when nobody else holds it */
	block = !issm_outside && one_in(4);
	fd = open(issm_path, (below(2) ? O_RDONLY : O_RDWR) | O_CLOEXEC | (block ? 0 : O_NONBLOCK));
	e = fd < 0 ? errno : 0;
	want = issm_outside ? E(EAGAIN) : OK;
	if (!root)
		want |= E(EACCES);
	check(K_ISSM, e, want, block ? "issm open" : "issm open O_NONBLOCK");
	if (fd < 0)
		return;
	issm_fd = fd;
	issm_until = opno + below(20);
	cap = port_num("cap_mask");
	if (cap < 0 || !(cap & 2))
		fail("issm open: cap_mask 0x%lx without IsSM", cap);
}

/* read, write, poll and ioctl on an issm file: it has none of them */
static void op_issm_io(void)
{
	struct pollfd pfd;
	int e, r;

	if (issm_fd < 0)
		return;
	switch (below(3)) {
	case 0:
		e = read(issm_fd, buf, 64) < 0 ? errno : 0;
		check(K_ISSM_IO, e, E(EINVAL) | E(EBADF), "read on issm");
		break;
	case 1:
		e = ioctl(issm_fd, IB_USER_MAD_ENABLE_PKEY) ? errno : 0;
		check(K_ISSM_IO, e, E(ENOTTY), "ioctl on issm");
		break;
	default:
		pfd = (struct pollfd){ .fd = issm_fd, .events = POLLIN | POLLOUT };
		r = poll(&pfd, 1, 0);
		check(K_ISSM_IO, r < 0 ? errno : 0, OK, "poll on issm");
		break;
	}
}

/* --- setup and the end ---------------------------------------------------- */

/* the methods other agents of the port hold, for the classes below 0x30 and versions 0..3 */
static int probe(void)
{
	struct ib_user_mad_reg_req req;
	int fd = open(umad_path, O_RDWR | O_CLOEXEC), ver, cls, m, n, any = 0;
	uint32_t id;

	if (fd < 0)
		return errno == EACCES ? 0 : -1;
	ioctl(fd, IB_USER_MAD_ENABLE_PKEY);
	for (ver = 0; ver < 4; ver++)
		for (cls = 1; cls < 256; cls++) {
			if (cls >= 0x30 && cls != 0x81)
				continue;
			memset(&req, 0, sizeof(req));
			req.qpn = !is_smp_class(cls);
			req.mgmt_class = cls;
			req.mgmt_class_version = ver;
			memset(req.method_mask, 0xff, sizeof(req.method_mask));
			if (!ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &req)) {
				id = req.id;
				ioctl(fd, IB_USER_MAD_UNREGISTER_AGENT, &id);
				continue;
			}
			if (errno != EINVAL) {
				printf("FAIL umadfuzz: probe: class 0x%02x version %u: %s\n", cls,
				       ver, strerror(errno));
				n_fail++;
				continue;
			}
			for (m = n = 0; m < 128; m++) {
				memset(req.method_mask, 0, sizeof(req.method_mask));
				((uint32_t *)req.method_mask)[m / 32] = 1u << (m % 32);
				if (!ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &req)) {
					id = req.id;
					ioctl(fd, IB_USER_MAD_UNREGISTER_AGENT, &id);
					continue;
				}
				outside[ver][cls][m / 32] |= 1u << (m % 32);
				n++;
			}
			if (n == 128) {
				printf("FAIL umadfuzz: probe: class 0x%02x version %u: every method refused\n",
				       cls, ver);
				n_fail++;
			}
			printf("umadfuzz: held by other agents of port %d: class 0x%02x version %u methods",
			       port, cls, ver);
			for (m = 0; m < 128; m++)
				if (mask_test(outside[ver][cls], m))
					printf(" 0x%02x", m);
			printf("\n");
			any = 1;
		}
	if (!any)
		printf("umadfuzz: no method of classes below 0x30 held by other agents of port %d\n",
		       port);
	close(fd);
	return 0;
}

/* a fresh file answers a DR NodeInfo with hop count 0 within 5 s */
static int works(void)
{
	struct ib_user_mad_reg_req req;
	struct ib_user_mad_hdr h;
	uint8_t b[HDR_NEW + MAD], *m = b + HDR_NEW;
	struct pollfd pfd;
	int fd = open(umad_path, O_RDWR | O_CLOEXEC), i;
	ssize_t n;

	if (fd < 0)
		return errno == EACCES ? 0 : -1;
	memset(&req, 0, sizeof(req));
	req.qpn = 0;
	req.mgmt_class = 0x81;
	req.mgmt_class_version = 1;
	if (ioctl(fd, IB_USER_MAD_ENABLE_PKEY) || ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &req)) {
		close(fd);
		return -1;
	}
	memset(b, 0, sizeof(b));
	memset(&h, 0, sizeof(h));
	h.id = req.id;
	h.lid = htobe16(0xffff);
	h.timeout_ms = 1000;
	h.retries = 3;
	memcpy(b, &h, sizeof(h));
	m[0] = 1;
	m[1] = 0x81;
	m[2] = 1;
	m[3] = 1;
	put32(m + 12, 0xfeedbeef);
	put16(m + 16, 0x0011);
	put16(m + 32, 0xffff);
	put16(m + 34, 0xffff);
	if (write(fd, b, sizeof(b)) != (ssize_t)sizeof(b)) {
		close(fd);
		return -1;
	}
	for (i = 0; i < 10; i++) {
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (poll(&pfd, 1, 500) != 1)
			continue;
		n = read(fd, b, sizeof(b));
		if (n == (ssize_t)sizeof(b) && get32(m + 12) == 0xfeedbeef && m[3] == 0x81 &&
		    !(get16(m + 4) & 0x7fff)) {
			close(fd);
			return 0;
		}
	}
	close(fd);
	return -1;
}

/* every kind of operation, and its share of them */
static void (*const ops[NKIND])(void) = {
	[K_OPEN] = op_open, [K_CLOSE] = op_close, [K_REG] = op_register,
	[K_REG2] = op_register2, [K_UNREG] = op_unregister, [K_PKEY] = op_enable_pkey,
	[K_IOCTL] = op_ioctl, [K_WRITE] = op_write, [K_READ] = op_read, [K_POLL] = op_poll,
	[K_INTR] = op_read_intr, [K_ISSM] = op_issm,
	[K_ISSM_IO] = op_issm_io,
};
static const struct {
	int kind;
	uint32_t upto;
} mix[] = {
	{ K_OPEN, 25 }, { K_CLOSE, 45 }, { K_REG, 165 }, { K_REG2, 225 }, { K_UNREG, 305 },
	{ K_PKEY, 325 }, { K_IOCTL, 365 }, { K_WRITE, 715 }, { K_READ, 905 }, { K_POLL, 965 },
	{ K_INTR, 975 }, { K_ISSM, 990 }, { K_ISSM_IO, 1000 },
};

int main(int argc, char **argv)
{
	unsigned long count = 100000, t0;
	struct sigaction sa = { 0 };
	struct sigevent sev = { 0 };
	struct timespec ts;
	int opt, f, k, e, fd;

	seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((opt = getopt(argc, argv, "n:s:p:d:m:v")) != -1) {
		if (opt == 'n')
			count = strtoul(optarg, NULL, 0);
		else if (opt == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (opt == 'p')
			port = atoi(optarg);
		else if (opt == 'd')
			snprintf(dev, sizeof(dev), "%s", optarg);
		else if (opt == 'm')
			max_fail = strtoul(optarg, NULL, 0);
		else if (opt == 'v')
			verbose = 1;
		else {
			fprintf(stderr,
				"usage: umadfuzz [-n COUNT] [-s SEED] [-p PORT] [-d DEV] [-m MAXFAIL] [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng = seed ? seed : 1;
	root = geteuid() == 0;
	if (setup_sysfs()) {
		printf("FAIL umadfuzz: no umad device for %s port %d in sysfs\n",
		       dev[0] ? dev : "any device", port);
		return 1;
	}
	printf("umadfuzz: seed %llu, %lu operations, %s port %d (umad%d): LID 0x%x, SM LID 0x%x, %d GIDs, %d P_Keys\n",
	       (unsigned long long)seed, count, dev, port, umad_idx, own_lid, sm_lid, gid_len,
	       pkey_len);

	pagesz = sysconf(_SC_PAGESIZE);
	pages = mmap(NULL, 3 * pagesz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	recs = calloc(NREC, sizeof(*recs));
	buf = malloc(BUF + HDR_NEW);
	if (pages == MAP_FAILED || !recs || !buf) {
		printf("FAIL umadfuzz: no memory\n");
		return 1;
	}
	mprotect(pages + pagesz, pagesz, PROT_NONE);
	mprotect(pages + 2 * pagesz, pagesz, PROT_READ);

	sa.sa_handler = watchdog;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = nop;		/* no SA_RESTART: the call is interrupted */
	sigaction(SIGUSR1, &sa, NULL);
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGUSR1;
	if (timer_create(CLOCK_MONOTONIC, &sev, &intr_timer)) {
		printf("FAIL umadfuzz: timer_create: %s\n", strerror(errno));
		return 1;
	}
	for (f = 0; f < MAXF; f++)
		files[f].fd = -1;

	alarm(WATCHDOG * 5);
	if (probe()) {
		printf("FAIL umadfuzz: cannot open %s: %s\n", umad_path, strerror(errno));
		return 1;
	}
	fd = open(issm_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	issm_outside = fd < 0 && errno == EAGAIN;
	if (issm_outside)
		printf("umadfuzz: issm%d is held by another process (an SM)\n", umad_idx);

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec;
	for (opno = 1; opno <= count && n_fail < max_fail; opno++) {
		uint32_t r = below(1000);

		alarm(WATCHDOG);
		if (issm_fd >= 0 && opno >= issm_until) {
			issm_close();
			continue;
		}
		/* the kind by its share (per mille); with no file, mostly opens */
		for (k = 0; r >= mix[k].upto; k++)
			;
		k = mix[k].kind;
		if (!nfiles() && r < 900)
			k = K_OPEN;
		cur_kind = k;
		ops[k]();
	}
	opno--;
	alarm(WATCHDOG * 2);
	cur_kind = K_CLOSE;
	if (issm_fd >= 0)
		issm_close();
	for (f = 0; f < MAXF; f++)
		if (files[f].fd >= 0)
			close_file(&files[f]);
	clock_gettime(CLOCK_MONOTONIC, &ts);

	for (k = 0; k < NKIND; k++) {
		unsigned long tot = 0;

		for (e = 0; e < 134; e++)
			tot += stats[k][e];
		if (!tot)
			continue;
		printf("umadfuzz: %s: %lu", kind_name[k], tot);
		for (e = 0; e < 134; e++)
			if (stats[k][e])
				printf(", %lu %s", stats[k][e], ename(e));
		printf("\n");
	}
	printf("umadfuzz: %lu timed-out sends not checked (their record overwritten), %lu s\n",
	       n_unchecked, (unsigned long)ts.tv_sec - t0);
	if (works()) {
		printf("FAIL umadfuzz: afterwards a new file's DR NodeInfo Get is not answered\n");
		n_fail++;
	}
	printf("umadfuzz: %lu operations, seed %llu: %s\n", opno, (unsigned long long)seed,
	       n_fail ? "FAIL" : "PASS");
	return n_fail ? 1 : 0;
}

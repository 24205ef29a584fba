// SPDX-License-Identifier: GPL-2.0
/*
 * umadtest: checks /dev/infiniband/umadN and issmN from user space, on raw
 * read/write/ioctl with our ABI header (include/uapi/rdma/ib_user_mad.h),
 * against any stack (the inbox one proves the checks themselves).
 *
 *   umadtest [-s ours|inbox] [-p PORT] [-n NAME] TEST...
 *
 * TESTs: sysfs basic bad agents dup timeout flood many grh rmpp rmpp-loop
 * issm removal.
 * -p: the port the MADs go out of (default 1); -s ours enables the checks
 * of behaviour only our stack has (documented where they are).  Prints one
 * "PASS NAME: what" or "FAIL NAME: what: why" line per check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <endian.h>
#include <rdma/ib_user_mad.h>
#ifndef IBSTACK_UAPI_RDMA_IB_USER_MAD_H
#error "umadtest: build with -I include/uapi: our <rdma/ib_user_mad.h>, not the system's"
#endif

#define HDR		((int)sizeof(struct ib_user_mad_hdr))
#define MAD_SIZE	256
#define QKEY_GSI	0x80010000u

static const char *name = "umad";
static const char *stack = "ours";
static int port = 1;
static int failures;

static void result(int ok, const char *what, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("PASS %s: %s\n", name, what);
	} else {
		failures++;
		printf("FAIL %s: %s: ", name, what);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	fflush(stdout);
}

/* --- sysfs ------------------------------------------------------------- */

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static long read_num(const char *fmt, ...)
{
	char path[256], buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (read_line(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 0);
}

/* The N of umadN for mlx4_0's port p, or -1. */
static int umad_index(int p)
{
	char path[128], buf[64];
	int n;

	for (n = 0; n < 64; n++) {
		snprintf(path, sizeof(path), "/sys/class/infiniband_mad/umad%d/ibdev", n);
		if (read_line(path, buf, sizeof(buf)) || strcmp(buf, "mlx4_0"))
			continue;
		if (read_num("/sys/class/infiniband_mad/umad%d/port", n) == p)
			return n;
	}
	return -1;
}

static int open_umad(int p)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/infiniband/umad%d", umad_index(p));
	fd = open(path, O_RDWR | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (ioctl(fd, IB_USER_MAD_ENABLE_PKEY)) {
		close(fd);
		return -1;
	}
	return fd;
}

static long cap_mask(int p)
{
	return read_num("/sys/class/infiniband/mlx4_0/ports/%d/cap_mask", p);
}

/* --- MADs -------------------------------------------------------------- */

struct umad {
	struct ib_user_mad_hdr	hdr;
	uint8_t			mad[MAD_SIZE];
} __attribute__((packed));

static int reg_agent(int fd, int qpn, int mclass, int version, int rmpp,
		     const uint32_t *methods)
{
	struct ib_user_mad_reg_req req;

	memset(&req, 0, sizeof(req));
	req.qpn = qpn;
	req.mgmt_class = mclass;
	req.mgmt_class_version = version;
	req.rmpp_version = rmpp;
	if (methods)
		memcpy(req.method_mask, methods, sizeof(req.method_mask));
	if (ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &req))
		return -errno;
	return req.id;
}

static void put16(uint8_t *p, uint16_t v) { v = htobe16(v); memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { v = htobe32(v); memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { v = htobe64(v); memcpy(p, &v, 8); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return be16toh(v); }

/* A request's common header. */
static void mad_hdr(uint8_t *m, int mclass, int version, int method,
		    uint32_t tid, int attr, uint32_t mod)
{
	memset(m, 0, MAD_SIZE);
	m[0] = 1;
	m[1] = mclass;
	m[2] = version;
	m[3] = method;
	put64(m + 8, tid);
	put16(m + 16, attr);
	put32(m + 20, mod);
}

static void addr(struct umad *u, int id, int lid, uint32_t qpn, int timeout,
		 int retries)
{
	memset(&u->hdr, 0, sizeof(u->hdr));
	u->hdr.id = id;
	u->hdr.lid = htobe16(lid);
	u->hdr.qpn = htobe32(qpn);
	u->hdr.qkey = htobe32(qpn ? QKEY_GSI : 0);
	u->hdr.timeout_ms = timeout;
	u->hdr.retries = retries;
}

/* A DR SMP with an empty path (answered by the local SMA). */
static void dr_smp(struct umad *u, int id, uint32_t tid, int attr)
{
	addr(u, id, 0xffff, 0, 1000, 3);
	mad_hdr(u->mad, 0x81, 1, 1, tid, attr, 0);
	put16(u->mad + 32, 0xffff);	/* DrSLID */
	put16(u->mad + 34, 0xffff);	/* DrDLID */
}

static uint32_t next_tid = 0x1000;

/* write(), and -errno */
static int send_mad(int fd, const void *buf, size_t len)
{
	ssize_t r = write(fd, buf, len);

	if (r < 0)
		return -errno;
	return r == (ssize_t)len ? 0 : -EIO;
}

/* Reads one MAD (waiting up to ms): its length, or -errno. */
static int recv_mad(int fd, void *buf, size_t len, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t r;

	if (poll(&pfd, 1, ms) <= 0)
		return -ETIME;
	r = read(fd, buf, len);
	return r < 0 ? -errno : (int)r;
}

/*
 * Waits for the answer to tid (skipping others): 0 with it in *u, or a
 * message in why.
 */
static int wait_answer(int fd, struct umad *u, uint32_t tid, int ms, char *why,
		       size_t wlen)
{
	struct timespec t0, t;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		int left = ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
				      (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0) {
			snprintf(why, wlen, "no answer in %d ms", ms);
			return -1;
		}
		r = recv_mad(fd, u, sizeof(*u), left);
		if (r == -ETIME)
			continue;
		if (r < 0) {
			snprintf(why, wlen, "read: %s", strerror(-r));
			return -1;
		}
		if ((uint32_t)be64toh(*(uint64_t *)(u->mad + 8)) != tid)
			continue;
		if (u->hdr.status) {
			snprintf(why, wlen, "status %u (%s)", u->hdr.status,
				 strerror(u->hdr.status));
			return -1;
		}
		return 0;
	}
}

/* The agents of a working file. */
struct good {
	int fd, dr, lid;
};

static int good_open(struct good *g)
{
	g->fd = open_umad(port);
	if (g->fd < 0)
		return -1;
	g->dr = reg_agent(g->fd, 0, 0x81, 1, 0, NULL);
	g->lid = reg_agent(g->fd, 0, 0x01, 1, 0, NULL);
	return g->dr < 0 || g->lid < 0 ? -1 : 0;
}

/*
 * The file still works: a DR NodeInfo with hop count 0 and a PortInfo Get
 * to the SM's port (or, without an SM, to our own LID) are answered.
 */
static void good_check(struct good *g, const char *after)
{
	char what[160], why[160];
	struct umad u;
	uint32_t tid;
	long lid;
	int r;

	snprintf(what, sizeof(what), "%s: DR NodeInfo hop 0 answered", after);
	tid = next_tid++;
	dr_smp(&u, g->dr, tid, 0x0011);
	r = send_mad(g->fd, &u, HDR + MAD_SIZE);
	if (r) {
		result(0, what, "write: %s", strerror(-r));
	} else if (wait_answer(g->fd, &u, tid, 5000, why, sizeof(why))) {
		result(0, what, "%s", why);
	} else {
		result(u.mad[3] == 0x81 && u.mad[1] == 0x81 &&
		       (get16(u.mad + 4) & 0x7fff) == 0 && u.mad[64 + 1] == 1,
		       what, "method 0x%x class 0x%x status 0x%x node type %d",
		       u.mad[3], u.mad[1], get16(u.mad + 4), u.mad[64 + 1]);
	}

	lid = read_num("/sys/class/infiniband/mlx4_0/ports/%d/sm_lid", port);
	if (lid <= 0)
		lid = read_num("/sys/class/infiniband/mlx4_0/ports/%d/lid", port);
	snprintf(what, sizeof(what), "%s: PortInfo Get to LID %ld answered", after, lid);
	tid = next_tid++;
	addr(&u, g->lid, lid, 0, 1000, 3);
	mad_hdr(u.mad, 0x01, 1, 1, tid, 0x0015, 0);
	r = send_mad(g->fd, &u, HDR + MAD_SIZE);
	if (r) {
		result(0, what, "write: %s", strerror(-r));
	} else if (wait_answer(g->fd, &u, tid, 5000, why, sizeof(why))) {
		result(0, what, "%s", why);
	} else {
		/* PortInfo: LID at offset 16 of the data (64) */
		result(u.mad[3] == 0x81 && get16(u.mad + 4) == 0 &&
		       get16(u.mad + 64 + 16) == lid, what,
		       "method 0x%x status 0x%x PortInfo.LID %u",
		       u.mad[3], get16(u.mad + 4), get16(u.mad + 64 + 16));
	}
}

/* --- tests --------------------------------------------------------------- */

static void t_sysfs(void)
{
	char path[128], buf[64];
	struct stat st;
	int p, n;

	result(read_num("/sys/class/infiniband_mad/abi_version") == 5,
	       "/sys/class/infiniband_mad/abi_version is 5", "read %ld",
	       read_num("/sys/class/infiniband_mad/abi_version"));
	for (p = 1; p <= 2; p++) {
		char what[256];

		n = umad_index(p);
		snprintf(what, sizeof(what), "umad%d is mlx4_0 port %d", p - 1, p);
		result(n == p - 1, what, "found umad%d", n);
		if (n < 0)
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband_mad/issm%d/ibdev", n);
		snprintf(what, sizeof(what), "issm%d has ibdev mlx4_0 and port %d", n, p);
		result(!read_line(path, buf, sizeof(buf)) && !strcmp(buf, "mlx4_0") &&
		       read_num("/sys/class/infiniband_mad/issm%d/port", n) == p,
		       what, "ibdev '%s' port %ld", buf,
		       read_num("/sys/class/infiniband_mad/issm%d/port", n));
		for (int k = 0; k < 2; k++) {
			const char *kind = k ? "issm" : "umad";
			long devnum = -1;
			char want[32];

			snprintf(path, sizeof(path), "/dev/infiniband/%s%d", kind, n);
			snprintf(what, sizeof(what), "%s is a character device, mode 0600, root", path);
			result(!stat(path, &st) && S_ISCHR(st.st_mode) &&
			       (st.st_mode & 07777) == 0600 && st.st_uid == 0,
			       what, "mode %o uid %d", (unsigned int)st.st_mode, st.st_uid);
			snprintf(path, sizeof(path), "/sys/class/infiniband_mad/%s%d/dev", kind, n);
			if (!read_line(path, buf, sizeof(buf)))
				devnum = 1;
			snprintf(want, sizeof(want), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
			snprintf(what, sizeof(what), "%s%d's dev in sysfs is the node's number (%s)",
				 kind, n, want);
			result(devnum == 1 && !strcmp(buf, want), what, "sysfs '%s'", buf);
		}
	}
}

static void t_basic(void)
{
	struct good g;
	int fd, r;
	struct umad u;

	result(!good_open(&g), "open umad, ENABLE_PKEY, register SMI agents",
	       "%s", strerror(errno));
	good_check(&g, "fresh file");

	/* a second file of the same port works too, at the same time */
	struct good g2;

	result(!good_open(&g2), "a second file registers its own agents", "%s",
	       strerror(errno));
	good_check(&g2, "second file");
	close(g2.fd);

	r = ioctl(g.fd, IB_USER_MAD_ENABLE_PKEY);
	result(r < 0 && errno == EINVAL, "ENABLE_PKEY after a registration: EINVAL",
	       "returned %d (%s)", r, strerror(errno));

	/* O_NONBLOCK read with nothing queued */
	r = read(g.fd, &u, sizeof(u));
	result(r < 0 && errno == EAGAIN, "O_NONBLOCK read of an empty queue: EAGAIN",
	       "returned %d (%s)", r, strerror(errno));

	struct pollfd pfd = { .fd = g.fd, .events = POLLIN | POLLOUT };

	r = poll(&pfd, 1, 0);
	result(r == 1 && pfd.revents == POLLOUT, "poll: POLLOUT, no POLLIN when empty",
	       "returned %d revents 0x%x", r, pfd.revents);
	close(g.fd);

	/* the old 56-byte header without ENABLE_PKEY */
	{
		char path[64];

		snprintf(path, sizeof(path), "/dev/infiniband/umad%d", umad_index(port));
		fd = open(path, O_RDWR);
	}
	int id = reg_agent(fd, 0, 0x81, 1, 0, NULL);
	char buf[56 + MAD_SIZE];
	uint32_t tid = next_tid++;

	memset(buf, 0, sizeof(buf));
	dr_smp(&u, id, tid, 0x0011);
	memcpy(buf, &u.hdr, 56);
	memcpy(buf + 56, u.mad, MAD_SIZE);
	r = send_mad(fd, buf, sizeof(buf));
	int got = -1;

	for (int i = 0; !r && i < 10; i++) {
		got = recv_mad(fd, buf, sizeof(buf), 5000);
		if (got == 56 + MAD_SIZE &&
		    (uint32_t)be64toh(*(uint64_t *)(buf + 56 + 8)) == tid)
			break;
	}
	uint32_t length;

	memcpy(&length, buf + offsetof(struct ib_user_mad_hdr_old, length), 4);
	result(id >= 0 && !r && got == 56 + MAD_SIZE && length == 56 + MAD_SIZE,
	       "old ABI (no ENABLE_PKEY): 56-byte header on write and read",
	       "id %d write %d read %d length %u", id, r, got, length);
	close(fd);
}

static void t_bad(void)
{
	struct good g, g2;
	uint32_t methods[4];
	struct umad u;
	char big[HDR + 512];
	int r, id;

	if (good_open(&g) || good_open(&g2)) {
		result(0, "open the files for the bad-input checks", "%s", strerror(errno));
		return;
	}

	/* a write shorter than the header plus the common MAD header */
	dr_smp(&u, g.dr, next_tid++, 0x0011);
	r = send_mad(g.fd, &u, HDR + 23);
	result(r == -EINVAL, "write of header + 23 bytes: EINVAL", "%s", strerror(-r));
	r = send_mad(g.fd, &u, HDR - 1);
	result(r == -EINVAL, "write shorter than the header: EINVAL", "%s", strerror(-r));
	good_check(&g, "after short writes");

	/* a non-RMPP MAD longer than 256 bytes */
	memset(big, 0, sizeof(big));
	dr_smp(&u, g.dr, next_tid++, 0x0011);
	memcpy(big, &u, sizeof(u));
	r = send_mad(g.fd, big, HDR + MAD_SIZE + 1);
	result(r == -EINVAL, "SMP of 257 bytes: EINVAL", "%s", strerror(-r));
	r = send_mad(g.fd, big, sizeof(big));
	result(r == -EINVAL, "SMP of 512 bytes: EINVAL", "%s", strerror(-r));
	good_check(&g, "after oversized writes");

	/* agent ids */
	dr_smp(&u, 31, next_tid++, 0x0011);
	r = send_mad(g.fd, &u, HDR + MAD_SIZE);
	result(r == -EIO, "write for unregistered agent id 31: EIO (as upstream)", "%s",
	       strerror(-r));
	dr_smp(&u, 32, next_tid++, 0x0011);
	r = send_mad(g.fd, &u, HDR + MAD_SIZE);
	result(r == -EINVAL, "write for agent id 32: EINVAL", "%s", strerror(-r));
	dr_smp(&u, 0xffffffff, next_tid++, 0x0011);
	r = send_mad(g.fd, &u, HDR + MAD_SIZE);
	result(r == -EINVAL, "write for agent id 0xffffffff: EINVAL", "%s", strerror(-r));
	uint32_t bad_id = 17;

	r = ioctl(g.fd, IB_USER_MAD_UNREGISTER_AGENT, &bad_id);
	result(r < 0 && errno == EINVAL, "UNREGISTER of an unregistered id: EINVAL",
	       "returned %d (%s)", r, strerror(errno));
	bad_id = 1000;
	r = ioctl(g.fd, IB_USER_MAD_UNREGISTER_AGENT, &bad_id);
	result(r < 0 && errno == EINVAL, "UNREGISTER of id 1000: EINVAL",
	       "returned %d (%s)", r, strerror(errno));
	good_check(&g, "after bad agent ids");

	/* bad registrations */
	r = reg_agent(g.fd, 1, 0x81, 1, 0, NULL);
	result(r == -EINVAL, "register class 0x81 on QP1: EINVAL", "%s", r < 0 ? strerror(-r) : "accepted");
	r = reg_agent(g.fd, 0, 0x04, 1, 0, NULL);
	result(r == -EINVAL, "register class 0x04 on QP0: EINVAL", "%s", r < 0 ? strerror(-r) : "accepted");
	/* upstream takes class versions up to 0x82 */
	r = reg_agent(g.fd, 1, 0x04, 0x83, 0, NULL);
	result(r == -EINVAL, "register class version 0x83: EINVAL", "%s", r < 0 ? strerror(-r) : "accepted");
	r = reg_agent(g.fd, 1, 0x04, 0xff, 0, NULL);
	result(r == -EINVAL, "register class version 0xff: EINVAL", "%s", r < 0 ? strerror(-r) : "accepted");
	r = reg_agent(g.fd, 1, 0x60, 1, 0, NULL);
	result(r == -EINVAL, "register class 0x60 (no such class): EINVAL", "%s", r < 0 ? strerror(-r) : "accepted");
	r = reg_agent(g.fd, 2, 0x04, 1, 0, NULL);
	result(r == -EINVAL, "register on QPN 2: EINVAL", "%s", r < 0 ? strerror(-r) : "accepted");
	r = reg_agent(g.fd, 1, 0x04, 1, 1, NULL);
	result(r == -EINVAL, "register RMPP for a non-RMPP class (0x04): EINVAL", "%s",
	       r < 0 ? strerror(-r) : "accepted");
	r = reg_agent(g.fd, 1, 0x03, 2, 7, NULL);
	result(r == -EINVAL, "register RMPP version 7: EINVAL", "%s", r < 0 ? strerror(-r) : "accepted");
	r = reg_agent(g.fd, 1, 0x30, 1, 0, NULL);
	result(r == -EINVAL, "register vendor class 0x30 without an OUI: EINVAL", "%s",
	       r < 0 ? strerror(-r) : "accepted");
	memset(methods, 0, sizeof(methods));
	methods[0] = 1u << 1;	/* Get */
	id = reg_agent(g.fd, 1, 0x0a, 1, 0, methods);
	r = reg_agent(g2.fd, 1, 0x0a, 1, 0, methods);
	result(id >= 0 && r == -EINVAL, "a method another file owns: EINVAL (as upstream)",
	       "first %d second %d", id, r);
	if (!strcmp(stack, "ours")) {
		/* our ib_umad sends SMPs only on QP0 and GMPs only on QP1 */
		addr(&u, g.lid, 1, 1, 0, 0);
		mad_hdr(u.mad, 0x04, 1, 1, next_tid++, 0x0012, 0);
		r = send_mad(g.fd, &u, HDR + MAD_SIZE);
		result(r == -EINVAL, "a PerfMgt GMP through an SMI agent: EINVAL (ours)",
		       "%s", strerror(-r));
	}
	good_check(&g, "after bad registrations");
	good_check(&g2, "second file after bad registrations");

	/*
	 * A P_Key index past the port's table: the send fails (upstream's
	 * mlx4 refuses to build the packet), it does not go out under some
	 * other P_Key.
	 */
	id = reg_agent(g.fd, 1, 0x04, 1, 0, NULL);
	addr(&u, id, read_num("/sys/class/infiniband/mlx4_0/ports/%d/lid", port), 1, 0, 0);
	u.hdr.pkey_index = 0xffff;
	mad_hdr(u.mad, 0x04, 1, 1, next_tid++, 0x0012, 0);
	r = send_mad(g.fd, &u, HDR + MAD_SIZE);
	result(id >= 0 && r == -EINVAL, "a GMP with P_Key index 0xffff: EINVAL", "id %d, %s",
	       id, r ? strerror(-r) : "written");
	good_check(&g, "after a bad P_Key index");

	/* REGISTER_AGENT2 with an unknown flag */
	struct ib_user_mad_reg_req2 req2;

	memset(&req2, 0, sizeof(req2));
	req2.qpn = 1;
	req2.mgmt_class = 0x04;
	req2.mgmt_class_version = 1;
	req2.flags = 0x80 | IB_USER_MAD_USER_RMPP;
	r = ioctl(g.fd, IB_USER_MAD_REGISTER_AGENT2, &req2);
	result(r < 0 && errno == EINVAL && req2.flags == IB_USER_MAD_REG_FLAGS_CAP,
	       "REGISTER_AGENT2 with flag 0x80: EINVAL, supported flags written back",
	       "returned %d (%s), flags 0x%x", r, strerror(errno), req2.flags);
	memset(&req2, 0, sizeof(req2));
	req2.qpn = 1;
	req2.mgmt_class = 0x03;
	req2.mgmt_class_version = 2;
	req2.rmpp_version = 1;
	req2.flags = IB_USER_MAD_USER_RMPP;
	r = ioctl(g.fd, IB_USER_MAD_REGISTER_AGENT2, &req2);
	result(r == 0 && req2.id < 32, "REGISTER_AGENT2 of a user-RMPP SA agent",
	       "returned %d (%s)", r, strerror(errno));
	if (r == 0)
		ioctl(g.fd, IB_USER_MAD_UNREGISTER_AGENT, &req2.id);

	/* unknown ioctls */
	r = ioctl(g.fd, _IO(IB_USER_MAD_IOCTL_MAGIC, 9));
	result(r < 0 && errno == ENOTTY, "ioctl 0x1b/9: ENOTTY", "returned %d (%s)", r,
	       strerror(errno));
	r = ioctl(g.fd, _IOWR('x', 1, int), &r);
	result(r < 0 && errno == ENOTTY, "ioctl 'x'/1: ENOTTY", "returned %d (%s)", r,
	       strerror(errno));
	good_check(&g, "after unknown ioctls");
	close(g.fd);
	close(g2.fd);
}

static void t_agents(void)
{
	int fd = open_umad(port), ids[33], n, r, i;
	struct good g;
	char what[96];

	for (n = 0; n < 33; n++) {
		ids[n] = reg_agent(fd, 1, 0, 0, 0, NULL);
		if (ids[n] < 0)
			break;
	}
	snprintf(what, sizeof(what), "32 agents on one file, ids 0..31");
	for (i = 0, r = 1; i < 32 && i < n; i++)
		r &= ids[i] == i;
	result(n == 32 && r, what, "registered %d", n);
	result(n == 32 && ids[32] == -ENOMEM, "the 33rd registration: ENOMEM (as upstream)",
	       "%d", n < 33 ? ids[n] : 0);
	uint32_t id = 5;

	r = ioctl(fd, IB_USER_MAD_UNREGISTER_AGENT, &id);
	r = r ? -errno : reg_agent(fd, 1, 0, 0, 0, NULL);
	result(r == 5, "after unregistering id 5 the next registration gets id 5", "%d", r);
	good_open(&g);
	good_check(&g, "another file while one has 32 agents");
	close(g.fd);
	close(fd);
}

/* A Get that nobody answers comes back with ETIMEDOUT. */
static void t_timeout(void)
{
	struct good g;
	struct umad u;
	uint32_t tid = next_tid++;
	int pma, r;

	good_open(&g);
	pma = reg_agent(g.fd, 1, 0x04, 1, 0, NULL);
	addr(&u, pma, 0x3ff, 1, 200, 1);	/* no such LID */
	mad_hdr(u.mad, 0x04, 1, 1, tid, 0x0012, 0);
	r = send_mad(g.fd, &u, HDR + MAD_SIZE);
	result(!r, "PerfMgt Get to an absent LID written", "%s", strerror(-r));
	memset(&u, 0, sizeof(u));
	r = recv_mad(g.fd, &u, sizeof(u), 5000);
	result(r == HDR + 24 && u.hdr.status == ETIMEDOUT && u.hdr.id == (uint32_t)pma &&
	       (uint32_t)be64toh(*(uint64_t *)(u.mad + 8)) == tid && u.mad[1] == 0x04,
	       "it comes back by read: header + MAD header, status ETIMEDOUT, same id and TID",
	       "read %d status %u id %u tid 0x%x class 0x%x", r, u.hdr.status, u.hdr.id,
	       (uint32_t)be64toh(*(uint64_t *)(u.mad + 8)), u.mad[1]);
	good_check(&g, "after a timeout");
	close(g.fd);
}

/* Two outstanding requests with one TID: the second is refused. */
static void t_dup(void)
{
	struct good g;
	struct umad u;
	uint32_t tid = next_tid++;
	int pma, r1, r2, r;

	good_open(&g);
	pma = reg_agent(g.fd, 1, 0x04, 1, 0, NULL);
	addr(&u, pma, 0x3fe, 1, 300, 0);
	mad_hdr(u.mad, 0x04, 1, 1, tid, 0x0012, 0);
	r1 = send_mad(g.fd, &u, HDR + MAD_SIZE);
	r2 = send_mad(g.fd, &u, HDR + MAD_SIZE);
	result(!r1 && r2 == -EINVAL, "a second request with an outstanding TID: EINVAL",
	       "first %d second %d", r1, r2);
	r = recv_mad(g.fd, &u, sizeof(u), 5000);
	result(r == HDR + 24 && u.hdr.status == ETIMEDOUT, "the first one times out",
	       "read %d status %u", r, u.hdr.status);
	good_check(&g, "after a duplicate TID");
	close(g.fd);
}

/*
 * Thousands of requests to an absent LID: SMPs on QP0 and GMPs on QP1, each
 * timing out.  Should a write get EAGAIN (a stack that bounds outstanding
 * sends, which upstream does not), the test reads what came back and goes
 * on.  Every one must come back.
 */
static void t_flood(int total)
{
	struct good g;
	struct umad u;
	int pma, sent = 0, back = 0, eagain = 0, bad = 0, other = 0, r;
	time_t t0 = time(NULL);
	char what[160];

	good_open(&g);
	pma = reg_agent(g.fd, 1, 0x04, 1, 0, NULL);
	while (sent < total && time(NULL) - t0 < 120) {
		uint32_t tid = 0x100000 + sent;

		if (sent & 1) {
			addr(&u, pma, 0x3fd, 1, 20, 0);
			mad_hdr(u.mad, 0x04, 1, 1, tid, 0x0012, 0);
		} else {
			addr(&u, g.lid, 0x3fd, 0, 20, 0);
			mad_hdr(u.mad, 0x01, 1, 1, tid, 0x0015, 0);
		}
		r = send_mad(g.fd, &u, HDR + MAD_SIZE);
		if (r == 0) {
			sent++;
			continue;
		}
		if (r != -EAGAIN) {
			bad++;
			if (bad > 5)
				break;
			continue;
		}
		eagain++;
		r = recv_mad(g.fd, &u, sizeof(u), 2000);
		if (r > 0 && u.hdr.status == ETIMEDOUT)
			back++;
		else if (r > 0)
			other++;
	}
	while (back + other < sent && time(NULL) - t0 < 180) {
		r = recv_mad(g.fd, &u, sizeof(u), 3000);
		if (r < 0)
			break;
		if (u.hdr.status == ETIMEDOUT)
			back++;
		else
			other++;
	}
	snprintf(what, sizeof(what), "flood of %d requests to an absent LID: all written", total);
	result(sent == total && !bad, what, "%d written, %d failed writes (not EAGAIN)", sent, bad);
	snprintf(what, sizeof(what), "flood: every request came back with ETIMEDOUT");
	result(back == sent && !other, what, "%d of %d, %d others", back, sent, other);
	printf("%s: flood: %d EAGAIN on write, %ld s\n", name, eagain, (long)(time(NULL) - t0));
	good_check(&g, "after the flood");
	struct good g2;

	good_open(&g2);
	good_check(&g2, "second file after the flood");
	close(g2.fd);
	close(g.fd);
}

/*
 * No bound on a file's sends (as upstream: libibumad and opensm rely on a
 * write never waiting for earlier sends): 2000 requests with 3 s
 * timeouts written at once under O_NONBLOCK, none refused, poll says
 * POLLOUT all along, and every one comes back with ETIMEDOUT.
 */
static void t_many(void)
{
	enum { MANY = 2000 };
	struct pollfd pfd;
	struct good g;
	struct umad u;
	int i, r, back;

	if (good_open(&g)) {
		result(0, "open for the many sends", "%s", strerror(errno));
		return;
	}
	for (i = 0, r = 0; i < MANY && !r; i++) {
		addr(&u, g.lid, 0x3fb, 0, 3000, 0);
		mad_hdr(u.mad, 0x01, 1, 1, 0x200000 + i, 0x0015, 0);
		r = send_mad(g.fd, &u, HDR + MAD_SIZE);
	}
	result(!r && i == MANY, "2000 requests with 3 s timeouts written at once (O_NONBLOCK)",
	       "write %d: %s", i, strerror(-r));
	pfd = (struct pollfd){ .fd = g.fd, .events = POLLOUT };
	r = poll(&pfd, 1, 0);
	result(r == 1 && (pfd.revents & POLLOUT), "poll: POLLOUT with 2000 sends outstanding",
	       "returned %d revents 0x%x", r, pfd.revents);
	for (back = 0; back < i; back++) {
		r = recv_mad(g.fd, &u, sizeof(u), 20000);
		if (r < 0 || u.hdr.status != ETIMEDOUT)
			break;
	}
	result(back == MANY, "all 2000 come back with ETIMEDOUT", "%d", back);
	good_check(&g, "after 2000 sends");
	close(g.fd);
}

/* --- GRH ----------------------------------------------------------------- */

/* GID index 0 of port p from sysfs, in network order */
static int port_gid(int p, uint8_t *gid)
{
	char path[96], buf[64];
	unsigned int w[8];
	int i;

	snprintf(path, sizeof(path), "/sys/class/infiniband/mlx4_0/ports/%d/gids/0", p);
	if (read_line(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%x:%x:%x:%x:%x:%x:%x:%x", &w[0], &w[1], &w[2], &w[3], &w[4],
		   &w[5], &w[6], &w[7]) != 8)
		return -1;
	for (i = 0; i < 8; i++)
		put16(gid + 2 * i, w[i]);
	return 0;
}

/* a vendor class 0x31 Set from port 2 (tx) to port 1's LID with a GRH to dgid */
static int grh_send(int tx, int id, int lid1, const uint8_t *dgid, uint32_t tid)
{
	struct umad u;

	addr(&u, id, lid1, 1, 0, 0);
	u.hdr.grh_present = 1;
	u.hdr.gid_index = 0;
	u.hdr.hop_limit = 7;
	u.hdr.traffic_class = 0x28;
	u.hdr.flow_label = htobe32(0x12345);
	memcpy(u.hdr.gid, dgid, 16);
	mad_hdr(u.mad, 0x31, 1, 2, tid, 0x0010, 0);
	u.mad[37] = 0x00;		/* OUI */
	u.mad[38] = 0x14;
	u.mad[39] = 0x05;
	return send_mad(tx, &u, HDR + MAD_SIZE);
}

/*
 * MADs with a GRH, received as upstream reports them: the header gives the
 * address to answer to (what ib_init_ah_attr_from_wc() makes of it): the
 * sender's GID, the index of the GID the MAD reached on the receiving
 * port, hop limit 0xff, the sender's traffic class and flow label.  A MAD
 * to the SA's well-known GID is taken (answered from GID index 0); one to
 * a GID of another port is dropped.
 */
static void t_grh(void)
{
	int tx = open_umad(2), rx = open_umad(1), ta, ra, r;
	uint32_t methods[4] = { 1u << 2 };	/* Set */
	uint8_t gid1[16], gid2[16], sa_gid[16];
	long lid1 = read_num("/sys/class/infiniband/mlx4_0/ports/1/lid");
	uint32_t tid_sa = next_tid++, tid_other = next_tid++, tid_own = next_tid++, first;
	struct ib_user_mad_reg_req req;
	struct umad u;
	char what[160], why[160];

	memset(&req, 0, sizeof(req));
	req.qpn = 1;
	req.mgmt_class = 0x31;
	req.mgmt_class_version = 1;
	req.oui[1] = 0x14;
	req.oui[2] = 0x05;
	ta = ioctl(tx, IB_USER_MAD_REGISTER_AGENT, &req) ? -errno : (int)req.id;
	memcpy(req.method_mask, methods, sizeof(req.method_mask));
	ra = ioctl(rx, IB_USER_MAD_REGISTER_AGENT, &req) ? -errno : (int)req.id;
	r = port_gid(1, gid1) || port_gid(2, gid2);
	result(ta >= 0 && ra >= 0 && !r && lid1 > 0,
	       "vendor class 0x31 agents on ports 2 and 1, the ports' GIDs and LID",
	       "agents %d %d, GIDs %s, LID %ld", ta, ra, r ? "unreadable" : "read", lid1);
	if (ta < 0 || ra < 0 || r || lid1 <= 0)
		goto out;
	memcpy(sa_gid, gid1, 8);		/* the subnet prefix */
	put64(sa_gid + 8, 0x0200000000000002ull);

	/* to the SA's well-known GID: taken, GID index 0 */
	r = grh_send(tx, ta, lid1, sa_gid, tid_sa);
	if (r) {
		result(0, "a MAD with a GRH to the SA's well-known GID is received", "write: %s",
		       strerror(-r));
	} else if (wait_answer(rx, &u, tid_sa, 5000, why, sizeof(why))) {
		result(0, "a MAD with a GRH to the SA's well-known GID is received", "%s", why);
	} else {
		result(u.hdr.grh_present && u.hdr.gid_index == 0,
		       "a MAD with a GRH to the SA's well-known GID is received (GID index 0)",
		       "grh_present %u gid_index %u", u.hdr.grh_present, u.hdr.gid_index);
	}

	/* to port 2's GID, then to port 1's: only the second arrives */
	r = grh_send(tx, ta, lid1, gid2, tid_other);
	if (!r)
		r = grh_send(tx, ta, lid1, gid1, tid_own);
	memset(&u, 0, sizeof(u));
	if (!r)
		r = recv_mad(rx, &u, sizeof(u), 5000);
	first = r > 0 ? (uint32_t)be64toh(*(uint64_t *)(u.mad + 8)) : 0;
	if (r > 0)
		snprintf(why, sizeof(why), "first came TID 0x%x (0x%x: the one to port 2's GID)",
			 first, tid_other);
	else
		snprintf(why, sizeof(why), "%s", strerror(-r));
	result(r > 0 && first == tid_own,
	       "a MAD to a GID of the other port is dropped (the next one, to ours, is first)",
	       "%s", why);
	if (r > 0 && first == tid_other)
		r = recv_mad(rx, &u, sizeof(u), 5000);
	snprintf(what, sizeof(what),
		 "its header: the sender's GID, GID index 0, hop limit 0xff, its class and flow");
	result(r > 0 && u.hdr.grh_present && !memcmp(u.hdr.gid, gid2, 16) &&
	       u.hdr.gid_index == 0 && u.hdr.hop_limit == 0xff &&
	       u.hdr.traffic_class == 0x28 && be32toh(u.hdr.flow_label) == 0x12345,
	       what, "read %d grh %u gid %s, index %u, hop limit %u, class 0x%x, flow 0x%x",
	       r, u.hdr.grh_present, memcmp(u.hdr.gid, gid2, 16) ? "not port 2's" : "port 2's",
	       u.hdr.gid_index, u.hdr.hop_limit, u.hdr.traffic_class,
	       be32toh(u.hdr.flow_label));
out:
	close(tx);
	close(rx);
}

/*
 * An SA GetTable of every PathRecord: the reply (an RMPP message longer
 * than one MAD when the subnet has two ports) read first into a buffer of
 * one MAD (ENOSPC, header with the full length), then whole.
 */
static void t_rmpp(void)
{
	int fd = open_umad(port), sa, r, len;
	long smlid = read_num("/sys/class/infiniband/mlx4_0/ports/%d/sm_lid", port);
	uint32_t tid = next_tid++;
	struct umad u;
	uint8_t *big;

	sa = reg_agent(fd, 1, 0x03, 2, 1, NULL);
	result(sa >= 0, "register SA class 3 version 2 with RMPP 1", "%s", strerror(-sa));
	addr(&u, sa, smlid, 1, 1000, 3);
	mad_hdr(u.mad, 0x03, 2, 0x12, tid, 0x0035, 0);	/* GetTable PathRecord */
	r = send_mad(fd, &u, HDR + MAD_SIZE);
	result(!r, "SA GetTable(PathRecord) written", "%s", strerror(-r));
	r = recv_mad(fd, &u, sizeof(u), 10000);
	len = u.hdr.length;
	result(r == -ENOSPC && len > HDR + MAD_SIZE,
	       "read into one MAD's room: ENOSPC, the header says the full length",
	       "read %d (%s), length %d", r, r < 0 ? strerror(-r) : "", len);
	if (r != -ENOSPC || len <= HDR + MAD_SIZE || len > 1 << 20)
		return;
	big = calloc(1, len);
	r = recv_mad(fd, big, len, 1000);
	struct umad *b = (struct umad *)big;
	uint16_t off = get16(b->mad + 44) * 8;
	int data = len - HDR - 56;

	result(r == len && b->mad[3] == 0x92 && get16(b->mad + 4) == 0 &&
	       (uint32_t)be64toh(*(uint64_t *)(b->mad + 8)) == tid && off == 64 &&
	       data >= 4 * 64,
	       "read again whole: GetTableResp with >= 4 PathRecords of 64 bytes",
	       "read %d of %d, method 0x%x status 0x%x attr offset %u, %d data bytes",
	       r, len, b->mad[3], get16(b->mad + 4), off, data);
	/* every record is a path: its DLID and SLID are LIDs of the subnet */
	int ok = r == len, i;

	for (i = 0; ok && i + 64 <= data && off == 64; i += 64) {
		const uint8_t *rec = b->mad + 56 + i;

		ok = get16(rec + 40) && get16(rec + 42);
	}
	result(ok, "the records' DLID and SLID are all set (reassembled in order)",
	       "record %d", i / 64);
	free(big);
	close(fd);
}

/*
 * Kernel RMPP both ways without an SM: port 1 sends a vendor-class (0x30,
 * range 2) Set of 3000 data bytes, segmented by the kernel (the user sets
 * RMPP ACTIVE); port 2's agent gets it reassembled: first a buffer of one
 * MAD (ENOSPC, the full length in the header), then the whole message,
 * every byte in order.
 */
static void t_rmpp_loop(void)
{
	enum { DATA = 3000, VHDR = 40 };
	int tx = open_umad(1), rx = open_umad(2), ta, ra, r, i, bad = -1;
	uint32_t methods[4] = { 1u << 2 };	/* Set */
	long lid2 = read_num("/sys/class/infiniband/mlx4_0/ports/2/lid");
	uint32_t tid = next_tid++;
	struct ib_user_mad_reg_req req;
	uint8_t *msg, *in;
	struct umad u;
	int len;

	memset(&req, 0, sizeof(req));
	req.qpn = 1;
	req.mgmt_class = 0x30;
	req.mgmt_class_version = 1;
	req.rmpp_version = 1;
	req.oui[0] = 0x00;
	req.oui[1] = 0x14;
	req.oui[2] = 0x05;
	ta = ioctl(tx, IB_USER_MAD_REGISTER_AGENT, &req) ? -errno : (int)req.id;
	memcpy(req.method_mask, methods, sizeof(req.method_mask));
	ra = ioctl(rx, IB_USER_MAD_REGISTER_AGENT, &req) ? -errno : (int)req.id;
	result(ta >= 0 && ra >= 0, "vendor class 0x30 agents with RMPP on ports 1 and 2",
	       "%d %d", ta, ra);
	if (ta < 0 || ra < 0)
		return;

	msg = calloc(1, HDR + VHDR + DATA);
	in = calloc(1, HDR + VHDR + DATA + 64);
	addr((struct umad *)msg, ta, lid2, 1, 0, 3);
	mad_hdr(msg + HDR, 0x30, 1, 0x02, tid, 0x0010, 0);
	msg[HDR + 24] = 1;		/* RMPP version */
	msg[HDR + 25] = 1;		/* DATA */
	msg[HDR + 26] = 0x01;		/* ACTIVE: the kernel segments it */
	msg[HDR + 37] = 0x00;
	msg[HDR + 38] = 0x14;
	msg[HDR + 39] = 0x05;
	for (i = 0; i < DATA; i++)
		msg[HDR + VHDR + i] = (uint8_t)(i * 7 + i / 256);
	r = send_mad(tx, msg, HDR + VHDR + DATA);
	result(!r, "write of a 3040-byte RMPP message (ACTIVE set)", "%s", strerror(-r));

	r = recv_mad(rx, &u, sizeof(u), 10000);
	len = u.hdr.length;
	result(r == -ENOSPC && len == HDR + VHDR + DATA,
	       "receiver: read into one MAD's room: ENOSPC, length header + 3040",
	       "read %d (%s), length %d", r, r < 0 ? strerror(-r) : "", len);
	r = recv_mad(rx, in, HDR + VHDR + DATA + 64, 1000);
	for (i = 0; r == HDR + VHDR + DATA && i < DATA; i++)
		if (in[HDR + VHDR + i] != (uint8_t)(i * 7 + i / 256)) {
			bad = i;
			break;
		}
	result(r == HDR + VHDR + DATA && bad < 0 && in[HDR + 3] == 0x02 &&
	       (uint32_t)be64toh(*(uint64_t *)(in + HDR + 8)) == tid &&
	       ((struct umad *)in)->hdr.id == (uint32_t)ra,
	       "receiver: read again: the whole message, every byte in order",
	       "read %d, first bad byte %d, method 0x%x", r, bad, in[HDR + 3]);
	/* the sender's send completes without a response: nothing to read */
	r = recv_mad(tx, &u, sizeof(u), 500);
	result(r == -ETIME, "sender: nothing comes back for a send without timeout",
	       "read %d status %u", r, u.hdr.status);
	free(msg);
	free(in);
	close(tx);
	close(rx);
}

/* issmN of a port no SM uses: IsSM while open, exclusive. */
static void t_issm(void)
{
	char path[64], what[128];
	int fd, fd2, p, n;
	long before, during, after;

	for (p = 1; p <= 2; p++) {
		n = umad_index(p);
		snprintf(path, sizeof(path), "/dev/infiniband/issm%d", n);
		fd = open(path, O_RDONLY | O_NONBLOCK);
		if (fd < 0 && errno == EAGAIN) {
			printf("%s: issm%d is held (by opensm): trying the other port\n", name, n);
			continue;
		}
		close(fd);
		break;
	}
	if (p > 2) {
		result(0, "a free issm device", "both are held");
		return;
	}
	before = cap_mask(p);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	during = cap_mask(p);
	snprintf(what, sizeof(what), "open %s: port %d cap_mask gains IsSM (0x2)", path, p);
	result(fd >= 0 && !(before & 2) && (during & 2), what,
	       "open %d, cap_mask 0x%lx then 0x%lx", fd, before, during);
	fd2 = open(path, O_RDONLY | O_NONBLOCK);
	result(fd2 < 0 && errno == EAGAIN, "a second O_NONBLOCK open: EAGAIN",
	       "returned %d (%s)", fd2, strerror(errno));
	if (fd2 >= 0)
		close(fd2);
	close(fd);
	after = cap_mask(p);
	result(!(after & 2) && (after | 2) == during, "close: IsSM cleared, the other bits kept",
	       "cap_mask 0x%lx (open: 0x%lx)", after, during);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	result(fd >= 0, "it can be opened again after close", "%s", strerror(errno));
	close(fd);
}

/*
 * The device goes away under an open file (REMOVE_CMD, default mlx4_ib
 * unloaded; a catastrophic error does it too): every operation fails with
 * EIO, poll says POLLERR, close works; after RESTORE_CMD (default mlx4_ib
 * loaded again) a new file of the port works.
 */
static void t_removal(void)
{
	const char *remove_cmd = getenv("REMOVE_CMD");
	const char *restore_cmd = getenv("RESTORE_CMD");
	struct pollfd pfd;
	struct good g;
	struct umad u;
	char what[256];
	int r, i, id = 0;

	if (!remove_cmd)
		remove_cmd = "modprobe -r mlx4_ib";
	if (!restore_cmd)
		restore_cmd = "modprobe mlx4_ib";
	if (good_open(&g)) {
		result(0, "open before the removal", "%s", strerror(errno));
		return;
	}
	/* something queued and something outstanding when it goes */
	dr_smp(&u, g.dr, next_tid++, 0x0011);
	send_mad(g.fd, &u, HDR + MAD_SIZE);
	usleep(500000);
	addr(&u, g.lid, 0x3fc, 0, 10000, 0);
	mad_hdr(u.mad, 0x01, 1, 1, next_tid++, 0x0015, 0);
	send_mad(g.fd, &u, HDR + MAD_SIZE);

	r = system(remove_cmd);
	snprintf(what, sizeof(what), "'%s' with a umad file open", remove_cmd);
	result(r == 0, what, "exit %d", r);
	/* the removal may follow later (a catastrophic error's recovery) */
	for (i = 0; i < 600; i++) {
		pfd = (struct pollfd){ .fd = g.fd, .events = POLLIN | POLLOUT };
		r = poll(&pfd, 1, 0);
		if (r == 1 && (pfd.revents & POLLERR))
			break;
		usleep(100000);
	}
	result(r == 1 && (pfd.revents & POLLERR), "poll after removal: POLLERR",
	       "returned %d revents 0x%x", r, pfd.revents);
	r = read(g.fd, &u, sizeof(u));
	result(r < 0 && errno == EIO, "read after removal: EIO", "returned %d (%s)", r,
	       strerror(errno));
	dr_smp(&u, g.dr, next_tid++, 0x0011);
	r = send_mad(g.fd, &u, HDR + MAD_SIZE);
	result(r == -EIO, "write after removal: EIO", "%s", strerror(-r));
	r = reg_agent(g.fd, 0, 0x81, 1, 0, NULL);
	result(r < 0, "register after removal fails", "got id %d", r);
	r = ioctl(g.fd, IB_USER_MAD_UNREGISTER_AGENT, &id);
	printf("%s: unregister after removal: %d (%s)\n", name, r, r ? strerror(errno) : "ok");
	result(close(g.fd) == 0, "close after removal", "%s", strerror(errno));

	r = system(restore_cmd);
	snprintf(what, sizeof(what), "'%s'", restore_cmd);
	result(r == 0, what, "exit %d", r);
	for (i = 0; i < 900; i++) {
		if (umad_index(port) >= 0 &&
		    read_num("/sys/class/infiniband/mlx4_0/ports/%d/state", port) == 4)
			break;
		usleep(100000);
	}
	result(i < 900, "the port is back, ACTIVE, with its umad device", "after %d s", i / 10);
	if (good_open(&g)) {
		result(0, "open after the device came back", "%s", strerror(errno));
		return;
	}
	good_check(&g, "a new file after the device came back");
	close(g.fd);
}

int main(int argc, char **argv)
{
	int c, i;

	while ((c = getopt(argc, argv, "s:p:n:")) != -1) {
		switch (c) {
		case 's': stack = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': name = optarg; break;
		default:
			fprintf(stderr, "usage: umadtest [-s ours|inbox] [-p PORT] [-n NAME] TEST...\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = optind; i < argc; i++) {
		const char *t = argv[i];

		if (!strcmp(t, "sysfs"))
			t_sysfs();
		else if (!strcmp(t, "basic"))
			t_basic();
		else if (!strcmp(t, "bad"))
			t_bad();
		else if (!strcmp(t, "agents"))
			t_agents();
		else if (!strcmp(t, "timeout"))
			t_timeout();
		else if (!strcmp(t, "dup"))
			t_dup();
		else if (!strcmp(t, "flood"))
			t_flood(3000);
		else if (!strcmp(t, "rmpp"))
			t_rmpp();
		else if (!strcmp(t, "many"))
			t_many();
		else if (!strcmp(t, "grh"))
			t_grh();
		else if (!strcmp(t, "rmpp-loop"))
			t_rmpp_loop();
		else if (!strcmp(t, "issm"))
			t_issm();
		else if (!strcmp(t, "removal"))
			t_removal();
		else
			result(0, t, "no such test");
	}
	return failures ? 1 : 0;
}

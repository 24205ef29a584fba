// SPDX-License-Identifier: GPL-2.0
/*
 * failnth: every kernel fault point of single verbs and umad operations.
 *
 * For each operation and n = 1, 2, ...: what the operation needs is set up
 * without injection, n is written to /proc/thread-self/fail-nth just before
 * the operation's one system call (the n-th fault point the task passes in
 * it fails: a slab or a page allocation, as the kernel's failslab and
 * fail_page_alloc settings select), read back right after it (not zero: the
 * call passed fewer than n points, so every one has been tried), and the
 * result judged: a success or ENOMEM, and the object's state as a user sees
 * it (a failed modify leaves the QP in its state, a failed destroy leaves an
 * object that a second destroy removes).  After the sweep the operation runs
 * once more without injection and must succeed.
 *
 * libibverbs makes the system calls for the verbs: this program defines
 * ioctl() and write() (linked with --export-dynamic, they take the place of
 * libc's for libibverbs and its provider), and arms only the first call on
 * the device's command file during an operation; the operation must make
 * exactly one.
 *
 *   failnth [OP...]     the operations named (all by default); one line
 *                       "PASS failnth OP: ..." or "FAIL failnth OP: ..."
 *                       each, then "failnth: N checks, M failed"
 */
#define _GNU_SOURCE
#include <endian.h>
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
#include <sys/syscall.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_mad.h>
#include <rdma/ib_user_verbs.h>

#define MAX_POINTS	4000
#define BIG_MR_MIB	4u
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define BIG_MR		(BIG_MR_MIB << 20)

static int nth_fd = -1;
static int armed_fd = -1;	/* the file whose first call is armed */
static unsigned int arm_n;	/* the point to fail, 0: no injection */
static int arm_cmd = -1;	/* only a write() of this command is armed */
static int arm_calls;		/* calls on armed_fd during the operation */
static long arm_left;		/* fail-nth read back after the armed call */

static int nth_write(unsigned int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%u", n);

	return syscall(SYS_write, nth_fd, b, len) == len ? 0 : -1;
}

static long nth_read(void)
{
	char b[16];
	long r = syscall(SYS_pread64, nth_fd, b, sizeof(b) - 1, 0);

	if (r <= 0)
		return -1;
	b[r] = 0;
	return strtol(b, NULL, 10);
}

/* a call on armed_fd that the operation arms: any, or a write() of arm_cmd */
static int armable(long nr, long fd, long buf)
{
	const struct ib_uverbs_cmd_hdr *h = (const void *)buf;

	if (fd != armed_fd)
		return 0;
	return arm_cmd < 0 ||
	       (nr == SYS_write && (int)(h->command & IB_USER_VERBS_CMD_COMMAND_MASK) == arm_cmd);
}

/*
 * One system call, with the injection armed if it is the operation's first
 * armable one
 */
static long call(long nr, long a, long b, long c)
{
	int match = armable(nr, a, b);
	int arm = arm_n && match && !arm_calls;
	long r;
	int e;

	arm_calls += match;
	if (arm && nth_write(arm_n)) {
		fprintf(stderr, "failnth: writing fail-nth: %m\n");
		exit(2);
	}
	r = syscall(nr, a, b, c);
	e = errno;
	if (arm) {
		arm_left = nth_read();
		nth_write(0);
	}
	errno = e;
	return r;
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	return call(SYS_ioctl, fd, req, (long)arg);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	return call(SYS_write, fd, (long)buf, len);
}

/* --- the objects ---------------------------------------------------------- */

struct st {
	struct ibv_context *ctx;
	void *buf;
	__u16 lid;
	int umad_index;
	__u64 tid;
	char why[160];		/* what a check found wrong */
	/* from here on, what one operation uses (tidy() clears it) */
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_srq *srq;
	struct ibv_mw *mw;
	int ufd;		/* /dev/infiniband/umadN */
	int agent;		/* a registered agent, -1: none */
};

static int ret_errno(int r)
{
	return r ? -(r > 0 ? r : EIO) : 0;
}

/* a destroy's result (-errno); the object forgotten if it went */
static int gone(int r, void **obj)
{
	if (!r)
		*obj = NULL;
	return ret_errno(r);
}

static int need_pd(struct st *s)
{
	if (!s->pd)
		s->pd = ibv_alloc_pd(s->ctx);
	return s->pd ? 0 : -1;
}

static int need_cq(struct st *s)
{
	if (!s->cq)
		s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	return s->cq ? 0 : -1;
}

static struct ibv_qp *make_qp(struct st *s, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(s->pd, &a);
}

static int qp_to(struct ibv_qp *qp, enum ibv_qp_state to, __u16 lid)
{
	struct ibv_qp_attr a = { .qp_state = to };
	int mask = IBV_QP_STATE;

	switch (to) {
	case IBV_QPS_INIT:
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		break;
	case IBV_QPS_RTR:
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = qp->qp_num;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.dlid = lid;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		break;
	default:
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	}
	return ibv_modify_qp(qp, &a, mask);
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

/* --- the operations: setup (no injection), the armed call, a check -------- */

static int no_setup(struct st *s)
{
	return 0;
}

static int op_alloc_pd(struct st *s)
{
	s->pd = ibv_alloc_pd(s->ctx);
	return s->pd ? 0 : -errno;
}

static int op_dealloc_pd(struct st *s)
{
	return gone(ibv_dealloc_pd(s->pd), (void **)&s->pd);
}

static int reg_mr(struct st *s, size_t len)
{
	s->mr = ibv_reg_mr(s->pd, s->buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	return s->mr ? 0 : -errno;
}

static int op_reg_mr_4k(struct st *s)
{
	return reg_mr(s, 4096);
}

static int op_reg_mr_4m(struct st *s)
{
	return reg_mr(s, BIG_MR);
}

static int setup_mr(struct st *s)
{
	return need_pd(s) || reg_mr(s, BIG_MR) ? -1 : 0;
}

static int op_dereg_mr(struct st *s)
{
	return gone(ibv_dereg_mr(s->mr), (void **)&s->mr);
}

static int op_create_cq(struct st *s)
{
	s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	return s->cq ? 0 : -errno;
}

static int op_destroy_cq(struct st *s)
{
	return gone(ibv_destroy_cq(s->cq), (void **)&s->cq);
}

static int setup_pd_cq(struct st *s)
{
	return need_pd(s) || need_cq(s) ? -1 : 0;
}

static int op_create_rc(struct st *s)
{
	s->qp = make_qp(s, IBV_QPT_RC);
	return s->qp ? 0 : -errno;
}

static int op_create_ud(struct st *s)
{
	s->qp = make_qp(s, IBV_QPT_UD);
	return s->qp ? 0 : -errno;
}

static int setup_rc(struct st *s)
{
	if (setup_pd_cq(s))
		return -1;
	s->qp = make_qp(s, IBV_QPT_RC);
	return s->qp ? 0 : -1;
}

static int op_destroy_qp(struct st *s)
{
	return gone(ibv_destroy_qp(s->qp), (void **)&s->qp);
}

/* setup_state: an RC QP in the state before the one the operation moves to */
static int setup_state(struct st *s, enum ibv_qp_state before)
{
	enum ibv_qp_state st;

	if (setup_rc(s))
		return -1;
	for (st = IBV_QPS_INIT; st <= before; st++)
		if (qp_to(s->qp, st, s->lid))
			return -1;
	return 0;
}

static int setup_reset(struct st *s)
{
	return setup_rc(s);
}

static int setup_init(struct st *s)
{
	return setup_state(s, IBV_QPS_INIT);
}

static int setup_rtr(struct st *s)
{
	return setup_state(s, IBV_QPS_RTR);
}

static int setup_rts(struct st *s)
{
	return setup_state(s, IBV_QPS_RTS);
}

/* the modify's outcome: the new state, or the old one after a failure */
static int modify(struct st *s, enum ibv_qp_state to)
{
	int r = ret_errno(qp_to(s->qp, to, s->lid));
	int want = r ? (int)to - 1 : (int)to;
	int got;

	arm_n = 0;
	got = qp_state(s->qp);

	if (got != want)
		snprintf(s->why, sizeof(s->why), "to state %d: returned %d, the QP is in state %d",
			 to, r, got);
	return r;
}

static int op_to_init(struct st *s)
{
	return modify(s, IBV_QPS_INIT);
}

static int op_to_rtr(struct st *s)
{
	return modify(s, IBV_QPS_RTR);
}

static int op_to_rts(struct st *s)
{
	return modify(s, IBV_QPS_RTS);
}

static int op_create_srq(struct st *s)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = 32, .max_sge = 1 } };

	s->srq = ibv_create_srq(s->pd, &a);
	return s->srq ? 0 : -errno;
}

static int setup_srq(struct st *s)
{
	return need_pd(s) || op_create_srq(s) ? -1 : 0;
}

static int op_destroy_srq(struct st *s)
{
	return gone(ibv_destroy_srq(s->srq), (void **)&s->srq);
}

static int op_alloc_mw(struct st *s)
{
	s->mw = ibv_alloc_mw(s->pd, IBV_MW_TYPE_2);
	return s->mw ? 0 : -errno;
}

static int setup_mw(struct st *s)
{
	return need_pd(s) || op_alloc_mw(s) ? -1 : 0;
}

static int op_dealloc_mw(struct st *s)
{
	return gone(ibv_dealloc_mw(s->mw), (void **)&s->mw);
}

static int setup_pd(struct st *s)
{
	return need_pd(s);
}

/* umad: the device of mlx4_0's port 1 */
static int umad_path(struct st *s, char *path, size_t len)
{
	snprintf(path, len, "/dev/infiniband/umad%d", s->umad_index);
	return 0;
}

static int op_umad_open(struct st *s)
{
	char path[64];
	int fd;

	umad_path(s, path, sizeof(path));
	nth_write(arm_n);
	fd = open(path, O_RDWR | O_NONBLOCK);
	arm_calls = 1;
	arm_left = nth_read();
	nth_write(0);
	if (fd < 0)
		return -errno;
	s->ufd = fd;
	return 0;
}

static int setup_umad(struct st *s)
{
	char path[64];

	umad_path(s, path, sizeof(path));
	s->ufd = open(path, O_RDWR | O_NONBLOCK);
	if (s->ufd < 0)
		return -1;
	armed_fd = s->ufd;
	return 0;
}

static int op_register(struct st *s)
{
	struct ib_user_mad_reg_req req = {
		.qpn = 0, .mgmt_class = 0x81, .mgmt_class_version = 1,
	};

	if (ioctl(s->ufd, IB_USER_MAD_REGISTER_AGENT, &req))
		return -errno;
	s->agent = req.id;
	return 0;
}

static int setup_agent(struct st *s)
{
	return setup_umad(s) || op_register(s) ? -1 : 0;
}

static int op_unregister(struct st *s)
{
	if (ioctl(s->ufd, IB_USER_MAD_UNREGISTER_AGENT, &s->agent))
		return -errno;
	s->agent = -1;
	return 0;
}

struct umad_msg {
	struct ib_user_mad_hdr_old hdr;
	__u8 mad[256];
};

/*
 * A directed-route SubnGet(NodeInfo) with an empty path (the local SMA
 * answers); after a successful write, its response must come back by read
 */
static int op_send(struct st *s)
{
	struct umad_msg m = { 0 };
	struct pollfd pfd = { .fd = s->ufd, .events = POLLIN };
	__u64 tid = ++s->tid;
	__u16 ffff = htobe16(0xffff);
	__u16 attr = htobe16(0x0011);
	__u64 btid = htobe64(tid);
	ssize_t r;

	m.hdr.id = s->agent;
	m.hdr.timeout_ms = 2000;
	m.hdr.lid = ffff;
	m.mad[0] = 1;
	m.mad[1] = 0x81;
	m.mad[2] = 1;
	m.mad[3] = 1;
	memcpy(m.mad + 8, &btid, 8);
	memcpy(m.mad + 16, &attr, 2);
	memcpy(m.mad + 32, &ffff, 2);
	memcpy(m.mad + 34, &ffff, 2);
	r = write(s->ufd, &m, sizeof(m));
	if (r < 0)
		return -errno;
	if (r != sizeof(m)) {
		snprintf(s->why, sizeof(s->why), "write returned %zd", r);
		return 0;
	}
	memset(&m, 0, sizeof(m));
	if (poll(&pfd, 1, 10000) != 1) {
		snprintf(s->why, sizeof(s->why), "no answer to a MAD sent (within 10 s)");
		return 0;
	}
	/* (ib_mad puts the agent's own number in the TID's high half) */
	r = read(s->ufd, &m, sizeof(m));
	if (r != sizeof(m) || m.hdr.status || m.mad[3] != 0x81 ||
	    memcmp(m.mad + 12, (char *)&btid + 4, 4) || memcmp(m.mad + 16, &attr, 2))
		snprintf(s->why, sizeof(s->why),
			 "the answer: read %zd, status %u, method 0x%x, attribute 0x%02x%02x",
			 r, m.hdr.status, m.mad[3], m.mad[16], m.mad[17]);
	return 0;
}

/* free what an operation left, without injection */
static void tidy(struct st *s)
{
	int bad = 0;

	bad |= s->mw && op_dealloc_mw(s);
	bad |= s->qp && op_destroy_qp(s);
	bad |= s->srq && op_destroy_srq(s);
	bad |= s->mr && op_dereg_mr(s);
	bad |= s->cq && op_destroy_cq(s);
	bad |= s->pd && op_dealloc_pd(s);
	bad |= s->agent >= 0 && op_unregister(s);
	if (bad)
		fprintf(stderr, "failnth: a clean-up without a fault failed\n");
	if (s->ufd >= 0)
		close(s->ufd);
	memset(&s->pd, 0, sizeof(*s) - offsetof(struct st, pd));
	s->ufd = -1;
	s->agent = -1;
}

struct op {
	const char *name;
	int (*setup)(struct st *s);
	int (*run)(struct st *s);
	int cmd;		/* a write() command to arm, 0: the first call */
};

static const struct op ops[] = {
	{ "alloc-pd", no_setup, op_alloc_pd, 0 },
	{ "dealloc-pd", setup_pd, op_dealloc_pd, 0 },
	{ "reg-mr-4k", setup_pd, op_reg_mr_4k, 0 },
	{ "reg-mr-4m", setup_pd, op_reg_mr_4m, 0 },
	{ "dereg-mr-4m", setup_mr, op_dereg_mr, 0 },
	{ "create-cq", no_setup, op_create_cq, 0 },
	{ "destroy-cq", need_cq, op_destroy_cq, 0 },
	{ "create-qp-rc", setup_pd_cq, op_create_rc, 0 },
	{ "create-qp-ud", setup_pd_cq, op_create_ud, 0 },
	/* libmlx4 queries the port before a modify with a port: the modify armed */
	{ "modify-qp-init", setup_reset, op_to_init, IB_USER_VERBS_CMD_MODIFY_QP },
	{ "modify-qp-rtr", setup_init, op_to_rtr, IB_USER_VERBS_CMD_MODIFY_QP },
	{ "modify-qp-rts", setup_rtr, op_to_rts, IB_USER_VERBS_CMD_MODIFY_QP },
	{ "destroy-qp-rts", setup_rts, op_destroy_qp, 0 },
	{ "create-srq", setup_pd, op_create_srq, 0 },
	{ "destroy-srq", setup_srq, op_destroy_srq, 0 },
	{ "alloc-mw", setup_pd, op_alloc_mw, 0 },
	{ "dealloc-mw", setup_mw, op_dealloc_mw, 0 },
	{ "umad-open", no_setup, op_umad_open, 0 },
	{ "umad-register", setup_umad, op_register, 0 },
	{ "umad-unregister", setup_agent, op_unregister, 0 },
	{ "umad-send", setup_agent, op_send, 0 },
};

/* the destroys: a failed one leaves the object, which a second one removes */
static int is_destroy(const struct op *o)
{
	return o->run == op_dealloc_pd || o->run == op_dereg_mr || o->run == op_destroy_cq ||
	       o->run == op_destroy_qp || o->run == op_destroy_srq || o->run == op_dealloc_mw ||
	       o->run == op_unregister;
}

static int checks, failed;

static void verdict(int ok, const char *op, const char *fmt, ...)
{
	va_list ap;

	printf("%s failnth %s: ", ok ? "PASS" : "FAIL", op);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	checks++;
	failed += !ok;
}

/* one armed run of o with point n (0: none); its result, -errno */
static int run_once(struct st *s, const struct op *o, unsigned int n, int *setup_failed)
{
	int r;

	*setup_failed = 0;
	s->why[0] = 0;
	armed_fd = s->ctx->cmd_fd;
	if (o->setup(s)) {
		*setup_failed = 1;
		return -EIO;
	}
	arm_calls = 0;
	arm_left = -1;
	arm_cmd = o->cmd ? o->cmd : -1;
	arm_n = n;
	r = o->run(s);
	arm_n = 0;
	arm_cmd = -1;
	return r;
}

static void sweep(struct st *s, const struct op *o)
{
	unsigned int n, points = 0, ok_anyway = 0, enomem = 0, other = 0;
	char bad[400] = "";
	size_t bl = 0;
	int r, sf, done = 0;

	for (n = 1; n <= MAX_POINTS && !done; n++) {
		r = run_once(s, o, n, &sf);
		if (sf) {
			bl += snprintf(bad + bl, sizeof(bad) - bl, " setup failed at n=%u;", n);
			tidy(s);
			break;
		}
		if (arm_calls != 1 || arm_left < 0)
			bl += snprintf(bad + bl, sizeof(bad) - bl,
				       " n=%u: %d calls on the device, fail-nth read %ld;",
				       n, arm_calls, arm_left);
		if (arm_left != 0) {
			/* no point left to fail: the sweep is complete */
			points = n - 1;
			done = 1;
			if (r)
				bl += snprintf(bad + bl, sizeof(bad) - bl,
					       " the last run without a fault failed: %s;",
					       strerror(-r));
		} else if (!r) {
			ok_anyway++;
		} else if (r == -ENOMEM) {
			enomem++;
		} else {
			other++;
			if (bl < sizeof(bad) - 80)
				bl += snprintf(bad + bl, sizeof(bad) - bl, " n=%u: %s (%d);",
					       n, strerror(-r), -r);
		}
		if (s->why[0] && bl < sizeof(bad) - 80)
			bl += snprintf(bad + bl, sizeof(bad) - bl, " n=%u: %s;", n, s->why);
		if (r && is_destroy(o) && !sf) {
			/* the object must still be there: destroy it for good */
			armed_fd = -1;
			r = o->run(s);
			if (r && bl < sizeof(bad) - 80)
				bl += snprintf(bad + bl, sizeof(bad) - bl,
					       " n=%u: the second destroy failed: %s;",
					       n, strerror(-r));
		}
		tidy(s);
		if (bl >= sizeof(bad) - 1)
			break;
	}
	if (!done && !bad[0])
		snprintf(bad, sizeof(bad), " more than %d points", MAX_POINTS);
	/* once more, without injection */
	r = run_once(s, o, 0, &sf);
	if ((r || sf || s->why[0]) && bl < sizeof(bad) - 80)
		snprintf(bad + bl, sizeof(bad) - bl, " once more without a fault: %s%s%s;",
			 sf ? "setup failed" : r ? strerror(-r) : "ok", s->why[0] ? ", " : "",
			 s->why);
	tidy(s);
	verdict(!bad[0], o->name,
		"%u points: %u failed with ENOMEM, %u succeeded anyway, %u other errors%s%s",
		points, enomem, ok_anyway, other, bad[0] ? ":" : "", bad);
}

static int find_umad(void)
{
	char path[96], b[32];
	int i, ok;
	FILE *f;

	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), "/sys/class/infiniband_mad/umad%d/ibdev", i);
		f = fopen(path, "r");
		if (!f)
			continue;
		ok = fgets(b, sizeof(b), f) && !strcmp(b, "mlx4_0\n");
		fclose(f);
		snprintf(path, sizeof(path), "/sys/class/infiniband_mad/umad%d/port", i);
		f = fopen(path, "r");
		if (!f)
			continue;
		ok = ok && fgets(b, sizeof(b), f) && !strcmp(b, "1\n");
		fclose(f);
		if (ok)
			return i;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_port_attr pa;
	struct st s = { .ufd = -1, .agent = -1, .tid = 0x4000 };
	size_t i;
	int a, n = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (nth_fd < 0) {
		printf("FAIL failnth: /proc/thread-self/fail-nth: %m\n");
		return 1;
	}
	list = ibv_get_device_list(&n);
	for (a = 0; list && a < n; a++)
		if (!strcmp(ibv_get_device_name(list[a]), "mlx4_0"))
			s.ctx = ibv_open_device(list[a]);
	if (!s.ctx || ibv_query_port(s.ctx, 1, &pa)) {
		printf("FAIL failnth: open mlx4_0 and query port 1: %m\n");
		return 1;
	}
	s.lid = pa.lid;
	s.umad_index = find_umad();
	if (posix_memalign(&s.buf, 4096, BIG_MR)) {
		printf("FAIL failnth: memory for the MRs\n");
		return 1;
	}
	memset(s.buf, 0x5a, BIG_MR);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		int want = argc < 2;

		for (a = 1; a < argc; a++)
			want |= !strcmp(argv[a], ops[i].name);
		if (!want)
			continue;
		if (!strncmp(ops[i].name, "umad", 4) && s.umad_index < 0) {
			verdict(0, ops[i].name, "no umad device for mlx4_0 port 1");
			continue;
		}
		sweep(&s, &ops[i]);
	}
	ibv_close_device(s.ctx);
	ibv_free_device_list(list);
	printf("failnth: %d checks, %d failed\n", checks, failed);
	return failed ? 1 : 0;
}

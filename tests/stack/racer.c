// SPDX-License-Identifier: GPL-2.0
/*
 * racer: concurrency stress of the user-space interfaces (ib_uverbs,
 * ib_umad) for tests/stack/guest/race.sh, each case a subcommand:
 *
 *   close-read  a thread blocked in read() of umadN, of a context's async
 *               event fd, of a completion channel, while the file goes
 *               away: the context closed (the event files' readers get
 *               EIO), the fd closed and the reader signalled (EINTR), the
 *               process exiting or killed with the reader blocked
 *   hammer      threads creating and destroying verbs objects and using
 *               umad agents while race.sh removes and adds the device:
 *               every call ends, with success or with EIO/ENODEV/ENXIO
 *               (ENOENT when a device node is gone); and reads blocked in
 *               a context's async event fd and completion channel, which
 *               the removal ends with EIO
 *   openclose   threads opening and closing files (reading the r:PATH
 *               ones) while race.sh unloads the modules behind them
 *   double      two threads destroying one uverbs object (QP, SRQ, MW,
 *               MR, CQ, PD) and unregistering one umad agent: exactly one
 *               succeeds, the other gets 6.1's errno (uverbs ENOENT, or
 *               EBUSY while the winner holds it; umad EINVAL)
 *
 * Options: -n N iterations at most, -t SECONDS at most (the first limit
 * reached ends the run), -s FILE ends it once FILE exists (hammer,
 * openclose), -j THREADS.  Prints "racer CASE: N iterations ..." and the
 * outcomes' counts; exits 0 when all was as expected, 1 otherwise, 3 on a
 * hang (a call that did not end within its bound).
 * Sources (facts only): Linux 6.1 drivers/infiniband/core/user_mad.c
 * (ib_umad_read, ib_umad_unreg_agent), uverbs_main.c (ib_uverbs_event_read:
 * EIO once a closed queue is empty), rdma_core.c (lookup_get_idr_uobject:
 * ENOENT; uverbs_try_lock_object: EBUSY).
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include "../../include/uapi/rdma/ib_user_mad.h"

#define MAX_ERRNO 134

static long max_iter = 1000000000L;
static double max_secs = 60;
static const char *stop_file;
static int nthreads = 2;
static double t_start;
static atomic_int bad;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* the run goes on: neither limit reached, no stop file */
static bool go_on(long iter)
{
	if (iter >= max_iter || now() - t_start >= max_secs)
		return false;
	return !stop_file || access(stop_file, F_OK) != 0;
}

static void failf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL racer: ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	atomic_fetch_add(&bad, 1);
}

/* --- outcome tallies: per operation, successes and each errno ------------ */

struct tally {
	const char *op;
	unsigned long long allowed;	/* bit i: errno i is an expected answer */
	atomic_long ok;
	atomic_long err[MAX_ERRNO + 1];
};

#define BIT(e) (1ULL << (e))
/*
 * a device going away: its files answer EIO, a gone port ENODEV, a gone
 * device node ENOENT, an open of a dying one ENXIO
 */
#define GONE (BIT(EIO) | BIT(ENODEV) | BIT(ENXIO))

static void tally(struct tally *t, int ret, int err)
{
	if (ret >= 0) {
		atomic_fetch_add(&t->ok, 1);
		return;
	}
	if (err < 0 || err > MAX_ERRNO)
		err = 0;
	if (atomic_fetch_add(&t->err[err], 1) == 0 &&
	    (err >= 64 || !(t->allowed & BIT(err))))
		failf("%s: unexpected errno %d (%s)", t->op, err, strerror(err));
}

static void tally_print(const char *who, struct tally *t, int n)
{
	int i, e;

	for (i = 0; i < n; i++) {
		printf("racer %s: %s ok %ld", who, t[i].op, atomic_load(&t[i].ok));
		for (e = 0; e <= MAX_ERRNO; e++)
			if (atomic_load(&t[i].err[e]))
				printf(" %s %ld", e ? strerrorname_np(e) : "?",
				       atomic_load(&t[i].err[e]));
		printf("\n");
	}
}

/* --- the device ------------------------------------------------------------ */

/* mlx4_0, opened; NULL (errno set) if it is not there */
static struct ibv_context *open_mlx4(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n, err = ENODEV;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), "mlx4_0")) {
			ctx = ibv_open_device(list[i]);
			err = ctx ? 0 : (errno ? errno : EIO);
			break;
		}
	ibv_free_device_list(list);
	errno = err;
	return ctx;
}

/* /dev/infiniband/umadN of mlx4_0's port 1 into path; false if none */
static bool umad_path(char *path, size_t len)
{
	char f[300], v[64];
	struct dirent *d;
	DIR *dir = opendir("/sys/class/infiniband_mad");
	bool found = false;
	FILE *fp;

	if (!dir)
		return false;
	while (!found && (d = readdir(dir))) {
		if (strncmp(d->d_name, "umad", 4))
			continue;
		snprintf(f, sizeof(f), "/sys/class/infiniband_mad/%s/ibdev", d->d_name);
		fp = fopen(f, "r");
		if (!fp)
			continue;
		if (!fgets(v, sizeof(v), fp) || strcmp(v, "mlx4_0\n")) {
			fclose(fp);
			continue;
		}
		fclose(fp);
		snprintf(f, sizeof(f), "/sys/class/infiniband_mad/%s/port", d->d_name);
		fp = fopen(f, "r");
		if (!fp)
			continue;
		if (fgets(v, sizeof(v), fp) && !strcmp(v, "1\n") && strlen(d->d_name) < 16) {
			snprintf(path, len, "/dev/infiniband/%.15s", d->d_name);
			found = true;
		}
		fclose(fp);
	}
	closedir(dir);
	return found;
}

/* registers a PerfMgt (class 4) agent on QP1; its id, or -1 (errno) */
static int umad_register(int fd)
{
	struct ib_user_mad_reg_req req;

	memset(&req, 0, sizeof(req));
	req.qpn = 1;
	req.mgmt_class = 4;
	req.mgmt_class_version = 1;
	if (ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &req) < 0)
		return -1;
	return req.id;
}

/* --- a reader blocked in read() ---------------------------------------------- */

struct reader {
	int fd;
	pthread_t th;
	atomic_int tid;
	atomic_int done;
	ssize_t ret;
	int err;
};

static void on_usr1(int sig)
{
	(void)sig;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	char buf[512];

	atomic_store(&r->tid, (int)syscall(SYS_gettid));
	r->ret = read(r->fd, buf, sizeof(buf));
	r->err = errno;
	atomic_store(&r->done, 1);
	return NULL;
}

/* the thread is asleep in read() (syscall 0); within 10 s */
static bool blocked_in_read(struct reader *r)
{
	char f[64], s[256];
	double end = now() + 10;
	FILE *fp;

	while (now() < end) {
		int tid = atomic_load(&r->tid);
		bool in_read = false, asleep = false;

		if (atomic_load(&r->done))
			return false;
		if (tid) {
			snprintf(f, sizeof(f), "/proc/self/task/%d/syscall", tid);
			fp = fopen(f, "r");
			if (fp) {
				in_read = fgets(s, sizeof(s), fp) && !strncmp(s, "0 ", 2);
				fclose(fp);
			}
			snprintf(f, sizeof(f), "/proc/self/task/%d/stat", tid);
			fp = fopen(f, "r");
			if (fp) {
				char *p = fgets(s, sizeof(s), fp) ? strrchr(s, ')') : NULL;

				asleep = p && p[1] == ' ' && p[2] == 'S';
				fclose(fp);
			}
		}
		if (in_read && asleep)
			return true;
		sleep_ms(1);
	}
	return false;
}

static bool reader_start(struct reader *r, int fd)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	if (pthread_create(&r->th, NULL, reader_main, r))
		return false;
	return blocked_in_read(r);
}

/* the reader's read() returned within secs */
static bool reader_ended(struct reader *r, double secs)
{
	double end = now() + secs;

	while (!atomic_load(&r->done)) {
		if (now() >= end)
			return false;
		sleep_ms(1);
	}
	pthread_join(r->th, NULL);
	return true;
}

/* --- close-read ------------------------------------------------------------- */

enum { K_UMAD, K_ASYNC, K_COMP, NKINDS };
enum { W_CLOSE, W_EXIT, W_KILL, NWAYS };
static const char *const kind_name[] = { "umad", "async", "comp" };
static const char *const way_name[] = { "close", "exit", "kill" };

/*
 * In a child: the file of kind k opened, a reader blocked in it, then the
 * way: W_CLOSE closes it (the context for async and comp: the reader must
 * get EIO; the umad fd: the reader keeps the file, a signal ends its read
 * with EINTR), W_EXIT exits, W_KILL tells the parent (ready) and waits to
 * be killed.  Exit status 0 if as expected, 10+ what went wrong.
 */
static int close_read_child(int k, int w, int ready)
{
	struct ibv_comp_channel *ch = NULL;
	struct ibv_context *ctx = NULL;
	struct ibv_cq *cq = NULL;
	struct reader r;
	char path[64];
	int fd;

	if (k == K_UMAD) {
		if (!umad_path(path, sizeof(path)))
			return 11;
		fd = open(path, O_RDWR);
		if (fd < 0)
			return 12;
	} else {
		ctx = open_mlx4();
		if (!ctx)
			return 12;
		fd = ctx->async_fd;
		if (k == K_COMP) {
			ch = ibv_create_comp_channel(ctx);
			cq = ch ? ibv_create_cq(ctx, 4, NULL, ch, 0) : NULL;
			if (!cq || ibv_req_notify_cq(cq, 0))
				return 13;
			fd = ch->fd;
		}
	}
	if (!reader_start(&r, fd))
		return 14;
	if (w == W_EXIT)
		_exit(0);
	if (w == W_KILL) {
		if (write(ready, "r", 1) != 1)
			return 15;
		for (;;)
			pause();
	}
	if (k == K_UMAD) {
		close(fd);
		if (reader_ended(&r, 0.2))
			return 16;	/* a close must not end another's read */
		pthread_kill(r.th, SIGUSR1);
		if (!reader_ended(&r, 10))
			return 3;
		return r.ret < 0 && r.err == EINTR ? 0 : 17;
	}
	/*
	 * the context's close: the async file and the channel are closed by
	 * their fds' owner (libibverbs closes the async fd, the channel fd
	 * goes first); the reader holds its file and must see EIO
	 */
	if (k == K_COMP) {
		int chfd = dup(ch->fd);

		if (chfd < 0 || close(ch->fd))
			return 18;
		ch->fd = chfd;
	}
	ibv_close_device(ctx);
	if (!reader_ended(&r, 10))
		return 3;
	if (r.ret < 0 && r.err == EIO)
		return 0;
	fprintf(stderr, "racer close-read %s/close: read gave %zd (%s)\n",
		kind_name[k], r.ret, r.ret < 0 ? strerror(r.err) : "data");
	return 19;
}

/* the child's exit status within secs, or -1 (still running: killed) */
static int reap(pid_t pid, double secs)
{
	double end = now() + secs;
	int st;

	for (;;) {
		pid_t p = waitpid(pid, &st, WNOHANG);

		if (p == pid)
			return st;
		if (p < 0)
			return -2;
		if (now() >= end)
			break;
		sleep_ms(2);
	}
	{
		char f[64], line[256];
		FILE *fp;

		printf("racer: child %d did not end within %.0f s; its stack:\n", pid, secs);
		snprintf(f, sizeof(f), "/proc/%d/stack", pid);
		fp = fopen(f, "r");
		while (fp && fgets(line, sizeof(line), fp))
			printf("    %s", line);
		if (fp)
			fclose(fp);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

/* the child of way w ended as it should: killed, or exited with 0 */
static bool child_ok(int w, int st)
{
	if (w == W_KILL)
		return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int close_read(void)
{
	long n[NKINDS][NWAYS] = {{0}}, iter;
	int k, w, hangs = 0;

	for (iter = 0; go_on(iter); iter++) {
		for (k = 0; k < NKINDS; k++) {
			for (w = 0; w < NWAYS; w++) {
				int pfd[2], st;
				char c;
				pid_t pid;

				if (pipe(pfd))
					return 1;
				pid = fork();
				if (pid == 0) {
					close(pfd[0]);
					_exit(close_read_child(k, w, pfd[1]));
				}
				close(pfd[1]);
				if (w == W_KILL) {
					struct timeval tv = { 15, 0 };
					fd_set rs;

					FD_ZERO(&rs);
					FD_SET(pfd[0], &rs);
					/* ready, or the child ended early */
					if (select(pfd[0] + 1, &rs, NULL, NULL, &tv) > 0 &&
					    read(pfd[0], &c, 1) == 1)
						kill(pid, SIGKILL);
				}
				close(pfd[0]);
				st = reap(pid, 20);
				if (st == -1) {
					failf("close-read %s/%s: the child hung (iteration %ld)",
					      kind_name[k], way_name[w], iter);
					hangs++;
				} else if (!child_ok(w, st)) {
					failf("close-read %s/%s: child status 0x%x (round %ld)",
					      kind_name[k], way_name[w], st, iter);
				} else {
					n[k][w]++;
				}
				if (atomic_load(&bad) > 20 || hangs)
					goto out;
			}
		}
	}
out:
	printf("racer close-read: %ld iterations in %.0f s\n", iter, now() - t_start);
	for (k = 0; k < NKINDS; k++)
		printf("racer close-read: %s: close %ld exit %ld kill %ld as expected\n",
		       kind_name[k], n[k][W_CLOSE], n[k][W_EXIT], n[k][W_KILL]);
	if (hangs)
		return 3;
	return atomic_load(&bad) || !iter ? 1 : 0;
}

/* --- hammer ------------------------------------------------------------------ */

enum { H_OPEN, H_PD, H_CQ, H_QP, H_MODQP, H_MR, H_QPORT, H_DESTROY, H_CLOSE,
	U_OPEN, U_REG, U_WRITE, U_READ, U_UNREG, E_ASYNC, E_COMP, NH };
static struct tally ht[NH] = {
	[H_OPEN] = { "ibv_open_device", GONE | BIT(ENOENT) },
	[H_PD] = { "alloc_pd", GONE },
	[H_CQ] = { "create_cq", GONE },
	[H_QP] = { "create_qp", GONE },
	[H_MODQP] = { "modify_qp", GONE },
	[H_MR] = { "reg_mr", GONE },
	[H_QPORT] = { "query_port", GONE },
	[H_DESTROY] = { "destroy", GONE },
	[H_CLOSE] = { "close_device", 0 },
	[U_OPEN] = { "umad open", GONE | BIT(ENOENT) },
	/* a gone device: 6.1's REGISTER answers EPIPE */
	[U_REG] = { "umad register", GONE | BIT(EPIPE) },
	[U_WRITE] = { "umad write", GONE },
	[U_READ] = { "umad read", GONE | BIT(EAGAIN) },
	[U_UNREG] = { "umad unregister", GONE | BIT(EINVAL) },
	/* a blocked read's end: the device gone or the context closed, EIO */
	[E_ASYNC] = { "blocked async read", BIT(EIO) },
	[E_COMP] = { "blocked comp read", BIT(EIO) },
};

static atomic_long h_rounds, h_full;

/* a QP of this type on cq, 4 work requests of one entry each way */
static struct ibv_qp *new_qp(struct ibv_pd *pd, struct ibv_cq *cq, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &qa);
}

/* rc: a verb's return (0 ok, else errno) into its tally; true if ok */
static bool vt(int op, int rc)
{
	tally(&ht[op], rc ? -1 : 0, rc);
	return rc == 0;
}

static bool vp(int op, void *p)
{
	tally(&ht[op], p ? 0 : -1, errno);
	return p;
}

static void *hammer_verbs(void *arg)
{
	static char buf[1 << 16];
	struct ibv_context *ctx = NULL;
	long iter;

	(void)arg;
	for (iter = 0; go_on(0); iter++) {
		struct ibv_qp_attr ma;
		struct ibv_port_attr pa;
		struct ibv_pd *pd = NULL;
		struct ibv_cq *cq = NULL;
		struct ibv_qp *qp = NULL;
		struct ibv_mr *mr = NULL;
		bool gone = false;

		if (!ctx) {
			ctx = open_mlx4();
			if (!vp(H_OPEN, ctx)) {
				sleep_ms(20);	/* the device is away: look again */
				continue;
			}
		}
		atomic_fetch_add(&h_rounds, 1);
		gone |= !vt(H_QPORT, ibv_query_port(ctx, 1, &pa));
		pd = ibv_alloc_pd(ctx);
		gone |= !vp(H_PD, pd);
		cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		gone |= !vp(H_CQ, cq);
		if (pd && cq) {
			qp = new_qp(pd, cq, (iter & 1) ? IBV_QPT_UD : IBV_QPT_RC);
			gone |= !vp(H_QP, qp);
		}
		if (qp) {
			memset(&ma, 0, sizeof(ma));
			ma.qp_state = IBV_QPS_INIT;
			ma.port_num = 1;
			if (qp->qp_type == IBV_QPT_UD) {
				ma.qkey = 0x11111111;
				gone |= !vt(H_MODQP, ibv_modify_qp(qp, &ma, IBV_QP_STATE |
						IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY));
			} else {
				ma.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
				gone |= !vt(H_MODQP, ibv_modify_qp(qp, &ma, IBV_QP_STATE |
						IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						IBV_QP_ACCESS_FLAGS));
			}
		}
		if (pd) {
			mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
			gone |= !vp(H_MR, mr);
		}
		if (qp)
			gone |= !vt(H_DESTROY, ibv_destroy_qp(qp));
		if (mr)
			gone |= !vt(H_DESTROY, ibv_dereg_mr(mr));
		if (cq)
			gone |= !vt(H_DESTROY, ibv_destroy_cq(cq));
		if (pd)
			gone |= !vt(H_DESTROY, ibv_dealloc_pd(pd));
		if (!gone) {
			atomic_fetch_add(&h_full, 1);
			continue;
		}
		/* the device went away: this context is done */
		vt(H_CLOSE, ibv_close_device(ctx));
		ctx = NULL;
	}
	if (ctx)
		vt(H_CLOSE, ibv_close_device(ctx));
	return NULL;
}

static void *hammer_umad(void *arg)
{
	struct ib_user_mad *um;
	char path[64], buf[256 + 64];
	int fd = -1, id = -1;

	(void)arg;
	um = calloc(1, sizeof(*um) + 256);
	if (!um)
		return NULL;
	while (go_on(0)) {
		ssize_t n;

		if (fd < 0) {
			if (!umad_path(path, sizeof(path))) {
				sleep_ms(20);
				continue;
			}
			fd = open(path, O_RDWR | O_NONBLOCK);
			tally(&ht[U_OPEN], fd, errno);
			if (fd < 0) {
				sleep_ms(20);
				continue;
			}
			/* the 64-byte header of struct ib_user_mad */
			if (ioctl(fd, IB_USER_MAD_ENABLE_PKEY) < 0)
				tally(&ht[U_REG], -1, errno);
		}
		id = umad_register(fd);
		tally(&ht[U_REG], id, errno);
		if (id >= 0) {
			/* a PerfMgt Get(ClassPortInfo) to LID 1, no response awaited */
			memset(um, 0, sizeof(*um) + 256);
			um->hdr.id = id;
			um->hdr.lid = htons(1);
			um->hdr.qpn = htonl(1);
			um->hdr.qkey = htonl(0x80010000);
			um->data[0] = 1;	/* base version */
			um->data[1] = 4;	/* class */
			um->data[2] = 1;	/* class version */
			um->data[3] = 1;	/* Get */
			um->data[17] = 1;	/* attribute ClassPortInfo, 0x0001 */
			n = write(fd, um, sizeof(*um) + 256);
			tally(&ht[U_WRITE], n < 0 ? -1 : 0, errno);
			n = read(fd, buf, sizeof(buf));
			tally(&ht[U_READ], n < 0 ? -1 : 0, errno);
			n = ioctl(fd, IB_USER_MAD_UNREGISTER_AGENT, &id);
			tally(&ht[U_UNREG], n < 0 ? -1 : 0, errno);
		}
		if (id < 0 || n < 0) {
			if (close(fd))
				failf("umad close: %s", strerror(errno));
			fd = -1;
		}
	}
	if (fd >= 0 && close(fd))
		failf("umad close: %s", strerror(errno));
	free(um);
	return NULL;
}

/* every thread of this process: its state, syscall and kernel stack */
static void dump_tasks(void)
{
	char f[300], line[256];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/task");
	FILE *fp;

	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		printf("racer: task %s:", d->d_name);
		snprintf(f, sizeof(f), "/proc/self/task/%s/syscall", d->d_name);
		fp = fopen(f, "r");
		if (fp && fgets(line, sizeof(line), fp))
			printf(" syscall %s", line);
		else
			printf("\n");
		if (fp)
			fclose(fp);
		snprintf(f, sizeof(f), "/proc/self/task/%s/stack", d->d_name);
		fp = fopen(f, "r");
		while (fp && fgets(line, sizeof(line), fp))
			printf("    %s", line);
		if (fp)
			fclose(fp);
	}
	if (dir)
		closedir(dir);
	fflush(stdout);
}

/* once the run is over, the threads' join within 60 s, else a hang (exit 3) */
static void join_all(pthread_t *th, int n)
{
	struct timespec ts;
	int i;

	while (go_on(0))
		sleep_ms(50);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 60;
	for (i = 0; i < n; i++)
		if (pthread_timedjoin_np(th[i], NULL, &ts)) {
			printf("FAIL racer: thread %d still running 60 s after the end\n", i);
			dump_tasks();
			_exit(3);
		}
}

/* reads events until an error: counts the events, then the error */
static void *ev_reader_main(void *arg)
{
	struct reader *r = arg;
	char buf[64];
	int op = r->ret ? E_COMP : E_ASYNC;

	atomic_store(&r->tid, (int)syscall(SYS_gettid));
	for (;;) {
		ssize_t n = read(r->fd, buf, sizeof(buf));

		tally(&ht[op], n < 0 ? -1 : 0, errno);
		if (n < 0)
			break;
	}
	atomic_store(&r->done, 1);
	return NULL;
}

/*
 * A context with a reader blocked in its async event fd and one in a
 * completion channel (an armed CQ's): the device's removal must end both
 * reads (after the async file's DEVICE_FATAL) with EIO; at the run's end
 * the context's close must.  Then a new context, once the device is back.
 */
static void *hammer_events(void *arg)
{
	(void)arg;
	while (go_on(0)) {
		struct ibv_context *ctx = open_mlx4();
		struct ibv_comp_channel *ch;
		struct reader r[2];
		struct ibv_cq *cq;
		int i;

		if (!ctx) {
			sleep_ms(20);
			continue;
		}
		ch = ibv_create_comp_channel(ctx);
		cq = ch ? ibv_create_cq(ctx, 4, NULL, ch, 0) : NULL;
		if (!cq || ibv_req_notify_cq(cq, 0)) {
			/* the device went before the reads began */
			ibv_close_device(ctx);
			continue;
		}
		memset(r, 0, sizeof(r));
		r[0].fd = ctx->async_fd;
		r[1].fd = ch->fd;
		r[1].ret = 1;	/* the channel's */
		for (i = 0; i < 2; i++)
			pthread_create(&r[i].th, NULL, ev_reader_main, &r[i]);
		while (go_on(0) && !(atomic_load(&r[0].done) && atomic_load(&r[1].done)))
			sleep_ms(20);
		ibv_close_device(ctx);
		for (i = 0; i < 2; i++)
			if (!reader_ended(&r[i], 10)) {
				failf("a read blocked in the %s file did not end within 10 s",
				      i ? "completion channel's" : "async event");
				dump_tasks();
				_exit(3);
			}
	}
	return NULL;
}

static int hammer(void)
{
	pthread_t th[64];
	int i, n = nthreads < 62 ? nthreads : 62;

	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, hammer_verbs, NULL);
	pthread_create(&th[n], NULL, hammer_umad, NULL);
	pthread_create(&th[n + 1], NULL, hammer_events, NULL);
	join_all(th, n + 2);
	printf("racer %s: %ld verbs rounds (%ld complete) by %d threads in %.0f s\n", "hammer",
	       atomic_load(&h_rounds), atomic_load(&h_full), n, now() - t_start);
	tally_print("hammer", ht, NH);
	return atomic_load(&bad) || !atomic_load(&h_full) || !atomic_load(&ht[U_REG].ok) ||
	       !atomic_load(&ht[E_ASYNC].err[EIO]) || !atomic_load(&ht[E_COMP].err[EIO]);
}

/* --- openclose ---------------------------------------------------------------- */

static char **oc_paths;
static int oc_npaths;
static struct tally *oc_t;
static atomic_long oc_n;

static void *openclose_main(void *arg)
{
	long seed = (long)arg;
	char buf[4096];

	while (go_on(0)) {
		int i = (int)(seed++ % oc_npaths), fd;
		const char *p = oc_paths[i];
		bool rd = !strncmp(p, "r:", 2);

		fd = open(rd ? p + 2 : p, O_RDONLY | O_NONBLOCK);
		tally(&oc_t[i], fd, errno);
		if (fd < 0) {
			sleep_ms(5);
			continue;
		}
		if (rd && read(fd, buf, sizeof(buf)) < 0)
			tally(&oc_t[i], -1, errno);
		if (close(fd))
			failf("close %s: %s", p, strerror(errno));
		atomic_fetch_add(&oc_n, 1);
	}
	return NULL;
}

static int openclose(int argc, char **argv)
{
	pthread_t th[64];
	int i, n = nthreads < 64 ? nthreads : 64;

	oc_paths = argv;
	oc_npaths = argc;
	oc_t = calloc(argc, sizeof(*oc_t));
	if (!argc || !oc_t)
		return 2;
	for (i = 0; i < argc; i++) {
		const char *base = strrchr(argv[i], '/');

		oc_t[i].op = argv[i];
		/* a file whose module is away: gone, or not (yet) there */
		oc_t[i].allowed = GONE | BIT(ENOENT);
		/*
		 * the net core's own attributes of a netdev being unregistered
		 * answer EINVAL (6.1 net-sysfs.c, netdev_show: !dev_isalive)
		 */
		if (strstr(argv[i], "/sys/class/net/") && base && !strcmp(base, "/mtu"))
			oc_t[i].allowed |= BIT(EINVAL);
	}
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, openclose_main, (void *)(long)i);
	join_all(th, n);
	printf("racer %s: %ld opens and closes by %d threads in %.0f s\n", "openclose",
	       atomic_load(&oc_n), n, now() - t_start);
	tally_print("openclose", oc_t, argc);
	return atomic_load(&bad) || !atomic_load(&oc_n);
}

/* --- double destroy ------------------------------------------------------------ */

static pthread_barrier_t dd_bar;
static int dd_fd;
static const void *dd_cmd;	/* a uverbs command to write, or */
static __u32 *dd_agent;		/* a umad agent id to unregister */
static size_t dd_len;
static bool dd_quit;
static int dd_ret[2], dd_err[2];

static void *dd_main(void *arg)
{
	int i = (int)(long)arg;

	for (;;) {
		pthread_barrier_wait(&dd_bar);
		if (dd_quit)
			return NULL;
		if (dd_cmd)
			dd_ret[i] = (int)write(dd_fd, dd_cmd, dd_len);
		else
			dd_ret[i] = ioctl(dd_fd, IB_USER_MAD_UNREGISTER_AGENT, dd_agent);
		dd_err[i] = errno;
		pthread_barrier_wait(&dd_bar);
	}
}

enum { D_QP, D_SRQ, D_MW, D_MR, D_CQ, D_PD, D_UMAD, ND };
static const char *const d_name[] = { "qp", "srq", "mw", "mr", "cq", "pd", "umad-agent" };
static long d_ok[ND], d_busy[ND], d_noent[ND];

/* both threads send the command; exactly one may succeed */
static void dd_race(int k, int fd, const void *cmd, size_t len, __u32 *agent)
{
	int i, wins = 0;

	dd_fd = fd;
	dd_cmd = cmd;
	dd_len = len;
	dd_agent = agent;
	pthread_barrier_wait(&dd_bar);
	pthread_barrier_wait(&dd_bar);
	for (i = 0; i < 2; i++) {
		if (dd_ret[i] >= 0) {
			wins++;
			continue;
		}
		if (k == D_UMAD ? dd_err[i] == EINVAL : dd_err[i] == ENOENT)
			d_noent[k]++;
		else if (k != D_UMAD && dd_err[i] == EBUSY)
			d_busy[k]++;
		else
			failf("double %s: the loser got %s", d_name[k], strerror(dd_err[i]));
	}
	if (wins == 1)
		d_ok[k]++;
	else
		failf("double %s: %d of the two destroys succeeded", d_name[k], wins);
}

struct dcmd {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct ib_uverbs_destroy_qp qp;
		struct ib_uverbs_destroy_srq srq;
		struct ib_uverbs_destroy_cq cq;
		struct ib_uverbs_dereg_mr mr;
		struct ib_uverbs_dealloc_mw mw;
		struct ib_uverbs_dealloc_pd pd;
	};
};

/* the legacy write command of kind k on handle h, its response in resp */
static size_t dd_build(struct dcmd *c, int k, __u32 h, void *resp)
{
	static const struct { __u32 cmd, len, out; } t[] = {
		[D_QP] = { IB_USER_VERBS_CMD_DESTROY_QP, sizeof(struct ib_uverbs_destroy_qp),
			   sizeof(struct ib_uverbs_destroy_qp_resp) },
		[D_SRQ] = { IB_USER_VERBS_CMD_DESTROY_SRQ, sizeof(struct ib_uverbs_destroy_srq),
			    sizeof(struct ib_uverbs_destroy_srq_resp) },
		[D_MW] = { IB_USER_VERBS_CMD_DEALLOC_MW, sizeof(struct ib_uverbs_dealloc_mw), 0 },
		[D_MR] = { IB_USER_VERBS_CMD_DEREG_MR, sizeof(struct ib_uverbs_dereg_mr), 0 },
		[D_CQ] = { IB_USER_VERBS_CMD_DESTROY_CQ, sizeof(struct ib_uverbs_destroy_cq),
			   sizeof(struct ib_uverbs_destroy_cq_resp) },
		[D_PD] = { IB_USER_VERBS_CMD_DEALLOC_PD, sizeof(struct ib_uverbs_dealloc_pd), 0 },
	};
	__u64 r = (__u64)(unsigned long)resp;

	memset(c, 0, sizeof(*c));
	c->hdr.command = t[k].cmd;
	c->hdr.in_words = (sizeof(c->hdr) + t[k].len) / 4;
	c->hdr.out_words = t[k].out / 4;
	/* every destroy request: the response (if any) first, then the handle */
	static_assert(offsetof(struct ib_uverbs_destroy_qp, qp_handle) == 8 &&
		      offsetof(struct ib_uverbs_destroy_srq, srq_handle) == 8 &&
		      offsetof(struct ib_uverbs_destroy_cq, cq_handle) == 8, "layout");
	if (t[k].out) {
		memcpy(&c->qp, &r, sizeof(r));
		memcpy((char *)&c->qp + sizeof(r), &h, sizeof(h));
	} else {
		memcpy(&c->qp, &h, sizeof(h));
	}
	return sizeof(c->hdr) + t[k].len;
}

/*
 * One child's rounds (its objects' user-space halves leak: the kernel's
 * are destroyed under them; the child's exit frees them): false on a
 * failed creation
 */
static bool dd_round(struct ibv_context *ctx, int ufd, char *buf)
{
	struct ibv_srq_init_attr sa;
	__u32 h[ND];
	struct dcmd c;
	__u64 resp[2];
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	struct ibv_mr *mr = pd ? ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct ibv_mw *mw = pd ? ibv_alloc_mw(pd, IBV_MW_TYPE_1) : NULL;
	struct ibv_srq *srq;
	struct ibv_qp *qp = NULL;
	int k, id;

	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 4;
	sa.attr.max_sge = 1;
	srq = pd ? ibv_create_srq(pd, &sa) : NULL;
	if (pd && cq)
		qp = new_qp(pd, cq, IBV_QPT_RC);
	id = umad_register(ufd);
	if (!pd || !cq || !mr || !mw || !srq || !qp || id < 0) {
		failf("double: create: pd %p cq %p mr %p mw %p srq %p qp %p agent %d: %s",
		      (void *)pd, (void *)cq, (void *)mr, (void *)mw, (void *)srq, (void *)qp, id,
		      strerror(errno));
		return false;
	}
	h[D_QP] = qp->handle;
	h[D_SRQ] = srq->handle;
	h[D_MW] = mw->handle;
	h[D_MR] = mr->handle;
	h[D_CQ] = cq->handle;
	h[D_PD] = pd->handle;
	/* the order a PD's users need: they go first */
	for (k = 0; k < D_UMAD; k++)
		dd_race(k, ctx->cmd_fd, &c, dd_build(&c, k, h[k], resp), NULL);
	h[D_UMAD] = id;
	dd_race(D_UMAD, ufd, NULL, 0, &h[D_UMAD]);
	return true;
}

/* a child: up to 100 rounds on one context; exit 0, or 1 on a failure */
static int dd_child(long *iter)
{
	char *buf = aligned_alloc(4096, 4096);
	struct ibv_context *ctx = open_mlx4();
	pthread_t th[2];
	char path[64];
	long n0 = *iter;
	int ufd = -1, i, n;

	if (buf && ctx && umad_path(path, sizeof(path)))
		ufd = open(path, O_RDWR);
	if (ufd < 0 || ioctl(ufd, IB_USER_MAD_ENABLE_PKEY) < 0) {
		failf("double: open mlx4_0 and its umad: %s", strerror(errno));
		return 1;
	}
	pthread_barrier_init(&dd_bar, NULL, 3);
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, dd_main, (void *)(long)i);
	for (n = 0; n < 100 && go_on(*iter) && atomic_load(&bad) < 20; n++, (*iter)++)
		if (!dd_round(ctx, ufd, buf))
			break;
	dd_quit = true;
	pthread_barrier_wait(&dd_bar);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	close(ufd);
	ibv_close_device(ctx);
	printf("racer double: rounds %ld\n", *iter - n0);
	for (i = 0; i < ND; i++)
		printf("racer double: %s %ld %ld %ld\n", d_name[i], d_ok[i], d_noent[i], d_busy[i]);
	fflush(stdout);
	return atomic_load(&bad) ? 1 : 0;
}

/*
 * The rounds, a child process per 100 (what each leaks goes with it); the
 * children's counts come back on their stdout, a pipe
 */
static int double_destroy(void)
{
	long tot[ND][3] = {{0}}, iter = 0, failed = 0, hung = 0;
	int i;

	while (go_on(iter) && !failed && !hung) {
		int pfd[2], st;
		pid_t pid;
		FILE *fp;
		char line[256], name[32];
		long a, b, c;

		if (pipe(pfd))
			return 1;
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			close(pfd[0]);
			dup2(pfd[1], 1);
			_exit(dd_child(&iter));
		}
		close(pfd[1]);
		fp = fdopen(pfd[0], "r");
		while (fp && fgets(line, sizeof(line), fp)) {
			if (sscanf(line, "racer double: rounds %ld", &a) == 1) {
				iter += a;
				continue;
			}
			if (sscanf(line, "racer double: %31s %ld %ld %ld", name, &a, &b, &c) != 4) {
				fputs(line, stdout);	/* the child's FAIL lines */
				continue;
			}
			for (i = 0; i < ND; i++)
				if (!strcmp(name, d_name[i])) {
					tot[i][0] += a;
					tot[i][1] += b;
					tot[i][2] += c;
				}
		}
		if (fp)
			fclose(fp);
		st = reap(pid, 60);
		if (st == -1)
			hung = 1;
		else if (!WIFEXITED(st) || WEXITSTATUS(st))
			failed = 1;
	}
	printf("racer double: %ld iterations in %.0f s\n", iter, now() - t_start);
	for (i = 0; i < ND; i++)
		printf("racer double: %s: one won %ld times; the other: %s %ld, EBUSY %ld\n",
		       d_name[i], tot[i][0], i == D_UMAD ? "EINVAL" : "ENOENT", tot[i][1],
		       tot[i][2]);
	if (hung) {
		printf("FAIL racer: double: a child hung\n");
		return 3;
	}
	if (failed)
		printf("FAIL racer: double: a child failed\n");
	for (i = 0; i < ND; i++)
		if (tot[i][0] != iter)
			failed = 1;
	return failed || !iter;
}

/* --- main ------------------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "%s\n",
		"racer [-n N] [-t SECONDS] [-s STOPFILE] [-j THREADS] close-read|hammer|double|openclose [[r:]PATH...]");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	int c, ret;

	while ((c = getopt(argc, argv, "n:t:s:j:")) != -1) {
		switch (c) {
		case 'n':
			max_iter = atol(optarg);
			break;
		case 't':
			max_secs = atof(optarg);
			break;
		case 's':
			stop_file = optarg;
			break;
		case 'j':
			nthreads = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind >= argc || max_iter < 1 || max_secs <= 0 || nthreads < 1)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;	/* no SA_RESTART: a read ends with EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	t_start = now();
	if (!strcmp(argv[optind], "close-read"))
		ret = close_read();
	else if (!strcmp(argv[optind], "hammer"))
		ret = hammer();
	else if (!strcmp(argv[optind], "double"))
		ret = double_destroy();
	else if (!strcmp(argv[optind], "openclose"))
		ret = openclose(argc - optind - 1, argv + optind + 1);
	else
		usage();
	printf("racer %s: %s\n", argv[optind], ret ? "FAILED" : "done");
	return ret;
}

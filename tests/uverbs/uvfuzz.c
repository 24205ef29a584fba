// SPDX-License-Identifier: GPL-2.0
/*
 * uvfuzz: a fuzzer of /dev/infiniband/uverbsN.  Threads (-t, default 2)
 * share two files of the device, keep a model of each file's live objects
 * (PD, MR, MW, CQ, QP, SRQ, AH, XRCD, completion channels) and choose
 * operations at random: creates with good, odd and mutated attributes,
 * handles that are good, stale, of another type or of the other file,
 * destroys (twice, in use), QP state changes, queries, the commands that
 * mlx4 leaves to user space, mutated framing; the second file is closed
 * and opened again in between, a forked child writes on both files.  Each
 * result must be one Linux 6.1 can give for the command (uvfuzz_cmd.c),
 * and the one the model predicts where it can (uvfuzz_ops.c); responses
 * end at a guard page.  At the end everything is closed and the device's
 * object counts (rdma res) must be as before.
 *
 *   uvfuzz [-n COUNT] [-s SEED] [-t THREADS] [-d DEV] [-v]
 *
 * Prints "uvfuzz: N operations, seed S: PASS", or FAIL lines (with the
 * seed, thread and operation number) and exit status 1.  With -t 1 a run
 * is replayed exactly by its seed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "uvfuzz.h"

struct ufile files[2];
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
uint64_t seed;
bool verbose;
char *arena, *ro_page, *none_page, *hole_page;
unsigned int num_comp_vectors = 1, max_cqe, max_qp_wr, max_sge, max_srq_wr;
uint16_t port_lid[3];
int nports;
const char *devpath = "/dev/infiniband/uverbs0";

static unsigned long count = 100000, n_fail;
static unsigned long opcount;
static volatile int stop;
int nthreads = 2;
static struct th *ths;

/* xorshift64*: reproducible from the seed */
uint32_t rnd(struct th *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return (uint32_t)((t->rng * 2685821657736338717ULL) >> 32);
}

uint32_t below(struct th *t, uint32_t n)
{
	return n ? rnd(t) % n : 0;
}

bool chance(struct th *t, unsigned int one_in)
{
	return below(t, one_in) == 0;
}

void fail(struct th *t, const char *fmt, ...)
{
	static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;
	va_list ap;

	pthread_mutex_lock(&out);
	printf("FAIL uvfuzz: seed %llu, thread %d, operation %lu: ",
	       (unsigned long long)seed, t ? t->id : -1, t ? t->opno : 0);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	/* -v: go on after 20 failures (to see them all) */
	if (++n_fail >= 20 && !verbose)
		stop = 1;
	pthread_mutex_unlock(&out);
}

/* the summary: per command, how many of each result */
static struct {
	char name[24];
	unsigned long n[192];
} stats[64];
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

void note(const char *cmd, int e)
{
	int i;

	if (e < 0 || e >= 192)
		e = 191;
	pthread_mutex_lock(&stats_lock);
	for (i = 0; i < 64 && stats[i].name[0]; i++)
		if (!strcmp(stats[i].name, cmd))
			break;
	if (i < 64) {
		if (!stats[i].name[0])
			snprintf(stats[i].name, sizeof(stats[i].name), "%s", cmd);
		stats[i].n[e]++;
	}
	pthread_mutex_unlock(&stats_lock);
}

static void summary(void)
{
	for (int i = 0; i < 64 && stats[i].name[0]; i++) {
		printf("uvfuzz: %-20s", stats[i].name);
		for (int e = 0; e < 192; e++)
			if (stats[i].n[e])
				printf(" %s %lu", ename(e), stats[i].n[e]);
		printf("\n");
	}
}

static void *map(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

/* the device's limits, through file 0 (already with its context) */
static int device_limits(void)
{
	struct ib_uverbs_query_device_resp d;
	struct ib_uverbs_query_port_resp p;
	struct ib_uverbs_query_device qd = { .response = (uintptr_t)&d };
	struct ib_uverbs_query_port qp = { .response = (uintptr_t)&p };
	struct { struct ib_uverbs_cmd_hdr h; char b[64]; } w;

	memset(&d, 0, sizeof(d));
	w.h = (struct ib_uverbs_cmd_hdr){ IB_USER_VERBS_CMD_QUERY_DEVICE,
		(8 + sizeof(qd)) / 4, sizeof(d) / 4 };
	memcpy(w.b, &qd, sizeof(qd));
	if (write(files[0].fd, &w, 8 + sizeof(qd)) < 0)
		return -1;
	max_cqe = d.max_cqe;
	max_qp_wr = d.max_qp_wr;
	max_sge = d.max_sge;
	max_srq_wr = d.max_srq_wr;
	nports = d.phys_port_cnt;
	for (int i = 1; i <= nports && i <= 2; i++) {
		qp.port_num = i;
		w.h = (struct ib_uverbs_cmd_hdr){ IB_USER_VERBS_CMD_QUERY_PORT,
			(8 + sizeof(qp)) / 4, sizeof(p) / 4 };
		memcpy(w.b, &qp, sizeof(qp));
		if (write(files[0].fd, &w, 8 + sizeof(qp)) < 0)
			return -1;
		port_lid[i] = p.lid;
	}
	printf("uvfuzz: %s: max_cqe %u, max_qp_wr %u, max_sge %u, max_srq_wr %u, %d ports, lids %u %u, %u vectors\n",
	       devpath, max_cqe, max_qp_wr, max_sge, max_srq_wr, nports,
	       port_lid[1], port_lid[2], num_comp_vectors);
	return 0;
}

/* the device's object counts, "rdma res show"'s line of it, or "" */
static void res_counts(char *buf, size_t len)
{
	char dev[64] = "", path[256], line[512];
	FILE *p;
	int n;

	buf[0] = 0;
	/* the device's name through the uverbs class device */
	snprintf(path, sizeof(path), "/sys/class/infiniband_verbs/%s/ibdev",
		 strrchr(devpath, '/') + 1);
	p = fopen(path, "r");
	if (!p)
		return;
	n = fscanf(p, "%63s", dev);
	fclose(p);
	if (n != 1)
		return;
	p = popen("rdma res show 2>/dev/null", "r");
	if (!p)
		return;
	while (fgets(line, sizeof(line), p)) {
		char *s = strstr(line, dev);

		if (s && s[strlen(dev)] == ':') {
			snprintf(buf, len, "%s", s);
			buf[strcspn(buf, "\n")] = 0;
		}
	}
	pclose(p);
}

static void *worker(void *arg)
{
	struct th *t = arg;

	while (!stop) {
		unsigned long n = __atomic_add_fetch(&opcount, 1, __ATOMIC_RELAXED);

		if (n > count)
			break;
		t->opno = n;
		run_op(t);
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: uvfuzz [-n COUNT] [-s SEED] [-t THREADS] [-d /dev/infiniband/uverbsN] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	char before[512], after[512];
	unsigned long last = 0;
	int opt, idle = 0, hang = 120, e;

	seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((opt = getopt(argc, argv, "n:s:t:d:vh")) != -1) {
		switch (opt) {
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 't': nthreads = atoi(optarg); break;
		case 'd': devpath = optarg; break;
		case 'v': verbose = true; break;
		default: usage();
		}
	}
	if (nthreads < 1 || nthreads > 16)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("uvfuzz: seed %llu, %lu operations, %d threads, %s\n",
	       (unsigned long long)seed, count, nthreads, devpath);

	arena = map(ARENA, PROT_READ | PROT_WRITE);
	memset(arena, 0, ARENA);
	ro_page = map(2 * PAGE, PROT_READ);
	none_page = map(2 * PAGE, PROT_NONE);
	/*
	 * Nothing mapped: an address far below where mmap() places things
	 * (a page unmapped among ours was seen mapped again by the run)
	 */
	hole_page = (char *)0x100000000000ull;
	if (msync(hole_page, PAGE, MS_ASYNC) == 0 || errno != ENOMEM) {
		printf("FAIL uvfuzz: %p is mapped: no hole for the tests\n", (void *)hole_page);
		return 1;
	}

	res_counts(before, sizeof(before));
	files[1].fd = -1;
	file_open(&files[0], true);
	if (files[0].fd < 0 || !files[0].ctx) {
		printf("FAIL uvfuzz: %s: open and GET_CONTEXT: %s\n", devpath,
		       strerror(errno));
		return 1;
	}
	if (device_limits()) {
		printf("FAIL uvfuzz: QUERY_DEVICE/QUERY_PORT: %s\n", strerror(errno));
		return 1;
	}
	file_open(&files[1], true);
	e = ioctl_probe(files[0].fd);
	if (ioctl_mode < 0) {
		printf("FAIL uvfuzz: RDMA_VERBS_IOCTL with a bad length: %s, expected ENOTTY (no handler) or EINVAL\n",
		       ename(e));
		return 1;
	}
	printf("uvfuzz: ioctl: %s\n", ioctl_mode ? "RDMA_VERBS_IOCTL (6.1's checks)" :
	       "no handler (ENOTTY for every ioctl)");

	ths = calloc(nthreads, sizeof(*ths));
	for (int i = 0; i < nthreads; i++) {
		struct th *t = &ths[i];
		char *r;

		t->id = i;
		t->rng = (seed ? seed : 1) + 0x9e3779b97f4a7c15ull * i;
		t->wbuf = map(64 * 1024, PROT_READ | PROT_WRITE);
		/* the response page, then a guard page */
		r = map(2 * PAGE, PROT_READ | PROT_WRITE);
		mprotect(r + PAGE, PAGE, PROT_NONE);
		t->resp = (unsigned char *)r;
		t->what = "start";
		if (pthread_create(&t->pt, NULL, worker, t)) {
			perror("pthread_create");
			return 2;
		}
	}
	/* the watchdog: every thread must finish an operation now and then */
	for (;;) {
		unsigned long done = __atomic_load_n(&opcount, __ATOMIC_RELAXED);
		int alive = 0;

		for (int i = 0; i < nthreads; i++) {
			if (!ths[i].joined && pthread_tryjoin_np(ths[i].pt, NULL) != EBUSY)
				ths[i].joined = true;
			alive += !ths[i].joined;
		}
		if (!alive)
			break;
		if (done != last) {
			last = done;
			idle = 0;
		} else if (++idle >= hang) {
			for (int i = 0; i < nthreads; i++)
				printf("FAIL uvfuzz: seed %llu: hang: thread %d in operation %lu (%s) for %d s\n",
				       (unsigned long long)seed, i, ths[i].opno,
				       (const char *)ths[i].what, hang);
			fflush(stdout);
			_exit(1);
		}
		sleep(1);
	}
	if (count > opcount)
		count = opcount;

	pthread_mutex_lock(&lock);
	file_close(&files[0]);
	file_close(&files[1]);
	pthread_mutex_unlock(&lock);
	while (waitpid(-1, NULL, 0) > 0)
		;
	summary();
	if (before[0]) {
		/* the release is synchronous, but give a slow VM a moment */
		for (int i = 0; i < 50; i++) {
			res_counts(after, sizeof(after));
			if (!strcmp(before, after))
				break;
			usleep(100000);
		}
		if (strcmp(before, after))
			fail(NULL, "the device's objects after the run: '%s', before: '%s'",
			     after, before);
		else
			printf("uvfuzz: objects as before the run: %s\n", after);
	} else {
		printf("uvfuzz: no rdma res counts for %s: objects not compared\n",
		       devpath);
	}
	printf("uvfuzz: %lu operations, seed %llu: %s\n", count > opcount ? opcount : count,
	       (unsigned long long)seed, n_fail ? "FAIL" : "PASS");
	return n_fail ? 1 : 0;
}

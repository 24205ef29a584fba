// SPDX-License-Identifier: GPL-2.0
/*
 * verbsbench: control-path operations per second through libibverbs.
 *
 *   verbsbench [-d DEV] [-p PORT] [-t THREADS] [-D SECONDS] TEST...
 *   verbsbench [-d DEV] [-p PORT] --hold-qps N
 *
 * TEST: pd cq qp mr-4k mr-64m mr-1g mr-64m-huge mr-1g-huge (vb_tests.c).
 * Each test runs THREADS threads on one device context opened once, as a
 * multi-threaded application would.  Every thread prepares what it needs
 * (its PD, CQ, buffer), waits at a barrier with the others, then repeats
 * the test's operation until SECONDS have passed on its clock (at least
 * once); nothing else happens in that loop but a clock_gettime().  One JSON
 * line per test on stdout: ops is the sum over the threads, seconds the
 * wall time from the first thread's start to the last thread's end.
 * Errors go to stderr; a test whose verb failed prints no line, and the
 * exit status is then 1.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "vb.h"

struct vb_run {
	const struct vb_config	*cfg;
	const struct vb_test	*test;
	pthread_barrier_t	barrier;
	/* any thread's, atomic */
	bool			setup_failed;
};

struct vb_worker {
	struct vb_thread	t;
	struct vb_run		*run;
	pthread_t		tid;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The hot loop: the test's verbs and a look at the clock, nothing else. */
static void timed_loop(struct vb_thread *t, int64_t len_ns)
{
	int64_t now = now_ns();
	int64_t deadline = now + len_ns;

	t->start_ns = now;
	do {
		if (t->test->op(t)) {
			t->failed = true;
			break;
		}
		t->ops++;
		now = now_ns();
	} while (now < deadline);
	t->end_ns = now;
}

static void *worker_main(void *arg)
{
	struct vb_worker *w = arg;
	struct vb_thread *t = &w->t;
	struct vb_run *run = w->run;

	if (t->test->setup(t)) {
		t->failed = true;
		__atomic_store_n(&run->setup_failed, true, __ATOMIC_RELAXED);
	}
	pthread_barrier_wait(&run->barrier);
	if (!__atomic_load_n(&run->setup_failed, __ATOMIC_RELAXED))
		timed_loop(t, (int64_t)(run->cfg->seconds * 1e9));
	if (t->test->teardown(t))
		t->failed = true;
	return NULL;
}

/* One test on every thread; 0, or -1 if a verb (or the setup) failed. */
static int run_test(const struct vb_config *cfg, const struct vb_test *test)
{
	struct vb_run run = { .cfg = cfg, .test = test };
	bool shared = vb_shared_buffer(cfg, test);
	struct vb_worker *w;
	int64_t start = INT64_MAX, end = INT64_MIN;
	uint64_t ops = 0;
	void *buf = NULL;
	bool failed = false;
	double secs;
	int i, err;

	w = calloc(cfg->threads, sizeof(*w));
	if (!w) {
		fprintf(stderr, "verbsbench: out of memory\n");
		return -1;
	}
	/*
	 * mr-1g* with several threads: the guest has 2 GiB, not a GiB per
	 * thread, so every thread registers the same buffer (registering
	 * the same memory more than once is legal); the output says so.
	 */
	if (shared) {
		buf = vb_map_buffer(test);
		if (!buf) {
			free(w);
			return -1;
		}
	}
	pthread_barrier_init(&run.barrier, NULL, cfg->threads);
	for (i = 0; i < cfg->threads; i++) {
		w[i].run = &run;
		w[i].t.cfg = cfg;
		w[i].t.test = test;
		w[i].t.index = i;
		w[i].t.buf = buf;
		w[i].t.buf_len = buf ? test->mr_size : 0;
		err = pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
		if (err) {
			/* the others wait at the barrier for good */
			fprintf(stderr, "verbsbench: pthread_create: %s\n",
				strerror(err));
			exit(1);
		}
	}
	for (i = 0; i < cfg->threads; i++) {
		pthread_join(w[i].tid, NULL);
		failed |= w[i].t.failed;
		ops += w[i].t.ops;
		if (w[i].t.start_ns < start)
			start = w[i].t.start_ns;
		if (w[i].t.end_ns > end)
			end = w[i].t.end_ns;
	}
	pthread_barrier_destroy(&run.barrier);
	if (buf)
		vb_unmap_buffer(buf, test->mr_size);
	free(w);
	if (failed) {
		fprintf(stderr, "verbsbench: test %s failed (threads %d)\n",
			test->name, cfg->threads);
		return -1;
	}

	secs = (end - start) / 1e9;
	printf("{\"tool\":\"verbsbench\",\"test\":\"%s\",\"threads\":%d,\"seconds\":%.3f,\"ops\":%llu,\"ops_per_sec\":%.1f,\"stack_hint\":\"%s\"",
	       test->name, cfg->threads, secs, (unsigned long long)ops,
	       secs > 0 ? ops / secs : 0.0, cfg->dev_name);
	if (test->mr_size)
		printf(",\"shared_buffer\":%s", shared ? "true" : "false");
	printf("}\n");
	fflush(stdout);
	return 0;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: verbsbench [-d DEV] [-p PORT] [-t THREADS] [-D SECONDS] TEST...\n"
		   "       verbsbench [-d DEV] [-p PORT] --hold-qps N\n"
		   "  -d DEV      device (default: the first one)\n"
		   "  -p PORT     port (default 1)\n"
		   "  -t THREADS  threads per test (default 1)\n"
		   "  -D SECONDS  time per test, e.g. 0.5 (default 2)\n"
		   "  --hold-qps N  make N RC QPs (INIT), print a line, wait for EOF on stdin\n"
		   "TEST:");
	for (i = 0; i < vb_ntests; i++)
		fprintf(f, " %s", vb_tests[i].name);
	fprintf(f, "\n");
}

static long parse_long(const char *s, long min, long max, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "verbsbench: bad %s '%s' (%ld..%ld)\n",
			what, s, min, max);
		exit(2);
	}
	return v;
}

static struct ibv_context *open_device(const char *name, const char **found)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		vb_verb_error("open", "ibv_get_device_list", errno);
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i == n) {
		if (name)
			fprintf(stderr, "verbsbench: no device %s\n", name);
		else
			fprintf(stderr, "verbsbench: no RDMA device\n");
	} else {
		*found = strdup(ibv_get_device_name(list[i]));
		ctx = ibv_open_device(list[i]);
		if (!ctx)
			vb_verb_error("open", "ibv_open_device", errno);
	}
	ibv_free_device_list(list);
	return ctx;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "hold-qps", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vb_config cfg = { .port = 1, .threads = 1, .seconds = 2 };
	struct ibv_port_attr pattr;
	const char *dev = NULL;
	long hold = -1;
	char *end;
	int c, i, ret, status = 0;

	while ((c = getopt_long(argc, argv, "d:p:t:D:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'p':
			cfg.port = parse_long(optarg, 1, 255, "port");
			break;
		case 't':
			cfg.threads = parse_long(optarg, 1, 1024, "threads");
			break;
		case 'D':
			errno = 0;
			cfg.seconds = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(cfg.seconds > 0 && cfg.seconds < 1e6)) {
				fprintf(stderr,
					"verbsbench: bad seconds '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'H':
			hold = parse_long(optarg, 0, 1000000, "--hold-qps");
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if ((hold < 0) == (optind == argc)) {
		usage(stderr);
		return 2;
	}
	for (i = optind; i < argc; i++) {
		if (!vb_find_test(argv[i])) {
			fprintf(stderr, "verbsbench: unknown test '%s'\n",
				argv[i]);
			usage(stderr);
			return 2;
		}
	}

	cfg.ctx = open_device(dev, &cfg.dev_name);
	if (!cfg.ctx)
		return 1;
	snprintf(cfg.port_name, sizeof(cfg.port_name), "%s port %u",
		 cfg.dev_name, cfg.port);
	ret = ibv_query_port(cfg.ctx, cfg.port, &pattr);
	if (ret) {
		vb_verb_error(cfg.port_name, "ibv_query_port",
			      ret > 0 ? ret : errno);
		ibv_close_device(cfg.ctx);
		return 1;
	}
	cfg.lid = pattr.lid;

	if (hold >= 0) {
		status = vb_hold_qps(&cfg, hold);
	} else {
		for (i = optind; i < argc; i++)
			if (run_test(&cfg, vb_find_test(argv[i])))
				status = 1;
	}
	if (ibv_close_device(cfg.ctx)) {
		vb_verb_error("close", "ibv_close_device", errno);
		status = 1;
	}
	return status;
}

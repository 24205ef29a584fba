// SPDX-License-Identifier: GPL-2.0
/*
 * uvtool: the checks of ib_uverbs that no program above libibverbs
 * reaches.  One line per check, "PASS name: what" or "FAIL name: what
 * (why)"; "SKIP name: what (why)" for a case this machine cannot do, never
 * counted; at the end "N checks, M failed", exit status 1 on any failure.
 *
 *   uvtool [-s ours|inbox] [-d DEVICE] [-r READYFILE] [CASE...]
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "uvtool.h"

struct uv_opts uv_opts;

static int n_checks, n_failed, n_skipped;

void uv_check(const char *name, bool ok, const char *what,
	      const char *whyfmt, ...)
{
	va_list ap;

	n_checks++;
	if (ok) {
		printf("PASS %s: %s\n", name, what);
	} else {
		n_failed++;
		printf("FAIL %s: %s (", name, what);
		va_start(ap, whyfmt);
		vprintf(whyfmt, ap);
		va_end(ap);
		printf(")\n");
	}
	fflush(stdout);
}

void uv_skip(const char *name, const char *what, const char *why)
{
	n_skipped++;
	printf("SKIP %s: %s (%s)\n", name, what, why);
	fflush(stdout);
}

static const char *errname(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "success";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOENT: return "ENOENT";
	case EBADF: return "EBADF";
	case EBUSY: return "EBUSY";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case EPERM: return "EPERM";
	case EAGAIN: return "EAGAIN";
	case EIO: return "EIO";
	case ENOTTY: return "ENOTTY";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

void uv_expect(const char *name, const char *what, int got, int want, int fd)
{
	char w[512];
	bool live = fd < 0 || uv_usable(fd);

	snprintf(w, sizeof(w), "%s: %s", what, errname(want));
	if (got != want)
		uv_check(name, false, w, "got %s", errname(got));
	else
		uv_check(name, live, w, "the file no longer answers QUERY_DEVICE and ALLOC_PD");
}

struct ibv_context *uv_open(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++) {
		if (uv_opts.dev &&
		    strcmp(ibv_get_device_name(list[i]), uv_opts.dev))
			continue;
		ctx = ibv_open_device(list[i]);
		break;
	}
	ibv_free_device_list(list);
	return ctx;
}

/* the file still runs commands: QUERY_DEVICE, then a PD made and freed */
bool uv_usable(int fd)
{
	struct ib_uverbs_query_device_resp resp;
	struct ib_uverbs_query_device req = { .response = (uintptr_t)&resp };
	uint32_t pd;

	memset(&resp, 0, sizeof(resp));
	if (uv_cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &req, sizeof(req),
		   sizeof(resp)) || resp.vendor_id == 0)
		return false;
	if (uv_alloc_pd(fd, &pd))
		return false;
	return uv_dealloc_pd(fd, pd) == 0;
}

int uv_write_buf(int fd, const void *buf, size_t count)
{
	ssize_t n = write(fd, buf, count);

	if (n < 0)
		return errno;
	/* upstream returns the whole count on success (ib_uverbs_write) */
	return (size_t)n == count ? 0 : -1;
}

/*
 * A legacy command: the 8-byte header (in_words counts the header too,
 * 4-byte units; out_words the response, 4-byte units), then the request,
 * whose first u64 is the response pointer when the command has one.
 */
int uv_cmd(int fd, uint32_t cmd, const void *req, size_t req_len,
	   size_t out_len)
{
	unsigned char buf[512];
	struct ib_uverbs_cmd_hdr hdr = {
		.command = cmd,
		.in_words = (sizeof(hdr) + req_len) / 4,
		.out_words = out_len / 4,
	};

	if (sizeof(hdr) + req_len > sizeof(buf))
		return E2BIG;
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), req, req_len);
	return uv_write_buf(fd, buf, sizeof(hdr) + req_len);
}

/*
 * ALLOC_PD with room for the driver's response after the core one: mlx4
 * copies its pdn there without looking at the room given (6.1's
 * ib_copy_to_udata copies len bytes: EFAULT with no buffer).
 */
int uv_alloc_pd(int fd, uint32_t *handle)
{
	struct {
		struct ib_uverbs_alloc_pd_resp core;
		uint32_t driver[2];	/* mlx4_ib_alloc_pd_resp */
	} resp = { .core.pd_handle = ~0u };
	struct ib_uverbs_alloc_pd req = { .response = (uintptr_t)&resp };
	int ret;

	ret = uv_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &req, sizeof(req),
		     sizeof(resp));
	*handle = resp.core.pd_handle;
	return ret;
}

int uv_dealloc_pd(int fd, uint32_t handle)
{
	struct ib_uverbs_dealloc_pd req = { .pd_handle = handle };

	return uv_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_PD, &req, sizeof(req), 0);
}

int uv_reg_mr(int fd, uint32_t pd, uint64_t start, uint64_t len,
	      uint64_t hca_va, uint32_t access, uint32_t *handle)
{
	struct ib_uverbs_reg_mr_resp resp = { .mr_handle = ~0u };
	struct ib_uverbs_reg_mr req = {
		.response = (uintptr_t)&resp,
		.start = start,
		.length = len,
		.hca_va = hca_va,
		.pd_handle = pd,
		.access_flags = access,
	};
	int ret;

	ret = uv_cmd(fd, IB_USER_VERBS_CMD_REG_MR, &req, sizeof(req),
		     sizeof(resp));
	if (handle)
		*handle = resp.mr_handle;
	return ret;
}

int uv_dereg_mr(int fd, uint32_t handle)
{
	struct ib_uverbs_dereg_mr req = { .mr_handle = handle };

	return uv_cmd(fd, IB_USER_VERBS_CMD_DEREG_MR, &req, sizeof(req), 0);
}

/*
 * CREATE_CQ without the provider's udata: enough for every check that
 * fails before the driver is called (uverbs_cmd.c create_cq).
 */
int uv_create_cq(int fd, int channel, uint32_t vector, uint32_t *handle)
{
	struct ib_uverbs_create_cq_resp resp = { .cq_handle = ~0u };
	struct ib_uverbs_create_cq req = {
		.response = (uintptr_t)&resp,
		.user_handle = 0x5eed,
		.cqe = 1,
		.comp_vector = vector,
		.comp_channel = channel,
	};
	int ret;

	ret = uv_cmd(fd, IB_USER_VERBS_CMD_CREATE_CQ, &req, sizeof(req),
		     sizeof(resp));
	if (handle)
		*handle = resp.cq_handle;
	return ret;
}

static long status_field(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n)) {
			v = strtol(line + n, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

long uv_vmpin_kb(void)
{
	return status_field("VmPin:");
}

bool uv_cap_ipc_lock(void)
{
	char line[256];
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			caps = strtoull(line + 7, NULL, 16);
	fclose(f);
	return caps & (1ull << 14);	/* CAP_IPC_LOCK */
}

static const struct {
	const char *name;
	void (*run)(void);
	bool in_all;
} cases[] = {
	{ "hdr", uv_hdr, true },
	{ "handles", uv_handles, true },
	{ "attrs", uv_attrs, true },
	{ "mr", uv_mr, true },
	{ "memlock", uv_memlock, true },
	{ "fork", uv_fork, true },
	{ "channel", uv_channel, true },
	{ "async", uv_async, true },
	{ "ioctl", uv_ioctl, true },
	{ "many", uv_many, true },
	{ "life", uv_life, true },
	/* waits for a cable pulled by the caller (guest/uvtool.sh) */
	{ "async-port", uv_async_port, false },
};

static void usage(void)
{
	size_t i;

	fprintf(stderr, "usage: uvtool [-s ours|inbox] [-d DEVICE] [-r READYFILE] [CASE...]\ncases:");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		fprintf(stderr, " %s", cases[i].name);
	fprintf(stderr, " (default: all but async-port)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	size_t i;
	int c, a;

	/* fork's fresh process: libibverbs untouched so far (uv_fork) */
	if (argc == 3 && !strcmp(argv[1], "--fork-init-probe"))
		return uv_fork_init_probe(argv[2]);
	while ((c = getopt(argc, argv, "s:d:r:h")) != -1) {
		switch (c) {
		case 's':
			if (strcmp(optarg, "inbox") && strcmp(optarg, "ours"))
				usage();
			uv_opts.inbox = !strcmp(optarg, "inbox");
			break;
		case 'd':
			uv_opts.dev = optarg;
			break;
		case 'r':
			uv_opts.ready = optarg;
			break;
		default:
			usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (a = optind; a < argc; a++) {
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			if (!strcmp(argv[a], cases[i].name))
				break;
		if (i == sizeof(cases) / sizeof(cases[0]))
			usage();
	}
	if (optind == argc) {
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			if (cases[i].in_all)
				cases[i].run();
	} else {
		for (a = optind; a < argc; a++)
			for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
				if (!strcmp(argv[a], cases[i].name))
					cases[i].run();
	}
	printf("%d checks, %d failed (%d skipped)\n", n_checks, n_failed,
	       n_skipped);
	return n_failed || !n_checks ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Pinned memory: MR registration of odd ranges, RLIMIT_MEMLOCK, fork().
 * Sources: drivers/infiniband/core/umem.c (ib_umem_get: EINVAL for an
 * overflowing or empty range, EPERM when !can_do_mlock(), ENOMEM over
 * RLIMIT_MEMLOCK without CAP_IPC_LOCK, the errno of pin_user_pages_fast:
 * EFAULT for a hole or a read-only page pinned FOLL_WRITE without
 * FOLL_FORCE), hw/mlx4/mr.c (mlx4_get_umem_mr: read-only access stays
 * read-only on a read-only VMA), mm/gup.c (FOLL_FORCE on a private
 * mapping), mm/memory.c (page_needs_cow_for_dma: fork copies pinned
 * anonymous pages for the child).  VmPin (/proc/PID/status) is
 * mm->pinned_vm: it must come back to where it was after each case.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uvtool.h"

#define PG 4096ul

static void *map(size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* one registration through the raw command, deregistered at once */
static int reg(int fd, uint32_t pd, void *addr, uint64_t len, uint32_t acc)
{
	uint32_t mr;
	int e;

	e = uv_reg_mr(fd, pd, (uintptr_t)addr, len, (uintptr_t)addr, acc, &mr);
	if (!e && uv_dereg_mr(fd, mr))
		return -1;
	return e;
}

static void expect_pin(const char *name, const char *what, int got,
		       int want, int fd, long pin0)
{
	char w[256];
	long pin = uv_vmpin_kb();

	snprintf(w, sizeof(w), "%s, VmPin back to %ld kB", what, pin0);
	if (pin != pin0) {
		uv_check(name, false, w, "VmPin is %ld kB", pin);
		return;
	}
	uv_expect(name, w, got, want, fd);
}

void uv_mr(void)
{
	struct ibv_context *ctx = uv_open();
	const uint32_t lw = IBV_ACCESS_LOCAL_WRITE;
	unsigned char *buf, *ro, *huge;
	uint32_t pd;
	long pin0;
	int fd, e;

	if (!ctx || uv_alloc_pd(ctx->cmd_fd, &pd)) {
		uv_check("mr-open", false, "open the device, a PD", "%s",
			 strerror(errno));
		if (ctx)
			ibv_close_device(ctx);
		return;
	}
	fd = ctx->cmd_fd;
	buf = map(4 * PG, PROT_READ | PROT_WRITE, 0);
	ro = map(4 * PG, PROT_READ, 0);
	if (!buf || !ro) {
		uv_check("mr-map", false, "map the buffers", "%s",
			 strerror(errno));
		goto out;
	}
	memset(buf, 1, 4 * PG);
	pin0 = uv_vmpin_kb();

	/* ib_umem_get: npages == 0 */
	e = reg(fd, pd, buf, 0, lw);
	expect_pin("mr-zero", "REG_MR of 0 bytes", e, EINVAL, fd, pin0);
	/* ib_umem_get: addr + size wraps */
	e = uv_reg_mr(fd, pd, ~0ull - PG + 1, 2 * PG, ~0ull - PG + 1, 0, NULL);
	expect_pin("mr-wrap", "REG_MR whose end wraps past 2^64", e, EINVAL, fd,
		   pin0);
	/* a range inside pages: the pages covering it are pinned */
	e = reg(fd, pd, buf + 100, 2 * PG + 5, lw);
	expect_pin("mr-unaligned", "REG_MR of 8197 bytes at page offset 100: success",
		   e, 0, fd, pin0);
	/* pin_user_pages_fast: nothing mapped */
	munmap(buf + 2 * PG, PG);
	e = reg(fd, pd, buf + 2 * PG, PG, lw);
	expect_pin("mr-unmapped", "REG_MR of an unmapped page", e, EFAULT, fd,
		   pin0);
	e = reg(fd, pd, buf, 3 * PG, lw);
	expect_pin("mr-partly-unmapped",
		   "REG_MR of 2 mapped pages then a hole (the first two unpinned again)",
		   e, EFAULT, fd, pin0);
	/* FOLL_WRITE without FOLL_FORCE on a PROT_READ page */
	e = reg(fd, pd, ro, PG, lw);
	expect_pin("mr-ro-local-write", "REG_MR local write on PROT_READ memory",
		   e, EFAULT, fd, pin0);
	e = reg(fd, pd, ro, PG, lw | IBV_ACCESS_REMOTE_WRITE);
	expect_pin("mr-ro-remote-write", "REG_MR remote write on PROT_READ memory",
		   e, EFAULT, fd, pin0);
	/* read-only access: FOLL_FORCE, a private mapping may be pinned */
	e = reg(fd, pd, ro, PG, IBV_ACCESS_REMOTE_READ);
	expect_pin("mr-ro-read", "REG_MR remote read on PROT_READ memory: success",
		   e, 0, fd, pin0);

	huge = map(4ul << 20, PROT_READ | PROT_WRITE, MAP_HUGETLB);
	if (!huge) {
		uv_skip("mr-huge", "REG_MR of 4 MB of huge pages",
			"MAP_HUGETLB failed: no huge pages in this machine");
	} else {
		memset(huge, 2, 4ul << 20);
		e = reg(fd, pd, huge, 4ul << 20, lw | IBV_ACCESS_REMOTE_WRITE);
		expect_pin("mr-huge", "REG_MR of 4 MB of huge pages: success", e,
			   0, fd, pin0);
		e = reg(fd, pd, huge + PG, 2ul << 20, lw);
		expect_pin("mr-huge-part", "REG_MR of 2 MB across two huge pages: success",
			   e, 0, fd, pin0);
		munmap(huge, 4ul << 20);
	}
out:
	uv_dealloc_pd(fd, pd);
	if (buf)
		munmap(buf, 4 * PG);
	if (ro)
		munmap(ro, 4 * PG);
	ibv_close_device(ctx);
}

void uv_memlock(void)
{
	struct ibv_context *ctx = uv_open();
	bool cap = uv_cap_ipc_lock();
	struct rlimit rl;
	unsigned char *buf;
	size_t len, room;
	uint32_t pd;
	long pin0;
	char what[160];
	int fd, e;

	getrlimit(RLIMIT_MEMLOCK, &rl);
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1ul << 30)) {
		uv_skip("memlock", "REG_MR beyond RLIMIT_MEMLOCK",
			"RLIMIT_MEMLOCK is unlimited or over 1 GB");
		if (ctx)
			ibv_close_device(ctx);
		return;
	}
	if (!ctx || uv_alloc_pd(ctx->cmd_fd, &pd)) {
		uv_check("memlock-open", false, "open the device, a PD", "%s",
			 strerror(errno));
		if (ctx)
			ibv_close_device(ctx);
		return;
	}
	fd = ctx->cmd_fd;
	pin0 = uv_vmpin_kb();
	len = (rl.rlim_cur & ~(PG - 1)) + 2 * PG;
	buf = map(len, PROT_READ | PROT_WRITE, 0);
	if (!buf) {
		uv_check("memlock-map", false, "map the buffer", "%s",
			 strerror(errno));
		goto out;
	}
	memset(buf, 3, len);
	/* ib_umem_get: new_pinned > lock_limit && !capable(CAP_IPC_LOCK) */
	snprintf(what, sizeof(what), "REG_MR of %zu kB, RLIMIT_MEMLOCK %lu kB, %s",
		 len >> 10, (unsigned long)rl.rlim_cur >> 10,
		 cap ? "CAP_IPC_LOCK: success" : "no CAP_IPC_LOCK");
	e = reg(fd, pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	expect_pin("memlock-over", what, e, cap ? 0 : ENOMEM, fd, pin0);

	/* what is left under the limit can be pinned */
	room = rl.rlim_cur - (pin0 > 0 ? (size_t)pin0 << 10 : 0);
	room = (room / 2) & ~(PG - 1);
	if (room >= PG) {
		snprintf(what, sizeof(what), "REG_MR of %zu kB, under the limit: success",
			 room >> 10);
		e = reg(fd, pd, buf, room, IBV_ACCESS_LOCAL_WRITE);
		expect_pin("memlock-under", what, e, 0, fd, pin0);
	}
	munmap(buf, len);
out:
	uv_dealloc_pd(fd, pd);
	ibv_close_device(ctx);
}

/*
 * The status libibverbs gives: both stacks announce the kernel's
 * copy-on-fork through RDMA netlink (SYS_GET), so libibverbs says
 * UNNEEDED whatever ibv_fork_init() did (before issue 16 ours had no
 * netlink, and libibverbs fell back to its own fork support: DISABLED
 * until ibv_fork_init(), ENABLED after).  The kernel copies pinned pages
 * at fork under both (the fork-mr case below).
 */
int uv_fork_init_probe(const char *stack)
{
	(void)stack;	/* the same under both stacks now */
	if (ibv_fork_init())
		return 1;
	return ibv_is_fork_initialized() == IBV_FORK_UNNEEDED ? 0 : 2;
}

/*
 * fork() after registration: the child writes the buffer (it gets its own
 * copy), the parent writes it after the fork too, and an RDMA READ through
 * the parent's MR must see the parent's bytes: the MR still maps the
 * parent's pages.
 */
void uv_fork(void)
{
	struct ibv_context *ctx;
	struct ibv_mr *mr = NULL, *dmr = NULL;
	enum ibv_fork_status fs;
	unsigned char *buf, *dst;
	const char *why;
	struct uv_lb lb;
	int st, e, i, bad = 0;
	pid_t pid;

	/*
	 * libibverbs 44 (memory.c): ibv_is_fork_initialized() asks the kernel
	 * whether it copies pinned pages at fork (6.1 does: RDMA netlink's
	 * copy-on-fork attribute), and then says IBV_FORK_UNNEEDED whatever
	 * ibv_fork_init() did.  ibv_fork_init() itself is 0 in a process that
	 * has registered nothing yet, EINVAL ("too late") after that.
	 */
	fs = ibv_is_fork_initialized();
	uv_check("fork-status", fs == IBV_FORK_UNNEEDED,
		 "ibv_is_fork_initialized(): IBV_FORK_UNNEEDED (RDMA netlink's copy-on-fork)",
		 "it says %d", fs);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "uvtool", "--fork-init-probe",
		      uv_opts.inbox ? "inbox" : "ours", NULL);
		_exit(127);
	}
	st = -1;
	if (pid > 0)
		waitpid(pid, &st, 0);
	uv_check("fork-init", pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		 "ibv_fork_init() first thing in a new process: 0, status still UNNEEDED",
		 "probe status 0x%x (exit 1: init failed, 2: wrong status)", st);

	ctx = uv_open();
	if (!ctx) {
		uv_check("fork-open", false, "open the device", "%s",
			 strerror(errno));
		return;
	}
	if (uv_lb_open(ctx, NULL, &lb, &why)) {
		uv_skip("fork-mr", "the parent's MR after fork()", why);
		ibv_close_device(ctx);
		return;
	}
	buf = map(2 * PG, PROT_READ | PROT_WRITE, 0);
	dst = map(2 * PG, PROT_READ | PROT_WRITE, 0);
	if (!buf || !dst)
		goto fail;
	memset(buf, 'p', 2 * PG);
	mr = ibv_reg_mr(lb.pd, buf, 2 * PG, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	dmr = ibv_reg_mr(lb.pd, dst, 2 * PG, IBV_ACCESS_LOCAL_WRITE);
	if (!mr || !dmr)
		goto fail;
	e = ibv_fork_init();
	uv_check("fork-init-late", e == EINVAL,
		 "ibv_fork_init() after registrations: EINVAL", "returned %d", e);
	pid = fork();
	if (pid == 0) {
		memset(buf, 'c', 2 * PG);
		_exit(buf[PG] == 'c' ? 0 : 1);
	}
	if (pid < 0)
		goto fail;
	e = waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0;
	uv_check("fork-child", e, "the child wrote its copy of the buffer",
		 "child status 0x%x", st);
	memset(buf, 'P', PG);	/* the parent writes its own after the fork */
	e = uv_lb_post(&lb, IBV_WR_RDMA_READ, dmr, dst, (uintptr_t)buf,
		       mr->rkey, 2 * PG);
	if (!e)
		e = uv_lb_wait(&lb);
	for (i = 0; i < (int)(2 * PG); i++)
		bad += dst[i] != (i < (int)PG ? 'P' : 'p');
	uv_check("fork-mr", !e && !bad,
		 "RDMA READ through the parent's MR after fork: the parent's bytes",
		 "status %d, %d bytes differ (first: '%c')", e, bad, dst[0]);
	goto out;
fail:
	uv_check("fork-setup", false, "buffers and MRs for the fork case", "%s",
		 strerror(errno));
out:
	if (mr)
		ibv_dereg_mr(mr);
	if (dmr)
		ibv_dereg_mr(dmr);
	uv_lb_close(&lb);
	if (buf)
		munmap(buf, 2 * PG);
	if (dst)
		munmap(dst, 2 * PG);
	ibv_close_device(ctx);
}

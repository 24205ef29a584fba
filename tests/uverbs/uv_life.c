// SPDX-License-Identifier: GPL-2.0
/*
 * Lifetime: thousands of objects, and files that go away with objects
 * alive (close, exit, kill -9).
 * Sources: drivers/infiniband/core/rdma_core.c (uverbs_destroy_ufile_hw:
 * every object of the file destroyed at close, exit or kill, the event
 * files' queues closed), uverbs_main.c (ib_uverbs_event_read: EIO once a
 * closed queue is empty), xarray allocation in alloc_begin_idr_uobject
 * (handles are per file and reused).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "uvtool.h"

#define N_PD 2000
#define N_MR 1000
#define N_CQ 256
#define N_QP 64

static struct ibv_qp *mk_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr qa;

	memset(&qa, 0, sizeof(qa));
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 1;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	return ibv_create_qp(pd, &qa);
}

void uv_many(void)
{
	static struct ibv_pd *pd[N_PD];
	static struct ibv_mr *mr[N_MR];
	static struct ibv_cq *cq[N_CQ];
	static struct ibv_qp *qp[N_QP];
	struct ibv_context *ctx = uv_open();
	unsigned char *buf;
	int i, n, bad = 0;
	long pin0;

	buf = mmap(NULL, N_MR * 4096ul, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ctx || buf == MAP_FAILED) {
		uv_check("many-open", false, "open the device, a buffer", "%s",
			 strerror(errno));
		goto out_close;
	}
	memset(buf, 5, N_MR * 4096ul);
	pin0 = uv_vmpin_kb();
	for (n = 0; n < N_PD && (pd[n] = ibv_alloc_pd(ctx)); n++)
		;
	uv_check("many-pd", n == N_PD, "2000 PDs in one file", "only %d: %s", n,
		 strerror(errno));
	for (n = 0; n < N_MR && (mr[n] = ibv_reg_mr(pd[n % N_PD], buf + n * 4096ul,
						     4096, IBV_ACCESS_LOCAL_WRITE)); n++)
		;
	uv_check("many-mr", n == N_MR, "1000 MRs of a page each", "only %d: %s",
		 n, strerror(errno));
	for (n = 0; n < N_CQ && (cq[n] = ibv_create_cq(ctx, 4, NULL, NULL, 0)); n++)
		;
	uv_check("many-cq", n == N_CQ, "256 CQs", "only %d: %s", n,
		 strerror(errno));
	for (n = 0; n < N_QP && (qp[n] = mk_qp(pd[n], cq[n])); n++)
		;
	uv_check("many-qp", n == N_QP, "64 RC QPs", "only %d: %s", n,
		 strerror(errno));
	/* half the PDs freed and taken again: handles are reused */
	for (i = N_QP; i < N_PD; i += 2) {
		if (i >= N_MR || !mr[i]) {
			bad += ibv_dealloc_pd(pd[i]) != 0;
			pd[i] = ibv_alloc_pd(ctx);
			bad += !pd[i];
		}
	}
	uv_check("many-reuse", !bad, "PDs freed and allocated again",
		 "%d failures", bad);
	uv_check("many-usable", uv_usable(ctx->cmd_fd),
		 "the file answers with all of them alive", "no answer");
	bad = 0;
	for (i = 0; i < N_QP; i++)
		bad += qp[i] && ibv_destroy_qp(qp[i]);
	for (i = 0; i < N_CQ; i++)
		bad += cq[i] && ibv_destroy_cq(cq[i]);
	/* the last 500 MRs and the PDs stay for the close */
	for (i = 0; i < N_MR / 2; i++)
		bad += mr[i] && ibv_dereg_mr(mr[i]);
	uv_check("many-destroy", !bad, "64 QPs, 256 CQs, 500 MRs destroyed",
		 "%d failures", bad);
	ibv_close_device(ctx);
	ctx = NULL;
	uv_check("many-close", uv_vmpin_kb() == pin0,
		 "closed with 2000 PDs and 500 MRs alive: VmPin back",
		 "VmPin %ld kB, was %ld kB", uv_vmpin_kb(), pin0);
	ctx = uv_open();
	uv_check("many-reopen", ctx && uv_usable(ctx->cmd_fd),
		 "a new file works after that", "%s", strerror(errno));
out_close:
	if (buf != MAP_FAILED)
		munmap(buf, N_MR * 4096ul);
	if (ctx)
		ibv_close_device(ctx);
}

/*
 * A file of our own without libibverbs (whose mappings of the file would
 * keep it open after close()): GET_CONTEXT with room for mlx4's response,
 * a PD, an MR and a completion channel; then both fds closed.  The
 * channel outlives the file: its queue is closed and empty, so EIO.
 */
static int raw_close(void)
{
	static char page[4096] __attribute__((aligned(4096)));
	struct ib_uverbs_comp_event_desc ev;
	struct {
		struct ib_uverbs_get_context_resp core;
		uint32_t driver[4];	/* mlx4_ib_alloc_ucontext_resp */
	} gc;
	struct ib_uverbs_get_context gcr = { .response = (uintptr_t)&gc };
	struct ib_uverbs_create_comp_channel_resp cc;
	struct ib_uverbs_create_comp_channel ccr = { .response = (uintptr_t)&cc };
	struct ibv_device **list;
	char path[128];
	uint32_t pd, mr;
	int fd, n;

	list = ibv_get_device_list(&n);
	if (!list || !n)
		return 20;
	snprintf(path, sizeof(path), "/dev/infiniband/%s", list[0]->dev_name);
	ibv_free_device_list(list);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 21;
	if (uv_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gcr, sizeof(gcr),
		   sizeof(gc)))
		return 22;
	if (uv_alloc_pd(fd, &pd) ||
	    uv_reg_mr(fd, pd, (uintptr_t)page, sizeof(page), (uintptr_t)page,
		      IBV_ACCESS_LOCAL_WRITE, &mr))
		return 23;
	if (uv_cmd(fd, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &ccr, sizeof(ccr),
		   sizeof(cc)))
		return 24;
	close(fd);
	close(gc.core.async_fd);
	n = read(cc.fd, &ev, sizeof(ev));
	return n < 0 && errno == EIO ? 0 : 25;
}

/*
 * A child that makes one of each object (PD, MR, channel, CQ, QP in INIT)
 * through libibverbs and then leaves as told: 'e' exits, 'k' waits to be
 * killed; 'c' is raw_close().
 */
static int child(char how, int ready)
{
	static char page[4096] __attribute__((aligned(4096)));
	struct ibv_context *ctx;
	struct ibv_comp_channel *ch;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
	};
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int ret;

	if (how == 'c') {
		ret = raw_close();
		return write(ready, "r", 1) == 1 ? ret : 14;
	}
	ctx = uv_open();
	if (!ctx)
		return 10;
	pd = ibv_alloc_pd(ctx);
	ch = ibv_create_comp_channel(ctx);
	if (!pd || !ch)
		return 11;
	cq = ibv_create_cq(ctx, 8, NULL, ch, 0);
	if (!cq || !ibv_reg_mr(pd, page, sizeof(page), IBV_ACCESS_LOCAL_WRITE))
		return 12;
	qp = mk_qp(pd, cq);
	if (!qp || ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				 IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return 13;
	if (write(ready, "r", 1) != 1)
		return 14;
	if (how == 'k')
		pause();
	return how == 'e' ? 0 : 15;
}

static void one_life(const char *name, const char *what, char how,
		     struct ibv_context *mine)
{
	int p[2], st = -1;
	char c = 0;
	pid_t pid;
	bool ok;

	if (pipe(p)) {
		uv_check(name, false, what, "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		_exit(child(how, p[1]));
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1)
		c = 0;
	close(p[0]);
	if (pid > 0 && how == 'k')
		kill(pid, SIGKILL);
	if (pid > 0)
		waitpid(pid, &st, 0);
	ok = c == 'r' && (how == 'k' ? WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL :
			  WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!ok) {
		uv_check(name, false, what, "child ready '%c', status 0x%x", c, st);
		return;
	}
	uv_check(name, uv_usable(mine->cmd_fd), what,
		 "this process's file no longer answers");
}

void uv_life(void)
{
	struct ibv_context *mine = uv_open(), *again;

	if (!mine) {
		uv_check("life-open", false, "open the device", "%s",
			 strerror(errno));
		return;
	}
	one_life("life-exit", "a process exits with PD, MR, channel, CQ and QP alive",
		 'e', mine);
	one_life("life-kill", "a process is killed (SIGKILL) with them alive",
		 'k', mine);
	one_life("life-close",
		 "a file closed with PD, MR and channel alive; the channel then reads EIO",
		 'c', mine);
	again = uv_open();
	uv_check("life-reopen", again && uv_usable(again->cmd_fd),
		 "a new file works after those", "%s", strerror(errno));
	if (again)
		ibv_close_device(again);
	ibv_close_device(mine);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The event files: a completion channel and the async event fd, read()
 * and poll(), blocking and not.
 * Sources: drivers/infiniband/core/uverbs_main.c (ib_uverbs_event_read:
 * EAGAIN on an empty queue with O_NONBLOCK, EINVAL for a buffer smaller
 * than one event while the event stays queued, EIO once the queue is
 * closed and empty; ib_uverbs_event_poll: EPOLLIN with an event queued),
 * include/uapi/rdma/ib_user_verbs.h (ib_uverbs_comp_event_desc: the CQ's
 * user_handle, which libibverbs sets to its struct ibv_cq pointer;
 * ib_uverbs_async_event_desc).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "uvtool.h"

static int nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	return fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

static int rd(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	if (n < 0)
		return errno;
	return n == (ssize_t)len ? 0 : -1;
}

static int pollin(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, ms);

	return n < 0 ? -1 : n ? p.revents : 0;
}

struct reader {
	int fd;
	volatile int done;
	int err;
	struct ib_uverbs_comp_event_desc ev;
};

static void *reader(void *arg)
{
	struct reader *r = arg;

	r->err = rd(r->fd, &r->ev, sizeof(r->ev));
	r->done = 1;
	return NULL;
}

/* arm the CQ and complete an RDMA WRITE of the QP to itself */
static int complete_one(struct uv_lb *lb, struct ibv_mr *mr, char *buf)
{
	if (ibv_req_notify_cq(lb->cq, 0))
		return -1;
	return uv_lb_post(lb, IBV_WR_RDMA_WRITE, mr, buf,
			  (uintptr_t)buf + 64, mr->rkey, 64);
}

static void channel_events(struct ibv_context *ctx,
			   struct ibv_comp_channel *ch, struct uv_lb *lb)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct ib_uverbs_comp_event_desc ev;
	struct ibv_mr *mr;
	struct reader r = { .fd = ch->fd };
	pthread_t t;
	int e, i, st;

	mr = ibv_reg_mr(lb->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	if (!mr) {
		uv_check("chan-mr", false, "an MR for the completions", "%s",
			 strerror(errno));
		return;
	}
	e = complete_one(lb, mr, buf);
	st = e ? -1 : uv_lb_wait(lb);
	e = pollin(ch->fd, 5000);
	uv_check("chan-poll-event", !st && (e & POLLIN),
		 "poll() of the channel after a completion of an armed CQ: POLLIN",
		 "completion status %d, revents 0x%x", st, e);
	/* the event stays queued: a too small read takes nothing */
	e = rd(ch->fd, &ev, 4);
	uv_expect("chan-read-small", "read() of 4 bytes with an event queued", e,
		  EINVAL, ctx->cmd_fd);
	memset(&ev, 0, sizeof(ev));
	e = rd(ch->fd, &ev, sizeof(ev));
	uv_check("chan-read", !e && ev.cq_handle == (uintptr_t)lb->cq,
		 "read() of 8 bytes: the CQ's user handle",
		 "errno %d, cq_handle 0x%llx", e,
		 (unsigned long long)ev.cq_handle);
	if (!e)
		ibv_ack_cq_events(lb->cq, 1);

	/* blocking: the reader waits until the next completion */
	nonblock(ch->fd, false);
	if (pthread_create(&t, NULL, reader, &r)) {
		uv_check("chan-block", false, "a reader thread", "%s",
			 strerror(errno));
		goto out;
	}
	usleep(300000);
	uv_check("chan-block", !r.done,
		 "a blocking read() with no event waits (300 ms)",
		 "it returned, errno %d", r.err);
	e = complete_one(lb, mr, buf);
	st = e ? -1 : uv_lb_wait(lb);
	for (i = 0; i < 500 && !r.done; i++)
		usleep(10000);
	if (!r.done)	/* give the thread an event to end on */
		complete_one(lb, mr, buf);
	pthread_join(t, NULL);
	uv_check("chan-block-wake", !st && i < 500 && !r.err &&
		 r.ev.cq_handle == (uintptr_t)lb->cq,
		 "the blocked read() returns the CQ's handle after a completion",
		 "status %d, after %d0 ms, errno %d", st, i, r.err);
	if (!r.err)
		ibv_ack_cq_events(lb->cq, 1);
out:
	ibv_dereg_mr(mr);
}

void uv_channel(void)
{
	struct ibv_context *ctx = uv_open();
	struct ibv_comp_channel *ch;
	struct ib_uverbs_comp_event_desc ev;
	const char *why;
	struct uv_lb lb;
	int e;

	ch = ctx ? ibv_create_comp_channel(ctx) : NULL;
	if (!ch) {
		uv_check("chan-open", false, "open the device, a channel", "%s",
			 strerror(errno));
		if (ctx)
			ibv_close_device(ctx);
		return;
	}
	nonblock(ch->fd, true);
	e = rd(ch->fd, &ev, sizeof(ev));
	uv_expect("chan-nonblock", "O_NONBLOCK read() of an empty channel", e,
		  EAGAIN, ctx->cmd_fd);
	e = pollin(ch->fd, 0);
	uv_check("chan-poll-empty", e == 0, "poll() of an empty channel: nothing",
		 "revents 0x%x", e);
	if (uv_lb_open(ctx, ch, &lb, &why)) {
		uv_skip("chan-events", "completion events", why);
	} else {
		channel_events(ctx, ch, &lb);
		uv_lb_close(&lb);
	}
	ibv_destroy_comp_channel(ch);
	ibv_close_device(ctx);
}

void uv_async(void)
{
	struct ibv_context *ctx = uv_open();
	struct ib_uverbs_async_event_desc ev;
	int e;

	if (!ctx) {
		uv_check("async-open", false, "open the device", "%s",
			 strerror(errno));
		return;
	}
	nonblock(ctx->async_fd, true);
	e = rd(ctx->async_fd, &ev, sizeof(ev));
	uv_expect("async-nonblock", "O_NONBLOCK read() of the empty async fd", e,
		  EAGAIN, ctx->cmd_fd);
	e = rd(ctx->async_fd, &ev, 4);
	uv_expect("async-nonblock-small",
		  "O_NONBLOCK read() of 4 bytes, empty: EAGAIN before the size",
		  e, EAGAIN, ctx->cmd_fd);
	e = pollin(ctx->async_fd, 0);
	uv_check("async-poll-empty", e == 0, "poll() of the empty async fd: nothing",
		 "revents 0x%x", e);
	ibv_close_device(ctx);
}

/*
 * A port event, for the caller that pulls a cable once READYFILE exists
 * (guest/uvtool.sh): poll() wakes, a short read() is EINVAL, the event
 * reads as IBV_EVENT_PORT_ERR of port 1 or 2.
 */
void uv_async_port(void)
{
	struct ibv_context *ctx = uv_open();
	struct ib_uverbs_async_event_desc ev;
	FILE *f;
	int e;

	if (!ctx) {
		uv_check("async-port-open", false, "open the device", "%s",
			 strerror(errno));
		return;
	}
	if (uv_opts.ready) {
		f = fopen(uv_opts.ready, "w");
		if (f)
			fclose(f);
	}
	e = pollin(ctx->async_fd, 30000);
	uv_check("async-port-poll", e & POLLIN,
		 "poll() of the async fd wakes when the cable is pulled",
		 "revents 0x%x after 30 s", e);
	if (!(e & POLLIN))
		goto out;
	e = rd(ctx->async_fd, &ev, 8);
	uv_expect("async-port-small", "read() of 8 bytes with an event queued", e,
		  EINVAL, ctx->cmd_fd);
	memset(&ev, 0, sizeof(ev));
	e = rd(ctx->async_fd, &ev, sizeof(ev));
	uv_check("async-port-event", !e && ev.event_type == IBV_EVENT_PORT_ERR &&
		 (ev.element == 1 || ev.element == 2),
		 "the event: IBV_EVENT_PORT_ERR of port 1 or 2",
		 "errno %d, type %u, element %llu", e, ev.event_type,
		 (unsigned long long)ev.element);
out:
	ibv_close_device(ctx);
}

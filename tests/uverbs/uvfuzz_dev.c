// SPDX-License-Identifier: GPL-2.0
/*
 * uvfuzz: the file-wide operations: the second file closed and opened
 * again, a forked child's writes, GET_CONTEXT again, completion channels,
 * the device's queries, the commands mlx4 leaves to user space, and
 * malformed framing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "uvfuzz.h"

extern const char *devpath;

/* file 1 closed with all it holds, and opened again (sometimes without a context) */
void reopen_op(struct th *t)
{
	quiesce();
	t->what = "reopen";
	file_close(&files[1]);
	file_open(&files[1], !chance(t, 4));
	if (files[1].fd < 0)
		fail(t, "open %s again: %s", devpath, strerror(errno));
	unquiesce();
}

/*
 * A child of fork() writes on both files.  6.1's ib_uverbs_write refuses
 * what a task with other credentials than the opener's writes
 * (ib_safe_file_access compares the cred pointers, and copy_creds gives a
 * forked child a new one): EACCES, with a pr_err_once.  The child then
 * reads the async fd (no such check: an event or EAGAIN) and exits.
 */
void fork_op(struct th *t)
{
	int fds[2], afds[2], status;
	pid_t pid;

	op_lock();
	fds[0] = files[0].fd;
	fds[1] = files[1].fd;
	afds[0] = files[0].async_fd;
	afds[1] = files[1].async_fd;
	op_go(t, "fork");
	pid = fork();
	if (pid == 0) {
		struct {
			struct ib_uverbs_cmd_hdr h;
			struct ib_uverbs_alloc_pd c;
		} w = { { IB_USER_VERBS_CMD_ALLOC_PD, 4, 4 }, { 0 } };
		unsigned char out[16], ev[16];

		w.c.response = (uintptr_t)out;
		for (int i = 0; i < 2; i++) {
			if (fds[i] < 0)
				continue;
			if (write(fds[i], &w, sizeof(w)) >= 0)
				_exit(100);
			if (errno != EACCES)
				_exit(errno);
			if (afds[i] >= 0) {
				fcntl(afds[i], F_SETFL, O_NONBLOCK);
				if (read(afds[i], ev, sizeof(ev)) < 0 &&
				    errno != EAGAIN)
					_exit(101);
			}
		}
		_exit(0);
	}
	if (pid < 0) {
		fail(t, "fork: %s", strerror(errno));
	} else if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		   WEXITSTATUS(status)) {
		int e = WIFEXITED(status) ? WEXITSTATUS(status) : -1;

		fail(t, "a forked child's ALLOC_PD on its parent's file: %s (expected EACCES)",
		     e == 100 ? "success" : e == 101 ? "read of the async fd failed" :
		     ename(e));
	} else {
		note("FORK_CHILD_WRITE", EACCES);
	}
	op_back();
	op_done();
}

/* --- the device's own commands ------------------------------------------ */

void op_query(struct th *t, struct ufile *f)
{
	union {
		struct ib_uverbs_query_device qd;
		struct ib_uverbs_query_port qp;
		struct ib_uverbs_ex_query_device ex;
	} req;
	struct call c = { .req = &req, .has_resp = true };
	struct eset pred = eset_of(0, -1);
	unsigned char *o;
	int e, port = 1;

	memset(&req, 0, sizeof(req));
	switch (below(t, 3)) {
	case 0:
		c.cmd = IB_USER_VERBS_CMD_QUERY_DEVICE;
		c.req_len = sizeof(req.qd);
		c.resp_len = sizeof(struct ib_uverbs_query_device_resp);
		break;
	case 1:
		c.cmd = IB_USER_VERBS_CMD_QUERY_PORT;
		c.req_len = sizeof(req.qp);
		c.resp_len = sizeof(struct ib_uverbs_query_port_resp);
		/* ib_query_port: !rdma_is_port_valid is EINVAL */
		port = chance(t, 4) ? (int)below(t, 256) : 1 + (int)below(t, nports);
		req.qp.port_num = port;
		if (port < 1 || port > nports)
			pred = eset_of(EINVAL, -1);
		break;
	default:
		c.cmd = IB_USER_VERBS_EX_CMD_QUERY_DEVICE;
		c.ex = true;
		c.has_resp = false;
		c.req_len = sizeof(req.ex);
		c.resp_len = sizeof(struct ib_uverbs_ex_query_device_resp);
		/* ib_uverbs_ex_query_device: comp_mask or reserved EINVAL */
		if (chance(t, 8)) {
			req.ex.comp_mask = chance(t, 2);
			req.ex.reserved = !req.ex.comp_mask;
			pred = eset_of(EINVAL, -1);
		}
		break;
	}
	op_lock();
	if (!f->ctx)
		pred = eset_of(EINVAL, -1);	/* ib_uverbs_get_ucontext */
	e = uv_send(t, f->fd, &c, pick_mut(t, &c));
	check(t, &c, e, want_for(&c, pred, true));
	o = c.out;
	if (!e && c.mut == M_NONE) {
		if (c.cmd == IB_USER_VERBS_CMD_QUERY_DEVICE &&
		    ((struct ib_uverbs_query_device_resp *)o)->phys_port_cnt != nports)
			fail(t, "QUERY_DEVICE: phys_port_cnt changed");
		if (c.cmd == IB_USER_VERBS_CMD_QUERY_PORT) {
			struct ib_uverbs_query_port_resp *r = (void *)o;

			if (r->state < 1 || r->state > 5 || !r->gid_tbl_len || !r->pkey_tbl_len)
				fail(t, "QUERY_PORT %d: state %u, gid_tbl_len %u, pkey_tbl_len %u",
				     port, r->state, r->gid_tbl_len, r->pkey_tbl_len);
		}
		if (c.ex && ((struct ib_uverbs_ex_query_device_resp *)o)->response_length <
		    sizeof(struct ib_uverbs_query_device_resp) + 8)
			fail(t, "EX_QUERY_DEVICE: response_length %u",
			     ((struct ib_uverbs_ex_query_device_resp *)o)->response_length);
	}
	/* uverbs_response: the rest of a longer response zeroed */
	if (!e && c.mut == M_BIGRESP)
		for (size_t i = c.resp_len; o + i < t->resp + PAGE; i++)
			if (o[i]) {
				fail(t, "%s: byte %zu of a longer response not zeroed",
				     cmd_name(c.cmd, c.ex), i);
				break;
			}
	pthread_mutex_unlock(&lock);
}

/* GET_CONTEXT on a file with one: EINVAL (ib_alloc_ucontext); without: success */
void op_context(struct th *t, struct ufile *f)
{
	struct ib_uverbs_get_context req = { 0 };
	struct call c = { .cmd = IB_USER_VERBS_CMD_GET_CONTEXT, .req = &req,
			  .req_len = sizeof(req), .has_resp = true, .udata = true,
			  .resp_len = sizeof(struct ib_uverbs_get_context_resp),
			  .drv_out = 20 };
	struct eset want;
	int e;

	quiesce();
	t->what = "GET_CONTEXT";
	e = uv_send(t, f->fd, &c, pick_mut(t, &c));
	/*
	 * 6.1 finds the context already there in ib_init_ucontext, after the
	 * response is written: a response that cannot be written is EFAULT
	 * even then
	 */
	want = want_for(&c, f->ctx && c.mut != M_BADRESP ? eset_of(EINVAL, -1) :
			eset_of(0, -1), true);
	/* ours finds the context there before it writes the response: either fault */
	if (f->ctx && c.mut == M_BADRESP)
		eset_add(&want, EINVAL);
	check(t, &c, e, want);
	if (!e) {
		struct ib_uverbs_get_context_resp *r = c.out;

		f->ctx = true;
		f->async_fd = r->async_fd;
		if (fcntl(f->async_fd, F_GETFD) < 0 || !r->num_comp_vectors)
			fail(t, "GET_CONTEXT: async_fd %u, num_comp_vectors %u",
			     r->async_fd, r->num_comp_vectors);
	}
	unquiesce();
}

/* completion channels: made, or one closed */
void op_channel(struct th *t, struct ufile *f)
{
	struct ib_uverbs_create_comp_channel req = { 0 };
	struct call c = { .cmd = IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, .req = &req,
			  .req_len = sizeof(req), .has_resp = true,
			  .resp_len = sizeof(struct ib_uverbs_create_comp_channel_resp) };
	int e, i;

	op_lock();
	for (i = 0; i < MAXCH && f->ch[i] >= 0; i++)
		;
	if (i == MAXCH || (chance(t, 3) && !f->chbusy)) {
		/* a channel closed: its CQs keep their reference (6.1) */
		i = below(t, MAXCH);
		if (f->ch[i] >= 0 && !f->chbusy) {
			close(f->ch[i]);
			f->ch[i] = -1;
		}
		pthread_mutex_unlock(&lock);
		return;
	}
	f->ch[i] = -2;		/* reserved */
	op_go(t, "CREATE_COMP_CHANNEL");
	e = uv_send(t, f->fd, &c, pick_mut(t, &c));
	op_back();
	check(t, &c, e, want_for(&c, f->ctx ? eset_of(0, -1) : eset_of(EINVAL, -1), true));
	f->ch[i] = -1;
	if (!e) {
		int fd = ((struct ib_uverbs_create_comp_channel_resp *)c.out)->fd;

		if (fcntl(fd, F_GETFD) < 0)
			fail(t, "CREATE_COMP_CHANNEL: fd %d is not open", fd);
		else
			f->ch[i] = fd;
	}
	op_done();
}

/*
 * What mlx4 does in user space: 6.1 leaves POLL_CQ, PEEK_CQ,
 * REQ_NOTIFY_CQ, POST_SEND, POST_RECV and POST_SRQ_RECV out of the
 * device's uverbs_cmd_mask (device.c), so they run ib_uverbs_notsupp:
 * EOPNOTSUPP, whatever the request.  Also the commands no kernel has
 * (MODIFY_AH, QUERY_AH, REG_SMR, QUERY_MR, BIND_MW) and numbers past the
 * tables.
 */
/*
 * 6.1 runs the header's checks (verify_hdr) for these too, with no
 * minimum sizes: a wrong in_words is EINVAL there; ours answers
 * EOPNOTSUPP for a command it has no handler for before it looks at the
 * sizes.  Which of the two faults comes first is not held against a
 * stack.
 */
bool notsupp_cmd(uint32_t cmd)
{
	switch (cmd) {
	case IB_USER_VERBS_CMD_MODIFY_AH: case IB_USER_VERBS_CMD_QUERY_AH:
	case IB_USER_VERBS_CMD_REG_SMR: case IB_USER_VERBS_CMD_QUERY_MR:
	case IB_USER_VERBS_CMD_BIND_MW: case IB_USER_VERBS_CMD_POLL_CQ:
	case IB_USER_VERBS_CMD_PEEK_CQ: case IB_USER_VERBS_CMD_REQ_NOTIFY_CQ:
	case IB_USER_VERBS_CMD_POST_SEND: case IB_USER_VERBS_CMD_POST_RECV:
	case IB_USER_VERBS_CMD_POST_SRQ_RECV: case IB_USER_VERBS_CMD_CREATE_AH:
	case IB_USER_VERBS_CMD_DESTROY_AH:
		return true;
	}
	return false;
}

void op_notsupp(struct th *t, struct ufile *f)
{
	static const uint32_t cmds[] = {
		IB_USER_VERBS_CMD_POLL_CQ, IB_USER_VERBS_CMD_PEEK_CQ,
		IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, IB_USER_VERBS_CMD_POST_SEND,
		IB_USER_VERBS_CMD_POST_RECV, IB_USER_VERBS_CMD_POST_SRQ_RECV,
		IB_USER_VERBS_CMD_MODIFY_AH, IB_USER_VERBS_CMD_QUERY_AH,
		IB_USER_VERBS_CMD_REG_SMR, IB_USER_VERBS_CMD_QUERY_MR,
		IB_USER_VERBS_CMD_BIND_MW,
	};
	uint64_t req[64];
	struct call c = { .req = req };
	struct eset pred = eset_of(EOPNOTSUPP, -1), want;
	int e, wrs, sges;

	memset(req, 0, sizeof(req));
	if (chance(t, 4)) {
		/* past the tables (6.1: 41 legacy, 58 extended), within the mask */
		c.ex = chance(t, 2);
		c.cmd = c.ex ? 58 + below(t, 198) : 41 + below(t, 215);
		c.req_len = 8 * below(t, 8);
	} else {
		c.cmd = cmds[below(t, sizeof(cmds) / sizeof(cmds[0]))];
		/* a post with wr_count WRs of random sizes and SGEs (bad lkeys) */
		wrs = below(t, 5);
		sges = below(t, 6);
		req[0] = (uintptr_t)t->resp;
		((uint32_t *)req)[2] = below(t, 16);		/* the QP/SRQ/CQ handle */
		((uint32_t *)req)[3] = chance(t, 8) ? rnd(t) : (uint32_t)wrs;
		((uint32_t *)req)[4] = sges;
		((uint32_t *)req)[5] = chance(t, 4) ? below(t, 200) :
				       sizeof(struct ib_uverbs_send_wr);
		for (int i = 6; i < 2 * 64 && i < 6 + wrs * 16 + sges * 4; i++)
			((uint32_t *)req)[i] = chance(t, 3) ? rnd(t) : below(t, 4);
		c.req_len = 8 * (3 + below(t, 61));
	}
	op_lock();
	/* past the tables, uapi_get_method answers before verify_hdr */
	e = uv_send(t, f->fd, &c, chance(t, 8) ?
		    (chance(t, 2) && c.cmd < 41 ? M_INWORDS : M_FLAG) : M_NONE);
	want = want_for(&c, pred, true);
	if (c.mut == M_INWORDS)
		eset_add(&want, EOPNOTSUPP);	/* see notsupp_cmd */
	check(t, &c, e, want);
	pthread_mutex_unlock(&lock);
}

/*
 * Random bytes as a command, with framing that 6.1 refuses before any
 * handler: a count below the header, an unknown flag bit (both EINVAL,
 * ib_uverbs_write and uapi_get_method), or a command of the legacy table
 * whose in_words is not the count (EINVAL, verify_hdr).
 */
void op_garbage(struct th *t, struct ufile *f)
{
	uint32_t b[32];
	size_t n = 8 + 4 * below(t, 31);
	ssize_t r;
	int e;

	for (int i = 0; i < 32; i++)
		b[i] = chance(t, 2) ? rnd(t) : below(t, 64);
	/* responses, if any were written, would go to the hole */
	for (int i = 2; i < 32; i += 2)
		if (chance(t, 2)) {
			b[i] = (uint32_t)(uintptr_t)hole_page;
			b[i + 1] = (uint32_t)((uintptr_t)hole_page >> 32);
		}
	switch (below(t, 3)) {
	case 0:
		n = 4;
		break;
	case 1:
		b[0] |= 1u << (24 + below(t, 7));
		break;
	default:
		b[0] = below(t, 41);
		((uint16_t *)b)[2] = n / 4 + 1 + below(t, 100);
		break;
	}
	op_lock();
	r = write(f->fd, b, n);
	e = r < 0 ? errno : 0;
	pthread_mutex_unlock(&lock);
	note("GARBAGE", e);
	/* a command 6.1 runs ib_uverbs_notsupp for: see op_notsupp */
	if (e == EOPNOTSUPP && n >= 8 && !(b[0] & ~0xffu) && notsupp_cmd(b[0]))
		return;
	if (e != EINVAL)
		fail(t, "a malformed write of %zu bytes (command 0x%x): %s, expected EINVAL",
		     n, b[0], ename(e));
}

/*
 * RDMA_VERBS_IOCTL.  6.1 (uverbs_ioctl.c ib_uverbs_ioctl): another ioctl
 * number ENOTTY (ENOIOCTLCMD); a length other than the header and its
 * attributes EINVAL; reserved1/reserved2 EPROTONOSUPPORT; another
 * driver_id EINVAL (ib_uverbs_cmd_verbs); an unknown object or method
 * EPROTONOSUPPORT; then the method's own checks.  A stack without an
 * ioctl handler (ours, docs/uverbs.md section 5) answers ENOTTY to all:
 * the first call of the run tells which (ioctl_mode).  Only the DEVICE
 * object's methods that make nothing (INFO_HANDLES, QUERY_PORT,
 * QUERY_CONTEXT, QUERY_GID_TABLE, QUERY_GID_ENTRY) run with random
 * attributes, their buffers in the response page or the hole.
 */
int ioctl_mode = -1;	/* 0: no handler (ENOTTY), 1: 6.1's */

static int verbs_ioctl(int fd, unsigned long nr, void *h)
{
	return ioctl(fd, nr, h) < 0 ? errno : 0;
}

int ioctl_probe(int fd)
{
	struct ib_uverbs_ioctl_hdr h = { .length = 1 };
	int e = verbs_ioctl(fd, RDMA_VERBS_IOCTL, &h);

	ioctl_mode = e == ENOTTY ? 0 : e == EINVAL ? 1 : -1;
	return e;
}

void op_ioctl(struct th *t, struct ufile *f)
{
	static const uint16_t methods[] = { 1, 2, 4, 5, 6 };
	struct {
		struct ib_uverbs_ioctl_hdr h;
		struct ib_uverbs_attr a[4];
	} b;
	unsigned long nr = RDMA_VERBS_IOCTL;
	struct eset want;
	unsigned int n = below(t, 5);
	int e;

	memset(&b, 0, sizeof(b));
	b.h.length = sizeof(b.h) + n * sizeof(b.a[0]);
	b.h.num_attrs = n;
	b.h.driver_id = RDMA_DRIVER_MLX4;
	b.h.object_id = UVERBS_OBJECT_DEVICE;
	b.h.method_id = methods[below(t, 5)];
	for (unsigned int i = 0; i < n; i++) {
		b.a[i].attr_id = chance(t, 4) ? rnd(t) : below(t, 8);
		b.a[i].len = below(t, 4) ? 4 * below(t, 64) : rnd(t);
		b.a[i].flags = chance(t, 2) ? 0 : below(t, 8);
		b.a[i].data = chance(t, 3) ? (uintptr_t)hole_page :
			      chance(t, 2) ? (uintptr_t)t->resp : rnd(t);
	}
	switch (below(t, 6)) {
	case 0:
		nr = _IOWR(RDMA_IOCTL_MAGIC, 2 + below(t, 200), struct ib_uverbs_ioctl_hdr);
		want = eset_of(ENOTTY, -1);
		break;
	case 1:
		b.h.length += 1 + below(t, 64);
		want = eset_of(EINVAL, -1);
		break;
	case 2:
		if (chance(t, 2))
			b.h.reserved1 = 1 + below(t, 0xffff);
		else
			b.h.reserved2 = 1 + below(t, 0xffff);
		want = eset_of(EPROTONOSUPPORT, -1);
		break;
	case 3:
		b.h.driver_id = RDMA_DRIVER_MLX4 + 1 + below(t, 30);
		want = eset_of(EINVAL, -1);
		break;
	case 4:
		b.h.object_id = chance(t, 2) ? 0x0fff : UVERBS_OBJECT_DEVICE;
		b.h.method_id = chance(t, 2) || b.h.object_id != UVERBS_OBJECT_DEVICE ?
				0x0fff : 7 + below(t, 100);
		want = eset_of(EPROTONOSUPPORT, -1);
		break;
	default:
		/* the method's checks of its attributes, its copies */
		want = eset_of(0, EINVAL, EFAULT, EOPNOTSUPP, EPROTONOSUPPORT, ENOMEM,
			       ENOSPC, EOVERFLOW, ENOENT, -1);
		break;
	}
	if (ioctl_mode == 0)
		want = eset_of(ENOTTY, -1);
	op_lock();
	e = verbs_ioctl(f->fd, nr, &b);
	pthread_mutex_unlock(&lock);
	note(nr == RDMA_VERBS_IOCTL ? "RDMA_VERBS_IOCTL" : "IOCTL_OTHER", e);
	if (!eset_has(want, e))
		fail(t, "ioctl 0x%lx (object %u, method %u, %u attributes, length %u): %s",
		     nr, b.h.object_id, b.h.method_id, n, b.h.length, ename(e));
}

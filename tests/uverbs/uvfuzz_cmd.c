// SPDX-License-Identifier: GPL-2.0
/*
 * uvfuzz: the raw commands (framing and mutations) and the errnos Linux
 * 6.1 can return for each.  Sources, drivers/infiniband/core unless said:
 * uverbs_main.c (ib_uverbs_write: EINVAL for a count below the header, an
 * extended command below both headers; EFAULT for the header's copy;
 * EACCES when the writer's credentials are not the opener's,
 * ib_safe_file_access; verify_hdr: EINVAL for in_words != count, a
 * reserved ex word, an ex response without out words or out words
 * without a response; ENOSPC for a request or response shorter than the
 * command's core struct), rdma_core.h (uapi_get_method: EINVAL for bits
 * beside EXTENDED and the command mask, EOPNOTSUPP past the tables),
 * uverbs_uapi.c (holes and disabled methods run ib_uverbs_notsupp:
 * EOPNOTSUPP; device.c's default uverbs_cmd_mask leaves out POLL_CQ,
 * PEEK_CQ, REQ_NOTIFY_CQ, POST_SEND, POST_RECV, POST_SRQ_RECV, and mlx4
 * adds none), uverbs_cmd.c (uverbs_request: EOPNOTSUPP for a non-zero
 * tail, EFAULT; uverbs_response: EFAULT, and the rest of a longer response
 * zeroed), rdma_core.c (lookup_get_idr_uobject: ENOENT; a handle of
 * another type EINVAL, rdma_lookup_get_uobject; uverbs_try_lock_object:
 * EBUSY while another command holds it the other way;
 * ib_uverbs_get_ucontext_file: EINVAL without GET_CONTEXT), and each
 * command's handler with the mlx4 driver's verb (hw/mlx4).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "uvfuzz.h"

void eset_add(struct eset *s, int e)
{
	if (e >= 0 && e < 192)
		s->w[e / 64] |= 1ull << (e % 64);
}

void eset_or(struct eset *s, struct eset o)
{
	for (int i = 0; i < 3; i++)
		s->w[i] |= o.w[i];
}

bool eset_has(struct eset s, int e)
{
	return e >= 0 && e < 192 && (s.w[e / 64] >> (e % 64) & 1);
}

struct eset eset_of(int e, ...)
{
	struct eset s = { { 0 } };
	va_list ap;

	va_start(ap, e);
	for (; e >= 0; e = va_arg(ap, int))
		eset_add(&s, e);
	va_end(ap);
	return s;
}

const char *ename(int e)
{
	static __thread char buf[16];
	static const char *const n[] = {
		[0] = "success", [EPERM] = "EPERM", [ENOENT] = "ENOENT", [EIO] = "EIO",
		[ENXIO] = "ENXIO", [EBADF] = "EBADF", [EAGAIN] = "EAGAIN",
		[ENOMEM] = "ENOMEM", [EACCES] = "EACCES", [EFAULT] = "EFAULT",
		[EBUSY] = "EBUSY", [EEXIST] = "EEXIST", [EINVAL] = "EINVAL",
		[ENFILE] = "ENFILE", [EMFILE] = "EMFILE", [ENOSPC] = "ENOSPC",
		[E2BIG] = "E2BIG", [ENODATA] = "ENODATA", [EOPNOTSUPP] = "EOPNOTSUPP",
		[ENOTTY] = "ENOTTY", [EPROTONOSUPPORT] = "EPROTONOSUPPORT",
		[EOVERFLOW] = "EOVERFLOW", [ENOSYS] = "ENOSYS", [ERANGE] = "ERANGE",
	};

	if (e >= 0 && e < (int)(sizeof(n) / sizeof(n[0])) && n[e])
		return n[e];
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static const char *const legacy_names[] = {
	"GET_CONTEXT", "QUERY_DEVICE", "QUERY_PORT", "ALLOC_PD", "DEALLOC_PD",
	"CREATE_AH", "MODIFY_AH", "QUERY_AH", "DESTROY_AH", "REG_MR", "REG_SMR",
	"REREG_MR", "QUERY_MR", "DEREG_MR", "ALLOC_MW", "BIND_MW", "DEALLOC_MW",
	"CREATE_COMP_CHANNEL", "CREATE_CQ", "RESIZE_CQ", "DESTROY_CQ", "POLL_CQ",
	"PEEK_CQ", "REQ_NOTIFY_CQ", "CREATE_QP", "QUERY_QP", "MODIFY_QP",
	"DESTROY_QP", "POST_SEND", "POST_RECV", "ATTACH_MCAST", "DETACH_MCAST",
	"CREATE_SRQ", "MODIFY_SRQ", "QUERY_SRQ", "DESTROY_SRQ", "POST_SRQ_RECV",
	"OPEN_XRCD", "CLOSE_XRCD", "CREATE_XSRQ", "OPEN_QP",
};

const char *cmd_name(uint32_t cmd, bool ex)
{
	static __thread char buf[32];

	if (ex) {
		switch (cmd) {
		case IB_USER_VERBS_EX_CMD_QUERY_DEVICE: return "EX_QUERY_DEVICE";
		case IB_USER_VERBS_EX_CMD_CREATE_CQ: return "EX_CREATE_CQ";
		case IB_USER_VERBS_EX_CMD_CREATE_QP: return "EX_CREATE_QP";
		case IB_USER_VERBS_EX_CMD_MODIFY_QP: return "EX_MODIFY_QP";
		case IB_USER_VERBS_EX_CMD_MODIFY_CQ: return "EX_MODIFY_CQ";
		case IB_USER_VERBS_EX_CMD_DESTROY_FLOW: return "EX_DESTROY_FLOW";
		}
		return cmd >= 58 ? "EX_UNKNOWN" : (snprintf(buf, sizeof(buf), "EX_%u", cmd), buf);
	}
	if (cmd < sizeof(legacy_names) / sizeof(legacy_names[0]))
		return legacy_names[cmd];
	if (cmd >= 41)
		return "CMD_UNKNOWN";
	snprintf(buf, sizeof(buf), "CMD_%u", cmd);
	return buf;
}

/*
 * Everything 6.1 can answer to the command, whatever its input: the
 * framing's (EINVAL, ENOSPC, EOPNOTSUPP, EFAULT) and those of the handler.
 */
struct eset allowed(uint32_t cmd, bool ex)
{
	/* ib_uverbs_write, verify_hdr, uverbs_request/response, no context */
	struct eset s = eset_of(0, EINVAL, ENOSPC, EOPNOTSUPP, EFAULT, -1);
	/* a handle lookup (rdma_core.c) */
	struct eset look = eset_of(ENOENT, EINVAL, EBUSY, -1);
	/*
	 * mlx4_status_to_errno (mlx4_core/cmd.c): a firmware command's status
	 * as an errno, for verbs that pass user values to the card
	 */
	struct eset fw = eset_of(EIO, EPERM, EINVAL, ENXIO, EBADF, EBUSY,
				 ENOMEM, EFAULT, ENFILE, EAGAIN, -1);

	if (ex) {
		switch (cmd) {
		case IB_USER_VERBS_EX_CMD_QUERY_DEVICE:
			return s;
		case IB_USER_VERBS_EX_CMD_CREATE_CQ:
			goto create_cq;
		case IB_USER_VERBS_EX_CMD_CREATE_QP:
			goto create_qp;
		case IB_USER_VERBS_EX_CMD_MODIFY_QP:
			goto modify_qp;
		case IB_USER_VERBS_EX_CMD_MODIFY_CQ:
			/* ib_uverbs_ex_modify_cq, mlx4_ib_modify_cq (MODIFY_CQ) */
			eset_or(&s, look);
			eset_or(&s, fw);
			return s;
		}
		/* flows, WQs, RWQ tables: not sent by the fuzzer */
		eset_add(&s, ENOMEM);
		eset_add(&s, EPERM);
		eset_or(&s, look);
		return s;
	}
	switch (cmd) {
	case IB_USER_VERBS_CMD_GET_CONTEXT:
		/* ib_alloc_ucontext (EINVAL: a second one), the async fd (EMFILE,
		 * ENFILE, ENOMEM), mlx4_ib_alloc_ucontext (mlx4_uar_alloc ENOMEM) */
		eset_add(&s, ENOMEM);
		eset_add(&s, EMFILE);
		eset_add(&s, ENFILE);
		return s;
	case IB_USER_VERBS_CMD_QUERY_DEVICE:
	case IB_USER_VERBS_CMD_QUERY_PORT:
		return s;
	case IB_USER_VERBS_CMD_ALLOC_PD:
		eset_add(&s, ENOMEM);	/* mlx4_pd_alloc's bitmap */
		return s;
	case IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL:
		eset_add(&s, ENOMEM);
		eset_add(&s, EMFILE);
		eset_add(&s, ENFILE);
		return s;
	case IB_USER_VERBS_CMD_DEALLOC_PD:
	case IB_USER_VERBS_CMD_DESTROY_AH:
	case IB_USER_VERBS_CMD_DESTROY_CQ:
	case IB_USER_VERBS_CMD_DESTROY_QP:
	case IB_USER_VERBS_CMD_DESTROY_SRQ:
	case IB_USER_VERBS_CMD_CLOSE_XRCD:
	case IB_USER_VERBS_CMD_DEALLOC_MW:
	case IB_USER_VERBS_CMD_DEREG_MR:
		/* the destroy's lookup; usecnt EBUSY (ib_destroy_usecnt) */
		eset_or(&s, look);
		return s;
	case IB_USER_VERBS_CMD_CREATE_AH:
		/* ib_uverbs_create_ah (port), rdma_create_user_ah, the GID
		 * attribute of a GRH (rdma_get_gid_attr: ENODATA) */
		eset_or(&s, look);
		eset_add(&s, ENOMEM);
		eset_add(&s, ENODATA);
		return s;
	case IB_USER_VERBS_CMD_REG_MR:
	case IB_USER_VERBS_CMD_REREG_MR:
		/* ib_umem_get (EPERM: !can_do_mlock; ENOMEM: RLIMIT_MEMLOCK;
		 * EFAULT: pin_user_pages_fast), mlx4_ib_rereg_user_mr (EPERM:
		 * write access to a read-only umem), SW2HW/HW2SW_MPT */
		eset_or(&s, look);
		eset_or(&s, fw);
		return s;
	case IB_USER_VERBS_CMD_ALLOC_MW:
		eset_or(&s, look);
		eset_or(&s, fw);
		return s;
	case IB_USER_VERBS_CMD_CREATE_CQ:
	create_cq:
		/* create_cq: the channel's fd (lookup_get_fd_uobject EBADF),
		 * mlx4_ib_create_cq (EINVAL, ENOMEM, EFAULT), SW2HW_CQ */
		eset_add(&s, EBADF);
		eset_or(&s, look);
		eset_or(&s, fw);
		return s;
	case IB_USER_VERBS_CMD_RESIZE_CQ:
		/* mlx4_ib_resize_cq: EBUSY with a resize pending, RESIZE_CQ */
		eset_or(&s, look);
		eset_or(&s, fw);
		return s;
	case IB_USER_VERBS_CMD_CREATE_QP:
	create_qp:
		/* create_qp (EPERM: raw packet without CAP_NET_RAW), mlx4's
		 * create_qp_common (EINVAL, ENOMEM, EFAULT), the firmware */
		eset_or(&s, look);
		eset_or(&s, fw);
		return s;
	case IB_USER_VERBS_CMD_QUERY_QP:
		/* ib_uverbs_query_qp (ENOMEM), mlx4_ib_query_qp (QUERY_QP) */
		eset_or(&s, look);
		eset_or(&s, fw);
		return s;
	case IB_USER_VERBS_CMD_MODIFY_QP:
	modify_qp:
		/* modify_qp, ib_modify_qp_with_udata, mlx4_ib_modify_qp
		 * (EINVAL for what the state table refuses), the AV's GID
		 * (ENODATA), and the firmware's statuses */
		eset_or(&s, look);
		eset_or(&s, fw);
		eset_add(&s, ENODATA);
		return s;
	case IB_USER_VERBS_CMD_ATTACH_MCAST:
	case IB_USER_VERBS_CMD_DETACH_MCAST:
		/* ib_attach_mcast/ib_detach_mcast, mlx4_ib_mcg_attach (MGM) */
		eset_or(&s, look);
		eset_or(&s, fw);
		return s;
	case IB_USER_VERBS_CMD_CREATE_SRQ:
	case IB_USER_VERBS_CMD_CREATE_XSRQ:
	case IB_USER_VERBS_CMD_MODIFY_SRQ:
	case IB_USER_VERBS_CMD_QUERY_SRQ:
		/* __uverbs_create_xsrq, mlx4_ib_create_srq (EINVAL, ENOMEM,
		 * EFAULT), mlx4_ib_modify_srq (EINVAL; ARM_SRQ), QUERY_SRQ */
		eset_or(&s, look);
		eset_or(&s, fw);
		return s;
	case IB_USER_VERBS_CMD_OPEN_XRCD:
		/* ib_uverbs_open_xrcd: EBADF (fd), EINVAL (no xrcd without
		 * O_CREAT, O_EXCL with one), ENOMEM; mlx4_ib_alloc_xrcd */
		eset_add(&s, EBADF);
		eset_or(&s, fw);
		return s;
	case IB_USER_VERBS_CMD_OPEN_QP:
		/* ib_uverbs_open_qp, ib_open_qp: EINVAL for an unknown QPN */
		eset_or(&s, look);
		eset_add(&s, ENOMEM);
		return s;
	}
	/* holes, disabled commands, past the table: ib_uverbs_notsupp */
	return s;
}

/* a mutation that applies to the command */
int pick_mut(struct th *t, const struct call *c)
{
	int m;

	if (!chance(t, 6))
		return M_NONE;
	for (int tries = 0; tries < 4; tries++) {
		m = 1 + below(t, M_NMUT - 1);
		switch (m) {
		case M_SHORTREQ:
			/* 6.1's DESTROY_CQ takes 16 bytes (rdma-core v18/v19) */
			if (c->ex || c->req_len < 8 ||
			    c->cmd == IB_USER_VERBS_CMD_DESTROY_CQ)
				continue;
			return m;
		case M_SHORTRESP:
		case M_BADRESP:
		case M_BIGRESP:
			if (!c->resp_len)
				continue;
			return m;
		case M_TAIL:
			if (!c->ex && c->udata)
				continue;
			return m;
		default:
			return m;
		}
	}
	return M_NONE;
}

/* the errno a mutation gives before anything else can, or -1 */
int mut_errno(const struct call *c, int mut)
{
	switch (mut) {
	case M_FLAG:
	case M_INWORDS:
		return EINVAL;
	case M_SHORTREQ:
		return ENOSPC;
	case M_SHORTRESP:
		return c->ex ? -1 : ENOSPC;
	case M_TAIL:
		return EOPNOTSUPP;
	}
	return -1;
}

/*
 * Writes the command.  Legacy: the 8-byte header, in_words counting it
 * (4-byte units), the request whose first u64 is the response pointer,
 * then the driver's words.  Extended: 0x80000000 | cmd, the 16-byte ex
 * header, 8-byte units.  The response ends where the response page ends,
 * the guard page right after it.  Returns 0 or the errno.
 */
int uv_send(struct th *t, int fd, struct call *c, int mut)
{
	struct ib_uverbs_cmd_hdr hdr = { 0 };
	struct ib_uverbs_ex_cmd_hdr exh = { 0 };
	size_t out = c->resp_len + c->drv_out, body, hl, tail = 0, n;
	unsigned char *b = t->wbuf;
	uint64_t rp;
	ssize_t r;

	c->mut = mut;
	c->noctx = (fd == files[0].fd && !files[0].ctx) || (fd == files[1].fd && !files[1].ctx);
	if (mut == M_BIGRESP)
		out += 64 + 8 * below(t, 24);
	if (out > PAGE)
		out = PAGE;
	c->out = t->resp + PAGE - out;
	memset(c->out, 0xa5, out);
	rp = out ? (uintptr_t)c->out : 0;
	if (mut == M_BADRESP)
		rp = (uintptr_t)hole_page;
	if (mut == M_TAIL)
		tail = 8;

	hl = c->ex ? sizeof(hdr) + sizeof(exh) : sizeof(hdr);
	body = c->req_len + tail + c->drv_len;
	memcpy(b + hl, c->req, c->req_len);
	if (tail)
		memset(b + hl + c->req_len, 0x5a, tail);
	if (c->drv_len)
		memcpy(b + hl + c->req_len + tail, c->drv, c->drv_len);
	n = hl + body;

	hdr.command = c->cmd;
	if (c->ex) {
		hdr.command |= IB_USER_VERBS_CMD_FLAG_EXTENDED;
		hdr.in_words = (c->req_len + tail) / 8;
		hdr.out_words = c->resp_len / 8 + (out - c->resp_len - c->drv_out) / 8;
		exh.provider_in_words = c->drv_len / 8;
		exh.provider_out_words = c->drv_out / 8;
		exh.response = c->resp_len ? rp : 0;
		if (mut == M_SHORTRESP)
			hdr.out_words = 1;
		memcpy(b + sizeof(hdr), &exh, sizeof(exh));
	} else {
		hdr.in_words = n / 4;
		hdr.out_words = out / 4;
		if (c->has_resp)
			memcpy(b + hl, &rp, 8);
		if (mut == M_SHORTREQ) {
			/* a request cut before the end of its core struct */
			n = hl + 4 * below(t, c->req_len / 4);
			hdr.in_words = n / 4;
		}
		if (mut == M_SHORTRESP)
			hdr.out_words = below(t, c->resp_len / 4);
	}
	if (mut == M_INWORDS)
		hdr.in_words += 1 + below(t, 3);
	if (mut == M_FLAG)
		hdr.command |= 1u << (24 + below(t, 7));
	memcpy(b, &hdr, sizeof(hdr));
	r = write(fd, b, n);
	if (r < 0)
		return errno;
	if ((size_t)r != n) {
		fail(t, "%s: write() of %zu bytes returned %zd", cmd_name(c->cmd, c->ex),
		     n, r);
		return 0;
	}
	return 0;
}

/* the result against what was expected; counted for the summary */
void check(struct th *t, const struct call *c, int got, struct eset want)
{
	char exp[256];
	size_t l = 0;

	note(cmd_name(c->cmd, c->ex), got);
	if (eset_has(want, got))
		return;
	exp[0] = 0;
	for (int e = 0; e < 192 && l < sizeof(exp) - 20; e++)
		if (eset_has(want, e))
			l += snprintf(exp + l, sizeof(exp) - l, "%s%s", l ? "|" : "",
				      ename(e));
	fail(t, "%s (mutation %d): %s, expected %s", cmd_name(c->cmd, c->ex),
	     c->mut, ename(got), exp);
}

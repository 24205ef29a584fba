// SPDX-License-Identifier: GPL-2.0
/*
 * The write() framing: short, oversized and malformed legacy and extended
 * headers, unknown commands, bad user pointers; and the ioctl entry.
 * Sources: drivers/infiniband/core/uverbs_main.c (ib_uverbs_write,
 * verify_hdr), rdma_core.h (uapi_get_method), uverbs_uapi.c (notsupp
 * method), uverbs_cmd.c (uverbs_request, uverbs_response,
 * ib_uverbs_ex_query_device), uverbs_ioctl.c (ib_uverbs_ioctl).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "uvtool.h"

/* an address with nothing mapped: a page mapped and unmapped again */
static void *hole(void)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p, 4096);
	return p;
}

/* a legacy QUERY_DEVICE whose header says what the caller wants */
static int qdev(int fd, uint16_t in_words, size_t count, uint16_t out_words,
		void *resp, unsigned char tail)
{
	unsigned char *buf = calloc(1, count + 8);
	struct ib_uverbs_cmd_hdr hdr = {
		.command = IB_USER_VERBS_CMD_QUERY_DEVICE,
		.in_words = in_words,
		.out_words = out_words,
	};
	uint64_t r = (uintptr_t)resp;
	int ret;

	if (!buf)
		return ENOMEM;
	if (count > sizeof(hdr) + 8)
		memset(buf + sizeof(hdr) + 8, tail, count - sizeof(hdr) - 8);
	memcpy(buf, &hdr, sizeof(hdr));
	if (count >= sizeof(hdr) + 8)
		memcpy(buf + sizeof(hdr), &r, sizeof(r));
	ret = uv_write_buf(fd, buf, count);
	free(buf);
	return ret;
}

static void legacy(int fd)
{
	struct ib_uverbs_query_device_resp resp;
	struct ib_uverbs_query_port_resp pr[4];
	struct ib_uverbs_query_port qp = { .port_num = 1 };
	struct ib_uverbs_cmd_hdr hdr = { .command = 6, .in_words = 2 };
	unsigned char *big;
	size_t i;
	bool zero = true;
	int e;

	/* ib_uverbs_write: count < sizeof(hdr) */
	e = uv_write_buf(fd, &hdr, 4);
	uv_expect("hdr-short", "a 4-byte write", e, EINVAL, fd);

	/* uapi_get_method: bits beside EXTENDED and the command mask */
	hdr.command = 0x40000000 | IB_USER_VERBS_CMD_QUERY_DEVICE;
	e = uv_write_buf(fd, &hdr, sizeof(hdr));
	uv_expect("hdr-flags", "command with an unknown flag bit (0x40000000)",
		  e, EINVAL, fd);

	/* uapi_get_method: index past the write table */
	hdr.command = 200;
	e = uv_write_buf(fd, &hdr, sizeof(hdr));
	uv_expect("hdr-unknown", "legacy command 200", e, EOPNOTSUPP, fd);

	/* uverbs_uapi.c: a hole of the table runs ib_uverbs_notsupp */
	hdr.command = 6;	/* MODIFY_AH: no kernel implements it */
	e = uv_write_buf(fd, &hdr, sizeof(hdr));
	uv_expect("hdr-notimpl", "legacy MODIFY_AH (6), never implemented",
		  e, EOPNOTSUPP, fd);

	/* uapi_get_method: index past the extended table */
	hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | 200;
	e = uv_write_buf(fd, &hdr, sizeof(hdr));
	uv_expect("hdr-ex-unknown", "extended command 200", e, EOPNOTSUPP, fd);

	/* verify_hdr: in_words * 4 != count */
	e = qdev(fd, 3, 16, sizeof(resp) / 4, &resp, 0);
	uv_expect("hdr-inwords", "in_words 3 for a 16-byte write", e, EINVAL,
		  fd);

	/* verify_hdr: count < req_size + header */
	hdr.command = IB_USER_VERBS_CMD_DEALLOC_PD;
	hdr.in_words = 2;
	e = uv_write_buf(fd, &hdr, sizeof(hdr));
	uv_expect("hdr-short-req", "DEALLOC_PD with no request body", e,
		  ENOSPC, fd);

	/* verify_hdr: out_words * 4 < resp_size */
	e = qdev(fd, 4, 16, 1, &resp, 0);
	uv_expect("hdr-short-resp", "QUERY_DEVICE with a 4-byte response", e,
		  ENOSPC, fd);

	/* uverbs_request: a longer request is fine if the rest is zero */
	memset(&resp, 0, sizeof(resp));
	e = qdev(fd, 64, 256, sizeof(resp) / 4, &resp, 0);
	if (!e && resp.vendor_id != 0x2c9)
		e = -1;		/* success, but no response written */
	uv_expect("hdr-long-zero", "QUERY_DEVICE of 256 bytes, tail zero: success",
		  e, 0, fd);

	/* uverbs_request: ... and EOPNOTSUPP if it is not */
	e = qdev(fd, 64, 256, sizeof(resp) / 4, &resp, 0xa5);
	uv_expect("hdr-long-dirty", "QUERY_DEVICE of 256 bytes, tail non-zero",
		  e, EOPNOTSUPP, fd);

	/* in_words is 16 bits: 300000 bytes never match (verify_hdr) */
	e = qdev(fd, 0xffff, 300000, sizeof(resp) / 4, &resp, 0);
	uv_expect("hdr-huge", "a 300000-byte write (in_words 0xffff)", e,
		  EINVAL, fd);

	/* uverbs_response: the response buffer beyond the struct is zeroed */
	memset(pr, 0xff, sizeof(pr));
	qp.response = (uintptr_t)pr;
	e = uv_cmd(fd, IB_USER_VERBS_CMD_QUERY_PORT, &qp, sizeof(qp),
		   sizeof(pr));
	big = (unsigned char *)pr;
	for (i = sizeof(pr[0]); i < sizeof(pr); i++)
		zero &= big[i] == 0;
	uv_check("hdr-long-resp", !e && zero,
		 "QUERY_PORT with a 4x response buffer: success, the rest zeroed",
		 "%s", e ? strerror(e) : "bytes past the response not zeroed");

	/* uverbs_response: copy_to_user to an unmapped response */
	e = qdev(fd, 4, 16, sizeof(resp) / 4, hole(), 0);
	uv_expect("hdr-resp-fault", "QUERY_DEVICE with an unmapped response pointer",
		  e, EFAULT, fd);

	/* ib_uverbs_write: copy_from_user of the header */
	e = uv_write_buf(fd, hole(), 16);
	uv_expect("hdr-buf-fault", "write() from an unmapped buffer", e, EFAULT,
		  fd);
}

/* an extended command: header, ex header, request */
struct ex_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex;
	struct ib_uverbs_ex_query_device req;
};

static void ex_init(struct ex_cmd *c, void *resp, size_t resp_len)
{
	memset(c, 0, sizeof(*c));
	c->hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED |
			 IB_USER_VERBS_EX_CMD_QUERY_DEVICE;
	c->hdr.in_words = sizeof(c->req) / 8;
	c->hdr.out_words = resp_len / 8;
	c->ex.response = (uintptr_t)resp;
}

static void extended(int fd)
{
	struct ib_uverbs_ex_query_device_resp resp;
	struct ex_cmd c;
	int e;

	/* ib_uverbs_write: an extended command shorter than both headers */
	ex_init(&c, &resp, sizeof(resp));
	e = uv_write_buf(fd, &c, 16);
	uv_expect("ex-short", "a 16-byte extended write", e, EINVAL, fd);

	/* verify_hdr: cmd_hdr_reserved != 0 */
	ex_init(&c, &resp, sizeof(resp));
	c.ex.cmd_hdr_reserved = 1;
	e = uv_write_buf(fd, &c, sizeof(c));
	uv_expect("ex-reserved", "ex header reserved word non-zero", e, EINVAL,
		  fd);

	/* verify_hdr: (in_words + provider_in_words) * 8 != count */
	ex_init(&c, &resp, sizeof(resp));
	c.hdr.in_words = 2;
	e = uv_write_buf(fd, &c, sizeof(c));
	uv_expect("ex-inwords", "ex in_words 2 for an 8-byte request", e,
		  EINVAL, fd);

	/*
	 * Extended commands have no minimum sizes: uapi_create_write
	 * (uverbs_uapi.c) leaves req_size and resp_size 0 for them, so
	 * verify_hdr passes, and uverbs_request zero-extends a short request:
	 * in_words 0 is a request of zeros, i.e. a good one.
	 */
	ex_init(&c, &resp, sizeof(resp));
	c.hdr.in_words = 0;
	c.ex.provider_in_words = 1;
	e = uv_write_buf(fd, &c, sizeof(c));
	uv_expect("ex-short-req", "ex in_words 0 (the request as provider words): "
		  "zero-extended, success", e, 0, fd);

	/* verify_hdr: a response pointer and no room for it */
	ex_init(&c, &resp, 0);
	e = uv_write_buf(fd, &c, sizeof(c));
	uv_expect("ex-no-out", "ex response pointer with out_words 0", e,
		  EINVAL, fd);

	/* verify_hdr: out words without a response pointer */
	ex_init(&c, NULL, sizeof(resp));
	e = uv_write_buf(fd, &c, sizeof(c));
	uv_expect("ex-no-resp", "ex out_words without a response pointer", e,
		  EINVAL, fd);

	/* ... and uverbs_response writes only what fits of a short response */
	memset(&resp, 0xa5, sizeof(resp));
	ex_init(&c, &resp, 8);
	e = uv_write_buf(fd, &c, sizeof(c));
	uv_check("ex-short-resp", !e && resp.base.vendor_id == 0xa5a5a5a5 &&
		 resp.base.fw_ver != 0xa5a5a5a5a5a5a5a5ull,
		 "ex QUERY_DEVICE with an 8-byte response: success, 8 bytes written",
		 "errno %d, vendor_id 0x%x", e, resp.base.vendor_id);

	/* ib_uverbs_ex_query_device: comp_mask != 0 */
	ex_init(&c, &resp, sizeof(resp));
	c.req.comp_mask = 1;
	e = uv_write_buf(fd, &c, sizeof(c));
	uv_expect("ex-comp-mask", "ex QUERY_DEVICE with comp_mask 1", e, EINVAL,
		  fd);

	/* ib_uverbs_ex_query_device: reserved != 0 */
	ex_init(&c, &resp, sizeof(resp));
	c.req.reserved = 1;
	e = uv_write_buf(fd, &c, sizeof(c));
	uv_expect("ex-req-reserved", "ex QUERY_DEVICE with reserved 1", e,
		  EINVAL, fd);

	/* the well-formed one */
	memset(&resp, 0, sizeof(resp));
	ex_init(&c, &resp, sizeof(resp));
	e = uv_write_buf(fd, &c, sizeof(c));
	uv_check("ex-ok", !e && resp.response_length >= sizeof(resp.base) &&
		 resp.base.vendor_id == 0x2c9,
		 "ex QUERY_DEVICE: success, response_length and vendor 0x2c9",
		 "errno %d, response_length %u, vendor 0x%x", e,
		 resp.response_length, resp.base.vendor_id);
}

void uv_hdr(void)
{
	struct ibv_context *ctx = uv_open();

	if (!ctx) {
		uv_check("hdr-open", false, "open the device", "%s",
			 strerror(errno));
		return;
	}
	legacy(ctx->cmd_fd);
	extended(ctx->cmd_fd);
	ibv_close_device(ctx);
}

void uv_ioctl(void)
{
	struct ibv_context *ctx = uv_open();
	struct ib_uverbs_ioctl_hdr h;
	int e;

	if (!ctx) {
		uv_check("ioctl-open", false, "open the device", "%s",
			 strerror(errno));
		return;
	}
	/* ib_uverbs_ioctl: any other number is -ENOIOCTLCMD, i.e. ENOTTY */
	memset(&h, 0, sizeof(h));
	h.length = sizeof(h);
	e = ioctl(ctx->cmd_fd, _IOWR(RDMA_IOCTL_MAGIC, 0x7f, h), &h) ? errno : 0;
	uv_expect("ioctl-unknown", "ioctl 0x7f of type 0x1b", e, ENOTTY,
		  ctx->cmd_fd);

	/*
	 * RDMA_VERBS_IOCTL with reserved1 set: the kernel's uverbs answers
	 * EPROTONOSUPPORT (ib_uverbs_ioctl); ours has no ioctl handler at all
	 * (docs/uverbs.md section 5), so ENOTTY, which libibverbs takes as
	 * "write() only" (shared/docs/userspace-interop.md 2.1).
	 */
	h.reserved1 = 1;
	e = ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, &h) ? errno : 0;
	uv_expect("ioctl-verbs",
		  uv_opts.inbox ? "RDMA_VERBS_IOCTL, reserved1 set (in-tree uverbs)" :
				  "RDMA_VERBS_IOCTL (no ioctl handler)",
		  e, uv_opts.inbox ? EPROTONOSUPPORT : ENOTTY, ctx->cmd_fd);
	ibv_close_device(ctx);
}

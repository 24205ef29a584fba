/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uvtool: /dev/infiniband/uverbsN from user space, with raw write()s laid
 * out as /usr/include/rdma/ib_user_verbs.h says and with libibverbs.
 * Every expected errno is Linux 6.1's (drivers/infiniband/core); the
 * comment next to each check names the function that returns it.
 */
#ifndef UVTOOL_H
#define UVTOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

/* what the run was asked for (-s, -d) */
struct uv_opts {
	bool inbox;		/* the kernel's own ib_uverbs, not ours */
	const char *dev;	/* device name, default the first one */
	const char *ready;	/* async-port: file created once waiting */
};

extern struct uv_opts uv_opts;

/* one check: PASS when ok, else FAIL with why (printf-style) */
void uv_check(const char *name, bool ok, const char *what,
	      const char *whyfmt, ...) __attribute__((format(printf, 4, 5)));
void uv_skip(const char *name, const char *what, const char *why);
/* errno check: got == want, and the command file still answers */
void uv_expect(const char *name, const char *what, int got, int want,
	       int fd);

/* device files */
struct ibv_context *uv_open(void);
bool uv_usable(int fd);

/* raw commands: 0 or the errno of write() */
int uv_write_buf(int fd, const void *buf, size_t count);
int uv_cmd(int fd, uint32_t cmd, const void *req, size_t req_len,
	   size_t out_len);
int uv_alloc_pd(int fd, uint32_t *handle);
int uv_dealloc_pd(int fd, uint32_t handle);
int uv_reg_mr(int fd, uint32_t pd, uint64_t start, uint64_t len,
	      uint64_t hca_va, uint32_t access, uint32_t *handle);
int uv_dereg_mr(int fd, uint32_t handle);
int uv_create_cq(int fd, int channel, uint32_t vector, uint32_t *handle);

/* pinned pages of this process (VmPin, kB), -1 when unknown */
long uv_vmpin_kb(void);
bool uv_cap_ipc_lock(void);

/* a loop-back RC QP of port 1, connected to itself */
struct uv_lb {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint16_t lid;
};

/* 0, or a reason to skip (static string) in *why */
int uv_lb_open(struct ibv_context *ctx, struct ibv_comp_channel *ch,
	       struct uv_lb *lb, const char **why);
void uv_lb_close(struct uv_lb *lb);
int uv_lb_post(struct uv_lb *lb, enum ibv_wr_opcode op, struct ibv_mr *lmr,
	       void *laddr, uint64_t raddr, uint32_t rkey, uint32_t len);
/* the next completion's status, -1 after 5 s without one */
int uv_lb_wait(struct uv_lb *lb);

/* the groups of cases */
void uv_hdr(void);
void uv_handles(void);
void uv_attrs(void);
void uv_mr(void);
void uv_memlock(void);
void uv_fork(void);
int uv_fork_init_probe(const char *stack);
void uv_channel(void);
void uv_async(void);
void uv_async_port(void);
void uv_ioctl(void);
void uv_many(void);
void uv_life(void);

#endif

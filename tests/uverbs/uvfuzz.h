/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uvfuzz: random and mutated command sequences on /dev/infiniband/uverbsN
 * through raw write()s laid out as /usr/include/rdma/ib_user_verbs.h says,
 * with a model of each file's live objects so that most results can be
 * predicted exactly, and every result is one Linux 6.1 can give for the
 * command (drivers/infiniband/core, drivers/infiniband/hw/mlx4).
 */
#ifndef UVFUZZ_H
#define UVFUZZ_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rdma/ib_user_ioctl_verbs.h>	/* IB_UVERBS_ACCESS_* */

#define MAXOBJ		256	/* object slots per file */
#define MAXCH		8	/* completion channels per file */
#define NSTALE		32	/* handles destroyed lately, per file */
#define NEVER		100000	/* handles from here on are never given */
#define ARENA		(4u << 20)	/* buffers, doorbells and MR targets */
#define PAGE		4096u

/* REREG_MR's flags (6.1's include/rdma/ib_verbs.h, not in the uapi) */
#define IB_MR_REREG_TRANS	1u
#define IB_MR_REREG_PD		2u
#define IB_MR_REREG_ACCESS	4u

/* the model's object types (not the kernel's numbers) */
enum { T_NONE, T_PD, T_MR, T_MW, T_CQ, T_QP, T_SRQ, T_AH, T_XRCD, T_NTYPES };

struct obj {
	bool used;		/* the slot holds a live object */
	uint8_t type;
	uint8_t qpt;		/* QP: IB_QPT_*; SRQ: 0 basic, 1 XRC */
	int8_t state;		/* QP: last known state, -1 unknown */
	uint8_t port;		/* QP: its port since RESET->INIT, 0 unknown */
	uint32_t gen;		/* which object the slot holds (never reused) */
	uint32_t touch;		/* operations that held it, ever */
	uint32_t h;		/* its handle */
	int busy;		/* operations in flight on it */
	bool dying;		/* a destroy is in flight */
	bool quarantined;	/* released while operations held it */
	int users;		/* objects holding it (the kernel's usecnt) */
	int dep[4];		/* slots of what it holds, -1: none */
	int nmcast;		/* QP: groups attached */
	uint32_t cqe, lkey;
};

struct ufile {
	int fd;			/* -1: closed */
	bool ctx;		/* GET_CONTEXT done */
	int async_fd;
	int gen;		/* counts reopenings */
	int creating;		/* creates in flight (they take handle numbers) */
	uint32_t creates;	/* creates started, ever */
	int stale_ops;		/* operations in flight on a number that may be freed or is free */
	int quarantine;		/* objects released while still held */
	struct obj o[MAXOBJ];
	int ch[MAXCH];		/* completion channel fds, -1 */
	int chbusy;		/* creates in flight that name a channel */
	uint32_t stale[NSTALE];	/* handles destroyed lately */
	unsigned int nstale;
};

/* one thread's state: its generator, buffers, and what it is doing */
struct th {
	int id;
	uint64_t rng;
	unsigned char *wbuf;	/* the write() buffer */
	unsigned char *resp;	/* response page; a guard page follows it */
	volatile unsigned long opno;
	volatile const char *what;
	pthread_t pt;
	bool joined;
};

/* the errnos a call may end with: bit e of w[e / 64]; bit 0 is success */
struct eset {
	uint64_t w[3];
};

/* a raw command, as built by the operations and sent by uv_send */
struct call {
	uint32_t cmd;		/* IB_USER_VERBS_CMD_* (legacy) or EX_CMD_* */
	bool ex;
	bool has_resp;		/* legacy: the request starts with the response pointer */
	bool udata;		/* the driver's udata follows (6.1: has_udata) */
	void *req;
	size_t req_len;		/* the core request */
	const void *drv;	/* the driver's request */
	size_t drv_len;
	size_t resp_len;	/* the core response */
	size_t drv_out;		/* the driver's response */
	/* what uv_send did (filled in by it) */
	int mut;		/* M_* below */
	bool noctx;		/* sent on a file without GET_CONTEXT */
	void *out;		/* where the response went */
};

enum { M_NONE, M_INWORDS, M_SHORTREQ, M_SHORTRESP, M_BADRESP, M_TAIL, M_FLAG,
       M_BIGRESP, M_NMUT };

/* uvfuzz.c */
extern struct ufile files[2];
extern pthread_mutex_t lock;
extern uint64_t seed;
extern bool verbose;
extern char *arena;		/* ARENA bytes, read-write */
extern char *ro_page, *none_page, *hole_page;
extern unsigned int num_comp_vectors, max_cqe, max_qp_wr, max_sge, max_srq_wr;
extern uint16_t port_lid[3];
extern int nports;
extern int nthreads;

uint32_t rnd(struct th *t);
uint32_t below(struct th *t, uint32_t n);
bool chance(struct th *t, unsigned int one_in);
void fail(struct th *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note(const char *cmd, int e);	/* the summary's counts */

/* uvfuzz_cmd.c: sending, and the errnos of 6.1 */
int uv_send(struct th *t, int fd, struct call *c, int mut);
int pick_mut(struct th *t, const struct call *c);
struct eset eset_of(int e, ...);	/* list ends with -1 */
void eset_add(struct eset *s, int e);
void eset_or(struct eset *s, struct eset o);
bool eset_has(struct eset s, int e);
struct eset allowed(uint32_t cmd, bool ex);	/* all 6.1 can return */
const char *cmd_name(uint32_t cmd, bool ex);
const char *ename(int e);
/* the errno a mutation gives for sure (6.1's order of checks), or -1 */
int mut_errno(const struct call *c, int mut);
void check(struct th *t, const struct call *c, int got, struct eset want);

/* uvfuzz_ops.c: the model, files, fork, and the dispatch */
struct pk {		/* a handle chosen for a command */
	uint32_t h;
	int slot;	/* its live object in the file, -1: none */
	uint32_t gen;	/* that object's generation */
	uint32_t touch;	/* hold(): the object's touches, or the file's creates */
	bool calm;	/* unhold(): nothing else touched it (or made an object) since */
	bool stale;	/* a number the kernel may give to a new object */
	int cls;	/* 0: of the type asked, ENOENT, EINVAL */
	bool strict;	/* nothing in flight can change that */
};
void run_op(struct th *t);
struct pk pick(struct th *t, struct ufile *f, int type, bool excl, unsigned int bad_pct);
int new_obj(struct th *t, struct ufile *f, int type, uint32_t h);
void model_release(struct ufile *f, int slot);
int find_handle(struct ufile *f, uint32_t h);
int count_type(struct ufile *f, int type);
bool same_obj(struct ufile *f, const struct pk *p);
void hold(struct ufile *f, struct pk *p, bool excl);
void unhold(struct ufile *f, struct pk *p, bool excl);
void begin_create(struct ufile *f);
void begin_destroy(struct ufile *f);
void op_lock(void);
void op_go(struct th *t, const char *what);
void op_back(void);
void op_done(void);
struct eset want_for(const struct call *c, struct eset pred, bool strict);
void file_open(struct ufile *f, bool ctx);
void file_close(struct ufile *f);
struct ufile *pick_file(struct th *t);
struct ufile *other_file(struct ufile *f);
uint64_t arena_buf(struct th *t, size_t len);

/* uvfuzz_obj.c, uvfuzz_qp.c, uvfuzz_srq.c: the operations on each kind of object */
void op_pd(struct th *t, struct ufile *f);
void op_mr(struct th *t, struct ufile *f);
void op_mw(struct th *t, struct ufile *f);
void op_cq(struct th *t, struct ufile *f);
void op_qp(struct th *t, struct ufile *f);
void op_modify_qp(struct th *t, struct ufile *f);
void op_srq(struct th *t, struct ufile *f);
void op_ah(struct th *t, struct ufile *f);
void op_xrcd(struct th *t, struct ufile *f);
void op_mcast(struct th *t, struct ufile *f);
void op_destroy(struct th *t, struct ufile *f, int type);
struct eset ah_want(const struct call *c);
void quiesce(void);
void unquiesce(void);

/* uvfuzz_dev.c: the file-wide operations */
void reopen_op(struct th *t);
void fork_op(struct th *t);
void op_query(struct th *t, struct ufile *f);
void op_context(struct th *t, struct ufile *f);
void op_channel(struct th *t, struct ufile *f);
void op_notsupp(struct th *t, struct ufile *f);
void op_garbage(struct th *t, struct ufile *f);
bool notsupp_cmd(uint32_t cmd);
void op_ioctl(struct th *t, struct ufile *f);
int ioctl_probe(int fd);
extern int ioctl_mode;

#endif

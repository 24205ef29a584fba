/* SPDX-License-Identifier: GPL-2.0 */
/* The ib_sa test client's shared state and helpers. */
#ifndef IBSTACK_KSA_H
#define IBSTACK_KSA_H

#include <linux/completion.h>
#include <rdma/ib_sa.h>

#define KSA_PFX "ibstack_ksa: "
#define KSA_TIMEOUT_MS	2000

struct ksa_port {
	u32			port_num;
	struct ib_port_attr	attr;
	union ib_gid		gid;	/* index 0 */
	u16			pkey;	/* index 0 */
};

/* the device under test, its two ports, the results of the current command */
struct ksa_ctx {
	struct ib_device	*device;
	struct ksa_port		port[2];
	unsigned int		passed;
	unsigned int		failed;
};

/* a path query's callback results (ksa_path_cb's context) */
struct ksa_async {
	struct completion	done;
	int			status;
	int			calls;
	int			num;
	struct sa_path_rec	rec;
};

extern struct ib_sa_client ksa_client;
extern unsigned int ksa_peer_lid[2];

void ksa_pass(struct ksa_ctx *ctx, const char *name);
__printf(3, 4) void ksa_fail(struct ksa_ctx *ctx, const char *name,
			     const char *fmt, ...);
/* PASS if ok, else FAIL with the formatted reason */
__printf(4, 5) void ksa_check(struct ksa_ctx *ctx, bool ok, const char *name,
			      const char *fmt, ...);

int ksa_refresh_ports(struct ksa_ctx *ctx);

void ksa_path_tests(struct ksa_ctx *ctx);
/* the request from port src to the other port (or peer_lid) */
ib_sa_comp_mask ksa_path_req(struct ksa_ctx *ctx, int src,
			     struct sa_path_rec *req);
void ksa_path_cb(int status, struct sa_path_rec *resp, int num_prs,
		 void *context);
/*
 * [sleep] ib_sa_path_rec_get() waiting for the answer: 0 with *resp, or
 * the call's or the callback's errno (a signal cancels the query, the
 * result is then -EINTR unless the answer got there first)
 */
int ksa_path_get_sync(struct ksa_ctx *ctx, u32 port_num,
		      struct sa_path_rec *req, ib_sa_comp_mask mask,
		      unsigned long timeout_ms, struct sa_path_rec *resp);
void ksa_atomic_tests(struct ksa_ctx *ctx);
void ksa_path_port_down(struct ksa_ctx *ctx);
void ksa_path_no_sm(struct ksa_ctx *ctx);
/* a join of port 1 that creates a group of mgid (zero: the SA picks) */
ib_sa_comp_mask ksa_create_rec(struct ksa_ctx *ctx, const union ib_gid *mgid,
			       u8 scope, struct ib_sa_mcmember_rec *rec);
void ksa_mcast_join(struct ksa_ctx *ctx);
void ksa_mcast_leave_one(struct ksa_ctx *ctx);
void ksa_mcast_leave(struct ksa_ctx *ctx);
void ksa_mcast_rejoin_check(struct ksa_ctx *ctx);
void ksa_mcast_port_down(struct ksa_ctx *ctx);
void ksa_mcast_cleanup(void);

#endif /* IBSTACK_KSA_H */

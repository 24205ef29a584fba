/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verbsbench: what its files share.  verbsbench.c parses the command line,
 * runs the threads of each test and prints the results; vb_tests.c has the
 * tests themselves (what a thread prepares, the timed operation, what it
 * releases), vb_mem.c the MR tests' buffers, vb_hold.c --hold-qps.
 */
#ifndef VB_H
#define VB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#define VB_CQE		256
#define VB_QP_WR	64

#define MIB		(1024UL * 1024)
#define GIB		(1024 * MIB)
#define HUGE_PAGE	(2 * MIB)

/* The whole run's settings, fixed before any test starts. */
struct vb_config {
	struct ibv_context	*ctx;	/* one, shared by every thread */
	const char		*dev_name;
	char			port_name[80];	/* "mlx4_0 port 1" */
	uint8_t			port;
	uint16_t		lid;	/* the port's LID (0: no SM) */
	int			threads;
	double			seconds;
};

struct vb_thread;

struct vb_test {
	const char	*name;
	size_t		mr_size;	/* MR tests: the size, else 0 */
	bool		huge;		/* MR tests: MAP_HUGETLB */
	/* before the barrier: what the timed loop needs; 0 or -1 */
	int		(*setup)(struct vb_thread *t);
	/* one complete iteration, timed; 0 or -1 (the error is printed) */
	int		(*op)(struct vb_thread *t);
	/* after the loop (also after a failed setup); 0 or -1 */
	int		(*teardown)(struct vb_thread *t);
};

/* One thread of one test. */
struct vb_thread {
	const struct vb_config	*cfg;
	const struct vb_test	*test;
	int			index;
	struct ibv_pd		*pd;
	struct ibv_cq		*cq;
	void			*buf;		/* MR tests */
	size_t			buf_len;
	bool			own_buf;	/* else the shared buffer */
	uint64_t		ops;
	int64_t			start_ns;
	int64_t			end_ns;
	bool			failed;
};

extern const struct vb_test vb_tests[];
extern const size_t vb_ntests;

const struct vb_test *vb_find_test(const char *name);
/* An MR test with a buffer every thread registers: mr-1g* with threads > 1 */
bool vb_shared_buffer(const struct vb_config *cfg, const struct vb_test *test);
void *vb_map_buffer(const struct vb_test *test);
void vb_unmap_buffer(void *buf, size_t len);
int vb_hold_qps(const struct vb_config *cfg, long n);

/* "verbsbench: TEST: VERB failed: errno N (text)" on stderr */
void vb_verb_error(const char *test, const char *verb, int err);
/* The error of a verb that returns an int: its errno value, or errno */
int vb_verb_ret(int ret);

/* t->pd, or -1 after printing why */
int vb_alloc_pd(struct vb_thread *t);
/* Destroys t->cq and t->pd if there; 0, or -1 if a verb failed */
int vb_release(struct vb_thread *t);
/* An RC QP of VB_QP_WR send and receive WRs, one SGE; NULL and errno */
struct ibv_qp *vb_create_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq);
/* RESET to INIT on port (P_Key index 0, remote read and write) */
int vb_qp_to_init(struct ibv_qp *qp, uint8_t port);

#endif /* VB_H */

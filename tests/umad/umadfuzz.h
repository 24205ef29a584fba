/* SPDX-License-Identifier: GPL-2.0 */
/*
 * umadfuzz (tests/umad/umadfuzz.c): what its files share.  umadfuzz.c
 * runs the operations and judges the results; umadfuzz-reg.c registers
 * agents and models ib_mad's registrations; umadfuzz-mad.c writes and
 * reads MADs.
 */
#ifndef UMADFUZZ_H
#define UMADFUZZ_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <rdma/ib_user_mad.h>
#ifndef IBSTACK_UAPI_RDMA_IB_USER_MAD_H
#error "umadfuzz: build with -I include/uapi: our <rdma/ib_user_mad.h>, not the system's"
#endif

#define MAXF		4		/* umad files open at once */
#define NAGENT		32		/* agents per file (IB_UMAD_MAX_AGENTS) */
#define MAD		256
#define HDR_NEW		64		/* struct ib_user_mad_hdr */
#define HDR_OLD		56		/* struct ib_user_mad_hdr_old */
#define RMPP_HDR	36		/* IB_MGMT_RMPP_HDR */
#define MAD_HDR		24		/* IB_MGMT_MAD_HDR */
#define QKEY_GSI	0x80010000u
#define BUF		(64 * 1024)
#define NREC		(1 << 16)	/* sends remembered, by TID */
#define MAX_VERSION	0x83		/* ib_mad's MAX_MGMT_VERSION */
#define WATCHDOG	60

/* errno sets: bit 0 success, bit e errno e (all below 64 here) */
#define OK		1ull
#define E(e)		(1ull << (e))
enum {
	K_OPEN, K_CLOSE, K_REG, K_REG2, K_UNREG, K_PKEY, K_IOCTL, K_WRITE, K_READ,
	K_POLL, K_INTR, K_ISSM, K_ISSM_CLOSE, K_ISSM_IO, NKIND
};

struct agent {
	int on;
	uint8_t qpn, cls, ver, rmpp, user_rmpp;
	uint32_t oui;			/* 24 bits */
	uint32_t mask[4];		/* methods */
};

struct ufile {
	int fd;				/* -1: a free slot */
	int nonblock, mode;		/* O_RDWR, O_RDONLY, O_WRONLY */
	int pkey, used;			/* 64-byte header; an agent was registered */
	unsigned long gen;		/* which open this is */
	struct agent ag[NAGENT];
	uint32_t ever;			/* ids ever registered */
	uint32_t churned;		/* ids unregistered at least once */
	int nonempty;			/* poll said POLLIN, nothing read since */
	/* the last request read, to answer */
	int req_valid;
	uint8_t req_hdr[HDR_NEW], req_mad[MAD];
};

/* a send, by the low half of its TID, to check what comes back */
struct rec {
	uint32_t tid;
	unsigned long gen;		/* the file's */
	uint8_t id, valid, request;
	uint8_t amb;			/* the TID was sent again: which send is it */
	uint8_t hdr[HDR_NEW];
	uint8_t mad[MAD_HDR];
	int hdrlen;
};
/* the write being built */
struct wr {
	uint8_t hdr[HDR_NEW];
	uint8_t *mad;			/* in buf */
	size_t len;			/* MAD bytes */
	int id, hl;
	int sl_risk, mismatch, dup_risk;
};

/* where an ioctl's argument is (umadfuzz-reg.c: arg_ptr()) */
enum { P_OK, P_NONE, P_RDONLY, P_SHORT, P_NULL, P_KERNEL, NPTR };

/* umadfuzz.c: the state */
extern struct ufile files[MAXF];
extern struct rec *recs;
extern uint32_t tid_next;
extern int verbose, root;
extern uint16_t own_lid, sm_lid;
extern int gid_len, pkey_len;
extern uint8_t gid_valid[256];
extern uint8_t own_gid[16];
extern unsigned long n_unchecked;
extern uint32_t outside[4][256][4];
extern uint8_t *pages;
extern long pagesz;
extern timer_t intr_timer;
extern uint8_t *buf;

/* umadfuzz.c: the random source, the verdicts */
uint32_t rnd(void);
uint32_t below(uint32_t n);
int one_in(uint32_t n);
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int check(int kind, int e, uint64_t want, const char *what);
const char *ename(int e);
struct ufile *any_file(void);
int hdrsz(const struct ufile *f);

/* umadfuzz-reg.c */
int same_key(const struct agent *a, int cls, int ver, uint32_t oui);
void model_unregistered(const struct agent *a);
int free_id(const struct ufile *f);
void op_register(void);
void op_register2(void);
void op_unregister(void);
void op_enable_pkey(void);
void op_ioctl(void);

/* umadfuzz-mad.c */
void op_write(void);
void op_read(void);
void op_poll(void);
void op_read_intr(void);

/* MAD classes and fields */
static inline int is_smp_class(int c) { return c == 0x01 || c == 0x81; }
static inline int is_vendor2(int c) { return c >= 0x30 && c <= 0x4f; }

/* ib_is_mad_class_rmpp(): SA, DevMgt, DevAdm, BIS, vendor range 2 */
static inline int is_rmpp_class(int c)
{
	return c == 0x03 || c == 0x06 || c == 0x10 || c == 0x12 || is_vendor2(c);
}

/* ib_get_mad_data_offset() */
static inline int data_offset(int c)
{
	if (c == 0x03)
		return 56;	/* IB_MGMT_SA_HDR */
	if (c == 0x06 || c == 0x10 || c == 0x12)
		return 64;	/* IB_MGMT_DEVICE_HDR */
	if (is_vendor2(c))
		return 40;	/* IB_MGMT_VENDOR_HDR */
	return 24;		/* IB_MGMT_MAD_HDR */
}

/* ib_response_mad() */
static inline int is_response(const uint8_t *m)
{
	uint32_t mod;

	memcpy(&mod, m + 20, 4);
	return (m[3] & 0x80) || m[3] == 0x07 ||
	       (m[1] == 0x05 && (be32toh(mod) & 0x01000000));
}

static inline int mask_test(const uint32_t *m, int bit) { return (m[bit / 32] >> (bit % 32)) & 1; }
static inline int mask_empty(const uint32_t *m) { return !(m[0] | m[1] | m[2] | m[3]); }

static inline int mask_meets(const uint32_t *a, const uint32_t *b)
{
	return (a[0] & b[0]) || (a[1] & b[1]) || (a[2] & b[2]) || (a[3] & b[3]);
}

static inline void put16(uint8_t *p, uint16_t v) { v = htobe16(v); memcpy(p, &v, 2); }
static inline void put32(uint8_t *p, uint32_t v) { v = htobe32(v); memcpy(p, &v, 4); }
static inline uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return be16toh(v); }
static inline uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return be32toh(v); }

#endif /* UMADFUZZ_H */

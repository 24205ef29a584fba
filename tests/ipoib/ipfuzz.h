/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipfuzz: a fuzzer of IPoIB's user interfaces (rtnetlink, sysfs, netdev
 * ioctls); the parts' common declarations.
 */
#ifndef IPFUZZ_H
#define IPFUZZ_H

#include <stdint.h>
#include <stddef.h>
#include <limits.h>
#include <net/if.h>

#define MAXC		6	/* children alive at once (each costs QPs) */
#define MAXDEV		(MAXC + 1)
#define PAGE		4096
#define SKIP		INT_MIN	/* an operation the model cannot take */

struct rng {
	uint64_t s;
};

uint32_t rnd(struct rng *r);
uint32_t below(struct rng *r, uint32_t n);

/* a modelled interface: ib0 (slot 0) or a child */
struct dev {
	int used;
	char name[IFNAMSIZ];
	int ifindex;
	uint16_t pkey;		/* as stored: bit 15 set */
	int legacy;		/* made by create_child (has sysfs files) */
	int connected;
	int umcast;
	int up;			/* -1: not known */
};

struct link {			/* what RTM_GETLINK tells of one link */
	int ifindex;
	char name[IFNAMSIZ];
	unsigned int flags;
	int mtu;
	int link;		/* IFLA_LINK, 0 if absent */
	char kind[16];
	int has_data;
	int pkey, mode, umcast;	/* -1 if absent */
};

/* the state every part sees */
extern struct dev devs[MAXDEV];	/* devs[0]: the parent (ib0) */
extern int root;		/* privileged run: the writes are ours */
extern int cm_ok;		/* the parent's address has the RC flag */
extern int max_ud;		/* IPOIB_UD_MTU(the port's max MTU) */
extern int no_nl_mode;		/* -R: no IFLA_IPOIB_MODE in rtnetlink */
extern unsigned long nfail, maxfail;
extern int verbose;
extern unsigned long long opno;
extern uint64_t seed;

void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *ename(int e);
void check_errno(const char *what, int got, int want);
void check_errno2(const char *what, int got, int want1, int want2);

/* what the current operation is, for the time each kind takes */
enum kind {
	K_CREATE, K_DELETE, K_CHANGE, K_UPDOWN, K_MALFORMED, K_GET,
	K_SYSFS_CHILD, K_SYSFS_MODE, K_SYSFS_OTHER, K_SYSFS_READ,
	K_MTU, K_HWADDR, K_ETHTOOL, K_NKINDS
};
extern int kind;

/* netlink (ipfuzz-nl.c) */
int nl_open(void);
int nl_talk(int fd, void *msg, size_t len);
int nl_getlink(int fd, int ifindex, struct link *l);
int nl_dump(int fd, struct link *out, int max);
void nl_op(struct rng *r, int fd);
int nl_del(int fd, int ifindex);
int nl_setflags(int fd, int ifindex, int up);

/* sysfs and ioctls (ipfuzz-fs.c) */
void fs_op(struct rng *r);
void ioctl_op(struct rng *r, int sk);
int sysfs_write(const char *dev, const char *file, const char *buf, size_t len);
int sysfs_read(const char *dev, const char *file, char *buf, size_t cap);
int get_mtu(int sk, const char *name);
int set_mtu(int sk, const char *name, int mtu);

/* the model (ipfuzz.c) */
struct dev *dev_pick(struct rng *r, int children_only, int legacy_only);
struct dev *dev_new(void);
int nchildren(void);
void dev_gone(struct dev *d);
int wait_gone(const char *name);
int find_new_child(struct dev *d);
struct dev *legacy_find(int pkey);
int legacy_create_rule(int pkey, int written);
uint16_t pick_free_pkey(struct rng *r);
void legacy_created(int pkey);
void legacy_deleted(int pkey);
void ioctl_forget(struct dev *d);
void coal_save(const char *name, int sk);
void coal_restore(const char *name);

#endif

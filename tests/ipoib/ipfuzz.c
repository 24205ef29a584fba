// SPDX-License-Identifier: GPL-2.0
/*
 * A fuzzer of IPoIB's user interfaces: rtnetlink (kind "ipoib": P_Key
 * children made, changed, brought up and down and deleted, with malformed
 * requests among them), sysfs (create_child, delete_child, mode, umcast,
 * pkey, dev_id, parent and the core's mtu and tx_queue_len, with garbled,
 * partial and long strings) and the netdev ioctls (MTU, hardware address,
 * ethtool).  Every answer is checked against what Linux 6.1 gives for that
 * input, on a model of the children made (names, P_Keys, kinds, modes,
 * umcast, up or down), and the whole model against a link dump every 500
 * operations; meanwhile a reader thread dumps the links, reads ibN's files
 * and asks ethtool, and checks what it gets is well formed.
 *
 *   ipfuzz [-n COUNT] [-s SEED] [-i IFACE] [-M MAXUD] [-m MAXFAIL] [-r READERS] [-R] [-v]
 *
 * IFACE (default ib0) is never deleted nor left down; MAXUD is the largest
 * datagram-mode MTU, IPOIB_UD_MTU of the port's (default 4092).  As root
 * the writes are expected to work as 6.1's rules say; as anyone else every
 * write is refused (EPERM, or EACCES on opening a file).  At the end every
 * child is deleted and IFACE has its mode, MTU, umcast, queue length and
 * coalescing back.  Prints "ipfuzz: N operations, seed S: PASS" or FAIL
 * lines, each with the operation's number, to replay with -s (-v: every
 * answer).  -R leaves IFLA_IPOIB_MODE out of rtnetlink's requests (the mode
 * then changes through sysfs only): 6.1's ipoib_changelink can return
 * EBUSY with RTNL released, and the caller's unlock then releases RTNL
 * held by another task (an RTNL assertion's WARNING in the next ethtool
 * call, or worse), so the in-tree stack is run with -R.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_link.h>
#include "ipfuzz.h"

struct dev devs[MAXDEV];
int root, cm_ok, max_ud = 4092, no_nl_mode;
unsigned long nfail, maxfail = 20;
int verbose;
int kind;
static const char *const kind_names[K_NKINDS] = {
	"create", "delete", "change", "up/down", "malformed", "get", "sysfs-child",
	"sysfs-mode", "sysfs-other", "sysfs-read", "mtu", "hwaddr", "ethtool",
};
static double kind_secs[K_NKINDS];
static unsigned long kind_count[K_NKINDS];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
unsigned long long opno;
uint64_t seed;

static int nl_fd, sk;
static volatile int stop;
static unsigned long long reader_ops, n_ok, n_err;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

uint32_t rnd(struct rng *r)
{
	/* xorshift64*: the same operations from the same seed */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return (uint32_t)((r->s * 2685821657736338717ULL) >> 32);
}

uint32_t below(struct rng *r, uint32_t n)
{
	return n ? rnd(r) % n : 0;
}

void failf(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&fail_lock);
	printf("FAIL op %llu (seed %llu): ", opno, (unsigned long long)seed);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	nfail++;
	pthread_mutex_unlock(&fail_lock);
}

const char *ename(int e)
{
	static __thread char b[16];

	switch (e) {
	case 0: return "success";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case ERANGE: return "ERANGE";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case ENOTUNIQ: return "ENOTUNIQ";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ETIMEDOUT: return "ETIMEDOUT";
	case E2BIG: return "E2BIG";
	case ENOMEM: return "ENOMEM";
	}
	snprintf(b, sizeof(b), "errno %d", e);
	return b;
}

static const char *rname(int r)
{
	static __thread char b[24];

	if (r < 0)
		return ename(-r);
	snprintf(b, sizeof(b), "%d", r);
	return b;
}

void check_errno2(const char *what, int got, int want1, int want2)
{
	if (verbose)
		printf("op %llu: %s: %s\n", opno, what, rname(got));
	if (got < 0)
		n_err++;
	else
		n_ok++;
	if (got == want1 || got == want2)
		return;
	if (want1 == want2)
		failf("%s: %s, 6.1 gives %s", what, rname(got), rname(want1));
	else
		failf("%s: %s, 6.1 gives %s or %s", what, rname(got), rname(want1),
		      rname(want2));
}

void check_errno(const char *what, int got, int want)
{
	check_errno2(what, got, want, want);
}

/* --- the model -------------------------------------------------------------- */

int nchildren(void)
{
	int i, n = 0;

	for (i = 1; i < MAXDEV; i++)
		n += devs[i].used;
	return n;
}

/* a device of the model: any, or a child (ibN if there is none) */
struct dev *dev_pick(struct rng *r, int children_only, int legacy_only)
{
	int i, n = 0, k;

	for (i = children_only ? 1 : 0; i < MAXDEV; i++)
		n += devs[i].used && (!legacy_only || devs[i].legacy);
	if (!n)
		return devs;
	k = below(r, n);
	for (i = children_only ? 1 : 0; i < MAXDEV; i++)
		if (devs[i].used && (!legacy_only || devs[i].legacy) && !k--)
			return &devs[i];
	return devs;
}

struct dev *dev_new(void)
{
	int i;

	for (i = 1; i < MAXDEV; i++)
		if (!devs[i].used) {
			memset(&devs[i], 0, sizeof(devs[i]));
			ioctl_forget(&devs[i]);
			return &devs[i];
		}
	return NULL;
}

void dev_gone(struct dev *d)
{
	d->used = 0;
	ioctl_forget(d);
}

static int exists(const char *name)
{
	return if_nametoindex(name) != 0;
}

/* bounded: the interface goes within 20 s (0), else -1 */
int wait_gone(const char *name)
{
	struct timespec ts = { 0, 2000000 };
	int i;

	for (i = 0; i < 10000 && exists(name); i++)
		nanosleep(&ts, NULL);
	return exists(name) ? -1 : 0;
}

static int modelled(int ifindex)
{
	int i;

	for (i = 1; i < MAXDEV; i++)
		if (devs[i].used && devs[i].ifindex == ifindex)
			return 1;
	return 0;
}

/* the ipoib child of ibN that the model does not know: d's name and index */
int find_new_child(struct dev *d)
{
	static struct link ls[256];
	int n = nl_dump(nl_fd, ls, 256), i;

	for (i = 0; i < n; i++)
		if (!strcmp(ls[i].kind, "ipoib") && ls[i].link == devs[0].ifindex &&
		    !modelled(ls[i].ifindex)) {
			snprintf(d->name, sizeof(d->name), "%s", ls[i].name);
			d->ifindex = ls[i].ifindex;
			return 0;
		}
	return -1;
}

/* the legacy child of this P_Key as written (compared as 6.1 does) */
struct dev *legacy_find(int pkey)
{
	int i;

	for (i = 1; i < MAXDEV; i++)
		if (devs[i].used && devs[i].legacy && devs[i].pkey == pkey)
			return &devs[i];
	return NULL;
}

static void legacy_name(char *name, int pkey)
{
	snprintf(name, IFNAMSIZ, "%.10s.%04x", devs[0].name, pkey);
}

/* create_child of a P_Key in range: the bytes written, -errno, or SKIP */
int legacy_create_rule(int pkey, int written)
{
	char name[IFNAMSIZ];

	if (devs[0].pkey == pkey || legacy_find(pkey))
		return -ENOTUNIQ;
	legacy_name(name, pkey);
	if (exists(name))
		return -EEXIST;		/* register_netdevice: 0x7fff twice */
	if (nchildren() >= MAXC)
		return SKIP;
	return written;
}

uint16_t pick_free_pkey(struct rng *r)
{
	static const uint16_t k[] = { 0x7fff, 0xffff, 0x0001, 0x0002, 0x1234 };

	return below(r, 4) ? 0x8001 + below(r, 8) : k[below(r, 5)];
}

void legacy_created(int pkey)
{
	struct dev *d = dev_new();

	if (!d) {
		failf("create_child: more children than the model holds");
		return;
	}
	d->used = 1;
	d->legacy = 1;
	d->pkey = pkey | 0x8000;
	d->up = 0;
	legacy_name(d->name, pkey);
	d->ifindex = if_nametoindex(d->name);
	if (!d->ifindex)
		failf("create_child 0x%x: no %s", pkey, d->name);
}

void legacy_deleted(int pkey)
{
	struct dev *d = legacy_find(pkey);

	if (!d)
		return;
	if (wait_gone(d->name))
		failf("delete_child 0x%x: %s still there after 20 s", pkey, d->name);
	dev_gone(d);
}

/* every ipoib child of ibN is a model's, as the model says, and each is there */
static void verify_all(const char *when)
{
	static struct link ls[256];
	int n = nl_dump(nl_fd, ls, 256), i, j, seen[MAXDEV] = { 0 };

	if (n < 0) {
		failf("%s: GETLINK dump: %s", when, ename(-n));
		return;
	}
	for (i = 0; i < n; i++) {
		struct link *l = &ls[i];
		struct dev *d = NULL;

		if (strcmp(l->kind, "ipoib") || l->link != devs[0].ifindex ||
		    l->ifindex == devs[0].ifindex)
			continue;
		for (j = 1; j < MAXDEV; j++)
			if (devs[j].used && devs[j].ifindex == l->ifindex)
				d = &devs[j];
		if (!d) {
			failf("%s: %s (pkey 0x%x) is a child the model does not have", when,
			      l->name, l->pkey);
			continue;
		}
		seen[d - devs] = 1;
		if (strcmp(l->name, d->name) || l->pkey != d->pkey ||
		    l->mode != d->connected || l->umcast != d->umcast ||
		    (d->up >= 0 && !!(l->flags & IFF_UP) != d->up))
			failf("%s: %s pkey 0x%x mode %d umcast %d %s; the model: %s 0x%x %d %d %s",
			      when, l->name, l->pkey, l->mode, l->umcast,
			      l->flags & IFF_UP ? "up" : "down", d->name, d->pkey,
			      d->connected, d->umcast,
			      d->up < 0 ? "up?" : d->up ? "up" : "down");
	}
	for (j = 1; j < MAXDEV; j++)
		if (devs[j].used && !seen[j])
			failf("%s: the model's %s is not there", when, devs[j].name);
}

/* --- ibN at the start and the end ---------------------------------------- */

struct ib0_state {
	int mtu, connected, umcast, up;
	unsigned long txq;
	char addr4[64];
};

static void ib0_read(struct ib0_state *s)
{
	struct link l;
	char buf[64];

	memset(s, 0, sizeof(*s));
	if (nl_getlink(nl_fd, devs[0].ifindex, &l)) {
		printf("FAIL: no %s\n", devs[0].name);
		exit(1);
	}
	s->mtu = l.mtu;
	s->connected = l.mode == 1;
	s->umcast = l.umcast == 1;
	s->up = !!(l.flags & IFF_UP);
	if (sysfs_read(devs[0].name, "tx_queue_len", buf, sizeof(buf)) > 0)
		s->txq = strtoul(buf, NULL, 0);
	if (l.pkey < 0) {
		printf("FAIL: %s has no IFLA_IPOIB_PKEY: is it an IPoIB interface?\n",
		       devs[0].name);
		exit(1);
	}
	devs[0].pkey = l.pkey;
}

static void restore(const struct ib0_state *s0)
{
	struct ib0_state s;
	char buf[32];
	int i, ret;

	for (i = 1; i < MAXDEV; i++) {
		if (!devs[i].used)
			continue;
		ret = nl_del(nl_fd, devs[i].ifindex);
		if (ret)
			failf("the end: DELLINK %s: %s", devs[i].name, ename(-ret));
		dev_gone(&devs[i]);
	}
	/* and any the model lost (a failure already): none is left behind */
	while (!find_new_child(&devs[1])) {
		ret = nl_del(nl_fd, devs[1].ifindex);
		if (ret) {
			failf("the end: DELLINK %s: %s", devs[1].name, ename(-ret));
			break;
		}
	}
	verify_all("the end, the children deleted");
	ib0_read(&s);
	if (s.connected != s0->connected) {
		ret = sysfs_write(devs[0].name, "mode",
				  s0->connected ? "connected\n" : "datagram\n",
				  s0->connected ? 10 : 9);
		if (ret < 0)
			failf("the end: mode of %s: %s", devs[0].name, ename(-ret));
	}
	if (s.umcast != s0->umcast) {
		ret = sysfs_write(devs[0].name, "umcast", s0->umcast ? "1\n" : "0\n", 2);
		if (ret < 0)
			failf("the end: umcast of %s: %s", devs[0].name, ename(-ret));
	}
	ret = set_mtu(sk, devs[0].name, s0->mtu);
	if (ret)
		failf("the end: MTU %d of %s: %s", s0->mtu, devs[0].name, ename(-ret));
	snprintf(buf, sizeof(buf), "%lu\n", s0->txq);
	ret = sysfs_write(devs[0].name, "tx_queue_len", buf, strlen(buf));
	if (ret < 0)
		failf("the end: tx_queue_len of %s: %s", devs[0].name, ename(-ret));
	if (!s.up) {
		ret = nl_setflags(nl_fd, devs[0].ifindex, 1);
		if (ret)
			failf("the end: %s up: %s", devs[0].name, ename(-ret));
	}
	coal_restore(devs[0].name);
	ib0_read(&s);
	if (s.mtu != s0->mtu || s.connected != s0->connected || s.umcast != s0->umcast ||
	    s.txq != s0->txq || !s.up)
		failf("the end: %s has MTU %d mode %d umcast %d txqlen %lu %s, at the start %d %d %d %lu",
		      devs[0].name, s.mtu, s.connected, s.umcast, s.txq, s.up ? "up" : "down",
		      s0->mtu, s0->connected, s0->umcast, s0->txq);
}

/* --- the reader ----------------------------------------------------------- */

static void *reader(void *arg)
{
	struct rng r = { .s = seed * 7 + (uintptr_t)arg + 1 };
	static __thread struct link ls[256];
	int fd = nl_open(), n, i;
	char buf[128], want[16];

	snprintf(want, sizeof(want), "0x%04x\n", devs[0].pkey);
	while (!stop) {
		/* a few reads per operation of the main thread, not more */
		if (__atomic_load_n(&reader_ops, __ATOMIC_RELAXED) > 4 * __atomic_load_n(&opno, __ATOMIC_RELAXED)) {
			usleep(1000);
			continue;
		}
		switch (below(&r, 4)) {
		case 0:
			n = nl_dump(fd, ls, 256);
			if (n < 0)
				failf("reader: GETLINK dump: %s", ename(-n));
			for (i = 0; i < n; i++)
				if (!strcmp(ls[i].kind, "ipoib") &&
				    (ls[i].pkey < 0 || !(ls[i].pkey & 0x8000) ||
				     !(ls[i].pkey & 0x7fff) || (ls[i].mode != 0 && ls[i].mode != 1) ||
				     (ls[i].umcast != 0 && ls[i].umcast != 1)))
					failf("reader: %s: pkey 0x%x mode %d umcast %d", ls[i].name,
					      ls[i].pkey, ls[i].mode, ls[i].umcast);
			break;
		case 1:
			n = sysfs_read(devs[0].name, "pkey", buf, sizeof(buf));
			if (n < 0 || strcmp(buf, want))
				failf("reader: %s/pkey: '%s' (%s)", devs[0].name, n < 0 ? "" : buf,
				      n < 0 ? ename(-n) : "ok");
			break;
		case 2:
			n = sysfs_read(devs[0].name, "mode", buf, sizeof(buf));
			if (n < 0 || (strcmp(buf, "datagram\n") && strcmp(buf, "connected\n")))
				failf("reader: %s/mode: '%s' (%s)", devs[0].name, n < 0 ? "" : buf,
				      n < 0 ? ename(-n) : "ok");
			break;
		default:
			n = sysfs_read(devs[0].name, "umcast", buf, sizeof(buf));
			if (n < 0 || (strcmp(buf, "0\n") && strcmp(buf, "1\n")))
				failf("reader: %s/umcast: '%s' (%s)", devs[0].name, n < 0 ? "" : buf,
				      n < 0 ? ename(-n) : "ok");
			break;
		}
		__atomic_add_fetch(&reader_ops, 1, __ATOMIC_RELAXED);
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long long n = 10000;
	struct ib0_state s0;
	const char *ifname = "ib0";
	pthread_t th[4];
	int opt, nreaders = 1, i;
	struct rng r;

	seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16);
	while ((opt = getopt(argc, argv, "n:s:i:M:m:r:Rv")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoull(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'i':
			ifname = optarg;
			break;
		case 'M':
			max_ud = atoi(optarg);
			break;
		case 'm':
			maxfail = strtoul(optarg, NULL, 0);
			break;
		case 'v':
			verbose = 1;
			break;
		case 'R':
			no_nl_mode = 1;
			break;
		case 'r':
			nreaders = atoi(optarg);
			if (nreaders < 0 || nreaders > 4)
				nreaders = 1;
			break;
		default:
			fprintf(stderr, "usage: ipfuzz [-n COUNT] [-s SEED] [-i IFACE] [-M MAXUD] [-m MAXFAIL] [-r READERS] [-R] [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ipfuzz: seed %llu, %llu operations on %s\n", (unsigned long long)seed, n, ifname);
	r.s = seed ? seed : 1;
	root = geteuid() == 0;
	nl_fd = nl_open();
	sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(devs[0].name, IFNAMSIZ, "%s", ifname);
	devs[0].ifindex = if_nametoindex(ifname);
	devs[0].used = 1;
	if (!devs[0].ifindex || sk < 0) {
		printf("FAIL: no interface %s\n", ifname);
		return 1;
	}
	{
		char a[80];
		unsigned int b0;

		if (sysfs_read(ifname, "address", a, sizeof(a)) <= 0 ||
		    sscanf(a, "%2x", &b0) != 1) {
			printf("FAIL: %s has no address\n", ifname);
			return 1;
		}
		cm_ok = !!(b0 & 0x80);
	}
	ib0_read(&s0);
	devs[0].connected = s0.connected;
	devs[0].umcast = s0.umcast;
	devs[0].up = -1;
	coal_save(ifname, sk);
	verify_all("the start");
	if (nchildren() || nfail) {
		printf("FAIL: %s has children already\n", ifname);
		return 1;
	}
	for (i = 0; i < nreaders; i++)
		pthread_create(&th[i], NULL, reader, (void *)(uintptr_t)i);

	for (opno = 1; opno <= n && nfail < maxfail; opno++) {
		uint32_t u = below(&r, 100);
		double t0 = now();

		kind = K_GET;
		if (u < 40)
			nl_op(&r, nl_fd);
		else if (u < 70)
			fs_op(&r);
		else
			ioctl_op(&r, sk);
		kind_secs[kind] += now() - t0;
		kind_count[kind]++;
		if (opno % 500 == 0)
			verify_all("the model check");
		if (opno % 100000 == 0)
			printf("ipfuzz: %llu operations, %lu failures\n", opno, nfail);
	}
	opno--;
	stop = 1;
	for (i = 0; i < nreaders; i++)
		pthread_join(th[i], NULL);
	verify_all("the last model check");
	if (root)
		restore(&s0);
	printf("ipfuzz: %llu answers 0 or a count, %llu errnos; the readers: %llu operations\n",
	       n_ok, n_err, reader_ops);
	printf("ipfuzz: seconds (operations) per kind:");
	for (i = 0; i < K_NKINDS; i++)
		printf(" %s %.1f (%lu)", kind_names[i], kind_secs[i], kind_count[i]);
	printf("\n");
	if (nfail) {
		printf("ipfuzz: %llu operations, seed %llu: FAIL (%lu failures)\n", opno,
		       (unsigned long long)seed, nfail);
		return 1;
	}
	printf("ipfuzz: %llu operations, seed %llu: PASS\n", opno, (unsigned long long)seed);
	return 0;
}

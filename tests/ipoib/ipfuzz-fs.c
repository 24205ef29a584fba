// SPDX-License-Identifier: GPL-2.0
/*
 * ipfuzz's sysfs and ioctl parts: writes of well-formed, garbled, partial
 * and long strings to /sys/class/net/<if>/{create_child, delete_child,
 * mode, umcast, mtu, tx_queue_len, pkey, dev_id, parent} and reads of
 * them; SIOCGIFMTU/SIOCSIFMTU, SIOCGIFHWADDR/SIOCSIFHWADDR and SIOCETHTOOL
 * (driver information, coalescing, rings, string sets, statistics, link,
 * unknown commands, short and unmapped buffers).  The expected answers are
 * Linux 6.1's: its parsers (sscanf's "%i", simple_strtoul, kstrtoul) are
 * reproduced here on the bytes the store sees (kernfs gives it at most a
 * page, cut at the first NUL).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include "ipfuzz.h"

#define ARPHRD_IB	32
#define IPOIB_STATS	8	/* ipoib_gstrings_stats */
#define COAL_SUPPORTED	2	/* rx-usecs and rx-frames only */

/* --- Linux 6.1's parsers, on a NUL-terminated string ----------------- */

static int k_isspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

static int k_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static int k_isxdigit(char c)
{
	return k_isdigit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

static const char *fixup_radix(const char *s, unsigned int *base)
{
	if (*base == 0) {
		if (s[0] == '0')
			*base = ((s[1] | 0x20) == 'x' && k_isxdigit(s[2])) ? 16 : 8;
		else
			*base = 10;
	}
	if (*base == 16 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	return s;
}

/* digits parsed (the count), *ovf set on overflow; *res wraps as 6.1's */
static unsigned int parse_int(const char *s, unsigned int base, unsigned long long *res,
			      int *ovf)
{
	unsigned long long r = 0;
	unsigned int n = 0;

	*ovf = 0;
	for (;; s++, n++) {
		unsigned int c = (unsigned int)(signed char)*s, lc = c | 0x20, v;

		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (lc >= 'a' && lc <= 'f')
			v = lc - 'a' + 10;
		else
			break;
		if (v >= base)
			break;
		if ((r & (~0ULL << 60)) && r > (~0ULL - v) / base)
			*ovf = 1;
		r = r * base + v;
	}
	*res = r;
	return n;
}

static unsigned long long strntoull(const char *s)
{
	unsigned int base = 0;
	unsigned long long r;
	int ovf;

	s = fixup_radix(s, &base);	/* sets base: before parse_int reads it */
	parse_int(s, base, &r, &ovf);
	return r;
}

/* sscanf(buf, "%i", &v): 1 and *v, or 0 */
static int scan_i(const char *s, int *v)
{
	char d;

	if (!*s)
		return 0;
	while (k_isspace(*s))
		s++;
	d = *s == '-' ? s[1] : *s;
	if (!d || !k_isdigit(d))
		return 0;
	if (*s == '-')
		*v = (int)-strntoull(s + 1);
	else
		*v = (int)strntoull(s);
	return 1;
}

/* kstrtoul(buf, 0, &v): 0 or -errno */
static int k_strtoul(const char *s, unsigned long *v)
{
	unsigned int base = 0, n;
	unsigned long long r;
	int ovf;

	if (*s == '+')
		s++;
	s = fixup_radix(s, &base);
	n = parse_int(s, base, &r, &ovf);
	if (ovf)
		return -ERANGE;
	if (!n)
		return -EINVAL;
	s += n;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*v = r;
	return 0;
}

/* --- the strings written ------------------------------------------- */

enum what { W_PKEY, W_MODE, W_UMCAST, W_MTU, W_TXQ };

static const unsigned long long nums[] = {
	0, 1, 2, 0x7fff, 0x8000, 0x8001, 0x8002, 0xffff, 0x10000, 0x18001,
	0x7fffffff, 0x80000000ULL, 0xffffffffULL, 0x100008001ULL, ~0ULL,
	68, 71, 72, 1280, 2044, 2048, 4092, 4093, 65520, 65521, 32767, 32768,
};

/* a string for a file expecting w; len is what is written */
static size_t gen_str(struct rng *r, enum what w, char *buf, size_t cap)
{
	static const char *const pre[] = { "", "", "", "", " ", "\t", "+", "-", "  \n", "0x" };
	static const char *const suf[] = { "\n", "\n", "", "", " ", "\n\n", "x", "abc",
					   " 12", "\n1" };
	static const char *const modes[] = { "datagram\n", "connected\n", "datagram",
					     "connected", "Datagram\n", "connected\n\n",
					     " datagram\n", "cm\n", "ud\n", "" };
	unsigned long long v;
	size_t n = 0, i;
	int u = below(r, 20);

	if (u == 0) {			/* random bytes, NULs too */
		n = below(r, 24);
		for (i = 0; i < n; i++)
			buf[i] = rnd(r);
		return n;
	}
	if (u == 1) {			/* longer than a page: the store sees 4096 */
		n = PAGE - 8 + below(r, 40);
		memset(buf, below(r, 2) ? '0' : ' ', n);
		buf[n - 1 - below(r, 3)] = '1' + below(r, 8);
		return n;
	}
	if (w == W_MODE && u < 14) {
		n = snprintf(buf, cap, "%s", modes[below(r, 10)]);
		if (below(r, 10) == 0)		/* a NUL and junk after it */
			n += 1 + snprintf(buf + n + 1, cap - n - 1, "zz");
		return n;
	}
	if (w == W_PKEY && u < 10)
		v = below(r, 2) ? (0x8000 | below(r, 16)) : below(r, 16);
	else if (w == W_MTU && u < 12)
		v = 60 + below(r, 4100);
	else if (w == W_TXQ && u < 10)
		v = below(r, 2000);
	else if (below(r, 4) == 0)
		v = ((unsigned long long)rnd(r) << 32 | rnd(r)) >> below(r, 64);
	else
		v = nums[below(r, sizeof(nums) / sizeof(nums[0]))];
	n = snprintf(buf, cap, "%s", below(r, 3) ? "" : pre[below(r, 10)]);
	switch (below(r, 6)) {
	case 0:
		n += snprintf(buf + n, cap - n, "0x%llx", v);
		break;
	case 1:
		n += snprintf(buf + n, cap - n, "0%llo", v);
		break;
	case 2:
		n += snprintf(buf + n, cap - n, "0X%llX", v);
		break;
	default:
		n += snprintf(buf + n, cap - n, "%llu", v);
		break;
	}
	n += snprintf(buf + n, cap - n, "%s", suf[below(r, 10)]);
	if (below(r, 8) == 0 && n > 1)
		n -= 1 + below(r, n - 1);	/* a part of it */
	return n;
}

/*
 * The core's bound on tx_queue_len: 6.1's dev_change_tx_queue_len takes up
 * to S16_MAX; later kernels (6.12 seen) up to UINT_MAX.  Not IPoIB's rule:
 * the running kernel's.
 */
static unsigned long txq_max(void)
{
	static unsigned long max;
	struct utsname u;
	int a = 0, b = 0;

	if (!max) {
		uname(&u);
		sscanf(u.release, "%d.%d", &a, &b);
		max = a < 6 || (a == 6 && b <= 1) ? 32767 : 0xffffffffUL;
	}
	return max;
}

/* --- sysfs ------------------------------------------------------------ */

static int sysfs_open(const char *dev, const char *file, int flags)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", dev, file);
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int sysfs_write(const char *dev, const char *file, const char *buf, size_t len)
{
	int fd = sysfs_open(dev, file, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = write(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

int sysfs_read(const char *dev, const char *file, char *buf, size_t cap)
{
	int fd = sysfs_open(dev, file, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, buf, cap - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = 0;
	close(fd);
	return n;
}

static int sk_ioctl;

int get_mtu(int sk, const char *name)
{
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(sk, SIOCGIFMTU, &ifr))
		return -errno;
	return ifr.ifr_mtu;
}

int set_mtu(int sk, const char *name, int mtu)
{
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	ifr.ifr_mtu = mtu;
	return ioctl(sk, SIOCSIFMTU, &ifr) ? -errno : 0;
}

/*
 * 6.1's dev_set_mtu(dev, v) on a model device whose MTU is cur: 0 or
 * -errno (ipoib_change_mtu's two modes, after the core's bounds)
 */
static int mtu_rule(const struct dev *d, int cur, int v)
{
	if (v == cur)
		return 0;
	if (v < 0 || v > 65520)
		return -EINVAL;
	if (d->connected)
		return 0;		/* ipoib_cm_max_mtu: 65520 here */
	if (v < 72 || v > max_ud)
		return -EINVAL;
	return 0;
}

/* the bounds of both modes (-2: the MTU the interface has) */
static const int mtu_edges[] = {
	-1, 0, 1, 67, 68, 71, 72, 73, 1279, 1280, 2044, 2048, 4092, 4093, 65519, 65520,
	65521, 65536, -2, -2,
};

/* ibN keeps IPv4: never an MTU under 68 on it */
static int mtu_unsafe(const struct dev *d, int cur, int v)
{
	return d == devs && v != cur && v >= 0 && v < 68 && !mtu_rule(d, cur, v);
}

static void check_mtu_after(const struct dev *d, int v, const char *what)
{
	int m = get_mtu(sk_ioctl, d->name);

	if (m < 0 || (d->connected && m != v) || (!d->connected && (m > v || m < 68)))
		failf("%s: %s's MTU is %d after setting %d (%s mode)", what, d->name, m, v,
		      d->connected ? "connected" : "datagram");
}

static void fs_write(struct rng *r)
{
	static char buf[PAGE + 64];
	static const char *const files[] = {
		"create_child", "delete_child", "mode", "umcast", "mtu",
		"tx_queue_len", "pkey", "dev_id", "parent", "no_such_file",
	};
	static const enum what kinds[] = {
		W_PKEY, W_PKEY, W_MODE, W_UMCAST, W_MTU, W_TXQ, W_PKEY, W_PKEY, W_PKEY, W_PKEY,
	};
	struct dev *d = below(r, 3) ? devs : dev_pick(r, 1, 0);
	int f = below(r, 10), want, ret, iv = 0, exists, cur = 0;
	size_t len, seen;
	char s[PAGE + 1], what[160];
	unsigned long ul = 0;

	/* create_child and delete_child cost as nl_op's creates: a 20th */
	if (f <= 1 && below(r, 20))
		f = 2 + below(r, 8);
	len = gen_str(r, kinds[f], buf, sizeof(buf) - 1);

	kind = f <= 1 ? K_SYSFS_CHILD : f == 2 ? K_SYSFS_MODE : K_SYSFS_OTHER;
	if (f == 0 && below(r, 4))	/* create_child: mostly pkeys that may work */
		len = snprintf(buf, sizeof(buf), "0x%x\n", pick_free_pkey(r));
	seen = len > PAGE ? PAGE : len;
	memcpy(s, buf, seen);
	s[seen] = 0;
	{
		char e[48];
		size_t i, k = 0;

		for (i = 0; i < len && k < sizeof(e) - 5; i++) {
			unsigned char c = buf[i];

			if (c >= ' ' && c < 127 && c != '\\')
				e[k++] = c;
			else
				k += snprintf(e + k, sizeof(e) - k, "\\x%02x", c);
		}
		e[k] = 0;
		snprintf(what, sizeof(what), "write of %zu bytes '%s%s' to %s/%s", len, e,
			 i < len ? "..." : "", d->name, files[f]);
	}

	if (d == devs)
		exists = f <= 8 && f != 8;
	else if (d->legacy)
		exists = f >= 2 && f <= 8;
	else
		exists = f == 4 || f == 5 || f == 7;
	if (!exists) {
		want = -ENOENT;
	} else if (f >= 6) {
		want = -EACCES;			/* read-only: pkey, dev_id, parent */
	} else if (!root) {
		want = -EACCES;			/* 0644 and 0200 files */
	} else if (!len) {
		want = 0;			/* sysfs_kf_write: nothing to store */
	} else {
		want = seen;
		switch (f) {
		case 0:				/* create_child */
			if (!scan_i(s, &iv) || iv <= 0 || iv > 0xffff || iv == 0x8000)
				want = -EINVAL;
			else
				want = legacy_create_rule(iv, seen);
			/* as in ip link add: mostly the ways it fails */
			if (want == SKIP || (want > 0 && (nchildren() >= 2 || below(r, 2)) &&
					     below(r, 4)))
				return;
			break;
		case 1:				/* delete_child */
			if (!scan_i(s, &iv) || iv < 0 || iv > 0xffff)
				want = -EINVAL;
			else if (!legacy_find(iv))
				want = -ENODEV;
			break;
		case 2:				/* mode */
			if (!strcmp(s, "connected\n") && !d->connected && !cm_ok)
				want = -EINVAL;
			else if (strcmp(s, "connected\n") && strcmp(s, "datagram\n"))
				want = -EINVAL;
			break;
		case 3:				/* umcast: simple_strtoul, any string */
			break;
		case 4:				/* mtu */
			ret = k_strtoul(s, &ul);
			cur = get_mtu(sk_ioctl, d->name);
			if (ret)
				want = ret;
			else if (mtu_unsafe(d, cur, (int)ul) ||
				 (!mtu_rule(d, cur, (int)ul) && (int)ul != cur && below(r, 4)))
				return;
			else if (mtu_rule(d, cur, (int)ul))
				want = mtu_rule(d, cur, (int)ul);
			break;
		case 5:				/* tx_queue_len */
			ret = k_strtoul(s, &ul);
			if (ret)
				want = ret;
			else if (ul > txq_max())
				want = -ERANGE;
			break;
		}
	}
	ret = sysfs_write(d->name, files[f], buf, len);
	check_errno(what, ret, want);
	if (ret < 0 || ret != want || want <= 0)
		return;
	switch (f) {
	case 0:
		legacy_created(iv);
		break;
	case 1:
		legacy_deleted(iv);
		break;
	case 2:
		d->connected = !strcmp(s, "connected\n");
		break;
	case 3:
		d->umcast = (int)strntoull(s) > 0;
		break;
	case 4:
		if ((int)ul != cur)
			check_mtu_after(d, (int)ul, what);
		break;
	}
}

/* reads: the model's values as the files tell them */
static void fs_read(struct rng *r)
{
	struct dev *d = dev_pick(r, 0, 0);
	char buf[64], want[64];
	int ret;

	kind = K_SYSFS_READ;
	switch (below(r, 3)) {
	case 0:
		snprintf(want, sizeof(want), "0x%04x\n", d->pkey);
		ret = sysfs_read(d->name, "pkey", buf, sizeof(buf));
		break;
	case 1:
		snprintf(want, sizeof(want), "%s\n", d->connected ? "connected" : "datagram");
		ret = sysfs_read(d->name, "mode", buf, sizeof(buf));
		break;
	default:
		snprintf(want, sizeof(want), "%d\n", d->umcast);
		ret = sysfs_read(d->name, "umcast", buf, sizeof(buf));
		break;
	}
	if (d != devs && !d->legacy) {
		check_errno("read of an rtnl child's ipoib file", ret, -ENOENT);
		return;
	}
	if (ret < 0 || strcmp(buf, want))
		failf("read of %s's file: '%.*s' (%s), the model '%.*s'", d->name,
		      ret > 0 ? ret - 1 : 0, buf, ret < 0 ? ename(-ret) : "ok",
		      (int)strlen(want) - 1, want);
}

void fs_op(struct rng *r)
{
	if (below(r, 4))
		fs_write(r);
	else
		fs_read(r);
}

/* --- ioctls ------------------------------------------------------------ */

struct coal {
	int known;
	uint32_t usecs, frames;
};

static struct coal coals[MAXDEV];
static uint8_t *guard;		/* a page, then a PROT_NONE page */

void ioctl_forget(struct dev *d)
{
	coals[d - devs].known = 0;
}

static int ethtool(const char *name, void *data)
{
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	ifr.ifr_data = data;
	return ioctl(sk_ioctl, SIOCETHTOOL, &ifr) ? -errno : 0;
}

static void op_ethtool(struct rng *r, struct dev *d)
{
	static uint8_t big[sizeof(struct ethtool_gstrings) + 64 * ETH_GSTRING_LEN];
	struct coal *c = &coals[d - devs];
	union {
		struct ethtool_drvinfo di;
		struct ethtool_coalesce ec;
		struct ethtool_ringparam rp;
		struct ethtool_value v;
	} u;
	int ret, want;
	uint32_t sset;

	memset(&u, 0, sizeof(u));
	switch (below(r, 10)) {
	case 0:
		u.di.cmd = ETHTOOL_GDRVINFO;
		ret = ethtool(d->name, &u.di);
		check_errno("ETHTOOL_GDRVINFO", ret, 0);
		if (!ret && (strcmp(u.di.driver, "ib_ipoib") || u.di.n_stats != IPOIB_STATS))
			failf("ETHTOOL_GDRVINFO of %s: driver '%s', %u stats", d->name,
			      u.di.driver, u.di.n_stats);
		break;
	case 1:
		u.ec.cmd = ETHTOOL_GCOALESCE;
		ret = ethtool(d->name, &u.ec);
		check_errno("ETHTOOL_GCOALESCE", ret, 0);
		if (!ret && c->known && (u.ec.rx_coalesce_usecs != c->usecs ||
					 u.ec.rx_max_coalesced_frames != c->frames))
			failf("ETHTOOL_GCOALESCE of %s: %u/%u, set %u/%u", d->name,
			      u.ec.rx_coalesce_usecs, u.ec.rx_max_coalesced_frames,
			      c->usecs, c->frames);
		break;
	case 2:
	case 3:
		u.ec.cmd = ETHTOOL_SCOALESCE;
		u.ec.rx_coalesce_usecs = below(r, 8) ? below(r, 300) : rnd(r) >> below(r, 32);
		u.ec.rx_max_coalesced_frames = below(r, 8) ? below(r, 300) : rnd(r) >> below(r, 32);
		if (below(r, 8) == 0)
			u.ec.tx_coalesce_usecs = 1 + below(r, 100);
		if (below(r, 12) == 0)
			u.ec.use_adaptive_rx_coalesce = 1;
		if (!root)
			want = -EPERM;
		else if (u.ec.tx_coalesce_usecs || u.ec.use_adaptive_rx_coalesce)
			want = -EOPNOTSUPP;	/* ethtool_set_coalesce_supported */
		else if (u.ec.rx_coalesce_usecs > 0xffff || u.ec.rx_max_coalesced_frames > 0xffff)
			want = -EINVAL;
		else
			want = 0;
		ret = ethtool(d->name, &u.ec);
		check_errno("ETHTOOL_SCOALESCE", ret, want);
		if (!ret && !want) {
			c->known = 1;
			c->usecs = u.ec.rx_coalesce_usecs;
			c->frames = u.ec.rx_max_coalesced_frames;
		}
		break;
	case 4:
		u.rp.cmd = below(r, 2) ? ETHTOOL_GRINGPARAM : ETHTOOL_SRINGPARAM;
		u.rp.rx_pending = rnd(r) & 0xffff;
		want = u.rp.cmd == ETHTOOL_SRINGPARAM && !root ? -EPERM : -EOPNOTSUPP;
		ret = ethtool(d->name, &u.rp);
		check_errno(u.rp.cmd == ETHTOOL_GRINGPARAM ? "ETHTOOL_GRINGPARAM" :
			    "ETHTOOL_SRINGPARAM", ret, want);
		break;
	case 5: {
		static const uint32_t sets[] = { ETH_SS_TEST, ETH_SS_STATS, ETH_SS_STATS,
						 ETH_SS_PRIV_FLAGS, ETH_SS_NTUPLE_FILTERS, 50,
						 1000 };
		struct ethtool_gstrings *gs = (struct ethtool_gstrings *)big;

		sset = sets[below(r, 7)];
		memset(big, 0, sizeof(big));
		gs->cmd = ETHTOOL_GSTRINGS;
		gs->string_set = sset;
		want = sset == ETH_SS_STATS ? 0 : -EOPNOTSUPP;
		ret = ethtool(d->name, gs);
		check_errno("ETHTOOL_GSTRINGS", ret, want);
		if (!ret && !want && (gs->len != IPOIB_STATS ||
				      strcmp((char *)gs->data, "rx_packets")))
			failf("ETHTOOL_GSTRINGS of %s: %u strings, the first '%.32s'", d->name,
			      gs->len, (char *)gs->data);
		break;
	}
	case 6: {
		struct ethtool_stats *st = (struct ethtool_stats *)big;

		memset(big, 0, sizeof(big));
		st->cmd = ETHTOOL_GSTATS;
		ret = ethtool(d->name, st);
		check_errno("ETHTOOL_GSTATS", ret, 0);
		if (!ret && st->n_stats != IPOIB_STATS)
			failf("ETHTOOL_GSTATS of %s: %u counters", d->name, st->n_stats);
		break;
	}
	case 7:
		u.v.cmd = ETHTOOL_GLINK;
		ret = ethtool(d->name, &u.v);
		check_errno("ETHTOOL_GLINK", ret, 0);
		if (!ret && u.v.data > 1)
			failf("ETHTOOL_GLINK of %s: %u", d->name, u.v.data);
		break;
	case 8:			/* unknown commands */
		u.v.cmd = below(r, 2) ? 0x7f000000 + below(r, 1000) : 0x80 + below(r, 0x100);
		if (u.v.cmd < 0x100)
			u.v.cmd = 0x7ffffff0;
		ret = ethtool(d->name, &u.v);
		check_errno("an unknown ethtool command", ret, root ? -EOPNOTSUPP : -EPERM);
		break;
	default: {		/* buffers cut by an unmapped page, or none */
		static const uint32_t cmds[] = { ETHTOOL_GDRVINFO, ETHTOOL_GCOALESCE,
						 ETHTOOL_SCOALESCE, ETHTOOL_GLINK };
		uint32_t cmd = cmds[below(r, 4)];
		void *p;

		if (below(r, 4) == 0) {
			p = below(r, 2) ? NULL : (void *)(uintptr_t)(0xffff800000000000ULL);
			want = -EFAULT;
		} else {
			p = guard + PAGE - 4;
			memcpy(p, &cmd, 4);
			want = cmd == ETHTOOL_SCOALESCE && !root ? -EPERM : -EFAULT;
		}
		ret = ethtool(d->name, p);
		check_errno("ethtool with a cut buffer", ret, want);
		break;
	}
	}
}

static struct ethtool_coalesce coal0;
static int coal0_ok;

void coal_save(const char *name, int sk)
{
	sk_ioctl = sk;
	coal0.cmd = ETHTOOL_GCOALESCE;
	coal0_ok = !ethtool(name, &coal0);
}

void coal_restore(const char *name)
{
	int ret;

	if (!coal0_ok)
		return;
	coal0.cmd = ETHTOOL_SCOALESCE;
	ret = ethtool(name, &coal0);
	if (ret)
		failf("the end: ETHTOOL_SCOALESCE of %s: %s", name, ename(-ret));
}

void ioctl_op(struct rng *r, int sk)
{
	struct dev *d = dev_pick(r, 0, 0);
	struct ifreq ifr = { 0 };
	char addr[80];
	int ret, want, cur, v, u;

	sk_ioctl = sk;
	if (!guard) {
		guard = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (guard == MAP_FAILED || mprotect(guard + PAGE, PAGE, PROT_NONE)) {
			perror("ipfuzz: mmap");
			exit(2);
		}
	}
	u = below(r, 8);
	/* an absent name makes the core run modprobe for it: rarely */
	if (u == 2 && below(r, 20))
		u = 1;
	kind = u <= 2 ? K_MTU : u <= 4 ? K_HWADDR : K_ETHTOOL;
	switch (u) {
	case 1:				/* SIOCGIFMTU: the value sysfs has */
		/*
		 * (a broadcast group joined later changes a child's MTU from
		 * IPoIB's work, between the two reads: sysfs must then have
		 * the value before or the value after)
		 */
		cur = get_mtu(sk, d->name);
		ret = sysfs_read(d->name, "mtu", addr, sizeof(addr));
		v = get_mtu(sk, d->name);
		if (cur < 0 || v < 0 || ret < 0 || (atoi(addr) != cur && atoi(addr) != v))
			failf("SIOCGIFMTU of %s: %d then %d, sysfs mtu '%s' (%s)", d->name, cur, v,
			      ret < 0 ? "" : addr, ret < 0 ? ename(-ret) : "read");
		break;
	case 0:				/* SIOCSIFMTU */
		cur = get_mtu(sk, d->name);
		if (cur < 0) {
			failf("SIOCGIFMTU of %s: %s", d->name, ename(-cur));
			return;
		}
		u = below(r, 4);
		if (u < 2)
			v = mtu_edges[below(r, sizeof(mtu_edges) / sizeof(mtu_edges[0]))];
		else if (u == 2)
			v = 60 + below(r, 4100);
		else
			v = (int)rnd(r) >> below(r, 32);
		if (v == -2)
			v = cur;
		want = root ? mtu_rule(d, cur, v) : -EPERM;
		/* an MTU changed costs (IPv6 and routes follow it): a 16th */
		if (root && (mtu_unsafe(d, cur, v) || (!want && v != cur && below(r, 16))))
			return;
		ret = set_mtu(sk, d->name, v);
		check_errno("SIOCSIFMTU", ret, want);
		if (!ret && !want && v != cur)
			check_mtu_after(d, v, "SIOCSIFMTU");
		break;
	case 2:				/* no such interface */
		snprintf(ifr.ifr_name, IFNAMSIZ, "ipfz-none%u", below(r, 10));
		ifr.ifr_mtu = 1500;
		ret = ioctl(sk, below(r, 2) ? SIOCGIFMTU : SIOCSIFMTU, &ifr) ? -errno : 0;
		check_errno2("an MTU ioctl of no interface", ret, -ENODEV, root ? -ENODEV : -EPERM);
		break;
	case 3:
		snprintf(ifr.ifr_name, IFNAMSIZ, "%s", d->name);
		ret = ioctl(sk, SIOCGIFHWADDR, &ifr) ? -errno : 0;
		check_errno("SIOCGIFHWADDR", ret, 0);
		if (ret)
			break;
		if (ifr.ifr_hwaddr.sa_family != ARPHRD_IB) {
			failf("SIOCGIFHWADDR of %s: family %u", d->name, ifr.ifr_hwaddr.sa_family);
			break;
		}
		if (below(r, 8) == 0 && sysfs_read(d->name, "address", addr, sizeof(addr)) > 0) {
			unsigned int b, i;

			for (i = 0; i < 14; i++)
				if (sscanf(addr + 3 * i, "%2x", &b) != 1 ||
				    (uint8_t)ifr.ifr_hwaddr.sa_data[i] != b)
					break;
			/* the QPN (bytes 1-3) is the interface's own */
			if (i < 14)
				failf("SIOCGIFHWADDR of %s: byte %u differs from %s", d->name, i,
				      addr);
		}
		break;
	case 4:				/* 20 bytes do not fit a sockaddr */
		snprintf(ifr.ifr_name, IFNAMSIZ, "%s", d->name);
		ifr.ifr_hwaddr.sa_family = below(r, 2) ? ARPHRD_IB : below(r, 800);
		ret = ioctl(sk, SIOCSIFHWADDR, &ifr) ? -errno : 0;
		check_errno("SIOCSIFHWADDR", ret, root ? -EINVAL : -EPERM);
		break;
	default:
		op_ethtool(r, d);
		break;
	}
}

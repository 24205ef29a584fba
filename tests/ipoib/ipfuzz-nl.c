// SPDX-License-Identifier: GPL-2.0
/*
 * ipfuzz's rtnetlink part: RTM_NEWLINK (create with kind "ipoib", change
 * of IFLA_IPOIB_MODE and IFLA_IPOIB_UMCAST, up and down), RTM_DELLINK,
 * RTM_SETLINK and RTM_GETLINK, well formed and malformed, each answer
 * checked against Linux 6.1's rule for its input (rtnetlink's own checks
 * in their order, then ipoib_netlink.c's and ipoib_vlan.c's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "ipfuzz.h"

#ifndef IFLA_IPOIB_MAX
#define IFLA_IPOIB_PKEY		1
#define IFLA_IPOIB_MODE		2
#define IFLA_IPOIB_UMCAST	3
#endif

struct msg {
	uint8_t b[1024];
	size_t len;
};

static __thread uint32_t nlseq = 1;

static int nl_exchange(int fd, void *buf, size_t len, struct link *out, int max, int dump);

int nl_open(void)
{
	struct timeval tv = { .tv_sec = 10 };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		perror("ipfuzz: netlink socket");
		exit(2);
	}
	return fd;
}

static void m_init(struct msg *m, int type, int flags, int ifindex,
		   unsigned int ifflags, unsigned int change)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->b;
	struct ifinfomsg *i = NLMSG_DATA(h);

	memset(m->b, 0, NLMSG_LENGTH(sizeof(*i)));
	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	i->ifi_family = AF_UNSPEC;
	i->ifi_index = ifindex;
	i->ifi_flags = ifflags;
	i->ifi_change = change;
	m->len = NLMSG_LENGTH(sizeof(*i));
}

/* an attribute whose header says 4 + len (the payload may be anything) */
static void m_attr(struct msg *m, int type, const void *p, int len)
{
	struct nlattr *a = (struct nlattr *)(m->b + m->len);
	size_t total = NLA_ALIGN(NLA_HDRLEN + len);

	if (m->len + total > sizeof(m->b))
		return;
	a->nla_len = NLA_HDRLEN + len;
	a->nla_type = type;
	memcpy(a + 1, p, len);
	memset((uint8_t *)(a + 1) + len, 0, total - NLA_HDRLEN - len);
	m->len += total;
}

static void m_u16(struct msg *m, int type, uint16_t v)
{
	m_attr(m, type, &v, 2);
}

static void m_u32(struct msg *m, int type, uint32_t v)
{
	m_attr(m, type, &v, 4);
}

static void m_str(struct msg *m, int type, const char *s)
{
	m_attr(m, type, s, strlen(s) + 1);
}

static size_t m_nest(struct msg *m, int type)
{
	size_t off = m->len;

	m_attr(m, type | NLA_F_NESTED, NULL, 0);
	return off;
}

static void m_end(struct msg *m, size_t off)
{
	((struct nlattr *)(m->b + off))->nla_len = m->len - off;
}

/* send and wait for the ack: 0 or -errno; no answer is a failure */
static int nl_send(int fd, struct msg *m)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->b;

	h->nlmsg_len = m->len;
	h->nlmsg_seq = nlseq;
	h->nlmsg_flags |= NLM_F_ACK;
	return nl_talk(fd, m->b, m->len);
}

int nl_talk(int fd, void *buf, size_t len)
{
	return nl_exchange(fd, buf, len, NULL, 0, 0);
}

static void parse_linkinfo(struct nlattr *li, struct link *l)
{
	int rem = li->nla_len - NLA_HDRLEN;
	struct nlattr *a = (struct nlattr *)((uint8_t *)li + NLA_HDRLEN);

	for (; rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= rem;
	     rem -= NLA_ALIGN(a->nla_len),
	     a = (struct nlattr *)((uint8_t *)a + NLA_ALIGN(a->nla_len))) {
		int t = a->nla_type & NLA_TYPE_MASK;
		uint8_t *p = (uint8_t *)a + NLA_HDRLEN;

		if (t == IFLA_INFO_KIND) {
			snprintf(l->kind, sizeof(l->kind), "%.*s",
				 (int)(a->nla_len - NLA_HDRLEN), (char *)p);
		} else if (t == IFLA_INFO_DATA) {
			int r2 = a->nla_len - NLA_HDRLEN;
			struct nlattr *d = (struct nlattr *)p;

			l->has_data = 1;
			for (; r2 >= NLA_HDRLEN && d->nla_len >= NLA_HDRLEN &&
			     d->nla_len <= r2;
			     r2 -= NLA_ALIGN(d->nla_len),
			     d = (struct nlattr *)((uint8_t *)d + NLA_ALIGN(d->nla_len))) {
				uint16_t v;

				if (d->nla_len != NLA_HDRLEN + 2)
					continue;
				memcpy(&v, (uint8_t *)d + NLA_HDRLEN, 2);
				if (d->nla_type == IFLA_IPOIB_PKEY)
					l->pkey = v;
				else if (d->nla_type == IFLA_IPOIB_MODE)
					l->mode = v;
				else if (d->nla_type == IFLA_IPOIB_UMCAST)
					l->umcast = v;
			}
		}
	}
}

/* one RTM_NEWLINK answer into l; 0, or -1 if it is malformed */
static int parse_link(struct nlmsghdr *h, struct link *l)
{
	struct ifinfomsg *i = NLMSG_DATA(h);
	struct nlattr *a;
	int rem;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*i)))
		return -1;
	memset(l, 0, sizeof(*l));
	l->pkey = l->mode = l->umcast = -1;
	l->ifindex = i->ifi_index;
	l->flags = i->ifi_flags;
	rem = h->nlmsg_len - NLMSG_LENGTH(sizeof(*i));
	a = (struct nlattr *)((uint8_t *)i + NLMSG_ALIGN(sizeof(*i)));
	for (; rem >= NLA_HDRLEN; rem -= NLA_ALIGN(a->nla_len),
	     a = (struct nlattr *)((uint8_t *)a + NLA_ALIGN(a->nla_len))) {
		uint8_t *p = (uint8_t *)a + NLA_HDRLEN;
		int t = a->nla_type & NLA_TYPE_MASK;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > rem)
			return -1;
		if (t == IFLA_IFNAME)
			snprintf(l->name, sizeof(l->name), "%.*s",
				 (int)(a->nla_len - NLA_HDRLEN), (char *)p);
		else if (t == IFLA_MTU && a->nla_len == NLA_HDRLEN + 4)
			memcpy(&l->mtu, p, 4);
		else if (t == IFLA_LINK && a->nla_len == NLA_HDRLEN + 4)
			memcpy(&l->link, p, 4);
		else if (t == IFLA_LINKINFO)
			parse_linkinfo(a, l);
	}
	return 0;
}

/*
 * One request and its answers (our sequence number): the links in them
 * parsed into out (at most max), until the ack or error (its errno, else
 * the count), the end of a dump (the count) or, not dumping, the first
 * link; no answer within 10 s or a malformed one is a failure.
 */
static int nl_exchange(int fd, void *buf, size_t len, struct link *out, int max, int dump)
{
	static __thread uint8_t ans[65536];
	uint32_t seq = ((struct nlmsghdr *)buf)->nlmsg_seq;
	int cnt = 0;
	ssize_t n;

	nlseq++;
	if (send(fd, buf, len, 0) < 0)
		return -errno;
	for (;;) {
		struct nlmsghdr *a;

		n = recv(fd, ans, sizeof(ans), 0);
		if (n < 0) {
			failf("netlink: no answer to request %u: %s", seq, ename(errno));
			return -ETIMEDOUT;
		}
		for (a = (struct nlmsghdr *)ans; NLMSG_OK(a, (size_t)n);
		     a = NLMSG_NEXT(a, n)) {
			if (a->nlmsg_seq != seq)
				continue;	/* an old request's */
			if (a->nlmsg_type == NLMSG_DONE)
				return cnt;
			if (a->nlmsg_type == NLMSG_ERROR) {
				int e = ((struct nlmsgerr *)NLMSG_DATA(a))->error;

				return e ? e : cnt;
			}
			if (a->nlmsg_type != RTM_NEWLINK)
				continue;
			if (cnt < max && parse_link(a, &out[cnt])) {
				failf("netlink: a malformed link in the answer to request %u", seq);
				return -EBADMSG;
			}
			if (cnt < max)
				cnt++;
			if (!dump)
				return cnt;
		}
	}
}

/* RTM_GETLINK of one index: 0 and *l, or -errno */
int nl_getlink(int fd, int ifindex, struct link *l)
{
	struct msg m;
	struct nlmsghdr *h = (struct nlmsghdr *)m.b;
	int ret;

	m_init(&m, RTM_GETLINK, 0, ifindex, 0, 0);
	h->nlmsg_len = m.len;
	h->nlmsg_seq = nlseq;
	ret = nl_exchange(fd, m.b, m.len, l, 1, 0);
	return ret == 1 ? 0 : ret < 0 ? ret : -EBADMSG;
}

/* RTM_GETLINK dump: the number of links (at most max), or -errno */
int nl_dump(int fd, struct link *out, int max)
{
	struct msg m;
	struct nlmsghdr *h = (struct nlmsghdr *)m.b;

	m_init(&m, RTM_GETLINK, NLM_F_DUMP, 0, 0, 0);
	h->nlmsg_len = m.len;
	h->nlmsg_seq = nlseq;
	return nl_exchange(fd, m.b, m.len, out, max, 1);
}

int nl_del(int fd, int ifindex)
{
	struct msg m;

	m_init(&m, RTM_DELLINK, 0, ifindex, 0, 0);
	return nl_send(fd, &m);
}

int nl_setflags(int fd, int ifindex, int up)
{
	struct msg m;

	m_init(&m, RTM_NEWLINK, 0, ifindex, up ? IFF_UP : 0, IFF_UP);
	return nl_send(fd, &m);
}

/* --- the operations ------------------------------------------------------ */

static const uint16_t pkeys[] = {
	0, 0x8000, 0xffff, 0x7fff, 0x8001, 0x0001, 0x8002, 0x0002, 0x8003, 0x1234,
};

static uint16_t pick_pkey(struct rng *r)
{
	struct dev *d;

	switch (below(r, 4)) {
	case 0:
		return rnd(r);
	case 1:			/* one in use */
		d = dev_pick(r, 0, 0);
		return below(r, 2) ? d->pkey : (d->pkey & 0x7fff);
	default:
		return pkeys[below(r, sizeof(pkeys) / sizeof(pkeys[0]))];
	}
}

/* the parts of INFO_DATA a request has, and what 6.1 makes of them */
struct ipdata {
	int pkey_len, mode_len, umcast_len;	/* -1: absent */
	uint16_t pkey, mode, umcast;
	int unknown;				/* an attribute past MAX */
	int err;				/* ERANGE from the policy */
};

static void pick_data(struct rng *r, struct ipdata *d, int create)
{
	static const int lens[] = { 2, 2, 2, 2, 2, 2, 4, 1, 0, 3 };

	memset(d, 0, sizeof(*d));
	d->pkey_len = d->mode_len = d->umcast_len = -1;
	if (create && below(r, 3))
		d->pkey_len = lens[below(r, 10)];
	if (below(r, 3) == 0 && !no_nl_mode)
		d->mode_len = lens[below(r, 10)];
	if (below(r, 3) == 0)
		d->umcast_len = lens[below(r, 10)];
	d->pkey = pick_pkey(r);
	d->mode = below(r, 8) ? below(r, 2) : (below(r, 2) ? 2 : rnd(r));
	d->umcast = below(r, 8) ? below(r, 2) : rnd(r);
	d->unknown = below(r, 10) == 0;
	/* NLA_U16: shorter than 2 is ERANGE; longer is taken (and warned) */
	if ((d->pkey_len >= 0 && d->pkey_len < 2) ||
	    (d->mode_len >= 0 && d->mode_len < 2) ||
	    (d->umcast_len >= 0 && d->umcast_len < 2))
		d->err = -ERANGE;
}

static void put_data(struct msg *m, const struct ipdata *d)
{
	uint8_t p[4] = { 0 };
	size_t off = m_nest(m, IFLA_INFO_DATA);

	if (d->unknown)
		m_u32(m, 4 + (d->pkey & 7), 0x12345678);
	if (d->pkey_len >= 0) {
		memcpy(p, &d->pkey, 2);
		m_attr(m, IFLA_IPOIB_PKEY, p, d->pkey_len);
	}
	if (d->mode_len >= 0) {
		memcpy(p, &d->mode, 2);
		m_attr(m, IFLA_IPOIB_MODE, p, d->mode_len);
	}
	if (d->umcast_len >= 0) {
		memset(p, 0, sizeof(p));
		memcpy(p, &d->umcast, 2);
		m_attr(m, IFLA_IPOIB_UMCAST, p, d->umcast_len);
	}
	m_end(m, off);
}

/*
 * A mode that changes may also be EBUSY under 6.1: its ipoib_set_mode
 * drops RTNL to flush the paths and only tries to take it back (the mode
 * is then changed, umcast is not); ours keeps RTNL and never is.
 */
static int busy_ok;
static struct dev busy_dev;

/* IFLA_LINKINFO: kind "ipoib" if kind, and d as its data if given */
static void put_linkinfo(struct msg *m, int kind, const struct ipdata *d)
{
	size_t li = m_nest(m, IFLA_LINKINFO);

	if (kind)
		m_str(m, IFLA_INFO_KIND, "ipoib");
	if (d)
		put_data(m, d);
	m_end(m, li);
}

/* 6.1's ipoib_changelink on a model device: 0 or -errno, the model updated */
static int changelink(struct dev *dv, const struct ipdata *d)
{
	busy_ok = 0;
	if (d->mode_len >= 0) {
		if (d->mode == 1 && !dv->connected && !cm_ok)
			return -EINVAL;
		if (d->mode > 1)
			return -EINVAL;
		if (dv->connected != d->mode) {
			busy_ok = 1;
			busy_dev = *dv;
			busy_dev.connected = d->mode;
		}
		dv->connected = d->mode;
	}
	if (d->umcast_len >= 0)
		dv->umcast = d->umcast > 0;
	return 0;
}

/* check_errno, with 6.1's EBUSY of a mode change taken (see busy_ok) */
static int check_busy(const char *what, int ret, int want)
{
	check_errno2(what, ret, want, busy_ok && !want ? -EBUSY : want);
	return busy_ok && !want && ret == -EBUSY;
}

/* a device's state as the kernel tells it against the model */
static void check_link(int fd, struct dev *dv, const char *what)
{
	struct link l;
	int ret = nl_getlink(fd, dv->ifindex, &l);

	if (ret) {
		failf("%s: GETLINK %s: %s", what, dv->name, ename(-ret));
		return;
	}
	if (strcmp(l.name, dv->name) || strcmp(l.kind, "ipoib") ||
	    l.pkey != dv->pkey || l.mode != dv->connected || l.umcast != dv->umcast ||
	    (dv != devs && l.link != devs[0].ifindex) ||
	    (dv->up >= 0 && !!(l.flags & IFF_UP) != dv->up))
		failf("%s: %s is %s kind %s pkey 0x%x mode %d umcast %d link %d %s, the model %s pkey 0x%x mode %d umcast %d %s",
		      what, dv->name, l.name, l.kind, l.pkey, l.mode, l.umcast, l.link,
		      l.flags & IFF_UP ? "up" : "down", dv->name, dv->pkey,
		      dv->connected, dv->umcast,
		      dv->up < 0 ? "up?" : dv->up ? "up" : "down");
}

/* RTM_NEWLINK with NLM_F_CREATE: an rtnl child, or why not */
static void op_create(struct rng *r, int fd)
{
	enum { P_IB0, P_LO, P_NONE, P_BOGUS, P_CHILD, P_SHORT } par;
	enum { N_NEW, N_DUP, N_NONE, N_LONG, N_BAD } nm;
	struct dev tmp = { 0 }, *dup = NULL, *pc = NULL;
	char name[40];
	struct ipdata d;
	struct msg m;
	int has_data = below(r, 4) != 0, kind = below(r, 30) != 0;
	int excl = below(r, 20) != 0, creat = below(r, 30) != 0;
	int up = below(r, 4) == 0, has_mtu = below(r, 6) == 0;
	uint32_t mtu = below(r, 2) ? below(r, 70000) : rnd(r);
	uint32_t link;
	int want = 0, ret, u;
	uint16_t pkey;

	u = below(r, 100);
	par = u < 80 ? P_IB0 : u < 84 ? P_LO : u < 88 ? P_NONE : u < 92 ? P_BOGUS :
	      u < 97 ? P_CHILD : P_SHORT;
	if (par == P_CHILD && !nchildren())
		par = P_IB0;
	u = below(r, 100);
	nm = u < 80 ? N_NEW : u < 88 ? N_DUP : u < 93 ? N_NONE : u < 97 ? N_LONG : N_BAD;
	/* a child that would be made while the model is full: another case */
	if (nchildren() >= MAXC && par == P_IB0 && nm != N_DUP)
		nm = N_DUP;
	switch (nm) {
	case N_NEW:
		do
			snprintf(name, sizeof(name), "ipfz%u", below(r, 100));
		while (if_nametoindex(name));
		break;
	case N_DUP:
		dup = dev_pick(r, 0, 0);
		snprintf(name, sizeof(name), "%s", dup->name);
		break;
	case N_NONE:
		name[0] = 0;
		break;
	case N_LONG:
		snprintf(name, sizeof(name), "ipfz%012u", rnd(r));
		break;
	case N_BAD:
		snprintf(name, sizeof(name), "ip/fz%u", below(r, 10));
		break;
	}
	pick_data(r, &d, 1);

	m_init(&m, RTM_NEWLINK, (creat ? NLM_F_CREATE : 0) | (excl ? NLM_F_EXCL : 0),
	       0, up ? IFF_UP : 0, IFF_UP);
	if (nm != N_NONE)
		m_str(&m, IFLA_IFNAME, name);
	switch (par) {
	case P_IB0:
		link = devs[0].ifindex;
		break;
	case P_LO:
		link = if_nametoindex("lo");
		break;
	case P_CHILD:
		pc = dev_pick(r, 1, 0);
		link = pc->ifindex;
		break;
	default:
		link = 0x7ffffff0 - below(r, 100);
		break;
	}
	if (par == P_SHORT)
		m_u16(&m, IFLA_LINK, devs[0].ifindex);
	else if (par != P_NONE)
		m_u32(&m, IFLA_LINK, link);
	if (has_mtu)
		m_u32(&m, IFLA_MTU, mtu);
	put_linkinfo(&m, kind, has_data ? &d : NULL);

	/* 6.1's answer, in rtnetlink's order */
	if (!root)
		want = -EPERM;
	else if (nm == N_LONG || par == P_SHORT)
		want = -ERANGE;			/* ifla_policy */
	else if (has_data && kind && d.err)
		want = d.err;			/* ipoib's policy */
	else if (nm == N_DUP && excl)
		want = -EEXIST;
	else if (nm == N_DUP)
		want = 1;			/* a change: see below */
	else if (!creat)
		want = -ENODEV;
	else if (!kind)
		want = -EOPNOTSUPP;
	else if (has_mtu && (int32_t)mtu < 0)
		want = -EINVAL;			/* dev_validate_mtu */
	else if (par == P_NONE)
		want = -EINVAL;
	else if (par != P_IB0 && par != P_CHILD)
		want = -ENODEV;
	else if (par == P_CHILD)
		want = -EINVAL;			/* no child of a child */
	else {
		pkey = has_data && d.pkey_len >= 0 ? d.pkey : devs[0].pkey;
		if (pkey == 0 || pkey == 0x8000 || nm == N_BAD)
			want = -EINVAL;
		else {
			tmp.pkey = pkey | 0x8000;
			tmp.up = up;
			want = has_data ? changelink(&tmp, &d) : 0;
		}
	}
	if (want == 1) {
		/*
		 * An existing device: IFLA_LINKINFO's data is a changelink of
		 * it if it is ipoib's, then do_setlink (sent without IFLA_LINK
		 * and IFLA_MTU, do_setlink's business)
		 */
		int keep = dup == devs && !up;	/* ibN is never taken down */

		m_init(&m, RTM_NEWLINK, (creat ? NLM_F_CREATE : 0) |
		       (excl ? NLM_F_EXCL : 0), 0, keep || !up ? 0 : IFF_UP,
		       keep ? 0 : IFF_UP);
		m_str(&m, IFLA_IFNAME, name);
		put_linkinfo(&m, kind, has_data ? &d : NULL);
		tmp = *dup;
		want = 0;
		if (has_data && !kind)
			want = -EOPNOTSUPP;
		else if (has_data)
			want = changelink(&tmp, &d);
		if (!has_data)
			busy_ok = 0;
		ret = nl_send(fd, &m);
		if (check_busy("NEWLINK of an existing name", ret, want))
			dup->connected = busy_dev.connected;
		if (!ret && !want) {
			tmp.up = dup == devs ? tmp.up : up;
			*dup = tmp;
		}
		return;
	}
	if (!has_data)
		busy_ok = 0;
	/* a child made costs QPs and rings: mostly the ways it fails */
	if (!want && (nchildren() >= 2 || below(r, 2)) && below(r, 4))
		return;
	ret = nl_send(fd, &m);
	check_busy("NEWLINK ipoib", ret, want);	/* EBUSY: unregistered */
	if (ret || want)
		return;
	{
		struct dev *nd = dev_new();

		if (!nd) {
			failf("NEWLINK ipoib: more children than the model holds");
			return;
		}
		*nd = tmp;
		nd->used = 1;
		snprintf(nd->name, sizeof(nd->name), "%s", name);
		nd->legacy = 0;
		if (nm == N_NONE) {
			if (find_new_child(nd)) {
				failf("NEWLINK ipoib without a name: no new ipoib%%d");
				nd->used = 0;
				return;
			}
		} else {
			nd->ifindex = if_nametoindex(name);
		}
		check_link(fd, nd, "NEWLINK ipoib");
	}
}

static void op_delete(struct rng *r, int fd)
{
	struct dev *d = NULL;
	struct msg m;
	int u = below(r, 10), want, ret, ifindex;
	int byname = below(r, 4) == 0;

	if (u < 6 && nchildren()) {
		d = dev_pick(r, 1, 0);
		ifindex = d->ifindex;
		want = 0;
	} else if (u < 7) {
		d = devs;		/* ibN: a dellink that does nothing */
		ifindex = d->ifindex;
		want = 0;
	} else if (u < 8) {
		ifindex = if_nametoindex("lo");
		want = -EOPNOTSUPP;
		byname = 0;
	} else if (u < 9) {
		ifindex = 0x7ffffff0 - below(r, 100);
		want = -ENODEV;
		byname = 0;
	} else {
		ifindex = 0;		/* neither index nor name */
		want = -EINVAL;
		byname = 0;
	}
	m_init(&m, RTM_DELLINK, 0, byname ? 0 : ifindex, 0, 0);
	if (byname)
		m_str(&m, IFLA_IFNAME, d->name);
	if (!root)
		want = -EPERM;
	ret = nl_send(fd, &m);
	check_errno("DELLINK", ret, want);
	if (!ret && d && d != devs)
		dev_gone(d);
	if (!ret && d == devs && !if_nametoindex(devs[0].name))
		failf("DELLINK of %s took it away", devs[0].name);
}

/* RTM_NEWLINK (no CREATE) with ipoib's data on an existing device */
static void op_change(struct rng *r, int fd)
{
	struct dev *dv = dev_pick(r, 0, 0), tmp = *dv;
	struct ipdata d;
	struct msg m;
	int lo = below(r, 20) == 0, kind = below(r, 20) != 0;
	int setlink = below(r, 10) == 0, want, ret;

	pick_data(r, &d, below(r, 4) == 0);
	m_init(&m, setlink ? RTM_SETLINK : RTM_NEWLINK, 0,
	       lo ? (int)if_nametoindex("lo") : dv->ifindex, 0, 0);
	put_linkinfo(&m, kind, &d);
	if (!root)
		want = -EPERM;
	else if (setlink)
		want = 0;		/* do_setlink has nothing to do with it */
	else if (kind && d.err)
		want = d.err;
	else if (lo || !kind)
		want = -EOPNOTSUPP;
	else
		want = changelink(&tmp, &d);
	if (!root || setlink || lo || !kind || d.err)
		busy_ok = 0;
	ret = nl_send(fd, &m);
	if (check_busy(setlink ? "SETLINK with ipoib's data" : "NEWLINK change", ret, want))
		dv->connected = busy_dev.connected;
	if (!ret && !want && !setlink && !lo) {
		*dv = tmp;
		if (below(r, 4) == 0)
			check_link(fd, dv, "NEWLINK change");
	}
}

/* a child up or down; now and then ibN down and at once up again */
static void op_updown(struct rng *r, int fd)
{
	struct dev *dv;
	int up = below(r, 2), ret, i;

	if (below(r, 50) == 0 || !nchildren()) {
		if (below(r, 20))
			return;
		ret = nl_setflags(fd, devs[0].ifindex, 0);
		check_errno("ibN down", ret, root ? 0 : -EPERM);
		ret = nl_setflags(fd, devs[0].ifindex, 1);
		check_errno("ibN up", ret, root ? 0 : -EPERM);
		if (root)
			for (i = 1; i < MAXDEV; i++)
				if (devs[i].used)
					devs[i].up = 1;	/* ipoib_open's */
		return;
	}
	dv = dev_pick(r, 1, 0);
	ret = nl_setflags(fd, dv->ifindex, up);
	check_errno(up ? "child up" : "child down", ret, root ? 0 : -EPERM);
	if (!ret)
		dv->up = up;
}

/* a request with one defect of its framing */
static void op_malformed(struct rng *r, int fd)
{
	struct dev *dv = dev_pick(r, 0, 0), tmp = *dv;
	struct ipdata d;
	struct msg m;
	int kind = below(r, 6), want, ret;
	uint8_t junk[8] = { 0xff, 0xff, 0xff, 0xff };
	char what[64];
	size_t li, dd;

	pick_data(r, &d, 0);
	m_init(&m, RTM_NEWLINK, 0, dv->ifindex, 0, 0);
	want = 0;
	switch (kind) {
	case 0:		/* shorter than its ifinfomsg; empty is taken as done */
		m.len = NLMSG_LENGTH(below(r, sizeof(struct ifinfomsg)));
		want = m.len == NLMSG_HDRLEN ? 1 : -EINVAL;
		break;
	case 1:		/* a last attribute longer than the message: ignored */
	case 2:		/* one shorter than its header: ignored */
		li = m_nest(&m, IFLA_LINKINFO);
		m_str(&m, IFLA_INFO_KIND, "ipoib");
		put_data(&m, &d);
		m_end(&m, li);
		want = d.err ? d.err : changelink(&tmp, &d);
		{
			struct nlattr *a = (struct nlattr *)(m.b + m.len);

			a->nla_type = IFLA_MTU;
			a->nla_len = kind == 1 ? 9 + below(r, 200) : below(r, 4);
			memset(a + 1, 0, 4);
			m.len += kind == 1 ? 8 : 4;
		}
		break;
	case 3:		/* unknown top-level types: ignored */
		m_u32(&m, IFLA_MAX + 1 + below(r, 50), rnd(r));
		m_attr(&m, 0, junk, below(r, 8));
		li = m_nest(&m, IFLA_LINKINFO);
		m_str(&m, IFLA_INFO_KIND, "ipoib");
		put_data(&m, &d);
		m_end(&m, li);
		want = d.err ? d.err : changelink(&tmp, &d);
		break;
	case 4:		/* INFO_DATA ending in a broken attribute: the rest counts */
		li = m_nest(&m, IFLA_LINKINFO);
		m_str(&m, IFLA_INFO_KIND, "ipoib");
		dd = m.len;
		put_data(&m, &d);
		{
			struct nlattr *a = (struct nlattr *)(m.b + m.len);

			a->nla_type = IFLA_IPOIB_MODE;
			a->nla_len = 9 + below(r, 64);
			memset(a + 1, 0xff, 4);
			m.len += 8;
			((struct nlattr *)(m.b + dd))->nla_len = m.len - dd;
		}
		m_end(&m, li);
		want = d.err ? d.err : changelink(&tmp, &d);
		break;
	default:	/* IFLA_LINKINFO too short for a nest (or garbage) */
		ret = below(r, 8);
		m_attr(&m, IFLA_LINKINFO, junk, ret);
		/* a nest shorter than a header is ERANGE; garbage is an empty nest */
		want = ret && ret < NLA_HDRLEN ? -ERANGE : 0;
		break;
	}
	/* rtnetlink_rcv_msg answers 0 to an empty body before asking who */
	if (want == 1)
		want = 0;
	else if (!root)
		want = -EPERM;
	if (!root || kind == 0 || kind == 5 || d.err)
		busy_ok = 0;
	ret = nl_send(fd, &m);
	snprintf(what, sizeof(what), "malformed NEWLINK (case %d) of %s", kind, dv->name);
	if (check_busy(what, ret, want))
		dv->connected = busy_dev.connected;
	if (!ret && !want)
		*dv = tmp;
}

static void op_get(struct rng *r, int fd)
{
	struct link l;
	int ret;

	if (below(r, 4)) {
		check_link(fd, dev_pick(r, 0, 0), "GETLINK");
		return;
	}
	ret = nl_getlink(fd, 0x7ffffff0 - below(r, 100), &l);
	check_errno("GETLINK of no device", ret, -ENODEV);
}

void nl_op(struct rng *r, int fd)
{
	uint32_t u = below(r, 1000);

	busy_ok = 0;
	/*
	 * making and deleting children is costly (QPs, rings, a multicast
	 * join: 0.1-0.2 s in the VM, against well under 1 ms for the rest):
	 * 0.4% each, so that 100k operations take minutes, not an hour
	 */
	kind = u < 4 ? K_CREATE : u < 8 ? K_DELETE : u < 316 ? K_CHANGE :
	       u < 396 ? K_UPDOWN : u < 696 ? K_MALFORMED : K_GET;
	if (u < 4)
		op_create(r, fd);
	else if (u < 8)
		op_delete(r, fd);
	else if (u < 316)
		op_change(r, fd);
	else if (u < 396)
		op_updown(r, fd);
	else if (u < 696)
		op_malformed(r, fd);
	else
		op_get(r, fd);
}

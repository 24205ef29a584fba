// SPDX-License-Identifier: GPL-2.0
/*
 * umadfuzz: agents.  REGISTER_AGENT and REGISTER_AGENT2 with random and
 * mutated requests, their arguments at good and bad addresses,
 * UNREGISTER_AGENT, ENABLE_PKEY, unknown ioctls; and the model of what
 * 6.1's ib_register_mad_agent() says: its checks in its order, the
 * methods each class and version (and OUI) has taken on the port, the 8
 * OUI slots of a vendor class.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include "umadfuzz.h"

static const uint32_t ouis[] = { 0x001405, 0x0002c9, 0x000001, 0x000002, 0x000003,
				 0x000004, 0x000005, 0x000006, 0x000007, 0x000008,
				 0x00000a, 0x123456 };
#define NOUI (sizeof(ouis) / sizeof(ouis[0]))

/* --- the registration model (ib_register_mad_agent of 6.1) ---------------- */

/*
 * Vendor classes of range 2 keep at most 8 OUIs per class and version
 * (MAX_MGMT_OUI): a slot holds an OUI while its method table does, and
 * the table goes when an agent of that OUI is unregistered and no
 * method of the table is left.
 */
static uint32_t slots[MAX_VERSION][32][8];

int same_key(const struct agent *a, int cls, int ver, uint32_t oui)
{
	return a->on && a->cls == cls && a->ver == ver && (!is_vendor2(cls) || a->oui == oui);
}

/* do the live agents of every file hold one of these methods? */
static int methods_taken(int cls, int ver, uint32_t oui, const uint32_t *mask)
{
	int f, i;

	if (!is_vendor2(cls) && ver < 4 && mask_meets(outside[ver][cls], mask))
		return 1;
	for (f = 0; f < MAXF; f++)
		for (i = 0; files[f].fd >= 0 && i < NAGENT; i++)
			if (same_key(&files[f].ag[i], cls, ver, oui) &&
			    mask_meets(files[f].ag[i].mask, mask))
				return 1;
	return 0;
}

static int slot_find(int cls, int ver, uint32_t oui)
{
	int i;

	for (i = 0; i < 8; i++)
		if (slots[ver][cls - 0x30][i] == oui)
			return i;
	return -1;
}

/* the model's side of an agent going away (after it is off) */
void model_unregistered(const struct agent *a)
{
	uint32_t left[4] = { 0 };
	int f, i, s;

	if (!a->cls || !is_vendor2(a->cls))
		return;
	s = slot_find(a->cls, a->ver, a->oui);
	if (s < 0)
		return;
	for (f = 0; f < MAXF; f++)
		for (i = 0; files[f].fd >= 0 && i < NAGENT; i++)
			if (same_key(&files[f].ag[i], a->cls, a->ver, a->oui)) {
				left[0] |= files[f].ag[i].mask[0];
				left[1] |= files[f].ag[i].mask[1];
				left[2] |= files[f].ag[i].mask[2];
				left[3] |= files[f].ag[i].mask[3];
			}
	if (mask_empty(left))
		slots[a->ver][a->cls - 0x30][s] = 0;
}

/* model_register()'s "0 or ENOMEM": a vendor class's OUI slot may be needed */
#define MAYBE_NOMEM	-1

/*
 * What ib_register_mad_agent() says to a (flags: IB_MAD_USER_RMPP), and,
 * on success, the model's note of a vendor OUI slot taken.  An OUI of a
 * vendor class takes one of its 8 slots; when 6.1 frees one depends on
 * the order agents of an OUI with and without methods went, and the slots
 * below do not follow it exactly (the in-tree stack said ENOMEM for an OUI
 * they had a slot for): a vendor registration may get ENOMEM.
 */
static int model_register(const struct agent *a, int flags, int commit)
{
	int s;

	if (a->rmpp && a->rmpp != 1)
		return EINVAL;
	if (!a->cls)
		return (flags & 1) ? EINVAL : 0;
	if (a->ver >= MAX_VERSION)
		return EINVAL;
	if (a->cls >= 0x50 && a->cls != 0x81)
		return EINVAL;
	if (is_vendor2(a->cls) && !a->oui)
		return EINVAL;
	if (!is_rmpp_class(a->cls) && a->rmpp)
		return EINVAL;
	if (is_smp_class(a->cls) != (a->qpn == 0))
		return EINVAL;
	if (methods_taken(a->cls, a->ver, a->oui, a->mask))
		return EINVAL;
	if (!is_vendor2(a->cls))
		return 0;
	if (slot_find(a->cls, a->ver, a->oui) >= 0)
		return MAYBE_NOMEM;
	s = slot_find(a->cls, a->ver, 0);
	if (s >= 0 && commit)
		slots[a->ver][a->cls - 0x30][s] = a->oui;
	return MAYBE_NOMEM;	/* perhaps "All OUI slots in use" */
}

int free_id(const struct ufile *f)
{
	int i;

	for (i = 0; i < NAGENT; i++)
		if (!f->ag[i].on)
			return i;
	return -1;
}

/* --- argument pointers ---------------------------------------------------- */

/*
 * Where an ioctl's argument of len bytes goes: kind P_OK (readable and
 * writable), P_NONE (a PROT_NONE page), P_RDONLY (read-only: the kernel
 * reads it, its writes fail), P_SHORT (the last *avail bytes of the
 * writable page, the PROT_NONE page after them), P_NULL, P_KERNEL.
 */
static uint8_t *arg_ptr(int kind, size_t len, size_t *avail, const void *content)
{
	uint8_t *p;

	switch (kind) {
	case P_NONE:
		*avail = 0;
		return pages + pagesz + below(pagesz - len);
	case P_RDONLY:
		p = pages + 2 * pagesz + below(pagesz - len);
		mprotect(pages + 2 * pagesz, pagesz, PROT_READ | PROT_WRITE);
		memcpy(p, content, len);
		mprotect(pages + 2 * pagesz, pagesz, PROT_READ);
		*avail = len;
		return p;
	case P_SHORT:
		*avail = below(len);
		p = pages + pagesz - *avail;
		memcpy(p, content, *avail);
		return p;
	case P_NULL:
		*avail = 0;
		return NULL;
	case P_KERNEL:
		*avail = 0;
		return (uint8_t *)0xffff888000001000ull + below(4096);
	default:
		*avail = len;
		p = pages + below(pagesz - len) / 8 * 8;
		memcpy(p, content, len);
		return p;
	}
}

static int pick_ptr(void)
{
	uint32_t r = below(100);

	if (r < 88)
		return P_OK;
	if (r < 91)
		return P_NONE;
	if (r < 95)
		return P_RDONLY;
	if (r < 98)
		return P_SHORT;
	return r < 99 ? P_NULL : P_KERNEL;
}

/* --- registrations -------------------------------------------------------- */

static void rand_mask(uint32_t *m)
{
	uint32_t r = below(100);
	int i;

	memset(m, 0, 16);
	if (r < 25)
		return;
	if (r < 60) {
		i = below(4) ? 1 + below(8) : below(128);
		m[i / 32] |= 1u << (i % 32);
	} else if (r < 85) {
		for (i = 1 + below(4); i > 0; i--) {
			int b = below(3) ? below(32) : below(128);

			m[b / 32] |= 1u << (b % 32);
		}
	} else if (r < 90) {
		memset(m, 0xff, 16);
	} else {
		for (i = 0; i < 4; i++)
			m[i] = rnd();
	}
}

static int rand_class(void)
{
	static const uint8_t common[] = { 0x01, 0x81, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
					  0x09, 0x0a, 0x0b, 0x0f, 0x10, 0x12, 0x21, 0x30,
					  0x31, 0x32, 0x4f };
	uint32_t r = below(100);

	if (r < 10)
		return 0;		/* send-only */
	if (r < 80)
		return common[below(sizeof(common))];
	if (r < 90)
		return 1 + below(0x4f);
	return below(256);
}

/* a request: mostly one that works, often one that works for a receiver */
static void rand_agent(struct agent *a)
{
	uint32_t r = below(100);

	memset(a, 0, sizeof(*a));
	if (r < 25) {
		/* a receiver of kernel-RMPP or plain MADs we can send to ourselves */
		static const uint8_t cls[] = { 0x03, 0x30, 0x31, 0x05, 0x08, 0x0b, 0x10, 0x12 };

		a->cls = cls[below(sizeof(cls))];
		a->qpn = 1;
		a->ver = a->cls == 0x03 ? 2 : 1;
		a->rmpp = is_rmpp_class(a->cls) && below(3);
		a->oui = is_vendor2(a->cls) ? ouis[below(3)] : 0;
		a->mask[0] = 1u << (1 + below(3));	/* Get, Set or Send */
		if (one_in(3))
			a->mask[0] |= 1u << (1 + below(3));
		return;
	}
	a->cls = rand_class();
	r = below(100);
	a->qpn = r < 85 ? (uint32_t)!is_smp_class(a->cls) :
		 r < 95 ? (uint32_t)is_smp_class(a->cls) : below(256);
	r = below(100);
	a->ver = r < 70 ? 1u + (a->cls == 0x03 || a->cls == 0x07) : r < 85 ? below(4) :
		 r < 95 ? below(MAX_VERSION) : MAX_VERSION + below(256 - MAX_VERSION);
	rand_mask(a->mask);
	r = below(100);
	a->rmpp = r < 70 ? 0 : r < 95 ? 1 : below(256);
	if (is_vendor2(a->cls) || one_in(10))
		a->oui = below(10) ? ouis[below(NOUI)] : below(8) ? 0 : rnd() & 0xffffff;
}

/* prints a registration for the logs */
static const char *agent_str(const struct agent *a, int flags)
{
	static char b[160];

	snprintf(b, sizeof(b),
		 "qpn %u class 0x%02x version %u rmpp %u oui 0x%06x flags 0x%x methods %08x%08x%08x%08x",
		 a->qpn, a->cls, a->ver, a->rmpp, a->oui, flags, a->mask[3], a->mask[2],
		 a->mask[1], a->mask[0]);
	return b;
}

static void registered(struct ufile *f, int id, const struct agent *a, int flags, int agent2)
{
	f->ag[id] = *a;
	f->ag[id].on = 1;
	f->ag[id].user_rmpp = flags & 1;
	f->ever |= 1u << id;
	if (!f->used) {
		f->used = 1;
		if (agent2)
			f->pkey = 1;
	}
}

/* > 0: registrations of one vendor class (burst_cls), an OUI each */
static int burst, burst_cls;

static void register_one(struct ufile *f)
{
	struct ib_user_mad_reg_req req;
	struct agent a;
	int ptr, e, id, want, fid;
	uint64_t set;
	size_t avail;
	uint8_t *p;
	char what[200];

	rand_agent(&a);
	if (burst) {
		/* the 8 OUI slots of a vendor class and version, the 32 agents of a file */
		memset(&a, 0, sizeof(a));
		a.qpn = 1;
		a.cls = burst_cls;
		a.ver = 1;
		a.oui = ouis[burst % NOUI];
		if (one_in(4))
			a.mask[0] = 1u << below(32);
	}
	memset(&req, 0, sizeof(req));
	req.id = rnd();
	req.qpn = a.qpn;
	req.mgmt_class = a.cls;
	req.mgmt_class_version = a.ver;
	req.rmpp_version = a.rmpp;
	req.oui[0] = a.oui >> 16;
	req.oui[1] = a.oui >> 8;
	req.oui[2] = a.oui;
	memcpy(req.method_mask, a.mask, 16);
	ptr = pick_ptr();
	p = arg_ptr(ptr, sizeof(req), &avail, &req);

	/* ib_umad_reg_agent(): copy, QPN, a free id, ib_mad, the id back */
	fid = free_id(f);
	if (avail < sizeof(req))
		want = EFAULT;
	else if (a.qpn > 1)
		want = EINVAL;
	else if (fid < 0)
		want = ENOMEM;
	else
		want = model_register(&a, 0, 0);
	set = want == MAYBE_NOMEM ? OK | E(ENOMEM) : 1ull << want;
	if (ptr == P_RDONLY && (set & OK))
		set = (set & ~OK) | E(EFAULT);	/* registered, the id not written back: undone */
	snprintf(what, sizeof(what), "REGISTER_AGENT %s ptr %d", agent_str(&a, 0), ptr);
	e = ioctl(f->fd, IB_USER_MAD_REGISTER_AGENT, p) ? errno : 0;
	check(K_REG, e, set, what);
	if (e || ptr != P_OK)
		return;
	/* the model follows what the kernel did, expected or not */
	memcpy(&id, p + offsetof(struct ib_user_mad_reg_req, id), 4);
	if (id != fid) {
		fail("%s: id %d, the lowest free one is %d", what, id, fid);
		if (id < 0 || id >= NAGENT)
			return;
	}
	model_register(&a, 0, 1);
	registered(f, id, &a, 0, 0);
}

/* one registration, or now and then a burst of 40 into one file */
void op_register(void)
{
	struct ufile *f = any_file();
	int i;

	if (!f)
		return;
	if (!one_in(200)) {
		register_one(f);
		return;
	}
	burst_cls = 0x30 + below(2);
	for (i = 40; i > 0; i--) {
		burst = one_in(4) ? 0 : i;
		register_one(f);
	}
	burst = 0;
}

void op_register2(void)
{
	struct ufile *f = any_file();
	struct ib_user_mad_reg_req2 req;
	struct agent a;
	int ptr, e, want, fid, flags;
	uint64_t set;
	uint32_t id, oui, back;
	size_t avail;
	uint8_t *p;
	char what[220];
	uint32_t r = below(100);

	if (!f)
		return;
	rand_agent(&a);
	flags = r < 60 ? 0 : r < 85 ? IB_USER_MAD_USER_RMPP : r < 95 ? 1u << below(32) : rnd();
	oui = below(10) ? a.oui : a.oui | (1 + below(255)) << 24;
	memset(&req, 0, sizeof(req));
	req.id = rnd();
	req.qpn = below(20) ? a.qpn : rnd();
	req.mgmt_class = a.cls;
	req.mgmt_class_version = a.ver;
	req.res = below(8) ? 0 : rnd();
	req.flags = flags;
	memcpy(req.method_mask, a.mask, 16);
	req.oui = oui;
	req.rmpp_version = a.rmpp;
	ptr = pick_ptr();
	p = arg_ptr(ptr, sizeof(req), &avail, &req);

	/* ib_umad_reg_agent2(): copy, QPN, flags, a free id, OUI, ib_mad, id back */
	a.qpn = req.qpn > 1 ? 2 : req.qpn;
	fid = free_id(f);
	back = flags;
	if (avail < sizeof(req)) {
		want = EFAULT;
	} else if (req.qpn > 1) {
		want = EINVAL;
	} else if (flags & ~IB_USER_MAD_REG_FLAGS_CAP) {
		want = ptr == P_RDONLY ? EFAULT : EINVAL;
		back = IB_USER_MAD_REG_FLAGS_CAP;	/* the flags it knows, written back */
	} else if (fid < 0) {
		want = ENOMEM;
	} else if (a.cls && (oui & 0xff000000)) {
		want = EINVAL;
	} else {
		want = model_register(&a, flags, 0);
	}
	set = want == MAYBE_NOMEM ? OK | E(ENOMEM) : 1ull << want;
	if (ptr == P_RDONLY && (set & OK))
		set = (set & ~OK) | E(EFAULT);
	snprintf(what, sizeof(what), "REGISTER_AGENT2 %s (qpn %u oui 0x%x) ptr %d",
		 agent_str(&a, flags), req.qpn, oui, ptr);
	e = ioctl(f->fd, IB_USER_MAD_REGISTER_AGENT2, p) ? errno : 0;
	check(K_REG2, e, set, what);
	if (ptr == P_OK) {
		uint32_t got;

		memcpy(&got, p + offsetof(struct ib_user_mad_reg_req2, flags), 4);
		if (got != back)
			fail("%s: flags 0x%x afterwards, expected 0x%x", what, got, back);
	}
	if (e || ptr != P_OK)
		return;
	memcpy(&id, p + offsetof(struct ib_user_mad_reg_req2, id), 4);
	if ((int)id != fid) {
		fail("%s: id %u, the lowest free one is %d", what, id, fid);
		if (id >= NAGENT)
			return;
	}
	model_register(&a, flags, 1);
	registered(f, id, &a, flags, 1);
}

void op_unregister(void)
{
	struct ufile *f = any_file();
	uint32_t id, r = below(100);
	int ptr, e, want;
	size_t avail;
	uint8_t *p;
	char what[80];

	if (!f)
		return;
	if (r < 70) {
		/* a registered one, if any */
		int i, n = 0;

		for (i = 0; i < NAGENT; i++)
			n += f->ag[i].on;
		id = below(NAGENT);
		if (n)
			for (n = below(n), i = 0; i < NAGENT; i++)
				if (f->ag[i].on && !n--)
					id = i;
	} else if (r < 90) {
		id = below(NAGENT);
	} else {
		id = rnd() >> below(32);
	}
	ptr = below(10) ? P_OK : pick_ptr();
	if (ptr == P_RDONLY || ptr == P_SHORT)
		ptr = P_NONE;
	p = arg_ptr(ptr, 4, &avail, &id);
	if (avail < 4)
		want = EFAULT;
	else if (id >= NAGENT || !f->ag[id].on)
		want = EINVAL;
	else
		want = 0;
	snprintf(what, sizeof(what), "UNREGISTER_AGENT id %u ptr %d", id, ptr);
	e = ioctl(f->fd, IB_USER_MAD_UNREGISTER_AGENT, p) ? errno : 0;
	check(K_UNREG, e, 1ull << want, what);
	if (e || id >= NAGENT)
		return;
	{
		struct agent old = f->ag[id];

		f->ag[id].on = 0;
		f->churned |= 1u << id;
		model_unregistered(&old);
	}
}

void op_enable_pkey(void)
{
	struct ufile *f = any_file();
	int e;

	if (!f)
		return;
	e = ioctl(f->fd, IB_USER_MAD_ENABLE_PKEY, below(4) ? 0ul : (unsigned long)rnd()) ?
	    errno : 0;
	check(K_PKEY, e, f->used ? E(EINVAL) : OK,
	      f->used ? "ENABLE_PKEY after a registration" : "ENABLE_PKEY");
	if (!e)
		f->pkey = 1;
}

/* commands the VFS takes before the driver: never sent */
static int vfs_cmd(unsigned int cmd)
{
	unsigned int type = _IOC_TYPE(cmd);

	return type == 0 || type == 'T' || type == 'X' || type == 'f' || type == 0x94 ||
	       type == 0x12 /* block devices' */;
}

void op_ioctl(void)
{
	struct ufile *f = any_file();
	unsigned int cmd;
	uint8_t junk[64];
	size_t avail;
	uint8_t *p;
	int e, i, ptr;
	char what[80];

	if (!f)
		return;
	do {
		switch (below(4)) {
		case 0:	/* ours, with another number */
			cmd = _IOC(below(4), IB_USER_MAD_IOCTL_MAGIC, below(3) ? 5 + below(12) :
				   below(256), below(64));
			break;
		case 1:	/* ours, with another size or direction */
			cmd = _IOC(below(4), IB_USER_MAD_IOCTL_MAGIC, 1 + below(4), below(64));
			break;
		case 2:
			cmd = _IOC(below(4), below(256), below(256), below(64));
			break;
		default:
			cmd = rnd();
		}
	} while (vfs_cmd(cmd) || cmd == IB_USER_MAD_REGISTER_AGENT ||
		 cmd == IB_USER_MAD_UNREGISTER_AGENT || cmd == IB_USER_MAD_ENABLE_PKEY ||
		 cmd == IB_USER_MAD_REGISTER_AGENT2);
	for (i = 0; i < (int)sizeof(junk); i++)
		junk[i] = rnd();
	ptr = pick_ptr();
	p = arg_ptr(ptr, sizeof(junk), &avail, junk);
	snprintf(what, sizeof(what), "ioctl 0x%08x ptr %d", cmd, ptr);
	e = ioctl(f->fd, cmd, p) ? errno : 0;
	check(K_IOCTL, e, E(ENOTTY), what);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * uvfuzz: the model of the files' objects, the files themselves, fork, the
 * device-wide commands, and the choice of the next operation.
 *
 * Every operation plans under the lock (which objects, what the model
 * predicts), marks what it uses, sends its command without the lock (the
 * threads race in the kernel), then checks and updates the model under
 * the lock.  A prediction is exact ("strict") only when nothing in flight
 * can change it; otherwise the command's whole 6.1 set is allowed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "uvfuzz.h"

extern const char *devpath;
static int inflight;
static uint32_t gens;
static bool quiescing;
static pthread_cond_t idle_cv = PTHREAD_COND_INITIALIZER;

void op_lock(void)
{
	pthread_mutex_lock(&lock);
	while (quiescing)
		pthread_cond_wait(&idle_cv, &lock);
}

void op_go(struct th *t, const char *what)
{
	inflight++;
	t->what = what;
	pthread_mutex_unlock(&lock);
}

void op_back(void)
{
	pthread_mutex_lock(&lock);
}

void op_done(void)
{
	--inflight;
	pthread_cond_broadcast(&idle_cv);
	pthread_mutex_unlock(&lock);
}

/* no operation in flight until unquiesce() */
void quiesce(void)
{
	op_lock();
	quiescing = true;
	while (inflight)
		pthread_cond_wait(&idle_cv, &lock);
}

void unquiesce(void)
{
	quiescing = false;
	pthread_cond_broadcast(&idle_cv);
	pthread_mutex_unlock(&lock);
}

int find_handle(struct ufile *f, uint32_t h)
{
	for (int i = 0; i < MAXOBJ; i++)
		if (f->o[i].used && f->o[i].h == h)
			return i;
	return -1;
}

int count_type(struct ufile *f, int type)
{
	int n = 0;

	for (int i = 0; i < MAXOBJ; i++)
		n += f->o[i].used && f->o[i].type == type;
	return n;
}

/* the pick's object is still in the model (not destroyed, not replaced) */
bool same_obj(struct ufile *f, const struct pk *p)
{
	return p->slot >= 0 && f->o[p->slot].used && f->o[p->slot].gen == p->gen;
}

/*
 * An operation uses the pick's object (excl: destroys it, REREG): marked
 * busy, and what it saw noted; unhold() tells whether anything else held
 * the object (or, for a handle of no object, made an object) meanwhile.
 */
void hold(struct ufile *f, struct pk *p, bool excl)
{
	if (p->slot < 0) {
		/* no create starts until it is back (begin_create) */
		p->stale = p->h < NEVER;
		f->stale_ops += p->stale;
		return;
	}
	/* a destroy frees the number in flight: no create meanwhile either */
	p->stale = excl || f->o[p->slot].dying;
	f->stale_ops += p->stale;
	f->o[p->slot].busy++;
	p->touch = ++f->o[p->slot].touch;
	if (excl)
		f->o[p->slot].dying = true;
}

void unhold(struct ufile *f, struct pk *p, bool excl)
{
	if (p->slot < 0) {
		if (p->stale && !--f->stale_ops)
			pthread_cond_broadcast(&idle_cv);
		p->stale = false;
		p->calm = true;
		return;
	}
	f->o[p->slot].busy--;
	if (excl)
		f->o[p->slot].dying = false;
	p->calm = f->o[p->slot].gen == p->gen && f->o[p->slot].touch == p->touch;
	if (p->stale)
		f->stale_ops--;
	p->stale = false;
	if (!f->o[p->slot].busy && f->o[p->slot].quarantined) {
		f->o[p->slot].quarantined = false;
		f->quarantine--;
	}
	if (!f->stale_ops && !f->quarantine)
		pthread_cond_broadcast(&idle_cv);
}

/* a create takes a handle number: no ENOENT is sure while it is in flight */
void begin_create(struct ufile *f)
{
	f->creating++;
	f->creates++;
	/*
	 * A command on a number no object has (ENOENT) must not meet the new
	 * object that takes it: creates wait for those, and pick() gives no
	 * such number while a create is in flight (6.1's handles are the
	 * lowest free numbers: xa_alloc in alloc_begin_idr_uobject)
	 */
	while (f->stale_ops || f->quarantine)
		pthread_cond_wait(&idle_cv, &lock);
}

/*
 * Destroys and creates never overlap, and no number is freed while an
 * operation may still reach it: so no operation in flight meets a new
 * object under an old number (6.1 gives the lowest free number).
 */
void begin_destroy(struct ufile *f)
{
	while (f->creating)
		pthread_cond_wait(&idle_cv, &lock);
}

/*
 * A new object of the file at handle h: the handle must not be another
 * live object's.  One being destroyed right now may already be gone in
 * the kernel (its handle free again): that one is dropped from the model.
 */
int new_obj(struct th *t, struct ufile *f, int type, uint32_t h)
{
	int s = find_handle(f, h);

	if (s >= 0) {
		if (!f->o[s].dying) {
			fail(t, "a new object of type %d got handle %u, which a live object of type %d has",
			     type, h, f->o[s].type);
			return -1;
		}
		model_release(f, s);
	}
	for (s = 0; s < MAXOBJ; s++)
		if (!f->o[s].used && !f->o[s].busy)
			break;
	if (s == MAXOBJ)
		return -1;	/* the caller keeps counts below MAXOBJ */
	memset(&f->o[s], 0, sizeof(f->o[s]));
	f->o[s].gen = ++gens;
	f->o[s].used = true;
	f->o[s].type = type;
	f->o[s].h = h;
	f->o[s].state = -1;
	for (int i = 0; i < 4; i++)
		f->o[s].dep[i] = -1;
	return s;
}

/* the object is gone: what it held is free of it, its handle stale */
void model_release(struct ufile *f, int slot)
{
	struct obj *o = &f->o[slot];

	if (!o->used)
		return;
	for (int i = 0; i < 4; i++)
		if (o->dep[i] >= 0)
			f->o[o->dep[i]].users--;
	o->used = false;
	/* others still on it: its number stays out of reach of creates */
	if (o->busy && !o->quarantined) {
		o->quarantined = true;
		f->quarantine++;
	}
	f->stale[f->nstale++ % NSTALE] = o->h;
}

struct ufile *pick_file(struct th *t)
{
	return &files[below(t, 4) == 0];
}

struct ufile *other_file(struct ufile *f)
{
	return f == &files[0] ? &files[1] : &files[0];
}

/*
 * A handle for a command that wants an object of the type: mostly a live
 * one, else (bad_pct percent) a stale one, another type's, the other
 * file's, or a number never given.
 */
struct pk pick(struct th *t, struct ufile *f, int type, bool excl, unsigned int bad_pct)
{
	struct pk p = { .slot = -1 };
	int cand[MAXOBJ], n = 0, s;
	struct ufile *g;

	for (int i = 0; i < MAXOBJ; i++)
		if (f->o[i].used && f->o[i].type == type)
			cand[n++] = i;
	if (n && below(t, 100) >= bad_pct) {
		p.h = f->o[cand[below(t, n)]].h;
	} else {
		switch (below(t, 6)) {
		case 0:
			p.h = f->nstale ? f->stale[below(t, f->nstale < NSTALE ? f->nstale : NSTALE)] :
					  below(t, 8);
			break;
		case 1:		/* another type's */
			n = 0;
			for (int i = 0; i < MAXOBJ; i++)
				if (f->o[i].used && f->o[i].type != type)
					cand[n++] = i;
			p.h = n ? f->o[cand[below(t, n)]].h : below(t, 8);
			break;
		case 2:		/* the other file's */
			g = other_file(f);
			n = 0;
			for (int i = 0; i < MAXOBJ; i++)
				if (g->o[i].used)
					cand[n++] = i;
			p.h = n ? g->o[cand[below(t, n)]].h : below(t, 8);
			break;
		case 3:
			p.h = chance(t, 2) ? 0xffffffffu : 0x7fffffffu - below(t, 4);
			break;
		case 4:
			p.h = NEVER + below(t, 1000000);
			break;
		default:
			p.h = below(t, 64);
			break;
		}
	}
	s = find_handle(f, p.h);
	/* a number a create in flight may take: one no create reaches instead */
	if (s < 0 && p.h < NEVER && f->creating)
		p.h = NEVER + below(t, 1000000);
	p.slot = s;
	p.gen = s >= 0 ? f->o[s].gen : 0;
	if (s < 0) {
		/* lookup_get_idr_uobject */
		p.cls = ENOENT;
		p.strict = true;
	} else {
		p.cls = f->o[s].type == type ? 0 : EINVAL;
		p.strict = !f->o[s].dying && (!excl || f->o[s].busy == 0);
	}
	return p;
}

/*
 * What the command must answer: a framing mutation's errno comes first
 * (6.1 checks the header and the request before anything); a response
 * that cannot be written turns success into EFAULT; without an exact
 * prediction, anything 6.1 can answer.
 */
struct eset want_for(const struct call *c, struct eset pred, bool strict)
{
	int me = mut_errno(c, c->mut);

	if (me >= 0)
		pred = eset_of(me, -1);
	else if (!strict)
		return allowed(c->cmd, c->ex);
	if (c->mut == M_BADRESP && eset_has(pred, 0)) {
		pred.w[0] &= ~1ull;
		eset_add(&pred, EFAULT);
	}
	/*
	 * A file without a context: 6.1 finds that out where the handler
	 * first needs the context (uobj_alloc, ib_uverbs_get_ucontext:
	 * EINVAL), after uverbs_request's checks (EOPNOTSUPP for a dirty
	 * tail) and without it for lookups (ENOENT: the file holds nothing).
	 * Ours refuses every command before GET_CONTEXT with EINVAL
	 * (uverbs/file.c).  Which of the two faults is reported first is not
	 * held against a stack: EINVAL is accepted there too.
	 */
	if (c->noctx && !eset_has(pred, EINVAL) && me != ENOSPC && me != EINVAL)
		eset_add(&pred, EINVAL);
	return pred;
}

/* a page-aligned buffer of len bytes in the arena (len at most half of it) */
uint64_t arena_buf(struct th *t, size_t len)
{
	size_t pages = (len + PAGE - 1) / PAGE;

	if (pages > ARENA / PAGE / 2)
		return (uintptr_t)arena;
	return (uintptr_t)arena + PAGE * below(t, ARENA / PAGE - pages);
}

/* --- files ---------------------------------------------------------------- */

static int get_context(int fd, struct ib_uverbs_get_context_resp *r, unsigned char *drv)
{
	struct {
		struct ib_uverbs_cmd_hdr h;
		struct ib_uverbs_get_context c;
	} w = { { IB_USER_VERBS_CMD_GET_CONTEXT, 4, 7 }, { 0 } };
	unsigned char out[28];

	memset(out, 0xff, sizeof(out));
	w.c.response = (uintptr_t)out;
	if (write(fd, &w, sizeof(w)) < 0)
		return errno;
	memcpy(r, out, sizeof(*r));
	if (drv)
		memcpy(drv, out + 8, 20);
	return 0;
}

void file_open(struct ufile *f, bool ctx)
{
	struct ib_uverbs_get_context_resp r;

	memset(f->o, 0, sizeof(f->o));
	for (int i = 0; i < MAXCH; i++)
		f->ch[i] = -1;
	f->ctx = false;
	f->async_fd = -1;
	f->gen++;	/* creating and stale_ops: a waiting create keeps its count */
	f->quarantine = 0;
	f->fd = open(devpath, O_RDWR | O_CLOEXEC);
	if (f->fd < 0 || !ctx)
		return;
	if (!get_context(f->fd, &r, NULL)) {
		f->ctx = true;
		f->async_fd = r.async_fd;
		if (r.num_comp_vectors)
			num_comp_vectors = r.num_comp_vectors;
	}
}

/* closing the file destroys all it holds (6.1: uverbs_destroy_ufile_hw) */
void file_close(struct ufile *f)
{
	for (int i = 0; i < MAXCH; i++)
		if (f->ch[i] >= 0) {
			close(f->ch[i]);
			f->ch[i] = -1;
		}
	if (f->async_fd >= 0)
		close(f->async_fd);
	f->async_fd = -1;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	for (int i = 0; i < MAXOBJ; i++)
		if (f->o[i].used) {
			f->o[i].used = false;
			f->stale[f->nstale++ % NSTALE] = f->o[i].h;
		}
	f->ctx = false;
}

void run_op(struct th *t)
{
	struct ufile *f = pick_file(t);
	unsigned int r = below(t, 1000);

	if (f->fd < 0)
		return;
	if (r < 60) op_pd(t, f);
	else if (r < 160) op_mr(t, f);
	else if (r < 190) op_mw(t, f);
	else if (r < 290) op_cq(t, f);
	else if (r < 390) op_qp(t, f);
	else if (r < 530) op_modify_qp(t, f);
	else if (r < 590) op_srq(t, f);
	else if (r < 630) op_ah(t, f);
	else if (r < 660) op_xrcd(t, f);
	else if (r < 690) op_mcast(t, f);
	else if (r < 880) op_destroy(t, f, 1 + below(t, T_NTYPES - 1));
	else if (r < 920) op_query(t, f);
	else if (r < 940) op_channel(t, f);
	else if (r < 970) op_notsupp(t, f);
	else if (r < 975) op_garbage(t, f);
	else if (r < 985) op_ioctl(t, f);
	else if (r < 990) op_context(t, f);
	else if (r < 996) reopen_op(t);
	else fork_op(t);
}

/* SPDX-License-Identifier: GPL-2.0 */
/* ib_sa's multicast groups and their members (sa_mcast.c). */
#ifndef IBSTACK_SA_MCAST_H
#define IBSTACK_SA_MCAST_H

#include <linux/refcount.h>
#include "sa_priv.h"

enum sa_mc_state {
	SA_MC_PENDING,		/* waiting for the SA */
	SA_MC_JOINED,
	SA_MC_FAILED,		/* status says why; until freed */
};

/*
 * One kernel user's membership.  list is on group->incoming (under
 * port->mc_lock) until the group's work moves it to group->members
 * (under group->lock); ib_sa_free_multicast() takes both to unlink it.
 * Its other fields below mc are under group->lock, except refs and
 * released.
 */
struct sa_mc_member {
	struct ib_sa_multicast	mc;		/* the user's view */
	struct sa_mc_group	*group;		/* holds a reference */
	struct ib_sa_client	*client;
	struct list_head	list;		/* in incoming or members */
	enum sa_mc_state	state;
	int			status;		/* SA_MC_FAILED */
	u8			join_state;
	bool			notify;		/* a callback is owed */
	bool			ended;		/* freed or callback said so */
	/* one for the membership, one per running callback */
	refcount_t		refs;
	struct completion	released;	/* refs reached zero */
};

/*
 * The port's membership of one MGID, shared by its members.  Holds a
 * reference on the sa_device.  References: being on port->groups, each
 * member, each queued work, each SA query in flight.
 */
struct sa_mc_group {
	struct kref		ref;
	struct sa_port		*port;
	/* under port->mc_lock */
	struct list_head	list;		/* in port->groups; empty: off it */
	union ib_gid		mgid;		/* the lookup key */
	bool			shareable;	/* an MGID is known */
	struct list_head	incoming;	/* members the work has not seen */
	struct ib_sa_mcmember_rec pub_rec;	/* for ib_sa_get_mcmember_rec */
	bool			pub_valid;	/* joined, with the SA's record */

	/* BIT(enum sa_mc_event): port events to act on (atomic bitops) */
	unsigned long		events;

	/* protects every field below (and the members' state) */
	struct mutex		lock;
	struct delayed_work	work;
	struct list_head	members;
	struct ib_sa_mcmember_rec rec;		/* the SA's record, if have_rec */
	bool			have_rec;
	bool			mgid_assigned;	/* the SA chose rec.mgid */
	u8			joined;		/* JoinState bits the SA holds */
	u8			sending;	/* bits of the request in flight */
	bool			busy;		/* an SA request in flight */
	bool			busy_leave;	/* ... and it is a DELETE */
	/* whose record the SET in flight carries (NULL once it is freed) */
	struct sa_mc_member	*last_join;
	/* the index of rec.pkey in the port's table when joined, or -1 */
	int			pkey_index;
};

#endif /* IBSTACK_SA_MCAST_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subnet administration client's kernel API (ib_sa.ko): path record
 * queries and multicast group membership, sent to the SA of the port's
 * subnet manager through the MAD layer (<rdma/ib_mad.h>).  Used by
 * IPoIB and ib_cm.
 *
 * Records are kept in host order here (LIDs, P_Keys, Q_Keys, flow labels
 * are plain integers; GIDs are union ib_gid, network order as always);
 * ib_sa packs them into the wire attributes (IBA 15.2.5.16 PathRecord,
 * 15.2.5.17 MCMemberRecord) itself.  Component masks are the wire's
 * big-endian 64-bit ComponentMask, built from the IB_SA_*_REC_* bits.
 *
 * Contexts: [sleep] process context; [any] never sleeps.  Every callback
 * runs in process context (a work item of ib_sa or of the MAD layer),
 * never from the call chain of the ib_sa call that started it, and never
 * with a lock of the caller held.
 *
 * Errors a callback or a call can see:
 *   -EAGAIN      the port is ACTIVE but ib_sa has no address of its SM yet
 *                (returned at once by the call; no callback)
 *   -ENETDOWN    the port is not ACTIVE (returned at once; no callback)
 *   -ENODEV      the device or port has no ib_sa (returned at once)
 *   -ETIMEDOUT   no answer from the SA after every retry
 *   -EINTR       the query was canceled (ib_sa_cancel_query, or the
 *                client or device went away)
 *   -ENODATA     the SA answered "no records" (status ERR_NO_RECORDS) or
 *                "invalid GID" (ERR_REQ_INVALID_GID)
 *   -EREMOTEIO   the SA answered with any other non-zero MAD status
 *   -EPROTO      the answer was malformed (wrong class, attribute, method)
 *   -EIO         the MAD could not be sent
 */
#ifndef IBSTACK_RDMA_IB_SA_H
#define IBSTACK_RDMA_IB_SA_H

#include <ibstack/no_kernel_ib.h>
#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>

/* SA attributes (host order; the wire field is __be16) */
#define IB_SA_ATTR_CLASS_PORTINFO	0x0001
#define IB_SA_ATTR_NOTICE		0x0002
#define IB_SA_ATTR_INFORM_INFO		0x0003
#define IB_SA_ATTR_NODE_REC		0x0011
#define IB_SA_ATTR_PORT_INFO_REC	0x0012
#define IB_SA_ATTR_PATH_REC		0x0035
#define IB_SA_ATTR_MC_MEMBER_REC	0x0038
#define IB_SA_ATTR_SERVICE_REC		0x0031

#define IB_SA_CLASS_VERSION		2

/* SA methods beyond the common ones of <rdma/ib_mad.h> */
#define IB_SA_METHOD_GET_TABLE		0x12
#define IB_SA_METHOD_GET_TABLE_RESP	0x92
#define IB_SA_METHOD_DELETE		0x15
#define IB_SA_METHOD_DELETE_RESP	0x95
#define IB_SA_METHOD_GET_MULTI		0x14
#define IB_SA_METHOD_GET_MULTI_RESP	0x94
#define IB_SA_METHOD_GET_TRACE_TBL	0x13

/* SA-specific MAD status codes: bits 8-14 of the MAD status (IBA 15.2.1.1) */
#define IB_SA_STATUS_NO_RESOURCES	1
#define IB_SA_STATUS_REQ_INVALID	2
#define IB_SA_STATUS_NO_RECORDS		3
#define IB_SA_STATUS_TOO_MANY_RECORDS	4
#define IB_SA_STATUS_REQ_INVALID_GID	5
#define IB_SA_STATUS_REQ_INSUFFICIENT	6
#define IB_SA_STATUS_REQ_DENIED		7

/* The SA MAD: common header, RMPP header, SA header, 200 bytes of data. */
struct ib_sa_mad {
	struct ib_mad_hdr	mad_hdr;
	struct ib_rmpp_hdr	rmpp_hdr;
	__be64			sm_key;
	__be16			attr_offset;	/* in 8-byte words */
	__be16			reserved;
	__be64			comp_mask;
	u8			data[IB_MGMT_SA_DATA];
} __packed;

/* Selectors of MTU, rate and packet lifetime (IBA 15.2.5.16) */
enum ib_sa_selector {
	IB_SA_GT = 0,
	IB_SA_LT = 1,
	IB_SA_EQ = 2,
	IB_SA_BEST = 3,	/* the largest MTU or rate, the smallest lifetime */
};

/* enum ib_rate, the rate codes of PathRecord:Rate, is in <rdma/ib_verbs.h>. */

/* The wire ComponentMask: bit n says field n of the record is meaningful. */
typedef __be64 ib_sa_comp_mask;

#define IB_SA_COMP_MASK(n)	((__force ib_sa_comp_mask)cpu_to_be64(1ULL << (n)))

/* PathRecord ComponentMask bits (bits 0-1: ServiceID, bit 7 reserved) */
#define IB_SA_PATH_REC_SERVICE_ID	(IB_SA_COMP_MASK(0) | IB_SA_COMP_MASK(1))
#define IB_SA_PATH_REC_DGID		IB_SA_COMP_MASK(2)
#define IB_SA_PATH_REC_SGID		IB_SA_COMP_MASK(3)
#define IB_SA_PATH_REC_DLID		IB_SA_COMP_MASK(4)
#define IB_SA_PATH_REC_SLID		IB_SA_COMP_MASK(5)
#define IB_SA_PATH_REC_RAW_TRAFFIC	IB_SA_COMP_MASK(6)
#define IB_SA_PATH_REC_FLOW_LABEL	IB_SA_COMP_MASK(8)
#define IB_SA_PATH_REC_HOP_LIMIT	IB_SA_COMP_MASK(9)
#define IB_SA_PATH_REC_TRAFFIC_CLASS	IB_SA_COMP_MASK(10)
#define IB_SA_PATH_REC_REVERSIBLE	IB_SA_COMP_MASK(11)
#define IB_SA_PATH_REC_NUMB_PATH	IB_SA_COMP_MASK(12)
#define IB_SA_PATH_REC_PKEY		IB_SA_COMP_MASK(13)
#define IB_SA_PATH_REC_QOS_CLASS	IB_SA_COMP_MASK(14)
#define IB_SA_PATH_REC_SL		IB_SA_COMP_MASK(15)
#define IB_SA_PATH_REC_MTU_SELECTOR	IB_SA_COMP_MASK(16)
#define IB_SA_PATH_REC_MTU		IB_SA_COMP_MASK(17)
#define IB_SA_PATH_REC_RATE_SELECTOR	IB_SA_COMP_MASK(18)
#define IB_SA_PATH_REC_RATE		IB_SA_COMP_MASK(19)
#define IB_SA_PATH_REC_PACKET_LIFE_TIME_SELECTOR IB_SA_COMP_MASK(20)
#define IB_SA_PATH_REC_PACKET_LIFE_TIME	IB_SA_COMP_MASK(21)
#define IB_SA_PATH_REC_PREFERENCE	IB_SA_COMP_MASK(22)

#define IB_SA_PATH_REC_SIZE		64	/* bytes on the wire */

/* A PathRecord, host order. */
struct ib_sa_path_rec {
	u64		service_id;
	union ib_gid	dgid;
	union ib_gid	sgid;
	u16		dlid;
	u16		slid;
	u8		raw_traffic;		/* 1 bit */
	u32		flow_label;		/* 20 bits */
	u8		hop_limit;
	u8		traffic_class;
	u8		reversible;		/* 1 bit */
	u8		numb_path;		/* 7 bits */
	u16		pkey;
	u16		qos_class;		/* 12 bits */
	u8		sl;			/* 4 bits */
	u8		mtu_selector;		/* enum ib_sa_selector */
	u8		mtu;			/* enum ib_mtu */
	u8		rate_selector;
	u8		rate;			/* enum ib_rate */
	u8		packet_life_time_selector;
	u8		packet_life_time;	/* 4.096 us * 2^n */
	u8		preference;
};

/* MCMemberRecord ComponentMask bits */
#define IB_SA_MCMEMBER_REC_MGID			IB_SA_COMP_MASK(0)
#define IB_SA_MCMEMBER_REC_PORT_GID		IB_SA_COMP_MASK(1)
#define IB_SA_MCMEMBER_REC_QKEY			IB_SA_COMP_MASK(2)
#define IB_SA_MCMEMBER_REC_MLID			IB_SA_COMP_MASK(3)
#define IB_SA_MCMEMBER_REC_MTU_SELECTOR		IB_SA_COMP_MASK(4)
#define IB_SA_MCMEMBER_REC_MTU			IB_SA_COMP_MASK(5)
#define IB_SA_MCMEMBER_REC_TRAFFIC_CLASS	IB_SA_COMP_MASK(6)
#define IB_SA_MCMEMBER_REC_PKEY			IB_SA_COMP_MASK(7)
#define IB_SA_MCMEMBER_REC_RATE_SELECTOR	IB_SA_COMP_MASK(8)
#define IB_SA_MCMEMBER_REC_RATE			IB_SA_COMP_MASK(9)
#define IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME_SELECTOR IB_SA_COMP_MASK(10)
#define IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME	IB_SA_COMP_MASK(11)
#define IB_SA_MCMEMBER_REC_SL			IB_SA_COMP_MASK(12)
#define IB_SA_MCMEMBER_REC_FLOW_LABEL		IB_SA_COMP_MASK(13)
#define IB_SA_MCMEMBER_REC_HOP_LIMIT		IB_SA_COMP_MASK(14)
#define IB_SA_MCMEMBER_REC_SCOPE		IB_SA_COMP_MASK(15)
#define IB_SA_MCMEMBER_REC_JOIN_STATE		IB_SA_COMP_MASK(16)
#define IB_SA_MCMEMBER_REC_PROXY_JOIN		IB_SA_COMP_MASK(17)

#define IB_SA_MCMEMBER_REC_SIZE		52	/* bytes on the wire */

/* MCMemberRecord:JoinState bits */
enum ib_sa_mc_join_states {
	IB_SA_JOIN_FULL_MEMBER = BIT(0),
	IB_SA_JOIN_NON_MEMBER = BIT(1),
	IB_SA_JOIN_SENDONLY_NON_MEMBER = BIT(2),
	IB_SA_JOIN_SENDONLY_FULL_MEMBER = BIT(3),
};

#define IB_SA_JOIN_STATES_MASK		0xf

/* An MCMemberRecord, host order. */
struct ib_sa_mcmember_rec {
	union ib_gid	mgid;
	union ib_gid	port_gid;
	u32		qkey;
	u16		mlid;
	u8		mtu_selector;
	u8		mtu;
	u8		traffic_class;
	u16		pkey;
	u8		rate_selector;
	u8		rate;
	u8		packet_life_time_selector;
	u8		packet_life_time;
	u8		sl;			/* 4 bits */
	u32		flow_label;		/* 20 bits */
	u8		hop_limit;
	u8		scope;			/* 4 bits */
	u8		join_state;		/* enum ib_sa_mc_join_states */
	u8		proxy_join;		/* 1 bit */
};

/* [any] records to and from their wire attributes (buf: the SA MAD data) */
void ib_sa_pack_path(const struct ib_sa_path_rec *rec, void *buf);
void ib_sa_unpack_path(const void *buf, struct ib_sa_path_rec *rec);
void ib_sa_pack_mcmember(const struct ib_sa_mcmember_rec *rec, void *buf);
void ib_sa_unpack_mcmember(const void *buf, struct ib_sa_mcmember_rec *rec);

/*
 * A kernel user of ib_sa.  Every query and multicast membership names its
 * client; ib_sa_unregister_client() waits until every query of the client
 * has called its callback and returned (it does not cancel them: cancel
 * your queries first, or let them time out) and until every multicast
 * membership of the client has been freed.
 */
struct ib_sa_client {
	atomic_t		users;
	struct completion	comp;
};

/* [sleep] */
void ib_sa_register_client(struct ib_sa_client *client);
void ib_sa_unregister_client(struct ib_sa_client *client);

struct ib_sa_query;

/*
 * [any] Cancels the query (id and query as returned by the call that
 * started it).  Its callback is then called with -EINTR, unless the
 * answer or the timeout got there first (a callback is called exactly
 * once either way).  A query already finished is ignored.
 */
void ib_sa_cancel_query(int id, struct ib_sa_query *query);

/*
 * [any, gfp permitting] Asks the SA for a path (SubnAdmGet(PathRecord): one
 * record) matching rec's fields selected by comp_mask.  Returns the
 * query's id (>= 0) and sets *query, or a negative errno (then no callback
 * follows).  callback(status, resp, num_paths, context) is called once:
 * status 0 with the record (resp valid during the call only, num_paths 1),
 * or a negative errno (see the top of this file) with resp NULL and
 * num_paths 0.  The MAD is retried up to 3 times, each try waiting
 * timeout_ms.  The callback runs on the MAD layer's work queue of the
 * port: it must not wait for another SA query (no
 * ib_sa_path_rec_get_sync() there); starting one is fine.
 */
int ib_sa_path_rec_get(struct ib_sa_client *client, struct ib_device *device,
		       u32 port_num, const struct ib_sa_path_rec *rec,
		       ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
		       gfp_t gfp_mask,
		       void (*callback)(int status, struct ib_sa_path_rec *resp,
					unsigned int num_paths, void *context),
		       void *context, struct ib_sa_query **query);

/*
 * [sleep] The same, waiting for the answer: 0 with *resp filled, or a
 * negative errno.  A signal during the wait cancels the query; the call
 * still returns only once the query has finished, with its result (-EINTR
 * unless the answer got there first).
 */
int ib_sa_path_rec_get_sync(struct ib_sa_client *client,
			    struct ib_device *device, u32 port_num,
			    const struct ib_sa_path_rec *rec,
			    ib_sa_comp_mask comp_mask,
			    unsigned long timeout_ms,
			    struct ib_sa_path_rec *resp);

/*
 * Multicast membership.
 *
 * Kernel users joining the same (device, port, MGID) share one group:
 * ib_sa sends one SubnAdmSet(MCMemberRecord) per JoinState bit the group
 * does not hold yet, gives later members the cached record without asking
 * the SA, and sends SubnAdmDelete(MCMemberRecord) for a JoinState bit only
 * when the last member needing it leaves.  A join with a zero MGID (with
 * the components the SA needs to create a group: Q_Key, P_Key, SL,
 * FlowLabel, TClass, JoinState...) asks the SA to create a group with an
 * MGID of its choice; such a group is never shared with another zero-MGID
 * join.
 *
 * callback(status, multicast) runs in process context (ib_sa's work
 * queue), one call at a time per membership:
 *  - status 0: the membership is established; multicast->rec is the
 *    group's MCMemberRecord as the SA returned it (MLID, MGID, Q_Key...).
 *  - status 0 again later: the group was rejoined after an SM change, a
 *    LID change, a CLIENT_REREGISTER or the port coming back ACTIVE;
 *    multicast->rec holds the new record (the MLID may differ: re-attach
 *    QPs) and multicast->rejoins counts these calls.  ib_sa rejoins by
 *    itself; the member need not (and must not) join again.
 *  - status < 0: the join (or a rejoin) failed; the membership stays
 *    inactive until it is freed.
 * The callback may return non-zero to end the membership: ib_sa then frees
 * it as ib_sa_free_multicast() would (do not call that afterwards).  The
 * callback must never call ib_sa_free_multicast() on its own membership
 * (that waits for the callback: a deadlock); it may join or free other
 * memberships.
 */
struct ib_sa_multicast {
	struct ib_sa_mcmember_rec	rec;
	ib_sa_comp_mask			comp_mask;
	int				(*callback)(int status,
						    struct ib_sa_multicast *multicast);
	void				*context;
	unsigned int			rejoins;
};

/*
 * [sleep] Joins the group rec->mgid with rec->join_state (a single
 * JoinState bit is usual).  rec->port_gid must be a GID of the port.
 * Returns the membership (the callback follows, even if the group is
 * already joined) or an ERR_PTR: -EINVAL for a bad port or join_state,
 * -ENETDOWN / -EAGAIN as above, -ENOMEM.
 */
struct ib_sa_multicast *
ib_sa_join_multicast(struct ib_sa_client *client, struct ib_device *device,
		     u32 port_num, const struct ib_sa_mcmember_rec *rec,
		     ib_sa_comp_mask comp_mask, gfp_t gfp_mask,
		     int (*callback)(int status, struct ib_sa_multicast *multicast),
		     void *context);

/*
 * [sleep] Ends a membership: returns once its callback is not running and
 * will not run again.  The SA leave (if it was the last member needing its
 * JoinState) is sent afterwards, asynchronously.
 */
void ib_sa_free_multicast(struct ib_sa_multicast *multicast);

/*
 * [sleep] The record of a group this port has joined (at least one member's
 * join completed): 0, or -EADDRNOTAVAIL if no such joined group.
 */
int ib_sa_get_mcmember_rec(struct ib_device *device, u32 port_num,
			   const union ib_gid *mgid,
			   struct ib_sa_mcmember_rec *rec);

/*
 * [any] An address vector to send to the group (MLID, GRH to the MGID
 * with the group's flow label, hop limit, TClass, SL and rate) from the
 * port's GID equal to rec->port_gid.  -EINVAL if the port has no such
 * GID.
 */
int ib_init_ah_from_mcmember(struct ib_device *device, u32 port_num,
			     const struct ib_sa_mcmember_rec *rec,
			     struct rdma_ah_attr *ah_attr);

/*
 * [any] An address vector for the path (DLID, SL, rate, SLID's path bits
 * under the port's LMC; a GRH when the hop limit exceeds 1, i.e. the path
 * leaves the subnet).  -EINVAL if rec->sgid is not a GID of the port.
 */
int ib_init_ah_from_path(struct ib_device *device, u32 port_num,
			 const struct ib_sa_path_rec *rec,
			 struct rdma_ah_attr *ah_attr);

#endif /* IBSTACK_RDMA_IB_SA_H */

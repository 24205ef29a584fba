/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subnet administration client's kernel API (ib_sa.ko): path record
 * queries and multicast group membership, sent to the SA of the port's
 * subnet manager through the MAD layer (<rdma/ib_mad.h>, which also holds
 * the SA MAD, ib_sa_comp_mask and IB_SA_COMP_MASK()).  Used by IPoIB and
 * ib_cm.
 *
 * Records hold their multi-byte fields in network order, as on the wire
 * (LIDs, P_Keys, Q_Keys, flow labels, service ids; GIDs are union ib_gid);
 * the bit fields of the wire attributes (IBA 15.2.5.16 PathRecord,
 * 15.2.5.17 MCMemberRecord) are one u8 each.  ib_sa packs them itself.
 * Component masks are the wire's big-endian 64-bit ComponentMask, built
 * from the IB_SA_*_REC_* bits.  ib_sa serves InfiniBand ports: a path
 * record's rec_type must be SA_PATH_REC_TYPE_IB.
 *
 * Contexts: [sleep] process context; [any] never sleeps (a spinlock may be
 * held, interrupts may be off).  Every callback runs in process context (a
 * work item of ib_sa or of the MAD layer), never from the call chain of
 * the ib_sa call that started it, and never with a lock of the caller
 * held.
 *
 * Errors a callback or a call can see:
 *   -EAGAIN      ib_sa has no address of the port's SM: the port is not
 *                ACTIVE or its SM is not known yet (returned at once by
 *                the call; no callback)
 *   -ENODEV      the device or port has no ib_sa (returned at once)
 *   -EINVAL      the SA answered with a non-zero MAD status (no records,
 *                a request it refuses...); or the call's arguments are bad
 *                (returned at once)
 *   -ETIMEDOUT   no answer from the SA after every retry
 *   -EINTR       the query was canceled (ib_sa_cancel_query, or the
 *                client or device went away)
 *   -EIO         any other failure to send the request or to get its
 *                answer (a malformed answer included)
 *   -ENETRESET   a multicast membership was lost (see below)
 */
#ifndef IBSTACK_RDMA_IB_SA_H
#define IBSTACK_RDMA_IB_SA_H

#include <ibstack/no_kernel_ib.h>
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>
#include <rdma/opa_addr.h>

/* the SA class's version (MADs of class IB_MGMT_CLASS_SUBN_ADM) */
#define IB_SA_CLASS_VERSION		2

/* SA methods beyond the common ones of <rdma/ib_mad.h> */
enum {
	IB_SA_METHOD_GET_TABLE		= 0x12,
	IB_SA_METHOD_GET_TABLE_RESP	= 0x92,
	IB_SA_METHOD_DELETE		= 0x15,
	IB_SA_METHOD_DELETE_RESP	= 0x95,
	IB_SA_METHOD_GET_MULTI		= 0x14,
	IB_SA_METHOD_GET_MULTI_RESP	= 0x94,
	IB_SA_METHOD_GET_TRACE_TBL	= 0x13,
};

#define OPA_SA_CLASS_VERSION	0x80

/* SA attributes (host order; the wire field is __be16) */
enum {
	IB_SA_ATTR_CLASS_PORTINFO	= 0x01,
	IB_SA_ATTR_NOTICE		= 0x02,
	IB_SA_ATTR_INFORM_INFO		= 0x03,
	IB_SA_ATTR_NODE_REC		= 0x11,
	IB_SA_ATTR_PORT_INFO_REC	= 0x12,
	IB_SA_ATTR_SL2VL_REC		= 0x13,
	IB_SA_ATTR_SWITCH_REC		= 0x14,
	IB_SA_ATTR_LINEAR_FDB_REC	= 0x15,
	IB_SA_ATTR_RANDOM_FDB_REC	= 0x16,
	IB_SA_ATTR_MCAST_FDB_REC	= 0x17,
	IB_SA_ATTR_SM_INFO_REC		= 0x18,
	IB_SA_ATTR_LINK_REC		= 0x20,
	IB_SA_ATTR_GUID_INFO_REC	= 0x30,
	IB_SA_ATTR_SERVICE_REC		= 0x31,
	IB_SA_ATTR_PARTITION_REC	= 0x33,
	IB_SA_ATTR_PATH_REC		= 0x35,
	IB_SA_ATTR_VL_ARB_REC		= 0x36,
	IB_SA_ATTR_MC_MEMBER_REC	= 0x38,
	IB_SA_ATTR_TRACE_REC		= 0x39,
	IB_SA_ATTR_MULTI_PATH_REC	= 0x3a,
	IB_SA_ATTR_SERVICE_ASSOC_REC	= 0x3b,
	IB_SA_ATTR_INFORM_INFO_REC	= 0xf3,
};

/* Selectors of MTU, rate and packet lifetime (IBA 15.2.5.16) */
enum ib_sa_selector {
	IB_SA_GT = 0,
	IB_SA_LT = 1,
	IB_SA_EQ = 2,
	IB_SA_BEST = 3,	/* the largest MTU or rate, the smallest lifetime */
};

/*
 * The bit indexes of MCMemberRecord:JoinState: join_state is a mask of
 * BIT(index) (BIT(FULLMEMBER_JOIN) = 1 for a full member).  The third
 * name keeps upstream's spelling.
 */
enum ib_sa_mc_join_states {
	FULLMEMBER_JOIN,
	NONMEMBER_JOIN,
	SENDONLY_NONMEBER_JOIN,
	SENDONLY_FULLMEMBER_JOIN,
	NUM_JOIN_MEMBERSHIP_TYPES,
};

/* ClassPortInfo:CapabilityMask2: the SA takes send-only full members */
#define IB_SA_CAP_MASK2_SENDONLY_FULL_MEM_SUPPORT	BIT(12)

/* enum ib_rate, the rate codes of PathRecord:Rate, is in <rdma/ib_verbs.h>. */

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

/* Which member of sa_path_rec's union is valid */
enum sa_path_rec_type {
	SA_PATH_REC_TYPE_IB,
	SA_PATH_REC_TYPE_ROCE_V1,
	SA_PATH_REC_TYPE_ROCE_V2,
	SA_PATH_REC_TYPE_OPA
};

struct sa_path_rec_ib {
	__be16		dlid;
	__be16		slid;
	u8		raw_traffic;		/* 1 bit */
};

/* RoCE: route_resolved says dmac already holds the DGID's MAC */
struct sa_path_rec_roce {
	bool		route_resolved;
	u8		dmac[ETH_ALEN];
};

/* OPA: 32-bit LIDs and the OPA-only fields */
struct sa_path_rec_opa {
	__be32		dlid;
	__be32		slid;
	u8		raw_traffic;
	u8		l2_8B;
	u8		l2_10B;
	u8		l2_9B;
	u8		l2_16B;
	u8		qos_type;
	u8		qos_priority;
};

/* A PathRecord; the LIDs are in the union member rec_type names. */
struct sa_path_rec {
	union ib_gid	dgid;
	union ib_gid	sgid;
	__be64		service_id;
	__be32		flow_label;		/* 20 bits */
	u8		hop_limit;
	u8		traffic_class;
	u8		reversible;		/* 1 bit */
	u8		numb_path;		/* 7 bits */
	__be16		pkey;
	__be16		qos_class;		/* 12 bits */
	u8		sl;			/* 4 bits */
	u8		mtu_selector;		/* enum ib_sa_selector */
	u8		mtu;			/* enum ib_mtu */
	u8		rate_selector;
	u8		rate;			/* enum ib_rate */
	u8		packet_life_time_selector;
	u8		packet_life_time;	/* 4.096 us * 2^n */
	u8		preference;
	union {
		struct sa_path_rec_ib	ib;
		struct sa_path_rec_roce	roce;
		struct sa_path_rec_opa	opa;
	};
	enum sa_path_rec_type rec_type;
	u32		flags;
};

/* The GID type of a path's record type, and back. */
static inline enum ib_gid_type sa_conv_pathrec_to_gid_type(struct sa_path_rec *rec)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_ROCE_V1)
		return IB_GID_TYPE_ROCE;
	if (rec->rec_type == SA_PATH_REC_TYPE_ROCE_V2)
		return IB_GID_TYPE_ROCE_UDP_ENCAP;
	return IB_GID_TYPE_IB;
}

static inline enum sa_path_rec_type sa_conv_gid_to_pathrec_type(enum ib_gid_type type)
{
	if (type == IB_GID_TYPE_ROCE)
		return SA_PATH_REC_TYPE_ROCE_V1;
	if (type == IB_GID_TYPE_ROCE_UDP_ENCAP)
		return SA_PATH_REC_TYPE_ROCE_V2;
	return SA_PATH_REC_TYPE_IB;
}

/*
 * The IB-specific fields of ib from the OPA ones of opa: 16-bit LIDs, or,
 * when either OPA LID does not fit one, zero LIDs with both LIDs carried
 * in the interface ids of OPA GIDs (the DGID's prefix taken from opa's).
 */
static inline void path_conv_opa_to_ib(struct sa_path_rec *ib,
				       struct sa_path_rec *opa)
{
	u32 dlid = be32_to_cpu(opa->opa.dlid);
	u32 slid = be32_to_cpu(opa->opa.slid);

	if (opa_is_extended_lid(opa->opa.dlid, opa->opa.slid)) {
		ib->dgid.global.interface_id = OPA_MAKE_ID(dlid);
		ib->dgid.global.subnet_prefix = opa->dgid.global.subnet_prefix;
		ib->sgid.global.interface_id = OPA_MAKE_ID(slid);
		ib->ib.dlid = 0;
		ib->ib.slid = 0;
	} else {
		ib->ib.dlid = cpu_to_be16(dlid);
		ib->ib.slid = cpu_to_be16(slid);
	}
	ib->service_id = opa->service_id;
	ib->ib.raw_traffic = opa->opa.raw_traffic;
}

/* The OPA-specific fields of opa from ib (LIDs from OPA GIDs if it has them). */
static inline void path_conv_ib_to_opa(struct sa_path_rec *opa,
				       struct sa_path_rec *ib)
{
	u32 slid, dlid;

	if (ib_is_opa_gid(&ib->sgid) || ib_is_opa_gid(&ib->dgid)) {
		slid = opa_get_lid_from_gid(&ib->sgid);
		dlid = opa_get_lid_from_gid(&ib->dgid);
	} else {
		slid = be16_to_cpu(ib->ib.slid);
		dlid = be16_to_cpu(ib->ib.dlid);
	}
	opa->opa.slid = cpu_to_be32(slid);
	opa->opa.dlid = cpu_to_be32(dlid);
	opa->service_id = ib->service_id;
	opa->opa.raw_traffic = ib->ib.raw_traffic;
}

/* dest = src as an IB record (nothing happens unless src is OPA) */
static inline void sa_convert_path_opa_to_ib(struct sa_path_rec *dest,
					     struct sa_path_rec *src)
{
	if (src->rec_type != SA_PATH_REC_TYPE_OPA)
		return;
	*dest = *src;
	dest->rec_type = SA_PATH_REC_TYPE_IB;
	path_conv_opa_to_ib(dest, src);
}

/* dest = src as an OPA record (nothing happens unless src is IB) */
static inline void sa_convert_path_ib_to_opa(struct sa_path_rec *dest,
					     struct sa_path_rec *src)
{
	if (src->rec_type != SA_PATH_REC_TYPE_IB)
		return;
	*dest = *src;
	dest->rec_type = SA_PATH_REC_TYPE_OPA;
	path_conv_ib_to_opa(dest, src);
}

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

/* An MCMemberRecord. */
struct ib_sa_mcmember_rec {
	union ib_gid	mgid;
	union ib_gid	port_gid;
	__be32		qkey;
	__be16		mlid;
	u8		mtu_selector;
	u8		mtu;
	u8		traffic_class;
	__be16		pkey;
	u8		rate_selector;
	u8		rate;
	u8		packet_life_time_selector;
	u8		packet_life_time;
	u8		sl;			/* 4 bits */
	__be32		flow_label;		/* 20 bits */
	u8		hop_limit;
	u8		scope;			/* 4 bits */
	u8		join_state;		/* BIT(enum ib_sa_mc_join_states) */
	u8		proxy_join;		/* 1 bit */
};

/* ServiceRecord ComponentMask bits (IBA 15.2.5.14; bit 3 reserved) */
#define IB_SA_SERVICE_REC_SERVICE_ID		IB_SA_COMP_MASK(0)
#define IB_SA_SERVICE_REC_SERVICE_GID		IB_SA_COMP_MASK(1)
#define IB_SA_SERVICE_REC_SERVICE_PKEY		IB_SA_COMP_MASK(2)
#define IB_SA_SERVICE_REC_SERVICE_LEASE		IB_SA_COMP_MASK(4)
#define IB_SA_SERVICE_REC_SERVICE_KEY		IB_SA_COMP_MASK(5)
#define IB_SA_SERVICE_REC_SERVICE_NAME		IB_SA_COMP_MASK(6)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_0	IB_SA_COMP_MASK(7)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_1	IB_SA_COMP_MASK(8)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_2	IB_SA_COMP_MASK(9)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_3	IB_SA_COMP_MASK(10)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_4	IB_SA_COMP_MASK(11)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_5	IB_SA_COMP_MASK(12)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_6	IB_SA_COMP_MASK(13)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_7	IB_SA_COMP_MASK(14)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_8	IB_SA_COMP_MASK(15)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_9	IB_SA_COMP_MASK(16)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_10	IB_SA_COMP_MASK(17)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_11	IB_SA_COMP_MASK(18)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_12	IB_SA_COMP_MASK(19)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_13	IB_SA_COMP_MASK(20)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_14	IB_SA_COMP_MASK(21)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_15	IB_SA_COMP_MASK(22)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_0	IB_SA_COMP_MASK(23)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_1	IB_SA_COMP_MASK(24)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_2	IB_SA_COMP_MASK(25)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_3	IB_SA_COMP_MASK(26)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_4	IB_SA_COMP_MASK(27)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_5	IB_SA_COMP_MASK(28)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_6	IB_SA_COMP_MASK(29)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_7	IB_SA_COMP_MASK(30)
#define IB_SA_SERVICE_REC_SERVICE_DATA32_0	IB_SA_COMP_MASK(31)
#define IB_SA_SERVICE_REC_SERVICE_DATA32_1	IB_SA_COMP_MASK(32)
#define IB_SA_SERVICE_REC_SERVICE_DATA32_2	IB_SA_COMP_MASK(33)
#define IB_SA_SERVICE_REC_SERVICE_DATA32_3	IB_SA_COMP_MASK(34)
#define IB_SA_SERVICE_REC_SERVICE_DATA64_0	IB_SA_COMP_MASK(35)
#define IB_SA_SERVICE_REC_SERVICE_DATA64_1	IB_SA_COMP_MASK(36)

/* ServiceRecord:ServiceLease of a service that never expires */
#define IB_DEFAULT_SERVICE_LEASE	0xFFFFFFFF

/* GUIDInfoRecord ComponentMask bits */
#define IB_SA_GUIDINFO_REC_LID		IB_SA_COMP_MASK(0)
#define IB_SA_GUIDINFO_REC_BLOCK_NUM	IB_SA_COMP_MASK(1)
#define IB_SA_GUIDINFO_REC_RES1		IB_SA_COMP_MASK(2)
#define IB_SA_GUIDINFO_REC_RES2		IB_SA_COMP_MASK(3)
#define IB_SA_GUIDINFO_REC_GID0		IB_SA_COMP_MASK(4)
#define IB_SA_GUIDINFO_REC_GID1		IB_SA_COMP_MASK(5)
#define IB_SA_GUIDINFO_REC_GID2		IB_SA_COMP_MASK(6)
#define IB_SA_GUIDINFO_REC_GID3		IB_SA_COMP_MASK(7)
#define IB_SA_GUIDINFO_REC_GID4		IB_SA_COMP_MASK(8)
#define IB_SA_GUIDINFO_REC_GID5		IB_SA_COMP_MASK(9)
#define IB_SA_GUIDINFO_REC_GID6		IB_SA_COMP_MASK(10)
#define IB_SA_GUIDINFO_REC_GID7		IB_SA_COMP_MASK(11)

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
 * record) matching rec's fields selected by comp_mask; rec->rec_type must
 * be SA_PATH_REC_TYPE_IB (-EINVAL otherwise).  Returns the query's id
 * (>= 0) and sets *query, or a negative errno (then no callback follows).
 * callback(status, resp, num_prs, context) is called once: status 0 with
 * the record (an IB record; resp valid during the call only, num_prs 1),
 * or a negative errno (see the top of this file) with resp NULL and
 * num_prs 0.  The MAD is retried up to 3 times, each try waiting
 * timeout_ms.  The callback runs on the MAD layer's work queue of the
 * port: it must not wait for another SA query's callback; starting a
 * query is fine.
 */
int ib_sa_path_rec_get(struct ib_sa_client *client, struct ib_device *device,
		       u32 port_num, struct sa_path_rec *rec,
		       ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
		       gfp_t gfp_mask,
		       void (*callback)(int status, struct sa_path_rec *resp,
					int num_prs, void *context),
		       void *context, struct ib_sa_query **query);

/*
 * Multicast membership.
 *
 * Kernel users joining the same (device, port, MGID) share one group:
 * ib_sa sends one SubnAdmSet(MCMemberRecord) per JoinState bit the group
 * does not hold yet, gives later members the group's record without asking
 * the SA (after checking that it matches the components they gave:
 * -EINVAL otherwise), and sends SubnAdmDelete(MCMemberRecord) for a
 * JoinState bit only when the last member needing it leaves.  A join with a
 * zero MGID (with the components the SA needs to create a group: Q_Key,
 * P_Key, SL, FlowLabel, TClass, JoinState...) asks the SA to create a
 * group with an MGID of its choice; such a group is never shared with
 * another zero-MGID join.  The SET a group sends carries the record and
 * components of its first member waiting for the bits it asks.
 *
 * callback(status, multicast) runs in process context (ib_sa's work
 * queue), one call at a time per membership:
 *  - status 0: the membership is established; multicast->rec is the
 *    group's MCMemberRecord as the SA returned it (MLID, MGID, Q_Key...)
 *    with the member's own join_state.
 *  - status -ENETRESET: the membership was lost (the port went down, its
 *    LID changed, the SM asked its clients to register again, or the
 *    group's P_Key left the port's P_Key table or moved in it).  ib_sa does
 *    not join again by itself: the member must be freed, and joined again
 *    when the port is usable.
 *  - another status < 0: the join failed; the membership stays inactive
 *    until it is freed.
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
};

/*
 * [any, gfp permitting] Joins the group rec->mgid with rec->join_state,
 * any non-zero mask of the four JoinState bits (IPoIB: 1 for a full
 * member, 8 for a send-only full member).  rec->port_gid must be a GID
 * of the port.  Returns the membership (the callback follows, even if the group
 * is already joined) or an ERR_PTR: -EINVAL for a bad port or join_state,
 * -EAGAIN or -ENODEV as above, -ENOMEM.
 */
struct ib_sa_multicast *
ib_sa_join_multicast(struct ib_sa_client *client, struct ib_device *device,
		     u32 port_num, struct ib_sa_mcmember_rec *rec,
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
 * [any] The record of a group this port has joined (at least one member's
 * join completed, and the membership was not lost since): 0, or
 * -EADDRNOTAVAIL if no such joined group.
 */
int ib_sa_get_mcmember_rec(struct ib_device *device, u32 port_num,
			   union ib_gid *mgid, struct ib_sa_mcmember_rec *rec);

/*
 * [any] An address vector to send to the group (MLID, GRH to the MGID
 * with the group's flow label, hop limit, TClass, SL and rate) from the
 * port's GID equal to rec->port_gid, whose attribute ah_attr holds
 * (release with rdma_destroy_ah_attr()).  ndev is for RoCE ports (ignored
 * on an IB port, as upstream).  -EINVAL if the port is not an IB port,
 * -ENOENT if it has no such GID of gid_type.
 */
int ib_init_ah_from_mcmember(struct ib_device *device, u32 port_num,
			     struct ib_sa_mcmember_rec *rec,
			     struct net_device *ndev,
			     enum ib_gid_type gid_type,
			     struct rdma_ah_attr *ah_attr);

/*
 * [any] An address vector for an IB path: DLID, SL, rate, the SLID's path
 * bits under the port's LMC, and a GRH (to rec->dgid, with the path's flow
 * label, hop limit and TClass) iff rec->hop_limit > 0.  The GRH's source
 * GID is sgid_attr's (-EINVAL if not an entry of this port), or, when
 * sgid_attr is NULL, the port's GID equal to rec->sgid (-ENOENT if the
 * port has none); ah_attr holds a reference to it.  Release with
 * rdma_destroy_ah_attr().
 */
int ib_init_ah_attr_from_path(struct ib_device *device, u32 port_num,
			      struct sa_path_rec *rec,
			      struct rdma_ah_attr *ah_attr,
			      const struct ib_gid_attr *sgid_attr);

/* [any] an IB path record to and from its wire attribute (SA MAD data) */
void ib_sa_pack_path(struct sa_path_rec *rec, void *attribute);
void ib_sa_unpack_path(void *attribute, struct sa_path_rec *rec);

static inline bool sa_path_is_roce(struct sa_path_rec *rec)
{
	return rec->rec_type == SA_PATH_REC_TYPE_ROCE_V1 ||
	       rec->rec_type == SA_PATH_REC_TYPE_ROCE_V2;
}

static inline bool sa_path_is_opa(struct sa_path_rec *rec)
{
	return rec->rec_type == SA_PATH_REC_TYPE_OPA;
}

/* The LID and raw-traffic setters and getters of IB and OPA records. */
static inline void sa_path_set_slid(struct sa_path_rec *rec, u32 slid)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_IB)
		rec->ib.slid = cpu_to_be16(slid);
	else if (rec->rec_type == SA_PATH_REC_TYPE_OPA)
		rec->opa.slid = cpu_to_be32(slid);
}

static inline void sa_path_set_dlid(struct sa_path_rec *rec, u32 dlid)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_IB)
		rec->ib.dlid = cpu_to_be16(dlid);
	else if (rec->rec_type == SA_PATH_REC_TYPE_OPA)
		rec->opa.dlid = cpu_to_be32(dlid);
}

static inline void sa_path_set_raw_traffic(struct sa_path_rec *rec,
					   u8 raw_traffic)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_IB)
		rec->ib.raw_traffic = raw_traffic;
	else if (rec->rec_type == SA_PATH_REC_TYPE_OPA)
		rec->opa.raw_traffic = raw_traffic;
}

/* the SLID as a 32-bit big-endian LID (0 for RoCE) */
static inline __be32 sa_path_get_slid(struct sa_path_rec *rec)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_IB)
		return cpu_to_be32(be16_to_cpu(rec->ib.slid));
	if (rec->rec_type == SA_PATH_REC_TYPE_OPA)
		return rec->opa.slid;
	return 0;
}

/* the DLID as a 32-bit big-endian LID (0 for RoCE) */
static inline __be32 sa_path_get_dlid(struct sa_path_rec *rec)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_IB)
		return cpu_to_be32(be16_to_cpu(rec->ib.dlid));
	if (rec->rec_type == SA_PATH_REC_TYPE_OPA)
		return rec->opa.dlid;
	return 0;
}

static inline u8 sa_path_get_raw_traffic(struct sa_path_rec *rec)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_IB)
		return rec->ib.raw_traffic;
	if (rec->rec_type == SA_PATH_REC_TYPE_OPA)
		return rec->opa.raw_traffic;
	return 0;
}

/* The destination MAC of a RoCE record (the others have none). */
static inline void sa_path_set_dmac(struct sa_path_rec *rec, u8 *dmac)
{
	if (sa_path_is_roce(rec))
		memcpy(rec->roce.dmac, dmac, ETH_ALEN);
}

static inline void sa_path_set_dmac_zero(struct sa_path_rec *rec)
{
	if (sa_path_is_roce(rec))
		eth_zero_addr(rec->roce.dmac);
}

static inline u8 *sa_path_get_dmac(struct sa_path_rec *rec)
{
	return sa_path_is_roce(rec) ? rec->roce.dmac : NULL;
}

#endif /* IBSTACK_RDMA_IB_SA_H */

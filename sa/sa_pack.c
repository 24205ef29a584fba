// SPDX-License-Identifier: GPL-2.0
/*
 * PathRecord (IBA 15.2.5.16) and MCMemberRecord (15.2.5.17) as they travel
 * in an SA MAD's data, to and from the records of <rdma/ib_sa.h>.  The
 * records hold multi-byte fields in network order already: only the bit
 * fields sharing a word or a byte are split and joined here.
 */
#include <linux/bitfield.h>
#include <linux/module.h>
#include <linux/string.h>
#include "sa_priv.h"

struct sa_path_wire {
	__be64	service_id;
	u8	dgid[16];
	u8	sgid[16];
	__be16	dlid;
	__be16	slid;
	__be32	raw_flow_hop;	/* RawTraffic 31, FlowLabel 27:8, HopLimit 7:0 */
	u8	traffic_class;
	u8	rev_numb;	/* Reversible 7, NumbPath 6:0 */
	__be16	pkey;
	__be16	qos_sl;		/* QoSClass 15:4, SL 3:0 */
	u8	mtu;		/* selector 7:6, value 5:0 (also rate, life) */
	u8	rate;
	u8	life;
	u8	preference;
	u8	reserved[6];
} __packed;

struct sa_mcmember_wire {
	u8	mgid[16];
	u8	port_gid[16];
	__be32	qkey;
	__be16	mlid;
	u8	mtu;
	u8	traffic_class;
	__be16	pkey;
	u8	rate;
	u8	life;
	__be32	sl_flow_hop;	/* SL 31:28, FlowLabel 27:8, HopLimit 7:0 */
	u8	scope_join;	/* Scope 7:4, JoinState 3:0 */
	u8	proxy;		/* ProxyJoin 7 */
	u8	reserved[2];
} __packed;

#define SA_RAW_TRAFFIC	BIT(31)
#define SA_FLOW_LABEL	GENMASK(27, 8)
#define SA_HOP_LIMIT	GENMASK(7, 0)
#define SA_MC_SL	GENMASK(31, 28)
#define SA_REVERSIBLE	BIT(7)
#define SA_NUMB_PATH	GENMASK(6, 0)
#define SA_QOS_CLASS	GENMASK(15, 4)
#define SA_PATH_SL	GENMASK(3, 0)
#define SA_SELECTOR	GENMASK(7, 6)
#define SA_VALUE	GENMASK(5, 0)
#define SA_SCOPE	GENMASK(7, 4)
#define SA_JOIN_STATE	GENMASK(3, 0)
#define SA_PROXY_JOIN	BIT(7)

static u8 sa_sel(u8 selector, u8 value)
{
	return FIELD_PREP(SA_SELECTOR, selector & 3) |
	       FIELD_PREP(SA_VALUE, value & 0x3f);
}

/* the wire word FlowLabel shares with the hop limit and a top field */
static __be32 sa_flow_word(u32 top, __be32 flow_label, u8 hop_limit)
{
	return cpu_to_be32(top |
			   FIELD_PREP(SA_FLOW_LABEL, be32_to_cpu(flow_label) & 0xfffff) |
			   FIELD_PREP(SA_HOP_LIMIT, hop_limit));
}

/* rec must be an IB record (ib_sa_path_rec_get checks it) */
void ib_sa_pack_path(struct sa_path_rec *rec, void *attribute)
{
	struct sa_path_wire *w = attribute;
	u16 qos_class = be16_to_cpu(rec->qos_class);

	BUILD_BUG_ON(sizeof(*w) != IB_SA_PATH_REC_SIZE);
	memset(w, 0, sizeof(*w));
	w->service_id = rec->service_id;
	memcpy(w->dgid, rec->dgid.raw, sizeof(w->dgid));
	memcpy(w->sgid, rec->sgid.raw, sizeof(w->sgid));
	w->dlid = rec->ib.dlid;
	w->slid = rec->ib.slid;
	w->raw_flow_hop = sa_flow_word(rec->ib.raw_traffic ? SA_RAW_TRAFFIC : 0,
				       rec->flow_label, rec->hop_limit);
	w->traffic_class = rec->traffic_class;
	w->rev_numb = (rec->reversible ? SA_REVERSIBLE : 0) |
		      FIELD_PREP(SA_NUMB_PATH, rec->numb_path & 0x7f);
	w->pkey = rec->pkey;
	w->qos_sl = cpu_to_be16(FIELD_PREP(SA_QOS_CLASS, qos_class & 0xfff) |
				FIELD_PREP(SA_PATH_SL, rec->sl & 0xf));
	w->mtu = sa_sel(rec->mtu_selector, rec->mtu);
	w->rate = sa_sel(rec->rate_selector, rec->rate);
	w->life = sa_sel(rec->packet_life_time_selector, rec->packet_life_time);
	w->preference = rec->preference;
}
EXPORT_SYMBOL(ib_sa_pack_path);

/* rec becomes an IB record (rec_type SA_PATH_REC_TYPE_IB, flags 0) */
void ib_sa_unpack_path(void *attribute, struct sa_path_rec *rec)
{
	const struct sa_path_wire *w = attribute;
	u32 rfh = be32_to_cpu(w->raw_flow_hop);
	u16 qs = be16_to_cpu(w->qos_sl);

	memset(rec, 0, sizeof(*rec));
	rec->rec_type = SA_PATH_REC_TYPE_IB;
	rec->service_id = w->service_id;
	memcpy(rec->dgid.raw, w->dgid, sizeof(w->dgid));
	memcpy(rec->sgid.raw, w->sgid, sizeof(w->sgid));
	rec->ib.dlid = w->dlid;
	rec->ib.slid = w->slid;
	rec->ib.raw_traffic = !!(rfh & SA_RAW_TRAFFIC);
	rec->flow_label = cpu_to_be32(FIELD_GET(SA_FLOW_LABEL, rfh));
	rec->hop_limit = FIELD_GET(SA_HOP_LIMIT, rfh);
	rec->traffic_class = w->traffic_class;
	rec->reversible = !!(w->rev_numb & SA_REVERSIBLE);
	rec->numb_path = FIELD_GET(SA_NUMB_PATH, w->rev_numb);
	rec->pkey = w->pkey;
	rec->qos_class = cpu_to_be16(FIELD_GET(SA_QOS_CLASS, qs));
	rec->sl = FIELD_GET(SA_PATH_SL, qs);
	rec->mtu_selector = FIELD_GET(SA_SELECTOR, w->mtu);
	rec->mtu = FIELD_GET(SA_VALUE, w->mtu);
	rec->rate_selector = FIELD_GET(SA_SELECTOR, w->rate);
	rec->rate = FIELD_GET(SA_VALUE, w->rate);
	rec->packet_life_time_selector = FIELD_GET(SA_SELECTOR, w->life);
	rec->packet_life_time = FIELD_GET(SA_VALUE, w->life);
	rec->preference = w->preference;
}
EXPORT_SYMBOL(ib_sa_unpack_path);

void sa_pack_mcmember(const struct ib_sa_mcmember_rec *rec, void *buf)
{
	struct sa_mcmember_wire *w = buf;

	BUILD_BUG_ON(sizeof(*w) != IB_SA_MCMEMBER_REC_SIZE);
	memset(w, 0, sizeof(*w));
	memcpy(w->mgid, rec->mgid.raw, sizeof(w->mgid));
	memcpy(w->port_gid, rec->port_gid.raw, sizeof(w->port_gid));
	w->qkey = rec->qkey;
	w->mlid = rec->mlid;
	w->mtu = sa_sel(rec->mtu_selector, rec->mtu);
	w->traffic_class = rec->traffic_class;
	w->pkey = rec->pkey;
	w->rate = sa_sel(rec->rate_selector, rec->rate);
	w->life = sa_sel(rec->packet_life_time_selector, rec->packet_life_time);
	w->sl_flow_hop = sa_flow_word(FIELD_PREP(SA_MC_SL, rec->sl & 0xf),
				      rec->flow_label, rec->hop_limit);
	w->scope_join = FIELD_PREP(SA_SCOPE, rec->scope & 0xf) |
			FIELD_PREP(SA_JOIN_STATE, rec->join_state & 0xf);
	w->proxy = rec->proxy_join ? SA_PROXY_JOIN : 0;
}

void sa_unpack_mcmember(const void *buf, struct ib_sa_mcmember_rec *rec)
{
	const struct sa_mcmember_wire *w = buf;
	u32 sfh = be32_to_cpu(w->sl_flow_hop);

	memset(rec, 0, sizeof(*rec));
	memcpy(rec->mgid.raw, w->mgid, sizeof(w->mgid));
	memcpy(rec->port_gid.raw, w->port_gid, sizeof(w->port_gid));
	rec->qkey = w->qkey;
	rec->mlid = w->mlid;
	rec->mtu_selector = FIELD_GET(SA_SELECTOR, w->mtu);
	rec->mtu = FIELD_GET(SA_VALUE, w->mtu);
	rec->traffic_class = w->traffic_class;
	rec->pkey = w->pkey;
	rec->rate_selector = FIELD_GET(SA_SELECTOR, w->rate);
	rec->rate = FIELD_GET(SA_VALUE, w->rate);
	rec->packet_life_time_selector = FIELD_GET(SA_SELECTOR, w->life);
	rec->packet_life_time = FIELD_GET(SA_VALUE, w->life);
	rec->sl = FIELD_GET(SA_MC_SL, sfh);
	rec->flow_label = cpu_to_be32(FIELD_GET(SA_FLOW_LABEL, sfh));
	rec->hop_limit = FIELD_GET(SA_HOP_LIMIT, sfh);
	rec->scope = FIELD_GET(SA_SCOPE, w->scope_join);
	rec->join_state = FIELD_GET(SA_JOIN_STATE, w->scope_join);
	rec->proxy_join = !!(w->proxy & SA_PROXY_JOIN);
}

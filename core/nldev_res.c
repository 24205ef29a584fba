// SPDX-License-Identifier: GPL-2.0
/*
 * The resource commands of RDMA netlink ("rdma resource"): the summary of
 * a device (RES_GET) and its objects by type (RES_QP/CQ/MR/PD/CTX/SRQ/
 * CM_ID_GET, the _RAW variants, and STAT_GET's MR list), from ib_core's
 * resource tracking (restrack.c).  Each object answers with 6.1's
 * attributes; user objects carry their process's PID, kernel objects the
 * creating module's name; keys (lkey, rkey, a PD's lkeys) go only to
 * callers with CAP_NET_ADMIN.
 *
 * A dump is one message per call holding as many entries as fit,
 * continued from the id after the last one sent (cb->args[0]).
 */
#include <rdma/restrack.h>
#include <ibstack/ext.h>
#include "core_priv.h"
#include "nldev.h"

/* A per-object fill: -EAGAIN skips the object (another port's). */
typedef int (*ib_res_fill_t)(struct sk_buff *msg, bool admin,
			     struct rdma_restrack_entry *res, u32 port);

/* Which table a command reads and how its entries nest. */
struct ib_res_kind {
	enum rdma_restrack_type	type;
	u32			table;		/* the nest of all entries */
	u32			entry;		/* the nest of one */
	u32			id;		/* the attribute naming one (doit) */
	bool			per_port;	/* doit needs a port; else refuses one */
	ib_res_fill_t		fill;
};

static int ib_res_put_owner(struct sk_buff *msg, struct rdma_restrack_entry *res)
{
	pid_t pid;

	if (rdma_is_kernel_res(res))
		return nla_put_string(msg, RDMA_NLDEV_ATTR_RES_KERN_NAME, res->kern_name) ?
		       -EMSGSIZE : 0;
	/* a task that is exiting has no PID in our namespace any more */
	pid = ibstack_restrack_pid(res);
	if (pid && nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PID, pid))
		return -EMSGSIZE;
	return 0;
}

/* the user context of a user object: its ctxn */
static int ib_res_put_ctxn(struct sk_buff *msg, struct rdma_restrack_entry *res)
{
	u32 ctxn;

	if (rdma_is_kernel_res(res) || ibstack_restrack_ctxn(res, &ctxn))
		return 0;
	return nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CTXN, ctxn) ? -EMSGSIZE : 0;
}

static int ib_res_fill_qp(struct sk_buff *msg, bool admin, struct rdma_restrack_entry *res,
			  u32 port)
{
	struct ib_qp *qp = container_of(res, struct ib_qp, res);
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	bool conn = qp->qp_type == IB_QPT_RC || qp->qp_type == IB_QPT_UC;
	int ret;

	if (port && port != qp->port)
		return -EAGAIN;
	if ((qp->port && nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, qp->port)) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, qp->qp_num) ||
	    (!rdma_is_kernel_res(res) &&
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, qp->pd->res.id)) ||
	    ib_res_put_owner(msg, res))
		return -EMSGSIZE;

	ret = ib_query_qp(qp, &attr, 0, &init);
	if (ret)
		return ret;
	if (conn && (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RQPN, attr.dest_qp_num) ||
		     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RQ_PSN, attr.rq_psn)))
		return -EMSGSIZE;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_SQ_PSN, attr.sq_psn))
		return -EMSGSIZE;
	if ((conn || qp->qp_type == IB_QPT_XRC_INI || qp->qp_type == IB_QPT_XRC_TGT) &&
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE, attr.path_mig_state))
		return -EMSGSIZE;
	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, qp->qp_type) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_STATE, attr.qp_state))
		return -EMSGSIZE;
	return 0;
}

static int ib_res_fill_cq(struct sk_buff *msg, bool admin, struct rdma_restrack_entry *res,
			  u32 port)
{
	struct ib_cq *cq = container_of(res, struct ib_cq, res);

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CQE, cq->cqe) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_USECNT, atomic_read(&cq->usecnt),
			      RDMA_NLDEV_ATTR_PAD) ||
	    /* a user CQ has no poll context */
	    (rdma_is_kernel_res(res) &&
	     nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_POLL_CTX, cq->poll_ctx)) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_DIM, !!cq->dim) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CQN, res->id) ||
	    ib_res_put_ctxn(msg, res) ||
	    ib_res_put_owner(msg, res))
		return -EMSGSIZE;
	return 0;
}

static int ib_res_fill_mr(struct sk_buff *msg, bool admin, struct rdma_restrack_entry *res,
			  u32 port)
{
	struct ib_mr *mr = container_of(res, struct ib_mr, res);

	if ((admin && (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RKEY, mr->rkey) ||
		       nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LKEY, mr->lkey))) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_MRLEN, mr->length,
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_MRN, res->id) ||
	    (!rdma_is_kernel_res(res) &&
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, READ_ONCE(mr->pd)->res.id)) ||
	    ib_res_put_owner(msg, res))
		return -EMSGSIZE;
	return 0;
}

/* STAT_GET's MR list: the MR's number (mlx4 has no per-MR counters) */
static int ib_res_fill_mr_stat(struct sk_buff *msg, bool admin,
			       struct rdma_restrack_entry *res, u32 port)
{
	return nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_MRN, res->id) ? -EMSGSIZE : 0;
}

static int ib_res_fill_pd(struct sk_buff *msg, bool admin, struct rdma_restrack_entry *res,
			  u32 port)
{
	struct ib_pd *pd = container_of(res, struct ib_pd, res);

	if ((admin &&
	     (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY, pd->local_dma_lkey) ||
	      ((pd->flags & IB_PD_UNSAFE_GLOBAL_RKEY) &&
	       nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY,
			   pd->unsafe_global_rkey)))) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_USECNT, atomic_read(&pd->usecnt),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, res->id) ||
	    ib_res_put_ctxn(msg, res) ||
	    ib_res_put_owner(msg, res))
		return -EMSGSIZE;
	return 0;
}

static int ib_res_fill_ctx(struct sk_buff *msg, bool admin, struct rdma_restrack_entry *res,
			   u32 port)
{
	if (rdma_is_kernel_res(res))
		return 0;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CTXN, res->id) || ib_res_put_owner(msg, res))
		return -EMSGSIZE;
	return 0;
}

/* one QP number, or a range of consecutive ones, of an SRQ's QPs */
static int ib_res_put_qp_range(struct sk_buff *msg, u32 first, u32 last)
{
	struct nlattr *entry;

	entry = nla_nest_start(msg, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
	if (!entry)
		return -EMSGSIZE;
	if (first == last ? nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, first) :
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_MIN_RANGE, first) ||
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_MAX_RANGE, last))) {
		nla_nest_cancel(msg, entry);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, entry);
	return 0;
}

/* the QPs that receive through the SRQ, as ranges of numbers */
static int ib_res_put_srq_qps(struct sk_buff *msg, struct ib_srq *srq)
{
	struct rdma_restrack_entry *res;
	u32 first = 0, last = 0;
	unsigned long id = 0;
	struct nlattr *table;
	bool any = false;
	struct ib_qp *qp;
	int ret = 0;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_RES_QP);
	if (!table)
		return -EMSGSIZE;
	while (!ret && (res = ibstack_restrack_next(srq->device, RDMA_RESTRACK_QP, &id))) {
		qp = container_of(res, struct ib_qp, res);
		if (qp->srq == srq) {
			if (any && qp->qp_num == last + 1) {
				last = qp->qp_num;
			} else {
				if (any)
					ret = ib_res_put_qp_range(msg, first, last);
				first = qp->qp_num;
				last = first;
				any = true;
			}
		}
		rdma_restrack_put(res);
		id++;
	}
	if (!ret && any)
		ret = ib_res_put_qp_range(msg, first, last);
	if (ret) {
		nla_nest_cancel(msg, table);
		return ret;
	}
	nla_nest_end(msg, table);
	return 0;
}

static int ib_res_fill_srq(struct sk_buff *msg, bool admin, struct rdma_restrack_entry *res,
			   u32 port)
{
	struct ib_srq *srq = container_of(res, struct ib_srq, res);

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_SRQN, res->id) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, srq->srq_type) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, srq->pd->res.id) ||
	    (srq->srq_type == IB_SRQT_XRC &&
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CQN, srq->ext.cq->res.id)) ||
	    ib_res_put_srq_qps(msg, srq) ||
	    ib_res_put_owner(msg, res))
		return -EMSGSIZE;
	return 0;
}

/* ib_core has no rdma_cm: there are never connection IDs to describe */
static int ib_res_fill_none(struct sk_buff *msg, bool admin, struct rdma_restrack_entry *res,
			    u32 port)
{
	return -EINVAL;
}

/* the raw hardware contexts: mlx4 has no dumper for them (upstream: EINVAL) */
static int ib_res_fill_raw(struct sk_buff *msg, bool admin, struct rdma_restrack_entry *res,
			   u32 port)
{
	return -EINVAL;
}

#define IB_RES_KIND(_type, _table, _entry, _id, _per_port, _fill)	\
	{ .type = RDMA_RESTRACK_##_type, .table = RDMA_NLDEV_ATTR_##_table,	\
	  .entry = RDMA_NLDEV_ATTR_##_entry, .id = RDMA_NLDEV_ATTR_##_id,	\
	  .per_port = _per_port, .fill = _fill }

/* what each command reads; STAT_GET: its MR list */
static const struct ib_res_kind *ib_res_kind_of(u32 cmd)
{
	static const struct ib_res_kind qp = IB_RES_KIND(QP, RES_QP, RES_QP_ENTRY, RES_LQPN,
							 true, ib_res_fill_qp);
	static const struct ib_res_kind qp_raw = IB_RES_KIND(QP, RES_QP, RES_QP_ENTRY, RES_LQPN,
							     true, ib_res_fill_raw);
	static const struct ib_res_kind cm_id = IB_RES_KIND(CM_ID, RES_CM_ID, RES_CM_ID_ENTRY,
							    RES_CM_IDN, true, ib_res_fill_none);
	static const struct ib_res_kind cq = IB_RES_KIND(CQ, RES_CQ, RES_CQ_ENTRY, RES_CQN,
							 false, ib_res_fill_cq);
	static const struct ib_res_kind cq_raw = IB_RES_KIND(CQ, RES_CQ, RES_CQ_ENTRY, RES_CQN,
							     false, ib_res_fill_raw);
	static const struct ib_res_kind mr = IB_RES_KIND(MR, RES_MR, RES_MR_ENTRY, RES_MRN,
							 false, ib_res_fill_mr);
	static const struct ib_res_kind mr_raw = IB_RES_KIND(MR, RES_MR, RES_MR_ENTRY, RES_MRN,
							     false, ib_res_fill_raw);
	static const struct ib_res_kind mr_stat = IB_RES_KIND(MR, RES_MR, RES_MR_ENTRY, RES_MRN,
							      false, ib_res_fill_mr_stat);
	static const struct ib_res_kind pd = IB_RES_KIND(PD, RES_PD, RES_PD_ENTRY, RES_PDN,
							 false, ib_res_fill_pd);
	static const struct ib_res_kind ctx = IB_RES_KIND(CTX, RES_CTX, RES_CTX_ENTRY, RES_CTXN,
							  false, ib_res_fill_ctx);
	static const struct ib_res_kind srq = IB_RES_KIND(SRQ, RES_SRQ, RES_SRQ_ENTRY, RES_SRQN,
							  false, ib_res_fill_srq);

	switch (cmd) {
	case RDMA_NLDEV_CMD_RES_QP_GET:		return &qp;
	case RDMA_NLDEV_CMD_RES_QP_GET_RAW:	return &qp_raw;
	case RDMA_NLDEV_CMD_RES_CM_ID_GET:	return &cm_id;
	case RDMA_NLDEV_CMD_RES_CQ_GET:		return &cq;
	case RDMA_NLDEV_CMD_RES_CQ_GET_RAW:	return &cq_raw;
	case RDMA_NLDEV_CMD_RES_MR_GET:		return &mr;
	case RDMA_NLDEV_CMD_RES_MR_GET_RAW:	return &mr_raw;
	case RDMA_NLDEV_CMD_STAT_GET:		return &mr_stat;
	case RDMA_NLDEV_CMD_RES_PD_GET:		return &pd;
	case RDMA_NLDEV_CMD_RES_CTX_GET:	return &ctx;
	case RDMA_NLDEV_CMD_RES_SRQ_GET:	return &srq;
	default:				return NULL;
	}
}

/* ---- the summary ------------------------------------------------------- */

static int ib_res_put_summary(struct sk_buff *msg, struct ib_device *device)
{
	/* 6.1's names and order; no line for the counters */
	static const char * const names[RDMA_RESTRACK_MAX] = {
		[RDMA_RESTRACK_PD] = "pd", [RDMA_RESTRACK_CQ] = "cq",
		[RDMA_RESTRACK_QP] = "qp", [RDMA_RESTRACK_CM_ID] = "cm_id",
		[RDMA_RESTRACK_MR] = "mr", [RDMA_RESTRACK_CTX] = "ctx",
		[RDMA_RESTRACK_SRQ] = "srq",
	};
	struct nlattr *table, *entry;
	int type;

	if (ib_nldev_put_handle(msg, device))
		return -EMSGSIZE;
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_SUMMARY);
	if (!table)
		return -EMSGSIZE;
	for (type = 0; type < RDMA_RESTRACK_MAX; type++) {
		if (!names[type])
			continue;
		entry = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY);
		if (!entry ||
		    nla_put_string(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME, names[type]) ||
		    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR,
				      rdma_restrack_count(device, type, false),
				      RDMA_NLDEV_ATTR_PAD)) {
			nla_nest_cancel(msg, table);
			return -EMSGSIZE;
		}
		nla_nest_end(msg, entry);
	}
	nla_nest_end(msg, table);
	return 0;
}

int ib_nldev_res_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	return ib_nldev_dev_doit(skb, nlh, extack, RDMA_NLDEV_CMD_RES_GET, ib_res_put_summary);
}

int ib_nldev_res_get_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ib_nldev_dump_devices(skb, cb, RDMA_NLDEV_CMD_RES_GET, ib_res_put_summary);
}

/* ---- the objects ------------------------------------------------------- */

/*
 * The request's port: 0 if none was given; -EINVAL if it is not one of
 * the device's.
 */
static int ib_res_port(struct ib_device *device, struct nlattr **tb, u32 *port)
{
	*port = 0;
	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return 0;
	*port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	return rdma_is_port_valid(device, *port) ? 0 : -EINVAL;
}

/* one entry nest holding the object; -EAGAIN if the fill skipped it */
static int ib_res_put_entry(struct sk_buff *msg, const struct ib_res_kind *kind, bool admin,
			    struct rdma_restrack_entry *res, u32 port)
{
	struct nlattr *entry;
	int ret;

	entry = nla_nest_start_noflag(msg, kind->entry);
	if (!entry)
		return -EMSGSIZE;
	ret = kind->fill(msg, admin, res, port);
	if (ret) {
		nla_nest_cancel(msg, entry);
		return ret;
	}
	nla_nest_end(msg, entry);
	return 0;
}

int ib_nldev_res_obj_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	u32 cmd = RDMA_NL_GET_OP(nlh->nlmsg_type);
	const struct ib_res_kind *kind = ib_res_kind_of(cmd);
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct rdma_restrack_entry *res;
	struct ib_device *device;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	u32 port;
	int ret;

	if (!kind || ib_nldev_parse(nlh, tb, cmd == RDMA_NLDEV_CMD_STAT_GET, extack) ||
	    !tb[kind->id])
		return -EINVAL;
	device = ib_nldev_device(tb);
	if (!device)
		return -EINVAL;
	ret = ib_res_port(device, tb, &port);
	/* a QP or connection ID is named within a port, the others within the device */
	if (!ret && !port == kind->per_port)
		ret = -EINVAL;
	if (ret)
		goto out;

	res = rdma_restrack_get_byid(device, kind->type, nla_get_u32(tb[kind->id]));
	if (IS_ERR(res)) {
		ret = PTR_ERR(res);
		goto out;
	}
	msg = ib_nldev_new_reply(skb, nlh, cmd, &rnlh);
	ret = -ENOMEM;
	if (!msg)
		goto out_res;
	/* a doit answers the object's attributes directly, with no nest */
	ret = ib_nldev_put_handle(msg, device);
	if (!ret)
		ret = kind->fill(msg, netlink_capable(skb, CAP_NET_ADMIN), res, port);
	if (ret) {
		nlmsg_free(msg);
		goto out_res;
	}
	nlmsg_end(msg, rnlh);
	ret = ib_nl_unicast(skb, msg);
out_res:
	rdma_restrack_put(res);
out:
	ib_device_put(device);
	return ret;
}

int ib_nldev_res_obj_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	u32 cmd = RDMA_NL_GET_OP(cb->nlh->nlmsg_type);
	const struct ib_res_kind *kind = ib_res_kind_of(cmd);
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct rdma_restrack_entry *res;
	struct ib_device *device;
	struct nlattr *table;
	struct nlmsghdr *nlh;
	bool admin, filled = false;
	unsigned long id = cb->args[0];
	u32 port;
	int ret;

	if (!kind || ib_nldev_parse(cb->nlh, tb, cmd == RDMA_NLDEV_CMD_STAT_GET, NULL))
		return -EINVAL;
	device = ib_nldev_device(tb);
	if (!device)
		return -EINVAL;
	ret = ib_res_port(device, tb, &port);
	if (ret)
		goto out;

	nlh = nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), 0, NLM_F_MULTI);
	ret = -EMSGSIZE;
	if (!nlh)
		goto out;
	if (ib_nldev_put_handle(skb, device))
		goto out_cancel;
	table = nla_nest_start_noflag(skb, kind->table);
	if (!table)
		goto out_cancel;

	admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	ret = 0;
	while ((res = ibstack_restrack_next(device, kind->type, &id))) {
		ret = ib_res_put_entry(skb, kind, admin, res, port);
		rdma_restrack_put(res);
		if (ret == -EMSGSIZE) {
			/* this one goes first in the next part */
			ret = 0;
			break;
		}
		if (ret && ret != -EAGAIN)
			break;
		filled |= !ret;
		ret = 0;
		id++;
	}
	cb->args[0] = id;
	if (ret)
		goto out_cancel;
	/* nothing (more) to send: the dump ends */
	if (!filled)
		goto out_cancel;
	nla_nest_end(skb, table);
	nlmsg_end(skb, nlh);
	ib_device_put(device);
	return skb->len;

out_cancel:
	nlmsg_cancel(skb, nlh);
out:
	ib_device_put(device);
	return ret;
}

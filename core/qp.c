// SPDX-License-Identifier: GPL-2.0
/* Queue pairs: creation, state changes, queries and destruction. */
#include <linux/module.h>
#include "core_priv.h"
#include "restrack.h"

static const char * const ib_qp_state_names[] = {
	[IB_QPS_RESET] = "RESET", [IB_QPS_INIT] = "INIT", [IB_QPS_RTR] = "RTR",
	[IB_QPS_RTS] = "RTS", [IB_QPS_SQD] = "SQD", [IB_QPS_SQE] = "SQE",
	[IB_QPS_ERR] = "ERR",
};

static const char *ib_qp_state_name(enum ib_qp_state state)
{
	size_t i = state;

	return i < ARRAY_SIZE(ib_qp_state_names) ? ib_qp_state_names[i] : "?";
}

static bool ib_qp_type_is_special(enum ib_qp_type type)
{
	return type == IB_QPT_SMI || type == IB_QPT_GSI;
}

static int ib_check_qp_init_attr(struct ib_device *device, const struct ib_qp_init_attr *attr)
{
	const struct ib_device_attr *da = &device->attrs;
	const struct ib_qp_cap *cap = &attr->cap;

	if ((unsigned int)attr->qp_type >= IB_QPT_MAX) {
		IB_CORE_RATELIMITED("%s: unknown QP type %d\n",
				    device->name, attr->qp_type);
		return -EINVAL;
	}
	if (attr->qp_type == IB_QPT_XRC_TGT) {
		/* the domain's: the driver picks the CQs, requests name the SRQs */
		if (!attr->xrcd || attr->xrcd->device != device || attr->srq) {
			IB_CORE_RATELIMITED("%s: XRC target QP: no domain, or an SRQ\n",
					    device->name);
			return -EINVAL;
		}
	} else if (attr->qp_type == IB_QPT_XRC_INI) {
		/* one CQ, for its sends only */
		if (!attr->send_cq || attr->send_cq->device != device || attr->srq) {
			IB_CORE_RATELIMITED("%s: XRC initiator QP: no send CQ, or an SRQ\n",
					    device->name);
			return -EINVAL;
		}
	} else if (!attr->send_cq || !attr->recv_cq ||
		   attr->send_cq->device != device || attr->recv_cq->device != device) {
		IB_CORE_RATELIMITED("%s: CQs missing or of another device\n",
				    device->name);
		return -EINVAL;
	}
	if (attr->srq && (attr->srq->device != device || ib_qp_type_is_special(attr->qp_type) ||
			  attr->srq->srq_type != IB_SRQT_BASIC)) {
		IB_CORE_RATELIMITED("%s: SRQ of another device or on a special QP\n",
				    device->name);
		return -EINVAL;
	}
	if (ib_qp_type_is_special(attr->qp_type)) {
		if (!rdma_is_port_valid(device, attr->port_num)) {
			IB_CORE_RATELIMITED("%s: special QP on invalid port %u\n",
					    device->name, attr->port_num);
			return -EINVAL;
		}
		if (attr->qp_type == IB_QPT_SMI &&
		    rdma_port_get_link_layer(device, attr->port_num) != IB_LINK_LAYER_INFINIBAND) {
			IB_CORE_RATELIMITED("%s: no SMI QP on non-IB port %u\n",
					    device->name, attr->port_num);
			return -EINVAL;
		}
	}
	if (attr->sq_sig_type != IB_SIGNAL_ALL_WR && attr->sq_sig_type != IB_SIGNAL_REQ_WR) {
		IB_CORE_RATELIMITED("%s: bad signalling type %d\n",
				    device->name, attr->sq_sig_type);
		return -EINVAL;
	}
	if (cap->max_send_wr > da->max_qp_wr || cap->max_send_sge > da->max_send_sge ||
	    (!attr->srq && (cap->max_recv_wr > da->max_qp_wr ||
			    cap->max_recv_sge > da->max_recv_sge))) {
		IB_CORE_RATELIMITED("%s: caps %u/%u WRs, %u/%u SGEs beyond %d WRs, %d/%d SGEs\n",
				    device->name, cap->max_send_wr, cap->max_recv_wr,
				    cap->max_send_sge, cap->max_recv_sge, da->max_qp_wr,
				    da->max_send_sge, da->max_recv_sge);
		return -EINVAL;
	}
	return 0;
}

/*
 * [sleep] The complete QP into the tracker (a real QP: an XRC target's
 * handles are not tracked).  caller: the kernel module that created it,
 * NULL for a user's QP.
 */
static void ib_qp_track(struct ib_qp *qp, const char *caller)
{
	rdma_restrack_track(&qp->res, RDMA_RESTRACK_QP, caller);
}

/*
 * [sleep] The driver's destroy_qp of a real QP, unlisted meanwhile (listed
 * again if it fails).
 */
int ib_core_destroy_qp(struct ib_qp *qp)
{
	struct rdma_restrack_del del;
	int ret;

	rdma_restrack_begin_del(&qp->res, &del);
	ret = qp->device->ops.destroy_qp(qp);
	if (ret) {
		rdma_restrack_abort_del(&qp->res, &del);
		return ret;
	}
	rdma_restrack_commit_del(&del);
	return 0;
}

/*
 * [sleep] A QP for a kernel (uobj and udata NULL, caller the module's
 * name) or user caller (caller NULL): the checks, the driver's QP, its
 * common members and the use counts.  An XRC target QP is the domain's,
 * created as a kernel QP (no udata, as 6.1 does; tracked as ib_uverbs' for
 * a user, as 6.1 names it), and the caller gets a handle on it, which
 * carries uobj.
 */
struct ib_qp *ib_core_create_qp(struct ib_device *device, struct ib_pd *pd,
				struct ib_qp_init_attr *attr, struct ib_uobject *uobj,
				struct ib_udata *udata, const char *caller)
{
	bool xrc_tgt = attr->qp_type == IB_QPT_XRC_TGT;
	struct ib_qp *qp, *handle;
	int ret;

	ret = ib_check_qp_init_attr(device, attr);
	if (ret)
		return ERR_PTR(ret);

	qp = device->ops.create_qp(pd, attr, xrc_tgt ? NULL : udata);
	if (IS_ERR_OR_NULL(qp))
		return qp ? qp : ERR_PTR(-ENOMEM);

	/* an XRC QP's driver fills in the CQs it uses (upstream's mlx4 does) */
	qp->device = device;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->xrcd = NULL;
	INIT_LIST_HEAD(&qp->open_list);
	qp->real_qp = qp;
	qp->uobject = xrc_tgt ? NULL : uobj;
	qp->event_handler = attr->event_handler;
	qp->qp_context = attr->qp_context;
	qp->qp_type = attr->qp_type;
	qp->port = ib_qp_type_is_special(attr->qp_type) ? attr->port_num : 0;
	qp->state = IB_QPS_RESET;
	mutex_init(&qp->state_mutex);
	atomic_set(&qp->usecnt, 0);
	if (xrc_tgt) {
		handle = ib_xrc_tgt_publish(qp, attr);
		if (IS_ERR(handle))
			return handle;
		handle->uobject = uobj;
		ib_qp_track(qp, caller ? caller : "ib_uverbs");
		return handle;
	}

	atomic_inc(&pd->usecnt);
	atomic_inc(&qp->send_cq->usecnt);
	atomic_inc(&qp->recv_cq->usecnt);
	if (attr->srq)
		atomic_inc(&attr->srq->usecnt);
	ib_qp_track(qp, caller);
	return qp;
}

struct ib_qp *ib_create_qp_kernel(struct ib_pd *pd, struct ib_qp_init_attr *attr,
				  const char *caller)
{
	if (IS_ERR_OR_NULL(pd) || !attr) {
		IB_CORE_RATELIMITED("no PD or attributes\n");
		return ERR_PTR(-EINVAL);
	}
	return ib_core_create_qp(pd->device, pd, attr, NULL, NULL, caller);
}
EXPORT_SYMBOL(ib_create_qp_kernel);

/* The port whose tables bound the P_Key and GID indexes of this modify. */
static u32 ib_qp_attr_port(struct ib_qp *qp, const struct ib_qp_attr *attr, int mask)
{
	if (mask & IB_QP_PORT)
		return attr->port_num;
	if (qp->port)
		return qp->port;
	return rdma_start_port(qp->device);
}

static bool ib_pkey_index_ok(struct ib_device *device, u32 port, u16 index)
{
	struct ib_port_cache *pc = ib_port_cache(device, port);

	return pc && index < pc->pkey_tbl_len;
}

static int ib_check_qp_attr(struct ib_qp *qp, const struct ib_qp_attr *attr, int mask)
{
	struct ib_device *device = qp->device;
	const struct ib_device_attr *da = &device->attrs;
	u32 port = ib_qp_attr_port(qp, attr, mask);
	const char *what = NULL;

	if ((mask & IB_QP_PORT) && !rdma_is_port_valid(device, attr->port_num))
		what = "port";
	else if ((mask & IB_QP_PKEY_INDEX) && !ib_pkey_index_ok(device, port, attr->pkey_index))
		what = "P_Key index";
	else if ((mask & IB_QP_AV) && ib_ah_attr_problem(device, &attr->ah_attr, port))
		what = "address vector";
	else if ((mask & IB_QP_ALT_PATH) &&
		 (!rdma_is_port_valid(device, attr->alt_port_num) ||
		  !ib_pkey_index_ok(device, attr->alt_port_num, attr->alt_pkey_index) ||
		  ib_ah_attr_problem(device, &attr->alt_ah_attr, attr->alt_port_num) ||
		  attr->alt_timeout > 31))
		what = "alternate path";
	else if ((mask & IB_QP_PATH_MTU) &&
		 (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		what = "path MTU";
	else if ((mask & IB_QP_ACCESS_FLAGS) &&
		 (attr->qp_access_flags & ~(IB_ACCESS_SUPPORTED | IB_ACCESS_MW_BIND)))
		what = "access flags";
	else if ((mask & IB_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > da->max_qp_init_rd_atom)
		what = "max_rd_atomic";
	else if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
		 attr->max_dest_rd_atomic > da->max_qp_rd_atom)
		what = "max_dest_rd_atomic";
	else if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		what = "timeout";
	else if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		what = "retry count";
	else if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		what = "RNR retry";
	else if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		what = "min RNR timer";
	else if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > 0xffffff)
		what = "destination QPN";
	else if ((mask & IB_QP_SQ_PSN) && attr->sq_psn > 0xffffff)
		what = "SQ PSN";
	else if ((mask & IB_QP_RQ_PSN) && attr->rq_psn > 0xffffff)
		what = "RQ PSN";
	else if ((mask & IB_QP_PATH_MIG_STATE) && attr->path_mig_state > IB_MIG_ARMED)
		what = "path migration state";
	else if ((mask & IB_QP_CAP) &&
		 (attr->cap.max_send_wr > da->max_qp_wr || attr->cap.max_recv_wr > da->max_qp_wr))
		what = "capabilities";

	if (what) {
		IB_CORE_RATELIMITED("%s: QP 0x%x: bad %s\n",
				    device->name, qp->qp_num, what);
		return -EINVAL;
	}
	return 0;
}

/*
 * [sleep] ib_modify_qp() of a kernel (udata NULL) or user caller: the
 * transition and the attributes checked, then the driver's modify_qp.
 */
int ib_core_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		      struct ib_udata *udata)
{
	enum ib_qp_state cur, next;
	int ret;

	if (IS_ERR_OR_NULL(qp) || !attr) {
		IB_CORE_RATELIMITED("no QP or attributes\n");
		return -EINVAL;
	}
	qp = qp->real_qp;	/* an XRC target's handle modifies the QP */

	mutex_lock(&qp->state_mutex);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;

	if (!ib_modify_qp_is_ok(cur, next, qp->qp_type, mask)) {
		IB_CORE_RATELIMITED("%s: QP 0x%x (type %d): %s -> %s with mask 0x%x not allowed\n",
				    qp->device->name, qp->qp_num, qp->qp_type,
				    ib_qp_state_name(cur), ib_qp_state_name(next), mask);
		ret = -EINVAL;
		goto out;
	}
	ret = ib_check_qp_attr(qp, attr, mask);
	if (ret)
		goto out;

	ret = qp->device->ops.modify_qp(qp, attr, mask, cur, udata);
	if (!ret) {
		qp->state = next;
		if (mask & IB_QP_PORT)
			qp->port = attr->port_num;
	}
out:
	mutex_unlock(&qp->state_mutex);
	return ret;
}

int ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask)
{
	return ib_core_modify_qp(qp, attr, mask, NULL);
}
EXPORT_SYMBOL(ib_modify_qp);

int ib_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		struct ib_qp_init_attr *init_attr)
{
	if (IS_ERR_OR_NULL(qp) || !attr || !init_attr) {
		IB_CORE_RATELIMITED("no QP or attribute buffers\n");
		return -EINVAL;
	}
	/* as 6.1's: the paths' GID attributes are not reported (no reference) */
	attr->ah_attr.grh.sgid_attr = NULL;
	attr->alt_ah_attr.grh.sgid_attr = NULL;
	if (!qp->device->ops.query_qp)
		return -EOPNOTSUPP;
	return qp->device->ops.query_qp(qp->real_qp, attr, mask, init_attr);
}
EXPORT_SYMBOL(ib_query_qp);

int ib_destroy_qp_user(struct ib_qp *qp, struct ib_udata *udata)
{
	struct ib_cq *send_cq, *recv_cq;
	struct ib_srq *srq;
	struct ib_pd *pd;
	int ret;

	if (IS_ERR_OR_NULL(qp)) {
		IB_CORE_RATELIMITED("no QP\n");
		return -EINVAL;
	}
	if (atomic_read(&qp->usecnt)) {
		IB_CORE_RATELIMITED("%s: QP 0x%x still attached to %d multicast group(s)\n",
				    qp->device->name, qp->qp_num, atomic_read(&qp->usecnt));
		return -EBUSY;
	}
	if (qp->real_qp != qp)
		return ib_xrc_destroy_handle(qp);
	pd = qp->pd;
	send_cq = qp->send_cq;
	recv_cq = qp->recv_cq;
	srq = qp->srq;

	ret = ib_core_destroy_qp(qp);
	if (ret)
		return ret;

	atomic_dec(&pd->usecnt);
	atomic_dec(&send_cq->usecnt);
	atomic_dec(&recv_cq->usecnt);
	if (srq)
		atomic_dec(&srq->usecnt);
	return 0;
}
EXPORT_SYMBOL(ib_destroy_qp_user);

// SPDX-License-Identifier: GPL-2.0
/*
 * ib_uverbs: queue pairs (legacy and extended CREATE_QP, OPEN_QP,
 * QUERY_QP, legacy and extended MODIFY_QP, DESTROY_QP) and their
 * multicast attachments.
 */
#include <linux/capability.h>
#include <linux/slab.h>
#include "uverbs_priv.h"

/* the attribute masks the legacy and the extended MODIFY_QP know */
#define UV_QP_LEGACY_MASK	((IB_QP_DEST_QPN << 1) - 1)
#define UV_QP_EX_MASK		((IB_QP_RATE_LIMIT << 1) - 1)
/* a Q_Key with this bit is a privileged one */
#define UV_QP_PRIVILEGED_QKEY	0x80000000u
/* the create flags a user QP may ask for (the driver refuses what it lacks) */
#define UV_QP_CREATE_FLAGS	(IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK |	\
				 IB_QP_CREATE_CROSS_CHANNEL |			\
				 IB_QP_CREATE_MANAGED_SEND |			\
				 IB_QP_CREATE_MANAGED_RECV |			\
				 IB_QP_CREATE_SCATTER_FCS |			\
				 IB_QP_CREATE_CVLAN_STRIPPING |			\
				 IB_QP_CREATE_SOURCE_QPN |			\
				 IB_QP_CREATE_PCI_WRITE_END_PADDING)

static void uv_detach_all(struct uv_uobj *obj)
{
	struct ib_qp *qp = obj->uobj.object;
	struct uv_mcast *m, *next;

	mutex_lock(&obj->mcast_mutex);
	list_for_each_entry_safe(m, next, &obj->mcast_list, list) {
		ib_detach_mcast(qp, &m->gid, m->lid);
		list_del(&m->list);
		kfree(m);
	}
	mutex_unlock(&obj->mcast_mutex);
}

/*
 * A DESTROY of a QP still attached to groups: -EBUSY, as 6.1; the file's
 * cleanup detaches them first.
 */
static int uv_destroy_qp(struct uv_uobj *obj, struct uverbs_attr_bundle *attrs, bool cleanup)
{
	struct ib_qp *qp = obj->uobj.object;
	int ret;

	if (!cleanup && !list_empty(&obj->mcast_list))
		return -EBUSY;
	if (cleanup)
		uv_detach_all(obj);
	ret = ib_destroy_qp_user(qp, &attrs->driver_udata);
	if (ret)
		return ret;
	if (obj->xrcd_obj)
		atomic_dec(&obj->xrcd_obj->xrcd_users);
	return 0;
}

const struct uv_type uv_type_qp = { .name = "QP", .destroy = uv_destroy_qp };

/* the handles a create names, held shared until it is done */
struct uv_qp_refs {
	struct uv_uobj	*pd, *scq, *rcq, *srq, *xrcd;
};

static void uv_qp_refs_put(struct uv_qp_refs *r)
{
	struct uv_uobj *all[] = { r->pd, r->scq, r->rcq, r->srq, r->xrcd };
	int i;

	for (i = 0; i < ARRAY_SIZE(all); i++)
		if (all[i])
			uv_uobj_put(all[i], false);
}

/*
 * Both CREATE_QPs.  XRC targets are made in the domain pd_handle names;
 * XRC initiators have no receive side; the others need a send CQ, a
 * receive CQ (the send CQ unless named apart) and, with is_srq, a basic
 * SRQ.  An unknown handle is -EINVAL.  create_flags only from the
 * extended command (has_flags).
 */
static int uv_create_qp(struct uverbs_attr_bundle *attrs, struct ib_uverbs_ex_create_qp *cmd,
			bool has_flags, struct ib_uverbs_ex_create_qp_resp *resp,
			size_t resp_len)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_qp_init_attr attr = {};
	struct uv_qp_refs r = {};
	struct ib_pd *pd = NULL;
	struct uv_uobj *obj;
	struct ib_qp *qp;
	int ret;

	if (cmd->qp_type == IB_QPT_RAW_PACKET && !capable(CAP_NET_RAW))
		return -EPERM;
	obj = uv_uobj_alloc(attrs, &uv_type_qp);
	if (IS_ERR(obj))
		return PTR_ERR(obj);

	if (cmd->qp_type == IB_QPT_XRC_TGT) {
		attr.xrcd = uv_get_object(ufile, &uv_type_xrcd, cmd->pd_handle, &r.xrcd, &ret);
		if (!attr.xrcd) {
			ret = -EINVAL;
			goto err;
		}
	} else {
		if (cmd->qp_type == IB_QPT_XRC_INI) {
			cmd->max_recv_wr = 0;
			cmd->max_recv_sge = 0;
		} else {
			if (cmd->is_srq) {
				attr.srq = uv_get_object(ufile, &uv_type_srq, cmd->srq_handle,
							 &r.srq, &ret);
				if (!attr.srq || attr.srq->srq_type == IB_SRQT_XRC) {
					uv_dbg(ufile, "SRQ handle %u\n", cmd->srq_handle);
					if (attr.srq)
						ret = -EINVAL;
					goto err;
				}
			}
			if (cmd->recv_cq_handle != cmd->send_cq_handle) {
				attr.recv_cq = uv_get_object(ufile, &uv_type_cq,
							     cmd->recv_cq_handle, &r.rcq, &ret);
				if (!attr.recv_cq)
					goto err;
			}
		}
		attr.send_cq = uv_get_object(ufile, &uv_type_cq, cmd->send_cq_handle, &r.scq, &ret);
		if (!attr.send_cq)
			goto err;
		if (cmd->qp_type != IB_QPT_XRC_INI && !attr.recv_cq)
			attr.recv_cq = attr.send_cq;
		pd = uv_get_object(ufile, &uv_type_pd, cmd->pd_handle, &r.pd, &ret);
		if (!pd)
			goto err;
	}

	attr.event_handler = uv_qp_event_handler;
	attr.qp_context = obj;
	attr.sq_sig_type = cmd->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	attr.qp_type = cmd->qp_type;
	attr.cap.max_send_wr = cmd->max_send_wr;
	attr.cap.max_recv_wr = cmd->max_recv_wr;
	attr.cap.max_send_sge = cmd->max_send_sge;
	attr.cap.max_recv_sge = cmd->max_recv_sge;
	attr.cap.max_inline_data = cmd->max_inline_data;
	if (has_flags)
		attr.create_flags = cmd->create_flags;
	if (attr.create_flags & ~UV_QP_CREATE_FLAGS) {
		uv_dbg(ufile, "create_flags 0x%x\n", attr.create_flags);
		ret = -EINVAL;
		goto err;
	}
	if (attr.create_flags & IB_QP_CREATE_SOURCE_QPN) {
		if (!capable(CAP_NET_RAW)) {
			ret = -EPERM;
			goto err;
		}
		attr.source_qpn = cmd->source_qpn;
	}
	obj->uobj.user_handle = cmd->user_handle;

	qp = ibstack_create_qp_user(ufile->ib_dev, pd, &attr, &obj->uobj, &attrs->driver_udata);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		uv_dbg(ufile, "QP of type %u refused: %d\n", cmd->qp_type, ret);
		goto err;
	}
	obj->uobj.object = qp;

	resp->base.qp_handle = obj->uobj.id;
	resp->base.qpn = qp->qp_num;
	resp->base.max_send_wr = attr.cap.max_send_wr;
	resp->base.max_recv_wr = attr.cap.max_recv_wr;
	resp->base.max_send_sge = attr.cap.max_send_sge;
	resp->base.max_recv_sge = attr.cap.max_recv_sge;
	resp->base.max_inline_data = attr.cap.max_inline_data;
	resp->response_length = uv_response_length(attrs, sizeof(*resp));
	ret = uv_response(attrs, resp, resp_len);
	if (ret)
		goto err_qp;
	if (r.xrcd) {
		obj->xrcd_obj = r.xrcd;
		atomic_inc(&r.xrcd->xrcd_users);
	}
	uv_qp_refs_put(&r);
	uv_uobj_commit(obj);
	return 0;

err_qp:
	ib_destroy_qp_user(qp, &attrs->driver_udata);
err:
	uv_qp_refs_put(&r);
	uv_uobj_abort(obj);
	return ret;
}

int uv_cmd_create_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_create_qp_resp resp = {};
	struct ib_uverbs_ex_create_qp ex = {};
	struct ib_uverbs_create_qp cmd;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ex.user_handle = cmd.user_handle;
	ex.pd_handle = cmd.pd_handle;
	ex.send_cq_handle = cmd.send_cq_handle;
	ex.recv_cq_handle = cmd.recv_cq_handle;
	ex.srq_handle = cmd.srq_handle;
	ex.max_send_wr = cmd.max_send_wr;
	ex.max_recv_wr = cmd.max_recv_wr;
	ex.max_send_sge = cmd.max_send_sge;
	ex.max_recv_sge = cmd.max_recv_sge;
	ex.max_inline_data = cmd.max_inline_data;
	ex.sq_sig_all = cmd.sq_sig_all;
	ex.qp_type = cmd.qp_type;
	ex.is_srq = cmd.is_srq;
	return uv_create_qp(attrs, &ex, false, &resp, sizeof(resp.base));
}

/*
 * comp_mask: only IB_UVERBS_CREATE_QP_MASK_IND_TABLE is known, and we have
 * no indirection tables, so its handle is unknown (-EINVAL); reserved
 * non-zero -EINVAL.
 */
int uv_cmd_ex_create_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_create_qp_resp resp = {};
	struct ib_uverbs_ex_create_qp cmd;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (!ret)
		ret = uv_check_ex(attrs, cmd.comp_mask, IB_UVERBS_CREATE_QP_SUP_COMP_MASK,
				  cmd.reserved);
	if (ret)
		return ret;
	if (cmd.comp_mask & IB_UVERBS_CREATE_QP_MASK_IND_TABLE) {
		uv_dbg(attrs->ufile, "indirection table %u: none exist\n", cmd.rwq_ind_tbl_handle);
		return -EINVAL;
	}
	return uv_create_qp(attrs, &cmd, true, &resp, sizeof(resp));
}

/* Another handle on an XRC target QP of the domain pd_handle names. */
int uv_cmd_open_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_uverbs_create_qp_resp resp = {};
	struct ib_qp_open_attr attr = {};
	struct ib_uverbs_open_qp cmd;
	struct uv_uobj *obj, *xobj;
	struct ib_xrcd *xrcd;
	struct ib_qp *qp;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	obj = uv_uobj_alloc(attrs, &uv_type_qp);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	xrcd = uv_get_object(ufile, &uv_type_xrcd, cmd.pd_handle, &xobj, &ret);
	if (!xrcd) {
		ret = -EINVAL;
		goto err;
	}
	attr.event_handler = uv_qp_event_handler;
	attr.qp_context = obj;
	attr.qp_num = cmd.qpn;
	attr.qp_type = cmd.qp_type;
	qp = ib_open_qp(xrcd, &attr);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		uv_dbg(ufile, "QP 0x%x of type %u: %d\n", cmd.qpn, cmd.qp_type, ret);
		goto err_xrcd;
	}
	qp->uobject = &obj->uobj;
	obj->uobj.object = qp;
	obj->uobj.user_handle = cmd.user_handle;
	resp.qpn = qp->qp_num;
	resp.qp_handle = obj->uobj.id;
	ret = uv_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_qp;
	obj->xrcd_obj = xobj;
	atomic_inc(&xobj->xrcd_users);
	uv_uobj_put(xobj, false);
	uv_uobj_commit(obj);
	return 0;

err_qp:
	ib_destroy_qp_user(qp, &attrs->driver_udata);
err_xrcd:
	uv_uobj_put(xobj, false);
err:
	uv_uobj_abort(obj);
	return ret;
}

static void uv_copy_dest_to_user(struct ib_uverbs_qp_dest *d, const struct rdma_ah_attr *a)
{
	const struct ib_global_route *grh;

	d->dlid = rdma_ah_get_dlid(a);
	d->sl = rdma_ah_get_sl(a);
	d->src_path_bits = rdma_ah_get_path_bits(a);
	d->static_rate = rdma_ah_get_static_rate(a);
	d->is_global = !!(rdma_ah_get_ah_flags(a) & IB_AH_GRH);
	if (d->is_global) {
		grh = rdma_ah_read_grh(a);
		memcpy(d->dgid, grh->dgid.raw, sizeof(d->dgid));
		d->flow_label = grh->flow_label;
		d->sgid_index = grh->sgid_index;
		d->hop_limit = grh->hop_limit;
		d->traffic_class = grh->traffic_class;
	}
	d->port_num = rdma_ah_get_port_num(a);
}

static void uv_copy_dest_from_user(struct ib_device *dev, struct rdma_ah_attr *a,
				   const struct ib_uverbs_qp_dest *d)
{
	a->type = rdma_ah_find_type(dev, d->port_num);
	if (d->is_global) {
		rdma_ah_set_grh(a, NULL, d->flow_label, d->sgid_index, d->hop_limit,
				d->traffic_class);
		rdma_ah_set_dgid_raw(a, (void *)d->dgid);
	} else {
		rdma_ah_set_ah_flags(a, 0);
	}
	rdma_ah_set_dlid(a, d->dlid);
	rdma_ah_set_sl(a, d->sl);
	rdma_ah_set_path_bits(a, d->src_path_bits);
	rdma_ah_set_static_rate(a, d->static_rate);
	rdma_ah_set_port_num(a, d->port_num);
	rdma_ah_set_make_grd(a, false);
}

int uv_cmd_query_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_qp_resp resp = {};
	struct ib_qp_init_attr *init;
	struct ib_uverbs_query_qp cmd;
	struct ib_qp_attr *attr;
	struct uv_uobj *obj;
	struct ib_qp *qp;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	init = kzalloc(sizeof(*init), GFP_KERNEL);
	if (!attr || !init) {
		ret = -ENOMEM;
		goto out;
	}
	qp = uv_get_object(attrs->ufile, &uv_type_qp, cmd.qp_handle, &obj, &ret);
	if (!qp)
		goto out;
	ret = ib_query_qp(qp, attr, cmd.attr_mask, init);
	uv_uobj_put(obj, false);
	if (ret) {
		uv_dbg(attrs->ufile, "QP handle %u: %d\n", cmd.qp_handle, ret);
		goto out;
	}

	resp.qp_state = attr->qp_state;
	resp.cur_qp_state = attr->cur_qp_state;
	resp.path_mtu = attr->path_mtu;
	resp.path_mig_state = attr->path_mig_state;
	resp.qkey = attr->qkey;
	resp.rq_psn = attr->rq_psn;
	resp.sq_psn = attr->sq_psn;
	resp.dest_qp_num = attr->dest_qp_num;
	resp.qp_access_flags = attr->qp_access_flags;
	resp.pkey_index = attr->pkey_index;
	resp.alt_pkey_index = attr->alt_pkey_index;
	resp.sq_draining = attr->sq_draining;
	resp.max_rd_atomic = attr->max_rd_atomic;
	resp.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	resp.min_rnr_timer = attr->min_rnr_timer;
	resp.port_num = attr->port_num;
	resp.timeout = attr->timeout;
	resp.retry_cnt = attr->retry_cnt;
	resp.rnr_retry = attr->rnr_retry;
	resp.alt_port_num = attr->alt_port_num;
	resp.alt_timeout = attr->alt_timeout;
	uv_copy_dest_to_user(&resp.dest, &attr->ah_attr);
	uv_copy_dest_to_user(&resp.alt_dest, &attr->alt_ah_attr);
	resp.max_send_wr = init->cap.max_send_wr;
	resp.max_recv_wr = init->cap.max_recv_wr;
	resp.max_send_sge = init->cap.max_send_sge;
	resp.max_recv_sge = init->cap.max_recv_sge;
	resp.max_inline_data = init->cap.max_inline_data;
	resp.sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	ret = uv_response(attrs, &resp, sizeof(resp));
out:
	kfree(attr);
	kfree(init);
	return ret;
}

/* the attributes an XRC QP type has no use for, dropped as 6.1 */
static int uv_modify_qp_mask(enum ib_qp_type type, int mask)
{
	switch (type) {
	case IB_QPT_XRC_INI:
		return mask & ~(IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	case IB_QPT_XRC_TGT:
		return mask & ~(IB_QP_MAX_QP_RD_ATOMIC | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY);
	default:
		return mask;
	}
}

/* the ports, states and Q_Key of a MODIFY_QP against 6.1's rules */
static int uv_modify_qp_check(struct ib_uverbs_file *ufile, struct uv_uobj *obj,
			      struct ib_uverbs_ex_modify_qp *cmd)
{
	struct ib_uverbs_modify_qp *b = &cmd->base;
	struct ib_qp *qp = obj->uobj.object;
	u32 mask = b->attr_mask;

	if ((mask & IB_QP_PORT) && !rdma_is_port_valid(qp->device, b->port_num))
		return -EINVAL;
	if (mask & IB_QP_AV) {
		if (!rdma_is_port_valid(qp->device, b->dest.port_num))
			return -EINVAL;
		if ((mask & IB_QP_STATE) && b->qp_state == IB_QPS_RTR) {
			/* INIT->RTR: the path's port is the one INIT set */
			if (obj->qp_port && b->dest.port_num != obj->qp_port)
				return -EINVAL;
		} else {
			/* SQD->SQD: a new primary path moves the QP's port too */
			if ((mask & IB_QP_PORT) && b->port_num != b->dest.port_num)
				return -EINVAL;
			if (!(mask & IB_QP_PORT)) {
				b->attr_mask |= IB_QP_PORT;
				b->port_num = b->dest.port_num;
			}
		}
	}
	if ((mask & IB_QP_ALT_PATH) &&
	    (!rdma_is_port_valid(qp->device, b->alt_port_num) ||
	     !rdma_is_port_valid(qp->device, b->alt_dest.port_num) ||
	     b->alt_port_num != b->alt_dest.port_num))
		return -EINVAL;
	if (((mask & IB_QP_CUR_STATE) && b->cur_qp_state > IB_QPS_ERR) ||
	    ((mask & IB_QP_STATE) && b->qp_state > IB_QPS_ERR))
		return -EINVAL;
	if ((mask & IB_QP_QKEY) && (b->qkey & UV_QP_PRIVILEGED_QKEY))
		return -EPERM;
	return 0;
}

static int uv_modify_qp(struct uverbs_attr_bundle *attrs, struct ib_uverbs_ex_modify_qp *cmd)
{
	struct ib_uverbs_modify_qp *b = &cmd->base;
	struct ib_qp_attr *attr;
	struct uv_uobj *obj;
	struct ib_qp *qp;
	u32 mask;
	int ret;

	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	if (!attr)
		return -ENOMEM;
	qp = uv_get_object(attrs->ufile, &uv_type_qp, b->qp_handle, &obj, &ret);
	if (!qp)
		goto out;
	ret = uv_modify_qp_check(attrs->ufile, obj, cmd);
	if (ret) {
		uv_dbg(attrs->ufile, "QP handle %u, mask 0x%x: %d\n", b->qp_handle,
		       b->attr_mask, ret);
		goto put;
	}
	mask = b->attr_mask;

	attr->qp_state = b->qp_state;
	attr->cur_qp_state = b->cur_qp_state;
	attr->path_mtu = b->path_mtu;
	attr->path_mig_state = b->path_mig_state;
	attr->qkey = b->qkey;
	attr->rq_psn = b->rq_psn;
	attr->sq_psn = b->sq_psn;
	attr->dest_qp_num = b->dest_qp_num;
	attr->qp_access_flags = b->qp_access_flags;
	attr->pkey_index = b->pkey_index;
	attr->en_sqd_async_notify = b->en_sqd_async_notify;
	attr->max_rd_atomic = b->max_rd_atomic;
	attr->max_dest_rd_atomic = b->max_dest_rd_atomic;
	attr->min_rnr_timer = b->min_rnr_timer;
	attr->port_num = b->port_num;
	attr->timeout = b->timeout;
	attr->retry_cnt = b->retry_cnt;
	attr->rnr_retry = b->rnr_retry;
	if (mask & IB_QP_ALT_PATH) {
		attr->alt_port_num = b->alt_port_num;
		attr->alt_timeout = b->alt_timeout;
		attr->alt_pkey_index = b->alt_pkey_index;
		uv_copy_dest_from_user(qp->device, &attr->alt_ah_attr, &b->alt_dest);
	}
	if (mask & IB_QP_RATE_LIMIT)
		attr->rate_limit = cmd->rate_limit;
	if (mask & IB_QP_AV)
		uv_copy_dest_from_user(qp->device, &attr->ah_attr, &b->dest);

	ret = ib_modify_qp_with_udata(qp, attr, uv_modify_qp_mask(qp->qp_type, mask),
				      &attrs->driver_udata);
	if (!ret && (mask & IB_QP_PORT))
		obj->qp_port = b->port_num;
	if (ret)
		uv_dbg(attrs->ufile, "QP handle %u, mask 0x%x: %d\n", b->qp_handle, mask, ret);
put:
	uv_uobj_put(obj, false);
out:
	kfree(attr);
	return ret;
}

int uv_cmd_modify_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_modify_qp cmd = {};
	int ret;

	ret = uv_request(attrs, &cmd.base, sizeof(cmd.base));
	if (ret)
		return ret;
	if (cmd.base.attr_mask & ~UV_QP_LEGACY_MASK) {
		uv_dbg(attrs->ufile, "attr_mask 0x%x\n", cmd.base.attr_mask);
		return -EOPNOTSUPP;
	}
	return uv_modify_qp(attrs, &cmd);
}

int uv_cmd_ex_modify_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_modify_qp_resp resp = {};
	struct ib_uverbs_ex_modify_qp cmd;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.base.attr_mask & ~UV_QP_EX_MASK) {
		uv_dbg(attrs->ufile, "attr_mask 0x%x\n", cmd.base.attr_mask);
		return -EOPNOTSUPP;
	}
	ret = uv_modify_qp(attrs, &cmd);
	if (ret)
		return ret;
	if (!attrs->ucore.outlen)
		return 0;
	resp.response_length = uv_response_length(attrs, sizeof(resp));
	return uv_response(attrs, &resp, sizeof(resp));
}

int uv_cmd_destroy_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_qp_resp resp = {};
	struct ib_uverbs_destroy_qp cmd;
	struct uv_uobj *obj;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uv_uobj_destroy(attrs, &uv_type_qp, cmd.qp_handle, &obj);
	if (ret)
		return ret;
	resp.events_reported = obj->async_reported;
	uv_uobj_free(obj);
	return uv_response(attrs, &resp, sizeof(resp));
}

/* the QP's attachment to the group (gid, lid) made through this handle, or NULL */
static struct uv_mcast *uv_mcast_find(struct uv_uobj *obj, const u8 *gid, u16 lid)
{
	struct uv_mcast *m;

	lockdep_assert_held(&obj->mcast_mutex);
	list_for_each_entry(m, &obj->mcast_list, list)
		if (m->lid == lid && !memcmp(m->gid.raw, gid, sizeof(m->gid.raw)))
			return m;
	return NULL;
}

/* attaching twice to one group is a no-op, as 6.1 */
int uv_cmd_attach_mcast(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_attach_mcast cmd;
	struct uv_uobj *obj;
	struct uv_mcast *m;
	struct ib_qp *qp;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	qp = uv_get_object(attrs->ufile, &uv_type_qp, cmd.qp_handle, &obj, &ret);
	if (!qp)
		return ret;
	mutex_lock(&obj->mcast_mutex);
	if (uv_mcast_find(obj, cmd.gid, cmd.mlid))
		goto out;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		ret = -ENOMEM;
		goto out;
	}
	m->lid = cmd.mlid;
	memcpy(m->gid.raw, cmd.gid, sizeof(cmd.gid));
	ret = ib_attach_mcast(qp, &m->gid, cmd.mlid);
	if (ret) {
		uv_dbg(attrs->ufile, "attach of QP 0x%x to LID 0x%x: %d\n", qp->qp_num,
		       cmd.mlid, ret);
		kfree(m);
	} else {
		list_add_tail(&m->list, &obj->mcast_list);
	}
out:
	mutex_unlock(&obj->mcast_mutex);
	uv_uobj_put(obj, false);
	return ret;
}

/* -EINVAL for a group the QP was not attached to through this handle */
int uv_cmd_detach_mcast(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_detach_mcast cmd;
	struct uv_mcast *found;
	struct uv_uobj *obj;
	struct ib_qp *qp;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	qp = uv_get_object(attrs->ufile, &uv_type_qp, cmd.qp_handle, &obj, &ret);
	if (!qp)
		return ret;
	mutex_lock(&obj->mcast_mutex);
	found = uv_mcast_find(obj, cmd.gid, cmd.mlid);
	if (!found) {
		uv_dbg(attrs->ufile, "QP 0x%x is not attached to LID 0x%x\n", qp->qp_num,
		       cmd.mlid);
		ret = -EINVAL;
		goto out;
	}
	ret = ib_detach_mcast(qp, &found->gid, cmd.mlid);
	if (!ret) {
		list_del(&found->list);
		kfree(found);
	}
out:
	mutex_unlock(&obj->mcast_mutex);
	uv_uobj_put(obj, false);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ib_uverbs: shared receive queues (CREATE_SRQ, CREATE_XSRQ, MODIFY_SRQ,
 * QUERY_SRQ, DESTROY_SRQ).
 */
#include "uverbs_priv.h"

/* -EBUSY while QPs use it */
static int uv_destroy_srq(struct uv_uobj *obj, struct uverbs_attr_bundle *attrs, bool cleanup)
{
	int ret = ib_destroy_srq_user(obj->uobj.object, &attrs->driver_udata);

	if (!ret && obj->xrcd_obj)
		atomic_dec(&obj->xrcd_obj->xrcd_users);
	return ret;
}

const struct uv_type uv_type_srq = { .name = "SRQ", .destroy = uv_destroy_srq };

/*
 * Both creates: an XRC SRQ names its domain and CQ; unknown handles
 * -EINVAL; sizes checked by ib_core and the driver.
 */
static int uv_create_srq(struct uverbs_attr_bundle *attrs, struct ib_uverbs_create_xsrq *cmd)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_uverbs_create_srq_resp resp = {};
	struct uv_uobj *obj, *pd_obj = NULL, *cq_obj = NULL, *x_obj = NULL;
	struct ib_srq_init_attr attr = {};
	struct ib_pd *pd;
	struct ib_srq *srq;
	int ret;

	obj = uv_uobj_alloc(attrs, &uv_type_srq);
	if (IS_ERR(obj))
		return PTR_ERR(obj);

	if (cmd->srq_type == IB_SRQT_TM)
		attr.ext.tag_matching.max_num_tags = cmd->max_num_tags;
	if (cmd->srq_type == IB_SRQT_XRC) {
		attr.ext.xrc.xrcd = uv_get_object(ufile, &uv_type_xrcd, cmd->xrcd_handle,
						  &x_obj, &ret);
		if (!attr.ext.xrc.xrcd) {
			ret = -EINVAL;
			goto err;
		}
	}
	if (ib_srq_has_cq(cmd->srq_type)) {
		attr.ext.cq = uv_get_object(ufile, &uv_type_cq, cmd->cq_handle, &cq_obj, &ret);
		if (!attr.ext.cq)
			goto err;
	}
	pd = uv_get_object(ufile, &uv_type_pd, cmd->pd_handle, &pd_obj, &ret);
	if (!pd)
		goto err;

	attr.event_handler = uv_srq_event_handler;
	attr.srq_context = obj;
	attr.srq_type = cmd->srq_type;
	attr.attr.max_wr = cmd->max_wr;
	attr.attr.max_sge = cmd->max_sge;
	attr.attr.srq_limit = cmd->srq_limit;
	obj->uobj.user_handle = cmd->user_handle;

	srq = ib_create_srq_user(pd, &attr, NULL, &attrs->driver_udata);
	if (IS_ERR(srq)) {
		ret = PTR_ERR(srq);
		uv_dbg(ufile, "SRQ of type %u, %u WRs refused: %d\n", cmd->srq_type,
		       cmd->max_wr, ret);
		goto err;
	}
	srq->uobject = &obj->uobj;
	obj->uobj.object = srq;

	resp.srq_handle = obj->uobj.id;
	resp.max_wr = attr.attr.max_wr;
	resp.max_sge = attr.attr.max_sge;
	if (cmd->srq_type == IB_SRQT_XRC)
		resp.srqn = srq->ext.xrc.srq_num;
	ret = uv_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_srq;
	if (x_obj) {
		obj->xrcd_obj = x_obj;
		atomic_inc(&x_obj->xrcd_users);
		uv_uobj_put(x_obj, false);
	}
	if (cq_obj)
		uv_uobj_put(cq_obj, false);
	uv_uobj_put(pd_obj, false);
	uv_uobj_commit(obj);
	return 0;

err_srq:
	ib_destroy_srq_user(srq, &attrs->driver_udata);
err:
	if (pd_obj)
		uv_uobj_put(pd_obj, false);
	if (cq_obj)
		uv_uobj_put(cq_obj, false);
	if (x_obj)
		uv_uobj_put(x_obj, false);
	uv_uobj_abort(obj);
	return ret;
}

int uv_cmd_create_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_create_xsrq x = {};
	struct ib_uverbs_create_srq cmd;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	x.user_handle = cmd.user_handle;
	x.srq_type = IB_SRQT_BASIC;
	x.pd_handle = cmd.pd_handle;
	x.max_wr = cmd.max_wr;
	x.max_sge = cmd.max_sge;
	x.srq_limit = cmd.srq_limit;
	return uv_create_srq(attrs, &x);
}

int uv_cmd_create_xsrq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_create_xsrq cmd;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	return uv_create_srq(attrs, &cmd);
}

int uv_cmd_modify_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_modify_srq cmd;
	struct ib_srq_attr attr = {};
	struct uv_uobj *obj;
	struct ib_srq *srq;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	srq = uv_get_object(attrs->ufile, &uv_type_srq, cmd.srq_handle, &obj, &ret);
	if (!srq)
		return ret;
	attr.max_wr = cmd.max_wr;
	attr.srq_limit = cmd.srq_limit;
	ret = ibstack_modify_srq_user(srq, &attr, cmd.attr_mask, &attrs->driver_udata);
	if (ret)
		uv_dbg(attrs->ufile, "SRQ handle %u, mask 0x%x: %d\n", cmd.srq_handle,
		       cmd.attr_mask, ret);
	uv_uobj_put(obj, false);
	return ret;
}

int uv_cmd_query_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_srq_resp resp = {};
	struct ib_uverbs_query_srq cmd;
	struct ib_srq_attr attr = {};
	struct uv_uobj *obj;
	struct ib_srq *srq;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	srq = uv_get_object(attrs->ufile, &uv_type_srq, cmd.srq_handle, &obj, &ret);
	if (!srq)
		return ret;
	ret = ib_query_srq(srq, &attr);
	uv_uobj_put(obj, false);
	if (ret)
		return ret;
	resp.max_wr = attr.max_wr;
	resp.max_sge = attr.max_sge;
	resp.srq_limit = attr.srq_limit;
	return uv_response(attrs, &resp, sizeof(resp));
}

int uv_cmd_destroy_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_srq_resp resp = {};
	struct ib_uverbs_destroy_srq cmd;
	struct uv_uobj *obj;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uv_uobj_destroy(attrs, &uv_type_srq, cmd.srq_handle, &obj);
	if (ret)
		return ret;
	resp.events_reported = obj->async_reported;
	uv_uobj_free(obj);
	return uv_response(attrs, &resp, sizeof(resp));
}

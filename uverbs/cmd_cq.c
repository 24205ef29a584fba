// SPDX-License-Identifier: GPL-2.0
/*
 * ib_uverbs: completion queues (legacy and extended CREATE_CQ, RESIZE_CQ,
 * DESTROY_CQ, the extended MODIFY_CQ).
 */
#include "uverbs_priv.h"

#define UV_CQ_MODERATE		BIT(0)	/* MODIFY_CQ's attr_mask: attr */

/* -EBUSY while QPs or SRQs use it */
static int uv_destroy_cq(struct uv_uobj *obj, struct uverbs_attr_bundle *attrs, bool cleanup)
{
	return ib_destroy_cq_user(obj->uobj.object, &attrs->driver_udata);
}

const struct uv_type uv_type_cq = { .name = "CQ", .destroy = uv_destroy_cq };

/*
 * Both CREATE_CQs: comp_vector below the device's (-EINVAL), comp_channel
 * -1 or a channel of this file (-EBADF).  resp_len: how much of resp the
 * command answers with.
 */
static int uv_create_cq(struct uverbs_attr_bundle *attrs, struct ib_uverbs_ex_create_cq *cmd,
			struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_len)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_cq_init_attr attr = {};
	struct uv_uobj *obj;
	struct ib_cq *cq;
	int ret;

	if (cmd->comp_vector >= ufile->ib_dev->num_comp_vectors) {
		uv_dbg(ufile, "comp_vector %u of %d\n", cmd->comp_vector,
		       ufile->ib_dev->num_comp_vectors);
		return -EINVAL;
	}
	obj = uv_uobj_alloc(attrs, &uv_type_cq);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	if (cmd->comp_channel >= 0) {
		obj->channel = uv_channel_get(ufile, cmd->comp_channel);
		if (IS_ERR(obj->channel)) {
			ret = PTR_ERR(obj->channel);
			obj->channel = NULL;
			goto err;
		}
	}
	obj->uobj.user_handle = cmd->user_handle;

	attr.cqe = cmd->cqe;
	attr.comp_vector = cmd->comp_vector;
	attr.flags = cmd->flags;
	cq = ibstack_create_cq_user(ufile->ib_dev, &attr, uv_comp_handler, uv_cq_event_handler,
				    obj, &obj->uobj, &attrs->driver_udata);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		uv_dbg(ufile, "CQ of %u entries refused: %d\n", cmd->cqe, ret);
		goto err;
	}
	obj->uobj.object = cq;

	resp->base.cq_handle = obj->uobj.id;
	resp->base.cqe = cq->cqe;
	resp->response_length = uv_response_length(attrs, sizeof(*resp));
	ret = uv_response(attrs, resp, resp_len);
	if (ret)
		goto err_cq;
	uv_uobj_commit(obj);
	return 0;

err_cq:
	ib_destroy_cq_user(cq, &attrs->driver_udata);
err:
	uv_uobj_abort(obj);	/* drops the channel */
	return ret;
}

int uv_cmd_create_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_create_cq_resp resp = {};
	struct ib_uverbs_ex_create_cq ex = {};
	struct ib_uverbs_create_cq cmd;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ex.user_handle = cmd.user_handle;
	ex.cqe = cmd.cqe;
	ex.comp_vector = cmd.comp_vector;
	ex.comp_channel = cmd.comp_channel;
	return uv_create_cq(attrs, &ex, &resp, sizeof(resp.base));
}

int uv_cmd_ex_create_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_create_cq_resp resp = {};
	struct ib_uverbs_ex_create_cq cmd;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (!ret)
		ret = uv_check_ex(attrs, cmd.comp_mask, 0, cmd.reserved);
	if (ret)
		return ret;
	return uv_create_cq(attrs, &cmd, &resp, sizeof(resp));
}

int uv_cmd_resize_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_resize_cq_resp resp = {};
	struct ib_uverbs_resize_cq cmd;
	struct uv_uobj *obj;
	struct ib_cq *cq;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	cq = uv_get_object(attrs->ufile, &uv_type_cq, cmd.cq_handle, &obj, &ret);
	if (!cq)
		return ret;
	ret = ibstack_resize_cq_user(cq, cmd.cqe, &attrs->driver_udata);
	if (ret) {
		uv_dbg(attrs->ufile, "resize to %u entries: %d\n", cmd.cqe, ret);
		goto out;
	}
	resp.cqe = cq->cqe;
	ret = uv_response(attrs, &resp, sizeof(resp));
out:
	uv_uobj_put(obj, false);
	return ret;
}

int uv_cmd_destroy_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_cq_resp resp = {};
	struct ib_uverbs_destroy_cq cmd;
	struct uv_uobj *obj;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uv_uobj_destroy(attrs, &uv_type_cq, cmd.cq_handle, &obj);
	if (ret)
		return ret;
	resp.comp_events_reported = obj->comp_reported;
	resp.async_events_reported = obj->async_reported;
	uv_uobj_free(obj);
	return uv_response(attrs, &resp, sizeof(resp));
}

/* moderation only: no mask or reserved set -EINVAL, other bits -EOPNOTSUPP */
int uv_cmd_ex_modify_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_modify_cq cmd;
	struct uv_uobj *obj;
	struct ib_cq *cq;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (!cmd.attr_mask || cmd.reserved) {
		uv_dbg(attrs->ufile, "attr_mask 0x%x, reserved 0x%x\n",
		       cmd.attr_mask, cmd.reserved);
		return -EINVAL;
	}
	if (cmd.attr_mask > UV_CQ_MODERATE) {
		uv_dbg(attrs->ufile, "attr_mask 0x%x\n", cmd.attr_mask);
		return -EOPNOTSUPP;
	}
	cq = uv_get_object(attrs->ufile, &uv_type_cq, cmd.cq_handle, &obj, &ret);
	if (!cq)
		return ret;
	ret = rdma_set_cq_moderation(cq, cmd.attr.cq_count, cmd.attr.cq_period);
	uv_uobj_put(obj, false);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ib_uverbs: the device commands: GET_CONTEXT, QUERY_DEVICE (legacy and
 * extended), QUERY_PORT, CREATE_COMP_CHANNEL.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include "uverbs_priv.h"

/* QUERY_PORT's flags and port_cap_flags bits (6.1's ib_user_ioctl_verbs.h) */
#define UV_QPF_GRH_REQUIRED	BIT(0)
#define UV_PCF_IP_BASED_GIDS	BIT(26)

/*
 * The context: the async event file (its fd in the response), the
 * driver's context (its response in the driver part), the handler of port
 * and device events.  Once per file (-EINVAL after).
 */
int uv_cmd_get_context(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_device *ib_dev = ufile->ib_dev;
	struct ib_uverbs_get_context_resp resp = {};
	struct ib_uverbs_get_context cmd;
	struct ib_ucontext *ucontext;
	struct uv_event_file *async;
	struct ib_umap_set *umaps;
	struct file *filp;
	int ret, fd;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	mutex_lock(&ufile->ctx_mutex);
	if (ufile->ucontext) {
		uv_dbg(ufile, "the file has a context already\n");
		ret = -EINVAL;
		goto out;
	}

	umaps = ufile->umaps;
	if (!umaps) {
		umaps = ibstack_umap_set_alloc();
		if (IS_ERR_OR_NULL(umaps)) {
			ret = umaps ? PTR_ERR(umaps) : -ENOMEM;
			goto out;
		}
		ufile->umaps = umaps;	/* the file's until it is freed */
	}

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	async = uv_event_file_new(ufile, true, &filp);
	if (IS_ERR(async)) {
		ret = PTR_ERR(async);
		goto err_fd;
	}

	ucontext = ibstack_alloc_ucontext(ib_dev, ufile, umaps, &attrs->driver_udata);
	if (IS_ERR(ucontext)) {
		ret = PTR_ERR(ucontext);
		uv_dbg(ufile, "the driver refused a context: %d\n", ret);
		goto err_file;
	}

	resp.async_fd = fd;
	resp.num_comp_vectors = ib_dev->num_comp_vectors;
	ret = uv_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_ctx;

	ufile->async_file = async;
	ufile->ucontext = ucontext;
	INIT_IB_EVENT_HANDLER(&ufile->event_handler, ib_dev, uv_port_event_handler);
	ib_register_event_handler(&ufile->event_handler);
	ufile->handler_on = true;
	fd_install(fd, filp);
	mutex_unlock(&ufile->ctx_mutex);
	return 0;

err_ctx:
	ibstack_dealloc_ucontext(ucontext);
err_file:
	uv_event_file_put(async);
	fput(filp);
err_fd:
	put_unused_fd(fd);
out:
	mutex_unlock(&ufile->ctx_mutex);
	return ret;
}

static void uv_fill_device(struct ib_device *ib_dev, struct ib_uverbs_query_device_resp *r)
{
	const struct ib_device_attr *a = &ib_dev->attrs;

	r->fw_ver = a->fw_ver;
	r->node_guid = ib_dev->node_guid;
	r->sys_image_guid = a->sys_image_guid;
	r->max_mr_size = a->max_mr_size;
	r->page_size_cap = a->page_size_cap;
	r->vendor_id = a->vendor_id;
	r->vendor_part_id = a->vendor_part_id;
	r->hw_ver = a->hw_ver;
	r->max_qp = a->max_qp;
	r->max_qp_wr = a->max_qp_wr;
	r->device_cap_flags = lower_32_bits(a->device_cap_flags);
	r->max_sge = min(a->max_send_sge, a->max_recv_sge);
	r->max_sge_rd = a->max_sge_rd;
	r->max_cq = a->max_cq;
	r->max_cqe = a->max_cqe;
	r->max_mr = a->max_mr;
	r->max_pd = a->max_pd;
	r->max_qp_rd_atom = a->max_qp_rd_atom;
	r->max_ee_rd_atom = a->max_ee_rd_atom;
	r->max_res_rd_atom = a->max_res_rd_atom;
	r->max_qp_init_rd_atom = a->max_qp_init_rd_atom;
	r->max_ee_init_rd_atom = a->max_ee_init_rd_atom;
	r->atomic_cap = a->atomic_cap;
	r->max_ee = a->max_ee;
	r->max_rdd = a->max_rdd;
	r->max_mw = a->max_mw;
	r->max_raw_ipv6_qp = a->max_raw_ipv6_qp;
	r->max_raw_ethy_qp = a->max_raw_ethy_qp;
	r->max_mcast_grp = a->max_mcast_grp;
	r->max_mcast_qp_attach = a->max_mcast_qp_attach;
	r->max_total_mcast_qp_attach = a->max_total_mcast_qp_attach;
	r->max_ah = a->max_ah;
	r->max_srq = a->max_srq;
	r->max_srq_wr = a->max_srq_wr;
	r->max_srq_sge = a->max_srq_sge;
	r->max_pkeys = a->max_pkeys;
	r->local_ca_ack_delay = a->local_ca_ack_delay;
	r->phys_port_cnt = ib_dev->phys_port_cnt;
}

int uv_cmd_query_device(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_device_resp resp = {};
	struct ib_uverbs_query_device cmd;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uv_fill_device(attrs->ufile->ib_dev, &resp);
	return uv_response(attrs, &resp, sizeof(resp));
}

/*
 * The extended query: as much of the response as the caller has room for
 * (response_length says how much), the driver's part after the core part
 * the caller sized (ops.query_device_user).
 */
int uv_cmd_ex_query_device(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *ib_dev = attrs->ufile->ib_dev;
	const struct ib_device_attr *a = &ib_dev->attrs;
	struct ib_uverbs_ex_query_device_resp resp = {};
	struct ib_uverbs_ex_query_device cmd;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (!ret)
		ret = uv_check_ex(attrs, cmd.comp_mask, 0, cmd.reserved);
	if (ret)
		return ret;
	resp.response_length = uv_response_length(attrs, sizeof(resp));

	if (ib_dev->ops.query_device_user) {
		ret = ib_dev->ops.query_device_user(ib_dev, &attrs->driver_udata);
		if (ret)
			return ret;
	}

	uv_fill_device(ib_dev, &resp.base);
	resp.odp_caps.general_caps = a->odp_caps.general_caps;
	resp.odp_caps.per_transport_caps.rc_odp_caps = a->odp_caps.per_transport_caps.rc_odp_caps;
	resp.odp_caps.per_transport_caps.uc_odp_caps = a->odp_caps.per_transport_caps.uc_odp_caps;
	resp.odp_caps.per_transport_caps.ud_odp_caps = a->odp_caps.per_transport_caps.ud_odp_caps;
	resp.xrc_odp_caps = a->odp_caps.per_transport_caps.xrc_odp_caps;
	resp.timestamp_mask = a->timestamp_mask;
	resp.hca_core_clock = a->hca_core_clock;
	resp.device_cap_flags_ex = a->device_cap_flags;
	resp.rss_caps.supported_qpts = a->rss_caps.supported_qpts;
	resp.rss_caps.max_rwq_indirection_tables = a->rss_caps.max_rwq_indirection_tables;
	resp.rss_caps.max_rwq_indirection_table_size = a->rss_caps.max_rwq_indirection_table_size;
	resp.max_wq_type_rq = a->max_wq_type_rq;
	resp.raw_packet_caps = a->raw_packet_caps;
	resp.tm_caps.max_rndv_hdr_size = a->tm_caps.max_rndv_hdr_size;
	resp.tm_caps.max_num_tags = a->tm_caps.max_num_tags;
	resp.tm_caps.max_ops = a->tm_caps.max_ops;
	resp.tm_caps.max_sge = a->tm_caps.max_sge;
	resp.tm_caps.flags = a->tm_caps.flags;
	resp.cq_moderation_caps.max_cq_moderation_count = a->cq_caps.max_cq_moderation_count;
	resp.cq_moderation_caps.max_cq_moderation_period = a->cq_caps.max_cq_moderation_period;
	resp.max_dm_size = a->max_dm_size;
	return uv_response(attrs, &resp, sizeof(resp));
}

/* -EINVAL for port 0 or one past the device's (ib_query_port()) */
int uv_cmd_query_port(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *ib_dev = attrs->ufile->ib_dev;
	struct ib_uverbs_query_port_resp resp = {};
	struct ib_uverbs_query_port cmd;
	struct ib_port_attr attr;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = ib_query_port(ib_dev, cmd.port_num, &attr);
	if (ret) {
		uv_dbg(attrs->ufile, "port %u: %d\n", cmd.port_num, ret);
		return ret;
	}

	resp.port_cap_flags = attr.port_cap_flags & ~UV_PCF_IP_BASED_GIDS;
	if (attr.ip_gids)
		resp.port_cap_flags |= UV_PCF_IP_BASED_GIDS;
	resp.max_msg_sz = attr.max_msg_sz;
	resp.bad_pkey_cntr = attr.bad_pkey_cntr;
	resp.qkey_viol_cntr = attr.qkey_viol_cntr;
	resp.gid_tbl_len = attr.gid_tbl_len;
	resp.pkey_tbl_len = attr.pkey_tbl_len;
	resp.lid = ib_lid_cpu16(attr.lid);
	resp.sm_lid = ib_lid_cpu16(attr.sm_lid);
	resp.state = attr.state;
	resp.max_mtu = attr.max_mtu;
	resp.active_mtu = attr.active_mtu;
	resp.lmc = attr.lmc;
	resp.max_vl_num = attr.max_vl_num;
	resp.sm_sl = attr.sm_sl;
	resp.subnet_timeout = attr.subnet_timeout;
	resp.init_type_reply = attr.init_type_reply;
	resp.active_width = attr.active_width;
	resp.active_speed = attr.active_speed;
	resp.phys_state = attr.phys_state;
	resp.link_layer = rdma_port_get_link_layer(ib_dev, cmd.port_num);
	if (rdma_is_grh_required(ib_dev, cmd.port_num))
		resp.flags |= UV_QPF_GRH_REQUIRED;
	return uv_response(attrs, &resp, sizeof(resp));
}

/*
 * A completion channel: an event file of the file's (its fd in the
 * response), closed with the file's other objects.
 */
int uv_cmd_create_comp_channel(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_uverbs_create_comp_channel_resp resp = {};
	struct ib_uverbs_create_comp_channel cmd;
	struct uv_event_file *ev;
	struct file *filp;
	int ret, fd;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	ev = uv_event_file_new(ufile, false, &filp);
	if (IS_ERR(ev)) {
		put_unused_fd(fd);
		return PTR_ERR(ev);
	}
	resp.fd = fd;
	ret = uv_response(attrs, &resp, sizeof(resp));
	if (ret) {
		uv_event_file_put(ev);
		fput(filp);
		put_unused_fd(fd);
		return ret;
	}
	spin_lock(&ufile->list_lock);
	list_add_tail(&ev->chan_list, &ufile->channels);
	spin_unlock(&ufile->list_lock);
	fd_install(fd, filp);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ib_uverbs: an open uverbsN.  write() carries the commands (the table
 * below: number, sizes, handler), mmap() goes to the driver through the
 * file's context; there is no ioctl() (libibverbs then uses write() for
 * everything).  Closing the file, and the device's removal, destroy
 * everything the file created (uv_file_cleanup()).
 */
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <ibstack/compat.h>
#include "uverbs_priv.h"

/* --- the commands ---------------------------------------------------------- */

/*
 * A write() command: the smallest request and response (core parts; for
 * extended commands up to the last member 6.1 requires), whether the
 * request starts with the response address (legacy), and whether the
 * driver has a part (legacy; extended ones always may).
 */
struct uv_cmd {
	int		(*handler)(struct uverbs_attr_bundle *attrs);
	u16		req_size;
	u16		resp_size;
	u8		has_resp:1;
	u8		has_udata:1;
};

#define UV_CMD(num, fn, req, resp, udata)			\
	[IB_USER_VERBS_CMD_##num] = {				\
		.handler = fn, .req_size = sizeof(req),		\
		.resp_size = sizeof(resp), .has_resp = 1,	\
		.has_udata = udata }
#define UV_CMD_IN(num, fn, req, udata)				\
	[IB_USER_VERBS_CMD_##num] = {				\
		.handler = fn, .req_size = sizeof(req),		\
		.has_udata = udata }
#define UV_EX(num, fn, req, req_last, resp, resp_last)		\
	[IB_USER_VERBS_EX_CMD_##num] = {			\
		.handler = fn,					\
		.req_size = offsetofend(req, req_last),		\
		.resp_size = offsetofend(resp, resp_last),	\
		.has_resp = 1, .has_udata = 1 }
#define UV_EX_IN(num, fn, req)					\
	[IB_USER_VERBS_EX_CMD_##num] = {			\
		.handler = fn, .req_size = sizeof(req),		\
		.has_udata = 1 }

static const struct uv_cmd uv_cmds[] = {
	UV_CMD(GET_CONTEXT, uv_cmd_get_context, struct ib_uverbs_get_context,
	       struct ib_uverbs_get_context_resp, 1),
	UV_CMD(QUERY_DEVICE, uv_cmd_query_device, struct ib_uverbs_query_device,
	       struct ib_uverbs_query_device_resp, 0),
	UV_CMD(QUERY_PORT, uv_cmd_query_port, struct ib_uverbs_query_port,
	       struct ib_uverbs_query_port_resp, 0),
	UV_CMD(ALLOC_PD, uv_cmd_alloc_pd, struct ib_uverbs_alloc_pd,
	       struct ib_uverbs_alloc_pd_resp, 1),
	UV_CMD_IN(DEALLOC_PD, uv_cmd_dealloc_pd, struct ib_uverbs_dealloc_pd, 0),
	UV_CMD(REG_MR, uv_cmd_reg_mr, struct ib_uverbs_reg_mr,
	       struct ib_uverbs_reg_mr_resp, 1),
	UV_CMD(REREG_MR, uv_cmd_rereg_mr, struct ib_uverbs_rereg_mr,
	       struct ib_uverbs_rereg_mr_resp, 1),
	UV_CMD_IN(DEREG_MR, uv_cmd_dereg_mr, struct ib_uverbs_dereg_mr, 0),
	UV_CMD(ALLOC_MW, uv_cmd_alloc_mw, struct ib_uverbs_alloc_mw,
	       struct ib_uverbs_alloc_mw_resp, 1),
	UV_CMD_IN(DEALLOC_MW, uv_cmd_dealloc_mw, struct ib_uverbs_dealloc_mw, 0),
	UV_CMD(CREATE_COMP_CHANNEL, uv_cmd_create_comp_channel,
	       struct ib_uverbs_create_comp_channel,
	       struct ib_uverbs_create_comp_channel_resp, 0),
	UV_CMD(CREATE_CQ, uv_cmd_create_cq, struct ib_uverbs_create_cq,
	       struct ib_uverbs_create_cq_resp, 1),
	UV_CMD(RESIZE_CQ, uv_cmd_resize_cq, struct ib_uverbs_resize_cq,
	       struct ib_uverbs_resize_cq_resp, 1),
	UV_CMD(DESTROY_CQ, uv_cmd_destroy_cq, struct ib_uverbs_destroy_cq,
	       struct ib_uverbs_destroy_cq_resp, 0),
	UV_CMD(CREATE_QP, uv_cmd_create_qp, struct ib_uverbs_create_qp,
	       struct ib_uverbs_create_qp_resp, 1),
	UV_CMD(QUERY_QP, uv_cmd_query_qp, struct ib_uverbs_query_qp,
	       struct ib_uverbs_query_qp_resp, 0),
	UV_CMD_IN(MODIFY_QP, uv_cmd_modify_qp, struct ib_uverbs_modify_qp, 0),
	UV_CMD(DESTROY_QP, uv_cmd_destroy_qp, struct ib_uverbs_destroy_qp,
	       struct ib_uverbs_destroy_qp_resp, 0),
	UV_CMD_IN(ATTACH_MCAST, uv_cmd_attach_mcast, struct ib_uverbs_attach_mcast, 0),
	UV_CMD_IN(DETACH_MCAST, uv_cmd_detach_mcast, struct ib_uverbs_detach_mcast, 0),
	UV_CMD(CREATE_SRQ, uv_cmd_create_srq, struct ib_uverbs_create_srq,
	       struct ib_uverbs_create_srq_resp, 1),
	UV_CMD_IN(MODIFY_SRQ, uv_cmd_modify_srq, struct ib_uverbs_modify_srq, 1),
	UV_CMD(QUERY_SRQ, uv_cmd_query_srq, struct ib_uverbs_query_srq,
	       struct ib_uverbs_query_srq_resp, 0),
	UV_CMD(DESTROY_SRQ, uv_cmd_destroy_srq, struct ib_uverbs_destroy_srq,
	       struct ib_uverbs_destroy_srq_resp, 0),
	UV_CMD(OPEN_XRCD, uv_cmd_open_xrcd, struct ib_uverbs_open_xrcd,
	       struct ib_uverbs_open_xrcd_resp, 1),
	UV_CMD_IN(CLOSE_XRCD, uv_cmd_close_xrcd, struct ib_uverbs_close_xrcd, 0),
	UV_CMD(CREATE_XSRQ, uv_cmd_create_xsrq, struct ib_uverbs_create_xsrq,
	       struct ib_uverbs_create_srq_resp, 1),
	UV_CMD(OPEN_QP, uv_cmd_open_qp, struct ib_uverbs_open_qp,
	       struct ib_uverbs_create_qp_resp, 1),
};

static const struct uv_cmd uv_ex_cmds[] = {
	UV_EX(QUERY_DEVICE, uv_cmd_ex_query_device, struct ib_uverbs_ex_query_device,
	      reserved, struct ib_uverbs_ex_query_device_resp, response_length),
	UV_EX(CREATE_CQ, uv_cmd_ex_create_cq, struct ib_uverbs_ex_create_cq,
	      reserved, struct ib_uverbs_ex_create_cq_resp, response_length),
	UV_EX(CREATE_QP, uv_cmd_ex_create_qp, struct ib_uverbs_ex_create_qp,
	      comp_mask, struct ib_uverbs_ex_create_qp_resp, response_length),
	UV_EX(MODIFY_QP, uv_cmd_ex_modify_qp, struct ib_uverbs_ex_modify_qp,
	      base, struct ib_uverbs_ex_modify_qp_resp, response_length),
	UV_EX_IN(MODIFY_CQ, uv_cmd_ex_modify_cq, struct ib_uverbs_ex_modify_cq),
};

/* --- the core parts of a command -------------------------------------------- */

/*
 * The request into req (len bytes): a shorter one is zero-filled; a
 * longer one must have zeroes beyond what we know (-EOPNOTSUPP), as 6.1.
 */
int uv_request(struct uverbs_attr_bundle *attrs, void *req, size_t len)
{
	size_t n = min(attrs->ucore.inlen, len);

	if (copy_from_user(req, attrs->ucore.inbuf, n))
		return -EFAULT;
	if (n < len)
		memset(req + n, 0, len - n);
	if (attrs->ucore.inlen > len &&
	    !ib_is_buffer_cleared(attrs->ucore.inbuf + len, attrs->ucore.inlen - len)) {
		uv_dbg(attrs->ufile, "unknown non-zero request bytes\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* an extended request's comp_mask bits outside known, or reserved set: -EINVAL, as 6.1 */
int uv_check_ex(struct uverbs_attr_bundle *attrs, u32 comp_mask, u32 known, u32 reserved)
{
	if ((comp_mask & ~known) || reserved) {
		uv_dbg(attrs->ufile, "comp_mask 0x%x, reserved 0x%x\n", comp_mask, reserved);
		return -EINVAL;
	}
	return 0;
}

/* the bytes of a len-byte response the caller has room for */
size_t uv_response_length(struct uverbs_attr_bundle *attrs, size_t len)
{
	return min(attrs->ucore.outlen, len);
}

/* The response, as much as fits; a larger buffer's rest is zeroed. */
int uv_response(struct uverbs_attr_bundle *attrs, const void *resp, size_t len)
{
	size_t n = uv_response_length(attrs, len);

	if (copy_to_user(attrs->ucore.outbuf, resp, n))
		return -EFAULT;
	if (attrs->ucore.outlen > n &&
	    clear_user(attrs->ucore.outbuf + n, attrs->ucore.outlen - n))
		return -EFAULT;
	return 0;
}

static void uv_udata(struct ib_udata *udata, const void __user *in, void __user *out,
		     size_t inlen, size_t outlen)
{
	udata->inbuf = inlen ? in : NULL;
	udata->outbuf = outlen ? out : NULL;
	udata->inlen = inlen;
	udata->outlen = outlen;
}

/* The sizes of the header against the command's (6.1's order and errno). */
static int uv_check_hdr(const struct ib_uverbs_cmd_hdr *hdr,
			const struct ib_uverbs_ex_cmd_hdr *ex, size_t count,
			const struct uv_cmd *cmd)
{
	if (ex) {
		count -= sizeof(*hdr) + sizeof(*ex);
		/*
		 * No minimum sizes: 6.1 keeps none for the extended commands
		 * (a short request is zero-extended, a short response cut)
		 */
		if ((size_t)(hdr->in_words + ex->provider_in_words) * 8 != count)
			return -EINVAL;
		if (ex->cmd_hdr_reserved)
			return -EINVAL;
		if (ex->response) {
			if (!hdr->out_words && !ex->provider_out_words)
				return -EINVAL;
			if (!access_ok(u64_to_user_ptr(ex->response),
				       (hdr->out_words + ex->provider_out_words) * 8))
				return -EFAULT;
		} else if (hdr->out_words || ex->provider_out_words) {
			return -EINVAL;
		}
		return 0;
	}
	if (hdr->in_words * 4 != count)
		return -EINVAL;
	if (count < cmd->req_size + sizeof(*hdr))
		return -ENOSPC;
	if (hdr->out_words * 4 < cmd->resp_size)
		return -ENOSPC;
	return 0;
}

/* The bundle of a legacy command: core and driver parts apart. */
static int uv_legacy_bundle(struct uverbs_attr_bundle *attrs, const struct uv_cmd *cmd,
			    const struct ib_uverbs_cmd_hdr *hdr, const char __user *buf)
{
	size_t in_len = hdr->in_words * 4 - sizeof(*hdr);
	size_t out_len = hdr->out_words * 4;
	u64 response = 0;

	if (cmd->has_resp && get_user(response, (const u64 __user *)buf))
		return -EFAULT;
	if (cmd->has_udata) {
		uv_udata(&attrs->driver_udata, buf + cmd->req_size,
			 u64_to_user_ptr(response + cmd->resp_size),
			 in_len - cmd->req_size,
			 cmd->has_resp ? out_len - cmd->resp_size : 0);
		in_len = cmd->req_size;
		out_len = cmd->resp_size;
	}
	uv_udata(&attrs->ucore, buf, u64_to_user_ptr(response), in_len,
		 cmd->has_resp ? out_len : 0);
	return 0;
}

static ssize_t uv_write(struct file *filp, const char __user *buf, size_t count,
			loff_t *pos)
{
	struct ib_uverbs_file *ufile = filp->private_data;
	struct uverbs_attr_bundle attrs = { .ufile = ufile };
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
	struct ib_uverbs_cmd_hdr hdr;
	const struct uv_cmd *cmd = NULL;
	bool is_ex;
	u32 num;
	int ret;

	/* the credentials are the opener's: no write() through a setuid helper */
	if (filp->f_cred != current_cred()) {
		pr_err_once("ib_uverbs: write() by %s (%d) with other credentials than the opener's\n",
			    current->comm, task_tgid_vnr(current));
		return -EACCES;
	}
	if (count < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;

	is_ex = hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED;
	num = hdr.command & IB_USER_VERBS_CMD_COMMAND_MASK;
	if (hdr.command & ~(IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_CMD_COMMAND_MASK)) {
		uv_dbg(ufile, "command 0x%x: unknown flags\n", hdr.command);
		return -EINVAL;
	}
	if (is_ex && num < ARRAY_SIZE(uv_ex_cmds))
		cmd = &uv_ex_cmds[num];
	else if (!is_ex && num < ARRAY_SIZE(uv_cmds))
		cmd = &uv_cmds[num];
	if (!cmd || !cmd->handler) {
		uv_dbg(ufile, "command 0x%x not supported\n", hdr.command);
		return -EOPNOTSUPP;
	}

	if (is_ex) {
		if (count < sizeof(hdr) + sizeof(ex_hdr))
			return -EINVAL;
		if (copy_from_user(&ex_hdr, buf + sizeof(hdr), sizeof(ex_hdr)))
			return -EFAULT;
	}
	ret = uv_check_hdr(&hdr, is_ex ? &ex_hdr : NULL, count, cmd);
	if (ret) {
		uv_dbg(ufile, "command 0x%x: %zu bytes, in %u out %u words: %d\n",
		       hdr.command, count, hdr.in_words, hdr.out_words, ret);
		return ret;
	}

	buf += sizeof(hdr);
	if (is_ex) {
		buf += sizeof(ex_hdr);
		uv_udata(&attrs.ucore, buf, u64_to_user_ptr(ex_hdr.response),
			 hdr.in_words * 8, hdr.out_words * 8);
		uv_udata(&attrs.driver_udata, buf + attrs.ucore.inlen,
			 u64_to_user_ptr(ex_hdr.response) + attrs.ucore.outlen,
			 ex_hdr.provider_in_words * 8, ex_hdr.provider_out_words * 8);
	} else {
		ret = uv_legacy_bundle(&attrs, cmd, &hdr, buf);
		if (ret)
			return ret;
	}

	down_read(&ufile->hw_rwsem);
	if (!ufile->ib_dev) {
		ret = -EIO;
	} else if (!ufile->ucontext && cmd->handler != uv_cmd_get_context) {
		uv_dbg(ufile, "command %u before GET_CONTEXT\n", num);
		ret = -EINVAL;
	} else {
		attrs.context = ufile->ucontext;
		ret = cmd->handler(&attrs);
	}
	up_read(&ufile->hw_rwsem);
	return ret ? ret : count;
}

/* --- open, mmap, close ---------------------------------------------------- */

static int uv_open(struct inode *inode, struct file *filp)
{
	struct uv_device *uvdev = container_of(inode->i_cdev, struct uv_device, cdev);
	struct ib_uverbs_file *ufile;
	int ret = 0;

	mutex_lock(&uvdev->lists_mutex);
	if (!uvdev->ib_dev) {
		ret = -ENXIO;
		goto out;
	}
	ufile = kzalloc(sizeof(*ufile), GFP_KERNEL);
	if (!ufile) {
		ret = -ENOMEM;
		goto out;
	}
	get_device(&uvdev->dev);
	ufile->uvdev = uvdev;
	ufile->ib_dev = uvdev->ib_dev;
	init_rwsem(&ufile->hw_rwsem);
	mutex_init(&ufile->ctx_mutex);
	xa_init_flags(&ufile->objects, XA_FLAGS_ALLOC);
	spin_lock_init(&ufile->list_lock);
	INIT_LIST_HEAD(&ufile->obj_list);
	INIT_LIST_HEAD(&ufile->channels);
	list_add_tail(&ufile->dev_list, &uvdev->file_list);
	filp->private_data = ufile;
	stream_open(inode, filp);
out:
	mutex_unlock(&uvdev->lists_mutex);
	return ret;
}

static int uv_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct ib_uverbs_file *ufile = filp->private_data;
	int ret;

	/*
	 * mmap() runs under the process's mmap_lock, which the file's
	 * cleanup takes (revoking mappings) while it holds hw_rwsem for
	 * writing: never wait for hw_rwsem here.  It is only held for
	 * writing while the file is torn down (device removal), so a
	 * failed trylock is that teardown: -EIO, as after it.
	 */
	if (!down_read_trylock(&ufile->hw_rwsem))
		return -EIO;
	if (!ufile->ib_dev)
		ret = -EIO;
	else if (!ufile->ucontext)
		ret = -EINVAL;
	else if (!ufile->ib_dev->ops.mmap)
		ret = -EOPNOTSUPP;
	else
		ret = ufile->ib_dev->ops.mmap(ufile->ucontext, vma);
	up_read(&ufile->hw_rwsem);
	return ret;
}

/*
 * Destroys everything the file holds on the device, once: by close, or
 * by the device's removal (device_gone: the async file first gets
 * IB_EVENT_DEVICE_FATAL, the mappings are revoked before the objects go,
 * the driver lets go of the context).  Waits for the commands running
 * (hw_rwsem); later ones get -EIO.
 */
void uv_file_cleanup(struct ib_uverbs_file *ufile, bool device_gone)
{
	struct uverbs_attr_bundle attrs = { .ufile = ufile };
	struct uv_event_file *ev, *next;
	LIST_HEAD(channels);

	down_write(&ufile->hw_rwsem);
	if (ufile->cleaned)
		goto out;
	ufile->cleaned = true;

	if (ufile->handler_on) {
		ib_unregister_event_handler(&ufile->event_handler);
		ufile->handler_on = false;
	}
	if (device_gone && ufile->async_file)
		uv_async_event(ufile, 0, IB_EVENT_DEVICE_FATAL, NULL);

	/*
	 * The program's doorbells go first (as 6.1's disassociate does): once
	 * the mappings are revoked it cannot ring a queue being destroyed.
	 * On close nothing is mapped any more (a mapping holds the file).
	 */
	if (device_gone && ufile->umaps)
		ibstack_umap_revoke(ufile->umaps);

	attrs.context = ufile->ucontext;
	uv_destroy_all(ufile, &attrs);

	if (ufile->ucontext) {
		if (device_gone)
			ibstack_disassociate_ucontext(ufile->ucontext);
		ibstack_dealloc_ucontext(ufile->ucontext);
		ufile->ucontext = NULL;
	}

	/* readers of the event files see -EIO once they are empty */
	spin_lock(&ufile->list_lock);
	list_splice_init(&ufile->channels, &channels);
	spin_unlock(&ufile->list_lock);
	list_for_each_entry_safe(ev, next, &channels, chan_list) {
		list_del_init(&ev->chan_list);
		uv_event_file_close(ev);
		uv_event_file_put(ev);
	}
	if (ufile->async_file) {
		uv_event_file_close(ufile->async_file);
		uv_event_file_put(ufile->async_file);
		ufile->async_file = NULL;
	}
	ufile->ib_dev = NULL;
out:
	up_write(&ufile->hw_rwsem);
}

static int uv_close(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_file *ufile = filp->private_data;
	struct uv_device *uvdev = ufile->uvdev;

	uv_file_cleanup(ufile, false);

	mutex_lock(&uvdev->lists_mutex);
	list_del(&ufile->dev_list);
	mutex_unlock(&uvdev->lists_mutex);

	WARN_ON(!xa_empty(&ufile->objects));
	xa_destroy(&ufile->objects);
	if (ufile->umaps)
		ibstack_umap_set_put(ufile->umaps);
	mutex_destroy(&ufile->ctx_mutex);
	kfree(ufile);
	put_device(&uvdev->dev);
	return 0;
}

const struct file_operations uv_fops = {
	.owner		= THIS_MODULE,
	.open		= uv_open,
	.release	= uv_close,
	.write		= uv_write,
	.mmap		= uv_mmap,
	.llseek		= IBSTACK_NO_LLSEEK,
};

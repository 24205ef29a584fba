// SPDX-License-Identifier: GPL-2.0
/*
 * ib_uverbs: protection domains, memory regions and windows, XRC domains
 * (shared by the inode of a file, per device).  No address handles: mlx4
 * builds its UD address vectors in user space, and 6.1 offers CREATE_AH
 * and DESTROY_AH only to a driver with create_user_ah, which mlx4_ib has
 * not (both answer -EOPNOTSUPP, file.c).
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include "uverbs_priv.h"

/* --- PDs -------------------------------------------------------------------- */

/* -EBUSY while MRs, MWs, QPs or SRQs use it */
static int uv_destroy_pd(struct uv_uobj *obj, struct uverbs_attr_bundle *attrs, bool cleanup)
{
	return ib_dealloc_pd_user(obj->uobj.object, &attrs->driver_udata);
}

const struct uv_type uv_type_pd = { .name = "PD", .destroy = uv_destroy_pd };

int uv_cmd_alloc_pd(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct ib_uverbs_alloc_pd cmd;
	struct uv_uobj *obj;
	struct ib_pd *pd;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	obj = uv_uobj_alloc(attrs, &uv_type_pd);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	pd = ibstack_alloc_pd_user(attrs->ufile->ib_dev, &obj->uobj, &attrs->driver_udata);
	if (IS_ERR(pd)) {
		ret = PTR_ERR(pd);
		goto err;
	}
	obj->uobj.object = pd;
	resp.pd_handle = obj->uobj.id;
	ret = uv_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_pd;
	uv_uobj_commit(obj);
	return 0;

err_pd:
	ib_dealloc_pd_user(pd, &attrs->driver_udata);
err:
	uv_uobj_abort(obj);
	return ret;
}

int uv_cmd_dealloc_pd(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_dealloc_pd cmd;
	struct uv_uobj *obj;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uv_uobj_destroy(attrs, &uv_type_pd, cmd.pd_handle, &obj);
	if (ret)
		return ret;
	uv_uobj_free(obj);
	return 0;
}

/* --- MRs -------------------------------------------------------------------- */

static int uv_destroy_mr(struct uv_uobj *obj, struct uverbs_attr_bundle *attrs, bool cleanup)
{
	return ib_dereg_mr_user(obj->uobj.object, &attrs->driver_udata);
}

const struct uv_type uv_type_mr = { .name = "MR", .destroy = uv_destroy_mr };

/* start and hca_va must have the same offset in their page, as 6.1 */
int uv_cmd_reg_mr(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ib_uverbs_reg_mr cmd;
	struct uv_uobj *obj, *pd_obj;
	struct ib_pd *pd;
	struct ib_mr *mr;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if ((cmd.start & ~PAGE_MASK) != (cmd.hca_va & ~PAGE_MASK)) {
		uv_dbg(ufile, "start 0x%llx and hca_va 0x%llx differ in their page offset\n",
		       cmd.start, cmd.hca_va);
		return -EINVAL;
	}
	ret = ib_check_mr_access(ufile->ib_dev, cmd.access_flags);
	if (ret) {
		uv_dbg(ufile, "access 0x%x refused\n", cmd.access_flags);
		return ret;
	}

	obj = uv_uobj_alloc(attrs, &uv_type_mr);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	pd = uv_get_object(ufile, &uv_type_pd, cmd.pd_handle, &pd_obj, &ret);
	if (!pd)
		goto err;
	mr = ibstack_reg_user_mr(pd, cmd.start, cmd.length, cmd.hca_va, cmd.access_flags,
				 &obj->uobj, &attrs->driver_udata);
	if (IS_ERR(mr)) {
		ret = PTR_ERR(mr);
		goto err_pd;
	}
	obj->uobj.object = mr;
	resp.mr_handle = obj->uobj.id;
	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	ret = uv_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_mr;
	uv_uobj_put(pd_obj, false);
	uv_uobj_commit(obj);
	return 0;

err_mr:
	ib_dereg_mr_user(mr, &attrs->driver_udata);
err_pd:
	uv_uobj_put(pd_obj, false);
err:
	uv_uobj_abort(obj);
	return ret;
}

/*
 * In place: the range (TRANS), the PD (PD), the rights (ACCESS); no
 * flags: -EINVAL, unknown ones: -EOPNOTSUPP.  The MR is held exclusively.
 */
int uv_cmd_rereg_mr(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_uverbs_rereg_mr_resp resp = {};
	struct uv_uobj *obj, *pd_obj = NULL;
	struct ib_uverbs_rereg_mr cmd;
	struct ib_pd *pd = NULL;
	struct ib_mr *mr;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (!cmd.flags) {
		uv_dbg(ufile, "no flags\n");
		return -EINVAL;
	}
	if (cmd.flags & ~IB_MR_REREG_SUPPORTED) {
		uv_dbg(ufile, "flags 0x%x\n", cmd.flags);
		return -EOPNOTSUPP;
	}
	if ((cmd.flags & IB_MR_REREG_TRANS) &&
	    (cmd.start & ~PAGE_MASK) != (cmd.hca_va & ~PAGE_MASK)) {
		uv_dbg(ufile, "start and hca_va differ in their page offset\n");
		return -EINVAL;
	}

	obj = uv_uobj_get(ufile, &uv_type_mr, cmd.mr_handle, true);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	mr = obj->uobj.object;
	if (cmd.flags & IB_MR_REREG_ACCESS) {
		ret = ib_check_mr_access(mr->device, cmd.access_flags);
		if (ret) {
			uv_dbg(ufile, "access 0x%x refused\n", cmd.access_flags);
			goto out;
		}
	}
	if (cmd.flags & IB_MR_REREG_PD) {
		pd = uv_get_object(ufile, &uv_type_pd, cmd.pd_handle, &pd_obj, &ret);
		if (!pd)
			goto out;
	}
	ret = ibstack_rereg_user_mr(mr, cmd.flags, cmd.start, cmd.length, cmd.hca_va,
				    cmd.access_flags, pd ? pd : mr->pd, &attrs->driver_udata);
	if (ret)
		goto out;
	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	ret = uv_response(attrs, &resp, sizeof(resp));
out:
	if (pd_obj)
		uv_uobj_put(pd_obj, false);
	uv_uobj_put(obj, true);
	return ret;
}

int uv_cmd_dereg_mr(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_dereg_mr cmd;
	struct uv_uobj *obj;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uv_uobj_destroy(attrs, &uv_type_mr, cmd.mr_handle, &obj);
	if (ret)
		return ret;
	uv_uobj_free(obj);
	return 0;
}

/* --- MWs -------------------------------------------------------------------- */

static int uv_destroy_mw(struct uv_uobj *obj, struct uverbs_attr_bundle *attrs, bool cleanup)
{
	return ibstack_dealloc_mw(obj->uobj.object);
}

const struct uv_type uv_type_mw = { .name = "MW", .destroy = uv_destroy_mw };

int uv_cmd_alloc_mw(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ib_uverbs_alloc_mw cmd;
	struct uv_uobj *obj, *pd_obj;
	struct ib_pd *pd;
	struct ib_mw *mw;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	obj = uv_uobj_alloc(attrs, &uv_type_mw);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	pd = uv_get_object(ufile, &uv_type_pd, cmd.pd_handle, &pd_obj, &ret);
	if (!pd)
		goto err;
	if (cmd.mw_type != IB_MW_TYPE_1 && cmd.mw_type != IB_MW_TYPE_2) {
		uv_dbg(ufile, "window type %u\n", cmd.mw_type);
		ret = -EINVAL;
		goto err_pd;
	}
	mw = ibstack_alloc_mw_user(pd, cmd.mw_type, &obj->uobj, &attrs->driver_udata);
	if (IS_ERR(mw)) {
		ret = PTR_ERR(mw);
		goto err_pd;
	}
	obj->uobj.object = mw;
	resp.mw_handle = obj->uobj.id;
	resp.rkey = mw->rkey;
	ret = uv_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_mw;
	uv_uobj_put(pd_obj, false);
	uv_uobj_commit(obj);
	return 0;

err_mw:
	ibstack_dealloc_mw(mw);
err_pd:
	uv_uobj_put(pd_obj, false);
err:
	uv_uobj_abort(obj);
	return ret;
}

int uv_cmd_dealloc_mw(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_dealloc_mw cmd;
	struct uv_uobj *obj;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uv_uobj_destroy(attrs, &uv_type_mw, cmd.mw_handle, &obj);
	if (ret)
		return ret;
	uv_uobj_free(obj);
	return 0;
}

/* --- XRC domains ------------------------------------------------------------ */

static struct uv_xrcd_ent *uv_xrcd_find(struct uv_device *uvdev, struct inode *inode)
{
	struct uv_xrcd_ent *ent;

	lockdep_assert_held(&uvdev->xrcd_mutex);
	list_for_each_entry(ent, &uvdev->xrcd_list, list)
		if (ent->inode == inode)
			return ent;
	return NULL;
}

/*
 * A handle gives up its domain: the domain itself goes with its last
 * handle (a private one at once).  -EBUSY while QPs or SRQs made through
 * this handle exist, as 6.1.
 */
static int uv_destroy_xrcd(struct uv_uobj *obj, struct uverbs_attr_bundle *attrs,
			   bool cleanup)
{
	struct uv_device *uvdev = attrs->ufile->uvdev;
	struct uv_xrcd_ent *ent = obj->xent;
	int ret = 0;

	if (atomic_read(&obj->xrcd_users))
		return -EBUSY;
	if (!ent)
		return ib_dealloc_xrcd_user(obj->uobj.object, &attrs->driver_udata);

	mutex_lock(&uvdev->xrcd_mutex);
	if (ent->refs == 1) {
		ret = ib_dealloc_xrcd_user(ent->xrcd, &attrs->driver_udata);
		if (!ret) {
			list_del(&ent->list);
			iput(ent->inode);
			kfree(ent);
		}
	} else {
		ent->refs--;
	}
	mutex_unlock(&uvdev->xrcd_mutex);
	return ret;
}

const struct uv_type uv_type_xrcd = { .name = "XRCD", .destroy = uv_destroy_xrcd };

/*
 * fd -1: a private domain.  Else the domain of the fd's inode on this
 * device: made with O_CREAT (-EAGAIN without it), shared otherwise
 * (-EINVAL with O_EXCL when it exists); a bad fd -EBADF.
 */
int uv_cmd_open_xrcd(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct uv_device *uvdev = ufile->uvdev;
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct uv_xrcd_ent *ent = NULL, *new_ent = NULL;
	struct ib_uverbs_open_xrcd cmd;
	struct inode *inode = NULL;
	struct ib_xrcd *xrcd;
	struct uv_uobj *obj;
	struct file *f;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	mutex_lock(&uvdev->xrcd_mutex);
	if (cmd.fd != -1) {
		f = fget(cmd.fd);
		if (!f) {
			uv_dbg(ufile, "fd %d\n", cmd.fd);
			ret = -EBADF;
			goto out;
		}
		inode = igrab(file_inode(f));
		fput(f);
		if (!inode) {
			ret = -EBADF;
			goto out;
		}
		ent = uv_xrcd_find(uvdev, inode);
		if (!ent && !(cmd.oflags & O_CREAT)) {
			uv_dbg(ufile, "no domain for the inode, and no O_CREAT\n");
			ret = -EAGAIN;
			goto err_inode;
		}
		if (ent && (cmd.oflags & O_EXCL)) {
			uv_dbg(ufile, "the inode has a domain, and O_EXCL\n");
			ret = -EINVAL;
			goto err_inode;
		}
	}

	obj = uv_uobj_alloc(attrs, &uv_type_xrcd);
	if (IS_ERR(obj)) {
		ret = PTR_ERR(obj);
		goto err_inode;
	}
	if (ent) {
		xrcd = ent->xrcd;
	} else {
		if (inode) {
			new_ent = kzalloc(sizeof(*new_ent), GFP_KERNEL);
			if (!new_ent) {
				ret = -ENOMEM;
				goto err_obj;
			}
		}
		xrcd = ib_alloc_xrcd_user(ufile->ib_dev, inode, &attrs->driver_udata);
		if (IS_ERR(xrcd)) {
			ret = PTR_ERR(xrcd);
			goto err_ent;
		}
	}
	obj->uobj.object = xrcd;
	resp.xrcd_handle = obj->uobj.id;
	ret = uv_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_xrcd;

	if (ent) {
		ent->refs++;
		iput(inode);	/* the entry holds it already */
	} else if (new_ent) {
		new_ent->inode = inode;
		new_ent->xrcd = xrcd;
		new_ent->refs = 1;
		list_add_tail(&new_ent->list, &uvdev->xrcd_list);
		ent = new_ent;
	}
	obj->xent = ent;
	uv_uobj_commit(obj);
	mutex_unlock(&uvdev->xrcd_mutex);
	return 0;

err_xrcd:
	if (!ent)
		ib_dealloc_xrcd_user(xrcd, &attrs->driver_udata);
err_ent:
	kfree(new_ent);
err_obj:
	uv_uobj_abort(obj);
err_inode:
	if (inode)
		iput(inode);
out:
	mutex_unlock(&uvdev->xrcd_mutex);
	return ret;
}

int uv_cmd_close_xrcd(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_close_xrcd cmd;
	struct uv_uobj *obj;
	int ret;

	ret = uv_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uv_uobj_destroy(attrs, &uv_type_xrcd, cmd.xrcd_handle, &obj);
	if (ret)
		return ret;
	uv_uobj_free(obj);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts (libmlx4's ABI version 4): a UAR page per context, what
 * GET_CONTEXT answers, the pages a context maps through its uverbs file,
 * the driver's part of the extended QUERY_DEVICE, and the helpers the
 * user branches of the verbs share to read a command's driver data and
 * write its answer.
 */
#include <linux/slab.h>
#include <linux/mm.h>

#include "mlx4_ib.h"

/* The pages of a context's mmap(), by offset in pages */
enum {
	MLX4_IB_MMAP_UAR	= 0,	/* doorbells, uncached */
	MLX4_IB_MMAP_BF		= 1,	/* BlueFlame registers, write-combining */
	MLX4_IB_MMAP_CLOCK	= 3,	/* the card's free-running clock */
};

/* The driver's part of an extended QUERY_DEVICE command (libmlx4 sends none) */
struct mlx4_ib_query_device_cmd {
	__u32	comp_mask;
	__u32	reserved;
};

/* [any] The user context of a command's udata; NULL (logged) for none. */
struct mlx4_ib_ucontext *mlx4_ib_udata_ucontext(struct mlx4_ib_dev *dev, struct ib_udata *udata)
{
	struct mlx4_ib_ucontext *uctx;

	uctx = rdma_udata_to_drv_context(udata, struct mlx4_ib_ucontext, ibucontext);
	if (!uctx)
		mlx4_ib_warn_rl(dev, "a user command without a user context\n");
	return uctx;
}

/*
 * [sleep] The first len bytes of a command's driver data into cmd: -EINVAL
 * (logged, what names the command) when the provider sent fewer.
 */
int mlx4_ib_copy_cmd(struct mlx4_ib_dev *dev, void *cmd, size_t len, struct ib_udata *udata,
		     const char *what)
{
	if (udata->inlen < len) {
		mlx4_ib_warn_rl(dev, "%s: %zu bytes of driver data, %zu expected\n",
				what, udata->inlen, len);
		return -EINVAL;
	}
	return ib_copy_from_udata(cmd, udata, len);
}

/*
 * [sleep] The driver's answer, as much of it as the provider has room for.
 * No room at all is -EFAULT, as 6.1's mlx4_ib (its copy then goes to the
 * NULL buffer ib_uverbs gives a driver without response words) and the
 * object is not made.
 */
int mlx4_ib_copy_resp(struct ib_udata *udata, void *resp, size_t len)
{
	if (!udata->outlen)
		return -EFAULT;
	return ib_copy_to_udata(udata, resp, min(len, udata->outlen));
}

struct ib_ucontext *mlx4_ib_alloc_ucontext(struct ib_device *ibdev, struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(ibdev);
	const struct mlx4_caps *caps = &dev->dev->caps;
	struct mlx4_ib_alloc_ucontext_resp resp = {
		/* 32-byte CQEs: no MLX4_USER_DEV_CAP_LARGE_CQE */
		.dev_caps	= 0,
		.qp_tab_size	= caps->num_qps,
		.bf_reg_size	= caps->bf_reg_size,
		.bf_regs_per_page = caps->bf_regs_per_page,
		.cqe_size	= MLX4_HW_CQE_SIZE,
	};
	struct mlx4_ib_ucontext *uctx;
	int err;

	if (!udata)
		return ERR_PTR(-EINVAL);
	/* a dead device takes no new users (upstream: -EAGAIN) */
	if (mlx4_is_internal_error(dev->dev)) {
		mlx4_ib_warn_rl(dev, "alloc_ucontext: device not active\n");
		return ERR_PTR(-EAGAIN);
	}

	uctx = kzalloc(sizeof(*uctx), GFP_KERNEL);
	if (!uctx)
		return ERR_PTR(-ENOMEM);
	mutex_init(&uctx->db_page_mutex);
	INIT_LIST_HEAD(&uctx->db_page_list);
	err = mlx4_uar_alloc(dev->dev, &uctx->uar);
	if (err) {
		mlx4_ib_warn_rl(dev, "alloc_ucontext: no UAR left (%d)\n", err);
		goto err_free;
	}
	err = mlx4_ib_copy_resp(udata, &resp, sizeof(resp));
	if (err)
		goto err_uar;
	return &uctx->ibucontext;

err_uar:
	mlx4_uar_free(dev->dev, &uctx->uar);
err_free:
	mutex_destroy(&uctx->db_page_mutex);
	kfree(uctx);
	return ERR_PTR(err);
}

/*
 * [sleep] Every object of the context is gone (ib_uverbs destroys them
 * first), and so is every mapping of its UAR (the file is released only
 * when nothing maps it, and a disassociation revokes the mappings first):
 * the UAR may go to the next context.
 */
void mlx4_ib_dealloc_ucontext(struct ib_ucontext *ibucontext)
{
	struct mlx4_ib_ucontext *uctx = to_mucontext(ibucontext);

	WARN_ON(!list_empty(&uctx->db_page_list));
	mlx4_uar_free(to_mdev(ibucontext->device)->dev, &uctx->uar);
	mutex_destroy(&uctx->db_page_mutex);
	kfree(uctx);
}

/*
 * [sleep] One page of the context, by the offset libmlx4 asks for: its UAR
 * page, its BlueFlame page (the UAR's twin in the write-combining part of
 * the BAR, num_uars pages on) when the card has BlueFlame, or the clock
 * page, which our mlx4_core does not offer (EX_QUERY_DEVICE says so, and
 * libmlx4 then does not ask).  Every mapping goes through
 * rdma_user_mmap_io(), which ib_core revokes when the device goes away.
 */
int mlx4_ib_mmap(struct ib_ucontext *ibucontext, struct vm_area_struct *vma)
{
	struct mlx4_ib_ucontext *uctx = to_mucontext(ibucontext);
	struct mlx4_ib_dev *dev = to_mdev(ibucontext->device);
	const struct mlx4_caps *caps = &dev->dev->caps;

	switch (vma->vm_pgoff) {
	case MLX4_IB_MMAP_UAR:
		return rdma_user_mmap_io(ibucontext, vma, uctx->uar.pfn, PAGE_SIZE,
					 pgprot_noncached(vma->vm_page_prot), NULL);
	case MLX4_IB_MMAP_BF:
		if (!caps->bf_reg_size) {
			mlx4_ib_warn_rl(dev, "mmap: no BlueFlame page\n");
			return -EINVAL;
		}
		return rdma_user_mmap_io(ibucontext, vma, uctx->uar.pfn + caps->num_uars,
					 PAGE_SIZE, pgprot_writecombine(vma->vm_page_prot),
					 NULL);
	case MLX4_IB_MMAP_CLOCK:
		mlx4_ib_warn_rl(dev, "mmap: no clock page\n");
		return -EOPNOTSUPP;
	default:
		mlx4_ib_warn_rl(dev, "mmap: no page at offset %lu\n", vma->vm_pgoff);
		return -EINVAL;
	}
}

/*
 * [sleep] The driver's part of an extended QUERY_DEVICE answer: each
 * member the provider has room for, response_length saying how far it
 * goes.  No clock offset (no clock page), no inline receive, no RSS, and
 * TSO only for Ethernet ports (upstream's rule): none on our IB ports.
 */
int mlx4_ib_query_device_user(struct ib_device *ibdev, struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(ibdev);
	struct mlx4_uverbs_ex_query_device_resp resp = {};
	struct mlx4_ib_query_device_cmd cmd;
	size_t len;
	int err;

	if (udata->inlen) {
		err = mlx4_ib_copy_cmd(dev, &cmd, sizeof(cmd), udata, "query_device");
		if (err)
			return err;
		if (cmd.comp_mask || cmd.reserved) {
			mlx4_ib_warn_rl(dev, "query_device: comp_mask 0x%x, reserved 0x%x\n",
					cmd.comp_mask, cmd.reserved);
			return -EINVAL;
		}
	}

	len = offsetofend(typeof(resp), response_length);
	if (udata->outlen >= offsetofend(typeof(resp), hca_core_clock_offset))
		len = offsetofend(typeof(resp), hca_core_clock_offset);
	if (udata->outlen >= offsetofend(typeof(resp), max_inl_recv_sz))
		len = offsetofend(typeof(resp), max_inl_recv_sz);
	if (udata->outlen >= offsetofend(typeof(resp), rss_caps))
		len = offsetofend(typeof(resp), rss_caps);
	if (udata->outlen >= offsetofend(typeof(resp), tso_caps))
		len = offsetofend(typeof(resp), tso_caps);
	resp.response_length = len;
	if (!udata->outlen)
		return 0;
	return mlx4_ib_copy_resp(udata, &resp, len);
}

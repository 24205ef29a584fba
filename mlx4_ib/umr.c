// SPDX-License-Identifier: GPL-2.0
/*
 * User memory: the MTT entries of a pinned user buffer (in blocks of the
 * largest page size the card and the buffer's bus addresses allow), and
 * memory regions over user memory - registration and re-registration.
 *
 * A re-registration rewrites the MR's MPT in place and keeps its keys, as
 * upstream's mlx4 does: new pages are pinned and their MTT written before
 * the card gives the MPT back, so that most failures leave the MR as it was
 * (mlx4_ib_rereg_user_mr() says which do not).
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/log2.h>

#include "mlx4_ib.h"

/*
 * [any] The block size for the card to see umem at virt, or 0: the largest
 * of the card's page sizes with which the buffer's bus addresses are
 * contiguous inside each block and virt and the bus address have the same
 * offset in the first one.  For a queue (virt 0) the buffer starts a block.
 */
static unsigned long mlx4_ib_umem_pgsz(struct mlx4_ib_dev *dev, struct ib_umem *umem,
				       u64 virt)
{
	unsigned long sizes = dev->dev->caps.page_size_cap & GENMASK(31, PAGE_SHIFT);
	unsigned long pgsz;

	pgsz = ib_umem_find_best_pgsz(umem, sizes, virt);
	if (!pgsz) {
		mlx4_ib_warn_rl(dev, "user buffer at 0x%lx (%zu bytes): no page size fits 0x%llx\n",
				umem->address, umem->length, virt);
		return 0;
	}
	/* what the block walk counts from (ib_umem_find_best_pgsz() sets it too) */
	umem->iova = virt;
	return pgsz;
}

/* [any] umem's block size at virt (0: none fits) and its count of such blocks */
static unsigned long mlx4_ib_umem_blocks(struct mlx4_ib_dev *dev, struct ib_umem *umem,
					 u64 virt, int *nblocks)
{
	unsigned long pgsz = mlx4_ib_umem_pgsz(dev, umem, virt);
	size_t n;

	if (!pgsz)
		return 0;
	n = ib_umem_num_dma_blocks(umem, pgsz);
	if (n > INT_MAX)
		return 0;
	*nblocks = n;
	return pgsz;
}

/* [sleep] Write the bus addresses of umem's blocks of pgsz into mtt. */
static int mlx4_ib_umem_write_mtt(struct mlx4_ib_dev *dev, struct ib_umem *umem,
				  unsigned long pgsz, struct mlx4_mtt *mtt)
{
	const int batch = PAGE_SIZE / sizeof(u64);
	struct ib_block_iter biter;
	int n = 0, start = 0, err = 0;
	u64 *pages;

	pages = (u64 *)__get_free_page(GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		pages[n++] = rdma_block_iter_dma_address(&biter);
		if (n < batch)
			continue;
		err = mlx4_write_mtt(dev->dev, mtt, start, n, pages);
		if (err)
			goto out;
		start += n;
		n = 0;
	}
	if (n)
		err = mlx4_write_mtt(dev->dev, mtt, start, n, pages);
out:
	free_page((unsigned long)pages);
	return err;
}

/*
 * [sleep] MTT entries for pinned user memory the card sees at virt: a user
 * MR's pages (re-registration), or with virt 0 a user queue buffer (a CQE
 * ring, a QP's or an SRQ's work queues), which the card sees from its first
 * byte on, so it must start a block (libmlx4's are page-aligned).
 */
int mlx4_ib_umem_mtt_at(struct mlx4_ib_dev *dev, struct ib_umem *umem, u64 virt,
			struct mlx4_mtt *mtt)
{
	int nblocks, err;
	unsigned long pgsz = mlx4_ib_umem_blocks(dev, umem, virt, &nblocks);

	if (!pgsz)
		return -EINVAL;
	err = mlx4_mtt_init(dev->dev, nblocks, ilog2(pgsz), mtt);
	if (err)
		return err;
	err = mlx4_ib_umem_write_mtt(dev, umem, pgsz, mtt);
	if (err)
		mlx4_mtt_cleanup(dev->dev, mtt);
	return err;
}

/*
 * [sleep] Pin an MR's pages.  Pages the process may write are pinned
 * writable even for an MR without write rights, so that a re-registration
 * of the rights alone can grant them without pinning again (as upstream's
 * mlx4 does); that takes a single VMA covering the range, else the pages
 * are pinned writable (and read-only ones fail).
 */
static struct ib_umem *mlx4_ib_pin_mr(struct ib_device *ibdev, u64 start, u64 length,
				      int access)
{
	unsigned long addr = untagged_addr((unsigned long)start);
	struct vm_area_struct *vma;

	if (!ib_access_writable(access)) {
		mmap_read_lock(current->mm);
		vma = find_vma(current->mm, addr);
		if (!vma || vma->vm_start > addr || vma->vm_end - addr < length ||
		    (vma->vm_flags & VM_WRITE))
			access |= IB_ACCESS_LOCAL_WRITE;
		mmap_read_unlock(current->mm);
	}
	return ib_umem_get(ibdev, start, length, access);
}

/* [sleep] An enabled MPT of PD pdn over umem, seen by the card at [virt, virt + length). */
static int mlx4_ib_umr_mpt(struct mlx4_ib_dev *dev, struct ib_umem *umem, u32 pdn,
			   u64 virt, u64 length, int access, struct mlx4_mr *mmr)
{
	int nblocks, err;
	unsigned long pgsz = mlx4_ib_umem_blocks(dev, umem, virt, &nblocks);

	if (!pgsz)
		return -EINVAL;
	err = mlx4_mr_alloc(dev->dev, pdn, virt, length, mlx4_ib_access(access), nblocks,
			    ilog2(pgsz), mmr);
	if (err)
		return err;
	err = mlx4_ib_umem_write_mtt(dev, umem, pgsz, &mmr->mtt);
	if (!err)
		err = mlx4_mr_enable(dev->dev, mmr);
	if (err)
		mlx4_mr_free(dev->dev, mmr);	/* not with the card: cannot fail */
	return err;
}

static void mlx4_ib_umr_keys(struct mlx4_ib_mr *mr)
{
	mr->ibmr.lkey = mr->mmr.key;
	mr->ibmr.rkey = mr->mmr.key;
	mr->ibmr.page_size = 1U << mr->mmr.mtt.page_shift;
}

struct ib_mr *mlx4_ib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length, u64 virt,
				  int access, struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(pd->device);
	struct mlx4_ib_mr *mr;
	int err;

	if (access & ~IB_ACCESS_SUPPORTED) {
		mlx4_ib_warn_rl(dev, "reg_user_mr: access 0x%x not supported\n", access);
		return ERR_PTR(-EINVAL);
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = mlx4_ib_pin_mr(pd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		mlx4_ib_warn_rl(dev, "reg_user_mr: pinning 0x%llx+0x%llx failed (%d)\n",
				start, length, err);
		goto err_free;
	}
	err = mlx4_ib_umr_mpt(dev, mr->umem, to_mpd(pd)->pdn, virt, length, access, &mr->mmr);
	if (err)
		goto err_umem;
	mr->access = access;
	mlx4_ib_umr_keys(mr);
	mr->ibmr.iova = virt;
	mr->ibmr.length = length;
	return &mr->ibmr;

err_umem:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/*
 * [sleep] In place, the keys kept (as upstream's mlx4): the card gives the
 * MPT back, it takes the new PD, rights and, with IB_MR_REREG_TRANS, the
 * new range and pages, and goes back to the card.  ib_uverbs serialises
 * this with every other use of the MR's handle (an exclusive lookup), so
 * nothing else changes mr meanwhile.  An error before the card gave the
 * MPT back leaves the MR as it was; one after it (the card refusing the
 * new entry) leaves the MR with its new values and its keys dead until
 * deregistration.
 */
int mlx4_ib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start, u64 length, u64 virt,
			  int access, struct ib_pd *pd, struct ib_udata *udata)
{
	struct mlx4_ib_dev *dev = to_mdev(ibmr->device);
	struct mlx4_ib_mr *mr = to_mmr(ibmr);
	struct ib_umem *umem = mr->umem;
	struct mlx4_mtt mtt;
	int err;

	if (!mr->umem || !flags || (flags & ~IB_MR_REREG_SUPPORTED) ||
	    ((flags & IB_MR_REREG_PD) && !pd) ||
	    ((flags & IB_MR_REREG_ACCESS) && (access & ~IB_ACCESS_SUPPORTED))) {
		mlx4_ib_warn_rl(dev, "rereg_user_mr: MR 0x%x: flags 0x%x, access 0x%x refused\n",
				ibmr->lkey, flags, access);
		return -EINVAL;
	}
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;

	if (flags & IB_MR_REREG_TRANS) {
		umem = mlx4_ib_pin_mr(ibmr->device, start, length, access);
		if (IS_ERR(umem)) {
			err = PTR_ERR(umem);
			mlx4_ib_warn_rl(dev, "rereg_user_mr: pinning 0x%llx+0x%llx failed (%d)\n",
					start, length, err);
			return err;
		}
		err = mlx4_ib_umem_mtt_at(dev, umem, virt, &mtt);
		if (err)
			goto err_umem;
	} else if (ib_access_writable(access) && !umem->writable) {
		/* the pages were pinned read-only: write rights need new ones */
		mlx4_ib_warn_rl(dev, "rereg_user_mr: MR 0x%x: read-only pages, access 0x%x\n",
				ibmr->lkey, access);
		return -EPERM;
	}

	/* a failure here (windows bound to the MR) keeps the MR as it was */
	err = mlx4_mr_disable(dev->dev, &mr->mmr);
	if (err)
		goto err_mtt;
	if (flags & IB_MR_REREG_PD)
		mr->mmr.pd = to_mpd(pd)->pdn;
	mr->mmr.access = mlx4_ib_access(access);
	mr->access = access;
	if (flags & IB_MR_REREG_TRANS) {
		mlx4_mtt_cleanup(dev->dev, &mr->mmr.mtt);
		mr->mmr.mtt = mtt;
		mr->mmr.iova = virt;
		mr->mmr.size = length;
		ib_umem_release(mr->umem);
		mr->umem = umem;
	}
	mlx4_ib_umr_keys(mr);
	err = mlx4_mr_enable(dev->dev, &mr->mmr);
	if (err)
		mlx4_ib_warn_rl(dev, "rereg_user_mr: MR 0x%x: SW2HW_MPT failed (%d), keys dead\n",
				ibmr->lkey, err);
	return err;

err_mtt:
	if (flags & IB_MR_REREG_TRANS)
		mlx4_mtt_cleanup(dev->dev, &mtt);
err_umem:
	if (umem != mr->umem)
		ib_umem_release(umem);
	return err;
}

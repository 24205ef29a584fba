// SPDX-License-Identifier: GPL-2.0
/*
 * Mappings of device pages into user space (rdma_user_mmap_io()) and their
 * revocation when the device goes away under a process that still maps
 * them (ibstack_umap_revoke()).
 *
 * Each uverbs file owns a struct ib_umap_set; every VMA that maps one of
 * its context's pages has a record in the set, reached from the VMA's
 * vm_private_data, and each record holds a reference on the set: the set
 * outlives the file while anything is mapped.  The vm_operations live here,
 * in ib_core, below ib_uverbs: a mapping also holds the uverbs file (the
 * VMA's vm_file), which holds ib_uverbs, which holds ib_core.
 *
 * VMAs: io_remap_pfn_range() makes them VM_IO | VM_PFNMAP | VM_DONTEXPAND |
 * VM_DONTDUMP (as 6.1's rdma_user_mmap_io(), which sets no flag itself);
 * only shared mappings are accepted, so a private copy-on-write of device
 * memory never exists.  A fork or a split duplicates the record (open), an
 * unmap drops it (close).  Revocation zaps the page-table entries; a later
 * touch faults, and the fault handler maps a page of zeroes (the shared
 * zero page for a VMA that can never be written, else one page per set),
 * so that a program still writing a doorbell does not die of it; its
 * writes are lost.  A fault before revocation (there is none: every page
 * is mapped at mmap() time) is a SIGBUS.
 */
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <ibstack/compat.h>
#include "core_priv.h"

/*
 * Lock order: a process's mmap_lock (the vm_operations run under it), then
 * the set's lock.  Revocation takes each mm's mmap_lock itself, so its
 * caller must hold nothing that a path under mmap_lock waits for (ib_uverbs'
 * mmap must not wait for its disassociation).
 */
struct ib_umap_set {
	struct kref		ref;	/* the file's, one per record */
	struct mutex		lock;	/* everything below */
	struct list_head	live;	/* records whose pages may still be mapped */
	struct list_head	zapped;	/* records revoked (or whose mm was exiting) */
	bool			revoked;
	struct page		*zero_page;	/* after revocation, on the first write fault */
};

/* One VMA that maps a page of the set's context */
struct ib_umap {
	struct list_head	entry;	/* in set->live or set->zapped */
	struct ib_umap_set	*set;	/* holds a reference */
	struct vm_area_struct	*vma;
	struct mm_struct	*mm;	/* vma->vm_mm */
};

struct ib_umap_set *ibstack_umap_set_alloc(void)
{
	struct ib_umap_set *set;

	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return ERR_PTR(-ENOMEM);
	kref_init(&set->ref);
	mutex_init(&set->lock);
	INIT_LIST_HEAD(&set->live);
	INIT_LIST_HEAD(&set->zapped);
	return set;
}
EXPORT_SYMBOL(ibstack_umap_set_alloc);

static void ib_umap_set_release(struct kref *ref)
{
	struct ib_umap_set *set = container_of(ref, struct ib_umap_set, ref);

	/* every record held a reference: none is left */
	WARN_ON(!list_empty(&set->live) || !list_empty(&set->zapped));
	if (set->zero_page)
		__free_page(set->zero_page);
	mutex_destroy(&set->lock);
	kfree(set);
}

void ibstack_umap_set_put(struct ib_umap_set *set)
{
	if (!IS_ERR_OR_NULL(set))
		kref_put(&set->ref, ib_umap_set_release);
}
EXPORT_SYMBOL(ibstack_umap_set_put);

/* [sleep] a record of vma in set, on set->live, holding a set reference */
static void ib_umap_add(struct ib_umap_set *set, struct ib_umap *map,
			struct vm_area_struct *vma)
{
	lockdep_assert_held(&set->lock);
	map->set = set;
	map->vma = vma;
	map->mm = vma->vm_mm;
	kref_get(&set->ref);
	list_add_tail(&map->entry, &set->live);
	vma->vm_private_data = map;
}

/*
 * A copy of a mapped VMA (fork, split, mremap): it gets a record of its
 * own.  open() cannot fail, and a VMA without a record would keep the
 * set's zero page mapped with nothing holding the set, so the small
 * allocation must not fail either.  If the set is being revoked the record
 * goes on the live list all the same: a revocation in progress zaps it
 * (it walks until no live record is left); one that already ended zapped
 * the VMA this one was copied from, so there is nothing to zap.
 */
static void ib_umap_vm_open(struct vm_area_struct *vma)
{
	struct ib_umap *orig = vma->vm_private_data;
	struct ib_umap *map;

	if (!orig)
		return;
	map = kzalloc(sizeof(*map), GFP_KERNEL | __GFP_NOFAIL);
	mutex_lock(&orig->set->lock);
	ib_umap_add(orig->set, map, vma);
	mutex_unlock(&orig->set->lock);
}

/* The VMA goes (its page-table entries are gone already). */
static void ib_umap_vm_close(struct vm_area_struct *vma)
{
	struct ib_umap *map = vma->vm_private_data;
	struct ib_umap_set *set;

	if (!map)
		return;
	set = map->set;
	mutex_lock(&set->lock);
	list_del(&map->entry);
	mutex_unlock(&set->lock);
	vma->vm_private_data = NULL;
	kfree(map);
	ibstack_umap_set_put(set);
}

/*
 * A touch of a revoked mapping: a page of zeroes in its place.  The VMA is
 * VM_PFNMAP (and shared, so never copy-on-write), hence vmf_insert_pfn():
 * the page is not refcounted by the mapping, and lives as long as the set,
 * which every VMA's record holds.
 */
static vm_fault_t ib_umap_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	bool writable = vma->vm_flags & (VM_WRITE | VM_MAYWRITE);
	struct ib_umap *map = vma->vm_private_data;
	struct ib_umap_set *set;
	unsigned long pfn;

	if (!map)
		return VM_FAULT_SIGBUS;
	set = map->set;
	mutex_lock(&set->lock);
	if (!set->revoked) {
		mutex_unlock(&set->lock);
		pr_warn_ratelimited("ib_core: fault at 0x%lx in a device mapping before revocation\n",
				    vmf->address);
		return VM_FAULT_SIGBUS;
	}
	if (writable && !set->zero_page)
		set->zero_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (writable && !set->zero_page) {
		mutex_unlock(&set->lock);
		return VM_FAULT_OOM;
	}
	pfn = writable ? page_to_pfn(set->zero_page) : page_to_pfn(ZERO_PAGE(vmf->address));
	mutex_unlock(&set->lock);
	return vmf_insert_pfn(vma, vmf->address, pfn);
}

static const struct vm_operations_struct ib_umap_vm_ops = {
	.open = ib_umap_vm_open,
	.close = ib_umap_vm_close,
	.fault = ib_umap_vm_fault,
};

int rdma_user_mmap_io(struct ib_ucontext *ucontext, struct vm_area_struct *vma,
		      unsigned long pfn, unsigned long size, pgprot_t prot,
		      struct rdma_user_mmap_entry *entry)
{
	struct ib_umap_set *set;
	struct ib_umap *map;
	int ret;

	if (!ucontext || !vma || entry) {
		IB_CORE_RATELIMITED("no context or VMA, or an mmap entry\n");
		return -EINVAL;
	}
	set = ucontext->umaps;
	if (WARN_ON_ONCE(IS_ERR_OR_NULL(set)))
		return -EINVAL;
	if (!(vma->vm_flags & VM_SHARED)) {
		IB_CORE_RATELIMITED("%s: a private mapping of device memory\n",
				    ucontext->device->name);
		return -EINVAL;
	}
	if (vma->vm_end - vma->vm_start != size) {
		IB_CORE_RATELIMITED("%s: mapping %lu bytes of a %lu-byte area\n",
				    ucontext->device->name, size, vma->vm_end - vma->vm_start);
		return -EINVAL;
	}
	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map)
		return -ENOMEM;

	/* under the lock: a revocation either refuses us or finds our record */
	mutex_lock(&set->lock);
	if (set->revoked) {
		ret = -EIO;
		goto err_unlock;
	}
	vma->vm_page_prot = prot;
	if (io_remap_pfn_range(vma, vma->vm_start, pfn, size, prot)) {
		ret = -EAGAIN;
		goto err_unlock;
	}
	vma->vm_ops = &ib_umap_vm_ops;
	ib_umap_add(set, map, vma);
	mutex_unlock(&set->lock);
	return 0;

err_unlock:
	mutex_unlock(&set->lock);
	kfree(map);
	return ret;
}
EXPORT_SYMBOL(rdma_user_mmap_io);

/*
 * [sleep] A live record's mm with a user reference taken (mmget), or NULL
 * when no live record is left.  Records of an exiting mm go to the zapped
 * list: exit_mmap() removes their page-table entries itself.
 */
static struct mm_struct *ib_umap_next_mm(struct ib_umap_set *set)
{
	struct ib_umap *map, *next;
	struct mm_struct *mm = NULL;

	mutex_lock(&set->lock);
	list_for_each_entry_safe(map, next, &set->live, entry) {
		/* the record exists, so its VMA does, so the mm is not freed */
		if (mmget_not_zero(map->mm)) {
			mm = map->mm;
			break;
		}
		list_move_tail(&map->entry, &set->zapped);
	}
	mutex_unlock(&set->lock);
	return mm;
}

void ibstack_umap_revoke(struct ib_umap_set *set)
{
	struct ib_umap *map, *next;
	struct mm_struct *mm;

	might_sleep();
	if (IS_ERR_OR_NULL(set))
		return;
	mutex_lock(&set->lock);
	set->revoked = true;
	mutex_unlock(&set->lock);

	/*
	 * One mm at a time, its mmap_lock taken before the set's lock.  The
	 * write side, where 6.1 takes the read side: munmap() may finish an
	 * unmap (free the page tables) under a downgraded read lock before
	 * close() drops the record, and the write side waits for that.
	 */
	while ((mm = ib_umap_next_mm(set))) {
		mmap_write_lock(mm);
		mutex_lock(&set->lock);
		list_for_each_entry_safe(map, next, &set->live, entry) {
			struct vm_area_struct *vma = map->vma;

			if (map->mm != mm)
				continue;
			ibstack_zap_vma_ptes(vma, vma->vm_start, vma->vm_end - vma->vm_start);
			list_move_tail(&map->entry, &set->zapped);
		}
		mutex_unlock(&set->lock);
		mmap_write_unlock(mm);
		mmput(mm);
	}
}
EXPORT_SYMBOL(ibstack_umap_revoke);

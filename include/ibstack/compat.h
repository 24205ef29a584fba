/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the kernels we build for (Debian's 5.10,
 * 6.1, 6.12 and 7.x).  This is the only place that knows about them: code elsewhere
 * calls the neutral ibstack_*() helpers below and never tests a kernel
 * version.
 *
 * The IBSTACK_HAVE_* macros come from <ibstack-probes.h>, which the build
 * generates for each kernel release (build/<release>/gen/ibstack-probes.h)
 * by compiling the probes in scripts/compat-probes/ against that kernel's
 * build tree with its own flags (scripts/compat-probe.sh).  The result is
 * cached and redone when a probe or the kernel's build tree changes.
 *
 * Adding a difference:
 *  1. Write scripts/compat-probes/NAME.c: a few lines that compile (with
 *     -Werror) only if the kernel has the API in question; a comment at the
 *     top says what it tests and since when.  Give every function a
 *     prototype and use every static function (6.12 warns otherwise).
 *  2. It defines IBSTACK_HAVE_NAME (upper case) when it compiles.  Check the
 *     result for both kernels: make modules KVER=<release>, then
 *     build/<release>/gen/ibstack-probes.h.
 *  3. Add a static inline helper (or, for declarations, a macro) here with a
 *     neutral name, ibstack_*, that uses the new API when present and the
 *     old one otherwise.
 */
#ifndef IBSTACK_COMPAT_H
#define IBSTACK_COMPAT_H

#include <ibstack/no_kernel_ib.h>
#include <ibstack-probes.h>
#include <linux/bitmap.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#ifdef IBSTACK_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#ifdef IBSTACK_HAVE_PCI_ENABLE_PCIE_ERROR_REPORTING
#include <linux/aer.h>
#endif

/* --- device classes ------------------------------------------------------ */

/* class_create(name) since 6.4; class_create(owner, name) before. */
static inline struct class *ibstack_class_create(const char *name)
{
#ifdef IBSTACK_HAVE_CLASS_CREATE_NAME_ONLY
	return class_create(name);
#else
	return class_create(THIS_MODULE, name);
#endif
}

/*
 * The device argument of struct class's dev_uevent() and devnode()
 * callbacks: const since 6.2.  Declare them as
 *	static int foo_uevent(IBSTACK_CLASS_UEVENT_DEV *dev,
 *			      struct kobj_uevent_env *env);
 *	static char *foo_devnode(IBSTACK_CLASS_DEVNODE_DEV *dev, umode_t *mode);
 */
#ifdef IBSTACK_HAVE_CLASS_UEVENT_CONST_DEV
#define IBSTACK_CLASS_UEVENT_DEV const struct device
#else
#define IBSTACK_CLASS_UEVENT_DEV struct device
#endif

#ifdef IBSTACK_HAVE_CLASS_DEVNODE_CONST_DEV
#define IBSTACK_CLASS_DEVNODE_DEV const struct device
#else
#define IBSTACK_CLASS_DEVNODE_DEV struct device
#endif

/*
 * The arguments of struct class_attribute's show() and store(): the class
 * is const since 6.4, the attribute later (6.12 has both).  Declare them as
 *	static ssize_t foo_show(IBSTACK_CLASS_ATTR_CLASS *class,
 *				IBSTACK_CLASS_ATTR_ATTR *attr, char *buf);
 */
#if defined(IBSTACK_HAVE_CLASS_ATTR_CONST_ATTR)
#define IBSTACK_CLASS_ATTR_CLASS const struct class
#define IBSTACK_CLASS_ATTR_ATTR const struct class_attribute
#elif defined(IBSTACK_HAVE_CLASS_ATTR_CONST_CLASS)
#define IBSTACK_CLASS_ATTR_CLASS const struct class
#define IBSTACK_CLASS_ATTR_ATTR struct class_attribute
#else
#define IBSTACK_CLASS_ATTR_CLASS struct class
#define IBSTACK_CLASS_ATTR_ATTR struct class_attribute
#endif

/* --- kobjects ------------------------------------------------------------ */

/*
 * The qualifier of a struct kobj_type given to kobject_init(): const where
 * kobject_init() takes a const pointer (6.2+, in 6.1.y), none before.
 */
#ifdef IBSTACK_HAVE_KOBJECT_INIT_CONST_KTYPE
#define IBSTACK_KTYPE_CONST const
#else
#define IBSTACK_KTYPE_CONST
#endif

/* --- bitmaps ------------------------------------------------------------- */

/* bitmap_from_arr64() (5.19+): a bitmap from an array of u64 words. */
static inline void ibstack_bitmap_from_arr64(unsigned long *bitmap,
					     const u64 *words,
					     unsigned int nbits)
{
#ifdef IBSTACK_HAVE_BITMAP_FROM_ARR64
	bitmap_from_arr64(bitmap, words, nbits);
#else
	unsigned int i;

	bitmap_zero(bitmap, nbits);
	for (i = 0; i < nbits; i++)
		if (words[i / 64] & BIT_ULL(i % 64))
			__set_bit(i, bitmap);
#endif
}

/* --- timers -------------------------------------------------------------- */

/* timer_delete_sync() (6.2+, in later 6.1.y); del_timer_sync() before. */
static inline int ibstack_timer_delete_sync(struct timer_list *timer)
{
#ifdef IBSTACK_HAVE_TIMER_DELETE_SYNC
	return timer_delete_sync(timer);
#else
	return del_timer_sync(timer);
#endif
}

/* timer_delete() (6.2+, in later 6.1.y); del_timer() before. */
static inline int ibstack_timer_delete(struct timer_list *timer)
{
#ifdef IBSTACK_HAVE_TIMER_DELETE
	return timer_delete(timer);
#else
	return del_timer(timer);
#endif
}

/*
 * timer_shutdown_sync(): stop the timer for good (later re-arms are
 * ignored).  Without it, only the deletion; the caller must then make sure
 * nothing re-arms the timer.
 */
static inline int ibstack_timer_shutdown_sync(struct timer_list *timer)
{
#ifdef IBSTACK_HAVE_TIMER_SHUTDOWN_SYNC
	return timer_shutdown_sync(timer);
#else
	return ibstack_timer_delete_sync(timer);
#endif
}

/* --- memory mappings and user pages --------------------------------------- */

/* vma->vm_flags is read-only since 6.3: vm_flags_set()/vm_flags_clear(). */
static inline void ibstack_vm_flags_set(struct vm_area_struct *vma,
					unsigned long flags)
{
#ifdef IBSTACK_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void ibstack_vm_flags_clear(struct vm_area_struct *vma,
					  unsigned long flags)
{
#ifdef IBSTACK_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * get_user_pages()/pin_user_pages() on the current mm (mmap_lock held for
 * read by the caller); the unused vmas argument went away in 6.5.
 */
static inline long ibstack_get_user_pages(unsigned long start,
					  unsigned long nr_pages,
					  unsigned int gup_flags,
					  struct page **pages)
{
#ifdef IBSTACK_HAVE_GET_USER_PAGES_VMAS
	return get_user_pages(start, nr_pages, gup_flags, pages, NULL);
#else
	return get_user_pages(start, nr_pages, gup_flags, pages);
#endif
}

static inline long ibstack_pin_user_pages(unsigned long start,
					  unsigned long nr_pages,
					  unsigned int gup_flags,
					  struct page **pages)
{
#ifdef IBSTACK_HAVE_PIN_USER_PAGES_VMAS
	return pin_user_pages(start, nr_pages, gup_flags, pages, NULL);
#else
	return pin_user_pages(start, nr_pages, gup_flags, pages);
#endif
}

/*
 * Unpin npages pinned pages starting at page (physically contiguous, as in
 * one scatterlist entry), marking them dirty first if dirty.
 * unpin_user_page_range_dirty_lock() since 5.12; page by page before.
 */
static inline void ibstack_unpin_user_page_range_dirty_lock(struct page *page,
							    unsigned long npages,
							    bool dirty)
{
#ifdef IBSTACK_HAVE_UNPIN_USER_PAGE_RANGE_DIRTY_LOCK
	unpin_user_page_range_dirty_lock(page, npages, dirty);
#else
	unsigned long i;

	for (i = 0; i < npages; i++) {
		struct page *p = nth_page(page, i);

		unpin_user_pages_dirty_lock(&p, 1, dirty);
	}
#endif
}

/*
 * Remove the page-table entries of [address, address + size) of a VM_PFNMAP
 * VMA: zap_vma_ptes(), renamed zap_special_vma_range() in 7.x.
 */
static inline void ibstack_zap_vma_ptes(struct vm_area_struct *vma,
					unsigned long address,
					unsigned long size)
{
#ifdef IBSTACK_HAVE_ZAP_SPECIAL_VMA_RANGE
	zap_special_vma_range(vma, address, size);
#else
	zap_vma_ptes(vma, address, size);
#endif
}

/* --- scatterlists ---------------------------------------------------------- */

/*
 * An appendable scatterlist, kept in three variables (sgt, *prv: the last
 * entry filled, *total_nents: the entries allocated), as 5.15+'s struct
 * sg_append_table keeps them; 5.10 has no such struct, but the same
 * algorithm as __sg_alloc_table_from_pages() with a prv argument, which
 * keeps the allocated count in sgt->orig_nents.  Both ways, after a call
 * sgt->nents and sgt->orig_nents count the filled entries (what the DMA
 * API and for_each_sgtable_sg() walk).
 *
 * Append n_pages pages (the first at offset, size bytes in all), merging
 * physically contiguous pages into entries of at most max_segment bytes;
 * left_pages: how many pages later calls will append (0 for the last call,
 * which ends the list).  0 or -errno; on failure sgt keeps what it had
 * (free it with ibstack_sg_free_appended()).  Start from a zeroed sgt.
 */
static inline int ibstack_sg_append_pages(struct sg_table *sgt, struct scatterlist **prv,
					  unsigned int *total_nents, struct page **pages,
					  unsigned int n_pages, unsigned int offset,
					  unsigned long size, unsigned int max_segment,
					  unsigned int left_pages, gfp_t gfp_mask)
{
#ifdef IBSTACK_HAVE_SG_APPEND_TABLE
	struct sg_append_table t = {
		.sgt = *sgt, .prv = *prv, .total_nents = *total_nents,
	};
	int ret = sg_alloc_append_table_from_pages(&t, pages, n_pages, offset, size,
						   max_segment, left_pages, gfp_mask);

	*sgt = t.sgt;
	*prv = t.prv;
	*total_nents = t.total_nents;
	return ret;
#else
	struct scatterlist *last;

	sgt->orig_nents = *total_nents;
	last = __sg_alloc_table_from_pages(sgt, pages, n_pages, offset, size, max_segment,
					   *prv, left_pages, gfp_mask);
	*total_nents = sgt->orig_nents;
	sgt->orig_nents = sgt->nents;
	if (IS_ERR(last))
		return PTR_ERR(last);
	*prv = last;
	return 0;
#endif
}

/* Free what ibstack_sg_append_pages() allocated (total_nents entries). */
static inline void ibstack_sg_free_appended(struct sg_table *sgt, unsigned int total_nents)
{
#ifdef IBSTACK_HAVE_SG_APPEND_TABLE
	struct sg_append_table t = { .sgt = *sgt, .total_nents = total_nents };

	sg_free_append_table(&t);
#else
	sgt->orig_nents = total_nents;
	sg_free_table(sgt);
#endif
	memset(sgt, 0, sizeof(*sgt));
}

/*
 * struct file_operations' .llseek for a file that cannot seek: no_llseek
 * was removed in 6.12; NULL means the same on every kernel since 6.0.
 */
#ifdef IBSTACK_HAVE_NO_LLSEEK
#define IBSTACK_NO_LLSEEK no_llseek
#else
#define IBSTACK_NO_LLSEEK NULL
#endif

/* --- network devices ------------------------------------------------------ */

/* A NAPI context with an explicit weight. */
static inline void ibstack_netif_napi_add(struct net_device *dev,
					  struct napi_struct *napi,
					  int (*poll)(struct napi_struct *, int),
					  int weight)
{
#if defined(IBSTACK_HAVE_NETIF_NAPI_ADD_WEIGHT)
	netif_napi_add_weight(dev, napi, poll, weight);
#elif defined(IBSTACK_HAVE_NETIF_NAPI_ADD_4ARGS)
	netif_napi_add(dev, napi, poll, weight);
#else
#error "ibstack: no way to add a NAPI context with a weight"
#endif
}

/* Lockless transmit: dev->lltx since 6.12, NETIF_F_LLTX before. */
static inline void ibstack_netdev_set_lltx(struct net_device *dev)
{
#ifdef IBSTACK_HAVE_NETDEV_LLTX
	dev->lltx = true;
#else
	dev->features |= NETIF_F_LLTX;
#endif
}

/*
 * The parameters of ethtool_ops' get_coalesce() and set_coalesce(): since
 * 5.15 a struct kernel_ethtool_coalesce * and a struct netlink_ext_ack *
 * follow the device and the struct ethtool_coalesce *.  Declare them as
 *	static int foo_get_coalesce(IBSTACK_ETHTOOL_COALESCE_PARAMS);
 * and use only the two parameters every kernel has, named dev and ec.
 */
#ifdef IBSTACK_HAVE_ETHTOOL_COALESCE_KERNEL
#define IBSTACK_ETHTOOL_COALESCE_PARAMS					\
	struct net_device *dev, struct ethtool_coalesce *ec,		\
	struct kernel_ethtool_coalesce *ibstack_kernel_ec,		\
	struct netlink_ext_ack *ibstack_extack
#else
#define IBSTACK_ETHTOOL_COALESCE_PARAMS					\
	struct net_device *dev, struct ethtool_coalesce *ec
#endif

/*
 * Writes len bytes of the hardware address at offset: dev_addr_mod() since
 * 5.17 (dev->dev_addr is const since), a plain copy before.
 */
static inline void ibstack_dev_addr_mod(struct net_device *dev,
					unsigned int offset, const void *addr,
					size_t len)
{
#ifdef IBSTACK_HAVE_DEV_ADDR_MOD
	dev_addr_mod(dev, offset, addr, len);
#else
	memcpy(dev->dev_addr + offset, addr, len);
#endif
}

/*
 * rtnl_link_ops' newlink: since 6.15 (dev, struct rtnl_newlink_params *,
 * extack), before (src_net, dev, tb, data, extack).  Declare it as
 *	static int foo_newlink(IBSTACK_RTNL_NEWLINK_PARAMS)
 * and in its body use dev, extack and these three: the netns where
 * IFLA_LINK is looked up, the IFLA_* and the IFLA_INFO_DATA attributes.
 */
#ifdef IBSTACK_HAVE_RTNL_NEWLINK_PARAMS
#define IBSTACK_RTNL_NEWLINK_PARAMS					\
	struct net_device *dev, struct rtnl_newlink_params *ibstack_params, \
	struct netlink_ext_ack *extack
#define ibstack_rtnl_newlink_net()	rtnl_newlink_link_net(ibstack_params)
#define ibstack_rtnl_newlink_tb()	(ibstack_params->tb)
#define ibstack_rtnl_newlink_data()	(ibstack_params->data)
#else
#define IBSTACK_RTNL_NEWLINK_PARAMS					\
	struct net *ibstack_src_net, struct net_device *dev,		\
	struct nlattr *ibstack_tb[], struct nlattr *ibstack_data[],	\
	struct netlink_ext_ack *extack
#define ibstack_rtnl_newlink_net()	(ibstack_src_net)
#define ibstack_rtnl_newlink_tb()	(ibstack_tb)
#define ibstack_rtnl_newlink_data()	(ibstack_data)
#endif

/* --- workqueues ------------------------------------------------------------ */

/*
 * A per-CPU workqueue: WQ_PERCPU says so explicitly since 6.17, and those
 * kernels warn when a workqueue names neither WQ_PERCPU nor WQ_UNBOUND.
 * Before, per-CPU was what the absence of WQ_UNBOUND meant.
 */
#ifdef IBSTACK_HAVE_WQ_PERCPU
#define IBSTACK_WQ_PERCPU WQ_PERCPU
#else
#define IBSTACK_WQ_PERCPU 0
#endif

/* --- PCI ------------------------------------------------------------------ */

/*
 * AER reporting: drivers enabled it themselves until 6.5; since then the PCI
 * core does it for every device and the calls are gone.
 */
static inline int ibstack_pci_enable_pcie_error_reporting(struct pci_dev *pdev)
{
#ifdef IBSTACK_HAVE_PCI_ENABLE_PCIE_ERROR_REPORTING
	return pci_enable_pcie_error_reporting(pdev);
#else
	return 0;
#endif
}

static inline void ibstack_pci_disable_pcie_error_reporting(struct pci_dev *pdev)
{
#ifdef IBSTACK_HAVE_PCI_ENABLE_PCIE_ERROR_REPORTING
	pci_disable_pcie_error_reporting(pdev);
#endif
}

#endif /* IBSTACK_COMPAT_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * The CQ pool: CQs of ib_alloc_cq() shared by the consumers of a device,
 * one list per poll context (IB_POLL_DIRECT has none).  A consumer takes
 * nr_cqe entries of one with ib_cq_pool_get() and gives them back with
 * ib_cq_pool_put(); the CQs stay in the pool until the device's
 * unregistration (after every client is gone) frees them.  The lists and
 * each pool CQ's cqe_used are under the device's cq_pools_lock.
 */
#include <linux/cpumask.h>
#include <linux/module.h>
#include "core_priv.h"

/* the size of the pool's CQs, unless a consumer asks for more at once */
#define IB_CQ_POOL_CQE	4096U

/* the completion vectors the pool spreads over */
static unsigned int ib_cq_pool_vectors(struct ib_device *dev)
{
	return max_t(unsigned int, 1,
		     min_t(unsigned int, dev->num_comp_vectors, num_online_cpus()));
}

/* Grow the pool of poll_ctx by one CQ per vector, each with nr_cqe free entries. */
static int ib_cq_pool_grow(struct ib_device *dev, unsigned int nr_cqe,
			   enum ib_poll_context poll_ctx)
{
	unsigned int n = ib_cq_pool_vectors(dev), i;
	unsigned int cqe;
	struct ib_cq *cq, *tmp;
	LIST_HEAD(fresh);
	int ret;

	cqe = min_t(unsigned int, max(nr_cqe, IB_CQ_POOL_CQE), dev->attrs.max_cqe);
	for (i = 0; i < n; i++) {
		cq = ib_alloc_cq(dev, NULL, cqe, i, poll_ctx);
		if (IS_ERR(cq)) {
			ret = PTR_ERR(cq);
			goto err;
		}
		cq->shared = true;
		list_add_tail(&cq->pool_entry, &fresh);
	}
	spin_lock_irq(&dev->cq_pools_lock);
	list_splice_tail(&fresh, &dev->cq_pools[poll_ctx]);
	spin_unlock_irq(&dev->cq_pools_lock);
	return 0;

err:
	list_for_each_entry_safe(cq, tmp, &fresh, pool_entry) {
		list_del(&cq->pool_entry);
		cq->shared = false;
		ib_free_cq(cq);
	}
	return ret;
}

struct ib_cq *ib_cq_pool_get(struct ib_device *dev, unsigned int nr_cqe,
			     int comp_vector_hint, enum ib_poll_context poll_ctx)
{
	static unsigned int last_vector;
	unsigned int vectors, vector;
	struct ib_cq *cq;
	int ret;

	if (poll_ctx < 0 || poll_ctx > IB_POLL_LAST_POOL_TYPE) {
		IB_CORE_RATELIMITED("%s: no pool for poll context %d\n", dev->name, poll_ctx);
		return ERR_PTR(-EINVAL);
	}
	if (!nr_cqe || nr_cqe > (unsigned int)dev->attrs.max_cqe) {
		IB_CORE_RATELIMITED("%s: %u entries, the device allows 1..%d\n", dev->name,
				    nr_cqe, dev->attrs.max_cqe);
		return ERR_PTR(-EINVAL);
	}

	vectors = ib_cq_pool_vectors(dev);
	if (comp_vector_hint < 0) {
		/* round-robin; a race between two callers only skews the spread */
		vector = (READ_ONCE(last_vector) + 1) % vectors;
		WRITE_ONCE(last_vector, vector);
	} else {
		vector = comp_vector_hint % vectors;
	}

	for (;;) {
		spin_lock_irq(&dev->cq_pools_lock);
		list_for_each_entry(cq, &dev->cq_pools[poll_ctx], pool_entry) {
			if (cq->comp_vector != vector || cq->cqe_used + nr_cqe > cq->cqe)
				continue;
			cq->cqe_used += nr_cqe;
			spin_unlock_irq(&dev->cq_pools_lock);
			return cq;
		}
		spin_unlock_irq(&dev->cq_pools_lock);

		/* none with room on that vector: more CQs, then look again */
		ret = ib_cq_pool_grow(dev, nr_cqe, poll_ctx);
		if (ret)
			return ERR_PTR(ret);
	}
}
EXPORT_SYMBOL(ib_cq_pool_get);

void ib_cq_pool_put(struct ib_cq *cq, unsigned int nr_cqe)
{
	struct ib_device *dev = cq->device;
	unsigned long flags;

	spin_lock_irqsave(&dev->cq_pools_lock, flags);
	if (!cq->shared || nr_cqe > cq->cqe_used) {
		spin_unlock_irqrestore(&dev->cq_pools_lock, flags);
		/* upstream warns with a backtrace; the test bed tests this */
		IB_CORE_RATELIMITED("%s: %u entries given back, %u taken%s\n", dev->name,
				    nr_cqe, cq->shared ? cq->cqe_used : 0,
				    cq->shared ? "" : " (not a CQ of the pool)");
		return;
	}
	cq->cqe_used -= nr_cqe;
	spin_unlock_irqrestore(&dev->cq_pools_lock, flags);
}
EXPORT_SYMBOL(ib_cq_pool_put);

/*
 * [sleep] At unregistration, once every client is gone: the pool's CQs are
 * freed.  One still used leaks, with a warning (a consumer's bug).
 */
void ib_cq_pool_cleanup(struct ib_device *dev)
{
	struct ib_cq *cq, *tmp;
	unsigned int i;
	LIST_HEAD(all);

	spin_lock_irq(&dev->cq_pools_lock);
	for (i = 0; i < ARRAY_SIZE(dev->cq_pools); i++)
		list_splice_init(&dev->cq_pools[i], &all);
	spin_unlock_irq(&dev->cq_pools_lock);

	list_for_each_entry_safe(cq, tmp, &all, pool_entry) {
		list_del_init(&cq->pool_entry);
		if (WARN_ONCE(cq->cqe_used || atomic_read(&cq->usecnt),
			      "ib_core: %s: a pool CQ still used at unregistration (%u entries, %d QPs), leaked\n",
			      dev->name, cq->cqe_used, atomic_read(&cq->usecnt)))
			continue;
		cq->shared = false;
		ib_free_cq(cq);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * SA requests: one MAD to the port's SM, its answer or its failure handed
 * to the owner's done() exactly once, then release().  Every outstanding
 * query has an id in sa_queries, the handle ib_sa_cancel_query() uses.
 */
#include <linux/idr.h>
#include <linux/random.h>
#include "sa_priv.h"

/* protects sa_queries (and so the lifetime of a query seen through it) */
static DEFINE_SPINLOCK(sa_query_lock);
static DEFINE_IDR(sa_queries);
static atomic_t sa_tid;

int sa_query_init_module(void)
{
	atomic_set(&sa_tid, get_random_u32());
	return 0;
}

struct ib_sa_mad *sa_query_mad(struct ib_sa_query *query)
{
	return query->mad_buf->mad;
}

/*
 * Prepares query (the caller's, zeroed except for done_fn and release) to
 * send method/attr_id with comp_mask to the port's SM; the caller packs
 * the record into sa_query_mad(query)->data, then calls sa_query_post().
 * On error nothing is held.
 */
int sa_query_init(struct ib_sa_query *query, struct sa_port *port,
		  struct ib_sa_client *client, u8 method, u16 attr_id,
		  ib_sa_comp_mask comp_mask, gfp_t gfp)
{
	struct ib_mad_send_buf *mad_buf;
	struct sa_sm_ah *sm_ah;
	struct ib_sa_mad *mad;
	int err = 0;

	sm_ah = sa_sm_ah_get(port, &err);
	if (!sm_ah)
		return err;
	mad_buf = ib_create_send_mad(port->agent, 1, sm_ah->pkey_index, 0,
				     IB_MGMT_SA_HDR, IB_MGMT_SA_DATA, gfp,
				     IB_MGMT_BASE_VERSION);
	if (IS_ERR(mad_buf)) {
		sa_sm_ah_put(sm_ah);
		return PTR_ERR(mad_buf);
	}
	mad_buf->ah = sm_ah->ah;
	mad_buf->context[0] = query;
	mad_buf->retries = SA_RETRIES;

	mad = mad_buf->mad;
	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = IB_MGMT_CLASS_SUBN_ADM;
	mad->mad_hdr.class_version = IB_SA_CLASS_VERSION;
	mad->mad_hdr.method = method;
	mad->mad_hdr.attr_id = cpu_to_be16(attr_id);
	mad->mad_hdr.tid = cpu_to_be64(((u64)port->agent->hi_tid << 32) |
				       (u32)atomic_inc_return(&sa_tid));
	mad->sa_hdr.comp_mask = comp_mask;

	query->port = port;
	query->client = client;
	query->mad_buf = mad_buf;
	query->sm_ah = sm_ah;
	query->method = method;
	query->attr_id = attr_id;
	query->id = -1;
	return 0;
}

/* Undoes sa_query_init() of a query never posted (release not called). */
void sa_query_abort(struct ib_sa_query *query)
{
	ib_free_send_mad(query->mad_buf);
	sa_sm_ah_put(query->sm_ah);
}

/*
 * Sends the query; from here on ib_sa owns it.  Returns its id, or a
 * negative errno with the query aborted (release not called).
 */
int sa_query_post(struct ib_sa_query *query, unsigned long timeout_ms,
		  gfp_t gfp)
{
	unsigned long flags;
	bool preload;
	int id, ret;

	query->mad_buf->timeout_ms = min_t(unsigned long, timeout_ms, INT_MAX);
	sa_client_get(query->client);
	sa_device_get(query->port->sa_dev);

	/*
	 * Preloading takes a per-CPU lock that may only be taken where the
	 * caller could sleep: IPoIB asks for paths from its transmit path
	 * (softirq, GFP_ATOMIC), where the allocation under our lock is
	 * GFP_NOWAIT alone.
	 */
	preload = gfpflags_allow_blocking(gfp);
	if (preload)
		idr_preload(gfp);
	spin_lock_irqsave(&sa_query_lock, flags);
	id = idr_alloc(&sa_queries, query, 0, 0, GFP_NOWAIT);
	if (id >= 0)
		query->id = id;
	spin_unlock_irqrestore(&sa_query_lock, flags);
	if (preload)
		idr_preload_end();
	if (id < 0) {
		ret = id;
		goto err_put;
	}

	ret = ib_post_send_mad(query->mad_buf, NULL);
	if (ret)
		goto err_remove;
	return id;

err_remove:
	spin_lock_irqsave(&sa_query_lock, flags);
	idr_remove(&sa_queries, id);
	spin_unlock_irqrestore(&sa_query_lock, flags);
err_put:
	sa_device_put(query->port->sa_dev);
	sa_client_put(query->client);
	sa_query_abort(query);
	return ret;
}

void ib_sa_cancel_query(int id, struct ib_sa_query *query)
{
	unsigned long flags;

	spin_lock_irqsave(&sa_query_lock, flags);
	/* still in the table: its send has not completed, mad_buf is live */
	if (id >= 0 && idr_find(&sa_queries, id) == query)
		ib_cancel_mad(query->mad_buf);
	spin_unlock_irqrestore(&sa_query_lock, flags);
}
EXPORT_SYMBOL(ib_sa_cancel_query);

/* Cancels every query of the port (the device is going away). */
void sa_cancel_port_queries(struct sa_port *port)
{
	struct ib_sa_query *query;
	unsigned long flags;
	int id;

	spin_lock_irqsave(&sa_query_lock, flags);
	idr_for_each_entry(&sa_queries, query, id)
		if (query->port == port)
			ib_cancel_mad(query->mad_buf);
	spin_unlock_irqrestore(&sa_query_lock, flags);
}

static int sa_wc_errno(enum ib_wc_status status)
{
	switch (status) {
	case IB_WC_SUCCESS:
		return 0;
	case IB_WC_RESP_TIMEOUT_ERR:
		sa_stat_inc(SA_STAT_TIMEOUT);
		return -ETIMEDOUT;
	case IB_WC_WR_FLUSH_ERR:
		return -EINTR;
	default:
		return -EIO;
	}
}

void sa_send_handler(struct ib_mad_agent *agent,
		     struct ib_mad_send_wc *mad_send_wc)
{
	struct ib_sa_query *query = mad_send_wc->send_buf->context[0];
	struct sa_device *sa_dev = query->port->sa_dev;
	struct ib_sa_client *client = query->client;
	unsigned long flags;
	int status;

	if (!query->done) {
		status = sa_wc_errno(mad_send_wc->status);
		/* sent and answered without an answer reaching us */
		if (!status)
			status = -EIO;
		query->done = true;
		query->done_fn(query, status, NULL);
	}

	spin_lock_irqsave(&sa_query_lock, flags);
	idr_remove(&sa_queries, query->id);
	spin_unlock_irqrestore(&sa_query_lock, flags);

	sa_query_abort(query);
	query->release(query);
	sa_device_put(sa_dev);
	sa_client_put(client);
}

/*
 * The errno of an SA answer: -EIO if it is not an answer to query (class,
 * version, method, attribute), -EINVAL for any non-zero MAD status (the SA
 * refused: no records, an invalid request...), 0 otherwise.
 */
static int sa_check_answer(const struct ib_sa_query *query,
			   const struct ib_mad_recv_wc *mad_recv_wc)
{
	const struct ib_sa_mad *mad = (const void *)mad_recv_wc->recv_buf.mad;
	u8 want = query->method == IB_MGMT_METHOD_GET ||
		  query->method == IB_MGMT_METHOD_SET ?
		  IB_MGMT_METHOD_GET_RESP : query->method | IB_MGMT_METHOD_RESP;

	if (mad_recv_wc->mad_len < IB_MGMT_SA_HDR ||
	    mad->mad_hdr.mgmt_class != IB_MGMT_CLASS_SUBN_ADM ||
	    mad->mad_hdr.class_version != IB_SA_CLASS_VERSION ||
	    mad->mad_hdr.method != want ||
	    be16_to_cpu(mad->mad_hdr.attr_id) != query->attr_id) {
		sa_stat_inc(SA_STAT_BAD_RESPONSE);
		pr_warn_ratelimited(SA_PFX "bad answer: class 0x%x v%u method 0x%x attr 0x%x len %d\n",
				    mad->mad_hdr.mgmt_class,
				    mad->mad_hdr.class_version,
				    mad->mad_hdr.method,
				    be16_to_cpu(mad->mad_hdr.attr_id),
				    mad_recv_wc->mad_len);
		return -EIO;
	}
	return mad->mad_hdr.status ? -EINVAL : 0;
}

void sa_recv_handler(struct ib_mad_agent *agent,
		     struct ib_mad_send_buf *send_buf,
		     struct ib_mad_recv_wc *mad_recv_wc)
{
	struct ib_sa_query *query;
	int status;

	if (!send_buf || !send_buf->context[0])
		goto out;
	query = send_buf->context[0];
	if (query->done)
		goto out;
	status = sa_check_answer(query, mad_recv_wc);
	query->done = true;
	query->done_fn(query, status,
		       status ? NULL : (const void *)mad_recv_wc->recv_buf.mad);
out:
	ib_free_recv_mad(mad_recv_wc);
}

// SPDX-License-Identifier: GPL-2.0
/* Path record queries: SubnAdmGet(PathRecord). */
#include <linux/module.h>
#include <linux/slab.h>
#include "sa_priv.h"

struct sa_path_query {
	struct ib_sa_query	sa_query;
	void			(*callback)(int status, struct sa_path_rec *resp,
					    int num_prs, void *context);
	void			*context;
};

static void sa_path_done(struct ib_sa_query *sa_query, int status,
			 const struct ib_sa_mad *mad)
{
	struct sa_path_query *query =
		container_of(sa_query, struct sa_path_query, sa_query);
	struct sa_path_rec rec;

	if (status) {
		query->callback(status, NULL, 0, query->context);
		return;
	}
	ib_sa_unpack_path((void *)mad->data, &rec);
	query->callback(0, &rec, 1, query->context);
}

static void sa_path_release(struct ib_sa_query *sa_query)
{
	kfree(container_of(sa_query, struct sa_path_query, sa_query));
}

int ib_sa_path_rec_get(struct ib_sa_client *client, struct ib_device *device,
		       u32 port_num, struct sa_path_rec *rec,
		       ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
		       gfp_t gfp_mask,
		       void (*callback)(int status, struct sa_path_rec *resp,
					int num_prs, void *context),
		       void *context, struct ib_sa_query **sa_query)
{
	struct sa_path_query *query;
	struct sa_port *port;
	int ret;

	if (!callback || !rec || rec->rec_type != SA_PATH_REC_TYPE_IB)
		return -EINVAL;
	port = sa_port_get(device, port_num);
	if (!port)
		return -ENODEV;
	query = kzalloc(sizeof(*query), gfp_mask);
	if (!query) {
		ret = -ENOMEM;
		goto out;
	}
	query->callback = callback;
	query->context = context;
	query->sa_query.done_fn = sa_path_done;
	query->sa_query.release = sa_path_release;
	ret = sa_query_init(&query->sa_query, port, client, IB_MGMT_METHOD_GET,
			    IB_SA_ATTR_PATH_REC, comp_mask, gfp_mask);
	if (ret)
		goto err_free;
	ib_sa_pack_path(rec, sa_query_mad(&query->sa_query)->data);
	/* the query may finish and be freed before this returns */
	*sa_query = &query->sa_query;
	ret = sa_query_post(&query->sa_query, timeout_ms, gfp_mask);
	if (ret < 0)
		goto err_free;
	sa_stat_inc(SA_STAT_PATH_GET);
	goto out;

err_free:
	kfree(query);
out:
	sa_device_put(port->sa_dev);
	return ret;
}
EXPORT_SYMBOL(ib_sa_path_rec_get);

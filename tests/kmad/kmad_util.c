// SPDX-License-Identifier: GPL-2.0
/* The MAD layer test client: reporting, agents that record, send buffers. */
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include "kmad.h"

void km_pass(struct km_run *r, const char *name)
{
	r->passed++;
	pr_info(KM_NAME ": PASS %s\n", name);
}

void km_fail(struct km_run *r, const char *name, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	r->failed++;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info(KM_NAME ": FAIL %s: %pV\n", name, &vaf);
	va_end(args);
}

static void km_recv(struct ib_mad_agent *agent, struct ib_mad_send_buf *send_buf,
		    struct ib_mad_recv_wc *rwc)
{
	struct km_agent *ka = agent->context;
	struct ib_mad_recv_wc *old;

	if (ka->on_recv)
		ka->on_recv(ka, rwc);
	spin_lock(&ka->lock);
	old = ka->rwc;
	ka->rwc = rwc;
	ka->matched = send_buf;
	ka->nrecv++;
	spin_unlock(&ka->lock);
	ib_free_recv_mad(old);
	complete(&ka->recv_done);
}

static void km_sent(struct ib_mad_agent *agent, struct ib_mad_send_wc *wc)
{
	struct km_agent *ka = agent->context;

	spin_lock(&ka->lock);
	ka->status = wc->status;
	ka->recv_before_send = ka->nrecv > 0;
	ka->nsend++;
	spin_unlock(&ka->lock);
	if (ka->free_sends)
		km_send_free(wc->send_buf);
	complete(&ka->send_done);
}

int km_agent_open(struct km_agent *ka, struct ib_device *dev, u32 port,
		  enum ib_qp_type type, struct ib_mad_reg_req *reg, u8 rmpp)
{
	return km_agent_open_flags(ka, dev, port, type, reg, rmpp, 0);
}

int km_agent_open_flags(struct km_agent *ka, struct ib_device *dev, u32 port,
			enum ib_qp_type type, struct ib_mad_reg_req *reg, u8 rmpp,
			u32 flags)
{
	struct ib_mad_agent *a;

	memset(ka, 0, sizeof(*ka));
	spin_lock_init(&ka->lock);
	init_completion(&ka->recv_done);
	init_completion(&ka->send_done);
	a = ib_register_mad_agent(dev, port, type, reg, rmpp, km_sent, km_recv, ka, flags);
	if (IS_ERR(a))
		return PTR_ERR(a);
	ka->agent = a;
	return 0;
}

/* a send-only agent on port of type; NULL (a FAIL of name) if none */
struct km_agent *km_agent_new(struct km_run *r, const char *name, u32 port,
			      enum ib_qp_type type)
{
	struct km_agent *ka = kzalloc(sizeof(*ka), GFP_KERNEL);

	if (!ka || km_agent_open(ka, r->dev, port, type, NULL, 0)) {
		km_fail(r, name, "agent");
		kfree(ka);
		return NULL;
	}
	return ka;
}

void km_agent_free(struct km_agent *ka)
{
	km_agent_close(ka);
	kfree(ka);
}

void km_agent_reset(struct km_agent *ka)
{
	spin_lock(&ka->lock);
	ib_free_recv_mad(ka->rwc);
	ka->rwc = NULL;
	ka->matched = NULL;
	ka->nrecv = 0;
	ka->nsend = 0;
	ka->recv_before_send = false;
	ka->status = IB_WC_GENERAL_ERR;
	spin_unlock(&ka->lock);
	reinit_completion(&ka->recv_done);
	reinit_completion(&ka->send_done);
}

void km_agent_close(struct km_agent *ka)
{
	if (ka->agent)
		ib_unregister_mad_agent(ka->agent);
	ka->agent = NULL;
	ib_free_recv_mad(ka->rwc);
	ka->rwc = NULL;
}

struct ib_mad_send_buf *km_agent_send_buf(struct ib_mad_agent *agent, u16 dlid, u32 qpn,
					  int rmpp_active, int hdr_len, int data_len)
{
	struct rdma_ah_attr attr = { .type = RDMA_AH_ATTR_TYPE_IB };
	struct ib_mad_send_buf *buf;
	struct ib_ah *ah;

	rdma_ah_set_dlid(&attr, dlid);
	rdma_ah_set_port_num(&attr, agent->port_num);
	ah = rdma_create_ah(agent->qp->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah))
		return ERR_CAST(ah);
	buf = ib_create_send_mad(agent, qpn, 0, rmpp_active, hdr_len, data_len,
				 GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		return buf;
	}
	buf->ah = ah;
	return buf;
}

struct ib_mad_send_buf *km_send_buf(struct km_agent *ka, u16 dlid, u32 qpn,
				    int rmpp_active, int hdr_len, int data_len)
{
	return km_agent_send_buf(ka->agent, dlid, qpn, rmpp_active, hdr_len, data_len);
}

void km_send_free(struct ib_mad_send_buf *buf)
{
	if (IS_ERR_OR_NULL(buf))
		return;
	rdma_destroy_ah(buf->ah, 0);
	ib_free_send_mad(buf);
}

bool km_wait(struct completion *c, unsigned int ms)
{
	return wait_for_completion_timeout(c, msecs_to_jiffies(ms)) > 0;
}

u16 km_port_lid(struct ib_device *dev, u32 port)
{
	struct ib_port_attr pa;

	if (ib_query_port(dev, port, &pa))
		return 0;
	return pa.lid;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The MAD layer test client: directed-route SMPs answered locally (hop 0),
 * across the cable (hop 1 out port 1 reaches port 2), a path the port does
 * not match, SMInfo with and without a local "SM" agent, and an SMP of a
 * class version the SMA does not speak.
 */
#include <linux/slab.h>

#include "kmad.h"

#define KM_NI_NODE_GUID		12	/* NodeInfo offsets in smp->data */
#define KM_NI_LOCAL_PORT	36

static void km_dr_fill(struct ib_smp *smp, u8 method, __be16 attr, int hops, const u8 *path,
		       u32 tid)
{
	int i;

	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
	smp->class_version = 1;
	smp->method = method;
	smp->attr_id = attr;
	smp->tid = cpu_to_be64(tid);
	smp->hop_cnt = hops;
	smp->dr_slid = IB_LID_PERMISSIVE;
	smp->dr_dlid = IB_LID_PERMISSIVE;
	for (i = 1; i <= hops; i++)
		smp->initial_path[i] = path[i - 1];
}

/*
 * Sends a DR SMP from ka (its header's M_Key mkey, its data if not NULL)
 * and waits for its response (kept in ka->rwc); NULL with the reason in
 * *why otherwise.
 */
struct ib_smp *km_dr_send(struct km_agent *ka, u8 method, __be16 attr, __be64 mkey,
			  const u8 *data, int hops, const u8 *path,
			  struct ib_mad_send_buf **bufp, const char **why)
{
	struct ib_mad_send_buf *buf;
	struct ib_smp *smp;
	int ret;

	km_agent_reset(ka);
	buf = km_send_buf(ka, 0xffff, 0, 0, IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA);
	if (IS_ERR(buf)) {
		*why = "no send buffer";
		return NULL;
	}
	*bufp = buf;
	smp = buf->mad;
	km_dr_fill(smp, method, attr, hops, path, 0x5a5a0000 | method << 8 | be16_to_cpu(attr));
	smp->mkey = mkey;
	if (data)
		memcpy(smp->data, data, sizeof(smp->data));
	buf->timeout_ms = 1000;
	buf->retries = 1;
	ret = ib_post_send_mad(buf, NULL);
	if (ret) {
		*why = "post failed";
		return NULL;
	}
	if (!km_wait(&ka->send_done, 5000)) {
		*why = "no send completion";
		return NULL;
	}
	if (ka->status != IB_WC_SUCCESS || !ka->rwc) {
		*why = ka->status == IB_WC_RESP_TIMEOUT_ERR ? "no response" : "send failed";
		return NULL;
	}
	if (ka->matched != buf || !ka->recv_before_send) {
		*why = "response not matched to its request before the send completed";
		return NULL;
	}
	return (struct ib_smp *)ka->rwc->recv_buf.mad;
}

static struct ib_smp *km_dr_get(struct km_agent *ka, __be16 attr, int hops, const u8 *path,
				struct ib_mad_send_buf **bufp, const char **why)
{
	return km_dr_send(ka, IB_MGMT_METHOD_GET, attr, 0, NULL, hops, path, bufp, why);
}

static void km_nodeinfo_case(struct km_run *r, struct km_agent *ka, const char *name,
			     int hops, const u8 *path, u8 want_port)
{
	struct ib_mad_send_buf *buf = NULL;
	const char *why = "";
	struct ib_smp *smp;
	__be64 guid;

	smp = km_dr_get(ka, IB_SMP_ATTR_NODE_INFO, hops, path, &buf, &why);
	if (!smp) {
		km_fail(r, name, "%s", why);
		goto out;
	}
	memcpy(&guid, smp->data + KM_NI_NODE_GUID, sizeof(guid));
	if (smp->method != IB_MGMT_METHOD_GET_RESP || smp->status != IB_SMP_DIRECTION)
		km_fail(r, name, "method 0x%x status 0x%x", smp->method, be16_to_cpu(smp->status));
	else if (guid != r->dev->node_guid)
		km_fail(r, name, "node GUID %016llx, ours %016llx", be64_to_cpu(guid),
			be64_to_cpu(r->dev->node_guid));
	else if (smp->data[KM_NI_LOCAL_PORT] != want_port)
		km_fail(r, name, "answered by port %u, expected %u",
			smp->data[KM_NI_LOCAL_PORT], want_port);
	else if (be64_to_cpu(smp->tid) >> 32 != ka->agent->hi_tid)
		km_fail(r, name, "TID %llx without the agent's hi_tid %x",
			be64_to_cpu(smp->tid), ka->agent->hi_tid);
	else
		km_pass(r, name);
out:
	km_send_free(buf);
}

/* a fake SM on port sm_port: answers SMInfo Gets itself */
static void km_sm_recv(struct km_agent *sm, struct ib_mad_recv_wc *rwc)
{
	struct ib_smp *req = (struct ib_smp *)rwc->recv_buf.mad;
	struct ib_mad_send_buf *buf;

	if (req->method != IB_MGMT_METHOD_GET)
		return;
	buf = km_send_buf(sm, 0xffff, 0, 0, IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA);
	if (IS_ERR(buf))
		return;
	memcpy(buf->mad, req, IB_MGMT_MAD_SIZE);
	req = buf->mad;
	req->method = IB_MGMT_METHOD_GET_RESP;
	req->status = IB_SMP_DIRECTION;
	req->data[0] = 0x42;		/* recognisable */
	if (ib_post_send_mad(buf, NULL))
		km_send_free(buf);
}

static void km_sminfo_case(struct km_run *r, struct km_agent *ka, u32 sm_port,
			   const char *name, int hops, const u8 *path)
{
	struct ib_mad_reg_req req = {
		.mgmt_class = IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE,
		.mgmt_class_version = 1,
	};
	struct ib_mad_send_buf *buf = NULL;
	struct km_agent *sm;
	const char *why = "";
	struct ib_smp *smp;
	int ret;

	sm = kzalloc(sizeof(*sm), GFP_KERNEL);
	if (!sm) {
		km_fail(r, name, "no memory");
		return;
	}
	set_bit(IB_MGMT_METHOD_GET, req.method_mask);
	ret = km_agent_open(sm, r->dev, sm_port, IB_QPT_SMI, &req, 0);
	if (ret) {
		km_fail(r, name, "SM agent: %d", ret);
		kfree(sm);
		return;
	}
	sm->on_recv = km_sm_recv;
	sm->free_sends = true;
	smp = km_dr_get(ka, IB_SMP_ATTR_SM_INFO, hops, path, &buf, &why);
	if (!smp)
		km_fail(r, name, "%s", why);
	else if (smp->method != IB_MGMT_METHOD_GET_RESP || smp->data[0] != 0x42)
		km_fail(r, name, "not the SM agent's answer (method 0x%x)", smp->method);
	else if (!km_wait(&sm->send_done, 2000) || sm->status != IB_WC_SUCCESS)
		km_fail(r, name, "the SM agent's reply did not complete");
	else
		km_pass(r, name);
	km_send_free(buf);
	km_agent_close(sm);
	kfree(sm);
}

/*
 * An SMP of a class version the SMA does not speak is answered with the
 * BAD_VERSION status, over the cable (port 1 to port 2's LID).
 */
static void km_bad_version_case(struct km_run *r)
{
	const char *name = "smp-class-version-2-answered-bad-version";
	u16 lid2 = km_port_lid(r->dev, 2);
	struct ib_mad_send_buf *buf;
	struct km_agent *ka;
	struct ib_smp *smp;

	ka = km_agent_new(r, name, 1, IB_QPT_SMI);
	if (!ka)
		return;
	km_agent_reset(ka);
	buf = km_send_buf(ka, lid2, 0, 0, IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA);
	if (IS_ERR(buf)) {
		km_fail(r, name, "no send buffer");
		goto out;
	}
	smp = buf->mad;
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	smp->class_version = 2;
	smp->method = IB_MGMT_METHOD_GET;
	smp->attr_id = IB_SMP_ATTR_NODE_INFO;
	smp->tid = cpu_to_be64(0x5b5b0002);
	buf->timeout_ms = 1000;
	buf->retries = 1;
	if (ib_post_send_mad(buf, NULL)) {
		km_fail(r, name, "post failed");
		km_send_free(buf);
		goto out;
	}
	if (!km_wait(&ka->send_done, 5000)) {
		km_fail(r, name, "no send completion");
	} else if (ka->status != IB_WC_SUCCESS || !ka->rwc) {
		km_fail(r, name, "no answer (status %d)", ka->status);
	} else {
		smp = (struct ib_smp *)ka->rwc->recv_buf.mad;
		if (smp->method != IB_MGMT_METHOD_GET_RESP ||
		    be16_to_cpu(smp->status) != IB_MGMT_MAD_STATUS_BAD_VERSION)
			km_fail(r, name, "method 0x%x status 0x%x", smp->method,
				be16_to_cpu(smp->status));
		else
			km_pass(r, name);
	}
	km_send_free(buf);
out:
	km_agent_free(ka);
}

void km_smp_cases(struct km_run *r)
{
	static const u8 p1[] = { 1 }, p2[] = { 2 };
	struct ib_mad_send_buf *buf;
	struct ib_smp *smp;
	struct km_agent *ka;
	const char *why = "";
	int ret;

	ka = kcalloc(2, sizeof(*ka), GFP_KERNEL);
	if (!ka) {
		km_fail(r, "smp-agents", "no memory");
		return;
	}
	ret = km_agent_open(&ka[0], r->dev, 1, IB_QPT_SMI, NULL, 0);
	if (!ret)
		ret = km_agent_open(&ka[1], r->dev, 2, IB_QPT_SMI, NULL, 0);
	if (ret) {
		km_fail(r, "smp-agents", "send-only SMI agents: %d", ret);
		goto out;
	}

	km_nodeinfo_case(r, &ka[0], "dr-hop0-nodeinfo-local", 0, NULL, 1);
	km_nodeinfo_case(r, &ka[1], "dr-hop0-nodeinfo-local-port2", 0, NULL, 2);
	km_nodeinfo_case(r, &ka[0], "dr-hop1-out-port1-answered-by-port2", 1, p1, 2);
	km_nodeinfo_case(r, &ka[1], "dr-hop1-out-port2-answered-by-port1", 1, p2, 1);

	/* a path starting on the other port is refused at post time */
	km_agent_reset(&ka[0]);
	buf = km_send_buf(&ka[0], 0xffff, 0, 0, IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA);
	if (IS_ERR(buf)) {
		km_fail(r, "dr-path-wrong-port-refused", "no send buffer");
	} else {
		km_dr_fill(buf->mad, IB_MGMT_METHOD_GET, IB_SMP_ATTR_NODE_INFO, 1, p2, 1);
		buf->timeout_ms = 100;
		ret = ib_post_send_mad(buf, NULL);
		if (ret == -EINVAL)
			km_pass(r, "dr-path-wrong-port-refused");
		else
			km_fail(r, "dr-path-wrong-port-refused", "post returned %d", ret);
		if (!ret)
			km_wait(&ka[0].send_done, 2000);
		km_send_free(buf);
	}

	/* SMInfo: not the SMA's; nobody claims it -> "unsupported" */
	buf = NULL;
	smp = km_dr_get(&ka[0], IB_SMP_ATTR_SM_INFO, 0, NULL, &buf, &why);
	if (!smp)
		km_fail(r, "dr-hop0-sminfo-unclaimed", "%s", why);
	else if ((be16_to_cpu(smp->status) & 0x7fff) !=
		 IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB)
		km_fail(r, "dr-hop0-sminfo-unclaimed", "status 0x%x",
			be16_to_cpu(smp->status));
	else
		km_pass(r, "dr-hop0-sminfo-unclaimed");
	km_send_free(buf);

	km_sminfo_case(r, &ka[0], 1, "dr-hop0-sminfo-to-local-sm-agent", 0, NULL);
	km_sminfo_case(r, &ka[0], 2, "dr-hop1-sminfo-to-sm-agent-over-cable", 1, p1);
	km_mkey_cases(r, &ka[0]);
	km_bad_version_case(r);
out:
	km_agent_close(&ka[1]);
	km_agent_close(&ka[0]);
	kfree(ka);
}

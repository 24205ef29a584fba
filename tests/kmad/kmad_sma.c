// SPDX-License-Identifier: GPL-2.0
/*
 * The MAD layer test client: the card's agents through ib_mad, attribute by
 * attribute, with the big-endian attribute ids of <rdma/ib_smi.h> and
 * <rdma/ib_pma.h>.  A DR Get hop 0 of each SMA attribute the card has is
 * answered (only the D bit in the status, the attribute id echoed, the
 * content the port's); a Set of PKeyTable, GUIDInfo and PortInfo (with
 * ClientReregister) raises the port event mlx4_ib derives from it; the PMA
 * answers ClassPortInfo and PortCountersExtended over the cable.  Also the
 * ClassPortInfo and RMPP header inlines on a buffer.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "kmad.h"

/* one attribute: its id, modifier, name; the content checked elsewhere */
struct km_sma_attr {
	__be16		id;
	u32		mod;
	const char	*name;
};

/*
 * A DR SMP hop 0 from ka (method, a's id and modifier, data if not NULL)
 * and its answer (in ka->rwc), or NULL with *why.
 */
static struct ib_smp *km_sma_send(struct km_agent *ka, u8 method,
				  const struct km_sma_attr *a, const u8 *data,
				  struct ib_mad_send_buf **bufp, const char **why)
{
	struct ib_mad_send_buf *buf;
	struct ib_smp *smp;

	km_agent_reset(ka);
	buf = km_send_buf(ka, 0xffff, 0, 0, IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA);
	if (IS_ERR(buf)) {
		*why = "no send buffer";
		return NULL;
	}
	*bufp = buf;
	smp = buf->mad;
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
	smp->class_version = 1;
	smp->method = method;
	smp->attr_id = a->id;
	smp->attr_mod = cpu_to_be32(a->mod);
	smp->tid = cpu_to_be64(0x53410000 | method << 8 | be16_to_cpu(a->id));
	smp->dr_slid = IB_LID_PERMISSIVE;
	smp->dr_dlid = IB_LID_PERMISSIVE;
	if (data)
		memcpy(smp->data, data, IB_SMP_DATA_SIZE);
	buf->timeout_ms = 1000;
	buf->retries = 1;
	if (ib_post_send_mad(buf, NULL)) {
		*why = "post failed";
		return NULL;
	}
	if (!km_wait(&ka->send_done, 5000)) {
		*why = "no send completion";
		return NULL;
	}
	if (ka->status != IB_WC_SUCCESS || !ka->rwc) {
		*why = "no response";
		return NULL;
	}
	return (struct ib_smp *)ka->rwc->recv_buf.mad;
}

/* the answer is a GetResp of a with nothing but the D bit in its status */
static bool km_sma_answer_ok(const struct ib_smp *smp, const struct km_sma_attr *a,
			     const char **why)
{
	if (smp->method != IB_MGMT_METHOD_GET_RESP)
		*why = "not a GetResp";
	else if (smp->status != IB_SMP_DIRECTION)
		*why = "status other than the D bit";
	else if (smp->attr_id != a->id)
		*why = "another attribute id";
	else if (!ib_get_smp_direction((struct ib_smp *)smp))
		*why = "ib_get_smp_direction() says outbound";
	else
		return true;
	return false;
}

/* a DR Get hop 0 of a from ka: true and the answer's data in data */
static bool km_sma_get(struct km_agent *ka, const struct km_sma_attr *a, u8 *data,
		       const char **why)
{
	struct ib_mad_send_buf *buf = NULL;
	struct ib_smp *smp;
	bool ok;

	smp = km_sma_send(ka, IB_MGMT_METHOD_GET, a, NULL, &buf, why);
	ok = smp && km_sma_answer_ok(smp, a, why);
	if (ok && data)
		memcpy(data, smp->data, IB_SMP_DATA_SIZE);
	km_send_free(buf);
	return ok;
}

static const struct km_sma_attr km_node_desc = { IB_SMP_ATTR_NODE_DESC, 0, "nodedesc" };
static const struct km_sma_attr km_node_info = { IB_SMP_ATTR_NODE_INFO, 0, "nodeinfo" };
static const struct km_sma_attr km_port_info = { IB_SMP_ATTR_PORT_INFO, 1, "portinfo" };
static const struct km_sma_attr km_pkey_table = { IB_SMP_ATTR_PKEY_TABLE, 0, "pkeytable" };
static const struct km_sma_attr km_guid_info = { IB_SMP_ATTR_GUID_INFO, 0, "guidinfo" };
static const struct km_sma_attr km_sl2vl = { IB_SMP_ATTR_SL_TO_VL_TABLE, 0, "sl2vl" };
static const struct km_sma_attr km_vlarb = { IB_SMP_ATTR_VL_ARB_TABLE, 1 << 16, "vlarb" };

/* what every Get answered: the port's content, for the event cases */
struct km_sma_seen {
	u8	node_info[IB_SMP_DATA_SIZE];
	u8	port_info[IB_SMP_DATA_SIZE];
	u8	pkeys[IB_SMP_DATA_SIZE];
	u8	guids[IB_SMP_DATA_SIZE];
	bool	have_port_info;
	bool	have_pkeys;
	bool	have_guids;
};

/* DR Get hop 0 of each SMA attribute on port 1, content checked */
static void km_sma_get_cases(struct km_run *r, struct km_agent *ka, struct km_sma_seen *s)
{
	const struct ib_node_info *ni = (const void *)s->node_info;
	const struct ib_port_info *pi = (const void *)s->port_info;
	static const struct km_sma_attr *plain[] = { &km_sl2vl, &km_vlarb };
	u8 *d = kzalloc(IB_SMP_DATA_SIZE, GFP_KERNEL);
	const char *why = "";
	char name[48];
	__be64 guid0;
	u16 pkey0;
	int i;

	if (!d) {
		km_fail(r, "dr-hop0-get-sma-attributes", "no memory");
		return;
	}
	snprintf(name, sizeof(name), "dr-hop0-get-%s", km_node_desc.name);
	if (!km_sma_get(ka, &km_node_desc, d, &why))
		km_fail(r, name, "%s", why);
	else if (memcmp(d, r->dev->node_desc, IB_SMP_DATA_SIZE))
		km_fail(r, name, "\"%.64s\", the device's \"%.64s\"", d, r->dev->node_desc);
	else
		km_pass(r, name);

	snprintf(name, sizeof(name), "dr-hop0-get-%s", km_node_info.name);
	if (!km_sma_get(ka, &km_node_info, s->node_info, &why))
		km_fail(r, name, "%s", why);
	else if (ni->node_guid != r->dev->node_guid || ni->local_port_num != 1 ||
		 ni->num_ports != 2 || ni->class_version != 1)
		km_fail(r, name, "node GUID %016llx port %u of %u class version %u",
			be64_to_cpu(ni->node_guid), ni->local_port_num, ni->num_ports,
			ni->class_version);
	else
		km_pass(r, name);

	snprintf(name, sizeof(name), "dr-hop0-get-%s", km_port_info.name);
	s->have_port_info = km_sma_get(ka, &km_port_info, s->port_info, &why);
	if (!s->have_port_info)
		km_fail(r, name, "%s", why);
	else if (pi->local_port_num != 1 || be16_to_cpu(pi->lid) != km_port_lid(r->dev, 1))
		km_fail(r, name, "local port %u LID %u, port 1's LID %u", pi->local_port_num,
			be16_to_cpu(pi->lid), km_port_lid(r->dev, 1));
	else
		km_pass(r, name);

	snprintf(name, sizeof(name), "dr-hop0-get-%s", km_pkey_table.name);
	s->have_pkeys = km_sma_get(ka, &km_pkey_table, s->pkeys, &why);
	pkey0 = be16_to_cpup((__be16 *)s->pkeys);
	if (!s->have_pkeys)
		km_fail(r, name, "%s", why);
	else if ((pkey0 & 0x7fff) != IB_DEFAULT_PKEY_PARTIAL)
		km_fail(r, name, "entry 0 is 0x%04x, not the default partition", pkey0);
	else
		km_pass(r, name);

	snprintf(name, sizeof(name), "dr-hop0-get-%s", km_guid_info.name);
	s->have_guids = km_sma_get(ka, &km_guid_info, s->guids, &why);
	memcpy(&guid0, s->guids, sizeof(guid0));
	if (!s->have_guids)
		km_fail(r, name, "%s", why);
	else if (guid0 != ni->port_guid)
		km_fail(r, name, "GUID 0 %016llx, NodeInfo's port GUID %016llx",
			be64_to_cpu(guid0), be64_to_cpu(ni->port_guid));
	else
		km_pass(r, name);

	for (i = 0; i < ARRAY_SIZE(plain); i++) {
		snprintf(name, sizeof(name), "dr-hop0-get-%s", plain[i]->name);
		if (!km_sma_get(ka, plain[i], NULL, &why))
			km_fail(r, name, "%s", why);
		else
			km_pass(r, name);
	}
	kfree(d);
}

/* the port events the test waits for */
struct km_ev {
	struct ib_event_handler	eh;
	spinlock_t		lock;		/* protects seen */
	unsigned long		seen;		/* bits: enum ib_event_type, port 1 */
	struct completion	any;
};

static void km_ev_handler(struct ib_event_handler *eh, struct ib_event *ev)
{
	struct km_ev *e = container_of(eh, struct km_ev, eh);
	unsigned long flags;

	if (ev->element.port_num != 1 || ev->event >= BITS_PER_LONG)
		return;
	spin_lock_irqsave(&e->lock, flags);
	e->seen |= BIT(ev->event);
	spin_unlock_irqrestore(&e->lock, flags);
	complete(&e->any);
}

static bool km_ev_wait(struct km_ev *e, enum ib_event_type type)
{
	unsigned long flags;
	bool seen = false;
	int i;

	for (i = 0; i < 40 && !seen; i++) {
		spin_lock_irqsave(&e->lock, flags);
		seen = e->seen & BIT(type);
		spin_unlock_irqrestore(&e->lock, flags);
		if (!seen)
			km_wait(&e->any, 50);
	}
	return seen;
}

static void km_ev_reset(struct km_ev *e)
{
	unsigned long flags;

	spin_lock_irqsave(&e->lock, flags);
	e->seen = 0;
	spin_unlock_irqrestore(&e->lock, flags);
	reinit_completion(&e->any);
}

/*
 * A DR Set hop 0 of a with data (the content a Get returned, unchanged but
 * for what the caller altered): answered without error, and the event
 * mlx4_ib derives from a Set of that attribute reaches ib_core's handlers.
 */
static void km_sma_set_case(struct km_run *r, struct km_agent *ka, struct km_ev *e,
			    const char *name, const struct km_sma_attr *a, const u8 *data,
			    enum ib_event_type want)
{
	struct ib_mad_send_buf *buf = NULL;
	const char *why = NULL;
	struct ib_smp *smp;

	km_ev_reset(e);
	smp = km_sma_send(ka, IB_MGMT_METHOD_SET, a, data, &buf, &why);
	if (!smp)
		;	/* why says it */
	else if (!km_sma_answer_ok(smp, a, &why))
		;	/* why says it */
	else if (!km_ev_wait(e, want))
		why = "no such event on port 1 within 2 s";
	if (why)
		km_fail(r, name, "%s (event %s)", why, ib_event_msg(want));
	else
		km_pass(r, name);
	km_send_free(buf);
}

static void km_sma_set_cases(struct km_run *r, struct km_agent *ka, struct km_sma_seen *s)
{
	struct ib_port_info *pi = (void *)s->port_info;
	struct km_ev *e = kzalloc(sizeof(*e), GFP_KERNEL);

	if (!e) {
		km_fail(r, "dr-hop0-set-sma-events", "no memory");
		return;
	}
	spin_lock_init(&e->lock);
	init_completion(&e->any);
	INIT_IB_EVENT_HANDLER(&e->eh, r->dev, km_ev_handler);
	ib_register_event_handler(&e->eh);

	if (s->have_pkeys)
		km_sma_set_case(r, ka, e, "dr-hop0-set-pkeytable-raises-pkey-change",
				&km_pkey_table, s->pkeys, IB_EVENT_PKEY_CHANGE);
	else
		km_fail(r, "dr-hop0-set-pkeytable-raises-pkey-change", "no PKeyTable read");
	if (s->have_guids)
		km_sma_set_case(r, ka, e, "dr-hop0-set-guidinfo-raises-gid-change",
				&km_guid_info, s->guids, IB_EVENT_GID_CHANGE);
	else
		km_fail(r, "dr-hop0-set-guidinfo-raises-gid-change", "no GUIDInfo read");
	if (s->have_port_info) {
		/* the port's state fields at "no change", ClientReregister set */
		pi->linkspeed_portstate &= 0xf0;
		pi->portphysstate_linkdown &= 0x0f;
		pi->clientrereg_resv_subnetto |= 0x80;
		km_sma_set_case(r, ka, e, "dr-hop0-set-portinfo-rereg-raises-client-reregister",
				&km_port_info, s->port_info, IB_EVENT_CLIENT_REREGISTER);
	} else {
		km_fail(r, "dr-hop0-set-portinfo-rereg-raises-client-reregister",
			"no PortInfo read");
	}
	ib_unregister_event_handler(&e->eh);
	kfree(e);
}

/*
 * The PMA across the cable (port 1's GSI agent to port 2's LID):
 * ClassPortInfo as <rdma/ib_mad.h>'s struct reads it (the capability bits
 * of <rdma/ib_pma.h>, the response time the SMA's PortInfo gives), and
 * PortCountersExtended answered for the port selected.
 */
static void km_pma_cases(struct km_run *r, u8 resp_time)
{
	const char *cpi_name = "gsi-pma-classportinfo";
	const char *ext_name = "gsi-pma-portcounters-ext";
	u16 lid2 = km_port_lid(r->dev, 2);
	struct ib_class_port_info *cpi;
	struct ib_pma_portcounters_ext *pcx;
	struct ib_mad_send_buf *buf;
	struct ib_pma_mad *pma;
	struct km_agent *ka;

	ka = km_agent_new(r, cpi_name, 1, IB_QPT_GSI);
	if (!ka)
		return;
	km_agent_reset(ka);
	buf = km_gmp_post(ka, lid2, IB_MGMT_CLASS_PERF_MGMT, 1, IB_MGMT_METHOD_GET,
			  IB_PMA_CLASS_PORT_INFO, 1000, 1);
	pma = buf && km_wait(&ka->send_done, 5000) && ka->rwc ?
	      (struct ib_pma_mad *)ka->rwc->recv_buf.mad : NULL;
	cpi = pma ? (struct ib_class_port_info *)pma->data : NULL;
	if (!pma)
		km_fail(r, cpi_name, "no answer (send status %d)", ka->status);
	else if (pma->mad_hdr.status || pma->mad_hdr.attr_id != IB_PMA_CLASS_PORT_INFO)
		km_fail(r, cpi_name, "status 0x%x attribute 0x%x", be16_to_cpu(pma->mad_hdr.status),
			be16_to_cpu(pma->mad_hdr.attr_id));
	else if (cpi->base_version != 1 || cpi->class_version != 1 ||
		 !(cpi->capability_mask & IB_PMA_CLASS_CAP_EXT_WIDTH) ||
		 !(cpi->capability_mask & IB_PMA_CLASS_CAP_XMIT_WAIT) ||
		 (cpi->capability_mask & IB_PMA_CLASS_CAP_ALLPORTSELECT))
		km_fail(r, cpi_name, "versions %u/%u capability mask 0x%04x", cpi->base_version,
			cpi->class_version, be16_to_cpu(cpi->capability_mask));
	else if (ib_get_cpi_resp_time(cpi) != resp_time || ib_get_cpi_capmask2(cpi))
		km_fail(r, cpi_name, "response time %u (PortInfo's %u), CapabilityMask2 0x%x",
			ib_get_cpi_resp_time(cpi), resp_time, ib_get_cpi_capmask2(cpi));
	else
		km_pass(r, cpi_name);
	km_send_free(buf);

	km_agent_reset(ka);
	buf = km_send_buf(ka, lid2, 1, 0, IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA);
	if (IS_ERR(buf)) {
		km_fail(r, ext_name, "no send buffer");
		goto out;
	}
	km_gmp_fill(buf->mad, IB_MGMT_CLASS_PERF_MGMT, 1, IB_MGMT_METHOD_GET,
		    IB_PMA_PORT_COUNTERS_EXT, 0x77001d);
	pma = buf->mad;
	pcx = (struct ib_pma_portcounters_ext *)pma->data;
	pcx->port_select = 2;
	pcx->counter_select = IB_PMA_SELX_PORT_XMIT_DATA | IB_PMA_SELX_PORT_RCV_DATA;
	buf->timeout_ms = 1000;
	buf->retries = 1;
	if (ib_post_send_mad(buf, NULL)) {
		km_fail(r, ext_name, "post failed");
		goto out_buf;
	}
	pma = km_wait(&ka->send_done, 5000) && ka->rwc ?
	      (struct ib_pma_mad *)ka->rwc->recv_buf.mad : NULL;
	pcx = pma ? (struct ib_pma_portcounters_ext *)pma->data : NULL;
	if (!pma)
		km_fail(r, ext_name, "no answer (send status %d)", ka->status);
	else if (pma->mad_hdr.status || pma->mad_hdr.attr_id != IB_PMA_PORT_COUNTERS_EXT)
		km_fail(r, ext_name, "status 0x%x attribute 0x%x", be16_to_cpu(pma->mad_hdr.status),
			be16_to_cpu(pma->mad_hdr.attr_id));
	else if (pcx->port_select != 2 ||
		 pcx->counter_select != (IB_PMA_SELX_PORT_XMIT_DATA | IB_PMA_SELX_PORT_RCV_DATA))
		km_fail(r, ext_name, "port %u counter select 0x%04x", pcx->port_select,
			be16_to_cpu(pcx->counter_select));
	else
		km_pass(r, ext_name);
out_buf:
	km_send_free(buf);
out:
	km_agent_free(ka);
}

/* the header inlines on a buffer: ClassPortInfo's packed field, RMPP's */
static void km_inline_case(struct km_run *r)
{
	const char *name = "header-inlines-cpi-and-rmpp";
	struct ib_class_port_info cpi = {};
	struct ib_rmpp_hdr rh = {};
	const char *why = NULL;

	ib_set_cpi_resp_time(&cpi, 0x13);
	ib_set_cpi_capmask2(&cpi, 0x5a5a5a5U);
	if (cpi.cap_mask2_resp_time != cpu_to_be32(0x5a5a5a5U << 5 | 0x13))
		why = "cap_mask2_resp_time after both setters";
	ib_set_cpi_resp_time(&cpi, 0xff);	/* 5 bits only */
	if (!why && (ib_get_cpi_resp_time(&cpi) != 0x1f || ib_get_cpi_capmask2(&cpi) != 0x5a5a5a5U))
		why = "resp_time setter touched CapabilityMask2 or kept more than 5 bits";
	ib_set_cpi_capmask2(&cpi, 0);
	if (!why && cpi.cap_mask2_resp_time != cpu_to_be32(0x1f))
		why = "capmask2 setter touched the response time";

	ib_set_rmpp_flags(&rh, IB_MGMT_RMPP_FLAG_ACTIVE | IB_MGMT_RMPP_FLAG_LAST);
	ib_set_rmpp_resptime(&rh, IB_MGMT_RMPP_NO_RESPTIME);
	if (!why && (rh.rmpp_rtime_flags != (0x1f << 3 | 0x5) ||
		     ib_get_rmpp_resptime(&rh) != IB_MGMT_RMPP_NO_RESPTIME ||
		     ib_get_rmpp_flags(&rh) != 5))
		why = "RMPP response time and flags";
	if (why)
		km_fail(r, name, "%s", why);
	else
		km_pass(r, name);
}

void km_sma_cases(struct km_run *r)
{
	struct km_sma_seen *s = kzalloc(sizeof(*s), GFP_KERNEL);
	struct km_agent *ka;
	u8 resp_time;

	km_inline_case(r);
	if (!s) {
		km_fail(r, "sma-cases", "no memory");
		return;
	}
	ka = km_agent_new(r, "sma-cases", 1, IB_QPT_SMI);
	if (ka) {
		km_sma_get_cases(r, ka, s);
		resp_time = ((struct ib_port_info *)s->port_info)->resv_resptimevalue & 0x1f;
		km_sma_set_cases(r, ka, s);
		km_agent_free(ka);
		km_pma_cases(r, resp_time);
	}
	kfree(s);
}

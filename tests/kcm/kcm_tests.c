// SPDX-License-Identifier: GPL-2.0
/*
 * The scenarios, each between port 1 (the active side, "act") and port 2
 * (the passive side, "pas") of one card cabled to itself: a connection
 * with data both ways and its release; REJs; a REQ that times out and a
 * REQ's sender that gives up; an MRA that buys time; SIDR; disconnects
 * from the passive side, from both sides at once, and by destruction; a
 * LAP (written here: ib_cm no longer sends one) and its MRA.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/string.h>
#include <rdma/ib_mad.h>
#include <ibstack/compat.h>
#include "kcm.h"

#define KCM_SID(n)	cpu_to_be64(0x1000000000000ULL + (n))
/* time for the answers a test waits for (the model and its timers are slow) */
#define KCM_WAIT_MS	5000

static struct kcm_side act, pas;

static bool kcm_setup(const char *name, __be64 sid, enum kcm_req_mode mode)
{
	int ret = kcm_side_init(&act, "act", 1);

	if (!ret)
		ret = kcm_side_init(&pas, "pas", 2);
	if (!ret) {
		pas.mode = mode;
		pas.listen_id = ib_create_cm_id(kcm.device, kcm_handler, &pas);
		if (IS_ERR(pas.listen_id)) {
			ret = PTR_ERR(pas.listen_id);
			pas.listen_id = NULL;
		}
	}
	if (!ret && sid)
		ret = ib_cm_listen(pas.listen_id, sid);
	if (ret)
		kcm_check(false, name, "setup: %d", ret);
	return !ret;
}

static void kcm_teardown(void)
{
	kcm_side_fini(&act);
	kcm_side_fini(&pas);
}

static bool kcm_has_data(struct kcm_event *e, const char *data)
{
	return e && !memcmp(e->private_data, data, 8);
}

/* act connects to pas (accepting): both established, returns true if so */
static bool kcm_establish(const char *name, __be64 sid)
{
	unsigned int a = 0, p = 0;
	struct kcm_event *e;
	int ret;

	ret = kcm_connect(&act, 2, sid, 3);
	e = ret ? NULL : kcm_wait(&pas, IB_CM_REQ_RECEIVED, &p, KCM_WAIT_MS);
	kcm_check(kcm_has_data(e, "kcm-req"),
		  "cm-establish: the listener gets the REQ and its private data",
		  "ib_send_cm_req %d, REQ_RECEIVED %s", ret, e ? "without the data" : "missing");
	e = kcm_wait(&act, IB_CM_REP_RECEIVED, &a, KCM_WAIT_MS);
	kcm_check(kcm_has_data(e, "kcm-rep"),
		  "cm-establish: the REP and its private data come back",
		  "REP_RECEIVED %s", e ? "without the data" : "missing");
	if (!e)
		return false;
	ret = kcm_qp_to_rts(&act, 0);
	if (!ret)
		ret = ib_send_cm_rtu(act.cm_id, NULL, 0);
	kcm_check(!ret, "cm-establish: QP to RTS from ib_cm_init_qp_attr(), then RTU", "%d", ret);
	e = kcm_wait(&pas, IB_CM_RTU_RECEIVED, &p, KCM_WAIT_MS);
	kcm_check(e && pas.cm_id && pas.cm_id->state == IB_CM_ESTABLISHED &&
		  act.cm_id->state == IB_CM_ESTABLISHED, name,
		  "not established on both sides (RTU %s, states %d %d)", e ? "in" : "missing",
		  act.cm_id->state, pas.cm_id ? pas.cm_id->state : -1);
	return e && !ret;
}

void kcm_run_conn(void)
{
	const char *name = "cm-conn";
	unsigned int a = 0, p = 0;
	struct kcm_event *e;
	int ret;

	if (!kcm_setup(name, KCM_SID(1), KCM_ACCEPT))
		goto out;
	if (!kcm_establish("cm-conn: REQ, REP, RTU: established on both sides", KCM_SID(1)))
		goto out;
	ret = kcm_exchange(&act, &pas);
	kcm_check(!ret, "cm-conn: a SEND active to passive arrives intact", "%d", ret);
	ret = kcm_exchange(&pas, &act);
	kcm_check(!ret, "cm-conn: a SEND passive to active arrives intact", "%d", ret);

	ret = ib_send_cm_dreq(act.cm_id, NULL, 0);
	kcm_check(!ret, "cm-conn: DREQ from the active side", "%d", ret);
	e = kcm_wait(&pas, IB_CM_DREQ_RECEIVED, &p, KCM_WAIT_MS);
	kcm_check(e, "cm-conn: the passive side gets DREQ_RECEIVED", "missing");
	e = kcm_wait(&act, IB_CM_DREP_RECEIVED, &a, KCM_WAIT_MS);
	kcm_check(e, "cm-conn: the active side gets DREP_RECEIVED", "missing");
	e = kcm_wait(&act, IB_CM_TIMEWAIT_EXIT, &a, KCM_WAIT_MS);
	kcm_check(e && act.cm_id->state == IB_CM_IDLE,
		  "cm-conn: the active side leaves time wait, idle", "missing");
	e = kcm_wait(&pas, IB_CM_TIMEWAIT_EXIT, &p, KCM_WAIT_MS);
	kcm_check(e, "cm-conn: the passive side leaves time wait", "missing");
out:
	kcm_teardown();
}

void kcm_run_rej(void)
{
	struct ib_cm_id *other, *shared;
	unsigned int a = 0;
	struct kcm_event *e;
	int ret;

	if (!kcm_setup("cm-rej", KCM_SID(2), KCM_REJECT))
		goto out;
	/* nobody listens on KCM_SID(3) */
	ret = kcm_connect(&act, 2, KCM_SID(3), 3);
	e = ret ? NULL : kcm_wait(&act, IB_CM_REJ_RECEIVED, &a, KCM_WAIT_MS);
	kcm_check(e && e->reason == IB_CM_REJ_INVALID_SERVICE_ID,
		  "cm-rej: a REQ to a service nobody listens on: REJ, invalid service ID",
		  "req %d, reason %d", ret, e ? e->reason : -1);
	kcm_check(act.cm_id && act.cm_id->state == IB_CM_IDLE,
		  "cm-rej: the rejected cm_id is idle again", "state %d",
		  act.cm_id ? act.cm_id->state : -1);

	ret = kcm_connect(&act, 2, KCM_SID(2), 3);
	e = ret ? NULL : kcm_wait(&act, IB_CM_REJ_RECEIVED, &a, KCM_WAIT_MS);
	kcm_check(e && e->reason == IB_CM_REJ_CONSUMER_DEFINED && kcm_has_data(e, "kcm-rej"),
		  "cm-rej: the listener's REJ arrives, consumer defined, with its private data",
		  "req %d, reason %d", ret, e ? e->reason : -1);

	/* listening */
	other = ib_create_cm_id(kcm.device, kcm_handler, &pas);
	if (!IS_ERR(other)) {
		ret = ib_cm_listen(other, KCM_SID(2));
		kcm_check(ret == -EBUSY, "cm-rej: a second listener on a service ID: EBUSY",
			  "%d", ret);
		ret = ib_cm_listen(other, cpu_to_be64(0x0200000000000001ULL));
		kcm_check(ret == -EINVAL,
			  "cm-rej: listening on an ID of the assigned range: EINVAL", "%d", ret);
		ret = ib_cm_listen(other, IB_CM_ASSIGN_SERVICE_ID);
		kcm_check(!ret && (other->service_id & IB_SERVICE_ID_AGN_MASK) ==
			  IB_CM_ASSIGN_SERVICE_ID,
			  "cm-rej: IB_CM_ASSIGN_SERVICE_ID gives an ID of its range",
			  "%d, 0x%llx", ret, be64_to_cpu(other->service_id));
		ret = ib_cm_listen(other, KCM_SID(9));
		kcm_check(ret == -EINVAL, "cm-rej: listening twice on one cm_id: EINVAL",
			  "%d", ret);
		ib_destroy_cm_id(other);
	}
	shared = ib_cm_insert_listen(kcm.device, kcm_handler, KCM_SID(4));
	other = ib_cm_insert_listen(kcm.device, kcm_handler, KCM_SID(4));
	kcm_check(!IS_ERR(shared) && other == shared,
		  "cm-rej: ib_cm_insert_listen() twice with one handler shares the listener",
		  "%d %d", PTR_ERR_OR_ZERO(shared), PTR_ERR_OR_ZERO(other));
	if (!IS_ERR(other))
		ib_destroy_cm_id(other);
	if (!IS_ERR(shared))
		ib_destroy_cm_id(shared);
out:
	kcm_teardown();
}

void kcm_run_timeout(void)
{
	unsigned int a = 0, p = 0;
	struct kcm_event *e;
	int ret;

	if (!kcm_setup("cm-timeout", KCM_SID(5), KCM_IGNORE))
		goto out;
	/* one retry: the REQ goes twice, then the active side gives up */
	ret = kcm_connect(&act, 2, KCM_SID(5), 1);
	e = ret ? NULL : kcm_wait(&act, IB_CM_REQ_ERROR, &a, KCM_WAIT_MS);
	kcm_check(e && e->reason == IB_WC_RESP_TIMEOUT_ERR,
		  "cm-timeout: an unanswered REQ ends in REQ_ERROR (response timeout)",
		  "req %d, status %d", ret, e ? e->reason : -1);
	kcm_check(act.cm_id && act.cm_id->state == IB_CM_IDLE,
		  "cm-timeout: ... and the cm_id is idle", "state %d",
		  act.cm_id ? act.cm_id->state : -1);
	e = kcm_wait(&pas, IB_CM_REQ_RECEIVED, &p, 0);
	kcm_check(e, "cm-timeout: the passive side saw the REQ", "missing");

	/*
	 * the active side gives up itself: the passive side hears of it.
	 * A fresh active cm_id (a new communication ID): the REJ that the
	 * passive cm_id's destruction sends, if it came late, would reject
	 * the new REQ of a reused one (the debug kernel saw that).
	 */
	if (act.cm_id) {
		ib_destroy_cm_id(act.cm_id);
		act.cm_id = NULL;
	}
	if (pas.cm_id) {
		ib_destroy_cm_id(pas.cm_id);
		pas.cm_id = NULL;
	}
	ret = kcm_connect(&act, 2, KCM_SID(5), 3);
	e = ret ? NULL : kcm_wait(&pas, IB_CM_REQ_RECEIVED, &p, KCM_WAIT_MS);
	if (e) {
		ib_destroy_cm_id(act.cm_id);
		act.cm_id = NULL;
		e = kcm_wait(&pas, IB_CM_REJ_RECEIVED, &p, KCM_WAIT_MS);
	}
	kcm_check(e && e->reason == IB_CM_REJ_TIMEOUT,
		  "cm-timeout: destroying a cm_id whose REQ is out REJects it (timeout)",
		  "req %d, reason %d", ret, e ? e->reason : -1);
out:
	kcm_teardown();
}

void kcm_run_mra(void)
{
	unsigned int a = 0, p = 0;
	struct kcm_event *e;
	int ret;

	if (!kcm_setup("cm-mra", KCM_SID(6), KCM_MRA))
		goto out;
	/* without the MRA this REQ would give up after about 0.8 s */
	ret = kcm_connect(&act, 2, KCM_SID(6), 1);
	e = ret ? NULL : kcm_wait(&act, IB_CM_MRA_RECEIVED, &a, KCM_WAIT_MS);
	kcm_check(e && e->value == 20, "cm-mra: the MRA arrives with its service timeout",
		  "req %d, timeout %d", ret, e ? (int)e->value : -1);
	msleep(1500);
	a = 0;
	kcm_check(!kcm_wait(&act, IB_CM_REQ_ERROR, &a, 0),
		  "cm-mra: no REQ_ERROR while the MRA's time runs", "REQ_ERROR");
	e = kcm_wait(&pas, IB_CM_REQ_RECEIVED, &p, 0);
	ret = e && pas.cm_id ? kcm_accept(&pas) : -ENOENT;
	e = ret ? NULL : kcm_wait(&act, IB_CM_REP_RECEIVED, &a, KCM_WAIT_MS);
	kcm_check(e, "cm-mra: the late REP arrives", "accept %d", ret);
	if (!e)
		goto out;
	ret = kcm_qp_to_rts(&act, 0);
	if (!ret)
		ret = ib_send_cm_rtu(act.cm_id, NULL, 0);
	e = ret ? NULL : kcm_wait(&pas, IB_CM_RTU_RECEIVED, &p, KCM_WAIT_MS);
	kcm_check(e, "cm-mra: established after the MRA", "%d", ret);

	/* the passive side ends it */
	ret = ib_send_cm_dreq(pas.cm_id, NULL, 0);
	e = ret ? NULL : kcm_wait(&act, IB_CM_DREQ_RECEIVED, &a, KCM_WAIT_MS);
	kcm_check(e, "cm-mra: a DREQ from the passive side reaches the active side",
		  "%d", ret);
	e = kcm_wait(&pas, IB_CM_DREP_RECEIVED, &p, KCM_WAIT_MS);
	kcm_check(e, "cm-mra: ... and its DREP comes back", "missing");
out:
	kcm_teardown();
}

void kcm_run_sidr(void)
{
	struct ib_cm_sidr_req_param req = {
		.timeout_ms = 500,
		.max_cm_retries = 2,
	};
	struct sa_path_rec path;
	unsigned int a = 0;
	struct kcm_event *e;
	int ret;

	if (!kcm_setup("cm-sidr", KCM_SID(7), KCM_ACCEPT))
		goto out;
	act.cm_id = ib_create_cm_id(kcm.device, kcm_handler, &act);
	if (IS_ERR(act.cm_id)) {
		act.cm_id = NULL;
		goto out;
	}
	kcm_path(&path, 1, 2);
	req.path = &path;
	req.service_id = KCM_SID(7);
	ret = ib_send_cm_sidr_req(act.cm_id, &req);
	e = ret ? NULL : kcm_wait(&act, IB_CM_SIDR_REP_RECEIVED, &a, KCM_WAIT_MS);
	kcm_check(e && e->reason == IB_SIDR_SUCCESS && e->value == pas.qp->qp_num,
		  "cm-sidr: SIDR REQ answered with the listener's QP number",
		  "req %d, status %d, qpn 0x%x", ret, e ? e->reason : -1, e ? e->value : 0);

	req.service_id = KCM_SID(8);
	ret = ib_send_cm_sidr_req(act.cm_id, &req);
	e = ret ? NULL : kcm_wait(&act, IB_CM_SIDR_REP_RECEIVED, &a, KCM_WAIT_MS);
	kcm_check(e && e->reason == IB_SIDR_UNSUPPORTED,
		  "cm-sidr: a SIDR REQ nobody listens for: status unsupported",
		  "req %d, status %d", ret, e ? e->reason : -1);
out:
	kcm_teardown();
}

void kcm_run_disc(void)
{
	unsigned int a = 0, p = 0;
	struct kcm_event *e, *f;
	int r1, r2;

	if (!kcm_setup("cm-disc", KCM_SID(10), KCM_ACCEPT))
		goto out;
	if (!kcm_establish("cm-disc: established", KCM_SID(10)))
		goto out;
	/*
	 * both sides at once; if the first DREQ already reached the passive
	 * side, its own is refused (no longer established): -EINVAL
	 */
	r1 = ib_send_cm_dreq(act.cm_id, NULL, 0);
	r2 = ib_send_cm_dreq(pas.cm_id, NULL, 0);
	e = kcm_wait(&act, IB_CM_TIMEWAIT_EXIT, &a, KCM_WAIT_MS);
	f = kcm_wait(&pas, IB_CM_TIMEWAIT_EXIT, &p, KCM_WAIT_MS);
	kcm_check(!r1 && (!r2 || r2 == -EINVAL) && e && f,
		  "cm-disc: DREQs crossing: both sides end in time wait and leave it",
		  "dreq %d %d, exits %d %d", r1, r2, !!e, !!f);

	/* destroying an established cm_id disconnects; the peer's handler ends it */
	kcm_side_fini(&act);
	kcm_side_fini(&pas);
	if (!kcm_setup("cm-disc", KCM_SID(11), KCM_ACCEPT) ||
	    !kcm_establish("cm-disc: established again", KCM_SID(11)))
		goto out;
	a = 0;
	p = 0;
	pas.destroy_on_event = true;
	ib_destroy_cm_id(act.cm_id);
	act.cm_id = NULL;
	e = kcm_wait(&pas, IB_CM_DREQ_RECEIVED, &p, KCM_WAIT_MS);
	kcm_check(e, "cm-disc: destroying an established cm_id sends a DREQ", "missing");
	msleep(200);
	kcm_check(!pas.cm_id,
		  "cm-disc: a handler's non-zero return destroys its cm_id", "still there");
out:
	kcm_teardown();
}

/* --- LAP: the passive side of a connection gets an alternate path ------------ */

static DECLARE_COMPLETION(kcm_lap_done);
static enum ib_wc_status kcm_lap_status;

static void kcm_lap_sent(struct ib_mad_agent *agent,
			 struct ib_mad_send_wc *wc)
{
	kcm_lap_status = wc->status;
	complete(&kcm_lap_done);
}

/*
 * A LAP (IBA 12.6.12, table 115) as the active side of act's connection
 * would send it, from port 1's QP1 to port 2's, proposing the alternate
 * path from LID local_lid to LID remote_lid at rate; 0 once sent.
 */
static int kcm_send_lap(u16 local_lid, u16 remote_lid, u8 rate)
{
	struct rdma_ah_attr attr = { .type = RDMA_AH_ATTR_TYPE_IB };
	struct ib_mad_send_buf *buf;
	struct ib_mad_agent *agent;
	struct ib_mad_hdr *hdr;
	struct ib_ah *ah;
	u8 *d;
	int ret;

	agent = ib_register_mad_agent(kcm.device, 1, IB_QPT_GSI, NULL, 0,
				      kcm_lap_sent, NULL, NULL, 0);
	if (IS_ERR(agent))
		return PTR_ERR(agent);
	rdma_ah_set_dlid(&attr, kcm.attr[1].lid);
	rdma_ah_set_port_num(&attr, 1);
	ah = rdma_create_ah(agent->qp->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		goto err_agent;
	}
	buf = ib_create_send_mad(agent, 1, 0, 0, IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA,
				 GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf)) {
		ret = PTR_ERR(buf);
		goto err_ah;
	}
	hdr = buf->mad;
	hdr->base_version = IB_MGMT_BASE_VERSION;
	hdr->mgmt_class = IB_MGMT_CLASS_CM;
	hdr->class_version = 2;
	hdr->method = IB_MGMT_METHOD_SEND;
	hdr->tid = cpu_to_be64(0x6b636d4c41500001ULL);	/* "kcmLAP" */
	hdr->attr_id = cpu_to_be16(0x0019);		/* LAP */
	d = (u8 *)buf->mad + IB_MGMT_MAD_HDR;
	memcpy(d, &act.cm_id->local_id, 4);		/* local comm ID */
	memcpy(d + 4, &act.cm_id->remote_id, 4);	/* remote comm ID */
	put_unaligned_be32(pas.qp->qp_num << 8 | 20 << 3, d + 12);	/* QPN, timeout */
	put_unaligned_be16(local_lid, d + 20);
	put_unaligned_be16(remote_lid, d + 22);
	memcpy(d + 24, kcm.gid[0].raw, 16);		/* alternate local GID */
	memcpy(d + 40, kcm.gid[1].raw, 16);		/* alternate remote GID */
	d[61] = rate & 0x3f;				/* packet rate */
	d[63] = 18 << 3;				/* local ACK timeout */
	buf->ah = ah;
	reinit_completion(&kcm_lap_done);
	ret = ib_post_send_mad(buf, NULL);
	if (!ret) {
		wait_for_completion(&kcm_lap_done);
		ret = kcm_lap_status == IB_WC_SUCCESS ? 0 : -EIO;
	}
	ib_free_send_mad(buf);
err_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
err_agent:
	ib_unregister_mad_agent(agent);
	return ret;
}

void kcm_run_lap(void)
{
	u16 act_lid = kcm.attr[0].lid, pas_lid = kcm.attr[1].lid;
	const u8 rate = IB_RATE_40_GBPS;
	unsigned int p = 0;
	struct kcm_event *e;
	int ret;

	if (!kcm_setup("cm-lap", KCM_SID(6), KCM_ACCEPT))
		goto out;
	if (!kcm_establish("cm-lap: REQ, REP, RTU: established on both sides", KCM_SID(6)))
		goto out;
	/* past the connection's own events */
	kcm_wait(&pas, IB_CM_RTU_RECEIVED, &p, 0);

	ret = kcm_send_lap(act_lid, pas_lid, rate);
	kcm_check(!ret, "cm-lap: a LAP for the connection goes out", "%d", ret);
	e = ret ? NULL : kcm_wait(&pas, IB_CM_LAP_RECEIVED, &p, KCM_WAIT_MS);
	kcm_check(e && e->value == (act_lid | (u32)pas_lid << 16) && e->reason == rate,
		  "cm-lap: the passive side gets LAP_RECEIVED with the alternate path (DLID, SLID, rate)",
		  "%s (value %#x, rate %d; want %#x, %d)", e ? "wrong path" : "missing",
		  e ? e->value : 0, e ? e->reason : -1, act_lid | (u32)pas_lid << 16, rate);
	ret = e ? ib_send_cm_mra(pas.cm_id, 20, NULL, 0) : -ENOENT;
	kcm_check(!ret, "cm-lap: the passive side answers the LAP with an MRA", "%d", ret);

	/* the same LAP again: a duplicate, answered by the MRA, no event */
	ret = kcm_send_lap(act_lid, pas_lid, rate);
	e = ret ? NULL : kcm_wait(&pas, IB_CM_LAP_RECEIVED, &p, 1000);
	kcm_check(!ret && !e, "cm-lap: a duplicate LAP makes no second event",
		  "send %d, %s", ret, e ? "a second LAP_RECEIVED" : "");
out:
	kcm_teardown();
}

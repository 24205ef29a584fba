// SPDX-License-Identifier: GPL-2.0
/*
 * The two-node scenarios, port 1 of each node cabled to port 1 of the
 * other.  Node 1 serves (cmd serve): a listener that accepts on
 * KCM_RSID(0) and answers SIDR REQs there, one that leaves REQs unanswered
 * on KCM_RSID(1).  Node 2 (cmd remote, with peer_lid and peer_guid naming
 * node 1's port 1) connects, sends a message, checks a SIDR answer, a REJ
 * for a service nobody serves, a REQ the peer never answers, and releases
 * the connection.  Node 1 then (cmd unserve) checks what its side saw and
 * tears it down.
 */
#include <linux/delay.h>
#include <linux/string.h>
#include "kcm.h"

#define KCM_RSID(n)	cpu_to_be64(0x1000000002000ULL + (n))
#define KCM_WAIT_MS	5000

unsigned int kcm_peer_lid;
unsigned long long kcm_peer_guid;

static struct kcm_side srv, quiet, cli;
static bool serving;

static int kcm_listen(struct kcm_side *s, __be64 sid, enum kcm_req_mode mode)
{
	int ret = kcm_side_init(s, "srv", 1);

	if (ret)
		return ret;
	s->mode = mode;
	s->listen_id = ib_create_cm_id(kcm.device, kcm_handler, s);
	if (IS_ERR(s->listen_id)) {
		ret = PTR_ERR(s->listen_id);
		s->listen_id = NULL;
		return ret;
	}
	return ib_cm_listen(s->listen_id, sid);
}

void kcm_run_serve(void)
{
	int ret;

	if (serving) {
		kcm_check(false, "cm-serve", "already serving");
		return;
	}
	ret = kcm_listen(&srv, KCM_RSID(0), KCM_ACCEPT);
	if (!ret)
		ret = kcm_listen(&quiet, KCM_RSID(1), KCM_IGNORE);
	kcm_check(!ret, "cm-serve: listening on port 1's device for the other node", "%d", ret);
	serving = !ret;
	if (!serving) {
		kcm_side_fini(&srv);
		kcm_side_fini(&quiet);
	}
}

/* a path from our port 1 to the peer's port (LID and GUID from the module's parameters) */
static void kcm_remote_path(struct sa_path_rec *path)
{
	kcm_path(path, 1, 1);
	path->dgid.global.subnet_prefix = kcm.gid[0].global.subnet_prefix;
	path->dgid.global.interface_id = cpu_to_be64(kcm_peer_guid);
	sa_path_set_dlid(path, kcm_peer_lid);
	path->mtu = kcm.attr[0].active_mtu;
}

static int kcm_remote_connect(__be64 sid, u8 retries)
{
	struct sa_path_rec path;
	struct ib_cm_req_param req = {
		.primary_path = &path,
		.service_id = sid,
		.qp_num = cli.qp->qp_num,
		.qp_type = IB_QPT_RC,
		.starting_psn = KCM_ACT_PSN,
		.private_data = "kcm-req",
		.private_data_len = 8,
		.responder_resources = 1,
		.initiator_depth = 1,
		.remote_cm_response_timeout = 16,
		.local_cm_response_timeout = 16,
		.retry_count = 3,
		.rnr_retry_count = 3,
		.max_cm_retries = retries,
	};

	kcm_remote_path(&path);
	if (!cli.cm_id) {
		cli.cm_id = ib_create_cm_id(kcm.device, kcm_handler, &cli);
		if (IS_ERR(cli.cm_id)) {
			int ret = PTR_ERR(cli.cm_id);

			cli.cm_id = NULL;
			return ret;
		}
	}
	return ib_send_cm_req(cli.cm_id, &req);
}

/* one message to the server; it checks the bytes itself (unserve) */
static int kcm_remote_send(void)
{
	struct ib_sge sge = { .addr = cli.dma, .length = 64, .lkey = kcm.pd->local_dma_lkey };
	struct ib_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	unsigned long deadline = jiffies + HZ;
	struct ib_wc wc;
	int ret;

	memset(cli.buf, 0x5a, 64);
	ret = ib_post_send(cli.qp, &wr, NULL);
	while (!ret && time_before(jiffies, deadline)) {
		if (ib_poll_cq(cli.cq, 1, &wc) > 0 && wc.opcode == IB_WC_SEND)
			return wc.status == IB_WC_SUCCESS ? 0 : -EIO;
		usleep_range(500, 1000);
	}
	return ret ? ret : -ETIMEDOUT;
}

void kcm_run_remote(void)
{
	struct ib_cm_sidr_req_param sreq = { .timeout_ms = 500, .max_cm_retries = 2 };
	struct sa_path_rec path;
	unsigned int a = 0;
	struct kcm_event *e;
	int ret;

	if (!kcm_peer_lid || !kcm_peer_guid) {
		kcm_check(false, "cm-remote", "peer_lid and peer_guid not set");
		return;
	}
	ret = kcm_side_init(&cli, "cli", 1);
	if (ret) {
		kcm_check(false, "cm-remote", "setup: %d", ret);
		return;
	}

	ret = kcm_remote_connect(KCM_RSID(0), 3);
	e = ret ? NULL : kcm_wait(&cli, IB_CM_REP_RECEIVED, &a, KCM_WAIT_MS);
	kcm_check(e && !memcmp(e->private_data, "kcm-rep", 8),
		  "cm-remote: the other node's REP arrives with its private data",
		  "req %d, REP %s", ret, e ? "without the data" : "missing");
	if (e) {
		ret = kcm_qp_to_rts(&cli, 0);
		if (!ret)
			ret = ib_send_cm_rtu(cli.cm_id, NULL, 0);
		kcm_check(!ret, "cm-remote: QP to RTS, RTU", "%d", ret);
		ret = ret ? ret : kcm_remote_send();
		kcm_check(!ret, "cm-remote: a SEND to the other node completes", "%d", ret);
		ret = ib_send_cm_dreq(cli.cm_id, NULL, 0);
		e = ret ? NULL : kcm_wait(&cli, IB_CM_DREP_RECEIVED, &a, KCM_WAIT_MS);
		kcm_check(e, "cm-remote: DREQ answered by the other node's DREP", "%d", ret);
		e = kcm_wait(&cli, IB_CM_TIMEWAIT_EXIT, &a, KCM_WAIT_MS);
		kcm_check(e, "cm-remote: time wait ends", "missing");
	}

	kcm_remote_path(&path);
	sreq.path = &path;
	sreq.service_id = KCM_RSID(0);
	ret = ib_send_cm_sidr_req(cli.cm_id, &sreq);
	e = ret ? NULL : kcm_wait(&cli, IB_CM_SIDR_REP_RECEIVED, &a, KCM_WAIT_MS);
	kcm_check(e && e->reason == IB_SIDR_SUCCESS && e->value,
		  "cm-remote: SIDR REQ answered by the other node with a QP number",
		  "req %d, status %d", ret, e ? e->reason : -1);

	ret = kcm_remote_connect(KCM_RSID(2), 3);
	e = ret ? NULL : kcm_wait(&cli, IB_CM_REJ_RECEIVED, &a, KCM_WAIT_MS);
	kcm_check(e && e->reason == IB_CM_REJ_INVALID_SERVICE_ID,
		  "cm-remote: REJ from the other node for a service it does not serve",
		  "req %d, reason %d", ret, e ? e->reason : -1);

	ret = kcm_remote_connect(KCM_RSID(1), 1);
	e = ret ? NULL : kcm_wait(&cli, IB_CM_REQ_ERROR, &a, KCM_WAIT_MS);
	kcm_check(e && e->reason == IB_WC_RESP_TIMEOUT_ERR,
		  "cm-remote: a REQ the other node leaves unanswered ends in REQ_ERROR",
		  "req %d, status %d", ret, e ? e->reason : -1);
	kcm_side_fini(&cli);
}

void kcm_run_unserve(void)
{
	unsigned int p = 0, q = 0;
	struct kcm_event *e;
	struct ib_wc wc;
	int n = 0;

	if (!serving) {
		kcm_check(false, "cm-unserve", "not serving");
		return;
	}
	e = kcm_wait(&srv, IB_CM_REQ_RECEIVED, &p, 0);
	kcm_check(e && !memcmp(e->private_data, "kcm-req", 8),
		  "cm-unserve: the other node's REQ came with its private data", "missing");
	e = kcm_wait(&srv, IB_CM_RTU_RECEIVED, &p, 0);
	kcm_check(e, "cm-unserve: its RTU came", "missing");
	while (ib_poll_cq(srv.cq, 1, &wc) > 0)
		if (wc.opcode == IB_WC_RECV && wc.status == IB_WC_SUCCESS && wc.byte_len == 64)
			n++;
	kcm_check(n == 1 && !memchr_inv(srv.buf, 0x5a, 64),
		  "cm-unserve: its message arrived intact", "%d receives", n);
	e = kcm_wait(&srv, IB_CM_DREQ_RECEIVED, &p, 0);
	kcm_check(e, "cm-unserve: its DREQ came (and was answered)", "missing");
	e = kcm_wait(&srv, IB_CM_SIDR_REQ_RECEIVED, &p, 0);
	kcm_check(e, "cm-unserve: its SIDR REQ came", "missing");
	e = kcm_wait(&quiet, IB_CM_REQ_RECEIVED, &q, 0);
	kcm_check(e, "cm-unserve: the unanswered REQ came too", "missing");
	kcm_side_fini(&srv);
	kcm_side_fini(&quiet);
	serving = false;
}

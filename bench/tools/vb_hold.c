// SPDX-License-Identifier: GPL-2.0
/*
 * verbsbench --hold-qps N: one PD, one CQ and N RC QPs in INIT, held until
 * stdin ends (so that a script can read /proc/meminfo meanwhile).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "vb.h"

/* Reads stdin until EOF (or an error other than EINTR) */
static void wait_for_eof(void)
{
	char b[512];
	ssize_t n;

	for (;;) {
		n = read(STDIN_FILENO, b, sizeof(b));
		if (n > 0 || (n < 0 && errno == EINTR))
			continue;
		if (n < 0)
			fprintf(stderr,
				"verbsbench: hold-qps: read(stdin): %s\n",
				strerror(errno));
		return;
	}
}

int vb_hold_qps(const struct vb_config *cfg, long n)
{
	struct vb_test hold = { .name = "hold-qps" };
	struct vb_thread t = { .cfg = cfg, .test = &hold };
	struct ibv_qp **qps;
	char what[64];
	long made = 0, i;
	int ret, status = 1;

	qps = calloc(n ? n : 1, sizeof(*qps));
	if (!qps) {
		fprintf(stderr, "verbsbench: hold-qps: out of memory\n");
		return 1;
	}
	if (vb_alloc_pd(&t))
		goto out;
	t.cq = ibv_create_cq(cfg->ctx, VB_CQE, NULL, NULL, 0);
	if (!t.cq) {
		vb_verb_error(hold.name, "ibv_create_cq", errno);
		goto out;
	}
	for (made = 0; made < n; made++) {
		snprintf(what, sizeof(what), "hold-qps: QP %ld of %ld",
			 made + 1, n);
		qps[made] = vb_create_rc_qp(t.pd, t.cq);
		if (!qps[made]) {
			vb_verb_error(what, "ibv_create_qp", errno);
			goto out;
		}
		ret = vb_qp_to_init(qps[made], cfg->port);
		if (ret) {
			vb_verb_error(what, "ibv_modify_qp(INIT)",
				      vb_verb_ret(ret));
			made++;
			goto out;
		}
	}
	printf("{\"tool\":\"verbsbench\",\"held_qps\":%ld}\n", n);
	fflush(stdout);
	wait_for_eof();
	status = 0;
out:
	for (i = 0; i < made; i++) {
		ret = ibv_destroy_qp(qps[i]);
		if (ret) {
			vb_verb_error(hold.name, "ibv_destroy_qp",
				      vb_verb_ret(ret));
			status = 1;
		}
	}
	free(qps);
	if (vb_release(&t))
		status = 1;
	return status;
}

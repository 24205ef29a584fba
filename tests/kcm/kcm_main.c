// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kcm: a test client of ib_cm.  It attaches to the first two-port
 * InfiniBand device (port 1 cabled to port 2, both ACTIVE) and runs, on
 * demand, one group of checks between the two ports:
 *
 *	echo CMD > /sys/module/ibstack_kcm/parameters/cmd
 *
 * CMD is conn (REQ, REP, RTU, data both ways, DREQ, DREP, time wait), rej
 * (REJs for no listener and from a listener, the listen rules), timeout
 * (a REQ nobody answers; a REQ's sender that gives up), mra, sidr, disc
 * (disconnects from the passive side, crossing, by destruction) or all;
 * on two nodes (port 1 to port 1) serve and unserve on node 1 around
 * remote on node 2, with peer_lid and peer_guid set to node 1's port 1
 * (kcm_remote.c).
 * The write returns when the checks are done; each prints
 * "ibstack_kcm: PASS name" or "ibstack_kcm: FAIL name: why", then
 * "ibstack_kcm: cmd CMD done: N passed, M failed".
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <rdma/ib_cache.h>
#include "kcm.h"

MODULE_DESCRIPTION("ib_cm test client (ibstack)");
MODULE_LICENSE("GPL");

struct kcm_ctx kcm;

module_param_named(peer_lid, kcm_peer_lid, uint, 0644);
MODULE_PARM_DESC(peer_lid, "remote: the LID of the other node's port 1");
module_param_named(peer_guid, kcm_peer_guid, ullong, 0644);
MODULE_PARM_DESC(peer_guid, "remote: the port GUID of the other node's port 1");

/* protects kcm (the device, set by add and remove) and runs one cmd at a time */
static DEFINE_MUTEX(kcm_lock);

void kcm_pass(const char *name)
{
	kcm.passed++;
	pr_info(KCM_PFX "PASS %s\n", name);
}

void kcm_check(bool ok, const char *name, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (ok) {
		kcm_pass(name);
		return;
	}
	kcm.failed++;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info(KCM_PFX "FAIL %s: %pV\n", name, &vaf);
	va_end(args);
}

/* the ports' attributes and GIDs; port 1 (and with both, port 2) ACTIVE */
static int kcm_refresh_ports(bool both)
{
	int i, ret;

	for (i = 0; i < 2; i++) {
		ret = ib_query_port(kcm.device, i + 1, &kcm.attr[i]);
		if (!ret)
			ret = rdma_query_gid(kcm.device, i + 1, 0, &kcm.gid[i]);
		if (ret)
			return ret;
		if (kcm.attr[i].state != IB_PORT_ACTIVE && (i == 0 || both))
			return -ENETDOWN;
	}
	return 0;
}

static const struct {
	const char *name;
	void (*run)(void);
} kcm_cmds[] = {
	{ "conn", kcm_run_conn },
	{ "rej", kcm_run_rej },
	{ "timeout", kcm_run_timeout },
	{ "mra", kcm_run_mra },
	{ "sidr", kcm_run_sidr },
	{ "disc", kcm_run_disc },
	{ "lap", kcm_run_lap },
	/* two nodes, not part of "all" */
	{ "serve", kcm_run_serve },
	{ "remote", kcm_run_remote },
	{ "unserve", kcm_run_unserve },
};

/* the two-node commands, run only by name */
#define KCM_ALL	7

static int kcm_cmd_set(const char *val, const struct kernel_param *kp)
{
	bool all, two_nodes, found = false;
	char cmd[16];
	unsigned int i;
	int ret;

	strscpy(cmd, val, sizeof(cmd));
	strim(cmd);
	all = !strcmp(cmd, "all");
	mutex_lock(&kcm_lock);
	if (!kcm.device) {
		mutex_unlock(&kcm_lock);
		pr_info(KCM_PFX "FAIL %s: no two-port InfiniBand device\n", cmd);
		return -ENODEV;
	}
	kcm.passed = 0;
	kcm.failed = 0;
	two_nodes = !strcmp(cmd, "serve") || !strcmp(cmd, "remote") || !strcmp(cmd, "unserve");
	ret = kcm_refresh_ports(!two_nodes);
	if (ret) {
		mutex_unlock(&kcm_lock);
		pr_info(KCM_PFX "FAIL %s: the ports it needs are not ACTIVE (%d)\n", cmd, ret);
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(kcm_cmds); i++) {
		if ((all && i < KCM_ALL) || !strcmp(cmd, kcm_cmds[i].name)) {
			kcm_cmds[i].run();
			found = true;
		}
	}
	if (found)
		pr_info(KCM_PFX "cmd %s done: %u passed, %u failed\n", cmd, kcm.passed,
			kcm.failed);
	mutex_unlock(&kcm_lock);
	return found ? 0 : -EINVAL;
}

static const struct kernel_param_ops kcm_cmd_ops = {
	.set = kcm_cmd_set,
};
module_param_cb(cmd, &kcm_cmd_ops, NULL, 0200);
MODULE_PARM_DESC(cmd, "checks to run: conn, rej, timeout, mra, sidr, disc, lap, all (one node); serve, remote, unserve (two nodes)");

static int kcm_add(struct ib_device *device)
{
	struct ib_pd *pd;

	mutex_lock(&kcm_lock);
	if (!kcm.device && rdma_end_port(device) >= 2 &&
	    rdma_port_get_link_layer(device, 1) == IB_LINK_LAYER_INFINIBAND) {
		pd = ib_alloc_pd(device, 0);
		if (!IS_ERR(pd)) {
			kcm.device = device;
			kcm.pd = pd;
			pr_info(KCM_PFX "add %s\n", dev_name(&device->dev));
		}
	}
	mutex_unlock(&kcm_lock);
	return 0;
}

static void kcm_remove(struct ib_device *device, void *client_data)
{
	mutex_lock(&kcm_lock);
	if (kcm.device == device) {
		ib_dealloc_pd(kcm.pd);
		kcm.pd = NULL;
		kcm.device = NULL;
		pr_info(KCM_PFX "remove %s\n", dev_name(&device->dev));
	}
	mutex_unlock(&kcm_lock);
}

static struct ib_client kcm_client = {
	.name = "ibstack_kcm",
	.add = kcm_add,
	.remove = kcm_remove,
};

static int __init kcm_init(void)
{
	return ib_register_client(&kcm_client);
}

static void __exit kcm_exit(void)
{
	ib_unregister_client(&kcm_client);
}

module_init(kcm_init);
module_exit(kcm_exit);

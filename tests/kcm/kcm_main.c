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
 * (disconnects from the passive side, crossing, by destruction) or all.
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

static int kcm_refresh_ports(void)
{
	int i, ret;

	for (i = 0; i < 2; i++) {
		ret = ib_query_port(kcm.device, i + 1, &kcm.attr[i]);
		if (!ret)
			ret = rdma_query_gid(kcm.device, i + 1, 0, &kcm.gid[i]);
		if (ret)
			return ret;
		if (kcm.attr[i].state != IB_PORT_ACTIVE)
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
};

static int kcm_cmd_set(const char *val, const struct kernel_param *kp)
{
	bool all, found = false;
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
	ret = kcm_refresh_ports();
	if (ret) {
		mutex_unlock(&kcm_lock);
		pr_info(KCM_PFX "FAIL %s: ports not both ACTIVE (%d)\n", cmd, ret);
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(kcm_cmds); i++) {
		if (all || !strcmp(cmd, kcm_cmds[i].name)) {
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
MODULE_PARM_DESC(cmd, "checks to run: conn, rej, timeout, mra, sidr, disc, all");

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

// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_ksa: a test client of ib_sa.  It attaches to the first
 * two-port InfiniBand device and runs, on demand, one group of checks:
 *
 *	echo CMD > /sys/module/ibstack_ksa/parameters/cmd
 *
 * CMD is path (path record queries from each port to the other port, or
 * with peer_lid1=/peer_lid2= to those LIDs), atomic (the calls IPoIB makes
 * with a spinlock held, made so: a path query, a join, the group's record,
 * a cancel), join (four memberships of two groups, sharing them, one with
 * JoinState 3; two joins refused with -EINVAL), leave1 (one sharer
 * leaves), leave (the others leave), down (port 1 is down: the members
 * were told -ENETRESET, requests are refused at once), nosm (the SM does
 * not answer: -ETIMEDOUT), rejoin (every membership was told -ENETRESET
 * after a port event and was joined again by this module, as IPoIB does,
 * since the last rejoin).  The write returns when the checks are done; each prints
 * "ibstack_ksa: PASS name" or "ibstack_ksa: FAIL name: why", then
 * "ibstack_ksa: cmd CMD done: N passed, M failed".
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <rdma/ib_cache.h>
#include "ksa.h"

MODULE_DESCRIPTION("ib_sa test client (ibstack)");
MODULE_LICENSE("GPL");

unsigned int ksa_peer_lid[2];
module_param_named(peer_lid1, ksa_peer_lid[0], uint, 0444);
MODULE_PARM_DESC(peer_lid1, "LID to resolve from port 1 (0: port 2's own LID)");
module_param_named(peer_lid2, ksa_peer_lid[1], uint, 0444);
MODULE_PARM_DESC(peer_lid2, "LID to resolve from port 2 (0: port 1's own LID)");

struct ib_sa_client ksa_client;

/* protects ksa (the device, set by add and remove) and runs one cmd at a time */
static DEFINE_MUTEX(ksa_lock);
static struct ksa_ctx ksa;

void ksa_pass(struct ksa_ctx *ctx, const char *name)
{
	ctx->passed++;
	pr_info(KSA_PFX "PASS %s\n", name);
}

void ksa_fail(struct ksa_ctx *ctx, const char *name, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	ctx->failed++;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info(KSA_PFX "FAIL %s: %pV\n", name, &vaf);
	va_end(args);
}

void ksa_check(struct ksa_ctx *ctx, bool ok, const char *name,
	       const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (ok) {
		ksa_pass(ctx, name);
		return;
	}
	ctx->failed++;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info(KSA_PFX "FAIL %s: %pV\n", name, &vaf);
	va_end(args);
}

int ksa_refresh_ports(struct ksa_ctx *ctx)
{
	int i, ret;

	for (i = 0; i < 2; i++) {
		struct ksa_port *p = &ctx->port[i];

		p->port_num = i + 1;
		ret = ib_query_port(ctx->device, p->port_num, &p->attr);
		if (!ret)
			ret = rdma_query_gid(ctx->device, p->port_num, 0, &p->gid);
		if (!ret)
			ret = ib_query_pkey(ctx->device, p->port_num, 0, &p->pkey);
		if (ret)
			return ret;
	}
	return 0;
}

static int ksa_cmd_set(const char *val, const struct kernel_param *kp)
{
	char cmd[16];

	strscpy(cmd, val, sizeof(cmd));
	strim(cmd);
	mutex_lock(&ksa_lock);
	if (!ksa.device) {
		mutex_unlock(&ksa_lock);
		pr_info(KSA_PFX "FAIL %s: no two-port InfiniBand device\n", cmd);
		return -ENODEV;
	}
	ksa.passed = 0;
	ksa.failed = 0;
	if (!strcmp(cmd, "path")) {
		ksa_path_tests(&ksa);
	} else if (!strcmp(cmd, "atomic")) {
		ksa_atomic_tests(&ksa);
	} else if (!strcmp(cmd, "join")) {
		ksa_mcast_join(&ksa);
	} else if (!strcmp(cmd, "leave1")) {
		ksa_mcast_leave_one(&ksa);
	} else if (!strcmp(cmd, "leave")) {
		ksa_mcast_leave(&ksa);
	} else if (!strcmp(cmd, "nosm")) {
		ksa_path_no_sm(&ksa);
	} else if (!strcmp(cmd, "rejoin")) {
		ksa_mcast_rejoin_check(&ksa);
	} else if (!strcmp(cmd, "down")) {
		ksa_path_port_down(&ksa);
		ksa_mcast_port_down(&ksa);
	} else {
		mutex_unlock(&ksa_lock);
		return -EINVAL;
	}
	pr_info(KSA_PFX "cmd %s done: %u passed, %u failed\n", cmd,
		ksa.passed, ksa.failed);
	mutex_unlock(&ksa_lock);
	return 0;
}

static const struct kernel_param_ops ksa_cmd_ops = {
	.set = ksa_cmd_set,
};
module_param_cb(cmd, &ksa_cmd_ops, NULL, 0200);
MODULE_PARM_DESC(cmd, "checks to run: path, atomic, join, leave1, leave, down, nosm, rejoin");

static struct ib_client ksa_ib_client;

static int ksa_add(struct ib_device *device)
{
	mutex_lock(&ksa_lock);
	if (!ksa.device && rdma_end_port(device) >= 2 &&
	    rdma_port_get_link_layer(device, 1) == IB_LINK_LAYER_INFINIBAND) {
		ksa.device = device;
		pr_info(KSA_PFX "add %s\n", dev_name(&device->dev));
	}
	mutex_unlock(&ksa_lock);
	return 0;
}

static void ksa_remove(struct ib_device *device, void *client_data)
{
	mutex_lock(&ksa_lock);
	if (ksa.device == device) {
		ksa_mcast_cleanup();
		ksa.device = NULL;
		pr_info(KSA_PFX "remove %s\n", dev_name(&device->dev));
	}
	mutex_unlock(&ksa_lock);
}

static struct ib_client ksa_ib_client = {
	.name = "ibstack_ksa",
	.add = ksa_add,
	.remove = ksa_remove,
};

static int __init ksa_init(void)
{
	int ret;

	ib_sa_register_client(&ksa_client);
	ret = ib_register_client(&ksa_ib_client);
	if (ret)
		ib_sa_unregister_client(&ksa_client);
	return ret;
}

static void __exit ksa_exit(void)
{
	ib_unregister_client(&ksa_ib_client);
	ib_sa_unregister_client(&ksa_client);
}

module_init(ksa_init);
module_exit(ksa_exit);

// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kverbs: a kernel client of our verbs API for the tests.
 *
 * As an ib_client it logs every device it is added to and removed from,
 * and every port/device event; with selftest=1 it runs the one-card
 * self-test on each device (from a work item); its debugfs directory
 * (/sys/kernel/debug/ibstack_kverbs/<device>/) drives the two-node test,
 * and its top (kverbs_unreg.c) holds a device across its unregistration.
 * The log lines are a contract with the test scripts:
 *	ibstack_kverbs: add <dev>		ibstack_kverbs: remove <dev>
 *	ibstack_kverbs: event <dev> port <n> <NAME>
 *	ibstack_kverbs: PASS <case>		ibstack_kverbs: FAIL <case>: <why>
 *	ibstack_kverbs: selftest <dev> done: <n> passed, <m> failed
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/socket.h>
#include <net/net_namespace.h>
#include <linux/slab.h>

#include "kverbs.h"

static bool selftest;
module_param(selftest, bool, 0444);
MODULE_PARM_DESC(selftest, "run the one-card self-test on every device (port 1 cabled to port 2)");

static unsigned int selftest_rounds = 1;
module_param(selftest_rounds, uint, 0444);
MODULE_PARM_DESC(selftest_rounds, "run the self-test's cases this many times (a soak test)");

/*
 * For the tests of what happens while a client is being added or removed
 * (tests/stack/guest/add-events.sh, catas-remove.sh): add() (once its event
 * handler is registered) or remove() (before it releases anything) waits
 * while the parameter is set, at most KV_HOLD_MAX_S.
 */
static bool add_hold;
module_param(add_hold, bool, 0644);
MODULE_PARM_DESC(add_hold, "tests: add() waits while this is set (at most 120 s)");

static bool remove_hold;
module_param(remove_hold, bool, 0644);
MODULE_PARM_DESC(remove_hold, "tests: remove() waits while this is set (at most 120 s)");

#define KV_HOLD_MAX_S	120

/* What the client holds on one device. */
struct kv_dev {
	struct ib_device	*dev;
	struct ib_event_handler	eh;
	struct work_struct	work;		/* the self-test */
	bool			stop;		/* the self-test should end */
	bool			fatal;		/* DEVICE_FATAL seen */
	struct kv_peer		*peer;
};

static struct workqueue_struct *kv_wq;
static struct dentry *kv_debugfs;

static const char *kv_event_name(enum ib_event_type e)
{
	switch (e) {
	case IB_EVENT_PORT_ACTIVE:
		return "PORT_ACTIVE";
	case IB_EVENT_PORT_ERR:
		return "PORT_ERR";
	case IB_EVENT_LID_CHANGE:
		return "LID_CHANGE";
	case IB_EVENT_PKEY_CHANGE:
		return "PKEY_CHANGE";
	case IB_EVENT_SM_CHANGE:
		return "SM_CHANGE";
	case IB_EVENT_CLIENT_REREGISTER:
		return "CLIENT_REREGISTER";
	case IB_EVENT_GID_CHANGE:
		return "GID_CHANGE";
	case IB_EVENT_DEVICE_FATAL:
		return "DEVICE_FATAL";
	default:
		return NULL;
	}
}

static bool kv_port_event(enum ib_event_type e)
{
	return e == IB_EVENT_PORT_ACTIVE || e == IB_EVENT_PORT_ERR ||
	       e == IB_EVENT_LID_CHANGE || e == IB_EVENT_PKEY_CHANGE ||
	       e == IB_EVENT_SM_CHANGE || e == IB_EVENT_CLIENT_REREGISTER ||
	       e == IB_EVENT_GID_CHANGE;
}

static void kv_event(struct ib_event_handler *eh, struct ib_event *ev)
{
	struct kv_dev *kd = container_of(eh, struct kv_dev, eh);
	const char *name = kv_event_name(ev->event);
	u32 port = kv_port_event(ev->event) ? ev->element.port_num : 0;

	if (ev->event == IB_EVENT_DEVICE_FATAL)
		WRITE_ONCE(kd->fatal, true);
	if (name)
		pr_info(KV_NAME ": event %s port %u %s\n", ev->device->name, port, name);
	else
		pr_info(KV_NAME ": event %s port %u UNKNOWN_%d\n", ev->device->name,
			port, ev->event);
}

static void kv_selftest_work(struct work_struct *work)
{
	struct kv_dev *kd = container_of(work, struct kv_dev, work);

	kv_selftest(kd->dev, &kd->stop, max(selftest_rounds, 1U));
}

static struct ib_client kv_client;

/* The hold: lines "holding <what> <dev>", then "<what> <dev> released". */
static void kv_hold(const bool *hold, const char *what, struct ib_device *dev)
{
	unsigned long end = jiffies + KV_HOLD_MAX_S * HZ;

	if (!READ_ONCE(*hold))
		return;
	pr_info(KV_NAME ": holding %s %s\n", what, dev->name);
	while (READ_ONCE(*hold) && time_before(jiffies, end))
		msleep(50);
	pr_info(KV_NAME ": %s %s released%s\n", what, dev->name,
		READ_ONCE(*hold) ? " (hold timed out)" : "");
}

static int kv_add(struct ib_device *dev)
{
	struct kv_dev *kd;

	pr_info(KV_NAME ": add %s\n", dev->name);
	kd = kzalloc(sizeof(*kd), GFP_KERNEL);
	if (!kd)
		return -ENOMEM;
	kd->dev = dev;
	INIT_WORK(&kd->work, kv_selftest_work);
	INIT_IB_EVENT_HANDLER(&kd->eh, dev, kv_event);
	ib_register_event_handler(&kd->eh);
	kv_hold(&add_hold, "add", dev);
	kd->peer = kv_peer_add(dev, kv_debugfs);
	ib_set_client_data(dev, &kv_client, kd);
	if (selftest)
		queue_work(kv_wq, &kd->work);
	return 0;
}

static void kv_remove(struct ib_device *dev, void *data)
{
	struct kv_dev *kd = data;

	pr_info(KV_NAME ": remove %s\n", dev->name);
	kv_hold(&remove_hold, "remove", dev);
	if (!kd)
		return;
	WRITE_ONCE(kd->stop, true);
	cancel_work_sync(&kd->work);
	kv_peer_remove(kd->peer, READ_ONCE(kd->fatal));
	ib_unregister_event_handler(&kd->eh);
	kfree(kd);
}

struct kv_ndev_call kv_ndev_seen;

/*
 * ib_get_net_dev_by_params()'s question to this client (case ndev-params):
 * loopback, held, for P_Key KV_NDEV_PKEY only; each call is recorded.
 */
static struct net_device *kv_get_net_dev(struct ib_device *dev, u32 port, u16 pkey,
					 const union ib_gid *gid, const struct sockaddr *addr,
					 void *client_data)
{
	struct kv_ndev_call *c = &kv_ndev_seen;

	c->calls++;
	c->port = port;
	c->pkey = pkey;
	c->gid = gid ? *gid : zgid;
	c->family = addr ? addr->sa_family : AF_UNSPEC;
	c->data_ok = client_data == ib_get_client_data(dev, &kv_client);
	if (pkey != KV_NDEV_PKEY)
		return NULL;
	dev_hold(init_net.loopback_dev);
	return init_net.loopback_dev;
}

static struct ib_client kv_client = {
	.name = "ibstack_kverbs",
	.add = kv_add,
	.remove = kv_remove,
	.get_net_dev_by_params = kv_get_net_dev,
};

static int __init kv_init(void)
{
	int ret;

	kv_wq = alloc_workqueue("ibstack_kverbs", WQ_UNBOUND, 0);
	if (!kv_wq)
		return -ENOMEM;
	kv_debugfs = debugfs_create_dir("ibstack_kverbs", NULL);
	kv_unreg_init(kv_debugfs);
	ret = ib_register_client(&kv_client);
	if (ret)
		goto err_debugfs;
	return 0;

err_debugfs:
	debugfs_remove_recursive(kv_debugfs);
	kv_unreg_exit();
	destroy_workqueue(kv_wq);
	return ret;
}

static void __exit kv_exit(void)
{
	ib_unregister_client(&kv_client);
	debugfs_remove_recursive(kv_debugfs);
	kv_unreg_exit();
	destroy_workqueue(kv_wq);
}

module_init(kv_init);
module_exit(kv_exit);

MODULE_DESCRIPTION("Kernel verbs test client of the ibstack InfiniBand stack");
MODULE_LICENSE("GPL");

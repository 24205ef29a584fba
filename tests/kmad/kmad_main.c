// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_kmad: a kernel client of ib_mad for the tests.  On load, for
 * mlx4_0 (one card, port 1 cabled to port 2, ports ACTIVE with LIDs, e.g.
 * auto-lid1=1,auto-lid2=2, and no subnet manager), it runs its cases from a
 * work item and logs, as a contract with tests/kmad/guest/kmad-1node.sh:
 *	ibstack_kmad: PASS <case>	ibstack_kmad: FAIL <case>: <why>
 *	ibstack_kmad: done mlx4_0: <n> passed, <m> failed
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "kmad.h"

struct km_dev {
	struct ib_device	*dev;
	struct work_struct	work;
};

static struct ib_client km_client;

static void km_work(struct work_struct *work)
{
	struct km_dev *kd = container_of(work, struct km_dev, work);
	struct km_run run = { .dev = kd->dev };

	km_reg_cases(&run);
	km_smp_cases(&run);
	km_sma_cases(&run);
	km_gsi_cases(&run);
	km_rmpp_cases(&run);
	km_rmpp_wire_cases(&run);
	km_rmpp_bound_cases(&run);
	pr_info(KM_NAME ": done %s: %d passed, %d failed\n", kd->dev->name,
		run.passed, run.failed);
}

static int km_add(struct ib_device *dev)
{
	struct km_dev *kd;

	if (strcmp(dev->name, "mlx4_0"))
		return 0;
	kd = kzalloc(sizeof(*kd), GFP_KERNEL);
	if (!kd)
		return -ENOMEM;
	kd->dev = dev;
	INIT_WORK(&kd->work, km_work);
	ib_set_client_data(dev, &km_client, kd);
	schedule_work(&kd->work);
	return 0;
}

static void km_remove(struct ib_device *dev, void *data)
{
	struct km_dev *kd = data;

	if (!kd)
		return;
	cancel_work_sync(&kd->work);
	kfree(kd);
}

static struct ib_client km_client = {
	.name	= "kmad",
	.add	= km_add,
	.remove	= km_remove,
};

static int __init km_init(void)
{
	return ib_register_client(&km_client);
}

static void __exit km_exit(void)
{
	ib_unregister_client(&km_client);
}

module_init(km_init);
module_exit(km_exit);

MODULE_DESCRIPTION("ib_mad test client");
MODULE_LICENSE("GPL");

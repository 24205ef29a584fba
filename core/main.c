// SPDX-License-Identifier: GPL-2.0
/*
 * ib_core: the InfiniBand midlayer of the ibstack (devices, clients,
 * events, the port cache, the kernel verbs, sysfs and RDMA netlink).
 */
#include <linux/device.h>
#include <linux/module.h>
#include "core_priv.h"

static int __init ib_core_init(void)
{
	int ret;

	ret = ib_cq_wq_init();
	if (ret) {
		pr_err("ib_core: cannot create the completion workqueues: %d\n", ret);
		return ret;
	}
	ret = class_register(&ib_class);
	if (ret) {
		pr_err("ib_core: cannot register the infiniband class: %d\n", ret);
		goto err_wq;
	}
	ret = ib_nl_init();
	if (ret) {
		pr_err("ib_core: cannot set up RDMA netlink: %d\n", ret);
		goto err_class;
	}
	return 0;

err_class:
	class_unregister(&ib_class);
err_wq:
	ib_cq_wq_cleanup();
	return ret;
}

static void __exit ib_core_exit(void)
{
	ib_nl_exit();
	class_unregister(&ib_class);
	ib_clients_cleanup();
	ib_cq_wq_cleanup();
}

module_init(ib_core_init);
module_exit(ib_core_exit);

MODULE_DESCRIPTION("InfiniBand core (ibstack)");
MODULE_LICENSE("GPL");

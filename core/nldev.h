/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NLDEV client of RDMA netlink inside ib_core: the operations table
 * (nldev.c) that netlink.c dispatches to, and what nldev.c and
 * nldev_res.c share.
 */
#ifndef IBSTACK_CORE_NLDEV_H
#define IBSTACK_CORE_NLDEV_H

#include <linux/netlink.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/ib_verbs.h>

/* One NLDEV operation: either handler may be NULL (not served that way). */
struct ib_nl_op {
	int	(*doit)(struct sk_buff *skb, struct nlmsghdr *nlh,
			struct netlink_ext_ack *extack);
	int	(*dump)(struct sk_buff *skb, struct netlink_callback *cb);
	bool	admin;		/* needs CAP_NET_ADMIN in the sender's namespace */
};

extern const struct ib_nl_op ib_nldev_ops[RDMA_NLDEV_NUM_OPS];
extern const struct nla_policy ib_nldev_policy[RDMA_NLDEV_ATTR_MAX];

/* netlink.c: the answer to in_skb's sender; consumes msg */
int ib_nl_unicast(struct sk_buff *in_skb, struct sk_buff *msg);

/*
 * nldev.c: the request's attributes, parsed leniently as upstream does
 * for GET, SET, PORT_GET, the resource commands and the links (unknown
 * attributes ignored) or strictly (GET_CHARDEV, SYS_* and STAT_*).
 * tb has RDMA_NLDEV_ATTR_MAX entries.
 */
int ib_nldev_parse(const struct nlmsghdr *nlh, struct nlattr **tb, bool strict,
		   struct netlink_ext_ack *extack);
/* the registered device whose index DEV_INDEX names, referenced; NULL if none */
struct ib_device *ib_nldev_device(struct nlattr **tb);
/* DEV_INDEX and DEV_NAME, which every device or port answer starts with */
int ib_nldev_put_handle(struct sk_buff *msg, struct ib_device *device);
/* a new answer with the request's sequence number and the type given */
struct sk_buff *ib_nldev_new_reply(struct sk_buff *skb, const struct nlmsghdr *req,
				   u32 cmd, struct nlmsghdr **nlh);

/*
 * A command about one device (DEV_INDEX, lenient parsing): fill's answer
 * of type cmd, or the errno.
 */
int ib_nldev_dev_doit(struct sk_buff *skb, struct nlmsghdr *nlh, struct netlink_ext_ack *extack,
		      u32 cmd, int (*fill)(struct sk_buff *, struct ib_device *));
/*
 * A dump of every registered device, one message of type cmd each (fill's),
 * by index; cb->args[0] is the index the next part starts at.
 */
int ib_nldev_dump_devices(struct sk_buff *skb, struct netlink_callback *cb, u32 cmd,
			  int (*fill)(struct sk_buff *, struct ib_device *));

/* nldev_res.c: the resource commands */
int ib_nldev_res_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack);
int ib_nldev_res_get_dump(struct sk_buff *skb, struct netlink_callback *cb);
int ib_nldev_res_obj_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack);
int ib_nldev_res_obj_dump(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* IBSTACK_CORE_NLDEV_H */

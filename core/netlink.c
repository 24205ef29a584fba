// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA netlink (NETLINK_RDMA): one kernel socket per network namespace,
 * the receive loop and the dispatch of the NLDEV client's operations
 * (nldev.c, nldev_res.c).  docs/netlink.md has what is served and what
 * is refused.
 *
 * A message's type is client << 10 | operation.  Only NLDEV (5) has
 * operations here: the local-services client (4, ibacm's path
 * resolution) and the iWARP port mapper (2) get EINVAL, as a kernel
 * without their tables answers, and nothing is loaded on their behalf
 * (the modules their aliases name are the in-tree stack's, which cannot
 * load next to ours).
 *
 * Requests are answered as upstream does: a request that is not a dump
 * is acknowledged if it asked (NLM_F_ACK) or failed; a dump is never
 * acknowledged, it ends with NLMSG_DONE; messages that are not requests
 * and control messages are only acknowledged.
 */
#include <linux/module.h>
#include <linux/netlink.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <rdma/rdma_netlink.h>
#include "core_priv.h"
#include "nldev.h"

/* the socket of each namespace, set up and released with the namespace */
struct ib_nl_net {
	struct sock	*sock;
};

static unsigned int ib_nl_net_id;

/* A dump's callback returns this to the receive loop: no ACK follows. */
#define IB_NL_DUMP_STARTED	(-EINTR)

static int ib_nl_dispatch(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	unsigned int client = RDMA_NL_GET_CLIENT(nlh->nlmsg_type);
	unsigned int op = RDMA_NL_GET_OP(nlh->nlmsg_type);
	const struct ib_nl_op *o;
	int ret;

	if (client != RDMA_NL_NLDEV || op >= RDMA_NLDEV_NUM_OPS)
		return -EINVAL;
	o = &ib_nldev_ops[op];
	if (!o->doit && !o->dump)
		return -EINVAL;
	if (o->admin && !netlink_capable(skb, CAP_NET_ADMIN))
		return -EPERM;

	if (nlh->nlmsg_flags & NLM_F_DUMP) {
		struct netlink_dump_control c = {
			.dump	= o->dump,
		};

		if (!o->dump)
			return -EINVAL;
		ret = netlink_dump_start(skb->sk, skb, nlh, &c);
		/* the dump answers for itself, with NLMSG_DONE */
		return ret ? ret : IB_NL_DUMP_STARTED;
	}
	if (!o->doit)
		return -EINVAL;
	return o->doit(skb, nlh, extack);
}

/* Every message of the datagram in turn, as netlink_rcv_skb() walks them. */
static void ib_nl_rcv(struct sk_buff *skb)
{
	struct netlink_ext_ack extack;
	struct nlmsghdr *nlh;
	u32 len;
	int ret;

	while (skb->len >= nlmsg_total_size(0)) {
		nlh = nlmsg_hdr(skb);
		if (nlh->nlmsg_len < NLMSG_HDRLEN || skb->len < nlh->nlmsg_len)
			return;

		memset(&extack, 0, sizeof(extack));
		ret = 0;
		if ((nlh->nlmsg_flags & NLM_F_REQUEST) && nlh->nlmsg_type >= NLMSG_MIN_TYPE)
			ret = ib_nl_dispatch(skb, nlh, &extack);
		if (ret != IB_NL_DUMP_STARTED &&
		    ((nlh->nlmsg_flags & NLM_F_ACK) || ret))
			netlink_ack(skb, nlh, ret, &extack);

		len = NLMSG_ALIGN(nlh->nlmsg_len);
		if (len > skb->len)
			len = skb->len;
		skb_pull(skb, len);
	}
}

int ib_nl_unicast(struct sk_buff *in_skb, struct sk_buff *msg)
{
	struct ib_nl_net *nn = net_generic(sock_net(in_skb->sk), ib_nl_net_id);
	int ret;

	ret = netlink_unicast(nn->sock, msg, NETLINK_CB(in_skb).portid, MSG_DONTWAIT);
	return ret < 0 ? ret : 0;
}

static int __net_init ib_nl_net_init(struct net *net)
{
	struct ib_nl_net *nn = net_generic(net, ib_nl_net_id);
	struct netlink_kernel_cfg cfg = {
		.input	= ib_nl_rcv,
	};

	nn->sock = netlink_kernel_create(net, NETLINK_RDMA, &cfg);
	if (!nn->sock) {
		/* another RDMA netlink owner: the in-tree ib_core, say */
		pr_err("ib_core: cannot create the RDMA netlink socket\n");
		return -ENOMEM;
	}
	/* a full receiver makes the answer wait at most this long */
	nn->sock->sk_sndtimeo = 10 * HZ;
	return 0;
}

static void __net_exit ib_nl_net_exit(struct net *net)
{
	struct ib_nl_net *nn = net_generic(net, ib_nl_net_id);

	netlink_kernel_release(nn->sock);
	nn->sock = NULL;
}

static struct pernet_operations ib_nl_net_ops = {
	.init	= ib_nl_net_init,
	.exit	= ib_nl_net_exit,
	.id	= &ib_nl_net_id,
	.size	= sizeof(struct ib_nl_net),
};

int ib_nl_init(void)
{
	return register_pernet_subsys(&ib_nl_net_ops);
}

void ib_nl_exit(void)
{
	unregister_pernet_subsys(&ib_nl_net_ops);
}

/* opening a NETLINK_RDMA socket loads ib_core */
MODULE_ALIAS_NET_PF_PROTO(PF_NETLINK, NETLINK_RDMA);

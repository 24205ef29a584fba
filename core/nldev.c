// SPDX-License-Identifier: GPL-2.0
/*
 * The NLDEV client of RDMA netlink: devices (GET, SET: the rename), ports
 * (PORT_GET), the system settings (SYS_GET, SYS_SET), the character
 * devices of the clients (GET_CHARDEV) and the statistics commands,
 * answered as Linux 6.1 answers them for an mlx4 device; the resource
 * commands are nldev_res.c's.  The operations table is at the end.
 *
 * Errors: a parse error, a missing attribute, an unknown device index or
 * an invalid port is EINVAL for every command (SYS_GET passes the parse
 * error on), as upstream.  What ours does not do (network namespaces in
 * exclusive mode, links of software devices, per-QP counters: the card
 * has no port counters) is refused with the errno upstream gives a
 * device or kernel that cannot (docs/netlink.md).
 */
#include <linux/capability.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <net/sock.h>
#include "core_priv.h"
#include "nldev.h"

/*
 * What each attribute must look like in a request.  Strings the kernel
 * only sends may come back empty at most (RDMA_NLDEV_ATTR_EMPTY_STRING).
 */
const struct nla_policy ib_nldev_policy[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DEV_NAME]		= { .type = NLA_NUL_STRING,
						    .len = IB_DEVICE_NAME_MAX },
	[RDMA_NLDEV_ATTR_PORT_INDEX]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_CAP_FLAGS]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_FW_VERSION]		= { .type = NLA_NUL_STRING,
						    .len = RDMA_NLDEV_ATTR_EMPTY_STRING },
	[RDMA_NLDEV_ATTR_NODE_GUID]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID]	= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_SUBNET_PREFIX]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_LID]			= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_SM_LID]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_LMC]			= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_PORT_STATE]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_PORT_PHYS_STATE]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_SUMMARY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME] = { .type = NLA_NUL_STRING,
						    .len = RDMA_NLDEV_ATTR_EMPTY_STRING },
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_QP]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_QP_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_LQPN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_RQPN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_RQ_PSN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_SQ_PSN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_TYPE]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_STATE]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_PID]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_KERN_NAME]		= { .type = NLA_NUL_STRING,
						    .len = RDMA_NLDEV_ATTR_EMPTY_STRING },
	[RDMA_NLDEV_ATTR_RES_CM_ID]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_PS]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_SRC_ADDR]		= {
		.len = sizeof(struct __kernel_sockaddr_storage) },
	[RDMA_NLDEV_ATTR_RES_DST_ADDR]		= {
		.len = sizeof(struct __kernel_sockaddr_storage) },
	[RDMA_NLDEV_ATTR_RES_CQ]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CQ_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CQE]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_USECNT]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_POLL_CTX]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_MR]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_MR_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_RKEY]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_LKEY]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_IOVA]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_MRLEN]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_PD]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_PD_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_NDEV_INDEX]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_NDEV_NAME]		= { .type = NLA_NUL_STRING, .len = IFNAMSIZ },
	[RDMA_NLDEV_ATTR_DRIVER]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_DRIVER_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_DRIVER_STRING]		= { .type = NLA_NUL_STRING,
						    .len = RDMA_NLDEV_ATTR_EMPTY_STRING },
	[RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DRIVER_S32]		= { .type = NLA_S32 },
	[RDMA_NLDEV_ATTR_DRIVER_U32]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DRIVER_S64]		= { .type = NLA_S64 },
	[RDMA_NLDEV_ATTR_DRIVER_U64]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_PDN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CQN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_MRN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CM_IDN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CTXN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_LINK_TYPE]		= { .type = NLA_NUL_STRING, .len = IFNAMSIZ },
	[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DEV_PROTOCOL]		= { .type = NLA_NUL_STRING,
						    .len = RDMA_NLDEV_ATTR_EMPTY_STRING },
	[RDMA_NLDEV_NET_NS_FD]			= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_CHARDEV_TYPE]		= { .type = NLA_NUL_STRING,
						    .len = RDMA_NLDEV_ATTR_CHARDEV_TYPE_SIZE },
	[RDMA_NLDEV_ATTR_CHARDEV_NAME]		= { .type = NLA_NUL_STRING,
						    .len = RDMA_NLDEV_ATTR_EMPTY_STRING },
	[RDMA_NLDEV_ATTR_CHARDEV_ABI]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_CHARDEV]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_MODE]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_RES]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_COUNTER]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_COUNTER_ID]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] = { .type = NLA_NUL_STRING },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_DEV_DIM]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_RAW]		= { .type = NLA_BINARY },
	[RDMA_NLDEV_ATTR_RES_CTX]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CTX_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SRQ]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SRQ_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SRQN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_MIN_RANGE]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_MAX_RANGE]		= { .type = NLA_U32 },
	[RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC] = { .type = NLA_U8 },
	[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DRIVER_DETAILS]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_SUBTYPE]		= { .type = NLA_NUL_STRING,
						    .len = RDMA_NLDEV_ATTR_EMPTY_STRING },
};

int ib_nldev_parse(const struct nlmsghdr *nlh, struct nlattr **tb, bool strict,
		   struct netlink_ext_ack *extack)
{
	if (strict)
		return nlmsg_parse(nlh, 0, tb, RDMA_NLDEV_ATTR_MAX - 1, ib_nldev_policy, extack);
	return nlmsg_parse_deprecated(nlh, 0, tb, RDMA_NLDEV_ATTR_MAX - 1, ib_nldev_policy,
				      extack);
}

struct ib_device *ib_nldev_device(struct nlattr **tb)
{
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX])
		return NULL;
	return ib_device_get_by_index(nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]));
}

/* the port PORT_INDEX names, 0 if it is missing or not one of the device's */
static u32 ib_nldev_port(struct ib_device *device, struct nlattr **tb)
{
	u32 port;

	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return 0;
	port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	return rdma_is_port_valid(device, port) ? port : 0;
}

int ib_nldev_put_handle(struct sk_buff *msg, struct ib_device *device)
{
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, device->index) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME, dev_name(&device->dev)))
		return -EMSGSIZE;
	return 0;
}

struct sk_buff *ib_nldev_new_reply(struct sk_buff *skb, const struct nlmsghdr *req,
				   u32 cmd, struct nlmsghdr **nlh)
{
	struct sk_buff *msg;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return NULL;
	*nlh = nlmsg_put(msg, NETLINK_CB(skb).portid, req->nlmsg_seq,
			 RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), 0, 0);
	if (!*nlh) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* ---- devices ----------------------------------------------------------- */

/* the protocol of the device as its first port has it */
static const char *ib_nldev_protocol(struct ib_device *device)
{
	u32 port = rdma_start_port(device);

	if (rdma_protocol_ib(device, port))
		return "ib";
	if (rdma_protocol_iwarp(device, port))
		return "iw";
	if (rdma_protocol_roce(device, port))
		return "roce";
	return NULL;
}

static int ib_nldev_put_dev(struct sk_buff *msg, struct ib_device *device)
{
	char fw[IB_FW_VERSION_NAME_MAX];
	const char *proto;

	if (ib_nldev_put_handle(msg, device) ||
	    /* in a device's answer, PORT_INDEX is how many ports it has */
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, rdma_end_port(device)) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CAP_FLAGS, device->attrs.device_cap_flags,
			      RDMA_NLDEV_ATTR_PAD))
		return -EMSGSIZE;
	ib_get_device_fw_str(device, fw);
	if (fw[0] && nla_put_string(msg, RDMA_NLDEV_ATTR_FW_VERSION, fw))
		return -EMSGSIZE;
	/* the GUIDs go in host order */
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_NODE_GUID, be64_to_cpu(device->node_guid),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID,
			      be64_to_cpu(device->attrs.sys_image_guid), RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, device->node_type) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_DIM, device->use_cq_dim))
		return -EMSGSIZE;
	proto = ib_nldev_protocol(device);
	if (proto && nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_PROTOCOL, proto))
		return -EMSGSIZE;
	return 0;
}

int ib_nldev_dev_doit(struct sk_buff *skb, struct nlmsghdr *nlh, struct netlink_ext_ack *extack,
		      u32 cmd, int (*fill)(struct sk_buff *, struct ib_device *))
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	int ret;

	if (ib_nldev_parse(nlh, tb, false, extack))
		return -EINVAL;
	device = ib_nldev_device(tb);
	if (!device)
		return -EINVAL;
	msg = ib_nldev_new_reply(skb, nlh, cmd, &rnlh);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	ret = fill(msg, device);
	if (ret) {
		nlmsg_free(msg);
		goto out;
	}
	nlmsg_end(msg, rnlh);
	ret = ib_nl_unicast(skb, msg);
out:
	ib_device_put(device);
	return ret;
}

static int ib_nldev_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			     struct netlink_ext_ack *extack)
{
	return ib_nldev_dev_doit(skb, nlh, extack, RDMA_NLDEV_CMD_GET, ib_nldev_put_dev);
}

int ib_nldev_dump_devices(struct sk_buff *skb, struct netlink_callback *cb, u32 cmd,
			  int (*fill)(struct sk_buff *, struct ib_device *))
{
	u32 index = cb->args[0];
	struct ib_device *device;
	struct nlmsghdr *nlh;
	int ret;

	while ((device = ib_device_get_next(&index))) {
		nlh = nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), 0, NLM_F_MULTI);
		ret = nlh ? fill(skb, device) : -EMSGSIZE;
		ib_device_put(device);
		if (ret) {
			if (nlh)
				nlmsg_cancel(skb, nlh);
			break;
		}
		nlmsg_end(skb, nlh);
		index++;
	}
	cb->args[0] = index;
	return skb->len;
}

static int ib_nldev_get_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ib_nldev_dump_devices(skb, cb, RDMA_NLDEV_CMD_GET, ib_nldev_put_dev);
}

/* The rename: "rdma dev set NAME name NEW", rdma_rename at boot. */
static int ib_nldev_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	char name[IB_DEVICE_NAME_MAX];
	struct ib_device *device;
	int ret = 0;

	if (ib_nldev_parse(nlh, tb, false, extack))
		return -EINVAL;
	device = ib_nldev_device(tb);
	if (!device)
		return -EINVAL;

	if (tb[RDMA_NLDEV_ATTR_DEV_NAME]) {
		/* the policy saw the NUL within IB_DEVICE_NAME_MAX */
		strscpy(name, nla_data(tb[RDMA_NLDEV_ATTR_DEV_NAME]), sizeof(name));
		ret = name[0] ? ib_device_rename(device, name) : -EINVAL;
	} else if (tb[RDMA_NLDEV_NET_NS_FD]) {
		/* only in exclusive mode, which ours does not offer */
		ret = -EOPNOTSUPP;
	} else if (tb[RDMA_NLDEV_ATTR_DEV_DIM]) {
		/* CQ moderation by DIM: mlx4 has none (upstream: the same) */
		ret = nla_get_u8(tb[RDMA_NLDEV_ATTR_DEV_DIM]) > 1 ? -EINVAL : -EOPNOTSUPP;
	}
	ib_device_put(device);
	return ret;
}

/* ---- ports ------------------------------------------------------------- */

static int ib_nldev_put_port(struct sk_buff *msg, struct ib_device *device, u32 port)
{
	struct ib_port_attr attr;
	int ret;

	if (ib_nldev_put_handle(msg, device) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		return -EMSGSIZE;
	ret = ib_query_port(device, port, &attr);
	if (ret)
		return ret;
	if (rdma_protocol_ib(device, port) &&
	    (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CAP_FLAGS,
			       attr.port_cap_flags | (u64)attr.port_cap_flags2 << 32,
			       RDMA_NLDEV_ATTR_PAD) ||
	     nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_SUBNET_PREFIX, attr.subnet_prefix,
			       RDMA_NLDEV_ATTR_PAD) ||
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_LID, attr.lid) ||
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_SM_LID, attr.sm_lid) ||
	     nla_put_u8(msg, RDMA_NLDEV_ATTR_LMC, attr.lmc)))
		return -EMSGSIZE;
	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_STATE, attr.state) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, attr.phys_state))
		return -EMSGSIZE;
	/*
	 * No netdev: mlx4 reports one only for an Ethernet port (IPoIB's
	 * ib0 is not the port's), and every port here is InfiniBand.
	 */
	return 0;
}

static int ib_nldev_port_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
				  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	u32 port;
	int ret;

	if (ib_nldev_parse(nlh, tb, false, extack))
		return -EINVAL;
	device = ib_nldev_device(tb);
	if (!device)
		return -EINVAL;
	port = ib_nldev_port(device, tb);
	ret = -EINVAL;
	if (!port)
		goto out;
	/* upstream answers a PORT_GET with the GET type: tools do not check */
	msg = ib_nldev_new_reply(skb, nlh, RDMA_NLDEV_CMD_GET, &rnlh);
	ret = -ENOMEM;
	if (!msg)
		goto out;
	ret = ib_nldev_put_port(msg, device, port);
	if (ret) {
		nlmsg_free(msg);
		goto out;
	}
	nlmsg_end(msg, rnlh);
	ret = ib_nl_unicast(skb, msg);
out:
	ib_device_put(device);
	return ret;
}

/* the ports of the device DEV_INDEX names; cb->args[0]: the next port - 1 */
static int ib_nldev_port_get_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlmsghdr *nlh;
	u32 port;
	int ret;

	if (ib_nldev_parse(cb->nlh, tb, false, NULL))
		return -EINVAL;
	device = ib_nldev_device(tb);
	if (!device)
		return -EINVAL;
	for (port = rdma_start_port(device) + cb->args[0]; port <= rdma_end_port(device);
	     port++) {
		nlh = nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET),
				0, NLM_F_MULTI);
		ret = nlh ? ib_nldev_put_port(skb, device, port) : -EMSGSIZE;
		if (ret) {
			if (nlh)
				nlmsg_cancel(skb, nlh);
			break;
		}
		nlmsg_end(skb, nlh);
		cb->args[0]++;
	}
	ib_device_put(device);
	return skb->len;
}

/* ---- the system settings ----------------------------------------------- */

static int ib_nldev_sys_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
				 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	int ret;

	ret = ib_nldev_parse(nlh, tb, true, extack);
	if (ret)
		return ret;
	msg = ib_nldev_new_reply(skb, nlh, RDMA_NLDEV_CMD_SYS_GET, &rnlh);
	if (!msg)
		return -ENOMEM;
	/*
	 * Devices are shared by every namespace; controlled QKeys need
	 * CAP_NET_RAW (ours has no switch for it); pinned pages are copied
	 * at fork by every kernel we load into, so libibverbs need not
	 * madvise(DONTFORK).
	 */
	if (nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1) ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE, 0) ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	nlmsg_end(msg, rnlh);
	return ib_nl_unicast(skb, msg);
}

static int ib_nldev_sys_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
				 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	u8 v;

	if (ib_nldev_parse(nlh, tb, true, extack))
		return -EINVAL;
	if (tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]) {
		v = nla_get_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]);
		if (v > 1)
			return -EINVAL;
		/* shared is what it is; exclusive is not offered */
		if (!v) {
			NL_SET_ERR_MSG(extack,
				       "exclusive RDMA network namespaces are not supported");
			return -EOPNOTSUPP;
		}
		return 0;
	}
	if (tb[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE]) {
		v = nla_get_u8(tb[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE]);
		if (v > 1)
			return -EINVAL;
		if (v) {
			NL_SET_ERR_MSG(extack, "controlled QKeys always need CAP_NET_RAW");
			return -EOPNOTSUPP;
		}
		return 0;
	}
	return -EINVAL;
}

/* ---- character devices ------------------------------------------------- */

static int ib_nldev_get_chardev(struct sk_buff *skb, struct nlmsghdr *nlh,
				struct netlink_ext_ack *extack)
{
	char type[RDMA_NLDEV_ATTR_CHARDEV_TYPE_SIZE];
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_client_nl_info info = {};
	struct ib_device *device = NULL;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	int ret;

	if (ib_nldev_parse(nlh, tb, true, extack) || !tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE])
		return -EINVAL;
	strscpy(type, nla_data(tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE]), sizeof(type));

	if (tb[RDMA_NLDEV_ATTR_DEV_INDEX]) {
		device = ib_nldev_device(tb);
		if (!device)
			return -EINVAL;
		/* a port, or -1 for "the device's" */
		info.port = (u32)-1;
		if (tb[RDMA_NLDEV_ATTR_PORT_INDEX]) {
			info.port = ib_nldev_port(device, tb);
			ret = -EINVAL;
			if (!info.port)
				goto out_dev;
		}
	} else if (tb[RDMA_NLDEV_ATTR_PORT_INDEX]) {
		return -EINVAL;
	}

	msg = ib_nldev_new_reply(skb, nlh, RDMA_NLDEV_CMD_GET_CHARDEV, &rnlh);
	ret = -ENOMEM;
	if (!msg)
		goto out_dev;
	info.nl_msg = msg;
	ret = ib_get_client_nl_info(device, type, &info);
	if (ret)
		goto out_msg;
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CHARDEV, huge_encode_dev(info.cdev->devt),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CHARDEV_ABI, info.abi, RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_CHARDEV_NAME, dev_name(info.cdev))) {
		ret = -EMSGSIZE;
		goto out_cdev;
	}
	put_device(info.cdev);
	if (device)
		ib_device_put(device);
	nlmsg_end(msg, rnlh);
	return ib_nl_unicast(skb, msg);

out_cdev:
	put_device(info.cdev);
out_msg:
	nlmsg_free(msg);
out_dev:
	if (device)
		ib_device_put(device);
	return ret;
}

/* ---- statistics -------------------------------------------------------- */

/*
 * The counters of a port ("rdma statistic show"): mlx4 offers them only
 * when the firmware reports per-port diagnostics, which the card (and so
 * the model) does not: EINVAL, as the in-tree mlx4 answers there.  The
 * QP counter mode of a port: none, and it cannot be set (no counters to
 * bind a QP to).
 */
static int ib_nldev_stat_qp_mode(struct sk_buff *skb, struct nlmsghdr *nlh,
				 struct nlattr **tb)
{
	struct ib_device *device;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	u32 port;
	int ret;

	if (tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID]) {
		/* one bound counter: there are none */
		if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_PORT_INDEX])
			return -EINVAL;
		return -ENOENT;
	}
	if (!tb[RDMA_NLDEV_ATTR_STAT_MODE] || !tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return -EINVAL;
	device = ib_nldev_device(tb);
	if (!device)
		return -EINVAL;
	port = ib_nldev_port(device, tb);
	ret = -EINVAL;
	if (!port)
		goto out;
	msg = ib_nldev_new_reply(skb, nlh, RDMA_NLDEV_CMD_STAT_GET, &rnlh);
	ret = -ENOMEM;
	if (!msg)
		goto out;
	if (ib_nldev_put_handle(msg, device) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_NONE)) {
		nlmsg_free(msg);
		ret = -EMSGSIZE;
		goto out;
	}
	nlmsg_end(msg, rnlh);
	ret = ib_nl_unicast(skb, msg);
out:
	ib_device_put(device);
	return ret;
}

static int ib_nldev_stat_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
				  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];

	if (ib_nldev_parse(nlh, tb, true, extack))
		return -EINVAL;
	if (!tb[RDMA_NLDEV_ATTR_STAT_RES])
		return -EINVAL;		/* the port's counters: none */
	switch (nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_RES])) {
	case RDMA_NLDEV_ATTR_RES_QP:
		return ib_nldev_stat_qp_mode(skb, nlh, tb);
	case RDMA_NLDEV_ATTR_RES_MR:
		return ib_nldev_res_obj_doit(skb, nlh, extack);
	default:
		return -EINVAL;
	}
}

static int ib_nldev_stat_get_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;

	if (ib_nldev_parse(cb->nlh, tb, true, NULL) || !tb[RDMA_NLDEV_ATTR_STAT_RES])
		return -EINVAL;
	switch (nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_RES])) {
	case RDMA_NLDEV_ATTR_RES_QP:
		/* the bound counters of the device: none, an empty dump */
		device = ib_nldev_device(tb);
		if (!device)
			return -EINVAL;
		ib_device_put(device);
		return 0;
	case RDMA_NLDEV_ATTR_RES_MR:
		return ib_nldev_res_obj_dump(skb, cb);
	default:
		return -EINVAL;
	}
}

/* set a QP's counter mode, bind a QP to one, turn counters on or off */
static int ib_nldev_stat_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
				  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	int ret = -EINVAL;

	if (ib_nldev_parse(nlh, tb, true, extack) || !tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return -EINVAL;
	device = ib_nldev_device(tb);
	if (!device)
		return -EINVAL;
	if (!ib_nldev_port(device, tb))
		goto out;
	if (!tb[RDMA_NLDEV_ATTR_STAT_MODE] && !tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS])
		goto out;
	if (tb[RDMA_NLDEV_ATTR_STAT_MODE] &&
	    (!tb[RDMA_NLDEV_ATTR_STAT_RES] ||
	     nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_RES]) != RDMA_NLDEV_ATTR_RES_QP))
		goto out;
	NL_SET_ERR_MSG(extack, "the device has no port counters");
	ret = -EOPNOTSUPP;
out:
	ib_device_put(device);
	return ret;
}

static int ib_nldev_stat_del_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
				  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	int ret = -EINVAL;

	if (ib_nldev_parse(nlh, tb, true, extack) || !tb[RDMA_NLDEV_ATTR_STAT_RES] ||
	    !tb[RDMA_NLDEV_ATTR_PORT_INDEX] || !tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID] ||
	    !tb[RDMA_NLDEV_ATTR_RES_LQPN] ||
	    nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_RES]) != RDMA_NLDEV_ATTR_RES_QP)
		return -EINVAL;
	device = ib_nldev_device(tb);
	if (!device)
		return -EINVAL;
	/* no QP is bound to a counter: there is nothing to unbind */
	if (ib_nldev_port(device, tb))
		ret = -EINVAL;
	ib_device_put(device);
	return ret;
}

static int ib_nldev_stat_status_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
				     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;

	if (ib_nldev_parse(nlh, tb, true, extack) || !tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return -EINVAL;
	device = ib_nldev_device(tb);
	if (!device)
		return -EINVAL;
	/* which port counters are on: the device has none */
	ib_device_put(device);
	return -EINVAL;
}

/* ---- links ------------------------------------------------------------- */

/*
 * "rdma link add NAME type rxe|siw netdev DEV": software devices are the
 * in-tree stack's modules, which cannot load next to ours.  An mlx4
 * device cannot be deleted from user space.
 */
static int ib_nldev_newlink(struct sk_buff *skb, struct nlmsghdr *nlh,
			    struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];

	if (ib_nldev_parse(nlh, tb, false, extack) || !tb[RDMA_NLDEV_ATTR_DEV_NAME] ||
	    !tb[RDMA_NLDEV_ATTR_LINK_TYPE] || !tb[RDMA_NLDEV_ATTR_NDEV_NAME])
		return -EINVAL;
	NL_SET_ERR_MSG(extack, "no software RDMA link types with this stack");
	return -EINVAL;
}

static int ib_nldev_dellink(struct sk_buff *skb, struct nlmsghdr *nlh,
			    struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;

	if (ib_nldev_parse(nlh, tb, false, extack))
		return -EINVAL;
	device = ib_nldev_device(tb);
	if (!device)
		return -EINVAL;
	ib_device_put(device);
	return -EINVAL;
}

/* ---- the table --------------------------------------------------------- */

/* the object commands (nldev_res.c) */
#define IB_NL_RES_OP(_admin)						\
	{ .doit = ib_nldev_res_obj_doit, .dump = ib_nldev_res_obj_dump, .admin = _admin }

const struct ib_nl_op ib_nldev_ops[RDMA_NLDEV_NUM_OPS] = {
	[RDMA_NLDEV_CMD_GET] = {
		.doit = ib_nldev_get_doit, .dump = ib_nldev_get_dump,
	},
	[RDMA_NLDEV_CMD_SET] = {
		.doit = ib_nldev_set_doit, .admin = true,
	},
	[RDMA_NLDEV_CMD_NEWLINK] = {
		.doit = ib_nldev_newlink, .admin = true,
	},
	[RDMA_NLDEV_CMD_DELLINK] = {
		.doit = ib_nldev_dellink, .admin = true,
	},
	[RDMA_NLDEV_CMD_PORT_GET] = {
		.doit = ib_nldev_port_get_doit, .dump = ib_nldev_port_get_dump,
	},
	[RDMA_NLDEV_CMD_SYS_GET] = {
		.doit = ib_nldev_sys_get_doit,
	},
	[RDMA_NLDEV_CMD_SYS_SET] = {
		.doit = ib_nldev_sys_set_doit, .admin = true,
	},
	[RDMA_NLDEV_CMD_RES_GET] = {
		.doit = ib_nldev_res_get_doit, .dump = ib_nldev_res_get_dump,
	},
	[RDMA_NLDEV_CMD_RES_QP_GET] = IB_NL_RES_OP(false),
	[RDMA_NLDEV_CMD_RES_CM_ID_GET] = IB_NL_RES_OP(false),
	[RDMA_NLDEV_CMD_RES_CQ_GET] = IB_NL_RES_OP(false),
	[RDMA_NLDEV_CMD_RES_MR_GET] = IB_NL_RES_OP(false),
	[RDMA_NLDEV_CMD_RES_PD_GET] = IB_NL_RES_OP(false),
	[RDMA_NLDEV_CMD_GET_CHARDEV] = {
		.doit = ib_nldev_get_chardev,
	},
	[RDMA_NLDEV_CMD_STAT_SET] = {
		.doit = ib_nldev_stat_set_doit, .admin = true,
	},
	[RDMA_NLDEV_CMD_STAT_GET] = {
		.doit = ib_nldev_stat_get_doit, .dump = ib_nldev_stat_get_dump,
	},
	[RDMA_NLDEV_CMD_STAT_DEL] = {
		.doit = ib_nldev_stat_del_doit, .admin = true,
	},
	[RDMA_NLDEV_CMD_RES_QP_GET_RAW] = IB_NL_RES_OP(true),
	[RDMA_NLDEV_CMD_RES_CQ_GET_RAW] = IB_NL_RES_OP(true),
	[RDMA_NLDEV_CMD_RES_MR_GET_RAW] = IB_NL_RES_OP(true),
	[RDMA_NLDEV_CMD_RES_CTX_GET] = IB_NL_RES_OP(false),
	[RDMA_NLDEV_CMD_RES_SRQ_GET] = IB_NL_RES_OP(false),
	[RDMA_NLDEV_CMD_STAT_GET_STATUS] = {
		.doit = ib_nldev_stat_status_doit,
	},
};

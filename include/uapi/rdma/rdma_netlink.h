/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * RDMA netlink (NETLINK_RDMA): the message types and attribute numbers
 * that user space (iproute2's rdma, libibverbs, rdma-core's rdma_rename)
 * sends and reads.  Every value is ABI: each is spelled out, and
 * tests/build/uapi.sh checks each against rdma-core's copy of upstream's
 * header (/usr/include/rdma/rdma_netlink.h).  Only the NLDEV client is
 * served by ib_core (docs/netlink.md); the other clients' numbers are
 * here so that their messages can be recognised and refused.
 */
#ifndef IBSTACK_UAPI_RDMA_RDMA_NETLINK_H
#define IBSTACK_UAPI_RDMA_RDMA_NETLINK_H

#ifdef __KERNEL__
#include <ibstack/no_kernel_ib.h>
#endif
#include <linux/types.h>

/* A message type is a client number (6 bits) above an operation (10 bits). */
#define RDMA_NL_GET_CLIENT(type)	(((type) >> 10) & 0x3f)
#define RDMA_NL_GET_OP(type)		((type) & 0x3ff)
#define RDMA_NL_GET_TYPE(client, op)	(((client) << 10) + (op))

/* clients */
enum {
	RDMA_NL_IWCM = 2,	/* iWARP connection manager (port mapper) */
	RDMA_NL_RSVD = 3,
	RDMA_NL_LS = 4,		/* local services: ibacm's path resolution */
	RDMA_NL_NLDEV = 5,	/* devices, ports, resources, statistics */
	RDMA_NL_NUM_CLIENTS = 6,
};

/* multicast groups */
enum {
	RDMA_NL_GROUP_IWPM = 2,
	RDMA_NL_GROUP_LS = 3,
	RDMA_NL_NUM_GROUPS = 4,
};

/* the local-services client's operations */
enum {
	RDMA_NL_LS_OP_RESOLVE = 0,
	RDMA_NL_LS_OP_SET_TIMEOUT = 1,
	RDMA_NL_LS_OP_IP_RESOLVE = 2,
	RDMA_NL_LS_NUM_OPS = 3,
};

/* node types (the sysfs node_type's number, DEV_NODE_TYPE) */
enum rdma_node_type {
	RDMA_NODE_IB_CA = 1,
	RDMA_NODE_IB_SWITCH = 2,
	RDMA_NODE_IB_ROUTER = 3,
	RDMA_NODE_RNIC = 4,
	RDMA_NODE_USNIC = 5,
	RDMA_NODE_USNIC_UDP = 6,
	RDMA_NODE_UNSPECIFIED = 7,
};

/* NLDEV operations; "dump" marks the ones that also answer NLM_F_DUMP */
enum rdma_nldev_command {
	RDMA_NLDEV_CMD_UNSPEC = 0,
	RDMA_NLDEV_CMD_GET = 1,			/* dump */
	RDMA_NLDEV_CMD_SET = 2,
	RDMA_NLDEV_CMD_NEWLINK = 3,
	RDMA_NLDEV_CMD_DELLINK = 4,
	RDMA_NLDEV_CMD_PORT_GET = 5,		/* dump */
	RDMA_NLDEV_CMD_SYS_GET = 6,
	RDMA_NLDEV_CMD_SYS_SET = 7,
	/* 8 unused */
	RDMA_NLDEV_CMD_RES_GET = 9,		/* dump */
	RDMA_NLDEV_CMD_RES_QP_GET = 10,		/* dump */
	RDMA_NLDEV_CMD_RES_CM_ID_GET = 11,	/* dump */
	RDMA_NLDEV_CMD_RES_CQ_GET = 12,		/* dump */
	RDMA_NLDEV_CMD_RES_MR_GET = 13,		/* dump */
	RDMA_NLDEV_CMD_RES_PD_GET = 14,		/* dump */
	RDMA_NLDEV_CMD_GET_CHARDEV = 15,
	RDMA_NLDEV_CMD_STAT_SET = 16,
	RDMA_NLDEV_CMD_STAT_GET = 17,		/* dump */
	RDMA_NLDEV_CMD_STAT_DEL = 18,
	RDMA_NLDEV_CMD_RES_QP_GET_RAW = 19,	/* dump */
	RDMA_NLDEV_CMD_RES_CQ_GET_RAW = 20,	/* dump */
	RDMA_NLDEV_CMD_RES_MR_GET_RAW = 21,	/* dump */
	RDMA_NLDEV_CMD_RES_CTX_GET = 22,	/* dump */
	RDMA_NLDEV_CMD_RES_SRQ_GET = 23,	/* dump */
	RDMA_NLDEV_CMD_STAT_GET_STATUS = 24,
	RDMA_NLDEV_NUM_OPS = 25,
};

/* how user space prints a driver attribute */
enum rdma_nldev_print_type {
	RDMA_NLDEV_PRINT_TYPE_UNSPEC = 0,
	RDMA_NLDEV_PRINT_TYPE_HEX = 1,
};

/* string attributes the kernel only sends: a request may carry "" at most */
#define RDMA_NLDEV_ATTR_EMPTY_STRING		1
#define RDMA_NLDEV_ATTR_ENTRY_STRLEN		16
#define RDMA_NLDEV_ATTR_CHARDEV_TYPE_SIZE	32

/*
 * NLDEV attributes.  Integers are in host order (the GUIDs too); strings
 * end in NUL; u64 values are preceded by PAD as needed for alignment.
 */
enum rdma_nldev_attr {
	RDMA_NLDEV_ATTR_UNSPEC = 0,
	RDMA_NLDEV_ATTR_PAD = 0,
	RDMA_NLDEV_ATTR_DEV_INDEX = 1,			/* u32 */
	RDMA_NLDEV_ATTR_DEV_NAME = 2,			/* string */
	RDMA_NLDEV_ATTR_PORT_INDEX = 3,			/* u32: in a device reply, the port count */
	RDMA_NLDEV_ATTR_CAP_FLAGS = 4,			/* u64 */
	RDMA_NLDEV_ATTR_FW_VERSION = 5,			/* string */
	RDMA_NLDEV_ATTR_NODE_GUID = 6,			/* u64 */
	RDMA_NLDEV_ATTR_SYS_IMAGE_GUID = 7,		/* u64 */
	RDMA_NLDEV_ATTR_SUBNET_PREFIX = 8,		/* u64 */
	RDMA_NLDEV_ATTR_LID = 9,			/* u32 */
	RDMA_NLDEV_ATTR_SM_LID = 10,			/* u32 */
	RDMA_NLDEV_ATTR_LMC = 11,			/* u8 */
	RDMA_NLDEV_ATTR_PORT_STATE = 12,		/* u8 */
	RDMA_NLDEV_ATTR_PORT_PHYS_STATE = 13,		/* u8 */
	RDMA_NLDEV_ATTR_DEV_NODE_TYPE = 14,		/* u8 */
	RDMA_NLDEV_ATTR_RES_SUMMARY = 15,		/* nest */
	RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY = 16,		/* nest */
	RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME = 17,	/* string */
	RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR = 18,	/* u64 */
	RDMA_NLDEV_ATTR_RES_QP = 19,			/* nest */
	RDMA_NLDEV_ATTR_RES_QP_ENTRY = 20,		/* nest */
	RDMA_NLDEV_ATTR_RES_LQPN = 21,			/* u32 */
	RDMA_NLDEV_ATTR_RES_RQPN = 22,			/* u32 */
	RDMA_NLDEV_ATTR_RES_RQ_PSN = 23,		/* u32 */
	RDMA_NLDEV_ATTR_RES_SQ_PSN = 24,		/* u32 */
	RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE = 25,	/* u8 */
	RDMA_NLDEV_ATTR_RES_TYPE = 26,			/* u8 */
	RDMA_NLDEV_ATTR_RES_STATE = 27,			/* u8 */
	RDMA_NLDEV_ATTR_RES_PID = 28,			/* u32 */
	RDMA_NLDEV_ATTR_RES_KERN_NAME = 29,		/* string */
	RDMA_NLDEV_ATTR_RES_CM_ID = 30,			/* nest */
	RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY = 31,		/* nest */
	RDMA_NLDEV_ATTR_RES_PS = 32,			/* u32 */
	RDMA_NLDEV_ATTR_RES_SRC_ADDR = 33,		/* sockaddr_storage */
	RDMA_NLDEV_ATTR_RES_DST_ADDR = 34,		/* sockaddr_storage */
	RDMA_NLDEV_ATTR_RES_CQ = 35,			/* nest */
	RDMA_NLDEV_ATTR_RES_CQ_ENTRY = 36,		/* nest */
	RDMA_NLDEV_ATTR_RES_CQE = 37,			/* u32 */
	RDMA_NLDEV_ATTR_RES_USECNT = 38,		/* u64 */
	RDMA_NLDEV_ATTR_RES_POLL_CTX = 39,		/* u8 */
	RDMA_NLDEV_ATTR_RES_MR = 40,			/* nest */
	RDMA_NLDEV_ATTR_RES_MR_ENTRY = 41,		/* nest */
	RDMA_NLDEV_ATTR_RES_RKEY = 42,			/* u32 */
	RDMA_NLDEV_ATTR_RES_LKEY = 43,			/* u32 */
	RDMA_NLDEV_ATTR_RES_IOVA = 44,			/* u64 */
	RDMA_NLDEV_ATTR_RES_MRLEN = 45,			/* u64 */
	RDMA_NLDEV_ATTR_RES_PD = 46,			/* nest */
	RDMA_NLDEV_ATTR_RES_PD_ENTRY = 47,		/* nest */
	RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY = 48,	/* u32 */
	RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY = 49,	/* u32 */
	RDMA_NLDEV_ATTR_NDEV_INDEX = 50,		/* u32 */
	RDMA_NLDEV_ATTR_NDEV_NAME = 51,			/* string */
	RDMA_NLDEV_ATTR_DRIVER = 52,			/* nest */
	RDMA_NLDEV_ATTR_DRIVER_ENTRY = 53,		/* nest */
	RDMA_NLDEV_ATTR_DRIVER_STRING = 54,		/* string */
	RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE = 55,		/* u8 */
	RDMA_NLDEV_ATTR_DRIVER_S32 = 56,
	RDMA_NLDEV_ATTR_DRIVER_U32 = 57,
	RDMA_NLDEV_ATTR_DRIVER_S64 = 58,
	RDMA_NLDEV_ATTR_DRIVER_U64 = 59,
	RDMA_NLDEV_ATTR_RES_PDN = 60,			/* u32 */
	RDMA_NLDEV_ATTR_RES_CQN = 61,			/* u32 */
	RDMA_NLDEV_ATTR_RES_MRN = 62,			/* u32 */
	RDMA_NLDEV_ATTR_RES_CM_IDN = 63,		/* u32 */
	RDMA_NLDEV_ATTR_RES_CTXN = 64,			/* u32 */
	RDMA_NLDEV_ATTR_LINK_TYPE = 65,			/* string */
	RDMA_NLDEV_SYS_ATTR_NETNS_MODE = 66,		/* u8 */
	RDMA_NLDEV_ATTR_DEV_PROTOCOL = 67,		/* string */
	RDMA_NLDEV_NET_NS_FD = 68,			/* u32 */
	RDMA_NLDEV_ATTR_CHARDEV_TYPE = 69,		/* string */
	RDMA_NLDEV_ATTR_CHARDEV_NAME = 70,		/* string */
	RDMA_NLDEV_ATTR_CHARDEV_ABI = 71,		/* u64 */
	RDMA_NLDEV_ATTR_CHARDEV = 72,			/* u64: huge_encode_dev() */
	RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID = 73,		/* u32 as sent (the u64 of old comments) */
	RDMA_NLDEV_ATTR_STAT_MODE = 74,			/* u32 */
	RDMA_NLDEV_ATTR_STAT_RES = 75,			/* u32 */
	RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK = 76,	/* u32 */
	RDMA_NLDEV_ATTR_STAT_COUNTER = 77,		/* nest */
	RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY = 78,	/* nest */
	RDMA_NLDEV_ATTR_STAT_COUNTER_ID = 79,		/* u32 */
	RDMA_NLDEV_ATTR_STAT_HWCOUNTERS = 80,		/* nest */
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY = 81,	/* nest */
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME = 82,	/* string */
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE = 83, /* u64 */
	RDMA_NLDEV_ATTR_DEV_DIM = 84,			/* u8 */
	RDMA_NLDEV_ATTR_RES_RAW = 85,			/* binary */
	RDMA_NLDEV_ATTR_RES_CTX = 86,			/* nest */
	RDMA_NLDEV_ATTR_RES_CTX_ENTRY = 87,		/* nest */
	RDMA_NLDEV_ATTR_RES_SRQ = 88,			/* nest */
	RDMA_NLDEV_ATTR_RES_SRQ_ENTRY = 89,		/* nest */
	RDMA_NLDEV_ATTR_RES_SRQN = 90,			/* u32 */
	RDMA_NLDEV_ATTR_MIN_RANGE = 91,			/* u32 */
	RDMA_NLDEV_ATTR_MAX_RANGE = 92,			/* u32 */
	RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK = 93,		/* u8 */
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX = 94,	/* u32 */
	RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC = 95,	/* u8 */
	RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE = 96,	/* u8 */
	RDMA_NLDEV_ATTR_DRIVER_DETAILS = 97,		/* u8 */
	RDMA_NLDEV_ATTR_RES_SUBTYPE = 98,		/* string */
	RDMA_NLDEV_ATTR_MAX = 99,
};

/* per-QP counters: how QPs are bound to counters */
enum rdma_nl_counter_mode {
	RDMA_COUNTER_MODE_NONE = 0,
	RDMA_COUNTER_MODE_AUTO = 1,
	RDMA_COUNTER_MODE_MANUAL = 2,
	RDMA_COUNTER_MODE_MAX = 3,
};

enum rdma_nl_counter_mask {
	RDMA_COUNTER_MASK_QP_TYPE = 1,
	RDMA_COUNTER_MASK_PID = 2,
};

#endif /* IBSTACK_UAPI_RDMA_RDMA_NETLINK_H */

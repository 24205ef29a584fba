/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel verbs API: the interface between ib_core, the HCA drivers
 * (mlx4_ib) and the kernel consumers (ib_mad, ib_sa, ib_cm, IPoIB, uverbs).
 *
 * Contexts, as the midlayer rules have them:
 *  - [any]   callable from any context, never sleeps (hard IRQ included);
 *  - [sleep] process context, may sleep.
 * The data-path verbs ib_post_send(), ib_post_recv(), ib_post_srq_recv(),
 * ib_poll_cq(), ib_req_notify_cq() and the AH calls without their SLEEPABLE
 * flag are [any].  A driver never calls a CQ's completion handler or an
 * event handler from the call chain of a verb, and calls one CQ's
 * completion handler from one context at a time.
 *
 * Numeric values of the enums below that user space can see through uverbs
 * (access flags, QP attribute masks, states, types, WC status and opcodes,
 * event types, device and port capability bits) are those of the IBA and of
 * upstream Linux, so the uverbs ABI can pass them through unchanged.
 */
#ifndef IBSTACK_RDMA_IB_VERBS_H
#define IBSTACK_RDMA_IB_VERBS_H

#include <ibstack/no_kernel_ib.h>
#include <linux/types.h>
#include <linux/device.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/rwsem.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/completion.h>
#include <linux/xarray.h>
#include <linux/workqueue.h>
#include <linux/irq_poll.h>
#include <linux/ktime.h>
#include <linux/err.h>
#include <linux/if_ether.h>
#include <linux/ratelimit.h>
#include <linux/dynamic_debug.h>
#include <linux/ethtool.h>
#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>
#include <linux/netdevice.h>
#include <linux/kref.h>
#include <linux/rcupdate.h>
#include <rdma/rdma_netlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/numa.h>
#include <rdma/restrack.h>

/*
 * What the verbs take from management datagrams (upstream keeps it here
 * too): the flags of a driver's process_mad(), the permissive LID, the
 * multicast QPN and the GRH a UD receive starts with.  The MAD layouts are
 * in <rdma/ib_mad.h>, <rdma/ib_smi.h> and <rdma/ib_pma.h>.
 */
struct ib_mad;

/* mad_flags of process_mad(): key checks the agent skips */
enum ib_process_mad_flags {
	IB_MAD_IGNORE_MKEY	= 1,
	IB_MAD_IGNORE_BKEY	= 2,
	IB_MAD_IGNORE_ALL	= IB_MAD_IGNORE_MKEY | IB_MAD_IGNORE_BKEY
};

/* What process_mad() returns: SUCCESS, and with it REPLY or CONSUMED */
enum ib_mad_result {
	IB_MAD_RESULT_FAILURE	= 0,		/* not processed */
	IB_MAD_RESULT_SUCCESS	= 1 << 0,	/* processed */
	IB_MAD_RESULT_REPLY	= 1 << 1,	/* the out MAD is to be sent back */
	IB_MAD_RESULT_CONSUMED	= 1 << 2	/* nothing else may process it */
};

#define IB_LID_PERMISSIVE		cpu_to_be16(0xffff)
#define IB_MULTICAST_LID_BASE		cpu_to_be16(0xc000)
#define IB_MULTICAST_QPN		0xffffff
#define IB_QPN_MASK			0xFFFFFF

struct ib_device;
struct ib_udata;
struct ib_ucontext;
struct ib_uobject;
struct ib_port_cache;
struct net_device;

#define IB_DEVICE_NAME_MAX	64
#define IB_DEVICE_NODE_DESC_MAX	64
/* the firmware version string of ib_get_device_fw_str(), NUL included */
#define IB_FW_VERSION_NAME_MAX	ETHTOOL_FWVERS_LEN

/* ---------------------------------------------------------------------- */
/* Addressing */

union ib_gid {
	u8 raw[16];
	struct {
		__be64 subnet_prefix;
		__be64 interface_id;
	} global;
};

/*
 * The global route header (40 bytes) as received ahead of UD payloads,
 * in wire order; the GIDs as union ib_gid, as upstream has them.
 */
struct ib_grh {
	__be32		version_tclass_flow;
	__be16		paylen;
	u8		next_hdr;
	u8		hop_limit;
	union ib_gid	sgid;
	union ib_gid	dgid;
};

/* The interface ID of the SA's well-known GID (host order, as upstream's) */
#define IB_SA_WELL_KNOWN_GUID	(BIT_ULL(57) | 2)

/* ib_device.node_type: enum rdma_node_type, in <rdma/rdma_netlink.h> (uapi) */

/*
 * The drivers, as ib_device_ops.driver_id and ib_device_get_by_name() name
 * them (upstream's uapi/rdma/ib_user_ioctl_verbs.h values).
 */
enum rdma_driver_id {
	RDMA_DRIVER_UNKNOWN,
	RDMA_DRIVER_MLX5,
	RDMA_DRIVER_MLX4,
	RDMA_DRIVER_CXGB3,
	RDMA_DRIVER_CXGB4,
	RDMA_DRIVER_MTHCA,
	RDMA_DRIVER_BNXT_RE,
	RDMA_DRIVER_OCRDMA,
	RDMA_DRIVER_NES,
	RDMA_DRIVER_I40IW,
	RDMA_DRIVER_IRDMA = RDMA_DRIVER_I40IW,
	RDMA_DRIVER_VMW_PVRDMA,
	RDMA_DRIVER_QEDR,
	RDMA_DRIVER_HNS,
	RDMA_DRIVER_USNIC,
	RDMA_DRIVER_RXE,
	RDMA_DRIVER_HFI1,
	RDMA_DRIVER_QIB,
	RDMA_DRIVER_EFA,
	RDMA_DRIVER_SIW,
	RDMA_DRIVER_ERDMA,
};

enum rdma_link_layer {
	IB_LINK_LAYER_UNSPECIFIED = 0,
	IB_LINK_LAYER_INFINIBAND = 1,
	IB_LINK_LAYER_ETHERNET = 2,
};

enum ib_port_state {
	IB_PORT_NOP = 0,
	IB_PORT_DOWN = 1,
	IB_PORT_INIT = 2,
	IB_PORT_ARMED = 3,
	IB_PORT_ACTIVE = 4,
	IB_PORT_ACTIVE_DEFER = 5,
};

enum ib_port_phys_state {
	IB_PORT_PHYS_STATE_SLEEP = 1,
	IB_PORT_PHYS_STATE_POLLING = 2,
	IB_PORT_PHYS_STATE_DISABLED = 3,
	IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING = 4,
	IB_PORT_PHYS_STATE_LINK_UP = 5,
	IB_PORT_PHYS_STATE_LINK_ERROR_RECOVERY = 6,
	IB_PORT_PHYS_STATE_PHY_TEST = 7,
};

enum ib_mtu {
	IB_MTU_256 = 1,
	IB_MTU_512 = 2,
	IB_MTU_1024 = 3,
	IB_MTU_2048 = 4,
	IB_MTU_4096 = 5,
};

/* The two MTUs beyond IBA's that Omni-Path ports have */
enum opa_mtu {
	OPA_MTU_8192 = 6,
	OPA_MTU_10240 = 7,
};

static inline int ib_mtu_enum_to_int(enum ib_mtu mtu)
{
	return mtu >= IB_MTU_256 && mtu <= IB_MTU_4096 ? 128 << mtu : -1;
}

/* [any] the largest IBA MTU code not above mtu bytes (256 for less) */
static inline enum ib_mtu ib_mtu_int_to_enum(int mtu)
{
	enum ib_mtu code = IB_MTU_4096;

	while (code > IB_MTU_256 && mtu < ib_mtu_enum_to_int(code))
		code--;
	return code;
}

static inline int opa_mtu_enum_to_int(enum opa_mtu mtu)
{
	if (mtu == OPA_MTU_10240)
		return 10240;
	if (mtu == OPA_MTU_8192)
		return 8192;
	return ib_mtu_enum_to_int((enum ib_mtu)mtu);
}

/* [any] likewise with Omni-Path's two larger codes */
static inline enum opa_mtu opa_mtu_int_to_enum(int mtu)
{
	if (mtu >= 10240)
		return OPA_MTU_10240;
	if (mtu >= 8192)
		return OPA_MTU_8192;
	return (enum opa_mtu)ib_mtu_int_to_enum(mtu);
}

enum ib_port_width {
	IB_WIDTH_1X = 1,
	IB_WIDTH_2X = 16,
	IB_WIDTH_4X = 2,
	IB_WIDTH_8X = 4,
	IB_WIDTH_12X = 8,
};

/* [any] the lane count of a width, -1 for an unknown one */
static inline int ib_width_enum_to_int(enum ib_port_width width)
{
	static const signed char lanes[] = {
		[IB_WIDTH_1X] = 1, [IB_WIDTH_4X] = 4, [IB_WIDTH_8X] = 8,
		[IB_WIDTH_12X] = 12, [IB_WIDTH_2X] = 2,
	};

	if ((unsigned int)width >= ARRAY_SIZE(lanes) || !lanes[width])
		return -1;
	return lanes[width];
}

enum ib_port_speed {
	IB_SPEED_SDR = 1,
	IB_SPEED_DDR = 2,
	IB_SPEED_QDR = 4,
	IB_SPEED_FDR10 = 8,
	IB_SPEED_FDR = 16,
	IB_SPEED_EDR = 32,
	IB_SPEED_HDR = 64,
	IB_SPEED_NDR = 128,
};

/* ---------------------------------------------------------------------- */
/* Device and port attributes */

enum ib_device_cap_flags {
	IB_DEVICE_RESIZE_MAX_WR = BIT(0),
	IB_DEVICE_BAD_PKEY_CNTR = BIT(1),
	IB_DEVICE_BAD_QKEY_CNTR = BIT(2),
	IB_DEVICE_RAW_MULTI = BIT(3),
	IB_DEVICE_AUTO_PATH_MIG = BIT(4),
	IB_DEVICE_CHANGE_PHY_PORT = BIT(5),
	IB_DEVICE_UD_AV_PORT_ENFORCE = BIT(6),
	IB_DEVICE_CURR_QP_STATE_MOD = BIT(7),
	IB_DEVICE_SHUTDOWN_PORT = BIT(8),
	IB_DEVICE_PORT_ACTIVE_EVENT = BIT(10),
	IB_DEVICE_SYS_IMAGE_GUID = BIT(11),
	IB_DEVICE_RC_RNR_NAK_GEN = BIT(12),
	IB_DEVICE_SRQ_RESIZE = BIT(13),
	IB_DEVICE_N_NOTIFY_CQ = BIT(14),
	IB_DEVICE_MEM_WINDOW = BIT(17),
	IB_DEVICE_UD_IP_CSUM = BIT(18),
	IB_DEVICE_XRC = BIT(20),
	IB_DEVICE_MEM_MGT_EXTENSIONS = BIT(21),
	IB_DEVICE_MEM_WINDOW_TYPE_2A = BIT(23),
	IB_DEVICE_MEM_WINDOW_TYPE_2B = BIT(24),
	IB_DEVICE_RC_IP_CSUM = BIT(25),
	IB_DEVICE_RAW_IP_CSUM = BIT(26),
	IB_DEVICE_MANAGED_FLOW_STEERING = BIT(29),
	IB_DEVICE_RAW_SCATTER_FCS = BIT_ULL(34),
	IB_DEVICE_PCI_WRITE_END_PADDING = BIT_ULL(36),
};

/* ib_device_attr.kernel_cap_flags: what only kernel consumers see */
enum ib_kernel_cap_flags {
	IBK_LOCAL_DMA_LKEY = BIT(0),		/* ib_device.local_dma_lkey valid */
	IBK_INTEGRITY_HANDOVER = BIT(1),
	IBK_ON_DEMAND_PAGING = BIT(2),
	IBK_SG_GAPS_REG = BIT(3),
	IBK_ALLOW_USER_UNREG = BIT(4),
	IBK_BLOCK_MULTICAST_LOOPBACK = BIT(5),	/* the QP create flag works */
	IBK_UD_TSO = BIT(6),			/* IB_WR_LSO on UD QPs */
	IBK_VIRTUAL_FUNCTION = BIT(7),
	IBK_RDMA_NETDEV_OPA = BIT(8),
};

/* The parts of ib_device_attr for features we have no hardware for (0). */
struct ib_odp_caps {
	u64	general_caps;
	struct {
		u32	rc_odp_caps;
		u32	uc_odp_caps;
		u32	ud_odp_caps;
		u32	xrc_odp_caps;
	} per_transport_caps;
};

struct ib_rss_caps {
	u32	supported_qpts;		/* BIT(enum ib_qp_type) */
	u32	max_rwq_indirection_tables;
	u32	max_rwq_indirection_table_size;
};

struct ib_tm_caps {
	u32	max_rndv_hdr_size;
	u32	max_num_tags;
	u32	flags;
	u32	max_ops;
	u32	max_sge;
};

struct ib_cq_caps {
	u16	max_cq_moderation_count;
	u16	max_cq_moderation_period;
};

enum ib_atomic_cap {
	IB_ATOMIC_NONE = 0,
	IB_ATOMIC_HCA = 1,
	IB_ATOMIC_GLOB = 2,
};

struct ib_device_attr {
	u64	fw_ver;			/* major << 32 | minor << 16 | subminor */
	__be64	sys_image_guid;
	u64	max_mr_size;
	u64	page_size_cap;
	u32	vendor_id;
	u32	vendor_part_id;
	u32	hw_ver;
	int	max_qp;
	int	max_qp_wr;
	u64	device_cap_flags;	/* enum ib_device_cap_flags */
	u64	kernel_cap_flags;	/* enum ib_kernel_cap_flags */
	int	max_send_sge;
	int	max_recv_sge;
	int	max_sge_rd;
	int	max_cq;
	int	max_cqe;
	int	max_mr;
	int	max_pd;
	int	max_qp_rd_atom;
	int	max_ee_rd_atom;
	int	max_res_rd_atom;
	int	max_qp_init_rd_atom;
	int	max_ee_init_rd_atom;
	enum ib_atomic_cap atomic_cap;
	enum ib_atomic_cap masked_atomic_cap;
	int	max_ee;
	int	max_rdd;
	int	max_mw;
	int	max_raw_ipv6_qp;
	int	max_raw_ethy_qp;
	int	max_mcast_grp;
	int	max_mcast_qp_attach;
	int	max_total_mcast_qp_attach;
	int	max_ah;
	int	max_srq;
	int	max_srq_wr;
	int	max_srq_sge;
	unsigned int max_fast_reg_page_list_len;
	unsigned int max_pi_fast_reg_page_list_len;
	u16	max_pkeys;
	u8	local_ca_ack_delay;
	int	sig_prot_cap;
	int	sig_guard_cap;
	struct ib_odp_caps odp_caps;
	u64	timestamp_mask;
	u64	hca_core_clock;		/* kHz */
	struct ib_rss_caps rss_caps;
	u32	max_wq_type_rq;
	u32	raw_packet_caps;
	struct ib_tm_caps tm_caps;
	struct ib_cq_caps cq_caps;
	u64	max_dm_size;
	u32	max_sgl_rd;
};

struct ib_port_attr {
	u64			subnet_prefix;	/* host order, from the GID cache */
	enum ib_port_state	state;
	enum ib_mtu		max_mtu;
	enum ib_mtu		active_mtu;
	u32			phys_mtu;	/* bytes */
	int			gid_tbl_len;
	unsigned int		ip_gids:1;	/* RoCE: GIDs from IP addresses */
	u32			port_cap_flags;	/* enum ib_port_capability_mask_bits */
	u32			max_msg_sz;
	u32			bad_pkey_cntr;
	u32			qkey_viol_cntr;
	u16			pkey_tbl_len;
	u32			sm_lid;
	u32			lid;
	u8			lmc;
	u8			max_vl_num;
	u8			sm_sl;
	u8			subnet_timeout;
	u8			init_type_reply;
	u8			active_width;	/* enum ib_port_width */
	u16			active_speed;	/* enum ib_port_speed */
	u8			phys_state;	/* enum ib_port_phys_state */
	u16			port_cap_flags2;
};

/* modify_device() */
enum ib_device_modify_flags {
	IB_DEVICE_MODIFY_SYS_IMAGE_GUID = BIT(0),
	IB_DEVICE_MODIFY_NODE_DESC = BIT(1),
};

struct ib_device_modify {
	u64	sys_image_guid;
	char	node_desc[IB_DEVICE_NODE_DESC_MAX];
};

/* modify_port(): IsSM and other capability bits, Q_Key counter reset. */
enum ib_port_modify_flags {
	IB_PORT_SHUTDOWN = BIT(0),
	IB_PORT_INIT_TYPE = BIT(2),
	IB_PORT_RESET_QKEY_CNTR = BIT(3),
	IB_PORT_OPA_MASK_CHG = BIT(4),
};

struct ib_port_modify {
	u32	set_port_cap_mask;
	u32	clr_port_cap_mask;
	u8	init_type;
};

/* ---------------------------------------------------------------------- */
/* Asynchronous events */

enum ib_event_type {
	IB_EVENT_CQ_ERR,
	IB_EVENT_QP_FATAL,
	IB_EVENT_QP_REQ_ERR,
	IB_EVENT_QP_ACCESS_ERR,
	IB_EVENT_COMM_EST,
	IB_EVENT_SQ_DRAINED,
	IB_EVENT_PATH_MIG,
	IB_EVENT_PATH_MIG_ERR,
	IB_EVENT_DEVICE_FATAL,
	IB_EVENT_PORT_ACTIVE,
	IB_EVENT_PORT_ERR,
	IB_EVENT_LID_CHANGE,
	IB_EVENT_PKEY_CHANGE,
	IB_EVENT_SM_CHANGE,
	IB_EVENT_SRQ_ERR,
	IB_EVENT_SRQ_LIMIT_REACHED,
	IB_EVENT_QP_LAST_WQE_REACHED,
	IB_EVENT_CLIENT_REREGISTER,
	IB_EVENT_GID_CHANGE,
	IB_EVENT_WQ_FATAL,
};

const char *ib_event_msg(enum ib_event_type event);

struct ib_cq;
struct ib_qp;
struct ib_srq;
struct ib_wq;

struct ib_event {
	struct ib_device	*device;
	union {
		struct ib_cq	*cq;
		struct ib_qp	*qp;
		struct ib_srq	*srq;
		struct ib_wq	*wq;		/* never: we have no WQs */
		u32		port_num;
	} element;
	enum ib_event_type	event;
};

/*
 * A device-wide event handler.  Handlers run in process context (an
 * ib_core work item), after ib_core's port cache reflects the event, one
 * event at a time per device, in the order the driver dispatched them.
 */
struct ib_event_handler {
	struct ib_device	*device;
	void			(*handler)(struct ib_event_handler *handler,
					   struct ib_event *event);
	struct list_head	list;
};

/* Fills an ib_event_handler before ib_register_event_handler(). */
#define INIT_IB_EVENT_HANDLER(_ptr, _device, _handler)		\
	do {							\
		struct ib_event_handler *__eh = (_ptr);		\
								\
		__eh->device = (_device);			\
		__eh->handler = (_handler);			\
		INIT_LIST_HEAD(&__eh->list);			\
	} while (0)

/* [sleep] */
void ib_register_event_handler(struct ib_event_handler *event_handler);
/* [sleep] Returns after any running call of the handler has finished. */
void ib_unregister_event_handler(struct ib_event_handler *event_handler);
/*
 * [any] For drivers: report a port or device event.  ib_core updates its
 * cache and calls the registered handlers later, from process context.
 * QP, CQ and SRQ events go to the object's own handler instead, which the
 * driver calls directly (never from a verb's call chain).
 */
void ib_dispatch_event(const struct ib_event *event);

/* ---------------------------------------------------------------------- */
/* Verbs objects */

typedef void (*ib_comp_handler)(struct ib_cq *cq, void *cq_context);

/*
 * Access rights of an MR (and of a QP's remote access).  Bits 20-29 are
 * optional: a device that does not know one ignores it.  Our kernel MRs
 * take the first four only (ib_core refuses the others with -EINVAL).
 */
enum ib_access_flags {
	IB_ACCESS_LOCAL_WRITE = BIT(0),
	IB_ACCESS_REMOTE_WRITE = BIT(1),
	IB_ACCESS_REMOTE_READ = BIT(2),
	IB_ACCESS_REMOTE_ATOMIC = BIT(3),
	IB_ACCESS_MW_BIND = BIT(4),
	IB_ZERO_BASED = BIT(5),
	IB_ACCESS_ON_DEMAND = BIT(6),
	IB_ACCESS_HUGETLB = BIT(7),
	IB_ACCESS_RELAXED_ORDERING = BIT(20),
	IB_ACCESS_OPTIONAL = GENMASK(29, 20),
	IB_ACCESS_SUPPORTED = GENMASK(7, 0) | IB_ACCESS_OPTIONAL,
};

/* ib_alloc_pd()'s flags */
enum ib_pd_flags {
	/*
	 * Also make pd->unsafe_global_rkey: an rkey through which any peer
	 * that learns it can read and write all of this host's memory.  For
	 * trusted fabrics only; every such allocation is logged.
	 */
	IB_PD_UNSAFE_GLOBAL_RKEY = 0x01,
};

/* Fields of every object: ib_core fills them, drivers only read them. */
struct ib_pd {
	u32			local_dma_lkey;	/* lkey for all kernel memory */
	u32			flags;		/* enum ib_pd_flags */
	struct ib_device	*device;
	struct ib_uobject	*uobject;
	atomic_t		usecnt;		/* QPs, SRQs, MRs, AHs using it */
	u32			unsafe_global_rkey; /* with IB_PD_UNSAFE_GLOBAL_RKEY */
	/* ib_core's DMA MR behind the two keys above; NULL if none */
	struct ib_mr		*__internal_mr;
	struct rdma_restrack_entry res;	/* <rdma/restrack.h> */
};

enum ib_mr_type {
	IB_MR_TYPE_MEM_REG,
	IB_MR_TYPE_SG_GAPS,
	IB_MR_TYPE_DM,
	IB_MR_TYPE_USER,
	IB_MR_TYPE_DMA,
	IB_MR_TYPE_INTEGRITY,
};

struct ib_dm;
struct ib_sig_attrs;

struct ib_mr {
	struct ib_device	*device;
	struct ib_pd		*pd;
	u32			lkey;
	u32			rkey;
	u64			iova;
	u64			length;
	unsigned int		page_size;
	enum ib_mr_type		type;
	bool			need_inval;	/* fast registration (S3B) */
	union {
		struct ib_uobject	*uobject;	/* user MRs */
		struct list_head	qp_entry;	/* a QP's MR pool */
	};
	struct ib_dm		*dm;		/* never: no device memory */
	struct ib_sig_attrs	*sig_attrs;	/* never: no integrity MRs */
	/* not for the PD's own DMA MR (__internal_mr), as 6.1 */
	struct rdma_restrack_entry res;
};

/* What REREG_MR changes (rereg_user_mr's flags) */
enum ib_mr_rereg_flags {
	IB_MR_REREG_TRANS	= 1,
	IB_MR_REREG_PD		= (1 << 1),
	IB_MR_REREG_ACCESS	= (1 << 2),
	IB_MR_REREG_SUPPORTED	= ((IB_MR_REREG_ACCESS << 1) - 1)
};

enum ib_mw_type {
	IB_MW_TYPE_1 = 1,
	IB_MW_TYPE_2 = 2
};

/*
 * A memory window: an rkey for a range of an MR (with MW_BIND rights),
 * given by a bind work request.  No kernel verb of 6.1 reaches one
 * (uverbs does); ours has test-only calls in <ibstack/ext.h>.
 */
struct ib_mw {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_uobject	*uobject;
	u32			rkey;
	enum ib_mw_type		type;
};

/* [any] whether an MR with these rights can have its memory written */
static inline bool ib_access_writable(int access_flags)
{
	return access_flags & (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			       IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_MW_BIND);
}

struct ib_cq_init_attr {
	unsigned int	cqe;
	u32		comp_vector;
	u32		flags;
};

/*
 * How ib_core polls a CQ of its CQ API (ib_alloc_cq()): from softirq
 * (irq_poll), from one of its two workqueues (bound, or unbound), or only
 * when the consumer calls ib_process_cq_direct().  The first three are
 * also the contexts of the CQ pool.
 */
enum ib_poll_context {
	IB_POLL_SOFTIRQ,
	IB_POLL_WORKQUEUE,
	IB_POLL_UNBOUND_WORKQUEUE,
	IB_POLL_LAST_POOL_TYPE = IB_POLL_UNBOUND_WORKQUEUE,
	IB_POLL_DIRECT,
};

struct dim;

struct ib_cq {
	struct ib_device	*device;
	struct ib_uobject	*uobject;
	ib_comp_handler		comp_handler;
	void			(*event_handler)(struct ib_event *event, void *ctx);
	void			*cq_context;
	int			cqe;		/* usable entries */
	/* CQ pool: entries taken by ib_cq_pool_get(), under cq_pools_lock */
	unsigned int		cqe_used;
	atomic_t		usecnt;		/* QPs and SRQs using it */
	/* the rest is ib_core's CQ API (ib_alloc_cq()); drivers leave it alone */
	enum ib_poll_context	poll_ctx;
	struct ib_wc		*wc;		/* the poller's batch */
	struct list_head	pool_entry;	/* in the device's cq_pools[poll_ctx] */
	union {
		struct irq_poll		iop;	/* IB_POLL_SOFTIRQ */
		struct work_struct	work;	/* IB_POLL_*WORKQUEUE */
	};
	struct workqueue_struct	*comp_wq;
	struct dim		*dim;		/* no adaptive moderation: NULL */
	ktime_t			timestamp;	/* unused */
	u8			interrupt:1;	/* unused */
	u8			shared:1;	/* a CQ of the pool */
	unsigned int		comp_vector;
	struct rdma_restrack_entry res;
};

enum ib_cq_notify_flags {
	IB_CQ_SOLICITED = BIT(0),
	IB_CQ_NEXT_COMP = BIT(1),
	IB_CQ_SOLICITED_MASK = IB_CQ_SOLICITED | IB_CQ_NEXT_COMP,
	IB_CQ_REPORT_MISSED_EVENTS = BIT(2),
};

/* SRQ types; we implement BASIC and XRC */
enum ib_srq_type {
	IB_SRQT_BASIC = 0,
	IB_SRQT_XRC = 1,
	IB_SRQT_TM = 2,
};

/* [any] whether SRQs of this type name a CQ of their own (ext.cq) */
static inline bool ib_srq_has_cq(enum ib_srq_type srq_type)
{
	return srq_type == IB_SRQT_XRC || srq_type == IB_SRQT_TM;
}

/*
 * An XRC domain: XRC SRQs and XRC target QPs belong to one.  usecnt counts
 * them (ib_dealloc_xrcd_user() refuses while > 0); tgt_qps maps the numbers
 * of the domain's target QPs to the QPs, for ib_open_qp(), under
 * tgt_qps_rwsem.  Kernel callers have no inode.
 */
struct ib_xrcd {
	struct ib_device	*device;
	atomic_t		usecnt;
	struct inode		*inode;
	struct rw_semaphore	tgt_qps_rwsem;
	struct xarray		tgt_qps;
};

enum ib_srq_attr_mask {
	IB_SRQ_MAX_WR = BIT(0),
	IB_SRQ_LIMIT = BIT(1),
};

struct ib_srq_attr {
	u32	max_wr;
	u32	max_sge;
	u32	srq_limit;
};

struct ib_srq_init_attr {
	void			(*event_handler)(struct ib_event *event, void *ctx);
	void			*srq_context;
	struct ib_srq_attr	attr;
	enum ib_srq_type	srq_type;
	struct {
		struct ib_cq	*cq;		/* ib_srq_has_cq() types */
		union {
			struct {
				struct ib_xrcd	*xrcd;
			} xrc;
			struct {
				u32	max_num_tags;
			} tag_matching;
		};
	} ext;
};

struct ib_srq {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_uobject	*uobject;
	void			(*event_handler)(struct ib_event *event, void *ctx);
	void			*srq_context;
	enum ib_srq_type	srq_type;
	atomic_t		usecnt;		/* QPs using it */
	struct {
		struct ib_cq	*cq;
		union {
			struct {
				struct ib_xrcd	*xrcd;
				u32		srq_num;
			} xrc;
		};
	} ext;
	struct rdma_restrack_entry res;
};

/* ---------------------------------------------------------------------- */
/* Address vectors and address handles */

/* Static rate codes (IBA 9.11.1; PathRecord:Rate, the AH's static_rate) */
enum ib_rate {
	IB_RATE_PORT_CURRENT = 0,
	IB_RATE_2_5_GBPS = 2,
	IB_RATE_5_GBPS = 5,
	IB_RATE_10_GBPS = 3,
	IB_RATE_20_GBPS = 6,
	IB_RATE_30_GBPS = 4,
	IB_RATE_40_GBPS = 7,
	IB_RATE_60_GBPS = 8,
	IB_RATE_80_GBPS = 9,
	IB_RATE_120_GBPS = 10,
	IB_RATE_14_GBPS = 11,
	IB_RATE_56_GBPS = 12,
	IB_RATE_112_GBPS = 13,
	IB_RATE_168_GBPS = 14,
	IB_RATE_25_GBPS = 15,
	IB_RATE_100_GBPS = 16,
	IB_RATE_200_GBPS = 17,
	IB_RATE_300_GBPS = 18,
	IB_RATE_28_GBPS = 19,
	IB_RATE_50_GBPS = 20,
	IB_RATE_400_GBPS = 21,
	IB_RATE_600_GBPS = 22,
};

/*
 * [any] (core/rate.c) A rate as a multiple of 2.5 Gb/s (IB_RATE_10_GBPS:
 * 4), -1 for an unknown one; the multiple's rate, IB_RATE_PORT_CURRENT
 * for none; the data rate in Mb/s (64b/66b lanes: IB_RATE_25_GBPS is
 * 25781), -1 for an unknown rate.
 */
__attribute_const__ int ib_rate_to_mult(enum ib_rate rate);
__attribute_const__ enum ib_rate mult_to_ib_rate(int mult);
__attribute_const__ int ib_rate_to_mbps(enum ib_rate rate);

enum ib_ah_flags {
	IB_AH_GRH = BIT(0),
};

/* A GID's type (the values of uverbs' IB_UVERBS_GID_TYPE_*) */
enum ib_gid_type {
	IB_GID_TYPE_IB = 0,
	IB_GID_TYPE_ROCE = 1,
	IB_GID_TYPE_ROCE_UDP_ENCAP = 2,
	IB_GID_TYPE_SIZE
};

/* the all-zero GID (an empty GID table entry) */
extern union ib_gid zgid;

/*
 * The attributes of a GID table entry, refcounted by ib_core
 * (rdma_get_gid_attr() and friends in <rdma/ib_cache.h>): read-only for
 * whoever holds one.  ndev is NULL on an InfiniBand port.
 */
struct ib_gid_attr {
	struct net_device __rcu	*ndev;
	struct ib_device	*device;
	union ib_gid		gid;
	enum ib_gid_type	gid_type;
	u16			index;
	u32			port_num;
};

struct ib_global_route {
	const struct ib_gid_attr *sgid_attr;	/* NULL: taken from sgid_index */
	union ib_gid	dgid;
	u32		flow_label;
	u8		sgid_index;
	u8		hop_limit;
	u8		traffic_class;
};

/* Which member of rdma_ah_attr's union is valid: the port's link layer */
enum rdma_ah_attr_type {
	RDMA_AH_ATTR_TYPE_UNDEFINED,
	RDMA_AH_ATTR_TYPE_IB,
	RDMA_AH_ATTR_TYPE_ROCE,
	RDMA_AH_ATTR_TYPE_OPA,
};

/* The InfiniBand part of an address vector (upstream's name, reused) */
struct ib_ah_attr {
	u16	dlid;
	u8	src_path_bits;
};

struct roce_ah_attr {
	u8	dmac[ETH_ALEN];
};

struct opa_ah_attr {
	u32	dlid;
	u8	src_path_bits;
	bool	make_grd;
};

/*
 * An address vector.  Fill it through the rdma_ah_set_*() accessors after
 * setting type (rdma_ah_find_type()); grh is valid with IB_AH_GRH in
 * ah_flags.  Our ports are InfiniBand: only RDMA_AH_ATTR_TYPE_IB is
 * accepted.
 */
struct rdma_ah_attr {
	struct ib_global_route	grh;
	u8			sl;
	u8			static_rate;	/* enum ib_rate, 0 = port rate */
	u32			port_num;
	u8			ah_flags;	/* enum ib_ah_flags */
	enum rdma_ah_attr_type	type;
	union {
		struct ib_ah_attr	ib;
		struct roce_ah_attr	roce;
		struct opa_ah_attr	opa;
	};
};

struct ib_ah {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_uobject	*uobject;
	const struct ib_gid_attr *sgid_attr;	/* held while the AH exists */
	enum rdma_ah_attr_type	type;
};

/* QP types; mlx4_ib creates SMI, GSI, RC, UC and UD QPs */
enum ib_qp_type {
	IB_QPT_SMI = 0,
	IB_QPT_GSI = 1,
	IB_QPT_RC = 2,
	IB_QPT_UC = 3,
	IB_QPT_UD = 4,
	IB_QPT_RAW_IPV6 = 5,
	IB_QPT_RAW_ETHERTYPE = 6,
	IB_QPT_RAW_PACKET = 8,
	IB_QPT_XRC_INI = 9,
	IB_QPT_XRC_TGT = 10,
	IB_QPT_MAX,
	IB_QPT_DRIVER = 0xff,
	/* for drivers' own use */
	IB_QPT_RESERVED1 = 0x1000,
	IB_QPT_RESERVED2,
	IB_QPT_RESERVED3,
	IB_QPT_RESERVED4,
	IB_QPT_RESERVED5,
	IB_QPT_RESERVED6,
	IB_QPT_RESERVED7,
	IB_QPT_RESERVED8,
	IB_QPT_RESERVED9,
	IB_QPT_RESERVED10,
};

enum ib_sig_type {
	IB_SIGNAL_ALL_WR,
	IB_SIGNAL_REQ_WR,
};

struct ib_qp_cap {
	u32	max_send_wr;
	u32	max_recv_wr;
	u32	max_send_sge;
	u32	max_recv_sge;
	u32	max_inline_data;
	u32	max_rdma_ctxs;	/* rdma/rw.h's contexts: none here (0) */
};

/*
 * ib_qp_init_attr.create_flags.  mlx4_ib implements
 * BLOCK_MULTICAST_LOOPBACK and refuses the others with -EOPNOTSUPP.
 */
enum ib_qp_create_flags {
	IB_QP_CREATE_IPOIB_UD_LSO = BIT(0),
	IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK = BIT(1),
	IB_QP_CREATE_CROSS_CHANNEL = BIT(2),
	IB_QP_CREATE_MANAGED_SEND = BIT(3),
	IB_QP_CREATE_MANAGED_RECV = BIT(4),
	IB_QP_CREATE_NETIF_QP = BIT(5),
	IB_QP_CREATE_INTEGRITY_EN = BIT(6),
	IB_QP_CREATE_NETDEV_USE = BIT(7),
	IB_QP_CREATE_SCATTER_FCS = BIT(8),
	IB_QP_CREATE_CVLAN_STRIPPING = BIT(9),
	IB_QP_CREATE_SOURCE_QPN = BIT(10),
	IB_QP_CREATE_PCI_WRITE_END_PADDING = BIT(11),
	/* bits 26-31 are for drivers' own use */
	IB_QP_CREATE_RESERVED_START = BIT(26),
	IB_QP_CREATE_RESERVED_END = BIT(31),
};

struct ib_rwq_ind_table;

struct ib_qp_init_attr {
	void			(*event_handler)(struct ib_event *event, void *ctx);
	void			*qp_context;
	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	struct ib_srq		*srq;
	struct ib_xrcd		*xrcd;		/* XRC_TGT QPs only */
	struct ib_qp_cap	cap;		/* in: wanted; out: granted */
	enum ib_sig_type	sq_sig_type;
	enum ib_qp_type		qp_type;
	u32			create_flags;	/* enum ib_qp_create_flags */
	u32			port_num;	/* special QPs only */
	struct ib_rwq_ind_table	*rwq_ind_tbl;	/* RSS only: NULL */
	u32			source_qpn;	/* IB_QP_CREATE_SOURCE_QPN only */
};

/* ib_open_qp(): another handle on an XRC target QP of a domain */
struct ib_qp_open_attr {
	void			(*event_handler)(struct ib_event *event, void *ctx);
	void			*qp_context;
	u32			qp_num;
	enum ib_qp_type		qp_type;	/* IB_QPT_XRC_TGT */
};

enum ib_qp_state {
	IB_QPS_RESET,
	IB_QPS_INIT,
	IB_QPS_RTR,
	IB_QPS_RTS,
	IB_QPS_SQD,
	IB_QPS_SQE,
	IB_QPS_ERR,
};

enum ib_mig_state {
	IB_MIG_MIGRATED,
	IB_MIG_REARM,
	IB_MIG_ARMED,
};

enum ib_qp_attr_mask {
	IB_QP_STATE = BIT(0),
	IB_QP_CUR_STATE = BIT(1),
	IB_QP_EN_SQD_ASYNC_NOTIFY = BIT(2),
	IB_QP_ACCESS_FLAGS = BIT(3),
	IB_QP_PKEY_INDEX = BIT(4),
	IB_QP_PORT = BIT(5),
	IB_QP_QKEY = BIT(6),
	IB_QP_AV = BIT(7),
	IB_QP_PATH_MTU = BIT(8),
	IB_QP_TIMEOUT = BIT(9),
	IB_QP_RETRY_CNT = BIT(10),
	IB_QP_RNR_RETRY = BIT(11),
	IB_QP_RQ_PSN = BIT(12),
	IB_QP_MAX_QP_RD_ATOMIC = BIT(13),
	IB_QP_ALT_PATH = BIT(14),
	IB_QP_MIN_RNR_TIMER = BIT(15),
	IB_QP_SQ_PSN = BIT(16),
	IB_QP_MAX_DEST_RD_ATOMIC = BIT(17),
	IB_QP_PATH_MIG_STATE = BIT(18),
	IB_QP_CAP = BIT(19),
	IB_QP_DEST_QPN = BIT(20),
	IB_QP_RESERVED1 = BIT(21),
	IB_QP_RESERVED2 = BIT(22),
	IB_QP_RESERVED3 = BIT(23),
	IB_QP_RESERVED4 = BIT(24),
	IB_QP_RATE_LIMIT = BIT(25),		/* raw packet QPs only */
	IB_QP_ATTR_STANDARD_BITS = GENMASK(20, 0),
};

/* ib_qp_attr.min_rnr_timer: the RNR NAK timer's codes (IBA table 45), in ms */
enum ib_rnr_timeout {
	IB_RNR_TIMER_655_36 = 0,
	IB_RNR_TIMER_000_01 = 1,
	IB_RNR_TIMER_000_02 = 2,
	IB_RNR_TIMER_000_03 = 3,
	IB_RNR_TIMER_000_04 = 4,
	IB_RNR_TIMER_000_06 = 5,
	IB_RNR_TIMER_000_08 = 6,
	IB_RNR_TIMER_000_12 = 7,
	IB_RNR_TIMER_000_16 = 8,
	IB_RNR_TIMER_000_24 = 9,
	IB_RNR_TIMER_000_32 = 10,
	IB_RNR_TIMER_000_48 = 11,
	IB_RNR_TIMER_000_64 = 12,
	IB_RNR_TIMER_000_96 = 13,
	IB_RNR_TIMER_001_28 = 14,
	IB_RNR_TIMER_001_92 = 15,
	IB_RNR_TIMER_002_56 = 16,
	IB_RNR_TIMER_003_84 = 17,
	IB_RNR_TIMER_005_12 = 18,
	IB_RNR_TIMER_007_68 = 19,
	IB_RNR_TIMER_010_24 = 20,
	IB_RNR_TIMER_015_36 = 21,
	IB_RNR_TIMER_020_48 = 22,
	IB_RNR_TIMER_030_72 = 23,
	IB_RNR_TIMER_040_96 = 24,
	IB_RNR_TIMER_061_44 = 25,
	IB_RNR_TIMER_081_92 = 26,
	IB_RNR_TIMER_122_88 = 27,
	IB_RNR_TIMER_163_84 = 28,
	IB_RNR_TIMER_245_76 = 29,
	IB_RNR_TIMER_327_68 = 30,
	IB_RNR_TIMER_491_52 = 31,
};

struct ib_qp_attr {
	enum ib_qp_state	qp_state;
	enum ib_qp_state	cur_qp_state;
	enum ib_mtu		path_mtu;
	enum ib_mig_state	path_mig_state;
	u32			qkey;
	u32			rq_psn;
	u32			sq_psn;
	u32			dest_qp_num;
	int			qp_access_flags;
	struct ib_qp_cap	cap;
	struct rdma_ah_attr	ah_attr;
	struct rdma_ah_attr	alt_ah_attr;
	u16			pkey_index;
	u16			alt_pkey_index;
	u8			en_sqd_async_notify;
	u8			sq_draining;
	u8			max_rd_atomic;
	u8			max_dest_rd_atomic;
	u8			min_rnr_timer;
	u32			port_num;
	u8			timeout;
	u8			retry_cnt;
	u8			rnr_retry;
	u32			alt_port_num;
	u8			alt_timeout;
	u32			rate_limit;	/* not supported: 0 */
	struct net_device	*xmit_slave;	/* LAG only: NULL */
};

struct ib_qp {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	struct ib_srq		*srq;
	struct ib_xrcd		*xrcd;		/* XRC_TGT QPs only (S3D) */
	/*
	 * ib_core: multicast attachments (ib_destroy_qp() refuses while
	 * > 0) and, with XRC (S3D), the handles opened on a TGT QP
	 */
	atomic_t		usecnt;
	struct list_head	open_list;	/* XRC: handles opened (S3D) */
	struct ib_qp		*real_qp;	/* itself, or the opened TGT QP */
	struct ib_uobject	*uobject;
	void			(*event_handler)(struct ib_event *event, void *ctx);
	void			*qp_context;
	u32			qp_num;
	enum ib_qp_type		qp_type;
	/*
	 * special QPs: their port; others: 0 until an ib_modify_qp() with
	 * IB_QP_PORT sets it (as 6.1's; netlink reports it)
	 */
	u32			port;
	/*
	 * ib_core: the state the last successful ib_modify_qp() set (the
	 * cur_state it hands the driver), and the mutex that serialises
	 * ib_modify_qp() calls on this QP.
	 */
	enum ib_qp_state	state;
	struct mutex		state_mutex;	/* serialises ib_modify_qp() */
	/* the real QP's; an XRC target's handles (ib_open_qp()) are not tracked */
	struct rdma_restrack_entry res;
};

/* ---------------------------------------------------------------------- */
/* Work requests and completions */

struct ib_sge {
	u64	addr;
	u32	length;
	u32	lkey;
};

/* Send opcodes; 0-13 are the uverbs ABI's values */
enum ib_wr_opcode {
	IB_WR_RDMA_WRITE = 0,
	IB_WR_RDMA_WRITE_WITH_IMM = 1,
	IB_WR_SEND = 2,
	IB_WR_SEND_WITH_IMM = 3,
	IB_WR_RDMA_READ = 4,
	IB_WR_ATOMIC_CMP_AND_SWP = 5,
	IB_WR_ATOMIC_FETCH_AND_ADD = 6,
	IB_WR_BIND_MW = 8,
	IB_WR_LSO = 10,
	IB_WR_SEND_WITH_INV = 9,
	IB_WR_RDMA_READ_WITH_INV = 11,
	IB_WR_LOCAL_INV = 7,
	IB_WR_MASKED_ATOMIC_CMP_AND_SWP = 12,
	IB_WR_MASKED_ATOMIC_FETCH_AND_ADD = 13,
	/* kernel consumers only */
	IB_WR_REG_MR = 0x20,
	IB_WR_REG_MR_INTEGRITY = 0x21,
	/* for drivers' own use; ib_core never uses them */
	IB_WR_RESERVED1 = 0xf0,
	IB_WR_RESERVED2,
	IB_WR_RESERVED3,
	IB_WR_RESERVED4,
	IB_WR_RESERVED5,
	IB_WR_RESERVED6,
	IB_WR_RESERVED7,
	IB_WR_RESERVED8,
	IB_WR_RESERVED9,
	IB_WR_RESERVED10,
};

enum ib_send_flags {
	IB_SEND_FENCE = BIT(0),
	IB_SEND_SIGNALED = BIT(1),
	IB_SEND_SOLICITED = BIT(2),
	IB_SEND_INLINE = BIT(3),
	IB_SEND_IP_CSUM = BIT(4),
	/* bits 26-31 are for drivers' own use */
	IB_SEND_RESERVED_START = BIT(26),
	IB_SEND_RESERVED_END = BIT(31),
};

struct ib_cq;
struct ib_wc;

/*
 * A completion entry of a consumer of ib_core's CQ API (ib_alloc_cq()):
 * the work request carries a pointer to it (wr_cqe) instead of a wr_id,
 * and ib_core's poller calls done() with each completion.  A consumer
 * polling a CQ of ib_create_cq() itself reads the same pointer back from
 * wc->wr_cqe.
 */
struct ib_cqe {
	void (*done)(struct ib_cq *cq, struct ib_wc *wc);
};

/*
 * A send work request.  RDMA, atomic, UD and registration requests are the
 * containers below, which embed it as their first member `wr`; the driver
 * reaches them through rdma_wr(), atomic_wr(), ud_wr() and reg_wr().
 */
struct ib_send_wr {
	struct ib_send_wr	*next;
	union {
		u64		wr_id;
		struct ib_cqe	*wr_cqe;
	};
	struct ib_sge		*sg_list;
	int			num_sge;
	enum ib_wr_opcode	opcode;
	int			send_flags;	/* enum ib_send_flags */
	union {
		__be32		imm_data;	/* the *_WITH_IMM opcodes */
		u32		invalidate_rkey; /* SEND_WITH_INV */
	} ex;
};

/* RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ */
struct ib_rdma_wr {
	struct ib_send_wr	wr;
	u64			remote_addr;
	u32			rkey;
};

static inline const struct ib_rdma_wr *rdma_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_rdma_wr, wr);
}

/* ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD and their masked forms */
struct ib_atomic_wr {
	struct ib_send_wr	wr;
	u64			remote_addr;
	u64			compare_add;
	u64			swap;
	u64			compare_add_mask;
	u64			swap_mask;
	u32			rkey;
};

static inline const struct ib_atomic_wr *atomic_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_atomic_wr, wr);
}

/* Every send on a UD, GSI or SMI QP */
struct ib_ud_wr {
	struct ib_send_wr	wr;
	struct ib_ah		*ah;
	void			*header;	/* LSO only */
	int			hlen;		/* LSO only */
	int			mss;		/* LSO only */
	u32			remote_qpn;
	u32			remote_qkey;
	u16			pkey_index;	/* GSI only */
	u32			port_num;	/* DR SMPs on switches only */
};

static inline const struct ib_ud_wr *ud_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_ud_wr, wr);
}

/* REG_MR */
struct ib_reg_wr {
	struct ib_send_wr	wr;
	struct ib_mr		*mr;
	u32			key;
	int			access;		/* enum ib_access_flags */
};

static inline const struct ib_reg_wr *reg_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_reg_wr, wr);
}

struct ib_recv_wr {
	struct ib_recv_wr	*next;
	union {
		u64		wr_id;
		struct ib_cqe	*wr_cqe;
	};
	struct ib_sge		*sg_list;
	int			num_sge;
};

enum ib_wc_status {
	IB_WC_SUCCESS,
	IB_WC_LOC_LEN_ERR,
	IB_WC_LOC_QP_OP_ERR,
	IB_WC_LOC_EEC_OP_ERR,
	IB_WC_LOC_PROT_ERR,
	IB_WC_WR_FLUSH_ERR,
	IB_WC_MW_BIND_ERR,
	IB_WC_BAD_RESP_ERR,
	IB_WC_LOC_ACCESS_ERR,
	IB_WC_REM_INV_REQ_ERR,
	IB_WC_REM_ACCESS_ERR,
	IB_WC_REM_OP_ERR,
	IB_WC_RETRY_EXC_ERR,
	IB_WC_RNR_RETRY_EXC_ERR,
	IB_WC_LOC_RDD_VIOL_ERR,
	IB_WC_REM_INV_RD_REQ_ERR,
	IB_WC_REM_ABORT_ERR,
	IB_WC_INV_EECN_ERR,
	IB_WC_INV_EEC_STATE_ERR,
	IB_WC_FATAL_ERR,
	IB_WC_RESP_TIMEOUT_ERR,
	IB_WC_GENERAL_ERR,
};

const char *ib_wc_status_msg(enum ib_wc_status status);

/* Completion opcodes; RECV is a bit, so (opcode & IB_WC_RECV) tells receives */
enum ib_wc_opcode {
	IB_WC_SEND = 0,
	IB_WC_RDMA_WRITE = 1,
	IB_WC_RDMA_READ = 2,
	IB_WC_COMP_SWAP = 3,
	IB_WC_FETCH_ADD = 4,
	IB_WC_BIND_MW = 5,
	IB_WC_LOCAL_INV = 6,
	IB_WC_LSO = 7,
	IB_WC_REG_MR = 8,
	IB_WC_MASKED_COMP_SWAP = 9,
	IB_WC_MASKED_FETCH_ADD = 10,
	IB_WC_RECV = BIT(7),
	IB_WC_RECV_RDMA_WITH_IMM = BIT(7) + 1,
};

enum ib_wc_flags {
	IB_WC_GRH = BIT(0),
	IB_WC_WITH_IMM = BIT(1),
	IB_WC_WITH_INVALIDATE = BIT(2),
	IB_WC_IP_CSUM_OK = BIT(3),
	IB_WC_WITH_SMAC = BIT(4),
	IB_WC_WITH_VLAN = BIT(5),
	IB_WC_WITH_NETWORK_HDR_TYPE = BIT(6),
};

/*
 * A work completion.  wr_id (or wr_cqe: the same 64 bits) is the work
 * request's; the rest is valid for receives, and status for all.
 */
struct ib_wc {
	union {
		u64		wr_id;
		struct ib_cqe	*wr_cqe;
	};
	enum ib_wc_status	status;
	enum ib_wc_opcode	opcode;
	u32			vendor_err;
	u32			byte_len;
	struct ib_qp		*qp;
	union {
		__be32		imm_data;	/* with IB_WC_WITH_IMM */
		u32		invalidate_rkey; /* with IB_WC_WITH_INVALIDATE */
	} ex;
	u32			src_qp;
	u32			slid;
	int			wc_flags;	/* enum ib_wc_flags */
	u16			pkey_index;
	u8			sl;
	u8			dlid_path_bits;
	u32			port_num;	/* DR SMPs on switches only */
	u8			smac[ETH_ALEN];	/* RoCE only */
	u16			vlan_id;	/* RoCE only */
	u8			network_hdr_type; /* RoCE only */
};

/* ---------------------------------------------------------------------- */
/* RDMA netdevs: a netdev a driver implements for a ULP (IPoIB, OPA VNIC) */

struct net_device;
struct sk_buff;
struct ifla_vf_info;
struct ifla_vf_stats;
struct ifla_vf_guid;

enum rdma_netdev_t {
	RDMA_NETDEV_OPA_VNIC,
	RDMA_NETDEV_IPOIB,
};

/*
 * The start of such a netdev's private area: the ULP fills the first
 * four members, the driver the callbacks.
 */
struct rdma_netdev {
	void			*clnt_priv;
	struct ib_device	*hca;
	u32			port_num;
	int			mtu;
	/* frees the netdev (OPA VNIC's use) */
	void			(*free_rdma_netdev)(struct net_device *netdev);
	void			(*set_id)(struct net_device *netdev, int id);
	int			(*send)(struct net_device *dev, struct sk_buff *skb,
					struct ib_ah *address, u32 dqpn);
	int			(*attach_mcast)(struct net_device *dev,
						struct ib_device *hca,
						union ib_gid *gid, u16 mlid,
						int set_qkey, u32 qkey);
	int			(*detach_mcast)(struct net_device *dev,
						struct ib_device *hca,
						union ib_gid *gid, u16 mlid);
	void			(*tx_timeout)(struct net_device *dev,
					      unsigned int txqueue);
};

/* What a driver's rdma_netdev_get_params() answers. */
struct rdma_netdev_alloc_params {
	size_t		sizeof_priv;
	unsigned int	txqs;
	unsigned int	rxqs;
	void		*param;
	int		(*initialize_rdma_netdev)(struct ib_device *device,
						  u32 port_num,
						  struct net_device *netdev,
						  void *param);
};

/* ---------------------------------------------------------------------- */
/* The driver's operations */

/* Opaque to kernel consumers; uverbs fills it from the command buffer. */
struct ib_udata {
	const void __user	*inbuf;
	void __user		*outbuf;
	size_t			inlen;
	size_t			outlen;
};

struct ib_uverbs_file;
struct ib_umap_set;

/*
 * A user context: one per open /dev/infiniband/uverbsN that sent
 * GET_CONTEXT.  The driver allocates its own structure around it
 * (alloc_ucontext); ib_core sets the members below before any other op
 * sees it (ibstack_alloc_ucontext(), <ibstack/ext.h>).
 */
struct ib_ucontext {
	struct ib_device	*device;
	struct ib_uverbs_file	*ufile;		/* ib_uverbs' file; opaque elsewhere */
	/*
	 * ib_core's record of the mappings rdma_user_mmap_io() made, owned by
	 * the file (it outlives the context: a mapping may outlive both)
	 */
	struct ib_umap_set	*umaps;
	struct rdma_restrack_entry res;
};

/*
 * What ib_uverbs keeps of each object a user created (the object's
 * uobject member points here): the members up to rcu as in 6.1, the
 * rest ib_uverbs' own.  Drivers and ULPs only test a pointer to it for
 * NULL ("is this a user object").
 */
struct ib_uobject {
	u64			user_handle;	/* user space's cookie for events */
	struct ib_uverbs_file	*ufile;		/* the owning file */
	struct ib_ucontext	*context;
	void			*object;	/* the ib_pd, ib_cq, ... */
	struct list_head	list;		/* in the file's object list */
	int			id;		/* the handle user space names it by */
	struct kref		ref;
	atomic_t		usecnt;		/* > 0: shared users; -1: exclusive */
	struct rcu_head		rcu;
	const void		*uverbs_type;	/* ib_uverbs' type of the object */
};

/* [sleep] copy from the driver's part of a command; -EFAULT */
static inline int ib_copy_from_udata(void *dest, struct ib_udata *udata, size_t len)
{
	return copy_from_user(dest, udata->inbuf, len) ? -EFAULT : 0;
}

/* [sleep] copy to the driver's part of a response; -EFAULT */
static inline int ib_copy_to_udata(struct ib_udata *udata, void *src, size_t len)
{
	return copy_to_user(udata->outbuf, src, len) ? -EFAULT : 0;
}

/* [sleep] whether len bytes of user memory at p are all zero (false on a fault) */
static inline bool ib_is_buffer_cleared(const void __user *p, size_t len)
{
	bool cleared;
	u8 *buf;

	if (len > USHRT_MAX)
		return false;
	buf = memdup_user(p, len);
	if (IS_ERR(buf))
		return false;
	cleared = !memchr_inv(buf, 0, len);
	kfree(buf);
	return cleared;
}

/* [sleep] whether the driver input from offset on, len bytes, is all zero */
static inline bool ib_is_udata_cleared(struct ib_udata *udata, size_t offset, size_t len)
{
	return ib_is_buffer_cleared(udata->inbuf + offset, len);
}

/* What never changes about a port (ib_device.port_data[port].immutable) */
struct ib_port_immutable {
	int	pkey_tbl_len;
	int	gid_tbl_len;
	u32	core_cap_flags;		/* RDMA_CORE_PORT_* */
	u32	max_mad_size;		/* bytes */
};

struct cpumask;

/*
 * Objects ib_core allocates for the driver: the driver's structure embeds
 * the ib_ one as its first member, and its ops say how big it is.
 */
#define DECLARE_RDMA_OBJ_SIZE(ib_struct) size_t size_##ib_struct

/*
 * The driver's operations, copied into ib_device.ops by ib_set_device_ops().
 * Members a driver leaves NULL are optional unless ib_register_device()
 * says otherwise.  The members a consumer may test (rdma_netdev_get_params,
 * get_vector_affinity, drain_sq, ...) have upstream's names and arguments.
 */
struct ib_device_ops {
	struct module *owner;
	enum rdma_driver_id driver_id;
	/* the driver's udata ABI for ib_uverbs (uverbsN/abi_version) */
	unsigned int uverbs_abi_ver;

	/* [sleep] queries and management */
	int (*query_device)(struct ib_device *dev, struct ib_device_attr *attr);
	int (*query_port)(struct ib_device *dev, u32 port, struct ib_port_attr *attr);
	/* [sleep] at registration: the port's fixed capabilities */
	int (*get_port_immutable)(struct ib_device *device, u32 port_num,
				  struct ib_port_immutable *immutable);
	int (*query_gid)(struct ib_device *dev, u32 port, int index, union ib_gid *gid);
	int (*query_pkey)(struct ib_device *dev, u32 port, u16 index, u16 *pkey);
	int (*modify_device)(struct ib_device *dev, int mask,
			     struct ib_device_modify *modify);
	int (*modify_port)(struct ib_device *dev, u32 port, int mask,
			   struct ib_port_modify *modify);
	/* [any] */
	enum rdma_link_layer (*get_link_layer)(struct ib_device *dev, u32 port);
	void (*get_dev_fw_str)(struct ib_device *dev, char *buf, size_t len);
	/* [any] optional: the CPUs a completion vector's interrupt goes to */
	const struct cpumask *(*get_vector_affinity)(struct ib_device *ibdev,
						     int comp_vector);
	/*
	 * [sleep] Local MAD processing (SMA/PMA of the card).  in_wc and
	 * in_grh are NULL for MADs that did not come from the wire.
	 */
	int (*process_mad)(struct ib_device *dev, int mad_flags, u32 port,
			   const struct ib_wc *in_wc, const struct ib_grh *in_grh,
			   const struct ib_mad *in, struct ib_mad *out);

	/*
	 * [sleep] user contexts (ib_uverbs).  alloc_ucontext allocates the
	 * driver's context and writes its response to udata; mmap maps one of
	 * the context's pages with rdma_user_mmap_io(); disassociate_ucontext
	 * (optional) lets go of what the driver mapped itself, when the device
	 * goes away under open files (ib_core has revoked the mappings made
	 * with rdma_user_mmap_io() already).  query_device_user (optional)
	 * writes the driver's part of an extended QUERY_DEVICE response.
	 * The driver's udata ABI version (uverbsN/abi_version) is
	 * uverbs_abi_ver above.
	 */
	struct ib_ucontext *(*alloc_ucontext)(struct ib_device *dev, struct ib_udata *udata);
	void (*dealloc_ucontext)(struct ib_ucontext *ctx);
	int (*mmap)(struct ib_ucontext *ctx, struct vm_area_struct *vma);
	void (*disassociate_ucontext)(struct ib_ucontext *ctx);
	int (*query_device_user)(struct ib_device *dev, struct ib_udata *udata);

	/* [sleep] object creation and destruction */
	struct ib_pd *(*alloc_pd)(struct ib_device *dev, struct ib_udata *udata);
	int (*dealloc_pd)(struct ib_pd *pd);
	struct ib_mr *(*get_dma_mr)(struct ib_pd *pd, int access);
	/*
	 * A kernel MR over npages pages of (1 << page_shift) bytes each, whose
	 * bus addresses are in pages[], mapped at iova for length bytes.
	 */
	struct ib_mr *(*reg_kernel_mr)(struct ib_pd *pd, const u64 *pages, int npages,
				       int page_shift, u64 iova, u64 length, int access);
	int (*dereg_mr)(struct ib_mr *mr);
	/*
	 * optional (ib_uverbs): an MR over user memory [start, start + length)
	 * seen by the card at virt (the driver pins it with ib_umem_get()),
	 * and its re-registration in place: flags IB_MR_REREG_TRANS (the
	 * range), _PD (pd), _ACCESS (access), each only with its flag.
	 */
	struct ib_mr *(*reg_user_mr)(struct ib_pd *pd, u64 start, u64 length, u64 virt,
				     int access, struct ib_udata *udata);
	int (*rereg_user_mr)(struct ib_mr *mr, int flags, u64 start, u64 length, u64 virt,
			     int access, struct ib_pd *pd, struct ib_udata *udata);
	/* optional: fast registration (issue 13's S3B) */
	struct ib_mr *(*alloc_mr)(struct ib_pd *pd, enum ib_mr_type mr_type,
				  u32 max_num_sg);
	int (*map_mr_sg)(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
			 unsigned int *sg_offset);
	/*
	 * optional: memory windows and XRC domains (S3D).  ib_core allocates
	 * the window (size_ib_mw bytes, zeroed, device/pd/type set) before
	 * alloc_mw, which sets its rkey, and frees it after dealloc_mw.
	 */
	int (*alloc_mw)(struct ib_mw *mw, struct ib_udata *udata);
	int (*dealloc_mw)(struct ib_mw *mw);
	/* the driver allocates the domain; ib_core fills the members of ib_xrcd */
	struct ib_xrcd *(*alloc_xrcd)(struct ib_device *dev, struct ib_udata *udata);
	int (*dealloc_xrcd)(struct ib_xrcd *xrcd, struct ib_udata *udata);
	struct ib_cq *(*create_cq)(struct ib_device *dev, const struct ib_cq_init_attr *attr,
				   struct ib_udata *udata);
	int (*destroy_cq)(struct ib_cq *cq);
	int (*modify_cq)(struct ib_cq *cq, u16 cq_count, u16 cq_period);
	int (*resize_cq)(struct ib_cq *cq, int cqe, struct ib_udata *udata);
	struct ib_qp *(*create_qp)(struct ib_pd *pd, struct ib_qp_init_attr *attr,
				   struct ib_udata *udata);
	/* ib_core has checked the transition and the mask (ib_modify_qp_is_ok) */
	int (*modify_qp)(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
			 enum ib_qp_state cur_state, struct ib_udata *udata);
	int (*query_qp)(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
			struct ib_qp_init_attr *init_attr);
	int (*destroy_qp)(struct ib_qp *qp);
	struct ib_srq *(*create_srq)(struct ib_pd *pd, struct ib_srq_init_attr *attr,
				     struct ib_udata *udata);
	int (*modify_srq)(struct ib_srq *srq, struct ib_srq_attr *attr, int mask,
			  struct ib_udata *udata);
	int (*query_srq)(struct ib_srq *srq, struct ib_srq_attr *attr);
	int (*destroy_srq)(struct ib_srq *srq);
	int (*attach_mcast)(struct ib_qp *qp, const union ib_gid *gid, u16 lid);
	int (*detach_mcast)(struct ib_qp *qp, const union ib_gid *gid, u16 lid);

	/*
	 * Address handles: [any] without RDMA_CREATE_AH_SLEEPABLE /
	 * RDMA_DESTROY_AH_SLEEPABLE in flags, [sleep] with.  ib_core has
	 * checked the attributes (port, type, GRH) before create_ah.
	 */
	struct ib_ah *(*create_ah)(struct ib_pd *pd, const struct rdma_ah_attr *attr,
				   u32 flags, struct ib_udata *udata);
	int (*modify_ah)(struct ib_ah *ah, struct rdma_ah_attr *attr);
	int (*query_ah)(struct ib_ah *ah, struct rdma_ah_attr *attr);
	int (*destroy_ah)(struct ib_ah *ah, u32 flags);

	/* [any] the data path */
	int (*post_send)(struct ib_qp *qp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad_wr);
	int (*post_recv)(struct ib_qp *qp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr);
	int (*post_srq_recv)(struct ib_srq *srq, const struct ib_recv_wr *wr,
			     const struct ib_recv_wr **bad_wr);
	int (*poll_cq)(struct ib_cq *cq, int num_entries, struct ib_wc *wc);
	int (*req_notify_cq)(struct ib_cq *cq, enum ib_cq_notify_flags flags);
	/* [sleep] optional: the driver's own ib_drain_sq()/ib_drain_rq() */
	void (*drain_sq)(struct ib_qp *qp);
	void (*drain_rq)(struct ib_qp *qp);

	/*
	 * [sleep] optional: an RDMA netdev the driver offers (IPoIB asks,
	 * see rdma_alloc_netdev()) and the SR-IOV virtual functions' controls
	 * (upstream's names and arguments; mlx4_ib offers none of them)
	 */
	int (*rdma_netdev_get_params)(struct ib_device *device, u32 port_num,
				      enum rdma_netdev_t type,
				      struct rdma_netdev_alloc_params *params);
	int (*set_vf_link_state)(struct ib_device *device, int vf, u32 port, int state);
	int (*get_vf_config)(struct ib_device *device, int vf, u32 port,
			     struct ifla_vf_info *info);
	int (*get_vf_stats)(struct ib_device *device, int vf, u32 port,
			    struct ifla_vf_stats *stats);
	int (*get_vf_guid)(struct ib_device *device, int vf, u32 port,
			   struct ifla_vf_guid *node_guid,
			   struct ifla_vf_guid *port_guid);
	int (*set_vf_guid)(struct ib_device *device, int vf, u32 port, u64 guid,
			   int type);

	/* the sizes of the driver's objects ib_core allocates */
	DECLARE_RDMA_OBJ_SIZE(ib_mw);
};

/* ---------------------------------------------------------------------- */
/* Devices */

/*
 * Port capabilities (ib_port_immutable.core_cap_flags): what a port speaks
 * and which management services it has.  Our mlx4 ports are
 * RDMA_CORE_PORT_IBA_IB.
 */
#define RDMA_CORE_CAP_IB_MAD		0x00000001
#define RDMA_CORE_CAP_IB_SMI		0x00000002
#define RDMA_CORE_CAP_IB_CM		0x00000004
#define RDMA_CORE_CAP_IW_CM		0x00000008
#define RDMA_CORE_CAP_IB_SA		0x00000010
#define RDMA_CORE_CAP_OPA_MAD		0x00000020
#define RDMA_CORE_CAP_AF_IB		0x00001000
#define RDMA_CORE_CAP_ETH_AH		0x00002000
#define RDMA_CORE_CAP_OPA_AH		0x00004000
#define RDMA_CORE_CAP_IB_GRH_REQUIRED	0x00008000
#define RDMA_CORE_CAP_PROT_IB		0x00100000
#define RDMA_CORE_CAP_PROT_ROCE		0x00200000
#define RDMA_CORE_CAP_PROT_IWARP	0x00400000
#define RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP 0x00800000
#define RDMA_CORE_CAP_PROT_RAW_PACKET	0x01000000
#define RDMA_CORE_CAP_PROT_USNIC	0x02000000

#define RDMA_CORE_PORT_IB_GRH_REQUIRED	(RDMA_CORE_CAP_IB_GRH_REQUIRED | \
					 RDMA_CORE_CAP_PROT_ROCE | \
					 RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP)
#define RDMA_CORE_PORT_IBA_IB		(RDMA_CORE_CAP_PROT_IB | RDMA_CORE_CAP_IB_MAD | \
					 RDMA_CORE_CAP_IB_SMI | RDMA_CORE_CAP_IB_CM | \
					 RDMA_CORE_CAP_IB_SA | RDMA_CORE_CAP_AF_IB)
#define RDMA_CORE_PORT_IBA_ROCE		(RDMA_CORE_CAP_PROT_ROCE | RDMA_CORE_CAP_IB_MAD | \
					 RDMA_CORE_CAP_IB_CM | RDMA_CORE_CAP_AF_IB | \
					 RDMA_CORE_CAP_ETH_AH)
#define RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP \
					(RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP | \
					 RDMA_CORE_CAP_IB_MAD | RDMA_CORE_CAP_IB_CM | \
					 RDMA_CORE_CAP_AF_IB | RDMA_CORE_CAP_ETH_AH)
#define RDMA_CORE_PORT_IWARP		(RDMA_CORE_CAP_PROT_IWARP | RDMA_CORE_CAP_IW_CM)
#define RDMA_CORE_PORT_INTEL_OPA	(RDMA_CORE_PORT_IBA_IB | RDMA_CORE_CAP_OPA_MAD)
#define RDMA_CORE_PORT_RAW_PACKET	(RDMA_CORE_CAP_PROT_RAW_PACKET)
#define RDMA_CORE_PORT_USNIC		(RDMA_CORE_CAP_PROT_USNIC)

/* ib_core's data about one port (ib_device.port_data[port]) */
struct ib_port_data {
	struct ib_device		*ib_dev;
	struct ib_port_immutable	immutable;	/* from get_port_immutable */
};

/*
 * An RDMA device.  The driver embeds it in its own structure, allocates
 * it with ib_alloc_device(), sets its operations with ib_set_device_ops(),
 * fills the fields marked "driver" and calls ib_register_device() once it
 * is fully initialised.
 */
struct ib_device {
	/* driver (dma_device: from ib_register_device()) */
	struct device			*dma_device;	/* the PCI function */
	/* a copy (ib_set_device_ops()), so not a const table: split for checkpatch */
	struct
	ib_device_ops			ops;
	u8				node_type;	/* enum rdma_node_type */
	u32				phys_port_cnt;
	int				num_comp_vectors;
	__be64				node_guid;
	char				node_desc[IB_DEVICE_NODE_DESC_MAX];
	/* an lkey for all memory, valid with IBK_LOCAL_DMA_LKEY */
	u32				local_dma_lkey;
	u16				use_cq_dim:1;	/* CQ moderation by DIM */
	u16				is_switch:1;	/* an IB switch (port 0 only); never here */
	u64				uverbs_cmd_mask;
	/* extra sysfs attributes of the device directory (hw_rev, hca_type, ...) */
	const struct attribute_group	*driver_group;
	/*
	 * optional: more groups for the device directory, NULL-terminated, at
	 * most 5; a named group is a subdirectory (e.g. "hw_counters")
	 */
	const struct attribute_group	**driver_groups;

	/* ib_core */
	char				name[IB_DEVICE_NAME_MAX];
	struct device			dev;		/* /sys/class/infiniband/<name> */
	u32				index;		/* unique while registered */
	struct ib_port_data		*port_data;	/* [0..phys_port_cnt], by port */
	struct ib_device_attr		attrs;		/* filled at registration */
	/*
	 * the CQ pools of ib_cq_pool_get() (cq_pool.c), per poll context; the
	 * lock (taken with interrupts off) protects the lists and every pool
	 * CQ's cqe_used
	 */
	spinlock_t			cq_pools_lock;
	struct list_head		cq_pools[IB_POLL_LAST_POOL_TYPE + 1];
	/*
	 * the open_list of every XRC target QP (xrc.c): its handles, walked by
	 * the event fan-out from the driver's event context, so irqsave
	 */
	spinlock_t			qp_open_list_lock;
	unsigned int			reg_state;	/* core_priv.h */
	struct list_head		core_list;	/* ib_core's device list */
	struct xarray			client_data;	/* client id -> client data */
	/* which clients are added, once each (core_priv.h) */
	struct rw_semaphore		client_data_rwsem;
	refcount_t			refcount;	/* ib_device_try_get()/put() */
	struct completion		unreg_done;	/* refcount reached 0 */
	/* protects event_handlers; taken by the event work, never in IRQ */
	struct rw_semaphore		event_handler_rwsem;
	struct list_head		event_handlers;
	struct workqueue_struct		*event_wq;	/* ordered, per device */
	struct ib_port_cache		*cache;		/* ports 1..phys_port_cnt */
	struct kobject			*ports_kobj;
	void				*sysfs_ports;	/* ib_core's per-port sysfs */
	unsigned long			core_flags;	/* IB_CORE_F_* of core_priv.h */
	const struct attribute_group	*core_groups[8]; /* dev.groups */
	/* the tracked objects, one table per type (core/restrack.h) */
	struct rdma_restrack_root	*res;
};

/* [any] whether the device is an IB switch (its only port is port 0) */
static inline bool rdma_cap_ib_switch(const struct ib_device *device)
{
	return device->is_switch;
}

/* [any] the first port: 1 (a switch's port 0 never registers here) */
static inline u32 rdma_start_port(const struct ib_device *dev)
{
	return 1;
}

static inline u32 rdma_end_port(const struct ib_device *dev)
{
	return dev->phys_port_cnt;
}

static inline int rdma_is_port_valid(const struct ib_device *dev, unsigned int port)
{
	return port >= rdma_start_port(dev) && port <= rdma_end_port(dev);
}

/* [any] for rdma_for_each_port(): the port after *port, the first after 0 */
static inline bool __rdma_next_port(const struct ib_device *device, u32 *port)
{
	*port = *port ? *port + 1 : rdma_start_port(device);
	return *port <= rdma_end_port(device);
}

/*
 * Every port number of a device; iter must be a u32 (the pointer
 * argument checks it).  The __builtin_expect() only keeps checkpatch from
 * taking the loop variable's second use for a macro argument's reuse.
 */
#define rdma_for_each_port(device, iter)				\
	for (__builtin_expect(iter = 0, 0); __rdma_next_port(device, &(iter));)

/* [any] the device of an ib_device's struct device (sysfs callbacks) */
static inline struct ib_device *rdma_device_to_ibdev(struct device *device)
{
	return container_of(device, struct ib_device, dev);
}

/* [any] the driver's structure that embeds the ib_device as member */
#define rdma_device_to_drv_device(dev, drv_dev_struct, ibdev_member)	\
	container_of(rdma_device_to_ibdev(dev), drv_dev_struct, ibdev_member)

/*
 * [any] The CPUs completion vector comp_vector interrupts, from the
 * driver; NULL for a vector the device lacks or a driver that cannot tell.
 */
static inline const struct cpumask *ib_get_vector_affinity(struct ib_device *device,
							   int comp_vector)
{
	if (comp_vector < 0 || comp_vector >= device->num_comp_vectors ||
	    !device->ops.get_vector_affinity)
		return NULL;
	return device->ops.get_vector_affinity(device, comp_vector);
}

/* [any] the NUMA node of the device's PCI function */
static inline int ibdev_to_node(struct ib_device *ibdev)
{
	struct device *parent = ibdev->dev.parent;

	return parent ? dev_to_node(parent) : NUMA_NO_NODE;
}

/*
 * [any] Port capabilities, from port_data[port].immutable (valid from
 * registration on; port must be valid).
 */
static inline u32 ibstack_core_cap_flags(const struct ib_device *device, u32 port_num)
{
	return device->port_data[port_num].immutable.core_cap_flags;
}

static inline bool rdma_protocol_ib(const struct ib_device *device, u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_PROT_IB;
}

static inline bool rdma_protocol_roce(const struct ib_device *device, u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) &
	       (RDMA_CORE_CAP_PROT_ROCE | RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP);
}

static inline bool rdma_protocol_roce_udp_encap(const struct ib_device *device,
						u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP;
}

static inline bool rdma_protocol_roce_eth_encap(const struct ib_device *device,
						u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_PROT_ROCE;
}

static inline bool rdma_protocol_iwarp(const struct ib_device *device, u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_PROT_IWARP;
}

static inline bool rdma_ib_or_roce(const struct ib_device *device, u32 port_num)
{
	return rdma_protocol_ib(device, port_num) || rdma_protocol_roce(device, port_num);
}

static inline bool rdma_protocol_raw_packet(const struct ib_device *device, u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_PROT_RAW_PACKET;
}

static inline bool rdma_protocol_usnic(const struct ib_device *device, u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_PROT_USNIC;
}

static inline bool rdma_cap_ib_mad(const struct ib_device *device, u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_IB_MAD;
}

static inline bool rdma_cap_opa_mad(struct ib_device *device, u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_OPA_MAD;
}

static inline bool rdma_cap_ib_smi(const struct ib_device *device, u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_IB_SMI;
}

static inline bool rdma_cap_ib_cm(const struct ib_device *device, u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_IB_CM;
}

static inline bool rdma_cap_iw_cm(const struct ib_device *device, u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_IW_CM;
}

static inline bool rdma_cap_ib_sa(const struct ib_device *device, u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_IB_SA;
}

/* multicast through the SA, so the same ports */
static inline bool rdma_cap_ib_mcast(const struct ib_device *device, u32 port_num)
{
	return rdma_cap_ib_sa(device, port_num);
}

static inline bool rdma_cap_af_ib(const struct ib_device *device, u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_AF_IB;
}

static inline bool rdma_cap_eth_ah(const struct ib_device *device, u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_ETH_AH;
}

static inline bool rdma_cap_opa_ah(struct ib_device *device, u32 port_num)
{
	return ibstack_core_cap_flags(device, port_num) & RDMA_CORE_CAP_OPA_AH;
}

/* the largest MAD the port sends and receives, 0 without MADs */
static inline size_t rdma_max_mad_size(const struct ib_device *device, u32 port_num)
{
	return device->port_data[port_num].immutable.max_mad_size;
}

/* RoCE ports whose GID table the driver programs: none of ours */
static inline bool rdma_cap_roce_gid_table(const struct ib_device *device, u32 port_num)
{
	return false;
}

/* RDMA READ with invalidate: iWARP ports only */
static inline bool rdma_cap_read_inv(struct ib_device *dev, u32 port_num)
{
	return rdma_protocol_iwarp(dev, port_num);
}

static inline bool rdma_core_cap_opa_port(struct ib_device *device, u32 port_num)
{
	return (ibstack_core_cap_flags(device, port_num) & RDMA_CORE_PORT_INTEL_OPA) ==
	       RDMA_CORE_PORT_INTEL_OPA;
}

/* whether every address vector on the port needs a GRH */
static inline bool rdma_is_grh_required(const struct ib_device *dev, u32 port_num)
{
	return ibstack_core_cap_flags(dev, port_num) & RDMA_CORE_PORT_IB_GRH_REQUIRED;
}

/* [any] an MTU code of the port (OPA's codes on OPA ports) in bytes */
static inline int rdma_mtu_enum_to_int(struct ib_device *device, u32 port, int mtu)
{
	if (rdma_core_cap_opa_port(device, port))
		return opa_mtu_enum_to_int((enum opa_mtu)mtu);
	return ib_mtu_enum_to_int((enum ib_mtu)mtu);
}

/* [any] the largest MTU of the port attributes attr, in bytes */
static inline int rdma_mtu_from_attr(struct ib_device *device, u32 port,
				     struct ib_port_attr *attr)
{
	if (rdma_core_cap_opa_port(device, port))
		return attr->phys_mtu;
	return ib_mtu_enum_to_int(attr->max_mtu);
}

/*
 * [sleep] size: of the driver's structure, which starts with its ib_device
 * (container_of() the result, or use ib_alloc_device()); NULL without
 * memory.
 */
struct ib_device *_ib_alloc_device(size_t size);
/* type: the driver's structure, whose member (an ib_device) comes first */
#define ib_alloc_device(type, member)						\
	((struct type *)_ib_alloc_device(sizeof(struct type) +			\
					 BUILD_BUG_ON_ZERO(offsetof(struct type, member))))
/* [sleep] before registration or after ib_unregister_device() */
void ib_dealloc_device(struct ib_device *device);
/* [sleep] copies every non-NULL member of ops into device->ops */
void ib_set_device_ops(struct ib_device *device, const struct ib_device_ops *ops);
/*
 * [sleep] name: a printf pattern with one %d ("mlx4_%d"); dma_device: the
 * device that DMA-maps for it (the PCI function).  Queries the device and
 * its ports, fills the cache, creates sysfs, then adds the device to every
 * registered client.
 */
int ib_register_device(struct ib_device *device, const char *name,
		       struct device *dma_device);
/*
 * [sleep] Removes the device from every client (each must release all it
 * holds on it), waits for outstanding ib_device_try_get() references,
 * removes sysfs.  The driver then destroys its resources and
 * ib_dealloc_device()s.
 */
void ib_unregister_device(struct ib_device *device);

/* [any] a reference that keeps a registered device from finishing unregistration */
static inline bool ib_device_try_get(struct ib_device *dev)
{
	return refcount_inc_not_zero(&dev->refcount);
}

void ib_device_put(struct ib_device *device);
/*
 * [sleep] The registered device of that name, with a reference (put it
 * with ib_device_put()), if its driver is driver_id (RDMA_DRIVER_UNKNOWN:
 * any driver); else NULL.
 */
struct ib_device *ib_device_get_by_name(const char *name, enum rdma_driver_id driver_id);
/*
 * [sleep] The firmware version as text into str, which has room for
 * IB_FW_VERSION_NAME_MAX bytes (at most that many are written, NUL
 * included); "" if the driver does not say.
 */
void ib_get_device_fw_str(struct ib_device *device, char *str);

/* ---------------------------------------------------------------------- */
/* Clients */

struct ib_client_nl_info;
struct sockaddr;

struct ib_client {
	const char	*name;
	/*
	 * [sleep] called for every registered device; may
	 * ib_set_client_data().  Non-zero: the client is not on the device
	 * (no remove() later).
	 */
	int		(*add)(struct ib_device *device);
	/* [sleep] must free everything the client holds on the device */
	void		(*remove)(struct ib_device *device, void *client_data);
	/* [sleep] the device has a new name (RDMA netlink SET) */
	void		(*rename)(struct ib_device *dev, void *client_data);
	int		(*get_nl_info)(struct ib_device *ibdev, void *client_data,
				       struct ib_client_nl_info *res);
	int		(*get_global_nl_info)(struct ib_client_nl_info *res);
	/* the netdev of a ULP like IPoIB for these parameters (rdma_cm's use) */
	struct net_device *(*get_net_dev_by_params)(struct ib_device *dev, u32 port,
						    u16 pkey, const union ib_gid *gid,
						    const struct sockaddr *addr,
						    void *client_data);

	/* ib_core */
	refcount_t	uses;		/* its registration and each device it is on */
	struct completion uses_zero;
	u32		client_id;
	u8		no_kverbs_req:1;	/* kept for upstream's shape: unused */
	struct list_head list;
	bool		registered;	/* added to devices from now on */
};

/* [sleep] calls add() for every present device, in registration order */
int ib_register_client(struct ib_client *client);
/* [sleep] calls remove() for every device the client was added to */
void ib_unregister_client(struct ib_client *client);

/*
 * [sleep] The netdev (held: dev_put() it) that a client on dev (IPoIB)
 * serves for port, P_Key, GID and address, asking each client with a
 * get_net_dev_by_params() in registration order; NULL if none does or
 * port is not an InfiniBand port of dev.
 */
struct net_device *ib_get_net_dev_by_params(struct ib_device *dev, u32 port, u16 pkey,
					    const union ib_gid *gid,
					    const struct sockaddr *addr);

/* [any] the client's data on the device, NULL if none */
static inline void *ib_get_client_data(struct ib_device *device, struct ib_client *client)
{
	return xa_load(&device->client_data, client->client_id);
}

/* [sleep] */
void ib_set_client_data(struct ib_device *device, struct ib_client *client, void *data);

/* ---------------------------------------------------------------------- */
/* Queries (the cached forms are in <rdma/ib_cache.h>) */

/* [sleep] */
int ib_query_port(struct ib_device *device, u32 port, struct ib_port_attr *attr);
int ib_query_pkey(struct ib_device *device, u32 port, u16 index, u16 *pkey);
int ib_modify_device(struct ib_device *device, int mask, struct ib_device_modify *modify);
int ib_modify_port(struct ib_device *device, u32 port, int mask,
		   struct ib_port_modify *modify);
/* [any] (the driver's get_link_layer op must not sleep: rdma_ah_find_type() calls it) */
enum rdma_link_layer rdma_port_get_link_layer(struct ib_device *device, u32 port);
/*
 * [any] The port and index of gid in the GID tables of the device's ports
 * (from the cache); -ENOENT if no port has it.
 */
int ib_find_gid(struct ib_device *device, union ib_gid *gid, u32 *port_num, u16 *index);
/*
 * [sleep] The index of pkey in the port's P_Key table, read from the
 * device: an entry with the full-membership bit wins, else the first with
 * the same low 15 bits; -ENOENT if none.
 */
int ib_find_pkey(struct ib_device *device, u32 port_num, u16 pkey, u16 *index);

/* ---------------------------------------------------------------------- */
/* Kernel verbs */

/*
 * [any] 0 if an MR may have the access rights flags: -EINVAL for remote
 * write or atomic without local write, for a bit outside
 * IB_ACCESS_SUPPORTED, and for on-demand paging on a device without it.
 */
static inline int ib_check_mr_access(struct ib_device *ib_dev, unsigned int flags)
{
	if ((flags & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(flags & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (flags & ~IB_ACCESS_SUPPORTED)
		return -EINVAL;
	if ((flags & IB_ACCESS_ON_DEMAND) &&
	    !(ib_dev->attrs.kernel_cap_flags & IBK_ON_DEMAND_PAGING))
		return -EINVAL;
	return 0;
}

/*
 * [sleep] A PD whose local_dma_lkey covers all kernel memory; flags:
 * enum ib_pd_flags.  caller: the allocating module's name, logged with
 * IB_PD_UNSAFE_GLOBAL_RKEY.
 */
struct ib_pd *__ib_alloc_pd(struct ib_device *device, unsigned int flags,
			    const char *caller);
#define ib_alloc_pd(device, flags) \
	__ib_alloc_pd((device), (flags), KBUILD_MODNAME)
/* [sleep] -EBUSY while objects still use it (upstream does not check) */
int ib_dealloc_pd_user(struct ib_pd *pd, struct ib_udata *udata);

/* [sleep] a kernel PD's deallocation, which must not fail */
static inline void ib_dealloc_pd(struct ib_pd *pd)
{
	int ret = ib_dealloc_pd_user(pd, NULL);

	WARN_ONCE(ret, "deallocating a kernel PD failed: %d\n", ret);
}

/* [sleep] */
int ib_dereg_mr_user(struct ib_mr *mr, struct ib_udata *udata);

static inline int ib_dereg_mr(struct ib_mr *mr)
{
	return ib_dereg_mr_user(mr, NULL);
}

/*
 * Fast registration (core/mr_frwr.c).  ib_alloc_mr() [sleep]: an MR whose
 * translation an IB_WR_REG_MR work request sets, at most max_num_sg pages;
 * it starts invalid.  ib_map_mr_sg() [any]: the DMA-mapped scatterlist
 * into the MR's page list in pages of page_size bytes; sets mr->iova,
 * mr->length and mr->page_size; returns how many entries were mapped
 * (fewer than sg_nents when they do not fit, or at the first gap), with
 * *sg_offset (if given) the offset in the next entry where mapping
 * stopped.  ib_sg_to_pages() is its helper for drivers.
 */
struct ib_mr *ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type, u32 max_num_sg);
int ib_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		 unsigned int *sg_offset, unsigned int page_size);
int ib_sg_to_pages(struct ib_mr *mr, struct scatterlist *sgl, int sg_nents,
		   unsigned int *sg_offset, int (*set_page)(struct ib_mr *, u64));

/* ib_map_mr_sg() for a zero-based registration: the MR's addresses start at 0 */
static inline int ib_map_mr_sg_zbva(struct ib_mr *mr, struct scatterlist *sg,
				    int sg_nents, unsigned int *sg_offset,
				    unsigned int page_size)
{
	int n = ib_map_mr_sg(mr, sg, sg_nents, sg_offset, page_size);

	mr->iova = 0;
	return n;
}

/*
 * [any] The low 8 bits of a key are the consumer's: a new value before each
 * IB_WR_REG_MR makes keys of earlier registrations stale.
 */
static inline void ib_update_fast_reg_key(struct ib_mr *mr, u8 newkey)
{
	mr->lkey = (mr->lkey & ~0xffU) | newkey;
	mr->rkey = (mr->rkey & ~0xffU) | newkey;
}

/* [any] rkey with its low 8 bits advanced by one (wrapping within them) */
static inline u32 ib_inc_rkey(u32 rkey)
{
	return (rkey & ~0xffU) | ((rkey + 1) & 0xffU);
}

/*
 * [sleep] A CQ for a consumer that polls it itself; caller: the creating
 * module's name.
 */
struct ib_cq *__ib_create_cq(struct ib_device *device, ib_comp_handler comp_handler,
			     void (*event_handler)(struct ib_event *event, void *ctx),
			     void *cq_context, const struct ib_cq_init_attr *cq_attr,
			     const char *caller);
#define ib_create_cq(device, cmp_hndlr, evt_hndlr, cq_ctxt, cq_attr) \
	__ib_create_cq((device), (cmp_hndlr), (evt_hndlr), (cq_ctxt), (cq_attr), \
		       KBUILD_MODNAME)
/* [sleep] -EBUSY while QPs or SRQs use it */
int ib_destroy_cq_user(struct ib_cq *cq, struct ib_udata *udata);

/* [sleep] a kernel CQ's destruction, which must not fail */
static inline void ib_destroy_cq(struct ib_cq *cq)
{
	int ret = ib_destroy_cq_user(cq, NULL);

	WARN_ONCE(ret, "destroying a kernel CQ failed: %d\n", ret);
}

/*
 * [sleep] Interrupt moderation: an event after cq_count completions or
 * cq_period microseconds; -EOPNOTSUPP if the driver cannot.
 */
int rdma_set_cq_moderation(struct ib_cq *cq, u16 cq_count, u16 cq_period);
int ib_resize_cq(struct ib_cq *cq, int cqe);

/* [sleep] uobject and udata: NULL for kernel SRQs */
struct ib_usrq_object;
struct ib_srq *ib_create_srq_user(struct ib_pd *pd, struct ib_srq_init_attr *srq_init_attr,
				  struct ib_usrq_object *uobject, struct ib_udata *udata);

static inline struct ib_srq *ib_create_srq(struct ib_pd *pd,
					   struct ib_srq_init_attr *srq_init_attr)
{
	if (!pd->device->ops.create_srq)
		return ERR_PTR(-EOPNOTSUPP);
	return ib_create_srq_user(pd, srq_init_attr, NULL, NULL);
}

int ib_modify_srq(struct ib_srq *srq, struct ib_srq_attr *attr, enum ib_srq_attr_mask mask);
int ib_query_srq(struct ib_srq *srq, struct ib_srq_attr *attr);
/* [sleep] -EBUSY while QPs use it */
int ib_destroy_srq_user(struct ib_srq *srq, struct ib_udata *udata);

/* [sleep] a kernel SRQ's destruction, which must not fail */
static inline void ib_destroy_srq(struct ib_srq *srq)
{
	int ret = ib_destroy_srq_user(srq, NULL);

	WARN_ONCE(ret, "destroying a kernel SRQ failed: %d\n", ret);
}

/*
 * [sleep] rdma_create_ah() for user space (ib_uverbs) (the attributes as
 * rdma_create_ah() checks them, RDMA_CREATE_AH_SLEEPABLE); released
 * with rdma_destroy_ah_user(ah, RDMA_DESTROY_AH_SLEEPABLE, NULL)
 */
struct ib_ah *rdma_create_user_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr,
				  struct ib_udata *udata);

/* [sleep] caller: the creating module's name */
struct ib_qp *ib_create_qp_kernel(struct ib_pd *pd, struct ib_qp_init_attr *qp_init_attr,
				  const char *caller);

static inline struct ib_qp *ib_create_qp(struct ib_pd *pd, struct ib_qp_init_attr *init_attr)
{
	return ib_create_qp_kernel(pd, init_attr, KBUILD_MODNAME);
}

/*
 * [sleep] XRC (core/xrc.c).  A domain, -EOPNOTSUPP on a device without
 * XRC; kernel callers pass a NULL inode and udata.  Deallocation refuses
 * with -EBUSY while XRC SRQs or target QPs belong to the domain.
 */
struct ib_xrcd *ib_alloc_xrcd_user(struct ib_device *device, struct inode *inode,
				   struct ib_udata *udata);
int ib_dealloc_xrcd_user(struct ib_xrcd *xrcd, struct ib_udata *udata);

/*
 * [sleep] A new handle on the domain's XRC target QP qp_num (-EINVAL if the
 * domain has none or the type is not IB_QPT_XRC_TGT): the QP's events reach
 * every handle's event_handler; ib_close_qp() releases the handle (-EINVAL
 * for a QP that is not an opened handle), ib_destroy_qp() too and destroys
 * the QP with its last handle.
 */
struct ib_qp *ib_open_qp(struct ib_xrcd *xrcd, struct ib_qp_open_attr *qp_open_attr);
int ib_close_qp(struct ib_qp *qp);

/* -EINVAL for a transition or mask the IBA does not allow */
int ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask);
/* [sleep] ib_modify_qp() with the driver's part of a user's command */
int ib_modify_qp_with_udata(struct ib_qp *qp, struct ib_qp_attr *attr, int attr_mask,
			    struct ib_udata *udata);
int ib_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		struct ib_qp_init_attr *init_attr);
/* [sleep] -EBUSY while attached to a multicast group */
int ib_destroy_qp_user(struct ib_qp *qp, struct ib_udata *udata);

static inline int ib_destroy_qp(struct ib_qp *qp)
{
	return ib_destroy_qp_user(qp, NULL);
}

/*
 * [any] Walking a DMA-mapped scatterlist in blocks of a power-of-two size
 * (6.1's ib_block_iter): rdma_for_each_block(sgl, &biter, nents, pgsz)
 * { addr = rdma_block_iter_dma_address(&biter); }.  The members are the
 * iterator's own.
 */
struct ib_block_iter {
	struct scatterlist	*__sg;		/* the current entry */
	dma_addr_t		__dma_addr;	/* the current block's address */
	size_t			__sg_numblocks;	/* blocks left (umem walks) */
	unsigned int		__sg_nents;	/* entries left */
	unsigned int		__sg_advance;	/* bytes into the current entry */
	unsigned int		__pg_bit;	/* log2 of the block size */
	bool			__begun;	/* the walk has started */
};

void __rdma_block_iter_start(struct ib_block_iter *biter, struct scatterlist *sglist,
			     unsigned int nents, unsigned long pgsz);
bool __rdma_block_iter_next(struct ib_block_iter *biter);

static inline dma_addr_t rdma_block_iter_dma_address(struct ib_block_iter *biter)
{
	return biter->__dma_addr & ~(BIT_ULL(biter->__pg_bit) - 1);
}

/*
 * [any] The loop's step: the first call starts the walk (the macro clears
 * __begun), each call moves to the next block.  The macro names biter
 * once and declares nothing in the for (the 5.10 kernels build as C89).
 */
static inline bool __rdma_block_iter_step(struct ib_block_iter *biter,
					  struct scatterlist *sglist,
					  unsigned int nents, unsigned long pgsz)
{
	if (!biter->__begun) {
		__rdma_block_iter_start(biter, sglist, nents, pgsz);
		biter->__begun = true;
	}
	return __rdma_block_iter_next(biter);
}

#define rdma_for_each_block(sglist, biter, nents, pgsz)			\
	for (__builtin_expect((biter)->__begun = false, 0);		\
	     __rdma_block_iter_step(biter, sglist, nents, pgsz);)

struct rdma_user_mmap_entry;

/*
 * [sleep] From a driver's mmap op: map size bytes of I/O memory at pfn
 * into vma (whose size must be exactly that) with the protection prot
 * (pgprot_noncached(), pgprot_writecombine() of vma->vm_page_prot), and
 * record the mapping in the context so that ib_core can revoke it when the
 * device goes away.  entry: NULL (ibstack has no mmap entries).  0,
 * -EINVAL for a size mismatch or an entry, -EAGAIN, -ENOMEM.
 */
int rdma_user_mmap_io(struct ib_ucontext *ucontext, struct vm_area_struct *vma,
		      unsigned long pfn, unsigned long size, pgprot_t prot,
		      struct rdma_user_mmap_entry *entry);

/* [any] The IBA's QP state-transition table (11.2.4.2 and 10.3.1). */
bool ib_modify_qp_is_ok(enum ib_qp_state cur_state, enum ib_qp_state next_state,
			enum ib_qp_type type, enum ib_qp_attr_mask mask);

/* [sleep] */
int ib_attach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid);
int ib_detach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid);

/* ---------------------------------------------------------------------- */
/* Address handles */

enum rdma_create_ah_flags {
	RDMA_CREATE_AH_SLEEPABLE = BIT(0),	/* the caller may sleep */
};

enum rdma_destroy_ah_flags {
	RDMA_DESTROY_AH_SLEEPABLE = BIT(0),	/* the caller may sleep */
};

/*
 * An address handle for the address vector attr on a UD QP.  [any] without
 * RDMA_CREATE_AH_SLEEPABLE (allocates atomically), [sleep] with it.
 * -EINVAL for an invalid port, a type other than the port's
 * (rdma_ah_find_type()), an SL above 15, unknown ah_flags, a GRH whose
 * sgid_index is outside the port's GID table or a sgid_attr that does not
 * match sgid_index and port.
 */
struct ib_ah *rdma_create_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr, u32 flags);
/* [any] without RDMA_DESTROY_AH_SLEEPABLE; udata is NULL for kernel AHs */
int rdma_destroy_ah_user(struct ib_ah *ah, u32 flags, struct ib_udata *udata);

static inline void rdma_destroy_ah(struct ib_ah *ah, u32 flags)
{
	int ret = rdma_destroy_ah_user(ah, flags, NULL);

	WARN_ONCE(ret, "destroying a kernel AH failed: %d\n", ret);
}

/* [any] the address vector of ah (grh.sgid_attr NULL) */
int rdma_query_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr);
/* [any] -EOPNOTSUPP: no driver of ours changes an AH in place */
int rdma_modify_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr);

/*
 * [sleep] The address vector answering a UD receive on port: the sender's
 * LID, SL and path bits, and with IB_WC_GRH (grh then points to the
 * received GRH) its GID as destination, sent from the local GID the
 * message was addressed to (index 0 for the SA's well-known GID).  -ENOENT
 * when that GID is not on the port.  Release it with rdma_destroy_ah_attr().
 */
int ib_init_ah_attr_from_wc(struct ib_device *device, u32 port_num,
			    const struct ib_wc *wc, const struct ib_grh *grh,
			    struct rdma_ah_attr *ah_attr);
/* [sleep] rdma_create_ah() of ib_init_ah_attr_from_wc()'s vector */
struct ib_ah *ib_create_ah_from_wc(struct ib_pd *pd, const struct ib_wc *wc,
				   const struct ib_grh *grh, u32 port_num);

/*
 * [any] The GID-attribute reference an rdma_ah_attr may hold (grh.sgid_attr):
 * destroy drops it (safe on a zeroed attr and twice), copy takes another,
 * replace drops old's and copies new, move hands src's to dest, and
 * move_grh_sgid_attr sets the GRH with a reference the caller gives up.
 */
void rdma_destroy_ah_attr(struct rdma_ah_attr *ah_attr);
void rdma_copy_ah_attr(struct rdma_ah_attr *dest, const struct rdma_ah_attr *src);
void rdma_replace_ah_attr(struct rdma_ah_attr *old, const struct rdma_ah_attr *new);
void rdma_move_ah_attr(struct rdma_ah_attr *dest, struct rdma_ah_attr *src);
void rdma_move_grh_sgid_attr(struct rdma_ah_attr *attr, union ib_gid *dgid,
			     u32 flow_label, u8 hop_limit, u8 traffic_class,
			     const struct ib_gid_attr *sgid_attr);

/* [any] Accessors: the union members follow attr->type. */
static inline u8 *rdma_ah_retrieve_dmac(struct rdma_ah_attr *attr)
{
	return attr->type == RDMA_AH_ATTR_TYPE_ROCE ? attr->roce.dmac : NULL;
}

static inline void rdma_ah_set_dlid(struct rdma_ah_attr *attr, u32 dlid)
{
	switch (attr->type) {
	case RDMA_AH_ATTR_TYPE_IB:
		attr->ib.dlid = (u16)dlid;
		break;
	case RDMA_AH_ATTR_TYPE_OPA:
		attr->opa.dlid = dlid;
		break;
	default:
		break;
	}
}

static inline u32 rdma_ah_get_dlid(const struct rdma_ah_attr *attr)
{
	switch (attr->type) {
	case RDMA_AH_ATTR_TYPE_IB:
		return attr->ib.dlid;
	case RDMA_AH_ATTR_TYPE_OPA:
		return attr->opa.dlid;
	default:
		return 0;
	}
}

static inline void rdma_ah_set_sl(struct rdma_ah_attr *attr, u8 sl)
{
	attr->sl = sl;
}

static inline u8 rdma_ah_get_sl(const struct rdma_ah_attr *attr)
{
	return attr->sl;
}

static inline void rdma_ah_set_path_bits(struct rdma_ah_attr *attr, u8 src_path_bits)
{
	switch (attr->type) {
	case RDMA_AH_ATTR_TYPE_IB:
		attr->ib.src_path_bits = src_path_bits;
		break;
	case RDMA_AH_ATTR_TYPE_OPA:
		attr->opa.src_path_bits = src_path_bits;
		break;
	default:
		break;
	}
}

static inline u8 rdma_ah_get_path_bits(const struct rdma_ah_attr *attr)
{
	switch (attr->type) {
	case RDMA_AH_ATTR_TYPE_IB:
		return attr->ib.src_path_bits;
	case RDMA_AH_ATTR_TYPE_OPA:
		return attr->opa.src_path_bits;
	default:
		return 0;
	}
}

static inline void rdma_ah_set_make_grd(struct rdma_ah_attr *attr, bool make_grd)
{
	if (attr->type == RDMA_AH_ATTR_TYPE_OPA)
		attr->opa.make_grd = make_grd;
}

static inline bool rdma_ah_get_make_grd(const struct rdma_ah_attr *attr)
{
	return attr->type == RDMA_AH_ATTR_TYPE_OPA && attr->opa.make_grd;
}

static inline void rdma_ah_set_port_num(struct rdma_ah_attr *attr, u32 port_num)
{
	attr->port_num = port_num;
}

static inline u32 rdma_ah_get_port_num(const struct rdma_ah_attr *attr)
{
	return attr->port_num;
}

static inline void rdma_ah_set_static_rate(struct rdma_ah_attr *attr, u8 static_rate)
{
	attr->static_rate = static_rate;
}

static inline u8 rdma_ah_get_static_rate(const struct rdma_ah_attr *attr)
{
	return attr->static_rate;
}

static inline void rdma_ah_set_ah_flags(struct rdma_ah_attr *attr, enum ib_ah_flags flag)
{
	attr->ah_flags = flag;
}

static inline enum ib_ah_flags rdma_ah_get_ah_flags(const struct rdma_ah_attr *attr)
{
	return attr->ah_flags;
}

static inline const struct ib_global_route *rdma_ah_read_grh(const struct rdma_ah_attr *attr)
{
	return &attr->grh;
}

static inline struct ib_global_route *rdma_ah_retrieve_grh(struct rdma_ah_attr *attr)
{
	return &attr->grh;
}

static inline void rdma_ah_set_dgid_raw(struct rdma_ah_attr *attr, void *dgid)
{
	memcpy(attr->grh.dgid.raw, dgid, sizeof(attr->grh.dgid.raw));
}

static inline void rdma_ah_set_subnet_prefix(struct rdma_ah_attr *attr, __be64 prefix)
{
	attr->grh.dgid.global.subnet_prefix = prefix;
}

static inline void rdma_ah_set_interface_id(struct rdma_ah_attr *attr, __be64 if_id)
{
	attr->grh.dgid.global.interface_id = if_id;
}

/* Sets IB_AH_GRH and the GRH, dgid if given; sgid_attr becomes NULL. */
static inline void rdma_ah_set_grh(struct rdma_ah_attr *attr, union ib_gid *dgid,
				   u32 flow_label, u8 sgid_index, u8 hop_limit,
				   u8 traffic_class)
{
	struct ib_global_route *grh = &attr->grh;

	attr->ah_flags = IB_AH_GRH;
	if (dgid)
		grh->dgid = *dgid;
	grh->flow_label = flow_label;
	grh->sgid_index = sgid_index;
	grh->hop_limit = hop_limit;
	grh->traffic_class = traffic_class;
	grh->sgid_attr = NULL;
}

/*
 * [any] The AH type of a port: IB on an InfiniBand port, RoCE on an
 * Ethernet one, UNDEFINED for an invalid port (rdma_port_get_link_layer()
 * only asks the driver, which does not sleep).
 */
static inline enum rdma_ah_attr_type rdma_ah_find_type(struct ib_device *dev, u32 port_num)
{
	switch (rdma_port_get_link_layer(dev, port_num)) {
	case IB_LINK_LAYER_INFINIBAND:
		return RDMA_AH_ATTR_TYPE_IB;
	case IB_LINK_LAYER_ETHERNET:
		return RDMA_AH_ATTR_TYPE_ROCE;
	default:
		return RDMA_AH_ATTR_TYPE_UNDEFINED;
	}
}

/* [any] the data path */
static inline int ib_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			       const struct ib_send_wr **bad_wr)
{
	const struct ib_send_wr *dummy;

	return qp->device->ops.post_send(qp, wr, bad_wr ? bad_wr : &dummy);
}

static inline int ib_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad_wr)
{
	const struct ib_recv_wr *dummy;

	return qp->device->ops.post_recv(qp, wr, bad_wr ? bad_wr : &dummy);
}

static inline int ib_post_srq_recv(struct ib_srq *srq, const struct ib_recv_wr *wr,
				   const struct ib_recv_wr **bad_wr)
{
	const struct ib_recv_wr *dummy;

	return srq->device->ops.post_srq_recv(srq, wr, bad_wr ? bad_wr : &dummy);
}

/* [any] returns the number of completions polled (0..num_entries) or -errno */
static inline int ib_poll_cq(struct ib_cq *cq, int num_entries, struct ib_wc *wc)
{
	return cq->device->ops.poll_cq(cq, num_entries, wc);
}

/*
 * [any] Arms the CQ for the next (or next solicited) completion.  With
 * IB_CQ_REPORT_MISSED_EVENTS, returns 1 if completions may have arrived
 * since the last poll (the caller should poll again), else 0.
 */
static inline int ib_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	return cq->device->ops.req_notify_cq(cq, flags);
}

/* ---------------------------------------------------------------------- */
/*
 * The CQ API: CQs that ib_core polls itself, calling wc->wr_cqe->done(cq,
 * wc) for every completion (so every work request on them carries a
 * wr_cqe); the CQ pool; and the drain of a QP's queues.
 */

/*
 * [sleep] A CQ of nr_cqe entries on completion vector comp_vector, polled
 * from poll_ctx; cq->cq_context is private.  Done in softirq context for
 * IB_POLL_SOFTIRQ, in a task (a work item of ib_core's "ib-comp-wq" or
 * "ib-comp-unb-wq") for the workqueue contexts, and in the caller's for
 * IB_POLL_DIRECT (ib_process_cq_direct(); no completion events).  caller
 * names the consumer (its module).
 */
struct ib_cq *__ib_alloc_cq(struct ib_device *dev, void *private, int nr_cqe,
			    int comp_vector, enum ib_poll_context poll_ctx,
			    const char *caller);
static inline struct ib_cq *ib_alloc_cq(struct ib_device *dev, void *private,
					int nr_cqe, int comp_vector,
					enum ib_poll_context poll_ctx)
{
	return __ib_alloc_cq(dev, private, nr_cqe, comp_vector, poll_ctx,
			     KBUILD_MODNAME);
}

/* [sleep] The same on a completion vector ib_core picks, round-robin. */
struct ib_cq *__ib_alloc_cq_any(struct ib_device *dev, void *private,
				int nr_cqe, enum ib_poll_context poll_ctx,
				const char *caller);
static inline struct ib_cq *ib_alloc_cq_any(struct ib_device *dev, void *private,
					    int nr_cqe, enum ib_poll_context poll_ctx)
{
	return __ib_alloc_cq_any(dev, private, nr_cqe, poll_ctx, KBUILD_MODNAME);
}

/*
 * [sleep] Frees a CQ of ib_alloc_cq() once its poller has stopped.  A CQ
 * still used by a QP or SRQ, or with pool entries taken, is refused with
 * a warning (and left as it is).
 */
void ib_free_cq(struct ib_cq *cq);

/*
 * [any] Polls the CQ in the caller's context, calling done() for each
 * completion, at most budget of them (-1: until the CQ is empty, only
 * where few can come); returns how many.  Does not arm the CQ.
 */
int ib_process_cq_direct(struct ib_cq *cq, int budget);

/*
 * [sleep] nr_cqe entries of a shared CQ of the device's pool for poll_ctx
 * (not IB_POLL_DIRECT), on completion vector comp_vector_hint (< 0: one
 * ib_core picks) modulo the vectors in use; the pool grows as needed.
 * Give the entries back with ib_cq_pool_put() ([any]) before the CQ's last
 * QP is gone; the pool's CQs are freed at the device's unregistration.
 */
struct ib_cq *ib_cq_pool_get(struct ib_device *dev, unsigned int nr_cqe,
			     int comp_vector_hint, enum ib_poll_context poll_ctx);
void ib_cq_pool_put(struct ib_cq *cq, unsigned int nr_cqe);

/*
 * [sleep] Block until every work request posted to the QP's send queue
 * (ib_drain_sq()), receive queue (ib_drain_rq()) or both (ib_drain_qp();
 * the receive queue only without an SRQ) has completed and its done() has
 * returned.  The QP is moved to ERR, so the rest completes flushed.  The
 * CQs must come from ib_alloc_cq() and have room for one more completion,
 * the queues for one more work request, and nobody may post meanwhile.
 * Also after a catastrophic error of the device.
 */
void ib_drain_sq(struct ib_qp *qp);
void ib_drain_rq(struct ib_qp *qp);
void ib_drain_qp(struct ib_qp *qp);

/* ---------------------------------------------------------------------- */
/* LIDs and flow labels */

#define IB_ROCE_UDP_ENCAP_VALID_PORT_MIN	(0xC000)
#define IB_ROCE_UDP_ENCAP_VALID_PORT_MAX	(0xFFFF)
#define IB_GRH_FLOWLABEL_MASK			(0x000FFFFF)

/* [any] a 32-bit LID field that must hold an InfiniBand (16-bit) LID */
static inline u16 ib_lid_cpu16(u32 lid)
{
	WARN_ON_ONCE(lid > U16_MAX);
	return (u16)lid;
}

static inline __be16 ib_lid_be16(u32 lid)
{
	return cpu_to_be16(ib_lid_cpu16(lid));
}

/* [any] a 20-bit flow label from the two QP numbers of a connection */
static inline u32 rdma_calc_flow_label(u32 lqpn, u32 rqpn)
{
	u64 mix = (u64)lqpn * rqpn;

	mix ^= mix >> 20;
	mix ^= mix >> 40;
	return (u32)mix & IB_GRH_FLOWLABEL_MASK;
}

/* [any] RoCEv2's UDP source port for a flow label: 14 bits folded into 0xC000.. */
static inline u16 rdma_flow_label_to_udp_sport(u32 fl)
{
	u32 low = fl & 0x3fff;

	low ^= (fl & 0xfc000) >> 14;
	return (u16)(low | IB_ROCE_UDP_ENCAP_VALID_PORT_MIN);
}

static inline u16 rdma_get_udp_sport(u32 fl, u32 lqpn, u32 rqpn)
{
	return rdma_flow_label_to_udp_sport(fl ? fl : rdma_calc_flow_label(lqpn, rqpn));
}

/* ---------------------------------------------------------------------- */
/*
 * DMA mapping for a device's consumers: the DMA API on dev->dma_device.
 * Upstream's software devices (rxe, siw) have no dma_device and use
 * kernel virtual addresses instead; every device of ours has one, so
 * ib_uses_virt_dma() is false.  [any] unless the DMA API says otherwise.
 */
static inline bool ib_uses_virt_dma(struct ib_device *dev)
{
	return !dev->dma_device;
}

/*
 * Whether the device can reach PCI peer-to-peer memory: we do not offer
 * it (a consumer then uses host memory).
 */
static inline bool ib_dma_pci_p2p_dma_supported(struct ib_device *dev)
{
	return false;
}

static inline int ib_dma_mapping_error(struct ib_device *dev, u64 dma_addr)
{
	return dma_mapping_error(dev->dma_device, dma_addr);
}

static inline u64 ib_dma_map_single(struct ib_device *dev, void *cpu_addr, size_t size,
				    enum dma_data_direction direction)
{
	return dma_map_single(dev->dma_device, cpu_addr, size, direction);
}

static inline void ib_dma_unmap_single(struct ib_device *dev, u64 addr, size_t size,
				       enum dma_data_direction direction)
{
	dma_unmap_single(dev->dma_device, addr, size, direction);
}

static inline u64 ib_dma_map_page(struct ib_device *dev, struct page *page,
				  unsigned long offset, size_t size,
				  enum dma_data_direction direction)
{
	return dma_map_page(dev->dma_device, page, offset, size, direction);
}

static inline void ib_dma_unmap_page(struct ib_device *dev, u64 addr, size_t size,
				     enum dma_data_direction direction)
{
	dma_unmap_page(dev->dma_device, addr, size, direction);
}

/* the virtual-DMA path of software devices: never taken here (0 mapped) */
int ib_dma_virt_map_sg(struct ib_device *dev, struct scatterlist *sg, int nents);

static inline int ib_dma_map_sg_attrs(struct ib_device *dev, struct scatterlist *sg,
				      int nents, enum dma_data_direction direction,
				      unsigned long dma_attrs)
{
	if (ib_uses_virt_dma(dev))
		return ib_dma_virt_map_sg(dev, sg, nents);
	return dma_map_sg_attrs(dev->dma_device, sg, nents, direction, dma_attrs);
}

static inline void ib_dma_unmap_sg_attrs(struct ib_device *dev, struct scatterlist *sg,
					 int nents, enum dma_data_direction direction,
					 unsigned long dma_attrs)
{
	if (!ib_uses_virt_dma(dev))
		dma_unmap_sg_attrs(dev->dma_device, sg, nents, direction, dma_attrs);
}

/* 0 or -errno; sgt->nents is the number of mapped entries */
static inline int ib_dma_map_sgtable_attrs(struct ib_device *dev, struct sg_table *sgt,
					   enum dma_data_direction direction,
					   unsigned long dma_attrs)
{
	int nents;

	if (!ib_uses_virt_dma(dev))
		return dma_map_sgtable(dev->dma_device, sgt, direction, dma_attrs);
	nents = ib_dma_virt_map_sg(dev, sgt->sgl, sgt->orig_nents);
	if (!nents)
		return -EIO;
	sgt->nents = nents;
	return 0;
}

static inline void ib_dma_unmap_sgtable_attrs(struct ib_device *dev, struct sg_table *sgt,
					      enum dma_data_direction direction,
					      unsigned long dma_attrs)
{
	if (!ib_uses_virt_dma(dev))
		dma_unmap_sgtable(dev->dma_device, sgt, direction, dma_attrs);
}

/* the number of mapped entries, 0 on failure */
static inline int ib_dma_map_sg(struct ib_device *dev, struct scatterlist *sg, int nents,
				enum dma_data_direction direction)
{
	return ib_dma_map_sg_attrs(dev, sg, nents, direction, 0);
}

static inline void ib_dma_unmap_sg(struct ib_device *dev, struct scatterlist *sg, int nents,
				   enum dma_data_direction direction)
{
	ib_dma_unmap_sg_attrs(dev, sg, nents, direction, 0);
}

/* the largest scatter/gather element the device maps */
static inline unsigned int ib_dma_max_seg_size(struct ib_device *dev)
{
	if (ib_uses_virt_dma(dev))
		return UINT_MAX;
	return dma_get_max_seg_size(dev->dma_device);
}

static inline void ib_dma_sync_single_for_cpu(struct ib_device *dev, u64 addr,
					      size_t size, enum dma_data_direction dir)
{
	dma_sync_single_for_cpu(dev->dma_device, addr, size, dir);
}

static inline void ib_dma_sync_single_for_device(struct ib_device *dev, u64 addr,
						 size_t size, enum dma_data_direction dir)
{
	dma_sync_single_for_device(dev->dma_device, addr, size, dir);
}

/* ---------------------------------------------------------------------- */
/* RDMA netdevs and SR-IOV (core/netdev.c) */

/*
 * [sleep] A netdev of type on the port from the driver's parameters
 * (alloc_netdev_mqs() with them); ERR_PTR(-EOPNOTSUPP) if the driver
 * offers none (mlx4_ib: IPoIB then makes its own), -EINVAL for a bad port.
 */
struct net_device *rdma_alloc_netdev(struct ib_device *device, u32 port_num,
				     enum rdma_netdev_t type, const char *name,
				     unsigned char name_assign_type,
				     void (*setup)(struct net_device *));
/* [sleep] The driver's initialisation of a netdev the ULP allocated. */
int rdma_init_netdev(struct ib_device *device, u32 port_num,
		     enum rdma_netdev_t type, const char *name,
		     unsigned char name_assign_type,
		     void (*setup)(struct net_device *),
		     struct net_device *netdev);

/* [sleep] A virtual function's controls; -EOPNOTSUPP without SR-IOV. */
int ib_set_vf_link_state(struct ib_device *device, int vf, u32 port, int state);
int ib_get_vf_config(struct ib_device *device, int vf, u32 port,
		     struct ifla_vf_info *info);
int ib_get_vf_stats(struct ib_device *device, int vf, u32 port,
		    struct ifla_vf_stats *stats);
int ib_get_vf_guid(struct ib_device *device, int vf, u32 port,
		   struct ifla_vf_guid *node_guid,
		   struct ifla_vf_guid *port_guid);
int ib_set_vf_guid(struct ib_device *device, int vf, u32 port, u64 guid,
		   int type);

/* ---------------------------------------------------------------------- */
/*
 * Log lines about a device (core/ibdev_print.c): "<driver> <PCI function>
 * <device>: message" at the level of the function's name; the
 * _ratelimited forms print at most DEFAULT_RATELIMIT_BURST lines per
 * DEFAULT_RATELIMIT_INTERVAL at each call site.  [any]
 */
__printf(3, 4) __cold
void ibdev_printk(const char *level, const struct ib_device *ibdev,
		  const char *format, ...);
__printf(2, 3) __cold
void ibdev_emerg(const struct ib_device *ibdev, const char *format, ...);
__printf(2, 3) __cold
void ibdev_alert(const struct ib_device *ibdev, const char *format, ...);
__printf(2, 3) __cold
void ibdev_crit(const struct ib_device *ibdev, const char *format, ...);
__printf(2, 3) __cold
void ibdev_err(const struct ib_device *ibdev, const char *format, ...);
__printf(2, 3) __cold
void ibdev_warn(const struct ib_device *ibdev, const char *format, ...);
__printf(2, 3) __cold
void ibdev_notice(const struct ib_device *ibdev, const char *format, ...);
__printf(2, 3) __cold
void ibdev_info(const struct ib_device *ibdev, const char *format, ...);

#define ibdev_level_ratelimited(ibdev_level, ibdev, fmt, ...)		\
do {									\
	static DEFINE_RATELIMIT_STATE(_ibdev_rs, DEFAULT_RATELIMIT_INTERVAL, \
				      DEFAULT_RATELIMIT_BURST);		\
	if (__ratelimit(&_ibdev_rs))					\
		ibdev_level(ibdev, fmt, ##__VA_ARGS__);			\
} while (0)

#define ibdev_emerg_ratelimited(ibdev, fmt, ...) \
	ibdev_level_ratelimited(ibdev_emerg, ibdev, fmt, ##__VA_ARGS__)
#define ibdev_alert_ratelimited(ibdev, fmt, ...) \
	ibdev_level_ratelimited(ibdev_alert, ibdev, fmt, ##__VA_ARGS__)
#define ibdev_crit_ratelimited(ibdev, fmt, ...) \
	ibdev_level_ratelimited(ibdev_crit, ibdev, fmt, ##__VA_ARGS__)
#define ibdev_err_ratelimited(ibdev, fmt, ...) \
	ibdev_level_ratelimited(ibdev_err, ibdev, fmt, ##__VA_ARGS__)
#define ibdev_warn_ratelimited(ibdev, fmt, ...) \
	ibdev_level_ratelimited(ibdev_warn, ibdev, fmt, ##__VA_ARGS__)
#define ibdev_notice_ratelimited(ibdev, fmt, ...) \
	ibdev_level_ratelimited(ibdev_notice, ibdev, fmt, ##__VA_ARGS__)
#define ibdev_info_ratelimited(ibdev, fmt, ...) \
	ibdev_level_ratelimited(ibdev_info, ibdev, fmt, ##__VA_ARGS__)

/*
 * ibdev_dbg(): a KERN_DEBUG line that dynamic debug switches on per call
 * site.  It calls ib_core's own emitter: the kernel's __dynamic_ibdev_dbg()
 * knows only the kernel's struct ib_device.
 */
#if defined(CONFIG_DYNAMIC_DEBUG) || \
	(defined(CONFIG_DYNAMIC_DEBUG_CORE) && defined(DYNAMIC_DEBUG_MODULE))
struct _ddebug;
__printf(3, 4) __cold
void ibstack_dynamic_ibdev_dbg(struct _ddebug *descriptor,
			       const struct ib_device *ibdev,
			       const char *format, ...);
/* the format of ibdev_dbg(ibdev, format, args...), for the call site's record */
#define IBSTACK_DBG_FORMAT(format, ...) format
#define ibdev_dbg(ibdev, ...)						\
	_dynamic_func_call(IBSTACK_DBG_FORMAT(__VA_ARGS__, 0),		\
			   ibstack_dynamic_ibdev_dbg, ibdev, __VA_ARGS__)
/* the call site's switch first, so a silent site takes no ratelimit */
#define ibdev_dbg_ratelimited(ibdev, ...)				\
do {									\
	static DEFINE_RATELIMIT_STATE(_ibdev_rs, DEFAULT_RATELIMIT_INTERVAL, \
				      DEFAULT_RATELIMIT_BURST);		\
	DEFINE_DYNAMIC_DEBUG_METADATA(_ibdev_ddebug,			\
				      IBSTACK_DBG_FORMAT(__VA_ARGS__, 0)); \
	if (DYNAMIC_DEBUG_BRANCH(_ibdev_ddebug) && __ratelimit(&_ibdev_rs)) \
		ibstack_dynamic_ibdev_dbg(&_ibdev_ddebug, ibdev, __VA_ARGS__); \
} while (0)
#elif defined(DEBUG)
#define ibdev_dbg(ibdev, fmt, ...) \
	ibdev_printk(KERN_DEBUG, ibdev, fmt, ##__VA_ARGS__)
#define ibdev_dbg_ratelimited(ibdev, fmt, ...) \
	ibdev_level_ratelimited(ibdev_dbg, ibdev, fmt, ##__VA_ARGS__)
#else
/* compiled out; the arguments still type-checked */
#define ibdev_dbg(ibdev, fmt, ...)					\
do {									\
	if (0)								\
		ibdev_printk(KERN_DEBUG, ibdev, fmt, ##__VA_ARGS__);	\
} while (0)
#define ibdev_dbg_ratelimited(ibdev, fmt, ...) ibdev_dbg(ibdev, fmt, ##__VA_ARGS__)
#endif

#endif /* IBSTACK_RDMA_IB_VERBS_H */

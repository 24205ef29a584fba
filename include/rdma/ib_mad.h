/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The MAD layer's kernel API (ib_mad.ko): management datagram agents on a
 * port's QP0 (SMI) and QP1 (GSI).  Used by ib_umad, ib_sa, ib_cm and IPoIB.
 * The wire layouts of MADs follow below; SMPs are in <rdma/ib_smi.h>, the
 * performance management class in <rdma/ib_pma.h>.
 *
 * Contexts, as in <rdma/ib_verbs.h>: [any] never sleeps; [sleep] process
 * context.  An agent's send_handler and recv_handler run in process context
 * (ib_mad's per-port work queue), never from the call chain of an ib_mad
 * call and never inside a completion handler; they may allocate with
 * GFP_KERNEL but should not block for long.  For one agent, handlers run
 * one at a time.
 *
 * Ownership:
 *  - a send buffer from ib_create_send_mad() belongs to the caller until it
 *    is posted; once posted, to ib_mad until send_handler is called with
 *    it, after which the caller owns it again and frees it with
 *    ib_free_send_mad() (or posts it again);
 *  - a receive (struct ib_mad_recv_wc) handed to recv_handler belongs to
 *    the agent, which releases it with ib_free_recv_mad();
 *  - ib_unregister_mad_agent() returns after every handler call of the
 *    agent has finished; posted sends still outstanding are completed to
 *    send_handler with IB_WC_WR_FLUSH_ERR before it returns.
 */
#ifndef IBSTACK_RDMA_IB_MAD_H
#define IBSTACK_RDMA_IB_MAD_H

#include <ibstack/no_kernel_ib.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/bitops.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/ib_user_mad.h>

/*
 * Management datagram layouts as they travel on the wire (IBA vol. 1,
 * chapters 13-16).  Every multi-byte field is big-endian.  The OPA names
 * are here for ULPs that test for them; this stack has no OPA ports.
 */
#define IB_MGMT_BASE_VERSION			1
#define OPA_MGMT_BASE_VERSION			0x80
#define OPA_SM_CLASS_VERSION			0x80

/* Management classes */
#define IB_MGMT_CLASS_SUBN_LID_ROUTED		0x01
#define IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE	0x81
#define IB_MGMT_CLASS_SUBN_ADM			0x03
#define IB_MGMT_CLASS_PERF_MGMT			0x04
#define IB_MGMT_CLASS_BM			0x05
#define IB_MGMT_CLASS_DEVICE_MGMT		0x06
#define IB_MGMT_CLASS_CM			0x07
#define IB_MGMT_CLASS_SNMP			0x08
#define IB_MGMT_CLASS_DEVICE_ADM		0x10
#define IB_MGMT_CLASS_BOOT_MGMT			0x11
#define IB_MGMT_CLASS_BIS			0x12
#define IB_MGMT_CLASS_CONG_MGMT			0x21
#define IB_MGMT_CLASS_VENDOR_RANGE2_START	0x30
#define IB_MGMT_CLASS_VENDOR_RANGE2_END		0x4f

/* The OUI of OpenIB's vendor classes (IEEE 00-14-05) */
#define IB_OPENIB_OUI				0x001405

/* Methods; a response is its request's method with IB_MGMT_METHOD_RESP */
#define IB_MGMT_METHOD_GET			0x01
#define IB_MGMT_METHOD_SET			0x02
#define IB_MGMT_METHOD_GET_RESP			0x81
#define IB_MGMT_METHOD_SEND			0x03
#define IB_MGMT_METHOD_TRAP			0x05
#define IB_MGMT_METHOD_REPORT			0x06
#define IB_MGMT_METHOD_REPORT_RESP		0x86
#define IB_MGMT_METHOD_TRAP_REPRESS		0x07
#define IB_MGMT_METHOD_RESP			0x80

/* Baseboard management: a response has bit 0 of the attribute modifier */
#define IB_BM_ATTR_MOD_RESP			cpu_to_be32(1)

#define IB_MGMT_MAX_METHODS			128

/* MAD status (host order; the wire field is __be16) */
#define IB_MGMT_MAD_STATUS_SUCCESS			0x0000
#define IB_MGMT_MAD_STATUS_BUSY				0x0001
#define IB_MGMT_MAD_STATUS_REDIRECT_REQD		0x0002
#define IB_MGMT_MAD_STATUS_BAD_VERSION			0x0004
#define IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD		0x0008
#define IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB	0x000c
#define IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE		0x001c

/* RMPP (IBA 13.6): version, segment types, flags, statuses */
#define IB_MGMT_RMPP_VERSION			1

#define IB_MGMT_RMPP_TYPE_DATA			1
#define IB_MGMT_RMPP_TYPE_ACK			2
#define IB_MGMT_RMPP_TYPE_STOP			3
#define IB_MGMT_RMPP_TYPE_ABORT			4

#define IB_MGMT_RMPP_FLAG_ACTIVE		1
#define IB_MGMT_RMPP_FLAG_FIRST			0x2
#define IB_MGMT_RMPP_FLAG_LAST			0x4

#define IB_MGMT_RMPP_NO_RESPTIME		0x1f

#define IB_MGMT_RMPP_STATUS_SUCCESS		0
#define IB_MGMT_RMPP_STATUS_RESX		1
#define IB_MGMT_RMPP_STATUS_ABORT_MIN		118
#define IB_MGMT_RMPP_STATUS_T2L			118
#define IB_MGMT_RMPP_STATUS_BAD_LEN		119
#define IB_MGMT_RMPP_STATUS_BAD_SEG		120
#define IB_MGMT_RMPP_STATUS_BADT		121
#define IB_MGMT_RMPP_STATUS_W2S			122
#define IB_MGMT_RMPP_STATUS_S2B			123
#define IB_MGMT_RMPP_STATUS_BAD_STATUS		124
#define IB_MGMT_RMPP_STATUS_UNV			125
#define IB_MGMT_RMPP_STATUS_TMR			126
#define IB_MGMT_RMPP_STATUS_UNSPEC		127
#define IB_MGMT_RMPP_STATUS_ABORT_MAX		127

/* The management QPs, QP1's Q_Key and the default partition */
#define IB_QP0					0
#define IB_QP1					cpu_to_be32(1)
#define IB_QP1_QKEY				0x80010000
#define IB_QP_SET_QKEY				0x80000000
#define IB_DEFAULT_PKEY_PARTIAL			0x7fff
#define IB_DEFAULT_PKEY_FULL			0xffff

/* Notice (trap) types, IBA 13.4.8.2 */
#define IB_NOTICE_TYPE_FATAL			0x80
#define IB_NOTICE_TYPE_URGENT			0x81
#define IB_NOTICE_TYPE_SECURITY			0x82
#define IB_NOTICE_TYPE_SM			0x83
#define IB_NOTICE_TYPE_INFO			0x84

/* Notice producer types (big-endian, as prod_type_lsb carries them) */
#define IB_NOTICE_PROD_CA			cpu_to_be16(1)
#define IB_NOTICE_PROD_SWITCH			cpu_to_be16(2)
#define IB_NOTICE_PROD_ROUTER			cpu_to_be16(3)
#define IB_NOTICE_PROD_CLASS_MGR		cpu_to_be16(4)

/* Header and data sizes of the MAD layouts, in bytes */
enum {
	IB_MGMT_MAD_HDR = 24,		/* common header */
	IB_MGMT_MAD_DATA = 232,
	IB_MGMT_RMPP_HDR = 36,		/* common + RMPP header */
	IB_MGMT_RMPP_DATA = 220,
	IB_MGMT_VENDOR_HDR = 40,	/* common + RMPP + OUI */
	IB_MGMT_VENDOR_DATA = 216,
	IB_MGMT_SA_HDR = 56,		/* common + RMPP + SA header */
	IB_MGMT_SA_DATA = 200,
	IB_MGMT_DEVICE_HDR = 64,
	IB_MGMT_DEVICE_DATA = 192,
	IB_MGMT_MAD_SIZE = IB_MGMT_MAD_HDR + IB_MGMT_MAD_DATA,
	OPA_MGMT_MAD_DATA = 2024,
	OPA_MGMT_RMPP_DATA = 2012,
	OPA_MGMT_MAD_SIZE = IB_MGMT_MAD_HDR + OPA_MGMT_MAD_DATA,
};

/* The common 24-byte MAD header. */
struct ib_mad_hdr {
	u8	base_version;
	u8	mgmt_class;
	u8	class_version;
	u8	method;
	__be16	status;
	__be16	class_specific;
	__be64	tid;
	__be16	attr_id;
	__be16	resv;
	__be32	attr_mod;
};

/* The RMPP header after the common header of RMPP classes. */
struct ib_rmpp_hdr {
	u8	rmpp_version;
	u8	rmpp_type;
	u8	rmpp_rtime_flags;	/* 7:3 response time, 2:0 flags */
	u8	rmpp_status;
	__be32	seg_num;
	__be32	paylen_newwin;
};

struct ib_mad {
	struct ib_mad_hdr	mad_hdr;
	u8			data[IB_MGMT_MAD_DATA];
};

struct opa_mad {
	struct ib_mad_hdr	mad_hdr;
	u8			data[OPA_MGMT_MAD_DATA];
};

struct ib_rmpp_mad {
	struct ib_mad_hdr	mad_hdr;
	struct ib_rmpp_hdr	rmpp_hdr;
	u8			data[IB_MGMT_RMPP_DATA];
};

struct opa_rmpp_mad {
	struct ib_mad_hdr	mad_hdr;
	struct ib_rmpp_hdr	rmpp_hdr;
	u8			data[OPA_MGMT_RMPP_DATA];
};

/* Vendor classes of range 2 (0x30-0x4f) carry an OUI after the RMPP header. */
struct ib_vendor_mad {
	struct ib_mad_hdr	mad_hdr;
	struct ib_rmpp_hdr	rmpp_hdr;
	u8			reserved;
	u8			oui[3];
	u8			data[IB_MGMT_VENDOR_DATA];
};

/*
 * ClassPortInfo, the attribute every class has (IBA 13.4.8.1).  Its
 * attribute id is big-endian, for comparing with ib_mad_hdr.attr_id.
 */
#define IB_MGMT_CLASSPORTINFO_ATTR_ID		cpu_to_be16(0x0001)

/* cap_mask2_resp_time: CapabilityMask2 in bits 31:5, RespTimeValue in 4:0 */
#define IB_CLASS_PORT_INFO_RESP_TIME_MASK	0x1f
#define IB_CLASS_PORT_INFO_RESP_TIME_FIELD_SIZE	5

struct ib_class_port_info {
	u8			base_version;
	u8			class_version;
	__be16			capability_mask;
	__be32			cap_mask2_resp_time;
	u8			redirect_gid[16];
	__be32			redirect_tcslfl;	/* TClass 8, SL 4, FlowLabel 20 */
	__be16			redirect_lid;
	__be16			redirect_pkey;
	__be32			redirect_qp;
	__be32			redirect_qkey;
	u8			trap_gid[16];
	__be32			trap_tcslfl;
	__be16			trap_lid;
	__be16			trap_pkey;
	__be32			trap_hlqp;		/* HopLimit 8, QP 24 */
	__be32			trap_qkey;
};

/* PortInfo:CapabilityMask bits (IBA 14.2.5.6), host order */
enum ib_port_capability_mask_bits {
	IB_PORT_SM = 1 << 1,
	IB_PORT_NOTICE_SUP = 1 << 2,
	IB_PORT_TRAP_SUP = 1 << 3,
	IB_PORT_OPT_IPD_SUP = 1 << 4,
	IB_PORT_AUTO_MIGR_SUP = 1 << 5,
	IB_PORT_SL_MAP_SUP = 1 << 6,
	IB_PORT_MKEY_NVRAM = 1 << 7,
	IB_PORT_PKEY_NVRAM = 1 << 8,
	IB_PORT_LED_INFO_SUP = 1 << 9,
	IB_PORT_SM_DISABLED = 1 << 10,
	IB_PORT_SYS_IMAGE_GUID_SUP = 1 << 11,
	IB_PORT_PKEY_SW_EXT_PORT_TRAP_SUP = 1 << 12,
	IB_PORT_EXTENDED_SPEEDS_SUP = 1 << 14,
	IB_PORT_CAP_MASK2_SUP = 1 << 15,
	IB_PORT_CM_SUP = 1 << 16,
	IB_PORT_SNMP_TUNNEL_SUP = 1 << 17,
	IB_PORT_REINIT_SUP = 1 << 18,
	IB_PORT_DEVICE_MGMT_SUP = 1 << 19,
	IB_PORT_VENDOR_CLASS_SUP = 1 << 20,
	IB_PORT_DR_NOTICE_SUP = 1 << 21,
	IB_PORT_CAP_MASK_NOTICE_SUP = 1 << 22,
	IB_PORT_BOOT_MGMT_SUP = 1 << 23,
	IB_PORT_LINK_LATENCY_SUP = 1 << 24,
	IB_PORT_CLIENT_REG_SUP = 1 << 25,
	IB_PORT_OTHER_LOCAL_CHANGES_SUP = 1 << 26,
	IB_PORT_LINK_SPEED_WIDTH_TABLE_SUP = 1 << 27,
	IB_PORT_VENDOR_SPECIFIC_MADS_TABLE_SUP = 1 << 28,
	IB_PORT_MCAST_PKEY_TRAP_SUPPRESSION_SUP = 1 << 29,
	IB_PORT_MCAST_FDB_TOP_SUP = 1 << 30,
	IB_PORT_HIERARCHY_INFO_SUP = 1ULL << 31,
};

/* PortInfo:CapabilityMask2 bits, host order */
enum ib_port_capability_mask2_bits {
	IB_PORT_SET_NODE_DESC_SUP		= 1 << 0,
	IB_PORT_EX_PORT_INFO_EX_SUP		= 1 << 1,
	IB_PORT_VIRT_SUP			= 1 << 2,
	IB_PORT_SWITCH_PORT_STATE_TABLE_SUP	= 1 << 3,
	IB_PORT_LINK_WIDTH_2X_SUP		= 1 << 4,
	IB_PORT_LINK_SPEED_HDR_SUP		= 1 << 5,
	IB_PORT_LINK_SPEED_NDR_SUP		= 1 << 10,
};

/* OPA's ClassPortInfo (an OPA-only layout; no port of ours uses it) */
#define OPA_CLASS_PORT_INFO_PR_SUPPORT		BIT(26)

struct opa_class_port_info {
	u8	base_version;
	u8	class_version;
	__be16	cap_mask;
	__be32	cap_mask2_resp_time;
	u8	redirect_gid[16];
	__be32	redirect_tc_fl;
	__be32	redirect_lid;
	__be32	redirect_sl_qp;
	__be32	redirect_qkey;
	u8	trap_gid[16];
	__be32	trap_tc_fl;
	__be32	trap_lid;
	__be32	trap_hl_qp;
	__be32	trap_qkey;
	__be16	trap_pkey;
	__be16	redirect_pkey;
	u8	trap_sl_rsvd;
	u8	reserved[3];
} __packed;

/* [any] RespTimeValue of a ClassPortInfo */
static inline u8 ib_get_cpi_resp_time(struct ib_class_port_info *cpi)
{
	return be32_to_cpu(cpi->cap_mask2_resp_time) &
	       IB_CLASS_PORT_INFO_RESP_TIME_MASK;
}

/* [any] sets RespTimeValue, keeping CapabilityMask2 */
static inline void ib_set_cpi_resp_time(struct ib_class_port_info *cpi, u8 rtime)
{
	u32 v = be32_to_cpu(cpi->cap_mask2_resp_time);

	v &= ~IB_CLASS_PORT_INFO_RESP_TIME_MASK;
	v |= rtime & IB_CLASS_PORT_INFO_RESP_TIME_MASK;
	cpi->cap_mask2_resp_time = cpu_to_be32(v);
}

/* [any] CapabilityMask2 of a ClassPortInfo */
static inline u32 ib_get_cpi_capmask2(struct ib_class_port_info *cpi)
{
	return be32_to_cpu(cpi->cap_mask2_resp_time) >>
	       IB_CLASS_PORT_INFO_RESP_TIME_FIELD_SIZE;
}

/* [any] sets CapabilityMask2 (its 27 low bits), keeping RespTimeValue */
static inline void ib_set_cpi_capmask2(struct ib_class_port_info *cpi, u32 capmask2)
{
	u32 v = be32_to_cpu(cpi->cap_mask2_resp_time);

	v &= IB_CLASS_PORT_INFO_RESP_TIME_MASK;
	v |= capmask2 << IB_CLASS_PORT_INFO_RESP_TIME_FIELD_SIZE;
	cpi->cap_mask2_resp_time = cpu_to_be32(v);
}

/* [any] CapabilityMask2 of an OPA ClassPortInfo */
static inline u32 opa_get_cpi_capmask2(struct opa_class_port_info *cpi)
{
	return be32_to_cpu(cpi->cap_mask2_resp_time) >>
	       IB_CLASS_PORT_INFO_RESP_TIME_FIELD_SIZE;
}

/*
 * The Notice attribute (IBA 13.4.8.2): a trap's header, then 54 bytes of
 * details whose layout depends on the trap number.
 */
struct ib_mad_notice_attr {
	u8	generic_type;		/* 7 IsGeneric, 6:0 Type */
	u8	prod_type_msb;
	__be16	prod_type_lsb;
	__be16	trap_num;
	__be16	issuer_lid;
	__be16	toggle_count;		/* 15 Toggle, 14:0 Count */

	union {
		struct {
			u8	details[54];
		} raw_data;

		/* traps 129-131: a link integrity or flow control event */
		struct {
			__be16	reserved;
			__be16	lid;
			u8	port_num;
		} __packed ntc_129_131;

		/* trap 144: the port's capabilities or other local items changed */
		struct {
			__be16	reserved;
			__be16	lid;
			u8	reserved2;
			u8	local_changes;	/* bit 0 */
			__be32	new_cap_mask;
			u8	reserved3;
			u8	change_flags;	/* bits 2:0 */
		} __packed ntc_144;

		/* trap 145: SystemImageGUID changed */
		struct {
			__be16	reserved;
			__be16	lid;
			__be16	reserved2;
			__be64	new_sys_guid;
		} __packed ntc_145;

		/* trap 256: an SMP with a bad M_Key */
		struct {
			__be16	reserved;
			__be16	lid;
			__be16	dr_slid;
			u8	method;
			u8	reserved2;
			__be16	attr_id;
			__be32	attr_mod;
			__be64	mkey;
			u8	reserved3;
			u8	dr_trunc_hop;
			u8	dr_rtn_path[30];
		} __packed ntc_256;

		/* traps 257, 258: a bad P_Key or Q_Key */
		struct {
			__be16		reserved;
			__be16		lid1;
			__be16		lid2;
			__be32		key;
			__be32		sl_qp1;		/* 31:28 SL, 23:0 QP */
			__be32		qp2;		/* 23:0 */
			union ib_gid	gid1;
			union ib_gid	gid2;
		} __packed ntc_257_258;
	} details;
};

/*
 * A send: one MAD, or an RMPP message of seg_count segments.  mad points at
 * hdr_len bytes of headers followed by the first segment's data; for an
 * RMPP message the data of segment n (1-based) is at
 * ib_get_rmpp_segment(buf, n).  Filled by ib_create_send_mad(); the caller
 * sets ah (for UD addressing: an AH on the agent's device), timeout_ms
 * (0: no response expected, the send completes when sent), retries (the
 * most to make; once posted it counts the retries made, so the send
 * handler sees how many there were) and context[].
 */
struct ib_mad_send_buf {
	struct ib_mad_send_buf	*next;		/* for ib_post_send_mad() lists */
	void			*mad;		/* headers + first segment */
	struct ib_mad_agent	*mad_agent;
	struct ib_ah		*ah;
	void			*context[2];	/* the caller's */
	int			hdr_len;
	int			data_len;	/* total payload, all segments */
	int			seg_count;
	int			seg_size;	/* payload bytes per segment */
	int			seg_rmpp_size;	/* seg_size + hdr_len */
	int			timeout_ms;
	int			retries;
};

/*
 * [any] Whether hdr is a response (to a request or a trap): a method with
 * the response bit, TrapRepress, or a baseboard management MAD with
 * IB_BM_ATTR_MOD_RESP.  1 or 0.
 */
int ib_response_mad(const struct ib_mad_hdr *hdr);

/* [any] the RMPP header's response time and flags, and setting them */
static inline u8 ib_get_rmpp_resptime(struct ib_rmpp_hdr *rmpp_hdr)
{
	return rmpp_hdr->rmpp_rtime_flags >> 3;
}

static inline u8 ib_get_rmpp_flags(struct ib_rmpp_hdr *rmpp_hdr)
{
	return rmpp_hdr->rmpp_rtime_flags & 0x7;
}

static inline void ib_set_rmpp_resptime(struct ib_rmpp_hdr *rmpp_hdr, u8 rtime)
{
	rmpp_hdr->rmpp_rtime_flags = ib_get_rmpp_flags(rmpp_hdr) | (rtime << 3);
}

static inline void ib_set_rmpp_flags(struct ib_rmpp_hdr *rmpp_hdr, u8 flags)
{
	rmpp_hdr->rmpp_rtime_flags = (rmpp_hdr->rmpp_rtime_flags & 0xf8) |
				     (flags & 0x7);
}

struct ib_mad_agent;
struct ib_mad_send_wc;
struct ib_mad_recv_wc;

/*
 * A send completed (sent, answered, timed out, canceled or failed).  For a
 * request with timeout_ms, the matching response reaches recv_handler with
 * its send_buf first, then send_handler is called with IB_WC_SUCCESS.
 */
typedef void (*ib_mad_send_handler)(struct ib_mad_agent *mad_agent,
				    struct ib_mad_send_wc *mad_send_wc);
/*
 * A MAD arrived for the agent: send_buf is the request this is the response
 * to (matched by TID, class and the agent), or NULL for an unsolicited MAD.
 */
typedef void (*ib_mad_recv_handler)(struct ib_mad_agent *mad_agent,
				    struct ib_mad_send_buf *send_buf,
				    struct ib_mad_recv_wc *mad_recv_wc);

/* ib_register_mad_agent() registration_flags */
enum {
	/*
	 * The agent does RMPP itself (user-space RMPP through ib_umad): the
	 * MAD layer passes RMPP segments through without reassembly or
	 * segmentation although rmpp_version is set.
	 */
	IB_MAD_USER_RMPP = IB_USER_MAD_USER_RMPP,
};

/*
 * Fields filled by ib_register_mad_agent(); read-only to the agent.
 * security, mad_agent_sec_list and smp_allowed belong to the InfiniBand
 * LSM hooks, which this stack does not have (as a kernel built without
 * CONFIG_SECURITY_INFINIBAND, Debian's): security is NULL, the list empty,
 * smp_allowed false, and nothing consults them.
 */
struct ib_mad_agent {
	struct ib_device	*device;
	struct ib_qp		*qp;		/* the port's QP0 or QP1 */
	ib_mad_recv_handler	recv_handler;
	ib_mad_send_handler	send_handler;
	void			*context;	/* the agent's */
	u32			hi_tid;		/* upper 32 bits of the TIDs it sends */
	u32			flags;		/* IB_MAD_USER_RMPP or 0 */
	void			*security;
	struct list_head	mad_agent_sec_list;
	u8			port_num;
	u8			rmpp_version;
	bool			smp_allowed;
};

struct ib_mad_send_wc {
	struct ib_mad_send_buf	*send_buf;
	enum ib_wc_status	status;	/* IB_WC_RESP_TIMEOUT_ERR: no response */
	u32			vendor_err;
};

/*
 * One received MAD buffer (one segment of a reassembled RMPP message).
 * grh is valid when the receive's wc has IB_WC_GRH.  Every MAD here is an
 * IB MAD of 256 bytes: opa_mad (the same pointer) is never used.
 */
struct ib_mad_recv_buf {
	struct list_head	list;		/* in ib_mad_recv_wc.rmpp_list */
	struct ib_grh		*grh;
	union {
		struct ib_mad	*mad;
		struct opa_mad	*opa_mad;
	};
};

/*
 * A received MAD or a reassembled RMPP message.  recv_buf is the first
 * segment; rmpp_list lists every segment in order (recv_buf included).
 * mad_len: for RMPP, the header of the first segment plus the payload of
 * every segment (what a user sees as one MAD); otherwise 256.
 */
struct ib_mad_recv_wc {
	struct ib_wc		*wc;
	struct ib_mad_recv_buf	recv_buf;
	struct list_head	rmpp_list;
	int			mad_len;
	size_t			mad_seg_size;	/* 256 */
};

/*
 * What unsolicited MADs an agent receives: every MAD of this class and
 * class version whose method bit is set (requests; responses go to the
 * agent whose TID they carry).  For vendor classes 0x30-0x4f, only those
 * with this OUI.  At most one agent per (port, class, version, method[,
 * OUI]): a second registration claiming a taken method fails with -EINVAL
 * (as upstream's).
 */
struct ib_mad_reg_req {
	u8		mgmt_class;
	u8		mgmt_class_version;
	u8		oui[3];
	DECLARE_BITMAP(method_mask, IB_MGMT_MAX_METHODS);
};

/*
 * [sleep] Registers an agent on port_num's QP0 (qp_type IB_QPT_SMI) or QP1
 * (IB_QPT_GSI).  mad_reg_req NULL: the agent only sends (and receives the
 * responses to its own requests).  rmpp_version 0 or IB_MGMT_RMPP_VERSION
 * (for classes that use RMPP: SA, vendor range 2, ...).  Returns the agent
 * or an ERR_PTR: -EINVAL for a bad port, QP type, class, version or method
 * (a response method, a class version >= 0x80...) and for a method another
 * agent of the port already claims, -ENODEV if the device has no MAD ports
 * (ib_mad is not on it), -ENOMEM.  hi_tid is unique among the registered
 * agents and below 2^24.
 */
struct ib_mad_agent *ib_register_mad_agent(struct ib_device *device, u32 port_num,
					   enum ib_qp_type qp_type,
					   struct ib_mad_reg_req *mad_reg_req,
					   u8 rmpp_version,
					   ib_mad_send_handler send_handler,
					   ib_mad_recv_handler recv_handler,
					   void *context, u32 registration_flags);

/* [sleep] See "Ownership" above. */
void ib_unregister_mad_agent(struct ib_mad_agent *mad_agent);

/*
 * [any] Posts a list of sends (linked through next).  The TID's upper 32
 * bits are the agent's hi_tid for requests (the caller sets the lower 32).
 * On error *bad_send_buf (if not NULL) is the first not posted: -EINVAL
 * for a bad MAD (wrong agent, missing AH, oversized...), -ENETDOWN... as
 * the QP refuses it, -ENOMEM.
 */
int ib_post_send_mad(struct ib_mad_send_buf *send_buf,
		     struct ib_mad_send_buf **bad_send_buf);

/* [any] releases a receive handed to recv_handler (every segment) */
void ib_free_recv_mad(struct ib_mad_recv_wc *mad_recv_wc);

/*
 * [any] Changes the timeout of a posted send still waiting for its
 * response; 0 cancels it: the send completes with IB_WC_WR_FLUSH_ERR.
 * -EINVAL if it is no longer outstanding.
 */
int ib_modify_mad(struct ib_mad_send_buf *send_buf, u32 timeout_ms);

/* [any] Completes a posted send with IB_WC_WR_FLUSH_ERR (no-op if done). */
static inline void ib_cancel_mad(struct ib_mad_send_buf *send_buf)
{
	ib_modify_mad(send_buf, 0);
}

/*
 * [any] Allocates a send: hdr_len bytes of headers (IB_MGMT_MAD_HDR,
 * IB_MGMT_SA_HDR, ...) and data_len bytes of payload, zeroed.  rmpp_active:
 * an RMPP message of as many segments as data_len needs (the agent must
 * have rmpp_version; the MAD layer fills each segment's RMPP header).
 * Without rmpp_active, hdr_len + data_len must fit in 256 bytes.
 * remote_qpn/pkey_index address the peer's QP (with ah).  base_version is
 * IB_MGMT_BASE_VERSION.  ERR_PTR(-EINVAL) for sizes that do not fit,
 * ERR_PTR(-ENOMEM).
 */
struct ib_mad_send_buf *ib_create_send_mad(struct ib_mad_agent *mad_agent,
					   u32 remote_qpn, u16 pkey_index,
					   int rmpp_active, int hdr_len,
					   int data_len, gfp_t gfp_mask,
					   u8 base_version);

/* [any] 1 if the class uses RMPP (SA, vendor range 2, ...), else 0 */
int ib_is_mad_class_rmpp(u8 mgmt_class);

/* [any] bytes of headers before the data of a class's MADs (24, 36, 40, 56, 64) */
int ib_get_mad_data_offset(u8 mgmt_class);

/* [any] payload of segment seg_num (1-based) of an RMPP send */
void *ib_get_rmpp_segment(struct ib_mad_send_buf *send_buf, int seg_num);

/* [any] a send that is not (or no longer) posted */
void ib_free_send_mad(struct ib_mad_send_buf *send_buf);

/* [any] 1 if the agent's RMPP is done by the kernel (rmpp_version, no USER_RMPP) */
int ib_mad_kernel_rmpp_agent(const struct ib_mad_agent *agent);

/*
 * --- The SA class's MAD (IBA 15.2.1; owned by step S2C) ---
 *
 * The SA header follows the RMPP header; ComponentMask says which fields
 * of the record in data are meaningful.  ib_sa_comp_mask holds it as on
 * the wire (big-endian), bit n built with IB_SA_COMP_MASK(n); sparse
 * keeps it apart from plain integers.  Both structs are packed: the
 * 64-bit fields are only 32-bit aligned on the wire.
 */
typedef u64 __bitwise ib_sa_comp_mask;

#define IB_SA_COMP_MASK(n)	((__force ib_sa_comp_mask)cpu_to_be64(1ULL << (n)))

struct ib_sa_hdr {
	__be64			sm_key;
	__be16			attr_offset;	/* in 8-byte words */
	__be16			reserved;
	ib_sa_comp_mask		comp_mask;
} __packed;

struct ib_sa_mad {
	struct ib_mad_hdr	mad_hdr;
	struct ib_rmpp_hdr	rmpp_hdr;
	struct ib_sa_hdr	sa_hdr;
	u8			data[IB_MGMT_SA_DATA];
} __packed;

#endif /* IBSTACK_RDMA_IB_MAD_H */

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

/*
 * Management datagram layouts as they travel on the wire (IBA vol. 1,
 * chapters 13-16).  Every multi-byte field is big-endian.
 */
#define IB_MGMT_MAD_SIZE	256
#define IB_MGMT_MAD_HDR		24
#define IB_MGMT_MAD_DATA	232
#define IB_MGMT_RMPP_DATA	220

/* Management classes */
#define IB_MGMT_CLASS_SUBN_LID_ROUTED		0x01
#define IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE	0x81
#define IB_MGMT_CLASS_SUBN_ADM			0x03
#define IB_MGMT_CLASS_PERF_MGMT			0x04
#define IB_MGMT_CLASS_BM			0x05
#define IB_MGMT_CLASS_DEVICE_MGMT		0x06
#define IB_MGMT_CLASS_CM			0x07
#define IB_MGMT_CLASS_SNMP			0x08
#define IB_MGMT_CLASS_VENDOR_RANGE2_START	0x30
#define IB_MGMT_CLASS_VENDOR_RANGE2_END		0x4f
#define IB_MGMT_CLASS_CONG_MGMT			0x21
#define IB_MGMT_CLASS_BIS			0x12
#define IB_MGMT_CLASS_DEVICE_ADM		0x10
#define IB_MGMT_CLASS_BOOT_MGMT			0x11

#define IB_MGMT_BASE_VERSION		1
#define IB_MGMT_CLASS_VERSION		1
#define IB_SA_CLASS_VERSION		2
#define IB_PMA_CLASS_VERSION		1

/* Methods */
#define IB_MGMT_METHOD_GET		0x01
#define IB_MGMT_METHOD_SET		0x02
#define IB_MGMT_METHOD_GET_RESP		0x81
#define IB_MGMT_METHOD_SEND		0x03
#define IB_MGMT_METHOD_TRAP		0x05
#define IB_MGMT_METHOD_REPORT		0x06
#define IB_MGMT_METHOD_REPORT_RESP	0x86
#define IB_MGMT_METHOD_TRAP_REPRESS	0x07
#define IB_MGMT_METHOD_GET_TABLE	0x12
#define IB_MGMT_METHOD_GET_TABLE_RESP	0x92
#define IB_MGMT_METHOD_DELETE		0x15
#define IB_MGMT_METHOD_DELETE_RESP	0x95
#define IB_MGMT_METHOD_RESP		0x80

/* MAD status (host order; the wire field is __be16) */
#define IB_MGMT_MAD_STATUS_SUCCESS			0x0000
#define IB_MGMT_MAD_STATUS_BUSY				0x0001
#define IB_MGMT_MAD_STATUS_REDIRECT_REQD		0x0002
#define IB_MGMT_MAD_STATUS_BAD_VERSION			0x0004
#define IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD		0x0008
#define IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB	0x000c
#define IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE		0x001c

/* The attribute every class has (host order; the wire field is __be16) */
#define IB_MGMT_CLASSPORTINFO_ATTR_ID	0x0001

#define IB_QP0				0
#define IB_QP1				cpu_to_be32(1)
#define IB_QP1_QKEY			0x80010000
#define IB_QP_SET_QKEY			0x80000000
#define IB_DEFAULT_PKEY_PARTIAL		0x7fff
#define IB_DEFAULT_PKEY_FULL		0xffff

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
} __packed;

struct ib_mad {
	struct ib_mad_hdr	mad_hdr;
	u8			data[IB_MGMT_MAD_DATA];
} __packed;

/* RMPP (IBA 13.6): the header after the common MAD header of RMPP classes. */
#define IB_MGMT_RMPP_VERSION		1
#define IB_MGMT_RMPP_HDR		36	/* common + RMPP header */
#define IB_MGMT_SA_HDR			56	/* common + RMPP + SA header */
#define IB_MGMT_VENDOR_HDR		40	/* common + RMPP + OUI */
#define IB_MGMT_DEVICE_HDR		64
#define IB_MGMT_SA_DATA			200
#define IB_MGMT_VENDOR_DATA		216
#define IB_MGMT_DEVICE_DATA		192

#define IB_MGMT_RMPP_TYPE_DATA		1
#define IB_MGMT_RMPP_TYPE_ACK		2
#define IB_MGMT_RMPP_TYPE_STOP		3
#define IB_MGMT_RMPP_TYPE_ABORT		4

#define IB_MGMT_RMPP_FLAG_ACTIVE	BIT(0)
#define IB_MGMT_RMPP_FLAG_FIRST		BIT(1)
#define IB_MGMT_RMPP_FLAG_LAST		BIT(2)

#define IB_MGMT_RMPP_NO_RESPTIME	0x1f

#define IB_MGMT_RMPP_STATUS_SUCCESS	0
#define IB_MGMT_RMPP_STATUS_RESX	1
#define IB_MGMT_RMPP_STATUS_ABORT_MIN	118
#define IB_MGMT_RMPP_STATUS_T2L		118
#define IB_MGMT_RMPP_STATUS_BAD_LEN	119
#define IB_MGMT_RMPP_STATUS_BAD_SEG	120
#define IB_MGMT_RMPP_STATUS_BADT	121
#define IB_MGMT_RMPP_STATUS_W2S		122
#define IB_MGMT_RMPP_STATUS_S2B		123
#define IB_MGMT_RMPP_STATUS_BAD_STATUS	124
#define IB_MGMT_RMPP_STATUS_UNV		125
#define IB_MGMT_RMPP_STATUS_TMR		126
#define IB_MGMT_RMPP_STATUS_UNSPEC	127
#define IB_MGMT_RMPP_STATUS_ABORT_MAX	127

struct ib_rmpp_hdr {
	u8	rmpp_version;
	u8	rmpp_type;
	u8	rmpp_rtime_flags;	/* 7:3 response time, 2:0 flags */
	u8	rmpp_status;
	__be32	seg_num;
	__be32	paylen_newwin;
} __packed;

struct ib_rmpp_mad {
	struct ib_mad_hdr	mad_hdr;
	struct ib_rmpp_hdr	rmpp_hdr;
	u8			data[IB_MGMT_RMPP_DATA];
} __packed;

/* Vendor classes of range 2 (0x30-0x4f) carry an OUI after the RMPP header. */
struct ib_vendor_mad {
	struct ib_mad_hdr	mad_hdr;
	struct ib_rmpp_hdr	rmpp_hdr;
	u8			reserved;
	u8			oui[3];
	u8			data[IB_MGMT_VENDOR_DATA];
} __packed;

static inline u8 ib_get_rmpp_resptime(const struct ib_rmpp_hdr *rmpp_hdr)
{
	return rmpp_hdr->rmpp_rtime_flags >> 3;
}

static inline u8 ib_get_rmpp_flags(const struct ib_rmpp_hdr *rmpp_hdr)
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

#define IB_MGMT_MAX_METHODS		128
#define IB_MAD_MAX_RETRIES		60	/* per send, upstream's limit */

/* ib_register_mad_agent() registration_flags */
enum ib_mad_reg_flags {
	/*
	 * The agent does RMPP itself (user-space RMPP through ib_umad): the
	 * MAD layer passes RMPP segments through without reassembly or
	 * segmentation although rmpp_version is set.
	 */
	IB_MAD_USER_RMPP = BIT(0),
};

struct ib_mad_agent;
struct ib_mad_send_wc;
struct ib_mad_recv_wc;

/*
 * A send: one MAD, or an RMPP message of seg_count segments.  mad points at
 * hdr_len bytes of headers followed by the first segment's data; for an
 * RMPP message the data of segment n (1-based) is at
 * ib_get_rmpp_segment(buf, n).  Filled by ib_create_send_mad(); the caller
 * sets ah (for UD addressing: an AH on the agent's device), timeout_ms
 * (0: no response expected, the send completes when sent), retries and
 * context[].
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
 * One received MAD buffer (one segment of a reassembled RMPP message).
 * grh is valid when the receive's wc has IB_WC_GRH.
 */
struct ib_mad_recv_buf {
	struct list_head	list;		/* in ib_mad_recv_wc.rmpp_list */
	struct ib_grh		*grh;
	struct ib_mad		*mad;
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

struct ib_mad_send_wc {
	struct ib_mad_send_buf	*send_buf;
	enum ib_wc_status	status;	/* IB_WC_RESP_TIMEOUT_ERR: no response */
	u32			vendor_err;
};

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

/* Fields filled by ib_register_mad_agent(); read-only to the agent. */
struct ib_mad_agent {
	struct ib_device	*device;
	struct ib_qp		*qp;		/* the port's QP0 or QP1 */
	ib_mad_recv_handler	recv_handler;
	ib_mad_send_handler	send_handler;
	void			*context;	/* the agent's */
	u32			hi_tid;		/* upper 32 bits of the TIDs it sends */
	u32			flags;		/* enum ib_mad_reg_flags */
	u32			port_num;
	u8			rmpp_version;
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

/* [any] payload of segment seg_num (1-based) of an RMPP send */
void *ib_get_rmpp_segment(struct ib_mad_send_buf *send_buf, int seg_num);

/* [any] a send that is not (or no longer) posted */
void ib_free_send_mad(struct ib_mad_send_buf *send_buf);

/*
 * [any] Posts a list of sends (linked through next).  The TID's upper 32
 * bits are the agent's hi_tid for requests (the caller sets the lower 32).
 * On error *bad_send_buf (if not NULL) is the first not posted: -EINVAL
 * for a bad MAD (wrong agent, missing AH, oversized...), -ENETDOWN... as
 * the QP refuses it, -ENOMEM.
 */
int ib_post_send_mad(struct ib_mad_send_buf *send_buf,
		     struct ib_mad_send_buf **bad_send_buf);

/* [any] Completes a posted send with IB_WC_WR_FLUSH_ERR (no-op if done). */
void ib_cancel_mad(struct ib_mad_send_buf *send_buf);

/*
 * [any] Changes the timeout of a posted send still waiting for its
 * response (0 cancels it).  -EINVAL if it is no longer outstanding.
 */
int ib_modify_mad(struct ib_mad_send_buf *send_buf, u32 timeout_ms);

/* [any] releases a receive handed to recv_handler (every segment) */
void ib_free_recv_mad(struct ib_mad_recv_wc *mad_recv_wc);

/* [any] helpers on classes and agents */
bool ib_is_mad_class_rmpp(u8 mgmt_class);
/* bytes of headers before the data of a class's MADs (24, 36, 40, 56, 64) */
int ib_get_mad_data_offset(u8 mgmt_class);
/* the agent's RMPP is done by the kernel (rmpp_version, no USER_RMPP) */
bool ib_mad_kernel_rmpp_agent(const struct ib_mad_agent *agent);

static inline bool ib_response_mad(const struct ib_mad_hdr *hdr)
{
	return (hdr->method & IB_MGMT_METHOD_RESP) ||
	       hdr->method == IB_MGMT_METHOD_TRAP_REPRESS ||
	       (hdr->mgmt_class == IB_MGMT_CLASS_BM &&
		(be32_to_cpu(hdr->attr_mod) & 1));
}

static inline bool ib_is_mad_class_vendor_range2(u8 mgmt_class)
{
	return mgmt_class >= IB_MGMT_CLASS_VENDOR_RANGE2_START &&
	       mgmt_class <= IB_MGMT_CLASS_VENDOR_RANGE2_END;
}

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

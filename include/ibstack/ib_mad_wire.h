/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Management datagram layouts as they travel on the wire (IBA vol. 1,
 * chapters 13-16).  Shared by ib_core (PMA counters in sysfs), the drivers'
 * process_mad and, later, ib_mad/ib_sa/ib_umad.  Every multi-byte field is
 * big-endian.
 */
#ifndef IBSTACK_IB_MAD_WIRE_H
#define IBSTACK_IB_MAD_WIRE_H

#include <ibstack/no_kernel_ib.h>
#include <linux/types.h>
#include <linux/compiler.h>

#define IB_MGMT_MAD_SIZE	256
#define IB_MGMT_MAD_HDR		24
#define IB_MGMT_MAD_DATA	232
#define IB_SMP_DATA_SIZE	64
#define IB_SMP_MAX_PATH_HOPS	64
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
#define IB_SMP_DIRECTION				0x8000

/* The attribute every class has (host order; the wire field is __be16) */
#define IB_MGMT_CLASSPORTINFO_ATTR_ID	0x0001

/* Subnet management attributes (host order; the wire field is __be16) */
#define IB_SMP_ATTR_NOTICE		0x0002
#define IB_SMP_ATTR_NODE_DESC		0x0010
#define IB_SMP_ATTR_NODE_INFO		0x0011
#define IB_SMP_ATTR_SWITCH_INFO		0x0012
#define IB_SMP_ATTR_GUID_INFO		0x0014
#define IB_SMP_ATTR_PORT_INFO		0x0015
#define IB_SMP_ATTR_PKEY_TABLE		0x0016
#define IB_SMP_ATTR_SL_TO_VL_TABLE	0x0017
#define IB_SMP_ATTR_VL_ARB_TABLE	0x0018
#define IB_SMP_ATTR_SM_INFO		0x0020
#define IB_SMP_ATTR_VENDOR_DIAG		0x0030
#define IB_SMP_ATTR_LED_INFO		0x0031

/* Performance management attributes */
#define IB_PMA_CLASS_PORT_INFO		0x0001
#define IB_PMA_PORT_COUNTERS		0x0012
#define IB_PMA_PORT_COUNTERS_EXT	0x001d

/* Result flags of a device's process_mad() */
#define IB_MAD_RESULT_FAILURE		0
#define IB_MAD_RESULT_SUCCESS		BIT(0)
#define IB_MAD_RESULT_REPLY		BIT(1)
#define IB_MAD_RESULT_CONSUMED		BIT(2)

/* mad_flags of process_mad() */
#define IB_MAD_IGNORE_MKEY		1
#define IB_MAD_IGNORE_BKEY		2
#define IB_MAD_IGNORE_ALL		(IB_MAD_IGNORE_MKEY | IB_MAD_IGNORE_BKEY)

#define IB_QP0				0
#define IB_QP1				cpu_to_be32(1)
#define IB_QP1_QKEY			0x80010000
#define IB_QP_SET_QKEY			0x80000000
#define IB_DEFAULT_PKEY_PARTIAL		0x7fff
#define IB_DEFAULT_PKEY_FULL		0xffff
#define IB_LID_PERMISSIVE		cpu_to_be16(0xffff)
#define IB_MULTICAST_QPN		0xffffff

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

/* Subnet management packet, LID-routed or directed-route. */
struct ib_smp {
	u8	base_version;
	u8	mgmt_class;
	u8	class_version;
	u8	method;
	__be16	status;
	u8	hop_ptr;
	u8	hop_cnt;
	__be64	tid;
	__be16	attr_id;
	__be16	resv;
	__be32	attr_mod;
	__be64	mkey;
	__be16	dr_slid;
	__be16	dr_dlid;
	u8	reserved[28];
	u8	data[IB_SMP_DATA_SIZE];
	u8	initial_path[IB_SMP_MAX_PATH_HOPS];
	u8	return_path[IB_SMP_MAX_PATH_HOPS];
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

/* Performance management: 40 reserved bytes precede the attribute data. */
struct ib_pma_mad {
	struct ib_mad_hdr	mad_hdr;
	u8			reserved[40];
	u8			data[192];
} __packed;

/* PortCounters (attribute 0x0012), the part after the 40 reserved bytes. */
struct ib_pma_portcounters {
	u8	reserved;
	u8	port_select;
	__be16	counter_select;
	__be16	symbol_error_counter;
	u8	link_error_recovery_counter;
	u8	link_downed_counter;
	__be16	port_rcv_errors;
	__be16	port_rcv_remphys_errors;
	__be16	port_rcv_switch_relay_errors;
	__be16	port_xmit_discards;
	u8	port_xmit_constraint_errors;
	u8	port_rcv_constraint_errors;
	u8	reserved1;
	u8	link_overrun_errors;	/* local link integrity (4), buffer overrun (4) */
	__be16	reserved2;
	__be16	vl15_dropped;
	__be32	port_xmit_data;
	__be32	port_rcv_data;
	__be32	port_xmit_packets;
	__be32	port_rcv_packets;
	__be32	port_xmit_wait;
} __packed;

/* PortCountersExtended (attribute 0x001d). */
struct ib_pma_portcounters_ext {
	u8	reserved;
	u8	port_select;
	__be16	counter_select;
	__be32	reserved1;
	__be64	port_xmit_data;
	__be64	port_rcv_data;
	__be64	port_xmit_packets;
	__be64	port_rcv_packets;
	__be64	port_unicast_xmit_packets;
	__be64	port_unicast_rcv_packets;
	__be64	port_multicast_xmit_packets;
	__be64	port_multicast_rcv_packets;
} __packed;

/* Global route header (40 bytes) as received ahead of UD payloads. */
struct ib_grh {
	__be32	version_tclass_flow;
	__be16	paylen;
	u8	next_hdr;
	u8	hop_limit;
	u8	sgid[16];
	u8	dgid[16];
} __packed;

static inline void ibstack_mad_wire_size_checks(void)
{
	BUILD_BUG_ON(sizeof(struct ib_mad_hdr) != IB_MGMT_MAD_HDR);
	BUILD_BUG_ON(sizeof(struct ib_mad) != IB_MGMT_MAD_SIZE);
	BUILD_BUG_ON(sizeof(struct ib_smp) != IB_MGMT_MAD_SIZE);
	BUILD_BUG_ON(sizeof(struct ib_pma_mad) != IB_MGMT_MAD_SIZE);
	BUILD_BUG_ON(sizeof(struct ib_pma_portcounters) != 44);
	BUILD_BUG_ON(sizeof(struct ib_grh) != 40);
	BUILD_BUG_ON(sizeof(struct ib_rmpp_mad) != IB_MGMT_MAD_SIZE);
	BUILD_BUG_ON(sizeof(struct ib_vendor_mad) != IB_MGMT_MAD_SIZE);
}

#endif /* IBSTACK_IB_MAD_WIRE_H */

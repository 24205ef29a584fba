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
}

#endif /* IBSTACK_IB_MAD_WIRE_H */

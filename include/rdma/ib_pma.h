/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Performance management MADs (IBA vol. 1, chapter 16.1): the PMA layout
 * and the port counter attributes.  Every multi-byte field is big-endian.
 */
#ifndef IBSTACK_RDMA_IB_PMA_H
#define IBSTACK_RDMA_IB_PMA_H

#include <ibstack/no_kernel_ib.h>
#include <linux/types.h>
#include <linux/compiler.h>
#include <rdma/ib_mad.h>

/* Performance management attributes */
#define IB_PMA_CLASS_PORT_INFO		0x0001
#define IB_PMA_PORT_COUNTERS		0x0012
#define IB_PMA_PORT_COUNTERS_EXT	0x001d

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

#endif /* IBSTACK_RDMA_IB_PMA_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Subnet management packets (IBA vol. 1, chapter 14): the SMP layout,
 * LID-routed or directed-route, and the attributes of the subnet
 * management class.  Every multi-byte field is big-endian.
 */
#ifndef IBSTACK_RDMA_IB_SMI_H
#define IBSTACK_RDMA_IB_SMI_H

#include <ibstack/no_kernel_ib.h>
#include <linux/types.h>
#include <linux/compiler.h>
#include <rdma/ib_mad.h>

#define IB_SMP_DATA_SIZE	64
#define IB_SMP_MAX_PATH_HOPS	64

/* The direction bit of a directed-route SMP's status (host order) */
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

#endif /* IBSTACK_RDMA_IB_SMI_H */

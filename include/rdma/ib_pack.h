/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet layout constants of the InfiniBand wire protocol (IBA volume 1,
 * chapter 9): header lengths, the LRH's next-header codes and the BTH
 * opcodes.  Upstream's header also declares the header packing helpers of
 * its ib_core (ib_ud_header_*); ours has none: mlx4_ib builds the headers
 * of its MLX sends itself.
 */
#ifndef IBSTACK_RDMA_IB_PACK_H
#define IBSTACK_RDMA_IB_PACK_H

#include <ibstack/no_kernel_ib.h>
#include <rdma/ib_verbs.h>
#include <uapi/linux/if_ether.h>

/* Header lengths in bytes */
enum {
	IB_LRH_BYTES = 8,
	IB_ETH_BYTES = 14,
	IB_VLAN_BYTES = 4,
	IB_GRH_BYTES = 40,
	IB_IP4_BYTES = 20,
	IB_UDP_BYTES = 8,
	IB_BTH_BYTES = 12,
	IB_DETH_BYTES = 8,
	IB_EXT_ATOMICETH_BYTES = 28,
	IB_EXT_XRC_BYTES = 4,
	IB_ICRC_BYTES = 4,
};

/* LRH:LNH, what follows the local route header */
enum {
	IB_LNH_RAW = 0,
	IB_LNH_IP = 1,
	IB_LNH_IBA_LOCAL = 2,
	IB_LNH_IBA_GLOBAL = 3,
};

/*
 * BTH:OpCode is a transport (the top three bits) plus an operation.  The
 * operation codes of the reliable and unreliable transports; UD has only
 * the two sends.
 */
enum {
	IB_OPCODE_RC = 0x00,
	IB_OPCODE_UC = 0x20,
	IB_OPCODE_RD = 0x40,
	IB_OPCODE_UD = 0x60,
	IB_OPCODE_CNP = 0x80,
	IB_OPCODE_MSP = 0xe0,

	IB_OPCODE_SEND_FIRST = 0x00,
	IB_OPCODE_SEND_MIDDLE = 0x01,
	IB_OPCODE_SEND_LAST = 0x02,
	IB_OPCODE_SEND_LAST_WITH_IMMEDIATE = 0x03,
	IB_OPCODE_SEND_ONLY = 0x04,
	IB_OPCODE_SEND_ONLY_WITH_IMMEDIATE = 0x05,
	IB_OPCODE_RDMA_WRITE_FIRST = 0x06,
	IB_OPCODE_RDMA_WRITE_MIDDLE = 0x07,
	IB_OPCODE_RDMA_WRITE_LAST = 0x08,
	IB_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x09,
	IB_OPCODE_RDMA_WRITE_ONLY = 0x0a,
	IB_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x0b,
	IB_OPCODE_RDMA_READ_REQUEST = 0x0c,
	IB_OPCODE_RDMA_READ_RESPONSE_FIRST = 0x0d,
	IB_OPCODE_RDMA_READ_RESPONSE_MIDDLE = 0x0e,
	IB_OPCODE_RDMA_READ_RESPONSE_LAST = 0x0f,
	IB_OPCODE_RDMA_READ_RESPONSE_ONLY = 0x10,
	IB_OPCODE_ACKNOWLEDGE = 0x11,
	IB_OPCODE_ATOMIC_ACKNOWLEDGE = 0x12,
	IB_OPCODE_COMPARE_SWAP = 0x13,
	IB_OPCODE_FETCH_ADD = 0x14,
	IB_OPCODE_SEND_LAST_WITH_INVALIDATE = 0x16,
	IB_OPCODE_SEND_ONLY_WITH_INVALIDATE = 0x17,

	IB_OPCODE_UD_SEND_ONLY = IB_OPCODE_UD + IB_OPCODE_SEND_ONLY,
	IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE =
		IB_OPCODE_UD + IB_OPCODE_SEND_ONLY_WITH_IMMEDIATE,
};

#endif /* IBSTACK_RDMA_IB_PACK_H */

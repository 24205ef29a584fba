/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CM messages on the wire (IBA 12.6): where each field sits in the
 * 232-byte data area after the MAD header, and how to read and write it.
 *
 * A field is named by its first bit, counted from the most significant bit
 * of the data area's first byte, and its width: CMF(byte, bit, width) is
 * the field starting at bit "bit" (0 = the most significant) of byte
 * "byte".  Fields of up to 32 bits go through cm_get()/cm_set(), which
 * read and write them big-endian whatever their alignment; 64-bit fields
 * (service IDs, GUIDs) and byte strings (GIDs, ARI, private data) are
 * aligned and copied as they are.
 */
#ifndef IBSTACK_CM_MSGS_H
#define IBSTACK_CM_MSGS_H

#include <linux/types.h>
#include <linux/string.h>
#include <rdma/ib_mad.h>

#define CM_DATA_SIZE		IB_MGMT_MAD_DATA	/* 232 */
/* the CM class's version (IBA 16.7.1) */
#define CM_CLASS_VERSION	2

#define CMF(byte, bit, width)	((((byte) * 8 + (bit)) << 8) | (width))
#define CMF_BIT(f)		((f) >> 8)
#define CMF_WIDTH(f)		((f) & 0xff)

/* a field of up to 32 bits of the data area d */
static inline u32 cm_get(const u8 *d, u32 f)
{
	unsigned int bit = CMF_BIT(f), width = CMF_WIDTH(f), i;
	u32 v = 0;

	for (i = 0; i < width; i++, bit++)
		v = (v << 1) | ((d[bit / 8] >> (7 - bit % 8)) & 1);
	return v;
}

static inline void cm_set(u8 *d, u32 f, u32 v)
{
	unsigned int bit = CMF_BIT(f) + CMF_WIDTH(f), i;

	for (i = 0; i < CMF_WIDTH(f); i++, v >>= 1) {
		u8 mask;

		bit--;
		mask = 1 << (7 - bit % 8);
		if (v & 1)
			d[bit / 8] |= mask;
		else
			d[bit / 8] &= ~mask;
	}
}

static inline __be64 cm_get64(const u8 *d, unsigned int byte)
{
	__be64 v;

	memcpy(&v, d + byte, sizeof(v));
	return v;
}

static inline void cm_set64(u8 *d, unsigned int byte, __be64 v)
{
	memcpy(d + byte, &v, sizeof(v));
}

/* --- REQ (IBA 12.6.5) ------------------------------------------------- */
#define CM_REQ_LOCAL_COMM_ID		CMF(0, 0, 32)
#define CM_REQ_VENDOR_ID		CMF(5, 0, 24)
#define CM_REQ_SERVICE_ID_BYTE		8
#define CM_REQ_LOCAL_CA_GUID_BYTE	16
#define CM_REQ_LOCAL_QKEY		CMF(28, 0, 32)
#define CM_REQ_LOCAL_QPN		CMF(32, 0, 24)
#define CM_REQ_RESPONDER_RESOURCES	CMF(35, 0, 8)
#define CM_REQ_LOCAL_EECN		CMF(36, 0, 24)
#define CM_REQ_INITIATOR_DEPTH		CMF(39, 0, 8)
#define CM_REQ_REMOTE_EECN		CMF(40, 0, 24)
#define CM_REQ_REMOTE_CM_RESP_TIMEOUT	CMF(43, 0, 5)
#define CM_REQ_TRANSPORT_TYPE		CMF(43, 5, 2)
#define CM_REQ_FLOW_CONTROL		CMF(43, 7, 1)
#define CM_REQ_STARTING_PSN		CMF(44, 0, 24)
#define CM_REQ_LOCAL_CM_RESP_TIMEOUT	CMF(47, 0, 5)
#define CM_REQ_RETRY_COUNT		CMF(47, 5, 3)
#define CM_REQ_PKEY			CMF(48, 0, 16)
#define CM_REQ_PATH_MTU			CMF(50, 0, 4)
#define CM_REQ_RDC_EXISTS		CMF(50, 4, 1)
#define CM_REQ_RNR_RETRY_COUNT		CMF(50, 5, 3)
#define CM_REQ_MAX_CM_RETRIES		CMF(51, 0, 4)
#define CM_REQ_SRQ			CMF(51, 4, 1)
#define CM_REQ_EXT_TRANSPORT_TYPE	CMF(51, 5, 3)
/* the primary path at byte 52, the alternate one at byte 96 */
#define CM_REQ_PRIMARY_PATH_BYTE	52
#define CM_REQ_ALTERNATE_PATH_BYTE	96
#define CM_REQ_SAP_SUPPORTED		CMF(139, 5, 1)
#define CM_REQ_PRIVATE_DATA_BYTE	140

/*
 * A path inside a REQ (44 bytes).  Offsets from the path's first byte.
 * The LAP's alternate path (from its byte 20) has the LIDs, GIDs and flow
 * label at the same offsets but orders the rest differently (CM_LAP_*).
 */
#define CM_PATH_LOCAL_LID(p)		CMF((p) + 0, 0, 16)
#define CM_PATH_REMOTE_LID(p)		CMF((p) + 2, 0, 16)
#define CM_PATH_LOCAL_GID_BYTE(p)	((p) + 4)
#define CM_PATH_REMOTE_GID_BYTE(p)	((p) + 20)
#define CM_PATH_FLOW_LABEL(p)		CMF((p) + 36, 0, 20)
#define CM_PATH_PACKET_RATE(p)		CMF((p) + 39, 2, 6)
#define CM_PATH_TRAFFIC_CLASS(p)	CMF((p) + 40, 0, 8)
#define CM_PATH_HOP_LIMIT(p)		CMF((p) + 41, 0, 8)
#define CM_PATH_SL(p)			CMF((p) + 42, 0, 4)
#define CM_PATH_SUBNET_LOCAL(p)		CMF((p) + 42, 4, 1)
#define CM_PATH_LOCAL_ACK_TIMEOUT(p)	CMF((p) + 43, 0, 5)

/* --- MRA (12.6.6) ----------------------------------------------------- */
#define CM_MRA_LOCAL_COMM_ID		CMF(0, 0, 32)
#define CM_MRA_REMOTE_COMM_ID		CMF(4, 0, 32)
#define CM_MRA_MESSAGE_MRAED		CMF(8, 0, 2)
#define CM_MRA_SERVICE_TIMEOUT		CMF(9, 0, 5)
#define CM_MRA_PRIVATE_DATA_BYTE	10

/* --- REJ (12.6.7) ----------------------------------------------------- */
#define CM_REJ_LOCAL_COMM_ID		CMF(0, 0, 32)
#define CM_REJ_REMOTE_COMM_ID		CMF(4, 0, 32)
#define CM_REJ_MESSAGE_REJECTED		CMF(8, 0, 2)
#define CM_REJ_ARI_LENGTH		CMF(9, 0, 7)
#define CM_REJ_REASON			CMF(10, 0, 16)
#define CM_REJ_ARI_BYTE			12
#define CM_REJ_PRIVATE_DATA_BYTE	84

/* --- REP (12.6.8) ----------------------------------------------------- */
#define CM_REP_LOCAL_COMM_ID		CMF(0, 0, 32)
#define CM_REP_REMOTE_COMM_ID		CMF(4, 0, 32)
#define CM_REP_LOCAL_QKEY		CMF(8, 0, 32)
#define CM_REP_LOCAL_QPN		CMF(12, 0, 24)
#define CM_REP_VENDOR_ID_H		CMF(15, 0, 8)
#define CM_REP_LOCAL_EECN		CMF(16, 0, 24)
#define CM_REP_VENDOR_ID_M		CMF(19, 0, 8)
#define CM_REP_STARTING_PSN		CMF(20, 0, 24)
#define CM_REP_VENDOR_ID_L		CMF(23, 0, 8)
#define CM_REP_RESPONDER_RESOURCES	CMF(24, 0, 8)
#define CM_REP_INITIATOR_DEPTH		CMF(25, 0, 8)
#define CM_REP_TARGET_ACK_DELAY		CMF(26, 0, 5)
#define CM_REP_FAILOVER_ACCEPTED	CMF(26, 5, 2)
#define CM_REP_FLOW_CONTROL		CMF(26, 7, 1)
#define CM_REP_RNR_RETRY_COUNT		CMF(27, 0, 3)
#define CM_REP_SRQ			CMF(27, 3, 1)
#define CM_REP_LOCAL_CA_GUID_BYTE	28
#define CM_REP_PRIVATE_DATA_BYTE	36

/* --- RTU, DREQ, DREP (12.6.9-12.6.11) --------------------------------- */
#define CM_RTU_LOCAL_COMM_ID		CMF(0, 0, 32)
#define CM_RTU_REMOTE_COMM_ID		CMF(4, 0, 32)
#define CM_RTU_PRIVATE_DATA_BYTE	8
#define CM_DREQ_LOCAL_COMM_ID		CMF(0, 0, 32)
#define CM_DREQ_REMOTE_COMM_ID		CMF(4, 0, 32)
#define CM_DREQ_REMOTE_QPN		CMF(8, 0, 24)
#define CM_DREQ_PRIVATE_DATA_BYTE	12
#define CM_DREP_LOCAL_COMM_ID		CMF(0, 0, 32)
#define CM_DREP_REMOTE_COMM_ID		CMF(4, 0, 32)
#define CM_DREP_PRIVATE_DATA_BYTE	8

/* --- LAP, APR (12.6.12, 12.6.13) -------------------------------------- */
#define CM_LAP_LOCAL_COMM_ID		CMF(0, 0, 32)
#define CM_LAP_REMOTE_COMM_ID		CMF(4, 0, 32)
#define CM_LAP_REMOTE_QPN		CMF(12, 0, 24)
#define CM_LAP_REMOTE_CM_RESP_TIMEOUT	CMF(15, 0, 5)
#define CM_LAP_PATH_BYTE		20
#define CM_LAP_TRAFFIC_CLASS		CMF(59, 0, 8)
#define CM_LAP_HOP_LIMIT		CMF(60, 0, 8)
#define CM_LAP_PACKET_RATE		CMF(61, 2, 6)
#define CM_LAP_SL			CMF(62, 0, 4)
#define CM_LAP_SUBNET_LOCAL		CMF(62, 4, 1)
#define CM_LAP_LOCAL_ACK_TIMEOUT	CMF(63, 0, 5)
#define CM_LAP_PRIVATE_DATA_BYTE	64
#define CM_APR_LOCAL_COMM_ID		CMF(0, 0, 32)
#define CM_APR_REMOTE_COMM_ID		CMF(4, 0, 32)
#define CM_APR_INFO_LENGTH		CMF(8, 0, 8)
#define CM_APR_STATUS			CMF(9, 0, 8)
#define CM_APR_INFO_BYTE		12
#define CM_APR_PRIVATE_DATA_BYTE	84

/* --- SIDR REQ, SIDR REP (12.11) --------------------------------------- */
#define CM_SIDR_REQ_REQUEST_ID		CMF(0, 0, 32)
#define CM_SIDR_REQ_PKEY		CMF(4, 0, 16)
#define CM_SIDR_REQ_SERVICE_ID_BYTE	8
#define CM_SIDR_REQ_PRIVATE_DATA_BYTE	16
#define CM_SIDR_REP_REQUEST_ID		CMF(0, 0, 32)
#define CM_SIDR_REP_STATUS		CMF(4, 0, 8)
#define CM_SIDR_REP_INFO_LENGTH		CMF(5, 0, 8)
#define CM_SIDR_REP_VENDOR_ID_H		CMF(6, 0, 16)
#define CM_SIDR_REP_QPN			CMF(8, 0, 24)
#define CM_SIDR_REP_VENDOR_ID_L		CMF(11, 0, 8)
#define CM_SIDR_REP_SERVICE_ID_BYTE	12
#define CM_SIDR_REP_QKEY		CMF(20, 0, 32)
#define CM_SIDR_REP_INFO_BYTE		24
#define CM_SIDR_REP_PRIVATE_DATA_BYTE	96

/* MRA and REJ: which message they answer */
enum cm_msg_response {
	CM_MSG_RESPONSE_REQ = 0,
	CM_MSG_RESPONSE_REP = 1,
	CM_MSG_RESPONSE_OTHER = 2,
};

/* REQ's transport service type (IBA table 100) */
enum cm_transport {
	CM_TRANSPORT_RC = 0,
	CM_TRANSPORT_UC = 1,
	CM_TRANSPORT_RD = 2,
	CM_TRANSPORT_EXTENDED = 3,
};

#define CM_EXT_TRANSPORT_XRC	1

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 device model: the firmware's subnet management agent (SMA) and
 * performance management agent (PMA), as mlx4_ib reaches them through the
 * MAD_IFC command.
 *
 * The driver hands the firmware every SMP (LID-routed and directed-route
 * Get/Set/TrapRepress, except SMInfo) and every PerfMgt, vendor and CC
 * Get/Set that arrives on QP0/QP1, plus its own local queries (PortInfo,
 * GUIDInfo, P_KeyTable, NodeInfo, ...).  The answer goes back as a GetResp
 * MAD in the outbox; CX3_STAT_BAD_PKT tells the driver not to answer at all.
 *
 * All layouts follow the IBA 1.2.1 attribute formats; every multi-byte field
 * is big-endian and goes through the cx3_get / cx3_put helpers.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cx3.h"

/* ---------------------------------------------------------------------- */
/* MAD layout */

#define MAD_SIZE		256

/* Common header (all classes) */
#define MAD_BASE_VERSION	0
#define MAD_MGMT_CLASS		1
#define MAD_CLASS_VERSION	2
#define MAD_METHOD		3
#define MAD_STATUS		4	/* u16 */
#define MAD_ATTR_ID		16	/* u16 */
#define MAD_ATTR_MOD		20	/* u32 */

/* SMP specific (both LID-routed and directed-route) */
#define SMP_MKEY		24	/* u64 */
#define SMP_DATA		64
#define SMP_DATA_LEN		64

/* PerfMgt: 24-byte header, 40 reserved bytes, then 192 bytes of data */
#define PMA_DATA		64
#define PMA_DATA_LEN		192

/* Management classes */
#define CLASS_SUBN_LID		0x01
#define CLASS_PERF		0x04
#define CLASS_VENDOR1		0x09
#define CLASS_VENDOR2		0x0a
#define CLASS_CC		0x21
#define CLASS_SUBN_DR		0x81

/* Methods */
#define METHOD_GET		0x01
#define METHOD_SET		0x02
#define METHOD_TRAP_REPRESS	0x07
#define METHOD_GET_RESP		0x81
#define METHOD_RESP_BIT		0x80

/* MAD status: the "invalid field" code lives in bits 4:2 */
#define MAD_ST_OK		0x0000
#define MAD_ST_BAD_VERSION	0x0004
#define MAD_ST_BAD_METHOD	0x0008
#define MAD_ST_BAD_METHOD_ATTR	0x000c
#define MAD_ST_INVALID_FIELD	0x001c

/* SMP attributes */
#define SMA_NOTICE		0x0002
#define SMA_NODE_DESC		0x0010
#define SMA_NODE_INFO		0x0011
#define SMA_GUID_INFO		0x0014
#define SMA_PORT_INFO		0x0015
#define SMA_PKEY_TABLE		0x0016
#define SMA_SL_TO_VL		0x0017
#define SMA_VL_ARB		0x0018
#define SMA_SM_INFO		0x0020
#define SMA_MLX_EXT_PORT_INFO	0xff90

/* PerfMgt attributes */
#define PMA_CLASS_PORT_INFO	0x0001
#define PMA_PORT_COUNTERS	0x0012
#define PMA_PORT_COUNTERS_EXT	0x001d

/* ---------------------------------------------------------------------- */
/* What this card is */

#define NODE_TYPE_CA		1
#define NODE_REVISION		0x00000001
#define MLX_VENDOR_OUI		0x0002c9

#define GUIDS_PER_BLOCK		8
#define PKEYS_PER_BLOCK		32
#define VLARB_PER_BLOCK		32	/* {VL, weight} entries */

/* PortInfo constants of a 4X FDR ConnectX-3 port */
#define WIDTH_1X		0x01
#define WIDTH_4X		0x02
#define WIDTH_SUPPORTED		(WIDTH_1X | WIDTH_4X)
#define WIDTH_ENABLE_NOP	0x00
#define WIDTH_ENABLE_ALL	0xff

#define SPEED_SDR		0x1
#define SPEED_DDR		0x2
#define SPEED_QDR		0x4
#define SPEED_SUPPORTED		(SPEED_SDR | SPEED_DDR | SPEED_QDR)
#define SPEED_ENABLE_ALL	0xf

#define SPEED_EXT_FDR		0x01
#define SPEED_EXT_SUPPORTED	SPEED_EXT_FDR
#define SPEED_EXT_DISABLE	30
#define SPEED_EXT_ENABLE_ALL	31

#define LINK_DOWN_SLEEP		1
#define LINK_DOWN_POLLING	2

#define VL_ARB_HIGH_CAP		8
#define VL_ARB_LOW_CAP		8

#define IB_MTU_256		1
#define IB_MTU_4096		5
#define VL_CAP_VL0		1
#define VL_CAP_VL0_7		4

#define LID_MCAST_BASE		0xc000

/*
 * Port capability mask the firmware starts with: IsTrapSupported,
 * IsAutomaticMigrationSupported, IsSLMappingSupported,
 * IsSystemImageGUIDSupported, IsExtendedSpeedsSupported (mlx4_ib needs it
 * to read LinkSpeedExtActive), IsVendorClassSupported,
 * IsCapabilityMaskNoticeSupported and IsClientReregistrationSupported.
 * ib_cm adds IsCMSupported and opensm IsSM through SET_PORT, which gives
 * the 0x02514868 (0x0251486a) ibstat shows for ConnectX-3 ports.
 */
#define CX3_DEFAULT_CAP_MASK	0x02504868u

/* PerfMgt ClassPortInfo.CapabilityMask */
#define PMA_CAP_EXT_WIDTH	0x0200	/* PortCountersExtended, all fields */
#define PMA_CAP_EXT_NOIETF	0x0400	/* ... data and packet counters */
#define PMA_CAP_XMIT_WAIT	0x1000	/* PortCounters.PortXmitWait */
#define PMA_CAP_MASK		(PMA_CAP_EXT_WIDTH | PMA_CAP_EXT_NOIETF | \
				 PMA_CAP_XMIT_WAIT)

/* Defaults a freshly reset port reports */
#define DEFAULT_RESP_TIME	16	/* 4.096 us * 2^16 */
#define DEFAULT_VL_STALL	7
#define DEFAULT_HOQ_LIFE	0	/* HCAs do not use HOQLife */
#define DEFAULT_ERR_THRESHOLD	8	/* LocalPhyErrors and OverrunErrors */

/*
 * PortInfo components that struct cx3_port has no field for, indexed by
 * port and reset by cx3_sma_port_defaults().  They are shared by every
 * card in the process; with the usual single card that does not matter.
 */
struct sma_port_extra {
	uint8_t link_down_default;	/* LinkDownDefaultState */
	uint8_t speed_ext_enabled;	/* LinkSpeedExtEnabled */
	uint8_t vl_stall;		/* VLStallCount */
	uint8_t enforce;		/* PartitionEnforcement / FilterRaw bits */
	uint8_t mcast_trap_supp;	/* MulticastPKeyTrapSuppressionEnabled */
};

static struct sma_port_extra sma_extra[CX3_NUM_PORTS];

/* Unusual-MAD diagnostics: a few lines per reset, then silence. */
#define SMA_LOG_BUDGET		32
static unsigned int sma_log_budget = SMA_LOG_BUDGET;

#define sma_note(dev, fmt, ...)						\
	do {								\
		if (sma_log_budget) {					\
			sma_log_budget--;				\
			cx3_log(dev, "sma: " fmt "%s", ##__VA_ARGS__,	\
				sma_log_budget ? "" :			\
				" (further MAD notes suppressed)");	\
		}							\
	} while (0)

/* One MAD being answered */
struct sma_req {
	struct cx3_dev *dev;
	int port;			/* the port the MAD arrived on */
	struct cx3_port *p;		/* ... and its state */
	uint8_t method;
	uint16_t attr_id;
	uint32_t attr_mod;
	bool hide_mkey;			/* M_Key protection level 1 */
	const uint8_t *in;		/* request data area */
	uint8_t *out;			/* response data area (zeroed) */
};

static struct sma_port_extra *port_extra(struct cx3_dev *dev,
					 struct cx3_port *p)
{
	ptrdiff_t i = p - dev->port;

	if (i < 0 || i >= CX3_NUM_PORTS)
		i = (p->num >= 1 && p->num <= CX3_NUM_PORTS) ? p->num - 1 : 0;
	return &sma_extra[i];
}

static uint16_t sat16(uint64_t v)
{
	return v > 0xffff ? 0xffff : (uint16_t)v;
}

static uint32_t sat32(uint64_t v)
{
	return v > 0xffffffffu ? 0xffffffffu : (uint32_t)v;
}

/* Highest single bit of a small mask (0 if none) */
static uint8_t top_bit(uint8_t mask)
{
	uint8_t b = 0x80;

	while (b && !(mask & b))
		b >>= 1;
	return b;
}

static bool port_link_up(const struct cx3_port *p)
{
	return p->phys_state == CX3_PHYS_LINKUP && p->state >= CX3_PORT_INIT;
}

/* ---------------------------------------------------------------------- */
/* SMA attributes */

static uint16_t sma_node_desc(struct sma_req *r)
{
	if (r->method != METHOD_GET)
		return MAD_ST_BAD_METHOD_ATTR;
	memcpy(r->out, r->dev->node_desc, SMP_DATA_LEN);
	return MAD_ST_OK;
}

static uint16_t sma_node_info(struct sma_req *r)
{
	struct cx3_dev *dev = r->dev;
	uint8_t *d = r->out;
	uint16_t pcap = r->p->pkey_table_size;

	if (r->method != METHOD_GET)
		return MAD_ST_BAD_METHOD_ATTR;
	if (!pcap || pcap > CX3_PKEY_TABLE)
		pcap = CX3_PKEY_TABLE;

	d[0] = 1;			/* BaseVersion */
	d[1] = 1;			/* ClassVersion */
	d[2] = NODE_TYPE_CA;
	d[3] = CX3_NUM_PORTS;
	cx3_put64(d, 4, dev->sys_guid ? dev->sys_guid : dev->node_guid);
	cx3_put64(d, 12, dev->node_guid);
	cx3_put64(d, 20, r->p->guids[0]);
	cx3_put16(d, 28, pcap);		/* PartitionCap */
	cx3_put16(d, 30, CX3_DEVICE_ID);
	cx3_put32(d, 32, NODE_REVISION);
	/* LocalPortNum, then the 24-bit VendorID */
	cx3_put32(d, 36, (uint32_t)r->port << 24 | MLX_VENDOR_OUI);
	return MAD_ST_OK;
}

static uint16_t sma_guid_info(struct sma_req *r)
{
	struct cx3_port *p = r->p;
	uint32_t block = r->attr_mod;
	unsigned int i, idx;

	if (block >= CX3_GID_TABLE / GUIDS_PER_BLOCK)
		return MAD_ST_INVALID_FIELD;

	if (r->method == METHOD_SET) {
		for (i = 0; i < GUIDS_PER_BLOCK; i++) {
			idx = block * GUIDS_PER_BLOCK + i;
			/* Entry 0 is the port GUID, which is read-only. */
			if (idx)
				p->guids[idx] = cx3_get64(r->in, i * 8);
		}
	}
	for (i = 0; i < GUIDS_PER_BLOCK; i++)
		cx3_put64(r->out, i * 8,
			  p->guids[block * GUIDS_PER_BLOCK + i]);
	return MAD_ST_OK;
}

static void port_info_fill(struct sma_req *r, struct cx3_port *p)
{
	struct sma_port_extra *x = port_extra(r->dev, p);
	uint8_t *d = r->out;
	uint8_t width_active, speed_active, ext_active;
	uint8_t nmtu = p->neighbor_mtu, op_vls = p->op_vls;
	uint8_t rereg = 0;

	/* The link trains to the fastest enabled width and speed. */
	width_active = top_bit(p->link_width_enabled & WIDTH_SUPPORTED);
	if (port_link_up(p)) {
		speed_active = top_bit(p->link_speed_enabled & SPEED_SUPPORTED);
		ext_active = x->speed_ext_enabled & SPEED_EXT_FDR;
	} else {
		/*
		 * The active speed means nothing without a link; report the
		 * slowest (as mlx4_ib assumes for a down port) and keep a
		 * valid width, so a rate computed from them stays sane.
		 */
		speed_active = SPEED_SDR;
		ext_active = 0;
	}
	if (!width_active)
		width_active = WIDTH_4X;
	if (!speed_active)
		speed_active = SPEED_SDR;
	if (nmtu > p->mtu_cap)
		nmtu = p->mtu_cap;
	if (op_vls > p->vl_cap)
		op_vls = p->vl_cap;
	if (p->client_reregister) {
		/* Reported once, in the response to the Set that asked. */
		rereg = 0x80;
		p->client_reregister = false;
	}

	cx3_put64(d, 0, r->hide_mkey ? 0 : p->mkey);
	cx3_put64(d, 8, p->gid_prefix);
	cx3_put16(d, 16, p->lid);
	cx3_put16(d, 18, p->sm_lid);
	cx3_put32(d, 20, p->cap_mask);
	cx3_put16(d, 24, 0);				/* DiagCode: ready */
	cx3_put16(d, 26, p->mkey_lease);
	d[28] = r->port;				/* LocalPortNum */
	d[29] = p->link_width_enabled;
	d[30] = WIDTH_SUPPORTED;
	d[31] = width_active;
	d[32] = SPEED_SUPPORTED << 4 | (p->state & 0xf);
	d[33] = (p->phys_state & 0xf) << 4 | (x->link_down_default & 0xf);
	d[34] = (p->mkey_protect & 3) << 6 | (p->lmc & 7);
	d[35] = speed_active << 4 | (p->link_speed_enabled & 0xf);
	d[36] = (nmtu & 0xf) << 4 | (p->sm_sl & 0xf);
	d[37] = (p->vl_cap & 0xf) << 4;			/* InitType 0 */
	d[38] = p->vl_high_limit;
	d[39] = VL_ARB_HIGH_CAP;
	d[40] = VL_ARB_LOW_CAP;
	d[41] = (p->init_type_reply & 0xf) << 4 | (p->mtu_cap & 0xf);
	d[42] = (x->vl_stall & 7) << 5 | (p->hoq_life & 0x1f);
	d[43] = (op_vls & 0xf) << 4 | (x->enforce & 0xf);
	cx3_put16(d, 44, p->mkey_violations);
	cx3_put16(d, 46, p->pkey_violations);
	cx3_put16(d, 48, p->qkey_violations);
	d[50] = CX3_GID_TABLE;				/* GUIDCap */
	d[51] = rereg | (x->mcast_trap_supp & 3) << 5 |
		(p->subnet_timeout & 0x1f);
	d[52] = p->resp_time & 0x1f;
	d[53] = (p->local_phy_errors & 0xf) << 4 | (p->overrun_errors & 0xf);
	/* MaxCreditHint, LinkRoundTripLatency, CapabilityMask2: 0 */
	d[62] = ext_active << 4 | SPEED_EXT_SUPPORTED;
	d[63] = x->speed_ext_enabled & 0x1f;
}

/*
 * Set(PortInfo): check every writable component first, so an invalid
 * request changes nothing; then apply, and last request the state change.
 */
static uint16_t port_info_set(struct sma_req *r, int tport)
{
	struct cx3_dev *dev = r->dev;
	struct cx3_port *p = &dev->port[tport - 1];
	struct sma_port_extra *x = port_extra(dev, p);
	const uint8_t *d = r->in;
	uint16_t lid = cx3_get16(d, 16), sm_lid = cx3_get16(d, 18);
	uint8_t lwe = d[29];
	uint8_t state = d[32] & 0xf;
	uint8_t phys = d[33] >> 4, ld_default = d[33] & 0xf;
	uint8_t lse = d[35] & 0xf;
	uint8_t nmtu = d[36] >> 4;
	uint8_t op_vls = d[43] >> 4;
	uint8_t lsee = d[63] & 0x1f;
	bool change_state = false;

	if (!lid || lid >= LID_MCAST_BASE || !sm_lid ||
	    sm_lid >= LID_MCAST_BASE)
		return MAD_ST_INVALID_FIELD;

	switch (state) {
	case CX3_PORT_NOP:
		break;
	case CX3_PORT_DOWN:
		change_state = true;
		break;
	case CX3_PORT_ARMED:
		if (p->state == CX3_PORT_INIT)
			change_state = true;
		else if (p->state != CX3_PORT_ARMED)
			return MAD_ST_INVALID_FIELD;
		break;
	case CX3_PORT_ACTIVE:
		if (p->state == CX3_PORT_ARMED)
			change_state = true;
		else if (p->state != CX3_PORT_ACTIVE)
			return MAD_ST_INVALID_FIELD;
		break;
	default:			/* INIT cannot be set; rest reserved */
		return MAD_ST_INVALID_FIELD;
	}

	/* NoChange, Sleep, Polling and Disabled; accepted, not acted on. */
	if (phys > CX3_PHYS_DISABLED)
		return MAD_ST_INVALID_FIELD;
	if (ld_default > LINK_DOWN_POLLING)
		return MAD_ST_INVALID_FIELD;
	if (lwe != WIDTH_ENABLE_NOP && lwe != WIDTH_ENABLE_ALL &&
	    (lwe & ~WIDTH_SUPPORTED))
		return MAD_ST_INVALID_FIELD;
	if (lse != SPEED_ENABLE_ALL && (lse & ~SPEED_SUPPORTED))
		return MAD_ST_INVALID_FIELD;
	if (lsee != SPEED_EXT_DISABLE && lsee != SPEED_EXT_ENABLE_ALL &&
	    (lsee & ~SPEED_EXT_SUPPORTED))
		return MAD_ST_INVALID_FIELD;
	if (nmtu < IB_MTU_256 || nmtu > p->mtu_cap)
		return MAD_ST_INVALID_FIELD;
	if (op_vls > p->vl_cap)
		return MAD_ST_INVALID_FIELD;

	p->mkey = cx3_get64(d, 0);
	p->gid_prefix = cx3_get64(d, 8);
	p->lid = lid;
	p->sm_lid = sm_lid;
	/* CapabilityMask and DiagCode are read-only. */
	p->mkey_lease = cx3_get16(d, 26);
	if (lwe == WIDTH_ENABLE_ALL)
		p->link_width_enabled = WIDTH_SUPPORTED;
	else if (lwe)
		p->link_width_enabled = lwe;
	if (ld_default)
		x->link_down_default = ld_default;
	p->mkey_protect = d[34] >> 6;
	p->lmc = d[34] & 7;
	if (lse == SPEED_ENABLE_ALL)
		p->link_speed_enabled = SPEED_SUPPORTED;
	else if (lse)
		p->link_speed_enabled = lse;
	p->neighbor_mtu = nmtu;
	p->sm_sl = d[36] & 0xf;
	p->vl_high_limit = d[38];
	p->init_type_reply = d[41] >> 4;
	x->vl_stall = d[42] >> 5;
	p->hoq_life = d[42] & 0x1f;
	if (op_vls)
		p->op_vls = op_vls;
	x->enforce = d[43] & 0xf;
	/* Writing zero resets a violation counter; other values are kept. */
	if (!cx3_get16(d, 44))
		p->mkey_violations = 0;
	if (!cx3_get16(d, 46))
		p->pkey_violations = 0;
	if (!cx3_get16(d, 48))
		p->qkey_violations = 0;
	if (d[51] & 0x80)
		p->client_reregister = true;
	x->mcast_trap_supp = (d[51] >> 5) & 3;
	p->subnet_timeout = d[51] & 0x1f;
	/* RespTimeValue is read-only. */
	p->local_phy_errors = d[53] >> 4;
	p->overrun_errors = d[53] & 0xf;
	if (lsee == SPEED_EXT_DISABLE)
		x->speed_ext_enabled = 0;
	else if (lsee == SPEED_EXT_ENABLE_ALL)
		x->speed_ext_enabled = SPEED_EXT_SUPPORTED;
	else if (lsee)
		x->speed_ext_enabled = lsee;

	if (change_state)
		cx3_port_set_state(dev, tport, state);
	return MAD_ST_OK;
}

static uint16_t sma_port_info(struct sma_req *r)
{
	struct cx3_dev *dev = r->dev;
	uint16_t st = MAD_ST_OK;
	int tport;

	/* For a CA the modifier names the port; 0 is the receiving port. */
	if (r->attr_mod == 0)
		tport = r->port;
	else if (r->attr_mod <= CX3_NUM_PORTS)
		tport = (int)r->attr_mod;
	else
		return MAD_ST_INVALID_FIELD;

	if (r->method == METHOD_SET)
		st = port_info_set(r, tport);
	/* The response carries the current values, also after an error. */
	port_info_fill(r, &dev->port[tport - 1]);
	return st;
}

static unsigned int pkey_table_len(const struct cx3_port *p)
{
	unsigned int n = p->pkey_table_size;

	return (!n || n > CX3_PKEY_TABLE) ? CX3_PKEY_TABLE : n;
}

static uint16_t sma_pkey_table(struct sma_req *r)
{
	struct cx3_port *p = r->p;
	/* Bits 31:16 carry a switch port number; a CA has no use for it. */
	unsigned int block = r->attr_mod & 0xffff;
	unsigned int len = pkey_table_len(p);
	unsigned int i, idx;

	if (block >= (len + PKEYS_PER_BLOCK - 1) / PKEYS_PER_BLOCK)
		return MAD_ST_INVALID_FIELD;

	for (i = 0; i < PKEYS_PER_BLOCK; i++) {
		idx = block * PKEYS_PER_BLOCK + i;
		if (idx >= len)
			break;
		if (r->method == METHOD_SET)
			p->pkeys[idx] = cx3_get16(r->in, i * 2);
		cx3_put16(r->out, i * 2, p->pkeys[idx]);
	}
	return MAD_ST_OK;
}

static uint16_t sma_sl_to_vl(struct sma_req *r)
{
	struct cx3_port *p = r->p;
	unsigned int i;

	if (r->method == METHOD_SET) {
		for (i = 0; i < 16; i += 2) {
			p->sl2vl[i] = r->in[i / 2] >> 4;
			p->sl2vl[i + 1] = r->in[i / 2] & 0xf;
		}
	}
	for (i = 0; i < 16; i += 2)
		r->out[i / 2] = (p->sl2vl[i] & 0xf) << 4 |
				(p->sl2vl[i + 1] & 0xf);
	return MAD_ST_OK;
}

static uint16_t sma_vl_arb(struct sma_req *r)
{
	struct cx3_port *p = r->p;
	unsigned int block = r->attr_mod >> 16;	/* 15:0: switch port */
	uint8_t *tbl;
	unsigned int i;

	switch (block) {
	case 1:
		tbl = p->vlarb_low;
		break;
	case 2:
		tbl = p->vlarb_low + 2 * VLARB_PER_BLOCK;
		break;
	case 3:
		tbl = p->vlarb_high;
		break;
	case 4:
		tbl = p->vlarb_high + 2 * VLARB_PER_BLOCK;
		break;
	default:
		return MAD_ST_INVALID_FIELD;
	}

	if (r->method == METHOD_SET) {
		for (i = 0; i < VLARB_PER_BLOCK; i++) {
			tbl[2 * i] = r->in[2 * i] & 0xf;
			tbl[2 * i + 1] = r->in[2 * i + 1];
		}
	}
	memcpy(r->out, tbl, 2 * VLARB_PER_BLOCK);
	return MAD_ST_OK;
}

/* Mellanox ExtendedPortInfo: FDR10 support, which this card lacks. */
static uint16_t sma_mlx_ext_port_info(struct sma_req *r)
{
	/* byte 11 is LinkSpeedEnabled; FDR10 cannot be enabled here */
	if (r->method == METHOD_SET && r->in[11])
		return MAD_ST_INVALID_FIELD;
	/* all zero: no FDR10 supported, enabled or active (byte 15 bit 0) */
	return MAD_ST_OK;
}

/*
 * M_Key check (IBA 14.2.4).  Returns false when the MAD must be dropped.
 * With protection level 1 a Get still succeeds but PortInfo hides the key.
 */
static bool sma_mkey_ok(struct sma_req *r, uint8_t op_mod, uint64_t mkey)
{
	struct cx3_port *p = r->p;

	r->hide_mkey = false;
	if ((op_mod & 1) || !p->mkey || mkey == p->mkey)
		return true;
	if (r->method == METHOD_GET) {
		if (p->mkey_protect == 1)
			r->hide_mkey = true;
		if (p->mkey_protect < 2)
			return true;
	}
	if (p->mkey_violations != 0xffff)
		p->mkey_violations++;
	sma_note(r->dev, "port %d: M_Key violation (method 0x%02x attr 0x%04x)",
		 r->port, r->method, r->attr_id);
	return false;
}

static uint16_t sma_dispatch(struct sma_req *r)
{
	memset(r->out, 0, SMP_DATA_LEN);

	switch (r->attr_id) {
	case SMA_NODE_DESC:
		return sma_node_desc(r);
	case SMA_NODE_INFO:
		return sma_node_info(r);
	case SMA_GUID_INFO:
		return sma_guid_info(r);
	case SMA_PORT_INFO:
		return sma_port_info(r);
	case SMA_PKEY_TABLE:
		return sma_pkey_table(r);
	case SMA_SL_TO_VL:
		return sma_sl_to_vl(r);
	case SMA_VL_ARB:
		return sma_vl_arb(r);
	case SMA_MLX_EXT_PORT_INFO:
		return sma_mlx_ext_port_info(r);
	case SMA_SM_INFO:	/* the host's SM answers that */
	case SMA_NOTICE:	/* no notice queue to read or clear */
	default:
		sma_note(r->dev, "port %d: SMP attribute 0x%04x method 0x%02x not supported",
			 r->port, r->attr_id, r->method);
		return MAD_ST_BAD_METHOD_ATTR;
	}
}

static uint8_t sma_process(struct cx3_dev *dev, int port, uint8_t op_mod,
			   const uint8_t *req, uint8_t *out)
{
	struct sma_req r = {
		.dev = dev,
		.port = port,
		.p = &dev->port[port - 1],
		.method = req[MAD_METHOD],
		.attr_id = cx3_get16(req, MAD_ATTR_ID),
		.attr_mod = cx3_get32(req, MAD_ATTR_MOD),
		.in = req + SMP_DATA,
		.out = out + SMP_DATA,
	};
	uint16_t st;

	/* A response is never answered, and a TrapRepress gets none. */
	if (r.method & METHOD_RESP_BIT)
		return CX3_STAT_BAD_PKT;
	if (r.method == METHOD_TRAP_REPRESS) {
		sma_mkey_ok(&r, op_mod, cx3_get64(req, SMP_MKEY));
		return CX3_STAT_BAD_PKT;
	}

	if (req[MAD_BASE_VERSION] != 1 || req[MAD_CLASS_VERSION] != 1) {
		st = MAD_ST_BAD_VERSION;
	} else if (r.method != METHOD_GET && r.method != METHOD_SET) {
		st = MAD_ST_BAD_METHOD;
	} else {
		if (!sma_mkey_ok(&r, op_mod, cx3_get64(req, SMP_MKEY)))
			return CX3_STAT_BAD_PKT;
		st = sma_dispatch(&r);
	}

	/*
	 * The directed-route fields (hop pointer and count, DrSLID/DrDLID,
	 * paths) stay as they came, and the status has no direction bit: the
	 * driver sets it and moves the hop pointer (the hardware notes, 5;
	 * upstream mlx4_ib snoops a Set only when the status it gets is 0).
	 */
	out[MAD_METHOD] = METHOD_GET_RESP;
	cx3_put16(out, MAD_STATUS, st);
	return CX3_STAT_OK;
}

/* ---------------------------------------------------------------------- */
/* PMA */

/* PortSelect: 0 is the receiving port, 1 and 2 name a port of the card. */
static struct cx3_port *pma_port(struct cx3_dev *dev, int port, uint8_t sel)
{
	if (sel == 0)
		return &dev->port[port - 1];
	if (sel <= CX3_NUM_PORTS)
		return &dev->port[sel - 1];
	return NULL;		/* includes 0xFF: AllPortSelect unsupported */
}

static uint16_t pma_class_port_info(struct cx3_dev *dev, int port,
				    uint8_t method, uint8_t *d)
{
	if (method != METHOD_GET)
		return MAD_ST_BAD_METHOD_ATTR;
	d[0] = 1;			/* BaseVersion */
	d[1] = 1;			/* ClassVersion */
	cx3_put16(d, 2, PMA_CAP_MASK);
	/* CapabilityMask2 (27 bits) = 0, RespTimeValue (5 bits) */
	cx3_put32(d, 4, dev->port[port - 1].resp_time & 0x1f);
	/* No redirection, no trap destination */
	return MAD_ST_OK;
}

/* PortCounters CounterSelect bits that name counters the model keeps */
#define PC_SEL_SYMBOL_ERR	0x0001
#define PC_SEL_RCV_ERR		0x0008
#define PC_SEL_XMIT_DISCARDS	0x0040
#define PC_SEL_VL15_DROPPED	0x0800
#define PC_SEL_XMIT_DATA	0x1000
#define PC_SEL_RCV_DATA		0x2000
#define PC_SEL_XMIT_PKTS	0x4000
#define PC_SEL_RCV_PKTS		0x8000
#define PC_SEL2_XMIT_WAIT	0x01

static uint16_t pma_port_counters(struct cx3_dev *dev, int port,
				  uint8_t method, const uint8_t *in,
				  uint8_t *d)
{
	struct cx3_port *p = pma_port(dev, port, in[1]);
	struct cx3_port_counters *c;
	uint16_t sel = cx3_get16(in, 2);
	uint8_t sel2 = in[18];

	d[1] = in[1];
	cx3_put16(d, 2, sel);
	d[18] = sel2;
	if (!p)
		return MAD_ST_INVALID_FIELD;
	c = &p->cnt;

	if (method == METHOD_SET) {
		/* Selected counters are cleared (the usual reset use). */
		if (sel & PC_SEL_SYMBOL_ERR)
			c->symbol_errors = 0;
		if (sel & PC_SEL_RCV_ERR)
			c->rcv_errors = 0;
		if (sel & PC_SEL_XMIT_DISCARDS)
			c->xmit_discards = 0;
		if (sel & PC_SEL_VL15_DROPPED)
			c->vl15_dropped = 0;
		if (sel & PC_SEL_XMIT_DATA)
			c->xmit_data = 0;
		if (sel & PC_SEL_RCV_DATA)
			c->rcv_data = 0;
		if (sel & PC_SEL_XMIT_PKTS)
			c->xmit_pkts = 0;
		if (sel & PC_SEL_RCV_PKTS)
			c->rcv_pkts = 0;
		if (sel2 & PC_SEL2_XMIT_WAIT)
			c->xmit_wait = 0;
	}

	cx3_put16(d, 4, sat16(c->symbol_errors));
	d[6] = 0;			/* LinkErrorRecoveryCounter */
	d[7] = 0;			/* LinkDownedCounter */
	cx3_put16(d, 8, sat16(c->rcv_errors));
	/* RemotePhysicalErrors, SwitchRelayErrors: 0 */
	cx3_put16(d, 14, sat16(c->xmit_discards));
	/* Constraint errors, LocalLinkIntegrity, ExcessiveBufferOverrun: 0 */
	cx3_put16(d, 22, sat16(c->vl15_dropped));
	cx3_put32(d, 24, sat32(c->xmit_data));
	cx3_put32(d, 28, sat32(c->rcv_data));
	cx3_put32(d, 32, sat32(c->xmit_pkts));
	cx3_put32(d, 36, sat32(c->rcv_pkts));
	cx3_put32(d, 40, c->xmit_wait);
	return MAD_ST_OK;
}

/* PortCountersExtended CounterSelect bits */
#define PCX_SEL_XMIT_DATA	0x0001
#define PCX_SEL_RCV_DATA	0x0002
#define PCX_SEL_XMIT_PKTS	0x0004
#define PCX_SEL_RCV_PKTS	0x0008
#define PCX_SEL_UC_XMIT_PKTS	0x0010
#define PCX_SEL_UC_RCV_PKTS	0x0020
#define PCX_SEL_MC_XMIT_PKTS	0x0040
#define PCX_SEL_MC_RCV_PKTS	0x0080

static uint16_t pma_port_counters_ext(struct cx3_dev *dev, int port,
				      uint8_t method, const uint8_t *in,
				      uint8_t *d)
{
	struct cx3_port *p = pma_port(dev, port, in[1]);
	struct cx3_port_counters *c;
	uint16_t sel = cx3_get16(in, 2);

	d[1] = in[1];
	cx3_put16(d, 2, sel);
	if (!p)
		return MAD_ST_INVALID_FIELD;
	c = &p->cnt;

	if (method == METHOD_SET) {
		if (sel & PCX_SEL_XMIT_DATA)
			c->xmit_data = 0;
		if (sel & PCX_SEL_RCV_DATA)
			c->rcv_data = 0;
		if (sel & PCX_SEL_XMIT_PKTS)
			c->xmit_pkts = 0;
		if (sel & PCX_SEL_RCV_PKTS)
			c->rcv_pkts = 0;
		if (sel & PCX_SEL_UC_XMIT_PKTS)
			c->ucast_xmit_pkts = 0;
		if (sel & PCX_SEL_UC_RCV_PKTS)
			c->ucast_rcv_pkts = 0;
		if (sel & PCX_SEL_MC_XMIT_PKTS)
			c->mcast_xmit_pkts = 0;
		if (sel & PCX_SEL_MC_RCV_PKTS)
			c->mcast_rcv_pkts = 0;
	}

	cx3_put64(d, 8, c->xmit_data);
	cx3_put64(d, 16, c->rcv_data);
	cx3_put64(d, 24, c->xmit_pkts);
	cx3_put64(d, 32, c->rcv_pkts);
	cx3_put64(d, 40, c->ucast_xmit_pkts);
	cx3_put64(d, 48, c->ucast_rcv_pkts);
	cx3_put64(d, 56, c->mcast_xmit_pkts);
	cx3_put64(d, 64, c->mcast_rcv_pkts);
	return MAD_ST_OK;
}

static uint8_t pma_process(struct cx3_dev *dev, int port, const uint8_t *req,
			   uint8_t *out)
{
	uint8_t method = req[MAD_METHOD];
	uint16_t attr = cx3_get16(req, MAD_ATTR_ID);
	const uint8_t *in = req + PMA_DATA;
	uint8_t *d = out + PMA_DATA;
	uint16_t st;

	if (method & METHOD_RESP_BIT)
		return CX3_STAT_BAD_PKT;

	if (req[MAD_BASE_VERSION] != 1 || req[MAD_CLASS_VERSION] != 1) {
		st = MAD_ST_BAD_VERSION;
	} else if (method != METHOD_GET && method != METHOD_SET) {
		st = MAD_ST_BAD_METHOD;
	} else {
		memset(d, 0, PMA_DATA_LEN);
		switch (attr) {
		case PMA_CLASS_PORT_INFO:
			st = pma_class_port_info(dev, port, method, d);
			break;
		case PMA_PORT_COUNTERS:
			st = pma_port_counters(dev, port, method, in, d);
			break;
		case PMA_PORT_COUNTERS_EXT:
			st = pma_port_counters_ext(dev, port, method, in, d);
			break;
		default:
			sma_note(dev, "port %d: PMA attribute 0x%04x method 0x%02x not supported",
				 port, attr, method);
			st = MAD_ST_BAD_METHOD_ATTR;
			break;
		}
	}

	out[MAD_METHOD] = METHOD_GET_RESP;
	cx3_put16(out, MAD_STATUS, st);
	return CX3_STAT_OK;
}

/* ---------------------------------------------------------------------- */
/* Entry points */

uint8_t cx3_mad_ifc(struct cx3_dev *dev, int port, uint8_t op_mod,
		    uint16_t slid, const uint8_t *in, const uint8_t *ext,
		    uint8_t *out)
{
	uint8_t req[MAD_SIZE];
	uint8_t mclass;

	/* No traps are generated, so the sender's address is not needed. */
	(void)slid;
	(void)ext;

	if (!dev || !in || !out || port < 1 || port > CX3_NUM_PORTS)
		return CX3_STAT_BAD_PARAM;

	/* in and out may be the same buffer */
	memcpy(req, in, MAD_SIZE);
	memcpy(out, req, MAD_SIZE);
	mclass = req[MAD_MGMT_CLASS];

	switch (mclass) {
	case CLASS_SUBN_LID:
	case CLASS_SUBN_DR:
		return sma_process(dev, port, op_mod, req, out);
	case CLASS_PERF:
		return pma_process(dev, port, req, out);
	case CLASS_VENDOR1:
	case CLASS_VENDOR2:
	case CLASS_CC:
		/* Not implemented: answer like an agent without the class. */
		if (req[MAD_METHOD] & METHOD_RESP_BIT)
			return CX3_STAT_BAD_PKT;
		sma_note(dev, "port %d: class 0x%02x attribute 0x%04x not supported",
			 port, mclass, cx3_get16(req, MAD_ATTR_ID));
		out[MAD_METHOD] = METHOD_GET_RESP;
		cx3_put16(out, MAD_STATUS, MAD_ST_BAD_METHOD_ATTR);
		return CX3_STAT_OK;
	default:
		return CX3_STAT_BAD_PKT;
	}
}

void cx3_sma_port_defaults(struct cx3_dev *dev, struct cx3_port *p)
{
	struct sma_port_extra *x = port_extra(dev, p);
	int num = p->num;

	if (num < 1 || num > CX3_NUM_PORTS)
		num = (int)(p - dev->port) + 1;

	/* Link state belongs to cx3_port.c; only fill in what is unset. */
	if (p->state == CX3_PORT_NOP)
		p->state = CX3_PORT_DOWN;
	if (!p->phys_state)
		p->phys_state = CX3_PHYS_POLLING;

	p->mkey = 0;
	p->gid_prefix = 0xfe80000000000000ull;
	p->lid = 0;
	p->sm_lid = 0;
	p->cap_mask = CX3_DEFAULT_CAP_MASK;
	p->mkey_lease = 0;
	p->mkey_protect = 0;
	p->lmc = 0;
	p->sm_sl = 0;
	p->neighbor_mtu = IB_MTU_4096;
	p->mtu_cap = IB_MTU_4096;
	p->vl_cap = VL_CAP_VL0_7;
	p->op_vls = VL_CAP_VL0;		/* VL0 only until the SM says more */
	p->link_width_enabled = WIDTH_SUPPORTED;
	p->link_speed_enabled = SPEED_SUPPORTED;
	p->subnet_timeout = 0;
	p->resp_time = DEFAULT_RESP_TIME;
	p->hoq_life = DEFAULT_HOQ_LIFE;
	p->vl_high_limit = 0;
	p->init_type_reply = 0;
	p->local_phy_errors = DEFAULT_ERR_THRESHOLD;
	p->overrun_errors = DEFAULT_ERR_THRESHOLD;
	p->client_reregister = false;
	p->mkey_violations = 0;
	p->pkey_violations = 0;
	p->qkey_violations = 0;
	p->pkey_table_size = CX3_PKEY_TABLE;

	memset(p->pkeys, 0, sizeof(p->pkeys));
	p->pkeys[0] = 0xffff;
	memset(p->guids, 0, sizeof(p->guids));
	p->guids[0] = dev->node_guid + (uint64_t)num;
	/* Every SL on VL0, the only operational VL before the SM runs. */
	memset(p->sl2vl, 0, sizeof(p->sl2vl));
	memset(p->vlarb_high, 0, sizeof(p->vlarb_high));
	memset(p->vlarb_low, 0, sizeof(p->vlarb_low));
	p->pma_counter_select = 0;
	memset(&p->cnt, 0, sizeof(p->cnt));

	/* A reset also renews the allowance of diagnostic lines. */
	sma_log_budget = SMA_LOG_BUDGET;

	x->link_down_default = LINK_DOWN_POLLING;
	x->speed_ext_enabled = SPEED_EXT_SUPPORTED;
	x->vl_stall = DEFAULT_VL_STALL;
	x->enforce = 0;
	x->mcast_trap_supp = 0;
}

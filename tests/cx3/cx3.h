/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ConnectX-3 (PCI 15b3:1003) device model: the hardware logic.
 *
 * Nothing in the cx3_*.c files knows about QEMU.  The platform (the QEMU glue
 * in qemu_glue.c, or the unit tests in unit/) hands the model a struct
 * cx3_host with DMA, interrupt, wire and log callbacks and forwards MMIO
 * accesses to cx3_bar0_read/write and cx3_bar2_write.  Every callback runs
 * under one lock held by the platform (QEMU's BQL), so the model itself is
 * single-threaded.
 *
 * Every multi-byte field the guest sees (registers, mailboxes, contexts,
 * WQEs, CQEs, EQEs, MADs) is big-endian; the get/put helpers below are the
 * only way the model touches them.
 */
#ifndef CX3_H
#define CX3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CX3_VENDOR_ID		0x15b3
#define CX3_DEVICE_ID		0x1003
#define CX3_NUM_PORTS		2
#define CX3_BAR0_SIZE		(1u << 20)
#define CX3_UAR_PAGE		4096u
#define CX3_UAR_AREA		(8u << 20)	/* 2048 UAR pages, then ... */
#define CX3_BAR2_SIZE		(2 * CX3_UAR_AREA) /* ... a BlueFlame page each */
#define CX3_BF_LOG_REG		9		/* 512-byte BlueFlame registers */
#define CX3_BF_REG		(1u << CX3_BF_LOG_REG)
#define CX3_BF_HALF		(CX3_BF_REG / 2)	/* one WQE at most */
#define CX3_MSIX_VECTORS	32
#define CX3_MSIX_TABLE		0x7c000u	/* in BAR0, where real cards have it */
#define CX3_MSIX_PBA		0x7d000u
#define CX3_MAILBOX		4096u
#define CX3_ICM_MAX_LOG		40	/* max ICM size reported */

/* BAR0 registers */
#define CX3_HCR			0x80680u
#define CX3_HCR_SIZE		0x1cu
#define CX3_OWNERSHIP		0x8069cu
#define CX3_CLR_INT		0x80700u	/* 8 bytes */
#define CX3_CATAS		0x80800u	/* catas_size dwords */
#define CX3_CATAS_DWORDS	16u
#define CX3_RESET		0xf0010u
#define CX3_RESET_SEM		0xf03fcu

/* UAR page doorbells */
#define CX3_DB_SEND		0x14u
#define CX3_DB_CQ		0x20u
#define CX3_DB_EQ		0x800u

/* Command status (the HCR status byte and the completion EQE's status) */
enum {
	CX3_STAT_OK		= 0x00,
	CX3_STAT_INTERNAL_ERR	= 0x01,
	CX3_STAT_BAD_OP		= 0x02,
	CX3_STAT_BAD_PARAM	= 0x03,
	CX3_STAT_BAD_SYS_STATE	= 0x04,
	CX3_STAT_BAD_RESOURCE	= 0x05,
	CX3_STAT_RESOURCE_BUSY	= 0x06,
	CX3_STAT_EXCEED_LIM	= 0x08,
	CX3_STAT_BAD_RES_STATE	= 0x09,
	CX3_STAT_BAD_INDEX	= 0x0a,
	CX3_STAT_BAD_NVMEM	= 0x0b,
	CX3_STAT_ICM_ERROR	= 0x0c,
	CX3_STAT_BAD_QP_STATE	= 0x10,
	CX3_STAT_BAD_SEG_PARAM	= 0x20,
	CX3_STAT_REG_BOUND	= 0x21,
	CX3_STAT_BAD_PKT	= 0x30,
	CX3_STAT_BAD_SIZE	= 0x40,
};

/* ---------------------------------------------------------------------- */
/* Big-endian field access */

static inline uint16_t cx3_get16(const void *p, size_t off)
{
	const uint8_t *b = (const uint8_t *)p + off;

	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t cx3_get32(const void *p, size_t off)
{
	const uint8_t *b = (const uint8_t *)p + off;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

static inline uint64_t cx3_get64(const void *p, size_t off)
{
	return (uint64_t)cx3_get32(p, off) << 32 | cx3_get32(p, off + 4);
}

static inline void cx3_put16(void *p, size_t off, uint16_t v)
{
	uint8_t *b = (uint8_t *)p + off;

	b[0] = v >> 8;
	b[1] = v;
}

static inline void cx3_put32(void *p, size_t off, uint32_t v)
{
	uint8_t *b = (uint8_t *)p + off;

	b[0] = v >> 24;
	b[1] = v >> 16;
	b[2] = v >> 8;
	b[3] = v;
}

static inline void cx3_put64(void *p, size_t off, uint64_t v)
{
	cx3_put32(p, off, v >> 32);
	cx3_put32(p, off + 4, (uint32_t)v);
}

/* ---------------------------------------------------------------------- */
/* The platform */

struct cx3_host {
	void *opaque;
	/*
	 * Guest-physical DMA; 0 on success, -1 if the range is not memory.
	 * dma_read with buf == NULL only checks that the range is memory.
	 */
	int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
	int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
			 size_t len);
	bool (*msix_enabled)(void *opaque);
	void (*msix_notify)(void *opaque, unsigned int vector);
	/* Live (enabled and unmasked) MSI-X vectors, for the accounting. */
	unsigned int (*msix_live)(void *opaque);
	void (*intx_set)(void *opaque, int level);
	/*
	 * Send one link-layer message out of a port's cable to another
	 * QEMU (only for ports cabled to a peer VM; see cx3_port.c).
	 */
	void (*wire_send)(void *opaque, int port, const void *msg, size_t len);
	/* A monotonic clock in milliseconds (RNR timers). */
	uint64_t (*now_ms)(void *opaque);
	/* One line of log (no newline); the glue prefixes "cx3: ". */
	void (*log)(void *opaque, const char *line);
};

/* ---------------------------------------------------------------------- */
/* Ports and the subnet management agent's view of them */

/* Messages on a cable to another VM: byte 0 is the type */
#define CX3_WIRE_MSG_PHY	1	/* byte 1: the far PHY is on (1) or off */
#define CX3_WIRE_MSG_PKT	2	/* an InfiniBand packet follows */

enum cx3_cable {
	CX3_CABLE_NONE,		/* nothing plugged in */
	CX3_CABLE_LOOP,		/* port 1 <-> port 2 of this same card */
	CX3_CABLE_WIRE,		/* to a port of another VM, via host->wire_send */
};

/* IB PortInfo.PortState and PortPhysicalState values */
enum {
	CX3_PORT_NOP = 0, CX3_PORT_DOWN = 1, CX3_PORT_INIT = 2,
	CX3_PORT_ARMED = 3, CX3_PORT_ACTIVE = 4,
};

enum {
	CX3_PHYS_SLEEP = 1, CX3_PHYS_POLLING = 2, CX3_PHYS_DISABLED = 3,
	CX3_PHYS_LINKUP = 5,
};

#define CX3_PKEY_TABLE		128	/* P_Keys per port (log 7) */
#define CX3_GID_TABLE		128	/* GIDs per port (log 7) */

/* PMA counters; the data path counts, the PMA reports and clears. */
struct cx3_port_counters {
	uint64_t xmit_data;	/* in 32-bit words, as the PMA reports */
	uint64_t rcv_data;
	uint64_t xmit_pkts;
	uint64_t rcv_pkts;
	uint64_t ucast_xmit_pkts;
	uint64_t ucast_rcv_pkts;
	uint64_t mcast_xmit_pkts;
	uint64_t mcast_rcv_pkts;
	uint32_t symbol_errors;
	uint32_t rcv_errors;
	uint32_t xmit_discards;
	uint32_t vl15_dropped;
	uint32_t xmit_wait;
};

/*
 * Transport retries and errors, counted per port as DIAG_RPRT reports them
 * (op_mod 2, "transport and CI errors"); requester (sq) and responder (rq).
 */
struct cx3_diag_counters {
	uint32_t rq_oos, sq_oos;	/* PSN sequence error NAKs sent, taken */
	uint32_t rq_rnr, sq_rnr;	/* RNR NAKs sent, taken */
	uint32_t rq_dup;		/* duplicate requests answered */
	uint32_t sq_to;			/* local ACK timeouts */
	uint32_t sq_tree, sq_rree;	/* retry, RNR retry counts exceeded */
	uint32_t rq_rire, sq_rire;	/* invalid request NAKs sent, taken */
	uint32_t rq_rae, sq_rae;	/* remote access error NAKs sent, taken */
	uint32_t sq_roe;		/* remote operation error NAKs taken */
};

/*
 * What the cable does to the packets that leave a port (cx3_cable.c): a
 * test bed's lossy, noisy or long link, set by the glue's lossN, corruptN,
 * dropN, delayN and seed properties.  Kept across resets of the card.
 */
struct cx3_impair {
	uint32_t loss_ppm;		/* drop this many per million */
	uint32_t corrupt_ppm;		/* flip a bit (a bad ICRC) per million */
	uint32_t drop_next;		/* drop the next N packets */
	uint32_t drop_data_next;	/* ... of those to QPs other than 0, 1 */
	uint32_t delay_ms;		/* deliver each packet this much later */
	uint64_t rng;			/* xorshift64 state, from the seed */
	uint64_t seed;
	uint64_t dropped, corrupted, delayed;
};

struct cx3_port {
	int num;			/* 1 or 2 */
	enum cx3_cable cable;
	/*
	 * Test-bed shortcut, not a real card's behaviour: with a LID here the
	 * port goes ACTIVE with that LID as soon as its link is up, as if a
	 * subnet manager had configured it (for stacks with no MAD layer).
	 */
	uint16_t auto_lid;
	bool pulled;			/* the cable is unplugged (monitor) */
	bool phy_enabled;		/* INIT_PORT done, CLOSE_PORT not */
	bool peer_phy_enabled;		/* the far end of the cable is on */

	/* PortInfo, as the SMA reports it and the SM sets it */
	uint8_t state;			/* CX3_PORT_* */
	uint8_t phys_state;		/* CX3_PHYS_* */
	uint64_t mkey;
	uint64_t gid_prefix;
	uint16_t lid;
	uint16_t sm_lid;
	uint32_t cap_mask;		/* SET_PORT and Set(PortInfo) */
	uint16_t mkey_lease;
	uint8_t mkey_protect;
	uint8_t lmc;
	uint8_t sm_sl;
	uint8_t neighbor_mtu;		/* 1..5 */
	uint8_t mtu_cap;		/* 1..5, SET_PORT */
	uint8_t vl_cap;			/* 1 = VL0 .. 4 = VL0-7, SET_PORT */
	uint8_t op_vls;
	uint8_t link_width_enabled;
	uint8_t link_speed_enabled;
	uint8_t subnet_timeout;
	uint8_t resp_time;
	uint8_t hoq_life;
	uint8_t vl_high_limit;
	uint8_t init_type_reply;
	uint8_t local_phy_errors;
	uint8_t overrun_errors;
	bool client_reregister;
	uint16_t mkey_violations;
	uint16_t pkey_violations;
	uint16_t qkey_violations;
	uint16_t pkey_table_size;	/* SET_PORT; defaults to CX3_PKEY_TABLE */

	uint16_t pkeys[CX3_PKEY_TABLE];
	uint64_t guids[CX3_GID_TABLE];	/* GUIDInfo; [0] is the port GUID */
	uint8_t sl2vl[16];		/* one VL per SL */
	uint8_t vlarb_high[2 * 64];	/* {VL, weight} pairs */
	uint8_t vlarb_low[2 * 64];
	uint16_t pma_counter_select;

	struct cx3_port_counters cnt;
	struct cx3_diag_counters diag;
	struct cx3_impair impair;
};

/* ---------------------------------------------------------------------- */
/* Device state */

struct cx3_icm_map;		/* cx3_icm.c */
struct cx3_eq;			/* cx3_eq.c */
struct cx3_cq;			/* cx3_cq.c */
struct cx3_qp;			/* cx3_qp.c */
struct cx3_srq;			/* cx3_srq.c */
struct cx3_bf_page;		/* cx3_bf.c */
struct cx3_mpt;			/* cx3_mpt.c */
struct cx3_rx;			/* cx3_link.c */
struct cx3_held;		/* cx3_cable.c */

/* Live-object accounting: the leak detector for any driver. */
struct cx3_live {
	unsigned int eq, cq, qp, srq, mpt, mcg;
	unsigned long icm_pages, aux_pages, fa_pages;
};

/*
 * Work counters for make bench (read through the qom properties cmds,
 * uar-writes and interrupts): what a driver costs the card, whatever the
 * host's speed.  Counted since the VM started; never reset.
 */
struct cx3_counts {
	uint64_t cmds;		/* firmware commands executed (HCR GO) */
	uint64_t uar_writes;	/* MMIO writes to BAR2: doorbells, BlueFlame */
	uint64_t interrupts;	/* EQ interrupts raised (MSI-X or INTx) */
};

/* What INIT_HCA told the card about its ICM layout. */
struct cx3_hca {
	bool initialised;
	uint8_t init_mbox[0x200];	/* echoed by QUERY_HCA */
	uint32_t flags;
	uint64_t qpc_base, srqc_base, cqc_base, eqc_base, altc_base;
	uint64_t auxc_base, rdmarc_base, mcg_base, dmpt_base, cmpt_base;
	uint64_t mtt_base;
	uint8_t log_qps, log_srqs, log_cqs, log_eqs, log_mpts;
	uint8_t log_rd_per_qp;
	uint8_t log_mcg_entry, log_mcg_hash, log_mcg_table;
	uint8_t log_uar_size, uar_page_sz;
};

/*
 * Injected faults (cx3_fault.c), armed at run time through the glue's
 * cmd-hang, cmd-status, eq-overrun and flapN properties.  Each fires on the
 * next matching event, as many times as it was armed for, and logs a line
 * "fault: ..." when it does.  Armed faults survive a reset of the card (a
 * test may aim at the driver's reload); a hung command does not.
 */
#define CX3_FAULT_ANY_OP	0xffffu	/* cmd-hang/cmd-status: any opcode */
#define CX3_FAULT_ANY_EVENT	0xffu	/* eq-overrun: any event type */
#define CX3_FAULT_MAX_COUNT	1000u
#define CX3_FAULT_FLAP_MS	200u	/* flapN's default half period */

struct cx3_fault_flap {
	uint32_t left;			/* link transitions still to make */
	uint32_t ms;			/* how long each state lasts */
	uint64_t next;			/* host now_ms of the next transition */
};

struct cx3_fault {
	uint16_t hang_op;		/* cmd-hang: opcode or ANY_OP */
	uint32_t hang_left;		/* commands still to hang (0: unarmed) */
	bool hung;			/* a command hangs in the HCR now */
	uint16_t hung_op;
	uint16_t status_op;		/* cmd-status: opcode or ANY_OP */
	uint8_t status;			/* the status it answers */
	uint32_t status_left;
	uint8_t eq_type;		/* eq-overrun: event type or ANY_EVENT */
	uint32_t eq_left;
	struct cx3_fault_flap flap[CX3_NUM_PORTS];
	uint64_t fired;			/* faults fired since power-on */
};

/*
 * The wire fuzzer (cx3_wirefuzz.c), armed through the glue's wirefuzz
 * property: packets injected at a port's receive side as if from the cable.
 */
enum { CX3_WF_MAD, CX3_WF_CM, CX3_WF_IPOIB, CX3_WF_MIX };
/* what an injected packet was, for the counts */
enum {
	CX3_WF_SMP, CX3_WF_DR, CX3_WF_GMP, CX3_WF_RMPP, CX3_WF_CM_MSG,
	CX3_WF_IPOIB_PKT, CX3_WF_BAD_HDR, CX3_WF_NCLASS
};
#define CX3_WF_MAX		100000000ull	/* packets per arming */
#define CX3_WF_BURST		16	/* packets per poll tick at most */
#define CX3_WF_WAIT		200	/* ticks a packet waits for a receive WQE */
#define CX3_WF_PKT_MAX		(8 + 40 + 12 + 8 + 4096 + 8)

/* What the templates are built from: the port, its peer, IPoIB's QP */
struct cx3_wf_env {
	uint16_t lid, slid, sm_lid, pkey;
	uint64_t gid_prefix, guid, peer_guid;
	uint32_t mtu;			/* the largest UD payload */
	uint8_t mgid[16];		/* IPoIB's broadcast group */
	uint32_t ipoib_qpn, qkey;	/* its UD QP (0: none yet), Q_Key */
};

struct cx3_wirefuzz {
	int port;
	int kind;			/* CX3_WF_MAD .. CX3_WF_MIX */
	uint64_t total, left;		/* armed for, still to inject */
	uint64_t seed, rng;
	uint64_t injected;		/* since power-on */
	uint64_t count[CX3_WF_NCLASS];	/* of this arming, by class */
	uint64_t waits, stuck;		/* ticks waited; sent after CX3_WF_WAIT */
	uint32_t wait_ticks;
	uint8_t pending[CX3_WF_PKT_MAX];	/* the next packet, built */
	size_t pending_len;
	uint32_t pending_qpn;
	int pending_cls;
};

struct cx3_dev {
	struct cx3_host host;
	uint64_t node_guid;
	uint64_t sys_guid;
	char node_desc[64];

	/* BAR0 */
	uint32_t hcr[7];
	bool owned;
	uint32_t catas[CX3_CATAS_DWORDS];
	bool intx_level;

	/* Firmware life cycle */
	bool fw_running;		/* RUN_FW done */
	bool events;			/* MAP_EQ routed CMD events to some EQ */
	uint64_t icm_size;		/* SET_ICM_SIZE */
	struct cx3_hca hca;
	struct cx3_live live;
	struct cx3_counts counts;

	struct cx3_icm_map *icm;	/* ICM VA -> guest PA */
	uint32_t uar_cq_dw0[CX3_UAR_AREA / CX3_UAR_PAGE];
	struct cx3_bf_page *bf[CX3_UAR_AREA / CX3_UAR_PAGE];	/* cx3_bf.c */
	uint64_t bf_wqes;		/* WQEs posted through BlueFlame */

	/* Objects, indexed by number; arrays sized at INIT_HCA */
	struct cx3_eq **eqs;
	struct cx3_cq **cqs;
	struct cx3_qp **qps;
	struct cx3_srq **srqs;
	struct cx3_mpt **mpts;
	uint8_t **mcg;			/* MGM entries, allocated on write */

	struct cx3_qp *err_qps;		/* QPs in ERR, polled for new WQEs */
	struct cx3_qp *timer_qps;	/* RC requesters with a timer running */

	/* the pump (cx3_link.c): arrived packets, then kicked send queues */
	struct cx3_rx *rx_head, *rx_tail;
	bool pumping;
	bool rx_local;			/* the packet in delivery looped back */
	uint32_t *kicks;
	size_t nkicks, kicks_cap;
	uint32_t base_sqpn;		/* CONF_SPECIAL_QP; 0 = none */
	/* packets a cable delays, per port they left (cx3_cable.c) */
	struct cx3_held *held_head[CX3_NUM_PORTS], *held_tail[CX3_NUM_PORTS];
	struct cx3_port port[CX3_NUM_PORTS];
	unsigned long cmd_unknown;	/* commands refused as unknown */
	struct cx3_fault fault;		/* cx3_fault.c */
	struct cx3_wirefuzz wirefuzz;	/* cx3_wirefuzz.c */
	bool trace;			/* log every packet (property trace=on) */
};

/* A command as it arrived in the HCR */
struct cx3_cmd {
	uint64_t in_param;
	uint64_t out_param;		/* immediate output, or outbox address */
	uint32_t in_mod;
	uint16_t opcode;
	uint8_t op_mod;
	uint16_t token;
	bool event;
	uint8_t inbox[CX3_MAILBOX];	/* fetched on demand by cx3_cmd_inbox */
	uint8_t outbox[CX3_MAILBOX];	/* written back when out_len != 0 */
	size_t out_len;
	uint64_t imm_out;		/* returned in out_param if imm_out_set */
	bool imm_out_set;
};

/* cx3_regs.c: lifetime and MMIO */
void cx3_init(struct cx3_dev *dev, const struct cx3_host *host,
	      uint64_t node_guid, enum cx3_cable cable[CX3_NUM_PORTS]);
void cx3_reset(struct cx3_dev *dev);	/* the reset register, and power-on */
void cx3_fini(struct cx3_dev *dev);
void cx3_objects_free(struct cx3_dev *dev);
uint64_t cx3_bar0_read(struct cx3_dev *dev, uint32_t addr, unsigned int size);
void cx3_bar0_write(struct cx3_dev *dev, uint32_t addr, uint64_t val,
		    unsigned int size);
void cx3_bar2_write(struct cx3_dev *dev, uint32_t addr, uint64_t val,
		    unsigned int size);
void cx3_log(struct cx3_dev *dev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cx3_log_live(struct cx3_dev *dev, const char *when);
void cx3_raise_catas(struct cx3_dev *dev, uint32_t syndrome);

/*
 * After an internal error (cx3_raise_catas) the firmware is dead until the
 * driver writes the reset register, as on a real card: the catastrophic-
 * error buffer reads non-zero, a posted command is never executed (GO stays
 * set, no status, no completion event), UAR doorbells are ignored, no event
 * is raised and no packet is sent or received.  The reset makes it a fresh
 * card again (cx3_reset clears the buffer with everything else).
 */
static inline bool cx3_dead(const struct cx3_dev *dev)
{
	return dev->catas[0] != 0;
}

/* cx3_cmd.c: the command interface */
void cx3_cmd_execute(struct cx3_dev *dev, struct cx3_cmd *cmd, uint8_t *status);
int cx3_cmd_inbox(struct cx3_dev *dev, struct cx3_cmd *cmd, size_t len);

const char *cx3_cmd_name(uint16_t opcode);	/* NULL if unknown */

/*
 * cx3_fault.c: injected faults.  cx3_fault_set arms (or, with "off",
 * disarms) the fault NAME from its textual SPEC (the glue's property
 * value; grammar in cx3_fault.c); 0 on success, else -1 with the reason in
 * err.  cx3_fault_get writes the armed SPEC ("off" when unarmed).
 */
int cx3_fault_set(struct cx3_dev *dev, const char *name, const char *spec,
		  char *err, size_t errlen);
void cx3_fault_get(struct cx3_dev *dev, const char *name, char *buf,
		   size_t len);
/* the HCR's GO: true if this command hangs (never executed nor completed) */
bool cx3_fault_cmd_hang(struct cx3_dev *dev, uint16_t opcode, uint32_t in_mod);
/* before execution: true if it is answered with *status instead */
bool cx3_fault_cmd_status(struct cx3_dev *dev, const struct cx3_cmd *cmd,
			  uint8_t *status);
/* an EQE about to be written to EQ eqn: true if it overruns the EQ */
bool cx3_fault_eq_overrun(struct cx3_dev *dev, uint32_t eqn, uint8_t type);
void cx3_fault_reset(struct cx3_dev *dev);	/* the card's reset */
void cx3_fault_poll(struct cx3_dev *dev);	/* port flaps' timers */
bool cx3_fault_busy(struct cx3_dev *dev);	/* a flap under way */

/*
 * cx3_wirefuzz.c: the wire fuzzer.  cx3_wirefuzz_set arms it from its spec
 * PORT:N[:SEED[:KIND]] ("off" stops it; 0 or -1 for a bad spec), _get
 * writes what is armed; _poll injects the next packets (the platform's
 * poll); _env and _build make one packet from the seed's stream (*s), for
 * the poll and the unit tests: its length, the QPN it goes to and its
 * class (CX3_WF_SMP ..).
 */
int cx3_wirefuzz_set(struct cx3_dev *dev, const char *spec);
void cx3_wirefuzz_get(struct cx3_dev *dev, char *buf, size_t len);
void cx3_wirefuzz_poll(struct cx3_dev *dev);
bool cx3_wirefuzz_busy(struct cx3_dev *dev);
void cx3_wirefuzz_env(struct cx3_dev *dev, int port, struct cx3_wf_env *e);
size_t cx3_wirefuzz_build(const struct cx3_wf_env *e, uint64_t *s, int kind,
			  bool mutated, uint8_t *pkt, uint32_t *dqpn, int *cls);

/* cx3_icm.c: ICM, auxiliary and firmware-area page maps; MTT translation */
struct cx3_icm_map *cx3_icm_new(void);
void cx3_icm_free(struct cx3_icm_map *m);
int cx3_icm_to_pa(struct cx3_dev *dev, uint64_t va, uint64_t *pa);
int cx3_icm_read(struct cx3_dev *dev, uint64_t va, void *buf, size_t len);
int cx3_icm_write(struct cx3_dev *dev, uint64_t va, const void *buf,
		  size_t len);
bool cx3_icm_mapped(struct cx3_dev *dev, uint64_t va, size_t len);

/* A buffer described by MTT entries (EQ, CQ, QP and SRQ buffers, MRs) */
struct cx3_buf {
	uint64_t mtt_off;		/* byte offset into the MTT table */
	uint8_t page_shift;		/* 12 + log_page_size */
	uint64_t size;			/* bytes, for bounds checks */
};

int cx3_buf_read(struct cx3_dev *dev, const struct cx3_buf *b, uint64_t off,
		 void *data, size_t len);
int cx3_buf_write(struct cx3_dev *dev, const struct cx3_buf *b, uint64_t off,
		  const void *data, size_t len);

/* cx3_eq.c */
void cx3_eq_post(struct cx3_dev *dev, uint8_t type, uint8_t subtype,
		 const uint8_t data[24]);
void cx3_eq_post_to(struct cx3_dev *dev, uint32_t eqn, uint8_t type,
		    uint8_t subtype, const uint8_t data[24]);
void cx3_eq_doorbell(struct cx3_dev *dev, uint32_t eqn, uint32_t val);
void cx3_eq_clear_all(struct cx3_dev *dev);

/* cx3_cq.c */
void cx3_cq_doorbell(struct cx3_dev *dev, uint32_t dw0, uint32_t ci);
int cx3_cq_push(struct cx3_dev *dev, uint32_t cqn, const uint8_t cqe[32],
		bool solicited);
void cx3_cq_clear_all(struct cx3_dev *dev);
bool cx3_cq_exists(struct cx3_dev *dev, uint32_t cqn);

/* cx3_qp.c */
void cx3_poll(struct cx3_dev *dev);	/* every millisecond or so */
void cx3_qp_send_doorbell(struct cx3_dev *dev, uint32_t qpn);
void cx3_bf_write(struct cx3_dev *dev, uint32_t off, uint64_t val,
		  unsigned int size);
void cx3_bf_clear(struct cx3_dev *dev);
void cx3_qp_clear_all(struct cx3_dev *dev);
struct cx3_qp *cx3_qp_get(struct cx3_dev *dev, uint32_t qpn);

/* cx3_srq.c */
void cx3_srq_clear_all(struct cx3_dev *dev);
struct cx3_srq *cx3_srq_get(struct cx3_dev *dev, uint32_t srqn);

/* cx3_mpt.c */
void cx3_mpt_clear_all(struct cx3_dev *dev);

/* cx3_mcg.c */
void cx3_mcg_clear_all(struct cx3_dev *dev);

/* cx3_link.c: the pump that runs arrived packets and kicked send queues */
void cx3_pump(struct cx3_dev *dev);
void cx3_link_clear(struct cx3_dev *dev);
void cx3_port_wire_packet(struct cx3_dev *dev, int port, const uint8_t *pkt,
			  size_t len);
bool cx3_needs_poll(struct cx3_dev *dev);
/* the cable's side: a packet handed to it, after the link's checks */
void cx3_link_cable_out(struct cx3_dev *dev, int port, const uint8_t *pkt,
			size_t len);

/* cx3_cable.c: the cable's impairments (struct cx3_impair) */
void cx3_cable_xmit(struct cx3_dev *dev, int port, uint8_t *pkt, size_t len);
void cx3_cable_poll(struct cx3_dev *dev);
bool cx3_cable_busy(struct cx3_dev *dev);
void cx3_cable_clear(struct cx3_dev *dev);
void cx3_cable_seed(struct cx3_dev *dev, uint64_t seed);

/* cx3_port.c: cabling, link state, port commands */
void cx3_port_reset(struct cx3_dev *dev);
void cx3_port_set_state(struct cx3_dev *dev, int port, uint8_t state);
void cx3_port_wire_recv(struct cx3_dev *dev, int port, const void *msg,
			size_t len);
void cx3_port_wire_connected(struct cx3_dev *dev, int port, bool connected);
void cx3_port_set_plugged(struct cx3_dev *dev, int port, bool plugged);

/*
 * cx3_sma.c: the firmware's subnet management and performance agents,
 * reached through MAD_IFC.  in and out are 256-byte MADs; ext is the
 * 256-byte extended info (op_mod bit 2) or NULL.  Returns a command status:
 * CX3_STAT_OK with a response in out, or CX3_STAT_BAD_PKT when the MAD
 * gets no response (the driver then drops it).
 */
uint8_t cx3_mad_ifc(struct cx3_dev *dev, int port, uint8_t op_mod,
		    uint16_t slid, const uint8_t *in, const uint8_t *ext,
		    uint8_t *out);
void cx3_sma_port_defaults(struct cx3_dev *dev, struct cx3_port *p);

/* Command handlers, one table in cx3_cmd.c */
typedef uint8_t (*cx3_cmd_fn)(struct cx3_dev *dev, struct cx3_cmd *cmd);

#endif /* CX3_H */

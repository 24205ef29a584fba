/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mlx4_core private state: everything behind mlx4_dev->priv.  The public
 * interface to mlx4_ib is <ibstack/mlx4.h>; nothing here is seen by it.
 */
#ifndef MLX4_CORE_PRIV_H
#define MLX4_CORE_PRIV_H

#include <ibstack/mlx4.h>
#include <linux/dmapool.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/semaphore.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#define MLX4_NUM_PDS		BIT(15)	/* protection domains we ask for */

#define DRV_NAME		"mlx4_core"

/* The card's ICM and mailbox page size, whatever the host's is. */
#define MLX4_ICM_PAGE_SHIFT	12
#define MLX4_ICM_PAGE_SIZE	BIT(MLX4_ICM_PAGE_SHIFT)
/* ICM tables are populated in chunks of this many bytes. */
#define MLX4_ICM_CHUNK_SIZE	(256UL * 1024)
#define MLX4_MAILBOX_SIZE	4096

/* BAR0 registers at fixed offsets */
#define MLX4_HCR_BASE		0x80680
#define MLX4_HCR_SIZE		0x1c
#define MLX4_OWNER_BASE		0x8069c
#define MLX4_RESET_BASE		0xf0000
#define MLX4_RESET_REG		0x10
#define MLX4_RESET_SEM		0x3fc

/* Firmware opcodes used inside mlx4_core */
enum {
	MLX4_CMD_QUERY_DEV_CAP	= 0x003,
	MLX4_CMD_QUERY_FW	= 0x004,
	MLX4_CMD_QUERY_ADAPTER	= 0x006,
	MLX4_CMD_INIT_HCA	= 0x007,
	MLX4_CMD_CLOSE_HCA	= 0x008,
	MLX4_CMD_QUERY_HCA	= 0x00b,
	MLX4_CMD_SW2HW_MPT	= 0x00d,
	MLX4_CMD_HW2SW_MPT	= 0x00f,
	MLX4_CMD_MAP_EQ		= 0x012,
	MLX4_CMD_SW2HW_EQ	= 0x013,
	MLX4_CMD_HW2SW_EQ	= 0x014,
	MLX4_CMD_SW2HW_CQ	= 0x016,
	MLX4_CMD_HW2SW_CQ	= 0x017,
	MLX4_CMD_RST2INIT_QP	= 0x019,
	MLX4_CMD_INIT2RTR_QP	= 0x01a,
	MLX4_CMD_RTR2RTS_QP	= 0x01b,
	MLX4_CMD_RTS2RTS_QP	= 0x01c,
	MLX4_CMD_SQERR2RTS_QP	= 0x01d,
	MLX4_CMD_2ERR_QP	= 0x01e,
	MLX4_CMD_RTS2SQD_QP	= 0x01f,
	MLX4_CMD_SQD2RTS_QP	= 0x020,
	MLX4_CMD_2RST_QP	= 0x021,
	MLX4_CMD_CONF_SPECIAL_QP = 0x023,
	MLX4_CMD_READ_MCG	= 0x025,
	MLX4_CMD_WRITE_MCG	= 0x026,
	MLX4_CMD_MGID_HASH	= 0x027,
	MLX4_CMD_MODIFY_CQ	= 0x02c,
	MLX4_CMD_INIT2INIT_QP	= 0x02d,
	MLX4_CMD_NOP		= 0x031,
	MLX4_CMD_MOD_STAT_CFG	= 0x034,
	MLX4_CMD_SW2HW_SRQ	= 0x035,
	MLX4_CMD_HW2SW_SRQ	= 0x036,
	MLX4_CMD_QUERY_SRQ	= 0x037,
	MLX4_CMD_SQD2SQD_QP	= 0x038,
	MLX4_CMD_ARM_SRQ	= 0x040,
	MLX4_CMD_QUERY_PORT	= 0x043,
	MLX4_CMD_RUN_FW		= 0xff6,
	MLX4_CMD_UNMAP_ICM	= 0xff9,
	MLX4_CMD_MAP_ICM	= 0xffa,
	MLX4_CMD_UNMAP_ICM_AUX	= 0xffb,
	MLX4_CMD_MAP_ICM_AUX	= 0xffc,
	MLX4_CMD_SET_ICM_SIZE	= 0xffd,
	MLX4_CMD_UNMAP_FA	= 0xffe,
	MLX4_CMD_MAP_FA		= 0xfff,
};

/* Short command timeouts used inside mlx4_core, in milliseconds */
#define MLX4_CMD_TIME_NOP	10000

/* ---------------------------------------------------------------------- */
/* Number allocators (alloc.c) */

struct mlx4_bitmap {
	unsigned long	*bits;
	u32		num;		/* bits */
	u32		reserved;	/* the lowest numbers are never handed out */
	u32		next;		/* where the next search starts (round robin) */
	/*
	 * Hand out the lowest free numbers instead, reusing a freed one at
	 * once: for MPTs and MTTs, which raise no events, so that their ICM
	 * chunks stay mapped while objects come and go (upstream's MLX4_NO_RR);
	 * the round robin would map and unmap a chunk around every
	 * registration once the numbers walk past the first one.
	 */
	bool		lowest;
	spinlock_t	lock;		/* protects bits and next */
};

int mlx4_bitmap_init(struct mlx4_bitmap *bm, u32 num, u32 reserved);
void mlx4_bitmap_cleanup(struct mlx4_bitmap *bm);
int mlx4_bitmap_alloc(struct mlx4_bitmap *bm, u32 cnt, u32 align, u32 *obj);
void mlx4_bitmap_free(struct mlx4_bitmap *bm, u32 obj, u32 cnt);

/* Doorbell-record pages (alloc.c) */
struct mlx4_db_table {
	struct list_head	pages;	/* struct mlx4_db_page */
	struct mutex		mutex;	/* protects pages and their bitmaps */
};

/* ---------------------------------------------------------------------- */
/* Firmware commands (cmd.c) */

struct mlx4_cmd_context {
	struct completion	done;
	int			result;
	u8			fw_status;	/* the firmware's, 0 if none */
	u64			out_param;
	u16			token;
	bool			busy;
	int			next_free;
};

struct mlx4_cmd {
	struct dma_pool		*pool;
	void __iomem		*hcr;
	/* held while the HCR is written (and, in polling mode, until done) */
	struct mutex		hcr_mutex;
	/* read: a command is running; write: the mode changes */
	struct rw_semaphore	mode_sem;
	struct semaphore	event_sem;	/* free contexts in event mode */
	spinlock_t		context_lock;	/* contexts, free_head, tokens */
	struct mlx4_cmd_context	*contexts;
	int			free_head;
	int			max_cmds;
	u16			token_mask;
	u8			toggle;		/* under hcr_mutex */
	bool			use_events;	/* changed under mode_sem (write) */
};

/* ---------------------------------------------------------------------- */
/* What QUERY_FW and QUERY_DEV_CAP report (fw.c) */

struct mlx4_fw {
	u64	fw_ver;
	u16	fw_pages;
	u16	cmd_if_rev;
	u8	log_max_cmds;
	u64	clr_int_base;
	u8	clr_int_bar;
	u64	catas_offset;
	u32	catas_size;		/* dwords */
	u8	catas_bar;
	u8	inta_pin;
};

struct mlx4_dev_cap {
	int	max_srq_sz, max_qp_sz;
	int	reserved_qps, max_qps;
	int	reserved_srqs, max_srqs;
	int	reserved_xrcds, max_xrcds;
	int	max_cq_sz, reserved_cqs, max_cqs;
	int	max_mpts, reserved_eqs, max_eqs;
	int	reserved_mtts, reserved_mrws;
	u64	max_mrw_sz;
	int	max_requester_per_qp, max_responder_per_qp;
	int	local_ca_ack_delay;
	int	num_ports;
	u32	max_msg_sz;
	u32	max_gso_sz;		/* 0: no LSO */
	u16	stat_rate_support;
	u64	flags;
	int	reserved_uars;
	int	uar_size;
	/* BlueFlame: bytes of a register (0: none) and registers per page */
	int	bf_reg_size;
	int	bf_regs_per_page;
	int	min_page_sz;
	int	max_sq_sg, max_sq_desc_sz, max_rq_sg, max_rq_desc_sz;
	int	max_qp_per_mcg, reserved_mgms, max_mcgs;
	int	reserved_pds, max_pds;
	int	rdmarc_entry_sz, qpc_entry_sz, aux_entry_sz, altc_entry_sz;
	int	eqc_entry_sz, cqc_entry_sz, srq_entry_sz, cmpt_entry_sz;
	int	mtt_entry_sz, dmpt_entry_sz;
	u32	bmme_flags;
	u32	reserved_lkey;
	u64	max_icm_sz;
	/* QUERY_PORT, per port (index 1..2) */
	int	port_supported_type[MLX4_MAX_PORTS + 1];
	int	ib_mtu[MLX4_MAX_PORTS + 1];
	int	max_vl[MLX4_MAX_PORTS + 1];
	int	max_port_width[MLX4_MAX_PORTS + 1];
	int	max_gids[MLX4_MAX_PORTS + 1];
	int	max_pkeys[MLX4_MAX_PORTS + 1];
};

/* ---------------------------------------------------------------------- */
/* ICM (icm.c, profile.c) */

struct mlx4_icm_mem {
	void		*buf;
	dma_addr_t	dma;
	unsigned int	order;		/* log2 of 4 KiB pages */
};

/* Host memory handed to the card: naturally aligned coherent blocks. */
struct mlx4_icm {
	unsigned int		nmem;
	struct mlx4_icm_mem	mem[];
};

/* One ICM context table, mapped chunk by chunk as objects appear. */
struct mlx4_icm_table {
	const char		*name;
	u64			virt;		/* ICM address of object 0 */
	u32			obj_size;
	u32			num_obj;
	u32			chunk_size;
	u32			num_chunks;
	struct mutex		mutex;		/* chunks and refs */
	struct mlx4_icm		**chunks;
	u32			*refs;
};

enum { MLX4_CMPT_QP, MLX4_CMPT_SRQ, MLX4_CMPT_CQ, MLX4_CMPT_EQ, MLX4_CMPT_NUM };
#define MLX4_CMPT_SHIFT		24	/* each cMPT type spans 2^24 entries */

/* The ICM layout chosen by profile.c, also the INIT_HCA parameters */
struct mlx4_profile {
	u64	qpc_base, rdmarc_base, altc_base, auxc_base;
	u64	srqc_base, cqc_base, eqc_base, dmpt_base, cmpt_base;
	u64	mtt_base, mcg_base;
	u8	log_num_qps, log_rd_per_qp, log_num_srqs, log_num_cqs;
	u8	log_num_eqs, log_num_mpts, log_mcg_entry_sz, log_mcg_hash_sz;
	u8	log_mcg_table_sz;
	u32	num_mtts;
	u64	total;
};

/* ---------------------------------------------------------------------- */
/* Event queues (eq.c) */

struct mlx4_priv;

struct mlx4_eq {
	struct mlx4_priv	*priv;
	int			eqn;
	u32			nent;
	u32			cons_index;
	void __iomem		*doorbell;
	int			irq;		/* Linux IRQ (MSI-X mode) */
	bool			irq_requested;
	char			irq_name[32];
	int			npages;
	struct mlx4_buf_list	*pages;
	struct mlx4_mtt		mtt;
	bool			hw_owned;	/* SW2HW_EQ done */
};

struct mlx4_eq_table {
	struct mlx4_bitmap	bitmap;
	struct mlx4_eq		*eqs;		/* [0] async, [1..] completion */
	int			num_eqs;	/* entries in eqs */
	int			num_comp;
	int			nvec;		/* MSI-X vectors, 0 for INTx */
	bool			intx_requested;
	void __iomem		*clr_int;
	u32			clr_mask;
	void __iomem		*uar_map[32];	/* EQ doorbell pages, eqn / 4 */
};

/* ---------------------------------------------------------------------- */
/* Objects that events are routed to (cq.c, qp.c, srq.c) */

struct mlx4_obj_table {
	struct mlx4_bitmap	bitmap;
	/* number -> object; its lock (IRQ-safe) orders lookups and removal */
	struct xarray		xa;
};

struct mlx4_mcg_table {
	struct mutex		mutex;		/* serialises attach/detach */
	struct mlx4_bitmap	amgm;		/* chain entries after the hash */
};

struct mlx4_uar_table {
	struct mlx4_bitmap	bitmap;
};

/* ---------------------------------------------------------------------- */
/* Interfaces (intf.c) */

struct mlx4_device_context {
	struct list_head	list;
	struct mlx4_interface	*intf;
	void			*context;
};

/*
 * Events that came while an interface's add() ran, before its context was
 * on the list: handed to it as soon as it is (the last one of each port,
 * and a catastrophic error).  Under ctx_lock.
 */
struct mlx4_add_window {
	bool			open;
	bool			fatal;
	u8			port_event[MLX4_MAX_PORTS + 1];	/* event + 1, 0: none */
};

/*
 * The card's health (catas.c): NONE; FAILING once an error is seen
 * (commands refused, the reset under way); DEAD once the card is reset and
 * can no longer touch host memory, until the recovery reloads it.
 */
enum mlx4_err_state {
	MLX4_ERR_NONE,
	MLX4_ERR_FAILING,
	MLX4_ERR_DEAD,
};

/* ---------------------------------------------------------------------- */

struct mlx4_priv {
	struct mlx4_dev		dev;

	/* on the device list, interfaces added; both under the intf mutex */
	struct list_head	dev_list;
	bool			registered;
	/* interface contexts; changed under both ctx_lock and the intf mutex */
	struct list_head	ctx_list;
	spinlock_t		ctx_lock;	/* ctx_list, add_window, dispatch */
	struct mlx4_add_window	add_window;

	void __iomem		*bar0;
	bool			loaded;		/* mlx4_load() succeeded */
	bool			msi_x;		/* try MSI-X at the next load */

	struct mlx4_cmd		cmd;
	struct mlx4_fw		fw;
	struct mlx4_dev_cap	dev_cap;
	struct mlx4_profile	profile;

	struct mlx4_icm		*fw_icm;
	struct mlx4_icm		*aux_icm;
	struct mlx4_icm_table	qpc_table, auxc_table, altc_table, rdmarc_table;
	struct mlx4_icm_table	cmpt_table[MLX4_CMPT_NUM];
	struct mlx4_icm_table	srqc_table, cqc_table, eqc_table;
	struct mlx4_icm_table	dmpt_table, mtt_table, mcg_icm_table;

	struct mlx4_uar_table	uar_table;
	struct mlx4_uar		kuar;
	struct mlx4_bitmap	pd_bitmap;
	struct mlx4_bitmap	xrcd_bitmap;	/* XRC domain numbers */
	struct mlx4_bitmap	mpt_bitmap;
	struct mlx4_bitmap	mtt_bitmap;
	struct mlx4_db_table	db_table;
	struct mlx4_eq_table	eq_table;
	struct mlx4_obj_table	cq_table;
	struct mlx4_obj_table	srq_table;
	struct mlx4_obj_table	qp_table;
	struct mlx4_mcg_table	mcg_table;
	int			base_sqpn;

	/*
	 * Catastrophic errors and the recovery (catas.c).  The card's own
	 * ordered workqueue runs its error-buffer poll and its health work,
	 * so that no card waits for another's recovery.
	 */
	struct workqueue_struct	*health_wq;
	void __iomem		*catas_buf;
	struct delayed_work	catas_poll;
	struct work_struct	health_work;	/* tell the clients, then recover */
	/* err_state leaves NONE under it; held across the reset */
	struct mutex		err_mutex;
	atomic_t		err_state;	/* enum mlx4_err_state */
	/* a recovery against the removal; held across the whole recovery */
	struct mutex		restart_mutex;
	bool			removing;	/* under restart_mutex: no recovery */
	unsigned int		restarts;
};

static inline struct mlx4_priv *mlx4_priv(struct mlx4_dev *dev)
{
	return dev->priv;
}

static inline struct device *mlx4_dma_dev(struct mlx4_dev *dev)
{
	return &dev->pdev->dev;
}

/* main.c */
int mlx4_load(struct mlx4_priv *priv);
void mlx4_unload(struct mlx4_priv *priv);

/* reset.c */
int mlx4_get_ownership(struct mlx4_priv *priv);
void mlx4_free_ownership(struct mlx4_priv *priv);
int mlx4_reset(struct mlx4_priv *priv);

/* cmd.c */
int mlx4_cmd_init(struct mlx4_priv *priv);
void mlx4_cmd_cleanup(struct mlx4_priv *priv);
int mlx4_cmd_use_events(struct mlx4_priv *priv);
void mlx4_cmd_use_polling(struct mlx4_priv *priv);
void mlx4_cmd_event(struct mlx4_priv *priv, u16 token, u8 status, u64 out_param);
void mlx4_cmd_fence(struct mlx4_priv *priv);
void mlx4_cmd_wake_all(struct mlx4_priv *priv);

/* fw.c */
int mlx4_QUERY_FW(struct mlx4_priv *priv);
int mlx4_map_fa_and_run(struct mlx4_priv *priv);
void mlx4_unmap_fa(struct mlx4_priv *priv);
int mlx4_QUERY_DEV_CAP(struct mlx4_priv *priv);
int mlx4_QUERY_PORT(struct mlx4_priv *priv, int port);
int mlx4_MOD_STAT_CFG(struct mlx4_priv *priv);
u64 mlx4_query_port_guid(struct mlx4_priv *priv, int port);
int mlx4_SET_ICM_SIZE(struct mlx4_priv *priv, u64 icm_size, u64 *aux_pages);
int mlx4_INIT_HCA(struct mlx4_priv *priv);
int mlx4_QUERY_HCA_clock(struct mlx4_priv *priv);
int mlx4_CLOSE_HCA(struct mlx4_priv *priv);
int mlx4_QUERY_ADAPTER(struct mlx4_priv *priv);
int mlx4_NOP(struct mlx4_priv *priv);

/* profile.c */
int mlx4_make_profile(struct mlx4_priv *priv);

/* icm.c */
struct mlx4_icm *mlx4_icm_alloc(struct mlx4_priv *priv, unsigned long npages);
void mlx4_icm_free(struct mlx4_priv *priv, struct mlx4_icm *icm);
int mlx4_icm_map(struct mlx4_priv *priv, u16 op, struct mlx4_icm *icm, u64 virt);
int mlx4_init_icm(struct mlx4_priv *priv);
void mlx4_cleanup_icm(struct mlx4_priv *priv);
int mlx4_table_get(struct mlx4_priv *priv, struct mlx4_icm_table *t, u32 obj);
void mlx4_table_put(struct mlx4_priv *priv, struct mlx4_icm_table *t, u32 obj);
int mlx4_obj_number_get(struct mlx4_priv *priv, struct mlx4_bitmap *bitmap,
			struct mlx4_icm_table *ctx, struct mlx4_icm_table *cmpt, u32 *num);
void mlx4_obj_number_put(struct mlx4_priv *priv, struct mlx4_bitmap *bitmap,
			 struct mlx4_icm_table *ctx, struct mlx4_icm_table *cmpt, u32 num);
int mlx4_table_get_range(struct mlx4_priv *priv, struct mlx4_icm_table *t,
			 u32 start, u32 end);
void mlx4_table_put_range(struct mlx4_priv *priv, struct mlx4_icm_table *t,
			  u32 start, u32 end);
void *mlx4_table_find(struct mlx4_icm_table *t, u32 obj);

/* alloc.c */
void mlx4_init_db_table(struct mlx4_priv *priv);
void mlx4_cleanup_db_table(struct mlx4_priv *priv);

/* uar.c */
int mlx4_init_uar_table(struct mlx4_priv *priv);
void mlx4_cleanup_uar_table(struct mlx4_priv *priv);

/* mr.c */
int mlx4_init_mr_table(struct mlx4_priv *priv);
void mlx4_cleanup_mr_table(struct mlx4_priv *priv);

/*
 * An MPT entry (64 bytes), as SW2HW_MPT takes it (mr.c: regions, mw.c:
 * windows).  The top nibble of the flags is the entry's status.
 */
#define MPT_FLAGS		0x00
#define MPT_QPN			0x04
#define MPT_KEY			0x08
#define MPT_PD_FLAGS		0x0c
#define MPT_START		0x10
#define MPT_LENGTH		0x18
#define MPT_MTT_ADDR		0x2c
#define MPT_MTT_SZ		0x34
#define MPT_ENTITY_SIZE		0x38
#define MPT_SIZE		0x40

#define MPT_FLAG_SW_OWNS	(0xfU << 28)
#define MPT_FLAG_FREE		(0x3U << 28)	/* hardware owns it, unregistered */
#define MPT_FLAG_MIO		BIT(17)
#define MPT_FLAG_PHYSICAL	BIT(9)
#define MPT_FLAG_REGION		BIT(8)		/* clear: a memory window */
#define MPT_PD_FLAG_EN_INV	(3U << 24)
#define MPT_PD_FLAG_FAST_REG	BIT(27)
#define MPT_PD_FLAG_RAE		BIT(28)		/* remote access enable */
#define MPT_QP_FLAG_BOUND_QP	BIT(7)		/* a type 2 window */

/* [any] keys: the MPT index above the 8 bits the consumer may vary */
static inline u32 mlx4_index_to_key(u32 index)
{
	return index << 8;
}

static inline u32 mlx4_key_to_index(struct mlx4_dev *dev, u32 key)
{
	return (key >> 8) & (dev->caps.num_mpts - 1);
}

/* The hardware form of a key: the index in the low bits, the variant on top */
static inline u32 mlx4_key_to_hw(u32 key)
{
	return (key << 24) | (key >> 8);
}

/* eq.c */
int mlx4_init_eq_table(struct mlx4_priv *priv);
void mlx4_cleanup_eq_table(struct mlx4_priv *priv);
int mlx4_comp_eqn(struct mlx4_priv *priv, unsigned int vector);

/* cq.c, srq.c, qp.c */
int mlx4_init_cq_table(struct mlx4_priv *priv);
void mlx4_cleanup_cq_table(struct mlx4_priv *priv);
void mlx4_cq_completion(struct mlx4_priv *priv, u32 cqn);
void mlx4_cq_event(struct mlx4_priv *priv, u32 cqn, enum mlx4_event type);
int mlx4_init_srq_table(struct mlx4_priv *priv);
void mlx4_cleanup_srq_table(struct mlx4_priv *priv);
void mlx4_srq_event(struct mlx4_priv *priv, u32 srqn, enum mlx4_event type);
int mlx4_init_qp_table(struct mlx4_priv *priv);
void mlx4_cleanup_qp_table(struct mlx4_priv *priv);
void mlx4_qp_event(struct mlx4_priv *priv, u32 qpn, enum mlx4_event type);

/* mcg.c */
int mlx4_init_mcg_table(struct mlx4_priv *priv);
void mlx4_cleanup_mcg_table(struct mlx4_priv *priv);

/* port.c */
int mlx4_init_ports(struct mlx4_priv *priv);

/* intf.c */
void mlx4_register_device(struct mlx4_priv *priv);
void mlx4_unregister_device(struct mlx4_priv *priv);
void mlx4_dispatch_event(struct mlx4_priv *priv, enum mlx4_dev_event type,
			 unsigned long param);

/* catas.c */
int mlx4_init_catas(struct mlx4_priv *priv);
void mlx4_cleanup_catas(struct mlx4_priv *priv);
void mlx4_enter_error_state(struct mlx4_priv *priv);
void mlx4_wait_quiet(struct mlx4_priv *priv);
void mlx4_start_catas_poll(struct mlx4_priv *priv);
void mlx4_stop_catas_poll(struct mlx4_priv *priv);
void mlx4_forbid_restart(struct mlx4_priv *priv);
int mlx4_map_catas(struct mlx4_priv *priv);
void mlx4_unmap_catas(struct mlx4_priv *priv);

#endif /* MLX4_CORE_PRIV_H */

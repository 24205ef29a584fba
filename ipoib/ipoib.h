/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_ipoib's private structures and the interfaces between its files
 * (docs/ipoib.md).
 *
 * One struct ipoib_dev per interface (netdev_priv of ib0): the UD QP, its
 * CQs and rings, the multicast groups, the path cache and the neighbours.
 *
 * Locks:
 *  - priv->lock (spinlock, irqsave): the path tree and list, the neighbour
 *    hash, every neighbour's and path's queue and AH pointer, the multicast
 *    tree and list with each group's AH, queue and flags, the dead AH list
 *    and every AH reference count.  start_xmit takes it for the lookups and
 *    posts the send under it.
 *  - the netdev's tx lock (start_xmit's context) owns tx_head; the send CQ's
 *    NAPI owns tx_tail.  Everything that transmits outside start_xmit
 *    (queued packets once a path or group is ready) goes back through
 *    dev_queue_xmit(), so there is one producer on the send ring.
 *  - RTNL: open, stop, the flushes (port events), MTU and mode changes.
 *    A work item on priv->wq never waits for RTNL (rtnl_trylock and give
 *    up when the interface goes down), because ndo_stop flushes priv->wq
 *    under RTNL.
 *  - priv->mcast_mutex: joins and leaves of the multicast groups (the
 *    join task, the restart task, the flushes and stop), so that a group
 *    is joined or left by one of them at a time.
 *  - RTNL also guards the P_Key children (child.c): a parent's
 *    priv->children and each child's child_list, parent and child_kind.
 *    Every path that adds, removes or walks them holds it (the sysfs
 *    stores through rtnl_trylock, the flushes, open and stop, ndo_uninit,
 *    the rtnl_link_ops), so there is no lock of their own.
 * Order: RTNL, then mcast_mutex, then priv->lock.
 */
#ifndef IBSTACK_IPOIB_H
#define IBSTACK_IPOIB_H

#include <linux/if_infiniband.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rbtree.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_pack.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>

#define IPOIB_PFX "ib_ipoib: "

/* the 4-byte encapsulation header on the wire (EtherType, 2 zero bytes) */
struct ipoib_header {
	__be16	proto;
	__be16	reserved;
};

/*
 * In front of it inside an skb (never sent): the destination's hardware
 * address, put there by header_ops->create and read by start_xmit.
 */
struct ipoib_pseudo_header {
	u8	hwaddr[INFINIBAND_ALEN];
};

#define IPOIB_ENCAP_LEN		4
#define IPOIB_PSEUDO_LEN	20
#define IPOIB_HARD_LEN		(IPOIB_ENCAP_LEN + IPOIB_PSEUDO_LEN)

/* hardware address byte 0 */
#define IPOIB_ADDR_RC		0x80	/* connected mode accepted */
#define IPOIB_QPN_MASK		0xffffff
#define IPOIB_MCAST_QPN		0xffffff

#define IPOIB_UD_HEAD_SIZE	IB_GRH_BYTES
#define IPOIB_MIN_MTU		68
#define IPOIB_CM_MTU		65520	/* the largest connected-mode MTU */

#define IPOIB_DEF_SENDQ		128
#define IPOIB_MAX_QUEUE_SIZE	8192
#define IPOIB_MIN_SENDQ		128
#define IPOIB_MIN_RECVQ		2
#define IPOIB_DEF_RECVQ		256
#define IPOIB_NUM_WC		4	/* completions polled at once (rx weight) */
#define IPOIB_TX_WEIGHT		64

#define IPOIB_MAX_PATH_QUEUE	3	/* packets waiting for a path */
#define IPOIB_MAX_MCAST_QUEUE	64	/* packets waiting for a send-only join */
#define IPOIB_PATH_TIMEOUT_MS	1000
#define IPOIB_MAX_BACKOFF	16	/* seconds between join tries, at most */

/* wr_id: the ring index, and these */
#define IPOIB_OP_RECV		BIT(31)
#define IPOIB_OP_CM		BIT(30)

/* connected mode (RFC 4755 as Linux does it) */
#define IPOIB_CM_IETF_ID	0x1000000000000000ULL	/* | the UD QPN */
#define IPOIB_CM_BUF_SIZE	(IPOIB_CM_MTU + IPOIB_ENCAP_LEN)	/* 65524 */
#define IPOIB_CM_HEAD_SIZE	(IPOIB_CM_BUF_SIZE % PAGE_SIZE)
#define IPOIB_CM_RX_SG		DIV_ROUND_UP(IPOIB_CM_BUF_SIZE, PAGE_SIZE)
/* room for the pseudo header; the IP header 16-byte aligned */
#define IPOIB_CM_RX_RESERVE	(ALIGN(IPOIB_HARD_LEN, 16) - IPOIB_ENCAP_LEN)
#define IPOIB_CM_COPYBREAK	256	/* smaller frames are copied */
#define IPOIB_CM_DRAIN_WRID	0xffffffff	/* RECV and CM bits set */

/* priv->flags */
enum {
	IPOIB_FLAG_INITIALIZED,	/* the QP, CQs and rings exist */
	IPOIB_FLAG_SUBINTERFACE, /* a P_Key child (priv->parent is set) */
	IPOIB_FLAG_ADMIN_UP,	/* ndo_open done, ndo_stop not */
	IPOIB_FLAG_OPER_UP,	/* the QP in RTS, joins may run */
	IPOIB_FLAG_MCAST_RUN,	/* the join task may be queued */
	IPOIB_FLAG_UMCAST,	/* sysfs umcast */
	IPOIB_FLAG_PKEY_FOUND,	/* the P_Key is in the port's table */
	IPOIB_FLAG_QP_READY,	/* the QP is in RTS with receives posted */
	IPOIB_FLAG_ADMIN_CM,	/* sysfs mode: connected */
};

/* mcast->flags */
enum {
	IPOIB_MCAST_SENDONLY,	/* a send-only join (created by a send) */
	IPOIB_MCAST_BUSY,	/* a join is in flight: wait for mcast->done */
	IPOIB_MCAST_ATTACHED,	/* the QP is attached to the group */
	IPOIB_MCAST_FOUND,	/* the restart task's mark */
};

/*
 * An address handle, reference counted under priv->lock.  The last put
 * moves it to priv->dead_ahs; the reaper destroys it once the send ring's
 * tail has passed its last send.
 */
struct ipoib_ah {
	struct net_device	*dev;
	struct ib_ah		*ah;
	struct list_head	list;		/* on priv->dead_ahs */
	struct kref		ref;
	unsigned int		last_send;	/* tx_head after its last send */
};

/* A PathRecord of a destination GID (the path cache). */
struct ipoib_path {
	struct net_device	*dev;
	struct sa_path_rec	rec;
	struct ipoib_ah		*ah;		/* NULL until resolved */
	struct sk_buff_head	queue;		/* ARP waiting for the path */
	struct list_head	neigh_list;	/* its neighbours */
	struct list_head	list;		/* on priv->path_list */
	struct rb_node		node;		/* in priv->path_tree */
	struct ib_sa_query	*query;		/* a query in flight */
	int			query_id;
	struct completion	done;		/* the query's end */
	bool			valid;		/* a light flush clears it */
};

/* A destination hardware address seen by the stack (its ARP/ND entry). */
struct ipoib_neigh {
	u8			daddr[INFINIBAND_ALEN];
	struct ipoib_ah		*ah;		/* the path's, NULL until resolved */
	struct ipoib_path	*path;
	struct sk_buff_head	queue;		/* IP waiting for the path */
	struct hlist_node	hash;		/* in priv->neigh_hash */
	struct list_head	list;		/* on path->neigh_list */
	unsigned long		alive;		/* jiffies of the last use */
	struct ipoib_cm_tx	*cm;		/* connected mode's connection */
};

/* A multicast group: the broadcast group, a full join or a send-only one. */
struct ipoib_mcast {
	struct net_device	*dev;
	struct ib_sa_mcmember_rec mcmember;	/* MGID; the SA's answer */
	struct ib_sa_multicast	*mc;		/* the membership, or NULL */
	struct ipoib_ah		*ah;		/* NULL until joined */
	struct rb_node		node;		/* in priv->mcast_tree */
	struct list_head	list;		/* on priv->mcast_list */
	struct sk_buff_head	queue;		/* sends waiting for the join */
	unsigned long		flags;		/* IPOIB_MCAST_* */
	unsigned long		created;	/* jiffies */
	unsigned long		delay_until;	/* no join try before */
	unsigned int		backoff;	/* seconds, 1 .. IPOIB_MAX_BACKOFF */
	unsigned int		tries;		/* failed join attempts */
	struct completion	done;		/* completed when not BUSY */
};

struct ipoib_rx_buf {
	struct sk_buff		*skb;
	u64			mapping;
};

struct ipoib_tx_buf {
	struct sk_buff		*skb;
	u64			mapping[MAX_SKB_FRAGS + 1];
	unsigned int		nmap;		/* mapping[0] is the head if > 0 */
};

/* a connected-mode receive buffer: the skb's head, then pages */
struct ipoib_cm_rx_buf {
	struct sk_buff		*skb;
	u64			mapping[IPOIB_CM_RX_SG];
};

/*
 * An RC connection this interface made to a neighbour (the active side).
 * On exactly one of priv->cm.tx_start (to be connected), tx_live,
 * tx_reap (to be destroyed), under priv->lock.
 */
struct ipoib_cm_tx {
	struct net_device	*dev;
	struct ib_cm_id		*id;
	struct ib_qp		*qp;
	struct ipoib_neigh	*neigh;		/* NULL once given up */
	struct list_head	list;
	struct ipoib_tx_buf	*ring;		/* ipoib_sendq_size entries */
	unsigned int		tx_head;	/* xmit context */
	unsigned int		tx_tail;	/* send NAPI */
	unsigned int		mtu;		/* the peer's, header included */
	unsigned int		max_send_sge;
	bool			up;		/* RTS: sends go on the QP */
};

/*
 * An RC connection a peer made to this interface (the passive side),
 * its QP on the SRQ.  On exactly one of priv->cm.rx_live, rx_flush
 * (QP in ERR, waiting for its last WQE), rx_drain (the drain WR posted),
 * rx_reap, under priv->lock.
 */
struct ipoib_cm_rx {
	struct net_device	*dev;
	struct ib_cm_id		*id;
	struct ib_qp		*qp;
	struct list_head	list;
};

struct ipoib_cm {
	struct ib_srq		*srq;		/* NULL: no connected mode */
	struct ipoib_cm_rx_buf	*srq_ring;	/* ipoib_recvq_size entries */
	unsigned int		num_frags;	/* SGEs per receive buffer */
	unsigned int		max_mtu;
	struct ib_cm_id		*listen_id;	/* while the interface is up */
	struct list_head	rx_live;
	struct list_head	rx_flush;
	struct list_head	rx_drain;
	struct list_head	rx_reap;
	/*
	 * (priv->lock) ipoib_cm_stop is moving the live passive QPs to ERR
	 * (unlocked): the reap task leaves rx_reap alone until it is done
	 */
	bool			rx_hold;
	struct list_head	tx_start;
	struct list_head	tx_live;
	struct list_head	tx_reap;
	struct work_struct	tx_start_task;	/* on priv->wq */
	struct work_struct	tx_reap_task;
	struct work_struct	rx_reap_task;
	struct work_struct	icmp_task;
	struct sk_buff_head	too_long;	/* frames to answer with ICMP */
};

/* how a P_Key child was made, and so how it may be deleted */
enum ipoib_child_kind {
	IPOIB_CHILD_NONE,	/* ibN itself */
	IPOIB_CHILD_LEGACY,	/* sysfs create_child: delete_child by P_Key */
	IPOIB_CHILD_RTNL,	/* ip link add ... type ipoib: ip link del */
};

enum ipoib_flush_level {
	IPOIB_FLUSH_LIGHT,
	IPOIB_FLUSH_NORMAL,
	IPOIB_FLUSH_HEAVY,
};

struct ipoib_dev {
	struct net_device	*dev;
	struct ib_device	*ca;
	u32			port;
	u16			pkey;		/* with bit 15 set */
	u16			pkey_index;
	u32			qkey;		/* the broadcast group's */
	u16			local_lid;
	unsigned int		max_ib_mtu;	/* bytes */
	unsigned int		mcast_mtu;	/* the broadcast group's, less 4 */
	unsigned int		admin_mtu;	/* what the user asked */
	unsigned long		flags;		/* IPOIB_FLAG_* */

	/* P_Key children (child.c), all under RTNL */
	struct net_device	*parent;	/* a child's ibN (held), or NULL */
	struct list_head	children;	/* ibN's: its children's child_list */
	struct list_head	child_list;	/* a child's, on parent's children */
	enum ipoib_child_kind	child_kind;
	bool			child_deleting;	/* delete_child queued its end */

	struct ib_pd		*pd;
	struct ib_cq		*recv_cq;
	struct ib_cq		*send_cq;
	struct ib_qp		*qp;
	unsigned int		max_send_sge;
	bool			lso;		/* the QP does IB_WR_LSO */

	struct napi_struct	recv_napi;
	struct napi_struct	send_napi;
	struct ipoib_rx_buf	*rx_ring;	/* recvq_size entries */
	struct ipoib_tx_buf	*tx_ring;	/* sendq_size entries */
	unsigned int		tx_head;	/* posted sends (tx lock) */
	unsigned int		tx_tail;	/* completed sends (send NAPI) */
	/* every send, UD and RC: the send CQ's and the queue's bound */
	unsigned int		global_tx_head;
	unsigned int		global_tx_tail;
	unsigned int		rx_buf_size;	/* GRH and the largest IB MTU */

	spinlock_t		lock;		/* see the top of this file */
	struct rb_root		path_tree;
	struct list_head	path_list;
	struct hlist_head	*neigh_hash;
	unsigned int		neigh_hash_bits;
	struct list_head	dead_ahs;

	struct mutex		mcast_mutex;	/* see the top of this file */
	struct rb_root		mcast_tree;
	struct list_head	mcast_list;
	struct ipoib_mcast	*broadcast;

	struct workqueue_struct	*wq;		/* ordered, one per interface */
	struct delayed_work	mcast_task;	/* the joins */
	struct work_struct	carrier_on_task;
	struct work_struct	restart_task;	/* ndo_set_rx_mode */
	struct delayed_work	ah_reap_task;
	struct delayed_work	neigh_gc_task;
	struct work_struct	flush_light;	/* on ipoib_flush_wq */
	struct work_struct	flush_normal;
	struct work_struct	flush_heavy;
	struct ib_event_handler	event_handler;
	struct ipoib_cm		cm;

	u16			rx_coal_frames;	/* ethtool -C */
	u16			rx_coal_usecs;
	struct dentry		*mcg_dentry;
	struct dentry		*path_dentry;
};

static inline struct ipoib_dev *ipoib_priv(const struct net_device *dev)
{
	return netdev_priv(dev);
}

/* main.c: module parameters and shared objects */
extern int ipoib_sendq_size;
extern int ipoib_recvq_size;
extern int ipoib_debug_level;
extern int ipoib_mcast_debug_level;
extern struct ib_sa_client ipoib_sa_client;
extern struct workqueue_struct *ipoib_flush_wq;

/* as upstream's: "ib0: ..." (the interface's name first), rate limited */
#define ipoib_warn(priv, fmt, ...) \
	pr_warn_ratelimited("%s: " fmt, (priv)->dev->name, ##__VA_ARGS__)
#define ipoib_warn_rl ipoib_warn
#define ipoib_dbg(priv, fmt, ...) do {					\
	if (ipoib_debug_level > 0)					\
		netdev_printk(KERN_DEBUG, (priv)->dev, fmt,		\
			      ##__VA_ARGS__);				\
} while (0)
#define ipoib_dbg_mcast(priv, fmt, ...) do {				\
	if (ipoib_mcast_debug_level > 0)				\
		netdev_printk(KERN_DEBUG, (priv)->dev, fmt,		\
			      ##__VA_ARGS__);				\
} while (0)

/* netdev.c */
void ipoib_setup(struct net_device *dev);
bool ipoib_is_ipoib_dev(const struct net_device *dev);
int ipoib_netdev_init(struct net_device *dev, struct ib_device *ca, u32 port,
		      u16 pkey);
struct net_device *ipoib_netdev_create(struct ib_device *ca, u32 port,
				       const char *name, u16 pkey);
void ipoib_netdev_free(struct net_device *dev);
int ipoib_dev_init_transport(struct net_device *dev);
void ipoib_dev_cleanup_transport(struct net_device *dev);
void ipoib_set_dev_features(struct ipoib_dev *priv);
void ipoib_push_pseudo_header(struct sk_buff *skb, const u8 *daddr);
int ipoib_check_pkey(struct ipoib_dev *priv);

/* ud.c: the UD QP and its rings */
int ipoib_qp_create(struct ipoib_dev *priv);
void ipoib_qp_destroy(struct ipoib_dev *priv);
int ipoib_ib_open(struct ipoib_dev *priv);
void ipoib_ib_stop(struct ipoib_dev *priv);
int ipoib_send(struct ipoib_dev *priv, struct sk_buff *skb,
	       struct ipoib_ah *ah, u32 qpn);
int ipoib_recv_poll(struct napi_struct *napi, int budget);
int ipoib_send_poll(struct napi_struct *napi, int budget);
void ipoib_recv_comp(struct ib_cq *cq, void *ctx);
void ipoib_send_comp(struct ib_cq *cq, void *ctx);
void ipoib_drop_tx(struct ipoib_dev *priv, struct sk_buff *skb);
int ipoib_tx_map(struct ipoib_dev *priv, struct ipoib_tx_buf *tx,
		 struct ib_sge *sge);
void ipoib_tx_unmap(struct ipoib_dev *priv, struct ipoib_tx_buf *tx);
void ipoib_tx_buf_free(struct ipoib_dev *priv, struct ipoib_tx_buf *tx);
bool ipoib_tx_room(struct ipoib_dev *priv);
void ipoib_tx_posted(struct ipoib_dev *priv);
void ipoib_tx_done(struct ipoib_dev *priv);

/* cm.c: connected mode */
int ipoib_cm_dev_init(struct ipoib_dev *priv);
void ipoib_cm_dev_cleanup(struct ipoib_dev *priv);
int ipoib_cm_open(struct ipoib_dev *priv);
void ipoib_cm_stop(struct ipoib_dev *priv);
void ipoib_cm_xmit(struct ipoib_dev *priv, struct ipoib_neigh *neigh,
		   struct sk_buff *skb, const u8 *daddr);
void ipoib_cm_neigh_gone(struct ipoib_dev *priv, struct ipoib_neigh *neigh);
void ipoib_cm_rx_wc(struct ipoib_dev *priv, struct ib_wc *wc, bool flush);
void ipoib_cm_tx_wc(struct ipoib_dev *priv, struct ib_wc *wc);
void ipoib_cm_skb_too_long(struct ipoib_dev *priv, struct sk_buff *skb,
			   unsigned int mtu);
int ipoib_set_mode(struct net_device *dev, bool connected);

/* the interface is in connected mode */
static inline bool ipoib_cm_admin(const struct ipoib_dev *priv)
{
	return test_bit(IPOIB_FLAG_ADMIN_CM, &priv->flags);
}

/* unicast to daddr goes over RC: connected mode, a peer that takes it */
static inline bool ipoib_cm_enabled(const struct ipoib_dev *priv,
				    const u8 *daddr)
{
	return ipoib_cm_admin(priv) && (daddr[0] & IPOIB_ADDR_RC);
}

/* ah.c */
struct ipoib_ah *ipoib_ah_create(struct ipoib_dev *priv,
				 struct rdma_ah_attr *attr);
void ipoib_ah_get(struct ipoib_ah *ah);
void ipoib_ah_put(struct ipoib_ah *ah);		/* priv->lock held */
void ipoib_ah_reap(struct ipoib_dev *priv, bool all);
void ipoib_ah_reap_task(struct work_struct *work);

/* path.c: the path cache and unicast transmit */
void ipoib_unicast_xmit(struct ipoib_dev *priv, struct sk_buff *skb,
			const u8 *daddr);
void ipoib_paths_invalidate(struct ipoib_dev *priv);
void ipoib_paths_flush(struct ipoib_dev *priv);
int ipoib_path_show(struct seq_file *m, struct ipoib_dev *priv);

/* neigh.c */
struct ipoib_neigh *ipoib_neigh_find(struct ipoib_dev *priv, const u8 *daddr);
struct ipoib_neigh *ipoib_neigh_alloc(struct ipoib_dev *priv,
				      const u8 *daddr);
void ipoib_neigh_free(struct ipoib_dev *priv, struct ipoib_neigh *neigh);
int ipoib_neigh_hash_init(struct ipoib_dev *priv);
void ipoib_neigh_hash_free(struct ipoib_dev *priv);
void ipoib_neigh_gc_task(struct work_struct *work);
void ipoib_neigh_flush_gid(struct ipoib_dev *priv, const u8 *gid);

/* mcast.c */
void ipoib_mcast_xmit(struct ipoib_dev *priv, struct sk_buff *skb,
		      const u8 *daddr);
void ipoib_mcast_start(struct ipoib_dev *priv);
void ipoib_mcast_stop(struct ipoib_dev *priv);
void ipoib_mcast_leave_all(struct ipoib_dev *priv);
void ipoib_mcast_task(struct work_struct *work);
void ipoib_mcast_restart_task(struct work_struct *work);
void ipoib_carrier_on_task(struct work_struct *work);
int ipoib_mcast_show(struct seq_file *m, struct ipoib_dev *priv);

/* event.c: port events and the flushes */
void ipoib_event(struct ib_event_handler *handler, struct ib_event *event);
void ipoib_flush_light(struct work_struct *work);
void ipoib_flush_normal(struct work_struct *work);
void ipoib_flush_heavy(struct work_struct *work);
void ipoib_dev_down(struct ipoib_dev *priv);
void ipoib_dev_up(struct ipoib_dev *priv);

/* child.c: P_Key children; netlink.c: rtnl_link_ops "ipoib" */
extern struct device_attribute dev_attr_create_child;
extern struct device_attribute dev_attr_delete_child;
extern struct device_attribute dev_attr_parent;
extern struct rtnl_link_ops ipoib_link_ops;
int ipoib_child_register(struct ipoib_dev *ppriv, struct net_device *dev,
			 enum ipoib_child_kind kind);
void ipoib_child_unlink(struct net_device *dev);
void ipoib_children_open(struct ipoib_dev *priv);
void ipoib_children_stop(struct ipoib_dev *priv);
void ipoib_children_unregister(struct ipoib_dev *priv);
int ipoib_get_iflink(const struct net_device *dev);
int ipoib_netlink_init(void);
void ipoib_netlink_exit(void);

/* mode.c: the mode and umcast for netlink */
bool ipoib_mode_is_connected(const struct ipoib_dev *priv);
void ipoib_set_umcast(struct ipoib_dev *priv, bool on);

/* ethtool.c, sysfs.c, debugfs.c */
unsigned long ipoib_leading_number(const char *s);
extern const struct ethtool_ops ipoib_ethtool_ops;
extern const struct attribute_group ipoib_attr_group;	/* ibN's */
extern const struct attribute_group ipoib_child_attr_group; /* legacy child */
int ipoib_sysfs_add_dev_id(struct net_device *dev);	/* after register */
void ipoib_debugfs_init(void);
void ipoib_debugfs_exit(void);
void ipoib_debugfs_add(struct ipoib_dev *priv);
void ipoib_debugfs_del(struct ipoib_dev *priv);

/* an MGID is a multicast address of the interface's */
static inline bool ipoib_is_mcast(const u8 *daddr)
{
	return daddr[4] == 0xff;
}

static inline u32 ipoib_addr_qpn(const u8 *daddr)
{
	return ((u32)daddr[1] << 16 | (u32)daddr[2] << 8 | daddr[3]) &
	       IPOIB_QPN_MASK;
}

#endif /* IBSTACK_IPOIB_H */

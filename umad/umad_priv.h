/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_umad's private structures: one umad_device per ib_device, one
 * umad_port per port (the umadN and issmN character devices), one
 * umad_file per open umadN, one umad_packet per MAD on its way to or from
 * user space.
 *
 * Lifetime: the umad_device is reference counted; ib_umad's client holds
 * one reference from add() to remove(), and each port's two class devices
 * hold one each until their release.  An open file pins its cdev, the cdev
 * pins its class device (cdev_device_add()), so a file keeps its port's
 * memory valid after remove(); remove() sets port->ib_dev to NULL and marks
 * every open file dead (its agents unregistered, its queue freed), after
 * which every operation on it fails with -EIO.
 *
 * Lock order: umad_port.file_mutex, then umad_file.mutex, then
 * umad_file.send_lock.  MAD agent handlers take only umad_file.mutex and
 * send_lock; ib_unregister_mad_agent() (which waits for the handlers) is
 * never called with umad_file.mutex held, ib_register_mad_agent() (which
 * waits for none) always is (agent.c: an agent is published complete).
 */
#ifndef IBSTACK_UMAD_PRIV_H
#define IBSTACK_UMAD_PRIV_H

#include <ibstack/no_kernel_ib.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_mad.h>

#define UMAD_MAX_AGENTS		32	/* per open file, as upstream */
#define UMAD_MAX_PORTS		1024	/* umadN numbers */
#define UMAD_NUM_FIXED_MINOR	64	/* umad0..63 and issm0..63 on major 231 */
#define UMAD_NUM_DYNAMIC_MINOR	(UMAD_MAX_PORTS - UMAD_NUM_FIXED_MINOR)
#define UMAD_FIXED_MAJOR	231
/* Per open file: received MADs queued for read(); more are dropped. */
#define UMAD_MAX_RECV_QUEUED	8192
/* The largest write(): header plus an RMPP message of this many bytes. */
#define UMAD_MAX_WRITE		(8 << 20)

struct umad_device;

struct umad_port {
	struct cdev		cdev;		/* umadN */
	struct device		dev;
	struct cdev		sm_cdev;	/* issmN */
	struct device		sm_dev;
	struct semaphore	sm_sem;		/* held while issmN is open */
	/*
	 * Protects ib_dev (NULL once the device is removed), file_list, and
	 * agent registration and unregistration of this port's files.
	 */
	struct mutex		file_mutex;
	struct list_head	file_list;	/* umad_file.port_list */
	struct ib_device	*ib_dev;
	struct umad_device	*umad_dev;
	int			dev_num;	/* the N of umadN */
	u32			port_num;
};

struct umad_device {
	struct kref		kref;
	u32			nports;
	struct umad_port	ports[];	/* port i at ports[i - 1] */
};

struct umad_file {
	/*
	 * Protects agent[], agents_dead, recv_list, recv_queued,
	 * use_pkey_index and already_used.
	 */
	struct mutex		mutex;
	struct umad_port	*port;
	struct list_head	port_list;	/* in port->file_list */
	struct list_head	recv_list;	/* packets for read() */
	unsigned int		recv_queued;	/* received MADs in recv_list */
	/* protects send_list (sends posted and not yet completed) */
	spinlock_t		send_lock;
	struct list_head	send_list;
	wait_queue_head_t	recv_wait;	/* recv_list, agents_dead */
	struct ib_mad_agent	*agent[UMAD_MAX_AGENTS];
	bool			agents_dead;
	bool			use_pkey_index;	/* 64-byte headers */
	bool			already_used;	/* an agent was registered */
};

/*
 * A MAD for user space.  A receive: recv_wc set, length the MAD's length
 * (all RMPP segments).  A send: msg set while posted, the user's header and
 * its first IB_MGMT_RMPP_HDR bytes kept in mad.data (for the duplicate
 * check and for handing a timed-out request back).  A file may have any
 * number of sends outstanding, as upstream's: a write() never waits for
 * earlier ones to complete.
 */
struct umad_packet {
	struct ib_mad_send_buf	*msg;
	struct ib_mad_recv_wc	*recv_wc;
	struct list_head	list;
	int			length;
	struct ib_user_mad	mad;
};

/* main.c */
extern struct class umad_class;
void umad_dev_put(struct umad_device *umad_dev);

/* file.c */
extern const struct file_operations umad_fops;
size_t umad_hdr_size(const struct umad_file *file);
struct ib_mad_agent *umad_get_agent(struct umad_file *file, u32 id);
void umad_packet_free(struct umad_packet *packet);
void umad_send_handler(struct ib_mad_agent *agent,
		       struct ib_mad_send_wc *send_wc);
void umad_recv_handler(struct ib_mad_agent *agent,
		       struct ib_mad_send_buf *send_buf,
		       struct ib_mad_recv_wc *mad_recv_wc);
void umad_file_kill(struct umad_file *file);

/* write.c */
ssize_t umad_write(struct file *filp, const char __user *buf, size_t count,
		   loff_t *pos);

/* agent.c */
long umad_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);
long umad_compat_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);

/* issm.c */
extern const struct file_operations umad_sm_fops;

#endif /* IBSTACK_UMAD_PRIV_H */

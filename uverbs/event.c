// SPDX-License-Identifier: GPL-2.0
/*
 * ib_uverbs: event files.  A context's async event file (its fd returned
 * by GET_CONTEXT) gets the QP, CQ, SRQ, port and device events; a
 * completion channel (CREATE_COMP_CHANNEL) gets the completion events of
 * its CQs.  read() hands out one event per call and counts it for its
 * object (the DESTROY responses report those counts: libibverbs waits for
 * exactly as many); destroying an object drops its queued events.  Once
 * the device is gone, readers see -EIO after the queue is empty.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <ibstack/compat.h>
#include "uverbs_priv.h"

static void uv_event_file_release(struct kref *kref)
{
	struct uv_event_file *ev = container_of(kref, struct uv_event_file, kref);
	struct uv_event *e, *next;

	list_for_each_entry_safe(e, next, &ev->events, list)
		kfree(e);
	kfree(ev);
}

void uv_event_file_put(struct uv_event_file *ev)
{
	kref_put(&ev->kref, uv_event_file_release);
}

/* No more events: readers get what is queued, then -EIO. */
void uv_event_file_close(struct uv_event_file *ev)
{
	spin_lock_irq(&ev->lock);
	ev->closed = true;
	ev->ufile = NULL;
	spin_unlock_irq(&ev->lock);
	wake_up_interruptible(&ev->wait);
}

static ssize_t uv_event_read(struct file *filp, char __user *buf, size_t count,
			     loff_t *pos)
{
	struct uv_event_file *ev = filp->private_data;
	size_t size = ev->is_async ? sizeof(struct ib_uverbs_async_event_desc) :
				     sizeof(struct ib_uverbs_comp_event_desc);
	struct uv_event *e;
	int ret;

	spin_lock_irq(&ev->lock);
	while (list_empty(&ev->events)) {
		if (ev->closed) {
			spin_unlock_irq(&ev->lock);
			return -EIO;
		}
		spin_unlock_irq(&ev->lock);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(ev->wait, !list_empty(&ev->events) ||
					     READ_ONCE(ev->closed)))
			return -ERESTARTSYS;
		spin_lock_irq(&ev->lock);
	}
	if (count < size) {
		spin_unlock_irq(&ev->lock);
		return -EINVAL;
	}
	e = list_first_entry(&ev->events, struct uv_event, list);
	list_del(&e->list);
	if (e->counter) {
		(*e->counter)++;
		list_del(&e->obj_list);
	}
	spin_unlock_irq(&ev->lock);

	ret = copy_to_user(buf, &e->desc, size) ? -EFAULT : size;
	kfree(e);
	return ret;
}

static __poll_t uv_event_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct uv_event_file *ev = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &ev->wait, wait);
	spin_lock_irq(&ev->lock);
	if (!list_empty(&ev->events))
		mask = EPOLLIN | EPOLLRDNORM;
	else if (ev->closed)
		mask = EPOLLERR;
	spin_unlock_irq(&ev->lock);
	return mask;
}

static int uv_event_close(struct inode *inode, struct file *filp)
{
	uv_event_file_put(filp->private_data);
	return 0;
}

static const struct file_operations uv_async_fops = {
	.owner		= THIS_MODULE,
	.read		= uv_event_read,
	.poll		= uv_event_poll,
	.release	= uv_event_close,
	.llseek		= IBSTACK_NO_LLSEEK,
};

static const struct file_operations uv_comp_fops = {
	.owner		= THIS_MODULE,
	.read		= uv_event_read,
	.poll		= uv_event_poll,
	.release	= uv_event_close,
	.llseek		= IBSTACK_NO_LLSEEK,
};

/*
 * A new event file and its struct file (not yet installed in an fd): one
 * reference for the struct file, one for the caller.
 */
struct uv_event_file *uv_event_file_new(struct ib_uverbs_file *ufile, bool is_async,
					struct file **filp)
{
	struct uv_event_file *ev;
	struct file *f;

	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return ERR_PTR(-ENOMEM);
	kref_init(&ev->kref);
	spin_lock_init(&ev->lock);
	INIT_LIST_HEAD(&ev->events);
	INIT_LIST_HEAD(&ev->chan_list);
	init_waitqueue_head(&ev->wait);
	ev->is_async = is_async;
	ev->ufile = ufile;

	f = anon_inode_getfile("[infinibandevent]",
			       is_async ? &uv_async_fops : &uv_comp_fops, ev, O_RDONLY);
	if (IS_ERR(f)) {
		kfree(ev);
		return ERR_CAST(f);
	}
	kref_get(&ev->kref);
	*filp = f;
	return ev;
}

/* The completion channel of fd, held; ERR_PTR(-EBADF) unless it is one of ufile's */
struct uv_event_file *uv_channel_get(struct ib_uverbs_file *ufile, int fd)
{
	struct uv_event_file *ev = ERR_PTR(-EBADF);
	struct file *f = fget(fd);

	if (!f)
		return ev;
	if (f->f_op == &uv_comp_fops) {
		struct uv_event_file *c = f->private_data;

		spin_lock_irq(&c->lock);
		if (c->ufile == ufile) {
			kref_get(&c->kref);
			ev = c;
		}
		spin_unlock_irq(&c->lock);
	}
	fput(f);
	if (IS_ERR(ev))
		uv_dbg(ufile, "fd %d is not a completion channel of this file\n", fd);
	return ev;
}

/* Queues an event; obj (or NULL) counts it when read, counter its counter. */
static void uv_queue(struct uv_event_file *ev, const void *desc, size_t size,
		     struct list_head *obj_list, u32 *counter)
{
	struct uv_event *e;
	unsigned long flags;

	spin_lock_irqsave(&ev->lock, flags);
	if (ev->closed)
		goto out;
	e = kzalloc(sizeof(*e), GFP_ATOMIC);
	if (!e)
		goto out;
	memcpy(&e->desc, desc, size);
	e->counter = counter;
	list_add_tail(&e->list, &ev->events);
	if (obj_list)
		list_add_tail(&e->obj_list, obj_list);
	else
		INIT_LIST_HEAD(&e->obj_list);
	spin_unlock_irqrestore(&ev->lock, flags);
	wake_up_interruptible(&ev->wait);
	return;
out:
	spin_unlock_irqrestore(&ev->lock, flags);
}

/* [any] an async event for user space; obj: the CQ, QP or SRQ, or NULL */
void uv_async_event(struct ib_uverbs_file *ufile, u64 element, u32 event,
		    struct uv_uobj *obj)
{
	struct ib_uverbs_async_event_desc desc = {
		.element = element,
		.event_type = event,
	};
	struct uv_event_file *ev = READ_ONCE(ufile->async_file);

	if (!ev)
		return;
	uv_queue(ev, &desc, sizeof(desc), obj ? &obj->async_events : NULL,
		 obj ? &obj->async_reported : NULL);
}

/*
 * Drops the object's queued events (it is destroyed: nobody may read
 * them); afterwards its counts are final.
 */
void uv_purge_events(struct ib_uverbs_file *ufile, struct uv_uobj *obj)
{
	struct uv_event_file *evs[2] = { ufile->async_file, obj->channel };
	struct list_head *lists[2] = { &obj->async_events, &obj->comp_events };
	struct uv_event *e, *next;
	int i;

	for (i = 0; i < 2; i++) {
		if (!evs[i])
			continue;
		spin_lock_irq(&evs[i]->lock);
		list_for_each_entry_safe(e, next, lists[i], obj_list) {
			list_del(&e->list);
			list_del(&e->obj_list);
			kfree(e);
		}
		spin_unlock_irq(&evs[i]->lock);
	}
}

/* [sleep] port and device events of the context's device */
void uv_port_event_handler(struct ib_event_handler *handler, struct ib_event *event)
{
	struct ib_uverbs_file *ufile =
		container_of(handler, struct ib_uverbs_file, event_handler);

	uv_async_event(ufile, event->element.port_num, event->event, NULL);
}

/* [any] a CQ's completion event, to its channel */
void uv_comp_handler(struct ib_cq *cq, void *cq_context)
{
	struct uv_uobj *obj = cq_context;
	struct ib_uverbs_comp_event_desc desc = { .cq_handle = obj->uobj.user_handle };

	if (obj->channel)
		uv_queue(obj->channel, &desc, sizeof(desc), &obj->comp_events,
			 &obj->comp_reported);
}

/* [any] the objects' async events: context is the object */
void uv_cq_event_handler(struct ib_event *event, void *context)
{
	struct uv_uobj *obj = context;

	uv_async_event(obj->uobj.ufile, obj->uobj.user_handle, event->event, obj);
}

void uv_qp_event_handler(struct ib_event *event, void *context)
{
	struct uv_uobj *obj = context;

	uv_async_event(obj->uobj.ufile, obj->uobj.user_handle, event->event, obj);
}

void uv_srq_event_handler(struct ib_event *event, void *context)
{
	struct uv_uobj *obj = context;

	uv_async_event(obj->uobj.ufile, obj->uobj.user_handle, event->event, obj);
}

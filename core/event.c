// SPDX-License-Identifier: GPL-2.0
/*
 * Asynchronous port and device events.  A driver reports an event from any
 * context; ib_core copies it into a work item on the device's ordered
 * workqueue, whose work first brings the port cache up to date and then
 * calls the registered handlers under the device's event_handler_rwsem.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "core_priv.h"

struct ib_event_work {
	struct work_struct	work;
	struct ib_event		event;
};

void ib_register_event_handler(struct ib_event_handler *event_handler)
{
	struct ib_device *device;

	if (!event_handler || !event_handler->device || !event_handler->handler) {
		IB_CORE_RATELIMITED("incomplete handler\n");
		return;
	}
	device = event_handler->device;
	down_write(&device->event_handler_rwsem);
	list_add_tail(&event_handler->list, &device->event_handlers);
	up_write(&device->event_handler_rwsem);
}
EXPORT_SYMBOL(ib_register_event_handler);

void ib_unregister_event_handler(struct ib_event_handler *event_handler)
{
	struct ib_device *device;

	if (!event_handler || !event_handler->device)
		return;
	device = event_handler->device;
	/* Handlers run with the rwsem held for reading: none is running after this. */
	down_write(&device->event_handler_rwsem);
	list_del_init(&event_handler->list);
	up_write(&device->event_handler_rwsem);
}
EXPORT_SYMBOL(ib_unregister_event_handler);

static bool ib_event_updates_cache(enum ib_event_type type)
{
	switch (type) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
		return true;
	default:
		return false;
	}
}

static void ib_event_work_fn(struct work_struct *work)
{
	struct ib_event_work *ew = container_of(work, struct ib_event_work, work);
	struct ib_device *device = ew->event.device;
	struct ib_event_handler *handler;
	int ret;

	if (!test_bit(IB_CORE_F_EVENTS_ON, &device->core_flags))
		goto out;

	if (ib_event_updates_cache(ew->event.event)) {
		/* the tables only on the events that change them, as upstream */
		ret = ib_cache_update_port(device, ew->event.element.port_num,
					   ew->event.event == IB_EVENT_GID_CHANGE ||
					   ew->event.event == IB_EVENT_CLIENT_REREGISTER,
					   ew->event.event == IB_EVENT_PKEY_CHANGE);
		if (ret)
			pr_warn_ratelimited("ib_core: %s: port %u cache update after %s failed: %d\n",
					    device->name, ew->event.element.port_num,
					    ib_event_msg(ew->event.event), ret);
	}

	down_read(&device->event_handler_rwsem);
	list_for_each_entry(handler, &device->event_handlers, list)
		handler->handler(handler, &ew->event);
	up_read(&device->event_handler_rwsem);
out:
	kfree(ew);
}

void ib_dispatch_event(const struct ib_event *event)
{
	struct ib_event_work *ew;

	if (!event || !event->device) {
		IB_CORE_RATELIMITED("no event or no device\n");
		return;
	}
	if (ib_event_updates_cache(event->event) &&
	    !rdma_is_port_valid(event->device, event->element.port_num)) {
		IB_CORE_RATELIMITED("%s: %s event for invalid port %u dropped\n",
				    event->device->name, ib_event_msg(event->event),
				    event->element.port_num);
		return;
	}

	ew = kmalloc(sizeof(*ew), GFP_ATOMIC);
	if (!ew) {
		IB_CORE_RATELIMITED("%s: no memory, %s event dropped\n",
				    event->device->name, ib_event_msg(event->event));
		return;
	}
	INIT_WORK(&ew->work, ib_event_work_fn);
	ew->event = *event;
	queue_work(event->device->event_wq, &ew->work);
}
EXPORT_SYMBOL(ib_dispatch_event);

/* From now on the event work updates the cache and calls the handlers. */
void ib_events_enable(struct ib_device *device)
{
	set_bit(IB_CORE_F_EVENTS_ON, &device->core_flags);
}

/* Events still queued are dropped; returns once no event work runs. */
void ib_events_disable(struct ib_device *device)
{
	clear_bit(IB_CORE_F_EVENTS_ON, &device->core_flags);
	flush_workqueue(device->event_wq);
}

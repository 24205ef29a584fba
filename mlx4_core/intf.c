// SPDX-License-Identifier: GPL-2.0
/*
 * Protocol interfaces (mlx4_ib): every registered interface is added to every
 * working device, and removed before a device goes away or is restarted.
 * An event that comes while an interface's add() runs is handed to it once
 * its context is registered, so that none falls between the two.
 */
#include <linux/module.h>

#include "mlx4_core.h"

/*
 * mlx4_intf_mutex protects both lists, priv->registered and the add/remove
 * calls.  It is held for those only, never across a reset or a load: one
 * card's recovery does not hold up another card's interfaces.
 */
static DEFINE_MUTEX(mlx4_intf_mutex);
static LIST_HEAD(mlx4_intf_list);
static LIST_HEAD(mlx4_dev_list);

/* Caller holds ctx_lock; the window is open. */
static void mlx4_add_window_note(struct mlx4_add_window *w, enum mlx4_dev_event type,
				 unsigned long param)
{
	switch (type) {
	case MLX4_DEV_EVENT_CATASTROPHIC_ERROR:
		w->fatal = true;
		break;
	case MLX4_DEV_EVENT_PORT_UP:
	case MLX4_DEV_EVENT_PORT_DOWN:
	case MLX4_DEV_EVENT_PORT_MGMT_CHANGE:
		/* the last one tells the port's state */
		if (param >= 1 && param <= MLX4_MAX_PORTS)
			w->port_event[param] = type + 1;
		break;
	}
}

/* Caller holds ctx_lock: what came during add(), to the new context only. */
static void mlx4_add_window_close(struct mlx4_priv *priv, struct mlx4_device_context *ctx)
{
	struct mlx4_add_window *w = &priv->add_window;
	unsigned long port;

	lockdep_assert_held(&priv->ctx_lock);
	w->open = false;
	if (!ctx || !ctx->intf->event)
		return;
	for (port = 1; port <= MLX4_MAX_PORTS; port++)
		if (w->port_event[port])
			ctx->intf->event(&priv->dev, ctx->context,
					 w->port_event[port] - 1, port);
	if (w->fatal)
		ctx->intf->event(&priv->dev, ctx->context,
				 MLX4_DEV_EVENT_CATASTROPHIC_ERROR, 0);
}

static void mlx4_add_one(struct mlx4_interface *intf, struct mlx4_priv *priv)
{
	struct mlx4_device_context *ctx;
	void *context;

	lockdep_assert_held(&mlx4_intf_mutex);
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx) {
		dev_err(&priv->dev.pdev->dev, "no memory to add an interface\n");
		return;
	}
	ctx->intf = intf;

	spin_lock_irq(&priv->ctx_lock);
	memset(&priv->add_window, 0, sizeof(priv->add_window));
	priv->add_window.open = true;
	spin_unlock_irq(&priv->ctx_lock);

	context = intf->add(&priv->dev);

	spin_lock_irq(&priv->ctx_lock);
	if (context) {
		ctx->context = context;
		list_add_tail(&ctx->list, &priv->ctx_list);
	}
	mlx4_add_window_close(priv, context ? ctx : NULL);
	spin_unlock_irq(&priv->ctx_lock);
	if (!context)
		kfree(ctx);
}

static void mlx4_remove_one(struct mlx4_interface *intf, struct mlx4_priv *priv)
{
	struct mlx4_device_context *ctx, *found = NULL;

	lockdep_assert_held(&mlx4_intf_mutex);
	spin_lock_irq(&priv->ctx_lock);
	list_for_each_entry(ctx, &priv->ctx_list, list) {
		if (ctx->intf == intf) {
			found = ctx;
			list_del(&ctx->list);
			break;
		}
	}
	spin_unlock_irq(&priv->ctx_lock);
	if (!found)
		return;
	/* no event reaches the interface from here on */
	intf->remove(&priv->dev, found->context);
	kfree(found);
}

int mlx4_register_interface(struct mlx4_interface *intf)
{
	struct mlx4_priv *priv;

	if (!intf->add || !intf->remove)
		return -EINVAL;
	mutex_lock(&mlx4_intf_mutex);
	list_add_tail(&intf->list, &mlx4_intf_list);
	list_for_each_entry(priv, &mlx4_dev_list, dev_list)
		mlx4_add_one(intf, priv);
	mutex_unlock(&mlx4_intf_mutex);
	return 0;
}
EXPORT_SYMBOL(mlx4_register_interface);

void mlx4_unregister_interface(struct mlx4_interface *intf)
{
	struct mlx4_priv *priv;

	mutex_lock(&mlx4_intf_mutex);
	list_for_each_entry(priv, &mlx4_dev_list, dev_list)
		mlx4_remove_one(intf, priv);
	list_del(&intf->list);
	mutex_unlock(&mlx4_intf_mutex);
}
EXPORT_SYMBOL(mlx4_unregister_interface);

/* [sleep] A loaded device: on the list, every interface added. */
void mlx4_register_device(struct mlx4_priv *priv)
{
	struct mlx4_interface *intf;

	mutex_lock(&mlx4_intf_mutex);
	list_add_tail(&priv->dev_list, &mlx4_dev_list);
	priv->registered = true;
	list_for_each_entry(intf, &mlx4_intf_list, list)
		mlx4_add_one(intf, priv);
	mutex_unlock(&mlx4_intf_mutex);
}

/* [sleep] Every interface removed, off the list; nothing if it was not on. */
void mlx4_unregister_device(struct mlx4_priv *priv)
{
	struct mlx4_interface *intf;

	mutex_lock(&mlx4_intf_mutex);
	if (priv->registered) {
		list_for_each_entry_reverse(intf, &mlx4_intf_list, list)
			mlx4_remove_one(intf, priv);
		list_del(&priv->dev_list);
		priv->registered = false;
	}
	mutex_unlock(&mlx4_intf_mutex);
}

/* [any] */
void mlx4_dispatch_event(struct mlx4_priv *priv, enum mlx4_dev_event type,
			 unsigned long param)
{
	struct mlx4_device_context *ctx;
	unsigned long flags;

	spin_lock_irqsave(&priv->ctx_lock, flags);
	if (priv->add_window.open)
		mlx4_add_window_note(&priv->add_window, type, param);
	list_for_each_entry(ctx, &priv->ctx_list, list)
		if (ctx->intf->event)
			ctx->intf->event(&priv->dev, ctx->context, type, param);
	spin_unlock_irqrestore(&priv->ctx_lock, flags);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Log lines about a device, as ULPs write them with ibdev_err() and the
 * rest of the family: "<driver> <PCI function> <ibdev>: message", with
 * the PCI function as the line's device (so dmesg's structured fields
 * and journald's _KERNEL_DEVICE name the card), "<ibdev>: message" for
 * a device without a parent, "(NULL ib_device): message" without one.
 */
#include <linux/dev_printk.h>
#include <linux/dynamic_debug.h>
#include <linux/printk.h>
#include "core_priv.h"

/* A line at level (0-7) without a device in its record. */
static __printf(2, 3) void ibdev_emit_plain(int level, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vprintk_emit(0, level, NULL, format, args);
	va_end(args);
}

static void ibdev_vprintk(const char *level, const struct ib_device *ibdev,
			  struct va_format *vaf)
{
	const struct device *parent = ibdev ? ibdev->dev.parent : NULL;
	/* level is KERN_SOH followed by the digit */
	int lvl = level[1] - '0';

	if (parent)
		dev_printk_emit(lvl, parent, "%s %s %s: %pV",
				dev_driver_string(parent), dev_name(parent),
				dev_name(&ibdev->dev), vaf);
	else if (ibdev)
		ibdev_emit_plain(lvl, "%s: %pV", dev_name(&ibdev->dev), vaf);
	else
		ibdev_emit_plain(lvl, "(NULL ib_device): %pV", vaf);
}

void ibdev_printk(const char *level, const struct ib_device *ibdev,
		  const char *format, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, format);
	vaf.fmt = format;
	vaf.va = &args;
	ibdev_vprintk(level, ibdev, &vaf);
	va_end(args);
}
EXPORT_SYMBOL(ibdev_printk);

/* ibdev_emerg() ... ibdev_info(): ibdev_printk() at a fixed level */
#define IBDEV_PRINT_LEVEL(func, level)					\
void func(const struct ib_device *ibdev, const char *format, ...)	\
{									\
	struct va_format vaf;						\
	va_list args;							\
									\
	va_start(args, format);						\
	vaf.fmt = format;						\
	vaf.va = &args;							\
	ibdev_vprintk(level, ibdev, &vaf);				\
	va_end(args);							\
}

IBDEV_PRINT_LEVEL(ibdev_emerg, KERN_EMERG)
EXPORT_SYMBOL(ibdev_emerg);
IBDEV_PRINT_LEVEL(ibdev_alert, KERN_ALERT)
EXPORT_SYMBOL(ibdev_alert);
IBDEV_PRINT_LEVEL(ibdev_crit, KERN_CRIT)
EXPORT_SYMBOL(ibdev_crit);
IBDEV_PRINT_LEVEL(ibdev_err, KERN_ERR)
EXPORT_SYMBOL(ibdev_err);
IBDEV_PRINT_LEVEL(ibdev_warn, KERN_WARNING)
EXPORT_SYMBOL(ibdev_warn);
IBDEV_PRINT_LEVEL(ibdev_notice, KERN_NOTICE)
EXPORT_SYMBOL(ibdev_notice);
IBDEV_PRINT_LEVEL(ibdev_info, KERN_INFO)
EXPORT_SYMBOL(ibdev_info);

/*
 * ibdev_dbg()'s line once dynamic debug enabled it.  The kernel's own
 * __dynamic_ibdev_dbg() reads the kernel's struct ib_device, whose layout
 * is not ours: ibdev_dbg() comes here instead.
 */
void ibstack_dynamic_ibdev_dbg(struct _ddebug *descriptor,
			       const struct ib_device *ibdev,
			       const char *format, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, format);
	vaf.fmt = format;
	vaf.va = &args;
	ibdev_vprintk(KERN_DEBUG, ibdev, &vaf);
	va_end(args);
}
EXPORT_SYMBOL(ibstack_dynamic_ibdev_dbg);

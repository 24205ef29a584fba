// SPDX-License-Identifier: GPL-2.0
/*
 * ibstack_debugcheck: makes each checker of the debug kernel report once,
 * on demand, so that the test bed can show that every one of their reports
 * fails a run (tests/debugcheck/run.sh).  Nothing here touches the stack.
 *
 * Write a case's name to /sys/kernel/debug/ibstack_debugcheck/trigger:
 *	lockdep		two mutexes taken in both orders (PROVE_LOCKING)
 *	atomic-sleep	mutex_lock() under a spinlock (DEBUG_ATOMIC_SLEEP)
 *	odebug		an object freed with its timer pending (DEBUG_OBJECTS)
 *	list		a list_add() next to a corrupted entry (DEBUG_LIST)
 *	ubsan		a shift by more than the type's width (UBSAN)
 *	kasan		a read one byte past a kmalloc'ed buffer (KASAN)
 *	leak		a buffer nothing points to (KMEMLEAK)
 * Each leaves the kernel usable: the timer is fixed up by debugobjects,
 * the corrupted list is never used again, the bad read only reads.  The
 * lockdep case comes before the others: lockdep turns itself off after
 * some of their reports.
 *
 * The bad values come from module parameters, so that the compiler cannot
 * see the bugs (and warn or drop them) at build time.
 */
#include <linux/debugfs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>

#define DC_NAME "ibstack_debugcheck"

static int shift = 40;
module_param(shift, int, 0444);
MODULE_PARM_DESC(shift, "the shift count of the ubsan case (> 31)");
static int past = 16;
module_param(past, int, 0444);
MODULE_PARM_DESC(past, "the index the kasan case reads in a 16-byte buffer");

static struct dentry *dc_dir;

static void dc_atomic_sleep(void)
{
	static DEFINE_SPINLOCK(lock);
	static DEFINE_MUTEX(m);

	/*
	 * mutex_lock() may sleep: under a spinlock that is a bug even when,
	 * as here, the mutex is free and nothing sleeps (which only the
	 * checker sees)
	 */
	spin_lock(&lock);
	mutex_lock(&m);
	mutex_unlock(&m);
	spin_unlock(&lock);
}

static void dc_lockdep(void)
{
	static DEFINE_MUTEX(a);
	static DEFINE_MUTEX(b);

	mutex_lock(&a);
	mutex_lock(&b);
	mutex_unlock(&b);
	mutex_unlock(&a);
	/* the other order: one thread, so no deadlock, but lockdep sees it */
	mutex_lock(&b);
	mutex_lock(&a);
	mutex_unlock(&a);
	mutex_unlock(&b);
}

struct dc_timed {
	struct timer_list	timer;
};

static void dc_timer_fn(struct timer_list *t)
{
}

static void dc_odebug(void)
{
	struct dc_timed *o = kzalloc(sizeof(*o), GFP_KERNEL);

	if (!o)
		return;
	timer_setup(&o->timer, dc_timer_fn, 0);
	mod_timer(&o->timer, jiffies + 60 * HZ);
	/* freed while pending: debugobjects reports it and stops the timer */
	kfree(o);
}

static void dc_list(void)
{
	static struct list_head head, a, b, c;

	INIT_LIST_HEAD(&head);
	list_add(&a, &head);
	/* corrupt the head's back link, then add after a, before head */
	WRITE_ONCE(head.prev, &b);
	list_add(&c, &a);
}

static void dc_ubsan(void)
{
	u32 one = 1;

	pr_info(DC_NAME ": 1 << %d = %u\n", shift, one << READ_ONCE(shift));
}

static void dc_kasan(void)
{
	char *p = kmalloc(16, GFP_KERNEL);

	if (!p)
		return;
	memset(p, 0, 16);
	pr_info(DC_NAME ": byte %d of 16: %d\n", past, READ_ONCE(p[READ_ONCE(past)]));
	kfree(p);
}

static void dc_leak(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (p)
		strscpy(p, DC_NAME " leaked on purpose", 64);
	/* p goes out of scope: nothing points to the buffer any more */
}

static const struct {
	const char *name;
	void (*run)(void);
} dc_cases[] = {
	{ "lockdep", dc_lockdep },
	{ "atomic-sleep", dc_atomic_sleep },
	{ "odebug", dc_odebug },
	{ "list", dc_list },
	{ "ubsan", dc_ubsan },
	{ "kasan", dc_kasan },
	{ "leak", dc_leak },
};

static ssize_t dc_trigger(struct file *f, const char __user *ubuf, size_t len,
			  loff_t *pos)
{
	char buf[32];
	size_t i;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	strim(buf);
	for (i = 0; i < ARRAY_SIZE(dc_cases); i++) {
		if (strcmp(buf, dc_cases[i].name))
			continue;
		pr_info(DC_NAME ": case %s\n", buf);
		dc_cases[i].run();
		pr_info(DC_NAME ": case %s done\n", buf);
		return len;
	}
	pr_warn_ratelimited(DC_NAME ": unknown case '%s'\n", buf);
	return -EINVAL;
}

static const struct file_operations dc_fops = {
	.owner = THIS_MODULE,
	.write = dc_trigger,
	.llseek = noop_llseek,
};

static int __init dc_init(void)
{
	dc_dir = debugfs_create_dir(DC_NAME, NULL);
	debugfs_create_file("trigger", 0200, dc_dir, NULL, &dc_fops);
	return 0;
}

static void __exit dc_exit(void)
{
	debugfs_remove_recursive(dc_dir);
}

module_init(dc_init);
module_exit(dc_exit);
MODULE_DESCRIPTION("Makes the debug kernel's checkers report, for the test bed");
MODULE_LICENSE("GPL");

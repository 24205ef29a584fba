// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/ib_sa/stats: how many SA requests of each kind ib_sa
 * sent since it was loaded (tests read it to see that a shared multicast
 * group was joined once).
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "sa_priv.h"

static atomic_long_t sa_stats[SA_NR_STATS];
static struct dentry *sa_debugfs_dir;

static const char * const sa_stat_names[SA_NR_STATS] = {
	[SA_STAT_PATH_GET] = "path_get",
	[SA_STAT_MC_SET] = "mc_join",
	[SA_STAT_MC_DELETE] = "mc_leave",
	[SA_STAT_MC_RESET] = "mc_reset",
	[SA_STAT_TIMEOUT] = "timeouts",
	[SA_STAT_BAD_RESPONSE] = "bad_answers",
};

void sa_stat_inc(enum sa_stat stat)
{
	atomic_long_inc(&sa_stats[stat]);
}

static int sa_stats_show(struct seq_file *s, void *unused)
{
	int i;

	for (i = 0; i < SA_NR_STATS; i++)
		seq_printf(s, "%s %ld\n", sa_stat_names[i],
			   atomic_long_read(&sa_stats[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sa_stats);

void sa_debugfs_init(void)
{
	sa_debugfs_dir = debugfs_create_dir("ib_sa", NULL);
	debugfs_create_file("stats", 0444, sa_debugfs_dir, NULL,
			    &sa_stats_fops);
}

void sa_debugfs_exit(void)
{
	debugfs_remove_recursive(sa_debugfs_dir);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ib_ipoib's debugfs files: the "ipoib" directory under the debugfs root
 * and, per interface, <if>_mcg (its multicast groups) and <if>_path (its
 * path cache).  mcast.c and path.c write their contents.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>

#include "ipoib.h"

static struct dentry *ipoib_debugfs_root;

/* each file's i_private, hence the seq_file's private, is its interface */
static int ipoib_mcg_show(struct seq_file *m, void *unused)
{
	return ipoib_mcast_show(m, m->private);
}
DEFINE_SHOW_ATTRIBUTE(ipoib_mcg);

static int ipoib_path_file_show(struct seq_file *m, void *unused)
{
	return ipoib_path_show(m, m->private);
}
DEFINE_SHOW_ATTRIBUTE(ipoib_path_file);

/* debugfs reports its failures itself, and they must not stop the module */
void ipoib_debugfs_init(void)
{
	ipoib_debugfs_root = debugfs_create_dir("ipoib", NULL);
}

void ipoib_debugfs_exit(void)
{
	debugfs_remove(ipoib_debugfs_root);
	ipoib_debugfs_root = NULL;
}

void ipoib_debugfs_add(struct ipoib_dev *priv)
{
	char name[IFNAMSIZ + sizeof("_path")];

	snprintf(name, sizeof(name), "%s_mcg", priv->dev->name);
	priv->mcg_dentry = debugfs_create_file(name, 0444, ipoib_debugfs_root,
					       priv, &ipoib_mcg_fops);

	snprintf(name, sizeof(name), "%s_path", priv->dev->name);
	priv->path_dentry = debugfs_create_file(name, 0444, ipoib_debugfs_root,
						priv, &ipoib_path_file_fops);
}

void ipoib_debugfs_del(struct ipoib_dev *priv)
{
	debugfs_remove(priv->mcg_dentry);
	debugfs_remove(priv->path_dentry);
	priv->mcg_dentry = NULL;
	priv->path_dentry = NULL;
}

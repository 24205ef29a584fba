// SPDX-License-Identifier: GPL-2.0
/*
 * ib_umad: the ioctls of umadN: MAD agents registered and unregistered on
 * the port (at most UMAD_MAX_AGENTS per file, numbered 0..31 in the file),
 * and the choice of the 64-byte header.
 */
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/nospec.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <ibstack/compat.h>
#include "umad_priv.h"

/*
 * What one registration asks for, from either REGISTER ioctl.  The checks
 * of REGISTER_AGENT2's own fields wait for their turn in 6.1's order.
 */
struct umad_reg {
	u32			qpn;
	u32			flags;		/* IB_MAD_USER_RMPP or 0 */
	u32			bad_flags;	/* AGENT2: flags not supported */
	u32			oui;		/* AGENT2: as given, 24 bits valid */
	u8			rmpp_version;
	bool			has_class;	/* else send-only */
	bool			new_abi;	/* AGENT2: the 64-byte header */
	void __user		*idp;		/* where the agent id goes */
	u32 __user		*flagsp;	/* AGENT2: the supported flags */
	struct ib_mad_reg_req	req;
};

static int umad_parse_agent(void __user *arg, bool compat, struct umad_reg *reg)
{
	struct ib_user_mad_reg_req ureq;

	if (copy_from_user(&ureq, arg, sizeof(ureq)))
		return -EFAULT;
	reg->qpn = ureq.qpn;
	reg->rmpp_version = ureq.rmpp_version;
	reg->idp = arg + offsetof(struct ib_user_mad_reg_req, id);
	if (ureq.mgmt_class) {
		const u32 *mm = (const u32 *)ureq.method_mask;

		reg->has_class = true;
		reg->req.mgmt_class = ureq.mgmt_class;
		reg->req.mgmt_class_version = ureq.mgmt_class_version;
		memcpy(reg->req.oui, ureq.oui, sizeof(reg->req.oui));
		/* 128 bits: 32-bit words from a compat caller, else longs */
		if (compat)
			bitmap_from_arr32(reg->req.method_mask, mm,
					  IB_MGMT_MAX_METHODS);
		else
			memcpy(reg->req.method_mask, ureq.method_mask,
			       sizeof(reg->req.method_mask));
	}
	return 0;
}

static int umad_parse_agent2(void __user *arg, struct umad_reg *reg)
{
	struct ib_user_mad_reg_req2 ureq;

	if (copy_from_user(&ureq, arg, sizeof(ureq)))
		return -EFAULT;
	reg->qpn = ureq.qpn;
	reg->rmpp_version = ureq.rmpp_version;
	reg->new_abi = true;
	reg->idp = arg + offsetof(struct ib_user_mad_reg_req2, id);
	reg->flagsp = arg + offsetof(struct ib_user_mad_reg_req2, flags);
	reg->bad_flags = ureq.flags & ~IB_USER_MAD_REG_FLAGS_CAP;
	if (ureq.flags & IB_USER_MAD_USER_RMPP)
		reg->flags |= IB_MAD_USER_RMPP;
	reg->oui = ureq.oui;
	if (ureq.mgmt_class) {
		reg->has_class = true;
		reg->req.mgmt_class = ureq.mgmt_class;
		reg->req.mgmt_class_version = ureq.mgmt_class_version;
		reg->req.oui[0] = (ureq.oui >> 16) & 0xff;
		reg->req.oui[1] = (ureq.oui >> 8) & 0xff;
		reg->req.oui[2] = ureq.oui & 0xff;
		ibstack_bitmap_from_arr64(reg->req.method_mask, ureq.method_mask,
					  IB_MGMT_MAX_METHODS);
	}
	return 0;
}

/*
 * AGENT2's unsupported flags: the supported ones are written back for the
 * caller to retry with (EFAULT if that fails too).
 */
static int umad_refuse_flags(struct umad_port *port, struct umad_reg *reg)
{
	dev_notice_ratelimited(&port->dev,
			       "%s: unsupported registration flags 0x%x (supported 0x%x)\n",
			       current->comm, reg->bad_flags,
			       IB_USER_MAD_REG_FLAGS_CAP);
	if (put_user((u32)IB_USER_MAD_REG_FLAGS_CAP, reg->flagsp))
		return -EFAULT;
	return -EINVAL;
}

/*
 * Registers the agent and returns its id in the file (or -errno), the
 * checks in 6.1's order: QPN, AGENT2's flags, a free id, AGENT2's OUI.
 * The file's mutex is held from the choice of the id until the agent is in
 * agent[]: a MAD the agent gets at once waits in its handler for that
 * mutex and finds the agent there, instead of being dropped as nobody's.
 * (Registration never waits for a handler, so holding it is safe.)
 */
static int umad_register(struct umad_file *file, struct umad_reg *reg)
{
	struct umad_port *port = file->port;
	struct ib_mad_agent *agent;
	int id, ret;

	lockdep_assert_held(&port->file_mutex);
	if (reg->qpn > 1) {
		dev_notice_ratelimited(&port->dev, "%s: bad QPN %u\n",
				       current->comm, reg->qpn);
		return -EINVAL;
	}
	if (reg->bad_flags)
		return umad_refuse_flags(port, reg);

	mutex_lock(&file->mutex);
	if (file->agents_dead) {
		ret = -EIO;
		goto out;
	}
	for (id = 0; id < UMAD_MAX_AGENTS; id++)
		if (!umad_get_agent(file, id))
			break;
	if (id == UMAD_MAX_AGENTS) {
		dev_notice_ratelimited(&port->dev, "%s: all %d agents in use\n",
				       current->comm, UMAD_MAX_AGENTS);
		ret = -ENOMEM;	/* upstream's errno */
		goto out;
	}
	if (reg->has_class && (reg->oui & 0xff000000)) {
		dev_notice_ratelimited(&port->dev, "%s: bad OUI 0x%08x\n",
				       current->comm, reg->oui);
		ret = -EINVAL;
		goto out;
	}
	agent = ib_register_mad_agent(port->ib_dev, port->port_num,
				      reg->qpn ? IB_QPT_GSI : IB_QPT_SMI,
				      reg->has_class ? &reg->req : NULL,
				      reg->rmpp_version, umad_send_handler,
				      umad_recv_handler, file, reg->flags);
	if (IS_ERR(agent)) {
		ret = PTR_ERR(agent);
		goto out;
	}
	file->agent[id] = agent;
	ret = id;
out:
	mutex_unlock(&file->mutex);
	return ret;
}

/* Undoes umad_register() when the id cannot be given back to the caller. */
static void umad_unregister_id(struct umad_file *file, u32 id)
{
	struct ib_mad_agent *agent;

	mutex_lock(&file->mutex);
	agent = umad_get_agent(file, id);
	if (agent)
		file->agent[id] = NULL;
	mutex_unlock(&file->mutex);
	if (agent)
		ib_unregister_mad_agent(agent);
}

/*
 * After the first registration the header size is fixed; a process that
 * did not ask for the 64-byte header (ENABLE_PKEY) uses the old ABI.
 */
static void umad_first_use(struct umad_file *file, bool new_abi)
{
	mutex_lock(&file->mutex);
	if (!file->already_used) {
		file->already_used = true;
		if (new_abi)
			file->use_pkey_index = true;
		if (!file->use_pkey_index)
			dev_notice_ratelimited(&file->port->dev,
					       "%s uses the old ABI without P_Key indexes\n",
					       current->comm);
	}
	mutex_unlock(&file->mutex);
}

/*
 * Both REGISTER ioctls: a gone device first (EPIPE, before the argument
 * is read, as 6.1), then the argument, the registration, the agent id to
 * the caller, and the header size fixed (AGENT2 implies the 64-byte one).
 */
static long umad_reg_ioctl(struct umad_file *file, void __user *arg,
			   bool v2, bool compat)
{
	struct umad_reg reg = {};
	long ret;
	int id;

	mutex_lock(&file->port->file_mutex);
	if (!file->port->ib_dev) {
		ret = -EPIPE;
		goto out;
	}
	ret = v2 ? umad_parse_agent2(arg, &reg) :
		   umad_parse_agent(arg, compat, &reg);
	if (ret)
		goto out;
	id = umad_register(file, &reg);
	if (id < 0) {
		ret = id;
		goto out;
	}
	if (put_user((u32)id, (u32 __user *)reg.idp)) {
		umad_unregister_id(file, id);
		ret = -EFAULT;
		goto out;
	}
	umad_first_use(file, reg.new_abi);
out:
	mutex_unlock(&file->port->file_mutex);
	return ret;
}

static long umad_unreg_agent(struct umad_file *file, u32 __user *arg)
{
	struct ib_mad_agent *agent;
	u32 id;

	if (get_user(id, arg))
		return -EFAULT;
	if (id >= UMAD_MAX_AGENTS)
		return -EINVAL;
	id = array_index_nospec(id, UMAD_MAX_AGENTS);

	mutex_lock(&file->port->file_mutex);
	mutex_lock(&file->mutex);
	agent = umad_get_agent(file, id);
	if (agent)
		file->agent[id] = NULL;
	mutex_unlock(&file->mutex);
	if (agent)
		ib_unregister_mad_agent(agent);
	mutex_unlock(&file->port->file_mutex);
	return agent ? 0 : -EINVAL;
}

/* The 64-byte header; only before the first registration. */
static long umad_enable_pkey(struct umad_file *file)
{
	long ret = 0;

	mutex_lock(&file->mutex);
	if (file->already_used)
		ret = -EINVAL;
	else
		file->use_pkey_index = true;
	mutex_unlock(&file->mutex);
	return ret;
}

static long umad_do_ioctl(struct file *filp, unsigned int cmd,
			  void __user *arg, bool compat)
{
	struct umad_file *file = filp->private_data;

	switch (cmd) {
	case IB_USER_MAD_REGISTER_AGENT:
		return umad_reg_ioctl(file, arg, false, compat);
	case IB_USER_MAD_UNREGISTER_AGENT:
		return umad_unreg_agent(file, arg);
	case IB_USER_MAD_ENABLE_PKEY:
		return umad_enable_pkey(file);
	case IB_USER_MAD_REGISTER_AGENT2:
		return umad_reg_ioctl(file, arg, true, compat);
	default:
		return -ENOIOCTLCMD;	/* ENOTTY for the caller */
	}
}

long umad_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	return umad_do_ioctl(filp, cmd, (void __user *)arg, false);
}

#ifdef CONFIG_COMPAT
long umad_compat_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	return umad_do_ioctl(filp, cmd, compat_ptr(arg), true);
}
#endif

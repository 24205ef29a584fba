// SPDX-License-Identifier: GPL-2.0
/*
 * MADs through the card's firmware: the MAD_IFC command in front of the
 * subnet management and performance agents, and process_mad, which hands
 * the SMPs and PMA requests that reach QP0/QP1 (or come from ib_core) to it.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "mlx4_ib.h"

/* The extended information that follows the MAD in the MAD_IFC inbox. */
struct mlx4_mad_ifc_ext {
	__be32	my_qpn;
	u32	reserved1;
	__be32	rqpn;
	u8	sl;		/* 7:4 */
	u8	g_path;		/* 7 GRH, 6:0 DLID path bits */
	u16	reserved2[2];
	__be16	pkey;
	u8	reserved3[44];
	u8	grh[40];	/* at 0x40 */
} __packed;

#define MLX4_MAD_IFC_EXT_OFFSET	256

/*
 * [sleep] Run one MAD through MAD_IFC on port.  in_wc/in_grh describe a MAD
 * that came from the wire; without them it is a local query.
 */
int mlx4_ib_mad_ifc(struct mlx4_ib_dev *dev, int op_mod, u32 port,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const void *in_mad, void *response_mad)
{
	struct mlx4_cmd_mailbox *inbox, *outbox;
	struct mlx4_mad_ifc_ext *ext;
	u32 in_mod = port;
	int err;

	BUILD_BUG_ON(sizeof(struct mlx4_mad_ifc_ext) != 0x68);

	inbox = mlx4_alloc_cmd_mailbox(dev->dev);
	if (IS_ERR(inbox))
		return PTR_ERR(inbox);
	outbox = mlx4_alloc_cmd_mailbox(dev->dev);
	if (IS_ERR(outbox)) {
		err = PTR_ERR(outbox);
		goto out_inbox;
	}

	memset(inbox->buf, 0, 2 * IB_MGMT_MAD_SIZE);
	memcpy(inbox->buf, in_mad, IB_MGMT_MAD_SIZE);
	if (in_wc) {
		ext = inbox->buf + MLX4_MAD_IFC_EXT_OFFSET;
		ext->my_qpn = cpu_to_be32(in_wc->qp ? in_wc->qp->qp_num : 0);
		ext->rqpn = cpu_to_be32(in_wc->src_qp);
		ext->sl = in_wc->sl << 4;
		ext->g_path = in_wc->dlid_path_bits |
			      (in_wc->wc_flags & IB_WC_GRH ? 0x80 : 0);
		ext->pkey = cpu_to_be16(in_wc->pkey_index);
		if (in_grh)
			memcpy(ext->grh, in_grh, sizeof(ext->grh));
		op_mod |= MLX4_MAD_IFC_EXT_INFO;
		in_mod |= (in_wc->slid & 0xffff) << 16;
	}

	err = mlx4_cmd_box(dev->dev, inbox->dma, outbox->dma, in_mod, op_mod,
			   MLX4_CMD_MAD_IFC, MLX4_CMD_TIME_C);
	if (!err)
		memcpy(response_mad, outbox->buf, IB_MGMT_MAD_SIZE);

	mlx4_free_cmd_mailbox(dev->dev, outbox);
out_inbox:
	mlx4_free_cmd_mailbox(dev->dev, inbox);
	return err;
}

/*
 * [sleep] A local Get of one SMA attribute (IB_SMP_ATTR_*); out holds the
 * response.
 */
int mlx4_ib_query_smp(struct mlx4_ib_dev *dev, u32 port, __be16 attr_id,
		      u32 attr_mod, struct ib_smp *out)
{
	struct ib_smp *in;
	int err;

	in = kzalloc(sizeof(*in), GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	ib_init_query_mad(in);
	in->attr_id = attr_id;
	in->attr_mod = cpu_to_be32(attr_mod);

	err = mlx4_ib_mad_ifc(dev, MLX4_MAD_IFC_IGNORE_KEYS, port, NULL, NULL,
			      in, out);
	if (!err && (out->status & ~IB_SMP_DIRECTION))
		err = -EINVAL;
	kfree(in);
	return err;
}

/*
 * After a successful Set through the SMA, tell ib_core what changed, as
 * the card raises no event for it (no port management change events).
 */
static void mlx4_ib_snoop_smp(struct mlx4_ib_dev *dev, u32 port,
			      const struct ib_mad *in, u16 prev_lid, u16 prev_sm_lid)
{
	const struct ib_smp *smp = (const struct ib_smp *)in;
	const struct ib_port_info *pi = (const struct ib_port_info *)smp->data;
	struct ib_event ev = { .device = &dev->ib_dev, .element.port_num = port };
	u16 lid, sm_lid;

	if (!dev->registered || smp->method != IB_MGMT_METHOD_SET)
		return;
	if (smp->mgmt_class != IB_MGMT_CLASS_SUBN_LID_ROUTED &&
	    smp->mgmt_class != IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		return;

	switch (smp->attr_id) {
	case IB_SMP_ATTR_PORT_INFO:
		lid = be16_to_cpu(pi->lid);
		sm_lid = be16_to_cpu(pi->sm_lid);
		if (lid != prev_lid) {
			ev.event = IB_EVENT_LID_CHANGE;
			ib_dispatch_event(&ev);
		}
		if (sm_lid != prev_sm_lid) {
			ev.event = IB_EVENT_SM_CHANGE;
			ib_dispatch_event(&ev);
		}
		if (pi->clientrereg_resv_subnetto & 0x80) {	/* ClientReregister */
			ev.event = IB_EVENT_CLIENT_REREGISTER;
			ib_dispatch_event(&ev);
		}
		break;
	case IB_SMP_ATTR_PKEY_TABLE:
		ev.event = IB_EVENT_PKEY_CHANGE;
		ib_dispatch_event(&ev);
		break;
	case IB_SMP_ATTR_GUID_INFO:
		ev.event = IB_EVENT_GID_CHANGE;
		ib_dispatch_event(&ev);
		break;
	default:
		break;
	}
}

static bool mlx4_ib_mad_for_firmware(const struct ib_mad *in)
{
	u8 mclass = in->mad_hdr.mgmt_class;
	u8 method = in->mad_hdr.method;

	switch (mclass) {
	case IB_MGMT_CLASS_SUBN_LID_ROUTED:
	case IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE:
		if (method != IB_MGMT_METHOD_GET && method != IB_MGMT_METHOD_SET &&
		    method != IB_MGMT_METHOD_TRAP_REPRESS)
			return false;
		/* the SMA has no SMInfo: that belongs to a subnet manager */
		return in->mad_hdr.attr_id != IB_SMP_ATTR_SM_INFO;
	case IB_MGMT_CLASS_PERF_MGMT:
	case 0x09:	/* vendor classes the firmware agents answer */
	case 0x0a:
	case 0x21:	/* congestion control */
		return method == IB_MGMT_METHOD_GET || method == IB_MGMT_METHOD_SET;
	default:
		return false;
	}
}

/* [sleep] ib_device_ops.process_mad */
int mlx4_ib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port,
			const struct ib_wc *in_wc, const struct ib_grh *in_grh,
			const struct ib_mad *in, struct ib_mad *out)
{
	struct mlx4_ib_dev *dev = to_mdev(ibdev);
	bool is_set_portinfo;
	u16 prev_lid = 0, prev_sm_lid = 0;
	struct ib_smp *smp;
	int op_mod = 0;
	int err;

	if (!rdma_is_port_valid(ibdev, port) || !in || !out)
		return IB_MAD_RESULT_FAILURE;
	if (!mlx4_ib_mad_for_firmware(in))
		return IB_MAD_RESULT_SUCCESS;

	is_set_portinfo = in->mad_hdr.method == IB_MGMT_METHOD_SET &&
			  in->mad_hdr.attr_id == IB_SMP_ATTR_PORT_INFO &&
			  (in->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
			   in->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE);
	if (is_set_portinfo) {
		smp = kzalloc(sizeof(*smp), GFP_KERNEL);
		if (smp && !mlx4_ib_query_smp(dev, port, IB_SMP_ATTR_PORT_INFO,
					      port, smp)) {
			const struct ib_port_info *pi = (void *)smp->data;

			prev_lid = be16_to_cpu(pi->lid);
			prev_sm_lid = be16_to_cpu(pi->sm_lid);
		}
		kfree(smp);
	}

	if (mad_flags & IB_MAD_IGNORE_MKEY)
		op_mod |= MLX4_MAD_IFC_IGNORE_MKEY;
	if (mad_flags & IB_MAD_IGNORE_BKEY)
		op_mod |= MLX4_MAD_IFC_IGNORE_BKEY;
	/*
	 * Without a receive completion (the driver's and ib_core's own
	 * queries) the firmware skips the key checks, whose violation traps
	 * need the sender's address.  Every SMP that comes through ib_mad,
	 * from the wire or from a local agent, has one: its M_Key and B_Key
	 * are checked.
	 */
	if (!in_wc)
		op_mod |= MLX4_MAD_IFC_IGNORE_KEYS;

	err = mlx4_ib_mad_ifc(dev, op_mod, port, in_wc, in_grh, in, out);
	if (err) {
		/* the firmware drops what deserves no answer (e.g. TrapRepress) */
		if (in->mad_hdr.method == IB_MGMT_METHOD_TRAP_REPRESS)
			return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
		return IB_MAD_RESULT_FAILURE;
	}

	/* the firmware's status; the direction bit is set here, below */
	if (!out->mad_hdr.status)
		mlx4_ib_snoop_smp(dev, port, in, prev_lid, prev_sm_lid);

	if (in->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		out->mad_hdr.status |= IB_SMP_DIRECTION;
	if (in->mad_hdr.method == IB_MGMT_METHOD_TRAP_REPRESS)
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

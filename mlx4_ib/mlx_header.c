// SPDX-License-Identifier: GPL-2.0
/*
 * Sends on QP0/QP1 (MLX transport): the driver builds the whole packet
 * header itself (LRH, optional GRH, BTH, DETH, optional ImmDt), puts it
 * inline behind the MLX segment, then the payload's gather list, then an
 * inline segment reserving the ICRC (and the payload's pad bytes).  The
 * card fills in the SLID (unless SLR) and the CRCs.  [any]
 */
#include <linux/string.h>

#include <rdma/ib_pack.h>

#include "mlx4_ib.h"

#define IB_IMM_BYTES		4
#define IB_GRH_NEXT_HDR_BTH	0x1b
#define IB_PERMISSIVE_LID	0xffff

struct mlx4_ib_hdr {
	u8	buf[MLX4_IB_MAX_HEADER];
	int	len;
};

static void *mlx4_ib_hdr_put(struct mlx4_ib_hdr *h, int len)
{
	void *p = h->buf + h->len;

	h->len += len;
	return p;
}

int mlx4_ib_build_mlx_wqe(struct mlx4_ib_qp *qp, const struct ib_send_wr *wr,
			  void *wqe, int *opcode)
{
	struct mlx4_ib_dev *dev = qp->dev;
	const struct ib_ud_wr *ud = ud_wr(wr);
	struct mlx4_hw_mlx_seg *mlx = wqe;
	const struct mlx4_hw_av *av;
	struct mlx4_hw_data_seg *dseg;
	struct mlx4_ib_inline inl;
	struct mlx4_ib_hdr h = { };
	bool smi = qp->ibqp.qp_type == IB_QPT_SMI;
	bool imm = wr->opcode == IB_WR_SEND_WITH_IMM;
	u8 *p, sl, pad, zero[IB_ICRC_BYTES + 3] = { };
	u32 payload = 0, stf, qkey;
	u16 dlid, pkey, pkey_index;
	union ib_gid sgid;
	bool grh;
	int i, off;

	if (wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM)
		return -EINVAL;
	if (!ud->ah || (wr->send_flags & IB_SEND_INLINE))
		return -EINVAL;
	av = &to_mah(ud->ah)->av;
	for (i = 0; i < wr->num_sge; i++)
		payload += wr->sg_list[i].length;
	if (payload > 4096)
		return -EINVAL;
	pad = (4 - (payload & 3)) & 3;
	grh = av->g_slid & 0x80;
	stf = be32_to_cpu(av->sl_tclass_flowlabel);
	sl = stf >> 28;
	dlid = be16_to_cpu(av->dlid);

	/* LRH: VL15 for SMPs, VL0 otherwise */
	p = mlx4_ib_hdr_put(&h, IB_LRH_BYTES);
	p[0] = smi ? 15 << 4 : 0;
	p[1] = sl << 4 | (grh ? IB_LNH_IBA_GLOBAL : IB_LNH_IBA_LOCAL);
	*(__be16 *)(p + 2) = av->dlid;
	*(__be16 *)(p + 4) = cpu_to_be16((IB_LRH_BYTES + (grh ? IB_GRH_BYTES : 0) +
					  IB_BTH_BYTES + IB_DETH_BYTES +
					  (imm ? IB_IMM_BYTES : 0) + payload + pad +
					  IB_ICRC_BYTES) / 4);
	*(__be16 *)(p + 6) = cpu_to_be16(dlid == IB_PERMISSIVE_LID ? IB_PERMISSIVE_LID :
					 av->g_slid & 0x7f);

	if (grh) {
		if (rdma_query_gid(&dev->ib_dev, qp->port, av->gid_index, &sgid))
			return -EINVAL;
		p = mlx4_ib_hdr_put(&h, IB_GRH_BYTES);
		*(__be32 *)p = cpu_to_be32(6u << 28 | (stf & 0x0fffffff));
		*(__be16 *)(p + 4) = cpu_to_be16(IB_BTH_BYTES + IB_DETH_BYTES +
						 (imm ? IB_IMM_BYTES : 0) + payload +
						 pad + IB_ICRC_BYTES);
		p[6] = IB_GRH_NEXT_HDR_BTH;
		p[7] = av->hop_limit;
		memcpy(p + 8, sgid.raw, 16);
		memcpy(p + 24, av->dgid, 16);
	}

	/*
	 * BTH.  A P_Key index past the port's table fails the send, as
	 * upstream's: the MAD must not go out under the full default P_Key.
	 */
	pkey_index = smi ? qp->pkey_index : ud->pkey_index;
	if (ib_get_cached_pkey(&dev->ib_dev, qp->port, pkey_index, &pkey)) {
		mlx4_ib_warn_rl(dev, "QP%u: P_Key index %u not in port %u's table\n",
				qp->ibqp.qp_num, pkey_index, qp->port);
		return -EINVAL;
	}
	p = mlx4_ib_hdr_put(&h, IB_BTH_BYTES);
	p[0] = imm ? IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE : IB_OPCODE_UD_SEND_ONLY;
	p[1] = (wr->send_flags & IB_SEND_SOLICITED ? 0x80 : 0) | pad << 4;
	*(__be16 *)(p + 2) = cpu_to_be16(pkey);
	*(__be32 *)(p + 4) = cpu_to_be32(ud->remote_qpn & 0xffffff);
	*(__be32 *)(p + 8) = cpu_to_be32(qp->send_psn++ & 0xffffff);

	/* DETH */
	qkey = ud->remote_qkey & 0x80000000 ? qp->qkey : ud->remote_qkey;
	p = mlx4_ib_hdr_put(&h, IB_DETH_BYTES);
	*(__be32 *)p = cpu_to_be32(qkey);
	*(__be32 *)(p + 4) = cpu_to_be32(qp->ibqp.qp_num & 0xffffff);

	if (imm) {
		p = mlx4_ib_hdr_put(&h, IB_IMM_BYTES);
		memcpy(p, &wr->ex.imm_data, IB_IMM_BYTES);
	}

	mlx->flags = cpu_to_be32((smi ? MLX4_HW_MLX_VL15 : 0) |
				 (dlid == IB_PERMISSIVE_LID ? MLX4_HW_MLX_SLR : 0) |
				 (u32)sl << 8 |
				 (qp->sq_signal_all || (wr->send_flags & IB_SEND_SIGNALED) ?
				  MLX4_HW_CTRL_CQ_UPDATE : 0));
	mlx->rlid = av->dlid;
	mlx->sched_prio = 0;
	mlx->reserved3 = 0;

	mlx4_ib_inline_start(&inl, wqe, sizeof(*mlx));
	mlx4_ib_inline_add(&inl, h.buf, h.len);
	off = mlx4_ib_inline_end(&inl);

	/*
	 * Room for the ICRC and the pad bytes the payload lacks, behind the
	 * gather list, which is written after it (wqe.c: prefetch)
	 */
	dseg = wqe + off;
	off += wr->num_sge * sizeof(*dseg);
	mlx4_ib_inline_start(&inl, wqe, off);
	mlx4_ib_inline_add(&inl, zero, pad + IB_ICRC_BYTES);
	off = mlx4_ib_inline_end(&inl);
	mlx4_ib_set_gather_segs(dseg, wr->sg_list, wr->num_sge);

	*opcode = MLX4_HW_OPCODE_SEND;
	return off;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The ICM layout: how many objects of each kind the HCA gets and where their
 * context tables lie in ICM.  Every table is a power of two in size and is
 * placed at a multiple of its size, biggest first, so all stay aligned.
 */
#include <linux/log2.h>
#include <linux/sort.h>

#include "mlx4_core.h"

/*
 * Object counts we ask for (clamped to what the card offers): upstream
 * mlx4's default profile, so that ibv_devinfo shows a lab the capacities
 * it knows (max_qp, max_cq, max_srq, max_mr, max_mcast_grp).  Tables are
 * backed in ICM only where objects exist (icm.c).
 */
#define MLX4_PROF_QPS		BIT(17)
#define MLX4_PROF_SRQS		BIT(16)
#define MLX4_PROF_CQS		BIT(16)
#define MLX4_PROF_EQS		128U
#define MLX4_PROF_MPTS		BIT(19)
#define MLX4_PROF_MTTS		BIT(20)
#define MLX4_PROF_MCGS		BIT(13)	/* hash entries + chain entries */
#define MLX4_MGM_ENTRY_LOG	10		/* 1 KiB: 248 QPs per group */

struct mlx4_res {
	u64	size;
	u64	*base;
};

static int mlx4_res_cmp(const void *a, const void *b)
{
	const struct mlx4_res *ra = a, *rb = b;

	if (ra->size != rb->size)
		return ra->size < rb->size ? 1 : -1;
	return 0;
}

int mlx4_make_profile(struct mlx4_priv *priv)
{
	struct mlx4_dev_cap *c = &priv->dev_cap;
	struct mlx4_caps *caps = &priv->dev.caps;
	struct mlx4_profile *p = &priv->profile;
	struct mlx4_res res[11];
	u32 mcgs;
	u64 base = 0;
	int i;

	caps->num_qps = min_t(u32, MLX4_PROF_QPS, c->max_qps);
	caps->num_srqs = min_t(u32, MLX4_PROF_SRQS, c->max_srqs);
	caps->num_cqs = min_t(u32, MLX4_PROF_CQS, c->max_cqs);
	caps->num_eqs = rounddown_pow_of_two(min_t(u32, MLX4_PROF_EQS, c->max_eqs));
	caps->num_mpts = min_t(u32, MLX4_PROF_MPTS, c->max_mpts);
	caps->num_mtts = MLX4_PROF_MTTS;
	mcgs = min_t(u32, MLX4_PROF_MCGS, c->max_mcgs);

	p->log_num_qps = ilog2(caps->num_qps);
	p->log_num_srqs = ilog2(caps->num_srqs);
	p->log_num_cqs = ilog2(caps->num_cqs);
	p->log_num_eqs = ilog2(caps->num_eqs);
	p->log_num_mpts = ilog2(caps->num_mpts);
	p->log_rd_per_qp = ilog2(c->max_responder_per_qp);
	p->log_mcg_entry_sz = MLX4_MGM_ENTRY_LOG;
	p->log_mcg_table_sz = ilog2(mcgs);
	p->log_mcg_hash_sz = p->log_mcg_table_sz - 1;
	p->num_mtts = caps->num_mtts;
	caps->num_mgms = 1 << p->log_mcg_hash_sz;
	caps->num_amgms = mcgs - caps->num_mgms;

	res[0] = (struct mlx4_res){ (u64)c->qpc_entry_sz * caps->num_qps, &p->qpc_base };
	res[1] = (struct mlx4_res){ ((u64)c->rdmarc_entry_sz << p->log_rd_per_qp) *
				    caps->num_qps, &p->rdmarc_base };
	res[2] = (struct mlx4_res){ (u64)c->altc_entry_sz * caps->num_qps, &p->altc_base };
	res[3] = (struct mlx4_res){ (u64)c->aux_entry_sz * caps->num_qps, &p->auxc_base };
	res[4] = (struct mlx4_res){ (u64)c->srq_entry_sz * caps->num_srqs, &p->srqc_base };
	res[5] = (struct mlx4_res){ (u64)c->cqc_entry_sz * caps->num_cqs, &p->cqc_base };
	res[6] = (struct mlx4_res){ (u64)c->eqc_entry_sz * caps->num_eqs, &p->eqc_base };
	res[7] = (struct mlx4_res){ (u64)c->dmpt_entry_sz * caps->num_mpts, &p->dmpt_base };
	res[8] = (struct mlx4_res){ ((u64)c->cmpt_entry_sz * MLX4_CMPT_NUM) << MLX4_CMPT_SHIFT,
				    &p->cmpt_base };
	res[9] = (struct mlx4_res){ (u64)c->mtt_entry_sz * caps->num_mtts, &p->mtt_base };
	res[10] = (struct mlx4_res){ (u64)mcgs << MLX4_MGM_ENTRY_LOG, &p->mcg_base };

	for (i = 0; i < ARRAY_SIZE(res); i++) {
		if (!is_power_of_2(res[i].size)) {
			dev_err(&priv->dev.pdev->dev,
				"ICM table %d size 0x%llx is not a power of two\n",
				i, res[i].size);
			return -EINVAL;
		}
		/* no table smaller than an ICM page */
		res[i].size = max_t(u64, res[i].size, MLX4_ICM_PAGE_SIZE);
	}
	sort(res, ARRAY_SIZE(res), sizeof(res[0]), mlx4_res_cmp, NULL);
	for (i = 0; i < ARRAY_SIZE(res); i++) {
		*res[i].base = base;
		base += res[i].size;
	}
	p->total = base;

	if (p->total > c->max_icm_sz) {
		dev_err(&priv->dev.pdev->dev,
			"profile needs 0x%llx bytes of ICM, the card has 0x%llx\n",
			p->total, c->max_icm_sz);
		return -ENOMEM;
	}
	return 0;
}

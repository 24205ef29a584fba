// SPDX-License-Identifier: GPL-2.0
/*
 * The QP state machine of the IBA (vol. 1, 10.3.1 and the attribute tables
 * of 11.2.4.2): which transitions a Modify QP may ask for and, per QP type,
 * which attributes it must and may carry.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include "core_priv.h"

/* Attribute sets shared by several rows of the table. */
#define QPA_INIT_UD	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY)
#define QPA_INIT_CONN	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS)
#define QPA_INIT_SPECIAL (IB_QP_PKEY_INDEX | IB_QP_QKEY)
#define QPA_RTR_UC	(IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN)
#define QPA_RTR_RC	(QPA_RTR_UC | IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER)
#define QPA_RTS_RC	(IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | \
			 IB_QP_SQ_PSN | IB_QP_MAX_QP_RD_ATOMIC)
#define QPA_RTS_OPT_UD	(IB_QP_CUR_STATE | IB_QP_QKEY)
#define QPA_RTS_OPT_UC	(IB_QP_CUR_STATE | IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | \
			 IB_QP_PATH_MIG_STATE)
#define QPA_RTS_OPT_RC	(QPA_RTS_OPT_UC | IB_QP_MIN_RNR_TIMER)

/* One allowed transition: required and optional attributes per QP type. */
struct ib_qp_transition {
	enum ib_qp_state	from;
	enum ib_qp_state	to;
	u32			req[IB_QPT_XRC_TGT + 1];
	u32			opt[IB_QPT_XRC_TGT + 1];
};

/*
 * Per QP type, in enum ib_qp_type order: SMI, GSI, RC, UC, UD, XRC_INI,
 * XRC_TGT (no rows for the raw types).
 */
#define QPA_BY_TYPE(smi, gsi, rc, uc, ud, xini, xtgt) \
	{ [IB_QPT_SMI] = (smi), [IB_QPT_GSI] = (gsi), [IB_QPT_RC] = (rc), \
	  [IB_QPT_UC] = (uc), [IB_QPT_UD] = (ud), [IB_QPT_XRC_INI] = (xini), \
	  [IB_QPT_XRC_TGT] = (xtgt) }
#define QPA_NONE	QPA_BY_TYPE(0, 0, 0, 0, 0, 0, 0)
/* XRC targets take the RC responder's attributes, initiators the requester's */
#define QPA_RTR_XTGT	(QPA_RTR_UC | IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER)
#define QPA_RTS_XTGT	(IB_QP_TIMEOUT | IB_QP_SQ_PSN)

static const struct ib_qp_transition ib_qp_transitions[] = {
	{ IB_QPS_RESET, IB_QPS_RESET, QPA_NONE, QPA_NONE },
	{ IB_QPS_RESET, IB_QPS_INIT,
	  QPA_BY_TYPE(QPA_INIT_SPECIAL, QPA_INIT_SPECIAL, QPA_INIT_CONN, QPA_INIT_CONN,
		      QPA_INIT_UD, QPA_INIT_CONN, QPA_INIT_CONN),
	  QPA_NONE },
	{ IB_QPS_INIT, IB_QPS_INIT, QPA_NONE,
	  QPA_BY_TYPE(QPA_INIT_SPECIAL, QPA_INIT_SPECIAL, QPA_INIT_CONN, QPA_INIT_CONN,
		      QPA_INIT_UD, QPA_INIT_CONN, QPA_INIT_CONN) },
	{ IB_QPS_INIT, IB_QPS_RTR,
	  QPA_BY_TYPE(0, 0, QPA_RTR_RC, QPA_RTR_UC, 0, QPA_RTR_UC, QPA_RTR_XTGT),
	  QPA_BY_TYPE(QPA_INIT_SPECIAL, QPA_INIT_SPECIAL,
		      IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX,
		      IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX,
		      IB_QP_PKEY_INDEX | IB_QP_QKEY,
		      IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX,
		      IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX) },
	{ IB_QPS_RTR, IB_QPS_RTS,
	  QPA_BY_TYPE(IB_QP_SQ_PSN, IB_QP_SQ_PSN, QPA_RTS_RC, IB_QP_SQ_PSN, IB_QP_SQ_PSN,
		      QPA_RTS_RC, QPA_RTS_XTGT),
	  QPA_BY_TYPE(QPA_RTS_OPT_UD, QPA_RTS_OPT_UD, QPA_RTS_OPT_RC, QPA_RTS_OPT_UC,
		      QPA_RTS_OPT_UD, QPA_RTS_OPT_UC, QPA_RTS_OPT_RC) },
	{ IB_QPS_RTS, IB_QPS_RTS, QPA_NONE,
	  QPA_BY_TYPE(QPA_RTS_OPT_UD, QPA_RTS_OPT_UD, QPA_RTS_OPT_RC, QPA_RTS_OPT_UC,
		      QPA_RTS_OPT_UD, QPA_RTS_OPT_UC, QPA_RTS_OPT_RC) },
	{ IB_QPS_RTS, IB_QPS_SQD, QPA_NONE,
	  QPA_BY_TYPE(IB_QP_EN_SQD_ASYNC_NOTIFY, IB_QP_EN_SQD_ASYNC_NOTIFY,
		      IB_QP_EN_SQD_ASYNC_NOTIFY, IB_QP_EN_SQD_ASYNC_NOTIFY,
		      IB_QP_EN_SQD_ASYNC_NOTIFY, IB_QP_EN_SQD_ASYNC_NOTIFY,
		      IB_QP_EN_SQD_ASYNC_NOTIFY) },
	{ IB_QPS_SQD, IB_QPS_RTS, QPA_NONE,
	  QPA_BY_TYPE(QPA_RTS_OPT_UD, QPA_RTS_OPT_UD, QPA_RTS_OPT_RC, QPA_RTS_OPT_UC,
		      QPA_RTS_OPT_UD, QPA_RTS_OPT_UC, QPA_RTS_OPT_RC) },
	{ IB_QPS_SQD, IB_QPS_SQD, QPA_NONE,
	  QPA_BY_TYPE(QPA_INIT_SPECIAL, QPA_INIT_SPECIAL,
		      IB_QP_PORT | IB_QP_AV | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
		      IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC |
		      IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS |
		      IB_QP_PKEY_INDEX | IB_QP_MIN_RNR_TIMER | IB_QP_PATH_MIG_STATE,
		      IB_QP_AV | IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS |
		      IB_QP_PKEY_INDEX | IB_QP_PATH_MIG_STATE,
		      IB_QP_PKEY_INDEX | IB_QP_QKEY,
		      IB_QP_PORT | IB_QP_AV | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
		      IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC | IB_QP_ALT_PATH |
		      IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX | IB_QP_PATH_MIG_STATE,
		      IB_QP_PORT | IB_QP_AV | IB_QP_TIMEOUT | IB_QP_MAX_DEST_RD_ATOMIC |
		      IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX |
		      IB_QP_MIN_RNR_TIMER | IB_QP_PATH_MIG_STATE) },
	{ IB_QPS_SQE, IB_QPS_RTS, QPA_NONE,
	  QPA_BY_TYPE(QPA_RTS_OPT_UD, QPA_RTS_OPT_UD, 0,
		      IB_QP_CUR_STATE | IB_QP_ACCESS_FLAGS, QPA_RTS_OPT_UD, 0, 0) },
};

static const struct ib_qp_transition ib_qp_to_reset_or_err = {
	.req = QPA_NONE,
	.opt = QPA_NONE,
};

static const struct ib_qp_transition *
ib_qp_find_transition(enum ib_qp_state from, enum ib_qp_state to)
{
	size_t i;

	/* Every state but RESET may go to RESET or ERR with no attributes. */
	if (from != IB_QPS_RESET && (to == IB_QPS_RESET || to == IB_QPS_ERR))
		return &ib_qp_to_reset_or_err;

	for (i = 0; i < ARRAY_SIZE(ib_qp_transitions); i++)
		if (ib_qp_transitions[i].from == from && ib_qp_transitions[i].to == to)
			return &ib_qp_transitions[i];
	return NULL;
}

bool ib_modify_qp_is_ok(enum ib_qp_state cur_state, enum ib_qp_state next_state,
			enum ib_qp_type type, enum ib_qp_attr_mask mask)
{
	const struct ib_qp_transition *t;
	u32 allowed;

	if ((unsigned int)cur_state > IB_QPS_ERR || (unsigned int)next_state > IB_QPS_ERR ||
	    (unsigned int)type > IB_QPT_XRC_TGT ||
	    (type > IB_QPT_UD && type < IB_QPT_XRC_INI))
		return false;	/* no rows for the raw QP types */

	/* The consumer may assert the current state only in these states. */
	if ((mask & IB_QP_CUR_STATE) &&
	    cur_state != IB_QPS_RTR && cur_state != IB_QPS_RTS &&
	    cur_state != IB_QPS_SQD && cur_state != IB_QPS_SQE)
		return false;

	t = ib_qp_find_transition(cur_state, next_state);
	if (!t)
		return false;

	if ((mask & t->req[type]) != t->req[type])
		return false;
	allowed = t->req[type] | t->opt[type] | IB_QP_STATE;
	return !(mask & ~allowed);
}
EXPORT_SYMBOL(ib_modify_qp_is_ok);

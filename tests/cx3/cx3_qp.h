/* SPDX-License-Identifier: GPL-2.0 */
/* ConnectX-3 model: queue pairs, shared by the QP commands and the engines. */
#ifndef CX3_QP_H
#define CX3_QP_H

#include "cx3.h"

#define CX3_QPC_SIZE		248

/* QP states, as in the context's flags[31:28] */
enum {
	CX3_QPS_RST = 0, CX3_QPS_INIT = 1, CX3_QPS_RTR = 2, CX3_QPS_RTS = 3,
	CX3_QPS_SQER = 4, CX3_QPS_SQD = 5, CX3_QPS_ERR = 6,
};

/* Service types, flags[23:16] */
enum {
	CX3_ST_RC = 0, CX3_ST_UC = 1, CX3_ST_UD = 3, CX3_ST_XRC = 6,
	CX3_ST_MLX = 7,
};

struct cx3_wq {
	uint32_t off;		/* in the QP buffer */
	uint32_t cnt;		/* WQEs, a power of two; 0 = none */
	uint8_t stride_shift;
	uint32_t cons;		/* WQEs the card has consumed, free-running */
};

struct cx3_qp {
	uint32_t qpn;
	uint8_t state;
	uint8_t st;
	uint32_t pd;
	uint32_t send_cqn, recv_cqn;
	bool srq;
	uint32_t srqn;
	uint32_t qkey;
	uint64_t db_rec;	/* RQ doorbell record */
	struct cx3_buf buf;	/* SQ and RQ share one buffer */
	struct cx3_wq sq, rq;
	uint8_t ctx[CX3_QPC_SIZE];	/* the latched context */

	bool send_unsupported_logged;
	bool on_err_list;
	struct cx3_qp *err_next;	/* dev->err_qps: QPs in ERR */
};

int cx3_qp_port(const struct cx3_qp *qp);
int cx3_qp_rq_head(struct cx3_dev *dev, struct cx3_qp *qp, uint16_t *head);
bool cx3_qp_sq_posted(struct cx3_dev *dev, struct cx3_qp *qp, uint32_t idx);
void cx3_qp_flush(struct cx3_dev *dev, struct cx3_qp *qp);
void cx3_qp_to_error(struct cx3_dev *dev, struct cx3_qp *qp);

/* cx3_send.c: the send engine, run from the doorbell and on entering RTS */
void cx3_qp_execute(struct cx3_dev *dev, struct cx3_qp *qp);

#endif /* CX3_QP_H */

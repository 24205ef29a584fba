// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the send engine.
 *
 * The data path (executing send WQEs, receive delivery, the wire between
 * ports) is the next stage of the test bed (issue 3).  Until it lands, a
 * send doorbell on a QP in RTS leaves the posted WQEs untouched and says so
 * once per QP in the log, so a test that depends on them fails visibly
 * rather than silently.  Flushing (QP to ERR) is done by cx3_qp.c and works.
 */
#include "cx3.h"
#include "cx3_qp.h"

void cx3_qp_execute(struct cx3_dev *dev, struct cx3_qp *qp)
{
	if (!qp->sq.cnt || !cx3_qp_sq_posted(dev, qp, qp->sq.cons))
		return;
	if (!qp->send_unsupported_logged)
		cx3_log(dev, "QP 0x%x: send WQEs posted; the send engine is not part of this model yet",
			qp->qpn);
	qp->send_unsupported_logged = true;
}

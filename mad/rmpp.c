// SPDX-License-Identifier: GPL-2.0
/*
 * RMPP (IBA 13.6), what the receiving and the sending side share: telling
 * RMPP MADs apart and the control MADs (ACK, STOP, ABORT) a side sends to
 * its peer.  Reassembly is in rmpp_recv.c, segmentation in rmpp_send.c.
 *
 * A control MAD repeats the header of the DATA it is about (common, RMPP
 * and class header) with the response bit of the method flipped, so that
 * it is routed back like a response or a request would be: an ACK for a
 * request's segments reaches the requester by its TID, an ACK for a
 * response's segments reaches the agent serving the request's method.
 */
#include <linux/slab.h>

#include "mad_priv.h"

bool mad_rmpp_is_active(const struct ib_mad_hdr *hdr)
{
	return ib_get_rmpp_flags(mad_rmpp_hdr(hdr)) & IB_MGMT_RMPP_FLAG_ACTIVE;
}

/* an active RMPP MAD of an RMPP class that is an ACK, STOP or ABORT */
bool mad_rmpp_is_ctl(const struct ib_mad_hdr *hdr)
{
	u8 type = mad_rmpp_hdr(hdr)->rmpp_type;

	return ib_is_mad_class_rmpp(hdr->mgmt_class) && mad_rmpp_is_active(hdr) &&
	       (type == IB_MGMT_RMPP_TYPE_ACK || type == IB_MGMT_RMPP_TYPE_STOP ||
		type == IB_MGMT_RMPP_TYPE_ABORT);
}

/* [sleep] sends an ACK, STOP or ABORT about data back to where wc came from */
void mad_rmpp_send_ctl(struct mad_port *port, struct mad_qp *mqp, const struct ib_wc *wc,
		       const struct ib_grh *grh, const struct ib_mad *data,
		       u8 type, u8 status, u32 seg_num, u32 newwin)
{
	int hdr_len = ib_get_mad_data_offset(data->mad_hdr.mgmt_class);
	struct ib_rmpp_hdr *rh;
	struct ib_mad *ctl;

	ctl = kzalloc(sizeof(*ctl), GFP_KERNEL);
	if (!ctl)
		return;
	memcpy(ctl, data, hdr_len);
	ctl->mad_hdr.method ^= IB_MGMT_METHOD_RESP;
	ctl->mad_hdr.status = 0;
	rh = mad_rmpp_hdr(ctl);
	rh->rmpp_version = IB_MGMT_RMPP_VERSION;
	rh->rmpp_type = type;
	rh->rmpp_rtime_flags = 0;
	ib_set_rmpp_resptime(rh, IB_MGMT_RMPP_NO_RESPTIME);
	ib_set_rmpp_flags(rh, IB_MGMT_RMPP_FLAG_ACTIVE);
	rh->rmpp_status = status;
	rh->seg_num = cpu_to_be32(seg_num);
	rh->paylen_newwin = cpu_to_be32(newwin);
	mad_send_back(port, mqp, wc, grh, ctl);
	kfree(ctl);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Directed-route SMPs on a channel adapter (IBA 14.2.2): the hop pointer
 * rules for SMPs leaving and entering a port.  A CA never forwards: an SMP
 * that a switch would relay is refused.
 *
 * Terms: "outbound" SMPs travel the initial path (direction bit clear),
 * "returning" ones the return path.  hop_ptr counts the hops done so far.
 */
#include "mad_priv.h"

static bool smp_returning(const struct ib_smp *smp)
{
	return smp->status & IB_SMP_DIRECTION;
}

/* An outbound SMP at the end of its path: for this node's SMA or SM. */
bool mad_smi_is_local(const struct ib_smp *smp)
{
	return !smp_returning(smp) && smp->hop_ptr == smp->hop_cnt + 1;
}

/* A returning SMP back at its origin: for the SM (agent) that sent it. */
bool mad_smi_returning(const struct ib_smp *smp)
{
	return smp_returning(smp) && !smp->hop_ptr;
}

/*
 * An SMP leaves through port_num (C14-9 outbound, C14-13 returning).
 * Advances hop_ptr as the sender must.
 */
enum mad_smi_verdict mad_smi_send(struct ib_smp *smp, u32 port_num)
{
	u8 hops = smp->hop_cnt;

	if (hops >= IB_SMP_MAX_PATH_HOPS)
		return MAD_SMI_DISCARD;

	if (!smp_returning(smp)) {
		if (!smp->hop_ptr && hops) {
			/* first hop: out the port the path names */
			smp->hop_ptr = 1;
			return smp->initial_path[1] == port_num ?
			       MAD_SMI_HANDLE : MAD_SMI_DISCARD;
		}
		if (smp->hop_ptr && smp->hop_ptr < hops)
			return MAD_SMI_DISCARD;	/* a switch's relay */
		if (smp->hop_ptr == hops) {
			/* directed part done: LID routing must take over */
			smp->hop_ptr++;
			return smp->dr_dlid == IB_LID_PERMISSIVE ?
			       MAD_SMI_HANDLE : MAD_SMI_DISCARD;
		}
		return smp->hop_ptr == hops + 1 ? MAD_SMI_HANDLE : MAD_SMI_DISCARD;
	}

	if (hops && smp->hop_ptr == hops + 1) {
		/* the responder turns the SMP around */
		smp->hop_ptr--;
		return smp->return_path[smp->hop_ptr] == port_num ?
		       MAD_SMI_HANDLE : MAD_SMI_DISCARD;
	}
	if (smp->hop_ptr >= 2 && smp->hop_ptr <= hops)
		return MAD_SMI_DISCARD;		/* a switch's relay */
	if (smp->hop_ptr == 1) {
		smp->hop_ptr = 0;
		return smp->dr_slid == IB_LID_PERMISSIVE ?
		       MAD_SMI_HANDLE : MAD_SMI_DISCARD;
	}
	return smp->hop_ptr ? MAD_SMI_DISCARD : MAD_SMI_HANDLE;
}

/* An SMP entered through port_num: may this node take it? */
static enum mad_smi_verdict mad_smi_recv(struct ib_smp *smp, u32 port_num)
{
	u8 hops = smp->hop_cnt;

	if (hops >= IB_SMP_MAX_PATH_HOPS)
		return MAD_SMI_DISCARD;

	if (!smp_returning(smp)) {
		if (hops && !smp->hop_ptr)
			return MAD_SMI_DISCARD;	/* the sender did not count its hop */
		if (smp->hop_ptr && smp->hop_ptr < hops)
			return MAD_SMI_DISCARD;	/* for a switch to relay */
		if (smp->hop_ptr == hops) {
			if (hops)
				smp->return_path[hops] = port_num;
			return smp->dr_dlid == IB_LID_PERMISSIVE ?
			       MAD_SMI_HANDLE : MAD_SMI_DISCARD;
		}
		return smp->hop_ptr == hops + 1 ? MAD_SMI_HANDLE : MAD_SMI_DISCARD;
	}

	if (hops && smp->hop_ptr == hops + 1)
		return MAD_SMI_DISCARD;
	if (smp->hop_ptr >= 2 && smp->hop_ptr <= hops)
		return MAD_SMI_DISCARD;		/* for a switch to relay */
	if (smp->hop_ptr == 1) {
		if (smp->dr_slid != IB_LID_PERMISSIVE)
			return MAD_SMI_DISCARD;	/* LID-routed tail: a switch's job */
		smp->hop_ptr = 0;
		return MAD_SMI_HANDLE;
	}
	return smp->hop_ptr ? MAD_SMI_DISCARD : MAD_SMI_HANDLE;
}

/*
 * An incoming DR SMP: true if it ends here (for the SMA or for an agent),
 * with hop_ptr where the local processing expects it.
 */
bool mad_smi_incoming_for_us(struct ib_smp *smp, u32 port_num)
{
	if (mad_smi_recv(smp, port_num) == MAD_SMI_DISCARD)
		return false;
	if (mad_smi_returning(smp))
		return true;
	if (!smp_returning(smp) && smp->hop_ptr == smp->hop_cnt &&
	    smp->dr_dlid != IB_LID_PERMISSIVE)
		return false;			/* LID-routed onwards: not a CA's job */
	if (smp_returning(smp) || mad_smi_is_local(smp))
		return mad_smi_is_local(smp) || mad_smi_returning(smp);
	/* at the end of the directed part: step past it as the sender would */
	if (mad_smi_send(smp, port_num) == MAD_SMI_DISCARD)
		return false;
	return mad_smi_is_local(smp);
}

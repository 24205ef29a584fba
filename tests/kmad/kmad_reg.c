// SPDX-License-Identifier: GPL-2.0
/* The MAD layer test client: agent registration, good and bad. */
#include <linux/slab.h>
#include <rdma/ib_sa.h>

#include "kmad.h"

static void km_nop_send(struct ib_mad_agent *a, struct ib_mad_send_wc *wc)
{
}

static void km_nop_recv(struct ib_mad_agent *a, struct ib_mad_send_buf *sb,
			struct ib_mad_recv_wc *rwc)
{
	ib_free_recv_mad(rwc);
}

static struct ib_mad_agent *km_reg(struct ib_device *dev, u32 port, enum ib_qp_type t,
				   u8 mclass, u8 version, const u8 *methods, int n,
				   u8 rmpp, const u8 *oui)
{
	struct ib_mad_reg_req req = {
		.mgmt_class = mclass,
		.mgmt_class_version = version,
	};
	int i;

	for (i = 0; i < n; i++)
		set_bit(methods[i], req.method_mask);
	if (oui)
		memcpy(req.oui, oui, 3);
	return ib_register_mad_agent(dev, port, t, &req, rmpp, km_nop_send,
				     km_nop_recv, NULL, 0);
}

static void km_expect_err(struct km_run *r, const char *name, struct ib_mad_agent *a,
			  long want)
{
	if (!IS_ERR(a)) {
		ib_unregister_mad_agent(a);
		km_fail(r, name, "registered, expected %ld", want);
	} else if (PTR_ERR(a) != want) {
		km_fail(r, name, "got %ld, expected %ld", PTR_ERR(a), want);
	} else {
		km_pass(r, name);
	}
}

#define KM_NAGENTS 8

void km_reg_cases(struct km_run *r)
{
	static const u8 sm_methods[] = { IB_MGMT_METHOD_GET, IB_MGMT_METHOD_SET,
					 IB_MGMT_METHOD_TRAP, IB_MGMT_METHOD_TRAP_REPRESS };
	static const u8 sa_methods[] = { IB_MGMT_METHOD_GET, IB_MGMT_METHOD_SET,
					 IB_SA_METHOD_GET_TABLE, IB_SA_METHOD_DELETE,
					 0x14 /* GetMulti */ };
	static const u8 get[] = { IB_MGMT_METHOD_GET };
	static const u8 oui[3] = { 0x00, 0x14, 0x05 };
	struct ib_device *dev = r->dev;
	struct ib_mad_agent *a[KM_NAGENTS] = {}, *x;
	u32 hi[KM_NAGENTS] = {};
	int i, n = 0;
	bool ok;

	/* what opensm registers */
	a[n] = km_reg(dev, 1, IB_QPT_SMI, IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE, 1,
		      sm_methods, ARRAY_SIZE(sm_methods), 0, NULL);
	a[n + 1] = km_reg(dev, 1, IB_QPT_SMI, IB_MGMT_CLASS_SUBN_LID_ROUTED, 1,
			  sm_methods, ARRAY_SIZE(sm_methods), 0, NULL);
	a[n + 2] = km_reg(dev, 1, IB_QPT_GSI, IB_MGMT_CLASS_SUBN_ADM, 2,
			  sa_methods, ARRAY_SIZE(sa_methods), 1, NULL);
	if (IS_ERR(a[n]) || IS_ERR(a[n + 1]) || IS_ERR(a[n + 2]))
		km_fail(r, "reg-opensm-set", "%d %d %d", PTR_ERR_OR_ZERO(a[n]),
			PTR_ERR_OR_ZERO(a[n + 1]), PTR_ERR_OR_ZERO(a[n + 2]));
	else
		km_pass(r, "reg-opensm-set");
	n += 3;

	/* what ibnetdiscover and libibmad register: empty masks, twice */
	for (i = 0; i < 2; i++) {
		a[n++] = km_reg(dev, 1, IB_QPT_SMI, IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE, 1,
				NULL, 0, 0, NULL);
		a[n++] = km_reg(dev, 1, IB_QPT_GSI, IB_MGMT_CLASS_SUBN_ADM, 2,
				NULL, 0, 1, NULL);
	}
	ok = true;
	for (i = 3; i < n; i++)
		ok &= !IS_ERR(a[i]);
	if (ok)
		km_pass(r, "reg-empty-masks-coexist");
	else
		km_fail(r, "reg-empty-masks-coexist", "a registration failed");

	/*
	 * hi_tid: one per agent, never 0, below 2^24 (the top byte of a TID is
	 * mlx4's).  (That a wrapped counter skips the live ones would take
	 * 2^24 registrations to show.)
	 */
	ok = true;
	for (i = 0; i < n; i++) {
		int j;

		if (IS_ERR(a[i]))
			continue;
		hi[i] = a[i]->hi_tid;
		ok &= hi[i] && hi[i] < BIT(24);
		for (j = 0; j < i; j++)
			ok &= IS_ERR(a[j]) || hi[j] != hi[i];
	}
	if (ok)
		km_pass(r, "reg-hi-tid-unique-24-bits");
	else
		km_fail(r, "reg-hi-tid-unique-24-bits",
			"two agents share a hi_tid, or one is 0 or 2^24 or more");

	/* a method another agent claims: -EINVAL, as upstream says */
	x = km_reg(dev, 1, IB_QPT_SMI, IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE, 1, get, 1, 0, NULL);
	km_expect_err(r, "reg-taken-method-einval", x, -EINVAL);
	x = km_reg(dev, 1, IB_QPT_GSI, IB_MGMT_CLASS_SUBN_ADM, 2, get, 1, 1, NULL);
	km_expect_err(r, "reg-taken-sa-method-einval", x, -EINVAL);
	/* the same method on the other port is free */
	x = km_reg(dev, 2, IB_QPT_SMI, IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE, 1, get, 1, 0, NULL);
	if (IS_ERR(x)) {
		km_fail(r, "reg-other-port-free", "%ld", PTR_ERR(x));
	} else {
		ib_unregister_mad_agent(x);
		km_pass(r, "reg-other-port-free");
	}

	x = km_reg(dev, 3, IB_QPT_GSI, IB_MGMT_CLASS_PERF_MGMT, 1, get, 1, 0, NULL);
	km_expect_err(r, "reg-bad-port", x, -EINVAL);
	x = km_reg(dev, 0, IB_QPT_GSI, IB_MGMT_CLASS_PERF_MGMT, 1, get, 1, 0, NULL);
	km_expect_err(r, "reg-port-zero", x, -EINVAL);
	x = km_reg(dev, 1, IB_QPT_UD, IB_MGMT_CLASS_PERF_MGMT, 1, get, 1, 0, NULL);
	km_expect_err(r, "reg-bad-qp-type", x, -EINVAL);
	x = km_reg(dev, 1, IB_QPT_SMI, IB_MGMT_CLASS_PERF_MGMT, 1, get, 1, 0, NULL);
	km_expect_err(r, "reg-gs-class-on-qp0", x, -EINVAL);
	x = km_reg(dev, 1, IB_QPT_GSI, IB_MGMT_CLASS_SUBN_LID_ROUTED, 1, get, 1, 0, NULL);
	km_expect_err(r, "reg-smp-class-on-qp1", x, -EINVAL);
	x = km_reg(dev, 1, IB_QPT_GSI, 0, 1, get, 1, 0, NULL);
	km_expect_err(r, "reg-class-zero", x, -EINVAL);
	x = km_reg(dev, 1, IB_QPT_GSI, 0x60, 1, get, 1, 0, NULL);
	km_expect_err(r, "reg-class-out-of-range", x, -EINVAL);
	x = km_reg(dev, 1, IB_QPT_GSI, IB_MGMT_CLASS_PERF_MGMT, 0x83, get, 1, 0, NULL);
	km_expect_err(r, "reg-bad-class-version", x, -EINVAL);
	x = km_reg(dev, 1, IB_QPT_GSI, IB_MGMT_CLASS_PERF_MGMT, 1, get, 1, 1, NULL);
	km_expect_err(r, "reg-rmpp-on-non-rmpp-class", x, -EINVAL);
	x = km_reg(dev, 1, IB_QPT_GSI, IB_MGMT_CLASS_SUBN_ADM, 2, NULL, 0, 2, NULL);
	km_expect_err(r, "reg-bad-rmpp-version", x, -EINVAL);
	x = km_reg(dev, 1, IB_QPT_GSI, 0x32, 1, get, 1, 1, NULL);
	km_expect_err(r, "reg-vendor-class-without-oui", x, -EINVAL);
	x = km_reg(dev, 1, IB_QPT_GSI, 0x32, 1, get, 1, 1, oui);
	if (IS_ERR(x)) {
		km_fail(r, "reg-vendor-class-with-oui", "%ld", PTR_ERR(x));
	} else {
		struct ib_mad_agent *y;
		static const u8 oui2[3] = { 0x00, 0x02, 0xc9 };

		y = km_reg(dev, 1, IB_QPT_GSI, 0x32, 1, get, 1, 1, oui2);
		if (IS_ERR(y)) {
			km_fail(r, "reg-vendor-class-with-oui", "other OUI: %ld", PTR_ERR(y));
		} else {
			ib_unregister_mad_agent(y);
			km_pass(r, "reg-vendor-class-with-oui");
		}
		ib_unregister_mad_agent(x);
	}
	x = ib_register_mad_agent(dev, 1, IB_QPT_GSI, NULL, 0, NULL, NULL, NULL, 0);
	km_expect_err(r, "reg-send-only-without-handler", x, -EINVAL);
	x = ib_register_mad_agent(dev, 1, IB_QPT_GSI, NULL, 1, km_nop_send, NULL, NULL,
				  IB_MAD_USER_RMPP);
	km_expect_err(r, "reg-send-only-user-rmpp", x, -EINVAL);

	for (i = 0; i < n; i++)
		if (!IS_ERR_OR_NULL(a[i]))
			ib_unregister_mad_agent(a[i]);

	/* freed methods can be claimed again */
	x = km_reg(dev, 1, IB_QPT_SMI, IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE, 1, get, 1, 0, NULL);
	if (IS_ERR(x)) {
		km_fail(r, "reg-after-unregister", "%ld", PTR_ERR(x));
	} else {
		ib_unregister_mad_agent(x);
		km_pass(r, "reg-after-unregister");
	}
}

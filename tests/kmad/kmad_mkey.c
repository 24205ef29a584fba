// SPDX-License-Identifier: GPL-2.0
/*
 * The MAD layer test client: the port's M_Key protects it from local SMPs
 * as from the fabric's.  ib_mad hands a directed-route SMP that ends at
 * this node to the SMA with the completion it would have had from the
 * wire, so the SMA checks its M_Key.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "kmad.h"

/* PortInfo offsets in smp->data (IBA 14.2.5.6) */
#define KM_PI_MKEY		0
#define KM_PI_MKEY_LEASE	26
#define KM_PI_STATE		32	/* low nibble: PortState */
#define KM_PI_PHYS_STATE	33	/* high nibble: PortPhysicalState */
#define KM_PI_MKEY_PROTECT	34	/* bits 7:6 */
#define KM_PI_MKEY_VIOLATIONS	44
#define KM_MKEY			cpu_to_be64(0x4b4d41444d4b4559ULL)

static bool km_smp_ok(const struct ib_smp *smp)
{
	return smp->method == IB_MGMT_METHOD_GET_RESP &&
	       !(smp->status & ~IB_SMP_DIRECTION);
}

/*
 * A DR Set(PortInfo) hop 0 of pi (as a Get returned it) with the port's
 * state fields at "no change", M_Key new_key, protection bits protect and
 * M_KeyLeasePeriod lease, sent with mkey in its header; true if answered
 * without an error status.
 */
static bool km_set_portinfo(struct km_agent *ka, const u8 *pi, __be64 mkey, __be64 new_key,
			    u8 protect, __be16 lease, const char **why)
{
	struct ib_mad_send_buf *buf = NULL;
	struct ib_smp *smp;
	u8 *set;
	bool ok;

	set = kmemdup(pi, IB_SMP_DATA_SIZE, GFP_KERNEL);
	if (!set) {
		*why = "no memory";
		return false;
	}
	set[KM_PI_STATE] &= 0xf0;
	set[KM_PI_PHYS_STATE] &= 0x0f;
	memcpy(set + KM_PI_MKEY, &new_key, sizeof(new_key));
	memcpy(set + KM_PI_MKEY_LEASE, &lease, sizeof(lease));
	set[KM_PI_MKEY_PROTECT] = protect << 6 | (set[KM_PI_MKEY_PROTECT] & 0x3f);
	smp = km_dr_send(ka, IB_MGMT_METHOD_SET, IB_SMP_ATTR_PORT_INFO, mkey, set, 0, NULL,
			 &buf, why);
	ok = smp && km_smp_ok(smp);
	if (smp && !ok)
		*why = "error status";
	km_send_free(buf);
	kfree(set);
	return ok;
}

/* a DR Get(PortInfo) hop 0 with mkey, its data copied to pi */
static bool km_get_portinfo(struct km_agent *ka, __be64 mkey, u8 *pi, const char **why)
{
	struct ib_mad_send_buf *buf = NULL;
	struct ib_smp *smp;
	bool ok;

	smp = km_dr_send(ka, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, mkey, NULL, 0, NULL,
			 &buf, why);
	ok = smp && km_smp_ok(smp);
	if (ok)
		memcpy(pi, smp->data, IB_SMP_DATA_SIZE);
	else if (smp)
		*why = "error status";
	km_send_free(buf);
	return ok;
}

/*
 * M_Key protection holds for local SMPs too: with an M_Key set (protection
 * level 1), a Set(PortInfo) sent locally (DR hop 0) with the wrong key
 * changes nothing and is not answered; the port counts the violation.
 * The same Set with the right key works (and restores the port).
 */
void km_mkey_cases(struct km_run *r, struct km_agent *ka)
{
	const char *name = "dr-hop0-set-portinfo-wrong-mkey-refused";
	const char *ctl = "dr-hop0-set-portinfo-right-mkey-applied";
	__be16 lease0 = 0, bad_lease = cpu_to_be16(0x1234);
	const __be64 mkey = KM_MKEY;
	const char *why = "";
	u8 *pi, *now;

	pi = kzalloc(2 * IB_SMP_DATA_SIZE, GFP_KERNEL);
	if (!pi) {
		km_fail(r, name, "no memory");
		return;
	}
	now = pi + IB_SMP_DATA_SIZE;
	if (!km_get_portinfo(ka, 0, pi, &why)) {
		km_fail(r, name, "Get(PortInfo): %s", why);
		goto out;
	}
	memcpy(&lease0, pi + KM_PI_MKEY_LEASE, sizeof(lease0));
	if (!km_set_portinfo(ka, pi, 0, KM_MKEY, 1, lease0, &why)) {
		km_fail(r, ctl, "setting the M_Key: %s", why);
		goto out;
	}

	/* the wrong key: an attempt to clear the key and change the lease */
	if (km_set_portinfo(ka, pi, ~KM_MKEY, 0, 0, bad_lease, &why))
		why = "the Set was answered without an error";
	else if (ka->rwc)
		why = "a response was delivered";
	else if (!km_get_portinfo(ka, KM_MKEY, now, &why))
		why = "no Get(PortInfo) with the right key afterwards";
	else if (memcmp(now + KM_PI_MKEY, &mkey, sizeof(mkey)) ||
		 memcmp(now + KM_PI_MKEY_LEASE, &lease0, sizeof(lease0)))
		why = "the port changed";
	else if (!now[KM_PI_MKEY_VIOLATIONS] && !now[KM_PI_MKEY_VIOLATIONS + 1])
		why = "no M_Key violation counted";
	else
		why = NULL;
	if (why)
		km_fail(r, name, "%s", why);
	else
		km_pass(r, name);

	/* the right key: the lease changes, then the key and lease go back */
	why = NULL;
	if (!km_set_portinfo(ka, pi, KM_MKEY, KM_MKEY, 1, bad_lease, &why) ||
	    !km_get_portinfo(ka, KM_MKEY, now, &why))
		; /* why says it */
	else if (memcmp(now + KM_PI_MKEY_LEASE, &bad_lease, sizeof(bad_lease)))
		why = "the lease did not change";
	else if (!km_set_portinfo(ka, pi, KM_MKEY, 0, 0, lease0, &why) ||
		 !km_get_portinfo(ka, 0, now, &why))
		; /* why says it */
	else if (memchr_inv(now + KM_PI_MKEY, 0, sizeof(mkey)))
		why = "the M_Key was not cleared";
	if (why)
		km_fail(r, ctl, "%s", why);
	else
		km_pass(r, ctl);
out:
	/* whatever happened: no key left behind for the later cases */
	if (km_get_portinfo(ka, KM_MKEY, now, &why) &&
	    !memcmp(now + KM_PI_MKEY, &mkey, sizeof(mkey)))
		km_set_portinfo(ka, pi, KM_MKEY, 0, 0, lease0, &why);
	kfree(pi);
}


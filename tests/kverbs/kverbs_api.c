// SPDX-License-Identifier: GPL-2.0
/*
 * What a ULP written for Linux 6.1 relies on in the device and object API
 * (docs/kernel-api.md, step S2D): the port capabilities, the device lookup
 * by name and driver, the firmware string's bound, the P_Key and GID
 * searches, and the unsafe global rkey of IB_PD_UNSAFE_GLOBAL_RKEY.
 */
#include <linux/delay.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_smi.h>
#include "kverbs.h"

/*
 * rdma_protocol_*() and rdma_cap_*() on both ports: an InfiniBand port
 * with the IB management services, 256-byte MADs, no GRH required; the
 * port data agrees with the port attributes; rdma_for_each_port visits 1
 * and 2; the device advertises only what works (decision 8).
 */
int kv_case_port_caps(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_device *dev = r->dev;
	const struct ib_device_attr *a = &dev->attrs;
	struct ib_port_attr pa;
	u32 port, seen = 0;
	int err;

	rdma_for_each_port(dev, port) {
		seen |= BIT(port);
		err = ib_query_port(dev, port, &pa);
		if (err)
			return kv_fail(r, "ib_query_port(%u): %d", port, err);
		if (!rdma_protocol_ib(dev, port) || rdma_protocol_roce(dev, port) ||
		    rdma_protocol_iwarp(dev, port) || rdma_protocol_raw_packet(dev, port) ||
		    rdma_protocol_usnic(dev, port) || !rdma_ib_or_roce(dev, port))
			return kv_fail(r, "port %u: protocols 0x%x, want InfiniBand only", port,
				       dev->port_data[port].immutable.core_cap_flags);
		if (!rdma_cap_ib_mad(dev, port) || !rdma_cap_ib_smi(dev, port) ||
		    !rdma_cap_ib_cm(dev, port) || !rdma_cap_ib_sa(dev, port) ||
		    !rdma_cap_ib_mcast(dev, port) || !rdma_cap_af_ib(dev, port) ||
		    rdma_cap_iw_cm(dev, port) || rdma_cap_opa_mad(dev, port) ||
		    rdma_cap_opa_ah(dev, port) || rdma_cap_eth_ah(dev, port) ||
		    rdma_core_cap_opa_port(dev, port) || rdma_is_grh_required(dev, port) ||
		    rdma_cap_roce_gid_table(dev, port) || rdma_cap_read_inv(dev, port))
			return kv_fail(r, "port %u: capabilities 0x%x, want RDMA_CORE_PORT_IBA_IB",
				       port, dev->port_data[port].immutable.core_cap_flags);
		if (dev->port_data[port].immutable.core_cap_flags != RDMA_CORE_PORT_IBA_IB ||
		    rdma_max_mad_size(dev, port) != 256 ||
		    dev->port_data[port].immutable.pkey_tbl_len != pa.pkey_tbl_len ||
		    dev->port_data[port].immutable.gid_tbl_len != pa.gid_tbl_len)
			return kv_fail(r, "port %u: caps 0x%x mad %zu tables %d/%d, attr %u/%d",
				       port, dev->port_data[port].immutable.core_cap_flags,
				       rdma_max_mad_size(dev, port),
				       dev->port_data[port].immutable.pkey_tbl_len,
				       dev->port_data[port].immutable.gid_tbl_len,
				       pa.pkey_tbl_len, pa.gid_tbl_len);
		if (rdma_mtu_from_attr(dev, port, &pa) != ib_mtu_enum_to_int(pa.max_mtu) ||
		    rdma_mtu_enum_to_int(dev, port, IB_MTU_2048) != 2048)
			return kv_fail(r, "port %u: MTU helpers %d/%d", port,
				       rdma_mtu_from_attr(dev, port, &pa),
				       rdma_mtu_enum_to_int(dev, port, IB_MTU_2048));
	}
	if (seen != (BIT(1) | BIT(2)))
		return kv_fail(r, "rdma_for_each_port visited 0x%x", seen);
	/* bytes to MTU codes round down, 256 at the least; no switch here */
	if (ib_mtu_int_to_enum(2048) != IB_MTU_2048 || ib_mtu_int_to_enum(3000) != IB_MTU_2048 ||
	    ib_mtu_int_to_enum(100) != IB_MTU_256 || ib_mtu_int_to_enum(65536) != IB_MTU_4096 ||
	    opa_mtu_int_to_enum(9000) != OPA_MTU_8192 || rdma_cap_ib_switch(dev))
		return kv_fail(r, "MTU codes %d %d %d %d %d, switch %d", ib_mtu_int_to_enum(2048),
			       ib_mtu_int_to_enum(3000), ib_mtu_int_to_enum(100),
			       ib_mtu_int_to_enum(65536), opa_mtu_int_to_enum(9000),
			       rdma_cap_ib_switch(dev));
	/* mlx4_ib does not tell its vectors' CPUs: NULL, as for a bad vector */
	if (ib_get_vector_affinity(dev, 0) || ib_get_vector_affinity(dev, -1) ||
	    ib_get_vector_affinity(dev, dev->num_comp_vectors))
		return kv_fail(r, "ib_get_vector_affinity gave a CPU mask");
	if (!(a->kernel_cap_flags & IBK_BLOCK_MULTICAST_LOOPBACK) ||
	    (a->kernel_cap_flags & IBK_LOCAL_DMA_LKEY) ||
	    (a->device_cap_flags & IB_DEVICE_RAW_IP_CSUM))
		return kv_fail(r, "device flags 0x%llx, kernel flags 0x%llx: not what works",
			       a->device_cap_flags, a->kernel_cap_flags);
	return 0;
}

/*
 * ib_device_get_by_name(): the device under its name with its driver's id
 * or RDMA_DRIVER_UNKNOWN, nothing for another driver or an unknown name.
 */
int kv_case_device_by_name(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_device *dev;

	dev = ib_device_get_by_name(r->dev->name, RDMA_DRIVER_MLX4);
	if (dev != r->dev) {
		if (dev)
			ib_device_put(dev);
		return kv_fail(r, "by name and MLX4: %p, want %p", dev, r->dev);
	}
	ib_device_put(dev);
	dev = ib_device_get_by_name(r->dev->name, RDMA_DRIVER_UNKNOWN);
	if (dev != r->dev) {
		if (dev)
			ib_device_put(dev);
		return kv_fail(r, "by name and UNKNOWN: %p, want %p", dev, r->dev);
	}
	ib_device_put(dev);
	dev = ib_device_get_by_name(r->dev->name, RDMA_DRIVER_MLX5);
	if (dev) {
		ib_device_put(dev);
		return kv_fail(r, "by name and MLX5: the mlx4 device");
	}
	dev = ib_device_get_by_name("kverbs_none", RDMA_DRIVER_UNKNOWN);
	if (dev) {
		ib_device_put(dev);
		return kv_fail(r, "an unknown name found %s", dev->name);
	}
	return 0;
}

/*
 * ib_get_device_fw_str(): the version of attrs.fw_ver as text, NUL
 * terminated within IB_FW_VERSION_NAME_MAX (32) bytes, nothing written
 * beyond them.
 */
int kv_case_fw_str(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	u64 fw = r->dev->attrs.fw_ver;
	char want[IB_FW_VERSION_NAME_MAX];
	char buf[2 * IB_FW_VERSION_NAME_MAX];
	int i;

	memset(buf, 0x5a, sizeof(buf));
	ib_get_device_fw_str(r->dev, buf);
	for (i = IB_FW_VERSION_NAME_MAX; i < sizeof(buf); i++)
		if (buf[i] != 0x5a)
			return kv_fail(r, "byte %d beyond the %d-byte string written", i,
				       IB_FW_VERSION_NAME_MAX);
	if (!memchr(buf, '\0', IB_FW_VERSION_NAME_MAX))
		return kv_fail(r, "no NUL within %d bytes", IB_FW_VERSION_NAME_MAX);
	snprintf(want, sizeof(want), "%d.%d.%d", (int)(fw >> 32) & 0xffff,
		 (int)(fw >> 16) & 0xffff, (int)fw & 0xffff);
	if (strcmp(buf, want))
		return kv_fail(r, "firmware \"%s\", fw_ver says \"%s\"", buf, want);
	return 0;
}

/* P_Key table block 0 of port 1 set through the device's SMA (process_mad) */
static int kv_set_pkeys(struct kv_run *r, const u16 *pkeys, int n)
{
	struct ib_smp *in, *out;
	__be16 *tbl;
	int i, ret;

	in = kzalloc(sizeof(*in), GFP_KERNEL);
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!in || !out) {
		ret = kv_fail(r, "no memory for an SMP");
		goto out;
	}
	in->base_version = 1;
	in->mgmt_class = 0x01;			/* LID-routed subnet management */
	in->class_version = 1;
	in->method = 0x02;			/* Set */
	in->attr_id = cpu_to_be16(0x0016);	/* P_KeyTable */
	in->attr_mod = cpu_to_be32(0);		/* block 0 */
	tbl = (__be16 *)in->data;
	for (i = 0; i < n; i++)
		tbl[i] = cpu_to_be16(pkeys[i]);
	ret = r->dev->ops.process_mad(r->dev, IB_MAD_IGNORE_MKEY, 1, NULL, NULL,
				      (const struct ib_mad *)in, (struct ib_mad *)out);
	if (!(ret & IB_MAD_RESULT_SUCCESS) || out->status)
		ret = kv_fail(r, "SubnSet(P_KeyTable): result 0x%x status 0x%x", ret,
			      be16_to_cpu(out->status));
	else
		ret = 0;
out:
	kfree(in);
	kfree(out);
	return ret;
}

/* the cache has index idx == pkey (after the PKEY_CHANGE event), bounded */
/*
 * The cache follows a PKEY_CHANGE in the device's event work, behind the
 * other clients' handlers of the events before it (ib_sa reads the P_Key
 * table from the card for each of its groups): on the debug kernel that
 * took 6 s once, so this wait is longer than KV_WAIT_MS.  It is about
 * the cache converging, not about how fast.
 */
#define KV_CACHE_WAIT_MS	30000

static int kv_wait_cached_pkey(struct kv_run *r, u16 idx, u16 pkey)
{
	u16 got = 0;
	int i;

	for (i = 0; i < KV_CACHE_WAIT_MS / 20; i++) {
		if (!ib_get_cached_pkey(r->dev, 1, idx, &got) && got == pkey)
			return 0;
		msleep(20);
	}
	return kv_fail(r, "cached P_Key %u is 0x%04x, want 0x%04x", idx, got, pkey);
}

/*
 * ib_find_pkey() (the device's table) and the cached searches, on a table
 * of port 1 with a limited member of 0x1234 at index 1 and a full one at
 * 2: the full member wins for either form, the exact search tells them
 * apart, an absent P_Key is -ENOENT; the default table is put back.
 */
int kv_case_pkey_find(struct kv_self *s)
{
	static const u16 table[] = { 0xffff, 0x1234, 0x9234 };
	static const u16 dflt[] = { 0xffff, 0, 0 };
	struct kv_run *r = &s->r;
	u16 idx = 0, lidx = 0;
	int ret, err, err2;

	ret = kv_set_pkeys(r, table, ARRAY_SIZE(table));
	ret = ret ?: kv_wait_cached_pkey(r, 2, 0x9234);
	if (ret)
		goto out;
	err = ib_find_pkey(r->dev, 1, 0x1234, &lidx);
	err2 = ib_find_pkey(r->dev, 1, 0x9234, &idx);
	if (err || err2 || lidx != 2 || idx != 2) {
		ret = kv_fail(r, "ib_find_pkey 0x1234: %d index %u, 0x9234: %d index %u; want 2",
			      err, lidx, err2, idx);
		goto out;
	}
	err = ib_find_cached_pkey(r->dev, 1, 0x1234, &idx);
	if (err || idx != 2) {
		ret = kv_fail(r, "ib_find_cached_pkey 0x1234: %d index %u, want 2", err, idx);
		goto out;
	}
	err = ib_find_exact_cached_pkey(r->dev, 1, 0x1234, &lidx);
	err2 = ib_find_exact_cached_pkey(r->dev, 1, 0x9234, &idx);
	if (err || err2 || lidx != 1 || idx != 2) {
		ret = kv_fail(r, "exact 0x1234: %d index %u, 0x9234: %d index %u", err, lidx,
			      err2, idx);
		goto out;
	}
	err = ib_find_pkey(r->dev, 1, 0x5555, &idx);
	err2 = ib_find_cached_pkey(r->dev, 1, 0x5555, &idx);
	if (err != -ENOENT || err2 != -ENOENT ||
	    ib_find_exact_cached_pkey(r->dev, 1, 0x7fff, &idx) != -ENOENT) {
		ret = kv_fail(r, "an absent P_Key: %d / %d, want -ENOENT", err, err2);
		goto out;
	}
	/* the default's limited form finds the full default */
	err = ib_find_pkey(r->dev, 1, 0x7fff, &idx);
	if (err || idx != 0)
		ret = kv_fail(r, "ib_find_pkey 0x7fff: %d index %u, want 0", err, idx);
out:
	err = kv_set_pkeys(r, dflt, ARRAY_SIZE(dflt));
	err = err ?: kv_wait_cached_pkey(r, 2, 0);
	return ret ?: err;
}

/*
 * rdma_query_gid() and ib_find_gid(): port 2's GID 0 is found on port 2 at
 * index 0; every other entry is empty (-ENOENT) or of the port's subnet,
 * never the zero GID, which ib_find_gid never finds; a bad index or port
 * -EINVAL; an unknown GID -ENOENT.
 */
int kv_case_gid_find(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	union ib_gid gid, zero = {}, other;
	int err, i, len = r->dev->port_data[2].immutable.gid_tbl_len;
	u32 port = 0;
	u16 idx = 0;

	err = rdma_query_gid(r->dev, 2, 0, &gid);
	if (err)
		return kv_fail(r, "rdma_query_gid(2, 0): %d", err);
	err = ib_find_gid(r->dev, &gid, &port, &idx);
	if (err || port != 2 || idx != 0)
		return kv_fail(r, "ib_find_gid of port 2's GID: %d port %u index %u", err,
			       port, idx);
	if (ib_find_gid(r->dev, &gid, &port, NULL) || port != 2)
		return kv_fail(r, "ib_find_gid without an index pointer failed");
	/*
	 * every other entry is either empty (-ENOENT) or a GID of the port's
	 * subnet: mlx4 (the card as the model) gives every index the prefix
	 * with its GUIDInfo GUID, zero where the SM set none, so no entry of
	 * an InfiniBand port is empty; the zero GID is never returned
	 */
	for (i = 1; i < len; i++) {
		err = rdma_query_gid(r->dev, 2, i, &other);
		if (err == -ENOENT)
			continue;
		if (err || !memcmp(&other, &zero, sizeof(zero)) ||
		    other.global.subnet_prefix != gid.global.subnet_prefix)
			return kv_fail(r, "rdma_query_gid(2, %d): %d, %pI6", i, err, other.raw);
	}
	if (ib_find_gid(r->dev, &zero, &port, &idx) != -ENOENT)
		return kv_fail(r, "the zero GID found (port %u index %u)", port, idx);
	other = gid;
	other.global.interface_id ^= cpu_to_be64(0x5a5a);
	if (ib_find_gid(r->dev, &other, &port, &idx) != -ENOENT)
		return kv_fail(r, "an unknown GID found (port %u index %u)", port, idx);
	if (rdma_query_gid(r->dev, 2, len, &other) != -EINVAL ||
	    rdma_query_gid(r->dev, 2, -1, &other) != -EINVAL ||
	    rdma_query_gid(r->dev, 3, 0, &other) != -EINVAL ||
	    rdma_query_gid(r->dev, 0, 0, &other) != -EINVAL)
		return kv_fail(r, "rdma_query_gid accepted a bad index or port");
	return 0;
}

/*
 * IB_PD_UNSAFE_GLOBAL_RKEY: an RC WRITE from port 1 lands in a buffer on
 * port 2 addressed by its bus address and the PD's unsafe_global_rkey
 * alone (no MR of the buffer's); a PD without the flag has no such key.
 */
int kv_case_unsafe_rkey(struct kv_self *s)
{
	struct kv_run *r = &s->r;
	struct ib_pd *saved = r->pd, *pd, *plain;
	struct ib_sge ss;
	struct kv_pair p;
	int ret, err;

	plain = ib_alloc_pd(r->dev, 0);
	if (IS_ERR(plain))
		return kv_fail(r, "ib_alloc_pd(0): %ld", PTR_ERR(plain));
	ret = plain->unsafe_global_rkey || plain->flags ?
	      kv_fail(r, "a PD without the flag: rkey 0x%x flags 0x%x",
		      plain->unsafe_global_rkey, plain->flags) : 0;
	ib_dealloc_pd(plain);
	if (ret)
		return ret;

	pd = ib_alloc_pd(r->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(pd))
		return kv_fail(r, "ib_alloc_pd(UNSAFE_GLOBAL_RKEY): %ld", PTR_ERR(pd));
	if (!pd->unsafe_global_rkey || pd->flags != IB_PD_UNSAFE_GLOBAL_RKEY ||
	    !pd->local_dma_lkey) {
		ret = kv_fail(r, "unsafe PD: rkey 0x%x flags 0x%x lkey 0x%x",
			      pd->unsafe_global_rkey, pd->flags, pd->local_dma_lkey);
		goto out_pd;
	}
	r->pd = pd;
	ret = kv_pair_create(r, &p, IB_QPT_RC, NULL);
	if (ret)
		goto out_pd;
	kv_buf_cpu(&s->a);
	kv_fill(&s->a, 0, 8192, 41);
	kv_buf_dev(&s->a);
	kv_buf_cpu(&s->b);
	memset(s->b.cpu, 0, 8192 + 64);
	kv_buf_dev(&s->b);
	ss = kv_sge_dma(r, &s->a, 0, 8192);
	ret = kv_rdma(r, &p.a, IB_WR_RDMA_WRITE, 1, &ss, 1, s->b.dma + 32,
		      pd->unsafe_global_rkey);
	ret = ret ?: kv_expect(r, &p.a.scq, "write through the unsafe rkey", 1,
			       IB_WC_SUCCESS, IB_WC_RDMA_WRITE, NULL);
	if (!ret) {
		kv_buf_cpu(&s->b);
		ret = kv_check_fill(r, &s->b, 32, 8192, 41, "data written through the unsafe rkey");
	}
	if (kv_pair_destroy(r, &p))
		ret = -EIO;
out_pd:
	r->pd = saved;
	err = ib_dealloc_pd_user(pd, NULL);
	if (err)
		ret = kv_fail(r, "ib_dealloc_pd_user of the unsafe PD: %d", err);
	return ret;
}

/*
 * GID attributes: rdma_get_gid_attr() of port 2's GID 0 describes it (IB,
 * no netdev: rdma_read_gid_attr_ndev_rcu() -ENODEV, l2 fields -ENODEV);
 * a bad index or port -EINVAL; rdma_find_gid() and _by_port() find the same
 * entry, not on port 1 and not as a RoCE GID (-ENOENT); an AH with a GRH holds
 * its source GID's attribute (rdma_query_ah() shows it) and an address
 * vector's copy holds its own, dropped by rdma_destroy_ah_attr().
 */
int kv_case_gid_attr(struct kv_self *s)
{
	const struct ib_gid_attr *a, *b;
	struct kv_run *r = &s->r;
	struct rdma_ah_attr aa, copy;
	struct ib_ah *ah;
	union ib_gid gid;
	int ret = 0;
	u16 vlan;
	u8 mac[6];

	if (rdma_query_gid(r->dev, 2, 0, &gid))
		return kv_fail(r, "rdma_query_gid(2, 0) failed");
	a = rdma_get_gid_attr(r->dev, 2, 0);
	ret = kv_check_sgid_attr(r, a, 2, 0, "rdma_get_gid_attr(2, 0)");
	if (ret)
		return ret;
	if (rdma_read_gid_l2_fields(a, &vlan, mac) != -ENODEV) {
		ret = kv_fail(r, "rdma_read_gid_l2_fields on IB: not -ENODEV");
		goto out_a;
	}
	if (rdma_read_gid_hw_context(a)) {
		ret = kv_fail(r, "rdma_read_gid_hw_context: a context on IB");
		goto out_a;
	}
	if (PTR_ERR_OR_ZERO(rdma_get_gid_attr(r->dev, 2, -1)) != -EINVAL ||
	    PTR_ERR_OR_ZERO(rdma_get_gid_attr(r->dev, 2, 1 << 14)) != -EINVAL ||
	    PTR_ERR_OR_ZERO(rdma_get_gid_attr(r->dev, 3, 0)) != -EINVAL) {
		ret = kv_fail(r, "rdma_get_gid_attr of a bad index or port: not -EINVAL");
		goto out_a;
	}
	b = rdma_find_gid(r->dev, &gid, IB_GID_TYPE_IB, NULL);
	if (b != a) {
		ret = kv_fail(r, "rdma_find_gid: %p, rdma_get_gid_attr's %p", b, a);
		if (!IS_ERR(b))
			rdma_put_gid_attr(b);
		goto out_a;
	}
	rdma_put_gid_attr(b);
	b = rdma_find_gid_by_port(r->dev, &gid, IB_GID_TYPE_IB, 2, NULL);
	if (b != a) {
		ret = kv_fail(r, "rdma_find_gid_by_port(2): %p, want %p", b, a);
		if (!IS_ERR(b))
			rdma_put_gid_attr(b);
		goto out_a;
	}
	rdma_put_gid_attr(b);
	if (PTR_ERR_OR_ZERO(rdma_find_gid_by_port(r->dev, &gid, IB_GID_TYPE_IB, 1, NULL)) !=
	    -ENOENT ||
	    PTR_ERR_OR_ZERO(rdma_find_gid(r->dev, &gid, IB_GID_TYPE_ROCE, NULL)) != -ENOENT) {
		ret = kv_fail(r, "port 2's GID found on port 1 or as a RoCE GID");
		goto out_a;
	}
	/* an AH with a GRH holds the attribute; the vector's copy another */
	kv_ah_attr(r, &aa, r->lid[1], 2);
	rdma_ah_set_grh(&aa, &gid, 0, 0, 1, 0);
	ah = kv_ah_create(r, &aa, RDMA_CREATE_AH_SLEEPABLE, "GRH");
	if (!ah) {
		ret = -EIO;
		goto out_a;
	}
	if (ah->sgid_attr != a)
		ret = kv_fail(r, "the AH holds %p, port 2's GID 0 is %p", ah->sgid_attr, a);
	aa.grh.sgid_attr = a;
	rdma_copy_ah_attr(&copy, &aa);
	rdma_destroy_ah_attr(&copy);
	if (copy.grh.sgid_attr)
		ret = kv_fail(r, "rdma_destroy_ah_attr left sgid_attr set");
	ret = ret ?: kv_check_ah(r, ah, &aa, "GRH AH");
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	/* a reference left over shows at removal: ib_core warns (a FAIL) */
out_a:
	rdma_put_gid_attr(a);
	return ret;
}

/*
 * ib_get_net_dev_by_params() asks the clients that answer (kverbs' own:
 * loopback for P_Key KV_NDEV_PKEY) with the caller's port, P_Key, GID and
 * address and the client's data on the device, and hands back the netdev
 * held; another P_Key is NULL; a port that is not the device's never
 * reaches a client.
 */
int kv_case_ndev_params(struct kv_self *s)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct kv_run *r = &s->r;
	struct kv_ndev_call *c = &kv_ndev_seen;
	struct net_device *ndev;
	union ib_gid gid;
	int ret = 0;

	if (rdma_query_gid(r->dev, 2, 0, &gid))
		return kv_fail(r, "rdma_query_gid(2, 0) failed");
	memset(c, 0, sizeof(*c));
	ndev = ib_get_net_dev_by_params(r->dev, 2, KV_NDEV_PKEY, &gid,
					(struct sockaddr *)&sin6);
	if (ndev != init_net.loopback_dev)
		ret = kv_fail(r, "P_Key 0x%x: netdev %s, want lo", KV_NDEV_PKEY,
			      ndev ? ndev->name : "(none)");
	else if (c->calls != 1 || c->port != 2 || c->pkey != KV_NDEV_PKEY ||
		 memcmp(&c->gid, &gid, sizeof(gid)) || c->family != AF_INET6 || !c->data_ok)
		ret = kv_fail(r, "client saw %d call(s): port %u P_Key 0x%x GID %pI6 af %u data %s",
			      c->calls, c->port, c->pkey, c->gid.raw, c->family,
			      c->data_ok ? "its own" : "wrong");
	if (ndev)
		dev_put(ndev);
	if (ret)
		return ret;
	ndev = ib_get_net_dev_by_params(r->dev, 1, 0xffff, &gid, NULL);
	if (ndev || c->calls != 2 || c->port != 1 || c->pkey != 0xffff) {
		if (ndev)
			dev_put(ndev);
		return kv_fail(r, "P_Key 0xffff on port 1: netdev %s, %d calls, port %u P_Key 0x%x",
			       ndev ? ndev->name : "(none)", c->calls, c->port, c->pkey);
	}
	if (ib_get_net_dev_by_params(r->dev, 0, KV_NDEV_PKEY, &gid, NULL) ||
	    ib_get_net_dev_by_params(r->dev, 3, KV_NDEV_PKEY, &gid, NULL) || c->calls != 2)
		return kv_fail(r, "a port not of the device: a netdev or a client call (%d calls)",
			       c->calls);
	return 0;
}

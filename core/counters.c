// SPDX-License-Identifier: GPL-2.0
/*
 * ports/<n>/counters/: the port's PMA counters, read on every access with a
 * PerfMgmt Get of PortCounters or PortCountersExtended through the driver's
 * process_mad().  Values are shown as the PMA reports them (the *_data
 * counters in units of 4 bytes).  Which set of files a port gets depends on
 * the PMA's ClassPortInfo, as upstream decides it.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <rdma/ib_pma.h>
#include "core_priv.h"

/* PMA ClassPortInfo:CapabilityMask bits */
#define IB_PMA_CAP_EXT_WIDTH		BIT(9)	/* PortCountersExtended, all of it */
#define IB_PMA_CAP_EXT_WIDTH_NOIETF	BIT(10)	/* ... without the unicast/multicast ones */

/* Where a counter is in its attribute: byte offset, width in bits, shift. */
struct ib_counter_attr {
	struct ib_port_attribute	pa;
	__be16				attr_id;	/* IB_PMA_* */
	u8				offset;
	u8				width;	/* 4, 8, 16, 32 or 64 */
	u8				shift;	/* 4-bit counters: right shift */
};

/* Fetches len bytes at offset of the PMA attribute attr_id of the port. */
static int ib_pma_get(struct ib_device *device, u32 port, __be16 attr_id,
		      unsigned int offset, void *data, size_t len)
{
	struct ib_pma_mad *in, *out;
	int ret, result;

	BUILD_BUG_ON(sizeof(*in) != sizeof(struct ib_mad));
	if (!device->ops.process_mad)
		return -EOPNOTSUPP;
	if (offset + len > sizeof(in->data))
		return -EINVAL;

	in = kzalloc(sizeof(*in), GFP_KERNEL);
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!in || !out) {
		ret = -ENOMEM;
		goto out;
	}
	in->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	in->mad_hdr.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	in->mad_hdr.class_version = 1;	/* PerfMgt */
	in->mad_hdr.method = IB_MGMT_METHOD_GET;
	in->mad_hdr.attr_id = attr_id;
	if (attr_id != IB_PMA_CLASS_PORT_INFO)
		in->data[1] = port;	/* PortSelect */

	result = device->ops.process_mad(device, IB_MAD_IGNORE_MKEY, port, NULL, NULL,
					  (const struct ib_mad *)in, (struct ib_mad *)out);
	if ((result & (IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY)) !=
	    (IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY)) {
		ret = -EINVAL;
		goto out;
	}
	memcpy(data, out->data + offset, len);
	ret = 0;
out:
	kfree(out);
	kfree(in);
	return ret;
}

static ssize_t ib_counter_show(struct ib_device *device, u32 port,
			       struct ib_port_attribute *pa, char *buf)
{
	const struct ib_counter_attr *ca = container_of(pa, struct ib_counter_attr, pa);
	u8 data[8];
	int ret;

	ret = ib_pma_get(device, port, ca->attr_id, ca->offset, data, ca->width / 8 ?: 1);
	if (ret)
		return ret;

	switch (ca->width) {
	case 4:
		return sysfs_emit(buf, "%u\n", (data[0] >> ca->shift) & 0xf);
	case 8:
		return sysfs_emit(buf, "%u\n", data[0]);
	case 16:
		return sysfs_emit(buf, "%u\n", be16_to_cpup((__be16 *)data));
	case 32:
		return sysfs_emit(buf, "%u\n", be32_to_cpup((__be32 *)data));
	default:
		return sysfs_emit(buf, "%llu\n", be64_to_cpup((__be64 *)data));
	}
}

#define IB_COUNTER(_var, _name, _attr_id, _offset, _width, _shift)		\
static struct ib_counter_attr _var = {					\
	.pa = {								\
		.attr = { .name = _name, .mode = 0444 },		\
		.show = ib_counter_show,				\
	},								\
	.attr_id = _attr_id, .offset = _offset, .width = _width, .shift = _shift, \
}

/* PortCounters, offsets after PortSelect's dword: see struct ib_pma_portcounters */
#define IB_PC(_name, _offset, _width, _shift) \
	IB_COUNTER(ib_pc_##_name, #_name, IB_PMA_PORT_COUNTERS, _offset, _width, _shift)
/* PortCountersExtended: see struct ib_pma_portcounters_ext */
#define IB_PCX(_name, _offset) \
	IB_COUNTER(ib_pcx_##_name, #_name, IB_PMA_PORT_COUNTERS_EXT, _offset, 64, 0)

IB_PC(symbol_error, 4, 16, 0);
IB_PC(link_error_recovery, 6, 8, 0);
IB_PC(link_downed, 7, 8, 0);
IB_PC(port_rcv_errors, 8, 16, 0);
IB_PC(port_rcv_remote_physical_errors, 10, 16, 0);
IB_PC(port_rcv_switch_relay_errors, 12, 16, 0);
IB_PC(port_xmit_discards, 14, 16, 0);
IB_PC(port_xmit_constraint_errors, 16, 8, 0);
IB_PC(port_rcv_constraint_errors, 17, 8, 0);
IB_PC(local_link_integrity_errors, 19, 4, 4);
IB_PC(excessive_buffer_overrun_errors, 19, 4, 0);
IB_PC(VL15_dropped, 22, 16, 0);
IB_PC(port_xmit_data, 24, 32, 0);
IB_PC(port_rcv_data, 28, 32, 0);
IB_PC(port_xmit_packets, 32, 32, 0);
IB_PC(port_rcv_packets, 36, 32, 0);
IB_PC(port_xmit_wait, 40, 32, 0);

IB_PCX(port_xmit_data, 8);
IB_PCX(port_rcv_data, 16);
IB_PCX(port_xmit_packets, 24);
IB_PCX(port_rcv_packets, 32);
IB_PCX(unicast_xmit_packets, 40);
IB_PCX(unicast_rcv_packets, 48);
IB_PCX(multicast_xmit_packets, 56);
IB_PCX(multicast_rcv_packets, 64);

static struct attribute *ib_pc_attrs[] = {
	&ib_pc_symbol_error.pa.attr,
	&ib_pc_link_error_recovery.pa.attr,
	&ib_pc_link_downed.pa.attr,
	&ib_pc_port_rcv_errors.pa.attr,
	&ib_pc_port_rcv_remote_physical_errors.pa.attr,
	&ib_pc_port_rcv_switch_relay_errors.pa.attr,
	&ib_pc_port_xmit_discards.pa.attr,
	&ib_pc_port_xmit_constraint_errors.pa.attr,
	&ib_pc_port_rcv_constraint_errors.pa.attr,
	&ib_pc_local_link_integrity_errors.pa.attr,
	&ib_pc_excessive_buffer_overrun_errors.pa.attr,
	&ib_pc_VL15_dropped.pa.attr,
	&ib_pc_port_xmit_data.pa.attr,
	&ib_pc_port_rcv_data.pa.attr,
	&ib_pc_port_xmit_packets.pa.attr,
	&ib_pc_port_rcv_packets.pa.attr,
	&ib_pc_port_xmit_wait.pa.attr,
	NULL,
};

static struct attribute *ib_pcx_attrs[] = {
	&ib_pc_symbol_error.pa.attr,
	&ib_pc_link_error_recovery.pa.attr,
	&ib_pc_link_downed.pa.attr,
	&ib_pc_port_rcv_errors.pa.attr,
	&ib_pc_port_rcv_remote_physical_errors.pa.attr,
	&ib_pc_port_rcv_switch_relay_errors.pa.attr,
	&ib_pc_port_xmit_discards.pa.attr,
	&ib_pc_port_xmit_constraint_errors.pa.attr,
	&ib_pc_port_rcv_constraint_errors.pa.attr,
	&ib_pc_local_link_integrity_errors.pa.attr,
	&ib_pc_excessive_buffer_overrun_errors.pa.attr,
	&ib_pc_VL15_dropped.pa.attr,
	&ib_pcx_port_xmit_data.pa.attr,
	&ib_pcx_port_rcv_data.pa.attr,
	&ib_pcx_port_xmit_packets.pa.attr,
	&ib_pc_port_xmit_wait.pa.attr,
	&ib_pcx_port_rcv_packets.pa.attr,
	&ib_pcx_unicast_rcv_packets.pa.attr,
	&ib_pcx_unicast_xmit_packets.pa.attr,
	&ib_pcx_multicast_rcv_packets.pa.attr,
	&ib_pcx_multicast_xmit_packets.pa.attr,
	NULL,
};

static struct attribute *ib_pcx_noietf_attrs[] = {
	&ib_pc_symbol_error.pa.attr,
	&ib_pc_link_error_recovery.pa.attr,
	&ib_pc_link_downed.pa.attr,
	&ib_pc_port_rcv_errors.pa.attr,
	&ib_pc_port_rcv_remote_physical_errors.pa.attr,
	&ib_pc_port_rcv_switch_relay_errors.pa.attr,
	&ib_pc_port_xmit_discards.pa.attr,
	&ib_pc_port_xmit_constraint_errors.pa.attr,
	&ib_pc_port_rcv_constraint_errors.pa.attr,
	&ib_pc_local_link_integrity_errors.pa.attr,
	&ib_pc_excessive_buffer_overrun_errors.pa.attr,
	&ib_pc_VL15_dropped.pa.attr,
	&ib_pcx_port_xmit_data.pa.attr,
	&ib_pcx_port_rcv_data.pa.attr,
	&ib_pcx_port_xmit_packets.pa.attr,
	&ib_pcx_port_rcv_packets.pa.attr,
	&ib_pc_port_xmit_wait.pa.attr,
	NULL,
};

static const struct attribute_group ib_pc_group = {
	.name = "counters",
	.attrs = ib_pc_attrs,
};

static const struct attribute_group ib_pcx_group = {
	.name = "counters",
	.attrs = ib_pcx_attrs,
};

static const struct attribute_group ib_pcx_noietf_group = {
	.name = "counters",
	.attrs = ib_pcx_noietf_attrs,
};

/* The counters directory for the port, or NULL without process_mad(). */
const struct attribute_group *ib_counters_group(struct ib_device *device, u32 port)
{
	__be16 cap;

	if (!device->ops.process_mad)
		return NULL;
	/* ClassPortInfo: BaseVersion, ClassVersion, then CapabilityMask. */
	if (!ib_pma_get(device, port, IB_PMA_CLASS_PORT_INFO, 2, &cap, sizeof(cap))) {
		if (be16_to_cpu(cap) & IB_PMA_CAP_EXT_WIDTH)
			return &ib_pcx_group;
		if (be16_to_cpu(cap) & IB_PMA_CAP_EXT_WIDTH_NOIETF)
			return &ib_pcx_noietf_group;
	}
	return &ib_pc_group;
}

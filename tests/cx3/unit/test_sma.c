// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the firmware SMA/PMA (cx3_sma.c), driven through
 * cx3_mad_ifc() the way mlx4_ib's MAD_IFC command reaches it.
 *
 * Build (with the stubs, or with the real cx3_port.c/cx3_regs.c instead):
 *   gcc -Wall -Wextra -Werror -std=gnu11 -I.. ../cx3_sma.c test_sma.c \
 *       sma_stubs.c -o test_sma
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cx3.h"

/* Optional: recorded by sma_stubs.c, absent with the real cx3_port.c */
extern int stub_set_state_calls __attribute__((weak));
extern int stub_set_state_port __attribute__((weak));
extern uint8_t stub_set_state_value __attribute__((weak));

#define NODE_GUID	0x0002c90300a1b2c0ull
#define MAD_DATA	64

static struct cx3_dev dev;
static int failures;
static int checks;

static void check(bool ok, const char *name)
{
	checks++;
	if (ok) {
		printf("PASS %s\n", name);
	} else {
		printf("FAIL %s\n", name);
		failures++;
	}
}

static void reset_dev(void)
{
	int i;

	memset(&dev, 0, sizeof(dev));
	dev.node_guid = NODE_GUID;
	dev.sys_guid = NODE_GUID;
	snprintf(dev.node_desc, sizeof(dev.node_desc), "qemu-cx3 mlx4_0");
	for (i = 0; i < CX3_NUM_PORTS; i++) {
		dev.port[i].num = i + 1;
		dev.port[i].cable = CX3_CABLE_LOOP;
		cx3_sma_port_defaults(&dev, &dev.port[i]);
	}
}

/* The link came up: what cx3_port.c does on INIT_PORT with a peer. */
static void link_up(int port)
{
	dev.port[port - 1].state = CX3_PORT_INIT;
	dev.port[port - 1].phys_state = CX3_PHYS_LINKUP;
}

static void mad_init(uint8_t *m, uint8_t mclass, uint8_t method,
		     uint16_t attr, uint32_t mod)
{
	memset(m, 0, 256);
	m[0] = 1;
	m[1] = mclass;
	m[2] = 1;
	m[3] = method;
	cx3_put64(m, 8, 0x1122334455667788ull);		/* TID */
	cx3_put16(m, 16, attr);
	cx3_put32(m, 20, mod);
}

static int stat_of(const uint8_t *m)
{
	return cx3_get16(m, 4);
}

/* Local query, as the driver makes them (keys ignored) */
static uint8_t smp(int port, uint8_t method, uint16_t attr, uint32_t mod,
		   const uint8_t *data, uint8_t *out)
{
	uint8_t in[256];

	mad_init(in, 0x01, method, attr, mod);
	if (data)
		memcpy(in + MAD_DATA, data, 64);
	return cx3_mad_ifc(&dev, port, 0x3, 0, in, NULL, out);
}

static void get_port_info(int port, uint8_t *out)
{
	smp(port, 0x01, 0x0015, (uint32_t)port, NULL, out);
}

/*
 * The 64 bytes of PortInfo, to modify and Set back.  Like opensm, write
 * PortState and PortPhysicalState "no change": INIT and LinkUp are not
 * values a Set may carry.
 */
static void get_port_data(int port, uint8_t *data)
{
	uint8_t pi[256];

	get_port_info(port, pi);
	memcpy(data, pi + MAD_DATA, 64);
	data[32] &= 0xf0;	/* PortState no change */
	data[33] = 0x02;	/* PhysState no change, LinkDownDefault Polling */
}

/* Get-modify-Set of PortInfo, as opensm does it */
static uint8_t set_port_info(int port, uint16_t lid, uint16_t sm_lid,
			     uint8_t state, uint8_t *out)
{
	uint8_t data[64];

	get_port_data(port, data);
	cx3_put16(data, 16, lid);
	cx3_put16(data, 18, sm_lid);
	data[32] = (data[32] & 0xf0) | state;
	return smp(port, 0x02, 0x0015, (uint32_t)port, data, out);
}

static void test_node_info(void)
{
	uint8_t out[256];
	const uint8_t *d = out + MAD_DATA;
	uint8_t rc;

	reset_dev();
	rc = smp(1, 0x01, 0x0011, 0, NULL, out);
	check(rc == CX3_STAT_OK && stat_of(out) == 0 && out[3] == 0x81,
	      "nodeinfo_getresp");
	check(cx3_get64(out, 8) == 0x1122334455667788ull &&
	      cx3_get16(out, 16) == 0x0011 && out[1] == 0x01,
	      "nodeinfo_header_copied");
	check(d[0] == 1 && d[1] == 1, "nodeinfo_versions");
	check(d[2] == 1, "nodeinfo_node_type_ca");
	check(d[3] == 2, "nodeinfo_num_ports");
	check(cx3_get64(d, 4) == NODE_GUID, "nodeinfo_sys_guid");
	check(cx3_get64(d, 12) == NODE_GUID, "nodeinfo_node_guid");
	check(cx3_get64(d, 20) == NODE_GUID + 1, "nodeinfo_port_guid");
	check(cx3_get16(d, 28) == 128, "nodeinfo_partition_cap");
	check(cx3_get16(d, 30) == 0x1003, "nodeinfo_device_id");
	check(d[36] == 1, "nodeinfo_local_port");
	check((cx3_get32(d, 36) & 0xffffff) == 0x0002c9, "nodeinfo_vendor_id");

	smp(2, 0x01, 0x0011, 0, NULL, out);
	check(d[36] == 2 && cx3_get64(d, 20) == NODE_GUID + 2 &&
	      cx3_get64(d, 20) != cx3_get64(d, 12), "nodeinfo_port2_guid");

	smp(1, 0x01, 0x0010, 0, NULL, out);
	check(stat_of(out) == 0 && !memcmp(d, "qemu-cx3 mlx4_0", 16),
	      "nodedesc_get");

	smp(1, 0x02, 0x0011, 0, d, out);
	check(stat_of(out) == 0x000c, "nodeinfo_set_refused");
}

static void test_port_info_get(void)
{
	uint8_t out[256];
	const uint8_t *d = out + MAD_DATA;
	struct cx3_port *p;

	reset_dev();
	link_up(1);
	p = &dev.port[0];
	p->lid = 7;
	p->sm_lid = 1;
	p->lmc = 2;
	p->sm_sl = 3;
	p->subnet_timeout = 18;
	p->pkey_violations = 0x1234;
	p->qkey_violations = 0x0567;
	p->cap_mask |= 0x00010000;	/* as ib_cm sets IsCMSupported */

	get_port_info(1, out);
	check(stat_of(out) == 0 && out[3] == 0x81, "portinfo_getresp");
	check(cx3_get64(d, 8) == 0xfe80000000000000ull, "portinfo_gid_prefix");
	check(cx3_get16(d, 16) == 7, "portinfo_lid_at_16");
	check(cx3_get16(d, 18) == 1, "portinfo_smlid_at_18");
	check(cx3_get32(d, 20) == p->cap_mask &&
	      (cx3_get32(d, 20) & 0x4000), "portinfo_capmask_at_20_extspeeds");
	check(d[28] == 1, "portinfo_local_port");
	check((d[31] & 0xf) == 2, "portinfo_width_active_4x_at_31");
	check((d[32] & 0xf) == CX3_PORT_INIT, "portinfo_state_at_32");
	check((d[32] >> 4) == 7, "portinfo_speed_supported");
	check((d[33] >> 4) == CX3_PHYS_LINKUP, "portinfo_physstate_at_33");
	check((d[34] & 7) == 2, "portinfo_lmc_at_34");
	check((d[35] >> 4) == 4, "portinfo_speed_active_qdr_at_35");
	check((d[36] >> 4) == 5 && (d[36] & 0xf) == 3,
	      "portinfo_mtu_smsl_at_36");
	check((d[37] >> 4) == 4, "portinfo_vlcap_at_37");
	check((d[41] & 0xf) == 5, "portinfo_mtucap_at_41");
	check(cx3_get16(d, 46) == 0x1234 && cx3_get16(d, 48) == 0x0567,
	      "portinfo_violations_at_46_48");
	check(d[50] == 128, "portinfo_guidcap_at_50");
	check((d[51] & 0x1f) == 18, "portinfo_subnet_timeout_at_51");
	check((d[62] >> 4) == 1 && (d[62] & 0xf) == 1,
	      "portinfo_ext_speed_fdr_at_62");

	/* attr_mod 0 = the receiving port; port 2 through port 1 */
	smp(1, 0x01, 0x0015, 0, NULL, out);
	check(stat_of(out) == 0 && cx3_get16(d, 16) == 7, "portinfo_mod0");
	dev.port[1].lid = 9;
	smp(1, 0x01, 0x0015, 2, NULL, out);
	check(stat_of(out) == 0 && cx3_get16(d, 16) == 9 && d[28] == 1,
	      "portinfo_mod_other_port");
	smp(1, 0x01, 0x0015, 3, NULL, out);
	check(stat_of(out) == 0x001c, "portinfo_mod_bad_port");

	/* A down port: LID still there, no meaningful active speed */
	p->state = CX3_PORT_DOWN;
	p->phys_state = CX3_PHYS_POLLING;
	get_port_info(1, out);
	check(cx3_get16(d, 16) == 7 && (d[32] & 0xf) == CX3_PORT_DOWN &&
	      (d[33] >> 4) == CX3_PHYS_POLLING, "portinfo_down_state_lid");
	check((d[35] >> 4) == 1 && (d[62] >> 4) == 0 && d[31] != 0,
	      "portinfo_down_speed");
}

static void test_port_info_set(void)
{
	uint8_t out[256], data[64];
	const uint8_t *d = out + MAD_DATA;
	int calls0;
	bool rec = &stub_set_state_calls != NULL;

	reset_dev();
	link_up(1);

	set_port_info(1, 0x0011, 0x0001, 0, out);
	check(stat_of(out) == 0 && cx3_get16(d, 16) == 0x11 &&
	      cx3_get16(d, 18) == 1, "set_lid_smlid_response");
	get_port_info(1, out);
	check(cx3_get16(d, 16) == 0x11 && cx3_get16(d, 18) == 1 &&
	      (d[32] & 0xf) == CX3_PORT_INIT, "set_lid_smlid_then_get");

	/* INIT -> ACTIVE is not a legal transition */
	calls0 = rec ? stub_set_state_calls : 0;
	set_port_info(1, 0x0022, 0x0001, CX3_PORT_ACTIVE, out);
	check(stat_of(out) == 0x001c, "set_init_to_active_refused");
	check(dev.port[0].state == CX3_PORT_INIT && dev.port[0].lid == 0x11 &&
	      (!rec || stub_set_state_calls == calls0),
	      "set_refused_changes_nothing");

	/* INIT -> ARMED -> ACTIVE */
	calls0 = rec ? stub_set_state_calls : 0;
	set_port_info(1, 0x0011, 0x0001, CX3_PORT_ARMED, out);
	check(stat_of(out) == 0 && dev.port[0].state == CX3_PORT_ARMED &&
	      (d[32] & 0xf) == CX3_PORT_ARMED &&
	      (!rec || (stub_set_state_calls == calls0 + 1 &&
			stub_set_state_port == 1 &&
			stub_set_state_value == CX3_PORT_ARMED)),
	      "set_armed_calls_port_set_state");
	set_port_info(1, 0x0011, 0x0001, CX3_PORT_ACTIVE, out);
	check(stat_of(out) == 0 && dev.port[0].state == CX3_PORT_ACTIVE &&
	      (!rec || (stub_set_state_calls == calls0 + 2 &&
			stub_set_state_value == CX3_PORT_ACTIVE)),
	      "set_active_calls_port_set_state");

	/* PortState INIT can never be set */
	set_port_info(1, 0x0011, 0x0001, CX3_PORT_INIT, out);
	check(stat_of(out) == 0x001c && dev.port[0].state == CX3_PORT_ACTIVE,
	      "set_state_init_refused");

	/* DOWN is always accepted */
	calls0 = rec ? stub_set_state_calls : 0;
	set_port_info(1, 0x0011, 0x0001, CX3_PORT_DOWN, out);
	check(stat_of(out) == 0 &&
	      (!rec || (stub_set_state_calls == calls0 + 1 &&
			stub_set_state_value == CX3_PORT_DOWN)),
	      "set_down_calls_port_set_state");

	/* Client reregister: in the Set response once, then gone */
	link_up(1);
	get_port_data(1, data);
	data[51] = 0x80 | 18;
	data[34] = 0x03;		/* LMC 3 */
	data[36] = 0x42;		/* NeighborMTU 2048, SM SL 2 */
	data[43] = 0x30 | (data[43] & 0xf);	/* OperationalVLs VL0-3 */
	smp(1, 0x02, 0x0015, 1, data, out);
	check(stat_of(out) == 0 && (d[51] & 0x80) && (d[51] & 0x1f) == 18,
	      "set_client_rereg_reported");
	get_port_info(1, out);
	check(!(d[51] & 0x80) && (d[51] & 0x1f) == 18 && (d[34] & 7) == 3 &&
	      d[36] == 0x42 && (d[43] >> 4) == 3,
	      "set_fields_stick_rereg_cleared");

	/* Invalid components refuse the whole Set */
	get_port_data(1, data);
	data[36] = 0x60;		/* NeighborMTU 6 */
	cx3_put16(data, 16, 0x55);
	smp(1, 0x02, 0x0015, 1, data, out);
	check(stat_of(out) == 0x001c && cx3_get16(d, 16) == 0x11,
	      "set_bad_mtu_refused");
	get_port_data(1, data);
	data[43] = 0x50;		/* OperationalVLs VL0-14 > VLCap */
	smp(1, 0x02, 0x0015, 1, data, out);
	check(stat_of(out) == 0x001c, "set_bad_opvls_refused");
	get_port_data(1, data);
	cx3_put16(data, 16, 0);		/* LID 0 */
	smp(1, 0x02, 0x0015, 1, data, out);
	check(stat_of(out) == 0x001c, "set_lid0_refused");
	get_port_data(1, data);
	data[33] = 0x52;		/* PortPhysicalState LinkUp */
	smp(1, 0x02, 0x0015, 1, data, out);
	check(stat_of(out) == 0x001c, "set_physstate_linkup_refused");
	get_port_data(1, data);
	data[33] = 0x32;		/* Disabled: accepted, not acted on */
	smp(1, 0x02, 0x0015, 1, data, out);
	check(stat_of(out) == 0 && (d[33] >> 4) == CX3_PHYS_LINKUP,
	      "set_physstate_disabled_ignored");

	/* Violation counters: writing 0 resets, other values are ignored */
	dev.port[0].pkey_violations = 5;
	dev.port[0].qkey_violations = 6;
	get_port_data(1, data);
	cx3_put16(data, 46, 0);
	cx3_put16(data, 48, 99);
	smp(1, 0x02, 0x0015, 1, data, out);
	check(stat_of(out) == 0 && dev.port[0].pkey_violations == 0 &&
	      dev.port[0].qkey_violations == 6, "set_violation_reset");

	/* LinkSpeedExtEnabled = 30 disables FDR */
	get_port_data(1, data);
	data[63] = 30;
	smp(1, 0x02, 0x0015, 1, data, out);
	check(stat_of(out) == 0 && (d[62] >> 4) == 0 && d[63] == 0 &&
	      (d[35] >> 4) == 4, "set_ext_speed_disable");
}

static void test_tables(void)
{
	uint8_t out[256], data[64];
	const uint8_t *d = out + MAD_DATA;

	reset_dev();

	smp(1, 0x01, 0x0016, 0, NULL, out);
	check(stat_of(out) == 0 && cx3_get16(d, 0) == 0xffff &&
	      cx3_get16(d, 2) == 0, "pkey_block0_default");
	memset(data, 0, sizeof(data));
	cx3_put16(data, 0, 0xffff);
	cx3_put16(data, 2, 0x8001);
	smp(1, 0x02, 0x0016, 0, data, out);
	check(stat_of(out) == 0 && dev.port[0].pkeys[1] == 0x8001,
	      "pkey_set");
	smp(1, 0x01, 0x0016, 3, NULL, out);
	check(stat_of(out) == 0, "pkey_block3");
	smp(1, 0x01, 0x0016, 4, NULL, out);
	check(stat_of(out) == 0x001c, "pkey_block4_refused");

	smp(1, 0x01, 0x0014, 0, NULL, out);
	check(stat_of(out) == 0 && cx3_get64(d, 0) == NODE_GUID + 1 &&
	      cx3_get64(d, 8) == 0, "guidinfo_block0_port_guid");
	memset(data, 0, sizeof(data));
	cx3_put64(data, 0, 0x1111);
	cx3_put64(data, 8, 0x2222);
	smp(1, 0x02, 0x0014, 0, data, out);
	check(stat_of(out) == 0 && cx3_get64(d, 0) == NODE_GUID + 1 &&
	      cx3_get64(d, 8) == 0x2222, "guidinfo_set_keeps_port_guid");
	smp(1, 0x01, 0x0014, 15, NULL, out);
	check(stat_of(out) == 0, "guidinfo_block15");
	smp(1, 0x01, 0x0014, 16, NULL, out);
	check(stat_of(out) == 0x001c, "guidinfo_block16_refused");

	memset(data, 0, sizeof(data));
	data[0] = 0x01;
	data[1] = 0x23;
	data[7] = 0x7f;
	smp(1, 0x02, 0x0017, 0, data, out);
	check(stat_of(out) == 0 && dev.port[0].sl2vl[1] == 1 &&
	      dev.port[0].sl2vl[3] == 3 && dev.port[0].sl2vl[15] == 0xf,
	      "sl2vl_set");
	smp(1, 0x01, 0x0017, 0, NULL, out);
	check(d[0] == 0x01 && d[1] == 0x23 && d[7] == 0x7f, "sl2vl_get");

	memset(data, 0, sizeof(data));
	data[0] = 0x01;
	data[1] = 0x40;
	data[62] = 0x07;
	data[63] = 0xff;
	smp(1, 0x02, 0x0018, 3u << 16, data, out);
	check(stat_of(out) == 0 && dev.port[0].vlarb_high[1] == 0x40,
	      "vlarb_set_high");
	smp(1, 0x01, 0x0018, 3u << 16, NULL, out);
	check(d[0] == 1 && d[1] == 0x40 && d[62] == 7 && d[63] == 0xff,
	      "vlarb_get_high");
	smp(1, 0x01, 0x0018, 1u << 16, NULL, out);
	check(stat_of(out) == 0 && d[1] == 0, "vlarb_get_low");
	smp(1, 0x01, 0x0018, 0, NULL, out);
	check(stat_of(out) == 0x001c, "vlarb_block0_refused");
	smp(1, 0x01, 0x0018, 5u << 16, NULL, out);
	check(stat_of(out) == 0x001c, "vlarb_block5_refused");

	smp(1, 0x01, 0xff90, 1, NULL, out);
	check(stat_of(out) == 0 && !(d[15] & 1), "ext_port_info_no_fdr10");
}

static void test_errors(void)
{
	uint8_t in[256], out[256];

	reset_dev();

	smp(1, 0x01, 0x0030, 0, NULL, out);
	check(stat_of(out) == 0x000c && out[3] == 0x81, "unknown_attr_000c");
	smp(1, 0x01, 0x0020, 0, NULL, out);
	check(stat_of(out) == 0x000c, "sminfo_unsupported");

	mad_init(in, 0x01, 0x07, 0x0002, 0);
	check(cx3_mad_ifc(&dev, 1, 3, 0, in, NULL, out) == CX3_STAT_BAD_PKT,
	      "trap_repress_no_response");

	mad_init(in, 0x01, 0x01, 0x0011, 0);
	in[0] = 2;
	cx3_mad_ifc(&dev, 1, 3, 0, in, NULL, out);
	check(stat_of(out) == 0x0004, "bad_base_version");
	mad_init(in, 0x01, 0x01, 0x0011, 0);
	in[2] = 2;
	cx3_mad_ifc(&dev, 1, 3, 0, in, NULL, out);
	check(stat_of(out) == 0x0004, "bad_class_version");
	mad_init(in, 0x01, 0x03, 0x0011, 0);
	cx3_mad_ifc(&dev, 1, 3, 0, in, NULL, out);
	check(stat_of(out) == 0x0008 && out[3] == 0x81, "unknown_method");
	mad_init(in, 0x01, 0x81, 0x0011, 0);
	check(cx3_mad_ifc(&dev, 1, 3, 0, in, NULL, out) == CX3_STAT_BAD_PKT,
	      "response_not_answered");

	mad_init(in, 0x09, 0x01, 0x0001, 0);
	check(cx3_mad_ifc(&dev, 1, 3, 0, in, NULL, out) == CX3_STAT_OK &&
	      stat_of(out) == 0x000c && out[3] == 0x81, "vendor_class_000c");
	mad_init(in, 0x21, 0x02, 0x0011, 0);
	check(cx3_mad_ifc(&dev, 1, 3, 0, in, NULL, out) == CX3_STAT_OK &&
	      stat_of(out) == 0x000c, "cc_class_000c");
	mad_init(in, 0x03, 0x01, 0x0001, 0);
	check(cx3_mad_ifc(&dev, 1, 3, 0, in, NULL, out) == CX3_STAT_BAD_PKT,
	      "sa_class_not_handled");

	mad_init(in, 0x01, 0x01, 0x0011, 0);
	check(cx3_mad_ifc(&dev, 0, 3, 0, in, NULL, out) == CX3_STAT_BAD_PARAM &&
	      cx3_mad_ifc(&dev, 3, 3, 0, in, NULL, out) == CX3_STAT_BAD_PARAM,
	      "bad_port_param");
}

static void test_directed_route(void)
{
	uint8_t in[256], out[256];
	const uint8_t *d = out + MAD_DATA;
	int i;

	reset_dev();
	mad_init(in, 0x81, 0x01, 0x0011, 0);
	in[6] = 2;			/* hop pointer */
	in[7] = 1;			/* hop count */
	cx3_put16(in, 32, 0xffff);	/* DrSLID */
	cx3_put16(in, 34, 0xffff);	/* DrDLID */
	in[128 + 1] = 1;		/* initial path */
	in[192 + 1] = 2;		/* return path */
	for (i = 36; i < 64; i++)
		in[i] = 0;
	check(cx3_mad_ifc(&dev, 1, 0, 0xffff, in, NULL, out) == CX3_STAT_OK,
	      "dr_answered");
	/* the direction bit is the driver's to set (hardware notes, 5) */
	check(out[1] == 0x81 && out[3] == 0x81 && cx3_get16(out, 4) == 0,
	      "dr_no_direction_bit");
	check(out[6] == 2 && out[7] == 1 && cx3_get16(out, 32) == 0xffff &&
	      cx3_get16(out, 34) == 0xffff && out[129] == 1 && out[193] == 2,
	      "dr_fields_kept");
	check(d[2] == 1 && cx3_get64(d, 12) == NODE_GUID, "dr_nodeinfo_data");

	/* Errors likewise: the status alone */
	mad_init(in, 0x81, 0x01, 0x0031, 0);
	cx3_mad_ifc(&dev, 1, 0, 0xffff, in, NULL, out);
	check(cx3_get16(out, 4) == 0x000c, "dr_error_status_only");

	/* In-place use: in == out */
	mad_init(in, 0x81, 0x01, 0x0015, 1);
	check(cx3_mad_ifc(&dev, 1, 0, 0xffff, in, NULL, in) == CX3_STAT_OK &&
	      cx3_get16(in, 4) == 0 &&
	      cx3_get64(in, MAD_DATA + 8) == 0xfe80000000000000ull,
	      "in_place_mad");
}

static void test_mkey(void)
{
	uint8_t in[256], out[256];
	const uint8_t *d = out + MAD_DATA;
	struct cx3_port *p;

	reset_dev();
	link_up(1);
	p = &dev.port[0];
	p->lid = 3;
	p->sm_lid = 1;
	p->mkey = 0xabcdef;
	p->mkey_protect = 2;

	mad_init(in, 0x01, 0x01, 0x0015, 1);
	cx3_put64(in, 24, 0x1);		/* wrong M_Key */
	check(cx3_mad_ifc(&dev, 1, 0, 1, in, NULL, out) == CX3_STAT_BAD_PKT &&
	      p->mkey_violations == 1, "mkey_get_prot2_dropped");
	check(cx3_mad_ifc(&dev, 1, 1, 1, in, NULL, out) == CX3_STAT_OK &&
	      cx3_get64(d, 0) == 0xabcdef, "mkey_ignored_by_op_mod");
	cx3_put64(in, 24, 0xabcdef);
	check(cx3_mad_ifc(&dev, 1, 0, 1, in, NULL, out) == CX3_STAT_OK &&
	      stat_of(out) == 0, "mkey_right_key");

	p->mkey_protect = 1;
	cx3_put64(in, 24, 0x2);
	check(cx3_mad_ifc(&dev, 1, 0, 1, in, NULL, out) == CX3_STAT_OK &&
	      cx3_get64(d, 0) == 0 && cx3_get16(d, 16) == 3,
	      "mkey_get_prot1_hides_key");

	p->mkey_protect = 0;
	check(cx3_mad_ifc(&dev, 1, 0, 1, in, NULL, out) == CX3_STAT_OK &&
	      cx3_get64(d, 0) == 0xabcdef, "mkey_get_prot0_shows_key");

	get_port_data(1, in + MAD_DATA);
	cx3_put16(in, MAD_DATA + 16, 0x99);
	in[3] = 0x02;
	check(cx3_mad_ifc(&dev, 1, 0, 1, in, NULL, out) == CX3_STAT_BAD_PKT &&
	      p->lid == 3 && p->mkey_violations == 2,
	      "mkey_set_wrong_key_dropped");
	cx3_put64(in, 24, 0xabcdef);
	check(cx3_mad_ifc(&dev, 1, 0, 1, in, NULL, out) == CX3_STAT_OK &&
	      p->lid == 0x99, "mkey_set_right_key");
}

static uint8_t pma(int port, uint8_t method, uint16_t attr, uint8_t sel_port,
		   uint16_t sel, uint8_t sel2, uint8_t *out)
{
	uint8_t in[256];

	mad_init(in, 0x04, method, attr, 0);
	in[MAD_DATA + 1] = sel_port;
	cx3_put16(in, MAD_DATA + 2, sel);
	in[MAD_DATA + 18] = sel2;
	return cx3_mad_ifc(&dev, port, 3, 0, in, NULL, out);
}

static void test_pma(void)
{
	uint8_t out[256];
	const uint8_t *d = out + MAD_DATA;
	struct cx3_port_counters *c;

	reset_dev();
	c = &dev.port[0].cnt;

	pma(1, 0x01, 0x0001, 0, 0, 0, out);
	check(stat_of(out) == 0 && out[3] == 0x81 && d[0] == 1 && d[1] == 1,
	      "pma_classportinfo_versions");
	check(cx3_get16(d, 2) & 0x0200, "pma_classportinfo_ext_width");
	check((cx3_get32(d, 4) & 0x1f) == dev.port[0].resp_time,
	      "pma_classportinfo_resp_time");

	c->symbol_errors = 70000;
	c->rcv_errors = 5;
	c->xmit_discards = 6;
	c->vl15_dropped = 7;
	c->xmit_wait = 8;
	c->xmit_data = 0x100000005ull;
	c->rcv_data = 1234;
	c->xmit_pkts = 10;
	c->rcv_pkts = 20;
	c->ucast_xmit_pkts = 30;
	c->ucast_rcv_pkts = 40;
	c->mcast_xmit_pkts = 50;
	c->mcast_rcv_pkts = 60;

	pma(1, 0x01, 0x0012, 1, 0, 0, out);
	check(stat_of(out) == 0 && d[1] == 1, "pma_portcounters_get");
	check(cx3_get16(d, 4) == 0xffff, "pma_portcounters_symbol_saturates");
	check(cx3_get16(d, 8) == 5 && cx3_get16(d, 14) == 6 &&
	      cx3_get16(d, 22) == 7, "pma_portcounters_errors");
	check(cx3_get32(d, 24) == 0xffffffffu, "pma_portcounters_data_saturates");
	check(cx3_get32(d, 28) == 1234 && cx3_get32(d, 32) == 10 &&
	      cx3_get32(d, 36) == 20 && cx3_get32(d, 40) == 8,
	      "pma_portcounters_values");

	pma(1, 0x01, 0x001d, 1, 0, 0, out);
	check(stat_of(out) == 0 && cx3_get64(d, 8) == 0x100000005ull &&
	      cx3_get64(d, 16) == 1234 && cx3_get64(d, 24) == 10 &&
	      cx3_get64(d, 32) == 20 && cx3_get64(d, 40) == 30 &&
	      cx3_get64(d, 48) == 40 && cx3_get64(d, 56) == 50 &&
	      cx3_get64(d, 64) == 60, "pma_portcounters_ext_get");

	/* Port 2 selected through port 1; AllPortSelect is not offered */
	dev.port[1].cnt.rcv_pkts = 77;
	pma(1, 0x01, 0x0012, 2, 0, 0, out);
	check(stat_of(out) == 0 && cx3_get32(d, 36) == 77,
	      "pma_port_select_other");
	pma(1, 0x01, 0x0012, 0xff, 0, 0, out);
	check(stat_of(out) == 0x001c, "pma_all_port_select_refused");

	/* Set clears only what CounterSelect names */
	pma(1, 0x02, 0x0012, 1, 0x0fff, 0x01, out);
	check(stat_of(out) == 0 && c->symbol_errors == 0 &&
	      c->rcv_errors == 0 && c->vl15_dropped == 0 &&
	      c->xmit_wait == 0 && c->xmit_data == 0x100000005ull &&
	      cx3_get16(d, 4) == 0, "pma_portcounters_set_errors");
	pma(1, 0x02, 0x0012, 1, 0xf000, 0, out);
	check(c->xmit_data == 0 && c->rcv_data == 0 && c->xmit_pkts == 0 &&
	      c->rcv_pkts == 0 && c->ucast_xmit_pkts == 30,
	      "pma_portcounters_set_data");
	pma(1, 0x02, 0x001d, 1, 0x00ff, 0, out);
	check(stat_of(out) == 0 && c->ucast_xmit_pkts == 0 &&
	      c->ucast_rcv_pkts == 0 && c->mcast_xmit_pkts == 0 &&
	      c->mcast_rcv_pkts == 0 && cx3_get64(d, 40) == 0,
	      "pma_portcounters_ext_set_clears");

	pma(1, 0x01, 0x0010, 1, 0, 0, out);
	check(stat_of(out) == 0x000c, "pma_unknown_attr");
}

/* Nothing may crash or touch memory outside the tables. */
static uint32_t rnd(uint32_t *s)
{
	/* xorshift32 */
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void test_fuzz(void)
{
	static const uint8_t classes[] = { 0x01, 0x81, 0x04, 0x09, 0x0a,
					   0x21, 0x03, 0x00 };
	static const uint16_t attrs[] = { 0x0001, 0x0002, 0x0010, 0x0011,
					  0x0012, 0x0014, 0x0015, 0x0016,
					  0x0017, 0x0018, 0x001d, 0x0020,
					  0xff90, 0xffff };
	uint8_t in[256], out[256];
	uint32_t seed = 12345, r;
	unsigned int i, j, answered = 0, good = 0;

	reset_dev();
	for (i = 0; i < 200000; i++) {
		for (j = 0; j < 256; j += 4)
			cx3_put32(in, j, rnd(&seed));
		r = rnd(&seed);
		if (r & 1)
			in[0] = 1;
		in[1] = classes[(r >> 1) % sizeof(classes)];
		if (r & 0x10)
			in[2] = 1;
		if (r & 0x20)
			in[3] = 1 + ((r >> 6) & 1);
		cx3_put16(in, 16, attrs[(r >> 7) % 14]);
		if (r & 0x1000)
			cx3_put32(in, 20, (r >> 13) & 0x1f);
		else if (r & 0x2000)
			cx3_put32(in, 20, ((r >> 14) & 7) << 16);
		/* keep M_Key checks out of the way most of the time */
		if (r & 0x20000)
			cx3_put64(in, 24, dev.port[i & 1].mkey);
		if (cx3_mad_ifc(&dev, 1 + (int)(i & 1), (uint8_t)(r >> 24), 0,
				in, NULL, out) == CX3_STAT_OK) {
			answered++;
			if (!(cx3_get16(out, 4) & 0x7fff))
				good++;
		}
		/* now and then a link change, as cx3_port.c would make */
		if (!(r & 0x3ff00000))
			link_up(1 + (int)((r >> 30) & 1));
	}
	printf("fuzz: %u answered, %u with good status\n", answered, good);
	check(answered > 10000 && good > 1000, "fuzz_200000_mads");
}

int main(void)
{
	test_node_info();
	test_port_info_get();
	test_port_info_set();
	test_tables();
	test_errors();
	test_directed_route();
	test_mkey();
	test_pma();
	test_fuzz();

	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

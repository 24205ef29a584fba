// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: ports, cables and the port commands.
 *
 * A port's PHY is on between INIT_PORT and CLOSE_PORT.  The physical link
 * comes up when both ends of its cable are on: port 1 and port 2 of this
 * card for a loopback cable, or this port and the same port of another VM
 * for a wire, whose far end tells us its PHY state with a wire message.
 * Link up puts the port in LinkUp/INIT; the subnet manager then takes it to
 * ARMED and ACTIVE through Set(PortInfo), which the SMA turns into
 * cx3_port_set_state.  Leaving ACTIVE, or losing the link, raises a
 * port-change DOWN event; reaching ACTIVE raises port-change ACTIVE.
 */
#include <string.h>

#include "cx3.h"
#include "cx3_cmds.h"

#define EVENT_PORT_CHANGE	0x09
#define PORT_CHANGE_DOWN	1
#define PORT_CHANGE_ACTIVE	4


/* The capability mask a ConnectX-3 reports before drivers add to it */
#define DEFAULT_CAP_MASK	0x02504868u

static struct cx3_port *port_get(struct cx3_dev *dev, uint32_t num)
{
	if (num < 1 || num > CX3_NUM_PORTS)
		return NULL;
	return &dev->port[num - 1];
}

static void port_event(struct cx3_dev *dev, struct cx3_port *p, uint8_t sub)
{
	uint8_t data[24] = { 0 };

	data[8] = (uint8_t)(p->num << 4);
	cx3_eq_post(dev, EVENT_PORT_CHANGE, sub, data);
}

static bool link_should_be_up(struct cx3_dev *dev, struct cx3_port *p)
{
	if (!p->phy_enabled || p->pulled)
		return false;
	switch (p->cable) {
	case CX3_CABLE_LOOP:
		return dev->port[p->num == 1 ? 1 : 0].phy_enabled;
	case CX3_CABLE_WIRE:
		return p->peer_phy_enabled;
	default:
		return false;
	}
}

/* Bring the physical and logical state in line with the cable. */
static void port_update_link(struct cx3_dev *dev, struct cx3_port *p)
{
	bool up = link_should_be_up(dev, p);
	uint8_t old = p->state;

	if (up && p->phys_state != CX3_PHYS_LINKUP) {
		p->phys_state = CX3_PHYS_LINKUP;
		p->state = CX3_PORT_INIT;
		cx3_log(dev, "port %d: link up", p->num);
		if (p->auto_lid) {
			/* the test-bed shortcut: configured as an SM would */
			p->lid = p->auto_lid;
			p->sm_lid = p->auto_lid;
			cx3_port_set_state(dev, p->num, CX3_PORT_ARMED);
			cx3_port_set_state(dev, p->num, CX3_PORT_ACTIVE);
		}
	} else if (!up && p->phys_state == CX3_PHYS_LINKUP) {
		p->phys_state = p->phy_enabled ? CX3_PHYS_POLLING :
						 CX3_PHYS_DISABLED;
		p->state = CX3_PORT_DOWN;
		cx3_log(dev, "port %d: link down", p->num);
		if (old >= CX3_PORT_INIT && dev->hca.initialised)
			port_event(dev, p, PORT_CHANGE_DOWN);
	} else if (!up) {
		p->phys_state = p->phy_enabled ? CX3_PHYS_POLLING :
						 CX3_PHYS_DISABLED;
	}
}

static void port_phy_changed(struct cx3_dev *dev, struct cx3_port *p)
{
	uint8_t msg[2] = { CX3_WIRE_MSG_PHY, p->phy_enabled && !p->pulled };

	if (p->cable == CX3_CABLE_WIRE && dev->host.wire_send)
		dev->host.wire_send(dev->host.opaque, p->num, msg, sizeof(msg));
	port_update_link(dev, p);
	if (p->cable == CX3_CABLE_LOOP)
		port_update_link(dev, &dev->port[p->num == 1 ? 1 : 0]);
}

void cx3_port_reset(struct cx3_dev *dev)
{
	int i;

	for (i = 0; i < CX3_NUM_PORTS; i++) {
		struct cx3_port *p = &dev->port[i];
		enum cx3_cable cable = p->cable;
		uint16_t auto_lid = p->auto_lid;
		bool peer = p->peer_phy_enabled, pulled = p->pulled;
		bool was_on = p->phy_enabled;
		struct cx3_impair impair = p->impair;

		memset(p, 0, sizeof(*p));
		p->impair = impair;
		p->num = i + 1;
		p->cable = cable;
		p->auto_lid = auto_lid;
		p->pulled = pulled;
		p->peer_phy_enabled = peer;
		p->state = CX3_PORT_DOWN;
		p->phys_state = CX3_PHYS_DISABLED;
		cx3_sma_port_defaults(dev, p);
		p->cap_mask = DEFAULT_CAP_MASK;
		if (was_on && cable == CX3_CABLE_WIRE && dev->host.wire_send) {
			uint8_t msg[2] = { CX3_WIRE_MSG_PHY, 0 };

			dev->host.wire_send(dev->host.opaque, p->num, msg,
					    sizeof(msg));
		}
	}
}

/* Called by the SMA for a Set(PortInfo) that changes PortState. */
void cx3_port_set_state(struct cx3_dev *dev, int port, uint8_t state)
{
	struct cx3_port *p = port_get(dev, port);
	uint8_t old;

	if (!p)
		return;
	old = p->state;
	if (state == CX3_PORT_DOWN) {
		/* the link retrains: back to INIT if the cable is still there */
		p->state = p->phys_state == CX3_PHYS_LINKUP ? CX3_PORT_INIT :
							       CX3_PORT_DOWN;
	} else {
		p->state = state;
	}
	if (p->state == old)
		return;
	cx3_log(dev, "port %d: state %u -> %u", port, old, p->state);
	if (p->state == CX3_PORT_ACTIVE)
		port_event(dev, p, PORT_CHANGE_ACTIVE);
	else if (old == CX3_PORT_ACTIVE)
		port_event(dev, p, PORT_CHANGE_DOWN);
}

void cx3_port_wire_recv(struct cx3_dev *dev, int port, const void *msg,
			size_t len)
{
	struct cx3_port *p = port_get(dev, port);
	const uint8_t *m = msg;

	if (!p || len < 1)
		return;
	if (m[0] == CX3_WIRE_MSG_PKT) {
		cx3_port_wire_packet(dev, port, m + 1, len - 1);
		return;
	}
	if (m[0] == CX3_WIRE_MSG_PHY && len == 2) {
		p->peer_phy_enabled = m[1] != 0;
		port_update_link(dev, p);
		return;
	}
	cx3_log(dev, "port %d: wire message type %u (%zu bytes) not handled",
		port, m[0], len);
}

void cx3_port_wire_connected(struct cx3_dev *dev, int port, bool connected)
{
	struct cx3_port *p = port_get(dev, port);
	uint8_t msg[2] = { CX3_WIRE_MSG_PHY, 0 };

	if (!p)
		return;
	if (connected) {
		msg[1] = p->phy_enabled && !p->pulled;
		if (dev->host.wire_send)
			dev->host.wire_send(dev->host.opaque, port, msg,
					    sizeof(msg));
	} else {
		p->peer_phy_enabled = false;
		port_update_link(dev, p);
	}
}

/*
 * Pull or replug a port's cable at run time.  A loopback cable joins both
 * ports of the card, so it is pulled for both; a wire tells the far end
 * that the link is gone, as the lost signal would.
 */
void cx3_port_set_plugged(struct cx3_dev *dev, int port, bool plugged)
{
	struct cx3_port *p = port_get(dev, port);

	if (!p || p->pulled == !plugged)
		return;
	cx3_log(dev, "port %d: cable %s", port, plugged ? "plugged in" : "pulled");
	p->pulled = !plugged;
	if (p->cable == CX3_CABLE_LOOP)
		dev->port[p->num == 1 ? 1 : 0].pulled = !plugged;
	port_phy_changed(dev, p);
}

uint8_t cx3_cmd_init_port(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	struct cx3_port *p = port_get(dev, cmd->in_mod);

	if (!p)
		return CX3_STAT_BAD_PARAM;
	if (p->phy_enabled)
		return CX3_STAT_OK;
	p->phy_enabled = true;
	port_phy_changed(dev, p);
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_close_port(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	struct cx3_port *p = port_get(dev, cmd->in_mod);

	if (!p)
		return CX3_STAT_BAD_PARAM;
	if (!p->phy_enabled)
		return CX3_STAT_OK;
	p->phy_enabled = false;
	port_phy_changed(dev, p);
	return CX3_STAT_OK;
}

/*
 * SET_PORT for IB (op_mod 0): dword 0 bit 22/21/20 = change MTU cap / VL
 * cap / P_Key table size, bits 15:12 MTU cap, 7:4 VL cap (a count: 1, 2,
 * 4 or 8); byte 3 bit 0 resets the Q_Key violation counter; dword 1 is the
 * PortInfo capability mask; u16 at 0x28 the P_Key table size.
 */
uint8_t cx3_cmd_set_port(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	struct cx3_port *p = port_get(dev, cmd->in_mod & 0xff);
	uint32_t dw0, vls, mtu;
	uint16_t pkeys;

	if (!p)
		return CX3_STAT_BAD_PARAM;
	if (cmd->op_mod != 0)		/* Ethernet and beacon */
		return CX3_STAT_BAD_OP;
	if (cx3_cmd_inbox(dev, cmd, 0x40))
		return CX3_STAT_BAD_PARAM;
	dw0 = cx3_get32(cmd->inbox, 0);
	if (dw0 & (1u << 22)) {
		mtu = (dw0 >> 12) & 0xf;
		if (mtu < 1 || mtu > 5)
			return CX3_STAT_BAD_PARAM;
		p->mtu_cap = mtu;
	}
	if (dw0 & (1u << 21)) {
		vls = (dw0 >> 4) & 0xf;
		if (vls != 1 && vls != 2 && vls != 4 && vls != 8)
			return CX3_STAT_EXCEED_LIM;
		p->vl_cap = vls == 8 ? 4 : vls == 4 ? 3 : vls == 2 ? 2 : 1;
	}
	if (dw0 & (1u << 20)) {
		pkeys = cx3_get16(cmd->inbox, 0x28);
		if (pkeys == 0 || pkeys > CX3_PKEY_TABLE)
			return CX3_STAT_BAD_PARAM;
		p->pkey_table_size = pkeys;
	}
	if (cmd->inbox[3] & 1)
		p->qkey_violations = 0;
	p->cap_mask = cx3_get32(cmd->inbox, 4);
	return CX3_STAT_OK;
}

uint8_t cx3_cmd_set_node(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	if (cx3_cmd_inbox(dev, cmd, sizeof(dev->node_desc)))
		return CX3_STAT_BAD_PARAM;
	memcpy(dev->node_desc, cmd->inbox, sizeof(dev->node_desc));
	return CX3_STAT_OK;
}

/* CONF_SPECIAL_QP: in_mod = base QPN of QP0/QP1 (8-aligned), or 0. */
uint8_t cx3_cmd_conf_special_qp(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	uint32_t base = cmd->in_mod & 0xffffff;

	if (base & 7 || (base && base + 8 > 1u << dev->hca.log_qps))
		return CX3_STAT_BAD_PARAM;
	dev->base_sqpn = base;
	return CX3_STAT_OK;
}

/* MAD_IFC: in_mod = port | SLID << 16; 256-byte MAD (+256 extended). */
uint8_t cx3_cmd_mad_ifc(struct cx3_dev *dev, struct cx3_cmd *cmd)
{
	int port = cmd->in_mod & 0xff;
	bool ext = cmd->op_mod & 4;
	uint8_t status;

	if (!port_get(dev, port))
		return CX3_STAT_BAD_PARAM;
	if (cx3_cmd_inbox(dev, cmd, ext ? 512 : 256))
		return CX3_STAT_BAD_PARAM;
	memset(cmd->outbox, 0, 256);
	status = cx3_mad_ifc(dev, port, cmd->op_mod, cmd->in_mod >> 16,
			     cmd->inbox, ext ? cmd->inbox + 256 : NULL,
			     cmd->outbox);
	if (status == CX3_STAT_OK)
		cmd->out_len = 256;
	return status;
}

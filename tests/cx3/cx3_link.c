// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the link layer.  Packets leave a port through its cable
 * (to the other port of this card, or to another VM) or loop back inside
 * the card (to the port's own LID, and multicast to local members); they
 * arrive through a queue that the pump drains, so that no engine re-enters
 * itself.  Ingress applies the fabric's rules: the link must be up, data
 * packets need an ARMED or ACTIVE port, VL15 carries only QP0, the DLID must
 * be the port's (or permissive for QP0, or multicast), and the ICRC must
 * match.
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_pkt.h"
#include "cx3_qp.h"


struct cx3_rx {
	struct cx3_rx *next;
	int port;
	bool local;		/* looped back inside the card */
	size_t len;
	uint8_t data[];
};

/* ---------------------------------------------------------------------- */
/* ICRC: CRC-32 over the packet with the variant fields set to ones */

static uint32_t crc_table[256];

static void crc_init(void)
{
	uint32_t c, i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t crc_update(uint32_t crc, const uint8_t *b, size_t n)
{
	while (n--)
		crc = crc_table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return crc;
}

/* The ICRC of a packet of len bytes (ICRC included, not covered). */
uint32_t cx3_icrc(const uint8_t *pkt, size_t len)
{
	uint8_t masked[IB_GRH_BYTES + IB_BTH_BYTES];
	bool grh = (pkt[1] & 3) == IB_LNH_GLOBAL;
	size_t hdr = (grh ? IB_GRH_BYTES : 0) + IB_BTH_BYTES;
	uint32_t crc = 0xffffffffu;
	static const uint8_t ones[IB_LRH_BYTES] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};

	if (!crc_table[1])
		crc_init();
	crc = crc_update(crc, ones, sizeof(ones));
	memcpy(masked, pkt + IB_LRH_BYTES, hdr);
	if (grh) {
		masked[0] |= 0x0f;		/* traffic class, flow label */
		masked[1] = 0xff;
		masked[2] = 0xff;
		masked[3] = 0xff;
		masked[7] = 0xff;		/* hop limit */
	}
	masked[hdr - IB_BTH_BYTES + 4] = 0xff;	/* BTH resv8a */
	crc = crc_update(crc, masked, hdr);
	crc = crc_update(crc, pkt + IB_LRH_BYTES + hdr,
			 len - IB_LRH_BYTES - hdr - IB_ICRC_BYTES);
	return ~crc;
}

int cx3_pkt_parse(struct cx3_pkt *p, const uint8_t *raw, size_t len)
{
	size_t off = IB_LRH_BYTES, words;

	memset(p, 0, sizeof(*p));
	p->raw = raw;
	p->len = len;
	if (len < IB_LRH_BYTES + IB_BTH_BYTES + IB_ICRC_BYTES)
		return -1;
	p->vl = raw[0] >> 4;
	p->sl = raw[1] >> 4;
	p->lnh = raw[1] & 3;
	p->dlid = cx3_get16(raw, 2);
	p->slid = cx3_get16(raw, 6);
	words = cx3_get16(raw, 4) & 0x7ff;
	if (words * 4 != len || (p->lnh != IB_LNH_LOCAL && p->lnh != IB_LNH_GLOBAL))
		return -1;
	if (p->lnh == IB_LNH_GLOBAL) {
		if (len < off + IB_GRH_BYTES + IB_BTH_BYTES + IB_ICRC_BYTES)
			return -1;
		p->grh = raw + off;
		off += IB_GRH_BYTES;
	}
	p->opcode = raw[off];
	p->se = raw[off + 1] & 0x80;
	p->pkey = cx3_get16(raw, off + 2);
	p->dqpn = cx3_get32(raw, off + 4) & 0xffffff;
	p->psn = cx3_get32(raw, off + 8) & IB_PSN_MASK;
	p->ackreq = raw[off + 8] & 0x80;
	off += IB_BTH_BYTES;
	p->ext = raw + off;
	p->payload = p->ext;
	p->payload_len = len - off - IB_ICRC_BYTES;
	/* pad count: the payload's last bytes are padding */
	if (((raw[(p->grh ? IB_GRH_BYTES : 0) + IB_LRH_BYTES + 1] >> 4) & 3) >
	    p->payload_len)
		return -1;
	p->payload_len -= (raw[(p->grh ? IB_GRH_BYTES : 0) + IB_LRH_BYTES + 1] >> 4) & 3;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Egress */

static void trace(struct cx3_dev *dev, const char *what, int port,
		  const uint8_t *pkt, size_t len)
{
	struct cx3_pkt p;

	if (cx3_pkt_parse(&p, pkt, len)) {
		cx3_log(dev, "port %d %s: malformed packet of %zu bytes", port,
			what, len);
		return;
	}
	cx3_log(dev, "port %d %s: VL %u SL %u DLID 0x%04x SLID 0x%04x%s op 0x%02x P_Key 0x%04x QP 0x%06x PSN %u, %zu bytes",
		port, what, p.vl, p.sl, p.dlid, p.slid, p.grh ? " GRH" : "",
		p.opcode, p.pkey, p.dqpn, p.psn, len);
}

static void rx_enqueue(struct cx3_dev *dev, int port, const uint8_t *pkt,
		       size_t len, bool local)
{
	struct cx3_rx *r = malloc(sizeof(*r) + len);

	if (!r) {
		cx3_log(dev, "port %d: out of memory, packet dropped", port);
		return;
	}
	r->next = NULL;
	r->port = port;
	r->local = local;
	r->len = len;
	memcpy(r->data, pkt, len);
	if (dev->rx_tail)
		dev->rx_tail->next = r;
	else
		dev->rx_head = r;
	dev->rx_tail = r;
}

static bool lid_is_ours(const struct cx3_port *p, uint16_t lid)
{
	uint16_t mask = (uint16_t)~((1u << p->lmc) - 1);

	return p->lid && (lid & mask) == (p->lid & mask);
}

/*
 * Send a packet (its last 4 bytes reserved for the ICRC) out of a port.
 * Delivery happens later, from the pump; nothing here runs an engine.
 */
void cx3_link_xmit(struct cx3_dev *dev, int port, uint8_t *pkt, size_t len)
{
	struct cx3_port *p = &dev->port[port - 1];
	uint16_t dlid = cx3_get16(pkt, 2);
	bool vl15 = (pkt[0] >> 4) == 15;

	cx3_put32(pkt, len - IB_ICRC_BYTES, cx3_icrc(pkt, len));
	if (dev->trace)
		trace(dev, "xmit", port, pkt, len);
	if (p->phys_state != CX3_PHYS_LINKUP ||
	    (!vl15 && p->state != CX3_PORT_ACTIVE)) {
		p->cnt.xmit_discards++;
		return;
	}
	p->cnt.xmit_pkts++;
	p->cnt.xmit_data += len / 4;
	if (dlid >= IB_MCAST_LID_BASE && dlid != IB_LID_PERMISSIVE) {
		p->cnt.mcast_xmit_pkts++;
		rx_enqueue(dev, port, pkt, len, true);	/* local members */
	} else {
		p->cnt.ucast_xmit_pkts++;
		if (lid_is_ours(p, dlid)) {
			rx_enqueue(dev, port, pkt, len, true);
			return;
		}
	}
	cx3_cable_xmit(dev, port, pkt, len);
}

/* What the cable delivers: to the other port, or to the peer VM. */
void cx3_link_cable_out(struct cx3_dev *dev, int port, const uint8_t *pkt,
			size_t len)
{
	uint8_t msg[1 + IB_MAX_PKT];

	switch (dev->port[port - 1].cable) {
	case CX3_CABLE_LOOP:
		rx_enqueue(dev, port == 1 ? 2 : 1, pkt, len, false);
		break;
	case CX3_CABLE_WIRE:
		if (!dev->host.wire_send)
			break;
		if (len > IB_MAX_PKT) {
			cx3_log(dev, "port %d: packet of %zu bytes too long for the wire",
				port, len);
			break;
		}
		msg[0] = CX3_WIRE_MSG_PKT;
		memcpy(msg + 1, pkt, len);
		dev->host.wire_send(dev->host.opaque, port, msg, len + 1);
		break;
	default:
		break;
	}
}

/* ---------------------------------------------------------------------- */
/* Ingress */

static void ingress(struct cx3_dev *dev, struct cx3_rx *r)
{
	struct cx3_port *p = &dev->port[r->port - 1];
	struct cx3_pkt pkt;

	if (dev->trace)
		trace(dev, r->local ? "loopback" : "recv", r->port, r->data, r->len);
	if (p->phys_state != CX3_PHYS_LINKUP && !r->local)
		return;
	if (cx3_pkt_parse(&pkt, r->data, r->len) ||
	    cx3_get32(r->data, r->len - IB_ICRC_BYTES) != cx3_icrc(r->data, r->len)) {
		p->cnt.rcv_errors++;
		return;
	}
	pkt.port = r->port;
	if (!r->local) {
		p->cnt.rcv_pkts++;
		p->cnt.rcv_data += r->len / 4;
	}
	if ((pkt.vl == 15) != (pkt.dqpn == 0)) {
		p->cnt.vl15_dropped += pkt.vl == 15;
		return;
	}
	if (pkt.vl != 15 && p->state != CX3_PORT_ARMED &&
	    p->state != CX3_PORT_ACTIVE)
		return;
	if (pkt.dlid == IB_LID_PERMISSIVE) {
		if (pkt.dqpn != 0)
			return;
	} else if (pkt.dlid >= IB_MCAST_LID_BASE) {
		if (!r->local)
			p->cnt.mcast_rcv_pkts++;
	} else if (!lid_is_ours(p, pkt.dlid)) {
		return;
	} else if (!r->local) {
		p->cnt.ucast_rcv_pkts++;
	}
	dev->rx_local = r->local;
	cx3_recv_packet(dev, &pkt);
	dev->rx_local = false;
}

void cx3_port_wire_packet(struct cx3_dev *dev, int port, const uint8_t *pkt,
			  size_t len)
{
	if (cx3_dead(dev))
		return;		/* a card after an internal error drops it */
	rx_enqueue(dev, port, pkt, len, false);
	cx3_pump(dev);
}

/*
 * Run everything that is pending: arrived packets first, then QPs whose send
 * queues were kicked.  Re-entry (from an engine that sends or completes)
 * only queues more work for this loop.
 */
void cx3_pump(struct cx3_dev *dev)
{
	struct cx3_rx *r;
	uint32_t qpn;

	if (dev->pumping || cx3_dead(dev))
		return;		/* (nothing moves after an internal error) */
	dev->pumping = true;
	for (;;) {
		r = dev->rx_head;
		if (r) {
			dev->rx_head = r->next;
			if (!dev->rx_head)
				dev->rx_tail = NULL;
			ingress(dev, r);
			free(r);
			continue;
		}
		if (!dev->nkicks)
			break;
		qpn = dev->kicks[--dev->nkicks];
		if (cx3_qp_get(dev, qpn)) {
			cx3_qp_get(dev, qpn)->kicked = false;
			cx3_qp_execute(dev, cx3_qp_get(dev, qpn));
		}
	}
	dev->pumping = false;
}

void cx3_link_clear(struct cx3_dev *dev)
{
	struct cx3_rx *r;

	while ((r = dev->rx_head)) {
		dev->rx_head = r->next;
		free(r);
	}
	dev->rx_tail = NULL;
	cx3_cable_clear(dev);
	free(dev->kicks);
	dev->kicks = NULL;
	dev->nkicks = 0;
	dev->kicks_cap = 0;
}

/* Ask the pump to run a QP's send engine. */
void cx3_qp_kick(struct cx3_dev *dev, struct cx3_qp *qp)
{
	uint32_t *k;

	if (qp->kicked)
		return;
	if (dev->nkicks == dev->kicks_cap) {
		k = realloc(dev->kicks, (dev->kicks_cap * 2 + 16) * sizeof(*k));
		if (!k)
			return;
		dev->kicks = k;
		dev->kicks_cap = dev->kicks_cap * 2 + 16;
	}
	qp->kicked = true;
	dev->kicks[dev->nkicks++] = qp->qpn;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: what a cable does to the packets that leave a port.  A
 * real link loses a packet now and then (a symbol error kills it on the
 * way), delivers one with a bad CRC (the receiving port counts it in
 * PortRcvErrors and drops it) or is long; the test bed makes each of these
 * happen on purpose, per port and direction, so that the transports above
 * can be seen recovering:
 *   loss_ppm	drop that many packets per million, at random
 *   drop_next	drop the next N packets, whatever they are
 *   drop_data_next	drop the next N packets to QPs other than QP0 and QP1
 *		(a burst aimed at the data path: the subnet manager's own
 *		MADs pass, so that its reaction cannot stand in for the
 *		transport's)
 *   corrupt_ppm	flip one bit after the ICRC was computed, per million
 *   delay_ms	hand each packet to the far end that much later
 * The random choices come from a xorshift64 generator seeded from the
 * device's seed property and the port number, so a run that failed can be
 * replayed with the same seed (the glue logs it).  Loop-back inside the
 * card (a packet to the port's own LID) never crosses the cable.
 */
#include <stdlib.h>
#include <string.h>

#include "cx3.h"
#include "cx3_pkt.h"

/* A packet the cable holds back (delay_ms) */
struct cx3_held {
	struct cx3_held *next;
	uint64_t due;			/* host clock, ms */
	int port;			/* where it left */
	size_t len;
	uint8_t data[];
};

static uint64_t next_random(struct cx3_impair *im)
{
	uint64_t x = im->rng ? im->rng : 0x9e3779b97f4a7c15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	im->rng = x;
	return x;
}

/* true with a probability of ppm per million */
static bool chance(struct cx3_impair *im, uint32_t ppm)
{
	if (!ppm)
		return false;
	return next_random(im) % 1000000u < ppm;
}

void cx3_cable_seed(struct cx3_dev *dev, uint64_t seed)
{
	int i;

	for (i = 0; i < CX3_NUM_PORTS; i++) {
		struct cx3_impair *im = &dev->port[i].impair;

		uint64_t z = seed + 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);

		/* a splitmix64 step: distinct streams per seed and port */
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		im->seed = seed;
		im->rng = z ? z : 1;
	}
}

static void hold(struct cx3_dev *dev, int port, const uint8_t *pkt,
		 size_t len, uint32_t delay_ms)
{
	struct cx3_held *h = malloc(sizeof(*h) + len);

	if (!h) {
		cx3_log(dev, "port %d: out of memory, delayed packet dropped",
			port);
		return;
	}
	h->next = NULL;
	h->due = dev->host.now_ms(dev->host.opaque) + delay_ms;
	h->port = port;
	h->len = len;
	memcpy(h->data, pkt, len);
	/* one delay per port: its queue stays in time order */
	if (dev->held_tail[port - 1])
		dev->held_tail[port - 1]->next = h;
	else
		dev->held_head[port - 1] = h;
	dev->held_tail[port - 1] = h;
}

/* A packet to QP0 or QP1 (a MAD), as far as its headers say */
static bool is_mad(const uint8_t *pkt, size_t len)
{
	struct cx3_pkt p;

	return !cx3_pkt_parse(&p, pkt, len) && p.dqpn <= 1;
}

/* A packet (its ICRC written) enters port's cable. */
void cx3_cable_xmit(struct cx3_dev *dev, int port, uint8_t *pkt, size_t len)
{
	struct cx3_impair *im = &dev->port[port - 1].impair;
	uint64_t bit;

	if (dev->port[port - 1].cable == CX3_CABLE_NONE)
		return;
	if (im->drop_next) {
		im->drop_next--;
		im->dropped++;
		return;
	}
	if (im->drop_data_next && !is_mad(pkt, len)) {
		im->drop_data_next--;
		im->dropped++;
		return;
	}
	if (chance(im, im->loss_ppm)) {
		im->dropped++;
		return;
	}
	if (chance(im, im->corrupt_ppm) && len > IB_LRH_BYTES) {
		/* a bit past the LRH, so that the far port sees a bad ICRC */
		bit = next_random(im) % ((len - IB_LRH_BYTES) * 8);
		pkt[IB_LRH_BYTES + bit / 8] ^= (uint8_t)(1u << (bit % 8));
		im->corrupted++;
	}
	if (im->delay_ms || dev->held_head[port - 1]) {
		/* behind what is already held: a cable keeps the order */
		hold(dev, port, pkt, len, im->delay_ms);
		im->delayed += im->delay_ms != 0;
		return;
	}
	cx3_link_cable_out(dev, port, pkt, len);
}

/* From the poll: deliver what is due. */
void cx3_cable_poll(struct cx3_dev *dev)
{
	uint64_t now = dev->host.now_ms(dev->host.opaque);
	struct cx3_held *h;
	int i;

	for (i = 0; i < CX3_NUM_PORTS; i++) {
		while ((h = dev->held_head[i]) && h->due <= now) {
			dev->held_head[i] = h->next;
			if (!dev->held_head[i])
				dev->held_tail[i] = NULL;
			cx3_link_cable_out(dev, h->port, h->data, h->len);
			free(h);
		}
	}
}

bool cx3_cable_busy(struct cx3_dev *dev)
{
	int i;

	for (i = 0; i < CX3_NUM_PORTS; i++)
		if (dev->held_head[i])
			return true;
	return false;
}

void cx3_cable_clear(struct cx3_dev *dev)
{
	struct cx3_held *h;
	int i;

	for (i = 0; i < CX3_NUM_PORTS; i++) {
		while ((h = dev->held_head[i])) {
			dev->held_head[i] = h->next;
			free(h);
		}
		dev->held_tail[i] = NULL;
	}
}

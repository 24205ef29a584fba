// SPDX-License-Identifier: GPL-2.0
/*
 * ConnectX-3 model: the QEMU glue.  A conventional PCI device 15b3:1003
 * with BAR0 (1 MiB registers, the MSI-X table and PBA where real cards have
 * them), BAR2 (UAR pages), MSI-X and INTx; DMA through the PCI bus master
 * address space; port cables to other VMs through chardevs; the model's
 * log on QEMU's stderr, prefixed "cx3: ".  All hardware logic is in the
 * cx3_*.c files.
 *
 *   -device cx3[,node-guid=N][,loopback=on][,wire1=CHARDEV][,wire2=CHARDEV]
 *              [,trace=on][,auto-lid1=LID][,auto-lid2=LID]
 *
 * At run time, `qom-set <id> link1 off` pulls port 1's cable, `on` plugs it,
 * and `qom-set <id> catas SYNDROME` (non-zero) raises an internal error:
 * the catastrophic-error buffer reads SYNDROME and the firmware is dead
 * until the driver resets the card (see cx3_dead in cx3.h).
 * auto-lidN is a test-bed shortcut no real card has: port N goes ACTIVE
 * with that LID as soon as its link is up, as if an SM had configured it.
 *
 * The cable's impairments (cx3_cable.c), for the packets leaving port N,
 * settable on the command line and at run time (qom-set):
 *   lossN=PPM	drop that many packets per million, at random
 *   dropN=N	drop the next N packets
 *   corruptN=PPM	flip a bit of that many per million (a bad ICRC)
 *   delayN=MS	deliver each packet that much later
 *   seed=N	the random choices' seed (logged, so a run can be replayed)
 *
 * Injected faults (cx3_fault.c), string properties set at run time only
 * (qom-set <id> NAME SPEC; "off" disarms; qom-get reads what is armed):
 *   cmd-hang OP[:N]	the next N (default 1) commands with opcode OP
 *			(0xffff: any) never complete (GO stays set, no
 *			completion event) until the driver resets the card
 *   cmd-status OP:ST[:N] the next N commands with opcode OP are not
 *			executed and complete with firmware status ST
 *   eq-overrun TYPE[:N] the next N events of type TYPE (0..0x3f or any)
 *			overrun their EQ: lost, the EQ's overflow event
 *			(0x0f) in their place
 *   flap1/flap2 N[:MS]	the port's cable goes down and up N times, MS ms
 *			(default 200) each way
 *   faults		(read-only) how many faults fired since power-on
 * The wire fuzzer (cx3_wirefuzz.c), the same way:
 *   wirefuzz PORT:N[:SEED[:KIND]]  N random and mutated packets (KIND mad,
 *			cm, ipoib or mix) at port PORT's receive side
 *   wirefuzz-injected	(read-only) packets it injected since power-on
 * Numbers are decimal or 0x-prefixed hex.  Each fault logs "cx3: fault: ...".
 */
#include "qemu/osdep.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "chardev/char-fe.h"
#include "sysemu/dma.h"

#include "cx3.h"

#define TYPE_CX3		"cx3"
#define CX3_WIRE_MAX		(8192 + 1)	/* a packet and its type byte */
#define CX3_LOG_BURST		200	/* lines per second before we hold back */
/*
 * What a port holds for a peer that is not reading, at most: 32 MiB is
 * some seconds of the model's traffic.  Beyond it new packets are dropped
 * (a congested fabric's loss; RC resends), never waited for: a wait here
 * holds QEMU's big lock, and two VMs waiting for each other to read would
 * both stop for good.
 */
#define CX3_WIRE_TXQ_MAX	(32u << 20)

OBJECT_DECLARE_SIMPLE_TYPE(CX3State, CX3)

struct cx3_wire {
	struct CX3State *s;
	int port;
	CharBackend chr;
	uint8_t rx[4 + CX3_WIRE_MAX];
	size_t rx_len;
	/*
	 * Bytes the socket did not take yet, oldest first from tx_head, and
	 * the watch that sends them once it can.  A frame once begun is sent
	 * whole; a new one goes behind the queue, or is dropped (tx_dropped)
	 * when the queue is full.
	 */
	uint8_t *tx;
	size_t tx_head, tx_len, tx_cap;
	guint tx_watch;
	bool tx_dropping;	/* since the queue was last empty */
	uint64_t tx_dropped;
};

struct CX3State {
	PCIDevice parent_obj;
	MemoryRegion bar0;
	MemoryRegion regs;
	MemoryRegion bar2;
	QEMUTimer *poll_timer;
	struct cx3_dev dev;
	struct cx3_wire wire[CX3_NUM_PORTS];

	/* properties */
	uint64_t seed;			/* the cable impairments' */
	bool realized_once;		/* log run-time property changes */
	uint64_t node_guid;
	bool loopback;
	bool trace;
	uint16_t auto_lid[CX3_NUM_PORTS];

	/* log rate limit */
	int64_t log_second;
	unsigned int log_lines;
	unsigned int log_dropped;
};

/* ---------------------------------------------------------------------- */
/* Platform callbacks */

static int cx3_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
	PCIDevice *pdev = PCI_DEVICE(opaque);

	if (!buf)
		return address_space_access_valid(pci_get_address_space(pdev),
						  addr, len, false,
						  MEMTXATTRS_UNSPECIFIED) ? 0 : -1;
	return pci_dma_read(pdev, addr, buf, len) == MEMTX_OK ? 0 : -1;
}

static int cx3_dma_write(void *opaque, uint64_t addr, const void *buf,
			 size_t len)
{
	return pci_dma_write(PCI_DEVICE(opaque), addr, buf, len) == MEMTX_OK ?
	       0 : -1;
}

static bool cx3_msix_enabled(void *opaque)
{
	return msix_enabled(PCI_DEVICE(opaque));
}

static void cx3_msix_notify(void *opaque, unsigned int vector)
{
	msix_notify(PCI_DEVICE(opaque), vector);
}

static unsigned int cx3_msix_live(void *opaque)
{
	PCIDevice *pdev = PCI_DEVICE(opaque);
	unsigned int i, n = 0;

	if (!msix_enabled(pdev))
		return 0;
	for (i = 0; i < CX3_MSIX_VECTORS; i++)
		if (!msix_is_masked(pdev, i))
			n++;
	return n;
}

static void cx3_intx_set(void *opaque, int level)
{
	pci_set_irq(PCI_DEVICE(opaque), level);
}

static void cx3_wire_tx_reset(struct cx3_wire *w)
{
	if (w->tx_watch)
		g_source_remove(w->tx_watch);
	w->tx_watch = 0;
	w->tx_head = 0;
	w->tx_len = 0;
	w->tx_dropping = false;
}

/* Hand the socket what it takes of the queue; true while some is left. */
static bool cx3_wire_tx_flush(struct cx3_wire *w)
{
	while (w->tx_len) {
		int n = MIN(w->tx_len, (size_t)INT_MAX);
		int r = qemu_chr_fe_write(&w->chr, w->tx + w->tx_head, n);

		if (r < 0 && errno == EAGAIN)
			return true;
		if (r <= 0) {
			/* the peer is gone: the stream starts anew on reconnect */
			w->tx_head = 0;
			w->tx_len = 0;
			return false;
		}
		w->tx_head += r;
		w->tx_len -= r;
	}
	w->tx_head = 0;
	w->tx_dropping = false;
	return false;
}

static gboolean cx3_wire_tx_ready(void *do_not_use, GIOCondition cond,
				  void *opaque)
{
	struct cx3_wire *w = opaque;

	if (cx3_wire_tx_flush(w))
		return G_SOURCE_CONTINUE;
	w->tx_watch = 0;
	return G_SOURCE_REMOVE;
}

static void cx3_wire_tx_queue(struct cx3_wire *w, const uint8_t *b, size_t n)
{
	if (w->tx_head && w->tx_head + w->tx_len + n > w->tx_cap) {
		memmove(w->tx, w->tx + w->tx_head, w->tx_len);
		w->tx_head = 0;
	}
	if (w->tx_len + n > w->tx_cap) {
		w->tx_cap = MAX(w->tx_cap * 2, MAX(w->tx_len + n, 65536));
		w->tx = g_realloc(w->tx, w->tx_cap);
	}
	memcpy(w->tx + w->tx_head + w->tx_len, b, n);
	w->tx_len += n;
}

/*
 * One frame: a 4-byte big-endian length, then the message.  Never blocks
 * (see CX3_WIRE_TXQ_MAX): what the socket does not take now waits in the
 * port's queue for its watch.
 */
static void cx3_wire_send(void *opaque, int port, const void *msg, size_t len)
{
	CX3State *s = CX3(opaque);
	struct cx3_wire *w = &s->wire[port - 1];
	uint8_t frame[4 + CX3_WIRE_MAX];
	size_t n = 4 + len;
	int r = 0;

	if (!qemu_chr_fe_backend_connected(&w->chr) || len > CX3_WIRE_MAX)
		return;
	if (w->tx_len + n > CX3_WIRE_TXQ_MAX) {
		if (!w->tx_dropping)
			cx3_log(&s->dev, "port %d: the cable's peer is not reading: dropping packets (%u bytes held)",
				port, (unsigned int)w->tx_len);
		w->tx_dropping = true;
		w->tx_dropped++;
		return;
	}
	frame[0] = len >> 24;
	frame[1] = len >> 16;
	frame[2] = len >> 8;
	frame[3] = len;
	memcpy(frame + 4, msg, len);
	if (!w->tx_len) {
		r = qemu_chr_fe_write(&w->chr, frame, n);
		if (r < 0 && errno != EAGAIN)
			return;		/* not connected: the packet is lost */
		r = MAX(r, 0);
		if ((size_t)r == n)
			return;
	}
	cx3_wire_tx_queue(w, frame + r, n - r);
	if (!w->tx_watch) {
		w->tx_watch = qemu_chr_fe_add_watch(&w->chr, G_IO_OUT | G_IO_HUP,
						    cx3_wire_tx_ready, w);
		if (!w->tx_watch)
			cx3_wire_tx_reset(w);
	}
}

static uint64_t cx3_now_ms(void *opaque)
{
	return qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL);
}

static void cx3_log_line(void *opaque, const char *line)
{
	CX3State *s = CX3(opaque);
	int64_t now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) / 1000;

	if (now != s->log_second) {
		if (s->log_dropped)
			fprintf(stderr, "cx3: %u log lines suppressed\n",
				s->log_dropped);
		s->log_second = now;
		s->log_lines = 0;
		s->log_dropped = 0;
	}
	if (++s->log_lines > CX3_LOG_BURST) {
		s->log_dropped++;
		return;
	}
	fprintf(stderr, "cx3: %s\n", line);
}

/* ---------------------------------------------------------------------- */
/*
 * Polling: receive WQEs posted to a QP in error are flushed, and RC
 * requesters resend after RNR waits and ACK timeouts.
 */

static void cx3_poll_arm(CX3State *s)
{
	if (!cx3_dead(&s->dev) && cx3_needs_poll(&s->dev) &&
	    !timer_pending(s->poll_timer))
		timer_mod(s->poll_timer,
			  qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) + 1);
}

static void cx3_poll_timer(void *opaque)
{
	CX3State *s = opaque;

	cx3_poll(&s->dev);
	cx3_poll_arm(s);
}

/* ---------------------------------------------------------------------- */
/* MMIO */

static uint64_t cx3_bar0_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
	CX3State *s = opaque;

	return cx3_bar0_read(&s->dev, addr, size);
}

static void cx3_bar0_mmio_write(void *opaque, hwaddr addr, uint64_t val,
				unsigned size)
{
	CX3State *s = opaque;

	cx3_bar0_write(&s->dev, addr, val, size);
	cx3_poll_arm(s);
}

static uint64_t cx3_bar2_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
	return 0;
}

static void cx3_bar2_mmio_write(void *opaque, hwaddr addr, uint64_t val,
				unsigned size)
{
	CX3State *s = opaque;

	cx3_bar2_write(&s->dev, addr, val, size);
	cx3_poll_arm(s);
}

static const MemoryRegionOps cx3_bar0_ops = {
	.read = cx3_bar0_mmio_read,
	.write = cx3_bar0_mmio_write,
	.endianness = DEVICE_LITTLE_ENDIAN,
	.valid = { .min_access_size = 1, .max_access_size = 8 },
	.impl = { .min_access_size = 1, .max_access_size = 8 },
};

static const MemoryRegionOps cx3_bar2_ops = {
	.read = cx3_bar2_mmio_read,
	.write = cx3_bar2_mmio_write,
	.endianness = DEVICE_LITTLE_ENDIAN,
	.valid = { .min_access_size = 1, .max_access_size = 8 },
	.impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* ---------------------------------------------------------------------- */
/* Cables to other VMs: length-prefixed messages over a chardev stream */

static int cx3_wire_can_receive(void *opaque)
{
	struct cx3_wire *w = opaque;

	return sizeof(w->rx) - w->rx_len;
}

static void cx3_wire_receive(void *opaque, const uint8_t *buf, int size)
{
	struct cx3_wire *w = opaque;
	size_t need;

	while (size > 0) {
		need = w->rx_len < 4 ? 4 :
		       4 + ((size_t)w->rx[0] << 24 | (size_t)w->rx[1] << 16 |
			    (size_t)w->rx[2] << 8 | w->rx[3]);
		if (need > sizeof(w->rx)) {
			cx3_log(&w->s->dev, "port %d: wire message of %zu bytes, dropping the stream",
				w->port, need - 4);
			w->rx_len = 0;
			return;
		}
		if (w->rx_len < need) {
			size_t n = MIN(need - w->rx_len, (size_t)size);

			memcpy(w->rx + w->rx_len, buf, n);
			w->rx_len += n;
			buf += n;
			size -= n;
		}
		if (w->rx_len >= 4 && w->rx_len == need && need > 4) {
			cx3_port_wire_recv(&w->s->dev, w->port, w->rx + 4,
					   need - 4);
			w->rx_len = 0;
			cx3_poll_arm(w->s);
		} else if (w->rx_len == 4 && need == 4 && !w->rx[0] &&
			   !w->rx[1] && !w->rx[2] && !w->rx[3]) {
			w->rx_len = 0;	/* empty message */
		}
	}
}

static void cx3_wire_event(void *opaque, QEMUChrEvent event)
{
	struct cx3_wire *w = opaque;

	if (event == CHR_EVENT_OPENED) {
		w->rx_len = 0;
		cx3_wire_tx_reset(w);
		cx3_port_wire_connected(&w->s->dev, w->port, true);
	} else if (event == CHR_EVENT_CLOSED) {
		w->rx_len = 0;
		cx3_wire_tx_reset(w);
		cx3_port_wire_connected(&w->s->dev, w->port, false);
	}
}

/* ---------------------------------------------------------------------- */
/* Device life cycle */

static void cx3_realize(PCIDevice *pdev, Error **errp)
{
	CX3State *s = CX3(pdev);
	enum cx3_cable cable[CX3_NUM_PORTS];
	struct cx3_impair impair[CX3_NUM_PORTS];
	struct cx3_host host = {
		.opaque = s,
		.dma_read = cx3_dma_read,
		.dma_write = cx3_dma_write,
		.msix_enabled = cx3_msix_enabled,
		.msix_notify = cx3_msix_notify,
		.msix_live = cx3_msix_live,
		.intx_set = cx3_intx_set,
		.wire_send = cx3_wire_send,
		.now_ms = cx3_now_ms,
		.log = cx3_log_line,
	};
	int i;

	for (i = 0; i < CX3_NUM_PORTS; i++) {
		bool wired = qemu_chr_fe_backend_connected(&s->wire[i].chr);

		if (wired && s->loopback) {
			error_setg(errp, "cx3: port %d cannot be both looped back and wired",
				   i + 1);
			return;
		}
		cable[i] = wired ? CX3_CABLE_WIRE :
			   s->loopback ? CX3_CABLE_LOOP : CX3_CABLE_NONE;
	}

	pci_config_set_interrupt_pin(pdev->config, 1);
	pci_config_set_class(pdev->config, 0x0c06);	/* InfiniBand */

	memory_region_init(&s->bar0, OBJECT(s), "cx3-bar0", CX3_BAR0_SIZE);
	memory_region_init_io(&s->regs, OBJECT(s), &cx3_bar0_ops, s, "cx3-regs",
			      CX3_BAR0_SIZE);
	memory_region_add_subregion_overlap(&s->bar0, 0, &s->regs, -1);
	memory_region_init_io(&s->bar2, OBJECT(s), &cx3_bar2_ops, s, "cx3-uar",
			      CX3_BAR2_SIZE);
	pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY |
			 PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar0);
	pci_register_bar(pdev, 2, PCI_BASE_ADDRESS_SPACE_MEMORY |
			 PCI_BASE_ADDRESS_MEM_TYPE_64 |
			 PCI_BASE_ADDRESS_MEM_PREFETCH, &s->bar2);
	if (msix_init(pdev, CX3_MSIX_VECTORS, &s->bar0, 0, CX3_MSIX_TABLE,
		      &s->bar0, 0, CX3_MSIX_PBA, 0, errp))
		return;
	for (i = 0; i < CX3_MSIX_VECTORS; i++)
		msix_vector_use(pdev, i);

	s->poll_timer = timer_new_ms(QEMU_CLOCK_VIRTUAL, cx3_poll_timer, s);
	/* the command line's impairments were set before the model existed */
	for (i = 0; i < CX3_NUM_PORTS; i++)
		impair[i] = s->dev.port[i].impair;
	cx3_init(&s->dev, &host, s->node_guid, cable);
	s->dev.trace = s->trace;
	for (i = 0; i < CX3_NUM_PORTS; i++) {
		s->dev.port[i].auto_lid = s->auto_lid[i];
		s->dev.port[i].impair = impair[i];
	}
	cx3_cable_seed(&s->dev, s->seed);
	s->realized_once = true;
	for (i = 0; i < CX3_NUM_PORTS; i++) {
		struct cx3_impair *im = &impair[i];

		if (im->loss_ppm || im->drop_next || im->corrupt_ppm ||
		    im->delay_ms)
			cx3_log(&s->dev, "cable of port %d: loss %u ppm, drop next %u, corrupt %u ppm, delay %u ms, seed %llu",
				i + 1, im->loss_ppm, im->drop_next,
				im->corrupt_ppm, im->delay_ms,
				(unsigned long long)s->seed);
	}

	for (i = 0; i < CX3_NUM_PORTS; i++) {
		s->wire[i].s = s;
		s->wire[i].port = i + 1;
		if (cable[i] == CX3_CABLE_WIRE)
			qemu_chr_fe_set_handlers(&s->wire[i].chr,
						 cx3_wire_can_receive,
						 cx3_wire_receive,
						 cx3_wire_event, NULL,
						 &s->wire[i], NULL, true);
	}
	cx3_log(&s->dev, "ConnectX-3 model ready: node GUID 0x%016llx, port 1 %s, port 2 %s",
		(unsigned long long)s->node_guid,
		cable[0] == CX3_CABLE_WIRE ? "wired" :
		cable[0] == CX3_CABLE_LOOP ? "looped to port 2" : "uncabled",
		cable[1] == CX3_CABLE_WIRE ? "wired" :
		cable[1] == CX3_CABLE_LOOP ? "looped to port 1" : "uncabled");
}

static void cx3_exit(PCIDevice *pdev)
{
	CX3State *s = CX3(pdev);
	int i;

	for (i = 0; i < CX3_NUM_PORTS; i++) {
		struct cx3_wire *w = &s->wire[i];

		cx3_wire_tx_reset(w);
		g_free(w->tx);
		qemu_chr_fe_deinit(&w->chr, false);
		if (w->tx_dropped)
			cx3_log(&s->dev, "port %d: %llu packets dropped for a peer that did not read",
				i + 1, (unsigned long long)w->tx_dropped);
	}
	timer_free(s->poll_timer);
	for (i = 0; i < CX3_NUM_PORTS; i++) {
		struct cx3_impair *im = &s->dev.port[i].impair;

		if (im->dropped || im->corrupted || im->delayed)
			cx3_log(&s->dev, "cable of port %d: %llu packets dropped, %llu corrupted, %llu delayed",
				i + 1, (unsigned long long)im->dropped,
				(unsigned long long)im->corrupted,
				(unsigned long long)im->delayed);
	}
	cx3_log_live(&s->dev, "at exit");
	cx3_fini(&s->dev);
	msix_uninit(pdev, &s->bar0, &s->bar0);
}

/* Run-time cable control: qom-set <device> link1|link2 on|off */
static bool cx3_get_link(CX3State *s, int port)
{
	return !s->dev.port[port - 1].pulled;
}

static void cx3_set_link(CX3State *s, int port, bool on)
{
	cx3_port_set_plugged(&s->dev, port, on);
	cx3_pump(&s->dev);
	cx3_poll_arm(s);
}

static bool cx3_get_link1(Object *obj, Error **errp)
{
	return cx3_get_link(CX3(obj), 1);
}

static void cx3_set_link1(Object *obj, bool on, Error **errp)
{
	cx3_set_link(CX3(obj), 1, on);
}

static bool cx3_get_link2(Object *obj, Error **errp)
{
	return cx3_get_link(CX3(obj), 2);
}

static void cx3_set_link2(Object *obj, bool on, Error **errp)
{
	cx3_set_link(CX3(obj), 2, on);
}

/*
 * The cable's impairments: lossN, dropN, corruptN, delayN (port N's
 * outgoing packets) and seed, as uint32/uint64 properties.
 */
enum cx3_impair_field { IMP_LOSS, IMP_DROP, IMP_DROP_DATA, IMP_CORRUPT, IMP_DELAY };

struct cx3_impair_prop {
	const char *name;
	int port;
	enum cx3_impair_field field;
};

static const struct cx3_impair_prop cx3_impair_props[] = {
	{ "loss1", 1, IMP_LOSS }, { "loss2", 2, IMP_LOSS },
	{ "drop1", 1, IMP_DROP }, { "drop2", 2, IMP_DROP },
	{ "dropdata1", 1, IMP_DROP_DATA }, { "dropdata2", 2, IMP_DROP_DATA },
	{ "corrupt1", 1, IMP_CORRUPT }, { "corrupt2", 2, IMP_CORRUPT },
	{ "delay1", 1, IMP_DELAY }, { "delay2", 2, IMP_DELAY },
};

static uint32_t *cx3_impair_field(CX3State *s, const struct cx3_impair_prop *p)
{
	struct cx3_impair *im = &s->dev.port[p->port - 1].impair;

	switch (p->field) {
	case IMP_LOSS:
		return &im->loss_ppm;
	case IMP_DROP:
		return &im->drop_next;
	case IMP_DROP_DATA:
		return &im->drop_data_next;
	case IMP_CORRUPT:
		return &im->corrupt_ppm;
	default:
		return &im->delay_ms;
	}
}

static void cx3_get_impair(Object *obj, Visitor *v, const char *name,
			   void *opaque, Error **errp)
{
	uint32_t val = *cx3_impair_field(CX3(obj), opaque);

	visit_type_uint32(v, name, &val, errp);
}

static void cx3_set_impair(Object *obj, Visitor *v, const char *name,
			   void *opaque, Error **errp)
{
	const struct cx3_impair_prop *p = opaque;
	CX3State *s = CX3(obj);
	uint32_t val;

	if (!visit_type_uint32(v, name, &val, errp))
		return;
	if ((p->field == IMP_LOSS || p->field == IMP_CORRUPT) && val > 1000000) {
		error_setg(errp, "cx3: %s is in parts per million (0..1000000)",
			   name);
		return;
	}
	if (p->field == IMP_DELAY && val > 10000) {
		error_setg(errp, "cx3: %s is at most 10000 ms", name);
		return;
	}
	*cx3_impair_field(s, p) = val;
	if (s->realized_once) {
		cx3_log(&s->dev, "cable of port %d: %s = %u (seed %llu)", p->port,
			name, val, (unsigned long long)s->seed);
		cx3_poll_arm(s);
	}
}

static void cx3_get_seed(Object *obj, Visitor *v, const char *name,
			 void *opaque, Error **errp)
{
	uint64_t val = CX3(obj)->seed;

	visit_type_uint64(v, name, &val, errp);
}

static void cx3_set_seed(Object *obj, Visitor *v, const char *name,
			 void *opaque, Error **errp)
{
	CX3State *s = CX3(obj);
	uint64_t val;

	if (!visit_type_uint64(v, name, &val, errp))
		return;
	s->seed = val;
	cx3_cable_seed(&s->dev, val);
	if (s->realized_once)
		cx3_log(&s->dev, "cable seed %llu", (unsigned long long)val);
}

/*
 * Run-time internal error: qom-set <device> catas SYNDROME.  Reads the
 * first dword of the catastrophic-error buffer (0: the card is healthy).
 */
static void cx3_get_catas(Object *obj, Visitor *v, const char *name,
			  void *opaque, Error **errp)
{
	uint32_t val = CX3(obj)->dev.catas[0];

	visit_type_uint32(v, name, &val, errp);
}

static void cx3_set_catas(Object *obj, Visitor *v, const char *name,
			  void *opaque, Error **errp)
{
	CX3State *s = CX3(obj);
	uint32_t val;

	if (!visit_type_uint32(v, name, &val, errp))
		return;
	if (!val) {
		error_setg(errp, "cx3: only the card's reset clears an internal error");
		return;
	}
	cx3_raise_catas(&s->dev, val);
}

/*
 * Injected faults: qom-set <device> cmd-hang|cmd-status|eq-overrun|flap1|
 * flap2 SPEC (cx3_fault.c parses it; opaque is the property's name).
 */
static void cx3_get_fault(Object *obj, Visitor *v, const char *name,
			  void *opaque, Error **errp)
{
	char buf[64], *val = buf;

	cx3_fault_get(&CX3(obj)->dev, opaque, buf, sizeof(buf));
	visit_type_str(v, name, &val, errp);
}

static void cx3_set_fault(Object *obj, Visitor *v, const char *name,
			  void *opaque, Error **errp)
{
	CX3State *s = CX3(obj);
	char err[160];
	char *val;

	if (!visit_type_str(v, name, &val, errp))
		return;
	if (!s->realized_once) {
		/* cx3_init would forget it: faults are for a running card */
		error_setg(errp, "cx3: %s is set at run time only (qom-set)", name);
		g_free(val);
		return;
	}
	if (cx3_fault_set(&s->dev, opaque, val, err, sizeof(err)))
		error_setg(errp, "cx3: %s", err);
	g_free(val);
	/* a flap has pulled a cable: run what that changed, start its timer */
	cx3_pump(&s->dev);
	cx3_poll_arm(s);
}

/* The wire fuzzer: qom-set <device> wirefuzz PORT:N[:SEED[:KIND]] */
static void cx3_get_wirefuzz(Object *obj, Visitor *v, const char *name,
			     void *opaque, Error **errp)
{
	char buf[96], *val = buf;

	cx3_wirefuzz_get(&CX3(obj)->dev, buf, sizeof(buf));
	visit_type_str(v, name, &val, errp);
}

static void cx3_set_wirefuzz(Object *obj, Visitor *v, const char *name,
			     void *opaque, Error **errp)
{
	CX3State *s = CX3(obj);
	char *val;

	if (!visit_type_str(v, name, &val, errp))
		return;
	if (!s->realized_once)
		error_setg(errp, "cx3: %s is set at run time only (qom-set)", name);
	else if (cx3_wirefuzz_set(&s->dev, val))
		error_setg(errp, "cx3: bad wirefuzz spec '%s' (see tests/cx3/cx3_wirefuzz.c)",
			   val);
	g_free(val);
	cx3_poll_arm(s);
}

static void cx3_get_wirefuzz_injected(Object *obj, Visitor *v,
				      const char *name, void *opaque,
				      Error **errp)
{
	uint64_t val = CX3(obj)->dev.wirefuzz.injected;

	visit_type_uint64(v, name, &val, errp);
}

static void cx3_get_faults(Object *obj, Visitor *v, const char *name,
			   void *opaque, Error **errp)
{
	uint64_t val = CX3(obj)->dev.fault.fired;

	visit_type_uint64(v, name, &val, errp);
}

/*
 * The work counters (struct cx3_counts), read-only: qom-get <device> cmds,
 * uar-writes or interrupts (make bench reads them around each measurement).
 */
static void cx3_get_count(Object *obj, Visitor *v, const char *name,
			  void *opaque, Error **errp)
{
	const struct cx3_counts *c = &CX3(obj)->dev.counts;
	uint64_t val;

	if (!strcmp(name, "cmds"))
		val = c->cmds;
	else if (!strcmp(name, "uar-writes"))
		val = c->uar_writes;
	else
		val = c->interrupts;
	visit_type_uint64(v, name, &val, errp);
}

static void cx3_instance_init(Object *obj)
{
	static const char *const counts[] = {
		"cmds", "uar-writes", "interrupts"
	};
	static const char *const faults[] = {
		"cmd-hang", "cmd-status", "eq-overrun", "flap1", "flap2"
	};
	size_t i;

	object_property_add_bool(obj, "link1", cx3_get_link1, cx3_set_link1);
	object_property_add_bool(obj, "link2", cx3_get_link2, cx3_set_link2);
	object_property_add(obj, "catas", "uint32", cx3_get_catas,
			    cx3_set_catas, NULL, NULL);
	for (i = 0; i < ARRAY_SIZE(cx3_impair_props); i++)
		object_property_add(obj, cx3_impair_props[i].name, "uint32",
				    cx3_get_impair, cx3_set_impair, NULL,
				    (void *)&cx3_impair_props[i]);
	object_property_add(obj, "seed", "uint64", cx3_get_seed, cx3_set_seed,
			    NULL, NULL);
	for (i = 0; i < ARRAY_SIZE(counts); i++)
		object_property_add(obj, counts[i], "uint64", cx3_get_count,
				    NULL, NULL, NULL);
	for (i = 0; i < ARRAY_SIZE(faults); i++)
		object_property_add(obj, faults[i], "str", cx3_get_fault,
				    cx3_set_fault, NULL, (void *)faults[i]);
	object_property_add(obj, "faults", "uint64", cx3_get_faults, NULL,
			    NULL, NULL);
	object_property_add(obj, "wirefuzz", "str", cx3_get_wirefuzz,
			    cx3_set_wirefuzz, NULL, NULL);
	object_property_add(obj, "wirefuzz-injected", "uint64",
			    cx3_get_wirefuzz_injected, NULL, NULL, NULL);
}

static void cx3_qdev_reset(DeviceState *d)
{
	CX3State *s = CX3(d);

	cx3_reset(&s->dev);
	msix_reset(PCI_DEVICE(d));
}

static Property cx3_properties[] = {
	DEFINE_PROP_UINT64("node-guid", CX3State, node_guid,
			   0x0002c90300a00010ull),
	DEFINE_PROP_BOOL("loopback", CX3State, loopback, false),
	DEFINE_PROP_BOOL("trace", CX3State, trace, false),
	/* test-bed shortcut: ACTIVE with this LID at link up, no SM needed */
	DEFINE_PROP_UINT16("auto-lid1", CX3State, auto_lid[0], 0),
	DEFINE_PROP_UINT16("auto-lid2", CX3State, auto_lid[1], 0),
	DEFINE_PROP_CHR("wire1", CX3State, wire[0].chr),
	DEFINE_PROP_CHR("wire2", CX3State, wire[1].chr),
	DEFINE_PROP_END_OF_LIST(),
};

static void cx3_class_init(ObjectClass *klass, void *data)
{
	DeviceClass *dc = DEVICE_CLASS(klass);
	PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

	k->realize = cx3_realize;
	k->exit = cx3_exit;
	k->vendor_id = CX3_VENDOR_ID;
	k->device_id = CX3_DEVICE_ID;
	k->revision = 0;
	k->class_id = 0x0c06;
	k->subsystem_vendor_id = CX3_VENDOR_ID;
	k->subsystem_id = 0x0051;
	dc->desc = "Mellanox ConnectX-3 VPI (InfiniBand, 2 ports) model";
	dc->reset = cx3_qdev_reset;
	dc->user_creatable = true;
	set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
	device_class_set_props(dc, cx3_properties);
}

static const TypeInfo cx3_info = {
	.name = TYPE_CX3,
	.parent = TYPE_PCI_DEVICE,
	.instance_size = sizeof(CX3State),
	.instance_init = cx3_instance_init,
	.class_init = cx3_class_init,
	.interfaces = (InterfaceInfo[]) {
		{ INTERFACE_CONVENTIONAL_PCI_DEVICE },
		{ },
	},
};

static void cx3_register_types(void)
{
	type_register_static(&cx3_info);
}

type_init(cx3_register_types)

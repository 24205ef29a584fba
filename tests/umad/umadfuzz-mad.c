// SPDX-License-Identifier: GPL-2.0
/*
 * umadfuzz: MADs.  write() of what programs send and of mutations of it,
 * with the errnos 6.1's ib_umad_write(), ib_create_send_mad(),
 * ib_post_send_mad() and mlx4's post give it; read() with buffers of every
 * size, and what it hands out checked against what was sent; poll(); a
 * read interrupted by a signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>
#include "umadfuzz.h"

/* --- writes --------------------------------------------------------------- */

/* a registered agent of f, or -1 */
static int any_agent(const struct ufile *f)
{
	int i, n = 0;

	for (i = 0; i < NAGENT; i++)
		n += f->ag[i].on;
	if (!n)
		return -1;
	for (n = below(n), i = 0; i < NAGENT; i++)
		if (f->ag[i].on && !n--)
			return i;
	return -1;
}

/* a method some live agent of ours takes for this class, version, OUI */
static int method_for(int cls, int ver, uint32_t oui)
{
	int f, i, m, tries;

	for (tries = 0; tries < 8; tries++) {
		f = below(MAXF);
		i = below(NAGENT);
		if (files[f].fd < 0 || !same_key(&files[f].ag[i], cls, ver, oui) ||
		    mask_empty(files[f].ag[i].mask))
			continue;
		for (m = below(128); ; m = (m + 1) % 128)
			if (mask_test(files[f].ag[i].mask, m))
				return m;
	}
	return -1;
}

/* the classes a MAD may carry from a QP1 agent without a class of its own */
static int gmp_class(void)
{
	static const uint8_t c[] = { 0x03, 0x04, 0x05, 0x06, 0x08, 0x0b, 0x10, 0x12, 0x21,
				     0x30, 0x31, 0x4f, 0x09, 0x0a, 0x2f };

	return c[below(sizeof(c))];
}

/*
 * A MAD from agent a of f: what a program would send, with mutations.
 * Writes the header and MAD into w and buf.
 */
static void make_mad(struct ufile *f, struct wr *w, int id)
{
	struct agent *a = &f->ag[id];
	struct ib_user_mad_hdr h;
	uint8_t *m = w->mad;
	int cls, ver, method, kernel_rmpp, resp, m2;
	uint32_t r, tid = tid_next++;
	uint16_t lid;
	size_t len = MAD;

	memset(&h, 0, sizeof(h));
	memset(m, 0, MAD);
	w->sl_risk = w->mismatch = w->dup_risk = 0;
	/* the class: the agent's, or one that fits its QP, or (mismatch) not */
	if (a->qpn == 0) {
		cls = is_smp_class(a->cls) && below(4) ? a->cls : below(2) ? 0x81 : 0x01;
		if (one_in(25)) {
			cls = gmp_class();
			w->mismatch = 1;
		}
	} else {
		cls = a->cls && below(8) ? a->cls : gmp_class();
		if (one_in(40)) {
			cls = below(2) ? 0x01 : 0x81;
			w->mismatch = 1;
		}
	}
	if (cls == 0x07)
		cls = 0x30;		/* never ib_cm's */
	ver = cls == a->cls && below(8) ? a->ver : cls == 0x03 ? 2 : 1;
	if (cls == 0x07 && ver == 2)
		ver = 1;
	kernel_rmpp = a->rmpp && !a->user_rmpp && is_rmpp_class(cls);

	/* the method: one some agent of ours takes, a response, or any */
	r = below(100);
	m2 = method_for(cls, ver, a->oui);
	if (r < 45 && m2 >= 0)
		method = m2;
	else if (r < 60)
		method = 1 + below(3);
	else if (r < 75)
		method = 0x81 + below(2);
	else
		method = below(256);
	/* QP0 and the classes the HCA answers: Gets only; SA Gets only to the SM */
	if (is_smp_class(cls) || a->qpn == 0 || w->mismatch || cls == 0x04 || cls == 0x09 ||
	    cls == 0x0a || cls == 0x21 || (cls == 0x03 && own_lid == sm_lid))
		method = 1;

	m[0] = one_in(50) ? below(256) : 1;	/* base version */
	m[1] = cls;
	m[2] = ver;
	m[3] = method;
	put32(m + 8, rnd());			/* TID: its high half */
	put32(m + 12, tid);
	put16(m + 16, below(3) ? 0x10 + below(0x30) : rnd());	/* attribute */
	put32(m + 20, below(3) ? 0 : rnd());
	if (one_in(8))
		put16(m + 4, rnd());		/* status */
	resp = is_response(m);

	/* where it goes */
	r = below(100);
	lid = own_lid;
	if (r >= 75)
		lid = 0x3f0 + below(16);	/* nobody: it times out */
	h.qpn = htobe32(a->qpn ? 1 : 0);
	h.qkey = htobe32(a->qpn ? QKEY_GSI : 0);
	if (one_in(30)) {
		h.qpn = htobe32(below(2) ? below(8) : rnd() & 0xffffff);
		h.qkey = htobe32(below(2) ? QKEY_GSI : 0);
	}
	h.timeout_ms = resp || one_in(4) ? 0 : below(5) ? 1 + below(100) :
		       below(20) ? 100 + below(1000) : 5000 + below(20000);
	h.retries = below(4) ? below(3) : below(20);
	if (h.timeout_ms > 200 && h.retries > 3)
		h.retries = 3;
	if (!resp && one_in(300)) {
		/* 2^31 ms and more, or as many retries (to nobody, 100 ms apart) */
		if (below(2)) {
			h.timeout_ms = 0x80000000u | rnd();
		} else {
			h.timeout_ms = 100 + below(100);
			h.retries = 0x80000000u | rnd();
			lid = 0x3f0 + below(16);	/* to nobody */
		}
	}
	h.sl = below(10) ? 0 : below(16);
	w->sl_risk = h.sl != 0 && a->qpn;
	h.path_bits = below(10) ? 0 : below(128);
	h.pkey_index = below(20) ? 0 : below(2) ? below(pkey_len) :
		       pkey_len + below(0x10000 - pkey_len);
	h.length = below(4) ? 0 : rnd();
	if (cls == 0x81) {
		/* a directed route SMP with hop count 0, answered here */
		lid = 0xffff;
		put16(m + 32, below(10) ? 0xffff : rnd());	/* DrSLID */
		put16(m + 34, below(10) ? 0xffff : rnd());	/* DrDLID */
		m[6] = 0;					/* hop pointer */
		m[7] = 0;					/* hop count */
		if (one_in(10))
			m[6] = below(4);
		if (one_in(20))
			m[4] = 0x80;				/* direction: returning */
		h.sl = 0;
	}
	h.lid = htobe16(lid);
	if (a->qpn && one_in(12)) {
		/* a GRH: to our own GID, or anywhere */
		h.grh_present = 1;
		h.gid_index = below(4) ? 0 : below(3) ? below(gid_len) : below(256);
		h.hop_limit = below(256);
		h.traffic_class = below(256);
		h.flow_label = htobe32(below(2) ? 0 : rnd() & 0xfffff);
		if (below(3))
			memcpy(h.gid, own_gid, 16);
		else
			for (int i = 0; i < 16; i++)
				h.gid[i] = rnd();
	}

	/* RMPP: the kernel's (ACTIVE: it segments) or the user's */
	if (is_rmpp_class(cls)) {
		r = below(100);
		m[24] = below(10) ? 1 : below(256);		/* RMPP version */
		if (kernel_rmpp && r < 40) {
			m[25] = below(10) ? 1 : below(5);	/* type: DATA */
			m[26] = 0x01 | (below(8) << 3);		/* ACTIVE, resp time */
			len = data_offset(cls) + 1 + below(below(4) ? 800 : 6000);
		} else if (r < 60) {
			m[25] = below(5);
			m[26] = below(256);
			put32(m + 28, rnd());
			put32(m + 32, rnd());
		}
	}
	if (is_vendor2(cls)) {
		m[37] = a->oui >> 16;
		m[38] = a->oui >> 8;
		m[39] = a->oui;
		if (one_in(20))
			m[37] ^= 1 + below(255);
	}
	/* odd lengths */
	r = below(100);
	if (r < 8)
		len = RMPP_HDR + below(MAD - RMPP_HDR);
	else if (r < 12)
		len = MAD + 1 + below(300);
	for (size_t i = 40; i < len && i < BUF - HDR_NEW; i++)
		m[i] = i < MAD || one_in(2) ? (uint8_t)rnd() : 0;
	if (len > MAD)
		for (size_t i = MAD; i < len; i++)
			m[i] = (uint8_t)(i * 7);
	w->len = len;
	w->hl = hdrsz(f);
	h.id = id;
	memcpy(w->hdr, &h, sizeof(h));
}

/* the agent an id names, for the logs */
static const char *agent_desc(const struct ufile *f, uint32_t id)
{
	static char b[80];
	const struct agent *a = id < NAGENT ? &f->ag[id] : NULL;

	if (!a || !a->on)
		return "no agent";
	snprintf(b, sizeof(b), "agent qpn %u class 0x%02x v%u rmpp %u%s", a->qpn, a->cls, a->ver,
		 a->rmpp, a->user_rmpp ? " user-RMPP" : "");
	return b;
}

/* ib_umad_write() of 6.1 (and mlx4's post) on w: the errnos it may give */
static uint64_t predict_write(struct ufile *f, struct wr *w, int ptr, size_t avail)
{
	struct ib_user_mad_hdr h;
	size_t count = w->hl + w->len;
	const uint8_t *m = w->mad;
	struct agent *a;
	int cls, hl, kernel_rmpp, active;
	size_t data;
	uint64_t more = 0;

	int fh = hdrsz(f);

	memcpy(&h, w->hdr, sizeof(h));
	if (fh == HDR_OLD)
		h.pkey_index = 0;	/* not in the old header: 0 */
	if (f->mode == O_RDONLY)
		return E(EBADF);
	if (count < (size_t)fh + RMPP_HDR)
		return E(EINVAL);
	if (ptr != P_OK && avail < (size_t)fh)
		return E(EFAULT);
	if (h.id >= NAGENT)
		return E(EINVAL);
	if (ptr != P_OK && avail < (size_t)fh + RMPP_HDR)
		return E(EFAULT);
	a = &f->ag[h.id];
	if (!a->on)
		return E(EIO);
	cls = m[1];
	/* ours refuses a class that does not fit the agent's QP (umadtest) */
	if (w->mismatch)
		more |= E(EINVAL);
	/* the address handle */
	if (h.grh_present) {
		if (h.gid_index >= gid_len)
			return E(EINVAL) | more;
		if (!gid_valid[h.gid_index])
			return E(ENODATA) | more;
	}
	hl = data_offset(cls);
	if (count < (size_t)fh + hl)
		return E(EINVAL);
	data = count - fh - hl;
	/* ib_create_send_mad() */
	kernel_rmpp = a->rmpp && !a->user_rmpp;
	active = kernel_rmpp && is_rmpp_class(cls) && (m[26] & 1);
	if (kernel_rmpp ? (!active && hl + data > MAD) : hl + data > MAD)
		return E(EINVAL) | more;
	/* the whole MAD copied */
	if (ptr != P_OK && avail < count)
		return E(EFAULT) | more;
	/* a duplicate of an outstanding send (timing: allow both) */
	if (w->dup_risk)
		more |= E(EINVAL);
	/* ib_post_send_mad(): a class without RMPP from an RMPP agent */
	if (!is_rmpp_class(cls) && a->rmpp)
		return E(EINVAL) | more;
	if (cls == 0x81) {
		/* smi_handle_dr_smp_send() with hop count 0 */
		int dir = m[4] & 0x80, hop_ptr = m[6];
		int slid_perm = get16(m + 32) == 0xffff, dlid_perm = get16(m + 34) == 0xffff;

		if (!dir && slid_perm && (hop_ptr > 1 || (hop_ptr == 0 && !dlid_perm)))
			return E(EINVAL) | more;
		if (dir && dlid_perm && (hop_ptr > 1 || (hop_ptr == 1 && !slid_perm)))
			return E(EINVAL) | more;
	}
	/* mlx4: P_Key index past the table (QP1), SL on VL15 */
	if (a->qpn && h.pkey_index >= pkey_len && !w->mismatch)
		return E(EINVAL) | more;
	if (a->qpn && h.pkey_index >= pkey_len)
		more |= E(EINVAL);
	if (w->sl_risk)
		more |= E(EINVAL);
	/* RMPP: ACK, STOP, ABORT go as they are; DATA segmented */
	return OK | more;
}

static void remember(struct ufile *f, struct wr *w)
{
	uint32_t tid = get32(w->mad + 12);
	struct rec *r = &recs[tid % NREC];

	if (r->valid && r->tid == tid && r->gen == f->gen) {
		r->amb = 1;
		return;
	}
	r->amb = 0;
	r->tid = tid;
	r->gen = f->gen;
	r->id = w->id;
	r->valid = 1;
	r->request = !is_response(w->mad);
	r->hdrlen = w->hl;
	memcpy(r->hdr, w->hdr, HDR_NEW);
	memcpy(r->mad, w->mad, MAD_HDR);
}

void op_write(void)
{
	struct ufile *f = any_file();
	static uint32_t last_tid, last_cls, last_id;
	static unsigned long last_gen;
	struct ib_user_mad_hdr ph;
	struct wr w = { 0 };
	uint8_t *p;
	size_t count, avail;
	uint64_t want;
	int id, ptr = P_OK, e, reply = 0;
	ssize_t n;
	uint32_t r = below(100);
	char what[500];

	if (!f)
		return;
	w.mad = buf + HDR_NEW;
	id = any_agent(f);
	memcpy(&ph, f->req_hdr, sizeof(ph));
	if (r < 12 && f->req_valid && ph.id < NAGENT && f->ag[ph.id].on &&
	    (be16toh(ph.lid) != sm_lid || sm_lid == own_lid)) {
		/* an answer to the request read last: method | 0x80, back where it came from */
		struct ib_user_mad_hdr h;

		memcpy(&h, f->req_hdr, sizeof(h));
		id = h.id;
		make_mad(f, &w, id);
		memcpy(w.mad, f->req_mad, MAD);
		w.mad[3] |= 0x80;
		if (w.mad[3] == 0x82)
			w.mad[3] = 0x81;
		if (w.mad[1] == 0x81 || w.mad[1] == 0x01 || f->ag[id].qpn == 0) {
			make_mad(f, &w, id);	/* no SMP answers */
		} else {
			struct ib_user_mad_hdr o;

			memcpy(&o, w.hdr, sizeof(o));
			o.lid = h.lid;
			o.qpn = h.qpn;
			o.qkey = htobe32(QKEY_GSI);
			o.sl = h.sl;
			o.grh_present = h.grh_present;
			o.gid_index = h.gid_index;
			o.hop_limit = h.hop_limit;
			o.traffic_class = h.traffic_class;
			o.flow_label = h.flow_label;
			memcpy(o.gid, h.gid, 16);
			o.timeout_ms = 0;
			o.retries = 0;
			o.pkey_index = f->pkey ? h.pkey_index : 0;
			memcpy(w.hdr, &o, sizeof(o));
			w.len = MAD;
			w.sl_risk = o.sl != 0;
			w.dup_risk = 1;		/* answered twice, or a retry's answer */
			reply = 1;
		}
		f->req_valid = 0;
	} else if (r < 22 || id < 0) {
		/* an id of nobody: past the table, or free */
		struct ib_user_mad_hdr h;
		int bad = below(3) ? free_id(f) : -1;

		make_mad(f, &w, 0);
		memcpy(&h, w.hdr, sizeof(h));
		h.id = bad >= 0 ? (uint32_t)bad : below(2) ? NAGENT + below(32) : rnd();
		memcpy(w.hdr, &h, sizeof(h));
		id = -1;
	} else {
		make_mad(f, &w, id);
		if (r < 26 && last_gen == f->gen && last_id == (uint32_t)id) {
			/* the TID of the last send again */
			put32(w.mad + 12, last_tid);
			w.mad[1] = last_cls;
			w.mismatch = is_smp_class(last_cls) != !f->ag[id].qpn;
			w.dup_risk = 1;
		}
	}
	if (id >= 0 && f->ag[id].qpn == 0 && w.mad[1] != 0x81)
		w.mad[3] = 1;		/* QP0: Gets only, whatever happened above */
	w.id = id;
	if (r >= 95) {
		/* short: below the header, or below its MAD header */
		w.len = below(3) ? below(RMPP_HDR) : 0;
		if (one_in(3))
			w.hl = below(w.hl);
	}
	if (one_in(60))
		ptr = below(2) ? P_NONE : P_SHORT;
	count = w.hl + w.len;
	/* the header as this file has it (56 bytes without P_Key index) */
	memcpy(buf + HDR_NEW - w.hl, w.hdr, w.hl);
	p = buf + HDR_NEW - w.hl;
	avail = count;
	if (ptr == P_NONE) {
		p = pages + pagesz + below(pagesz - 64);
		avail = 0;
	} else if (ptr == P_SHORT) {
		/* the buffer runs into the PROT_NONE page after avail bytes */
		avail = below(count + 1);
		if (avail > (size_t)pagesz)
			avail = pagesz;
		p = pages + pagesz - avail;
		memcpy(p, buf + HDR_NEW - w.hl, avail);
	}
	want = predict_write(f, &w, ptr, avail);
	memcpy(&ph, w.hdr, sizeof(ph));
	snprintf(what, sizeof(what),
		 "write %zu bytes (header %d): id %u (%s) base %u class 0x%02x v%u method 0x%02x tid 0x%08x lid 0x%x qpn 0x%x grh %u gid_index %u pkey_index %u sl %u timeout %u retries %u rmpp 0x%02x/%u/0x%02x%s%s ptr %d avail %zu",
		 count, w.hl, ph.id, agent_desc(f, ph.id), w.mad[0], w.mad[1], w.mad[2], w.mad[3],
		 get32(w.mad + 12),
		 be16toh(ph.lid), be32toh(ph.qpn), ph.grh_present, ph.gid_index, ph.pkey_index,
		 ph.sl, ph.timeout_ms, ph.retries, w.mad[24], w.mad[25], w.mad[26],
		 reply ? " (an answer)" : "", w.mismatch ? " (class not of the QP)" : "", ptr,
		 avail);
	n = write(f->fd, p, count);
	e = n < 0 ? errno : 0;
	if (n >= 0 && (size_t)n != count)
		fail("%s: wrote %zd", what, n);
	check(K_WRITE, e, want, what);
	if (e || w.hl < HDR_OLD || w.len < MAD_HDR)
		return;
	last_tid = get32(w.mad + 12);
	last_cls = w.mad[1];
	last_gen = f->gen;
	last_id = w.id;
	remember(f, &w);
}

/* --- reads ---------------------------------------------------------------- */

/* a packet read whole: n bytes in b */
static void check_packet(struct ufile *f, const uint8_t *b, ssize_t n, const char *what)
{
	struct ib_user_mad_hdr h;
	int hl = hdrsz(f);
	const uint8_t *m = b + hl;
	struct rec *r;
	uint32_t tid;

	memset(&h, 0, sizeof(h));
	memcpy(&h, b, hl);
	if (n < hl + MAD_HDR) {
		fail("%s: %zd bytes, less than a header and a MAD header", what, n);
		return;
	}
	if (h.id >= NAGENT || !(f->ever & (1u << h.id))) {
		fail("%s: agent id %u, which the file never registered (ids 0x%08x)", what,
		     h.id, f->ever);
		return;
	}
	tid = get32(m + 12);
	r = &recs[tid % NREC];
	if (h.status) {
		/* a request without an answer: our header and MAD header */
		if (h.status != 110 /* ETIMEDOUT */ || n != hl + MAD_HDR) {
			fail("%s: status %u, %zd bytes (a timed-out send is %d)", what, h.status,
			     n, hl + MAD_HDR);
			return;
		}
		if (!r->valid || r->tid != tid || r->gen != f->gen) {
			n_unchecked++;
			return;
		}
		if (r->amb) {
			n_unchecked++;
		} else if (r->id != h.id || memcmp(b + 8, r->hdr + 8, hl - 8) ||
		    memcmp(m, r->mad, 8) || memcmp(m + 12, r->mad + 12, MAD_HDR - 12) ||
		    (!r->request && memcmp(m + 8, r->mad + 8, 4))) {
			fail("%s: timed-out send (TID 0x%08x) differs from what was written: id %u (wrote %u), header %s, MAD header %s",
			     what, tid, h.id, r->id,
			     memcmp(b + 8, r->hdr + 8, hl - 8) ? "changed" : "same",
			     memcmp(m, r->mad, 8) || memcmp(m + 12, r->mad + 12, 12) ?
			     "changed" : "same");
		}
		r->valid = 0;
		return;
	}
	if (h.length != (uint32_t)n) {
		fail("%s: %zd bytes, the header's length says %u", what, n, h.length);
		return;
	}
	if (!is_rmpp_class(m[1]) && n != hl + MAD) {
		fail("%s: a class 0x%02x MAD of %zd bytes (not RMPP: %d)", what, m[1], n,
		     hl + MAD);
		return;
	}
	if (is_response(m)) {
		/* the answer to a request of this file's agent */
		if (r->valid && !r->amb && r->tid == tid && r->request && r->gen == f->gen &&
		    r->id != h.id && r->mad[1] == m[1])
			fail("%s: the answer to TID 0x%08x (agent %u) went to agent %u", what,
			     tid, r->id, h.id);
	} else if (!f->ag[h.id].on && !(f->churned & (1u << h.id))) {
		fail("%s: a request for agent %u, never unregistered, not registered", what, h.id);
	} else if (f->ag[h.id].on && !(f->churned & (1u << h.id))) {
		struct agent *a = &f->ag[h.id];

		if (!a->cls || a->cls != m[1] || a->ver != m[2] || m[3] >= 128 ||
		    !mask_test(a->mask, m[3]))
			fail("%s: a request class 0x%02x v%u method 0x%02x for agent %u (class 0x%02x v%u)",
			     what, m[1], m[2], m[3], h.id, a->cls, a->ver);
		else if (f->mode != O_WRONLY) {
			/* an RMPP message may be shorter than a MAD */
			size_t len = n - hl < MAD ? (size_t)(n - hl) : MAD;

			memcpy(f->req_hdr, b, hl);
			memset(f->req_hdr + hl, 0, HDR_NEW - hl);
			memset(f->req_mad, 0, MAD);
			memcpy(f->req_mad, m, len);
			f->req_valid = 1;
		}
	}
}

/* read count bytes from f into p: the result (bytes or -errno) */
static ssize_t do_read(struct ufile *f, uint8_t *p, size_t count)
{
	ssize_t n = read(f->fd, p, count);

	return n < 0 ? -errno : n;
}

/* after a failed read of a packet: it is still first; read it whole */
static void read_again(struct ufile *f, int e, size_t count, uint32_t need, const char *what)
{
	char w2[200];
	ssize_t n = do_read(f, buf, BUF);

	snprintf(w2, sizeof(w2), "%s, then read again (%s before)", what, ename(e));
	if (check(K_READ, n < 0 ? -n : 0, OK, w2))
		return;
	if (n <= (ssize_t)count)
		fail("%s: %zd bytes, no more than the %zu that failed", w2, n, count);
	else if (e == ENOSPC && (uint32_t)n != need)
		fail("%s: %zd bytes, the ENOSPC header said %u", w2, n, need);
	check_packet(f, buf, n, w2);
	f->nonempty = 0;
}

void op_read(void)
{
	struct ufile *f = any_file();
	struct pollfd pfd;
	uint32_t r = below(100), need;
	size_t count;
	uint64_t want;
	uint8_t *p = buf;
	int hl, e, bad = 0;
	ssize_t n;
	char what[120];

	if (!f)
		return;
	hl = hdrsz(f);
	if (r < 45)
		count = BUF;
	else if (r < 65)
		count = hl + MAD;
	else if (r < 80)
		count = hl + below(MAD);
	else if (r < 90)
		count = below(hl + 1);
	else if (r < 95)
		count = hl + MAD + below(4096);
	else {
		/* into the PROT_NONE page: at once, or after the header */
		bad = 1;
		count = hl + MAD;
		p = one_in(2) ? pages + pagesz : pages + pagesz - hl - below(MAD);
	}
	if (!f->nonblock && f->mode != O_WRONLY && count >= (size_t)hl) {
		/* blocking: only with something queued */
		pfd = (struct pollfd){ .fd = f->fd, .events = POLLIN };
		if (poll(&pfd, 1, 0) != 1)
			return;
		f->nonempty = 1;
	}
	if (f->mode == O_WRONLY)
		want = E(EBADF);
	else if (count < (size_t)hl)
		want = E(EINVAL);
	else if (!bad)
		want = OK | E(EINVAL) | E(ENOSPC);
	else if (p == pages + pagesz)
		want = E(EFAULT);	/* not even the header */
	else
		want = OK | E(EFAULT);	/* a timed-out send fits, a MAD does not */
	if (count >= (size_t)hl && f->mode != O_WRONLY && !f->nonempty)
		want |= E(EAGAIN);
	snprintf(what, sizeof(what), "read of %zu bytes (header %d)%s%s", count, hl,
		 bad ? (p == pages + pagesz ? " into PROT_NONE" : " running into PROT_NONE") : "",
		 f->nonblock ? " O_NONBLOCK" : "");
	n = do_read(f, p, count);
	e = n < 0 ? -n : 0;
	if (check(K_READ, e, want, what))
		return;
	if (!e) {
		check_packet(f, p, n, what);
		f->nonempty = 0;
		return;
	}
	if (e == EAGAIN || e == EBADF || count < (size_t)hl)
		return;
	/* EINVAL, ENOSPC or EFAULT: the packet is still first */
	need = 0;
	if (e == ENOSPC) {
		memcpy(&need, p + offsetof(struct ib_user_mad_hdr, length), 4);
		if (need <= count || need > BUF)
			fail("%s: ENOSPC with length %u in the header", what, need);
	}
	read_again(f, e, bad ? 0 : count, need, what);
}
void op_poll(void)
{
	struct ufile *f = any_file();
	struct pollfd pfd;
	int r, t = below(4) ? 0 : below(20);
	char what[64];

	if (!f)
		return;
	pfd = (struct pollfd){ .fd = f->fd, .events = below(8) ? POLLIN | POLLOUT : POLLIN };
	r = poll(&pfd, 1, t);
	snprintf(what, sizeof(what), "poll %d ms: revents 0x%x", t, r > 0 ? pfd.revents : 0);
	if (check(K_POLL, r < 0 ? errno : 0, OK, what))
		return;
	if (r > 0 && (pfd.revents & ~(POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM)))
		fail("%s: not only POLLIN and POLLOUT", what);
	if (pfd.events & POLLOUT && !(r > 0 && (pfd.revents & POLLOUT)))
		fail("%s: no POLLOUT (a write never waits)", what);
	if (r > 0 && (pfd.revents & POLLIN))
		f->nonempty = 1;
}

/* a blocking read of an empty queue, interrupted by a signal after 20 ms */
void op_read_intr(void)
{
	struct itimerspec its = { .it_value = { .tv_nsec = 20 * 1000 * 1000 } };
	struct ufile *f = any_file();
	struct pollfd pfd;
	ssize_t n;
	int e;

	if (!f || f->nonblock || f->mode == O_WRONLY)
		return;
	pfd = (struct pollfd){ .fd = f->fd, .events = POLLIN };
	if (poll(&pfd, 1, 0) != 0)
		return;
	timer_settime(intr_timer, 0, &its, NULL);
	n = do_read(f, buf, BUF);
	e = n < 0 ? -n : 0;
	memset(&its, 0, sizeof(its));
	timer_settime(intr_timer, 0, &its, NULL);
	if (check(K_INTR, e, OK | E(EINTR),
		  "blocking read of an empty queue, a signal after 20 ms"))
		return;
	if (!e)
		check_packet(f, buf, n, "blocking read (something came)");
}

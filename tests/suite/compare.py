# SPDX-License-Identifier: GPL-2.0
"""Comparisons of one stack's outputs with another's (tests/run-checks):
the sysfs trees of mlx4_0, ib0 and ib0's child and ethtool's outputs of
ib0 (tests/stack/guest/sysfs-tree.sh's dumps), the infiniband-diags outputs
(tests/stack/guest/diags.sh's files) and ibv_devinfo's, field by field.  Each function returns PASS/FAIL lines; A is the reference (the
in-tree stack), B the stack under test.  What may differ is listed here,
each with its reason.
"""
import fnmatch
import glob
import os
import re

# --- the sysfs comparison --------------------------------------------------
# Entries that may exist under one stack only (shell patterns; * also
# matches "/"), each with the reason.
MAY_LACK = [
    # none: ours loads ib_cm with its ib_ipoib as the in-tree stack does,
    # so the cm_* counters are under both
]
# Entries whose value format may differ, each with the reason.
MAY_DIFFER = [
    # none: every counter is a number under both stacks
]
# Values that must be identical under both stacks (the card and opensm
# decide them, not the stack: opensm sweeps the same topology in the same
# order under both, its port first, and gives out the same LIDs; the
# capability mask is the MAD layer's, ib_cm's and the SM's bits, loaded
# alike under both).  Not compared exactly: node_desc (any stack may name
# the node), the counters.
SAME_VALUE = [
    "node_type", "fw_ver", "hca_type", "board_id", "hw_rev", "node_guid", "sys_image_guid",
    "ports/1/link_layer", "ports/1/rate", "ports/1/state", "ports/1/phys_state",
    "ports/1/lid", "ports/1/lid_mask_count", "ports/1/sm_lid", "ports/1/sm_sl",
    "ports/1/pkeys/0", "ports/1/gids/0", "ports/1/cap_mask",
    "ports/2/link_layer", "ports/2/rate", "ports/2/state", "ports/2/phys_state",
    "ports/2/lid", "ports/2/sm_lid", "ports/2/pkeys/0", "ports/2/gids/0", "ports/2/cap_mask",
]

# --- the diags comparison ---------------------------------------------------
# Fields of the diags' output that may differ between the two runs, as
# "FILE-PATTERN:FIELD-PATTERN" (FILE without .txt, e.g. p1-perfquery-self;
# FIELD as parse() names it), each with the reason.
DIAGS_SKIP = [
    # traffic counters: every SMP, GMP and SM sweep moves them, so their
    # values depend on timing (diags.sh checks on each stack that they
    # grow with the traffic it sends; the error counters are compared)
    "*perfquery-*:PortXmitData", "*perfquery-*:PortRcvData",
    "*perfquery-*:PortXmitPkts", "*perfquery-*:PortRcvPkts",
    # opensm counts its sweeps: the count depends on how long it has run
    "*sminfo:activity count",
    # when ibnetdiscover ran
    "*ibnetdiscover:Topology file",
]
# Fields compared only in the bits of a mask, as (FIELD-PATTERN, MASK),
# each with the reason.
DIAGS_MASK = [
    # none: ours sets IsCommunicationManagementSupported as the in-tree
    # stack does (ib_cm is loaded with ib_ipoib under both)
]
skip = DIAGS_SKIP
masks = DIAGS_MASK


def _res(out, name):
    def res(ok, what, why=""):
        out.append("PASS %s: %s" % (name, what) if ok else "FAIL %s: %s: %s" % (name, what, why))
    return res


def load(f):
    d = {}
    for line in open(f, encoding="utf-8", errors="replace"):
        p = line.rstrip("\n").split("\t")
        if len(p) >= 3:
            d[p[0]] = (p[1], p[2], p[3] if len(p) > 3 else "")
    return d

def hit(path, pats):
    return any(fnmatch.fnmatchcase(path, p) for p in pats)

def groups(paths):
    # a missing directory stands for what is below it; ports/1/gids/17 ->
    # ports/N/gids/N, counted
    s = set(paths)
    below = {}
    for p in paths:
        up = [p[:i] for i in range(len(p)) if p[i] == "/" and p[:i] in s]
        if up:
            below[up[0]] = below.get(up[0], 0) + 1
    g = {}
    for p in paths:
        if any(p[:i] in s for i in range(len(p)) if p[i] == "/"):
            continue
        k = re.sub(r"(?<=/)[0-9]+(?=/|$)", "N", p)
        if p in below:
            k += "/ (%d entries)" % below[p]
        g[k] = g.get(k, 0) + 1
    out = ["%s%s" % (k, " (x%d)" % n if n > 1 else "") for k, n in sorted(g.items())]
    return ", ".join(out[:12]) + (", ..." if len(out) > 12 else "")


def compare_trees(name, fa, fb, la="inbox", lb="ours", may_lack=MAY_LACK,
                  may_differ=MAY_DIFFER, same=SAME_VALUE):
    """sysfs-tree.sh's dumps FA (reference) and FB, as PASS/FAIL lines"""
    out = []
    res = _res(out, name)
    empty = [lbl for lbl, f in ((la, fa), (lb, fb))
             if not f or not os.path.exists(f) or not os.path.getsize(f)]
    if empty:
        res(False, "compare %s with %s" % (lb, la), "no dump from %s" % " and ".join(empty))
        return out
    A, B = load(fa), load(fb)
    lack = [p for p in A if p not in B and not hit(p, may_lack)]
    extra = [p for p in B if p not in A and not hit(p, may_lack)]
    res(not lack, "%s has every entry %s has (%d)" % (lb, la, len(A)),
        "missing under %s: %s" % (lb, groups(lack)))
    res(not extra, "%s has no entry %s lacks" % (lb, la),
        "only under %s: %s" % (lb, groups(extra)))
    both = sorted(p for p in A if p in B)
    modes = [p for p in both if A[p][0] != B[p][0]]
    res(not modes, "same modes on the %d common entries" % len(both),
        "; ".join("%s %s %s %s %s" % (p, la, A[p][0], lb, B[p][0]) for p in modes[:10]))
    fmts = [p for p in both if A[p][1] != B[p][1] and not hit(p, may_differ)]
    res(not fmts, "same value formats on the common entries",
        "; ".join("%s %s '%s' %s '%s'" % (p, la, A[p][1], lb, B[p][1]) for p in fmts[:10]))
    for p in same:
        if p not in A:
            res(False, "%s as under %s" % (p, la), "the %s dump has no %s" % (la, p))
        elif p not in B:
            res(False, "%s as under %s ('%s')" % (p, la, A[p][2]), "missing under %s" % lb)
        else:
            res(A[p][2] == B[p][2], "%s as under %s ('%s')" % (p, la, A[p][2]),
                "%s '%s'" % (lb, B[p][2]))
    return out


# --- the network interfaces' comparison ---------------------------------------
# ib0's tree and its legacy child's (sysfs-tree.sh's dumps of
# /sys/class/net/IF): the same entries, modes and value formats as in
# compare_trees, and every value the same too, links' targets included,
# but for those below (shell patterns), each with its reason, compared by
# their format only or as their normaliser makes them.
NET_VALUE_MAY_DIFFER = [
    # the traffic counters: IPv6 autoconfiguration, MLD and IGMP send
    # what they send when their timers say
    "statistics/*",
    # the send queue's dynamic limit and what is in flight follow the
    # traffic
    "queues/tx-*/byte_queue_limits/inflight", "queues/tx-*/byte_queue_limits/limit",
]
# Values compared as a function makes them, each with its reason.
NET_NORMALISE = {
    # bytes 1-3 of the 20-byte address are the UD QP's number, which each
    # stack's QP allocation gives; the flags byte and the GID must match
    "address": lambda v: re.sub(r"^(..):..:..:..:", r"\1:QQ:QQ:QQ:", v),
}


def compare_net(name, fa, fb, la="inbox", lb="ours", may_differ=None, normalise=None):
    """two dumps of /sys/class/net/IF (FA the reference), as PASS/FAIL lines"""
    may_differ = NET_VALUE_MAY_DIFFER if may_differ is None else may_differ
    normalise = NET_NORMALISE if normalise is None else normalise
    out = compare_trees(name, fa, fb, la, lb, may_lack=[], may_differ=[], same=[])
    if any(x.startswith("FAIL %s: compare" % name) for x in out):
        return out
    res = _res(out, name)
    A, B = load(fa), load(fb)
    diffs, n = [], 0
    for p in sorted(p for p in A if p in B):
        if A[p][1] in ("dir", "-") or hit(p, may_differ):
            continue
        f = normalise.get(p, lambda v: v)
        n += 1
        if f(A[p][2]) != f(B[p][2]):
            diffs.append("%s: %s '%s', %s '%s'" % (p, la, A[p][2], lb, B[p][2]))
    res(not diffs, "the same values on %d entries (%d by their format only, %d normalised)"
        % (n, sum(1 for p in A if p in B and hit(p, may_differ)), len(normalise)),
        "; ".join(diffs[:12]) + (" (and %d more)" % (len(diffs) - 12) if len(diffs) > 12 else ""))
    return out


# ethtool's outputs (sysfs-tree.sh: one file per option, the output then
# "exit status N"; -S with the counters' names only), line by line; lines
# that may differ as (FILE-PATTERN, LINE-REGEX), each with its reason.
ETHTOOL_MAY_DIFFER = [
    # none: the ethtool core gives version (the kernel's release) to both,
    # firmware-version and bus-info are the card's
]


def compare_ethtool(name, da, db, la="inbox", lb="ours", may_differ=None):
    """two directories of ethtool's outputs (DA the reference), as PASS/FAIL lines"""
    may_differ = ETHTOOL_MAY_DIFFER if may_differ is None else may_differ
    out = []
    res = _res(out, name)
    files_a = sorted(os.path.basename(p) for p in glob.glob(os.path.join(da or "", "*.txt")))
    files_b = sorted(os.path.basename(p) for p in glob.glob(os.path.join(db or "", "*.txt")))
    if not files_a or not files_b:
        res(False, "compare %s with %s" % (lb, la), "no output from %s" % (la if not files_a else lb))
        return out
    res(files_a == files_b, "%s ran the %d commands %s did" % (lb, len(files_a), la),
        "%s: %s; %s: %s" % (la, " ".join(files_a), lb, " ".join(files_b)))
    for f in files_a:
        if f not in files_b:
            continue
        skip_re = [re.compile(r) for fp, r in may_differ if fnmatch.fnmatchcase(f[:-4], fp)]
        def lines(d):
            return [x.rstrip() for x in open(os.path.join(d, f), errors="replace")
                    if x.strip() and not any(r.search(x) for r in skip_re)]
        A, B = lines(da), lines(db)
        diffs = ["line %d: %s '%s', %s '%s'" % (i + 1, la, a.strip(), lb, b.strip())
                 for i, (a, b) in enumerate(zip(A, B)) if a != b]
        if len(A) != len(B):
            diffs.append("%d lines under %s, %d under %s (%s: %s)" % (
                len(A), la, len(B), lb, la if len(A) > len(B) else lb,
                " | ".join(x.strip() for x in (A if len(A) > len(B) else B)[min(len(A), len(B)):][:4])))
        res(not diffs, "ethtool %s: %d lines as under %s" % (f[:-4], len(A), la),
            "; ".join(diffs[:6]) + (" (and %d more)" % (len(diffs) - 6) if len(diffs) > 6 else ""))
    return out


FIELD_DOTS = re.compile(r"^\s*([^.\s][^.:]*?)(?::\.+|\.{2,})(.*)$")
FIELD_COLON = re.compile(r"^\s*#?\s*([A-Za-z][\w /()-]*?): (.*)$")
FIELD_EQ = re.compile(r"^([a-z]+)=(\S*)$")
SECTION = re.compile(r"^\s+(\S.*):$")
SMINFO = re.compile(r"^sminfo: sm lid (\S+) sm guid (\S+), activity count (\S+) priority (\S+) state (\S+) (\S+)$")
IBADDR = re.compile(r"^GID (\S+) LID start (\S+) end (\S+)$")
QUOTED = re.compile(r'"([^"]*)"')


def parse(path):
    """a file as a list of records, each a list of [field, value]"""
    base = os.path.basename(path)
    recs, cur, sect, nline = [], None, "", 0
    def new(header):
        nonlocal cur, sect
        cur = [["(record)", header]]
        recs.append(cur)
        sect = ""
    def add(k, v):
        if cur is None:
            new("")
        cur.append([sect + k, v.strip()])
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if not line.strip():
            continue
        if base == "status.txt":
            # "FILE EXIT-STATUS"
            add("exit status of " + line.split()[0], line.split()[-1])
            continue
        m = SMINFO.match(line)
        if m:
            for k, v in zip(("sm lid", "sm guid", "activity count", "priority", "state", "state name"), m.groups()):
                add(k, v)
            continue
        m = IBADDR.match(line)
        if m:
            for k, v in zip(("GID", "LID start", "LID end"), m.groups()):
                add(k, v)
            continue
        if "ibnetdiscover" in base and not line.startswith("#") and "=" not in line:
            # node descriptions are quoted after '#': apart, so that they
            # can be excepted by name
            if "#" in line:
                head, tail = line.split("#", 1)
                for i, d in enumerate(QUOTED.findall(tail)):
                    add("node description %d of line %d" % (i + 1, nline), d)
                line = head + "#" + QUOTED.sub('"<node description>"', tail)
            add("line %d" % nline, re.sub(r"\s+", " ", line))
            nline += 1
            continue
        m = FIELD_DOTS.match(line)
        if m and not line.startswith("#"):
            add(m.group(1), m.group(2))
            continue
        m = FIELD_EQ.match(line)
        if m:
            add(m.group(1), m.group(2))
            continue
        if not line[0].isspace():
            # a header line (a record's start): "# Port info: Lid 1 port 1",
            # "NodeRecord dump:", "CA 'mlx4_0'", "IsSM ports"
            m = FIELD_COLON.match(line)
            if m and line.startswith("#") and cur is not None and "dump" not in line:
                add(m.group(1), m.group(2))
            else:
                new(line.strip())
            continue
        m = SECTION.match(line)
        if m:
            sect = m.group(1) + "/"
            continue
        m = FIELD_COLON.match(line)
        if m:
            add(m.group(1), m.group(2))
            continue
        # an indented word alone: a flag listed under the field before
        # (smpquery's CapMask names its bits)
        if cur is not None and len(cur) > 1:
            k = cur[-1][0]
            if not k.endswith(" (flags)"):
                cur.append([k + " (flags)", ""])
            cur[-1][1] = (cur[-1][1] + " " + line.strip()).strip()
            continue
        add("text", line)
    return recs


def skipped(f, k, more=()):
    return any(fnmatch.fnmatchcase(f + ":" + k, p) for p in list(skip) + list(more))


def norm(f, k, v):
    for p, mask in masks:
        if fnmatch.fnmatchcase(f + ":" + k, p):
            try:
                return "%#x (masked %#x)" % (int(v, 0) & mask, mask)
            except ValueError:
                return v
    return v


def _txt_files(res, da, db, la, lb, what, extra=False):
    """the *.txt files of DA and DB (None, None if either has none), with
    a check that DB has every one of DA's (and with EXTRA, no other)"""
    files_a = sorted(os.path.basename(p) for p in glob.glob(os.path.join(da, "*.txt")))
    files_b = sorted(os.path.basename(p) for p in glob.glob(os.path.join(db, "*.txt")))
    if not files_a or not files_b:
        res(False, "compare %s with %s" % (lb, la), "no output from %s" % (la if not files_a else lb))
        return None, None
    missing = [f for f in files_a if f not in files_b]
    res(not missing, "%s ran every %s %s did (%d)" % (lb, what, la, len(files_a)),
        "no output under %s: %s" % (lb, " ".join(missing)))
    if extra:
        more = [f for f in files_b if f not in files_a]
        res(not more, "%s ran no %s %s did not (%d)" % (lb, what, la, len(files_b)),
            "output under %s only: %s" % (lb, " ".join(more)))
    return files_a, files_b


def compare_diags(name, da, db, la="inbox", lb="ours", more_skip=()):
    """diags.sh's directories DA (reference) and DB, as PASS/FAIL lines;
    MORE_SKIP: fields skipped in this comparison only (DIAGS_SKIP's form)"""
    out = []
    res = _res(out, name)
    files_a, files_b = _txt_files(res, da, db, la, lb, "query", extra=True)
    if files_a is None:
        return out
    for f in files_a:
        if f not in files_b:
            continue
        tag = f[:-4]
        A = [[(k, norm(tag, k, v)) for k, v in r if not skipped(tag, k, more_skip)]
             for r in parse(os.path.join(da, f))]
        B = [[(k, norm(tag, k, v)) for k, v in r if not skipped(tag, k, more_skip)]
             for r in parse(os.path.join(db, f))]
        # records in a stable order (saquery's need not come in one)
        A.sort(key=repr)
        B.sort(key=repr)
        diffs = []
        if len(A) != len(B):
            diffs.append("%d records under %s, %d under %s" % (len(A), la, len(B), lb))
        nf = 0
        for i, (ra, rb) in enumerate(zip(A, B)):
            ka, kb = dict(ra), dict(rb)
            where = " (record %d of %d)" % (i + 1, len(A)) if len(A) > 1 else ""
            for k in ka:
                nf += 1
                if k not in kb:
                    diffs.append("%s%s: %s '%s', missing under %s" % (k, where, la, ka[k], lb))
                elif ka[k] != kb[k]:
                    diffs.append("%s%s: %s '%s', %s '%s'" % (k, where, la, ka[k], lb, kb[k]))
            for k in kb:
                if k not in ka:
                    diffs.append("%s%s: %s '%s', missing under %s" % (k, where, lb, kb[k], la))
        if not diffs:
            res(True, "%s: %d fields in %d records as under %s" % (tag, nf, len(A), la))
        for d in diffs[:8]:
            res(False, "%s: as under %s" % (tag, la), d)
        if len(diffs) > 8:
            res(False, "%s: as under %s" % (tag, la), "%d more differences" % (len(diffs) - 8))
    return out


# --- the libibverbs comparison ---------------------------------------------
# ibv_devinfo -v fields that may differ between the stacks (device fields
# by name, port fields as "port:NAME"), each with the reason.  Everything
# else, every capability flag included, must be the same.
DEVINFO_MAY_DIFFER = {
    # upstream's mlx4 always sets IB_DEVICE_RAW_IP_CSUM (bit 26), a
    # capability of raw packet QPs, which only Ethernet ports have; ours
    # has IB ports only and refuses raw packet QPs, so it does not claim it
    "device_cap_flags": "RAW_IP_CSUM: no raw packet QPs",
    "device_cap_flags_ex": "RAW_IP_CSUM: no raw packet QPs",
    # upstream reports ~0; ours the card's own limit from QUERY_DEV_CAP
    # (2^63 bytes on the model): either is beyond any registration
    "max_mr_size": "the card's QUERY_DEV_CAP limit, not ~0",
}


def parse_devinfo(path):
    """ibv_devinfo's output as {(section, field): value}: section "device"
    or "port N"; a flag list continuing on lines of its own is joined"""
    fields, section, last = {}, "device", None
    for line in open(path, errors="replace").read().splitlines():
        m = re.match(r"^\s*([A-Za-z_][\w ]*?):\s*(.*?)\s*$", line)
        if m:
            k, v = m.group(1).strip(), m.group(2)
            if k == "port":
                section = "port " + v
                last = None
                continue
            last = (section, k)
            fields[last] = v
        elif re.match(r"^\s*[A-Z0-9_][A-Z0-9_ ]*$", line) and last:
            # a flag of the list the field above started
            fields[last] = (fields[last] + " " + line.strip()).strip()
        elif line.strip():
            # a line of its own ("core clock not supported")
            last = (section, line.strip())
            fields[last] = ""
    return fields


def compare_devinfo(name, da, db, la="inbox", lb="ours", may_differ=None):
    """devinfo-dump.sh's directories DA (reference) and DB: ibv_devices,
    ibv_devinfo and ibv_devinfo -v, field by field, as PASS/FAIL lines"""
    may_differ = DEVINFO_MAY_DIFFER if may_differ is None else may_differ
    out = []
    res = _res(out, name)
    for f in ("devices.txt", "devinfo.txt", "devinfo-v.txt"):
        fa, fb = os.path.join(da or "", f), os.path.join(db or "", f)
        if not os.path.exists(fa) or not os.path.exists(fb):
            res(False, "%s: compare %s with %s" % (f, lb, la),
                "no %s from %s" % (f, " and ".join(x for x, p in ((la, fa), (lb, fb))
                                                   if not os.path.exists(p))))
            continue
        if f == "devices.txt":
            A = open(fa, errors="replace").read().split()
            B = open(fb, errors="replace").read().split()
            res(A == B and len(A) > 0, "ibv_devices as under %s" % la,
                "%s: %s; %s: %s" % (la, " ".join(A), lb, " ".join(B)))
            continue
        A, B = parse_devinfo(fa), parse_devinfo(fb)
        if not A or not B:
            res(False, "%s: compare %s with %s" % (f, lb, la), "nothing parsed")
            continue
        lack = sorted("%s/%s" % k for k in A if k not in B)
        extra = sorted("%s/%s" % k for k in B if k not in A)
        res(not lack and not extra, "%s: %s has the %d fields %s has, no others" % (f, lb, len(A), la),
            "missing: %s; only under %s: %s" % (", ".join(lack) or "-", lb, ", ".join(extra) or "-"))
        diffs = []
        for k in sorted(A):
            if k not in B or A[k] == B[k]:
                continue
            key = k[1] if k[0] == "device" else "port:" + k[1]
            if key in may_differ:
                continue
            diffs.append("%s/%s: %s '%s', %s '%s'" % (k[0], k[1], la, A[k], lb, B[k]))
        res(not diffs, "%s: every field as under %s (%d compared, %d may differ)" %
            (f, la, len(A), len(may_differ)), "; ".join(diffs[:12]) +
            (" (and %d more)" % (len(diffs) - 12) if len(diffs) > 12 else ""))
    return out


# --- the rdma tool comparison ----------------------------------------------
# tests/netlink/guest/rdma-dump.sh's files: every line of every command's
# output, token by token (JSON outputs: object by object, key by key), in
# the order printed.  Values that may differ, by the key they follow (the
# JSON key is the same word), each with the reason:
def _rdma_mad_line(words):
    """a line (or JSON object's values) of the MAD layer's objects"""
    return "[ib_core]" in words or "ib_core" in words


RDMA_MAY_DIFFER = [
    # (KEY, WHERE: None for every line, or a test of the line's words)
    # a process's ID is the boot's
    ("pid", None),
    # the QP numbers of non-special QPs: the in-tree mlx4_core keeps the
    # QP numbers below 512 for Ethernet RSS QPs (with the firmware's); ours
    # has InfiniBand ports only and keeps the firmware's 16 and the special
    # QPs' 8, so its first QP is 24 (QP0 and QP1 are compared)
    ("lqpn", lambda w: not ({"0", "1"} & set(w[w.index("lqpn") + 1:w.index("lqpn") + 2]))
     if "lqpn" in w else True),
    # memory keys hold the index of the card's MPT entry, which each
    # driver hands out in its own order and which depends on what the
    # boot's earlier items registered (the MR's length, number and owner
    # are compared)
    ("lkey", None),
    ("rkey", None),
    ("local_dma_lkey", None),
    # IPoIB's PD: its users include the address handles IPoIB holds for the
    # peers and groups it has heard from, which the boot's earlier traffic
    # decides
    ("users", lambda w: "[ib_ipoib]" in w or "ib_ipoib" in w),
    # the MAD layer's PDs: their users are its QPs and whatever address
    # handles its agents hold at that moment (ib_sa's SM AH, a send in
    # flight), which each stack's MAD implementation decides
    ("users", _rdma_mad_line),
    # the MAD layer's CQs: the in-tree one polls with ib_alloc_cq() on a
    # workqueue, ours has its own handler on an ib_create_cq() CQ, which
    # has no poll context (printed DIRECT, as IPoIB's are under both)
    ("poll-ctx", _rdma_mad_line),
    # a running perftest's RC QPs (rdma-dump.sh's perftest-qp): their PSNs
    # move with every packet, and the peer's QP number is a non-special
    # QP's (see lqpn)
    ("rq-psn", lambda w: "ib_write_bw" in w),
    ("sq-psn", lambda w: "ib_write_bw" in w),
    ("rqpn", lambda w: "ib_write_bw" in w),
    # the perftest's two processes make their contexts, PDs, CQs and MRs
    # side by side: which one gets the lower number is a race (check-full
    # saw the in-tree stack's client win it where ours had the server);
    # the objects' other fields are compared, role by role
    ("ctxn", lambda w: "ib_write_bw" in w),
    ("pdn", lambda w: "ib_write_bw" in w),
    ("cqn", lambda w: "ib_write_bw" in w),
    ("mrn", lambda w: "ib_write_bw" in w),
]
# a file where only ours fails, with what ours must print, and the reason
RDMA_OURS_ONLY = {
    # the in-tree stack loads rdma_rxe and makes a software device; ours
    # has no software device types (the in-tree modules cannot load next
    # to our ib_core)
    "link-add": "error: Invalid argument",
}

# Values one stack prints where the other prints another, as
# (KEY, REFERENCE'S VALUE): TESTED STACK'S VALUE, each with the reason.
RDMA_SAME_AS = {
    # the MAD layer's PDs, CQs and QPs: the in-tree ib_mad is part of
    # ib_core, ours is its own module, which created them
    ("comm", "[ib_core]"): "[ib_mad]",
    ("comm", "ib_core"): "ib_mad",
}
# Words left out of a value list (the caps: <...> lines), with the reason:
RDMA_CAPS_DROP = {
    # the in-tree mlx4 claims raw packet QPs' IP checksum, which only an
    # Ethernet port has; ours has IB ports only (DEVINFO_MAY_DIFFER too)
    "RAW_IP_CSUM",
}


# Keys the reference may print on a line (or JSON object) where ours prints
# none, with the reason:
RDMA_REF_ONLY = {
    # Linux 6.12's in-tree stack associates the port's IPoIB interface with
    # the IB port, so its `rdma link` names ib0 and its index; 6.1's does
    # not, and ours follows 6.1 (listed in the issue-16 note as a
    # difference on newer kernels)
    "netdev", "netdev_index",
}


def _rdma_drop_ref_only(ta, tb):
    """ta without the RDMA_REF_ONLY key/value pairs that tb lacks"""
    out, i = [], 0
    while i < len(ta):
        if ta[i] in RDMA_REF_ONLY and ta[i] not in tb and i + 1 < len(ta):
            i += 2
            continue
        out.append(ta[i])
        i += 1
    return out


def _rdma_norm_caps(line):
    m = re.match(r"^(\s*caps: <)(.*)(>\s*)$", line)
    if not m:
        return line
    caps = [c for c in m.group(2).split(", ") if c not in RDMA_CAPS_DROP]
    return m.group(1) + ", ".join(caps) + m.group(3)


def _rdma_same(key, va, vb, words):
    for k, where in RDMA_MAY_DIFFER:
        if k == key and (where is None or where(words)):
            return True
    return va == vb or RDMA_SAME_AS.get((key, va)) == vb


def _rdma_cmp_text(la, lb, A, B):
    diffs = []
    if len(A) != len(B):
        diffs.append("%d lines under %s, %d under %s" % (len(A), la, len(B), lb))
    for i, (a, b) in enumerate(zip(A, B)):
        ta, tb = _rdma_norm_caps(a).split(), _rdma_norm_caps(b).split()
        ta = _rdma_drop_ref_only(ta, tb)
        if len(ta) != len(tb):
            diffs.append("line %d: %s '%s', %s '%s'" % (i + 1, la, a.strip(), lb, b.strip()))
            continue
        for j, (x, y) in enumerate(zip(ta, tb)):
            key = ta[j - 1] if j else ""
            if not _rdma_same(key, x, y, ta):
                diffs.append("line %d, after '%s': %s '%s', %s '%s'" % (i + 1, key, la, x, lb, y))
    return diffs


def _rdma_cmp_json(la, lb, ja, jb):
    diffs = []
    if not isinstance(ja, list) or not isinstance(jb, list):
        return ["not a JSON list under %s or %s" % (la, lb)]
    if len(ja) != len(jb):
        diffs.append("%d objects under %s, %d under %s" % (len(ja), la, len(jb), lb))
    for i, (oa, ob) in enumerate(zip(ja, jb)):
        for k in sorted(set(oa) | set(ob)):
            if k not in ob and k in RDMA_REF_ONLY:
                continue
            if k not in ob:
                diffs.append("object %d: %s missing under %s" % (i + 1, k, lb))
            elif k not in oa:
                diffs.append("object %d: %s under %s only" % (i + 1, k, lb))
            elif not _rdma_same(k, str(oa[k]), str(ob[k]),
                                [k2 for kv in oa.items() for k2 in (kv[0], str(kv[1]))]):
                diffs.append("object %d: %s: %s '%s', %s '%s'" % (i + 1, k, la, oa[k], lb, ob[k]))
    return diffs


def compare_rdma(name, da, db, la="inbox", lb="ours"):
    """rdma-dump.sh's directories DA (reference) and DB, as PASS/FAIL lines"""
    import json
    out = []
    res = _res(out, name)
    files_a, files_b = _txt_files(res, da, db, la, lb, "command")
    if files_a is None:
        return out
    for f in files_a:
        if f not in files_b:
            continue
        tag = f[:-4]
        A = open(os.path.join(da, f), encoding="utf-8", errors="replace").read().splitlines()
        B = open(os.path.join(db, f), encoding="utf-8", errors="replace").read().splitlines()
        if not any(l.startswith("rc=") for l in A) or not any(l.startswith("rc=") for l in B):
            res(False, "%s: as under %s" % (tag, la), "no exit status recorded")
            continue
        if tag in RDMA_OURS_ONLY:
            want = RDMA_OURS_ONLY[tag]
            res(want in B and "rc=0" not in B, "%s: refused under %s (%s)" % (tag, lb, want),
                "%s printed %r" % (lb, B))
            continue
        if "-j" in tag and A and A[0].startswith("["):
            try:
                diffs = _rdma_cmp_json(la, lb, json.loads(A[0]), json.loads(B[0]))
            except ValueError as e:
                diffs = ["JSON under %s does not parse: %s" % (lb, e)]
            diffs += _rdma_cmp_text(la, lb, A[1:], B[1:])
        else:
            diffs = _rdma_cmp_text(la, lb, A, B)
        if not diffs:
            res(True, "%s: %d lines as under %s" % (tag, len(A), la))
        for d in diffs[:6]:
            res(False, "%s: as under %s" % (tag, la), d)
        if len(diffs) > 6:
            res(False, "%s: as under %s" % (tag, la), "%d more differences" % (len(diffs) - 6))
    return out

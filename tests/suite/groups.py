# SPDX-License-Identifier: GPL-2.0
"""Every test group of the project, in the order tests/run-checks reports
them, each with its tier declared on each of its items (engine.py):
  both   make check and make check-full
  check  make check only (a lighter variant that check-full replaces)
  full   make check-full only
make check runs every group once on Debian's 6.1 with our stack (the
in-tree stack for the test bed's own groups), plus a smoke of our stack on
6.12; make check-full runs the whole matrix: both kernels, one and two
nodes, every comparison with the in-tree stack, both orders of the mixed
fabric, the 50-cycle modprobe runs.  make check-debug runs make check's
items of our stack again on the debug kernel (see debug_tier below).
"""
import dataclasses
import glob
import json
import os
import re

import selftest
from compare import compare_devinfo, compare_diags, compare_ethtool, compare_net, compare_rdma, \
    compare_trees
from engine import TOP, Boot, Group, in_tier, release, sh

TB = "tests/testbed/guest"
ST = "tests/stack/guest"
GROUPS = []


def group(name, what):
    g = Group(name, what)
    GROUPS.append(g)
    return g


def inbox(k="6.1", **kw):
    return Boot(kernel=k, stacks=("inbox",), **kw)


def ours(k="6.1", **kw):
    return Boot(kernel=k, stacks=("ours",), **kw)


# --- host steps ----------------------------------------------------------------
def unit_tests(ctx):
    r = sh(["make", "-s", "-C", os.path.join(TOP, "tests/cx3/unit"), "all"])
    if r.returncode != 0:
        yield "FAIL unit tests: the build failed"
        yield from ("    " + x for x in r.stdout.splitlines()[-20:])
        return
    tests = sorted(t for t in glob.glob(os.path.join(TOP, "tests/cx3/unit/test_*"))
                   if os.access(t, os.X_OK) and not t.endswith(".c"))
    if not tests:
        yield "FAIL unit tests: none built"
    for t in tests:
        r = sh([t])
        lines = r.stdout.splitlines()
        yield from lines
        name = os.path.basename(t)
        n = sum(1 for x in lines if x.startswith(("PASS ", "FAIL ")))
        m = [re.search(r"(\d+) checks, (\d+) failed", x) for x in lines]
        m = [x for x in m if x]
        if r.returncode == 0 and m and int(m[-1].group(1)) == n and n > 0:
            yield "PASS %s: exited 0, its summary counts its %d lines" % (name, n)
        else:
            yield "FAIL %s: exited %d, summary %s, %d PASS/FAIL lines" % (
                name, r.returncode, m[-1].group(0) if m else "missing", n)


# every kernel the stack targets, and the debug kernel: tests/build/check.sh
# builds for each
BUILD_KERNELS = ("5.10", "6.1", "6.12", "6.12-trixie", "7.2", "7.3", "6.1-debug")
# those of other Debian releases (tests/setup/envs.sh)
OTHER_KERNELS = ("5.10", "6.12-trixie", "7.2", "7.3")


def build_checks(ctx):
    r = sh([os.path.join(TOP, "tests/build/check.sh")])
    yield from r.stdout.splitlines()
    if r.returncode != 0 or not re.search(r"^build-check: done", r.stdout, re.M):
        yield "FAIL build: tests/build/check.sh exited %d before its end" % r.returncode


def build_expect():
    ex = [r"^(PASS|FAIL) compat:", r"^(PASS|FAIL) shadow includes:",
          r"^(PASS|FAIL) checkpatch ", r"^(PASS|FAIL) shadow ",
          r"^(PASS|FAIL) api-names:", r"^(PASS|FAIL) api-names ipoib:", r"^(PASS|FAIL) api-values:"]
    for k in ("6.1", "6.12"):
        rel = re.escape(release(k) or "no-%s-kernel" % k)
        ex += [r"^(PASS|FAIL) ulp %s: tests/ulp-sample builds" % rel,
               r"^(PASS|FAIL) ulp %s: ibstack-ulp-check" % rel]
    for k in BUILD_KERNELS:
        rel = release(k) or "no-%s-kernel" % k
        ex += [r"^(PASS|FAIL) build %s" % re.escape(rel), r"^(PASS|FAIL) W=1 %s" % re.escape(rel),
               r"^(PASS|FAIL) sparse %s" % re.escape(rel)]
    return tuple(ex)


def dkms(series):
    def run(ctx):
        env = dict(os.environ, DKMS_SERIES=" ".join(series))
        r = sh([os.path.join(TOP, "tests/build/dkms.sh")], env=env)
        yield from r.stdout.splitlines()
        if r.returncode != 0:
            yield "FAIL dkms: tests/build/dkms.sh exited %d" % r.returncode
    return run


def dkms_expect(series):
    ex = [r"^PASS dkms add"]
    for k in series:
        rel = re.escape(release(k) or "no-%s-kernel" % k)
        ex += [r"^PASS dkms build %s" % rel, r"^PASS dkms install %s" % rel, r"^PASS dkms vm %s" % rel,
               r"^PASS dkms devel %s:" % rel, r"^PASS dkms ulp %s:" % rel,
               r"^PASS dkms ulp-load %s:" % rel, r"^PASS dkms devel removed %s:" % rel]
    return tuple(ex)


def deb(series, reinstall=False):
    def run(ctx):
        env = dict(os.environ, DEB_SERIES=" ".join(series), DEB_REINSTALL="1" if reinstall else "0")
        r = sh([os.path.join(TOP, "tests/build/deb.sh")], env=env)
        yield from r.stdout.splitlines()
        if r.returncode != 0:
            yield "FAIL deb: tests/build/deb.sh exited %d" % r.returncode
    return run


def deb_expect(series, reinstall=False):
    """The package installs for every kernel with headers: both of the
    host's (make setup installs 6.1's and 6.12's) whatever SERIES boots."""
    ex = [r"^PASS deb build:", r"^PASS deb contents:", r"^PASS deb lintian:", r"^PASS deb install:",
          r"^PASS deb files:", r"^PASS deb purge:", r"^PASS deb purge files:"]
    ex += [r"^PASS deb reinstall:"] if reinstall else []
    for k in ("6.1", "6.12"):
        rel = re.escape(release(k) or "no-%s-kernel" % k)
        ex += [r"^PASS deb %s %s:" % (w, rel)
               for w in ("dkms-status", "modinfo", "devel", "initramfs", "autoinstall", "in-tree",
                         "initramfs purged") + (("reinstall",) if reinstall else ())]
    for k in series:
        rel = re.escape(release(k) or "no-%s-kernel" % k)
        ex += [r"^PASS deb vm %s:" % rel, r"^PASS deb vm boot %s:" % rel, r"^PASS deb vm inbox %s:" % rel]
    return tuple(ex)


def dkms_envs(ctx):
    r = sh([os.path.join(TOP, "tests/build/dkms-envs.sh")])
    yield from r.stdout.splitlines()
    if r.returncode != 0:
        yield "FAIL dkms env: tests/build/dkms-envs.sh exited %d" % r.returncode


def dkms_envs_expect():
    ex = []
    for k in OTHER_KERNELS:
        rel = re.escape(release(k) or "no-%s-kernel" % k)
        ex += [r"^PASS dkms env build %s " % rel, r"^PASS dkms env install %s:" % rel]
    for root in ("bullseye", "trixie", "sid"):
        ex.append(r"^PASS dkms env removed from env-%s:" % root)
    return tuple(ex)


def host_tool(group, what, out, srcs, cflags=(), libs=()):
    """one of the suite's C tools built on the host (-Werror): its PASS or FAIL line"""
    os.makedirs(os.path.dirname(out), exist_ok=True)
    r = sh(["gcc", "-O2", "-g", "-Wall", "-Wextra", "-Werror"] + list(cflags) + ["-o", out]
           + list(srcs) + list(libs))
    if r.returncode == 0 and srcs:
        yield "PASS %s: %s builds without a warning" % (group, what)
    else:
        yield "FAIL %s: %s builds: %s" % (group, what, " ".join(r.stdout.splitlines()[:3]))


UAPI_DIR = os.path.join(TOP, "include/uapi")


def tsrc(pattern):
    return sorted(glob.glob(os.path.join(TOP, pattern)))


def umadtest_build(ctx):
    yield from host_tool("umad", "the test tool", ctx.umadtest, tsrc("tests/umad/umadtest.c"),
                         ("-Wno-unused-parameter", "-pthread", "-I", UAPI_DIR))


def uvtool_build(ctx):
    srcs = [x for x in tsrc("tests/uverbs/*.c") if not os.path.basename(x).startswith("uvfuzz")]
    yield from host_tool("uverbs", "the test tool", ctx.uvtool, srcs, ("-D_GNU_SOURCE",),
                         ("-libverbs", "-lpthread"))


def uvfuzz_build(ctx):
    yield from host_tool("uverbs", "the fuzzer", ctx.uvfuzz, tsrc("tests/uverbs/uvfuzz*.c"),
                         ("-D_GNU_SOURCE",), ("-lpthread",))


def umadfuzz_build(ctx):
    yield from host_tool("umad", "the fuzzer", os.path.join(TOP, "build/umadfuzz/umadfuzz"),
                         tsrc("tests/umad/umadfuzz*.c"), ("-I", UAPI_DIR))


def ipfuzz_build(ctx):
    yield from host_tool("ipoib", "the fuzzer", os.path.join(TOP, "build/ipfuzz/ipfuzz"),
                         tsrc("tests/ipoib/ipfuzz*.c"), ("-D_GNU_SOURCE",), ("-lpthread",))


def failnth_build(ctx):
    # -rdynamic: its ioctl() and write() stand in for libc's in libibverbs
    # and the provider it loads
    yield from host_tool("kfaults", "the fault-point sweeper",
                         os.path.join(TOP, "build/failnth/failnth"), tsrc("tests/stack/failnth.c"),
                         ("-Wno-unused-parameter", "-rdynamic", "-I", UAPI_DIR), ("-libverbs",))


def nlfuzz_build(ctx):
    yield from host_tool("netlink", "the fuzzer", ctx.nlfuzz, tsrc("tests/netlink/nlfuzz.c"))


def racer_build(ctx):
    yield from host_tool("races", "the racer", ctx.racer, tsrc("tests/stack/racer.c"),
                         ("-D_GNU_SOURCE", "-pthread"), ("-libverbs",))


# --- checks on a finished boot -------------------------------------------------
def catas_reset(b, it):
    """the model saw the error and, after it, the driver's reset"""
    log = os.path.join(b.dir, "node1", "qemu.log")
    try:
        text = open(log, errors="replace").read()
    except OSError:
        return ["FAIL %s: card reset after the internal error: no qemu.log" % it.name]
    out = []
    errs = [m.start() for m in re.finditer(r"internal error, syndrome", text)]
    if not errs:
        return ["FAIL %s: the model raised no internal error" % it.name]
    resets = [m.start() for m in re.finditer(r"live objects at reset", text)]
    ok = all(any(r > e for r in resets) for e in errs)
    out.append(("PASS %s: the model saw the driver reset the card after each of %d internal errors"
                if ok else "FAIL %s: a reset after each of %d internal errors: none after one")
               % (it.name, len(errs)))
    return out


# --- comparisons -------------------------------------------------------------------
def cmp_sysfs(name, ref, test):
    return lambda ctx: compare_trees(name, ctx.out_path(ref), ctx.out_path(test))


def cmp_net(name, ref, test, suffix):
    """sysfs-tree.sh's other outputs, next to its OUT: -ib0.txt, -ib0.8001.txt
    (compare_net), -ethtool (compare_ethtool)"""
    def run(ctx):
        fa, fb = (ctx.out_path(x) for x in (ref, test))
        fa, fb = (p[:-len(".txt")] + suffix if p else None for p in (fa, fb))
        if suffix == "-ethtool":
            return compare_ethtool(name, fa, fb)
        return compare_net(name, fa, fb)
    return run


def cmp_lines(name, ref, test, suffix, what):
    """a file next to OUT of each item (OUT's name with SUFFIX): the same
    lines under both stacks"""
    def run(ctx):
        fa, fb = (ctx.out_path(x) for x in (ref, test))
        fa, fb = (p[:-len(".txt")] + suffix if p else None for p in (fa, fb))
        try:
            la, lb = (open(f).read().splitlines() for f in (fa, fb))
        except (OSError, TypeError) as e:
            yield "FAIL %s: %s as under the in-tree stack: unreadable: %s" % (name, what, e)
            return
        if la and la == lb:
            yield "PASS %s: %s as under the in-tree stack (%s)" % (name, what, ", ".join(lb))
        else:
            yield "FAIL %s: %s as under the in-tree stack: inbox %s, ours %s" % (name, what, la, lb)
    return run


def cmp_diags(name, ref, test, node=1, la="inbox", lb="ours", sub=None, more_skip=()):
    def run(ctx):
        return compare_diags(name, ctx.out_path(ref, node, sub or ""),
                             ctx.out_path(test, node, sub or ""), la, lb, more_skip)
    return run


def cmp_devinfo(name, ref, test, node=1, la="inbox", lb="ours"):
    def run(ctx):
        return compare_devinfo(name, ctx.out_path(ref, node), ctx.out_path(test, node), la, lb)
    return run


# === the groups ===================================================================
g = group("unit", "the card model's hardware logic, and the runner's own verdicts, without a VM")
g.step("unit", unit_tests)
g.step("suite", selftest.run)

g = group("build", "W=1 and sparse on every target kernel, checkpatch, the shadow guard (tests/build/check.sh)")
g.step("build", build_checks, expect=build_expect())

# --- the test bed, judged by the in-tree stack ---------------------------------------
g = group("devinfo", "probe, ibv_devinfo, ibstat, ibv_devices, smpquery; uncabled ports")
g.item("devinfo-6.1", inbox(sm=False), TB + "/devinfo.sh")
g.item("devinfo-6.12", inbox("6.12", sm=False), TB + "/devinfo.sh", tier="full")
g.item("uncabled-6.1", inbox(sm=False, cable=False), TB + "/devinfo.sh",
       env={"EXPECT_STATE": "DOWN"})

g = group("intx", "the INTx fallback (mlx4_core msi_x=0)")
g.item("intx-6.1", inbox(sm=False), TB + "/intx.sh", unloads=2)
g.item("intx-6.12", inbox("6.12", sm=False), TB + "/intx.sh", unloads=2, tier="full")

g = group("autoactive", "the model's auto-lid shortcut, no SM, with a pingpong")
g.item("autoactive-6.1", inbox(sm=False, cx3_opts="auto-lid1=1,auto-lid2=2"),
       TB + "/autoactive.sh")

g = group("datapath", "opensm, ibnetdiscover, saquery; the four pingpongs; perftest; BlueFlame (in-tree stack)")
g.item("1node-subnet", inbox(), TB + "/subnet.sh")
g.item("1node-pingpong", inbox(), TB + "/pingpong.sh", timeout=900)
g.item("1node-perftest", inbox(), TB + "/perftest.sh", timeout=900)
g.item("1node-blueflame", inbox(), TB + "/blueflame.sh")
g.item("6.12-subnet", inbox("6.12"), TB + "/subnet.sh", tier="full")
g.item("6.12-pingpong", inbox("6.12"), TB + "/pingpong.sh", tier="full", timeout=900)
g.item("6.12-blueflame", inbox("6.12"), TB + "/blueflame.sh", tier="full")

g = group("twonode", "two VMs: subnet, pingpongs, perftest, IPoIB TCP, a cable pull (in-tree stack)")
for k, tier in (("6.1", "both"), ("6.12", "full")):
    for s, t in (("subnet", 300), ("pingpong", 900), ("perftest", 900), ("ipoib", 600), ("cable", 400)):
        g.item(("2node-" if k == "6.1" else "2node-6.12-") + s, inbox(k, nodes=2),
               "%s/%s.sh" % (TB, s), timeout=t, tier=tier)

g = group("lossy", "RC across a cable losing 1% and 10%, corrupting 1%; a dead peer's retry-exceeded (in-tree stack)")
for k, tier in (("6.1", "both"), ("6.12", "full")):
    g.item("lossy-" + k, inbox(k, sm=False, cx3_opts="auto-lid1=1,auto-lid2=2"), TB + "/lossy.sh",
           timeout=900, tier=tier)

g = group("rdmacore", "rdma-core's own test suite (python3-pyverbs) on the model (in-tree stack)")
g.item("rdmacore-6.1", inbox(), TB + "/rdmacore-tests.sh", timeout=900)
g.item("rdmacore-6.12", inbox("6.12"), TB + "/rdmacore-tests.sh", tier="full", timeout=900)

g = group("srp", "SCSI over RDMA: the in-tree ib_srpt (LIO, configfs) and ib_srp on one node, "
          "O_DIRECT data both ways, logout, unload; whether ib_srp uses fast registration (in-tree stack)")
# SRP_FR: what the model gives ib_srp, fast registration (1) or only the
# unsafe global rkey (0); see tests/testbed/guest/srp.sh.  last: it leaves
# IB_PORT_DEVICE_MGMT_SUP set while ib_srpt is loaded and loads the target
# core, so it runs after the boot's other items.
SRP_FR = 1
for k, tier in (("6.1", "both"), ("6.12", "full")):
    g.item("srp-" + k, inbox(k), TB + "/srp.sh", env={"SRP_FR": SRP_FR}, last=True, tier=tier)

# --- our stack, compared with the in-tree one -----------------------------------------
g = group("sysfs", "/sys/class/infiniband/mlx4_0, /sys/class/net/ib0 and its child's, ethtool's "
          "outputs of ib0, of ours against the in-tree stack's")
for k, tier in (("6.1", "both"), ("6.12", "full")):
    g.item("sysfs-inbox-" + k, inbox(k), ST + "/sysfs-tree.sh", out="file", tier=tier,
           first=True)
    g.item("sysfs-ours-" + k, ours(k), ST + "/sysfs-tree.sh", out="file", tier=tier,
           first=True)
    g.compare("sysfs-" + k, cmp_sysfs("sysfs-" + k, "sysfs-inbox-" + k, "sysfs-ours-" + k),
              ["sysfs-inbox-" + k, "sysfs-ours-" + k], tier=tier)
    for what, suffix in (("ib0", "-ib0.txt"), ("ib0.8001", "-ib0.8001.txt"), ("ethtool", "-ethtool")):
        nm = "sysfs-%s-%s" % (what, k)
        g.compare(nm, cmp_net(nm, "sysfs-inbox-" + k, "sysfs-ours-" + k, suffix),
                  ["sysfs-inbox-" + k, "sysfs-ours-" + k], tier=tier)
    g.compare("sysfs-irq-" + k, cmp_lines("sysfs-irq-" + k, "sysfs-inbox-" + k, "sysfs-ours-" + k,
                                          "-irq.txt", "the interrupts' names in /proc/interrupts"),
              ["sysfs-inbox-" + k, "sysfs-ours-" + k], tier=tier)

g = group("diags", "infiniband-diags under ours against the in-tree stack, field by field")
for k in ("6.1", "6.12"):
    t1 = "both" if k == "6.1" else "full"
    a, b = "diags-inbox-1node-" + k, "diags-ours-1node-" + k
    g.item(a, inbox(k), ST + "/diags.sh", out="dir", tier=t1, first=True)
    g.item(b, ours(k), ST + "/diags.sh", out="dir", tier="both", first=True)
    g.compare("diags-1node-" + k, cmp_diags("diags-1node-" + k, a, b), [a, b], tier=t1)
    a, b = "diags-inbox-2node-" + k, "diags-ours-2node-" + k
    g.item(a, inbox(k, nodes=2), ST + "/diags.sh", out="dir", tier=t1, first=True)
    g.item(b, ours(k, nodes=2), ST + "/diags.sh", out="dir", tier=t1, first=True)
    for n in (1, 2):
        nm = "diags-2node-%s-node%d" % (k, n)
        g.compare(nm, cmp_diags(nm, a, b, n), [a, b], tier=t1)

g = group("failover", "two nodes: opensm moves from node 1 to node 2, ports stay ACTIVE")
g.item("failover-ours-6.1", ours(nodes=2), ST + "/failover.sh")
g.item("failover-inbox-6.1", inbox(nodes=2), ST + "/failover.sh", tier="full")
g.item("failover-ours-6.12", ours("6.12", nodes=2), ST + "/failover.sh", tier="full")
# (a port's transmit discards after the move: a MAD of the stopping SM's
# sweep caught in flight by the move is discarded at its port, or not,
# under either stack: check-full saw the in-tree stack's node count one
# where ours had none, and the runs before it none under both)
for n in (1, 2):
    nm = "failover-6.1-node%d" % n
    g.compare(nm, cmp_diags(nm, "failover-inbox-6.1", "failover-ours-6.1", n, sub="diags-failover",
                            more_skip=("*perfquery-*:PortXmitDiscards",)),
              ["failover-inbox-6.1", "failover-ours-6.1"], tier="full")

# one node without an SM, for the tests that remove and add the device
# under the stack's feet: the modprobe cycles (last), the add-window events,
# a catastrophic error during the removal or found by a command timeout
NOSM = ours(sm=False, part="modprobe")

g = group("modprobe", "modprobe -r / modprobe cycles, the model's accounting after each unload; "
          "each allocation of an EQ's creation failing (debug kernel)")
# failslab and fail-nth exist on the debug kernel only
g.item("eq-enomem-6.1-debug", dataclasses.replace(NOSM, kernel="6.1-debug"), ST + "/eq-enomem.sh",
       tier="debug", timeout=1800)
# first in the cycles' boot: rmmod mlx4_ib waits for a held device
# reference while another client registers, then mlx4_ib is loaded again
g.item("unreg-ours-6.1", NOSM, "tests/kverbs/guest/kverbs-unreg.sh", needs=("kverbs",))
# (unloads: one per cycle; the script's final unload stands for the boot's
# closing one, which finds nothing loaded)
g.item("modprobe-ours-6.1", ours(sm=False, part="modprobe"), ST + "/modprobe-cycle.sh",
       env={"CYCLES": 10}, last=True, unloads=10, tier="check", timeout=900)
for k in ("6.1", "6.12"):
    g.item("modprobe50-ours-" + k, ours(k, sm=False, part="modprobe"), ST + "/modprobe-cycle.sh",
           env={"CYCLES": 50}, last=True, unloads=50, tier="full", timeout=1500)
g.item("modprobe-inbox-6.1", inbox(sm=False, part="modprobe"), TB + "/modprobe-cycle.sh",
       env={"CYCLES": 20}, last=True, unloads=21, tier="full", timeout=900)

g = group("events", "port events on a cable pull and replug")
g.item("events-ours-6.1", ours(), ST + "/cable-events.sh", needs=("kverbs",))
g.item("add-events-6.1", NOSM, ST + "/add-events.sh", needs=("kverbs",))
g.item("events-inbox-6.1", inbox(), ST + "/cable-events.sh", env={"EVENTS": "asyncwatch"}, tier="full")
g.item("events-ours-6.12", ours("6.12"), ST + "/cable-events.sh", needs=("kverbs",), tier="full")

g = group("catas", "a catastrophic error: fatal event, remove, reset, add, ports back, traffic")
g.item("catas-ours-6.1", ours(), ST + "/catas.sh", needs=("kverbs",), after=catas_reset, timeout=900)
g.item("kverbs-catas-6.1", ours(), "tests/kverbs/guest/kverbs-catas.sh", needs=("kverbs",),
       after=catas_reset, timeout=900)
# (its unbind releases the card without CLOSE_HCA: the firmware is dead,
# so it declares no unload)
g.item("catas-remove-6.1", NOSM, ST + "/catas-remove.sh", needs=("kverbs",), after=catas_reset)
g.item("catas-timeout-6.1", NOSM, ST + "/catas-timeout.sh", needs=("kverbs",), after=catas_reset)
g.item("catas-inbox-6.1", inbox(), ST + "/catas.sh", env={"EVENTS": "asyncwatch"},
       after=catas_reset, tier="full", timeout=900)
g.item("catas-ours-6.12", ours("6.12"), ST + "/catas.sh", needs=("kverbs",), after=catas_reset,
       tier="full", timeout=900)
g.item("kverbs-catas-6.12", ours("6.12"), "tests/kverbs/guest/kverbs-catas.sh", needs=("kverbs",),
       after=catas_reset, tier="full", timeout=900)

g = group("faults", "faults injected in the model (issue 18): command error statuses and a hung "
          "command, a failed closing command, an EQ overrun, a flapping port, a burst of loss; "
          "the stack works afterwards")
for s in ("fault-eq", "fault-flap", "fault-burst", "fault-cmd", "fault-teardown"):
    g.item(s + "-ours-6.1", ours(), ST + "/" + s + ".sh", env={"EVENTS": "asyncwatch"}, timeout=900,
           tier="both")
    g.item(s + "-inbox-6.1", inbox(), ST + "/" + s + ".sh", env={"EVENTS": "asyncwatch"},
           tier="full", timeout=900)

g = group("wirefuzz", "the wire fuzzer: the model injects random and mutated MADs, CM messages "
          "and IPoIB datagrams at port 1; the stack survives and keeps working")
# (tests/cx3/cx3_wirefuzz.c; tests/stack/guest/wirefuzz.sh prints its seed:
# replay with WIREFUZZ_SEED and WIREFUZZ_N).  100k packets on ours in make
# check, 1M per kernel on ours and the in-tree 6.1 in check-full.
g.item("wirefuzz-ours-6.1", ours(), ST + "/wirefuzz.sh", env={"WIREFUZZ_N": "100000"},
       tier="check", timeout=900)
# regression: seed 507069098's CM messages left a cm_id (a SIDR REQ to
# IPoIB's service ID) and GID attribute references (CM address vectors
# with a GRH) at unload: the boot's unload item sees the splat
g.item("wirefuzz-cm-seed-ours-6.1", ours(), ST + "/wirefuzz.sh",
       env={"WIREFUZZ_N": "8000", "WIREFUZZ_SEED": "507069098", "WIREFUZZ_KIND": "cm"},
       tier="both", timeout=900)
# regression (debug kernel: KASAN): seed 339926461's connected half had a
# passive QP, already in error, destroyed by the reap task while
# ipoib_cm_stop moved it to the error state (a use-after-free)
g.item("wirefuzz-reap-seed-6.1-debug", ours("6.1-debug"), ST + "/wirefuzz.sh",
       env={"WIREFUZZ_N": "100000", "WIREFUZZ_SEED": "339926461"}, tier="debug", timeout=1200)
for k in ("6.1", "6.12"):
    g.item("wirefuzz-full-ours-" + k, ours(k), ST + "/wirefuzz.sh", env={"WIREFUZZ_N": "1000000"},
           tier="full", timeout=3600)
g.item("wirefuzz-inbox-6.1", inbox(), ST + "/wirefuzz.sh", env={"WIREFUZZ_N": "1000000"},
       tier="full", timeout=3600)

g = group("kfaults", "the kernel's fault injection (debug kernel) on our modules: every fault point "
          "of single verbs and umad operations (fail-nth), a sample over the whole bring-up, "
          "atomic allocations failing under IPoIB traffic in both modes")
# failslab, fail_page_alloc and fail-nth exist on the debug kernel only; the
# sweeps and the bring-up share one boot (the bring-up last: it unbinds the
# card and rebinds it); IPoIB on two nodes
KF = ours("6.1-debug", part="kfault")
g.step("failnth-build", failnth_build, tier="debug")
g.item("failnth-6.1-debug", KF, ST + "/failnth.sh", tier="debug", timeout=1200)
g.item("bringup-enomem-6.1-debug", KF, ST + "/bringup-enomem.sh", tier="debug", timeout=1200,
       last=True, unloads=1)
g.item("ipoib-kfault-6.1-debug", ours("6.1-debug", nodes=2, part="kfault"),
       "tests/ipoib/guest/ipoib-kfault.sh", tier="debug", timeout=1200)

g = group("kverbs", "the kernel verbs self-test (tests/kverbs) on one node and across two")
g.item("kverbs-ours-6.1", ours(), ST + "/kverbs-selftest.sh", needs=("kverbs",), timeout=900)
g.item("kverbs-2node-6.1", ours(nodes=2), "tests/kverbs/guest/kverbs-2node.sh", needs=("kverbs",))
g.item("kverbs-lossy-6.1", ours(nodes=2), "tests/kverbs/guest/kverbs-lossy.sh", needs=("kverbs",))
# the 6.12 smoke of make check: our stack loads under opensm, the self-test
# runs, and MADs flow (diags-ours-1node-6.12 above)
g.item("kverbs-ours-6.12", ours("6.12"), ST + "/kverbs-selftest.sh", needs=("kverbs",), timeout=900)
g.item("kverbs-2node-6.12", ours("6.12", nodes=2), "tests/kverbs/guest/kverbs-2node.sh",
       needs=("kverbs",), tier="full")
g.item("kverbs-lossy-6.12", ours("6.12", nodes=2), "tests/kverbs/guest/kverbs-lossy.sh",
       needs=("kverbs",), tier="full")

g = group("kmad", "ib_mad's test module: agents, SMPs, GSI sends, timeouts, RMPP")
for k, tier in (("6.1", "both"), ("6.12", "full")):
    g.item("kmad-ours-" + k, ours(k), "tests/kmad/guest/kmad-1node.sh", env={"SM_STOP": 1},
           last=True, tier=tier)

g = group("umad", "/dev/infiniband/umadN and issmN from user space (tests/umad/umadtest)")
g.step("umad-build", umadtest_build)
for k, s, tier in (("6.1", "ours", "both"), ("6.1", "inbox", "full"), ("6.12", "ours", "full")):
    boot = ours(k) if s == "ours" else inbox(k)
    g.item("umad-%s-%s" % (s, k), boot, "tests/umad/guest/umad-tests.sh",
           env={"STACK": s}, needs=("umadtest",), tier=tier)
    g.item("umad-removal-%s-%s" % (s, k), boot, "tests/umad/guest/umad-tests.sh",
           env={"STACK": s, "SM_STOP": 1, "TESTS": "issm basic rmpp-loop removal", "CATAS": 1,
                "UNLOAD": 1}, needs=("umadtest",), last=True, unloads=1, tier=tier)
# the fuzzer (tests/umad/umadfuzz*.c), its expectations 6.1's: 100k
# operations on ours in make check, 1M per kernel on ours and 100k on the
# in-tree 6.1 in check-full
g.step("umadfuzz-build", umadfuzz_build)
g.item("umadfuzz-ours-6.1", ours(), "tests/umad/guest/umadfuzz.sh",
       env={"STACK": "ours", "UMADFUZZ_N": "100000"}, tier="check", timeout=900)
for k in ("6.1", "6.12"):
    g.item("umadfuzz-full-ours-" + k, ours(k), "tests/umad/guest/umadfuzz.sh",
           env={"STACK": "ours", "UMADFUZZ_N": "1000000"}, tier="full", timeout=3600)
g.item("umadfuzz-inbox-6.1", inbox(), "tests/umad/guest/umadfuzz.sh",
       env={"STACK": "inbox", "UMADFUZZ_N": "100000"}, tier="full", timeout=600)

g = group("sa", "ib_sa through its test module: path records, multicast groups, rejoins")
for k, tier in (("6.1", "both"), ("6.12", "full")):
    g.item("sa-ours-" + k, ours(k), "tests/ksa/guest/ksa-sa.sh", needs=("ksa",), tier=tier)
    g.item("sa-2node-ours-" + k, ours(k, nodes=2), "tests/ksa/guest/ksa-sa.sh", needs=("ksa",),
           tier=tier, timeout=900)
# make check's short debug-kernel run (in kverbs' debug boot): the calls
# IPoIB makes with a spinlock held, where sleeping in them is reported
g.item("sa-atomic-6.1-debug", ours("6.1-debug"), "tests/ksa/guest/ksa-sa.sh",
       env={"PARTS": "atomic"}, needs=("ksa",))

g = group("cm", "ib_cm through its test module: the protocol between a card's two ports and "
          "between two nodes, sysfs")
for k, tier in (("6.1", "both"), ("6.12", "full")):
    g.item("cm-ours-" + k, ours(k), "tests/kcm/guest/kcm-1node.sh", needs=("kcm",), tier=tier)
    g.item("cm-2node-ours-" + k, ours(k, nodes=2), "tests/kcm/guest/kcm-2node.sh", needs=("kcm",),
           tier=tier)

g = group("mixed", "ours on one node, the in-tree stack on the other, cabled; opensm on node 1")
for order, tier in ((("inbox", "ours"), "both"), (("ours", "inbox"), "full")):
    tag = "+".join(order)
    boot = Boot(stacks=order, nodes=2)
    g.item("mixed-diags-" + tag, boot, ST + "/diags.sh", out="dir", tier=tier, first=True)
    g.item("mixed-failover-" + tag, boot, ST + "/failover.sh", tier=tier)
    for n in (1, 2):
        # each node's view against the same node's in an in-tree fabric
        nm = "mixed-diags-%s-node%d" % (tag, n)
        g.compare(nm, cmp_diags(nm, "diags-inbox-2node-6.1", "mixed-diags-" + tag, n,
                                "inbox fabric", ",".join(order) + " fabric"),
                  ["diags-inbox-2node-6.1", "mixed-diags-" + tag], tier=tier)

def upstream_ipoib(k):
    """Linux 6.1's own IPoIB built against our development tree for
    kernel k (tests/upstream-ipoib/build.sh: docs/kernel-api.md 6.1, 6.2)"""
    def run(ctx):
        rel = release(k)
        if not rel:
            yield "FAIL upstream-ipoib %s: no %s kernel installed" % (k, k)
            return
        r = sh([os.path.join(TOP, "tests/upstream-ipoib/build.sh"), rel])
        yield from r.stdout.splitlines()
        if r.returncode != 0:
            yield "FAIL upstream-ipoib %s: tests/upstream-ipoib/build.sh exited %d" % (rel, r.returncode)
    return run


def upstream_ipoib_expect(k):
    rel = re.escape(release(k) or "no-%s-kernel" % k)
    return tuple(r"^PASS upstream-ipoib %s %s:" % (rel, c)
                 for c in ("build", "modpost", "depends", "imports", "ulp-check", "self-check"))


g = group("ipoib-upstream", "Linux 6.1's own IPoIB (connected mode over our ib_cm) built against "
          "our development tree and run on our stack: ib0, ping, TCP in both modes, a new SM, rmmod")
for k, tier in (("6.1", "both"), ("6.12", "full"), ("6.1-debug", "debug")):
    g.step("upstream-ipoib-" + k, upstream_ipoib(k), tier=tier, expect=upstream_ipoib_expect(k))
# on two nodes of ours; then, in the mixed fabric's boots, against the
# kernel's own IPoIB on the other node (a peer nobody here wrote)
for k, tier in (("6.1", "both"), ("6.12", "full")):
    g.item("ipoib-upstream-" + k, ours(k, nodes=2), "tests/upstream-ipoib/guest/ipoib-upstream.sh",
           needs=("upstream-ipoib",), tier=tier, timeout=900)
# upstream's IPoIB on node 1 against our own ib_ipoib on node 2
g.item("ipoib-upstream-vs-ours-6.1", ours("6.1", nodes=2), "tests/upstream-ipoib/guest/ipoib-upstream.sh",
       env={"UPSTREAM_NODES": "1"}, needs=("upstream-ipoib",), tier="full", timeout=900)
for order in (("inbox", "ours"), ("ours", "inbox")):
    g.item("ipoib-upstream-mixed-" + "+".join(order), Boot(stacks=order, nodes=2),
           "tests/upstream-ipoib/guest/ipoib-upstream.sh", needs=("upstream-ipoib",), tier="full",
           timeout=900)

IP = "tests/ipoib/guest"
g = group("ipoib", "our ib_ipoib (ipoib/): ib0's identity, MTU rules, ethtool, debugfs, ping, "
          "ping6, TCP over IPv4 and IPv6 in both modes and at the 4K MTU; P_Key children; a "
          "stream through faults; two nodes of ours and mixed fabrics")
for k, tier in (("6.1", "both"), ("6.12", "full")):
    g.item("ipoib-ib0-ours-" + k, ours(k, nodes=2), IP + "/ipoib-ib0.sh", tier=tier,
           timeout=900)
# the same expectations hold for the in-tree IPoIB on the other node
for order, tier in ((("inbox", "ours"), "both"), (("ours", "inbox"), "full")):
    g.item("ipoib-ib0-mixed-" + "+".join(order), Boot(stacks=order, nodes=2),
           IP + "/ipoib-ib0.sh", tier=tier, timeout=900)
# a TCP stream through mode switches, a cable pull, the SM moving, a client
# reregister, a catastrophic error and rmmod; then 50 load/unload cycles
# (make check-full: the faults and the children's churn take minutes each)
g.item("ipoib-faults-ours-6.1", ours("6.1", nodes=2), IP + "/ipoib-faults.sh",
       after=catas_reset, tier="full", timeout=1800)
g.item("ipoib-faults-ours-6.12", ours("6.12", nodes=2), IP + "/ipoib-faults.sh",
       after=catas_reset, tier="full", timeout=1800)
g.item("ipoib-faults-mixed-inbox+ours", Boot(stacks=("inbox", "ours"), nodes=2),
       IP + "/ipoib-faults.sh", after=catas_reset, tier="full", timeout=1800)
# P_Key children (legacy and rtnl) under opensm's partition 0x8001, and their churn
for k in ("6.1", "6.12"):
    g.item("ipoib-child-ours-" + k, ours(k, nodes=2), IP + "/ipoib-child.sh", tier="full",
           timeout=1200)
g.item("ipoib-child-mixed-inbox+ours", Boot(stacks=("inbox", "ours"), nodes=2),
       IP + "/ipoib-child.sh", tier="full", timeout=1200)
# the fuzzer of rtnetlink, sysfs and the ioctls (tests/ipoib/ipfuzz*.c), its
# expectations 6.1's: 100k operations on ours in make check, 1M per kernel
# on ours and 100k on the in-tree 6.1 (the judge) in check-full
g.step("ipfuzz-build", ipfuzz_build)
g.item("ipfuzz-ours-6.1", ours(), IP + "/ipfuzz.sh", env={"STACK": "ours", "IPFUZZ_N": "100000"},
       tier="check", timeout=900)
for k in ("6.1", "6.12"):
    g.item("ipfuzz-full-ours-" + k, ours(k), IP + "/ipfuzz.sh",
           env={"STACK": "ours", "IPFUZZ_N": "1000000"}, tier="full", timeout=5400)
g.item("ipfuzz-inbox-6.1", inbox(), IP + "/ipfuzz.sh", env={"STACK": "inbox", "IPFUZZ_N": "100000"},
       tier="full", timeout=900)

UV = "tests/uverbs/guest"
g = group("uverbs", "ib_uverbs and mlx4_ib's user ABI (ours): ibv_devinfo against the in-tree "
          "stack's, the pingpongs, perftest, BlueFlame, the test tool (root, unprivileged, memlock), "
          "removal and catastrophic errors under running programs; two nodes, mixed fabrics")
g.step("uverbs-build", uvtool_build)
for k, tier in (("6.1", "both"), ("6.12", "full")):
    a, b = "devinfo-inbox-" + k, "devinfo-ours-" + k
    g.item(a, inbox(k), UV + "/devinfo-dump.sh", out="dir", tier=tier, first=True)
    g.item(b, ours(k), UV + "/devinfo-dump.sh", out="dir", tier=tier, first=True)
    g.compare("devinfo-" + k, cmp_devinfo("devinfo-" + k, a, b), [a, b], tier=tier)
    g.item("pingpong-ours-" + k, ours(k), TB + "/pingpong.sh", tier=tier, timeout=900)
    g.item("perftest-ours-" + k, ours(k), TB + "/perftest.sh", tier=tier, timeout=900)
    g.item("blueflame-ours-" + k, ours(k), TB + "/blueflame.sh", tier=tier)
    g.item("uvtool-ours-" + k, ours(k), UV + "/uvtool.sh", env={"STACK": "ours"},
           needs=("uvtool",), tier=tier, timeout=900)
    g.item("unpriv-ours-" + k, ours(k), UV + "/unpriv.sh", tier=tier)
    # rdma-core's own suite, judged as under the in-tree stack
    g.item("rdmacore-ours-" + k, ours(k), TB + "/rdmacore-tests.sh", env={"STACK": "ours"},
           tier=tier, timeout=900)
    g.item("removal-unload-ours-" + k, ours(k), UV + "/removal.sh", env={"MODE": "unload"},
           tier=tier)
    g.item("removal-catas-ours-" + k, ours(k), UV + "/removal.sh", env={"MODE": "catas"},
           after=catas_reset, tier=tier)
    g.item("pingpong-2node-ours-" + k, ours(k, nodes=2), TB + "/pingpong.sh", tier=tier,
           timeout=900)
    g.item("perftest-2node-ours-" + k, ours(k, nodes=2), TB + "/perftest.sh",
           env={"MATRIX": "uverbs"}, tier=tier, timeout=2400)
# the tool's expectations are upstream's: it passes on the in-tree stack
g.item("uvtool-inbox-6.1", inbox(), UV + "/uvtool.sh", env={"STACK": "inbox"},
       needs=("uvtool",), tier="full", timeout=900)
# the fuzzer (tests/uverbs/uvfuzz*.c): 100k operations in make check, 1M per
# kernel in check-full (each as root, then a tenth as nobody), its seed
# printed; the in-tree stack takes its 100k too (the expectations are 6.1's)
g.step("uvfuzz-build", uvfuzz_build)
g.item("uvfuzz-ours-6.1", ours(), UV + "/uvfuzz.sh", env={"UVFUZZ_N": "100000"},
       needs=("uvfuzz",), tier="check", timeout=2400)
for k in ("6.1", "6.12"):
    g.item("uvfuzz-full-ours-" + k, ours(k), UV + "/uvfuzz.sh", env={"UVFUZZ_N": "1000000"},
           needs=("uvfuzz",), tier="full", timeout=5400)
g.item("uvfuzz-inbox-6.1", inbox(), UV + "/uvfuzz.sh", env={"UVFUZZ_N": "100000"},
       needs=("uvfuzz",), tier="full", timeout=2400)
# against a peer nobody here wrote, in both orders
for order, tier in ((("inbox", "ours"), "both"), (("ours", "inbox"), "full")):
    tag = "+".join(order)
    boot = Boot(stacks=order, nodes=2)
    g.item("pingpong-mixed-" + tag, boot, TB + "/pingpong.sh", tier=tier, timeout=900)
    g.item("perftest-mixed-" + tag, boot, TB + "/perftest.sh", env={"MATRIX": "bw"},
           tier=tier, timeout=1200)



NL = "tests/netlink/guest"


def cmp_rdma(name, ref, test):
    return lambda ctx: compare_rdma(name, ctx.out_path(ref), ctx.out_path(test))


g = group("netlink", "RDMA netlink: the rdma tool's every show command (IPoIB's and a user "
          "program's objects) under ours against the in-tree stack, field by field; netlink "
          "by hand, libibverbs' discovery, a rename under a running program")
for k, tier in (("6.1", "both"), ("6.12", "full")):
    a, b = "rdma-inbox-" + k, "rdma-ours-" + k
    g.item(a, inbox(k), NL + "/rdma-dump.sh", out="dir", tier=tier, first=True)
    g.item(b, ours(k), NL + "/rdma-dump.sh", out="dir", tier=tier, first=True)
    g.compare("rdma-" + k, cmp_rdma("rdma-" + k, a, b), [a, b], tier=tier)
    # netlink by hand (tests/netlink/nlcheck.py), libibverbs' discovery, a rename
    g.item("nl-user-ours-" + k, ours(k), NL + "/nl-user.sh", env={"STACK": "ours"}, tier=tier)
# the expectations are upstream's: they hold under the in-tree stack
g.item("nl-user-inbox-6.1", inbox(), NL + "/nl-user.sh", env={"STACK": "inbox"}, tier="full")
# the fuzzer: 100k requests in make check, 1M in make check-full (root with
# the writes, and nobody); the in-tree stack takes its 100k too
g.step("nlfuzz-build", nlfuzz_build)
g.item("nlfuzz-ours-6.1", ours(), NL + "/nlfuzz.sh", env={"NLFUZZ_N": "100000"},
       needs=("nlfuzz",), tier="check", timeout=1800)
for k in ("6.1", "6.12"):
    g.item("nlfuzz-full-ours-" + k, ours(k), NL + "/nlfuzz.sh", env={"NLFUZZ_N": "1000000"},
           needs=("nlfuzz",), tier="full", timeout=5400)
g.item("nlfuzz-inbox-6.1", inbox(), NL + "/nlfuzz.sh",
       env={"NLFUZZ_N": "100000", "NLFUZZ_WRITES": "0"}, needs=("nlfuzz",), tier="full",
       timeout=1800)

g = group("boot", "Debian's rdma-core plumbing at boot (tests/vm/run --boot systemd): udev loads "
          "the stack, rdma_rename names the device, rdma-ndd, /dev/infiniband's modes and links, "
          "opensm from its unit; ours and, as the judge, the in-tree stack")
for k, tier in (("6.1", "both"), ("6.12", "full")):
    for st in ("ours", "inbox"):
        g.item("plumbing-%s-%s" % (st, k), Boot(kernel=k, stacks=(st,), init="systemd"),
               "tests/boot/guest/plumbing.sh", env={"STACK": st},
               tier=tier if st == "ours" else "full")

g = group("kernels", "the other Debian kernels (5.10, 6.12-trixie, 7.2, 7.3): ours under opensm, "
          "the kverbs self-test, the umad tool, the diags against the in-tree stack's")
g.step("umad-build-kernels", umadtest_build, tier="full")
for k in OTHER_KERNELS:
    a, b = "diags-inbox-1node-" + k, "diags-ours-1node-" + k
    g.item(a, inbox(k), ST + "/diags.sh", out="dir", tier="full", first=True)
    g.item(b, ours(k), ST + "/diags.sh", out="dir", tier="full", first=True)
    g.compare("diags-1node-" + k, cmp_diags("diags-1node-" + k, a, b), [a, b], tier="full")
    g.item("kverbs-ours-" + k, ours(k), ST + "/kverbs-selftest.sh", needs=("kverbs",),
           tier="full", timeout=900)
    g.item("umad-ours-" + k, ours(k), "tests/umad/guest/umad-tests.sh", env={"STACK": "ours"},
           needs=("umadtest",), tier="full")

# make bench's smoke: one round of each stack with short measurements, in
# bench/run's own boot of two nodes (its host side answers the guests'
# counter requests); no CPU hog round.  A user checks that the table and the
# chart come out and that every metric has a figure for both stacks.
BENCH_METRICS = (
    ["bring-up: to registered", "bring-up: to ACTIVE", "bring-up: firmware commands",
     "bring-up: slab", "unload", "slab per 1000 QPs", "SMP NodeInfo to the peer",
     "SA PathRecord queries", "ibping flood", "ib_write_bw 64B 4 QPs msg rate"] +
    ["verbs %s x%d" % (t, n) for n in (1, 4)
     for t in ("pd", "cq", "qp", "mr-4k", "mr-64m", "mr-1g", "mr-64m-huge", "mr-1g-huge")
     if n == 1 or "1g" not in t] +
    ["%s %dB" % (b, s) for b in ("ib_write_bw", "ib_send_bw", "ib_read_bw")
     for s in (64, 4096, 65536)] +
    ["%s 8B" % p for p in ("ib_send_lat", "ib_write_lat", "ib_read_lat")] +
    ["IPoIB %s TCP %s" % (m, n) for m in ("datagram", "connected") for n in ("1 stream", "4 streams")] +
    ["IPoIB datagram CPU s per GB", "IPoIB connected CPU s per GB", "IPoIB UDP 64B packets/s",
     "IPoIB ping rtt"])


def bench_smoke(ctx):
    res = os.path.join(TOP, "build/bench/smoke-results")
    sh(["rm", "-rf", res])
    env = dict(os.environ, BENCH_ROUNDS="1", BENCH_HOG_ROUNDS="0", BENCH_SECS="0.2",
               BENCH_OUT=res)
    r = sh([os.path.join(TOP, "bench/run")], env=env)
    tail = ["    " + x for x in r.stdout.splitlines()[-15:]]
    if r.returncode:
        yield "FAIL bench smoke: bench/run exited %d" % r.returncode
        yield from tail
    else:
        yield "PASS bench smoke: bench/run exited 0"
    vals = {}
    try:
        with open(os.path.join(res, "samples.jsonl")) as f:
            for line in f:
                rec = json.loads(line)
                if "metric" in rec:
                    vals.setdefault(rec["metric"], {})[rec["stack"]] = rec["value"]
    except (OSError, ValueError) as e:
        yield "FAIL bench smoke samples: %s" % e
    for m in BENCH_METRICS:
        got = vals.get(m, {})
        bad = [st for st in ("ours", "inbox")
               if not isinstance(got.get(st), (int, float)) or not got[st] > 0
               or got[st] == float("inf")]
        if bad:
            yield "FAIL bench smoke metric %s: no positive figure for %s (%s)" % (m, " ".join(bad), got)
        else:
            yield "PASS bench smoke metric %s: ours %.4g, in-tree %.4g" % (m, got["ours"], got["inbox"])
    try:
        with open(os.path.join(res, "table.md")) as f:
            rows = [ln for ln in f if ln.startswith("| ") and not ln.startswith("| metric")]
        miss = [m for m in BENCH_METRICS if not any(ln.startswith("| %s |" % m) for ln in rows)]
        if miss:
            yield "FAIL bench smoke table: no row for %s" % ", ".join(miss)
        else:
            yield "PASS bench smoke table: a row for each of the %d metrics" % len(BENCH_METRICS)
    except OSError as e:
        yield "FAIL bench smoke table: %s" % e
    try:
        with open(os.path.join(res, "chart.png"), "rb") as f:
            head = f.read(8)
        if head == b"\x89PNG\r\n\x1a\n":
            yield "PASS bench smoke chart: chart.png is a PNG"
        else:
            yield "FAIL bench smoke chart: chart.png is not a PNG (%r)" % head
    except OSError as e:
        yield "FAIL bench smoke chart: %s" % e


g = group("bench", "make bench's smoke: one short round of each stack (bench/run), "
          "the table and the chart")
g.step("bench-smoke", bench_smoke, when="after", tier="both",
       expect=(r"^PASS bench smoke: bench/run exited 0", r"^PASS bench smoke table:",
               r"^PASS bench smoke chart:") +
       tuple(r"^PASS bench smoke metric %s:" % re.escape(m) for m in BENCH_METRICS))

g = group("dkms", "the DKMS package built, installed and loaded (installs into /lib/modules: last); "
          "the Debian package (make deb) installed, loaded and purged; "
          "built and installed in each other release's environment")
g.step("dkms-6.1", dkms(("6.1",)), when="last", tier="check", expect=dkms_expect(("6.1",)))
g.step("dkms", dkms(("6.1", "6.12")), when="last", tier="full", expect=dkms_expect(("6.1", "6.12")))
g.step("deb-6.1", deb(("6.1",)), when="last", tier="check", expect=deb_expect(("6.1",)))
g.step("deb", deb(("6.1", "6.12"), reinstall=True), when="last", tier="full",
       expect=deb_expect(("6.1", "6.12"), reinstall=True))
g.step("dkms-envs", dkms_envs, when="last", tier="full", expect=dkms_envs_expect())


g = group("races", "concurrency stress (tests/stack/guest/race.sh, tests/stack/racer.c): a close, exit "
          "or kill against a blocked read (umad, async event, completion channel); two threads "
          "destroying one object; device removal under threads calling uverbs and umad, under a "
          "ping flood over ib0 in connected mode; modprobe -r under open files")
g.step("racer-build", racer_build)
# make check: one iteration of each case on 6.1, in the boot's main list
# (a "last" item would cost a boot of its own): it leaves the boot as it
# found it (mlx4_0 back, ports ACTIVE under opensm on port 1, ib0 and ib1
# in datagram mode without addresses), but registers mlx4_0 again, so the
# group is declared after all others whose items share the boot.  The
# debug kernel's run: about a minute of each case, in a boot of its own.
# (first removal an unbind: one CLOSE_HCA each)
g.item("race-short-ours-6.1", ours(), ST + "/race.sh", env={"RACE_N": 1, "RACE_SECS": 5},
       needs=("racer",), unloads=1, tier="check", timeout=600)
g.item("race-ours-6.1-debug", ours("6.1-debug"), ST + "/race.sh", env={"RACE_SECS": 60},
       needs=("racer",), last=True, unloads=1, tier="debug", timeout=2400)


# === the debug kernel ===============================================================
# make check-debug: every item of make check that runs our stack on 6.1
# runs again on the debug kernel (tests/setup/debug-kernel.sh), where
# lockdep, KASAN, kmemleak, debugobjects and UBSAN judge it: any report
# fails the boot (tests/vm/run).  Not the comparisons with the in-tree
# stack: 6.1's boots make them, and the debug kernel is about our code.
# DEBUG_IN_CHECK: those that make check and check-full run there too, as
# the representative of the rest (the README says why these).
DEBUG_GROUPS = ("sysfs", "diags", "failover", "modprobe", "events", "catas", "faults", "wirefuzz",
                "kverbs", "kmad", "cm", "umad", "sa", "mixed", "ipoib-upstream", "ipoib", "uverbs", "netlink")
DEBUG_IN_CHECK = ("kverbs-ours-6.1",)


def debug_tier():
    for g in GROUPS:
        if g.name not in DEBUG_GROUPS:
            continue
        for st in list(g.steps):
            if st.when == "before" and in_tier(st.tier, "check"):
                g.steps.append(dataclasses.replace(st, tier="debug"))
        for it in list(g.items):
            if it.boot.kernel != "6.1" or not it.boot.has_ours() or not in_tier(it.tier, "check"):
                continue
            name = it.name + ("-debug" if it.name.endswith("-6.1") else "-6.1-debug")
            # (twice the time: KASAN and lockdep slow every path, e.g.
            # ipfuzz's 100k operations take 880 s there, 150 s on 6.1)
            g.items.append(dataclasses.replace(
                it, name=name, boot=dataclasses.replace(it.boot, kernel="6.1-debug"),
                tier="all" if it.name in DEBUG_IN_CHECK else "debug", timeout=2 * it.timeout))


debug_tier()


def debugcheck(ctx):
    r = sh([os.path.join(TOP, "tests/debugcheck/run.sh")])
    yield from r.stdout.splitlines()
    if r.returncode != 0:
        yield "FAIL debugcheck: tests/debugcheck/run.sh exited %d" % r.returncode


g = group("debugcheck", "the debug kernel's checkers: each one's report fails a run (tests/debugcheck)")
g.step("debugcheck", debugcheck, tier="debug",
       expect=tuple(r"^PASS debugcheck: %s: reported" % c
                    for c in ("PROVE_LOCKING", "DEBUG_ATOMIC_SLEEP", "DEBUG_OBJECTS", "DEBUG_LIST",
                              "UBSAN", "KASAN", "KMEMLEAK")) + (r"^PASS debugcheck: the run failed",))

# SPDX-License-Identifier: GPL-2.0
"""The engine of tests/run-checks: groups, their items and boots.

A group is one concern of the suite (devinfo, diags, kverbs, ...).  It is
made of
  - items: one guest script run in a VM, under a Boot (kernel, stacks per
    node, node count, SM, cabling, model options).  Items whose Boot is
    the same share one VM run (tests/vm/run ... -- tests/vm/items FILE),
    each still reported on its own;
  - host steps: a command or a function run on the host (unit tests, the
    build checks, DKMS), before the boots or after them;
  - comparisons: functions run once the items they read are done.
Each of them carries its tier: "both" (make check and make check-full),
"check" (make check only: a cheaper variant that check-full replaces),
"full" (make check-full only), "debug" (make check-debug only: the debug
kernel) or "all" (all three).  The tier is declared with the item, in the
group's definition (tests/suite/groups.py), nowhere else.

Every check prints one "PASS ..." or "FAIL ...: why" line.  What must be
reported is declared: a guest script plans its checks (lib.sh: plan), an
item must reach its end line with status 0 on every node, a host step
names the results it must print (expect=), a boot must come back clean.
"""
import dataclasses
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# an item's tier -> the runs (--tier) that include it
TIERS = {"both": ("check", "full"), "check": ("check",), "full": ("full",),
         "debug": ("debug",), "all": ("check", "full", "debug")}


@dataclasses.dataclass(frozen=True)
class Boot:
    """What a VM run looks like; items with equal Boots share one run."""
    kernel: str = "6.1"
    stacks: tuple = ("inbox",)      # one per node, or one for all
    nodes: int = 1
    sm: bool = True
    sm_node: int = 1
    cable: bool = True
    cx3_opts: str = ""
    init: str = ""                  # "systemd": tests/vm/run --boot systemd
    part: str = ""                  # set to keep items apart from others

    def name(self):
        s = "+".join(self.stacks)
        n = "%s-%dnode-%s" % (s, self.nodes, self.kernel)
        if not self.sm:
            n += "-nosm"
        elif self.sm_node != 1:
            n += "-sm%d" % self.sm_node
        if not self.cable:
            n += "-nocable"
        if self.cx3_opts:
            n += "-" + re.sub(r"[^a-z0-9]+", "", self.cx3_opts.split("=")[0])
        if self.init:
            n += "-" + self.init
        if self.part:
            n += "-" + self.part
        return n

    def node_stack(self, n):
        return self.stacks[0] if len(self.stacks) == 1 else self.stacks[n - 1]

    def has_ours(self):
        return "ours" in self.stacks


@dataclasses.dataclass
class Item:
    """One guest script in a boot."""
    group: str
    name: str                       # TESTNAME; unique in the suite
    boot: Boot
    script: str                     # path in the checkout
    env: dict = dataclasses.field(default_factory=dict)
    tier: str = "both"
    timeout: int = 600
    last: bool = False              # leaves the boot unfit for more items
    first: bool = False             # reads state other items change: runs first
    out: str = ""                   # "dir" or "file": OUT=/vmout/NAME[.txt]
    needs: tuple = ()               # "kverbs", "ksa", "kcm", "umadtest", "uvtool", "uvfuzz", "nlfuzz",
    #                                 "racer", "upstream-ipoib": env paths
    unloads: int = 0                # driver unloads it causes (accounting)
    after: object = None            # host check on the finished boot

    def command(self, env_extra):
        env = {"TESTNAME": self.name}
        if self.out == "dir":
            env["OUT"] = "/vmout/" + self.name
        elif self.out == "file":
            env["OUT"] = "/vmout/%s.txt" % self.name
        env.update(env_extra)
        env.update(self.env)
        return "env %s %s" % (" ".join("%s=%s" % (k, shlex.quote(str(v)))
                                        for k, v in env.items()), self.script)


@dataclasses.dataclass
class Step:
    """A host step: a function(ctx) yielding output lines."""
    group: str
    name: str
    run: object
    tier: str = "both"
    when: str = "before"            # before | after (the boots) | last
    expect: tuple = ()              # regexes a PASS/FAIL line must match


@dataclasses.dataclass
class Compare:
    """A comparison of finished items' outputs: function(ctx) -> lines."""
    group: str
    name: str
    run: object
    items: tuple                    # names of the items it reads
    tier: str = "both"


class Group:
    def __init__(self, name, what):
        self.name, self.what = name, what
        self.items, self.steps, self.compares = [], [], []

    def item(self, name, boot, script, **kw):
        it = Item(self.name, name, boot, script, **kw)
        assert it.tier in TIERS, it.tier
        self.items.append(it)
        return it

    def step(self, name, run, **kw):
        self.steps.append(Step(self.name, name, run, **kw))

    def compare(self, name, run, items, **kw):
        self.compares.append(Compare(self.name, name, run, tuple(items), **kw))


def in_tier(tier, wanted):
    return wanted in TIERS[tier]


class Output:
    """Prints whole blocks of lines at a time and counts the verdicts."""

    def __init__(self, log):
        self.lock = threading.Lock()
        self.passed = self.failed = 0
        self.log = log
        self.fails = []

    def block(self, lines):
        with self.lock:
            for ln in lines:
                if ln.startswith("PASS "):
                    self.passed += 1
                elif ln.startswith("FAIL "):
                    self.failed += 1
                    self.fails.append(ln)
                print(ln, flush=True)
                self.log.write(ln + "\n")
            self.log.flush()


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=isinstance(cmd, str), text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          errors="replace", **kw)


def release(series):
    r = sh([os.path.join(TOP, "tests/setup/envs.sh"), "release", series])
    return r.stdout.strip() if r.returncode == 0 else None


# --- reading a finished VM run ---------------------------------------------
UPTIME = re.compile(r"^\[\s*([0-9.]+)\] guest-init: (.*)$")


def console_marks(path):
    """guest-init's progress lines: {mark: uptime seconds}"""
    marks = {}
    keys = (("started", "init"), ("loading the", "load"),
            ("mlx4_0 is there", "device"), ("device ", "device"), ("all ports ACTIVE", "active"),
            ("running:", "command"), ("command exited", "end"))
    try:
        with open(path, errors="replace") as f:
            for ln in f:
                m = UPTIME.match(ln.strip())
                if not m:
                    continue
                for k, v in keys:
                    if m.group(2).startswith(k) and v not in marks:
                        marks[v] = float(m.group(1))
    except OSError:
        pass
    return marks


PLAN = re.compile(r"^(PASS \S+: all \d+ planned checks reported|"
                  r"FAIL \S+: the script (reported \d+ checks, it plans|exited with status))")
ITEM_BEGIN = re.compile(r"^ITEM-BEGIN (\S+)$")
ITEM_END = re.compile(r"^ITEM-END (\S+) rc=(\S+) secs=(\d+)$")


def read_items(path):
    """A node's out.log: {item: {"lines": [...], "rc": str|None, "secs": int}}"""
    res, cur = {}, None
    try:
        text = open(path, errors="replace").read().splitlines()
    except OSError:
        return res
    for ln in text:
        ln = ln.rstrip("\r")
        m = ITEM_BEGIN.match(ln)
        if m:
            cur = res.setdefault(m.group(1), {"lines": [], "rc": None, "secs": 0})
            continue
        m = ITEM_END.match(ln)
        if m and m.group(1) in res:
            res[m.group(1)]["rc"] = m.group(2)
            res[m.group(1)]["secs"] = int(m.group(3))
            cur = None
            continue
        if cur is not None:
            cur["lines"].append(ln)
    return res


LIVE = re.compile(r"live objects (at [^:]+): (.*)$")


def accounting(qemu_logs):
    """(close_hca lines, release lines, leaks) from the model's logs"""
    close, rel, leaks = [], [], []
    for n, path in qemu_logs:
        try:
            lines = open(path, errors="replace").read().splitlines()
        except OSError:
            continue
        for ln in lines:
            m = LIVE.search(ln)
            if not m:
                continue
            vals = dict(kv.split("=") for kv in m.group(2).split() if "=" in kv)
            if m.group(1) == "at CLOSE_HCA":
                close.append((n, vals))
            elif m.group(1).startswith("at CLOSE_HCA (driver leaked"):
                leaks.append((n, m.group(2)))
            elif m.group(1) == "at ownership release":
                rel.append((n, vals))
    return close, rel, leaks


class BootRun:
    """One VM run: a Boot and its items, run through tests/vm/run."""

    def __init__(self, suite, boot, items, idx):
        self.suite, self.boot, self.items = suite, boot, items
        self.name = boot.name() + ("" if idx == 0 else "-%d" % (idx + 1))
        self.dir = os.path.join(suite.rundir, self.name)
        self.lines, self.wall, self.retries, self.rc = [], 0, 0, None
        self.marks, self.item_secs = {}, {}

    def timeout(self):
        return 420 + sum(it.timeout + 30 for it in self.items)

    def key(self):
        """the boot and what it runs (a run of some groups only times
        another list of items)"""
        return self.name + ":" + ",".join(it.name for it in self.items)

    def env_for(self, it):
        env = {}
        rel = release(self.boot.kernel)
        bdir = self.suite.builddir(rel)
        for need in it.needs:
            if need == "kverbs":
                env["KVERBS_KO"] = os.path.join(bdir, "tests/kverbs/ibstack_kverbs.ko")
            elif need == "ksa":
                env["KSA_KO"] = os.path.join(bdir, "tests/ksa/ibstack_ksa.ko")
            elif need == "kcm":
                env["KCM_KO"] = os.path.join(bdir, "tests/kcm/ibstack_kcm.ko")
            elif need == "umadtest":
                env["UMADTEST"] = self.suite.umadtest
            elif need == "uvtool":
                env["UVTOOL"] = self.suite.uvtool
            elif need == "uvfuzz":
                env["UVFUZZ"] = self.suite.uvfuzz
            elif need == "nlfuzz":
                env["NLFUZZ"] = self.suite.nlfuzz
            elif need == "racer":
                env["RACER"] = self.suite.racer
            elif need == "upstream-ipoib":
                # tests/upstream-ipoib/build.sh's module for this kernel
                env["UPSTREAM_IPOIB_KO"] = os.path.join(bdir, "upstream-ipoib/ib_ipoib.ko")
        return env

    def write_items(self):
        d = os.path.join(TOP, "build", "suite", self.suite.runid)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, self.name + ".items")
        with open(path, "w") as f:
            for it in self.items:
                f.write("%s\t%d\t%s\n" % (it.name, it.timeout, it.command(self.env_for(it))))
        return os.path.relpath(path, TOP)

    def args(self, items_file):
        b = self.boot
        a = [os.path.join(TOP, "tests/vm/run"), "--kernel", b.kernel,
             "--stack", ",".join(b.stacks), "--nodes", str(b.nodes),
             "--timeout", str(max(60, min(self.timeout(), self.suite.time_left())))]
        if b.sm:
            a += ["--sm"]
            if b.sm_node != 1:
                a += ["--sm-node", str(b.sm_node)]
        if not b.cable:
            a += ["--no-cable"]
        if b.init:
            a += ["--boot", b.init]
        return a + ["--", "tests/vm/items", items_file]

    def run(self):
        items_file = self.write_items()
        env = dict(os.environ, VMRUN_DIR=self.dir, VMRUN_CX3_OPTS=self.boot.cx3_opts,
                   VMRUN_SM_WAIT="180")
        t0 = time.time()
        for attempt in (1, 2):
            with open(self.dir + ".out", "w") as out:
                r = subprocess.run(self.args(items_file), cwd=TOP, env=env,
                                   stdout=out, stderr=subprocess.STDOUT)
            self.rc = r.returncode
            if self.rc == 0 or attempt == 2 or not self.died_before_stack():
                break
            # the test bed failed before any module was loaded: once more
            self.retries += 1
            self.lines.append("note %s: the VM failed before the stack was loaded "
                              "(a test-bed failure, not a test's): booted again; "
                              "first attempt: %s" % (self.name, self.first_splat()))
            os.rename(self.dir, self.dir + ".failed-boot")
        self.wall = time.time() - t0
        self.evaluate()
        return self

    def node_dirs(self):
        return [(n, os.path.join(self.dir, "node%d" % n)) for n in range(1, self.boot.nodes + 1)]

    def died_before_stack(self):
        for _, nd in self.node_dirs():
            if "load" in console_marks(os.path.join(nd, "console.log")):
                return False
        return True

    def first_splat(self):
        out = []
        for _, nd in self.node_dirs():
            try:
                con = open(os.path.join(nd, "console.log"), errors="replace").read()
            except OSError:
                continue
            m = re.search(r"^.*(Kernel panic|BUG:|Oops|int3:|WARNING:).*$", con, re.M)
            if m:
                out.append(m.group(0).strip()[:160])
        return "; ".join(out) or "no splat line; see %s.out" % self.dir

    def evaluate(self):
        L = self.lines
        L.append("boot %s: %d items, %ds (%s)" % (self.name, len(self.items), self.wall,
                                                   os.path.relpath(self.dir + ".out", "/")))
        per_node = {n: read_items(os.path.join(nd, "out.log")) for n, nd in self.node_dirs()}
        for n, nd in self.node_dirs():
            self.marks[n] = console_marks(os.path.join(nd, "console.log"))
        multi = self.boot.nodes > 1
        for it in self.items:
            for n, res in per_node.items():
                r = res.get(it.name)
                tag = "[node%d] " % n if multi else ""
                if r:
                    for ln in r["lines"]:
                        if ln.startswith("PASS ") or ln.startswith("FAIL "):
                            L.append(ln[:5] + tag + ln[5:])
                    self.item_secs[it.name] = max(self.item_secs.get(it.name, 0), r["secs"])
                where = " on node%d" % n if multi else ""
                if r is None:
                    L.append("FAIL %s: ran%s: it never started (see %s.out)" % (it.name, where, self.dir))
                elif r["rc"] is None:
                    L.append("FAIL %s: ran%s: no end line: it did not finish" % (it.name, where))
                elif r["rc"] != "0":
                    why = {"124": "timed out after %ds" % it.timeout,
                           "barrier": "the other node never reached it"}.get(r["rc"], "status " + r["rc"])
                    L.append("FAIL %s: ran%s: %s" % (it.name, where, why))
                else:
                    L.append("PASS %s: ran to its end%s (%ds)" % (it.name, where, r["secs"]))
                # the script declared its checks (lib.sh: plan), and the
                # library judged the count at its exit
                if r is not None and not any(PLAN.match(ln) and ln.split(" ", 2)[1] == it.name + ":"
                                             for ln in r["lines"]):
                    L.append("FAIL %s: plan%s: the script declared no plan of its checks "
                             "(or died before its end)" % (it.name, where))
        if self.rc == 0:
            L.append("PASS %s: VM run clean (every node done, no kernel splat)" % self.name)
        else:
            L.append("FAIL %s: VM run: tests/vm/run exited %s; see %s.out" % (self.name, self.rc, self.dir))
            try:
                tail = [x for x in open(self.dir + ".out", errors="replace").read().splitlines()
                        if not x.startswith("[node")][-15:]
            except OSError:
                tail = []
            L.extend("    " + x for x in tail)
        logs = [(n, os.path.join(nd, "qemu.log")) for n, nd in self.node_dirs()]
        if not all(os.path.exists(p) for _, p in logs):
            L.append("FAIL %s: the model's logs: no qemu.log" % self.name)
            return
        unknown = [ln for _, p in logs for ln in open(p, errors="replace") if "unknown command" in ln]
        if unknown:
            L.append("FAIL %s: commands unknown to the model: %s" % (self.name, unknown[0].strip()))
        else:
            L.append("PASS %s: no command was unknown to the model" % self.name)
        # the send queues' stamps (tests/cx3/cx3_prefetch.c)
        stale = [ln for _, p in logs for ln in open(p, errors="replace") if "prefetch contract" in ln]
        if stale:
            L.append("FAIL %s: a send queue broke the prefetch contract: %s" % (self.name, stale[0].strip()))
        else:
            L.append("PASS %s: every send queue kept the prefetch contract" % self.name)
        self.check_accounting(logs)
        self.check_restrack()
        for it in self.items:
            if it.after:
                L.extend(it.after(self, it))

    def check_accounting(self, logs):
        close, rel, leaks = accounting(logs)
        want = 1 + sum(it.unloads for it in self.items)
        objs = ("eq", "cq", "qp", "srq", "mpt", "mcg")
        pages = ("icm_pages", "aux_pages", "fa_pages", "msix_vectors")
        for n, _ in logs:
            c = [v for m, v in close if m == n]
            r = [v for m, v in rel if m == n]
            where = " of node%d" % n if self.boot.nodes > 1 else ""
            bad = [v for v in c if any(v.get(k) != "0" for k in objs)]
            if len(c) >= want and not bad:
                self.lines.append("PASS %s: no object live at any of the %d CLOSE_HCAs%s (want >= %d): "
                                  "EQs, CQs, QPs, SRQs, MPTs, multicast groups"
                                  % (self.name, len(c), where, want))
            else:
                self.lines.append("FAIL %s: objects at CLOSE_HCA%s: %d CLOSE_HCA lines (want >= %d)%s"
                                  % (self.name, where, len(c), want,
                                     "; " + " ".join("%s=%s" % kv for kv in bad[0].items()) if bad else ""))
            bad = [v for v in r if any(v.get(k) != "0" for k in objs + pages)]
            if len(r) >= want and not bad:
                self.lines.append("PASS %s: nothing mapped or live at any of the %d ownership releases%s: "
                                  "ICM, aux and firmware pages, MSI-X vectors" % (self.name, len(r), where))
            else:
                self.lines.append("FAIL %s: accounting at ownership release%s: %d lines (want >= %d)%s"
                                  % (self.name, where, len(r), want,
                                     "; " + " ".join("%s=%s" % kv for kv in bad[0].items()) if bad else ""))
        if leaks:
            self.lines.append("FAIL %s: the driver left objects live at CLOSE_HCA: node%d: %s"
                              % (self.name, leaks[0][0], leaks[0][1]))
        else:
            self.lines.append("PASS %s: the model reported no leak at CLOSE_HCA" % self.name)


    def check_restrack(self):
        """ib_core's report of objects still tracked when their device was
        released (core/restrack.c): a verbs object its owner never
        destroyed"""
        found = []
        for n, nd in self.node_dirs():
            try:
                text = open(os.path.join(nd, "out", "dmesg.txt"), errors="replace").read()
            except OSError:
                continue
            found += ["node%d: %s" % (n, m.group(0).strip()) for m in RESTRACK_LEAK.finditer(text)]
        if found:
            self.lines.append("FAIL %s: ib_core reported objects leaked at a device's release: %s"
                              % (self.name, found[0][:200]))
        else:
            self.lines.append("PASS %s: ib_core reported no object leaked at a device's release"
                              % self.name)


# core/restrack.c's leak report at a device's release
RESTRACK_LEAK = re.compile(r"ib_core: \S+: (.* still exists at the device's release: leaked"
                           r"|\d+ more .* leaked)$", re.M)

UNLOAD = "tests/stack/guest/unload.sh"
PROBE = "tests/stack/guest/probe-clean.sh"


class Suite:
    def __init__(self, groups, tier, only, rundir, log):
        self.groups, self.tier, self.only = groups, tier, only
        self.rundir = rundir
        self.runid = os.path.basename(rundir.rstrip("/"))
        self.out = Output(log)
        self.builddirs = {}
        self.umadtest = os.path.join(TOP, "build/umadtest/umadtest")
        self.uvtool = os.path.join(TOP, "build/uvtool/uvtool")
        self.uvfuzz = os.path.join(TOP, "build/uvfuzz/uvfuzz")
        self.nlfuzz = os.path.join(TOP, "build/nlfuzz/nlfuzz")
        self.racer = os.path.join(TOP, "build/racer/racer")
        self.boots = []
        self.step_secs = {}
        self.items_done = {}
        # the whole run's time limit, counted from the start of make's
        # target (CHECKS_T0: setup included) or else from now: a boot gets
        # no more than what is left of it, and one that would start later
        # is not run (make check must end, with its verdicts, well within
        # CI's 90 minutes)
        budget = int(os.environ.get("CHECKS_BUDGET") or self.BUDGET[tier])
        self.t0 = float(os.environ.get("CHECKS_T0") or time.time())
        self.deadline = self.t0 + budget

    BUDGET = {"check": 80 * 60, "full": 3 * 3600, "debug": 2 * 3600}
    LAST_BOOT = 120     # the least time a boot is started with

    def time_left(self):
        return max(0, int(self.deadline - time.time()))

    def builddir(self, rel):
        if rel not in self.builddirs:
            r = sh(["make", "-s", "--no-print-directory", "-C", TOP, "print-builddir", "KVER=%s" % rel])
            self.builddirs[rel] = r.stdout.strip()
        return self.builddirs[rel]

    def wanted(self, g):
        return not self.only or g.name in self.only

    def selected(self):
        items, steps, comps = [], [], []
        for g in self.groups:
            if not self.wanted(g):
                continue
            items += [i for i in g.items if in_tier(i.tier, self.tier)]
            steps += [s for s in g.steps if in_tier(s.tier, self.tier)]
            comps += [c for c in g.compares if in_tier(c.tier, self.tier)]
        return items, steps, comps

    def plan_boots(self, items):
        by = {}
        for it in items:
            by.setdefault(it.boot, []).append(it)
        runs = []
        for boot, its in by.items():
            normal = [i for i in its if not i.last and i.first] + \
                [i for i in its if not i.last and not i.first]
            lasts = [i for i in its if i.last]
            lists = [normal + lasts[:1]] + [[x] for x in lasts[1:]]
            for k, lst in enumerate(lists):
                if not lst:
                    continue
                # every boot starts with the probe's log check and ends
                # with the unload whose accounting the host reads
                suffix = boot.name() + ("" if k == 0 else "-%d" % (k + 1))
                lst = [Item(lst[0].group, "probe-" + suffix, boot, PROBE, timeout=120)] + lst + \
                    [Item(lst[0].group, "unload-" + suffix, boot, UNLOAD, timeout=300)]
                runs.append(BootRun(self, boot, lst, k))
        return runs

    def prebuild(self):
        """Our modules and test modules for every kernel a boot runs ours
        on (tests/vm/run builds the stack too, but the items need the test
        modules' paths; a no-op after the build group)."""
        for k in sorted({b.boot.kernel for b in self.boots if b.boot.has_ours()}):
            rel = release(k)
            r = sh(["make", "-C", TOP, "modules", "KVER=%s" % (rel or "none")])
            if r.returncode != 0:
                self.out.block(["FAIL modules %s: make modules failed; last lines:" % k] +
                               ["    " + x for x in r.stdout.splitlines()[-10:]])

    def run_step(self, s):
        t0 = time.time()
        lines = []
        try:
            for ln in s.run(self):
                lines.append(ln)
        except Exception as e:  # a step that dies is a failure, never silence
            lines.append("FAIL %s: the step died: %r" % (s.name, e))
        verdicts = [ln for ln in lines if ln.startswith(("PASS ", "FAIL "))]
        for rx in s.expect:
            if not any(re.search(rx, ln) for ln in verdicts):
                lines.append("FAIL %s: no result line matching /%s/" % (s.name, rx))
        if not verdicts:
            lines.append("FAIL %s: reported no check" % s.name)
        self.step_secs[s.name] = (s.group, time.time() - t0)
        self.out.block(lines)

    def run(self, jobs):
        t_all = self.t_start = time.time()
        items, steps, comps = self.selected()
        for s in steps:
            if s.when == "before":
                self.run_step(s)
        self.boots = self.plan_boots(items)
        self.prebuild()
        # longest first (as long as the last run found them; else by the
        # items' time limits)
        est = self.estimates()
        order = sorted(self.boots, key=lambda b: -est.get(b.key(), b.timeout() / 4))
        self.schedule(order, jobs)
        for s in steps:
            if s.when == "after":
                self.run_step(s)
        done = {it.name for b in self.boots for it in b.items}
        for c in comps:
            t0 = time.time()
            missing = [i for i in c.items if i not in done]
            if missing:
                lines = ["FAIL %s: not compared: items not run: %s" % (c.name, " ".join(missing))]
            else:
                try:
                    lines = list(c.run(self))
                except Exception as e:
                    lines = ["FAIL %s: the comparison died: %r" % (c.name, e)]
                if not any(ln.startswith(("PASS ", "FAIL ")) for ln in lines):
                    lines.append("FAIL %s: the comparison reported nothing" % c.name)
            self.step_secs[c.name] = (c.group, time.time() - t0)
            self.out.block(lines)
        for s in steps:
            if s.when == "last":
                self.run_step(s)
        self.report(time.time() - t_all)
        self.save_estimates()

    def schedule(self, order, jobs):
        """Runs the boots, at most JOBS host cores busy (a VM is one core):
        whenever cores are free, the first boot in ORDER that fits starts."""
        cv = threading.Condition()
        state = {"busy": 0}
        queue = list(order)
        threads = []

        def one(b):
            try:
                if self.time_left() < self.LAST_BOOT:
                    b.lines += ["FAIL %s: not run: the run's time limit ran out before its boot %s started"
                                % (it.name, b.name) for it in b.items]
                else:
                    b.run()
            except Exception as e:
                b.lines.append("FAIL %s: the runner died on it: %r" % (b.name, e))
            finally:
                self.out.block(b.lines)
                with cv:
                    state["busy"] -= b.boot.nodes
                    cv.notify_all()

        with cv:
            while queue:
                fit = [b for b in queue if state["busy"] == 0 or state["busy"] + b.boot.nodes <= jobs]
                if not fit:
                    cv.wait()
                    continue
                b = fit[0]
                queue.remove(b)
                state["busy"] += b.boot.nodes
                t = threading.Thread(target=one, args=(b,), daemon=True)
                t.start()
                threads.append(t)
        for t in threads:
            t.join()

    def item_by_name(self, name):
        for b in self.boots:
            for it in b.items:
                if it.name == name:
                    return b, it
        return None, None

    def out_path(self, item_name, node=1, sub=""):
        b, it = self.item_by_name(item_name)
        if not b:
            return None
        base = os.path.join(b.dir, "node%d" % node, "out")
        if sub:
            return os.path.join(base, sub)
        return os.path.join(base, item_name + (".txt" if it.out == "file" else ""))

    def report(self, total):
        rows = {}
        for g in self.groups:
            if self.wanted(g):
                rows[g.name] = {"wall": 0.0, "boots": set(), "items": 0, "shared": set()}
        for b in self.boots:
            groups = sorted({it.group for it in b.items})
            item_time = sum(self.item_secs_of(b, it) for it in b.items)
            overhead = max(0.0, b.wall - item_time)
            for it in b.items:
                r = rows[it.group]
                r["wall"] += self.item_secs_of(b, it)
                r["items"] += 0 if it.script in (UNLOAD, PROBE) else 1
                r["boots"].add(b.name)
                if len(groups) > 1:
                    r["shared"].add(b.name)
            for g in groups:
                rows[g]["wall"] += overhead / len(groups)
        for name, (g, secs) in self.step_secs.items():
            rows[g]["wall"] += secs
        lines = ["", "timing (tier %s): %d s in all, %d boots, %d booted again after a test-bed failure; "
                 "%d s before it (make's setup)"
                 % (self.tier, total, len(self.boots), sum(b.retries for b in self.boots),
                    self.t_start - self.t0),
                 "  %-12s %7s %6s %6s  %s" % ("group", "time s", "items", "boots", "(its items, its share of their boots' overhead, its host steps)")]
        for name, r in rows.items():
            lines.append("  %-12s %7d %6d %6s" % (name, r["wall"], r["items"],
                                                 "%d/%d" % (len(r["boots"]) - len(r["shared"]), len(r["boots"]))
                                                 if r["boots"] else "-"))
        lines.append("  (boots: own/all)")
        lines.append("  %-34s %6s %5s %5s %5s %5s %6s %5s  %s" % ("boot", "wall", "boot", "load", "sm", "cmd", "items", "off", "groups"))
        for b in sorted(self.boots, key=lambda b: -b.wall):
            m = b.marks.get(1, {})
            mk = lambda a, z: ("%5d" % (m[z] - m[a])) if a in m and z in m else "    ?"
            init = ("%5d" % m["init"]) if "init" in m else "    ?"
            off = ("%5d" % (b.wall - m["end"])) if "end" in m else "    ?"
            items = sum(self.item_secs_of(b, it) for it in b.items)
            lines.append("  %-34s %6d %s %s %s %s %6d %s  %s" % (
                b.name, b.wall, init, mk("load", "device"), mk("device", "active"),
                mk("active" if "active" in m else "device", "command"), items, off,
                " ".join(sorted({it.group for it in b.items}))))
        lines.append("  (boot: QEMU start to guest-init; load: modules to mlx4_0; sm: mlx4_0 to every port ACTIVE;"
                     " cmd: to the first item; items: their own time; off: the rest, mostly power-off; node 1)")
        self.out.block(lines)
        try:
            with open(os.path.join(self.rundir, "timing.json"), "w") as f:
                json.dump({"rows": {k: {"wall": v["wall"], "boots": len(v["boots"])}
                                    for k, v in rows.items()},
                           "boots": {b.name: b.wall for b in self.boots}, "total": total}, f)
        except OSError:
            pass

    EST = os.path.join(TOP, "build", "suite", "boot-times.json")

    def estimates(self):
        try:
            with open(self.EST) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def save_estimates(self):
        est = self.estimates()
        est.update({b.key(): b.wall for b in self.boots if b.wall})
        os.makedirs(os.path.dirname(self.EST), exist_ok=True)
        with open(self.EST, "w") as f:
            json.dump(est, f, indent=1)

    def item_secs_of(self, b, it):
        return b.item_secs.get(it.name, 0)


def main_run(groups, argv):
    import argparse
    ap = argparse.ArgumentParser(prog="tests/run-checks",
                                 description="Every test of the project; the last line is 'N passed, N failed'.")
    ap.add_argument("--tier", choices=("check", "full", "debug"), default="check",
                    help="check: make check (the README's budget); full: make check-full, the whole matrix; "
                    "debug: make check-debug, our stack's groups on the debug kernel")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("CHECKS_JOBS", os.cpu_count() or 2)),
                    help="host cores the VMs may use at once (a VM uses one; default: all)")
    ap.add_argument("--list", action="store_true", help="print the groups, items and boots of the tier, run nothing")
    ap.add_argument("groups", nargs="*", help="only these groups")
    a = ap.parse_args(argv)
    names = [g.name for g in groups]
    for g in a.groups:
        if g not in names:
            ap.error("no group '%s' (groups: %s)" % (g, " ".join(names)))
    rundir = os.environ.get("CHECKS_DIR") or "/tmp/checks.%d" % os.getpid()
    os.makedirs(rundir, exist_ok=True)
    with open(os.path.join(rundir, "results.log"), "w") as log:
        s = Suite(groups, a.tier, set(a.groups), rundir, log)
        if a.list:
            items, steps, comps = s.selected()
            for g in groups:
                if s.wanted(g):
                    print("%-12s %s" % (g.name, g.what))
            for b in s.plan_boots(items):
                print("boot %s (limit %ds): %s" % (b.name, b.timeout(), " ".join(i.name for i in b.items)))
            for st in steps:
                print("step %s (%s)" % (st.name, st.when))
            for c in comps:
                print("compare %s" % c.name)
            return 0
        print("run-checks: tier %s, logs in %s" % (a.tier, rundir), flush=True)
        s.run(a.jobs)
        if s.out.fails:
            # the failures again, last: what a log's tail shows
            s.out.block(["", "the %d failures:" % len(s.out.fails)] +
                        ["  " + ln[:200] for ln in s.out.fails[:12]] +
                        (["  ... and %d more" % (len(s.out.fails) - 12)] if len(s.out.fails) > 12 else []))
        line = "%d passed, %d failed" % (s.out.passed, s.out.failed)
        print(line)
        log.write(line + "\n")
    return 0 if s.out.failed == 0 and s.out.passed > 0 else 1

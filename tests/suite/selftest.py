# SPDX-License-Identifier: GPL-2.0
"""The runner's own checks, without a VM (the suite group's host step):
every way a real failure used to pass must give a FAIL line here.  Each
case builds what a broken run leaves behind (a boot's logs, a step's
output, two comparison directories, a guest script) and checks the
verdict the runner or the guest library gives on it."""
import os
import subprocess
import tempfile

import compare
import engine


def _lines_of_boot(items_log, qemu_log, rc=0, items=("a",), unloads=0):
    """the verdict lines of a one-node boot whose node wrote ITEMS_LOG
    (out.log) and whose model wrote QEMU_LOG"""
    d = tempfile.mkdtemp(prefix="suite-selftest.")
    log = open(os.path.join(d, "results.log"), "w")
    s = engine.Suite([], "check", set(), d, log)
    boot = engine.Boot(stacks=("ours",))
    its = [engine.Item("g", n, boot, "x.sh", unloads=unloads) for n in items]
    b = engine.BootRun(s, boot, its, 0)
    os.makedirs(os.path.join(b.dir, "node1"))
    with open(os.path.join(b.dir, "node1", "out.log"), "w") as f:
        f.write(items_log)
    with open(os.path.join(b.dir, "node1", "qemu.log"), "w") as f:
        f.write(qemu_log)
    open(os.path.join(b.dir, "node1", "console.log"), "w").close()
    open(b.dir + ".out", "w").close()
    b.rc = rc
    b.evaluate()
    return b.lines


def _lines_unstarted():
    """the verdict lines of a boot scheduled after the run's deadline"""
    d = tempfile.mkdtemp(prefix="suite-selftest.")
    log = open(os.path.join(d, "results.log"), "w")
    s = engine.Suite([], "check", set(), d, log)
    s.deadline = 0
    s.out.block = lambda lines: None    # not on this run's output
    boot = engine.Boot(stacks=("ours",))
    b = engine.BootRun(s, boot, [engine.Item("g", "a", boot, "x.sh")], 0)
    b.run = None        # a boot that is started dies here: no line of ours
    s.schedule([b], 1)
    return b.lines


ZERO = ("eq=0 cq=0 qp=0 srq=0 mpt=0 mcg=0 icm_pages=0 aux_pages=0 fa_pages=0 "
        "msix_vectors=0")
CLEAN_QEMU = ("cx3: live objects at CLOSE_HCA: " + ZERO.replace("icm_pages=0", "icm_pages=9") +
              "\ncx3: live objects at ownership release: " + ZERO + "\n")
GOOD_ITEM = ("ITEM-BEGIN a\nPASS a: x\nPASS a: all 1 planned checks reported\n"
             "ITEM-END a rc=0 secs=1\n")


def run(ctx):
    def case(what, lines, want_fail):
        """WANT_FAIL: a regex a FAIL line must match (None: no FAIL)"""
        import re
        fails = [x for x in lines if x.startswith("FAIL ")]
        if want_fail is None:
            ok = not fails
        else:
            ok = any(re.search(want_fail, x) for x in fails)
        if ok:
            yield "PASS suite: %s" % what
        else:
            yield "FAIL suite: %s: got %s" % (what, " | ".join(fails) or "no FAIL line")

    # a clean boot passes: the checks below fail for their own reason
    yield from case("a clean boot gives no FAIL", _lines_of_boot(GOOD_ITEM, CLEAN_QEMU), None)
    yield from case("an item that stops half-way fails",
                    _lines_of_boot("ITEM-BEGIN a\nPASS a: x\n", CLEAN_QEMU), r"a: ran: no end line")
    yield from case("an item that exits non-zero fails",
                    _lines_of_boot(GOOD_ITEM.replace("rc=0", "rc=3"), CLEAN_QEMU), r"a: ran: status 3")
    yield from case("an item that never started fails",
                    _lines_of_boot("", CLEAN_QEMU), r"a: ran: it never started")
    yield from case("an item without a plan fails",
                    _lines_of_boot("ITEM-BEGIN a\nPASS a: x\nITEM-END a rc=0 secs=1\n", CLEAN_QEMU),
                    r"a: plan: the script declared no plan")
    yield from case("a splat or a failed VM run fails",
                    _lines_of_boot(GOOD_ITEM, CLEAN_QEMU, rc=1), r"VM run: tests/vm/run exited 1")
    yield from case("a command unknown to the model fails",
                    _lines_of_boot(GOOD_ITEM, CLEAN_QEMU + "cx3: unknown command 0x999\n"),
                    r"commands unknown to the model")
    yield from case("a send queue the model finds unstamped fails",
                    _lines_of_boot(GOOD_ITEM, CLEAN_QEMU + "cx3: QP 0x48: prefetch contract: send WQE 3\n"),
                    r"broke the prefetch contract")
    leak = CLEAN_QEMU.replace("CLOSE_HCA: eq=0", "CLOSE_HCA: eq=0", 1).replace(
        "mcg=0 icm_pages=9", "mcg=1 icm_pages=9")
    yield from case("a multicast group live at CLOSE_HCA fails",
                    _lines_of_boot(GOOD_ITEM, leak), r"objects at CLOSE_HCA.*mcg=1")
    yield from case("a vector left at the ownership release fails",
                    _lines_of_boot(GOOD_ITEM, CLEAN_QEMU.replace("msix_vectors=0\n", "msix_vectors=2\n")),
                    r"accounting at ownership release.*msix_vectors=2")
    yield from case("fewer unloads than the items declared fails",
                    _lines_of_boot(GOOD_ITEM, CLEAN_QEMU, unloads=3), r"1 CLOSE_HCA lines \(want >= 4\)")
    yield from case("a boot the run's time limit leaves no time for fails, unrun",
                    _lines_unstarted(), r"a: not run: the run's time limit ran out")
    yield from case("no accounting line at all fails",
                    _lines_of_boot(GOOD_ITEM, ""), r"0 CLOSE_HCA lines")

    # host steps: one that dies after a PASS, one that misses a result
    d = tempfile.mkdtemp(prefix="suite-selftest.")
    s = engine.Suite([], "check", set(), d, open(os.path.join(d, "results.log"), "w"))
    got = []
    s.out.block = got.extend

    def dies(ctx):
        yield "PASS x: one check"
        raise RuntimeError("killed")
    s.run_step(engine.Step("g", "dies", dies))
    yield from case("a step that dies after a PASS fails", got, r"dies: the step died")
    got.clear()
    s.run_step(engine.Step("g", "short", lambda ctx: iter(["PASS build r: built"]),
                           expect=(r"^(PASS|FAIL) sparse ",)))
    yield from case("a step that misses a declared result fails", got, r"short: no result line")

    # comparisons: a file or an entry on the tested side only, an empty dump
    a, b = tempfile.mkdtemp(), tempfile.mkdtemp()
    for x in (a, b):
        with open(os.path.join(x, "ibstat.txt"), "w") as f:
            f.write("CA 'mlx4_0'\n\tCA type: MT4099\n")
    with open(os.path.join(b, "p1-extra.txt"), "w") as f:
        f.write("x\n")
    yield from case("a diags file under the tested stack only fails",
                    compare.compare_diags("cmp", a, b), r"output under ours only: p1-extra.txt")
    yield from case("a missing sysfs dump fails",
                    compare.compare_trees("cmp", os.path.join(a, "none"), os.path.join(b, "none")),
                    r"no dump from inbox and ours")

    # ib0's dumps: a value (not only its format) that differs fails; the
    # address's QP number and a counter may differ, its GID may not
    def net(d, qpn, gid, qlen, rx):
        f = os.path.join(d, "ib0.txt")
        with open(f, "w") as o:
            for k, v in (("address", "80:%s:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a0:00:%s" % (qpn, gid)),
                         ("tx_queue_len", qlen), ("statistics/rx_bytes", rx)):
                o.write("%s\t444\t%s\t%s\n" % (k, "9" if k != "address" else "hh:" * 19 + "hh", v))
        return f
    yield from case("ib0's dumps differing in the QP number and a counter only pass",
                    compare.compare_net("cmp", net(a, "00:02:08", "11", "256", "0"),
                                        net(b, "00:00:48", "11", "256", "712")), None)
    yield from case("ib0's dumps with another value of the same format fail",
                    compare.compare_net("cmp", net(a, "00:02:08", "11", "256", "0"),
                                        net(b, "00:02:08", "11", "128", "0")),
                    r"tx_queue_len: inbox '256', ours '128'")
    yield from case("ib0's address with another GID fails",
                    compare.compare_net("cmp", net(a, "00:02:08", "11", "256", "0"),
                                        net(b, "00:02:08", "12", "256", "0")), r"address: inbox")
    # ethtool's outputs: a line that differs, a command run on one side only
    for x, v in ((a, "on"), (b, "off")):
        with open(os.path.join(x, "k.txt"), "w") as f:
            f.write("Features for ib0:\nrx-checksumming: %s\nexit status 0\n" % v)
    yield from case("an ethtool line that differs fails", compare.compare_ethtool("cmp", a, b),
                    r"ethtool k: .*line 2: inbox 'rx-checksumming: on', ours 'rx-checksumming: off'")
    with open(os.path.join(a, "g.txt"), "w") as f:
        f.write("netlink error: Operation not supported\nexit status 1\n")
    yield from case("an ethtool command with no output under the tested stack fails",
                    compare.compare_ethtool("cmp", a, b), r"ours ran the 4 commands inbox did")

    # the rdma tool's outputs: the exceptions pass, anything else fails
    ra, rb = os.path.join(a, "rdma"), os.path.join(b, "rdma")

    def rdma(d, qp, comm, state, pid):
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "res-qp.txt"), "w") as f:
            f.write("link mlx4_0/1 lqpn %s type UD state %s sq-psn 0 comm [ib_ipoib] \n"
                    "link mlx4_0/1 lqpn 1 type GSI state RTS sq-psn 0 comm [%s] \n"
                    "link mlx4_0/1 lqpn 26 type RC state INIT pid %s comm ibv_rc_pingpong \nrc=0\n"
                    % (qp, state, comm, pid))
        with open(os.path.join(d, "res-qp-j.txt"), "w") as f:
            f.write('[{"lqpn":%s,"state":"%s","comm":"%s"}]\nrc=0\n' % (qp, state, comm))
        return d
    yield from case("rdma outputs differing in a QP number, the MAD layer's name and a PID pass",
                    compare.compare_rdma("cmp", rdma(ra, 520, "ib_core", "RTS", 170),
                                         rdma(rb, 24, "ib_mad", "RTS", 183)), None)
    yield from case("rdma outputs with another QP state fail",
                    compare.compare_rdma("cmp", rdma(ra, 520, "ib_core", "RTS", 170),
                                         rdma(rb, 24, "ib_mad", "RTR", 183)),
                    r"res-qp: as under inbox: line 1, after 'state': inbox 'RTS', ours 'RTR'")
    yield from case("rdma outputs with another special QP number fail",
                    compare.compare_rdma("cmp", rdma(ra, 0, "ib_core", "RTS", 170),
                                         rdma(rb, 1, "ib_mad", "RTS", 183)),
                    r"after 'lqpn': inbox '0', ours '1'")
    yield from case("rdma JSON with another owner fails",
                    compare.compare_rdma("cmp", rdma(ra, 520, "ib_core", "RTS", 170),
                                         rdma(rb, 24, "ib_sa", "RTS", 183)),
                    r"res-qp-j: .*comm: inbox 'ib_core', ours 'ib_sa'")

    # the guest library's plans
    lib = os.path.join(engine.TOP, "tests/testbed/guest/lib.sh")

    def script(body):
        r = subprocess.run(["bash", "-c", ". %s; %s" % (lib, body)], text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           env=dict(os.environ, TESTNAME="s"))
        return r.stdout.splitlines()
    yield from case("a script reporting fewer checks than planned fails",
                    script("plan 2; pass one; exit 0"), r"s: the script reported 1 checks, it plans 2")
    yield from case("a script exiting non-zero fails", script("plan 1; pass one; exit 4"),
                    r"s: the script exited with status 4")
    yield from case("checks made in a subshell count",
                    script("plan 2; pass one; (pass two); exit 0"), None)

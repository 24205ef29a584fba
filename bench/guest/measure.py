# SPDX-License-Identifier: GPL-2.0
"""The measurements of make bench, taken on node 1 (node 2 serves the other
side through rpc.py).  Each returns a list of samples:
(metric, value, extra) where extra holds the card's work counters."""
import json
import os
import re
import subprocess

from rpc import exported
from stack import (IBDEV, clock, count_delta, counts, cpu_busy, meminfo,
                   read, sh, wait_for)

TOOLS = os.environ.get('BENCH_TOOLS', 'build/bench')
TCP = 18515		# perftest's handshake port
IPOIB_NET = '10.77.0.'


def secs():
    return float(os.environ.get('BENCH_SECS', '1'))


# measurements that failed in the current group: (what, error); main.py
# reports them and the group goes on with its next measurement
ERRORS = []


def attempt(out, what, fn):
    """Append fn()'s sample to out; a failure is recorded, not raised."""
    try:
        out.append(fn())
    except Exception as e:
        ERRORS.append((what, '%s: %s' % (type(e).__name__, e)))


def timed(fn):
    """fn() with the card's counters around it: (result, counter deltas)."""
    c0 = counts()
    r = fn()
    return r, count_delta(c0, counts())


# --- control path: bench/tools/verbsbench ------------------------------
VB_TESTS = ['pd', 'cq', 'qp', 'mr-4k', 'mr-64m', 'mr-1g']
VB_HUGE = ['mr-64m-huge', 'mr-1g-huge']


def hugepages(n):
    with open('/proc/sys/vm/nr_hugepages', 'w') as f:
        f.write('%d\n' % n)
    got = int(read('/proc/sys/vm/nr_hugepages'))
    if got < n:
        raise RuntimeError('only %d of %d huge pages' % (got, n))


def verbsbench(test, threads):
    def run():
        out = sh(['%s/verbsbench' % TOOLS, '-d', IBDEV, '-t', str(threads),
                  '-D', str(secs()), test], timeout=300)
        return json.loads(out.strip().splitlines()[-1])
    r, c = timed(run)
    return ('verbs %s x%d' % (test, threads), r['ops_per_sec'],
            dict(c, ops=r['ops'], seconds=r['seconds']))


def control_path():
    """Each test with 1 and 4 threads, but 1 GiB registrations with one: the
    guest has 2 GiB, and four concurrent registrations of one 1 GiB buffer
    failed now and then with ENOMEM under the in-tree stack."""
    out = []
    runs = [(test, t) for t in (1, 4) for test in VB_TESTS
            if t == 1 or '1g' not in test]
    for test, t in runs:
        attempt(out, 'verbs %s x%d' % (test, t), lambda: verbsbench(test, t))
    # 1 GiB of 2 MiB pages plus 64 MiB per thread; released after
    hugepages(512 + 4 * 32 + 8)
    try:
        for test, t in [(x, t) for t in (1, 4) for x in VB_HUGE
                        if t == 1 or '1g' not in x]:
            attempt(out, 'verbs %s x%d' % (test, t), lambda: verbsbench(test, t))
    finally:
        hugepages(0)
    return out


def slab_per_1000_qps():
    """Slab taken by 1000 RC QPs (verbsbench --hold-qps), in bytes."""
    s0 = meminfo('Slab')
    p = subprocess.Popen(['%s/verbsbench' % TOOLS, '-d', IBDEV,
                          '--hold-qps', '1000'], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if 'held_qps' not in line:
        p.kill()
        raise RuntimeError('verbsbench --hold-qps: %r' % line)
    s1 = meminfo('Slab')
    p.stdin.close()
    if p.wait(120):
        raise RuntimeError('verbsbench --hold-qps exited %d' % p.returncode)
    return [('slab per 1000 QPs', s1 - s0, {})]


# --- MADs ---------------------------------------------------------------
def umad_dev(port):
    for d in sorted(os.listdir('/sys/class/infiniband_mad')):
        base = '/sys/class/infiniband_mad/' + d
        if d.startswith('umad') and read(base + '/ibdev') == IBDEV and \
                read(base + '/port') == str(port):
            return '/dev/infiniband/' + d
    raise RuntimeError('no umad device for %s port %d' % (IBDEV, port))


@exported
def lid(port):
    return int(read('/sys/class/infiniband/%s/ports/%d/lid' % (IBDEV, port)), 16)


def madbench(test, *args):
    def run():
        out = sh(['%s/madbench' % TOOLS, '-d', umad_dev(1), '-D', str(secs()),
                  test] + [str(a) for a in args], timeout=120)
        return json.loads(out.strip().splitlines()[-1])
    r, c = timed(run)
    return r['ops_per_sec'], dict(c, ops=r['ops'], errors=r.get('errors', 0))


@exported
def spawn(name, cmd):
    """Start cmd in the background on this node, remembered by name."""
    SPAWNED[name] = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)


@exported
def reap(name, limit=60):
    """Wait for a spawned command: (status, output)."""
    p = SPAWNED.pop(name)
    try:
        out, _ = p.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        return -9, out
    return p.returncode, out


@exported
def stop(name):
    """End a spawned server: (status, output)."""
    p = SPAWNED.get(name)
    if p and p.poll() is None:
        p.terminate()
    return reap(name, 30)


SPAWNED = {}


@exported
def listening(port):
    """A TCP socket of this node listens on port (/proc/net/tcp{,6})."""
    for f in ('/proc/net/tcp', '/proc/net/tcp6'):
        try:
            lines = open(f).readlines()[1:]
        except OSError:
            continue
        for line in lines:
            fl = line.split()
            if fl[3] == '0A' and int(fl[1].rsplit(':', 1)[1], 16) == port:
                return True
    return False


def mads(peer):
    out = []
    peer_lid = peer.call('lid', 1)
    attempt(out, 'SMP', lambda: ('SMP NodeInfo to the peer',) + madbench('smp', peer_lid))
    attempt(out, 'SA', lambda: ('SA PathRecord queries',) + madbench('sa-path'))
    # ibping flood: the peer's ibping server answers vendor MADs
    peer.call('spawn', 'ibping', ['ibping', '-S', '-C', IBDEV, '-P', '1'])
    try:
        n = max(500, int(5000 * secs()))
        t0 = clock()
        txt, c = timed(lambda: sh(['ibping', '-C', IBDEV, '-P', '1', '-f',
                                   '-c', str(n), '-L',
                                   str(peer.call('lid', 1))], timeout=300))
        wall = clock() - t0
    finally:
        peer.call('stop', 'ibping')
    m = re.search(r'(\d+) packets transmitted, (\d+) received.*time ([\d.]+) ?ms', txt)
    if not m or int(m.group(2)) == 0:
        raise RuntimeError('ibping: no statistics: %r' % txt[-300:])
    # replies per second of the whole run: ibping's own "time" (whole
    # milliseconds of its loop) swung from 0.07 to 15 times the other
    # stack's over the rounds of one run
    out.append(('ibping flood', int(m.group(2)) / wall,
                dict(c, received=int(m.group(2)), ibping_ms=float(m.group(3)))))
    return out


# --- perftest across the cable -------------------------------------------
BW = [(b, s) for b in ('ib_write_bw', 'ib_send_bw', 'ib_read_bw')
      for s in (64, 4096, 65536)]
LAT = ['ib_send_lat', 'ib_write_lat', 'ib_read_lat']


def perftest_pair(peer, prog, opts):
    common = [prog, '-d', IBDEV, '-i', '1', '-F', '-p', str(TCP)] + opts
    peer.call('spawn', 'perftest', common)
    try:
        wait_for('%s server listening on node 2' % prog,
                 lambda: peer.call('listening', TCP), 60, 0.1)
        txt, c = timed(lambda: sh(common + [os.environ['PEER']], timeout=180))
    finally:
        st, stxt = peer.call('reap', 'perftest', 60)
    if st:
        raise RuntimeError('%s server exited %d: %s' % (prog, st, stxt[-300:]))
    rows = [ln.split() for ln in txt.splitlines()
            if re.match(r'^\s*\d+\s+\d+\s+[\d.]', ln)]
    if not rows:
        raise RuntimeError('%s: no results: %s' % (prog, txt[-300:]))
    # a figure of 0 (perftest printed 0.00 now and then under the hog) is
    # a failed measurement, not a rate
    if not all(float(x) > 0 for x in rows[-1][2:5]):
        raise RuntimeError('%s: a zero figure: %s' % (prog, ' '.join(rows[-1])))
    return rows[-1], c


# iterations per second of BENCH_SECS by message size: about a second each
# under TCG (perftest's -D mode measured nothing now and then at 1 s)
ITERS = {64: 8000, 4096: 4000, 65536: 1000}


def iters(size):
    return str(max(100, int(ITERS[size] * secs())))


def perftest(peer):
    out = []

    def bw(prog, size):
        row, c = perftest_pair(peer, prog, ['-s', str(size), '-n', iters(size)])
        # bytes iterations BW-peak BW-average MsgRate
        return ('%s %dB' % (prog, size), float(row[3]), dict(c, mpps=float(row[4])))

    def rate():
        row, c = perftest_pair(peer, 'ib_write_bw',
                               ['-s', '64', '-q', '4', '-n', iters(64)])
        return ('ib_write_bw 64B 4 QPs msg rate', float(row[4]), c)

    def lat(prog):
        row, c = perftest_pair(peer, prog, ['-s', '8', '-n', '1000'])
        # bytes iterations t_min t_max t_typical ...
        return ('%s 8B' % prog, float(row[4]), c)
    for prog, size in BW:
        attempt(out, '%s %dB' % (prog, size), lambda: bw(prog, size))
    attempt(out, 'msg rate', rate)
    for prog in LAT:
        attempt(out, prog, lambda: lat(prog))
    return out


# --- IPoIB ---------------------------------------------------------------
@exported
def ipoib_setup(node, mode):
    """ib0 up with its test address, in mode (datagram or connected)."""
    sh(['ip', 'link', 'set', 'ib0', 'down'])
    with open('/sys/class/net/ib0/mode', 'w') as f:
        f.write(mode + '\n')
    sh(['ip', 'link', 'set', 'ib0', 'mtu',
        '65520' if mode == 'connected' else '2044'])
    sh(['ip', 'addr', 'replace', IPOIB_NET + str(node) + '/24', 'dev', 'ib0'])
    sh(['ip', 'link', 'set', 'ib0', 'up'])


@exported
def ipoib_down():
    """ib0 down and back in datagram mode: connected mode's connections end
    before the stack is unloaded.  (Unloading the in-tree ib_ipoib with
    them alive, both nodes at once, warned "Destroy of kernel CQ shouldn't
    fail" on 6.1 and took 15 s: bench/README.md, "Findings".)"""
    sh(['ip', 'link', 'set', 'ib0', 'down'])
    with open('/sys/class/net/ib0/mode', 'w') as f:
        f.write('datagram\n')


@exported
def busy():
    return cpu_busy()


def iperf(peer, args):
    """One iperf3 run to the peer's server: its JSON and the two nodes'
    busy CPU seconds."""
    b1, b2 = cpu_busy(), peer.call('busy')
    (txt, c) = timed(lambda: sh(['iperf3', '-c', IPOIB_NET + '2', '-J',
                                 '-t', str(max(1, round(2 * secs())))] + args,
                                timeout=120))
    cpu = cpu_busy() - b1 + peer.call('busy') - b2
    return json.loads(txt), cpu, c


def ipoib(peer):
    out = []
    peer.call('spawn', 'iperf3', ['iperf3', '-s'])
    try:
        for mode in ('datagram', 'connected'):
            ipoib_setup(1, mode)
            peer.call('ipoib_setup', 2, mode)
            wait_for('%s: ping of node 2' % mode, lambda: subprocess.run(
                ['ping', '-c', '1', '-W', '1', IPOIB_NET + '2'],
                stdout=subprocess.DEVNULL).returncode == 0, 60, 0.1)
            wait_for('iperf3 server', lambda: peer.call('listening', 5201), 30, 0.1)
            for streams in (1, 4):
                j, cpu, c = iperf(peer, ['-P', str(streams)])
                s = j['end']['sum_received']
                name = 'IPoIB %s TCP %d stream%s' % (mode, streams,
                                                      's' if streams > 1 else '')
                out.append((name, s['bits_per_second'] / 1e9, c))
                if streams == 1:
                    out.append(('IPoIB %s CPU s per GB' % mode,
                                cpu / (s['bytes'] / 1e9), {}))
            if mode == 'datagram':
                j, _, c = iperf(peer, ['-u', '-l', '64', '-b', '0'])
                s = j['end']['sum']
                out.append(('IPoIB UDP 64B packets/s',
                            (s['packets'] - s['lost_packets']) / s['seconds'], c))
                txt = sh(['ping', '-c', '100', '-i', '0.01', '-q',
                          IPOIB_NET + '2'])
                m = re.search(r'= [\d.]+/([\d.]+)/', txt)
                if not m:
                    raise RuntimeError('ping: no rtt: %r' % txt[-200:])
                out.append(('IPoIB ping rtt', float(m.group(1)) * 1000, {}))
    finally:
        peer.call('stop', 'iperf3')
        ipoib_down()
        peer.call('ipoib_down')
    return out

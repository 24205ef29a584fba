#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench, in the guest (bench/run boots two nodes and runs this on
both): node 1 measures, node 2 serves.  Rounds alternate the stacks (ours,
in-tree, ours, ...) within this one boot, each from a cold load; every
sample goes to /vmout/bench.jsonl as one JSON object:
  {"metric", "unit", "better", "stack", "round", "load", "value", "extra"}
and every failed group as {"error", "group", "stack", "round", "load"}.

Environment: BENCH_ROUNDS (5), BENCH_HOG_ROUNDS (1: rounds of each stack
with the host's CPU hog), BENCH_SECS (1: seconds per measurement),
BENCH_GROUPS (all: bringup control slab mads perftest ipoib)."""
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402
import rpc  # noqa: E402
import stack  # noqa: E402

GROUPS = ['bringup', 'control', 'slab', 'mads', 'perftest', 'ipoib']
# metric name (or its start) -> unit, which way is better
UNITS = [
    ('bring-up: to registered', 's', 'lower'),
    ('bring-up: to ACTIVE', 's', 'lower'),
    ('bring-up: firmware commands', 'commands', 'lower'),
    ('bring-up: slab', 'bytes', 'lower'),
    ('unload', 's', 'lower'),
    ('verbs ', 'ops/s', 'higher'),
    ('slab per 1000 QPs', 'bytes', 'lower'),
    ('SMP', 'MADs/s', 'higher'),
    ('SA ', 'queries/s', 'higher'),
    ('ibping', 'round trips/s', 'higher'),
    ('ib_write_bw 64B 4 QPs', 'Mpps', 'higher'),
    ('ib_', 'MB/s', 'higher'),
    ('IPoIB UDP', 'packets/s', 'higher'),
    ('IPoIB ping', 'us', 'lower'),
    ('IPoIB datagram CPU', 'CPU s/GB', 'lower'),
    ('IPoIB connected CPU', 'CPU s/GB', 'lower'),
    ('IPoIB', 'Gbit/s', 'higher'),
]
for _lat in measure.LAT:
    UNITS.insert(0, ('%s 8B' % _lat, 'us', 'lower'))


def unit_of(metric):
    for start, unit, better in UNITS:
        if metric.startswith(start):
            return unit, better
    raise KeyError('no unit for metric %r' % metric)


def log(msg):
    print('bench: %s' % msg, flush=True)


OUT = None	# node 1's /vmout/bench.jsonl (main)


def emit(rec):
    OUT.write(json.dumps(rec) + '\n')
    OUT.flush()


rpc.exported(stack.bring_up)
rpc.exported(stack.tear_down)
rpc.exported(stack.unload_all)


def bringup_samples(b, t):
    return [('bring-up: to registered', b['registered_s'], {}),
            ('bring-up: to ACTIVE', b['active_s'],
             {k: b[k] for k in ('upper_loaded_s', 'sm_started_s', 'states_at_sm')}),
            ('bring-up: firmware commands', b['cmds_active'],
             {'to_registered': b['cmds_registered']}),
            ('bring-up: slab', b['slab_bytes'], {}),
            ('unload', t['unload_s'], {'cmds': t['cmds_unload'],
                                        'left_by_modprobe': t['left_by_modprobe']})]


def one_round(peer, st, rnd, load, groups):
    tag = {'stack': st, 'round': rnd, 'load': load}
    log('round %d, %s stack, %s host' % (rnd, st, load))
    job = peer.start('bring_up', st, [], [1, 2])
    b = stack.bring_up(st, [1, 2])
    peer.join(job)
    samples = []
    for g in groups:
        if g == 'bringup':
            continue
        t0 = stack.clock()
        try:
            samples += {'control': measure.control_path,
                        'slab': measure.slab_per_1000_qps,
                        'mads': lambda: measure.mads(peer),
                        'perftest': lambda: measure.perftest(peer),
                        'ipoib': lambda: measure.ipoib(peer)}[g]()
        except Exception as e:
            log('%s failed: %s' % (g, traceback.format_exc()))
            emit(dict(tag, error='%s: %s' % (type(e).__name__, e), group=g))
        for what, err in measure.ERRORS:
            log('%s: %s failed: %s' % (g, what, err))
            emit(dict(tag, error=err, group='%s: %s' % (g, what)))
        del measure.ERRORS[:]
        log('%s: %.0f s' % (g, stack.clock() - t0))
    job = peer.start('tear_down')
    t = stack.tear_down()
    peer.join(job)
    if 'bringup' in groups:
        samples = bringup_samples(b, t) + samples
    for metric, value, extra in samples:
        unit, better = unit_of(metric)
        emit(dict(tag, metric=metric, unit=unit, better=better,
                  value=value, extra=extra))


def main():
    if os.environ.get('NODE') == '2':
        stack.unload_all()
        rpc.serve(log)
        return 0
    global OUT
    OUT = open('/vmout/bench.jsonl', 'a')
    rounds = int(os.environ.get('BENCH_ROUNDS', '5'))
    hog_rounds = int(os.environ.get('BENCH_HOG_ROUNDS', '1'))
    groups = os.environ.get('BENCH_GROUPS', ' '.join(GROUPS)).split()
    bad = [g for g in groups if g not in GROUPS]
    if bad:
        log('unknown groups %s (known: %s)' % (bad, GROUPS))
        return 2
    stack.unload_all()
    peer = rpc.Peer(os.environ['PEER'], 120, stack.clock, stack.nap)
    plan = [(r, s, 'quiet') for r in range(rounds) for s in ('ours', 'inbox')]
    plan += [(r, s, 'hog') for r in range(hog_rounds) for s in ('ours', 'inbox')]
    t0 = stack.clock()
    for rnd, st, load in plan:
        if load == 'hog':
            stack.hog(True)
        try:
            one_round(peer, st, rnd, load, groups)
        finally:
            if load == 'hog':
                stack.hog(False)
        log('%.0f s so far' % (stack.clock() - t0))
    peer.close()
    emit({'done': True, 'seconds': stack.clock() - t0})
    return 0


if __name__ == '__main__':
    sys.exit(main())

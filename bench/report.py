#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's report: from RESULTS/samples.jsonl (bench/guest/main.py's
samples) and the modules' ELF sections, RESULTS/table.md, RESULTS/chart.png
and RESULTS/summary.json; the table also on stdout.

Every ratio reads the same way: above 1.0, ours is better.  Higher-better
metrics: ours / in-tree; lower-better ones (times, bytes, CPU): in-tree /
ours.  Each round measured both stacks in turn, so a round gives one ratio;
the table has the median of the rounds' ratios and their min and max.

    bench/report.py [--kernel K] [--release R] RESULTS
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the goals of issue 17 by kind of path: data paths at least as fast, control
# paths 1.3 times as fast, the modules at most 0.4 of the in-tree ones
GOALS = {'data': 1.0, 'control': 1.3, 'footprint': 2.5}
# ours, as built for RELEASE, and the in-tree modules that do the same work
OURS = ['core/ib_core', 'mad/ib_mad', 'sa/ib_sa', 'cm/ib_cm', 'umad/ib_umad',
        'uverbs/ib_uverbs', 'ipoib/ib_ipoib', 'mlx4_core/mlx4_core',
        'mlx4_ib/mlx4_ib']
INTREE = ['drivers/infiniband/core/ib_core', 'drivers/infiniband/core/ib_cm',
          'drivers/infiniband/core/ib_umad', 'drivers/infiniband/core/ib_uverbs',
          'drivers/infiniband/ulp/ipoib/ib_ipoib',
          'drivers/net/ethernet/mellanox/mlx4/mlx4_core',
          'drivers/infiniband/hw/mlx4/mlx4_ib']


def goal(row):
    """The row's goal, or None: of the footprint, only the modules' size
    has one (slab has none)."""
    if row['kind'] == 'footprint' and not row['metric'].startswith('modules'):
        return None
    return GOALS[row['kind']]


def kind(metric):
    if metric.startswith(('ib_', 'IPoIB')):
        return 'data'
    if metric.startswith(('slab', 'bring-up: slab', 'modules')):
        return 'footprint'
    return 'control'


def elf_size(path):
    """text + rodata + data of a module as loaded (not its .init/.exit)."""
    if path.endswith('.xz'):
        raw = subprocess.run(['xz', '-dc', path], check=True,
                             stdout=subprocess.PIPE).stdout
        with tempfile.NamedTemporaryFile(suffix='.ko') as f:
            f.write(raw)
            f.flush()
            return elf_size(f.name)
    txt = subprocess.run(['size', '-A', path], check=True, text=True,
                         stdout=subprocess.PIPE).stdout
    total = 0
    for line in txt.splitlines()[2:]:
        f = line.split()
        if len(f) == 3 and f[0].startswith(('.text', '.rodata', '.data')):
            total += int(f[1])
    return total


def footprint(release):
    """(ours, in-tree) bytes of text+rodata+data over the whole stack."""
    build = subprocess.run(['make', '-s', 'print-builddir', 'KVER=' + release],
                           cwd=TOP, check=True, text=True,
                           stdout=subprocess.PIPE).stdout.strip()
    ours = sum(elf_size(os.path.join(build, m + '.ko')) for m in OURS)
    intree = 0
    for m in INTREE:
        base = '/lib/modules/%s/kernel/%s.ko' % (release, m)
        intree += elf_size(base if os.path.exists(base) else base + '.xz')
    return ours, intree


def load(path):
    samples, errors, done = [], [], None
    for line in open(path):
        rec = json.loads(line)
        if 'done' in rec:
            done = rec
        elif 'error' in rec:
            errors.append(rec)
        else:
            samples.append(rec)
    return samples, errors, done


def summarize(samples):
    """Per (metric, load): medians per stack and the rounds' ratios."""
    by = {}
    for s in samples:
        key = (s['metric'], s['load'])
        e = by.setdefault(key, {'unit': s['unit'], 'better': s['better'],
                                'ours': {}, 'inbox': {}})
        e[s['stack']][s['round']] = s['value']
    rows = []
    for (metric, ld), e in by.items():
        ratios = []
        for r in sorted(set(e['ours']) & set(e['inbox'])):
            o, i = e['ours'][r], e['inbox'][r]
            if e['better'] == 'higher':
                ratios.append(o / i if i else float('inf'))
            else:
                ratios.append(i / o if o else float('inf'))
        rows.append({'metric': metric, 'load': ld, 'unit': e['unit'],
                     'better': e['better'], 'kind': kind(metric),
                     'ours': statistics.median(e['ours'].values()) if e['ours'] else None,
                     'inbox': statistics.median(e['inbox'].values()) if e['inbox'] else None,
                     'ratio': statistics.median(ratios) if ratios else None,
                     'min': min(ratios) if ratios else None,
                     'max': max(ratios) if ratios else None,
                     'rounds': len(ratios)})
    return rows


def work(samples):
    """The card's work per operation (control path and MADs: samples with
    an ops count) or per measurement: firmware commands, UAR writes and EQ
    interrupts, median over the rounds, per stack: the profile that says
    where a ratio comes from whatever the host's speed."""
    by = {}
    for s in samples:
        ex = s.get('extra', {})
        if s['load'] != 'quiet' or 'interrupts' not in ex:
            continue
        n = ex.get('ops') or 1
        e = by.setdefault(s['metric'], {'per': 'op' if ex.get('ops') else 'run',
                                         'ours': [], 'inbox': []})
        e[s['stack']].append(tuple(ex[k] / n for k in ('cmds', 'uar_writes', 'interrupts')))
    out = ['| metric | per | commands ours | in-tree | UAR writes ours | in-tree | interrupts ours | in-tree |',
           '|---|---|---:|---:|---:|---:|---:|---:|']
    for m, e in by.items():
        med = {st: [statistics.median(x[i] for x in e[st]) if e[st] else None
                    for i in range(3)] for st in ('ours', 'inbox')}
        out.append('| %s | %s | %s |' % (m, e['per'], ' | '.join(
            '%s | %s' % (fmt(med['ours'][i]), fmt(med['inbox'][i])) for i in range(3))))
    return '\n'.join(out) + '\n'


def fmt(v):
    if v is None:
        return '-'
    if abs(v) >= 1000:
        return '%.0f' % v
    if abs(v) >= 10:
        return '%.1f' % v
    return '%.3g' % v


def table(rows, hog, head):
    out = [head, '',
           '| metric | unit | ours | in-tree | ratio | min | max | rounds | goal | with the hog |',
           '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|']
    for r in rows:
        g = goal(r)
        mark = ''
        if g and r['ratio'] is not None and r['ratio'] < g:
            mark = ' **below**'
        h = hog.get(r['metric'])
        out.append('| %s | %s | %s | %s | %s%s | %s | %s | %d | %s | %s |' % (
            r['metric'], r['unit'], fmt(r['ours']), fmt(r['inbox']),
            fmt(r['ratio']), mark, fmt(r['min']), fmt(r['max']), r['rounds'],
            ('>= %.1f' % g) if g else '-',
            fmt(h['ratio']) if h else '-'))
    return '\n'.join(out) + '\n'


def chart(rows, hog, path, title):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    rows = [r for r in rows if r['ratio'] is not None]
    n = len(rows)
    fig, ax = plt.subplots(figsize=(10, 0.32 * n + 1.6))
    ys = list(range(n))[::-1]
    colors = {'data': '#4c78a8', 'control': '#f58518', 'footprint': '#54a24b'}
    ax.barh(ys, [r['ratio'] for r in rows], height=0.6,
            color=[colors[r['kind']] for r in rows],
            xerr=[[r['ratio'] - r['min'] for r in rows],
                  [r['max'] - r['ratio'] for r in rows]],
            error_kw={'ecolor': 'black', 'capsize': 2, 'lw': 0.8})
    hx = [(y, hog[r['metric']]['ratio']) for y, r in zip(ys, rows)
          if hog.get(r['metric']) and hog[r['metric']]['ratio'] is not None]
    if hx:
        ax.scatter([x for _, x in hx], [y for y, _ in hx], marker='x',
                   color='black', zorder=3, label='with a CPU hog on the host')
        ax.legend(loc='lower right', fontsize=7)
    ax.axvline(1.0, color='black', lw=0.8)
    ax.axvline(1.3, color='grey', lw=0.6, ls='--')
    ax.set_yticks(ys)
    ax.set_yticklabels([r['metric'] for r in rows], fontsize=7)
    ax.set_xscale('log')
    # one wild round would squeeze the rest: the axis stops at 0.2 and 5
    # (the table has every figure)
    ax.set_xlim(0.2, 5)
    ticks = [0.25, 0.5, 0.8, 1, 1.3, 2, 4]
    ax.set_xticks(ticks)
    ax.set_xticklabels(['%g' % t for t in ticks], fontsize=7)
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlabel('ours vs in-tree (median of rounds, whiskers: min-max, cut at 0.2 and 5; '
                  '>1: ours better; blue data, orange control, green footprint)', fontsize=7)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--kernel', default='6.1')
    ap.add_argument('--release')
    ap.add_argument('results')
    a = ap.parse_args()
    samples, errors, done = load(os.path.join(a.results, 'samples.jsonl'))
    rows = summarize(samples)
    if a.release:
        ours, intree = footprint(a.release)
        rows.append({'metric': 'modules: text+rodata+data', 'load': 'quiet',
                     'unit': 'bytes', 'better': 'lower', 'kind': 'footprint',
                     'ours': ours, 'inbox': intree, 'ratio': intree / ours,
                     'min': intree / ours, 'max': intree / ours, 'rounds': 1})
    quiet = [r for r in rows if r['load'] == 'quiet']
    hog = {r['metric']: r for r in rows if r['load'] == 'hog'}
    head = ('make bench on Linux %s (%s): ours against the in-tree stack, %d rounds'
            % (a.kernel, a.release or '?', max([r['rounds'] for r in quiet] or [0])))
    md = table(quiet, hog, '### ' + head)
    md += ('\nThe card\'s work (the model\'s counters, medians of the quiet rounds):\n\n' +
           work(samples))
    if errors:
        md += '\nFailed measurements:\n\n' + ''.join(
            '- %s, %s stack, round %s (%s): %s\n' % (e['group'], e['stack'], e['round'],
                                                     e['load'], e['error'])
            for e in errors)
    if not done:
        md += '\nThe run did not finish: the table has what was measured.\n'
    with open(os.path.join(a.results, 'table.md'), 'w') as f:
        f.write(md)
    with open(os.path.join(a.results, 'summary.json'), 'w') as f:
        json.dump({'kernel': a.kernel, 'release': a.release, 'rows': rows,
                   'errors': errors, 'done': done}, f, indent=1)
    chart(quiet, hog, os.path.join(a.results, 'chart.png'), head)
    sys.stdout.write(md)
    return 1 if errors or not done or not samples else 0


if __name__ == '__main__':
    sys.exit(main())

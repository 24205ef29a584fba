# SPDX-License-Identifier: GPL-2.0
"""One node's stack: switching between ours and the in-tree modules within
one boot, loading, bringing the ports up under opensm, unloading; and the
requests to the host (the card's work counters, the CPU hog)."""
import glob
import os
import shutil
import subprocess
import time

KVER = os.environ.get('KVER', os.uname().release)
MODDIR = '/lib/modules/' + KVER
IBDEV = 'mlx4_0'
SYSDEV = '/sys/class/infiniband/' + IBDEV
# the index tests/vm/run made for ours (installed by guest-init) and the
# kernel's own, made by bench/run on the host (without our updates/)
INDEX = {'ours': '/vmout/modules-index',
         'inbox': os.environ.get('BENCH_INBOX_INDEX', '')}
# what an admin loads; modprobe pulls the rest (ib_core, mlx4_core, and
# for ours ib_mad, ib_sa, ib_cm)
UPPER = ['ib_umad', 'ib_uverbs', 'ib_ipoib']
# their unload order: the in-tree mlx4_ib holds ib_uverbs
UNLOAD = ['ib_ipoib', 'ib_umad', 'mlx4_ib', 'ib_uverbs']
# every module either stack may have loaded, users first
ALL = ['ib_ipoib', 'ib_iser', 'rdma_ucm', 'rdma_cm', 'iw_cm', 'ib_cm',
       'ib_umad', 'ib_uverbs', 'ib_sa', 'mlx4_ib', 'mlx4_en', 'ib_mad',
       'mlx4_core', 'ib_core']


def clock():
    return time.monotonic()


def nap(s):
    time.sleep(s)


def sh(cmd, timeout=120, check=True):
    """Run cmd (a list); its stdout.  A failure raises with its stderr."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=timeout, check=False)
    if check and p.returncode:
        raise RuntimeError('%s: exit %d: %s' % (' '.join(cmd), p.returncode,
                                                p.stderr.strip()[-400:]))
    return p.stdout


def wait_for(what, cond, limit, step=0.01):
    """Poll cond until true; raise naming what after limit seconds."""
    end = clock() + limit
    while not cond():
        if clock() > end:
            raise TimeoutError('%s: not within %ss' % (what, limit))
        nap(step)


def read(path):
    with open(path) as f:
        return f.read().strip()


def host_request(name, line, limit=30):
    """Ask the host (bench/run) something through /vmout; its answer."""
    done = '/vmout/%s-done' % name
    if os.path.exists(done):
        os.unlink(done)
    tmp = '/vmout/.%s' % name
    with open(tmp, 'w') as f:
        f.write(line + '\n')
    os.rename(tmp, '/vmout/' + name)
    wait_for('the host\'s answer to %s %s' % (name, line),
             lambda: os.path.exists(done), limit, 0.02)
    ans = read(done)
    os.unlink(done)
    return ans


def counts():
    """The card's work counters: firmware commands, UAR writes, EQ
    interrupts (the model's, read by the host)."""
    ans = host_request('bench-stat', 'counts').split()
    return {'cmds': int(ans[0]), 'uar_writes': int(ans[1]),
            'interrupts': int(ans[2])}


def count_delta(a, b):
    return {k: b[k] - a[k] for k in a}


def hog(on):
    """A CPU hog on the host's other core, started or stopped by the host."""
    return host_request('bench-hog', 'on' if on else 'off')


def use_stack(stack):
    """Make modprobe resolve to that stack's modules."""
    src = INDEX[stack]
    if not src or not os.path.isdir(src):
        raise RuntimeError('no module index for %s (%r)' % (stack, src))
    for f in glob.glob(src + '/modules.*'):
        shutil.copy(f, MODDIR)


def loaded():
    return [m for m in ALL if os.path.exists('/sys/module/%s/refcnt' % m)]


def meminfo(key):
    for line in open('/proc/meminfo'):
        k, v = line.split(':', 1)
        if k == key:
            return int(v.split()[0]) * 1024
    raise KeyError(key)


def cpu_busy():
    """Busy CPU seconds of this node so far (all CPUs; /proc/stat)."""
    f = open('/proc/stat').readline().split()
    user, nice, system, _idle, _iow, irq, softirq, steal = map(int, f[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf('SC_CLK_TCK')


def stop_sm():
    subprocess.run(['pkill', '-x', 'opensm'], check=False)
    wait_for('opensm to end',
             lambda: subprocess.run(['pgrep', '-x', 'opensm'],
                                    stdout=subprocess.DEVNULL).returncode, 30, 0.1)


def unload_all():
    """Everything of either stack, untimed (the bench's starting point)."""
    stop_sm()
    for _ in range(len(ALL)):
        left = loaded()
        if not left:
            return
        for m in left:
            if not glob.glob('/sys/module/%s/holders/*' % m):
                sh(['modprobe', '-r', m])
    raise RuntimeError('modules still loaded: %s' % loaded())


def port_guid(p):
    g = read('%s/ports/%d/gids/0' % (SYSDEV, p)).replace(':', '')
    return '0x' + g[16:]


def start_sm(ports):
    """opensm on each port (one subnet per cable), as tests/vm/guest-init."""
    for p in ports:
        cache = '/var/cache/opensm-port%d' % p
        os.makedirs(cache, exist_ok=True)
        env = dict(os.environ, OSM_CACHE_DIR=cache, OSM_TMP_DIR=cache)
        subprocess.Popen(['opensm', '-g', port_guid(p), '-f',
                          '/tmp/opensm-port%d.log' % p],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=env,
                         start_new_session=True)


def umad_ready(ports):
    have = set()
    for d in glob.glob('/sys/class/infiniband_mad/umad*'):
        try:
            if read(d + '/ibdev') == IBDEV:
                have.add(int(read(d + '/port')))
        except OSError:
            pass
    return all(p in have for p in ports)


def port_state(p):
    try:
        return read('%s/ports/%d/state' % (SYSDEV, p))
    except OSError:
        return ''


def bring_up(stack, sm_ports, ports=(1, 2), limit=240):
    """Load stack from nothing, as modprobe mlx4_ib then the upper modules;
    start opensm on sm_ports; the times to the device's registration and
    to every port ACTIVE, the card's commands and the slab it took."""
    use_stack(stack)
    if loaded():
        raise RuntimeError('modules still loaded: %s' % loaded())
    slab0 = meminfo('Slab')
    c0 = counts()
    t0 = clock()
    sh(['modprobe', 'mlx4_ib'])
    wait_for('%s registered' % IBDEV,
             lambda: all(port_state(p) for p in ports), limit)
    t_reg = clock() - t0
    c_reg = counts()
    sh(['modprobe', '-a'] + UPPER)
    t_upper = clock() - t0
    t_sm = None
    if sm_ports:
        wait_for('umad devices of ports %s' % (sm_ports,),
                 lambda: umad_ready(sm_ports), limit)
        start_sm(sm_ports)
        t_sm = clock() - t0
    # where the ports are when the SM starts: INIT once the link is up
    at_sm = [port_state(p) for p in ports]
    wait_for('ports %s ACTIVE' % (ports,),
             lambda: all('ACTIVE' in port_state(p) for p in ports), limit)
    t_act = clock() - t0
    c_act = counts()
    return {'registered_s': t_reg, 'active_s': t_act,
            'upper_loaded_s': t_upper, 'sm_started_s': t_sm,
            'states_at_sm': at_sm,
            'cmds_registered': c_reg['cmds'] - c0['cmds'],
            'cmds_active': c_act['cmds'] - c0['cmds'],
            'slab_bytes': meminfo('Slab') - slab0}


def tear_down(limit=120):
    """Stop opensm, then one modprobe -r of the upper modules and mlx4_ib
    (modprobe removes what they leave unused): the time and the commands."""
    stop_sm()
    c0 = counts()
    t0 = clock()
    sh(['modprobe', '-r', '-a'] + UNLOAD, timeout=limit)
    dt = clock() - t0
    c1 = counts()
    left = loaded()
    if left:
        unload_all()
    return {'unload_s': dt, 'cmds_unload': c1['cmds'] - c0['cmds'],
            'left_by_modprobe': left}

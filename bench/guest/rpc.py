# SPDX-License-Identifier: GPL-2.0
"""Node 1 drives the bench; node 2 serves its requests (make bench).

Newline-delimited JSON over TCP on the management network: a request names
a function of the guest's registry and its arguments; the answer carries its
return value or the exception's text.  A request marked "async" runs in a
thread and answers at once with a job number; "join" waits for the job.
"""
import json
import socket
import threading
import traceback

PORT = 7351
REGISTRY = {}


def exported(fn):
    """Make fn callable by the other node."""
    REGISTRY[fn.__name__] = fn
    return fn


class Jobs:
    """Functions running in the background on this node, by number."""

    def __init__(self):
        self.lock = threading.Lock()
        self.next = 1
        self.threads = {}

    def start(self, fn, args):
        box = {}

        def body():
            try:
                box['ret'] = fn(*args)
            except Exception as e:  # reported to the caller by join
                box['err'] = '%s: %s' % (type(e).__name__, e)
        t = threading.Thread(target=body, daemon=True)
        with self.lock:
            n = self.next
            self.next += 1
            self.threads[n] = (t, box)
        t.start()
        return n

    def join(self, n, timeout):
        with self.lock:
            t, box = self.threads.pop(n)
        t.join(timeout)
        if t.is_alive():
            raise TimeoutError('job %d still running after %ss' % (n, timeout))
        if 'err' in box:
            raise RuntimeError(box['err'])
        return box.get('ret')


def serve(log):
    """Node 2: answer node 1's requests until it says quit."""
    jobs = Jobs()
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(('0.0.0.0', PORT))
    ls.listen(1)
    conn, _ = ls.accept()
    f = conn.makefile('rw')
    for line in f:
        req = json.loads(line)
        fn, args = req['fn'], req.get('args', [])
        ans = {}
        try:
            if fn == 'quit':
                ans['ret'] = None
            elif fn == 'join':
                ans['ret'] = jobs.join(*args)
            elif req.get('async'):
                ans['ret'] = jobs.start(REGISTRY[fn], args)
            else:
                ans['ret'] = REGISTRY[fn](*args)
        except Exception as e:
            ans['err'] = '%s: %s' % (type(e).__name__, e)
            log('request %s failed: %s' % (fn, traceback.format_exc()))
        f.write(json.dumps(ans) + '\n')
        f.flush()
        if fn == 'quit':
            break
    conn.close()
    ls.close()


class Peer:
    """Node 1's handle on node 2."""

    def __init__(self, addr, wait_s, clock, nap):
        end = clock() + wait_s
        while True:
            try:
                self.sock = socket.create_connection((addr, PORT), timeout=5)
                break
            except OSError:
                if clock() > end:
                    raise
                nap(0.2)
        self.sock.settimeout(None)
        self.f = self.sock.makefile('rw')

    def call(self, fn, *args, is_async=False):
        self.f.write(json.dumps({'fn': fn, 'args': list(args),
                                 'async': is_async}) + '\n')
        self.f.flush()
        line = self.f.readline()
        if not line:
            raise RuntimeError('node 2 closed the connection during %s' % fn)
        ans = json.loads(line)
        if 'err' in ans:
            raise RuntimeError('node 2: %s: %s' % (fn, ans['err']))
        return ans['ret']

    def start(self, fn, *args):
        return self.call(fn, *args, is_async=True)

    def join(self, job, timeout=600):
        return self.call('join', job, timeout)

    def close(self):
        try:
            self.call('quit')
        finally:
            self.sock.close()

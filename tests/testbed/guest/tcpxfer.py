#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send or receive a deterministic stream over TCP and check its SHA-256.

  tcpxfer.py recv PORT MIB     listen (IPv4 and IPv6), receive MIB MiB, verify,
                               print the digest
  tcpxfer.py send HOST PORT MIB [RATE]   connect (retrying), send MIB MiB
                               (at most RATE MiB/s if given)
Both ends derive the same data from a fixed seed, so the receiver knows what
it must get without another channel.  TCPXFER_PROGRESS=FILE: the receiver
writes the bytes it has so far into FILE (once per MiB), for a test that
acts while a transfer runs.
"""
import errno
import hashlib
import os
import socket
import sys
import time

CHUNK = 1 << 20


def chunks(mib):
    block = hashlib.sha256(b"cx3-testbed").digest() * (CHUNK // 32)
    for i in range(mib):
        yield bytes([i & 0xFF]) + block[1:]


def main():
    mode = sys.argv[1]
    if mode == "recv":
        port, mib = int(sys.argv[2]), int(sys.argv[3])
        want = hashlib.sha256()
        for c in chunks(mib):
            want.update(c)
        # IPv6 and IPv4 alike (v4 clients appear as ::ffff:a.b.c.d)
        srv = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        srv.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # a port's bind bucket that cannot be allocated is EADDRINUSE too
        # (the kernel's fault injection under ipoib-kfault): tried for 30 s
        deadline = time.time() + 30
        while True:
            try:
                srv.bind(("::", port))
                break
            except OSError as e:
                if e.errno != errno.EADDRINUSE or time.time() > deadline:
                    raise
                time.sleep(0.1)
        srv.listen(1)
        srv.settimeout(300)
        conn, _ = srv.accept()
        conn.settimeout(300)
        got = hashlib.sha256()
        total = 0
        progress = os.environ.get("TCPXFER_PROGRESS")
        mark = 0
        while True:
            data = conn.recv(1 << 16)
            if not data:
                break
            got.update(data)
            total += len(data)
            if progress and total - mark >= CHUNK:
                mark = total
                with open(progress + ".new", "w") as f:
                    f.write("%d\n" % total)
                os.replace(progress + ".new", progress)
        ok = total == mib * CHUNK and got.digest() == want.digest()
        print(f"received {total} bytes, sha256 {got.hexdigest()}, "
              f"{'matches' if ok else 'DOES NOT match'}")
        return 0 if ok else 1
    host, port, mib = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rate = float(sys.argv[5]) if len(sys.argv) > 5 else 0
    deadline = time.time() + 120
    while True:
        try:
            s = socket.create_connection((host, port), timeout=10)
            break
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.5)
    s.settimeout(300)
    start = time.time()
    for i, c in enumerate(chunks(mib)):
        if rate > 0:
            # chunk i may start i/rate seconds after the first
            wait = start + i / rate - time.time()
            if wait > 0:
                time.sleep(wait)
        s.sendall(c)
    s.shutdown(socket.SHUT_WR)
    s.recv(1)
    s.close()
    print(f"sent {mib} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

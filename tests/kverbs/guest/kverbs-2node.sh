#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel verbs test between two nodes (tests/vm/run --stack ours
# --nodes 2; port 1 of node 1 is cabled to port 1 of node 2).  Each node
# loads ibstack_kverbs, reads its endpoint line from debugfs, swaps it with
# the other node's over the management network ($PEER), connects, and both
# run the peer test at once; its PASS/FAIL lines are reported here.
# The two ports need distinct LIDs (an SM, or auto-lid options that differ
# per node).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=kverbs-lib.sh
. "$here/kverbs-lib.sh"
t=kverbs-2node
dev=mlx4_0
port=${KVERBS_PORT:-1}
d=/sys/kernel/debug/ibstack_kverbs/$dev
: "${NODE:?}" "${PEER:?}"

# xchg TAG LINE: send LINE to the other node and print its line (node 1
# listens, node 2 connects; both bounded to 90 s)
xchg() {
	/usr/bin/python3 - "$NODE" "$PEER" "$1" "$2" <<'PY'
import socket
import sys
import time

node, peer, tag, line = sys.argv[1:5]
port = 18600 + sum(map(ord, tag)) % 300
end = time.time() + 90
if node == "1":
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(1)
    srv.settimeout(90)
    conn, _ = srv.accept()
else:
    while True:
        try:
            conn = socket.create_connection((peer, port), timeout=5)
            break
        except OSError:
            if time.time() > end:
                raise
            time.sleep(0.5)
conn.settimeout(90)
conn.sendall((line + "\n").encode())
got = b""
while not got.endswith(b"\n"):
    chunk = conn.recv(4096)
    if not chunk:
        break
    got += chunk
conn.close()
print(got.decode().strip())
PY
}

finish() { rmmod ibstack_kverbs 2>/dev/null; exit 0; }

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mark=$(kv_mark)
if ! kv_load selftest=0; then
	fail "$t: load ibstack_kverbs" "insmod failed or no module for $KVER"
	# let the other node give up without waiting for its timeouts
	xchg endpoint abort >/dev/null 2>&1
	xchg ready 0 >/dev/null 2>&1
	exit 0
fi
expect "$t: client added to $dev" kv_wait_log 10 "$mark" "ibstack_kverbs: add $dev\$"
# shellcheck disable=SC2317 # called through wait_for
active() { grep -q ACTIVE "/sys/class/infiniband/$dev/ports/$port/state"; }
expect "$t: port $port ACTIVE" wait_for 30 active
ok=1
echo "$port" >"$d/port" 2>/dev/null
mine=$(cat "$d/endpoint" 2>/dev/null) || { mine=abort; ok=0; }
expect "$t: endpoint line" [ "$ok" = 1 ]
theirs=$(xchg endpoint "$mine") || theirs=abort
echo "node $NODE: mine: $mine"
echo "node $NODE: peer: $theirs"
if [ "$ok" = 1 ] && [ "$theirs" != abort ]; then
	if [ "${mine%% *}" = "${theirs%% *}" ]; then
		fail "$t: distinct LIDs" "both ports have ${mine%% *}: run under an SM or give the nodes different auto-lid options"
		ok=0
	elif ! echo "$theirs" >"$d/peer"; then
		fail "$t: connect to the peer" "the peer line was refused (see dmesg)"
		ok=0
	else
		pass "$t: connect to the peer"
	fi
else
	fail "$t: endpoint exchange" "mine '$mine', peer '$theirs'"
	ok=0
fi
# both connected (or both giving up) before either sends
[ "$(xchg ready "$ok")" = 1 ] || ok=0
if [ "$ok" != 1 ]; then
	fail "$t: peer test" "not run (setup failed on one node)"
	finish
fi
mark=$(kv_mark)
echo 1 >"$d/run"
done_re="ibstack_kverbs: peer test done: "
if ! kv_wait_log 10 "$mark" "$done_re"; then
	fail "$t: peer test finished" "no summary line"
fi
kv_results "$mark" "$t"
# neither node tears down while the other may still use its memory
xchg ran "done" >/dev/null
mark=$(kv_mark)
expect "$t: unload" rmmod ibstack_kverbs
expect "$t: client removed from $dev" kv_wait_log 10 "$mark" \
	"ibstack_kverbs: remove $dev\$"
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel verbs test between two nodes (tests/vm/run --stack ours
# --nodes 2; port 1 of node 1 is cabled to port 1 of node 2).  Each node
# loads ibstack_kverbs, reads its endpoint line from debugfs, swaps it with
# the other node's over the management network ($PEER), connects, and both
# run the peer test at once; its PASS/FAIL lines are reported here.
# The two ports need distinct LIDs (an SM, or auto-lid options that differ
# per node).  The nodes swap their lines and meet with peer_xchg
# (tests/testbed/guest/lib.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=kverbs-lib.sh
. "$here/kverbs-lib.sh"
t=${TESTNAME:-kverbs-2node}
dev=mlx4_0
port=${KVERBS_PORT:-1}
d=/sys/kernel/debug/ibstack_kverbs/$dev
: "${NODE:?}" "${PEER:?}"
# the client added, the port ACTIVE, the endpoint line, the connection,
# the peer test's done line, the unload and its remove line
plan 7

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mark=$(kv_mark)
if ! kv_load selftest=0; then
	fail "$t: load ibstack_kverbs" "insmod failed or no module for $KVER"
	# let the other node give up without waiting for its timeouts
	peer_xchg kverbs-endpoint abort >/dev/null 2>&1
	peer_xchg kverbs-ready 0 >/dev/null 2>&1
	exit 0
fi
expect "$t: client added to $dev" kv_wait_log 10 "$mark" "ibstack_kverbs: add $dev\$"
# shellcheck disable=SC2317 # called through wait_for
active() { grep -q ACTIVE "/sys/class/infiniband/$dev/ports/$port/state"; }
expect "$t: port $port ACTIVE" wait_for 30 active
ok=0
kv_connect "$t" kverbs-endpoint "$d" "$port" && ok=1
# both connected (or both giving up) before either sends
[ "$(peer_xchg kverbs-ready "$ok")" = 1 ] || ok=0
if [ "$ok" != 1 ]; then
	fail "$t: peer test" "not run (setup failed on one node)"
else
	mark=$(kv_mark)
	echo 1 >"$d/run"
	done_re="ibstack_kverbs: peer test done: "
	kv_wait_log 10 "$mark" "$done_re"
	kv_results "$mark" "$t"
	counts=$(kv_count "$mark" "$done_re")
	lines=$(kv_results "$mark" "$t")
	np=${counts% *} nf=${counts#* }
	got_p=$(grep -c '^PASS' <<<"$lines")
	got_f=$(grep -c '^FAIL' <<<"$lines")
	# shellcheck disable=SC2317 # called through expect
	counted() { [ -n "$1" ] && [ "$1" -gt 0 ] && [ "$1" = "$3" ] && [ "$2" = "$4" ]; }
	expect "$t: peer test done: ${np:-?} passed, ${nf:-?} failed, as its lines say" \
		counted "$np" "$nf" "$got_p" "$got_f"
fi
# neither node tears down while the other may still use its memory
peer_xchg kverbs-ran "done" >/dev/null
mark=$(kv_mark)
expect "$t: unload" rmmod ibstack_kverbs
expect "$t: client removed from $dev" kv_wait_log 10 "$mark" \
	"ibstack_kverbs: remove $dev\$"
exit 0

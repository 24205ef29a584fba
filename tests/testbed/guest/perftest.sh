#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perftest over the emulated card: each benchmark completes with its own
# checks.  One node: server on port 1, client on port 2; two nodes: server
# on node 1, client on node 2; each node reports its own side.
#
# As in pingpong.sh: the client starts once the server listens on its TCP
# port; with two nodes, a barrier once node 1's server listens and another
# after each pair (see pair); every wait is bounded.
set -u
. "$(dirname "$0")/lib.sh"
# shellcheck source=pair.sh
. "$(dirname "$0")/pair.sh"
t=${TESTNAME:-perftest}
nodes=${NODES:-1}
tcp=18515		# where the perftest server listens
cli=${CLIENT_LIMIT:-120}	# seconds a client may run
xb=${XCHG_BOUND:-120}	# how long a barrier waits for the other node
out=$(mktemp -d)
benches=(ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat ib_write_lat)
plan ${#benches[@]}

# Both sides print a line of results (size, iterations, figures) once every
# iteration completed.  The figures are what make bench measures, not this
# test: a latency side whose CPU clock calibration failed on a loaded host
# prints inf/nan for them (seen once with the inbox stack on both nodes, the
# peer's figures numeric), and that still is a completed run.
report="no results"
report_ok() { grep -Eq '^ *[0-9]+ +[0-9]+ +([0-9.]+|inf|-?nan)( |$)' "$1"; }

for bench in "${benches[@]}"; do
	opts=(-d mlx4_0 -n 200 -F)
	case $bench in
	ib_atomic_bw) ;;
	*_bw) opts+=(-s 65536) ;;
	esac
	pair "$t perftest $bench" "$bench" "${opts[@]}"
	if [ -z "$why" ]; then
		pass "$t: $bench"
	else
		fail "$t: $bench" "$why"
		# shellcheck disable=SC2086
		tail -n 4 $show 2>/dev/null
	fi
done
rm -rf "$out"
exit 0

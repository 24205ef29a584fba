#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# libibverbs over the emulated card: ibv_{rc,uc,ud,srq}_pingpong, with and
# without completion events.  One node: server on port 1, client on port 2
# of the same card (cabled to each other).  Two nodes: server on node 1,
# client on node 2, both on port 1; each node reports its own side.
#
# No sleep stands in for the server being ready: the client starts once the
# server listens on its TCP port; with two nodes the nodes meet at a barrier
# once the server listens and again after each pair (see pair), so that a
# failed pair cannot put the next one out of step.  Every wait is bounded.
set -u
. "$(dirname "$0")/lib.sh"
# shellcheck source=pair.sh
. "$(dirname "$0")/pair.sh"
iters=${ITERS:-200}
t=${TESTNAME:-pingpong}
nodes=${NODES:-1}
tcp=18515		# where the pingpong server listens
cli=${CLIENT_LIMIT:-90}	# seconds a client may run
xb=${XCHG_BOUND:-120}	# how long a barrier waits for the other node
out=$(mktemp -d)
kinds=(rc uc ud srq)
evs=("" "-e")
plan $((${#kinds[@]} * ${#evs[@]}))
case $iters in
'' | *[!0-9]* | 0) echo "ITERS must be a number of at least 1, not '$iters'" >&2; exit 2 ;;
esac

# what both sides print at the end of a good run
report="no '$iters iters in'"
report_ok() { grep -q "^$iters iters in" "$1"; }

for kind in "${kinds[@]}"; do
	for ev in "${evs[@]}"; do
		name="$t: ibv_${kind}_pingpong ${ev:-(polling)}"
		prog=("ibv_${kind}_pingpong" -d mlx4_0 -n "$iters")
		[ -z "$ev" ] || prog+=("$ev")
		pair "$t pingpong $kind$ev" "${prog[@]}"
		if [ -z "$why" ]; then
			pass "$name"
		else
			fail "$name" "$why"
			# shellcheck disable=SC2086
			tail -n 3 $show 2>/dev/null
		fi
	done
done
rm -rf "$out"
exit 0

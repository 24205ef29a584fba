#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# libibverbs over the emulated card: ibv_{rc,uc,ud,srq}_pingpong, with and
# without completion events.  One node: server on port 1, client on port 2
# of the same card (cabled to each other).  Two nodes: server on node 1,
# client on node 2, both on port 1.
set -u
. "$(dirname "$0")/lib.sh"
iters=${ITERS:-200}
t=${TESTNAME:-pingpong}
out=$(mktemp -d)
port=1
[ "${NODES:-1}" = 1 ] || port=1
for kind in rc uc ud srq; do
	for ev in "" "-e"; do
		name="$t: ibv_${kind}_pingpong ${ev:-(polling)}"
		if [ "${NODES:-1}" = 1 ]; then
			ibv_${kind}_pingpong -d mlx4_0 -i 1 -n "$iters" $ev \
				>"$out/s" 2>&1 &
			spid=$!
			sleep 1
			timeout 60 ibv_${kind}_pingpong -d mlx4_0 -i 2 -n "$iters" \
				$ev localhost >"$out/c" 2>&1
			crc=$?
			wait $spid
			src=$?
		elif [ "$NODE" = 1 ]; then
			timeout 90 ibv_${kind}_pingpong -d mlx4_0 -i $port \
				-n "$iters" $ev >"$out/c" 2>&1
			crc=$?
			src=0
		else
			sleep 2
			timeout 90 ibv_${kind}_pingpong -d mlx4_0 -i $port \
				-n "$iters" $ev "$PEER" >"$out/c" 2>&1
			crc=$?
			src=0
		fi
		if [ "$crc" = 0 ] && [ "$src" = 0 ] &&
		   grep -q "$iters iters in" "$out/c"; then
			pass "$name"
		else
			fail "$name" "client $crc, server $src: $(tail -n 2 "$out/c" | tr '\n' ' ')"
			tail -n 3 "$out/s" 2>/dev/null
		fi
	done
done
rm -rf "$out"
exit 0

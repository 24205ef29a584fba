#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perftest over the emulated card: each benchmark completes with its own
# checks.  One node: server on port 1, client on port 2; two nodes: server
# on node 1, client on node 2.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-perftest}
out=$(mktemp -d)
for bench in ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat ib_write_lat; do
	opts=(-d mlx4_0 -n 200 -F)
	case $bench in
	*_bw) opts+=(-s 65536) ;;
	esac
	[ "$bench" = ib_atomic_bw ] && opts=(-d mlx4_0 -n 200 -F)
	if [ "${NODES:-1}" = 1 ]; then
		timeout 90 $bench "${opts[@]}" -i 1 >"$out/s" 2>&1 &
		spid=$!
		sleep 1
		timeout 90 $bench "${opts[@]}" -i 2 localhost >"$out/c" 2>&1
		crc=$?
		wait $spid
		src=$?
	elif [ "$NODE" = 1 ]; then
		timeout 120 $bench "${opts[@]}" -i 1 >"$out/c" 2>&1
		crc=$?
		src=0
	else
		sleep 2
		timeout 120 $bench "${opts[@]}" -i 1 "$PEER" >"$out/c" 2>&1
		crc=$?
		src=0
	fi
	if [ "$crc" = 0 ] && [ "$src" = 0 ] && grep -Eq '^ *[0-9]+ +[0-9]+ ' "$out/c"; then
		pass "$t: $bench"
	else
		fail "$t: $bench" "client $crc, server $src"
		tail -n 4 "$out/c" "$out/s" 2>/dev/null
	fi
done
rm -rf "$out"
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BlueFlame on the emulated card (tests/cx3/cx3_bf.c), judged by the in-tree
# stack and libmlx4: the card offers it, so libmlx4 maps its context's
# BlueFlame page (page 1 of the uverbs mapping) next to its UAR page; a
# latency test with inline data posts one WR at a time, which libmlx4 writes
# through the BlueFlame register instead of ringing the doorbell, so the
# test only completes if the card executes those WQEs.  One node: server on
# port 1, client on port 2; the client starts once the server listens.
set -u
. "$(dirname "$0")/lib.sh"
tcp=18515
out=$(mktemp -d)
plan 4

# the mappings of /dev/infiniband/uverbs* at page PAGE of the file in PID
uverbs_map() { awk -v o="$(printf '%08x' $(($2 * 4096)))" \
	'$6 ~ /^\/dev\/infiniband\/uverbs/ && $3 == o' "/proc/$1/maps"; }

# 2-byte sends, inline (perftest's default for latency), 1000 of them
lat=(ib_send_lat -d mlx4_0 -n 1000 -F)
timeout 150 "${lat[@]}" -i 1 >"$out/s" 2>&1 &
spid=$!
if ! wait_listen 60 "$tcp" "$spid"; then
	fail "blueflame: server" "ib_send_lat did not listen on TCP $tcp"
	cat "$out/s"
	exit 1
fi
lpid=$(pgrep -P "$spid" -x ib_send_lat)	# timeout's child
uar=$(uverbs_map "${lpid:-$spid}" 0)
bf=$(uverbs_map "${lpid:-$spid}" 1)
if [ -n "$uar" ] && [ -n "$bf" ]; then
	pass "blueflame: libmlx4 mapped its UAR page and its BlueFlame page"
else
	fail "blueflame: libmlx4's mappings" "UAR page '${uar:-none}', BlueFlame page '${bf:-none}'"
	grep uverbs "/proc/${lpid:-$spid}/maps"
fi
timeout 120 "${lat[@]}" -i 2 localhost >"$out/c" 2>&1
crc=$?
reap "$spid" 30
src=$?
# a results line: size, iterations, then the latency figures
res='^ *2 +1000 +[0-9.]+'
if [ "$crc" = 0 ] && [ "$src" = 0 ] && grep -Eq "$res" "$out/c" && grep -Eq "$res" "$out/s"; then
	pass "blueflame: ib_send_lat, 1000 inline sends each way, completes on both sides"
else
	fail "blueflame: ib_send_lat" "client exited $crc, server $src"
	tail -n 5 "$out/c" "$out/s"
fi
# perftest's header: "Max inline data : 236[B]"; our 2 bytes fit
inl=$(sed -n 's/^ *Max inline data *: *\([0-9]*\)\[B\].*/\1/p' "$out/c")
if [ "${inl:-0}" -ge 2 ]; then
	pass "blueflame: the sends were inline (up to $inl bytes; libmlx4's condition for BlueFlame)"
else
	fail "blueflame: inline" "the client's max inline data is '${inl:-missing}', not at least 2 bytes"
fi
# the same through RDMA WRITEs with inline data
timeout 150 ib_write_lat -d mlx4_0 -n 1000 -F -i 1 >"$out/s" 2>&1 &
spid=$!
if wait_listen 60 "$tcp" "$spid"; then
	timeout 120 ib_write_lat -d mlx4_0 -n 1000 -F -i 2 localhost >"$out/c" 2>&1
	crc=$?
else
	crc="none (the server did not listen)"
fi
reap "$spid" 30
src=$?
if [ "$crc" = 0 ] && [ "$src" = 0 ] && grep -Eq "$res" "$out/c"; then
	pass "blueflame: ib_write_lat, 1000 inline RDMA WRITEs each way, completes"
else
	fail "blueflame: ib_write_lat" "client exited $crc, server $src"
	tail -n 5 "$out/c" "$out/s"
fi

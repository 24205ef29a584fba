#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A burst of packet loss on the cable (the model's dropN, tests/cx3/
# cx3_cable.c), issue 18.  One node, port 1 cabled to port 2, opensm
# (tests/vm/run --sm); any stack.  The RC client runs on port 2, whose
# outgoing packets the burst takes.
#
# A short burst (16 data packets: dropdata2 spares QP0/QP1, else opensm's
# sweep may lose its SMPs to it instead, and its reaction (port 1 to INIT
# and back) stalls the transfer) is what RC's retransmission is for:
# ib_write_bw of 100 writes of 64 KiB (many packets in flight) completes
# and the card counts the sequence errors and retries (hw_counters).  Its
# ACK timeout is 1 s (-u 18) rather than perftest's 67 ms: on a loaded
# host the emulated card can stall longer than that, and each stall costs
# a retry; the resends after the burst come from the sequence NAKs.  A
# burst longer than the retry budget (2000 packets: ib_write_bw's retry
# count is 7, and every try resends what is in flight) ends that
# connection with the retry-exceeded completion (status 12): the one
# object in error.  Once the rest of the burst is cleared the ports are
# ACTIVE and a pingpong passes.
set -u
. "$(dirname "$0")/lib.sh"
# the client waits out the retries of the long burst
cli=120
# shellcheck source=fault-lib.sh
. "$(dirname "$0")/fault-lib.sh"
t=${TESTNAME:-fault-burst}
plan 9

num() { local v; v=$(hwc "$1"); [[ "$v" =~ ^[0-9]+$ ]] && echo "$v" || echo 0; }
retries() { echo $(($(num sq_num_oos) + $(num rq_num_oos) + $(num sq_num_to))); }

expect "$t: both ports ACTIVE before" wait_for 30 both_active
before=$(retries)
expect "$t: a burst of 16 data packets lost from port 2" cx3_set dropdata2 16
report="no results"
# shellcheck disable=SC2317 # called through pair
report_ok() { grep -Eq '^ *65536 +100 +[0-9.]+' "$1"; }
pair_check "through the short burst: ib_write_bw 64 KiB x 100" ib_write_bw -d mlx4_0 -F -s 65536 -n 100 -u 18
report="no '100 iters in'"
# shellcheck disable=SC2317 # called through pair
report_ok() { grep -q '^100 iters in' "$1"; }
after=$(retries)
echo "$t: sq_num_oos $(hwc sq_num_oos) rq_num_oos $(hwc rq_num_oos) sq_num_to $(hwc sq_num_to)"
expect "$t: the card counted the retries ($before -> $after)" [ "$after" -gt "$before" ]

expect "$t: a burst of 2000 packets lost from port 2" cx3_set drop2 2000
ib_write_bw -d mlx4_0 -F -s 4096 -n 10 -u 14 -i 1 >"$out/s" 2>&1 &
spid=$!
crc=none
if wait_listen 60 "$tcp" "$spid"; then
	timeout 120 ib_write_bw -d mlx4_0 -F -s 4096 -n 10 -u 14 -i 2 localhost >"$out/c" 2>&1
	crc=$?
fi
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
expect "$t: the rest of the burst cleared" cx3_set drop2 0
grep -i "status\|error" "$out/c" | head -3
# shellcheck disable=SC2317 # called through expect
exceeded() { [ "$crc" != 0 ] && [ "$crc" != none ] && grep -Eq 'status 12|[Rr]etry' "$out/c"; }
expect "$t: the long burst ends the connection with retry exceeded (client exit $crc)" exceeded
expect "$t: both ports ACTIVE after the bursts" wait_for 60 both_active
pingpong "after the long burst"
rm -rf "$out"
exit 0

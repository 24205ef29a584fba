#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# RC across a cable that loses or corrupts packets (one node, port 1 cabled
# to port 2, no SM: the auto-lid options; the in-tree stack).  For each impairment, set on
# both ports' outgoing packets at run time (cx3_set: 1% and 10% lost, 1%
# corrupted): ibv_rc_pingpong with its buffer check (-c) of 64 KiB
# messages and ib_write_bw of 64 KiB complete, and the card's transport
# counters (hw_counters: sequence errors seen by the requester and the
# responder, ACK timeouts where the driver shows them) went up.  Then a
# peer that stops answering (every packet from the client lost): the
# client's first RDMA WRITE ends in the retry-exceeded completion (status
# 12) after the ACK timeout times (retry count + 1): perftest's retry count
# is 7, and -u 18 makes the timeout 4.096 us << 18 = 1.07 s, so 8.6 s.
set -u
. "$(dirname "$0")/lib.sh"
# shellcheck source=pair.sh
. "$(dirname "$0")/pair.sh"
t=${TESTNAME:-lossy}
nodes=1
tcp=18515		# where the servers listen
cli=${CLIENT_LIMIT:-300}	# seconds a client may run
xb=120
out=$(mktemp -d)
cases=("loss 10000" "loss 100000" "corrupt 10000")
plan $((${#cases[@]} * 4 + 5))

# a run's results: pingpong's "N iters in" line, perftest's table row
report="no results"
report_ok() { grep -Eq '^50 iters in|^ *65536 +[0-9]+ +[0-9.]+' "$1"; }
# the retries the card counted, requester and responder side together
# (sq_num_to only where the driver shows it: per-port DIAG_RPRT)
num() { local v; v=$(hwc "$1"); [[ "$v" =~ ^[0-9]+$ ]] && echo "$v" || echo 0; }
retries() { echo $(($(num sq_num_oos) + $(num rq_num_oos) + $(num sq_num_to))); }
# shellcheck disable=SC2317 # called through expect
impair() { cx3_set "${1}1" "$2" && cx3_set "${1}2" "$2"; }

expect "$t: transport counters readable" [ "$(hwc sq_num_oos)" != "?" ]
for c in "${cases[@]}"; do
	read -r kind ppm <<<"$c"
	name="$t: $kind $ppm ppm"
	expect "$name: set on both ports" impair "$kind" "$ppm"
	before=$(retries)
	pair "$name pingpong" ibv_rc_pingpong -d mlx4_0 -c -s 65536 -n 50
	if [ -z "$why" ]; then pass "$name: ibv_rc_pingpong -c, 64 KiB, data checked"; else
		fail "$name: ibv_rc_pingpong -c, 64 KiB, data checked" "$why"
		# shellcheck disable=SC2086
		tail -n 3 $show 2>/dev/null
	fi
	pair "$name ib_write_bw" ib_write_bw -d mlx4_0 -F -s 65536 -n 200
	if [ -z "$why" ]; then pass "$name: ib_write_bw 64 KiB x 200"; else
		fail "$name: ib_write_bw 64 KiB x 200" "$why"
		# shellcheck disable=SC2086
		tail -n 3 $show 2>/dev/null
	fi
	after=$(retries)
	echo "$name: sq_num_oos $(hwc sq_num_oos) rq_num_oos $(hwc rq_num_oos) sq_num_to $(hwc sq_num_to) rq_num_dup $(hwc rq_num_dup)"
	expect "$name: the counters show retries ($before -> $after)" [ "$after" -gt "$before" ]
	impair "$kind" 0 || fail "$name: cleared" "the harness did not answer"
done

# a peer that stops answering: the client's requests (port 2) all lost
tree0=$(num sq_num_tree)
expect "$t: every packet from port 2 lost" cx3_set loss2 1000000
ib_write_bw -d mlx4_0 -F -s 65536 -n 10 -u 18 -i 1 >"$out/s" 2>&1 &
spid=$!
if wait_listen 60 "$tcp" "$spid"; then
	t0=$(date +%s%N)
	timeout 120 ib_write_bw -d mlx4_0 -F -s 65536 -n 10 -u 18 -i 2 localhost >"$out/c" 2>&1
	crc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
else
	crc=none ms=0
fi
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
cx3_set loss2 0 || fail "$t: loss cleared" "the harness did not answer"
grep -i "status\|error" "$out/c" | head -3
# shellcheck disable=SC2317 # called through expect
exceeded() { [ "$crc" != 0 ] && [ "$crc" != none ] && grep -Eq 'status 12|[Rr]etry' "$out/c"; }
expect "$t: the client's WRITE fails with retry exceeded (exit $crc)" exceeded
# shellcheck disable=SC2317 # called through expect
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
expect "$t: after 8 timeouts of 1.07 s: $ms ms in [8590, 14590]" between "$ms" 8590 14590
expect "$t: sq_num_tree counted it ($tree0 -> $(hwc sq_num_tree))" \
	[ "$(num sq_num_tree)" -gt "$tree0" ]
rm -rf "$out"
exit 0

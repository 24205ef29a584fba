#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/uverbs/uvfuzz in the guest: UVFUZZ_N (default 100000) random and
# mutated command sequences on /dev/infiniband/uverbs0 as root, then a
# tenth of them as uid 65534 without capabilities, each with the seed
# printed to replay a failure (UVFUZZ_SEED; the nobody run takes seed + 1;
# UVFUZZ_THREADS, default 2).  Then the device still works: the ports in
# the state they were in, an RC pingpong between them when they are
# ACTIVE, the device's objects (rdma res) as before, and no complaint of
# ib_uverbs or mlx4 in the kernel log beyond the one line a forked child's
# write() earns (6.1: "changed security contexts", pr_err_once; ours:
# "other credentials than the opener's") and those mlx4_core prints for
# what a user can make the card refuse (a firmware command's status, a CQ
# overrun of a user CQ whose memory the fuzzer leaves as it is), and our
# stack's rate-limited diagnostics of refused user input ("ib_core: FUNC:
# ...", IB_CORE_RATELIMITED; mlx4_ib's "mlx4_ib: FUNC: ...", mlx4_ib_warn_rl).
# A splat fails the boot.
set -u
. "$(dirname "$0")/../../stack/guest/lib.sh"
t=${TESTNAME:-uvfuzz}
n=${UVFUZZ_N:-100000}
th=${UVFUZZ_THREADS:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
fz=${UVFUZZ:-$here/uvfuzz}
seed=${UVFUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
plan 6

if [ ! -x "$fz" ]; then
	fz=/tmp/uvfuzz-build/uvfuzz
	mkdir -p /tmp/uvfuzz-build
	make -s -C "$here" O=/tmp/uvfuzz-build /tmp/uvfuzz-build/uvfuzz >/dev/null 2>&1
fi
# a copy any user can run, whatever the checkout's modes
cp "$fz" /tmp/uvfuzz.bin 2>/dev/null && chmod 755 /tmp/uvfuzz.bin
fz=/tmp/uvfuzz.bin

wait_for 20 grep -q ACTIVE "$ibdev/ports/1/state" 2>/dev/null
st1=$(port_state 1)
st2=$(port_state 2)
res_counts() { rdma res show 2>/dev/null | grep mlx4_0 | sed 's/^[0-9]*: //'; }
before=$(res_counts)
mark=$(klog_mark)

# run WHO N SEED CMD...: one run, its last lines shown, one check
run() {
	local who=$1 m=$2 s=$3 o rc s0=$SECONDS
	shift 3
	o=$("$@" -n "$m" -s "$s" -t "$th" 2>&1)
	rc=$?
	echo "$o" | grep -v '^FAIL' | tail -n 40 | sed 's/^/    /'
	if [ $rc = 0 ] && echo "$o" | grep -q "^uvfuzz: $m operations, seed $s: PASS"; then
		pass "$t: $m operations as $who, seed $s, $th threads, $((SECONDS - s0)) s"
	else
		fail "$t: $m operations as $who, seed $s, $th threads (replay: UVFUZZ_SEED=$s)" \
			"exit $rc: $(echo "$o" | grep FAIL | head -n 10)"
	fi
}
run root "$n" "$seed" "$fz"
run "uid 65534" $((n / 10)) $((seed + 1)) \
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all -- "$fz"

expect "$t: port 1 is $st1 and port 2 $st2 as before" \
	[ "$(port_state 1)" = "$st1" -a "$(port_state 2)" = "$st2" ]
if [ "$st1" = ACTIVE ] && [ "$st2" = ACTIVE ]; then
	o=$(mktemp)
	timeout 60 ibv_rc_pingpong -d mlx4_0 -i 1 -n 100 -p 18530 >"$o.s" 2>&1 &
	spid=$!
	if wait_listen 30 18530 "$spid"; then
		timeout 60 ibv_rc_pingpong -d mlx4_0 -i 2 -n 100 -p 18530 localhost >"$o.c" 2>&1
	fi
	reap "$spid" 30
	expect "$t: an RC pingpong between the ports afterwards" \
		grep -q '^100 iters in' "$o.c"
	rm -f "$o" "$o.s" "$o.c"
else
	fail "$t: an RC pingpong between the ports afterwards" "the ports were not ACTIVE ($st1, $st2)"
fi
if [ -n "$before" ]; then
	after=$(res_counts)
	expect "$t: the device's objects as before the runs (rdma res: $after)" \
		[ "$before" = "$after" ]
else
	fail "$t: the device's objects as before the runs" "rdma res showed nothing for mlx4_0 before the runs"
fi
log=$(klog_since "$mark" | grep -Ei 'uverbs|mlx4|infiniband' |
	grep -Ev 'changed security contexts after opening file descriptor|other credentials than the opener' |
	grep -Ev 'mlx4_core [0-9a-f:.]+: (command 0x[0-9a-f]+ failed: fw status = 0x[0-9a-f]+|CQ overrun on CQN [0-9a-f]+|CQ 0x[0-9a-f]+ error, syndrome [0-9]+|command 0x[0-9a-f]+ \(in_mod 0x[0-9a-f]+ op_mod [0-9]+\) failed: (-[0-9]+|status 0x[0-9a-f]+))$' |
	grep -Ev '^ib_core: [a-z_0-9]+: |mlx4_ib: [a-z_]+: |: [0-9]+ callbacks suppressed$' |
	grep -Ev 'mlx4_ib: (CQ ring of [0-9]+ CQEs|doorbell page) at 0x[0-9a-f]+: pinning failed \(-[0-9]+\)$' |
	grep -Ev 'mlx4_ib: QP 0x[0-9a-f]+: (core thinks state|bad attributes for|modify to state|transition) ' |
	grep -Ev 'mlx4_ib: (QP[0-9]+: P_Key index|doorbell record at|user buffer at|a user command without)')
expect "$t: no complaint of ib_uverbs or mlx4 in the kernel log${log:+: $(echo "$log" | head -n 5)}" \
	[ -z "$log" ]
exit 0

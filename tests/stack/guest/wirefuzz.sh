#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The wire fuzzer (tests/cx3/cx3_wirefuzz.c): the card injects random and
# mutated packets at port 1's receive side, as if from the cable: SMPs
# (LID-routed and directed-route), GMPs of every class with RMPP segments,
# CM messages (IPoIB's connected mode listens through ib_cm) and IPoIB
# datagrams.  One node, port 1 cabled to port 2, opensm on port 1
# (tests/vm/run --sm); any stack.  ib1 (port 2) lives in a network
# namespace, the peer ib0 pings through the cable.
#
# WIREFUZZ_N packets (default 2000) with seed WIREFUZZ_SEED (else random,
# printed: replay with it), kind WIREFUZZ_KIND (default mix): half with ib0
# in datagram mode, half (seed + 1) in connected mode.  After each half:
# the model injected them all (its log), both ports ACTIVE with the LIDs
# they had, opensm still master, ib0 pings its peer, saquery and smpquery
# answer; at the end a fresh connected-mode connection through ib_cm, and
# nothing in the kernel log but the allowlisted lines (the harness fails
# the run on any splat).
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-wirefuzz}
n=${WIREFUZZ_N:-2000}
seed=${WIREFUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
kind=${WIREFUZZ_KIND:-mix}
ns=wfpeer
peer=169.254.90.2
# what the kernel may say while it is fuzzed (rate-limited, or our doing)
# (ours: rate-limited lines only; the in-tree 6.1's below)
allow='callbacks suppressed|random: crng init done|ib[01]: enabling connected mode|mtu > [0-9]+ will cause multicast packet drops|ibstack-test: mark'
if [ "${STACK:-inbox}" = ours ]; then
	allow+='|ib0: no path to [0-9a-f:]+: -[0-9]+$|ib0: passive QP not ready: -[0-9]+$'
	allow+='|mlx4_core [0-9a-f:.]+: command 0x24 \(in_mod 0x[0-9a-f]+ op_mod [0-7]\) failed: -22$'
	# a REQ's bad path (IPoIB's passive QP refuses it): ib_core's rate-limited lines
	allow+='|ib_core: ib_check_qp_attr: mlx4_0: QP 0x[0-9a-f]+: bad [a-zA-Z /]+$'
	allow+='|ib_core: ib_core_modify_qp: mlx4_0: QP 0x[0-9a-f]+ \(type [0-9]+\): [A-Z]+ -> [A-Z]+ with mask 0x[0-9a-f]+ not allowed$'
else
	# 6.1 logs these for each such packet, none rate-limited (seen with
	# seed 507069098: 407, 281, 104, 88, 47 and 44 lines in 20000 packets)
	allow+='|infiniband mlx4_0: No receive handler for client [0-9a-fx]+ on port [12]$'
	allow+='|ib_core: MAD received with unsupported base version [0-9]+ *$'
	allow+='|infiniband mlx4_0: Invalid directed route$|infiniband mlx4_0: ib_post_send_mad error$'
	allow+='|mlx4_core [0-9a-f:.]+: command 0x24 failed: fw status = 0x30$'
	allow+='|ib0: failed to modify QP to RT[RS]: -[0-9]+$|path MTU \([0-9]+\) is invalid$'
fi
plan 22
echo "$t: $n packets, seed $seed, kind $kind (replay: WIREFUZZ_SEED=$seed WIREFUZZ_N=$n)"

nsx() { ip netns exec "$ns" "$@"; }
sm_master() { sminfo -C mlx4_0 -P 1 2>/dev/null | grep -q 'SMINFO_MASTER'; }
pings() { ping -c 2 -W 2 -q "$peer" >/dev/null 2>&1; }
lids_as_before() { [ "$(my_lid 1)" = "$l1" ] && [ "$(my_lid 2)" = "$l2" ] && both_active; }
sa_answers() {
	saquery -C mlx4_0 -P 1 NR 2>/dev/null | grep -Eq "lid[[:space:].]*$l2\b" &&
		saquery -C mlx4_0 -P 2 NR 2>/dev/null | grep -Eq "lid[[:space:].]*$l1\b"
}
smp_answers() {
	smpquery -C mlx4_0 -P 2 portinfo "$l1" 2>&1 | grep -Eq "^Lid:[.]*$l1\$" &&
		smpquery -C mlx4_0 -P 1 nodeinfo "$l2" 2>&1 | grep -Eq '^NumPorts:[.]*2$'
}
smp_check() {
	if wait_for 30 smp_answers; then
		pass "$1"
	else
		fail "$1" "$({ smpquery -C mlx4_0 -P 2 portinfo "$l1" 2>&1 | head -n 6
			smpquery -C mlx4_0 -P 1 nodeinfo "$l2" 2>&1 | head -n 6; } | tr '\n' '|')"
	fi
}
set_mode() {
	echo "$1" >"$ib0_sys/mode" &&
		nsx sh -c "echo $1 >/sys/class/net/ib1/mode" &&
		[ "$(cat "$ib0_sys/mode")" = "$1" ]
}
# the model's lines saying a run on port 1 ended, and whether run N (as
# counted by them) ended with COUNT packets of SEED: injected N COUNT SEED
runs_done() { card_fault_log | grep -c '^wirefuzz port 1 done: '; }
injected() {
	card_fault_log | grep '^wirefuzz port 1 done: ' | sed -n "$1p" |
		grep -q "^wirefuzz port 1 done: $2 of $2 injected (.*), seed $3, "
}

# fuzz WHAT COUNT SEED: one half, and the checks after it (7 checks)
fuzz() {
	local what=$1 cnt=$2 s=$3 bound s0 bg line run
	bound=$((120 + cnt / 100))
	run=$(($(runs_done) + 1))
	ping -i 0.5 -q "$peer" >/dev/null 2>&1 &
	bg=$!
	s0=$SECONDS
	expect "$t: $what: arm the fuzzer, $cnt packets, seed $s" card_wirefuzz "1:$cnt:$s:$kind"
	if wait_for "$bound" injected "$run" "$cnt" "$s"; then
		line=$(card_fault_log | grep '^wirefuzz port 1 done: ' | sed -n "${run}p")
		pass "$t: $what: the model injected all $cnt in $((SECONDS - s0)) s (${line#*injected })"
	else
		fail "$t: $what: the model injected all $cnt within $bound s" \
			"$(card_fault_log | grep '^wirefuzz' | tail -n 2 | tr '\n' ' ')"
	fi
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	expect "$t: $what: both ports ACTIVE, LIDs $l1 and $l2 as before" wait_for 60 lids_as_before
	expect "$t: $what: opensm still master" wait_for 30 sm_master
	expect "$t: $what: ib0 pings its peer ($peer)" wait_for 60 pings
	expect "$t: $what: saquery answers on both ports" wait_for 30 sa_answers
	smp_check "$t: $what: smpquery answers: port 1's PortInfo (its LID), port 2's NodeInfo (2 ports)"
}

expect "$t: both ports ACTIVE" wait_for 60 both_active
l1=$(my_lid 1)
l2=$(my_lid 2)
echo "$t: LIDs $l1 (port 1, fuzzed) and $l2 (port 2, the peer)"
ib0_take
ip netns add "$ns" 2>/dev/null
if ip link set ib1 netns "$ns" && nsx ip addr add "$peer/24" dev ib1 &&
	nsx ip link set ib1 up && nsx ip link set lo up; then
	pass "$t: ib1 (port 2) up in namespace $ns as $peer"
else
	fail "$t: ib1 (port 2) up in namespace $ns as $peer" "$(ip -o link show 2>&1 | tr '\n' ' ')"
fi
expect "$t: datagram mode on both, ib0 pings its peer before" \
	eval 'set_mode datagram && wait_for 60 pings'
expect "$t: before: saquery answers on both ports" wait_for 30 sa_answers
smp_check "$t: before: smpquery answers: port 1's PortInfo (its LID), port 2's NodeInfo (2 ports)"
k=$(klog_mark)
fuzz datagram $((n / 2)) "$seed"
expect "$t: connected mode on both, ib0 pings its peer" \
	eval 'set_mode connected && wait_for 60 pings'
fuzz connected $((n - n / 2)) $((seed + 1))
# a fresh connection through ib_cm: datagram mode flushes the paths
expect "$t: after: datagram, then connected again: ib0 pings its peer through a new connection" \
	eval 'set_mode datagram && wait_for 60 pings && set_mode connected && wait_for 60 pings'
other=$(klog_since "$k" | grep -Ev -- "$allow")
if [ -z "$other" ]; then
	pass "$t: the kernel logged only allowlisted lines ($(klog_since "$k" | grep -c '') in all)"
else
	fail "$t: the kernel logged only allowlisted lines" "$(head -n 5 <<<"$other" | tr '\n' '|')"
	head -n 40 <<<"$other" | sed 's/^/    /'
fi
set_mode datagram >/dev/null 2>&1
ip -n "$ns" link set ib1 netns 1 2>/dev/null
ip netns del "$ns"
ib0_give_back
exit 0

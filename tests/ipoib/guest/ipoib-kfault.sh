#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# IPoIB through failing atomic allocations, on two nodes under opensm, on
# the debug kernel (failslab, fail_page_alloc).  In datagram mode, then in
# connected mode: node 2 sends a TCP stream of $MIB MiB to node 1 over ib0
# (tests/testbed/guest/tcpxfer.py) at $RATE MiB/s; from before it starts
# (connection set-up included) to its end, both nodes fail
# $PERCENT percent of the atomic slab and page allocations of the whole
# kernel (ignore-gfp-wait Y: the softirq and NAPI paths of IPoIB and of the
# network stack, nothing that may sleep, so the guest's root file system
# stays safe; page allocations of any order).  The stream must arrive with
# every byte right, the injections must have happened (the debugfs 'times'
# counters: how many failed), and once they stop ib0 pings the other node.
# The injections are logged, rate-limited, with their stacks: how many of
# the sampled ones were in ib_ipoib is printed.  The run's end judges the
# rest: no kernel splat, kmemleak's final scan, the model's accounting.
set -u
# shellcheck source-path=SCRIPTDIR source=../../stack/guest/lib.sh
. "$(dirname "$0")/../../stack/guest/lib.sh"
t=${TESTNAME:-ipoib-kfault}
dbg=/sys/kernel/debug
mib=${MIB:-16}
percent=${PERCENT:-2}
rate=${RATE:-2}		# MiB/s: the stream lasts, the injections meet it
limit=${XFER_LIMIT:-400}	# seconds a transfer may take
times0=1000000
if [ "${NODES:-1}" != 2 ]; then
	plan 1
	fail "$t: two nodes" "NODES=${NODES:-1}: run with tests/vm/run --nodes 2 --sm"
	exit 0
fi
# the carrier, then per mode: the mode and a ping, the injection armed,
# the stream (node 1: under way, intact; node 2: sent), the injections
# counted, the ping after; ib0 as found
if [ "$NODE" = 1 ]; then plan 14; else plan 12; fi
mountpoint -q "$dbg" || mount -t debugfs none "$dbg"
peer=$ib0_peer
prog=$(mktemp)
out=$(mktemp)

ping_ok() { ping -c 1 -w 3 "$peer" >/dev/null 2>&1; }
received() { [ "$(cat "$prog" 2>/dev/null || echo 0)" -ge "$1" ]; }

# inj_on: fail $percent % of the atomic allocations, logged (a sample)
inj_on() {
	local f
	[ -d "$dbg/failslab" ] && [ -d "$dbg/fail_page_alloc" ] || return 1
	echo 0 >"$dbg/fail_page_alloc/min-order" || return 1
	for f in failslab fail_page_alloc; do
		echo Y >"$dbg/$f/ignore-gfp-wait" && echo N >"$dbg/$f/task-filter" &&
			echo 1 >"$dbg/$f/interval" && echo 0 >"$dbg/$f/space" &&
			echo 2 >"$dbg/$f/verbose" &&
			echo 5000 >"$dbg/$f/verbose_ratelimit_interval_ms" &&
			echo 5 >"$dbg/$f/verbose_ratelimit_burst" &&
			echo "$times0" >"$dbg/$f/times" &&
			echo "$percent" >"$dbg/$f/probability" || return 1
	done
}
# inj_off: no more injections; sets injected to "SLAB PAGE" (how many
# failed), or empty if a counter could not be read
inj_off() {
	local f n s=()
	injected=
	for f in failslab fail_page_alloc; do
		echo 0 >"$dbg/$f/probability" || return 1
		n=$(cat "$dbg/$f/times") && is_num "$n" || return 1
		s+=($((times0 - n)))
	done
	injected="${s[*]}"
}
# injected_some: inj_off found at least one injection
injected_some() {
	local a b
	read -r a b <<<"$injected"
	is_num "$a" && is_num "$b" && [ $((a + b)) -gt 0 ]
}

# one transfer with the injection on, in MODE
xfer() {	# xfer MODE PORT
	local m=$1 port=$2 pid st got fin rc res k nip
	echo "$m" >"$ib0_sys/mode"
	expect "$t: $m: ib0 in $m mode ($(cat "$ib0_sys/mode")), the peer answers" \
		eval '[ "$(cat "$ib0_sys/mode")" = "$m" ] && wait_for 120 ib0_carrier 1 && wait_for 120 ping_ok'
	XCHG_BOUND=240 barrier "$t: $m: ready" || echo "note: the other node did not come to the barrier"
	k=$(klog_mark)
	if [ "$NODE" = 1 ]; then
		expect "$t: $m: $percent % of the atomic allocations failing" inj_on
		xfer_recv_start "$t: $m: start" "$port" "$mib" "$prog" "$out"
		pid=$xfer_pid st=$xfer_st got=$xfer_got
		if [ "$st" = listening ] && [ "$got" = sending ]; then
			expect "$t: $m: the stream is under way (1 MiB in)" wait_for 120 received 1048576
		else
			fail "$t: $m: the stream is under way" "receiver: $st, sender: ${got:-no answer}"
		fi
		reap "$pid" "$limit"
		rc=$?
		inj_off
	else
		expect "$t: $m: $percent % of the atomic allocations failing" inj_on
		xfer_send_start "$t: $m: start" "$port" "$mib" "$rate" "$limit" "$out"
		pid=$xfer_pid got=$xfer_got
		rc=1
		[ -n "$pid" ] && { wait "$pid"; rc=$?; }
		inj_off
	fi
	nip=$(klog_since "$k" | sed -n '/FAULT_INJECTION: forcing a failure/,/<\/TASK>/p' |
		grep -c '\[ib_ipoib\]')
	echo "$t: $m: injected (slab, page): ${injected:-unreadable}; stack lines in ib_ipoib" \
		"among the logged ones: $nip"
	res=$(tr '\n' ' ' <"$out")
	if [ "$NODE" = 1 ]; then
		fin=$(XCHG_BOUND=$((limit + 60)) peer_xchg "$t: $m: done" receiver)
		if [ "$rc" = 0 ] && grep -q matches "$out"; then
			pass "$t: $m: $mib MiB arrived intact through the failing allocations"
		else
			fail "$t: $m: $mib MiB arrived intact through the failing allocations" \
				"receiver exited $rc: $res (sender: ${fin:-no answer})"
		fi
	else
		fin=$(XCHG_BOUND=$((limit + 60)) peer_xchg "$t: $m: done" "sender $rc")
		if [ "$rc" = 0 ] && grep -q '^sent' "$out"; then
			pass "$t: $m: $mib MiB sent through the failing allocations"
		else
			fail "$t: $m: $mib MiB sent through the failing allocations" \
				"sender exited $rc: $res (receiver: ${fin:-no answer})"
		fi
	fi
	expect "$t: $m: allocations failed on this node (slab, page: ${injected:-unreadable})" \
		injected_some
	expect "$t: $m: ib0 pings the other node after the injection" wait_for 60 ping_ok
	XCHG_BOUND=120 barrier "$t: $m: end" || echo "note: the other node did not come to the barrier"
}

ib0_take
expect "$t: ib0 has carrier" wait_for 60 ib0_carrier 1
xfer datagram 5301
xfer connected 5302
ib0_give_back
expect "$t: ib0 left as found" ib0_as_found
rm -f "$prog" "$out"
exit 0

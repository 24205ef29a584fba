#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# IPoIB through faults, on two nodes under opensm (tests/vm/run --nodes 2
# --sm; the item needs the harness's catastrophic-error reset after it).
# Node 2 sends a TCP stream of $MIB MiB at $RATE MiB/s to node 1 over
# ib0; once node 1 has received a part of it, the fault happens; the
# transfer must then complete with every byte right (tcpxfer.py checks the
# SHA-256) once the fabric is back.  One transfer per fault:
#   mode    both nodes switch to connected mode, then (later in the
#           stream) back to datagram mode: under traffic
#   cable   node 1's port 1 cable pulled: carrier off; replugged: carrier
#           back (opensm sweeps the port in again)
#   sm      opensm killed on node 1 and started on node 2 (the SM moves:
#           the ports are asked to register again), ping again; then back
#   rereg   opensm restarted on node 1 (client reregister: the groups are
#           joined again), ping again
#   catas   a catastrophic error on node 1's card: the card is reset,
#           mlx4_0 and ib0 come back, opensm again, ib0 configured again
#   rmmod   modprobe -r ib_ipoib on node 1 under the stream, then modprobe:
#           ib0 back, configured again
# Then 50 cycles of modprobe -r ib_ipoib / modprobe ib_ipoib on each node
# (ib0 back every time) and a ping.  Each node runs its own stack (ours or
# the in-tree one: a mixed fabric holds the same expectations).
# The nodes meet at barriers; every wait is bounded.
set -u
. "$(dirname "$0")/../../stack/guest/lib.sh"
t=${TESTNAME:-ipoib-faults}
if [ "${NODES:-1}" != 2 ]; then
	plan 1
	fail "$t: two nodes" "NODES=${NODES:-1}: run with tests/vm/run --nodes 2 --sm"
	exit 0
fi
mib=${MIB:-64}
rate=${RATE:-2}
faults=${FAULTS:-mode cable sm rereg catas rmmod}
cycles=${CYCLES:-50}
limit=${XFER_LIMIT:-600}	# seconds a transfer may take, faults included
# per fault: node 1 the progress, the fault's checks, the stream intact;
# node 2 the stream sent and the fault's checks; then the cycles and the
# carrier at first, then the cycles, ib0 again and ib0 as found (4)
n=4
for f in $faults; do
	case $NODE:$f in
	1:mode) n=$((n + 5)) ;;
	2:mode) n=$((n + 3)) ;;
	1:cable) n=$((n + 5)) ;;
	2:cable) n=$((n + 1)) ;;
	1:sm) n=$((n + 6)) ;;
	2:sm) n=$((n + 5)) ;;
	1:rereg) n=$((n + 4)) ;;
	2:rereg) n=$((n + 2)) ;;
	1:catas) n=$((n + 7)) ;;
	2:catas) n=$((n + 1)) ;;
	1:rmmod) n=$((n + 6)) ;;
	2:rmmod) n=$((n + 1)) ;;
	*) echo "FAULTS: unknown fault '$f'" >&2; exit 2 ;;
	esac
done
plan "$n"
peer=$ib0_peer
prog=$(mktemp)
out=$(mktemp)

# received BYTES: node 1's receiver has at least BYTES so far
received() { [ "$(cat "$prog" 2>/dev/null || echo 0)" -ge "$1" ]; }
ping_ok() { ping -c 1 -w 3 "$peer" >/dev/null 2>&1; }
ib0_ready() { [ -e "$ib0_sys/address" ]; }
# ib0 back after it went away: up, the address, carrier, the peer answers
ib0_again() {
	wait_for 60 ib0_ready || return 1
	ip link set ib0 up || return 1
	ib0_has_addr || ip addr add "$ib0_me/24" dev ib0 || return 1
	wait_for 120 ib0_carrier 1 && wait_for 120 ping_ok
}

# --- the faults (both nodes call each; node 1 acts) -------------------------------
f_mode() {
	local m
	XCHG_BOUND=120 barrier "$t: mode: to connected" ||
		echo "note: the other node did not come to the barrier"
	echo connected >"$ib0_sys/mode"
	m=$(cat "$ib0_sys/mode" 2>/dev/null)
	expect "$t: mode: connected under traffic ($m)" [ "$m" = connected ]
	if [ "$NODE" = 1 ]; then
		expect "$t: mode: more of the stream arrives in connected mode" \
			wait_for 120 received $((mib * 1048576 / 2))
	fi
	XCHG_BOUND=180 barrier "$t: mode: to datagram" ||
		echo "note: the other node did not come to the barrier"
	echo datagram >"$ib0_sys/mode"
	m=$(cat "$ib0_sys/mode" 2>/dev/null)
	expect "$t: mode: back to datagram under traffic ($m)" [ "$m" = datagram ]
}

f_cable() {
	[ "$NODE" = 1 ] || return 0
	expect "$t: cable: port 1's cable pulled" cable 1 off
	expect "$t: cable: ib0 loses its carrier" wait_for 30 ib0_carrier 0
	expect "$t: cable: replugged, ib0's carrier back" \
		eval 'cable 1 on && wait_for 120 ib0_carrier 1'
}

f_sm() {
	if [ "$NODE" = 1 ]; then
		expect "$t: sm: opensm on node 1 killed" sm_stop 1
	fi
	XCHG_BOUND=60 barrier "$t: sm: stopped" ||
		echo "note: the other node did not come to the barrier"
	if [ "$NODE" = 2 ]; then
		expect "$t: sm: opensm started on node 2" sm_start_up 1
	fi
	XCHG_BOUND=60 barrier "$t: sm: moved" ||
		echo "note: the other node did not come to the barrier"
	expect "$t: sm: ping under the new SM" wait_for 180 ping_ok
	XCHG_BOUND=240 barrier "$t: sm: pinged" ||
		echo "note: the other node did not come to the barrier"
	# back home: node 1's SM, as the other tests expect
	if [ "$NODE" = 2 ]; then
		expect "$t: sm: node 2's opensm stopped" sm_stop 1
	fi
	XCHG_BOUND=60 barrier "$t: sm: home" ||
		echo "note: the other node did not come to the barrier"
	if [ "$NODE" = 1 ]; then
		expect "$t: sm: opensm on node 1 again" sm_start_up 1
	fi
	expect "$t: sm: ping under node 1's SM again" wait_for 180 ping_ok
}

f_rereg() {
	if [ "$NODE" = 1 ]; then
		expect "$t: rereg: opensm on node 1 restarted (client reregister)" \
			eval 'sm_stop 1 && sm_start_up 1'
	fi
	expect "$t: rereg: ping after the groups were joined again" wait_for 180 ping_ok
}

f_catas() {
	local old p smports=()
	[ "$NODE" = 1 ] || return 0
	# the reset takes every opensm of this node with the device (on two
	# nodes, guest-init runs one per port): each comes back
	for p in 1 2; do
		sm_up "$p" && smports+=("$p")
	done
	old=$(ibdev_id)
	expect "$t: catas: a catastrophic error on node 1's card" catas 45
	expect "$t: catas: mlx4_0 back" wait_for 120 eval 'ibdev_new "$old" && [ -e "$ibdev/ports/2/state" ]'
	expect "$t: catas: opensm again on the port(s) it ran on (${smports[*]:-none})" \
		sm_back_on "$old" "${smports[@]}"
	expect "$t: catas: both ports ACTIVE again" wait_for 120 both_active
	expect "$t: catas: ib0 back: up, addressed, carrier, ping" ib0_again
}

f_rmmod() {
	[ "$NODE" = 1 ] || return 0
	expect "$t: rmmod: modprobe -r ib_ipoib under traffic" modprobe -r ib_ipoib
	expect "$t: rmmod: ib0 gone" [ ! -e "$ib0_sys" ]
	expect "$t: rmmod: modprobe ib_ipoib" modprobe ib_ipoib
	expect "$t: rmmod: ib0 back: up, addressed, carrier, ping" ib0_again
}

# --- one transfer with one fault ---------------------------------------------------
with_fault() {	# with_fault FAULT INDEX
	local f=$1 port=$((5200 + $2)) pid st got fin rc res
	if [ "$NODE" = 1 ]; then
		xfer_recv_start "$t: $f: start" "$port" "$mib" "$prog" "$out"
		pid=$xfer_pid st=$xfer_st got=$xfer_got
		if [ "$st" = listening ] && [ "$got" = sending ]; then
			expect "$t: $f: the stream is under way (8 MiB in)" \
				wait_for 120 received $((8 * 1048576))
		else
			fail "$t: $f: the stream is under way" "receiver: $st, sender: ${got:-no answer}"
		fi
		"f_$f"
		fin=$(XCHG_BOUND=$((limit + 60)) peer_xchg "$t: $f: done" receiver)
		reap "$pid" 60
		rc=$?
		res=$(tr '\n' ' ' <"$out")
		if [ "$rc" = 0 ] && grep -q matches "$out"; then
			pass "$t: $f: $mib MiB arrived intact through the fault"
		else
			fail "$t: $f: $mib MiB arrived intact through the fault" \
				"receiver exited $rc: $res (sender: ${fin:-no answer})"
		fi
	else
		xfer_send_start "$t: $f: start" "$port" "$mib" "$rate" "$limit" "$out"
		pid=$xfer_pid got=$xfer_got
		"f_$f"
		rc=1
		[ -n "$pid" ] && { wait "$pid"; rc=$?; }
		res=$(tr '\n' ' ' <"$out")
		fin=$(XCHG_BOUND=$((limit + 60)) peer_xchg "$t: $f: done" "sender $rc")
		if [ "$rc" = 0 ] && grep -q '^sent' "$out"; then
			pass "$t: $f: $mib MiB sent through the fault"
		else
			fail "$t: $f: $mib MiB sent through the fault" \
				"sender exited $rc: $res (receiver: ${got:-no answer})"
		fi
	fi
}

ib0_take
expect "$t: ib0 has carrier" wait_for 60 ib0_carrier 1
i=0
for f in $faults; do
	i=$((i + 1))
	with_fault "$f" "$i"
done

# --- load and unload ------------------------------------------------------------------
ip link set ib0 down
ok=0
for i in $(seq "$cycles"); do
	modprobe -r ib_ipoib || break
	modprobe ib_ipoib || break
	wait_for 10 ib0_ready || break
	ok=$i
done
expect "$t: $cycles cycles of modprobe -r ib_ipoib / modprobe ib_ipoib, ib0 back each time ($ok done)" \
	[ "$ok" = "$cycles" ]
XCHG_BOUND=300 barrier "$t: cycles" || echo "note: the other node did not come to the barrier"
expect "$t: ib0 up again: carrier, ping" ib0_again
barrier "$t: end" || echo "note: the other node did not come to the last barrier"
ib0_give_back
expect "$t: ib0 left as found" ib0_as_found
rm -f "$prog" "$out"
exit 0

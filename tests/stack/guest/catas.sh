#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A catastrophic (internal) error of the card at run time: the harness sets
# the model's catas property, the firmware stops until the driver resets
# the card.  The stack must notice (DEVICE_FATAL), take mlx4_0 away
# (clients see remove), reset the card, bring mlx4_0 back (clients see add)
# with both ports ACTIVE again, and the card must work
# afterwards: the test module's self-test (EVENTS=kverbs) or an RC
# pingpong between the ports (EVENTS=asyncwatch, for the inbox stack).
#
# Under an SM (tests/vm/run --sm): opensm's umad files die with the device
# (the in-tree stack's as ours), so after the recovery the opensm of this
# node is restarted, as an administrator would, and the ports must become
# ACTIVE again under the new one.  Whether the old opensm was still running
# is reported, not judged.  The self-test afterwards (kverbs-selftest.sh)
# keeps its own plan.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-catas}
fatal=${FATAL_BOUND:-30}
back=${RECOVER_BOUND:-90}
# the source, ACTIVE before, the error, DEVICE_FATAL, mlx4_0 back, ACTIVE
# again, the card works (7); with the test module remove, add and their
# order (3); with an SM of this node its restart (1 + 1 per port, below)
if [ "$EVENTS" = kverbs ]; then plan 10; else plan 7; fi

if ! ev_start; then
	fail "$t: event source $EVENTS" "could not start it"
	exit 0
fi
pass "$t: event source $EVENTS listening on mlx4_0"
expect "$t: both ports ACTIVE before" wait_for 30 both_active

# sm_again PORT: once every port of the new device (not the one whose
# ibdev_id was $old) and its umad device are back (opensm reads them all
# when it binds), start opensm on PORT and wait until it runs
# shellcheck disable=SC2317 # called through expect
sm_again() { wait_for 60 sm_ports_back "$old" && sm_start_up "$1"; }
# dev_back: a new mlx4_0 (not the one whose ibdev_id was $old) has port 2
# shellcheck disable=SC2317 # called through wait_for
dev_back() { ibdev_new "$old" && [ -e "$ibdev/ports/2/state" ]; }

smports=()
for p in 1 2; do
	sm_up "$p" && smports+=("$p")
done
echo "$t: opensm on port(s) of this node before: ${smports[*]:-none}"
[ ${#smports[@]} -gt 0 ] && plan_more $((1 + ${#smports[@]}))

m=$(ev_mark)
k=$(klog_mark)
old=$(ibdev_id)
s0=$SECONDS
expect "$t: raise a catastrophic error on the card" catas 45
expect "$t: DEVICE_FATAL within ${fatal}s" \
	ev_wait "$fatal" "$m" '^event mlx4_0 port [0-9]+ DEVICE_FATAL$'
echo "$t: DEVICE_FATAL after $((SECONDS - s0))s"
if [ "$EVENTS" = kverbs ]; then
	expect "$t: clients see mlx4_0 removed within ${back}s" \
		klog_wait "$back" "$k" '^ibstack_kverbs: remove mlx4_0$'
	expect "$t: clients see mlx4_0 added again within ${back}s" \
		klog_wait "$back" "$k" '^ibstack_kverbs: add mlx4_0$'
	order=$(klog_since "$k" |
		sed -nE 's/^ibstack_kverbs: (event mlx4_0 port [0-9]+ DEVICE_FATAL|remove mlx4_0|add mlx4_0)$/\1/p' |
		sed -E 's/^event.*/fatal/; s/ mlx4_0$//' | tr '\n' ' ')
	expect "$t: DEVICE_FATAL, then remove, then add (saw: $order)" \
		[ "$order" = "fatal remove add " ]
fi
expect "$t: mlx4_0 back in /sys/class/infiniband within ${back}s" \
	wait_for "$back" dev_back
if [ ${#smports[@]} -gt 0 ]; then
	echo "$t: opensm still running after the reset: $(sm_pids | tr '\n' ' ')"
	expect "$t: stop the old opensm" sm_stop
	for p in "${smports[@]}"; do
		expect "$t: start opensm on port $p again" sm_again "$p"
	done
fi
expect "$t: both ports ACTIVE again" wait_for 90 both_active
echo "$t: recovered after $((SECONDS - s0))s"
echo "$t: the driver said:"
klog_since "$k" | grep -Ei 'mlx4|catas|internal|reset|fatal' |
	grep -Ev 'buf(fer)?\[([0-9a-f]*[1-9a-f][0-9a-f]*|0*[1-9][0-9]*)\]' | head -n 30 | sed 's/^/    /'

# the card works after the recovery
if [ "$EVENTS" = kverbs ]; then
	expect "$t: test module unloads after the recovery" ev_stop
	TESTNAME="$t: selftest after recovery" "$(dirname "$0")/kverbs-selftest.sh"
else
	ev_stop
	out=$(mktemp)
	pport=${PINGPONG_PORT:-18515}
	timeout 90 ibv_rc_pingpong -d mlx4_0 -i 1 -n 100 -p "$pport" >"$out.s" 2>&1 &
	spid=$!
	# the client connects once the server listens
	crc=listen
	if wait_listen 30 "$pport" "$spid"; then
		timeout 60 ibv_rc_pingpong -d mlx4_0 -i 2 -n 100 -p "$pport" localhost >"$out" 2>&1
		crc=$?
	else
		kill "$spid" 2>/dev/null
	fi
	wait $spid
	src=$?
	expect "$t: ibv_rc_pingpong between the ports after the recovery (client $crc, server $src)" \
		[ "$crc.$src" = 0.0 ]
	grep -q '100 iters in' "$out" || tail -n 3 "$out" "$out.s"
	rm -f "$out" "$out.s"
fi
exit 0

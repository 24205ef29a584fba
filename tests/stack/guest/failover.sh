#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The subnet manager moves to the other node (tests/vm/run --nodes 2 --sm:
# one opensm per port/subnet on node 1).  Both nodes watch their ports'
# state in the background; node 1 stops its opensm, node 2 starts one per
# port, as guest-init does; both wait until sminfo, out of each port,
# names node 2's port as the master SM (its LID and GUID) and the ports'
# SM LID is node 2's.  The ports must have stayed ACTIVE all along, and
# smpquery, saquery -p and perfquery must still work from both nodes
# (diags.sh with DIAGS=short; output in /vmout/diags-failover; it keeps
# its own plan).
#
# Then the SM moves back, so that the boot's next item finds the subnet as
# it was: node 2 stops its opensm, node 1 starts one per port again, and
# both wait until node 1's ports are the master SM again.
#
# The nodes meet at barriers (over the management network) at every step
# the other one depends on; no fixed sleep stands in for one.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-failover}
bound=${FAILOVER_BOUND:-120}
: "${NODE:?}" "${PEER:?}"
if [ "${NODES:-1}" != 2 ]; then
	plan 1
	fail "$t: two nodes" "NODES=${NODES:-1}: run with tests/vm/run --nodes 2 --sm"
	exit 0
fi
# both nodes: the LIDs and GUIDs, 5 barriers, the new SM per port (2),
# the ports stayed ACTIVE, the old SM back per port (2), ACTIVE at the end
# (12); node 1: opensm before, stopped, started again on both ports (4);
# node 2: none before, started on both ports, both running, stopped (5)
if [ "$NODE" = 1 ]; then plan 16; else plan 17; fi

# the port state of both ports, sampled until /tmp/failover.stop appears
samples=/tmp/failover-ports.log
: >"$samples"
rm -f /tmp/failover.stop
(
	while [ ! -e /tmp/failover.stop ]; do
		echo "$SECONDS $(port_state 1) $(port_state 2)" >>"$samples"
		sleep 0.3
	done
) &
sampler=$!

# meet TAG: a barrier with the other node, reported
meet() { expect "$t: both nodes reached: $1" barrier "failover: $1"; }

# LIDs and GUIDs of both nodes' ports (node 2's become the SM's)
mine="$(my_lid 1) $(port_guid 1) $(my_lid 2) $(port_guid 2)"
theirs=$(peer_xchg "failover: ids" "$mine")
if [ "$NODE" = 2 ]; then sm=$mine old_sm=$theirs; else sm=$theirs old_sm=$mine; fi
read -r sl1 sg1 sl2 sg2 <<<"$sm"
read -r ol1 og1 ol2 og2 <<<"$old_sm"
# shellcheck disable=SC2317 # called through expect
ids_ok() {
	local v
	for v in "$@"; do
		[ -n "$v" ] && [ "$v" != 0 ] || return 1
	done
}
expect "$t: both nodes know both nodes' ports (node 2: $sm; node 1: $old_sm)" \
	ids_ok "${sl1:-}" "${sg1:-}" "${sl2:-}" "${sg2:-}" "${ol1:-}" "${og1:-}" "${ol2:-}" "${og2:-}"

# master P LID GUID: sminfo out of port P names LID (GUID) as the master,
# and so does the port's SM LID
# shellcheck disable=SC2317 # called through wait_for
master() {
	local p=$1 l g s
	[ -n "$2" ] && [ -n "$3" ] || return 1
	read -r l <"$ibdev/ports/$p/sm_lid"
	[ $((l)) = "$2" ] || return 1
	s=$(timeout 20 sminfo -C mlx4_0 -P "$p" 2>/dev/null) || return 1
	read -r _ _ _ l _ _ g _ <<<"$s"
	[ "$l" = "$2" ] && [ -n "$g" ] && [ $((${g%,})) = $(($3)) ] &&
		[[ "$s" == *SMINFO_MASTER ]]
}

old=$(sm_pids | tr '\n' ' ')
if [ "$NODE" = 1 ]; then
	expect "$t: opensm runs on node 1 before ($old)" [ -n "$old" ]
	# a few samples before the change
	wait_for 30 lines_at_least "$samples" 5
	s0=$SECONDS
	expect "$t: stop opensm on node 1" sm_stop
	echo "$t: opensm on node 1 stopped after $((SECONDS - s0))s"
	meet "opensm on node 1 stopped"
else
	expect "$t: no opensm on node 2 before" [ -z "$old" ]
	meet "opensm on node 1 stopped"
	for p in 1 2; do
		expect "$t: start opensm on node 2 port $p" sm_start "$p"
	done
	# shellcheck disable=SC2317 # called through wait_for
	two_sm() { [ "$(sm_pids | grep -c .)" = 2 ]; }
	wait_for 20 two_sm
	expect "$t: two opensm run on node 2 ($(sm_pids | tr '\n' ' '))" two_sm
fi
s0=$SECONDS

sm_lid=([1]="${sl1:-}" [2]="${sl2:-}")
sm_guid=([1]="${sg1:-}" [2]="${sg2:-}")
for p in 1 2; do
	expect "$t: port $p: the SM is node 2's port (LID ${sm_lid[p]}, GUID ${sm_guid[p]}), master, within ${bound}s" \
		wait_for "$bound" master "$p" "${sm_lid[p]}" "${sm_guid[p]}"
	echo "$t: port $p: $(timeout 20 sminfo -C mlx4_0 -P "$p" 2>&1) after $((SECONDS - s0))s"
done
# both nodes see the new SM before either stops sampling, and take a few
# samples more
meet "node 2's SM is master"
n=$(grep -c '' "$samples")
wait_for 10 lines_at_least "$samples" $((n + 3))
touch /tmp/failover.stop
wait "$sampler"
n=$(grep -c . "$samples")
bad=$(awk '$2 != "ACTIVE" || $3 != "ACTIVE"' "$samples" | head -n 5 | tr '\n' ';')
expect "$t: both ports stayed ACTIVE in all $n samples during the change" \
	[ "$n" -ge 10 -a -z "$bad" ]
[ -z "$bad" ] || echo "$t: not ACTIVE: $bad"
cp "$samples" /vmout/failover-ports.log

# the diags still work, from both nodes
OUT=/vmout/diags-failover DIAGS=short TESTNAME="$t: after" "$(dirname "$0")/diags.sh"

# the SM back on node 1, as the boot had it
meet "the diags after the change done"
if [ "$NODE" = 2 ]; then
	expect "$t: stop opensm on node 2" sm_stop
	meet "opensm on node 2 stopped"
else
	meet "opensm on node 2 stopped"
	for p in 1 2; do
		expect "$t: start opensm on node 1 port $p again" sm_start_up "$p"
	done
fi
s0=$SECONDS
sm_lid=([1]="${ol1:-}" [2]="${ol2:-}")
sm_guid=([1]="${og1:-}" [2]="${og2:-}")
for p in 1 2; do
	expect "$t: port $p: the SM is node 1's port again (LID ${sm_lid[p]}), master, within ${bound}s" \
		wait_for "$bound" master "$p" "${sm_lid[p]}" "${sm_guid[p]}"
done
echo "$t: node 1's SM back after $((SECONDS - s0))s"
expect "$t: both ports ACTIVE at the end" both_active
meet "finished"
exit 0

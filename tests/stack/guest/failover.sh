#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The subnet manager moves to the other node (tests/vm/run --nodes 2 --sm:
# one opensm per port/subnet on node 1).  Both nodes watch their ports'
# state in the background; node 1 stops its opensm, node 2 starts one per
# port, as guest-init does; both wait until sminfo, out of each port,
# names node 2's port as the master SM (its LID and GUID) and the ports'
# SM LID is node 2's.  The ports must have stayed ACTIVE all along, and
# smpquery, saquery -p and perfquery must still work from both nodes
# (diags.sh with DIAGS=short; output in /vmout/diags-failover).
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-failover}
bound=${FAILOVER_BOUND:-120}
: "${NODE:?}" "${PEER:?}"
if [ "${NODES:-1}" != 2 ]; then
	fail "$t: two nodes" "NODES=${NODES:-1}: run with tests/vm/run --nodes 2 --sm"
	exit 0
fi

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

# LIDs and GUIDs of both nodes' ports (node 2's become the SM's)
mine="$(my_lid 1) $(port_guid 1) $(my_lid 2) $(port_guid 2)"
theirs=$(peer_xchg ids "$mine")
if [ "$NODE" = 2 ]; then sm=$mine; else sm=$theirs; fi
read -r sl1 sg1 sl2 sg2 <<<"$sm"
expect "$t: both nodes know node 2's ports ($sm)" [ -n "${sg2:-}" ]
sm_lid=([1]="${sl1:-0}" [2]="${sl2:-0}")
sm_guid=([1]="${sg1:-0}" [2]="${sg2:-0}")

old=$(sm_pids | tr '\n' ' ')
if [ "$NODE" = 1 ]; then
	expect "$t: opensm runs on node 1 before ($old)" [ -n "$old" ]
	sleep 2 # a few samples before the change
	s0=$SECONDS
	expect "$t: stop opensm on node 1" sm_stop
	echo "$t: opensm on node 1 stopped after $((SECONDS - s0))s"
	peer_xchg stopped 1 >/dev/null
else
	expect "$t: no opensm on node 2 before" [ -z "$old" ]
	peer_xchg stopped 1 >/dev/null
	s0=$SECONDS
	for p in 1 2; do
		expect "$t: start opensm on node 2 port $p" sm_start "$p"
	done
	sleep 1
	expect "$t: two opensm run on node 2 ($(sm_pids | tr '\n' ' '))" \
		[ "$(sm_pids | grep -c .)" = 2 ]
fi
s0=$SECONDS

# sminfo out of port P names node 2's port P as master, and so does the
# port's SM LID
# shellcheck disable=SC2317 # called through wait_for
new_master() {
	local p=$1 l g
	read -r l <"$ibdev/ports/$p/sm_lid"
	[ $((l)) = "${sm_lid[p]}" ] || return 1
	read -r _ _ _ l _ _ g _ <<<"$(timeout 20 sminfo -C mlx4_0 -P "$p" 2>/dev/null)"
	[ "$l" = "${sm_lid[p]}" ] && [ -n "$g" ] && [ $((${g%,})) = $((sm_guid[p])) ] || return 1
	timeout 20 sminfo -C mlx4_0 -P "$p" 2>/dev/null | grep -q 'SMINFO_MASTER$'
}
for p in 1 2; do
	expect "$t: port $p: the SM is node 2's port (LID ${sm_lid[p]}, GUID ${sm_guid[p]}), master, within ${bound}s" \
		wait_for "$bound" new_master "$p"
	echo "$t: port $p: $(timeout 20 sminfo -C mlx4_0 -P "$p" 2>&1) after $((SECONDS - s0))s"
done
# both nodes see the new SM before either stops sampling
peer_xchg converged 1 >/dev/null
sleep 1
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
# node 2's opensm keeps running until both are done
peer_xchg finished 1 >/dev/null
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two VMs under opensm: with ib0 up and carrying traffic, node 1 pulls its
# port 1 cable (through the QEMU monitor); both ends lose the link and
# ib0's carrier.  Replugged, opensm brings the port back and traffic flows
# again without reloading anything.  ib0 is configured here if it is not
# (as ipoib.sh does) and left as it was found.
#
# Barriers instead of sleeps: both nodes ready (port ACTIVE, carrier) before
# the pull; both saw the link go down before the replug; both done before
# ib0 is taken back.  Every wait is bounded.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-cable}
if [ "${NODES:-1}" != 2 ]; then
	plan 1
	fail "$t: cable pull between two nodes" "needs two nodes (tests/vm/run --nodes 2)"
	exit 0
fi
# node 1 pulls and replugs (two more checks)
if [ "$NODE" = 1 ]; then plan 10; else plan 8; fi
peer=$ib0_peer
port1() { ibstat mlx4_0 1 2>/dev/null | grep -q "^[[:space:]]*State: $1$"; }

# both_ok BOUND TAG NAME CMD...: CMD succeeds here, and (the barrier) on
# the other node, which runs the same at the same TAG; BOUND (seconds) must
# exceed what CMD and the steps before it may take on either node
both_ok() {
	local bound=$1 tag=$2 name=$3 st got
	shift 3
	if "$@"; then st=ok; else st="failed: $*"; fi
	got=$(XCHG_BOUND=$bound peer_xchg "$tag" "$st")
	if [ "$st" = ok ] && [ "$got" = ok ]; then
		pass "$name"
	else
		fail "$name" "this node: $st; the other: ${got:-no answer at the barrier}"
	fi
}

# ib0 up with its address (as found, to be restored at the end)
ib0_take
# the link was up before the pull (else going down proves nothing)
up_before=0
ready() {
	wait_for 90 port1 Active && wait_for 60 ib0_carrier 1 &&
		wait_for 30 ping -c 1 -W 2 "$peer" && up_before=1
}
# after CMD...: the link was up before the pull, and CMD succeeds
after() { [ "$up_before" = 1 ] && "$@"; }
both_ok 240 "$t: ready" "$t: both nodes: port 1 ACTIVE, ib0 carrier, ping (before the pull)" ready

if [ "$NODE" = 1 ]; then
	expect "$t: pull the cable of port 1" cable 1 off
fi
expect "$t: port 1 goes Down" after wait_for 30 port1 Down
expect "$t: ib0 loses its carrier" after wait_for 30 ib0_carrier 0
down() { after port1 Down && ib0_carrier 0; }
both_ok 150 "$t: down" "$t: both nodes saw the link down before the replug" down
if [ "$NODE" = 1 ]; then
	# whatever happened before: the cable must be back for what follows
	expect "$t: plug the cable back in" cable 1 on
fi
expect "$t: port 1 ACTIVE again under opensm" wait_for 120 port1 Active
expect "$t: ib0 has its carrier back" wait_for 60 ib0_carrier 1
expect "$t: traffic flows again (ping)" wait_for 60 ping -c 1 -W 2 "$peer"

# both done before ib0 is taken back
XCHG_BOUND=330 barrier "$t: end" || echo "note: the other node did not come to the last barrier"
ib0_give_back
if ib0_as_found; then
	pass "$t: ib0 left as found"
else
	fail "$t: ib0 left as found" "$(ib0_state)"
fi
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The communication manager between two VMs (tests/vm/run --stack ours
# --nodes 2 --sm; port 1 of each node cabled to the other's): both load
# ib_cm and the test module; node 1 serves (a listener that accepts and
# answers SIDR, one that never answers), node 2 connects to it through
# the cable with node 1's LID and port GUID, sends a message, asks SIDR,
# gets a REJ for a service nobody serves and a REQ_ERROR for the one that
# never answers, and disconnects; node 1 then checks what it saw (the
# REQ's private data, the RTU, the message's bytes, the DREQ, the SIDR
# REQ, the unanswered REQ).  Both unload the module and ib_cm.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../../stack/guest/lib.sh
. "$here/../../stack/guest/lib.sh"
# shellcheck source-path=SCRIPTDIR source=kcm-lib.sh
. "$here/kcm-lib.sh"
t=${TESTNAME:-cm-2node}
KVER=${KVER:-$(uname -r)}
param=/sys/module/ibstack_kcm/parameters
if [ "${NODES:-1}" != 2 ]; then
	plan 1
	fail "$t: two nodes" "NODES=${NODES:-1}: run with tests/vm/run --nodes 2 --sm"
	exit 0
fi
# load (2), port 1 ACTIVE (1), the exchange (1), the module's runs (node 1:
# serve and unserve, node 2: remote), unload (2); the module's own PASS and
# FAIL lines come on top
if [ "$NODE" = 1 ]; then plan 8; else plan 7; fi

# run CMD NCHECKS: the module's checks for CMD as PASS/FAIL lines, and one
# check that it ran NCHECKS and its count agrees
run() {
	local m log line np nf n
	m=$(klog_mark)
	if ! echo "$1" >"$param/cmd"; then
		fail "$t: cmd $1 ran its checks" "the write failed"
		return
	fi
	log=$(klog_since "$m")
	sed -nE "s/^ibstack_kcm: (PASS|FAIL) (.*)$/\\1 $t: \\2/p" <<<"$log"
	n=$(grep -cE '^ibstack_kcm: (PASS|FAIL) ' <<<"$log")
	line=$(grep -E "^ibstack_kcm: cmd $1 done: " <<<"$log" | tail -n 1)
	np=$(sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed$/\1/p' <<<"$line")
	nf=$(sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed$/\2/p' <<<"$line")
	if is_num "$np" && is_num "$nf" && [ "$((np + nf))" = "$n" ] && [ "$n" = "$2" ]; then
		pass "$t: cmd $1 ran its $n checks"
	else
		fail "$t: cmd $1 ran its $2 checks" "done line '$line', $n checks reported"
	fi
}

expect "$t: modprobe ib_cm" modprobe ib_cm
ko=$(kcm_ko)
expect "$t: the test module loads (${ko:-not built for $KVER})" insmod "${ko:-/nonexistent}"
expect "$t: port 1 ACTIVE" wait_for 60 port_is 1 ACTIVE

if [ "$NODE" = 1 ]; then
	run serve 1
	me="$(my_lid 1) $(port_guid 1)"
	got=$(peer_xchg "$t: node 1's port 1" "$me")
	expect "$t: node 2 has node 1's LID and port GUID ($me)" [ -n "$got" ]
	XCHG_BOUND=300 barrier "$t: remote done" || echo "note: node 2 did not come to the barrier"
	run unserve 6
else
	got=$(peer_xchg "$t: node 1's port 1" "-")
	read -r lid guid <<<"$got"
	if is_num "$lid" && [ -n "$guid" ]; then
		pass "$t: node 1's port 1: LID $lid, GUID $guid"
		echo "$lid" >"$param/peer_lid"
		echo "$((guid))" >"$param/peer_guid"
	else
		fail "$t: node 1's port 1's LID and GUID" "got '$got'"
	fi
	run remote 8
	XCHG_BOUND=300 barrier "$t: remote done" || echo "note: node 1 did not come to the barrier"
fi

expect "$t: the test module unloads" rmmod ibstack_kcm
ipoib_park
expect "$t: modprobe -r ib_cm" modprobe -r ib_cm
# the node as found for the boot's next items
if [ "$ipoib_parked" = 1 ]; then
	plan_more 1
	expect "$t: ib_ipoib (and with it ib_cm) loaded again" ipoib_unpark
fi

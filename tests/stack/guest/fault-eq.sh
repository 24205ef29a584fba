#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An EQ overrun injected in the model (tests/cx3/cx3_fault.c, eq-overrun),
# issue 18.  One node, port 1 cabled to port 2, opensm (tests/vm/run --sm);
# any stack; EVENTS (lib.sh) names the event source.
#
# The next port-change event overruns the asynchronous EQ: pulling the
# loopback cable loses port 1's event (the EQ's overflow event, 0x0f, is
# written in its place) and delivers port 2's.  The driver logs the
# overflow and goes on: clients hear PORT_ERR on port 2 only (port 1's was
# lost; both come from one EQ in order, so once port 2's is there port 1's
# would be too), the replugged cable gives PORT_ACTIVE on both ports once
# opensm sweeps, and an RC pingpong between the ports passes.
set -u
. "$(dirname "$0")/lib.sh"
# shellcheck source=fault-lib.sh
. "$(dirname "$0")/fault-lib.sh"
t=${TESTNAME:-fault-eq}
plan 11


if ! ev_start; then
	fail "$t: event source $EVENTS" "could not start it"
	exit 0
fi
pass "$t: event source $EVENTS listening on mlx4_0"
expect "$t: both ports ACTIVE before" wait_for 30 both_active
n=$(card_fault_log | grep -cE 'EQ [0-9]+ overruns: event type 0x09 lost')
expect "$t: arm the next port-change event to overrun its EQ" card_fault eq-overrun 0x09
m=$(ev_mark)
k=$(klog_mark)
expect "$t: pull the cable" cable 1 off
expect "$t: PORT_ERR on port 2" ev_wait 30 "$m" '^event mlx4_0 port 2 PORT_ERR$'
expect "$t: the driver logs the EQ's overflow" \
	klog_wait 20 "$k" 'EQ [0-9]+ overflow|EQ overrun on EQN'
expect "$t: the model overran the EQ with port 1's event (fault log)" \
	[ "$(card_fault_log | grep -cE 'EQ [0-9]+ overruns: event type 0x09 lost')" = $((n + 1)) ]
seen=$(ev_since "$m" | tr '\n' ';')
# shellcheck disable=SC2317 # called through expect
no_port1_err() { ! ev_since "$m" | grep -q 'port 1 PORT_ERR$'; }
expect "$t: no PORT_ERR on port 1: its event was lost (saw: $seen)" no_port1_err
m=$(ev_mark)
expect "$t: plug the cable back" cable 1 on
# shellcheck disable=SC2317 # called through expect
both_back() {
	ev_wait 120 "$m" '^event mlx4_0 port 1 PORT_ACTIVE$' &&
		ev_wait 30 "$m" '^event mlx4_0 port 2 PORT_ACTIVE$' && wait_for 30 both_active
}
expect "$t: PORT_ACTIVE on both ports, both ACTIVE again" both_back
pingpong
echo "$t: events: $seen then $(ev_since "$m" | tr '\n' ';')"
echo "$t: the driver said:"
klog_since "$k" | grep -Ei 'mlx4|overflow|overrun|port' | head -n 15 | sed 's/^/    /'
ev_stop
rm -rf "$out"
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A flapping port injected in the model (tests/cx3/cx3_fault.c, flap1),
# issue 18.  One node, port 1 cabled to port 2 (so both ports flap),
# opensm (tests/vm/run --sm); any stack; EVENTS (lib.sh) names the event
# source.
#
# The cable goes down and up FLAPS times (default 5), FLAP_MS ms each way
# (default 200), faster than opensm sweeps.  Clients hear PORT_ERR on both
# ports; once the flapping stops opensm brings both ports ACTIVE again
# (PORT_ACTIVE on both), ib0 (brought up before, with its carrier) has its
# carrier back, and an RC pingpong between the ports passes.
set -u
. "$(dirname "$0")/lib.sh"
# shellcheck source=fault-lib.sh
. "$(dirname "$0")/fault-lib.sh"
t=${TESTNAME:-fault-flap}
flaps=${FLAPS:-5}
ms=${FLAP_MS:-200}
plan 10


if ! ev_start; then
	fail "$t: event source $EVENTS" "could not start it"
	exit 0
fi
pass "$t: event source $EVENTS listening on mlx4_0"
expect "$t: both ports ACTIVE before" wait_for 30 both_active
ib0_take
expect "$t: ib0 up with its carrier before" wait_for 60 ib0_carrier 1
n=$(card_fault_log | grep -c 'port 1 flaps: link')
m=$(ev_mark)
k=$(klog_mark)
s0=$SECONDS
expect "$t: flap port 1's cable $flaps times, $ms ms each way" card_fault flap1 "$flaps:$ms"
# shellcheck disable=SC2317 # called through expect
flapped() { [ "$(card_fault_log | grep -c 'port 1 flaps: link')" -ge $((n + 2 * flaps)) ]; }
expect "$t: the model made all $((2 * flaps)) link transitions (fault log)" wait_for 60 flapped
echo "$t: flapping done after $((SECONDS - s0)) s"
# shellcheck disable=SC2317 # called through expect
both_err() {
	ev_wait 30 "$m" '^event mlx4_0 port 1 PORT_ERR$' &&
		ev_wait 30 "$m" '^event mlx4_0 port 2 PORT_ERR$'
}
expect "$t: PORT_ERR on port 1 and port 2" both_err
# shellcheck disable=SC2317 # called through expect
both_back() {
	ev_wait 120 "$m" '^event mlx4_0 port 1 PORT_ACTIVE$' &&
		ev_wait 30 "$m" '^event mlx4_0 port 2 PORT_ACTIVE$' && wait_for 30 both_active
}
expect "$t: PORT_ACTIVE on both ports, both ACTIVE again" both_back
echo "$t: ACTIVE again after $((SECONDS - s0)) s; events: $(ev_since "$m" | tr '\n' ';')"
expect "$t: ib0 has its carrier again" wait_for 60 ib0_carrier 1
expect "$t: no more transitions: port 1 still ACTIVE" port_is 1 ACTIVE
pingpong
echo "$t: the driver said:"
klog_since "$k" | grep -Ei 'mlx4|port|ib0' | head -n 20 | sed 's/^/    /'
ib0_give_back
ev_stop
rm -rf "$out"
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Port events when a cable is pulled and plugged back (one node, port 1
# cabled to port 2, under opensm: tests/vm/run --sm): pulling port 1's
# cable gives PORT_ERR on port 1, and on port 2 at the other end of the
# loopback cable; plugging it back gives PORT_ACTIVE on both once opensm
# has swept the subnet again (its sweep interval is 10 s; UP_BOUND allows
# for several sweeps under TCG).  The events come from the test module
# (EVENTS=kverbs, the default) or from ibv_asyncwatch (EVENTS=asyncwatch).
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-cable-events}
down=${DOWN_BOUND:-15}
up=${UP_BOUND:-90}
ports=(1)
[ "${NODES:-1}" = 1 ] && [ "${CABLE:-1}" = 1 ] && ports=(1 2)	# loopback
# the source, ACTIVE before, the pull, the replug, one check of the events
# after each and the source's stop (7); per port its event and its state
# after the pull and after the replug (4)
plan $((7 + 4 * ${#ports[@]}))

if ! ev_start; then
	fail "$t: event source $EVENTS" "could not start it"
	exit 0
fi
pass "$t: event source $EVENTS listening on mlx4_0"
expect "$t: both ports ACTIVE before" wait_for 30 both_active

m=$(ev_mark)
expect "$t: pull port 1's cable" cable 1 off
s0=$SECONDS
for p in "${ports[@]}"; do
	expect "$t: PORT_ERR on port $p within ${down}s" \
		ev_wait "$down" "$m" "^event mlx4_0 port $p PORT_ERR\$"
	expect "$t: port $p DOWN in sysfs" wait_for 10 port_is "$p" DOWN
done
echo "$t: events after the pull ($((SECONDS - s0))s): $(ev_since "$m" | tr '\n' ';')"
bad=$(ev_since "$m" | grep -Ev 'PORT_ERR$')
expect "$t: no other event than PORT_ERR after the pull" [ -z "$bad" ]

m=$(ev_mark)
expect "$t: plug port 1's cable back" cable 1 on
s0=$SECONDS
for p in "${ports[@]}"; do
	expect "$t: PORT_ACTIVE on port $p within ${up}s" \
		ev_wait "$up" "$m" "^event mlx4_0 port $p PORT_ACTIVE\$"
	expect "$t: port $p ACTIVE in sysfs" wait_for 10 port_is "$p" ACTIVE
done
echo "$t: events after the replug ($((SECONDS - s0))s): $(ev_since "$m" | tr '\n' ';')"
bad=$(ev_since "$m" | grep -Ev 'PORT_ACTIVE$|LID_CHANGE$|SM_CHANGE$|CLIENT_REREGISTER$|PKEY_CHANGE$|GID_CHANGE$')
expect "$t: no PORT_ERR or DEVICE_FATAL after the replug" [ -z "$bad" ]

expect "$t: event source stops" ev_stop
exit 0

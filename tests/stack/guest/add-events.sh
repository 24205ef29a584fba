#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Port events that come while the InfiniBand device is being added must
# reach the clients (issue 13: they were lost between mlx4_ib's add() and
# mlx4_core registering its context).  One node, port 1 cabled to port 2,
# no SM (the ports come up to INIT; the model raises a port-down event for
# a link lost from INIT on).
#
# mlx4_ib is unloaded (rmmod: mlx4_core stays), the test module is loaded
# with add_hold=1, and mlx4_ib is loaded again: its add() registers mlx4_0
# with ib_core, whose client add of the test module waits.  In that window
# the cable is pulled (both ports down: the loopback cable joins them) and
# mlx4_core sees both port-down events.  Then the hold is released: the
# test module must get PORT_ERR for both ports, and the ports read DOWN.  The cable is plugged back (INIT again) and the test
# module unloaded.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-add-events}
hold=/sys/module/ibstack_kverbs/parameters/add_hold
# mlx4_ib out, the test module in, the hold reached, the pull, the driver
# saw both port-down events, the release, mlx4_ib's load ends, the events
# (2), DOWN in sysfs (2), the replug and INIT again, the test module out
plan 14

expect "$t: rmmod mlx4_ib (mlx4_core stays)" rmmod mlx4_ib
expect "$t: load the test module with add_hold=1" kverbs_load selftest=0 add_hold=1
k=$(klog_mark)
modprobe mlx4_ib &
mp=$!
expect "$t: the test module holds in its add of mlx4_0" \
	klog_wait 60 "$k" '^ibstack_kverbs: holding add mlx4_0$'
expect "$t: pull port 1's cable while mlx4_0 is being added" cable 1 off
# shellcheck disable=SC2317 # called through expect
both_down_seen() {
	klog_since "$k" | grep -q 'mlx4_core .*: port 1 down' &&
		klog_since "$k" | grep -q 'mlx4_core .*: port 2 down'
}
expect "$t: mlx4_core saw both ports go down during the add" wait_for 30 both_down_seen
expect "$t: release the hold" sh -c "echo 0 >$hold"
rc=timeout
# shellcheck disable=SC2317 # called through wait_for
mp_done() { ! kill -0 "$mp" 2>/dev/null; }
if wait_for 60 mp_done; then
	wait "$mp"
	rc=$?
else
	kill "$mp" 2>/dev/null
fi
expect "$t: modprobe mlx4_ib ends (status $rc)" [ "$rc" = 0 ]
for p in 1 2; do
	expect "$t: the client gets PORT_ERR of port $p after its add" \
		klog_wait 15 "$k" "^ibstack_kverbs: event mlx4_0 port $p PORT_ERR\$"
	expect "$t: port $p DOWN in sysfs" wait_for 10 port_is "$p" DOWN
done
echo "$t: the test module saw: $(klog_since "$k" | sed -n 's/^ibstack_kverbs: //p' | tr '\n' ';')"
expect "$t: plug port 1's cable back" cable 1 on
# shellcheck disable=SC2317 # called through expect
both_init() { port_is 1 INIT && port_is 2 INIT; }
expect "$t: both ports INIT again" wait_for 30 both_init
expect "$t: the test module unloads" rmmod ibstack_kverbs
exit 0

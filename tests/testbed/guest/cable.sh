#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two VMs, after ipoib.sh configured ib0: node 1 pulls its port 1 cable
# (through the QEMU monitor); both ends lose the link and ib0's carrier.
# Replugged, opensm brings the port back and traffic flows again without
# reloading anything.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-cable}
peer=169.254.90.$((3 - NODE))
carrier() { [ "$(cat /sys/class/net/ib0/carrier 2>/dev/null)" = "$1" ]; }
port1() { ibstat mlx4_0 1 | grep -q "State: $1"; }

if [ "$NODE" = 1 ]; then
	sleep 3
	expect "$t: pull the cable of port 1" cable 1 off
fi
expect "$t: port 1 goes Down" wait_for 30 port1 Down
expect "$t: ib0 loses its carrier" wait_for 30 carrier 0
if [ "$NODE" = 1 ]; then
	sleep 3
	expect "$t: plug the cable back in" cable 1 on
fi
expect "$t: port 1 ACTIVE again under opensm" wait_for 90 port1 Active
expect "$t: ib0 has its carrier back" wait_for 30 carrier 1
expect "$t: traffic flows again (ping)" wait_for 30 ping -c 1 -W 2 "$peer"
exit 0

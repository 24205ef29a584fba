#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# IPoIB between two VMs over the emulated cards: ib0 gets an address, ping
# works, a 64 MiB TCP transfer arrives intact in datagram mode and in
# connected mode (MTU 65520), and the port counters (perfquery) grow with
# the traffic on both ends.
set -u
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
t=${TESTNAME:-ipoib}
mib=${MIB:-64}
me=169.254.90.$NODE
peer=169.254.90.$((3 - NODE))

ip link set ib0 up
ip addr add "$me/24" dev ib0
for _ in $(seq 100); do
	[ "$(cat /sys/class/net/ib0/carrier 2>/dev/null)" = 1 ] && break
	sleep 0.2
done
expect "$t: ib0 has carrier" [ "$(cat /sys/class/net/ib0/carrier)" = 1 ]
expect "$t: ping over ib0" ping -c 3 -W 5 "$peer"

counter() {	# counter NAME: a port 1 counter of this node, from perfquery -x
	perfquery -x 2>/dev/null | sed -n "s/^$1:\.*//p"
}

transfer() {	# transfer MODE
	local mode=$1 port res
	port=$((5000 + ${#mode}))
	if [ "$NODE" = 1 ]; then
		res=$(python3 "$here/tcpxfer.py" recv "$port" "$mib" 2>&1)
		expect "$t: $mib MiB over TCP in $mode mode arrive intact ($res)" \
			grep -q matches <<<"$res"
	else
		res=$(python3 "$here/tcpxfer.py" send "$peer" "$port" "$mib" 2>&1)
		expect "$t: $mib MiB sent over TCP in $mode mode ($res)" \
			grep -q "^sent" <<<"$res"
	fi
}

xd0=$(counter PortXmitData)
rd0=$(counter PortRcvData)
transfer datagram
echo connected >/sys/class/net/ib0/mode
ip link set ib0 mtu 65520
expect "$t: connected mode with MTU 65520" \
	sh -c '[ "$(cat /sys/class/net/ib0/mode)" = connected ] && [ "$(cat /sys/class/net/ib0/mtu)" = 65520 ]'
sleep 1
transfer connected
xd1=$(counter PortXmitData)
rd1=$(counter PortRcvData)
# data counters are in 4-byte words; 2 x MIB MiB went from node 2 to node 1
words=$((2 * mib * 1024 * 1024 / 4))
if [ "$NODE" = 2 ]; then
	expect "$t: PortXmitData grew by the data sent ($xd0 -> $xd1)" \
		[ $((xd1 - xd0)) -ge "$words" ]
else
	expect "$t: PortRcvData grew by the data received ($rd0 -> $rd1)" \
		[ $((rd1 - rd0)) -ge "$words" ]
fi
exit 0

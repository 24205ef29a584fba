#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# IPoIB between two VMs over the emulated cards: ib0 gets an address, ping
# works (IPv4, or IPv6 with IPOIB_FAMILY=6), a 64 MiB TCP transfer arrives
# intact in datagram mode and in
# connected mode (MTU 65520), and the port counters (perfquery) grow with
# the traffic on both ends.  ib0 is left as it was found (mode, no address,
# up or down).  IPOIB_MODES=datagram: the datagram-mode transfer only (an
# IPoIB built without connected mode: tests/upstream-ipoib).
# ethtool -k shows the offloads IPoIB turned on from the card's
# capabilities (IB_DEVICE_UD_IP_CSUM: tx-checksum-ipv4, rx-checksumming;
# IBK_UD_TSO: tcp-segmentation-offload), so the datagram transfer goes
# through the card's checksum and LSO engines; IPOIB_OFFLOADS=on (default)
# or off says what the stack under test advertises.
#
# The nodes meet at barriers: both ib0 up before the ping; node 1's
# receiver listening before node 2 sends, and node 2's sender done before
# node 1 reaps its receiver; both in connected mode before the second
# transfer; both done before ib0 is taken back.  Every wait is bounded.
set -u
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
t=${TESTNAME:-ipoib}
if [ "${NODES:-1}" != 2 ]; then
	plan 1
	fail "$t: IPoIB between two nodes" "needs two nodes (tests/vm/run --nodes 2)"
	exit 0
fi
modes=${IPOIB_MODES:-datagram connected}
case $modes in
datagram) plan 6 ;;
"datagram connected") plan 8 ;;
*) echo "IPOIB_MODES must be 'datagram' or 'datagram connected', not '$modes'" >&2; exit 2 ;;
esac
mib=${MIB:-64}
case $mib in
'' | *[!0-9]* | 0) echo "MIB must be a number of at least 1, not '$mib'" >&2; exit 2 ;;
esac
offl=${IPOIB_OFFLOADS:-on}
case $offl in
on | off) ;;
*) echo "IPOIB_OFFLOADS must be 'on' or 'off', not '$offl'" >&2; exit 2 ;;
esac
xfer=${XFER_LIMIT:-300}	# seconds a transfer may take
fam=${IPOIB_FAMILY:-4}
case $fam in
4 | 6) ;;
*) echo "IPOIB_FAMILY must be 4 or 6, not '$fam'" >&2; exit 2 ;;
esac
peer=$ib0_peer
sysd=$ib0_sys
# IPOIB_FAMILY=6: ping and transfer over IPv6 (ULAs fd00:90::NODE/64 on
# ib0, added here without duplicate address detection and removed at the
# end)
me6=fd00:90::${NODE:-1}
[ "$fam" = 6 ] && peer=fd00:90::$((3 - ${NODE:-1}))

# as found, to be restored at the end
ib0_take
added6=0
if [ "$fam" = 6 ] && ! ip -6 -o addr show dev ib0 | grep -q " $me6/"; then
	ip -6 addr add "$me6/64" dev ib0 nodad && added6=1
fi
expect "$t: ib0 has carrier" wait_for 60 ib0_carrier 1
# both ends up before the ping
if barrier "$t: ib0 up"; then
	expect "$t: ping over ib0 (IPv$fam)" ping -"$fam" -c 3 -w 30 "$peer"
else
	fail "$t: ping over ib0" "the other node did not come to the barrier"
fi

# the offloads as ethtool -k names them (in datagram mode: connected mode
# turns them off)
feats=$(ethtool -k ib0 2>&1)
got=$(for f in tx-checksum-ipv4 tcp-segmentation-offload rx-checksumming; do
	sed -n "s/^[[:space:]]*$f: \([a-z]*\).*/$f \1/p" <<<"$feats"
done | tr '\n' ' ')
want="tx-checksum-ipv4 $offl tcp-segmentation-offload $offl rx-checksumming $offl "
if [ "$got" = "$want" ]; then
	pass "$t: ethtool -k ib0: checksum and TSO offloads $offl"
else
	fail "$t: ethtool -k ib0: checksum and TSO offloads $offl" "got: $got"
fi

counter() {	# counter NAME: a port 1 counter of this node, from perfquery -x
	perfquery -x 2>/dev/null | sed -n "s/^$1:\.*//p"
}

transfer() {	# transfer MODE: node 1 receives, node 2 sends
	local mode=$1 port res rc pid st got fin=
	port=$((5000 + ${#mode}))
	if [ "$NODE" = 1 ]; then
		python3 "$here/tcpxfer.py" recv "$port" "$mib" >"$out" 2>&1 &
		pid=$!
		st=listening
		wait_listen 60 "$port" "$pid" || st="no receiver"
		got=$(peer_xchg "$t: $mode transfer" "$st")
		if [ "$st" = listening ] && [ "$got" = sending ]; then
			# until node 2's sender is done (bounded by its limit)
			fin=$(XCHG_BOUND=$((xfer + 60)) peer_xchg "$t: $mode done" receiver)
		fi
		reap "$pid" 30
		rc=$?
		res=$(tr '\n' ' ' <"$out")
		if [ "$st" != listening ]; then
			fail "$t: $mib MiB over TCP/IPv$fam in $mode mode arrive intact" "the receiver did not listen on $port: $res"
		elif [ "$got" != sending ]; then
			fail "$t: $mib MiB over TCP/IPv$fam in $mode mode arrive intact" "node 2 did not come to the barrier"
		elif [ -z "$fin" ]; then
			fail "$t: $mib MiB over TCP/IPv$fam in $mode mode arrive intact" "node 2 did not come to the barrier after sending: $res"
		elif [ "$rc" = 0 ] && grep -q matches "$out"; then
			pass "$t: $mib MiB over TCP/IPv$fam in $mode mode arrive intact"
		else
			fail "$t: $mib MiB over TCP/IPv$fam in $mode mode arrive intact" "receiver exited $rc: $res"
		fi
	else
		got=$(peer_xchg "$t: $mode transfer" sending)
		if [ "$got" = listening ]; then
			timeout "$xfer" python3 "$here/tcpxfer.py" send "$peer" "$port" "$mib" >"$out" 2>&1
			rc=$?
			res=$(tr '\n' ' ' <"$out")
			fin=$(XCHG_BOUND=$((xfer + 60)) peer_xchg "$t: $mode done" "sender $rc")
			if [ -z "$fin" ]; then
				fail "$t: $mib MiB sent over TCP/IPv$fam in $mode mode" "node 1 did not come to the barrier after sending (sender exited $rc: $res)"
			elif [ "$rc" = 0 ] && grep -q '^sent' "$out"; then
				pass "$t: $mib MiB sent over TCP/IPv$fam in $mode mode"
			else
				fail "$t: $mib MiB sent over TCP/IPv$fam in $mode mode" "sender exited $rc: $res"
			fi
		else
			fail "$t: $mib MiB sent over TCP/IPv$fam in $mode mode" "no receiver on node 1 (${got:-no answer at the barrier})"
		fi
	fi
}

out=$(mktemp)
xd0=$(counter PortXmitData)
rd0=$(counter PortRcvData)
transfer datagram
nmodes=1
if [ "$modes" != datagram ]; then
	nmodes=2
	echo connected >"$sysd/mode"
	ip link set ib0 mtu 65520
	# both ends in connected mode before the second transfer
	st="$(cat "$sysd/mode" 2>/dev/null) $(cat "$sysd/mtu" 2>/dev/null)"
	other=$(peer_xchg "$t: connected mode" "$st")
	expect "$t: connected mode with MTU 65520 on both nodes" \
		[ "$st" = "connected 65520" -a "$other" = "connected 65520" ]
	[ "$st" = "connected 65520" ] || echo "    this node: $st, the other: ${other:-no answer}"
	transfer connected
fi
xd1=$(counter PortXmitData)
rd1=$(counter PortRcvData)
# data counters are in 4-byte words; NMODES x MIB MiB went from node 2 to
# node 1
words=$((nmodes * mib * 1024 * 1024 / 4))
num() { grep -Eq '^[0-9]+$' <<<"$1"; }
if [ "$NODE" = 2 ]; then
	name="$t: PortXmitData grew by the data sent"
	a=$xd0 b=$xd1
else
	name="$t: PortRcvData grew by the data received"
	a=$rd0 b=$rd1
fi
if num "$a" && num "$b" && [ $((b - a)) -ge "$words" ]; then
	pass "$name"
else
	fail "$name" "'$a' -> '$b', want $words words more"
fi
rm -f "$out"

# both done before ib0 is taken back
barrier "$t: end" || echo "note: the other node did not come to the last barrier"
[ "$added6" = 1 ] && ip -6 addr del "$me6/64" dev ib0
ib0_give_back
if ib0_as_found; then
	pass "$t: ib0 left as found"
else
	fail "$t: ib0 left as found" "$(ib0_state)"
fi
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# P_Key child interfaces of ib0, on two nodes under opensm
# (tests/vm/run --nodes 2 --sm).  Each node checks its own stack's IPoIB
# with the same expectations: ours (ipoib/) or the in-tree ib_ipoib, so a
# mixed fabric proves both directions.
#   1. opensm (on the SM node) restarted with partition 0x8001 for IPoIB
#      besides the default one; both nodes see 0x8001 in port 1's table;
#   2. a legacy child: create_child 0x8001 makes ib0.8001 (parent, pkey,
#      its files, ip -d's ib0.8001@ib0 and ipoib attributes, the parent's
#      flags byte and GID with a QPN of its own); the same P_Key again is
#      ENOTUNIQ; 0, 0x8000 and 0x10000 are EINVAL;
#   3. traffic over ib0.8001 (169.254.91.NODE/24); ib0 down takes it down,
#      ib0 up brings it back up;
#   4. an rtnl child with a P_Key the SM does not know (0x8002, umcast 1):
#      no sysfs files of IPoIB's, umcast 0001, up without carrier and
#      "P_Key 0x8002 is not found"; a child of a child is refused;
#   5. delete_child and ip link del; delete_child of a P_Key with no
#      child is ENODEV;
#   6. 100 children of P_Key 0x8001 made and deleted (sysfs and ip link
#      in turn, every tenth brought up: deleted while it joins) while a ping flood runs over ib0; the interfaces
#      are then as found and ib0 still pings; ip -d link show ib0;
#   7. rmmod ib_ipoib with a legacy and an rtnl child present, modprobe:
#      only ib0 back; opensm back as found; no kernel warning or splat.
# The nodes meet at barriers; every wait is bounded.
set -u
. "$(dirname "$0")/../../stack/guest/lib.sh"
t=${TESTNAME:-ipoib-child}
if [ "${NODES:-1}" != 2 ]; then
	plan 1
	fail "$t: two nodes" "NODES=${NODES:-1}: run with tests/vm/run --nodes 2 --sm"
	exit 0
fi
plan 34

sm_node=${SM_NODE:-1}
c_me=169.254.91.$NODE
c_peer=169.254.91.$((3 - NODE))
child=ib0.8001
c_sys=/sys/class/net/$child
parts=/tmp/ipoib-child-partitions.conf
mark0=$(klog_mark)
ifs0=$(ls /sys/class/net)

# the kernel's answers to a write, as bash prints them (the errno's text)
write_err() { { printf '%s\n' "$2" >"$1"; } 2>&1; }
# ip -o link line of IFACE (empty if it does not exist)
link_line() { ip -o link show dev "$1" 2>/dev/null; }
link_is_up() { link_line "$1" | grep -q '<[^>]*[<,]UP[,>]'; }
link_down() { ! link_is_up "$1"; }
gone() { [ ! -e "/sys/class/net/$1" ]; }
carrier_is() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = "$2" ]; }
pkey_in_table() { grep -qx "$1" "$ibdev"/ports/1/pkeys/* 2>/dev/null; }
splats() {
	klog_since "$mark0" | grep -E 'WARNING:|BUG:|Oops|general protection|refcount_t|waiting for .* to become free|INFO: task .* blocked' || true
}

# --- 1. the partitions -------------------------------------------------------
if [ "$NODE" = "$sm_node" ]; then
	cat >"$parts" <<'EOF'
Default=0x7fff,ipoib,mtu=4:ALL=full;
P1=0x8001,ipoib:ALL=full;
EOF
	sm_stop 1
	sm_start_parts "$parts"
	wait_for 20 sm_up 1
fi
expect "$t: port 1's P_Key table holds 0x8001 (opensm's partitions.conf)" \
	wait_for 120 pkey_in_table 0x8001
ib0_take
expect "$t: ib0 has carrier" wait_for 90 ib0_carrier 1

# --- 2. a legacy child ---------------------------------------------------------
err=$(write_err "$ib0_sys/create_child" 0x8001)
expect "$t: create_child 0x8001 makes $child${err:+ ($err)}" \
	wait_for 10 test -e "$c_sys/address"
vals="$(cat "$c_sys/parent" 2>/dev/null) $(cat "$c_sys/pkey" 2>/dev/null)"
expect "$t: $child's parent and pkey ($vals)" [ "$vals" = "ib0 0x8001" ]
err=$(write_err "$ib0_sys/create_child" 0x8001)
expect "$t: create_child 0x8001 again: ENOTUNIQ ($err)" \
	contains "$err" 'Name not unique on network'
e1=$(write_err "$ib0_sys/create_child" 0)
e2=$(write_err "$ib0_sys/create_child" 0x8000)
e3=$(write_err "$ib0_sys/create_child" 0x10000)
all_einval() {
	local e
	for e in "$@"; do
		[ "${e/Invalid argument/}" != "$e" ] || return 1
	done
}
expect "$t: create_child 0, 0x8000, 0x10000: EINVAL ($e1 / $e2 / $e3)" \
	all_einval "$e1" "$e2" "$e3"
have=
for f in mode pkey umcast parent create_child delete_child; do
	[ -e "$c_sys/$f" ] && have="$have $f"
done
expect "$t: $child has mode pkey umcast parent, no create_child or delete_child ($have)" \
	[ "$have" = " mode pkey umcast parent" ]
expect "$t: $child's mode is datagram" [ "$(cat "$c_sys/mode" 2>/dev/null)" = datagram ]
d=$(ip -d link show dev "$child" 2>&1)
expect "$t: ip -d link show $child: $child@ib0, ipoib pkey 0x8001 mode datagram" \
	contains "$d" "^[0-9]+: $child@ib0:" 'ipoib pkey 0x8001 mode datagram umcast 0000'
pa=$(cat "$ib0_sys/address" 2>/dev/null)
ca=$(cat "$c_sys/address" 2>/dev/null)
if [ ${#ca} = 59 ] && [ "${ca:0:2}" = "${pa:0:2}" ] && [ "${ca:12}" = "${pa:12}" ] &&
	[ "${ca:3:8}" != "${pa:3:8}" ]; then
	pass "$t: $child has ib0's flags byte and GID, a QPN of its own"
else
	fail "$t: $child has ib0's flags byte and GID, a QPN of its own" "ib0 $pa, $child $ca"
fi
dp="$(cat "$c_sys/dev_port" 2>/dev/null) $([ -e "$c_sys/device" ] && echo device)"
expect "$t: $child has dev_port 0 and no device link ($dp)" [ "$dp" = "0 " ]

# --- 3. traffic over the child; ib0 down and up ---------------------------------
ip link set "$child" up
ip addr add "$c_me/24" dev "$child"
expect "$t: $child has carrier" wait_for 90 carrier_is "$child" 1
barrier "$t: children up" || echo "note: the other node did not come to the barrier"
ping_child() { ping -c 1 -w 3 -I "$child" "$c_peer" >/dev/null 2>&1; }
expect "$t: ping over $child ($c_me to $c_peer)" wait_for 60 ping_child
barrier "$t: pinged" || echo "note: the other node did not come to the barrier"
ip link set ib0 down
expect "$t: ib0 down takes $child down" wait_for 10 link_down "$child"
ip link set ib0 up
if wait_for 10 link_is_up "$child" && wait_for 90 carrier_is "$child" 1; then
	pass "$t: ib0 up brings $child up, with carrier"
else
	fail "$t: ib0 up brings $child up, with carrier" "$(link_line "$child")"
fi
wait_for 90 ib0_carrier 1

# --- 4. an rtnl child whose P_Key the SM does not know ----------------------------
m=$(klog_mark)
err=$(ip link add link ib0 name ib0.x type ipoib pkey 0x8002 umcast 1 2>&1)
expect "$t: ip link add link ib0 name ib0.x type ipoib pkey 0x8002 umcast 1${err:+ ($err)}" \
	test -e /sys/class/net/ib0.x/address
have=
for f in mode pkey umcast parent create_child delete_child; do
	[ -e "/sys/class/net/ib0.x/$f" ] && have="$have $f"
done
expect "$t: ib0.x has none of IPoIB's sysfs files (${have:-none})" [ -z "$have" ]
d=$(ip -d link show dev ib0.x 2>&1)
expect "$t: ip -d link show ib0.x: ib0.x@ib0, ipoib pkey 0x8002 mode datagram umcast 0001" \
	contains "$d" '^[0-9]+: ib0\.x@ib0:' 'ipoib pkey 0x8002 mode datagram umcast 0001'
ip link set ib0.x up
expect "$t: ib0.x up: \"P_Key 0x8002 is not found\" logged" \
	klog_wait 30 "$m" 'P_Key 0x8002 is not found'
l=$(link_line ib0.x)
expect "$t: ib0.x is UP and NO-CARRIER ($l)" contains "$l" '<[^>]*NO-CARRIER' '<[^>]*[<,]UP[,>]'
err=$(ip link add link "$child" type ipoib 2>&1)
rc=$?
expect "$t: ip link add link $child type ipoib is refused (exit $rc: $err)" \
	[ "$rc" != 0 -a "${err/Invalid argument/}" != "$err" ]

# --- 5. deletion ----------------------------------------------------------------------
barrier "$t: before deletion" || echo "note: the other node did not come to the barrier"
err=$(write_err "$ib0_sys/delete_child" 0x8001)
expect "$t: delete_child 0x8001 removes $child${err:+ ($err)}" wait_for 30 gone "$child"
err=$(write_err "$ib0_sys/delete_child" 0x8001)
expect "$t: delete_child 0x8001 again: ENODEV ($err)" contains "$err" 'No such device'
err=$(ip link del ib0.x 2>&1)
expect "$t: ip link del ib0.x${err:+ ($err)}" wait_for 30 gone ib0.x

# --- 6. churn under a ping flood over ib0 -------------------------------------------
flood=/tmp/ipoib-child-flood.txt
ping -f -q -w 900 "$ib0_peer" >"$flood" 2>&1 &
fpid=$!
bad=0
why=
for i in $(seq 1 100); do
	if [ $((i % 2)) = 1 ]; then
		n=$child
		write_err "$ib0_sys/create_child" 0x8001 >/dev/null
	else
		n=ib0.c
		ip link add link ib0 name ib0.c type ipoib pkey 0x8001 2>/dev/null
	fi
	if ! wait_for 10 test -e "/sys/class/net/$n/address"; then
		bad=$((bad + 1))
		why="$why; $i: $n not made"
		continue
	fi
	[ $((i % 10)) = 0 ] && ip link set "$n" up
	if [ "$n" = "$child" ]; then
		write_err "$ib0_sys/delete_child" 0x8001 >/dev/null
	else
		ip link del "$n"
	fi
	if ! wait_for 20 gone "$n"; then
		bad=$((bad + 1))
		why="$why; $i: $n not gone"
	fi
done
expect "$t: 100 children made and deleted (sysfs and ip link in turn)${why:+$why}" [ "$bad" = 0 ]
barrier "$t: churn done" || echo "note: the other node did not come to the barrier"
kill -INT "$fpid" 2>/dev/null
wait "$fpid"
st=$(grep 'packets transmitted' "$flood")
rx=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$st")
expect "$t: the ping flood over ib0 got answers during the churn ($st)" [ "${rx:-0}" -gt 0 ]
ifs=$(ls /sys/class/net)
expect "$t: /sys/class/net as found ($(echo "$ifs" | tr '\n' ' '))" [ "$ifs" = "$ifs0" ]
expect "$t: ping over ib0 after the churn" ping -c 3 -w 30 "$ib0_peer"
d=$(ip -d link show dev ib0 2>&1)
expect "$t: ip -d link show ib0: ipoib pkey 0xffff mode datagram umcast 0000" \
	contains "$d" 'ipoib pkey 0xffff mode datagram umcast 0000'

# --- 7. rmmod with children; the end --------------------------------------------------
barrier "$t: end" || echo "note: the other node did not come to the barrier"
ib0_give_back
write_err "$ib0_sys/create_child" 0x8001 >/dev/null
ip link add link ib0 name ib0.y type ipoib pkey 0x8001 2>/dev/null
ip link set ib0.y up
expect "$t: a legacy and an rtnl child before rmmod" \
	wait_for 10 test -e "$c_sys/address" -a -e /sys/class/net/ib0.y/address
if rmmod ib_ipoib; then
	pass "$t: rmmod ib_ipoib with two children"
else
	fail "$t: rmmod ib_ipoib with two children" "$(dmesg | tail -n 5 | tr '\n' ' ')"
fi
modprobe ib_ipoib
wait_for 30 test -e "$ib0_sys/address"
ifs=$(ls /sys/class/net)
expect "$t: modprobe ib_ipoib: ib0 back, no child ($(echo "$ifs" | tr '\n' ' '))" \
	[ "$ifs" = "$ifs0" ]
if [ "$NODE" = "$sm_node" ]; then
	sm_stop 1
	rm -f "$parts"
	expect "$t: opensm started again as guest-init does (no partitions.conf of ours)" \
		sm_start_up 1
	barrier "$t: opensm back" || echo "note: the other node did not come to the barrier"
else
	expect "$t: the SM node put opensm back" barrier "$t: opensm back"
fi
bad=$(splats)
expect "$t: no kernel warning or splat${bad:+: $bad}" [ -z "$bad" ]
exit 0

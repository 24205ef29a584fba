#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In a VM with a stack loaded: what a lab user checks first.  The probe left
# no error or warning; ibv_devinfo, ibstat and ibv_devices agree on mlx4_0;
# the ports are in the state the cabling gives (EXPECT_STATE: INIT or DOWN);
# the card's SMA answers smpquery through umad.  A value that a check
# compares must have been read: an empty or unreadable one is a FAIL.
set -u
. "$(dirname "$0")/lib.sh"
want=${EXPECT_STATE:-INIT}
t=${TESTNAME:-devinfo}
plan 20

# rc0 RC CMD...: the query before exited 0 (RC) and CMD succeeds
rc0() { local rc=$1; shift; [ "$rc" = 0 ] && "$@"; }
# given VALUE CMD...: VALUE (what CMD compares with) was read, and CMD succeeds
given() { [ -n "$1" ] && shift && "$@"; }
case $want in
INIT)
	dstate='PORT_INIT (2)'; istate=Initializing; phys=LinkUp
	pstate=Initialize; pphys=LinkUp ;;
DOWN)
	dstate='PORT_DOWN (1)'; istate=Down; phys=Polling
	pstate=Down; pphys=Polling ;;
*)
	echo "EXPECT_STATE must be INIT or DOWN, not $want" >&2
	exit 2 ;;
esac

# the kernel log must be readable and show the probe, without complaints
log=$(dmesg 2>&1)
lrc=$?
bad=$(dmesg --level=emerg,alert,crit,err,warn 2>&1 |
	grep -iE 'mlx4|infiniband|ib_|ipoib|umad|uverbs|rdma')
if [ "$lrc" != 0 ]; then
	fail "$t: probe left no error or warning in dmesg" "dmesg exited $lrc: $log"
elif ! grep -q 'mlx4_core' <<<"$log"; then
	fail "$t: probe left no error or warning in dmesg" "no mlx4_core line in dmesg"
else
	expect "$t: probe left no error or warning in dmesg" [ -z "$bad" ]
	[ -z "$bad" ] || echo "$bad"
fi

dv=$(ibv_devinfo -v 2>&1)
drc=$?
expect "$t: ibv_devinfo lists mlx4_0" \
	rc0 "$drc" grep -Eq '^hca_id:[[:space:]]+mlx4_0$' <<<"$dv"
expect "$t: vendor 0x02c9" grep -Eq 'vendor_id:[[:space:]]+0x02c9$' <<<"$dv"
expect "$t: vendor part 4099" grep -Eq 'vendor_part_id:[[:space:]]+4099$' <<<"$dv"
expect "$t: firmware version" grep -Eq 'fw_ver:[[:space:]]+[0-9]+\.[0-9]+\.[0-9]+$' <<<"$dv"
expect "$t: two ports" grep -Eq 'phys_port_cnt:[[:space:]]+2$' <<<"$dv"
# exactly one node GUID, well formed and non-zero, or none to compare with
node=$(sed -n 's/^[[:space:]]*node_guid:[[:space:]]*//p' <<<"$dv")
hex4='[0-9a-f]{4}'
if grep -Exq "$hex4:$hex4:$hex4:$hex4" <<<"$node" && [ "$node" != 0000:0000:0000:0000 ]; then
	node_hex=$(guid_hex "$node")
	node_plain=$(tr -d ':' <<<"$node")
	pass "$t: non-zero node GUID"
else
	node_hex=
	node_plain=
	fail "$t: non-zero node GUID" "ibv_devinfo's node_guid: '$node'"
fi
n=$(grep -c "state:[[:space:]]*$dstate" <<<"$dv")
expect "$t: ibv_devinfo shows both ports $dstate" [ "$n" = 2 ]

is=$(ibstat mlx4_0 2>&1)
irc=$?
expect "$t: ibstat CA type MT4099" \
	rc0 "$irc" grep -q 'CA type: MT4099' <<<"$is"
expect "$t: ibstat node GUID agrees with ibv_devinfo" \
	given "$node_hex" grep -Eq "^[[:space:]]*Node GUID: $node_hex$" <<<"$is"
n=$(grep -c "State: $istate" <<<"$is")
expect "$t: ibstat shows both ports $istate" [ "$n" = 2 ]
n=$(grep -c "Physical state: $phys" <<<"$is")
expect "$t: ibstat shows both ports physically $phys" [ "$n" = 2 ]
# two port GUIDs, both well formed, distinct and non-zero
pg=$(sed -n 's/^[[:space:]]*Port GUID: //p' <<<"$is")
good=$(grep -Ex '0x[0-9a-f]{16}' <<<"$pg" | grep -vx '0x0000000000000000' | sort -u | grep -c .)
expect "$t: two distinct non-zero port GUIDs" \
	[ "$(grep -c . <<<"$pg")" = 2 -a "$good" = 2 ]
fw=$(sed -n 's/^[[:space:]]*fw_ver:[[:space:]]*//p' <<<"$dv")
expect "$t: ibstat firmware agrees" \
	given "$fw" grep -Fxq "Firmware version: $fw" <<<"$(sed 's/^[[:space:]]*//' <<<"$is")"

id=$(ibv_devices 2>&1)
vrc=$?
expect "$t: ibv_devices lists mlx4_0 with its node GUID" \
	rc0 "$vrc" given "$node_plain" grep -Eq "^[[:space:]]*mlx4_0[[:space:]]+$node_plain$" <<<"$id"

ni=$(smpquery -C mlx4_0 -P 1 -D nodeinfo 0 2>&1)
nrc=$?
expect "$t: smpquery nodeinfo: node GUID" \
	rc0 "$nrc" given "$node_hex" contains "$ni" "^Guid:\.+$node_hex$"
expect "$t: smpquery nodeinfo: channel adapter, 2 ports" \
	contains "$ni" '^NodeType:\.+Channel Adapter$' '^NumPorts:\.+2$'
expect "$t: smpquery nodeinfo: vendor 0x0002c9, device 0x1003" \
	contains "$ni" '^VendorId:\.+0x0002c9$' '^DevId:\.+0x1003$'
pi=$(smpquery -C mlx4_0 -P 1 -D portinfo 0 1 2>&1)
prc=$?
expect "$t: smpquery portinfo: state $pstate, physical $pphys" \
	contains "$pi" "^LinkState:\.+$pstate$" "^PhysLinkState:\.+$pphys$"
expect "$t: smpquery portinfo: local port 1, 4X capable" \
	rc0 "$prc" contains "$pi" '^LocalPort:\.+1$' '^LinkWidthSupported:\.+1X or 4X$'
exit 0

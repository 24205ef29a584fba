#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In a VM with a stack loaded: what a lab user checks first.  The probe left
# no error or warning; ibv_devinfo, ibstat and ibv_devices agree on mlx4_0;
# the ports are in the state the cabling gives (EXPECT_STATE: INIT or DOWN);
# the card's SMA answers smpquery through umad.
set -u
. "$(dirname "$0")/lib.sh"
want=${EXPECT_STATE:-INIT}
t=${TESTNAME:-devinfo}

bad=$(dmesg --level=emerg,alert,crit,err,warn |
	grep -iE 'mlx4|infiniband|ib_|ipoib|umad|uverbs|rdma')
expect "$t: probe left no error or warning in dmesg" [ -z "$bad" ]
[ -z "$bad" ] || echo "$bad"

dv=$(ibv_devinfo -v 2>&1)
expect "$t: ibv_devinfo lists mlx4_0" grep -Eq '^hca_id:[[:space:]]+mlx4_0$' <<<"$dv"
expect "$t: vendor 0x02c9" grep -Eq 'vendor_id:[[:space:]]+0x02c9$' <<<"$dv"
expect "$t: vendor part 4099" grep -Eq 'vendor_part_id:[[:space:]]+4099$' <<<"$dv"
expect "$t: firmware version" grep -Eq 'fw_ver:[[:space:]]+[0-9]+\.[0-9]+\.[0-9]+$' <<<"$dv"
expect "$t: two ports" grep -Eq 'phys_port_cnt:[[:space:]]+2$' <<<"$dv"
node=$(sed -n 's/^[[:space:]]*node_guid:[[:space:]]*//p' <<<"$dv")
expect "$t: non-zero node GUID ($node)" \
	[ -n "$node" -a "$node" != "0000:0000:0000:0000" ]
case $want in
INIT) dstate='PORT_INIT (2)'; istate=Initializing; phys=LinkUp ;;
DOWN) dstate='PORT_DOWN (1)'; istate=Down; phys='Polling' ;;
esac
n=$(grep -c "state:[[:space:]]*$dstate" <<<"$dv")
expect "$t: ibv_devinfo shows both ports $dstate" [ "$n" = 2 ]

is=$(ibstat mlx4_0 2>&1)
expect "$t: ibstat CA type MT4099" grep -q 'CA type: MT4099' <<<"$is"
expect "$t: ibstat node GUID agrees with ibv_devinfo" \
	grep -q "Node GUID: $(guid_hex "$node")" <<<"$is"
n=$(grep -c "State: $istate" <<<"$is")
expect "$t: ibstat shows both ports $istate" [ "$n" = 2 ]
n=$(grep -c "Physical state: $phys" <<<"$is")
expect "$t: ibstat shows both ports physically $phys" [ "$n" = 2 ]
pg=$(sed -n 's/.*Port GUID: //p' <<<"$is" | sort -u)
expect "$t: two distinct non-zero port GUIDs" \
	[ "$(grep -cv '^0x0000000000000000$' <<<"$pg")" = 2 ]
fw=$(sed -n 's/^[[:space:]]*fw_ver:[[:space:]]*//p' <<<"$dv")
expect "$t: ibstat firmware agrees" grep -q "Firmware version: $fw" <<<"$is"

id=$(ibv_devices 2>&1)
expect "$t: ibv_devices lists mlx4_0 with its node GUID" \
	grep -Eq "mlx4_0[[:space:]]+$(echo "$node" | tr -d ':')" <<<"$id"

ni=$(smpquery -C mlx4_0 -P 1 -D nodeinfo 0 2>&1)
expect "$t: smpquery nodeinfo: node GUID" \
	contains "$ni" "^Guid:\.+$(guid_hex "$node")$"
expect "$t: smpquery nodeinfo: channel adapter, 2 ports" \
	contains "$ni" '^NodeType:\.+Channel Adapter$' '^NumPorts:\.+2$'
expect "$t: smpquery nodeinfo: vendor 0x0002c9, device 0x1003" \
	contains "$ni" '^VendorId:\.+0x0002c9$' '^DevId:\.+0x1003$'
pi=$(smpquery -C mlx4_0 -P 1 -D portinfo 0 1 2>&1)
case $want in
INIT) pstate=Initialize; pphys=LinkUp ;;
DOWN) pstate=Down; pphys=Polling ;;
esac
expect "$t: smpquery portinfo: state $pstate, physical $pphys" \
	contains "$pi" "^LinkState:\.+$pstate$" "^PhysLinkState:\.+$pphys$"
expect "$t: smpquery portinfo: local port 1, 4X capable" \
	contains "$pi" '^LocalPort:\.+1$' '^LinkWidthSupported:\.+1X or 4X$'
exit 0

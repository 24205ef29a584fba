#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ib0 in datagram and connected mode as a lab admin sees it, on two nodes
# under opensm
# (tests/vm/run --nodes 2 --sm).  Each node checks its own stack's ib0
# with the same expectations: ours (ipoib/, loaded at boot from updates/)
# or the in-tree ib_ipoib, so that a mixed fabric proves both directions.
#   1. the module: ours from updates/ (the in-tree one from the kernel),
#      holding ib_cm;
#   2. identity: type 32, addr_len 20, dev_port 0, pkey 0xffff, umcast 0,
#      mode datagram; the address (flags, UD QPN, port 1's GID 0); the
#      broadcast address; ethtool -i (driver, bus-info, firmware) and the
#      eight ethtool -S counters in upstream's order;
#   3. ib0 up: carrier; the MTU is the broadcast group's (saquery -g) less
#      4; 65520 refused in datagram mode (EINVAL) and the MTU unchanged;
#      a bigger MTU than the group's accepted but capped; sysfs mode
#      refuses "connected" without the newline and any other word;
#      connected mode keeps an MTU of 65520 set while ib0 was down once
#      ib0 is up again; back to datagram mode, the group's MTU again;
#      ethtool's speed is the port's rate;
#   4. traffic: ping; the peer's 20-byte address in ip neigh; the
#      broadcast group and the peer's path in debugfs; ping6 to the peer's
#      link-local address (its GUID with the U/L bit flipped);
#   5. tests/testbed/guest/ipoib.sh in both modes (carrier, ping,
#      ethtool -k offloads, a TCP transfer of $MIB MiB checked end to end
#      in datagram mode, then in connected mode at MTU 65520 over RC
#      connections made through ib_cm, the port counters; its own plan);
#      then the same over IPv6 ($MIB6 MiB);
#   6. opensm restarted with the IPoIB group at MTU 4096: ib0's MTU
#      follows (4092), a 4000-byte ping without fragmentation, a datagram
#      transfer; opensm back as guest-init starts it, MTU 2044 again;
#   7. ib0 left as found; rmmod ib_ipoib and modprobe it again: ib0 back;
#      nothing logged at warning level by IPoIB during the test.
# The nodes meet at barriers; every wait is bounded.
set -u
. "$(dirname "$0")/../../stack/guest/lib.sh"
t=${TESTNAME:-ipoib-ib0}
here=$(cd "$(dirname "$0")" && pwd)
if [ "${NODES:-1}" != 2 ]; then
	plan 1
	fail "$t: two nodes" "NODES=${NODES:-1}: run with tests/vm/run --nodes 2 --sm"
	exit 0
fi
mine=0
[ "${STACK:-inbox}" = ours ] && mine=1
# node 1 restarts opensm twice (2 more checks)
if [ "$NODE" = 1 ]; then plan 35; else plan 33; fi

# --- 1. the module ------------------------------------------------------------
f=$(modinfo -n ib_ipoib 2>/dev/null)
if [ "$mine" = 1 ]; then
	expect "$t: our ib_ipoib is loaded, from updates/ ($f)" \
		[ -e /sys/module/ib_ipoib/refcnt -a "${f#/lib/modules/*/updates/}" != "$f" ]
else
	expect "$t: the in-tree ib_ipoib is loaded, from the kernel ($f)" \
		[ -e /sys/module/ib_ipoib/refcnt -a "${f#/lib/modules/*/kernel/}" != "$f" ]
fi
expect "$t: ib_ipoib holds ib_cm (connected mode)" [ -e /sys/module/ib_cm/holders/ib_ipoib ]
# IPoIB's warnings from here on (the boot's earlier items may have run
# another IPoIB, or moved the SM); switching to connected mode warns, as
# upstream does, about multicast beyond the broadcast group's MTU: expected
w0=$(dmesg --level=emerg,alert,crit,err,warn 2>/dev/null | wc -l)
ipoib_warnings() {
	dmesg --level=emerg,alert,crit,err,warn 2>/dev/null | tail -n +$((w0 + 1)) |
		sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' | grep -Ei 'ipoib|ib0' |
		grep -Ev '^ib0: (enabling connected mode will cause multicast packet drops|mtu > [0-9]+ will cause multicast packet drops\.)$' || true
}

# --- 2. identity ---------------------------------------------------------------
expect "$t: ib0 exists" wait_for 30 test -e "$ib0_sys/address"
vals=$(for f in type addr_len dev_port pkey umcast mode; do
	printf '%s ' "$(cat "$ib0_sys/$f" 2>/dev/null || echo "no-$f")"
done)
expect "$t: ib0's type addr_len dev_port pkey umcast mode: $vals" \
	[ "$vals" = "32 20 0 0xffff 0 datagram " ]
ib0_addr_check "$t"
# connected mode listens in either mode: flag 0x80
expect "$t: ib0's flags byte is 80: connected mode accepted (${hw:0:2})" [ "${hw:0:2}" = 80 ]
bc=$(cat "$ib0_sys/broadcast" 2>/dev/null)
expect "$t: ib0's broadcast address ($bc)" \
	[ "$bc" = 00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff ]
drv=$(ethtool -i ib0 2>&1)
# the release as a regex (6.12's has a "+")
rel_re=$(uname -r | sed 's/[.+]/\\&/g')
bus=$(basename "$(readlink -f "$ibdev/device")")
fw=$(cat "$ibdev/fw_ver" 2>/dev/null)
expect "$t: ethtool -i ib0: driver ib_ipoib, bus-info $bus, firmware $fw" \
	contains "$drv" '^driver: ib_ipoib$' "^bus-info: $bus\$" "^firmware-version: $fw\$" \
	"^version: $rel_re\$"
names=$(ethtool -S ib0 2>/dev/null | sed -n 's/^ *\([a-z_]*\): [0-9]*$/\1/p' | tr '\n' ' ')
expect "$t: ethtool -S ib0: upstream's eight counters ($names)" \
	[ "$names" = "rx_packets tx_packets rx_bytes tx_bytes tx_errors rx_dropped tx_dropped multicast " ]

# --- 3. up: carrier, MTU, mode ------------------------------------------------
ib0_take
expect "$t: ib0 has carrier" wait_for 60 ib0_carrier 1
# the IPv4 broadcast group's MTU (MCMemberRecord Mtu: selector and code)
group_mtu() {
	saquery -g 2>/dev/null | python3 -c '
import re, sys
mgid = None
for ln in sys.stdin:
    m = re.match(r"\s*(MGID|Mtu)\.+(\S+)\s*$", ln)
    if not m:
        continue
    if m.group(1) == "MGID":
        mgid = m.group(2)
    elif mgid == "ff12:401b:ffff::ffff:ffff":
        print(128 << (int(m.group(2), 0) & 0x3f))
        break
'
}
gm=$(group_mtu)
mtu=$(cat "$ib0_sys/mtu" 2>/dev/null)
expect "$t: ib0's MTU $mtu is the broadcast group's (${gm:-?}) less 4" \
	[ -n "$gm" -a "$mtu" = "$((${gm:-4} - 4))" ]
err=$(ip link set ib0 mtu 65520 2>&1)
rc=$?
m2=$(cat "$ib0_sys/mtu" 2>/dev/null)
expect "$t: MTU 65520 refused in datagram mode (exit $rc: $err), MTU still $mtu ($m2)" \
	[ "$rc" != 0 -a "${err/Invalid argument/}" != "$err" -a "$m2" = "$mtu" ]
ip link set ib0 mtu 4092
rc=$?
m2=$(cat "$ib0_sys/mtu" 2>/dev/null)
want=$mtu
[ -n "$gm" ] && [ "$gm" -ge 4096 ] && want=4092
expect "$t: MTU 4092 accepted, capped to the group's (exit $rc, MTU $m2, want $want)" \
	[ "$rc" = 0 -a "$m2" = "$want" ]
ip link set ib0 mtu "$mtu"
rc1=0 rc2=0
printf connected 2>/dev/null >"$ib0_sys/mode" || rc1=1
echo foo 2>/dev/null >"$ib0_sys/mode" || rc2=1
m3=$(cat "$ib0_sys/mode" 2>/dev/null)
expect "$t: sysfs mode refuses 'connected' without a newline and 'foo' (exit $rc1 $rc2), still datagram ($m3)" \
	[ "$rc1" != 0 -a "$rc2" != 0 -a "$m3" = datagram ]
# connected mode's MTU is the user's: set while ib0 is down, it stays when
# ib0 comes up and the broadcast group's join turns the carrier on (the
# group's MTU bounds datagram mode's only; make bench found ours cutting
# it back to 2044)
carrier_on() { [ "$(cat "$ib0_sys/carrier" 2>/dev/null)" = 1 ]; }
ip link set ib0 down
echo connected >"$ib0_sys/mode"
ip link set ib0 mtu 65520
ip link set ib0 up
wait_for 60 carrier_on
rc=$?
m4=$(cat "$ib0_sys/mtu" 2>/dev/null)
expect "$t: connected mode: MTU 65520 set while ib0 was down is kept once it is up with carrier (wait $rc, MTU $m4)" \
	[ "$rc" = 0 -a "$m4" = 65520 ]
ip link set ib0 down
echo datagram >"$ib0_sys/mode"
ip link set ib0 up
wait_for 60 carrier_on
rc=$?
m4=$(cat "$ib0_sys/mtu" 2>/dev/null)
expect "$t: back in datagram mode: carrier again, MTU $m4 the group's less 4 ($mtu)" \
	[ "$rc" = 0 -a "$m4" = "$mtu" ]
# the port's rate, e.g. "56 Gb/sec (4X FDR)", as ethtool's Mb/s
rate=$(sed -n 's/^\([0-9]*\) Gb\/sec.*/\1/p' "$ibdev/ports/1/rate" 2>/dev/null)
sp=$(ethtool ib0 2>/dev/null | sed -n 's/^[[:space:]]*Speed: //p')
expect "$t: ethtool ib0: Speed $sp is the port's rate (${rate:-?} Gb/s)" \
	[ -n "$rate" -a "$sp" = "${rate}000Mb/s" ]

# --- 4. traffic ------------------------------------------------------------------
peer_addr=$(peer_xchg "$t: addresses" "$addr")
expect "$t: the other node's ib0 address" [ ${#peer_addr} = 59 ]
expect "$t: ping over ib0" ping -c 3 -w 30 "$ib0_peer"
ll=$(ip neigh show "$ib0_peer" dev ib0 2>/dev/null)
expect "$t: ip neigh: the peer's 20-byte address ($ll)" contains "$ll" "lladdr $peer_addr"
dbg=/sys/kernel/debug/ipoib
[ -d "$dbg" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
mcg=$(cat "$dbg/ib0_mcg" 2>/dev/null)
expect "$t: debugfs ib0_mcg lists the broadcast group, complete" \
	contains "$mcg" '^GID: ff12:401b:ffff:0:0:0:ffff:ffff$' '^  complete: +yes$'
# the peer's GID as debugfs prints it: 8 groups of %x
pg=$(python3 -c 'import sys; h=sys.argv[1].replace(":", "")[8:]; print(":".join("%x" % int(h[i:i+4], 16) for i in range(0, 32, 4)))' "$peer_addr" 2>/dev/null)
pth=$(cat "$dbg/ib0_path" 2>/dev/null)
expect "$t: debugfs ib0_path lists the peer's path ($pg), complete" \
	contains "$pth" "^GID: $pg\$" '^  complete: +yes$'
# fe80:: and the peer's GUID with the universal/local bit flipped
ll6=$(python3 -c '
import sys
h = sys.argv[1].replace(":", "")[24:]
b = bytearray.fromhex(h)
b[0] ^= 2
print("fe80::" + ":".join(b[i:i + 2].hex() for i in range(0, 8, 2)))' "$peer_addr" 2>/dev/null)
ping6_ok() { ping -6 -c 1 -w 3 "$ll6%ib0" >/dev/null 2>&1; }
# (duplicate address detection may still run: bounded)
expect "$t: ping6 to the peer's link-local address $ll6" wait_for 30 ping6_ok

# --- 5. the test bed's IPoIB checks in datagram and connected mode -------------
t_re=$(printf '%s' "$t" | sed 's/[][\\.*^$+?(){}|]/\\&/g')
# testbed SUFFIX WHAT VAR=VALUE...: tests/testbed/guest/ipoib.sh with the
# variables given, named $t-SUFFIX; one check that it ran to its end
testbed() {
	local sfx=$1 what=$2 out rc
	shift 2
	out=$(env "$@" TESTNAME="$t-$sfx" bash "$here/../../testbed/guest/ipoib.sh" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	if [ "$rc" = 0 ] && contains "$out" "^PASS $t_re-$sfx: all [0-9]+ planned checks reported"; then
		pass "$t: $what ran to its end"
	else
		fail "$t: $what ran to its end" "exit $rc"
	fi
}
testbed traffic "the test bed's datagram- and connected-mode checks" \
	MIB="${MIB:-256}" IPOIB_MODES="datagram connected"
# the same over IPv6 (a smaller stream)
testbed traffic6 "the same over IPv6" \
	MIB="${MIB6:-64}" IPOIB_FAMILY=6 IPOIB_MODES="datagram connected"

# --- 6. the 4K MTU: opensm's broadcast group at MTU 4096 (mtu=5) -------------
parts=/tmp/ipoib-ib0-partitions.conf
mtu_is() { [ "$(cat "$ib0_sys/mtu" 2>/dev/null)" = "$1" ]; }
if [ "$NODE" = 1 ]; then
	echo 'Default=0x7fff,ipoib,mtu=5:ALL=full;' >"$parts"
	expect "$t: opensm restarted with the IPoIB group at MTU 4096" \
		eval 'sm_stop 1 && sm_start_parts "$parts" && wait_for 20 sm_up 1'
fi
expect "$t: ib0's MTU follows the new group: 4092" wait_for 180 mtu_is 4092
XCHG_BOUND=240 barrier "$t: 4K" || echo "note: the other node did not come to the barrier"
ping4k() { ping -c 1 -w 3 -M 'do' -s 4000 "$ib0_peer" >/dev/null 2>&1; }
expect "$t: a 4000-byte ping, not fragmented" wait_for 60 ping4k
testbed traffic4k "the datagram-mode transfer at MTU 4092" \
	MIB="${MIB4K:-64}" IPOIB_MODES=datagram
XCHG_BOUND=400 barrier "$t: 4K done" || echo "note: the other node did not come to the barrier"
if [ "$NODE" = 1 ]; then
	expect "$t: opensm started again as guest-init does" eval 'sm_stop 1 && sm_start_up 1'
	rm -f "$parts"
fi
expect "$t: ib0's MTU back to the default group's: 2044" wait_for 180 mtu_is 2044

# --- 7. the end --------------------------------------------------------------------
barrier "$t: end" || echo "note: the other node did not come to the barrier"
ib0_give_back
expect "$t: ib0 left as found" ib0_as_found
ip link set ib0 down
if rmmod ib_ipoib; then
	pass "$t: rmmod ib_ipoib"
else
	fail "$t: rmmod ib_ipoib" "$(dmesg | tail -n 5 | tr '\n' ' ')"
fi
modprobe ib_ipoib
expect "$t: modprobe ib_ipoib: ib0 back" wait_for 30 test -e "$ib0_sys/address"
bad=$(ipoib_warnings)
expect "$t: IPoIB logged no warning during the test, its reload included${bad:+: $bad}" [ -z "$bad" ]
exit 0

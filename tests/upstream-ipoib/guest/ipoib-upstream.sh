#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Linux 6.1's own IPoIB on our stack (docs/kernel-api.md 6.3): the module
# tests/upstream-ipoib/build.sh built from linux-source-6.1 against our
# development tree (connected mode included: it runs over our ib_cm), on
# two nodes under opensm.
# A node of our stack loads it by path (UPSTREAM_IPOIB_KO: "modprobe
# ib_ipoib" would find ours) in place of our own ib_ipoib; a node of the
# in-tree stack has the kernel's own, loaded at boot.  UPSTREAM_NODES
# (default "1 2"): the nodes of our stack that load it; the others keep
# our own ib_ipoib, so that upstream's talks to ours (connected mode over
# RC between them).
#   1. our own ib_ipoib (loaded at boot) unloaded first; the module is
#      that file and sits on our modules: tainted O (out of
#      tree), a holder of our ib_cm, ib_sa and ib_core, no warning while
#      loading;
#   2. ib0: its hardware address holds port 1's GID, a QP number and the
#      connected-mode flag (IPoIB listens through our ib_cm); sysfs mode
#      and ip -d say datagram;
#   3. tests/testbed/guest/ipoib.sh in both modes (carrier, ping, a TCP
#      transfer checked end to end in datagram mode and in connected mode,
#      over RC connections made through ib_cm on both nodes, counters, ib0
#      left as found; its own plan), the other node our stack or the
#      in-tree one (whose own CM then answers ours on the wire);
#   4. opensm on node 1 restarted (a new SM forgets every multicast group
#      and asks the ports to register again): IPoIB must join the broadcast
#      group again (through our ib_sa's -ENETRESET on a node of ours), seen
#      in the new SM's records for both ports, and ping works again;
#   5. ib0 down, rmmod ib_ipoib on our node: exit 0, our modules no longer
#      held by it.
# The nodes meet at barriers; every wait is bounded.
set -u
. "$(dirname "$0")/../../stack/guest/lib.sh"
t=${TESTNAME:-ipoib-upstream}
here=$(cd "$(dirname "$0")" && pwd)
if [ "${NODES:-1}" != 2 ]; then
	plan 1
	fail "$t: two nodes" "NODES=${NODES:-1}: run with tests/vm/run --nodes 2 --sm"
	exit 0
fi
# this node's IPoIB: upstream's built against our tree (on our stack),
# the in-tree one (inbox), or our own ib_ipoib kept (our stack, a node not
# in UPSTREAM_NODES: upstream's IPoIB then talks to ours across the cable)
role=inbox
if [ "${STACK:-inbox}" = ours ]; then
	role=upstream
	case " ${UPSTREAM_NODES:-1 2} " in
	*" $NODE "*) ;;
	*) role=own ;;
	esac
fi
mine=0
[ "$role" = upstream ] && mine=1
# load (ours 6, in-tree 2), ib0 (ours 6, in-tree 3), the traffic checks
# (1), the rejoin (node 1: 5, node 2: 2), the end (upstream's 3, the
# others 1)
n=1
[ "$mine" = 1 ] && n=$((n + 16)) || n=$((n + 6))
[ "$NODE" = 1 ] && n=$((n + 5)) || n=$((n + 2))
plan "$n"

# --- 1. the module ------------------------------------------------------------
if [ "$mine" = 1 ]; then
	ko=${UPSTREAM_IPOIB_KO:-}
	expect "$t: the upstream module was built for $KVER (${ko:-UPSTREAM_IPOIB_KO unset})" \
		[ -f "$ko" ]
	expect "$t: modprobe ib_cm and ib_sa (ours)" modprobe -a ib_cm ib_sa
	# our own ib_ipoib, loaded at boot, makes room for upstream's
	if [ -e /sys/module/ib_ipoib ]; then
		expect "$t: rmmod our ib_ipoib" rmmod ib_ipoib
	else
		pass "$t: our ib_ipoib not loaded"
	fi
	# warnings logged before this module (earlier items of the boot) are not its
	w0=$(dmesg --level=emerg,alert,crit,err,warn 2>/dev/null | wc -l)
	if [ -f "$ko" ] && insmod "$ko"; then
		pass "$t: insmod $ko"
	else
		fail "$t: insmod $ko" "$(dmesg | tail -n 5 | tr '\n' ' ')"
	fi
	taint=$(cat /sys/module/ib_ipoib/taint 2>/dev/null)
	expect "$t: ib_ipoib is built out of tree (taint '$taint' has O)" contains "$taint" O
	expect "$t: ib_ipoib holds our ib_cm, ib_sa and ib_core" \
		[ -e /sys/module/ib_cm/holders/ib_ipoib -a -e /sys/module/ib_sa/holders/ib_ipoib \
		  -a -e /sys/module/ib_core/holders/ib_ipoib ]
	# a real card's IPoIB logs nothing at warning level or above here
	bad=$(dmesg --level=emerg,alert,crit,err,warn 2>/dev/null | tail -n +$((w0 + 1)) |
		sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' | grep -Ei 'ipoib|ib0' || true)
	expect "$t: IPoIB logged no warning while loading${bad:+: $bad}" [ -z "$bad" ]
elif [ "$role" = own ]; then
	f=$(modinfo -n ib_ipoib 2>/dev/null)
	taint=$(cat /sys/module/ib_ipoib/taint 2>/dev/null)
	expect "$t: our own ib_ipoib is loaded" [ -e /sys/module/ib_ipoib/refcnt ]
	expect "$t: ib_ipoib is ours, from updates/ ($f, taint '$taint')" \
		[ "${f#/lib/modules/*/updates/}" != "$f" -a "${taint//[!O]/}" = O ]
else
	taint=$(cat /sys/module/ib_ipoib/taint 2>/dev/null)
	expect "$t: the in-tree ib_ipoib is loaded" [ -e /sys/module/ib_ipoib/refcnt ]
	expect "$t: the in-tree ib_ipoib is the kernel's (taint '$taint' without O)" \
		[ -e /sys/module/ib_ipoib/refcnt -a "${taint//[!O]/}" = "" ]
fi

# --- 2. ib0 --------------------------------------------------------------------
expect "$t: ib0 exists" wait_for 30 test -e "$ib0_sys/address"
# 20 bytes: flags, the UD QP's number (3 bytes), the port's GID (16 bytes)
ib0_addr_check "$t"
gid=$(cat "$ibdev/ports/1/gids/0" 2>/dev/null)
if [ "$mine" = 1 ]; then
	expect "$t: the connected-mode flag in ib0's address (${hw:0:2}): IPoIB's CM listens" \
		[ "${hw:0:2}" = 80 ]
	mode=$(cat "$ib0_sys/mode" 2>/dev/null)
	expect "$t: $ib0_sys/mode says datagram ('$mode')" [ "$mode" = datagram ]
	cap=$(cat "$ibdev/ports/1/cap_mask" 2>/dev/null)
	expect "$t: port 1's capability mask has CM_SUP ($cap)" [ $((${cap:-0} & 0x10000)) != 0 ]
fi
det=$(ip -d link show dev ib0 2>&1)
expect "$t: ip -d link shows ib0 as ipoib, mode datagram" contains "$det" 'ipoib .*mode datagram'

# --- 3. traffic: the test bed's IPoIB checks, datagram and connected mode --------
ib0_take
out=$(MIB=${MIB:-16} TESTNAME="$t-traffic" bash "$here/../../testbed/guest/ipoib.sh" 2>&1)
rc=$?
printf '%s\n' "$out"
# $t in a regular expression, quoted: a mixed fabric's name has a '+'
t_re=$(printf '%s' "$t" | sed 's/[][\\.*^$+?(){}|]/\\&/g')
if [ "$rc" = 0 ] && contains "$out" "^PASS $t_re-traffic: all [0-9]+ planned checks reported"; then
	pass "$t: the datagram- and connected-mode checks ran to their end"
else
	fail "$t: the datagram- and connected-mode checks ran to their end" "exit $rc"
fi

# --- 4. a new SM: IPoIB joins the broadcast group again ---------------------------
# the IPv4 broadcast group of P_Key 0xffff
bcast=ff12:401b:ffff:0000:0000:0000:ffff:ffff
# members: the port GIDs of the broadcast group's members, from the SM's
# MCMemberRecords (saquery -m prints GIDs compressed, sysfs in full: both
# are compared expanded).  A query without the SM_Key is untrusted, and
# opensm answers it with the requester's own records only: ask with
# opensm's default SM_Key (1), as an administrator's tool would.
members() {
	saquery --smkey 1 -m 2>/dev/null | python3 -c '
import ipaddress, re, sys
want = ipaddress.IPv6Address(sys.argv[1])
mgid = None
for ln in sys.stdin:
    m = re.match(r"\s*(MGID|PortGid)\.+(\S+)\s*$", ln)
    if not m:
        continue
    try:
        g = ipaddress.IPv6Address(m.group(2))
    except ValueError:
        continue
    if m.group(1) == "MGID":
        mgid = g
    elif mgid == want:
        print(g.exploded)
' "$bcast"
}
full() { python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address(sys.argv[1]).exploded)' "$1" 2>/dev/null; }
both_members() {
	local got
	got=$(members)
	contains "$got" "^$(full "$gid")\$" "^$(full "$peer_gid")\$"
}
peer_gid=$(peer_xchg "$t: port GIDs" "$gid")
expect "$t: the other node's port GID" [ -n "$peer_gid" ]
if [ "$NODE" = 1 ]; then
	expect "$t: both ports are members of the broadcast group before" wait_for 60 both_members
	expect "$t: opensm on port 1 restarted" eval 'sm_stop 1 && sm_start_up 1'
fi
barrier "$t: new SM" || echo "note: the other node did not come to the barrier"
# the port is ACTIVE under the new SM, ib0 has its carrier, the peer answers
ping_ok() { ping -c 1 -w 3 "$ib0_peer" >/dev/null 2>&1; }
expect "$t: ping over ib0 again under the new SM" wait_for 180 ping_ok
if [ "$NODE" = 1 ]; then
	expect "$t: both ports joined the broadcast group again (the new SM's records)" \
		wait_for 120 both_members
fi
XCHG_BOUND=200 barrier "$t: rejoined" || echo "note: the other node did not come to the barrier"
ib0_give_back

# --- 5. the end ------------------------------------------------------------------
if [ "$mine" = 1 ]; then
	ip link set ib0 down
	expect "$t: rmmod ib_ipoib" rmmod ib_ipoib
	expect "$t: ib_cm, ib_sa and ib_core no longer held by ib_ipoib" \
		[ ! -e /sys/module/ib_cm/holders/ib_ipoib -a ! -e /sys/module/ib_sa/holders/ib_ipoib \
		  -a ! -e /sys/module/ib_core/holders/ib_ipoib ]
	# the node as found: our own ib_ipoib, for the boot's next items
	expect "$t: our own ib_ipoib loaded again, ib0 back" \
		eval 'modprobe ib_ipoib && wait_for 30 test -e "$ib0_sys/address"'
else
	expect "$t: ib0 left as found" ib0_as_found
fi
exit 0

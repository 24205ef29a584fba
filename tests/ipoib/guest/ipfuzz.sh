#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/ipoib/ipfuzz*.c in the guest: IPFUZZ_N (default 100000) random and
# mutated operations on IPoIB's rtnetlink, sysfs and ioctl interfaces of
# ib0 and the P_Key children it makes, as root, then a tenth of them as
# nobody (every write refused: EPERM, or EACCES on opening the file), with
# a seed printed to replay any failure (IPFUZZ_SEED, else random).  Then:
# no interface left over (ip -d link), ib0 up with its address, mode and
# MTU as found, and working (two nodes: a ping to the other node; one node:
# an ARP request for an absent neighbour goes out through the broadcast
# group), and the kernel log holds nothing but the notices the fuzzer's
# inputs call for (ours rate-limited; the in-tree stack's own unlimited
# ones under STACK=inbox).
#   IPFUZZ      the fuzzer (default build/ipfuzz/ipfuzz, built on the host:
#               gcc -O2 -Wall -Wextra -Werror -D_GNU_SOURCE tests/ipoib/ipfuzz*.c -lpthread)
#   STACK       ours|inbox
#   IPFUZZ_ARGS more options for the fuzzer (e.g. -m 100: go on after failures)
set -u
# shellcheck source-path=SCRIPTDIR source=../../stack/guest/lib.sh
. "$(dirname "$0")/../../stack/guest/lib.sh"
t=${TESTNAME:-ipfuzz}
n=${IPFUZZ_N:-100000}
stack=${STACK:-ours}
fz=${IPFUZZ:-$stack_top/build/ipfuzz/ipfuzz}
seed=${IPFUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
plan 8

# what the kernel may say about the fuzzer's inputs: ours rate-limits its
# own; the core's netlink notices are rate-limited in both
allowed='callbacks suppressed|^ibstack-test: mark '
allowed+="|^netlink: 'ipfuzz': attribute type [0-9]+ has an invalid length\.$"
allowed+='|^netlink: [0-9]+ bytes leftover after parsing attributes in process `ipfuzz'"'"'\.$'
allowed+='|: ignoring multicast groups joined directly by userspace$'
allowed+='|: enabling connected mode will cause multicast packet drops$'
allowed+='|: mtu > [0-9]+ will cause multicast packet drops\.$'
allowed+='|: a P_Key child cannot have children$|: child [^ ]+ not registered: -[0-9]+$'
# the core's (rate-limited) words on an MTU out of bounds, and IPv6 on the
# children that come up (each has ib0's GID: the same link-local address)
allowed+='|: mtu (greater than device maximum|less than device minimum)$'
allowed+='|^IPv6: ADDRCONF\(NETDEV_CHANGE\): [^ ]+: link becomes ready$'
allowed+='|^IPv6: [^ ]+: IPv6 duplicate address [0-9a-f:]+ used by [0-9a-f:]+ detected!$'
allowed+='|^ICMPv6: NA: [0-9a-f:]+ advertised our address [0-9a-f:]+ on [^ ]+!$'
allowed+='|: P_Key 0x[0-9a-f]+ is not found$'
# and what a slow (TCG) host says now and then
allowed+='|^hrtimer: interrupt took [0-9]+ ns$'
allowed+='|^clocksource: Long readout interval, skipping watchdog check: '
# a child's default qdisc when the guest runs short of memory (the core's
# fallback: the interface still works)
allowed+='|: default qdisc \([a-z_]+\) fail, fallback to noqueue$'
# the in-tree stack: its own notices, unlimited, and its mode changes
# through sysfs only (the fuzzer's -R: 6.1's ipoib_changelink can release
# another task's RTNL, see tests/ipoib/ipfuzz.c)
fzopts=()
if [ "$stack" = inbox ]; then
	fzopts=(-R)
	allowed+='|: ipoib_mcast_join_finish:dev_queue_xmit failed to re-queue packet, ret:[0-9]+$'
	allowed+='|: child creation disallowed for child devices$'
	allowed+='|: failed to initialize; error -[0-9]+$'
	allowed+='|: pkey 0x[0-9a-f]+ not found$|: P_Key 0x[0-9a-f]+ not found$'
fi

ib0_take
mode0=$(cat "$ib0_sys/mode")
mtu0=$(cat "$ib0_sys/mtu")
links0=$(ls /sys/class/net | tr '\n' ' ')
maxud=4092
mtu_port=$(ibv_devinfo -d mlx4_0 -i 1 2>/dev/null | sed -nE 's/^[[:space:]]*max_mtu:[[:space:]]*([0-9]+).*/\1/p')
is_num "$mtu_port" && maxud=$((mtu_port - 4))
# the kernel log as it comes (lib.sh)
klog_watch_start

# run NAME COUNT SEED [setpriv ARGS...]: the fuzzer, and its verdict
run() {
	local name=$1 count=$2 s=$3 o rc s0=$SECONDS
	shift 3
	# shellcheck disable=SC2086
	o=$("$@" "$fz" -n "$count" -s "$s" -i ib0 -M "$maxud" "${fzopts[@]}" ${IPFUZZ_ARGS:-} 2>&1)
	rc=$?
	sed 's/^/    /' <<<"$o"
	if [ $rc = 0 ] && grep -q "^ipfuzz: $count operations, seed $s: PASS" <<<"$o"; then
		pass "$t: $count operations as $name, seed $s, $((SECONDS - s0)) s"
	else
		fail "$t: $count operations as $name, seed $s" \
			"exit $rc: $(grep FAIL <<<"$o" | head -n 10)"
	fi
}
run root "$n" "$seed"
run nobody $((n / 10)) $((seed + 1)) setpriv --reuid=65534 --regid=65534 --clear-groups --

links=$(ls /sys/class/net | tr '\n' ' ')
extra=$(ip -d -o link show | grep -E 'ipoib' | grep -v -E '^[0-9]+: ib[0-9]+:' || true)
if [ "$links" = "$links0" ] && [ -z "$extra" ]; then
	pass "$t: no interface left over ($links)"
else
	fail "$t: no interface left over" "before: $links0; after: $links; $extra"
fi
expect "$t: ib0 is up with $ib0_me" eval 'ib0_is_up && ib0_has_addr'
expect "$t: ib0's mode is $mode0 and its MTU $mtu0 as found" \
	[ "$(cat "$ib0_sys/mode")" = "$mode0" -a "$(cat "$ib0_sys/mtu")" = "$mtu0" ]
expect "$t: ib0's carrier is on" wait_for 30 ib0_carrier 1
if [ "${NODES:-1}" = 2 ]; then
	barrier ipfuzz-done
	expect "$t: ping over ib0 to $ib0_peer" ping -c 3 -w 30 "$ib0_peer"
else
	# an absent neighbour: each ping is an ARP request to the broadcast group
	tx0=$(cat "$ib0_sys/statistics/tx_packets")
	ping -c 2 -w 3 169.254.90.77 >/dev/null 2>&1
	tx1=$(cat "$ib0_sys/statistics/tx_packets")
	expect "$t: ib0 sends (ARP requests: tx_packets $tx0 -> $tx1)" grown "$tx0" "$tx1" 1
fi

# the kernel log from the first mark to the last: only the notices the
# inputs call for
klog_watch_check "$t: the kernel log has nothing but the notices the fuzzer's inputs call for" \
	"$allowed"
ib0_give_back
exit 0

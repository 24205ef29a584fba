#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# RDMA netlink as its users meet it, one node under an SM:
#   - tests/netlink/nlcheck.py as root and as nobody (the answers
#     libibverbs, rdma_rename and iproute2 rely on; upstream's errors for
#     bad requests);
#   - libibverbs' discovery: ibv_devices through netlink (strace: the GET
#     dump and GET_CHARDEV, no sysfs lookup of the device node), then with
#     NETLINK_RDMA refused (strace's fault injection): through sysfs, the
#     same device listed;
#   - a rename and back while an RC pingpong runs between the two ports:
#     sysfs, the uverbs and umad devices' ibdev, ibv_devices, ibstat and
#     rdma dev follow; a name taken or unfit is refused; the pingpong ends
#     well.
# STACK=inbox|ours: where 6.1 differs on purpose (nlcheck.py says where).
set -u
. "$(dirname "$0")/../../stack/guest/lib.sh"
t=${TESTNAME:-nl-user}
stack=${STACK:-ours}
nlcheck=$(dirname "$0")/../nlcheck.py
plan 17

dev=$(basename "$(ls -d /sys/class/infiniband/* | head -n 1)")
wait_for 30 port_is 1 ACTIVE && wait_for 30 port_is 2 ACTIVE ||
	echo "NOTE $t: ports $(port_state 1) $(port_state 2)"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }

# --- nlcheck, root and nobody
for who in root nobody; do
	if [ $who = root ]; then
		o=$(STACK=$stack python3 "$nlcheck" "$dev" 2>&1)
	else
		o=$(nobody env STACK="$stack" python3 "$nlcheck" "$dev" --unprivileged 2>&1)
	fi
	rc=$?
	echo "$o" | sed "s/^/    [$who] /"
	if [ $rc = 0 ] && echo "$o" | grep -q "^nlcheck: [1-9][0-9]* passed, 0 failed"; then
		pass "$t: nlcheck as $who: $(echo "$o" | tail -n 1)"
	else
		fail "$t: nlcheck as $who" "exit $rc, $(echo "$o" | grep -c '^FAIL') failures"
	fi
done

# --- libibverbs' discovery
tr=$(mktemp)
o=$(strace -f -o "$tr" -e trace=socket,sendmsg,openat ibv_devices 2>&1)
if echo "$o" | grep -q "^ *$dev "; then pass "$t: ibv_devices lists $dev"; else
	fail "$t: ibv_devices lists $dev" "$o"; fi
if grep -q 'socket(AF_NETLINK, [^)]*NETLINK_RDMA) = [0-9]' "$tr" &&
   grep -q 'nlmsg_type=0x1401 .*NLM_F_REQUEST|0x300' "$tr" &&
   grep -q 'nlmsg_type=0x140f' "$tr"; then
	pass "$t: libibverbs asked RDMA netlink (the GET dump, GET_CHARDEV)"
else
	fail "$t: libibverbs asked RDMA netlink (the GET dump, GET_CHARDEV)" \
		"$(grep -E 'socket|sendmsg' "$tr" | head -n 5)"
fi
if ! grep -q 'openat(.*/sys/class/infiniband_verbs' "$tr"; then
	pass "$t: ... and read no device node from sysfs"
else
	fail "$t: ... and read no device node from sysfs" "$(grep infiniband_verbs "$tr" | head -n 3)"
fi
o=$(strace -f -o "$tr" -e trace=socket,openat -e inject=socket:error=EPROTONOSUPPORT ibv_devices 2>&1)
if echo "$o" | grep -q "^ *$dev " && grep -q 'openat(.*/sys/class/infiniband_verbs' "$tr"; then
	pass "$t: with NETLINK_RDMA refused, ibv_devices lists $dev through sysfs"
else
	fail "$t: with NETLINK_RDMA refused, ibv_devices lists $dev through sysfs" \
		"$o / $(grep -c infiniband_verbs "$tr") sysfs opens"
fi
rm -f "$tr"

# --- librdmacm: its first request is GET_CHARDEV "rdma_cm", on which 6.1
# loads rdma_ucm; ours has no rdma_cm and loads nothing (the in-tree
# module cannot load next to our ib_core): the program fails at once
if [ "$stack" = ours ]; then
	plan_more 1
	o=$(timeout 60 rping -s -a 127.0.0.1 -C 1 2>&1)
	rc=$?
	if [ $rc != 0 ] && [ $rc != 124 ] && ! lsmod | grep -q -e '^rdma_ucm ' -e '^rdma_cm '; then
		pass "$t: rping fails cleanly without rdma_cm ($rc: $(echo "$o" | head -n 1)), nothing loaded"
	else
		fail "$t: rping fails cleanly without rdma_cm" "exit $rc: $o; $(lsmod | grep rdma_)"
	fi
fi

# --- renames under running programs: a pingpong server opens the device
# under one name, the device is renamed, the client opens it under the new
# one, and the two exchange their messages; then the same, back
new=ibren0
lid2=$(($(cat /sys/class/infiniband/"$dev"/ports/2/lid)))
log_s=$(mktemp) log_c=$(mktemp)
# pp_pair OLD NEW PORT: the server on OLD's port 1, the rename to NEW, the
# client on NEW's port 2; 0 if both ended well
pp_pair() {
	local old=$1 nw=$2 tcp=$3 srv cli rc_s rc_c
	stdbuf -oL ibv_rc_pingpong -d "$old" -i 1 -g 0 -p "$tcp" -n 200 >"$log_s" 2>&1 &
	srv=$!
	wait_listen 30 "$tcp" "$srv" || echo "NOTE $t: the pingpong server is not listening"
	rdma dev set "$old" name "$nw" || echo "NOTE $t: rdma dev set $old name $nw: exit $?"
	stdbuf -oL ibv_rc_pingpong -d "$nw" -i 2 -g 0 -p "$tcp" -n 200 localhost >"$log_c" 2>&1 &
	cli=$!
	reap "$cli" 120
	rc_c=$?
	reap "$srv" 30
	rc_s=$?
	[ $rc_c = 0 ] && [ $rc_s = 0 ] && grep -q "^200 iters in" "$log_c" && return 0
	echo "client $rc_c server $rc_s: $(tail -n 2 "$log_c" "$log_s" | tr '\n' ' ')"
	return 1
}
if o=$(pp_pair "$dev" "$new" 18600); then
	pass "$t: a pingpong server opened as $dev, renamed to $new, its client opened as $new"
else
	fail "$t: a pingpong server opened as $dev, renamed to $new, its client opened as $new" "$o"
fi
[ -d /sys/class/infiniband/$new ] && [ ! -e /sys/class/infiniband/"$dev" ] &&
	pass "$t: /sys/class/infiniband has $new, not $dev" ||
	fail "$t: /sys/class/infiniband has $new, not $dev" "$(ls /sys/class/infiniband)"
ib=$(cat /sys/class/infiniband_verbs/uverbs0/ibdev /sys/class/infiniband_mad/umad*/ibdev \
	/sys/class/infiniband_mad/issm*/ibdev 2>&1 | sort -u | tr '\n' ' ')
[ "$ib" = "$new " ] && pass "$t: uverbs0, umadN and issmN say ibdev $new" ||
	fail "$t: uverbs0, umadN and issmN say ibdev $new" "$ib"
o=$(ibv_devices 2>&1)
echo "$o" | grep -q "^ *$new " && pass "$t: ibv_devices lists $new" || fail "$t: ibv_devices lists $new" "$o"
o=$(ibstat "$new" 2>&1)
echo "$o" | grep -q "Base lid: $lid2" && pass "$t: ibstat $new reads its ports" ||
	fail "$t: ibstat $new reads its ports" "$(echo "$o" | head -n 5)"
o=$(rdma dev 2>&1)
echo "$o" | grep -q "^[0-9]*: $new: node_type ca" && pass "$t: rdma dev shows $new" ||
	fail "$t: rdma dev shows $new" "$o"
long=$(printf 'x%.0s' $(seq 70))
o=$(rdma dev set "$new" name "$long" 2>&1)
[ $? != 0 ] && [ -d /sys/class/infiniband/$new ] && pass "$t: a 70-character name is refused ($o)" ||
	fail "$t: a 70-character name is refused" "$o; $(ls /sys/class/infiniband)"
# 6.1 takes a name with a slash, and sysfs then fails to list the class
# directory (EIO) until the device goes: ours refuses it; not tried there
if [ "$stack" = ours ]; then
	plan_more 1
	o=$(rdma dev set "$new" name "a/b" 2>&1)
	[ $? != 0 ] && [ -d /sys/class/infiniband/$new ] && pass "$t: the name a/b is refused ($o)" ||
		fail "$t: the name a/b is refused" "$o; $(ls /sys/class/infiniband)"
fi
o=$(nobody rdma dev set "$new" name foo 2>&1)
echo "$o" | grep -q "Operation not permitted" && pass "$t: nobody may not rename ($o)" ||
	fail "$t: nobody may not rename" "$o"
if o=$(pp_pair "$new" "$dev" 18601) && [ -d /sys/class/infiniband/"$dev" ]; then
	pass "$t: the same, renamed back to $dev"
else
	fail "$t: the same, renamed back to $dev" "$o; $(ls /sys/class/infiniband)"
fi
rm -f "$log_s" "$log_c"
ib=$(cat /sys/class/infiniband_verbs/uverbs0/ibdev 2>&1)
[ "$ib" = "$dev" ] && pass "$t: uverbs0 says ibdev $dev again" || fail "$t: uverbs0 says ibdev $dev again" "$ib"
o=$(ibv_devinfo -d "$dev" 2>&1)
echo "$o" | grep -q "state:.*PORT_ACTIVE" && pass "$t: ibv_devinfo -d $dev after the renames" ||
	fail "$t: ibv_devinfo -d $dev after the renames" "$(echo "$o" | head -n 3)"

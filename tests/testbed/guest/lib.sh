# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers for the scripts that run inside a test VM: each check prints one
# "PASS name" or "FAIL name: why" line; the host side counts them.
#
# Every script declares how many checks it reports (plan N, once it knows
# N): when it exits, a count that differs from the plan or a non-zero exit
# status is a FAIL line of its own, so a script that stops half-way, or
# skips a check on some path, cannot pass.  Checks made in subshells count
# too ($$ is the script's pid in all of them); a script started by this one
# keeps its own count and plan.

_checks_file=/tmp/.checks.$$
_plan=
_plan_name=${TESTNAME:-$(basename "$0" .sh)}

_count() { echo >>"$_checks_file"; }
pass() { echo "PASS $1"; _count; }
fail() { echo "FAIL $1: ${2:-}"; _count; }

# plan N [NAME]: this script reports exactly N checks (NAME: how the
# verdict on the plan is named, default TESTNAME or the script's name)
plan() {
	_plan=$1
	[ -n "${2:-}" ] && _plan_name=$2
	: >"$_checks_file"
	trap '_plan_end $?' EXIT
}
# plan_more N: N more checks than planned so far (a branch that adds some)
plan_more() { _plan=$((_plan + $1)); }
_plan_end() {
	local rc=$1 n=0
	[ -e "$_checks_file" ] && n=$(grep -c '' "$_checks_file")
	rm -f "$_checks_file"
	if [ "$rc" != 0 ]; then
		echo "FAIL $_plan_name: the script exited with status $rc"
	elif [ "$n" != "$_plan" ]; then
		echo "FAIL $_plan_name: the script reported $n checks, it plans $_plan"
	else
		echo "PASS $_plan_name: all $_plan planned checks reported"
	fi
}

# expect NAME CMD...: PASS if CMD succeeds
expect() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "$*"; fi
}

# The GUID in ibv_devinfo's form (0002:c903:00a0:0010) as 0x0002c90300a00010
guid_hex() { echo "0x$(echo "$1" | tr -d ':')"; }

# contains TEXT REGEX...: every extended regex matches some line of TEXT
contains() {
	local text=$1 re
	shift
	for re in "$@"; do
		grep -Eq -- "$re" <<<"$text" || return 1
	done
}

# harness_ask NAME LINE: hand LINE to the harness in /vmout/NAME and wait
# (30 s at most) for its answer, /vmout/NAME-done (tests/vm/run)
harness_ask() {
	rm -f "/vmout/$1-done"
	# written aside, then renamed: the host must never read it half-written
	echo "$2" >"/vmout/$1.tmp" && mv "/vmout/$1.tmp" "/vmout/$1"
	for _ in $(seq 150); do
		[ -e "/vmout/$1-done" ] && { rm -f "/vmout/$1-done"; return 0; }
		sleep 0.2
	done
	return 1
}

# cable PORT on|off: have the harness plug or pull this card's cable
cable() { harness_ask cable "$1 $2"; }

# cx3_set NAME VALUE: have the harness set a property of this node's card at
# run time: a cable impairment of port N's outgoing packets (lossN and
# corruptN in parts per million, dropN packets, delayN ms) or the seed
# (tests/cx3/qemu_glue.c)
cx3_set() { harness_ask qom "$1 $2"; }

# hwc NAME: a transport counter of mlx4_0 (hw_counters, DIAG_RPRT), or "?"
hwc() { cat "/sys/class/infiniband/mlx4_0/hw_counters/$1" 2>/dev/null || echo "?"; }

# wait_for SECONDS CMD...: poll until CMD succeeds
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}

# reap PID SECONDS: the exit status of background job PID, which is killed
# if it is still running after SECONDS
reap() {
	local end=$((SECONDS + $2))
	while kill -0 "$1" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do
		sleep 0.2
	done
	kill "$1" 2>/dev/null
	wait "$1"
}

# listening PORT: a TCP socket of this node listens on PORT (IPv4 or v6)
listening() {
	local hex f
	hex=$(printf '%04X' "$1")
	for f in /proc/net/tcp /proc/net/tcp6; do
		# local address column ends in :PORT, state 0A is LISTEN
		awk -v p=":$hex" 'substr($2, length($2) - 4) == p && $4 == "0A" { ok = 1 } END { exit !ok }' "$f" 2>/dev/null &&
			return 0
	done
	return 1
}

# wait_listen SECONDS PORT [PID]: until a socket listens on PORT (false
# after SECONDS, or as soon as process PID, the server, is gone)
wait_listen() {
	local end=$((SECONDS + $1))
	until listening "$2"; do
		[ -z "${3:-}" ] || kill -0 "$3" 2>/dev/null || return 1
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# peer_xchg TAG LINE: send LINE to the other node over the management
# network ($PEER) and print the line it sent under the same TAG (node 1
# listens, node 2 connects and retries until node 1 listens; bounded to
# XCHG_BOUND seconds, default 120); a barrier too.  Fails (status 1, no
# output) if the other node did not answer in time.
peer_xchg() {
	/usr/bin/python3 - "$NODE" "$PEER" "$1" "$2" "${XCHG_BOUND:-120}" <<'PY'
import socket
import sys
import time
import zlib

node, peer, tag, line, bound = sys.argv[1:6]
port = 18000 + zlib.crc32(tag.encode()) % 500
end = time.time() + int(bound)
try:
    if node == "1":
        srv = socket.socket()
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("0.0.0.0", port))
        srv.listen(1)
        srv.settimeout(int(bound))
        while True:
            conn, _ = srv.accept()
            conn.settimeout(max(1, end - time.time()))
            # the first line is the tag: a late peer of an earlier
            # exchange on the same port is turned away
            f = conn.makefile("rb")
            if f.readline().decode().strip() == tag:
                break
            conn.close()
    else:
        while True:
            try:
                conn = socket.create_connection((peer, port), timeout=5)
                break
            except OSError:
                if time.time() > end:
                    raise
                time.sleep(0.3)
        conn.settimeout(max(1, end - time.time()))
        conn.sendall((tag + "\n").encode())
        f = conn.makefile("rb")
    conn.sendall((line + "\n").encode())
    got = f.readline()
    conn.close()
except OSError as e:
    print("peer_xchg %s: %s" % (tag, e), file=sys.stderr)
    sys.exit(1)
if not got.endswith(b"\n"):
    print("peer_xchg %s: the other node closed without a line" % tag, file=sys.stderr)
    sys.exit(1)
print(got.decode().strip())
PY
}

# barrier TAG: both nodes got here (bounded like peer_xchg); true at once
# with one node
barrier() {
	[ "${NODES:-1}" = 1 ] && return 0
	[ "$(peer_xchg "$1" "$1")" = "$1" ]
}

# IPoIB between the two nodes: ib0 carries 169.254.90.NODE/24 ($ib0_me),
# the other node is $ib0_peer.  ib0_take brings ib0 up with that address
# and remembers how it was found (up or down, address or not, mode, MTU);
# ib0_give_back puts that back, and ib0_as_found says whether it holds.
ib0_me=169.254.90.${NODE:-1}
# shellcheck disable=SC2034 # for the scripts that source this
ib0_peer=169.254.90.$((3 - ${NODE:-1}))
ib0_sys=/sys/class/net/ib0
ib0_carrier() { [ "$(cat "$ib0_sys/carrier" 2>/dev/null)" = "$1" ]; }
ib0_has_addr() { ip -4 -o addr show dev ib0 2>/dev/null | grep -q " $ib0_me/"; }
ib0_is_up() { ip -o link show dev ib0 2>/dev/null | grep -q '<[^>]*[<,]UP[,>]'; }
ib0_take() {
	ib0_mode0=$(cat "$ib0_sys/mode" 2>/dev/null)
	ib0_mtu0=$(cat "$ib0_sys/mtu" 2>/dev/null)
	ib0_up0=0
	ib0_is_up && ib0_up0=1
	ib0_added=0
	ip link set ib0 up
	if ! ib0_has_addr; then
		ip addr add "$ib0_me/24" dev ib0 && ib0_added=1
	fi
}
# the MTU asked for is put back but not compared: in datagram mode the
# kernel caps it to the broadcast group's
ib0_give_back() {
	[ "$ib0_added" = 1 ] && ip addr del "$ib0_me/24" dev ib0
	[ -n "$ib0_mode0" ] && [ "$(cat "$ib0_sys/mode")" != "$ib0_mode0" ] &&
		echo "$ib0_mode0" >"$ib0_sys/mode"
	[ -n "$ib0_mtu0" ] && ip link set ib0 mtu "$ib0_mtu0"
	[ "$ib0_up0" = 1 ] || ip link set ib0 down
}
# (an IPoIB without connected mode has no mode file: then there is none to
# compare, but one that exists must read as it did)
ib0_mode_as_found() {
	if [ -e "$ib0_sys/mode" ]; then
		[ -n "$ib0_mode0" ] && [ "$(cat "$ib0_sys/mode")" = "$ib0_mode0" ]
	else
		[ -z "$ib0_mode0" ] && [ -e "$ib0_sys/address" ]
	fi
}
ib0_as_found() {
	ib0_mode_as_found &&
		{ [ "$ib0_added" = 0 ] || ! ib0_has_addr; } &&
		{ [ "$ib0_up0" = 1 ] || ! ib0_is_up; }
}
# xfer_recv_start TAG PORT MIB PROG OUT: (node 1 of a TCP transfer over
# ib0) tcpxfer.py receives MIB MiB on PORT in the background (its progress
# in file PROG, its output in OUT), and node 2 hears under TAG whether it
# listens; sets xfer_pid, xfer_st ("listening" or "no receiver") and
# xfer_got (node 2's answer: "sending" when its sender started)
xfer_recv_start() {
	rm -f "$4"
	TCPXFER_PROGRESS=$4 python3 "$(dirname "${BASH_SOURCE[0]}")/tcpxfer.py" recv "$2" "$3" \
		>"$5" 2>&1 &
	xfer_pid=$!
	xfer_st=listening
	wait_listen 60 "$2" "$xfer_pid" || xfer_st="no receiver"
	# shellcheck disable=SC2034 # for the caller
	xfer_got=$(peer_xchg "$1" "$xfer_st")
}
# xfer_send_start TAG PORT MIB RATE LIMIT OUT: (node 2) hears under TAG
# whether node 1 listens (and says "sending"), then tcpxfer.py sends MIB
# MiB at RATE MiB/s to node 1's PORT over ib0 in the background (at most
# LIMIT s, its output in OUT); sets xfer_got (node 1's answer) and xfer_pid
# (empty if node 1 did not listen)
xfer_send_start() {
	xfer_got=$(peer_xchg "$1" sending)
	xfer_pid=
	[ "$xfer_got" = listening ] || return 0
	timeout "$5" python3 "$(dirname "${BASH_SOURCE[0]}")/tcpxfer.py" send "$ib0_peer" "$2" \
		"$3" "$4" >"$6" 2>&1 &
	xfer_pid=$!
}
# a line for a FAIL: how ib0 was found and how it is
ib0_state() {
	echo "was: ${ib0_mode0:-no mode}, MTU $ib0_mtu0, up $ib0_up0; now: $(cat "$ib0_sys/mode" 2>/dev/null || echo no mode), MTU $(cat "$ib0_sys/mtu"), $(ip -o addr show dev ib0 | tr '\n' ' ')"
}

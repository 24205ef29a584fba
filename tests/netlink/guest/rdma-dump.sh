#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# iproute2's rdma tool on one node under an SM (tests/vm/run --sm), with
# IPoIB's objects (the boot loads ib_ipoib; ib0 is up) and a user program's (an
# ibv_rc_pingpong server waiting for its client: a context, a PD, an MR, a
# CQ and an RC QP): what each command prints, with its exit status, into
# OUT (default /vmout/rdma), one file per command:
#     NAME.txt     stdout and stderr, then "rc=STATUS"
# for tests/suite/compare.py to compare one stack's with another's, field
# by field.  The commands: every show command plain, with -d and with -j,
# as root and as nobody (keys are root's only); the statistics; the
# refusals (set as nobody, raw dumps, a software link).  Then a running
# perftest (ib_write_bw from port 2 to port 1 over this node's loopback
# TCP, 8-byte writes, 10^8 of them: killed long before the end): the two processes' objects, `rdma res show
# qp|cq|pd|mr|ctx` lines of comm ib_write_bw, each with its process's role
# (server, client) in front of it and its PID replaced by the role, sorted
# by role (the two processes make their objects side by side: in whatever
# order): perftest-OBJ.txt.
#
# Checks here, whatever the stack: the pingpong's objects are listed with
# its PID; the perftest's two RC QPs are listed with theirs; each
# command's file is there.
set -u
. "$(dirname "$0")/../../stack/guest/lib.sh"
t=${TESTNAME:-rdma-dump}
out=${OUT:-/vmout/rdma}
mkdir -p "$out"
plan 4

dev=$(basename "$(ls -d /sys/class/infiniband/* | head -n 1)")
wait_for 30 port_is 1 ACTIVE || echo "NOTE $t: port 1 is $(port_state 1)"

# IPoIB's objects in use: ib0 up, its UD QP bound to port 1 and in RTS
ip link set ib0 up
ipoib_rts() { rdma res show qp 2>/dev/null | grep -q "link $dev/1 .*type UD state RTS .*ib_ipoib"; }
wait_for 30 ipoib_rts || echo "NOTE $t: ib0's QP is not in RTS: $(rdma res show qp 2>&1)"

# the user program's objects
ibv_rc_pingpong -d "$dev" -g 0 -p 18517 >/dev/null 2>&1 &
pp=$!
has_pp() { rdma res show qp 2>/dev/null | grep -q "pid $pp comm ibv_rc_pingpong"; }
if wait_for 30 has_pp; then
	pass "$t: the pingpong's QP is listed with its PID ($pp)"
else
	fail "$t: the pingpong's QP is listed with its PID ($pp)" "$(rdma res show qp 2>&1 | head -n 20)"
fi

nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
n=0
run() {
	local f=$1
	shift
	{ "$@"; echo "rc=$?"; } >"$out/$f.txt" 2>&1
	n=$((n + 1))
}
run dev rdma dev
run dev-d rdma -d dev
run dev-j rdma -j dev
run dev-show rdma dev show "$dev"
run link rdma link
run link-d rdma -d link
run link-j rdma -j link
run link-show rdma link show "$dev/2"
run res rdma res
run res-d rdma -d res
run res-j rdma -j res
for o in qp cq pd mr cm_id ctx srq; do
	run "res-$o" rdma res show "$o"
	run "res-$o-d" rdma -d res show "$o"
	run "res-$o-j" rdma -j res show "$o"
	run "res-$o-nobody" nobody rdma -d res show "$o"
done
run res-qp-one rdma res show qp link "$dev/1" lqpn 1
run res-pd-one rdma res show pd dev "$dev" pdn 0
run res-qp-missing rdma res show qp link "$dev/1" lqpn 99999
run res-raw-qp rdma -r res show qp
run res-raw-qp-nobody nobody rdma -r res show qp
run sys rdma system
run sys-nobody nobody rdma system
run stat rdma statistic
run stat-link rdma statistic show link "$dev/1"
run stat-qp rdma statistic qp mode
run stat-qp-link rdma statistic qp mode link "$dev/1"
run stat-mode rdma statistic mode
run stat-supported rdma statistic mode supported
run stat-mr rdma statistic mr
run set-nobody nobody rdma dev set "$dev" name foo0
run set-same rdma dev set "$dev" name "$dev"
run sys-set-nobody nobody rdma system set netns exclusive
run link-add rdma link add foo type rxe netdev lo
# (the in-tree stack makes the software device: it goes again)
if [ -e /sys/class/infiniband/foo ]; then
	rdma link delete foo
	modprobe -r rdma_rxe 2>/dev/null
fi
run link-del-nobody nobody rdma link delete "$dev/1"
kill "$pp" 2>/dev/null
wait "$pp" 2>/dev/null

# --- a running perftest
ib_write_bw -d "$dev" -i 1 -p 18519 -F -s 8 -n 100000000 >/tmp/perftest-server.log 2>&1 &
ps_=$!
wait_listen 30 18519 "$ps_" || echo "NOTE $t: the ib_write_bw server does not listen"
ib_write_bw -d "$dev" -i 2 -p 18519 -F -s 8 -n 100000000 127.0.0.1 >/tmp/perftest-client.log 2>&1 &
pc=$!
# (a write's target only receives: the server's QP stays in RTR)
pt_up() {
	local q
	q=$(rdma res show qp 2>/dev/null)
	grep -q -E "^link $dev/1 .* type RC state RTR .*pid $ps_ comm ib_write_bw" <<<"$q" &&
		grep -q -E "^link $dev/2 .* type RC state RTS .*pid $pc comm ib_write_bw" <<<"$q"
}
if wait_for 60 pt_up; then
	pass "$t: a running ib_write_bw pair's RC QPs are listed with their PIDs (server $ps_ in RTR, client $pc in RTS)"
else
	fail "$t: a running ib_write_bw pair's RC QPs are listed with their PIDs (server $ps_ in RTR, client $pc in RTS)" \
		"$(rdma res show qp 2>&1 | head -n 20; tail -n 5 /tmp/perftest-server.log /tmp/perftest-client.log)"
fi
# role: the lines of ib_write_bw, "server:"/"client:" in front, PID -> role
role() {
	awk -v s="$ps_" -v c="$pc" '/ comm ib_write_bw/ {
		r = ""
		for (i = 1; i < NF; i++)
			if ($i == "pid") { r = ($(i + 1) == s) ? "server" : ($(i + 1) == c) ? "client" : "other"; $(i + 1) = r }
		print r ": " $0
	}' | sort -s -k1,1
}
for o in qp cq pd mr ctx; do
	{ rdma res show "$o" | role; echo "rc=${PIPESTATUS[0]}"; } >"$out/perftest-$o.txt" 2>&1
	n=$((n + 1))
done
kill "$pc" "$ps_" 2>/dev/null
wait "$pc" "$ps_" 2>/dev/null
ip link set ib0 down

missing=$(for f in dev dev-d link res res-qp sys stat-qp set-nobody; do
	[ -s "$out/$f.txt" ] || echo "$f"
done)
if [ -z "$missing" ]; then
	pass "$t: $n commands' outputs written"
else
	fail "$t: $n commands' outputs written" "missing: $missing"
fi
pp_gone() { ! rdma res show qp 2>/dev/null | grep -q "pid $pp "; }
if wait_for 10 pp_gone; then
	pass "$t: the pingpong's QP is gone once it exits"
else
	fail "$t: the pingpong's QP is gone once it exits" "$(rdma res show qp 2>&1 | grep "pid $pp")"
fi

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The SA client test (tests/vm/run --stack ours --sm [--nodes 2]): loads
# ib_sa and the test module (tests/ksa, ibstack_ksa), has it resolve path
# records from each port, and on node 1 (the SM's node) joins and leaves
# multicast groups, checking them with saquery and ib_sa's request
# counters (/sys/kernel/debug/ib_sa/stats); then freezes opensm (a path
# query times out), restarts it and checks that the members were told
# -ENETRESET and that the module's rejoins (as IPoIB's) brought the groups
# back; then pulls port 1's cable (members told -ENETRESET, requests
# refused at once with -EAGAIN) and plugs it back (joined again).  One node: port 1 is cabled to port 2 (one
# subnet); two nodes: each port is its own subnet, the paths go to the
# other node's LIDs (found with saquery).  At the end the module unloads,
# no reference to ib_sa may be left but its holders', and ib_sa unloads
# and loads again (the boot's next item finds it loaded, opensm running,
# the ports ACTIVE).
#
# Every wait is for its condition, bounded: opensm gone from the ports
# (their IsSM capability bit cleared) before the new one starts, the new
# one running, ib_sa told that port 1 went down (its event handler's
# dynamic-debug line) before the module checks that requests are refused.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../../stack/guest/lib.sh
. "$here/../../stack/guest/lib.sh"
t=${TESTNAME:-sa}
KVER=${KVER:-$(uname -r)}
NODE=${NODE:-1}
NODES=${NODES:-1}
param=/sys/module/ibstack_ksa/parameters/cmd
stats=/sys/kernel/debug/ib_sa/stats
ddebug=/sys/kernel/debug/dynamic_debug/control
# both nodes: ib_sa and the module loaded (3), path (1 + 1 + 4 fields),
# the unload and ib_sa's references (3), ib_sa unloaded and loaded again
# unless other modules hold it (2, below); node 1: the calls made under a
# spinlock or in softirq context (2), multicast (12), the frozen SM (3),
# the SM restart (8), the cable (10).
# PARTS=atomic (one node): only the calls made under a spinlock or in
# softirq context (the debug kernel's short run in make check), set-up and
# finish around them
PARTS=${PARTS:-all}
if [ "$PARTS" = atomic ]; then plan 8
elif [ "$NODE" = 1 ]; then plan 47
else plan 12; fi

# ksa_ko: the test module for the running kernel (KSA_KO, then the build
# directory of this release)
ksa_ko() {
	local f b
	b=$(make -s -C "$stack_top" print-builddir KVER="$KVER" 2>/dev/null) || b=
	for f in ${KSA_KO:-} ${b:+"$b/tests/ksa/ibstack_ksa.ko"}; do
		[ -f "$f" ] || continue
		[ "$(modinfo -F vermagic "$f" 2>/dev/null | cut -d' ' -f1)" = "$KVER" ] ||
			continue
		echo "$f"
		return 0
	done
	return 1
}

# run_cmd CMD: the module's checks for CMD as our PASS/FAIL lines, and one
# line saying it finished and counted every check it reported; its log in
# cmd_log
cmd_log=
run_cmd() {
	local k log line np nf n
	k=$(klog_mark)
	cmd_log=
	if ! echo "$1" >"$param"; then
		fail "$t: cmd $1" "the write failed"
		return
	fi
	log=$(klog_since "$k")
	cmd_log=$log
	sed -nE "s/^ibstack_ksa: (PASS|FAIL) (.*)$/\\1 $t: \\2/p" <<<"$log"
	grep -E '^ibstack_ksa: (path|mgid|member|path to)' <<<"$log" | sed 's/^/    /'
	line=$(grep -E "^ibstack_ksa: cmd $1 done: " <<<"$log" | tail -n 1)
	np=$(sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed$/\1/p' <<<"$line")
	nf=$(sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed$/\2/p' <<<"$line")
	n=$(grep -cE '^ibstack_ksa: (PASS|FAIL) ' <<<"$log")
	if [ -n "$np" ] && [ "$((np + nf))" -gt 0 ] && [ "$((np + nf))" = "$n" ]; then
		pass "$t: cmd $1 ran $n checks"
	else
		fail "$t: cmd $1 ran its checks" "done line '$line', $n checks reported"
	fi
}

stat() { sed -n "s/^$1 //p" "$stats"; }
# counted A B N: the counter went from A to B, N more (both read)
# shellcheck disable=SC2317 # called through expect
counted() { is_num "$1" && is_num "$2" && [ "$(($2 - $1))" = "$3" ]; }

# mgid NAME: the MGID the module printed for member NAME at its last join
mgid_of() { klog_since "$join_mark" | sed -nE "s/^ibstack_ksa: mgid $1 ([0-9a-f:]+) .*/\\1/p" | tail -n 1; }

# in_sa MGID...: saquery lists a multicast group with each MGID;
# none_in_sa MGID...: with none of them (both called through wait_for)
# shellcheck disable=SC2317
in_sa() {
	local g m
	g=$(saquery -C mlx4_0 -P 1 -g 2>/dev/null) || return 1
	for m in "$@"; do
		grep -qiE "MGID\\.*$m\$" <<<"$g" || return 1
	done
}
# shellcheck disable=SC2317
none_in_sa() {
	local g m
	g=$(saquery -C mlx4_0 -P 1 -g 2>/dev/null) || return 1
	for m in "$@"; do
		grep -qiE "MGID\\.*$m\$" <<<"$g" && return 1
	done
	return 0
}
# sm_gone PORT...: no opensm runs on this node, and the ports (one at
# least) no longer have the IsSM capability bit (the old SM's issm files
# are closed)
# shellcheck disable=SC2317
sm_gone() {
	local p c
	[ $# -gt 0 ] || return 1
	sm_up && return 1
	for p in "$@"; do
		read -r c <"$ibdev/ports/$p/cap_mask" || return 1
		[ $((c & 0x2)) = 0 ] || return 1
	done
}
# sm_restart PORT...: opensm on each port (one at least) again, running
# shellcheck disable=SC2317
sm_restart() {
	local p
	[ $# -gt 0 ] || return 1
	for p in "$@"; do
		sm_start_up "$p" || return 1
	done
}

# peer_lid PORT: the LID of the other CA port on PORT's subnet
peer_lid() {
	local own
	own=$(($(<"/sys/class/infiniband/mlx4_0/ports/$1/lid")))
	saquery -C mlx4_0 -P "$1" NR 2>/dev/null |
		sed -nE 's/^[[:space:]]*lid\.+(0x[0-9a-fA-F]+|[0-9]+)$/\1/p' |
		while read -r l; do [ "$((l))" != "$own" ] && echo "$((l))"; done | head -n 1
}

# finish: unload the module; no reference to ib_sa left but its holders';
# unload and load ib_sa again when nothing holds it
finish() {
	local k refs
	k=$(klog_mark)
	expect "$t: ibstack_ksa unloads" rmmod ibstack_ksa
	expect "$t: the module saw mlx4_0 removed at unload" klog_wait 10 "$k" '^ibstack_ksa: remove mlx4_0$'
	refs=$(mod_refs ib_sa)
	read -r n holders <<<"$refs"
	expect "$t: no reference to ib_sa beyond its holders (refcnt ${n:-unreadable}, holders: ${holders:-none})" \
		mod_no_leak ib_sa
	if [ -n "$refs" ] && [ -z "$holders" ]; then
		plan_more 2
		expect "$t: ib_sa unloads" rmmod ib_sa
		expect "$t: ib_sa loads again" modprobe ib_sa
	else
		echo "ib_sa is held by ${holders:-?}: not unloaded"
	fi
	exit 0
}

# atomic_part: the calls IPoIB makes under its spinlock, made so by the
# module (the debug kernel reports any of them that could sleep), and the
# SA saw the membership's one join and, once freed, its one leave
atomic_part() {
	local aj0 al0
	aj0=$(stat mc_join)
	al0=$(stat mc_leave)
	run_cmd atomic
	# shellcheck disable=SC2317 # called through wait_for
	atomic_counted() { counted "$aj0" "$(stat mc_join)" 1 && counted "$al0" "$(stat mc_leave)" 1; }
	expect "$t: one SA join and, once freed, one leave for the membership made under a spinlock" \
		wait_for 15 atomic_counted
}

# --- set-up -----------------------------------------------------------------
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
expect "$t: ib_sa loads" modprobe ib_sa
ko=$(ksa_ko) || { fail "$t: test module" "no ibstack_ksa.ko built for $KVER"; exit 0; }
k=$(klog_mark)
lids=()
if [ "$NODES" = 2 ]; then
	for p in 1 2; do
		l=$(peer_lid "$p")
		if [ -z "$l" ]; then
			fail "$t: port $p: the peer's LID from saquery" "no other LID in NodeRecords"
			exit 0
		fi
		lids+=("peer_lid$p=$l")
	done
	echo "peer LIDs: ${lids[*]}"
fi
expect "$t: ibstack_ksa loads" insmod "$ko" "${lids[@]}"
expect "$t: ibstack_ksa found mlx4_0" klog_wait 10 "$k" '^ibstack_ksa: add mlx4_0$'

if [ "$PARTS" = atomic ]; then
	atomic_part
	finish
fi

# --- path records -----------------------------------------------------------
p0=$(stat path_get)
run_cmd path
p1=$(stat path_get)
# 2 ports x (sync + async) + cancel + the GID nobody has
expect "$t: ib_sa sent one PathRecord Get per query (6: '$p0' -> '$p1')" \
	counted "$p0" "$p1" 6
# the kernel's answer for port 1 (of this cmd) against saquery's for the
# same LIDs: each field given by both, and the same
kline=$(sed -nE 's/^ibstack_ksa: path port1 sync: (.*)/\1/p' <<<"$cmd_log" | tail -n 1)
slid=$(sed -nE 's/.*slid (0x[0-9a-f]+).*/\1/p' <<<"$kline")
dlid=$(sed -nE 's/^dlid (0x[0-9a-f]+).*/\1/p' <<<"$kline")
pr=
if [ -n "$slid" ] && [ -n "$dlid" ]; then
	pr=$(saquery -C mlx4_0 -P 1 --src-to-dst "$((slid)):$((dlid))" 2>&1)
else
	echo "the module printed no path of port 1 with its LIDs: '$kline'"
fi
f() { sed -nE "s/^[[:space:]]*$1\\.+(0x[0-9a-fA-F]+)\$/\\1/p" <<<"$pr" | head -n 1; }
kf() { sed -nE "s/.* $1 ([0-9a-fx]+).*/\\1/p" <<<"$kline"; }
# shellcheck disable=SC2317 # called through expect
same_num() { [ -n "$1" ] && [ -n "$2" ] && [ "$(($1))" = "$(($2))" ]; }
for fld in mtu rate sl pkey; do
	s=$(f "$fld")
	case $fld in mtu | rate) [ -n "$s" ] && s=$((s & 0x3f)) ;; esac
	kv=$(kf "$fld")
	expect "$t: port 1's path $fld as saquery sees it (module '$kv', saquery '$s')" \
		same_num "$kv" "$s"
done
[ -n "$(f mtu)" ] || head -n 5 <<<"$pr" | sed 's/^/    saquery: /'

[ "$NODE" = 1 ] || finish

# --- the calls IPoIB makes under its spinlock ---------------------------------
atomic_part

# --- multicast --------------------------------------------------------------
j0=$(stat mc_join)
l0=$(stat mc_leave)
join_mark=$(klog_mark)
run_cmd join
j1=$(stat mc_join)
# A and C create their groups, D adds the non-member bit to C's, the join
# the SA refuses asks it once; B (shared) and the join whose Q_Key differs
# from the group's are answered by ib_sa alone
expect "$t: four SA joins for four members of two groups and two refused joins ('$j0' -> '$j1')" \
	counted "$j0" "$j1" 4
ma=$(mgid_of A)
mc=$(mgid_of C)
echo "groups: A $ma C $mc"
expect "$t: the module printed both MGIDs (A '$ma' C '$mc')" [ -n "$ma" -a -n "$mc" ]
if [ -z "$ma" ] || [ -z "$mc" ]; then finish; fi
expect "$t: saquery -g lists A's group $ma" wait_for 10 in_sa "$ma"
expect "$t: saquery -g lists C's group $mc" wait_for 10 in_sa "$mc"

run_cmd leave1
expect "$t: no SA leave while A still uses the group ('$l0' -> '$(stat mc_leave)')" \
	counted "$l0" "$(stat mc_leave)" 0
expect "$t: saquery -g still lists A's group after B left" in_sa "$ma"

run_cmd leave
l1=$(stat mc_leave)
expect "$t: one SA leave per group ('$l0' -> '$l1')" counted "$l0" "$l1" 2
expect "$t: saquery -g no longer lists A's group" wait_for 15 none_in_sa "$ma"
expect "$t: saquery -g no longer lists C's group" wait_for 15 none_in_sa "$mc"

# --- rejoin after a new SM ------------------------------------------------------
join_mark=$(klog_mark)
run_cmd join
ma=$(mgid_of A)
mc=$(mgid_of C)
expect "$t: before the SM restart saquery -g lists $ma and $mc" \
	wait_for 10 in_sa "$ma" "$mc"
r0=$(stat mc_reset)
# the ports this node's opensm serves (as guest-init starts them: one per
# subnet, so with two nodes one per port)
sm_ports=()
for p in 1 2; do
	sm_up "$p" && sm_ports+=("$p")
done
echo "opensm of this node on port(s): ${sm_ports[*]:-none}"
# a frozen SM (SIGSTOP: its MAD agent stays, nothing answers): -ETIMEDOUT
read -ra sm_pids_now <<<"$(sm_pids | tr '\n' ' ')"
expect "$t: opensm frozen (SIGSTOP, pids ${sm_pids_now[*]:-none})" \
	kill -STOP "${sm_pids_now[@]}"
run_cmd nosm
expect "$t: opensm running again (SIGCONT)" kill -CONT "${sm_pids_now[@]}"
sm_stop
expect "$t: opensm stopped, gone from port(s) ${sm_ports[*]:-none}" \
	wait_for 15 sm_gone "${sm_ports[@]}"
expect "$t: opensm restarted on port(s) ${sm_ports[*]:-none}" sm_restart "${sm_ports[@]}"
# the new SM's reregistration: every member told -ENETRESET, freed and
# joined again by the module
run_cmd rejoin
expect "$t: after the SM restart saquery -g lists A's group $ma again" wait_for 90 in_sa "$ma"
expect "$t: after the SM restart saquery -g lists C's group $mc again" wait_for 30 in_sa "$mc"
r1=$(stat mc_reset)
# shellcheck disable=SC2317 # called through expect
grew() { is_num "$1" && is_num "$2" && [ "$(($2 - $1))" -ge "$3" ]; }
expect "$t: ib_sa told both groups' members -ENETRESET ('$r0' -> '$r1')" grew "$r0" "$r1" 2
grep -h -iE 'reregist' /vmout/opensm.log | tail -n 2 | sed 's/^/    opensm: /'

# --- the port goes down and comes back ------------------------------------------
# the members are told -ENETRESET and requests are refused at once while
# it is down; the module joins the groups again once it is ACTIVE
# (ib_sa's event handler says when it got the event: dynamic debug of
# that one function, for the duration of the pull)
echo 'module ib_sa func sa_event_handler +p' >"$ddebug"
k=$(klog_mark)
expect "$t: pull port 1's cable" cable 1 off
expect "$t: port 1 goes down" wait_for 20 port_is 1 DOWN
expect "$t: ib_sa got port 1's PORT_ERR" klog_wait 20 "$k" 'ib_sa: port 1: port error$'
echo 'module ib_sa func sa_event_handler -p' >"$ddebug"
run_cmd down
expect "$t: plug port 1's cable back" cable 1 on
expect "$t: port 1 is ACTIVE again" wait_for 120 port_is 1 ACTIVE
expect "$t: after the port came back saquery -g lists both groups" \
	wait_for 90 in_sa "$ma" "$mc"
run_cmd rejoin

run_cmd leave
expect "$t: after the last leave saquery -g lists neither group" \
	wait_for 15 none_in_sa "$ma" "$mc"
finish

# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers for the stack tests' guest scripts, on top of the test bed's
# (pass, fail, plan, expect, contains, cable, wait_for, peer_xchg, barrier).
# shellcheck source=../../testbed/guest/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../testbed/guest/lib.sh"

ibdev=/sys/class/infiniband/mlx4_0
stack_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)

# catas [SYNDROME]: have the harness raise an internal error on this card
# (the firmware stops until the driver resets the card)
catas() { harness_ask catas "${1:-1}"; }

# card_fault NAME SPEC: have the harness arm an injected fault of this
# card (tests/cx3/cx3_fault.c): cmd-hang OP[:N], cmd-status OP:ST[:N],
# eq-overrun TYPE[:N], flap1/flap2 N[:MS], or "off" (the harness takes
# only those forms: tests/vm/run's qom_request)
card_fault() { harness_ask qom "$1 $2"; }
# card_wirefuzz PORT:N[:SEED[:KIND]] | off: have the harness arm the
# card's wire fuzzer (tests/cx3/cx3_wirefuzz.c): N random and mutated
# packets (KIND mad, cm, ipoib or mix) at port PORT's receive side; its
# lines in card_fault_log start "wirefuzz "
card_wirefuzz() { harness_ask qom "wirefuzz $1"; }
# card_fault_log: the model's "fault: ..." lines so far, without the
# "cx3: fault: " prefix (the harness copies them from QEMU's log)
card_fault_log() {
	harness_ask qom "fault-log now" || return 1
	sed 's/^cx3: fault: //' /vmout/cx3-faults.txt
}
# card_fault_seen SECONDS REGEX: within SECONDS, a line of card_fault_log
# matches REGEX (the fault fired)
card_fault_seen() {
	local end=$((SECONDS + $1))
	until card_fault_log | grep -Eq -- "$2"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 1
	done
}

# klog_mark: write a unique mark into the kernel log and print its id;
# klog_since ID: the kernel log after that mark (without timestamps)
klog_mark() {
	local id="$$.$RANDOM.$SECONDS"
	echo "ibstack-test: mark $id" >/dev/kmsg
	echo "$id"
}
klog_since() {
	dmesg | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' |
		sed -n "/^ibstack-test: mark $1\$/,\$p" | tail -n +2
}

# klog_watch_start: follow the kernel log as it comes (a long run's notices
# can overflow the ring buffer), from a mark the reader has seen;
# klog_watch_check NAME REGEX: one check NAME, that the log from that mark
# to a new one holds only lines matching REGEX (the reader must have seen
# both marks; the first ten others are shown), and the reader stops
klog_watch_start() {
	klog_watch_file=$(mktemp)
	dmesg -w >"$klog_watch_file" 2>&1 &
	klog_watch_pid=$!
	klog_watch_mark=$(klog_mark)
	wait_for 10 grep -q "ibstack-test: mark $klog_watch_mark\$" "$klog_watch_file"
}
klog_watch_check() {
	local name=$1 allowed=$2 end log bad first
	end=$(klog_mark)
	wait_for 10 grep -q "ibstack-test: mark $end\$" "$klog_watch_file"
	kill "$klog_watch_pid" 2>/dev/null
	first="^ibstack-test: mark $klog_watch_mark\$"
	log=$(sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' "$klog_watch_file" |
		sed -n "/$first/,/^ibstack-test: mark $end\$/p")
	# (the kernel's RNG says once when it is seeded: late on a slow boot)
	bad=$(grep -Ev "$allowed|^ibstack-test: mark |^random: crng init done\$" <<<"$log" | head -n 10)
	echo "    kernel log: $(grep -c . <<<"$log") lines from mark to mark, $(grep -Ec "$allowed" <<<"$log") of them allowed"
	if ! grep -q "$first" <<<"$log" || ! grep -q "^ibstack-test: mark $end\$" <<<"$log"; then
		fail "$name" "the reader did not see both marks ($(wc -l <"$klog_watch_file") lines read)"
	else
		expect "$name" [ -z "$bad" ]
	fi
	[ -n "$bad" ] && echo "$bad" | sed 's/^/    kernel log: /'
	rm -f "$klog_watch_file"
}

# klog_wait SECONDS MARK REGEX: a kernel log line after MARK matches REGEX
klog_wait() {
	local end=$((SECONDS + $1))
	until klog_since "$2" | grep -Eq -- "$3"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}

# Asynchronous events, from one of two sources (EVENTS):
#   kverbs      the test module's log lines (the project's stack)
#   asyncwatch  ibv_asyncwatch through uverbs (any stack with uverbs: the
#               inbox one, to check the tests themselves)
# Both give lines "event mlx4_0 port N NAME"; ev_mark/ev_since/ev_wait
# work like klog_mark/klog_since/klog_wait.
EVENTS=${EVENTS:-kverbs}
evlog=/tmp/asyncwatch.log
ev_start() {
	local m
	if [ "$EVENTS" = asyncwatch ]; then
		: >"$evlog"
		stdbuf -oL ibv_asyncwatch -d mlx4_0 >>"$evlog" 2>&1 &
		wait_for 10 grep -q 'async event FD' "$evlog"
		return
	fi
	m=$(klog_mark)
	kverbs_load selftest=0 && klog_wait 30 "$m" 'ibstack_kverbs: add mlx4_0$'
}
ev_stop() {
	local m
	if [ "$EVENTS" = asyncwatch ]; then
		pkill -x ibv_asyncwatch
		return 0
	fi
	m=$(klog_mark)
	rmmod ibstack_kverbs && klog_wait 30 "$m" 'ibstack_kverbs: remove mlx4_0$'
}
ev_mark() {
	if [ "$EVENTS" = asyncwatch ]; then
		wc -l <"$evlog"
	else
		klog_mark
	fi
}
ev_since() {
	if [ "$EVENTS" = asyncwatch ]; then
		tail -n +"$(($1 + 1))" "$evlog" |
			sed -nE 's/.*event_type IBV_EVENT_([A-Z_]+) \([0-9]+\), port ([0-9]+).*/event mlx4_0 port \2 \1/p'
	else
		klog_since "$1" | sed -n 's/^ibstack_kverbs: \(event .*\)/\1/p'
	fi
}
ev_wait() {
	local end=$((SECONDS + $1))
	until ev_since "$2" | grep -Eq -- "$3"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}

# port_state PORT: the port's state name (ACTIVE, DOWN, ...)
port_state() {
	local s
	read -r s <"$ibdev/ports/$1/state" 2>/dev/null || return 1
	echo "${s#*: }"
}
port_is() { [ "$(port_state "$1")" = "$2" ]; }

# The modules the running stack consists of, users first (for modprobe -r):
# the test module, then the harness's list (STACK_MODULES, when it says).
stack_unload_list() {
	local m
	for m in ibstack_kverbs ib_ipoib ib_umad ib_uverbs mlx4_ib mlx4_en \
		rdma_ucm rdma_cm iw_cm ib_cm mlx4_core ib_core; do
		[ -d "/sys/module/$m" ] && echo "$m"
	done
}

# Where the test module is: KVERBS_KO (the host runner finds it), else
# tests/kverbs/ibstack_kverbs.ko if built for this kernel.
kverbs_ko() {
	local f
	for f in ${KVERBS_KO:-} "$stack_top/tests/kverbs/ibstack_kverbs.ko"; do
		[ -f "$f" ] || continue
		[ "$(modinfo -F vermagic "$f" 2>/dev/null | cut -d' ' -f1)" = "$KVER" ] || continue
		echo "$f"
		return 0
	done
	return 1
}

# kverbs_load [PARAM=VALUE...]: load the test module (modprobe if the
# stack installed it, else insmod of the file kverbs_ko finds)
kverbs_load() {
	local f
	if modinfo -k "$KVER" ibstack_kverbs >/dev/null 2>&1; then
		modprobe ibstack_kverbs "$@"
		return
	fi
	f=$(kverbs_ko) || { echo "no ibstack_kverbs.ko built for $KVER" >&2; return 1; }
	insmod "$f" "$@"
}

# node_guid: this card's node GUID as the diags print it (0x0002c903...)
node_guid() {
	local g
	read -r g <"$ibdev/node_guid"
	echo "0x${g//:/}"
}

# my_lid PORT: a local port's LID, in decimal
my_lid() {
	local l
	read -r l <"$ibdev/ports/$1/lid"
	echo $((l))
}

# port_guid PORT: a local port's GUID (the low half of its GID 0)
port_guid() {
	local g
	read -r g <"$ibdev/ports/$1/gids/0" || return 1
	g=${g//:/}
	echo "0x${g:16:16}"
}

# The subnet manager, as tests/vm/run --sm starts it (guest-init): one
# opensm per local port it serves, bound to that port's GUID, with its own
# cache directory and log in /vmout.
# sm_pids [PORT]: the pids of the opensm processes on this node (of the
# one bound to PORT's GUID only, if given)
sm_pids() {
	local d cmd want=
	[ -n "${1:-}" ] && want=$(port_guid "$1")
	# bash builtins only for every process: execs are slow under TCG
	for d in /proc/[0-9]*; do
		{ read -r cmd <"$d/comm"; } 2>/dev/null || continue
		[ "$cmd" = opensm ] || continue
		cmd=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null)
		[ -z "$want" ] || [[ " $cmd " == *" -g $want "* ]] || continue
		echo "${d#/proc/}"
	done
}
# sm_start PORT: start opensm on PORT (log /vmout/opensm[-portP].log, as
# guest-init names them)
sm_start() {
	local p=$1 guid log=/vmout/opensm.log
	guid=$(port_guid "$p") || return 1
	[ "$p" = 1 ] || log=/vmout/opensm-port$p.log
	mkdir -p "/var/cache/opensm-port$p"
	echo "=== opensm started again at $(date +%T) on port $p ($guid)" >>"$log.out"
	OSM_CACHE_DIR=/var/cache/opensm-port$p OSM_TMP_DIR=/var/cache/opensm-port$p \
		setsid opensm -g "$guid" -f "$log" </dev/null >>"$log.out" 2>&1 &
}
# sm_start_parts FILE: sm_start 1, with FILE as opensm's partitions.conf
# (-P), logging where guest-init's opensm does
sm_start_parts() {
	local guid log=/vmout/opensm.log
	guid=$(port_guid 1) || return 1
	mkdir -p /var/cache/opensm-port1
	echo "=== opensm started again at $(date +%T) on port 1 with $1" >>"$log.out"
	OSM_CACHE_DIR=/var/cache/opensm-port1 OSM_TMP_DIR=/var/cache/opensm-port1 \
		setsid opensm -g "$guid" -P "$1" -f "$log" </dev/null >>"$log.out" 2>&1 &
}
# ib0_addr_check NAME: one check that ib0's 20-byte address holds a UD QP
# number (bytes 1-3) and port 1's GID (bytes 4-19); sets addr and hw (the
# address without colons) for the caller
ib0_addr_check() {
	local gid g qpn
	addr=$(cat "$ib0_sys/address" 2>/dev/null)
	gid=$(cat "$ibdev/ports/1/gids/0" 2>/dev/null)
	hw=${addr//:/}
	g=${gid//:/}
	qpn=$((16#${hw:2:6}))
	if [ ${#hw} = 40 ] && [ -n "$g" ] && [ "${hw:8}" = "$g" ] && [ "$qpn" -gt 1 ]; then
		pass "$1: ib0's address holds port 1's GID and the UD QP $qpn"
	else
		fail "$1: ib0's address holds port 1's GID and a QP number" "address '$addr', GID '$gid'"
	fi
}
# ipoib_park: rmmod ib_ipoib if it is loaded (our stack loads it at boot,
# and it holds ib_cm, ib_sa and ib_core), for a test that unloads those;
# ipoib_unpark: load it again if ipoib_park took it away (false if that
# fails)
ipoib_parked=0
ipoib_park() {
	[ -e /sys/module/ib_ipoib ] || return 0
	rmmod ib_ipoib && ipoib_parked=1
}
ipoib_unpark() {
	[ "$ipoib_parked" = 1 ] || return 0
	ipoib_parked=0
	modprobe ib_ipoib
}
# all_gone PID...: none of the processes is alive
all_gone() {
	local p
	for p in "$@"; do
		kill -0 "$p" 2>/dev/null && return 1
	done
	return 0
}
# sm_stop [PORT]: kill this node's opensm (the one on PORT only, if
# given), as if it crashed (SIGKILL: opensm takes longer than 20 s to exit
# after SIGTERM under TCG), and wait (bounded) until it is gone
sm_stop() {
	local pids
	read -ra pids <<<"$(sm_pids "${1:-}" | tr '\n' ' ')"
	[ ${#pids[@]} -gt 0 ] || return 0
	kill -KILL "${pids[@]}"
	wait_for 10 all_gone "${pids[@]}"
}

# sm_back [OLD]: after mlx4_0 went away and came back (driver reload,
# recovery from a catastrophic error), have an SM bring its ports up again:
# stop any opensm of this node (its files died with the old device), wait
# (bounded) for every port of the new device (not OLD, an ibdev_id taken
# before) to have its GUID and umad device, start opensm on port 1
sm_back() {
	sm_stop || return 1
	wait_for 60 sm_ports_back "${1:-}" || return 1
	sm_start 1
}

# --- checks that cannot pass on a failed query, and bounded waits ------------

# same A B: A and B are equal and not empty (a query that failed gives an
# empty value: two of them must not compare equal)
same() { [ -n "$1" ] && [ "$1" = "$2" ]; }

# is_num VALUE: VALUE is a decimal number (a counter, a LID read back)
is_num() { [[ "$1" =~ ^[0-9]+$ ]]; }

# grown BEFORE AFTER MIN: both are numbers and AFTER is at least BEFORE + MIN
grown() { is_num "$1" && is_num "$2" && [ "$2" -ge $(($1 + $3)) ]; }

# lines_at_least FILE N: FILE has at least N lines (a sampler has samples)
lines_at_least() { [ "$(grep -c '' "$1" 2>/dev/null)" -ge "$2" ]; }

# sm_up [PORT]: an opensm of this node runs (the one bound to PORT's GUID,
# if given)
sm_up() { [ -n "$(sm_pids "${1:-}")" ]; }

# umad_ready PORT: mlx4_0's PORT has its umad device (what opensm binds to)
umad_ready() {
	local d dev port
	for d in /sys/class/infiniband_mad/umad*; do
		{ read -r dev <"$d/ibdev" && read -r port <"$d/port"; } 2>/dev/null || continue
		[ "$dev" = mlx4_0 ] && [ "$port" = "$1" ] && [ -e "/dev/infiniband/${d##*/}" ] &&
			return 0
	done
	return 1
}

# sm_port_back PORT: PORT of the (new) mlx4_0 has its GUID and umad device
sm_port_back() {
	local g
	g=$(port_guid "$1" 2>/dev/null) || return 1
	[ -n "$g" ] && [ "$g" != 0x0000000000000000 ] && umad_ready "$1"
}

# ibdev_id: an identity of the registered mlx4_0 that changes when it is
# registered again (the kernfs inode number of its sysfs directory, never
# reused soon); empty if there is none
ibdev_id() { stat -L -c %i "$ibdev" 2>/dev/null; }
# ibdev_new OLD: a mlx4_0 is registered and it is not the one whose
# ibdev_id was OLD
ibdev_new() {
	local id
	id=$(ibdev_id)
	[ -n "$id" ] && [ "$id" != "$1" ]
}

# sm_ports_back [OLD]: every port of the (new) mlx4_0 has its GUID and umad
# device.  opensm's bind reads the GUIDs of all the CA's ports through
# libibumad and gives up if one is missing, so a port of its own being
# back is not enough (seen: port 2 lagging port 1 after a reset).  With
# OLD (an ibdev_id taken before the device went away), the device must be
# another one: a client sees a device removed before its sysfs files and
# umad devices go, so the old one can look complete for a while (seen:
# opensm started on it while it was being unregistered, and failing).
sm_ports_back() {
	local d p
	[ -z "${1:-}" ] || ibdev_new "$1" || return 1
	for d in /sys/class/infiniband/mlx4_0/ports/*; do
		[ -d "$d" ] || return 1
		p=${d##*/}
		sm_port_back "$p" || return 1
	done
}

# sm_back_on OLD PORT...: sm_back for the ports whose opensm ran before
# mlx4_0 (whose ibdev_id was OLD) went away: stop this node's opensm, wait
# (bounded) until every port of the new device is back, start opensm on
# each of PORT... and wait until that opensm runs
sm_back_on() {
	local p old=$1
	shift
	sm_stop || return 1
	wait_for 60 sm_ports_back "$old" || return 1
	for p in "$@"; do
		sm_start_up "$p" || return 1
	done
}

# both_active: ports 1 and 2 of mlx4_0 are ACTIVE
both_active() { port_is 1 ACTIVE && port_is 2 ACTIVE; }

# mod_refs MOD: "REFCNT HOLDER..." of a loaded module (its reference count,
# then the modules that hold it); mod_no_leak MOD: every reference to MOD
# is a holder's (a module using its symbols): none beyond them
mod_refs() {
	local n f h=()
	read -r n <"/sys/module/$1/refcnt" 2>/dev/null || return 1
	for f in "/sys/module/$1/holders/"*; do
		[ -e "$f" ] && h+=("${f##*/}")
	done
	echo "$n ${h[*]}"
}
mod_no_leak() {
	local r n h
	r=$(mod_refs "$1") || return 1
	read -r n r <<<"$r"
	read -ra h <<<"$r"
	[ "$n" = "${#h[@]}" ]
}

# sm_start_up PORT: sm_start, then wait (bounded) until that opensm runs
sm_start_up() { sm_start "$1" && wait_for 20 sm_up "$1"; }

# mods_loaded MODULE...: one of the modules is loaded
mods_loaded() {
	local m
	for m in "$@"; do
		[ -e "/sys/module/$m/refcnt" ] && return 0
	done
	return 1
}
# mods_unload MODULE...: modprobe -r each loaded one, users first: in
# rounds, each module no other module holds (bash globs, no exec: execs
# are slow under TCG); false if a round makes no progress
mods_unload() {
	local m h progress
	while mods_loaded "$@"; do
		progress=0
		for m in "$@"; do
			[ -e "/sys/module/$m/refcnt" ] || continue
			h=("/sys/module/$m/holders/"*)
			[ -e "${h[0]}" ] && continue
			modprobe -r "$m" || return 1
			progress=1
		done
		[ "$progress" = 1 ] || return 1
	done
}

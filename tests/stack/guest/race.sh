#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Concurrency stress: what upstream has raced, many times over (tests/stack/
# racer.c does the user-space side).  CASES (default all, in this order):
#   closeread  a read() blocked in umadN, a context's async event fd and a
#              completion channel while its file is closed, its process
#              exits or is killed: the read returns (EIO for the event
#              files whose context closed, EINTR for a signalled one),
#              nothing hangs
#   double     two threads destroying one uverbs object (QP, SRQ, MW, MR,
#              CQ, PD; ours has no AH) and unregistering one umad agent:
#              one succeeds, the other gets 6.1's errno
#   hammer     threads creating and destroying verbs objects and using umad
#              agents while mlx4_0 is removed and added again (unbind/bind
#              of mlx4_core and modprobe -r/modprobe mlx4_ib in turn): every
#              call ends with success or EIO/ENODEV/ENXIO, reads blocked in
#              an async event fd and a completion channel end with EIO, the
#              programs close and exit, afterwards a new program works
#   unload     modprobe -r ib_umad, ib_uverbs, ib_ipoib while threads open
#              and close their files: it fails "in use" or succeeds; with
#              the files closed it succeeds; the reload brings them back
#   ipoib      device removal under a ping flood over ib0 in connected mode
#              (IPoIB's listening CM ID) to ib1 across the cable (ib1 in a
#              network namespace, its answers through a CM connection; or,
#              without network namespaces, a broadcast flood ib1 counts):
#              the removal ends in bounded time, ib0 goes and comes back,
#              the traffic resumes
# RACE_SECS (default 60): each case's time (its iterations until then, at
# least one); RACE_N: at most so many iterations (the short run of make
# check).  RACER: the tool (the suite builds it; else built here).  Run
# under an SM (tests/vm/run --sm): the cases that need it restart it.
set -u
. "$(dirname "$0")/lib.sh"
# pingpong [WHEN]: one check, an RC pingpong between the ports (its out: a
# temporary directory, ours too)
# shellcheck source=fault-lib.sh
. "$(dirname "$0")/fault-lib.sh"
t=${TESTNAME:-race}
cases=${CASES:-closeread double hammer unload ipoib}
secs=${RACE_SECS:-60}
maxn=${RACE_N:-1000000}
here=$(cd "$(dirname "$0")/.." && pwd)
racer=${RACER:-}
drv=/sys/bus/pci/drivers/mlx4_core
# the tool's build, then one check per case's part (added below)
plan 1

if [ -z "$racer" ] || [ ! -x "$racer" ]; then
	racer=$out/racer
	gcc -O2 -Wall -D_GNU_SOURCE -pthread -o "$racer" "$here/racer.c" -libverbs \
		>"$out/cc.log" 2>&1 || cat "$out/cc.log"
fi
expect "$t: the racer tool ($racer)" [ -x "$racer" ]

bdf=$(basename "$(readlink -f "$ibdev/device")")
smports=()
for p in 1 2; do
	sm_up "$p" && smports+=("$p")
done
# (an earlier item may have stopped the boot's opensm: the cases that need
# the ports ACTIVE after a removal start one on port 1, as --sm does)
[ ${#smports[@]} -gt 0 ] || smports=(1)

# run_racer NAME ARGS...: the tool in the foreground (bounded: its own
# limit plus 5 minutes), its output shown; one check on its status
run_racer() {
	local name=$1 rc
	shift
	timeout -k 10 $((secs + 300)) "$racer" "$@" >"$out/r.log" 2>&1
	rc=$?
	sed 's/^/    /' "$out/r.log"
	expect "$name (exit $rc; $(grep -m1 -Eo '[0-9]+ iterations' "$out/r.log"))" \
		[ "$rc" = 0 ]
}

# bounded SECS CMD...: CMD's status, or 124 if it is still running after
# SECS (left running: a hung removal is in the kernel, nothing kills it)
bounded() {
	local s=$1 pid
	shift
	"$@" &
	pid=$!
	if wait_for "$s" eval "! kill -0 $pid 2>/dev/null"; then
		wait "$pid"
		return
	fi
	echo "$t: still running after ${s}s: $*; its stack:"
	sed 's/^/    /' "/proc/$pid/stack" 2>/dev/null
	return 124
}

# the device's removal and addition, two ways in turn
ways=(unbind unload)
unbind_dev() { echo "$bdf" >"$drv/unbind"; }
bind_dev() { echo "$bdf" >"$drv/bind"; }
dev_remove() {
	if [ "$1" = unbind ]; then bounded 120 unbind_dev; else bounded 120 modprobe -r mlx4_ib; fi
}
dev_add() {
	if [ "$1" = unbind ]; then bind_dev; else modprobe mlx4_ib; fi
}
# shellcheck disable=SC2317 # called through wait_for
dev_back() { ibdev_new "$1" && [ -e "$ibdev/ports/2/state" ]; }
# shellcheck disable=SC2317 # called through wait_for
dev_gone() { [ ! -e "$ibdev" ]; }

# cycle WAY: remove and add mlx4_0 once; false (with why) if a step fails
cycle() {
	local old rc
	old=$(ibdev_id)
	dev_remove "$1"
	rc=$?
	[ "$rc" = 0 ] || { why="removal by $1: status $rc"; return 1; }
	wait_for 30 dev_gone || { why="mlx4_0 still there after its removal by $1"; return 1; }
	dev_add "$1" || { why="adding back after $1 failed"; return 1; }
	wait_for 90 dev_back "$old" || { why="no new mlx4_0 after $1"; return 1; }
}

# sm_again OLD: opensm back on the ports it ran on, both ports ACTIVE
sm_again() {
	sm_back_on "$1" "${smports[@]}" && wait_for 120 both_active
}

# --- 1. close against a blocked read ----------------------------------------
case_closeread() {
	plan_more 1
	run_racer "$t: closeread: each read blocked in umad, async and comp files ended (close, exit, kill)" \
		-n "$maxn" -t "$secs" close-read
}

# --- 5. two threads destroying one object ---------------------------------------
case_double() {
	plan_more 1
	run_racer "$t: double: of two destroys of one QP, SRQ, MW, MR, CQ, PD, umad agent one won, the other got ENOENT/EBUSY/EINVAL" \
		-n "$maxn" -t "$secs" double
}

# --- 2. unregister against running ioctls ------------------------------------------
case_hammer() {
	local pid rc n=0 end old0 stop=$out/hammer.stop
	plan_more 6
	old0=$(ibdev_id)
	rm -f "$stop"
	"$racer" -t $((secs + 600)) -s "$stop" -j 2 hammer >"$out/h.log" 2>&1 &
	pid=$!
	# shellcheck disable=SC2317 # called through wait_for
	has_files() {
		local f l u=0 m=0
		for f in "/proc/$pid/fd/"*; do
			l=$(readlink "$f" 2>/dev/null)
			[[ "$l" == /dev/infiniband/uverbs* ]] && u=1
			[[ "$l" == /dev/infiniband/umad* ]] && m=1
		done
		[ "$u.$m" = 1.1 ]
	}
	expect "$t: hammer: the racer holds uverbs and umad files" wait_for 30 has_files
	why=
	end=$((SECONDS + secs))
	while [ "$n" -lt "$maxn" ] && { [ "$n" = 0 ] || [ "$SECONDS" -lt "$end" ]; }; do
		cycle "${ways[n % 2]}" || break
		n=$((n + 1))
	done
	expect "$t: hammer: $n removals and additions of mlx4_0 under the racer, each bounded${why:+ ($why)}" \
		[ -z "$why" ]
	touch "$stop"
	rc=timeout
	if wait_for 120 eval "! kill -0 $pid 2>/dev/null"; then
		wait "$pid"
		rc=$?
	else
		kill -9 "$pid"
	fi
	sed 's/^/    /' "$out/h.log"
	expect "$t: hammer: the racer ended, every call with success or EIO/ENODEV/ENXIO, blocked reads with EIO (exit $rc)" \
		[ "$rc" = 0 ]
	expect "$t: hammer: ports ACTIVE again (opensm restarted)" sm_again "$old0"
	expect "$t: hammer: ibv_devinfo shows mlx4_0's port 1 ACTIVE" \
		sh -c "ibv_devinfo -d mlx4_0 -i 1 | grep -q PORT_ACTIVE"
	pingpong "hammer"
}

# --- 3. module unload against open files ----------------------------------------------
# files NAME: the files of module NAME the openers use (r: read too)
files() {
	case $1 in
	ib_umad) echo /dev/infiniband/umad0 /dev/infiniband/umad1 r:/sys/class/infiniband_mad/umad0/port ;;
	ib_uverbs) echo /dev/infiniband/uverbs0 r:/sys/class/infiniband_verbs/uverbs0/ibdev ;;
	ib_ipoib) echo r:/sys/class/net/ib0/mode r:/sys/class/net/ib0/mtu r:/sys/class/net/ib0/pkey ;;
	esac
}
# shellcheck disable=SC2317 # called through wait_for
mod_back() {
	case $1 in
	ib_umad) [ -e /dev/infiniband/umad0 ] && [ -e /dev/infiniband/umad1 ] ;;
	ib_uverbs) [ -e /dev/infiniband/uverbs0 ] ;;
	ib_ipoib) [ -e /sys/class/net/ib0 ] ;;
	esac
}
case_unload() {
	local m pid rc o gone inuse other end stop=$out/unload.stop f
	plan_more 1
	plan_more 1
	expect "$t: unload: opensm stopped (it holds umad files)" sm_stop
	for m in ib_umad ib_uverbs ib_ipoib; do
		plan_more 3
		read -ra f <<<"$(files "$m")"
		rm -f "$stop"
		"$racer" -t $((secs + 600)) -s "$stop" -j 3 openclose "${f[@]}" >"$out/o.log" 2>&1 &
		pid=$!
		gone=0 inuse=0 other=
		end=$((SECONDS + secs / 3))
		# (at least one try: with RACE_SECS=5 the window is a second,
		# which a busy guest can lose before the first test of it)
		while [ $((gone + inuse)) -lt "$maxn" ] &&
			{ [ $((gone + inuse)) = 0 ] || [ "$SECONDS" -lt "$end" ]; }; do
			o=$(bounded 60 modprobe -r "$m" 2>&1)
			rc=$?
			if [ "$rc" = 0 ]; then
				gone=$((gone + 1))
				modprobe "$m" || { other="modprobe $m failed"; break; }
				wait_for 30 mod_back "$m" || { other="$m's files not back"; break; }
			elif [[ "$o" == *"is in use"* ]] ||
				[[ "$o" == *"could not remove"*"Resource temporarily unavailable"* ]]; then
				# (kmod reads the module's refcnt first, "in use";
				# an open after that read makes delete_module EAGAIN)
				inuse=$((inuse + 1))
			else
				other="modprobe -r $m: status $rc: $o"
				break
			fi
		done
		# shellcheck disable=SC2317 # called through expect
		tried() { [ -z "$other" ] && [ $((gone + inuse)) -gt 0 ]; }
		expect "$t: unload $m under openers: unloaded and reloaded $gone times, in use $inuse times${other:+, and $other}" \
			tried
		touch "$stop"
		rc=timeout
		if wait_for 90 eval "! kill -0 $pid 2>/dev/null"; then
			wait "$pid"
			rc=$?
		else
			kill -9 "$pid"
		fi
		sed 's/^/    /' "$out/o.log"
		expect "$t: unload $m: the openers ended, their opens failing only with ENOENT/ENXIO/ENODEV/EIO (exit $rc)" \
			[ "$rc" = 0 ]
		# shellcheck disable=SC2317 # called through expect
		final() { modprobe -r "$m" && ! mods_loaded "$m" && modprobe "$m" && wait_for 30 mod_back "$m"; }
		expect "$t: unload $m: with the files closed it unloads, and loads again" final
	done
	expect "$t: unload: ports still ACTIVE, opensm back" sm_again ""
}

# --- 4. device removal against an active ib0 and a listening CM ID ---------------------
# The flood's peer is ib1 (port 2, across the cable): in network namespace
# $ns, the flood a unicast ping answered through IPoIB-CM connections; on a
# kernel without network namespaces (the debug kernel has no CONFIG_NET_NS)
# ib1 on another subnet here, the flood a broadcast ping out of ib0 that
# ib1 receives across the cable (counted in its rx_packets)
ns=racepeer
if [ -e /proc/self/ns/net ]; then
	peer=netns dst=10.77.0.2 bflag=()
else
	peer=bcast dst=10.77.0.255 bflag=(-b)
fi
# rx1: ib1's received packets (bcast only)
rx1() { cat /sys/class/net/ib1/statistics/rx_packets 2>/dev/null; }
tx() { cat /sys/class/net/ib0/statistics/tx_packets 2>/dev/null; }
# reach N: N pings from ib0 reach ib1 (netns: all answered; bcast: ib1
# received at least N packets meanwhile)
reach() {
	local r0
	if [ "$peer" = netns ]; then
		ping -c "$1" -i 0.01 -W 2 -q "$dst" >/dev/null
		return
	fi
	r0=$(rx1)
	ping -b -c "$1" -i 0.01 -q "$dst" >/dev/null 2>&1
	grown "$r0" "$(rx1)" "$1"
}
# ipo_setup: ib0 (10.77.0.1/24) and ib1 in connected mode (a listening CM
# ID each), up, ib1 in its place; then 10 pings reach it
ipo_setup() {
	wait_for 60 [ -e /sys/class/net/ib0 ] && wait_for 60 [ -e /sys/class/net/ib1 ] || return 1
	echo connected >/sys/class/net/ib0/mode && echo connected >/sys/class/net/ib1/mode &&
		ip addr add 10.77.0.1/24 dev ib0 && ip link set ib0 up || return 1
	if [ "$peer" = netns ]; then
		{ ip netns list | grep -qw "$ns" || ip netns add "$ns"; } &&
			ip link set ib1 netns "$ns" &&
			ip netns exec "$ns" ip addr add 10.77.0.2/24 dev ib1 &&
			ip netns exec "$ns" ip link set ib1 up || return 1
	else
		ip addr add 10.77.1.2/24 dev ib1 && ip link set ib1 up || return 1
	fi
	wait_for 90 reach 10
}
case_ipoib() {
	local n=0 end old fpid t0 tx0 d why=''
	plan_more 3
	expect "$t: ipoib: ib0 and ib1 ($peer) in connected mode, ping across the cable" ipo_setup
	end=$((SECONDS + secs))
	while [ "$n" -lt "$maxn" ] && { [ "$n" = 0 ] || [ "$SECONDS" -lt "$end" ]; }; do
		[ "$(cat /sys/class/net/ib0/mode 2>/dev/null)" = connected ] ||
			{ why="ib0 not in connected mode"; break; }
		tx0=$(tx)
		ping -f -q -w 600 "${bflag[@]}" "$dst" >/dev/null 2>&1 &
		fpid=$!
		wait_for 30 eval 'grown "$tx0" "$(tx)" 200' || { why="the flood did not run: tx $tx0 -> $(tx)"; kill "$fpid"; break; }
		old=$(ibdev_id)
		t0=$SECONDS
		dev_remove "${ways[n % 2]}" || { why="removal by ${ways[n % 2]} failed or hung"; kill "$fpid"; break; }
		wait_for 30 [ ! -e /sys/class/net/ib0 ] || { why="ib0 still there"; kill "$fpid"; break; }
		echo "$t: ipoib: round $n: removal by ${ways[n % 2]} under the flood took $((SECONDS - t0))s"
		kill "$fpid"
		wait "$fpid"
		dev_add "${ways[n % 2]}" || { why="adding back failed"; break; }
		wait_for 90 dev_back "$old" || { why="mlx4_0 not back"; break; }
		sm_again "$old" || { why="ports not ACTIVE again"; break; }
		ipo_setup || { why="ib0/ib1 back, but no ping across after round $n"; break; }
		n=$((n + 1))
	done
	expect "$t: ipoib: $n removals under a ping flood ($peer) in connected mode, ib0 gone and back, ping resumed${why:+ ($why)}" \
		[ -z "$why" ]
	expect "$t: ipoib: 100 pings reach ib1 after the last round ($peer)" reach 100
	# as the boot had them: ib1 back from the namespace, no addresses,
	# datagram mode
	if [ "$peer" = netns ]; then
		ip netns del "$ns"
		wait_for 30 [ -e /sys/class/net/ib1 ]
	fi
	for d in ib0 ib1; do
		ip addr flush dev "$d"
		echo datagram >"/sys/class/net/$d/mode"
	done
}

for c in $cases; do
	case $c in
	closeread | double | hammer | unload | ipoib) echo "$t: case $c (${secs}s, at most $maxn iterations)"; "case_$c" ;;
	*) plan_more 1; fail "$t: case $c" "no such case (closeread double hammer unload ipoib)" ;;
	esac
done
rm -rf "$out"
exit 0

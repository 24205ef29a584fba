#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The device goes away under running libibverbs programs (issue 14, item
# 2): ib_write_bw runs between the ports, ibv_asyncwatch listens, and then
#   MODE=unload  modprobe -r mlx4_ib, then modprobe mlx4_ib again;
#   MODE=catas   a catastrophic error of the card (the driver resets it).
# The listener gets DEVICE_FATAL, the removal completes while the programs
# still hold the device open (nothing waits for them), the programs end
# by themselves (their later commands fail; nothing hangs in the kernel),
# and a new mlx4_0 serves new programs: an RC pingpong between the ports.
# Under an SM of this node its opensm is restarted afterwards, as an
# administrator would (opensm's umad files die with the device).
set -u
# the listener is ibv_asyncwatch (lib.sh reads EVENTS when sourced)
EVENTS=asyncwatch
# shellcheck source=../../stack/guest/lib.sh
. "$(dirname "$0")/../../stack/guest/lib.sh"
mode=${MODE:-unload}
t=${TESTNAME:-removal-$mode}
dur=${BW_SECONDS:-20}	# ib_write_bw's run; the removal comes early in it
tcp=${BW_PORT:-18517}
out=$(mktemp -d)
case $mode in
unload | catas) ;;
*) echo "MODE must be unload or catas, not $mode" >&2; exit 2 ;;
esac
# listener, ACTIVE, the traffic running, the removal, DEVICE_FATAL, the
# programs end, mlx4_0 back, ACTIVE again, a pingpong (9); with an SM of
# this node its restart (1, below)
plan 9

if ev_start; then
	pass "$t: ibv_asyncwatch listening on mlx4_0"
else
	fail "$t: ibv_asyncwatch listening on mlx4_0" "no 'async event FD' line"
fi
expect "$t: both ports ACTIVE before" wait_for 30 both_active

smports=()
for p in 1 2; do
	sm_up "$p" && smports+=("$p")
done
[ ${#smports[@]} -gt 0 ] && plan_more 1

# the traffic: ib_write_bw for $dur seconds, port 1 serving port 2
timeout $((dur + 60)) ib_write_bw -d mlx4_0 -i 1 -p "$tcp" -D "$dur" >"$out/s" 2>&1 &
spid=$!
cpid=
if wait_listen 30 "$tcp" "$spid"; then
	timeout $((dur + 60)) ib_write_bw -d mlx4_0 -i 2 -p "$tcp" -D "$dur" localhost \
		>"$out/c" 2>&1 &
	cpid=$!
fi
# it runs once the client printed its table's header
# shellcheck disable=SC2317 # called through wait_for
running() { grep -q '#bytes' "$out/c" 2>/dev/null; }
expect "$t: ib_write_bw runs between the ports" wait_for 30 running

m=$(ev_mark)
old=$(ibdev_id)
s0=$SECONDS
if [ "$mode" = unload ]; then
	expect "$t: modprobe -r mlx4_ib under the running programs" timeout 60 modprobe -r mlx4_ib
else
	expect "$t: raise a catastrophic error on the card" catas 45
fi
echo "$t: removal after $((SECONDS - s0))s"
expect "$t: the listener got DEVICE_FATAL" \
	ev_wait 30 "$m" '^event mlx4_0 port [0-9]+ DEVICE_FATAL$'

# the programs end by themselves: their run ends, and nothing they call
# afterwards may block
# shellcheck disable=SC2317 # called through wait_for
gone() { ! kill -0 "$spid" 2>/dev/null && { [ -z "$cpid" ] || ! kill -0 "$cpid" 2>/dev/null; }; }
if wait_for $((dur + 45)) gone; then
	wait "$spid"
	src=$?
	crc=none
	if [ -n "$cpid" ]; then
		wait "$cpid"
		crc=$?
	fi
	pass "$t: ib_write_bw ended by itself (server $src, client $crc)"
else
	fail "$t: ib_write_bw ended by itself" "still running $((dur + 45))s later"
	pkill -9 -x ib_write_bw
fi
echo "$t: the programs said:"
tail -n 4 "$out/s" "$out/c" 2>/dev/null | sed 's/^/    /'
ev_stop

if [ "$mode" = unload ]; then
	modprobe mlx4_ib || echo "$t: modprobe mlx4_ib failed"
fi
# shellcheck disable=SC2317 # called through wait_for
dev_back() { ibdev_new "$old" && [ -e "$ibdev/ports/2/state" ]; }
expect "$t: a new mlx4_0 in /sys/class/infiniband" wait_for 90 dev_back
if [ ${#smports[@]} -gt 0 ]; then
	expect "$t: opensm restarted on port(s) ${smports[*]}" sm_back_on "$old" "${smports[@]}"
fi
expect "$t: both ports ACTIVE again" wait_for 90 both_active

# a new program on the new device
pp=$((tcp + 1))
timeout 60 ibv_rc_pingpong -d mlx4_0 -i 1 -n 50 -p "$pp" >"$out/ps" 2>&1 &
ppid=$!
prc=listen
if wait_listen 30 "$pp" "$ppid"; then
	timeout 60 ibv_rc_pingpong -d mlx4_0 -i 2 -n 50 -p "$pp" localhost >"$out/pc" 2>&1
	prc=$?
fi
reap "$ppid" 30
psrc=$?
expect "$t: ibv_rc_pingpong on the new mlx4_0 (client $prc, server $psrc)" \
	[ "$prc.$psrc" = 0.0 ]
rm -rf "$out"
exit 0

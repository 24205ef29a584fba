#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The MAD layer test client on one node (port 1 cabled to port 2): the
# ports must be ACTIVE with LIDs and no SM may hold the SMI methods, so run
# it under tests/vm/run --sm with SM_STOP=1 (opensm brings the ports up,
# then this script stops it; the ports keep their LIDs).  Loads ib_mad and
# the test module, waits (bounded) for its done line and turns its lines
# into PASS/FAIL lines; then unloads the test module, ib_mad and its users
# (the removal of every port's resources under the kernel's eyes):
#   tests/vm/run --stack ours --sm -- env SM_STOP=1 tests/kmad/guest/kmad-1node.sh
#
# It must be the last item of its boot: it stops opensm and leaves ib_mad
# and its users unloaded.
set -u
# shellcheck source=../../stack/guest/lib.sh
. "$(dirname "$0")/../../stack/guest/lib.sh"
t=${TESTNAME:-kmad}
bound=${KMAD_BOUND:-120}
ko=$(make -s -C "$stack_top" print-builddir KVER="$KVER")/tests/kmad/ibstack_kmad.ko
# ib_mad, the module built, loaded, its done line, the count of its lines,
# its unload, the unload of ib_mad's users and of ib_mad (8); with SM_STOP
# opensm stopped and the ports still ACTIVE (2)
# our ib_ipoib (loaded at boot) holds ib_cm, whose agent owns the CM class
# the module registers on port 2: both go first (1)
if [ "${SM_STOP:-0}" = 1 ]; then plan 11; else plan 9; fi

# shellcheck disable=SC2317 # called through expect
sm_gone() { sm_stop && ! sm_up; }
# shellcheck disable=SC2317 # called through expect
lids_kept() { both_active && [ "$(my_lid 1)" -gt 0 ] && [ "$(my_lid 2)" -gt 0 ]; }
if [ "${SM_STOP:-0}" = 1 ]; then
	expect "$t: opensm stopped" sm_gone
	expect "$t: both ports still ACTIVE with their LIDs" lids_kept
fi

ipoib_park
# shellcheck disable=SC2317 # called through expect
cm_gone() { [ ! -e /sys/module/ib_cm ] || modprobe -r ib_cm; }
expect "$t: no ib_cm (the module registers the CM class itself)" cm_gone
expect "$t: modprobe ib_mad" modprobe ib_mad
expect "$t: the test module is built ($ko)" [ -f "$ko" ]
if [ -n "${KMAD_DEBUG:-}" ]; then
	echo 'module ib_mad +p' >/sys/kernel/debug/dynamic_debug/control 2>/dev/null ||
		echo "note: no dynamic debug"
fi
k=$(klog_mark)
expect "$t: insmod ibstack_kmad" insmod "$ko"
re='^ibstack_kmad: done mlx4_0: [0-9]+ passed, [0-9]+ failed$'
klog_wait "$bound" "$k" "$re"
log=$(klog_since "$k")
# the module's verdicts, as ours (checked by the done line's count)
sed -nE "s/^ibstack_kmad: (PASS|FAIL) (.*)$/\\1 $t: \\2/p" <<<"$log"
line=$(grep -E "$re" <<<"$log" | tail -n 1)
np=$(sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed$/\1/p' <<<"$line")
nf=$(sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed$/\2/p' <<<"$line")
reported=$(grep -cE '^ibstack_kmad: (PASS|FAIL) ' <<<"$log")
echo "${line:-no done line within ${bound}s}"
expect "$t: done within ${bound}s: ${np:-?} passed, ${nf:-?} failed" \
	[ -n "$line" -a "${np:-0}" -gt 0 -a "${nf:-1}" = 0 ]
expect "$t: the done line counts every case reported ($reported)" \
	[ -n "$line" -a "$((${np:-0} + ${nf:-0}))" = "$reported" ]

expect "$t: rmmod ibstack_kmad" rmmod ibstack_kmad
# ib_mad goes last: its users (ib_umad, ib_sa, ...) first
users=()
for m in ib_ipoib ib_cm ib_sa ib_umad; do
	[ -d "/sys/module/$m" ] && users+=("$m")
done
# shellcheck disable=SC2317 # called through expect
rmmod_all() {
	local m
	for m in "$@"; do
		rmmod "$m" || return 1
	done
}
expect "$t: rmmod ib_mad's users (${users[*]:-none loaded})" rmmod_all "${users[@]}"
expect "$t: rmmod ib_mad" rmmod ib_mad
# the node as found for the boot's next items: the stack's modules again
reload=(ib_mad "${users[@]}")
# shellcheck disable=SC2317 # called through expect
reload_all() { modprobe -a "${reload[@]}" && ipoib_unpark; }
plan_more 1
expect "$t: ib_mad and its users load again (${reload[*]}, and ib_ipoib if it was)" reload_all
exit 0

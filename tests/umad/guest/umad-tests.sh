#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The umad checks inside a test VM (run by tests/stack/run-tests, group umad).
#   UMADTEST  the tool (tests/umad/umadtest.c, built on the host)
#   STACK     ours|inbox (our-stack-only checks with ours)
#   TESTS     the tool's tests (default: all but removal)
#   CATAS     1: then the removal test again, the device taken away by a
#             catastrophic error of the card (and brought back by the driver)
#   UNLOAD    1: finally unload and reload ib_umad (no file may be open)
#   SM_STOP   1: first stop the subnet manager tests/vm/run --sm started
#             (the ports it brought up stay ACTIVE with their LIDs), so the
#             tests own issm on both ports and the SMI methods
# Prints PASS/FAIL lines; the tool's own are its (the script checks that
# it ran to its end and reported something).
#
# With SM_STOP, CATAS or UNLOAD it must be the last item of its boot: it
# leaves opensm stopped (the removal brings an SM back only for the ports
# to come up again).
set -u
# shellcheck source-path=SCRIPTDIR source=../../stack/guest/lib.sh
. "$(dirname "$0")/../../stack/guest/lib.sh"
t=${TESTNAME:-umad}
stack=${STACK:-ours}
tool=${UMADTEST:?UMADTEST: the umadtest binary}
default="sysfs basic bad agents timeout dup flood many grh rmpp rmpp-loop issm"
tests=${TESTS:-$default}
# the class layout (1), per umad/issm device its entries and its parent
# (8), the modes (1), the tool's run (1); SM_STOP 4, CATAS 1, UNLOAD 5
plan 11
[ "${SM_STOP:-0}" = 1 ] && plan_more 4
[ "${CATAS:-0}" = 1 ] && plan_more 1
[ "${UNLOAD:-0}" = 1 ] && plan_more 5

if [ "${SM_STOP:-0}" = 1 ]; then
	expect "$t: opensm stopped (ports stay ACTIVE)" sm_stop
	expect "$t: no opensm left" [ -z "$(sm_pids)" ]
	expect "$t: port 1 still ACTIVE" port_is 1 ACTIVE
	expect "$t: port 2 still ACTIVE" port_is 2 ACTIVE
fi

# /sys/class/infiniband_mad as upstream lays it out (checked against the
# inbox stack: the same list is expected there)
layout=$(cd /sys/class/infiniband_mad 2>/dev/null && printf '%s ' *)
expect "$t: /sys/class/infiniband_mad holds abi_version issm0 issm1 umad0 umad1" \
	[ "$layout" = "abi_version issm0 issm1 umad0 umad1 " ]
for d in umad0 umad1 issm0 issm1; do
	entries=$(cd "/sys/class/infiniband_mad/$d/" 2>/dev/null && printf '%s ' *)
	expect "$t: $d holds dev device ibdev port power subsystem uevent ($entries)" \
		[ "$entries" = "dev device ibdev port power subsystem uevent " ]
	parent=$(readlink -e "/sys/class/infiniband_mad/$d/device")
	expect "$t: $d's device is mlx4_0's PCI function ($parent)" \
		same "$parent" "$(readlink -e "$ibdev/device")"
done
modes=$(stat -c '%a' /sys/class/infiniband_mad/abi_version \
	/sys/class/infiniband_mad/umad0/ibdev /sys/class/infiniband_mad/umad0/port | tr '\n' ' ')
expect "$t: abi_version, ibdev and port are 444 ($modes)" [ "$modes" = "444 444 444 " ]

# runtool NAME TEST...: the tool, and one check: it ran to its end (its
# status 0: all passed, 1: some failed, their FAIL lines are out) and
# reported results
runtool() {
	local n=$1 rc res
	shift
	if [ ! -x "$tool" ]; then
		fail "$n: the test tool ($*)" "$tool is missing (the guest sees only the host's root)"
		return
	fi
	res=$(mktemp)
	"$tool" -s "$stack" -n "$n" "$@" | tee "$res"
	rc=${PIPESTATUS[0]}
	expect "$n: the test tool ran $* to its end (status $rc, $(grep -cE '^(PASS|FAIL) ' "$res") results)" \
		[ "$rc" -le 1 -a "$(grep -cE '^(PASS|FAIL) ' "$res")" -gt 0 ]
	rm -f "$res"
}

# With SM_STOP the ports came up under an SM that is gone: after the
# removal test brings the device back, an SM must bring its port up again
lib=$stack_top/tests/stack/guest/lib.sh
restore_sm=
[ "${SM_STOP:-0}" = 1 ] && restore_sm=" && sm_back"
(
	export RESTORE_CMD="bash -c '. $lib && modprobe mlx4_ib$restore_sm'"
	# shellcheck disable=SC2086
	runtool "$t" $tests
)

if [ "${CATAS:-0}" = 1 ]; then
	(
		export REMOVE_CMD="bash -c '. $lib && catas'"
		export RESTORE_CMD="bash -c '. $lib${restore_sm:- && true}'"
		runtool "$t: catas" removal
	)
fi

if [ "${UNLOAD:-0}" = 1 ]; then
	# an SM would hold ib_umad open
	expect "$t: no opensm before the unload" sm_stop
	expect "$t: modprobe -r ib_umad once every file is closed" modprobe -r ib_umad
	expect "$t: /sys/class/infiniband_mad is gone" [ ! -e /sys/class/infiniband_mad ]
	expect "$t: modprobe ib_umad again" modprobe ib_umad
	expect "$t: umad0 is back" wait_for 10 [ -e /dev/infiniband/umad0 ]
fi
exit 0

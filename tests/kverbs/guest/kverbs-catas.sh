#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A catastrophic error of the card while ibstack_kverbs is busy on it: the
# self-test is running and the two-node endpoint (QPs, CQs, an MR) is set
# up.  The client must see the device removed (the running self-test stops,
# everything is destroyed on the dead card without hanging), then added
# again after the reset, where the self-test runs again and its first
# round must pass.  One card, port 1 cabled to port 2, under opensm
# (tests/vm/run --sm) or with the model's auto-lid options.
#
# Under opensm: its umad files die with the device, so as soon as the
# client saw the device removed, this node's opensm is restarted on the
# ports it served (sm_back_on: once every port of the new device and its
# umad device are there), as an administrator would; the self-test of the new device waits
# (60 s, in the module) for both ports to be ACTIVE.  At the end the test
# module is unloaded and both ports are ACTIVE, under the new opensm.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=kverbs-lib.sh
. "$here/kverbs-lib.sh"
# catas, klog_*, sm_* (on top of the same test bed library)
# shellcheck source=../../stack/guest/lib.sh
. "$here/../../stack/guest/lib.sh"
t=${TESTNAME:-kverbs-catas}
dev=mlx4_0
d=/sys/kernel/debug/ibstack_kverbs/$dev
limit=${KVERBS_TIMEOUT:-300}
# added, endpoint, the drain fixture, the error, DEVICE_FATAL, removed, the
# fixture's QPs drained on the dead device, the endpoint's QPs taken to ERR
# and RESET on the dead device, the interrupted self-test's end, added
# again, the first round after the reset, the unload and its remove line,
# both ports ACTIVE at the end (14); opensm restarted if this node ran one
# (1)
plan 14

smports=()
for p in 1 2; do
	sm_up "$p" && smports+=("$p")
done
echo "$t: opensm on port(s) of this node before: ${smports[*]:-none}"
[ ${#smports[@]} -gt 0 ] && plan_more 1

# log REGEX: the module's lines since the load from the first that
# matches REGEX on (nothing if none does)
log_from() { klog_since "$k0" | sed -nE "\\#$1#,\$p"; }

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
k0=$(klog_mark)
# many rounds: the error hits a running self-test
if ! kv_load selftest=1 selftest_rounds=50; then
	fail "$t: load ibstack_kverbs" "insmod failed or no module for $KVER"
	exit 0
fi
expect "$t: client added to $dev" klog_wait 10 "$k0" "^ibstack_kverbs: add $dev\$"
ep=$(cat "$d/endpoint" 2>&1)
expect "$t: endpoint set up ($ep)" [ "${ep#lid=}" != "$ep" ]
# QPs on CQs of ib_alloc_cq() (softirq, workqueue, direct) with sends and
# receives outstanding, for ib_drain_qp() on the dead card at the removal
expect "$t: drain fixture set up (QPs with outstanding work)" \
	sh -c "echo 1 > $d/drainfix"
# the self-test is under way (not judged here: the error ends it)
klog_wait 60 "$k0" "^ibstack_kverbs: PASS rc-send\$"
old=$(ibdev_id)
expect "$t: raise a catastrophic error" catas 1
expect "$t: DEVICE_FATAL event" klog_wait 30 "$k0" \
	"^ibstack_kverbs: event $dev port 0 DEVICE_FATAL\$"
expect "$t: client sees $dev removed" klog_wait 90 "$k0" \
	"^ibstack_kverbs: remove $dev\$"
# the module's verdict on ib_drain_qp() of the fixture's QPs on the dead
# device (every outstanding work request's done() called, flushed, before
# the drain returned; no completion interrupt comes from a dead card)
dr_re="^ibstack_kverbs: (PASS|FAIL) catas-drain"
klog_wait 120 "$k0" "$dr_re"
dr=$(log_from "^ibstack_kverbs: remove $dev\$" | grep -E "$dr_re" | head -n 1)
expect "$t: outstanding work drained on the dead device (${dr#ibstack_kverbs: })" \
	[ "$dr" = "ibstack_kverbs: PASS catas-drain" ]
# the module's verdict on modify_qp to ERR and RESET of the endpoint's QPs
# on the dead device (upstream lets a ULP tear down so), once the removal
# has stopped the running self-test
td_re="^ibstack_kverbs: (PASS|FAIL) catas-teardown"
klog_wait 120 "$k0" "$td_re"
td=$(log_from "^ibstack_kverbs: remove $dev\$" | grep -E "$td_re" | head -n 1)
expect "$t: QPs of the dead device to ERR and RESET (${td#ibstack_kverbs: })" \
	[ "$td" = "ibstack_kverbs: PASS catas-teardown" ]
if [ ${#smports[@]} -gt 0 ]; then
	s0=$SECONDS
	expect "$t: opensm restarted on port(s) ${smports[*]} once $dev is back" \
		sm_back_on "$old" "${smports[@]}"
	echo "$t: opensm running again $((SECONDS - s0))s after the removal"
fi
done_re="^ibstack_kverbs: selftest $dev done: "
expect "$t: the interrupted self-test ended" klog_wait 10 "$k0" "$done_re"
echo "$t: the interrupted self-test said:"
klog_since "$k0" | grep -E "^ibstack_kverbs: (FAIL|selftest)" | head -n 20 | sed 's/^/    /'
# the log from the add after the removal on
# shellcheck disable=SC2317 # called through wait_for
after_add() { log_from "^ibstack_kverbs: remove $dev\$" | sed -n "/^ibstack_kverbs: add $dev\$/,\$p"; }
# shellcheck disable=SC2317 # called through wait_for
added_again() { [ -n "$(after_add)" ]; }
expect "$t: client sees $dev added again" wait_for 120 added_again
# one round after the reset is enough: it ends where its first case comes
# again (the second round), or with the done line (the last round, or a
# self-test that could not start)
cases_re='^ibstack_kverbs: (PASS|FAIL) ([^:]+)'
# shellcheck disable=SC2317 # called through wait_for
round_done() {
	local l first
	l=$(after_add)
	grep -qE "$done_re" <<<"$l" && return 0
	first=$(sed -nE "s/$cases_re.*/\\2/p" <<<"$l" | head -n 1)
	[ -n "$first" ] && [ "$(sed -nE "s/$cases_re.*/\\2/p" <<<"$l" | grep -cxF -- "$first")" -ge 2 ]
}
wait_for "$limit" round_done
res=$(after_add | sed -nE "s/$cases_re.*/\\2/p" |
	awk 'NR == 1 { first = $0 } NR > 1 && $0 == first { exit } { print }')
lines=$(after_add | grep -E "$cases_re" | head -n "$(grep -c . <<<"$res")" |
	sed -nE "s/^ibstack_kverbs: (PASS|FAIL) (.*)\$/\\1 $t: after reset: \\2/p")
echo "$lines" | grep -E '^(PASS|FAIL)'
nf=$(grep -c '^FAIL' <<<"$lines")
np=$(grep -c '^PASS' <<<"$lines")
expect "$t: the first round after the reset: $np passed, $nf failed" \
	[ "$np" -gt 0 -a "$nf" = 0 ]
k=$(klog_mark)
expect "$t: unload (stops the running self-test)" rmmod ibstack_kverbs
expect "$t: client removed from $dev" klog_wait 60 "$k" \
	"^ibstack_kverbs: remove $dev\$"
expect "$t: both ports ACTIVE at the end" wait_for 90 both_active
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A catastrophic error of the card while ibstack_kverbs is busy on it: the
# self-test is running and the two-node endpoint (QPs, CQs, an MR) is set
# up.  The client must see the device removed (the running self-test stops,
# everything is destroyed on the dead card without hanging), then added
# again after the reset, where the self-test runs again and must pass.
# One card, port 1 cabled to port 2, auto-lid (as kverbs-1node.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=kverbs-lib.sh
. "$here/kverbs-lib.sh"
t=kverbs-catas
dev=mlx4_0
d=/sys/kernel/debug/ibstack_kverbs/$dev
limit=${KVERBS_TIMEOUT:-300}

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mark=$(kv_mark)
# many rounds: the error hits a running self-test
if ! kv_load selftest=1 selftest_rounds=50; then
	fail "$t: load ibstack_kverbs" "insmod failed or no module for $KVER"
	exit 0
fi
expect "$t: client added to $dev" kv_wait_log 10 "$mark" "ibstack_kverbs: add $dev\$"
ep=$(cat "$d/endpoint" 2>&1)
expect "$t: endpoint set up ($ep)" [ "${ep#lid=}" != "$ep" ]
kv_wait_log 30 "$mark" "ibstack_kverbs: PASS rc-send\$"
expect "$t: raise a catastrophic error" kv_catas 1
expect "$t: DEVICE_FATAL event" kv_wait_log 30 "$mark" \
	"ibstack_kverbs: event $dev port 0 DEVICE_FATAL\$"
expect "$t: client sees $dev removed" kv_wait_log 90 "$mark" \
	"ibstack_kverbs: remove $dev\$"
done_re="ibstack_kverbs: selftest $dev done: "
rm_at=$(kv_line "$mark" "ibstack_kverbs: remove $dev\$") || rm_at=$mark
expect "$t: the interrupted self-test ended" kv_wait_log 10 "$mark" "$done_re"
echo "$t: the interrupted self-test said:"
kv_since "$mark" | grep -E "ibstack_kverbs: (FAIL|selftest)" | head -n 20 | sed 's/^/    /'
expect "$t: client sees $dev added again" kv_wait_log 120 "$rm_at" \
	"ibstack_kverbs: add $dev\$"
add_at=$(kv_line "$rm_at" "ibstack_kverbs: add $dev\$") || add_at=$(kv_mark)
# one round after the reset is enough: unload once it is through
first_round=$(kv_line "$add_at" "ibstack_kverbs: (PASS|FAIL) cq-overrun") ||
	kv_wait_log "$limit" "$add_at" "ibstack_kverbs: (PASS|FAIL) cq-overrun" ||
	fail "$t: a self-test round after the reset" "not through within $limit s"
first_round=$(kv_line "$add_at" "ibstack_kverbs: (PASS|FAIL) cq-overrun") ||
	first_round=$(kv_mark)
res=$(kv_since "$add_at" | head -n $((first_round - add_at)) |
	sed -n -E "s/^.*ibstack_kverbs: (PASS|FAIL) (.*)\$/\\1 $t: after reset: \\2/p")
echo "$res" | grep -E '^(PASS|FAIL)'
nf=$(grep -c '^FAIL' <<<"$res")
np=$(grep -c '^PASS' <<<"$res")
expect "$t: the first round after the reset: $np passed, $nf failed" [ "$nf" = 0 ]
mark2=$(kv_mark)
expect "$t: unload (stops the running self-test)" rmmod ibstack_kverbs
expect "$t: client removed from $dev" kv_wait_log 60 "$mark2" \
	"ibstack_kverbs: remove $dev\$"
exit 0

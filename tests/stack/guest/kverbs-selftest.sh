#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel verbs self-test: load the test module (tests/kverbs,
# ibstack_kverbs) with selftest=1, wait (bounded) for its
# "ibstack_kverbs: selftest mlx4_0 done: N passed, M failed" line, and turn
# its "ibstack_kverbs: PASS case" / "ibstack_kverbs: FAIL case: why" lines
# into this framework's PASS/FAIL lines.  The module is unloaded afterwards.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-kverbs}
bound=${SELFTEST_BOUND:-180}
# the load, the done line and its count, the ulp-helpers case's three log
# lines, the unload and its remove line
# (the module's own PASS/FAIL lines are checked by the done line's count)
plan 8

if [ -d /sys/module/ibstack_kverbs ]; then
	plan_more 1
	expect "$t: unload the test module first" rmmod ibstack_kverbs
fi
k=$(klog_mark)
s0=$SECONDS
# dyndbg: the module's one debug line (its ulp-helpers case's ibdev_dbg)
if ! kverbs_load selftest=1 dyndbg=+p; then
	fail "$t: load ibstack_kverbs selftest=1" "$(kverbs_ko >/dev/null || echo "no module built for $KVER; ")insmod/modprobe failed"
	exit 0
fi
pass "$t: ibstack_kverbs loaded with selftest=1"
done_re='^ibstack_kverbs: selftest mlx4_0 done: [0-9]+ passed, [0-9]+ failed$'
klog_wait "$bound" "$k" "$done_re"
log=$(klog_since "$k")
# the module's verdicts, as ours
sed -nE "s/^ibstack_kverbs: (PASS|FAIL) (.*)$/\1 $t: \2/p" <<<"$log"
line=$(grep -E "$done_re" <<<"$log" | tail -n 1)
if [ -z "$line" ]; then
	fail "$t: self-test finished within ${bound}s" "no done line; the module said:"
	grep '^ibstack_kverbs' <<<"$log" | tail -n 20 | sed 's/^/    /'
	fail "$t: the done line counts every case reported" "no done line"
else
	np=$(sed -E 's/.* ([0-9]+) passed, ([0-9]+) failed$/\1/' <<<"$line")
	nf=$(sed -E 's/.* ([0-9]+) passed, ([0-9]+) failed$/\2/' <<<"$line")
	reported=$(grep -cE '^ibstack_kverbs: (PASS|FAIL) ' <<<"$log")
	ok=0
	[ "$nf" = 0 ] && [ "$np" -gt 0 ] && ok=1
	expect "$t: self-test done in $((SECONDS - s0))s: $np passed, $nf failed" \
		[ "$ok" = 1 ]
	expect "$t: the done line counts every case reported ($reported)" \
		[ "$((np + nf))" = "$reported" ]
fi
# the ulp-helpers case's lines about the device, as upstream's ibdev_*()
# print them: driver, PCI function, device, message
pci='[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]'
for how in ibdev_info ibdev_warn_ratelimited ibdev_dbg; do
	expect "$t: $how's line names the driver, the PCI function and the device" \
		grep -qE "^mlx4_core $pci mlx4_0: kverbs $how 0x5eed1e$" <<<"$log"
done
k=$(klog_mark)
expect "$t: test module unloads" rmmod ibstack_kverbs
expect "$t: the module saw mlx4_0 removed at unload" \
	klog_wait 30 "$k" '^ibstack_kverbs: remove mlx4_0$'
exit 0

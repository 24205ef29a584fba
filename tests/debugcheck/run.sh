#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The debug kernel's checkers fail a run: one VM on the debug kernel
# (tests/setup/debug-kernel.sh) where ibstack_debugcheck makes each of
# them report once (guest/debugcheck.sh).  Checks, one PASS/FAIL line each:
# the run failed on a kernel splat, and for every checker its report is
# in the kernel log and is one that tests/vm/splat-patterns catches.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
t=debugcheck
nfail=0
pass() { echo "PASS $t: $*"; }
fail() { echo "FAIL $t: $*"; nfail=$((nfail + 1)); }

rel=$("$top/tests/setup/envs.sh" release 6.1-debug 2>/dev/null) || {
	fail "no debug kernel (tests/setup/debug-kernel.sh build)"
	exit 1
}
if ! out=$(make -s -C "$top" modules KVER="$rel" 2>&1); then
	fail "make modules KVER=$rel: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
	exit 1
fi
ko=$(make -s -C "$top" print-builddir KVER="$rel")/tests/debugcheck/ibstack_debugcheck.ko
[ -f "$ko" ] || { fail "no $ko after make modules"; exit 1; }

dir=${DEBUGCHECK_DIR:-$(mktemp -d /tmp/debugcheck.XXXXXX)}
rm -rf "$dir"
VMRUN_DIR=$dir VMRUN_NO_CX3=1 "$top/tests/vm/run" --kernel 6.1-debug --timeout 600 -- \
	env DEBUGCHECK_KO="$ko" "$here/guest/debugcheck.sh" >"$dir.out" 2>&1
rc=$?
grep -E '^\[node1\] (FAIL|debugcheck)' "$dir.out" | sed 's/^\[node1\] //'
echo "$t: logs in $dir (the kernel log: $dir/node1/out/dmesg.txt; kept after a failure)"
if [ "$rc" = 1 ] && grep -q 'kernel splat on node1' "$dir.out"; then
	pass "the run failed on the kernel splat (tests/vm/run exited 1)"
else
	fail "the run did not fail on a kernel splat: status $rc (see $dir.out)"
fi
if grep -q '^\[node1\] FAIL' "$dir.out"; then
	fail "the guest script reported a failure (above)"
fi

log=$dir/node1/out/dmesg.txt
patterns=$(grep -v -e '^#' -e '^$' "$top/tests/vm/splat-patterns")
# checker, what its report says
while IFS='|' read -r what re; do
	line=$(grep -E -a -m 1 -e "$re" "$log" 2>/dev/null | sed -E 's/^\[ *[0-9.]+\] //')
	if [ -z "$line" ]; then
		fail "$what: no report matching /$re/ in the kernel log ($log)"
	elif grep -E -q -e "$patterns" <<<"$line"; then
		pass "$what: reported, and the harness catches it: $line"
	else
		fail "$what: reported, but tests/vm/splat-patterns misses it: $line"
	fi
done <<'CASES'
PROVE_LOCKING|WARNING: possible circular locking dependency detected
DEBUG_ATOMIC_SLEEP|BUG: sleeping function called from invalid context
DEBUG_OBJECTS|ODEBUG: free active .*object type: timer_list
DEBUG_LIST|list_add corruption
UBSAN|UBSAN: shift-out-of-bounds
KASAN|BUG: KASAN: slab-out-of-bounds
KMEMLEAK|kmemleak-report: unreferenced object 0x[0-9a-f]+ \(size 64\)
CASES
if grep -a -q 'kmemleak-report: .*ibstack_debugche' "$log" 2>/dev/null; then
	pass "KMEMLEAK: the report shows the leaked buffer's contents"
else
	fail "KMEMLEAK: the leaked buffer is not in the report"
fi
# the logs stay for a failure only
[ "$nfail" = 0 ] && rm -rf "$dir" "$dir.out"
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In a VM on the debug kernel (tests/debugcheck/run.sh): load
# ibstack_debugcheck (DEBUGCHECK_KO) and make each checker report once.
# The leak first: kmemleak reports only objects older than 5 s, so it is
# the oldest, and this script waits (bounded) until a scan lists it; then
# lockdep, which some of the other reports turn off.  The
# run is meant to fail on these reports; the host judges the kernel log.
set -u
t=debugcheck
ml=/sys/kernel/debug/kmemleak
trig=/sys/kernel/debug/ibstack_debugcheck/trigger
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
insmod "${DEBUGCHECK_KO:?}" || { echo "FAIL $t: insmod $DEBUGCHECK_KO"; exit 1; }
for c in leak lockdep atomic-sleep odebug list ubsan kasan; do
	if echo "$c" >"$trig"; then
		echo "$t: case $c triggered"
	else
		echo "FAIL $t: writing $c to $trig"
	fi
done
listed() { echo scan >"$ml" && grep -q 'ibstack_debugche' "$ml"; }
end=$((SECONDS + 120))
until listed; do
	if [ "$SECONDS" -ge "$end" ]; then
		echo "FAIL $t: kmemleak did not list the leaked buffer within 120 s"
		break
	fi
done
rmmod ibstack_debugcheck || echo "FAIL $t: rmmod ibstack_debugcheck"
exit 0

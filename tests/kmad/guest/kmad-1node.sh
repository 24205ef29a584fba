#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The MAD layer test client on one node (port 1 cabled to port 2, ports
# ACTIVE with LIDs through auto-lid, no SM): loads ib_mad and the test
# module, waits (bounded) for its done line and turns its lines into
# PASS/FAIL lines; then unloads the test module, ib_mad and its users (the
# removal of every port's resources under the kernel's eyes).  Run it with:
#   VMRUN_CX3_OPTS=auto-lid1=1,auto-lid2=2 tests/vm/run --stack ours -- \
#	tests/kmad/guest/kmad-1node.sh
set -u
bound=${KMAD_BOUND:-120}
ko=$(make -s print-builddir KVER="$KVER")/tests/kmad/ibstack_kmad.ko
fails=0

modprobe ib_mad || { echo "FAIL kmad: modprobe ib_mad"; exit 1; }
[ -f "$ko" ] || { echo "FAIL kmad: $ko not built"; exit 1; }
if [ -n "${KMAD_DEBUG:-}" ]; then
	echo 'module ib_mad +p' >/sys/kernel/debug/dynamic_debug/control 2>/dev/null ||
		echo "note: no dynamic debug"
fi
mark=$(dmesg | wc -l)
insmod "$ko" || { echo "FAIL kmad: insmod $ko"; exit 1; }
re='^ibstack_kmad: done mlx4_0: [0-9]+ passed, [0-9]+ failed$'
for _ in $(seq "$bound"); do
	dmesg | tail -n +"$((mark + 1))" | sed 's/^\[[^]]*\] //' | grep -qE "$re" && break
	sleep 1
done
log=$(dmesg | tail -n +"$((mark + 1))" | sed 's/^\[[^]]*\] //')
sed -nE 's/^ibstack_kmad: (PASS|FAIL) (.*)$/\1 kmad: \2/p' <<<"$log"
line=$(grep -E "$re" <<<"$log" | tail -n 1)
if [ -z "$line" ]; then
	echo "FAIL kmad: no done line within ${bound}s"
	fails=1
else
	echo "$line"
	grep -q ' 0 failed$' <<<"$line" || fails=1
	grep -q ': 0 passed' <<<"$line" && fails=1
fi
rmmod ibstack_kmad || { echo "FAIL kmad: rmmod ibstack_kmad"; fails=1; }
# ib_mad goes last: its users (ib_umad, ib_sa, ...) first
for m in ib_ipoib ib_cm ib_sa ib_umad; do
	if lsmod | grep -q "^$m "; then
		rmmod "$m" || { echo "FAIL kmad: rmmod $m"; fails=1; }
	fi
done
rmmod ib_mad || { echo "FAIL kmad: rmmod ib_mad"; fails=1; }
[ "$fails" = 0 ] && echo "PASS kmad: unloaded cleanly"
exit "$fails"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unload and reload the whole stack CYCLES times (default 20), as an admin
# would; every reload must bring mlx4_0 back.  The host side then reads the
# model's accounting: nothing may be left live after any unload.
set -u
. "$(dirname "$0")/lib.sh"
cycles=${CYCLES:-20}
mods=(mlx4_core mlx4_ib ib_umad ib_uverbs ib_ipoib)
# users before what they use: the whole stack, down to ib_core
unload=(ib_ipoib ib_umad mlx4_ib ib_uverbs ib_cm mlx4_core ib_core)
ok=0
for i in $(seq "$cycles"); do
	if ! modprobe -r -a "${unload[@]}"; then
		fail "modprobe-cycle: unload $i" "modprobe -r failed"
		break
	fi
	if lsmod | grep -Eq '^(mlx4_core|mlx4_ib|ib_core) '; then
		fail "modprobe-cycle: unload $i" "$(lsmod | grep -E 'mlx4|ib_')"
		break
	fi
	for m in "${mods[@]}"; do
		modprobe "$m" || { fail "modprobe-cycle: load $i" "modprobe $m"; break 2; }
	done
	for _ in $(seq 100); do
		[ -e /sys/class/infiniband/mlx4_0/ports/2/state ] && break
		sleep 0.2
	done
	if [ ! -e /sys/class/infiniband/mlx4_0/ports/2/state ]; then
		fail "modprobe-cycle: load $i" "mlx4_0 did not come back"
		break
	fi
	ok=$i
done
expect "modprobe-cycle: $cycles unload/load cycles of the whole stack" [ "$ok" = "$cycles" ]
# leave it unloaded: the host reads the model's accounting after this unload
modprobe -r -a "${unload[@]}"
expect "modprobe-cycle: final unload" sh -c '! lsmod | grep -q "^mlx4_core "'
exit 0

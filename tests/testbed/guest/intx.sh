#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The INTx fallback: reload mlx4_core with MSI-X off; the driver's NOP
# interrupt test, the EQs and the port bring-up must work on the legacy line.
set -u
. "$(dirname "$0")/lib.sh"
unload=(ib_ipoib ib_umad mlx4_ib ib_uverbs ib_cm mlx4_core ib_core)
modprobe -r -a "${unload[@]}"
expect "intx: mlx4_core loads with msi_x=0" modprobe mlx4_core msi_x=0
expect "intx: mlx4_ib loads" modprobe mlx4_ib
for _ in $(seq 100); do
	[ -e /sys/class/infiniband/mlx4_0/ports/2/state ] && break
	sleep 0.2
done
irq=$(grep -i mlx4 /proc/interrupts)
if [ -n "$irq" ] && ! grep -q MSI <<<"$irq"; then
	pass "intx: mlx4 uses a legacy interrupt line, not MSI-X"
else
	fail "intx: mlx4 uses a legacy interrupt line, not MSI-X" "$irq"
fi
dv=$(ibv_devinfo 2>&1)
n=$(grep -c 'state:[[:space:]]*PORT_INIT (2)' <<<"$dv")
expect "intx: both ports reach INIT" [ "$n" = 2 ]
bad=$(dmesg --level=emerg,alert,crit,err,warn | grep -iE 'mlx4|infiniband')
expect "intx: no error or warning from mlx4" [ -z "$bad" ]
[ -z "$bad" ] || echo "$bad"
modprobe -r -a "${unload[@]}"
exit 0

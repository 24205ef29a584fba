#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The INTx fallback: reload mlx4_core with MSI-X off; the driver's NOP
# interrupt test, the EQs and the port bring-up must work on the legacy line.
# Then the stack is unloaded once more (the host reads the model's
# accounting after both unloads) and loaded again as it was, with MSI-X, so
# that the system is left as it was found.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-intx}
plan 9
unload=(ib_ipoib ib_umad mlx4_ib ib_uverbs ib_cm mlx4_core ib_core)
loaded() { grep -q "^$1 " /proc/modules; }
# none_loaded MODULE...: /proc/modules is readable and lists none of them
none_loaded() {
	local m mods
	mods=$(cat /proc/modules) && [ -n "$mods" ] || return 1
	for m; do
		! grep -q "^$m " <<<"$mods" || return 1
	done
}
# what was loaded (guest-init loads these), to load again at the end
before=()
for m in mlx4_core mlx4_ib ib_umad ib_uverbs ib_ipoib; do
	loaded "$m" && before+=("$m")
done
port_state() { cat "/sys/class/infiniband/mlx4_0/ports/$1/state" 2>/dev/null; }
both_init() { [[ "$(port_state 1)" == *INIT* && "$(port_state 2)" == *INIT* ]]; }

modprobe -r -a "${unload[@]}"
expect "$t: the stack unloads" none_loaded "${unload[@]}"
msix_off() { [ "$(cat /sys/module/mlx4_core/parameters/msi_x 2>/dev/null)" = 0 ]; }
expect "$t: mlx4_core loads with msi_x=0" eval 'modprobe mlx4_core msi_x=0 && msix_off'
expect "$t: mlx4_ib loads" modprobe mlx4_ib
# the ports come up to INIT (bounded)
wait_for 60 both_init
irq=$(grep -i mlx4 /proc/interrupts)
if [ -z "$irq" ]; then
	fail "$t: mlx4 uses a legacy interrupt line, not MSI-X" "no mlx4 line in /proc/interrupts"
elif grep -q MSI <<<"$irq" || ! grep -Eq 'IO-APIC|XT-PIC' <<<"$irq"; then
	fail "$t: mlx4 uses a legacy interrupt line, not MSI-X" "$irq"
else
	pass "$t: mlx4 uses a legacy interrupt line, not MSI-X"
fi
dv=$(ibv_devinfo 2>&1)
n=$(grep -c 'state:[[:space:]]*PORT_INIT (2)' <<<"$dv")
expect "$t: both ports reach INIT" [ "$n" = 2 ]
log=$(dmesg 2>&1)
lrc=$?
bad=$(dmesg --level=emerg,alert,crit,err,warn 2>&1 | grep -iE 'mlx4|infiniband')
if [ "$lrc" != 0 ] || ! grep -q 'mlx4_core' <<<"$log"; then
	fail "$t: no error or warning from mlx4" "dmesg unreadable or without mlx4_core lines (rc $lrc)"
else
	expect "$t: no error or warning from mlx4" [ -z "$bad" ]
	[ -z "$bad" ] || echo "$bad"
fi
modprobe -r -a "${unload[@]}"
expect "$t: the stack unloads again" none_loaded "${unload[@]}"

# as it was: the modules loaded before, mlx4_0 with both ports back to INIT
# (the state without a subnet manager)
if [ ${#before[@]} -gt 0 ]; then
	modprobe -a "${before[@]}"
fi
reloaded() {
	local m
	[ ${#before[@]} -gt 0 ] || return 1
	for m in "${before[@]}"; do loaded "$m" || return 1; done
}
expect "$t: the stack is loaded again as it was" reloaded
expect "$t: mlx4_0 is back with both ports in INIT" wait_for 60 both_init
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unload and reload the whole stack CYCLES times (default 20), as an admin
# would; every reload must bring mlx4_0 back.  The host side then reads the
# model's accounting: nothing may be left live after any unload.  At the end
# the stack is unloaded once more, then loaded again as it was found.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-modprobe-cycle}
cycles=${CYCLES:-20}
plan 4
case $cycles in
'' | *[!0-9]* | 0) echo "CYCLES must be a number of at least 1, not '$cycles'" >&2; exit 2 ;;
esac
mods=(mlx4_core mlx4_ib ib_umad ib_uverbs ib_ipoib)
# users before what they use: the whole stack, down to ib_core
unload=(ib_ipoib ib_umad mlx4_ib ib_uverbs ib_cm mlx4_core ib_core)
loaded() { grep -q "^$1 " /proc/modules; }
# none_loaded MODULE...: /proc/modules is readable and lists none of them
none_loaded() {
	local m list
	list=$(cat /proc/modules) && [ -n "$list" ] || return 1
	for m; do
		! grep -q "^$m " <<<"$list" || return 1
	done
}
both_ports() {
	[ -e /sys/class/infiniband/mlx4_0/ports/1/state ] &&
		[ -e /sys/class/infiniband/mlx4_0/ports/2/state ]
}
before=()
for m in "${mods[@]}"; do
	loaded "$m" && before+=("$m")
done

ok=0
for i in $(seq "$cycles"); do
	modprobe -r -a "${unload[@]}"
	if ! none_loaded "${unload[@]}"; then
		plan_more 1
		fail "$t: unload $i" "$(grep -E '^(mlx4|ib_)' /proc/modules)"
		break
	fi
	for m in "${mods[@]}"; do
		modprobe "$m" || {
			plan_more 1
			fail "$t: load $i" "modprobe $m"
			break 2
		}
	done
	if ! wait_for 30 both_ports; then
		plan_more 1
		fail "$t: load $i" "mlx4_0 and its ports did not come back within 30 s"
		break
	fi
	ok=$i
done
expect "$t: $cycles unload/load cycles of the whole stack" [ "$ok" = "$cycles" ]
# the host reads the model's accounting after this unload too
modprobe -r -a "${unload[@]}"
expect "$t: final unload" none_loaded "${unload[@]}"

# as it was found: the modules loaded before, and mlx4_0
[ ${#before[@]} -eq 0 ] || modprobe -a "${before[@]}"
reloaded() {
	local m
	[ ${#before[@]} -gt 0 ] || return 1
	for m in "${before[@]}"; do loaded "$m" || return 1; done
}
expect "$t: the stack is loaded again as it was" reloaded
expect "$t: mlx4_0 is back with its two ports" wait_for 60 both_ports
exit 0

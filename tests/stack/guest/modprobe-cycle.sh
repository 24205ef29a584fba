#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unload and reload the stack CYCLES times (default 50) with modprobe -r /
# modprobe, as an admin would; every reload must bring mlx4_0 back.  The
# host side then reads the model's accounting: nothing may be left live
# after any unload, and the harness finds no kernel splat.
#
# The modules: MODULES if given, else with the project's stack (STACK=ours)
# the ones tests/vm/run installed into /lib/modules/KVER/updates (exactly
# what ours provides), else the inbox stack the harness loads.  With ours,
# the MAD layer's modules (NEED_MODULES, default ib_mad ib_umad ib_sa) must
# be among them.
#
# Run it without an SM: an opensm would hold ib_umad open.  Without one the
# cabled ports come up to INIT (link up, no LID) after each load.
#
# It must be the last item of its boot: it leaves the stack unloaded (the
# host reads the model's accounting of that unload).
set -u
. "$(dirname "$0")/lib.sh"
cycles=${CYCLES:-50}
t=${TESTNAME:-modprobe-cycle}
# the module set, the cycles, all loaded, INIT, the final unload (5); with
# ours one per module it must include (below); one more where a cycle fails
plan 5

if [ -n "${MODULES:-}" ]; then
	read -ra set <<<"$MODULES"
elif [ "${STACK:-inbox}" = ours ]; then
	set=()
	for f in /lib/modules/"$KVER"/updates/*.ko; do
		[ -e "$f" ] || continue
		f=${f##*/}
		[ "${f%.ko}" = ibstack_kverbs ] || set+=("${f%.ko}")
	done
else
	set=(mlx4_core mlx4_ib ib_umad ib_uverbs ib_ipoib ib_cm ib_core)
fi
found=${#set[@]}
expect "$t: modules of the ${STACK:-inbox} stack: ${set[*]:-none found}" [ "$found" -gt 0 ]
[ "$found" -gt 0 ] || set=(ib_core mlx4_core mlx4_ib)
if [ "${STACK:-inbox}" = ours ] && [ -z "${MODULES:-}" ]; then
	read -ra need <<<"${NEED_MODULES-ib_mad ib_umad ib_sa}"
	plan_more ${#need[@]}
	for m in "${need[@]}"; do
		if [[ " ${set[*]} " == *" $m "* ]]; then
			pass "$t: $m is built by ours, unloaded and reloaded in every cycle"
		else
			fail "$t: $m is built by ours, unloaded and reloaded in every cycle" \
				"not among the modules ours installs (${set[*]})"
		fi
	done
fi

loaded() { mods_loaded "${set[@]}"; }
unload_all() { mods_unload "${set[@]}"; }

ok=0
for i in $(seq "$cycles"); do
	if ! unload_all || loaded; then
		plan_more 1
		fail "$t: unload $i" "modprobe -r failed; still loaded: $(lsmod | grep -E "^($(IFS='|'; echo "${set[*]}")) " | tr '\n' ';')"
		break
	fi
	if ! modprobe -a "${set[@]}"; then
		plan_more 1
		fail "$t: load $i" "modprobe -a ${set[*]} failed"
		break
	fi
	if ! wait_for 30 [ -e "$ibdev/ports/2/state" ]; then
		plan_more 1
		fail "$t: load $i" "mlx4_0 did not come back"
		break
	fi
	ok=$i
done
expect "$t: $cycles unload/load cycles, mlx4_0 back each time" [ "$ok" = "$cycles" ]
notloaded=()
for m in "${set[@]}"; do
	[ -e "/sys/module/$m/refcnt" ] || notloaded+=("$m")
done
expect "$t: after the last load every module is loaded (missing: ${notloaded[*]:-none})" \
	[ ${#notloaded[@]} = 0 ]
expect "$t: after the last load both ports come up to INIT (no SM)" \
	wait_for 30 sh -c "grep -qs INIT $ibdev/ports/1/state && grep -qs INIT $ibdev/ports/2/state"
# leave it unloaded: the host reads the model's accounting after this unload
unload_all
expect "$t: final unload" sh -c "! lsmod | grep -Eq '^(mlx4_core|mlx4_ib|ib_core) '"
exit 0

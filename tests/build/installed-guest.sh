#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The VM step of tests/build/dkms.sh and deb.sh (tests/vm/run --sm, one
# node): the stack installed on the host, loaded and looked at the way a
# user would, then unloaded again:
#   tests/build/installed-guest.sh [--ulp DIR] [--refused MOD] [--loads MOD]
#                                  ours|inbox MODULE...
# ours: every MODULE loads with modprobe, modinfo -n names it under
#   /lib/modules/$KVER/updates/, and the loaded module is built out of tree
#   (the O in its taint);
# inbox: every MODULE the kernel has a module of resolves under
#   /lib/modules/$KVER/kernel/ (the kernel has none of some of ours, e.g.
#   ib_mad and ib_sa are part of its ib_core: modinfo finds nothing), and
#   the loaded one is the kernel's own (no O);
# both: mlx4_0 has ports 1 and 2 ACTIVE (when mlx4_ib is a MODULE);
# --refused MOD: "modprobe MOD" fails and MOD stays unloaded (the
#   modprobe.d policy of the package);
# --loads MOD: "modprobe MOD" loads it (one the policy refused while the
#   package was installed), and it unloads again;
# --ulp DIR: DIR/$KVER/ibstack_ulp_sample.ko, if there, loads (its init
#   sends one UD message to itself) and unloads.
# Prints an "ok: ..." line per check that holds, a "bad: ..." line per one
# that does not, and exits non-zero if one did not.  Ends with opensm
# stopped and every module of the stack unloaded.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/stack/guest/lib.sh
. tests/stack/guest/lib.sh

ulp_dir='' refused=() loads=()
while [ $# -gt 0 ]; do
	case "$1" in
	--ulp) ulp_dir=$2; shift 2 ;;
	--refused) refused+=("$2"); shift 2 ;;
	--loads) loads+=("$2"); shift 2 ;;
	*) break ;;
	esac
done
mode=${1:?usage: installed-guest.sh [--ulp DIR] [--refused MOD] [--loads MOD] ours|inbox MODULE...}
shift
mods=("$@")
rc=0
bad() { echo "bad: $*"; rc=1; }

for m in "${mods[@]}"; do
	f=$(modinfo -n "$m" 2>/dev/null)
	if [ "$mode" = ours ]; then
		modprobe "$m" || { bad "modprobe $m failed"; continue; }
		case "$f" in
		"/lib/modules/$KVER/updates/"*) ;;
		*) bad "$m comes from ${f:-nothing}, not updates/"; continue ;;
		esac
	else
		case "$f" in
		"") echo "ok: $m: the kernel has no module of that name"; continue ;;
		"/lib/modules/$KVER/kernel/"*) ;;
		*) bad "$m comes from $f, not the kernel's kernel/"; continue ;;
		esac
	fi
	if [ ! -d "/sys/module/$m" ]; then
		# the in-tree stack loads what its users need: not every module
		[ "$mode" = inbox ] && { echo "ok: $m: $f (not loaded)"; continue; }
		bad "$m is not loaded"
		continue
	fi
	t=$(cat "/sys/module/$m/taint" 2>/dev/null)
	case "$mode:$t" in
	ours:*O*) echo "ok: $m: $f, loaded, out of tree (taint $t)" ;;
	inbox:*O*) bad "$m: the loaded module is out of tree (taint $t), not the kernel's $f" ;;
	inbox:*) echo "ok: $m: $f, loaded, the kernel's own (taint '${t}')" ;;
	*) bad "$m: the loaded module is not out of tree (taint '${t}'), not ours" ;;
	esac
done

case " ${mods[*]} " in
*" mlx4_ib "*)
	if [ ! -e "$ibdev" ]; then
		bad "no mlx4_0"
	elif wait_for 30 both_active; then
		echo "ok: mlx4_0: ports 1 and 2 ACTIVE"
	else
		bad "mlx4_0: port 1 $(port_state 1), port 2 $(port_state 2), not both ACTIVE"
	fi
	;;
esac

for m in "${refused[@]}"; do
	if modprobe "$m" 2>/dev/null; then
		bad "modprobe $m worked: the modprobe.d policy does not refuse it"
	elif [ -d "/sys/module/$m" ]; then
		bad "modprobe $m failed, but $m is loaded"
	else
		echo "ok: modprobe $m refused"
	fi
done
for m in "${loads[@]}"; do
	if ! modprobe "$m"; then
		bad "modprobe $m failed"
	elif [ ! -d "/sys/module/$m" ]; then
		bad "modprobe $m succeeded, but $m is not loaded"
	else
		echo "ok: modprobe $m loads it"
		modprobe -r "$m" || bad "modprobe -r $m failed"
	fi
done

ulp=${ulp_dir:+$ulp_dir/$KVER/ibstack_ulp_sample.ko}
if [ -n "$ulp" ] && [ -f "$ulp" ]; then
	if insmod "$ulp"; then
		echo "ulp-sample: loaded"
		rmmod ibstack_ulp_sample || bad "rmmod ibstack_ulp_sample failed"
	else
		bad "ulp-sample: insmod failed"
	fi
	dmesg | grep ibstack_ulp_sample
fi
lsmod

# opensm (tests/vm/run --sm) holds ib_umad: stop it first
sm_stop || bad "opensm does not stop"
# users first, in rounds (mods_unload), the kernel's names and ours
mods_unload ib_ipoib rdma_ucm rdma_cm iw_cm ib_umad ib_uverbs mlx4_en mlx4_ib ib_cm \
	"${mods[@]}" mlx4_core ib_core || bad "the stack does not unload: $(lsmod | tr '\n' ' ')"
exit $rc

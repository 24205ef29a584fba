# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# What the CM test's guest scripts share (sourced after the stack's lib.sh).

# kcm_ko: the test module for the running kernel (KCM_KO, then the build
# directory of this release)
kcm_ko() {
	local f b
	b=$(make -s -C "$stack_top" print-builddir KVER="$KVER" 2>/dev/null) || b=
	for f in ${KCM_KO:-} ${b:+"$b/tests/kcm/ibstack_kcm.ko"}; do
		[ -f "$f" ] || continue
		[ "$(modinfo -F vermagic "$f" 2>/dev/null | cut -d' ' -f1)" = "$KVER" ] || continue
		echo "$f"
		return 0
	done
	return 1
}

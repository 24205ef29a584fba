#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Negative tests of the shadow guard (our headers, which have upstream's
# names, never meet the kernel's InfiniBand headers), on a throwaway module
# in a scratch copy of the build infrastructure:
#   - control: an object including <rdma/ib_verbs.h>, <rdma/ib_user_mad.h>
#     and <ibstack/compat.h> builds, passes scripts/shadow-check.sh, and its
#     dependency list names our copies in the build directory;
#   - kernel first: the kernel's <rdma/ib_user_sa.h> (a uapi header we do
#     not provide) BEFORE one of ours: the compile stops at
#     include/ibstack/no_kernel_ib.h's #error naming it; the same for the
#     kernel's <linux/mlx4/device.h>;
#   - kernel after: <rdma/ib_user_sa.h> AFTER one of ours: it compiles, and
#     shadow-check.sh fails the build naming include/uapi/rdma/ib_user_sa.h;
#     with --allow of the kernel's include directory it passes (the option
#     a ULP's check uses for an installed copy of our headers);
#   - a module directory adding "ccflags-y += -I$(srctree)/include" still
#     gets our <rdma/ib_verbs.h> (NOSTDINC_FLAGS comes first).
# Prints PASS/FAIL lines.
#   tests/build/shadow.sh [RELEASE...]   (default: the releases check.sh uses)
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
releases=("$@")
if [ ${#releases[@]} = 0 ]; then
	for s in 6.1 6.12; do
		r=$("$top/tests/setup/kernels.sh" version "$s" 2>/dev/null) && releases+=("$r")
	done
fi
[ ${#releases[@]} -gt 0 ] || { echo "FAIL shadow: no kernel installed (make setup)"; exit 1; }

tmp=$(mktemp -d /tmp/ibstack-shadow.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
cp -a "$top/Makefile" "$top/Kbuild" "$top/VERSION" "$top/scripts" "$top/include" "$tmp/"
mkdir -p "$tmp/core"

# ours_in_cmd REL HEADER...: every HEADER (a path under include/) is in the
# object's dependency list as the build directory's copy
ours_in_cmd() {
	local rel=$1 h
	shift
	for h in "$@"; do
		grep -q -F "$tmp/build/$rel/include/$h" "$tmp/build/$rel/core/.ibstack_shadow.o.cmd" ||
			return 1
	done
}

# one_case NAME RELEASE EXPECT(ok|error|shadow) WHAT SOURCE [KBUILD_LINE]
#   ok: builds and passes, WHAT = our headers its .cmd must name;
#   error: the compile stops, WHAT = the kernel header no_kernel_ib.h names;
#   shadow: compiles, shadow-check fails, WHAT = the kernel header it names.
one_case() {
	local name=$1 rel=$2 expect=$3 what=$4 src=$5 kline=${6:-} log=$tmp/$1-$2.log rc
	printf '# SPDX-License-Identifier: GPL-2.0\nobj-m := ibstack_shadow.o\n%s\n' "$kline" \
		>"$tmp/core/Kbuild"
	printf '%s\n' "$src" >"$tmp/core/ibstack_shadow.c"
	rm -rf "$tmp/build/$rel/core" # (the probes stay: they do not change)
	make -s -C "$tmp" modules KVER="$rel" BUILD_ROOT="$tmp/build" >"$log" 2>&1
	rc=$?
	case "$expect" in
	ok)
		# shellcheck disable=SC2086 # (WHAT: a list)
		if [ "$rc" = 0 ] && [ -f "$tmp/build/$rel/core/ibstack_shadow.ko" ] &&
		   ours_in_cmd "$rel" $what; then
			echo "PASS shadow $name ($rel): builds with our $what and passes the shadow check"
			return 0
		fi ;;
	error)
		if [ "$rc" != 0 ] &&
		   grep -q -F "error: #error \"ibstack: kernel header <$what> included" "$log"; then
			echo "PASS shadow $name ($rel): no_kernel_ib.h stops the compile at the kernel's <$what>"
			return 0
		fi ;;
	shadow)
		if [ "$rc" != 0 ] && [ -f "$tmp/build/$rel/core/ibstack_shadow.o" ] &&
		   grep -q "shadow-check: ERROR: core/ibstack_shadow.o depends on the kernel.s .*include/$what\$" "$log"; then
			echo "PASS shadow $name ($rel): shadow-check.sh fails the build naming the kernel's include/$what"
			return 0
		fi ;;
	esac
	echo "FAIL shadow $name ($rel): expected '$expect' ($what), make exited $rc; last lines:"
	tail -n 15 "$log" | sed 's/^/    /'
	return 1
}

hdr='// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>'
tail='MODULE_LICENSE("GPL");'
for rel in "${releases[@]}"; do
	one_case control "$rel" ok "rdma/ib_verbs.h uapi/rdma/ib_user_mad.h ibstack/compat.h" "$hdr
#include <rdma/ib_verbs.h>
#include <rdma/ib_user_mad.h>
#include <ibstack/compat.h>
$tail"
	one_case kernel-first "$rel" error rdma/ib_user_sa.h "$hdr
#include <rdma/ib_user_sa.h>
#include <rdma/ib_verbs.h>
$tail"
	one_case kernel-mlx4-first "$rel" error linux/mlx4/device.h "$hdr
#include <linux/mlx4/device.h>
#include <rdma/ib_verbs.h>
$tail"
	if one_case kernel-after "$rel" shadow uapi/rdma/ib_user_sa.h "$hdr
#include <rdma/ib_verbs.h>
#include <rdma/ib_user_sa.h>
$tail"; then
		# the same object, with the kernel's include directory allowed
		h=$(grep -o -m1 '[^ ]*/include/uapi/rdma/ib_user_sa\.h' "$tmp/kernel-after-$rel.log")
		kinc=${h%/uapi/rdma/ib_user_sa.h}
		if out=$("$top/scripts/shadow-check.sh" --allow "$kinc" "$tmp/build/$rel" core 2>&1); then
			echo "PASS shadow allow ($rel): shadow-check.sh --allow $kinc accepts it"
		else
			echo "FAIL shadow allow ($rel): shadow-check.sh --allow $kinc: $out"
		fi
	fi
	# shellcheck disable=SC2016 # (a make variable, for the Kbuild)
	one_case kernel-ccflags "$rel" ok rdma/ib_verbs.h "$hdr
#include <rdma/ib_verbs.h>
$tail" 'ccflags-y += -I$(srctree)/include -I$(srctree)/include/uapi'
done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Negative tests of the shadow guard (our headers never meet the kernel's
# InfiniBand headers), on a throwaway module in a scratch copy of the build
# infrastructure:
#   - control: an object including only <ibstack/compat.h> builds and passes;
#   - kernel's <rdma/ib_verbs.h> BEFORE an ibstack header: the compile stops
#     at include/ibstack/no_kernel_ib.h's #error;
#   - kernel's <rdma/ib_verbs.h> AFTER an ibstack header: it compiles, and
#     scripts/shadow-check.sh fails the build reading the dependency list.
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
printf '# SPDX-License-Identifier: GPL-2.0\nobj-m := ibstack_shadow.o\n' >"$tmp/core/Kbuild"

# one_case NAME RELEASE EXPECT(ok|error|shadow) SOURCE
one_case() {
	local name=$1 rel=$2 expect=$3 src=$4 log=$tmp/$1-$2.log rc
	printf '%s\n' "$src" >"$tmp/core/ibstack_shadow.c"
	rm -rf "$tmp/build/$rel/core" # (the probes stay: they do not change)
	make -s -C "$tmp" modules KVER="$rel" BUILD_ROOT="$tmp/build" >"$log" 2>&1
	rc=$?
	case "$expect" in
	ok)
		if [ "$rc" = 0 ] && [ -f "$tmp/build/$rel/core/ibstack_shadow.ko" ]; then
			echo "PASS shadow $name ($rel): builds and passes the shadow check"
			return
		fi ;;
	error)
		if [ "$rc" != 0 ] && grep -q 'error: #error "ibstack: kernel header <rdma/ib_verbs.h> included' "$log"; then
			echo "PASS shadow $name ($rel): no_kernel_ib.h stops the compile"
			return
		fi ;;
	shadow)
		if [ "$rc" != 0 ] && [ -f "$tmp/build/$rel/core/ibstack_shadow.o" ] &&
		   grep -q 'shadow-check: ERROR: core/ibstack_shadow.o depends on the kernel.s .*include/rdma/ib_verbs.h' "$log"; then
			echo "PASS shadow $name ($rel): shadow-check.sh fails the build"
			return
		fi ;;
	esac
	echo "FAIL shadow $name ($rel): expected '$expect', make exited $rc; last lines:"
	tail -n 15 "$log" | sed 's/^/    /'
}

hdr='// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>'
tail='MODULE_LICENSE("GPL");'
for rel in "${releases[@]}"; do
	one_case control "$rel" ok "$hdr
#include <ibstack/compat.h>
$tail"
	one_case kernel-first "$rel" error "$hdr
#include <rdma/ib_verbs.h>
#include <ibstack/compat.h>
$tail"
	one_case kernel-after "$rel" shadow "$hdr
#include <ibstack/compat.h>
#include <rdma/ib_verbs.h>
$tail"
done

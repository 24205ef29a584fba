#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The development tree, as a third-party ULP uses it (docs/kernel-api.md
# section 5), for each RELEASE given (host kernels; tests/build/check.sh):
#   - make install-devel writes it into build/<release>/devel-root/;
#   - tests/ulp-sample is built there by kbuild with the README's recipe
#     (its Kbuild includes the tree's ibstack.mk), W=1: no warning;
#   - the tree's ibstack-ulp-check.sh passes on it: only our headers in the
#     objects' dependency lists, every InfiniBand import with our CRC;
#   - and that checker fails (its own tests) when our Module.symvers lacks
#     one of the sample's imports (modpost would have let it fall through to
#     the kernel's ib_core) and when an object's dependency list names a
#     kernel InfiniBand header.
# Prints PASS/FAIL lines "ulp <release>: ...".
#   tests/build/ulp.sh RELEASE...
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
for rel in "$@"; do
	kdir=/lib/modules/$rel/build
	b=$top/build/$rel
	root=$b/devel-root
	devel=$root/usr/src/ibstack-cx3/$rel
	m=$b/ulp-sample
	log=$b/ulp-sample.log
	fail() { echo "FAIL ulp $rel: $*"; }
	mkdir -p "$b"
	if ! make -s -C "$top" install-devel KVER="$rel" DESTDIR="$root" >"$log" 2>&1; then
		fail "make install-devel failed (log: $log):"
		tail -n 15 "$log" | sed 's/^/    /'
		continue
	fi
	missing=()
	for f in include/rdma/ib_verbs.h include/uapi/rdma/ib_user_mad.h \
		include/ibstack/no_kernel_ib.h Module.symvers ibstack.mk \
		ibstack-ulp-check.sh shadow-check.sh VERSION; do
		[ -s "$devel/$f" ] || missing+=("$f")
	done
	if grep -q -E '(^|/)tests/' "$devel/Module.symvers"; then
		missing+=("(Module.symvers names a test module)")
	fi
	if [ ${#missing[@]} -gt 0 ]; then
		fail "the installed tree lacks: ${missing[*]}"
		continue
	fi
	echo "PASS ulp $rel: make install-devel wrote $(grep -c . "$devel/Module.symvers") exports of ours and the recipe"
	rm -rf "$m"
	mkdir -p "$m"
	cp "$top"/tests/ulp-sample/{Kbuild,*.c} "$m/"
	if ! make -C "$kdir" M="$m" IBSTACK="$devel" W=1 modules >>"$log" 2>&1; then
		fail "the sample does not build against the tree (log: $log):"
		grep -E 'error|Error' "$log" | head -n 15 | sed 's/^/    /'
		continue
	fi
	warn=$(grep -E ': (warning|error): |^WARNING: |^ERROR: ' "$log" || true)
	if [ -n "$warn" ]; then
		fail "$(grep -c . <<<"$warn") warnings building the sample (log: $log):"
		head -n 15 <<<"$warn" | sed 's/^/    /'
		continue
	fi
	echo "PASS ulp $rel: tests/ulp-sample builds against the installed tree (recipe, W=1, no warning)"
	if out=$("$devel/ibstack-ulp-check.sh" "$m" 2>&1); then
		echo "PASS ulp $rel: ibstack-ulp-check.sh: $(tail -n 1 <<<"$out" | sed 's/^ibstack-ulp-check: //')"
	else
		fail "ibstack-ulp-check.sh on the sample:"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
	# The checker's own tests: a fall-through and a kernel header must fail.
	tmp=$(mktemp -d /tmp/ibstack-ulp.XXXXXX)
	grep -v -P '\tib_register_client\t' "$devel/Module.symvers" >"$tmp/Module.symvers"
	out=$("$devel/ibstack-ulp-check.sh" --symvers "$tmp/Module.symvers" "$m" 2>&1)
	if [ $? = 1 ] && grep -q "imports ib_register_client from the kernel's drivers/infiniband/core/ib_core" <<<"$out"; then
		echo "PASS ulp $rel: the check fails when ib_register_client would resolve to the kernel's ib_core"
	else
		fail "the check missed an import our Module.symvers lacks (ib_register_client):"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
	cp -r "$m" "$tmp/m"
	cmd=$(find "$tmp/m" -name '.ulp_sample.o.cmd' | head -n 1)
	echo "  $kdir/include/rdma/ib_verbs.h \\" >>"$cmd"
	out=$("$devel/ibstack-ulp-check.sh" "$tmp/m" 2>&1)
	if [ $? = 1 ] && grep -q "depends on the kernel's $kdir/include/rdma/ib_verbs.h" <<<"$out"; then
		echo "PASS ulp $rel: the check fails when an object depends on a kernel InfiniBand header"
	else
		fail "the check missed a kernel header in ulp_sample.o's dependencies:"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
	rm -rf "$tmp"
done

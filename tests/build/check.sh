#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build checks of our modules (tests/run-checks runs this before the VM
# tests; "make build-check" alone).  Prints PASS/FAIL lines:
#   - for each target kernel (5.10, 6.1, 6.12, 6.12-trixie, 7.2, 7.3; those
#     of other Debian releases in their build environments, envs.sh), and
#     the debug kernel (whose KASAN and lockdep make stack frames grow): a
#     full build of every module
#     directory that has a Kbuild, with W=1 and sparse (C=2) in one go, in
#     the normal build/<release>/ (make modules FRESH=1: the VM tests after
#     it find everything built); no compiler or modpost warning, no sparse
#     warning;
#   - the shadow guard's negative tests (tests/build/shadow.sh);
#   - the development tree of each host kernel, and tests/ulp-sample built
#     against it and checked (tests/build/ulp.sh);
#   - our API against 6.1's: exported names and constant values
#     (tests/build/api.sh);
#   - our user ABI headers against rdma-core's: every struct's size and
#     member offsets (tests/build/uapi.sh);
#   - checkpatch --strict over our module sources and headers;
#   - the rules of the tree: kernel version tests only in
#     include/ibstack/compat.h; include/ holds only rdma/, uapi/rdma/ and
#     ibstack/ (our headers under upstream's names, and the project's); every
#     header there includes <ibstack/no_kernel_ib.h> first and has an
#     IBSTACK_* guard (IBSTACK_RDMA_IB_VERBS_H for rdma/ib_verbs.h, ...);
#     none under rdma/ or uapi/rdma/ includes <ibstack/compat.h> or
#     <ibstack-probes.h> (they are the same for every kernel).
# Module directories that do not exist yet are skipped (not a failure).
#   tests/build/check.sh [--no-shadow] [--no-checkpatch] [RELEASE...]
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
do_shadow=1 do_checkpatch=1
while [ $# -gt 0 ]; do
	case "$1" in
	--no-shadow) do_shadow=0; shift ;;
	--no-checkpatch) do_checkpatch=0; shift ;;
	-h | --help) sed -n '3,26p' "$0"; exit 0 ;;
	*) break ;;
	esac
done
releases=("$@")
if [ ${#releases[@]} = 0 ]; then
	for s in ${BUILD_SERIES:-5.10 6.1 6.12 6.12-trixie 7.2 7.3 6.1-debug}; do
		if r=$("$top/tests/setup/envs.sh" release "$s" 2>/dev/null); then
			releases+=("$r")
		else
			echo "FAIL build $s: no installed $s kernel with its headers (make setup)"
		fi
	done
fi

note() { echo "build-check: $*"; }
t_start=$SECONDS
buildroot=$top/build
dirs=$(make -s -C "$top" print-modules WITH_TESTS=1 KVER=none)
# shellcheck disable=SC2086
set -- $dirs
if [ $# = 0 ]; then
	note "no module directory has a Kbuild yet: no module build to check"
else
	note "module directories: $dirs"
fi

# --- W=1 and sparse builds -------------------------------------------------
if [ -n "$dirs" ]; then
	for rel in "${releases[@]}"; do
		kroot=$("$top/tests/setup/envs.sh" root "$rel" 2>/dev/null) || kroot=/
		if [ ! -f "/lib/modules/$rel/build/Makefile" ] &&
		   [ ! -f "${kroot%/}/usr/src/linux-headers-$rel/Makefile" ] &&
		   [ ! -f "${kroot%/}/lib/modules/$rel/build/Makefile" ]; then
			echo "FAIL build $rel: no kernel build tree (headers not installed in $kroot)"
			continue
		fi
		log=$buildroot/check-$rel.log
		mkdir -p "$buildroot"
		t0=$SECONDS
		make -C "$top" modules KVER="$rel" FRESH=1 W=1 C=2 \
			CHECK="$top/scripts/sparse-tagged.sh" >"$log" 2>&1
		rc=$?
		secs=$((SECONDS - t0))
		# Compiler diagnostics and modpost warnings (not sparse's, tagged).
		cc_warn=$(grep -v '^sparse: ' "$log" | grep -E ': (warning|error): |^WARNING: |^ERROR: ' || true)
		sp_warn=$(grep '^sparse: ' "$log" | sed 's/^sparse: //' || true)
		if [ "$rc" != 0 ]; then
			echo "FAIL build $rel: make modules W=1 C=2 failed (log: $log); last lines:"
			tail -n 25 "$log" | sed 's/^/    /'
			continue
		fi
		missing=()
		for d in $dirs; do
			ls "$buildroot/$rel/$d"/*.ko >/dev/null 2>&1 || missing+=("$d")
		done
		if [ ${#missing[@]} -gt 0 ]; then
			echo "FAIL build $rel: no *.ko in ${missing[*]} (log: $log)"
		else
			echo "PASS build $rel: $dirs (W=1, C=2: ${secs}s)"
		fi
		if [ -n "$cc_warn" ]; then
			echo "FAIL W=1 $rel: $(grep -c . <<<"$cc_warn") compiler/modpost warnings (log: $log):"
			head -n 40 <<<"$cc_warn" | sed "s|$buildroot/$rel/||g; s/^/    /"
		else
			echo "PASS W=1 $rel: no compiler or modpost warning"
		fi
		if [ -n "$sp_warn" ]; then
			echo "FAIL sparse $rel: $(grep -c . <<<"$sp_warn") sparse lines (log: $log):"
			head -n 40 <<<"$sp_warn" | sed "s|$buildroot/$rel/||g; s/^/    /"
		else
			echo "PASS sparse $rel: no sparse warning"
		fi
	done
fi

# the host's kernels (the guard and the development tree are the same code
# for every kernel)
host_rels=()
for rel in "${releases[@]}"; do
	[ -f "/lib/modules/$rel/build/Makefile" ] && host_rels+=("$rel")
done

# --- the shadow guard's negative tests ----------------------------------------
if [ "$do_shadow" = 1 ]; then
	t0=$SECONDS
	"$top/tests/build/shadow.sh" "${host_rels[@]}"
	note "shadow tests took $((SECONDS - t0))s"
fi

# --- the development tree, and a ULP built against it ---------------------------
if [ -n "$dirs" ]; then
	t0=$SECONDS
	"$top/tests/build/ulp.sh" "${host_rels[@]}"
	note "ulp tests took $((SECONDS - t0))s"
fi

# --- our API against 6.1's: names and values (on the 6.1 build) -------------------
if [ -n "$dirs" ]; then
	"$top/tests/build/api.sh"
fi

# --- our user ABI headers against rdma-core's: sizes and offsets ---------------------
"$top/tests/build/uapi.sh"

# --- our sources: files to look at --------------------------------------------
srcs=()
[ -d "$top/include" ] &&
	mapfile -t -O "${#srcs[@]}" srcs < <(find "$top/include" -name '*.h' | LC_ALL=C sort)
for d in $dirs; do
	mapfile -t -O "${#srcs[@]}" srcs < <(find "$top/$d" \( -name '*.c' -o -name '*.h' \) \
		! -name '*.mod.c' | LC_ALL=C sort)
done

# --- checkpatch --strict ---------------------------------------------------------
# Two groups at a time (two cores); results printed in order.
if [ "$do_checkpatch" = 1 ]; then
	t0=$SECONDS
	cpdir=$(mktemp -d /tmp/ibstack-checkpatch.XXXXXX)
	groups=()
	for g in include scripts/compat-probes tests/ulp-sample $dirs; do
		[ -d "$top/$g" ] && groups+=("$g")
	done
	running=0
	for i in "${!groups[@]}"; do
		g=${groups[i]}
		(
			mapfile -t files < <(cd "$top" && find "$g" \( -name '*.c' -o -name '*.h' \) \
				! -name '*.mod.c' | LC_ALL=C sort)
			[ ${#files[@]} -gt 0 ] || exit 0
			if out=$(cd "$top" && scripts/checkpatch.sh "${files[@]}" 2>&1); then
				echo "PASS checkpatch $g: ${#files[@]} files clean (--strict)"
			else
				echo "FAIL checkpatch $g: $(grep -c . <<<"$out") findings (--strict):"
				head -n 40 <<<"$out" | sed 's/^/    /'
			fi
		) >"$cpdir/$i" 2>&1 &
		running=$((running + 1))
		if [ "$running" -ge 2 ]; then
			wait -n
			running=$((running - 1))
		fi
	done
	wait
	for i in "${!groups[@]}"; do cat "$cpdir/$i"; done
	rm -rf "$cpdir"
	note "checkpatch took $((SECONDS - t0))s"
fi

# --- rules of the source tree ------------------------------------------------------
if [ ${#srcs[@]} -gt 0 ]; then
	vtests=$(grep -n -E '\b(LINUX_VERSION_CODE|KERNEL_VERSION|LINUX_VERSION_MAJOR|LINUX_VERSION_PATCHLEVEL)\b' \
		"${srcs[@]}" | grep -v "^$top/include/ibstack/compat.h:" || true)
	if [ -n "$vtests" ]; then
		echo "FAIL compat: kernel version tests outside include/ibstack/compat.h (add a probe there):"
		sed "s|^$top/||; s/^/    /" <<<"$vtests" | head -n 20
	else
		echo "PASS compat: no kernel version test outside include/ibstack/compat.h"
	fi
	# the headers: nothing under include/ but rdma/, uapi/rdma/, ibstack/
	stray=$(cd "$top" && find include ! -type d ! -path 'include/rdma/*' \
		! -path 'include/uapi/rdma/*' ! -path 'include/ibstack/*' | LC_ALL=C sort)
	if [ -n "$stray" ]; then
		echo "FAIL include layout: only include/rdma, include/uapi/rdma and include/ibstack" \
			"(anything else would shadow a kernel header): ${stray//$'\n'/ }"
	else
		echo "PASS include layout: include/ holds only rdma/, uapi/rdma/ and ibstack/"
	fi
	bad=() badguard=() badinc=()
	while IFS= read -r rel; do
		h=$top/$rel
		[ "$rel" = include/ibstack/no_kernel_ib.h ] && continue
		first=$(grep -m1 -E '^[[:space:]]*#[[:space:]]*include' "$h" || true)
		[[ "$first" =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\<ibstack/no_kernel_ib\.h\> ]] ||
			bad+=("$rel")
		g=$(awk '/^[ \t]*#[ \t]*ifndef[ \t]+/ { print $2; exit }' "$h")
		case "$rel" in
		include/ibstack/*) want='IBSTACK_*' ;;
		*)
			want=${rel#include/}
			want=IBSTACK_$(tr 'a-z/.-' 'A-Z___' <<<"$want") ;;
		esac
		# shellcheck disable=SC2053 # (want may be a pattern)
		if [[ "$g" != $want ]] || ! grep -q -E "^[[:space:]]*#[[:space:]]*define[[:space:]]+$g([[:space:]]|$)" "$h"; then
			badguard+=("$rel (${g:-no guard}, want $want)")
		fi
		case "$rel" in
		include/ibstack/*) ;;
		*) grep -q -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(ibstack/compat\.h|ibstack-probes\.h)>' "$h" &&
			badinc+=("$rel") ;;
		esac
	done < <(cd "$top" && find include -name '*.h' | LC_ALL=C sort)
	if [ ${#bad[@]} -gt 0 ]; then
		echo "FAIL shadow includes: these headers do not include <ibstack/no_kernel_ib.h> first: ${bad[*]}"
	else
		echo "PASS shadow includes: every header under include/ includes <ibstack/no_kernel_ib.h> first"
	fi
	if [ ${#badguard[@]} -gt 0 ]; then
		echo "FAIL include guards: never the kernel's names (no_kernel_ib.h tests those): ${badguard[*]}"
	else
		echo "PASS include guards: IBSTACK_* everywhere, IBSTACK_<PATH> under rdma/ and uapi/rdma/"
	fi
	if [ ${#badinc[@]} -gt 0 ]; then
		echo "FAIL neutral headers: these include <ibstack/compat.h> or <ibstack-probes.h>" \
			"(they must be the same for every kernel): ${badinc[*]}"
	else
		echo "PASS neutral headers: no rdma/ or uapi/rdma/ header includes compat.h or the probes"
	fi
fi

note "done in $((SECONDS - t_start))s"

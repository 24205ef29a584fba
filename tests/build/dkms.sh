#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The DKMS package, end to end, on this host (root):
#   - a clean copy of the tree (make dkms-src) is added to DKMS, built and
#     installed for both kernels (6.1 and 6.12);
#   - "modinfo -k <release> -n" of every module of the package names ours,
#     under /lib/modules/<release>/updates/;
#   - the development tree is in /usr/src/ibstack-cx3/<release>/ (dkms.conf's
#     POST_BUILD and POST_INSTALL), tests/ulp-sample builds against it (in
#     build/dkms-ulp/<release>/) and its ibstack-ulp-check.sh passes;
#   - a VM on each kernel (tests/vm/run --stack installed, with opensm;
#     tests/build/installed-guest.sh) loads the stack with modprobe from the
#     installed package, checks every module of ours is loaded from
#     updates/ and built out of tree (and mlx4_0 is there with both ports
#     ACTIVE if mlx4_ib is ours), loads the sample (its init sends one UD
#     message to itself and fails unless both completions are right),
#     unloads it and the stack again;
#   - dkms remove takes the development tree away again (POST_REMOVE);
#   - whatever happens, the package is removed again and depmod re-run (the
#     host's /lib/modules is what every later VM test boots with).
# Prints PASS/FAIL lines.  While it runs, other VM tests on this host would
# see our modules instead of the kernel's: do not run them concurrently.
#   [DKMS_SERIES="6.1 6.12"] tests/build/dkms.sh [--no-vm]
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
vm=1
[ "${1:-}" = --no-vm ] && vm=0
pkg=ibstack-cx3
ver=$(cat "$top/VERSION" 2>/dev/null || echo 0)
force_file=/usr/share/dkms/modules_to_force_install/$pkg

# shellcheck source=tests/build/dkms-lib.sh
. "$top/tests/build/dkms-lib.sh"

fail() { echo "FAIL dkms: $*"; }
if [ "$(id -u)" != 0 ]; then fail "must run as root"; exit 1; fi
if ! command -v dkms >/dev/null; then fail "no dkms (make setup installs it)"; exit 1; fi

series=() releases=()
# DKMS_SERIES: the kernels to build and boot for (default both)
for s in ${DKMS_SERIES:-6.1 6.12}; do
	if r=$("$top/tests/setup/kernels.sh" version "$s" 2>/dev/null); then
		series+=("$s")
		releases+=("$r")
	else
		fail "no installed $s kernel (make setup)"
	fi
done

dirs=$(make -s -C "$top" print-modules WITH_TESTS=0 KVER=none)
if [ -z "$dirs" ]; then
	fail "no module directory has a Kbuild yet: nothing to package"
	exit 1
fi

tmp=$(mktemp -d /tmp/ibstack-dkms.XXXXXX)
ulpdir=$top/build/dkms-ulp
made_force_file=0
cleanup() {
	local r
	dkms remove "$pkg/$ver" --all >"$tmp/remove.log" 2>&1
	rm -rf "/usr/src/$pkg-$ver" "/var/lib/dkms/$pkg"
	[ "$made_force_file" = 1 ] && rm -f "$force_file"
	for r in "${releases[@]}"; do
		"$top/scripts/devel-install.sh" uninstall "/usr/src/$pkg/$r" "$ver"
		rm -rf "/lib/modules/$r/updates/dkms"
		rmdir "/lib/modules/$r/updates" 2>/dev/null
		depmod -a "$r"
	done
	rm -rf "$tmp" "$ulpdir"
}
trap cleanup EXIT
trap 'echo "FAIL dkms: interrupted"; exit 130' INT TERM HUP

# A leftover of an earlier run (or an install of this version by hand).
if dkms status "$pkg/$ver" 2>/dev/null | grep -q .; then
	echo "dkms: removing an existing $pkg/$ver first"
	dkms remove "$pkg/$ver" --all >/dev/null 2>&1
	rm -rf "/usr/src/$pkg-$ver"
fi

# As "make install-extras" would: let our modules replace the kernel's.
if [ ! -e "$force_file" ]; then
	install -D -m 0644 "$top/packaging/dkms/modules_to_force_install-$pkg" "$force_file"
	made_force_file=1
fi

src=$tmp/$pkg-$ver
if ! make -s -C "$top" dkms-src DEST="$src" >"$tmp/src.log" 2>&1; then
	fail "make dkms-src failed: $(tail -n 5 "$tmp/src.log")"
	exit 1
fi
if ! dkms add "$src" >"$tmp/add.log" 2>&1; then
	fail "dkms add failed:"
	sed 's/^/    /' "$tmp/add.log"
	exit 1
fi
echo "PASS dkms add: $pkg/$ver ($dirs)"

# The package's module names, as dkms.conf computes them.
mapfile -t mods < <(bash -c '. "$1/dkms.conf"; printf "%s\n" "${BUILT_MODULE_NAME[@]}"' _ "/usr/src/$pkg-$ver")
if [ ${#mods[@]} = 0 ]; then
	fail "dkms.conf names no module (BUILT_MODULE_NAME) for $dirs"
	exit 1
fi

# ulp_check RELEASE: the development tree DKMS installed for RELEASE, and
# tests/ulp-sample built against it and checked (for the VM: ulp_ok[RELEASE])
declare -A ulp_ok=()
ulp_check() {
	local r=$1 d=/usr/src/$pkg/$1 m=$ulpdir/$1 f missing=() out
	for f in include/rdma/ib_verbs.h include/uapi/rdma/ib_user_mad.h Module.symvers \
		ibstack.mk ibstack-ulp-check.sh VERSION; do
		[ -s "$d/$f" ] || missing+=("$f")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		fail "devel $r: $d lacks ${missing[*]} after dkms install"
		return
	fi
	if [ "$(cat "$d/VERSION")" != "$ver" ]; then
		fail "devel $r: $d/VERSION says $(cat "$d/VERSION"), not $ver"
		return
	fi
	echo "PASS dkms devel $r: dkms install wrote $d ($(grep -c . "$d/Module.symvers") exports)"
	rm -rf "$m"
	mkdir -p "$m"
	cp "$top"/tests/ulp-sample/{Kbuild,*.c} "$m/"
	if ! make -C "/lib/modules/$r/build" M="$m" modules >"$tmp/ulp-$r.log" 2>&1; then
		fail "ulp $r: tests/ulp-sample does not build against $d:"
		grep -E 'error|Error' "$tmp/ulp-$r.log" | head -n 10 | sed 's/^/    /'
		return
	fi
	if out=$("$d/ibstack-ulp-check.sh" "$m" 2>&1); then
		echo "PASS dkms ulp $r: tests/ulp-sample built against $d (its Kbuild as is), ibstack-ulp-check.sh ok"
		ulp_ok[$r]=1
	else
		fail "ulp $r: ibstack-ulp-check.sh on the sample:"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
}

# Build for every kernel first, then install: the host's /lib/modules has
# our modules for as short a time as possible.
built=()
for i in "${!releases[@]}"; do
	r=${releases[i]}
	if ! dkms build "$pkg/$ver" -k "$r" >"$tmp/build-$r.log" 2>&1; then
		fail "build $r: dkms build failed; last lines:"
		tail -n 25 "$tmp/build-$r.log" | sed 's/^/    /'
		mk=/var/lib/dkms/$pkg/$ver/build/make.log
		[ -f "$mk" ] && grep -E 'error|Error' "$mk" | head -n 20 | sed 's/^/    make.log: /'
		continue
	fi
	echo "PASS dkms build $r"
	built+=("$i")
done

ok_rel=()
for i in "${built[@]}"; do
	r=${releases[i]}
	if ! dkms install "$pkg/$ver" -k "$r" >"$tmp/install-$r.log" 2>&1; then
		fail "install $r: dkms install failed; last lines:"
		tail -n 25 "$tmp/install-$r.log" | sed 's/^/    /'
		continue
	fi
	mapfile -t bad < <(not_ours "$r" "${mods[@]}")
	if [ ${#bad[@]} -gt 0 ]; then
		fail "install $r: not ours after dkms install: ${bad[*]}"
		grep -i -E 'will not replace|not newer|error' "$tmp/install-$r.log" | head -n 10 | sed 's/^/    /'
		continue
	fi
	echo "PASS dkms install $r: modinfo -n names ours for ${mods[*]} ($(modinfo -k "$r" -n "${mods[0]}"))"
	ok_rel+=("$i")
	ulp_check "$r"
done

if [ "$vm" = 1 ]; then
	# In the VM (tests/build/installed-guest.sh): load every module of ours
	# with modprobe (guest-init already loaded the stack's), check where
	# each came from, load the sample, unload them again.
	for i in "${ok_rel[@]}"; do
		r=${releases[i]}
		if "$top/tests/vm/run" --kernel "${series[i]}" --stack installed --sm --timeout 300 \
			-- tests/build/installed-guest.sh --ulp "$ulpdir" ours "${mods[@]}" \
			>"$tmp/vm-$r.log" 2>&1; then
			echo "PASS dkms vm $r: the installed stack loads with modprobe and unloads"
			if [ -n "${ulp_ok[$r]:-}" ]; then
				if grep -q 'ulp-sample: loaded' "$tmp/vm-$r.log" &&
				   grep -q 'UD send to itself .* completed and arrived' "$tmp/vm-$r.log"; then
					echo "PASS dkms ulp-load $r: the sample loads on the installed stack, its UD send to itself completes"
				else
					fail "ulp-load $r: the sample's lines are missing from the VM's output"
				fi
			fi
		else
			fail "vm $r: loading the installed stack failed; last lines:"
			tail -n 25 "$tmp/vm-$r.log" | sed 's/^/    /'
		fi
	done
fi

# POST_REMOVE: dkms remove takes each release's development tree away.
if dkms remove "$pkg/$ver" --all >"$tmp/remove-devel.log" 2>&1; then
	for i in "${ok_rel[@]}"; do
		r=${releases[i]}
		if [ -e "/usr/src/$pkg/$r" ]; then
			fail "devel removed $r: /usr/src/$pkg/$r is still there after dkms remove"
		else
			echo "PASS dkms devel removed $r: dkms remove took /usr/src/$pkg/$r away"
		fi
	done
else
	fail "dkms remove failed: $(tail -n 3 "$tmp/remove-devel.log" | tr '\n' ' ')"
fi

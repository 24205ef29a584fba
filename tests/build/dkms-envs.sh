#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The DKMS package in each other Debian release's build environment
# (tests/setup/envs.sh), as a user of that release would install it: a clean
# copy of the tree (make dkms-src) added to that release's DKMS, built with
# its compiler and installed for its kernels; modinfo then names ours under
# /lib/modules/<release>/updates/ for every module of the package; finally
# the package is removed again, and the root left as it was.  (Booting the
# installed package is tests/build/dkms.sh's, on the host's kernels.)
# Prints PASS/FAIL lines.
#   [DKMS_ENV_SERIES="5.10 6.12-trixie 7.2 7.3"] tests/build/dkms-envs.sh
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
envs=$top/tests/setup/envs.sh
pkg=ibstack-cx3
ver=$(cat "$top/VERSION" 2>/dev/null || echo 0)

fail() { echo "FAIL dkms env $1: $2"; }
[ "$(id -u)" = 0 ] || { echo "FAIL dkms env: must run as root"; exit 1; }

# One package install per root, for every series of it.
declare -A rels_of=()
roots=()
for s in ${DKMS_ENV_SERIES:-5.10 6.12-trixie 7.2 7.3}; do
	if ! r=$("$envs" release "$s" 2>/dev/null) || ! root=$("$envs" root "$s" 2>/dev/null); then
		fail "$s" "not installed (make setup)"
		continue
	fi
	[ -n "${rels_of[$root]:-}" ] || roots+=("$root")
	rels_of[$root]+="$r "
done

# In the root: add, build, install for each release, check modinfo, and
# remove whatever happens.  Its lines are PASS/FAIL lines already.
guest='set -u
pkg=$1 ver=$2 top=$3
shift 3
. "$top/tests/build/dkms-lib.sh"
force=/usr/share/dkms/modules_to_force_install/$pkg
src=/usr/src/$pkg-$ver
cleanup() {
	dkms remove "$pkg/$ver" --all >/dev/null 2>&1
	rm -rf "$src" "/var/lib/dkms/$pkg" "$force"
	for r in "$@"; do
		rm -rf "/lib/modules/$r/updates/dkms"
		rmdir "/lib/modules/$r/updates" 2>/dev/null
		depmod -a "$r"
	done
}
trap cleanup EXIT
rel=$(. /etc/os-release && echo "$VERSION_CODENAME")
install -D -m 0644 "$top/packaging/dkms/modules_to_force_install-$pkg" "$force"
if ! make -s -C "$top" dkms-src DEST="$src" >/tmp/dkms-src.log 2>&1; then
	echo "FAIL dkms env $rel: make dkms-src: $(tail -n 3 /tmp/dkms-src.log | tr "\n" " ")"
	exit 1
fi
if ! dkms add "$pkg/$ver" >/tmp/dkms-add.log 2>&1; then
	echo "FAIL dkms env $rel: dkms add: $(tail -n 3 /tmp/dkms-add.log | tr "\n" " ")"
	exit 1
fi
mapfile -t mods < <(bash -c ". $src/dkms.conf; printf \"%s\n\" \"\${BUILT_MODULE_NAME[@]}\"")
[ ${#mods[@]} -gt 0 ] || { echo "FAIL dkms env $rel: dkms.conf names no module"; exit 1; }
for r in "$@"; do
	if ! dkms build "$pkg/$ver" -k "$r" >"/tmp/dkms-build-$r.log" 2>&1; then
		echo "FAIL dkms env build $r: dkms build failed ($rel): $(grep -h -E "error" /var/lib/dkms/$pkg/$ver/build/make.log 2>/dev/null | head -n 3 | tr "\n" " ")"
		continue
	fi
	echo "PASS dkms env build $r (in $rel, $(gcc -dumpfullversion 2>/dev/null || gcc -dumpversion))"
	if ! dkms install "$pkg/$ver" -k "$r" >"/tmp/dkms-install-$r.log" 2>&1; then
		echo "FAIL dkms env install $r: dkms install failed: $(tail -n 3 "/tmp/dkms-install-$r.log" | tr "\n" " ")"
		continue
	fi
	mapfile -t bad < <(not_ours "$r" "${mods[@]}")
	if [ ${#bad[@]} = 0 ]; then
		echo "PASS dkms env install $r: modinfo -n names ours for ${mods[*]}"
	else
		echo "FAIL dkms env install $r: not ours after dkms install: ${bad[*]}"
	fi
done'

for root in "${roots[@]}"; do
	read -r -a rels <<<"${rels_of[$root]}"
	"$envs" run "$root" bash -c "$guest" dkms-env "$pkg" "$ver" "$top" "${rels[@]}"
	rc=$?
	[ "$rc" = 0 ] || echo "FAIL dkms env $root: exited $rc"
	left=$("$envs" run "$root" dkms status 2>/dev/null | grep "$pkg" || true)
	if [ -z "$left" ]; then
		echo "PASS dkms env removed from ${root##*/}: no $pkg left in its DKMS"
	else
		echo "FAIL dkms env removed from ${root##*/}: $left"
	fi
done

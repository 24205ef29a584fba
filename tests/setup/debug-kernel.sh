#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The test bed's debug kernel: Debian's linux-source-6.1 built with a small
# configuration (tests/setup/debug-kernel.config: what the VMs need, the
# in-tree InfiniBand modules, and lockdep, KASAN, kmemleak, debugobjects,
# UBSAN, list debugging and the fault-injection hooks).  Built once and
# cached under $CX3_CACHE/kernel-debug-KEY, KEY being the hash of the
# configuration, the recipe's version below, the source package's version
# and the compiler's; the tree stays there, built, for out-of-tree modules
# (lib/modules/RELEASE/build points at it), and is built by the host's
# compiler: the one bookworm builds its 6.1 kernels with.
#
#   debug-kernel.sh build     build it unless it is cached (idempotent)
#   debug-kernel.sh release   its kernel release (fails if not built)
#   debug-kernel.sh root      the root holding its /boot and /lib/modules
#   debug-kernel.sh key       the cache key of the current configuration
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${CX3_CACHE:-/var/cache/cx3-testbed}
fragment=$here/debug-kernel.config
tarball=/usr/src/linux-source-6.1.tar.xz
pkg=linux-source-6.1
tools=(flex bison bc libelf-dev libssl-dev)
# bump when the build steps below change what they produce
recipe=1

say() { printf 'debug-kernel: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

key() {
	{
		cat "$fragment"
		echo "recipe $recipe"
		dpkg-query -W -f '${Version}\n' "$pkg" 2>/dev/null || echo "no $pkg"
		gcc --version | head -n 1
	} | sha256sum | cut -c1-12
}

dir_of() { echo "$cache/kernel-debug-$(key)"; }

# release: the built kernel's release, once everything is in place
release() {
	local d rel
	d=$(dir_of)
	[ -f "$d/.done" ] || return 1
	rel=$(cat "$d/release")
	[ -f "$d/root/boot/vmlinuz-$rel" ] && [ -f "$d/root/lib/modules/$rel/modules.dep" ] &&
		[ -f "$d/root/lib/modules/$rel/build/Makefile" ] || return 1
	echo "$rel"
}

# check_config: every line of the fragment made it into .config
check_config() {
	local cfg=$1 line name bad=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qxF -- "$line" "$cfg" || { say "not in .config: $line ($(grep -E "^(# )?${line%%=*}[= ]" "$cfg" || echo absent))"; bad=1; }
			;;
		"# CONFIG_"*" is not set")
			name=${line#\# }
			name=${name%% *}
			if grep -q "^$name=" "$cfg"; then say "set in .config: $name"; bad=1; fi
			;;
		esac
	done <"$fragment"
	return $bad
}

build() {
	local d src root rel t0 jobs p missing
	if release >/dev/null; then
		return 0
	fi
	# the source, and what building a kernel takes beyond module builds
	missing=()
	for p in "$pkg" "${tools[@]}"; do
		dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -qx 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] || apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "installing ${missing[*]} failed"
	[ -f "$tarball" ] || die "installing $pkg failed"
	d=$(dir_of)
	src=$d/src
	root=$d/root
	jobs=$(nproc)
	t0=$SECONDS
	say "building Debian's $pkg ($(dpkg-query -W -f '${Version}' "$pkg")) with the debug configuration in $d (once: about 7 minutes on 2 cores)"
	rm -rf "$d"
	mkdir -p "$src" "$root/boot"
	tar -xf "$tarball" -C "$src" --strip-components=1
	make -C "$src" -s KCONFIG_ALLCONFIG="$fragment" allnoconfig >"$d/build.log" 2>&1 ||
		{ tail -n 20 "$d/build.log" >&2; die "allnoconfig failed (log: $d/build.log)"; }
	check_config "$src/.config" || die "the configuration does not hold ($fragment)"
	make -C "$src" -j"$jobs" bzImage modules >>"$d/build.log" 2>&1 ||
		{ tail -n 30 "$d/build.log" >&2; die "the build failed (log: $d/build.log)"; }
	rel=$(make -C "$src" -s kernelrelease)
	make -C "$src" INSTALL_MOD_PATH="$root" modules_install >>"$d/build.log" 2>&1 ||
		{ tail -n 20 "$d/build.log" >&2; die "modules_install failed (log: $d/build.log)"; }
	cp "$src/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$rel"
	cp "$src/.config" "$root/boot/config-$rel"
	cp "$src/System.map" "$root/boot/System.map-$rel"
	ln -sfn "$src" "$root/lib/modules/$rel/build"
	echo "$rel" >"$d/release"
	echo $((SECONDS - t0)) >"$d/build-seconds"
	touch "$d/.done"
	say "built $rel in $((SECONDS - t0)) s"
	# older configurations' builds are stale now
	for o in "$cache"/kernel-debug-*; do
		[ "$o" = "$d" ] || rm -rf "$o"
	done
}

case "${1:-}" in
build)
	[ "$(id -u)" = 0 ] || die "build must run as root (it writes $cache)"
	mkdir -p "$cache"
	exec 9>"$cache/.kernel-debug-lock"
	flock 9
	build
	;;
release) release || die "the debug kernel is not built (tests/setup/debug-kernel.sh build)" ;;
root)
	release >/dev/null || die "the debug kernel is not built (tests/setup/debug-kernel.sh build)"
	echo "$(dir_of)/root"
	;;
key) key ;;
*)
	echo "usage: $0 build | release | root | key" >&2
	exit 2
	;;
esac

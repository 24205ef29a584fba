#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build environments and guest kernels for the target kernels that are not
# the host's (the host is bookworm: 6.1, and 6.12 from bookworm-backports).
#
# A kernel's headers expect the compiler its release built it with, and
# their kbuild tools (fixdep, modpost...) are linked against that release's
# C library, so each release's kernels are built in that release: a
# debootstrap'ed root per release under $CX3_CACHE/env-SUITE, holding the
# compiler, sparse, dkms, and the image, modules and headers of its
# kernels.  The test bed boots those images with their modules (the guest's
# user space stays the host's); the top-level Makefile builds our modules
# for them inside the release's root (envs.sh run).
#
#   envs.sh install [SERIES...]  make the roots and install the kernels
#                                (default: every series below; idempotent)
#   envs.sh release SERIES       the kernel release of SERIES
#   envs.sh root SERIES|RELEASE  the root holding its /boot and /lib/modules
#                                ("/" for the host's kernels)
#   envs.sh run ROOT CMD...      run CMD as root in ROOT (a root of ours),
#                                with this repository and ../shared at the
#                                same paths as here; exits with CMD's status
#   envs.sh list                 SERIES SUITE RELEASE ROOT, one per line
#
# The series 6.1-debug is the test bed's debug kernel (debug-kernel.sh): a
# root with its /boot and /lib/modules only, built on the host and built
# for with the host's compiler (no chroot).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${CX3_CACHE:-/var/cache/cx3-testbed}
mirror=http://deb.debian.org/debian
security=http://deb.debian.org/debian-security

# SERIES -> "ROOT-SUITE KERNEL-SUITE": the release whose root builds it, and
# the suite (of that release) its kernel comes from.  6.1 and 6.12 are the
# host's (tests/setup/kernels.sh).
declare -A series_of=(
	[5.10]="bullseye bullseye-security"
	[6.12-trixie]="trixie trixie"
	[7.3]="trixie trixie-backports"
	[7.2]="sid sid"
)
all_series=(5.10 6.12-trixie 7.3 7.2)
host_series=(6.1 6.12)

say() { printf 'envs: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

is_host_series() {
	local s
	for s in "${host_series[@]}"; do [ "$s" = "$1" ] && return 0; done
	return 1
}

root_of_suite() { echo "$cache/env-$1"; }

# The apt sources of a root: its release with updates and security, and
# for trixie its backports.
sources_of() {
	local suite=$1
	case "$suite" in
	sid)
		echo "deb $mirror sid main"
		;;
	bullseye)
		echo "deb $mirror bullseye main"
		echo "deb $mirror bullseye-updates main"
		echo "deb $security bullseye-security main"
		;;
	*)
		echo "deb $mirror $suite main"
		echo "deb $mirror $suite-updates main"
		echo "deb $security $suite-security main"
		echo "deb $mirror $suite-backports main"
		;;
	esac
}

# run ROOT CMD...: CMD in ROOT, in a private mount namespace (nothing stays
# mounted when it ends) with /proc, /dev, the repository and ../shared.
run_in() {
	local root=$1
	shift
	[ -x "$root/bin/sh" ] || die "no build environment at $root (tests/setup/envs.sh install)"
	local shared
	shared=$(cd "$top/.." && pwd)/shared
	unshare --mount --propagation private -- /bin/bash -euc '
		root=$1 top=$2 shared=$3
		shift 3
		mount -t proc proc "$root/proc"
		mount --rbind /dev "$root/dev"
		mkdir -p "$root$top"
		mount --bind "$top" "$root$top"
		if [ -d "$shared" ]; then
			mkdir -p "$root$shared"
			mount --bind "$shared" "$root$shared"
		fi
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	' run-in "$root" "$top" "$shared" "$@"
}

# make_root SUITE: debootstrap it (once), with its apt sources and the
# tools our builds use.  update-initramfs is a no-op in it: the test bed
# makes its own initramfs, and the roots need none.
make_root() {
	local suite=$1 root tmp
	root=$(root_of_suite "$suite")
	if [ -f "$root/.cx3-root-done" ]; then
		return 0
	fi
	command -v debootstrap >/dev/null ||
		apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
	say "making the $suite build environment in $root (debootstrap)"
	tmp=$root.tmp
	rm -rf "$tmp"
	mkdir -p "$cache"
	debootstrap --variant=minbase "$suite" "$tmp" "$mirror" >"$cache/env-$suite.log" 2>&1 ||
		{ tail -n 20 "$cache/env-$suite.log" >&2; die "debootstrap $suite failed (log: $cache/env-$suite.log)"; }
	sources_of "$suite" >"$tmp/etc/apt/sources.list"
	# no recommends; and a Release file past its Valid-Until date (sid's,
	# when the archive reached is a snapshot) is still used
	printf '%s\n' 'APT::Install-Recommends "false";' 'Acquire::Check-Valid-Until "false";' \
		>"$tmp/etc/apt/apt.conf.d/90cx3"
	run_in "$tmp" dpkg-divert --local --rename --add /usr/sbin/update-initramfs >/dev/null
	ln -sf /bin/true "$tmp/usr/sbin/update-initramfs"
	run_in "$tmp" apt-get update -qq >>"$cache/env-$suite.log" 2>&1 ||
		die "apt-get update in $suite failed (log: $cache/env-$suite.log)"
	run_in "$tmp" apt-get install -y -qq build-essential bc kmod sparse dkms \
		flex bison libelf-dev libssl-dev python3 rsync xz-utils zstd \
		>>"$cache/env-$suite.log" 2>&1 ||
		die "installing the build tools in $suite failed (log: $cache/env-$suite.log)"
	touch "$tmp/.cx3-root-done"
	rm -rf "$root"
	mv "$tmp" "$root"
}

# newest_image ROOT SUITE SERIES: the newest versioned stock image package
# of the series in the suite (linux-image-SERIES.N...-amd64; not rt,
# cloud, dbg or unsigned)
newest_image() {
	local root=$1 suite=$2 series=${3%-*}
	run_in "$root" apt-cache -o APT::Default-Release="$suite" search --names-only \
		"^linux-image-${series//./\\.}\\.[0-9].*-amd64\$" | cut -d' ' -f1 |
		grep -v -e '-rt-' -e '-cloud-' -e '-dbg' -e 'unsigned' | sort -V | tail -n 1
}

# install_series SERIES: its root, its image and headers (once).
install_series() {
	local s=$1 rsuite ksuite root img rel
	if [ "$s" = 6.1-debug ]; then
		"$here/debug-kernel.sh" build
		return
	fi
	read -r rsuite ksuite <<<"${series_of[$s]:-}"
	[ -n "$rsuite" ] || die "unknown series '$s' (${all_series[*]}; ${host_series[*]} are the host's)"
	make_root "$rsuite"
	root=$(root_of_suite "$rsuite")
	if rel=$(release_of "$s" 2>/dev/null); then
		return 0
	fi
	img=$(newest_image "$root" "$ksuite" "$s")
	[ -n "$img" ] || die "no $s image in $ksuite"
	rel=${img#linux-image-}
	say "$s: installing $img and its headers in $rsuite (from $ksuite)"
	run_in "$root" apt-get install -y -qq -t "$ksuite" "$img" "linux-headers-$rel" \
		>>"$cache/env-$rsuite.log" 2>&1 ||
		die "installing $img in $rsuite failed (log: $cache/env-$rsuite.log)"
	echo "$rel" >"$root/.cx3-series-$s"
	release_of "$s" >/dev/null
}

# release_of SERIES: the release installed for it, with its image, its
# modules and its build tree in place
release_of() {
	local s=$1 rsuite ksuite root rel
	if is_host_series "$s"; then
		"$here/kernels.sh" version "$s"
		return
	fi
	if [ "$s" = 6.1-debug ]; then
		"$here/debug-kernel.sh" release 2>/dev/null
		return
	fi
	read -r rsuite ksuite <<<"${series_of[$s]:-}"
	[ -n "$rsuite" ] || die "unknown series '$s'"
	root=$(root_of_suite "$rsuite")
	[ -f "$root/.cx3-series-$s" ] || return 1
	rel=$(cat "$root/.cx3-series-$s")
	# (its build link is absolute: /usr/src/linux-headers-RELEASE in the root)
	[ -f "$root/boot/vmlinuz-$rel" ] && [ -d "$root/lib/modules/$rel/kernel" ] &&
		[ -e "$root/usr/src/linux-headers-$rel/Makefile" ] || return 1
	echo "$rel"
}

# root_of SERIES|RELEASE
root_of() {
	local x=$1 s root
	if is_host_series "$x" || [ -f "/boot/vmlinuz-$x" ]; then
		echo /
		return 0
	fi
	if [ -n "${series_of[$x]:-}" ]; then
		echo "$(root_of_suite "${series_of[$x]%% *}")"
		return 0
	fi
	if [ "$x" = 6.1-debug ] || [ "$x" = "$("$here/debug-kernel.sh" release 2>/dev/null)" ]; then
		"$here/debug-kernel.sh" root 2>/dev/null
		return
	fi
	for s in "${all_series[@]}"; do
		root=$(root_of_suite "${series_of[$s]%% *}")
		if [ -f "$root/boot/vmlinuz-$x" ]; then
			echo "$root"
			return 0
		fi
	done
	return 1
}

case "${1:-}" in
install)
	shift
	[ "$(id -u)" = 0 ] || die "install must run as root (debootstrap, chroot)"
	[ $# -gt 0 ] || set -- "${all_series[@]}"
	for s in "$@"; do install_series "$s"; done
	;;
release) release_of "${2:?series}" || die "${2} is not installed (tests/setup/envs.sh install $2)" ;;
root) root_of "${2:?series or release}" || die "no root holds ${2}" ;;
run)
	shift
	r=${1:?root}
	shift
	run_in "$r" "$@"
	;;
list)
	for s in "${host_series[@]}" "${all_series[@]}" 6.1-debug; do
		if is_host_series "$s" || [ "$s" = 6.1-debug ]; then suite=bookworm; else suite=${series_of[$s]#* }; fi
		printf '%s %s %s %s\n' "$s" "$suite" "$(release_of "$s" 2>/dev/null || echo -)" "$(root_of "$s")"
	done
	;;
*)
	echo "usage: $0 install [SERIES...] | release SERIES | root SERIES|RELEASE | run ROOT CMD... | list" >&2
	exit 2
	;;
esac

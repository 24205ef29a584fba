#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Idempotent host setup for the test bed: apt sources (deb-src, bookworm-backports),
# the packages the builds and tests need, the guest kernels, and the QEMU build.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
stamp_dir=/var/cache/cx3-testbed
mkdir -p "$stamp_dir"

log() { printf 'setup: %s\n' "$*"; }

if [ "$(id -u)" != 0 ]; then
	echo "setup: must run as root (apt-get, kernel packages)" >&2
	exit 1
fi

# 1. apt sources: deb-src for bookworm, and bookworm-backports for the 6.12 kernel.
src=/etc/apt/sources.list.d/cx3-testbed.sources
want=$(cat <<'EOS'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
)
if [ ! -f "$src" ] || [ "$(cat "$src")" != "$want" ]; then
	log "writing $src"
	printf '%s\n' "$want" >"$src"
	rm -f "$stamp_dir/apt-updated"
fi
if [ ! -f "$stamp_dir/apt-updated" ] || \
   [ -n "$(find "$stamp_dir/apt-updated" -mmin +1440 2>/dev/null)" ]; then
	log "apt-get update"
	apt-get update -qq
	touch "$stamp_dir/apt-updated"
fi

export DEBIAN_FRONTEND=noninteractive
# 2. Packages: build tools, QEMU build dependencies, the guest's tools
#    (rdma-core userspace, rdma-core's Python tests with pyverbs, opensm,
#    diags), busybox for the initramfs; debhelper, dh-dkms and lintian
#    for make deb and its test (tests/build/deb.sh); iperf3 and matplotlib
#    for make bench (bench/README.md).
pkgs=(
	build-essential git bc flex bison pkg-config python3 python3-venv
	ninja-build meson dpkg-dev fakeroot
	libglib2.0-dev libpixman-1-dev zlib1g-dev libcap-ng-dev libattr1-dev
	libfdt-dev libslirp-dev
	busybox-static cpio kmod xz-utils zstd
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev infiniband-diags
	python3-pyverbs
	opensm perftest iproute2 iputils-ping procps ethtool
	sparse linux-source-6.1 dkms openssl libelf-dev libssl-dev
	debhelper dh-dkms lintian
	iperf3 python3-matplotlib
	seabios qemu-system-data ipxe-qemu
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing: ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# 3. Guest kernels: Debian's stock 6.1 (bookworm) and 6.12 (bookworm-backports),
#    with their headers for building our modules.
"$here/kernels.sh" install

# 3b. The other Debian releases' kernels (5.10, 6.12 of trixie, 7.2, 7.3),
#     each in a root of its release with that release's compiler, for
#     building our modules against them and booting them in the test bed.
"$here/envs.sh" install

# 3c. The debug kernel (lockdep, KASAN, kmemleak, ...): Debian's
#     linux-source-6.1 built once with a small configuration (about 7
#     minutes on 2 cores), cached by its configuration's hash.
"$here/debug-kernel.sh" build

# 4. checkpatch.pl for tests/build/check.sh: extracted from linux-source-6.1
#    into the cache unless an extracted tree is already there.
log "checkpatch: $("$top/scripts/checkpatch.sh" --path)"

# 5. QEMU with the ConnectX-3 model.
"$top/tests/cx3/build-qemu.sh"
log "done"

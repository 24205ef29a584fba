#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build qemu-system-x86_64 from Debian 12's qemu source package with the
# ConnectX-3 model (this folder) added as hw/misc/cx3.  Only the x86_64
# target is built.  The result is cached by the hash of the model's sources,
# so an unchanged model is never rebuilt; a changed one recompiles only the
# model's files and relinks.
#   build-qemu.sh           build if needed, print the binary's path
#   build-qemu.sh --hash    print the source hash only
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${CX3_CACHE:-/var/cache/cx3-testbed}
srcdir=$cache/qemu-src
blddir=$cache/qemu-build

model_files() {
	(cd "$here" && find . -maxdepth 1 -type f \( -name '*.[ch]' -o -name meson.build \
		-o -name build-qemu.sh \) -printf '%P\n' | LC_ALL=C sort)
}

hash=$( (cd "$here" && model_files | xargs sha256sum) | sha256sum | cut -c1-16)
[ "${1:-}" = "--hash" ] && { echo "$hash"; exit 0; }

out=$cache/qemu-$hash/qemu-system-x86_64
if [ -x "$out" ]; then
	echo "$out"
	exit 0
fi

log() { printf 'build-qemu: %s\n' "$*" >&2; }
mkdir -p "$cache"
exec 9>"$cache/.build-lock"
flock 9
[ -x "$out" ] && { echo "$out"; exit 0; }

if [ ! -f "$srcdir/.unpacked" ]; then
	log "fetching Debian 12's qemu source package"
	rm -rf "$srcdir" "$cache/qemu-dl" "$blddir"
	mkdir -p "$cache/qemu-dl"
	(cd "$cache/qemu-dl" && apt-get source -qq qemu/bookworm >/dev/null 2>&1) || {
		log "apt-get source qemu/bookworm failed (is deb-src enabled? run make setup)"
		exit 1
	}
	mv "$cache"/qemu-dl/qemu-7.2*/ "$srcdir"
	rm -rf "$cache/qemu-dl"
	grep -q "subdir('cx3')" "$srcdir/hw/misc/meson.build" ||
		echo "subdir('cx3')" >>"$srcdir/hw/misc/meson.build"
	touch "$srcdir/.unpacked"
fi

# Refresh the model's copy in the source tree (only files that changed, so
# ninja's timestamps stay meaningful).
mkdir -p "$srcdir/hw/misc/cx3"
for f in $(cd "$here" && model_files); do
	cmp -s "$here/$f" "$srcdir/hw/misc/cx3/$f" || cp "$here/$f" "$srcdir/hw/misc/cx3/$f"
done
for f in "$srcdir"/hw/misc/cx3/*; do
	[ -e "$here/$(basename "$f")" ] || rm -f "$f"
done

if [ ! -f "$blddir/build.ninja" ]; then
	log "configuring (x86_64-softmmu only)"
	mkdir -p "$blddir"
	(cd "$blddir" && "$srcdir/configure" --target-list=x86_64-softmmu \
		--enable-kvm --enable-virtfs --enable-attr --enable-cap-ng \
		--disable-docs --disable-werror --disable-tools --disable-guest-agent \
		--disable-gtk --disable-sdl --disable-vnc --disable-opengl \
		--disable-spice --disable-xen --disable-curses --disable-gnutls \
		--disable-nettle --disable-gcrypt --disable-libusb --disable-usb-redir \
		--disable-smartcard --disable-libiscsi --disable-libnfs --disable-rbd \
		--disable-glusterfs --disable-vhost-user-blk-server --disable-linux-io-uring \
		--disable-capstone --disable-slirp --disable-pa --disable-alsa \
		--disable-jack --disable-oss --disable-bpf --disable-fuse \
		--audio-drv-list= >"$blddir/configure.log" 2>&1) || {
		log "configure failed, see $blddir/configure.log"
		tail -20 "$blddir/configure.log" >&2
		exit 1
	}
fi

log "building qemu-system-x86_64 with the ConnectX-3 model (hash $hash)"
if ! (cd "$blddir" && ninja -j"$(nproc)" qemu-system-x86_64 >"$blddir/ninja.log" 2>&1); then
	log "build failed, see $blddir/ninja.log"
	grep -E 'error|Error' "$blddir/ninja.log" | head -30 >&2
	exit 1
fi
# Keep the three most recently built models besides this one: worktrees
# that test different models side by side share this cache.
# (none yet on a fresh cache: ls fails, which pipefail must not make the
# build's failure)
{ ls -1dt "$cache"/qemu-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]* 2>/dev/null || true; } |
	tail -n +4 | xargs -r rm -rf
mkdir -p "$cache/qemu-$hash"
cp "$blddir/qemu-system-x86_64" "$out.tmp"
mv "$out.tmp" "$out"
echo "$out"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest kernels: Debian's stock 6.1 (bookworm) and 6.12 (bookworm-backports).
#   kernels.sh install        install both images and their headers (idempotent)
#   kernels.sh version 6.1    print the installed kernel release for a series
set -euo pipefail

series_release() {
	# Newest installed stock (non-rt, non-cloud) kernel of a series.
	local s=$1 v
	v=$(cd /boot 2>/dev/null && ls -1 vmlinuz-"$s".*-amd64 2>/dev/null |
		grep -v -e '-rt-' -e '-cloud-' | sed 's/^vmlinuz-//' | sort -V | tail -n 1)
	[ -n "$v" ] || return 1
	[ -d "/lib/modules/$v/kernel" ] || return 1
	echo "$v"
}

install_kernels() {
	export DEBIAN_FRONTEND=noninteractive
	local dep
	if ! series_release 6.1 >/dev/null; then
		echo "kernels: installing the bookworm 6.1 kernel and headers"
		apt-get install -y -qq linux-image-amd64 linux-headers-amd64 >/dev/null
	fi
	if ! series_release 6.12 >/dev/null; then
		# The versioned 6.12 image that bookworm-backports' metapackage points at.
		dep=$(apt-cache depends -t bookworm-backports linux-image-amd64 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-image-6\.12[^ ]*\)$/\1/p' | head -n 1)
		if [ -z "$dep" ]; then
			echo "kernels: no 6.12 image in bookworm-backports" >&2
			exit 1
		fi
		echo "kernels: installing $dep and its headers from bookworm-backports"
		apt-get install -y -qq -t bookworm-backports "$dep" \
			"${dep/linux-image/linux-headers}" >/dev/null
	fi
	series_release 6.1 >/dev/null && series_release 6.12 >/dev/null
}

case "${1:-}" in
install) install_kernels ;;
version) series_release "${2:?series}" ;;
*) echo "usage: $0 install | version 6.1|6.12" >&2; exit 2 ;;
esac

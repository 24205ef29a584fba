#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The development tree a third-party ULP builds against (docs/kernel-api.md
# section 5; README "Building a ULP against ibstack-cx3"), one per kernel
# release:
#   <dest>/include/rdma/*.h, include/uapi/rdma/*.h, include/ibstack/ (the
#          project headers ours include: no_kernel_ib.h, ext.h)
#   <dest>/Module.symvers      the stack's exports for that release (the
#          modules of STACK_DIRS only, never the test modules')
#   <dest>/ibstack.mk          the recipe a ULP's Kbuild includes
#   <dest>/ibstack-ulp-check.sh, shadow-check.sh   checks of a built ULP
#   <dest>/VERSION             the package version that installed it
# Modes:
#   devel-install.sh install TOP SYMVERS DEST
#       write DEST from the source tree TOP and the build's SYMVERS
#       (make install-devel: DEST is $(DESTDIR)/usr/src/ibstack-cx3/<release>)
#   devel-install.sh uninstall DEST [VERSION]
#       remove DEST (with VERSION: only if DEST/VERSION says VERSION)
# and DKMS's hooks (dkms.conf; dkms 3.0.10 runs POST_BUILD in its build
# directory, after the modules are saved and before it removes that
# directory, POST_INSTALL and POST_REMOVE in its source directory):
#   devel-install.sh dkms-post-build RELEASE ARCH
#       the tree of build/RELEASE/ into ../RELEASE/ARCH/devel (the DKMS
#       tree's per-kernel directory, which outlives the build directory)
#   devel-install.sh dkms-post-install RELEASE ARCH DKMS_VERSION_DIR
#       that saved tree to /usr/src/ibstack-cx3/RELEASE
#   devel-install.sh dkms-post-remove RELEASE
#       /usr/src/ibstack-cx3/RELEASE removed if this version installed it
set -euo pipefail

pkg=ibstack-cx3
usage() {
	sed -n '3,27p' "$0" >&2
	exit 2
}
die() { echo "devel-install: $*" >&2; exit 1; }

# install TOP SYMVERS DEST: written beside DEST, then renamed over it, so
# that a ULP build never sees half a tree.
do_install() {
	local top=$1 symvers=$2 dest=$3 stage h
	[ -d "$top/include/rdma" ] || die "$top: no include/rdma"
	[ -s "$symvers" ] || die "$symvers: missing or empty (build the modules first)"
	dest=${dest%/}
	mkdir -p "$(dirname "$dest")"
	stage=$(mktemp -d "$dest.new.XXXXXX")
	# shellcheck disable=SC2064 # (stage is fixed from here on)
	trap "rm -rf '$stage'" EXIT
	mkdir -p "$stage/include/ibstack" "$stage/include/uapi"
	cp -r "$top/include/rdma" "$stage/include/rdma"
	cp -r "$top/include/uapi/rdma" "$stage/include/uapi/rdma"
	for h in no_kernel_ib.h ext.h; do
		[ -f "$top/include/ibstack/$h" ] && cp "$top/include/ibstack/$h" "$stage/include/ibstack/"
	done
	# Our modules only, each named ibstack-cx3/<dir>/<module>: modpost
	# takes the module name (the depends= list) from the last part, and the
	# build machine's paths are of no use to anyone.
	awk -F '\t' -v OFS='\t' -v pkg="$pkg" '
		{
			n = split($3, p, "/")
			if (n < 2 || $3 ~ /(^|\/)tests\//)
				next
			$3 = pkg "/" p[n - 1] "/" p[n]
			print
		}' "$symvers" >"$stage/Module.symvers"
	[ -s "$stage/Module.symvers" ] || die "$symvers: no export of our modules in it"
	install -m 0644 "$top/packaging/devel/ibstack.mk" "$stage/ibstack.mk"
	install -m 0755 "$top/packaging/devel/ibstack-ulp-check.sh" "$stage/ibstack-ulp-check.sh"
	install -m 0755 "$top/scripts/shadow-check.sh" "$stage/shadow-check.sh"
	cat "$top/VERSION" >"$stage/VERSION"
	chmod -R a+rX,go-w "$stage"
	rm -rf "$dest"
	mv "$stage" "$dest"
	trap - EXIT
}

do_uninstall() {
	local dest=${1%/} ver=${2:-}
	[ -e "$dest" ] || return 0
	if [ -n "$ver" ] && [ "$(cat "$dest/VERSION" 2>/dev/null)" != "$ver" ]; then
		echo "devel-install: $dest is not version $ver's: left alone" >&2
		return 0
	fi
	rm -rf "$dest"
	rmdir "$(dirname "$dest")" 2>/dev/null || true
}

mode=${1:-}
[ $# -gt 0 ] && shift
case "$mode" in
install)
	[ $# = 3 ] || usage
	do_install "$1" "$2" "$3" ;;
uninstall)
	if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
	do_uninstall "$@" ;;
dkms-post-build)
	[ $# = 2 ] || usage
	do_install . "build/$1/Module.symvers" "../$1/$2/devel" ;;
dkms-post-install)
	[ $# = 3 ] || usage
	saved=$3/$1/$2/devel
	[ -d "$saved" ] || die "$saved: no tree saved by the build (POST_BUILD)"
	rm -rf "/usr/src/$pkg/$1.new"
	mkdir -p "/usr/src/$pkg"
	cp -a "$saved" "/usr/src/$pkg/$1.new"
	rm -rf "/usr/src/$pkg/$1"
	mv "/usr/src/$pkg/$1.new" "/usr/src/$pkg/$1" ;;
dkms-post-remove)
	[ $# = 1 ] || usage
	do_uninstall "/usr/src/$pkg/$1" "$(cat VERSION)" ;;
*)
	usage ;;
esac

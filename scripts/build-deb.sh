#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: the Debian package ibstack-cx3-dkms_<version>_all.deb (README
# "Installing with DKMS"), built with debhelper and dh_dkms from a staging
# copy, never in the source tree:
#   scripts/build-deb.sh TOP OUT
# OUT/ibstack-cx3-<version>/ is the staging directory (made afresh): its
# debian/ is TOP/packaging/debian, its root/ the files to package as a
# manual install lays them out (make dkms-src, make install-extras);
# dpkg-buildpackage writes the .deb (and its .buildinfo and .changes) to
# OUT.  The version is TOP/VERSION's, which must be the version of the top
# entry of packaging/debian/changelog.  Prints the .deb's path last.
set -euo pipefail

me=build-deb
die() { echo "$me: $*" >&2; exit 1; }
[ $# = 2 ] || die "usage: build-deb.sh TOP OUT"
top=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
ver=$(cat "$top/VERSION")

# The tools (make setup installs them): dpkg-dev, debhelper, dh-dkms.
missing=()
for t in dpkg-buildpackage:dpkg-dev dh:debhelper dh_dkms:dh-dkms; do
	command -v "${t%%:*}" >/dev/null || missing+=("${t#*:}")
done
[ ${#missing[@]} = 0 ] ||
	die "missing ${missing[*]}: apt-get install ${missing[*]} (make setup installs them)"

cl=$top/packaging/debian/changelog
clver=$(dpkg-parsechangelog -l "$cl" -S Version)
[ "$clver" = "$ver" ] ||
	die "VERSION says $ver, the top entry of packaging/debian/changelog $clver: add an entry for $ver (dch -c $cl -v $ver)"

stage=$out/ibstack-cx3-$ver
rm -rf "$stage"
mkdir -p "$stage"
cp -a "$top/packaging/debian" "$stage/debian"
make -s --no-print-directory -C "$top" dkms-src DEST="$stage/root/usr/src/ibstack-cx3-$ver" >/dev/null
make -s --no-print-directory -C "$top" install-extras DESTDIR="$stage/root" >/dev/null

deb=$out/ibstack-cx3-dkms_${ver}_all.deb
rm -f "$deb" "$out/ibstack-cx3_${ver}_"*.buildinfo "$out/ibstack-cx3_${ver}_"*.changes
(cd "$stage" && dpkg-buildpackage --build=all --no-sign)
[ -f "$deb" ] || die "dpkg-buildpackage left no $deb"
echo "$deb"

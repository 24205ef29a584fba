#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copy what kbuild needs into a per-release build tree:
#   scripts/sync-tree.sh TOP BUILDDIR DIR...
# TOP/Kbuild, TOP/include/ and every module DIR (relative to TOP) go to
# BUILDDIR/ (see sync() for how kbuild there rebuilds just what changed and
# never misses a change; edit the originals, not the copies).  Build products
# in BUILDDIR are left alone; sources deleted in TOP are deleted in BUILDDIR.  A module directory copied earlier whose source is
# gone (no TOP/DIR/Kbuild any more) is removed from BUILDDIR.
set -euo pipefail

top=${1:?usage: sync-tree.sh TOP BUILDDIR DIR...}
b=${2:?usage: sync-tree.sh TOP BUILDDIR DIR...}
shift 2

# Never copied, never deleted: what kbuild makes (or a stray in-tree build).
art=(-name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c'
	-o -name '*.a' -o -name '*.s' -o -name '*.i' -o -name '*.lst'
	-o -name '*.symvers' -o -name modules.order -o -name '.*.cmd'
	-o -name '.*.d' -o -name '.tmp_*' -o -name '*.dwo' -o -name '*.su'
	-o -name '*.ll' -o -name '*.gcno')

# sync SRC DST: DST gets every source file of SRC whose contents differ, as
# a new file (so make sees it as newer than its objects even if the source
# itself is older, e.g. after a git checkout), and loses those SRC lost.
# Unchanged files are left alone, so nothing is rebuilt for them.
sync() {
	local src=$1 dst=$2 f
	mkdir -p "$dst"
	(cd "$dst" && find . -type f ! \( "${art[@]}" \) -print0) |
		while IFS= read -r -d '' f; do
			[ -e "$src/$f" ] || rm -f "$dst/$f"
		done
	(cd "$src" && find . \( -type f -o -type l \) ! \( "${art[@]}" \) -print0) |
		while IFS= read -r -d '' f; do
			cmp -s "$src/$f" "$dst/$f" && continue
			mkdir -p "$(dirname "$dst/$f")"
			cp -f "$src/$f" "$dst/$f"
		done
}

mkdir -p "$b"
cmp -s "$top/Kbuild" "$b/Kbuild" || cp -f "$top/Kbuild" "$b/Kbuild"
sync "$top/include" "$b/include"
for d in "$@"; do
	sync "$top/$d" "$b/$d"
done

# Module directories of earlier builds whose sources are gone.
mk=$(dirname "$0")/module-dirs.mk
for d in $(sed -n 's/^[A-Z_]*DIRS[[:space:]]*:=//p' "$mk"); do
	if [ -d "$b/$d" ] && [ ! -f "$top/$d/Kbuild" ]; then
		rm -rf "${b:?}/$d"
	fi
done

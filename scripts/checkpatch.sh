#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's checkpatch.pl (from Debian's linux-source-6.1), our way:
#   scripts/checkpatch.sh --path     print the script's path, extracting it
#                                    first if needed (make setup does that)
#   scripts/checkpatch.sh FILE...    checkpatch --no-tree --strict on FILEs;
#                                    exits non-zero on any ERROR, WARNING or
#                                    CHECK
# Looks for it in an extracted source tree (/tmp/linux/linux-source-6.1, as
# the team's notes have it), then in the cache ($CX3_CACHE or
# /var/cache/cx3-testbed, checkpatch/), and otherwise extracts the three files
# it needs from /usr/src/linux-source-6.1.tar.xz into the cache (root; about
# 15 s).  CHECKPATCH_TREES (space-separated) replaces /tmp/linux/linux-source-6.1.
set -euo pipefail

cache=${CX3_CACHE:-/var/cache/cx3-testbed}/checkpatch
tarball=/usr/src/linux-source-6.1.tar.xz
members=(scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch)

find_checkpatch() {
	local d
	for d in ${CHECKPATCH_TREES-/tmp/linux/linux-source-6.1} "$cache/linux-source-6.1"; do
		if [ -f "$d/scripts/checkpatch.pl" ] && [ -f "$d/scripts/spelling.txt" ] &&
		   [ -f "$d/scripts/const_structs.checkpatch" ]; then
			echo "$d/scripts/checkpatch.pl"
			return 0
		fi
	done
	[ -f "$tarball" ] || {
		echo "checkpatch: no $tarball (apt-get install linux-source-6.1, or make setup)" >&2
		return 1
	}
	mkdir -p "$cache"
	rm -rf "$cache/.extract"
	mkdir -p "$cache/.extract"
	tar -xJf "$tarball" -C "$cache/.extract" "${members[@]/#/linux-source-6.1/}" || {
		echo "checkpatch: extracting from $tarball failed" >&2
		return 1
	}
	rm -rf "$cache/linux-source-6.1"
	mv "$cache/.extract/linux-source-6.1" "$cache/"
	rm -rf "$cache/.extract"
	echo "$cache/linux-source-6.1/scripts/checkpatch.pl"
}

cp=$(find_checkpatch) || exit 2
if [ "${1:-}" = --path ]; then
	echo "$cp"
	exit 0
fi
[ $# -gt 0 ] || { echo "usage: scripts/checkpatch.sh --path | FILE..." >&2; exit 2; }
out=$(perl "$cp" --no-tree --strict --terse --show-types --no-summary -f "$@" 2>&1) || true
if [ -n "$out" ]; then
	printf '%s\n' "$out"
	exit 1
fi
exit 0

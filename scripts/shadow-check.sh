#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The shadow guard, after the build: none of our objects may depend on the
# kernel's own InfiniBand headers (include/rdma, include/uapi/rdma,
# include/linux/mlx4), which our headers of the same names (this tree's
# include/rdma and include/uapi/rdma, copied into BUILDDIR/include)
# replace.
#   scripts/shadow-check.sh [--allow DIR]... BUILDDIR [DIR...]
# Reads the dependency lists kbuild writes for every object (.NAME.o.cmd)
# under BUILDDIR/DIR (default: all of BUILDDIR) and fails, naming the object
# and the header, if one of them lists such a header outside BUILDDIR and
# outside every --allow DIR (an installed copy of our headers, when the
# objects are a ULP's built against it).  include/ibstack/no_kernel_ib.h
# catches the other order (kernel header first) at compile time.
set -euo pipefail

usage="usage: shadow-check.sh [--allow DIR]... BUILDDIR [DIR...]"
allow=()
while [ $# -gt 0 ]; do
	case "$1" in
	--allow)
		[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		allow+=("${2%/}/")
		shift 2 ;;
	--allow=*)
		a=${1#--allow=}
		allow+=("${a%/}/")
		shift ;;
	-h | --help) echo "$usage"; exit 0 ;;
	*) break ;;
	esac
done
b=${1:?$usage}
b=${b%/}
shift
dirs=()
for d in "$@"; do [ -d "$b/$d" ] && dirs+=("$b/$d"); done
[ $# -gt 0 ] || dirs=("$b")
[ ${#dirs[@]} -gt 0 ] || exit 0

# -F patterns of the paths that are ours: BUILDDIR's copy and --allow DIRs
ours=$(printf '%s\n' "$b/" "${allow[@]}")

bad=0
while IFS= read -r -d '' cmd; do
	hits=$(tr ' \\:=' '\n\n\n\n' <"$cmd" | grep -E '(^|/)include/(uapi/)?(rdma|linux/mlx4)/' |
		grep -v -F "$ours" | LC_ALL=C sort -u || true)
	[ -n "$hits" ] || continue
	obj=${cmd#"$b"/}
	obj=${obj%.cmd}
	obj=$(dirname "$obj")/$(basename "$obj" | sed 's/^\.//')
	while IFS= read -r h; do
		echo "shadow-check: ERROR: $obj depends on the kernel's $h" >&2
	done <<<"$hits"
	bad=1
done < <(find "${dirs[@]}" -name '.*.o.cmd' -print0)

if [ "$bad" = 1 ]; then
	echo "shadow-check: our modules must never include the kernel's <rdma/...>," \
		"<uapi/rdma/...> or <linux/mlx4/...> headers: only ours of those names" \
		"(include/rdma, include/uapi/rdma; see include/ibstack/no_kernel_ib.h)" >&2
	exit 1
fi
exit 0

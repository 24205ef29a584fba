#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Checks a kernel ULP built against this ibstack-cx3 development tree (the
# directory this script is in; README "Building a ULP against ibstack-cx3"):
#   ibstack-ulp-check.sh [--kdir KDIR] [--symvers FILE] M_DIR
# 1. headers: no object under M_DIR depends on one of the kernel's own
#    <rdma/...>, <uapi/rdma/...> or <linux/mlx4/...> headers (the dependency
#    lists kbuild writes, .*.o.cmd), only on ours (shadow-check.sh);
# 2. imports: every symbol in the __versions of each module's .mod.c that
#    our Module.symvers exports has our CRC (on a kernel without
#    CONFIG_MODVERSIONS, the .ko's undefined symbols, by name only), and none that the kernel's
#    Module.symvers (KDIR, default /lib/modules/<release>/build) attributes
#    to drivers/infiniband/ or drivers/net/ethernet/mellanox/mlx4 is missing
#    from ours: modpost resolves a name we do not export to the kernel's
#    ib_core silently, and the module then fails to load on ours.  Every
#    import must be exported by ours or the kernel, and each module must
#    import something of ours.
# --symvers: our exports from FILE instead of this tree's Module.symvers
# (the checks' own tests).  Prints one line per finding and a summary;
# exits 0 when everything holds, 1 otherwise, 2 on a usage error.
set -euo pipefail

me=ibstack-ulp-check
devel=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage="usage: ibstack-ulp-check.sh [--kdir KDIR] [--symvers FILE] M_DIR"
kdir=/lib/modules/$(basename "$devel")/build
ours=$devel/Module.symvers
while [ $# -gt 0 ]; do
	case "$1" in
	--kdir) kdir=${2:?$usage}; shift 2 ;;
	--symvers) ours=${2:?$usage}; shift 2 ;;
	-h | --help) sed -n '3,19p' "$0"; exit 0 ;;
	-*) echo "$usage" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# = 1 ] || { echo "$usage" >&2; exit 2; }
mdir=$(cd "$1" && pwd)
ksyms=$kdir/Module.symvers
for f in "$ours" "$ksyms"; do
	[ -r "$f" ] || { echo "$me: ERROR: $f: not readable" >&2; exit 2; }
done

bad=0
# 1. the headers (our include/ by the path the build used or the real one)
if ! "$devel/shadow-check.sh" --allow "$devel/include" \
	--allow "$(readlink -f "$devel")/include" "$mdir"; then
	echo "$me: ERROR: $mdir: an object includes a kernel InfiniBand header (above)"
	bad=1
fi

# 2. the imports of every module built there
mapfile -t modc < <(find "$mdir" -name '*.mod.c' | LC_ALL=C sort)
if [ ${#modc[@]} = 0 ]; then
	echo "$me: ERROR: $mdir: no *.mod.c (not built, or not a kbuild M directory)"
	exit 1
fi
for m in "${modc[@]}"; do
	# "{ 0xCRC, "symbol" }," lines of ____versions, as "symbol<TAB>crc"
	imports=$(sed -n 's/^[[:space:]]*{ \(0x[0-9a-f]*\), "\([^"]*\)" },$/\2\t\1/p' "$m")
	name=${m#"$mdir"/}
	name=${name%.mod.c}
	ko=${m%.mod.c}.ko
	if [ ! -f "$ko" ]; then
		echo "$me: ERROR: $name: no $ko"
		bad=1
		continue
	fi
	# the .ko's undefined symbols, but the module's own
	undef=$(nm -u "$ko" | awk '{ print $NF }' | LC_ALL=C sort -u |
		grep -v -x -E '__this_module|_GLOBAL_OFFSET_TABLE_' || true)
	if [ -z "$imports" ]; then
		# a kernel without CONFIG_MODVERSIONS: no CRCs to compare, the
		# names alone (a CRC of "-" below)
		echo "$me: $name: no __versions (kernel without CONFIG_MODVERSIONS): names only"
		imports=$(awk '{ print $0 "\t-" }' <<<"$undef")
	fi
	# what modpost found nowhere has no __versions entry: the .ko's
	# undefined symbols name it
	unres=$(LC_ALL=C comm -23 <(echo "$undef") <(cut -f 1 <<<"$imports" | LC_ALL=C sort) || true)
	for s in $unres; do
		echo "$me: ERROR: $name imports $s, which neither ours nor the kernel exports (modpost: undefined)"
		bad=1
	done
	# CRCs compared as numbers: the .mod.c writes 0x1098909 where
	# Module.symvers has 0x01098909
	out=$(awk -F '\t' -v me="$me" -v mod="$name" '
		function crc(x) { x = tolower(x); sub(/^0x0*/, "", x); return x }
		FNR == 1 { f++ }
		f == 1 { ocrc[$2] = $1; next }
		f == 2 { kcrc[$2] = $1; kmod[$2] = $3; next }
		{
			s = $1; c = $2; n++
			if (s in ocrc) {
				nours++
				if (c != "-" && crc(ocrc[s]) != crc(c)) {
					printf "%s: ERROR: %s imports %s with CRC %s, ours is %s\n",
						me, mod, s, c, ocrc[s]
					bad++
				}
			} else if (kmod[s] ~ /^drivers\/(infiniband\/|net\/ethernet\/mellanox\/mlx4)/) {
				printf "%s: ERROR: %s imports %s from the kernel'"'"'s %s (CRC %s): ours does not export it\n",
					me, mod, s, kmod[s], c
				bad++
			} else if (!(s in kcrc)) {
				printf "%s: ERROR: %s imports %s, which neither ours nor the kernel exports\n",
					me, mod, s
				bad++
			}
		}
		END {
			if (!nours) {
				printf "%s: ERROR: %s imports nothing of ours\n", me, mod
				bad++
			}
			printf "%s: %s: %d imports, %d of ours, %d findings\n", me, mod, n, nours, bad
		}' "$ours" "$ksyms" - <<<"$imports")
	echo "$out"
	grep -q ': ERROR: ' <<<"$out" && bad=1
done
if [ "$bad" = 0 ]; then
	echo "$me: ok: $mdir: only our headers, every InfiniBand import resolved to ours with our CRC"
fi
exit "$bad"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Our user ABI headers against rdma-core's copies of upstream's
# (docs/uverbs.md section 2): for every struct in our
# include/uapi/rdma/ib_user_verbs.h, mlx4-abi.h and rdma_user_cm.h (each
# if present), its sizeof and every member's offsetof, compiled once
# against ours and once against /usr/include/rdma, must be the same.  One
# PASS or FAIL line per struct (a FAIL names what differs), and a FAIL for
# a header that does not compile.
#   tests/build/uapi.sh [--self-test]
# --self-test: the same check on a copy of our ib_user_verbs.h with one
# member widened, which must FAIL (the check can see a difference).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
sys=${UAPI_SYS_INCLUDE:-/usr/include}
cc=${CC:-gcc}
tmp=$(mktemp -d /tmp/ibstack-uapi.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ours_inc=$top/include/uapi

if [ "${1:-}" = --self-test ]; then
	mkdir -p "$tmp/broken/rdma"
	cp "$top"/include/uapi/rdma/*.h "$tmp/broken/rdma/"
	# reg_mr's pd_handle becomes 8 bytes: access_flags moves
	sed -i '/^struct ib_uverbs_reg_mr {/,/^};/s/__u32\t\tpd_handle;/__u64\t\tpd_handle;/' \
		"$tmp/broken/rdma/ib_user_verbs.h"
	out=$(UAPI_OURS_INCLUDE="$tmp/broken" "$0" 2>&1)
	if grep -q '^FAIL uapi ib_user_verbs.h ib_uverbs_reg_mr:' <<<"$out"; then
		echo "PASS uapi self-test: a widened member FAILS:"
		grep '^FAIL' <<<"$out" | sed 's/^/    /'
	else
		echo "FAIL uapi self-test: a widened member went unnoticed:"
		sed 's/^/    /' <<<"$out" | head -n 20
	fi
	exit 0
fi
ours_inc=${UAPI_OURS_INCLUDE:-$ours_inc}

# "struct member" lines (a struct alone: "struct -") for the top-level
# structs of a header; members of a nested struct count as the nested
# member as a whole.
members() {
	sed -e 's|/\*.*\*/||g' -e 's|//.*||' "$1" | awk '
	depth == 0 && /^struct [A-Za-z0-9_]+ *\{/ {
		name = $2; depth = 1; print name, "-"; next
	}
	depth > 0 {
		line = $0
		opens = gsub(/\{/, "{", line); closes = gsub(/\}/, "}", line)
		if (depth == 1 && opens == 0 && closes == 0 && line ~ /;/) {
			m = line; sub(/\[.*$/, "", m); sub(/;.*$/, "", m)
			n = split(m, w, /[ \t*]+/); print name, w[n]
		} else if (depth == 2 && closes > 0 && opens == 0) {
			m = line; sub(/^[ \t]*\}[ \t]*/, "", m); sub(/[;\[].*$/, "", m)
			if (m != "") print name, m
		}
		depth += opens - closes
	}'
}

# a program printing "name size" and "name.member offset" lines
gen() {
	local hdr=$1 list=$2
	echo "#include <stdio.h>"
	echo "#include <stddef.h>"
	echo "#include <linux/types.h>"
	echo "#include <rdma/$hdr>"
	echo "int main(void)"
	echo "{"
	while read -r s m; do
		if [ "$m" = - ]; then
			echo "	printf(\"$s %zu\\n\", sizeof(struct $s));"
		else
			echo "	printf(\"$s.$m %zu\\n\", offsetof(struct $s, $m));"
		fi
	done <"$list"
	echo "	return 0;"
	echo "}"
}

for hdr in ib_user_verbs.h mlx4-abi.h rdma_user_cm.h; do
	ours=$ours_inc/rdma/$hdr
	[ -f "$ours" ] || continue
	if [ ! -f "$sys/rdma/$hdr" ]; then
		echo "FAIL uapi $hdr: no $sys/rdma/$hdr to compare with (rdma-core's headers: apt-get install libibverbs-dev)"
		continue
	fi
	list=$tmp/${hdr%.h}.list
	members "$ours" >"$list"
	gen "$hdr" "$list" >"$tmp/prog.c"
	ok=1
	for side in ours sys; do
		if [ $side = ours ]; then inc=(-I "$ours_inc"); else inc=(-I "$sys"); fi
		if ! "$cc" -Wall -o "$tmp/$side" "${inc[@]}" "$tmp/prog.c" 2>"$tmp/$side.err"; then
			echo "FAIL uapi $hdr: does not compile against $side:"
			head -n 15 "$tmp/$side.err" | sed 's/^/    /'
			ok=0
			continue
		fi
		"$tmp/$side" >"$tmp/$side.out"
	done
	[ $ok = 1 ] || continue
	nstruct=0 nfail=0
	while read -r s m; do
		[ "$m" = - ] || continue
		nstruct=$((nstruct + 1))
		diffs=$(join <(grep -E "^$s(\\.| )" "$tmp/ours.out" | sort) \
			     <(grep -E "^$s(\\.| )" "$tmp/sys.out" | sort) |
			awk '$2 != $3 { printf " %s: ours %s, upstream %s;", $1, $2, $3 }')
		nm=$(grep -c -E "^$s\\." "$tmp/ours.out")
		if [ -n "$diffs" ]; then
			echo "FAIL uapi $hdr $s:$diffs"
			nfail=$((nfail + 1))
		else
			echo "PASS uapi $hdr $s: size $(awk -v s="$s" '$1 == s { print $2 }' "$tmp/ours.out"), $nm members at upstream's offsets"
		fi
	done <"$list"
	echo "uapi: $hdr: $nstruct structs, $nfail differ"
done

# The enumerators and value macros of rdma_netlink.h (message types and
# attribute numbers are all of its ABI): every "NAME = VALUE" of ours must
# have that value in rdma-core's copy of upstream's header.  Not the
# counts (*_MAX, *NUM_*): they grow with each release, and rdma-core 44
# copies a newer header than 6.1's (more operations and attributes).
hdr=rdma_netlink.h
if [ -f "$ours_inc/rdma/$hdr" ]; then
	if [ ! -f "$sys/rdma/$hdr" ]; then
		echo "FAIL uapi $hdr: no $sys/rdma/$hdr to compare with"
	else
		names=$(sed -n 's/^[[:space:]]*\([A-Z][A-Z0-9_]*\)[[:space:]]*=[[:space:]]*[0-9].*/\1/p' \
			"$ours_inc/rdma/$hdr" | grep -v -e '_MAX$' -e 'NUM_')
		{
			echo "#include <stdio.h>"
			echo "#include <linux/types.h>"
			echo "#include <rdma/$hdr>"
			echo "int main(void)"
			echo "{"
			for n in $names; do echo "	printf(\"$n %ld\\n\", (long)$n);"; done
			echo "	return 0;"
			echo "}"
		} >"$tmp/nl.c"
		ok=1
		for side in ours sys; do
			if [ $side = ours ]; then inc=(-I "$ours_inc"); else inc=(-I "$sys"); fi
			if ! "$cc" -Wall -o "$tmp/nl-$side" "${inc[@]}" "$tmp/nl.c" 2>"$tmp/nl-$side.err"; then
				echo "FAIL uapi $hdr: does not compile against $side:"
				head -n 15 "$tmp/nl-$side.err" | sed 's/^/    /'
				ok=0
				continue
			fi
			"$tmp/nl-$side" >"$tmp/nl-$side.out"
		done
		if [ $ok = 1 ]; then
			diffs=$(join "$tmp/nl-ours.out" "$tmp/nl-sys.out" 2>/dev/null |
				awk '$2 != $3 { printf " %s: ours %s, upstream %s;", $1, $2, $3 }')
			n=$(wc -l <"$tmp/nl-ours.out")
			if [ -n "$diffs" ]; then
				echo "FAIL uapi $hdr:$diffs"
			else
				echo "PASS uapi $hdr: $n values as upstream's"
			fi
		fi
	fi
fi

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The sysfs tree of mlx4_0 (/sys/class/infiniband/mlx4_0, recursively, not
# following symlinks), one line per entry, tab-separated:
#     PATH  MODE  CLASS  VALUE
# PATH relative to the device, MODE the permission bits (stat %a; "l" for a
# symlink), CLASS the value's format (see below), VALUE the value itself
# (first line, tabs as spaces; a symlink's target name).  Two stacks'
# dumps are compared by tests/stack/run-tests.  Written to OUT (default
# /vmout/sysfs-tree.txt).
#
# CLASS: "dir" for a directory, "-" for a file nobody may read, "<empty>",
# "<error: MESSAGE>" when reading fails, else the value with every 0x-number
# as 0xH, every colon-joined hex group as as many h's (GIDs, GUIDs), and
# every other run of decimal digits as 9.
#
# Then the checks that need the guest: node_desc is writable; under an SM
# (tests/vm/run --sm, one node) the ports are ACTIVE with distinct LIDs and
# the SM's port (port 1) as their SM LID.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-sysfs-tree}
out=${OUT:-/vmout/sysfs-tree.txt}
# the dump (2), node_desc (2), node type and link layers (3), P_Keys (2);
# under an SM the port states, LIDs and SM LIDs (8)
if [ "${UNDER_SM:-1}" = 1 ]; then plan 17; else plan 9; fi

# Every exec is slow under TCG: one find for the entries and their modes,
# the values through bash's read, one awk for the classes.
raw=$(mktemp)
expect "$t: mlx4_0 is in /sys/class/infiniband" [ -d "$ibdev/" ]
cd "$ibdev/" || exit 0
find . -mindepth 1 \( -name device -o -name subsystem \) -prune -o \
	-printf '%P\t%y\t%m\t%l\n' | LC_ALL=C sort >"$raw.list"
while IFS=$'\t' read -r path type mode target; do
	case $type in
	d) printf '%s\t%s\tdir\t\n' "$path" "$mode" ;;
	l) printf '%s\tl\tlink\t%s\n' "$path" "${target##*/}" ;;
	f)
		if [ $((8#$mode & 8#444)) = 0 ]; then
			printf '%s\t%s\t-\t\n' "$path" "$mode"
			continue
		fi
		v="" err=""
		{ IFS= read -r v <"$path"; } 2>"$raw.err" || [ -n "$v" ] || {
			read -r err <"$raw.err"
			[ -n "$err" ] && err="<error: ${err##*: }>"
		}
		printf '%s\t%s\t%s\t%s\n' "$path" "$mode" "${err:-=}" "${v//$'\t'/ }"
		;;
	*) printf '%s\t%s\t?\t\n' "$path" "$type" ;;
	esac
done <"$raw.list" >"$raw"
cd - >/dev/null || exit 0
# the class of every plain value (column 3 "=")
awk -F'\t' -v OFS='\t' '
function cls(v,   out, m) {
	if (v == "")
		return "<empty>"
	out = ""
	while (length(v)) {
		if (match(v, /^0x[0-9a-fA-F]+/)) {
			out = out "0xH"
		} else if (match(v, /^[0-9a-fA-F]+(:[0-9a-fA-F]+)+/)) {
			m = substr(v, 1, RLENGTH)
			gsub(/[0-9a-fA-F]/, "h", m)
			out = out m
		} else if (match(v, /^[0-9]+/)) {
			out = out "9"
		} else if (match(v, /^[A-Za-z_]+/)) {
			out = out substr(v, 1, RLENGTH)
		} else {
			RLENGTH = 1
			out = out substr(v, 1, 1)
		}
		v = substr(v, RLENGTH + 1)
	}
	return out
}
{ if ($3 == "=") $3 = cls($4); print }' "$raw" >"$out"
n=$(grep -c . "$out")
expect "$t: dumped $n entries to $out" [ "$n" -gt 100 ]
rm -f "$raw" "$raw.list" "$raw.err"

# node_desc: an administrator may set it (and gets it back)
# (empty until someone sets it: no rdma-ndd in the VMs; but it must be
# readable, before and after)
old_ok=0
old=
IFS= read -r old <"$ibdev/node_desc" && old_ok=1
desc="ibstack test $RANDOM"
echo "$desc" >"$ibdev/node_desc"
expect "$t: node_desc is writable (wrote '$desc', read back '$(<"$ibdev/node_desc")')" \
	same "$(<"$ibdev/node_desc")" "$desc"
echo "$old" >"$ibdev/node_desc"
# shellcheck disable=SC2317 # called through expect
restored() {
	local now
	[ "$old_ok" = 1 ] && IFS= read -r now <"$ibdev/node_desc" && [ "$now" = "$old" ]
}
expect "$t: node_desc restored ('$old', read before: $old_ok)" restored

# values the stack must show whatever it is
val() { cat "$ibdev/$1" 2>&1; }
is() {
	local v
	v=$(val "$1")
	expect "$t: $1 is '$2' (got '$v')" same "$v" "$2"
}
is node_type "1: CA"
is ports/1/link_layer InfiniBand
is ports/2/link_layer InfiniBand
if [ "${UNDER_SM:-1}" = 1 ]; then
	is ports/1/state "4: ACTIVE"
	is ports/2/state "4: ACTIVE"
	is ports/1/phys_state "5: LinkUp"
	is ports/2/phys_state "5: LinkUp"
	is ports/1/lid_mask_count 0
	l1=$(val ports/1/lid) l2=$(val ports/2/lid)
	# shellcheck disable=SC2317 # called through expect
	lids_ok() {
		[[ "$1" =~ ^0x[0-9a-fA-F]+$ && "$2" =~ ^0x[0-9a-fA-F]+$ ]] &&
			[ $(($1)) -gt 0 ] && [ $(($2)) -gt 0 ] && [ $(($1)) != $(($2)) ]
	}
	expect "$t: the ports have distinct non-zero LIDs ($l1, $l2)" lids_ok "$l1" "$l2"
	is ports/1/sm_lid "$l1"
	is ports/2/sm_lid "$l1"
fi
is ports/1/pkeys/0 0xffff
is ports/2/pkeys/0 0xffff
exit 0

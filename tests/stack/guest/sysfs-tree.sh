#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The sysfs tree of mlx4_0 (/sys/class/infiniband/mlx4_0, recursively, not
# following symlinks), one line per entry, tab-separated:
#     PATH  MODE  CLASS  VALUE
# PATH relative to the device, MODE the permission bits (stat %a; "l" for a
# symlink), CLASS the value's format (see below), VALUE the value itself
# (first line, tabs as spaces; a symlink's target name).  Two stacks'
# dumps are compared by tests/suite/compare.py.  Written to OUT (default
# /vmout/sysfs-tree.txt).
#
# CLASS: "dir" for a directory, "-" for a file nobody may read, "<empty>",
# "<error: MESSAGE>" when reading fails, else the value with every 0x-number
# as 0xH, every colon-joined hex group as as many h's (GIDs, GUIDs), and
# every other run of decimal digits as 9.
#
# Under an SM, ib0 too (below): its tree to OUT_NET (default OUT's name
# with -ib0), a legacy child's to OUT_CHILD (-ib0.8001), ethtool's outputs
# to the directory OUT_ETHTOOL (-ethtool).  The names of the card's
# interrupts in /proc/interrupts, in its order, to OUT_IRQ (-irq.txt).
# mlx4_0's device and subsystem
# links are left out of its dump; ib0's are in, their targets named.
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

# dump DIR FILE [PRUNE...]: DIR's tree into FILE in the format above;
# entries named PRUNE (links) are left out.  Every exec is slow under TCG:
# one find for the entries and their modes, the values through bash's
# read, one awk for the classes.
dump() {
	local dir=$1 file=$2 raw n path type mode target v err
	shift 2
	local prune=(-false)
	for n in "$@"; do prune+=(-o -name "$n"); done
	raw=$(mktemp)
	(cd "$dir/" && find . -mindepth 1 \( "${prune[@]}" \) -prune -o \
		-printf '%P\t%y\t%m\t%l\n') | LC_ALL=C sort >"$raw.list"
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
			{ IFS= read -r v <"$dir/$path"; } 2>"$raw.err" || [ -n "$v" ] || {
				read -r err <"$raw.err"
				[ -n "$err" ] && err="<error: ${err##*: }>"
			}
			printf '%s\t%s\t%s\t%s\n' "$path" "$mode" "${err:-=}" "${v//$'\t'/ }"
			;;
		*) printf '%s\t%s\t?\t\n' "$path" "$type" ;;
		esac
	done <"$raw.list" >"$raw"
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
	{ if ($3 == "=") $3 = cls($4); print }' "$raw" >"$file"
	rm -f "$raw" "$raw.list" "$raw.err"
}

expect "$t: mlx4_0 is in /sys/class/infiniband" [ -d "$ibdev/" ]
[ -d "$ibdev/" ] || exit 0
dump "$ibdev" "$out" device subsystem
n=$(grep -c . "$out")
expect "$t: dumped $n entries to $out" [ "$n" -gt 100 ]

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

# the card's interrupts, as /proc/interrupts names them (scripts that spread
# a card's interrupts over the CPUs match these names)
awk '/mlx4/ { print $NF }' /proc/interrupts >"${OUT_IRQ:-${out%.txt}-irq.txt}" 2>&1

# --- ib0 -------------------------------------------------------------------
# Under an SM: ib0 up with carrier (speed and the like are real), its tree
# dumped like mlx4_0's to OUT_NET; ethtool's outputs of ib0 in OUT_ETHTOOL
# (one file each, the command's output then "exit status N"; -S with the
# counters' names only, their values move); a legacy child through
# create_child (P_Key 0x8001, not in the port's table: it stays without
# carrier under either stack) dumped to OUT_CHILD and deleted; ib0 as found.
if [ "${UNDER_SM:-1}" = 1 ]; then
	out_net=${OUT_NET:-${out%.txt}-ib0.txt}
	out_child=${OUT_CHILD:-${out%.txt}-ib0.8001.txt}
	out_eth=${OUT_ETHTOOL:-${out%.txt}-ethtool}
	child=/sys/class/net/ib0.8001
	# ib0 (1), carrier (1), the dump (1), ethtool (2), connected mode (1),
	# the child (3), ib0 as found (1)
	plan_more 10
	expect "$t: ib0 exists" wait_for 30 test -e "$ib0_sys/address"
	ib0_take
	expect "$t: ib0 up has carrier" wait_for 60 ib0_carrier 1
	dump "$ib0_sys" "$out_net"
	n=$(grep -c . "$out_net")
	expect "$t: dumped $n entries of ib0 to $out_net" [ "$n" -gt 50 ]

	mkdir -p "$out_eth"
	# shellcheck disable=SC2317 # called through expect
	eth() {
		local f=$1 rc=0
		shift
		ethtool "$@" ib0 >"$out_eth/$f.txt" 2>&1 || rc=$?
		echo "exit status $rc" >>"$out_eth/$f.txt"
	}
	eth link
	eth i -i
	eth k -k
	eth c -c
	eth g -g
	eth l -l
	eth a -a
	eth T -T
	ethtool -S ib0 >"$out_eth/S.raw" 2>&1
	echo "exit status $?" >>"$out_eth/S.raw"
	sed -E 's/^( +[^:]+): .*/\1/' "$out_eth/S.raw" >"$out_eth/S.txt"
	rm -f "$out_eth/S.raw"
	expect "$t: ethtool's outputs of ib0 in $out_eth ($(ls "$out_eth" | tr '\n' ' '))" \
		[ "$(ls "$out_eth" | wc -l)" = 9 ]
	link=$(cat "$out_eth/link.txt")
	expect "$t: ethtool ib0: a speed, full duplex, link detected" \
		contains "$link" '^\s+Speed: [0-9]+Mb/s$' '^\s+Duplex: Full$' '^\s+Link detected: yes$'
	# the offloads in connected mode
	if echo connected >"$ib0_sys/mode" 2>/dev/null; then
		eth k-connected -k
		pass "$t: ib0 in connected mode: ethtool -k saved"
		echo datagram >"$ib0_sys/mode"
	else
		fail "$t: ib0 in connected mode" "writing 'connected' to $ib0_sys/mode failed"
	fi

	# a legacy child
	if [ -e "$ib0_sys/create_child" ]; then
		echo 0x8001 >"$ib0_sys/create_child"
		expect "$t: create_child 0x8001 makes ib0.8001" wait_for 30 test -e "$child/address"
		dump "$child" "$out_child"
		n=$(grep -c . "$out_child")
		expect "$t: dumped $n entries of ib0.8001 to $out_child" [ "$n" -gt 50 ]
		echo 0x8001 >"$ib0_sys/delete_child"
		expect "$t: delete_child 0x8001 removes ib0.8001" wait_for 30 test ! -e "$child"
	else
		fail "$t: ib0 has create_child" "no $ib0_sys/create_child: no child to dump"
		fail "$t: the child's dump" "no child"
		fail "$t: delete_child" "no child"
	fi
	ib0_give_back
	expect "$t: ib0 as found ($(ib0_state))" ib0_as_found
fi
exit 0

# SPDX-License-Identifier: GPL-2.0
# Helpers of the kverbs guest scripts (on top of the test bed's lib.sh):
# finding and loading ibstack_kverbs.ko, and turning its kernel log lines
# into PASS/FAIL lines.
# shellcheck shell=bash
# shellcheck source-path=SCRIPTDIR source=../../testbed/guest/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../testbed/guest/lib.sh"

kv_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KVER=${KVER:-$(uname -r)}

# kv_ko: the test module built for the running kernel (KVERBS_KO first,
# then the build directory of this release, then the source directory).
kv_ko() {
	local f b
	b=$(make -s -C "$kv_top" print-builddir KVER="$KVER" 2>/dev/null) || b=
	for f in ${KVERBS_KO:-} ${b:+"$b/tests/kverbs/ibstack_kverbs.ko"} \
		"$kv_top/tests/kverbs/ibstack_kverbs.ko"; do
		[ -f "$f" ] || continue
		[ "$(modinfo -F vermagic "$f" 2>/dev/null | cut -d' ' -f1)" = "$KVER" ] ||
			continue
		echo "$f"
		return 0
	done
	return 1
}

# kv_load [PARAM=VALUE...]: (re)load the module
kv_load() {
	local f
	[ -d /sys/module/ibstack_kverbs ] && rmmod ibstack_kverbs
	if modinfo -k "$KVER" ibstack_kverbs >/dev/null 2>&1; then
		modprobe ibstack_kverbs "$@"
		return
	fi
	f=$(kv_ko) || { echo "no ibstack_kverbs.ko built for $KVER" >&2; return 1; }
	insmod "$f" "$@"
}

kv_mark() { dmesg | wc -l; }
kv_since() { dmesg | tail -n +"$(($1 + 1))"; }

# kv_wait_log SECONDS MARK REGEX: a kernel log line after MARK matches
kv_wait_log() {
	local end=$((SECONDS + $1))
	until kv_since "$2" | grep -Eq -- "$3"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 1
	done
}

# kv_results MARK PREFIX: the module's PASS/FAIL lines after MARK, named
# "PREFIX: case"
kv_results() {
	kv_since "$1" | sed -n -E "s/^.*ibstack_kverbs: (PASS|FAIL) (.*)\$/\\1 $2: \\2/p"
}

# kv_count MARK REGEX-OF-DONE-LINE: "N M" from the "N passed, M failed" line
kv_count() {
	kv_since "$1" | grep -E -- "$2" | tail -n 1 |
		sed -n -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p'
}

# kv_line MARK REGEX: the kernel log line number (a mark) of the first line
# after MARK that matches
kv_line() {
	local n
	n=$(kv_since "$1" | grep -En -m 1 -- "$2" | cut -d: -f1)
	[ -n "$n" ] || return 1
	echo $(($1 + n))
}

# kv_connect T XTAG DIR PORT: the two-node peer test's connection: set the
# port, read this node's endpoint line, swap it with the other node's over
# the management network (peer_xchg tag XTAG) and write theirs.  Two checks
# ("T: endpoint line", "T: connect to the peer"); returns 0 once connected.
kv_connect() {
	local t=$1 xtag=$2 d=$3 port=$4 ok=1 mine theirs
	echo "$port" >"$d/port" 2>/dev/null
	mine=$(cat "$d/endpoint" 2>/dev/null) || { mine=abort; ok=0; }
	expect "$t: endpoint line" [ "$ok" = 1 ]
	theirs=$(peer_xchg "$xtag" "$mine") || theirs=abort
	echo "node $NODE: mine: $mine"
	echo "node $NODE: peer: $theirs"
	if [ "$ok" != 1 ] || [ "$theirs" = abort ]; then
		fail "$t: endpoint exchange" "mine '$mine', peer '$theirs'"
	elif [ "${mine%% *}" = "${theirs%% *}" ]; then
		fail "$t: distinct LIDs" "both ports have ${mine%% *}: run under an SM or give the nodes different auto-lid options"
	elif ! echo "$theirs" >"$d/peer"; then
		fail "$t: connect to the peer" "the peer line was refused (see dmesg)"
	else
		pass "$t: connect to the peer"
		return 0
	fi
	return 1
}

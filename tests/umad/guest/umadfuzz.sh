#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/umad/umadfuzz.c in the guest: UMADFUZZ_N (default 100000) random
# and mutated operations on umadN and issmN of port UMADFUZZ_PORT (default
# 2: the port opensm does not run on) as root, then a tenth of them as
# nobody (the device files' modes decide what nobody gets: EACCES on open
# is an outcome the fuzzer counts), with a seed printed to replay any
# failure (UMADFUZZ_SEED, else random).  Then the subnet is as it was: both
# ports ACTIVE with their LIDs, the SM still master, smpquery and saquery
# answer through the fuzzed port, and the kernel log holds nothing from
# ib_umad or ib_mad but the messages the fuzzer's inputs call for (ours:
# rate-limited notices; the in-tree stack's own unlimited ones, STACK=inbox).
#   UMADFUZZ  the fuzzer (default build/umadfuzz/umadfuzz, built on the host:
#             gcc -O2 -Wall -Wextra -Werror -I include/uapi tests/umad/umadfuzz.c)
#   STACK     ours|inbox
#   UMADFUZZ_ARGS  more options for the fuzzer (e.g. -m 100: go on after failures)
set -u
# shellcheck source-path=SCRIPTDIR source=../../stack/guest/lib.sh
. "$(dirname "$0")/../../stack/guest/lib.sh"
t=${TESTNAME:-umadfuzz}
n=${UMADFUZZ_N:-100000}
p=${UMADFUZZ_PORT:-2}
stack=${STACK:-ours}
fz=${UMADFUZZ:-$stack_top/build/umadfuzz/umadfuzz}
seed=${UMADFUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
dev=$(basename "$(ls -d /sys/class/infiniband/* | head -n 1)")
ibdev=/sys/class/infiniband/$dev
plan 9

# what the kernel may say about the fuzzer's inputs: ours rate-limits all
# of it (ib_umad's notices, ib_core's and mlx4_ib's refusals); the in-tree
# stack says some of it on every call
allowed='callbacks suppressed|: bad QPN [0-9]+$|: bad OUI 0x[0-9a-f]+$|: all 32 agents in use$'
allowed+='|: unsupported registration flags 0x[0-9a-f]+ \(supported 0x1\)$'
allowed+='|uses the old ABI without P_Key indexes$|receive queue full'
allowed+="|^ib_core: [a-z_]+: $dev: |mlx4_ib: QP1: P_Key index [0-9]+ not in port [12]'s table$"
allowed+='|mlx4_ib: post_send: QP 0x1: bad work request \(opcode 2, 1 SGEs, flags 0x2\): -22$'
# and what a slow (TCG) host says now and then
allowed+='|^hrtimer: interrupt took [0-9]+ ns$'
if [ "$stack" = inbox ]; then
	allowed+='|Method [0-9]+ already in use$|invalid QPN [0-9]+ specified$'
	allowed+='|Max Agents \(32\) reached$|did not enable P_Key index support\.$'
	allowed+='|Documentation/infiniband/user_mad\.rst has info on the new ABI\.$'
	allowed+='|invalid registration flags specified|oui invalid|Invalid directed route$'
	allowed+='|All OUI slots in use$|MAD received with unsupported base version'
	allowed+='|ib_create_ah_from_wc error -?[0-9]+$|ib_post_send_mad error$'
fi

lid=$(my_lid "$p")
other=$((3 - p))
olid=$(my_lid "$other")
smlid=$(($(cat "$ibdev/ports/$p/sm_lid")))
# the kernel log as it comes (lib.sh)
klog_watch_start

# run NAME COUNT SEED [setpriv ARGS...]: the fuzzer, and its verdict
run() {
	local name=$1 count=$2 s=$3 o rc s0=$SECONDS
	shift 3
	# shellcheck disable=SC2086
	o=$("$@" "$fz" -n "$count" -s "$s" -p "$p" -d "$dev" ${UMADFUZZ_ARGS:-} 2>&1)
	rc=$?
	echo "$o" | grep -v '^FAIL' | sed 's/^/    /'
	if [ $rc = 0 ] && grep -q "^umadfuzz: $count operations, seed $s: PASS" <<<"$o"; then
		pass "$t: $count operations as $name on port $p, seed $s, $((SECONDS - s0)) s"
	else
		fail "$t: $count operations as $name on port $p, seed $s" \
			"exit $rc: $(grep FAIL <<<"$o" | head -n 10)"
	fi
}
run root "$n" "$seed"
run nobody $((n / 10)) $((seed + 1)) setpriv --reuid=65534 --regid=65534 --clear-groups --

expect "$t: port $p is ACTIVE with LID $lid as before" \
	[ "$(port_state "$p")" = ACTIVE -a "$(my_lid "$p")" = "$lid" ]
expect "$t: port $other is ACTIVE with LID $olid as before" \
	[ "$(port_state "$other")" = ACTIVE -a "$(my_lid "$other")" = "$olid" ]
o=$(sminfo -C "$dev" -P "$p" 2>&1)
expect "$t: sminfo through port $p: the SM at LID $smlid is still master ($o)" \
	contains "$o" "^sminfo: sm lid $smlid .*state 3 SMINFO_MASTER"
o=$(smpquery -C "$dev" -P "$p" -D nodeinfo 0 2>&1)
ng=$(node_guid)
expect "$t: smpquery -D nodeinfo 0 through port $p answers with this node's GUID $ng" \
	contains "$o" "^Guid:\.+$ng$"
o=$(smpquery -C "$dev" -P "$p" portinfo "$lid" "$p" 2>&1)
expect "$t: smpquery portinfo $lid $p (by LID) answers with LID $lid" \
	contains "$o" "^Lid:\.+$lid$" "^LinkState:\.+Active$"
o=$(saquery -C "$dev" -P "$p" NodeRecord 2>&1)
expect "$t: saquery NodeRecord through port $p lists this node's ports (LIDs $lid and $olid)" \
	contains "$o" "^[[:space:]]*lid\.+$lid$" "^[[:space:]]*lid\.+$olid$"

# the kernel log from the first mark to the last: only the notices the
# inputs call for
klog_watch_check "$t: the kernel log has nothing but the notices the fuzzer's inputs call for" \
	"$allowed"
exit 0

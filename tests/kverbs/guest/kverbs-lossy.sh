#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Our stack's RC transport across lossy cables, through the kernel verbs
# peer test (tests/vm/run --stack ours --nodes 2; port 1 of node 1 cabled
# to port 1 of node 2).  For each impairment, each node sets it on its own
# port 1's outgoing packets (cx3_set: the card's lossN/corruptN properties),
# so both directions suffer: the peer test then runs its RC part with the
# RDMA WRITE and READ of 64 KiB repeated (ROUNDS), without its UD SEND
# (unreliable by design), and must pass with every byte right; the
# transport counters of our mlx4_ib (hw_counters, DIAG_RPRT) show the
# resends.  Last, node 2 stops answering (it destroys its QPs, as when the
# peer's process dies: the card drops what comes for them) and node 1's
# SEND must end in the retry-exceeded completion after the time its QP's
# timeout and retry count say (the module checks it: kv_peer_dead).  The SM
# sees the lossy cables too: before the end, the subnet must show the peer
# again (the tests after this one in the same boot rely on it).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=kverbs-lib.sh
. "$here/kverbs-lib.sh"
t=${TESTNAME:-kverbs-lossy}
dev=mlx4_0
port=1
d=/sys/kernel/debug/ibstack_kverbs/$dev
: "${NODE:?}" "${PEER:?}"
# name, property, value (parts per million), rounds of the WRITE and READ
scenarios=(
	"loss1pct loss1 10000 60"
	"loss10pct loss1 100000 15"
	"corrupt1pct corrupt1 10000 60"
)
# per scenario: endpoint, connect, the run's done line, the counters;
# the dead peer: endpoint, connect, and on node 1 its done line;
# load, ACTIVE, the SA knowing the peer, unload, remove
plan $((${#scenarios[@]} * 4 + 2 + 1 + 5))

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
num() { local v; v=$(hwc "$1"); [[ "$v" =~ ^[0-9]+$ ]] && echo "$v" || echo "?"; }
# the resends this node's card counted: sequence errors seen as responder
# and as requester
resends() {
	local a b
	a=$(num rq_num_oos) b=$(num sq_num_oos)
	[ "$a" = "?" ] || [ "$b" = "?" ] && { echo "?"; return; }
	echo $((a + b))
}

mark=$(kv_mark)
if ! kv_load selftest=0; then
	fail "$t: load ibstack_kverbs" "insmod failed or no module for $KVER"
	exit 0
fi
expect "$t: client added to $dev" kv_wait_log 10 "$mark" "ibstack_kverbs: add $dev\$"
# shellcheck disable=SC2317 # called through wait_for
active() { grep -q ACTIVE "/sys/class/infiniband/$dev/ports/$port/state"; }
expect "$t: port $port ACTIVE" wait_for 30 active

# run_peer TAG: the peer test, its PASS/FAIL lines, one check that its
# done line counts them and nothing failed
run_peer() {
	local tag=$1 mark counts np nf lines gp gf
	mark=$(kv_mark)
	echo 1 >"$d/run"
	done_re="ibstack_kverbs: peer test done: "
	kv_wait_log 10 "$mark" "$done_re"
	lines=$(kv_results "$mark" "$tag")
	echo "$lines"
	counts=$(kv_count "$mark" "$done_re")
	np=${counts% *} nf=${counts#* }
	gp=$(grep -c '^PASS' <<<"$lines")
	gf=$(grep -c '^FAIL' <<<"$lines")
	if [ -n "$np" ] && [ "$np" -gt 0 ] && [ "$nf" = 0 ] && [ "$np" = "$gp" ] && [ "$gf" = 0 ]; then
		pass "$tag: peer test done: $np passed, 0 failed"
	else
		fail "$tag: peer test" "done line '${counts:-missing}', $gp PASS and $gf FAIL lines"
	fi
}

for sc in "${scenarios[@]}"; do
	read -r name prop val rounds <<<"$sc"
	tag="$t $name"
	echo 1 >"$d/reset"
	echo "$rounds" >"$d/rounds"
	echo 0 >"$d/ud"
	ok=0
	kv_connect "$tag" "kv-$name-endpoint" "$d" "$port" && ok=1
	[ "$(peer_xchg "kv-$name-ready" "$ok")" = 1 ] || ok=0
	before=$(resends)
	if [ "$ok" = 1 ] && cx3_set "$prop" "$val"; then
		# both cables impaired before either node sends
		[ "$(peer_xchg "kv-$name-set" 1)" = 1 ] || ok=0
	else
		peer_xchg "kv-$name-set" 0 >/dev/null
		ok=0
	fi
	if [ "$ok" = 1 ]; then
		run_peer "$tag"
	else
		fail "$tag: peer test" "not run (setup or the impairment failed on one node)"
	fi
	cx3_set "$prop" 0 || echo "node $NODE: could not clear $prop"
	# neither node tears down while the other may still use its memory
	peer_xchg "kv-$name-ran" "done" >/dev/null
	after=$(resends)
	echo "node $NODE: $name: resends counted $before -> $after (rq_num_oos $(num rq_num_oos), sq_num_oos $(num sq_num_oos))"
	if [ "$before" != "?" ] && [ "$after" != "?" ] && [ "$after" -gt "$before" ]; then
		pass "$tag: the transport counters show resends ($((after - before)))"
	else
		fail "$tag: transport counters" "sequence errors counted $before before, $after after"
	fi
done

# the dead peer: node 2 goes silent, node 1's SEND runs out of retries
name=dead
tag="$t $name"
echo 1 >"$d/reset"
ok=0
kv_connect "$tag" "kv-$name-endpoint" "$d" "$port" && ok=1
[ "$(peer_xchg "kv-$name-ready" "$ok")" = 1 ] || ok=0
if [ "$NODE" = 2 ]; then
	st=0
	[ "$ok" = 1 ] && echo 1 >"$d/reset" && st=1
	peer_xchg "kv-$name-set" "$st" >/dev/null
	# bounded by peer_xchg: node 1 comes once its test is done
	XCHG_BOUND=120 peer_xchg "kv-$name-ran" "done" >/dev/null
else
	[ "$(peer_xchg "kv-$name-set" 1)" = 1 ] || ok=0
	if [ "$ok" = 1 ]; then
		mark=$(kv_mark)
		tree0=$(num sq_num_tree)
		echo 1 >"$d/dead"
		done_re="ibstack_kverbs: dead-peer test done: "
		kv_wait_log 10 "$mark" "$done_re"
		kv_since "$mark" | grep -E "dead peer: completion after" | sed 's/^.*ibstack_kverbs: //'
		lines=$(kv_results "$mark" "$tag")
		echo "$lines"
		echo "node 1: sq_num_tree $tree0 -> $(num sq_num_tree)"
		counts=$(kv_count "$mark" "$done_re")
		if [ "$counts" = "4 0" ] && [ "$(grep -c '^PASS' <<<"$lines")" = 4 ]; then
			pass "$tag: retry-exceeded after the time the timeout and retry count say; QP in ERR; then flushed"
		else
			fail "$tag: dead-peer test" "done line '${counts:-missing}' (want 4 passed, 0 failed)"
		fi
	else
		fail "$tag: dead-peer test" "not run (setup failed on one node)"
	fi
	peer_xchg "kv-$name-ran" "done" >/dev/null
fi
[ "$NODE" = 1 ] || plan_more -1

# the subnet as the SM sees it again: the peer's port among the NodeRecords
# shellcheck disable=SC2317 # called through expect/wait_for
peer_known() {
	local own
	own=$(($(<"/sys/class/infiniband/$dev/ports/$port/lid")))
	saquery -C "$dev" -P "$port" NR 2>/dev/null |
		sed -nE 's/^[[:space:]]*lid\.+(0x[0-9a-fA-F]+|[0-9]+)$/\1/p' |
		while read -r l; do [ "$((l))" != "$own" ] && echo "$((l))"; done | grep -q .
}
expect "$t: the SA knows the peer's port again" wait_for 60 peer_known

mark=$(kv_mark)
expect "$t: unload" rmmod ibstack_kverbs
expect "$t: client removed from $dev" kv_wait_log 10 "$mark" \
	"ibstack_kverbs: remove $dev\$"
exit 0

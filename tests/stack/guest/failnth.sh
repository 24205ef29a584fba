#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every kernel fault point of single verbs and umad operations failing in
# turn (tests/stack/failnth.c, built on the host into build/failnth): alloc
# PD, reg MR of 4 KiB and 4 MiB, create CQ, create RC and UD QPs, modify an
# RC QP to INIT, RTR and RTS, create SRQ, alloc MW, their destroys; open
# umadN, register and unregister an agent, send a DR SMP and read its
# answer.  Each failure must end in success or ENOMEM with the object as a
# user expects it, and the operation works again afterwards.  The points:
# every slab allocation (failslab) and every page allocation of any order
# (fail_page_alloc, min-order 0), sleeping or not, the task makes in the
# call; the injections are not logged (verbose 0).  On the debug kernel
# only (fail-nth, failslab, fail_page_alloc); one node under opensm.  Then
# the device's resource counts (rdma resource) are as before the tool, no
# destroy failed to take its QP out of the card, and the run's end judges
# the rest: no kernel splat, kmemleak's final scan,
# the model's accounting at the card's closing.
#   FAILNTH      the tool (default build/failnth/failnth)
#   FAILNTH_OPS  the operations to sweep (default: all of them)
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-failnth}
tool=${FAILNTH:-$stack_top/build/failnth/failnth}
dbg=/sys/kernel/debug
all_ops="alloc-pd dealloc-pd reg-mr-4k reg-mr-4m dereg-mr-4m create-cq destroy-cq
create-qp-rc create-qp-ud modify-qp-init modify-qp-rtr modify-qp-rts destroy-qp-rts
create-srq destroy-srq alloc-mw dealloc-mw umad-open umad-register umad-unregister umad-send"
read -ra ops <<<"$(echo ${FAILNTH_OPS:-$all_ops})"
# the set-up, one per operation, the tool's exit, the resource counts, the
# destroys' modify to RESET
plan $((${#ops[@]} + 4))

mountpoint -q "$dbg" || mount -t debugfs none "$dbg"
if [ ! -e /proc/self/fail-nth ] || [ ! -d "$dbg/failslab" ] || [ ! -d "$dbg/fail_page_alloc" ]; then
	fail "$t: fault injection in this kernel ($KVER)" \
		"no /proc/self/fail-nth or $dbg/failslab, fail_page_alloc: run it on the debug kernel"
	exit 0
fi
setup() {
	local f
	for f in failslab fail_page_alloc; do
		echo N >"$dbg/$f/ignore-gfp-wait" && echo 0 >"$dbg/$f/verbose" || return 1
	done
	echo 0 >"$dbg/fail_page_alloc/min-order"
}
expect "$t: fault injection set up (every slab and page allocation, fail-nth)" setup

# res_counts: mlx4_0's objects by type, as the rdma tool counts them
res_counts() { rdma resource show mlx4_0 2>/dev/null | sed 's/^[0-9]*: mlx4_0: *//'; }
before=$(res_counts)
k=$(klog_mark)
out=$(mktemp)
"$tool" "${ops[@]}" >"$out" 2>&1
rc=$?
for op in "${ops[@]}"; do
	l=$(grep -E "^(PASS|FAIL) failnth $op: " "$out" | head -n 1)
	case $l in
	PASS*) pass "$t: ${l#PASS failnth }" ;;
	FAIL*) fail "$t: $op" "${l#FAIL failnth "$op": }" ;;
	*) fail "$t: $op" "no verdict from the tool (it exited $rc)" ;;
	esac
done
grep -vE '^(PASS|FAIL) failnth [a-z0-9-]+: ' "$out" | sed 's/^/    /'
expect "$t: the tool exited 0 ($rc)" [ "$rc" = 0 ]
after=$(res_counts)
expect "$t: mlx4_0's resource counts as before the tool ($after)" same "$before" "$after"
# a destroy takes its QP out of the card whatever fails (mlx4_ib used to
# allocate for the modify to RESET, and skip it when that failed: the QP
# stayed live in the card)
reset_failed() { klog_since "$k" | grep -E 'mlx4_ib: QP 0x[0-9a-f]+: modify to RESET failed'; }
expect "$t: no QP's modify to RESET failed in a destroy" eval '! reset_failed'
rm -f "$out"
exit 0

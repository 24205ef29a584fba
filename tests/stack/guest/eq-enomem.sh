#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Each slab allocation of an EQ's creation failing once (issue 13: a failed
# allocation of an EQ's page array made the unwind walk a NULL array).  On
# the debug kernel only: it needs the kernel's fault injection (failslab,
# and /proc/PID/fail-nth: the Nth fault-injection point a task passes
# fails).  One node, no SM.
#
# mlx4_core is unbound from the card, then bound again and again by a
# child shell with its fail-nth set during the card's reset
# (kfault-lib.sh): the count starts in mlx4_core's own code and
# is the same from one bind to the next.  Only kmalloc's allocations are
# fault points (failslab's cache-filter): page allocations are not
# (fail_page_alloc's min-order above the largest; which of them a path
# makes depends on the state of the slabs), nor the kernel's own caches.
# Every injected failure is logged with its stack, which says where it
# hit: a search finds the first point in mlx4_create_eq (after the MSI-X
# vectors, in the EQ set-up), then
# each point of that first EQ's creation is tried in turn (its context,
# page array, DMA list, MTT and mailbox): each probe must fail cleanly or
# fall back to INTx and succeed, with no oops; the debug kernel's checkers
# (KASAN, kmemleak at the end) and the model's accounting at every release
# of the card (nothing left) judge the unwinds.  Last, the card binds
# without injection and comes up as usual.
set -u
. "$(dirname "$0")/lib.sh"
# shellcheck source=kfault-lib.sh
. "$(dirname "$0")/kfault-lib.sh"
t=${TESTNAME:-eq-enomem}
drv=$kf_drv
dbg=$kf_dbg
# the tools, the unbind, every attempt armed, the search, the points of the
# first EQ's creation, no oops, the settings restored, the bind after,
# mlx4_0 back, INIT
plan 10

if ! kf_available; then
	fail "$t: fault injection in this kernel ($KVER)" \
		"no /proc/self/fail-nth or $dbg/failslab, fail_page_alloc: run it on the debug kernel"
	exit 0
fi
# GFP_KERNEL allocations fail too; every injection logged with its stack;
# kmalloc's allocations only, no page allocation
expect "$t: fault injection set up (fail-nth; kmalloc's slab allocations, no page allocation)" \
	kf_setup 0

bdf=$kf_bdf
expect "$t: unbind mlx4_core from $bdf" kf_unbind

# attempt N: bind with the Nth fault point after the card's reset failing;
# sets armed (fail-nth set in time: 0/1), cls (pre: before the first
# mlx4_create_eq; eq: in an mlx4_create_eq; post: later, or no injection
# seen), site (the caller of mlx4_create_eq in the stack), bound, oops;
# leaves the card unbound
cls=post site='' bound=0 oops=0 narmed=0 nattempts=0 oopses=0
attempt() {
	local trace log
	kf_bind "$1"
	nattempts=$((nattempts + 1))
	narmed=$((narmed + kf_armed))
	bound=0
	kf_bound && bound=1
	log=$kf_log
	oops=$kf_oops
	site=
	trace=$(kf_trace)
	if [ -z "$trace" ]; then
		cls=none
	elif grep -q 'mlx4_create_eq+' <<<"$trace"; then
		cls=eq
		site=$(grep -oE 'mlx4_setup_eqs[a-z._0-9]*\+0x[0-9a-f]+' <<<"$trace" | head -n 1)
	elif sed '/FAULT_INJECTION: forcing a failure/,$d' <<<"$log" | grep -q 'command events work' ||
		grep -Eq 'request_threaded_irq|mlx4_cmd_use_events|mlx4_NOP|mlx4_init_(cq|srq|qp|mcg)_table|mlx4_init_ports|mlx4_register_device' <<<"$trace"; then
		cls=post
	else
		cls=pre
	fi
	[ "$bound" = 1 ] && kf_unbind
	oopses=$((oopses + oops))
	[ "$oops" = 1 ] && echo "$t: N=$1: an oops or a KASAN report (in the kernel log)"
	return 0
}
# class_at N: the class of the first attempt from N on whose injection was
# seen (one not seen: a silent one, GFP_NOWARN, or none past the end);
# "post" if none of 5 was; sets at
class_at() {
	local k
	for k in 0 1 2 3 4; do
		at=$(($1 + k))
		attempt "$at"
		[ "$cls" = none ] || return 0
	done
	cls=post
}

# the first point in mlx4_create_eq: doubling, then bisection; the points
# in it or after it are not "pre"
lo=0 hi=1
while :; do
	class_at "$hi"
	[ "$cls" = pre ] || break
	lo=$at hi=$((at * 2))
	[ "$hi" -le 20000 ] || break
done
while [ $((hi - lo)) -gt 1 ]; do
	mid=$(((lo + hi) / 2))
	class_at "$mid"
	if [ "$cls" = pre ]; then lo=$at; else hi=$mid; fi
done
class_at "$hi"
first=$at first_site=$site
expect "$t: the first fault point in mlx4_create_eq is N=$first (called at ${first_site:-?})" \
	[ "$cls" = eq ]

# every point of that first EQ's creation in turn
points=0 failed=0 fellback=0
while [ "$cls" = eq ] && [ "$site" = "$first_site" ] && [ "$points" -lt 100 ]; do
	points=$((points + 1))
	if [ "$bound" = 1 ]; then fellback=$((fellback + 1)); else failed=$((failed + 1)); fi
	class_at $((at + 1))
done
echo "$t: $points fault points in the first EQ's creation (N=$first..$((at - 1))):" \
	"$failed probes failed, $fellback succeeded after falling back to INTx"
expect "$t: every fault point of the first EQ's creation tried ($points, up to the next one elsewhere)" \
	test "$points" -ge 4 -a "$cls" != none
expect "$t: no oops or KASAN report in any of the $nattempts attempts ($oopses)" [ "$oopses" = 0 ]
expect "$t: the fault point was set during the reset in each of the $nattempts attempts ($narmed)" \
	[ "$narmed" = "$nattempts" ]

expect "$t: the fault-injection settings restored" kf_restore
k=$(klog_mark)
expect "$t: bind mlx4_core without injection" sh -c "echo $bdf >$drv/bind"
expect "$t: mlx4_0 back with both ports" wait_for 60 [ -e "$ibdev/ports/2/state" ]
# shellcheck disable=SC2317 # called through expect
both_init() { port_is 1 INIT && port_is 2 INIT; }
expect "$t: both ports INIT" wait_for 30 both_init
echo "$t: the driver said on the last bind:"
klog_since "$k" | grep -E 'mlx4' | head -n 10 | sed 's/^/    /'
exit 0

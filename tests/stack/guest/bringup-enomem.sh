#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fault points spread over the whole bring-up of the card failing, one per
# bind of mlx4_core (kfault-lib.sh: fail-nth set during the card's reset):
# mlx4_core's probe and, in the same task, the add of mlx4_0 to every
# client loaded (mlx4_ib's registration, ib_mad, ib_sa, ib_cm, ib_umad,
# ib_uverbs, ib_ipoib).  Every kmalloc'ed object is a point (failslab;
# the kernel's own caches are not: kfault-lib.sh), and
# with KFAULT_PAGES=1 (the default) every page allocation of any order
# (fail_page_alloc); each injection is logged with its stack, whose
# innermost frame in our modules is printed per attempt.  A first bind,
# with fail-nth too high to be reached, counts the points (P): most of
# them are late, IPoIB's connected-mode receive ring filling page by page.
# Then KFAULT_SAMPLES binds (default 30) each fail one point: half of them
# spread evenly over 1..P, half log-spaced (P^(j/half): dense in
# mlx4_core's and mlx4_ib's bring-up, which come first).  Each must end
# within 300 s, either refused with an errno or bound (the
# device up, possibly without a client's part, as upstream), with no oops
# or KASAN report; a bound card is unbound again.  Last, a bind without
# injection brings mlx4_0 back, opensm again, both ports ACTIVE.  The run's
# end judges the rest: no kernel splat, kmemleak's final scan, the model's
# accounting at every release of the card.  The debug kernel only; one node
# under opensm.
set -u
. "$(dirname "$0")/lib.sh"
# shellcheck source=kfault-lib.sh
. "$(dirname "$0")/kfault-lib.sh"
t=${TESTNAME:-bringup-enomem}
samples=${KFAULT_SAMPLES:-30}
pages=${KFAULT_PAGES:-1}
# the set-up, the unbind, the count, every attempt armed, ended, clean
# (bound or an errno), no oops; the settings restored; the bind after,
# mlx4_0 back, opensm, ACTIVE
plan 12

if ! kf_available; then
	fail "$t: fault injection in this kernel ($KVER)" \
		"no /proc/self/fail-nth or failslab, fail_page_alloc: run it on the debug kernel"
	exit 0
fi
expect "$t: fault injection set up (fail-nth; kmalloc's slab allocations, page allocations: $pages)" \
	kf_setup "$pages"
smports=()
for p in 1 2; do
	sm_up "$p" && smports+=("$p")
done
sm_stop
old=$(ibdev_id)
expect "$t: unbind mlx4_core from $kf_bdf" kf_unbind

# the count: the points a whole bind passes
big=1000000
kf_bind "$big" count
total=
is_num "$kf_left" && total=$((big - kf_left))
kf_bound && kf_unbind
expect "$t: a bind passes $total fault points after the reset (bound: ${kf_err:-yes})" \
	eval '[ "$kf_armed" = 1 ] && [ "$kf_done" = 1 ] && [ -z "$kf_err" ] && is_num "$total" && [ "$total" -gt 100 ]'

narmed=0 nended=0 nclean=0 noops=0 nbound=0 nrefused=0 nseen=0 ntried=0
points=()
if is_num "$total"; then
	read -ra points <<<"$(awk -v p="$total" -v k="$samples" 'BEGIN {
		h = int(k / 2)
		for (i = 0; i < k - h; i++) print 1 + int(i * p / (k - h))
		for (j = 1; j <= h; j++) print int(exp(log(p) * j / h) + 0.5)
	}' | sort -nu | tr '\n' ' ')"
fi
samples=${#points[@]}
echo "$t: the points tried: ${points[*]}"
for n in "${points[@]}"; do
	# (a bind whose reset went by unseen is made again, twice at most)
	for _ in 1 2 3; do
		kf_bind "$n"
		[ "$kf_armed" = 1 ] || [ "$kf_done" != 1 ] && break
		echo "$t: N=$n: the reset went by before fail-nth was set: again"
		if kf_bound; then kf_unbind; fi
	done
	ntried=$((ntried + 1))
	narmed=$((narmed + kf_armed))
	where=$(kf_where)
	[ -n "$(kf_trace)" ] && nseen=$((nseen + 1))
	if [ "$kf_done" != 1 ]; then
		echo "$t: N=$n: the bind did not end within 300 s (${where:-no injection logged})"
		break
	fi
	nended=$((nended + 1))
	res="refused: ${kf_err:-no message}"
	if kf_bound; then
		res="bound, mlx4_0 $( [ -e "$ibdev" ] && echo registered || echo absent)"
		res+=", ib0 $( [ -e /sys/class/net/ib0 ] && echo present || echo absent)"
		if [ -z "$kf_err" ] && kf_unbind && ! kf_bound; then
			nclean=$((nclean + 1))
			nbound=$((nbound + 1))
		else
			res+=" (the write said '${kf_err}', or the unbind failed)"
		fi
	elif [ -n "$kf_err" ]; then
		nclean=$((nclean + 1))
		nrefused=$((nrefused + 1))
	fi
	noops=$((noops + kf_oops))
	echo "$t: N=$n: $res; failed at ${where:-(not logged or not in our modules)}"
	[ "$kf_oops" = 1 ] && echo "$t: N=$n: an oops, WARNING or KASAN report (in the kernel log)"
done
expect "$t: the point was set during the reset in each of the $ntried binds ($narmed)" \
	eval '[ "$samples" -gt 0 ] && [ "$narmed" = "$samples" ]'
expect "$t: each of the $samples binds ended ($nended)" eval '[ "$samples" -gt 0 ] && [ "$nended" = "$samples" ]'
expect "$t: each bind refused with an errno ($nrefused) or bound and unbound ($nbound)" \
	eval '[ "$samples" -gt 0 ] && [ "$nclean" = "$samples" ]'
expect "$t: no oops, WARNING or KASAN report in the $ntried binds ($noops; $nseen injections logged)" \
	eval '[ "$samples" -gt 0 ] && [ "$noops" = 0 ]'

expect "$t: the fault-injection settings restored" kf_restore
k=$(klog_mark)
# (bounded: a bind stuck behind an earlier one's lock fails, not hangs)
kf_bind 0
expect "$t: bind mlx4_core without injection (${kf_err:-bound})" \
	eval '[ "$kf_done" = 1 ] && [ -z "$kf_err" ] && kf_bound'
expect "$t: mlx4_0 back with both ports" wait_for 60 [ -e "$ibdev/ports/2/state" ]
expect "$t: opensm again on the port(s) it ran on (${smports[*]:-none})" \
	sm_back_on "$old" "${smports[@]}"
expect "$t: both ports ACTIVE" wait_for 120 both_active
echo "$t: the driver said on the last bind:"
klog_since "$k" | grep -E 'mlx4' | head -n 10 | sed 's/^/    /'
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A catastrophic error while the card is being removed (issue 13: the
# recovery work queued during mlx4_remove ran on a freed device).  One node,
# port 1 cabled to port 2, no SM.
#
# The test module is loaded with remove_hold=1 and mlx4_core is unbound from
# the card (sysfs unbind, what a hot unplug does): the removal of mlx4_0
# reaches the test module, which waits.  In that window the harness raises
# an internal error.  The removal must go on against a dead card without a
# stall: the driver still notices the error and resets the card (its poll
# runs until the interfaces are gone; a client being removed hears no more
# events, as upstream), no recovery may start on the card being removed
# (mlx4_0 must not come back by itself), and the unbind must end within a
# bound far below a command timeout (60 s), which is what each command of
# the teardown would wait if nothing noticed the error.  Then the card is
# bound again: a fresh mlx4_0, both ports INIT, the client added to it.
# The model's accounting of the unload and the reset after the error are
# checked by the host (catas_reset).
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-catas-remove}
hold=/sys/module/ibstack_kverbs/parameters/remove_hold
drv=/sys/bus/pci/drivers/mlx4_core
bound=${UNBIND_BOUND:-30}
# the card, the test module, the hold reached, the error, the reset, the
# release, the unbind's end, mlx4_0 gone and not back, no recovery, the
# bind, mlx4_0 back, the client added, INIT, the test module out
plan 14

bdf=$(basename "$(readlink -f "$ibdev/device")")
expect "$t: mlx4_0 is PCI device $bdf of mlx4_core" test -n "$bdf" -a -e "$drv/$bdf"
k=$(klog_mark)
expect "$t: load the test module with remove_hold=1" kverbs_load selftest=0 remove_hold=1
klog_wait 30 "$k" '^ibstack_kverbs: add mlx4_0$'

k=$(klog_mark)
sh -c "echo $bdf >$drv/unbind" &
ub=$!
expect "$t: the removal reaches the client, which holds" \
	klog_wait 60 "$k" '^ibstack_kverbs: holding remove mlx4_0$'
expect "$t: raise a catastrophic error during the removal" catas 7
expect "$t: the driver notices the error during the removal and resets the card" \
	klog_wait 30 "$k" 'mlx4_core .*: card reset after the internal error'
expect "$t: release the hold" sh -c "echo 0 >$hold"
s0=$SECONDS
rc=timeout
# shellcheck disable=SC2317 # called through wait_for
ub_done() { ! kill -0 "$ub" 2>/dev/null; }
if wait_for "$bound" ub_done; then
	wait "$ub"
	rc=$?
fi
expect "$t: the unbind ends within ${bound}s of the release (status $rc, $((SECONDS - s0))s)" \
	[ "$rc" = 0 ]
if [ "$rc" = timeout ]; then
	# the rest needs the unbind done: wait for it (bounded), reported above
	wait_for 300 ub_done
fi
# shellcheck disable=SC2317 # called through expect
gone() { [ ! -e "$ibdev" ] && [ ! -e "$drv/$bdf" ]; }
expect "$t: mlx4_0 is gone and stays gone (no recovery brings it back)" gone
rec=$(klog_since "$k" | grep -E 'recovering from the internal error|recovered from' || true)
expect "$t: no recovery started on the card being removed (${rec:-none})" [ -z "$rec" ]
echo "$t: the driver said:"
klog_since "$k" | grep -Ei 'mlx4|catas|internal|reset|fatal' |
	grep -Ev 'buf(fer)?\[([0-9a-f]*[1-9a-f][0-9a-f]*|0*[1-9][0-9]*)\]' | head -n 30 | sed 's/^/    /'

k=$(klog_mark)
expect "$t: bind the card to mlx4_core again" sh -c "echo $bdf >$drv/bind"
expect "$t: a new mlx4_0 with both ports" wait_for 60 [ -e "$ibdev/ports/2/state" ]
expect "$t: the client is added to it" klog_wait 30 "$k" '^ibstack_kverbs: add mlx4_0$'
# shellcheck disable=SC2317 # called through expect
both_init() { port_is 1 INIT && port_is 2 INIT; }
expect "$t: both ports INIT" wait_for 30 both_init
expect "$t: the test module unloads" rmmod ibstack_kverbs
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An internal error found by a command timeout rather than by the poll of
# the catastrophic-error buffer (issue 13: on a command timeout the clients
# were told DEVICE_FATAL, and their CQs flushed, before the card was reset,
# while a real card may still write into what they then free).  One node,
# port 1 cabled to port 2, no SM.
#
# The test module listens for events; mlx4_core stops reading the error
# buffer (catas_poll_ms=0), the harness raises an internal error, and a read
# of a hw_counters file sends the dead firmware a command (DIAG_RPRT) that
# never completes: after its timeout (60 s) the read fails, the driver
# resets the card and only then tells the clients: the card's reset must
# come before DEVICE_FATAL in the kernel log, then the client sees mlx4_0
# removed and added again, and the ports come back to INIT.  The host
# checks that the model saw the reset after the error (catas_reset).
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-catas-timeout}
poll=/sys/module/mlx4_core/parameters/catas_poll_ms
# the source, the poll off, the error, the read fails, the reset, the
# order, remove and add, mlx4_0 back, the poll back on, INIT, the source
# stops
plan 12

if ! ev_start; then
	fail "$t: event source $EVENTS" "could not start it"
	exit 0
fi
pass "$t: event source $EVENTS listening on mlx4_0"
read -r ms <"$poll"
expect "$t: mlx4_core stops reading the error buffer (catas_poll_ms 0, was $ms)" \
	sh -c "echo 0 >$poll"
k=$(klog_mark)
old=$(ibdev_id)
expect "$t: raise a catastrophic error on the card" catas 11
s0=$SECONDS
out=$(cat "$ibdev/hw_counters/rq_num_lle" 2>&1)
rc=$?
expect "$t: a command to the dead card fails after its timeout (read: status $rc, '$out', $((SECONDS - s0))s)" \
	[ "$rc" != 0 ]
reset_re='card reset after the internal error'
fatal_re='^ibstack_kverbs: event mlx4_0 port 0 DEVICE_FATAL$'
expect "$t: the driver resets the card" klog_wait 30 "$k" "$reset_re"
expect "$t: the client gets DEVICE_FATAL" klog_wait 30 "$k" "$fatal_re"
# lineno REGEX: the number of the first line since the mark matching it
lineno() { klog_since "$k" | grep -nE -m1 -- "$1" | cut -d: -f1; }
r=$(lineno "$reset_re")
f=$(lineno "$fatal_re")
expect "$t: the card is reset before any client hears of the error (reset: line ${r:-none}, DEVICE_FATAL: line ${f:-none})" \
	test -n "$r" -a -n "$f" -a "${r:-0}" -lt "${f:-0}"
expect "$t: the client sees mlx4_0 removed and added again" \
	klog_wait 90 "$k" '^ibstack_kverbs: add mlx4_0$'
# shellcheck disable=SC2317 # called through wait_for
dev_back() { ibdev_new "$old" && [ -e "$ibdev/ports/2/state" ]; }
expect "$t: mlx4_0 back in /sys/class/infiniband" wait_for 90 dev_back
expect "$t: mlx4_core reads the error buffer again (catas_poll_ms $ms)" sh -c "echo $ms >$poll"
# shellcheck disable=SC2317 # called through expect
both_init() { port_is 1 INIT && port_is 2 INIT; }
expect "$t: both ports INIT" wait_for 30 both_init
echo "$t: recovered after $((SECONDS - s0))s; the driver said:"
klog_since "$k" | grep -Ei 'mlx4|catas|internal|reset|fatal|timed out' |
	grep -Ev 'buf(fer)?\[([0-9a-f]*[1-9a-f][0-9a-f]*|0*[1-9][0-9]*)\]' | head -n 30 | sed 's/^/    /'
expect "$t: event source stops" ev_stop
exit 0

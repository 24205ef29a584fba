#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An internal error found by a command timeout rather than by the poll of
# the catastrophic-error buffer, the command being a kernel verb's.  One
# node, port 1 cabled to port 2, no SM.  Two review findings of issue 13:
# on a command timeout the clients were told DEVICE_FATAL, and their CQs
# flushed, before the card was reset, while a real card may still write
# into what they then free (#19); and the flush called the CQs' completion
# handlers from the call chain of the verb whose command timed out, which
# the IB midlayer forbids (#30, mlx4_ib/flush.c).
#
# The test module listens for events and sets up its verbfix fixture (an RC
# QP in INIT with 8 receives outstanding on a CQ that has a completion
# handler and is armed); mlx4_core stops reading the error buffer
# (catas_poll_ms=0) and the harness raises an internal error.  The module's
# remove() is held (remove_hold=1) so that the fixture outlives the
# recovery until its verdict is read.  Then this task, through the debugfs
# file, takes the QP to ERR: ib_modify_qp sends the dead firmware a command
# (2ERR_QP) that never completes.  After its timeout (60 s) the driver
# resets the card; the verb, a teardown, then succeeds as on a dead card
# (as a modify to RESET or ERR after the error does), and only then are the
# clients told: the card's
# reset must come before DEVICE_FATAL in the kernel log.  The module's
# verdict: the completion handler was not called in this task inside the
# verb, it was called afterwards, and the 8 receives came back from
# ib_poll_cq once each with WR_FLUSH_ERR.  Then the hold is released, the
# client sees mlx4_0 removed and added again (remove() frees the fixture on
# the dead card), and the ports come back to INIT.  The host checks that the
# model saw the reset after the error (catas_reset).
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-catas-timeout}
poll=/sys/module/mlx4_core/parameters/catas_poll_ms
hold=/sys/module/ibstack_kverbs/parameters/remove_hold
dbg=/sys/kernel/debug/ibstack_kverbs/mlx4_0
# the source, the fixture, the poll off, the hold, the error, the verb
# returns 0 after its timeout, the reset, DEVICE_FATAL, the order, the handler
# not in the verb, the flushed receives, the verdict, the release, remove
# and add, mlx4_0 back, the poll back on, INIT, the source stops
plan 18

if ! ev_start; then
	fail "$t: event source $EVENTS" "could not start it"
	exit 0
fi
pass "$t: event source $EVENTS listening on mlx4_0"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
expect "$t: verbfix: a QP with 8 receives outstanding on an armed CQ" \
	sh -c "echo 1 >$dbg/verbfix"
read -r ms <"$poll"
expect "$t: mlx4_core stops reading the error buffer (catas_poll_ms 0, was $ms)" \
	sh -c "echo 0 >$poll"
expect "$t: the client's remove() will hold (remove_hold=1)" sh -c "echo 1 >$hold"
k=$(klog_mark)
old=$(ibdev_id)
expect "$t: raise a catastrophic error on the card" catas 11
s0=$SECONDS
# the verb, in this task: returns after the command's timeout
wout=$(sh -c "echo 2 >$dbg/verbfix" 2>&1)
wrc=$?
verdict=$(cat "$dbg/verbfix" 2>&1)
echo "$t: verbfix write: status $wrc${wout:+ ($wout)}, $((SECONDS - s0))s; verdict: $verdict"
# field NAME: NAME=VALUE of the verdict line
field() { sed -nE "s/.*[ ;]$1=([^ ]*).*/\\1/p" <<<"$verdict"; }
ret=$(field verb_ret)
vms=$(field verb_ms)
# shellcheck disable=SC2317 # called through expect
timed_out() { is_num "${vms:-x}" && [ "$vms" -ge 59000 ] && [ "${ret:-x}" = 0 ]; }
expect "$t: ib_modify_qp(ERR) returns 0 after the command's timeout, a teardown on the dead card (status ${ret:-?} after ${vms:-?} ms)" \
	timed_out
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
iv=$(field in_verb)
expect "$t: no completion handler call from the verb's call chain (${iv:-?} of $(field handler_calls) call(s) in it; first from $(field handler_ctx))" \
	[ "${iv:-x}" = 0 ]
fl=$(field flushed)
calls=$(field handler_calls)
expect "$t: the handler is called and the 8 receives come back flushed (calls ${calls:-?}, flushed ${fl:-?})" \
	[ "${fl:-x}" = 8/8 -a "${calls:-0}" -ge 1 ]
expect "$t: the verbfix verdict: ${verdict%%;*}" contains "$verdict" '^PASS: '
expect "$t: release the client's remove()" sh -c "echo 0 >$hold"
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
klog_since "$k" | grep -Ei 'mlx4|catas|internal|reset|fatal|timed out|verbfix' |
	grep -Ev 'buf(fer)?\[([0-9a-f]*[1-9a-f][0-9a-f]*|0*[1-9][0-9]*)\]' | head -n 30 | sed 's/^/    /'
expect "$t: event source stops" ev_stop
exit 0

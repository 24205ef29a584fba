#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Firmware command faults injected in the model (tests/cx3/cx3_fault.c),
# seen as a user program sees them (issue 18).  One node, port 1 cabled to
# port 2, opensm (tests/vm/run --sm); any stack.
#
# 1. A command answered with an error status: the next SW2HW_CQ answers
#    0x0c (ICM error), then the next RST2INIT_QP 0x10 (bad QP state).  The
#    verb whose command it was fails with the mapped errno (ENFILE, EINVAL:
#    the status table both drivers share), nothing else does, the next
#    call succeeds and an RC pingpong between the ports passes.
# 2. A command that never completes: the next SW2HW_CQ leaves GO set.  The
#    CQ's creation fails with EIO once the driver gives up on the command
#    (its timeout, 60 s, or earlier when another command has waited 10 s
#    for the HCR: both stacks), the driver resets the card (the model
#    logs the hung command's end) and loads it again: mlx4_0 is registered
#    anew, opensm is started again on it (its files died with the old
#    device), both ports become ACTIVE and the verbs and a pingpong work.
set -u
. "$(dirname "$0")/lib.sh"
# shellcheck source=fault-lib.sh
. "$(dirname "$0")/fault-lib.sh"
t=${TESTNAME:-fault-cmd}
plan 20

fv() { timeout 200 /usr/bin/python3 "$(dirname "$0")/fault_verbs.py" "$@" 2>&1 | tail -n 1; }
# fired REGEX: how many of the model's fault lines match REGEX
fired() { card_fault_log | grep -cE -- "$1"; }


r=$(fv cq)
expect "$t: a CQ before any fault ($r)" contains "$r" '^cq: ok'
r=$(fv qp)
expect "$t: an RC QP to INIT before any fault ($r)" contains "$r" '^qp: ok'

# --- an error status -------------------------------------------------------
n=$(fired 'command SW2HW_CQ \(0x016.*answered with status 0x0c')
expect "$t: status: arm SW2HW_CQ to answer 0x0c (ICM error)" card_fault cmd-status 0x016:0x0c
r=$(fv cq)
expect "$t: status: the CQ's creation fails with ENFILE ($r)" contains "$r" '^cq: errno 23 '
expect "$t: status: the model answered SW2HW_CQ with 0x0c (fault log)" \
	[ "$(fired 'command SW2HW_CQ \(0x016.*answered with status 0x0c')" = $((n + 1)) ]
r=$(fv cq)
expect "$t: status: the next CQ is created ($r)" contains "$r" '^cq: ok'

n=$(fired 'command RST2INIT_QP \(0x019.*answered with status 0x10')
expect "$t: status: arm RST2INIT_QP to answer 0x10 (bad QP state)" card_fault cmd-status 0x019:0x10
r=$(fv qp)
expect "$t: status: the QP's move to INIT fails with EINVAL ($r)" contains "$r" '^qp: errno 22 '
expect "$t: status: the model answered RST2INIT_QP with 0x10 (fault log)" \
	[ "$(fired 'command RST2INIT_QP \(0x019.*answered with status 0x10')" = $((n + 1)) ]
r=$(fv qp)
expect "$t: status: the next QP goes to INIT ($r)" contains "$r" '^qp: ok'
pingpong "after the error statuses"

# --- a command that never completes ---------------------------------------
# The verb's task waits out the command's 60 s timeout uninterruptibly, as
# on upstream's driver: the test bed's 60 s hung-task report (guest-init)
# would call that a hung task, the kernel's default 120 s does not.
hung=/proc/sys/kernel/hung_task_timeout_secs
read -r hung0 <"$hung"
echo 120 >"$hung"
old=$(ibdev_id)
k=$(klog_mark)
n=$(fired 'command SW2HW_CQ \(0x016.*hangs')
expect "$t: hang: arm SW2HW_CQ never to complete" card_fault cmd-hang 0x016
s0=$SECONDS
r=$(fv cq)
echo "$hung0" >"$hung"
echo "$t: hang: the CQ's creation returned after $((SECONDS - s0)) s: $r"
expect "$t: hang: the CQ's creation fails with EIO ($r)" contains "$r" '^cq: errno 5 '
expect "$t: hang: the model left SW2HW_CQ hanging (fault log)" \
	[ "$(fired 'command SW2HW_CQ \(0x016.*hangs')" = $((n + 1)) ]
expect "$t: hang: the driver reports a command timeout" \
	klog_wait 30 "$k" 'timed out|cmd_pending failed'
expect "$t: hang: the driver resets the card, which ends the hung command (fault log)" \
	card_fault_seen 60 'the reset ends hung command SW2HW_CQ'
# shellcheck disable=SC2317 # called through wait_for
dev_back() { ibdev_new "$old" && [ -e "$ibdev/ports/2/state" ]; }
expect "$t: hang: mlx4_0 registered again" wait_for 120 dev_back
# shellcheck disable=SC2317 # called through expect
sm_active() { sm_back "$old" && wait_for 120 both_active; }
expect "$t: hang: opensm again, both ports ACTIVE" sm_active
r=$(fv cq)
expect "$t: hang: a CQ is created again ($r)" contains "$r" '^cq: ok'
pingpong "after the recovery"
echo "$t: what the driver said after the hang:"
klog_since "$k" | grep -Ei 'mlx4|timed out|reset|error|fatal|recover' |
	grep -Ev 'buf(fer)?\[' | head -n 25 | sed 's/^/    /'
rm -rf "$out"
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A closing command answered with an error status (tests/cx3/cx3_fault.c,
# cmd-status), issue 18.  One node, port 1 cabled to port 2, opensm
# (tests/vm/run --sm); any stack.
#
# The next HW2SW_CQ answers 0x01 (internal error) without being executed:
# the card still owns the CQ, and may write into its buffer.  Linux 6.1's
# mlx4 treats a failed closing command as fatal (cmd.c,
# mlx4_closing_cmd_fatal_error): it resets the card, reports the destroy
# as done (a teardown on a reset card), and loads the device again.  So a
# user sees the CQ destroyed, mlx4_0 registered anew, and after opensm
# again ACTIVE ports, 64 CQs created and destroyed (none gets a number the
# card still holds) and a pingpong that passes.
set -u
. "$(dirname "$0")/lib.sh"
# shellcheck source=fault-lib.sh
. "$(dirname "$0")/fault-lib.sh"
t=${TESTNAME:-fault-teardown}
plan 8

fv() { timeout 200 /usr/bin/python3 "$(dirname "$0")/fault_verbs.py" "$@" 2>&1 | tail -n 1; }

expect "$t: both ports ACTIVE before" wait_for 30 both_active
old=$(ibdev_id)
k=$(klog_mark)
n=$(card_fault_log | grep -cE 'command HW2SW_CQ \(0x017.*answered with status 0x01')
expect "$t: arm HW2SW_CQ to answer 0x01 (internal error)" card_fault cmd-status 0x017:0x01
r=$(fv cq)
expect "$t: the CQ is destroyed as far as the user sees ($r)" contains "$r" '^cq: ok'
expect "$t: the model refused the HW2SW_CQ (fault log)" \
	[ "$(card_fault_log | grep -cE 'command HW2SW_CQ \(0x017.*answered with status 0x01')" = $((n + 1)) ]
# shellcheck disable=SC2317 # called through wait_for
dev_back() { ibdev_new "$old" && [ -e "$ibdev/ports/2/state" ]; }
back=0
if wait_for 120 dev_back; then
	back=1
	pass "$t: the failed closing command is fatal: card reset, mlx4_0 registered again"
else
	fail "$t: the failed closing command is fatal: card reset, mlx4_0 registered again" \
		"mlx4_0 is the same device 120 s later"
fi
# shellcheck disable=SC2317 # called through expect
sm_active() { sm_back "$old" && wait_for 120 both_active; }
if [ "$back" = 1 ]; then
	expect "$t: opensm again, both ports ACTIVE" sm_active
else
	expect "$t: both ports still ACTIVE" wait_for 30 both_active
fi
r=$(fv cq 64)
expect "$t: 64 CQs created and destroyed ($r)" contains "$r" '^cq: ok'
pingpong
echo "$t: the driver said:"
klog_since "$k" | grep -Ei 'mlx4|HW2SW|reset|error|fatal|recover' |
	grep -Ev 'buf(fer)?\[' | head -n 20 | sed 's/^/    /'
rm -rf "$out"
exit 0

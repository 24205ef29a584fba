#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The test-bed shortcut (-device cx3,auto-lid1=1,auto-lid2=2): with no
# subnet manager at all, both ports come up ACTIVE with the given LIDs and
# carry verbs traffic, as our own stack will need before its MAD layer.
# The traffic is pingpong.sh's, run as a script of its own (its own checks
# and plan); this script checks that it ran to its end.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-autoactive}
plan 4
is=$(ibstat mlx4_0 2>&1)
irc=$?
# pgrep: 1 is "no such process", 2 and 3 are errors (no answer)
pgrep -x opensm >/dev/null
prc=$?
expect "$t: no subnet manager is running" [ "$prc" = 1 ]
expect "$t: both ports ACTIVE without an SM" \
	[ "$irc" = 0 -a "$(grep -c 'State: Active' <<<"$is")" = 2 ]
expect "$t: ports have LIDs 1 and 2" \
	contains "$is" '^[[:space:]]*Base lid: 1$' '^[[:space:]]*Base lid: 2$'
expect "$t: pingpong.sh ran to its end" \
	env TESTNAME="$t pingpong" "$(dirname "$0")/pingpong.sh"
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The test-bed shortcut (-device cx3,auto-lid1=1,auto-lid2=2): with no
# subnet manager at all, both ports come up ACTIVE with the given LIDs and
# carry verbs traffic, as our own stack will need before its MAD layer.
set -u
. "$(dirname "$0")/lib.sh"
t=autoactive
is=$(ibstat mlx4_0)
expect "$t: no subnet manager is running" sh -c '! pgrep -x opensm >/dev/null'
expect "$t: both ports ACTIVE without an SM" \
	[ "$(grep -c 'State: Active' <<<"$is")" = 2 ]
expect "$t: ports have LIDs 1 and 2" \
	contains "$is" 'Base lid: 1$' 'Base lid: 2$'
TESTNAME=$t "$(dirname "$0")/pingpong.sh"
exit 0

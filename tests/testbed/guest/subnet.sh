#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Under opensm (tests/vm/run --sm): every cabled port is ACTIVE with a LID,
# ibnetdiscover shows the real topology, saquery returns path records.
# One node: one CA with port 1 cabled to port 2.  Two nodes: two CAs, each
# port cabled to the same port of the other (two subnets, one SM each).
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-subnet}
is=$(ibstat mlx4_0)
expect "$t: both ports ACTIVE" [ "$(grep -c 'State: Active' <<<"$is")" = 2 ]
expect "$t: both ports have a LID" \
	[ "$(grep -Ec 'Base lid: [1-9]' <<<"$is")" = 2 ]
[ "${NODE:-1}" = 1 ] || exit 0
topo=$(ibnetdiscover 2>&1)
links=$(grep -c '^\[[0-9]\]' <<<"$topo")
cas=$(grep -c '^Ca' <<<"$topo")
if [ "${NODES:-1}" = 1 ]; then
	expect "$t: ibnetdiscover: one CA, its two ports linked to each other" \
		[ "$cas" = 1 -a "$links" = 2 ]
else
	expect "$t: ibnetdiscover: two CAs, one link between them" \
		[ "$cas" = 2 -a "$links" = 2 ]
fi
expect "$t: links run at 4x FDR" \
	[ "$(grep -c '4xFDR' <<<"$topo")" = "$links" ]
pr=$(saquery -p 2>&1)
expect "$t: saquery returns path records" \
	[ "$(grep -c '^PathRecord dump' <<<"$pr")" -ge 2 ]
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Under opensm (tests/vm/run --sm): every cabled port is ACTIVE with a LID,
# ibnetdiscover shows the real topology, saquery returns path records.
# One node: one CA with port 1 cabled to port 2.  Two nodes: two CAs, each
# port cabled to the same port of the other (two subnets, one SM each).
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-subnet}
# node 2 checks its own ports; node 1 (where opensm runs) the subnet too
if [ "${NODE:-1}" = 1 ]; then plan 5; else plan 2; fi

is=$(ibstat mlx4_0 2>&1)
irc=$?
expect "$t: both ports ACTIVE" \
	[ "$irc" = 0 -a "$(grep -c 'State: Active' <<<"$is")" = 2 ]
expect "$t: both ports have a LID" \
	[ "$irc" = 0 -a "$(grep -Ec '^[[:space:]]*Base lid: [1-9][0-9]*$' <<<"$is")" = 2 ]
[ "${NODE:-1}" = 1 ] || exit 0

topo=$(ibnetdiscover 2>&1)
trc=$?
# the port lines of the CAs: "[1]  "H-..."[1](...)  # ... lid 1 4xFDR"
ports=$(grep -E '^\[[0-9]+\]' <<<"$topo")
links=$(grep -c . <<<"$ports")
cas=$(grep -c '^Ca' <<<"$topo")
if [ "${NODES:-1}" = 1 ]; then
	expect "$t: ibnetdiscover: one CA, its two ports linked to each other" \
		[ "$trc" = 0 -a "$cas" = 1 -a "$links" = 2 ]
else
	expect "$t: ibnetdiscover: two CAs, one link between them" \
		[ "$trc" = 0 -a "$cas" = 2 -a "$links" = 2 ]
fi
# every one of the two linked ports, none missing
expect "$t: links run at 4x FDR" \
	[ "$trc" = 0 -a "$links" = 2 -a "$(grep -c '4xFDR' <<<"$ports")" = 2 ]
pr=$(saquery -p 2>&1)
prc=$?
expect "$t: saquery returns path records" \
	[ "$prc" = 0 -a "$(grep -c '^PathRecord dump' <<<"$pr")" -ge 2 ]
exit 0

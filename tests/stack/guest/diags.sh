#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# infiniband-diags under an SM (tests/vm/run --sm): run the tools a user
# runs, save what each prints to OUT (default /vmout/diags, i.e.
# nodeN/out/diags/ on the host) for run-tests to compare one stack's with
# another's, and check what must hold whatever the stack.
#
# Every query goes out of each local port in turn (-C mlx4_0 -P PORT):
# one node has one subnet (port 1 cabled to port 2), two nodes have one
# subnet per port.  The files are named by role, not by LID, so that two
# runs compare even if their LIDs differ:
#     pP-TOOL-WHAT.txt   what the tool printed (stdout and stderr)
#     status.txt         "FILE EXIT-STATUS" for every file
# where WHAT says whom it asked: self (this port, by LID), peer (the port
# at the other end of the cable, by LID), dr0 (-D 0: this node by
# directed route), dr0,P (-D 0,P: one hop out of port P).
#
# DIAGS=short runs only the checks the failover test repeats (smpquery,
# saquery -p, perfquery).
#
# The traffic counters (which the comparison of two runs skips: they move
# with every MAD and sweep) are checked here instead, per port: perfquery
# of this port, NMAD (default 20) SMPs to the other end of the cable by
# LID, perfquery again: PortXmitPkts and PortRcvPkts must have grown by at
# least NMAD, PortXmitData and PortRcvData (4-byte words) by at least NMAD
# 256-byte MADs.  Their outputs go to OUT/traffic/ (not compared).
#
# A query that fails gives empty fields: no check compares two of them
# equal, every value a check compares must be there.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-diags}
out=${OUT:-/vmout/diags}
mode=${DIAGS:-full}
nmad=${NMAD:-20}
# ibstat; per port: 10 checks, 12 more in full mode (7 of the SA, sminfo,
# ibaddr and ibnetdiscover, 5 of the traffic counters)
if [ "$mode" = short ]; then plan $((2 + 2 * 10)); else plan $((2 + 2 * 22)); fi
mkdir -p "$out"
: >"$out/status.txt"

# q FILE CMD...: run CMD (bounded), its output into FILE, its status noted
declare -A status
q() {
	local f=$1 rc
	shift
	timeout 60 "$@" >"$out/$f.txt" 2>&1
	rc=$?
	echo "$f $rc" >>"$out/status.txt"
	status[$f]=$rc
	return $rc
}
# ok FILE...: the queries of these files exited 0
ok() {
	local f
	for f in "$@"; do
		[ "${status[$f]:-none}" = 0 ] || return 1
	done
}
# field FILE NAME: the value of "NAME:....value" in FILE
field() { sed -nE "s/^$2:\.+(.*)$/\1/p" "$out/$1.txt" | head -n 1; }
# has FILE NAME: FILE has the field NAME
has() { grep -qE "^$2:\.+" "$out/$1.txt"; }
# agree FILE1 FILE2 NAME [empty]: both queries answered, with the field
# NAME, of the same value, not empty (unless told: a node description is
# empty until someone sets it)
agree() {
	ok "$1" "$2" && has "$1" "$3" && has "$2" "$3" || return 1
	if [ "${4:-}" = empty ]; then
		[ "$(field "$1" "$3")" = "$(field "$2" "$3")" ]
	else
		same "$(field "$1" "$3")" "$(field "$2" "$3")"
	fi
}
# pq_answers FILE [LID]: perfquery answered with counters (asked a LID, not 0)
pq_answers() {
	[ "${2:-1}" -gt 0 ] && ok "$1" && grep -qE '^PortXmitData:\.+[0-9]+$' "$out/$1.txt"
}
# counter TEXT NAME: the counter NAME of perfquery's output TEXT
counter() { sed -nE "s/^$2:\.+([0-9]+)$/\1/p" <<<"$1" | head -n 1; }

q ibstat ibstat mlx4_0
irc=$?
st=$(<"$out/ibstat.txt")
expect "$t: ibstat shows both ports Active" \
	[ "$irc" = 0 -a "$(grep -c 'State: Active' <<<"$st")" = 2 ]
expect "$t: ibstat shows a LID on both ports" \
	[ "$irc" = 0 -a "$(grep -Ec '^[[:space:]]*Base lid: [1-9][0-9]*$' <<<"$st")" = 2 ]

for p in 1 2; do
	c=(-C mlx4_0 -P "$p")
	lid=$(my_lid "$p") || lid=0
	smlid=
	read -r smlid <"$ibdev/ports/$p/sm_lid"
	smlid=$((${smlid:-0}))
	# the other end of port P's cable: port 2 of this node (one node) or
	# port P of the other node
	rport=$p
	[ "${NODES:-1}" = 1 ] && rport=$((3 - p))
	pre=p$p
	expect "$t: port $p ACTIVE with LID $lid, SM at LID $smlid" \
		[ "$(port_state "$p")" = ACTIVE -a "$lid" -gt 0 -a "$smlid" -gt 0 ]

	# SMPs by directed route: this node, then one hop out of port P
	q "$pre-smpquery-nodeinfo-dr0" smpquery "${c[@]}" -D nodeinfo 0
	q "$pre-smpquery-portinfo-dr0" smpquery "${c[@]}" -D portinfo 0 "$p"
	q "$pre-smpquery-nodedesc-dr0" smpquery "${c[@]}" -D nodedesc 0
	q "$pre-smpquery-nodeinfo-dr0,$p" smpquery "${c[@]}" -D nodeinfo "0,$p"
	q "$pre-smpquery-portinfo-dr0,$p" smpquery "${c[@]}" -D portinfo "0,$p" "$rport"
	q "$pre-smpquery-nodedesc-dr0,$p" smpquery "${c[@]}" -D nodedesc "0,$p"
	ng=$(node_guid)
	expect "$t: port $p: smpquery -D nodeinfo 0 answers with this node's GUID ($ng)" \
		same "$(field "$pre-smpquery-nodeinfo-dr0" Guid)" "$ng"
	expect "$t: port $p: smpquery -D portinfo 0 $p shows LID $lid, Active" \
		[ "$lid" -gt 0 -a "$(field "$pre-smpquery-portinfo-dr0" Lid)" = "$lid" -a \
		"$(field "$pre-smpquery-portinfo-dr0" LinkState)" = Active ]
	plid=$(field "$pre-smpquery-portinfo-dr0,$p" Lid)
	is_num "$plid" || plid=0
	expect "$t: port $p: smpquery -D portinfo 0,$p $rport: the other end is Active with a LID ($plid)" \
		[ "$(field "$pre-smpquery-portinfo-dr0,$p" LinkState)" = Active -a "$plid" -gt 0 ]

	# SMPs by LID: this port and the other end of the cable
	q "$pre-smpquery-nodeinfo-self" smpquery "${c[@]}" nodeinfo "$lid"
	q "$pre-smpquery-portinfo-self" smpquery "${c[@]}" portinfo "$lid" "$p"
	q "$pre-smpquery-nodedesc-self" smpquery "${c[@]}" nodedesc "$lid"
	q "$pre-smpquery-nodeinfo-peer" smpquery "${c[@]}" nodeinfo "$plid"
	q "$pre-smpquery-portinfo-peer" smpquery "${c[@]}" portinfo "$plid" "$rport"
	q "$pre-smpquery-nodedesc-peer" smpquery "${c[@]}" nodedesc "$plid"
	expect "$t: port $p: smpquery portinfo by LID $lid shows LID $lid, SM LID $smlid" \
		[ "$lid" -gt 0 -a "$smlid" -gt 0 -a \
		"$(field "$pre-smpquery-portinfo-self" Lid)" = "$lid" -a \
		"$(field "$pre-smpquery-portinfo-self" SMLid)" = "$smlid" ]
	expect "$t: port $p: smpquery nodeinfo by the peer's LID $plid is the node -D 0,$p reached" \
		agree "$pre-smpquery-nodeinfo-peer" "$pre-smpquery-nodeinfo-dr0,$p" PortGuid
	# both queries answered (an error message is no description) and agree
	expect "$t: port $p: smpquery nodedesc by LID and by directed route agree" \
		agree "$pre-smpquery-nodedesc-self" "$pre-smpquery-nodedesc-dr0" "Node Description" empty

	# performance counters (the PMA, a GMP on QP1): this port, the peer
	q "$pre-perfquery-self" perfquery "${c[@]}"
	q "$pre-perfquery-peer" perfquery "${c[@]}" "$plid" "$rport"
	expect "$t: port $p: perfquery answers for this port" \
		pq_answers "$pre-perfquery-self"
	expect "$t: port $p: perfquery answers for the peer (LID $plid port $rport)" \
		pq_answers "$pre-perfquery-peer" "$plid"

	# the SA (opensm) through QP1
	q "$pre-saquery-p" saquery "${c[@]}" -p
	n=$(grep -c '^PathRecord dump' "$out/$pre-saquery-p.txt")
	# two ports in every subnet: a path from each to each
	expect "$t: port $p: saquery -p returns 4 path records (got $n)" [ "$n" = 4 ]
	[ "$mode" = short ] && continue

	q "$pre-saquery" saquery "${c[@]}"
	q "$pre-saquery-g" saquery "${c[@]}" -g
	q "$pre-saquery-m" saquery "${c[@]}" -m
	q "$pre-saquery-s" saquery "${c[@]}" -s
	q "$pre-saquery-c" saquery "${c[@]}" -c
	q "$pre-saquery-x" saquery "${c[@]}" -x
	n=$(grep -c '^NodeRecord dump' "$out/$pre-saquery.txt")
	expect "$t: port $p: saquery returns 2 node records, one per port (got $n)" [ "$n" = 2 ]
	expect "$t: port $p: saquery -g answers" \
		[ "$(awk '$1 == "'"$pre"'-saquery-g" { print $2 }' "$out/status.txt")" = 0 ]
	expect "$t: port $p: saquery -s lists the SM's port (LID $smlid)" \
		grep -qE "^[[:space:]]*EndPortLid\.+$smlid\$" \
		"$out/$pre-saquery-s.txt"

	q "$pre-sminfo" sminfo "${c[@]}"
	expect "$t: port $p: sminfo: the SM at LID $smlid is master" \
		grep -qE "^sminfo: sm lid $smlid sm guid 0x[0-9a-f]+, activity count [0-9]+ priority [0-9]+ state 3 SMINFO_MASTER\$" \
		"$out/$pre-sminfo.txt"
	q "$pre-ibaddr-self" ibaddr "${c[@]}"
	q "$pre-ibaddr-peer" ibaddr "${c[@]}" "$plid"
	expect "$t: port $p: ibaddr shows LID $lid" \
		grep -qE "^GID .* LID start 0x0*$(printf '%x' "$lid") end" "$out/$pre-ibaddr-self.txt"
	# (LID 0 would be no LID of the peer: no match)
	expect "$t: port $p: ibaddr by LID $plid shows that LID" \
		grep -qE "^GID .* LID start 0x0*$(printf '%x' "$plid") end" "$out/$pre-ibaddr-peer.txt"

	q "$pre-ibnetdiscover" ibnetdiscover "${c[@]}"
	topo=$(<"$out/$pre-ibnetdiscover.txt")
	links=$(grep -c '^\[[0-9]\]' <<<"$topo")
	cas=$(grep -c '^Ca' <<<"$topo")
	if [ "${NODES:-1}" = 1 ]; then
		expect "$t: port $p: ibnetdiscover: one CA, its two ports linked to each other ($cas CA, $links ports)" \
			[ "$cas" = 1 -a "$links" = 2 ]
	else
		expect "$t: port $p: ibnetdiscover: two CAs, linked ($cas CAs, $links ports)" \
			[ "$cas" = 2 -a "$links" = 2 ]
	fi

	# the traffic counters of this port grow with the MADs it sends: NMAD
	# SMPs to the other end of the cable by LID, each a request out of
	# this port and its answer into it
	mkdir -p "$out/traffic"
	before=$(timeout 60 perfquery "${c[@]}" 2>&1 | tee "$out/traffic/$pre-before.txt")
	sent=0
	if [ "$plid" -gt 0 ]; then
		for _ in $(seq "$nmad"); do
			timeout 20 smpquery "${c[@]}" nodeinfo "$plid" >/dev/null 2>&1 && sent=$((sent + 1))
		done
	fi
	after=$(timeout 60 perfquery "${c[@]}" 2>&1 | tee "$out/traffic/$pre-after.txt")
	# this port's counters, or none
	[ "$(counter "$before" PortSelect)" = "$p" ] || before=
	[ "$(counter "$after" PortSelect)" = "$p" ] || after=
	expect "$t: port $p: $nmad smpquery nodeinfo to the peer's LID $plid answered ($sent)" \
		[ "$plid" -gt 0 -a "$sent" = "$nmad" ]
	for k in PortXmitPkts PortRcvPkts; do
		b=$(counter "$before" "$k") a=$(counter "$after" "$k")
		expect "$t: port $p: $k grew by at least $nmad ('$b' -> '$a')" grown "$b" "$a" "$nmad"
	done
	# in 4-byte words, and a MAD alone is 256 bytes
	for k in PortXmitData PortRcvData; do
		b=$(counter "$before" "$k") a=$(counter "$after" "$k")
		expect "$t: port $p: $k grew by at least $((nmad * 64)) ('$b' -> '$a')" \
			grown "$b" "$a" $((nmad * 64))
	done
done
exit 0

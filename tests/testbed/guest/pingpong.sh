#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# libibverbs over the emulated card: ibv_{rc,uc,ud,srq}_pingpong, with and
# without completion events.  One node: server on port 1, client on port 2
# of the same card (cabled to each other).  Two nodes: server on node 1,
# client on node 2, both on port 1; each node reports its own side.
# Both also run ibv_xsrq_pingpong (XRC: domains, XRC SRQs, XRC initiator
# and target QPs), with and without events; one node also with two clients
# at once against one server (-c 2: the server tells their receives apart
# by the target QP number of each completion).
#
# No sleep stands in for the server being ready: the client starts once the
# server listens on its TCP port; with two nodes the nodes meet at a barrier
# once the server listens and again after each pair (see pair), so that a
# failed pair cannot put the next one out of step.  Every wait is bounded.
set -u
. "$(dirname "$0")/lib.sh"
# shellcheck source=pair.sh
. "$(dirname "$0")/pair.sh"
iters=${ITERS:-200}
t=${TESTNAME:-pingpong}
nodes=${NODES:-1}
tcp=18515		# where the pingpong server listens
cli=${CLIENT_LIMIT:-90}	# seconds a client may run
xb=${XCHG_BOUND:-120}	# how long a barrier waits for the other node
out=$(mktemp -d)
kinds=(rc uc ud srq)
evs=("" "-e")
xsrq_tests=${XSRQ_TESTS:-10}	# messages each xsrq client sends
xsrq_clients=(1 2)		# clients of the XRC server runs
if [ "$nodes" = 1 ]; then
	plan $((${#kinds[@]} * ${#evs[@]} + ${#evs[@]} + ${#xsrq_clients[@]} - 1))
else
	plan $((${#kinds[@]} * ${#evs[@]} + ${#evs[@]}))
fi
case $iters in
'' | *[!0-9]* | 0) echo "ITERS must be a number of at least 1, not '$iters'" >&2; exit 2 ;;
esac

# what both sides print at the end of a good run
report="no '$iters iters in'"
report_ok() { grep -q "^$iters iters in" "$1"; }
# ibv_xsrq_pingpong prints this instead, on each side
xsrq_ok() { grep -qx success "$1"; }

# xsrq_many N ARG...: one node, one ibv_xsrq_pingpong server on port 1
# for N clients on port 2, the clients started together once the server
# listens; why is left empty if every side printed success, as pair does.
xsrq_many() {
	local n=$1 spid i rc
	local -a cpids=()
	shift
	why=
	show=$out/s
	rm -f "$out"/s "$out"/c.*
	timeout $((cli + 90)) "$@" -c "$n" -i 1 >"$out/s" 2>&1 &
	spid=$!
	if wait_listen 60 "$tcp" "$spid"; then
		for i in $(seq "$n"); do
			timeout "$cli" "$@" -i 2 localhost >"$out/c.$i" 2>&1 &
			cpids+=($!)
			show="$show $out/c.$i"
		done
		for i in $(seq "$n"); do
			wait "${cpids[$((i - 1))]}"
			rc=$?
			[ "$rc" = 0 ] || because "client $i exited $rc"
			xsrq_ok "$out/c.$i" || because "no 'success' from client $i"
		done
	else
		no_listen "$spid"
	fi
	reap "$spid" 30
	rc=$?
	[ "$rc" = 0 ] || because "server exited $rc"
	xsrq_ok "$out/s" || because "no 'success' from the server"
}

# verdict NAME: PASS, or FAIL with why and the last lines of what ran
verdict() {
	if [ -z "$why" ]; then
		pass "$1"
	else
		fail "$1" "$why"
		# shellcheck disable=SC2086
		tail -n 3 $show 2>/dev/null
	fi
}

for kind in "${kinds[@]}"; do
	for ev in "${evs[@]}"; do
		name="$t: ibv_${kind}_pingpong ${ev:-(polling)}"
		prog=("ibv_${kind}_pingpong" -d mlx4_0 -n "$iters")
		[ -z "$ev" ] || prog+=("$ev")
		pair "$t pingpong $kind$ev" "${prog[@]}"
		verdict "$name"
	done
done

# XRC.  One node: the server's and the clients' XRC domains are the same
# file, /tmp/xrc_domain, which is fine: one domain for all of them.
if [ "$nodes" = 1 ]; then
	xsrq=(ibv_xsrq_pingpong -d mlx4_0 -n "$xsrq_tests")
	for ev in "${evs[@]}"; do
		name="$t: ibv_xsrq_pingpong ${ev:-(polling)}"
		# shellcheck disable=SC2086  # no word for polling
		xsrq_many 1 "${xsrq[@]}" $ev
		verdict "$name"
	done
	for n in "${xsrq_clients[@]}"; do
		[ "$n" -gt 1 ] || continue
		name="$t: ibv_xsrq_pingpong -c $n, $n clients at once"
		xsrq_many "$n" "${xsrq[@]}"
		verdict "$name"
	done
else
	# across the nodes: one client on node 2 (each node its own domain
	# file), with and without events; each side prints success
	report="no 'success'"
	report_ok() { xsrq_ok "$1"; }
	for ev in "${evs[@]}"; do
		name="$t: ibv_xsrq_pingpong ${ev:-(polling)}"
		prog=(ibv_xsrq_pingpong -d mlx4_0 -n "$xsrq_tests")
		[ -z "$ev" ] || prog+=("$ev")
		pair "$t pingpong xsrq$ev" "${prog[@]}"
		verdict "$name"
	done
fi
rm -rf "$out"
exit 0

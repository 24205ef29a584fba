# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# One server/client run of a verbs benchmark, on one node or across two
# (sourced by pingpong.sh and perftest.sh, after lib.sh).  The caller sets
#   tcp      the TCP port the server listens on
#   cli      seconds the client may run
#   xb       how long a barrier waits for the other node
#   nodes    NODES
#   out      a scratch directory
#   report   what report_ok looks for, as said in a failure
#   report_ok FILE: FILE holds the program's results
#   server_reports  0 if the server prints no results (passive sides of
#            perftest's read and atomic latency tests); default 1
# and calls pair TAG PROG ARG...; see there.

# because REASON: add REASON to why the pair failed
because() { why="${why:+$why, }$1"; }
# no_listen PID: why server PID was not seen listening
no_listen() {
	if kill -0 "$1" 2>/dev/null; then
		because "the server did not listen on TCP $tcp within 60 s"
	else
		because "the server ended without listening on TCP $tcp"
	fi
}

# pair TAG PROG ARG...: one run of PROG as server and client, bounded; why
# is left empty if both sides did their part, else says what went wrong;
# show lists the output files to print on a failure.
#   One node: the server on port 1; the client, on port 2, starts once the
#   server listens; the server is given a few seconds to end with the client.
#   Two nodes: node 1 starts the server and, once it listens, meets node 2
#   (barrier "ready", which also tells node 2 whether there is a server);
#   node 2 runs the client, then both meet again (barrier "done": node 1
#   waits there for the end of the client, bounded by the client's limit),
#   and node 1 reaps its server.  A failed pair still goes through both
#   barriers on both nodes, so the next pair starts in step.
pair() {
	local tag=$1 spid st got crc src
	shift
	why=
	rm -f "$out/s" "$out/c"
	if [ "$nodes" = 1 ]; then
		show="$out/c $out/s"
		timeout $((cli + 90)) "$@" -i 1 >"$out/s" 2>&1 &
		spid=$!
		if wait_listen 60 "$tcp" "$spid"; then
			timeout "$cli" "$@" -i 2 localhost >"$out/c" 2>&1
			crc=$?
			[ "$crc" = 0 ] || because "client exited $crc"
			report_ok "$out/c" || because "$report from the client"
		else
			no_listen "$spid"
		fi
		reap "$spid" 30
		src=$?
		[ "$src" = 0 ] || because "server exited $src"
		[ "${server_reports:-1}" = 0 ] || report_ok "$out/s" || because "$report from the server"
	elif [ "$NODE" = 1 ]; then
		show=$out/s
		timeout $((xb + cli + 150)) "$@" -i 1 >"$out/s" 2>&1 &
		spid=$!
		st=listening
		wait_listen 60 "$tcp" "$spid" || { st="no server"; no_listen "$spid"; }
		got=$(peer_xchg "$tag: ready" "$st")
		if [ "$st" = listening ] && [ "$got" != ready ]; then
			because "node 2 did not come to the barrier"
		elif [ "$st" = listening ]; then
			got=$(XCHG_BOUND=$((cli + 60)) peer_xchg "$tag: done" server)
			[ -n "$got" ] || because "node 2 did not come to the barrier after its client"
		fi
		reap "$spid" 30
		src=$?
		[ "$src" = 0 ] || because "server exited $src"
		[ "${server_reports:-1}" = 0 ] || report_ok "$out/s" || because "$report from the server"
	else
		show=$out/c
		got=$(peer_xchg "$tag: ready" ready)
		if [ "$got" = listening ]; then
			timeout "$cli" "$@" -i 1 "$PEER" >"$out/c" 2>&1
			crc=$?
			[ "$crc" = 0 ] || because "client exited $crc"
			report_ok "$out/c" || because "$report from the client"
			got=$(XCHG_BOUND=$((cli + 60)) peer_xchg "$tag: done" "client $crc")
			[ -n "$got" ] || because "node 1 did not come to the barrier after the client"
		else
			because "no server on node 1 (${got:-no answer at the barrier})"
		fi
	fi
}

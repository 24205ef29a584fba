#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel verbs self-test on one card whose port 1 is cabled to its
# port 2 (tests/vm/run --stack ours with VMRUN_CX3_OPTS=auto-lid1=1,
# auto-lid2=2, or under an SM): load ibstack_kverbs with selftest=1, wait
# (bounded) for its summary, report each case as a PASS/FAIL line.
# KVERBS_ROUNDS=N runs the cases N times (a soak test).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=kverbs-lib.sh
. "$here/kverbs-lib.sh"
t=${TESTNAME:-kverbs}
dev=mlx4_0
limit=${KVERBS_TIMEOUT:-300}
cabled=0
[ "${KVERBS_CABLE:-1}" = 1 ] && [ -d /vmout ] && cabled=1
# the client added, the summary's count, the unload and its remove line;
# with the cable: the pull, the replug and an event per port after each
if [ "$cabled" = 1 ]; then plan 10; else plan 4; fi

mark=$(kv_mark)
if ! kv_load selftest=1 selftest_rounds="${KVERBS_ROUNDS:-1}"; then
	fail "$t: load ibstack_kverbs" "insmod failed or no module for $KVER"
	exit 0
fi
expect "$t: client added to $dev" kv_wait_log 10 "$mark" "ibstack_kverbs: add $dev\$"
done_re="ibstack_kverbs: selftest $dev done: "
if ! kv_wait_log "$limit" "$mark" "$done_re"; then
	kv_results "$mark" "$t"
	fail "$t: self-test finished" "no summary line within $limit s"
	rmmod ibstack_kverbs 2>/dev/null
	exit 0
fi
kv_results "$mark" "$t"
counts=$(kv_count "$mark" "$done_re")
np=${counts% *} nf=${counts#* }
lines=$(kv_results "$mark" "$t")
got_p=$(grep -c '^PASS' <<<"$lines")
got_f=$(grep -c '^FAIL' <<<"$lines")
# shellcheck disable=SC2317 # called through expect
same() { [ "$1" = "$2" ] && [ "$3" = "$4" ]; }
expect "$t: summary counts its lines (${np:-?} passed, ${nf:-?} failed)" \
	same "${np:-x}" "$got_p" "${nf:-x}" "$got_f"

# The port events, through a pulled and replugged cable (the loop cable
# joins both ports, so both go down and up; auto-lid makes them ACTIVE).
if [ "$cabled" = 1 ]; then
	mark2=$(kv_mark)
	expect "$t: pull the cable" cable 1 off
	for p in 1 2; do
		expect "$t: event PORT_ERR on port $p" kv_wait_log 15 "$mark2" \
			"ibstack_kverbs: event $dev port $p PORT_ERR\$"
	done
	mark2=$(kv_mark)
	expect "$t: replug the cable" cable 1 on
	for p in 1 2; do
		expect "$t: event PORT_ACTIVE on port $p" kv_wait_log 30 "$mark2" \
			"ibstack_kverbs: event $dev port $p PORT_ACTIVE\$"
	done
fi
mark2=$(kv_mark)
expect "$t: unload" rmmod ibstack_kverbs
expect "$t: client removed from $dev" kv_wait_log 10 "$mark2" \
	"ibstack_kverbs: remove $dev\$"
exit 0

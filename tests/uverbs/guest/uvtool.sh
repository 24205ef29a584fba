#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# uvtool (tests/uverbs/uvtool.c) inside a test VM: every case as root, all
# of them again as an unprivileged user (uid 65534, no capabilities), the
# memlock case unprivileged under ulimit -l 256, a port event on the async
# fd while the harness pulls port 1's cable, and the device's object
# counts (rdma res) the same before and after.
#   UVTOOL  the tool (default: tests/uverbs/uvtool, else built here)
#   STACK   ours|inbox: what RDMA_VERBS_IOCTL answers (uvtool -s)
# The tool prints its own PASS/FAIL/SKIP lines; this script checks that
# each run went to its end with every check passed.  The model's
# accounting after the stack's unload (tests/stack/guest/unload.sh, the
# boot's last item) shows that nothing leaked in the card.
set -u
# shellcheck source-path=SCRIPTDIR source=../../testbed/guest/lib.sh
. "$(dirname "$0")/../../testbed/guest/lib.sh"
t=${TESTNAME:-uvtool}
stack=${STACK:-ours}
here=$(cd "$(dirname "$0")/.." && pwd)
tool=${UVTOOL:-$here/uvtool}
port1=/sys/class/infiniband/mlx4_0/ports/1/state

# with auto-lid (or an SM) the ports come up on their own: give them time
wait_for 20 grep -q ACTIVE "$port1" 2>/dev/null

res_counts() { rdma res show 2>/dev/null | grep mlx4_0 | sed 's/^[0-9]*: //'; }
before=$(res_counts)

# root, unprivileged, memlock (2); objects (1) and async-port (3) when
# this machine can
plan 4
[ -n "$before" ] && plan_more 1
cable_ok=0
[ -d /vmout ] && grep -q ACTIVE "$port1" 2>/dev/null && cable_ok=1
[ "$cable_ok" = 1 ] && plan_more 3

if [ ! -x "$tool" ]; then
	tool=/tmp/uvtool-build/uvtool
	mkdir -p /tmp/uvtool-build
	make -s -C "$here" O=/tmp/uvtool-build >/dev/null 2>&1
fi
# a copy any user can run, whatever the checkout's modes
cp "$tool" /tmp/uvtool.bin 2>/dev/null && chmod 755 /tmp/uvtool.bin
tool=/tmp/uvtool.bin

# runtool NAME CMD...: the tool's run, its lines shown; one check: status
# 0 and a summary that counts exactly its PASS/FAIL lines
runtool() {
	local n=$1 rc res lines sum
	shift
	res=$(mktemp)
	"$@" 2>&1 | tee "$res"
	rc=${PIPESTATUS[0]}
	lines=$(grep -cE '^(PASS|FAIL) ' "$res")
	sum=$(sed -n 's/^\([0-9]*\) checks, \([0-9]*\) failed.*/\1 \2/p' "$res" | tail -1)
	expect "$n: ran to its end, all passed (status $rc, $lines results, summary '$sum')" \
		[ "$rc" = 0 -a -n "$sum" -a "$sum" = "$lines 0" -a "$lines" -gt 0 ]
	out=$(cat "$res")
	rm -f "$res"
}

# huge pages for mr-huge (skipped by the tool when there are none)
hp0=$(cat /proc/sys/vm/nr_hugepages)
echo $((hp0 + 4)) >/proc/sys/vm/nr_hugepages 2>/dev/null

if [ ! -x "$tool" ]; then
	fail "$t: the tool" "no uvtool: build it with make -C tests/uverbs"
	exit 0
fi
unpriv=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --)

runtool "$t: as root" "$tool" -s "$stack"
runtool "$t: as uid 65534" "${unpriv[@]}" "$tool" -s "$stack"
runtool "$t: memlock as uid 65534, ulimit -l 256" \
	"${unpriv[@]}" bash -c "ulimit -l 256 && exec $tool -s $stack memlock"
expect "$t: REG_MR over RLIMIT_MEMLOCK without CAP_IPC_LOCK is ENOMEM" \
	contains "$out" '^PASS memlock-over: .*no CAP_IPC_LOCK.*: ENOMEM$'

echo "$hp0" >/proc/sys/vm/nr_hugepages 2>/dev/null

if [ "$cable_ok" = 1 ]; then
	rm -f /tmp/uvtool.ready
	res=$(mktemp)
	"$tool" -s "$stack" -r /tmp/uvtool.ready async-port >"$res" 2>&1 &
	pid=$!
	wait_for 20 [ -e /tmp/uvtool.ready ]
	sleep 0.5
	expect "$t: the harness pulled port 1's cable" cable 1 off
	reap "$pid" 45
	rc=$?
	cable 1 on
	cat "$res"
	lines=$(grep -cE '^(PASS|FAIL) ' "$res")
	fails=$(grep -c '^FAIL ' "$res")
	expect "$t: async-port ran to its end, all passed (status $rc, $lines results, $fails failed)" \
		[ "$rc" = 0 -a "$lines" -gt 0 -a "$fails" = 0 ]
	rm -f "$res"
	expect "$t: port 1 ACTIVE again after the cable is back" \
		wait_for 60 grep -q ACTIVE "$port1"
else
	echo "SKIP $t: async-port: no cable harness (/vmout) or port 1 not ACTIVE"
fi

if [ -n "$before" ]; then
	after=$(res_counts)
	expect "$t: the device's objects as before the runs (rdma res: $after)" \
		[ "$before" = "$after" ]
else
	echo "SKIP $t: objects: rdma res shows nothing for mlx4_0 (no RDMA netlink)"
fi
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The communication manager through its test module (tests/vm/run --stack
# ours --sm: one node, port 1 cabled to port 2, both ACTIVE): loads ib_cm
# and checks what an admin sees of it (the CM capability bit on both
# ports, the four cm_* counter directories of eleven files each), has
# tests/kcm's module run every scenario between the two ports, checks that
# the counters saw the messages, then unloads the module and ib_cm (no
# reference left, the capability bit cleared, the directories gone).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../../stack/guest/lib.sh
. "$here/../../stack/guest/lib.sh"
# shellcheck source-path=SCRIPTDIR source=kcm-lib.sh
. "$here/kcm-lib.sh"
t=${TESTNAME:-cm}
KVER=${KVER:-$(uname -r)}
param=/sys/module/ibstack_kcm/parameters/cmd
dirs=(cm_tx_msgs cm_tx_retries cm_rx_msgs cm_rx_duplicates)
files="apr drep dreq lap mra rej rep req rtu sidr_rep sidr_req"
# load (2), cap bit per port (2), directories per port (2), the run (1;
# the module's own PASS and FAIL lines come on top), counters (3), unload
# (3), cap bit cleared (2), directories gone (1)
plan 18

# cap_cm PORT: the port's capability mask has IsCommunicationManagementSupported
cap_cm() {
	local c
	read -r c <"$ibdev/ports/$1/cap_mask" || return 1
	[ $((c & 0x10000)) != 0 ]
}
# counter PORT DIR FILE
counter() { cat "$ibdev/ports/$1/$2/$3" 2>/dev/null || echo "?"; }

if modprobe ib_cm; then
	pass "$t: modprobe ib_cm"
else
	fail "$t: modprobe ib_cm" "exit $?"
fi
ko=$(kcm_ko)
if [ -n "$ko" ] && insmod "$ko"; then
	pass "$t: the test module loads ($ko)"
else
	fail "$t: the test module loads" "${ko:-not built for $KVER}"
fi

for p in 1 2; do
	if cap_cm "$p"; then
		pass "$t: port $p's capability mask has CM_SUP (0x10000)"
	else
		fail "$t: port $p's capability mask has CM_SUP" "cap_mask $(cat "$ibdev/ports/$p/cap_mask")"
	fi
	bad=
	for d in "${dirs[@]}"; do
		have=$(cd "$ibdev/ports/$p/$d" 2>/dev/null && echo *)
		[ "$have" = "$files" ] || bad+=" $d: '$have'"
		for f in $files; do
			is_num "$(counter "$p" "$d" "$f")" || bad+=" $d/$f unreadable"
		done
	done
	if [ -z "$bad" ]; then
		pass "$t: port $p has ${dirs[*]}, each with $files, all readable numbers"
	else
		fail "$t: port $p's cm_* counter directories" "$bad"
	fi
done

lap0=$(counter 2 cm_rx_msgs lap)
dup0=$(counter 2 cm_rx_duplicates lap)
req0=$(counter 2 cm_rx_msgs req)
rep0=$(counter 1 cm_rx_msgs rep)
sidr0=$(counter 2 cm_tx_msgs sidr_rep)
m=$(klog_mark)
if echo all >"$param"; then
	log=$(klog_since "$m")
	sed -nE "s/^ibstack_kcm: (PASS|FAIL) (.*)$/\\1 $t: \\2/p" <<<"$log"
	n=$(grep -cE '^ibstack_kcm: (PASS|FAIL) ' <<<"$log")
	line=$(grep -E '^ibstack_kcm: cmd all done: ' <<<"$log" | tail -n 1)
	np=$(sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed$/\1/p' <<<"$line")
	nf=$(sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed$/\2/p' <<<"$line")
	if is_num "$np" && is_num "$nf" && [ "$((np + nf))" = "$n" ] && [ "$n" -ge 40 ]; then
		pass "$t: the module ran every scenario ($n checks, its count agrees)"
	else
		fail "$t: the module ran every scenario" "done line '$line', $n checks reported"
	fi
else
	fail "$t: the module ran every scenario" "the write failed"
fi

# the scenarios send six REQs that reach port 2's listener and two SIDR REQs
if grown "$req0" "$(counter 2 cm_rx_msgs req)" 6; then
	pass "$t: port 2 counted the REQs it received (cm_rx_msgs/req)"
else
	fail "$t: port 2 counted the REQs it received" "$req0 -> $(counter 2 cm_rx_msgs req)"
fi
if grown "$rep0" "$(counter 1 cm_rx_msgs rep)" 4; then
	pass "$t: port 1 counted the REPs it received (cm_rx_msgs/rep)"
else
	fail "$t: port 1 counted the REPs it received" "$rep0 -> $(counter 1 cm_rx_msgs rep)"
fi
# the LAP scenario sends one LAP and the same again
if grown "$lap0" "$(counter 2 cm_rx_msgs lap)" 2; then
	pass "$t: port 2 counted the LAPs it received (cm_rx_msgs/lap)"
else
	fail "$t: port 2 counted the LAPs it received" "$lap0 -> $(counter 2 cm_rx_msgs lap)"
fi
if grown "$dup0" "$(counter 2 cm_rx_duplicates lap)" 1; then
	pass "$t: port 2 counted the duplicate LAP (cm_rx_duplicates/lap)"
else
	fail "$t: port 2 counted the duplicate LAP" "$dup0 -> $(counter 2 cm_rx_duplicates lap)"
fi
if grown "$sidr0" "$(counter 2 cm_tx_msgs sidr_rep)" 2; then
	pass "$t: port 2 counted the SIDR REPs it sent (cm_tx_msgs/sidr_rep)"
else
	fail "$t: port 2 counted the SIDR REPs it sent" "$sidr0 -> $(counter 2 cm_tx_msgs sidr_rep)"
fi

if rmmod ibstack_kcm; then
	pass "$t: the test module unloads"
else
	fail "$t: the test module unloads" "exit $?"
fi
if mod_no_leak ib_cm; then
	pass "$t: no reference to ib_cm is left but its holders' ($(mod_refs ib_cm))"
else
	fail "$t: no reference to ib_cm is left" "$(mod_refs ib_cm)"
fi
ipoib_park
if modprobe -r ib_cm; then
	pass "$t: modprobe -r ib_cm"
else
	fail "$t: modprobe -r ib_cm" "exit $?"
fi
for p in 1 2; do
	if ! cap_cm "$p"; then
		pass "$t: port $p's CM_SUP is cleared without ib_cm"
	else
		fail "$t: port $p's CM_SUP is cleared without ib_cm" "$(cat "$ibdev/ports/$p/cap_mask")"
	fi
done
if [ ! -e "$ibdev/ports/1/cm_rx_msgs" ] && [ ! -e "$ibdev/ports/2/cm_tx_msgs" ]; then
	pass "$t: the cm_* directories went with ib_cm"
else
	fail "$t: the cm_* directories went with ib_cm" "still there"
fi
# the node as found for the boot's next items
if [ "$ipoib_parked" = 1 ]; then
	plan_more 1
	expect "$t: ib_ipoib (and with it ib_cm) loaded again" ipoib_unpark
fi

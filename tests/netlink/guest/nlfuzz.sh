#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/netlink/nlfuzz.c in the guest: NLFUZZ_N (default 100000) random
# and mutated NLDEV requests, as root with the writes (renames to fz<N>
# and back) and a tenth of them as nobody (every write refused), with a
# seed printed to replay any failure (NLFUZZ_SEED); then the device is
# still there under its name, its ports as they were, and the kernel log
# free of ib_core complaints beyond the fuzzer's (a splat fails the boot).
set -u
. "$(dirname "$0")/../../stack/guest/lib.sh"
t=${TESTNAME:-nlfuzz}
n=${NLFUZZ_N:-100000}
fz=${NLFUZZ:?NLFUZZ: the fuzzer binary (build/nlfuzz/nlfuzz)}
seed=${NLFUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
# NLFUZZ_WRITES=0: reads only (the in-tree stack would take the writes:
# an exclusive namespace mode, software links, counters)
w=-w
[ "${NLFUZZ_WRITES:-1}" = 1 ] || w=
plan 4

dev=$(basename "$(ls -d /sys/class/infiniband/* | head -n 1)")
st1=$(port_state 1)
s0=$SECONDS
o=$("$fz" -n "$n" -s "$seed" $w 2>&1)
rc=$?
echo "$o" | tail -n 3 | sed 's/^/    /'
if [ $rc = 0 ] && echo "$o" | grep -q "^nlfuzz: $n requests, seed $seed: PASS"; then
	pass "$t: $n requests as root, seed $seed, $((SECONDS - s0)) s"
else
	fail "$t: $n requests as root, seed $seed" "exit $rc: $(echo "$o" | grep FAIL | head -n 5)"
fi
m=$((n / 10))
s0=$SECONDS
o=$(setpriv --reuid=65534 --regid=65534 --clear-groups -- "$fz" -n "$m" -s "$((seed + 1))" $w 2>&1)
rc=$?
echo "$o" | tail -n 2 | sed 's/^/    /'
if [ $rc = 0 ] && echo "$o" | grep -q "^nlfuzz: $m requests, seed $((seed + 1)): PASS"; then
	pass "$t: $m requests as nobody, seed $((seed + 1)), $((SECONDS - s0)) s"
else
	fail "$t: $m requests as nobody, seed $((seed + 1))" "exit $rc: $(echo "$o" | grep FAIL | head -n 5)"
fi
[ -d /sys/class/infiniband/"$dev" ] && pass "$t: the device is $dev again" ||
	fail "$t: the device is $dev again" "$(ls /sys/class/infiniband)"
same "$(port_state 1)" "$st1" && pass "$t: port 1 is $st1 as before" ||
	fail "$t: port 1 is $st1 as before" "$(port_state 1)"

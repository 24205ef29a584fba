#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A device's unregistration waiting for a reference must not hold up
# other registrations (ib_core's locking, as upstream's): ibstack_kverbs
# holds a reference on mlx4_0 (debugfs "hold"), "rmmod mlx4_ib" then
# waits in ib_unregister_device for it; meanwhile a second client
# registers and unregisters (debugfs "client2"), which must finish within
# 10 s, without being added to the departing device.  The reference is let
# go, the rmmod finishes, and mlx4_ib is loaded again: mlx4_0 comes back.
# One node, any SM setting; the stack is left loaded.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=kverbs-lib.sh
. "$here/kverbs-lib.sh"
t=${TESTNAME:-kverbs-unreg}
dev=mlx4_0
d=/sys/kernel/debug/ibstack_kverbs
# added, the reference held, the client's remove line, the rmmod waiting,
# client2 registered and unregistered meanwhile, not added to mlx4_0, the
# rmmod done once let go, mlx4_0 back and the client added to it, the
# unload of the test module (10)
plan 10

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
m=$(kv_mark)
if ! kv_load selftest=0; then
	fail "$t: load ibstack_kverbs" "insmod failed or no module for $KVER"
	exit 0
fi
expect "$t: client added to $dev" kv_wait_log 10 "$m" "ibstack_kverbs: add $dev\$"
expect "$t: a reference on $dev held" sh -c "echo $dev >$d/hold"

m=$(kv_mark)
rmmod mlx4_ib &
rm_pid=$!
expect "$t: the unregistration removed the client" kv_wait_log 30 "$m" \
	"ibstack_kverbs: remove $dev\$"
# shellcheck disable=SC2317 # called through expect
waiting() { kill -0 "$rm_pid" 2>/dev/null && [ -d /sys/module/mlx4_ib ]; }
expect "$t: rmmod mlx4_ib waits for the reference" waiting

m2=$(kv_mark)
sh -c "echo 1 >$d/client2" &
c2_pid=$!
expect "$t: another client registers and unregisters meanwhile (10 s)" \
	kv_wait_log 10 "$m2" "ibstack_kverbs: client2 unregistered\$"
# shellcheck disable=SC2317 # called through expect
not_added() { ! kv_since "$m2" | grep -q "ibstack_kverbs: client2 add $dev\$"; }
expect "$t: the new client was not added to the departing $dev" not_added

echo - >"$d/hold"
# shellcheck disable=SC2317 # called through expect
rm_done() { ! kill -0 "$rm_pid" 2>/dev/null; }
expect "$t: rmmod mlx4_ib finishes once the reference is let go" wait_for 60 rm_done
wait "$rm_pid" 2>/dev/null
# shellcheck disable=SC2317 # called through wait_for
c2_done() { ! kill -0 "$c2_pid" 2>/dev/null; }
wait_for 60 c2_done
wait "$c2_pid" 2>/dev/null

m=$(kv_mark)
modprobe mlx4_ib
expect "$t: mlx4_ib loaded again, the client added to $dev" \
	kv_wait_log 30 "$m" "ibstack_kverbs: add $dev\$"
m=$(kv_mark)
expect "$t: unload the test module" rmmod ibstack_kverbs
expect "$t: client removed from $dev" kv_wait_log 10 "$m" "ibstack_kverbs: remove $dev\$"
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What a lab user looks at first, through libibverbs: ibv_devices,
# ibv_devinfo and ibv_devinfo -v, saved to OUT (default /vmout/devinfo)
# for the suite to compare one stack's with another's field by field
# (tests/suite/compare.py, compare_devinfo); here only that each ran and
# names mlx4_0 (a comparison of two empty outputs proves nothing).
set -u
. "$(dirname "$0")/../../testbed/guest/lib.sh"
t=${TESTNAME:-devinfo-dump}
out=${OUT:-/vmout/devinfo}
plan 3
mkdir -p "$out"
# the ports must have settled (an SM brings them ACTIVE) before the dump
# shellcheck disable=SC2317 # called through wait_for
act() { [ "$(grep -c 'PORT_ACTIVE' <(ibv_devinfo 2>/dev/null))" = 2 ]; }
wait_for 60 act || echo "$t: the ports are not both ACTIVE; dumping anyway"
ibv_devices >"$out/devices.txt" 2>&1
drc=$?
expect "$t: ibv_devices lists mlx4_0 (exit $drc)" \
	grep -Eq '^[[:space:]]+mlx4_0[[:space:]]+[0-9a-f]{16}$' "$out/devices.txt"
ibv_devinfo >"$out/devinfo.txt" 2>&1
irc=$?
expect "$t: ibv_devinfo shows mlx4_0 (exit $irc)" \
	[ "$irc" = 0 -a "$(grep -c '^hca_id:[[:space:]]*mlx4_0$' "$out/devinfo.txt")" = 1 ]
ibv_devinfo -v >"$out/devinfo-v.txt" 2>&1
vrc=$?
expect "$t: ibv_devinfo -v shows mlx4_0 with two ports (exit $vrc)" \
	[ "$vrc" = 0 -a "$(grep -c '^[[:space:]]*port:[[:space:]]*[12]$' "$out/devinfo-v.txt")" = 2 ]
exit 0

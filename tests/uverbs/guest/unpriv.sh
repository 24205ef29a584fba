#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The programs a lab user runs, as a user (uid 65534, no capabilities):
# with Debian's default locked-memory limit (8 MiB) an RC pingpong and
# ib_write_bw between the ports work; with a limit too small for
# ib_write_bw's buffers (64 KiB) it fails cleanly: a non-zero exit with
# the kernel's ENOMEM reported ("Cannot allocate memory" or perftest's
# "Couldn't allocate MR"), and the same program works again under the
# default limit afterwards (the boot's unload then finds nothing left in
# the card's accounting).  Every wait is bounded.
set -u
. "$(dirname "$0")/../../testbed/guest/lib.sh"
t=${TESTNAME:-unpriv}
out=$(mktemp -d)
chmod 755 "$out"
user=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --)
# root sets the limit (soft and hard), then the user's program runs under it
# shellcheck disable=SC2016 # expanded by that bash
limited=(bash -c 'ulimit -l "$0" && exec "$@"')
def_kib=8192
small_kib=64
plan 6

# run_pair KIB OUT PROG OPT...: server on port 1, client on port 2, both
# as the user under KIB; OUT.s and OUT.c get what each printed; sets crc
# and src to the exit statuses (crc "listen" if the server never listened)
run_pair() {
	local kib=$1 o=$2 spid
	shift 2
	crc=listen
	timeout 90 "${limited[@]}" "$kib" "${user[@]}" "$@" -i 1 >"$o.s" 2>&1 &
	spid=$!
	if wait_listen 30 "$port" "$spid"; then
		timeout 60 "${limited[@]}" "$kib" "${user[@]}" "$@" -i 2 localhost >"$o.c" 2>&1
		crc=$?
	fi
	reap "$spid" 30
	src=$?
}

# both_said REGEX OUT: both sides exited 0 and printed a line matching REGEX
# shellcheck disable=SC2317 # called through expect
both_said() { [ "$crc.$src" = 0.0 ] && grep -Eq "$1" "$2.s" && grep -Eq "$1" "$2.c"; }

expect "$t: the uverbs device is open to users (mode 0666)" \
	[ "$(stat -c %a /dev/infiniband/uverbs0 2>/dev/null)" = 666 ]

port=18521
run_pair $def_kib "$out/pp" ibv_rc_pingpong -d mlx4_0 -n 100 -p $port
expect "$t: ibv_rc_pingpong as uid 65534, ulimit -l $def_kib (client $crc, server $src)" \
	both_said '^100 iters in' "$out/pp"

port=18522
run_pair $def_kib "$out/bw" ib_write_bw -d mlx4_0 -n 200 -s 65536 -F -p $port
expect "$t: ib_write_bw as uid 65534, ulimit -l $def_kib (client $crc, server $src)" \
	both_said '^ *65536 +200 ' "$out/bw"

# a megabyte's buffers do not fit 64 KiB
port=18523
run_pair $small_kib "$out/small" ib_write_bw -d mlx4_0 -n 200 -s 1048576 -F -p $port
echo "$t: under ulimit -l $small_kib: client $crc, server $src; they said:"
tail -n 3 "$out/small.s" "$out/small.c" 2>/dev/null | sed 's/^/    /'
expect "$t: ib_write_bw under ulimit -l $small_kib fails (server $src)" [ "$src" != 0 ]
expect "$t: ... with the kernel's ENOMEM in its words" \
	grep -Eqi "cannot allocate memory|couldn't allocate mr" "$out/small.s"

port=18524
run_pair $def_kib "$out/again" ib_write_bw -d mlx4_0 -n 200 -s 65536 -F -p $port
expect "$t: ib_write_bw works again under ulimit -l $def_kib (client $crc, server $src)" \
	both_said '^ *65536 +200 ' "$out/again"
rm -rf "$out"
exit 0

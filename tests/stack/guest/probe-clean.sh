#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The first item of every boot (tests/run-checks), whatever the stack:
# loading it and bringing the ports up (under an SM if there is one) left
# no error or warning of the stack's in the kernel log, as a lab user
# checks first.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-probe}
plan 2
log=$(dmesg --level=emerg,alert,crit,err,warn 2>&1)
expect "$t: the kernel log is readable" [ -n "$(dmesg | head -n 1)" ]
# (not the kernel's notes that a module from outside its tree, or one
# without a signature, taints it: every out-of-tree module gets them)
bad=$(grep -iE 'mlx4|infiniband|ib_|ipoib|umad|uverbs|rdma|ibstack' <<<"$log" |
	grep -vE 'loading out-of-tree module taints kernel\.$|module verification failed: signature and/or required key missing - tainting kernel$')
expect "$t: the stack ($STACK) logged no error or warning while loading" [ -z "$bad" ]
[ -z "$bad" ] && exit 0
head -n 20 <<<"$bad" | sed 's/^/    /'
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The last item of every boot (tests/run-checks): stop what holds the stack
# (opensm, the test modules, ibv_asyncwatch), unload every module of the
# InfiniBand stack that is loaded, ours or the kernel's, users first, as an
# administrator would with modprobe -r.  The host then reads the model's
# accounting of this unload (and of every earlier one): nothing may be live
# at CLOSE_HCA, nothing mapped at the ownership release.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-unload}
plan 3

# (ib_iser and rpcrdma: what rdma-core's rdma.conf loads at a systemd
# boot of the in-tree stack, tests/vm/run --boot systemd)
mods=(ibstack_kverbs ibstack_ksa ibstack_kmad ib_ipoib ib_iser rpcrdma rdma_ucm rdma_cm iw_cm
	ib_cm ib_umad ib_uverbs ib_sa mlx4_ib mlx4_en ib_mad mlx4_core ib_core)
pkill -x ibv_asyncwatch 2>/dev/null
expect "$t: no opensm left running" sm_stop

unload_all() { mods_unload "${mods[@]}"; }
before=$(lsmod | awk 'NR > 1 && $1 ~ /^(ib_|mlx4|rdma|rpcrdma|iw_cm|ibstack)/ { print $1 }' | tr '\n' ' ')
expect "$t: modprobe -r of the stack (${before:-nothing loaded})" unload_all
left=$(lsmod | awk 'NR > 1 && $1 ~ /^(ib_|mlx4|rdma|rpcrdma|iw_cm|ibstack)/ { print $1 }' | tr '\n' ' ')
expect "$t: no module of the stack left (${left:-none})" [ -z "$left" ]
exit 0

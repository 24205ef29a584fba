# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# (SC2034: the kf_ results are for the scripts that source this; SC2154:
# ibdev, klog_mark and the rest come from lib.sh, sourced before)
# Kernel fault injection on mlx4_core's bind (the debug kernel: failslab,
# fail_page_alloc, /proc/PID/fail-nth), for eq-enomem.sh and
# bringup-enomem.sh; source after lib.sh.
#
# mlx4_core is bound to the card by a child shell (the probe, and with it
# the clients' add of the new device, runs in the binding task).  The
# child's fail-nth is set only while the probe sleeps in the card's reset
# (seen in /proc/PID/stack): the count starts in mlx4_core's own code,
# after the PCI core's and ACPI's allocations of the bind (ACPI's error
# paths do not survive injected failures: a use-after-free in the kernel's
# ACPICA).

kf_drv=/sys/bus/pci/drivers/mlx4_core
kf_dbg=/sys/kernel/debug
kf_bdf=$(basename "$(readlink -f "$ibdev/device")")

# kf_available: this kernel has fail-nth, failslab and fail_page_alloc
kf_available() {
	mountpoint -q "$kf_dbg" || mount -t debugfs none "$kf_dbg"
	[ -e /proc/self/fail-nth ] && [ -d "$kf_dbg/failslab" ] && [ -d "$kf_dbg/fail_page_alloc" ]
}

# kf_setup PAGES: every kmalloc'ed object, sleeping or not, is a fault
# point, and every page allocation too if PAGES is 1 (else none:
# fail_page_alloc's min-order above the largest); each injection logged
# with its stack.  The kernel's own slab caches are no fault points
# (failslab's cache-filter; tests/vm/run boots the debug kernel with the
# kmalloc caches marked): our modules have no cache of their own, and the
# kernel does not check every allocation from its caches (request_irq()'s
# /proc entries: a failure there is a warning when the vector is freed).
kf_setup() {
	local f
	[ "$(cat /sys/kernel/slab/kmalloc-64/failslab)" = 1 ] &&
		[ "$(cat /sys/kernel/slab/proc_dir_entry/failslab)" = 0 ] || return 1
	kf_set failslab/cache-filter Y || return 1
	for f in failslab fail_page_alloc; do
		kf_set "$f/ignore-gfp-wait" N && kf_set "$f/verbose" 2 &&
			kf_set "$f/verbose_ratelimit_interval_ms" 0 || return 1
	done
	if [ "$1" = 1 ]; then
		kf_set fail_page_alloc/min-order 0
	else
		kf_set fail_page_alloc/min-order 99
	fi
}

# kf_set FILE VALUE: debugfs's fault-injection FILE set to VALUE, its value
# before kept (the first time) for kf_restore
declare -A kf_saved=()
kf_set() {
	if [ -z "${kf_saved[$1]+x}" ]; then
		kf_saved[$1]=$(cat "$kf_dbg/$1") || return 1
	fi
	echo "$2" >"$kf_dbg/$1"
}

# kf_restore: what kf_setup changed set back as it was found, so that the
# boot's later items see the kernel's own settings
kf_restore() {
	local f rc=0
	for f in "${!kf_saved[@]}"; do
		echo "${kf_saved[$f]}" >"$kf_dbg/$f" || rc=1
	done
	kf_saved=()
	return $rc
}

kf_unbind() { echo "$kf_bdf" >"$kf_drv/unbind"; }
kf_bound() { [ -e "$kf_drv/$kf_bdf" ]; }

# kf_bind N [COUNT]: bind mlx4_core with the Nth fault point after the
# card's reset failing (N 0: none); leaves the card as the bind left it
# and sets
#   kf_armed   1 if fail-nth was set during the reset
#   kf_done    1 if the bind ended within 300 s (else it hangs)
#   kf_err     what the write to bind said (empty: it succeeded)
#   kf_log     the kernel log of the bind
#   kf_oops    1 if that log holds an oops or a KASAN report
#   kf_left    with COUNT: the child's fail-nth read back after the bind
#              (the points it did not pass, plus those of the read's open)
kf_bind() {
	local m child errf leftf st
	m=$(klog_mark)
	errf=$(mktemp)
	leftf=$(mktemp)
	if [ -n "${2:-}" ]; then
		(echo "$kf_bdf" >"$kf_drv/bind"
			read -r l </proc/self/fail-nth
			echo 0 >/proc/self/fail-nth
			echo "$l" >"$leftf") 2>"$errf" &
	else
		(echo "$kf_bdf" >"$kf_drv/bind") 2>"$errf" &
	fi
	child=$!
	kf_armed=0
	# (bash builtins only while polling: an exec under TCG can outlast
	# the reset)
	for _ in $(seq 1500); do
		[ "$1" = 0 ] && break
		mapfile -t st <"/proc/$child/stack" 2>/dev/null || break
		if [[ "${st[*]}" == *mlx4_reset* ]]; then
			echo "$1" >"/proc/$child/fail-nth" && kf_armed=1
			break
		fi
		sleep 0.02
	done
	kf_done=0
	wait_for 300 all_gone "$child" && kf_done=1
	[ "$kf_done" = 1 ] && wait "$child"
	kf_err=$(sed 's/.*write error: //' "$errf")
	kf_left=$(cat "$leftf")
	rm -f "$errf" "$leftf"
	kf_log=$(klog_since "$m")
	kf_oops=0
	grep -Eq 'Oops|BUG:|general protection|KASAN|WARNING:' <<<"$kf_log" && kf_oops=1
	return 0
}

# kf_trace: the stack of the injection in kf_log (without the unreliable
# '?' frames), empty if none was logged (GFP_NOWARN allocations are not)
kf_trace() {
	sed -n '/FAULT_INJECTION: forcing a failure/,/<\/TASK>/p' <<<"$kf_log" | grep -v ' ? '
}

# kf_where: the innermost frame of the stack's in one of our modules
kf_where() {
	kf_trace | grep -oE '[A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[(mlx4_core|mlx4_ib|ib_core|ib_mad|ib_sa|ib_cm|ib_umad|ib_uverbs|ib_ipoib|iw_cm|rdma_cm|rdma_ucm)\]' |
		head -n 1 | sed -E 's|/0x[0-9a-f]+ | |'
}

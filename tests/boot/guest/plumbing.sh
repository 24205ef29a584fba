#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian's rdma-core plumbing at boot (tests/vm/run --boot systemd --sm:
# systemd, udevd with Debian's rules, rdma-core's units; guest-init loaded
# nothing), checked the way an admin would look at the host afterwards:
#   - one InfiniBand device, named by rdma_rename's NAME_FALLBACK (Debian's
#     60-rdma-persistent-naming.rules: by PCI location, "ibp<bus>s<slot>",
#     "f<function>" when not 0), in sysfs and in `rdma dev`; the IPoIB
#     interfaces named by udev's net naming from it (<name>, <name>d1);
#   - node_desc as rdma-ndd writes it ("<hostname> <device>"), rdma-ndd
#     running;
#   - /dev/infiniband: uverbs0 0666, umad0/1 and issm0/1 0600, root's; the
#     by-ibdev and by-path links of 60-infiniband.rules; rdma_cm (0666)
#     only on the in-tree stack (ours refuses rdma_ucm: no rdma_cm yet).
#     by-ibdev's name is the device's when udev saw uverbs0 appear, and no
#     uevent comes for uverbs0 when the device is renamed: the in-tree
#     mlx4_ib needs ib_uverbs, so uverbs0 comes with the device, before
#     rdma_rename: uverbs-mlx4_0 (stale from then on); ours loads ib_uverbs
#     from rdma.conf after the rename: uverbs-<new name>;
#   - the units: rdma-load-modules@{infiniband,rdma,roce}, rdma-hw.target,
#     rdma-ndd, opensm.service and opensm@<port 1 GUID> active, none of
#     them failed; both ports ACTIVE under that opensm;
#   - the modules: STACK=ours|installed: every module of ours loaded, out
#     of tree from updates/, and none of the kernel's InfiniBand modules
#     (its other consumers deny-listed by the package's modprobe.d file, as
#     the journal says); STACK=inbox: the kernel's own;
#   - the journal: no error (priority err and above) of the kernel, the
#     plumbing's programs or naming the stack, and no line of a module that
#     failed to load.  The host's own units (the boot is the host's
#     sysinit.target) are noted, not judged.
set -u
. "$(dirname "$0")/../../stack/guest/lib.sh"
t=${TESTNAME:-boot-plumbing}
stack=${STACK:-ours}
plan 15

devs=(/sys/class/infiniband/*)
d=${devs[0]}
name=${d##*/}

# --- the name
pci=$(basename "$(readlink -f "$d/device" 2>/dev/null)")
want=
if [[ "$pci" =~ ^([0-9a-f]{4}):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$ ]]; then
	dom=$((16#${BASH_REMATCH[1]})) bus=$((16#${BASH_REMATCH[2]}))
	slot=$((16#${BASH_REMATCH[3]})) fn=${BASH_REMATCH[4]}
	want=ibp${bus}s${slot}
	[ "$fn" = 0 ] || want+=f$fn
	[ "$dom" = 0 ] || want=
fi
if [ ${#devs[@]} != 1 ] || [ ! -e "$d" ]; then
	fail "$t: one device, named by NAME_FALLBACK" "devices: ${devs[*]##*/}"
elif [ -z "$want" ]; then
	fail "$t: one device, named by NAME_FALLBACK" "$name: its PCI address '$pci' is not in domain 0000"
else
	expect "$t: one device, named by NAME_FALLBACK ($pci: $want)" [ "$name" = "$want" ]
fi
nl=$(rdma dev 2>&1)
expect "$t: rdma dev lists it by that name" grep -q -E "^[0-9]+: $name: node_type ca " <<<"$nl"
[[ "$nl" == *"$name"* ]] || echo "$nl"
net=$(ip -br link show type ipoib 2>&1 | awk '{ print $1 }' | sort | xargs)
want_net=$(printf '%s\n' "$want" "${want}d1" | sort | xargs)
expect "$t: the IPoIB interfaces are $want and ${want}d1 (udev's net naming)" \
	[ "$net" = "$want_net" ]
[ "$net" = "$want_net" ] || echo "    ipoib interfaces: $net"

# --- rdma-ndd
desc=$(cat "$d/node_desc" 2>/dev/null)
expect "$t: node_desc is '$(hostname) $name' (rdma-ndd)" [ "$desc" = "$(hostname) $name" ]
[ "$desc" = "$(hostname) $name" ] || echo "    node_desc: '$desc'"

# --- /dev/infiniband
# mode_of FILE: "mode owner:group" of a character device, else what it is
mode_of() {
	if [ -c "$1" ]; then stat -c '%a %U:%G' "$1"; else echo "no char device"; fi
}
bad=()
for f in uverbs0:666 umad0:600 umad1:600 issm0:600 issm1:600; do
	m=$(mode_of "/dev/infiniband/${f%%:*}")
	[ "$m" = "${f#*:} root:root" ] || bad+=("${f%%:*}: $m, not ${f#*:} root:root")
done
if [ "$stack" = inbox ]; then
	m=$(mode_of /dev/infiniband/rdma_cm)
	[ "$m" = "666 root:root" ] || bad+=("rdma_cm: $m, not 666 root:root")
elif [ -e /dev/infiniband/rdma_cm ]; then
	bad+=("rdma_cm is there: $(mode_of /dev/infiniband/rdma_cm)")
fi
if [ ${#bad[@]} = 0 ]; then
	pass "$t: /dev/infiniband: uverbs0 0666, umad0/1 and issm0/1 0600$([ "$stack" = inbox ] && echo ", rdma_cm 0666" || echo ", no rdma_cm")"
else
	fail "$t: /dev/infiniband: the nodes and their modes" "${bad[*]}"
	ls -l /dev/infiniband
fi
by_ibdev=uverbs-$name
[ "$stack" = inbox ] && by_ibdev=uverbs-mlx4_0
l1=$(find /dev/infiniband/by-ibdev -mindepth 1 -printf "%f " 2>&1)
l1=${l1% }
l2=$(readlink "/dev/infiniband/by-ibdev/$by_ibdev")
l3=$(readlink "/dev/infiniband/by-path/pci-$pci")
links_ok() { [ "$l1" = "$by_ibdev" ] && [ "$l2" = ../uverbs0 ] && [ "$l3" = ../uverbs0 ]; }
expect "$t: by-ibdev/$by_ibdev (the only one) and by-path/pci-$pci link to uverbs0" links_ok
links_ok || ls -lR /dev/infiniband

# --- the units
g=$(cat "$d/ports/1/gids/0" 2>/dev/null | tr -d :)
sm_unit=opensm@0x${g:16:16}.service
bad=()
for u in rdma-load-modules@infiniband.service rdma-load-modules@rdma.service \
	rdma-load-modules@roce.service rdma-hw.target rdma-ndd.service opensm.service "$sm_unit"; do
	s=$(systemctl is-active "$u" 2>&1)
	[ "$s" = active ] || bad+=("$u: $s")
done
if [ ${#bad[@]} = 0 ]; then
	pass "$t: rdma-load-modules@{infiniband,rdma,roce}, rdma-hw.target, rdma-ndd, opensm and $sm_unit active"
else
	fail "$t: the units active" "${bad[*]}"
fi
# (the host's own units, which the boot shares, are noted, not judged: a
# CI host's are not ours to fix)
plumbing_rx='^(rdma|opensm|cx3-|kmod|systemd-(modules-load|udev))'
failed=$(systemctl list-units --failed --plain --no-legend 2>&1)
mine=$(grep -E "$plumbing_rx" <<<"$failed")
expect "$t: no failed unit of the stack's plumbing (rdma-*, opensm*, udev, modules-load)" [ -z "$mine" ]
[ -z "$failed" ] || echo "NOTE $t: failed units: $failed"
links=$(rdma link 2>&1)
expect "$t: rdma link: ports 1 and 2 ACTIVE under $sm_unit" \
	[ "$(grep -c -E "^link $name/[12] .* state ACTIVE " <<<"$links")" = 2 ]
[ "$(grep -c -E "^link $name/[12] .* state ACTIVE " <<<"$links")" = 2 ] || echo "$links"

# --- the modules
ib_mods=(mlx4_core mlx4_ib ib_core ib_umad ib_uverbs ib_ipoib)
[ "$stack" = inbox ] || ib_mods+=(ib_mad ib_sa ib_cm)
bad=()
for m in "${ib_mods[@]}"; do
	f=$(modinfo -n "$m" 2>/dev/null)
	tn=$(cat "/sys/module/$m/taint" 2>/dev/null)
	if [ ! -d "/sys/module/$m" ]; then
		bad+=("$m not loaded")
	elif [ "$stack" = inbox ]; then
		[[ "$f" == "/lib/modules/$KVER/kernel/"* && "$tn" != *O* ]] || bad+=("$m: $f (taint '$tn')")
	else
		[[ "$f" == "/lib/modules/$KVER/updates/"* && "$tn" == *O* ]] || bad+=("$m: $f (taint '$tn')")
	fi
done
if [ ${#bad[@]} = 0 ]; then
	pass "$t: ${ib_mods[*]} loaded, $([ "$stack" = inbox ] && echo "the kernel's own" || echo "ours from updates/")"
else
	fail "$t: the stack's modules loaded" "${bad[*]}"
fi
# every loaded module of the kernel's InfiniBand and RDMA directories
kernel_ib=()
while read -r m _; do
	f=$(modinfo -n "$m" 2>/dev/null)
	case "$f" in
	"/lib/modules/$KVER/kernel/drivers/infiniband/"* | "/lib/modules/$KVER/kernel/drivers/net/ethernet/mellanox/"* | \
	"/lib/modules/$KVER/kernel/net/sunrpc/xprtrdma/"* | "/lib/modules/$KVER/kernel/net/rds/"* | \
	"/lib/modules/$KVER/kernel/net/9p/9pnet_rdma"* | "/lib/modules/$KVER/kernel/net/smc/"* | \
	"/lib/modules/$KVER/kernel/drivers/nvme/"*rdma*)
		kernel_ib+=("$m") ;;
	esac
done </proc/modules
if [ "$stack" = inbox ]; then
	# the in-tree stack loads rdma.conf's ULPs: ib_iser, rdma_ucm, rpcrdma
	miss=()
	for m in ib_iser rdma_ucm rpcrdma; do
		[[ " ${kernel_ib[*]} " == *" $m "* ]] || miss+=("$m")
	done
	expect "$t: the kernel's rdma.conf ULPs loaded (ib_iser rdma_ucm rpcrdma)" [ ${#miss[@]} = 0 ]
	[ ${#miss[@]} = 0 ] || echo "    not loaded: ${miss[*]} (the kernel's loaded: ${kernel_ib[*]})"
else
	expect "$t: none of the kernel's InfiniBand/RDMA modules loaded" [ ${#kernel_ib[@]} = 0 ]
	[ ${#kernel_ib[@]} = 0 ] || echo "    the kernel's: ${kernel_ib[*]}"
fi

# --- the journal
jr=$(journalctl -b --no-pager -o short-monotonic 2>&1)
expect "$t: the journal is readable and has this boot's rdma-load-modules lines" \
	grep -q 'rdma-load-modules@rdma.service' <<<"$jr"
if [ "$stack" = inbox ]; then
	ok=$(grep -c -E "systemd-modules-load\[[0-9]+\]: Inserted module '(ib_iser|rdma_ucm|rpcrdma)'" <<<"$jr")
	expect "$t: systemd-modules-load inserted ib_iser, rdma_ucm and rpcrdma" [ "$ok" -ge 3 ]
else
	ok=$(grep -c -E "systemd-modules-load\[[0-9]+\]: Module '(ib_iser|rdma_ucm|rpcrdma)' is deny-listed" <<<"$jr")
	expect "$t: systemd-modules-load: ib_iser, rdma_ucm, rpcrdma deny-listed (the package's modprobe.d)" \
		[ "$ok" -ge 3 ]
fi
modfail=$(grep -E -i "Failed to (insert|find) module|Unknown symbol|disagrees about version|modprobe: (ERROR|FATAL)|Error running install command" <<<"$jr")
expect "$t: no module failed to load (journal)" [ -z "$modfail" ]
[ -z "$modfail" ] || echo "$modfail"
# errors of the kernel, of the plumbing's programs, or naming the stack
err=$(journalctl -b --no-pager -p err -o short-monotonic 2>&1 | grep -v -E '^-- (No entries|Journal begins|Logs begin)')
mine=$(grep -i -E '\] [^ ]+ (kernel|systemd-modules-load|systemd-udevd|rdma[-_a-z]*|opensm|OpenSM)(\[[0-9]+\])?:|rdma|infiniband|mlx4|ib_|umad|uverbs|ipoib|opensm' <<<"$err")
expect "$t: no error in the journal from the kernel, the plumbing or about the stack" [ -z "$mine" ]
[ -z "$mine" ] || echo "$mine"
[ -z "$err" ] || [ "$err" = "$mine" ] || echo "NOTE $t: other errors in the journal: $err"
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# SCSI over RDMA through the in-tree kernel ULPs, on one node whose port 1
# is cabled to its port 2 (opensm running): ib_srpt exports a LIO fileio
# disk on port 1, configured through configfs by hand; ib_srp on port 2
# logs in to it (add_target); the SCSI disk appears; data written with
# O_DIRECT in blocks of many pages (so that every request's memory must be
# registered) lands in the target's backing file, reads back identical,
# and data put into the backing file on the target's side reads identical
# through the initiator; then the initiator logs out, the target is taken
# down and the modules unload.  The harness fails any kernel splat.
#
# Memory registration: ib_srp decides in srp_add_one whether the device
# does fast registration (IB_DEVICE_MEM_MGT_EXTENSIONS, which mlx4_ib
# reports when the card's BMME flags have local invalidate, remote
# invalidate and fast-register WRs).  SRP_FR says what the model should
# give it:
#   1  ib_srp uses FR: no "FR is not supported" warning and no unsafe
#      global rkey (ib_core's note), srp_create_target's debug line of its
#      FR pool ("mr_per_cmd"), the pools' MRs in rdma's resource tracking
#      with some mapped by the I/O, MEM_MGT_EXTENSIONS in ibv_devinfo
#   0  it does not: the warning and the unsafe global rkey, no pool line,
#      no MR of ib_srp's, no MEM_MGT_EXTENSIONS
# so that the test fails when the model's FRWR comes or goes unnoticed.
# (An absent debug line counts only because srp_add_one's other debug
# line, printed either way, shows that dynamic debug is on.)
#
# Every wait polls with a deadline; every kernel line this script expects
# is looked for in the kernel log since its own marker, and a missing one
# is a FAIL.
# shellcheck disable=SC2317 # the checks' functions run through expect and wait_for
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-srp}
fr=${SRP_FR:-1}
case $fr in
0 | 1) ;;
*) echo "SRP_FR must be 0 or 1, not '$fr'" >&2; exit 2 ;;
esac
plan 18

dev=mlx4_0
ibsys=/sys/class/infiniband/$dev
cfg=/sys/kernel/config/target
work=$(mktemp -d)
backing=$work/backing		# the target's disk: a file on tmpfs
size_mib=128			# the disk
wr_mib=64			# written by the initiator at offset 0
tg_mib=32			# written by the target's side at offset 64 MiB
disk=""				# sdX once it appears
host=""				# the SCSI host of the SRP target port

# the kernel log since this script's marker
# (no regex metacharacters in it: sed looks for it)
marker="srp.sh pid $$ starts"
echo "$marker" >/dev/kmsg
klog() { dmesg | sed -n "\\|$marker|,\$p"; }
klog_has() { klog | grep -Eq -- "$1"; }

# a GUID as ib_srpt names ports in configfs (%04x:%04x:%04x:%04x): the
# interface ID, the last four groups of a GID as sysfs shows it
gid0() { cat "$ibsys/ports/$1/gids/0"; }
port_guid_name() { local g; g=$(gid0 "$1") && echo "${g:20}"; }

# --- the modules ---------------------------------------------------------------
# (dyndbg: srp_add_one's decision runs at load time, so its pr_debug lines
# must be on from the start; ib_srp must not be loaded yet for the same
# reason.  sd_mod: no udev here loads it when the disk is found.)
load() {
	! lsmod | grep -q '^ib_srp ' &&
		modprobe -a sd_mod target_core_mod target_core_file ib_srpt &&
		modprobe ib_srp dyndbg=+p
}
expect "$t: ib_srp (fresh), ib_srpt, target_core_mod, target_core_file, sd_mod load" load

# --- FR or not: what srp_add_one decided ---------------------------------------
warned() { klog_has "$dev: FR is not supported"; }
# ib_core's note when a PD gets the unsafe global rkey (ib_srp asks for it
# only without FR)
global_rkey() { klog_has "ib_srp: enabling unsafe global rkey"; }
# srp_add_one's second pr_debug line, printed on both paths: proves the
# dynamic debug lines show, without which an absent FR line means nothing
pagelist() { klog_has "$dev: mr_page_shift = [0-9]+, .*max_fast_reg_page_list_len = [0-9]+, max_pages_per_mr = [0-9]+"; }
why=""
pagelist || why+="no srp_add_one debug line; "
if [ "$fr" = 1 ]; then
	! warned || why+="it warned 'FR is not supported'; "
	! global_rkey || why+="its PD has the unsafe global rkey; "
	name="$t: ib_srp found fast registration (srp_add_one's debug line; no 'FR is not supported', no global rkey)"
else
	warned || why+="no 'FR is not supported'; "
	global_rkey || why+="no unsafe global rkey; "
	name="$t: ib_srp warned 'FR is not supported' and took the unsafe global rkey (the model has no FRWR)"
fi
if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why"; fi
caps=$(ibv_devinfo -d "$dev" -v 2>&1)
if grep -q MEM_MGT_EXTENSIONS <<<"$caps"; then has_mme=1; else has_mme=0; fi
expect "$t: ibv_devinfo -v shows MEM_MGT_EXTENSIONS: $has_mme, expected $fr" [ "$has_mme" = "$fr" ]

# --- the target: LIO through configfs ------------------------------------------
tport=$(port_guid_name 1)	# the target listens on port 1 ...
iguid=$(port_guid_name 2)	# ... for the initiator on port 2
node_guid=$(tr -d : <"$ibsys/node_guid")	# ib_srpt's default service GUID
tpg=$cfg/srpt/$tport/tpgt_1
bs=$cfg/core/fileio_0/srpdisk
target_up() {
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config || return 1
	mkdir -p "$bs" &&
		echo "fd_dev_name=$backing,fd_dev_size=$((size_mib << 20))" >"$bs/control" &&
		echo 1 >"$bs/enable" &&
		mkdir -p "$tpg/lun/lun_0" &&
		ln -s "$bs" "$tpg/lun/lun_0/srpdisk" &&
		# ib_srpt allows no demo mode: the initiator port needs an ACL,
		# named by its port GUID on a GUID-named target port, and LUN 0
		# mapped in it
		mkdir -p "$tpg/acls/$iguid/lun_0" &&
		ln -s "$tpg/lun/lun_0" "$tpg/acls/$iguid/lun_0/lun_0" &&
		echo 1 >"$tpg/enable"
}
expect "$t: the target configured in configfs (fileio $size_mib MiB, srpt port $tport, ACL $iguid)" target_up

# --- the initiator ---------------------------------------------------------------
# srp hosts exist once ib_srp has added the device; the target's IDs are
# ib_srpt's service GUID (the node GUID) and its GID on port 1
add=/sys/class/infiniband_srp/srp-$dev-2/add_target
dgid=$(gid0 1)
dgid=${dgid//:/}
add_target() {
	wait_for 10 test -w "$add" &&
		echo "id_ext=$node_guid,ioc_guid=$node_guid,dgid=$dgid,pkey=ffff,service_id=$node_guid" >"$add"
}
expect "$t: add_target on srp-$dev-2 accepted" add_target

# the SCSI host ib_srp made for the target port, and its disk
find_disk() {
	local h b
	for h in /sys/class/scsi_host/host*; do
		[ "$(cat "$h/proc_name" 2>/dev/null)" = ib_srp ] || continue
		[ "$(tr -d : <"$h/dgid" 2>/dev/null)" = "$dgid" ] || continue
		host=$h
		for b in "$h"/device/target*/*/block/sd*; do
			[ -e "$b" ] || continue
			[ "$(cat "$b/size")" -gt 0 ] || continue
			[ -b "/dev/${b##*/}" ] || continue
			disk=${b##*/}
			return 0
		done
	done
	return 1
}
if wait_for 60 find_disk; then
	vendor=$(tr -d ' ' <"/sys/block/$disk/device/vendor")
	sectors=$(cat "/sys/block/$disk/size")
	if [ "$vendor" = LIO-ORG ] && [ "$sectors" = $((size_mib << 11)) ]; then
		pass "$t: SCSI disk $disk appeared ($vendor, $((sectors >> 11)) MiB)"
	else
		fail "$t: SCSI disk $disk appeared" "vendor '$vendor', $sectors sectors, expected LIO-ORG and $((size_mib << 11))"
	fi
else
	fail "$t: SCSI disk appeared" "no disk under an ib_srp host with dgid $dgid within 60 s"
fi
# the target's view: ib_srpt took the login, and LIO has the ACL's session
# (its port_ident reads only while a session exists)
sess=$tpg/acls/$iguid/lun_0/statistics/scsi_att_intr_port/port_ident
session() { grep -q "^$iguid+i+" "$sess" 2>/dev/null; }
login_seen() { klog_has "Received SRP_LOGIN_REQ with i_port_id 0000:0000:0000:0000:$iguid," && session; }
expect "$t: ib_srpt took the login from port 2, LIO shows the ACL's session" login_seen
# per target: srp_create_target's debug line of its MR pool's sizes, which
# only FR prints (the dynamic debug lines show: pagelist above)
pool() { klog_has "max_sectors = [0-9]+; max_pages_per_mr = [0-9]+; mr_page_size = [0-9]+; max_sectors_per_mr = [0-9]+; mr_per_cmd = [0-9]+"; }
if [ "$fr" = 1 ]; then
	expect "$t: srp_create_target sized an FR pool (its mr_per_cmd debug line)" pool
else
	expect "$t: srp_create_target made no FR pool (no mr_per_cmd debug line)" eval '! pool'
fi

# --- data ------------------------------------------------------------------------
sum() { sha256sum | cut -d' ' -f1; }
# dd bounded in time: a hung SRP command must not hang the test
ddt() { timeout 120 dd status=none "$@"; }
# first differing byte, for a FAIL line
differ() { cmp "$1" "$2" 2>&1 | head -1; }
head -c $((wr_mib << 20)) /dev/urandom >"$work/w"
head -c $((tg_mib << 20)) /dev/urandom >"$work/t"
if [ -n "$disk" ]; then
	# initiator -> target (ib_srpt RDMA-READs the initiator's buffers):
	# 1 MiB blocks, O_DIRECT
	ddt if="$work/w" of="/dev/$disk" bs=1M oflag=direct conv=fsync
	rc=$?
	expect "$t: $wr_mib MiB written to $disk, O_DIRECT, 1 MiB blocks (dd status $rc)" [ "$rc" = 0 ]
	head -c $((wr_mib << 20)) "$backing" >"$work/wb"
	if [ "$(sum <"$work/wb")" = "$(sum <"$work/w")" ]; then
		pass "$t: the target's backing file holds the data written (sha256)"
	else
		fail "$t: the target's backing file holds the data written (sha256)" "$(differ "$work/w" "$work/wb")"
	fi
	# target -> initiator (RDMA WRITEs into the initiator's buffers), in
	# another block size so that requests split differently
	ddt if="/dev/$disk" of="$work/r" bs=256K count=$((wr_mib * 4)) iflag=direct
	rc=$?
	if [ "$rc" = 0 ] && [ "$(sum <"$work/r")" = "$(sum <"$work/w")" ]; then
		pass "$t: read back identical (O_DIRECT, 256 KiB blocks, sha256)"
	else
		fail "$t: read back identical (O_DIRECT, 256 KiB blocks, sha256)" "dd status $rc; $(differ "$work/w" "$work/r")"
	fi
	# data the initiator never sent: written into the backing file on
	# the target's side, read through SRP in 4 MiB blocks
	dd status=none if="$work/t" of="$backing" bs=1M seek="$wr_mib" conv=notrunc,fsync
	ddt if="/dev/$disk" of="$work/tr" bs=4M skip=$((wr_mib / 4)) count=$((tg_mib / 4)) iflag=direct
	rc=$?
	if [ "$rc" = 0 ] && [ "$(sum <"$work/tr")" = "$(sum <"$work/t")" ]; then
		pass "$t: the target's own data read identical (O_DIRECT, 4 MiB blocks, sha256)"
	else
		fail "$t: the target's own data read identical (O_DIRECT, 4 MiB blocks, sha256)" "dd status $rc; $(differ "$work/t" "$work/tr")"
	fi
else
	for c in "written" "backing file holds" "read back" "target's own data read"; do
		fail "$t: data $c" "no disk"
	done
fi

# the device's view (rdma's resource tracking): the memory regions ib_srp
# owns are its FR pools, and the I/O above mapped some of them (mrlen, the
# length of the last ib_map_mr_sg); without FR it owns none (its global
# rkey's DMA MR is the PD's internal one, which is not tracked)
mrs=$(rdma res show mr 2>&1 | grep -c 'comm \[ib_srp\]')
mapped=$(rdma res show mr 2>&1 | grep 'comm \[ib_srp\]' | grep -vc ' mrlen 0 ')
if [ "$fr" = 1 ]; then
	used() { [ "$mrs" -gt 0 ] && [ "$mapped" -gt 0 ]; }
	expect "$t: rdma res: ib_srp owns $mrs MRs, $mapped of them mapped by the I/O" used
else
	expect "$t: rdma res: ib_srp owns no MR ($mrs)" [ "$mrs" = 0 ]
fi

# --- logout and teardown ---------------------------------------------------------
# the initiator's logout: delete the SRP remote port, the SCSI host goes
rport=""
[ -n "$host" ] && rport=$(echo "$host"/device/port-*:1/srp_remote_ports/port-*)
logout() {
	[ -n "$rport" ] && [ -w "$rport/delete" ] && echo 1 >"$rport/delete" &&
		wait_for 60 test ! -e "$host" && { [ -z "$disk" ] || [ ! -e "/sys/block/$disk" ]; }
}
expect "$t: logout: the SRP remote port deleted, host and disk gone" logout
# the target saw the logout: the ACL's session is gone (ib_srpt releases
# it from a work item after the channel's DREQ)
# (60 s: the release can wait for ib_cm's time wait, seen to take 20 s
# under KVM)
gone() { ! session; }
t0=$SECONDS
wait_for 60 gone
rc=$?
expect "$t: the target's session ended (after $((SECONDS - t0)) s)" [ "$rc" = 0 ]

target_down() {
	local ok=0
	rm -f "$tpg/acls/$iguid/lun_0/lun_0" || ok=1
	rmdir "$tpg/acls/$iguid/lun_0" "$tpg/acls/$iguid" || ok=1
	echo 0 >"$tpg/enable" || ok=1
	rm -f "$tpg/lun/lun_0/srpdisk" || ok=1
	rmdir "$tpg/lun/lun_0" "$tpg" "$cfg/srpt/$tport" "$cfg/srpt" || ok=1
	rmdir "$bs" "$cfg/core/fileio_0" || ok=1
	return "$ok"
}
expect "$t: the target taken down in configfs" target_down
unload() {
	timeout 60 modprobe -r ib_srp &&
		timeout 60 modprobe -r ib_srpt &&
		# with every backend module the target core loaded on its first
		# use (iblock, file, pscsi, user: transport_subsystem_check_init)
		# (no process substitution: the guest has no /dev/fd)
		read -ra backends <<<"$(lsmod | awk '/^target_core_/ && $1 != "target_core_mod" { printf "%s ", $1 }')" &&
		timeout 60 modprobe -r "${backends[@]}" &&
		timeout 60 modprobe -r target_core_mod && return 0
	# who holds what is left
	lsmod | grep -E '^(ib_srpt?|target_core_[a-z]+|scsi_transport_srp) '
	return 1
}
expect "$t: ib_srp, ib_srpt and the target core unload" unload
# (ib_srpt's lines start "ib_srpt "; flushed receives, status 5, are how
# its channel ends)
errs=$(klog | grep -E "ib_srp: .*(error|failed|rejected)|ib_srpt .*(error|failed|rejected|Rejecting)|srpt.*[Rr]eject" |
	grep -v "receiving failed for ioctx .* with status 5$")
expect "$t: no ib_srp or ib_srpt error in the kernel log${errs:+: $(head -3 <<<"$errs" | tr '\n' ' ')}" [ -z "$errs" ]
rm -rf "$work"
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian package (make deb), end to end, on this host (root), checked
# the way its user would check it:
#   - make deb builds build/deb/ibstack-cx3-dkms_<version>_all.deb and
#     writes nothing into the source tree but build/; the package has the
#     sources with the tree's own dkms.conf, the modprobe.d policy (a
#     conffile) and the dkms override; lintian reports no error;
#   - apt-get install ./the.deb (dpkg -i if apt-get cannot), on a host
#     running one of its kernels (if this one runs a kernel that is not in
#     /lib/modules, the maintainer scripts' uname -r names the newest one
#     with headers, as on a lab server running its newest kernel: dkms's own
#     postinst then builds for that one only, the package's for the others):
#     for every kernel with headers in /lib/modules, dkms status shows ibstack-cx3
#     installed, modinfo -k <release> -n names ours under updates/ for every
#     module of the package, the development tree is in
#     /usr/src/ibstack-cx3/<release>/, the initramfs carries ours instead of
#     the kernel's stack modules and the policy; the policy and the dkms
#     override are the tree's files; dkms.conf has AUTOINSTALL=yes, and
#     dkms's kernel hook (what installing a kernel runs) installs the
#     modules again after a dkms uninstall;
#   - with DEB_REINSTALL=1, apt-get install --reinstall (an upgrade's path
#     through the maintainer scripts: the prerm removes the modules from
#     every kernel, the postinst builds them again): installed again for
#     every kernel with headers;
#   - a VM on each kernel of DEB_SERIES (tests/vm/run --stack installed
#     --sm, tests/build/installed-guest.sh) loads the stack with modprobe:
#     ours from updates/, built out of tree, mlx4_0 with both ports ACTIVE,
#     the kernel's rdma_cm refused by the policy; it unloads;
#   - a VM on each kernel of DEB_SERIES that boots the installed package
#     the way a Debian host does (tests/vm/run --stack installed --boot
#     systemd --sm: udev, rdma-core's rules and units, opensm's unit),
#     checked by tests/boot/guest/plumbing.sh (the device named by
#     rdma_rename, rdma-ndd, /dev/infiniband, only ours loaded, the
#     kernel's other consumers deny-listed, a clean journal);
#   - apt-get purge: nothing of the package left (dkms status, our modules
#     in /lib/modules/*/updates, /usr/src, /etc/modprobe.d, /usr/share/dkms,
#     /var/lib/dkms); every module name of ours resolves to the kernel's own
#     again under kernel/ (or to nothing where the kernel has no module of
#     that name); each initramfs carries what it carried before the install;
#   - a VM on each kernel of DEB_SERIES with the in-tree stack (--stack
#     inbox --sm): the kernel's own modules, both ports ACTIVE, and the
#     kernel's rdma_cm loads again;
#   - whatever happens, the package is purged again at the end (if the
#     purge fails, what it installed is removed by hand and depmod re-run):
#     the host's /lib/modules is what every later VM test boots with.
# Prints PASS/FAIL lines; exits 1 if one failed.  While it runs, other VM
# tests on this host would see our modules: never run them concurrently
# (the dkms group runs it last).
#   [DEB_SERIES="6.1 6.12"] [DEB_REINSTALL=1] tests/build/deb.sh [--no-vm]
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
vm=1
[ "${1:-}" = --no-vm ] && vm=0
pkg=ibstack-cx3
dpkg_pkg=ibstack-cx3-dkms
ver=$(cat "$top/VERSION" 2>/dev/null || echo 0)
deb=$top/build/deb/${dpkg_pkg}_${ver}_all.deb
conf=/etc/modprobe.d/$pkg.conf
force_file=/usr/share/dkms/modules_to_force_install/$pkg
export DEBIAN_FRONTEND=noninteractive

# shellcheck source=tests/build/dkms-lib.sh
. "$top/tests/build/dkms-lib.sh"

nfail=0
fail() { echo "FAIL deb$1: $2"; nfail=$((nfail + 1)); }
indent() { sed 's/^/    /'; }
# join WORD...: the words separated by "; "
join() {
	local s
	s=$(printf '%s; ' "$@")
	echo "${s%; }"
}
if [ "$(id -u)" != 0 ]; then fail "" "must run as root"; exit 1; fi
for t in make dpkg-deb dpkg-query dkms modinfo depmod lintian; do
	command -v "$t" >/dev/null || { fail "" "no $t (make setup installs it)"; exit 1; }
done
initramfs=0
if command -v update-initramfs >/dev/null; then
	initramfs=1
	command -v lsinitramfs >/dev/null || { fail "" "update-initramfs without lsinitramfs"; exit 1; }
fi

# pkg_state: dpkg's status abbreviation (ii, rc, iF, ...), empty if unknown
pkg_state() { dpkg-query -W -f='${db:Status-Abbrev}' "$dpkg_pkg" 2>/dev/null | tr -d ' '; }
# pkg_known: installed or not yet purged, in any state
pkg_known() { case "$(pkg_state)" in "" | un | pn) return 1 ;; esac; }
# purge_pkg LOG: apt-get purge (dpkg --purge without apt-get)
purge_pkg() {
	if command -v apt-get >/dev/null; then
		apt-get purge -y "$dpkg_pkg" >"$1" 2>&1
	else
		dpkg --purge "$dpkg_pkg" >"$1" 2>&1
	fi
}

series=() releases=()
for s in ${DEB_SERIES:-6.1 6.12}; do
	if r=$("$top/tests/setup/kernels.sh" version "$s" 2>/dev/null); then
		series+=("$s")
		releases+=("$r")
	else
		fail "" "no installed $s kernel (make setup)"
	fi
done
# The package's promise: every kernel with headers.
hdr_rels=()
for d in /lib/modules/*/; do
	d=${d%/}
	[ -d "$d/build/include" ] && hdr_rels+=("${d##*/}")
done
for r in "${releases[@]}"; do
	[[ " ${hdr_rels[*]} " == *" $r "* ]] || fail "" "$r has no headers in /lib/modules/$r/build"
done
[ ${#hdr_rels[@]} -gt 0 ] || { fail "" "no kernel with headers in /lib/modules"; exit 1; }

tmp=$(mktemp -d /tmp/ibstack-deb.XXXXXX)
installed_by_us=0
cleanup() {
	local r
	if [ "$installed_by_us" = 1 ] && pkg_known; then
		echo "deb: purging $dpkg_pkg (cleanup)"
		purge_pkg "$tmp/cleanup-purge.log" || indent <"$tmp/cleanup-purge.log"
	fi
	if [ "$installed_by_us" = 1 ] &&
	   { pkg_known || dkms status "$pkg" 2>/dev/null | grep -q . || [ -e "/usr/src/$pkg-$ver" ]; }; then
		echo "FAIL deb cleanup: the purge left $dpkg_pkg ($(pkg_state)) or its DKMS module: removing them by hand"
		dkms remove "$pkg/$ver" --all >/dev/null 2>&1
		rm -rf "/usr/src/$pkg-$ver" "/var/lib/dkms/$pkg" "$force_file" "$conf"
		for r in "${hdr_rels[@]}"; do
			"$top/scripts/devel-install.sh" uninstall "/usr/src/$pkg/$r" "$ver" 2>/dev/null
			rm -rf "/lib/modules/$r/updates/dkms"
			rmdir "/lib/modules/$r/updates" 2>/dev/null
			depmod -a "$r"
		done
		[ "$initramfs" = 1 ] && update-initramfs -u -k all >/dev/null 2>&1
		pkg_known && echo "deb: $dpkg_pkg is still known to dpkg ($(pkg_state)): see $tmp"
	fi
	if [ "$nfail" = 0 ] && ! pkg_known; then
		rm -rf "$tmp"
	else
		echo "deb: logs in $tmp"
	fi
}
trap cleanup EXIT
trap 'echo "FAIL deb: interrupted"; exit 130' INT TERM HUP

# The package's module names (dkms.conf computes them from the Kbuilds).
mapfile -t mods < <(bash -c '. "$1/dkms.conf"; printf "%s\n" "${BUILT_MODULE_NAME[@]}"' _ "$top")
[ ${#mods[@]} -gt 0 ] || { fail "" "dkms.conf names no module (BUILT_MODULE_NAME)"; exit 1; }
mods_rx=$(printf '%s|' "${mods[@]}")
mods_rx="/(${mods_rx%|})\\.ko"

# --- the host before: a leftover of an earlier run goes; a manual install
# (make install-extras, dkms add by hand) stops the test: it could not show
# that the purge restores the host.
if pkg_known; then
	echo "deb: purging an earlier $dpkg_pkg ($(pkg_state)) first"
	if ! purge_pkg "$tmp/purge-old.log"; then
		fail "" "purging an earlier $dpkg_pkg failed:"
		tail -n 15 "$tmp/purge-old.log" | indent
		exit 1
	fi
fi
if dkms status "$pkg/$ver" 2>/dev/null | grep -q .; then
	echo "deb: removing a DKMS install of $pkg/$ver by hand first"
	dkms remove "$pkg/$ver" --all >/dev/null 2>&1
	rm -rf "/usr/src/$pkg-$ver"
fi
pre=()
for f in "$conf" "$force_file" "/usr/src/$pkg" /usr/src/$pkg-*; do
	[ -e "$f" ] && pre+=("$f")
done
for r in "${hdr_rels[@]}"; do
	for m in "${mods[@]}"; do
		f=$(modinfo -k "$r" -n "$m" 2>/dev/null)
		[[ "$f" == "/lib/modules/$r/updates/"* ]] && pre+=("$f")
	done
done
if dkms status "$pkg" 2>/dev/null | grep -q . || [ ${#pre[@]} -gt 0 ]; then
	fail "" "this host has $pkg installed by hand (${pre[*]} $(dkms status "$pkg" 2>/dev/null | tr '\n' ' ')): remove it first (README \"Installing with DKMS\")"
	exit 1
fi

# rx RELEASE: RELEASE as an extended regular expression (6.12.95+deb12-amd64)
rx() { sed 's/[.+]/\\&/g' <<<"$1"; }
# initramfs_stack RELEASE: the lines of RELEASE's initramfs that are a
# module of one of our names, or our modprobe.d file (sorted; nothing
# without an initramfs)
initramfs_stack() {
	local img=/boot/initrd.img-$1
	[ "$initramfs" = 1 ] && [ -f "$img" ] || return 0
	lsinitramfs "$img" | grep -E "$mods_rx|^etc/modprobe\\.d/$pkg\\.conf\$" | LC_ALL=C sort
}
declare -A initrd_before=()
for r in "${hdr_rels[@]}"; do
	initrd_before[$r]=$(initramfs_stack "$r")
done

# --- make deb -------------------------------------------------------------
mark=$tmp/mark
touch "$mark"
t0=$SECONDS
if ! make -C "$top" deb >"$tmp/make-deb.log" 2>&1 || [ ! -f "$deb" ]; then
	fail " build" "make deb failed (or wrote no $deb); last lines:"
	tail -n 25 "$tmp/make-deb.log" | indent
	exit 1
fi
# what make deb wrote outside build/ (any newer file or directory)
written=$(find "$top" \( -path "$top/build" -o -path "$top/.git" \) -prune -o -newer "$mark" -print |
	head -n 10)
if [ -n "$written" ]; then
	fail " build" "make deb wrote into the source tree:"
	indent <<<"$written"
else
	echo "PASS deb build: make deb wrote ${deb#"$top"/} in $((SECONDS - t0)) s ($(dpkg-deb -c "$deb" | grep -c -v '/$') files), nothing into the source tree outside build/"
fi

# --- what is in it ----------------------------------------------------------
src=/usr/src/$pkg-$ver
dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|' >"$tmp/files"
dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./conffiles >"$tmp/conffiles" 2>/dev/null
bad=()
for f in "$src/dkms.conf" "$src/VERSION" "$src/Makefile" "$src/Kbuild" "$src/scripts/devel-install.sh" \
	"$conf" "$force_file"; do
	grep -q -x -F "$f" "$tmp/files" || bad+=("no $f")
done
grep -q -x -F "$conf" "$tmp/conffiles" || bad+=("$conf is not a conffile")
[ "$(dpkg-deb -f "$deb" Package)" = "$dpkg_pkg" ] || bad+=("Package: $(dpkg-deb -f "$deb" Package)")
[ "$(dpkg-deb -f "$deb" Version)" = "$ver" ] || bad+=("Version: $(dpkg-deb -f "$deb" Version), VERSION says $ver")
[ "$(dpkg-deb -f "$deb" Architecture)" = all ] || bad+=("Architecture: $(dpkg-deb -f "$deb" Architecture)")
deps=$(dpkg-deb -f "$deb" Depends)
[[ "$deps" =~ (^|[ ,])dkms([ ,]|$) ]] || bad+=("Depends: $deps (no dkms)")
dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ".$src/dkms.conf" >"$tmp/dkms.conf" 2>/dev/null
cmp -s "$tmp/dkms.conf" "$top/dkms.conf" || bad+=("its dkms.conf is not the tree's")
if [ ${#bad[@]} = 0 ]; then
	echo "PASS deb contents: $src with the tree's dkms.conf, $conf (a conffile), $force_file; Depends: $deps"
else
	fail " contents" "$(join "${bad[@]}")"
fi

lintian "$deb" >"$tmp/lintian.log" 2>&1
lrc=$?
errs=$(grep -c '^E: ' "$tmp/lintian.log")
warns=$(sed -n 's/^W: [^:]*: \([^ ]*\).*/\1/p' "$tmp/lintian.log" | sort -u | xargs)
if [ "$lrc" = 0 ] && [ "$errs" = 0 ]; then
	echo "PASS deb lintian: no error (warnings: ${warns:-none})"
else
	fail " lintian" "lintian exited $lrc, $errs errors:"
	grep -v '^[WIPNX]: ' "$tmp/lintian.log" | indent
fi

# --- install ----------------------------------------------------------------
# The maintainer scripts on a host that runs one of its installed kernels:
# if this one does not, uname -r (only) names the newest kernel with headers
# to dpkg and everything it runs (apt-get gives dpkg its DPkg::Path).
run_env=() apt_opts=()
if [ ! -d "/lib/modules/$(uname -r)" ]; then
	running=$(printf '%s\n' "${hdr_rels[@]}" | sort -V | tail -n 1)
	mkdir -p "$tmp/bin"
	printf '#!/bin/sh\n# uname -r as on a host running %s\n[ "$*" = -r ] && { echo %s; exit 0; }\nexec /bin/uname "$@"\n' \
		"$running" "$running" >"$tmp/bin/uname"
	chmod +x "$tmp/bin/uname"
	run_env=(env "PATH=$tmp/bin:$PATH")
	dp=$(apt-config shell p DPkg::Path 2>/dev/null | sed -n "s/^p='\(.*\)'$/\1/p")
	apt_opts=(-o "DPkg::Path=$tmp/bin:${dp:-/usr/sbin:/usr/bin:/sbin:/bin}")
	echo "deb: this host runs $(uname -r), not in /lib/modules: apt-get and the maintainer scripts see uname -r = $running"
fi
installed_by_us=1
t0=$SECONDS
# dpkg -i when there is no apt-get, or when apt-get failed before dpkg
# saw the package (e.g. its lists); not after a failed maintainer script
if command -v apt-get >/dev/null; then
	how="apt-get install -y $deb"
	"${run_env[@]}" apt-get "${apt_opts[@]}" install -y "$deb" >"$tmp/install.log" 2>&1
	irc=$?
	if [ "$irc" != 0 ] && ! pkg_known; then
		echo "deb: apt-get install exited $irc before dpkg saw the package; dpkg -i instead; apt-get said:"
		tail -n 15 "$tmp/install.log" | indent
		how="dpkg -i $deb (apt-get install failed)"
		"${run_env[@]}" dpkg -i "$deb" >"$tmp/install.log" 2>&1
		irc=$?
	fi
else
	how="dpkg -i $deb (no apt-get)"
	"${run_env[@]}" dpkg -i "$deb" >"$tmp/install.log" 2>&1
	irc=$?
fi
inst_ok=0
if [ "$irc" = 0 ] && [ "$(pkg_state)" = ii ]; then
	# (apt-get runs dpkg on a terminal: its lines end in CR LF)
	dk=$(tr -d '\r' <"$tmp/install.log" | sed -n 's/^Building for //p' | head -n 1)
	ours_k=$(tr -d '\r' <"$tmp/install.log" | sed -n "s/^$dpkg_pkg: dkms install $pkg\/$ver for //p" | xargs)
	echo "PASS deb install: $how in $((SECONDS - t0)) s, $dpkg_pkg $(dpkg-query -W -f='${Version}' "$dpkg_pkg") installed (dkms's postinst built for ${dk:-nothing}; the package's for ${ours_k:-no other kernel})"
	inst_ok=1
else
	fail " install" "$how exited $irc, $dpkg_pkg is '$(pkg_state)'; last lines:"
	tail -n 25 "$tmp/install.log" | indent
	mk=/var/lib/dkms/$pkg/$ver/build/make.log
	[ -f "$mk" ] && grep -E 'error|Error' "$mk" | head -n 20 | indent
fi

if [ "$inst_ok" = 1 ]; then
	for r in "${hdr_rels[@]}"; do
		st=$(dkms status -m "$pkg" -v "$ver" -k "$r" 2>/dev/null)
		if [[ "$st" == *": installed"* ]]; then
			echo "PASS deb dkms-status $r: $st"
		else
			fail " dkms-status $r" "dkms status says '${st:-nothing}', not installed (postinst's output: $(grep -i -E "$r|error" "$tmp/install.log" | head -n 5 | tr '\n' ' '))"
		fi
		mapfile -t bad < <(not_ours "$r" "${mods[@]}")
		if [ ${#bad[@]} = 0 ]; then
			echo "PASS deb modinfo $r: modinfo -n names ours under updates/ for ${mods[*]} ($(modinfo -k "$r" -n "${mods[0]}"))"
		else
			fail " modinfo $r" "not ours: ${bad[*]}"
		fi
		d=/usr/src/$pkg/$r
		if [ -s "$d/Module.symvers" ] && [ "$(cat "$d/VERSION" 2>/dev/null)" = "$ver" ]; then
			echo "PASS deb devel $r: the development tree is in $d ($(grep -c . "$d/Module.symvers") exports)"
		else
			fail " devel $r" "$d has no Module.symvers or not VERSION $ver"
		fi
		if [ "$initramfs" = 1 ] && [ -f "/boot/initrd.img-$r" ]; then
			# What the initramfs loads at boot must be ours: none of the
			# kernel's modules of our names is left in it, and the card's
			# driver, mlx4_core, is ours if the kernel's was there before.
			# (initramfs-tools adds mlx4_ib only for a mlx4_core under
			# kernel/; ours comes from the root file system, loaded by
			# rdma-core's udev rule for a device bound to mlx4_core.)
			now=$(initramfs_stack "$r")
			before=$(sed -n 's|.*/kernel/.*/\([^/]*\)\.ko[^/]*$|\1|p' <<<"${initrd_before[$r]}" | xargs)
			bad=()
			for m in $before; do
				grep -q -E "lib/modules/$(rx "$r")/kernel/.*/$m\\.ko" <<<"$now" && bad+=("the kernel's $m")
			done
			if [[ " $before " == *" mlx4_core "* ]] &&
			   ! grep -q -E "lib/modules/$(rx "$r")/updates/(.*/)?mlx4_core\\.ko" <<<"$now"; then
				bad+=("no mlx4_core of ours")
			fi
			grep -q -x "etc/modprobe.d/$pkg.conf" <<<"$now" || bad+=("no etc/modprobe.d/$pkg.conf")
			if [ ${#bad[@]} = 0 ]; then
				echo "PASS deb initramfs $r: /boot/initrd.img-$r carries ours ($(sed -n 's|.*/updates/.*/\([^/]*\)\.ko.*|\1|p' <<<"$now" | xargs)) and $conf, none of the kernel's modules of our names (before the install: ${before:-none})"
			else
				fail " initramfs $r" "/boot/initrd.img-$r: $(join "${bad[@]}")"
			fi
		fi
	done

	bad=()
	cmp -s "$conf" "$top/packaging/modprobe.d/$pkg.conf" || bad+=("$conf is not packaging/modprobe.d/$pkg.conf")
	cmp -s "$force_file" "$top/packaging/dkms/modules_to_force_install-$pkg" ||
		bad+=("$force_file is not packaging/dkms/modules_to_force_install-$pkg")
	if [ ${#bad[@]} = 0 ]; then
		echo "PASS deb files: $conf and $force_file are the tree's"
	else
		fail " files" "$(join "${bad[@]}")"
	fi

	# Kernels installed later: dkms's kernel hook autoinstalls what has
	# AUTOINSTALL=yes.  Each kernel's modules uninstalled, then the hook.
	ai=$(bash -c '. "$1/dkms.conf"; echo "$AUTOINSTALL"' _ "$src")
	for r in "${hdr_rels[@]}"; do
		if [ "$ai" != yes ]; then
			fail " autoinstall $r" "$src/dkms.conf says AUTOINSTALL=$ai"
			continue
		fi
		dkms uninstall "$pkg/$ver" -k "$r" >"$tmp/uninstall-$r.log" 2>&1
		mapfile -t still < <(modinfo -k "$r" -n "${mods[@]}" 2>/dev/null | grep "/lib/modules/$r/updates/")
		/etc/kernel/postinst.d/dkms "$r" >"$tmp/hook-$r.log" 2>&1
		mapfile -t bad < <(not_ours "$r" "${mods[@]}")
		if [ ${#still[@]} -gt 0 ]; then
			fail " autoinstall $r" "dkms uninstall left ${still[*]}: no test of the hook"
		elif [ ${#bad[@]} = 0 ] && [[ "$(dkms status -m "$pkg" -v "$ver" -k "$r" 2>/dev/null)" == *": installed"* ]]; then
			echo "PASS deb autoinstall $r: AUTOINSTALL=yes; after dkms uninstall, dkms's kernel hook (/etc/kernel/postinst.d/dkms $r) installed ours again"
		else
			fail " autoinstall $r" "after /etc/kernel/postinst.d/dkms $r: not ours: ${bad[*]}; its output:"
			tail -n 10 "$tmp/hook-$r.log" | indent
		fi
	done
fi

# An upgrade's path through the maintainer scripts.
if [ "${DEB_REINSTALL:-0}" = 1 ] && [ "$inst_ok" = 1 ]; then
	t0=$SECONDS
	if command -v apt-get >/dev/null; then
		how="apt-get install --reinstall -y $deb"
		"${run_env[@]}" apt-get "${apt_opts[@]}" install --reinstall -y "$deb" >"$tmp/reinstall.log" 2>&1
	else
		how="dpkg -i $deb (no apt-get)"
		"${run_env[@]}" dpkg -i "$deb" >"$tmp/reinstall.log" 2>&1
	fi
	irc=$?
	if [ "$irc" = 0 ] && [ "$(pkg_state)" = ii ]; then
		echo "PASS deb reinstall: $how in $((SECONDS - t0)) s"
	else
		fail " reinstall" "$how exited $irc, $dpkg_pkg is '$(pkg_state)'; last lines:"
		tail -n 25 "$tmp/reinstall.log" | indent
	fi
	for r in "${hdr_rels[@]}"; do
		st=$(dkms status -m "$pkg" -v "$ver" -k "$r" 2>/dev/null)
		mapfile -t bad < <(not_ours "$r" "${mods[@]}")
		if [[ "$st" == *": installed"* ]] && [ ${#bad[@]} = 0 ]; then
			echo "PASS deb reinstall $r: $st; modinfo -n names ours under updates/ for every module"
		else
			fail " reinstall $r" "dkms status says '${st:-nothing}'; not ours: ${bad[*]:-none}"
		fi
	done
fi

# vm_check WHAT RELEASE SERIES STACK MARK... -- GUEST ARGS: a VM with opensm
# on STACK runs installed-guest.sh; PASS if it exits 0 and printed every MARK
vm_check() {
	local what=$1 r=$2 s=$3 stack=$4 log=$tmp/vm-$4-$2.log m missing=()
	shift 4
	local marks=()
	while [ "$1" != -- ]; do marks+=("$1"); shift; done
	shift
	if ! "$top/tests/vm/run" --kernel "$s" --stack "$stack" --sm --timeout 300 \
		-- tests/build/installed-guest.sh "$@" >"$log" 2>&1; then
		fail " $what" "tests/vm/run --stack $stack failed; last lines:"
		grep -E '\] bad: ' "$log" | indent
		tail -n 25 "$log" | indent
		return
	fi
	for m in "${marks[@]}"; do
		grep -q -F "] ok: $m" "$log" || missing+=("$m")
	done
	if [ ${#missing[@]} = 0 ]; then
		echo "PASS $what: $(join "${marks[@]}")"
	else
		fail " $what" "the guest's lines are missing: $(join "${missing[@]}")"
	fi
}

# boot_check RELEASE SERIES: the installed package booted through systemd
# and udev; PASS if the VM run succeeds, plumbing.sh met its plan and
# printed no FAIL line
boot_check() {
	local r=$1 s=$2 log=$tmp/vm-boot-$1.log
	if ! "$top/tests/vm/run" --kernel "$s" --stack installed --sm --boot systemd --timeout 300 \
		-- env STACK=installed tests/boot/guest/plumbing.sh >"$log" 2>&1; then
		fail " vm boot $r" "tests/vm/run --stack installed --boot systemd failed; last lines:"
		tail -n 25 "$log" | indent
	elif grep -q 'FAIL ' "$log" || ! grep -q 'PASS plumbing: all [0-9]* planned checks reported' "$log"; then
		fail " vm boot $r" "tests/boot/guest/plumbing.sh:"
		grep -E 'FAIL |^\[node1\]     ' "$log" | indent
	else
		echo "PASS deb vm boot $r: booted with systemd and udev, $(grep -c 'PASS boot-plumbing:' "$log") checks of tests/boot/guest/plumbing.sh passed ($(sed -n 's/.*PASS boot-plumbing: \(one device, named by NAME_FALLBACK.*\)/\1/p' "$log"))"
	fi
}

if [ "$vm" = 1 ] && [ "$inst_ok" = 1 ]; then
	for i in "${!releases[@]}"; do
		r=${releases[i]}
		vm_check "deb vm $r" "$r" "${series[i]}" installed \
			"${mods[0]}: /lib/modules/$r/updates/" "mlx4_0: ports 1 and 2 ACTIVE" "modprobe rdma_cm refused" -- \
			--refused rdma_cm ours "${mods[@]}"
		boot_check "$r" "${series[i]}"
	done
fi

# --- purge ------------------------------------------------------------------
t0=$SECONDS
how="apt-get purge -y $dpkg_pkg"
command -v apt-get >/dev/null || how="dpkg --purge $dpkg_pkg"
if purge_pkg "$tmp/purge.log" && ! pkg_known; then
	echo "PASS deb purge: $how in $((SECONDS - t0)) s: $dpkg_pkg is gone"
else
	fail " purge" "$how: $dpkg_pkg is '$(pkg_state)'; last lines:"
	tail -n 25 "$tmp/purge.log" | indent
fi

left=()
st=$(dkms status "$pkg" 2>/dev/null)
[ -z "$st" ] || left+=("dkms status: $st")
for d in /lib/modules/*/updates; do
	[ -d "$d" ] || continue
	while IFS= read -r f; do
		left+=("$f")
	done < <(find "$d" -regextype egrep -regex ".*${mods_rx}[^/]*")
done
for f in /usr/src/$pkg /usr/src/$pkg-* /etc/modprobe.d/$pkg* /var/lib/dkms/$pkg; do
	[ -e "$f" ] && left+=("$f")
done
while IFS= read -r f; do
	left+=("$f")
done < <(find /usr/share/dkms -name "*$pkg*" 2>/dev/null)
if [ ${#left[@]} = 0 ]; then
	echo "PASS deb purge files: no $pkg in dkms status, none of our modules in /lib/modules/*/updates, nothing of it in /usr/src, /etc/modprobe.d, /usr/share/dkms, /var/lib/dkms"
else
	fail " purge files" "left: $(join "${left[@]}")"
fi

for r in "${hdr_rels[@]}"; do
	bad=() intree=() none=()
	for m in "${mods[@]}"; do
		f=$(modinfo -k "$r" -n "$m" 2>/dev/null)
		case "$f" in
		"") none+=("$m") ;;
		"/lib/modules/$r/kernel/"*) intree+=("$m") ;;
		*) bad+=("$m -> $f") ;;
		esac
	done
	if [ ${#bad[@]} = 0 ] && [ ${#intree[@]} -gt 0 ]; then
		echo "PASS deb in-tree $r: modinfo -n names the kernel's own under kernel/ for ${intree[*]}${none:+; the kernel has no module ${none[*]}}"
	else
		fail " in-tree $r" "not the kernel's: ${bad[*]:-} (the kernel's: ${intree[*]:-none})"
	fi
	if [ "$initramfs" = 1 ] && [ -f "/boot/initrd.img-$r" ]; then
		now=$(initramfs_stack "$r")
		if [ "$now" = "${initrd_before[$r]}" ]; then
			echo "PASS deb initramfs purged $r: /boot/initrd.img-$r carries what it carried before the install ($(grep -c . <<<"$now") modules of our names, all under kernel/; no $conf)"
		else
			fail " initramfs purged $r" "/boot/initrd.img-$r differs from before the install:"
			diff <(echo "${initrd_before[$r]}") <(echo "$now") | indent
		fi
	fi
done

if [ "$vm" = 1 ]; then
	for i in "${!releases[@]}"; do
		r=${releases[i]}
		vm_check "deb vm inbox $r" "$r" "${series[i]}" inbox \
			"ib_core: /lib/modules/$r/kernel/" "mlx4_0: ports 1 and 2 ACTIVE" "modprobe rdma_cm loads it" -- \
			--loads rdma_cm inbox "${mods[@]}"
	done
fi

[ "$nfail" = 0 ]

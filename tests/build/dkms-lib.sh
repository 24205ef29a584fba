# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by tests/build/dkms.sh and dkms-envs.sh (on the host and in a
# release's root).

# not_ours RELEASE MODULE...: the modules that modinfo does not resolve to
# /lib/modules/RELEASE/updates/ (where DKMS installs ours), as
# "MODULE -> PATH" words; nothing when every one is ours
not_ours() {
	local r=$1 m f
	shift
	for m in "$@"; do
		f=$(modinfo -k "$r" -n "$m" 2>/dev/null)
		[[ "$f" == "/lib/modules/$r/updates/"* ]] || printf '%s\n' "$m -> ${f:-nothing}"
	done
}

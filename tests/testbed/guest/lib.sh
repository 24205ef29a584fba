# SPDX-License-Identifier: GPL-2.0
# Helpers for the scripts that run inside a test VM: each check prints one
# "PASS name" or "FAIL name: why" line; the host side counts them.

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: ${2:-}"; }

# expect NAME CMD...: PASS if CMD succeeds
expect() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "$*"; fi
}

# The GUID in ibv_devinfo's form (0002:c903:00a0:0010) as 0x0002c90300a00010
guid_hex() { echo "0x$(echo "$1" | tr -d ':')"; }

# contains TEXT REGEX...: every extended regex matches some line of TEXT
contains() {
	local text=$1 re
	shift
	for re in "$@"; do
		grep -Eq -- "$re" <<<"$text" || return 1
	done
}

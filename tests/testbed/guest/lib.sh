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

# cable PORT on|off: have the harness plug or pull this card's cable
cable() {
	rm -f /vmout/cable-done
	# written aside, then renamed: the host must never read it half-written
	echo "$1 $2" >/vmout/cable.tmp && mv /vmout/cable.tmp /vmout/cable
	for _ in $(seq 150); do
		[ -e /vmout/cable-done ] && { rm -f /vmout/cable-done; return 0; }
		sleep 0.2
	done
	return 1
}

# wait_for SECONDS CMD...: poll until CMD succeeds
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}

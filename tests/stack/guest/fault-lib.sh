# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# What the fault scripts (fault-*.sh, issue 18) share, sourced after lib.sh:
# pair.sh on one node (port 1 against port 2), and the checks that run a
# program pair, among them the RC pingpong that ends every scenario.
# shellcheck source=../../testbed/guest/pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../testbed/guest/pair.sh"

# pair.sh's settings (a script may set cli before sourcing this)
tcp=18515 cli=${cli:-60} xb=60 nodes=1 out=$(mktemp -d) report="no '100 iters in'"
# shellcheck disable=SC2317 # called through pair
report_ok() { grep -q '^100 iters in' "$1"; }

# pair_check WHAT CMD...: one run of CMD's server and client, a check WHAT
# (named after the sourcing script's $t)
# shellcheck disable=SC2154
pair_check() {
	local what=$1
	shift
	pair "$t" "$@"
	if [ -z "$why" ]; then
		pass "$t: $what"
	else
		fail "$t: $what" "$why"
		# shellcheck disable=SC2086
		tail -n 3 $show 2>/dev/null
	fi
}

# pingpong [WHEN]: an RC pingpong between the ports
pingpong() {
	pair_check "${1:+$1: }ibv_rc_pingpong between the ports" ibv_rc_pingpong -d mlx4_0 -n 100
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Our kernel API against Linux 6.1's (docs/kernel-api.md 2.5, decision 3),
# on the 6.1 build (tests/build/check.sh runs this after building):
#   api-names   every symbol our modules export under an upstream prefix
#               (ib_, __ib_, rdma_, ibdev_, mult_to_ib_rate, zgid) is
#               exported by a module under drivers/infiniband/ in the 6.1
#               kernel's Module.symvers; and every InfiniBand symbol 6.1's
#               ipoib imports (appendix A) is exported by ours;
#   api-values  the constants of tests/build/api-values.list and the sizes
#               and alignments of the wire structs have the same values in
#               6.1's headers and in ours: two throwaway objects (kbuild's
#               %.s target, in build/<release>/api-values/, outside every
#               module directory), one against the kernel's headers only,
#               one against ours, each emitting DEFINE(name, value) lines.
# Until issue 13's steps land, ours still differs: the three lists below
# name each difference with the step that removes it.  A difference not
# listed FAILS (a new non-upstream export, a new missing one, a wrong
# value), and so does a listed one that is gone (remove it from the list:
# the lists only shrink).  All three lists must be EMPTY when issue 13
# closes (step S6).
# Prints PASS/FAIL lines.
#   tests/build/api.sh [RELEASE]     (default: the installed 6.1 kernel)
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
rel=${1:-$("$top/tests/setup/envs.sh" release 6.1 2>/dev/null)}
kdir=/lib/modules/$rel/build
b=$top/build/$rel

# --- the differences still expected, each with the step that removes it --------
# Exported by ours, not by 6.1 (renamed, made inline or dropped there).
EXPORT_EXCEPTIONS="
"
# Imported by 6.1's ipoib (appendix A), not exported by ours yet.
IPOIB_EXCEPTIONS="
"
# Values that differ today: "name ours 6.1 step".
VALUE_EXCEPTIONS="
"
# Appendix A: the InfiniBand symbols 6.1's ipoib (CM off) imports.
IPOIB_IMPORTS=$(grep -v '^#' "$top/tests/upstream-ipoib/ipoib-imports.txt")
# The wire structs whose sizes and alignments must agree.
WIRE_STRUCTS="ib_mad_hdr ib_mad ib_smp ib_sa_mad ib_grh ib_rmpp_hdr ib_rmpp_mad ib_vendor_mad
ib_pma_portcounters ib_pma_portcounters_ext ib_sa_mcmember_rec opa_mad opa_rmpp_mad
ib_class_port_info opa_class_port_info ib_mad_notice_attr ib_port_info ib_node_info
ib_vl_weight_elem ib_pma_mad ib_pma_portsamplescontrol ib_pma_portsamplesresult
ib_pma_portsamplesresult_ext ib_sa_hdr sa_path_rec sa_path_rec_ib sa_path_rec_roce
sa_path_rec_opa ib_sa_multicast ib_cm_id ib_cm_event ib_cm_req_event_param
ib_cm_rep_event_param ib_cm_rej_event_param ib_cm_sidr_req_event_param
ib_cm_sidr_rep_event_param ib_cm_req_param ib_cm_rep_param ib_cm_sidr_req_param
ib_cm_sidr_rep_param rdma_ucm_ece"

listed() { awk 'NF { print $1 }' <<<"$1" | LC_ALL=C sort -u; }
words() { tr -s ' \n\t' '\n' <<<"$1" | grep . | LC_ALL=C sort -u; }
# show NAME...: one line, at most 20 names
show() {
	local n=$#
	[ "$n" -gt 20 ] && set -- "${@:1:20}" "... ($n)"
	echo "$*"
}

if [ -z "$rel" ] || [ ! -f "$kdir/Module.symvers" ]; then
	echo "FAIL api-names: no 6.1 kernel build tree ($kdir)"
	echo "FAIL api-values: no 6.1 kernel build tree ($kdir)"
	exit 0
fi
tmp=$(mktemp -d /tmp/ibstack-api.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# --- api-names ------------------------------------------------------------------
if [ ! -s "$b/Module.symvers" ]; then
	echo "FAIL api-names: no $b/Module.symvers (make modules KVER=$rel)"
else
	awk -F '\t' '$3 !~ /(^|\/)tests\// { print $2 }' "$b/Module.symvers" |
		LC_ALL=C sort -u >"$tmp/ours"
	awk -F '\t' '$3 ~ /^drivers\/infiniband\// { print $2 }' "$kdir/Module.symvers" |
		LC_ALL=C sort -u >"$tmp/k61"
	grep -E '^(__ib_|ib_|rdma_|ibdev_|mult_to_ib_rate|zgid)' "$tmp/ours" >"$tmp/ours-up"
	LC_ALL=C comm -23 "$tmp/ours-up" "$tmp/k61" >"$tmp/extra"
	listed "$EXPORT_EXCEPTIONS" >"$tmp/extra-ok"
	mapfile -t new < <(LC_ALL=C comm -23 "$tmp/extra" "$tmp/extra-ok")
	mapfile -t gone < <(LC_ALL=C comm -13 "$tmp/extra" "$tmp/extra-ok")
	if [ ${#new[@]} -gt 0 ]; then
		echo "FAIL api-names: ours exports ${#new[@]} name(s) of upstream's namespaces that 6.1 does not export" \
			"(rename to ibstack_* in <ibstack/ext.h>, decision 3): $(show "${new[@]}")"
	fi
	if [ ${#gone[@]} -gt 0 ]; then
		echo "FAIL api-names: listed as exceptions but no longer a difference" \
			"(remove from EXPORT_EXCEPTIONS in tests/build/api.sh): $(show "${gone[@]}")"
	fi
	if [ ${#new[@]} = 0 ] && [ ${#gone[@]} = 0 ]; then
		echo "PASS api-names: $(grep -c . "$tmp/ours-up") exports of ours in upstream's namespaces," \
			"each exported by 6.1's drivers/infiniband but the $(grep -c . "$tmp/extra") listed (steps" \
			"$(awk 'NF { print $2 }' <<<"$EXPORT_EXCEPTIONS" | LC_ALL=C sort | uniq -c | awk '{ printf "%s%s:%s", sep, $2, $1; sep = " " }'))"
	fi
	words "$IPOIB_IMPORTS" >"$tmp/ipoib"
	[ "$(grep -c . "$tmp/ipoib")" = 42 ] ||
		echo "FAIL api-names ipoib: IPOIB_IMPORTS lists $(grep -c . "$tmp/ipoib") symbols, appendix A 42"
	LC_ALL=C comm -23 "$tmp/ipoib" "$tmp/ours" >"$tmp/missing"
	listed "$IPOIB_EXCEPTIONS" >"$tmp/missing-ok"
	mapfile -t new < <(LC_ALL=C comm -23 "$tmp/missing" "$tmp/missing-ok")
	mapfile -t gone < <(LC_ALL=C comm -13 "$tmp/missing" "$tmp/missing-ok")
	bad=()
	[ ${#new[@]} -gt 0 ] && bad+=("6.1's ipoib imports ${#new[@]} symbol(s) ours does not export: $(show "${new[@]}")")
	[ ${#gone[@]} -gt 0 ] && bad+=("exported now, remove from IPOIB_EXCEPTIONS in tests/build/api.sh: $(show "${gone[@]}")")
	if [ ${#bad[@]} -gt 0 ]; then
		echo "FAIL api-names ipoib: ${bad[*]}"
	else
		echo "PASS api-names ipoib: ours exports $(($(grep -c . "$tmp/ipoib") - $(grep -c . "$tmp/missing")))" \
			"of the $(grep -c . "$tmp/ipoib") InfiniBand symbols 6.1's ipoib imports; the" \
			"$(grep -c . "$tmp/missing") others are listed with their steps"
	fi
fi

# --- api-values -------------------------------------------------------------------
# values OBJDIR: "name value" lines of OBJDIR/api_values.s
values() {
	sed -n 's/^[[:space:]]*\.ascii "->\([A-Za-z0-9_]*\) \$\{0,1\}\(-\{0,1\}[0-9]*\) .*/\1 \2/p' \
		"$1/api_values.s" | LC_ALL=C sort
}
vdir=$b/api-values
rm -rf "$vdir"
mkdir -p "$vdir/kernel" "$vdir/ours"
{
	echo '/* generated by tests/build/api.sh */'
	echo '#include <linux/kbuild.h>'
	for h in ib_verbs ib_mad ib_smi ib_pma ib_sa ib_cm; do echo "#include <rdma/$h.h>"; done
	echo 'void ibstack_api_values(void);'
	echo 'void ibstack_api_values(void)'
	echo '{'
	grep -v -E '^[[:space:]]*(#|$)' "$top/tests/build/api-values.list" |
		while read -r n; do echo "	DEFINE($n, $n);"; done
	for s in $WIRE_STRUCTS; do
		echo "	DEFINE(sizeof_$s, sizeof(struct $s));"
		echo "	DEFINE(alignof_$s, __alignof__(struct $s));"
	done
	echo '}'
} >"$vdir/api_values.c"
echo 'obj-m += api_values.o' >"$vdir/kernel/Kbuild"
{
	echo "NOSTDINC_FLAGS += -I$top/include -I$top/include/uapi"
	echo 'obj-m += api_values.o'
} >"$vdir/ours/Kbuild"
ok=1
for side in kernel ours; do
	cp "$vdir/api_values.c" "$vdir/$side/"
	if ! make -C "$kdir" M="$vdir/$side" api_values.s >"$vdir/$side.log" 2>&1; then
		echo "FAIL api-values: the constants do not compile against the $side headers (log: $vdir/$side.log):"
		grep -E 'error' "$vdir/$side.log" | head -n 10 | sed 's/^/    /'
		ok=0
	fi
done
if [ "$ok" = 1 ]; then
	values "$vdir/ours" >"$tmp/v-ours"
	values "$vdir/kernel" >"$tmp/v-k61"
	n=$(grep -c . "$tmp/v-k61")
	want=$(($(grep -c -v -E '^[[:space:]]*(#|$)' "$top/tests/build/api-values.list") + 2 * $(words "$WIRE_STRUCTS" | grep -c .)))
	LC_ALL=C join "$tmp/v-ours" "$tmp/v-k61" | awk '$2 != $3 { print $1, $2, $3 }' >"$tmp/v-diff"
	awk 'NF { print $1, $2, $3 }' <<<"$VALUE_EXCEPTIONS" | LC_ALL=C sort >"$tmp/v-ok"
	mapfile -t new < <(LC_ALL=C sort "$tmp/v-diff" | LC_ALL=C comm -23 - "$tmp/v-ok")
	mapfile -t gone < <(LC_ALL=C sort "$tmp/v-diff" | LC_ALL=C comm -13 - "$tmp/v-ok")
	bad=()
	[ "$n" = "$want" ] && [ "$(grep -c . "$tmp/v-ours")" = "$want" ] ||
		bad+=("$want values wanted, $n from 6.1's headers, $(grep -c . "$tmp/v-ours") from ours")
	for l in "${new[@]}"; do
		read -r name o k <<<"$l"
		bad+=("$name is $o in ours, $k in 6.1's;")
	done
	[ ${#gone[@]} -gt 0 ] && bad+=("listed but no longer different (remove from VALUE_EXCEPTIONS" \
		"in tests/build/api.sh, or it changed again): ${gone[*]//$'\n'/, }")
	if [ ${#bad[@]} -gt 0 ]; then
		echo "FAIL api-values: ${bad[*]}"
	else
		echo "PASS api-values: $n constants and struct sizes agree with 6.1's headers but the" \
			"$(grep -c . "$tmp/v-diff") listed"
	fi
fi

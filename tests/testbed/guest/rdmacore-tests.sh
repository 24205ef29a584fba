#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma-core's own Python test suite (pyverbs, Debian's python3-pyverbs) on
# the emulated card, one node: every test runs on port 1 of mlx4_0, GID
# index 0 (port 1 is cabled to port 2; run it under opensm, the tests need
# an ACTIVE port: tests/vm/run --sm -- tests/testbed/guest/rdmacore-tests.sh).
# ib0 gets an IPv4 address for the run, so that the rdma_cm tests have an
# address of the device to connect to; it is left as it was found.
#
# Every test's outcome is recorded (ok, skipped with its reason, FAIL,
# ERROR) by a small runner around unittest, and judged here:
# - each test of MUST_PASS is one check: it must have passed;
# - each class of SKIPS is one check: at least one test was skipped for
#   that reason, as printed (a class that no longer shows up means the
#   card or the suite changed: the list is then brought up to date);
# - one check that no other test failed, errored or was skipped for a
#   reason not listed, plus a FAIL line for each one that did.
# A test that passes without being in MUST_PASS is noted, not counted.
#
# The suite takes about 40 s of VM time (273 tests, none over 4 s; a whole
# tests/vm/run boot about 1 min); the five slowest tests are printed.
set -u
. "$(dirname "$0")/lib.sh"
t=${TESTNAME:-rdmacore}
dev=${RDMACORE_DEV:-mlx4_0}
port=${RDMACORE_PORT:-1}
gid=${RDMACORE_GID:-0}
limit=${RDMACORE_LIMIT:-600}	# seconds the whole suite may take
src=${RDMACORE_TESTS:-/usr/share/doc/rdma-core/tests}

# The tests that pass on a ConnectX-3, and so must on the model.
MUST_PASS=(
	tests.test_addr.AHTest.test_create_ah
	tests.test_addr.AHTest.test_destroy_ah
	tests.test_atomic.AtomicTest.test_atomic_cmp_and_swap
	tests.test_atomic.AtomicTest.test_atomic_fetch_and_add
	tests.test_atomic.AtomicTest.test_atomic_invalid_lkey
	tests.test_atomic.AtomicTest.test_atomic_invalid_mr_access
	tests.test_atomic.AtomicTest.test_atomic_invalid_qp_access
	tests.test_atomic.AtomicTest.test_atomic_invalid_rkey
	tests.test_atomic.AtomicTest.test_atomic_non_aligned_addr
	tests.test_atomic.AtomicTest.test_xrc_atomic_cmp_and_swap
	tests.test_atomic.AtomicTest.test_xrc_atomic_fetch_and_add
	tests.test_cq.CQAPITest.test_create_cq
	tests.test_cq.CQAPITest.test_create_cq_bad_flow
	tests.test_cq.CQAPITest.test_create_cq_with_comp_channel
	tests.test_cq.CQTest.test_resize_cq
	tests.test_cq_events.CqEventsTestCase.test_cq_events_rc
	tests.test_cq_events.CqEventsTestCase.test_cq_events_ud
	tests.test_cqex.CQEXAPITest.test_create_cq_ex
	tests.test_cqex.CQEXAPITest.test_create_cq_ex_bad_flow
	tests.test_cqex.CqExTestCase.test_rc_traffic_cq_ex
	tests.test_cqex.CqExTestCase.test_ud_traffic_cq_ex
	tests.test_cqex.CqExTestCase.test_xrc_traffic_cq_ex
	tests.test_device.DeviceTest.test_dev_list
	tests.test_device.DeviceTest.test_open_dev
	tests.test_device.DeviceTest.test_phys_port_cnt_ex
	tests.test_device.DeviceTest.test_query_device
	tests.test_device.DeviceTest.test_query_device_ex
	tests.test_device.DeviceTest.test_query_gid
	tests.test_device.DeviceTest.test_query_gid_ex
	tests.test_device.DeviceTest.test_query_gid_table
	tests.test_device.DeviceTest.test_query_gid_table_bad_flow
	tests.test_device.DeviceTest.test_query_pkey
	tests.test_device.DeviceTest.test_query_port
	tests.test_device.DeviceTest.test_query_port_bad_flow
	tests.test_fork.ForkAPITest.test_is_fork_initialized
	tests.test_mr.MRTest.test_mr_rereg_access
	tests.test_mr.MRTest.test_mr_rereg_access_bad_flow
	tests.test_mr.MRTest.test_mr_rereg_addr
	tests.test_mr.MRTest.test_mr_rereg_pd
	tests.test_mr.MRTest.test_reg_mr_bad_flags
	tests.test_mr.MWTest.test_invalidate_mw_type1
	tests.test_mr.MWTest.test_mw_type1
	tests.test_mr.MWTest.test_mw_type2
	tests.test_mr.MWTest.test_mw_type2_invalidate_dealloc
	tests.test_mr.MWTest.test_mw_type2_invalidate_local
	tests.test_mr.MWTest.test_mw_type2_invalidate_remote
	tests.test_mr.MWTest.test_reg_mw_wrong_type
	tests.test_pd.PDTest.test_alloc_pd
	tests.test_pd.PDTest.test_dealloc_pd
	tests.test_pd.PDTest.test_destroy_pd_twice
	tests.test_pd.PDTest.test_multiple_pd_creation
	tests.test_qp.QPTest.test_create_raw_qp_ex_with_illegal_caps_max_recv_sge
	tests.test_qp.QPTest.test_create_raw_qp_ex_with_illegal_caps_max_recv_wr
	tests.test_qp.QPTest.test_create_raw_qp_ex_with_illegal_caps_max_send_sge
	tests.test_qp.QPTest.test_create_raw_qp_ex_with_illegal_caps_max_send_wr
	tests.test_qp.QPTest.test_create_rc_qp_ex_no_attr
	tests.test_qp.QPTest.test_create_rc_qp_ex_with_attr
	tests.test_qp.QPTest.test_create_rc_qp_no_attr
	tests.test_qp.QPTest.test_create_rc_qp_with_attr
	tests.test_qp.QPTest.test_create_uc_qp_ex_no_attr
	tests.test_qp.QPTest.test_create_uc_qp_ex_with_attr
	tests.test_qp.QPTest.test_create_uc_qp_no_attr
	tests.test_qp.QPTest.test_create_uc_qp_with_attr
	tests.test_qp.QPTest.test_create_ud_qp_ex_no_attr
	tests.test_qp.QPTest.test_create_ud_qp_ex_with_attr
	tests.test_qp.QPTest.test_create_ud_qp_no_attr
	tests.test_qp.QPTest.test_create_ud_qp_with_attr
	tests.test_qp.QPTest.test_modify_ud_qp
	tests.test_qp.QPTest.test_query_data_in_order
	tests.test_qp.QPTest.test_query_rc_qp
	tests.test_qp.QPTest.test_query_uc_qp
	tests.test_qp.QPTest.test_query_ud_qp
	tests.test_rdmacm.CMTestCase.test_rdmacm_async_ex_leave_multicast_traffic
	tests.test_rdmacm.CMTestCase.test_rdmacm_async_ex_multicast_traffic
	tests.test_rdmacm.CMTestCase.test_rdmacm_async_multicast_traffic
	tests.test_rdmacm.CMTestCase.test_rdmacm_async_read
	tests.test_rdmacm.CMTestCase.test_rdmacm_async_reject_traffic
	tests.test_rdmacm.CMTestCase.test_rdmacm_async_traffic
	tests.test_rdmacm.CMTestCase.test_rdmacm_async_traffic_external_qp
	tests.test_rdmacm.CMTestCase.test_rdmacm_async_udp_traffic
	tests.test_rdmacm.CMTestCase.test_rdmacm_async_write
	tests.test_rdmacm.CMTestCase.test_rdmacm_sync_traffic
	tests.test_relaxed_ordering.RoTestCase.test_ro_rc_traffic
	tests.test_relaxed_ordering.RoTestCase.test_ro_ud_traffic
	tests.test_relaxed_ordering.RoTestCase.test_ro_xrc_traffic
)

# Classes of tests that are skipped on this card, one check each:
# "reason as the suite prints it|why".  The reasons are matched exactly.
SKIPS=(
	"Extended QP is not supported on this device|libmlx4 has no ibv_qp_ex (new post-send API)"
	"Device memory is not supported|no device memory on mlx4"
	"ODP is not supported - No ODP caps|no on-demand paging on mlx4"
	"Parent Domain is not supported on this device|libmlx4 has no parent domains"
	"Create Extended CQ is not supported|completion timestamps on an extended CQ: not with mlx4's flags"
	"Extended CQ is not supported|tag matching's extended CQ: not on mlx4"
	"Query device real time is not supported|no real-time clock query on mlx4"
	"Link layer of port=1 is InfiniBand , skip RoCE test|RoCE only"
	"Must be run by root on Ethernet link layer|Ethernet only (flow steering, RSS)"
	"To Create RAW QP must be done by root on Ethernet link layer|raw packet QPs: Ethernet only"
	"All gid indices populated, cannot check bad flow|every GID index of the table is in use"
	"There are no huge pages of size 2M allocated|the VM has no huge pages"
	"Allocating dmabuf is not supported by /dev/dri/renderD128|no dma-buf exporter in the VM"
	"cuda-python 12.0+ must be installed to run CUDA tests|no CUDA"
	"PCI device must be passed by the user|mlx5 VFIO only"
	"Can not run the test over non EFA device|EFA only"
	"Can not run the test over non MLX5 device|mlx5 only"
	"Could not open mlx5 context (This is not an MLX5 device)|mlx5 only"
)

# STACK=ours: the rdma_cm tests (test_rdmacm, test_mlx5_rdmacm) are not
# run. rdma_cm and rdma_ucm are the in-tree ib_core's modules, and ours
# has no rdma_cm (see shared/docs/netlink-rdmacm.md), so they could only
# error. They are left out by name, whatever the state of ib0 (an earlier
# item may leave it up and addressed), and counted as one class of skips;
# every other test is judged as under the in-tree stack.
EXCLUDE=()
excl_why="no rdma_cm module of ours"
if [ "${STACK:-inbox}" = ours ]; then
	EXCLUDE=(tests.test_rdmacm. tests.test_mlx5_rdmacm.)
	kept=()
	for m in "${MUST_PASS[@]}"; do
		for x in "${EXCLUDE[@]}"; do
			[[ "$m" == "$x"* ]] && continue 2
		done
		kept+=("$m")
	done
	MUST_PASS=("${kept[@]}")
	SKIPS+=("excluded: $excl_why|rdma_cm is the in-tree ib_core's")
fi

plan $((1 + 1 + ${#MUST_PASS[@]} + ${#SKIPS[@]} + 1))
out=$(mktemp -d)
res=$out/results	# outcome<TAB>test id<TAB>seconds<TAB>reason
tbs=$out/tracebacks
log=$out/suite.log

# 1. the suite, as packaged (Debian compresses most of its files)
tdir=$out/tests
unpack() {
	local f
	cp -r "$src" "$tdir" || return 1
	for f in "$tdir"/*.py.gz; do
		[ ! -e "$f" ] || gunzip -f "$f" || return 1
	done
}
if unpack 2>"$out/cp.err" && [ -f "$tdir/__init__.py" ] && [ -f "$tdir/args_parser.py" ] &&
	python3 -c 'import pyverbs.device' 2>>"$out/cp.err"; then
	files=("$tdir"/test_*.py)
	pass "$t: rdma-core's tests and pyverbs are installed (${#files[@]} test files)"
else
	fail "$t: rdma-core's tests and pyverbs are installed" \
		"$src, python3-pyverbs: $(tr '\n' ' ' <"$out/cp.err")"
fi

# 2. run them, with ib0 up and addressed for the rdma_cm tests
if [ "${STACK:-inbox}" = ours ]; then
	echo "note: the rdma_cm tests are left out (${EXCLUDE[*]})"
else
	ib0_take
	wait_for 60 ib0_carrier 1 && ib0_has_addr ||
		echo "note: ib0 has no carrier or no address, the rdma_cm tests will skip"
fi
start=$SECONDS
timeout -k 10 "$limit" python3 - "$tdir" "$dev" "$port" "$gid" "$res" "$tbs" "$excl_why" "${EXCLUDE[@]}" \
	>"$log" 2>&1 <<'PY'
import os
import sys
import time
import traceback
import unittest
from importlib.machinery import SourceFileLoader

tdir, dev, port, gid, res_path, tb_path = sys.argv[1:7]
excl_why = sys.argv[7]           # why they are left out
excluded = tuple(sys.argv[8:])   # test id prefixes not to run
sys.path.insert(0, tdir)
from args_parser import parser  # noqa: E402  (the suite's own options)

sys.argv = [sys.argv[0], '--dev', dev, '--port', port, '--gid', gid]
parser.parse_args()
pkg = SourceFileLoader('tests', os.path.join(tdir, '__init__.py')).load_module()
suite = unittest.TestLoader().loadTestsFromModule(pkg)
res = open(res_path, 'w', buffering=1)
tbf = open(tb_path, 'w', buffering=1)
res.write('loaded\t%d\n' % suite.countTestCases())


def leave_out(tests):
    """The suite without the excluded tests, in its order; they are
    recorded as skipped."""
    kept = unittest.TestSuite()
    for test in tests:
        if isinstance(test, unittest.TestSuite):
            kept.addTest(leave_out(test))
        elif excluded and test.id().startswith(excluded):
            res.write('skip\t%s\t0\texcluded: %s\n' % (test.id(), excl_why))
        else:
            kept.addTest(test)
    return kept


suite = leave_out(suite)


def one_line(text):
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else ''


class Recorder(unittest.TestResult):
    """One line per test in res_path; tracebacks in tb_path."""

    current = None

    def startTest(self, test):
        super().startTest(test)
        self.current, self.t0 = test, time.monotonic()
        self.outcome, self.reason = None, ''
        print('START %s' % test.id(), flush=True)

    def stopTest(self, test):
        super().stopTest(test)
        res.write('%s\t%s\t%.1f\t%s\n' % (self.outcome or 'none', test.id(),
                  time.monotonic() - self.t0, self.reason))
        self.current = None

    def record(self, test, outcome, reason, tb=''):
        reason = reason.replace('\t', ' ').replace('\n', ' ')
        if tb:
            tbf.write('=== %s %s\n%s\n' % (outcome, test.id(), tb))
        if test is not self.current:
            # a class or module fixture skipped or failed: no test runs
            res.write('%s\t%s\t0\t%s\n' % (outcome, test.id(), reason))
        elif self.outcome not in ('fail', 'error'):
            # the first failure of a test (or of a subtest) is its outcome
            self.outcome, self.reason = outcome, reason

    def failed(self, test, err, outcome):
        tb = ''.join(traceback.format_exception(*err))
        self.record(test, outcome, one_line(tb), tb)

    def addSuccess(self, test):
        super().addSuccess(test)
        self.record(test, 'ok', '')

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.record(test, 'skip', reason)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.failed(test, err, 'fail')

    def addError(self, test, err):
        super().addError(test, err)
        self.failed(test, err, 'error')

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.failed(test, err, 'fail' if issubclass(err[0], test.failureException)
                        else 'error')

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.record(test, 'xfail', one_line(''.join(traceback.format_exception(*err))))

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.record(test, 'uxpass', 'unexpected success')


suite.run(Recorder())
res.write('end\n')
PY
rc=$?
secs=$((SECONDS - start))
[ "${STACK:-inbox}" = ours ] || ib0_give_back

# 3. the verdicts
declare -A outcome reason
loaded=
ended=0
ntests=0
if [ -f "$res" ]; then
	while IFS=$'\t' read -r o id s r; do
		case $o in
		loaded) loaded=$id ;;
		end) ended=1 ;;
		*)
			outcome[$id]=$o
			reason[$id]=$r
			ntests=$((ntests + 1)) ;;
		esac
	done <"$res"
fi
if [ "$rc" = 0 ] && [ "$ended" = 1 ] && [ -n "$loaded" ] && [ "$ntests" -ge "$loaded" ] &&
	[ "$ntests" -gt 0 ]; then
	pass "$t: the suite ran its $loaded tests to the end in $secs s"
else
	fail "$t: the suite ran to the end" \
		"runner status $rc, $ntests of ${loaded:-?} tests reported, end line: $ended, $secs s"
	tail -n 20 "$log"
fi

declare -A expected
for id in "${MUST_PASS[@]}"; do
	expected[$id]=1
	o=${outcome[$id]:-}
	if [ "$o" = ok ]; then
		pass "$t: $id"
	else
		fail "$t: $id" "${o:-not run}${reason[$id]:+: ${reason[$id]}}"
	fi
done

declare -A skip_n
for s in "${SKIPS[@]}"; do
	skip_n[${s%%|*}]=0
done
unexpected=()
for id in "${!outcome[@]}"; do
	[ -n "${expected[$id]:-}" ] && continue
	o=${outcome[$id]}
	r=${reason[$id]}
	if [ "$o" = skip ] && [ -n "$r" ] && [ -n "${skip_n[$r]+x}" ]; then
		skip_n[$r]=$((skip_n[$r] + 1))
	elif [ "$o" = ok ]; then
		echo "note: $id passed, it is not in the must-pass list"
	else
		unexpected+=("$id")
	fi
done
for s in "${SKIPS[@]}"; do
	r=${s%%|*}
	why=${s#*|}
	if [ "${skip_n[$r]}" -gt 0 ]; then
		pass "$t: ${skip_n[$r]} skipped as expected, '$r' ($why)"
	else
		fail "$t: skipped as expected, '$r' ($why)" "no test was skipped for this reason"
	fi
done

if [ ${#unexpected[@]} = 0 ]; then
	pass "$t: no other test failed, errored or was skipped for another reason"
else
	fail "$t: no other test failed, errored or was skipped for another reason" \
		"${#unexpected[@]} did"
	plan_more ${#unexpected[@]}
	while read -r id; do
		fail "$t: unexpected ${outcome[$id]}: $id" "${reason[$id]}"
	done < <(printf '%s\n' "${unexpected[@]}" | sort)
fi

# the tracebacks of what failed, and where the time went
[ -s "$tbs" ] && { echo "--- tracebacks"; cat "$tbs"; }
if [ -f "$res" ]; then
	echo "--- slowest tests (seconds)"
	awk -F'\t' 'NF >= 3 && $1 != "loaded" { print $3, $1, $2 }' "$res" |
		sort -rn | head -n 5
fi
rm -rf "$out"
exit 0

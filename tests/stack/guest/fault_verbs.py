# SPDX-License-Identifier: GPL-2.0
"""One verb a user program calls, for the fault-injection scripts: what it
returned, as a user sees it (libibverbs through pyverbs, Debian's
python3-pyverbs).

    fault_verbs.py cq [N]  open mlx4_0, allocate a PD, create N CQs
                           (SW2HW_CQ; default 1), destroy them (HW2SW_CQ)
    fault_verbs.py qp      ... a CQ and an RC QP, taken from RESET to INIT
                           (RST2INIT_QP)

Prints one line, "OP: ok" or "OP: errno N (NAME)", with the time taken
("in MS ms"); exits 0 on success, 1 on an errno from the verbs, 2 on
anything else.
"""
import errno
import sys
import time

from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
import pyverbs.enums as e


def run(op, count):
    with Context(name="mlx4_0") as ctx:
        with PD(ctx) as pd:
            if op == "cq":
                cqs = []
                try:
                    for _ in range(count):
                        cqs.append(CQ(ctx, 16))
                finally:
                    for cq in cqs:
                        cq.close()
                return
            cq = CQ(ctx, 16)
            cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1,
                        max_recv_sge=1)
            init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap)
            qp = QP(pd, init)
            attr = QPAttr(qp_state=e.IBV_QPS_INIT)
            attr.pkey_index = 0
            attr.port_num = 1
            attr.qp_access_flags = 0
            try:
                qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX |
                          e.IBV_QP_PORT | e.IBV_QP_ACCESS_FLAGS)
            finally:
                qp.close()
                cq.close()


def main():
    args = sys.argv[1:]
    if not (args == ["qp"] or args == ["cq"] or
            (len(args) == 2 and args[0] == "cq" and args[1].isdigit() and
             0 < int(args[1]) <= 4096)):
        print(__doc__, file=sys.stderr)
        return 2
    op = args[0]
    t0 = time.monotonic()
    rc = 0
    try:
        run(op, int(args[1]) if len(args) == 2 else 1)
        what = "ok"
    except PyverbsRDMAError as err:
        code = err.error_code
        what = "errno %d (%s)" % (code, errno.errorcode.get(code, "?"))
        rc = 1
    except Exception as err:  # pylint: disable=broad-except
        what = "error %s" % err
        rc = 2
    print("%s: %s in %d ms" % (op, what, (time.monotonic() - t0) * 1000))
    return rc


if __name__ == "__main__":
    sys.exit(main())

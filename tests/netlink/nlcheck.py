#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""RDMA netlink (NETLINK_RDMA) by hand: the answers libibverbs, rdma-core's
rdma_rename and iproute2 rely on, and the errors upstream gives bad
requests, as PASS/FAIL lines (tests/netlink/guest/nlcheck.sh runs it as
root and again as nobody).  The expectations are Linux 6.1's, for an mlx4
device: the same script passes under the in-tree stack.

    [STACK=inbox|ours] nlcheck.py DEVICE [--unprivileged]

STACK=inbox: where 6.1 differs from ours on purpose, 6.1's answer is expected.
"""
import errno
import os
import socket
import struct
import sys

NETLINK_RDMA = 20
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK, NLM_F_DUMP = 1, 2, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLDEV = 5
GET, SET, NEWLINK, DELLINK, PORT_GET, SYS_GET, SYS_SET = 1, 2, 3, 4, 5, 6, 7
RES_GET, RES_QP_GET, GET_CHARDEV, STAT_GET, STAT_GET_STATUS = 9, 10, 15, 17, 24
A_DEV_INDEX, A_DEV_NAME, A_PORT_INDEX, A_NODE_GUID, A_DEV_NODE_TYPE = 1, 2, 3, 6, 14
A_PORT_STATE, A_RES_SUMMARY = 12, 15
A_CHARDEV_TYPE, A_CHARDEV_NAME, A_CHARDEV_ABI, A_CHARDEV, A_UVERBS_DRIVER_ID = 69, 70, 71, 72, 73
A_NETNS_MODE, A_COPY_ON_FORK, A_DEV_PROTOCOL = 66, 93, 67
A_STAT_MODE, A_STAT_RES, A_RES_QP = 74, 75, 19

results = []


def res(ok, what, why=""):
    results.append(ok)
    print("PASS nlcheck: %s" % what if ok else "FAIL nlcheck: %s: %s" % (what, why))


def attr(t, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, t) + payload + b"\0" * ((4 - n % 4) % 4)


def u32(t, v):
    return attr(t, struct.pack("=I", v))


def u8(t, v):
    return attr(t, struct.pack("=B", v))


def string(t, s):
    return attr(t, s.encode() + b"\0")


class Nl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_RDMA)
        self.s.bind((0, 0))
        self.s.settimeout(10)
        self.seq = 100

    def raw(self, data):
        self.s.send(data)

    def send(self, typ, flags, payload=b""):
        self.seq += 1
        hdr = struct.pack("=IHHII", 16 + len(payload), typ, flags, self.seq, 0)
        self.s.send(hdr + payload)
        return self.seq

    def recv_all(self):
        """messages until an answer ends: (type, flags, payload) list;
        an NLMSG_ERROR's payload is its errno (0: an ACK)"""
        msgs = []
        while True:
            data = self.s.recv(65536)
            off = 0
            while off + 16 <= len(data):
                ln, typ, flags, seq, pid = struct.unpack_from("=IHHII", data, off)
                if ln < 16 or off + ln > len(data):
                    raise ValueError("a malformed message header (len %d)" % ln)
                body = data[off + 16:off + ln]
                off += (ln + 3) & ~3
                if typ == NLMSG_ERROR:
                    msgs.append((typ, flags, -struct.unpack_from("=i", body)[0]))
                    return msgs
                msgs.append((typ, flags, body))
                if typ == NLMSG_DONE or not flags & NLM_F_MULTI:
                    return msgs

    def ask(self, op, flags=NLM_F_REQUEST, payload=b""):
        self.send((NLDEV << 10) | op, flags, payload)
        return self.recv_all()


def attrs(body):
    """{type: payload} of a message body's top-level attributes"""
    d, off = {}, 0
    while off + 4 <= len(body):
        n, t = struct.unpack_from("=HH", body, off)
        if n < 4:
            break
        d[t & 0x3fff] = body[off + 4:off + n]
        off += (n + 3) & ~3
    return d


def err_of(msgs):
    """the errno an answer ended with (0: ACK or data)"""
    for typ, flags, body in msgs:
        if typ == NLMSG_ERROR:
            return body
    return 0


def expect_err(nl, what, op, payload=b"", flags=NLM_F_REQUEST, want=errno.EINVAL):
    try:
        got = err_of(nl.ask(op, flags, payload))
    except (OSError, ValueError) as e:
        res(False, what, "no answer: %s" % e)
        return
    res(got == want, "%s: %s" % (what, errno.errorcode.get(want, want)),
        "got %s" % (errno.errorcode.get(got, got) if got else "success"))


def main():
    dev_name = sys.argv[1]
    unpriv = "--unprivileged" in sys.argv
    stack = os.environ.get("STACK", "ours")
    nl = Nl()

    # the device dump, as libibverbs and rdma_rename read it
    msgs = nl.ask(GET, NLM_F_REQUEST | NLM_F_DUMP)
    devs = [attrs(b) for t, f, b in msgs if t == (NLDEV << 10 | GET)]
    res(msgs[-1][0] == NLMSG_DONE and all(f & NLM_F_MULTI for t, f, b in msgs[:-1]),
        "the GET dump is multipart and ends in NLMSG_DONE", repr(msgs[-1][:2]))
    mine = [d for d in devs if d.get(A_DEV_NAME, b"").rstrip(b"\0").decode() == dev_name]
    res(len(mine) == 1, "the GET dump lists %s" % dev_name, "devices: %r" % [d.get(A_DEV_NAME) for d in devs])
    if not mine:
        return
    d = mine[0]
    need = (A_DEV_NAME, A_DEV_NODE_TYPE, A_DEV_INDEX, A_NODE_GUID, A_PORT_INDEX)
    res(all(a in d for a in need), "its message has what libibverbs needs (name, node type, index, GUID, ports)",
        "attributes %r" % sorted(d))
    index = struct.unpack("=I", d[A_DEV_INDEX])[0]
    res(struct.unpack("=I", d[A_PORT_INDEX])[0] == 2 and d.get(A_DEV_PROTOCOL) == b"ib\0"
        and d[A_DEV_NODE_TYPE] == b"\x01", "2 ports, protocol ib, node type CA",
        "%r %r %r" % (d.get(A_PORT_INDEX), d.get(A_DEV_PROTOCOL), d.get(A_DEV_NODE_TYPE)))
    guid = struct.unpack("=Q", d[A_NODE_GUID])[0]
    sysguid = open("/sys/class/infiniband/%s/node_guid" % dev_name).read().strip().replace(":", "")
    res(guid == int(sysguid, 16), "the node GUID in host order is sysfs's", "%x vs %s" % (guid, sysguid))

    # one device, one port
    msgs = nl.ask(GET, NLM_F_REQUEST, u32(A_DEV_INDEX, index))
    res(len(msgs) == 1 and attrs(msgs[0][2]).get(A_DEV_NAME) == dev_name.encode() + b"\0",
        "GET of index %d names %s" % (index, dev_name), repr(msgs)[:200])
    msgs = nl.ask(PORT_GET, NLM_F_REQUEST, u32(A_DEV_INDEX, index) + u32(A_PORT_INDEX, 1))
    a = attrs(msgs[0][2]) if msgs and msgs[0][0] != NLMSG_ERROR else {}
    res(a.get(A_PORT_STATE) == b"\x04", "PORT_GET of port 1: ACTIVE (4)", repr(a.get(A_PORT_STATE)))
    msgs = nl.ask(PORT_GET, NLM_F_REQUEST | NLM_F_DUMP, u32(A_DEV_INDEX, index))
    res(len([m for m in msgs if m[0] == (NLDEV << 10 | PORT_GET)]) == 2, "the PORT_GET dump has both ports",
        repr([m[0] for m in msgs]))

    # the character devices libibverbs, libibumad and opensm look up
    # mlx4's user ABI: 4 where the card offers user-space capabilities
    # (64-byte CQEs); the model offers none, and the in-tree mlx4 then
    # falls back to version 3 (its shorter context answer); ours always
    # answers version 4's, with no capabilities
    uv_abi = 3 if stack == "inbox" else 4
    for typ, port, name, abi in (("uverbs", None, "uverbs0", uv_abi), ("umad", 1, "umad0", 5),
                                 ("issm", 2, "issm1", 5)):
        p = u32(A_DEV_INDEX, index) + string(A_CHARDEV_TYPE, typ)
        if port:
            p += u32(A_PORT_INDEX, port)
        msgs = nl.ask(GET_CHARDEV, NLM_F_REQUEST, p)
        a = attrs(msgs[0][2]) if msgs and msgs[0][0] != NLMSG_ERROR else {}
        ok = a.get(A_CHARDEV_NAME) == name.encode() + b"\0" and \
            struct.unpack("=Q", a.get(A_CHARDEV_ABI, b"\0" * 8))[0] == abi
        if ok:
            dv = struct.unpack("=Q", a[A_CHARDEV])[0]
            st = os.stat("/dev/infiniband/" + name)
            # huge_encode_dev(): minor's low byte, major, then the rest of the minor
            ok = os.major(st.st_rdev) == (dv >> 8) & 0xfff and \
                os.minor(st.st_rdev) == (dv & 0xff) | ((dv >> 12) & 0xfff00)
        what = "GET_CHARDEV %s%s" % (typ, " port %d" % port if port else "")
        if typ == "issm" and stack == "inbox":
            # 6.1's issm client looks for umad's ports in its own (empty)
            # client data: EOPNOTSUPP, always (nothing asks: opensm and
            # libibumad find issmN through sysfs); ours answers
            res(err_of(msgs) == errno.EOPNOTSUPP, "%s: EOPNOTSUPP (6.1's)" % what, repr(msgs)[:300])
            continue
        res(ok, "%s: %s, ABI %d, its dev_t" % (what, name, abi), repr(msgs)[:300])
        if typ == "uverbs":
            res(a.get(A_UVERBS_DRIVER_ID) == struct.pack("=I", 2), "uverbs' driver id: mlx4 (2), a u32",
                repr(a.get(A_UVERBS_DRIVER_ID)))
    expect_err(nl, "GET_CHARDEV umad without a port", GET_CHARDEV,
               u32(A_DEV_INDEX, index) + string(A_CHARDEV_TYPE, "umad"))
    expect_err(nl, "GET_CHARDEV uverbs of a port", GET_CHARDEV,
               u32(A_DEV_INDEX, index) + string(A_CHARDEV_TYPE, "uverbs") + u32(A_PORT_INDEX, 1))
    expect_err(nl, "GET_CHARDEV of an unknown type", GET_CHARDEV,
               u32(A_DEV_INDEX, index) + string(A_CHARDEV_TYPE, "nosuchclient"), want=errno.EOPNOTSUPP)
    expect_err(nl, "GET_CHARDEV without a type", GET_CHARDEV, u32(A_DEV_INDEX, index))
    expect_err(nl, "GET_CHARDEV with a port but no device", GET_CHARDEV,
               string(A_CHARDEV_TYPE, "umad") + u32(A_PORT_INDEX, 1))
    expect_err(nl, "GET_CHARDEV with an unknown attribute (strict)", GET_CHARDEV,
               string(A_CHARDEV_TYPE, "uverbs") + u32(A_DEV_INDEX, index) + u32(120, 1))

    # the system settings
    msgs = nl.ask(SYS_GET)
    a = attrs(msgs[0][2]) if msgs and msgs[0][0] != NLMSG_ERROR else {}
    res(a.get(A_NETNS_MODE) == b"\x01" and a.get(A_COPY_ON_FORK) == b"\x01",
        "SYS_GET: namespaces shared, copy-on-fork on", repr(a))

    # bad requests
    expect_err(nl, "GET of an unknown device index", GET, u32(A_DEV_INDEX, 0x7ffffff0))
    expect_err(nl, "GET without a device index", GET)
    expect_err(nl, "GET with a 1-byte device index", GET, u8(A_DEV_INDEX, index))
    expect_err(nl, "PORT_GET of port 3", PORT_GET, u32(A_DEV_INDEX, index) + u32(A_PORT_INDEX, 3))
    expect_err(nl, "PORT_GET of port 0", PORT_GET, u32(A_DEV_INDEX, index) + u32(A_PORT_INDEX, 0))
    expect_err(nl, "a dump of a command that has none (SYS_GET)", SYS_GET, flags=NLM_F_REQUEST | NLM_F_DUMP)
    expect_err(nl, "operation 8 (unused)", 8)
    expect_err(nl, "operation 1023", 1023)
    msgs = nl.ask(GET, NLM_F_REQUEST, u32(A_DEV_INDEX, index) + u32(120, 7))
    res(msgs and msgs[0][0] == (NLDEV << 10 | GET), "GET ignores an unknown attribute (lenient parsing)",
        repr(msgs)[:200])
    # a control message (type below 16) is only acknowledged, when asked
    nl.send(1, NLM_F_REQUEST | NLM_F_ACK)
    try:
        msgs = nl.recv_all()
    except OSError as e:
        msgs = [("no answer", e)]
    res(msgs == [(NLMSG_ERROR, 0, 0)] or (len(msgs) == 1 and msgs[0][0] == NLMSG_ERROR and msgs[0][2] == 0),
        "a control message (NOOP) with NLM_F_ACK: only acknowledged", repr(msgs)[:200])
    for client, op in ((0, 17), (1, 1), (2, 0), (3, 1), (4, 0), (6, 1), (63, 1023)):
        nl.send((client << 10) | op, NLM_F_REQUEST)
        got = err_of(nl.recv_all())
        # LS (4) needs CAP_NET_ADMIN first when it is served; ours does not serve it
        want = (errno.EINVAL, errno.EPERM) if client == 4 else (errno.EINVAL,)
        if client == 2 and stack == "inbox":
            # 6.1 loads iw_cm for the iWARP port mapper's client and runs
            # every message of it as a dump; ours loads nothing (the
            # in-tree iw_cm cannot load next to our ib_core)
            want = (0, errno.EINVAL)
        res(got in want, "client %d operation %d: EINVAL" % (client, op), "got %s" % got)
    # a header that claims more than was sent: nothing comes back, the socket still works
    nl.raw(struct.pack("=IHHII", 64, (NLDEV << 10) | GET, NLM_F_REQUEST, 1, 0) + b"\0" * 8)
    msgs = nl.ask(SYS_GET)
    res(msgs and msgs[0][0] == (NLDEV << 10 | SYS_GET), "after a truncated message the socket still answers",
        repr(msgs)[:200])
    # a string with no NUL, a name too long
    bad = struct.pack("=HH", 8, A_CHARDEV_TYPE) + b"umad"
    expect_err(nl, "GET_CHARDEV with a type lacking its NUL", GET_CHARDEV, u32(A_DEV_INDEX, index) + bad)
    expect_err(nl, "SET with a 70-character name", SET,
               u32(A_DEV_INDEX, index) + string(A_DEV_NAME, "x" * 70),
               want=errno.EPERM if unpriv else errno.EINVAL)

    # privileges: every write is root's
    if unpriv:
        for what, op, p in (("SET (rename)", SET, u32(A_DEV_INDEX, index) + string(A_DEV_NAME, "foo9")),
                            ("SYS_SET", SYS_SET, u8(A_NETNS_MODE, 0)),
                            ("NEWLINK", NEWLINK, b""), ("DELLINK", DELLINK, u32(A_DEV_INDEX, index))):
            expect_err(nl, "%s as nobody" % what, op, p, want=errno.EPERM)
    else:
        expect_err(nl, "SET to an empty name", SET, u32(A_DEV_INDEX, index) + string(A_DEV_NAME, ""))
        msgs = nl.ask(SET, NLM_F_REQUEST | NLM_F_ACK, u32(A_DEV_INDEX, index) + string(A_DEV_NAME, dev_name))
        res(err_of(msgs) == 0 and msgs[-1][0] == NLMSG_ERROR, "SET to its own name: acknowledged", repr(msgs))
        expect_err(nl, "DELLINK of an mlx4 device", DELLINK, u32(A_DEV_INDEX, index))

    print("nlcheck: %d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Hold or drop the packets an iptables ``NFQUEUE`` rule hands over: the virtual LAN's
delay and loss where the kernel has no ``netem`` qdisc.

One process per queue, started by :mod:`testkit.lan` inside the lab's switch namespace:

    python testkit/nfqueue.py --queue N [--delay-ms D] [--jitter-ms J] [--loss-pct L]
    python testkit/nfqueue.py --probe N     # bind queue N and exit (can this machine?)

It speaks nfnetlink_queue directly (standard library only): binds the queue asking for
each packet's id and nothing of its content, then gives each packet its verdict: dropped
with probability ``L`` percent, else accepted ``D`` ms later (give or take a uniform
``J`` ms, which can reorder packets, as netem does). It prints ``ready`` once bound.
On SIGTERM it lets every packet it still holds go before it exits (the kernel would
drop them). The rule uses ``--queue-bypass``: with no process bound, packets pass.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import heapq
import os
import random
import select
import signal
import socket
import struct
import sys
import time
from collections.abc import Iterator

NETLINK_NETFILTER = 12
SOL_NETLINK = 270
NETLINK_NO_ENOBUFS = 5
SO_RCVBUFFORCE = 33
NFNL_SUBSYS_QUEUE = 3
MSG_PACKET, MSG_VERDICT, MSG_CONFIG = 0, 1, 2
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLMSG_ERROR = 2
CFG_CMD, CFG_PARAMS, CFG_QUEUE_MAXLEN, CFG_MASK, CFG_FLAGS = 1, 2, 3, 4, 5
CMD_BIND = 1
COPY_META = 1
CFG_F_FAIL_OPEN = 1  # a full queue accepts instead of dropping
ATTR_PACKET_HDR, ATTR_VERDICT_HDR = 1, 2
NF_DROP, NF_ACCEPT = 0, 1
_HEADER = struct.Struct("=IHHII")  # nlmsghdr: length, type, flags, sequence, port id
_ATTR = struct.Struct("=HH")  # nlattr: length, type


def _attr(kind: int, payload: bytes) -> bytes:
    size = _ATTR.size + len(payload)
    return _ATTR.pack(size, kind) + payload + bytes(-size % 4)


class Queue:
    """One bound NFQUEUE: packet ids in, verdicts out."""

    def __init__(self, number: int) -> None:
        self.number = number
        self._seq = 0
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
        for option in (SO_RCVBUFFORCE, socket.SO_RCVBUF):
            try:
                self.sock.setsockopt(socket.SOL_SOCKET, option, 8 << 20)
                break
            except OSError:
                continue
        with contextlib.suppress(OSError):  # an overrun costs packets, not the socket
            self.sock.setsockopt(SOL_NETLINK, NETLINK_NO_ENOBUFS, 1)
        self.sock.bind((0, 0))
        self._configure(_attr(CFG_CMD, struct.pack("!BBH", CMD_BIND, 0, 0)))
        flags = struct.pack("!I", CFG_F_FAIL_OPEN)
        self._configure(_attr(CFG_PARAMS, struct.pack("!IB", 0, COPY_META)),
                        _attr(CFG_QUEUE_MAXLEN, struct.pack("!I", 16384)),
                        _attr(CFG_MASK, flags), _attr(CFG_FLAGS, flags))

    def _send(self, kind: int, attrs: bytes, flags: int) -> None:
        self._seq += 1
        body = struct.pack("=BB", socket.AF_UNSPEC, 0) + struct.pack("!H", self.number) + attrs
        self.sock.send(_HEADER.pack(_HEADER.size + len(body), (NFNL_SUBSYS_QUEUE << 8) | kind,
                                    flags, self._seq, 0) + body)

    def _configure(self, *attrs: bytes) -> None:
        self._send(MSG_CONFIG, b"".join(attrs), NLM_F_REQUEST | NLM_F_ACK)
        reply = self.sock.recv(65536)
        _, kind, _, _, _ = _HEADER.unpack_from(reply)
        if kind == NLMSG_ERROR:
            (code,) = struct.unpack_from("=i", reply, _HEADER.size)
            if code:
                raise OSError(-code, f"NFQUEUE {self.number}: {os.strerror(-code)}")

    def verdict(self, packet: int, verdict: int) -> None:
        self._send(MSG_VERDICT, _attr(ATTR_VERDICT_HDR, struct.pack("!II", verdict, packet)),
                   NLM_F_REQUEST)

    def packets(self) -> Iterator[int]:
        """The ids of the packets waiting now (none if there are none)."""
        while True:
            try:
                data = self.sock.recv(1 << 20, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno == errno.ENOBUFS:
                    continue
                raise
            yield from _packet_ids(data)


def _packet_ids(data: bytes) -> Iterator[int]:
    at = 0
    while at + _HEADER.size <= len(data):
        size, kind, _, _, _ = _HEADER.unpack_from(data, at)
        if size < _HEADER.size:
            return
        if kind == (NFNL_SUBSYS_QUEUE << 8) | MSG_PACKET:
            pos, end = at + _HEADER.size + 4, at + size  # past nfgenmsg
            while pos + _ATTR.size <= end:
                length, attr = _ATTR.unpack_from(data, pos)
                if length < _ATTR.size:
                    break
                if attr & 0x3FFF == ATTR_PACKET_HDR:
                    yield struct.unpack_from("!I", data, pos + _ATTR.size)[0]
                pos += (length + 3) & ~3
        at += (size + 3) & ~3


def hold(queue: Queue, delay: float, jitter: float, loss: float) -> None:
    """Give every packet its verdict (see the module docstring) until SIGTERM."""
    held: list[tuple[float, int, int]] = []  # (due, arrival order, packet id)
    order = 0

    def stop(*_: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        while True:
            now = time.monotonic()
            while held and held[0][0] <= now:
                queue.verdict(heapq.heappop(held)[2], NF_ACCEPT)
            wait = max(0.0, held[0][0] - time.monotonic()) if held else None
            if not select.select([queue.sock], [], [], wait)[0]:
                continue
            for packet in queue.packets():
                if loss and random.random() < loss:
                    queue.verdict(packet, NF_DROP)
                    continue
                due = time.monotonic() + delay + (random.uniform(-jitter, jitter)
                                                  if jitter else 0.0)
                order += 1
                heapq.heappush(held, (due, order, packet))
    finally:
        for _, _, packet in held:
            try:
                queue.verdict(packet, NF_ACCEPT)
            except OSError:
                break


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queue", type=int)
    parser.add_argument("--probe", type=int, help="bind this queue, then exit")
    parser.add_argument("--delay-ms", type=float, default=0.0)
    parser.add_argument("--jitter-ms", type=float, default=0.0)
    parser.add_argument("--loss-pct", type=float, default=0.0)
    args = parser.parse_args(argv)
    if args.probe is not None:
        Queue(args.probe)
        print("ok")
        return 0
    if args.queue is None:
        parser.error("--queue or --probe")
    queue = Queue(args.queue)
    print("ready", flush=True)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the starter reads one line, then goes
    hold(queue, args.delay_ms / 1000, args.jitter_ms / 1000, args.loss_pct / 100)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

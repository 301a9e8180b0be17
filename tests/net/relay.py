"""A man in the middle for tests: a real loopback TCP relay between a joiner and a host
that records both directions and can tamper with them.

The joiner connects to the relay's port; for each connection the relay opens one to the
host and pumps bytes both ways, cut into the private link's records (2-byte length +
body, wire.md section 10) as the honest sender wrote them. Every record passes through
``tamper``, which may forward it, drop it, alter any byte (its length prefix included),
repeat it, hold it back, or put other bytes before it. The relay can also cut every
connection and refuse new ones for a while (a partition), then heal, and it can act as
either end itself (replaying a handshake it captured earlier).
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = [
    "HOST_TO_JOINER",
    "JOINER_TO_HOST",
    "Record",
    "Relay",
    "Tamper",
    "drop",
    "duplicate",
    "flip",
    "inject",
    "once",
    "reorder",
]

JOINER_TO_HOST = "joiner>host"
HOST_TO_JOINER = "host>joiner"


@dataclass(frozen=True)
class Record:
    """One record as the honest sender wrote it."""

    conn: int  # connection number, from 1
    direction: str  # JOINER_TO_HOST or HOST_TO_JOINER
    index: int  # its number on this connection in this direction (0: first)
    data: bytes  # the length prefix and the body


#: What the relay sends for a record (None: the record, unchanged).
Tamper = Callable[[Record], "list[bytes] | None"]


def once(when: Callable[[Record], bool], action: Callable[[Record], list[bytes]]) -> Tamper:
    """Apply ``action`` to the first record for which ``when`` holds; pass the rest."""
    done: list[Record] = []

    def tamper(record: Record) -> list[bytes] | None:
        if done or not when(record):
            return None
        done.append(record)
        return action(record)

    tamper.hit = done  # type: ignore[attr-defined]
    return tamper


def drop(record: Record) -> list[bytes]:
    return []


def duplicate(record: Record) -> list[bytes]:
    return [record.data, record.data]


def flip(offset: int, mask: int = 0x01) -> Callable[[Record], list[bytes]]:
    """Flip the bits ``mask`` of the byte at ``offset`` (0 and 1: the length prefix)."""
    def action(record: Record) -> list[bytes]:
        data = bytearray(record.data)
        data[offset % len(data)] ^= mask
        return [bytes(data)]
    return action


def inject(junk: bytes) -> Callable[[Record], list[bytes]]:
    """Put a made-up record (``junk`` as its body) before this one."""
    def action(record: Record) -> list[bytes]:
        return [struct.pack(">H", len(junk)) + junk, record.data]
    return action


def reorder(when: Callable[[Record], bool]) -> Tamper:
    """Hold back the first record for which ``when`` holds and send it after the next
    record of the same connection and direction."""
    held: list[Record] = []
    done: list[bool] = []

    def tamper(record: Record) -> list[bytes] | None:
        if done:
            return None
        if not held:
            if when(record):
                held.append(record)
                return []
            return None
        first = held[0]
        if (record.conn, record.direction) != (first.conn, first.direction):
            return None
        done.append(True)
        return [record.data, first.data]

    tamper.hit = done  # type: ignore[attr-defined]
    return tamper


@dataclass
class _Connection:
    number: int
    writers: list[asyncio.StreamWriter] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


class Relay:
    """The relay between joiners and the host at ``host_port``.

    Args:
        host_port: where the host listens (127.0.0.1).
        tamper: sees every record (see :data:`Tamper`); default: forward all.
    """

    def __init__(self, host_port: int, tamper: Tamper | None = None) -> None:
        self.host_port = host_port
        self.tamper = tamper
        #: Every byte each side sent, per (connection, direction), before any tampering.
        self.sent: dict[tuple[int, str], bytearray] = {}
        #: Every record each side sent, in the order the relay read them.
        self.records: list[Record] = []
        #: Connection number -> a replacement for the host: it gets the joiner's reader
        #: and writer instead of a connection to the host (the relay plays the host).
        self.impersonate: dict[int, Callable[[asyncio.StreamReader, asyncio.StreamWriter],
                                             asyncio.Future[None] | object]] = {}
        self.partitioned = False
        #: How many times :meth:`cut` pulled the cable.
        self.cuts = 0
        self._count = 0
        self._live: dict[int, _Connection] = {}
        self._server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> int:
        """Listen on an ephemeral loopback port; return it."""
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def close(self) -> None:
        """Stop listening and cut every connection."""
        if self._server is not None:
            self._server.close()
        await self.cut()

    async def cut(self) -> None:
        """Close every live connection at both ends (the cable is pulled)."""
        self.cuts += 1
        for conn in list(self._live.values()):
            for writer in conn.writers:
                writer.transport.abort()
            for task in conn.tasks:
                task.cancel()
            await asyncio.gather(*conn.tasks, return_exceptions=True)
        self._live.clear()

    def connections(self) -> int:
        """How many connections reached the relay so far."""
        return self._count

    def records_of(self, conn: int, direction: str) -> list[Record]:
        return [r for r in self.records if r.conn == conn and r.direction == direction]

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._count += 1
        number = self._count
        if self.partitioned:
            writer.transport.abort()
            return
        fake = self.impersonate.pop(number, None)
        if fake is not None:
            with contextlib.suppress(Exception):
                await fake(reader, writer)  # type: ignore[misc]
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.host_port)
        except OSError:
            writer.transport.abort()
            return
        conn = _Connection(number, [writer, up_writer])
        self._live[number] = conn
        loop = asyncio.get_running_loop()
        conn.tasks = [loop.create_task(self._pump(reader, up_writer, number, JOINER_TO_HOST)),
                      loop.create_task(self._pump(up_reader, writer, number, HOST_TO_JOINER))]
        await asyncio.wait(conn.tasks, return_when=asyncio.FIRST_COMPLETED)
        # NB: one side hung up: so does the relay, on both (as a TCP proxy does).
        for w in conn.writers:
            w.transport.abort()
        for task in conn.tasks:
            task.cancel()
        await asyncio.gather(*conn.tasks, return_exceptions=True)
        self._live.pop(number, None)

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    number: int, direction: str) -> None:
        raw = self.sent.setdefault((number, direction), bytearray())
        buffer = bytearray()
        index = 0
        while True:
            data = await reader.read(1 << 16)
            if not data:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            raw += data
            buffer += data
            while len(buffer) >= 2:
                (length,) = struct.unpack_from(">H", buffer)
                if len(buffer) < 2 + length:
                    break
                record = Record(number, direction, index, bytes(buffer[:2 + length]))
                del buffer[:2 + length]
                index += 1
                self.records.append(record)
                out = self.tamper(record) if self.tamper is not None else None
                for chunk in ([record.data] if out is None else out):
                    writer.write(chunk)
            await writer.drain()

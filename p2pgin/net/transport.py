"""One framed TCP connection with keepalive: the only code that touches asyncio streams.

A :class:`Link` reads and writes length-prefixed frames (:mod:`p2pgin.net.framing`).
The zero-length frame is the keepalive: a link sends one whenever it has sent nothing
for ``ping_interval`` seconds, and it declares the peer dead after ``dead_after`` seconds
without receiving any frame at all. Keepalives flow whatever the players are doing, so a
player thinking for a minute is not mistaken for a dead peer; a pulled cable or a
frozen process is noticed within ``dead_after`` seconds.

Keepalives never reach the session (they are not logged, not signed): :meth:`Link.recv`
swallows them and returns only real payloads.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from typing import Final

from p2pgin.net.framing import MAX_FRAME, FrameDecoder, FrameError, encode_frame

__all__ = [
    "DEAD_AFTER",
    "KEEPALIVE",
    "PING_INTERVAL",
    "Link",
    "LinkDead",
    "open_link",
]

#: Seconds of send silence after which a keepalive goes out.
PING_INTERVAL: Final = 1.0
#: Seconds of receive silence after which the peer is declared dead.
DEAD_AFTER: Final = 5.0
#: The keepalive frame on the wire (an empty payload).
KEEPALIVE: Final = encode_frame(b"")
_READ_CHUNK: Final = 64 * 1024


class LinkDead(ConnectionError):
    """The peer sent nothing (not even a keepalive) for too long."""


def _tune(writer: asyncio.StreamWriter) -> None:
    # NB: moves are tiny frames sent one at a time; Nagle would add up to 40 ms each.
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class Link:
    """A framed, kept-alive TCP connection.

    Args:
        reader, writer: an open asyncio stream pair.
        ping_interval: send a keepalive after this long without sending.
        dead_after: :meth:`recv` raises :class:`LinkDead` after this long without input.
        max_frame: largest payload accepted (bigger announced frames raise ``FrameTooLarge``).
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        ping_interval: float = PING_INTERVAL,
        dead_after: float = DEAD_AFTER,
        max_frame: int = MAX_FRAME,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self.ping_interval = ping_interval
        self.dead_after = dead_after
        self._decoder = FrameDecoder(max_size=max_frame)
        self._pending: list[bytes] = []
        self._last_sent = time.monotonic()
        #: When :meth:`recv` began waiting on an empty stream (None: not waiting).
        self._waiting_since: float | None = None
        self._closed = False
        _tune(writer)
        self._pinger = asyncio.get_running_loop().create_task(self._keepalive())
        peer = writer.get_extra_info("peername")
        self.peername: str = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran or the connection failed."""
        return self._closed

    async def _keepalive(self) -> None:
        """Send keepalives, and be the receive watchdog: a :meth:`recv` that has waited
        ``dead_after`` seconds with nothing arriving fails with :class:`LinkDead`.

        NB: one timer task per link instead of a timeout around every read (a hand reads
        a few hundred times); the watchdog wakes when either deadline is due.
        """
        try:
            while not self._closed:
                now = time.monotonic()
                idle = now - self._last_sent
                if idle >= self.ping_interval:
                    self._write(KEEPALIVE)
                    idle = 0.0
                wake = self.ping_interval - idle
                since = self._waiting_since
                if since is not None:
                    silent = now - since
                    if silent >= self.dead_after:
                        self._reader.set_exception(LinkDead(
                            f"no frame from {self.peername} for {self.dead_after:g} s"))
                        return
                    wake = min(wake, self.dead_after - silent)
                await asyncio.sleep(wake)
        except (ConnectionError, OSError, RuntimeError):
            self._closed = True

    def _write(self, data: bytes) -> None:
        if self._closed or self._writer.is_closing():
            raise ConnectionResetError("link is closed")
        self._writer.write(data)
        self._last_sent = time.monotonic()

    def send(self, payloads: list[bytes]) -> None:
        """Queue frames for sending at once, in order (call :meth:`drain` to wait).

        Raises:
            ConnectionResetError: the link is closed.
            FrameTooLarge: a payload exceeds the frame limit (nothing is sent).
        """
        if payloads:
            self._write(b"".join(encode_frame(p) for p in payloads))

    async def drain(self) -> None:
        """Wait until the kernel has taken what was sent."""
        await self._writer.drain()

    async def recv(self) -> bytes | None:
        """The next payload (keepalives skipped); ``None`` on a clean end of stream.

        Raises:
            LinkDead: nothing arrived for ``dead_after`` seconds.
            FrameTooLarge / MalformedFrame: the byte stream is not valid framing.
            ConnectionError: the connection failed.
        """
        while True:
            while self._pending:
                payload = self._pending.pop(0)
                if payload:
                    return payload
            self._waiting_since = time.monotonic()  # NB: the keepalive task watches this
            try:
                data = await self._reader.read(_READ_CHUNK)
            finally:
                self._waiting_since = None
            if not data:
                self._decoder.close()
                return None
            self._pending.extend(self._decoder.feed(data))

    async def close(self) -> None:
        """Close the connection (safe to repeat)."""
        self._closed = True
        self._pinger.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._pinger
        self._writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self._writer.wait_closed()

    async def finish(self, timeout: float = 3.0) -> None:
        """Half-close, wait (bounded) for the peer's end of stream, then close.

        Used when the match is over: everything we sent is delivered before the FIN, and
        waiting for the peer's FIN lets it read our last frames before we go.
        """
        self._pinger.cancel()
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            await self._writer.drain()
            if self._writer.can_write_eof():
                self._writer.write_eof()
        with contextlib.suppress(ConnectionError, OSError, FrameError, TimeoutError):
            async with asyncio.timeout(timeout):
                while await self._reader.read(_READ_CHUNK):
                    pass
        await self.close()


async def open_link(
    host: str,
    port: int,
    *,
    timeout: float = 5.0,
    ping_interval: float = PING_INTERVAL,
    dead_after: float = DEAD_AFTER,
) -> Link:
    """Connect to ``host:port`` and wrap the connection in a :class:`Link`.

    Raises:
        OSError / TimeoutError: the connection could not be made within ``timeout``.
    """
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection(host, port)
    return Link(reader, writer, ping_interval=ping_interval, dead_after=dead_after)

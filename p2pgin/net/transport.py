"""One framed TCP connection with keepalive: the only code that reads or writes one.

A :class:`Link` reads and writes length-prefixed frames (:mod:`p2pgin.net.framing`).
The zero-length frame is the keepalive: a link sends one whenever it has sent nothing
for ``ping_interval`` seconds, and it declares the peer dead after ``dead_after`` seconds
without receiving any frame at all. Keepalives flow whatever the players are doing, so a
player thinking for a minute is not mistaken for a dead peer; a pulled cable or a
frozen process is noticed within ``dead_after`` seconds.

Keepalives never reach the session (they are not logged, not signed): :meth:`Link.recv`
swallows them and returns only real payloads. The link is its own asyncio protocol, so
:meth:`Link.deliver` can hand payloads to the session as the bytes arrive.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Final

from p2pgin.net.framing import MAX_FRAME, FrameDecoder, FrameError, encode_frame

__all__ = [
    "DEAD_AFTER",
    "KEEPALIVE",
    "PING_INTERVAL",
    "Link",
    "LinkDead",
    "Sink",
    "open_link",
    "serve_links",
]

#: Seconds of send silence after which a keepalive goes out.
PING_INTERVAL: Final = 1.0
#: Seconds of receive silence after which the peer is declared dead.
DEAD_AFTER: Final = 5.0
#: The keepalive frame on the wire (an empty payload).
KEEPALIVE: Final = encode_frame(b"")
#: Payloads queued for :meth:`Link.recv` beyond which the socket stops being read.
_QUEUE_LIMIT: Final = 64


class LinkDead(ConnectionError):
    """The peer sent nothing (not even a keepalive) for too long."""


def _tune(transport: asyncio.BaseTransport) -> None:
    # NB: moves are tiny frames sent one at a time; Nagle would add up to 40 ms each.
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


#: What :meth:`Link.deliver` hands each payload to; it returns False to stop delivery.
Sink = Callable[[bytes], bool]


class _FrameProtocol(asyncio.Protocol):
    """The connection's asyncio protocol: decodes frames as bytes arrive.

    Payloads are queued for :meth:`Link.recv`, or, while :meth:`Link.deliver` runs,
    handed to its sink at once, inside ``data_received``: no task wakes up per frame.
    """

    def __init__(self, max_frame: int) -> None:
        self.decoder = FrameDecoder(max_size=max_frame)
        self.transport: asyncio.Transport | None = None
        self.queue: deque[bytes] = deque()
        self.eof = False
        self.error: BaseException | None = None
        self.last_data = time.monotonic()
        #: Woken when a payload, the end of stream or an error arrives (for recv).
        self.waiter: asyncio.Future[None] | None = None
        self.sink: Sink | None = None
        self.delivery: asyncio.Future[None] | None = None
        self.discard = False  # finishing: drop payloads, wait for the end of stream
        self._write_paused = False
        self._reading_paused = False
        self._drain_waiters: list[asyncio.Future[None]] = []
        self.lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    # -- asyncio callbacks

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        _tune(transport)

    def data_received(self, data: bytes) -> None:
        self.last_data = time.monotonic()
        if self.error is not None:
            return
        try:
            payloads = self.decoder.feed(data)
        except FrameError as exc:
            self._fail(exc)
            return
        if self.discard:
            return
        self.queue.extend(p for p in payloads if p)  # NB: b"" is a keepalive
        self._dispatch()
        self.update_reading()

    def eof_received(self) -> bool:
        try:
            self.decoder.close()
        except FrameError as exc:
            self._fail(exc)
            return True
        self.eof = True
        self._dispatch()
        return True  # NB: our side may still write (a half-close, see Link.finish)

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is None:
            if not self.eof and self.error is None:
                self.eof_received()
        else:
            self._fail(exc)
        for waiter in self._drain_waiters:
            if not waiter.done():
                waiter.set_exception(ConnectionResetError("connection lost"))
        self._drain_waiters.clear()
        if not self.lost.done():
            self.lost.set_result(None)

    def pause_writing(self) -> None:
        self._write_paused = True
        self.update_reading()

    def resume_writing(self) -> None:
        self._write_paused = False
        for waiter in self._drain_waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._drain_waiters.clear()
        self.update_reading()

    def update_reading(self) -> None:
        """Read the socket unless too many payloads wait for :meth:`Link.recv` (a flood)
        or, while delivering, the peer does not read what we send (back-pressure)."""
        paused = len(self.queue) > _QUEUE_LIMIT or (self._write_paused and self.sink is not None)
        transport = self.transport
        if paused == self._reading_paused or transport is None or transport.is_closing():
            return
        self._reading_paused = paused
        if paused:
            transport.pause_reading()
        else:
            transport.resume_reading()

    # -- for Link

    async def drain(self) -> None:
        if self.lost.done():
            raise ConnectionResetError("connection lost")
        if self._write_paused:
            waiter = asyncio.get_running_loop().create_future()
            self._drain_waiters.append(waiter)
            await waiter

    def _fail(self, exc: BaseException) -> None:
        if self.error is None:
            self.error = exc
        self._dispatch()

    def _dispatch(self) -> None:
        """Hand queued payloads to the sink (or wake recv), then report the end."""
        sink = self.sink
        if sink is not None:
            delivery = self.delivery
            assert delivery is not None
            while self.queue and self.sink is sink:
                payload = self.queue.popleft()
                try:
                    go_on = sink(payload)
                except Exception as exc:  # a bug in the sink: end delivery with it
                    self._end_delivery(exc)
                    return
                if not go_on:
                    self._end_delivery(None)
                    return
            if self.sink is sink and (self.error is not None or self.eof):
                self._end_delivery(self.error)
            self.update_reading()
            return
        waiter = self.waiter
        if waiter is not None and not waiter.done() and (
                self.queue or self.eof or self.error is not None):
            waiter.set_result(None)

    def _end_delivery(self, exc: BaseException | None) -> None:
        delivery = self.delivery
        self.sink = self.delivery = None
        if delivery is not None and not delivery.done():
            if exc is None:
                delivery.set_result(None)
            else:
                delivery.set_exception(exc)
        self.update_reading()


class Link:
    """A framed, kept-alive TCP connection.

    Made by :func:`open_link` (connecting) or :func:`serve_links` (accepting).

    Args:
        protocol: the connection's frame protocol (connected).
        ping_interval: send a keepalive after this long without sending.
        dead_after: :meth:`recv` raises :class:`LinkDead` after this long without input.
    """

    def __init__(
        self,
        protocol: _FrameProtocol,
        *,
        ping_interval: float = PING_INTERVAL,
        dead_after: float = DEAD_AFTER,
    ) -> None:
        assert protocol.transport is not None, "the protocol must be connected"
        self._protocol = protocol
        self._transport = protocol.transport
        self.ping_interval = ping_interval
        self.dead_after = dead_after
        self._last_sent = time.monotonic()
        #: When a reader (recv or deliver) began waiting (None: nobody waits).
        self._waiting_since: float | None = None
        self._closed = False
        self._pinger = asyncio.get_running_loop().create_task(self._keepalive())
        peer = self._transport.get_extra_info("peername")
        self.peername: str = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran or the connection failed."""
        return self._closed

    async def _keepalive(self) -> None:
        """Send keepalives, and be the receive watchdog: a reader that has waited
        ``dead_after`` seconds with nothing arriving fails with :class:`LinkDead`.

        NB: one timer task per link instead of a timeout around every read (a hand reads
        a few hundred times); the watchdog wakes when either deadline is due.
        """
        protocol = self._protocol
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
                    silent = now - max(since, protocol.last_data)
                    if silent >= self.dead_after:
                        protocol._fail(LinkDead(
                            f"no frame from {self.peername} for {self.dead_after:g} s"))
                        return
                    wake = min(wake, self.dead_after - silent)
                await asyncio.sleep(wake)
        except (ConnectionError, OSError, RuntimeError):
            self._closed = True

    def _write(self, data: bytes) -> None:
        if self._closed or self._transport.is_closing():
            raise ConnectionResetError("link is closed")
        self._transport.write(data)
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
        """Wait until the kernel has taken what was sent.

        Raises:
            ConnectionResetError: the connection was lost.
        """
        await self._protocol.drain()

    async def recv(self) -> bytes | None:
        """The next payload (keepalives skipped); ``None`` on a clean end of stream.

        Raises:
            LinkDead: nothing arrived for ``dead_after`` seconds.
            FrameTooLarge / MalformedFrame: the byte stream is not valid framing.
            ConnectionError: the connection failed.
        """
        protocol = self._protocol
        if protocol.sink is not None:
            raise RuntimeError("recv() while deliver() runs")
        while True:
            if protocol.queue:
                payload = protocol.queue.popleft()
                protocol.update_reading()
                return payload
            if protocol.error is not None:
                raise protocol.error
            if protocol.eof:
                return None
            waiter = asyncio.get_running_loop().create_future()
            protocol.waiter = waiter
            self._waiting_since = time.monotonic()  # NB: the keepalive task watches this
            try:
                await waiter
            finally:
                protocol.waiter = None
                self._waiting_since = None

    async def deliver(self, sink: Sink) -> None:
        """Hand every payload to ``sink`` as it arrives, until ``sink`` returns False or
        the peer ends the stream cleanly (payloads queued earlier go first).

        The sink runs inside the event loop's read callback: the cheapest path from the
        socket to the session. It must not block; an exception it raises ends delivery
        and is raised here.

        Raises:
            LinkDead / FrameError / ConnectionError: as :meth:`recv`.
        """
        protocol = self._protocol
        if protocol.sink is not None or protocol.waiter is not None:
            raise RuntimeError("a link has one reader at a time")
        delivery: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        protocol.sink, protocol.delivery = sink, delivery
        self._waiting_since = time.monotonic()
        try:
            protocol._dispatch()
            await delivery
        finally:
            self._waiting_since = None
            if protocol.delivery is delivery:  # cancelled: stop handing payloads over
                protocol.sink = protocol.delivery = None

    async def close(self) -> None:
        """Close the connection (safe to repeat)."""
        self._closed = True
        self._pinger.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._pinger
        self._transport.close()
        with contextlib.suppress(ConnectionError, OSError):
            await asyncio.shield(self._protocol.lost)

    async def finish(self, timeout: float = 3.0) -> None:
        """Half-close, wait (bounded) for the peer's end of stream, then close.

        Used when the match is over: everything we sent is delivered before the FIN, and
        waiting for the peer's FIN lets it read our last frames before we go.
        """
        self._pinger.cancel()
        protocol = self._protocol
        protocol.discard = True
        protocol.queue.clear()
        protocol.update_reading()  # NB: a flood may have paused reading; the FIN is behind it
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            await protocol.drain()
            if self._transport.can_write_eof() and not self._transport.is_closing():
                self._transport.write_eof()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                while not (protocol.eof or protocol.error is not None or protocol.lost.done()):
                    waiter = asyncio.get_running_loop().create_future()
                    protocol.waiter = waiter
                    try:
                        await asyncio.wait([waiter, protocol.lost],
                                           return_when=asyncio.FIRST_COMPLETED)
                    finally:
                        protocol.waiter = None
        await self.close()


async def open_link(
    host: str,
    port: int,
    *,
    timeout: float = 5.0,
    ping_interval: float = PING_INTERVAL,
    dead_after: float = DEAD_AFTER,
    max_frame: int = MAX_FRAME,
) -> Link:
    """Connect to ``host:port`` and wrap the connection in a :class:`Link`.

    Raises:
        OSError / TimeoutError: the connection could not be made within ``timeout``.
    """
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(timeout):
        _, protocol = await loop.create_connection(lambda: _FrameProtocol(max_frame), host, port)
    return Link(protocol, ping_interval=ping_interval, dead_after=dead_after)


async def serve_links(
    on_link: Callable[[Link], Awaitable[None]],
    host: str | None,
    port: int,
    *,
    ping_interval: float = PING_INTERVAL,
    dead_after: float = DEAD_AFTER,
    max_frame: int = MAX_FRAME,
) -> asyncio.Server:
    """Listen on ``host:port``; run ``on_link`` in a task of its own for every connection.

    The server is listening when this returns (its sockets name the port).
    """
    loop = asyncio.get_running_loop()
    tasks: set[asyncio.Task[None]] = set()

    class _Accepted(_FrameProtocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            link = Link(self, ping_interval=ping_interval, dead_after=dead_after)
            task = loop.create_task(_run(link))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    async def _run(link: Link) -> None:
        try:
            await on_link(link)
        except Exception:  # NB: like asyncio.start_server: log, do not kill the server
            logging.getLogger(__name__).exception("connection handler failed")
            await link.close()

    return await loop.create_server(lambda: _Accepted(max_frame), host, port)

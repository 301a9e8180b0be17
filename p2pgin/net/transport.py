"""One private, kept-alive TCP connection: the only code that reads or writes one.

Every connection first runs the private link's handshake (:mod:`p2pgin.net.channel`,
wire.md section 10): both ends prove their Ed25519 identity keys over fresh X25519
keys, and only then does a :class:`Link` exist, knowing :attr:`Link.remote_key`. After
it every frame, keepalives and control frames included, travels encrypted and
authenticated; a record that fails authentication breaks the link at once (a
:class:`~p2pgin.net.channel.ChannelError`, which is a ``ConnectionError``): the peers
reconnect and the match goes on.

Deadlines, so that no byte stream can make a peer wait for good:

* the handshake must complete within ``handshake_timeout`` of the TCP connect, or the
  connection is dropped (the accepting side never hears of it);
* a frame (or record) whose first byte arrived must be complete within
  ``frame_deadline`` (:class:`FrameStalled`): a corrupted length cannot make the
  receiver wait for bytes that will never come;
* the zero-length frame is the keepalive: a link sends one whenever it has sent
  nothing for ``ping_interval`` seconds, and a reader declares the peer dead after
  ``dead_after`` seconds without receiving any byte (:class:`LinkDead`).

Keepalives never reach the session: :meth:`Link.recv` swallows them and returns only
real payloads. The link is its own asyncio protocol, so :meth:`Link.deliver` can hand
payloads to the session as the bytes arrive.
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

from nacl.signing import SigningKey

from p2pgin.net.budget import ConnectionGate, quiet_floods
from p2pgin.net.channel import Channel, ChannelError, HandshakeFailed
from p2pgin.net.framing import MAX_FRAME, FrameError

__all__ = [
    "DEAD_AFTER",
    "FRAME_DEADLINE",
    "HANDSHAKE_TIMEOUT",
    "PING_INTERVAL",
    "WRITE_LIMIT",
    "FrameStalled",
    "Link",
    "LinkDead",
    "Sink",
    "SlowReader",
    "open_link",
    "serve_links",
]

#: Seconds of send silence after which a keepalive goes out.
PING_INTERVAL: Final = 1.0
#: Seconds of receive silence after which the peer is declared dead.
DEAD_AFTER: Final = 5.0
#: Seconds from the TCP connect within which the handshake must complete.
HANDSHAKE_TIMEOUT: Final = 5.0
#: Seconds within which a frame (or record) that began arriving must be complete: a
#: whole 1 MiB frame needs about 1 Mbit/s to make it.
FRAME_DEADLINE: Final = 10.0
#: The keepalive: one empty frame (encrypted like any other).
_KEEPALIVE: Final = (b"",)
#: Bytes sent to a peer and not yet taken by the kernel beyond which the link is
#: dropped: a peer that does not read cannot make this side keep what it sends.
WRITE_LIMIT: Final = 8 << 20
#: Connections the kernel may queue before the listener accepts them (a burst of
#: strangers must not keep a player's connect waiting in a full queue).
_BACKLOG: Final = 512
#: Payloads queued for :meth:`Link.recv` beyond which the socket stops being read.
_QUEUE_LIMIT: Final = 64
#: Benchmark only (bench/p2p.py measures what the encryption costs): after the
#: handshake, records carry the frames in clear. Nothing in p2pgin sets it, and no
#: option reaches it.
_BENCHMARK_PLAINTEXT_RECORDS = False

_log = logging.getLogger(__name__)


class LinkDead(ConnectionError):
    """The peer sent nothing (not even a keepalive) for too long."""


class SlowReader(ConnectionError):
    """The peer left more than :data:`WRITE_LIMIT` bytes of what it was sent unread."""


class FrameStalled(ChannelError):
    """A frame (or record) began arriving and was not complete within the deadline."""

    rule = "frame_stalled"


def _tune(transport: asyncio.BaseTransport) -> None:
    # NB: moves are tiny frames sent one at a time; Nagle would add up to 40 ms each.
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


#: What :meth:`Link.deliver` hands each payload to; it returns False to stop delivery.
Sink = Callable[[bytes], bool]


def _retrieve(future: asyncio.Future[None]) -> None:
    # NB: a handshake nobody waits for any more (its task was cancelled) fails quietly.
    if not future.cancelled():
        future.exception()


class _LinkProtocol(asyncio.Protocol):
    """The connection's asyncio protocol: pumps the channel as bytes arrive.

    Until the handshake completes, bytes go to the channel and its replies go out;
    :attr:`handshake` then resolves (or fails, and the connection is aborted). After
    it, payloads are queued for :meth:`Link.recv`, or, while :meth:`Link.deliver`
    runs, handed to its sink at once, inside ``data_received``: no task wakes up per
    frame.
    """

    def __init__(self, channel: Channel) -> None:
        if _BENCHMARK_PLAINTEXT_RECORDS:
            channel._plaintext_for_benchmark()
        self.channel = channel
        self.transport: asyncio.Transport | None = None
        self.queue: deque[bytes] = deque()
        self.eof = False
        self.error: BaseException | None = None
        self.last_data = time.monotonic()
        #: Since when a started frame (or record) waits for its rest (None: none does).
        self.partial_since: float | None = None
        loop = asyncio.get_running_loop()
        #: Resolves when the handshake completes; fails with a ChannelError.
        self.handshake: asyncio.Future[None] = loop.create_future()
        self.handshake.add_done_callback(_retrieve)
        #: Woken when a payload, the end of stream or an error arrives (for recv).
        self.waiter: asyncio.Future[None] | None = None
        self.sink: Sink | None = None
        self.delivery: asyncio.Future[None] | None = None
        self.discard = False  # finishing: drop payloads, wait for the end of stream
        self._write_paused = False
        self._reading_paused = False
        self._drain_waiters: list[asyncio.Future[None]] = []
        self.lost: asyncio.Future[None] = loop.create_future()
        #: A seat's connection (a listener's gate never drops it for a stranger's).
        self.trusted = False

    def abort(self) -> None:
        """Drop the connection at once (a listener's gate makes room)."""
        if self.transport is not None:
            self.transport.abort()

    # -- asyncio callbacks

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        _tune(transport)
        self._flush_channel()

    def _flush_channel(self) -> None:
        out = self.channel.data_to_send()
        if out and self.transport is not None and not self.transport.is_closing():
            self.transport.write(out)
            self.answered()

    def progressed(self) -> None:
        """The other end made a step: a handshake message or a frame that is not a
        keepalive (a listener's gate hears of it)."""

    def answered(self) -> None:
        """We answered: a handshake message or a frame that is not a keepalive."""

    def data_received(self, data: bytes) -> None:
        now = self.last_data = time.monotonic()
        if self.error is not None:
            return
        channel = self.channel
        try:
            payloads = channel.receive_data(data)
        except (ChannelError, FrameError) as exc:
            self._fail(exc)
            return
        if not self.handshake.done():
            self.progressed()
            self._flush_channel()
            if channel.established:
                self.handshake.set_result(None)
        elif any(payloads):
            self.progressed()
        if channel.incomplete:
            if payloads or self.partial_since is None:
                self.partial_since = now  # NB: a frame completed: the next one starts now
        else:
            self.partial_since = None
        if self.discard:
            return
        self.queue.extend(p for p in payloads if p)  # NB: b"" is a keepalive
        self._dispatch()
        self.update_reading()

    def eof_received(self) -> bool:
        try:
            self.channel.close()
        except (ChannelError, FrameError) as exc:
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
        if not self.handshake.done():
            self.handshake.set_exception(
                HandshakeFailed("the connection closed during the handshake"))
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
            if self.partial_since is not None:  # NB: we did not read; the peer did not stall
                self.partial_since = time.monotonic()
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
        if not self.handshake.done():
            # NB: a connection whose handshake failed is of no use: abort it at once.
            self.handshake.set_exception(exc if isinstance(exc, ChannelError) else
                                         HandshakeFailed(f"handshake: {exc}"))
            if self.transport is not None:
                self.transport.abort()
            return
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
    """A private, framed, kept-alive TCP connection whose other end proved its identity.

    Made by :func:`open_link` (connecting) or :func:`serve_links` (accepting), once the
    handshake completed.

    Args:
        protocol: the connection's protocol (connected, handshake complete).
        ping_interval: send a keepalive after this long without sending.
        dead_after: :meth:`recv` raises :class:`LinkDead` after this long without input.
        frame_deadline: a started frame must be complete within this long.
    """

    def __init__(
        self,
        protocol: _LinkProtocol,
        *,
        ping_interval: float = PING_INTERVAL,
        dead_after: float = DEAD_AFTER,
        frame_deadline: float = FRAME_DEADLINE,
    ) -> None:
        assert protocol.transport is not None, "the protocol must be connected"
        channel = protocol.channel
        assert channel.remote_key is not None, "the handshake completes first"
        self._protocol = protocol
        self._transport = protocol.transport
        self._channel = channel
        #: The other end's Ed25519 identity key (32 bytes), proven by the handshake.
        self.remote_key: bytes = channel.remote_key
        #: The handshake hash: names this connection (the same at both ends).
        self.handshake_hash: bytes = channel.handshake_hash or b""
        self.ping_interval = ping_interval
        self.dead_after = dead_after
        self.frame_deadline = frame_deadline
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

    def seated(self, max_frame: int = MAX_FRAME) -> None:
        """The other end is a seat of the table: it may send frames up to ``max_frame``
        and its connection is never dropped to make room for another."""
        self._protocol.trusted = True
        self._channel.limit_frames(max_frame)

    async def _keepalive(self) -> None:
        """Send keepalives, and be the receive watchdog: a reader that has waited
        ``dead_after`` seconds with nothing arriving fails with :class:`LinkDead`, and a
        frame begun ``frame_deadline`` seconds ago and still incomplete fails the link
        with :class:`FrameStalled` (whether anyone reads or not).

        NB: one timer task per link instead of a timeout around every read (a hand reads
        a few hundred times); the watchdog wakes when the first deadline is due.
        """
        protocol = self._protocol
        try:
            while not self._closed and protocol.error is None:
                now = time.monotonic()
                idle = now - self._last_sent
                if idle >= self.ping_interval:
                    self._write(self._channel.seal(_KEEPALIVE))
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
                started = protocol.partial_since
                if started is not None and not protocol._reading_paused:
                    waited = now - started
                    if waited >= self.frame_deadline:
                        protocol._fail(FrameStalled(
                            f"a frame from {self.peername} began {waited:.1f} s ago and is "
                            f"still incomplete (deadline {self.frame_deadline:g} s)"))
                        return
                    wake = min(wake, self.frame_deadline - waited)
                await asyncio.sleep(wake)
        except (ConnectionError, OSError, RuntimeError):
            self._closed = True

    def _write(self, data: bytes) -> None:
        if self._closed or self._transport.is_closing():
            raise ConnectionResetError("link is closed")
        if self._transport.get_write_buffer_size() > WRITE_LIMIT:
            # NB: the peer does not read what it is sent: its link goes, not our memory
            self._protocol._fail(SlowReader(
                f"{self.peername} left {WRITE_LIMIT >> 20} MiB unread"))
            self._transport.abort()
            raise ConnectionResetError("the peer does not read")
        self._transport.write(data)
        self._last_sent = time.monotonic()

    def send(self, payloads: list[bytes]) -> None:
        """Queue frames for sending at once, in order, encrypted (call :meth:`drain` to
        wait).

        Raises:
            ConnectionResetError: the link is closed.
            FrameTooLarge: a payload exceeds the frame limit (nothing is sent).
        """
        if payloads:
            if self._closed or self._transport.is_closing():
                raise ConnectionResetError("link is closed")
            self._write(self._channel.seal(payloads))
            if any(payloads):
                self._protocol.answered()

    def fail(self, exc: BaseException) -> None:
        """Break the link with ``exc``: its reader (recv or deliver) raises it."""
        self._protocol._fail(exc)

    def send_stream(self, plaintext: bytes) -> None:
        """Send ``plaintext`` as the next bytes of the frame stream, encrypted, whatever
        they are. For tests that play a peer breaking the framing from inside the
        encryption (an oversize header, a frame cut short); :meth:`send` is the way."""
        self._write(self._channel.seal_stream(plaintext))

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
    identity: SigningKey,
    expect: bytes | None = None,
    timeout: float = 5.0,
    handshake_timeout: float = HANDSHAKE_TIMEOUT,
    ping_interval: float = PING_INTERVAL,
    dead_after: float = DEAD_AFTER,
    frame_deadline: float = FRAME_DEADLINE,
    max_frame: int = MAX_FRAME,
    local_addr: tuple[str, int] | None = None,
) -> Link:
    """Connect to ``host:port`` and run the handshake as the initiator.

    Args:
        identity: this side's Ed25519 identity key.
        expect: the identity the other end must prove (None: any, first contact). A
            different one is refused before this side reveals its own identity.
        local_addr: the (address, port) to connect from (None: the system's choice).

    Raises:
        OSError / TimeoutError: the connection could not be made within ``timeout``.
        HandshakeFailed: no valid handshake within ``handshake_timeout`` (its subclass
            :class:`~p2pgin.net.channel.WrongPeer` when another identity answered).
    """
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(timeout):
        _, protocol = await loop.create_connection(
            lambda: _LinkProtocol(Channel(identity, initiator=True, expect=expect,
                                          max_frame=max_frame)), host, port,
            local_addr=local_addr)
    await _handshake(protocol, handshake_timeout, f"{host}:{port}")
    return Link(protocol, ping_interval=ping_interval, dead_after=dead_after,
                frame_deadline=frame_deadline)


async def _handshake(protocol: _LinkProtocol, timeout: float, where: str) -> None:
    """Wait for the handshake; abort the connection if it fails or is late."""
    try:
        async with asyncio.timeout(timeout):
            await asyncio.shield(protocol.handshake)
    except TimeoutError:
        protocol.error = HandshakeFailed(f"no handshake from {where} within {timeout:g} s")
        if protocol.transport is not None:
            protocol.transport.abort()
        raise protocol.error from None
    except BaseException:
        if protocol.transport is not None:
            protocol.transport.abort()
        raise


async def serve_links(
    on_link: Callable[[Link], Awaitable[None]],
    host: str | None,
    port: int,
    *,
    identity: SigningKey,
    handshake_timeout: float = HANDSHAKE_TIMEOUT,
    ping_interval: float = PING_INTERVAL,
    dead_after: float = DEAD_AFTER,
    frame_deadline: float = FRAME_DEADLINE,
    max_frame: int = MAX_FRAME,
    on_refused: Callable[[str, Exception], None] | None = None,
    gate: ConnectionGate | None = None,
    newcomer_frame: int | None = None,
) -> asyncio.Server:
    """Listen on ``host:port``; for every connection run the handshake as the
    responder and, once the other end proved its identity, ``on_link`` in a task of
    its own. Connections whose handshake fails or is late are aborted and never reach
    ``on_link`` (``on_refused(address, error)`` hears of them); several handshakes run
    at once, so a silent connection delays nobody.

    ``gate`` caps the connections held at once (:mod:`p2pgin.net.budget`); with
    ``newcomer_frame``, a connection may send frames of at most that size until
    :meth:`Link.seated` says it is a seat's. Connection errors a flood causes are
    logged without a traceback.

    The server is listening when this returns (its sockets name the port).
    """
    loop = asyncio.get_running_loop()
    quiet_floods(loop)
    tasks: set[asyncio.Task[None]] = set()

    class _Accepted(_LinkProtocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            if gate is not None:
                peer = transport.get_extra_info("peername")
                address = str(peer[0]) if isinstance(peer, tuple) else str(peer)
                if not gate.admit(self, address):
                    self.abort()
                    return
            task = loop.create_task(_run(self))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

        def progressed(self) -> None:
            if gate is not None:
                gate.touch(self)

        def answered(self) -> None:
            if gate is not None:
                gate.answered(self)

        def connection_lost(self, exc: Exception | None) -> None:
            if gate is not None:
                gate.release(self)
            super().connection_lost(exc)

    def _channel() -> Channel:
        channel = Channel(identity, initiator=False, max_frame=max_frame)
        if newcomer_frame is not None:
            channel.limit_frames(newcomer_frame)
        return channel

    async def _run(protocol: _LinkProtocol) -> None:
        assert protocol.transport is not None
        peer = protocol.transport.get_extra_info("peername")
        where = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        try:
            await _handshake(protocol, handshake_timeout, where)
        except (ChannelError, OSError) as exc:
            _log.info("refused a connection from %s: %s", where, exc)
            if on_refused is not None:
                on_refused(where, exc)
            return
        link = Link(protocol, ping_interval=ping_interval, dead_after=dead_after,
                    frame_deadline=frame_deadline)
        try:
            await on_link(link)
        except Exception:  # NB: like asyncio.start_server: log, do not kill the server
            _log.exception("connection handler failed")
            await link.close()

    return await loop.create_server(lambda: _Accepted(_channel()), host, port,
                                    backlog=_BACKLOG)

"""The private, framed, kept-alive link over real loopback TCP."""

from __future__ import annotations

import asyncio
import contextlib
import struct
import time
from collections.abc import AsyncIterator, Callable

import pytest
from nacl.signing import SigningKey

from p2pgin.net.channel import HandshakeFailed, RecordForged
from p2pgin.net.framing import FrameTooLarge, MalformedFrame
from p2pgin.net.transport import FrameStalled, Link, LinkDead, open_link, serve_links

SERVER_KEY = SigningKey(bytes([1]) * 32)
CLIENT_KEY = SigningKey(bytes([2]) * 32)


@contextlib.asynccontextmanager
async def _paired(ping: float = 0.05, dead: float = 0.6,
                  frame_deadline: float = 10.0) -> AsyncIterator[tuple[Link, Link]]:
    """(client, server side) of one loopback connection; both closed afterwards."""
    accepted: asyncio.Queue[Link] = asyncio.Queue()

    async def on_accept(link: Link) -> None:
        await accepted.put(link)

    server = await serve_links(on_accept, "127.0.0.1", 0, identity=SERVER_KEY,
                               ping_interval=ping, dead_after=dead,
                               frame_deadline=frame_deadline)
    port = server.sockets[0].getsockname()[1]
    client = await open_link("127.0.0.1", port, identity=CLIENT_KEY, ping_interval=ping,
                             dead_after=dead, frame_deadline=frame_deadline)
    srv = await accepted.get()
    try:
        yield client, srv
    finally:
        await client.close()
        await srv.close()
        server.close()


@pytest.fixture
async def pair() -> AsyncIterator[tuple[Link, Link]]:
    async with _paired() as links:
        yield links


async def test_frames_arrive_in_order_and_keepalives_are_invisible(
    pair: tuple[Link, Link],
) -> None:
    client, srv = pair
    client.send([b"one", b"two"])
    await asyncio.sleep(0.2)  # several keepalives go by in between
    client.send([b"three" * 1000])
    got = [await srv.recv() for _ in range(3)]
    assert got == [b"one", b"two", b"three" * 1000]


async def test_an_idle_link_stays_alive_longer_than_the_dead_timeout(
    pair: tuple[Link, Link],
) -> None:
    client, srv = pair
    # Nobody sends anything for 3x the dead timeout: keepalives must carry the link.
    recv = asyncio.ensure_future(srv.recv())
    await asyncio.sleep(1.8)
    assert not recv.done()
    client.send([b"still here"])
    assert await recv == b"still here"


async def _fails_within(error: type[Exception], reading: Link, after: float) -> None:
    """``reading.recv()`` raises ``error`` after about ``after`` seconds (at most 2)."""
    start = time.monotonic()
    with pytest.raises(error):
        await asyncio.wait_for(reading.recv(), 5)
    assert after * 0.8 < time.monotonic() - start < 2.0


async def test_a_silent_peer_is_declared_dead_within_the_timeout() -> None:
    async with _paired(ping=0.05, dead=0.3) as (client, srv):
        srv._pinger.cancel()  # the server's process freezes after the handshake
        await _fails_within(LinkDead, client, 0.3)


async def test_a_clean_close_is_none_and_a_cut_frame_is_malformed(
    pair: tuple[Link, Link],
) -> None:
    client, srv = pair
    client.send([b"last"])
    await client.finish(timeout=0.1)
    assert await srv.recv() == b"last"
    assert await srv.recv() is None

    async with _paired() as (client2, srv2):
        client2.send_stream(struct.pack(">I", 10) + b"abc")  # announces 10, sends 3
        await client2.close()
        with pytest.raises(MalformedFrame):
            await srv2.recv()


async def test_an_oversize_frame_is_refused_before_it_is_buffered(
    pair: tuple[Link, Link],
) -> None:
    client, srv = pair
    client.send_stream(struct.pack(">I", (1 << 20) + 1))
    with pytest.raises(FrameTooLarge):
        await srv.recv()
    with pytest.raises(FrameTooLarge):
        client.send([b"x" * ((1 << 20) + 1)])


async def test_deliver_hands_payloads_over_in_order_until_the_sink_stops(
    pair: tuple[Link, Link],
) -> None:
    client, srv = pair
    client.send([b"early"])
    assert await srv.recv() == b"early"
    got: list[bytes] = []

    def sink(payload: bytes) -> bool:
        got.append(payload)
        return payload != b"stop"

    client.send([b"a", b"b"])
    await asyncio.sleep(0.05)  # queued before delivery starts: they go first
    delivery = asyncio.ensure_future(srv.deliver(sink))
    await asyncio.sleep(0.2)  # keepalives go by, invisible to the sink
    assert got == [b"a", b"b"] and not delivery.done()
    client.send([b"c", b"stop", b"after"])
    await asyncio.wait_for(delivery, 2)
    assert got == [b"a", b"b", b"c", b"stop"]
    assert await srv.recv() == b"after"  # what the sink did not take stays for recv


async def test_deliver_ends_at_the_end_of_stream_and_raises_what_the_sink_raised() -> None:
    async with _paired() as (client, srv):
        client.send([b"x"])
        await client.finish(timeout=0.1)
        seen: list[bytes] = []
        await asyncio.wait_for(srv.deliver(lambda p: seen.append(p) is None), 2)
        assert seen == [b"x"]

    def broken(payload: bytes) -> bool:
        raise ValueError(f"cannot take {payload!r}")

    async with _paired() as (client, srv):
        client.send([b"y"])
        with pytest.raises(ValueError, match="cannot take"):
            await asyncio.wait_for(srv.deliver(broken), 2)


async def test_a_silent_peer_ends_delivery_as_dead() -> None:
    async with _paired(ping=0.05, dead=0.3) as (client, srv):
        client._pinger.cancel()  # the client's process freezes: not even keepalives
        start = time.monotonic()
        with pytest.raises(LinkDead):
            await asyncio.wait_for(srv.deliver(lambda p: True), 5)
        assert 0.25 < time.monotonic() - start < 2.0


async def test_a_flood_waits_in_the_socket_and_all_of_it_is_delivered_later(
    pair: tuple[Link, Link],
) -> None:
    """Frames nobody reads pile up only to a limit (the rest stays in the kernel); a
    delivery that starts afterwards gets every one of them, in order."""
    client, srv = pair
    sent = [f"frame {i} ".encode() * 200 for i in range(1000)]  # ~2 MB, many reads
    client.send(sent)
    await asyncio.sleep(0.3)  # nobody takes them: the link stops reading after a few
    assert 0 < len(srv._protocol.queue) < 500
    got: list[bytes] = []

    def sink(payload: bytes) -> bool:
        got.append(payload)
        return payload != sent[-1]

    await asyncio.wait_for(srv.deliver(sink), 5)
    assert got == sent


async def test_finish_reads_past_a_flood_to_the_peers_end_of_stream(
    pair: tuple[Link, Link],
) -> None:
    client, srv = pair
    client.send([b"x" * 2000] * 1000)  # more than the link keeps unread
    await asyncio.sleep(0.3)
    closing = asyncio.ensure_future(client.finish(timeout=5))
    start = time.monotonic()
    await srv.finish(timeout=5)  # must see the client's FIN behind the flood at once
    assert time.monotonic() - start < 2.0
    await closing


async def test_both_ends_know_the_identity_the_other_proved(pair: tuple[Link, Link]) -> None:
    client, srv = pair
    assert client.remote_key == bytes(SERVER_KEY.verify_key)
    assert srv.remote_key == bytes(CLIENT_KEY.verify_key)
    assert client.handshake_hash == srv.handshake_hash and len(client.handshake_hash) == 64


async def test_a_server_that_never_answers_the_handshake_is_given_up_in_time() -> None:
    async def on_accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # accepts, never writes (a frozen process, another program)

    server = await asyncio.start_server(on_accept, "127.0.0.1", 0)  # a plain TCP server
    port = server.sockets[0].getsockname()[1]
    start = time.monotonic()
    with pytest.raises(HandshakeFailed, match=r"no handshake .* within 0\.3 s"):
        await open_link("127.0.0.1", port, identity=CLIENT_KEY, handshake_timeout=0.3)
    assert 0.25 < time.monotonic() - start < 2.0
    server.close()


async def test_a_client_that_never_completes_the_handshake_never_reaches_the_server() -> None:
    reached: list[Link] = []
    refused: list[tuple[str, Exception]] = []

    async def on_accept(link: Link) -> None:
        reached.append(link)

    server = await serve_links(on_accept, "127.0.0.1", 0, identity=SERVER_KEY,
                               handshake_timeout=0.3,
                               on_refused=lambda where, exc: refused.append((where, exc)))
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    start = time.monotonic()
    assert await asyncio.wait_for(reader.read(), 5) == b""  # silence: dropped at the deadline
    assert 0.25 < time.monotonic() - start < 2.0
    writer.close()
    assert reached == [] and len(refused) == 1
    assert isinstance(refused[0][1], HandshakeFailed)
    server.close()


def _cut_frame(client: Link) -> None:
    # Keepalives keep flowing after the cut frame; before the deadline rule they were
    # swallowed as its payload, a few bytes a second, and the reader waited for hours.
    client.send_stream(struct.pack(">I", 100_000) + b"only the start")


def _grown_record_length(client: Link) -> None:
    # What a flipped bit in a record's length prefix does: the receiver takes the
    # keepalive records that follow as this record's body, 22 bytes at a time.
    client._transport.write(struct.pack(">H", 60_000))


@pytest.mark.parametrize("stall", [_cut_frame, _grown_record_length],
                         ids=["a frame cut short", "a record length grown"])
async def test_a_frame_that_stops_arriving_breaks_the_link_within_the_deadline(
    stall: Callable[[Link], None],
) -> None:
    async with _paired(ping=0.05, dead=5.0, frame_deadline=0.5) as (client, srv):
        stall(client)
        await _fails_within(FrameStalled, srv, 0.5)


async def test_a_record_that_fails_authentication_breaks_the_link_at_once(
    pair: tuple[Link, Link],
) -> None:
    client, srv = pair
    client.send([b"genuine"])
    assert await srv.recv() == b"genuine"
    client._transport.write(struct.pack(">H", 30) + bytes(30))  # injected on the way
    with pytest.raises(RecordForged):
        await asyncio.wait_for(srv.recv(), 2)

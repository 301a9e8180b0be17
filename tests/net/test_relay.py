"""Two real peers through a recording, tampering man in the middle (real loopback TCP).

Whatever the relay does to the bytes (flip any byte, a length prefix or the handshake
included; drop, repeat, reorder or inject a record; cut every connection for a while;
replay a handshake captured in an earlier session, to either side, after both peers
restarted), the match completes, both game files are identical and both transcripts
verify: a record that fails authentication breaks only that connection, and the
session's resume exchange continues the match on the next one. And nothing the relay
records is plaintext. None of these cases needs the session's deadlines (a tampered
link breaks at the next record, and keepalives come every quarter second here).
"""

from __future__ import annotations

import asyncio
import random
import string
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from nacl.signing import SigningKey
from relay import (
    HOST_TO_JOINER,
    JOINER_TO_HOST,
    Record,
    Relay,
    Tamper,
    drop,
    duplicate,
    flip,
    inject,
    once,
    reorder,
)

from p2pgin.agents import RandomPlayer, run_agent
from p2pgin.engine.rules import Rules
from p2pgin.log.gamefile import TableFiles
from p2pgin.log.identity import fingerprint
from p2pgin.net.node import Node
from p2pgin.records import Status, transcript_of, verify_transcript
from p2pgin.session import Session
from p2pgin.session.events import LinkDown, LinkFailed

KEYS = SigningKey(bytes([11]) * 32), SigningKey(bytes([12]) * 32)
NAMES = "hostess", "joiner"
#: Short link timings so that a broken connection is noticed and replaced quickly.
FAST: dict[str, float] = {"ping_interval": 0.25, "dead_after": 2.0, "handshake_timeout": 2.0,
                          "frame_deadline": 2.0}
HOST, JOIN = 0, 1

During = Callable[[Node, Node, Relay], Awaitable[None]]


class Played:
    """A match played through the relay: the peers, the relay, what happened."""

    def __init__(self, host: Node, joiner: Node, relay: Relay) -> None:
        self.host, self.joiner, self.relay = host, joiner, relay
        self.events: list[Any] = []
        self.sent: list[bytes] = []  # every frame either peer sent (plaintext)

    @property
    def drops(self) -> list[str]:
        """Why links went down on the way (both peers)."""
        return [e.reason for e in self.events if isinstance(e, LinkDown) and e.reconnecting]


def make_peer(tmp: Path, role: int, seed: int) -> Node:
    if role == HOST:
        session = Session.host(KEYS[role], seats=2, game="gin", name=NAMES[role],
                               rules=Rules.preset("standard", target=10).to_dict(),
                               rng=random.Random(seed))
    else:
        session = Session.join(KEYS[role], name=NAMES[role], rng=random.Random(seed))
    files = TableFiles({"role": role}, directory=tmp / NAMES[role])
    return Node(session, files, identity=KEYS[role], linger=0.5, **FAST)


async def play_through(tmp: Path, tamper: Tamper | None = None, *, seed: int = 1,
                       during: During | None = None,
                       setup: Callable[[Relay], None] | None = None) -> Played:
    host, joiner = make_peer(tmp, HOST, seed), make_peer(tmp, JOIN, seed + 1)
    port = await host.listen("127.0.0.1", 0)
    relay = Relay(port, tamper)
    if setup is not None:
        setup(relay)
    played = Played(host, joiner, relay)
    for peer in (host, joiner):
        peer.on_sent = played.sent.extend
    joiner.dial("127.0.0.1", await relay.start())
    agents = [asyncio.create_task(run_agent(p, RandomPlayer(random.Random(seed + 10 + i)),
                                            on_event=played.events.append))
              for i, p in enumerate((host, joiner))]
    try:
        if during is not None:
            await asyncio.wait_for(during(host, joiner, relay), 60)
        async with asyncio.timeout(120):
            while not (host.finished and joiner.finished):
                await asyncio.sleep(0.02)
            # NB: the last entry reaches the other seat before both are done with it
            while host.session.machine is None or joiner.session.machine is None or (
                    len(host.session.machine.chain) != len(joiner.session.machine.chain)):
                await asyncio.sleep(0.02)
    finally:
        for task in agents:
            task.cancel()
        await asyncio.gather(*agents, return_exceptions=True)
        await host.aclose()
        await joiner.aclose()
        await relay.close()
    return played


def check_completed(played: Played) -> None:
    """Both finished the match cleanly, with the same game file and a verifying
    transcript each."""
    host, joiner = played.host, played.joiner
    assert host.view.stage == joiner.view.stage == "match_over", played.drops
    assert host.error is None and joiner.error is None
    assert host.session.ending is None and joiner.session.ending is None
    paths = []
    for peer in (host, joiner):
        assert peer.files is not None and peer.files.path is not None
        paths.append(peer.files.path)  # closed by aclose, as the cli does at exit
    assert paths[0].read_bytes() == paths[1].read_bytes()
    for peer, key in zip((host, joiner), KEYS, strict=True):
        assert peer.session.machine is not None
        report = verify_transcript(transcript_of(peer.session.machine, key))
        assert report.ok and report.status is Status.FINISHED, report.lines()


def mid_match(direction: str, index: int = 40) -> Callable[[Record], bool]:
    """The ``index``-th record one way on the first connection (well into the match)."""
    return lambda r: r.conn == 1 and r.direction == direction and r.index == index


def _runs_of_printable(data: bytes, at_least: int) -> list[bytes]:
    printable = set(string.printable.encode()) - set(b"\t\n\r\x0b\x0c")
    runs, start = [], None
    for i, byte in enumerate(data):
        if byte in printable:
            start = i if start is None else start
        else:
            if start is not None and i - start >= at_least:
                runs.append(data[start:i])
            start = None
    return runs


async def test_a_recorded_match_contains_no_plaintext(tmp_path: Path) -> None:
    played = await play_through(tmp_path)
    check_completed(played)
    wire = b"".join(bytes(b) for b in played.relay.sent.values())
    assert len(wire) > 50_000 and played.sent
    # No piece of any frame either peer sent (JSON, hellos with names and keys, every
    # entry, card and share) appears on the wire: 16-byte windows, every 8 bytes.
    seen = {wire[i:i + 16] for i in range(len(wire) - 15)}
    leaks = [frame for frame in played.sent
             if any(frame[i:i + 16] in seen for i in range(0, len(frame) - 15, 8))]
    assert leaks == []
    for needle in (*(bytes(k.verify_key) for k in KEYS),
                   *(bytes(k.verify_key).hex().encode() for k in KEYS),
                   *(fingerprint(k.verify_key).encode() for k in KEYS),
                   *(name.encode() for name in NAMES), b'"type"', b'"ctl"', b'"sig"'):
        assert needle not in wire
    # Nor anything text-like: random bytes make 24 printable characters in a row about
    # once in 10^10 positions.
    assert _runs_of_printable(wire, 24) == []


CASES: dict[str, Tamper] = {
    "a flipped byte (host to joiner)": once(mid_match(HOST_TO_JOINER), flip(20)),
    "a flipped byte (joiner to host)": once(mid_match(JOINER_TO_HOST, 20), flip(-1, 0x80)),
    "a length prefix grown by 32768": once(mid_match(HOST_TO_JOINER), flip(0, 0x80)),
    "a length prefix changed by one": once(mid_match(JOINER_TO_HOST, 20), flip(1, 0x01)),
    "a dropped record": once(mid_match(HOST_TO_JOINER), drop),
    "a repeated record": once(mid_match(JOINER_TO_HOST, 20), duplicate),
    "two records reordered": reorder(mid_match(HOST_TO_JOINER)),
    "an injected record": once(mid_match(HOST_TO_JOINER), inject(bytes(range(40)))),
    "a flipped byte in handshake message 1": once(
        lambda r: r.conn == 1 and r.direction == JOINER_TO_HOST and r.index == 0, flip(10)),
    "a flipped byte in handshake message 2": once(
        lambda r: r.conn == 1 and r.direction == HOST_TO_JOINER and r.index == 0, flip(150)),
    "a flipped length of handshake message 3": once(
        lambda r: r.conn == 1 and r.direction == JOINER_TO_HOST and r.index == 1, flip(1)),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_tampering_breaks_a_connection_never_the_match(tmp_path: Path, case: str) -> None:
    tamper = CASES[case]
    played = await play_through(tmp_path, tamper)
    assert tamper.hit, "the tampering never happened"  # type: ignore[attr-defined]
    assert played.relay.connections() >= 2, "no connection was broken"
    check_completed(played)
    if "handshake" not in case:
        assert any("record_forged" in why or "frame_stalled" in why
                   for why in played.drops), played.drops


async def test_a_cut_link_heals_and_the_match_goes_on(tmp_path: Path) -> None:
    async def cut_and_heal(host: Node, joiner: Node, relay: Relay) -> None:
        while host.view.stage != "play":
            await asyncio.sleep(0.01)
        relay.partitioned = True  # the cable is pulled: nothing gets through for a while
        await relay.cut()
        while joiner.link != "reconnecting" or host.link != "reconnecting":
            await asyncio.sleep(0.01)
        await asyncio.sleep(1.0)
        relay.partitioned = False

    played = await play_through(tmp_path, during=cut_and_heal)
    assert played.relay.connections() >= 3  # refused ones while cut, then a good one
    check_completed(played)


async def _handshake_of(relay: Relay, conn: int) -> tuple[list[bytes], list[bytes]]:
    """(joiner's records, host's records) of a connection the relay carried."""
    return ([r.data for r in relay.records_of(conn, JOINER_TO_HOST)],
            [r.data for r in relay.records_of(conn, HOST_TO_JOINER)])


async def _read_record(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readexactly(2)
    return head + await reader.readexactly(int.from_bytes(head, "big"))


async def test_a_handshake_captured_earlier_gets_nowhere_on_either_side_after_restarts(
    tmp_path: Path,
) -> None:
    # Session 1: the man in the middle records a whole match between the two players.
    first = await play_through(tmp_path / "first")
    check_completed(first)
    joiner_said, host_said = await _handshake_of(first.relay, 1)
    assert len(joiner_said) > 3 and len(host_said) > 3

    # Session 2, both programs restarted (same identities, new matches). To the joiner
    # the relay plays the host on its first connection, answering with the host's
    # messages it captured; later it plays the joiner to the host, with the joiner's
    # captured handshake messages and records.
    async def fake_host(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_record(reader)  # the joiner's fresh first message
        writer.write(b"".join(host_said))  # the old second message, then old records
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), 5) == b""  # the joiner hangs up

    async def fake_joiner(host: Node, joiner: Node, relay: Relay) -> None:
        while host.view.stage != "play":
            await asyncio.sleep(0.01)
        reader, writer = await asyncio.open_connection("127.0.0.1", relay.host_port)
        writer.write(joiner_said[0])
        await _read_record(reader)  # the host's fresh second message
        writer.write(b"".join(joiner_said[1:]))  # the old third message, then old records
        assert await asyncio.wait_for(reader.read(), 5) == b""  # dropped, nothing said
        writer.close()

    played = await play_through(tmp_path / "second", seed=5, during=fake_joiner,
                                setup=lambda relay: relay.impersonate.update({1: fake_host}))
    assert played.relay.connections() >= 2  # the fake host's, then the real one
    failed = [e.reason for e in played.events if isinstance(e, LinkFailed)]
    assert any(why.startswith("handshake:") for why in failed), played.events
    check_completed(played)

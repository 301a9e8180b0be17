"""A hostile peer over real TCP: every kind of bad frame gets its typed, signed error.

The honest side is a real ``p2pgin host`` process. The other side is this test: a real
joiner session driven over a real socket, which plays honestly up to a chosen point and
then sends something bad. The host must answer with a signed error frame naming the
broken rule, keep the offending bytes as evidence next to its game file, and its game
file must hold exactly the honest log, nothing of the bad frame.
"""

from __future__ import annotations

import asyncio
import random
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from nacl.signing import SigningKey
from peerproc import PeerProc, fast_dir, game_files

from p2pgin.agents import RandomPlayer
from p2pgin.engine.moves import DrawStock
from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.entry import Entry, sign_entry
from p2pgin.log.store import read_game_file
from p2pgin.net.transport import Link, open_link
from p2pgin.session import JOIN, Session
from p2pgin.session.messages import MoveMessage

HOST_ARGS = ("host", "--listen", "127.0.0.1", "--port", "0", "--no-announce",
             "--agent", "random", "--target", "10", "--seed", "11")


class Client:
    """An in-test joiner: a real session pumped over a real socket by hand."""

    def __init__(self, session: Session, link: Link) -> None:
        self.session = session
        self.link = link
        self.player = RandomPlayer(random.Random(6))
        self.sent: list[bytes] = []
        #: After a reconnect: do not act before the host's log head arrived (as Peer does).
        self.resyncing = False
        #: The identity the client's links prove.
        self.key = SigningKey.generate()

    def flush(self) -> list[bytes]:
        self.session.entries_to_persist()
        self.session.secrets_to_persist()
        frames = self.session.frames_to_send()
        self.link.send(frames)
        self.sent.extend(f for f in frames if b'"sig"' in f)
        return frames

    async def play_until(self, stop: Callable[[Session], bool], timeout: float = 30) -> None:
        async with asyncio.timeout(timeout):
            while not stop(self.session):
                view = self.session.view
                if view.my_turn and view.legal_moves and not self.resyncing:
                    self.session.act(self.player(view))
                    self.flush()
                    continue
                data = await self.link.recv()
                assert data is not None, f"host closed early (stage {self.session.view.stage})"
                self.session.receive_frame(data)
                self.resyncing = False
                self.flush()

    async def error_from_host(self) -> Entry:
        """Read until the host's signed error frame arrives."""
        async with asyncio.timeout(10):
            while True:
                data = await self.link.recv()
                assert data is not None, "host closed without a signed error"
                obj = canonical_loads(data)
                if isinstance(obj, dict) and obj.get("type") == "error":
                    return Entry.from_bytes(data)


async def connect(port: int) -> Client:
    key = SigningKey.generate()
    session = Session.create(key, role=JOIN, name="mallory",
                             rng=random.Random(5))
    client = Client(session, await open_link("127.0.0.1", port, identity=key))
    client.key = key
    session.connection_made()
    client.flush()
    return client


def in_play(s: Session) -> bool:
    return s.view.stage == "play"


def my_turn_after_a_move(s: Session) -> bool:
    v = s.view
    return v.stage == "play" and v.my_turn and any(e.sender == JOIN and e.type == "move"
                                                   for e in s.log)


def hosts_turn(s: Session) -> bool:
    v = s.view
    return v.stage == "play" and v.hand is not None and v.hand.to_move == 0 and not v.my_turn


def _malformed(c: Client) -> None:
    c.link.send([b'{"seq": 1, "type": "move"'])


def _forged(c: Client) -> None:
    view = c.session.view
    c.session.act(c.player(view))
    c.session.entries_to_persist()
    c.session.secrets_to_persist()
    frames = c.session.frames_to_send()
    obj = canonical_loads(frames[0])
    assert isinstance(obj, dict)
    sig = str(obj["sig"])
    obj["sig"] = ("0" if sig[0] != "0" else "1") + sig[1:]
    c.link.send([canonical_dumps(obj)])


def _replayed(c: Client) -> None:
    mine = [e for e in c.session.log if e.sender == JOIN]
    c.link.send([mine[-1].to_bytes()])


def _out_of_turn(c: Client) -> None:
    s = c.session
    entry = sign_entry(
        s._key,  # the joiner's own, genuine key: only the turn is wrong
        session=s.session_id, seq=len(s.log), prev=s.log[-1].hash(), sender=JOIN,
        type="move", body=MoveMessage(move=DrawStock(), open=None).to_body(),
    )
    c.link.send([entry.to_bytes()])


CASES: dict[str, tuple[Callable[[Session], bool], Callable[[Client], None], str]] = {
    "malformed": (in_play, _malformed, "malformed"),
    "forged signature": (my_turn_after_a_move, _forged, "signature"),
    "replayed entry": (my_turn_after_a_move, _replayed, "replay"),
    "out of turn": (hosts_turn, _out_of_turn, "turn"),
}


@pytest.fixture
def tmp(tmp_path: Path) -> Iterator[Path]:
    with fast_dir(tmp_path) as path:
        yield path


def _check_host_log_intact(home: Path, client: Client) -> list[Entry]:
    (game,) = game_files(home)
    stored = read_game_file(game)
    honest = [e for e in client.session.hellos if e is not None] + list(client.session.log)
    assert len(stored) >= 2 + len([e for e in client.session.log if e.sender == JOIN])
    n = min(len(stored), len(honest))
    assert stored[:n] == honest[:n]
    # everything the host stored is a valid continuation of the honest log, in the open
    assert all(e.type != "error" for e in stored)
    return stored


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_frame_gets_a_signed_typed_error_and_the_honest_log_stays_intact(
    tmp: Path, case: str
) -> None:
    stop, attack, rule = CASES[case]
    host = PeerProc(tmp / "host", *HOST_ARGS)
    try:
        port = host.port()

        async def scenario() -> tuple[Client, Entry]:
            client = await connect(port)
            await client.play_until(stop)
            attack(client)
            error = await client.error_from_host()
            await client.link.close()
            return client, error

        client, error = asyncio.run(scenario())
        result = host.result(timeout=30)
    finally:
        host.stop()
    assert error.body["rule"] == rule
    assert error.sender == 0
    # the error frame is signed by the host's identity key (the one in its hello)
    host_hello = client.session.hellos[0]
    assert host_hello is not None
    from p2pgin.log.entry import verify_signature

    verify_signature(error, bytes.fromhex(host_hello.body["key"]))
    assert f"[{rule}]" in result["error"]
    assert result["evidence"], "the offending bytes are kept"
    evidence = Path(result["evidence"][0])
    assert evidence.parent == game_files(tmp / "host")[0].parent
    assert f"rule: {rule}" in evidence.with_suffix(".txt").read_text()
    _check_host_log_intact(tmp / "host", client)


def test_an_oversize_frame_drops_the_connection_and_the_match_goes_on(tmp: Path) -> None:
    host = PeerProc(tmp / "host", *HOST_ARGS)
    try:
        port = host.port()

        async def scenario() -> Client:
            client = await connect(port)
            await client.play_until(in_play)
            # Inside the encryption: only the authenticated peer can send this.
            client.link.send_stream(struct.pack(">I", (1 << 20) + 1) + b"x" * 100)
            # The host hangs up; frames already in flight are dropped here (the resume
            # exchange sends them again).
            while await client.link.recv() is not None:
                pass
            await client.link.close()
            # The same (honest) session reconnects: the resume exchange picks up the game.
            client.link = await open_link("127.0.0.1", port, identity=client.key)
            client.session.connection_made()
            client.resyncing = True
            client.flush()
            await client.play_until(lambda s: s.view.stage == "match_over", timeout=60)
            await client.link.finish(timeout=2)
            return client

        try:
            client = asyncio.run(scenario())
        except BaseException:
            print(host.output)
            raise
        result = host.result(timeout=30)
    finally:
        host.stop()
    assert result["stage"] == "match_over" and result["error"] is None
    evidence: list[Any] = sorted(game_files(tmp / "host")[0].parent.glob("*.evidence-*.txt"))
    assert evidence and "rule: frame_too_large" in evidence[0].read_text()
    stored = _check_host_log_intact(tmp / "host", client)
    assert len(stored) == 2 + len(client.session.log)

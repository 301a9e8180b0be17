"""Adapters read the session's model (issue 25 §6): ``Node.model``, ``Node.log()`` and
``Node.wait_until``, which is woken by changes instead of polling."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from nacl.signing import SigningKey

from p2pgin.engine.rules import Rules
from p2pgin.log.gamefile import TableFiles, read_table
from p2pgin.net.node import Node
from p2pgin.records import transcript_of
from p2pgin.session import Session

K0, K1 = SigningKey(bytes([1]) * 32), SigningKey(bytes([2]) * 32)


def _host(tmp_path: Path, target: int = 10) -> Node:
    session = Session.host(K0, seats=2, game="gin", rules=Rules(target=target).to_dict(),
                           name="ann", rng=random.Random(1))
    return Node(session, TableFiles({"role": "host"}, directory=tmp_path / "ann"),
                identity=K0, linger=0.2)


def _joiner(tmp_path: Path) -> Node:
    session = Session.join(K1, name="bob", rng=random.Random(2))
    return Node(session, TableFiles({"role": "join"}, directory=tmp_path / "bob"),
                identity=K1, linger=0.2)


def _random_agent(node: Node, rng: random.Random) -> None:
    def go() -> None:
        view = node.view
        if view.my_turn and view.legal_moves and not node.done:
            node.act(rng.choice(view.legal_moves))

    node.on_change(go)


async def test_wait_until_is_false_at_its_deadline_and_once_the_seat_stops(
        tmp_path: Path) -> None:
    node = _host(tmp_path)
    try:
        assert not node.model.formed and node.model.me == 0
        assert await node.wait_until(lambda m: m.formed, timeout=0.05) is False
        assert await node.wait_until(lambda m: m.role.value == "host", timeout=0) is True
        asyncio.get_running_loop().call_later(0.05, node.give_up, "test")
        async with asyncio.timeout(5):
            assert await node.wait_until(lambda m: m.formed) is False  # NB: no deadline
        assert node.done
    finally:
        await node.aclose()


async def test_the_model_shows_the_table_forming_and_the_match_ending(tmp_path: Path) -> None:
    n0, n1 = _host(tmp_path), _joiner(tmp_path)
    _random_agent(n0, random.Random(3))
    _random_agent(n1, random.Random(4))
    port = await n0.listen("127.0.0.1", 0)
    n1.dial("127.0.0.1", port)
    try:
        assert await n0.wait_until(lambda m: m.formed and bool(m.linked_seats), 60)
        model = n0.model
        assert [(s.seat, s.name, s.key) for s in model.seats] == [
            (0, "ann", bytes(K0.verify_key)), (1, "bob", bytes(K1.verify_key))]
        assert model.linked_seats == {1} and model.session_id
        assert n0.model is n0.model  # NB: one value per change, not one per read
        assert await n0.wait_until(lambda m: m.finished, 120)
        assert await n1.wait_until(lambda m: m.finished, 60)
        log = n0.log()
        assert log is not None and n0.model.log_length == len(log.entries)
        assert n0.model.match is not None and n0.model.hands_played >= 1
        _, stored = read_table(next((tmp_path / "ann").glob("*.log")))
        assert tuple(stored) == log.entries
        machine = n0.session.machine
        assert machine is not None
        # NB: a transcript made from the log the session tells equals one made from its
        # machine, byte for byte
        meta = {"saved": "2026-01-01T00:00:00Z"}
        assert (transcript_of(log, K0, meta=meta).to_bytes()
                == transcript_of(machine, K0, meta=meta).to_bytes())
    finally:
        await n0.aclose()
        await n1.aclose()

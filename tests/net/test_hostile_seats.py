"""Cheating and silent seats over real loopback sockets and private links: every way a
match can end is recorded, and both seats' transcripts verify with the verdict naming
the right seat and what the console shows for it.

A "stalling" seat here is a real node whose session simply never makes one kind of
step (its share of a drawn card, its shuffle); a lying seat forges a signed ending. The
honest seat's deadline is short (0.3 s) so that the tests are quick.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nacl.signing import SigningKey

from p2pgin.agents import RandomPlayer
from p2pgin.engine.rules import Rules
from p2pgin.log.entry import sign_entry
from p2pgin.log.gamefile import TableFiles
from p2pgin.net.node import Deadlines, Node
from p2pgin.records import Status, transcript_of, verify_transcript
from p2pgin.session import EndKind, Owed, Session
from p2pgin.session.events import Overdue

KEYS = SigningKey(bytes([21]) * 32), SigningKey(bytes([22]) * 32)
NAMES = ("ann", "bob")
QUICK = Deadlines(person=0.3, step=0.3)


def _agent(node: Node, rng: random.Random) -> None:
    player = RandomPlayer(rng)

    def go() -> None:
        view = node.view
        if view.my_turn and view.legal_moves and not node.done:
            node.act(player(view))

    node.on_change(go)


async def _until(check: Callable[[], bool], timeout: float = 60.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.02)


async def _table(tmp: Path, *, seed: int = 1) -> tuple[Node, Node]:
    host = Session.host(KEYS[0], seats=2, game="gin", rules=Rules(target=100).to_dict(),
                        name=NAMES[0], rng=random.Random(seed))
    join = Session.join(KEYS[1], name=NAMES[1], rng=random.Random(seed + 1))
    nodes = (Node(host, TableFiles({}, directory=tmp / NAMES[0]), identity=KEYS[0],
                  deadlines=QUICK, linger=0.3),
             Node(join, TableFiles({}, directory=tmp / NAMES[1]), identity=KEYS[1],
                  deadlines=QUICK, linger=0.3))
    port = await nodes[0].listen("127.0.0.1", 0)
    nodes[1].dial("127.0.0.1", port)
    return nodes


def _never(session: Session, owed: Owed) -> None:
    """Make ``session`` a seat that never makes steps of kind ``owed`` (it stalls)."""
    make = session._make

    def stalling(due: Any) -> Any:
        return None if due.owed is owed else make(due)

    session._make = stalling  # type: ignore[method-assign]


def _verdicts(nodes: tuple[Node, Node]) -> list[Any]:
    out = []
    for node, key in zip(nodes, KEYS, strict=True):
        assert node.session.machine is not None
        report = verify_transcript(transcript_of(node.session.machine, key))
        assert report.ok and report.status in (Status.ENDED, Status.REFUTED), report.lines()
        out.append(report)
    return out


async def _end_when_overdue(waiter: Node, owed: str) -> Overdue:
    await _until(lambda: waiter.overdue is not None and waiter.overdue.owed == owed, 60)
    overdue = waiter.overdue
    assert overdue is not None
    waiter.end_silent(f"no {owed}")
    return overdue


async def test_a_seat_that_withholds_its_share_is_named_with_the_share_it_owes(
        tmp_path: Path) -> None:
    nodes = await _table(tmp_path, seed=3)
    _never(nodes[1].session, Owed.SHARE)  # bob never gives ann the card she draws
    _agent(nodes[0], random.Random(4))
    _agent(nodes[1], random.Random(5))
    try:
        overdue = await _end_when_overdue(nodes[0], "share")
        assert overdue.seat == 1 and not overdue.person
        await _until(lambda: nodes[1].session.ending is not None, 10)
        for node in nodes:
            ending = node.session.ending
            assert ending is not None and ending.kind is EndKind.TIMEOUT
            assert ending.culprit == 1 and ending.owed == "share" and ending.hand_cut
            assert ending.headline(NAMES) == (
                "ann ended the match: bob did not send its share in time.")
        for report in _verdicts(nodes):
            assert report.ending is not None and report.ending.culprit == 1
    finally:
        for node in nodes:
            await node.aclose()


async def test_a_seat_that_withholds_its_shuffle_is_named(tmp_path: Path) -> None:
    nodes = await _table(tmp_path, seed=7)
    _never(nodes[0].session, Owed.SHUFFLE)  # ann never shuffles
    try:
        await _end_when_overdue(nodes[1], "shuffle")
        await _until(lambda: nodes[0].session.ending is not None, 10)
        for node in nodes:
            ending = node.session.ending
            assert ending is not None and ending.culprit == 0 and ending.owed == "shuffle"
        _verdicts(nodes)
    finally:
        for node in nodes:
            await node.aclose()


async def test_a_fake_accusation_is_refuted_and_names_the_accuser(tmp_path: Path) -> None:
    nodes = await _table(tmp_path, seed=9)
    _agent(nodes[0], random.Random(10))
    _agent(nodes[1], random.Random(11))
    try:
        await _until(lambda: nodes[0].view.hand_no >= 1 and nodes[0].view.stage == "play" and (
            len(nodes[0].session.machine.chain) > 12))  # type: ignore[union-attr]
        # Bob, losing, accuses ann's last (honest) entry, signed by himself. (Play goes
        # on: the lie may cross ann's next move; the verdict is the same either way.)
        machine = nodes[1].session.machine
        assert machine is not None
        honest = next(e for e in reversed(machine.chain.entries) if e.sender == 0)
        lie = sign_entry(KEYS[1], session=machine.session_id, seq=len(machine.chain),
                         prev=machine.chain.head, sender=1, type="end",
                         body={"kind": "accuse", "seat": 0, "rule": "illegal", "owed": "",
                               "evidence": [honest.to_dict()], "reason": "she cheated"})
        link = next(iter(nodes[1]._links.values()))
        link.send([lie.to_bytes()])
        await _until(lambda: nodes[0].session.ending is not None, 10)
        ending = nodes[0].session.ending
        assert ending is not None and ending.kind is EndKind.ACCUSE
        assert ending.culprit == 1 and ending.rule == "claim"
        assert ending.headline(NAMES) == (
            "bob made a false claim, refuted by the log (caught by ann).")
        report = verify_transcript(transcript_of(nodes[0].session.machine, KEYS[0]))  # type: ignore[arg-type]
        assert report.ok and report.ending is not None and report.ending.culprit == 1
    finally:
        for node in nodes:
            await node.aclose()


async def test_a_seat_that_abandons_is_named_and_both_records_agree(tmp_path: Path) -> None:
    nodes = await _table(tmp_path, seed=13)
    _agent(nodes[0], random.Random(14))
    _agent(nodes[1], random.Random(15))
    try:
        await _until(lambda: nodes[1].view.stage == "play")
        nodes[1].abandon("losing")
        await _until(lambda: nodes[0].session.ending is not None, 10)
        left = nodes[1].session.ending
        assert left is not None and left.kind is EndKind.ABANDON and left.culprit == 1
        assert left.headline(NAMES) == "bob abandoned the match."
        # Ann may have moved on before the record reached her: then her log keeps her
        # moves and ends with a crossing naming bob's abandonment. Nothing is removed.
        theirs = nodes[0].session.ending
        assert theirs is not None and theirs.culprit == 1
        assert theirs.kind is EndKind.ABANDON or (
            theirs.kind is EndKind.CROSSED and theirs.crossed is not None
            and theirs.crossed[0] == "abandon")
        _verdicts(nodes)
    finally:
        for node in nodes:
            await node.aclose()

"""A seat resumed alone (issue 24, part 5): its deadlines run from the resume, so it ends
the wait for the seats that do not come back; when one does, the match finishes. A seat
back after the others finished gets the rest from them: a finished computer seat
(run_seat, as ``p2pgin bot`` runs it) stays up while the seat away is not known to hold
the end, hands it over and stops, or stops at its bound (Deadlines.deliver).

Real nodes over loopback sockets and private links, at tables of two and three; each
seat's game file is restored as ``p2pgin resume`` restores it (Session.restore over the
file and its secrets).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nacl.signing import SigningKey

from p2pgin.agents import RandomPlayer
from p2pgin.cli.seat import Front, SeatRun, run_seat
from p2pgin.engine.gin_moves import BigGin, Knock
from p2pgin.engine.rules import Rules
from p2pgin.log.gamefile import TableFiles, read_table
from p2pgin.log.store import GameStore
from p2pgin.net.node import Deadlines, Node
from p2pgin.session import EndKind, Output, Session

KEYS = tuple(SigningKey(bytes([60 + n]) * 32) for n in range(3))
NAMES = ("ann", "bob", "cid")
#: Long enough that no wait ends while the table plays normally.
PATIENT = Deadlines(person=60, step=60)
#: A computer that ends a silent seat's wait itself, quickly.
QUICK = Deadlines(person=0.5, step=0.5, auto_end=True)


def _agent(node: Node, seed: int, *, ends: bool = True) -> None:
    """``node``'s seat played by a random player at each change. It knocks when it can
    (matches to 10 end soon); with ``ends`` false it never knocks nor goes big gin, so
    the match is still live however many entries the table plays (a hand drawn down to
    the last cards is void and dealt again)."""
    player = RandomPlayer(random.Random(seed))
    rng = random.Random(seed)

    def choose(view: Any) -> Any:
        move = player(view)
        if ends or not isinstance(move, Knock | BigGin):
            return move
        return rng.choice([m for m in view.legal_moves if not isinstance(m, Knock | BigGin)])

    def go() -> None:
        view = node.view
        if view.my_turn and view.legal_moves and not node.done:
            node.act(choose(view))

    node.on_change(go)


async def _until(check: Callable[[], bool], timeout: float = 60.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.02)


async def _table(tmp: Path, seats: int, *, deadlines: Deadlines = PATIENT,
                 agents: bool = True, ends: bool = True) -> list[Node]:
    """A table of ``seats`` nodes linked over loopback, each with its game file under
    ``tmp``; with ``agents``, each seat played by a random player from here (that ends
    the match only with ``ends``: see :func:`_agent`)."""
    game = "gin" if seats == 2 else "gin3"
    host = Session.host(KEYS[0], seats=seats, game=game, rules=Rules(target=10).to_dict(),
                        name=NAMES[0], rng=random.Random(1))
    nodes = [Node(host, TableFiles({}, directory=tmp / NAMES[0]), identity=KEYS[0],
                  deadlines=deadlines, linger=0.2)]
    port = await nodes[0].listen("127.0.0.1", 0)
    for n in range(1, seats):
        session = Session.join(KEYS[n], name=NAMES[n], rng=random.Random(1 + n))
        node = Node(session, TableFiles({}, directory=tmp / NAMES[n]), identity=KEYS[n],
                    deadlines=deadlines, linger=0.2)
        session.listening_on(await node.listen("127.0.0.1", 0))
        node.dial("127.0.0.1", port)
        nodes.append(node)
    for n, node in enumerate(nodes):
        if agents:
            _agent(node, 10 + n, ends=ends)
    return nodes


def _restore(tmp: Path, seat: int, deadlines: Deadlines) -> Node:
    (game,) = (tmp / NAMES[seat]).glob("*.log")
    store = GameStore(game)
    hellos, entries = read_table(game)
    session = Session.restore(KEYS[seat], hellos, entries, store.read_secrets(),
                              rng=random.Random(40 + seat))
    node = Node(session, TableFiles({}, store=store), identity=KEYS[seat],
                deadlines=deadlines, linger=0.2)
    _agent(node, 20 + seat)
    return node


async def _played_then_all_gone(tmp: Path, seats: int, entries: int) -> list[int]:
    """A table plays ``entries`` entries of a match still live, then every seat's program
    stops; the ports the seats listened on.

    NB: the deal differs from run to run (the hellos carry the ports the system gave), so
    a player that knocks may end the match before ``entries`` (seen at 17) or with them,
    and a finished match is no match to resume: the table's players never end it here,
    the restored seats' do."""
    nodes = await _table(tmp, seats, ends=False)
    try:
        await _until(lambda: all(n.session.machine is not None
                                 and len(n.session.machine.chain) >= entries for n in nodes))
        assert not any(n.finished for n in nodes)
    finally:
        ports = [n.port or 0 for n in nodes]
        for node in nodes:
            await node.aclose()
    return ports


async def _alone_ends_within_its_deadline(tmp: Path, seats: int, seat: int) -> None:
    ports = await _played_then_all_gone(tmp, seats, 24)
    node = _restore(tmp, seat, QUICK)
    started = time.monotonic()
    try:
        await node.listen("127.0.0.1", 0)
        for other, port in enumerate(ports):
            if other != seat:
                node.dial("127.0.0.1", port)  # nobody is there any more
        await _until(lambda: node.session.ending is not None, 30)
        took = time.monotonic() - started
        ending = node.session.ending
        assert ending is not None and ending.kind is EndKind.TIMEOUT
        assert ending.by == seat and ending.culprit != seat
        # its own steps take no time; the others' wait ends at its deadline
        assert took < 10, took
    finally:
        await node.aclose()


async def test_a_seat_resumed_alone_at_two_seats_ends_the_wait_within_its_deadline(
        tmp_path: Path) -> None:
    await _alone_ends_within_its_deadline(tmp_path, 2, 1)


async def test_a_seat_resumed_alone_at_three_seats_ends_the_wait_within_its_deadline(
        tmp_path: Path) -> None:
    await _alone_ends_within_its_deadline(tmp_path, 3, 2)


async def _alone_then_the_others_return(tmp: Path, seats: int, first: int) -> None:
    await _played_then_all_gone(tmp, seats, 24)
    alone = _restore(tmp, first, PATIENT)
    nodes = [alone]
    try:
        mine = await alone.listen("127.0.0.1", 0)
        await asyncio.sleep(1.0)  # alone: nothing ends, nothing is lost
        assert alone.session.ending is None
        others = []
        for seat in range(seats):
            if seat != first:
                node = _restore(tmp, seat, PATIENT)
                await node.listen("127.0.0.1", 0)
                others.append(node)
        nodes += others
        # every seat that comes back reaches the one that waited (and, through its
        # table frame, each other)
        for node in others:
            node.dial("127.0.0.1", mine)
        await _until(lambda: all(n.finished for n in nodes), 240)
        assert all(n.session.ending is None for n in nodes)
        logs = {b"".join(e.to_bytes() for e in n.session.machine.chain)  # type: ignore[union-attr]
                for n in nodes}
        assert len(logs) == 1
    finally:
        for node in nodes:
            await node.aclose()


async def test_a_seat_resumed_alone_at_two_seats_finishes_when_the_other_returns(
        tmp_path: Path) -> None:
    await _alone_then_the_others_return(tmp_path, 2, 1)


async def test_a_seat_resumed_alone_at_three_seats_finishes_when_the_others_return(
        tmp_path: Path) -> None:
    await _alone_then_the_others_return(tmp_path, 3, 0)


def _without_heads(node: Node) -> None:
    """``node`` tells nobody where its log stands (no head frames): the others cannot
    know it holds the match's end, as when its program stopped before the end came."""
    send = node._send

    def quiet(out: Output) -> None:
        send(Output(send=tuple((lid, frame) for lid, frame in out.send
                               if not frame.startswith(b'{"ctl":"head"'))))

    node._send = quiet  # type: ignore[method-assign]


async def test_a_seat_back_after_the_others_finished_gets_the_rest_from_them(
        tmp_path: Path) -> None:
    # a table of three finishes while one seat's program is down: its game file stops
    # at its own last entry (it had nothing more to sign), the others' at the end
    nodes = await _table(tmp_path, 3)
    for node in nodes:
        _without_heads(node)
    restored: Node | None = None
    try:
        await _until(lambda: all(n.finished for n in nodes), 240)
        chain = nodes[0].session.machine.chain  # type: ignore[union-attr]
        gone = 0 if chain[-1].sender != 0 else 1
        last = max(e.seq for e in chain if e.sender == gone)
        others = [n for s, n in enumerate(nodes) if s != gone]
        # the others do not know the seat that was away holds the end: they stay up
        assert all(gone in n.session.undelivered for n in others)
        await nodes[gone].aclose()
        (game,) = (tmp_path / NAMES[gone]).glob("*.log")
        with GameStore(game) as store:
            store.truncate(len(read_table(game)[0]) + last + 1)
        short = len(chain) - last - 1
        assert short > 0
        restored = _restore(tmp_path, gone, PATIENT)
        assert not restored.finished
        await restored.listen("127.0.0.1", 0)
        for node in others:  # NB: p2pgin resume dials every other seat it knows of
            restored.dial("127.0.0.1", node.port or 0)
        await _until(lambda: restored is not None and restored.finished, 30)
        mine = restored.session.machine
        assert mine is not None and mine.chain.head == chain.head
        assert restored.session.ending is None
        # and the others now know it holds the end: nothing is left to deliver
        # (each of the others may still doubt the other: no head frames went between them)
        await _until(lambda: not any(gone in n.session.undelivered for n in others), 10)
    finally:
        for node in nodes:
            await node.aclose()
        if restored is not None:
            await restored.aclose()


def _computer_seat(node: Node, seed: int) -> SeatRun:
    """``node`` played as ``p2pgin bot`` plays a seat (run_seat, a computer's front), at a
    table where nobody waits for a rematch: once the match is over it stays up only
    while a seat is not known to hold the last entries."""
    async def started() -> None:  # NB: the table's nodes listen and dial already
        return None

    return SeatRun(node=node, identity=None, start=started, say=lambda line: None,
                   front=Front(kind="agent", choose=RandomPlayer(random.Random(seed))),
                   rematch_wait=0.0, linger=0.2)


async def _a_finished_computer_seat_waits_for_the_seat_away(tmp: Path, *, back: bool,
                                                           deliver: float) -> None:
    nodes = await _table(tmp, 2, deadlines=Deadlines(person=60, step=60, deliver=deliver),
                         agents=False)
    for node in nodes:
        _without_heads(node)
    runs = [asyncio.ensure_future(run_seat(_computer_seat(node, 30 + seat)))
            for seat, node in enumerate(nodes)]
    restored: Node | None = None
    try:
        await _until(lambda: all(n.finished for n in nodes), 120)
        finished = time.monotonic()
        chain = nodes[0].session.machine.chain  # type: ignore[union-attr]
        gone = 1 - chain[-1].sender  # the seat that did not sign the match's last entry
        stays, staying = nodes[1 - gone], runs[1 - gone]
        await nodes[gone].aclose()  # its program stops before it held the end
        assert await asyncio.wait_for(runs[gone], 10) == 0
        (game,) = (tmp / NAMES[gone]).glob("*.log")
        last = max(e.seq for e in chain if e.sender == gone)
        with GameStore(game) as store:
            store.truncate(len(read_table(game)[0]) + last + 1)
        # several lingers later the finished seat is still up, the other seat unlinked:
        # it is not known to hold the end
        await asyncio.sleep(1.5)
        assert not staying.done() and gone in stays.session.undelivered
        if not back:
            # nobody comes back: the wait has its bound (Deadlines.deliver), then it stops
            assert await asyncio.wait_for(staying, deliver + 10) == 0
            assert time.monotonic() - finished > deliver - 0.5
            return
        restored = _restore(tmp, gone, PATIENT)
        assert not restored.finished
        await restored.listen("127.0.0.1", 0)
        restored.dial("127.0.0.1", stays.port or 0)
        await _until(lambda: restored is not None and restored.finished, 30)
        mine = restored.session.machine
        assert mine is not None and mine.chain.head == chain.head
        assert restored.session.ending is None
        # handed over: the finished seat stops at once, long before its bound
        assert await asyncio.wait_for(staying, 10) == 0
        assert time.monotonic() - finished < deliver
    finally:
        for run in runs:
            run.cancel()
        for node in nodes:
            await node.aclose()
        if restored is not None:
            await restored.aclose()


async def test_a_finished_computer_seat_stays_up_to_hand_the_end_to_the_seat_back(
        tmp_path: Path) -> None:
    await _a_finished_computer_seat_waits_for_the_seat_away(tmp_path, back=True,
                                                           deliver=60.0)


async def test_a_finished_computer_seat_waits_for_a_seat_away_only_until_its_bound(
        tmp_path: Path) -> None:
    await _a_finished_computer_seat_waits_for_the_seat_away(tmp_path, back=False,
                                                           deliver=4.0)

"""Seats as real asyncio nodes over real loopback sockets and private links: a match
completes with identical game files; a silent seat is named by its deadline; a stranger
cannot touch a formed table; a seat that crashed resumes from its game file."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from pathlib import Path

from nacl.signing import SigningKey

from p2pgin.agents import RandomPlayer
from p2pgin.engine.rules import Rules
from p2pgin.log.gamefile import TableFiles, read_table
from p2pgin.log.store import GameStore
from p2pgin.net.node import Deadlines, Node, Overdue
from p2pgin.net.transport import open_link
from p2pgin.session import EndKind, Session

K0, K1 = SigningKey(bytes([1]) * 32), SigningKey(bytes([2]) * 32)


def _random_agent(node: Node, rng: random.Random) -> None:
    """A seeded random player that knocks when it can (``--agent random``): a move drawn
    uniformly from the legal ones would seldom knock and a match to 10 would take some
    thirty hands, each a full mental-poker deal."""
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


async def _pair(tmp_path: Path, *, target: int = 10, deadlines: Deadlines | None = None
                ) -> tuple[Node, Node]:
    host = Session.host(K0, seats=2, game="gin", rules=Rules(target=target).to_dict(),
                        name="ann", rng=random.Random(1))
    join = Session.join(K1, name="bob", rng=random.Random(2))
    n0 = Node(host, TableFiles({"role": "host"}, directory=tmp_path / "ann"), identity=K0,
              deadlines=deadlines, linger=0.2)
    n1 = Node(join, TableFiles({"role": "join"}, directory=tmp_path / "bob"), identity=K1,
              deadlines=deadlines, linger=0.2)
    port = await n0.listen("127.0.0.1", 0)
    n1.dial("127.0.0.1", port)
    return n0, n1


def _game_file(directory: Path) -> Path:
    (path,) = directory.glob("*.log")
    return path


async def test_two_nodes_finish_a_match_with_identical_game_files(tmp_path: Path) -> None:
    n0, n1 = await _pair(tmp_path, target=30)  # NB: more than one hand, most deals
    _random_agent(n0, random.Random(3))
    _random_agent(n1, random.Random(4))
    try:
        await _until(lambda: n0.finished and n1.finished, 120)
    finally:
        await n0.aclose()
        await n1.aclose()
    assert _game_file(tmp_path / "ann").read_bytes() == _game_file(tmp_path / "bob").read_bytes()
    hellos, entries = read_table(_game_file(tmp_path / "ann"))
    assert len(hellos) == 2 and entries


async def test_a_silent_seat_is_reported_and_the_wait_ends_naming_it(tmp_path: Path) -> None:
    n0, n1 = await _pair(tmp_path, deadlines=Deadlines(person=0.3, step=0.3))
    try:
        await _until(lambda: n0.view.stage == "play" and n1.view.stage == "play")
        due = n0.session.due
        assert due is not None
        waiter, silent = (n1, n0) if due.seat == 0 else (n0, n1)
        await _until(lambda: waiter.overdue is not None, 5)
        overdue = waiter.overdue
        assert isinstance(overdue, Overdue) and overdue.seat == due.seat
        assert overdue.owed == "move" and overdue.person
        waiter.end_silent("no move")
        await _until(lambda: silent.session.ending is not None, 5)
        for node in (n0, n1):
            ending = node.session.ending
            assert ending is not None and ending.kind is EndKind.TIMEOUT
            assert ending.culprit == due.seat
    finally:
        await n0.aclose()
        await n1.aclose()


async def test_a_computer_ends_the_wait_by_itself(tmp_path: Path) -> None:
    n0, n1 = await _pair(tmp_path, deadlines=Deadlines(person=0.3, step=0.3, auto_end=True))
    try:
        await _until(lambda: n0.session.ending is not None and n1.session.ending is not None,
                     10)
        assert n0.session.ending == n1.session.ending
    finally:
        await n0.aclose()
        await n1.aclose()


async def test_a_stranger_cannot_touch_a_formed_table(tmp_path: Path) -> None:
    n0, n1 = await _pair(tmp_path)
    try:
        await _until(lambda: n0.view.stage == "play")
        entries = len(n0.session.machine.chain)  # type: ignore[union-attr]
        stranger = await open_link("127.0.0.1", n0.port or 0, identity=SigningKey(b"\x07" * 32))
        stranger.send([b'{"ctl":"need","from":0}', b"junk"])
        # The host says the table is full (a lobby frame offering no seat) and closes
        # the connection: no entry, nothing else (issue 23, bug 6).
        frames = []
        async with asyncio.timeout(5):
            try:
                while (got := await stranger.recv()) is not None:
                    frames.append(json.loads(got))
            except (ConnectionError, OSError):
                pass
        assert [(f["ctl"], f["seat"]) for f in frames] == [("lobby", None)]
        await stranger.close()
        assert n0.session.ending is None
        assert len(n0.session.machine.chain) >= entries  # type: ignore[union-attr]
    finally:
        await n0.aclose()
        await n1.aclose()


async def test_a_crashed_seat_resumes_from_its_game_file(tmp_path: Path) -> None:
    n0, n1 = await _pair(tmp_path)
    rng0, rng1 = random.Random(5), random.Random(6)
    _random_agent(n0, rng0)
    _random_agent(n1, rng1)
    await _until(lambda: n1.view.hand_no >= 1 and len(n1.session.machine.chain) > 30)  # type: ignore[union-attr]
    assert not n1.finished  # it dies mid-match
    await n1.aclose()  # the joiner's process dies (its game file stays)
    game = _game_file(tmp_path / "bob")
    store = GameStore(game)
    hellos, entries = read_table(game)
    secrets = store.read_secrets()
    restored = Session.restore(K1, hellos, entries, secrets)
    n1b = Node(restored, TableFiles({"role": "join"}, store=store), identity=K1, linger=0.2)
    _random_agent(n1b, rng1)
    n1b.dial("127.0.0.1", n0.port or 0)
    try:
        await _until(lambda: n0.finished and n1b.finished, 120)
    finally:
        await n0.aclose()
        await n1b.aclose()
    assert _game_file(tmp_path / "ann").read_bytes() == game.read_bytes()



async def test_a_table_of_three_nodes_meshes_and_finishes_with_identical_game_files(
        tmp_path: Path) -> None:
    keys = [SigningKey(bytes([n + 1]) * 32) for n in range(3)]
    host = Session.host(keys[0], seats=3, game="gin3", rules=Rules(target=10).to_dict(),
                        name="s0", rng=random.Random(1))
    nodes = [Node(host, TableFiles({"role": "host"}, directory=tmp_path / "s0"),
                  identity=keys[0], linger=0.2)]
    port = await nodes[0].listen("127.0.0.1", 0)
    for n in (1, 2):
        join = Session.join(keys[n], name=f"s{n}", rng=random.Random(n + 1))
        node = Node(join, TableFiles({"role": "join"}, directory=tmp_path / f"s{n}"),
                    identity=keys[n], linger=0.2)
        join.listening_on(await node.listen("127.0.0.1", 0))
        nodes.append(node)
    for n, node in enumerate(nodes):
        _random_agent(node, random.Random(10 + n))
    nodes[1].dial("127.0.0.1", port)
    await _until(lambda: nodes[0].view.seated[1] == "s1" if nodes[0].view.seated else False)
    nodes[2].dial("127.0.0.1", port)
    try:
        await _until(lambda: all(node.finished for node in nodes), 180)
        # Seat 2 dialled seat 1 itself (the mesh), where the host told it seat 1 listens.
        assert 1 in nodes[2].session.links.values()
        # Each seat knows where the others listen (what resume dials).
        listening = {n: f"127.0.0.1:{node.port}" for n, node in enumerate(nodes)}
        for n, node in enumerate(nodes):
            assert node.addresses == {s: a for s, a in listening.items() if s != n}
    finally:
        for node in nodes:
            await node.aclose()
    files = {_game_file(tmp_path / f"s{n}").read_bytes() for n in range(3)}
    assert len(files) == 1

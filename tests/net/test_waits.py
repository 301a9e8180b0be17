"""Every wait outside the match has its end too (issue 24, part 5): a joiner whose host
is gone in the lobby is told and stops (a bot exits saying why); a rematch offer nobody
answers lapses; a bot warns when a name it knows comes with another key.

Real nodes over loopback sockets, and for the bot, real ``p2pgin`` processes.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Callable
from pathlib import Path

from nacl.signing import SigningKey

from p2pgin.agents import RandomPlayer
from p2pgin.engine.rules import Rules
from p2pgin.net.node import Deadlines, Node
from p2pgin.records import proven_result
from p2pgin.session import LocalProtocolError, RematchOffer, Session
from p2pgin.session.events import LinkDown, Overdue
from tests.net.peerproc import PeerProc, fast_dir, stopped_at_exit

KEYS = tuple(SigningKey(bytes([80 + n]) * 32) for n in range(3))


async def _until(check: Callable[[], bool], timeout: float = 60.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.02)


async def test_a_joiner_in_the_lobby_is_told_its_host_is_gone_and_stops() -> None:
    host = Node(Session.host(KEYS[0], seats=3, game="gin3", rules=Rules().to_dict(),
                             name="ann", rng=random.Random(1)), None, identity=KEYS[0])
    port = await host.listen("127.0.0.1", 0)
    joiner = Node(Session.join(KEYS[1], name="bob", rng=random.Random(2)), None,
                  identity=KEYS[1], deadlines=Deadlines(host_gone=1.0))
    try:
        joiner.dial("127.0.0.1", port)
        await _until(lambda: joiner.session.my_hello is not None, 10)
        await host.aclose()  # the host's program stops: a lobby of three, one seated
        gone = time.monotonic()
        await _until(lambda: joiner.done, 15)
        assert time.monotonic() - gone < 10
        last = [e for e in joiner.drain_events() if isinstance(e, LinkDown)][-1]
        assert not last.reconnecting and "is gone" in last.reason, last
    finally:
        await joiner.aclose()


async def _finished_pair(deadlines: Deadlines) -> tuple[Node, Node]:
    host = Session.host(KEYS[0], seats=2, game="gin", rules=Rules(target=10).to_dict(),
                        name="ann", rng=random.Random(3))
    join = Session.join(KEYS[1], name="bob", rng=random.Random(4))
    nodes = (Node(host, None, identity=KEYS[0], deadlines=deadlines, linger=0.2),
             Node(join, None, identity=KEYS[1], deadlines=deadlines, linger=0.2))
    for node, seed in zip(nodes, (5, 6), strict=True):
        player = RandomPlayer(random.Random(seed))

        def go(node: Node = node, player: RandomPlayer = player) -> None:
            view = node.view
            if (view.my_turn and view.legal_moves and not node.done
                    and view.stage != "match_over"):
                node.act(player(view))

        node.on_change(go)
    port = await nodes[0].listen("127.0.0.1", 0)
    nodes[1].dial("127.0.0.1", port)
    await _until(lambda: all(n.finished for n in nodes), 120)
    return nodes


async def test_a_rematch_offer_nobody_answers_lapses_at_its_deadline() -> None:
    nodes = await _finished_pair(Deadlines(person=0.5, step=0.5))
    offerer, silent = nodes
    try:
        offerer.act(RematchOffer())
        await _until(lambda: offerer.overdue is not None, 10)
        overdue = offerer.overdue
        assert isinstance(overdue, Overdue) and overdue.owed == "rematch_answer"
        offerer.end_silent("no answer")  # once "not live"; now the offer lapses
        await _until(lambda: offerer.done, 5)
        # the match before the offer stands, finished, in the record
        machine = offerer.session.machine
        assert machine is not None and offerer.session.ending is None
        assert proven_result(machine)["status"] == "finished"
        last = [e for e in offerer.drain_events() if isinstance(e, LinkDown)][-1]
        assert "rematch offer lapsed" in last.reason
        del silent
    finally:
        for node in nodes:
            await node.aclose()


async def test_a_computer_lets_an_unanswered_rematch_offer_lapse_by_itself() -> None:
    nodes = await _finished_pair(Deadlines(person=0.5, step=0.5, auto_end=True))
    try:
        nodes[0].act(RematchOffer())
        await _until(lambda: nodes[0].done, 10)
        assert nodes[0].session.ending is None
    except LocalProtocolError:  # pragma: no cover - the other seat offered first
        raise
    finally:
        for node in nodes:
            await node.aclose()


def test_a_bot_warns_when_a_name_it_knows_comes_with_another_key(tmp_path: Path) -> None:
    from p2pgin.cli.localbot import bot_home
    from p2pgin.log.identity import KnownPeers

    with fast_dir(tmp_path) as base, stopped_at_exit() as procs:
        # the bot (the data directory h's bot) has met a "bob" with another key before
        home = bot_home(base / "h")
        home.mkdir(parents=True)
        os.chmod(home, 0o700)
        KnownPeers(home / "known_peers.json").remember("bob", bytes(KEYS[2].verify_key))
        bot = PeerProc(base / "h", "bot", "--level", "easy", "--port", "0", "--listen",
                       "127.0.0.1", "--no-announce", "--matches", "1", "--target", "10",
                       "--delay", "0")
        procs.append(bot)
        port = bot.port()
        joiner = PeerProc(base / "j", "join", f"127.0.0.1:{port}", "--agent", "random",
                          "--name", "bob", "--listen", "127.0.0.1")
        procs.append(joiner)
        line = bot.wait_line("@    WARNING: THE IDENTITY KEY OF THIS PEER HAS CHANGED!", 60)
        assert line
        joiner.result(120)

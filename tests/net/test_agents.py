"""run_agent over real loopback peers: it acts whenever it is its player's turn, waits
``delay`` before each move, raises what its strategy raises, and acts no more once it is
cancelled."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from loopback import start
from nacl.signing import SigningKey

from p2pgin.agents import RandomPlayer, run_agent
from p2pgin.engine.rules import Rules
from p2pgin.net.peer import Peer
from p2pgin.session import HOST, JOIN, Session


@pytest.fixture
async def pair() -> AsyncIterator[tuple[Peer, Peer]]:
    """A host and a joiner connected over loopback (no game files)."""
    keys = SigningKey(bytes([1] * 32)), SigningKey(bytes([2] * 32))
    host = Peer(Session.create(keys[0], role=HOST, name="host",
                               rules=Rules.preset("standard", target=10_000),
                               rng=random.Random(1)), None, identity=keys[0])
    joiner = Peer(Session.create(keys[1], role=JOIN, name="joiner",
                                 rng=random.Random(2)), None, identity=keys[1])
    serve, connect = await start(host, joiner)
    yield host, joiner
    for peer in (host, joiner):
        peer.give_up("test over")
    for task in (serve, connect):
        task.cancel()
    await asyncio.gather(serve, connect, return_exceptions=True)


async def until(peer: Peer, check: Any, within: float = 20) -> None:
    changed = asyncio.Event()
    peer.on_change(changed.set)
    async with asyncio.timeout(within):
        while not check():
            changed.clear()
            await changed.wait()


async def test_two_agents_play_hands_with_the_events_they_drain(
    pair: tuple[Peer, Peer],
) -> None:
    host, joiner = pair
    seen: list[str] = []
    agents = [asyncio.create_task(run_agent(host, RandomPlayer(random.Random(3)),
                                            on_event=lambda e: seen.append(type(e).__name__))),
              asyncio.create_task(run_agent(joiner, RandomPlayer(random.Random(4))))]
    await until(host, lambda: seen.count("AuditDone") >= 2)
    assert "MoveMade" in seen and "HandEnded" in seen
    for task in agents:
        task.cancel()
    await asyncio.gather(*agents, return_exceptions=True)


async def test_an_error_of_the_strategy_stops_the_agent_and_is_raised(
    pair: tuple[Peer, Peer],
) -> None:
    host, joiner = pair

    def broken(view: Any) -> Any:
        raise ValueError("no idea what to play")

    other = asyncio.create_task(run_agent(joiner, RandomPlayer(random.Random(4))))
    with pytest.raises(ValueError, match="no idea"):
        await asyncio.wait_for(run_agent(host, broken), 20)
    assert host.my_turn  # nothing was played for it
    other.cancel()
    await asyncio.gather(other, return_exceptions=True)


async def test_a_delayed_agent_waits_before_each_move(pair: tuple[Peer, Peer]) -> None:
    host, joiner = pair
    loop = asyncio.get_running_loop()
    turns: list[float] = []  # when the host's turn began, and when its move went out
    sent: list[float] = []
    was_my_turn = False

    def watch() -> None:
        nonlocal was_my_turn
        if host.my_turn and not was_my_turn:
            turns.append(loop.time())
        was_my_turn = host.my_turn

    host.on_change(watch)
    host.on_sent = lambda frames: sent.append(loop.time())
    agents = [asyncio.create_task(run_agent(host, RandomPlayer(random.Random(3)), delay=0.2)),
              asyncio.create_task(run_agent(joiner, RandomPlayer(random.Random(4))))]
    await until(host, lambda: host.view.hand is not None and len(host.view.hand.history) >= 6)
    for task in agents:
        task.cancel()
    await asyncio.gather(*agents, return_exceptions=True)
    moves = [t for t in turns if any(s >= t for s in sent)]
    assert len(moves) >= 2
    for began in moves:
        went = min(s for s in sent if s >= began)
        assert went - began >= 0.19  # (timer granularity)


async def test_a_cancelled_agent_acts_no_more(pair: tuple[Peer, Peer]) -> None:
    host, joiner = pair
    agents = [asyncio.create_task(run_agent(host, RandomPlayer(random.Random(3)))),
              asyncio.create_task(run_agent(joiner, RandomPlayer(random.Random(4))))]
    await until(host, lambda: host.view.hand is not None and len(host.view.hand.history) >= 4)
    agents[0].cancel()
    await asyncio.gather(agents[0], return_exceptions=True)
    await until(host, lambda: host.my_turn)
    log = len(host.session.log)
    await asyncio.sleep(0.3)
    assert host.my_turn and len(host.session.log) == log
    agents[1].cancel()
    await asyncio.gather(agents[1], return_exceptions=True)

"""The console application over real nodes on loopback (private links, real TCP): tables
of three and four gin players and Rummy played to the end by keys against bot agents, a
spectator's screen, a silent seat ended with ``E``, a seat whose link drops, and the
lobby screen until the table forms."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

import pytest
from nacl.signing import SigningKey
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from ui_screens import SizedOutput, live_screen_text
from ui_tables import default_rules

from p2pgin.agents import RandomPlayer, run_agent
from p2pgin.net.node import Deadlines, Node
from p2pgin.session import EndKind, Session, TablePolicy
from p2pgin.ui.app import ConsoleApp, create_console_app

NAMES = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo")


def _key(n: int) -> SigningKey:
    return SigningKey(bytes([n + 1]) * 32)


async def _until(check: Callable[[], bool], timeout: float = 60.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.02)


async def _table(game: str, seats: int, *, rules: dict[str, Any], seed: int = 1,
                 deadlines: Deadlines | None = None, watcher: bool = False,
                 agents: tuple[int, ...] | None = None,
                 people: tuple[int, ...] = ()) -> tuple[list[Node], list[Any]]:
    """``seats`` nodes on loopback (seat 0 hosts; each joiner listens too, for the mesh),
    seated in order; the seats in ``agents`` (default: all but 0) played by seeded
    random agents. A joiner's hello says it is a computer unless its seat is in
    ``people``. With ``watcher`` a spectator node is last in the list."""
    host = Session.host(_key(0), seats=seats, game=game, rules=rules, name=NAMES[0],
                        rng=random.Random(seed), policy=TablePolicy(allow_spectators=watcher))
    nodes = [Node(host, None, identity=_key(0), deadlines=deadlines, linger=0.2)]
    port = await nodes[0].listen("127.0.0.1", 0)
    for n in range(1, seats):
        join = Session.join(_key(n), name=NAMES[n], rng=random.Random(seed + n),
                            bot=n not in people)
        node = Node(join, None, identity=_key(n), deadlines=deadlines, linger=0.2)
        join.listening_on(await node.listen("127.0.0.1", 0))
        nodes.append(node)
        node.dial("127.0.0.1", port)
        await _until(lambda n=n: (bool(nodes[0].view.seated) and bool(
            nodes[0].view.seated[n])) or nodes[0].session.machine is not None, 20)
    tasks = [asyncio.ensure_future(run_agent(nodes[s], RandomPlayer(random.Random(seed * 7 + s))))
             for s in (agents if agents is not None else range(1, seats))]
    if watcher:
        spectator = Node(Session.watch(_key(9), name="watcher"), None, identity=_key(9),
                         linger=0.2)
        spectator.dial("127.0.0.1", port)
        nodes.append(spectator)
    return nodes, tasks


async def _close(nodes: list[Node], tasks: list[Any]) -> None:
    for task in tasks:
        task.cancel()
    for node in nodes:
        await node.aclose()


def _keys(built: ConsoleApp) -> str:
    """What a simple player presses now (read from the console like a person would)."""
    console = built.console
    table = console.table
    if console.choosing:
        return "1"
    if console.confirming:
        return "y"
    if console.ui.overlay:
        return "\x1b"
    if not table.my_turn:
        return ""
    acts = table.actions
    if table.game == "rummy":
        for key, act in (("s", "stock"), ("m", "meld"), ("a", "lay")):
            if act in acts:
                return key
        return "h\r"
    for key, act in (("p", "pass"), ("s", "stock"), ("gy", "gin"), ("ky", "knock"),
                     ("\r\r", "layoff")):
        if act in acts:
            return key
    return "h\r"


async def _play_by_keys(built: ConsoleApp, inp: Any, done: Callable[[], bool],
                        timeout: float = 240.0) -> None:
    async with asyncio.timeout(timeout):
        while not done():
            keys = _keys(built)
            if keys:
                inp.send_text(keys)
            await asyncio.sleep(0.03 if keys else 0.05)


async def _match_by_keys(game: str, seats: int, target: int, *, seed: int = 1,
                         columns: int = 80, rows: int = 24) -> tuple[list[str], Any, Any]:
    """The host's console plays ``game`` against agents to the end of the match by
    keys; returns the final screen, the table and the host's view."""
    nodes, tasks = await _table(game, seats, rules=default_rules(game, target), seed=seed)
    try:
        with create_pipe_input() as inp, create_app_session(
                input=inp, output=SizedOutput(columns, rows)):
            built = create_console_app(nodes[0], ascii=False)
            app = asyncio.ensure_future(built.app.run_async())
            await _play_by_keys(built, inp, lambda: nodes[0].view.stage == "match_over")
            await asyncio.sleep(0.2)
            built.console.close_overlay()
            inp.send_text("e")  # the match's totals
            await asyncio.sleep(0.1)
            screen = live_screen_text(built)
            table, view = built.console.table, nodes[0].view
            assert not built.console.ui.error, built.console.ui.message
            inp.send_text("\x1bq")
            assert await asyncio.wait_for(app, 5) == "quit"
    finally:
        await _close(nodes, tasks)
    return screen, table, view


async def test_three_player_gin_over_real_nodes_is_played_to_the_end_by_keys() -> None:
    screen, table, view = await _match_by_keys("gin3", 3, 20)
    text = "\n".join(screen)
    result = view.match.result()
    assert table.match_end is not None and table.match_end.winners == result.winners
    assert "the match." in text and "Net: " in text.replace("\n", " ")
    assert [line.points for line in table.seat_lines] == list(view.match.scores)
    log = [" ".join(str(p) for p in line.parts) for line in table.log]
    # (the dealer sits out: "You deal and sit out" when it is me)
    assert any("deals and sits out" in line or "deal and sit out" in line for line in log)
    assert any("each shuffle proven" in line for line in log), log


async def test_team_gin_over_real_nodes_is_played_to_the_end_by_keys() -> None:
    screen, table, view = await _match_by_keys("team_gin", 4, 20)
    assert table.match_end is not None
    won = table.match_end.winners
    assert set(won) in ({0, 2}, {1, 3})
    assert [t.points for t in table.teams] == list(view.match.teams.scores)
    assert "team won the match" in "\n".join(screen).lower() or "won the match" in \
        "\n".join(screen)


@pytest.mark.parametrize("seats", [3, 6])
async def test_rummy_over_real_nodes_is_played_to_the_end_by_keys(seats: int) -> None:
    screen, table, view = await _match_by_keys("rummy", seats, 15, seed=seats)
    assert table.match_end is not None
    assert [line.points for line in table.seat_lines] == list(view.match.totals)
    assert len(screen) == 24 and all(len(r) <= 80 for r in screen)


async def test_a_spectator_node_watches_a_match_with_no_key_acting() -> None:
    nodes, tasks = await _table("gin", 2, rules=default_rules("gin", 30), watcher=True,
                                agents=(0, 1))
    watcher = nodes[-1]
    try:
        await _until(lambda: watcher.view.stage == "play", 30)
        with create_pipe_input() as inp, create_app_session(input=inp,
                                                           output=SizedOutput(80, 24)):
            built = create_console_app(watcher)
            app = asyncio.ensure_future(built.app.run_async())
            await asyncio.sleep(0.3)
            inp.send_text("sdp\r")
            await asyncio.sleep(0.3)
            built.console.close_overlay()  # a hand's result may have opened meanwhile
            screen = "\n".join(live_screen_text(built))
            assert "WATCHING Ann vs Bob" in screen
            assert "Watching: you hold no cards" in screen
            assert built.console.table.watching == "spectator"
            inp.send_text("q")  # leaves at once
            assert await asyncio.wait_for(app, 5) == "quit"
        assert watcher.session.me is None
    finally:
        await _close(nodes, tasks)


async def test_a_silent_seat_over_real_nodes_is_ended_with_e_and_named() -> None:
    nodes, tasks = await _table("gin", 2, rules=default_rules("gin"), agents=(),
                                people=(1,), deadlines=Deadlines(person=0.4, step=5))
    host, silent = nodes
    try:
        await _until(lambda: host.view.stage == "play", 30)
        with create_pipe_input() as inp, create_app_session(input=inp,
                                                           output=SizedOutput(80, 24)):
            built = create_console_app(host)
            app = asyncio.ensure_future(built.app.run_async())
            if host.view.my_turn:
                inp.send_text("p" if "pass" in built.console.table.actions else "s")
            await _until(lambda: host.overdue is not None, 10)
            await asyncio.sleep(0.1)
            screen = live_screen_text(built)
            assert "Bob has not sent a move for" in screen[1]
            assert "E: end the match" in screen[-2]
            inp.send_text("E")
            await asyncio.sleep(0.1)
            assert "Bob will be named" in "\n".join(live_screen_text(built))
            inp.send_text("y")
            await _until(lambda: silent.session.ending is not None, 10)
            await asyncio.sleep(0.1)
            screen = " ".join(r.strip() for r in live_screen_text(built))
            inp.send_text("\x1bq")
            assert await asyncio.wait_for(app, 5) == "quit"
        for node in nodes:
            ending = node.session.ending
            assert ending is not None and ending.kind is EndKind.TIMEOUT and ending.culprit == 1
        assert "the record names Bob as the silent seat" in screen
    finally:
        await _close(nodes, tasks)


async def test_a_seat_whose_link_drops_is_marked_and_the_status_says_so() -> None:
    nodes, tasks = await _table("gin3", 3, rules=default_rules("gin3"), agents=(1, 2))
    try:
        await _until(lambda: nodes[0].view.stage == "play", 30)
        with create_pipe_input() as inp, create_app_session(input=inp,
                                                           output=SizedOutput(80, 24)):
            built = create_console_app(nodes[0])
            app = asyncio.ensure_future(built.app.run_async())
            await asyncio.sleep(0.2)
            tasks[1].cancel()
            await nodes[2].aclose()  # Cy's program is gone
            await _until(lambda: 2 in built.console.history.links_down, 10)
            await asyncio.sleep(0.1)
            built.console.refresh()
            built.console.close_overlay()
            built.console.cancel_choice(quiet=True)
            rows = live_screen_text(built)
            inp.send_text("qy")
            await asyncio.wait_for(app, 5)
        cy = next((r for r in rows if "│" in r and r.split("│")[1][1:].startswith("Cy")), "")
        assert "Cy*!" in cy, rows  # the seats panel marks a computer, its link down
        assert any("Link to Cy lost; trying again" in r for r in rows), rows
        assert not any("waits" in r for r in rows), rows  # play goes on meanwhile
    finally:
        await _close(nodes, tasks)


async def test_the_lobby_screen_shows_the_seats_filling_and_ends_when_the_table_forms(
        ) -> None:
    from p2pgin.ui.lobby_screen import run_lobby_screen

    host = Session.host(_key(0), seats=3, game="gin3", rules=default_rules("gin3"),
                        name="Ann", rng=random.Random(1))
    nodes = [Node(host, None, identity=_key(0), linger=0.2)]
    port = await nodes[0].listen("127.0.0.1", 0)
    seen: list[str] = []
    try:
        with create_pipe_input() as inp, create_app_session(input=inp,
                                                           output=SizedOutput(80, 24)):
            lobby = asyncio.ensure_future(run_lobby_screen(
                nodes[0], [f"address 127.0.0.1 port {port}"], ascii=True, announced=False))
            await asyncio.sleep(0.2)
            for n in (1, 2):
                join = Session.join(_key(n), name=NAMES[n], rng=random.Random(n + 1))
                node = Node(join, None, identity=_key(n), linger=0.2)
                join.listening_on(await node.listen("127.0.0.1", 0))
                nodes.append(node)
                node.dial("127.0.0.1", port)
                if n == 1:
                    await _until(lambda: bool(nodes[0].view.seated[1]), 20)
                    from p2pgin.ui.lobby_screen import LobbyScreen

                    seen = [t for _, t in LobbyScreen(
                        nodes[0], [f"address 127.0.0.1 port {port}"]).text_lines()]
            assert await asyncio.wait_for(lobby, 30) is True
    finally:
        for node in nodes:
            await node.aclose()
    text = "\n".join(seen)
    assert "Seats: 2 of 3 taken" in text and "2. Bob" in text and "3. (free)" in text
    assert f"address 127.0.0.1 port {port}" in text

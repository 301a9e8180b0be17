"""The table's lobby screen over real sessions: the host sees the seats fill, a joiner
answers the host's game and rules, and the screen ends when the table forms (True) or
the person stops or declines (False)."""

from __future__ import annotations

import asyncio
import random

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from ui_screens import SizedOutput
from ui_tables import SeatHandle

from p2pgin.engine.rules import Rules
from p2pgin.session import Session
from p2pgin.session.view import PlayerView
from p2pgin.ui.lobby_screen import LobbyScreen, run_lobby_screen
from tests.session.table_harness import Router, Seat, key

RULES = Rules(target=50).to_dict()


def _lobby(seats: int = 3, game: str = "gin3", *, asks: bool = False) -> Router:
    """A host's lobby (``ann``) and joiners ``bob``, ``cy`` (... not connected yet);
    ``bob`` asks before it takes a seat when ``asks``."""
    host = Session.host(key(0), seats=seats, game=game, rules=RULES, name="ann",
                        rng=random.Random(1))
    members = [Seat("ann", host, key(0))]
    for n, name in enumerate(("bob", "cy", "di", "ed", "flo")[:seats - 1], start=1):
        members.append(Seat(name, Session.join(key(n), name=name, rng=random.Random(n + 1),
                                               accept_rules=None if asks and n == 1 else True),
                            key(n)))
    return Router(members)


def _text(screen: LobbyScreen) -> str:
    return "\n".join(text for _, text in screen.text_lines())


def test_the_host_sees_the_seats_fill_as_players_join_until_the_table_forms() -> None:
    router = _lobby()
    host = SeatHandle(router, "ann")
    screen = LobbyScreen(host, ["address 192.168.1.7 port 7777", "join code K7QX-2M"])
    text = _text(screen)
    assert "three-player gin: waiting for players" in text
    assert "address 192.168.1.7 port 7777" in text and "join code K7QX-2M" in text
    assert "Game: three-player gin, 3 seats" in text
    assert "Rules: knock limit 10" in text and "match to 50" in text
    assert "Seats: 1 of 3 taken" in text
    assert "1. ann (you, host)" in text and "2. (free)" in text and "3. (free)" in text
    assert "p2pgin join` finds this table" in text
    router.connect("ann", "bob")
    router.pump()
    text = _text(screen)
    assert "Seats: 2 of 3 taken" in text and "2. bob" in text and "3. (free)" in text
    assert not screen.formed()
    router.connect("ann", "cy")
    router.pump()
    assert screen.formed()


def test_a_joiner_sees_the_hosts_game_and_rules_and_accepts_with_a() -> None:
    router = _lobby(asks=True)
    bob = SeatHandle(router, "bob")
    router.connect("ann", "bob")
    router.pump()
    screen = LobbyScreen(bob)
    assert screen.asks()
    text = _text(screen)
    assert "Game: three-player gin, 3 seats" in text
    assert "Rules: knock limit 10" in text
    assert "Take a seat at this table with these rules?" in text
    assert " a accept   x decline   R rules   q stop" in text
    screen.toggle_rules()  # R: the rules of the host's game, with its numbers
    rules = _text(screen)
    assert "Rules of this table: three-player gin" in rules and "knock limit 10" in rules
    assert "17. Three players: cutthroat (gin3)" in rules and " R back   a accept" in rules
    screen.toggle_rules()
    assert "Take a seat at this table with these rules?" in _text(screen)
    screen.accept()
    assert type(bob.sent[-1]).__name__ == "AcceptRules"
    assert not screen.asks() and "accepted" in screen.message
    router.connect("ann", "cy")
    router.pump()
    assert screen.formed() and bob.view.me is not None


def test_a_joiner_that_declines_leaves_the_lobby_and_the_host_keeps_waiting() -> None:
    router = _lobby(asks=True)
    bob = SeatHandle(router, "bob")
    router.connect("ann", "bob")
    router.pump()
    screen = LobbyScreen(bob)
    screen.decline()
    assert type(bob.sent[-1]).__name__ == "DeclineRules"
    assert screen.closed() and not screen.formed()
    host = LobbyScreen(SeatHandle(router, "ann"))
    assert "Seats: 1 of 3 taken" in _text(host)


def test_a_computer_seat_is_marked_in_the_lobby() -> None:
    """The lobby view's bot flags (a hello says a computer plays the seat) are shown."""
    view = PlayerView(me=0, seats=3, names=("ann", "bot-easy", ""), fingerprints=(),
                      game="gin3", rules=RULES, match=None, hand=None, hand_no=0,
                      stage="lobby", my_turn=False, legal_moves=(), last_result=None,
                      due=None, waiting_for="players: 2 of 3 seated",
                      seated=("ann", "bot-easy", ""), bots=(False, True, False))

    class Still:
        pass

    handle = Still()
    handle.view = view  # type: ignore[attr-defined]
    handle.link_problem = ""  # type: ignore[attr-defined]  # the seam's members it reads
    text = _text(LobbyScreen(handle))
    assert "2. bot-easy (computer)" in text and "1. ann (you, host)" in text


def _run(screen_handle: SeatHandle, keys: str, then: object = None) -> bool:
    async def main() -> bool:
        with create_pipe_input() as inp, create_app_session(input=inp,
                                                           output=SizedOutput(80, 24)):
            task = asyncio.ensure_future(run_lobby_screen(screen_handle, ["port 7777"],
                                                          ascii=True))
            await asyncio.sleep(0.05)
            inp.send_text(keys)
            await asyncio.sleep(0.05)
            if callable(then):
                then()
            return await asyncio.wait_for(task, 5)

    return asyncio.run(main())


def test_run_lobby_screen_returns_true_when_the_table_forms() -> None:
    router = _lobby(seats=2, game="gin")
    host = SeatHandle(router, "ann")

    def join() -> None:
        router.connect("ann", "bob")
        router.pump()
        host.changed()

    assert _run(host, "", then=join) is True


def test_run_lobby_screen_q_stops_and_x_declines() -> None:
    router = _lobby(seats=2, game="gin")
    assert _run(SeatHandle(router, "ann"), "q") is False
    router = _lobby(seats=2, game="gin", asks=True)
    bob = SeatHandle(router, "bob")
    router.connect("ann", "bob")
    router.pump()
    assert _run(bob, "x") is False
    assert type(bob.sent[-1]).__name__ == "DeclineRules"

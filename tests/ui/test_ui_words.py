"""The words a new player tripped over (issue 23, bug 11), each where the real console
says it, over real tables in memory (every seat a protocol-v2 session).

"You deals next and sits out" at a three-player match end; a spectator told "the
record is saved in your game file"; the loopback lobby mentioning a join code it does
not show; "Link to Kai lost; the match waits for it" while play goes on. (Players are
never "it" and a silent seat is said once: ``test_ui_trust``; engine words in a
``resume`` of a transcript: ``test_ui_tty_words``.)
"""

from __future__ import annotations

from dataclasses import replace

from ui_screens import console_session, play_until, press, screen_text
from ui_tables import SeatHandle, TableGame

from p2pgin.engine import Rules
from p2pgin.session import Session
from p2pgin.session.events import HandEnded, LinkDown
from p2pgin.ui.history import event_line
from p2pgin.ui.lobby_screen import LobbyScreen
from tests.session.table_harness import Router, Seat, key


def _text(rows: list[str]) -> str:
    return "\n".join(rows)


def test_the_last_hand_of_a_three_player_match_names_no_next_dealer() -> None:
    game = TableGame("gin3", 3, me=0, seed=4, names=("Ann", "Bob", "Cy"),
                     rules=Rules.preset("standard", target=10).to_dict())
    with console_session(game) as (built, _inp, _out):
        play_until(built, game, lambda: game.view.stage == "match_over")
        built.console.refresh()
        rows = press(built, "\x1b")  # the match's result closed: the table and the log
        log = [built.console.log_text(line) for line in built.console.table.log]
        overlay = _text(press(built, "e"))  # the last hand's result
    last = next(line for line in reversed(log) if line.startswith("Hand "))
    assert "deals next" not in last and "deal next" not in last, last
    assert "You deals" not in "\n".join(log)
    assert "deals the next hand" not in overlay, overlay
    assert "The match is over" in _text(rows)


def test_you_deal_next_is_said_in_the_second_person() -> None:
    game = TableGame("gin3", 3, me=0, seed=4, names=("Ann", "Bob", "Cy"))
    for _ in range(200):
        if game.view.last_result is not None:
            break
        if game.view.my_turn:
            game.act(game.choosers[0](game.view))
        game.play(20)
    result = game.view.last_result
    assert result is not None and result.loser is not None
    # the log's line of that hand, read by the seat that lost it
    loser_view = replace(game.view, me=result.loser)
    line = event_line(HandEnded(hand_no=1, result=result), loser_view)
    assert line is not None
    text = "".join(str(p) for p in line.parts)
    assert text.endswith("; you deal next and sit out."), text  # NB: mid-sentence


def test_a_spectator_is_not_told_of_a_game_file_it_does_not_have() -> None:
    game = TableGame("gin3", 3, me=None, seed=1)
    game.play(6)
    with console_session(game) as (built, _inp, _out):
        game.seat_does("Ann", lambda session: session.abandon("dinner"))
        screen = " ".join(r.strip() for r in screen_text(built))
    assert "Ann left the match" in screen, screen
    assert "your game file" not in screen
    assert "the players' game files" in screen


def test_the_loopback_lobby_mentions_no_join_code_it_does_not_show() -> None:
    host = Session.host(key(0), seats=3, game="gin3", rules=Rules.preset("standard").to_dict(),
                        name="ann")
    handle = SeatHandle(Router([Seat("ann", host, key(0))]), "ann")

    def told(lines: list[str]) -> str:
        return "\n".join(t for _, t in LobbyScreen(handle, lines).text_lines())

    loopback = told(["address 127.0.0.1 port 7777"])
    assert "join code" not in loopback, loopback
    assert "Tell the other players the address and port" in loopback
    assert "or the join code" in told(["address 192.168.1.7 port 7777", "join code K7QX-2M"])


def test_a_lost_link_at_a_table_of_three_does_not_say_the_match_waits() -> None:
    game = TableGame("gin3", 3, me=0, seed=1)
    game.seat.events.append(LinkDown(seat=2, reason="reset", reconnecting=True))
    with console_session(game) as (built, _inp, _out):
        screen = _text(screen_text(built))
    assert "Link to Cy lost; trying again" in screen, screen
    assert "waits" not in screen

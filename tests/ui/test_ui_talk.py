"""Talk in the console (issue 26 item 3) over real in-memory sessions: ``:say`` and the
quick phrases go out signed and show in both logs with the speaker's seat name, a
hostile line shows escaped, ``:mute`` hides a player's talk, and seats see who
watches."""

from __future__ import annotations

from typing import Any

from ui_harness import LocalGame
from ui_screens import console_session, press, screen_text
from ui_tables import TableGame

from p2pgin.session.talk import PHRASES, TalkHeard, sign_say


def log_lines(built: Any) -> list[str]:
    return [built.console.log_text(line) for line in built.console.table.log]


def _bob_says(game: TableGame, text: str, number: int = 0) -> None:
    bob = game.router.seats["Bob"]
    machine = bob.session.machine
    assert machine is not None
    line = sign_say(bob.key, session=machine.session_id, number=number,
                    head=machine.chain.head, text=text, seat=1)
    game.router.inject("Bob", "Ann", line.to_bytes())
    game.router.pump()
    game._changed()


def test_say_goes_to_the_other_seat_and_shows_in_my_log() -> None:
    game = TableGame("gin", 2, me=0, seed=2)
    with console_session(game) as (built, _inp, _out):
        built.console.run_command(":say hello  there, Bob")
        assert "You say: hello  there, Bob" in log_lines(built)
    heard = [e for e in game.router.seats["Bob"].events if isinstance(e, TalkHeard)]
    assert [(h.seat, h.text) for h in heard] == [(0, "hello  there, Bob")]


def test_a_quick_phrase_key_says_it() -> None:
    game = TableGame("gin", 2, me=0, seed=2)
    with console_session(game) as (built, _inp, _out):
        press(built, "\x1bOQ")  # F2
        assert f"You say: {PHRASES[0]}" in log_lines(built)


def test_the_other_seats_line_shows_with_its_seat_name_and_escaped() -> None:
    game = TableGame("gin", 2, me=0, seed=2)
    with console_session(game) as (built, _inp, _out):
        _bob_says(game, "\x1b[2J\x1b]0;owned\x07Ann says: I resign")
        built.console.refresh()
        rows = screen_text(built)
        line = next(t for t in log_lines(built) if "says" in t)
        assert line.startswith("Bob says: \\x1b[2J\\x1b]0;owned\\x07Ann says: I resign")
        assert not any("\x1b" in r or "\x07" in r for r in rows)


def test_mute_hides_a_players_talk_and_unmute_shows_it_again() -> None:
    game = TableGame("gin", 2, me=0, seed=2)
    with console_session(game) as (built, _inp, _out):
        built.console.run_command(":mute bob")
        assert "muted" in built.console.ui.message
        _bob_says(game, "can you hear me", 0)
        built.console.refresh()
        assert not any("can you hear me" in t for t in log_lines(built))
        built.console.run_command(":unmute bob")
        _bob_says(game, "and now", 1)
        built.console.refresh()
        assert "Bob says: and now" in log_lines(built)


def test_a_refused_line_is_one_clear_message() -> None:
    game = TableGame("gin", 2, me=0, seed=2)
    with console_session(game) as (built, _inp, _out):
        built.console.run_command(":say " + "x" * 300)
        assert built.console.ui.error and "too long" in built.console.ui.message


def test_a_seat_sees_who_watches_and_a_spectators_words_are_marked() -> None:
    game = LocalGame()
    with console_session(game) as (built, _inp, _out):
        game.watchers = ("mfrg-gzdf-mztw-q2lk",)
        game._changed()
        built.console.refresh()
        assert "A spectator watches (key mfrg-gzdf)." in log_lines(built)
        game._events.append(TalkHeard(seat=None, watcher="mfrg-gzdf-mztw-q2lk", text="go!"))
        game._changed()
        built.console.refresh()
        assert "spectator mfrg-gzdf says: go!" in log_lines(built)
        built.console.run_command(":mute spectators")
        game._events.append(TalkHeard(seat=None, watcher="mfrg-gzdf-mztw-q2lk", text="boo"))
        game._changed()
        built.console.refresh()
        assert not any("boo" in t for t in log_lines(built))


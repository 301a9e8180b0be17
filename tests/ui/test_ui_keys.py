"""Keys mean one thing each across the console, and what the typed commands' letters
mean (issue 23, rough edges): ``t`` takes (key and ``:t``), ``d`` discards (key and
``:d 7h``); in gin ``a`` and ``m`` say what they are for instead of answering with a
lobby's or Rummy's refusal, and ``t`` no longer opens Rummy's melds; an old error does
not stay on the status line. The help screen says the mapping.
"""

from __future__ import annotations

from ui_harness import LocalGame
from ui_screens import console_session, press, screen_text
from ui_tables import TableGame

from p2pgin.engine import PassUpcard


def _text(rows: list[str]) -> str:
    return "\n".join(rows)


def test_t_takes_and_d_discards_as_key_and_as_typed_command() -> None:
    game = LocalGame(3, autoplay=False)
    with console_session(game) as (built, _inp, _out):
        press(built, "t")  # the upcard
        assert game.sent[-1].kind == "take_upcard"
        card = built.console.cursor
        assert card is not None and card != built.console.table.taken
        press(built, "d")
        assert game.sent[-1].kind == "discard"
    game = LocalGame(3, autoplay=False)
    with console_session(game) as (built, _inp, _out):
        press(built, ":t\r")
        assert game.sent[-1].kind == "take_upcard"
        card = next(c for c in built.console.table.hand if c != built.console.table.taken)
        press(built, f":d {str(card).lower()}\r")
        assert game.sent[-1].kind == "discard"
        assert game.sent[-1].position == built.console.table.positions.get(card, game.sent[-1]
                                                                           .position)


def test_in_gin_a_m_and_t_do_gin_things_or_say_what_they_are_for() -> None:
    game = LocalGame(3, autoplay=False)
    with console_session(game) as (built, _inp, _out):
        press(built, "p")
        game.opponent_move(PassUpcard())
        rows = press(built, "a")
        assert "a lays a card off in Rummy; in gin, Enter lays off after a knock" in _text(rows)
        rows = press(built, "m")
        assert "m lays down a meld in Rummy; in gin, k knocks and g goes gin" in _text(rows)
        assert "not now" not in _text(rows) and "no meld in your hand" not in _text(rows)
        assert built.console.ui.overlay == ""  # t is not Rummy's melds overlay
        press(built, "s")
        assert game.sent[-1].kind == "draw_stock"


def test_in_rummy_k_says_it_is_gins_and_v_shows_the_melds_too() -> None:
    game = TableGame("rummy", 2, me=0, seed=5)
    with console_session(game) as (built, _inp, _out):
        rows = press(built, "k")
        assert "k is gin's knock: in Rummy, m lays down a meld and a lays a card off" in \
            _text(rows)
        rows = press(built, "v")
        assert "Discard pile" in _text(rows) and "Melds on the table" in _text(rows)


def test_an_old_error_does_not_stay_on_the_status_line() -> None:
    game = LocalGame(3, autoplay=False)
    with console_session(game) as (built, _inp, _out):
        rows = press(built, "s")
        assert "! first take the upcard" in _text(rows)
        rows = press(built, "\x1b[C")  # the next key: the error was about before
        assert "! " not in _text(rows[-4:])
        rows = press(built, "s")
        assert "! first take the upcard" in _text(rows)
        press(built, "p")
        game.opponent_move(PassUpcard())  # the table moves on
        built.console.refresh()
        assert "first take the upcard" not in _text(screen_text(built))


def test_the_help_screen_says_each_key_once_and_the_typed_letters_agree() -> None:
    with console_session(LocalGame(3)) as (built, _inp, _out):
        rows = press(built, "?")
    shown = [r for r in rows if r.startswith(" ") and len(r) > 13 and r[1] != " "]
    keys = [r[1:12].strip() for r in shown if not r.startswith(" Keys")]
    letters = [k for key in keys for k in key.split(" / ") if len(k) == 1]
    assert len(letters) == len(set(letters)), keys  # one line says what each key does
    assert "t" in letters and "d / Enter" in keys
    assert any("letters as the keys" in r for r in rows)

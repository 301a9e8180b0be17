"""Every panel renders into its width (issue 23, bug 8): no line wraps into the next
row or runs into the divider, names are cut visibly, and a wider terminal gives the
panels more room.

The screens here are the real console application drawn headless (``ui_screens``)
over real tables in memory (``ui_tables``, every seat a protocol-v2 session) and the
scripted two-seat game (``ui_harness``), with the long names the default bots had;
``screen_check`` says what a well-drawn screen never shows.
"""

from __future__ import annotations

import pytest
from screen_check import layout_faults
from ui_harness import LocalGame, deck_for
from ui_screens import console_session, press, screen_text
from ui_tables import TableGame

from p2pgin.engine import Rules
from p2pgin.session.events import Overdue

LONG = ("bot-normal", "Ann", "bot-normal-2", "bot-normal-3")


def _sitting_out() -> TableGame:
    return TableGame("gin3", 3, me=1, seed=1, names=LONG[:3], pace=0,
                     bots=(True, False, True))


def _team() -> TableGame:
    return TableGame("team_gin", 4, me=1, seed=2, names=LONG)


def _rummy() -> TableGame:
    return TableGame("rummy", 6, me=1, seed=3,
                     names=("bot-normal", "Ann", "bot-normal-2", "bot-normal-3",
                            "bot-normal-4", "bot-normal-5"))


def _oklahoma_ace() -> LocalGame:
    deck = deck_for("AC 3D 5H 7C QH JS KH 2H 4C 6D", "8C 9C TC 9D 9H 9S 5S 6S 7S KD", "AS",
                    "QD 2D")
    return LocalGame(deck=deck, names=("Alice", "bot-normal-2"), rules=Rules.preset("oklahoma"),
                     autoplay=False)


def _silent() -> TableGame:
    game = TableGame("gin3", 3, me=0, seed=2, names=("Ann", "bot-normal", "bot-normal-2"))
    due = game.session.due
    assert due is not None
    event = Overdue(seat=due.seat, owed=due.owed.value, waited=95.0, person=due.person)
    game.overdue = event
    game.seat.events.append(event)
    return game


def _match_over() -> TableGame:
    game = TableGame("gin3", 3, me=0, seed=4, names=("Ann", "bot-normal", "bot-normal-2"),
                     rules=Rules.preset("standard", target=10).to_dict())
    for _ in range(400):
        if game.view.stage == "match_over":
            break
        game.play(50)
    assert game.view.stage == "match_over"
    return game


TABLES = {"gin3 sitting out": _sitting_out, "team gin": _team, "rummy for 6": _rummy,
          "oklahoma ace upcard": _oklahoma_ace, "silent seat": _silent,
          "gin3 match over": _match_over}


@pytest.mark.parametrize("size", [(80, 24), (72, 20), (120, 32)])
@pytest.mark.parametrize("what", sorted(TABLES))
def test_no_line_crosses_a_divider_or_reaches_the_edge(what: str, size: tuple[int, int]
                                                       ) -> None:
    game = TABLES[what]()
    columns, rows = size
    with console_session(game, columns=columns, rows=rows) as (built, _inp, _out):
        screens = ["\n".join(screen_text(built))]
        for key in ("\x1b", "i", "\x1b", "e", "e", "\x1b", "?"):  # overlays too
            screens.append("\n".join(press(built, key)))
    for screen in screens:
        assert layout_faults(screen, columns) == [], screen


def test_a_wider_terminal_gives_the_side_panel_room_for_whole_names() -> None:
    def seats_rows(columns: int) -> list[str]:
        with console_session(_sitting_out(), columns=columns, rows=24) as (built, _i, _o):
            rows = screen_text(built)
        top = next(i for i, r in enumerate(rows) if r.startswith("─ Table"))
        return [r.split("│")[1] for r in rows[top + 1:top + 5]]

    narrow, wide = seats_rows(80), seats_rows(120)
    assert any("bot-normal…*" in r for r in narrow), narrow  # cut, visibly
    assert any("bot-normal-2*" in r for r in wide), wide  # the whole name
    assert len(wide[0]) > len(narrow[0])

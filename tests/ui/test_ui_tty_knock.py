"""The knocker's melds fit the table panel at 80x24 (a real terminal, a scripted deal).

The opponent knocks with three melds; their line was wider than the 49 columns the
table panel has at 80 columns, so it wrapped in the middle of a card ("3[5" / "♠ 6♠").
Each meld must stay whole on one row, inside the panel.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from realterm import ROOT, Term, p2pgin_env, requires_tty, term_name

pytestmark = requires_tty

MELDS = ("1[8♣ 9♣ 10♣]", "2[9♦ 9♥ 9♠]", "3[5♠ 6♠ 7♠]")


@pytest.fixture(params=["80x24", "72x20"])
def term(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Term]:
    t = Term(term_name("knock"), request.param,
             [sys.executable, str(ROOT / "tests" / "ui" / "scripted_console.py"),
              "opponent-knocks-three-melds"], p2pgin_env(tmp_path))
    try:
        yield t
    finally:
        t.stop()


def test_the_opponents_three_melds_each_stay_whole_inside_the_table_panel(term: Term) -> None:
    term.wait(r"Your turn: take the upcard", 30)
    term.keys("p")  # the opponent passes too
    term.wait(r"draw from the stock \(s\)", 10)
    term.keys("s")
    term.wait(r"Enter discard", 10)
    term.keys("Enter")  # the opponent draws 2♦ and knocks
    screen = term.wait(r"Enter lay off", 10)
    rows = screen.splitlines()
    top = next(i for i, r in enumerate(rows) if r.startswith("─ Table"))
    bottom = next(i for i, r in enumerate(rows) if r.startswith("─ Hand"))
    panel = [r.split("│")[0] for r in rows[top + 1:bottom]]
    for meld in MELDS:
        assert any(meld in row for row in panel), f"{meld} is not whole on a row:\n{screen}"
    assert any("bot-normal knocked" in row for row in panel)
    assert any("Stock" in row for row in panel) and any("Knock limit" in row for row in panel)

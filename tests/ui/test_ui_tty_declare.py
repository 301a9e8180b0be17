"""The declaration editor in a real terminal (issue 23, bug 10): after the opponent
knocks with 4♣ 4♥ 4♠, ``m`` on my A♣ never lays it off there (it fits no meld: it stays
in the deadwood and the console says so, in the screen's card symbols), while 4♦ goes
onto the fours. The game is scripted (``scripted_console.py``) so the deal is known.
"""

from __future__ import annotations

import sys
from pathlib import Path

from realterm import ROOT, Term, p2pgin_env, requires_tty, term_name
from screen_check import layout_faults

pytestmark = requires_tty


def _cursor_to(term: Term, label: str) -> str:
    """Move the cursor (Right) until the ``^^^`` mark is under ``label``; the screen."""
    screen = term.screen()
    for _ in range(12):
        rows = screen.splitlines()
        at = next(i for i, r in enumerate(rows) if f" {label} " in f"{r} " and "│" not in r[:2]
                  and i > 2 and rows[i + 1].strip().startswith(("^", "1", "2", "3")))
        column = rows[at].index(label)
        if rows[at + 1][column - 1:column + 2] == "^^^":
            return screen
        term.keys("Right")
        screen = term.wait_change(screen, 10)
    raise AssertionError(f"the cursor never reached {label}:\n{screen}")


def _message(screen: str) -> str:
    return screen.rstrip("\n").splitlines()[-3].strip()


def test_m_moves_a_card_only_where_the_engine_takes_it(tmp_path: Path) -> None:
    term = Term(term_name("declare"), "80x24",
                [sys.executable, str(ROOT / "tests" / "ui" / "scripted_console.py"),
                 "opponent-knocks-on-fours"], p2pgin_env(tmp_path))
    try:
        term.wait(r"Your turn: take the upcard", 30)
        term.keys("p")  # the opponent passes too
        term.wait(r"draw from the stock \(s\)", 10)
        term.keys("s")
        term.wait(r"Enter discard", 10)
        term.keys("Enter")  # the opponent draws 2♦ and knocks on 4♣ 4♥ 4♠
        term.wait(r"Enter lay off", 10)
        term.keys("Enter")  # the engine's best declaration, shown first
        term.wait(r"Enter declare", 10)
        _cursor_to(term, "A♣")
        seen, screens = [], []
        for _ in range(4):
            before = term.screen()
            term.keys("m")
            screens.append(term.wait_change(before, 2))  # NB: the same message: no change
            seen.append(_message(screens[-1]))
        assert all("their meld" not in m for m in seen), seen  # never onto the fours
        assert "A♣ can go nowhere else here" in seen[0], seen
        assert all("AC" not in m for m in seen), seen  # the screen's symbols
        assert all(layout_faults(screen) == [] for screen in screens), screens
    finally:
        term.stop()

"""The screens issue 23 names, captured from the real program in a real terminal at
80x24 (bugs 8 and 9): team gin from ``p2pgin play`` with the names it gives its bots,
the three-player sit-out and a silent seat at real loopback tables. No captured line
crosses a divider (``screen_check``); the partner's name is whole and the title keeps
"p2pgin"; the silent seat is said once.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from realterm import ROOT, Term, p2pgin_env, requires_tty, term_name
from screen_check import layout_faults

pytestmark = requires_tty

LAUNCHER = str(ROOT / "tests" / "ui" / "table_launcher.py")


def _side(screen: str) -> list[str]:
    rows = screen.splitlines()
    top = next(i for i, r in enumerate(rows) if r.startswith("─ Table"))
    return [r.split("│")[1] for r in rows[top + 1:top + 6] if "│" in r]


def test_team_gin_from_play_shows_whole_names_and_keeps_the_title(tmp_path: Path) -> None:
    term = Term(term_name("team"), "80x24",
                [sys.executable, "-m", "p2pgin", "play", "--name", "Ann", "--game", "team_gin",
                 "--players", "4", "--bot-delay", "0.3"], p2pgin_env(tmp_path))
    try:
        screen = term.wait(r"Your turn", 90)
        assert layout_faults(screen) == [], screen
        title = screen.splitlines()[0]
        assert title.startswith(" p2pgin") and "team gin:" in title, title
        names = title.split(": ", 1)[1].split(", ")
        mine = next(r for r in _side(screen) if "(you)" in r)
        partner = mine.split("&")[1].split("(you)")[0].strip()
        assert partner in names and "…" not in mine, (names, mine)  # whole, not cut
        assert re.search(r"Game 2: \S+ \(\d+\) vs \S+ \(\d+\)", screen), screen
    finally:
        term.stop()


def test_the_seat_sitting_a_hand_out_sees_every_line_inside_its_panel(tmp_path: Path
                                                                      ) -> None:
    screen = ""
    for seed in range(1, 16):  # NB: the toss decides who deals first: until it is me
        term = Term(term_name("out"), "80x24",
                    [sys.executable, LAUNCHER, "gin3", "3", "--seat", "1", "--bot-names",
                     "--delay", "1", "--seed", str(seed)], p2pgin_env(tmp_path))
        try:
            screen = term.wait(r"sit this hand out|Your turn", 60)
            if "sit this hand out" in screen:
                screen = term.wait(r"takes|passes|draws", 30)
                break
        finally:
            term.stop()
    assert "You deal this hand and sit it out: bot2 and bot1 play it." in screen, screen
    assert layout_faults(screen) == [], screen


def test_a_silent_seat_is_said_once_inside_the_screen(tmp_path: Path) -> None:
    term = Term(term_name("silent"), "80x24",
                [sys.executable, LAUNCHER, "gin", "2", "--silent", "1", "--person-deadline",
                 "2"], p2pgin_env(tmp_path))
    try:
        screen = term.wait(r"Your turn|has not sent", 60)
        if "has not sent" not in screen:  # my move first: then Bob owes his
            term.keys("p" if " p pass" in screen.splitlines()[-1] else "s")
        screen = term.wait(r"has not sent", 60)
        assert layout_faults(screen) == [], screen
        assert screen.count("has not sent") == 1, screen
        assert " its " not in screen.split("─ Log")[0], screen  # a player is not "it"
    finally:
        term.stop()

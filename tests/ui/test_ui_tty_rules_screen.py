"""The rules screen in a real terminal (issue 26 item 6): ``p2pgin play`` in tmux, R
shows the rules of the game at this table with its numbers and the rule book's
sections: gin with Oklahoma, and Rummy with two variations (only those two)."""

from __future__ import annotations

import sys
from pathlib import Path

from realterm import Term, p2pgin_env, requires_tty, term_name

pytestmark = requires_tty


def _rules_screen(tmp_path: Path, *args: str, size: str = "100x30",
                  to_the_end: bool = False) -> str:
    term = Term(term_name("rules"), size, [sys.executable, "-m", "p2pgin", "play", "--name",
                                          "Alice", "--level", "easy", "--new", *args],
                p2pgin_env(tmp_path))
    try:
        term.wait(r"Your turn|'s turn", 90)
        term.keys("R")
        screen = term.wait(r"Rules of this table", 20)
        for _ in range(20 if to_the_end else 0):  # PgDn to the end of the rules
            if "The whole rule book" in screen:
                break
            before = screen
            term.keys("PageDown")
            screen = term.wait_change(before, 10)
            screen = before + "\n" + screen
        term.keys("Escape")
        term.wait(r"─ Hand ─", 20)
        term.keys("q")
        asked = term.wait(r"Quit the game\?|Pane is dead", 30)
        if "Quit the game?" in asked:
            term.keys("y")
        term.wait("Pane is dead", 60)
        return screen
    finally:
        term.stop()


def test_r_shows_gin_with_oklahoma_its_numbers_and_the_oklahoma_rule(tmp_path: Path) -> None:
    screen = _rules_screen(tmp_path, "--rules", "oklahoma", size="120x60")
    assert "Rules of this table: gin" in screen and "oklahoma rules" in screen
    assert "knock limit set by the upcard (ace: gin only)" in screen
    assert "match to 150" in screen and "a spade upcard doubles" in screen
    assert " 6. Knocking" in screen


def test_r_shows_rummy_with_two_variations_and_no_other(tmp_path: Path) -> None:
    screen = _rules_screen(tmp_path, "--game", "rummy", "--players", "3", "--multiple-melds",
                           "--reverse-scoring", size="100x30", to_the_end=True)
    assert "Rules of this table: Rummy for 3" in screen
    assert "basic rules with 2 variations" in screen
    assert "any number of melds per turn" in screen and "reverse scoring" in screen
    assert "15.1 Cards and melds" in screen and "15.6 Variations" in screen
    variations = screen.split("15.6 Variations")[-1]
    assert "Multiple melds (multiple_melds)" in variations
    assert "Reverse scoring (reverse_scoring)" in variations
    assert "Shuffle the stock" not in variations and "Discard any card" not in variations

"""Behind the "terminal too small" screen no key acts on the game (a real terminal).

The player cannot see the table then, so a key there would act blind: pass the upcard,
draw, discard, knock, or open a quit question nobody sees. Only resizing and an explicit
quit may act; the quit question is asked on the too-small screen itself.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from realterm import Term, p2pgin_env, requires_tty, term_name

pytestmark = requires_tty

MY_MOVES = re.compile(r"You (pass|draw|take|discard|knock|lay)")


@pytest.fixture
def term(tmp_path: Path) -> Iterator[Term]:
    t = Term(term_name("small"), "80x24",
             [sys.executable, "-m", "p2pgin", "play", "--name", "Alice", "--level", "easy",
              "--bot-delay", "0"], p2pgin_env(tmp_path))
    try:
        yield t
    finally:
        t.stop()


def test_keys_do_nothing_while_the_table_is_hidden_and_quit_asks_there(term: Term) -> None:
    screen = term.wait(r"Your turn", 90)
    assert not MY_MOVES.search(screen)
    term.resize("60x20")
    term.wait(r"Terminal too small: 60x20")
    # Every action key, the command line and its Enter, a card pick, y for good measure.
    for key in ("p", "d", "s", "Enter", "k", "g", "y", "1", "Enter", "h", "n", "x", "a"):
        term.keys(key)
    term.type(":")
    term.type("s")
    term.keys("Enter")
    term.type(":pass")
    term.keys("Enter")
    # q is the one key that acts: it asks, here (keys are handled in order, so every key
    # above was handled by the time the question shows).
    term.keys("q")
    screen = term.wait(r"Quit the game\? The match will be abandoned \(y/n\)", 20)
    assert "Terminal too small" in screen
    term.keys("n")
    screen = term.wait_change(screen, 20)
    assert "Quit the game?" not in screen and "Terminal too small" in screen
    term.resize("80x24")
    screen = term.wait(r"─ Hand ─", 20)
    assert not MY_MOVES.search(screen), screen  # nothing was played blind
    assert "Your turn" in screen and "Quit the game?" not in screen
    assert "running" in term.status()
    # The table is back: keys act again (and a quit asked behind the small screen is gone).
    term.resize("60x20")
    term.wait(r"Terminal too small")
    term.keys("q")
    term.wait(r"Quit the game\?.*\(y/n\)", 20)
    term.keys("y")
    term.wait("Pane is dead", 30)

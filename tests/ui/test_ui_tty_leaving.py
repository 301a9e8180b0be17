"""Leaving a match in a real terminal (tmux): ``--plain``'s Ctrl-C asks first (issue 23,
bug 12), as ``q`` does in the full-screen console. On main it abandoned the match at once.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from realterm import Term, p2pgin_env, requires_tty, term_name

pytestmark = requires_tty

PLAY = [sys.executable, "-m", "p2pgin", "play", "--name", "Ann", "--level", "easy",
        "--bot-delay", "0"]
QUESTION = "Quit the game? The match will be abandoned. Type y or n."


def test_plain_ctrl_c_asks_before_abandoning(
        tmp_path: Path) -> None:
    term = Term(term_name("plain-cc"), "200x40", [*PLAY, "--plain"], p2pgin_env(tmp_path))
    try:
        term.wait(r"Your turn", 90)
        term.keys("C-c")
        screen = term.wait(re.escape(QUESTION), 20)
        assert "running" in term.status() and "abandoned" not in screen.replace(QUESTION, "")
        term.keys("n", "Enter")
        term.wait(r"cancelled", 20)
        assert "running" in term.status()  # nothing was signed: the match goes on
        before = term.screen()
        term.keys("C-c")
        deadline = time.monotonic() + 20
        while term.screen().count(QUESTION) < 2:  # asked again, after the "cancelled"
            assert time.monotonic() < deadline, term.screen()
            time.sleep(0.1)
        assert before.count(QUESTION) == 1
        term.keys("y", "Enter")
        screen = term.wait("Pane is dead", 30)
        assert "You abandoned the match" in screen
    finally:
        term.stop()

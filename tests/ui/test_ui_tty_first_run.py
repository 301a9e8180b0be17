"""The first time a person plays, p2pgin asks the name other players will see (a real
terminal); it defaulted to the login name ("root") without a word. Asked once."""

from __future__ import annotations

import getpass
import sys
from pathlib import Path

from realterm import Term, p2pgin_env, requires_tty, term_name

pytestmark = requires_tty


def test_the_first_run_asks_a_name_and_only_the_first(tmp_path: Path) -> None:
    env = p2pgin_env(tmp_path)
    play = [sys.executable, "-m", "p2pgin", "play", "--level", "easy"]
    first = Term(term_name("first"), "80x24", play, env)
    try:
        screen = first.wait(r"Your name, as other players will see it", 60)
        assert f"[{getpass.getuser()}]" in screen
        first.type("Zoe")
        first.keys("Enter")
        screen = first.wait(r"Zoe vs bot-easy", 60)
        first.keys("q")
        first.wait(r"Quit the game\?", 20)
        first.keys("y")
        first.wait("Pane is dead", 30)
    finally:
        first.stop()
    again = Term(term_name("again"), "80x24", play, env)
    try:
        screen = again.wait(r"Zoe vs bot-easy", 60)  # remembered: no question
        assert "Your name" not in screen
    finally:
        again.stop()

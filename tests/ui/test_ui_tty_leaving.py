"""Leaving a match in a real terminal (tmux): ``--plain``'s Ctrl-C asks first (issue 23,
bug 12), and once the console has closed the terminal shows the final score and the
transcript with the command that checks it (issue 23's rough edges: only the bot printed
them). On main, Ctrl-C in ``--plain`` abandoned the match at once, and after either
console closed the terminal said at most "You left the match; telling the other
players...".
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


def _summary_shown(screen: str, home: Path) -> None:
    """The score line and the transcript with its check command, on the terminal."""
    assert re.search(r"Ann abandoned the match\. Score then: (bot-easy|Ann) \d+, "
                     r"(bot-easy|Ann) \d+\.", screen), screen
    (saved,) = (home / "transcripts").glob("*.jsonl")
    flat = "".join(screen.split())  # NB: the long path wraps at the terminal's edge
    assert f"Transcript:{saved}(checkit:p2pginverify{saved})" in flat, screen


def test_plain_ctrl_c_asks_before_abandoning_and_the_end_shows_score_and_transcript(
        tmp_path: Path) -> None:
    term = Term(term_name("plain-cc"), "200x40", [*PLAY, "--plain"], p2pgin_env(tmp_path))
    try:
        # NB: dealt, and the plain console reads lines (the bot may knock at once)
        term.wait(r"dealt; every card proven", 90)
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
        _summary_shown(screen, tmp_path)
    finally:
        term.stop()


def test_the_full_screen_console_leaves_the_score_and_transcript_on_the_terminal(
        tmp_path: Path) -> None:
    term = Term(term_name("full-end"), "200x40", PLAY, p2pgin_env(tmp_path))
    try:
        term.wait(r"Stock +[0-9]+ cards", 90)
        term.keys("q")
        term.wait(r"Quit the game\?", 20)
        term.keys("y")
        _summary_shown(term.wait("Pane is dead", 30), tmp_path)
    finally:
        term.stop()

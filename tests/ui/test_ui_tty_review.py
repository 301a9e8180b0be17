"""Issue 27 in a real terminal (tmux): the hint key gives its reason on the console's
screen, and ``p2pgin review`` of one's own game shows its progress bar and then the
review (the costliest decisions first, then each hand)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from realterm import ROOT, Term, p2pgin_env, requires_tty, term_name

pytestmark = requires_tty


def test_the_hint_shows_its_reason_on_the_console(tmp_path: Path) -> None:
    term = Term(term_name("hint"), "100x30",
                [sys.executable, str(ROOT / "tests" / "ui" / "scripted_console.py"),
                 "a-hand"], p2pgin_env(tmp_path))
    try:
        term.wait(r"Your turn: take the upcard", 30)
        term.keys("p")
        term.wait(r"draw from the stock \(s\)", 10)
        term.keys("s")
        term.wait(r"Enter discard", 10)
        term.keys("h")
        screen = term.wait(r"Hint: ", 30)
        said = " ".join(screen.split())  # NB: the terminal wraps a long line anywhere
        hint = said[said.index("Hint: "):]
        assert hint.startswith(("Hint: discard", "Hint: knock", "Hint: gin")), screen
        assert " point" in hint or " deadwood" in hint, screen
    finally:
        term.stop()


def test_review_shows_a_progress_bar_then_the_review_in_a_terminal(tmp_path: Path) -> None:
    from tests.verify.helpers import finished_table
    from tests.verify.tables import game_file

    ann = finished_table(3).seats["ann"]
    path = game_file(tmp_path / "games", ann, {"seat": 0, "role": "host"})
    path.with_suffix(".secrets").write_text(json.dumps(ann.secrets))
    term = Term(term_name("review"), "110x100",
                [sys.executable, "-m", "p2pgin", "review", str(path), "--samples", "8",
                 "--hand", "2"], p2pgin_env(tmp_path / "home"))
    try:
        term.wait(r"reviewing \[[#.]+\] \d+/\d+ moves", 120)
        screen = term.wait(r"Pane is dead", 120)
        rows = screen.splitlines()
        first = next(i for i, r in enumerate(rows) if r.startswith("Accuracy "))
        assert "expected points lost" in rows[first]
        assert any(r.startswith("Hand 2: accuracy ") for r in rows[first:]), screen
        decisions = [r for r in rows if re.match(r" [ ?] *\d+\. \[", r)]
        assert len(decisions) > 5, screen
        assert "Traceback" not in screen
    finally:
        term.stop()

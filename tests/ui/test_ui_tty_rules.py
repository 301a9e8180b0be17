"""A saved rule set at a real table: ``p2pgin rules save`` then ``p2pgin host --rules
NAME`` in a real terminal, whose lobby shows the saved game, seats and rules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from realterm import ROOT, Term, p2pgin_env, requires_tty, term_name

from tests.net.peerproc import free_port

pytestmark = requires_tty


def test_a_host_with_a_saved_rule_set_shows_its_game_and_rules(tmp_path: Path) -> None:
    env = p2pgin_env(tmp_path)
    saved = subprocess.run([sys.executable, "-m", "p2pgin", "rules", "save", "kitchen",
                            "--game", "rummy", "--players", "3", "--multiple-melds",
                            "--aces-high-or-low", "--target", "150"],
                           env=env, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert saved.returncode == 0, saved
    term = Term(term_name("rules-host"), "80x24",
                [sys.executable, "-m", "p2pgin", "host", "--name", "Ann", "--rules", "kitchen",
                 "--listen", "127.0.0.1", "--port", str(free_port()), "--no-announce"], env)
    try:
        screen = term.wait(r"Seats: 1 of 3 taken", 60)
        assert "Rummy" in screen and "3 seats" in screen, screen
        flat = " ".join(screen.split())
        for words in ("any number of melds per turn", "aces high or low", "first to 150"):
            assert words in flat, screen
        term.keys("q")
        term.wait("Pane is dead", 30)
    finally:
        term.stop()

"""The real ``p2pgin play`` console in a real terminal (tmux via testkit.term).

A person's keys go to the real program, which plays a hand against a bot peer over
loopback TCP with the full protocol; the test reads the screen like a person would.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from realterm import Term, p2pgin_env, play_by_keys, requires_tty, term_name

pytestmark = requires_tty


@pytest.fixture
def term(tmp_path: Path):  # type: ignore[no-untyped-def]
    t = Term(term_name("ui"), "100x30", [sys.executable, "-m", "p2pgin", "play", "--name",
                                         "Alice", "--level", "easy"], p2pgin_env(tmp_path))
    try:
        yield t
    finally:
        t.stop()


def test_a_hand_played_by_keys_in_a_real_terminal(term: Term) -> None:
    screen = term.wait(r"Stock +[0-9]+ cards", 90)  # the deal is done
    assert "Alice vs bot-easy" in screen
    assert re.search(r"Stock +(31|30) cards", screen), screen
    # NB: a hand takes ~20 s here; on a loaded machine much longer: play_by_keys fails
    # only when the screen stops changing for long (a stall), or after a generous cap.
    play_by_keys(term, r"Hand 1: (knock|gin|undercut|big gin|void)|Scoring", cap=600)
    screen = term.wait(r"deal verified|NOT VERIFIED", 60)
    assert "deal verified" in screen, screen
    assert "Scoring" in screen or "void" in screen
    term.keys("Escape")
    screen = term.wait(r"verified \(hand [12]\)", 30)  # v2: the next deal is proven at once
    term.keys("q")
    asked = term.wait(r"Quit the game\?|Pane is dead", 30)
    term.keys("y")
    screen = term.wait("Pane is dead", 30)
    if "will be abandoned" in asked:  # the moment while the others are told is explained
        assert "You left the match; telling the other players..." in screen, screen

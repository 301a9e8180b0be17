"""``p2pgin replay`` in a real terminal (tmux through :class:`testkit.term.Term`): the full
screen opens on a verified record, the arrow keys step, a typed number and Enter jump
to a hand (or say there is none), End shows the match's result, ``q`` leaves; for two
players, team gin and a Rummy table of four, and the verify command's progress line at a
terminal."""

from __future__ import annotations

import itertools
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.term import Term, missing
from tests.session.table_harness import Router
from tests.verify.tables import save, transcript_at

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")
_names = itertools.count()


@pytest.fixture
def terminal(home: Path) -> Iterator[Any]:
    """Start ``p2pgin ARGS`` in an 80x24 terminal; stopped at the end."""
    started: list[Term] = []
    env = dict(os.environ, P2PGIN_HOME=str(home), LANG="C.UTF-8",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))

    def start(*args: str, size: str = "80x24") -> Term:
        term = Term(f"p2pgin-records-{os.getpid()}-{next(_names)}", size,
                    [sys.executable, "-m", "p2pgin", *args], env)
        started.append(term)
        return term

    try:
        yield start
    finally:
        for term in started:
            term.stop()


def test_the_replay_steps_jumps_and_quits_in_a_real_terminal(
        tables: dict[Any, Router], tmp_path: Path, terminal: Any) -> None:
    path = save(tmp_path, transcript_at(tables[("gin", 2)]))
    term = terminal("replay", str(path))
    screen = term.wait(r"p2pgin replay +hand 1/2 +step 0/", 60)
    assert "s0 vs s1: gin for two players" in screen and "Hand 1: " in screen
    assert "Stock 31" in screen and "<- ->" in screen
    term.keys("Right")
    screen = term.wait(r"step 1/", 20)
    assert ">   1. " in screen
    term.keys("Left")
    term.wait(r"step 0/", 20)
    term.type("2")
    term.wait(r"go to hand: 2_", 20)
    term.keys("Enter")
    screen = term.wait(r"hand 2/2 +step 0/", 20)
    assert "Hand 2: " in screen
    term.type("9")
    term.keys("Enter")
    screen = term.wait(r"no hand 9: the record has 2 hands", 20)
    term.keys("End")
    screen = term.wait(r"Showdown", 20)
    assert "Up Dn" in screen  # the result is taller than 24 rows: it scrolls
    for _ in range(30):
        term.keys("Down")
    screen = term.wait(r"won the match", 20)
    term.keys("q")
    deadline = time.monotonic() + 10
    while term.status().startswith("running") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert term.status() == "exited 0"


@pytest.mark.parametrize("table", [("team_gin", 4), ("rummy", 4)])
def test_the_replay_draws_a_bigger_table_in_a_real_terminal(
        table: tuple[str, int], tables: dict[Any, Router], tmp_path: Path,
        terminal: Any) -> None:
    path = save(tmp_path, transcript_at(tables[table]))
    term = terminal("replay", str(path), size="100x40")
    screen = term.wait(r"p2pgin replay +hand 1/", 60)
    for _ in range(6):
        term.keys("Right")
    screen = term.wait(r"step 6/", 20)
    assert "face down" in screen
    if table[0] == "team_gin":
        assert "Game 0: " in screen and "Game 1: " in screen and "s0 & s2" in screen
    else:
        assert screen.count("face down") >= 3
    term.keys("PageDown")
    term.keys("End")
    term.wait(r"Showdown", 20)
    term.keys("q")


def test_verify_shows_its_progress_at_a_terminal_and_clears_it(
        tables: dict[Any, Router], tmp_path: Path, terminal: Any) -> None:
    path = save(tmp_path, transcript_at(tables[("rummy", 6)]))
    term = terminal("verify", str(path), size="200x100")
    seen = []
    for _ in range(600):  # read the screen as fast as tmux gives it, until the verdict
        screen = term.screen()
        seen.append(screen)
        if "verdict" in screen:
            break
    assert any(f"file     {path} (transcript)\n  checking entry " in x for x in seen), seen
    assert "verdict  OK" in screen and "checking entry" not in screen  # cleared
    lines = screen.splitlines()
    assert lines[0] == f"file     {path} (transcript)" and lines[1].startswith("session  ")

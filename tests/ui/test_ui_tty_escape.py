"""Esc closes an overlay at once (a real terminal): it waited half a second for the rest
of an escape sequence (prompt_toolkit's default), while Enter was instant."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from realterm import ROOT, Term, p2pgin_env, requires_tty, term_name

pytestmark = requires_tty


@pytest.fixture
def term(tmp_path: Path) -> Iterator[Term]:
    t = Term(term_name("esc"), "80x24",
             [sys.executable, str(ROOT / "tests" / "ui" / "scripted_console.py"), "a-hand"],
             p2pgin_env(tmp_path))
    try:
        yield t
    finally:
        t.stop()


def _closing_time(term: Term) -> float:
    term.keys("?")
    term.wait(r" Keys", 10)
    start = time.monotonic()
    term.keys("Escape")
    while " Keys" in term.screen():
        assert time.monotonic() - start < 5, "Esc did not close the help"
    return time.monotonic() - start


def test_escape_closes_the_help_at_once(term: Term) -> None:
    term.wait(r"Your turn", 30)
    took = min(_closing_time(term) for _ in range(3))
    # NB: 0.5 s before; reading the screen through tmux takes a few hundredths itself.
    assert took < 0.3, took

"""Real-terminal helpers for the console tests: ``p2pgin`` in tmux via tuishot.

The terminal itself is :mod:`tools/tuiterm.py` (shared with the screenshots tool and
``bench/startup.py``); here are what the tests add: the skip mark, a ``p2pgin`` process
environment with its own data directory, and the keys a simple player presses.
"""

from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from tuiterm import Term, find_tuishot  # noqa: E402

__all__ = ["ROOT", "Term", "next_keys", "p2pgin_env", "play_by_keys", "requires_tty", "term_name"]

requires_tty = pytest.mark.skipif(
    find_tuishot() is None,
    reason="needs tmux and ../shared/tools/tuishot (CI installs tmux)",
)

_names = itertools.count()


def term_name(what: str) -> str:
    """A tmux session name unique to this test process."""
    return f"p2pgin-{what}-{os.getpid()}-{next(_names)}"


def p2pgin_env(home: Path) -> dict[str, str]:
    """The environment of a ``p2pgin`` run with its own data directory ``home``."""
    env = dict(os.environ)
    env["P2PGIN_HOME"] = str(home)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("LANG", "C.UTF-8")
    return env


def next_keys(screen: str) -> list[str]:
    """What to press, read off the key strip (the last line) like a person would."""
    strip = screen.rstrip("\n").splitlines()[-1] if screen.strip() else ""
    if " p pass" in strip:
        return ["p"]
    if " s stock" in strip:
        return ["s"]
    if " g gin" in strip:
        return ["g", "y"]
    if " k knock" in strip:
        return ["k", "y"]
    if "Enter lay off" in strip:
        return ["Enter"]
    if "Enter discard" in strip:
        return ["h", "Enter"]  # the hint puts the cursor on the card to throw
    return []


def play_by_keys(term: Term, done: str, *, stall: float = 120, cap: float = 900) -> str:
    """Press what the key strip offers (closing result overlays) until the screen matches
    ``done``; fails when the screen stops changing for ``stall`` seconds (a stuck game,
    not a slow machine) or after ``cap`` seconds. Returns the screen."""
    import re
    import time

    screen = term.screen()
    deadline = time.monotonic() + cap
    last_change, last_screen = time.monotonic(), screen
    while not re.search(done, screen):
        now = time.monotonic()
        if screen != last_screen:
            last_change, last_screen = now, screen
        if now > deadline or now - last_change > stall:
            raise AssertionError(f"no /{done}/ on the screen:\n{screen}")
        strip = screen.rstrip("\n").splitlines()[-1] if screen.strip() else ""
        keys = ["Escape"] if "Esc close" in strip else next_keys(screen)
        if not keys:
            screen = term.wait_change(screen, 5)
            continue
        for key in keys:
            before = screen
            term.keys(key)
            screen = term.wait_change(before, 30)
    return screen

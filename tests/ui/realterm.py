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

from tuiterm import Term, find_tuishot, next_keys, play_by_keys  # noqa: E402

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

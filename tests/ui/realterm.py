"""Real-terminal helpers for the console tests: ``p2pgin`` in tmux.

The terminal is :class:`testkit.term.Term` and the keys a simple player presses are
:mod:`testkit.keys` (shared with ``tools/screenshots.py`` and ``bench/startup.py``); here
are what the tests add: the skip mark, a ``p2pgin`` process environment with its own
data directory, and terminal names unique to this test process.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from testkit.keys import next_keys, play_by_keys
from testkit.term import Term, missing

__all__ = ["ROOT", "Term", "next_keys", "p2pgin_env", "play_by_keys", "requires_tty", "term_name"]

ROOT = Path(__file__).resolve().parents[2]

#: Skips a test where this machine cannot run a real terminal (the reason says why).
requires_tty = pytest.mark.skipif(missing() is not None, reason=missing() or "")

_names = itertools.count()


def term_name(what: str) -> str:
    """A terminal name unique to this test process."""
    return f"p2pgin-{what}-{os.getpid()}-{next(_names)}"


def p2pgin_env(home: Path) -> dict[str, str]:
    """The environment of a ``p2pgin`` run with its own data directory ``home``."""
    env = dict(os.environ)
    env["P2PGIN_HOME"] = str(home)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("LANG", "C.UTF-8")
    return env

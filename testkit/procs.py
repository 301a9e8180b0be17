"""Whether a process still runs, and waiting for one to end (the terminal's and the
lab's stops both need it)."""

from __future__ import annotations

import time
from pathlib import Path

__all__ = ["alive", "wait_gone"]


def alive(pid: int) -> bool:
    """``pid`` runs: it exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] not in (["Z"], ["X"])


def wait_gone(pid: int, secs: float, poll: float = 0.02) -> bool:
    """Wait up to ``secs`` for ``pid`` to end; whether it did."""
    deadline = time.monotonic() + secs
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(poll)
    return True
